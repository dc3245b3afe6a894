#!/usr/bin/env bash
# The DPDK mbuf pool is sized from what the ports hold: net_pcap with infinite_rx=1 keeps a whole capture
# of 12,000 frames in mbufs (the old fixed pool of 8191 per port failed with "RX queue 0: Invalid
# argument"); the collector must replay it in a loop, export the port's counters on /metrics while it
# runs, and, given too little memory, say how big a pool it could not allocate.
# Usage: dpdk_pool.sh HOPWATCH-GEN HOPWATCH-COLLECTOR
set -u
. "$(dirname "$0")/../collector/lib.sh"
gen=$1 col=$2
need_root
command -v curl >/dev/null || skip "curl missing"
dir=$(mktemp -d)
cleanup() {
  stop_pid "${cpid:-}"
  rm -rf "$dir"
}
trap cleanup EXIT
"$gen" reports --format tr2.0 --count 12000 --seed 5 --out "$dir/r.pcap" 2>/dev/null || fail "generator failed"
mport=$(free_port)
"$col" -l 0-1 "${EAL_COMMON[@]}" --vdev="net_pcap0,rx_pcap=$dir/r.pcap,infinite_rx=1" -- \
  --metrics "127.0.0.1:$mport" --status-interval 0 >/dev/null 2>"$dir/col.err" &
cpid=$!
# The pool, by hand: 1024 RX descriptors x 1 queue + 12000 frames of the capture + one burst of 32 for
# the one worker + 1.5 x 256 cached per lcore x 2 lcores = 1024 + 12000 + 32 + 768 = 13824 needed,
# rounded up to 2^14 - 1 = 16383.
wait_for_line "$dir/col.err" "^port 0: net_pcap, 1 RX queue" 60 || { cat "$dir/col.err"; fail "port 0 did not start"; }
grep -q '^mbuf pool: 16383 mbufs (13824 needed' "$dir/col.err" || { cat "$dir/col.err"; fail "pool not sized 16383 for 13824"; }
# two laps of the capture seen by the port, read while running
got=0
for _ in $(seq 600); do
  got=$(curl --max-time 10 -sf "http://127.0.0.1:$mport/metrics" |
    awk '$1 == "hopwatch_collector_nic_received_packets_total{port=\"0\"}" {print $2}')
  [ -n "$got" ] && [ "$got" -gt 24000 ] && break
  sleep 0.1
done
[ -n "$got" ] && [ "$got" -gt 24000 ] || { cat "$dir/col.err"; fail "port 0 received ${got:-nothing}, want > 24000 (two laps)"; }
curl --max-time 10 -sf "http://127.0.0.1:$mport/metrics" -o "$dir/m.txt"
for r in imissed rx_nombuf ierrors; do
  grep -q "^hopwatch_collector_nic_dropped_packets_total{port=\"0\",reason=\"$r\"} [0-9]" "$dir/m.txt" ||
    fail "no $r series on /metrics"
done
kill -TERM "$cpid"
wait "$cpid"
rc=$?
cpid=
[ $rc = 0 ] || { cat "$dir/col.err"; fail "collector exited $rc after SIGTERM"; }

# 16 MiB of memory cannot hold 16383 mbufs of 2176 bytes (about 36 MiB): exit 1 and say so
"$col" -l 0-1 --no-huge --no-shconf -m 16 --no-pci --log-level=4 --vdev="net_pcap0,rx_pcap=$dir/r.pcap,infinite_rx=1" \
  -- --idle-exit 1 >/dev/null 2>"$dir/small.err"
rc=$?
[ $rc = 1 ] || { cat "$dir/small.err"; fail "too little memory: exit $rc, want 1"; }
grep -q "cannot create the mbuf pool of 16383 mbufs x 2176 bytes" "$dir/small.err" ||
  { cat "$dir/small.err"; fail "the error does not name the pool's size"; }
echo "ok: a 12,000-frame infinite_rx capture replays from a 16383-mbuf pool; too little memory is named"
