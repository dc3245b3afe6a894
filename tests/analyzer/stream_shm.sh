#!/usr/bin/env bash
# The live stream on one host through shared rings (--stream shm:PATH) end to end: the analyzer waits for the
# collector's file; a scenario's capture (read lossless, as every capture file is) reaches it whole: the
# collector's stream_sent is its record count with nothing dropped, and the analyzer took as many.  Its Incast
# names the queue the record-file run of the same capture names (the scenario's culprit, leaf1 Ethernet1 queue 3).
# A second collector run at the same path is followed (twice the records); it also writes record files (shm:
# beside another output, through the sink thread), which hold every record, the same as a files-only run.  The file
# is gone after each run, and a --stream-key with shm: is bad usage (exit 2) everywhere.  hopwatch-records
# --listen shm: in the analyzer's place prints, byte for byte, the JSON lines it prints for the record files of
# the same capture.
# Usage: stream_shm.sh HOPWATCH-GEN HOPWATCH-COLLECTOR HOPWATCH-ANALYZER HOPWATCH-RECORDS
set -u
gen=$1 col=$2 an=$3 recs=$4
. "$(dirname "$0")/lib.sh"
dir=$(mktemp -d)
shmdir=$(mktemp -d -p /dev/shm 2>/dev/null || mktemp -d) # tmpfs where there is one
ring=$shmdir/hw.ring
cleanup() {
  stop_pid "${apid:-}"
  rm -rf "$dir" "$shmdir"
}
trap cleanup EXIT
"$gen" scenario incast --out "$dir/s" >/dev/null 2>&1 || fail "scenario failed"
topo=(--lldp "$dir/s/lldp.pcap" --map "$dir/s/map.json")

# bad usage: shm: takes no key on either side
echo 0123456789abcdef0123 >"$dir/key" && chmod 600 "$dir/key"
"$col" --pcap "$dir/s/reports.pcap" --stream "shm:$ring" --stream-key "$dir/key" >/dev/null 2>"$dir/usage.err"
[ $? -eq 2 ] || fail "collector --stream shm: with --stream-key: not exit 2"
grep -q "guarded by its mode" "$dir/usage.err" || { cat "$dir/usage.err"; fail "no message saying why"; }
"$an" run --stream "shm:$ring" --stream-key "$dir/key" >/dev/null 2>"$dir/usage.err"
[ $? -eq 2 ] || fail "analyzer --stream shm: with --stream-key: not exit 2"

# the reference: the same capture through record files
mkdir "$dir/rec"
"$col" --pcap "$dir/s/reports.pcap" --records-dir "$dir/rec" >/dev/null 2>&1 || fail "collector (files) failed"
"$an" run --records "$dir"/rec/*.hwr "${topo[@]}" --events "$dir/ev_files.jsonl" >/dev/null 2>&1 ||
  fail "analyzer (files) failed"
"$recs" "$dir"/rec/*.hwr >"$dir/files.jsonl" 2>/dev/null || fail "hopwatch-records (files) failed"

# every field of every record: the same JSON lines through shm: as from the record files
"$recs" --listen "shm:$ring" --idle 30 >"$dir/shm.jsonl" 2>"$dir/recs.err" &
rpid=$!
for _ in $(seq 300); do grep -q "listening on shm:$ring" "$dir/recs.err" && break; sleep 0.1; done
"$col" --pcap "$dir/s/reports.pcap" --stream "shm:$ring" >/dev/null 2>"$dir/col0.err" ||
  { cat "$dir/col0.err"; fail "collector (to hopwatch-records) failed"; }
stop_pid "$rpid"
cmp -s "$dir/files.jsonl" "$dir/shm.jsonl" ||
  fail "hopwatch-records --listen shm: printed $(wc -l <"$dir/shm.jsonl") lines, not the files' $(wc -l <"$dir/files.jsonl")"
"$recs" --listen "shm:$ring" --stream-key "$dir/key" >/dev/null 2>&1
[ $? -eq 2 ] || fail "hopwatch-records --listen shm: with --stream-key: not exit 2"

"$an" run --stream "shm:$ring" --duration 120 "${topo[@]}" --events "$dir/ev_shm.jsonl" \
  --summary-json "$dir/summary.json" >/dev/null 2>"$dir/an.err" &
apid=$!
for _ in $(seq 300); do grep -q "listening on shm:$ring" "$dir/an.err" && break; sleep 0.1; done
grep -q "listening on shm:$ring" "$dir/an.err" || { cat "$dir/an.err"; fail "the analyzer did not start"; }
total=0
mkdir "$dir/rec2"
for run in 1 2; do
  more=()
  [ $run = 2 ] && more=(--records-dir "$dir/rec2") # beside another output: through the sink thread
  "$col" --pcap "$dir/s/reports.pcap" --stream "shm:$ring" "${more[@]}" >/dev/null 2>"$dir/col$run.err" ||
    { cat "$dir/col$run.err"; fail "collector run $run failed"; }
  n=$(count records "$dir/col$run.err")
  sent=$(count stream_sent "$dir/col$run.err")
  [ "$n" -gt 1000 ] || fail "run $run: only $n records"
  [ "$sent" = "$n" ] || { cat "$dir/col$run.err"; fail "run $run: stream_sent $sent of $n records"; }
  [ "$(count stream_dropped "$dir/col$run.err")" = 0 ] || fail "run $run: stream_dropped"
  [ "$(count sink_dropped "$dir/col$run.err")" = 0 ] || fail "run $run: sink_dropped"
  [ ! -e "$ring" ] || fail "run $run: $ring is still there after the collector's end"
  total=$((total + n))
done
[ "$(count files_written "$dir/col2.err")" = "$n" ] || { cat "$dir/col2.err"; fail "run 2: files_written"; }
"$recs" "$dir"/rec2/*.hwr >"$dir/files2.jsonl" 2>/dev/null || fail "hopwatch-records (run 2's files) failed"
cmp -s "$dir/files.jsonl" "$dir/files2.jsonl" || fail "run 2's record files (beside shm:) differ from a files-only run's"
stop_pid "$apid"
apid=
got=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["records"])' "$dir/summary.json")
[ "$got" = "$total" ] || { cat "$dir/an.err"; fail "the analyzer took $got records of the collector's $total"; }
incast() {
  python3 -c 'import json,sys
s = sorted({(e.get("node"), e.get("port_name"), e.get("queue")) for e in map(json.loads, open(sys.argv[1]))
            if e["event"] == "Incast" and e["state"] == "firing"})
print(s)' "$1"
}
want=$(incast "$dir/ev_files.jsonl")
[ "$want" = "[('leaf1', 'Ethernet1', 3)]" ] || fail "the record-file run's Incast: $want"
[ "$(incast "$dir/ev_shm.jsonl")" = "$want" ] || fail "shm: Incast $(incast "$dir/ev_shm.jsonl"), files: $want"
echo "ok: 2 collector runs, $total records through shm:, Incast at $want"
