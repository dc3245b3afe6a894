# The notification a person gets leads with the culprit: the bundled incast replayed at its recorded pace (as if
# live) and as fast as it goes (a replay) into a real Alertmanager with the shipped deploy/alertmanager/alertmanager.yml.
"""Usage: notify_order.py HOPWATCH-GEN HOPWATCH-ANALYZER SRC.  Skipped (77) without Alertmanager.

The incast scenario (gen/scenario: 16 senders to host1 behind leaf1 Ethernet1, RoCE queue 3; seed 2, whose
CongestionTree at that port is raised before its Incast) goes through the shipped route twice:
1. live: record times start a few seconds ahead and the analyzer replays them at their pace, so Alertmanager
   waits its group_wait (1 s) and sorts the group's alerts itself (job, instance, label set: without the
   Incast's instance label the CongestionTree, alertname C < I, came first);
2. replay: the same records 2026-01-01 (long past), as fast as possible: Alertmanager flushes the group at once
   with the first alerts of the first post (the tree alone before the sink listed the cause first and waited).
Before both (a few seconds, no scenario): the shipped route itself, alerts with the analyzer's labels posted
straight to Alertmanager and its groups listed (/api/v2/alerts/groups): a Microburst outside an incident goes to
the bursts' digest (hopwatch-burst-digest), one group per switch (node); one inside an incident (an Incast with
its incident label) is inhibited; a HighQueue goes to hopwatch-silent, the Incast to hopwatch-webhook by incident.
Each time the first notification's first alert must be the Incast, its summary leading with the culprit as
truth.json places it and the host behind it, then its sources and victims; its description says what to do.
Live, the Incast comes 185 µs of record time after the tree, which on a loaded host can be more than the 1 s
group_wait of wall time: then the first notification holds the tree alone (at the culprit), and the order is
checked on Alertmanager's own listing of the group (/api/v2/alerts/groups), which sorts a group's alerts as a
notification does (dispatch.go: sort.Sort(groups[i].Alerts), the AlertSlice.Less of its flush).
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request

gen, an, src = sys.argv[1:4]
sys.path.insert(0, os.path.join(src, "tools"))
import notifications  # noqa: E402  (the Alertmanager and webhook harness)

am_bin = notifications.shutil.which("alertmanager") or notifications.shutil.which("prometheus-alertmanager")
if not am_bin:
    print("SKIP: Alertmanager is not installed")
    sys.exit(77)


def check(alerts, truth, what):
    """The alerts (a notification's, or a group's as Alertmanager lists it) lead with the Incast at the injected
    place; returns their alertnames."""
    names = [a["labels"]["alertname"] for a in alerts]
    p = truth["events"][0]["place"]  # the injected incast: node leaf1, ifname Ethernet1, queue 3, host host1
    first = alerts[0]
    s = first["annotations"]["summary"]
    print("%s: %s; first summary: %s" % (what, names, s))
    assert names[0] == "Incast", "%s: the first alert is %s, not the Incast: %s" % (what, names[0], names)
    # the culprit as the topology names it, its management address (the node label), the host behind the port
    lead = "Incast: culprit %s (%s) port %s queue %d toward %s, sources " % (p["node"], p["mgmt"], p["ifname"],
                                                                             p["queue"], p["host"])
    assert s.startswith(lead), "%s: summary does not start %r: %s" % (what, lead, s)
    assert re.search(r"; victims( \(\d+(, queue \d+)?\): \S|: none named)", s) and " UTC" in s, s
    assert first["labels"].get("instance") == "%s:%s" % (p["node"], p["ifname"]), first["labels"]
    d = first["annotations"]["description"]
    assert "What to do: " in d and "to %s" % p["host"] in d, d
    if "CongestionTree" in names:
        assert names.index("CongestionTree") > 0, names
    return names


def through_am(d, paced):
    """The scenario in d replayed by the analyzer (paced: at its recorded pace, starting at its first record's
    time) into a fresh Alertmanager with the shipped route: (the firing notifications' alerts, the group of the
    first one's incident as Alertmanager lists it)."""
    rx = notifications.Receiver()
    am, url = notifications.start_am(am_bin, d, rx.port)
    try:
        run = [an, "run", "--jsonl", os.path.join(d, "records.jsonl"), "--lldp", os.path.join(d, "lldp.pcap"),
               "--map", os.path.join(d, "map.json"), "--alertmanager", url, "--hold", "3", "--quiet"]
        if paced:
            first_ns = json.loads(open(os.path.join(d, "records.jsonl")).readline())["time_ns"]
            wait = first_ns / 1e9 - time.time()
            assert wait > 0, "setting up took %.1f s more than the 8 s allowed" % -wait
            time.sleep(wait)
            run += ["--pace", "recorded"]
        subprocess.run(run, check=True)
        # the incidents' receiver only: a background burst of its own incident goes to the bursts' digest, a
        # separate channel that a replay (alerts older than group_wait) may flush before the incident; and the
        # injected incident's notifications only (an alert at its switch): background congestion elsewhere is
        # an incident of its own, which may be notified first
        node = json.load(open(os.path.join(d, "truth.json")))["events"][0]["place"]["node"]

        def incidents():
            return [n["body"]["alerts"] for n in rx.notes
                    if n["body"]["status"] == "firing" and n["body"]["receiver"] == "hopwatch-webhook" and
                    any(a["labels"].get("node_name") == node for a in n["body"]["alerts"])]
        for _ in range(300):  # the group's flush: 1 s after its first alert; up to 30 s on a loaded host
            if incidents():
                break
            time.sleep(0.1)
        time.sleep(0.5)
        firing = incidents()
        assert firing, "no incident notification reached the webhook"
        groups = json.load(urllib.request.urlopen(url + "/api/v2/alerts/groups?receiver=hopwatch-webhook"))
        inc = [g for g in groups if g["labels"].get("incident") == firing[0][0]["labels"]["incident"]]
        assert len(inc) == 1, groups
        return firing, inc[0]["alerts"]
    finally:
        am.terminate()
        am.wait()
        rx.close()


def route_check(tmp):
    """The shipped route and inhibit rule on hand-made alerts labelled as the analyzer labels them
    (docs/analyzer.md, Labels): which receiver groups each, by what, and which are inhibited."""
    rx = notifications.Receiver()
    am, url = notifications.start_am(am_bin, tmp, rx.port)
    try:
        now = time.time()
        iso = lambda t: time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))  # noqa: E731

        def alert(name, node, port, queue, incident, **extra):
            lab = {"alertname": name, "severity": "info" if name == "Microburst" else "warning",
                   "job": "hopwatch-analyzer", "node": node, "port": port, "queue": queue, "incident": incident}
            lab.update(extra)
            return {"labels": lab, "annotations": {"summary": name + " at " + node}, "startsAt": iso(now - 1),
                    "endsAt": iso(now + 120)}
        alerts = [
            # two bursts at leaf2 (10.255.1.2), each its own incident: one digest group for the switch
            alert("Microburst", "10.255.1.2", "Ethernet1", "3", "2026-01-01T00:00:00.002Z"),
            alert("Microburst", "10.255.1.2", "Ethernet5", "0", "2026-01-01T00:00:04.000Z"),
            # a burst at leaf3 inside an incast's incident: inhibited by it, never in the digest
            alert("Microburst", "10.255.1.3", "Ethernet4", "3", "2026-01-01T00:00:09.000Z"),
            alert("Incast", "10.255.1.3", "Ethernet4", "3", "2026-01-01T00:00:09.000Z", instance="leaf3:Ethernet4"),
            alert("HighQueue", "10.255.1.2", "Ethernet1", "3", "2026-01-01T00:00:00.002Z"),
        ]
        req = urllib.request.Request(url + "/api/v2/alerts", json.dumps(alerts).encode(),
                                     {"Content-Type": "application/json"})
        urllib.request.urlopen(req).read()
        # by hand: the digest groups by node alone (both leaf2 bursts, active), the leaf3 burst is suppressed
        # by the Incast of its incident (still listed in its node's digest group); the Incast notifies by
        # incident; the HighQueue is listed under hopwatch-silent, grouped by the default route's labels
        want = [
            ("hopwatch-burst-digest", (("node", "10.255.1.2"),),
             (("Microburst", "Ethernet1", "active"), ("Microburst", "Ethernet5", "active"))),
            ("hopwatch-burst-digest", (("node", "10.255.1.3"),), (("Microburst", "Ethernet4", "suppressed"),)),
            ("hopwatch-silent", (("alertname", "HighQueue"), ("node", "10.255.1.2"), ("port", "Ethernet1"),
                                 ("queue", "3")), (("HighQueue", "Ethernet1", "active"),)),
            ("hopwatch-webhook", (("incident", "2026-01-01T00:00:09.000Z"),), (("Incast", "Ethernet4", "active"),)),
        ]
        got = None
        # Alertmanager's dispatcher and inhibitor take the posted alerts asynchronously: groups appear one by
        # one and the burst's suppression comes later; listed again until they settle as derived, up to 10 s
        # on a loaded host (a group that never forms, or forms wrong, still fails below)
        for _ in range(100):
            groups = json.load(urllib.request.urlopen(url + "/api/v2/alerts/groups"))
            got = sorted((g["receiver"]["name"], tuple(sorted(g["labels"].items())),
                          tuple(sorted((a["labels"]["alertname"], a["labels"]["port"], a["status"]["state"])
                                       for a in g["alerts"]))) for g in groups)
            if got == want:
                break
            time.sleep(0.1)
        assert got == want, "route: Alertmanager groups\n%s\nexpected\n%s" % (got, want)
        print("route: bursts digested per switch, inhibited inside an incident; symptoms silent; incidents notify")
    finally:
        am.terminate()
        am.wait()
        rx.close()


