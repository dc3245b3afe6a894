#!/usr/bin/env python3
"""Every program and subcommand: bad usage exits 2 with a message naming the option, -h/--help exits 0,
--version exits 0 printing "PROGRAM VERSION" with meson's project version (VERSION, from meson.build),
and the option tables in docs/*.md are the programs' own (docs_options.py).

cli_usage.py COLLECTOR ANALYZER GEN RECORDS SRC BUILD VERSION
"""
import os
import subprocess
import sys

col, an, gen, recs, src, build = (os.path.abspath(a) for a in sys.argv[1:7])
version = sys.argv[7]

# (program and arguments, what stderr must name): unknown option, missing value, out-of-range number,
# bad address, bad enum, for every program and subcommand that has such options.
BAD = [
    ([col, "--bogus"], "--bogus"),
    ([col, "--pcap", "x.pcap", "--max-hops"], "--max-hops"),
    ([col, "--max-hops", "256"], "--max-hops"),
    ([col, "--rotate-seconds", "x"], "--rotate-seconds"),
    ([col, "--idle-exit", "-1"], "--idle-exit"),
    ([col, "--metrics", ":99999"], "--metrics"),  # a port above 65535 (it used to listen on 99999 mod 65536)
    ([col, "--metrics", "127.0.0.1:0"], "--metrics"),
    ([an, "run", "--stream", "tcp:127.0.0.1:70000"], "--stream"),
    ([col, "--stream", "udp:1.2.3.4:5"], "--stream"),
    ([col, "--metrics", "9464"], "--metrics"),
    ([col, "--clickhouse", "ftp://h/"], "--clickhouse"),
    ([col, "--profile", "tofino"], "--profile"),
    ([col, "--int-dscp", "0x17"], "--int-dscp"),
    ([col, "--report-port", "0"], "--report-port"),
    ([col, "diagnose", "--bogus"], "--bogus"),
    ([col, "diagnose", "--seconds"], "--seconds"),
    ([col, "diagnose", "--seconds", "0.01"], "--seconds"),
    ([col, "diagnose", "--max-loss-ratio", "1.5"], "--max-loss-ratio"),
    ([col, "diagnose", "--profile", "x"], "--profile"),
    ([recs, "--bogus"], "--bogus"),
    ([recs, "--listen"], "--listen"),
    ([recs, "--listen", "/tmp/sock"], "--listen"),
    ([recs, "--listen", "unix:/tmp/sock", "--idle", "soon"], "--idle"),
    ([recs, "--listen", "unix:/tmp/sock", "--count", "-5"], "--count"),
    ([an, "topology", "--bogus"], "--bogus"),
    ([an, "topology", "--lldp"], "--lldp"),
    ([an, "topology", "--lldp", "x.pcap", "--lldp-seconds", "0"], "--lldp-seconds"),
    ([an, "topology", "--lldp", "x.pcap", "--lldp-seconds", "90000"], "--lldp-seconds"),
    ([an, "run", "--bogus"], "--bogus"),
    ([an, "run", "--jsonl"], "--jsonl"),
    ([an, "run", "--jsonl", "x", "--svg-keep", "-1"], "--svg-keep"),
    ([an, "run", "--jsonl", "x", "--hold", "2e9"], "--hold"),
    ([an, "run", "--stream", "127.0.0.1:5000"], "--stream"),
    ([an, "run", "--jsonl", "x", "--metrics", "9465"], "--metrics"),
    ([an, "run", "--jsonl", "x", "--pace", "slow"], "--pace"),
    ([an, "run", "--records", "/nonexistent/*.hwr"], "--records"),
    ([an, "diagnose", "--bogus"], "--bogus"),
    ([an, "diagnose", "--lldp"], "--lldp"),
    ([gen, "reports", "--out", "x.pcap", "--bogus"], "--bogus"),
    ([gen, "reports", "--out", "x.pcap", "--count"], "--count"),
    ([gen, "reports", "--out", "x.pcap", "--count", "4000000001"], "--count"),
    ([gen, "reports", "--out", "x.pcap", "--collector", "10.0.0"], "--collector"),
    ([gen, "reports", "--out", "x.pcap", "--format", "tr3.0"], "--format"),
    ([gen, "scenario", "clean", "--out", "x", "--bogus"], "--bogus"),
    ([gen, "scenario", "clean", "--out", "x", "--mtu"], "--mtu"),
    ([gen, "scenario", "clean", "--out", "x", "--load", "1.5"], "--load"),
    ([gen, "scenario", "clean", "--out", "x", "--format", "tr9"], "--format"),
    ([gen, "send", "--bogus"], "--bogus"),
    ([gen, "send", "--pcap", "x", "--iface", "lo", "--loop"], "--loop"),
    ([gen, "send", "--pcap", "x", "--iface", "lo", "--pps", "0"], "--pps"),
    ([gen, "send", "--pcap", "x", "--iface", "lo", "--timing", "live"], "--timing"),
]

HELP = [[col], [col, "diagnose"], [recs], [an], [an, "topology"], [an, "run"], [an, "diagnose"], [gen],
        [gen, "reports"], [gen, "scenario"], [gen, "send"]]

failed = 0


def fail(msg):
    global failed
    failed += 1
    print("FAIL: " + msg)


os.chdir(os.environ.get("TMPDIR", "/tmp"))
for argv, name in BAD:
    r = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    shown = " ".join([os.path.basename(argv[0])] + argv[1:])
    if r.returncode != 2:
        fail(f"{shown}: exit status {r.returncode}, not 2")
    elif name not in r.stderr:
        fail(f"{shown}: stderr does not name {name}: {r.stderr.strip()!r}")
for argv in HELP:
    for h in ("-h", "--help"):
        r = subprocess.run(argv + [h], capture_output=True, text=True, timeout=30)
        shown = " ".join([os.path.basename(argv[0])] + argv[1:] + [h])
        if r.returncode != 0:
            fail(f"{shown}: exit status {r.returncode}, not 0")
        elif "usage" not in r.stdout.lower():
            fail(f"{shown}: no usage on stdout")
    r = subprocess.run(argv + ["--version"], capture_output=True, text=True, timeout=30)
    shown = " ".join([os.path.basename(argv[0])] + argv[1:] + ["--version"])
    want = os.path.basename(argv[0]) + " " + version
    if r.returncode != 0:
        fail(f"{shown}: exit status {r.returncode}, not 0")
    elif not r.stdout.startswith(want):
        fail(f"{shown}: printed {r.stdout.strip()!r}, not {want!r}...")
r = subprocess.run([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "docs_options.py"),
                    build, src], capture_output=True, text=True)
print(r.stdout, end="")
if r.returncode != 0:
    fail("docs/*.md option tables differ from the programs' (see above)")
print(f"{len(BAD)} bad usages, {3 * len(HELP)} help and version requests, {'FAILED ' + str(failed) if failed else 'all ok'}")
sys.exit(1 if failed else 0)
