#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Plot a `uet-perf --fabric --csv FILE` time series with gnuplot (Debian
# package gnuplot-nox, in scripts/install-deps.sh):
#
#   scripts/plot-fabric.sh [--format png|svg] [--title TEXT] CSV OUTPREFIX
#
# writes OUTPREFIX-queues.FORMAT (the deepest switch queue over time and
# the queues that reached the highest occupancy, up to 6) and
# OUTPREFIX-rates.FORMAT (the delivery rate of each flow over time, the
# first 16 flows). Default format: png. Exit 0 when both files are written.
set -euo pipefail

usage() {
	echo "usage: $0 [--format png|svg] [--title TEXT] CSV OUTPREFIX" >&2
	exit 2
}

fmt=png
title="uet-perf --fabric"
while [ $# -gt 0 ]; do
	case "$1" in
	--format)
		[ $# -ge 2 ] || usage
		fmt=$2
		shift 2
		;;
	--title)
		[ $# -ge 2 ] || usage
		title=$2
		shift 2
		;;
	-h | --help) usage ;;
	--) shift; break ;;
	-*) usage ;;
	*) break ;;
	esac
done
[ $# -eq 2 ] || usage
csv=$1
out=$2
case "$fmt" in
png) term="pngcairo size 960,540 noenhanced" ;;
svg) term="svg size 960,540 noenhanced dynamic" ;;
*) echo "$0: --format: png or svg" >&2; exit 2 ;;
esac
command -v gnuplot >/dev/null || {
	echo "$0: gnuplot not found (apt-get install gnuplot-nox)" >&2
	exit 1
}
head -n 1 "$csv" | grep -q '^time_us,' || {
	echo "$0: $csv: not a uet-perf --fabric --csv file" >&2
	exit 1
}
[ "$(wc -l < "$csv")" -ge 2 ] || {
	echo "$0: $csv: no rows" >&2
	exit 1
}
# gnuplot takes the title inside double quotes
title=${title//\"/\'}

# Column numbers: rate_gbps_* (first 16) and the 6 q_* with the highest
# maximum (only queues that were ever non-empty).
rates=$(head -n 1 "$csv" | tr ',' '\n' | grep -n '^rate_gbps_' | head -n 16 |
	cut -d: -f1 | tr '\n' ' ')
queues=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) name[i] = $i; next }
	{ for (i = 1; i <= NF; i++) if ($i + 0 > max[i]) max[i] = $i + 0 }
	END { for (i in name) if (name[i] ~ /^q_/ && max[i] > 0)
		print max[i], i }' "$csv" | sort -k1,1nr -k2,2n | head -n 6 |
	cut -d' ' -f2 | tr '\n' ' ')
qmax=$(head -n 1 "$csv" | tr ',' '\n' | grep -n '^queue_max_bytes$' |
	cut -d: -f1)

qplot="'$csv' using 1:$qmax with lines lw 2 title 'deepest queue'"
for c in $queues; do
	qplot+=", '' using 1:$c with lines title columnheader($c)"
done
rplot=""
for c in $rates; do
	rplot+="${rplot:+, }'$csv' using 1:$c with lines title columnheader($c)"
done
[ -n "$rplot" ] || rplot="0 title 'no flows'"

gnuplot <<EOF
set datafile separator ','
set terminal $term
set key outside right top
set grid
set xlabel 'time (us)'
set output '$out-queues.$fmt'
set title "$title: switch queues"
set ylabel 'data queue (bytes)'
plot $qplot
set output '$out-rates.$fmt'
set title "$title: delivery rate per flow"
set ylabel 'Gb/s'
plot $rplot
EOF
for f in "$out-queues.$fmt" "$out-rates.$fmt"; do
	[ -s "$f" ] || { echo "$0: $f not written" >&2; exit 1; }
done
echo "$out-queues.$fmt $out-rates.$fmt"
