#!/usr/bin/env python3
# Whose traffic in the live console (issue 20 with run --pods): the incident page names the Incast's sender and
# receiver jobs of truth.json, and the latency matrix restricted to each job (#job=NAME) holds only reports from
# the leaves of that job's hosts, the jobs' cells adding up to the whole matrix's; checked from the DOM of
# headless Chromium.
# Usage: console_jobs.py CHROMIUM BASE_URL DIR ARTEFACT_DIR DEADLINE_S   (DIR: hopwatch-gen's, with pods.json)
import html.parser
import json
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from console_check import chromium  # noqa: E402


class Dom(html.parser.HTMLParser):
    """The incident rows, the latency matrix's svg and its cells."""

    def __init__(self):
        super().__init__()
        self.incidents, self.latency, self.cells = [], None, {}

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "tr" and "incident" in a.get("class", "").split():
            self.incidents.append(a)
        if tag == "svg" and a.get("id") == "latency":
            self.latency = a
        if tag == "g" and a.get("class") == "lat-cell":
            self.cells[(a["data-src"], a["data-dst"])] = int(a["data-count"])


def main():
    binary, base, d, artefacts, deadline_s = sys.argv[1:6]
    deadline = time.monotonic() + float(deadline_s)
    truth = json.load(open(os.path.join(d, "truth.json")))
    pods = json.load(open(os.path.join(d, "pods.json")))["items"]
    job_of_host = {p["spec"]["nodeName"]: p["metadata"]["labels"]["job-name"] for p in pods}
    jobs = sorted(set(job_of_host.values()))
    leaf_of = {}  # host -> its leaf, from the truth's links
    for link in truth["topology"]["links"]:
        a, b = link["a"]["node"], link["b"]["node"]
        if a in job_of_host:
            leaf_of[a] = b
        if b in job_of_host:
            leaf_of[b] = a
    incast = next(e for e in truth["events"] if e["kind"] == "Incast")
    # the Incast's senders' jobs are the culprits, its receiver's the victim (hopwatch-gen --jobs)
    want_senders, want_receivers = sorted(incast["jobs"]["culprits"]), sorted(incast["jobs"]["victims"])
    os.makedirs(artefacts, exist_ok=True)
    bad = ["nothing checked"]
    with tempfile.TemporaryDirectory() as profile:
        while time.monotonic() < deadline:
            bad = []
            pages = {}
            for job in [""] + jobs:
                dom = Dom()
                dom.feed(chromium(binary, profile, "--dump-dom", f"{base}/console/#job={job}"))
                pages[job] = dom
            rows = [r for r in pages[""].incidents if r.get("data-kind") == "Incast"]
            if not rows:
                bad.append("no Incast row")
            for r in rows:
                got_s = sorted(filter(None, r.get("data-senders", "").split(",")))
                got_r = sorted(filter(None, r.get("data-receivers", "").split(",")))
                if (got_s, got_r) != (want_senders, want_receivers):
                    bad.append(f"Incast row: jobs {got_s} -> {got_r}, truth {want_senders} -> {want_receivers}")
            whole = pages[""].cells
            if not whole:
                bad.append("the whole matrix has no cells")
            summed = {}
            for job in jobs:
                p = pages[job]
                if p.latency is None or p.latency.get("data-job") != job:
                    bad.append(f"#job={job}: the matrix shown is "
                               f"{p.latency.get('data-job') if p.latency else None!r}")
                    continue
                mine = {leaf_of[h] for h, j in job_of_host.items() if j == job}
                for (src, dst), n in p.cells.items():
                    if src not in mine:
                        bad.append(f"job {job}: {n} reports from {src}, its hosts are under {sorted(mine)}")
                    summed[(src, dst)] = summed.get((src, dst), 0) + n
            if not bad and summed != whole:
                diff = {k: (summed.get(k), whole.get(k)) for k in set(summed) | set(whole)
                        if summed.get(k) != whole.get(k)}
                bad.append(f"the jobs' cells do not add up to the whole matrix: {list(diff.items())[:5]}")
            if not bad:
                break
            time.sleep(1)
        chromium(binary, profile, f"--screenshot={os.path.join(artefacts, 'console-jobs.png')}",
                 f"{base}/console/#job={jobs[0]}")
    for b in bad:
        print("FAIL: " + b)
    if not bad:
        print(f"console jobs: Incast {want_senders} -> {want_receivers}; {len(jobs)} jobs' matrices add up to "
              f"{sum(pages[''].cells.values())} reports in {len(pages[''].cells)} cells")
    return 1 if bad else 0


sys.exit(main())
