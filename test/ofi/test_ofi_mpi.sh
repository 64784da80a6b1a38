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
# hang, an error in any run fails the test. A run starts the memif
# server rank a second after the client rank. No provider variable is set
# but the configuration path (the defaults a user has); a last run gives
# each rank another profile and must fail at startup, naming the mismatch.
#
# With UET_DUMP (uet-dump's path) set, one more job runs with the
# transport security sublayer on ([tss], direct mode, SDI 7 over the
# job's JobIDs; a shorter ping-pong, -i 2 -m 64K, data checked as
# always): every UET frame rank 0 captured is protected, each opens with
# the domain key (uet-dump --tss-key), none with another key.
#
# One more job runs with AUTO progress (the job file's [engine] progress
# = auto, an engine lcore in each rank).
#
# With <mpi_onesided>, one more job runs MPI one-sided (osc rdma over btl
# ofi: put, get, accumulate, fetch-and-op, data checked) and two-sided
# (mtl ofi) together: two fi_fabric() in each rank, on one engine.
#
# usage: test_ofi_mpi.sh <mpirun> <mpi_pingpong> [runs] [mpi_onesided]
# Exit 77 (skip) only when Open MPI is not installed.
set -u

MPIRUN=${1:-}
PROG=${2:-}
RUNS=${3:-5}
ONESIDED=${4:-}
LIMIT=60

if [ -z "$MPIRUN" ] || ! [ -x "$MPIRUN" ] || [ -z "$PROG" ] ||
    ! [ -x "$PROG" ]; then
	echo "SKIP: Open MPI (mpirun, mpicc) not installed"
	exit 77
fi
export FI_PROVIDER_PATH=${FI_PROVIDER_PATH:?}
# no provider filter: the ranks must find uet's own RDM entry by
# themselves; no EAL arguments, profiles or configuration but the job's
# file: the defaults a user has
unset FI_PROVIDER FI_UET_PROVIDER_EAL_ARGS FI_UET_PROVIDER_CONFIG \
	FI_UET_PROVIDER_PROFILES
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
export FI_LOG_LEVEL=warn FI_UET_PROVIDER_CONFIG="$TMP/job.conf"
# Open MPI's shared-memory files (vader_segment.*) of a rank that ends
# without its cleanup: in $TMP, removed with it, not left in /dev/shm
export OMPI_MCA_btl_vader_backing_directory="$TMP"
root=()
[ "$(id -u)" -eq 0 ] && root=(--allow-run-as-root)
# sanitizer builds: the runtime the provider needs, in every rank
pass_env=()
for v in LD_PRELOAD ASAN_OPTIONS UBSAN_OPTIONS; do
	[ -n "${!v:-}" ] && pass_env+=(-x "$v")
done

# EAL runtime directories of our ranks: a rank that exits removes its own
# (DPDK alone leaves it behind); prints and removes what is left
runtime_clean() {
	local base r
	for base in /var/run/dpdk "${XDG_RUNTIME_DIR:-/nonexistent}/dpdk"; do
		for r in 0 1; do
			[ -d "$base/${tag}r$r" ] || continue
			echo "$base/${tag}r$r"
			rm -rf -- "${base:?}/${tag}r$r"
		done
	done
}

# one run: mpirun with the given application context(s), and the MCA
# parameters in extra_mca
extra_mca=()
mpi_run() { # output-file app-context...
	local out=$1
	shift
	timeout --kill-after=5 "$LIMIT" "$MPIRUN" "${root[@]}" --oversubscribe \
		--bind-to none \
		--mca pml cm --mca mtl ofi --mca mtl_ofi_provider_include uet \
		"${extra_mca[@]}" \
		-x FI_PROVIDER_PATH -x FI_LOG_LEVEL -x FI_UET_PROVIDER_CONFIG \
		"${pass_env[@]}" \
		"$@" > "$out" 2>&1
}

