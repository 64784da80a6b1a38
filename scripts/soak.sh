#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The long exactly-once soak: the uet_perf_soak test's fault mix (20 % loss
# of data and ACKs, 5 % trimming, duplication and reordering, 0.1 %
# corruption, default timers) with every count multiplied by SCALE
# (default 10: 10^7 raw RUD messages, 1.2 x 10^7 in all). Prints one line
# per run (messages, seconds, rate, faults, retransmissions) and exits 0
# only if every message of every run was delivered exactly once with
# every byte right. Numbers of a run are in docs/PERFORMANCE.md
# ("Exactly-once soak").
#
# usage: scripts/soak.sh [BUILD_DIR [SCALE]]   (BUILD_DIR default build/gcc)
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build/gcc}
scale=${2:-10}
perf="$build/apps/uet-perf/uet-perf"

if [ ! -x "$perf" ]; then
    echo "soak.sh: $perf not found (build first: scripts/build.sh $build)" >&2
    exit 2
fi
case "$scale" in
    ''|*[!0-9]*) echo "soak.sh: SCALE must be 1..100" >&2; exit 2 ;;
esac
if [ "$scale" -lt 1 ] || [ "$scale" -gt 100 ]; then
    echo "soak.sh: SCALE must be 1..100" >&2
    exit 2
fi
echo "# uet-perf exactly-once soak x$scale, $(date -u), $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo '?')"
start=$(date +%s)
rc=0
python3 "$here/test/integration/check_uet_perf_integrity.py" "$perf" soak \
    "x$scale" || rc=$?
echo "# wall time $(( $(date +%s) - start )) s"
exit $rc
