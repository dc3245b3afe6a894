#!/usr/bin/env python3
# Fabrics outside the generator's defaults: tools/score_sweep.py's shapes, --gen-args and --vary draws, and the
# analyzer taking a scenario's speeds and PFC Xoff/Xon from its map.json (no configuration) instead of its defaults.
# usage: sweep_fabrics.py HOPWATCH-GEN HOPWATCH-ANALYZER
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import score_events as se  # noqa: E402
import score_sweep as sw  # noqa: E402

gen, an = sys.argv[1], sys.argv[2]
fails = []


def check(what, got, want):
    if got != want:
        fails.append(f"{what}: got {got!r}, want {want!r}")


# shapes: any leaf-spine:S,L,H; fat-tree:K with K even, 2-22 (hopwatch-gen's own limits)
for s, ok in (("leaf-spine", True), ("leaf-spine:2,4,4", True), ("leaf-spine:8,16,4", True), ("fat-tree:6", True),
              ("fat-tree:5", False), ("fat-tree:24", False), ("leaf-spine:2,4", False), ("leaf-spine:0,4,4", False),
              ("ring:4", False)):
    check(f"shape_ok({s})", sw.shape_ok(s), ok)

# leaf-spine:2,4,4: 4 leaves x 4 hosts = 16 hosts; a leaf's ports 1-4 face hosts, 5-6 the 2 spines; each spine's
# ports 1-4 face the 4 leaves: 8 spine links
f = sw.Fabric("leaf-spine:2,4,4")
check("2,4,4 hosts", f.hosts, 16)
check("2,4,4 leaves", f.leaves, ["leaf1", "leaf2", "leaf3", "leaf4"])
check("2,4,4 uplinks", f.uplinks, [5, 6])
check("2,4,4 spine links", len(f.spine_links), 8)
check("2,4,4 topology", f.topology, "leaf-spine:2,4,4")
# fat-tree:6: 6^3 / 4 = 54 hosts; 6 pods x 3 edge switches = 18; an edge's uplinks are ports 4-6
f = sw.Fabric("fat-tree:6")
check("k6 hosts", f.hosts, 54)
check("k6 edges", len(f.leaves), 18)
check("k6 uplinks", f.uplinks, [4, 5, 6])
# "leaf-spine" alone is the sweep's default 4,8,8
check("default topology", sw.Fabric("leaf-spine").topology, "leaf-spine:4,8,8")

# --gen-args: the last --host-gbps wins; none = the generator's 100
check("host_gbps none", sw.host_gbps(["--xoff-kb", "200"]), 100.0)
check("host_gbps last", sw.host_gbps(["--host-gbps", "50", "--xoff-kb", "200", "--host-gbps", "25"]), 25.0)

# incasts on 25G hosts: each sender at 10-50 % of its 25G link, 2.5 to 12.5 Gb/s (hopwatch-gen refuses a sender
# above its link); on the default 100G the sweep's old 10-50
for host, lo, hi in ((25.0, 2.5, 12.5), (100.0, 10.0, 50.0)):
    fab = sw.Fabric("leaf-spine:2,4,4", host)
    for seed in range(40):
        spec = sw.events_for("incast", fab, random.Random(seed))[0]
        g = float(spec.split("gbps=")[1].split(",")[0])
        if not lo <= g <= hi:
            fails.append(f"incast on {host}G hosts, seed {seed}: {g} Gb/s per sender, not in [{lo}, {hi}]")
        storm = sw.events_for("pfc-storm", fab, random.Random(seed))[0]
        g = float(storm.split("gbps=")[1].split(",")[0])
        if g > host:
            fails.append(f"pfc-storm on {host}G hosts, seed {seed}: {g} Gb/s per sender, above the link")

