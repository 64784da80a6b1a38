#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Sample a command's call stacks (perf record, cpu-clock, DWARF unwinding:
# the release build keeps no frame pointers) and draw them as a flame
# graph (scripts/flamegraph.py), keeping only the stacks that pass
# through ROOT ("-": every stack). Prints the command's output, then the
# 20 largest functions by inclusive and by self share of the drawn
# samples. FREQ sets the sampling rate (default 2999 Hz), TITLE the
# graph's title (default: the command).
#
# usage: scripts/flame.sh <out.svg> <ROOT|-> <command> [args...]
# e.g.:  scripts/flame.sh /tmp/ses.svg perf_sess_step \
#            build/release/apps/uet-perf/uet-perf --ulp ses --mode msgrate --loss 0
set -eu

OUT=${1:?usage: flame.sh <out.svg> <ROOT|-> <command> [args...]}
ROOT=${2:?usage: flame.sh <out.svg> <ROOT|-> <command> [args...]}
shift 2
[ $# -gt 0 ] || { echo "flame.sh: no command given" >&2; exit 2; }
case ${FREQ:-2999} in
''|*[!0-9]*) echo "flame.sh: FREQ must be a number of samples per second" >&2; exit 2 ;;
esac
command -v perf > /dev/null || { echo "flame.sh: perf not found (apt-get install linux-perf)" >&2; exit 2; }

HERE=$(cd "$(dirname "$0")" && pwd)
TMP=$(mktemp -d /tmp/flame.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

perf record -q -e cpu-clock -F "${FREQ:-2999}" --call-graph dwarf,16384 \
	-o "$TMP/perf.data" -- "$@"
ARGS=()
[ "$ROOT" = - ] || ARGS=(--root "$ROOT")
perf script -i "$TMP/perf.data" -F comm,tid,ip,sym,dso 2> /dev/null |
	python3 "$HERE/flamegraph.py" "${ARGS[@]}" --table 20 \
		--title "${TITLE:-$*}" > "$OUT"
echo "flame.sh: wrote $OUT"
