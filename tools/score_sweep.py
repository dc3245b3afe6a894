#!/usr/bin/env python3
"""Detection over many fabrics: generates scenarios for every event family on leaf-spine and fat-tree
fabrics, in every report format, over many seeds (event places, sizes and times drawn from the seed),
replays each through hopwatch-analyzer with ONE configuration for all (the default one unless --config),
scores each with score_events.py and prints the totals per detector: recall, precision, wrong culprits
(a congestion alert placed at a PFC victim of an injected event instead of at its root, raised after the
event made the simulation pause that queue (truth queues[].paused_at_ns, within the slack); one that the clean run
of the same shape, format and seed raised too, the same kind at the same queue and time, is that fabric's own
background congestion and is counted apart), alerts, alerts shown and notifications (as the shipped
Alertmanager configuration lists and sends them) per injected incident, per family too, and alerts on clean
fabrics.  An injected Microburst the switches never reported (no record of its queue at or above their queue
report level) or never reported at its burst level (PFC Xon of the RoCE queue: "below the burst level"), or an
injected Incast whose queue the simulation never filled to its HighQueue threshold (its senders held upstream
by PFC), or an injected PathChange none of whose moved flows was reported both before it and while it lasted (a flow
first seen on its new path has no old one to differ from), is counted apart as unobservable, not in the recall.
An injected CongestionTree at a queue where a CongestionTree has fired since before it (raised before its start less
the slack, not resolved by its start: the queue never drained in between) is counted apart as already alerted.  A
PathChange raised from an injected one's start on naming only flows it moved (also their move back once the link is up,
seen at their next report, after the incident and its slack) is that incident's: counted right, and among its alerts.

usage: score_sweep.py --gen HOPWATCH-GEN --analyzer HOPWATCH-ANALYZER [--seeds N] [--first-seed S]
                      [--families F,...] [--shapes S,...] [--formats F,...] [--config ANALYZER.json]
                      [--gen-args "ARGS"] [--vary] [--jobs N] [--keep DIR] [--json] [--markdown] [--explain]

families: clean incast microburst pfc-storm link-down report-loss mtu-mismatch dscp-misconfig mix
shapes:   leaf-spine (4 spines, 8 leaves, 8 hosts each), fat-tree:4, fat-tree:8 (the default three), or any
          leaf-spine:SPINES,LEAVES,HOSTS_PER_LEAF and fat-tree:K (even K) hopwatch-gen makes
formats:  tr2.0 tr1.0 tr0.5

--explain lists, per injected incident, each alert counted against it (alerts per incident): its kind, id,
analyzer incident, queue, start from the incident's start, why it counts (at the incident's "place", at one of
its PFC "victim"s, or naming a "flow" it touched), "during" or "after" the incident, whether it carries the
analyzer incident of an alert at the incident's place ("own"), and whether the same fabric's clean run (include
the clean family) raised the same kind at the same queue in the incident's window too ("background"); then the
totals of those.

Fabrics other than the generator's defaults (the analyzer still runs with ONE configuration, so this is how a
user's fabric looks to it):
  --gen-args "ARGS"  appended to every hopwatch-gen scenario command (e.g. "--host-gbps 25 --fabric-gbps 100
                     --xoff-kb 200 --xon-kb 150"); the incasts' sender rates follow --host-gbps
  --vary             each (shape, seed) draws its own fabric (the same for every family and format of that shape
                     and seed), before --gen-args, which may pin some of it: host links 25/50/100/200 G, switch
                     links 100/200/400/800 G (not slower than the hosts), PFC Xoff 100-800 KB with Xon 10-40 %
                     below it, lossy buffers 512-4096 KB, background RoCE load 0.1-0.6 and TCP 0-0.1 of a host
                     link, one report per 20/50/100/200/500 packets, queue reports from min(200 KB, 60 % of Xon)
                     about a flow drawn by its share of the queue (hopwatch-gen --queue-report-flow share)
"""
import concurrent.futures
import datetime
import json
import os
import random
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import score_events  # noqa: E402

FAMILIES = ["clean", "incast", "microburst", "pfc-storm", "link-down", "report-loss", "mtu-mismatch",
            "dscp-misconfig", "mix"]
SHAPES = ["leaf-spine", "fat-tree:4", "fat-tree:8"]
FORMATS = ["tr2.0", "tr1.0", "tr0.5"]
CONGESTION = {"Incast", "CongestionTree", "Microburst", "HighQueue", "QueueBuildup"}
TOPOLOGY_FACTS = {"LinkUp", "MtuMismatch", "PfcMismatch"}


# --vary: what each (shape, seed) draws (docs/analyzer.md, "Detection on fabrics outside the defaults").
# host_gbps / fabric_gbps: NIC and switch-link speeds in use (the fabric at least as fast as the hosts);
# xoff_kb: PFC Xoff per ingress port and priority, xon_kb below it by xon_gap (a fraction of Xoff);
# buffer_kb: a lossy queue's buffer; load / tcp_load: background RoCE / TCP per host, fraction of its link;
# sample: one sink report per N packets of a flow.  Queue reports (--queue-report-kb) start at 200 KB, or at
# 60 % of Xon when that is lower (a switch reports a queue before PFC holds it), and are about a flow drawn by its
# share of the queue (--queue-report-flow share: at 1 in 500 a fan-in shows its senders only there).
VARY_RANGES = {"host_gbps": [25, 50, 100, 200], "fabric_gbps": [100, 200, 400, 800], "xoff_kb": (100, 800),
               "xon_gap": (0.1, 0.4), "buffer_kb": (512, 4096), "load": (0.1, 0.6), "tcp_load": (0.0, 0.1),
               "sample": [20, 50, 100, 200, 500]}


