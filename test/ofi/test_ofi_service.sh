#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The provider attached to uet-engine services (FI_UET_PROVIDER_SERVICE_PATH)
# instead of engines of its own. Two services, A and B, each with one
# engine lcore (AUTO progress) on a net_memif port, the two ports joined
# (A the memif server); clients attach to A or B:
#   caps        fi_getinfo through a service: the service's domain
#               (svc-hpc), max_msg_size within the 16 MiB data window;
#               with FI_RMA | FI_ATOMIC hints (the service has
#               cross-memory attach) an entry with both, in service mode
#   exchange2   one client on each service: untagged and tagged messages
#               of 16 B .. 70000 B both ways, every byte checked
#               (svc_clients exchange)
#   kinds       one client on each: a 2-entry tagged send into a 3-entry
#               receive, 3 sends and an inject into one FI_MULTI_RECV
#               buffer (svc_clients kinds): gather, scatter and
#               multi-receive copies through the window, checked
#   exchange4   two clients on each: each sends to and receives from the
#               two clients of the other service
#   exchange4_one  four clients of ONE service, L (net_ring port): each
#               sends to and receives from the three others (through the
#               service's own FA)
#   pingpong_one   fi_pingpong between two clients of L
#   rma_one     four clients of L (svc_clients rma ... iso): fi_write,
#               fi_read, fi_atomic SUM, fi_fetch_atomic SUM (1 and 4
#               elements), fi_compare_atomic CSWAP and fi_writedata
#               (remote CQ data)
#               to each other's registered buffers, each target checking
#               its own buffer after a barrier; client 0 also uses
#               client 1's key against client 2 and a wrong key against
#               client 1: every such operation fails, the guards stay
#   rma4        the same with two clients on A (0, 2) and two on B
#               (1, 3): client 1's key comes from the other service
#   rma_dead_one  two clients of L; client 1 registers its buffer and
#               is killed (SIGKILL); client 0's fi_write / fi_read on its
#               key complete in error, a write to client 0's own buffer
#               still works (svc_clients rma_dead)
#   pingpong    fi_pingpong (every default size) between a client of A
#               and one of B
#   kill_sread  a client of A blocked in fi_cq_sread (no timeout) on a
#               receive; A is killed (SIGKILL): the receive completes
#               with FI_EIO "service lost", a send after it fails -FI_EIO,
#               the client exits 0 (svc_clients wait)
#   kill_pingpong  fi_pingpong between clients of A and B, 64 B without
#               end; A is killed mid-run: A's client must end with an
#               error naming the service loss (not hang, not crash); B's
#               client waits for a reply that cannot come and is stopped
#               by the test
#   mpi         Open MPI (pml cm, mtl ofi), two ranks, rank 0 attached
#               to A and rank 1 to B through ONE provider configuration
#               file whose [service] socket is %{A,B}.sock (the local-rank
#               token, docs/PROVIDER.md); mpi_pingpong (8 B .. 1 MiB,
#               the last run to 4 MiB, data checked, an MPI_Allreduce),
#               <runs> runs (default 3)
#   mpi_one     the same, both ranks attached to L (one service, one
#               port)
#   shared_av_one  named AVs (FI_SHARED_AV), fi_rdm_shared_av's
#               sequence on L (svc_shared_av): a forked child sends to the
#               server through the AV its parent filled, opened FI_READ;
#               the AV's shared memory object is gone after the last
#               read-write opener closed it
# Every process is bounded by a timeout; services, sockets, memif socket,
# EAL runtime directories and files are the test's own (names with its
# PID) and removed at exit.
#
# usage: test_ofi_service.sh <uet-engine> <svc_clients> <fi_pingpong|-> <mode>
#        [<svc_shared_av>]   (mode shared_av_one)
#        [<mpirun> <mpi_pingpong> <runs> [<mpi_onesided>]]   (mode mpi;
#        without them: skipped, 77; with mpi_onesided, a one-sided job too)
set -u

