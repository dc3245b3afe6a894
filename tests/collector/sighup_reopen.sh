#!/usr/bin/env bash
# Log rotation: the collector captures live (libpcap on a veth in a namespace this test creates);
# the JSON file is moved away and SIGHUP makes the collector reopen it and start a new record file.
# Both halves together hold every record, and nothing is written to the moved file afterwards.
# Usage: sighup_reopen.sh HOPWATCH-GEN HOPWATCH-COLLECTOR HOPWATCH-RECORDS SEND_PCAP.PY
set -u
. "$(dirname "$0")/lib.sh"
gen=$1 col=$2 rec=$3 send=$4
need_root
ns=hwt-hup-$$
dir=$(mktemp -d)
cleanup() {
  stop_pid "${cpid:-}"
  stop_pid "${lpid:-}"
  ip netns del "$ns" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
make_veth_ns "$ns"
"$gen" reports --format tr2.0 --count 1000 --seed 41 --out "$dir/r.pcap" --truth "$dir/t.jsonl" 2>/dev/null ||
  fail "generator failed"
per_pass=$(grep -c . "$dir/t.jsonl")
mkdir "$dir/rec"
# sending starts once the capture is open (READY=1), not after a guessed sleep
start_ready col "$ns" "$col" --pcap rx0 --bpf "udp dst port 32766" --json-out "$dir/out.jsonl" --records-dir "$dir/rec"
wait_lines() { # file count: polled for up to 2 minutes (a passing run waits only for the records)
  local t=0
  while [ "$(grep -c . "$1" 2>/dev/null || echo 0)" -lt "$2" ] && [ $t -lt 1200 ]; do sleep 0.1; t=$((t + 1)); done
}
ip netns exec "$ns" python3 "$send" tx0 "$dir/r.pcap" 20000 >/dev/null || fail "sending failed"
wait_lines "$dir/out.jsonl" "$per_pass"
mv "$dir/out.jsonl" "$dir/out.1.jsonl"
kill -HUP "$cpid"
# the sink thread reopens the record files, then the JSON file: once that exists again, both are reopened
wait_for 60 "the JSON file reopened after SIGHUP" test -e "$dir/out.jsonl"
ip netns exec "$ns" python3 "$send" tx0 "$dir/r.pcap" 20000 >/dev/null || fail "sending failed"
wait_lines "$dir/out.jsonl" "$per_pass"
kill -TERM "$cpid"
wait "$cpid" || fail "collector exit status after SIGTERM"
cpid=
[ "$(grep -c . "$dir/out.1.jsonl")" = "$per_pass" ] || fail "the moved file has $(grep -c . "$dir/out.1.jsonl") lines, want $per_pass"
[ "$(grep -c . "$dir/out.jsonl")" = "$per_pass" ] || fail "the reopened file has $(grep -c . "$dir/out.jsonl") lines, want $per_pass"
[ "$(count records "$dir/col.err")" = $((2 * per_pass)) ] || fail "records counted: $(count records "$dir/col.err")"
nfiles=$(ls "$dir"/rec/*.hwr | wc -l)
[ "$nfiles" -ge 2 ] || fail "SIGHUP did not start a new record file ($nfiles file)"
"$rec" "$dir"/rec/*.hwr 2>/dev/null | cmp -s - <(cat "$dir/out.1.jsonl" "$dir/out.jsonl") ||
  fail "record files differ from the JSON lines"
echo "ok SIGHUP: JSON reopened ($per_pass + $per_pass lines), $nfiles record files, nothing lost"
