#!/usr/bin/env python3
# Writes every frame of the given pcap files as one seed file for the libFuzzer targets.
# Usage: pcap_to_seeds.py OUTDIR FILE.pcap...
import os
import struct
import sys


def frames(path):
    with open(path, 'rb') as f:
        data = f.read()
    magic = struct.unpack('<I', data[:4])[0]
    endian = '<' if magic in (0xa1b2c3d4, 0xa1b23c4d) else '>'
    off = 24
    while off + 16 <= len(data):
        _, _, incl, _ = struct.unpack(endian + 'IIII', data[off:off + 16])
        yield data[off + 16:off + 16 + incl]
        off += 16 + incl


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    n = 0
    for path in sys.argv[2:]:
        base = os.path.splitext(os.path.basename(path))[0]
        for i, fr in enumerate(frames(path)):
            with open(os.path.join(out, '%s-%d' % (base, i)), 'wb') as f:
                f.write(fr)
            n += 1
    print('%d seeds written to %s' % (n, out))


if __name__ == '__main__':
    main()
