#!/bin/sh
# Print schema.sql with hopwatch.hops as a ReplicatedMergeTree (same columns, key and partitions), for
# a cluster of replicas (replicated.xml): replicated-schema.sh | clickhouse-client --multiquery
set -eu
sed 's|^ENGINE = MergeTree$|ENGINE = ReplicatedMergeTree('"'"'/clickhouse/tables/{shard}/hopwatch/hops'"'"', '"'"'{replica}'"'"')|' \
  "${1:-$(dirname "$0")/schema.sql}"
