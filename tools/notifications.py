# What a person receives: hopwatch-gen scenarios replayed by the analyzer into a real Alertmanager running the
# shipped deploy/alertmanager/alertmanager.yml (only its webhook URL changed), the webhook kept per scenario.
"""Usage: notifications.py --gen G --analyzer A [--families incast,...] [--seeds 1,2,3] [--json OUT] [--markdown]
                        [--keep DIR]

For every family and seed: `hopwatch-gen scenario FAMILY --seed S --write-records` (TR v2.0), a fresh
Alertmanager (prometheus-alertmanager) with the shipped route, a webhook receiver on loopback, then
`hopwatch-analyzer run --jsonl ... --alertmanager URL --hold 20` (the alerts stay firing 10 s past the bursts' digest
group_wait, 10 s, as a live analyzer keeps them 30 s), and the notifications that reached the webhook until none
came for 3 s.  Prints, per run, the notifications (receiver, status, group, alerts in the order received, first
alert's summary) and, with --markdown, one table row per run: incident notifications, then digest ones.  Exit 2 on bad usage or a missing program.
"""
import argparse
import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import random
import urllib.request

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(SRC, "tools"))
import score_sweep  # noqa: E402  (the sweep's mix family)
from netutil import free_port  # noqa: E402


class Receiver:
    """A webhook receiver on loopback keeping every POSTed body (with the wall time it came)."""

    def __init__(self):
        self.notes = []
        notes = self.notes

        class H(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                notes.append({"t": time.time(), "body": json.loads(body)})
                self.send_response(200)
                self.end_headers()

            def log_message(self, *a):
                pass

        self.srv = http.server.HTTPServer(("127.0.0.1", 0), H)
        self.port = self.srv.server_address[1]
        threading.Thread(target=self.srv.serve_forever, daemon=True).start()

    def close(self):
        self.srv.shutdown()
        self.srv.server_close()


def start_am(am_bin, tmp, wh_port):
    """Alertmanager with the shipped configuration, its webhook URLs (the incidents' and the bursts' digest)
    pointed at wh_port; (process, url).  A notification's body names its receiver."""
    shipped = open(os.path.join(SRC, "deploy/alertmanager/alertmanager.yml")).read()
    old = "url: 'http://127.0.0.1:9095/hopwatch/"
    if old + "alerts'" not in shipped:
        sys.exit("deploy/alertmanager/alertmanager.yml: no receiver URL %salerts' to replace" % old)
    cfg = os.path.join(tmp, "am.yml")
    open(cfg, "w").write(shipped.replace(old, "url: 'http://127.0.0.1:%d/hopwatch/" % wh_port))
    port = free_port()
    url = "http://127.0.0.1:%d" % port
    log = open(os.path.join(tmp, "am.log"), "w")
    p = subprocess.Popen([am_bin, "--config.file=" + cfg, "--storage.path=" + os.path.join(tmp, "am-data"),
                          "--web.listen-address=127.0.0.1:%d" % port, "--cluster.listen-address="],
                         stdout=log, stderr=log)
    for _ in range(600):  # up to 60 s on a loaded host
        try:
            urllib.request.urlopen(url + "/-/ready", timeout=2).read()
            return p, url
        except Exception:
            if p.poll() is not None:
                break
            time.sleep(0.1)
    p.kill()
    p.wait()
    sys.exit("Alertmanager did not start: " + open(os.path.join(tmp, "am.log")).read()[-300:])


def run_one(a, family, seed, tmp):
    """One scenario through Alertmanager: {family, seed, truth, notifications}."""
    d = os.path.join(a.keep or tmp, "%s-%d" % (family, seed))
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.dirname(d), exist_ok=True)
    cmd = [a.gen, "scenario", family, "--seed", str(seed), "--format", "tr2.0", "--out", d, "--write-records"]
    if family == "mix":  # not a named scenario: tools/score_sweep.py's mix (an incast, a PFC storm, a link down)
        rng = random.Random("mix/leaf-spine/tr2.0/%d" % seed)
        cmd[2] = "custom"
        cmd += ["--topology", "leaf-spine:4,8,8"]
        for e in score_sweep.events_for("mix", score_sweep.Fabric("leaf-spine"), rng):
            cmd += ["--event", e]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    rx = Receiver()
    am, url = start_am(a.am, d, rx.port)
    try:
        subprocess.run([a.analyzer, "run", "--jsonl", os.path.join(d, "records.jsonl"), "--lldp",
                        os.path.join(d, "lldp.pcap"), "--map", os.path.join(d, "map.json"), "--alertmanager", url,
                        "--events", os.path.join(d, "events.jsonl"), "--hold", "20", "--quiet"], check=True)
        # the route flushes an incident's group 1 s after its first alert, a digest's 10 s after: by the end of
        # the hold both went out; wait until none came for 3 s
        last, since = -1, time.time()
        deadline = time.time() + 60
        while time.time() < deadline:
            n = len(rx.notes)
            if n != last:
                last, since = n, time.time()
            elif n and time.time() - since >= 3:
                break
            time.sleep(0.1)
    finally:
        am.terminate()
        am.wait()
        rx.close()
    truth = json.load(open(os.path.join(d, "truth.json")))
    return {"family": family, "seed": seed, "truth": truth.get("events", []),
            "notifications": [n["body"] for n in rx.notes]}


