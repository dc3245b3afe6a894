#!/usr/bin/env bash
# Alerts that reach people, end to end (issue 16): an incast and, 3 s later, a PFC storm are sent as INT
# reports into a veth pair; the collector captures them live (its /metrics scraped by Prometheus) and
# writes records; the analyzer replays them at their recorded pace (--pace recorded) into Alertmanager
# running the shipped deploy/alertmanager/alertmanager.yml (only the receiver URL changed), whose webhook
# goes to a python http.server.  Checks: exactly one notification per injected incident (with an alert at its
# switch; background congestion elsewhere is an incident of its own), within 2 s of
# its start, in Alertmanager's webhook format, its summary naming the switch and port with units and a
# UTC time (the storm's first alert leading with the culprit queue, then its victims), its link fetching the SVG over HTTP,
# the incast's saying as many sources as the scenario had senders (updated while it grew); an analyzer restart notifies nothing for links already
# up; Prometheus scrapes both programs and the same node and node_name label values are on both (the
# collector names nodes from `hopwatch-analyzer topology --names-out`) and on the alert.
# Usage: alerts_e2e.sh HOPWATCH-GEN HOPWATCH-COLLECTOR HOPWATCH-ANALYZER HOPWATCH-RECORDS SEND_PCAP.PY SRC
set -u
gen=$1 col=$2 an=$3 recs=$4 send=$5 src=$6
. "$src/tests/collector/lib.sh"
need_root
am_bin=$(command -v alertmanager || command -v prometheus-alertmanager) || skip "alertmanager is not installed"
prom_bin=$(command -v prometheus) || skip "prometheus is not installed"
ns=hwt-alerts-$$
T=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do stop_pid "$p"; done
  ip netns del "$ns" 2>/dev/null
  rm -rf "$T"
}
trap cleanup EXIT
make_veth_ns "$ns"
in_ns() { ip netns exec "$ns" "$@"; } # backgrounded: ip netns exec itself, so $! is the program
# ports inside the namespace (its own loopback: nothing else listens there)
RP=19095 AMP=19093 CP=19464 AP=19465 PP=19090

# 1. the incidents: an incast (host1) and, 3 s later, a PFC storm (host20), in one capture whose times
# start E, about 25 s from now: the replay starts at E, so record time is wall time as when live
E=$(( ($(date +%s) + 25) * 1000000000 ))
"$gen" scenario incast --out "$T/inc" --epoch-ns $E >/dev/null 2>&1 || fail "hopwatch-gen scenario incast"
"$gen" scenario pfc-storm --out "$T/pfc" --epoch-ns $((E + 3000000000)) >/dev/null 2>&1 ||
  fail "hopwatch-gen scenario pfc-storm"
python3 - "$T/inc/reports.pcap" "$T/pfc/reports.pcap" "$T/both.pcap" <<'PY'
import sys
a, b = open(sys.argv[1], "rb").read(), open(sys.argv[2], "rb").read()
assert a[:24] == b[:24]  # same link type and nanosecond stamps: b's records after a's
open(sys.argv[3], "wb").write(a + b[24:])
PY

# 2. the webhook receiver: every POST as one JSON line {"t": wall seconds, "body": ...}
cat >"$T/recv.py" <<'PY'
import http.server, json, sys, time
out = open(sys.argv[2], "a", buffering=1)
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        out.write(json.dumps({"t": time.time(), "body": json.loads(body)}) + "\n")
        self.send_response(200)
        self.end_headers()
    def log_message(self, *a):
        pass
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
PY
ip netns exec "$ns" python3 "$T/recv.py" $RP "$T/notes.jsonl" &
pids+=($!)

# 3. Alertmanager with the shipped configuration, only the receiver's URL changed
sed "s#url: 'http://127.0.0.1:9095/hopwatch/alerts'#url: 'http://127.0.0.1:$RP/'#" \
  "$src/deploy/alertmanager/alertmanager.yml" >"$T/am.yml"
