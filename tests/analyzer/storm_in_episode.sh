#!/usr/bin/env bash
# A PFC storm at a host port already congested (docs/analyzer.md, CongestionTree, "a host's port that stopped
# draining"): a fabric drawn by score_sweep.py --vary (fat-tree:8, seed 301, TR v0.5 postcards, 25G hosts under 800G
# switch links, Xoff 763 KB / Xon 624 KB, one report per 500 packets).  Background traffic holds edge5-4 Ethernet3
# (toward host79) in a HighQueue episode from about 1 ms before host79 starts pausing it at 1.486 ms for 1.84 ms.
# From then the queue is frozen, and the switch still sends its congested-queue postcards of it every 10 us; no
# tracked flow's postcard crosses it.  Two rules kept the stalled host from being seen: those postcards counted as
# packets leaving the port, and the episode's first crossings (before the storm) as well; and the storm paused only
# one queue on the links into edge5-4 (agg5-1 Ethernet4), the rest of its tree being one link further up (the core
# downlinks into agg5-1).  The tree came 1.9 ms after the storm had ended.  Checked against the simulation's truth
# (storm_tree.py): a CongestionTree at the storm's place raised while the storm lasts, every victim it names one of
# the queues the truth says the storm paused, at least congestion_tree.victims (2) of them.
# Usage: storm_in_episode.sh HOPWATCH-GEN HOPWATCH-ANALYZER
set -u
gen=$1 an=$2
. "$(dirname "$0")/lib.sh"
sweep_run "$gen" "$an" --topology fat-tree:8 --format tr0.5 --seed 301 \
  --host-gbps 25 --fabric-gbps 800 --xoff-kb 763 --xon-kb 624 --buffer-kb 2812 --load 0.15 --tcp-load 0.10 \
  --sample 500 --queue-report-kb 200 --queue-report-flow share \
  --event pfc-storm:host=host79,senders=2,gbps=20,start_us=1486,dur_us=1840
storm_tree_check
