#!/usr/bin/env bash
# The replicated recipe of deploy/clickhouse (replicated.xml, replicated-schema.sh) on loopback: one
# ZooKeeper (Debian's zookeeper), two clickhouse-server replicas of one shard, the collector inserting
# into replica 1 from a FIFO fed in three parts.  Replica 2 is killed mid-run and restarted, then
# replica 1 (the one inserted into) is killed and restarted: both end with every record exactly once,
# and the collector's inserted count equals its records.
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
pid=() cpid= zkpid=
cleanup() {
  exec 3>&- 2>/dev/null
  [ -n "$cpid" ] && kill -TERM "$cpid" 2>/dev/null
  for p in "${pid[@]}" $zkpid; do kill -TERM "$p" 2>/dev/null; done
  for p in "${pid[@]}" $cpid $zkpid; do wait "$p" 2>/dev/null; done
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
cat >"$dir/zk/zoo.cfg" <<CFG
tickTime=2000
dataDir=$dir/zk/data
clientPort=$zkport
clientPortAddress=127.0.0.1
admin.enableServer=false
4lw.commands.whitelist=ruok
CFG
java -cp "$zkjar" org.apache.zookeeper.server.quorum.QuorumPeerMain "$dir/zk/zoo.cfg" >"$dir/zk/out.log" 2>&1 &
zkpid=$!
poll zk_ok || { tail -5 "$dir/zk/out.log"; skip "ZooKeeper did not start"; }

h=() t=()
for i in 1 2; do
  h[i]=$(free_port) t[i]=$(free_port)
  CH_HTTP=${h[i]} CH_TCP=${t[i]}
  CH_EXTRA_XML="<zookeeper><node><host>127.0.0.1</host><port>$zkport</port></node></zookeeper>
  <macros><shard>01</shard><replica>r$i</replica></macros>
  <interserver_http_port>$(free_port)</interserver_http_port><interserver_http_host>127.0.0.1</interserver_http_host>"
  ch_start "$dir/ch$i" || { tail -5 "$dir/ch$i/error.log" 2>/dev/null; fail "clickhouse-server $i did not start"; }
  pid[i]=$CH_PID
  "$src/deploy/clickhouse/replicated-schema.sh" >"$dir/schema.sql" || fail "replicated-schema.sh failed"
  ch_schema "$dir/schema.sql" || fail "the replicated schema did not load on replica $i"
done
unset CH_EXTRA_XML
q() { CH_HTTP=${h[$1]} CH_TCP=${t[$1]} ch_query "$2"; }
rows() { q "$1" "SELECT count() FROM hopwatch.hops" 2>/dev/null; }
[ "$(q 1 "SELECT engine FROM system.tables WHERE database = 'hopwatch' AND name = 'hops'")" = ReplicatedMergeTree ] ||
  fail "hopwatch.hops is not a ReplicatedMergeTree"
restart() { # i: clickhouse-server i back on its own config and data
  CH_HTTP=${h[$1]} CH_TCP=${t[$1]}
  ch_start "$dir/ch$1" || { tail -5 "$dir/ch$1/error.log"; fail "replica $1 did not restart"; }
  pid[$1]=$CH_PID
}
die() { kill -KILL "${pid[$1]}"; wait "${pid[$1]}" 2>/dev/null; pid[$1]=; }

# 3 x 2000 reports of 2-4 hops, fed to the collector through a FIFO part by part
"$gen" reports --format tr2.0 --count 6000 --hops 2-4 --seed 71 --out "$dir/r.pcap" 2>/dev/null || fail "generator failed"
part() { # FIRST LAST: pcap records FIRST..LAST-1 of r.pcap, with the file header when FIRST is 0
  python3 - "$dir/r.pcap" "$1" "$2" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read(); a, b = int(sys.argv[2]), int(sys.argv[3])
e = "<" if d[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
out, off, i = [d[:24]] if a == 0 else [], 24, 0
while off < len(d):
    n = struct.unpack_from(e + "I", d, off + 8)[0]
    if a <= i < b:
        out.append(d[off:off + 16 + n])
    off += 16 + n; i += 1
sys.stdout.buffer.write(b"".join(out))
PY
}
mkfifo "$dir/in.pcap"
"$col" --pcap "$dir/in.pcap" --json-out "$dir/c.jsonl" --clickhouse "http://127.0.0.1:${h[1]}/?database=hopwatch" \
  --clickhouse-batch 500 --clickhouse-batch-ms 100 2>"$dir/c.err" &
cpid=$!
exec 3>"$dir/in.pcap"
part 0 2000 >&3
has_rows() { local n; n=$(rows "$1") && [ "${n:-0}" -gt 0 ]; }
poll has_rows 2 || fail "replica 2 never received replica 1's rows"
die 2                                                           # replica 2 dies mid-run
before=$(rows 1)
part 2000 4000 >&3
grew() { local n; n=$(rows 1) && [ "$n" -gt "$before" ]; }
poll grew || fail "replica 1 took no rows while replica 2 was down"
restart 2                                                       # ... and comes back
die 1                                                           # now the replica being inserted into
part 4000 6000 >&3
poll grep -q "clickhouse .*: down (insert into" "$dir/c.err" || { cat "$dir/c.err"; fail "the sink never saw replica 1 down"; }
restart 1
poll grep -q "clickhouse .*: back after" "$dir/c.err" || { cat "$dir/c.err"; fail "the sink never saw replica 1 back"; }
exec 3>&-
wait "$cpid"; rc=$?; cpid=
[ $rc = 0 ] || { cat "$dir/c.err"; fail "collector exited $rc"; }
records=$(count json_written "$dir/c.err") ins=$(count clickhouse_inserted "$dir/c.err")
dropped=$(count clickhouse_dropped "$dir/c.err") retries=$(count clickhouse_retries "$dir/c.err")
# 6000 reports of 2-4 hops: each report gives hops + 1 records, so at least 6000 * 3 (the exact figure
# is the generator's choice of path lengths; the collector's own count is what both replicas must hold)
[ "$records" -ge 18000 ] || { cat "$dir/c.err"; fail "only $records records from 6000 reports of 2-4 hops"; }
[ "$dropped" = 0 ] || fail "$dropped records dropped"
[ "$retries" -gt 0 ] || fail "no retries while replica 1 was down"
[ "$ins" = "$records" ] || fail "the sink counted $ins inserted for $records records"
[ "$(grep -c . "$dir/c.jsonl")" = "$records" ] || fail "the JSON file does not hold $records records"
both() { [ "$(rows 1)" = "$records" ] && [ "$(rows 2)" = "$records" ]; }
poll both || fail "replicas hold $(rows 1) and $(rows 2) rows, the collector wrote $records"
cols=$(q 1 "SELECT arrayStringConcat(groupArray(name), ',') FROM system.columns WHERE database = 'hopwatch' AND table = 'hops' AND default_kind != 'MATERIALIZED'" | sed 's/src_ip/IPv6NumToString(src_ip) AS src_ip/; s/dst_ip/IPv6NumToString(dst_ip) AS dst_ip/')
for i in 1 2; do
  q "$i" "SELECT DISTINCT $cols FROM hopwatch.hops FORMAT JSONEachRow" >"$dir/r$i.rows" || fail "SELECT on replica $i failed"
  [ "$(grep -c . "$dir/r$i.rows")" = "$records" ] || fail "replica $i: $(grep -c . "$dir/r$i.rows") distinct rows of $records"
  python3 "$here/ch_compare.py" "$dir/r$i.rows" "$dir/c.jsonl" || fail "replica $i: rows differ from the records"
done
echo "ok two replicas, each killed once mid-run: $records records inserted ($retries retries), $records rows on each replica, none twice"
