#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# MPI latency and bandwidth, two ranks on this host, Open MPI's pml cm +
# mtl ofi over three libfabric providers in one run:
#   uet          this provider's own RDM entry (HPC profile), the ranks
#                joined by net_memif, inline progress, one configuration
#                file for both (per-rank tokens, docs/PROVIDER.md)
#   udp;ofi_rxd  libfabric's udp provider under its rxd utility
#   tcp;ofi_rxm  libfabric's tcp provider under its rxm utility (loopback)
# with mpi_pingpong -b: per size, latency = half the round trip of a
# checked ping-pong, bandwidth = windows of 16 non-blocking sends, each
# window acknowledged. A benchmark, not a test: it prints numbers and
# asserts only that every run completed.
#
# usage: scripts/mpi-bench.sh <build dir> [iterations]
# PROVIDERS="uet tcp;ofi_rxm" (environment) runs only those; MTU=1500
# runs uet's memif port at that MTU (default auto: the port's, 9000; the
# Open MPI tests run 1500).
set -u

BUILD=$(cd "${1:?build dir}" && pwd)
ITERS=${2:-100}
PROG=$BUILD/test/ofi/mpi_pingpong
TMP=$(mktemp -d /tmp/uet-mpibench.XXXXXX) || exit 1
tag="uetmpib$$"
trap 'rm -rf "$TMP"; rm -rf /var/run/dpdk/${tag}r0 /var/run/dpdk/${tag}r1' EXIT

if ! [ -x "$PROG" ] || ! command -v mpirun > /dev/null; then
	echo "needs Open MPI and $PROG (build with -Dtests=enabled)" >&2
	exit 1
fi
. "$(dirname "$0")/../test/ofi/mpi-job-conf.sh"
mpi_job_conf "$TMP/job.conf" "$TMP" "$tag" "${MTU:-auto}"

root=()
[ "$(id -u)" -eq 0 ] && root=(--allow-run-as-root)
export FI_PROVIDER_PATH=$BUILD/src/ofi FI_LOG_LEVEL=warn
export FI_UET_PROVIDER_CONFIG=$TMP/job.conf
unset FI_PROVIDER FI_UET_PROVIDER_EAL_ARGS FI_UET_PROVIDER_PROFILES

echo "# mpi_pingpong -b -i $ITERS, uet MTU ${MTU:-auto}, Open MPI $(mpirun --version | head -1 | awk '{print $NF}'), $(date -u)"
for prov in ${PROVIDERS:-uet udp;ofi_rxd tcp;ofi_rxm}; do
	out=$TMP/out
	timeout 300 mpirun "${root[@]}" --oversubscribe --bind-to none -np 2 \
		--mca pml cm --mca mtl ofi --mca mtl_ofi_provider_include "$prov" \
		-x FI_PROVIDER_PATH -x FI_LOG_LEVEL -x FI_UET_PROVIDER_CONFIG \
		"$PROG" -b -i "$ITERS" > "$out" 2>&1
	if [ $? -ne 0 ] || ! grep -q '^mpi_pingpong: OK$' "$out"; then
		echo "$prov: FAILED"
		tail -20 "$out"
		continue
	fi
	echo "## $prov"
	grep -E '^ +(bytes|[0-9]+) ' "$out"
done
