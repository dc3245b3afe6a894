#!/usr/bin/env bash
# A PFC storm whose first senders look like a fan-in (docs/analyzer.md, CongestionTree, "a tree folded into an Incast
# that ends as the host freezes"): a fabric drawn by score_sweep.py --vary (fat-tree:4, seed 501, TR v0.5 postcards,
# the mix family: an incast into host13, a link down, and host16 pausing its 4 senders for 1 ms from 2.524 ms).
# The storm's 4 senders filling edge4-2 Ethernet2 (toward host16) raise an Incast there 465 us into the storm, and
# the tree found at that root goes into it as an update (an Incast firing at a root takes its tree).  At 526 us the
# queue is frozen and the Incast ends ("the host stopped draining").  The tree was to be raised as its own alert at
# the next tick, about every millisecond of record time; by that tick the draining backlog had raised an Incast there
# again (1,462 us), which took the tree back, so the storm never got a CongestionTree.  Checked against the
# simulation's truth (storm_tree.py): a CongestionTree at the storm's place raised while the storm lasts, every
# victim it names one of the queues the truth says the storm paused, at least congestion_tree.victims (2) of them.
# Usage: storm_after_incast.sh HOPWATCH-GEN HOPWATCH-ANALYZER
set -u
gen=$1 an=$2
. "$(dirname "$0")/lib.sh"
sweep_run "$gen" "$an" --topology fat-tree:4 --format tr0.5 --seed 501 \
  --host-gbps 200 --fabric-gbps 400 --xoff-kb 332 --xon-kb 237 --buffer-kb 1993 --load 0.49 --tcp-load 0.07 \
  --sample 500 --queue-report-kb 142 --queue-report-flow share \
  --event incast:dst=host13,senders=15,gbps=43.8,start_us=1208,dur_us=1737 \
  --event pfc-storm:host=host16,senders=4,gbps=10,start_us=2524,dur_us=1000 \
  --event link-down:link=edge3-2:Ethernet4,start_us=1940,dur_us=1434
storm_tree_check
