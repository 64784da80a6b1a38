#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The in-process uet-perf numbers of docs/PERFORMANCE.md in one run: two
# engines in one process, polled inline by one thread, joined by ring
# ports, each configuration over the raw-PDS test ULP (every byte checked)
# and over the SES (front-end channels, as the libfabric provider uses
# it), so that the two paths are measured side by side on the same
# machine at the same moment. Runs interleave (raw, ses, raw, ...) and
# repeat R times; the table at the end gives the median and the range of
# each row. The machine (CPU model, CPUs, load average before and after)
# and the build's type are printed with the numbers. A benchmark, not a
# test: it asserts only that every run completed and verified.
# BEFORE=<other build dir> runs every row with that build too, right
# before the same row of this one ("name [before]"): two versions
# compared run for run under the same load. ONLY=<regex> keeps the rows
# whose name matches (e.g. ONLY='msgrate').
#
# usage: scripts/bench-perf.sh [build dir] [repetitions]
#   (default build/release, 3)
set -u

BUILD=${1:-build/release}
REPS=${2:-3}
BEFORE=${BEFORE:-}
ONLY=${ONLY:-}
BUILDS=("$BUILD")
[ -n "$BEFORE" ] && BUILDS=("$BEFORE" "$BUILD")
for b in "${BUILDS[@]}"; do
	if ! [ -x "$b/apps/uet-perf/uet-perf" ]; then
		echo "bench-perf: no $b/apps/uet-perf/uet-perf (build with" \
		     "-Dapps=enabled)" >&2
		exit 1
	fi
done
TMP=$(mktemp -d /tmp/uet-bench.XXXXXX) || exit 1
trap 'rm -rf "$TMP"' EXIT

# name | uet-perf arguments (64 B messages unless stated)
RUNS=(
	"raw msgrate, no loss|--mode msgrate --loss 0"
	"ses msgrate, no loss|--ulp ses --mode msgrate --loss 0"
	"raw msgrate, 1 % loss|--mode msgrate"
	"ses msgrate, 1 % loss|--ulp ses --mode msgrate"
	"raw latency|--mode latency"
	"ses latency|--ulp ses --mode latency"
	"raw bw 64 KiB|--mode bw"
	"ses bw 64 KiB write|--ulp ses --mode bw --op write"
	"ses bw 64 KiB read|--ulp ses --mode bw --op read"
	"ses bw 64 KiB send|--ulp ses --mode bw --op send"
)

for b in "${BUILDS[@]}"; do
	buildtype=$(python3 -c 'import json, sys
for o in json.load(open(sys.argv[1])):
    if o["name"] == "buildtype": print(o["value"])' \
		"$b/meson-info/intro-buildoptions.json" 2>/dev/null)
	echo "# bench-perf: $b/apps/uet-perf/uet-perf (buildtype" \
	     "${buildtype:-unknown}), $REPS repetitions"
done
echo "# machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) CPUs"
echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

fail=0
for ((r = 1; r <= REPS; r++)); do
	for i in "${!RUNS[@]}"; do
		name=${RUNS[$i]%%|*}
		args=${RUNS[$i]#*|}
		[ -n "$ONLY" ] && ! [[ $name =~ $ONLY ]] && continue
		for b in "${BUILDS[@]}"; do
			tag=
			[ "$b" = "$BUILD" ] || tag=" [before]"
			out=$TMP/$i.$r${tag:+.before}.json
			# shellcheck disable=SC2086 # args are words
			if ! "$b/apps/uet-perf/uet-perf" $args --json > "$out" \
			     2> "$TMP/err"; then
				echo "FAILED: $b: uet-perf $args" >&2
				cat "$TMP/err" >&2
				fail=1
			fi
			echo "$name$tag|$out" >> "$TMP/index"
		done
	done
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$TMP/index" <<'EOF'
import json, statistics, sys

rows = {}
order = []
for line in open(sys.argv[1]):
    name, path = line.rstrip("\n").split("|")
    if name not in rows:
        rows[name] = []
        order.append(name)
    try:
        doc = json.load(open(path))
    except (OSError, ValueError):
        continue
    if not doc.get("verified"):
        print(f"NOT VERIFIED: {name}")
        continue
    res = next(iter(doc["results"].values()))
    rows[name].append(res)

def span(vals, fmt):
    if not vals:
        return "-"
    med = statistics.median(vals)
    return f"{fmt(med)} ({fmt(min(vals))}-{fmt(max(vals))})"

# the per-side cost scaled to the thread's CPU time (uet-perf's "per side
# scaled to CPU time"): what descheduling does not inflate
def cpu_ns(r, side):
    share = r["cpu_seconds"] / r["seconds"] if r["seconds"] else 1.0
    return r["ns_per_msg_" + side] * share

M = lambda v: f"{v / 1e6:.2f} M"
F3 = lambda v: f"{v:.3f}"
NS = lambda v: f"{v:.0f}"
US = lambda v: f"{v / 1e3:.2f}"
GB = lambda v: f"{v:.2f}"

print()
print("| run | median (range) |")
print("|---|---|")
for name in order:
    rs = rows[name]
    if not rs:
        print(f"| {name} | failed |")
        continue
    if "latency_ns" in rs[0]:
        cell = ("RTT p50 " + span([r["latency_ns"]["p50"] for r in rs], US)
                + " µs, p99 " + span([r["latency_ns"]["p99"] for r in rs], US)
                + " µs")
    elif "msgrate" in name:
        cell = (span([r["msgs_per_s"] for r in rs], M) + " msgs/s, "
                + span([r["msgs_per_cpu_s"] for r in rs], M)
                + " per CPU second; CPU ns/msg A "
                + span([cpu_ns(r, "a") for r in rs], NS) + ", B "
                + span([cpu_ns(r, "b") for r in rs], NS)
                + "; ACK frames/msg "
                + span([r["acks"] / max(r["count"], 1) for r in rs], F3)
                + "; retransmissions "
                + span([r["retransmissions"] for r in rs], NS) + " for "
                + span([r.get("faults_dropped", 0) for r in rs], NS)
                + " drops")
    else:
        cell = (span([r["gbytes_per_s"] for r in rs], GB) + " GB/s, "
                + span([r["gbytes_per_s"] * r["seconds"] / r["cpu_seconds"]
                        for r in rs if r.get("cpu_seconds")], GB)
                + " GB per CPU second")
    print(f"| {name} | {cell} |")
EOF
exit $fail
