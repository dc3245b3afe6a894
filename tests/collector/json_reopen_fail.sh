#!/usr/bin/env bash
# A SIGHUP whose JSON reopen fails (issue 22 item 9: the rest was dropped uncounted and the exit status was
# 0).  The capture comes through a named pipe in two halves; between them the output directory is moved
# away and SIGHUP sent, so the reopen cannot create the file.  The records of the first half are in the
# moved file, every later one is counted json_lost, written + lost = records, and the exit status is 1.
# Usage: json_reopen_fail.sh HOPWATCH-GEN HOPWATCH-COLLECTOR
set -u
. "$(dirname "$0")/lib.sh"
gen=$1 col=$2
dir=$(mktemp -d)
trap 'cleanup_pids_dir "$dir" "${wpid:-}" "${cpid:-}"' EXIT
"$gen" reports --format tr2.0 --count 4000 --hops 2-5 --seed 23 --out "$dir/r.pcap" 2>/dev/null || fail "generator failed"
mkfifo "$dir/in.pcap"
mkdir "$dir/out"
# the first half of the capture, then (once $dir/go exists) the rest
python3 -c '
import os, sys, time
data = open(sys.argv[1], "rb").read()
with open(sys.argv[2], "wb") as out:
    out.write(data[:len(data) // 2]); out.flush()
    for _ in range(1200):
        if os.path.exists(sys.argv[3]): break
        time.sleep(0.1)
    out.write(data[len(data) // 2:])' "$dir/r.pcap" "$dir/in.pcap" "$dir/go" &
wpid=$!
"$col" --pcap "$dir/in.pcap" --json-out "$dir/out/o.jsonl" 2>"$dir/col.err" &
cpid=$!
# the first half's whole batches (1024 records each) reach the file while the pipe waits
for _ in $(seq 600); do [ "$(wc -l <"$dir/out/o.jsonl" 2>/dev/null || echo 0)" -ge 1024 ] && break; sleep 0.1; done
[ "$(wc -l <"$dir/out/o.jsonl")" -ge 1024 ] || fail "the first half never reached the JSON file"
mv "$dir/out" "$dir/moved"
kill -HUP "$cpid"
wait_for_line "$dir/col.err" "cannot reopen" 60 || { cat "$dir/col.err"; fail "no message about the failed reopen"; }
touch "$dir/go"
wait "$cpid"
rc=$?
cpid=
wait "$wpid"
wpid=
[ "$rc" = 1 ] || { cat "$dir/col.err"; fail "exit status $rc after a failed reopen, want 1"; }
records=$(count records "$dir/col.err") written=$(count json_written "$dir/col.err") lost=$(count json_lost "$dir/col.err")
lines=$(wc -l <"$dir/moved/o.jsonl")
echo "records $records: json_written $written (the moved file holds $lines lines), json_lost $lost"
[ "$lines" = "$written" ] || fail "the file holds $lines lines, json_written says $written"
[ $((written + lost)) = "$records" ] || fail "written $written + lost $lost != records $records"
[ "$lost" -gt 0 ] || fail "nothing counted lost after the failed reopen"
[ -e "$dir/out" ] && fail "something recreated the moved directory"
echo "ok failed reopen: every later record counted lost, exit status 1"
