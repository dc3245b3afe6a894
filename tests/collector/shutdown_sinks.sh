#!/usr/bin/env bash
# Shutdown under traffic and every sink at once: the DPDK collector (net_af_packet on a veth in a
# namespace this test creates) writes JSON, record files and a live stream while reports pour in;
# SIGTERM arrives mid-stream.  Every record counted as parsed must be in the JSON file and in the
# record files, and the stream receiver must get exactly what the collector says it sent.
# Usage: shutdown_sinks.sh HOPWATCH-GEN HOPWATCH-COLLECTOR HOPWATCH-RECORDS SEND_PCAP.PY
set -u
. "$(dirname "$0")/lib.sh"
gen=$1 col=$2 rec=$3 send=$4
need_root
ns=hwt-shut-$$
dir=$(mktemp -d)
cleanup() {
  for p in ${cpid:-} ${lpid:-} ${spid:-} ${rpid:-}; do kill "$p" 2>/dev/null; done
  ip netns del "$ns" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
make_veth_ns "$ns"
"$gen" reports --format tr2.0 --count 20000 --hops 2-5 --seed 21 --out "$dir/r.pcap" 2>/dev/null || fail "generator failed"
mkdir "$dir/files"

"$rec" --listen "unix:$dir/stream.sock" >"$dir/stream.jsonl" 2>"$dir/stream.err" &
rpid=$!
wait_for_line "$dir/stream.err" "listening" 60 || fail "stream listener did not start"

start_ready col "$ns" "$col" -l 0-1 "${EAL_COMMON[@]}" --vdev=net_af_packet0,iface=rx0,framecnt=8192 -- --lossless \
  --json-out "$dir/out.jsonl" --records-dir "$dir/files" --rotate-mb 1 --stream "unix:$dir/stream.sock"
# send the capture over and over; stop the collector while traffic is still flowing, once the JSON file
# holds 2000 records and a first record file was closed by size rotation (1 MiB: ~40,000 compact records of
# ~26 bytes; 2000 records alone fill 52 KB, and a fast stop left one file), polled, up to 2 minutes
ip netns exec "$ns" python3 "$send" tx0 "$dir/r.pcap" 0 500 >/dev/null 2>&1 &
spid=$!
wait_for 120 "2000 records in the JSON file and a rotated record file under traffic" \
  eval '[ "$(cat "$dir/out.jsonl" 2>/dev/null | grep -c .)" -ge 2000 ] && compgen -G "$dir/files/*.hwr" >/dev/null'
kill -0 "$spid" 2>/dev/null || fail "the sender finished before the collector was stopped: not a test under traffic"
kill -TERM "$cpid"
wait "$cpid"
rc=$?
cpid=
kill "$spid" 2>/dev/null; spid=
stop_pid "$lpid"; lpid=
[ $rc = 0 ] || { cat "$dir/col.err"; fail "collector exited with $rc after SIGTERM"; }
# the receiver has written every record the collector says it sent (polled, up to a minute), then stops
sent=$(count stream_sent "$dir/col.err")
for _ in $(seq 600); do [ "$(grep -c . "$dir/stream.jsonl")" -ge "$sent" ] && break; sleep 0.1; done
kill -TERM "$rpid"; wait "$rpid"; rpid=

records=$(count records "$dir/col.err")
[ "$records" -gt 1000 ] || { cat "$dir/col.err"; fail "only $records records were parsed before the stop"; }
json=$(grep -c . "$dir/out.jsonl")
[ "$json" = "$records" ] || fail "records parsed $records, JSON lines written $json"
[ "$(count json_written "$dir/col.err")" = "$records" ] || fail "json_written differs from records"
[ "$(count sink_dropped "$dir/col.err")" = 0 ] || fail "records dropped in lossless mode"
"$rec" "$dir"/files/*.hwr >"$dir/files.jsonl" 2>"$dir/files.err" || { cat "$dir/files.err"; fail "record files unreadable"; }
cmp -s "$dir/out.jsonl" "$dir/files.jsonl" || fail "record files differ from the JSON lines"
nfiles=$(ls "$dir"/files/*.hwr | wc -l)
[ "$nfiles" -ge 2 ] || fail "expected size rotation into several files, got $nfiles"
ls -a "$dir/files" | grep -q '\.tmp$' && fail "a temporary record file was left behind"
dropped=$(count stream_dropped "$dir/col.err")
got=$(grep -c . "$dir/stream.jsonl")
[ "$got" = "$sent" ] || fail "stream: collector sent $sent records, the receiver got $got"
[ $((sent + dropped)) = "$records" ] || fail "stream: sent $sent + dropped $dropped != records $records"
python3 - "$dir/stream.jsonl" "$dir/out.jsonl" <<'PY' || fail "stream records are not a subsequence of the JSON records"
import sys
a = open(sys.argv[1]).read().splitlines(); b = iter(open(sys.argv[2]).read().splitlines())
sys.exit(0 if all(any(x == y for y in b) for x in a) else 1)
PY
echo "ok shutdown under traffic: $records records parsed = $json JSON lines = record files ($nfiles files); stream $sent sent + $dropped dropped"
