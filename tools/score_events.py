#!/usr/bin/env python3
"""Scores the analyzer's events against a scenario's ground truth (truth.json) and, with --records, against
the collector's hop records: precision and recall per detector, detection delay, CongestionTree victims
against the truth's PFC tree (QueueBuildup's precision against the simulated queue's own crossings, the
truth's queues[].high_ns, when the threshold is the fabric's), and the QueueBuildup lead time on every injected congestion ramp (the time
its place's queue first crosses HighQueue's raise threshold in the records, minus the time QueueBuildup
fired there).

usage: score_events.py TRUTH.json EVENTS.jsonl [--jsonl RECORDS.jsonl] [--config ANALYZER.json]
                       [--slack-ms MS] [--json]
"""
import json
import statistics
import sys

TIMELESS = {"MtuMismatch", "PfcMismatch"}  # topology facts: raised when the topology is read
RAMP_KINDS = {"Incast", "CongestionTree", "QueueBuildup"}  # injected sustained congestion at a queue
QUEUE_KINDS = RAMP_KINDS | {"Microburst"}
FLOW_KINDS = {"PathChange"}  # placed at the flow's first changed hop: right when the flow is one the event moved
RECORD_KINDS = {"HighQueue", "QueueBuildup"}  # level detectors, judged on the records' occupancy (QueueBuildup: on the truth's queue levels)
# raise None: each queue's threshold from the fabric, as the analyzer derives it by default (raise_of)
DEFAULTS = {"raise": None, "clear": None, "burst": None, "from": 0.75, "hold_ns": 100000, "clear_ns": 1000000, "window_ns": 1000000, "lead_ns": 1000000,
            "min_flows": 2, "buildup_hold_ns": 10000}


def lossless_at_xoff(cfg, queue):
    """The queue's threshold is PFC Xoff of a lossless queue (the default for the RoCE queue)."""
    m = cfg.get("model", {})
    return cfg.get("raise") is None and int(queue) == int(m.get("roce_queue", 3))


def raise_of(cfg, queue):
    """HighQueue's threshold at a queue of this id: the configured one, else from the truth's model as the
    analyzer's default derives it (docs/analyzer.md): a lossless (RoCE) queue at PFC Xoff, a lossy one at
    40 % of its buffer."""
    if cfg.get("raise") is not None:
        return cfg["raise"]
    m = cfg.get("model", {})
    if int(queue) == int(m.get("roce_queue", 3)):
        return m.get("xoff_bytes", 400e3)
    return 0.4 * m.get("lossy_buffer_bytes", 1024e3)


def burst_of(cfg, queue):
    """Microburst's burst level at a queue: the configured microburst.raise, else as the analyzer derives it
    (docs/analyzer.md): the queue's HighQueue clear level (PFC Xon for the RoCE queue)."""
    if cfg.get("burst") is not None:
        return cfg["burst"]
    return clear_of(cfg, queue)


def level_of(cfg, kind, queue):
    """The level at which an alert of this kind says its queue is congested: the burst level for Microburst,
    HighQueue's threshold for the others."""
    return burst_of(cfg, queue) if kind == "Microburst" else raise_of(cfg, queue)


