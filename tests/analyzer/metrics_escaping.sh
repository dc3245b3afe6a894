#!/usr/bin/env bash
# Issue 22 item 7: an LLDP neighbour names itself with a '"', a '\' and a newline; the analyzer's /metrics
# (node_info, link_congestion_score, path latency labels) must stay valid Prometheus text with the name
# escaped, decoded back exactly by a strict parser (prom_text_check.py, and prometheus_client when installed).
# Usage: metrics_escaping.sh HOPWATCH-GEN HOPWATCH-ANALYZER SOURCE_ROOT
set -u
gen=$(realpath "$1") an=$(realpath "$2") src=$(realpath "$3")
. "$src/tests/analyzer/lib.sh"
in_scenario incast "$gen"
# leaf1 becomes  le"af\1<newline>x  in the lldpcli dumps and the map (JSON-escaped there)
python3 - <<'PY'
import glob, json
evil = json.dumps('le"af\\1\nx')
for p in glob.glob("lldp/*.json") + ["map.json"]:
    t = open(p).read()
    open(p, "w").write(t.replace('"value": "leaf1"', '"value": ' + evil).replace('"name": "leaf1"', '"name": ' + evil))
PY
grep -q 'le\\"af' map.json lldp/leaf1.json || fail "the evil name is not in map.json and lldp/leaf1.json"
port=$(free_port)
"$an" run --jsonl records.jsonl --lldpd-json lldp --map map.json --config "$src/data/samples/incast/analyzer.json" \
  --metrics "127.0.0.1:$port" --hold 120 --events events.jsonl 2>run.err &
an_pid=$!
# the input is read once /metrics counts every record; --hold keeps it up (poll: a loaded host may be slow)
n=$(wc -l <records.jsonl)
for _ in $(seq 1000); do
  curl -sf --max-time 30 "http://127.0.0.1:$port/metrics" >page.txt && grep -qx "hopwatch_analyzer_records_total $n" page.txt && break
  kill -0 "$an_pid" 2>/dev/null || { cat run.err; fail "the analyzer exited"; }
  sleep 0.1
done
grep -qx "hopwatch_analyzer_records_total $n" page.txt || fail "/metrics never counted the $n records"
python3 "$src/tests/analyzer/prom_text_check.py" page.txt >samples.jsonl || fail "/metrics is not valid text format"
# the record-time counters (docs/analyzer.md "Record time"): the scenario's times are sane, nothing set aside
grep -qx 'hopwatch_analyzer_records_set_aside_total 0' page.txt || fail "no records_set_aside_total 0 on /metrics"
grep -qx 'hopwatch_analyzer_clock_jumps_total 0' page.txt || fail "no clock_jumps_total 0 on /metrics"
python3 - <<'PY' || fail "the escaped name does not decode back"
import json
want = 'le"af\\1\nx'
s = [json.loads(l) for l in open("samples.jsonl")]
info = [x for x in s if x["name"] == "hopwatch_analyzer_node_info" and x["labels"]["node_name"] == want]
assert len(info) == 1, "node_info of the evil name: %d samples" % len(info)
# leaf1's host links and uplinks are links of the topology: each has a congestion score labelled with it
links = [x["labels"]["link"] for x in s if x["name"] == "hopwatch_analyzer_link_congestion_score"]
assert any(l.startswith(want + ":") or ("--" + want + ":") in l for l in links), links[:5]
print("node_info and %d link labels carry the name" % sum(want in l for l in links))
PY
if python3 -c 'import prometheus_client' 2>/dev/null; then
  python3 - <<'PY' || fail "prometheus_client cannot parse /metrics"
from prometheus_client.parser import text_string_to_metric_families
n = sum(len(f.samples) for f in text_string_to_metric_families(open("page.txt").read()))
print("prometheus_client parsed", n, "samples")
PY
fi
stop_pid "$an_pid"
an_pid=
echo PASS
