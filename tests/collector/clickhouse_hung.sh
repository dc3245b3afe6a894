#!/usr/bin/env bash
# A hung ClickHouse (issue 22 item 11): a listener that accepts and never answers held an insert for its
# 30 s timeout, past the unit's stop timeout, and a .tmp record file was left.  Here SIGTERM must end the
# collector within clickhouse_drain_seconds (1) plus a second's slack (20 s allowed: well under the insert
# timeout that held it before, on a loaded host); every record is counted inserted or dropped, the record
# files hold every record with no .tmp left, exit 1 (records lost); the URL's password is never printed.
# Usage: clickhouse_hung.sh HOPWATCH-GEN HOPWATCH-COLLECTOR HOPWATCH-RECORDS
set -u
. "$(dirname "$0")/lib.sh"
gen=$1 col=$2 rec=$3
dir=$(mktemp -d)
trap 'cleanup_pids_dir "$dir" "${wpid:-}" "${cpid:-}" "${hpid:-}"' EXIT
port=$(free_port)
# the hung ClickHouse: accepts every connection, reads nothing, answers nothing; says when one came
python3 -c '
import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(64)
held = []
while True:
    c, _ = s.accept(); held.append(c)
    open(sys.argv[2], "a").write("accepted\n")' "$port" "$dir/hung.log" &
hpid=$!
"$gen" reports --format tr2.0 --count 2000 --hops 2-4 --seed 31 --out "$dir/r.pcap" 2>"$dir/gen.err" ||
  fail "generator failed"
want=$(awk '$1 == "records" {print $2}' "$dir/gen.err")
[ "${want:-0}" -gt 0 ] || fail "the generator wrote no records"
live_capture "$dir/r.pcap" "$dir/in.pcap"
echo '{ "sinks": { "clickhouse_drain_seconds": 1 } }' >"$dir/cfg.json"
secret=s3cretHung
mport=$(free_port)
"$col" --pcap "$dir/in.pcap" --config "$dir/cfg.json" --records-dir "$dir/r" --status-interval 0 \
  --metrics "127.0.0.1:$mport" \
  --clickhouse "http://hopwatch:$secret@127.0.0.1:$port/?database=hw" --clickhouse-batch 100 \
  --clickhouse-batch-ms 0 >/dev/null 2>"$dir/col.err" &
cpid=$!
# an insert is under way at the hung listener
wait_for 120 "an insert to reach the hung ClickHouse" test -s "$dir/hung.log" || exit 1
# and the collector has taken every record from the capture (the first insert leaves with the first 100 of
# them, long before the last is read: SIGTERM then would end the reading, not test the drain)
wait_metrics_records "$mport" "$want" "$dir/m.txt" ||
  { tail -5 "$dir/col.err"; fail "/metrics never showed all $want records"; }
kill -TERM "$cpid"
t0=$(date +%s)
for _ in $(seq 200); do kill -0 "$cpid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$cpid" 2>/dev/null && { cat "$dir/col.err"; fail "still running 20 s after SIGTERM (drain 1 s)"; }
wait "$cpid"
rc=$?
cpid=
echo "exited $(($(date +%s) - t0)) s after SIGTERM, status $rc"
[ "$rc" = 1 ] || { cat "$dir/col.err"; fail "exit status $rc with records not delivered, want 1"; }
records=$(count records "$dir/col.err")
ins=$(count clickhouse_inserted "$dir/col.err") dropped=$(count clickhouse_dropped "$dir/col.err")
fw=$(count files_written "$dir/col.err") fl=$(count files_lost "$dir/col.err")
echo "records $records: clickhouse inserted $ins dropped $dropped; files written $fw lost $fl"
[ "$records" = "$want" ] || fail "records $records, the generator wrote $want"
# nothing is ever acknowledged, so every record is dropped and counted
[ "$ins" = 0 ] || fail "clickhouse_inserted $ins from a listener that never answers"
[ "$dropped" = "$records" ] || { cat "$dir/col.err"; fail "clickhouse_dropped $dropped, want all $records"; }
[ "$fw" = "$records" ] && [ "$fl" = 0 ] || fail "record files: written $fw lost $fl, want $records and 0"
ls -A "$dir/r" | grep -v '\.hwr$' && fail "the record directory holds more than finished .hwr files"
back=$("$rec" "$dir"/r/*.hwr 2>"$dir/rec.err" | wc -l)
[ "$back" = "$fw" ] || { cat "$dir/rec.err"; fail "record files hold $back records, files_written $fw"; }
grep -q "$secret" "$dir/col.err" && { grep "$secret" "$dir/col.err"; fail "the ClickHouse password was printed"; }
grep -q 'hopwatch:\*\*\*@' "$dir/col.err" || { cat "$dir/col.err"; fail "no message names the hung ClickHouse"; }
# a URL refused by the option checks is printed without its password too
"$col" --pcap "$dir/r.pcap" --clickhouse "htp://hopwatch:$secret@127.0.0.1:$port/" >/dev/null 2>"$dir/usage.err"
rc=$?
[ "$rc" = 2 ] || { cat "$dir/usage.err"; fail "a URL that is not http(s): exit $rc, want 2"; }
grep -q "hopwatch:\*\*\*@127.0.0.1" "$dir/usage.err" || { cat "$dir/usage.err"; fail "the refusal does not name the URL"; }
grep -q "$secret" "$dir/usage.err" && fail "the password was printed: $(cat "$dir/usage.err")"
echo "ok hung ClickHouse: exit within the drain time, $dropped records counted dropped, no .tmp, no password"
