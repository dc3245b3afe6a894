#!/usr/bin/env python3
# A running analyzer on a live source that gets no record follows its identity sources all the same: a Kubernetes
# API (a local server answering a pod list, then a watch stream) and a --pods directory; /metrics shows each change,
# a malformed watch line and a failing list as a stale source with the last good mapping kept.  Polls with generous
# limits, never sleeps a fixed time to assert; prints how long each watched change took to show (not asserted).
import http.server
import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time

from ident_util import free_port, metric, put

ANALYZER = sys.argv[1]
LIMIT_S = 120


def pod(name, ip, job, rv="1"):
    return {"metadata": {"name": name, "namespace": "ml", "resourceVersion": rv, "labels": {"job-name": job}},
            "spec": {"nodeName": "n1"}, "status": {"phase": "Running", "podIP": ip}}


class Api:  # what the server answers, changed by the test
    lock = threading.Lock()
    list_status = 200
    list_body = json.dumps({"kind": "PodList", "metadata": {"resourceVersion": "10"},
                            "items": [pod("a-0", "10.9.0.1", "alpha"), pod("b-0", "10.9.0.2", "beta")]})
    lines = queue.Queue()  # for the newest watch
    watches = 0
    lists = 0


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def do_GET(self):
        if self.headers.get("Authorization") != "Bearer t0ken" or not self.path.startswith("/api/v1/pods"):
            return self.plain(401, b"{}")
        if "watch=1" not in self.path:
            with Api.lock:
                Api.lists += 1
                status, body = Api.list_status, Api.list_body.encode()
            return self.plain(status, body)
        with Api.lock:
            Api.watches += 1
            mine = Api.watches
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        while True:
            try:
                line = Api.lines.get(timeout=0.2)
            except queue.Empty:
                line = None
            with Api.lock:
                if Api.watches != mine:  # an older watch, its client gone: the line is the newest watch's
                    if line is not None:
                        Api.lines.put(line)
                    return
            if line is None:
                continue
            data = (line + "\n").encode()
            try:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                self.wfile.flush()
            except OSError:
                return

    def plain(self, status, body):
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
srv.daemon_threads = True
threading.Thread(target=srv.serve_forever, daemon=True).start()
api = f"http://127.0.0.1:{srv.server_address[1]}/api/v1/pods"

with tempfile.TemporaryDirectory(prefix="ident_watch.") as d:
    tok = os.path.join(d, "token")
    put(tok, "t0ken\n")
    pods_dir = os.path.join(d, "pods")
    os.mkdir(pods_dir)
    # the --pods directory: one pod of its own address (10.9.1.x) at first
    put(os.path.join(pods_dir, "p.json"), json.dumps({"items": [pod("f-0", "10.9.1.1", "files")]}))
    port = free_port()
    sock = os.path.join(d, "stream.sock")
    p = subprocess.Popen([ANALYZER, "run", "--stream", f"unix:{sock}", "--k8s-api", api, "--k8s-token", tok,
                          "--k8s-every", "0.2", "--pods", pods_dir, "--metrics", f"127.0.0.1:{port}",
                          "--summary-json", "-"], stderr=subprocess.PIPE, text=True)
    log = []
    reader = threading.Thread(target=lambda: log.extend(p.stderr), daemon=True)
    reader.start()

    def wait(what, ok):
        t0 = time.monotonic()
        while time.monotonic() < t0 + LIMIT_S:
            if ok():
                return time.monotonic() - t0
            time.sleep(0.02)
        p.kill()
        sys.exit(f"FAIL: {what} within {LIMIT_S} s; log: {''.join(log)[-2000:]}")

    def entries(n):
        return lambda: metric(port, "hopwatch_analyzer_identity_entries") == n

    fails, shown = [], []
    try:
        # the list's 2 pods and the directory's 1: no record ever comes, the sources are read all the same
        wait("the first mappings on /metrics", entries(3))
        wait("the watch", lambda: Api.watches >= 1)
        Api.lines.put(json.dumps({"type": "ADDED", "object": pod("c-0", "10.9.0.3", "gamma", "11")}))
        shown.append(wait("a watched pod added", entries(4)))
        Api.lines.put(json.dumps({"type": "DELETED", "object": pod("a-0", "10.9.0.1", "alpha", "12")}))
        shown.append(wait("a watched pod deleted", entries(3)))
        if metric(port, "hopwatch_analyzer_identity_k8s_watch_events_total") != 2:
            fails.append("watch events not 2")
        # the directory changes while no record comes: followed (checked on the outputs' ticks)
        put(os.path.join(pods_dir, "p.json"),
            json.dumps({"items": [pod("f-0", "10.9.1.1", "files"), pod("f-1", "10.9.1.2", "files")]}))
        wait("the changed directory", entries(4))
        # a malformed watch line (the 3rd of this watch), and the list fails after it: stale, the last good mapping kept
        with Api.lock:
            Api.list_status, Api.list_body = 500, "oops"
        Api.lines.put('{"type": "ADDED", "object": ')
        wait("the stale source", lambda: metric(port, "hopwatch_analyzer_identity_sources_stale") == 1)
        if metric(port, "hopwatch_analyzer_identity_entries") != 4:
            fails.append("the last good mapping was not kept")
        wait("2 load errors (the line, then a list)",
             lambda: (metric(port, "hopwatch_analyzer_identity_load_errors_total") or 0) >= 2)
        if metric(port, "hopwatch_analyzer_identity_entries") != 4:
            fails.append("the last good mapping was not kept after the failed list")
        # mended: listed again, no longer stale
        with Api.lock:
            Api.list_status = 200
            Api.list_body = json.dumps({"kind": "PodList", "metadata": {"resourceVersion": "20"},
                                        "items": [pod("b-0", "10.9.0.2", "beta")]})
        wait("the mended source", lambda: metric(port, "hopwatch_analyzer_identity_sources_stale") == 0)
        wait("the new list", entries(3))
    finally:
        p.terminate()
        p.wait(timeout=LIMIT_S)
        reader.join(timeout=LIMIT_S)  # the last lines (the summary) may still be in the pipe when the process ends
        srv.shutdown()
    text = "".join(log)
    if not any("watch event 3:" in l and "keeping the last good identity mapping" in l for l in log):
        fails.append(f"no log line for the malformed watch line: {text[-1500:]}")
    summary = json.loads(text.strip().splitlines()[-1])["identity"]
    if summary["k8s_lists"] < 2 or summary["k8s_watch_events"] != 2 or summary["stale_sources"] != 0:
        fails.append(f"summary {summary}")
    for f in fails:
        print("FAIL", f)
    print(f"watched changes shown on /metrics after {', '.join(f'{s:.3f}' for s in shown)} s; identity {summary}")
    sys.exit(1 if fails else 0)
