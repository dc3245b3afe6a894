#!/usr/bin/env bash
# One name for each switch (issue 16): the collector given the topology's names file (`hopwatch-analyzer
# topology --names-out`, `--names`) and the analyzer given the same LLDP and map, both scraped by a real
# Prometheus: every switch the collector reports carries the same node and node_name label values as the
# analyzer's hopwatch_analyzer_node_info and its alerts (events file), ports their LLDP names; a names file
# rewritten while running is read at the next scrape.
# Usage: names_labels.sh HOPWATCH-GEN HOPWATCH-COLLECTOR HOPWATCH-ANALYZER SRC
set -u
gen=$1 col=$2 an=$3 src=$4
. "$src/tests/collector/lib.sh"
need_root
command -v prometheus >/dev/null || skip "prometheus not installed"
command -v curl >/dev/null || skip "curl not installed"
T=$(mktemp -d)
cleanup() {
  stop_pid "${cpid:-}"
  stop_pid "${apid:-}"
  stop_pid "${ppid_:-}"
  rm -rf "$T"
}
trap cleanup EXIT
CP=$(free_port) AP=$(free_port) PP=$(free_port)

"$gen" scenario incast --out "$T/s" --write-records >/dev/null 2>&1 || fail "hopwatch-gen scenario incast"
"$an" topology --lldp "$T/s/lldp.pcap" --map "$T/s/map.json" --names-out "$T/names.tsv" --quiet >/dev/null ||
  fail "hopwatch-analyzer topology --names-out"
grep -q "^node" "$T/names.tsv" && grep -q "^port" "$T/names.tsv" || fail "names file without nodes or ports"

# the collector reads the capture (net_pcap) and keeps serving /metrics; the analyzer replays the records
# and holds, serving its /metrics
"$col" -l 0-1 "${EAL_COMMON[@]}" --vdev="net_pcap0,rx_pcap=$T/s/reports.pcap" -- --metrics "127.0.0.1:$CP" \
  --names "$T/names.tsv" --idle-exit 300 >/dev/null 2>"$T/col.err" &
cpid=$!
"$an" run --jsonl "$T/s/records.jsonl" --lldp "$T/s/lldp.pcap" --map "$T/s/map.json" --metrics "127.0.0.1:$AP" \
  --events "$T/ev.jsonl" --hold 300 --quiet 2>"$T/an.err" &
apid=$!
cat >"$T/prom.yml" <<Y
global: {scrape_interval: 1s}
scrape_configs:
  - job_name: hopwatch-collector
    static_configs: [{targets: ['127.0.0.1:$CP']}]
  - job_name: hopwatch-analyzer
    static_configs: [{targets: ['127.0.0.1:$AP']}]
Y
prometheus --config.file="$T/prom.yml" --storage.tsdb.path="$T/prom" --web.listen-address="127.0.0.1:$PP" \
  >"$T/prom.log" 2>&1 &
ppid_=$!
# {node: node_name} over a query's series, as JSON
pairs() {
  curl --max-time 10 -sf "http://127.0.0.1:$PP/api/v1/query" --data-urlencode "query=$1" | python3 -c '
import json, sys
r = json.load(sys.stdin)["data"]["result"]
print(json.dumps(sorted({(x["metric"]["node"], x["metric"].get("node_name", "")) for x in r})))'
}
want=$(python3 - "$T/names.tsv" <<'PY'
import json, sys
# the names file's nodes by dotted node id (a.b.c.d of the 32-bit INT node id), written by the topology
print(json.dumps(sorted(("%d.%d.%d.%d" % tuple(int(f[1]) >> k & 255 for k in (24, 16, 8, 0)), f[2])
                        for f in (l.rstrip("\n").split("\t") for l in open(sys.argv[1])) if f[0] == "node")))
PY
)
n_rec=$(wc -l <"$T/s/records.jsonl")
ok=
for _ in $(seq 600); do # up to 2 minutes: Prometheus starts slowly on a loaded host
  c=$(pairs 'count by (node, node_name) (hopwatch_queue_reports_total{job="hopwatch-collector"})' 2>/dev/null)
  a=$(pairs 'hopwatch_analyzer_node_info{job="hopwatch-analyzer"}' 2>/dev/null)
  # the replay done (every record taken, so every event written to the events file)
  done_=$(curl --max-time 10 -sf "http://127.0.0.1:$AP/metrics" | grep -c "^hopwatch_analyzer_records_total $n_rec\$")
  [ -n "$c" ] && [ "$c" != "[]" ] && [ "$a" = "$want" ] && [ "$done_" = 1 ] && ok=1 && break
  sleep 0.2
