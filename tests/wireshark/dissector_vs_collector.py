#!/usr/bin/env python3
"""The Wireshark Lua dissector (deploy/wireshark/hopwatch.lua) against the collector, field by field.

For each generator option set: hopwatch-gen writes a pcap, the collector decodes it (--json-out), tshark
decodes it with the Lua dissector (-T json), and every hop record the collector wrote must be
rebuilt from tshark's tree with the same values (node ids, ports, latency, queue, timestamps, L2
ports, tx util, buffer, drop reason, report node/seq/hw_id/flags/format, INT version, hop index and
path length, the inner flow from Wireshark's own IP/UDP/TCP dissectors).  A missing or extra hop,
report or field fails.  Also the BMv2 captures of tests/p4/data and the GEANT interop captures
(tests/wire/data/interop).  Malformed captures (--malform all:0.3) must give
expert info on every frame the collector rejected, frames it decoded must carry no error from the
dissector, and captures with random byte errors (editcap -E) must never give a "Lua Error".
Known collector deviations (KNOWN) are printed, not failed, unless HOPWATCH_STRICT=1.

usage: dissector_vs_collector.py HOPWATCH_GEN COLLECTOR LUA_SCRIPT
Exit 77 (skip) without tshark.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

STRICT = os.environ.get("HOPWATCH_STRICT") == "1"

HOP_FIELDS = ["node_id", "ingress_port", "egress_port", "hop_latency", "queue_id", "queue_occupancy",
              "ingress_ts", "egress_ts", "l2_ingress_port", "l2_egress_port", "egress_tx_util",
              "buffer_id", "buffer_occupancy", "drop_reason"]
FLOW_FIELDS = ["src_ip", "dst_ip", "ip_proto", "src_port", "dst_port", "dscp", "ecn", "roce_opcode", "roce_dest_qp"]
REPORT_FIELDS = ["report_node", "hw_id", "report_seq", "report_flags", "format", "int_version",
                 "hop_index", "path_len"]

# (name, generator options, collector options, tshark options)
CASES = [
    ("tr2.0 coalesced, INT 2.1", ["--format", "tr2.0", "--coalesce", "4", "--ip", "mix", "--l4", "mix",
                                  "--unavailable-rate", "0.05", "--hops", "0-4"], [], []),
    ("tr2.0 all RepMdBits, eth inner, drops, I flag, 0xFF length",
     ["--format", "tr2.0", "--coalesce", "3", "--in-type", "eth", "--drop-rate", "0.3", "--intermediate-rate", "0.3",
      "--rep-md", "ports,latency,queue,ig_ts,eg_ts,l2_ports,tx_util,buffer,drop", "--last-len-ff",
      "--instructions", "node,ports,latency,queue,ig_ts,eg_ts,l2_ports,tx_util,buffer,checksum"], [], []),
    ("tr2.0 sink metadata on the stack", ["--format", "tr2.0", "--sink-md", "stack", "--drop-rate", "0.3"], [], []),
    ("tr2.0 INT 1.0 over VXLAN-GPE", ["--format", "tr2.0", "--int-version", "1.0", "--encap", "vxlan-gpe"], [], []),
    ("tr2.0 INT 2.1 in Geneve", ["--format", "tr2.0", "--encap", "geneve"], [], []),
    ("tr1.0 INT 1.0", ["--format", "tr1.0", "--ip", "mix", "--unavailable-rate", "0.05"], [], []),
    ("tr1.0 eth inner, drops, INT 0.5",
     ["--format", "tr1.0", "--in-type", "eth", "--rep-md", "ports,queue,eg_ts,drop,tx_util", "--int-version", "0.5"],
     [], []),
    ("tr0.5 postcards with drops", ["--format", "tr0.5", "--drop-rate", "0.3"], [], []),
    ("bare INT 2.1 TCP/UDP IPv4/IPv6", ["--format", "int", "--l4", "mix", "--ip", "mix", "--hops", "1-5"], [], []),
    ("bare INT 2.1 RoCEv2 with CNPs", ["--format", "int", "--roce", "--cnp-rate", "0.3"], [], []),
    ("tr2.0 RoCEv2 inner packets", ["--format", "tr2.0", "--roce", "--cnp-rate", "0.3", "--coalesce", "2"], [], []),
    ("bare INT 0.5 over Geneve", ["--format", "int", "--int-version", "0.5", "--encap", "geneve"], [], []),
    ("bare INT 2.1 over VXLAN-GPE", ["--format", "int", "--encap", "vxlan-gpe"], [], []),
    ("bare INT 2.1 by UDP port", ["--format", "int", "--int-detect", "port", "--int-port", "5000"],
     ["--int-port", "5000"], ["-o", "int.port:5000"]),
    ("bare INT 0.5 by UDP port", ["--format", "int", "--int-version", "0.5", "--int-detect", "port",
                                  "--int-port", "5000"], ["--int-port", "5000"], ["-o", "int.port:5000"]),
    ("bare INT geant", ["--format", "int", "--profile", "geant"], ["--profile", "geant"], ["-o", "int.profile:geant"]),
    ("bare INT geant, hop_ml in words, unavailable values",
     ["--format", "int", "--profile", "geant", "--geant-hop-ml", "words", "--unavailable-rate", "0.1", "--hops", "1-4"],
     ["--profile", "geant"], ["-o", "int.profile:geant"]),
    ("bare INT 1.0 all instructions, unavailable values",
     ["--format", "int", "--int-version", "1.0", "--l4", "mix", "--ip", "mix", "--unavailable-rate", "0.1",
      "--instructions", "node,ports,latency,queue,ig_ts,eg_ts,l2_ports,tx_util,checksum"], [], []),
    ("tr2.0 INT 0.5 over TCP/IPv6", ["--format", "tr2.0", "--int-version", "0.5", "--l4", "tcp", "--ip", "6",
                                     "--unavailable-rate", "0.1"], [], []),
    ("tr1.0 INT 2.1 IPv6", ["--format", "tr1.0", "--int-version", "2.1", "--ip", "6"], [], []),
    ("tr2.0 postcards (no stack, no RepMdBits)", ["--format", "tr2.0", "--hops", "0", "--rep-md", "none"], [], []),
    ("tr2.0 with geant stacks", ["--format", "tr2.0", "--profile", "geant", "--geant-tail", "off"],
     ["--profile", "geant"], ["-o", "int.profile:geant"]),
]
MALFORMED = [
    ("malformed tr2.0", ["--format", "tr2.0", "--coalesce", "2", "--malform", "all:0.3"], [], []),
    ("malformed tr1.0", ["--format", "tr1.0", "--malform", "all:0.3"], [], []),
    ("malformed tr0.5", ["--format", "tr0.5", "--malform", "all:0.3"], [], []),
    ("malformed bare INT 2.1", ["--format", "int", "--malform", "all:0.3"], [], []),
    ("malformed bare INT 1.0", ["--format", "int", "--int-version", "1.0", "--malform", "all:0.3"], [], []),
    ("malformed bare INT 0.5", ["--format", "int", "--int-version", "0.5", "--malform", "all:0.3"], [], []),
]
COUNT = 150
# Random byte errors over these: tshark must not raise a Lua error.
CORRUPT = [
    (["--format", "tr2.0", "--coalesce", "3", "--drop-rate", "0.3"], []),
    (["--format", "tr1.0", "--int-version", "0.5"], []),
    (["--format", "tr0.5", "--drop-rate", "0.5"], []),
    (["--format", "int", "--l4", "mix", "--ip", "mix"], []),
    (["--format", "int", "--encap", "geneve", "--int-version", "1.0"], []),
    (["--format", "int", "--encap", "vxlan-gpe", "--int-version", "0.5"], []),
    (["--format", "int", "--profile", "geant"], ["-o", "int.profile:geant"]),
]
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
INTEROP = os.path.join(ROOT, "tests", "wire", "data", "interop")
# Real captures: (name, pcap, collector options, tshark options); missing files are skipped.
CAPTURES = [
    ("BMv2 reports (tests/p4/data)", os.path.join(ROOT, "tests", "p4", "data", "bmv2_reports.pcap"), [], []),
    ("BMv2 INT UDP link (tests/p4/data)", os.path.join(ROOT, "tests", "p4", "data", "bmv2_s2_s3_link.pcap"), [], []),
    ("BMv2 INT TCP link (tests/p4/data)", os.path.join(ROOT, "tests", "p4", "data", "bmv2_tcp_s2_s3_link.pcap"), [], []),
    ("GEANT 2601_double_header.pcap", os.path.join(INTEROP, "2601_double_header.pcap"),
     ["--profile", "geant"], ["-o", "int.profile:geant"]),
    ("GEANT my.pcap", os.path.join(INTEROP, "my.pcap"), ["--profile", "geant"], ["-o", "int.profile:geant"]),
]

# Disagreements already reported where the dissector follows the spec and the generator's truth and
# the collector does not.  They are printed, not failed, unless HOPWATCH_STRICT=1; a (case, field)
# pair listed here that no longer differs is reported so the entry can be dropped.
KNOWN = set()


def as_list(v):
    if v is None:
        return []
    return v if isinstance(v, list) else [v]


def num(v):
    return int(v, 0) if isinstance(v, str) else int(v)


def time_ns(epoch):
    sec, _, frac = epoch.partition(".")
    return int(sec) * 10**9 + int((frac + "000000000")[:9])


def walk(obj, key):
    """Every value of `key` anywhere below obj, in document order."""
    out = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k == key:
                out.extend(as_list(v))
            out.extend(walk(v, key))
    elif isinstance(obj, list):
        for v in obj:
            out.extend(walk(v, key))
    return out


def hop_from_tree(t):
    h = {}
    for f in HOP_FIELDS:
        v = t.get("hopwatch.hop." + f)
        if v is not None:
            h[f] = num(as_list(v)[0])
    if "queue_id" not in h and "hopwatch.hop.drop_queue_id" in t:
        h["queue_id"] = num(t["hopwatch.hop.drop_queue_id"])
    return h


def int_info(intobj):
    """Hops (wire order, newest first), version and original DSCP/port of one INT tree."""
    if intobj is None:
        return None
    hops = [hop_from_tree(t) for t in as_list(intobj.get("int.hop_tree"))]
    shim = intobj.get("int.shim", {}) or {}
    tail = intobj.get("int.tail", {}) or {}
    info = {"hops": hops, "version": intobj.get("int.version"), "how": intobj.get("int.detected_by"),
            "orig_dscp": None, "orig_dport": None}
    if "int.shim.dscp" in shim:
        info["orig_dscp"] = num(shim["int.shim.dscp"])
    if "int.tail.dscp" in tail:
        info["orig_dscp"] = num(tail["int.tail.dscp"])
    if "int.shim.orig_dst_port" in shim:
        info["orig_dport"] = num(shim["int.shim.orig_dst_port"])
    if "int.tail.dst_port" in tail:
        info["orig_dport"] = num(tail["int.tail.dst_port"])
    return info


def flow_adjust(flow, ii, geant):
    """The record contract's flow: the original DSCP/port the INT source saved replace the marks."""
    if flow is None:
        return None
    flow = dict(flow)
    if ii is not None and ii["how"] == "dscp":
        flow["dscp"] = ii["orig_dscp"] if ii["orig_dscp"] is not None else (0 if geant else flow.get("dscp"))
    if ii is not None and ii["orig_dport"] is not None and ii["how"] in ("port", "dscp"):
        if ii["how"] == "port" or ii["version"] == "0.5":
            flow["dst_port"] = ii["orig_dport"]
    return flow


