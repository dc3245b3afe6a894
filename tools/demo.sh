#!/usr/bin/env bash
# The main job on bundled sample data (data/samples/incast, a generated leaf-spine fabric with an
# incast): install what is missing, build, run the DPDK collector on a net_pcap port replaying the
# fabric's telemetry reports, place every hop on the LLDP topology (SVG), run the analyzer's detectors.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/deps.sh
if [ -d build ]; then meson setup --reconfigure build >/dev/null; else meson setup build >/dev/null; fi
ninja -C build >/dev/null
rm -rf out && mkdir -p out/records
sample=data/samples/incast
col=build/collector/hopwatch-collector

echo "== collector: DPDK, net_pcap port replaying $sample/reports.pcap"
if ! "$col" -l 0-1 --no-huge --no-shconf -m 512 --no-pci --log-level=3 --vdev="net_pcap0,rx_pcap=$sample/reports.pcap" -- \
    --json-out out/records.jsonl --records-dir out/records --idle-exit 1 --lossless 2>out/collector-counts.txt; then
  echo "   (DPDK could not start here; falling back to the libpcap front end)"
  "$col" --pcap "$sample/reports.pcap" --json-out out/records.jsonl --records-dir out/records 2>out/collector-counts.txt
fi
grep -E '^(port0_rx|packets|reports|records|not_report|report_packets_lost|queues_tracked|path_changes|json_written|files_written) ' \
  out/collector-counts.txt | sed 's/^/   /'

echo "== analyzer: topology from the fabric's LLDP frames, every hop placed on it"
build/analyzer/hopwatch-analyzer topology --lldp "$sample/lldp.pcap" --map "$sample/map.json" \
  --jsonl out/records.jsonl --svg out/topology.svg --json-out out/topology.json | tail -3 | sed 's/^/   /'

# A real Alertmanager on loopback (prometheus-alertmanager, installed by deps.sh) with the shipped route
# (deploy/alertmanager/alertmanager.yml: one notification per incident, symptoms inhibited), its webhooks
# pointed at a receiver on loopback that keeps every notification in out/notifications.jsonl.
am_args=() am_pid= wh_pid=
am_bin=$(command -v alertmanager || command -v prometheus-alertmanager || true)
free_port() { python3 tools/netutil.py; }
if [ -n "$am_bin" ] && command -v amtool >/dev/null; then
  am_port=$(free_port) wh_port=$(free_port)
  : >out/notifications.jsonl
  python3 - "$wh_port" out/notifications.jsonl <<'PY' >out/webhook.log 2>&1 &
import http.server, json, sys
out = sys.argv[2]
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        with open(out, "a") as f:
            f.write(json.dumps(json.loads(body)) + "\n")
        self.send_response(200)
        self.end_headers()
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
PY
  wh_pid=$!
  sed "s#url: 'http://127.0.0.1:9095/hopwatch/#url: 'http://127.0.0.1:$wh_port/hopwatch/#" \
    deploy/alertmanager/alertmanager.yml >out/alertmanager.yml
  "$am_bin" --config.file=out/alertmanager.yml --storage.path=out/alertmanager-data \
    --web.listen-address="127.0.0.1:$am_port" --cluster.listen-address= >out/alertmanager.log 2>&1 &
  am_pid=$!
  # the trap's status becomes the script's: a bare kill (both stopped already, pids cleared) would exit 2
  trap 'kill $am_pid $wh_pid 2>/dev/null || true' EXIT
  for _ in $(seq 100); do
    amtool --alertmanager.url="http://127.0.0.1:$am_port" alert query >/dev/null 2>&1 && break
    sleep 0.1
  done
  am_args=(--alertmanager "http://127.0.0.1:$am_port" --hold 2)
fi