def describe(r):
    """Lines for people: per notification its alerts in order, the first one's summary."""
    out = ["%s seed %d: truth %s" % (r["family"], r["seed"], "; ".join(
        "%s at %s %s queue %s" % (e.get("kind"), e.get("place", {}).get("node"), e.get("place", {}).get("ifname"),
                                  e.get("place", {}).get("queue")) for e in r["truth"]) or "none")]
    for n in r["notifications"]:
        al = n["alerts"]
        out.append("  %s %s, %s, %d alert(s): %s" % (
            n["receiver"], n["status"], ", ".join("%s %s" % kv for kv in sorted(n["groupLabels"].items())) or "-",
            len(al), ", ".join(x["labels"]["alertname"] for x in al)))
        if al:
            out.append("    first: " + al[0]["annotations"].get("summary", ""))
            out.append("    description: " + al[0]["annotations"].get("description", ""))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gen", required=True)
    ap.add_argument("--analyzer", required=True)
    ap.add_argument("--am", default=shutil.which("alertmanager") or shutil.which("prometheus-alertmanager"))
    ap.add_argument("--families", default="incast,microburst,pfc-storm,link-down,mix")
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--json", help="write every run's notifications here")
    ap.add_argument("--markdown", action="store_true", help="a table row per run")
    ap.add_argument("--keep", help="keep every run's scenario, events file and Alertmanager log under this directory")
    a = ap.parse_args()
    if not a.am:
        print("notifications.py: Alertmanager (alertmanager or prometheus-alertmanager) is not installed",
              file=sys.stderr)
        sys.exit(2)
    try:
        seeds = [int(s) for s in a.seeds.split(",")]
    except ValueError:
        ap.error("--seeds %s: not a comma-separated list of integers" % a.seeds)
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        for fam in a.families.split(","):
            for seed in seeds:
                r = run_one(a, fam, seed, tmp)
                runs.append(r)
                print("\n".join(describe(r)), flush=True)
    if a.json:
        json.dump(runs, open(a.json, "w"), indent=1)
    if a.markdown:
        print("\n| family | seed | notifications | alerts | digests | first alert | its summary |")
        print("|---|---|---|---|---|---|---|")
        for r in runs:
            firing = [n for n in r["notifications"] if n["status"] == "firing"]
            digest = [n for n in firing if n["receiver"] == "hopwatch-burst-digest"]
            firing = [n for n in firing if n not in digest]
            lead = (firing or digest)[0]["alerts"] if firing or digest else []
            first = lead[0] if lead else None
            print("| %s | %d | %d | %s | %d | %s | %s |" % (
                r["family"], r["seed"], len(firing), " / ".join(str(len(n["alerts"])) for n in firing) or "0",
                len(digest), first["labels"]["alertname"] if first else "-",
                first["annotations"].get("summary", "").replace("|", "\\|") if first else "-"))


if __name__ == "__main__":
    main()
