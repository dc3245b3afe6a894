#!/usr/bin/env bash
# p4/hopwatch_v1model.p4 on a real three-switch BMv2 line (p4/README.md, "Run on BMv2"), end to end: network
# namespaces h1 > s1 > s2 > s3 > h2 and a collector bridge, three simple_switch processes loaded with
# p4/cli/*.txt, congestion made with set_queue_rate / set_queue_depth, UDP and TCP from h1 to h2; then the
# collector's records and the analyzer's events are checked (bmv2_line_check.py says what, and why).
# Usage: bmv2_line.sh HOPWATCH-COLLECTOR HOPWATCH-ANALYZER SOURCE_ROOT   (KEEP=1 keeps the work directory)
# Skipped (exit 77) unless p4test, p4c-bm2-ss, simple_switch and simple_switch_CLI are on PATH and it runs as
# root: CI cannot build p4c and BMv2, so it runs where a developer has built them (p4/README.md says how).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../collector/lib.sh"
[ $# = 3 ] || { echo "usage: $0 HOPWATCH-COLLECTOR HOPWATCH-ANALYZER SOURCE_ROOT" >&2; exit 2; }
col=$(realpath "$1") an=$(realpath "$2") src=$(realpath "$3")
for t in p4test p4c-bm2-ss simple_switch simple_switch_CLI; do
  command -v "$t" >/dev/null || skip "$t is not on PATH (build p4c and BMv2 as p4/README.md says)"
done
need_root
for t in ip ethtool python3; do command -v "$t" >/dev/null || skip "$t not found"; done

dir=$(mktemp -d)
tag=hwp4$$
pids=() # everything started in the background, stopped at exit
declare -A sw_pid
cleanup() {
  for p in "${pids[@]}"; do stop_pid "$p"; done
  for n in h1 h2 s1 s2 s3 c; do ip netns del "$tag-$n" 2>/dev/null; done
  wait 2>/dev/null
  if [ -n "${KEEP:-}" ]; then echo "kept $dir"; else rm -rf "$dir"; fi
}
trap cleanup EXIT
# ns NS COMMAND...: run COMMAND in namespace NS.  Not for a background job: $! would be the subshell's pid,
# and stopping it would leave the command running; those use ip netns exec directly.
ns() { local n=$1; shift; ip netns exec "$tag-$n" "$@"; }

# ---- the program: current p4c must compile it without a warning, as is and with NPT 1 (UDP port) ----
for variant in "hw" "hw_npt1 -DHW_INT_UDP_PORT=5000"; do
  set -- $variant
  out=$1
  shift
  p4c-bm2-ss --arch v1model "$@" -o "$dir/$out.json" "$src/p4/hopwatch_v1model.p4" >"$dir/$out.p4c" 2>&1 ||
    { cat "$dir/$out.p4c"; fail "p4c-bm2-ss $* failed"; }
  grep -i 'warning' "$dir/$out.p4c" && fail "p4c-bm2-ss $* printed warnings"
  # p4test: the front and mid end alone, which warn about what p4c-bm2-ss may not (an unused constant)
  p4test "$@" "$src/p4/hopwatch_v1model.p4" >"$dir/$out.p4test" 2>&1 ||
    { cat "$dir/$out.p4test"; fail "p4test $* failed"; }
  grep -i 'warning' "$dir/$out.p4test" && fail "p4test $* printed warnings"
done
echo "ok p4c $(p4c-bm2-ss --version 2>&1 | grep -m1 Version): p4test and p4c-bm2-ss print no warnings (NPT 0 and NPT 1 builds)"

# ---- namespaces and links (p4/README.md, the figure): ports 1 in, 2 out, 3 to the collector ----
for n in h1 h2 s1 s2 s3 c; do
  ip netns add "$tag-$n" || fail "cannot create network namespace $tag-$n"
  ns "$n" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
  ns "$n" ip link set lo up
done
link() { # NS1 IF1 NS2 IF2 [MTU]
  ip link add "$2" netns "$tag-$1" type veth peer name "$4" netns "$tag-$3" || fail "veth $1:$2 -- $3:$4"
  [ -n "${5:-}" ] && { ns "$1" ip link set "$2" mtu "$5"; ns "$3" ip link set "$4" mtu "$5"; }
}
link h1 h1-eth0 s1 s1-eth1
link s1 s1-eth2 s2 s2-eth1 1600 # inside the INT domain the links carry the INT headers on top
link s2 s2-eth2 s3 s3-eth1 1600
link s3 s3-eth2 h2 h2-eth0
for i in 1 2 3; do link "s$i" "s$i-eth3" c "c$i"; done

# hosts: p4/README.md's addresses and MACs, the gateway's MAC as a static neighbour (the switches route
# IPv4 only: no ARP), routes to the other subnets only (a default route would send everything to the
# switch, and off-subnet traffic becomes drop reports), TX checksum offload off (a veth leaves the TCP
# checksum to the receiver; BMv2 forwards the packet as it is, so h2 would see a bad checksum)
host() { # NS IF MAC ADDR GW GW_MAC ROUTE...
  local n=$1 ifc=$2 mac=$3 addr=$4 gw=$5 gwmac=$6
  shift 6
  ns "$n" ip link set "$ifc" address "$mac"
  ns "$n" ip addr add "$addr" dev "$ifc"
  ns "$n" ip link set "$ifc" up
  ns "$n" ip neigh replace "$gw" lladdr "$gwmac" dev "$ifc" nud permanent
  for r in "$@"; do ns "$n" ip route add "$r" via "$gw" dev "$ifc"; done
  ns "$n" ethtool -K "$ifc" tx off >/dev/null
  ns "$n" sysctl -qw net.ipv4.tcp_timestamps=0 # a TCP option: such segments are not instrumented
}
host h1 h1-eth0 00:00:00:00:01:01 10.0.1.1/24 10.0.1.254 00:00:0a:00:01:01 10.0.2.0/24 10.9.9.9/32
host h2 h2-eth0 00:00:00:00:02:02 10.0.2.2/24 10.0.2.254 00:00:0a:00:03:02 10.0.1.0/24
for i in 1 2 3; do for p in 1 2 3; do ns "s$i" ip link set "s$i-eth$p" up; done; done
# the collector: a bridge with the collector's MAC and address, the three report ports on it
ns c ip link add br0 type bridge
ns c ip link set br0 address 00:00:00:00:00:64
ns c ip addr add 10.0.0.100/24 dev br0
for i in 1 2 3; do ns c ip link set "c$i" master br0; ns c ip link set "c$i" up; done
ns c ip link set br0 up

# ---- the switches: each its own device id, Thrift port and notifications socket ----
start_switches() { # JSON
  for i in 1 2 3; do
    ip netns exec "$tag-s$i" simple_switch --device-id "$i" --thrift-port $((9089 + i)) \
      --notifications-addr "ipc://$dir/bmv2-$i-notifications.ipc" \
      -i "1@s$i-eth1" -i "2@s$i-eth2" -i "3@s$i-eth3" "$1" >"$dir/s$i.log" 2>&1 &
    sw_pid[$i]=$!
    pids+=("$!")
  done
  for i in 1 2 3; do
    for _ in $(seq 600); do
      echo | ns "s$i" simple_switch_CLI --thrift-port $((9089 + i)) >"$dir/probe" 2>&1 &&
        ! grep -q 'Could not connect' "$dir/probe" && continue 2
      kill -0 "${sw_pid[$i]}" 2>/dev/null || { cat "$dir/s$i.log"; fail "s$i exited"; }
      sleep 0.1
    done
    fail "s$i: no Thrift server on port $((9089 + i)) after 60 s"
  done
}
stop_switches() {
  for i in 1 2 3; do stop_pid "${sw_pid[$i]}"; done
}
cli() { # SWITCH (commands on stdin, '#' comments left out)
  grep -v '^#' | ns "s$1" simple_switch_CLI --thrift-port $((9089 + $1)) >"$dir/cli-s$1.out" 2>&1 ||
    { cat "$dir/cli-s$1.out"; fail "simple_switch_CLI s$1 failed"; }
  grep -Ei 'error|invalid|exception' "$dir/cli-s$1.out" && fail "simple_switch_CLI s$1 rejected a command"
  return 0
}
load_cli() {
  cli 1 <"$src/p4/cli/source.txt"
  cli 2 <"$src/p4/cli/transit.txt"
  cli 3 <"$src/p4/cli/sink.txt"
  # TCP to h2:5001 is watched too (as in tests/p4/data/README.md's second run)
  echo "table_add int_watchlist int_source_dscp 1&&&0xffff 0&&&0 0&&&0 6&&&0xff 0&&&0 0&&&0 5001&&&0xffff => 0xFC00 8 30" | cli 1
}

# ---- traffic helpers (Python: exact payloads, TOS, TTL and TCP MSS) ----
cat >"$dir/udp_send.py" <<'EOF'
# udp_send.py DST PORT SRC_PORT COUNT PPS [TTL]: COUNT datagrams, ECT(0), payload "hw" + 8-digit index
# padded to 64 bytes with the index's low byte (the receiver checks every byte)
import socket, sys, time
dst, port, sport, count, pps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, 0x02)
if len(sys.argv) > 6:
    s.setsockopt(socket.IPPROTO_IP, socket.IP_TTL, int(sys.argv[6]))
