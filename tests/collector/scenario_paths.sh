#!/usr/bin/env bash
# Path tracking against ground truth: in the clean scenario no flow changes path; in link-down the
# collector counts path changes, at most two per affected flow (away from the link and back).
# Usage: scenario_paths.sh HOPWATCH-GEN HOPWATCH-COLLECTOR
set -u
. "$(dirname "$0")/lib.sh"
gen=$1 col=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for s in clean link-down; do
  "$gen" scenario "$s" --out "$dir/$s" >/dev/null 2>&1 || fail "scenario $s failed"
  "$col" --pcap "$dir/$s/reports.pcap" 2>"$dir/$s.cnt" || fail "collector failed on $s"
done
clean=$(count path_changes "$dir/clean.cnt")
[ "$clean" = 0 ] || fail "clean scenario: $clean path changes counted, none injected"
changes=$(count path_changes "$dir/link-down.cnt")
affected=$(python3 -c "import json,sys; t=json.load(open(sys.argv[1])); \
print(sum(len(e['affected_flows']) for e in t['events'] if e['kind'] == 'PathChange'))" "$dir/link-down/truth.json")
[ "$affected" -gt 0 ] || fail "link-down truth lists no affected flows"
[ "$changes" -gt 0 ] && [ "$changes" -le $((2 * affected)) ] ||
  fail "link-down: $changes path changes for $affected affected flows"
echo "ok paths: clean 0 changes; link-down $changes changes for $affected affected flows"