cmp -s "$T/am.yml" "$src/deploy/alertmanager/alertmanager.yml" && fail "the receiver URL was not replaced"
ip netns exec "$ns" "$am_bin" --config.file="$T/am.yml" --storage.path="$T/am" --web.listen-address=127.0.0.1:$AMP \
  --cluster.listen-address= >"$T/am.log" 2>&1 &
pids+=($!)

# 4. Prometheus scraping the collector and the analyzer every second
cat >"$T/prom.yml" <<Y
global: {scrape_interval: 1s, evaluation_interval: 1s}
scrape_configs:
  - job_name: hopwatch-collector
    static_configs: [{targets: ['127.0.0.1:$CP']}]
  - job_name: hopwatch-analyzer
    static_configs: [{targets: ['127.0.0.1:$AP']}]
Y
ip netns exec "$ns" "$prom_bin" --config.file="$T/prom.yml" --storage.tsdb.path="$T/prom" --web.listen-address=127.0.0.1:$PP \
  >"$T/prom.log" 2>&1 &
pids+=($!)
for _ in $(seq 300); do
  in_ns curl -sf "127.0.0.1:$AMP/-/ready" >/dev/null && in_ns curl -sf "127.0.0.1:$PP/-/ready" >/dev/null && break
  sleep 0.1
done
in_ns curl -sf "127.0.0.1:$AMP/-/ready" >/dev/null || fail "Alertmanager did not start: $(tail -3 "$T/am.log")"
in_ns curl -sf "127.0.0.1:$PP/-/ready" >/dev/null || fail "Prometheus did not start: $(tail -3 "$T/prom.log")"
prom() { in_ns curl -sf "127.0.0.1:$PP/api/v1/query" --data-urlencode "query=$1"; }

# 5. the collector decodes the capture into record files; a second one captures the same reports live
# from a veth pair for Prometheus to scrape, naming nodes and ports from the topology's names file
mkdir -p "$T/rec"
"$col" --pcap "$T/both.pcap" --records-dir "$T/rec" >/dev/null 2>"$T/col1.err" || fail "hopwatch-collector --pcap"
"$an" topology --lldp "$T/inc/lldp.pcap" --map "$T/inc/map.json" --names-out "$T/names.tsv" --quiet >/dev/null ||
  fail "hopwatch-analyzer topology --names-out"
ip netns exec "$ns" "$col" --pcap rx0 --bpf "udp dst port 32766" --lossless --metrics 127.0.0.1:$CP \
  --names "$T/names.tsv" >/dev/null 2>"$T/col.err" &
cpid=$!
pids+=($cpid)
sleep 1
in_ns python3 "$send" tx0 "$T/inc/reports.pcap" 20000 >/dev/null || fail "sending the incast failed"
mgmt=$(python3 -c "import json,sys; print([e for e in json.load(open(sys.argv[1]))['events'] if e['kind']=='Incast'][0]['place']['mgmt'])" "$T/inc/truth.json")
for _ in $(seq 100); do # Prometheus's first scrapes
  q=$(prom "count(hopwatch_queue_reports_total{job=\"hopwatch-collector\",node=\"$mgmt\"})")
  echo "$q" | grep -q '"value":\[[0-9.]*,"[1-9]' && break
  sleep 0.1
done
echo "$q" | grep -q '"value":\[[0-9.]*,"[1-9]' ||
  fail "Prometheus has no collector series for node $mgmt: $q; $(tail -3 "$T/col.err")"