check_run() { # name exit-status output-file [program]
	local left
	left=$(runtime_clean)
	if [ "$2" -ne 0 ] || ! grep -q "^${4:-mpi_pingpong}: OK\$" "$3"; then
		echo "FAIL: $1: exit $2"
		tail -n 60 "$3"
		return 1
	fi
	if [ -n "$left" ]; then
		echo "FAIL: $1: EAL runtime directories left:" $left
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
	check_run "run $run of $RUNS" $st "$TMP/run$run.out" || rc=1
done
# the memif server (rank 0) starts a second late: the client's port finds
# no socket and must wait for it instead of failing fi_fabric (not with
# MPI_PLACEMENT_JOBS=0: the sanitizer build runs each kind of job once)
if [ "${MPI_PLACEMENT_JOBS:-1}" != 0 ]; then
	mpi_run "$TMP/late.out" -np 1 /bin/sh -c 'sleep 1; exec "$0" "$@"' \
		"$PROG" : -np 1 "$PROG"
	st=$?
	check_run "server rank late" $st "$TMP/late.out" || rc=1
else
	echo "# server rank late: not run (MPI_PLACEMENT_JOBS=0)"
fi
# no configuration at all (the built-in default: one net_ring port in
# each process, which no other process reaches): the job must end in
# error with the reason said, not wait for good for the messages its
# fi_tinject sent nowhere (unsanitized only, like the late server)
if [ "${MPI_PLACEMENT_JOBS:-1}" != 0 ]; then
	(unset FI_UET_PROVIDER_CONFIG FI_LOG_LEVEL
	 mpi_run "$TMP/noconf.out" -np 2 "$PROG")
	st=$?
	runtime_clean > /dev/null
	if [ $st -eq 0 ] || [ $st -eq 124 ] || [ $st -eq 137 ] ||
		! grep -q "the net_ring of the built-in default configuration" \
			"$TMP/noconf.out" ||
		! grep -q "Error returned from fi_cq_read: Input/output error" \
			"$TMP/noconf.out"; then
		echo "FAIL: no configuration: exit $st, no error named"
		tail -n 40 "$TMP/noconf.out"
		rc=1
	else
		echo "# no configuration: exit $st, $(grep -m1 -o 'an injected send failed: [^;]*' "$TMP/noconf.out")"
	fi
fi
# one-sided (osc rdma, btl ofi) and two-sided (mtl ofi) in one job
if [ -n "$ONESIDED" ]; then
	extra_mca=(--mca osc rdma --mca btl self,ofi
		--mca btl_ofi_provider_include uet)
	mpi_run "$TMP/onesided.out" -np 2 "$ONESIDED"
	st=$?
	extra_mca=()
	check_run "one-sided" $st "$TMP/onesided.out" mpi_onesided || rc=1
fi
# AUTO progress, as a job file asks for it ([engine] progress = auto):
# each rank's engine runs on an lcore of its own (EAL -l 0-1, lcores = 1:
# both ranks' application threads on CPU 0, both engine lcores on CPU 1),
# the application's calls only read and post; the whole ping-pong, data
# checked, as the inline runs
mpi_job_conf "$TMP/auto.conf" "$TMP" "$tag"
sed -i -e 's/^args = -l %{0,1} /args = -l 0-1 /' -e 's/^lcores = %{0,1}$/lcores = 1/' \
	-e 's/^progress = inline$/progress = auto/' "$TMP/auto.conf"
if [ "$(grep -cE '^(args = -l 0-1 |lcores = 1$|progress = auto$)' "$TMP/auto.conf")" -ne 3 ]; then
	echo "FAIL: AUTO progress: the job file was not rewritten"
	cat "$TMP/auto.conf"
	rc=1
else
	FI_UET_PROVIDER_CONFIG=$TMP/auto.conf mpi_run "$TMP/auto.out" -np 2 "$PROG"
	st=$?
	check_run "AUTO progress" $st "$TMP/auto.out" || rc=1
fi
# [tss] on: every frame of the job protected (rank 0's capture, which
# holds what it sent and received), opened with the key, not another
# uet-dump links its own sanitizer runtime: not one preloaded for the ranks
dump() {
	env -u LD_PRELOAD "$UET_DUMP" "$@"
}
tss_run() {
	local conf=$TMP/tss.conf cap=$TMP/tss0.pcapng out=$TMP/tss-dump.txt
	local uet tss ok bad st
	(umask 077 && openssl rand -hex 32 > "$TMP/sdi7.key" &&
		openssl rand -hex 32 > "$TMP/other.key" &&
		mkdir -p "$TMP/tss-state") || return 1
	mpi_job_conf "$conf" "$TMP" "$tag"
	sed -i "s|^\[engine\]\$|[engine]\ncapture = $TMP/tss%{0,1}.pcapng|" "$conf"
	printf '[tss]\nenabled = true\nstate_dir = %s\ndomain.7 = 1-4095 %s\n' \
		"$TMP/tss-state" "$TMP/sdi7.key" >> "$conf"
	FI_UET_PROVIDER_CONFIG=$conf mpi_run "$TMP/tss.out" -np 2 "$PROG" \
		-i 2 -m 65536
	st=$?
	check_run "[tss] on" $st "$TMP/tss.out" || return 1
	if ! dump "$cap" > "$out" 2>&1; then
		echo "FAIL: uet-dump $cap:"
		tail -5 "$out"
		return 1
	fi
	uet=$(grep -c ' 10\.0\.5\.[12]:[0-9]* > 10\.0\.5\.[12]:' "$out")
	tss=$(grep -c '| TSS sdi=0x7 ' "$out")
	ok=$(dump --tss-key "7:$TMP/sdi7.key" "$cap" | grep -c 'icv=ok')
	bad=$(dump --tss-key "7:$TMP/other.key" "$cap" | grep -c 'icv=ok')
	echo "# [tss] on: rank 0 captured $uet UET frames, $tss protected," \
		"$ok opened with the key, $bad with another"
	if [ "$uet" -lt 100 ] || [ "$tss" -ne "$uet" ] || [ "$ok" -ne "$tss" ] ||
		[ "$bad" -ne 0 ]; then
		echo "FAIL: [tss] on: frames in clear or not opened"
		grep -v '| TSS ' "$out" | head -5
		return 1
	fi
	return 0
}
if [ -n "${UET_DUMP:-}" ]; then
	tss_run || rc=1
fi
# ranks on two profiles (rank 0 HPC, rank 1 AI Full, each listing only
# its own): the job must stop at startup with the mismatch named, not at
# its first rendezvous. Each rank is given its profile explicitly. Open
# MPI 4.1's own spreading of ranks over several alike entries (both ranks
# listing hpc,ai_full) is not checked: without a package rank from PMIx
# (ranks not bound) it picks the entry by the rank's process ID modulo the
# number of entries ("package_rank failed" at mtl_ofi_verbose 10), so two
# ranks whose PIDs have the same parity take the same entry and the job
# passes.
mpi_run "$TMP/mixed.out" \
	-np 1 -x FI_UET_PROVIDER_PROFILES=hpc "$PROG" \
	: -np 1 -x FI_UET_PROVIDER_PROFILES=ai_full "$PROG"
st=$?
runtime_clean > /dev/null
if [ $st -eq 0 ] || grep -q '^mpi_pingpong: OK$' "$TMP/mixed.out" ||
	! grep -qE 'peer of profile (ai_full in a domain of profile hpc|hpc in a domain of profile ai_full)' \
		"$TMP/mixed.out"; then
	echo "FAIL: ranks on two profiles: exit $st, mismatch not named"
	tail -n 40 "$TMP/mixed.out"
	rc=1
else
	echo "# mixed profiles: $(grep -m1 -o 'peer of profile .*' "$TMP/mixed.out")"
fi
late=", one with the server late, one without configuration failed"
[ "${MPI_PLACEMENT_JOBS:-1}" = 0 ] && late=
[ $rc -eq 0 ] && echo "PASS: $RUNS MPI runs over uet with the defaults$late, one with AUTO progress, one with its ranks on two profiles refused"
exit $rc
