#!/usr/bin/env bash
# p4/analyzer-bmv2.json (BMv2 units, p4/cli thresholds 20 packets / 50000 us in bytes and ns) on what the program
# sends (--preset hopwatch-p4: transit queue reports with I, sink reports, drops with no egress port): it
# loads, HighQueue is raised where queues pass 20 packets, and no PathChange (nothing moves on the line).
# Usage: preset_analyzer.sh HOPWATCH-GEN HOPWATCH-COLLECTOR HOPWATCH-ANALYZER SOURCE_ROOT
set -u
here=$(dirname "$0")
. "$here/../collector/lib.sh"
gen=$1 col=$2 an=$3 src=$4
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$gen" reports --preset hopwatch-p4 --count 3000 --drop-rate 0.02 --seed 3 --out "$dir/p4.pcap" 2>/dev/null ||
  fail "hopwatch-gen failed"
"$col" --pcap "$dir/p4.pcap" --json-out "$dir/p4.jsonl" 2>/dev/null || fail "collector failed"
grep -q '"report_flags":\["congested_queue","tracked_flow","intermediate"\]' "$dir/p4.jsonl" ||
  fail "no transit queue report with I in the preset's records"
"$an" run --jsonl "$dir/p4.jsonl" --config "$src/p4/analyzer-bmv2.json" --events "$dir/ev.jsonl" --quiet \
  2>"$dir/err" || { cat "$dir/err"; fail "hopwatch-analyzer run with p4/analyzer-bmv2.json failed"; }
grep -q '"event":"HighQueue","state":"firing"' "$dir/ev.jsonl" || { cat "$dir/ev.jsonl"; fail "no HighQueue"; }
grep '"event":"PathChange"' "$dir/ev.jsonl" && fail "PathChange on a line where nothing moves"
echo "ok: p4/analyzer-bmv2.json on --preset hopwatch-p4"