echo "== analyzer: detectors over the record files (thresholds derived from the fabric, no config file)"
build/analyzer/hopwatch-analyzer run --records out/records/*.hwr --lldp "$sample/lldp.pcap" --map "$sample/map.json" \
  --events out/events.jsonl --svg-dir out/svg "${am_args[@]}" --quiet
if [ -n "$am_pid" ]; then
  # the route flushes an incident's group 1 s after its first alert: wait until no notification came for 3 s
  last=-1 same=0
  for _ in $(seq 150); do
    n=$(wc -l <out/notifications.jsonl)
    if [ "$n" = "$last" ]; then same=$((same + 1)); else same=0 last=$n; fi
    [ "$n" -gt 0 ] && [ "$same" -ge 30 ] && break
    sleep 0.1
  done
  amtool --alertmanager.url="http://127.0.0.1:$am_port" alert query >out/alerts.txt 2>&1 || true
  echo "   Alertmanager (the shipped route) on 127.0.0.1:$am_port: $(($(wc -l <out/alerts.txt) - 1)) active alerts not" \
    "inhibited (amtool alert query: out/alerts.txt); notifications the webhook received (out/notifications.jsonl):"
  python3 - out/notifications.jsonl <<'PY'
import json, sys
for line in open(sys.argv[1]):
    n = json.loads(line)
    # the shipped route's receivers: incidents page; a burst outside any incident goes to the per-switch digest
    kind = "burst digest (low urgency)" if n.get("receiver") == "hopwatch-burst-digest" else "page"
    print(f"     {kind}: {n['status']}, incident {n['groupLabels'].get('incident', '-')}, {len(n['alerts'])} alert(s):")
    for a in n["alerts"]:
        print(f"       {a['annotations'].get('summary', a['labels'].get('alertname'))}")
PY
  kill "$am_pid" "$wh_pid" 2>/dev/null; wait "$am_pid" "$wh_pid" 2>/dev/null || true; am_pid= wh_pid=
fi

echo "== summary"
python3 - "$sample/truth.json" "$sample/map.json" <<'PY'
import collections, json, sys
truth = json.load(open(sys.argv[1]))
recs = [json.loads(l) for l in open("out/records.jsonl")]
peak = collections.Counter()
for r in recs:
    if "queue_occupancy" in r:
        k = (r["node_id"], r.get("egress_port"), r["queue_id"])
        peak[k] = max(peak[k], r["queue_occupancy"])
topo = json.load(open("out/topology.json"))
names = {n["node_id"]: n["name"] for n in topo["nodes"] if "node_id" in n}
port_format = json.load(open(sys.argv[2])).get("port_format", "%u")
def place(n, p):
    ip = ".".join(str(n >> s & 255) for s in (24, 16, 8, 0))
    return f"{names.get(n, ip)} ({ip}) port {port_format.replace('%u', str(p)) if n in names else p}"
print(f"   {len(recs)} hop records, {len({r['flow_hash'] for r in recs if 'flow_hash' in r})} flows, "
      f"{sum(1 for r in recs if 'dropped' in r['report_flags'])} from drop reports")
print("   highest queue occupancy seen in the reports (node, egress port, queue: bytes):")
for (n, p, q), v in peak.most_common(3):
    print(f"     {place(n, p)} queue {q}: {v}")
raised = collections.Counter()
where = collections.defaultdict(set)
for line in open("out/events.jsonl"):
    e = json.loads(line)
    # an update ("update": true) is an alert raised already, with new numbers: not another raise
    if e["state"] == "firing" and e["event"] != "LinkUp" and not e.get("update"):
        raised[e["event"]] += 1
        where[(e.get("node"), e.get("port_name"), e.get("queue"))].add(e["event"])
print("   analyzer events raised: " + ", ".join(f"{k} {v}" for k, v in raised.most_common()))
for e in truth.get("events", []):
    p = e.get("place", {})
    here = sorted(where.get((p.get("node"), p.get("ifname"), p.get("queue")), ()))
    print(f"   injected (truth.json): {e.get('kind')} at {p.get('node')} {p.get('ifname')} queue {p.get('queue')}; "
          f"analyzer raised there: {', '.join(here) or 'nothing'}")
PY
echo "   scored against the injected truth (tools/score_events.py; HighQueue judged on the records, QueueBuildup on the simulated queue):"
python3 tools/score_events.py "$sample/truth.json" out/events.jsonl --jsonl out/records.jsonl | sed 's/^/   /'
echo "   outputs: out/records.jsonl, out/records/*.hwr (hopwatch-records prints them), out/topology.svg, out/events.jsonl, out/alerts.txt,"
echo "   out/notifications.jsonl (what reached the webhook),"
echo "   out/svg/: event graphs event-<ns>-<id>-<alertname>.svg ($(ls out/svg | sed -n 's/^event-[0-9]*-[0-9]*-\(.*\)\.svg$/\1/p' |
  sort | uniq -c | awk '{printf "%s%s %s", (NR > 1 ? ", " : ""), $2, $1}'); newest event-latest.svg), heat map heatmap.svg,"
echo "   latency matrix latency-matrix.csv/.svg"
