#!/usr/bin/env bash
# The replicated recipe of deploy/clickhouse (replicated.xml, replicated-schema.sh, distributed.sql) on
# loopback: one ZooKeeper (Debian's zookeeper), four clickhouse-server processes as two shards x two
# replicas (macros per server, internal_replication), and two collectors, each given both replica URLs
# of its shard.  Replica 1 of shard 1 -- the one collector 1 inserts into -- and replica 2 of shard 2
# (not inserted into) are killed mid-run: collector 1 fails over (log line, /metrics counter), goes
# back to replica 1 once it is up again, and every record is stored exactly once (count and distinct
# rows on the Distributed table, each replica of a shard holding its collector's records).
# Usage: clickhouse_replicas.sh HOPWATCH-GEN HOPWATCH-COLLECTOR SOURCE_ROOT
set -u
here=$(dirname "$0")
. "$here/../collector/lib.sh"
. "$here/clickhouse_lib.sh"
gen=$1 col=$2 src=$3
ch_available || skip "clickhouse-server / clickhouse-client not installed (apt-get install clickhouse-server clickhouse-client)"
zkjar=/usr/share/java/zookeeper.jar
[ -r "$zkjar" ] && command -v java >/dev/null || skip "ZooKeeper not installed (apt-get install zookeeper)"
dir=$(mktemp -d)
declare -A pid=() h=() t=()
cpid=() zkpid=
cleanup() {
  exec 3>&- 4>&- 2>/dev/null
  for p in "${cpid[@]}"; do kill -TERM "$p" 2>/dev/null; done
  for p in "${pid[@]}" $zkpid; do kill -TERM "$p" 2>/dev/null; done
  for p in "${pid[@]}" "${cpid[@]}" $zkpid; do wait "$p" 2>/dev/null; done
  rm -rf "$dir"
}
trap cleanup EXIT

# poll CONDITION-COMMAND... : up to 120 s, for a loaded host
poll() { for _ in $(seq 1200); do "$@" && return 0; sleep 0.1; done; return 1; }

zk_ok() { # ZooKeeper answers "ruok" with "imok"
  python3 - "$zkport" <<'PY'
import socket, sys
try:
    s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=2)
    s.sendall(b"ruok"); s.settimeout(2)
    sys.exit(0 if s.recv(4) == b"imok" else 1)
except OSError:
    sys.exit(1)
PY
}
zkport=$(free_port)
mkdir -p "$dir/zk/data"
# tickTime 1000: sessions may be as short as 2 s, so that a killed replica's ZooKeeper session (its
# "is_active" node) expires soon after it and the restarted replica takes inserts again quickly
cat >"$dir/zk/zoo.cfg" <<CFG
tickTime=1000
dataDir=$dir/zk/data
clientPort=$zkport
clientPortAddress=127.0.0.1
admin.enableServer=false
4lw.commands.whitelist=ruok
CFG
java -cp "$zkjar" org.apache.zookeeper.server.quorum.QuorumPeerMain "$dir/zk/zoo.cfg" >"$dir/zk/out.log" 2>&1 &
zkpid=$!
poll zk_ok || { tail -5 "$dir/zk/out.log"; skip "ZooKeeper did not start"; }

# servers 11 12 (shard 1) and 21 22 (shard 2): all ports first, for the cluster of every config
S="11 12 21 22"
for s in $S; do h[$s]=$(free_port) t[$s]=$(free_port); done
CH_SHARD_TCP_PORTS="${t[11]},${t[12]} ${t[21]},${t[22]}"
"$src/deploy/clickhouse/replicated-schema.sh" >"$dir/schema.sql" || fail "replicated-schema.sh failed"
start() { # s: clickhouse-server s on its own config and data (created the first time)
  CH_HTTP=${h[$1]} CH_TCP=${t[$1]}
  CH_EXTRA_XML="<zookeeper><node><host>127.0.0.1</host><port>$zkport</port></node>
    <session_timeout_ms>4000</session_timeout_ms></zookeeper>
  <macros><shard>0${1:0:1}</shard><replica>r$1</replica></macros>
  <interserver_http_port>$(free_port)</interserver_http_port><interserver_http_host>127.0.0.1</interserver_http_host>"
  ch_start "$dir/ch$1" || { tail -5 "$dir/ch$1/error.log" 2>/dev/null; fail "clickhouse-server $1 did not start"; }
  pid[$1]=$CH_PID
}
for s in $S; do
  start "$s"
  ch_schema "$dir/schema.sql" "$src/deploy/clickhouse/distributed.sql" || fail "the replicated schema did not load on server $s"
