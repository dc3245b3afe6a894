#!/usr/bin/env bash
# The main job on bundled sample data: install what is missing, build, run the DPDK collector on a
# net_pcap port replaying data/samples/fabric-reports.pcap (records as JSON lines and record files),
# draw the fabric topology from bundled lldpd dumps as SVG, and print a short summary.  Output: out/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/deps.sh
if [ -d build ]; then meson setup --reconfigure build >/dev/null; else meson setup build >/dev/null; fi
ninja -C build >/dev/null
rm -rf out && mkdir -p out/records
sample=data/samples/fabric-reports.pcap
col=build/collector/hopwatch-collector

echo "== collector: DPDK, net_pcap port replaying $sample"
if ! "$col" -l 0-1 --no-huge --no-shconf -m 512 --no-pci --log-level=3 --vdev="net_pcap0,rx_pcap=$sample" -- \
    --json out/records.jsonl --records-dir out/records --idle-exit 1 --lossless 2>out/collector-counts.txt; then
  echo "   (DPDK could not start here; falling back to the libpcap front end)"
  "$col" --pcap "$sample" --json out/records.jsonl --records-dir out/records 2>out/collector-counts.txt
fi
grep -E '^(port|packets|reports|records|not_report|report_packets_lost|queues_tracked|path_changes|json_written|files_written) ' \
  out/collector-counts.txt | sed 's/^/   /'
echo "   malformed packets by reason:"
grep -E '^(l2_|ip_|l4_|udp_|report_(truncated|version|length|type|md)|inner_|int_|too_many)' out/collector-counts.txt |
  sed 's/^/     /'

echo "== analyzer: topology from lldpd dumps (tests/topo/data/lldpd-json0)"
build/analyzer/hopwatch-analyzer topology --lldpd-json tests/topo/data/lldpd-json0 \
  --svg out/topology.svg --json out/topology.json --quiet || true

echo "== summary"
python3 - <<'PY'
import collections, json
recs = [json.loads(l) for l in open("out/records.jsonl")]
peak = collections.Counter()
for r in recs:
    if "queue_occupancy" in r:
        k = (r["node_id"], r.get("egress_port"), r["queue_id"])
        peak[k] = max(peak[k], r["queue_occupancy"])
print(f"   {len(recs)} hop records, {len({r['flow_hash'] for r in recs if 'flow_hash' in r})} flows, "
      f"{sum(1 for r in recs if 'dropped' in r['report_flags'])} hop records from drop reports")
print("   highest queue occupancy (node, egress port, queue: device units):")
for (n, p, q), v in peak.most_common(5):
    print(f"     node {n} port {p} queue {q}: {v}")
PY
echo "   out/records.jsonl, out/records/*.hwr (hopwatch-records prints them), out/topology.svg"
