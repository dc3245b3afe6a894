#!/bin/bash
# Peer down and back lines: `hopwatch-analyzer run` posts to a webhook receiver that is stopped and started
# again while it runs; the log says once that the webhook is down, then that it is back with how many posts
# failed meanwhile (the count /metrics has), and every alert still reaches the receiver (the run exits 0:
# nothing undelivered).  The alerts are the analyzer's own LinkDown/LinkUp from reloads of a dump folder
# (SIGHUP), so no records are needed.  An Alertmanager that never answers gets the same down line, and the
# run counts the alert it could not deliver (exit 1).  Then the collector's live stream: its listener
# (hopwatch-records --listen) starts late; the collector says the stream is down, then back with how many
# connects failed.  With --status-interval 1 the analyzer's status lines name the peers that are down.
# Usage: peer_logs.sh HOPWATCH-ANALYZER SOURCE-ROOT HOPWATCH-COLLECTOR HOPWATCH-RECORDS HOPWATCH-GEN SEND-PCAP
set -u
an=$1 src=$2 col=$3 recs=$4 gen=$5 send=$6
. "$src/tests/collector/lib.sh"
command -v jq >/dev/null || skip "jq not installed"
T=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do stop_pid "$p"; done
	[ -n "${ns:-}" ] && ip netns del "$ns" 2>/dev/null
	[ -n "${KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT

fail() { # with both programs' logs
	echo "--- analyzer:"; cat "$T/an.err" 2>/dev/null; echo "--- collector:"; cat "$T/col.err" 2>/dev/null
	echo "FAIL: $*"
	exit 1
}

# ---- the webhook ----
# the receiver: answers 200 to every POST and writes each body on a line of its own
cat >"$T/hook.py" <<'PY'
import http.server, json, sys
log = open(sys.argv[2], "a", buffering=1)
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        log.write(json.dumps(json.loads(body)) + "\n")
        self.send_response(200)
        self.end_headers()
    def log_message(self, *a):
        pass
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
PY
port=$(free_port)
hook_up() {
	python3 "$T/hook.py" "$port" "$T/posts.jsonl" &
	hook=$!
	pids+=($hook)
	wait_for 10 "the webhook receiver listens" \
		python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1)' "$port" 2>/dev/null
}
# posts WHAT STATE: alerts of that alertname and status the receiver got, over all posts
posts() { jq -s --arg a "$1" --arg s "$2" '[.[].alerts[] | select(.labels.alertname == $a and .status == $s)] | length' "$T/posts.jsonl" 2>/dev/null || echo 0; }
got() { [ "$(posts "$1" "$2")" -ge 1 ]; }
has_line() { grep -q "$1" "$T/an.err"; }

