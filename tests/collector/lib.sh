# Shared helpers for the collector's integration tests (sourced, not run).
# Each test creates what it needs (temp dir, network namespaces) and removes it on exit.

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
need_root() { [ "$(id -u)" -eq 0 ] || skip "needs root (network namespaces / DPDK)"; }

# count NAME FILE: the value of a "NAME N" line of the collector's end-of-run counters.
count() { awk -v k="$1" '$1 == k {print $2; f=1} END {if (!f) print 0}' "$2"; }

# Records without time_ns (live capture times are the receiver's, not the generator's).
strip_time() { sed -E 's/^\{"time_ns":[0-9]+,/{/' "$1"; }

# The DPDK EAL options every test uses: no hugepages, no shared config, no PCI scan.
EAL_COMMON=(--no-huge --no-shconf -m 512 --no-pci --log-level=4)

# wait_for_line FILE PATTERN SECONDS
wait_for_line() {
  local t=0
  while ! grep -q -- "$2" "$1" 2>/dev/null; do
    sleep 0.1; t=$((t + 1))
    [ "$t" -ge $(($3 * 10)) ] && return 1
  done
  return 0
}

# wait_metrics_records PORT RECORDS FILE: poll http://127.0.0.1:PORT/metrics (a fresh copy in FILE) until
# hopwatch_collector_records_total is RECORDS, for up to 2 minutes; 1 if it never is.
wait_metrics_records() {
  for _ in $(seq 600); do
    curl --max-time 30 -sf "http://127.0.0.1:$1/metrics" -o "$3" &&
      grep -q "^hopwatch_collector_records_total $2\$" "$3" && return 0
    sleep 0.2
  done
  return 1
}

# Report packets missing from each sender's sequence, worked out from a truth / records JSONL file.
truth_report_loss() {
  python3 - "$1" <<'PY'
import collections, json, sys
seqs = collections.defaultdict(set)
for line in open(sys.argv[1]):
    r = json.loads(line)
    seqs[(r["report_node"], r["hw_id"])].add(r["report_seq"])
print(sum(max(s) - min(s) + 1 - len(s) for s in seqs.values()))
PY
}

# start_ready NAME NS COMMAND...: COMMAND (a collector) inside network namespace NS, standard error to
# $dir/NAME.err, its NOTIFY_SOCKET a listener standing in for systemd's (tests/ops/notify_listen.py);
# returns once it has sent READY=1, which the collector sends when its capture is open and its workers
# run: a frame sent from then on is received, with no sleep before sending.  Sets cpid (the collector)
# and lpid (the listener; stop_pid it with the collector).
start_ready() {
  local name=$1 netns=$2
  shift 2
  python3 "$(dirname "${BASH_SOURCE[0]}")/../ops/notify_listen.py" "$dir/$name.sock" "$dir/$name.notify" &
  lpid=$!
  wait_for 30 "$name: the notification listener on $dir/$name.sock" test -S "$dir/$name.sock"
  ip netns exec "$netns" env NOTIFY_SOCKET="$dir/$name.sock" "$@" >/dev/null 2>"$dir/$name.err" &
  cpid=$!
  wait_for_line "$dir/$name.notify" "^READY=1 " 60 || { cat "$dir/$name.err"; fail "$name: collector did not start"; }
}

# veth_test NAME: how a test on a veth pair starts: root and iproute2 (else skip), a temporary directory
# $dir, a network namespace $ns holding tx0 <-> rx0 (make_veth_ns), and an EXIT trap that stops the
# processes in $cpid, $lpid and $opid that are set (a paused one is continued first), then removes both.
veth_test() {
  need_root
  command -v ip >/dev/null || skip "iproute2 missing"
  ns=hwt-$1-$$
  dir=$(mktemp -d)
  trap veth_test_cleanup EXIT
  make_veth_ns "$ns"
}

