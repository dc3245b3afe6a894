#!/usr/bin/env bash
# A downlink whose own fan-in ends while a PFC storm behind it pauses it: a victim then, not a root (docs/analyzer.md,
# CongestionTree, "a tree that outlasts its Incast").  A fabric drawn by score_sweep.py --vary (fat-tree:4, seed 901,
# TR v0.5 postcards, the mix family: an incast into host16, a link down, and host12 pausing its 4 senders for 1 ms
# from 2.754 ms).  agg3-2 Ethernet2 (toward edge3-2) fills from the background's fan-in from the start; an Incast is
# raised there at 107 us and the tree found at that queue (264 us) goes into it.  The storm freezes edge3-2 Ethernet2
# (toward host12), which pauses agg3-2 Ethernet2 from 2.773 ms (truth.json).  When agg3-2's Incast ended (2.997 ms)
# its tree went on as a CongestionTree of its own, rooted at the storm's victim and naming six queues the storm's
# tree should have: a wrong culprit in score_sweep.py's terms.  Checked against the simulation's truth: no congestion
# alert at a queue the storm paused, raised while the storm had it paused (score_sweep.culprits), and a
# CongestionTree at the storm's place while it lasts, its victims ones the storm paused (storm_tree.py).
# Usage: victim_after_fanin.sh HOPWATCH-GEN HOPWATCH-ANALYZER SOURCE_ROOT
set -u
gen=$1 an=$2 src=$3
. "$(dirname "$0")/lib.sh"
sweep_run "$gen" "$an" --topology fat-tree:4 --format tr0.5 --seed 901 \
  --host-gbps 100 --fabric-gbps 200 --xoff-kb 146 --xon-kb 103 --buffer-kb 2165 --load 0.44 --tcp-load 0.02 \
  --sample 50 --queue-report-kb 62 --queue-report-flow share \
  --event incast:dst=host16,senders=4,gbps=44.3,start_us=1496,dur_us=1338 \
  --event pfc-storm:host=host12,senders=4,gbps=10,start_us=2754,dur_us=1000 \
  --event link-down:link=edge1-2:Ethernet3,start_us=1068,dur_us=1581
python3 - "$src/tools" "$dir/truth.json" "$dir/ev.jsonl" <<'PY' || fail "a congestion alert at a queue the storm paused"
import json, sys
sys.path.insert(0, sys.argv[1])
import score_sweep
truth = json.load(open(sys.argv[2]))
events = [json.loads(line) for line in open(sys.argv[3]) if line.strip()]
wrong = score_sweep.culprits(truth, events, int(1e6))  # the sweep's 1 ms slack
print("congestion alerts at the incidents' PFC victims while paused:", wrong)
sys.exit(1 if wrong else 0)
PY
storm_tree_check
