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
# accumulate, fetch-and-op, data checked) beside two-sided (mtl ofi);
# then the same two jobs with the ranks on two "hosts", network
# namespaces joined by a veth pair, mpirun launching the second rank
# through its rsh agent (see two_hosts below).
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
NS2=()
cleanup() {
	local n
	ip netns del "$NS" 2>/dev/null
	for n in "${NS2[@]}"; do ip netns del "$n" 2>/dev/null; done
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
# Open MPI's shared-memory files (vader_segment.*) of a rank that ends
# without its cleanup: in $TMP, removed with it, not left in /dev/shm
export OMPI_MCA_btl_vader_backing_directory="$TMP"
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
# judge STATUS OUT PATTERN WHAT OK-LINE: a job passed when it exited 0 and
# printed PATTERN; else say WHAT failed with the end of its output.
judge() {
	if [ "$1" -ne 0 ] || ! grep -q "$3" "$2"; then
		echo "FAIL: $4: exit $1"
		tail -n 60 "$2"
		rc=1
	else
		echo "# $5"
	fi
}

for run in $(seq "$RUNS"); do
	job "$TMP/run$run.out" -np "$NP" "$PROG"
	judge $? "$TMP/run$run.out" "^mpi_ring: OK ($NP ranks)$" \
		"run $run of $RUNS" "run $run of $RUNS: OK"
done
if [ -n "$PINGPONG" ] && [ -n "$ONESIDED" ]; then
	job "$TMP/pp.out" -np 2 "$PINGPONG" -i 5 -m 4194304
	judge $? "$TMP/pp.out" '^mpi_pingpong: OK$' \
		"point-to-point to 4 MiB" \
		"2 ranks, 8 B .. 4 MiB: OK ($(grep -E '^ +4194304 ' "$TMP/pp.out" | tr -s ' '))"
	job "$TMP/osc.out" --mca osc rdma --mca btl self,ofi \
		--mca btl_ofi_provider_include uet -np 2 "$ONESIDED"
	judge $? "$TMP/osc.out" '^mpi_onesided: OK$' \
		"one-sided (osc rdma, btl ofi)" \
		"2 ranks, one-sided over btl ofi beside the mtl: OK"
fi

# Two "hosts": network namespaces of their own joined by one veth pair,
# one rank in each, as ranks on two machines are. mpirun runs in the
# first with rank 0; it starts the second rank's orted through its rsh
# launcher, here a script that enters the other namespace (where ssh
# would reach another machine). Open MPI's own traffic (orted, PMIx) is
# TCP over the veths' kernel addresses (192.168.77.x); uet's frames go
# by af_packet on the same veths, to FAs the kernels do not own
# (10.0.7.x: they drop them, not forwarding). Each host has its own
# configuration (the launcher sets the second's, as a host's environment
# would), with the provider's defaults.
two_hosts() {
	local nsa="${tag}a" nsb="${tag}b" h st job2 args want ok=0
	NS2=("$nsa" "$nsb")
	ip netns add "$nsa" && ip netns add "$nsb" || return 1
	ip -n "$nsa" link set lo up
	ip -n "$nsb" link set lo up
	ip -n "$nsa" link add "${tag}x" type veth peer name "${tag}y" netns "$nsb" ||
		return 1
	ip -n "$nsa" link set "${tag}x" address 02:00:00:00:07:01
	ip -n "$nsb" link set "${tag}y" address 02:00:00:00:07:02
	ip -n "$nsa" addr add 192.168.77.1/24 dev "${tag}x"
	ip -n "$nsb" addr add 192.168.77.2/24 dev "${tag}y"
	ip -n "$nsa" link set "${tag}x" up
	ip -n "$nsb" link set "${tag}y" up
	for h in 1 2; do
		cat > "$TMP/host$h.conf" <<EOF
[eal]
args = -l $((h - 1)) --no-huge -m 256 --no-pci --file-prefix=${tag}h$h --log-level=lib.eal:error
[port0]
devargs = net_af_packet0,iface=${tag}$([ $h = 1 ] && echo x || echo y)
mtu = 1500
ipv4 = 10.0.7.$h
ipv6 = none
mac = 02:00:00:00:07:0$h
[engine]
lcores = $((h - 1))
progress = inline
mbuf_pool_size = 4095
mbuf_cache = 32
[neighbor]
10.0.7.$((3 - h)) = 02:00:00:00:07:0$((3 - h))
EOF
	done
	printf '192.168.77.1 slots=1\n192.168.77.2 slots=1\n' > "$TMP/hosts"
	# mpirun's rsh agent: "AGENT HOST COMMAND...", the command for a
	# remote shell
	cat > "$TMP/agent" <<EOF
#!/bin/sh
[ "\$1" = 192.168.77.2 ] || { echo "agent: unknown host \$1" >&2; exit 1; }
echo "\$1" >> $TMP/agent.log
shift
exec ip netns exec $nsb env FI_UET_PROVIDER_CONFIG=$TMP/host2.conf /bin/sh -c "\$*"
EOF
	chmod +x "$TMP/agent"
	for job2 in pp osc; do
		rm -f "$TMP/agent.log"
		args=(-np 2 "$PINGPONG" -i 5 -m 4194304)
		want='^mpi_pingpong: OK$'
		if [ $job2 = osc ]; then
			args=(--mca osc rdma --mca btl self,ofi
				--mca btl_ofi_provider_include uet -np 2 "$ONESIDED")
			want='^mpi_onesided: OK$'
		fi
		FI_UET_PROVIDER_CONFIG=$TMP/host1.conf ip netns exec "$nsa" \
			timeout --kill-after=5 "$LIMIT" "$MPIRUN" --allow-run-as-root \
			--hostfile "$TMP/hosts" --mca plm_rsh_agent "$TMP/agent" \
			--mca oob_tcp_if_include 192.168.77.0/24 --bind-to none \
			--mca pml cm --mca mtl ofi --mca mtl_ofi_provider_include uet \
			-x FI_PROVIDER_PATH -x FI_LOG_LEVEL "${pass_env[@]}" \
			"${args[@]}" > "$TMP/$job2-2ns.out" 2>&1
		st=$?
		rm -rf /var/run/dpdk/"${tag}"h[12]
		# rank 1 started in the other namespace (its veth is there
		# only: elsewhere its fi_fabric fails)
		if [ $st -ne 0 ] || ! grep -q "$want" "$TMP/$job2-2ns.out" ||
			[ "$(cat "$TMP/agent.log" 2>/dev/null)" != 192.168.77.2 ]; then
			echo "FAIL: two namespaces, $job2: exit $st"
			tail -n 60 "$TMP/$job2-2ns.out"
			ok=1
		fi
	done
	[ $ok -eq 0 ] && echo "# 2 ranks in two namespaces: point-to-point 8 B .. 4 MiB ($(grep -E '^ +4194304 ' "$TMP/pp-2ns.out" | tr -s ' ')), one-sided over btl ofi: OK"
	return $ok
}
# not with MPI_PLACEMENT_JOBS=0 (the sanitizer build: the same two jobs
# ran on the bridge)
if [ -n "$PINGPONG" ] && [ -n "$ONESIDED" ]; then
	if [ "${MPI_PLACEMENT_JOBS:-1}" != 0 ]; then
		two_hosts || rc=1
	else
		echo "# 2 ranks in two namespaces: not run (MPI_PLACEMENT_JOBS=0)"
	fi
fi
where="on the bridge and across two namespaces"
[ "${MPI_PLACEMENT_JOBS:-1}" = 0 ] && where="on the bridge"
[ $rc -eq 0 ] && echo "PASS: MPI over uet (af_packet): $RUNS runs of $NP ranks on one bridge${PINGPONG:+; 2 ranks point-to-point and one-sided, $where}"
exit $rc