# --explain: what each alert counted against an injected incident is.  A PFC storm at leaf1 Ethernet3 queue 3 from
# 1.0 to 2.0 ms (slack 1 ms: alerts from 0 to 3.0 ms), spine1 Ethernet1 queue 3 paused by it, flow 7 touched:
#   HighQueue 10 at its place at 1.1 ms (raised again at 1.5 ms: the same id, counted once): place, during, own;
#   Microburst 11 at the paused spine queue at 1.2 ms: victim, during, another analyzer incident (9);
#   HighQueue 12 at leaf2 at 2.5 ms naming flow 7, in the storm's analyzer incident 5: flow, after (end 2.0 ms), own;
#   not counted: HighQueue 13 naming flow 7 elsewhere from 0.9 ms (began before the storm), HighQueue 14 at 3.5 ms
#   (past the slack), LinkUp (a topology fact).  Starts from the storm's: +100, +200, +1500 us.
ms = 1000000
storm = {"kind": "CongestionTree", "place": {"node": "leaf1", "ifname": "Ethernet3", "queue": 3}, "start_ns": ms,
         "end_ns": 2 * ms, "affected_flows": [{"flow_hash": 7}],
         "effects": {"paused_queues": [{"node": "spine1", "ifname": "Ethernet1", "queue": 3}]}}


def alert(kind, i, inc, node, port, t, flows=()):
    return {"event": kind, "id": i, "incident": inc, "node": node, "port_name": port, "queue": 3, "start_ns": t,
            "state": "firing", "flows": list(flows)}


evs = [alert("HighQueue", 10, 5, "leaf1", "Ethernet3", 1100000),
       alert("HighQueue", 10, 5, "leaf1", "Ethernet3", 1500000),
       alert("Microburst", 11, 9, "spine1", "Ethernet1", 1200000),
       alert("HighQueue", 12, 5, "leaf2", "Ethernet4", 2500000, [7]),
       alert("HighQueue", 13, 6, "leaf3", "Ethernet1", 900000, [7]),
       alert("HighQueue", 14, 8, "leaf4", "Ethernet1", 3500000, [7]),
       alert("LinkUp", 15, None, "leaf1", "Ethernet3", 1100000)]
got = sw.explain_alerts({"events": [storm]}, evs, ms)
check("explain: alerts counted", [(a["event"], a["id"], a["why"], a["when"], a["own"], a["start_us"]) for a in got[0]],
      [("HighQueue", 10, "place", "during", True, 100.0), ("Microburst", 11, "victim", "during", False, 200.0),
       ("HighQueue", 12, "flow", "after", True, 1500.0)])
check("explain: as many as incidents() counts", len(got[0]), sw.incidents({"events": [storm]}, evs, ms)[0])
# the clean run of the same fabric raised that Microburst at the spine queue at 1.5 ms (in the window 0-3 ms):
# background; its HighQueue at leaf2 at 3.2 ms is outside the window, so HighQueue 12 is not
job = ["pfc-storm", "leaf-spine", "tr2.0", 1]
runs = [{"job": job, "score": {"explain": got, "truth_windows": sw.truth_windows({"events": [storm]}, ms)}},
        {"job": ["clean"] + job[1:], "score": {"alert_places": [["Microburst", "spine1", "Ethernet1", 3, 1500000],
                                                                ["HighQueue", "leaf2", "Ethernet4", 3, 3200000]]}}]
tally, lines = sw.explain_tally(runs)
key = ("pfc-storm", "CongestionTree")
check("explain: tally", tally, {key + ("HighQueue", "place", "during", "own", "-"): 1,
                                key + ("Microburst", "victim", "during", "other", "background"): 1,
                                key + ("HighQueue", "flow", "after", "own", "-"): 1})
check("explain: lines", len(lines), 4)

