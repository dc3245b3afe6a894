# Helpers of the analyzer-driving tests of tests/ident (ident_reload.py, ident_watch.py): a free loopback port,
# one value from /metrics, a file replaced whole by rename.
import os
import socket
import urllib.request


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def metric(port, name):
    """The value of the series name (no labels) on the analyzer's /metrics, None when absent or unreachable."""
    try:
        text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5).read().decode()
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    return None


def put(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.rename(tmp, path)
