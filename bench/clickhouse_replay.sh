#!/usr/bin/env bash
# Replay rate of `hopwatch-analyzer run --clickhouse` against the same records from the collector's
# record files, in one run: a generated capture goes through the collector into a local
# clickhouse-server (Debian 18.16, own data directory, loopback) and into .hwr files; each replay
# runs three times (all detectors, no topology, events to /dev/null).  Prints JSON with medians and
# the peak RSS of the ClickHouse replay (the result is streamed, not held).
# Usage: bench/clickhouse_replay.sh BUILD_DIR [REPORTS (default 200000)]
set -eu
build=$1 n=${2:-200000}
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/tests/ops/clickhouse_lib.sh"
dir=$(mktemp -d)
trap 'ch_stop; rm -rf "$dir"' EXIT
ch_start "$dir/ch" || { echo "clickhouse-server did not start" >&2; exit 1; }
ch_schema "$src/deploy/clickhouse/schema.sql"
url="http://127.0.0.1:$CH_HTTP/?database=hopwatch"
an=$build/analyzer/hopwatch-analyzer
"$build/gen/hopwatch-gen" reports --format tr2.0 --count "$n" --hops 3 --seed 7 --out "$dir/r.pcap" 2>/dev/null
mkdir "$dir/rec"
"$build/collector/hopwatch-collector" --pcap "$dir/r.pcap" --records-dir "$dir/rec" --clickhouse "$url" 2>"$dir/col.err" ||
  { cat "$dir/col.err" >&2; exit 1; }
recs=$(awk '$1 == "clickhouse_inserted" {print $2}' "$dir/col.err")
run() { # OUT args...: seconds and peak RSS (KiB) of one replay
  local out=$1; shift
  /usr/bin/time -f '%e %M' -o "$dir/time" "$an" run "$@" --events /dev/null --summary-json - 2>"$dir/sum" >/dev/null
  grep -q "^{\"records\":$recs," "$dir/sum" || { cat "$dir/sum" >&2; exit 1; }
  cat "$dir/time" >>"$out"
}
for _ in 1 2 3; do
  run "$dir/files.t" --records "$dir"/rec/*.hwr
  run "$dir/ch.t" --clickhouse "$url" --from 0 --to 18446744073709551615
done
python3 - "$recs" "$dir/files.t" "$dir/ch.t" <<'PY'
import json, statistics, sys
recs = int(sys.argv[1])
f = [tuple(map(float, l.split())) for l in open(sys.argv[2])]
c = [tuple(map(float, l.split())) for l in open(sys.argv[3])]
fs, cs = statistics.median(x[0] for x in f), statistics.median(x[0] for x in c)
print(json.dumps({"records": recs, "runs": len(c),
                  "record_files_seconds": fs, "record_files_records_per_s": round(recs / fs),
                  "clickhouse_seconds": cs, "clickhouse_records_per_s": round(recs / cs),
                  "clickhouse_over_files_time": round(cs / fs, 2),
                  "record_files_peak_rss_kib": int(max(x[1] for x in f)),
                  "clickhouse_peak_rss_kib": int(max(x[1] for x in c))}))
PY
