#!/usr/bin/env bash
# The reports pcap of a scenario decodes with `hopwatch-collector --pcap` to exactly the hop records the
# generator says it wrote (records.jsonl, and the count in truth.json), in every report format; capture
# timestamps never go back.
# Usage: scen_roundtrip.sh HOPWATCH-GEN HOPWATCH-COLLECTOR
set -u
. "$(dirname "$0")/lib.sh"
gen=$1 col=$2
command -v jq >/dev/null || skip "jq missing"
count() { awk -v k="$1" '$1 == k {print $2; f=1} END {if (!f) print 0}' "$2"; }
for sc in incast link-down pfc-storm dscp-misconfig report-loss mtu-mismatch fat-tree-mix; do
  for fmt in tr2.0 tr1.0 tr0.5; do
    out=$dir/$sc-$fmt
    "$gen" scenario "$sc" --format "$fmt" --write-records --no-lldp --out "$out" --quiet || fail "$sc $fmt: generator failed"
    "$col" --pcap "$out/reports.pcap" --json-out "$out/coll.jsonl" >/dev/null 2>"$out/coll.err" ||
      { cat "$out/coll.err"; fail "$sc $fmt: collector failed"; }
    want=$(jq .reports.records "$out/truth.json")
    [ "$(wc -l <"$out/records.jsonl")" = "$want" ] || fail "$sc $fmt: records.jsonl has $(wc -l <"$out/records.jsonl"), truth says $want"
    [ "$want" -gt 1000 ] || fail "$sc $fmt: only $want records"
    diff -q "$out/records.jsonl" "$out/coll.jsonl" >/dev/null ||
      { diff "$out/records.jsonl" "$out/coll.jsonl" | head -4; fail "$sc $fmt: collector records differ"; }
    [ "$(count packets "$out/coll.err")" = "$(jq .reports.packets "$out/truth.json")" ] ||
      fail "$sc $fmt: collector counted $(count packets "$out/coll.err") packets"
    [ "$(count reports "$out/coll.err")" = "$(count packets "$out/coll.err")" ] || fail "$sc $fmt: packets not all reports"
    # every record starts with its time_ns, and those never go back (cut, not sed -E 's/^...(digits),.*/': that
    # took ~5 s of CPU per file, most of this test's time)
    ! LC_ALL=C grep -q -v '^{"time_ns":[0-9]*,' "$out/coll.jsonl" || fail "$sc $fmt: a record not led by its time_ns"
    cut -d, -f1 "$out/coll.jsonl" | cut -d: -f2 | sort -c -n || fail "$sc $fmt: capture time goes back"
    # format per record, and the stack version where there is one
    case $fmt in
      tr2.0) grep -q '"int_version":"2.1"' "$out/coll.jsonl" || fail "$sc: no INT-MD v2.1 hops" ;;
      tr1.0) grep -q '"int_version":"1.0"' "$out/coll.jsonl" || fail "$sc: no INT v1.0 hops" ;;
      tr0.5) ! grep -q '"int_version"' "$out/coll.jsonl" && grep -q '"postcard"' "$out/coll.jsonl" ||
        fail "$sc: tr0.5 should be postcards only" ;;
    esac
    rm -f "$out/reports.pcap"
  done
  echo "ok $sc: $want records (tr0.5) equal in all three formats' round trips"
done
# what the events leave in the reports: drop reports (congestion and MTU), CNPs, CE marks, lost sequence numbers
grep -q '"drop_reason":70' "$dir/mtu-mismatch-tr2.0/coll.jsonl" || fail "mtu-mismatch: no MTU drop reports"
grep -q '"dscp":0,"ecn":2,"roce_opcode"' "$dir/dscp-misconfig-tr2.0/coll.jsonl" || fail "dscp-misconfig: no RoCE with DSCP 0"
grep -q '"roce_opcode":129' "$dir/incast-tr2.0/coll.jsonl" || fail "incast: no CNP reports"
grep -q '"ecn":3' "$dir/incast-tr2.0/coll.jsonl" || fail "incast: no CE-marked packets"
grep -q '"congested_queue"' "$dir/incast-tr2.0/coll.jsonl" || fail "incast: no queue reports"
lost=$(jq '[.events[] | select(.kind=="TelemetryReportLoss") | .effects.lost_reports] | add' "$dir/report-loss-tr2.0/truth.json")
[ "$lost" -gt 0 ] && [ "$(count report_packets_lost "$dir/report-loss-tr2.0/coll.err")" = "$lost" ] ||
  fail "report-loss: collector counted $(count report_packets_lost "$dir/report-loss-tr2.0/coll.err") lost reports, truth $lost"
echo "ok drop reports, CNPs, CE marks, queue reports, and exactly the $lost lost reports in sequence gaps"
