#!/bin/bash
# Integration: hopwatch-gen reports with sequence gaps and drops -> the collector's record files ->
# hopwatch-analyzer run; the expected events appear once per episode, replays are deterministic, and
# a config with an unknown key is refused with exit 2 naming the key.
set -u
analyzer=$1 gen=$2 col=$3 records=$4
. "$(dirname "$0")/lib.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

make_records "$T" "$gen" "$col" --count 20000 --seq-gap-every 50 --drop-rate 0.01
cat >"$T/only.json" <<'J'
{"detectors": {"QueueBuildup": false, "HighQueue": false, "HighHopLatency": false, "Microburst": false,
               "PathChange": false, "Incast": false}}
J
"$analyzer" run --records "$T"/rec/*.hwr --config "$T/only.json" --events "$T/ev.jsonl" --summary-json - 2>"$T/summary.json" ||
  fail "analyzer run exited $?"
loss=$(count_events "$T/ev.jsonl" TelemetryReportLoss firing)
drops=$(count_events "$T/ev.jsonl" PacketDrops firing)
senders=$(python3 -c "import json; print(len({(r['report_node']) for r in map(json.loads, open('/dev/stdin'))}))" \
  < <("$records" "$T"/rec/*.hwr))
echo "TelemetryReportLoss $loss (senders $senders), PacketDrops $drops"
[ "$loss" -eq "$senders" ] || fail "expected one TelemetryReportLoss per sender ($senders), got $loss"
[ "$drops" -ge 1 ] || fail "no PacketDrops event"
python3 - "$T/ev.jsonl" "$T/summary.json" <<'PY' || exit 1
import json, sys
evs = [json.loads(l) for l in open(sys.argv[1])]
s = json.load(open(sys.argv[2]))
lost = sum(e["numbers"]["lost"] for e in evs if e["event"] == "TelemetryReportLoss" and e["state"] == "firing")
# every 50th number is skipped: 1 in 51 expected reports (2%), far above 0.1%
for e in evs:
    if e["event"] == "TelemetryReportLoss":
        r = e["numbers"]["ratio"]
        assert 0.015 < r < 0.025, e
    if e["event"] == "PacketDrops" and e["state"] == "firing":
        assert e["numbers"]["drops"] >= 1 and "drop_reason" in e["numbers"], e
        assert "queue" in e and "port" in e, e
assert lost == s["reports_lost"], (lost, s["reports_lost"])
print("reports lost", lost, "records", s["records"])
PY
# deterministic: a second replay gives the same events
"$analyzer" run --records "$T"/rec/*.hwr --config "$T/only.json" --events "$T/ev2.jsonl" --quiet ||
  fail "second run"
cmp -s "$T/ev.jsonl" "$T/ev2.jsonl" || fail "two replays of the same records gave different events"
# --pace recorded: 2000 reports 100 us apart take 0.2 s of wall time, and give the events of a fast replay
make_records "$T/paced" "$gen" "$col" --count 2000 --interval-ns 100000 --seq-gap-every 50
t0=$(date +%s%N)
"$analyzer" run --records "$T"/paced/rec/*.hwr --pace recorded --events "$T/paced.jsonl" --quiet || fail "--pace recorded"
t1=$(date +%s%N)
"$analyzer" run --records "$T"/paced/rec/*.hwr --events "$T/fast.jsonl" --quiet || fail "--pace fast"
[ $(((t1 - t0) / 1000000)) -ge 190 ] || fail "--pace recorded took $(((t1 - t0) / 1000000)) ms, expected about 200"
cmp -s "$T/paced.jsonl" "$T/fast.jsonl" || fail "paced and fast replays gave different events"
echo "paced replay: $(((t1 - t0) / 1000000)) ms for 200 ms of records"
# the same with the records as JSON lines
"$col" --pcap "$T/paced/reports.pcap" --json-out "$T/paced.rec.jsonl" >/dev/null 2>&1 || fail "collector --json-out (paced)"
t0=$(date +%s%N)
"$analyzer" run --jsonl "$T/paced.rec.jsonl" --pace recorded --events "$T/paced_json.jsonl" --quiet || fail "--jsonl --pace recorded"
t1=$(date +%s%N)
[ $(((t1 - t0) / 1000000)) -ge 190 ] || fail "--jsonl --pace recorded took $(((t1 - t0) / 1000000)) ms, expected about 200"
cmp -s "$T/paced_json.jsonl" "$T/fast.jsonl" || fail "paced JSON-lines replay gave other events than the fast one"
echo "paced JSON-lines replay: $(((t1 - t0) / 1000000)) ms for 200 ms of records"
# the same records as JSON lines (the collector's --json-out) give the same events
"$col" --pcap "$T/reports.pcap" --json-out "$T/records.jsonl" >/dev/null 2>&1 || fail "collector --json-out"
"$analyzer" run --jsonl "$T/records.jsonl" --config "$T/only.json" --events "$T/evj.jsonl" --quiet || fail "run --jsonl"
cmp -s "$T/ev.jsonl" "$T/evj.jsonl" || fail "--jsonl and --records inputs gave different events"
printf '{"time_ns":1,"node_id":"x"}\n' >"$T/bad.jsonl"
"$analyzer" run --jsonl "$T/bad.jsonl" --quiet 2>"$T/err"
rc=$?
[ "$rc" -eq 1 ] && grep -q "bad.jsonl:1: node_id" "$T/err" || fail "bad JSON record: exit $rc, $(cat "$T/err")"
# all detectors on: still one event per episode (an id fires again only after it was resolved: a re-raise
# of the same alert within its incident keeps its id)
"$analyzer" run --records "$T"/rec/*.hwr --events "$T/all.jsonl" --quiet || fail "run with all detectors"
python3 - "$T/all.jsonl" <<'PY' || fail "an episode was raised twice"
import json, sys
state = {}
for l in open(sys.argv[1]):
    e = json.loads(l)
    if e["event"] in ("LinkUp", "LinkDown", "MtuMismatch", "PfcMismatch", "NeighborChanged", "LinkDisappeared"):
        continue
    if e.get("update"):  # the firing alert again, grown (an Incast's sources): not another raise
        assert state.get(e["id"]) == "firing", e
        continue
    assert state.get(e["id"]) != e["state"] or e["state"] != "firing", e
    state[e["id"]] = e["state"]
PY
# the webhook receives the same events as the JSONL file (a small HTTP server on loopback)
python3 - "$T/hook.port" "$T/hook.jsonl" <<'PY' &
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        with open(sys.argv[2], "ab") as f:
            f.write(body + b"\n")
        self.send_response(200)
        self.end_headers()
    def log_message(self, *a):
        pass
srv = http.server.HTTPServer(("127.0.0.1", 0), H)
open(sys.argv[1], "w").write(str(srv.server_port))
srv.serve_forever()
PY
hook=$!
for _ in $(seq 600); do [ -s "$T/hook.port" ] && break; sleep 0.1; done
"$analyzer" run --records "$T"/rec/*.hwr --config "$T/only.json" --webhook "http://127.0.0.1:$(cat "$T/hook.port")/hook" \
  --quiet || { kill $hook; fail "analyzer --webhook"; }
kill $hook
# Alertmanager's webhook format: each alert once firing and once resolved (held for the minimum visible time, let
# go at exit); a post lists its firing alerts by incident label, in the order of each one's first raise in the
# post, and within one in the order raised (TelemetryReportLoss and PacketDrops are of one rank, hw_alert_rank)
python3 - "$T/hook.jsonl" "$T/ev.jsonl" <<'PY' || fail "webhook alerts differ from the JSONL events"
import json, sys
posts = [json.loads(l) for l in open(sys.argv[1])]
got = [(int(a["annotations"]["event_id"]), a["status"]) for p in posts for a in p["alerts"] if p["version"] == "4"]
want = [(e["id"], e["state"]) for e in map(json.loads, open(sys.argv[2]))]
assert sorted(got) == sorted(want), (len(got), len(want))
raised = {w[0]: i for i, w in enumerate(w for w in want if w[1] == "firing")}
labels = set()
for p in posts:
    f = [(int(a["annotations"]["event_id"]), a["labels"]["incident"]) for a in p["alerts"] if a["status"] == "firing"]
    first = {}
    for k, lab in sorted((raised[i], lab) for i, lab in f):
        first.setdefault(lab, k)
    assert f == sorted(f, key=lambda x: (first[x[1]], raised[x[0]])), "firing alerts out of order: %s" % f
    labels |= {lab for _, lab in f}
firing = [g for g in got if g[1] == "firing"]
print("webhook: %d alerts (%d firing, by incident (%d labels), in the order raised)" % (len(got), len(firing),
                                                                                    len(labels)))
PY
# a config key that does not exist: exit 2, message names the key
echo '{"packet_drops": {"ratio": 0.01, "windw_ns": 5}}' >"$T/bad.json"
"$analyzer" run --records "$T"/rec/*.hwr --config "$T/bad.json" --quiet 2>"$T/err"
rc=$?
[ "$rc" -eq 2 ] || fail "bad config: exit $rc, expected 2"
grep -q "packet_drops.windw_ns: unknown key" "$T/err" || fail "bad config message: $(cat "$T/err")"
# with the LLDP topology (tests/topo/data) and a node map: hops are placed, the rest counted and listed,
# events name nodes and links, and /metrics serves the analyzer's state
cat >"$T/map.json" <<'J'
{"port_format": "eth%u",
 "nodes": [{"name": "leaf1", "node_id": 1}, {"name": "leaf2", "node_id": 2}, {"name": "leaf3", "node_id": 3},
           {"name": "spine1", "node_id": 4}, {"name": "spine2", "node_id": 5}]}
J
mport=$(free_port)
"$analyzer" run --records "$T"/rec/*.hwr --lldpd-json "$(dirname "$0")/../topo/data/lldpd-json" --map "$T/map.json" \
  --events "$T/topo.jsonl" --metrics 127.0.0.1:$mport --hold 3 --summary-json - 2>"$T/topo-summary.json" &
an=$!
python3 - "$mport" "$T/metrics.txt" <<'PY' || { kill $an; fail "no /metrics"; }
import sys, time, urllib.request
for _ in range(50):
    try:
        body = urllib.request.urlopen("http://127.0.0.1:%s/metrics" % sys.argv[1], timeout=1).read().decode()
        if "hopwatch_analyzer_records_total 80000" in body:
            open(sys.argv[2], "w").write(body)
            sys.exit(0)
    except OSError:
        pass
    time.sleep(0.1)
sys.exit(1)
PY
wait $an || fail "analyzer with topology exited $?"
if command -v promtool >/dev/null; then promtool check metrics <"$T/metrics.txt" || fail "promtool check metrics"; fi
grep -q 'hopwatch_analyzer_link_congestion_score{link="leaf1:eth1--spine1:eth1"}' "$T/metrics.txt" ||
  fail "no per-link congestion score"
grep -q 'hopwatch_analyzer_alerts_active{alertname="TelemetryReportLoss"} 8' "$T/metrics.txt" ||
  fail "active alerts by name"
python3 - "$T/topo-summary.json" "$T/topo.jsonl" <<'PY' || fail "placement"
import json, sys
s = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
assert s["placed"] > 0 and s["unplaced"] > 0 and s["placed"] + s["unplaced"] == s["records"], s
assert any(u["why"] == "unknown_node" for u in s["unplaced_list"]), s["unplaced_list"]
evs = [json.loads(l) for l in open(sys.argv[2])]
assert any(e["event"] == "LinkUp" for e in evs)
named = [e for e in evs if e["event"] == "PacketDrops" and e.get("link")]
assert named and all(e["node"] in e["link"] for e in named), named[:1]
print("placed", s["placed"], "unplaced", s["unplaced"], "PacketDrops on named links", len(named))
PY
# live: the collector streams the same capture to the analyzer over a Unix socket
"$analyzer" run --stream "unix:$T/live.sock" --duration 4 --events "$T/live.jsonl" --summary-json - 2>"$T/live-summary.json" &
an=$!
for _ in $(seq 600); do [ -S "$T/live.sock" ] && break; sleep 0.1; done
"$col" --pcap "$T/reports.pcap" --stream "unix:$T/live.sock" >"$T/col-live.log" 2>&1 || fail "collector --stream"
wait $an || fail "analyzer --stream exited $?"
python3 - "$T/live-summary.json" "$T/col-live.log" <<'PY' || fail "live stream"
import json, sys
s = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
sent = int([l.split()[1] for l in open(sys.argv[2]) if l.startswith("stream_sent ")][0])
assert s["records"] == sent and sent > 0, (s["records"], sent)
print("live: records", s["records"], "events", s["events_raised"])
PY
echo PASS
