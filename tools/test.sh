#!/usr/bin/env bash
# Installs what is missing, checks every tracked C file is clang-formatted, builds with -Werror, runs
# every test plainly and again under ASan+UBSan, then runs each libFuzzer target briefly.  Exits non-zero
# when anything failed.
set -uo pipefail
cd "$(dirname "$0")/.."
bash tools/deps.sh || exit 1
# every fuzz target: 30 s each, run one per core (FUZZ_SECONDS and FUZZ_JOBS override)
fuzz_seconds=${FUZZ_SECONDS:-30}
status=0
summary=()

setup() { # dir, extra meson args...
  local dir=$1; shift
  if [ -d "$dir" ]; then meson setup --reconfigure "$dir" "$@" >/dev/null; else meson setup "$dir" "$@" >/dev/null; fi
}

build() { # build dir, meson setup args...: configured with -Werror, everything built
  local dir=$1; shift
  setup "$dir" -Dwerror=true "$@" && ninja -C "$dir"
}

# run_suite NAME DIR [meson setup args...]: builds DIR (unless the args are "--built": done in the background,
# see below), then runs every test of it; the summary line names the five slowest tests.
run_suite() {
  local name=$1 dir=$2; shift 2
  if [ "${1-}" != --built ]; then
    echo "=== $name: build ($dir)"
    if ! build "$dir" "$@"; then
      echo "=== $name: BUILD FAILED"; status=1; summary+=("$name: build failed"); return
    fi
  fi
  echo "=== $name: meson test"
  meson test -C "$dir" --print-errorlogs --num-processes 2 || status=1
  summary+=("$name: $(python3 tools/testlog_summary.py "$dir/meson-logs/testlog.json" --slowest 5)")
}

# Every tracked *.c/*.h as .clang-format says; hand-aligned tables and byte vectors sit between
# "clang-format off" and "clang-format on" comments.  Names the files to run `clang-format -i` on.
format_check() {
  local count out rc bad
  if ! count=$(git ls-files -- '*.c' '*.h' | wc -l) || ((count == 0)); then
    echo "=== format: cannot list the tracked C files (not a git checkout?)"
    summary+=("format: no file list"); status=1; return
  fi
  echo "=== format: clang-format --dry-run --Werror over $count files"
  out=$(git ls-files -z -- '*.c' '*.h' | xargs -0 clang-format --dry-run --Werror --ferror-limit=1 2>&1)
  rc=$?
  bad=$(grep -o '^[^ ]*:[0-9]*:[0-9]*: error' <<<"$out" | sed 's/:[0-9]*:[0-9]*: error$//' | sort -u)
  if ((rc == 0)); then
    summary+=("format: all $count tracked C files clang-formatted")
  elif [ -n "$bad" ]; then
    echo "=== format: not formatted as .clang-format says (run clang-format -i on them):"
    sed 's/^/  /' <<<"$bad"
    summary+=("format: $(wc -l <<<"$bad") files not clang-formatted"); status=1
  else
    echo "$out"; summary+=("format: clang-format failed"); status=1
  fi
}
format_check

# Optimised, as users build it: the x86-64-v3 clones of the hot paths (lib/wire/cpu_clones.h) run
# here; the sanitizer build below is unoptimised and runs the baseline code.
echo "=== plain: build (build)"
if build build --buildtype=debugoptimized; then
  plain_built=1
else
  plain_built=; echo "=== plain: BUILD FAILED"; status=1; summary+=("plain: build failed")
fi