# --vary: every draw within the documented ranges (score_sweep.py --help)
for shape in ("leaf-spine", "fat-tree:6", "leaf-spine:8,16,4"):
    for seed in range(1, 61):
        a = sw.vary_args(shape, seed)
        check(f"vary {shape} seed {seed}: queue reports by share", a[-2:], ["--queue-report-flow", "share"])
        a = a[:-2]
        v = {a[i][2:]: float(a[i + 1]) for i in range(0, len(a), 2)}
        bad = []
        if v["host-gbps"] not in (25, 50, 100, 200) or v["fabric-gbps"] not in (100, 200, 400, 800):
            bad.append("speed")
        if v["fabric-gbps"] < v["host-gbps"]:
            bad.append("fabric slower than hosts")
        if not (100 <= v["xoff-kb"] <= 800 and 0.6 * v["xoff-kb"] - 1 <= v["xon-kb"] <= 0.9 * v["xoff-kb"] + 1):
            bad.append("xoff/xon")
        if not (512 <= v["buffer-kb"] <= 4096 and 0.1 <= v["load"] <= 0.6 and 0 <= v["tcp-load"] <= 0.1):
            bad.append("buffer/load")
        if v["sample"] not in (20, 50, 100, 200, 500) or v["queue-report-kb"] != min(200, round(0.6 * v["xon-kb"])):
            bad.append("sample/queue reports")
        if bad:
            fails.append(f"vary {shape} seed {seed}: {', '.join(bad)}: {' '.join(a)}")
    check(f"vary {shape} same draw", sw.vary_args(shape, 7), sw.vary_args(shape, 7))

# An injected Incast whose queue the simulation never filled to its HighQueue threshold (PFC from congestion
# elsewhere held its senders) is unobservable, counted apart: at leaf1:Ethernet1/3 with Xoff 589000 (the RoCE
# queue's threshold), a peak of 77294 is below it: injected 0, unobservable 1; a peak of 600000 is at or above it:
# injected 1, and with no events raised, detected 0.
for peak, injected, hidden in ((77294, 0, 1), (600000, 1, 0)):
    place = {"node": "leaf1", "node_id": 7, "port": 1, "ifname": "Ethernet1", "queue": 3}
    truth = {"model": {"roce_queue": 3, "xoff_bytes": 589000, "xon_bytes": 385000},
             "events": [{"kind": "Incast", "event": "incast", "place": place, "start_ns": 1000, "end_ns": 2000,
                         "effects": {}}],
             "queues": [dict(place, peak_bytes=peak), dict(place, queue=0, peak_bytes=900000)]}
    row = se.score(truth, [], 1000000)["detectors"]["Incast"]
    check(f"Incast with its queue's peak {peak}", (row["injected"], row["detected"], row["unobservable"]),
          (injected, 0, hidden))

# An injected Microburst whose queue the switches reported but never at its burst level (PFC Xon of the RoCE queue,
# 385000 here) is unobservable too, counted apart as below the burst level: at leaf4:Ethernet2/3, queue reports
# from 200000.  Records peaking at 393508 (>= 385000): injected 1, none unobservable; at 320869 (>= 200000, < 385000):
# injected 0, unobservable 1, below the burst level 1; at 150000 (< 200000: never reported): unobservable 1, below 0.
for peak, want in ((393508, (1, 0, 0)), (320869, (0, 1, 1)), (150000, (0, 1, 0))):
    place = {"node": "leaf4", "node_id": 7, "port": 2, "ifname": "Ethernet2", "queue": 3}
    truth = {"model": {"roce_queue": 3, "xoff_bytes": 589000, "xon_bytes": 385000, "queue_report_bytes": 200000},
             "events": [{"kind": "Microburst", "event": "microburst", "place": place, "start_ns": 1000000,
                         "end_ns": 1084000, "effects": {}}], "queues": []}
    series = {(7, 2, 3): [(1048000, min(peak, 203474), None), (1090000, peak, None), (1161000, 100000, None)]}
    row = se.score(truth, [], 1000000, series)["detectors"]["Microburst"]
    check(f"Microburst with records up to {peak}", (row["injected"], row["unobservable"], row["below_burst_level"]),
          want)

