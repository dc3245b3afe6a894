#!/usr/bin/env bash
# The latency matrix's windowed gauges on /metrics (hopwatch_analyzer_path_latency_window_seconds and
# _reports, the last 10 s by default, --latency-window): right after an incast is replayed, every leaf pair with reports in the window
# shows at most its cumulative count, and the same mean as the cumulative summary when the window holds all
# of them; once no report has come for the window's length, the window series are gone while the
# cumulative summary stays.  No fixed sleeps: /metrics is polled with generous bounds.
# Usage: latency_window.sh HOPWATCH-GEN HOPWATCH-ANALYZER
set -u
gen=$1 an=$2
. "$(dirname "$0")/lib.sh"
T=$(mktemp -d)
apid=
cleanup() {
  stop_pid "$apid"
  rm -rf "$T"
}
trap cleanup EXIT

"$gen" scenario incast --out "$T/inc" --write-records >/dev/null 2>&1 || fail "hopwatch-gen scenario incast"
n_rec=$(wc -l <"$T/inc/records.jsonl")
port=$(free_port)
"$an" run --jsonl "$T/inc/records.jsonl" --lldp "$T/inc/lldp.pcap" --map "$T/inc/map.json" \
  --metrics "127.0.0.1:$port" --hold 120 --quiet 2>"$T/an.err" &
apid=$!
scrape() { curl -sf "http://127.0.0.1:$port/metrics" >"$T/m.txt"; }
# 1: the replay is done when records_total is the number of records
for _ in $(seq 600); do
  scrape && grep -q "^hopwatch_analyzer_records_total $n_rec\$" "$T/m.txt" && break
  sleep 0.1
done
grep -q "^hopwatch_analyzer_records_total $n_rec\$" "$T/m.txt" ||
  fail "the analyzer did not take the $n_rec records: $(grep records_total "$T/m.txt"); $(tail -2 "$T/an.err")"
check() { # check MODE: "fresh" right after the replay, "quiet" once the window passed
  python3 - "$T/m.txt" "$1" <<'PY'
import re, sys
text, mode = open(sys.argv[1]).read(), sys.argv[2]
def family(name):
    return {m.group(1): float(m.group(2)) for m in re.finditer(r"^%s(\{[^}]*\}) (\S+)$" % name, text, re.M)}
count, total = family("hopwatch_analyzer_path_latency_seconds_count"), family("hopwatch_analyzer_path_latency_seconds_sum")
wrep, wmean = family("hopwatch_analyzer_path_latency_window_reports"), family("hopwatch_analyzer_path_latency_window_seconds")
assert count, "no latency matrix on /metrics"
assert set(wrep) == set(wmean), (sorted(wrep), sorted(wmean))
if mode == "quiet":  # no report for the window's length: no window series, the summary unchanged
    sys.exit(0 if not wrep else 3)
assert wrep, "no leaf pair in the window right after the replay"
for k, n in wrep.items():
    assert k in count and 0 < n <= count[k], (k, n, count.get(k))
    if n == count[k]:  # every report of the pair is in the window: the window's mean is the summary's
        mean = total[k] / count[k]
        assert abs(wmean[k] - mean) <= 1e-6 * mean, (k, wmean[k], mean)
print("fresh: %d of %d leaf pairs in the window, %d of %d reports" % (
    len(wrep), len(count), sum(wrep.values()), sum(count.values())))
PY
}
check fresh || fail "window gauges right after the replay"
cp "$T/m.txt" "$T/fresh.txt"
# 2: no record comes any more: within the window (10 s) plus a snapshot's second the window empties
for _ in $(seq 300); do
  scrape && check quiet && break
  sleep 0.1
done
check quiet || fail "the window series are still there $(grep -c path_latency_window_reports "$T/m.txt") lines after 30 s"
diff <(grep '^hopwatch_analyzer_path_latency_seconds' "$T/fresh.txt") \
  <(grep '^hopwatch_analyzer_path_latency_seconds' "$T/m.txt") >/dev/null ||
  fail "the cumulative summary changed while no record came"
echo "quiet: the window series are gone, the cumulative summary is unchanged"
stop_pid "$apid"

# 3: --latency-window 2: the gauges say so, and empty once no record came for it (bounds generous: only
# that they do, never how soon); a window out of range is bad usage
port=$(free_port)
"$an" run --jsonl "$T/inc/records.jsonl" --lldp "$T/inc/lldp.pcap" --map "$T/inc/map.json" \
  --metrics "127.0.0.1:$port" --latency-window 2 --hold 120 --quiet 2>"$T/an.err" &
apid=$!
for _ in $(seq 600); do
  scrape && grep -q "^hopwatch_analyzer_records_total $n_rec\$" "$T/m.txt" && break
  sleep 0.1
done
grep -q "^# HELP hopwatch_analyzer_path_latency_window_seconds .* over the last 2 s;" "$T/m.txt" ||
  fail "--latency-window 2: $(grep 'HELP hopwatch_analyzer_path_latency_window_seconds' "$T/m.txt")"
for _ in $(seq 300); do
  scrape && check quiet && break
  sleep 0.1
done
check quiet || fail "--latency-window 2: the window series are still there after 30 s"
stop_pid "$apid"
apid=
for bad in 0 abc 86401; do
  "$an" run --jsonl "$T/inc/records.jsonl" --latency-window "$bad" --quiet 2>"$T/u.err"
  [ $? = 2 ] && grep -q -- "--latency-window" "$T/u.err" || { cat "$T/u.err"; fail "--latency-window $bad not refused"; }
done
echo "--latency-window 2: said on /metrics, emptied; out of range refused"
echo PASS
