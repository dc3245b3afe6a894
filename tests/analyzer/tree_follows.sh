#!/usr/bin/env bash
# A congestion tree that follows an incast (docs/analyzer.md, "Culprits and incidents"): the bundled sample's
# fabric (hopwatch-gen scenario incast, seed 1: 16 senders into host1 at leaf1 Ethernet1 queue 3).  Its background
# sends host23 (leaf3 Ethernet7) 2 x 30 G of RoCE and 5 G of TCP, under its 100 G port: the same fabric without
# the incast (scenario clean, seed 1, the same background flows) raises no CongestionTree and no Incast at all.
# With the incast, the incast's PFC pauses hold that traffic upstream, and it arrives together as they let go: a
# tree at leaf3 Ethernet7 about 2.5 ms later, whose queue had joined the incast's incident as its aftermath.  Its
# event must say so: "follows" names the Incast (its id, and its queue, the truth's injected place), and the
# follows of every event names an alert raised before it, of that kind, at that queue.  Then a PFC storm (below).
# Usage: tree_follows.sh HOPWATCH-GEN HOPWATCH-ANALYZER
set -u
gen=$(realpath "$1") an=$(realpath "$2")
. "$(dirname "$0")/lib.sh"
in_scenario incast "$gen"
"$an" run --jsonl records.jsonl --lldp lldp.pcap --map map.json --events ev.jsonl --svg-dir svg --quiet ||
  fail "incast run"
"$gen" scenario clean --out clean --write-records >/dev/null 2>&1 || fail "scenario clean failed"
"$an" run --jsonl clean/records.jsonl --lldp clean/lldp.pcap --map clean/map.json --events clean.jsonl --quiet ||
  fail "clean run"
python3 - truth.json clean.jsonl ev.jsonl <<'PY' || fail "the tree after the incast does not say what it follows"
import json, sys
truth = json.load(open(sys.argv[1]))
clean = [json.loads(l) for l in open(sys.argv[2])]
evs = [json.loads(l) for l in open(sys.argv[3])]
roots = [e for e in clean if e["event"] in ("Incast", "CongestionTree")]
assert not roots, f"the clean fabric raised {[(e['event'], e.get('node'), e.get('port_name')) for e in roots]}"
inc = next(t for t in truth["events"] if t["kind"] == "Incast")
where = f"{inc['place']['node']}:{inc['place']['ifname']}/{inc['place']['queue']}"
incast = [e for e in evs if e["event"] == "Incast" and e["state"] == "firing" and
          f"{e.get('node')}:{e.get('port_name')}/{e.get('queue')}" == where]
assert incast, f"no Incast at {where}"
tree = [e for e in evs if e["event"] == "CongestionTree" and e["state"] == "firing" and not e.get("update") and
        (e.get("node"), e.get("port_name"), e.get("queue")) == ("leaf3", "Ethernet7", 3)]
assert tree, "no CongestionTree at leaf3 Ethernet7 queue 3"
f = tree[0].get("follows")
assert f == {"event": "Incast", "id": incast[0]["id"], "queue": where}, f"its follows: {f}"
seen = set()
for e in evs:
    if "follows" in e:
        g = e["follows"]
        assert (g["event"], g["id"], g["queue"]) in seen, f"{e['event']} {e['id']} follows {g}, not raised before it"
    if e["state"] == "firing":
        seen.add((e["event"], e["id"], f"{e.get('node')}:{e.get('port_name')}/{e.get('queue')}"))
# the tree's graph, the one its alert links to, says it too, in its legend under the time
import glob, html
svg = glob.glob(f"svg/event-*-{tree[0]['id']}-CongestionTree.svg")
assert len(svg) == 1, f"the tree's graph: {svg}"
text = html.unescape(open(svg[0]).read())
said = f"after the Incast at leaf1 Ethernet1 queue 3 (event {incast[0]['id']})"
assert said in text, f"{svg[0]} does not say {said!r}"
# drawn again by the update that says the aftermath's burst, the legend keeps what the raise said too, as the alert
# does (hw_alert_keep_said): the raise's victims and root occupancy beside the update's burst
upd = [e for e in evs if e["event"] == "CongestionTree" and e["id"] == tree[0]["id"] and e.get("update")]
assert upd and "aftermath_bursts" in upd[-1]["numbers"] and "victims" not in upd[-1]["numbers"], upd
for words in ("victims 2, root occupancy", "as it drained"):
    assert words in text, f"{svg[0]}: its legend does not say {words!r}"
print(f"CongestionTree {tree[0]['id']} at leaf3:Ethernet7/3 follows Incast {incast[0]['id']} at {where}; "
      f"{sum('follows' in e for e in evs)} events say what they follow")
PY
cd / && rm -rf "$dir"
# A PFC storm is a cause of its own even at a queue an incast's aftermath reached: score_sweep.py's mix run on
# leaf-spine, TR v1.0, seed 2 (its --event list): an incast into host61 (leaf8 Ethernet5) from 0.964 ms to 2.209 ms,
# then host63 (leaf8 Ethernet7, the same leaf) stops draining from 2.658 ms (4 senders at 10 G).  leaf8 Ethernet7's
# HighQueue joins the incast's incident (its switch's queues were paused by it and let go), but the storm's tree,
# raised on a queue that has not drained since its host stopped, must not say it follows the Incast: its culprit is
# host63, not the incast.
sweep_run "$gen" "$an" --topology leaf-spine:4,8,8 --format tr1.0 --seed 2 \
  --event incast:dst=host61,senders=8,gbps=46.9,start_us=964,dur_us=1245 \
  --event pfc-storm:host=host63,senders=4,gbps=10,start_us=2658,dur_us=1000 \
  --event link-down:link=leaf8:Ethernet9,start_us=820,dur_us=1211
python3 - "$dir/truth.json" "$dir/ev.jsonl" <<'PY' || fail "the storm's tree says it follows another alert"
import json, sys
truth = json.load(open(sys.argv[1]))
evs = [json.loads(l) for l in open(sys.argv[2])]
storm = next(t for t in truth["events"] if t["kind"] == "CongestionTree")
at = (storm["place"]["node"], storm["place"]["ifname"], storm["place"]["queue"])
assert at == ("leaf8", "Ethernet7", 3), at
trees = [e for e in evs if e["event"] == "CongestionTree" and e["state"] == "firing" and
         (e.get("node"), e.get("port_name"), e.get("queue")) == at and
         storm["start_ns"] <= e["start_ns"] <= storm["end_ns"]]
assert trees, f"no CongestionTree at {at} while the storm lasts"
assert not any("follows" in e for e in trees), f"the storm's tree: {[e.get('follows') for e in trees]}"
print(f"the storm's CongestionTree {trees[0]['id']} at {at} follows nothing")
PY
echo "PASS"
