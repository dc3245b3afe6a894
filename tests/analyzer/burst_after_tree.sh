#!/usr/bin/env bash
# A microburst at a host port of a leaf whose uplink queue an earlier tree named as a victim (docs/analyzer.md,
# Microburst and "Culprits and incidents"): a fabric drawn by score_sweep.py --vary (leaf-spine:4,16,8, seed 402,
# TR v1.0, 25G hosts under 200G switch links, Xoff 104 KB / Xon 81 KB, 32 % background RoCE load).  A background
# Incast at leaf1 Ethernet7 from 0.17 ms names leaf14 Ethernet12 as a victim and stays open; 4 senders burst into
# host108 (leaf14 Ethernet4) at 0.864 ms.  The switch reports the queue at 88 KB (over Xon, the burst level) and
# then stops reporting (below its report level): the burst is judged at a later tick, at the time of its last
# report.  The aftermath test read leaf14 Ethernet12's records from after that time as "not recent", took the queue
# for released by the old tree and folded the burst into the Incast's alert as its aftermath (aftermath_peak 88,015,
# the burst's own peak): no Microburst.  Checked against the simulation's truth: a Microburst at the burst's place
# while it lasts (+1 ms), and no other place's alert claiming a burst of that queue's records as its aftermath.
# Usage: burst_after_tree.sh HOPWATCH-GEN HOPWATCH-ANALYZER
set -u
gen=$1 an=$2
. "$(dirname "$0")/lib.sh"
sweep_run "$gen" "$an" --topology leaf-spine:4,16,8 --format tr1.0 --seed 402 \
  --host-gbps 25 --fabric-gbps 200 --xoff-kb 104 --xon-kb 81 --buffer-kb 2190 --load 0.32 --tcp-load 0.06 \
  --sample 500 --queue-report-kb 49 --queue-report-flow share \
  --event microburst:dst=host108,senders=4,gbps=10.8,start_us=864,dur_us=89
python3 - "$dir/truth.json" "$dir/records.jsonl" "$dir/ev.jsonl" <<'PY' || fail "the burst was not its own Microburst"
import json, sys
truth = json.load(open(sys.argv[1]))
burst = next(e for e in truth["events"] if e["kind"] == "Microburst")
place, lo, hi = burst["place"], burst["start_ns"], burst["end_ns"] + 1_000_000
at = (place["node_id"], place["port"], place["queue"])
# the burst queue's reported levels while it lasts: an aftermath_peak equal to one of them is this burst's
levels = {r["queue_occupancy"] for r in map(json.loads, open(sys.argv[2]))
          if (r["node_id"], r.get("egress_port"), r.get("queue_id")) == at and lo <= r["time_ns"] <= hi}
evs = [json.loads(l) for l in open(sys.argv[3])]
mine = [e for e in evs if e["event"] == "Microburst" and e["state"] == "firing" and
        (e["node"], e["port_name"], e["queue"]) == (place["node"], place["ifname"], place["queue"]) and
        lo <= e["start_ns"] <= hi]
claimed = [e for e in evs if e.get("numbers", {}).get("aftermath_peak") in levels and
           (e["node"], e["port_name"]) != (place["node"], place["ifname"])]
print(f"the burst at {place['node']} {place['ifname']} q{place['queue']}, records at {sorted(levels)}: "
      f"{len(mine)} Microburst there; claimed as the aftermath of {[(e['event'], e['node'], e['port_name']) for e in claimed]}")
sys.exit(0 if len(levels) and mine and not claimed else 1)
PY
echo "PASS"
