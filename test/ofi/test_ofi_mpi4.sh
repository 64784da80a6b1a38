#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Four MPI ranks on one host over the uet provider's own RDM entry: Open
# MPI (pml cm + mtl ofi, provider_include uet), inline progress, ONE
# configuration file for all ranks with per-rank tokens (%r, %{a,b,c,d}:
# docs/PROVIDER.md). A memif link joins two processes only, so the ranks
# share one L2 segment instead: in a network namespace of the test's own
# (root only, else skipped with 77), each rank has a veth whose peer end
# is in a Linux bridge, and runs net_af_packet on its end. The program
# (mpi_ring) sends 8 B .. 1 MiB around the ring and 64 KiB between every
# pair, data checked, then an MPI_Allreduce. The job runs RUNS times
# (default 2), each bounded in time; every run must end with status 0 and
# "mpi_ring: OK".
#
# With <mpi_pingpong> and <mpi_onesided>, two more jobs of two ranks on
# the same segment: point-to-point of 8 B .. 4 MiB (mtl ofi, data
# checked), then MPI one-sided (osc rdma over btl ofi: put, get,
# accumulate, fetch-and-op, data checked) beside two-sided (mtl ofi).
#
# usage: test_ofi_mpi4.sh <mpirun> <mpi_ring> [runs [mpi_pingpong
#        mpi_onesided]]
set -u

MPIRUN=${1:-}
PROG=${2:-}
RUNS=${3:-2}
PINGPONG=${4:-}
ONESIDED=${5:-}
NP=4
LIMIT=120

if [ -z "$MPIRUN" ] || ! [ -x "$MPIRUN" ] || [ -z "$PROG" ] ||
    ! [ -x "$PROG" ]; then
	echo "SKIP: Open MPI (mpirun, mpicc) not installed"
	exit 77
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: the namespace, veths and bridge need root"
	exit 77
fi
export FI_PROVIDER_PATH=${FI_PROVIDER_PATH:?}
unset FI_PROVIDER FI_UET_PROVIDER_EAL_ARGS FI_UET_PROVIDER_CONFIG
tag="uetm$$" # namespace, interfaces (at most 15 characters), EAL prefixes
NS="$tag"

TMP=$(mktemp -d /tmp/uet-mpi4.XXXXXX) || exit 1
runtime_clean() {
	local base r
	for base in /var/run/dpdk "${XDG_RUNTIME_DIR:-/nonexistent}/dpdk"; do
		for r in $(seq 0 $((NP - 1))); do
			[ -d "$base/${tag}r$r" ] && rm -rf -- "${base:?}/${tag}r$r"
		done
	done
}
cleanup() {
	ip netns del "$NS" 2>/dev/null
	runtime_clean
	rm -rf "$TMP"
}
trap cleanup EXIT

# the segment: a bridge and one veth per rank, all in our namespace
ip netns add "$NS" || exit 1
ip -n "$NS" link set lo up
ip -n "$NS" link add "${tag}br" type bridge || exit 1
ip -n "$NS" link set "${tag}br" up
# net_af_packet (DPDK 22.11) joins each socket to the PACKET_FANOUT group
# getpid() ^ ifindex of its interface; ranks started one after the other
# have close PIDs, and consecutive ifindexes made two ranks' groups equal
# (EINVAL, fi_fabric failed in 1 of 2 runs): interface indexes far apart
for r in $(seq 0 $((NP - 1))); do
	ip -n "$NS" link add "${tag}v$r" index $((4096 * (r + 1))) type veth \
		peer name "${tag}p$r" index $((4096 * (r + 1) + 1)) || exit 1
	ip -n "$NS" link set "${tag}v$r" address "02:00:00:00:06:0$((r + 1))"
	ip -n "$NS" link set "${tag}p$r" master "${tag}br"
	ip -n "$NS" link set "${tag}p$r" up
	ip -n "$NS" link set "${tag}v$r" up
done

