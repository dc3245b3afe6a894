#!/usr/bin/env bash
# The static SVGs by the console's layout rules (issue 20): `topology --svg` and the heat map of the 76-node
# incast sample, of a k=8 fat-tree (208 nodes) and of leaf-spines of 280 and 256 nodes, checked from their own
# coordinates (svg_layout.py): aspect near 16:10, no overlapping texts, every node drawn, hosts beside their own leaf
# away from its spines, switch links through the hosts of as few rows as the rows split about the spines allow.  Then
# the event graphs of an incast and a PFC storm (the part of the fabric an event concerns, queue badges, the legend):
# aspect and no overlapping texts either.  Last, every SVG drawn here (and the latency matrices) opened in headless
# Chromium when it is installed: no text of a node or a legend runs past its box in the browser's font (svg_fit.py).
# Usage: svg_layout.sh HOPWATCH-GEN HOPWATCH-ANALYZER SOURCE_ROOT
set -u
gen=$1 an=$2 src=$3
. "$(dirname "$0")/lib.sh"
dir=$(mktemp -d)
drawn=()
trap 'rm -rf "$dir"' EXIT
# leaf-spine:8,16,16: two rows of 8 leaves with 16 hosts each; drawn with both rows under the spines, leaf9's spine
# links crossed leaf1's hosts and the grids of the first row reached down next to the second row's leaves.
# leaf-spine:16,48,4: three rows of 16 leaves, one over the spines: links to the third cross the second's hosts only
for shape in incast fat-tree:8 leaf-spine:8,16,16 leaf-spine:16,48,4; do
  out=$dir/${shape//[:,]/-}
  if [ "$shape" = incast ]; then
    "$gen" scenario incast --out "$out" --write-records >"$dir/gen.log" 2>&1
  else
    "$gen" scenario custom --topology "$shape" --duration-us 200 --out "$out" --write-records >"$dir/gen.log" 2>&1
  fi || fail "hopwatch-gen $shape: $(tail -1 "$dir/gen.log")"
  "$an" topology --lldp "$out/lldp.pcap" --map "$out/map.json" --svg "$out/topology.svg" --quiet >"$dir/topo.log" 2>&1 ||
    fail "topology --svg $shape: $(tail -1 "$dir/topo.log")"
  mkdir -p "$out/svg"
  "$an" run --jsonl "$out/records.jsonl" --lldp "$out/lldp.pcap" --map "$out/map.json" --svg-dir "$out/svg" \
    --quiet >"$dir/run.log" 2>&1 || fail "run --svg-dir $shape: $(tail -1 "$dir/run.log")"
  [ -s "$out/svg/heatmap.svg" ] || fail "$shape: no heat map"
  python3 "$src/tests/analyzer/svg_layout.py" "$out/truth.json" "$out/topology.svg" "$out/svg/heatmap.svg" ||
    fail "$shape: layout"
  drawn+=("$out/topology.svg" "$out/svg/heatmap.svg" "$out/svg/latency-matrix.svg")
done
cfg=$src/data/samples/incast/analyzer.json # the sample's thresholds: the events fire and carry badges
for s in incast pfc-storm; do
  out=$dir/ev-$s
  "$gen" scenario "$s" --out "$out" --write-records >"$dir/gen.log" 2>&1 ||
    fail "hopwatch-gen $s: $(tail -1 "$dir/gen.log")"
  mkdir -p "$out/svg"
  "$an" run --jsonl "$out/records.jsonl" --lldp "$out/lldp.pcap" --map "$out/map.json" --config "$cfg" \
    --svg-dir "$out/svg" --svg-rate 0 --svg-keep 0 --quiet >"$dir/run.log" 2>&1 ||
    fail "run --svg-dir $s: $(tail -1 "$dir/run.log")"
  set -- "$out"/svg/event-[0-9]*.svg
  [ -s "$1" ] || fail "$s: no event graph drawn"
  python3 "$src/tests/analyzer/svg_layout.py" --event "$@" || fail "$s: event graph layout"
  drawn+=("$@")
done
# The Incast graph shows the scenario's 4 spines, the 7 or 8 leaves its flows cross, leaf1's 8 hosts and a legend of
# about 600 x 250 pt.  The layout takes the fewest rows among the canvases near 16:10 (topo_render.c place_nodes).
# All leaves in one row under the four spines, the legend over them, is such a canvas (by hand: 8 cells of 100 pt
# = 800 pt, at least the legend's 600; spine row, leaf row, 4 rows of 2 hosts and the legend: about 110 + 110 + 130
# + 250 pt, so about 1.6:1), so the leaves are in one row, or at most two evenly filled if the estimates are off.
# They were in 4 rows of 2, links crossing three rows.  A leaf's label is its first text, one line higher when the
# leaf carries a note (leaf1: Incast): svg_layout.leaves_per_row tells rows apart by more than a line.
set -- "$dir"/ev-incast/svg/event-*-Incast.svg
python3 - "$dir/ev-incast/truth.json" "$1" "$src/tests/analyzer" <<'PY' || fail "incast graph: leaves in more than two rows"
import json, sys
sys.path.insert(0, sys.argv[3])
import xml.etree.ElementTree as ET
from svg_layout import leaves_per_row, positions
tier = {n["node"]: n["tier"] for n in json.load(open(sys.argv[1]))["topology"]["nodes"]}
pos = positions(ET.parse(sys.argv[2]).getroot())
counts = leaves_per_row(pos, [n for n in pos if tier.get(n) == "leaf"])
print(f"incast graph: leaves per row {counts}")
sys.exit(0 if len(counts) <= 2 and max(counts) - min(counts) <= 1 else 1)
PY
if chromium=$(command -v chromium || command -v chromium-browser); then
  python3 "$src/tests/analyzer/svg_fit.py" "$chromium" "${drawn[@]}" || fail "texts past their boxes in Chromium"
else
  echo "chromium is not installed (tools/deps.sh): the SVGs are not checked in a browser"
fi
echo "PASS"
