#!/usr/bin/env python3
# Structural self-check of hopwatch-gen output, written from the spec tables: every length field of
# every valid frame agrees with the bytes (IP/UDP, TR v2.0 report/md lengths, TR v1.0 length, INT
# shim lengths vs hop_ml x hops).  Usage: gen_structure.py PATH-TO-hopwatch-gen.  Exit 77 = skip.
import os
import struct
import subprocess
import sys
import tempfile


def be16(b, o):
    return b[o] << 8 | b[o + 1]


def frames(path):
    data = open(path, 'rb').read()
    magic = struct.unpack('<I', data[:4])[0]
    assert magic == 0xa1b23c4d, 'not a nanosecond pcap'
    off = 24
    while off < len(data):
        _, _, caplen, wire = struct.unpack('<IIII', data[off:off + 16])
        assert caplen == wire
        yield data[off + 16:off + 16 + caplen]
        off += 16 + caplen


def csum(h):
    s = sum(be16(h, i) for i in range(0, len(h), 2))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return s


class Case:
    def __init__(self, args):
        self.args = args
        h = self.opt('--hops', '3').split('-')
        sink = 1 if self.opt('--sink-md', '') == 'stack' else 0
        self.hops_min, self.hops = int(h[0]) + sink, int(h[-1]) + sink
        self.fmt = self.opt('--format', 'tr2.0')
        default_ver = {'tr1.0': '1.0', 'tr0.5': 'none'}.get(self.fmt, '2.1')
        self.ver = self.opt('--int-version', '1.0' if '--profile' in args else default_ver)
        self.geant = self.opt('--profile', '') == 'geant'
        self.encap = self.opt('--encap', 'l4')
        self.port = self.opt('--int-detect', 'dscp') == 'port'

    def opt(self, name, default):
        a = self.args
        return a[a.index(name) + 1] if name in a else default


def hop_words(bitmap, ver, geant):
    w = 0
    for bit in range(16):
        if bitmap & (0x8000 >> bit):
            if bit in (4, 5):
                w += 2 if (ver == '2.1' or geant) else 1
            elif bit == 6:
                w += 1 if geant else 2
            else:
                w += 1
    return w


def check_int(c, b, o, end, l4):
    """INT after the L4 header at o (or tunnel); returns hops found."""
    if c.encap == 'vxlan-gpe':
        assert b[o] & 0x04, 'GPE P bit'
        o += 8
        shim = o
        if c.ver == '2.1':
            words = b[shim + 1] + 1
        else:
            words = b[shim + 2]
        md = shim + 4
        total = words * 4
    elif c.encap == 'geneve':
        optlen = (b[o] & 0x3f) * 4
        o += 8
        assert be16(b, o) == 0x0103
        assert (b[o + 3] & 31) * 4 + 4 == optlen
        md = o + 4
        total = optlen
        shim = o
    else:
        shim = o
        if c.ver == '2.1' and not c.geant:
            assert b[shim] >> 4 == 1
            total = b[shim + 1] * 4 + 4
        else:
            assert b[shim] == 1
            total = b[shim + 2] * 4
        md = shim + 4
    assert shim + total <= end, 'shim beyond packet'
    mdlen = 12 if c.ver == '2.1' else 8
    ver = b[md] >> 4
    assert ver == {'2.1': 2, '1.0': 1, '0.5': 0}[c.ver]
    bitmap = be16(b, md + 4) if not c.geant else b[md + 4] | b[md + 5] << 8
    hw = hop_words(bitmap, c.ver, c.geant)
    tail = 4 if (c.encap == 'l4' and (c.ver == '0.5' or (c.geant and c.opt('--geant-tail', 'on') == 'on'))) else 0
    stack = total - (md - shim) - mdlen - tail
    assert stack >= 0 and stack % (hw * 4) == 0, 'stack %d is not whole hops of %d words' % (stack, hw)
    hops = stack // (hw * 4)
    assert c.hops_min <= hops <= c.hops, '%d hops outside %d-%d' % (hops, c.hops_min, c.hops)
    if c.ver == '0.5':
        assert b[md + 1] & 31 == hw
        assert b[md + 3] == hops
    elif c.geant:
        want = hw if c.opt('--geant-hop-ml', '') == 'words' else bin(bitmap).count('1')
        assert b[md + 2] & 31 == want, 'geant hop_ml'
    else:
        assert b[md + 2] & 31 == hw, 'hop_ml %d != bitmap words %d' % (b[md + 2] & 31, hw)
    return hops


