#!/usr/bin/env python3
# Sends every frame of a pcap file out of a network interface through an AF_PACKET socket, at a
# chosen rate (frames per second, 0 = as fast as the socket takes them), or with the file's own
# timing stretched by a factor (RATE given as xFACTOR, e.g. x200).  For tests on veth pairs.
# Usage: send_pcap.py IFACE FILE.pcap [RATE|xFACTOR] [REPEAT]
import socket
import struct
import sys
import time


def frames(path):
    """(time in seconds, frame) for each record of a classic pcap file (micro- or nanosecond)."""
    with open(path, 'rb') as f:
        data = f.read()
    magic = struct.unpack('<I', data[:4])[0]
    endian = '<' if magic in (0xa1b2c3d4, 0xa1b23c4d) else '>'
    frac = 1e-9 if struct.unpack(endian + 'I', data[:4])[0] == 0xa1b23c4d else 1e-6
    off = 24
    while off + 16 <= len(data):
        sec, sub, incl, _ = struct.unpack(endian + 'IIII', data[off:off + 16])
        yield sec + sub * frac, data[off + 16:off + 16 + incl]
        off += 16 + incl


def main():
    iface, path = sys.argv[1], sys.argv[2]
    arg = sys.argv[3] if len(sys.argv) > 3 else '0'
    stretch = float(arg[1:]) if arg.startswith('x') else 0.0
    rate = 0.0 if stretch else float(arg)
    repeat = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((iface, 0))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
    fr = list(frames(path))
    sent = 0
    start = time.monotonic()
    t0 = fr[0][0] if fr else 0.0
    for _ in range(repeat):
        if stretch:  # each pass keeps the file's timing
            start = time.monotonic()
        for t, f in fr:
            if stretch:
                delay = start + (t - t0) * stretch - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
            while True:
                try:
                    s.send(f)
                    break
                except BlockingIOError:
                    time.sleep(0.0001)
                except OSError as e:
                    if e.errno == 105:  # ENOBUFS: the queue is full, wait a little
                        time.sleep(0.0005)
                        continue
                    raise
            sent += 1
            if rate > 0:
                delay = start + sent / rate - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
    print(sent)


if __name__ == '__main__':
    main()
