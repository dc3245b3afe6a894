#!/usr/bin/env bash
# deploy/ checked by the tools that consume it: promtool (config, rules, rule unit tests), amtool,
# systemd-analyze (units), and every PromQL expression of the dashboards and rules against the
# metric names a running collector serves on /metrics (DPDK net_pcap, ClickHouse sink configured).
# Usage: deploy_check.sh HOPWATCH-GEN HOPWATCH-COLLECTOR SOURCE_ROOT
set -u
here=$(dirname "$0")
. "$here/../collector/lib.sh"
gen=$1 col=$2 src=$3
need_root
for t in promtool amtool curl; do command -v $t >/dev/null || skip "$t not installed"; done
dir=$(mktemp -d)
cleanup() { [ -n "${cpid:-}" ] && kill "$cpid" 2>/dev/null; wait 2>/dev/null; rm -rf "$dir"; }
trap cleanup EXIT
d=$src/deploy

promtool check config "$d/prometheus/prometheus.yml" >"$dir/p.log" 2>&1 || { cat "$dir/p.log"; fail "promtool check config"; }
promtool check rules "$d/prometheus/hopwatch-rules.yml" >"$dir/p.log" 2>&1 || { cat "$dir/p.log"; fail "promtool check rules"; }
promtool test rules "$d/prometheus/hopwatch-rules.test.yml" >"$dir/p.log" 2>&1 || { cat "$dir/p.log"; fail "promtool test rules"; }
amtool check-config "$d/alertmanager/alertmanager.yml" >"$dir/a.log" 2>&1 || { cat "$dir/a.log"; fail "amtool check-config"; }
echo "ok promtool check config, check rules, test rules; amtool check-config"

if command -v systemd-analyze >/dev/null; then
  # the units name /usr/bin/hopwatch-*, which a build tree does not install: that complaint only
  (cd "$d/systemd" && for u in *.service *.timer; do systemd-analyze verify --man=no "./$u" 2>&1; done) |
    grep -v 'is not executable: No such file or directory' | grep . >"$dir/s.log" && { cat "$dir/s.log"; fail "systemd-analyze verify"; }
  echo "ok systemd-analyze verify: $(ls "$d/systemd" | grep -c '\.service\|\.timer') units"
fi
"$col" diagnose --config "$d/systemd/collector.json" --only config >"$dir/c.log" 2>&1 ||
  { cat "$dir/c.log"; fail "the example collector.json does not load"; }

python3 "$d/grafana/make_dashboards.py" "$dir/boards" || fail "make_dashboards.py failed"
for f in "$d"/grafana/dashboards/*.json; do
  cmp -s "$f" "$dir/boards/$(basename "$f")" || fail "$f differs from what make_dashboards.py writes"
done

mport=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$gen" reports --format tr2.0 --count 500 --seq-gap-every 40 --drop-rate 0.1 --seed 5 --out "$dir/r.pcap" 2>/dev/null ||
  fail "generator failed"
# ClickHouse on a closed port: the sink's series are served all the same
"$col" -l 0-1 "${EAL_COMMON[@]}" --vdev="net_pcap0,rx_pcap=$dir/r.pcap" -- --metrics "127.0.0.1:$mport" \
  --clickhouse http://127.0.0.1:1/ --idle-exit 60 >/dev/null 2>"$dir/col.err" &
cpid=$!
ok=
for _ in $(seq 100); do
  curl --max-time 10 -sf "http://127.0.0.1:$mport/metrics" -o "$dir/m.txt" && grep -q '^hopwatch_queue_hop_latency_seconds_bucket' "$dir/m.txt" && { ok=1; break; }
  sleep 0.1
done
[ -n "$ok" ] || { cat "$dir/col.err"; fail "the collector's /metrics did not come up"; }
promtool check metrics <"$dir/m.txt" >"$dir/lint.txt" 2>&1 || { cat "$dir/lint.txt"; fail "promtool check metrics (with the ClickHouse sink's series)"; }
grep -q '^hopwatch_collector_clickhouse_retries_total' "$dir/m.txt" || fail "no ClickHouse sink series on /metrics"
python3 "$here/promql_names.py" "$dir/m.txt" "$d/prometheus/hopwatch-rules.yml" "$d"/grafana/dashboards/*.json ||
  fail "dashboards or rules name metrics the collector does not export"