# An injected CongestionTree (a PFC storm from 3 ms to 4 ms at leaf4:Ethernet2/3; slack 1 ms, so a raise from 2 ms
# counts) where a CongestionTree at that queue was raised at 0.8 ms: still firing at 3 ms (never resolved, or
# resolved at 3.5 ms), it is already alerted, counted apart (injected 0); resolved at 1.5 ms, before the storm, it
# is not, and the storm, raised nothing of its own, is a miss (injected 1, detected 0); a tree raised at 2.5 ms is
# the storm's own (within the slack before it): detected 1, none counted apart.
place = {"node": "leaf4", "node_id": 7, "port": 2, "ifname": "Ethernet2", "queue": 3}
ct_truth = {"model": {}, "queues": [], "events": [{"kind": "CongestionTree", "event": "pfc-storm", "place": place,
                                                   "start_ns": 3000000, "end_ns": 4000000, "effects": {}}]}
tree = dict(place, event="CongestionTree", state="firing", id=5, port_name="Ethernet2")
for what, evs, want in (("firing since 0.8 ms", [dict(tree, start_ns=800000)], (0, 0, 1)),
                        ("resolved at 3.5 ms", [dict(tree, start_ns=800000),
                                                dict(tree, state="resolved", start_ns=800000, end_ns=3500000)], (0, 0, 1)),
                        ("resolved at 1.5 ms", [dict(tree, start_ns=800000),
                                                dict(tree, state="resolved", start_ns=800000, end_ns=1500000)], (1, 0, 0)),
                        ("raised at 2.5 ms", [dict(tree, start_ns=2500000)], (1, 1, 0))):
    row = se.score(ct_truth, evs, 1000000)["detectors"]["CongestionTree"]
    check(f"CongestionTree {what}", (row["injected"], row["detected"], row["already_alerted"]), want)

# An injected PathChange (a link down from 2 ms to 3 ms; slack 1 ms, so its window ends at 4 ms) is observable when a
# flow it moved has a record with a path before 2 ms (the path it left) and one from 2 ms to 4 ms (the path it took);
# otherwise unobservable, counted apart.  Without the records (flows None) nothing can be judged: counted.
link = {"id": "leaf5.Ethernet9--spine1.Ethernet5", "a": {"node": "leaf5", "node_id": 5, "port": 9, "ifname": "Ethernet9"},
        "b": {"node": "spine1", "node_id": 1, "port": 5, "ifname": "Ethernet5"}}
pc_truth = {"model": {}, "queues": [],
            "events": [{"kind": "PathChange", "event": "link-down", "place": {"link": link}, "start_ns": 2000000,
                        "end_ns": 3000000, "effects": {},
                        "affected_flows": [{"id": 1, "flow_hash": "aaaa"}, {"id": 2, "flow_hash": "bbbb"}]}]}
for what, flows, want in (("before and during", {"aaaa": [1500000, 2500000]}, (1, 0)),
                          ("at the window's end", {"aaaa": [1500000, 4000000]}, (1, 0)),
                          ("one only before, one only during", {"aaaa": [2500000], "bbbb": [1500000]}, (0, 1)),
                          ("before and after the window", {"aaaa": [1500000, 4000001]}, (0, 1)),
                          ("a flow it did not move", {"cccc": [1500000, 2500000]}, (0, 1)),
                          ("no records", None, (1, 0))):
    row = se.score(pc_truth, [], 1000000, {}, None, flows)["detectors"]["PathChange"]
    check(f"PathChange observable: {what}", (row["injected"], row["unobservable"]), want)
# Queue records without a flow or without ports name no path: only the records with both fill flows.
with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
    for r in ({"time_ns": 1, "node_id": 5, "egress_port": 9, "queue_id": 3, "queue_occupancy": 10, "flow_hash": "aaaa"},
              {"time_ns": 2, "node_id": 5, "queue_id": 3, "queue_occupancy": 10, "flow_hash": "aaaa"},
              {"time_ns": 3, "node_id": 5, "egress_port": 9, "queue_id": 3, "queue_occupancy": 10}):
        f.write(json.dumps(r) + "\n")
flows = {}
se.queue_series(f.name, flows)
os.unlink(f.name)
check("flows from the records", flows, {"aaaa": [1]})

