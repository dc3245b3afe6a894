#!/usr/bin/env bash
# Sink losses on a live /metrics (issue 22 item 9: "sink failures are not on /metrics"): the collector runs
# live (a capture through a pipe held open) with the JSON output and the record files each on a 1 MiB tmpfs
# (in a private mount namespace) that fills.  While it still runs, /metrics shows both losses
# (hopwatch_collector_json_lost_records_total, hopwatch_collector_files_lost_records_total > 0) and every
# record taken; at exit the printed counters keep the invariant written + lost = records per sink and are no
# smaller than what /metrics showed.
# Usage: sink_loss_metrics.sh HOPWATCH-GEN HOPWATCH-COLLECTOR
set -u
. "$(dirname "$0")/lib.sh"
gen=$1 col=$2
need_root
command -v unshare >/dev/null || skip "unshare not installed"
command -v curl >/dev/null || skip "curl not installed"
if [ -z "${HW_SINK_LOSS_INNER:-}" ]; then # again, in a private mount namespace: the mounts vanish with it
  HW_SINK_LOSS_INNER=1 exec unshare -m --propagation private bash "$0" "$@"
fi
dir=$(mktemp -d)
cleanup() {
  stop_pid "${cpid:-}"
  [ -n "${wpid:-}" ] && kill "$wpid" 2>/dev/null
  umount "$dir/j" "$dir/r" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
mkdir "$dir/j" "$dir/r"
mount -t tmpfs -o size=1m tmpfs "$dir/j" || skip "cannot mount a tmpfs"
mount -t tmpfs -o size=1m tmpfs "$dir/r" || skip "cannot mount a tmpfs"
# 20000 reports of 2-5 hops: some 70000 records, tens of MB of JSON and record files, far more than 1 MiB
"$gen" reports --format tr2.0 --count 20000 --hops 2-5 --seed 21 --out "$dir/d.pcap" 2>"$dir/gen.err" ||
  fail "generator failed"
want=$(awk '$1 == "records" {print $2}' "$dir/gen.err")
mport=$(free_port)
live_capture "$dir/d.pcap" "$dir/in.pcap"
"$col" --pcap "$dir/in.pcap" --json-out "$dir/j/out.jsonl" --records-dir "$dir/r" --rotate-mb 1 \
  --metrics "127.0.0.1:$mport" --status-interval 0 >/dev/null 2>"$dir/col.err" &
cpid=$!
metric() { awk -v k="$1" '$1 == k {print $2}' "$dir/m.txt"; }
wait_metrics_records "$mport" "$want" "$dir/m.txt" ||
  { tail -5 "$dir/col.err"; fail "/metrics never showed all $want records"; }
# the losses reach /metrics as the sink thread counts them: polled
for _ in $(seq 600); do
  curl --max-time 30 -sf "http://127.0.0.1:$mport/metrics" -o "$dir/m.txt" &&
    [ "$(metric hopwatch_collector_json_lost_records_total)" -gt 0 ] 2>/dev/null &&
    [ "$(metric hopwatch_collector_files_lost_records_total)" -gt 0 ] 2>/dev/null && break
  sleep 0.2
done
mjl=$(metric hopwatch_collector_json_lost_records_total) mfl=$(metric hopwatch_collector_files_lost_records_total)
echo "live /metrics: json lost ${mjl:-none}, files lost ${mfl:-none} of $want records"
[ "${mjl:-0}" -gt 0 ] || fail "the JSON output's losses are not on /metrics (${mjl:-no series})"
[ "${mfl:-0}" -gt 0 ] || fail "the record files' losses are not on /metrics (${mfl:-no series})"
kill -TERM "$cpid"
wait "$cpid"
rc=$?
cpid=
[ "$rc" = 1 ] || { tail -5 "$dir/col.err"; fail "exit status $rc with both outputs losing records, want 1"; }
records=$(count records "$dir/col.err")
jw=$(count json_written "$dir/col.err") jl=$(count json_lost "$dir/col.err")
fw=$(count files_written "$dir/col.err") fl=$(count files_lost "$dir/col.err")
echo "at exit: records $records: json written $jw lost $jl; files written $fw lost $fl"
[ "$records" = "$want" ] || fail "records $records, the generator wrote $want"
[ $((jw + jl)) = "$records" ] || fail "JSON: written $jw + lost $jl != records $records"
[ $((fw + fl)) = "$records" ] || fail "record files: written $fw + lost $fl != records $records"
[ "$jl" -ge "$mjl" ] && [ "$fl" -ge "$mfl" ] || fail "the losses at exit are below what /metrics showed"
echo "ok sink losses on /metrics while running, and counted at exit"
