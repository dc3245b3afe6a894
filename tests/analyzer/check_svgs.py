#!/usr/bin/env python3
"""Checks the congestion graphs of one `hopwatch-analyzer run --svg-dir` against the scenario's truth.json:
every SVG is well-formed; the heat map has every topology link by id; the event SVGs at each injected
event's place show the congested queue and link in a congestion colour, the affected flows' paths hop by
hop as truth.json has them, and a congestion tree's root and victims; every raised congestion event names
an existing SVG.  Expected ids, places and paths come from truth.json and the config, not the program.

usage: check_svgs.py TRUTH.json EVENTS.jsonl SVG_DIR CONFIG.json"""
import glob
import json
import os
import re
import sys
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"
XLINK = "{http://www.w3.org/1999/xlink}"
# docs/analyzer.md: congestion levels by score (1 = at high_queue.raise)
LEVEL = {"elevated": "#e6ab02", "high": "#f16913", "severe": "#cb181d"}
CONGESTION = {"HighQueue", "HighHopLatency", "QueueBuildup", "Microburst", "PacketDrops", "Incast",
              "CongestionTree", "PathChange"}

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def sid(*parts):
    """An SVG id as docs/analyzer.md names them: characters outside [A-Za-z0-9._-] become '_'."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", "".join(parts))


def link_ids(a_node, a_if, b_node, b_if):
    return {sid("l-", a_node, ".", a_if, "--", b_node, ".", b_if), sid("l-", b_node, ".", b_if, "--", a_node, ".", a_if)}


def by_id(root):
    return {el.get("id"): el for el in root.iter() if el.get("id")}


def strokes(el):
    return {s.get("stroke") for s in el.iter() if s.get("stroke") and s.get("stroke") != "transparent"}


def fills(el):
    return {s.get("fill") for s in el.iter() if s.get("fill") and s.get("fill") not in ("none", "black")}


def text(el):
    return " ".join(t.text or "" for t in el.iter(SVG + "text"))


def tooltip(el):
    for a in el.iter(SVG + "a"):
        if a.get(XLINK + "title"):
            return a.get(XLINK + "title")
    return ""


def main():
    truth_path, events_path, svg_dir, config_path = sys.argv[1:5]
    truth = json.load(open(truth_path))
    cfg = json.load(open(config_path))
    raise_q = cfg.get("high_queue", {}).get("raise", 10000)
    topo = truth["topology"]
    peer = {}  # (node, ifname) -> (node, ifname) over the topology's links
    for l in topo["links"]:
        a, b = l["a"], l["b"]
        peer[(a["node"], a["ifname"])] = (b["node"], b["ifname"])
        peer[(b["node"], b["ifname"])] = (a["node"], a["ifname"])
    port_if = {}  # (node, port number) -> ifname
    for l in topo["links"]:
        for end in (l["a"], l["b"]):
            port_if[(end["node"], end["port"])] = end["ifname"]
    flows = {f["flow_hash"]: f for f in truth["flows"]}

    # 1. every SVG is well-formed XML, and nothing half-written is left
    trees = {}
    for path in glob.glob(os.path.join(svg_dir, "*")):
        if path.endswith(".csv"):  # the latency matrix's CSV shares the directory
            continue
        if path.endswith(".tmp"):
            fail(f"{path}: a temporary file was left behind")
            continue
        try:
            trees[os.path.abspath(path)] = ET.parse(path).getroot()
        except ET.ParseError as e:
            fail(f"{path}: not well-formed: {e}")
    print(f"{len(trees)} SVG files parsed")

    # 2. the heat map: every topology link by id
    heat = trees.get(os.path.abspath(os.path.join(svg_dir, "heatmap.svg")))
    if heat is None:
        fail("no heatmap.svg")
    else:
        ids = by_id(heat)
        missing = [l["id"] for l in topo["links"]
                   if not link_ids(l["a"]["node"], l["a"]["ifname"], l["b"]["node"], l["b"]["ifname"]) & ids.keys()]
        if missing:
            fail(f"heatmap.svg lacks {len(missing)} of {len(topo['links'])} links, e.g. {missing[:3]}")
        else:
            print(f"heatmap.svg: all {len(topo['links'])} links by id")
    if not glob.glob(os.path.join(svg_dir, "heatmap-*.svg")):
        fail("no timestamped heatmap-<ns>.svg")

    # 3. events: every raised congestion event names an existing SVG; resolves carry their raise's
    events = [json.loads(l) for l in open(events_path)]
    raised_svg = {}
    for e in events:
        if e["event"] not in CONGESTION:
            if "svg" in e:
                fail(f"event {e['id']} {e['event']} is not a congestion event but names an SVG")
            continue
        if e["state"] == "firing":
            if "svg" not in e:
                fail(f"raised {e['event']} {e['id']} names no SVG")
            elif os.path.abspath(e["svg"]) not in trees:
                fail(f"raised {e['event']} {e['id']}: {e['svg']} does not exist")
            else:
                raised_svg[e["id"]] = e["svg"]
        elif e["id"] in raised_svg and e.get("svg") != raised_svg[e["id"]]:
            fail(f"resolved {e['event']} {e['id']} names {e.get('svg')}, its raise {raised_svg[e['id']]}")
    print(f"{len(raised_svg)} raised congestion events, each with its SVG")

    # 3b. an event graph badges the event's own queues only (docs/analyzer.md): its place, and the victims its
    # alert names.  Those are the queues of the latest "victims" detail of its id up to the event the graph was
    # last drawn for ("root N:If/q, victims N:If/q ..."), at most 8; none before any.
    raised, named = {}, {}
    for e in events:
        if e["state"] != "firing" or e["id"] not in raised_svg:
            continue
        if "victims" in e.get("numbers", {}):
            vs = e.get("detail", "").split(", victims", 1)[-1].split() if ", victims" in e.get("detail", "") else []
            named[e["id"]] = {sid("q-", v.split(":")[0], ".", v.split(":")[1].rsplit("/", 1)[0], ".",
                                  v.rsplit("/", 1)[1]) for v in vs[:8]}
        if "svg" in e:  # drawn for this one (a graph over the rate is not drawn, and the event names none)
            raised[e["id"]] = dict(e, named_victims=set(named.get(e["id"], set())))
    most = 0
    for eid, e in raised.items():
        root = trees.get(os.path.abspath(e["svg"]))
        if root is None:
            continue
        ids = by_id(root)
        own = sid("q-", e["node"], ".", e.get("port_name", ""), ".", str(e.get("queue")))
        badges = [b for b in ids if b.startswith("q-")]
        most = max(most, len(badges))
        others = [b for b in badges if b != own and not text(ids[b]).startswith("victim")]
        if others:
            fail(f"{e['svg']} ({e['event']} {eid}): badges {others} are neither the event's queue {own} nor victims")
        victims = [b for b in badges if text(ids[b]).startswith("victim")]
        if set(victims) != e["named_victims"]:
            fail(f"{e['svg']} ({e['event']} {eid}): victims drawn {sorted(victims)}, its alert names "
                 f"{sorted(e['named_victims'])}")
        # and colours only its own links: the place's, the victims', those its drawn flows cross; the rest grey
        mine = set()
        if e.get("port_name") and (e["node"], e["port_name"]) in peer:
            mine |= link_ids(e["node"], e["port_name"], *peer[(e["node"], e["port_name"])])
        for b in victims:
            mine |= next((link_ids(n, i, *peer[(n, i)]) for (n, i) in peer if b.startswith(sid("q-", n, ".", i, "."))),
                         set())
        for fid, el in ids.items():
            if fid.startswith("flow-"):
                hops = [h.strip() for h in tooltip(el).split(":", 1)[-1].split(" > ")]
                for x, y in zip(hops, hops[1:]):
                    mine |= {lid for (n, i), (pn, pi) in peer.items() if n == x and pn == y
                             for lid in link_ids(n, i, pn, pi)}
        loud = [lid for lid, el in ids.items() if lid.startswith("l-") and strokes(el) & set(LEVEL.values())]
        if [lid for lid in loud if lid not in mine]:
            fail(f"{e['svg']} ({e['event']} {eid}): links {[l for l in loud if l not in mine][:4]} coloured, "
                 "though neither the event's place, a victim's nor on its flows' paths")
        if victims and e["event"] not in ("CongestionTree", "Incast"):
            fail(f"{e['svg']} ({e['event']} {eid}): victims {victims} marked on a {e['event']}")
        if len(victims) > 8:
            fail(f"{e['svg']} ({e['event']} {eid}): {len(victims)} victims, more than a tree keeps (8)")
    print(f"event graphs: at most {most} badges, each the event's queue or a victim; only their links and "
          "their flows' coloured")

    # 4. the injected events' places in their events' SVGs
    for t in truth["events"]:
        place = t.get("place", {})
        kind = t["kind"]
        if "ifname" not in place or kind not in CONGESTION:
            continue
        node, ifname, queue = place["node"], place["ifname"], place.get("queue")
        here = [e for e in events if e["state"] == "firing" and e.get("node") == node and
                e.get("port_name") == ifname and e.get("queue") == queue and e["id"] in raised_svg]
        mine = [e for e in here if e["event"] == kind]
        if not mine:
            fail(f"{kind} at {node} {ifname} queue {queue}: no raised event with an SVG there")
            continue
        truth_flows = {f["flow_hash"] for f in t.get("affected_flows", [])}
        drawn_truth_flows = listed_truth_flows = 0
        for e in here:
            root = trees[os.path.abspath(e["svg"])]
            ids = by_id(root)
            where = f"{e['svg']} ({e['event']} {e['id']})"
            if sid("n-", node) not in ids:
                fail(f"{where}: no node n-{node}")
            qid = sid("q-", node, ".", ifname, ".", str(queue))
            # the queue crossed the event's threshold, and every threshold of these kinds is at least
            # high_queue.raise in this config: its score is at least 1, so it is drawn "high" or "severe"
            need = {LEVEL["high"], LEVEL["severe"]}
            crossed = e["event"] in ("HighQueue", "Incast", "CongestionTree", "Microburst")
            if qid not in ids:
                fail(f"{where}: no badge {qid} for the congested queue")
            elif crossed and not fills(ids[qid]) & need:
                fail(f"{where}: badge {qid} filled {fills(ids[qid])}, expected one of {need}")
            lids = link_ids(node, ifname, *peer[(node, ifname)]) & ids.keys()
            if not lids:
                fail(f"{where}: no link for {node}:{ifname}")
            elif crossed and not strokes(ids[lids.pop()]) & need:
                fail(f"{where}: link of {node}:{ifname} not drawn in {need}")
            for h in truth_flows & {f for f in e["flows"]}:
                listed_truth_flows += 1
                fid = "flow-" + h
                if fid not in ids:
                    continue  # a flow whose path is not known yet (no full report)
                drawn_truth_flows += 1
                f = flows[h]
                path = [p for p in f["paths"] if p["from_ns"] <= e["start_ns"]][-1]["hops"]
                want = [hop["node"] for hop in path]
                last = port_if.get((path[-1]["node"], path[-1]["egress_port"]))
                if last and (path[-1]["node"], last) in peer:
                    want.append(peer[(path[-1]["node"], last)][0])
                got = tooltip(ids[fid]).split(":", 1)[-1].split(" > ")
                got = [g.strip() for g in got]
                if got != want:
                    fail(f"{where}: {fid} drawn through {got}, truth.json has {want}")
                if not strokes(ids[fid]) or strokes(ids[fid]) <= {"#b0b0b0"}:
                    fail(f"{where}: {fid} is not highlighted")
            if e["event"] == "CongestionTree":
                if qid in ids and not text(ids[qid]).startswith("ROOT"):
                    fail(f"{where}: the root {qid} is not marked ROOT ({text(ids[qid])!r})")
                upstream = {sid("q-", n, ".", i, ".", str(queue)) for (n, i), (pn, pi) in peer.items() if pn == node}
                # PFC spreads further up: the queues truth.json lists as paused by the injected events
                upstream |= {sid("q-", p["node"], ".", p["ifname"], ".", str(p["queue"]))
                             for t in truth.get("events", []) for p in t.get("effects", {}).get("paused_queues", [])}
                victims = [i for i, el in ids.items() if i.startswith("q-") and text(el).startswith("victim")]
                if not victims:
                    fail(f"{where}: no victims marked")
                for v in victims:
                    if v not in upstream:
                        fail(f"{where}: victim {v} is neither a queue on a link into {node} nor paused in truth.json")
                print(f"{where}: root {qid}, victims {sorted(victims)}")
        # an event lists its queue's latest flows: a long incast's senders are among them, a 40 us
        # microburst's may not be (one report in 100 is sampled)
        if (kind == "Incast" or listed_truth_flows) and not drawn_truth_flows:
            fail(f"{kind} at {node} {ifname}: none of the {len(truth_flows)} affected flows drawn in its events' SVGs")
        print(f"{kind} at {node} {ifname} queue {queue}: {len(here)} event SVGs there, "
              f"{drawn_truth_flows} affected flow paths drawn as truth.json has them")
        if heat is not None and place.get("queue") is not None and kind != "PathChange":
            peak = t.get("effects", {}).get("peak_queue_bytes", 0)
            lids = link_ids(node, ifname, *peer[(node, ifname)]) & by_id(heat).keys()
            if peak >= raise_q and lids and mine and not strokes(by_id(heat)[lids.pop()]) & {LEVEL["high"], LEVEL["severe"]}:
                fail(f"heatmap.svg: link of {node}:{ifname} (peak {peak} >= {raise_q}) not drawn high or severe")

    # PathChange on a link going down: the moved flows' SVGs show their new paths
    for t in truth["events"]:
        if t["kind"] != "PathChange":
            continue
        moved = {f["flow_hash"] for f in t.get("affected_flows", [])}
        n = n_old = n_single = 0
        for e in events:
            if e["event"] != "PathChange" or e["state"] != "firing" or e["id"] not in raised_svg:
                continue
            for h in moved & set(e["flows"]):
                ids = by_id(trees[os.path.abspath(e["svg"])])
                if "flow-" + h not in ids:
                    fail(f"{e['svg']}: the moved flow {h} is not drawn")
                    continue
                f = flows[h]
                path = [p for p in f["paths"] if p["from_ns"] <= e["start_ns"]][-1]["hops"]
                got = [g.strip() for g in tooltip(ids["flow-" + h]).split(":", 1)[-1].split(" > ")]
                if got[:len(path)] != [hop["node"] for hop in path]:
                    fail(f"{e['svg']}: flow {h} drawn through {got}, truth.json has {[x['node'] for x in path]}")
                # the path it left, dashed: truth.json's path before this one.  A PathChange is one alert per
                # cause carrying the path its first flow left; the outputs draw it when the alert has one flow.
                before = [p for p in f["paths"] if p["from_ns"] <= e["start_ns"]]
                if len(e["flows"]) == 1:
                    n_single += 1
                if len(before) >= 2 and len(e["flows"]) == 1:
                    old = [hop["node"] for hop in before[-2]["hops"]]
                    el = ids.get("flow-" + h + "-old")
                    got = [g.strip() for g in tooltip(el).split(":", 1)[-1].split(" > ")] if el is not None else None
                    if got is None or got[:len(old)] != old:
                        fail(f"{e['svg']}: old path of {h} drawn as {got}, truth.json has {old}")
                    elif not any(x.get("stroke-dasharray") for x in el.iter()):
                        fail(f"{e['svg']}: old path of {h} is not dashed")
                    else:
                        n_old += 1
                n += 1
        if not n or (n_single and not n_old):
            fail(f"PathChange: {n} moved flows drawn, {n_old} with the path they left")
        print(f"PathChange: {n} moved flows drawn on their new paths, {n_old} with the path they left (dashed)")

    if failures:
        print(f"{len(failures)} failures")
        sys.exit(1)
    print("ok")


main()
