#!/usr/bin/env bash
# ClickHouse stopped mid-run and restarted: the collector captures live reports (libpcap on a veth
# in a namespace this test creates; ClickHouse runs on that namespace's loopback) while ClickHouse
# is down for a few seconds.  With a queue larger than the outage every record arrives, once;
# with a small queue, rows in ClickHouse + records the sink counted as dropped = records written,
# every row is one of the collector's records, and the run exits 1 (records were lost).
# Usage: clickhouse_outage.sh HOPWATCH-GEN HOPWATCH-COLLECTOR SOURCE_ROOT SEND_PCAP.PY
set -u
here=$(dirname "$0")
. "$here/../collector/lib.sh"
. "$here/clickhouse_lib.sh"
gen=$1 col=$2 src=$3 send=$4
need_root
ch_available || skip "clickhouse-server / clickhouse-client not installed (apt-get install clickhouse-server clickhouse-client)"
ns=hwt-ch-$$
dir=$(mktemp -d)
cleanup() {
  for p in ${cpid:-} ${spid:-}; do kill "$p" 2>/dev/null; done
  ch_stop
  ip netns del "$ns" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
ip netns add "$ns" || fail "cannot create network namespace"
ip -n "$ns" link set lo up
ip -n "$ns" link add tx0 type veth peer name rx0 || fail "cannot create veth pair"
for i in tx0 rx0; do
  ip netns exec "$ns" sysctl -qw "net.ipv6.conf.$i.disable_ipv6=1"
  ip -n "$ns" link set "$i" up
done
inns() { ip netns exec "$ns" "$@"; }
ch_start "$dir/ch" ip netns exec "$ns" || { tail -5 "$dir/ch/error.log" 2>/dev/null; skip "clickhouse-server did not start"; }
ch_schema "$src/deploy/clickhouse/schema.sql" || fail "schema did not load"
url="http://127.0.0.1:$CH_HTTP/?database=hopwatch"
"$gen" reports --format tr2.0 --count 16000 --hops 2-4 --seed 41 --out "$dir/r.pcap" 2>/dev/null || fail "generator failed"
cols=$(ch_query "SELECT arrayStringConcat(groupArray(name), ',') FROM system.columns WHERE database = 'hopwatch' AND table = 'hops' AND default_kind != 'MATERIALIZED'" | sed 's/src_ip/IPv6NumToString(src_ip) AS src_ip/; s/dst_ip/IPv6NumToString(dst_ip) AS dst_ip/')

run() { # name queue-records exit-status (1: records were dropped, the run must say so)
  local name=$1 queue=$2 want_rc=$3
  ch_query "CREATE TABLE hopwatch.hops_$name AS hopwatch.hops" || fail "$name: cannot create the table"
  ip netns exec "$ns" "$col" --pcap rx0 --json-out "$dir/$name.jsonl" --clickhouse "$url" \
    --clickhouse-table "hops_$name" --clickhouse-batch 500 \
    --clickhouse-batch-ms 100 --clickhouse-queue "$queue" >/dev/null 2>"$dir/$name.err" &
  cpid=$!
  sleep 1
  ip netns exec "$ns" python3 "$send" tx0 "$dir/r.pcap" 2000 >/dev/null 2>&1 & # 8 s of reports
  spid=$!
  sleep 1.5
  kill -KILL "$CH_PID"                            # ClickHouse dies mid-run ...
  wait "$CH_PID" 2>/dev/null; CH_PID=
  kill -0 "$spid" 2>/dev/null || fail "$name: the reports ended before ClickHouse died: not an outage mid-run"
  local at=$(wc -l <"$dir/$name.jsonl")
  sleep 3
  ch_stop
  ch_start "$dir/ch" ip netns exec "$ns" || fail "$name: clickhouse-server did not restart"  # ... and comes back
  local back=$(wc -l <"$dir/$name.jsonl")
  wait "$spid"; spid=
  sleep 0.5
  kill -TERM "$cpid"; wait "$cpid"; local rc=$?; cpid=
  [ $rc = "$want_rc" ] || { cat "$dir/$name.err"; fail "$name: collector exited $rc, want $want_rc"; }
  grep -q "clickhouse .*: down (insert into .* failed (no answer)" "$dir/$name.err" || { cat "$dir/$name.err"; fail "$name: the sink never saw ClickHouse down"; }
  # ... and a line when it is back, counting the inserts that failed meanwhile (at least one: it was down 3 s)
  grep -q "clickhouse .*: back after [0-9.]* s, [1-9][0-9]* inserts\? failed meanwhile" "$dir/$name.err" ||
    { cat "$dir/$name.err"; fail "$name: no line saying ClickHouse is back"; }
  records=$(count json_written "$dir/$name.err") ins=$(count clickhouse_inserted "$dir/$name.err")
  dropped=$(count clickhouse_dropped "$dir/$name.err") retries=$(count clickhouse_retries "$dir/$name.err")
  # A batch ClickHouse stored but could not acknowledge before it was killed is sent again (at least
  # once; docs/scale-out.md): such rows are whole-row duplicates of one batch, the rest is exact.
  ch_query "SELECT DISTINCT $cols FROM hopwatch.hops_$name FORMAT JSONEachRow" >"$dir/$name.rows" || fail "$name: SELECT failed"
  local all
  all=$(ch_query "SELECT count() FROM hopwatch.hops_$name")
  rows=$(grep -c . "$dir/$name.rows")
  dups=$((all - rows))
  [ "$dups" -le 500 ] || fail "$name: $dups duplicate rows, more than the one batch in flight when ClickHouse died"
  [ "$records" -gt 5000 ] || { cat "$dir/$name.err"; fail "$name: only $records records captured"; }
  [ "$retries" -gt 0 ] || fail "$name: no retries counted while ClickHouse was down"
  [ "$all" = $((ins + dups)) ] || fail "$name: the sink counted $ins inserted, ClickHouse has $all rows ($dups duplicates)"
  [ $((rows + dropped)) = "$records" ] || fail "$name: rows $rows + dropped $dropped != records $records"
  echo "$name: ClickHouse down from record $at to record $back of $records; $dups rows of a retried batch stored twice"
}

run big 200000 0
[ "$dropped" = 0 ] || fail "big queue: $dropped records dropped though the queue could hold the outage"
python3 "$here/ch_compare.py" "$dir/big.rows" "$dir/big.jsonl" || fail "big queue: rows differ from the records"
echo "ok outage with a queue larger than it: $rows rows = $records records, $retries retries, nothing lost"
big_retries=$retries

run small 2000 1
[ "$dropped" -gt 0 ] || fail "small queue: nothing dropped during a 3 s outage at ~10k records/s"
grep -q "^hopwatch-collector: clickhouse: $dropped records dropped" "$dir/small.err" ||
  { cat "$dir/small.err"; fail "small queue: no line saying $dropped records were dropped"; }
python3 "$here/ch_compare.py" --subset "$dir/small.rows" "$dir/small.jsonl" || fail "small queue: rows that are not records"
echo "ok outage with a 2000-record queue: $rows rows + $dropped dropped = $records records ($retries retries)"
: "$big_retries"