def flow_from_report(rt):
    f = rt.get("hopwatch.flow")
    if not isinstance(f, dict):
        return None
    out = {}
    for k in FLOW_FIELDS:
        v = f.get("hopwatch.flow." + k)
        if v is not None:
            out[k] = v if k in ("src_ip", "dst_ip") else num(v)
    return out


def flow_from_layers(layers):
    """Bare INT: the last IP header of the frame (the tenant packet in tunnels) and its L4 ports."""
    ips = [("ip", x) for x in as_list(layers.get("ip"))] + [("ipv6", x) for x in as_list(layers.get("ipv6"))]
    if not ips:
        return None
    kind, ip = ips[-1] if len(ips) == 1 or "ipv6" not in layers or "ip" not in layers else ips[-1]
    out = {}
    if kind == "ip":
        out["src_ip"], out["dst_ip"], out["ip_proto"] = ip["ip.src"], ip["ip.dst"], num(ip["ip.proto"])
        ds = ip.get("ip.dsfield_tree", {})
        out["dscp"], out["ecn"] = num(ds["ip.dsfield.dscp"]), num(ds["ip.dsfield.ecn"])
    else:
        out["src_ip"], out["dst_ip"], out["ip_proto"] = ip["ipv6.src"], ip["ipv6.dst"], num(ip["ipv6.nxt"])
        tc = ip.get("ipv6.tclass_tree", {})
        out["dscp"], out["ecn"] = num(tc["ipv6.tclass.dscp"]), num(tc["ipv6.tclass.ecn"])
    l4 = as_list(layers.get("udp")) or as_list(layers.get("tcp"))
    if l4:
        p = "udp" if layers.get("udp") else "tcp"
        last = l4[-1]
        out["src_port"], out["dst_port"] = num(last[p + ".srcport"]), num(last[p + ".dstport"])
    ib = as_list(layers.get("infiniband"))
    if ib:
        bth = ib[-1].get("infiniband.bth_tree", {}) or {}
        if "infiniband.bth.opcode" in bth:
            out["roce_opcode"] = num(bth["infiniband.bth.opcode"])
            out["roce_dest_qp"] = num(bth["infiniband.bth.destqp"])
    return out


