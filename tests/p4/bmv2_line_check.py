# What bmv2_line.sh checks in its work directory: the collector's records of the BMv2 line and the analyzer's
# events, against p4/README.md and p4/cli/*.txt.  Usage: bmv2_line_check.py DIR
"""The rules come from the program and its CLI files, not from a run:
- every switch's egress port 2 queue 0 is congested for a packet when its occupancy is >= 20 packets or its
  hop latency >= 50000 us (set_queue_thresholds 20 50000 64 5 1); a congested packet gets ECN CE when it
  is ECT, and a queue report while fewer than 64 were sent in the episode; a packet that is not congested
  with occupancy < 5 re-arms the quota;
- s2's queue reports (Q F I: not the flow's sink) carry the path so far, s1 and s2; s3's INT reports (F,
  Q within s3's own quota, never I) carry s1, s2, s3;
- a drop report (D F, I 0) of a packet dropped in ingress has egress port none (4294967295);
- the hosts send UDP with ECT(0) and DSCP 0, from source ports that name the phase (bmv2_line.sh)."""
import json
import os
import sys

d = sys.argv[1]
NONE = 4294967295
DEPTH, LATENCY, QUOTA, RESET = 20, 50000, 64, 5
errors = []


def check(cond, what):
    if not cond:
        errors.append(what)
    return cond


def congested(h):
    return h.get("queue_occupancy", 0) >= DEPTH or h.get("hop_latency", 0) >= LATENCY


# reports: the records of one report are written together, hop_index 0 first
reports = []
for line in open(os.path.join(d, "records.jsonl")):
    r = json.loads(line)
    if r["hop_index"] == 0:
        reports.append([])
    reports[-1].append(r)
check(reports, "no records")


def flags(rep):
    return rep[-1]["report_flags"]


def nodes(rep):
    return [h["node_id"] for h in rep]


def of_phase(sport, proto=17):
    return [p for p in reports if p[-1].get("src_port") == sport and p[-1].get("ip_proto") == proto]


def recv(name):
    return json.load(open(os.path.join(d, name + ".json")))


# ---- phase 1: s2 congested, two bursts ----
p1 = of_phase(40001)
s2q = [p for p in p1 if p[-1]["report_node"] == 2]
sink = [p for p in p1 if p[-1]["report_node"] == 3]
check(len(s2q) >= 2 * QUOTA, f"phase 1: {len(s2q)} queue reports from s2, want at least 2 x {QUOTA} (two episodes)")
for p in s2q:
    check(flags(p) == ["congested_queue", "tracked_flow", "intermediate"], f"s2 queue report flags {flags(p)}")
    check(nodes(p) == [1, 2], f"s2 queue report path {nodes(p)}, want [1, 2] (the path so far)")
for p in sink:
    check("intermediate" not in flags(p) and "tracked_flow" in flags(p), f"s3 INT report flags {flags(p)}")
    check(nodes(p) == [1, 2, 3], f"s3 INT report path {nodes(p)}")
    check(all(h["ingress_port"] == 1 and h["egress_port"] == 2 for h in p), "s3 INT report: ports not 1 -> 2")
    # ECN: CE when any switch found its queue congested (the hosts sent ECT(0) = 2)
    want = 3 if any(congested(h) for h in p) else 2
    check(p[-1].get("ecn") == want, f"s3 INT report ecn {p[-1].get('ecn')}, want {want}: {p}")
    check(p[-1].get("dscp") == 0, f"s3 INT report dscp {p[-1].get('dscp')}: the original DSCP is 0")
check(len(sink) > 500, f"phase 1: only {len(sink)} INT reports from the sink")
# the quota, packet by packet at s2 (keyed by s2's egress timestamp, from the sink's stack and s2's reports)
at_s2 = {}
for p in sink + s2q:
    h = p[1]
    at_s2[h["egress_ts"]] = h
reported = {p[1]["egress_ts"] for p in s2q}
used, want = 0, set()
for ts in sorted(at_s2):
    h = at_s2[ts]
    if congested(h):
        if used < QUOTA:
            want.add(ts)
            used += 1
    elif h.get("queue_occupancy", 0) < RESET:
        used = 0
check(reported == want, f"s2's quota: {len(reported)} packets reported, the rule gives {len(want)} "
      f"(reported only: {sorted(reported - want)[:5]}, missing: {sorted(want - reported)[:5]})")
