#!/usr/bin/env bash
# hopwatch-gen scenario: bad options are errors that say what is wrong (exit 2); the same seed gives the
# same files; truth.json lists exactly the events that were injected.
# Usage: scen_cli.sh HOPWATCH-GEN
set -u
. "$(dirname "$0")/lib.sh"
gen=$1
command -v jq >/dev/null || skip "jq missing"

# expect_error WANT-IN-MESSAGE ARGS...: exit status 2 and the message on stderr
expect_error() {
  local want=$1; shift
  "$gen" scenario "$@" --out "$dir/bad" >/dev/null 2>"$dir/err"
  local rc=$?
  [ $rc = 2 ] || fail "$*: exit status $rc, want 2"
  grep -qF -- "$want" "$dir/err" || fail "$*: message '$(cat "$dir/err")' does not say '$want'"
}
expect_error "nosuch: unknown scenario" nosuch
expect_error "host99: no such node" clean --event incast:dst=host99
expect_error "leaf1 is a switch, this event needs a host" clean --event pfc-storm:host=leaf1
expect_error "cannot send faster than its 100 Gb/s host link" clean --event incast:dst=host1,gbps=150
expect_error "--load: '1.5' is not a number from 0 to 1" clean --load 1.5
expect_error "exceed the host link" clean --load 0.8 --tcp-load 0.3
expect_error "no such port" clean --event link-down:link=leaf1:Ethernet77
expect_error "after the run ends" clean --event incast:dst=host1,start_us=9000
expect_error "k must be even" clean --topology fat-tree:7
expect_error "not leaf-spine" clean --topology ring:5
expect_error "unknown event kind" clean --event meteor:dst=host1
expect_error "--format: 'tr3.0' is not \"tr2.0\", \"tr1.0\" or \"tr0.5\"" clean --format tr3.0
"$gen" scenario --list | grep -q "fat-tree-mix" || fail "--list does not name fat-tree-mix"
for n in clean incast microburst link-down pfc-storm dscp-misconfig report-loss mtu-mismatch buildup fat-tree-mix; do
  "$gen" scenario --list | grep -q "^  $n " || fail "--list lacks $n"
done
echo "ok errors name what is wrong"

# determinism: every output file is identical for the same seed, and differs for another seed
"$gen" scenario fat-tree-mix --write-records --out "$dir/a" --quiet || fail "fat-tree-mix failed"
"$gen" scenario fat-tree-mix --write-records --out "$dir/b" --quiet || fail "fat-tree-mix failed"
diff -r "$dir/a" "$dir/b" >/dev/null || fail "two runs with seed 1 differ"
"$gen" scenario fat-tree-mix --seed 2 --out "$dir/c" --quiet || fail "seed 2 failed"
cmp -s "$dir/a/reports.pcap" "$dir/c/reports.pcap" && fail "seeds 1 and 2 gave the same reports"
echo "ok same seed, same files"

# truth.json: the events injected, no others, each with kind, place, times and flows
kinds() { jq -r '[.events[].kind] | join(",")' "$1/truth.json"; }
"$gen" scenario clean --out "$dir/clean" --quiet && [ "$(kinds "$dir/clean")" = "" ] || fail "clean lists events"
"$gen" scenario incast --no-events --out "$dir/ne" --quiet && [ "$(kinds "$dir/ne")" = "" ] ||
  fail "--no-events lists events"
[ "$(kinds "$dir/a")" = "Incast,Microburst,PathChange,CongestionTree,TelemetryReportLoss,MtuMismatch" ] ||
  fail "fat-tree-mix events: $(kinds "$dir/a")"
"$gen" scenario clean --event dscp-misconfig:host=host3 --event report-loss:node=spine2,fraction=0.5 \
  --out "$dir/two" --quiet || fail "custom events failed"
[ "$(kinds "$dir/two")" = "RoceDscpMismatch,TelemetryReportLoss" ] || fail "custom events: $(kinds "$dir/two")"
for d in a two; do
  jq -e '.events | all(has("kind") and has("place") and (.start_ns < .end_ns) and (.affected_flows|type=="array"))' \
    "$dir/$d/truth.json" >/dev/null || fail "$d: an event lacks kind, place, times or flows"
done
# the affected flows exist, and a link-down's flows really changed path during the event
jq -e '(.flows | map(.id)) as $ids | [.events[].affected_flows[].id] | all(. as $i | $ids | index($i))' \
  "$dir/a/truth.json" >/dev/null || fail "an affected flow is not in flows"
jq -e '(.events[] | select(.kind=="PathChange")) as $e | [$e.affected_flows[].id] as $ids |
  [.flows[] | select(.id as $i | $ids | index($i)) | (.paths | length) >= 2] | all and length > 0' \
  "$dir/a/truth.json" >/dev/null || fail "PathChange flows without a second path"
echo "ok truth.json lists the injected events"

# the incast's truth lists the PFC tree it spreads into, every member a queue of the RoCE class, and the
# buildup scenario is a slow linear ramp: 8 senders at 13.5 Gb/s into a 100 Gb/s link (host38 receives no
# background traffic) overfill it by 8 Gb/s = 1000 bytes per us, seen in the records of its place
jq -e '[.events[] | select(.kind=="Incast") | .effects.paused_queues | length > 0 and all(.queue == 3)] | all' \
  "$dir/a/truth.json" >/dev/null || fail "fat-tree-mix: an Incast without its PFC tree"
"$gen" scenario buildup --write-records --out "$dir/bu" --quiet || fail "buildup failed"
python3 - "$dir/bu" <<'PY' || fail "buildup: the queue does not climb 1000 bytes per us"
import json, sys
t = json.load(open(sys.argv[1] + "/truth.json"))
e = t["events"][0]
p, t0 = e["place"], e["start_ns"]
pts = []
for line in open(sys.argv[1] + "/records.jsonl"):
    r = json.loads(line)
    if (r["node_id"], r.get("egress_port"), r.get("queue_id")) == (p["node_id"], p["port"], p["queue"]):
        if t0 + 300000 <= r["time_ns"] <= t0 + 900000:
            pts.append((r["time_ns"], r["queue_occupancy"]))
(ta, va), (tb, vb) = pts[0], pts[-1]
rate = (vb - va) / ((tb - ta) / 1e3)
print(f"buildup: {p['node']}:{p['ifname']}/{p['queue']} climbs {rate:.0f} bytes/us over {len(pts)} records")
sys.exit(0 if e["kind"] == "Incast" and len(pts) > 20 and abs(rate - 1000) < 20 else 1)
PY
echo "ok incast trees and the buildup ramp"
