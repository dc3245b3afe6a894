#!/usr/bin/env python3
"""Two commands timed as whole processes in alternating pairs (A B A B ..., one warm-up of each first): each run's
user + system CPU seconds and wall seconds from the kernel's accounting (os.wait4), then the medians and the
median of the per-pair ratios A / B (below 1: A is faster).  Prints JSON.  docs/performance.md rounds 19-22.

usage: ab_cpu.py [-n PAIRS] -- "COMMAND A" "COMMAND B"
"""
import json
import os
import shlex
import statistics
import subprocess
import sys
import time


def run(cmd):
    """One whole run of cmd (its output thrown away): (CPU s, wall s, exit status)."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    return ru.ru_utime + ru.ru_stime, time.monotonic() - t0, os.waitstatus_to_exitcode(status)


def main(argv):
    pairs = 9
    if argv[:1] == ["-n"] and len(argv) > 1 and argv[1].isdigit() and int(argv[1]) > 0:
        pairs, argv = int(argv[1]), argv[2:]
    if len(argv) != 3 or argv[0] != "--":
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    cmds = [shlex.split(c) for c in argv[1:]]
    for c in cmds:
        run(c)  # warm-up: the page cache, the binary
    runs = [[], []]
    for _ in range(pairs):
        for k in (0, 1):
            runs[k].append(run(cmds[k]))
    bad = [r[2] for k in (0, 1) for r in runs[k] if r[2] != 0]
    out = {"pairs": pairs, "a": argv[1], "b": argv[2]}
    for k, name in ((0, "a"), (1, "b")):
        out[name + "_cpu_s_median"] = statistics.median(r[0] for r in runs[k])
        out[name + "_wall_s_median"] = statistics.median(r[1] for r in runs[k])
    ratios = [a[0] / b[0] for a, b in zip(*runs) if b[0] > 0]
    out["a_over_b_cpu_median"] = statistics.median(ratios) if ratios else None
    out["a_over_b_cpu_range"] = [min(ratios), max(ratios)] if ratios else None
    out["nonzero_exits"] = len(bad)
    print(json.dumps(out, indent=1))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
