#!/bin/bash
# A real Alertmanager on loopback receives the analyzer's alerts: amtool lists them with the place labels;
# then Alertmanager is stopped, the analyzer raises alerts, Alertmanager starts again and the queued
# alerts arrive.  Skipped (77) only when Alertmanager is not installed.
set -u
analyzer=$1 gen=$2 col=$3
. "$(dirname "$0")/lib.sh"
am_bin=$(command -v alertmanager || command -v prometheus-alertmanager) || skip "alertmanager is not installed"
amtool=$(command -v amtool) || skip "amtool is not installed"
T=$(mktemp -d)
am_pid=
an_pid=
cleanup() {
  [ -n "$am_pid" ] && kill "$am_pid" 2>/dev/null && wait "$am_pid" 2>/dev/null
  [ -n "$an_pid" ] && kill "$an_pid" 2>/dev/null && wait "$an_pid" 2>/dev/null
  rm -rf "$T"
}
trap cleanup EXIT

port=$(free_port)
url=http://127.0.0.1:$port
cat >"$T/am.yml" <<'Y'
route:
  receiver: "null"
receivers:
  - name: "null"
Y
start_am() {
  "$am_bin" --config.file="$T/am.yml" --storage.path="$T/am-data" --web.listen-address=127.0.0.1:$port \
    --cluster.listen-address= >>"$T/am.log" 2>&1 &
  am_pid=$!
  for _ in $(seq 600); do
    "$amtool" --alertmanager.url="$url" alert query >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  fail "Alertmanager did not start: $(tail -3 "$T/am.log")"
}
stop_am() { kill "$am_pid"; wait "$am_pid" 2>/dev/null; am_pid=; }
# wait_alerts NAME N: until amtool lists at least N alerts named NAME (10 s)
wait_alerts() {
  for _ in $(seq 600); do
    "$amtool" --alertmanager.url="$url" alert query -o json "alertname=$1" >"$T/q.json" 2>/dev/null
    [ "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$T/q.json")" -ge "$2" ] && return 0
    sleep 0.1
  done
  return 1
}

make_records "$T/a" "$gen" "$col" --count 20000 --seq-gap-every 50 --drop-rate 0.01
cat >"$T/cfg.json" <<'J'
{"detectors": {"QueueBuildup": false, "HighQueue": false, "HighHopLatency": false, "Microburst": false,
               "PathChange": false, "Incast": false, "PacketDrops": false},
 "alerting": {"resend_ns": 1000000000}}
J

