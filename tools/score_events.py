#!/usr/bin/env python3
# Scores the analyzer's events against a scenario's ground truth: per injected kind, recall (injected
# events the analyzer raised at the right place and time), precision (events of that kind that match
# an injection) and detection delay.  Usage: score_events.py TRUTH.json EVENTS.jsonl [--slack-ms MS] [--json]
import json
import statistics
import sys

TIMELESS = {"MtuMismatch", "PfcMismatch"}  # topology facts: raised when the topology is read


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


def score(truth, events, slack_ns):
    injected = truth.get("events", [])
    raised = [e for e in events if e.get("state") == "firing" and e.get("event") != "LinkUp"]
    kinds = sorted({t["kind"] for t in injected})
    rows = {}
    for k in kinds:
        ts = [t for t in injected if t["kind"] == k]
        es = [e for e in raised if e["event"] == k]

        def hits(t, e):
            if not place_match(t["place"], e):
                return False
            if k in TIMELESS:
                return True
            return t["start_ns"] - slack_ns <= e["start_ns"] <= t["end_ns"] + slack_ns

        detected = [t for t in ts if any(hits(t, e) for e in es)]
        matched = [e for e in es if any(hits(t, e) for t in ts)]
        delays = [min(e["start_ns"] for e in es if hits(t, e)) - t["start_ns"] for t in detected if k not in TIMELESS]
        rows[k] = {
            "injected": len(ts),
            "detected": len(detected),
            "recall": len(detected) / len(ts),
            "raised": len(es),
            "precision": (len(matched) / len(es)) if es else None,
            "median_delay_ms": (statistics.median(delays) / 1e6) if delays else None,
        }
    other = {}
    for e in raised:
        if e["event"] not in rows:
            other[e["event"]] = other.get(e["event"], 0) + 1
    return {"scenario": truth.get("scenario"), "kinds": rows, "not_injected_kinds_raised": other,
            "events_raised": len(raised)}


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) != 2:
        print(__doc__ or "usage: score_events.py TRUTH.json EVENTS.jsonl [--slack-ms MS] [--json]", file=sys.stderr)
        sys.exit(2)
    slack_ms = 1.0
    if "--slack-ms" in sys.argv:
        slack_ms = float(sys.argv[sys.argv.index("--slack-ms") + 1])
        args = [a for a in args if a != sys.argv[sys.argv.index("--slack-ms") + 1]]
    truth = json.load(open(args[0]))
    events = [json.loads(line) for line in open(args[1]) if line.strip()]
    r = score(truth, events, int(slack_ms * 1e6))
    if "--json" in sys.argv:
        print(json.dumps(r))
        return
    print(f"scenario {r['scenario']}: {r['events_raised']} events raised")
    for k, v in r["kinds"].items():
        p = "-" if v["precision"] is None else f"{v['precision']:.2f}"
        d = "-" if v["median_delay_ms"] is None else f"{v['median_delay_ms']:.3f} ms"
        print(f"  {k:20} recall {v['detected']}/{v['injected']}  precision {p} ({v['raised']} raised)  delay {d}")
    if r["not_injected_kinds_raised"]:
        print("  other kinds raised (not injected, unscored): " +
              ", ".join(f"{k} {n}" for k, n in sorted(r["not_injected_kinds_raised"].items())))


if __name__ == "__main__":
    main()
