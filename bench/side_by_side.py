#!/usr/bin/env python3
# Side-by-side benchmark of hopwatch against what a user would run instead, on hopwatch-gen captures with
# stable flow paths; prints one JSON object.  Every figure is a median over alternating runs (A B A B ...)
# of whole runs (sustained rates, never a best chunk), and each hopwatch figure comes with its reference
# measured in the same rounds and the median of the per-round ratios:
#   dpdk:     the DPDK collector (no sinks) vs dpdk-testpmd --forward-mode=rxonly, same net_pcap
#             infinite_rx=1 port and capture; reports per worker CPU-second and per wall-clock second
#   pcap:     the collector's --pcap front end (no sinks) vs bench_pcap_loop (plain pcap_next_ex loop), on a
#             capture of --pcap-flows flows (4,096 by default);
#             reports per process CPU-second
#   analyzer: hopwatch-analyzer (every detector) on the collector's record files of the same capture vs
#             the --pcap collector run of that round; records per process CPU-second
#   pipeline: the DPDK collector (net_pcap infinite_rx=1, --stream shm: and unix: in turn, --pipeline-streams)
#             -> hopwatch-analyzer run --stream (every detector), sustained for --seconds; every record
#             accounted for (collector records == analyzer received + stream_dropped + sink_dropped) and the CPU time of every thread of both
#             processes (where the time goes); reports per wall-clock second end to end; --pipeline-records: the
#             collector also writes record files (every record in them or counted lost)
#   --analyzer-b PATH: in the analyzer rounds also that analyzer binary, A B in turn, and the ratio A / B
#             per process CPU-second and per wall-clock second
#   --analyzer-args "ARGS", --analyzer-b-args "ARGS": added to A's (the build's, also in the pipeline) and
#             B's `run`, e.g. the same binary as B with --analyzer-args "--threads 2"
#   --collector-b PATH: in the dpdk rounds also that collector binary (e.g. the previous commit's build),
#             A B testpmd in turn, and the ratio A / B per worker CPU-second (before / after); in the pcap
#             rounds likewise (loop A B), per process CPU-second
# Usage: side_by_side.py BUILD-DIR [--rounds N] [--seconds S] [--work DIR] [--flows N,N] [--hops H]
#                        [--path-change-rate P] [--drop-rate P] [--pcap-reports N] [--pcap-flows N]
#                        [--only dpdk,pcap,analyzer,pipeline]
#                        [--collector-b PATH] [--analyzer-b PATH] [--pipeline-flows N] [--pipeline-streams shm,unix]
#                        [--pipeline-lossless] [--pipeline-records]
#                        [--analyzer-args "ARGS"] [--analyzer-b-args "ARGS"]
import argparse
import glob
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

EAL = ["--no-huge", "--no-shconf", "-m", "512", "--no-pci", "--log-level=3"]


def die(msg):
    print("side_by_side: " + msg, file=sys.stderr)
    sys.exit(1)


def counters(text):
    out = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit():
            out[parts[0]] = int(parts[1])
    return out


def timed(cmd, out_path=None):
    """Runs cmd to completion; returns (stdout+stderr text, CPU seconds user+sys, wall seconds)."""
    with tempfile.TemporaryFile("w+") as err, open(out_path or os.devnull, "w") as out:
        t0 = time.monotonic()
        p = subprocess.Popen(cmd, stdout=out if out_path else subprocess.PIPE, stderr=err, text=True)
        captured = p.stdout.read() if not out_path else ""
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        wall = time.monotonic() - t0
        err.seek(0)
        text = captured + err.read()
    if p.returncode:
        die("%s exited %d: %s" % (cmd[0], p.returncode, text[-800:]))
    return text, ru.ru_utime + ru.ru_stime, wall


