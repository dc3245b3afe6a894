#!/bin/bash
# Integration: `hopwatch-analyzer run --threads 2` (the record source on a reader thread) gives the events
# of --threads 1 byte for byte, on a generated scenario and on a stable-path capture, both through the
# collector's record files, takes every record, and --threads outside 1..2 is refused with exit 2.
set -u
analyzer=$1 gen=$2 col=$3
. "$(dirname "$0")/lib.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# pfc-storm through the collector's record files: 22,674 records, six batches of at most 4,096 through the
# reader's ring of four
"$gen" scenario pfc-storm --out "$T/sc" --quiet >"$T/gen.log" 2>&1 || fail "hopwatch-gen scenario: $(tail -1 "$T/gen.log")"
mkdir -p "$T/sc/rec"
"$col" --pcap "$T/sc/reports.pcap" --records-dir "$T/sc/rec" >"$T/col.log" 2>&1 || fail "collector: $(tail -1 "$T/col.log")"
for t in 1 2; do
  "$analyzer" run --threads $t --records "$T"/sc/rec/*.hwr --lldp "$T/sc/lldp.pcap" --map "$T/sc/map.json" \
    --events "$T/sc$t.jsonl" --quiet || fail "run --threads $t (pfc-storm) exited $?"
done
cmp -s "$T/sc1.jsonl" "$T/sc2.jsonl" || fail "--threads 2 gave other events than --threads 1 on the pfc-storm scenario"
# not an empty comparison: the storm's pause spreads upstream, so congestion was found
high=$(count_events "$T/sc1.jsonl" HighQueue firing)
[ "$high" -ge 1 ] || fail "no HighQueue raised on the pfc-storm scenario"
echo "pfc-storm: $(wc -l <"$T/sc1.jsonl") events the same, $high HighQueue raised"

# the collector's record files: 20,000 reports of a 3-hop stack plus the reporting node's own hop
# (docs/records.md: n + 1 records a report) = 80,000 records, 20 batches
make_records "$T/r" "$gen" "$col" --count 20000 --drop-rate 0.01
for t in 1 2; do
  "$analyzer" run --threads $t --records "$T"/r/rec/*.hwr --events "$T/r$t.jsonl" --summary-json "$T/s$t.json" \
    --quiet || fail "run --threads $t --records exited $?"
done
cmp -s "$T/r1.jsonl" "$T/r2.jsonl" || fail "--threads 2 gave other events than --threads 1 on the record files"
drops=$(count_events "$T/r1.jsonl" PacketDrops firing)
[ "$drops" -ge 1 ] || fail "no PacketDrops raised on the record files"
for t in 1 2; do
  n=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["records"])' "$T/s$t.json")
  [ "$n" -eq 80000 ] || fail "--threads $t took $n records, expected 20,000 reports x (3 + 1) hops = 80000"
done
echo "record files: $(wc -l <"$T/r1.jsonl") events the same, 80000 records taken by both"

for t in 0 3; do
  "$analyzer" run --threads $t --records "$T"/r/rec/*.hwr --quiet 2>"$T/err"
  rc=$?
  [ $rc -eq 2 ] || fail "--threads $t exited $rc, expected 2"
  grep -q -- "--threads" "$T/err" || fail "--threads $t: the message does not name the option: $(cat "$T/err")"
done
echo "ok"