ENGINE=${1:?uet-engine}
CLIENTS=${2:?svc_clients}
PINGPONG=${3:?fi_pingpong or -}
MODE=${4:?mode}

# sanitizer builds preload the runtime for Debian's fi_pingpong only: the
# programs built here (uet-engine, svc_clients) carry their own
PRELOAD=${LD_PRELOAD:-}
unset LD_PRELOAD

TMP=$(mktemp -d /tmp/uet-svc.XXXXXX) || exit 1
tag="uetsvc$$"
avname="uet-test-$$" # shared_av_one: /dev/shm/uet-av.UID.NAME
PIDS=()

runtime_clean() {
	local base p
	for base in /var/run/dpdk "${XDG_RUNTIME_DIR:-/nonexistent}/dpdk" /tmp/dpdk; do
		for p in "$@"; do
			[ -n "$p" ] && [ -d "$base/$p" ] && rm -rf -- "${base:?}/$p"
		done
	done
}

cleanup() {
	local p
	for p in "${PIDS[@]}"; do
		kill "$p" 2>/dev/null
	done
	wait 2>/dev/null
	rm -rf "$TMP"
	rm -f "/dev/shm/uet-av.$(id -u).$avname"
	runtime_clean "${tag}A" "${tag}B" "${tag}L"
}
trap cleanup EXIT

fail() {
	echo "FAIL: $*"
	for f in "$TMP"/*.log; do
		[ -f "$f" ] && { echo "--- $f"; tail -20 "$f"; }
	done
	exit 1
}

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# conf <name> <memif role> <fa> <peer fa> <mac> <peer mac>
conf() {
	cat > "$TMP/$1.conf" <<EOF
[eal]
args = -l 0-1 --no-huge -m 256 --no-pci --file-prefix=$tag$1 --log-level=lib.eal:error
[port0]
devargs = net_memif0,role=$2,socket=$TMP/memif.sock
rx_queues = 1
tx_queues = 1
mtu = 1500
ipv4 = $3
ipv6 = none
mac = $5
[engine]
lcores = 1
progress = auto
mbuf_pool_size = 4095
mbuf_cache = 32
# loaded shared machine: ~4 s of PDS retries
[timers]
rto_init = 2ms
rto_max = 4s
rto_max_retries = 10
[neighbor]
$4 = $6
[service]
socket = $TMP/$1.sock
jobs = 1-100
EOF
}

# start <name>: the service, and wait (bounded) for its socket
start() {
	# not under timeout(1): the test kills the service itself (the
	# EXIT trap bounds its life)
	"$ENGINE" -c "$TMP/$1.conf" > "$TMP/engine$1.log" 2>&1 &
	PIDS+=($!)
	eval "PID_$1=$!"
	for _ in $(seq 100); do
		[ -S "$TMP/$1.sock" ] && return 0
		sleep 0.1
	done
	fail "service $1 did not start"
}

conf A server 10.77.0.1 10.77.0.2 02:00:00:77:00:01 02:00:00:77:00:02
conf B client 10.77.0.2 10.77.0.1 02:00:00:77:00:02 02:00:00:77:00:01
# L: one service on a net_ring port; its clients reach each other through
# its own FA (delivered locally by the engine; the ring would also loop
# such a frame back)
conf L - 10.77.1.1 10.77.1.1 02:00:00:77:01:01 02:00:00:77:01:01
sed -i 's/^devargs = .*/devargs = net_ring0/' "$TMP/L.conf"
case "$MODE" in
*_one)
	start L
	;;
*)
	start A
	start B
	;;
esac

export FI_PROVIDER=uet
export FI_LOG_LEVEL=${FI_LOG_LEVEL:-warn}
# a service slowed down by a sanitizer on a loaded machine (and one that
# holds its control thread up to 3 s for a departing client's operations)
# may answer later than the default 5 s; still bounded
export FI_UET_PROVIDER_SERVICE_TIMEOUT=30000
# Open MPI's shared-memory files (vader_segment.*) of a rank that ends
# without its cleanup: in $TMP, removed with it, not left in /dev/shm
export OMPI_MCA_btl_vader_backing_directory="$TMP"

