#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# An MPI job over the uet provider's own RDM entry: Open MPI (Debian's,
# pml cm + mtl ofi, provider_include uet), two ranks on this host joined
# by net_memif, inline progress, both started by mpirun with the same
# environment and ONE configuration file whose per-process fields are
# tokens (%{server,client}, %{0,1}, %p: docs/PROVIDER.md). The program
# (mpi_pingpong) ping-pongs every power of two from 8 B to 1 MiB with the
# data checked, then checks an MPI_Allreduce. The job runs RUNS times
# (default 5), each bounded in time, so that start and exit races show:
# every run must end with status 0 and "mpi_pingpong: OK"; a crash, a
# hang, an error in any run fails the test. A last run starts the memif
# server rank a second after the client rank.
#
# usage: test_ofi_mpi.sh <mpirun> <mpi_pingpong> [runs]
# Exit 77 (skip) only when Open MPI is not installed.
set -u

MPIRUN=${1:-}
PROG=${2:-}
RUNS=${3:-5}
LIMIT=60

if [ -z "$MPIRUN" ] || ! [ -x "$MPIRUN" ] || [ -z "$PROG" ] ||
    ! [ -x "$PROG" ]; then
	echo "SKIP: Open MPI (mpirun, mpicc) not installed"
	exit 77
fi
export FI_PROVIDER_PATH=${FI_PROVIDER_PATH:?}
# no provider filter: the ranks must find uet's own RDM entry by
# themselves; no EAL arguments or configuration but the job's file
unset FI_PROVIDER FI_UET_PROVIDER_EAL_ARGS FI_UET_PROVIDER_CONFIG
tag="uetmpi$$"

TMP=$(mktemp -d /tmp/uet-mpi.XXXXXX) || exit 1
cleanup() {
	rm -rf "$TMP"
}
trap cleanup EXIT

. "$(dirname "$0")/mpi-job-conf.sh"
mpi_job_conf "$TMP/job.conf" "$TMP" "$tag"

# the ranks on this host inherit mpirun's environment (-x forwards it to
# every rank of a multi-host job, but only to the first application
# context of an MPMD command line)
export FI_LOG_LEVEL=warn FI_UET_PROVIDER_CONFIG="$TMP/job.conf" \
	FI_UET_PROVIDER_PROFILES=hpc
root=()
[ "$(id -u)" -eq 0 ] && root=(--allow-run-as-root)
# sanitizer builds: the runtime the provider needs, in every rank
pass_env=()
for v in LD_PRELOAD ASAN_OPTIONS UBSAN_OPTIONS; do
	[ -n "${!v:-}" ] && pass_env+=(-x "$v")
done

# EAL runtime directories of our ranks (DPDK leaves them behind)
runtime_clean() {
	local base r
	for base in /var/run/dpdk "${XDG_RUNTIME_DIR:-/nonexistent}/dpdk"; do
		for r in 0 1; do
			[ -d "$base/${tag}r$r" ] && rm -rf -- "${base:?}/${tag}r$r"
		done
	done
}

# one run: mpirun with the given application context(s)
mpi_run() { # output-file app-context...
	local out=$1
	shift
	timeout --kill-after=5 "$LIMIT" "$MPIRUN" "${root[@]}" --oversubscribe \
		--bind-to none \
		--mca pml cm --mca mtl ofi --mca mtl_ofi_provider_include uet \
		-x FI_PROVIDER_PATH -x FI_LOG_LEVEL -x FI_UET_PROVIDER_CONFIG \
		-x FI_UET_PROVIDER_PROFILES "${pass_env[@]}" \
		"$@" > "$out" 2>&1
}

check_run() { # name exit-status output-file
	if [ "$2" -ne 0 ] || ! grep -q '^mpi_pingpong: OK$' "$3"; then
		echo "FAIL: $1: exit $2"
		tail -n 60 "$3"
		return 1
	fi
	# without -b no bandwidth column (it printed 0.0 for every size)
	if grep -q 'bw_MB/s' "$3" || grep -qE '^ +8 +[0-9.]+ +[0-9.]+$' "$3"; then
		echo "FAIL: $1: a bandwidth column without -b"
		return 1
	fi
	echo "# $1: $(grep -E '^ +(8|1048576) ' "$3" | tr -s ' ' | tr '\n' ';')"
	return 0
}

rc=0
for run in $(seq "$RUNS"); do
	mpi_run "$TMP/run$run.out" -np 2 "$PROG"
	st=$?
	runtime_clean
	check_run "run $run of $RUNS" $st "$TMP/run$run.out" || rc=1
done
# the memif server (rank 0) starts a second late: the client's port finds
# no socket and must wait for it instead of failing fi_fabric
mpi_run "$TMP/late.out" -np 1 /bin/sh -c 'sleep 1; exec "$0" "$@"' "$PROG" \
	: -np 1 "$PROG"
st=$?
runtime_clean
check_run "server rank late" $st "$TMP/late.out" || rc=1
[ $rc -eq 0 ] && echo "PASS: $RUNS MPI runs over uet, and one with the server late"
exit $rc
