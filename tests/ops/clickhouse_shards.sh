#!/usr/bin/env bash
# The scale-out layout of docs/scale-out.md on one machine: two clickhouse-server shards on loopback
# (cluster `hopwatch` over both), two collectors each inserting into its own shard's hopwatch.hops,
# and the Distributed table hopwatch.hops_all on either shard returning both collectors' records,
# field by field.
# Usage: clickhouse_shards.sh HOPWATCH-GEN HOPWATCH-COLLECTOR SOURCE_ROOT
set -u
here=$(dirname "$0")
. "$here/../collector/lib.sh"
. "$here/clickhouse_lib.sh"
gen=$1 col=$2 src=$3
ch_available || skip "clickhouse-server / clickhouse-client not installed (apt-get install clickhouse-server clickhouse-client)"
dir=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
  rm -rf "$dir"
}
trap cleanup EXIT
h=() t=()
for i in 1 2; do h[i]=$(free_port); t[i]=$(free_port); done
CH_SHARD_TCP_PORTS="${t[1]} ${t[2]}"
for i in 1 2; do
  CH_HTTP=${h[i]} CH_TCP=${t[i]}
  ch_start "$dir/ch$i" || { tail -5 "$dir/ch$i/error.log" 2>/dev/null; skip "clickhouse-server $i did not start"; }
  pids+=("$CH_PID")
  ch_schema "$src/deploy/clickhouse/schema.sql" "$src/deploy/clickhouse/distributed.sql" || fail "schema did not load on shard $i"
done
cols=$(ch_query "SELECT arrayStringConcat(groupArray(name), ',') FROM system.columns WHERE database = 'hopwatch' AND table = 'hops' AND default_kind != 'MATERIALIZED'" | sed 's/src_ip/IPv6NumToString(src_ip) AS src_ip/; s/dst_ip/IPv6NumToString(dst_ip) AS dst_ip/')

for i in 1 2; do  # collector i: its own switches (seed), its own shard
  "$gen" reports --format tr2.0 --count 1500 --hops 2-5 --seed $((60 + i)) --out "$dir/c$i.pcap" 2>/dev/null || fail "generator failed"
  "$col" --pcap "$dir/c$i.pcap" --json-out "$dir/c$i.jsonl" --clickhouse "http://127.0.0.1:${h[i]}/?database=hopwatch" \
    2>"$dir/c$i.err" || { cat "$dir/c$i.err"; fail "collector $i failed"; }
  [ "$(count clickhouse_inserted "$dir/c$i.err")" = "$(count records "$dir/c$i.err")" ] || fail "collector $i: not every record inserted"
done
n1=$(grep -c . "$dir/c1.jsonl") n2=$(grep -c . "$dir/c2.jsonl")
for i in 1 2; do
  CH_HTTP=${h[i]}
  local_rows=$(ch_query "SELECT count() FROM hopwatch.hops")
  want=$([ $i = 1 ] && echo "$n1" || echo "$n2")
  [ "$local_rows" = "$want" ] || fail "shard $i holds $local_rows rows, its collector wrote $want"
  ch_query "SELECT $cols FROM hopwatch.hops_all FORMAT JSONEachRow" >"$dir/all$i.rows" || fail "SELECT from hops_all on shard $i failed"
  python3 "$here/ch_compare.py" "$dir/all$i.rows" "$dir/c1.jsonl" "$dir/c2.jsonl" || fail "hops_all on shard $i differs from both collectors' records"
done
echo "ok two shards: $n1 + $n2 records in each shard's hops; hops_all on either shard = both collectors' records"