def check_ip(c, b, o, end, in_report):
    v = b[o] >> 4
    if v == 4:
        assert b[o] == 0x45 and csum(b[o:o + 20]) == 0xffff
        proto, tos, l4 = b[o + 9], b[o + 1], o + 20
        if not in_report:
            assert be16(b, o + 2) == end - o
    else:
        assert v == 6
        proto, tos, l4 = b[o + 6], (be16(b, o) >> 4) & 0xff, o + 40
    has_int = c.ver != 'none' and c.hops > 0
    if has_int and c.encap == 'l4' and not c.port:
        assert tos >> 2 == (0x20 if c.geant else 0x17), 'INT DSCP'
    if proto == 17:
        dport = be16(b, l4 + 2)
        if not in_report:
            assert be16(b, l4 + 4) == end - l4
        if has_int:
            if c.encap == 'vxlan-gpe':
                assert dport == 4790
            elif c.encap == 'geneve':
                assert dport == 6081
            return check_int(c, b, l4 + 8, end, 17)
    else:
        assert proto == 6
        if has_int:
            return check_int(c, b, l4 + 20, end, 6)
    return 0


def tr2_md_bytes(bits):
    return sum((8 if i in (4, 5, 6) else 4) for i in range(16) if bits & (0x8000 >> i))


def check_frame(c, b):
    assert be16(b, 12) in (0x0800, 0x86dd)
    if c.fmt == 'int':
        return check_ip(c, b, 14, len(b), False)
    assert b[14] == 0x45 and be16(b, 16) == len(b) - 14 and csum(b[14:34]) == 0xffff
    assert be16(b, 36) == 32766 and be16(b, 38) == len(b) - 34
    p, end = 42, len(b)
    ver = b[p] >> 4
    if c.fmt == 'tr2.0':
        assert ver == 2
        o = p + 8
        n = 0
        while o < end:
            rl, ml = b[o + 1], b[o + 2]
            assert b[o] >> 4 == 1 and (b[o] & 15) in (3, 4, 5)
            rend = end if rl == 0xff else o + 4 + rl * 4
            assert rend <= end
            assert ml * 4 == tr2_md_bytes(be16(b, o + 4))
            inner = o + 12 + ml * 4
            if b[o] & 15 == 3:
                check_ip(c, b, inner + 14, rend, True)
            else:
                check_ip(c, b, inner, rend, True)
            o = rend
            n += 1
        assert o == end
        return n
    if c.fmt == 'tr1.0':
        assert ver == 1
        bits = (be16(b, p + 1) >> 7) & 0x3f
        hl = (b[p] & 15) * 4
        assert hl == 16 + 4 * bin(bits).count('1')
        nproto = b[p + 1] >> 5
        inner = p + hl
        check_ip(c, b, inner + (14 if nproto == 0 else 0), end, True)
        return 1
    assert ver == 0
    nproto = b[p] & 15
    assert nproto in (1, 2)
    inner = p + 12 + (12 if nproto == 1 else 16)
    assert be16(b, inner + 12) in (0x0800, 0x86dd)
    check_ip(c, b, inner + 14, end, True)
    return 1


