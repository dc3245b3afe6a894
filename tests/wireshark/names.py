#!/usr/bin/env python3
"""The dissector names nodes and ports from the names file `hopwatch-analyzer topology --names-out` writes
(issue 16: one name for each thing).  On a generated incast scenario, every report and hop node id of
every frame carries the name the topology gives that id (--json-out: each node's node_id and name), and
every ingress/egress port of a named node carries the map's port_format applied to the number when the
node has a port of that name (the map's rule, docs/topology.md); nothing else is named.
Usage: names.py HOPWATCH-GEN HOPWATCH-ANALYZER HOPWATCH.LUA"""
import json
import os
import shutil
import subprocess
import sys
import tempfile


def walk(obj, out):
    """Every dict in a tshark -T json tree."""
    if isinstance(obj, dict):
        out.append(obj)
        for v in obj.values():
            walk(v, out)
    elif isinstance(obj, list):
        for v in obj:
            walk(v, out)
    return out


def main():
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    gen, analyzer, lua = sys.argv[1:]
    if shutil.which("tshark") is None:
        print("tshark not found: skipped")
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        s = os.path.join(tmp, "s")
        subprocess.run([gen, "scenario", "incast", "--out", s], check=True, capture_output=True)
        names, topo = os.path.join(tmp, "names.tsv"), os.path.join(tmp, "topo.json")
        subprocess.run([analyzer, "topology", "--lldp", os.path.join(s, "lldp.pcap"), "--map",
                        os.path.join(s, "map.json"), "--names-out", names, "--json-out", topo, "--quiet"],
                       check=True)
        t = json.load(open(topo))
        fmt = json.load(open(os.path.join(s, "map.json")))["port_format"].replace("%u", "{}")
        node_name = {n["node_id"]: n["name"] for n in t["nodes"] if n.get("node_id")}
        ports_of = {}
        for p in t["ports"]:
            ports_of.setdefault(p["node"], set()).add(p["name"])
        r = subprocess.run(["tshark", "-n", "-r", os.path.join(s, "reports.pcap"), "-c", "300", "-X",
                            "lua_script:" + lua, "-o", "hopwatch.names:" + names, "-T", "json"],
                           capture_output=True, text=True)
        if r.returncode != 0 or "Lua Error" in r.stdout + r.stderr:
            print("tshark failed:", (r.stderr + r.stdout)[:400])
            return 1
        errors, nodes, ports = [], 0, 0
        for d in walk(json.loads(r.stdout), []):
            for key in ("hopwatch.report.node", "hopwatch.hop.node_id"):
                if key + "_tree" in d or key in d:
                    nid = int(d[key])
                    got = d.get(key + "_tree", {}).get("hopwatch.node_name")
                    want = node_name.get(nid)
                    nodes += 1
                    if got != want:
                        errors.append(f"node {nid}: named {got!r}, the topology says {want!r}")
            if "hopwatch.hop.node_id" in d:
                nid = int(d["hopwatch.hop.node_id"])
                for key in ("hopwatch.hop.ingress_port", "hopwatch.hop.egress_port"):
                    if key not in d:
                        continue
                    port = int(d[key])
                    name = fmt.format(port)
                    want = name if nid in node_name and name in ports_of.get(node_name[nid], ()) else None
                    got = d.get(key + "_tree", {}).get("hopwatch.port_name")
                    ports += 1
                    if got != want:
                        errors.append(f"node {nid} port {port}: named {got!r}, expected {want!r}")
        if nodes < 300 or ports < 300:
            errors.append(f"only {nodes} node ids and {ports} ports seen in 300 frames")
        for e in errors[:20]:
            print(e)
        if errors:
            return 1
        print(f"ok names: {nodes} node ids and {ports} ports in 300 frames named as the topology and map say")
        return 0


if __name__ == "__main__":
    sys.exit(main())
