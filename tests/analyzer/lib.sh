# Shared helpers for the analyzer's integration tests (sourced, not run): report captures from
# hopwatch-gen turned into record files by the real collector.
# skip, fail, free_port, stop_pid ...: the collector tests' helpers
. "$(dirname "${BASH_SOURCE[0]}")/../collector/lib.sh"

# make_records DIR GEN COLLECTOR [gen options...]: DIR/rec/*.hwr from a generated capture.
make_records() {
  local dir=$1 gen=$2 col=$3
  shift 3
  mkdir -p "$dir/rec"
  "$gen" reports --format tr2.0 --hops 3 --seed 7 --out "$dir/reports.pcap" "$@" >"$dir/gen.log" 2>&1 ||
    fail "hopwatch-gen: $(tail -1 "$dir/gen.log")"
  "$col" --pcap "$dir/reports.pcap" --records-dir "$dir/rec" >"$dir/collector.log" 2>&1 ||
    fail "hopwatch-collector: $(tail -1 "$dir/collector.log")"
  ls "$dir"/rec/*.hwr >/dev/null 2>&1 || fail "the collector wrote no record file"
}

# console_test_init HOPWATCH-GEN HOPWATCH-ANALYZER SOURCE_ROOT ARTEFACT_DIR: the console tests' gen, an, src, art,
# chromium (skip without it), a scratch dir removed at exit and pid, the analyzer stopped at exit.
console_test_init() {
  gen=$(realpath "$1") an=$(realpath "$2") src=$(realpath "$3") art=$4
  chromium=$(command -v chromium || command -v chromium-browser) || skip "chromium is not installed (tools/deps.sh)"
  dir=$(mktemp -d)
  pid=
  trap 'stop_pid "$pid"; rm -rf "$dir"' EXIT
}

# stop_analyzer LOG: SIGTERM ends --hold; the run must then exit 0 (a sanitizer build fails on a leak).  No
# SIGKILL after a while as stop_pid does: a sanitizer build under the tests' slow unwinding took 12 s to exit
# on a loaded host (the k=16 fabric); the test's own timeout bounds the wait.
stop_analyzer() {
  kill -TERM "$pid" 2>/dev/null
  wait "$pid"
  local rc=$?
  pid=
  [ "$rc" -eq 0 ] || { tail -20 "$1"; fail "the analyzer exited $rc after SIGTERM"; }
}

# wait_console_records BASE TRUTH_JSON PID LOG: poll BASE/api/fabric (up to 120 s) until the console's analyzer
# has all the scenario's records; fail, with LOG, when it exits first or the time runs out.
wait_console_records() {
  local base=$1 records got=
  records=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["reports"]["records"])' "$2")
  for _ in $(seq 600); do
    got=$(curl -sf "$base/api/fabric" | python3 -c 'import json, sys; print(json.load(sys.stdin)["records"])' 2>/dev/null)
    [ "$got" = "$records" ] && return 0
    kill -0 "$3" 2>/dev/null || { cat "$4"; fail "the analyzer exited"; }
    sleep 0.2
  done
  fail "/api/fabric: $got records after 120 s, expected $records"
}

# count_events FILE NAME STATE: how many events of that alertname and state the JSONL file holds.
count_events() {
  python3 - "$@" <<'PY'
import json, sys
n = 0
for line in open(sys.argv[1]):
    e = json.loads(line)
    n += e["event"] == sys.argv[2] and e["state"] == sys.argv[3]
print(n)
PY
}

# in_scenario NAME GEN: a temporary directory holding `GEN scenario NAME --write-records`, made the current
# one; at exit the analyzer of $an_pid (when set) is stopped and the directory removed.
in_scenario() {
  dir=$(mktemp -d)
  an_pid=
  trap 'stop_pid "$an_pid"; rm -rf "$dir"' EXIT
  "$2" scenario "$1" --out "$dir" --write-records >/dev/null 2>&1 || fail "scenario $1 failed"
  cd "$dir" || exit 1
}

# sweep_run GEN AN [scenario custom options...]: a run as tools/score_sweep.py makes one (`GEN scenario custom`
# with records into a new temporary $dir, removed on exit), then `AN run` over it with the topology, its events in
# $dir/ev.jsonl; fails with the last line of either's log.
sweep_run() {
  local gen=$1 an=$2
  shift 2
  dir=$(mktemp -d)
  trap 'rm -rf "$dir"' EXIT
  "$gen" scenario custom --out "$dir" --write-records --quiet "$@" >"$dir/gen.log" 2>&1 ||
    fail "hopwatch-gen: $(tail -1 "$dir/gen.log")"
  "$an" run --jsonl "$dir/records.jsonl" --lldp "$dir/lldp.pcap" --map "$dir/map.json" --events "$dir/ev.jsonl" \
    --quiet >"$dir/an.log" 2>&1 || fail "hopwatch-analyzer run exited $?: $(tail -1 "$dir/an.log")"
}

# After sweep_run of a PFC storm: storm_tree.py's check of its events against the truth (a CongestionTree at the storm's
# place while it lasts, its victims ones the storm paused); fails the test without one.
storm_tree_check() {
  python3 "$(dirname "${BASH_SOURCE[0]}")/storm_tree.py" "$dir/truth.json" "$dir/ev.jsonl" ||
    fail "no CongestionTree at the storm's place while it lasted"
  echo "PASS"
}
