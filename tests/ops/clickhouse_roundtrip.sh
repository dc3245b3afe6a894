#!/usr/bin/env bash
# Records into a real ClickHouse (Debian's 18.16, on loopback, own data directory) and back: the
# schema from deploy/clickhouse loads, the collector's ClickHouse sink inserts every record of
# several report formats, and the rows SELECTed equal the collector's JSON lines field by field.
# Usage: clickhouse_roundtrip.sh HOPWATCH-GEN HOPWATCH-COLLECTOR SOURCE_ROOT
set -u
here=$(dirname "$0")
. "$here/../collector/lib.sh"
. "$here/clickhouse_lib.sh"
gen=$1 col=$2 src=$3
ch_available || skip "clickhouse-server / clickhouse-client not installed (apt-get install clickhouse-server clickhouse-client)"
dir=$(mktemp -d)
cleanup() { ch_stop; rm -rf "$dir"; }
trap cleanup EXIT
ch_start "$dir/ch" || { tail -5 "$dir/ch/error.log" 2>/dev/null; skip "clickhouse-server did not start on 127.0.0.1:$CH_HTTP"; }
ch_schema "$src/deploy/clickhouse/schema.sql" "$src/deploy/clickhouse/distributed.sql" || fail "schema did not load"
url="http://127.0.0.1:$CH_HTTP/?database=hopwatch"

run() { # name, gen args...
  local name=$1; shift
  "$gen" reports "$@" --out "$dir/$name.pcap" 2>/dev/null || fail "$name: generator failed"
  "$col" --pcap "$dir/$name.pcap" --json-out "$dir/$name.jsonl" --clickhouse "$url" --clickhouse-batch 700 \
    2>"$dir/$name.cnt" || { cat "$dir/$name.cnt"; fail "$name: collector failed"; }
  local recs ins
  recs=$(count records "$dir/$name.cnt") ins=$(count clickhouse_inserted "$dir/$name.cnt")
  [ "$recs" -gt 0 ] && [ "$ins" = "$recs" ] || { cat "$dir/$name.cnt"; fail "$name: $recs records, $ins inserted"; }
  [ "$(count clickhouse_dropped "$dir/$name.cnt")" = 0 ] || fail "$name: records dropped with ClickHouse up"
}
run tr2 --format tr2.0 --count 2000 --coalesce 3 --hops 1-5 --ip mix --l4 mix \
  --instructions node,ports,latency,queue,ig_ts,eg_ts,l2_ports,tx_util,buffer --rep-md ports,latency,queue,ig_ts,eg_ts,l2_ports,tx_util,buffer --drop-rate 0.05 --seed 11
run roce --format tr2.0 --count 1000 --roce --unavailable-rate 0.1 --seed 12
run tr05 --format tr0.5 --count 1500 --drop-rate 0.2 --seed 13
run tr1 --format tr1.0 --count 1000 --int-version 1.0 --seed 14
run bare --format int --int-version 0.5 --count 1000 --l4 mix --seed 15

cols=$(ch_query "SELECT arrayStringConcat(groupArray(name), ',') FROM system.columns WHERE database = 'hopwatch' AND table = 'hops' AND default_kind != 'MATERIALIZED'" | sed 's/src_ip/IPv6NumToString(src_ip) AS src_ip/; s/dst_ip/IPv6NumToString(dst_ip) AS dst_ip/')
ch_query "SELECT $cols FROM hopwatch.hops FORMAT JSONEachRow" >"$dir/rows.jsonl" || fail "SELECT failed"
python3 "$here/ch_compare.py" "$dir/rows.jsonl" "$dir/tr2.jsonl" "$dir/roce.jsonl" "$dir/tr05.jsonl" \
  "$dir/tr1.jsonl" "$dir/bare.jsonl" || fail "ClickHouse rows differ from the collector's records"
n=$(grep -c . "$dir/rows.jsonl")
# the Distributed table over the test's one-shard cluster sees the same rows
dist=$(ch_query "SELECT count() FROM hopwatch.hops_all")
[ "$dist" = "$n" ] || fail "hopwatch.hops_all has $dist rows, hopwatch.hops $n"
echo "ok ClickHouse round trip: $n rows = the collector's records, field by field (tr2.0, RoCE, tr0.5, tr1.0, bare INT)"