def wait_for(path, pattern, seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        with open(path) as f:
            if pattern in f.read():
                return True
        time.sleep(0.01)
    return False


def run_collector_dpdk(col, pcap, seconds, log):
    vdev = "--vdev=net_pcap0,rx_pcap=%s,infinite_rx=1" % pcap
    with open(log, "w") as err:
        p = subprocess.Popen([col, "-l", "0-1"] + EAL + [vdev, "--"], stdout=subprocess.DEVNULL, stderr=err)
    if not wait_for(log, "port 0:", 120):
        p.kill()
        die("DPDK collector did not start: " + open(log).read()[-800:])
    time.sleep(seconds)
    p.send_signal(signal.SIGTERM)
    if p.wait(timeout=120):
        die("DPDK collector exited %d: %s" % (p.returncode, open(log).read()[-800:]))
    c = counters(open(log).read())
    if "worker0_cpu_ns" not in c or not c.get("reports"):
        die("DPDK collector printed no worker times or reports: " + open(log).read()[-800:])
    return {"reports": c["reports"], "cpu_s": c["worker0_cpu_ns"] / 1e9, "wall_s": c["worker0_wall_ns"] / 1e9}


def thread_cpu_s(pid, names):
    for task in glob.glob("/proc/%d/task/*" % pid):
        try:
            with open(task + "/comm") as f:
                if not f.read().strip().startswith(names):
                    continue
            with open(task + "/schedstat") as f:
                return int(f.read().split()[0]) / 1e9
        except OSError:
            continue
    return None


def run_testpmd(pcap, frames, seconds, log):
    vdev = "--vdev=net_pcap0,rx_pcap=%s,infinite_rx=1" % pcap
    cmd = ["stdbuf", "-oL", "dpdk-testpmd", "-l", "0-1"] + EAL + [vdev, "--", "--forward-mode=rxonly",
                                                  "--total-num-mbufs=%d" % (frames + 8192)]
    with open(log, "w") as out:
        p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=out, stderr=subprocess.STDOUT)
    if not wait_for(log, "Press enter to exit", 120):
        p.kill()
        die("testpmd did not start forwarding: " + open(log).read()[-800:])
    t0 = time.monotonic()
    time.sleep(seconds)
    cpu = thread_cpu_s(p.pid, ("rte-worker", "lcore-worker", "dpdk-worker"))
    p.stdin.close()  # "Press enter to exit": EOF stops forwarding
    wait_for(log, "Telling cores to stop", 60)
    t1 = time.monotonic()
    if wait_for(log, "Accumulated forward statistics", 60):  # the lcores have finished
        cpu = thread_cpu_s(p.pid, ("rte-worker", "lcore-worker", "dpdk-worker")) or cpu
    p.wait(timeout=120)
    m = re.search(r"Accumulated forward statistics.*?RX-packets:\s+(\d+)", open(log).read(), re.S)
    if not m or not cpu:
        die("testpmd: no RX-packets or worker CPU time: " + open(log).read()[-800:])
    return {"reports": int(m.group(1)), "cpu_s": cpu, "wall_s": t1 - t0}


def threads_cpu(pid):
    """CPU seconds of every thread of pid, summed by thread name (digits dropped: rte-worker-1 -> rte-worker-)."""
    out = {}
    for task in glob.glob("/proc/%d/task/*" % pid):
        try:
            with open(task + "/comm") as f:
                name = re.sub(r"[0-9]+$", "", f.read().strip())
            with open(task + "/schedstat") as f:
                out[name] = out.get(name, 0.0) + int(f.read().split()[0]) / 1e9
        except OSError:
            continue
    return out


def proc_cpu_s(pid):
    try:
        with open("/proc/%d/schedstat" % pid) as f:
            return int(f.read().split()[0]) / 1e9
    except OSError:
        return None


def wait_idle(pid, seconds):
    """Polls until pid has used under 5 ms of CPU in each of three 0.5 s windows in a row (its input is
    drained and it only takes its 100 ms quiet turns); False after `seconds`."""
    end = time.monotonic() + seconds
    quiet, last = 0, proc_cpu_s(pid)
    while time.monotonic() < end:
        time.sleep(0.5)
        now = proc_cpu_s(pid)
        if now is None:
            return False
        quiet = quiet + 1 if now - last < 0.005 else 0
        last = now
        if quiet >= 3:
            return True
    return False