veth_test_cleanup() {
  local p
  for p in ${cpid:-} ${lpid:-} ${opid:-}; do
    kill -CONT "$p" 2>/dev/null
    stop_pid "$p"
  done
  ip netns del "$ns" 2>/dev/null
  rm -rf "$dir"
}

# make_veth_ns NS: a network namespace holding a veth pair tx0 <-> rx0, up, without IPv6 chatter.
make_veth_ns() {
  ip netns add "$1" || fail "cannot create network namespace $1"
  ip -n "$1" link add tx0 type veth peer name rx0 || fail "cannot create veth pair"
  for i in tx0 rx0; do
    ip netns exec "$1" sysctl -qw "net.ipv6.conf.$i.disable_ipv6=1"
    ip -n "$1" link set "$i" up
  done
  ip -n "$1" link set lo up
}

# A TCP port on 127.0.0.1 that nothing listens on right now, below the ephemeral range: tools/netutil.py, found from
# where this file is when sourced (the tests cd into scratch directories).
hw_netutil=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../tools" && pwd)/netutil.py
free_port() {
  python3 "$hw_netutil"
}

# term_exits_0 PID SECONDS ERRFILE: SIGTERM to PID (a child of this shell), which must exit within SECONDS
# with status 0; otherwise the test fails (showing ERRFILE on a bad status).
term_exits_0() {
  local pid=$1 secs=$2 errfile=$3 rc
  kill -TERM "$pid"
  for _ in $(seq $((secs * 10))); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$pid" 2>/dev/null && fail "still running $secs s after SIGTERM"
  wait "$pid"
  rc=$?
  [ "$rc" -eq 0 ] || { cat "$errfile"; fail "exit status $rc after SIGTERM"; }
}

# cleanup_pids_dir DIR PID...: for an EXIT trap: kill the PIDs that are set, remove DIR.
cleanup_pids_dir() {
  local d=$1 p
  shift
  for p in "$@"; do [ -n "$p" ] && kill "$p" 2>/dev/null; done
  rm -rf "$d"
}

# stop_pid PID: SIGTERM, then SIGKILL if it is still there after 10 s (a test never hangs on it).
stop_pid() {
  [ -n "$1" ] || return 0
  kill -TERM "$1" 2>/dev/null || return 0
  for _ in $(seq 100); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done
  kill -KILL "$1" 2>/dev/null
}

# wait_for SECONDS WHAT COMMAND...: poll COMMAND every 0.1 s until it succeeds; when it never does, fail
# naming WHAT (and return 1, for a test whose fail counts and goes on).
wait_for() {
  local secs=$1 what=$2
  shift 2
  for _ in $(seq $((secs * 10))); do
    "$@" && return 0
    sleep 0.1
  done
  fail "$what: not within $secs s"
  return 1
}

# self_signed_cert DIR: DIR/cert.pem and DIR/key.pem, a self-signed certificate for 127.0.0.1 (the HTTP
# servers' --tls-cert/--tls-key; curl --cacert DIR/cert.pem trusts it).
self_signed_cert() {
  command -v openssl >/dev/null || skip "openssl not installed"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=127.0.0.1 \
    -addext subjectAltName=IP:127.0.0.1 -keyout "$1/key.pem" -out "$1/cert.pem" 2>"$1/openssl.err" ||
    { cat "$1/openssl.err"; fail "openssl could not make a certificate"; }
}

# live_capture PCAP FIFO: make the named pipe FIFO and write PCAP into it in the background, then hold it open
# for up to 10 minutes: a collector reading `--pcap FIFO` takes every record and stays live until SIGTERM.
# Sets wpid (the writer, for the EXIT trap).
live_capture() {
  mkfifo "$2" || fail "cannot make the named pipe $2"
  python3 -c '
import sys, time
with open(sys.argv[2], "wb") as out:
    out.write(open(sys.argv[1], "rb").read()); out.flush()
    time.sleep(600)' "$1" "$2" &
  wpid=$!
}
