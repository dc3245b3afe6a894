#!/usr/bin/env bash
# The latency matrix end to end: a named scenario's report capture through the real collector (record
# files and JSON lines), the record files through `hopwatch-analyzer run --svg-dir`, then the SVG and CSV
# checked against an independent reading of the collector's JSON records and the scenario's truth.
# Usage: latency_matrix.sh HOPWATCH-GEN HOPWATCH-COLLECTOR HOPWATCH-ANALYZER SOURCE_ROOT
set -u
gen=$1 col=$2 an=$3 src=$4
fail() { echo "FAIL: $*"; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
s=incast
"$gen" scenario $s --out "$dir/$s" >"$dir/gen.log" 2>&1 || { cat "$dir/gen.log"; fail "scenario $s failed"; }
mkdir -p "$dir/rec"
"$col" --pcap "$dir/$s/reports.pcap" --records-dir "$dir/rec" --json-out "$dir/records.jsonl" >"$dir/col.log" 2>&1 ||
  { tail -5 "$dir/col.log"; fail "hopwatch-collector failed"; }
# bad usage names the option
"$an" run --records "$dir"/rec/*.hwr --svg-every soon 2>"$dir/usage.err" && fail "--svg-every soon accepted"
[ $? = 2 ] && grep -q -- "--svg-every: 'soon'" "$dir/usage.err" || fail "--svg-every soon: $(cat "$dir/usage.err")"
touch "$dir/afile"
"$an" run --records "$dir"/rec/*.hwr --svg-dir "$dir/afile" 2>"$dir/usage.err" && fail "--svg-dir on a file accepted"
grep -q "afile: not a directory" "$dir/usage.err" || fail "--svg-dir on a file: $(cat "$dir/usage.err")"
# the scenario lasts 5 ms of record time: a write every millisecond, and one at the end
"$an" run --records "$dir"/rec/*.hwr --lldp "$dir/$s/lldp.pcap" --map "$dir/$s/map.json" \
  --config "$src/data/samples/incast/analyzer.json" --svg-dir "$dir/out" --svg-every 0.001 --summary-json - 2>"$dir/an.err" ||
  { cat "$dir/an.err"; fail "analyzer failed"; }
python3 - "$dir/records.jsonl" "$dir/$s/truth.json" "$dir/out" "$dir/an.err" <<'PY'
import csv, glob, json, math, os, sys
import xml.etree.ElementTree as ET
records, truth_path, out, an_err = sys.argv[1:]
ok = True
def check(cond, msg):
    global ok
    if not cond:
        print("FAIL:", msg)
        ok = False

truth = json.load(open(truth_path))
name = {n["node_id"]: n["node"] for n in truth["topology"]["nodes"]}
# pairs the scenario's flows use: first and last switch of each path of two or more hops
flow_pairs = {(p["hops"][0]["node"], p["hops"][-1]["node"]) for f in truth["flows"] for p in f["paths"]
              if len(p["hops"]) >= 2}

# complete reports, read independently from the collector's JSON records
reports, cur = [], None
for line in open(records):
    r = json.loads(line)
    key = (r["report_node"], r["hw_id"], r["report_seq"], r["time_ns"])
    if cur is None or cur[0] != key:
        cur = (key, [])
        reports.append(cur)
    cur[1].append(r)
lat = {}
for _, hops in reports:
    n = hops[0]["path_len"]
    flags = hops[0]["report_flags"]
    by_index = {h["hop_index"]: h for h in hops}
    if n < 2 or "intermediate" in flags or "dropped" in flags or set(by_index) != set(range(n)):
        continue
    if not all("hop_latency" in h for h in hops):
        continue
    pair = (name[by_index[0]["node_id"]], name[by_index[n - 1]["node_id"]])
    lat.setdefault(pair, []).append(sum(h["hop_latency"] for h in hops))
check(len(lat) >= 20, f"only {len(lat)} leaf pairs with complete reports")
check(set(lat) <= flow_pairs, f"pairs not in the truth's flows: {set(lat) - flow_pairs}")

def svg_id(s):
    return "".join(c if c.isalnum() or c in ".-" else "_" for c in s)

def cell_ids(path):
    root = ET.parse(path).getroot()  # raises on malformed XML
    return {g.get("id") for g in root.iter("{http://www.w3.org/2000/svg}g") if (g.get("id") or "").startswith("cell-")}

want = {f"cell-{svg_id(a)}-{svg_id(b)}" for a, b in lat}
check(cell_ids(f"{out}/latency-matrix.svg") == want,
      f"SVG cells differ: missing {want - cell_ids(f'{out}/latency-matrix.svg')}, "
      f"extra {cell_ids(f'{out}/latency-matrix.svg') - want}")

rows = list(csv.DictReader(open(f"{out}/latency-matrix.csv")))
check({(r["source"], r["destination"]) for r in rows} == set(lat), "CSV pairs differ from the records'")
for r in rows:
    v = sorted(lat.get((r["source"], r["destination"]), [0]))
    exact = v[math.ceil(0.999 * len(v)) - 1]
    check(int(r["reports"]) == len(v), f"{r}: expected {len(v)} reports")
    check(abs(float(r["avg_ns"]) - sum(v) / len(v)) <= 0.05, f"{r}: expected avg {sum(v) / len(v)}")
    check(abs(int(r["p999_ns"]) - exact) <= exact / 32, f"{r}: expected p99.9 {exact} within 1/32")
    check(int(r["min_ns"]) == v[0] and int(r["max_ns"]) == v[-1], f"{r}: expected min {v[0]} max {v[-1]}")

# colours on an absolute scale (docs/analyzer.md): p99.9 on a log scale from 1 µs (r = 0, #ffffcc) to
# 1 ms (r = 1, #bd0026) through #fd8d3c at r = 0.5 (31.6 µs), each channel interpolated and rounded
def colour(ns):
    r = 0 if ns <= 1000 else min(1.0, math.log10(ns / 1000) / 3)
    stops = [(0xff, 0xff, 0xcc), (0xfd, 0x8d, 0x3c), (0xbd, 0x00, 0x26)]
    k, t = (0, r * 2) if r < 0.5 else (1, (r - 0.5) * 2)
    return "#%02x%02x%02x" % tuple(int(stops[k][i] + (stops[k + 1][i] - stops[k][i]) * t + 0.5) for i in range(3))
fills = {g.get("id"): [e.get("fill") for e in g.iter("{http://www.w3.org/2000/svg}polygon")]
         for g in ET.parse(f"{out}/latency-matrix.svg").getroot().iter("{http://www.w3.org/2000/svg}g")}
for r in rows:
    cell = f"cell-{svg_id(r['source'])}-{svg_id(r['destination'])}"
    check(colour(int(r["p999_ns"])) in fills.get(cell, []),
          f"{cell}: p99.9 {r['p999_ns']} ns should be {colour(int(r['p999_ns']))}, is {fills.get(cell)}")
legend = {g.get("id"): "".join(g.itertext()) for g in ET.parse(f"{out}/latency-matrix.svg").getroot().iter("{http://www.w3.org/2000/svg}g")
          if (g.get("id") or "").startswith("legend")}
check("1 µs" in legend.get("legend0", "") and "1 ms" in legend.get("legend4", ""), f"legend {legend}")

# time-named files: several (periodic + end), every SVG well-formed, the stable names hold the newest
for ext in ("csv", "svg"):
    timed = sorted(glob.glob(f"{out}/latency-matrix-*.{ext}"), key=lambda p: int(p.rsplit("-", 1)[1].split(".")[0]))
    check(len(timed) >= 3, f"{len(timed)} time-named .{ext} files, expected one per ms and one at the end")
    if timed:
        check(open(timed[-1], "rb").read() == open(f"{out}/latency-matrix.{ext}", "rb").read(),
              f"latency-matrix.{ext} is not the newest {timed[-1]}")
    for p in timed:
        if ext == "svg":
            ET.parse(p)
check(not glob.glob(f"{out}/.*tmp"), "temporary files left behind")

# the end-of-run summary carries the matrix
# (the summary line: sanitizer builds may print their own statistics after it)
summary = [json.loads(l) for l in open(an_err) if l.startswith('{"records"')][-1]["latency_matrix"]
check(summary["reports"] == sum(len(v) for v in lat.values()), f"summary reports {summary['reports']}")
check({(c["src"], c["dst"]) for c in summary["cells"]} == set(lat), "summary cells differ")
print(f"latency matrix: {len(lat)} leaf pairs, {summary['reports']} reports: " + ("ok" if ok else "FAILED"))
sys.exit(0 if ok else 1)
PY
