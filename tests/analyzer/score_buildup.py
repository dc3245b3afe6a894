#!/usr/bin/env python3
# tools/score_events.py's QueueBuildup rules on hand-made truths and records: a warning is right when the
# simulated queue (truth queues[].high_ns) reaches the threshold within the lead, and the min_flows and hold_ns
# ramp rules, and which crossings climbed slowly enough for the rule to warn of.
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import score_events as se  # noqa: E402

MS = 1000000
Q = (7, 2, 3)  # node_id, port, queue 3: the RoCE queue, threshold Xoff = 400000 bytes
model = {"roce_queue": 3, "xoff_bytes": 400000, "xon_bytes": 300000, "lossy_buffer_bytes": 1024000}
place = {"node": "leaf1", "node_id": 7, "port": 2, "ifname": "Ethernet2", "queue": 3}


def warn(t):
    return dict(place, event="QueueBuildup", state="firing", start_ns=t, port_name="Ethernet2")


def cfg():
    c = dict(se.DEFAULTS)
    c["model"] = model
    return c


fails = []


def check(what, got, want):
    if got != want:
        fails.append(f"{what}: got {got}, want {want}")


# The records sample the queue every 10 us: 300, 390, 350 KB at 10, 20, 30 ms (never 400 KB), while the
# simulated queue was at or above Xoff from 20.004 to 20.008 ms (between two samples).  Warnings at 19.5 ms and
# at 25 ms; the lead (1 ms) plus the slack (1 ms) reaches 21.5 ms and 27 ms: the first sees the true crossing at
# 20.004 ms, the second nothing (the stretch ended at 20.008 ms).  By the truth: 1 of 2 right; by the records
# (the truth without high_ns, an older generator): 0 of 2.
series = {Q: [(10 * MS, 300000, "a"), (20 * MS, 390000, "b"), (30 * MS, 350000, "a")]}
truth = {"model": model, "events": [], "queues": [dict(place, peak_bytes=410000, high_ns=[[20 * MS + 4000, 20 * MS + 8000]])]}
rows = se.score_records([warn(19 * MS + 500000), warn(25 * MS)], series, cfg(), MS, truth)
check("right by the truth", rows["QueueBuildup"]["matched"], 1)
check("crossings to find (records)", rows["QueueBuildup"]["injected"], 0)
old = {"model": model, "events": [], "queues": [dict(place, peak_bytes=410000)]}
check("right by the records", se.score_records([warn(19 * MS + 500000), warn(25 * MS)], series, cfg(), MS, old)["QueueBuildup"]["matched"], 0)
# a configured threshold is not the truth's level: the records judge (380000: the 390 KB record at 20 ms is above it,
# 0.5 ms after the warning at 19.5 ms: right)
c = cfg()
c["raise"] = 380000
check("configured threshold: records", se.score_records([warn(19 * MS + 500000)], series, c, MS, truth)["QueueBuildup"]["matched"], 1)

# ramps(): an injected incast at the queue, its records 200, 320, 350, 410 KB at 1.00, 1.01, 1.02, 1.03 ms.  From
# 0.75 x 400 KB = 300 KB: 320 KB at 1.01 ms is at that level, held to 1.02 ms (queue_buildup.hold_ns, 10 us), before
# the crossing at 1.03 ms: warnable by `from` and the hold; the records before the crossing name flow "a" only:
# fewer than min_flows (2), not warnable; with "b" at 1.01 ms it is.
ev = {"kind": "Incast", "place": place, "start_ns": MS, "end_ns": 2 * MS}
t2 = {"model": model, "events": [ev], "queues": []}
for flows, want in ((("a", "a", "a", "a"), False), (("a", "b", "a", "a"), True)):
    s2 = {Q: [(MS + i * 10000, occ, f) for i, (occ, f) in enumerate(zip((200000, 320000, 350000, 410000), flows))]}
    m = se.ramps(t2, [], s2, cfg(), MS)[0]
    check(f"warnable with flows {flows}", m["warnable"], want)
    check("crossing time", m["cross_ns"], MS + 30000)
# without the 350 KB record the climb is at 300 KB or more for one sample only (320 KB at 1.01 ms, crossing at
# 1.02 ms: 10 us later, not more): not warnable with hold_ns 10 us, warnable with 0 (the rule off)
s3 = {Q: [(MS + i * 10000, occ, f) for i, (occ, f) in enumerate(zip((200000, 320000, 410000), "aba"))]}
for hold, want in ((10000, False), (0, True)):
    c = cfg()
    c["buildup_hold_ns"] = hold
    check(f"warnable with hold_ns {hold}", se.ramps(t2, [], s3, c, MS)[0]["warnable"], want)

# The climbs the rule can warn of (score_records' slow_injected / slow_detected): records every 10 us at the queue,
# two crossings of 400 KB.  The first at 1.04 ms after 320, 350, 380 KB from 1.01 ms: at or above 300 KB for 30 us
# (> hold_ns, 10 us), slow; a QueueBuildup at 1.02 ms warned it.  The second at 5.01 ms straight from 100 KB at
# 5.00 ms: in the band for 0 us, fast, and not warned (a warning counts within window_ns + lead_ns, 2 ms, before
# its crossing: from 3.01 ms).  5.01 ms is past clear_ns (1 ms) after the first run's last record at 1.05 ms, so
# it is an episode of its own.  Slow: 1 of which 1 detected; all: 2 of which 1.
s4 = {Q: [(MS + i * 10000, occ, "ab"[i % 2]) for i, occ in enumerate((200000, 320000, 350000, 380000, 420000, 430000))] +
      [(5 * MS, 100000, "a"), (5 * MS + 10000, 450000, "b")]}
c = cfg()
r = se.score_records([warn(MS + 20000)], s4, c, MS, {"model": model, "events": [], "queues": []})["QueueBuildup"]
check("crossings, detected", (r["injected"], r["detected"]), (2, 1))
check("slow climbs, detected", (r["slow_injected"], r["slow_detected"]), (1, 1))
# band_start: the unbroken run at or above 300 KB before 1.04 ms begins at 1.01 ms; before 5.01 ms there is none
check("band start, slow climb", se.band_start(s4[Q], MS + 40000, 300000), MS + 10000)
check("band start, jump", se.band_start(s4[Q], 5 * MS + 10000, 300000), 5 * MS + 10000)
for f in fails:
    print("FAIL:", f)
sys.exit(1 if fails else 0)