done
[ -n "$ok" ] || { tail -3 "$T/col.err" "$T/an.err" "$T/prom.log"; fail "no series: collector $c, analyzer $a, replay done $done_"; }
python3 - "$c" "$want" "$T/ev.jsonl" "$T/names.tsv" "http://127.0.0.1:$CP/metrics" <<'PY' || exit 1
import json, re, sys, urllib.request
col = [tuple(p) for p in json.loads(sys.argv[1])]
want = dict(tuple(p) for p in json.loads(sys.argv[2]))
bad = []
# every switch the collector reports: the analyzer's node_name for the same node label value
for node, name in col:
    if want.get(node) != name:
        bad.append(f"collector series node={node} node_name={name!r}; the analyzer's: {want.get(node)!r}")
# the alerts (events file): node id, dotted, and node name as on the collector's series
alerts = [json.loads(l) for l in open(sys.argv[3]) if l.endswith("\n")]  # whole lines (flushed per batch)
named = {(("%d.%d.%d.%d" % tuple(e["node_id"] >> k & 255 for k in (24, 16, 8, 0))), e["node"])
         for e in alerts if e.get("node_id") and e.get("node")}
for node, name in sorted(named):
    if (node, name) not in col:
        bad.append(f"alert at node={node} node_name={name}: no collector series with those labels")
# port names: every queue series of a port the names file names carries it as port_name
ports = {(f[1], f[2]): f[3] for f in (l.rstrip("\n").split("\t") for l in open(sys.argv[4])) if f[0] == "port"}
text = urllib.request.urlopen(sys.argv[5], timeout=10).read().decode()
n_ports = 0
for m in re.finditer(r'^hopwatch_queue_reports_total\{node="([\d.]+)"(?:,node_name="[^"]*")?,port="(\d+)"(,port_name="([^"]*)")?', text, re.M):
    a, b, c_, d = (int(x) for x in m.group(1).split("."))
    nid = str(a << 24 | b << 16 | c_ << 8 | d)
    exp = ports.get((nid, m.group(2)))
    n_ports += exp is not None
    if m.group(4) != exp:
        bad.append(f"queue series {m.group(0)}: port_name {m.group(4)!r}, the names file says {exp!r}")
for b in bad:
    print("FAIL: " + b)
print(f"{len(col)} switches on the collector's series, {len(named)} alert places, {n_ports} named port series: "
      f"{'same labels' if not bad else 'mismatch'}")
sys.exit(1 if bad else 0)
PY

# rewritten while running (a new file moved into place): the next scrape carries the new name
node=$(python3 -c 'import json,sys; a,b,c,d = map(int, json.loads(sys.argv[1])[0][0].split(".")); print(a << 24 | b << 16 | c << 8 | d)' "$c")
awk -F'\t' -v OFS='\t' -v n="$node" '$1 == "node" && $2 == n {$3 = "renamed-switch"} {print}' "$T/names.tsv" >"$T/names.new"
mv "$T/names.new" "$T/names.tsv"
ok=
for _ in $(seq 100); do
  curl --max-time 10 -sf "http://127.0.0.1:$CP/metrics" -o "$T/m.txt" && grep -q 'node_name="renamed-switch"' "$T/m.txt" &&
    ok=1 && break
  sleep 0.1
done
[ -n "$ok" ] || fail "the rewritten names file was not read"
echo PASS
