#!/usr/bin/env python3
# Generated link failures with jobs (hopwatch-gen scenario --jobs): over several seeds and links, each PathChange
# event the analyzer raises, given the generator's pods.json (--pods), names the jobs whose flows moved: its
# senders are the jobs of the source addresses of its flows and its receivers those of their destinations, each
# flow one of the truth's moved flows, so every job named is a job of a moved flow.
import json
import os
import subprocess
import sys
import tempfile

GEN, ANALYZER = sys.argv[1], sys.argv[2]
# leaf-spine:4,8,8 (the default fabric): a leaf's uplinks are Ethernet9..12 (8 host ports first); a link down for
# 3 ms moves the flows that crossed it to the other spines (ECMP)
CASES = [(1, "leaf1:Ethernet9"), (2, "leaf2:Ethernet10"), (3, "leaf3:Ethernet11"), (4, "leaf4:Ethernet12")]
fails = []
checked = 0


def check(seed, link, d):
    global checked
    subprocess.run([GEN, "scenario", "custom", "--out", d, "--write-records", "--jobs", "8", "--seed", str(seed),
                    "--quiet", "--duration-us", "6000", "--event", f"link-down:link={link},start_us=1000,dur_us=3000"],
                   check=True)
    ev = os.path.join(d, "events.jsonl")
    r = subprocess.run([ANALYZER, "run", "--jsonl", os.path.join(d, "records.jsonl"), "--lldp",
                        os.path.join(d, "lldp.pcap"), "--map", os.path.join(d, "map.json"), "--events", ev, "--pods",
                        os.path.join(d, "pods.json"), "--quiet"], capture_output=True, text=True)
    if r.returncode:
        fails.append(f"seed {seed}: analyzer exit {r.returncode}: {r.stderr[-500:]}")
        return
    truth = json.load(open(os.path.join(d, "truth.json")))
    pods = json.load(open(os.path.join(d, "pods.json")))
    job_of_ip = {p["status"]["podIP"]: p["metadata"]["labels"]["job-name"] for p in pods["items"]}
    flows = {f["flow_hash"]: f for f in truth["flows"]}
    moved = {f["flow_hash"] for t in truth["events"] if t["kind"] == "PathChange" for f in t["affected_flows"]}
    if not moved:
        fails.append(f"seed {seed} {link}: the truth moves no flow")
        return
    # the truth's jobs of the moved flows, from pods.json: every job an event names must be one of these
    moved_senders = {job_of_ip[flows[h]["src_ip"]] for h in moved}
    moved_receivers = {job_of_ip[flows[h]["dst_ip"]] for h in moved}
    mine = [json.loads(x) for x in open(ev)]
    mine = [e for e in mine if e["event"] == "PathChange"]
    if not mine:
        print(f"seed {seed} {link}: no PathChange raised")  # detection is the detector's to test
        return
    for e in mine:
        hashes = e.get("flows", [])
        if not hashes:
            fails.append(f"seed {seed} {link}: a PathChange without flows: {e}")
            continue
        stray = [h for h in hashes if h not in moved]
        if stray:
            fails.append(f"seed {seed} {link}: PathChange flows {stray} did not move in the truth")
            continue
        # by hand: the jobs of the event's own flows (every host has a pod, so none is unattributed)
        want_s = sorted({job_of_ip[flows[h]["src_ip"]] for h in hashes})
        want_r = sorted({job_of_ip[flows[h]["dst_ip"]] for h in hashes})
        jobs = e.get("jobs", {})
        if jobs.get("senders") != want_s or jobs.get("receivers") != want_r or jobs.get("unattributed_flows") != 0:
            fails.append(f"seed {seed} {link}: {e['state']} PathChange names {jobs}, its flows' jobs are senders "
                         f"{want_s} receivers {want_r}")
        elif not set(want_s) <= moved_senders or not set(want_r) <= moved_receivers:
            fails.append(f"seed {seed} {link}: jobs named outside the moved flows' {moved_senders} {moved_receivers}")
        else:
            checked += 1
            print(f"seed {seed} {link}: {e['state']} PathChange of {len(hashes)} flows names senders {want_s} "
                  f"receivers {want_r} (the {len(moved)} moved flows: {len(moved_senders)} sender jobs)")


for seed, link in CASES:
    with tempfile.TemporaryDirectory(prefix="ident_pathchange.") as d:
        check(seed, link, d)
# a raise and a resolve per case are expected; at least 3 of the 4 cases must be detected to test the attribution
if checked < 6:
    fails.append(f"only {checked} PathChange lines checked")
for f in fails:
    print("FAIL", f)
sys.exit(1 if fails else 0)