def unobservable(t, series, slack_ns, model=None, truth=None, cfg=None, flows=None):
    """An injected Microburst the switches never reported: no record of its queue at or above their queue report
    level (the truth's model.queue_report_bytes; without one, above 0) from its start to its end plus the slack.
    A switch reports a queue only above that level, so a burst that stays below it leaves no queue report (at
    most a tracked flow's record that happened to pass, at a level background traffic reaches all the time).
    With cfg, also one whose records never reached its queue's burst level (below_burst_level).  With truth,
    also one on a queue the simulation held high from before it began until it ended (already_congested).
    An injected Incast whose queue never reached the level at which it is congested (the simulated queue's peak
    over the whole run, truth queues[].peak_bytes, below HighQueue's threshold there, raise_of): its senders were
    held upstream (PFC from congestion elsewhere paused them), so there was no fan-in at its place to report.
    With flows (flow_hash -> report times, queue_series), an injected PathChange none of whose moved flows was
    reported both before it began (on the path it left) and from its start to its end plus the slack (on the
    path it took): a flow first seen on its new path has no old one to differ from.
    No detector can find any of these; each is counted apart."""
    if t["kind"] == "PathChange":
        if flows is None:
            return False
        lo, hi = t["start_ns"], t["end_ns"] + slack_ns
        times = [flows.get(h, ()) for h in affected(t)]
        return not any(any(ts < lo for ts in x) and any(lo <= ts <= hi for ts in x) for x in times)
    if t["kind"] == "Incast" and truth is not None and cfg is not None and "queue" in t["place"]:
        peaks = [q.get("peak_bytes", 0) for q in truth_queues(truth, t["place"])]
        return bool(peaks) and max(peaks) < raise_of(cfg, t["place"]["queue"])
    if already_congested(t, truth):
        return True
    if t["kind"] != "Microburst" or series is None or "port" not in t["place"]:
        return False
    level = max((model or {}).get("queue_report_bytes", 0), 1)
    if cfg is not None:  # below_burst_level: the records reached at most the report level
        level = max(level, burst_of(dict(cfg, model=model or cfg.get("model", {})), t["place"]["queue"]))
    return not any(t["start_ns"] <= ts <= t["end_ns"] + slack_ns and v >= level
                   for ts, v, *_ in series.get(qkey(t["place"]), []))


def already_congested(t, truth):
    """An injected Microburst on a queue the simulation held at or above its HighQueue threshold from before the
    burst began until it ended (one stretch of the truth's queues[].high_ns, starting before the burst's start: the
    queue was high before any of the burst's bytes arrived): its rise and fall happen above a level the queue never
    left, so no report shows a burst; the queue's congestion is HighQueue's (and CongestionTree's) and was raised
    before.  Unobservable as a burst (counted apart)."""
    if t["kind"] != "Microburst" or truth is None or "queue" not in t["place"]:
        return False
    return any(a < t["start_ns"] and b >= t["end_ns"] for q in truth_queues(truth, t["place"])
               for a, b in q.get("high_ns", []))


def truth_queues(truth, place):
    """The truth's queues[] entries at an injected event's place (node, ifname, queue)."""
    at = (place.get("node"), place.get("ifname"), place["queue"])
    return [q for q in truth.get("queues", []) if (q.get("node"), q.get("ifname"), q.get("queue")) == at]


def below_burst_level(t, series, slack_ns, model=None, cfg=None):
    """An injected Microburst the switches reported, but never at its queue's burst level (Microburst's level,
    burst_of: PFC Xon for the RoCE queue) from its start to its end plus the slack: the burst was too weak for
    its fabric (its senders' excess over the host link, times its length, stayed below Xon, so PFC never cared
    and the queue looked as background traffic makes it look), or the sampling missed its top.  The detector
    is specified at that level (docs/analyzer.md), so unobservable (counted apart from the never reported:
    unobservable() is true for both)."""
    if t["kind"] != "Microburst" or series is None or "port" not in t["place"] or cfg is None:
        return False
    return unobservable(t, series, slack_ns, model, None, cfg) and \
        not unobservable(t, series, slack_ns, model, None, None)


def qkey(d):
    return (int(d["node_id"]), int(d["port"]), int(d["queue"]))


def place_match(truth_place, ev):
    if "link" in truth_place:
        ends = (truth_place["link"]["a"]["node"], truth_place["link"]["b"]["node"])
        return ev.get("node") in ends
    if ev.get("node") != truth_place.get("node"):
        return False
    if "ifname" in truth_place and ev.get("port_name") != truth_place["ifname"]:
        return False
    if "queue" in truth_place and "queue" in ev and ev["queue"] != truth_place["queue"]:
        return False
    return True


