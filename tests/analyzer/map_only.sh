#!/usr/bin/env bash
# Issue 15: `run --map` without an LLDP source places and names what the map describes: every record of a
# generated incast is placed and its Incast names the switch and port that the LLDP + map run names.
# Usage: map_only.sh HOPWATCH-GEN HOPWATCH-ANALYZER SOURCE_ROOT
set -u
gen=$(realpath "$1") an=$(realpath "$2") src=$(realpath "$3")
. "$src/tests/analyzer/lib.sh"
in_scenario incast "$gen"
cfg=(--config "$src/data/samples/incast/analyzer.json")
timeout -s KILL 120 "$an" run --jsonl records.jsonl --lldp lldp.pcap --map map.json "${cfg[@]}" \
  --events both.jsonl --summary-json both.json --quiet || fail "LLDP + map run"
timeout -s KILL 120 "$an" run --jsonl records.jsonl --map map.json "${cfg[@]}" \
  --events alone.jsonl --summary-json alone.json --quiet || fail "map-only run"
python3 - <<'PY' || fail "the map alone does not place or name as LLDP + map does"
import json, sys
both, alone = json.load(open("both.json")), json.load(open("alone.json"))
# map.json gives every switch its node id and every INT port N the name EthernetN (docs/scenarios.md), so
# each record with ports is placed: placed + unplaced = what the LLDP run places, unplaced 0.
print("placed: lldp+map %d, map %d; unplaced: %d, %d" % (both["placed"], alone["placed"], both["unplaced"],
      alone["unplaced"]))
ok = alone["placed"] > 0 and alone["unplaced"] == 0 and alone["placed"] == both["placed"] + both["unplaced"]
def places(path, kind):
    out = set()
    for line in open(path):
        e = json.loads(line)
        if e["event"] == kind and e["state"] == "firing":
            out.add((e.get("node", ""), e.get("port_name", "")))
    return out
inc_both, inc_alone = places("both.jsonl", "Incast"), places("alone.jsonl", "Incast")
print("Incast at: lldp+map", sorted(inc_both), "map", sorted(inc_alone))
# the incast's congested port is a named switch port (leafN:EthernetM), the one the LLDP run names
ok = ok and inc_alone and all(n and p.startswith("Ethernet") for n, p in inc_alone) and inc_alone <= inc_both
sys.exit(0 if ok else 1)
PY
echo PASS
