#!/usr/bin/env python3
# The console's choice of rows for a mid-size leaf-spine fabric in headless Chromium: the rows of spines and of
# leaves it draws (distinct heights of their boxes) against the counts the caller worked out from the layout rule
# (docs/analyzer.md "Fabric map"), and console_check.py's geometry checks; saves a screenshot.
# Usage: console_rows.py CHROMIUM BASE_URL TRUTH_JSON ARTEFACT_DIR SPINE_ROWS LEAF_ROWS
import json
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from console_check import Dom, chromium, map_layout  # noqa: E402


def main():
    binary, base, truth_path, artefacts = sys.argv[1:5]
    want_spine_rows, want_leaf_rows = int(sys.argv[5]), int(sys.argv[6])
    topo = json.load(open(truth_path))["topology"]
    tier = {n["node"]: n["tier"] for n in topo["nodes"]}
    switches = {n for n, t in tier.items() if t != "host"}
    os.makedirs(artefacts, exist_ok=True)
    deadline = time.monotonic() + 120
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as profile:  # chromium's helpers may still write
        while True:  # until the whole fabric is drawn (the first snapshots may come before the topology)
            d = Dom()
            d.feed(chromium(binary, profile, "--dump-dom", f"{base}/console/"))
            drawn = {k[3:] for k in d.rect_of if k.startswith("sw-")}
            if drawn == switches or time.monotonic() > deadline:
                break
            time.sleep(1)
        chromium(binary, profile, f"--screenshot={os.path.join(artefacts, 'console-rows.png')}", f"{base}/console/")
    bad = []
    if drawn != switches:
        bad.append(f"{len(drawn)} switches on the map, the truth has {len(switches)}")
    rows = {}
    for k, r in d.rect_of.items():
        if k.startswith("sw-") and k[3:] in tier:
            rows.setdefault(tier[k[3:]], set()).add(round(r["y"]))
    spine_rows, leaf_rows = len(rows.get("spine", ())), len(rows.get("leaf", ()))
    if spine_rows != want_spine_rows:
        bad.append(f"spines in {spine_rows} rows, expected {want_spine_rows}")
    if leaf_rows != want_leaf_rows:
        bad.append(f"leaves in {leaf_rows} rows, expected {want_leaf_rows}")
    geometry, _, through = map_layout(d, tier)
    bad += geometry
    for x in bad:
        print("FAIL: " + x)
    print(f"console rows: {len(drawn)} switches, spines in {spine_rows} rows, leaves in {leaf_rows}, {through} links "
          f"between switches through hosts boxes; screenshot {artefacts}/console-rows.png")
    return 1 if bad else 0


sys.exit(main())