def affected(truth_event):
    """The flow hashes the truth says the injected event touched (for a PathChange: moved)."""
    return {f["flow_hash"] for f in truth_event.get("affected_flows", [])}


def flow_match(truth_event, ev):
    """The event names a flow the truth says the injected event touched."""
    hashes = affected(truth_event)
    return any(f in hashes for f in ev.get("flows", []))


def its_flows_moved(truth_event, ev):
    """PathChange ev, raised from injected PathChange truth_event's start on, names only flows it moved: their move
    away from the link, or back to it once it is up, which the analyzer sees at each flow's next report (after
    the event's end and slack when the flows report seldom; a flow first seen during the event shows only its
    move back)."""
    return (truth_event["kind"] == "PathChange" and ev.get("event") == "PathChange" and
            ev["start_ns"] >= truth_event["start_ns"] and bool(ev.get("flows")) and
            set(ev["flows"]) <= affected(truth_event))


def load_config(path):
    c = dict(DEFAULTS)
    if path:
        j = json.load(open(path))
        for k in ("raise", "clear", "hold_ns", "clear_ns"):
            c[k] = j.get("high_queue", {}).get(k, c[k])
        for k in ("window_ns", "lead_ns", "from", "min_flows"):
            c[k] = j.get("queue_buildup", {}).get(k, c[k])
        c["buildup_hold_ns"] = j.get("queue_buildup", {}).get("hold_ns", c["buildup_hold_ns"])
        if j.get("microburst", {}).get("raise", 0) > 0:
            c["burst"] = j["microburst"]["raise"]
    return c


def queue_series(records_path, flows=None):
    """(node_id, port, queue) -> [(time_ns, occupancy, flow_hash or None)] in record order.  flows, when given, a
    dict filled with flow_hash -> the times of the flow's records that carry a hop's ports (a path to compare)."""
    series = {}
    for line in open(records_path):
        if not line.strip():
            continue
        r = json.loads(line)
        if flows is not None and "flow_hash" in r and "egress_port" in r:
            flows.setdefault(r["flow_hash"], []).append(int(r["time_ns"]))
        if "queue_occupancy" not in r or "egress_port" not in r:
            continue
        k = (int(r["node_id"]), int(r["egress_port"]), int(r["queue_id"]))
        series.setdefault(k, []).append((int(r["time_ns"]), int(r["queue_occupancy"]), r.get("flow_hash")))
    return series


def crossings(samples, cfg, queue):
    """Episodes of records at or above the raise threshold, [(first, last)] time each: runs of such records,
    joined when less than clear_ns apart (one episode with hysteresis, as HighQueue counts them)."""
    runs = []
    level = raise_of(cfg, queue)
    for t, v, _ in samples:
        if v < level:
            continue
        if runs and t - runs[-1][1] < cfg["clear_ns"]:
            runs[-1][1] = t
        else:
            runs.append([t, t])
    return [tuple(r) for r in runs]


def high_stretches(samples, level, clear, clear_ns):
    """Stretches [(from, to)] where the queue is high as HighQueue's rule defines it (the PFC hysteresis): from a
    record at or above the raise level until the first record below clear, each record's value holding until
    the next; clear_ns without records also ends one (queue reports stop below the switch's report level), at its
    last record."""
    out, cur, last = [], None, None
    for t, v, _ in samples:
        if cur is not None and t - last >= clear_ns:
            out.append((cur, last))
            cur = None
        if cur is None:
            if v >= level:
                cur = t
        elif v < clear:
            out.append((cur, t))
            cur = None
        last = t
    if cur is not None:
        out.append((cur, last))
    return out


def clear_of(cfg, queue):
    """HighQueue's clear level at a queue, as raise_of: PFC Xon for the RoCE queue, 30 % of the lossy buffer."""
    if cfg.get("raise") is not None:
        return cfg.get("clear") if cfg.get("clear") is not None else cfg["raise"]
    m = cfg.get("model", {})
    if int(queue) == int(m.get("roce_queue", 3)):
        return m.get("xon_bytes", 300e3)
    return 0.3 * m.get("lossy_buffer_bytes", 1024e3)


