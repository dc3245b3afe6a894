#!/usr/bin/env python3
"""`hopwatch-analyzer run --threads 1` against `--threads 2` on record files, in alternating pairs: wall
seconds, process CPU seconds (getrusage), the reader thread's (an-reader) and the detector shard's
(an-shard, round 9) from /proc/PID/task/*/schedstat, polled every 5 ms; the analysing (main) thread is the
rest.  Prints each run and the medians and per-pair ratios.  docs/performance.md rounds 8 and 9.

usage: threads_ab.py HOPWATCH-ANALYZER PAIRS RECORD-FILE...
"""
import glob
import os
import resource
import statistics
import subprocess
import sys
import time


def run(ana, threads, files):
    """One run: (wall s, process CPU s, reader thread CPU s, shard threads' CPU s)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    p = subprocess.Popen([ana, "run", "--quiet", "--threads", str(threads), "--records", *files])
    seen = {}  # task id: (name, CPU s at the last look)
    while p.poll() is None:
        for task in glob.glob("/proc/%d/task/*" % p.pid):
            try:
                with open(task + "/comm") as f:
                    name = f.read().strip()
                if name not in ("an-reader", "an-shard"):
                    continue
                with open(task + "/schedstat") as f:
                    seen[task] = (name, int(f.read().split()[0]) / 1e9)
            except OSError:
                pass
        time.sleep(0.005)
    reader = sum(c for n, c in seen.values() if n == "an-reader")
    shards = sum(c for n, c in seen.values() if n == "an-shard")
    wall = time.monotonic() - t0
    if p.returncode:
        sys.exit("threads_ab: %s exited %d" % (ana, p.returncode))
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return wall, cpu, reader, shards


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__.strip().splitlines()[-1])
    ana, pairs, files = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    res = {1: [], 2: []}
    for _ in range(pairs):
        for t in (1, 2):
            res[t].append(run(ana, t, files))
            w, c, r, s = res[t][-1]
            print("threads %d: wall %.2f s, cpu %.2f s, reader %.3f s, shard %.3f s, load %.1f" %
                  (t, w, c, r, s, os.getloadavg()[0]), flush=True)
    med = statistics.median
    for t in (1, 2):
        print("threads %d medians: wall %.3f s, cpu %.3f s, reader %.3f s, shard %.3f s, analysing thread %.3f s" %
              (t, med(x[0] for x in res[t]), med(x[1] for x in res[t]), med(x[2] for x in res[t]),
               med(x[3] for x in res[t]), med(x[1] - x[2] - x[3] for x in res[t])))
    pairs = list(zip(res[1], res[2]))
    print("per pair, threads 1 / threads 2: wall %.3f, process cpu %.3f, cpu of the analysing thread %.3f" %
          (med(a[0] / b[0] for a, b in pairs), med(a[1] / b[1] for a, b in pairs),
           med(a[1] / (b[1] - b[2] - b[3]) for a, b in pairs)))


if __name__ == "__main__":
    main()
