#!/usr/bin/env python3
"""The check of the storm tests (storm_behind_tree.sh, storm_in_episode.sh, storm_after_incast.sh), against the
simulation's truth: a CongestionTree at the injected PFC storm's place, raised while the storm lasts, every victim it
names one of the queues the truth says the storm paused, at least congestion_tree.victims (2) of them.  Exit 0 when
there is one.
usage: storm_tree.py TRUTH.json EVENTS.jsonl"""
import json
import sys

truth = json.load(open(sys.argv[1]))
storm = next(e for e in truth["events"] if e["event"] == "pfc-storm")
place = storm["place"]
paused = {f"{q['node']}:{q['ifname']}/{q['queue']}" for q in storm["effects"]["paused_queues"]}
trees = [e for e in map(json.loads, open(sys.argv[2])) if e["event"] == "CongestionTree" and e["state"] == "firing"
         and e["node"] == place["node"] and e["port_name"] == place["ifname"] and e["queue"] == place["queue"]]
print(f"the storm at {place['node']} {place['ifname']} q{place['queue']} ({storm['start_ns']}-{storm['end_ns']}): "
      f"{len(trees)} trees there: {[(e['start_ns'], e.get('detail')) for e in trees]}")
ok = False
for e in trees:
    victims = e["detail"].split(", victims ", 1)[1].split() if ", victims " in e.get("detail", "") else []
    if storm["start_ns"] <= e["start_ns"] <= storm["end_ns"] and len(victims) >= 2 and set(victims) <= paused:
        ok = True
    elif victims and not set(victims) <= paused:
        print(f"FAIL: victims not paused by the storm (truth): {sorted(set(victims) - paused)}")
sys.exit(0 if ok else 1)
