# Shared helpers for the collector's integration tests (sourced, not run).
# Each test creates what it needs (temp dir, network namespaces) and removes it on exit.

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
need_root() { [ "$(id -u)" -eq 0 ] || skip "needs root (network namespaces / DPDK)"; }

# count NAME FILE: the value of a "NAME N" line of the collector's end-of-run counters.
count() { awk -v k="$1" '$1 == k {print $2; f=1} END {if (!f) print 0}' "$2"; }

# Records without time_ns (live capture times are the receiver's, not the generator's).
strip_time() { sed -E 's/^\{"time_ns":[0-9]+,/{/' "$1"; }

# The DPDK EAL options every test uses: no hugepages, no shared config, no PCI scan.
EAL_COMMON=(--no-huge --no-shconf -m 512 --no-pci --log-level=4)

# wait_for_line FILE PATTERN SECONDS
wait_for_line() {
  local t=0
  while ! grep -q -- "$2" "$1" 2>/dev/null; do
    sleep 0.1; t=$((t + 1))
    [ "$t" -ge $(($3 * 10)) ] && return 1
  done
  return 0
}
