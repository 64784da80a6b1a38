#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Loss behaviour of the two reliable PDS modes side by side
# (docs/PERFORMANCE.md "Loss behaviour"): uet-perf's msgrate run (two
# engines in one process, one thread, ring ports, 64 B messages, the
# sender's data frames dropped by the fault injector) over ROD and over
# RUD, alternated R times at 1 % loss (1 M messages), then once each at
# 20 % loss (20 000 messages). Prints, per run, the message rate, the
# rate per CPU second (which descheduling does not lower) and the
# retransmissions per dropped frame. A benchmark, not a test: it asserts
# only that every run completed and verified.
#
# usage: scripts/bench-loss.sh [build dir] [repetitions]
#   (default build/release, 3)
set -u

BUILD=${1:-build/release}
REPS=${2:-3}
PERF=$BUILD/apps/uet-perf/uet-perf
if ! [ -x "$PERF" ]; then
	echo "bench-loss: no $PERF (build with -Dapps=enabled)" >&2
	exit 1
fi

echo "# bench-loss: $PERF, $REPS repetitions"
echo "# machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) CPUs"
echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-22s %12s %16s %14s %10s %8s\n' run msgs/s "msgs/CPU s" retransmitted dropped ratio

ERR=$(mktemp /tmp/uet-bench-loss.XXXXXX) || exit 1
trap 'rm -f "$ERR"' EXIT
fail=0
one() { # label args...
	local label=$1 out
	shift
	if ! out=$("$PERF" --mode msgrate "$@" --json 2> "$ERR"); then
		echo "FAILED: uet-perf --mode msgrate $*" >&2
		tail -5 "$ERR" >&2
		fail=1
		return
	fi
	python3 -c 'import json, sys
d = json.loads(sys.argv[2])
r = d["results"]["msgrate"]
retx, drop = r["retransmissions"], r.get("faults_dropped", 0)
ratio = "%.2f" % (retx / drop) if drop else "-"
ok = "" if d.get("verified") else "  NOT VERIFIED"
print("%-22s %12.0f %16.0f %14d %10d %8s%s" % (sys.argv[1], r["msgs_per_s"],
      r["msgs_per_cpu_s"], retx, drop, ratio, ok))' "$label" "$out" ||
		fail=1
}

for ((r = 1; r <= REPS; r++)); do
	one "rod 1 % ($r)" --pds rod
	one "rud 1 % ($r)" --pds rud
done
one "rod 20 %, 20 000" --pds rod --count 20000 --loss 200000
one "rud 20 %, 20 000" --pds rud --count 20000 --loss 200000
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $fail
