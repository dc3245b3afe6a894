#!/usr/bin/env bash
# End to end, live: the incast scenario's reports are sent into one end of a veth pair in a network
# namespace this test creates; the collector captures them on the other end and streams records to
# the analyzer, which must raise Incast (and HighQueue) at the place truth.json says was injected.
# Usage: live_incast.sh HOPWATCH-GEN HOPWATCH-COLLECTOR HOPWATCH-ANALYZER SEND_PCAP.PY SOURCE_ROOT
set -u
gen=$1 col=$2 an=$3 send=$4 src=$5
. "$src/tests/collector/lib.sh"
need_root
ns=hwt-e2e-$$
dir=$(mktemp -d)
cleanup() {
  stop_pid "${cpid:-}"
  stop_pid "${apid:-}"
  ip netns del "$ns" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
make_veth_ns "$ns"
"$gen" scenario incast --out "$dir/s" >/dev/null 2>&1 || fail "scenario failed"
read -r node ifname queue <<<"$(python3 -c "import json,sys; e=[x for x in json.load(open(sys.argv[1]))['events'] \
  if x['kind'] == 'Incast'][0]['place']; print(e['node'], e['ifname'], e['queue'])" "$dir/s/truth.json")"

# the analyzer listens; the collector (live libpcap capture on rx0) streams to it
# Record time is capture time, and the sender plays the scenario's 5 ms STRETCH times slower (python
# cannot send 14000 reports in 5 ms), so every detector window of the defaults (docs/analyzer.md) is
# scaled by STRETCH here; the thresholds are the sample's.
stretch=400
python3 "$src/tests/tools/stretch.py" config "$src/data/samples/incast/analyzer.json" "$stretch" \
  >"$dir/analyzer.json" || fail "config"
"$an" run --stream "unix:$dir/stream.sock" --duration 30 --lldp "$dir/s/lldp.pcap" --map "$dir/s/map.json" \
  --config "$dir/analyzer.json" --events "$dir/events.jsonl" --svg-dir "$dir/svg" \
  >/dev/null 2>"$dir/an.err" &
apid=$!
for _ in $(seq 600); do [ -S "$dir/stream.sock" ] && break; sleep 0.1; done
[ -S "$dir/stream.sock" ] || { cat "$dir/an.err"; fail "the analyzer is not listening"; }
ip netns exec "$ns" "$col" --pcap rx0 --bpf "udp dst port 32766" --lossless --stream "unix:$dir/stream.sock" \
  >/dev/null 2>"$dir/col.err" &
cpid=$!
sleep 1
# the scenario's own timing, stretched (see the config above)
ip netns exec "$ns" python3 "$send" tx0 "$dir/s/reports.pcap" "x$stretch" >/dev/null || fail "sending failed"
sleep 1
stop_pid "$cpid"; cpid=
records=$(count records "$dir/col.err") sent=$(count stream_sent "$dir/col.err")
[ "$records" -gt 20000 ] || { cat "$dir/col.err"; fail "the collector decoded only $records records"; }
[ "$sent" = "$records" ] || fail "the collector streamed $sent of $records records"
stop_pid "$apid"; apid=
found=$(python3 - "$dir/events.jsonl" "$node" "$ifname" "$queue" <<'PY'
import json, sys
path, node, ifname, queue = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
kinds = set()
for line in open(path):
    e = json.loads(line)
    if e["state"] == "firing" and e.get("node") == node and e.get("port_name") == ifname and e.get("queue") == queue:
        kinds.add(e["event"])
print(" ".join(sorted(kinds)))
PY
)
case " $found " in *" Incast "*) ;; *) cat "$dir/an.err"; fail "no Incast at $node $ifname queue $queue (raised there: ${found:-nothing})";; esac
case " $found " in *" HighQueue "*) ;; *) fail "no HighQueue at $node $ifname queue $queue";; esac
# congestion graphs from the live stream (live, a raise is skipped rather than wait when 16 graphs are
# waiting to be drawn): every event that names an SVG has it, with its queue's badge by id
# (docs/analyzer.md), and the heat map is drawn at the end
python3 - "$dir/events.jsonl" "$dir/svg" <<'PY' || fail "congestion graphs"
import json, os, sys
import xml.etree.ElementTree as ET
ev = [json.loads(l) for l in open(sys.argv[1])]
drawn = [e for e in ev if e["state"] == "firing" and "svg" in e]
assert drawn, "no event graph"
for e in drawn:
    ids = {el.get("id") for el in ET.parse(e["svg"]).getroot().iter()}
    if "queue" in e and e.get("port_name"):
        assert f"q-{e['node']}.{e['port_name']}.{e['queue']}" in ids, (e["svg"], sorted(i for i in ids if i)[:20])
ET.parse(os.path.join(sys.argv[2], "heatmap.svg"))
print(f"live: {len(drawn)} event graphs, each with its queue's badge; heat map drawn")
PY
echo "ok live end to end: $records records captured and streamed; at $node $ifname queue $queue the analyzer raised: $found"
