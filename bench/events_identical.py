#!/usr/bin/env python3
"""Behaviour check for analyzer speed work: two hopwatch-analyzer builds (or one with two sets of options)
must write byte-identical --events files on the same inputs (the sweep's scenarios and a realistic collector
record file).  Not a benchmark.

usage: events_identical.py --gen HOPWATCH-GEN --old OLD-ANALYZER [--new NEW-ANALYZER]
                           [--old-args "ARGS"] [--new-args "ARGS"]
                           [--collector HOPWATCH-COLLECTOR] [--seeds N] [--families F,...]
                           [--shapes S,...] [--formats F,...] [--keep DIR]

--new defaults to --old; --old-args / --new-args are added to each one's `run` (e.g. the same build with
--new-args "--threads 2" against its default --threads 1).  --scenario-records (needs --collector): the
scenarios' records through the collector's record files (--records) instead of their JSON lines (--jsonl),
which --threads 2 reads on its reader thread.

Scenarios: hopwatch-gen scenario custom, with the events tools/score_sweep.py draws for each family,
shape, format and seed (default: incast, pfc-storm, mix, microburst, clean on leaf-spine and fat-tree:4
in tr2.0 and tr0.5, seeds 1-2).  With --collector also a 40,000-report `hopwatch-gen reports
--flow-paths stable` capture (the side-by-side harness's input) through the collector's record file.
Prints one line per input and exits 1 when any events file differs (0 when all are identical).
"""
import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import score_sweep  # noqa: E402


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"events_identical: {' '.join(cmd)} failed: {p.stderr.strip()[-400:]}")


def compare(old, new, src, d, name):
    """Runs both analyzers ((program, extra args)) on src (analyzer run arguments); 1 when their events
    files are identical."""
    files = []
    for tag, (an, extra) in (("old", old), ("new", new)):
        ev = os.path.join(d, f"events-{tag}.jsonl")
        run([an, "run", *src, *extra, "--events", ev, "--quiet"])
        files.append(open(ev, "rb").read())
    same = files[0] == files[1]
    lines = files[0].count(b"\n")
    print(f"{'same' if same else 'DIFFERENT':9} {lines:6} events  {name}", flush=True)
    return same


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gen", required=True)
    ap.add_argument("--old", required=True)
    ap.add_argument("--new")
    ap.add_argument("--old-args", default="")
    ap.add_argument("--new-args", default="")
    ap.add_argument("--collector")
    ap.add_argument("--scenario-records", action="store_true")
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--families", default="incast,pfc-storm,mix,microburst,clean")
    ap.add_argument("--shapes", default="leaf-spine,fat-tree:4")
    ap.add_argument("--formats", default="tr2.0,tr0.5")
    ap.add_argument("--keep")
    a = ap.parse_args()
    if a.scenario_records and not a.collector:
        ap.error("--scenario-records needs --collector")
    old = (a.old, a.old_args.split())
    new = (a.new or a.old, a.new_args.split())
    root = tempfile.mkdtemp(prefix="hw-evident-")
    bad = 0
    try:
        for family in a.families.split(","):
            for shape in a.shapes.split(","):
                fab = score_sweep.Fabric(shape)
                for fmt in a.formats.split(","):
                    for seed in range(1, a.seeds + 1):
                        name = f"{family}-{shape.replace(':', '')}-{fmt}-{seed}"
                        d = os.path.join(root, name)
                        rng = random.Random(f"{family}/{shape}/{fmt}/{seed}")  # as score_sweep draws them
                        cmd = [a.gen, "scenario", "custom", "--topology", fab.topology, "--format", fmt,
                               "--seed", str(seed), "--out", d, "--write-records", "--quiet"]
                        for e in score_sweep.events_for(family, fab, rng):
                            cmd += ["--event", e]
                        run(cmd)
                        src = ["--jsonl", f"{d}/records.jsonl"]
                        if a.scenario_records:
                            run([a.collector, "--pcap", f"{d}/reports.pcap", "--records-dir", f"{d}/rec"])
                            src = ["--records"] + sorted(os.path.join(d, "rec", f) for f in os.listdir(f"{d}/rec"))
                        src += ["--lldp", f"{d}/lldp.pcap", "--map", f"{d}/map.json"]
                        bad += not compare(old, new, src, d, name)
        if a.collector:
            d = os.path.join(root, "stable")
            os.makedirs(d)
            run([a.gen, "reports", "--format", "tr2.0", "--hops", "4", "--count", "40000", "--flows", "4096",
                 "--flow-paths", "stable", "--path-change-rate", "0.001", "--drop-rate", "0.001", "--queues",
                 "4096", "--nodes", "32", "--out", f"{d}/s.pcap"])
            run([a.collector, "--pcap", f"{d}/s.pcap", "--records-dir", f"{d}/rs"])
            src = ["--records"] + sorted(os.path.join(d, "rs", f) for f in os.listdir(f"{d}/rs"))
            bad += not compare(old, new, src, d, "reports-stable-tr2.0-40000")
    finally:
        if a.keep:
            shutil.copytree(root, a.keep, dirs_exist_ok=True)
        shutil.rmtree(root, ignore_errors=True)
    print(f"{bad} input(s) with different events" if bad else "all events files identical")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
