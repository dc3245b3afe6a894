#!/usr/bin/env bash
# The live console (issue 20) end to end: a generated incast replayed at its own pace through
# `hopwatch-analyzer run --http`, then the page opened in headless Chromium and checked against truth.json
# (console_check.py); the JSON endpoints' errors and bad usage; the same incast stretched, watched live for
# the congested link's colour and clicked (console_live.py); then the rows of a leaf-spine:8,16,4 map (console_rows.py)
# and the map of a k=16 fat-tree (console_scale.py).
# Skips when Chromium is not installed.
# Usage: console.sh HOPWATCH-GEN HOPWATCH-ANALYZER SOURCE_ROOT ARTEFACT_DIR
set -u
. "$(dirname "$0")/lib.sh"
console_test_init "$@"
"$gen" scenario incast --out "$dir" --write-records >"$dir/gen.log" 2>&1 || fail "hopwatch-gen: $(tail -1 "$dir/gen.log")"

echo "== bad usage: exit 2"
"$an" run --jsonl "$dir/records.jsonl" --http nowhere >/dev/null 2>&1
[ $? -eq 2 ] || fail "--http nowhere: expected exit 2"

port=$(free_port)
mkdir -p "$dir/svg"
"$an" run --jsonl "$dir/records.jsonl" --lldp "$dir/lldp.pcap" --map "$dir/map.json" \
  --config "$src/data/samples/incast/analyzer.json" --pace recorded --svg-dir "$dir/svg" --svg-rate 0 \
  --http "127.0.0.1:$port" --hold 600 --quiet >"$dir/an.log" 2>&1 &
pid=$!
base=http://127.0.0.1:$port
echo "== the analyzer has the scenario's records (poll /api/fabric, up to 120 s)"
wait_console_records "$base" "$dir/truth.json" "$pid" "$dir/an.log"

echo "== the JSON endpoints"
code=$(curl -s -o /dev/null -w '%{http_code}' "$base/api/queue?node=x&port=1&queue=3")
[ "$code" = 400 ] || fail "/api/queue?node=x: HTTP $code, expected 400"
code=$(curl -s -o /dev/null -w '%{http_code}' "$base/api/nothing")
[ "$code" = 404 ] || fail "/api/nothing: HTTP $code, expected 404"
curl -sf "$base/console/" | grep -q '<script src="/console/console.js">' || fail "/console/ is not the page"
# every script the page loads comes from this server
grep -o '<script[^>]*src="[^"]*"' "$src/lib/outputs/console/index.html" | grep -v 'src="/console/' &&
  fail "the page loads a script from elsewhere"
svg=$(curl -sf "$base/api/incidents" | python3 -c '
import json, sys
print(next((x["svg"] for x in json.load(sys.stdin) if x.get("svg")), ""))')
[ -n "$svg" ] || fail "no incident links its graph (--svg-dir)"
curl -sf "$base/svg/$svg" | grep -q '<svg' || fail "/svg/$svg is not the incident's graph"

echo "== the page in headless Chromium"
python3 "$src/tests/analyzer/console_check.py" "$chromium" "$base" "$dir/truth.json" "$art" 240 || fail "console checks"
stop_analyzer "$dir/an.log"

# The incast lasts 2 ms of record time: played 2,500 times slower (detector windows scaled alike) it starts
# 2.2 s after the first record and lasts 5 s, so the page is up before it and "within 2 s" means something.
echo "== live: the culprit's link in the congestion colour within 2 s of the incast's start; link and host clicks"
stretch=2500
python3 "$src/tests/tools/stretch.py" records "$dir/records.jsonl" "$stretch" >"$dir/live.jsonl" || fail "stretch"
python3 "$src/tests/tools/stretch.py" config "$src/data/samples/incast/analyzer.json" "$stretch" \
  >"$dir/live.json" || fail "stretch config"
port=$(free_port)
python3 "$src/tests/analyzer/console_live.py" "$chromium" "$dir/truth.json" "$dir/live.jsonl" "$stretch" "$art" \
  "$port" -- "$an" run --jsonl - --lldp "$dir/lldp.pcap" --map "$dir/map.json" --config "$dir/live.json" \
  --pace recorded --http "127.0.0.1:$port" --hold 600 --quiet || fail "live console"

# serve_fabric TOPOLOGY NAME DURATION_US: a generated fabric's records served by `run --http` on $port (its pid in
# $pid), once the analyzer has records.
serve_fabric() {
  "$gen" scenario custom --topology "$1" --duration-us "$3" --out "$dir/$2" --write-records >"$dir/$2.log" 2>&1 ||
    fail "hopwatch-gen $1: $(tail -1 "$dir/$2.log")"
  port=$(free_port)
  "$an" run --jsonl "$dir/$2/records.jsonl" --lldp "$dir/$2/lldp.pcap" --map "$dir/$2/map.json" \
    --http "127.0.0.1:$port" --hold 600 --quiet >"$dir/$2-an.log" 2>&1 &
  pid=$!
  for _ in $(seq 600); do
    curl -sf "http://127.0.0.1:$port/api/fabric" | grep -q '"records":[1-9]' && return
    kill -0 "$pid" 2>/dev/null || { cat "$dir/$2-an.log"; fail "the analyzer exited"; }
    sleep 0.2
  done
}

# leaf-spine:8,16,4 in the 1600 x 1000 window of console_rows.py: the map pane is 3/5 of the width, about 950 x 975 px.
# Eight leaves to a row draw 800 x 380 units (a row of leaves with its hosts over the spines 100, a gap 40, the spines
# 60, a gap 40, the lower row with its hosts 100, a gap 40) at scale 1.18, above MIN_SCALE 0.75; every layout has a row
# of leaves on the deeper side and none fewer, and no other with one is larger (9-15 to a row: still two rows of 8,
# wider; 16: 1600 units wide, 0.59).  So: the spines in one row, two rows of leaves split about them, no switch link
# through a hosts box (fewer to a row, 5-7, would wrap the spines and put two rows of leaves under them).
echo "== leaf-spine:8,16,4: spines in one row, two rows of leaves about them"
serve_fabric leaf-spine:8,16,4 ls 100
python3 "$src/tests/analyzer/console_rows.py" "$chromium" "http://127.0.0.1:$port" "$dir/ls/truth.json" "$art" 1 2 ||
  fail "leaf-spine rows"
stop_analyzer "$dir/ls-an.log"

echo "== a k=16 fat-tree (320 switches, 1,024 hosts): every switch, hosts folded, no overlapping labels, < 2 s"
serve_fabric fat-tree:16 ft 200
python3 "$src/tests/analyzer/console_scale.py" "$chromium" "http://127.0.0.1:$port" "$dir/ft/truth.json" "$art" ||
  fail "fat-tree map"
stop_analyzer "$dir/ft-an.log"
echo "PASS"
