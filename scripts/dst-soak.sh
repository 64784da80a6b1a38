#!/usr/bin/env bash
# Run deterministic-simulation seeds until stopped, or for a count or a
# time, and report seeds per hour and every failing seed (docs/DST.md).
#   scripts/dst-soak.sh [--first N] [--count N] [--minutes M] [--gen G]
#                       [--build DIR] [--pds KEY=VALUE]...
# DIR: a build with tests enabled (default build/release, else build/gcc).
# G: the plan generator (uet-dst --gen; default 1).
# --pds: passed to uet-dst for every node (e.g. syn_quiet=1).
# Seeds go in blocks of 1000 from --first (default: a random start, printed);
# each failure line names the seed to replay with uet-dst --seed N --shrink.
# Exits 1 if any seed failed. Ctrl-C stops after the current block.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
first=$(( (RANDOM << 30 | RANDOM << 15 | RANDOM) + 1000000 ))
count=0
minutes=0
gen=1
pds=()
build=build/release
[ -x "$build/test/dst/uet-dst" ] || build=build/gcc
usage() {
	echo "usage: dst-soak.sh [--first N] [--count N] [--minutes M] [--gen G] [--build DIR] [--pds KEY=VALUE]" >&2
	exit 2
}
while [ $# -gt 0 ]; do
	[ $# -ge 2 ] || usage
	case $1 in
	--first) first=$2; shift 2 ;;
	--count) count=$2; shift 2 ;;
	--minutes) minutes=$2; shift 2 ;;
	--gen) gen=$2; shift 2 ;;
	--build) build=$2; shift 2 ;;
	--pds) pds+=(--pds "$2"); shift 2 ;;
	*) usage ;;
	esac
done
for v in "$first" "$count" "$minutes" "$gen"; do
	case $v in '' | *[!0-9]*) echo "dst-soak.sh: numbers only" >&2; exit 2 ;; esac
done
dst=$build/test/dst/uet-dst
if [ ! -x "$dst" ]; then
	echo "dst-soak.sh: $dst not built (ninja -C $build test/dst/uet-dst)" >&2
	exit 2
fi
stop=0
trap 'stop=1' INT TERM
start=$(date +%s)
done_n=0
failed=0
seed=$first
echo "dst-soak: seeds from $first (generator $gen)${pds[*]:+, ${pds[*]}}"
while [ $stop -eq 0 ]; do
	n=1000
	if [ "$count" -gt 0 ]; then
		[ $done_n -ge "$count" ] && break
		[ $((count - done_n)) -lt $n ] && n=$((count - done_n))
	fi
	if [ "$minutes" -gt 0 ] && [ $(( $(date +%s) - start )) -ge $((minutes * 60)) ]; then
		break
	fi
	out=$("$dst" --seeds "$seed:$((seed + n - 1))" --gen "$gen" "${pds[@]}")
	grep FAILED <<<"$out" | sed "s/\$/ (--gen $gen${pds[*]:+ ${pds[*]}})/"
	f=$(sed -n 's/^[0-9]* passed, \([0-9]*\) failed$/\1/p' <<<"$out")
	failed=$((failed + ${f:-0}))
	done_n=$((done_n + n))
	seed=$((seed + n))
done
secs=$(( $(date +%s) - start ))
[ $secs -eq 0 ] && secs=1
echo "dst-soak: $done_n seeds ($first..$((seed - 1))) in ${secs}s," \
	"$((done_n * 3600 / secs)) seeds/hour, $failed failed"
echo "$((done_n - failed)) passed, $failed failed"
[ $failed -eq 0 ]
