#!/usr/bin/env python3
# The console's fabric map of a large fabric (a k=16 fat-tree: 320 switches, 1,024 hosts) in headless
# Chromium driven over DevTools (cdp.py): every switch drawn, every host folded, no two labels overlapping
# (bounding boxes), each spine right next to its own pod (svg_layout.py's rule), each hosts box on the far side of its
# leaf from the leaf's spines (pods over the super-spines upside down), and the map built in under 2 s of real time;
# saves a screenshot.
# Usage: console_scale.py CHROMIUM BASE_URL TRUTH_JSON ARTEFACT_DIR
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402
from svg_layout import misplaced_spines  # noqa: E402


def main():
    binary, base, truth_path, artefacts = sys.argv[1:5]
    topo = json.load(open(truth_path))["topology"]
    tier = {n["node"]: n["tier"] for n in topo["nodes"]}
    switches = sum(t != "host" for t in tier.values())
    hosts = sum(t == "host" for t in tier.values())
    os.makedirs(artefacts, exist_ok=True)
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as profile:  # chromium's helpers may still write
        b = cdp.Browser(binary, profile)
        try:
            b.call("Page.navigate", url=f"{base}/console/")
            # the map is rebuilt whenever the topology of a snapshot differs: wait for the whole fabric (a
            # loaded host or a sanitizer build may serve the first snapshots before the topology is drawn)
            b.wait_for(f"document.querySelectorAll('#map .sw').length === {switches} && "
                       "document.body.dataset.labelOverlaps !== undefined", 120)
            got = b.eval("({render: +document.body.dataset.renderMs, first: +document.body.dataset.firstMapMs,"
                         "overlaps: +document.body.dataset.labelOverlaps,"
                         "switches: document.querySelectorAll('#map .sw').length,"
                         "hosts: [...document.querySelectorAll('#map .hosts')]"
                         ".reduce((n, g) => n + +g.dataset.count, 0),"
                         "labels: document.querySelectorAll('#map text').length,"
                         "pos: Object.fromEntries([...document.querySelectorAll('#map .sw')].map((g) => "
                         "[g.id.slice(3), [+g.querySelector('text').getAttribute('x'), "
                         "+g.querySelector('text').getAttribute('y')]])),"
                         "badge: Object.fromEntries([...document.querySelectorAll('#map .hosts')].map((g) => "
                         "[g.dataset.leaf, +g.querySelector('rect').getAttribute('y')]))})")
            b.screenshot(os.path.join(artefacts, "console-fat-tree.png"))
        finally:
            b.close()
    bad = []
    if got["switches"] != switches:
        bad.append(f"{got['switches']} switches on the map, truth has {switches}")
    if got["hosts"] != hosts:
        bad.append(f"{got['hosts']} hosts folded under leaves, truth has {hosts}")
    if got["overlaps"] != 0:
        bad.append(f"{got['overlaps']} pairs of overlapping labels")
    pod, spines = misplaced_spines(topo, tier, {n: tuple(xy) for n, xy in got["pos"].items()})
    if len(set(pod.values())) != 16:
        bad.append(f"{len(set(pod.values()))} pods in the truth, a k=16 fat-tree has 16")
    if spines:
        bad.append(f"{len(spines)} spines not over their own pod, e.g. {spines[:3]}")
    # each leaf's hosts box on the far side of the leaf from its spines: under it, or over it in a row of pods
    # over the super-spines (docs/topology.md); labels' y is the box's centre plus about 4
    spine_y = {}
    for lk in topo["links"]:
        for leaf, sp in ((lk["a"]["node"], lk["b"]["node"]), (lk["b"]["node"], lk["a"]["node"])):
            if tier[leaf] == "leaf" and tier[sp] == "spine" and sp in got["pos"]:
                spine_y.setdefault(leaf, []).append(got["pos"][sp][1])
    wrong = [leaf for leaf, by in got["badge"].items() if leaf in got["pos"] and spine_y.get(leaf) and
             (by > got["pos"][leaf][1]) != (sum(spine_y[leaf]) / len(spine_y[leaf]) < got["pos"][leaf][1])]
    over = sum(1 for leaf, by in got["badge"].items() if leaf in got["pos"] and by < got["pos"][leaf][1])
    if wrong:
        bad.append(f"{len(wrong)} hosts boxes on the same side of their leaf as its spines, e.g. {wrong[:3]}")
    if not got["render"] < 2000:
        bad.append(f"the map took {got['render']} ms to build and paint (limit 2,000 ms)")
    for x in bad:
        print("FAIL: " + x)
    print(f"fat-tree map: {got['switches']} switches, {got['hosts']} hosts folded, {got['labels']} labels, "
          f"{got['overlaps']} overlapping, {len(set(pod.values()))} pods with every spine over its own: "
          f"{'no' if spines else 'yes'}, {over} hosts boxes over their leaf, {len(wrong)} on the side of its "
          f"spines; built and painted in {got['render']} ms, first drawn "
          f"{got['first']} ms after navigation; screenshot {artefacts}/console-fat-tree.png")
    return 1 if bad else 0


sys.exit(main())
