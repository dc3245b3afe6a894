#!/usr/bin/env bash
# Flapping links in the live console (issue 20): `hopwatch-analyzer run --stream --lldpd-json DIR --http` over a
# generated leaf-spine's lldpcli dumps; console_flap.py takes one switch link out of the dumps and back, with a
# SIGHUP (topology reload) after each change, and checks the link's condition: down, up, down, flapping.
# The DOM part is skipped without Chromium.
# Usage: console_flap.sh HOPWATCH-GEN HOPWATCH-ANALYZER SOURCE_ROOT ARTEFACT_DIR
set -u
. "$(dirname "$0")/lib.sh"
gen=$(realpath "$1") an=$(realpath "$2") src=$(realpath "$3") art=$4
chromium=$(command -v chromium || command -v chromium-browser) || chromium=-
dir=$(mktemp -d)
pid=
trap 'stop_pid "$pid"; rm -rf "$dir"' EXIT
"$gen" scenario custom --topology leaf-spine:2,2,2 --duration-us 100 --out "$dir" --quiet >"$dir/gen.log" 2>&1 ||
  fail "hopwatch-gen: $(tail -1 "$dir/gen.log")"
cp -r "$dir/lldp" "$dir/orig"
port=$(free_port)
"$an" run --stream "unix:$dir/s.sock" --lldpd-json "$dir/lldp" --map "$dir/map.json" --topology-reload 0 \
  --events "$dir/events.jsonl" --http "127.0.0.1:$port" >"$dir/an.log" 2>&1 &
pid=$!
for _ in $(seq 600); do # up to 120 s for the first snapshot
  curl -sf "http://127.0.0.1:$port/api/fabric" | grep -q '"links":\[{' && break
  kill -0 "$pid" 2>/dev/null || { cat "$dir/an.log"; fail "the analyzer exited"; }
  sleep 0.2
done
python3 "$src/tests/analyzer/console_flap.py" "$chromium" "http://127.0.0.1:$port" "$pid" "$dir/lldp" "$dir/orig" \
  "$dir/events.jsonl" "$art" || { tail -5 "$dir/an.log"; fail "flapping link"; }
echo "PASS"
