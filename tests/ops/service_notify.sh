#!/usr/bin/env bash
# The collector as a systemd service, without systemd: NOTIFY_SOCKET points at a unix datagram socket a
# Python script listens on.  A libpcap collector on one end of a veth pair must send READY=1 once the
# capture is open, STATUS= lines and the status line on stderr with the packets it got, WATCHDOG=1
# while WATCHDOG_USEC is set, the kernel drop series on /metrics, and STOPPING=1 on SIGTERM.
# hopwatch-analyzer run on a live stream sends READY=1 once it listens, its status line, WATCHDOG=1 and
# STOPPING=1 on SIGTERM.
# Usage: service_notify.sh HOPWATCH-GEN HOPWATCH-COLLECTOR SEND_PCAP.PY SRCDIR HOPWATCH-ANALYZER
set -u
. "$(dirname "$0")/../collector/lib.sh"
gen=$1 col=$2 send=$3 src=$4 an=$5
need_root
command -v ip >/dev/null || skip "iproute2 missing"
command -v curl >/dev/null || skip "curl missing"
"$col" --help | grep -q -- --status-interval || fail "no --status-interval in --help"
ns=hwt-notify-$$
dir=$(mktemp -d)
cleanup() {
  stop_pid "${cpid:-}"
  stop_pid "${apid:-}"
  stop_pid "${lpid:-}"
  ip netns del "$ns" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
make_veth_ns "$ns"
# stop_ok PID ERR-FILE STATUS WHO: SIGTERM ends it with exit 0, and STOPPING=1 with that STATUS= arrives
stop_ok() {
  kill -TERM "$1"
  wait "$1"
  local rc=$?
  [ $rc = 0 ] || { cat "$2"; fail "$4 exited $rc after SIGTERM"; }
  wait_for_line "$dir/notify.log" "^STOPPING=1 | STATUS=$3" 30 || { cat "$dir/notify.log"; fail "$4: no STOPPING=1"; }
}
python3 "$src/tests/ops/notify_listen.py" "$dir/notify.sock" "$dir/notify.log" &
lpid=$!
for _ in $(seq 100); do [ -S "$dir/notify.sock" ] && break; sleep 0.1; done
[ -S "$dir/notify.sock" ] || fail "the notification listener did not bind $dir/notify.sock"

# 300 reports of 1..3 hops; each report is one frame, so the collector counts 300 packets
"$gen" reports --format tr2.0 --count 300 --hops 1-3 --seed 7 --out "$dir/r.pcap" 2>/dev/null || fail "generator failed"
mport=$(free_port)
# WATCHDOG_USEC without WATCHDOG_PID: sd_watchdog_enabled() takes it as meant for this process.
# JOURNAL_STREAM names the file standard error goes to, as journald names its stream: status lines then
# carry the syslog priority prefix <6> (info).
: >"$dir/col.err"
ip netns exec "$ns" env NOTIFY_SOCKET="$dir/notify.sock" WATCHDOG_USEC=2000000 \
  JOURNAL_STREAM="$(stat -c %d:%i "$dir/col.err")" \
  "$col" --pcap rx0 --status-interval 1 --metrics "127.0.0.1:$mport" --json-out "$dir/r.jsonl" \
  >/dev/null 2>>"$dir/col.err" &
cpid=$!

wait_for_line "$dir/notify.log" "^READY=1 | STATUS=receiving from rx0 with 1 worker" 60 ||
  { cat "$dir/col.err" "$dir/notify.log"; fail "no READY=1 with the first STATUS= line"; }
sent=$(ip netns exec "$ns" python3 "$send" tx0 "$dir/r.pcap" 2000) || fail "sending failed"
[ "$sent" = 300 ] || fail "sent $sent frames, want 300"
wait_for_line "$dir/col.err" "^<6>hopwatch-collector: status: packets 300 (" 60 ||
  { cat "$dir/col.err"; fail "no status line with packets 300 on stderr"; }
grep -q "^hopwatch-collector: status:" "$dir/col.err" && fail "a status line without its priority prefix"
wait_for_line "$dir/notify.log" "^STATUS=packets 300 (" 60 ||
  { cat "$dir/notify.log"; fail "no STATUS= line with packets 300"; }
# the watchdog is fed at half of WATCHDOG_USEC while the capture loop turns: at least two pings
t=0
while [ "$(grep -c '^WATCHDOG=1$' "$dir/notify.log")" -lt 2 ] && [ $t -lt 600 ]; do sleep 0.1; t=$((t + 1)); done
[ "$(grep -c '^WATCHDOG=1$' "$dir/notify.log")" -ge 2 ] || { cat "$dir/notify.log"; fail "fewer than two WATCHDOG=1"; }
ip netns exec "$ns" curl --max-time 10 -sf "http://127.0.0.1:$mport/metrics" -o "$dir/m.txt" || fail "no /metrics"
grep -q '^hopwatch_collector_pcap_dropped_packets_total{reason="kernel"} [0-9]' "$dir/m.txt" ||
  fail "no kernel drop series on /metrics"
grep -q '^hopwatch_collector_pcap_dropped_packets_total{reason="interface"} [0-9]' "$dir/m.txt" ||
  fail "no interface drop series on /metrics"
grep -q '^hopwatch_collector_ring_fill_ratio{worker="0"} [0-9]' "$dir/m.txt" || fail "no ring fill gauge on /metrics"
grep -q '^hopwatch_collector_packets_total 300$' "$dir/m.txt" || fail "/metrics does not count 300 packets"

stop_ok "$cpid" "$dir/col.err" "stopping" collector
cpid=
[ "$(count packets "$dir/col.err")" = 300 ] || fail "exit counters: packets $(count packets "$dir/col.err"), want 300"
echo "ok: READY, STATUS, WATCHDOG, STOPPING and the status line from a libpcap collector"

# the analyzer: READY=1 once its stream socket listens, its status line (--status-interval 1) on stderr
# and as STATUS=, WATCHDOG=1 while WATCHDOG_USEC is set, STOPPING=1 when SIGTERM ends the input
: >"$dir/notify.log"
env NOTIFY_SOCKET="$dir/notify.sock" WATCHDOG_USEC=2000000 \
  "$an" run --stream "unix:$dir/records.sock" --status-interval 1 --quiet >/dev/null 2>"$dir/an.err" &
apid=$!
wait_for_line "$dir/notify.log" "^READY=1 | STATUS=receiving live records" 60 ||
  { cat "$dir/an.err" "$dir/notify.log"; fail "analyzer: no READY=1"; }
[ -S "$dir/records.sock" ] || fail "analyzer: READY=1 before its stream socket exists"
# no records sent and no alert sink: 0 records, no peer to be down
wait_for_line "$dir/an.err" "hopwatch-analyzer run: status: records 0 (0/s), events raised 0, resolved 0; peers down: none$" 60 ||
  { cat "$dir/an.err"; fail "analyzer: no status line"; }
wait_for_line "$dir/notify.log" "^STATUS=records 0 (0/s), events raised 0" 60 ||
  { cat "$dir/notify.log"; fail "analyzer: no STATUS= with its status line"; }
t=0
while [ "$(grep -c '^WATCHDOG=1$' "$dir/notify.log")" -lt 2 ] && [ $t -lt 600 ]; do sleep 0.1; t=$((t + 1)); done
[ "$(grep -c '^WATCHDOG=1$' "$dir/notify.log")" -ge 2 ] || { cat "$dir/notify.log"; fail "analyzer: fewer than two WATCHDOG=1"; }
stop_ok "$apid" "$dir/an.err" "input ended" analyzer
apid=
echo "ok: READY, status line, STATUS, WATCHDOG and STOPPING from hopwatch-analyzer run --stream"
