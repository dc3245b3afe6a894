#!/usr/bin/env python3
# Compares rows SELECTed from ClickHouse (FORMAT JSONEachRow, every column of hopwatch.hops) with
# the collector's JSON lines, field by field: each row is turned back into the JSON record the
# valid bits say it is, then the two multisets must be equal (or, with --subset, rows ⊆ records).
# Usage: ch_compare.py [--subset] ROWS.jsonl RECORDS.jsonl...
import collections
import functools
import ipaddress
import json
import sys

FLAGS = ["dropped", "congested_queue", "tracked_flow", "intermediate", "postcard"]
V = dict(ports=1, latency=2, queue=4, ig_ts=8, eg_ts=16, l2=32, tx=64, buffer=128, drop=256,
         flow=512, tclass=1024, roce=2048)


@functools.lru_cache(maxsize=None)  # a flow's addresses come back on every hop
def ip_text(s):
    a = ipaddress.IPv6Address(s)
    return str(a.ipv4_mapped) if a.ipv4_mapped else str(a)


def row_to_record(r):
    n = lambda k: int(r[k])
    v = n("valid")
    o = {"time_ns": n("time_ns"), "report_node": n("report_node"), "hw_id": n("hw_id"),
         "report_seq": n("report_seq"),
         "report_flags": [f for i, f in enumerate(FLAGS) if n("report_flags") >> i & 1],
         "format": r["format"]}
    if r["int_version"] != "none":
        o["int_version"] = r["int_version"]
    for k in ("hop_index", "path_len", "node_id"):
        o[k] = n(k)
    keys = []
    if v & V["ports"]: keys += ["ingress_port", "egress_port"]
    if v & V["l2"]: keys += ["l2_ingress_port", "l2_egress_port"]
    if v & V["latency"]: keys += ["hop_latency"]
    if v & (V["queue"] | V["drop"]): keys += ["queue_id"]
    if v & V["queue"]: keys += ["queue_occupancy"]
    if v & V["ig_ts"]: keys += ["ingress_ts"]
    if v & V["eg_ts"]: keys += ["egress_ts"]
    if v & V["tx"]: keys += ["egress_tx_util"]
    if v & V["buffer"]: keys += ["buffer_id", "buffer_occupancy"]
    if v & V["drop"]: keys += ["drop_reason"]
    for k in keys:
        o[k] = n(k)
    if v & V["flow"]:
        o["src_ip"], o["dst_ip"] = ip_text(r["src_ip"]), ip_text(r["dst_ip"])
        for k in ("ip_proto", "src_port", "dst_port"):
            o[k] = n(k)
        o["flow_hash"] = "%016x" % n("flow_hash")
    if v & V["tclass"]:
        o["dscp"], o["ecn"] = n("dscp"), n("ecn")
    if v & V["roce"]:
        o["roce_opcode"], o["roce_dest_qp"] = n("roce_opcode"), n("roce_dest_qp")
    return o


def canon(d):
    return json.dumps(d, sort_keys=True)


def main():
    args = sys.argv[1:]
    subset = args[:1] == ["--subset"]
    if subset:
        args = args[1:]
    rows = [row_to_record(json.loads(l)) for l in open(args[0]) if l.strip()]
    recs = [json.loads(l) for f in args[1:] for l in open(f) if l.strip()]
    have, want = collections.Counter(map(canon, rows)), collections.Counter(map(canon, recs))
    extra = have - want
    missing = want - have
    if extra or (missing and not subset):
        print("rows %d, records %d: %d rows not among the records, %d records not in ClickHouse" %
              (len(rows), len(recs), sum(extra.values()), sum(missing.values())))
        for x in list(extra)[:1]:
            r = json.loads(x)
            # the nearest record: same time, node and hop, to name the differing fields
            near = [q for q in recs if q["time_ns"] == r["time_ns"] and q["node_id"] == r["node_id"]
                    and q["hop_index"] == r["hop_index"]]
            if near:
                q = near[0]
                diff = sorted(k for k in set(r) | set(q) if r.get(k) != q.get(k))
                print("first differing row: fields", diff, {k: (r.get(k), q.get(k)) for k in diff})
            else:
                print("row with no matching record:", x)
        sys.exit(1)
    print("%d rows match %s records field by field" % (len(rows), "a subset of the" if subset else "the"))


main()
