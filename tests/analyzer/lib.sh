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
