#!/usr/bin/env bash
# deploy/ checked by the tools that consume it: promtool (config, rules, rule unit tests), amtool,
# systemd-analyze (units), the analyzer unit's own command line run (paths swapped for test files)
# with a collector streaming the incast sample into it, and every PromQL expression of the dashboards
# and rules against the metric names a running collector (DPDK net_pcap, ClickHouse sink configured)
# and that analyzer serve on /metrics.
# Usage: deploy_check.sh HOPWATCH-GEN HOPWATCH-COLLECTOR SOURCE_ROOT HOPWATCH-ANALYZER
set -u
here=$(dirname "$0")
. "$here/../collector/lib.sh"
gen=$1 col=$2 src=$3 an=$4
need_root
for t in promtool amtool curl; do command -v $t >/dev/null || skip "$t not installed"; done
dir=$(mktemp -d)
cleanup() {
  for p in ${cpid:-} ${apid:-} ${lpid:-}; do stop_pid "$p"; done
  wait 2>/dev/null
  [ -n "${ns:-}" ] && ip netns del "$ns" 2>/dev/null
  rm -rf "$dir"
}
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
  # every unit's exposure at most 4.0 (docs/operations.md quotes each figure); the template as an instance
  mkdir -p "$dir/units"
  for u in "$d"/systemd/*.service; do
    n=$(basename "$u")
    case $n in *@.service) n=${n%@.service}@eth1.service ;; esac
    cp "$u" "$dir/units/$n"
    e=$(systemd-analyze security --offline=yes "$dir/units/$n" 2>&1 | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\) .*/\1/p')
    [ -n "$e" ] || fail "systemd-analyze security gave no exposure for $n"
    awk -v e="$e" 'BEGIN {exit !(e <= 4.0)}' || fail "$n: exposure $e, more than 4.0"
    echo "ok systemd-analyze security $n: $e"
  done
fi
"$col" diagnose --config "$d/systemd/collector.json" --only config >"$dir/c.log" 2>&1 ||
  { cat "$dir/c.log"; fail "the example collector.json does not load"; }
"$an" diagnose --config "$d/systemd/analyzer.json" --only config >"$dir/c.log" 2>&1 ||
  { cat "$dir/c.log"; fail "the example analyzer.json does not load"; }
grep -q '"stream": "unix:/run/hopwatch-analyzer/records.sock"' "$d/systemd/collector.json" &&
  grep -q -- '--stream unix:/run/hopwatch-analyzer/records.sock' "$d/systemd/hopwatch-analyzer.service" ||
  fail "collector.json's sinks.stream and the analyzer unit's --stream differ"

# the analyzer unit's ExecStart, as systemd would run it, on test paths; the collector streams the
# incast sample into it through the socket of collector.json
S=$src/data/samples/incast
aport=$(free_port) closed=$(free_port)
python3 - "$d/systemd/hopwatch-analyzer.service" "$dir/analyzer.cmd" "$closed" "$aport" "$an" "$dir" "$S" "$d" <<'PY' ||
import re, shlex, sys
unit_path, out, closed, aport, an, tmp, sample, deploy = sys.argv[1:]
unit = open(unit_path).read().replace("\\\n", " ")
env = dict(re.findall(r"^Environment=(\w+)=(\S+)$", unit, re.M))
env.update(HOPWATCH_ALERTMANAGER="http://127.0.0.1:" + closed, HOPWATCH_ANALYZER_METRICS="127.0.0.1:" + aport)
cmd = re.search(r"^ExecStart=(.*)$", unit, re.M).group(1)
cmd = re.sub(r"\$\{(\w+)\}", lambda m: env[m.group(1)], cmd)
for old, new in (("/usr/bin/hopwatch-analyzer", an), ("/run/hopwatch-analyzer/records.sock", tmp + "/records.sock"),
                 ("/var/lib/hopwatch/lldp", sample + "/lldp"), ("/etc/hopwatch/map.json", sample + "/map.json"),
                 ("/etc/hopwatch/analyzer.json", deploy + "/systemd/analyzer.json"),
                 ("/var/lib/hopwatch/events.jsonl", tmp + "/events.jsonl")):
    cmd = cmd.replace(old, new)
left = re.findall(r"(?<![\w.-])/(?:etc|var|run|usr)/\S*", cmd)
if left:
    sys.exit("paths of the unit the test does not replace: %s" % left)
open(out, "w").write("\n".join(shlex.split(cmd)) + "\n")
PY
  fail "cannot take ExecStart from the analyzer unit"