s.bind(("10.0.1.1", sport))
t0 = time.monotonic()
for i in range(count):
    body = b"hw%08d" % i
    s.sendto(body + bytes([i & 0xFF]) * (64 - len(body)), (dst, port))
    time.sleep(max(0.0, t0 + (i + 1) / pps - time.monotonic()))
EOF
cat >"$dir/udp_recv.py" <<'EOF'
# udp_recv.py PORT OUT: receive until 5 s pass without a datagram (60 s before the first, 300 s in all);
# write a JSON summary:
# datagrams, CE marks, DSCP not 0 (INT's DSCP not restored), payloads not as sent (INT not removed)
import json, socket, sys, time
port, out = int(sys.argv[1]), sys.argv[2]
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.IPPROTO_IP, socket.IP_RECVTOS, 1)
s.bind(("10.0.2.2", port))
s.settimeout(5)
n = ce = dscp = bad = 0
end = time.monotonic() + 300
with open(out + ".ready", "w"):
    pass
while time.monotonic() < end:
    try:
        data, anc, _, _ = s.recvmsg(2048, socket.CMSG_SPACE(1))
    except socket.timeout:
        if n or time.monotonic() > end - 240:
            break
        continue
    tos = next((c[2][0] for c in anc if c[0] == socket.IPPROTO_IP and c[1] == socket.IP_TOS), 0)
    n += 1
    ce += (tos & 3) == 3
    dscp += (tos >> 2) != 0
    i = int(data[2:10]) if data[:2] == b"hw" and data[2:10].isdigit() else -1
    bad += i < 0 or data != b"hw%08d" % i + bytes([i & 0xFF]) * 54
