#!/usr/bin/env bash
# A PFC storm at a host port on a leaf where another root's tree already holds the paused links into the leaf
# (docs/analyzer.md, CongestionTree): a fabric drawn by score_sweep.py --vary (leaf-spine:8,16,4, seed 304, TR v0.5
# at one report in 500 packets, 44 % background RoCE load) whose leaf7 Ethernet4 roots a background tree from 0.59 ms;
# host27 (leaf7 Ethernet3) stops draining at 1.45 ms.  Nothing leaves its queue, so no report's path crosses it; before
# the host-root rule it got a HighQueue (a silent symptom) and no CongestionTree: the storm notified nobody.  Checked
# against the simulation's truth: a CongestionTree at the storm's place, raised while the storm lasts, every victim it
# names one of the queues the truth says the storm paused, at least congestion_tree.victims (2) of them.
# Usage: storm_behind_tree.sh HOPWATCH-GEN HOPWATCH-ANALYZER
set -u
gen=$1 an=$2
. "$(dirname "$0")/lib.sh"
sweep_run "$gen" "$an" --topology leaf-spine:8,16,4 --format tr0.5 --seed 304 \
  --host-gbps 100 --fabric-gbps 100 --xoff-kb 133 --xon-kb 97 --buffer-kb 2095 --load 0.44 --tcp-load 0.02 \
  --sample 500 --queue-report-kb 58 --queue-report-flow share \
  --event pfc-storm:host=host27,senders=2,gbps=20,start_us=1450,dur_us=2632
storm_tree_check