def expected_records(layers, geant):
    """Rebuild, per report of one frame, the records the collector should write (docs/records.md)."""
    reports = []
    hw = layers.get("hopwatch")
    if isinstance(hw, list):
        hw = hw[0]
    if hw is not None:
        fmt = hw.get("hopwatch.format")
        if fmt == "tr2.0":
            rts = as_list(hw.get("hopwatch.report_tree"))
        else:
            rts = [hw]
        for rt in rts:
            ints = as_list(rt.get("int"))
            ii = int_info(ints[0]) if ints else None
            rep_hop_tree = rt.get("hopwatch.report.hop_tree")
            if rep_hop_tree is None:
                continue
            rep = {"format": fmt, "report_node": num(hw["hopwatch.report.node"]),
                   "hw_id": num(hw["hopwatch.report.hw_id"]), "report_seq": num(hw["hopwatch.report.seq"])}
            flags = []
            for bit, name in (("d", "dropped"), ("q", "congested_queue"), ("f", "tracked_flow"),
                              ("i", "intermediate")):
                if rt.get("hopwatch.report.flags." + bit) == "1":
                    flags.append(name)
            own = hop_from_tree(rep_hop_tree)
            stack = list(reversed(ii["hops"])) if ii else []
            hops = [dict(h, int_version=ii["version"]) for h in stack]
            if hops and hops[-1].get("node_id") == own.get("node_id"):
                for k, v in own.items():
                    hops[-1].setdefault(k, v)
            else:
                hops.append(own)
            if not stack:
                flags.append("postcard")
            if rt.get("hopwatch.report.flags.inner_truncated") == "1":
                flags.append("inner_truncated")
            rep["report_flags"] = flags
            flow = flow_adjust(flow_from_report(rt), ii, geant)
            reports.append((rep, hops, flow))
    else:
        ints = as_list(layers.get("int"))
        if not ints:
            return reports
        ii = int_info(ints[0])
        stack = list(reversed(ii["hops"]))
        if not stack:
            return reports
        rep = {"format": "int", "report_node": stack[-1].get("node_id", 0), "hw_id": 0, "report_seq": 0,
               "report_flags": []}
        hops = [dict(h, int_version=ii["version"]) for h in stack]
        flow = flow_adjust(flow_from_layers(layers), ii, geant)
        reports.append((rep, hops, flow))
    out = []
    for rep, hops, flow in reports:
        recs = []
        for i, h in enumerate(hops):
            r = dict(rep)
            r.update(h)
            r["hop_index"], r["path_len"] = i, len(hops)
            if flow:
                r.update(flow)
            recs.append(r)
        out.append(recs)
    return out


