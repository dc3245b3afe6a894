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
"$analyzer" run --records "$T"/rec/*.hwr --config "$T/only.json" --events "$T/ev.jsonl" 2>"$T/summary.json" ||
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
# all detectors on: still one event per episode (every raise has a distinct id)
"$analyzer" run --records "$T"/rec/*.hwr --events "$T/all.jsonl" --quiet || fail "run with all detectors"
python3 - "$T/all.jsonl" <<'PY' || fail "an episode was raised twice"
import json, sys
ids = [json.loads(l)["id"] for l in open(sys.argv[1]) if '"state":"firing"' in l]
assert len(ids) == len(set(ids))
PY
# a config key that does not exist: exit 2, message names the key
echo '{"packet_drops": {"ratio": 0.01, "windw_ns": 5}}' >"$T/bad.json"
"$analyzer" run --records "$T"/rec/*.hwr --config "$T/bad.json" --quiet 2>"$T/err"
rc=$?
[ "$rc" -eq 2 ] || fail "bad config: exit $rc, expected 2"
grep -q "packet_drops.windw_ns: unknown key" "$T/err" || fail "bad config message: $(cat "$T/err")"
echo PASS
