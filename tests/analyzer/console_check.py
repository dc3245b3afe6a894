#!/usr/bin/env python3
# Opens the live console in headless Chromium and checks its DOM against a scenario's truth.json, polling
# (a fresh --dump-dom each turn) until every check holds or the deadline passes; saves a screenshot.
# Usage: console_check.py CHROMIUM BASE_URL TRUTH_JSON ARTEFACT_DIR [DEADLINE_S]
import html.parser
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from svg_layout import crosses  # noqa: E402

ALARM = "#c62828"  # console.js COLOUR[2]


class Dom(html.parser.HTMLParser):
    """Elements by id, the incident rows, the first rect of each port of the device panel, of each switch (sw-NAME)
    and of each leaf's host badge (hosts-LEAF), and the map's links."""

    def __init__(self):
        super().__init__()
        self.by_id, self.incidents, self.port_rect, self.body = {}, [], {}, {}
        self.rect_of, self.links = {}, []
        self.open_port = self.open_g = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.by_id[a["id"]] = a
        if tag == "body":
            self.body = a
        if tag == "tr" and "incident" in a.get("class", "").split():
            self.incidents.append(a)
        if tag == "line" and a.get("class") == "link":
            self.links.append(a)
        if tag == "g" and a.get("id", "").startswith(("sw-", "hosts-")):
            self.open_g = a["id"]
        elif tag == "rect" and self.open_g:
            self.rect_of[self.open_g] = {k: float(a[k]) for k in ("x", "y", "width", "height")}
            self.open_g = None
        if tag == "g" and a.get("class") == "port":
            self.open_port = a["id"]
        elif tag == "rect" and self.open_port:
            self.port_rect[self.open_port] = a
            self.open_port = None


def map_layout(d, tier):
    """What is wrong with the map's geometry: a leaf's host badge not on the far side of the leaf from the spines it
    links to; a link between two switches through the host badges of more rows of leaves than the rows split about
    the spines allow (docs/topology.md; none with two rows or fewer).  Also how many rows of leaves and how many
    switch links pass through a badge."""
    centre = {k[3:]: (r["x"] + r["width"] / 2, r["y"] + r["height"] / 2) for k, r in d.rect_of.items()
              if k.startswith("sw-")}
    badges = {k[6:]: r for k, r in d.rect_of.items() if k.startswith("hosts-")}
    spines_of = {}
    switch_links = []
    for ln in d.links:
        a, b = ln.get("data-a", "").rsplit(":", 1)[0], ln.get("data-b", "").rsplit(":", 1)[0]
        if a in centre and b in centre:
            switch_links.append((a, b, [float(ln[k]) for k in ("x1", "y1", "x2", "y2")]))
            for leaf, sp in ((a, b), (b, a)):
                if tier.get(leaf) == "leaf" and tier.get(sp) == "spine":
                    spines_of.setdefault(leaf, []).append(centre[sp][1])
    bad = []
    for leaf, r in badges.items():
        ys = spines_of.get(leaf)
        below = not ys or sum(ys) / len(ys) < centre[leaf][1]  # SVG y grows downwards
        if (r["y"] <= centre[leaf][1]) if below else (r["y"] + r["height"] >= centre[leaf][1]):
            bad.append(f"the host badge of {leaf} {'over' if below else 'under'} it, its spines "
                       f"{'over' if below else 'under'} it too")
    rows = sorted({round(c[1]) for n, c in centre.items() if tier.get(n) == "leaf"})
    through = {}  # link -> the rows of leaves whose badges it passes through
    for a, b, (x1, y1, x2, y2) in switch_links:
        for leaf, r in badges.items():
            # 1 px in on every side: a line that only grazes the badge is not counted
            box = (r["x"] + 1, r["y"] + 1, r["x"] + r["width"] - 1, r["y"] + r["height"] - 1)
            if crosses((x1, y1), (x2, y2), box):
                through.setdefault(f"{a}--{b}", set()).add(rows.index(round(centre[leaf][1])))
    # the rows split about the spines: at most the rows between a spine and the deeper side's end, ceil(n / 2) - 1
    most = (len(rows) + 1) // 2 - 1
    deep = [f"{k} through the host badges of rows {sorted(r)}" for k, r in through.items() if len(r) > most]
    if deep:
        bad.append(f"{len(deep)} links between switches through the host badges of more than {most} rows of "
                   f"leaves, e.g. {deep[:3]}")
    return bad, len(rows), len(through)


def chromium(binary, profile, *args):
    cmd = [binary, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
           f"--user-data-dir={profile}", "--window-size=1600,1000", "--virtual-time-budget=4000", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120).stdout


