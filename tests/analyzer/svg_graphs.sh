#!/usr/bin/env bash
# Congestion-path graphs: generated scenarios (incast, microburst, link-down) replayed through
# `hopwatch-analyzer run --svg-dir`; check_svgs.py checks the SVGs against truth.json.  Then the bounds:
# the per-alertname rate, the number of files kept, the periodic heat map, and bad usage.
# Usage: svg_graphs.sh HOPWATCH-GEN HOPWATCH-ANALYZER SOURCE_ROOT
set -u
gen=$(realpath "$1") an=$(realpath "$2") src=$(realpath "$3")
fail() { echo "FAIL: $*"; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cfg=$src/data/samples/incast/analyzer.json
status=0
run() { # scenario, svg dir, extra options
  local s=$1 out=$2
  shift 2
  "$an" run --jsonl "$dir/$s/records.jsonl" --lldp "$dir/$s/lldp.pcap" --map "$dir/$s/map.json" --config "$cfg" \
    --svg-dir "$out" --summary-json - "$@" 2>"$out.err"
}
for s in incast microburst link-down; do
  mkdir -p "$dir/$s"
  "$gen" scenario "$s" --out "$dir/$s" --write-records >/dev/null 2>&1 || fail "scenario $s failed"
  echo "== $s"
  (cd "$dir/$s" && run "$s" svg --events events.jsonl --svg-rate 0 --svg-keep 0) ||
    { cat "$dir/$s/svg.err"; fail "analyzer failed on $s"; }
  grep '^{"records"' "$dir/$s/svg.err"
  (cd "$dir/$s" && python3 "$src/tests/analyzer/check_svgs.py" truth.json events.jsonl svg "$cfg") || status=1
done

echo "== the legend says what the alert says: UTC time, the place, values with units (no exponents, no ns)"
python3 - "$dir/incast" <<'PY' || status=1
import datetime, json, os, re, sys
import xml.etree.ElementTree as ET
os.chdir(sys.argv[1])
SVG = "{http://www.w3.org/2000/svg}"
bad = []
drawn = [e for e in map(json.loads, open("events.jsonl")) if e["state"] == "firing" and "svg" in e]
if not drawn:
    bad.append("no event graph drawn")
for e in drawn[:5]:
    root = ET.parse(e["svg"]).getroot()
    lines = [" ".join((t.text or "").split()) for t in root.iter(SVG + "text")]
    # expected, from the spec (docs/analyzer.md): the start as UTC to the millisecond
    t = datetime.datetime.fromtimestamp(e["start_ns"] // 10**9, datetime.timezone.utc)
    since = f"since {t:%Y-%m-%d %H:%M:%S}.{e['start_ns'] % 10**9 // 10**6:03d} UTC"
    if since not in lines:
        bad.append(f"{e['svg']}: no legend line {since!r} in {lines[:6]}")
    # the place as the summary names it: node name (dotted node id) port <port name> queue <q>
    nid = e["node_id"]
    place = f"{e['node']} ({nid >> 24}.{nid >> 16 & 255}.{nid >> 8 & 255}.{nid & 255}) port {e['port_name']}"
    title = f"{e['event']} ({e['severity']}) at {place}"
    if not any(l.startswith(title) and l.endswith(f", event {e['id']}") for l in lines):
        bad.append(f"{e['svg']}: no title starting {title!r} in {lines[:3]}")
    odd = [l for l in lines if re.search(r"\d[eE][+-]\d|record time|\d{12,}", l)]
    if odd:
        bad.append(f"{e['svg']}: raw numbers in the legend: {odd}")
    # a bytes figure with its unit in the occupancy badge ("occ 1.72 MB")
    if not any(re.fullmatch(r"occ \d+(\.\d+)? k?M?G?B", l) for l in lines):
        bad.append(f"{e['svg']}: no badge 'occ <bytes with unit>' in {lines}")
for b in bad:
    print("FAIL: " + b)
print(f"{len(drawn[:5])} event graphs' legends checked")
sys.exit(1 if bad else 0)
PY

echo "== the rate: 1 SVG per alertname per second of record time (the scenario lasts 5 ms), keep 2 files"
s=incast
(cd "$dir/$s" && run "$s" rated --events rated.jsonl --svg-rate 1 --svg-keep 2 --svg-every 0) ||
  { cat "$dir/$s/rated.err"; fail "analyzer failed"; }
python3 - "$dir/$s" <<'PY' || status=1
import collections, glob, json, os, sys
d = sys.argv[1]
os.chdir(d)
cong = {"HighQueue", "HighHopLatency", "QueueBuildup", "Microburst", "PacketDrops", "Incast", "CongestionTree", "PathChange"}
ev = [json.loads(l) for l in open("rated.jsonl")]
raised = [e for e in ev if e["state"] == "firing" and e["event"] in cong]
kinds = {e["event"] for e in raised}
drawn = [e for e in raised if "svg" in e]
per = collections.Counter(e["event"] for e in drawn)
# the summary line (a sanitizer build may print its report after it)
summary = json.loads([l for l in open("rated.err") if l.startswith('{"records"')][-1])["svg"]
bad = []
# a burst of 1 and 1 per second: within 5 ms exactly the first raise of each alertname is drawn
if per != collections.Counter({k: 1 for k in kinds}):
    bad.append(f"drawn per alertname {dict(per)}, expected 1 for each of {sorted(kinds)}")
for k in kinds:
    first = next(e for e in raised if e["event"] == k)
    if "svg" not in first:
        bad.append(f"the first {k} was not drawn")
if summary["events"] != len(drawn) or summary["skipped"] != len(raised) - len(drawn):
    bad.append(f"summary {summary}, expected events {len(drawn)} skipped {len(raised) - len(drawn)}")
files = sorted(glob.glob("rated/event-1*.svg"))
if len(files) != 2 or summary["removed"] != len(drawn) - 2:
    bad.append(f"{len(files)} event files kept, removed {summary['removed']}; expected 2 and {len(drawn) - 2}")
newest = drawn[-1]["svg"]
if not os.path.exists(newest) or open("rated/event-latest.svg").read() != open(newest).read():
    bad.append(f"event-latest.svg is not the newest event's SVG {newest}")
if summary["heatmaps"] != 1 or not os.path.exists("rated/heatmap.svg"):
    bad.append(f"--svg-every 0: {summary['heatmaps']} heat maps, expected 1 (the end)")
for b in bad:
    print("FAIL: " + b)
print(f"{len(raised)} raised, {len(drawn)} drawn ({dict(per)}), {summary['skipped']} skipped, {len(files)} kept")
sys.exit(1 if bad else 0)
PY

echo "== the periodic heat map: every 1 ms of record time over a 5 ms scenario"
(cd "$dir/$s" && run "$s" periodic --svg-every 0.001 --svg-rate 0.000001) || fail "analyzer failed"
# The heat map is due once per 1 ms of record time; it is checked after each batch of records (4096
# here, about 0.7 ms of this scenario), so each is drawn at least 1 ms after the previous one, and
# over 5 ms at most 5 periodic ones plus the one at the end.
python3 - "$dir/$s/periodic" "$dir/$s/truth.json" <<'PY' || status=1
import json, os, re, sys
t = sorted(int(m.group(1)) for f in os.listdir(sys.argv[1]) for m in [re.match(r"heatmap-(\d+)\.svg$", f)] if m)
dur = json.load(open(sys.argv[2]))["duration_ns"]
periodic = t[:-1]
gaps = [b - a for a, b in zip(periodic, periodic[1:])]
ok = 3 <= len(t) <= dur // 1000000 + 1 and all(g >= 1000000 for g in gaps)
print(f"{'ok' if ok else 'FAIL'}: {len(t)} heat maps at {[x - t[0] for x in t]} ns from the first")
# one --svg-every schedule: the latency matrix is written at the same record times as the heat map
m = sorted(int(x.group(1)) for f in os.listdir(sys.argv[1]) for x in [re.match(r"latency-matrix-(\d+)\.svg$", f)] if x)
same = m == t
print(f"{'ok' if same else 'FAIL'}: latency matrices at {[x - t[0] for x in m] if t else m} ns, the heat maps' times")
sys.exit(0 if ok and same else 1)
PY

echo "== usage"
# without a topology: the latency matrix is written, no congestion graph, and a note says why
"$an" run --jsonl "$dir/$s/records.jsonl" --svg-dir "$dir/x" 2>"$dir/u.err"
[ $? = 0 ] && grep -q 'svg-dir.*no topology' "$dir/u.err" && [ -f "$dir/x/latency-matrix.csv" ] &&
  ! ls "$dir/x"/event-*.svg "$dir/x"/heatmap*.svg >/dev/null 2>&1 ||
  { cat "$dir/u.err"; ls "$dir/x"; echo "FAIL: --svg-dir without topology"; status=1; }
for bad in "--svg-every abc" "--svg-rate -1" "--svg-keep 1.5"; do
  # shellcheck disable=SC2086
  "$an" run --jsonl "$dir/$s/records.jsonl" --svg-dir "$dir/x" $bad 2>"$dir/u.err"
  [ $? = 2 ] && grep -q -- "${bad% *}" "$dir/u.err" || { cat "$dir/u.err"; echo "FAIL: $bad not refused"; status=1; }
done
touch "$dir/file"
"$an" run --jsonl "$dir/$s/records.jsonl" --lldp "$dir/$s/lldp.pcap" --svg-dir "$dir/file" 2>"$dir/u.err"
[ $? = 2 ] && grep -q "svg-dir $dir/file: not a directory" "$dir/u.err" ||
  { cat "$dir/u.err"; echo "FAIL: --svg-dir naming a file"; status=1; }
exit $status
