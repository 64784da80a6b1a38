#!/usr/bin/env bash
# Line and branch coverage of src/pds, src/ses and src/cms under the
# deterministic simulator (docs/DST.md), with gcc --coverage and gcov.
#   scripts/dst-coverage.sh [SEEDS]     (default 2000: seeds 1..SEEDS)
# Builds build/coverage (only what uet-dst and the PDS and SES unit tests
# need), runs the seeds with each plan generator (uet-dst --gen 1 to 4)
# and the replay list, and prints per directory: lines executed, branches
# taken at least once; then the same with the unit tests of the PDS and
# the SES (test/unit/test_pds_*, test_ses_*) run too, which reach what no
# traffic does (argument checks, exhausted pools, the cpu-coherent atomic).
# Per-file figures: build/coverage/dst-coverage.txt and
# build/coverage/dst-unit-coverage.txt.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
seeds=${1:-2000}
case $seeds in '' | *[!0-9]*) echo "dst-coverage.sh: SEEDS must be a number" >&2; exit 2 ;; esac
dir=build/coverage

if [ ! -f "$dir/build.ninja" ]; then
	CC=gcc meson setup "$dir" -Dtests=enabled -Dapps=disabled \
		-Dbuildtype=debug -Db_coverage=true >/dev/null
fi
units=$(ls test/unit/test_pds_*.c test/unit/test_ses_*.c | sed 's/\.c$//')
# shellcheck disable=SC2086
ninja -C "$dir" test/dst/uet-dst $units >/dev/null
find "$dir" -name '*.gcda' -delete
# failures are the simulator's to report; coverage is measured either way
# (every plan generator: the suite's block, every operation, and
# generator 3's profiles, multi-recv buffers and MR table changes)
"$dir/test/dst/uet-dst" --seeds "1:$seeds" | tail -n 2 || true
"$dir/test/dst/uet-dst" --seeds "1:$seeds" --gen 2 | tail -n 2 || true
"$dir/test/dst/uet-dst" --seeds "1:$seeds" --gen 3 | tail -n 2 || true
"$dir/test/dst/uet-dst" --seeds "1:$seeds" --gen 4 | tail -n 2 || true
"$dir/test/dst/uet-dst" --replay test/dst/seeds.txt | tail -n 1 || true

# report OUT: per-file figures into OUT, the summary per directory
report() {
	out=$1
	: >"$out"
	for m in pds ses cms; do
		obj=$(find "$dir/src/$m" -name '*.p' -type d | head -n 1)
		for src in src/$m/*.c; do
			# gcov -n: summary only, no .gcov files
			gcov -n -b -o "$obj/$(basename "$src").o" "$src" 2>/dev/null |
				awk -v f="$src" '
				/^File/ { cur = $2; gsub(/\047/, "", cur) }
				/^Lines executed/ && index(cur, f) {
					split($2, a, "%"); sub(/.*:/, "", a[1]); l = a[1]; ln = $4 }
				/^Taken at least once/ && index(cur, f) {
					split($4, b, "%"); sub(/.*:/, "", b[1]); br = b[1]; bn = $6 }
				END { if (ln) printf "%s %s %s %s %s\n", f, l, ln, br + 0, bn + 0 }' >>"$out"
		done
	done
	awk '{
		split($1, p, "/"); m = p[2]
		lt[m] += $3; lh[m] += $2 * $3 / 100; bt[m] += $5; bh[m] += $4 * $5 / 100
	} END {
		for (m in lt)
			printf "src/%s: lines %.1f%% of %d, branches %.1f%% of %d\n", m,
				100 * lh[m] / lt[m], lt[m], bt[m] ? 100 * bh[m] / bt[m] : 0, bt[m]
	}' "$out" | sort
	echo "per file: $out"
}

echo "uet-dst:"
report "$dir/dst-coverage.txt"
fails=0
for t in $units; do
	"$dir/$t" >/dev/null 2>&1 || { echo "$t failed" >&2; fails=1; }
done
echo "uet-dst and the PDS and SES unit tests:"
report "$dir/dst-unit-coverage.txt"
exit $fails