def run_pipeline(col, ana, pcap, seconds, work, ana_args=(), stream="unix", col_args=(), records_dir=None):
    """DPDK collector -> stream (unix: socket, or shm: the workers' rings in a shared file) -> analyzer
    (every detector) for `seconds`; then the collector is stopped (it flushes its sink and prints its
    counters), the analyzer drains the stream until idle and is stopped; its --summary-json gives the
    records it took in.  records_dir: the collector also writes record files there (emptied before the run,
    removed after it), and every record must be in them or counted as sink_dropped."""
    if records_dir:
        shutil.rmtree(records_dir, ignore_errors=True)
        os.makedirs(records_dir)
        col_args = list(col_args) + ["--records-dir", records_dir]
    sock = os.path.join(work, "pipe.sock" if stream == "unix" else "pipe.ring")
    addr = stream + ":" + sock
    summary = os.path.join(work, "pipe-summary.json")
    alog, clog = os.path.join(work, "pipe-analyzer.log"), os.path.join(work, "pipe-collector.log")
    for f in (sock, summary):
        if os.path.exists(f):
            os.unlink(f)
    with open(alog, "w") as err:
        ap = subprocess.Popen([ana, "run", "--stream", addr, "--summary-json", summary, *ana_args],
                              stdout=subprocess.DEVNULL, stderr=err)
    if not wait_for(alog, "listening on", 120):
        ap.kill()
        die("analyzer did not listen: " + open(alog).read()[-800:])
    vdev = "--vdev=net_pcap0,rx_pcap=%s,infinite_rx=1" % pcap
    with open(clog, "w") as err:
        cp = subprocess.Popen([col, "-l", "0-1"] + EAL + [vdev, "--", "--stream", addr, *col_args],
                              stdout=subprocess.DEVNULL, stderr=err)
    if not wait_for(clog, "port 0:", 120):
        cp.kill()
        ap.kill()
        die("DPDK collector did not start: " + open(clog).read()[-800:])
    ana_cpu0 = proc_cpu_s(ap.pid)
    t0 = time.monotonic()
    time.sleep(seconds)
    col_threads = threads_cpu(cp.pid)
    cp.send_signal(signal.SIGTERM)
    if cp.wait(timeout=120):
        ap.kill()
        die("DPDK collector exited %d: %s" % (cp.returncode, open(clog).read()[-800:]))
    t1 = time.monotonic()
    drained = wait_idle(ap.pid, 300)
    t2 = time.monotonic() - 1.5  # the three idle windows wait_idle saw came after the drain
    ana_threads = threads_cpu(ap.pid)
    ana_cpu = (proc_cpu_s(ap.pid) or 0) - (ana_cpu0 or 0)
    ap.send_signal(signal.SIGTERM)
    if ap.wait(timeout=120):
        die("analyzer exited %d: %s" % (ap.returncode, open(alog).read()[-800:]))
    c = counters(open(clog).read())
    with open(summary) as f:
        got = json.load(f)["records"]
    lost = c["records"] - got - c.get("stream_dropped", 0) - c.get("sink_dropped", 0)
    files = files_lost = None
    if records_dir:  # the files' own account: every record written or counted lost on the way to them
        files = c.get("files_written", 0)
        shutil.rmtree(records_dir, ignore_errors=True)
        files_lost = c["records"] - files - c.get("files_lost", 0) - c.get("sink_dropped", 0)
    return {"reports": c["reports"], "records": c["records"], "analyzer_records": got, "files_written": files,
            "files_unaccounted": files_lost,
            "stream_sent": c.get("stream_sent"), "stream_dropped": c.get("stream_dropped", 0),
            "sink_dropped": c.get("sink_dropped", 0), "unaccounted": lost, "analyzer_drained": drained,
            "cpu_s": c["worker0_cpu_ns"] / 1e9, "wall_s": c["worker0_wall_ns"] / 1e9,
            "collector_wall_s": t1 - t0, "drain_wall_s": max(t2 - t1, 0.0), "analyzer_cpu_s": ana_cpu,
            "collector_threads_cpu_s": col_threads, "analyzer_threads_cpu_s": ana_threads}


def med(xs):
    return statistics.median(xs) if xs else None


def rates(runs, unit="reports"):
    return {
        "per_cpu_s": med([r[unit] / r["cpu_s"] for r in runs]),
        "per_wall_s": med([r[unit] / r["wall_s"] for r in runs]),
        "cpu_share": med([r["cpu_s"] / r["wall_s"] for r in runs]),
    }


