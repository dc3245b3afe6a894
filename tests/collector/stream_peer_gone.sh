#!/usr/bin/env bash
# The live stream when its reader fails (issue 22 item 9: 964 records a run neither sent nor dropped with a
# stalled reader).  A reader that stops after 5000 records and goes away, and a reader stopped (SIGSTOP)
# for the whole run: either way stream_sent + stream_dropped = records, and what the reader got is no more
# than stream_sent (exactly stream_sent for the stopped reader, which reads its socket out afterwards).
# Usage: stream_peer_gone.sh HOPWATCH-GEN HOPWATCH-COLLECTOR HOPWATCH-RECORDS
set -u
. "$(dirname "$0")/lib.sh"
gen=$1 col=$2 rec=$3
dir=$(mktemp -d)
cleanup() {
  [ -n "${lpid:-}" ] && kill -CONT "$lpid" 2>/dev/null && kill "$lpid" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
"$gen" reports --format tr2.0 --count 20000 --hops 2-5 --seed 21 --out "$dir/d.pcap" 2>/dev/null ||
  fail "generator failed"
listen() { # NAME [ARGS]: a reader on unix:$dir/NAME.sock, its records in NAME.jsonl
  local name=$1
  shift
  "$rec" --listen "unix:$dir/$name.sock" "$@" >"$dir/$name.jsonl" 2>"$dir/$name.err" &
  lpid=$!
  wait_for_line "$dir/$name.err" listening 60 || fail "stream listener did not start"
}
check() { # NAME: the collector's counts against the records
  local records sent dropped
  records=$(count records "$dir/$1.cnt") sent=$(count stream_sent "$dir/$1.cnt") dropped=$(count stream_dropped "$dir/$1.cnt")
  got=$(wc -l <"$dir/$1.jsonl")
  echo "$1: records $records, stream_sent $sent, stream_dropped $dropped, the reader got $got"
  [ "$records" -gt 50000 ] || fail "$1: only $records records"
  [ $((sent + dropped)) = "$records" ] || fail "$1: sent $sent + dropped $dropped != records $records"
  [ "$dropped" -gt 0 ] || fail "$1: the reader failed, yet nothing was dropped"
  [ "$got" -le "$sent" ] || fail "$1: the reader got $got records, more than the $sent sent"
}

# 1. the reader takes 5000 records and exits: the rest cannot be sent
listen gone --count 5000
"$col" --pcap "$dir/d.pcap" --stream "unix:$dir/gone.sock" 2>"$dir/gone.cnt" || { cat "$dir/gone.cnt"; fail "collector failed"; }
wait "$lpid"
lpid=
check gone
[ "$got" -ge 5000 ] || fail "gone: the reader got only $got records"

# 2. the reader is stopped the whole run; afterwards it reads what its socket holds: exactly the frames
# the collector counted sent (the frame it could not finish was dropped and counted)
listen stalled --idle 3
kill -STOP "$lpid"
"$col" --pcap "$dir/d.pcap" --stream "unix:$dir/stalled.sock" 2>"$dir/stalled.cnt" ||
  { cat "$dir/stalled.cnt"; fail "collector failed"; }
kill -CONT "$lpid"
wait "$lpid"
lpid=
check stalled
[ "$got" = "$(count stream_sent "$dir/stalled.cnt")" ] || fail "stalled: the reader got $got records, stream_sent differs"
echo "ok stream reader gone or stalled: every record sent or counted dropped"
