#!/usr/bin/env bash
# A real Prometheus (Debian's prometheus, on loopback, with its own data directory) scrapes the
# collector's /metrics; queries return the counts the generated capture implies, and the endpoint
# passes promtool check metrics.
# Usage: prometheus_scrape.sh HOPWATCH-GEN HOPWATCH-COLLECTOR
set -u
. "$(dirname "$0")/lib.sh"
gen=$1 col=$2
need_root
command -v prometheus >/dev/null || skip "prometheus not installed"
command -v promtool >/dev/null || skip "promtool not installed"
command -v curl >/dev/null || skip "curl not installed"
dir=$(mktemp -d)
cleanup() {
  stop_pid "${cpid:-}"
  stop_pid "${ppid_:-}"
  rm -rf "$dir"
}
trap cleanup EXIT
mport=$(free_port) pport=$(free_port)

"$gen" reports --format tr2.0 --count 4000 --seq-gap-every 40 --seed 31 --out "$dir/r.pcap" --truth "$dir/t.jsonl" \
  2>/dev/null || fail "generator failed"
want_records=$(grep -c . "$dir/t.jsonl")
"$col" -l 0-1 "${EAL_COMMON[@]}" --vdev="net_pcap0,rx_pcap=$dir/r.pcap" -- --metrics "127.0.0.1:$mport" \
  --idle-exit 120 >/dev/null 2>"$dir/col.err" &
cpid=$!
wait_metrics_records "$mport" "$want_records" "$dir/m.txt" ||
  { cat "$dir/col.err"; fail "the collector's /metrics never showed $want_records records"; }
promtool check metrics <"$dir/m.txt" >"$dir/lint.txt" 2>&1 || { cat "$dir/lint.txt"; fail "promtool check metrics"; }
curl --max-time 10 -s -D "$dir/h.txt" -o /dev/null "http://127.0.0.1:$mport/metrics"
grep -qi '^content-type: text/plain; version=0.0.4' "$dir/h.txt" || fail "wrong content type: $(grep -i content-type "$dir/h.txt")"
code=$(curl --max-time 10 -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$mport/nope")
[ "$code" = 404 ] || fail "unknown path answered $code"

cat >"$dir/prom.yml" <<YML
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: hopwatch
    static_configs:
      - targets: ['127.0.0.1:$mport']
YML
prometheus --config.file="$dir/prom.yml" --storage.tsdb.path="$dir/data" \
  --web.listen-address="127.0.0.1:$pport" >"$dir/prom.log" 2>&1 &
ppid_=$!
query() { curl --max-time 10 -sf "http://127.0.0.1:$pport/api/v1/query" --data-urlencode "query=$1" |
  python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "none")'; }
got=none
for _ in $(seq 600); do # up to 2 minutes: Prometheus starts slowly on a loaded host
  got=$(query 'hopwatch_collector_records_total{job="hopwatch"}' 2>/dev/null || echo none)
  [ "$got" = "$want_records" ] && break
  sleep 0.2
done
[ "$got" = "$want_records" ] || { tail -5 "$dir/prom.log"; fail "Prometheus query returned $got, want $want_records"; }
lost_truth=$(truth_report_loss "$dir/t.jsonl")
lost=$(query 'sum(hopwatch_report_packets_lost_total)')
[ "$lost" = "$lost_truth" ] || fail "Prometheus: report loss $lost, the sequence gaps say $lost_truth"
queues=$(query 'count(hopwatch_queue_reports_total)')
[ "$queues" != none ] && [ "$queues" -gt 10 ] || fail "Prometheus: only $queues queue series"
# The occupancy histogram against the generator's truth (occupancy unit 1 byte by default): samples,
# sum, and the samples at or under 1024 bytes, over all queues.
read -r occ_n occ_sum occ_1k < <(python3 -c '
import json, sys
occ = [r["queue_occupancy"] for r in map(json.loads, open(sys.argv[1])) if "queue_occupancy" in r]
print(len(occ), sum(occ), sum(1 for v in occ if v <= 1024))' "$dir/t.jsonl")
n=$(query 'sum(hopwatch_queue_occupancy_observed_bytes_count)')
[ "$n" = "$occ_n" ] || fail "Prometheus: $n occupancy samples, the truth has $occ_n"
sum=$(query 'sum(hopwatch_queue_occupancy_observed_bytes_sum)')
[ "$sum" = "$occ_sum" ] || fail "Prometheus: occupancy sum $sum, the truth says $occ_sum"
le1k=$(query 'sum(hopwatch_queue_occupancy_observed_bytes_bucket{le="1024"})')
[ "$le1k" = "$occ_1k" ] || fail "Prometheus: $le1k occupancy samples <= 1024 bytes, the truth has $occ_1k"
echo "ok Prometheus scraped /metrics: records $got, report loss $lost, $queues queue series," \
  "occupancy histogram $n samples ($le1k <= 1 KiB); promtool clean"
kill -TERM "$cpid"; wait "$cpid" || fail "collector exit status after SIGTERM"
cpid=