def high_episodes(samples, cfg, queue):
    """HighQueue episodes to find: a high stretch lasting hold_ns opens one; stretches that begin less than
    clear_ns after the episode's last stretch ended belong to it (the alert is still firing: it resolves after
    clear_ns below clear).  [(start, end)] of each episode's opening stretch and its last one."""
    eps = []
    for a, b in high_stretches(samples, raise_of(cfg, queue), clear_of(cfg, queue), cfg["clear_ns"]):
        if eps and a - eps[-1][1] < cfg["clear_ns"]:
            eps[-1][1] = b
        elif b - a >= cfg["hold_ns"]:
            eps.append([a, b])
    return [tuple(e) for e in eps]


def tree_victims(ev):
    d = ev.get("detail", "")
    if "victims" not in d:
        return []
    return [v for v in d.split("victims", 1)[1].split() if v]


def already_alerted(t, es, slack_ns, ends):
    """An injected CongestionTree at a queue where a CongestionTree (es: the raised ones) was already firing: raised
    before the injected tree's start less the slack (so not its own raise) and not resolved before that start
    (ends: (alertname, id, start_ns) -> end_ns of the resolved events).  The queue never drained in between (its
    HighQueue episode did not clear), so the alert at its place, with the same culprit and the same advice, stands
    through the new storm; no detector raises a second one while it fires.  Counted apart, not in the recall."""
    if t["kind"] != "CongestionTree" or "queue" not in t["place"]:
        return False
    return any(place_match(t["place"], e) and e["start_ns"] < t["start_ns"] - slack_ns and
               ends.get((e["event"], e.get("id"), e["start_ns"]), 1 << 63) >= t["start_ns"] for e in es)


def score_injected(truth, raised, slack_ns, cfg=None, series=None, flows=None, ends=None):
    """Per injected kind: recall, precision and delay against the truth (ends: as already_alerted's, {} without)."""
    injected = truth.get("events", [])
    rows = {}
    for k in sorted({t["kind"] for t in injected}):
        ts = [t for t in injected if t["kind"] == k]
        es = [e for e in raised if e["event"] == k]
        hidden = [t for t in ts if unobservable(t, series, slack_ns, truth.get("model"), truth, cfg, flows)]
        weak = [t for t in hidden if below_burst_level(t, series, slack_ns, truth.get("model"), cfg)]
        busy = [t for t in hidden if already_congested(t, truth) and t not in weak]
        standing = [t for t in ts if t not in hidden and already_alerted(t, es, slack_ns, ends or {})]
        ts = [t for t in ts if t not in hidden and t not in standing]

        def hits(t, e):
            if not (place_match(t["place"], e) or (k in FLOW_KINDS and flow_match(t, e))):
                return False
            if k in TIMELESS:
                return True
            return t["start_ns"] - slack_ns <= e["start_ns"] <= t["end_ns"] + slack_ns

        detected = [t for t in ts if any(hits(t, e) for e in es)]
        matched = [e for e in es if any(hits(t, e) for t in ts)]
        accounted = [e for e in es if e not in matched and explained(truth, e, slack_ns, cfg)]
        delays = [min(e["start_ns"] for e in es if hits(t, e)) - t["start_ns"] for t in detected if k not in TIMELESS]
        row = {"injected": len(ts), "detected": len(detected), "recall": (len(detected) / len(ts)) if ts else None,
               "unobservable": len(hidden), "below_burst_level": len(weak), "already_congested": len(busy),
               "already_alerted": len(standing),
               "raised": len(es), "matched": len(matched) + len(accounted), "explained": len(accounted),
               "precision": ((len(matched) + len(accounted)) / len(es)) if es else None,
               "median_delay_ms": (statistics.median(delays) / 1e6) if delays else None}
        if k == "CongestionTree":  # victims named by the injected trees' events, in the truth's tree of paused queues
            named = in_tree = 0
            for e in matched:
                t = next(t for t in ts if hits(t, e))
                tree = {f"{q['node']}:{q['ifname']}/{q['queue']}" for q in t["effects"].get("paused_queues", [])}
                vs = tree_victims(e)
                named += len(vs)
                in_tree += sum(v in tree for v in vs)
            row["victims_named"], row["victims_in_tree"] = named, in_tree
        rows[k] = row
    return rows


