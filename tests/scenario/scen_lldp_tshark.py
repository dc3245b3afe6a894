#!/usr/bin/env python3
"""tshark (an independent reader) decodes a scenario's lldp.pcap: one interface index per link, on it the
two ends' frames with the system names and port IDs truth.json gives, MTU and PFC TLVs as configured,
and the shutdown / re-advertisement of a link that goes down.
Usage: scen_lldp_tshark.py HOPWATCH-GEN"""
import json
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict

gen = sys.argv[1]
if not shutil.which("tshark"):
    print("SKIP: tshark missing")
    sys.exit(77)


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


FIELDS = ["frame.time_epoch", "sll.ifindex", "lldp.chassis.id.mac", "lldp.port.id", "lldp.time_to_live",
          "lldp.tlv.system.name", "lldp.mgn.addr.ip4", "lldp.ieee.802_3.max_frame_size",
          "lldp.dcbx.feature.pfc.prio3", "lldp.dcbx.feature.pfc.prio0"]


def frames(path):
    cmd = ["tshark", "-r", path, "-T", "fields", "-E", "separator=|", "-E", "occurrence=f"]
    for f in FIELDS:
        cmd += ["-e", f]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    rows = [dict(zip(FIELDS, line.split("|"))) for line in out.splitlines()]
    if not rows:
        fail(path + ": tshark decoded no frames")
    return rows


with tempfile.TemporaryDirectory() as d:
    for scenario, extra in (("mtu-mismatch", []), ("link-down", []), ("clean", ["--topology", "fat-tree:4"])):
        out = f"{d}/{scenario}"
        subprocess.run([gen, "scenario", scenario, "--out", out, "--quiet", "--duration-us", "5000"] + extra,
                       check=True)
        truth = json.load(open(out + "/truth.json"))
        rows = frames(out + "/lldp.pcap")
        links = truth["topology"]["links"]
        mgmt = {n["node"]: n["mgmt"] for n in truth["topology"]["nodes"]}
        # the state at time 0: every link once from each end, on its own interface index
        first = defaultdict(list)
        for r in rows:
            if float(r["frame.time_epoch"]) * 1e9 < truth["epoch_ns"]:
                first[int(r["sll.ifindex"])].append(r)
        if sorted(first) != list(range(1, len(links) + 1)):
            fail(f"{scenario}: interface indexes {sorted(first)[:5]}... are not one per link 1..{len(links)}")
        names = set()
        for i, link in enumerate(links, 1):
            got = sorted((r["lldp.tlv.system.name"], r["lldp.port.id"]) for r in first[i])
            want = sorted((link[e]["node"], link[e]["ifname"]) for e in ("a", "b"))
            if got != want:
                fail(f"{scenario}: link {link['id']}: frames from {got}, want {want}")
            for r in first[i]:
                names.add(r["lldp.tlv.system.name"])
                if r["lldp.mgn.addr.ip4"] != mgmt[r["lldp.tlv.system.name"]]:
                    fail(f"{scenario}: {r['lldp.tlv.system.name']} advertises {r['lldp.mgn.addr.ip4']}")
                if r["lldp.time_to_live"] != "120" or r["lldp.dcbx.feature.pfc.prio3"] != "1" or \
                        r["lldp.dcbx.feature.pfc.prio0"] != "0":
                    fail(f"{scenario}: {r}: TTL 120 and PFC on priority 3 only expected")
        if names != set(mgmt):
            fail(f"{scenario}: system names {sorted(names - set(mgmt))} / missing {sorted(set(mgmt) - names)}")
        mfs = {(r["lldp.tlv.system.name"], r["lldp.port.id"]): int(r["lldp.ieee.802_3.max_frame_size"])
               for rs in first.values() for r in rs}
        small = [e for e in truth["events"] if e["kind"] == "MtuMismatch"]
        for (node, port), v in mfs.items():
            want = truth["topology"]["mtu"]
            for e in small:
                if e["small_end"]["node"] == node and e["small_end"]["ifname"] == port:
                    want = e["mtu"]
            if v != want:
                fail(f"{scenario}: {node} {port} advertises maximum frame size {v}, want {want}")
        if scenario == "mtu-mismatch" and not any(v == 1500 for v in mfs.values()):
            fail("mtu-mismatch: no port advertises 1500")
        # link-down: TTL 0 from both ends at the event's start, full frames again at its end
        for e in truth["events"]:
            if e["kind"] != "PathChange":
                continue
            ends = {(e["place"]["link"][x]["node"], e["place"]["link"][x]["ifname"]) for x in ("a", "b")}
            later = [r for r in rows if float(r["frame.time_epoch"]) * 1e9 >= truth["epoch_ns"]]
            # a shutdown LLDPDU has no system name: the chassis MAC (02 + the node id) says who sent it
            mac = {"02:" + ":".join(f"{int(o):02x}" for o in mgmt[n].split(".")) + ":00": n for n in mgmt}
            ttl0 = sorted((mac.get(r["lldp.chassis.id.mac"]), r["lldp.port.id"]) for r in later
                          if r["lldp.time_to_live"] == "0")
            if ttl0 != sorted(ends):
                fail(f"link-down: shutdown frames from {ttl0}, want both ends {sorted(ends)}")
            back = {(r["lldp.tlv.system.name"], r["lldp.port.id"]) for r in later if r["lldp.time_to_live"] == "120"}
            if back != ends:
                fail(f"link-down: re-advertised {back}, want {ends}")
        print(f"ok {scenario}: {len(rows)} LLDP frames decode with the names, ports, MTU and PFC truth.json gives")