def vary_args(shape, seed):
    """hopwatch-gen arguments of the fabric --vary draws for (shape, seed), from VARY_RANGES."""
    rng = random.Random(f"vary/{shape}/{seed}")
    r = VARY_RANGES
    host = rng.choice(r["host_gbps"])
    fabric = rng.choice([g for g in r["fabric_gbps"] if g >= host])
    xoff = rng.randint(*r["xoff_kb"])
    xon = round(xoff * (1 - rng.uniform(*r["xon_gap"])))
    qreport = min(200, round(0.6 * xon))
    return ["--host-gbps", str(host), "--fabric-gbps", str(fabric), "--xoff-kb", str(xoff), "--xon-kb", str(xon),
            "--buffer-kb", str(rng.randint(*r["buffer_kb"])), "--load", f"{rng.uniform(*r['load']):.2f}",
            "--tcp-load", f"{rng.uniform(*r['tcp_load']):.2f}", "--sample", str(rng.choice(r["sample"])),
            "--queue-report-kb", str(qreport), "--queue-report-flow", "share"]


def shape_ok(shape):
    """A --shapes value: one of SHAPES, leaf-spine:S,L,H or fat-tree:K (even K, 2-22) as hopwatch-gen takes."""
    if shape in SHAPES:
        return True
    m = re.fullmatch(r"leaf-spine:(\d+),(\d+),(\d+)", shape)
    if m:
        return all(int(v) >= 1 for v in m.groups())
    m = re.fullmatch(r"fat-tree:(\d+)", shape)
    return bool(m) and int(m.group(1)) % 2 == 0 and 2 <= int(m.group(1)) <= 22


def host_gbps(args):
    """The host link speed a hopwatch-gen argument list sets (the last --host-gbps), else its default 100."""
    g = 100.0
    for i, a in enumerate(args[:-1]):
        if a == "--host-gbps":
            g = float(args[i + 1])
    return g


