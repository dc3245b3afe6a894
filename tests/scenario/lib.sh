# Shared helpers for the scenario tests (sourced, not run): skip/fail, a temporary directory removed on exit.
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
dir=$(mktemp -d)
cleanup_extra() { :; }
trap 'cleanup_extra; rm -rf "$dir"' EXIT
