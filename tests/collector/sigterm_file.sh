#!/usr/bin/env bash
# SIGTERM while the collector replays a capture file (issue 22 item 8): it stops reading at once, drains
# and writes every record it had decoded, prints its counters and exits 0; before, it read the whole file.
# Usage: sigterm_file.sh HOPWATCH-GEN HOPWATCH-COLLECTOR
set -u
. "$(dirname "$0")/lib.sh"
gen=$1 col=$2
dir=$(mktemp -d)
cleanup() {
  stop_pid "${cpid:-}"
  rm -rf "$dir"
}
trap cleanup EXIT
# 150,000 TR v2.0 reports with a 16-hop stack: 16 + the reporting node's own hop = 17 records each,
# 2,550,000 in all: seconds of JSON writing, so a SIGTERM sent as the first lines appear comes early.
"$gen" reports --format tr2.0 --count 150000 --hops 16 --seed 5 --out "$dir/big.pcap" >/dev/null 2>&1 ||
  fail "generator failed"
total=2550000
"$col" --pcap "$dir/big.pcap" --json-out "$dir/out.jsonl" 2>"$dir/err" &
cpid=$!
for _ in $(seq 3000); do [ -s "$dir/out.jsonl" ] && break; sleep 0.01; done
[ -s "$dir/out.jsonl" ] || fail "the collector wrote nothing in 30 s"
term_exits_0 "$cpid" 30 "$dir/err"
cpid=
grep -q "stopped by a signal before the end of $dir/big.pcap" "$dir/err" || { cat "$dir/err"; fail "no stop message"; }
records=$(count records "$dir/err") written=$(count json_written "$dir/err") lines=$(wc -l <"$dir/out.jsonl")
[ "$records" -gt 0 ] && [ "$records" -lt "$total" ] || fail "decoded $records records of $total: not stopped early"
[ "$written" = "$records" ] && [ "$lines" = "$records" ] ||
  fail "decoded $records records, json_written $written, $lines lines in the file: records lost at the stop"
echo "ok SIGTERM during a file replay: stopped after $records of $total records, all $lines written, exit 0"
