#!/usr/bin/env bash
# The authenticated record stream end to end (issue 22 item 10): collector and analyzer given the same
# --stream-key; a forger on the same socket without the key sends a frame of a record from a switch that
# does not exist.  The analyzer takes every batch the collector sent, refuses the forger's connection
# (and says so), and raises nothing for the forged switch.
# Usage: stream_auth.sh HOPWATCH-GEN HOPWATCH-COLLECTOR HOPWATCH-ANALYZER
set -u
gen=$1 col=$2 an=$3
. "$(dirname "$0")/lib.sh"
dir=$(mktemp -d)
cleanup() {
  stop_pid "${apid:-}"
  rm -rf "$dir"
}
trap cleanup EXIT
head -c 32 /dev/urandom | base64 >"$dir/key"
chmod 600 "$dir/key"
"$gen" scenario incast --out "$dir/s" >/dev/null 2>&1 || fail "scenario failed"
mport=$(free_port)
"$an" run --stream "unix:$dir/sock" --stream-key "$dir/key" --duration 120 --lldp "$dir/s/lldp.pcap" \
  --map "$dir/s/map.json" --events "$dir/events.jsonl" --metrics "127.0.0.1:$mport" --summary-json - >/dev/null 2>"$dir/an.err" &
apid=$!
for _ in $(seq 600); do [ -S "$dir/sock" ] && break; sleep 0.1; done
[ -S "$dir/sock" ] || { cat "$dir/an.err"; fail "the analyzer is not listening"; }
# the forger: a version-1 (unauthenticated) frame of one record (node id 99, all else zero)
python3 - "$dir/sock" <<'PY' || fail "forger"
import socket, struct, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
rec = bytearray(136)
s.sendall(struct.pack("<IHHIIQQ", 0x48574253, 1, len(rec), 1, 0, 0, 0) + bytes(rec))
s.settimeout(30)
try:
    while s.recv(4096):  # the challenge, then the close
        pass
except ConnectionResetError:
    pass
PY
"$col" --pcap "$dir/s/reports.pcap" --stream "unix:$dir/sock" --stream-key "$dir/key" >/dev/null 2>"$dir/col.err" ||
  { cat "$dir/col.err"; fail "collector failed"; }
sent=$(count stream_sent "$dir/col.err")
[ "$sent" -gt 0 ] || { cat "$dir/col.err"; fail "the collector sent nothing"; }
# the analyzer's records reach the collector's count (on its /metrics), then it stops and prints them
for _ in $(seq 600); do
  curl --max-time 5 -sf "http://127.0.0.1:$mport/metrics" 2>/dev/null |
    grep -q "^hopwatch_analyzer_records_total $sent\$" && break
  sleep 0.1
done
stop_pid "$apid"
apid=
got=$(python3 -c 'import json,sys
for l in open(sys.argv[1]):
    l = l.strip()
    if l.startswith("{"):
        print(json.loads(l)["records"])' "$dir/an.err")
[ "$got" = "$sent" ] || { cat "$dir/an.err"; fail "the analyzer took $got records, the collector sent $sent"; }
grep -q "connections closed for frames the stream key did not authenticate" "$dir/an.err" ||
  { cat "$dir/an.err"; fail "the forged connection was not reported"; }
grep -q "frame without authentication" "$dir/an.err" || fail "no message naming the unauthenticated frame"
! grep -q '"node_id":99[,}]' "$dir/events.jsonl" || fail "an event for the forged switch"
echo "ok authenticated stream: $sent records taken, the forger's frame refused and reported"
