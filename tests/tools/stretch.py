#!/usr/bin/env python3
# Plays a scenario slower for live tests: an analyzer config with every detector window of the documented
# defaults (docs/analyzer.md) scaled by FACTOR, or a records JSONL file with record time stretched by FACTOR.
# Usage: stretch.py config ANALYZER.json FACTOR > OUT.json
#        stretch.py records RECORDS.jsonl FACTOR > OUT.jsonl
import json
import sys

# the documented defaults of each detector window, in ns
DEFAULTS_NS = {
    "postcards": {"window_ns": 50000},
    "high_queue": {"hold_ns": 100000, "clear_ns": 1000000},
    "high_hop_latency": {"hold_ns": 100000, "clear_ns": 1000000},
    "microburst": {"max_ns": 500000},
    "incast": {"window_ns": 1000000},
    "queue_buildup": {"window_ns": 1000000, "lead_ns": 1000000},
    "path_change": {"gather_ns": 1000000},
    "packet_drops": {"window_ns": 10000000},
}


def config(path, k):
    c = json.load(open(path))
    for sec, keys in DEFAULTS_NS.items():
        c.setdefault(sec, {}).update({key: int(v * k) for key, v in keys.items()})
    print(json.dumps(c))


def records(path, k):
    """time_ns becomes t0 + (time_ns - t0) * k (t0: the first record's); the switch timestamps of a record move
    with it, so its hop latency (egress - ingress) stays what the switch measured."""
    t0 = None
    out = sys.stdout
    for line in open(path):
        r = json.loads(line)
        t = r["time_ns"]
        if t0 is None:
            t0 = t
        shift = t0 + int((t - t0) * k) - t
        r["time_ns"] = t + shift
        for key in ("ingress_ts", "egress_ts"):
            if key in r:
                r[key] += shift
        out.write(json.dumps(r, separators=(",", ":")) + "\n")


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("config", "records"):
        sys.stderr.write("usage: stretch.py config|records FILE FACTOR\n")
        return 2
    k = float(sys.argv[3])
    (config if sys.argv[1] == "config" else records)(sys.argv[2], k)
    return 0


sys.exit(main())
