#!/usr/bin/env bash
# Issue 22, hostile record input to `hopwatch-analyzer run`: a record at time_ns 2^64 - 1 with --svg-dir
# (item 1: hung for good), one far-future record among normal ones (item 6: it ruled the clock), u64
# values above 2^63 in JSON lines (item 12: refused), and a password in the Alertmanager and webhook URLs
# (item 12: printed in error messages).  Every run is bounded by timeout.
# Usage: hostile_input.sh HOPWATCH-GEN HOPWATCH-ANALYZER SOURCE_ROOT
set -u
gen=$(realpath "$1") an=$(realpath "$2") src=$(realpath "$3")
. "$src/tests/analyzer/lib.sh"
in_scenario incast "$gen"
cfg=$src/data/samples/incast/analyzer.json
run() { # name, then the --jsonl files; 120 s is far above the ~1 s a run takes, and a hang never ends
  local name=$1
  shift
  timeout -s KILL 120 "$an" run --jsonl "$@" --lldp lldp.pcap --map map.json --config "$cfg" \
    --events "$name.events" --svg-dir "svg-$name" --svg-every 0.001 --svg-rate 0 --summary-json - 2>"$name.err"
  local rc=$?
  [ $rc -eq 0 ] || { tail -5 "$name.err"; fail "$name: exit $rc (137: killed after 120 s, a hang)"; }
  grep '^{"records"' "$name.err" >"$name.summary" || fail "$name: no summary line"
}
same_events() { # the events of two runs, but for the SVG file names (in each run's own --svg-dir)
  python3 - "$1.events" "$2.events" <<'PY' || fail "events of $2 differ from $1"
import json, sys
a, b = ([{k: v for k, v in json.loads(l).items() if k != "svg"} for l in open(p)] for p in sys.argv[1:])
for i, (x, y) in enumerate(zip(a, b)):
    if x != y:
        sys.exit(f"event {i}: {x} != {y}")
if len(a) != len(b):
    sys.exit(f"{len(a)} events != {len(b)}")
PY
}
field() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1.summary" "$2"; }
n=$(wc -l <records.jsonl)

echo "== baseline"
run base records.jsonl
[ "$(field base records_set_aside)" = 0 ] || fail "baseline set records aside: $(cat base.summary)"
[ -s base.events ] || fail "the incast scenario raised no events"

echo "== item 6: one record an hour ahead, in the middle of the run, changes no event"
python3 - "$n" <<'PY'
import json, sys
lines = open("records.jsonl").read().splitlines(True)
mid = int(sys.argv[1]) // 2
r = json.loads(lines[mid])
r["time_ns"] += 3600 * 10**9  # an hour ahead
r["report_seq"] = (r["report_seq"] + 12345) % (1 << 22)  # a report of its own
open("future.jsonl", "w").writelines(lines[:mid] + [json.dumps(r) + "\n"] + lines[mid:])
PY
run future future.jsonl
same_events base future
# one record counted (n + 1) and set aside; no jump of the clock
[ "$(field future records)" = $((n + 1)) ] || fail "records $(field future records), expected $((n + 1))"
[ "$(field future records_set_aside)" = 1 ] || fail "records_set_aside $(field future records_set_aside), expected 1"
[ "$(field future clock_jumps)" = 0 ] || fail "clock_jumps $(field future clock_jumps), expected 0"

echo "== items 1 and 12: a first record at time_ns 2^64 - 1, alone in its batch (its own file), with --svg-dir"
head -1 records.jsonl | python3 -c '
import json, sys
r = json.loads(sys.stdin.read())
r["time_ns"] = 2**64 - 1
r["ingress_ts"] = 2**64 - 1
r["report_seq"] = 4000000
print(json.dumps(r))' >max.jsonl
grep -q '"time_ns": 18446744073709551615' max.jsonl || fail "max.jsonl: $(cat max.jsonl)"
run max max.jsonl --jsonl records.jsonl
# the second report moved the clock back to the scenario's time: one jump, nothing set aside, and the
# periodic heat map was drawn on the grid that started again (a 5 ms scenario, --svg-every 1 ms)
[ "$(field max clock_jumps)" = 1 ] || fail "clock_jumps $(field max clock_jumps), expected 1"
[ "$(field max records_set_aside)" = 0 ] || fail "records_set_aside $(field max records_set_aside), expected 0"
[ "$(field max records)" = $((n + 1)) ] || fail "records $(field max records), expected $((n + 1))"
ls svg-max | grep -q heatmap || fail "no heat map in svg-max: $(ls svg-max)"

echo "== item 6: the same record at 2^64 - 1 in the middle of the run is set aside"
python3 - "$n" <<'PY'
lines = open("records.jsonl").read().splitlines(True)
mid = int(__import__("sys").argv[1]) // 2
open("maxmid.jsonl", "w").writelines(lines[:mid] + open("max.jsonl").readlines() + lines[mid:])
PY
run maxmid maxmid.jsonl
same_events base maxmid
[ "$(field maxmid records_set_aside)" = 1 ] || fail "records_set_aside $(field maxmid records_set_aside), expected 1"
echo "== item 12: a password in an Alertmanager or webhook URL is never printed"
timeout -s KILL 120 "$an" run --jsonl records.jsonl --alertmanager "htp://hw:s3cretAM@127.0.0.1/" 2>badurl.err
rc=$?
[ $rc -eq 2 ] || { cat badurl.err; fail "a URL that is not http(s): exit $rc, want 2"; }
grep -q 'hw:\*\*\*@127.0.0.1' badurl.err || { cat badurl.err; fail "the refusal does not name the URL"; }
grep -q s3cretAM badurl.err && fail "the Alertmanager password was printed: $(cat badurl.err)"
# a webhook on a port nothing listens on: every post fails and the peer is reported down, by its URL
closed=$(free_port)
timeout -s KILL 120 "$an" run --jsonl records.jsonl --lldp lldp.pcap --map map.json --config "$cfg" \
  --webhook "http://hw:s3cretWH@127.0.0.1:$closed/hook?password=s3cretQ" >/dev/null 2>down.err
rc=$?
[ $rc -eq 1 ] || { tail -5 down.err; fail "alerts undelivered to a closed port: exit $rc, want 1"; }
grep -q 'hw:\*\*\*@127.0.0.1' down.err || { cat down.err; fail "no message names the webhook that is down"; }
grep -q 's3cret' down.err && fail "a webhook password was printed: $(grep s3cret down.err)"
echo "PASS"