# one file for the four ranks: rank r has FA 10.0.6.(r+1), the MAC of
# its veth, lcore 0 or 1 (two CPUs here), its own EAL runtime
cat > "$TMP/job.conf" <<EOF
[eal]
args = -l %{0,1,0,1} --no-huge -m 256 --no-pci --file-prefix=${tag}r%r --log-level=lib.eal:error
[port0]
devargs = net_af_packet0,iface=${tag}v%r
mtu = 1500
ipv4 = 10.0.6.%{1,2,3,4}
ipv6 = none
mac = 02:00:00:00:06:%{01,02,03,04}
[engine]
lcores = %{0,1,0,1}
progress = inline
mbuf_pool_size = 4095
mbuf_cache = 32
# four busy-polling ranks on two CPUs are descheduled for tens of ms:
# give the PDS ~4 s of retries (default 1.93 s)
[timers]
rto_init = 2ms
rto_max = 4s
rto_max_retries = 10
[neighbor]
10.0.6.1 = 02:00:00:00:06:01
10.0.6.2 = 02:00:00:00:06:02
10.0.6.3 = 02:00:00:00:06:03
10.0.6.4 = 02:00:00:00:06:04
EOF

unset FI_UET_PROVIDER_PROFILES
export FI_LOG_LEVEL=warn FI_UET_PROVIDER_CONFIG="$TMP/job.conf"
pass_env=()
for v in LD_PRELOAD ASAN_OPTIONS UBSAN_OPTIONS; do
	[ -n "${!v:-}" ] && pass_env+=(-x "$v")
done

# job OUT MPIRUN-ARGS...: one bounded job in the namespace
job() {
	local out=$1
	shift
	ip netns exec "$NS" timeout --kill-after=5 "$LIMIT" "$MPIRUN" \
		--allow-run-as-root --oversubscribe --bind-to none \
		--mca pml cm --mca mtl ofi --mca mtl_ofi_provider_include uet \
		-x FI_PROVIDER_PATH -x FI_LOG_LEVEL -x FI_UET_PROVIDER_CONFIG \
		"${pass_env[@]}" "$@" > "$out" 2>&1
	local st=$?
	runtime_clean
	return $st
}

rc=0
for run in $(seq "$RUNS"); do
	out="$TMP/run$run.out"
	job "$out" -np "$NP" "$PROG"
	st=$?
	if [ $st -ne 0 ] || ! grep -q "^mpi_ring: OK ($NP ranks)$" "$out"; then
		echo "FAIL: run $run of $RUNS: exit $st"
		tail -n 60 "$out"
		rc=1
	else
		echo "# run $run of $RUNS: OK"
	fi
done
if [ -n "$PINGPONG" ] && [ -n "$ONESIDED" ]; then
	job "$TMP/pp.out" -np 2 "$PINGPONG" -i 5 -m 4194304
	st=$?
	if [ $st -ne 0 ] || ! grep -q '^mpi_pingpong: OK$' "$TMP/pp.out"; then
		echo "FAIL: point-to-point to 4 MiB: exit $st"
		tail -n 60 "$TMP/pp.out"
		rc=1
	else
		echo "# 2 ranks, 8 B .. 4 MiB: OK ($(grep -E '^ +4194304 ' "$TMP/pp.out" | tr -s ' '))"
	fi
	job "$TMP/osc.out" --mca osc rdma --mca btl self,ofi \
		--mca btl_ofi_provider_include uet -np 2 "$ONESIDED"
	st=$?
	if [ $st -ne 0 ] || ! grep -q '^mpi_onesided: OK$' "$TMP/osc.out"; then
		echo "FAIL: one-sided (osc rdma, btl ofi): exit $st"
		tail -n 60 "$TMP/osc.out"
		rc=1
	else
		echo "# 2 ranks, one-sided over btl ofi beside the mtl: OK"
	fi
fi
[ $rc -eq 0 ] && echo "PASS: MPI over uet (af_packet, one bridge): $RUNS runs of $NP ranks${PINGPONG:+, 2-rank point-to-point and one-sided}"
exit $rc