# client <A|B> <log> <command...>: one client process of a service
client() {
	local s=$1 log=$2
	shift 2
	if [ "$1" = "$PINGPONG" ] && [ -n "$PRELOAD" ]; then
		set -- env LD_PRELOAD="$PRELOAD" "$@"
	fi
	FI_UET_PROVIDER_SERVICE_PATH="$TMP/$s.sock" timeout 60 "$@" \
		> "$TMP/$log.log" 2>&1
}

case "$MODE" in
caps)
	client A caps "$CLIENTS" caps || fail "caps"
	client A capsrma "$CLIENTS" caps rma || fail "caps rma"
	for f in caps capsrma; do
		grep -q 'domain svc-hpc' "$TMP/$f.log" || fail "$f: no svc-hpc domain"
		max=$(sed -n 's/.*max_msg_size \([0-9]*\).*/\1/p' "$TMP/$f.log")
		[ -n "$max" ] && [ "$max" -le 16777216 ] && [ "$max" -gt 0 ] ||
			fail "$f: max_msg_size $max not within the window"
	done
	grep -q '^caps: tagged rma atomic ' "$TMP/capsrma.log" ||
		fail "no FI_RMA | FI_ATOMIC entry through the service"
	cat "$TMP/caps.log" "$TMP/capsrma.log"
	;;
exchange2|exchange4|exchange4_one)
	n=${MODE#exchange}
	n=${n%_one}
	mkdir "$TMP/x"
	cpids=()
	for i in $(seq 0 $((n - 1))); do
		if [ "$MODE" = exchange4_one ]; then
			client L c$i "$CLIENTS" exchange "$TMP/x" "$i" "$n" 8 &
		else
			s=A
			[ $((i % 2)) = 1 ] && s=B
			client $s c$i "$CLIENTS" exchange "$TMP/x" "$i" "$n" 8 \
				cross &
		fi
		cpids+=($!)
	done
	rc=0
	for p in "${cpids[@]}"; do
		wait "$p" || rc=1
	done
	[ $rc = 0 ] || fail "a client failed"
	cat "$TMP"/c*.log
	[ "$(grep -c ', checked$' "$TMP"/c*.log | awk -F: '{s += $2} END {print s}')" = "$n" ] ||
		fail "not every client checked its data"
	;;
kinds)
	mkdir "$TMP/k"
	client A k0 "$CLIENTS" kinds "$TMP/k" 0 &
	kp=$!
	client B k1 "$CLIENTS" kinds "$TMP/k" 1 || fail "kinds: sender"
	wait $kp || fail "kinds: receiver"
	cat "$TMP/k0.log"
	grep -q 'checked$' "$TMP/k0.log" || fail "kinds: not checked"
	;;
rma_one|rma4)
	mkdir "$TMP/r"
	n=4
	iso=iso
	cpids=()
	for i in $(seq 0 $((n - 1))); do
		s=L
		if [ "$MODE" = rma4 ]; then
			s=A
			[ $((i % 2)) = 1 ] && s=B
		fi
		# shellcheck disable=SC2086
		client $s r$i "$CLIENTS" rma "$TMP/r" "$i" "$n" $iso &
		cpids+=($!)
	done
	rc=0
	for p in "${cpids[@]}"; do
		wait "$p" || rc=1
	done
	cat "$TMP"/r*.log
	[ $rc = 0 ] || fail "an RMA client failed"
	[ "$(grep -c ', checked$' "$TMP"/r*.log | awk -F: '{s += $2} END {print s}')" = "$n" ] ||
		fail "not every client checked its buffer"
	if [ -n "$iso" ]; then
		[ "$(grep -c ': error \|: refused ' "$TMP/r0.log")" = 7 ] ||
			fail "not every foreign-key operation was denied"
	fi
	;;
