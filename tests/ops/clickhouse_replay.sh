#!/usr/bin/env bash
# hopwatch-analyzer run --clickhouse: the collector writes the incast scenario's reports (and a
# generated capture of coalesced reports with sequence gaps and drops) to a real ClickHouse and to
# record files; replaying the full time range from ClickHouse gives byte for byte the events of the
# record files; a sub-range gives exactly the records in range (counted from the collector's JSON
# lines and by SELECT count()) and the events of those records fed as JSON lines; errors name the
# input (also an error ClickHouse sends after the first rows).  Then two shards: the switches split
# over two collectors, each writing its own shard, and the replay from the Distributed table hops_all
# equals the one-collector record files.
# Usage: clickhouse_replay.sh HOPWATCH-GEN HOPWATCH-COLLECTOR HOPWATCH-ANALYZER SOURCE_ROOT
set -u
here=$(dirname "$0")
. "$here/../collector/lib.sh"
. "$here/clickhouse_lib.sh"
gen=$1 col=$2 an=$3 src=$4
ch_available || skip "clickhouse-server / clickhouse-client not installed (apt-get install clickhouse-server clickhouse-client)"
dir=$(mktemp -d)
pids=()
cleanup() {
  ch_stop
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
  rm -rf "$dir"
}
trap cleanup EXIT
S=$src/data/samples/incast
topo=(--lldp "$S/lldp.pcap" --map "$S/map.json" --config "$S/analyzer.json")
ch_start "$dir/ch" || { tail -5 "$dir/ch/error.log" 2>/dev/null; skip "clickhouse-server did not start on 127.0.0.1:$CH_HTTP"; }
ch_schema "$src/deploy/clickhouse/schema.sql" "$src/deploy/clickhouse/distributed.sql" || fail "schema did not load"
ch_query "CREATE TABLE hopwatch.coalesced AS hopwatch.hops" || fail "cannot create a second table"
url="http://127.0.0.1:$CH_HTTP/?database=hopwatch"

# collect PCAP NAME TABLE: records to DIR/NAME.rec/, DIR/NAME.jsonl and ClickHouse table TABLE
collect() {
  mkdir -p "$dir/$2.rec"
  "$col" --pcap "$1" --records-dir "$dir/$2.rec" --json-out "$dir/$2.jsonl" --clickhouse "$url" --clickhouse-table "$3" \
    2>"$dir/$2.cnt" || { cat "$dir/$2.cnt"; fail "$2: collector failed"; }
  [ "$(count clickhouse_inserted "$dir/$2.cnt")" = "$(count records "$dir/$2.cnt")" ] ||
    { cat "$dir/$2.cnt"; fail "$2: not every record was inserted"; }
}
collect "$S/reports.pcap" incast hops
"$gen" reports --format tr2.0 --count 6000 --coalesce 4 --hops 2-4 --seq-gap-every 50 --drop-rate 0.02 \
  --seed 21 --out "$dir/coalesced.pcap" 2>/dev/null || fail "generator failed"
collect "$dir/coalesced.pcap" coalesced coalesced

