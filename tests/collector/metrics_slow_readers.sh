#!/usr/bin/env bash
# /metrics with a full queue table and slow readers (issue 22 item 4): the per-queue series stop at
# --metrics-max-queues (the rest counted), and 24 clients that ask for /metrics and then read nothing
# share one rendered text instead of holding one copy each.
# Usage: metrics_slow_readers.sh HOPWATCH-GEN HOPWATCH-COLLECTOR
set -u
. "$(dirname "$0")/lib.sh"
gen=$1 col=$2
need_root
command -v curl >/dev/null || skip "curl not installed"
dir=$(mktemp -d)
cleanup() {
  exec 7>&- 2>/dev/null
  stop_pid "${cpid:-}"
  rm -rf "$dir"
}
trap cleanup EXIT
mport=$(free_port)
# 4000 switches, 7 hops a report: far more (node, port, queue) keys than the 16384-slot table holds
"$gen" reports --format tr2.0 --nodes 4000 --flows 100000 --count 60000 --hops 4-8 --seed 5 --out "$dir/q.pcap" \
  2>"$dir/gen.err" || fail "generator failed"
want=$(awk '$1 == "records" {print $2}' "$dir/gen.err")
echo '{ "queues": 16384 }' >"$dir/cfg.json"
"$col" -l 0-1 "${EAL_COMMON[@]}" --vdev="net_pcap0,rx_pcap=$dir/q.pcap" -- --config "$dir/cfg.json" \
  --metrics "127.0.0.1:$mport" --idle-exit 300 >/dev/null 2>"$dir/col.err" &
cpid=$!
wait_metrics_records "$mport" "$want" "$dir/m.txt" ||
  { cat "$dir/col.err"; fail "the collector's /metrics never showed $want records"; }
# the cap: 4096 queues (the default --metrics-max-queues) shown, the rest of the table counted
shown=$(grep -c '^hopwatch_queue_reports_total{' "$dir/m.txt")
omitted=$(awk '$1 == "hopwatch_collector_metrics_queues_omitted" {print $2}' "$dir/m.txt")
[ "$shown" -eq 4096 ] || fail "$shown queues shown, want the cap 4096"
[ "${omitted:-0}" -gt 0 ] || fail "a full table but hopwatch_collector_metrics_queues_omitted is '${omitted:-}'"
text_kib=$(($(stat -c %s "$dir/m.txt") / 1024))
rss() { awk '$1 == "VmRSS:" {print $2}' "/proc/$cpid/status"; }
before=$(rss)
# 24 readers from 24 addresses (8 per address is the server's limit), 4 KiB receive buffers,
# reading nothing: held open until this script closes fd 7
cat >"$dir/slow.py" <<'PY'
import select, socket, sys
port, n = int(sys.argv[1]), int(sys.argv[2])
socks = []
for i in range(n):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.bind(("127.0.0.%d" % (10 + i), 0))
    s.connect(("127.0.0.1", port))
    s.sendall(b"GET /metrics HTTP/1.0\r\n\r\n")
    socks.append(s)
for s in socks:  # every response has started
    if not select.select([s], [], [], 120)[0]:
        print("no answer in 120 s", flush=True)
        sys.exit(1)
print("started", flush=True)
sys.stdin.read()
PY
mkfifo "$dir/hold"
python3 "$dir/slow.py" "$mport" 24 <"$dir/hold" >"$dir/slow.out" 2>&1 &
exec 7>"$dir/hold"
wait_for_line "$dir/slow.out" started 180 || { cat "$dir/slow.out"; fail "the slow readers' responses never started"; }
held=$(rss)
grew=$((held - before))
exec 7>&-
# One shared text held for the 24 (plus transient rendering memory: open_memstream doubling, the merge
# hash, and under ASan its quarantine: +15 MiB plain, +65 MiB under ASan for this 13 MiB text); a copy per
# reader is about 24 x the text (a run with sharing turned off grew 315 MiB).  Bound: 10 x the text +
# 32 MiB, half of 24 copies, with room for a second rendering should a loaded host delay some requests by
# more than the 1 s sharing window.
bound=$((10 * text_kib + 32768))
echo "text $text_kib KiB ($shown queues shown, $omitted omitted); 24 stalled readers: RSS $before -> $held KiB (+$grew, bound $bound)"
[ "$grew" -le "$bound" ] || fail "RSS grew $grew KiB with 24 slow readers of a $text_kib KiB text (bound $bound)"
[ $((24 * text_kib)) -gt "$bound" ] || fail "test too weak: 24 copies ($((24 * text_kib)) KiB) within the bound"
kill -TERM "$cpid"; wait "$cpid" || fail "collector exit status after SIGTERM"
cpid=
echo "ok /metrics series cap and shared rendering"
