#!/usr/bin/env bash
# Full disks (issue 22 item 9): the JSON output and the record files each on a 1 MiB tmpfs that fills
# (mounted in a private mount namespace this test creates).  Every record is written or counted lost,
# per sink, and the counts equal what the files hold: the JSON file's whole lines, and the records
# hopwatch-records reads back from the finished record files; no torn line, no temporary file left;
# the errors are printed rate-limited and the exit status is 1.
# Usage: disk_full.sh HOPWATCH-GEN HOPWATCH-COLLECTOR HOPWATCH-RECORDS
set -u
. "$(dirname "$0")/lib.sh"
gen=$1 col=$2 rec=$3
need_root
command -v unshare >/dev/null || skip "unshare not installed"
if [ -z "${HW_DISK_FULL_INNER:-}" ]; then # again, in a private mount namespace: the mounts vanish with it
  HW_DISK_FULL_INNER=1 exec unshare -m --propagation private bash "$0" "$@"
fi
dir=$(mktemp -d)
cleanup() {
  umount "$dir/j" "$dir/r" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
mkdir "$dir/j" "$dir/r"
mount -t tmpfs -o size=1m tmpfs "$dir/j" || skip "cannot mount a tmpfs"
mount -t tmpfs -o size=1m tmpfs "$dir/r" || skip "cannot mount a tmpfs"
# 20000 reports of 2-5 hops: some 90000 records, about 36 MB of JSON and 2-3 MB of compact record files (~26 bytes a record), still
# more than 1 MiB each
"$gen" reports --format tr2.0 --count 20000 --hops 2-5 --seed 21 --out "$dir/d.pcap" 2>/dev/null ||
  fail "generator failed"
"$col" --pcap "$dir/d.pcap" --json-out "$dir/j/out.jsonl" --records-dir "$dir/r" --rotate-mb 1 2>"$dir/col.err"
rc=$?
[ "$rc" = 1 ] || { cat "$dir/col.err"; fail "exit status $rc with both outputs failing, want 1"; }
records=$(count records "$dir/col.err") dropped=$(count sink_dropped "$dir/col.err")
jw=$(count json_written "$dir/col.err") jl=$(count json_lost "$dir/col.err")
fw=$(count files_written "$dir/col.err") fl=$(count files_lost "$dir/col.err")
echo "records $records (sink_dropped $dropped): json written $jw lost $jl; files written $fw lost $fl"
[ "$records" -gt 50000 ] || fail "only $records records"
[ "$dropped" = 0 ] || fail "a capture file is read losslessly, yet sink_dropped $dropped"
# per sink: received = written + counted lost
[ $((jw + jl)) = "$records" ] || fail "JSON: written $jw + lost $jl != records $records"
[ $((fw + fl)) = "$records" ] || fail "record files: written $fw + lost $fl != records $records"
[ "$jl" -gt 0 ] && [ "$fl" -gt 0 ] || fail "the disks never filled (json lost $jl, files lost $fl)"
# what the files hold
lines=$(wc -l <"$dir/j/out.jsonl")
[ "$lines" = "$jw" ] || fail "JSON file has $lines lines, json_written says $jw"
[ "$(tail -c 1 "$dir/j/out.jsonl" | od -An -c | tr -d ' ')" = '\n' ] || fail "JSON file ends in a torn line"
python3 -c 'import json, sys
for line in open(sys.argv[1]): json.loads(line)' "$dir/j/out.jsonl" || fail "a JSON line does not parse"
ls -A "$dir/r" | grep -v '\.hwr$' && fail "record directory holds more than finished .hwr files"
back=$("$rec" "$dir"/r/*.hwr 2>"$dir/rec.err" | wc -l)
[ "$back" = "$fw" ] || { cat "$dir/rec.err"; fail "record files hold $back records, files_written says $fw"; }
# the first record file's records are the first JSON lines (both sinks took the records in order)
"$rec" "$(ls "$dir"/r/*.hwr | head -1)" 2>/dev/null | head -100 | cmp -s - <(head -100 "$dir/j/out.jsonl") ||
  fail "record file and JSON lines differ"
# rate-limited: each output printed its first error and then at most one line per 10 s, plus the last word
errs=$(grep -c 'hopwatch-collector: .*\(write\|create\|fsync\|rename\)' "$dir/col.err")
[ "$errs" -ge 2 ] && [ "$errs" -le 20 ] || { head -30 "$dir/col.err"; fail "$errs error lines, want 2..20"; }
echo "ok disk full: every record written or counted lost, counts equal the files"