def explained(truth, e, slack_ns, cfg=None):
    """A raised event of a kind that was not injected, accounted for by the truth: a CongestionTree rooted at
    an injected queue event whose PFC tree (effects.paused_queues) is not empty; a CongestionTree, Incast,
    Microburst or HighHopLatency (derived from the same level) at a queue the simulation itself congested (background congestion: its truth peak at or above the
    queue's HighQueue threshold, for a Microburst its burst level); a LinkDown at an injected link-down's link; PacketDrops at a queue the
    truth says dropped, or naming a flow an injected event made lose packets; a PathChange naming only flows an
    injected one moved, raised from its start on (its_flows_moved: after it ended, their move back once the link is
    up, seen at their next report)."""
    k, injected = e["event"], truth.get("events", [])
    if k in ("CongestionTree", "Incast", "Microburst", "HighHopLatency") and cfg is not None and "queue" in e:
        for q in truth.get("queues", []):
            if place_match(q, e) and q.get("queue") == e["queue"] and q.get("peak_bytes", 0) >= level_of(cfg, k, e["queue"]):
                return True

    def during(t):
        return t["start_ns"] - slack_ns <= e["start_ns"] <= t["end_ns"] + slack_ns

    if k == "CongestionTree":
        return any(t["effects"].get("paused_queues") and place_match(t["place"], e) and during(t) for t in injected)
    if k == "LinkDown":
        return any(t["event"] == "link-down" and place_match(t["place"], e) for t in injected)
    if k == "PathChange":
        return any(its_flows_moved(t, e) for t in injected)
    if k == "PacketDrops":
        for q in truth.get("queues", []):
            if q.get("dropped_bytes", 0) > 0 and place_match(q, e):
                return True
        return any(t["effects"].get("affected_flow_drops_pkts", 0) > 0 and flow_match(t, e) for t in injected)
    return False


def victim_windows(truth, slack_ns):
    """(node_id, port, queue) -> [(from, to)]: when the queue was a PFC victim: of an injected event (in its
    effects.paused_queues, during the event), or of the background traffic (the simulation paused it,
    truth queues[].paused_ns > 0, and it is no injected event's place: the whole run)."""
    out = {}
    places = {qkey(t["place"]) for t in truth.get("events", []) if "port" in t["place"] and "queue" in t["place"]}
    for q in truth.get("queues", []):
        if q.get("paused_ns", 0) > 0 and qkey(q) not in places:
            out.setdefault(qkey(q), []).append((0, 1 << 63))
    for t in truth.get("events", []):
        for q in t.get("effects", {}).get("paused_queues", []):
            if "port" in q and "node_id" in q:
                out.setdefault(qkey(q), []).append((t["start_ns"] - slack_ns, t["end_ns"] + slack_ns))
    return out


def true_high(truth, cfg):
    """(node_id, port, queue) -> [(first, last)]: the steps the simulated queue spent at or above its HighQueue
    threshold (truth queues[].high_ns, at the level the analyzer derives by default: raise_of).  None when the
    truth has no such stretches (an older generator) or the threshold is configured (the truth's level is not it)."""
    qs = truth.get("queues")
    if cfg.get("raise") is not None or not qs or any("high_ns" not in q for q in qs):
        return None
    return {qkey(q): [tuple(h) for h in q["high_ns"]] for q in qs}


def band_start(samples, t, level):
    """The time the samples (record order) came to level or above without a break up to time t: the first of the
    unbroken run of such samples just before t (t itself when the sample before t is below level)."""
    start = t
    for ts, v, _ in reversed([x for x in samples if x[0] < t]):
        if v < level:
            break
        start = ts
    return start