# After the link is back the flows it moved move again, seen at their next report: a PathChange after the window
# (4 ms) naming only moved flows is explained (right, not a detection) and among the incident's alerts; one naming
# another flow too, or none, is not; one within the window is the detection itself.  When the event was unobservable
# (its flows first seen at 2.5 ms, during it) the move back at 3.2 ms is still right, not a detection; a PathChange of
# those flows before the event began (1.5 ms) is not its.
seen, first_during = {"aaaa": [1500000, 2500000]}, {"aaaa": [2500000, 3200000]}
for what, flows, at, names, want in (("after, its flows", seen, 5000000, ["aaaa", "bbbb"], (0, 1, 1, True)),
                                     ("after, another flow too", seen, 5000000, ["aaaa", "cccc"], (0, 1, 0, False)),
                                     ("after, no flow", seen, 5000000, [], (0, 1, 0, False)),
                                     ("within the window", seen, 3500000, ["aaaa"], (1, 1, 1, True)),
                                     ("back, first seen during it", first_during, 3200000, ["aaaa"], (0, 1, 1, True)),
                                     ("before it, first seen during it", first_during, 1500000, ["aaaa"],
                                      (0, 1, 0, False))):
    ev = {"event": "PathChange", "state": "firing", "id": 9, "start_ns": at, "node": "leaf7", "flows": names}
    row = se.score(pc_truth, [ev], 1000000, {}, None, flows)["detectors"]["PathChange"]
    check(f"PathChange {what}", (row["detected"], row["raised"], row["matched"],
                                 sw.related(pc_truth["events"][0], ev, 1000000)), want)


# aggregate(): a congestion alert at a PFC victim that the same fabric's clean run (same shape, format, seed) raised
# too, the same kind, queue and start, is background (counted apart); one the clean run lacks, or one matching only
# another seed's clean run, is a wrong culprit.  Here: Microburst A in both seed 1 runs: background 1; HighQueue B
# only in the incast run: wrong 1; Microburst C in the incast run of seed 2 and in the clean run of seed 1: wrong 1.
def run(job, culprit_sigs, clean_sigs=None):
    s = {"detectors": {}, "incidents": [], "incident_ids": [], "notifications": [], "shown": [],
         "culprits": culprit_sigs, "unconfirmed": {}}
    if clean_sigs is not None:
        s["congestion_alerts"] = clean_sigs
    return {"job": job, "score": s}


A = ["Microburst", "spine1", "Ethernet3", 3, 1082000]
B = ["HighQueue", "spine1", "Ethernet3", 3, 1195000]
C = ["Microburst", "spine2", "Ethernet1", 3, 2000000]
det = {"Microburst": {"injected": 0, "detected": 0, "raised": 2, "matched": 2}, "HighQueue": {"raised": 1}}
incast1 = run(["incast", "leaf-spine", "tr2.0", 1], [A, B])
incast1["score"]["detectors"] = det
agg = sw.aggregate([run(["clean", "leaf-spine", "tr2.0", 1], [], [A, C]), incast1,
                    run(["clean", "leaf-spine", "tr2.0", 2], [], []), run(["incast", "leaf-spine", "tr2.0", 2], [C])])
check("background at a victim", agg["background_at_victim"], {"Microburst": 1})
check("wrong culprits", {k: (d["at_victim"], d["background_at_victim"]) for k, d in agg["detectors"].items()},
      {"Microburst": (1, 1), "HighQueue": (1, 0)})

