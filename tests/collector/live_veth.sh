#!/usr/bin/env bash
# Live input: reports sent into one end of a veth pair inside a network namespace this test
# creates, received on the other end by the collector, once with DPDK's net_af_packet and once
# with libpcap (--pcap IFACE).  The records must equal the generator's (receive times aside).
# Usage: live_veth.sh HOPWATCH-GEN HOPWATCH-COLLECTOR SEND_PCAP.PY
set -u
. "$(dirname "$0")/lib.sh"
gen=$1 col=$2 send=$3
need_root
command -v ip >/dev/null || skip "iproute2 missing"
ns=hwt-col-$$
dir=$(mktemp -d)
cleanup() {
  [ -n "${cpid:-}" ] && kill "$cpid" 2>/dev/null
  ip netns del "$ns" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
make_veth_ns "$ns"

"$gen" reports --format tr2.0 --count 2000 --hops 1-6 --seed 11 --out "$dir/r.pcap" --truth "$dir/truth.jsonl" 2>/dev/null ||
  fail "generator failed"
want=$(wc -l <"$dir/truth.jsonl")

# wait until the collector has counted every packet (or give up), then stop it with SIGTERM
run_and_check() { # name
  local name=$1
  wait_for_line "$dir/$name.err" "$4" 60 || { cat "$dir/$name.err"; fail "$name: collector did not start"; }
  sleep 0.5
  sent=$(ip netns exec "$ns" python3 "$send" tx0 "$dir/r.pcap" 5000) || fail "$name: sending failed"
  [ "$sent" = 2000 ] || fail "$name: sent $sent frames"
  local t=0
  while [ "$(grep -c . "$dir/$name.jsonl" 2>/dev/null || echo 0)" -lt "$want" ] && [ $t -lt 100 ]; do sleep 0.1; t=$((t + 1)); done
  kill -TERM "$cpid"
  wait "$cpid"
  local rc=$?
  cpid=
  [ $rc = 0 ] || { cat "$dir/$name.err"; fail "$name: collector exited with $rc after SIGTERM"; }
  diff <(strip_time "$dir/truth.jsonl") <(strip_time "$dir/$name.jsonl") >/dev/null || {
    diff <(strip_time "$dir/truth.jsonl") <(strip_time "$dir/$name.jsonl") | head -4
    cat "$dir/$name.err" # the collector's counts: a frame the capture lost shows in its drop counters
    fail "$name: records differ"; }
  [ "$(count records "$dir/$name.err")" = "$want" ] || fail "$name: counted $(count records "$dir/$name.err") records, want $want"
  echo "ok $name: $want records received live and decoded exactly"
}

# 1. DPDK, net_af_packet on rx0
ip netns exec "$ns" "$col" -l 0-1 "${EAL_COMMON[@]}" --vdev=net_af_packet0,iface=rx0,framecnt=8192 -- \
  --json-out "$dir/afp.jsonl" >/dev/null 2>"$dir/afp.err" &
cpid=$!
run_and_check afp x x "port 0: net_af_packet"

# 2. DPDK with two RX queues (af_packet fanout spreads flows like RSS) and two worker lcores;
#    workers interleave, so records are compared as a set
ip netns exec "$ns" "$col" --lcores=0@0,1@1,2@1 "${EAL_COMMON[@]}" \
  --vdev=net_af_packet0,iface=rx0,qpairs=2,framecnt=8192 -- --json-out "$dir/mq.jsonl" >/dev/null 2>"$dir/mq.err" &
cpid=$!
wait_for_line "$dir/mq.err" "2 RX queues" 60 || { cat "$dir/mq.err"; fail "mq: collector did not start with 2 queues"; }
sleep 0.5
ip netns exec "$ns" python3 "$send" tx0 "$dir/r.pcap" 5000 >/dev/null || fail "mq: sending failed"
t=0
while [ "$(grep -c . "$dir/mq.jsonl" 2>/dev/null || echo 0)" -lt "$want" ] && [ $t -lt 100 ]; do sleep 0.1; t=$((t + 1)); done
kill -TERM "$cpid"; wait "$cpid" || fail "mq: collector exit status after SIGTERM"; cpid=
diff <(strip_time "$dir/truth.jsonl" | sort) <(strip_time "$dir/mq.jsonl" | sort) >/dev/null ||
  fail "mq: the two workers' records differ from the generator's"
[ "$(count report_packets_lost "$dir/mq.err")" = 0 ] || fail "mq: report loss counted across workers"
echo "ok mq: $want records through 2 RX queues and 2 workers, as a set equal to the generator's"

# 3. libpcap live capture on rx0
ip netns exec "$ns" "$col" --pcap rx0 --json-out "$dir/pcap.jsonl" >/dev/null 2>"$dir/pcap.err" &
cpid=$!
sleep 1
echo started >>"$dir/pcap.err"
run_and_check pcap x x "started"