def score_records(raised, series, cfg, slack_ns, truth=None, ends=None):
    """HighQueue and QueueBuildup against the records.  HighQueue: an episode to find is the queue high (from a
    record at or above raise until one below clear) for hold_ns (high_episodes); it is found by a HighQueue at
    its queue raised at most hold_ns + slack after it began and not resolved before (ends: (alertname, id, start_ns) -> end_ns
    of the resolved events, as score() builds it for already_alerted too; a re-raise within its incident keeps its id); an event is right when it starts in a run of records at or above raise.  QueueBuildup: an
    event is right when its queue reaches raise within lead_ns (+ slack) after it: the simulated queue itself
    (true_high; the records sample it only every few µs, so a short crossing can fall between two of them), else
    the records; a crossing (in the records: what the analyzer can see) is warned
    when a QueueBuildup at its queue fired in the window_ns + lead_ns before it.  A crossing at a PFC victim
    of an injected event (paused from downstream while it lasts) is not one to find: the event's root is
    the culprit, and the analyzer names the victims in its CongestionTree."""
    runs = {k: crossings(s, cfg, k[2]) for k, s in series.items()}
    vw = victim_windows(truth or {}, slack_ns)
    runs_all = runs
    runs = {k: [r for r in rs if not any(lo <= r[0] <= hi for lo, hi in vw.get(k, []))] for k, rs in runs.items()}
    rows = {}
    hq = [e for e in raised if e["event"] == "HighQueue"]
    ends = ends or {}
    want = [(k, a) for k, s in series.items() for a, _ in high_episodes(s, cfg, k[2])
            if not any(lo <= a <= hi for lo, hi in vw.get(k, []))]
    # found: a HighQueue at its queue raised by hold_ns (+ slack) after the episode began and still firing then
    found = [w for w in want if any(qkey(e) == w[0] and e["start_ns"] <= w[1] + cfg["hold_ns"] + slack_ns and
                                    ends.get((e["event"], e.get("id"), e["start_ns"]), 1 << 63) >= w[1] for e in hq)]
    right = [e for e in hq if any(a <= e["start_ns"] <= b for a, b in runs_all.get(qkey(e), []))]
    rows["HighQueue"] = {"injected": len(want), "detected": len(found), "raised": len(hq), "matched": len(right)}
    qb = [e for e in raised if e["event"] == "QueueBuildup"]
    horizon = cfg["lead_ns"] + slack_ns
    high = true_high(truth or {}, cfg)
    if high is not None:  # the simulated queue itself at or above its threshold at some step within the lead
        right = [e for e in qb if any(a <= e["start_ns"] + horizon and b >= e["start_ns"] for a, b in high.get(qkey(e), []))]
    else:  # the records' samples at or above it (the truth has no stretches, or the threshold is configured)
        right = [e for e in qb if any(e["start_ns"] <= a <= e["start_ns"] + horizon for a, _ in runs_all.get(qkey(e), []))]
    want = [(k, a) for k, rs in runs.items() for a, _ in rs]
    early = cfg["window_ns"] + cfg["lead_ns"]
    found = [w for w in want if any(qkey(e) == w[0] and w[1] - early <= e["start_ns"] < w[1] for e in qb)]
    rows["QueueBuildup"] = {"injected": len(want), "detected": len(found), "raised": len(qb), "matched": len(right)}
    # the climbs it can warn of by its own rule: records at or above queue_buildup.from x raise without a break for
    # more than queue_buildup.hold_ns before the crossing (a jump past that band in one sample, or a burst through
    # it within the hold, comes faster than any warning the rule allows)
    slow = [w for w in want if w[1] - band_start(series[w[0]], w[1], cfg["from"] * raise_of(cfg, w[0][2])) >
            cfg["buildup_hold_ns"]]
    rows["QueueBuildup"]["slow_injected"] = len(slow)
    rows["QueueBuildup"]["slow_detected"] = len(set(slow) & set(found))
    for r in rows.values():
        r["recall"] = r["detected"] / r["injected"] if r["injected"] else None
        r["precision"] = r["matched"] / r["raised"] if r["raised"] else None
    return rows


