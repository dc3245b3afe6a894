#!/usr/bin/env bash
# Insert rate of the ClickHouse sink into a local clickhouse-server (Debian 18.16, own data
# directory, loopback): a generated capture through `hopwatch-collector --pcap` (lossless, so the
# run's length is the time ClickHouse needs to take every record).  Prints JSON.
# A queue smaller than the run makes the offline reader wait for ClickHouse (the worker spins on
# sched_yield meanwhile, taking a core from ClickHouse on a 2-core machine).
# Usage: bench/clickhouse_insert.sh BUILD_DIR [REPORTS (default 200000)] [BATCH (default 16384)]
#        [QUEUE (default 1048576)]
set -eu
build=$1 n=${2:-200000} batch=${3:-16384} queue=${4:-1048576}
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/tests/ops/clickhouse_lib.sh"
dir=$(mktemp -d)
trap 'ch_stop; rm -rf "$dir"' EXIT
ch_start "$dir/ch" || { echo "clickhouse-server did not start" >&2; exit 1; }
ch_schema "$src/deploy/clickhouse/schema.sql"
"$build/gen/hopwatch-gen" reports --format tr2.0 --count "$n" --hops 3 --seed 7 --out "$dir/r.pcap" 2>/dev/null
# the same run without ClickHouse: what the collector alone costs
t0=$(date +%s.%N)
"$build/collector/hopwatch-collector" --pcap "$dir/r.pcap" --json-out /dev/null 2>"$dir/base.err"
t1=$(date +%s.%N)
"$build/collector/hopwatch-collector" --pcap "$dir/r.pcap" --clickhouse "http://127.0.0.1:$CH_HTTP/?database=hopwatch" \
  --clickhouse-batch "$batch" --clickhouse-queue "$queue" 2>"$dir/ch.err" || { cat "$dir/ch.err" >&2; exit 1; }
t2=$(date +%s.%N)
ins=$(awk '$1 == "clickhouse_inserted" {print $2}' "$dir/ch.err")
rows=$(ch_query "SELECT count() FROM hopwatch.hops")
ch_query "OPTIMIZE TABLE hopwatch.hops FINAL" >/dev/null
disk=$(ch_query "SELECT sum(bytes_on_disk) FROM system.parts WHERE database = 'hopwatch' AND table = 'hops' AND active")
python3 - "$ins" "$rows" "$t0" "$t1" "$t2" "$batch" "$queue" "$disk" <<'PY'
import json, sys
ins, rows, t0, t1, t2, batch, queue, disk = int(sys.argv[1]), int(sys.argv[2]), *map(float, sys.argv[3:6]), *map(int, sys.argv[6:9])
print(json.dumps({"records": ins, "rows_in_clickhouse": rows, "batch_records": batch, "queue_records": queue,
                  "seconds": round(t2 - t1, 3), "records_per_s": round(ins / (t2 - t1)),
                  "collector_alone_records_per_s": round(ins / (t1 - t0)),
                  "bytes_per_record_rowbinary": 135, "bytes_per_record_on_disk": round(disk / max(rows, 1), 1)}))
PY
