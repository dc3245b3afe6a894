#!/usr/bin/env python3
# bench/side_by_side.py run end to end at a tiny size (one round of one second, a 20,000-report capture), so that
# the harness the performance figures come from cannot break unnoticed: it asserts what the JSON must say, never a rate.
import json
import os
import shutil
import subprocess
import sys
import tempfile

build, src = sys.argv[1], sys.argv[2]
REPORTS = 20000  # --pcap-reports
HOPS = 5         # --hops: 4 stack hops + the reporting sink's own, so 5 records per report
fails = []


def check(cond, what):
    if not cond:
        fails.append(what)


if not shutil.which("dpdk-testpmd"):
    print("SKIP: dpdk-testpmd not on PATH (package dpdk-dev)")
    sys.exit(77)
work = tempfile.mkdtemp(prefix="hw-sbs-")
try:
    p = subprocess.run([sys.executable, os.path.join(src, "bench", "side_by_side.py"), build, "--rounds", "1",
                        "--seconds", "1", "--flows", "1024", "--pipeline-flows", "1024", "--pcap-reports", str(REPORTS),
                        "--hops", str(HOPS), "--work", work], capture_output=True, text=True, timeout=600)
    if p.returncode:
        print("side_by_side.py exited %d:\n%s" % (p.returncode, p.stderr[-3000:]))
        sys.exit(1)
    d = json.loads(p.stdout)
finally:
    shutil.rmtree(work, ignore_errors=True)

check(d.get("rounds") == 1 and d.get("records_per_report") == HOPS, "rounds / records_per_report: %r" %
      {k: d.get(k) for k in ("rounds", "records_per_report")})
check("best" not in json.dumps(d).lower(), "a best-chunk figure in the output")  # headlines are whole runs

dp = d.get("dpdk", {}).get("flows_1024", {})
hw, tp = dp.get("collector", {}).get("per_cpu_s", 0), dp.get("testpmd_rxonly", {}).get("per_cpu_s", 0)
check(hw > 0 and tp > 0, "dpdk: rates %r %r" % (hw, tp))
# testpmd rxonly only receives and frees on the same port and capture; the collector also parses every report
check(0 < dp.get("ratio_per_cpu_s", 0) < 1, "dpdk: ratio %r, not in (0, 1)" % dp.get("ratio_per_cpu_s"))

pc = d.get("pcap", {})
check(pc.get("reports") == REPORTS, "pcap: %r reports, want %d" % (pc.get("reports"), REPORTS))
check(pc.get("collector_pcap", {}).get("per_cpu_s", 0) > 0 and pc.get("pcap_next_ex_loop", {}).get("per_cpu_s", 0) > 0,
      "pcap: rates missing")

an = d.get("analyzer", {})
check(an.get("records") == REPORTS * HOPS, "analyzer: %r records, want %d" % (an.get("records"), REPORTS * HOPS))
check(an.get("analyzer", {}).get("per_cpu_s", 0) > 0, "analyzer: no rate")

pl = d.get("pipeline", {})
for stream in ("shm", "unix"):
    s = pl.get(stream, {})
    runs = s.get("runs", [])
    check(len(runs) == 1, "pipeline %s: %d runs" % (stream, len(runs)))
    check(s.get("every_record_accounted") is True, "pipeline %s: not every record accounted" % stream)
    for r in runs:
        # every record the collector made is the analyzer's, or counted dropped at the stream or the sink ring
        check(r["records"] == r["analyzer_records"] + r["stream_dropped"] + r["sink_dropped"] and r["unaccounted"] == 0,
              "pipeline %s: %r" % (stream, r))
        check(r["analyzer_records"] > 0 and r["records"] == r["reports"] * HOPS, "pipeline %s: counts %r" % (stream, r))
    check(s.get("delivered_reports_per_wall_s", 0) > 0, "pipeline %s: nothing delivered" % stream)

if fails:
    print("FAIL:\n  " + "\n  ".join(fails))
    sys.exit(1)
print("side_by_side.py: dpdk ratio %.3f, pcap ratio %.3f, pipeline shm/unix %.2f, every record accounted" %
      (dp["ratio_per_cpu_s"], pc["ratio_per_cpu_s"], pl.get("shm_over_unix_delivered", 0)))
