#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Congestion control on the emulated fabric (uet-perf --fabric, virtual
# time): every scenario of docs/CONGESTION.md "Results", each with NSCC,
# RCCC and both, over several seeds, summarised as one table:
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

set -euo pipefail

perf=build/release/apps/uet-perf/uet-perf
seeds="1 2 3"
ccs="nscc rccc nscc+rccc"
only=""
out=""
quick=0
list=0

usage() { sed -n '3,25p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-0}"; }

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
start=$SECONDS
while IFS='|' read -r name spec args; do
	if [ -n "$only" ] && [[ ",$only," != *",$name,"* ]]; then
		continue
	fi
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

python3 - "$dir" "$ccs" "$seeds" <<'EOF'
import glob, json, os, sys

d, ccs, seeds = sys.argv[1], sys.argv[2].split(), sys.argv[3].split()
runs = {}
for path in sorted(glob.glob(os.path.join(d, "*.json"))):
    name, cc, seed = os.path.basename(path)[:-5].rsplit(".", 2)
    try:
        runs[(name, cc, seed)] = json.load(open(path))
    except ValueError:
        pass
names = []
for (n, _, _) in runs:
    if n not in names:
        names.append(n)

def metrics(j):
    c = j["completion_us"]
    p = j["packets"]
    bdp = j["fabric"]["bdp_bytes"]
    port = j["bottleneck"]["port"]
    q = next((x for x in j["ports"] if x["port"] == port), None)
    return (c["ratio"], c["first"] / c["last"] if c["last"] else 0.0,
            100.0 * p["retransmitted"] / p["new"] if p["new"] else 0.0,
            q["queue_p50"] / bdp if q else 0.0,
            q["queue_p99"] / bdp if q else 0.0, port)

print("| scenario | CC | last/ideal (seeds %s) | first/last | retx %% "
      "| bottleneck | q p50 / p99 (BDP) |" % " / ".join(seeds))
print("|---|---|---|---|---|---|---|")
for n in names:
    for cc in ccs:
        m = [metrics(runs[(n, cc, s)]) for s in seeds if (n, cc, s) in runs]
        if not m:
            continue
        k = len(m)
        print("| %s | %s | %s | %.2f-%.2f | %.1f | %s | %.2f / %.2f |" % (
            n, cc, " / ".join("%.3f" % x[0] for x in m),
            min(x[1] for x in m), max(x[1] for x in m),
            sum(x[2] for x in m) / k, m[0][5],
            sum(x[3] for x in m) / k, sum(x[4] for x in m) / k))
EOF
echo "($(( SECONDS - start )) s wall)"
exit "$failed"