def ramps(truth, raised, series, cfg, slack_ns):
    """Per injected queue event: when its place's queue first crossed raise in the records (within the event
    and its slack), and when QueueBuildup fired there before that."""
    out = []
    for t in truth.get("events", []):
        if t["kind"] not in QUEUE_KINDS:
            continue
        k = qkey(t["place"])
        lo, hi = t["start_ns"] - slack_ns, t["end_ns"] + slack_ns
        cross = next((ts for ts, v, _ in series.get(k, []) if lo <= ts <= hi and v >= raise_of(cfg, k[2])), None)
        # QueueBuildup warns from queue_buildup.from x raise once the queue has held there for queue_buildup.hold_ns:
        # a climb whose records are at that level less than hold_ns before the crossing cannot be warned
        warnable = cross is not None and any(lo <= ts and ts + cfg["buildup_hold_ns"] < cross and
                                             v >= cfg["from"] * raise_of(cfg, k[2]) for ts, v, _ in series.get(k, []))
        # nor, at a lossless queue at PFC Xoff, a climb whose records name fewer than queue_buildup.min_flows
        # flows within the window before the crossing (one flow's port is paused at Xoff: the analyzer waits)
        if warnable and cfg["min_flows"] >= 2 and lossless_at_xoff(cfg, k[2]):
            seen = {f for ts, _, f in series.get(k, []) if cross - cfg["window_ns"] <= ts < cross and f}
            warnable = len(seen) >= cfg["min_flows"]
        warn = None
        if cross is not None:
            # the warning of this climb: the last QueueBuildup raised at the place before the crossing, within
            # the trend window plus the lead it looks ahead
            ws = [e["start_ns"] for e in raised if e["event"] == "QueueBuildup" and qkey(e) == k and
                  cross - cfg["window_ns"] - cfg["lead_ns"] <= e["start_ns"] < cross]
            warn = max(ws) if ws else None
        out.append({"kind": t["kind"], "place": f"{t['place']['node']}:{t['place']['ifname']}/{t['place']['queue']}",
                    "ramp": t["kind"] in RAMP_KINDS, "warnable": warnable, "start_ns": t["start_ns"], "cross_ns": cross,
                    "buildup_ns": warn, "lead_ms": (cross - warn) / 1e6 if warn is not None else None})
    return out


def score(truth, events, slack_ns, series=None, cfg=None, flows=None):
    # an update (the firing alert of an id again, grown) is not another raise
    raised = [e for e in events if e.get("state") == "firing" and e.get("event") != "LinkUp" and not e.get("update")]
    cfg = dict(cfg or DEFAULTS)
    cfg.setdefault("model", truth.get("model", {}))
    ends = {(e["event"], e.get("id"), e["start_ns"]): e["end_ns"] for e in events
            if e.get("state") == "resolved" and "end_ns" in e}
    rows = score_injected(truth, raised, slack_ns, cfg, series, flows, ends)
    detectors = {k: dict(v, basis="truth") for k, v in rows.items()}
    if series is not None:
        for k, v in score_records(raised, series, cfg, slack_ns, truth, ends).items():
            if k not in detectors:
                detectors[k] = dict(v, basis="records")
    other = {}
    for e in raised:
        k = e["event"]
        if k in detectors:
            continue
        other[k] = other.get(k, 0) + 1
        d = detectors.setdefault("~" + k, {"raised": 0, "matched": 0, "injected": 0, "detected": 0, "recall": None,
                                           "basis": "not injected"})
        d["raised"] += 1
        d["matched"] += explained(truth, e, slack_ns, cfg)
    for name in [k for k in detectors if k.startswith("~")]:
        d = detectors.pop(name)
        d["precision"] = d["matched"] / d["raised"]
        detectors[name[1:]] = d
    r = {"scenario": truth.get("scenario"), "kinds": rows, "detectors": dict(sorted(detectors.items())),
         "not_injected_kinds_raised": other, "events_raised": len(raised)}
    if series is not None:
        r["ramps"] = ramps(truth, raised, series, cfg, slack_ns)
    return r


