#!/usr/bin/env bash
# A drop's hop with no egress port (the wire's 0xFFFF, recorded as egress_port 4294967295) is not a topology
# miss: hopwatch-analyzer topology (record files and JSON lines) and both programs' diagnose place its ingress
# port and pass over its egress; the same hop with egress port 65535 is a miss (the control).  The collector
# records it as 4294967295 and the dissector (when tshark is installed) labels it none.
# Usage: no_egress_topology.sh HOPWATCH-COLLECTOR HOPWATCH-ANALYZER SOURCE_ROOT
set -u
here=$(dirname "$0")
. "$here/../collector/lib.sh"
col=$1 an=$2 src=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
S=$src/data/samples/incast
topo=(--lldp "$S/lldp.pcap" --map "$S/map.json")

"$col" --pcap "$S/reports.pcap" --json-out "$dir/incast.jsonl" 2>/dev/null || fail "collector failed on the sample"
python3 "$here/drop_no_egress.py" "$dir/incast.jsonl" "$dir" || fail "drop_no_egress.py failed"

# the collector records the drop report's 0xFFFF as none (4294967295), never as port 65535
mkdir "$dir/hwr"
"$col" --pcap "$dir/drop.pcap" --json-out "$dir/drop.jsonl" --records-dir "$dir/hwr" 2>"$dir/col.err" ||
  { cat "$dir/col.err"; fail "collector failed on the drop report"; }
[ "$(wc -l <"$dir/drop.jsonl")" = 1 ] || fail "want 1 record from the drop report: $(cat "$dir/drop.jsonl")"
grep -q '"egress_port":4294967295' "$dir/drop.jsonl" || fail "egress 0xFFFF not recorded as none: $(cat "$dir/drop.jsonl")"
grep -q '65535' "$dir/drop.jsonl" && fail "egress 0xFFFF recorded as 65535: $(cat "$dir/drop.jsonl")"

# topology: one INT port reference (the ingress port) placed, none unplaced
summary() { "$an" topology "${topo[@]}" "$@" 2>&1 | grep '^topology:'; }
for input in "--records $(ls "$dir"/hwr/records-*.hwr)" "--jsonl $dir/drop.jsonl" "--jsonl $dir/drop_none.jsonl"; do
  # shellcheck disable=SC2086
  s=$(summary $input)
  echo "$input: $s"
  echo "$s" | grep -q 'INT ports placed 1 unplaced 0$' || fail "$input: want placed 1 unplaced 0: $s"
done
s=$(summary --jsonl "$dir/drop_65535.jsonl")
echo "$s" | grep -q 'INT ports placed 1 unplaced 1$' || fail "control, egress port 65535: want unplaced 1: $s"

# diagnose: the analyzer's placement check (record file and JSON lines) and the collector's topology check
for input in "--records $(ls "$dir"/hwr/records-*.hwr)" "--jsonl $dir/drop_none.jsonl"; do
  # shellcheck disable=SC2086
  timeout 120 "$an" diagnose "${topo[@]}" $input --only topology,placement >"$dir/out" 2>&1 ||
    { cat "$dir/out"; fail "analyzer diagnose $input: exit status $?"; }
  grep -q '^PASS placement' "$dir/out" || { cat "$dir/out"; fail "analyzer diagnose $input: no PASS placement"; }
done
timeout 120 "$an" diagnose "${topo[@]}" --jsonl "$dir/drop_65535.jsonl" --only topology,placement >"$dir/out" 2>&1
rc=$?
[ $rc = 1 ] && grep -q '^FAIL placement' "$dir/out" || { cat "$dir/out"; fail "control: want FAIL placement, exit 1 (got $rc)"; }
timeout 120 "$col" diagnose --pcap "$dir/drop.pcap" "${topo[@]}" --analyzer "$an" --only topology >"$dir/out" 2>&1 ||
  { cat "$dir/out"; fail "collector diagnose: exit status $?"; }
grep -q '^PASS topology' "$dir/out" || { cat "$dir/out"; fail "collector diagnose: no PASS topology"; }
# the Wireshark dissector labels it "none" (when tshark is installed)
if command -v tshark >/dev/null; then
  tshark -n -r "$dir/drop.pcap" -X "lua_script:$src/deploy/wireshark/hopwatch.lua" -V >"$dir/tshark.txt" 2>&1 ||
    { cat "$dir/tshark.txt"; fail "tshark failed on the drop report"; }
  grep -q 'Egress port: 4294967295 (none: no egress port chosen)' "$dir/tshark.txt" ||
    { grep -i port "$dir/tshark.txt"; fail "the dissector does not label egress 0xFFFF none"; }
fi
echo "ok: no egress port is not a topology miss"
