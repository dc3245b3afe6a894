#!/usr/bin/env python3
# Loopback helpers shared by the tools and the tests: free_port(), a TCP port on 127.0.0.1 that nothing listens on
# right now, below the kernel's ephemeral range.  Run as a program it prints one such port, for the shell tests and
# tools/demo.sh.
import random
import socket


def ephemeral_low(path="/proc/sys/net/ipv4/ip_local_port_range"):
    """The lowest port the kernel gives outgoing connections and bind(port 0) (32768 when it cannot be read)."""
    try:
        with open(path) as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def free_port():
    """A port drawn at random from the 12,000 below the ephemeral range that binds now.  A port the kernel picked
    (bind to port 0) comes from the range its outgoing connections use, so one started server's connection (a
    ClickHouse replica's to ZooKeeper) could take it before the test's next server bound it: "Address already in
    use".  Ports below the range are never given to outgoing connections.  After 200 draws that do not bind, the
    kernel's pick."""
    hi = ephemeral_low() - 1
    lo = max(1024, hi - 12000)
    draw = random.SystemRandom()
    for _ in range(200 if hi > lo else 0):
        port = draw.randint(lo, hi)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


if __name__ == "__main__":
    print(free_port())
