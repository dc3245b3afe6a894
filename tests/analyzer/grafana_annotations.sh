#!/usr/bin/env bash
# Grafana annotations from incidents (issue 16): every shipped dashboard has the incident annotation query
# on the analyzer's hopwatch_analyzer_incident_info, and what it names is what the analyzer serves: a
# replayed incast held open, its /metrics scraped, the series carries every label the annotation's title,
# text and tags use, and the text's graph link (instance + graph label) fetches the event's SVG.
# Usage: grafana_annotations.sh HOPWATCH-GEN HOPWATCH-ANALYZER SRC
set -u
gen=$1 an=$2 src=$3
. "$src/tests/collector/lib.sh"
command -v curl >/dev/null || skip "curl not installed"
T=$(mktemp -d)
cleanup() {
  stop_pid "${apid:-}"
  rm -rf "$T"
}
trap cleanup EXIT
AP=$(free_port)
"$gen" scenario incast --out "$T/s" --write-records >/dev/null 2>&1 || fail "hopwatch-gen scenario incast"
"$an" run --jsonl "$T/s/records.jsonl" --lldp "$T/s/lldp.pcap" --map "$T/s/map.json" --metrics "127.0.0.1:$AP" \
  --svg-dir "$T/svg" --events "$T/ev.jsonl" --hold 300 --quiet 2>"$T/an.err" &
apid=$!
ok=
for _ in $(seq 600); do # the replay, then the hold: the incast's episode stays open (record time stands still)
  curl --max-time 10 -sf "http://127.0.0.1:$AP/metrics" -o "$T/m.txt" &&
    grep -q '^hopwatch_analyzer_incident_info{alertname="Incast".*graph="/svg/' "$T/m.txt" && ok=1 && break
  sleep 0.2
done
[ -n "$ok" ] || { tail -3 "$T/an.err"; grep incident_info "$T/m.txt"; fail "no Incast incident_info with a graph"; }
python3 - "$T/m.txt" "127.0.0.1:$AP" "$T/ev.jsonl" "$src"/deploy/grafana/dashboards/*.json <<'PY'
import json, re, sys, urllib.request
metrics, instance, events, boards = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
bad = []
series = []
for line in open(metrics):
    m = re.match(r'hopwatch_analyzer_incident_info\{(.*)\} 1$', line.rstrip("\n"))
    if m:
        series.append(dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(1))))
# the incast as the events file has it: its episode's labels, from the event (not from /metrics)
inc = next(json.loads(l) for l in open(events) if '"Incast"' in l and '"firing"' in l)
want = {"alertname": "Incast", "severity": inc["severity"], "event_id": str(inc["id"]),
        "node": "%d.%d.%d.%d" % tuple(inc["node_id"] >> k & 255 for k in (24, 16, 8, 0)),
        "node_name": inc["node"], "port": inc["port_name"], "graph": "/svg/" + inc["svg"].rsplit("/", 1)[1]}
mine = [s for s in series if s.get("event_id") == want["event_id"] and s.get("alertname") == "Incast"]
if len(mine) != 1 or mine[0] != want:
    bad.append(f"incident_info for the incast: {mine}, expected {want}")
for path in boards:
    b = json.load(open(path))
    ann = [a for a in b.get("annotations", {}).get("list", []) if "hopwatch_analyzer_incident_info" in a.get("expr", "")]
    if len(ann) != 1:
        bad.append(f"{path}: {len(ann)} incident annotations, expected 1")
        continue
    a = ann[0]
    if not a.get("enable") or a.get("datasource", {}).get("uid") != "${datasource}":
        bad.append(f"{path}: the annotation is not enabled on the datasource variable: {a}")
    # every label the annotation shows is grouped by in its query and carried by the series (plus the
    # instance Prometheus adds on scraping)
    used = set(re.findall(r"\{\{(\w+)\}\}", a.get("titleFormat", "") + a.get("textFormat", "")))
    used |= set(filter(None, a.get("tagKeys", "").split(",")))
    by = set(re.search(r"by \(([^)]*)\)", a["expr"]).group(1).replace(" ", "").split(","))
    if not used <= by or not used - {"instance"} <= set(want):
        bad.append(f"{path}: the annotation uses labels {sorted(used)}; grouped by {sorted(by)}, served {sorted(want)}")
    if "{{alertname}}" not in a.get("titleFormat", ""):
        bad.append(f"{path}: title {a.get('titleFormat')!r} does not name the alert")
    link = re.search(r'href="([^"]+)"', a.get("textFormat", ""))
    if not link:
        bad.append(f"{path}: the annotation text has no link: {a.get('textFormat')!r}")
        continue
    url = re.sub(r"\{\{(\w+)\}\}", lambda m: instance if m.group(1) == "instance" else want.get(m.group(1), "?"),
                 link.group(1))
    try:
        r = urllib.request.urlopen(url, timeout=10)
        body = r.read()
        if r.headers.get("Content-Type") != "image/svg+xml" or b"<svg" not in body:
            bad.append(f"{path}: {url} is not an SVG")
    except Exception as e:
        bad.append(f"{path}: {url}: {e}")
for x in bad:
    print("FAIL: " + x)
print(f"{len(boards)} dashboards, {len(series)} incident_info series; the incast's: {mine}")
sys.exit(1 if bad else 0)
PY
rc=$?
[ $rc = 0 ] || exit $rc
echo PASS