# the leaf-spine dumps of tests/topo; host2 -- leaf3.eth3 goes away when host2 leaves both dumps
mkdir -p "$T/lldp"
cp "$src"/tests/topo/data/lldpd-json0/*.json "$T/lldp/"
without_host2() {
	rm "$T/lldp/host2.json"
	jq 'if .lldp then .lldp[0].interface |= map(select(.chassis[0].name[0].value != "host2")) else . end' \
		"$src/tests/topo/data/lldpd-json0/leaf3.json" >"$T/leaf3.tmp" && mv "$T/leaf3.tmp" "$T/lldp/leaf3.json"
}
with_host2() { cp "$src"/tests/topo/data/lldpd-json0/{host2,leaf3}.json "$T/lldp/"; }

hook_up
mport=$(free_port)
"$an" run --stream "unix:$T/an.sock" --lldpd-json "$T/lldp" --topology-reload 0 --webhook "http://127.0.0.1:$port/" \
	--status-interval 1 --metrics "127.0.0.1:$mport" --events "$T/events.jsonl" 2>"$T/an.err" &
apid=$!
pids+=($apid)
wait_for 30 "the analyzer listens" test -S "$T/an.sock"
# the periodic status line (--status-interval 1): no peer down while the receiver is up
wait_for 30 "a status line with no peer down" has_line "status: records 0 (0/s), events raised [0-9]*, resolved [0-9]*; peers down: none"
without_host2
kill -HUP $apid
wait_for 30 "the webhook gets the LinkDown" got LinkDown firing
stop_pid "$hook" # the receiver goes away ...
with_host2
kill -HUP $apid # ... and the link comes back: its resolve and the LinkUp wait for the webhook
wait_for 30 "a line saying the webhook is down" has_line "webhook http://127.0.0.1:$port/: down"
wait_for 30 "a status line naming the webhook as down" has_line "status: .*; peers down: webhook http://127.0.0.1:$port/$"
sleep 2 # a few more failed posts (the sink retries every second), so that the count is above 1
hook_up
wait_for 30 "a line saying the webhook is back" has_line "webhook http://127.0.0.1:$port/: back after"
wait_for 30 "the webhook gets the resolve of the LinkDown" got LinkDown resolved
# one down line and one back line for one outage; the back line counts the posts that failed (at least the
# first attempt and one retry a second later: the receiver was away for more than 2 s)
[ "$(grep -c "webhook http://127.0.0.1:$port/: down" "$T/an.err")" = 1 ] || fail "not exactly one down line"
failed=$(sed -n "s|.*webhook http://127.0.0.1:$port/: back after [0-9.]* s, \([0-9]*\) posts\? failed meanwhile|\1|p" "$T/an.err")
[ -n "$failed" ] && [ "$failed" -ge 2 ] || fail "the back line does not count the failed posts (got '${failed}')"
# /metrics counts the same failed posts: every failure was in that one outage
metric() { curl -sf "http://127.0.0.1:$mport/metrics" | grep -qx "hopwatch_analyzer_alert_posts_total{sink=\"webhook\",result=\"failed\"} $failed"; }
wait_for 30 "/metrics counting $failed failed webhook posts" metric
kill -TERM $apid
wait $apid
rc=$?
[ $rc = 0 ] || fail "the analyzer exited $rc: alerts undelivered?"
got LinkUp firing || fail "the LinkUp raised while the webhook was down never reached it"
echo "ok webhook: down once, back after $failed failed posts (as /metrics counts), nothing lost"

# ---- Alertmanager, never reachable: the same down line, and at exit the run counts what it could not deliver
closed=$(free_port)
mv "$T/an.err" "$T/an1.err"
"$an" run --stream "unix:$T/am.sock" --lldpd-json "$T/lldp" --topology-reload 0 --alertmanager "http://127.0.0.1:$closed" \
	--status-interval 1 2>"$T/an.err" &
apid=$!
pids+=($apid)
wait_for 30 "the analyzer listens" test -S "$T/am.sock"
without_host2
kill -HUP $apid
wait_for 30 "a line saying Alertmanager is down" has_line "alertmanager http://127.0.0.1:$closed: down"
wait_for 30 "a status line naming Alertmanager as down" has_line "status: .*; peers down: alertmanager http://127.0.0.1:$closed$"
kill -TERM $apid
wait $apid
rc=$?
[ $rc = 1 ] || fail "the analyzer exited $rc with an alert it could not deliver, want 1"
has_line "alertmanager: .* 1 undelivered" || fail "the summary does not count the undelivered LinkDown"
echo "ok alertmanager: down line, the undelivered alert counted, exit 1"

# ---- the collector's stream ----
[ "$(id -u)" -eq 0 ] || { echo "SKIP stream part: needs root (network namespace)"; exit 0; }
ns=hwt-peer-$$
make_veth_ns "$ns"
"$gen" reports --count 50 --out "$T/r.pcap" >/dev/null 2>&1 || fail "hopwatch-gen pcap"
ip netns exec "$ns" "$col" --pcap rx0 --stream "unix:$T/rec.sock" --status-interval 1 2>"$T/col.err" >/dev/null &
cpid=$!
pids+=($cpid)
has_col() { grep -q "$1" "$T/col.err"; }
sending() { ip netns exec "$ns" python3 "$send" tx0 "$T/r.pcap" >/dev/null 2>&1; }
# keep reports coming: the sender connects when it has a batch to send
( while :; do sending; sleep 0.2; done ) &
feeder=$!
pids+=($feeder)
wait_for 60 "a line saying the stream is down (no listener yet)" has_col "stream unix:$T/rec.sock: down"
wait_for 60 "a status line naming the stream as down" has_col "status: .*; peers down: stream unix:$T/rec.sock$"
"$recs" --listen "unix:$T/rec.sock" >/dev/null 2>&1 &
lpid=$!
pids+=($lpid)
wait_for 60 "a line saying the stream is back" has_col "stream unix:$T/rec.sock: back after"
grep -q "stream unix:$T/rec.sock: back after [0-9.]* s, [1-9][0-9]* connects\? failed meanwhile" "$T/col.err" ||
	{ cat "$T/col.err"; fail "the stream's back line does not count failed connects"; }
# a status line after the back line names no peer down
back_then_none() { sed -n "/stream unix:.*: back after/,\$p" "$T/col.err" | grep -q "status: .*; peers down: none$"; }
wait_for 60 "a status line with no peer down after the stream is back" back_then_none
echo "ok stream: down while nobody listened, back when hopwatch-records did"
