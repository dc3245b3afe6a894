#!/usr/bin/env bash
# The DPDK collector on a net_pcap vdev and the libpcap front end on the same generated capture:
# both give exactly the generator's records, the same counters (including every malformed reason),
# and report-loss counts equal to the sequence gaps the generator left.
# Usage: dpdk_vs_pcap.sh HOPWATCH-GEN HOPWATCH-COLLECTOR
set -u
. "$(dirname "$0")/lib.sh"
gen=$1 col=$2
need_root
$col --help | grep -q -- '--idle-exit' || fail "collector has no DPDK options"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

run_case() { # name, gen args...
  local name=$1; shift
  "$gen" reports "$@" --out "$dir/$name.pcap" --truth "$dir/$name.truth" 2>/dev/null || fail "$name: generator failed"
  "$col" --pcap "$dir/$name.pcap" --json-out "$dir/$name.pcap.jsonl" 2>"$dir/$name.pcap.cnt" || fail "$name: --pcap run failed"
  timeout 120 "$col" -l 0-1 "${EAL_COMMON[@]}" --vdev="net_pcap0,rx_pcap=$dir/$name.pcap" -- \
    --json-out "$dir/$name.dpdk.jsonl" --idle-exit 1 --lossless 2>"$dir/$name.dpdk.cnt" || {
    cat "$dir/$name.dpdk.cnt"; fail "$name: DPDK run failed"; }
  cmp -s "$dir/$name.truth" "$dir/$name.pcap.jsonl" || fail "$name: --pcap records differ from the generator's"
  cmp -s "$dir/$name.truth" "$dir/$name.dpdk.jsonl" || {
    diff "$dir/$name.truth" "$dir/$name.dpdk.jsonl" | head -3; fail "$name: DPDK records differ from the generator's"; }
  # Same counters from both front ends (port lines, the mbuf pool, memory and DPDK worker times are
  # front-end specific).
  local filter='^(port|mbuf pool|memory_peak|worker[0-9]+_(cpu|wall)_ns)'
  diff <(grep -Ev "$filter" "$dir/$name.pcap.cnt") <(grep -Ev "$filter" "$dir/$name.dpdk.cnt") ||
    fail "$name: DPDK and --pcap counters differ"
  [ "$(count port0_rx "$dir/$name.dpdk.cnt")" = "$(count packets "$dir/$name.dpdk.cnt")" ] ||
    fail "$name: the port received $(count port0_rx "$dir/$name.dpdk.cnt") packets, workers counted $(count packets "$dir/$name.dpdk.cnt")"
  echo "ok $name: $(wc -l <"$dir/$name.truth") records identical from DPDK, libpcap and the generator"
}

run_case tr2 --format tr2.0 --count 3000 --coalesce 3 --seq-gap-every 50 --hw-ids 2 --seed 3
# Report loss: every gap in each sender's sequence numbers, worked out from the truth file.
expected_lost=$(truth_report_loss "$dir/tr2.truth")
got_lost=$(count report_packets_lost "$dir/tr2.dpdk.cnt")
[ "$expected_lost" -gt 0 ] || fail "the generator left no sequence gaps"
[ "$got_lost" = "$expected_lost" ] || fail "report loss: collector counted $got_lost, the gaps add up to $expected_lost"
echo "ok report loss: $got_lost lost report packets, as the sequence gaps say"

run_case tr05 --format tr0.5 --count 2000 --drop-rate 0.1 --seed 4
run_case bare --format int --int-version 1.0 --l4 mix --count 2000 --seed 5
run_case malformed --format tr2.0 --count 3000 --malform all:0.25 --seed 6
bad=$(awk '$1 ~ /^(l2_|ip_|l4_|udp_|report_(truncated|version|length|type|md)|inner_|int_|too_many)/ {s += $2} END {print s+0}' "$dir/malformed.dpdk.cnt")
[ "$bad" -gt 400 ] || fail "malformed: only $bad packets counted under error reasons"
echo "ok malformed: $bad bad packets counted by reason, valid reports around them decoded exactly"