mapfile -t acmd <"$dir/analyzer.cmd"
"${acmd[@]}" >"$dir/an.out" 2>"$dir/an.err" &
apid=$!
for _ in $(seq 300); do [ -S "$dir/records.sock" ] && curl --max-time 10 -sf "http://127.0.0.1:$aport/metrics" >/dev/null && break; sleep 0.1; done
[ -S "$dir/records.sock" ] || { cat "$dir/an.err"; fail "the analyzer unit's command did not come up"; }
"$col" --pcap "$S/reports.pcap" --stream "unix:$dir/records.sock" 2>"$dir/cs.err" >/dev/null || { cat "$dir/cs.err"; fail "collector streaming failed"; }
sent=$(count stream_sent "$dir/cs.err")
ok=
for _ in $(seq 300); do
  curl --max-time 10 -sf "http://127.0.0.1:$aport/metrics" -o "$dir/am.txt" &&
    grep -q "^hopwatch_analyzer_records_total $sent\$" "$dir/am.txt" && { ok=1; break; }
  sleep 0.1
done
[ -n "$ok" ] || { grep records_total "$dir/am.txt"; fail "the analyzer did not count the $sent records streamed to it"; }
grep -q '^hopwatch_analyzer_link_congestion_score{link=' "$dir/am.txt" || fail "no link congestion scores: the unit's topology did not load"
grep -q '^hopwatch_analyzer_records_placed_total{placed="no"} 0$' "$dir/am.txt" || fail "the unit's topology does not place every record"
promtool check metrics <"$dir/am.txt" >"$dir/lint.txt" 2>&1 || { cat "$dir/lint.txt"; fail "promtool check metrics (analyzer)"; }
echo "ok the analyzer unit's command line: $sent records streamed by the collector, all placed, /metrics served"

python3 "$d/grafana/make_dashboards.py" "$dir/boards" || fail "make_dashboards.py failed"
for f in "$d"/grafana/dashboards/*.json; do
  cmp -s "$f" "$dir/boards/$(basename "$f")" || fail "$f differs from what make_dashboards.py writes"
done

mport=$(free_port)
"$gen" reports --format tr2.0 --count 500 --seq-gap-every 40 --drop-rate 0.1 --seed 5 --out "$dir/r.pcap" 2>/dev/null ||
  fail "generator failed"
# ClickHouse on a closed port: the sink's series are served all the same
"$col" -l 0-1 "${EAL_COMMON[@]}" --vdev="net_pcap0,rx_pcap=$dir/r.pcap" -- --metrics "127.0.0.1:$mport" \
  --clickhouse http://127.0.0.1:1/ --idle-exit 60 >/dev/null 2>"$dir/col.err" &
cpid=$!
ok=
for _ in $(seq 300); do
  curl --max-time 10 -sf "http://127.0.0.1:$mport/metrics" -o "$dir/m.txt" && grep -q '^hopwatch_queue_hop_latency_seconds_bucket' "$dir/m.txt" && { ok=1; break; }
  sleep 0.1
done
[ -n "$ok" ] || { cat "$dir/col.err"; fail "the collector's /metrics did not come up"; }
promtool check metrics <"$dir/m.txt" >"$dir/lint.txt" 2>&1 || { cat "$dir/lint.txt"; fail "promtool check metrics (with the ClickHouse sink's series)"; }
grep -q '^hopwatch_collector_clickhouse_retries_total' "$dir/m.txt" || fail "no ClickHouse sink series on /metrics"
# a libpcap collector on a live interface serves the kernel's drop counts as well: scrape one too
ns=hwt-deploy-$$
make_veth_ns "$ns"
lport=$(free_port)
ip netns exec "$ns" "$col" --pcap rx0 --metrics "127.0.0.1:$lport" --status-interval 0 >/dev/null 2>"$dir/live.err" &
lpid=$!
ok=
for _ in $(seq 300); do
  ip netns exec "$ns" curl --max-time 10 -sf "http://127.0.0.1:$lport/metrics" -o "$dir/ml.txt" &&
    grep -q '^hopwatch_collector_pcap_dropped_packets_total' "$dir/ml.txt" && { ok=1; break; }
  sleep 0.1
done
stop_pid "$lpid"
ip netns del "$ns"
[ -n "$ok" ] || { cat "$dir/live.err"; fail "the live libpcap collector's /metrics did not come up"; }
python3 "$here/promql_names.py" "$dir/m.txt,$dir/am.txt,$dir/ml.txt" "$d/prometheus/hopwatch-rules.yml" "$d"/grafana/dashboards/*.json ||
  fail "dashboards or rules name metrics neither the collector nor the analyzer exports"
