#!/usr/bin/env bash
# Whose traffic in the live console (issue 20, run --pods): an incast of 6 senders over 4 jobs (hopwatch-gen
# --jobs writes pods.json) replayed through `hopwatch-analyzer run --pods --http`; console_jobs.py checks the
# incident's jobs and the per-job latency matrices from headless Chromium's DOM; /api/latency?job= errors.
# Skips when Chromium is not installed.
# Usage: console_jobs.sh HOPWATCH-GEN HOPWATCH-ANALYZER SOURCE_ROOT ARTEFACT_DIR
set -u
. "$(dirname "$0")/lib.sh"
console_test_init "$@"
# 6 senders at 50 Gb/s into host1: every flow into its leaf port is among the event's 8 (HW_AN_MAX_FLOWS), so
# the jobs the Incast names are all of the truth's (as in tests/ident/ident_jobs.py)
"$gen" scenario custom --jobs 4 --event incast:dst=host1,senders=6,gbps=50,start_us=1000,dur_us=2000 \
  --duration-us 5000 --out "$dir" --write-records --quiet >"$dir/gen.log" 2>&1 ||
  fail "hopwatch-gen: $(tail -1 "$dir/gen.log")"
port=$(free_port)
"$an" run --jsonl "$dir/records.jsonl" --lldp "$dir/lldp.pcap" --map "$dir/map.json" --pods "$dir/pods.json" \
  --http "127.0.0.1:$port" --hold 600 --quiet >"$dir/an.log" 2>&1 &
pid=$!
base=http://127.0.0.1:$port
wait_console_records "$base" "$dir/truth.json" "$pid" "$dir/an.log"

echo "== /api/latency?job=: an unknown job 404, a window other than the whole run 400"
code=$(curl -s -o /dev/null -w '%{http_code}' "$base/api/latency?job=no-such-job")
[ "$code" = 404 ] || fail "/api/latency?job=no-such-job: HTTP $code, expected 404"
job=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["items"][0]["metadata"]["labels"]["job-name"])' \
  "$dir/pods.json")
code=$(curl -s -o /dev/null -w '%{http_code}' "$base/api/latency?job=$job&window=10")
[ "$code" = 400 ] || fail "/api/latency?job=$job&window=10: HTTP $code, expected 400"

echo "== the page in headless Chromium"
python3 "$src/tests/analyzer/console_jobs.py" "$chromium" "$base" "$dir" "$art" 240 || fail "console jobs"
stop_analyzer "$dir/an.log"
echo "PASS"
