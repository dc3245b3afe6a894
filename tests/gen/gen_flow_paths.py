#!/usr/bin/env python3
# hopwatch-gen --flow-paths stable, decoded by the collector: path changes at the configured rate, one
# sink per flow, exactly --queues egress queues; and --flow-paths random fails the sink check.
# Usage: gen_flow_paths.py HOPWATCH-GEN HOPWATCH-COLLECTOR
import collections
import json
import math
import os
import subprocess
import sys
import tempfile

gen, col = sys.argv[1], sys.argv[2]

REPORTS, FLOWS, NODES, QUEUES, RATE = 40000, 4000, 8, 1024, 0.02


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def counters(text):
    """The collector's end-of-run "NAME N" lines."""
    pairs = (line.split() for line in text.splitlines())
    return {p[0]: int(p[1]) for p in pairs if len(p) == 2 and p[1].isdigit()}


def run(d, name, extra):
    pcap, recs = os.path.join(d, name + ".pcap"), os.path.join(d, name + ".jsonl")
    subprocess.run([gen, "reports", "--format", "tr2.0", "--hops", "2", "--count", str(REPORTS), "--flows",
                    str(FLOWS), "--nodes", str(NODES), "--seed", "7", "--out", pcap] + extra, check=True,
                   stderr=subprocess.DEVNULL)
    p = subprocess.run([col, "--pcap", pcap, "--json-out", recs], stderr=subprocess.PIPE, text=True, timeout=600)
    if p.returncode:
        fail("%s: collector exited %d: %s" % (name, p.returncode, p.stderr[-500:]))
    sinks = collections.defaultdict(set)
    reports = 0
    with open(recs) as f:
        for line in f:
            r = json.loads(line)
            if r["hop_index"] == 0:
                reports += 1
            sinks[r["flow_hash"]].add(r["report_node"])
    return counters(p.stderr), sinks, reports


with tempfile.TemporaryDirectory() as d:
    cnt, sinks, reports = run(d, "stable", ["--flow-paths", "stable", "--path-change-rate", str(RATE), "--queues",
                                            str(QUEUES)])
    if reports != REPORTS or cnt.get("reports") != REPORTS:
        fail("stable: %d reports in the records, %s counted, %d generated" % (reports, cnt.get("reports"), REPORTS))
    moved = [h for h, s in sinks.items() if len(s) != 1]
    if moved:
        fail("stable: %d of %d flows reported by more than one sink" % (len(moved), len(sinks)))
    # Each report after a flow's first is rerouted with probability RATE, independently, and every
    # reroute changes the path (the sink's ingress port moves); no drop or intermediate reports, so
    # every report is a whole path: changes ~ Binomial(REPORTS - flows seen, RATE).  With 4000 flows
    # (about 3,998 seen over 40,000 reports): mean 0.02 * 36,002 = 720, sd sqrt(720 * 0.98) = 26.6;
    # the bound is 5 sd.  The seed is fixed, so the check is deterministic; the bound says how far
    # off the rate may be for any seed.
    trials = REPORTS - len(sinks)
    mean = RATE * trials
    sd = math.sqrt(mean * (1 - RATE))
    got = cnt.get("path_changes", -1)
    if abs(got - mean) > 5 * sd:
        fail("stable: %d path changes, expected %.0f +- %.0f (rate %g over %d reports)" %
             (got, mean, 5 * sd, RATE, trials))
    # Every hop's (node, egress port, queue) is one of the QUEUES queues; each node draws from its
    # 128 about 1,500 times (4000 flows x 3 hops / 8 nodes, more with reroutes), so a queue is left
    # unused with probability about e^-11.7: all 1024 are seen.
    if cnt.get("queues_tracked") != QUEUES:
        fail("stable: %s queues tracked, --queues %d" % (cnt.get("queues_tracked"), QUEUES))
    print("ok stable: %d flows, one sink each; %d path changes (expected %.0f +- %.0f); %d queues" %
          (len(sinks), got, mean, 5 * sd, QUEUES))

    # The check can fail: random senders give most flows several sinks and almost every report a change.
    cnt, sinks, _ = run(d, "random", [])
    moved = sum(1 for s in sinks.values() if len(s) != 1)
    if moved < len(sinks) // 2:
        fail("random: only %d of %d flows changed sink; the sink check would not notice" % (moved, len(sinks)))
    if cnt.get("path_changes", 0) < REPORTS // 2:
        fail("random: only %s path changes" % cnt.get("path_changes"))
    print("ok random: %d of %d flows reported by several sinks, %d path changes" %
          (moved, len(sinks), cnt["path_changes"]))
