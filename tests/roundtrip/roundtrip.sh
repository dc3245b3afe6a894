#!/usr/bin/env bash
# Round trip: hopwatch-gen writes captures in every format with the records it encoded (truth);
# hopwatch-collector --pcap must decode exactly those records, byte for byte, and count malformed
# packets under named reasons.  Two independent implementations of the wire formats meet here.
# Usage: roundtrip.sh HOPWATCH-GEN HOPWATCH-COLLECTOR
set -u
gen=$1 col=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail=0 n=0
cases=(
  "--format tr2.0"
  "--format tr2.0 --coalesce 4 --last-len-ff --rep-md ports,latency,queue,ig_ts,eg_ts,l2_ports,tx_util,buffer,drop"
  "--format tr2.0 --hops 0-8 --in-type eth --ip mix --l4 mix --intermediate-rate 0.2 --drop-rate 0.1"
  "--format tr2.0 --encap vxlan-gpe"
  "--format tr2.0 --encap geneve --ip 4"
  "--format tr2.0 --int-detect port --roce --cnp-rate 0.1|--int-port 5000"
  "--format tr2.0 --sink-md stack --drop-rate 0.3"
  "--format tr2.0 --unavailable-rate 0.2 --instructions node,ports,latency,queue,ig_ts,eg_ts,l2_ports,tx_util,buffer,checksum"
  "--format tr2.0 --seq-start 4194200 --seq-gap-every 7 --hw-ids 3"
  "--format tr1.0"
  "--format tr1.0 --rep-md ports,latency,queue,eg_ts,drop,tx_util --ip 6 --in-type eth"
  "--format tr1.0 --unavailable-rate 0.3 --instructions node,ports,latency,queue,ig_ts,eg_ts,l2_ports,tx_util"
  "--format tr0.5"
  "--format tr0.5 --int-version 0.5 --drop-rate 0.2"
  "--format int"
  "--format int --int-version 1.0 --l4 tcp"
  "--format int --int-version 0.5 --ip 6"
  "--format int --int-version 0.5 --int-detect port|--int-port 5000"
  "--format int --profile geant|--profile geant"
  "--format int --profile geant --geant-tail off|--profile geant"
)
for c in "${cases[@]}"; do
  gargs=${c%%|*}
  cargs=""
  [[ $c == *"|"* ]] && cargs=${c#*|}
  n=$((n + 1))
  # shellcheck disable=SC2086
  if ! "$gen" reports $gargs --count 400 --seed $n --out "$dir/g.pcap" --truth "$dir/truth.jsonl" 2>"$dir/gen.err"; then
    echo "FAIL gen: $gargs"; cat "$dir/gen.err"; fail=1; continue
  fi
  # shellcheck disable=SC2086
  "$col" --pcap "$dir/g.pcap" --json-out "$dir/got.jsonl" $cargs 2>"$dir/col.err"
  if ! cmp -s "$dir/truth.jsonl" "$dir/got.jsonl"; then
    echo "FAIL records differ: $gargs"; diff "$dir/truth.jsonl" "$dir/got.jsonl" | head -4 | cut -c1-400; fail=1; continue
  fi
  recs=$(wc -l <"$dir/truth.jsonl")
  if [ "$recs" -lt 100 ]; then echo "FAIL too few records ($recs): $gargs"; fail=1; continue; fi
  echo "ok   $recs records: $gargs"
done

# Malformed packets mixed with valid ones: valid ones decode exactly, every bad one is counted.
"$gen" reports --format tr2.0 --malform all:0.3 --count 2000 --seed 99 --out "$dir/m.pcap" \
  --truth "$dir/m.jsonl" --summary "$dir/m.json" 2>/dev/null
"$col" --pcap "$dir/m.pcap" --json-out "$dir/mgot.jsonl" 2>"$dir/mcol.err"
bad_gen=$(python3 -c "import json,sys; s=json.load(open(sys.argv[1])); print(sum(v for k,v in s.get('malformed',{}).items()))" "$dir/m.json")
bad_col=$(awk '$1 ~ /^(l2_truncated|ip_truncated|ip_header|l4_truncated|udp_length|report_truncated|report_version|report_length|report_type|report_md|inner_truncated|int_shim|int_version|int_length|int_bitmap|int_hops|too_many)$/ {s += $2} END {print s+0}' "$dir/mcol.err")
if ! cmp -s "$dir/m.jsonl" "$dir/mgot.jsonl"; then echo "FAIL malformed mix: valid records differ"; fail=1;
elif [ "$bad_gen" != "$bad_col" ] || [ "$bad_gen" -lt 100 ]; then
  echo "FAIL malformed mix: generator wrote $bad_gen bad packets, collector counted $bad_col errors"; cat "$dir/mcol.err"; fail=1
else echo "ok   malformed mix: $bad_col bad packets counted by reason, valid records exact"; fi
exit $fail