def fmt(v, spec=".2f"):
    return "-" if v is None else format(v, spec)


def main():
    # --jsonl is the records' JSON lines, as in hopwatch-analyzer; --records is its older spelling here
    argv = ["--records" if a == "--jsonl" else a for a in sys.argv[1:]]
    opts = {}
    for o in ("--slack-ms", "--records", "--config"):
        if o in argv:
            i = argv.index(o)
            if i + 1 >= len(argv):
                print(f"score_events.py: {o} needs a value", file=sys.stderr)
                sys.exit(2)
            opts[o] = argv[i + 1]
            del argv[i:i + 2]
    as_json = "--json" in argv
    args = [a for a in argv if a != "--json"]
    if len(args) != 2 or any(a.startswith("--") for a in args):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    slack_ns = int(float(opts.get("--slack-ms", 1.0)) * 1e6)
    truth = json.load(open(args[0]))
    events = [json.loads(line) for line in open(args[1]) if line.strip()]
    flows = {} if "--records" in opts else None
    series = queue_series(opts["--records"], flows) if "--records" in opts else None
    r = score(truth, events, slack_ns, series, load_config(opts.get("--config")), flows)
    if as_json:
        print(json.dumps(r))
        return
    print(f"scenario {r['scenario']}: {r['events_raised']} events raised")
    print(f"  {'detector':20} {'recall':>10} {'precision':>10} {'raised':>7}  {'judged on':13} delay / notes")
    for k, v in r["detectors"].items():
        rec = f"{v['detected']}/{v['injected']}" if v["injected"] else "-"
        notes = []
        if v.get("median_delay_ms") is not None:
            notes.append(f"delay {v['median_delay_ms']:.3f} ms")
        if v.get("unobservable"):
            weak = f", {v['below_burst_level']} of them reported only below the burst level" \
                if v.get("below_burst_level") else ""
            if v.get("already_congested"):
                weak += f", {v['already_congested']} on a queue high from before it to its end"
            notes.append(f"{v['unobservable']} more injected left no record, never congested its queue or moved "
                         f"no flow seen before it (unobservable, not counted{weak})")
        if v.get("already_alerted"):
            notes.append(f"{v['already_alerted']} more injected where the same alert was firing since before it "
                         f"(already alerted, not counted)")
        if v.get("explained"):
            notes.append(f"{v['explained']} more explained by the truth")
        if "victims_named" in v:
            notes.append(f"victims in the truth's tree {v['victims_in_tree']}/{v['victims_named']}")
        if v["basis"] == "not injected" and v["matched"]:
            notes.append(f"{v['matched']} explained by the truth (an injected event's PFC tree, link or drops, or background congestion the simulated queue confirms)")
        notes = "; ".join(notes)
        print(f"  {k:20} {rec:>10} {fmt(v['precision']):>10} {v['raised']:>7}  {v['basis']:13} {notes}")
    for m in r.get("ramps", []):
        what = "ramp" if m["ramp"] else "burst"
        if m["cross_ns"] is None:
            print(f"  {what} {m['kind']} at {m['place']}: never crosses the threshold in the records")
            continue
        cross = (m["cross_ns"] - m["start_ns"]) / 1e6
        lead = "no QueueBuildup before it" if m["lead_ms"] is None else f"QueueBuildup lead {m['lead_ms']:.3f} ms"
        if not m["warnable"]:
            lead += (" (its records jump past queue_buildup.from x the threshold in one sample, or name fewer than"
                     " queue_buildup.min_flows flows before it at a lossless queue)")
        print(f"  {what} {m['kind']} at {m['place']}: crosses {cross:+.3f} ms after the event start; {lead}")


if __name__ == "__main__":
    main()