def pair(a_runs, b_runs, unit_a="reports", unit_b="reports", key="cpu_s"):
    return med([(a[unit_a] / a[key]) / (b[unit_b] / b[key]) for a, b in zip(a_runs, b_runs)])


def main():
    ap = argparse.ArgumentParser(description="hopwatch side by side with its references (JSON on stdout)")
    ap.add_argument("build")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=8)
    ap.add_argument("--work", default="/dev/shm/hwbench-sbs")
    ap.add_argument("--flows", default="4096,65536")
    ap.add_argument("--hops", type=int, default=5, help="records per report (stack hops + the sink)")
    ap.add_argument("--path-change-rate", type=float, default=0.001)
    ap.add_argument("--drop-rate", type=float, default=0.001)
    ap.add_argument("--pcap-reports", type=int, default=500000)
    ap.add_argument("--only", default="dpdk,pcap,analyzer,pipeline")
    ap.add_argument("--pipeline-flows", type=int, default=4096)
    ap.add_argument("--pipeline-lossless", action="store_true",
                    help="the pipeline's collector with --lossless: its worker waits for the stream's reader (shm:) "
                         "instead of dropping, so the delivered rate is the rate sustained with no record lost")
    ap.add_argument("--pipeline-streams", default="shm,unix",
                    help="the pipeline's streams, in turn each round: shm (the workers' rings shared with the "
                         "analyzer), unix (a socket)")
    ap.add_argument("--pipeline-records", action="store_true",
                    help="the pipeline's collector also writes record files (--records-dir, under --work, removed "
                         "after each run): the stream then goes through the sink thread (shm: as a copy per batch)")
    ap.add_argument("--pcap-flows", type=int, default=4096, help="flows of the pcap and analyzer rounds' capture")
    ap.add_argument("--analyzer-b", help="a second analyzer binary for the analyzer rounds (before/after)")
    ap.add_argument("--collector-b", help="a second collector binary for the dpdk rounds (before/after)")
    ap.add_argument("--analyzer-args", default="", help="more arguments of the build's analyzer run")
    ap.add_argument("--analyzer-b-args", default="", help="more arguments of --analyzer-b's run")
    a = ap.parse_args()
    ana_args, anb_args = a.analyzer_args.split(), a.analyzer_b_args.split()
    only = set(a.only.split(","))
    gen = os.path.join(a.build, "gen", "hopwatch-gen")
    col = os.path.join(a.build, "collector", "hopwatch-collector")
    ana = os.path.join(a.build, "analyzer", "hopwatch-analyzer")
    loop = os.path.join(a.build, "bench", "bench_pcap_loop")
    for f in (gen, col, ana, loop):
        if not os.access(f, os.X_OK):
            die("%s: not built" % f)
    if "dpdk" in only and not shutil.which("dpdk-testpmd"):
        die("dpdk-testpmd: not on PATH (package dpdk)")
    os.makedirs(a.work, exist_ok=True)

    def capture(name, flows, count):
        path = os.path.join(a.work, name + ".pcap")
        subprocess.run([gen, "reports", "--format", "tr2.0", "--hops", str(a.hops - 1), "--count", str(count),
                        "--flows", str(flows), "--flow-paths", "stable", "--path-change-rate",
                        str(a.path_change_rate), "--drop-rate", str(a.drop_rate), "--queues", "4096", "--nodes",
                        "32", "--out", path], check=True, stderr=subprocess.DEVNULL)
        return path

    result = {"rounds": a.rounds, "seconds_per_run": a.seconds, "records_per_report": a.hops,
              "input": "hopwatch-gen reports --format tr2.0 --flow-paths stable --path-change-rate %g "
                       "--drop-rate %g --queues 4096 --nodes 32" % (a.path_change_rate, a.drop_rate),
              "headline": "medians of whole-run rates; ratios are medians of per-round ratios (alternating runs)"}

    if "dpdk" in only:
        result["dpdk"] = {}
        for flows in [int(x) for x in a.flows.split(",")]:
            # one report per flow and pass on average (about 63 % of the flows in each pass), at most 32,768
            # frames: the port holds the whole capture in mbufs, and the pool (rounded up to 2^k - 1 mbufs
            # of 2176 B) of 65,536 frames does not fit -m 512; so a 65,536-flow capture is cut at 32,768
            frames = min(flows, 32768)
            pcap = capture("dpdk-%d" % flows, flows, frames)
            hw, hb, tp = [], [], []
            for i in range(a.rounds):
                hw.append(run_collector_dpdk(col, pcap, a.seconds, os.path.join(a.work, "col.log")))
                if a.collector_b:
                    hb.append(run_collector_dpdk(a.collector_b, pcap, a.seconds, os.path.join(a.work, "col.log")))
                tp.append(run_testpmd(pcap, frames, a.seconds, os.path.join(a.work, "testpmd.log")))
                print("dpdk %d flows round %d: collector %.2f M/cpu-s, testpmd %.2f M/cpu-s" %
                      (flows, i + 1, hw[-1]["reports"] / hw[-1]["cpu_s"] / 1e6, tp[-1]["reports"] / tp[-1]["cpu_s"] /
                       1e6), file=sys.stderr)
            result["dpdk"]["flows_%d" % flows] = {
                "frames": frames, "collector": rates(hw), "testpmd_rxonly": rates(tp),
                "ratio_per_cpu_s": pair(hw, tp), "ratio_per_wall_s": pair(hw, tp, key="wall_s")}
            if hb:
                result["dpdk"]["flows_%d" % flows].update({
                    "collector_b": rates(hb), "collector_b_path": a.collector_b,
                    "b_ratio_per_cpu_s": pair(hb, tp), "a_over_b_per_cpu_s": pair(hw, hb)})

    if "pipeline" in only:
        frames = min(a.pipeline_flows, 32768)
        pcap = capture("pipe-%d" % a.pipeline_flows, a.pipeline_flows, frames)
        streams = a.pipeline_streams.split(",")
        by = {st: [] for st in streams}
        for i in range(a.rounds):
            for st in streams:
                r = run_pipeline(col, ana, pcap, a.seconds, a.work, ana_args, st,
                                 ["--lossless"] if a.pipeline_lossless else [],
                                 os.path.join(a.work, "pipe-records") if a.pipeline_records else None)
                by[st].append(r)
                print("pipeline round %d, %s: %d records, analyzer took %d, stream dropped %d, sink dropped %d, "
                      "unaccounted %d; %.2f M reports/wall-s, analyzer %.2f M records/cpu-s" %
                      (i + 1, st, r["records"], r["analyzer_records"], r["stream_dropped"], r["sink_dropped"],
                       r["unaccounted"], r["reports"] / r["collector_wall_s"] / 1e6,
                       r["analyzer_records"] / max(r["analyzer_cpu_s"], 1e-9) / 1e6), file=sys.stderr)

        def delivered(r):
            # end to end: reports the collector took in per wall second it ran, counting only those whose
            # records reached the analyzer (a report's records are dropped together, a whole batch at a time)
            return r["reports"] * r["analyzer_records"] / r["records"] / (r["collector_wall_s"] + r["drain_wall_s"])

        def summary(runs):
            def names(k):
                return sorted({n for r in runs for n in r[k]})
            return {
                "runs": runs,
                "every_record_accounted": all(r["unaccounted"] == 0 and not r["files_unaccounted"] and
                                              r["analyzer_drained"] for r in runs),
                "records_lost_share": med([(r["stream_dropped"] + r["sink_dropped"]) / r["records"] for r in runs]),
                "delivered_reports_per_wall_s": med([delivered(r) for r in runs]),
                "collector_reports_per_wall_s": med([r["reports"] / r["collector_wall_s"] for r in runs]),
                "analyzer_records_per_cpu_s": med([r["analyzer_records"] / r["analyzer_cpu_s"] for r in runs]),
                "collector_threads_cpu_s": {n: med([r["collector_threads_cpu_s"].get(n, 0) for r in runs])
                                            for n in names("collector_threads_cpu_s")},
                "analyzer_threads_cpu_s": {n: med([r["analyzer_threads_cpu_s"].get(n, 0) for r in runs])
                                           for n in names("analyzer_threads_cpu_s")}}

        result["pipeline"] = {"flows": a.pipeline_flows, "frames": frames, "lossless": a.pipeline_lossless,
                              "records_files": a.pipeline_records}
        for st in streams:
            result["pipeline"][st] = summary(by[st])
        if len(streams) == 2:  # the first against the second, round by round
            x, y = by[streams[0]], by[streams[1]]
            result["pipeline"]["%s_over_%s_delivered" % tuple(streams)] = med(
                [delivered(p) / delivered(q) for p, q in zip(x, y)])

    if only & {"pcap", "analyzer"}:
        pcap = capture("pcap-%d" % a.pcap_flows, a.pcap_flows, a.pcap_reports)
        recdir = os.path.join(a.work, "records")
        shutil.rmtree(recdir, ignore_errors=True)
        os.makedirs(recdir)
        text, _, _ = timed([col, "--pcap", pcap, "--records-dir", recdir])
        n_records = counters(text)["records"]
        files = sorted(glob.glob(os.path.join(recdir, "*")))
        hw, hwb, ref, an, anb = [], [], [], [], []
        for i in range(a.rounds):
            if "pcap" in only:
                text, cpu, wall = timed([loop, pcap])
                ref.append({"reports": json.loads(text.splitlines()[0])["packets"], "cpu_s": cpu, "wall_s": wall})
            text, cpu, wall = timed([col, "--pcap", pcap])
            c = counters(text)
            hw.append({"reports": c["reports"], "records": c["records"], "cpu_s": cpu, "wall_s": wall})
            if "pcap" in only and a.collector_b:
                text, cpu, wall = timed([a.collector_b, "--pcap", pcap])
                hwb.append({"reports": counters(text)["reports"], "cpu_s": cpu, "wall_s": wall})
            if "analyzer" in only:
                text, cpu, wall = timed([ana, "run", "--quiet", *ana_args, "--records"] + files)
                an.append({"records": n_records, "cpu_s": cpu, "wall_s": wall})
                if a.analyzer_b:
                    text, cpu, wall = timed([a.analyzer_b, "run", "--quiet", *anb_args, "--records"] + files)
                    anb.append({"records": n_records, "cpu_s": cpu, "wall_s": wall})
            print("pcap round %d: collector %.2f M reports/cpu-s%s%s%s" %
                  (i + 1, hw[-1]["reports"] / hw[-1]["cpu_s"] / 1e6,
                   ", collector B %.2f M" % (hwb[-1]["reports"] / hwb[-1]["cpu_s"] / 1e6) if hwb else "",
                   ", loop %.2f M" % (ref[-1]["reports"] / ref[-1]["cpu_s"] / 1e6) if ref else "",
                   ", analyzer %.2f M records/cpu-s" % (an[-1]["records"] / an[-1]["cpu_s"] / 1e6) if an else ""),
                  file=sys.stderr)
        if "pcap" in only:
            result["pcap"] = {"reports": a.pcap_reports, "flows": a.pcap_flows, "collector_pcap": rates(hw),
                              "pcap_next_ex_loop": rates(ref), "ratio_per_cpu_s": pair(hw, ref)}
            if hwb:
                result["pcap"].update({"collector_b": rates(hwb), "collector_b_path": a.collector_b,
                                       "b_ratio_per_cpu_s": pair(hwb, ref), "a_over_b_per_cpu_s": pair(hw, hwb)})
        if "analyzer" in only:
            result["analyzer"] = {"records": n_records, "flows": a.pcap_flows, "analyzer": rates(an, "records"),
                                  "collector_pcap_records": rates(hw, "records"),
                                  "ratio_per_cpu_s": pair(an, hw, "records", "records")}
            if anb:
                result["analyzer"].update({"analyzer_b": rates(anb, "records"), "analyzer_b_path": a.analyzer_b,
                                           "analyzer_args": a.analyzer_args, "analyzer_b_args": a.analyzer_b_args,
                                           "a_over_b_per_cpu_s": pair(an, anb, "records", "records"),
                                           "a_over_b_per_wall_s": pair(an, anb, "records", "records", "wall_s")})
        shutil.rmtree(recdir, ignore_errors=True)
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
