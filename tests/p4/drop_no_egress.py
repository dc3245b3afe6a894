# Drop records and a drop report whose egress port is "none" (the wire's 0xFFFF), at a hop the incast
# sample's topology knows: usage drop_no_egress.py INCAST.jsonl OUTDIR (no_egress_topology.sh).
"""Writes, from the first record of INCAST.jsonl that has ports (its node and ingress port are on the
sample's topology):
  drop_none.jsonl   that hop as a drop record with egress_port 4294967295 (none, docs/records.md);
  drop_65535.jsonl  the same with egress_port 65535 (a port the node does not have: the control);
  drop.pcap         one TR v2.0 drop report as p4/README.md describes it (D F, RepMdBits 0x4801,
                    L1 ports ingress/0xFFFF, reason 26) from that node and ingress port."""
import json
import struct
import sys

src, out = sys.argv[1], sys.argv[2]
r = next(json.loads(line) for line in open(src) if '"egress_port"' in line)
node, ingress = r["node_id"], r["ingress_port"]
r.update(report_flags=["dropped", "tracked_flow"], drop_reason=26)
for k in ("hop_latency", "queue_occupancy", "egress_ts"):
    r.pop(k, None)
for name, port in (("drop_none", 4294967295), ("drop_65535", 65535)):
    r["egress_port"] = port
    with open(f"{out}/{name}.jsonl", "w") as f:
        f.write(json.dumps(r) + "\n")


def ipv4(total, ttl, s, d):
    """An IPv4 header (DF, UDP) with its checksum."""
    h = struct.pack("!BBHHHBBH4s4s", 0x45, 0, total, 0, 0x4000, ttl, 17, 0, bytes(s), bytes(d))
    c = sum(struct.unpack("!10H", h))
    while c >> 16:
        c = (c & 0xFFFF) + (c >> 16)
    return h[:10] + struct.pack("!H", ~c & 0xFFFF) + h[12:]


# the dropped packet as received: IPv4 + UDP, 28 bytes = 7 words
inner = ipv4(28, 1, [10, 0, 1, 1], [10, 0, 2, 2]) + struct.pack("!HHHH", 49152, 4791, 8, 0)
report = (
    struct.pack("!II", 2 << 28 | 5, node)  # group: ver 2, hw_id 0, seq 5 | node id
    + bytes([0x14, 2 + 4 + len(inner) // 4, 4, 0xA0])  # INT, IPv4 | report length | MD 4 | D F, I 0
    + struct.pack("!HHHH", 0x4801, 0, 0, 0)  # L1 ports, ingress ts, queue id + drop reason
    + struct.pack("!HHQBBH", ingress, 0xFFFF, 1000, 0, 26, 0)  # egress 0xFFFF: none chosen
    + inner
)
udp = struct.pack("!HHHH", 50001, 32766, 8 + len(report), 0) + report
frame = bytes([0, 0, 0, 0, 0, 0x64, 0, 0, 0x0A, 0, 1, 3, 8, 0]) + ipv4(20 + len(udp), 64, [10, 0, 0, 1], [10, 0, 0, 100]) + udp
with open(f"{out}/drop.pcap", "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
    f.write(struct.pack("<IIII", 1767225600, 0, len(frame), len(frame)) + frame)
