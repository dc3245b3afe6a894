#!/usr/bin/env python3
# Loopback helpers shared by the tools and the tests: free_port(), a TCP port on 127.0.0.1 that nothing listens on
# right now (the kernel picks it).  Run as a program it prints one such port, for the shell tests and tools/demo.sh.
import socket


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


if __name__ == "__main__":
    print(free_port())
