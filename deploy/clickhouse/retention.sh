#!/bin/sh
# Retention for ClickHouse 18.16 (no table TTL before 19.6): drop the daily partitions of
# hopwatch.hops whose newest day is older than DAYS.  Run daily on each shard (cron or a systemd timer).
# With ClickHouse >= 19.6 use a TTL instead: ALTER TABLE hopwatch.hops MODIFY TTL date + INTERVAL 7 DAY
# Usage: retention.sh [DAYS (default 7)] [URL (default http://127.0.0.1:8123/)]
set -eu
days=${1:-7}
url=${2:-http://127.0.0.1:8123/}
case $days in '' | *[!0-9]*) echo "retention.sh: DAYS '$days' is not a number of days" >&2; exit 2 ;; esac
parts=$(curl -sSf "$url" --data-binary "SELECT DISTINCT partition FROM system.parts WHERE database = 'hopwatch' AND table = 'hops' AND active AND max_date < today() - $days FORMAT TSV")
for p in $parts; do
  curl -sSf "$url" --data-binary "ALTER TABLE hopwatch.hops DROP PARTITION '$p'" >/dev/null
  echo "dropped partition $p"
done
