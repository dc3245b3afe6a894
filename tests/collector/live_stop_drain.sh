#!/usr/bin/env bash
# libpcap live capture loses nothing at a stop: 600 frames the kernel buffered on a veth pair while the collector
# was paused (SIGSTOP) are all recorded after SIGTERM + SIGCONT.
# Usage: live_stop_drain.sh HOPWATCH-GEN HOPWATCH-COLLECTOR SEND_PCAP.PY
set -u
. "$(dirname "$0")/lib.sh"
gen=$1 col=$2 send=$3
veth_test drain

n=600
"$gen" reports --format tr2.0 --count $n --hops 1-6 --seed 12 --out "$dir/r.pcap" --truth "$dir/truth.jsonl" \
  2>/dev/null || fail "generator failed"
want=$(wc -l <"$dir/truth.jsonl")

# An observer on rx0 that writes obs.done once it has seen every frame of the capture.  It binds before the
# collector does: the kernel puts the later packet socket of a device first in its list and hands a frame to
# each socket in list order within one softirq, so once the observer has a frame, the collector's buffer
# already holds it.  That is the only wait before the stop, and it is polled.
ip netns exec "$ns" python3 - rx0 "$dir/r.pcap" "$dir/obs" <<'PY' &
import collections, socket, struct, sys
iface, path, out = sys.argv[1:4]
data = open(path, 'rb').read()
endian = '<' if struct.unpack('<I', data[:4])[0] in (0xa1b2c3d4, 0xa1b23c4d) else '>'
want, off = collections.Counter(), 24
while off + 16 <= len(data):
    incl = struct.unpack(endian + 'I', data[off + 8:off + 12])[0]
    want[data[off + 16:off + 16 + incl]] += 1
    off += 16 + incl
left = sum(want.values())
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))  # ETH_P_ALL
s.setsockopt(socket.SOL_SOCKET, 33, 32 << 20)  # SO_RCVBUFFORCE: room for every frame even if this lags
s.bind((iface, 0))
open(out + '.ready', 'w').close()
while left:
    f = s.recv(65536)
    if want[f] > 0:
        want[f] -= 1
        left -= 1
open(out + '.done', 'w').close()
PY
opid=$!
wait_for 30 "the observer on rx0" test -e "$dir/obs.ready"

start_ready drain "$ns" "$col" --pcap rx0 --json-out "$dir/drain.jsonl"
kill -STOP "$cpid"
sent=$(ip netns exec "$ns" python3 "$send" tx0 "$dir/r.pcap" 0) || fail "sending failed"
[ "$sent" = $n ] || fail "sent $sent frames"
wait_for 60 "the observer seeing all $n frames on rx0" test -e "$dir/obs.done"
opid=

# The stop, with every frame in the collector's buffer: SIGTERM is pending when it resumes.
kill -TERM "$cpid"
kill -CONT "$cpid"
for _ in $(seq 300); do kill -0 "$cpid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$cpid" 2>/dev/null && fail "collector still running 30 s after SIGTERM"
wait "$cpid"
rc=$?
cpid=
[ $rc = 0 ] || { cat "$dir/drain.err"; fail "collector exited with $rc after SIGTERM"; }
[ "$(count kernel_dropped "$dir/drain.err")" = 0 ] ||
  { cat "$dir/drain.err"; fail "the kernel dropped frames: the test's buffer assumption is wrong, not the stop"; }
got=$(count records "$dir/drain.err")
[ "$got" = "$want" ] || { cat "$dir/drain.err"; fail "recorded $got of $want records buffered at the stop"; }
diff <(strip_time "$dir/truth.jsonl") <(strip_time "$dir/drain.jsonl") >/dev/null ||
  fail "the JSON records differ from the generator's"
echo "ok: $n frames buffered at SIGTERM, all $want records written"
