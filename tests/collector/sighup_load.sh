#!/usr/bin/env bash
# SIGHUP rotation under steady load (issue 22 item 8): a capture is written into a named pipe at a steady
# pace while the collector reads it, and the JSON file is moved away and SIGHUP sent every 0.3 s for as
# long as records flow.  Every rotation happens mid-stream (nothing waits for idle), and across all of
# them nothing is lost or duplicated: the JSON parts in order are exactly the generator's truth, and the
# record files in order hold the same records.
# Usage: sighup_load.sh HOPWATCH-GEN HOPWATCH-COLLECTOR HOPWATCH-RECORDS
set -u
. "$(dirname "$0")/lib.sh"
gen=$1 col=$2 rec=$3
dir=$(mktemp -d)
trap 'cleanup_pids_dir "$dir" "${wpid:-}" "${cpid:-}"' EXIT
"$gen" reports --format tr2.0 --count 30000 --hops 2-5 --seed 17 --out "$dir/r.pcap" --truth "$dir/t.jsonl" \
  2>/dev/null || fail "generator failed"
want=$(wc -l <"$dir/t.jsonl")
mkfifo "$dir/in.pcap"
mkdir "$dir/rec"
# the pcap into the pipe, 32 KiB every 20 ms (some 1.6 MB/s: several seconds of steady records)
python3 -c '
import sys, time
data = open(sys.argv[1], "rb").read()
with open(sys.argv[2], "wb") as out:
    for i in range(0, len(data), 32768):
        out.write(data[i:i + 32768]); out.flush(); time.sleep(0.02)' "$dir/r.pcap" "$dir/in.pcap" &
wpid=$!
"$col" --pcap "$dir/in.pcap" --json-out "$dir/out.jsonl" --records-dir "$dir/rec" 2>"$dir/col.err" &
cpid=$!
n=0
while kill -0 "$cpid" 2>/dev/null; do
  sleep 0.3
  [ -s "$dir/out.jsonl" ] || continue
  kill -0 "$wpid" 2>/dev/null || break # the writer is done: the rest is the tail, not steady load
  n=$((n + 1))
  mv "$dir/out.jsonl" "$dir/part.$(printf %04d $n).jsonl"
  kill -HUP "$cpid"
done
wait "$cpid" || { cat "$dir/col.err"; fail "collector exit status"; }
cpid=
wait "$wpid"
wpid=
records=$(count records "$dir/col.err") written=$(count json_written "$dir/col.err")
[ "$records" = "$want" ] || fail "records $records, the generator wrote $want"
[ "$written" = "$want" ] || fail "json_written $written, want $want"
[ "$n" -ge 3 ] || fail "only $n rotations while records flowed"
# each moved part got records after the move (written while rotating, not only before)
nonempty=0
for p in "$dir"/part.*.jsonl; do [ -s "$p" ] && nonempty=$((nonempty + 1)); done
[ "$nonempty" -ge 3 ] || fail "only $nonempty of $n rotated JSON parts hold records"
cat "$dir"/part.*.jsonl "$dir/out.jsonl" >"$dir/all.jsonl"
cmp -s "$dir/all.jsonl" "$dir/t.jsonl" || fail "the JSON parts together differ from the truth ($(wc -l <"$dir/all.jsonl") lines, want $want)"
nfiles=$(ls "$dir"/rec/*.hwr | wc -l)
[ "$nfiles" -ge 3 ] || fail "SIGHUP started only $nfiles record files"
"$rec" "$dir"/rec/*.hwr 2>/dev/null | cmp -s - "$dir/t.jsonl" || fail "the record files together differ from the truth"
echo "ok SIGHUP under load: $n rotations, $nonempty JSON parts and $nfiles record files, $want records, none lost or twice"