done
unset CH_EXTRA_XML
q() { CH_HTTP=${h[$1]} CH_TCP=${t[$1]} ch_query "$2"; }
rows() { q "$1" "SELECT count() FROM hopwatch.${2:-hops}" 2>/dev/null; }
[ "$(q 11 "SELECT engine FROM system.tables WHERE database = 'hopwatch' AND name = 'hops'")" = ReplicatedMergeTree ] ||
  fail "hopwatch.hops is not a ReplicatedMergeTree"
die() { kill -KILL "${pid[$1]}"; wait "${pid[$1]}" 2>/dev/null; unset "pid[$1]"; }
url() { echo "http://127.0.0.1:${h[$1]}/?database=hopwatch"; }

# per collector 4800 reports of 2-4 hops, cut into 80 pieces of 60 reports (the first with the pcap
# file header) to feed its FIFO at the pace the test wants
split() { # PCAP OUTPREFIX
  python3 - "$1" "$2" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
e = "<" if d[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
recs, off = [], 24
while off < len(d):
    n = struct.unpack_from(e + "I", d, off + 8)[0]
    recs.append(d[off:off + 16 + n]); off += 16 + n
for k in range(0, len(recs), 60):
    with open("%s%02d" % (sys.argv[2], k // 60), "wb") as f:
        f.write((d[:24] if k == 0 else b"") + b"".join(recs[k:k + 60]))
PY
}
for c in 1 2; do
  "$gen" reports --format tr2.0 --count 4800 --hops 2-4 --seed $((80 + c)) --out "$dir/c$c.pcap" 2>/dev/null || fail "generator failed"
  split "$dir/c$c.pcap" "$dir/c$c.part"
  mkfifo "$dir/c$c.in"
done
mport=$(free_port)
# at exit, up to 120 s to deliver what is queued: inserts into a ReplicatedMergeTree (a ZooKeeper commit
# each) can be slow on a loaded host, and nothing may be left behind
echo '{"sinks": {"clickhouse_drain_seconds": 120}}' >"$dir/col.json"
# collector 1: its shard's replicas as a repeated flag; collector 2: as one comma list.  Failback after 2 s.
"$col" --config "$dir/col.json" --pcap "$dir/c1.in" --json-out "$dir/c1.jsonl" --clickhouse "$(url 11)" \
  --clickhouse "$(url 12)" --clickhouse-batch 1000 --clickhouse-batch-ms 100 --clickhouse-failback 2 \
  --metrics "127.0.0.1:$mport" 2>"$dir/c1.err" &
cpid+=($!)
"$col" --config "$dir/col.json" --pcap "$dir/c2.in" --json-out "$dir/c2.jsonl" --clickhouse "$(url 21),$(url 22)" \
  --clickhouse-batch 1000 --clickhouse-batch-ms 100 2>"$dir/c2.err" &
cpid+=($!)
exec 3>"$dir/c1.in" 4>"$dir/c2.in"
feed() { # FIRST LAST: pieces FIRST..LAST of both collectors
  for k in $(seq -f %02g "$1" "$2"); do cat "$dir/c1.part$k" >&3; cat "$dir/c2.part$k" >&4; done
}

feed 0 19                                                       # 1200 reports each
has_rows() { local n; n=$(rows "$1") && [ "${n:-0}" -gt 0 ]; }
for s in $S; do poll has_rows "$s" || fail "server $s never held rows"; done
die 11                                                          # the replica collector 1 inserts into
die 22                                                          # and one collector 2 does not use
feed 20 39
poll grep -q "clickhouse http://127.0.0.1:${h[11]}/?database=hopwatch: .*failing over to http://127.0.0.1:${h[12]}/" "$dir/c1.err" ||
  { cat "$dir/c1.err"; fail "collector 1 never failed over from replica 11 to 12"; }
failovers() { curl -sf --max-time 10 "http://127.0.0.1:$mport/metrics" | awk '$1 == "hopwatch_collector_clickhouse_failovers_total" {print $2}'; }
has_failover() { local n; n=$(failovers) && [ "${n:-0}" -ge 1 ]; }
poll has_failover || fail "/metrics shows no failover: $(failovers)"
grew12() { local n; n=$(rows 12) && [ "$n" -gt "$before12" ]; }
before12=$(rows 12)
feed 40 49
poll grew12 || fail "replica 12 took no rows while replica 11 was down"
start 11
start 22                                                        # both back
# feed a piece at a time until collector 1 is back on replica 11 (failback after 2 s), then the rest
k=50
back() { grep -q "clickhouse http://127.0.0.1:${h[11]}/?database=hopwatch: back after" "$dir/c1.err"; }
while [ $k -lt 79 ] && ! back; do
  feed $k $k; k=$((k + 1))
  for _ in $(seq 20); do back && break; sleep 0.1; done   # up to 2 s a piece: 58 s in all
done
feed $k 79
poll back || { cat "$dir/c1.err"; fail "collector 1 never went back to replica 11"; }
exec 3>&- 4>&-
for c in 1 2; do
  wait "${cpid[c - 1]}"; rc=$?
  [ $rc = 0 ] || { cat "$dir/c$c.err"; fail "collector $c exited $rc"; }
done
cpid=()
declare -A rec=()
for c in 1 2; do
  e=$dir/c$c.err
  rec[$c]=$(count json_written "$e")
  # 4800 reports of 2-4 hops: each report gives hops + 1 records, so at least 4800 * 3 (the exact
  # figure is the generator's choice of path lengths; the collector's own count is what ClickHouse must hold)
  [ "${rec[$c]}" -ge 14400 ] || { cat "$e"; fail "collector $c: only ${rec[$c]} records from 4800 reports of 2-4 hops"; }
  [ "$(count clickhouse_dropped "$e")" = 0 ] || fail "collector $c dropped $(count clickhouse_dropped "$e") records"
  [ "$(count clickhouse_inserted "$e")" = "${rec[$c]}" ] ||
    fail "collector $c: $(count clickhouse_inserted "$e") inserted for ${rec[$c]} records"
  [ "$(grep -c . "$dir/c$c.jsonl")" = "${rec[$c]}" ] || fail "collector $c: the JSON file does not hold ${rec[$c]} records"
done
f1=$(count clickhouse_failovers "$dir/c1.err")
[ "$f1" -ge 1 ] || fail "collector 1 counted no failover"
[ "$(count clickhouse_failovers "$dir/c2.err")" = 0 ] || fail "collector 2 failed over, yet its first replica never died"
grep -q "failing over" "$dir/c2.err" && fail "collector 2 logged a failover"
total=$((rec[1] + rec[2]))
# every replica of a shard holds its collector's records, the restarted ones too once they caught up
shard_ok() { [ "$(rows "$1")" = "${rec[${1:0:1}]}" ]; }
for s in $S; do poll shard_ok "$s" || fail "server $s holds $(rows "$s") rows, its shard's collector wrote ${rec[${s:0:1}]}"; done
cols=$(q 11 "SELECT arrayStringConcat(groupArray(name), ',') FROM system.columns WHERE database = 'hopwatch' AND table = 'hops' AND default_kind != 'MATERIALIZED'" | sed 's/src_ip/IPv6NumToString(src_ip) AS src_ip/; s/dst_ip/IPv6NumToString(dst_ip) AS dst_ip/')
# the Distributed table over both shards, from a server of each: every record once (count, distinct rows)
for s in 11 22; do
  [ "$(rows "$s" hops_all)" = "$total" ] || fail "hops_all on server $s: $(rows "$s" hops_all) rows, the collectors wrote $total"
  d=$(q "$s" "SELECT count() FROM (SELECT DISTINCT $cols FROM hopwatch.hops_all)") || fail "DISTINCT on hops_all failed"
  [ "$d" = "$total" ] || fail "hops_all on server $s: $d distinct rows of $total"
done
q 11 "SELECT $cols FROM hopwatch.hops_all FORMAT JSONEachRow" >"$dir/all.rows" || fail "SELECT from hops_all failed"
python3 "$here/ch_compare.py" "$dir/all.rows" "$dir/c1.jsonl" "$dir/c2.jsonl" || fail "hops_all differs from both collectors' records"
echo "ok 2 shards x 2 replicas, replicas 11 (inserted into) and 22 killed mid-run: collector 1 failed over $f1 times;" \
  "${rec[1]} + ${rec[2]} records, $total rows in hops_all, none twice; each replica holds its shard's"
