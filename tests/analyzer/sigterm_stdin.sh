#!/usr/bin/env bash
# SIGTERM while `run --jsonl -` waits on a quiet pipe (issue 22 item 8): the analyzer stops at once, writes
# its summary and exits 0; before, the blocked read restarted and it ran until the writer closed the pipe.
# The records it had were analysed: the summary counts them.
# Usage: sigterm_stdin.sh HOPWATCH-ANALYZER
set -u
an=$1
. "$(dirname "$0")/lib.sh"
dir=$(mktemp -d)
cleanup() {
  [ -n "${wp:-}" ] && kill "$wp" 2>/dev/null
  stop_pid "${ap:-}"
  rm -rf "$dir"
}
trap cleanup EXIT
mkfifo "$dir/in"
# the writer: two records (one report of node 7 with two hops), then it keeps the pipe open without writing
(
  printf '%s\n' '{"time_ns":1000,"report_node":7,"report_seq":1,"format":"tr2.0","hop_index":0,"path_len":2,"node_id":6}' \
    '{"time_ns":1000,"report_node":7,"report_seq":1,"format":"tr2.0","hop_index":1,"path_len":2,"node_id":7}'
  exec sleep 300
) >"$dir/in" 2>/dev/null &
wp=$!
mport=$(free_port)
"$an" run --jsonl - --metrics "127.0.0.1:$mport" --summary-json - <"$dir/in" >/dev/null 2>"$dir/err" &
ap=$!
# /metrics answers once the handlers are in place and the input is being read: then stop it
for _ in $(seq 600); do curl --max-time 5 -sf "http://127.0.0.1:$mport/metrics" >/dev/null 2>&1 && break; sleep 0.1; done
curl --max-time 5 -sf "http://127.0.0.1:$mport/metrics" >/dev/null 2>&1 || { cat "$dir/err"; fail "no /metrics"; }
# the two lines are read when its main thread waits in a pipe read (wchan; without it, give it 2 s)
for _ in $(seq 100); do grep -q pipe "/proc/$ap/wchan" 2>/dev/null && break; sleep 0.1; done
grep -q pipe "/proc/$ap/wchan" 2>/dev/null || sleep 2
term_exits_0 "$ap" 10 "$dir/err" # before: blocked on its input until the writer closed it
ap=
records=$(python3 -c 'import json,sys
for l in open(sys.argv[1]):
    if l.startswith("{"):
        print(json.loads(l)["records"])' "$dir/err")
[ "$records" = 2 ] || { cat "$dir/err"; fail "the summary counts $records records, the pipe carried 2"; }
echo "ok SIGTERM on a quiet stdin: stopped at once, 2 records analysed, exit 0"
