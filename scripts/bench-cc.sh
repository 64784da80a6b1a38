#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Congestion control on the emulated fabric (uet-perf --fabric, virtual
# time): every scenario of docs/CONGESTION.md "Results", each with NSCC,
# RCCC and both (or --cc), over several seeds, summarised as one table:
#
#   last/ideal   completion of the last flow over uet-perf's ideal (the
#                bytes through the busiest host link at line rate, frames
#                and gaps included, after the unloaded path), per seed
#   first/last   completion of the first flow over the last (min-max)
#   retx %       retransmitted data packets over new ones (mean)
#   q p50/p99    the bottleneck port's data queue (the deepest one of the
#                run) as found by arriving frames, in BDPs (mean)
#
# Usage: scripts/bench-cc.sh [--quick] [--perf PATH] [--seeds "1 2 3"]
#            [--cc "nscc rccc nscc+rccc"] [--only NAME[,NAME...]]
#            [--out DIR] [--list]
#   --quick  two small scenarios (256 KiB flows), one seed: under a minute
#   --out    keep every run's JSON there (default: a temporary directory,
#            removed at the end)
#   --list   the scenarios and their uet-perf arguments, nothing run
# Every run must deliver every message exactly once: a run that does not
# (uet-perf exit status not 0) fails the script (exit 1), after the table.
# scripts/cc-results.py makes docs/CONGESTION.md's tables from these runs.

set -euo pipefail

perf=build/release/apps/uet-perf/uet-perf
seeds="1 2 3"
ccs="nscc rccc nscc+rccc"
only=""
out=""
quick=0
list=0

usage() { sed -n '3,26p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-0}"; }

while [ $# -gt 0 ]; do
	case "$1" in
	--quick) quick=1 ;;
	--perf) perf="$2"; shift ;;
	--seeds) seeds="$2"; shift ;;
	--cc) ccs="$2"; shift ;;
	--only) only="$2"; shift ;;
	--out) out="$2"; shift ;;
	--list) list=1 ;;
	-h|--help) usage 0 ;;
	*) echo "bench-cc.sh: unknown argument '$1'" >&2; usage 2 >&2 ;;
	esac
	shift
done

K4="topology=fat_tree,k=4,hosts=16"
K8="topology=fat_tree,k=8,hosts=128"
LS32="hosts=32,hosts_per_leaf=8,spines=8"
LS64="hosts=64,hosts_per_leaf=8,spines=8"

# name | --fabric spec | uet-perf arguments (2 MiB flows of 64 KiB messages)
scenarios_full() {
	cat <<EOF
incast15|$K4|--pattern incast --spray single
incast15-loss|$K4,loss_ppm=10000|--pattern incast --spray single
perm-reps|$K4|--pattern permutation --spray reps
perm-oblivious|$K4|--pattern permutation --spray oblivious
perm-reps-fail|$K4,fail=leaf0-spine1@50us|--pattern permutation --spray reps
perm-single|$K4|--pattern permutation --spray single
perm-single-fail|$K4,fail=leaf0-spine1@50us|--pattern permutation --spray single
incast31|$LS32|--pattern incast --spray single
incast63|$LS64|--pattern incast --spray single
incast64-k8|$K8|--pattern incast:64 --spray single
EOF
}

scenarios_quick() {
	cat <<EOF
incast15|$K4|--pattern incast --spray single --flow-size 256K
perm-reps|$K4|--pattern permutation --spray reps --flow-size 256K
EOF
}

if [ "$quick" = 1 ]; then
	scenarios() { scenarios_quick; }
	seeds="${BENCH_CC_SEEDS:-1}"
else
	scenarios() { scenarios_full; }
fi

for n in ${only//,/ }; do
	if ! scenarios | cut -d'|' -f1 | grep -qx -- "$n"; then
		echo "bench-cc.sh: --only: no scenario '$n' (--list)" >&2
		exit 2
	fi
done

if [ "$list" = 1 ]; then
	scenarios | while IFS='|' read -r name spec args; do
		if [ -z "$only" ] || [[ ",$only," == *",$name,"* ]]; then
			echo "$name: uet-perf --fabric $spec $args --cc CC" \
			     "--seed S"
		fi
	done
	exit 0
fi

if [ ! -x "$perf" ]; then
	echo "bench-cc.sh: no uet-perf at $perf (bash scripts/quickstart.sh" \
	     "builds it, or give --perf PATH)" >&2
	exit 2
fi

if [ -n "$out" ]; then
	mkdir -p "$out"
	dir="$out"
else
	dir=$(mktemp -d "${TMPDIR:-/tmp}/bench-cc.XXXXXX")
	trap 'rm -rf "$dir"' EXIT
fi

failed=0
ran=""
start=$SECONDS
while IFS='|' read -r name spec args; do
	if [ -n "$only" ] && [[ ",$only," != *",$name,"* ]]; then
		continue
	fi
	ran="$ran${ran:+,}$name"
	for cc in $ccs; do
		for s in $seeds; do
			js="$dir/$name.$cc.$s.json"
			# shellcheck disable=SC2086 # args is a word list
			if ! "$perf" --fabric "$spec" $args --cc "$cc" \
			     --seed "$s" --json "$js" >"$dir/$name.$cc.$s.txt" \
			     2>&1; then
				echo "bench-cc.sh: $name $cc seed $s failed:" \
				     "$(tail -n 3 "$dir/$name.$cc.$s.txt")" >&2
				failed=1
			fi
		done
	done
done < <(scenarios)

python3 "$(dirname "$0")/cc-results.py" --summary "$dir" --names "$ran" \
	--seeds "$seeds" --ccs "$ccs"
echo "($(( SECONDS - start )) s wall)"
exit "$failed"
