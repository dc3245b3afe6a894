#!/usr/bin/env bash
# hopwatch-gen send: a scenario's reports go out of one end of a veth pair inside a network namespace this
# test creates (hwt-scen-PID, removed on exit), once at a packet rate and once at capture timing (slowed down: a live capture keeps up); the
# collector captures the other end live and decodes exactly the generator's records (times aside).
# Usage: scen_send.sh HOPWATCH-GEN HOPWATCH-COLLECTOR
set -u
. "$(dirname "$0")/lib.sh"
gen=$1 col=$2
[ "$(id -u)" -eq 0 ] || skip "needs root (network namespace)"
command -v ip >/dev/null || skip "iproute2 missing"
ns=hwt-scen-$$
cleanup_extra() {
  [ -n "${cpid:-}" ] && kill "$cpid" 2>/dev/null && wait "$cpid" 2>/dev/null
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

ip netns exec "$ns" "$col" --pcap rx0 --json-out "$dir/live.jsonl" >/dev/null 2>"$dir/col.err" &
cpid=$!
sleep 1
ip netns exec "$ns" "$gen" send --pcap "$dir/s/reports.pcap" --iface tx0 --pps 50000 2>"$dir/send1.err" ||
  { cat "$dir/send1.err"; fail "send --pps failed"; }
grep -qx "sent $packets" "$dir/send1.err" || fail "send --pps: $(tr '\n' ' ' <"$dir/send1.err")"
rate=$(awk '$1 == "rate_pps" {print $2}' "$dir/send1.err")
[ "$rate" -le 52000 ] || fail "send --pps 50000 went at $rate packets/s"
ip netns exec "$ns" "$gen" send --pcap "$dir/s/reports.pcap" --iface tx0 --timing capture --speed 0.01 2>"$dir/send2.err" ||
  { cat "$dir/send2.err"; fail "send --timing capture failed"; }
grep -qx "sent $packets" "$dir/send2.err" || fail "send --timing capture: $(tr '\n' ' ' <"$dir/send2.err")"
want=$(($(wc -l <"$dir/s/records.jsonl") * 2))
t=0 # the JSON sink may hold lines until exit: wait at most 2 s, then stop the collector
while [ "$(grep -c . "$dir/live.jsonl" 2>/dev/null || echo 0)" -lt "$want" ] && [ $t -lt 20 ]; do sleep 0.1; t=$((t + 1)); done
kill -TERM "$cpid"
wait "$cpid"
cpid=
strip_time() { sed -E 's/^\{"time_ns":[0-9]+,/{/' "$1"; }
diff -q <(strip_time "$dir/s/records.jsonl"; strip_time "$dir/s/records.jsonl") <(strip_time "$dir/live.jsonl") >/dev/null ||
  { diff <(strip_time "$dir/s/records.jsonl"; strip_time "$dir/s/records.jsonl") <(strip_time "$dir/live.jsonl") | head -4
    fail "records received live differ"; }
echo "ok $packets report packets sent twice through $ns (--pps 50000 at $rate/s, then at capture timing slowed 100 times): $want records decoded live"