# 1: Alertmanager up; one TelemetryReportLoss alert per reporting node
start_am
"$analyzer" run --records "$T"/a/rec/*.hwr --config "$T/cfg.json" --alertmanager "$url" --events "$T/ev1.jsonl" \
  2>"$T/sum1.json" || fail "analyzer exited $?"
n=$(count_events "$T/ev1.jsonl" TelemetryReportLoss firing)
[ "$n" -ge 1 ] || fail "no TelemetryReportLoss events"
wait_alerts TelemetryReportLoss "$n" || fail "amtool lists $(cat "$T/q.json" | head -c 300), expected $n alerts"
python3 - "$T/q.json" "$T/ev1.jsonl" <<'PY' || fail "labels"
import json, sys
alerts = json.load(open(sys.argv[1]))
evs = [json.loads(l) for l in open(sys.argv[2]) if '"firing"' in l]
want = {str(e["node_id"]) for e in evs}
got = {a["labels"]["node_id"] for a in alerts}
assert got == want, (got, want)
for a in alerts:
    l, an = a["labels"], a["annotations"]
    assert l["alertname"] == "TelemetryReportLoss" and l["severity"] == "warning" and l["job"] == "hopwatch-analyzer", l
    assert l["hw_id"] == "0" and "queue" not in l, l
    # node: the switch id as the collector's metrics show it (dotted quad); node_id: the same number
    n = int(l["node_id"])
    assert l["node"] == "%d.%d.%d.%d" % (n >> 24, n >> 16 & 255, n >> 8 & 255, n & 255), l
    assert "TelemetryReportLoss at " in an["summary"] and " %" in an["summary"] and " UTC" in an["summary"], an
    assert float(an["ratio"]) > 0.001 and int(an["lost"]) >= 1, an
print("amtool lists", len(alerts), "TelemetryReportLoss alerts, nodes", sorted(got))
PY

# 2: Alertmanager down while the analyzer raises alerts (drops this time); they arrive once it is back
stop_am
# minimum visible time 2 s: part 3 checks a resolve is held back that long
cat >"$T/cfg2.json" <<'J'
{"detectors": {"QueueBuildup": false, "HighQueue": false, "HighHopLatency": false, "Microburst": false,
               "PathChange": false, "Incast": false, "TelemetryReportLoss": false},
 "alerting": {"resend_ns": 1000000000, "min_visible_ns": 2000000000}}
J
"$analyzer" run --records "$T"/a/rec/*.hwr --config "$T/cfg2.json" --alertmanager "$url" --events "$T/ev2.jsonl" \
  --hold 6 --summary-json - 2>"$T/sum2.json" &
an_pid=$!
for _ in $(seq 600); do [ -s "$T/ev2.jsonl" ] && break; sleep 0.1; done
sleep 1.5
"$amtool" --alertmanager.url="$url" alert query >/dev/null 2>&1 && fail "Alertmanager should be down"
start_am
active=$(python3 - "$T/ev2.jsonl" <<'PY'
import json, sys
st = {}
for l in open(sys.argv[1]):
    e = json.loads(l)
    st[e["id"]] = e["state"]
print(sum(v == "firing" for v in st.values()))
PY
)
[ "$active" -ge 1 ] || fail "no PacketDrops left active"
wait_alerts PacketDrops "$active" || fail "queued PacketDrops alerts did not arrive ($active expected)"
python3 - "$T/q.json" <<'PY' || fail "PacketDrops labels"
import json, sys
for a in json.load(open(sys.argv[1])):
    l = a["labels"]
    assert l["alertname"] == "PacketDrops" and l["severity"] == "critical", l
    assert l["node_id"] and l["port"] and l["queue"], l
    # the description says the reason's code: in its values ("drop_reason 80 (ACL deny)"), or for a code
    # without a name in the detail ("drop reason 176")
    code = a["annotations"]["drop_reason"]
    d = a["annotations"]["description"]
    assert "drop_reason %s" % code in d or "drop reason %s" % code in d, a["annotations"]
    assert a["annotations"]["summary"].startswith("PacketDrops at "), a["annotations"]
PY
wait "$an_pid"
rc=$?
an_pid=
[ "$rc" -eq 0 ] || fail "analyzer exited $rc"
python3 - "$T/sum2.json" <<'PY' || fail "sink counters: $(cat "$T/sum2.json")"
import json, sys
s = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])["alertmanager"]
assert s["posts_failed"] >= 1 and s["posts_ok"] >= 1 and s["waiting"] == 0 and s["dropped"] == 0, s
print("while down: posts_failed", s["posts_failed"], "then posts_ok", s["posts_ok"], "alerts sent", s["sent_alerts"])
PY
echo "queued: $active PacketDrops alerts arrived after Alertmanager came back"

# 3: resolution: live records with drops raise PacketDrops; later records without drops resolve them,
# the analyzer sends them with endsAt, and Alertmanager no longer lists them as active
stop_am
rm -rf "$T/am-data"
start_am
"$gen" reports --format tr2.0 --hops 3 --seed 8 --count 40000 --drop-rate 0 --epoch-ns 1767225601000000000 \
  --out "$T/clean.pcap" >/dev/null 2>&1 || fail "hopwatch-gen (clean capture)"
"$analyzer" run --stream "unix:$T/live.sock" --duration 30 --config "$T/cfg2.json" --alertmanager "$url" \
  --events "$T/ev3.jsonl" --quiet &
an_pid=$!
for _ in $(seq 600); do [ -S "$T/live.sock" ] && break; sleep 0.1; done
"$col" --pcap "$T/a/reports.pcap" --stream "unix:$T/live.sock" >/dev/null 2>&1 || fail "collector --stream"
wait_alerts PacketDrops 1 || fail "no PacketDrops from the live stream"
firing=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$T/q.json")
"$col" --pcap "$T/clean.pcap" --stream "unix:$T/live.sock" >/dev/null 2>&1 || fail "collector --stream (clean)"
gone=
for _ in $(seq 600); do
  "$amtool" --alertmanager.url="$url" alert query -o json alertname=PacketDrops >"$T/q.json" 2>/dev/null
  [ "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$T/q.json")" -eq 0 ] && { gone=1; break; }
  sleep 0.1
done
kill -INT "$an_pid"
wait "$an_pid"
an_pid=
[ -n "$gone" ] || fail "resolved PacketDrops still listed: $(head -c 300 "$T/q.json")"
resolved=$(count_events "$T/ev3.jsonl" PacketDrops resolved)
[ "$resolved" -ge "$firing" ] || fail "$firing alerts were firing, $resolved resolve events"
echo "resolved: $firing PacketDrops alerts firing, then resolved with endsAt and gone from amtool"

# 4: congestion graphs: the alerts of a scenario with a topology carry their SVG's path as the "svg"
# annotation, and that file exists
"$gen" scenario incast --out "$T/inc" --write-records >/dev/null 2>&1 || fail "hopwatch-gen scenario incast"
echo '{"high_queue": {"raise": 1000000, "clear": 300000}, "incast": {"occupancy": 1000000}}' >"$T/cfg4.json"
"$analyzer" run --jsonl "$T/inc/records.jsonl" --lldp "$T/inc/lldp.pcap" --map "$T/inc/map.json" --config "$T/cfg4.json" \
  --svg-dir "$T/svg" --svg-rate 0 --alertmanager "$url" --events "$T/ev4.jsonl" --quiet || fail "analyzer (svg)"
# the congestion events still active at the end (no resolve), by alertname: Incast when there are any
read -r name active < <(python3 - "$T/ev4.jsonl" <<'PY'
import collections, json, sys
last = {}
for l in open(sys.argv[1]):
    e = json.loads(l)
    last[e["id"]] = e
act = collections.Counter(e["event"] for e in last.values() if e["state"] == "firing" and "svg" in e)
name = "Incast" if act["Incast"] else act.most_common(1)[0][0]
print(name, act[name])
PY
)
[ "${active:-0}" -ge 1 ] || fail "no congestion event active at the end of the incast scenario"
wait_alerts "$name" "$active" || fail "amtool lists $(head -c 300 "$T/q.json"), expected $active $name alerts"
python3 - "$T/q.json" "$T/ev4.jsonl" "$name" <<'PY' || fail "svg annotations"
import json, os, sys
want = {}
for l in open(sys.argv[2]):
    e = json.loads(l)
    if e["event"] == sys.argv[3]:
        want[str(e["id"])] = e
want = {k: e["svg"] for k, e in want.items() if e["state"] == "firing"}
alerts = json.load(open(sys.argv[1]))
for a in alerts:
    svg = a["annotations"].get("svg")
    assert svg and os.path.isfile(svg), a["annotations"]
    assert want.get(a["annotations"]["event_id"]) == svg, (a["annotations"], want)
print("amtool lists", len(alerts), sys.argv[3], "alerts, each with the path of its existing SVG")
PY
echo PASS