# The sanitizer build, then the fuzz targets' (clang, libFuzzer), compile in the background while the plain
# tests, the demo (and, for the fuzz targets, the sanitizer tests) run, at the lowest CPU priority (nice 19):
# they take what the tests leave idle (a non-parallel test waiting on its peers, the tail of the last tests),
# not a core from them, and the build steps later find most of it done.  Each log is shown when its build fails.
bg_dir=$(mktemp -d)
fuzz_build() { # the fuzz targets' paths (relative to build-fuzz) in $bg_dir/fuzz.targets, when all are built
  local targets
  CC=clang setup build-fuzz -Dfuzz=true -Dtests=disabled &&
    mapfile -t targets < <(meson introspect --targets build-fuzz | python3 -c '
import json, os, sys
for t in json.load(sys.stdin):
    if t["type"] == "executable" and t["name"].startswith("fuzz_"):
        print(os.path.relpath(os.path.realpath(t["filename"][0]), os.path.realpath("build-fuzz")))') && ((${#targets[@]})) &&
    ninja -C build-fuzz "${targets[@]}" && printf '%s\n' "${targets[@]}" >"$bg_dir/fuzz.targets"
}
export -f setup build fuzz_build
export bg_dir
(
  nice -n 19 bash -c 'build build-san -Db_sanitize=address,undefined -Db_lundef=false' >"$bg_dir/san.log" 2>&1
  echo $? >"$bg_dir/san.rc"
  nice -n 19 bash -c fuzz_build >"$bg_dir/fuzz.log" 2>&1
) &
bg_pid=$!

[ -n "$plain_built" ] && run_suite plain build --built

# The README's first command on the plain build just made (deps installed, build up to date): it must exit 0 and
# the notification that reached its webhook must name the incast where the sample's truth.json injected it.
echo "=== demo: tools/demo.sh"
demo_log=$(mktemp)
if bash tools/demo.sh >"$demo_log" 2>&1 && python3 - data/samples/incast/truth.json out/notifications.jsonl <<'PY'
import json, sys
place = next(e["place"] for e in json.load(open(sys.argv[1]))["events"] if e["kind"] == "Incast")
sys.exit(0 if any(a["labels"].get("alertname") == "Incast" and a["labels"].get("node_name") == place["node"]
                  and a["labels"].get("port") == place["ifname"]
                  for line in open(sys.argv[2]) for a in json.loads(line)["alerts"]) else 1)
PY
then
  summary+=("demo: exit 0, the injected Incast notified")
else
  tail -40 "$demo_log"; status=1; summary+=("demo: FAILED (see log above)")
fi
rm -f "$demo_log"

echo "=== sanitizers: build (build-san, started in the background after the plain build)"
# its status file is written when it is done; the fuzz build goes on in the background during these tests
while [ ! -s "$bg_dir/san.rc" ] && kill -0 "$bg_pid" 2>/dev/null; do sleep 1; done
if [ "$(cat "$bg_dir/san.rc" 2>/dev/null)" = 0 ]; then
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1 run_suite sanitizers build-san --built
else
  tail -60 "$bg_dir/san.log"; echo "=== sanitizers: BUILD FAILED"; status=1; summary+=("sanitizers: build failed")
fi

# fuzz_one TARGET: TARGET for fuzz_seconds on a fresh corpus and fuzz/seeds; its output in $fuzz_dir/NAME.log,
# its exit status in $fuzz_dir/NAME.rc.
fuzz_one() {
  local name corpus
  name=$(basename "$1")
  corpus=$(mktemp -d)
  "$1" -max_total_time="$fuzz_seconds" -print_final_stats=1 "$corpus" "fuzz/seeds" >"$fuzz_dir/$name.log" 2>&1
  echo $? >"$fuzz_dir/$name.rc"
  rm -rf "$corpus"
}

# Only the fuzz targets are built (not the programs, benches and libraries again with clang), in the
# background above.  A libFuzzer run is one single-threaded process, so the targets run fuzz_jobs at a time
# (one per core: each still gets fuzz_seconds of a core to itself), then report in order.
echo "=== fuzz: build (clang, libFuzzer; in the background after the sanitizer build)"
wait "$bg_pid"
fuzz_targets=()
if [ -s "$bg_dir/fuzz.targets" ] && mapfile -t fuzz_targets <"$bg_dir/fuzz.targets"; then
  fuzz_jobs=${FUZZ_JOBS:-$(nproc)}
  fuzz_dir=$(mktemp -d)
  for t in "${fuzz_targets[@]}"; do
    while (($(jobs -rp | wc -l) >= fuzz_jobs)); do wait -n; done
    echo "=== fuzz: $(basename "$t") for ${fuzz_seconds}s"
    fuzz_one "build-fuzz/$t" &
  done
  wait
  for t in "${fuzz_targets[@]}"; do
    name=$(basename "$t")
    if [ "$(cat "$fuzz_dir/$name.rc" 2>/dev/null)" = 0 ]; then
      summary+=("fuzz $name: $(grep -o 'Done [0-9]* runs' "$fuzz_dir/$name.log" || echo done), no crash")
    else
      echo "=== fuzz: $name failed:"; tail -40 "$fuzz_dir/$name.log"; status=1; summary+=("fuzz $name: CRASH (see log above)")
    fi
  done
  rm -rf "$fuzz_dir"
else
  tail -60 "$bg_dir/fuzz.log"; status=1; summary+=("fuzz: build failed")
fi
rm -rf "$bg_dir"

echo
echo "=== summary"
printf '%s\n' "${summary[@]}"
python3 tools/testlog_summary.py build/meson-logs/testlog.json build-san/meson-logs/testlog.json --total
exit $status
