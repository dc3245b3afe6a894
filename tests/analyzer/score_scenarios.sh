#!/usr/bin/env bash
# Detection against ground truth: every named scenario is generated, its hop records replayed through
# the analyzer, and tools/score_events.py prints recall, precision and delay per injected kind.  The
# clean scenario must raise nothing, and each injected event below must be found at its place and time.
# Usage: score_scenarios.sh HOPWATCH-GEN HOPWATCH-ANALYZER SOURCE_ROOT
set -u
gen=$1 an=$2 src=$3
fail() { echo "FAIL: $*"; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# scenario and the kind that must be detected (recall 1/1)
must=(clean: incast:Incast microburst:Microburst link-down:PathChange dscp-misconfig:RoceDscpMismatch
  report-loss:TelemetryReportLoss mtu-mismatch:MtuMismatch pfc-storm:)
status=0
for m in "${must[@]}"; do
  s=${m%%:*} kind=${m#*:}
  mkdir -p "$dir/$s"
  "$gen" scenario "$s" --out "$dir/$s" --records >/dev/null 2>&1 || fail "scenario $s failed"
  "$an" run --json "$dir/$s/records.jsonl" --lldp "$dir/$s/lldp.pcap" --map "$dir/$s/map.json" \
    --config "$src/data/samples/incast/analyzer.json" --events "$dir/$s/events.jsonl" --quiet 2>"$dir/$s/an.err" ||
    { cat "$dir/$s/an.err"; fail "analyzer failed on $s"; }
  python3 "$src/tools/score_events.py" "$dir/$s/truth.json" "$dir/$s/events.jsonl"
  r=$(python3 "$src/tools/score_events.py" "$dir/$s/truth.json" "$dir/$s/events.jsonl" --json)
  if [ "$s" = clean ]; then
    n=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["events_raised"])' "$r")
    [ "$n" = 0 ] || { echo "FAIL: the clean scenario raised $n events"; status=1; }
  elif [ -n "$kind" ]; then
    ok=$(python3 -c 'import json,sys; k=json.loads(sys.argv[1])["kinds"].get(sys.argv[2]); print(int(bool(k) and k["detected"] == k["injected"]))' "$r" "$kind")
    [ "$ok" = 1 ] || { echo "FAIL: $s: $kind not detected at its place and time"; status=1; }
  fi
done
exit $status
