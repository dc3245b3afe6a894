#!/bin/bash
# The exit summary of `hopwatch-analyzer run`: readable lines by default, whose counts agree with the input
# and the events file; the full JSON with --summary-json FILE (also under --quiet) or - (on stderr in place
# of the lines); a path that cannot be written is bad usage (exit 2) before any input is read.
# Usage: run_summary.sh HOPWATCH-GEN HOPWATCH-ANALYZER
set -u
gen=$1 an=$2
fail() { echo "FAIL: $*"; exit 1; }
command -v jq >/dev/null || { echo "SKIP: jq not installed"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$gen" scenario incast --out "$T/s" --write-records >/dev/null 2>&1 || fail "hopwatch-gen scenario incast"
topo=(--lldp "$T/s/lldp.pcap" --map "$T/s/map.json")

"$an" run --jsonl "$T/s/records.jsonl" "${topo[@]}" --events "$T/ev.jsonl" --summary-json "$T/sum.json" 2>"$T/err" ||
	{ cat "$T/err"; fail "run exited $?"; }
# one record per line of records.jsonl; every record of the scenario is on its topology
n=$(grep -c . "$T/s/records.jsonl")
grep -q "^hopwatch-analyzer run: $n records ($n placed, 0 unplaced), " "$T/err" ||
	{ cat "$T/err"; fail "no records line saying $n records, all placed"; }
[ "$(jq .records "$T/sum.json")" = "$n" ] || fail "--summary-json: records $(jq .records "$T/sum.json"), want $n"
# the raises by name are the firing events of the events file (an update of a firing alert is not one),
# counted here with jq
want=$(jq -rs '[.[] | select(.state == "firing" and (.update | not)) | .event] | group_by(.) | map([.[0], length])
	| sort_by(-.[1], .[0]) | map("\(.[0]) \(.[1])") | join(", ")' "$T/ev.jsonl")
raised=$(jq -s '[.[] | select(.state == "firing" and (.update | not))] | length' "$T/ev.jsonl")
grep -qF "hopwatch-analyzer run: $raised events raised, $(jq .events_resolved "$T/sum.json") resolved: $want" "$T/err" ||
	{ cat "$T/err"; fail "the events line is not: $raised events raised ...: $want"; }
grep -q '^{' "$T/err" && fail "JSON on stderr without --summary-json -"

# --quiet: nothing on stderr, the file still written
"$an" run --jsonl "$T/s/records.jsonl" --quiet --summary-json "$T/quiet.json" 2>"$T/quiet.err" || fail "--quiet run"
[ -s "$T/quiet.err" ] && { cat "$T/quiet.err"; fail "--quiet wrote to stderr"; }
[ "$(jq .records "$T/quiet.json")" = "$n" ] || fail "--quiet --summary-json: no records count"
# -: the JSON on stderr, no readable lines
"$an" run --jsonl "$T/s/records.jsonl" --summary-json - 2>"$T/dash.err" || fail "--summary-json - run"
[ "$(tail -1 "$T/dash.err" | jq .records)" = "$n" ] || fail "--summary-json -: last line is not the JSON"
grep -q "records (" "$T/dash.err" && fail "--summary-json -: readable lines printed too"
# a file that cannot be written: exit 2, naming the option and the file
"$an" run --jsonl "$T/s/records.jsonl" --summary-json "$T/no/such/dir/s.json" 2>"$T/bad.err"
rc=$?
[ $rc = 2 ] || fail "unwritable --summary-json: exit $rc, want 2"
grep -q -- "--summary-json $T/no/such/dir/s.json: No such file or directory" "$T/bad.err" || fail "message: $(cat "$T/bad.err")"
echo "ok: lines agree with the input and the events file; --summary-json FILE, -, --quiet, a bad path"