json.dump({"datagrams": n, "ce": ce, "dscp_not_restored": dscp, "bad_payload": bad}, open(out, "w"))
EOF
cat >"$dir/tcp.py" <<'EOF'
# tcp.py server OUT | tcp.py client N: N bytes (0..255 repeated) from h1 to h2:5001 with MSS 1400 (room for
# INT under the MTU); the server writes how many bytes arrived and whether they are the ones sent
import json, socket, sys
if sys.argv[1] == "server":
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, 1400)
    ls.bind(("10.0.2.2", 5001))
    ls.listen(1)
    ls.settimeout(120)
    with open(sys.argv[2] + ".ready", "w"):
        pass
    c, _ = ls.accept()
    c.settimeout(120)
    got = bytearray()
    while True:
        b = c.recv(65536)
        if not b:
            break
        got += b
    ok = all(got[i] == i & 0xFF for i in range(len(got)))
    json.dump({"bytes": len(got), "intact": ok}, open(sys.argv[2], "w"))
else:
    n = int(sys.argv[2])
    c = socket.socket()
    c.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, 1400)
    c.settimeout(120)
    c.connect(("10.0.2.2", 5001))
    c.sendall(bytes(i & 0xFF for i in range(n)))
    c.shutdown(socket.SHUT_WR)
    c.recv(1)
EOF
wait_file() { for _ in $(seq 600); do [ -e "$1" ] && return 0; sleep 0.1; done; fail "no $1 after 60 s"; }
udp_phase() { # NAME PORT SRC_PORT COUNT PPS [TTL]: h2 receives while h1 sends
  local name=$1 port=$2
  rm -f "$dir/$name.json" "$dir/$name.json.ready"
  ip netns exec "$tag-h2" python3 "$dir/udp_recv.py" "$port" "$dir/$name.json" &
  local rp=$!
  pids+=("$rp")
  wait_file "$dir/$name.json.ready"
  ns h1 python3 "$dir/udp_send.py" 10.0.2.2 "$port" "${@:3}" || fail "$name: sender failed"
  wait "$rp" || fail "$name: the receiver at h2 failed"
  cat "$dir/$name.json"
  echo
}

