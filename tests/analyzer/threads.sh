#!/bin/bash
# Integration: `hopwatch-analyzer run --threads 2`, 3 and 4 (N threads in all: the record source on a reader
# thread from 2, the per-queue detectors' steps on N - 2 shard threads from 3: rounds 9 and 13) give the events of
# --threads 1 byte for byte, on generated scenarios and on a stable-path capture, all through the collector's
# record files, take every record with most of them stepped on the shards (none with 2), and --threads outside
# 1..8 is refused with exit 2.
set -u
analyzer=$1 gen=$2 col=$3
. "$(dirname "$0")/lib.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# summary field $2 of the summary JSON $1
field() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"; }

# two scenarios through the collector's record files (pfc-storm: 22,674 records, six batches of at most
# 4,096 through the reader's ring of four; incast: 28,895)
for sc in pfc-storm incast; do
  "$gen" scenario $sc --out "$T/$sc" --quiet >"$T/gen.log" 2>&1 || fail "hopwatch-gen scenario $sc: $(tail -1 "$T/gen.log")"
  mkdir -p "$T/$sc/rec"
  "$col" --pcap "$T/$sc/reports.pcap" --records-dir "$T/$sc/rec" >"$T/col.log" 2>&1 || fail "collector: $(tail -1 "$T/col.log")"
  for t in 1 2 3 4; do
    "$analyzer" run --threads $t --records "$T/$sc"/rec/*.hwr --lldp "$T/$sc/lldp.pcap" --map "$T/$sc/map.json" \
      --events "$T/$sc$t.jsonl" --summary-json "$T/$sc$t.json" --quiet || fail "run --threads $t ($sc) exited $?"
  done
  for t in 2 3 4; do
    cmp -s "$T/${sc}1.jsonl" "$T/$sc$t.jsonl" || fail "--threads $t gave other events than --threads 1 on the $sc scenario"
  done
  # not an empty comparison: each of these scenarios fills queues, so HighQueue fires
  high=$(count_events "$T/${sc}1.jsonl" HighQueue firing)
  [ "$high" -ge 1 ] || fail "no HighQueue raised on the $sc scenario"
  # the shards did the work: every record but those of the queues new in their batch (the first batch's:
  # up to 4,096 of these 20-30 k) and of the queues handed back in theirs is stepped there (half of
  # pfc-storm's, whose paused queues go back and forth; 56 % of incast's): at least a third
  n=$(field "$T/${sc}3.json" records) s=$(field "$T/${sc}3.json" records_sharded)
  [ "$s" -ge $((n / 3)) ] || fail "$sc: --threads 3 stepped $s of $n records on the shards, expected at least a third"
  for t in 1 2; do # no shard thread: the analysing thread and (2) the reader
    [ "$(field "$T/$sc$t.json" records_sharded)" -eq 0 ] || fail "$sc: --threads $t counted records on shards"
  done
  echo "$sc: $(wc -l <"$T/${sc}1.jsonl") events the same with 2, 3 and 4 threads, $high HighQueue raised, $s of $n records sharded"
done

# the collector's record files: 20,000 reports of a 3-hop stack plus the reporting node's own hop
# (docs/records.md: n + 1 records a report) = 80,000 records, 20 batches
make_records "$T/r" "$gen" "$col" --count 20000 --drop-rate 0.01
for t in 1 2 3; do
  "$analyzer" run --threads $t --records "$T"/r/rec/*.hwr --events "$T/r$t.jsonl" --summary-json "$T/s$t.json" \
    --quiet || fail "run --threads $t --records exited $?"
done
for t in 2 3; do
  cmp -s "$T/r1.jsonl" "$T/r$t.jsonl" || fail "--threads $t gave other events than --threads 1 on the record files"
done
drops=$(count_events "$T/r1.jsonl" PacketDrops firing)
[ "$drops" -ge 1 ] || fail "no PacketDrops raised on the record files"
for t in 1 2 3; do
  n=$(field "$T/s$t.json" records)
  [ "$n" -eq 80000 ] || fail "--threads $t took $n records, expected 20,000 reports x (3 + 1) hops = 80000"
done
s=$(field "$T/s3.json" records_sharded)
[ "$s" -ge 40000 ] || fail "--threads 3 stepped $s of 80000 records on the shards, expected at least half"
echo "record files: $(wc -l <"$T/r1.jsonl") events the same, 80000 records taken by each, $s sharded with 3 threads"

for t in 0 9; do
  "$analyzer" run --threads $t --records "$T"/r/rec/*.hwr --quiet 2>"$T/err"
  rc=$?
  [ $rc -eq 2 ] || fail "--threads $t exited $rc, expected 2"
  grep -q -- "--threads" "$T/err" || fail "--threads $t: the message does not name the option: $(cat "$T/err")"
done
echo "ok"
