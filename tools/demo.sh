#!/usr/bin/env bash
# The main job on bundled sample data: install what is missing, build, decode the sample capture
# of telemetry reports into per-hop records (out/records.jsonl) and print what was found.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/deps.sh
if [ -d build ]; then meson setup --reconfigure build >/dev/null; else meson setup build >/dev/null; fi
ninja -C build >/dev/null
mkdir -p out
sample=data/samples/fabric-reports.pcap
echo "== hopwatch-collector --pcap $sample --json out/records.jsonl"
build/collector/hopwatch-collector --pcap "$sample" --json out/records.jsonl 2>out/collector-counts.txt
cat out/collector-counts.txt
echo "== first record"
head -1 out/records.jsonl
echo "== records per format"
python3 - <<'PY'
import collections, json
c = collections.Counter(json.loads(l)["format"] for l in open("out/records.jsonl"))
for k, v in sorted(c.items()):
    print(f"{k:6} {v}")
PY
echo "records written to out/records.jsonl"