# notifying(): the shipped route read from deploy/alertmanager/alertmanager.yml, the sink's incident labels
# (incident_labels(): an alert joins an incident raised within 1 s that shares a switch or a flow with it).  By
# hand: the bursts at node 7 (incidents 1 and 2, at 0 and 0.5 s: one label, "#7", no incident alert in it) share
# one digest, ("digest", 7); the HighQueue (a symptom) notifies nobody; at 2.8 s, 2.3 s after node 7's last raise,
# a burst at node 8 starts a new label, named by its start, 1970-01-01T00:00:02.800Z; the Incast of incident 4 at
# node 8 (3 s) joins it and hides that burst; PacketDrops at node 8 (3.2 s, no detector incident) joins it and
# notifies with the Incast; at 3.9 s a burst at node 7 (incident 5) is within 1 s of that label but shares no
# switch or flow with it: a label of its own (3.900Z), not hidden, in node 7's digest; a burst at node 9 naming
# flow 0xf of the Incast (3.95 s) joins the Incast's label and is hidden.
check("the shipped route: digest, inhibit, silent", (sw.DIGEST, "Microburst" in sw.SILENT), ({"Microburst"}, False))
S = 1000000000
evs = [{"event": "Microburst", "state": "firing", "id": 1, "incident": 1, "node_id": 7, "start_ns": 0},
       {"event": "HighQueue", "state": "firing", "id": 2, "incident": 1, "node_id": 7, "start_ns": 0},
       {"event": "Microburst", "state": "firing", "id": 3, "incident": 2, "node_id": 7, "start_ns": S // 2},
       {"event": "Microburst", "state": "firing", "id": 4, "incident": 3, "node_id": 8, "start_ns": 28 * S // 10},
       {"event": "Incast", "state": "firing", "id": 5, "incident": 4, "node_id": 8, "start_ns": 3 * S,
        "flows": [15]},
       {"event": "PacketDrops", "state": "firing", "id": 7, "node_id": 8, "start_ns": 32 * S // 10},
       {"event": "Microburst", "state": "firing", "id": 6, "incident": 5, "node_id": 7, "start_ns": 39 * S // 10},
       {"event": "Microburst", "state": "firing", "id": 8, "incident": 6, "node_id": 9, "start_ns": 395 * S // 100,
        "flows": [15]}]
check("incident labels", sw.incident_labels(evs),
      ["1970-01-01T00:00:00.000Z"] * 3 + ["1970-01-01T00:00:02.800Z"] * 3 + ["1970-01-01T00:00:03.900Z",
                                                                           "1970-01-01T00:00:02.800Z"])
check("notifying alerts and their notification", [(e["id"], k) for e, k in sw.notifying(evs)],
      [(1, ("digest", 7)), (3, ("digest", 7)), (5, "1970-01-01T00:00:02.800Z"), (7, "1970-01-01T00:00:02.800Z"),
       (6, ("digest", 7))])

# notifications(), own_notifications(), foreign(): an injected Incast at leaf1 Ethernet1 queue 3 (0-1 ms, its flow
# "a").  By hand: its Incast (label 00.000Z); a CongestionTree at leaf1 Ethernet5 (flow "b") joins that label by
# its switch, not related to the incast (another port, not its flow): a line of another cause in its notification;
# a CongestionTree at leaf5 (flow "c") touches nothing: label 00.000Z-2, not the incast's; PacketDrops at leaf5
# naming flow "a" joins leaf5's label by its own switch (before the incast's, which it touches by the flow only):
# related to the incast by the flow, so the incast's alerts are in 2 notifications, its own (at its place) in 1,
# and both labels carry an alert not related to it (the two trees): 2.
t = {"kind": "Incast", "start_ns": 0, "end_ns": 1000000, "affected_flows": [{"flow_hash": "a"}],
     "place": {"node": "leaf1", "ifname": "Ethernet1", "queue": 3}}
q = {"state": "firing", "queue": 3}
evs = [dict(q, event="Incast", id=1, incident=1, node="leaf1", port_name="Ethernet1", start_ns=100, flows=["a"]),
       dict(q, event="CongestionTree", id=2, incident=2, node="leaf1", port_name="Ethernet5", start_ns=200,
            flows=["b"]),
       dict(q, event="CongestionTree", id=3, incident=3, node="leaf5", port_name="Ethernet2", start_ns=300,
            flows=["c"]),
       dict(q, event="PacketDrops", id=4, node="leaf5", port_name="Ethernet2", start_ns=400, flows=["a"])]
check("labels by switch and flow", sw.incident_labels(evs), ["1970-01-01T00:00:00.000Z"] * 2 +
      ["1970-01-01T00:00:00.000Z-2"] * 2)
truth = {"events": [t]}
check("notifications, own, of other causes", (sw.notifications(truth, evs, 0), sw.own_notifications(truth, evs, 0),
                                               sw.foreign(truth, evs, 0)), ([2], [1], [2]))

# An MTU mismatch the topology knows (LLDP: its MtuMismatch, raised when the analyzer starts, 1 ms before the
# records) is a notification of its own, as the shipped route sends it (not a silent kind); the LinkUps of the
# start are not pushed to the sink at all.  By hand: the LinkUp at leaf1 is dropped; the MtuMismatch at leaf1
# Ethernet9 starts label 00.000Z; PacketDrops at leaf1 Ethernet9 2 ms later shares its switch and joins it.  Without
# the drops (a TR v0.5 fabric reports none), the injected mismatch on that link still has its own alert in 1
# notification, the MtuMismatch's (it was 0 while the scorer left the topology's alerts out, though the sink sends
# them: 5 of the 9 "in none" of the default 3-seed sweep).
t = {"kind": "MtuMismatch", "start_ns": 1000000, "end_ns": 6000000,
     "place": {"link": {"a": {"node": "leaf1", "ifname": "Ethernet9"}, "b": {"node": "spine2", "ifname": "Ethernet1"}}}}
evs = [{"event": "LinkUp", "state": "firing", "id": 1, "node": "leaf1", "port_name": "Ethernet9", "start_ns": 0},
       {"event": "MtuMismatch", "state": "firing", "id": 2, "node": "leaf1", "port_name": "Ethernet9",
        "link": "leaf1:Ethernet9--spine2:Ethernet1", "start_ns": 0},
       {"event": "PacketDrops", "state": "firing", "id": 3, "node": "leaf1", "port_name": "Ethernet9", "queue": 3,
        "start_ns": 2000000}]
check("the topology's alerts notify", [(e["id"], k) for e, k in sw.notifying(evs)],
      [(2, "1970-01-01T00:00:00.000Z"), (3, "1970-01-01T00:00:00.000Z")])
check("an MTU mismatch's own notification", sw.own_notifications({"events": [t]}, evs[:2], 1000000), [1])

d = tempfile.mkdtemp(prefix="hw-sweep-fabrics-")
try:
    # hopwatch-gen takes every draw (a 20 us run of the small fabric), and its map.json says that fabric
    for seed in (1, 2, 3):
        a = sw.vary_args("leaf-spine:2,4,4", seed)
        out = f"{d}/v{seed}"
        g = subprocess.run([gen, "scenario", "custom", "--topology", "leaf-spine:2,4,4", "--duration-us", "20",
                            "--out", out, "--quiet"] + a, capture_output=True, text=True)
        if g.returncode:
            fails.append(f"hopwatch-gen refused vary seed {seed}: {' '.join(a)}: {g.stderr.strip()}")
            continue
        v = {a[i][2:]: float(a[i + 1]) for i in range(0, len(a) - 2, 2)}
        fab = json.load(open(f"{out}/map.json")).get("fabric", {})
        # KB on the command line, bytes in the map (x 1000, docs/scenarios.md)
        check(f"map.json fabric, vary seed {seed}",
              (fab.get("host_gbps"), fab.get("fabric_gbps"), fab.get("xoff_bytes"), fab.get("xon_bytes"),
               fab.get("lossy_buffer_bytes")),
              (v["host-gbps"], v["fabric-gbps"], v["xoff-kb"] * 1000, v["xon-kb"] * 1000, v["buffer-kb"] * 1000))

    # An incast of 8 senders at 10 Gb/s into host3 (leaf1:Ethernet3) on 25G hosts with Xoff 200 KB / Xon 150 KB:
    # 80 Gb/s into 25 Gb/s, the RoCE queue (3) fills until PFC holds it near Xoff per ingress port.  With its
    # map.json the analyzer's HighQueue there is at that Xoff, 200 KB = 200000 bytes; with the same map without
    # its "fabric" object, at the default Xoff 400000.
    out = f"{d}/incast"
    g = subprocess.run([gen, "scenario", "custom", "--topology", "leaf-spine:2,4,4", "--host-gbps", "25",
                        "--fabric-gbps", "100", "--xoff-kb", "200", "--xon-kb", "150", "--duration-us", "2500",
                        "--event", "incast:dst=host3,senders=8,gbps=10,start_us=500,dur_us=1500", "--out", out,
                        "--write-records", "--quiet"], capture_output=True, text=True)
    if g.returncode:
        fails.append(f"hopwatch-gen: {g.stderr.strip()}")
    else:
        m = json.load(open(f"{out}/map.json"))
        del m["fabric"]
        json.dump(m, open(f"{out}/map-nofabric.json", "w"))
        for mp, want in (("map.json", 200000), ("map-nofabric.json", 400000)):
            ev = f"{out}/events-{mp}l"
            r = subprocess.run([an, "run", "--jsonl", f"{out}/records.jsonl", "--lldp", f"{out}/lldp.pcap", "--map",
                                f"{out}/{mp}", "--events", ev, "--quiet"], capture_output=True, text=True)
            if r.returncode:
                fails.append(f"hopwatch-analyzer with {mp}: {r.stderr.strip()}")
                continue
            evs = [json.loads(line) for line in open(ev) if line.strip()]
            hq = [e for e in evs if e["event"] == "HighQueue" and e["state"] == "firing" and e.get("node") == "leaf1"
                  and e.get("port_name") == "Ethernet3" and e.get("queue") == 3]
            check(f"HighQueue thresholds at leaf1:Ethernet3/3 with {mp}",
                  sorted({e["numbers"]["threshold"] for e in hq}), [want])

    # --queue-report-flow: the same incast with one sink report per 500 packets.  The queue reports of its
    # congested queue (Q flag without F: not a sink report) about the RoCE queue of leaf1:Ethernet3: with first, the
    # first flow with bytes there takes each, always the same one: 1 source; with share, each flow by its share of
    # the queue, about 1/8 for each of the 8 senders over some 150 reports (one per 10 us for 1.5 ms): at least 4
    # of them show (the analyzer's Incast needs 4).
    leaf1 = (10 << 24) | (255 << 16) | (1 << 8) | 1  # 10.255.1.1, docs/scenarios.md
    for how, least, most in (("first", 1, 1), ("share", 4, 99)):
        out = f"{d}/q-{how}"
        g = subprocess.run([gen, "scenario", "custom", "--topology", "leaf-spine:2,4,4", "--host-gbps", "25",
                            "--fabric-gbps", "100", "--xoff-kb", "200", "--xon-kb", "150", "--duration-us", "2500",
                            "--sample", "500", "--queue-report-flow", how, "--event",
                            "incast:dst=host3,senders=8,gbps=10,start_us=500,dur_us=1500", "--out", out,
                            "--write-records", "--quiet"], capture_output=True, text=True)
        if g.returncode:
            fails.append(f"hopwatch-gen --queue-report-flow {how}: {g.stderr.strip()}")
            continue
        srcs = set()
        for line in open(f"{out}/records.jsonl"):
            r = json.loads(line)
            fl = r.get("report_flags", [])
            if r.get("node_id") == leaf1 and r.get("egress_port") == 3 and r.get("queue_id") == 3 and \
                    "congested_queue" in fl and "tracked_flow" not in fl:
                srcs.add(r.get("src_ip"))
        if not least <= len(srcs) <= most:
            fails.append(f"--queue-report-flow {how}: {len(srcs)} sources in leaf1:Ethernet3/3's queue reports, "
                         f"want {least} to {most}")
finally:
    shutil.rmtree(d, ignore_errors=True)

for f in fails:
    print("FAIL", f)
print(f"{len(fails)} failures")
sys.exit(1 if fails else 0)
