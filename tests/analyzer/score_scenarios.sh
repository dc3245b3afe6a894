#!/usr/bin/env bash
# Detection against ground truth: every named scenario is generated, its hop records replayed through
# the analyzer, and tools/score_events.py prints precision and recall per detector (against truth.json,
# and for HighQueue/QueueBuildup against the records), CongestionTree's victims and the QueueBuildup lead
# time on every injected ramp, all with the default configuration (thresholds derived from the fabric).
# Fails when: the clean scenario raises anything; an injected event below is
# not found at its place and time; a CongestionTree is raised where the truth has no congestion tree, or
# names a victim outside the truth's tree of paused queues; or
# QueueBuildup does not fire strictly before a ramp's queue first crosses HighQueue's threshold in the
# records (where the records show the queue between queue_buildup.from x the threshold and it first and, at a
# lossless queue, queue_buildup.min_flows flows within the window before it).  Usage: score_scenarios.sh HOPWATCH-GEN HOPWATCH-ANALYZER SOURCE_ROOT
set -u
gen=$1 an=$2 src=$3
fail() { echo "FAIL: $*"; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# scenario and the kind that must be detected (recall 1/1)
must=(clean: incast:Incast microburst:Microburst link-down:PathChange dscp-misconfig:RoceDscpMismatch
  report-loss:TelemetryReportLoss mtu-mismatch:MtuMismatch pfc-storm:CongestionTree buildup:Incast)
status=0
ramps=0
for m in "${must[@]}"; do
  s=${m%%:*} kind=${m#*:}
  mkdir -p "$dir/$s"
  "$gen" scenario "$s" --out "$dir/$s" --write-records >/dev/null 2>&1 || fail "scenario $s failed"
  "$an" run --jsonl "$dir/$s/records.jsonl" --lldp "$dir/$s/lldp.pcap" --map "$dir/$s/map.json" \
    --events "$dir/$s/events.jsonl" --quiet 2>"$dir/$s/an.err" ||
    { cat "$dir/$s/an.err"; fail "analyzer failed on $s"; }
  score=(python3 "$src/tools/score_events.py" "$dir/$s/truth.json" "$dir/$s/events.jsonl"
    --records "$dir/$s/records.jsonl")
  "${score[@]}" || fail "score_events.py failed on $s"
  "${score[@]}" --json >"$dir/$s/score.json" || fail "score_events.py --json failed on $s"
  python3 - "$dir/$s/score.json" "$s" "$kind" <<'EOF' || status=1
import json, sys
r, s, kind = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
bad = []
if s == "clean" and r["events_raised"] != 0:
    bad.append(f"the clean scenario raised {r['events_raised']} events")
k = r["kinds"].get(kind) if kind else None
if kind and not (k and k["injected"] >= 1 and k["detected"] == k["injected"]):
    # injected 0: the scorer judged the one injected event unobservable, which would make this check vacuous
    bad.append(f"{kind} not detected at its place and time" if k and k["injected"] else
               f"{kind}: no observable injected event to detect")
t = r["kinds"].get("CongestionTree")
if t and t.get("victims_in_tree") != t.get("victims_named"):
    bad.append(f"CongestionTree names {t['victims_named']} victims, only {t['victims_in_tree']} in the truth's tree")
d = r["detectors"].get("CongestionTree")
if d and d["precision"] != 1:
    bad.append(f"{d['raised'] - d['matched']} CongestionTree events neither injected nor at an injected event's PFC tree")
for m in r["ramps"]:
    if m["ramp"] and m["warnable"] and not (m["lead_ms"] is not None and m["lead_ms"] > 0):
        bad.append(f"QueueBuildup did not fire before {m['kind']} at {m['place']} crossed the threshold")
for b in bad:
    print(f"FAIL: {s}: {b}")
sys.exit(1 if bad else 0)
EOF
  ramps=$((ramps + $(python3 -c 'import json,sys; print(sum(m["ramp"] and m["warnable"] for m in json.load(open(sys.argv[1]))["ramps"]))' "$dir/$s/score.json")))
done
# the ramps the lead-time check covers: pfc-storm and buildup; the incast scenario's 16 x 25G fan-in goes
# from 0 to 206 KB to 619 KB in two 10 us samples, never seen between queue_buildup.from (0.75) x Xoff and
# Xoff, so QueueBuildup (which waits for that) cannot warn it; dscp-misconfig's incast reaches Xoff 37 us
# after it starts, before any sender's first sampled sink report: its records name one flow (the queue
# reports'), so QueueBuildup (queue_buildup.min_flows) cannot tell it from one flow held at Xoff by PFC
[ "$ramps" -ge 2 ] || { echo "FAIL: only $ramps ramps checked"; status=1; }
exit $status
