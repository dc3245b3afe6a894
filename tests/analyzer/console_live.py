#!/usr/bin/env python3
# The console live, in real time: a stretched incast (record time FACTOR times slower) is fed to the analyzer's
# stdin once the page is open in headless Chromium (cdp.py), and the culprit's link (its leaf's hosts unfolded by
# the URL) must turn to the congestion colour within 2 s of the incast's first record; then a click on that link
# and on a spine link lists both ends' queues, the leaf's host box folds and unfolds, and the latency matrix of
# the last second and of the whole run are drawn on the fixed colour scale.  Screenshots saved.
# Usage: console_live.py CHROMIUM TRUTH_JSON RECORDS_JSONL FACTOR ARTEFACT_DIR PORT -- ANALYZER ARGS...
# (RECORDS_JSONL: the scenario's records stretched by FACTOR, tests/tools/stretch.py)
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402

ALARM = "#c62828"  # console.js COLOUR[2], the congestion colour
LIMIT_S = 2.0      # issue 20: "within 2 s of the incast's start"


def first_incast_bound(records_path, start_ns, factor):
    """A lower bound of when the incast's first record is ingested, in s after the first record, and the
    incast's start in stretched record time.  The truth's
    start is stretched as stretch.py stretches record time (from the first record); --pace recorded ingests steps
    of 64 records once the wall clock since the first record has caught up with the step's first record, so the
    incast's first record (the first in the file at or after the start) is ingested no earlier than the
    earliest of it and the 63 records before it is due."""
    times = [json.loads(line)["time_ns"] for line in open(records_path)]
    start = times[0] + (start_ns - times[0]) * factor
    j = next(i for i, t in enumerate(times) if t >= start)
    return (min(times[max(0, j - 63):j + 1]) - times[0]) / 1e9, start  # the step may start at any of them


# docs/analyzer.md: the latency matrix's absolute colour scale of p99.9 (ns): up to 1 µs, 10 µs, 100 µs, 1 ms, above
LAT_SCALE = [(1e3, "#1a9850"), (1e4, "#91cf60"), (1e5, "#fee08b"), (1e6, "#fc8d59"), (float("inf"), "#d73027")]


def latency_matrix(b, window):
    """Select the window and read the drawn matrix once it is that window's: (from, to, {(src, dst): (count,
    p999, fill)}), or None."""
    b.eval(f"(() => {{ const s = document.getElementById('lat-window'); s.value = '{window}'; "
           "s.dispatchEvent(new Event('change')); })()")
    return b.wait_for(f"(() => {{ const m = document.getElementById('latency'); if (m.dataset.window !== '{window}' "
                      "|| !m.querySelector('.lat-cell')) return null; return [+m.dataset.from, +m.dataset.to, "
                      "[...m.querySelectorAll('.lat-cell')].map((g) => [g.dataset.src, g.dataset.dst, "
                      "+g.dataset.count, +g.dataset.p999, g.querySelector('rect').getAttribute('fill')])]; })()",
                      30)


def latency_checks(b):
    bad = []
    last = latency_matrix(b, 1)
    whole = latency_matrix(b, 0)
    if not last or not whole:
        return [f"the latency matrix: last second {bool(last)}, whole run {bool(whole)} drawn"]
    # marks are taken each second of record time: the last second's window starts 1 to 2 s before its end
    span = (last[1] - last[0]) / 1e9
    if not last[0] or not 1.0 <= span < 2.0:
        bad.append(f"the latency matrix's last second spans {span:.3f} s (from {last[0]} to {last[1]})")
    if whole[0] != 0:
        bad.append(f"the whole run's latency matrix starts at {whole[0]}, not at the run's start")
    all_counts = {(c[0], c[1]): c[2] for c in whole[2]}
    for src, dst, count, p999, fill in last[2] + whole[2]:
        want = next(colour for limit, colour in LAT_SCALE if p999 <= limit)
        if fill != want:
            bad.append(f"latency {src} -> {dst}: p99.9 {p999} ns drawn {fill}, the scale says {want}")
    for src, dst, count, _, _ in last[2]:
        if count > all_counts.get((src, dst), 0):
            bad.append(f"latency {src} -> {dst}: {count} reports in the last second, "
                       f"{all_counts.get((src, dst), 0)} in the whole run")
    if sum(c[2] for c in last[2]) >= sum(all_counts.values()):
        bad.append("the last second holds every report of the run")
    return bad