# ---- the collector (report bridge) and a second one at h2 (INT must be gone there) ----
ip netns exec "$tag-c" "$col" --pcap br0 --int-port 5000 --status-interval 1 --json-out "$dir/records.jsonl" 2>"$dir/col.err" &
colpid=$!
pids+=("$colpid")
ip netns exec "$tag-h2" "$col" --pcap h2-eth0 --status-interval 1 --json-out "$dir/h2.jsonl" 2>"$dir/h2col.err" &
h2pid=$!
pids+=("$h2pid")
wait_for_line "$dir/col.err" "status:" 60 || { cat "$dir/col.err"; fail "the collector did not start"; }
wait_for_line "$dir/h2col.err" "status:" 60 || { cat "$dir/h2col.err"; fail "the h2 collector did not start"; }

# ---- phase 1 (NPT 0): s2's egress to s3 drains 200 packets/s from a 64-packet queue; two bursts of
# 1000 datagrams at 500/s, 4 s apart (the queue drains and the quota re-arms in between) ----
start_switches "$dir/hw.json"
load_cli
printf 'set_queue_depth 64 2\nset_queue_rate 200 2\n' | cli 2
udp_phase burst1 4791 40001 1000 500
sleep 4
udp_phase burst2 4791 40001 1000 500
sleep 4
# ---- phase 2: the sink congested too (s3's egress to h2 at 100/s): its INT reports carry Q ----
printf 'set_queue_depth 64 2\nset_queue_rate 100 2\n' | cli 3
udp_phase sinkq 4791 40002 600 300
sleep 8
# ---- phase 3: drops: no route at s1 (reason 29), TTL expiring at s2 (26, no egress port chosen) ----
ns h1 python3 "$dir/udp_send.py" 10.9.9.9 4791 40003 3 10 || fail "sender failed"
ns h1 python3 "$dir/udp_send.py" 10.0.2.2 4791 40003 3 10 2 || fail "sender failed"
# ---- phase 4: TCP h1 -> h2:5001, INT in every data segment, checksums valid ----
rm -f "$dir/tcp.json" "$dir/tcp.json.ready"
ip netns exec "$tag-h2" python3 "$dir/tcp.py" server "$dir/tcp.json" &
tp=$!
pids+=("$tp")
wait_file "$dir/tcp.json.ready"
ns h1 python3 "$dir/tcp.py" client 60000 || fail "TCP client failed"
wait "$tp" || fail "the TCP server at h2 failed"
cat "$dir/tcp.json"
echo
stop_switches
# ---- phase 5 (NPT 1): the program built with HW_INT_UDP_PORT=5000, UDP to h2:6000 watched by port ----
start_switches "$dir/hw_npt1.json"
load_cli
echo "table_add int_watchlist int_source_udp_port 1&&&0xffff 0&&&0 0&&&0 17&&&0xff 0&&&0 0&&&0 6000&&&0xffff => 0xFC00 8 40" | cli 1
udp_phase npt1 6000 40004 50 50
sleep 2
stop_switches

term_exits_0 "$colpid" 30 "$dir/col.err"
term_exits_0 "$h2pid" 30 "$dir/h2col.err"
[ "$(count records "$dir/h2col.err")" = 0 ] || fail "h2 received INT: the collector at h2 decoded records"
# "records 0" means something only if that capture saw the traffic: h2's receivers get about 1200 packets
# (bursts of ~464 each = 2 s x 200/s + a 64-packet queue, ~200 with the sink congested, ~90 TCP, 50 NPT 1);
# 500 leaves room for a busy host's input drops
[ "$(count not_report "$dir/h2col.err")" -ge 500 ] || { cat "$dir/h2col.err"; fail "h2 saw too few packets"; }
echo "ok h2: $(count not_report "$dir/h2col.err") packets, none with INT"

# ---- the analyzer over everything, thresholds in BMv2 units (p4/analyzer-bmv2.json) ----
"$an" run --jsonl "$dir/records.jsonl" --config "$src/p4/analyzer-bmv2.json" --events "$dir/events.jsonl" \
  --quiet 2>"$dir/an.err" || { cat "$dir/an.err"; fail "hopwatch-analyzer run failed"; }
python3 "$here/bmv2_line_check.py" "$dir" || fail "checks failed (KEEP=1 keeps $dir)"
echo "ok: the BMv2 line"
