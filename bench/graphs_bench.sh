#!/usr/bin/env bash
# Congestion-graph cost: the analyzer replays a generated scenario (default incast: 76 nodes, 28,895
# records) without --svg-dir, then with --svg-dir drawing every raise (--svg-rate 0), RUNS times each
# alternating; prints one JSON document: median wall times, the SVGs drawn, the drawing thread's time per
# SVG (Graphviz layout + render + write, from the summary's draw_s) and the wall time added per SVG.
# Usage: bench/graphs_bench.sh BUILD_DIR [RUNS [SCENARIO]]
set -euo pipefail
build=$(realpath "${1:-build}")
runs=${2:-5}
scenario=${3:-incast}
src=$(cd "$(dirname "$0")/.." && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$build/gen/hopwatch-gen" scenario "$scenario" --out "$dir/s" --write-records >/dev/null 2>&1
python3 - "$build/analyzer/hopwatch-analyzer" "$dir" "$runs" "$scenario" "$src/data/samples/incast/analyzer.json" <<'PY'
import json, os, shutil, statistics, subprocess, sys, time
an, d, runs, scenario, cfg = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
s = os.path.join(d, "s")
base = [an, "run", "--jsonl", f"{s}/records.jsonl", "--lldp", f"{s}/lldp.pcap", "--map", f"{s}/map.json",
        "--config", cfg, "--summary-json", "-"]
def once(extra):
    shutil.rmtree(f"{d}/svg", ignore_errors=True)
    t = time.perf_counter()
    r = subprocess.run(base + extra, capture_output=True, text=True, check=True)
    return time.perf_counter() - t, json.loads([l for l in r.stderr.splitlines() if l.startswith('{"records"')][-1])
plain, graphs, draw = [], [], []
for _ in range(runs):
    plain.append(once([])[0])
    t, summary = once(["--svg-dir", f"{d}/svg", "--svg-rate", "0", "--svg-every", "0"])
    graphs.append(t)
    svg = summary["svg"]
    draw.append(svg["draw_s"] / (svg["events"] + svg["heatmaps"]))
mp, mg = statistics.median(plain), statistics.median(graphs)
print(json.dumps({"scenario": scenario, "records": summary["records"], "runs": runs,
                  "median_s_without_svg": round(mp, 4), "median_s_with_svg": round(mg, 4),
                  "event_svgs": svg["events"], "heatmaps": svg["heatmaps"],
                  "median_draw_ms_per_svg": round(statistics.median(draw) * 1000, 3),
                  "added_wall_ms_per_svg": round((mg - mp) * 1000 / (svg["events"] + svg["heatmaps"]), 3)},
                 indent=1))
PY
