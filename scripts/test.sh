#!/usr/bin/env bash
# The whole test suite: install what is missing, build with gcc and with
# clang (ASan + UBSan, fuzz targets), run every test, print one summary line.
#
# Schedule (2 cores): build/gcc first; then, while its tests run, the
# docs test's tree (build/release) and the sanitizer tree build at idle
# priority (nice 19) in the CPU time the tests leave; the docs test, which
# runs every example against build/release, waits for that build; the
# sanitizer run waits for its own.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

bash scripts/install-deps.sh || exit 1

jobs=${UET_TEST_JOBS:-2}
status=0
gcc_opts=(--werror -Dtests=enabled -Dapps=enabled -Dbuildtype=debugoptimized)
# keep in step with scripts/docs-test.py (the quick start's options)
release_opts=(-Dbuildtype=release -Dtests=enabled -Dapps=enabled)
# the fuzz targets for 5 s each: a smoke run (docs/DST.md "Fuzz" for
# campaigns)
asan_opts=(--werror -Dtests=enabled -Dapps=enabled -Dbuildtype=debug
	-Db_sanitize=address,undefined -Db_lundef=false -Dfuzz=enabled
	-Dfuzz_seconds=5)

build() { # dir options...
	if ! bash scripts/build.sh "$@"; then
		echo "test.sh: build of $1 failed" >&2
		return 1
	fi
}

# meson test of one tree; LOGBASE names its log (meson-logs/LOGBASE.json)
run_tests() { # dir logbase meson-test-options...
	local dir=$1 logbase=$2
	shift 2
	rm -f "$dir/meson-logs/$logbase.json"
	meson test -C "$dir" --print-errorlogs --num-processes "$jobs" \
		--logbase "$logbase" "$@" || status=1
}

# UBSan reports and goes on by default: a report in any process of the
# sanitizer run (a test, an engine it starts, a provider inside fi_pingpong)
# must fail that test, so every process stops at its first one.
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
# Leaks of system libraries, not ours, named one by one (scripts/lsan.supp).
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$top/scripts/lsan.supp:print_suppressions=0}"

rm -f build/gcc/meson-logs/testlog.json build/gcc/meson-logs/docslog.json \
	build/clang-asan/meson-logs/testlog.json
build build/gcc "${gcc_opts[@]}" || status=1

# The two other trees, one after the other, at idle priority (their
# failures show when they are built again below, in the foreground).
release_built=$(mktemp -u /tmp/uet-test-release.XXXXXX)
bg_builds() {
	renice -n 19 -p "$BASHPID" > /dev/null
	build build/release "${release_opts[@]}"
	touch "$release_built"
	CC=clang build build/clang-asan "${asan_opts[@]}"
}
# its own process group (job control on for it): stopped whole if this
# script ends first
set -m
bg_builds > /dev/null 2>&1 &
bg=$!
set +m
trap 'kill -- -"$bg" 2> /dev/null' EXIT

[ -f build/gcc/build.ninja ] && run_tests build/gcc testlog --no-suite docs
# the docs test once build/release is up to date
while [ ! -e "$release_built" ] && kill -0 "$bg" 2> /dev/null; do
	sleep 1
done
[ -f build/gcc/build.ninja ] && run_tests build/gcc docslog --suite docs
wait "$bg"
rm -f "$release_built"

if CC=clang build build/clang-asan "${asan_opts[@]}"; then
	run_tests build/clang-asan testlog
else
	status=1
fi

python3 scripts/test-summary.py build/gcc:testlog build/gcc:docslog \
	build/clang-asan:testlog || status=1
exit $status