CASES = [
    '', '--coalesce 5 --last-len-ff --ip mix --l4 mix', '--coalesce 7 --in-type eth --ip 6 --mtu 900',
    '--instructions node,ports,latency,queue,ig_ts,eg_ts,l2_ports,tx_util,buffer,checksum --hops 5',
    '--int-detect port --roce --cnp-rate 0.5', '--encap vxlan-gpe --l4 mix', '--encap geneve --hops 2',
    '--int-version 1.0 --encap vxlan-gpe', '--int-version 0.5 --encap geneve --hops 2',
    '--int-version 1.0 --instructions node,ports,latency,queue,ig_ts,eg_ts,l2_ports,tx_util,checksum',
    '--int-version 0.5 --int-detect port', '--int-version none', '--sink-md stack --drop-rate 0.5',
    '--format tr1.0', '--format tr1.0 --in-type eth --rep-md ports,latency,queue,eg_ts,drop,tx_util',
    '--format tr1.0 --int-version 2.1 --l4 tcp', '--format tr0.5 --drop-rate 0.4',
    '--format tr0.5 --int-version 0.5', '--format int', '--format int --ip 6 --l4 tcp',
    '--format int --profile geant --hops 4', '--format int --profile geant --instructions node,ports,ig_ts,eg_ts,l2_ports,tx_util',
    '--format int --int-version 1.0 --encap geneve', '--format int --profile geant --geant-tail off --geant-hop-ml words',
    '--profile geant --hops 2 --coalesce 3 --geant-tail off', '--format int --int-version 0.5 --l4 mix',
    '--rep-md ports,latency,queue,ig_ts,eg_ts,l2_ports,tx_util,buffer,drop --hops 0',
    '--unavailable-rate 0.3 --hops 8', '--hops 1-6 --coalesce 4 --flows 50', '--format int --hops 2-5 --int-version 0.5',
    '--format int --hops 1-9 --encap geneve --instructions node,queue', '--hops 20 --instructions node,queue --coalesce 4',
]


MALFORMS = ['truncate', 'report-length', 'shim-length', 'hops', 'report-version', 'int-version', 'bitmap',
            'ip-header-length', 'udp-length']


def main():
    gen = sys.argv[1]
    d = tempfile.mkdtemp(prefix='hopwatch-gen-structure-')
    bad = 0
    for extra in CASES:
        args = ['reports', '--count', '200', '--seed', '4', '--out', os.path.join(d, 'x.pcap')] + extra.split()
        subprocess.run([gen] + args, check=True, stderr=subprocess.DEVNULL)
        c = Case(args)
        n = 0
        try:
            for i, f in enumerate(frames(os.path.join(d, 'x.pcap'))):
                n += 1
                check_frame(c, f)
        except AssertionError as e:
            print('FAIL %s: frame %d: %s' % (extra, n, e))
            bad += 1
            continue
        print('ok   %s (%d frames)' % (extra, n))
    # every malformation must be visible to this checker: at rate 1 no frame may pass
    for fmt, kinds in (('tr2.0', MALFORMS), ('tr1.0', ['report-length', 'report-version']),
                       ('int', ['truncate', 'shim-length', 'hops', 'int-version', 'bitmap', 'udp-length'])):
        for kind in kinds:
            args = ['reports', '--count', '100', '--seed', '5', '--format', fmt, '--coalesce',
                    '3' if fmt == 'tr2.0' else '1', '--malform', kind + ':1', '--out', os.path.join(d, 'x.pcap')]
            subprocess.run([gen] + args, check=True, stderr=subprocess.DEVNULL)
            c = Case(args)
            passed = 0
            for f in frames(os.path.join(d, 'x.pcap')):
                try:
                    check_frame(c, f)
                    passed += 1
                except (AssertionError, IndexError):
                    pass
            print('%s %s malformed %s: %d frames pass the check' % ('ok  ' if not passed else 'FAIL', fmt, kind, passed))
            bad += passed > 0
    os.remove(os.path.join(d, 'x.pcap'))
    os.rmdir(d)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
