#!/usr/bin/env bash
# The whole test suite: install what is missing, build with gcc and with
# clang (ASan + UBSan, fuzz targets), run every test, print one summary line.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

bash scripts/install-deps.sh || exit 1

jobs=${UET_TEST_JOBS:-2}
status=0

run_flavour() {
	local dir=$1
	shift
	rm -f "$dir/meson-logs/testlog.json"
	if ! bash scripts/build.sh "$dir" --werror -Dtests=enabled -Dapps=enabled "$@"; then
		echo "test.sh: build of $dir failed" >&2
		status=1
		return
	fi
	meson test -C "$dir" --print-errorlogs --num-processes "$jobs" || status=1
}

# UBSan reports and goes on by default: a report in any process of the
# sanitizer run (a test, an engine it starts, a provider inside fi_pingpong)
# must fail that test, so every process stops at its first one.
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
# Leaks of system libraries, not ours, named one by one (scripts/lsan.supp).
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$top/scripts/lsan.supp:print_suppressions=0}"

run_flavour build/gcc -Dbuildtype=debugoptimized
CC=clang run_flavour build/clang-asan -Dbuildtype=debug \
	-Db_sanitize=address,undefined -Db_lundef=false -Dfuzz=enabled

python3 scripts/test-summary.py build/gcc build/clang-asan || status=1
exit $status
