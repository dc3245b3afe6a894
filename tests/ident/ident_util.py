# Helpers of the analyzer-driving tests of tests/ident (ident_reload.py, ident_watch.py): a free loopback port
# (tools/netutil.py's), one value from /metrics, a file replaced whole by rename.
import os
import sys
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "tools"))
import netutil  # noqa: E402

free_port = netutil.free_port  # the tests import it from here


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
