#!/usr/bin/env bash
# hopwatch-collector diagnose, each FAIL provoked: hugepages absent (a made-up /proc), no DPDK
# ports, link down (a memif port nobody connects to), no reports, malformed reports, report loss,
# a switch with a skewed clock, switch clocks 37 s off this host's, a bad config, ClickHouse / Alertmanager / /metrics on closed ports
# or answering wrongly.  Every FAIL line has a fix line and makes the exit status 1; a healthy
# setup (real Alertmanager, ClickHouse when installed, a collector serving /metrics) passes.
# Usage: diagnose.sh HOPWATCH-GEN HOPWATCH-COLLECTOR SOURCE_ROOT
set -u
here=$(dirname "$0")
. "$here/../collector/lib.sh"
. "$here/clickhouse_lib.sh"
gen=$1 col=$2 src=$3
need_root
dir=$(mktemp -d)
cleanup() {
  for p in ${cpid:-} ${apid:-}; do kill "$p" 2>/dev/null; done
  ch_stop
  wait 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
EAL=(-l 0-1 --no-huge --no-shconf -m 512 --no-pci --log-level=1)
closed=$(free_port)  # nobody listens there

# expect_fail NAME WHAT diagnose-args...: diagnose exits 1 with "FAIL NAME:" followed by a fix line
expect_fail() {
  local name=$1 what=$2; shift 2
  timeout 60 "$col" diagnose "$@" >"$dir/out" 2>"$dir/err"
  local rc=$?
  grep -A1 "^FAIL $name:" "$dir/out" >"$dir/line" || { cat "$dir/out" "$dir/err"; fail "$what: no 'FAIL $name' line"; }
  sed -n 2p "$dir/line" | grep -q '^  fix: .' || { cat "$dir/out"; fail "$what: FAIL $name has no fix line"; }
  [ $rc = 1 ] || { cat "$dir/out"; fail "$what: exit status $rc, want 1"; }
  echo "ok $what -> $(head -1 "$dir/line")"
}
expect_pass() {
  local name=$1 what=$2; shift 2
  timeout 60 "$col" diagnose "$@" >"$dir/out" 2>"$dir/err"
  local rc=$?
  grep -q "^PASS $name:" "$dir/out" || { cat "$dir/out" "$dir/err"; fail "$what: no 'PASS $name' line"; }
  echo "ok $what -> $(grep "^PASS $name:" "$dir/out")"
  return $rc
}

"$gen" reports --count 3000 --hops 2-4 --seed 3 --out "$dir/good.pcap" 2>/dev/null || fail "generator failed"
"$gen" reports --count 3000 --hops 2-4 --seed 3 --malform all:0.2 --out "$dir/bad.pcap" 2>/dev/null || fail "generator failed"
"$gen" reports --count 3000 --hops 2-4 --seed 3 --seq-gap-every 10 --out "$dir/loss.pcap" 2>/dev/null || fail "generator failed"
"$gen" reports --count 3000 --hops 2-4 --seed 3 --clock-skew 3:5000000 --out "$dir/skew.pcap" 2>/dev/null || fail "generator failed"
"$gen" reports --count 300 --seed 3 --dst-port 4000 --out "$dir/other.pcap" 2>/dev/null || fail "generator failed"

# a healthy capture: every receive check passes, exit 0
"$col" diagnose --pcap "$dir/good.pcap" >"$dir/out" 2>&1 || { cat "$dir/out"; fail "healthy capture: exit status $?"; }
for c in reports parse_errors report_loss clock_skew; do
  grep -q "^PASS $c:" "$dir/out" || { cat "$dir/out"; fail "healthy capture: $c did not pass"; }
done
grep -q '^FAIL' "$dir/out" && fail "healthy capture has a FAIL"
echo "ok healthy capture: reports, parse_errors, report_loss, clock_skew PASS; exit 0"

# hugepages, from a made-up /proc
mkdir -p "$dir/proc0" "$dir/proc1"
printf 'MemTotal: 1000 kB\nHugePages_Total:       0\nHugePages_Free:        0\nHugepagesize:       2048 kB\n' >"$dir/proc0/meminfo"
: >"$dir/proc0/mounts"
printf 'MemTotal: 1000 kB\nHugePages_Total:    1024\nHugePages_Free:     1000\nHugepagesize:       2048 kB\n' >"$dir/proc1/meminfo"
echo 'nodev /dev/hugepages hugetlbfs rw,relatime,pagesize=2M 0 0' >"$dir/proc1/mounts"
HOPWATCH_PROC=$dir/proc0 expect_fail hugepages "no hugepages reserved" -l 0-1 --no-pci -- --only hugepages
HOPWATCH_PROC=$dir/proc1 expect_pass hugepages "hugepages reserved and mounted" -l 0-1 --no-pci -- --only hugepages ||
  fail "hugepages present: exit status"
cp "$dir/proc1/meminfo" "$dir/proc0/meminfo"
HOPWATCH_PROC=$dir/proc0 expect_fail hugepages "hugepages without hugetlbfs" -l 0-1 --no-pci -- --only hugepages

# DPDK: no ports; a link that stays down; a port with no reports
expect_fail ports "no DPDK ports" "${EAL[@]}" -- --seconds 1
expect_fail link "memif port without a peer" "${EAL[@]}" --vdev="net_memif0,role=server,socket=$dir/memif.sock" -- --seconds 1
expect_fail reports "a port that receives nothing" "${EAL[@]}" --vdev="net_memif0,role=server,socket=$dir/memif.sock" -- --seconds 1
expect_pass reports "net_pcap port with reports" "${EAL[@]}" --vdev="net_pcap0,rx_pcap=$dir/good.pcap" -- --seconds 1 ||
  fail "DPDK with reports: exit status"
expect_fail reports "UDP traffic that is not reports" --pcap "$dir/other.pcap"

# what arrived
expect_fail parse_errors "20% malformed reports" --pcap "$dir/bad.pcap"
expect_fail report_loss "every 10th report lost" --pcap "$dir/loss.pcap"
expect_fail clock_skew "node 3's clock 5 ms off" --pcap "$dir/skew.pcap"
grep -q "node 0.0.0.3 is in" "$dir/line" || fail "clock skew: node 3 not named: $(cat "$dir/line")"
# switch clocks that read ns since the epoch: on this host's time, then 37 s ahead (TAI against UTC)
"$gen" reports --count 2000 --hops 2-4 --seed 3 --dev-clock-start 1767225600000000000 --out "$dir/utc.pcap" 2>/dev/null ||
  fail "generator failed"
"$gen" reports --count 2000 --hops 2-4 --seed 3 --dev-clock-start 1767225637000000000 --out "$dir/tai.pcap" 2>/dev/null ||
  fail "generator failed"
expect_pass clock_skew "switch clocks on the host's time scale" --pcap "$dir/utc.pcap" --only clock_skew ||
  fail "clock on time: exit status"
grep "^PASS clock_skew" "$dir/out" | grep -q "epoch timestamps within" || fail "epoch timestamps not compared: $(cat "$dir/out")"
expect_fail clock_skew "switch clocks 37 s ahead (TAI)" --pcap "$dir/tai.pcap" --only clock_skew
grep -q "37.000 s ahead" "$dir/line" || fail "TAI offset not measured: $(cat "$dir/line")"

# configuration
echo '{"sinks": {"clickhouse_batch_records": 0}}' >"$dir/bad.json"
expect_fail config "a config with a bad value" --config "$dir/bad.json" --pcap "$dir/good.pcap"
grep -q 'clickhouse_batch_records' "$dir/line" || fail "config: the bad key is not named"

# peers on a closed port
expect_fail clickhouse "ClickHouse URL on a closed port" --only clickhouse --clickhouse "http://127.0.0.1:$closed/?database=hopwatch"
expect_fail alertmanager "Alertmanager URL on a closed port" --only alertmanager --alertmanager "http://127.0.0.1:$closed"
expect_fail metrics "metrics URL not served" --only metrics --metrics "http://127.0.0.1:$closed/metrics"

# real peers: Alertmanager with the deploy/ example, a collector's /metrics, ClickHouse when installed
if command -v prometheus-alertmanager >/dev/null; then
  aport=$(free_port) cport=$(free_port)
  prometheus-alertmanager --config.file="$src/deploy/alertmanager/alertmanager.yml" --storage.path="$dir/am" \
    --web.listen-address="127.0.0.1:$aport" --cluster.listen-address= >"$dir/am.log" 2>&1 &
  apid=$!
  for _ in $(seq 600); do curl --max-time 10 -sf "http://127.0.0.1:$aport/-/healthy" >/dev/null && break; sleep 0.1; done
  expect_pass alertmanager "Alertmanager running the deploy/ example" --only alertmanager --alertmanager "http://127.0.0.1:$aport" ||
    fail "alertmanager up: exit status"
  # something that serves /metrics, but not a hopwatch collector's
  expect_fail metrics "/metrics of another program" --only metrics --metrics "http://127.0.0.1:$aport/metrics"
fi
mport=$(free_port)
"$col" "${EAL[@]}" --vdev="net_pcap0,rx_pcap=$dir/good.pcap" -- --metrics "127.0.0.1:$mport" --idle-exit 60 >/dev/null 2>"$dir/col.err" &
cpid=$!
for _ in $(seq 600); do curl --max-time 10 -sf "http://127.0.0.1:$mport/metrics" >/dev/null && break; sleep 0.1; done
echo "{\"sinks\": {\"metrics\": \"127.0.0.1:$mport\"}}" >"$dir/m.json"
expect_pass metrics "a running collector's /metrics, from sinks.metrics of --config" --only metrics,config --config "$dir/m.json" ||
  fail "metrics up: exit status"
kill "$cpid"; wait "$cpid"; cpid=
if ch_available && ch_start "$dir/ch"; then
  url="http://127.0.0.1:$CH_HTTP/?database=hopwatch"
  ch_query "CREATE DATABASE hopwatch" || fail "cannot create the database"
  expect_fail clickhouse "ClickHouse without the hops table" --only clickhouse --clickhouse "$url"
  ch_query "CREATE TABLE hopwatch.hops (time_ns UInt64, node_id UInt32) ENGINE = MergeTree ORDER BY time_ns"
  expect_fail clickhouse "a hops table that lacks record columns" --only clickhouse --clickhouse "$url"
  ch_query "DROP TABLE hopwatch.hops"
  ch_schema "$src/deploy/clickhouse/schema.sql" || fail "schema did not load"
  expect_pass clickhouse "ClickHouse with deploy/clickhouse/schema.sql" --only clickhouse --clickhouse "$url" ||
    fail "clickhouse up: exit status"
else
  echo "note: clickhouse-server not available: the ClickHouse PASS case was not run"
fi

# topology: hopwatch-analyzer (found beside the collector's build directory) places the records'
# (node, port)s on the leaf-spine of tests/topo/data; a map that covers every node and port passes
topo=$src/tests/topo/data/lldpd-json
if [ -d "$topo" ]; then
  "$gen" reports --count 500 --nodes 5 --hops 2-4 --seed 3 --out "$dir/n5.pcap" 2>/dev/null || fail "generator failed"
  python3 - "$dir" <<'PY'
import json, sys
names = ["spine1", "spine2", "leaf1", "leaf2", "leaf3"]
every_port = {str(i): "eth1" for i in range(1024)}   # every INT port number onto a port LLDP knows
json.dump({"nodes": [{"name": n, "node_id": i + 1, "ports": every_port} for i, n in enumerate(names)]},
          open(sys.argv[1] + "/map-all.json", "w"))
json.dump({"port_format": "eth%u", "nodes": [{"name": n, "node_id": i + 1} for i, n in enumerate(names)]},
          open(sys.argv[1] + "/map-some.json", "w"))
PY
  expect_pass topology "every INT port on the LLDP topology" --pcap "$dir/n5.pcap" --lldpd-json "$topo" \
    --map "$dir/map-all.json" --only topology || fail "topology placed: exit status"
  expect_fail topology "INT nodes and ports LLDP does not know" --pcap "$dir/good.pcap" --lldpd-json "$topo" \
    --map "$dir/map-some.json" --only topology
  grep -q "node_id 6 port" "$dir/line" || fail "topology: the unknown node 6 is not named"
fi
