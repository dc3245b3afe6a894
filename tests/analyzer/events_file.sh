#!/usr/bin/env bash
# Issue 22 item 11: the --events file of a running analyzer holds every event of the batches it finished (it
# was written only at the end), and a restarted analyzer appends to it (it was truncated).
# Usage: events_file.sh HOPWATCH-GEN HOPWATCH-ANALYZER SOURCE_ROOT
set -u
gen=$(realpath "$1") an=$(realpath "$2") src=$(realpath "$3")
. "$src/tests/analyzer/lib.sh"
in_scenario incast "$gen"
topo=(--lldp lldp.pcap --map map.json --config "$src/data/samples/incast/analyzer.json")
# one batch of input (4096 records, the JSON-lines source's batch) from the incast itself (records 6000 on),
# then standard input stays open: the analyzer has ingested the batch and waits for more
sed -n '6001,10096p' records.jsonl >slice.jsonl
[ "$(wc -l <slice.jsonl)" = 4096 ] || fail "slice.jsonl: $(wc -l <slice.jsonl) lines"
port=$(free_port)
mkfifo in.fifo
"$an" run --jsonl - "${topo[@]}" --events events.jsonl --metrics "127.0.0.1:$port" --quiet <in.fifo 2>run.err &
an_pid=$!
exec 3>in.fifo # held open until the end: no end of input
cat slice.jsonl >&3
# /metrics counts the 4096 records and every detector event delivered (raised and resolved, by alert name;
# an update of a firing alert, "update": true in the file, is not counted again;
# the topology's own events at the start come before /metrics exists); the file must come to hold as many
# lines of those names while the analyzer runs.  Polled, at most 100 s.
counts() { # the events /metrics counts, and the file's lines of those alert names
  python3 - <<'PY'
import json, re
n, names = 0, set()
for m in re.finditer(r'^hopwatch_analyzer_events_total\{alertname="([^"]*)",[^}]*\} (\d+)$', open("page.txt").read(), re.M):
    names.add(m.group(1))
    n += int(m.group(2))
text = open("events.jsonl").read()
lines = [json.loads(l) for l in text.splitlines(True) if l.endswith("\n")]
print(n, sum(e["event"] in names and not e.get("update") for e in lines))  # an update is not counted again
PY
}
ok=
for _ in $(seq 1000); do
  kill -0 "$an_pid" 2>/dev/null || { cat run.err; fail "the analyzer exited"; }
  if curl -sf --max-time 30 "http://127.0.0.1:$port/metrics" >page.txt && grep -qx 'hopwatch_analyzer_records_total 4096' page.txt; then
    read -r ev inf < <(counts)
    if [ "$ev" -gt 0 ] && [ "$inf" = "$ev" ]; then ok=1; break; fi
  fi
  sleep 0.1
done
[ -n "$ok" ] || fail "events.jsonl has ${inf:-?} detector events while running, /metrics counts ${ev:-?}"
lines=$(wc -l <events.jsonl)
[ "$(tail -c 1 events.jsonl | od -An -c | tr -d ' ')" = '\n' ] || fail "events.jsonl ends inside a line"
python3 -c 'import json, sys; [json.loads(l) for l in open("events.jsonl")]' || fail "a line is not JSON"
echo "running: $lines events in the file, as /metrics counts"
# a crash keeps them: SIGKILL, then a restarted analyzer appends the whole run's events after them
kill -KILL "$an_pid"
wait "$an_pid" 2>/dev/null
an_pid=
exec 3>&-
cp events.jsonl first.jsonl
timeout -s KILL 120 "$an" run --jsonl records.jsonl "${topo[@]}" --events events.jsonl --quiet || fail "second run"
timeout -s KILL 120 "$an" run --jsonl records.jsonl "${topo[@]}" --events alone.jsonl --quiet || fail "reference run"
cat first.jsonl alone.jsonl | cmp -s - events.jsonl ||
  fail "events.jsonl is not the first run's $lines lines followed by the second run's $(wc -l <alone.jsonl)"
# a file that cannot take the events (a full disk: /dev/full fails every write with ENOSPC) is not a run that
# succeeded: exit 1, and stderr names the file and the reason (the run above wrote events, so this one has some)
if [ -w /dev/full ]; then
  timeout -s KILL 120 "$an" run --jsonl records.jsonl "${topo[@]}" --events /dev/full --quiet 2>full.err
  rc=$?
  [ "$rc" = 1 ] || { cat full.err; fail "--events /dev/full: exit $rc, expected 1"; }
  grep -q -- '--events /dev/full: No space left on device' full.err || { cat full.err; fail "stderr does not say why"; }
fi
echo PASS