def split_reports(records):
    reps = []
    for r in records:
        if r["hop_index"] == 0:
            reps.append([])
        reps[-1].append(r)
    return reps


# Captures in which every frame carries an inner IP packet both tools must find (the hand-made frames:
# bare INT over IPv4, and the TR v2.0 InType 1 report whose IPv4 TLV holds the flow).
CUT_COPIES = "hand-made TR v2.0 reports whose packet copy is cut inside its headers"
HAND_MADE = "hand-made frames (all-ones rule, NPT 2 RoCEv2, TR v2.0 InType 1)"
FLOW_REQUIRED = {HAND_MADE}


def compare(name, frame_no, exp, got, errors, known):
    keys = HOP_FIELDS + REPORT_FIELDS + FLOW_FIELDS
    if name in FLOW_REQUIRED and "src_ip" not in exp:
        errors.append(f"{name}: frame {frame_no} hop {got.get('hop_index')}: tshark shows no flow")
    for k in keys:
        e, g = exp.get(k), got.get(k)
        if k in FLOW_FIELDS and "src_ip" not in exp:
            continue  # Wireshark gave no flow (e.g. no inner IP): nothing to compare
        if e != g:
            msg = f"{name}: frame {frame_no} hop {got.get('hop_index')}: {k}: tshark {e!r} collector {g!r}"
            if (name, k) in KNOWN and not STRICT:
                known.setdefault((name, k), []).append(msg)
            else:
                errors.append(msg)


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def run_case(gen, collector, lua, tmp, name, gopts, copts, topts, malformed, errors, stats, pcap=None):
    out = os.path.join(tmp, "c.json")
    if pcap is None:
        pcap = os.path.join(tmp, "c.pcap")
        r = run([gen, "reports", "--count", str(COUNT), "--seed", "9", "--out", pcap] + gopts)
        if r.returncode != 0:
            errors.append(f"{name}: hopwatch-gen failed: {r.stderr.strip()}")
            return
    r = run([collector, "--pcap", pcap, "--json-out", out] + copts)
    if r.returncode != 0:
        errors.append(f"{name}: collector failed: {r.stderr.strip()}")
        return
    with open(out) as f:
        records = [json.loads(line) for line in f if line.strip()]
    r = run(["tshark", "-n", "-r", pcap, "-X", "lua_script:" + lua, "-T", "json", "--no-duplicate-keys"] + topts)
    if "Lua Error" in r.stdout or "Lua Error" in r.stderr or r.returncode != 0:
        errors.append(f"{name}: tshark: Lua error or failure: {(r.stderr + r.stdout)[:400]}")
        return
    frames = json.loads(r.stdout)
    by_time = {}
    for rec in records:
        by_time.setdefault(rec["time_ns"], []).append(rec)
    geant = "geant" in gopts or "geant" in copts
    nrec = 0
    for fr in frames:
        layers = fr["_source"]["layers"]
        fno = layers["frame"]["frame.number"]
        t = time_ns(layers["frame"]["frame.time_epoch"])
        got = split_reports(by_time.pop(t, []))
        if malformed and not got:
            # the collector rejected this frame: the dissector (or Wireshark's own dissectors of the
            # outer headers) must say why, as expert info
            ours = [ex for ex in walk(layers, "_ws.expert") if isinstance(ex, dict) and
                    any(k.startswith(("hopwatch.expert.", "int.expert.")) and not k.endswith(".internal") for k in ex)]
            outer = [as_list(layers.get("ip"))[:1], as_list(layers.get("ipv6"))[:1],
                     as_list(layers.get("udp"))[:1], as_list(layers.get("tcp"))[:1], layers.get("eth")]
            theirs = any(walk(p, "_ws.expert") for p in outer if p) or "_ws.malformed" in layers
            if ours:
                stats["ours"] += 1
            elif not theirs:
                errors.append(f"{name}: frame {fno}: the collector rejected it but tshark shows no expert info")
            stats["malformed_frames"] += 1
            continue
        exp = expected_records(layers, geant)
        if len(exp) != len(got):
            errors.append(f"{name}: frame {fno}: tshark shows {len(exp)} reports, collector {len(got)}")
            continue
        for er, gr in zip(exp, got):
            if len(er) != len(gr):
                errors.append(f"{name}: frame {fno}: tshark gives {len(er)} hops, collector {len(gr)}: "
                              f"tshark nodes {[h.get('node_id') for h in er]}, collector {[h.get('node_id') for h in gr]}")
                continue
            for e, g in zip(er, gr):
                compare(name, fno, e, g, errors, stats["known"])
                nrec += 1
        for ex in walk(layers, "_ws.expert"):
            if isinstance(ex, dict) and ("hopwatch.expert.internal" in ex or "int.expert.internal" in ex):
                errors.append(f"{name}: frame {fno}: {ex.get('_ws.expert.message')}")
        if got:
            for key in ("hopwatch", "int"):
                for ex in walk(layers.get(key), "_ws.expert"):
                    if isinstance(ex, dict) and ex.get("_ws.expert.severity") == "8388608":  # error
                        errors.append(f"{name}: frame {fno}: decoded by the collector, but tshark says "
                                      f"{ex.get('_ws.expert.message')}")
    if by_time:
        errors.append(f"{name}: {sum(len(v) for v in by_time.values())} collector records at times no frame has")
    if not malformed and nrec == 0:
        errors.append(f"{name}: nothing compared")
    stats["records"] += nrec
    stats["cases"] += 1


