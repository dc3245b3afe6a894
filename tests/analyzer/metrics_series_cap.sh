#!/usr/bin/env bash
# The analyzer's /metrics series cap (issue 22: /metrics bounded by a series cap): with
# --metrics-max-series 3, node_info and link_congestion_score show 3 series each, the links with the
# highest scores, and the rest are counted in hopwatch_analyzer_metrics_series_omitted.
# Usage: metrics_series_cap.sh HOPWATCH-GEN HOPWATCH-ANALYZER SOURCE_ROOT
set -u
gen=$(realpath "$1") an=$(realpath "$2") src=$(realpath "$3")
. "$src/tests/analyzer/lib.sh"
in_scenario incast "$gen"
n=$(wc -l <records.jsonl)
# scrape NAME MAX: run the analyzer with --metrics-max-series MAX until /metrics counts every record; the page in NAME
scrape() {
  local port
  port=$(free_port)
  "$an" run --jsonl records.jsonl --lldpd-json lldp --map map.json --config "$src/data/samples/incast/analyzer.json" \
    --metrics "127.0.0.1:$port" --metrics-max-series "$2" --hold 120 2>"$1.err" &
  an_pid=$!
  for _ in $(seq 1000); do
    curl -sf --max-time 30 "http://127.0.0.1:$port/metrics" >"$1" && grep -qx "hopwatch_analyzer_records_total $n" "$1" && break
    kill -0 "$an_pid" 2>/dev/null || { cat "$1.err"; fail "the analyzer exited"; }
    sleep 0.1
  done
  grep -qx "hopwatch_analyzer_records_total $n" "$1" || fail "/metrics never counted the $n records"
  stop_pid "$an_pid"
  an_pid=
}
scrape all.txt 0
scrape cap.txt 3
nodes=$(grep -c '^hopwatch_analyzer_node_info{' all.txt)
links=$(grep -c '^hopwatch_analyzer_link_congestion_score{' all.txt)
[ "$nodes" -gt 3 ] && [ "$links" -gt 3 ] || fail "test too weak: $nodes nodes and $links links, not more than 3"
grep -q '^hopwatch_analyzer_metrics_series_omitted' all.txt && fail "no cap (0) but series_omitted is on the page"
[ "$(grep -c '^hopwatch_analyzer_node_info{' cap.txt)" = 3 ] || fail "node_info: not 3 series with the cap 3"
[ "$(grep -c '^hopwatch_analyzer_link_congestion_score{' cap.txt)" = 3 ] || fail "link scores: not 3 series with the cap 3"
# omitted = the uncapped page's count - 3 (the same topology both runs)
grep -qx "hopwatch_analyzer_metrics_series_omitted{family=\"node_info\"} $((nodes - 3))" cap.txt ||
  fail "node_info omitted: want $((nodes - 3))"
grep -qx "hopwatch_analyzer_metrics_series_omitted{family=\"link_congestion_score\"} $((links - 3))" cap.txt ||
  fail "link scores omitted: want $((links - 3))"
# the shown links are the highest scores, so they come sorted, highest first
awk '/^hopwatch_analyzer_link_congestion_score\{/ {print $NF}' cap.txt >shown.txt
sort -g -r shown.txt | cmp -s - shown.txt || fail "the shown link scores are not highest first"
python3 "$src/tests/analyzer/prom_text_check.py" cap.txt >/dev/null || fail "the capped /metrics is not valid text format"
echo "PASS: $nodes nodes and $links links, 3 of each shown with the cap"
