#!/usr/bin/env bash
# hopwatch-gen send: a scenario's reports go out of one end of a veth pair inside a network namespace this
# test creates (hwt-scen-PID, removed on exit), once at a packet rate and once at capture timing (slowed down: a live capture keeps up); the
# collector captures the other end live and decodes exactly the generator's records (times aside).  A run
# in which the kernel counted drops before the capture point is repeated (at most three runs).
# Usage: scen_send.sh HOPWATCH-GEN HOPWATCH-COLLECTOR
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../collector/lib.sh" # start_ready, stop_pid, strip_time
gen=$1 col=$2
[ "$(id -u)" -eq 0 ] || skip "needs root (network namespace)"
command -v ip >/dev/null || skip "iproute2 missing"
ns=hwt-scen-$$
cleanup_extra() {
  stop_pid "${cpid:-}"
  stop_pid "${lpid:-}"
  ip netns del "$ns" 2>/dev/null
}
ip netns add "$ns" || fail "cannot create network namespace $ns"
ip -n "$ns" link add tx0 type veth peer name rx0 || fail "cannot create veth pair"
for i in tx0 rx0; do
  ip netns exec "$ns" sysctl -qw "net.ipv6.conf.$i.disable_ipv6=1"
  ip -n "$ns" link set "$i" up
done

"$gen" scenario incast --duration-us 2000 --write-records --no-lldp --out "$dir/s" --quiet || fail "generator failed"
packets=$(awk -F'[:,]' '/"packets"/ {gsub(/ /, "", $2); print $2; exit}' "$dir/s/truth.json")
[ "$packets" -gt 500 ] || fail "only $packets report packets"

# bad usage first
"$gen" send --pcap "$dir/s/reports.pcap" >/dev/null 2>"$dir/err"; [ $? = 2 ] && grep -q "iface" "$dir/err" ||
  fail "send without --iface: $(cat "$dir/err")"
ip netns exec "$ns" "$gen" send --pcap "$dir/s/reports.pcap" --iface nosuch0 >/dev/null 2>"$dir/err"
[ $? = 1 ] && grep -q "nosuch0" "$dir/err" || fail "send to a missing interface: $(cat "$dir/err")"

# Packets the kernel dropped before the capture point: the veth pair's drop counters (a full receive
# backlog, netdev_max_backlog, when softirqs are starved on a loaded machine), the CPUs' softnet drops, and
# the capture's own (the collector prints kernel_dropped / interface_dropped when not zero).
kernel_drops() {
  local n=0 f
  for f in tx0/statistics/tx_dropped tx0/statistics/rx_dropped rx0/statistics/rx_dropped rx0/statistics/tx_dropped; do
    n=$((n + $(ip netns exec "$ns" cat "/sys/class/net/$f")))
  done
  local _ dropped
  while read -r _ dropped _; do n=$((n + 16#$dropped)); done </proc/net/softnet_stat
  echo "$n"
}
# what the collector must decode: the scenario's records twice (two sends), times aside
{ strip_time "$dir/s/records.jsonl"; strip_time "$dir/s/records.jsonl"; } >"$dir/want.jsonl"
want=$(wc -l <"$dir/want.jsonl")
# one run: the collector captures rx0 while the scenario goes out of tx0 twice; 0 = every record decoded
# exactly, 1 = they differ, 3 = they differ and the kernel counted drops before the capture (no fault of
# the collector's: the run is repeated, at most three times)
attempt() {
  local before after cdrops
  before=$(kernel_drops)
  # sends once the collector has said READY=1 (start_ready: its capture is open and its worker runs), so every
  # frame sent from then on is received (a fixed sleep was too short for a sanitizer build on a loaded machine:
  # that run received nothing); the notification files of an earlier attempt go first
  rm -f "$dir/col.sock" "$dir/col.notify" "$dir/live.jsonl"
  start_ready col "$ns" "$col" --pcap rx0 --json-out "$dir/live.jsonl"
  ip netns exec "$ns" "$gen" send --pcap "$dir/s/reports.pcap" --iface tx0 --pps 50000 2>"$dir/send1.err" ||
    { cat "$dir/send1.err"; fail "send --pps failed"; }
  grep -qx "sent $packets" "$dir/send1.err" || fail "send --pps: $(tr '\n' ' ' <"$dir/send1.err")"
  rate=$(awk '$1 == "rate_pps" {print $2}' "$dir/send1.err")
  [ "$rate" -le 52000 ] || fail "send --pps 50000 went at $rate packets/s"
  ip netns exec "$ns" "$gen" send --pcap "$dir/s/reports.pcap" --iface tx0 --timing capture --speed 0.01 2>"$dir/send2.err" ||
    { cat "$dir/send2.err"; fail "send --timing capture failed"; }
  grep -qx "sent $packets" "$dir/send2.err" || fail "send --timing capture: $(tr '\n' ' ' <"$dir/send2.err")"
  local t=0 # the JSON sink may hold lines until exit: wait at most 2 s, then stop the collector
  while [ "$(grep -c . "$dir/live.jsonl" 2>/dev/null || echo 0)" -lt "$want" ] && [ $t -lt 20 ]; do sleep 0.1; t=$((t + 1)); done
  kill -TERM "$cpid"
  wait "$cpid"
  cpid=
  stop_pid "$lpid"
  lpid=
  strip_time "$dir/live.jsonl" >"$dir/got.jsonl"
  cmp -s "$dir/want.jsonl" "$dir/got.jsonl" && return 0
  diff "$dir/want.jsonl" "$dir/got.jsonl" | head -4
  after=$(kernel_drops)
  cdrops=$(awk '$1 ~ /^(kernel|interface)_dropped$/ { s += $2 } END { print s + 0 }' "$dir/col.err")
  echo "records differ; packets the kernel dropped before the capture: $((after - before)), the capture's own: $cdrops"
  [ $((after - before + cdrops)) -gt 0 ] && return 3
  return 1
}
tries=0
while :; do
  tries=$((tries + 1))
  attempt
  case $? in
  0) break ;;
  3) [ "$tries" -lt 3 ] || fail "records received live differ in $tries runs, each with packets dropped by the kernel" ;;
  *) fail "records received live differ (no packet dropped before the capture)" ;;
  esac
done
echo "ok $packets report packets sent twice through $ns (--pps 50000 at $rate/s, then at capture timing slowed 100 times): $want records decoded live (run $tries)"