rma_dead_one)
	mkdir "$TMP/d"
	client L d0 "$CLIENTS" rma_dead "$TMP/d" 0 &
	p0=$!
	client L d1 "$CLIENTS" rma_dead "$TMP/d" 1 &
	p1=$!
	for _ in $(seq 400); do
		[ -f "$TMP/d/pid" ] && break
		sleep 0.05
	done
	[ -f "$TMP/d/pid" ] || fail "client 1 did not register"
	kill -9 "$(cat "$TMP/d/pid")"
	wait "$p1"
	# written whole, then renamed: client 0 reads the file as soon as
	# it exists (svc_clients publishes the same way)
	echo 1 > "$TMP/d/killed.tmp" && mv "$TMP/d/killed.tmp" "$TMP/d/killed"
	wait "$p0" || fail "client 0: rc $?"
	cat "$TMP/d0.log"
	grep -q 'to itself after the peer.s death: checked' "$TMP/d0.log" ||
		fail "client 0: not checked"
	[ "$(grep -c ': error \|: refused ' "$TMP/d0.log")" = 2 ] ||
		fail "an operation on the dead client's key did not fail"
	;;
pingpong|pingpong_one)
	[ "$PINGPONG" = - ] && { echo "no fi_pingpong"; exit 77; }
	sa=A
	sb=B
	[ "$MODE" = pingpong_one ] && { sa=L; sb=L; }
	port=$(free_port)
	client $sa ppA "$PINGPONG" -p uet -e rdm -d svc-hpc -B "$port" -I 100 &
	sp=$!
	sleep 1
	client $sb ppB "$PINGPONG" -p uet -e rdm -d svc-hpc -P "$port" -I 100 127.0.0.1 ||
		fail "fi_pingpong client"
	wait $sp || fail "fi_pingpong server"
	cat "$TMP/ppB.log"
	grep -q '^64 .*=100 ' "$TMP/ppB.log" || fail "no 64-byte result"
	;;
kill_sread)
	mkdir "$TMP/w"
	client A wait "$CLIENTS" wait "$TMP/w" &
	cp=$!
	for _ in $(seq 200); do
		[ -f "$TMP/w/waiting" ] && break
		sleep 0.05
	done
	[ -f "$TMP/w/waiting" ] || fail "the client did not reach fi_cq_sread"
	sleep 0.2 # into the wait
	kill -9 "$PID_A"
	wait "$cp" || fail "the waiting client: rc $?"
	cat "$TMP/wait.log"
	;;
kill_pingpong)
	[ "$PINGPONG" = - ] && { echo "no fi_pingpong"; exit 77; }
	port=$(free_port)
	client A ppA "$PINGPONG" -p uet -e rdm -d svc-hpc -B "$port" -S 64 -I 100000000 &
	sp=$!
	sleep 1
	FI_UET_PROVIDER_SERVICE_PATH="$TMP/B.sock" LD_PRELOAD="$PRELOAD" \
		timeout 60 "$PINGPONG" -p uet -e rdm \
		-d svc-hpc -P "$port" -S 64 -I 100000000 127.0.0.1 > "$TMP/ppB.log" 2>&1 &
	PIDS+=($!)
	sleep 2 # mid-run
	kill -9 "$PID_A"
	wait $sp
	rc=$?
	cat "$TMP/ppA.log"
	[ $rc = 124 ] && fail "A's client hung after its service died"
	[ $rc -ge 128 ] && fail "A's client died of signal $((rc - 128))"
	[ $rc = 0 ] && fail "A's client reported success"
	grep -q 'service lost' "$TMP/ppA.log" || fail "no 'service lost' error"
	;;
shared_av_one)
	# fi_rdm_shared_av's sequence (svc_shared_av): a forked child sends
	# through a named AV its parent filled, opened FI_READ
	SHARED=${5:?svc_shared_av}
	mkdir "$TMP/s"
	client L sav0 "$SHARED" server "$TMP/s" &
	sp=$!
	client L sav1 "$SHARED" client "$TMP/s" "$avname" ||
		fail "shared AV: client (parent or child)"
	wait $sp || fail "shared AV: server"
	cat "$TMP"/sav*.log
	grep -q "^server: 'hello from the child.*', checked$" "$TMP/sav0.log" ||
		fail "shared AV: the server did not check the child's message"
	[ -e "/dev/shm/uet-av.$(id -u).$avname" ] &&
		fail "the named AV's object outlived its openers"
	;;
