#!/usr/bin/env python3
# A stand-in for systemd's notification socket: binds a unix datagram socket at PATH and appends every
# message it receives to LOG (one message per line, its newlines shown as " | "), until killed.
import socket
import sys

path, log = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(path)
with open(log, "a", buffering=1) as out:
    while True:
        msg = s.recv(4096).decode("utf-8", "replace")
        out.write(msg.replace("\n", " | ") + "\n")
