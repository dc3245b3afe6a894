#!/usr/bin/env bash
# RoceDscpMismatch where the source's marking enters the fabric, and only there (docs/analyzer.md, RoceDscpMismatch):
# a fabric drawn by score_sweep.py --vary (leaf-spine:2,8,8, seed 902, TR v0.5 postcards), host21 sending its RoCEv2
# data with DSCP 0 the whole run.  Each switch samples its postcards on its own (one per 100 packets), so some of
# host21's packets are assembled into paths that start at the receiver's leaf: that leaf's postcard is hop 0, and
# the detector raised a second alert there, at a port facing a spine (leaf1 Ethernet9), sending the operator to the
# wrong switch.  Checked against the simulation's truth: RoceDscpMismatch at the injected place (host21's leaf and
# port) and at no other port.
# Usage: dscp_first_hop.sh HOPWATCH-GEN HOPWATCH-ANALYZER
set -u
gen=$1 an=$2
. "$(dirname "$0")/lib.sh"
sweep_run "$gen" "$an" --topology leaf-spine:2,8,8 --format tr0.5 --seed 902 \
  --host-gbps 50 --fabric-gbps 800 --xoff-kb 405 --xon-kb 250 --buffer-kb 949 --load 0.35 --tcp-load 0.05 \
  --sample 100 --queue-report-kb 150 --queue-report-flow share \
  --event dscp-misconfig:host=host21,start_us=0,dur_us=5000
python3 - "$dir/truth.json" "$dir/ev.jsonl" <<'PY' || fail "RoceDscpMismatch not at the injected place alone"
import json, sys
place = json.load(open(sys.argv[1]))["events"][0]["place"]
raised = {(e["node"], e["port_name"]) for e in map(json.loads, open(sys.argv[2]))
          if e["event"] == "RoceDscpMismatch" and e["state"] == "firing"}
print("injected at", (place["node"], place["ifname"]), "raised at", sorted(raised))
sys.exit(0 if raised == {(place["node"], place["ifname"])} else 1)
PY
echo PASS
