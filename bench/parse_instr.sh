#!/usr/bin/env bash
# Instructions per report of the parser, counted by callgrind (deterministic, unlike wall-clock on a
# shared machine): bench_parse runs 1 and 11 passes over a capture; the difference / 10 passes.
# Usage: bench/parse_instr.sh BUILD_DIR FILE.pcap...   (captures of 4096 reports, as parse_bench.sh)
set -euo pipefail
build=$1
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
count() { # min_reports, file -> instructions of the whole run
  valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" "$build/bench/bench_parse" --runs 1 \
    --min-reports "$1" "x=$2" >"$tmp/json" 2>"$tmp/err"
  sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$tmp/err"
}
for f in "$@"; do
  reports=$(count 1 "$f" >/dev/null; grep -o '"reports_per_pass": [0-9]*' "$tmp/json" | grep -o '[0-9]*$')
  # bench_parse makes 1 + floor(min_reports / reports) timed passes (plus one counting pass).
  a=$(count 1 "$f")
  b=$(count $((10 * reports + 1)) "$f")
  echo "{\"input\": \"$f\", \"reports_per_pass\": $reports, \"instructions_per_report\": $(((b - a) / (10 * reports)))}"
done
