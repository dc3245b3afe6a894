#!/usr/bin/env bash
# ClickHouse never reachable (issue 22 item 9: a run exited 0 with 100 % of records dropped): every record
# is counted as inserted or dropped, the run says how many were dropped and exits 1.
# Usage: clickhouse_down_exit.sh HOPWATCH-GEN HOPWATCH-COLLECTOR
set -u
. "$(dirname "$0")/lib.sh"
gen=$1 col=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
closed=$(free_port) # nothing listens there: every insert fails
"$gen" reports --format tr2.0 --count 200 --hops 2-4 --seed 7 --out "$dir/r.pcap" 2>"$dir/gen.err" ||
  fail "generator failed"
want=$(awk '$1 == "records" {print $2}' "$dir/gen.err")
[ "${want:-0}" -gt 0 ] || fail "the generator wrote no records"
echo '{ "sinks": { "clickhouse_drain_seconds": 1 } }' >"$dir/cfg.json"
timeout 120 "$col" --pcap "$dir/r.pcap" --config "$dir/cfg.json" --clickhouse "http://127.0.0.1:$closed/" \
  --status-interval 0 >/dev/null 2>"$dir/col.err"
rc=$?
[ "$rc" = 1 ] || { cat "$dir/col.err"; fail "exit status $rc with every record dropped, want 1"; }
ins=$(count clickhouse_inserted "$dir/col.err") dropped=$(count clickhouse_dropped "$dir/col.err")
# nothing can be inserted, so all the generator's records are dropped: inserted 0 + dropped = records
[ "$ins" = 0 ] || fail "clickhouse_inserted $ins with ClickHouse on a closed port"
[ "$dropped" = "$want" ] || { cat "$dir/col.err"; fail "clickhouse_dropped $dropped, want all $want records"; }
grep -q "^hopwatch-collector: clickhouse: $want records dropped" "$dir/col.err" ||
  { cat "$dir/col.err"; fail "no line saying $want records were dropped"; }
echo "ok ClickHouse down: $dropped of $want records dropped, counted, exit 1"