def run_corrupted(gen, lua, tmp, errors):
    """Random byte errors (editcap -E) over every format: no Lua error, no internal error."""
    if shutil.which("editcap") is None:
        print("skip corrupted captures: editcap not found")
        return
    for opts, topts in CORRUPT:
        pcap, bad = os.path.join(tmp, "k.pcap"), os.path.join(tmp, "k-bad.pcap")
        run([gen, "reports", "--count", "200", "--seed", "5", "--out", pcap] + opts)
        run(["editcap", "-E", "0.03", "--seed", "7", pcap, bad])
        r = run(["tshark", "-n", "-r", bad, "-X", "lua_script:" + lua, "-V"] + topts)
        text = r.stdout + r.stderr
        name = "corrupted " + " ".join(opts)
        if r.returncode != 0 or "Lua Error" in text or "Dissector error:" in text:
            line = next((x for x in text.splitlines() if "Lua Error" in x or "Dissector error" in x), text[-300:])
            errors.append(f"{name}: {line.strip()}")
            print(f"FAIL {name}")
        else:
            print(f"ok   {name}")


def udp4_frame(payload, dport=5000, tos=0x5c):
    """Ethernet / IPv4 10.0.0.1 -> 10.0.0.2 (TOS tos, checksum computed) / UDP 1234 -> dport / payload."""
    import struct
    udp = struct.pack(">HHHH", 1234, dport, 8 + len(payload), 0) + payload
    ip = bytearray(struct.pack(">BBHHHBBH4s4s", 0x45, tos, 20 + len(udp), 1, 0x4000, 64, 17, 0,
                               bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2])))
    csum = sum(struct.unpack(">10H", bytes(ip)))
    csum = (csum & 0xffff) + (csum >> 16)
    csum = (csum & 0xffff) + (csum >> 16)
    ip[10:12] = struct.pack(">H", ~csum & 0xffff)
    return bytes.fromhex("020000000002" "020000000001" "0800") + bytes(ip) + udp


