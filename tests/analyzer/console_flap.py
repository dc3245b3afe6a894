#!/usr/bin/env python3
# Flapping links in the live console: takes a switch link out of the lldpcli dumps and puts it back, reloading
# the analyzer's topology (SIGHUP) after each change, and checks /api/fabric after each reload (down, up, down,
# then flapping: 4 changes, more than FLAP_CHANGES = 3 within FLAP_WINDOW_S = 600 s) and, at the end, the map
# in headless Chromium's DOM: that link dotted in the flapping colour, every other link up.
# Usage: console_flap.py CHROMIUM|- BASE_URL ANALYZER_PID DUMPS_DIR ORIGINAL_DUMPS_DIR EVENTS_JSONL ARTEFACT_DIR
import html.parser
import json
import os
import signal
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from console_check import chromium  # noqa: E402

FLAPPING = "#8e24aa"  # console.js FLAPPING
TIMEOUT = 120  # s for each reload to show


def dump_docs(text):
    """The JSON documents of an lldpcli dump (show chassis, then show neighbors: one after the other)."""
    dec, i, out = json.JSONDecoder(), 0, []
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i == len(text):
            return out
        doc, i = dec.raw_decode(text, i)
        out.append(doc)


def write_dump(orig, path, drop):
    """orig's dump without the neighbour on interface drop (None: all of it), written and renamed."""
    docs = dump_docs(open(orig).read())
    for d in docs:
        for lldp in d.get("lldp", []):
            lldp["interface"] = [x for x in lldp.get("interface", []) if x["name"] != drop]
    with open(path + ".tmp", "w") as f:
        f.write("\n\n".join(json.dumps(d, indent=1) for d in docs) + "\n")
    os.rename(path + ".tmp", path)


def get(url):
    import urllib.request
    with urllib.request.urlopen(url, timeout=30) as r:
        return json.load(r)


def reload_events(path):
    """The reloads' LinkDown raises and LinkUp ('back in LLDP') so far."""
    n = 0
    for line in open(path):
        e = json.loads(line)
        if "in LLDP" in e.get("detail", "") and e["state"] == "firing" and e["event"] in ("LinkDown", "LinkUp"):
            n += 1
    return n


class Dom(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.links = {}

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "line" and a.get("class") == "link":
            self.links[a["data-key"]] = a


def main():
    binary, base, pid, dumps, orig, events, artefacts = sys.argv[1:8]
    pid = int(pid)
    fabric = get(base + "/api/fabric")
    link = fabric["links"][0]  # a switch link: flap it at both ends
    key = f"{link['a']}:{link['ap']}|{link['b']}:{link['bp']}"
    ends = [(link["a"], link["ap"]), (link["b"], link["bp"])]
    bad = []
    # after each reload: 1 down (its LinkDown fires), 2 up (back), 3 down, 4 changes in 10 min: flapping
    for k, want in enumerate(["down", "up", "down", "flapping"], 1):
        for node, port in ends:
            write_dump(os.path.join(orig, node + ".json"), os.path.join(dumps, node + ".json"),
                       port if want != "up" and k != 4 else None)
        os.kill(pid, signal.SIGHUP)
        deadline = time.monotonic() + TIMEOUT
        got, others = None, None
        while time.monotonic() < deadline:
            if reload_events(events) >= k:
                f = get(base + "/api/fabric")
                ls = {f"{x['a']}:{x['ap']}|{x['b']}:{x['bp']}": x["link"] for x in f["links"]}
                got, others = ls.get(key), {c for kk, c in ls.items() if kk != key}
                if got == want:
                    break
            time.sleep(0.2)
        print(f"change {k}: {key} {got}, the other links {sorted(others or [])}")
        if got != want:
            bad.append(f"after change {k}: {key} is {got!r}, expected {want!r}")
        if others != {"up"}:
            bad.append(f"after change {k}: the other links are {others}, expected all up")
    if binary != "-":
        os.makedirs(artefacts, exist_ok=True)
        with tempfile.TemporaryDirectory() as profile:
            dom = Dom()
            dom.feed(chromium(binary, profile, "--dump-dom", base + "/console/"))
            chromium(binary, profile, f"--screenshot={os.path.join(artefacts, 'console-flap.png')}",
                     base + "/console/")
        e = dom.links.get(key)
        if not e or e.get("data-link") != "flapping" or e.get("stroke") != FLAPPING or not e.get("stroke-dasharray"):
            bad.append(f"the map draws {key} as {e}, expected data-link flapping, stroke {FLAPPING}, dotted")
        drawn = {k: a.get("data-link") for k, a in dom.links.items() if k != key}
        if not drawn or set(drawn.values()) != {"up"}:
            bad.append(f"the map's other links: {drawn}")
    for b in bad:
        print("FAIL: " + b)
    return 1 if bad else 0


sys.exit(main())