peak = max((h.get("queue_occupancy", 0) for h in at_s2.values()), default=0)
check(peak >= 60, f"s2's queue peaked at {peak} packets, want the 64-packet queue nearly full")
for b in ("burst1", "burst2"):
    r = recv(b)
    check(r["datagrams"] > 300, f"{b}: h2 received {r['datagrams']} datagrams")
    check(r["ce"] > 0, f"{b}: no CE mark at h2")
    check(r["bad_payload"] == 0 and r["dscp_not_restored"] == 0, f"{b}: INT not removed at h2: {r}")

# ---- phase 2: the sink congested: its INT reports carry Q, within its own quota (one episode) ----
p2 = [p for p in of_phase(40002) if p[-1]["report_node"] == 3]
sq = [p for p in p2 if "congested_queue" in flags(p)]
check(len(sq) == QUOTA, f"phase 2: {len(sq)} sink reports with Q, want {QUOTA} (s3's quota, one episode)")
for p in sq:
    check(flags(p) == ["congested_queue", "tracked_flow"], f"sink Q report flags {flags(p)}")
    check(nodes(p) == [1, 2, 3] and congested(p[2]), f"sink Q report: path {nodes(p)}, s3 hop {p[2]}")

# ---- phase 3: drop reports ----
p3 = of_phase(40003)
d29 = [p for p in p3 if p[-1].get("drop_reason") == 29]
d26 = [p for p in p3 if p[-1].get("drop_reason") == 26]
check(len(d29) == 3 and len(d26) == 3, f"drops: {len(d29)} with reason 29, {len(d26)} with 26, want 3 each")
for p in d29:
    check(nodes(p) == [1] and p[0]["report_node"] == 1, f"no route: dropped at s1, got {nodes(p)}")
for p in d26:
    check(nodes(p) == [1, 2] and p[-1]["report_node"] == 2, f"TTL: dropped at s2 with s1's hop, got {nodes(p)}")
# D F, I 0; the no-route drop happens in s1's ingress, before s1's egress adds INT, so that report carries no
# INT stack and the collector also says "postcard" (docs/records.md); the TTL drop at s2 has s1's INT
for p in d29:
    check(flags(p) == ["dropped", "tracked_flow", "postcard"], f"s1 drop report flags {flags(p)} (want D F, no stack)")
for p in d26:
    check(flags(p) == ["dropped", "tracked_flow"], f"s2 drop report flags {flags(p)} (want D F, I 0)")
for p in d29 + d26:
    check(p[-1]["ingress_port"] == 1 and p[-1]["egress_port"] == NONE, f"drop report ports: {p[-1]}")

# ---- phase 4: TCP ----
t = recv("tcp")
check(t == {"bytes": 60000, "intact": True}, f"TCP at h2: {t}")
tcp = [p for p in reports if p[-1].get("ip_proto") == 6 and p[-1]["report_node"] == 3]
check(len(tcp) >= 40 and all(nodes(p) == [1, 2, 3] for p in tcp), f"TCP: {len(tcp)} sink reports")

# ---- phase 5: NPT 1 (UDP port 5000 announces INT, the original port 6000 kept in the shim) ----
n1 = [p for p in of_phase(40004) if p[-1]["report_node"] == 3]
check(len(n1) >= 45, f"NPT 1: {len(n1)} sink reports of 50 datagrams")
check(all(p[-1].get("dst_port") == 6000 and nodes(p) == [1, 2, 3] for p in n1), "NPT 1: dst_port or path")
r = recv("npt1")
check(r["datagrams"] >= 45 and r["bad_payload"] == 0, f"NPT 1 at h2 (port 6000 restored, INT removed): {r}")

# ---- the analyzer ----
events = [json.loads(line) for line in open(os.path.join(d, "events.jsonl"))]
firing = [e for e in events if e["state"] == "firing"]
hq = [e for e in firing if e["event"] == "HighQueue" and e.get("node_id") == 2 and e.get("port") == 2]
check(hq, f"no HighQueue at s2's egress (node 2 port 2): {[(e['event'], e.get('node_id')) for e in firing]}")
pc = [e for e in firing if e["event"] == "PathChange"]
check(not pc, f"PathChange on a line that never changed: {[e.get('detail') for e in pc]}")

for e in errors:
    print("FAIL:", e)
print(f"{len(reports)} reports, {len(events)} events, {len(errors)} failed checks")
sys.exit(1 if errors else 0)
