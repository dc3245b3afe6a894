#!/usr/bin/env bash
# hopwatch-analyzer diagnose, each FAIL provoked: a config with an unknown key, an LLDP source that
# does not exist, records whose INT nodes the topology does not know, a stream socket nobody listens
# on, Alertmanager / ClickHouse / /metrics on a closed port, a server that is not Alertmanager, a
# ClickHouse without the table, a /metrics that is not the analyzer's.  Every FAIL has a fix line and
# makes the exit status 1; the same checks against a running analyzer (stream socket and /metrics), a
# real Alertmanager and ClickHouse (when installed) and the incast sample's topology and records PASS
# with exit status 0.
# Usage: analyzer_diagnose.sh HOPWATCH-GEN HOPWATCH-COLLECTOR HOPWATCH-ANALYZER SOURCE_ROOT
set -u
here=$(dirname "$0")
. "$here/../collector/lib.sh"
. "$here/clickhouse_lib.sh"
gen=$1 col=$2 an=$3 src=$4
dir=$(mktemp -d)
cleanup() {
  for p in ${apid:-} ${amid:-} ${hpid:-}; do stop_pid "$p"; done
  ch_stop
  wait 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
S=$src/data/samples/incast
closed=$(free_port)

expect() { # PASS|FAIL NAME WHAT diagnose-args...
  local want=$1 name=$2 what=$3; shift 3
  timeout 60 "$an" diagnose "$@" >"$dir/out" 2>"$dir/err"
  local rc=$?
  grep -A1 "^$want $name:" "$dir/out" >"$dir/line" || { cat "$dir/out" "$dir/err"; fail "$what: no '$want $name' line"; }
  if [ "$want" = FAIL ]; then
    sed -n 2p "$dir/line" | grep -q '^  fix: .' || { cat "$dir/out"; fail "$what: FAIL $name has no fix line"; }
    [ $rc = 1 ] || { cat "$dir/out"; fail "$what: exit status $rc, want 1"; }
  else
    [ $rc = 0 ] || { cat "$dir/out"; fail "$what: exit status $rc, want 0"; }
  fi
  echo "ok $what -> $(head -1 "$dir/line")"
}

"$an" diagnose >"$dir/out" || fail "no options: exit status $?"
[ "$(grep -c '^SKIP' "$dir/out")" = 7 ] || { cat "$dir/out"; fail "no options: want 7 SKIP lines"; }
"$an" diagnose --bogus >/dev/null 2>&1
[ $? = 2 ] || fail "an unknown option must exit 2"
"$an" diagnose --map "$S/map.json" >/dev/null 2>"$dir/err"
[ $? = 2 ] && grep -q -- "--map needs an LLDP source" "$dir/err" || fail "--map alone must exit 2 naming it"

# config
echo '{"high_queue": {"raise": 1}, "no_such_key": 1}' >"$dir/bad.json"
expect FAIL config "a config with an unknown key" --config "$dir/bad.json"
grep -q no_such_key "$dir/line" || fail "config: the unknown key is not named"
expect PASS config "deploy/systemd/analyzer.json" --config "$src/deploy/systemd/analyzer.json"

# topology and placement
"$col" --pcap "$S/reports.pcap" --json-out "$dir/incast.jsonl" --records-dir "$dir" 2>/dev/null || fail "collector failed"
"$gen" reports --count 300 --nodes 5 --hops 2-4 --seed 3 --out "$dir/other.pcap" 2>/dev/null || fail "generator failed"
"$col" --pcap "$dir/other.pcap" --json-out "$dir/other.jsonl" 2>/dev/null || fail "collector failed"
expect FAIL topology "an LLDP dump directory that does not exist" --lldpd-json "$dir/nowhere" --only topology
grep -q "$dir/nowhere" "$dir/line" || fail "topology: the missing source is not named"
expect FAIL placement "records of switches the topology does not know" --lldp "$S/lldp.pcap" --map "$S/map.json" \
  --jsonl "$dir/other.jsonl" --only topology,placement
grep -q "node_id [1-5] port" "$dir/line" || fail "placement: no unknown node named: $(cat "$dir/line")"
grep -q "^PASS topology" "$dir/out" || fail "placement: the topology itself should PASS"
expect PASS placement "the incast records (record file) on the incast topology" --lldp "$S/lldp.pcap" \
  --map "$S/map.json" --records "$dir"/records-*.hwr --only topology,placement

# peers on a closed port, or the wrong server
expect FAIL stream "a stream socket nobody listens on" --stream "unix:$dir/none.sock" --only stream
expect FAIL stream "a TCP stream address on a closed port" --stream "tcp:127.0.0.1:$closed" --only stream
expect FAIL alertmanager "Alertmanager on a closed port" --alertmanager "http://127.0.0.1:$closed" --only alertmanager
expect FAIL clickhouse "ClickHouse on a closed port" --clickhouse "http://127.0.0.1:$closed/" --only clickhouse
expect FAIL metrics "/metrics on a closed port" --metrics "127.0.0.1:$closed" --only metrics
mkdir "$dir/www"
printf '# TYPE hopwatch_collector_packets_total counter\nhopwatch_collector_packets_total 5\n' >"$dir/www/metrics"
hport=$(free_port)
(cd "$dir/www" && exec python3 -m http.server --bind 127.0.0.1 "$hport" >/dev/null 2>&1) &
hpid=$!
for _ in $(seq 600); do curl --max-time 10 -sf "http://127.0.0.1:$hport/metrics" >/dev/null && break; sleep 0.1; done
expect FAIL metrics "a collector's metrics, not the analyzer's" --metrics "http://127.0.0.1:$hport/metrics" --only metrics
grep -q "not with hopwatch_analyzer_records_total" "$dir/line" || fail "metrics: the missing series is not named"
expect FAIL alertmanager "a web server that is not Alertmanager" --alertmanager "http://127.0.0.1:$hport" --only alertmanager
grep -q "HTTP 404" "$dir/line" || fail "alertmanager: the status is not named"

# a running analyzer: its stream socket and its /metrics
mport=$(free_port)
"$an" run --stream "unix:$dir/rec.sock" --metrics "127.0.0.1:$mport" --duration 60 --quiet 2>"$dir/an.err" &
apid=$!
for _ in $(seq 600); do curl --max-time 10 -sf "http://127.0.0.1:$mport/metrics" >/dev/null && [ -S "$dir/rec.sock" ] && break; sleep 0.1; done
expect PASS stream "a running analyzer's stream socket" --stream "unix:$dir/rec.sock" --only stream
expect PASS metrics "a running analyzer's /metrics" --metrics "127.0.0.1:$mport" --only metrics
kill -0 "$apid" 2>/dev/null || { cat "$dir/an.err"; fail "the analyzer did not survive diagnose's connection"; }

am_bin=$(command -v alertmanager || command -v prometheus-alertmanager)
if [ -n "$am_bin" ]; then
  aport=$(free_port)
  "$am_bin" --config.file="$src/deploy/alertmanager/alertmanager.yml" --storage.path="$dir/am" \
    --web.listen-address="127.0.0.1:$aport" --cluster.listen-address= >"$dir/am.log" 2>&1 &
  amid=$!
  for _ in $(seq 600); do curl --max-time 10 -sf "http://127.0.0.1:$aport/-/ready" >/dev/null && break; sleep 0.1; done
  expect PASS alertmanager "Alertmanager running the deploy/ example" --alertmanager "http://127.0.0.1:$aport" --only alertmanager
else
  echo "note: Alertmanager not installed: its PASS case was not run"
fi
if ch_available && ch_start "$dir/ch"; then
  url="http://127.0.0.1:$CH_HTTP/?database=hopwatch"
  ch_query "CREATE DATABASE hopwatch" || fail "cannot create the database"
  expect FAIL clickhouse "ClickHouse without the hops table" --clickhouse "$url" --only clickhouse
  ch_schema "$src/deploy/clickhouse/schema.sql" || fail "schema did not load"
  expect FAIL clickhouse "a table name that does not exist" --clickhouse "$url" --clickhouse-table nosuch --only clickhouse
  expect PASS clickhouse "ClickHouse with deploy/clickhouse/schema.sql" --clickhouse "$url" --only clickhouse
  # everything at once: a healthy setup exits 0
  args=(--config "$src/deploy/systemd/analyzer.json" --lldp "$S/lldp.pcap" --map "$S/map.json" --jsonl "$dir/incast.jsonl"
    --stream "unix:$dir/rec.sock" --clickhouse "$url" --metrics "127.0.0.1:$mport")
  [ -n "$am_bin" ] && args+=(--alertmanager "http://127.0.0.1:$aport")
  "$an" diagnose "${args[@]}" >"$dir/out" 2>&1 || { cat "$dir/out"; fail "healthy setup: exit status $?"; }
  grep -q '^FAIL' "$dir/out" && { cat "$dir/out"; fail "healthy setup has a FAIL"; }
  echo "ok healthy setup: $(grep -c '^PASS' "$dir/out") PASS, exit 0"
else
  echo "note: clickhouse-server not available: the ClickHouse cases were not run"
fi
