#!/usr/bin/env python3
"""A flow's reported path is its ECMP choice: in the link-down scenario, every report the collector decodes
names the hops truth.json gives for its flow at that time, and the spine each leaf chose is the one this
test computes on its own from the flow hash (splitmix64 of hash ^ node_id << 17, modulo the up uplinks
in port order), with the failed uplink left out while the event lasts.  And the queue depths reported
agree with truth.json's peaks: none above its queue's peak, the incast queue's reports reach its peak.
Usage: scen_paths.py HOPWATCH-GEN HOPWATCH-COLLECTOR"""
import json
import subprocess
import sys
import tempfile
from collections import defaultdict

gen, col = sys.argv[1], sys.argv[2]
M = (1 << 64) - 1


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def mix(x):
    z = (x + 0x9E3779B97F4A7C15) & M
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
    return z ^ (z >> 31)


def ecmp(flow_hash, node_id, n):
    return mix(flow_hash ^ ((node_id << 17) & M)) % n


with tempfile.TemporaryDirectory() as d:
    for fmt in ("tr2.0", "tr0.5"):
        out = f"{d}/{fmt}"
        subprocess.run([gen, "scenario", "link-down", "--format", fmt, "--sample", "10", "--no-lldp", "--out", out,
                        "--quiet"], check=True)
        subprocess.run([col, "--pcap", out + "/reports.pcap", "--json-out", out + "/c.jsonl"], check=True,
                       stderr=subprocess.DEVNULL)
        truth = json.load(open(out + "/truth.json"))
        epoch, step = truth["epoch_ns"], truth["step_ns"]
        topo = truth["topology"]
        S, H = topo["spines"], topo["hosts_per_leaf"]
        ev = truth["events"][0]
        down = {(ev["place"]["link"][x]["node"], ev["place"]["link"][x]["port"]) for x in ("a", "b")}
        node_of = {n["node_id"]: n["node"] for n in topo["nodes"]}
        flows = {int(f["flow_hash"], 16): f for f in truth["flows"]}
        reports = defaultdict(list)
        for line in open(out + "/c.jsonl"):
            r = json.loads(line)
            reports[(r["report_node"], r["report_seq"])].append(r)
        checked = spines_checked = moved = 0
        for recs in reports.values():
            recs.sort(key=lambda r: r["hop_index"])
            f = flows.get(int(recs[0]["flow_hash"], 16))
            if f is None:
                fail(f"{fmt}: a report of flow {recs[0]['flow_hash']} that truth.json does not know")
            got = [(r["node_id"], r["ingress_port"], r["egress_port"]) for r in recs]
            if fmt == "tr0.5":  # one postcard per hop: it is a hop of one of the flow's paths
                if not any(got[0] in [(h["node_id"], h["ingress_port"], h["egress_port"]) for h in p["hops"]]
                           for p in f["paths"]):
                    fail(f"tr0.5: postcard {got[0]} of flow {f['id']} is on none of its paths")
                checked += 1
                continue
            last = recs[-1]
            # the step the packet left its last hop in: egress = epoch + node clock offset (< 200 ns) + step end
            t = (last["egress_ts"] - epoch - step) // step * step
            path = [p for p in f["paths"] if p["from_ns"] - epoch <= t][-1]["hops"]
            hops = [(h["node_id"], h["ingress_port"], h["egress_port"]) for h in path]
            if got != hops[:len(got)]:
                fail(f"{fmt}: flow {f['id']} at {t} ns reports {got}, its path is {hops}")
            checked += 1
            # the leaf's uplink, computed here: spine s is port H + s + 1 of the leaf
            if len(path) != 3:
                continue
            leaf, spine, dleaf = path[0], path[1], path[2]
            active = ev["start_ns"] - epoch <= t < ev["end_ns"] - epoch
            ups = []  # uplinks whose link is up and whose spine still reaches the destination leaf
            for s in range(S):
                up_port = H + s + 1
                spine_down_port = int(dleaf["node"][4:])  # spine port N faces leafN
                if active and ((leaf["node"], up_port) in down or (f"spine{s + 1}", spine_down_port) in down):
                    continue
                ups.append(up_port)
            want = ups[ecmp(int(recs[0]["flow_hash"], 16), leaf["node_id"], len(ups))]
            if leaf["egress_port"] != want:
                fail(f"flow {f['id']} at {t} ns: {leaf['node']} sent it out of port {leaf['egress_port']}, "
                     f"ECMP says {want} of {ups}")
            if node_of[spine["node_id"]] != f"spine{want - H}":
                fail(f"flow {f['id']}: spine {node_of[spine['node_id']]} is not behind port {want}")
            spines_checked += 1
            moved += active and len(f["paths"]) > 1
        if checked < 500 or (fmt == "tr2.0" and (spines_checked < 300 or moved < 10)):
            fail(f"{fmt}: too little checked ({checked} reports, {spines_checked} spine choices, {moved} moved)")
        if fmt == "tr0.5":
            print(f"ok tr0.5: {checked} postcards each name a hop of their flow's paths")
        else:
            print(f"ok {fmt}: {checked} reports follow their flows' paths; {spines_checked} ECMP choices "
                  f"recomputed ({moved} while the uplink was down)")

    # queue depths in the incast scenario's reports against truth.json's per-queue peaks
    out = f"{d}/incast"
    subprocess.run([gen, "scenario", "incast", "--no-lldp", "--out", out, "--quiet"], check=True)
    subprocess.run([col, "--pcap", out + "/reports.pcap", "--json-out", out + "/c.jsonl"], check=True,
                   stderr=subprocess.DEVNULL)
    truth = json.load(open(out + "/truth.json"))
    peak = {(q["node_id"], q["port"], q["queue"]): q["peak_bytes"] for q in truth["queues"]}
    seen = {}
    for line in open(out + "/c.jsonl"):
        r = json.loads(line)
        if "queue_occupancy" in r:
            k = (r["node_id"], r["egress_port"], r["queue_id"])
            seen[k] = max(seen.get(k, 0), r["queue_occupancy"])
    for k, v in seen.items():
        if v > peak.get(k, 0):
            fail(f"incast: {k} reported {v} bytes, above its truth peak {peak.get(k, 0)}")
    place = truth["events"][0]["place"]
    k = (place["node_id"], place["port"], place["queue"])
    if not (0.9 * peak[k] <= seen.get(k, 0) <= peak[k]) or truth["events"][0]["effects"]["peak_queue_bytes"] != peak[k]:
        fail(f"incast: the incast queue reported at most {seen.get(k)} bytes, truth peak {peak[k]}")
    print(f"ok incast: {len(seen)} queues reported, none above its truth peak; the incast queue reached "
          f"{seen[k]} of {peak[k]} bytes")
