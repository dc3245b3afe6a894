#!/usr/bin/env bash
# Alerts lost at exit are counted and fail the run (issue 22 item 5): the analyzer replays an incast into a
# webhook that answers every POST with 500 (python http.server on loopback); at exit it must report every
# alert as undelivered and exit 1.  The same replay into a webhook that answers 200 delivers all, exit 0.
# Usage: alerts_lost.sh HOPWATCH-GEN HOPWATCH-ANALYZER
set -u
gen=$1 an=$2
. "$(dirname "$0")/lib.sh"
T=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do stop_pid "$p"; done
  rm -rf "$T"
}
trap cleanup EXIT

"$gen" scenario incast --out "$T/inc" --write-records >/dev/null 2>&1 || fail "hopwatch-gen scenario incast"

# the webhook: answers STATUS to every POST and counts them in a file (one line each)
cat >"$T/hook.py" <<'PY'
import http.server, sys
status, log = int(sys.argv[2]), open(sys.argv[3], "a", buffering=1)
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        log.write("post\n")
        self.send_response(status)
        self.end_headers()
    def log_message(self, *a):
        pass
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
PY

# run STATUS NAME: replay the incast into a webhook answering STATUS; $T/NAME.ev, .sum (summary), .rc
run() {
  local port pid
  port=$(free_port)
  python3 "$T/hook.py" "$port" "$1" "$T/$2.posts" &
  pid=$!
  pids+=($pid)
  for _ in $(seq 100); do
    python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1)' "$port" 2>/dev/null && break
    sleep 0.1
  done
  "$an" run --jsonl "$T/inc/records.jsonl" --webhook "http://127.0.0.1:$port/" --events "$T/$2.ev" --summary-json - 2>"$T/$2.sum"
  echo $? >"$T/$2.rc"
  stop_pid "$pid"
}

run 500 failing
run 200 working

python3 - "$T" <<'PY' || fail "the counts do not add up: $(tail -1 "$T/failing.sum"); $(tail -1 "$T/working.sum")"
import json, sys
T = sys.argv[1]
def load(name):
    evs = [json.loads(l) for l in open("%s/%s.ev" % (T, name))]
    s = json.loads(open("%s/%s.sum" % (T, name)).read().strip().splitlines()[-1])["webhook"]
    rc = int(open("%s/%s.rc" % (T, name)).read())
    posts = sum(1 for _ in open("%s/%s.posts" % (T, name)))
    return evs, s, rc, posts
# failing: every event (no topology: no LinkUp baseline) was handed over; the sink keeps one alert per
# episode (its id and alertname: a resolve updates its raise), so the alerts lost are the distinct
# (id, event) pairs of the events file; every POST the webhook saw failed
evs, s, rc, posts = load("failing")
alerts = len({(e["id"], e["event"]) for e in evs})
print("failing webhook: %d events, %d alerts, summary %s, exit %d, %d posts seen" % (len(evs), alerts, s, rc, posts))
assert alerts >= 1, "the incast raised no alert"
assert s["pushed"] == len(evs) and s["dropped"] == 0, s
assert s["undelivered"] == alerts and s["waiting"] == alerts, (s, alerts)
assert s["posts_ok"] == 0 and s["sent_alerts"] == 0 and s["posts_failed"] >= 1, s
assert s["posts_failed"] == posts, (s, posts)  # every failure counted, the one in flight at exit too
assert rc == 1, "exit %d with alerts lost" % rc
# working: the same events, all delivered, exit 0
evs2, s2, rc2, posts2 = load("working")
print("working webhook: summary %s, exit %d, %d posts seen" % (s2, rc2, posts2))
assert len(evs2) == len(evs), (len(evs2), len(evs))
assert s2["undelivered"] == 0 and s2["waiting"] == 0 and s2["dropped"] == 0 and s2["posts_failed"] == 0, s2
assert s2["posts_ok"] == posts2 and s2["sent_alerts"] >= alerts, (s2, posts2)
assert rc2 == 0, "exit %d with every alert delivered" % rc2
PY
echo PASS