class Fabric:
    """Names of a generated fabric, as docs/scenarios.md lays them out."""

    def __init__(self, shape, host_gbps=100.0):
        self.shape = shape
        self.host_gbps = host_gbps
        if shape.startswith("leaf-spine"):
            s, leaves, h = (4, 8, 8) if shape == "leaf-spine" else map(int, shape.split(":")[1].split(","))
            self.topology = f"leaf-spine:{s},{leaves},{h}"
            self.hosts = leaves * h
            self.leaves = [f"leaf{i}" for i in range(1, leaves + 1)]
            self.uplinks = list(range(h + 1, h + s + 1))  # a leaf's ports toward the spines
            self.spine_links = [(f"spine{i}", p) for i in range(1, s + 1) for p in range(1, leaves + 1)]
        else:
            k = int(shape.split(":")[1])
            self.topology = shape
            self.hosts = k * k * k // 4
            self.leaves = [f"edge{p}-{i}" for p in range(1, k + 1) for i in range(1, k // 2 + 1)]
            self.uplinks = list(range(k // 2 + 1, k + 1))
            self.spine_links = [(f"agg{p}-{i}", q) for p in range(1, k + 1) for i in range(1, k // 2 + 1)
                                for q in range(k // 2 + 1, k + 1)]

    def host(self, rng, avoid=()):
        while True:
            h = f"host{rng.randint(1, self.hosts)}"
            if h not in avoid:
                return h


def events_for(family, fab, rng):
    """--event specs for one run of a family, drawn from rng (times in µs of a 5 ms run)."""
    # rates scale with the host link (the generator's default 100G: x 1)
    scale = fab.host_gbps / 100.0

    def incast(kind, dur_lo, dur_hi):
        senders = rng.choice([4, 8, 16, 32])
        senders = min(senders, fab.hosts - 1)
        # a fan-in that overloads the receiver's link: senders x gbps between 1.2x and 4x its speed, each sender
        # at 10 % to 50 % of its own
        gbps = round(min(50.0 * scale, max(10.0 * scale, rng.uniform(120, 400) / senders * scale)), 1)
        start = rng.randint(500, 2000)
        dur = rng.randint(dur_lo, dur_hi)
        return f"{kind}:dst={fab.host(rng)},senders={senders},gbps={gbps},start_us={start},dur_us={dur}"

    def link_down():
        leaf = rng.choice(fab.leaves)
        return f"link-down:link={leaf}:Ethernet{rng.choice(fab.uplinks)},start_us={rng.randint(500, 2000)}," \
               f"dur_us={rng.randint(1000, 2500)}"

    if family == "clean":
        return []
    if family == "incast":
        return [incast("incast", 1000, 2500)]
    if family == "microburst":
        return [incast("microburst", 10, 100)]
    if family == "pfc-storm":
        return [f"pfc-storm:host={fab.host(rng)},senders={rng.choice([2, 4, 6])},"
                f"gbps={min(rng.choice([10, 20]), fab.host_gbps * 0.8):g},"
                f"start_us={rng.randint(500, 2000)},dur_us={rng.randint(1000, 3000)}"]
    if family == "link-down":
        return [link_down()]
    if family == "report-loss":
        return [f"report-loss:node={rng.choice(fab.leaves)},fraction={rng.choice([0.1, 0.2, 0.3, 0.5])},"
                f"start_us={rng.randint(500, 1500)},dur_us={rng.randint(1500, 3000)}"]
    if family == "mtu-mismatch":
        node, port = rng.choice(fab.spine_links)
        return [f"mtu-mismatch:link={node}:Ethernet{port},mtu=1500"]
    if family == "dscp-misconfig":
        return [f"dscp-misconfig:host={fab.host(rng)},start_us=0,dur_us=5000"]
    if family == "mix":  # several at once, in different places
        a = incast("incast", 1000, 2000)
        b = f"pfc-storm:host={fab.host(rng)},senders=4,gbps={min(10, fab.host_gbps * 0.8):g},start_us={rng.randint(2500, 3000)},dur_us=1000"
        return [a, b, link_down()]
    raise ValueError(family)


def run_one(job):
    gen, an, cfg, family, shape, fmt, seed, keep, vary, extra, explain = job
    gargs = (vary_args(shape, seed) if vary else []) + list(extra)
    fab = Fabric(shape, host_gbps(gargs))
    rng = random.Random(f"{family}/{shape}/{fmt}/{seed}")
    evs = events_for(family, fab, rng)
    d = tempfile.mkdtemp(prefix="hw-sweep-")
    try:
        cmd = [gen, "scenario", "custom", "--topology", fab.topology, "--format", fmt, "--seed", str(seed),
               "--out", d, "--write-records", "--quiet"] + gargs
        for e in evs:
            cmd += ["--event", e]
        g = subprocess.run(cmd, capture_output=True, text=True)
        if g.returncode != 0:
            return {"job": job[3:7], "error": f"hopwatch-gen: {g.stderr.strip()}", "events": evs, "gen_args": gargs}
        run = [an, "run", "--jsonl", f"{d}/records.jsonl", "--lldp", f"{d}/lldp.pcap", "--map", f"{d}/map.json",
               "--events", f"{d}/events.jsonl", "--quiet"]
        if cfg:
            run += ["--config", cfg]
        a = subprocess.run(run, capture_output=True, text=True)
        if a.returncode != 0:
            return {"job": job[3:7], "error": f"hopwatch-analyzer: {a.stderr.strip()[-400:]}", "events": evs,
                    "gen_args": gargs}
        truth = json.load(open(f"{d}/truth.json"))
        events = [json.loads(line) for line in open(f"{d}/events.jsonl") if line.strip()]
        flows = {}
        series = score_events.queue_series(f"{d}/records.jsonl", flows)
        conf = score_events.load_config(cfg)
        conf["model"] = truth.get("model", {})
        r = score_events.score(truth, events, int(1e6), series, conf, flows)
        r["incidents"] = incidents(truth, events, int(1e6))
        r["incident_ids"] = incident_ids(truth, events, int(1e6))
        sent = notifying(events)  # the label model, once for the run's four notification figures
        r["notifications"] = notifications(truth, events, int(1e6), sent)
        r["foreign"] = foreign(truth, events, int(1e6), sent)
        r["own_notifications"] = own_notifications(truth, events, int(1e6), sent)
        r["shown"] = shown(truth, events, int(1e6))
        r["culprits"] = culprits(truth, events, int(1e6))
        if family == "clean":  # its alerts are the fabric's own background (aggregate)
            r["clean_notifications"] = clean_notifications(truth, events, series, conf, int(1e6), sent)
            r["congestion_alerts"] = congestion_alerts(events)
            r["alert_places"] = alert_places(events)
        if explain:
            r["explain"] = explain_alerts(truth, events, int(1e6))
            r["truth_windows"] = truth_windows(truth, int(1e6))
        r["unconfirmed"] = unconfirmed(truth, events, series, conf, int(1e6))
        if keep:
            dst = os.path.join(keep, f"{family}-{shape.replace(':', '')}-{fmt}-{seed}")
            shutil.rmtree(dst, ignore_errors=True)
            shutil.copytree(d, dst)
        out = {"job": job[3:7], "events": evs, "score": r}
        if gargs:
            out["gen_args"] = gargs
        return out
    finally:
        shutil.rmtree(d, ignore_errors=True)


def _qname(q):
    return (q.get("node"), q.get("ifname"), q.get("queue"))


def _evq(e):
    return (e.get("node"), e.get("port_name"), e.get("queue"))


def related(t, e, slack_ns):
    """Is alert e part of injected incident t: raised while it lasts (with slack), at its place or at an end
    of its link; or, from its start on, at one of its PFC victims or naming a flow it touched (an alert
    elsewhere that began before the incident did is not its consequence: background congestion that
    shares a flow with it); or, from its start on, a PathChange naming only flows it moved (its_flows_moved)."""
    timeless = t["kind"] in score_events.TIMELESS
    if score_events.its_flows_moved(t, e):
        return True  # its flows moving, also back once the link is up (seen at their next report, after it ended)
    if not (t["start_ns"] - slack_ns <= e["start_ns"] <= t["end_ns"] + slack_ns or timeless):
        return False
    if score_events.place_match(t["place"], e):
        return True
    if not timeless and e["start_ns"] < t["start_ns"]:
        return False
    return score_events.flow_match(t, e) or \
        _evq(e) in {_qname(q) for q in t.get("effects", {}).get("paused_queues", [])}


def silent_kinds(path=None):
    """The alertnames the shipped Alertmanager route lists without notifying (its hopwatch-silent route:
    the per-queue symptoms), read from deploy/alertmanager/alertmanager.yml."""
    path = path or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "deploy", "alertmanager",
                                "alertmanager.yml")
    text = open(path).read()
    m = re.search(r"alertname=~\"([^\"]+)\"'?\]\s*\n\s*receiver: hopwatch-silent", text)
    if not m:
        raise ValueError(f"{path}: no route to hopwatch-silent with an alertname=~ matcher")
    return set(m.group(1).split("|"))


def inhibited_kinds(path=None):
    """The shipped Alertmanager inhibit rule that hides an incident's symptoms: (sources, targets), the
    alertnames of its source and target matchers (equal: [incident])."""
    path = path or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "deploy", "alertmanager",
                                "alertmanager.yml")
    text = open(path).read()
    m = re.search(r"source_matchers: \[[^\]]*alertname=~\"([^\"]+)\"[^\]]*\]\s*\n\s*target_matchers: "
                  r"\[[^\]]*alertname=~\"([^\"]+)\"[^\]]*\]\s*\n\s*equal: \[incident\]", text)
    if not m:
        raise ValueError(f"{path}: no inhibit rule with alertname=~ matchers and equal: [incident]")
    return set(m.group(1).split("|")), set(m.group(2).split("|"))


def digest_kinds(path=None):
    """The alertnames the shipped Alertmanager route sends to its bursts' digest (hopwatch-burst-digest: one
    notification per switch, the node label), read from deploy/alertmanager/alertmanager.yml."""
    path = path or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "deploy", "alertmanager",
                                "alertmanager.yml")
    m = re.search(r"alertname=~?\"([^\"]+)\"'?\]\s*\n\s*receiver: hopwatch-burst-digest", open(path).read())
    return set(m.group(1).split("|")) if m else set()


SILENT = silent_kinds()
INHIBIT_SOURCES, INHIBIT_TARGETS = inhibited_kinds()
DIGEST = digest_kinds()


def incidents(truth, events, slack_ns):
    """Alerts (firing, not topology facts) per injected incident: distinct alerts, an alert raised again
    with the same id (an update within its incident) counted once."""
    raised = [e for e in events if e.get("state") == "firing" and e.get("event") not in TOPOLOGY_FACTS]
    return [len({(e["event"], e.get("id")) for e in raised if related(t, e, slack_ns)})
            for t in truth.get("events", [])]


def shown(truth, events, slack_ns):
    """Alerts per injected incident an operator lists in the shipped Alertmanager (amtool alert query, the
    UI's default view): distinct alerts, but not a symptom that its inhibit rule hides (an INHIBIT_TARGETS
    alert with the detector incident of an INHIBIT_SOURCES alert of the run: the analyzer keeps alerts
    firing in Alertmanager for alerting.min_visible_ns, 30 s, far longer than a simulated run).  The label
    also joins related detector incidents (incident_labels(); not modelled here): an upper bound."""
    raised = [e for e in events if e.get("state") == "firing" and e.get("event") not in TOPOLOGY_FACTS]
    hiding = {e["incident"] for e in raised if e.get("incident") and e["event"] in INHIBIT_SOURCES}
    seen = [e for e in raised if not (e["event"] in INHIBIT_TARGETS and e.get("incident") in hiding)]
    return [len({(e["event"], e.get("id")) for e in seen if related(t, e, slack_ns)})
            for t in truth.get("events", [])]


OPEN_INCIDENTS = 16  # HW_ALERT_INCIDENT_OPEN (include/hopwatch/alert_sink.h): incidents an alert may join
FOOTPRINT = 64  # HW_ALERT_FOOTPRINT: switches and flows an open incident remembers of each (the newest)


def footprint(e):
    """An alert's switches (its place and its link's far end: topology names, else "#node_id"; None where it has
    none) and flows."""
    own = e.get("node") or (f"#{e['node_id']}" if e.get("node_id") else None)
    far = e["link"].split("--", 1)[1].split(":", 1)[0] or None if "--" in (e.get("link") or "") else None
    return [own, far], list(e.get("flows", []))[:8]


def utc_ms(ns):
    """The sink's label for an incident begun at ns: its UTC time to the millisecond."""
    t = datetime.datetime.fromtimestamp(ns // 1000000000, datetime.timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%S") + ".%03dZ" % (ns // 1000000 % 1000)


def incident_labels(raised, gap_ns=int(1e9)):
    """The alert sink's incident label of each alert (lib/outputs/alert_sink.c incident_of(), in raise order): a
    detector incident keeps the label it first got; any other alert joins the open incident (the newest
    OPEN_INCIDENTS) most recently raised within gap_ns (HW_ALERT_INCIDENT_GAP_NS, 1 s of record time) that shares a
    switch or a flow with it (footprint(); or any, when it names neither): one holding its own switch first, then
    the most recently raised; else it starts one named by its start (utc_ms(), -2, -3 ... while an open one has
    the name).  An update of an alert (its id raised before) only adds
    to its incident's footprint."""
    by_inc, by_alert, ring, nxt, out = {}, {}, [None] * OPEN_INCIDENTS, 0, []

    def new(name, t):
        nonlocal nxt
        o = {"name": name, "first": t, "last": t, "nodes": [], "flows": []}
        ring[nxt % OPEN_INCIDENTS] = o
        nxt += 1
        return o

    def named(name):
        return next((o for o in ring if o and o["name"] == name), None)

    def take_in(o, e, t, nodes, flows):
        o["last"], o["first"] = max(o["last"], t), min(o["first"], t)
        for key, vals in (("nodes", nodes), ("flows", flows)):
            for v in vals:
                if v not in o[key]:
                    o[key] = (o[key] + [v])[-FOOTPRINT:]

    for e in raised:
        t, inc, key = e.get("start_ns", 0), e.get("incident"), (e.get("event"), e.get("id"))
        (own, far), flows = footprint(e)
        nodes = [n for n in (own, far) if n]
        if key in by_alert:  # an update (or a re-raise of the same alert): its label stays
            o = named(by_alert[key])
            if o:
                take_in(o, e, t, nodes, flows)
            out.append(by_alert[key])
            continue
        if inc and inc in by_inc:
            o = named(by_inc[inc]) or new(by_inc[inc], t)
        else:
            o, o_how = None, 0
            for c in ring:
                if not c or t > c["last"] + gap_ns or t + gap_ns < c["first"]:
                    continue
                how = 2 if own in c["nodes"] else int((not nodes and not flows) or far in c["nodes"] or
                                                      bool(set(flows) & set(c["flows"])))
                if how > o_how or (how and how == o_how and c["last"] > o["last"]):
                    o, o_how = c, how
            if o is None:
                name, k = utc_ms(t), 2
                while named(name) and k <= OPEN_INCIDENTS:
                    name, k = "%s-%d" % (utc_ms(t), k % 100), k + 1
                o = new(name, t)
            if inc:
                by_inc[inc] = o["name"]
        take_in(o, e, t, nodes, flows)
        by_alert[key] = o["name"]
        out.append(o["name"])
    return out


def notifying(events):
    """The alerts the shipped Alertmanager route notifies, each with its notification's key: not a symptom
    (SILENT), not inhibited (an INHIBIT_TARGETS alert whose incident label, incident_labels(), an INHIBIT_SOURCES
    alert shares: the label, not the detector incident, is what the inhibit rule compares); a bursts' digest
    alert (DIGEST) goes out with the other bursts of its switch, ("digest", node), any other with its incident
    label (the route groups by it).  The topology's own alerts (MtuMismatch, PfcMismatch) are pushed to the sink like
    any other and notify; a LinkUp is not, when the analyzer starts (lib/outputs/an_outputs.c: the links' baseline),
    the only LinkUps a sweep run has."""
    raised = [e for e in events if e.get("state") == "firing" and e.get("event") != "LinkUp"]
    labels = incident_labels(raised)
    hiding = {lab for e, lab in zip(raised, labels) if e["event"] in INHIBIT_SOURCES}
    return [(e, ("digest", e.get("node_id")) if e["event"] in DIGEST else lab) for e, lab in zip(raised, labels)
            if e["event"] not in SILENT and not (e["event"] in INHIBIT_TARGETS and lab in hiding)]


def notifications(truth, events, slack_ns, sent=None):
    """Notifications per injected incident, as the shipped Alertmanager route sends them (notifying()): one
    per group (an incident's alerts come within its group_wait of 1 s here, records span milliseconds; a
    switch's bursts within the digest's 10 s), so the distinct keys of its related notifying alerts.  sent: notifying(events)
    when the caller has it already (one run's figures share it)."""
    sent = notifying(events) if sent is None else sent
    return [len({k for e, k in sent if related(t, e, slack_ns)}) for t in truth.get("events", [])]


def own_notifications(truth, events, slack_ns, sent=None):
    """Per injected incident, the notifications (notifying()) holding its own alerts: those at its place, its link's
    ends or its PFC victims (why_related() not "flow"; an alert naming only one of its flows may be another cause's).
    sent: as notifications()."""
    sent = notifying(events) if sent is None else sent
    return [len({k for e, k in sent if related(t, e, slack_ns) and why_related(t, e) != "flow"})
            for t in truth.get("events", [])]


def foreign(truth, events, slack_ns, sent=None):
    """Per injected incident, the alerts its notifications carry that are not its own: the notifying alerts
    (notifying(), digests apart) with the incident label of one of its related alerts, not related() to it.  sent: as
    notifications()."""
    sent = [(e, k) for e, k in (notifying(events) if sent is None else sent)
            if not (isinstance(k, tuple) and k[0] == "digest")]
    out = []
    for t in truth.get("events", []):
        labels = {k for e, k in sent if related(t, e, slack_ns)}
        out.append(len({(e["event"], e.get("id")) for e, k in sent if k in labels and not related(t, e, slack_ns)}))
    return out


def clean_notifications(truth, events, series, cfg, slack_ns, sent=None):
    """A clean run's notifications (notifying()): [incident ones, digests, those holding only alerts the
    simulation does not confirm (unconfirmed())].  sent: as notifications()."""
    groups = {}
    for e, k in notifying(events) if sent is None else sent:
        groups.setdefault(k, []).append(e)
    bad = sum(all(unconfirmed(truth, [e], series, cfg, slack_ns) for e in g) for g in groups.values())
    digests = sum(isinstance(k, tuple) and k[0] == "digest" for k in groups)
    return [len(groups) - digests, digests, bad]


def incident_ids(truth, events, slack_ns):
    """Analyzer incidents per injected incident: distinct incident ids of its related alerts (an alert
    without one is an incident of its own)."""
    raised = [e for e in events if e.get("state") == "firing" and e.get("event") not in TOPOLOGY_FACTS]
    return [len({e.get("incident") or ("alert", e["event"], e.get("id")) for e in raised if related(t, e, slack_ns)})
            for t in truth.get("events", [])]


def why_related(t, e):
    """Which of related()'s rules counts alert e against injected incident t: "place" (at its place or an end of
    its link), "victim" (at one of its PFC victims), else "flow" (naming a flow it touched)."""
    if score_events.place_match(t["place"], e):
        return "place"
    if _evq(e) in {_qname(q) for q in t.get("effects", {}).get("paused_queues", [])}:
        return "victim"
    return "flow"


def explain_alerts(truth, events, slack_ns):
    """--explain: per injected incident, each alert incidents() counts against it (its first raise), with why
    (why_related), "during" or "after" the incident (raised after its end_ns: within the slack, or a PathChange of
    its flows moving back), and whether it
    carries the analyzer incident of an alert at the incident's own place ("own")."""
    raised = [e for e in events if e.get("state") == "firing" and e.get("event") not in TOPOLOGY_FACTS]
    out = []
    for t in truth.get("events", []):
        first = {}
        for e in raised:
            if related(t, e, slack_ns):
                first.setdefault((e["event"], e.get("id")), e)
        own = {e.get("incident") for e in first.values() if e.get("incident") and why_related(t, e) == "place"}
        out.append([{"event": e["event"], "id": e.get("id"), "incident": e.get("incident"),
                     "place": list(_evq(e)), "start_us": round((e["start_ns"] - t["start_ns"]) / 1000, 1),
                     "why": why_related(t, e), "when": "after" if e["start_ns"] > t["end_ns"] else "during",
                     "own": e.get("incident") in own} for e in sorted(first.values(), key=lambda x: x["start_ns"])])
    return out


def truth_windows(truth, slack_ns):
    """Each injected incident's kind, node (or "link") and window with the slack (for --explain)."""
    return [{"kind": t["kind"], "lo": t["start_ns"] - slack_ns, "hi": t["end_ns"] + slack_ns,
             "place": t["place"].get("node") or "link"} for t in truth.get("events", [])]


def alert_places(events):
    """The alerts raised (not updates, not topology facts): kind, queue and start (a clean run's, for --explain)."""
    return [[e.get("event"), *_evq(e), e.get("start_ns")] for e in events
            if e.get("state") == "firing" and not e.get("update") and e.get("event") not in TOPOLOGY_FACTS]


def explain_tally(results):
    """--explain's totals: the alerts counted against injected incidents, by family, kind, why, when, own, and
    whether the same fabric's clean run (same shape, format and seed) raised the same kind at the same queue within
    the incident's window too ("background": it would have been raised without the incident), "?" without that
    clean run; and each incident's alerts one by one, as lines to print."""
    clean = {tuple(r["job"][1:]): r["score"].get("alert_places", []) for r in results
             if "error" not in r and r["job"][0] == "clean"}
    tally, lines = {}, []
    for r in results:
        if "error" in r or "explain" not in r["score"]:
            continue
        base = clean.get(tuple(r["job"][1:]))
        for t, alerts in zip(r["score"]["truth_windows"], r["score"]["explain"]):
            lines.append(f"{'/'.join(map(str, r['job']))} {t['kind']} at {t['place']}: {len(alerts)} alerts")
            for a in alerts:
                bg = "?" if base is None else \
                    "background" if any(c[0] == a["event"] and c[1:4] == a["place"] and
                                        t["lo"] <= c[4] <= t["hi"] for c in base) else "-"
                where, own = "/".join(map(str, a["place"])), "own" if a["own"] else "other"
                key = (r["job"][0], t["kind"], a["event"], a["why"], a["when"], own, bg)
                tally[key] = tally.get(key, 0) + 1
                lines.append(f"    {a['event']} id {a['id']} incident {a['incident']} at {where} {a['start_us']:+} us: "
                             f"{a['why']}, {a['when']}, {own} incident, {bg}")
    return tally, lines


def alert_sig(e):
    """An alert's kind, queue and start: the same in two runs of one fabric when the same traffic raised it."""
    return [e.get("event"), e.get("node"), e.get("port_name"), e.get("queue"), e.get("start_ns")]


def congestion_alerts(events):
    """The congestion alerts raised (not updates), as alert_sig."""
    return [alert_sig(e) for e in events
            if e.get("state") == "firing" and not e.get("update") and e.get("event") in CONGESTION]


def culprits(truth, events, slack_ns):
    """Congestion alerts placed at a PFC victim of an injected incident (a paused queue that is not the
    incident's own place) while it lasts, as alert_sig (aggregate() sets apart those the same fabric's clean run
    raised too).  With the truth's pause stretches (queues[].paused_at_ns), only an alert raised when the incident
    had made the queue a victim: the simulation paused it at some step from the incident's start, in the slack
    before the alert began (a queue fills after its pause, so an alert that follows none is its own congestion: the
    same queue may be a root before the incident pauses it, as a spine downlink fed more than its link carries is;
    and a pause before the incident began is not the incident's)."""
    paused = {_qname(q): q["paused_at_ns"] for q in truth.get("queues", []) if "paused_at_ns" in q}
    known = bool(paused)  # an older generator's truth has no stretches: every alert at a victim counts

    def was_paused(e, t):
        lo = max(e["start_ns"] - slack_ns, t["start_ns"])
        return not known or any(a <= e["start_ns"] and b >= lo for a, b in paused.get(_evq(e), []))

    out = []
    for e in events:
        if e.get("state") != "firing" or e.get("update") or e.get("event") not in CONGESTION:
            continue
        for t in truth.get("events", []):
            victims = {_qname(q) for q in t.get("effects", {}).get("paused_queues", [])}
            if "node" not in t["place"]:
                continue
            root = (t["place"].get("node"), t["place"].get("ifname"), t["place"].get("queue"))
            if _evq(e) in victims and _evq(e) != root and \
                    t["start_ns"] - slack_ns <= e["start_ns"] <= t["end_ns"] + slack_ns and was_paused(e, t):
                out.append(alert_sig(e))
                break
    return out


def unconfirmed(truth, events, series, cfg, slack_ns):
    """Alerts that neither an injected incident, nor the truth (explained), nor the simulated queue levels
    confirm: congestion alerts (and HighHopLatency, derived from the same level) at a queue whose truth peak
    stayed below the raise threshold (for a Microburst: below its burst level)."""
    peaks = {_qname(q): q.get("peak_bytes", 0) for q in truth.get("queues", [])}
    n = {}
    for e in events:
        k = e.get("event")
        if e.get("state") != "firing" or e.get("update") or k in TOPOLOGY_FACTS:
            continue
        if any(related(t, e, slack_ns) for t in truth.get("events", [])):
            continue
        if score_events.explained(truth, e, slack_ns):
            continue
        if (k in CONGESTION or k == "HighHopLatency") and peaks.get(_evq(e), 0) >= score_events.level_of(cfg, k, e.get("queue", 0)):
            continue  # background congestion the simulation confirms
        n[k] = n.get(k, 0) + 1
    return n


def aggregate(results):
    """Totals over the runs.  A wrong culprit that the same fabric's clean run (same shape, format and seed:
    the same background traffic) raised too, the same kind at the same queue at the same time, is the fabric's
    own background congestion at a queue the injected incident later paused, not a culprit misplaced by the
    incident: counted apart (background_at_victim)."""
    det, per_incident, per_incident_ids, wrong, clean_bad, errors = {}, [], [], {}, {}, []
    per_notif, per_shown, per_family, background, per_foreign, per_own = [], [], {}, {}, [], []
    clean_notes = [0, 0, 0]
    clean_alerts = {tuple(r["job"][1:]): {tuple(a) for a in r["score"].get("congestion_alerts", [])}
                    for r in results if "error" not in r and r["job"][0] == "clean"}
    for r in results:
        if "error" in r:
            errors.append(r)
            continue
        s = r["score"]
        for k, v in s["detectors"].items():
            d = det.setdefault(k, {"injected": 0, "detected": 0, "raised": 0, "matched": 0, "unobservable": 0,
                                   "below_burst_level": 0, "already_congested": 0, "already_alerted": 0, "slow_injected": 0,
                                   "slow_detected": 0})
            for f in d:
                d[f] += v.get(f) or 0
        per_incident += s["incidents"]
        per_incident_ids += s["incident_ids"]
        per_notif += s["notifications"]
        per_foreign += s.get("foreign", [])
        per_own += s.get("own_notifications", [])
        per_shown += s["shown"]
        fam = per_family.setdefault(r["job"][0], {"alerts": [], "shown": [], "notifications": []})
        fam["alerts"] += s["incidents"]
        fam["shown"] += s["shown"]
        fam["notifications"] += s["notifications"]
        for sig in s["culprits"]:
            to = background if tuple(sig) in clean_alerts.get(tuple(r["job"][1:]), ()) else wrong
            to[sig[0]] = to.get(sig[0], 0) + 1
        if r["job"][0] == "clean":
            clean_notes = [a + b for a, b in zip(clean_notes, s.get("clean_notifications", [0, 0, 0]))]
            for k, v in s["unconfirmed"].items():
                clean_bad[k] = clean_bad.get(k, 0) + v
    for k, d in det.items():
        d["recall"] = d["detected"] / d["injected"] if d["injected"] else None
        d["precision"] = d["matched"] / d["raised"] if d["raised"] else None
        d["at_victim"] = wrong.get(k, 0)
        d["background_at_victim"] = background.get(k, 0)
    return {"runs": len(results), "failed": len(errors), "errors": errors[:10], "detectors": det,
            "alerts_per_incident_median": statistics.median(per_incident) if per_incident else None,
            "alerts_per_incident_max": max(per_incident) if per_incident else None,
            "analyzer_incidents_per_incident_median": statistics.median(per_incident_ids) if per_incident_ids else None,
            "shown_per_incident_median": statistics.median(per_shown) if per_shown else None,
            "shown_per_incident_max": max(per_shown) if per_shown else None,
            "notifications_per_incident_median": statistics.median(per_notif) if per_notif else None,
            "notifications_per_incident_max": max(per_notif) if per_notif else None,
            "foreign_alerts": sum(per_foreign), "incidents_with_foreign": sum(1 for x in per_foreign if x),
            "own_notifications_max": max(per_own) if per_own else None,
            "own_split": sum(1 for x in per_own if x > 1), "own_none": sum(1 for x in per_own if not x),
            "per_family": {f: {k: {"median": statistics.median(v), "max": max(v)} for k, v in d.items() if v}
                           for f, d in sorted(per_family.items())},
            "incidents": len(per_incident), "clean_unconfirmed": clean_bad, "clean_notifications": clean_notes, "background_at_victim": background}


def main():
    args = sys.argv[1:]
    opt = {"--seeds": "10", "--first-seed": "1", "--families": ",".join(FAMILIES), "--shapes": ",".join(SHAPES),
           "--formats": ",".join(FORMATS), "--jobs": str(os.cpu_count() or 1)}
    flags = set()
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-h", "--help"):
            print(__doc__)
            sys.exit(0)
        if a in ("--json", "--markdown", "--vary", "--explain"):
            flags.add(a)
            i += 1
        elif a in ("--gen", "--analyzer", "--config", "--keep", "--gen-args") or a in opt:
            if i + 1 >= len(args):
                print(f"score_sweep.py: {a} needs a value", file=sys.stderr)
                sys.exit(2)
            opt[a] = args[i + 1]
            i += 2
        else:
            print(f"score_sweep.py: unknown argument {a}\n{__doc__}", file=sys.stderr)
            sys.exit(2)
    if "--gen" not in opt or "--analyzer" not in opt:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    for key, allowed in (("--families", FAMILIES), ("--formats", FORMATS)):
        for v in opt[key].split(","):
            if v not in allowed:
                print(f"score_sweep.py: {key} {v}: not one of {', '.join(allowed)}", file=sys.stderr)
                sys.exit(2)
    shapes = re.split(r",(?=[a-z])", opt["--shapes"])  # leaf-spine:2,4,4 holds commas of its own
    for v in shapes:
        if not shape_ok(v):
            print(f"score_sweep.py: --shapes {v}: not one of {', '.join(SHAPES)}, leaf-spine:S,L,H or fat-tree:K "
                  f"(even K, 2-22)", file=sys.stderr)
            sys.exit(2)
    extra = shlex.split(opt.get("--gen-args", ""))
    first, n = int(opt["--first-seed"]), int(opt["--seeds"])
    keep = opt.get("--keep")
    if keep:
        os.makedirs(keep, exist_ok=True)
    vary = "--vary" in flags
    jobs = [(opt["--gen"], opt["--analyzer"], opt.get("--config"), f, s, fm, seed, keep, vary, extra,
             "--explain" in flags)
            for f in opt["--families"].split(",") for s in shapes
            for fm in opt["--formats"].split(",") for seed in range(first, first + n)]
    with concurrent.futures.ThreadPoolExecutor(int(opt["--jobs"])) as ex:
        results = list(ex.map(run_one, jobs))
    agg = aggregate(results)
    if "--json" in flags:
        print(json.dumps({"summary": agg, "runs": results}))
        return
    md = "--markdown" in flags
    print(f"{agg['runs']} runs ({agg['failed']} failed), {agg['incidents']} injected incidents; "
          f"configuration: {opt.get('--config') or 'default'}")
    if vary or extra:
        print(f"fabrics: {'drawn per shape and seed (--vary)' if vary else 'the generator defaults'}"
              f"{'; hopwatch-gen ' + ' '.join(extra) if extra else ''}")
    head = ["detector", "recall", "precision", "raised", "wrong culprit (at a PFC victim)"]
    if md:
        print("| " + " | ".join(head) + " |\n|" + "---|" * len(head))
    for k, d in sorted(agg["detectors"].items()):
        rec = f"{d['detected']}/{d['injected']} = {d['recall']:.2f}" if d["injected"] else "-"
        if d.get("unobservable"):  # injected, never reported: not in the recall (score_events.unobservable)
            weak = d.get("below_burst_level", 0)  # reported, never at the burst level (score_events.below_burst_level)
            busy = d.get("already_congested", 0)  # on a queue high before and after (score_events.already_congested)
            parts = [f"{n} {what}" for n, what in ((d["unobservable"] - weak - busy, "unreported"),
                                                   (weak, "below the burst level"), (busy, "already congested")) if n]
            rec += f" ({d['unobservable']} unobservable" + (f": {', '.join(parts)})" if weak or busy else ")")
        if d.get("already_alerted"):  # score_events.already_alerted: not in the recall
            rec += f" ({d['already_alerted']} already alerted: the same alert firing at its place since before it)"
        prec = f"{d['precision']:.2f}" if d["precision"] is not None else "-"
        row = [k, rec, prec, str(d["raised"]), str(d["at_victim"])]
        print(("| " + " | ".join(row) + " |") if md else "  " + "  ".join(f"{c:>14}" for c in row))
    qb = agg["detectors"].get("QueueBuildup")
    if qb and qb["injected"]:  # score_events.score_records: the climbs its own rule can warn of
        print(f"QueueBuildup on climbs at or above queue_buildup.from x the threshold for longer than its hold_ns "
              f"before crossing it: {qb['slow_detected']}/{qb['slow_injected']}"
              f"{' = %.2f' % (qb['slow_detected'] / qb['slow_injected']) if qb['slow_injected'] else ''}; "
              f"the other {qb['injected'] - qb['slow_injected']} crossings came faster "
              f"({qb['detected'] - qb['slow_detected']} of them warned)")
    print(f"alerts per injected incident: median {agg['alerts_per_incident_median']}, "
          f"max {agg['alerts_per_incident_max']}; analyzer incidents per injected incident: median "
          f"{agg['analyzer_incidents_per_incident_median']}; with the shipped Alertmanager configuration: shown "
          f"(not inhibited) median {agg['shown_per_incident_median']}, max {agg['shown_per_incident_max']}; "
          f"notifications median {agg['notifications_per_incident_median']}, max "
          f"{agg['notifications_per_incident_max']}")
    print(f"alerts of other causes in an injected incident's notifications (its incident label shared by an alert "
          f"not related to it): {agg['foreign_alerts']}, in {agg['incidents_with_foreign']} of "
          f"{agg['incidents']} incidents")
    print(f"its own alerts (at its place, its link's ends, its PFC victims) in more than one notification: "
          f"{agg['own_split']} incidents (max {agg['own_notifications_max']}); in none: {agg['own_none']}")
    for f, d in agg["per_family"].items():
        if d:  # clean runs inject nothing
            print(f"  {f}: " + "; ".join(f"{k} median {v['median']} (max {v['max']})" for k, v in d.items()))
    print(f"clean runs: alerts the simulation does not confirm: {agg['clean_unconfirmed'] or 'none'}")
    cn = agg["clean_notifications"]
    print(f"clean runs: notifications {cn[0] + cn[1]} ({cn[0]} incident, {cn[1]} burst digest), {cn[2]} of them "
          f"holding only alerts the simulation does not confirm")
    if agg["background_at_victim"]:
        print(f"at a PFC victim but raised in the same fabric's clean run too (its own background congestion, "
              f"not in the wrong culprits): {agg['background_at_victim']}")
    if "--explain" in flags:
        tally, lines = explain_tally(results)
        print("\n".join(lines))
        print("alerts counted against injected incidents (family, incident kind, alert, why, when, analyzer incident,"
              " in the clean run too): count")
        for k, v in sorted(tally.items()):
            print(f"  {' '.join(map(str, k))}: {v}")
    for e in agg["errors"]:
        print(f"FAILED {e['job']}: {e['error']}", file=sys.stderr)


if __name__ == "__main__":
    main()