mpi|mpi_one)
	MPIRUN=${5:-}
	PROG=${6:-}
	if [ -z "$MPIRUN" ] || ! [ -x "$MPIRUN" ] || [ -z "$PROG" ]; then
		echo "SKIP: Open MPI not installed"
		exit 77
	fi
	# one file for both ranks: the service by local rank
	if [ "$MODE" = mpi_one ]; then
		printf '[service]\nsocket = %s/L.sock\n' "$TMP" > "$TMP/job.conf"
	else
		printf '[service]\nsocket = %s/%%{A,B}.sock\n' "$TMP" \
			> "$TMP/job.conf"
	fi
	unset FI_PROVIDER FI_UET_PROVIDER_PROFILES
	export FI_UET_PROVIDER_CONFIG="$TMP/job.conf"
	root=()
	[ "$(id -u)" -eq 0 ] && root=(--allow-run-as-root)
	pass_env=()
	for v in ASAN_OPTIONS UBSAN_OPTIONS; do
		[ -n "${!v:-}" ] && pass_env+=(-x "$v")
	done
	RUNS=${7:-3}
	for run in $(seq "$RUNS"); do
		# the last run to 4 MiB (above the 1 MiB default), 5
		# round trips a size (a sanitized build at load 40: 1 s
		# per MiB round trip)
		big=()
		[ "$run" = "$RUNS" ] && big=(-i 5 -m 4194304)
		timeout --kill-after=5 90 "$MPIRUN" "${root[@]}" --oversubscribe \
			--bind-to none --mca pml cm --mca mtl ofi \
			--mca mtl_ofi_provider_include uet \
			-x FI_PROVIDER_PATH -x FI_LOG_LEVEL \
			-x FI_UET_PROVIDER_CONFIG \
			-x FI_UET_PROVIDER_SERVICE_TIMEOUT \
			"${pass_env[@]}" -np 2 "$PROG" "${big[@]}" \
			> "$TMP/mpi$run.log" 2>&1
		st=$?
		grep -q '^mpi_pingpong: OK$' "$TMP/mpi$run.log" && [ $st = 0 ] ||
			fail "MPI run $run: exit $st"
		echo "# run $run: $(grep -E '^ +(8|1048576|4194304) ' "$TMP/mpi$run.log" | tr -s ' ' | tr '\n' ';')"
	done
	# one-sided (osc rdma over btl ofi) beside the mtl: two fabrics per
	# rank on one attachment
	ONESIDED=${8:-}
	if [ -n "$ONESIDED" ]; then
		timeout --kill-after=5 90 "$MPIRUN" "${root[@]}" --oversubscribe \
			--bind-to none --mca pml cm --mca mtl ofi \
			--mca mtl_ofi_provider_include uet --mca osc rdma \
			--mca btl self,ofi --mca btl_ofi_provider_include uet \
			-x FI_PROVIDER_PATH -x FI_LOG_LEVEL \
			-x FI_UET_PROVIDER_CONFIG \
			-x FI_UET_PROVIDER_SERVICE_TIMEOUT \
			"${pass_env[@]}" -np 2 "$ONESIDED" > "$TMP/osc.log" 2>&1
		st=$?
		grep -q '^mpi_onesided: OK$' "$TMP/osc.log" && [ $st = 0 ] ||
			{ tail -30 "$TMP/osc.log"; fail "MPI one-sided: exit $st"; }
		echo "# one-sided: OK"
	fi
	grep -c 'attached' "$TMP"/engine?.log
	;;
*)
	echo "unknown mode $MODE"
	exit 1
	;;
esac
echo "OK $MODE"
exit 0
