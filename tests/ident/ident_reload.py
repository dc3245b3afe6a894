#!/usr/bin/env python3
# A running analyzer follows its --pods directory: a changed pod list is loaded (the /metrics entries follow), a
# malformed one keeps the last good mapping, is logged and shows on /metrics as a stale source.  Polls, with
# generous limits, never sleeps a fixed time to assert.
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

from ident_util import free_port, metric, put

GEN, ANALYZER = sys.argv[1], sys.argv[2]
LIMIT_S = 120


with tempfile.TemporaryDirectory(prefix="ident_reload.") as d:
    subprocess.run([GEN, "scenario", "custom", "--out", d, "--write-records", "--jobs", "4", "--quiet", "--no-lldp"],
                   check=True)
    pods = json.load(open(os.path.join(d, "pods.json")))
    n = len(pods["items"])  # one pod per host, each host its own address: n entries
    src = os.path.join(d, "pods")
    os.mkdir(src)
    put(os.path.join(src, "a.json"), json.dumps(pods))
    records = open(os.path.join(d, "records.jsonl")).read().splitlines()
    port = free_port()
    p = subprocess.Popen([ANALYZER, "run", "--jsonl", "-", "--pods", src, "--metrics", f"127.0.0.1:{port}",
                          "--events", os.path.join(d, "events.jsonl"), "--summary-json", "-"], stdin=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    log = []
    reader = threading.Thread(target=lambda: log.extend(p.stderr), daemon=True)
    reader.start()
    fed = [0]

    def feed():  # a few records: the identity sources are checked as records come (at most once a second)
        for _ in range(400):
            p.stdin.write(records[fed[0] % len(records)] + "\n")
            fed[0] += 1
        p.stdin.flush()

    def wait(what, ok):
        end = time.monotonic() + LIMIT_S
        while time.monotonic() < end:
            feed()
            if ok():
                return
            time.sleep(0.1)
        p.kill()
        sys.exit(f"FAIL: {what} within {LIMIT_S} s; log: {''.join(log)[-2000:]}")

    fails = []
    try:
        wait("the first mapping on /metrics", lambda: metric(port, "hopwatch_analyzer_identity_entries") == n)
        # the list changes: half the pods left (a job finished); followed
        pods["items"] = pods["items"][: n // 2]
        put(os.path.join(src, "a.json"), json.dumps(pods))
        wait("the changed list loaded", lambda: metric(port, "hopwatch_analyzer_identity_entries") == n // 2)
        if metric(port, "hopwatch_analyzer_identity_sources_stale") != 0:
            fails.append("stale after a good load")
        # a second file, malformed: the source keeps its last good mapping, stale, one load error
        put(os.path.join(src, "b.json"), '{"items": [')
        wait("the stale source on /metrics",
             lambda: metric(port, "hopwatch_analyzer_identity_sources_stale") == 1)
        if metric(port, "hopwatch_analyzer_identity_entries") != n // 2:
            fails.append("the last good mapping was not kept")
        if metric(port, "hopwatch_analyzer_identity_load_errors_total") != 1:
            fails.append("load errors not 1")
        # mended: no longer stale
        os.unlink(os.path.join(src, "b.json"))
        wait("the mended source", lambda: metric(port, "hopwatch_analyzer_identity_sources_stale") == 0)
    finally:
        p.stdin.close()
        p.wait(timeout=LIMIT_S)
        reader.join(timeout=LIMIT_S)  # the last lines (the summary) may still be in the pipe when the process ends
    text = "".join(log)
    want = "b.json:1: "
    if not any(want in l and f"keeping the last good identity mapping ({n // 2} entries)" in l for l in log):
        fails.append(f"no log line naming b.json and the {n // 2} entries kept: {text[-1500:]}")
    summary = json.loads(text.strip().splitlines()[-1])["identity"]
    if summary["load_errors"] != 1 or summary["stale_sources"] != 0 or summary["entries"] != n // 2:
        fails.append(f"summary {summary}")
    for f in fails:
        print("FAIL", f)
    print(f"{fed[0]} records fed; identity {summary}")
    sys.exit(1 if fails else 0)