with tempfile.TemporaryDirectory() as tmp:
    route_check(tmp)
    # 1. live: records from E, 8 s ahead (gen and Alertmanager start meanwhile); the analyzer starts at E
    E = (int(time.time()) + 8) * 1000000000
    d = os.path.join(tmp, "live")
    subprocess.run([gen, "scenario", "incast", "--seed", "2", "--epoch-ns", str(E), "--out", d, "--write-records"],
                   check=True, stdout=subprocess.DEVNULL)
    truth = json.load(open(os.path.join(d, "truth.json")))
    firing, group = through_am(d, True)
    first = firing[0]
    if any(a["labels"]["alertname"] == "Incast" for a in first):
        check(first, truth, "live, the first notification")
    else:  # the Incast came after the group's flush: the tree leads, at the culprit
        p = truth["events"][0]["place"]
        lead = "CongestionTree: culprit %s (%s) port %s queue %d" % (p["node"], p["mgmt"], p["ifname"], p["queue"])
        s = first[0]["annotations"]["summary"]
        print("live, the first notification: %s (the Incast came after its flush)" % s)
        assert s.startswith(lead), s
    # the group as Alertmanager lists it (its next notification's order), all alerts in
    check(group, truth, "live, the group in Alertmanager")
    # 2. a replay of older records (the generator's default epoch, 2026-01-01)
    d = os.path.join(tmp, "replay")
    subprocess.run([gen, "scenario", "incast", "--seed", "2", "--out", d, "--write-records"], check=True,
                   stdout=subprocess.DEVNULL)
    firing, group = through_am(d, False)
    check(firing[0], json.load(open(os.path.join(d, "truth.json"))), "replay, the first notification")
print("PASS")
