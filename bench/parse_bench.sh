#!/usr/bin/env bash
# Parse benchmark driver: generates one capture per format and hop count 1..8 with hopwatch-gen
# (warm, in memory), then runs bench_parse on all of them and prints its JSON.
# Usage: bench/parse_bench.sh BUILD_DIR [RUNS]
set -euo pipefail
build=${1:-build}
runs=${2:-5}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
args=()
for hops in 1 2 3 4 5 6 7 8; do
  # TR v2.0 sink reports: hops-1 stack entries + the reporting node's own metadata = hops records
  "$build/gen/hopwatch-gen" reports --format tr2.0 --hops $((hops - 1)) --count 4096 --flows 256 \
    --out "$dir/tr2-$hops.pcap" 2>/dev/null
  "$build/gen/hopwatch-gen" reports --format tr1.0 --hops $((hops - 1)) --count 4096 --flows 256 \
    --out "$dir/tr1-$hops.pcap" 2>/dev/null
  "$build/gen/hopwatch-gen" reports --format int --hops "$hops" --count 4096 --flows 256 \
    --out "$dir/int-$hops.pcap" 2>/dev/null
  args+=("tr2.0_hops$hops=$dir/tr2-$hops.pcap" "tr1.0_hops$hops=$dir/tr1-$hops.pcap" "int2.1_hops$hops=$dir/int-$hops.pcap")
done
"$build/gen/hopwatch-gen" reports --format tr0.5 --count 4096 --flows 256 --out "$dir/tr05.pcap" 2>/dev/null
args+=("tr0.5_hops1=$dir/tr05.pcap")
"$build/bench/bench_parse" --runs "$runs" "${args[@]}"