stop_pid "$cpid"
ls "$T"/rec/*.hwr >/dev/null 2>&1 || fail "the collector wrote no record file: $(tail -3 "$T/col.err")"
first_ns=$("$recs" "$T"/rec/*.hwr 2>/dev/null | head -1 | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["time_ns"])')

# 6. at the first record's time the analyzer starts replaying the records at their pace into
# Alertmanager, serving /metrics and the graphs
now=$(date +%s%N)
[ "$now" -lt "$first_ns" ] || fail "setting up took more than 25 s"
sleep "$(python3 -c "print(($first_ns - $now) / 1e9)")"
t0=$(date +%s.%N)
ip netns exec "$ns" "$an" run --records "$T"/rec/*.hwr --pace recorded --lldp "$T/inc/lldp.pcap" --map "$T/inc/map.json" \
  --alertmanager http://127.0.0.1:$AMP --metrics 127.0.0.1:$AP --svg-dir "$T/svg" --events "$T/ev.jsonl" \
  --hold 12 --quiet 2>"$T/an.err" &
apid=$!
pids+=($apid)
sleep 8 # the incidents, Alertmanager's group_wait (1 s), delivery
q=$(prom 'max_over_time(sum(hopwatch_analyzer_incidents_active)[30s:1s])')
echo "$q" | grep -q '"value":\[[0-9.]*,"[1-9]' || fail "the active-incident panels would read 0: $q"
prom "hopwatch_analyzer_node_info{node=\"$mgmt\"}" | grep -q "\"node_name\"" ||
  fail "Prometheus has no analyzer series with node=\"$mgmt\""
# one name for each switch: the incast's switch carries the same node and node_name label values on the
# collector's series and the analyzer's (the alert's are checked below); its name from truth.json
inc_node=$(python3 -c "import json,sys; print([e for e in json.load(open(sys.argv[1]))['events'] if e['kind']=='Incast'][0]['place']['node'])" "$T/inc/truth.json")
for job in hopwatch-collector hopwatch-analyzer; do
  series=hopwatch_queue_reports_total
  [ $job = hopwatch-analyzer ] && series=hopwatch_analyzer_node_info
  q=$(prom "count(last_over_time($series{job=\"$job\",node=\"$mgmt\",node_name=\"$inc_node\"}[5m]))")
  echo "$q" | grep -q '"value":\[[0-9.]*,"[1-9]' ||
    fail "$job: no series with node=\"$mgmt\" and node_name=\"$inc_node\": $q"
done
echo "node=\"$mgmt\" node_name=\"$inc_node\" on the collector's and the analyzer's series"
# the notifications, while the analyzer still serves the graphs
in_ns python3 - "$T/notes.jsonl" "$T/inc/truth.json" "$T/pfc/truth.json" "$t0" "$first_ns" "http://127.0.0.1:$AMP" \
  >"$T/check.out" 2>&1 <<'PY' || { cat "$T/check.out"; fail "notifications"; }
import datetime, json, re, sys, urllib.request
notes_p, inc_p, pfc_p, t0, first_ns, am_url = sys.argv[1:7]
t0, first_ns = float(t0), int(first_ns)
starts = [json.load(open(p))["events"][0]["start_ns"] for p in (inc_p, pfc_p)]  # injected, record time
notes = [json.loads(l) for l in open(notes_p)]
def rec_ns(ts):  # RFC 3339 with 9 fraction digits -> ns
    d, frac = ts.rstrip("Z").split(".")
    s = datetime.datetime.strptime(d, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=datetime.timezone.utc).timestamp()
    return int(s) * 1000000000 + int(frac.ljust(9, "0")[:9])
for n in notes:  # Alertmanager's webhook format, version 4
    b = n["body"]
    for k in ("version", "receiver", "status", "alerts", "groupLabels", "commonLabels", "commonAnnotations",
              "externalURL", "groupKey"):
        assert k in b, (k, sorted(b))
    assert b["version"] == "4", b["version"]
    for a in b["alerts"]:
        for k in ("status", "labels", "annotations", "startsAt", "endsAt", "generatorURL", "fingerprint"):
            assert k in a, (k, sorted(a))
firing = [n for n in notes if n["body"]["status"] == "firing"]
print("notifications:", len(notes), "firing:", len(firing))
for n in firing:
    a = n["body"]["alerts"][0]
    print("  +%.2f s (wall since replay start): %d alert(s), first: %s" % (n["t"] - t0, len(n["body"]["alerts"]),
                                                                         a["annotations"]["summary"]))
bad = []
units = re.compile(r"\d (B|kB|MB|GB|ns|µs|ms|s|%)\b")
for i, (name, truth_p) in enumerate((("incast", inc_p), ("PFC storm", pfc_p))):
    place = json.load(open(truth_p))["events"][0]["place"]
    lo = starts[i] - 1000000000 if i else 0  # alerts of this incident: from 1 s before it to the next
    hi = starts[i + 1] - 1000000000 if i + 1 < len(starts) else 1 << 63
    # its notifications: those with an alert at its switch raised in its window; the fabric's background
    # congestion elsewhere then is an incident of its own (the sink's label joins only alerts that share a
    # switch or a flow), printed, not counted
    win = [n for n in firing if any(lo <= rec_ns(a["startsAt"]) < hi for a in n["body"]["alerts"])]
    mine = [n for n in win if any(lo <= rec_ns(a["startsAt"]) < hi and a["labels"].get("node_name") == place["node"]
                                  for a in n["body"]["alerts"])]
    for n in win:
        if n not in mine:
            print("%s: another incident in its window: %s" % (name, n["body"]["alerts"][0]["annotations"]["summary"]))
    wall_start = t0 + (starts[i] - first_ns) / 1e9  # --pace recorded: record time since the first record
    if len(mine) != 1:
        bad.append("%s: %d notifications, expected 1" % (name, len(mine)))
    for n in mine[:1]:
        delay = n["t"] - wall_start
        a = n["body"]["alerts"][0]
        l, an = a["labels"], a["annotations"]
        print("%s: notified %.2f s after it began; first alert %s at %s port %s (truth: %s %s)" % (
            name, delay, l["alertname"], l.get("node_name"), l.get("port"), place["node"], place["ifname"]))
        if delay > 2.0:
            bad.append("%s: notified %.2f s after its start" % (name, delay))
        s = an["summary"]
        if not (l.get("node_name", "~") in s and "port " + l.get("port", "~") in s and units.search(s) and "UTC" in s):
            bad.append("%s: summary lacks the place, units or a UTC time: %s" % (name, s))
        if l.get("node") != "%d.%d.%d.%d" % tuple(int(l["node_id"]) >> k & 255 for k in (24, 16, 8, 0)):
            bad.append("%s: node label %s is not the dotted node id" % (name, l.get("node")))
        # one name for each switch: an alert at the injected switch has the node label value the
        # collector's series carry for it (its management address, checked in Prometheus above)
        for x in n["body"]["alerts"]:
            xl = x["labels"]
            if i == 0 and xl.get("node_name") == place["node"] and xl.get("node") != place["mgmt"]:
                bad.append("%s: alert labels node=%s node_name=%s, the collector's series carry node=%s" % (
                    name, xl.get("node"), xl.get("node_name"), place["mgmt"]))
        if name == "PFC storm":  # its tree leads with the culprit, the root queue, then names the victims
            lead = "CongestionTree: culprit %s (" % place["node"]
            where = "port %s queue %d" % (place["ifname"], place["queue"])
            ok = lambda s: s.startswith(lead) and where in s.split(";")[0] and re.search(r"; victims \(\d+, queue %d\): \S+ " % place["queue"], s)
            if l["alertname"] == "CongestionTree" and not ok(s):  # in the notification: first (by alertname)
                bad.append("%s: the first alert does not lead with the culprit %s %s and name victims: %s" % (
                    name, place["node"], where, s))
            # the tree may be raised after the group's first flush (then it goes out with the next one):
            # Alertmanager holds it either way
            am = json.load(urllib.request.urlopen(am_url + "/api/v2/alerts?filter=alertname%3D%22CongestionTree%22"))
            trees = [x["annotations"]["summary"] for x in am if x["labels"].get("node_name") == place["node"]
                     and x["labels"].get("port") == place["ifname"]]
            print("  its CongestionTree in Alertmanager:", trees)
            if not trees or not all(ok(t) for t in trees):
                bad.append("%s: no CongestionTree at the culprit leading with it: %s" % (name, trees))
        url = a["generatorURL"]
        try:
            r = urllib.request.urlopen(url, timeout=5)
            body = r.read()
            if r.headers.get("Content-Type") != "image/svg+xml" or b"<svg" not in body:
                bad.append("%s: %s is not an SVG" % (name, url))
        except Exception as e:
            bad.append("%s: %s: %s" % (name, url, e))
        at = [x["labels"]["alertname"] for x in n["body"]["alerts"]
              if (x["labels"].get("node_name"), x["labels"].get("port")) == (place["node"], place["ifname"])]
        print("  %d alerts in it (incident %s); at the injected place %s %s: %s" % (
            len(n["body"]["alerts"]), l.get("incident"), place["node"], place["ifname"], ", ".join(at) or "none"))
        if not at:
            bad.append("%s: no alert at the injected place" % name)
        if i == 0:  # the incast grew while it fired: its first notification says how many senders it had
            truth = json.load(open(truth_p))
            ev = truth["events"][0]
            senders = ev["senders"]  # gen/scenario/events.c: 16 senders
            # the queue also carries the RoCE flows to the same host that were running then (a background
            # flow from host2 in this scenario): distinct sources there at most
            roce = [f for f in truth["flows"] if f["dst"] == place["host"] and f["kind"] == "roce" and
                    truth["model"]["roce_queue"] == place["queue"] and f["start_ns"] < ev["end_ns"] and
                    f["end_ns"] > ev["start_ns"]]
            most = len({f["src"] for f in roce})
            inc = [x for x in n["body"]["alerts"] if x["labels"]["alertname"] == "Incast"]
            said = sorted({int(x["annotations"].get("sources", "0")) for x in inc})
            print("  Incast sources in the notification: %s (truth: %d senders, %d sources on the queue)" % (
                ", ".join(map(str, said)), senders, most))
            if not inc or any(not senders <= k <= most for k in said):
                bad.append("%s: the notification says sources %s, the scenario had %d senders (%d sources on its "
                           "queue)" % (name, said, senders, most))
            for x in inc:
                if not re.search(r"sources (%s)\b" % "|".join(map(str, range(senders, most + 1))),
                                 x["annotations"]["summary"]):
                    bad.append("%s: summary does not say sources %d..%d: %s" % (name, senders, most,
                                                                               x["annotations"]["summary"]))
print("\n".join("FAIL " + b for b in bad) or "all incidents: one notification each, in time, readable, linked")
sys.exit(1 if bad else 0)
PY
cat "$T/check.out"
wait "$apid"; pids=("${pids[@]/$apid}")

# 7. a restart: the analyzer loads the same topology (every link up) and has nothing to report
n_before=$(wc -l <"$T/notes.jsonl")
: >"$T/empty.jsonl"
in_ns "$an" run --json "$T/empty.jsonl" --lldp "$T/inc/lldp.pcap" --map "$T/inc/map.json" \
  --alertmanager http://127.0.0.1:$AMP --events "$T/ev2.jsonl" --hold 2 --quiet || fail "analyzer restart"
grep -q '"LinkUp"' "$T/ev2.jsonl" || fail "the restart's events file has no LinkUp (the baseline)"
in_ns curl -sf "127.0.0.1:$AMP/api/v2/alerts?filter=alertname%3D%22LinkUp%22" >"$T/linkup.json"
[ "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$T/linkup.json")" -eq 0 ] ||
  fail "Alertmanager holds LinkUp alerts after a restart"
sleep 2
[ "$(wc -l <"$T/notes.jsonl")" -eq "$n_before" ] || fail "the restart sent notifications: $(tail -1 "$T/notes.jsonl")"
echo "restart: LinkUp in the events file only, no alert, no notification"
echo PASS