def write_pcap(path, frames):
    import struct
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b23c4d, 2, 4, 0, 0, 65535, 1))  # nanosecond pcap, Ethernet
        for i, fr in enumerate(frames):
            f.write(struct.pack("<IIII", 1767225600, i, len(fr), len(fr)) + fr)


def cut_copies_pcap(path):
    """TR v2.0 reports (UDP to 32766) from node 21, RepType 1, RepMdBits 0x4000 (ports 3 -> 4, MD length
    1), flag F, whose copy of the packet is (seq 1) the first 12 bytes of an IPv4 header (InType 4: cut
    inside the IPv4 header), (seq 2) 12 bytes of Ethernet addresses (InType 3: cut before the EtherType),
    (seq 3) a whole IPv4 + UDP header (InType 4: not cut).  Report Length = (main 8 + MD 4 + copy) / 4.
    Returns, per frame, whether the report must carry inner_truncated (TR v2.0: the inner packet is "a
    truncated packet fragment"; docs/records.md: a copy cut inside its headers is flagged)."""
    import struct
    ip_udp = (struct.pack(">BBHHHBBH4s4s", 0x45, 0x68, 28, 1, 0x4000, 64, 17, 0, bytes([10, 1, 0, 1]),
                          bytes([10, 2, 0, 2])) + struct.pack(">HHHH", 1000, 2000, 8, 0))
    copies = [(1, 4, ip_udp[:12], True), (2, 3, bytes.fromhex("020000000002020000000001"), True),
              (3, 4, ip_udp, False)]
    frames, cut = [], []
    for seq, in_type, copy, is_cut in copies:
        body = bytes([0x40, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 4]) + copy
        report = struct.pack(">II", (2 << 28) | seq, 21) + bytes([0x10 | in_type, len(body) // 4, 1, 0x20]) + body
        frames.append(udp4_frame(report, dport=32766, tos=0))
        cut.append(is_cut)
    write_pcap(path, frames)
    return cut


def crafted_pcap(path):
    """Hand-made bare INT v2.1 frames for the all-ones rule (docs/records.md): a metadata word of all ones
    is "unavailable" and omitted; a word only partly ones is a value.  IPv4 TOS 0x5c (DSCP 0x17, INT),
    UDP 1234 -> 5000, shim type 1 length 9 (MD 3 + 2 hops of 3 words), MD version 2, hop_ml 3, bitmap
    0xd000 (node id, L1 ports, queue id + occupancy).  Newest hop first:
      node 6: ports ff ff ff ff (all ones: omitted), queue ff ff ff ff (omitted)
      node 5: ports ff ff 00 07 (ingress 65535, egress 7), queue 02 ff ff ff (queue 2, occupancy 16777215)
    and one with domain-specific metadata: hop_ml 2 but bitmap 0x8000 (node id only, 1 word), so each hop
    is the node id then 1 word of domain-specific metadata: newest node 9, oldest node 8; and one NPT 2
    frame in front of RoCEv2 (shim 0x18: type 1, NPT 2; last byte 17 = the original protocol, UDP): after
    the stack (nodes 12, 11) the original UDP header 49200 -> 4791 and a BTH with opcode 0x0a and
    destination QP 0xabcdef, which both tools must read 8 bytes past the INT block.  Last, a TR v2.0
    report (UDP to 32766, DSCP 0) with InType 1 (TLVs): node 7, seq 5, RepMdBits 0x4000 (ports 3 -> 4),
    then a TLV of type 0 (1 word, passed over) and a TLV of type 2 (IPv4 + UDP 10.1.0.1:1000 ->
    10.2.0.2:2000, TOS 0x68), from which both tools take the flow (TR v2.0 "Individual Report Inner
    Contents for InType 1")."""
    import struct
    md = bytes([0x20, 0x00, 0x03, 0x06, 0xd0, 0x00, 0x00, 0x00, 0, 0, 0, 0])
    stack = (struct.pack(">I", 6) + b"\xff" * 8 +
             struct.pack(">I", 5) + bytes([0xff, 0xff, 0x00, 0x07, 0x02, 0xff, 0xff, 0xff]))
    shim = bytes([0x10, (len(md) + len(stack)) // 4, 0x00, 0x00])
    payload = shim + md + stack
    frame_of = udp4_frame
    frames = [frame_of(payload)]
    md = bytes([0x20, 0x00, 0x02, 0x06, 0x80, 0x00, 0x00, 0x00, 0, 0, 0, 0])
    stack = struct.pack(">II", 9, 0xdeadbeef) + struct.pack(">II", 8, 0xdeadbeef)
    frames.append(frame_of(bytes([0x10, (len(md) + len(stack)) // 4, 0x00, 0x00]) + md + stack))
    md = bytes([0x20, 0x00, 0x01, 0x06, 0x80, 0x00, 0x00, 0x00, 0, 0, 0, 0])
    stack = struct.pack(">II", 12, 11)
    bth = bytes([0x0a, 0x40, 0xff, 0xff, 0x00, 0xab, 0xcd, 0xef, 0x80, 0x00, 0x00, 0x07])
    original = struct.pack(">HHHH", 49200, 4791, 8 + len(bth), 0) + bth
    frames.append(frame_of(bytes([0x18, (len(md) + len(stack)) // 4, 0x00, 17]) + md + stack + original))
    inner = (struct.pack(">BBHHHBBH4s4s", 0x45, 0x68, 28, 1, 0x4000, 64, 17, 0, bytes([10, 1, 0, 1]),
                         bytes([10, 2, 0, 2])) + struct.pack(">HHHH", 1000, 2000, 8, 0))
    tlvs = bytes([0x00, 1, 0, 0]) + b"\xde\xad\xbe\xef" + bytes([0x20, len(inner) // 4, 0, 0]) + inner
    body = bytes([0x40, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 4]) + tlvs  # RepMdBits 0x4000, ds 0; ports 3 -> 4
    report = (struct.pack(">II", (2 << 28) | 5, 7) +  # ver 2, hw_id 0, seq 5 | node 7
              bytes([0x11, len(body) // 4, 1, 0x20]) + body)  # RepType 1, InType 1; length; MD 1; F
    frames.append(frame_of(report, dport=32766, tos=0))
    write_pcap(path, frames)


def main():
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    gen, collector, lua = sys.argv[1:]
    if shutil.which("tshark") is None:
        print("tshark not found: skipped")
        return 77
    errors = []
    stats = {"records": 0, "cases": 0, "malformed_frames": 0, "ours": 0, "known": {}}
    with tempfile.TemporaryDirectory() as tmp:
        for name, g, c, t in CASES:
            before = len(errors)
            run_case(gen, collector, lua, tmp, name, g, c, t, False, errors, stats)
            print(f"{'ok  ' if len(errors) == before else 'FAIL'} {name}")
        crafted = os.path.join(tmp, "hand_made.pcap")
        crafted_pcap(crafted)
        for name, pcap, c, t in CAPTURES + [(HAND_MADE, crafted, [], [])]:
            if not os.path.exists(pcap):
                print(f"skip {name}: {pcap} not found")
                continue
            before = len(errors)
            run_case(gen, collector, lua, tmp, name, [], c, t, False, errors, stats, pcap=pcap)
            print(f"{'ok  ' if len(errors) == before else 'FAIL'} {name}")
        cut_pcap = os.path.join(tmp, "cut_copies.pcap")
        want_cut = cut_copies_pcap(cut_pcap)
        before = len(errors)
        run_case(gen, collector, lua, tmp, CUT_COPIES, [], [], [], False, errors, stats, pcap=cut_pcap)
        # the comparison above holds only if both tools flag the cut copies: check the collector's side
        got_cut = [("inner_truncated" in json.loads(line)["report_flags"])
                   for line in open(os.path.join(tmp, "c.json")) if line.strip()]
        if got_cut != want_cut:
            errors.append(f"{CUT_COPIES}: inner_truncated per report {got_cut}, expected {want_cut}")
        print(f"{'ok  ' if len(errors) == before else 'FAIL'} {CUT_COPIES}")
        for name, g, c, t in MALFORMED:
            before = len(errors)
            run_case(gen, collector, lua, tmp, name, g, c, t, True, errors, stats)
            print(f"{'ok  ' if len(errors) == before else 'FAIL'} {name}")
        run_corrupted(gen, lua, tmp, errors)
    print(f"{stats['cases']} captures, {stats['records']} records compared field by field, "
          f"{stats['malformed_frames']} rejected frames checked for expert info "
          f"({stats['ours']} from the dissector, the rest from Wireshark's own dissectors)")
    for key, msgs in sorted(stats["known"].items()):
        print(f"KNOWN collector deviation ({len(msgs)} values), e.g. {msgs[0]}")
    for key in sorted(KNOWN - set(stats["known"])):
        print(f"NOTE: known deviation {key} no longer seen: drop it from KNOWN")
    for e in errors[:60]:
        print(e)
    if len(errors) > 60:
        print(f"... and {len(errors) - 60} more")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
