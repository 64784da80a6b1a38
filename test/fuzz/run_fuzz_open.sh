#!/bin/sh
# fuzz_dst inputs of open bugs (test/dst/fuzz-open): each file is named
# INVARIANT.WHAT and must still fail with that invariant, as the lines of
# test/dst/open.txt must (uet-dst does not replay fuzzer bytes).
#   run_fuzz_open.sh FUZZ_DST DIR
set -u
fuzzer=$1
dir=$2
fail=0
n=0
log=$(mktemp "${TMPDIR:-/tmp}/fuzz_open.XXXXXX") || exit 1
trap 'rm -f "$log"' EXIT
for f in "$dir"/*; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	inv=${f##*/}
	inv=${inv%%.*}
	"$fuzzer" "$f" >"$log" 2>&1
	line=$(grep -m1 '^fuzz_dst: ' "$log")
	case $line in
	"fuzz_dst: $inv: "*)
		echo "${f##*/}: still fails: ${line#fuzz_dst: }" ;;
	"")
		echo "${f##*/}: passes now: its $inv bug is fixed? remove the file"
		fail=$((fail + 1)) ;;
	*)
		echo "${f##*/}: fails otherwise: ${line#fuzz_dst: }"
		fail=$((fail + 1)) ;;
	esac
done
echo "$((n - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
