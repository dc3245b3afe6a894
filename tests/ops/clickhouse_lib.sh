# Helpers for tests that need a real ClickHouse (sourced, not run): Debian's clickhouse-server on
# loopback with its own config, data directory and free ports, in the test's temp dir.
# ch_start DIR [PREFIX...]: start (or restart) the server of DIR; PREFIX runs it (e.g. ip netns exec NS).
# Sets CH_HTTP (port), CH_TCP (port), CH_PID.  Cluster `hopwatch`: shards on CH_SHARD_TCP_PORTS (default:
# itself), one word per shard; a word "P1,P2" is a shard of replicas on P1 and P2 (internal_replication).
# ch_stop: SIGTERM and wait.  ch_query SQL: query over HTTP.
# CH_EXTRA_XML: more elements for the server's config (ZooKeeper, macros, interserver port).

ch_available() {
  command -v clickhouse-server >/dev/null && command -v clickhouse-client >/dev/null
}

# free_port and the other shared helpers: tests/collector/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../collector/lib.sh"

ch_config() { # DIR
  local d=$1
  mkdir -p "$d/data" "$d/tmp" "$d/user_files" "$d/format_schemas"
  : "${CH_HTTP:=$(free_port)}"
  : "${CH_TCP:=$(free_port)}"
  cat >"$d/config.xml" <<XML
<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>$d/server.log</log><errorlog>$d/error.log</errorlog><console>0</console></logger>
  <http_port>$CH_HTTP</http_port>
  <tcp_port>$CH_TCP</tcp_port>
  <listen_host>127.0.0.1</listen_host>
  <path>$d/data/</path>
  <tmp_path>$d/tmp/</tmp_path>
  <user_files_path>$d/user_files/</user_files_path>
  <format_schema_path>$d/format_schemas/</format_schema_path>
  <users_config>$d/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <mark_cache_size>5368709120</mark_cache_size>
  <max_concurrent_queries>20</max_concurrent_queries>
  ${CH_EXTRA_XML:-}
  <remote_servers><hopwatch>$(for w in ${CH_SHARD_TCP_PORTS:-$CH_TCP}; do
    echo "<shard>"; [ "${w#*,}" = "$w" ] || echo "<internal_replication>true</internal_replication>"
    for p in ${w//,/ }; do echo "<replica><host>127.0.0.1</host><port>$p</port></replica>"; done
    echo "</shard>"; done)</hopwatch></remote_servers>
</yandex>
XML
  cat >"$d/users.xml" <<XML
<?xml version="1.0"?>
<yandex>
  <profiles><default><log_queries>0</log_queries></default></profiles>
  <users><default><password></password><networks><ip>127.0.0.1</ip></networks><profile>default</profile><quota>default</quota></default></users>
  <quotas><default></default></quotas>
</yandex>
XML
}

ch_start() { # DIR [PREFIX...]
  local d=$1; shift
  [ -f "$d/config.xml" ] || ch_config "$d"
  CH_PREFIX=("$@")
  "$@" clickhouse-server --config-file="$d/config.xml" >>"$d/stdout.log" 2>&1 &
  CH_PID=$!
  for _ in $(seq 300); do
    if "$@" curl --max-time 10 -sf "http://127.0.0.1:$CH_HTTP/ping" >/dev/null 2>&1; then return 0; fi
    kill -0 "$CH_PID" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

ch_stop() {
  [ -n "${CH_PID:-}" ] || return 0
  kill -TERM "$CH_PID" 2>/dev/null
  for _ in $(seq 300); do kill -0 "$CH_PID" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$CH_PID" 2>/dev/null
  wait "$CH_PID" 2>/dev/null
  CH_PID=
}

ch_query() { # SQL
  "${CH_PREFIX[@]}" curl --max-time 120 -sS --fail-with-body "http://127.0.0.1:$CH_HTTP/" --data-binary "$1"
}

ch_schema() { # SCHEMA.SQL...
  local f
  for f in "$@"; do
    "${CH_PREFIX[@]}" clickhouse-client --port "$CH_TCP" --multiquery <"$f" || return 1
  done
}