def main():
    binary, base, truth_path, artefacts = sys.argv[1:5]
    deadline = time.monotonic() + (float(sys.argv[5]) if len(sys.argv) > 5 else 180)
    truth = json.load(open(truth_path))
    topo = truth["topology"]
    tier = {n["node"]: n["tier"] for n in topo["nodes"]}
    switches = sorted(n for n, t in tier.items() if t != "host")
    # hosts under each leaf: the truth's host--leaf links
    hosts = {}
    for l in topo["links"]:
        for near, far in ((l["a"], l["b"]), (l["b"], l["a"])):
            if tier[near["node"]] == "leaf" and tier[far["node"]] == "host":
                hosts[near["node"]] = hosts.get(near["node"], 0) + 1
    incast = next(e for e in truth["events"] if e["kind"] == "Incast")
    place = incast["place"]
    node, ifname, queue = place["node"], place["ifname"], place["queue"]
    # the simulator's own peak occupancy of the culprit queue (bytes), not the analyzer's
    peak = next(q["peak_bytes"] for q in truth["queues"]
                if q["node"] == node and q["port"] == place["port"] and q["queue"] == queue)
    url = f"{base}/console/#device={node}&port={ifname}&queue={queue}"
    os.makedirs(artefacts, exist_ok=True)
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as profile:  # chromium's helpers may still write
        while True:
            text = chromium(binary, profile, "--dump-dom", url)
            d = Dom()
            d.feed(text)
            bad = []
            missing = [s for s in switches if f"sw-{s}" not in d.by_id]
            if missing:
                bad.append(f"switches not on the map: {missing}")
            extra = [k[3:] for k in d.by_id if k.startswith("sw-") and k[3:] not in switches]
            if extra:
                bad.append(f"nodes drawn as switches that are not switches of the truth: {extra}")
            for leaf, n in sorted(hosts.items()):
                h = d.by_id.get(f"hosts-{leaf}")
                if not h or h.get("data-count") != str(n):
                    bad.append(f"hosts of {leaf}: expected {n} folded, got {h and h.get('data-count')}")
            if any(k.startswith("hosts-") and k[6:] not in hosts for k in d.by_id):
                bad.append("hosts folded under a node that is not a leaf with hosts")
            rows = [r for r in d.incidents if r.get("data-kind") == "Incast" and r.get("data-node") == node and
                    r.get("data-port") == ifname]
            if not rows:
                bad.append(f"no Incast incident with culprit {node}:{ifname} among {len(d.incidents)} rows")
            # its tooltip is the alert's summary, in the words of its notification (docs/analyzer.md: "Incast:
            # culprit leaf1 (10.255.1.1) port Ethernet1 queue 3 toward host1, sources 16 ..."), not the raw detail
            want = f"Incast: culprit {node} ("
            if rows and not any(r.get("title", "").startswith(want) and
                                f" port {ifname} queue {queue} " in r.get("title", "") for r in rows):
                bad.append(f"the Incast row's tooltip {rows[0].get('title')!r}: expected the alert's summary, "
                           f"{want}... port {ifname} queue {queue} ...")
            port = d.by_id.get(f"port-{ifname}")
            rect = d.port_rect.get(f"port-{ifname}", {})
            if not port or port.get("data-state") != "2" or rect.get("fill") != ALARM:
                bad.append(f"device panel of {node}: {ifname} is {port and port.get('data-state')} "
                           f"{rect.get('fill')}, expected alarm (2, {ALARM})")
            ms = d.by_id.get("ms-peak-occ")
            got = int(ms["data-bytes"]) if ms else None
            if got is None or abs(got - peak) > 0.05 * peak:
                bad.append(f"ms view of {node} {ifname} q{queue}: peak {got}, truth {peak} (within 5 %)")
            geometry, leaf_rows, through = map_layout(d, tier)
            bad += geometry
            if d.body.get("data-label-overlaps") != "0":
                bad.append(f"map labels overlap: {d.body.get('data-label-overlaps')} pairs")
            if not bad:
                break
            if time.monotonic() > deadline:
                open(os.path.join(artefacts, "console-dom.html"), "w").write(text)
                for b in bad:
                    print("FAIL: " + b)
                return 1
            time.sleep(1)
        chromium(binary, profile, f"--screenshot={os.path.join(artefacts, 'console.png')}", url)
    print(f"console: {len(switches)} switches, hosts folded under {len(hosts)} leaves, Incast at {node}:{ifname} "
          f"in {len(d.incidents)} incident rows, {ifname} in alarm colour, ms peak {got} vs truth {peak}; "
          f"map built in {d.body.get('data-render-ms')} ms, {leaf_rows} rows of leaves, {through} switch links through "
          f"host badges; screenshot {artefacts}/console.png")
    return 0


if __name__ == "__main__":  # console_jobs.py imports chromium()
    sys.exit(main())