class Snapshots(threading.Thread):
    """Polls /api/fabric every 50 ms: the newest wall clock (ns) of a snapshot whose record time was still
    before the incast's start.  When a snapshot was taken no record of the incast had been ingested, so the
    incast's first record was ingested after it: a lower bound of the incast's start in wall time."""

    def __init__(self, base, start_ns):
        super().__init__(daemon=True)
        self.base, self.start_ns, self.before, self.done = base, start_ns, 0, False

    def run(self):
        while not self.done:
            try:
                with urllib.request.urlopen(self.base + "/api/fabric", timeout=10) as r:
                    f = json.load(r)
                if f.get("time_ns") and f["time_ns"] < self.start_ns:
                    self.before = max(self.before, f["wall_ns"])
            except (OSError, ValueError, KeyError):
                pass
            time.sleep(0.05)


def main():
    sep = sys.argv.index("--")
    binary, truth_path, records_path, factor, artefacts, port = sys.argv[1:sep]
    analyzer = sys.argv[sep + 1:]
    truth = json.load(open(truth_path))
    inc = next(e for e in truth["events"] if e["kind"] == "Incast")
    leaf, ifname, queue, host = (inc["place"][k] for k in ("node", "ifname", "queue", "host"))
    link = next(lk for lk in truth["topology"]["links"]
                if {lk["a"]["node"], lk["b"]["node"]} == {leaf, host})
    hend = link["a"] if link["a"]["node"] == host else link["b"]
    culprit_key = f"{leaf}:{ifname}|{host}:{hend['ifname']}"  # console.js hostKey: the leaf's end first
    tier = {n["node"]: n["tier"] for n in truth["topology"]["nodes"]}
    hosts_of_leaf = sorted(far["node"] for lk in truth["topology"]["links"]
                           for near, far in ((lk["a"], lk["b"]), (lk["b"], lk["a"]))
                           if near["node"] == leaf and tier[far["node"]] == "host")
    # a spine link of the leaf whose spine end queued the incast's traffic (truth: its peak and pause)
    spine_q = max((q for q in truth["queues"] if q["node"].startswith("spine") and q["queue"] == queue),
                  key=lambda q: q["peak_bytes"])
    up = next(lk for lk in truth["topology"]["links"]
              if any(e["node"] == spine_q["node"] and e["ifname"] == spine_q["ifname"] for e in (lk["a"], lk["b"])))
    offset_s, start_ns = first_incast_bound(records_path, inc["start_ns"], float(factor))
    os.makedirs(artefacts, exist_ok=True)
    base = f"http://127.0.0.1:{port}"
    # A sanitizer build under the tests' ASAN_OPTIONS unwinds slowly at every allocation (full stacks for the
    # suppressions of Graphviz's leaks); this run draws no graph, and unwinding slowly would make the analyzer
    # parse its JSON slower than the records fall due, so the run is timed with the default (fast) unwinding.
    env = dict(os.environ)
    env["ASAN_OPTIONS"] = ":".join(o for o in env.get("ASAN_OPTIONS", "").split(":")
                                   if o and o != "fast_unwind_on_malloc=0")
    an = subprocess.Popen(analyzer, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, env=env,
                          stderr=open(os.path.join(artefacts, "console-live-analyzer.log"), "w"))
    bad, feeder = [], None
    try:
        # the console is served before any record is read (the analyzer waits on its stdin)
        for _ in range(600):
            try:
                urllib.request.urlopen(base + "/console/", timeout=5).read()
                break
            except OSError:
                if an.poll() is not None:
                    print("FAIL: the analyzer exited before serving the console")
                    return 1
                time.sleep(0.2)
        with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as profile:
            b = cdp.Browser(binary, profile)
            try:
                b.call("Page.navigate", url=f"{base}/console/#hosts={leaf}")
                if not b.wait_for("/waiting for the analyzer/.test(document.getElementById('status').textContent)",
                                  120):
                    bad.append("the page did not start polling")
                    raise StopIteration
                snaps = Snapshots(base, start_ns)
                snaps.start()
                fed = time.time()  # no record can be ingested before this (wall clock, as the snapshots')
                # a process of its own writes the records, so this one's polling cannot slow the feed
                feeder = subprocess.Popen(["cat", records_path], stdout=an.stdin)
                an.stdin.close()
                due = fed + offset_s  # the incast's first record is ingested no earlier than this (pacing)
                sel = f"document.querySelector('#map line.link[data-key=\"{culprit_key}\"]')"
                red_at, early, seen = None, [], None
                while time.time() < due + 60:
                    v = b.eval(f"(() => {{ const e = {sel}; return e ? e.getAttribute('stroke') : null; }})()")
                    now = time.time()
                    if v is not None and seen is None:
                        seen = now
                    if v == ALARM:
                        if now < due:
                            early.append(now - due)
                        else:
                            red_at = now
                            break
                    time.sleep(0.05)
                snaps.done = True
                # the later of the two lower bounds of the incast's start: pacing, and the last snapshot taken
                # before any record of it (which also bounds the time the analyzer took to read its first batch)
                bound = "pacing" if due >= snaps.before / 1e9 else "snapshot"
                due = max(due, snaps.before / 1e9)
                if seen is None or seen > due:
                    bad.append(f"the link {culprit_key} was not on the map before the incast "
                               f"({'never' if seen is None else f'{seen - due:.2f} s after'})")
                if early:
                    bad.append(f"the link {culprit_key} was in the congestion colour {-early[0]:.2f} s before the incast")
                if red_at is None:
                    bad.append(f"the link {culprit_key} never turned {ALARM}")
                    raise StopIteration
                latency = red_at - due
                if latency > LIMIT_S:
                    bad.append(f"the link {culprit_key} turned {ALARM} {latency:.2f} s after the incast's start "
                               f"(limit {LIMIT_S} s)")
                b.screenshot(os.path.join(artefacts, "console-live-incast.png"))

                # click the congested link: its leaf end's queue in alarm, its host end without INT reports
                b.eval(f"{sel}.dispatchEvent(new MouseEvent('click', {{bubbles: true}}))")
                rows = "[...document.querySelectorAll('#link-queues tr.queue')]"
                got = b.wait_for(f"(() => {{ const r = {rows}.map((t) => [t.dataset.end, t.dataset.queue, "
                                 f"t.dataset.state]); return r.some((x) => x[0] === '{leaf}:{ifname}' && "
                                 f"x[1] === '{queue}') && r; }})()", 30)
                if not got:
                    bad.append(f"clicking {culprit_key}: no row of {leaf}:{ifname} q{queue} in the link pane")
                else:
                    if not any(x[0] == f"{host}:{hend['ifname']}" for x in got):
                        bad.append(f"clicking {culprit_key}: no row for the host end: {got}")
                    if not any(x[0] == f"{leaf}:{ifname}" and x[1] == str(queue) and x[2] == "2" for x in got):
                        # the incast still lasts seconds: the row's state is polled until it is the alarm
                        if not b.wait_for(f"{rows}.some((t) => t.dataset.end === '{leaf}:{ifname}' && "
                                          f"t.dataset.queue === '{queue}' && t.dataset.state === '2')", 10):
                            bad.append(f"clicking {culprit_key}: {leaf}:{ifname} q{queue} not in alarm: {got}")
                b.screenshot(os.path.join(artefacts, "console-live-link.png"))

                # click the spine link: both ends listed, the spine end's queue of the incast among them
                a, z = up["a"], up["b"]
                keys = [f"{a['node']}:{a['ifname']}|{z['node']}:{z['ifname']}",
                        f"{z['node']}:{z['ifname']}|{a['node']}:{a['ifname']}"]
                ok = b.eval(f"(() => {{ const e = [...document.querySelectorAll('#map line.link')].find((l) => "
                            f"{json.dumps(keys)}.includes(l.dataset.key)); if (!e) return false; "
                            "e.dispatchEvent(new MouseEvent('click', {bubbles: true})); return true; })()")
                if not ok:
                    bad.append(f"the link {keys[0]} is not on the map")
                else:
                    want = [f"{a['node']}:{a['ifname']}", f"{z['node']}:{z['ifname']}"]
                    sq = f"{spine_q['node']}:{spine_q['ifname']}"
                    got = b.wait_for(f"(() => {{ const r = {rows}.map((t) => [t.dataset.end, t.dataset.queue]);"
                                     f" return {json.dumps(want)}.every((w) => r.some((x) => x[0] === w)) && "
                                     f"r.some((x) => x[0] === '{sq}' && x[1] === '{queue}') && r; }})()", 30)
                    if not got:
                        listed = b.eval(rows + ".map((t) => t.dataset.end + ' q' + t.dataset.queue)")
                        bad.append(f"clicking {keys[0]}: expected rows of both ends and of {sq} q{queue}, got {listed}")

                # fold and unfold the leaf's hosts by clicking its host box
                count = f"document.querySelectorAll('#map .host[data-leaf=\"{leaf}\"]').length"
                box = f"document.getElementById('hosts-{leaf}')"
                n0 = b.eval(count)
                b.eval(f"{box}.dispatchEvent(new MouseEvent('click', {{bubbles: true}}))")
                n1 = b.eval(count)
                b.eval(f"{box}.dispatchEvent(new MouseEvent('click', {{bubbles: true}}))")
                n2 = b.eval(count)
                names = b.eval(f"[...document.querySelectorAll('#map .host[data-leaf=\"{leaf}\"]')].map((h) => "
                               "h.id.slice(5)).sort()")
                overlaps = b.eval("+document.body.dataset.labelOverlaps")
                if (n0, n1, n2) != (len(hosts_of_leaf), 0, len(hosts_of_leaf)) or sorted(names) != hosts_of_leaf:
                    bad.append(f"the hosts of {leaf}: unfolded {n0}, folded {n1}, unfolded {n2} ({names}); truth "
                               f"{hosts_of_leaf}")
                if overlaps != 0:
                    bad.append(f"{overlaps} pairs of map labels overlap with the hosts of {leaf} unfolded")
                b.screenshot(os.path.join(artefacts, "console-live-unfolded.png"))

                # the latency matrix over the last second, then the whole run (read after it, so every count
                # of the window is at most the whole run's); cells coloured on the documented fixed scale
                bad += latency_checks(b)
                b.screenshot(os.path.join(artefacts, "console-live-latency.png"))
            except StopIteration:
                pass
            finally:
                b.close()
    finally:
        an.terminate()  # SIGTERM ends --hold: the run must then exit 0 (a sanitizer build fails on a leak)
        if an.wait(timeout=120) != 0:
            bad.append(f"the analyzer exited {an.returncode} after SIGTERM (console-live-analyzer.log)")
        if feeder:
            feeder.wait(timeout=60)  # done, or ended by the closed pipe
    for x in bad:
        print("FAIL: " + x)
    if bad:
        return 1
    print(f"console live: {culprit_key} in {ALARM} {latency:.2f} s after the incast's start at the earliest "
          f"(by {bound}; limit {LIMIT_S} s); link pane of both links, the hosts of {leaf} folded and unfolded "
          f"({len(hosts_of_leaf)}); latency matrix over the last second and the whole run; screenshots in "
          f"{artefacts}")
    return 0


sys.exit(main())