# full range: the same events as the record files, byte for byte
"$an" run --records "$dir"/incast.rec/*.hwr "${topo[@]}" --events "$dir/files.ev" --summary-json - 2>"$dir/files.sum" || fail "replay of the record files"
"$an" run --clickhouse "$url" --from 0 --to 2100-01-01T00:00:00Z "${topo[@]}" --events "$dir/ch.ev" --summary-json - 2>"$dir/ch.sum" ||
  { cat "$dir/ch.sum"; fail "replay from ClickHouse failed"; }
n_ev=$(grep -c '"state":"firing"' "$dir/files.ev")
[ "$n_ev" -gt 20 ] || fail "the incast records raised only $n_ev events"
cmp "$dir/files.ev" "$dir/ch.ev" || fail "ClickHouse replay gave other events than the record files"
n=$(grep -c . "$dir/incast.jsonl")
grep -q "^{\"records\":$n," "$dir/ch.sum" || fail "ClickHouse replay: $(head -c 100 "$dir/ch.sum"), want $n records"
echo "ok full range: $n records from ClickHouse, $(grep -c . "$dir/ch.ev") events = the record files' (byte for byte)"

"$an" run --records "$dir"/coalesced.rec/*.hwr --events "$dir/cf.ev" --quiet || fail "replay of the record files"
"$an" run --clickhouse "$url" --clickhouse-table hopwatch.coalesced --from 0 --to 18446744073709551615 --events "$dir/cc.ev" --quiet ||
  fail "replay of the coalesced table"
grep -q TelemetryReportLoss "$dir/cf.ev" && grep -q PacketDrops "$dir/cf.ev" || fail "coalesced capture: expected report loss and drops"
cmp "$dir/cf.ev" "$dir/cc.ev" || fail "coalesced reports: ClickHouse replay gave other events than the record files"
echo "ok coalesced reports (4 per packet, one time_ns), gaps and drops: $(grep -c . "$dir/cc.ev") events = the record files'"

# a sub-range: from (RFC 3339, ns fraction) at 30% of the records, to (ns) at 70%
read -r from_ns from_txt to_ns want <<<"$(python3 - "$dir/incast.jsonl" "$dir/sub.jsonl" <<'PY'
import json, sys, datetime
t = [json.loads(l)["time_ns"] for l in open(sys.argv[1])]
lo, hi = t[len(t) * 3 // 10] + 1, t[len(t) * 7 // 10]   # from lies between two records' times
s, ns = divmod(lo, 10**9)
txt = datetime.datetime.fromtimestamp(s, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S") + ".%09dZ" % ns
with open(sys.argv[2], "w") as out:
    for line in open(sys.argv[1]):
        if lo <= json.loads(line)["time_ns"] < hi:
            out.write(line)
print(lo, txt, hi, sum(lo <= x < hi for x in t))
PY
)"
selected=$(ch_query "SELECT count() FROM hopwatch.hops WHERE time_ns >= $from_ns AND time_ns < $to_ns")
[ "$selected" = "$want" ] || fail "SELECT count() says $selected records in range, the collector's JSON $want"
"$an" run --clickhouse "$url" --from "$from_txt" --to "$to_ns" "${topo[@]}" --events "$dir/sub_ch.ev" --summary-json - 2>"$dir/sub.sum" ||
  { cat "$dir/sub.sum"; fail "sub-range replay failed"; }
grep -q "^{\"records\":$want," "$dir/sub.sum" || fail "sub-range: $(head -c 100 "$dir/sub.sum"), want $want records"
"$an" run --jsonl "$dir/sub.jsonl" "${topo[@]}" --events "$dir/sub_json.ev" --quiet || fail "replay of the sub-range JSON lines"
cmp "$dir/sub_json.ev" "$dir/sub_ch.ev" || fail "sub-range: ClickHouse events differ from the same records as JSON lines"
echo "ok sub-range [$from_txt, $to_ns): $want records of $n (= SELECT count()), events = those records as JSON lines"

# --pace recorded: 2000 reports 100 us apart take 0.2 s of wall time and give the fast replay's events
ch_query "CREATE TABLE hopwatch.paced AS hopwatch.hops" || fail "cannot create the paced table"
"$gen" reports --format tr2.0 --hops 3 --count 2000 --interval-ns 100000 --seed 7 --out "$dir/paced.pcap" 2>/dev/null ||
  fail "generator failed (paced)"
collect "$dir/paced.pcap" paced paced
"$an" run --records "$dir"/paced.rec/*.hwr --events "$dir/pf.ev" --quiet || fail "replay of the paced record files"
t0=$(date +%s%N)
"$an" run --clickhouse "$url" --clickhouse-table hopwatch.paced --from 0 --to 2100-01-01T00:00:00Z --pace recorded \
  --events "$dir/pc.ev" --quiet || fail "paced replay from ClickHouse"
t1=$(date +%s%N)
ms=$(((t1 - t0) / 1000000))
[ "$ms" -ge 190 ] || fail "--clickhouse --pace recorded took $ms ms, expected about 200"
cmp "$dir/pf.ev" "$dir/pc.ev" || fail "paced ClickHouse replay gave other events than the record files"
echo "ok --pace recorded from ClickHouse: $ms ms for 200 ms of records, the record files' events"

# errors name the input; bad usage exits 2
expect_err() { # RC PATTERN WHAT args...
  local rc=$1 pat=$2 what=$3; shift 3
  "$an" run "$@" --quiet 2>"$dir/err"
  local got=$?
  [ "$got" = "$rc" ] && grep -q -- "$pat" "$dir/err" || fail "$what: exit $got, '$(cat "$dir/err")'; want $rc and '$pat'"
  echo "ok $what: exit $rc, $(head -1 "$dir/err")"
}
closed=$(free_port)
expect_err 1 "127.0.0.1:$closed" "ClickHouse unreachable" --clickhouse "http://127.0.0.1:$closed/" --from 0 --to 1
expect_err 1 "table nosuch: HTTP 404" "table missing" --clickhouse "$url" --clickhouse-table nosuch --from 0 --to 1
# ClickHouse has sent rows (HTTP 200) when the error comes: its text ends the result (20000 rows of
# 133 bytes overflow its 1 MiB response buffer first; 5000 would not, and the error would be an HTTP 500)
expect_err 1 "table hops: the query failed after row 20000: Code: 396" "an error in the middle of the result" \
  --clickhouse "$url&max_result_rows=20000&result_overflow_mode=throw&max_block_size=1000" --from 0 --to 2100-01-01T00:00:00Z
expect_err 2 "^hopwatch-analyzer run: --from: '2026-02-30T00:00:00Z': no such day" "bad time" --clickhouse "$url" --from 2026-02-30T00:00:00Z --to 1
expect_err 2 "RFC 3339 needs a zone" "time without a zone" --clickhouse "$url" --from 2026-01-01T00:00:00 --to 1
expect_err 2 "is not before --to" "empty range" --clickhouse "$url" --from 2026-01-01T01:00:00+01:00 --to 1767225600000000000
expect_err 2 "needs the time range" "no range" --clickhouse "$url"
expect_err 2 "--clickhouse-table: 'a;b'" "bad table name" --clickhouse "$url" --clickhouse-table 'a;b' --from 0 --to 1
ch_stop

# two shards: switches with an even / odd outer source address go to collector 1 / 2
python3 - "$S/reports.pcap" "$dir/half1.pcap" "$dir/half2.pcap" <<'PY'
import sys
d = open(sys.argv[1], "rb").read()
outs = [open(sys.argv[2], "wb"), open(sys.argv[3], "wb")]
for o in outs:
    o.write(d[:24])
off = 24
while off < len(d):
    incl = int.from_bytes(d[off + 8:off + 12], "little")
    rec = d[off:off + 16 + incl]
    outs[rec[16 + 29] & 1].write(rec)       # last byte of the outer IPv4 source
    off += 16 + incl
PY
h=() t=()
for i in 1 2; do h[i]=$(free_port); t[i]=$(free_port); done
CH_SHARD_TCP_PORTS="${t[1]} ${t[2]}"
for i in 1 2; do
  CH_HTTP=${h[i]} CH_TCP=${t[i]}
  ch_start "$dir/shard$i" || { tail -5 "$dir/shard$i/error.log" 2>/dev/null; skip "clickhouse-server shard $i did not start"; }
  pids+=("$CH_PID")
  CH_PID=
  ch_schema "$src/deploy/clickhouse/schema.sql" "$src/deploy/clickhouse/distributed.sql" || fail "schema did not load on shard $i"
  url="http://127.0.0.1:${h[i]}/?database=hopwatch"
  collect "$dir/half$i.pcap" "half$i" hops
  rows=$(ch_query "SELECT count() FROM hopwatch.hops")
  [ "$rows" -gt 0 ] && [ "$rows" -lt "$n" ] || fail "shard $i holds $rows of $n records"
done
for i in 1 2; do
  "$an" run --clickhouse "http://127.0.0.1:${h[i]}/?database=hopwatch" --clickhouse-table hops_all --from 0 --to 2100-01-01T00:00:00Z \
    "${topo[@]}" --events "$dir/shards$i.ev" --summary-json - 2>"$dir/shards.sum" || { cat "$dir/shards.sum"; fail "replay from hops_all on shard $i"; }
  grep -q "^{\"records\":$n," "$dir/shards.sum" || fail "hops_all on shard $i: $(head -c 100 "$dir/shards.sum"), want $n records"
  cmp "$dir/files.ev" "$dir/shards$i.ev" || fail "hops_all on shard $i: other events than one collector's record files"
done
echo "ok two shards: $n records split over two collectors; hops_all replayed on either shard = the record files' events"
