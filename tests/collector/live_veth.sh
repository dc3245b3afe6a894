#!/usr/bin/env bash
# Live input: reports sent into one end of a veth pair inside a network namespace this test
# creates, received on the other end by the collector, once with DPDK's net_af_packet and once
# with libpcap (--pcap IFACE).  The records must equal the generator's (receive times aside).
# Usage: live_veth.sh HOPWATCH-GEN HOPWATCH-COLLECTOR SEND_PCAP.PY
set -u
. "$(dirname "$0")/lib.sh"
gen=$1 col=$2 send=$3
veth_test col

"$gen" reports --format tr2.0 --count 2000 --hops 1-6 --seed 11 --out "$dir/r.pcap" --truth "$dir/truth.jsonl" 2>/dev/null ||
  fail "generator failed"
want=$(wc -l <"$dir/truth.jsonl")

# start NAME COLLECTOR-ARGS...: the collector, sending once it has said READY=1 (lib.sh start_ready)
start() {
  local name=$1
  shift
  start_ready "$name" "$ns" "$col" "$@"
}

# send_and_stop NAME: send the capture at 5000 frames/s, wait until the JSON output holds every record
# (polled; only a run that lost some waits the full 2 minutes), then SIGTERM: the collector exits 0.
send_and_stop() {
  local name=$1 rc
  sent=$(ip netns exec "$ns" python3 "$send" tx0 "$dir/r.pcap" 5000) || fail "$name: sending failed"
  [ "$sent" = 2000 ] || fail "$name: sent $sent frames"
  for _ in $(seq 1200); do
    [ "$(grep -c . "$dir/$name.jsonl" 2>/dev/null || echo 0)" -ge "$want" ] && break
    sleep 0.1
  done
  kill -TERM "$cpid"
  wait "$cpid"
  rc=$?
  cpid=
  stop_pid "$lpid"
  lpid=
  [ $rc = 0 ] || { cat "$dir/$name.err"; fail "$name: collector exited with $rc after SIGTERM"; }
}

# check NAME [sort]: the records equal the generator's (as a set with sort); on a difference the
# collector's counts say where a frame went (port0_missed: the capture; sink_dropped: the sink ring)
check() {
  local name=$1 order=${2:-cat}
  diff <(strip_time "$dir/truth.jsonl" | $order) <(strip_time "$dir/$name.jsonl" | $order) >/dev/null || {
    diff <(strip_time "$dir/truth.jsonl" | $order) <(strip_time "$dir/$name.jsonl" | $order) | head -4
    cat "$dir/$name.err"
    fail "$name: records differ"
  }
  [ "$(count records "$dir/$name.err")" = "$want" ] || fail "$name: counted $(count records "$dir/$name.err") records, want $want"
  [ "$(count sink_dropped "$dir/$name.err")" = 0 ] || fail "$name: sink_dropped $(count sink_dropped "$dir/$name.err")"
}

# 1. DPDK, net_af_packet on rx0
start afp -l 0-1 "${EAL_COMMON[@]}" --vdev=net_af_packet0,iface=rx0,framecnt=8192 -- --json-out "$dir/afp.jsonl"
send_and_stop afp
check afp
echo "ok afp: $want records received live and decoded exactly"

# 2. DPDK with two RX queues (af_packet fanout spreads flows like RSS) and two worker lcores;
#    workers interleave, so records are compared as a set
start mq --lcores=0@0,1@1,2@1 "${EAL_COMMON[@]}" --vdev=net_af_packet0,iface=rx0,qpairs=2,framecnt=8192 -- \
  --json-out "$dir/mq.jsonl"
grep -q "2 RX queues" "$dir/mq.err" || { cat "$dir/mq.err"; fail "mq: collector did not start with 2 queues"; }
send_and_stop mq
check mq sort
[ "$(count report_packets_lost "$dir/mq.err")" = 0 ] || fail "mq: report loss counted across workers"
echo "ok mq: $want records through 2 RX queues and 2 workers, as a set equal to the generator's"

# 3. libpcap live capture on rx0
start pcap --pcap rx0 --json-out "$dir/pcap.jsonl"
send_and_stop pcap
check pcap
echo "ok pcap: $want records received live and decoded exactly"
