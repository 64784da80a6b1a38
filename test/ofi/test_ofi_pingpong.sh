#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# fi_pingpong (Debian's libfabric-bin) between two processes through the
# uet provider:
#   memif   two engines joined by net_memif (server / client roles, the
#           socket in a temporary directory), the provider's RDM entry
#   auto    the same with AUTO progress: each process has an engine lcore
#           (EAL -l 0-1, engine.lcores = 1) that sleeps when idle while
#           the application thread progresses it (docs/ENGINE.md)
#   rxd     the same memif pair, '-p "uet;ofi_rxd" -e rdm': libfabric's
#           ofi_rxd utility over the provider's DGRAM entry (layered only
#           when the pair is named)
#   sizes   the same memif pair, RDM, '-S all': every size from 0 B to
#           6 MiB, so eager sends, rendezvous sends whose read-back is
#           longer than a SACK bitmap, and multi-MiB ones
#   jumbo   sizes at MTU 9000 (net_memif carries jumbo frames in buffers
#           the engine sizes from the MTU), every payload checked (-c)
#   tss     the memif pair with the transport security sublayer on
#           ([tss], direct mode, SDI 7 over every JobID: fi_pingpong's,
#           the provider's fallback, among them), each side capturing
#           its frames: uet-dump (UET_DUMP) must find every UET frame of
#           the server's capture protected, and open each with the key
#           (icv=ok), none with another key
#   tsscluster  the same in cluster mode (a key per source, a rotation
#           every 64 TSCs): every UET frame protected, both association
#           numbers in each direction, each frame opened by uet-dump
#           deriving its key (--tss-cluster 64), none with another key
#   dgram   the same memif pair, '-e dgram': the provider's own DGRAM
#           endpoints (UUD, nothing retransmits: the datagram sent before
#           the memif peer connected must wait for the link, not be lost)
#   netns   two network namespaces joined by a veth pair, net_af_packet on
#           each end (needs root: skipped with 77 otherwise)
#   afxdp   the same on net_af_xdp (native XDP on the veth, whose program
#           takes every frame: the out-of-band socket uses a second veth
#           pair); skipped with 77 where the kernel refuses AF_XDP sockets
#   peerkill  the same memif pair, RDM, a long run of 1 MiB messages
#           whose client is killed (SIGKILL) while both sides exchange
#           them, PEERKILL_ROUNDS (3) times: the server, still polling
#           its port while the memif PMD handles the peer's death, must
#           not crash; it ends with an error (a send to the dead peer
#           fails once the PDS gives it up) or, when it only waited for
#           a message (a receive names no peer: nothing fails it), is
#           stopped by the test (SIGTERM) PEERKILL_WAIT (8) s after the
#           kill; it must not report success; what it printed is not
#           checked
#   sigterm the same memif pair, RDM, SIGTERM_ROUNDS (5) runs in each of
#           which, once the addresses were exchanged, one side (at
#           random) is sent SIGTERM after a random 0-500 ms, the other
#           0-500 ms after the first ended (SIGTERM_SEED, printed, fixes
#           the schedule): a process ended by SIGTERM with its fabric
#           open (by the default action, or by exit() from the handler
#           Debian's libfabric installs through libinfinipath) must not
#           crash (signal 11, 6 or 7, a .btr report, a sanitizer report)
#           nor outlive the signal by SIGTERM_BOUND (20) s
# Each process has its own configuration (FA, MAC, EAL --file-prefix,
# lcore -l 0 / -l 1), inline progress; the out-of-band TCP port is picked
# at run time. Checks that both sides complete and print their result
# line (64 bytes, every message acknowledged). Bounded by timeouts.
#
# usage: test_ofi_pingpong.sh <fi_pingpong> memif|auto|rxd|sizes|jumbo|tss|tsscluster|dgram|netns|afxdp|peerkill|sigterm
#        [iterations]   (tss, tsscluster: UET_DUMP names uet-dump)
set -u

PINGPONG=${1:?fi_pingpong path}
MODE=${2:?memif or netns}
ITERS=${3:-200}
MTU=1500
[ "$MODE" = jumbo ] && MTU=9000
{ [ "$MODE" = sizes ] || [ "$MODE" = jumbo ]; } && ITERS=${3:-10}
LIMIT=30
# every size from 0 B to 6 MiB: at load 33 on 2 CPUs a complete run took
# 28 s, so 30 s stopped runs that were slow, not stuck
{ [ "$MODE" = sizes ] || [ "$MODE" = jumbo ]; } && LIMIT=60
if [ "$MODE" = peerkill ] || [ "$MODE" = sigterm ]; then
	ITERS=${3:-100000000}
	# the server's bound: its start, the client's, the run, then the
	# PDS's retries (about 4 s with the timers below) on a loaded machine
	LIMIT=20
fi
case "$ITERS" in
''|*[!0-9]*) echo "iterations must be a number: $ITERS"; exit 1 ;;
esac

TMP=$(mktemp -d /tmp/uet-pp.XXXXXX) || exit 1
# Debian's libfabric loads libpsm2, whose SIGSEGV handler writes
# <program>.<host>-<pid>,<...>.btr into the working directory and exits
# with status 1 instead of dying of the signal: run where we look for them
cd "$TMP" || exit 1
tag="uetpp$$"   # EAL file prefixes, namespace and veth names
NS_S=""
NS_C=""
PIDS=()

# EAL runtime directories of our --file-prefix values (DPDK leaves them)
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
	[ -n "$NS_S" ] && ip netns del "$NS_S" 2>/dev/null
	[ -n "$NS_C" ] && ip netns del "$NS_C" 2>/dev/null
	rm -rf "$TMP"
	runtime_clean "${tag}s" "${tag}c"
}
trap cleanup EXIT

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# conf <file> <devargs> <lcore> <fa> <peer fa> <peer mac> <prefix> <mac>
# (PROG=auto: EAL lcores 0-1, the engine on lcore 1)
conf() {
	local eal_l=$3 elc=$3 cap=""
	# tss: each side's frames captured, for uet-dump
	case "$MODE" in
	tss|tsscluster) cap="capture = $1.pcapng" ;;
	esac
	if [ "$PROG" = auto ]; then
		eal_l=0-1
		elc=1
	fi
	cat > "$1" <<EOF
[eal]
args = -l $eal_l --no-huge -m 256 --no-pci --file-prefix=$7 --log-level=lib.eal:error
[port0]
devargs = $2
rx_queues = 1
tx_queues = 1
mtu = $MTU
ipv4 = $4
ipv6 = none
mac = $8
[engine]
lcores = $elc
progress = $PROG
$cap
mbuf_pool_size = 4095
mbuf_cache = 32
# two busy-polling processes on a shared 2-core machine can be descheduled
# for tens of ms: give the PDS ~4 s of retries (default: 1.93 s)
[timers]
rto_init = 2ms
rto_max = 4s
rto_max_retries = 10
[neighbor]
$5 = $6
EOF
	case "$MODE" in
	tss|tsscluster)
		printf '[tss]\nenabled = true\nstate_dir = %s\n' \
			"$TMP/tss-state" >> "$1"
		printf 'domain.7 = 1-4095 %s\n' "$TMP/sdi7.key" >> "$1"
		# cluster: the smallest window and interval, so that each
		# side's few hundred frames cross several rotations
		[ "$MODE" = tsscluster ] && printf '%s\n' 'mode = cluster' \
			'replay_window = 64' 'rekey_interval = 64' >> "$1"
		;;
	esac
}

# a count as fi_pingpong prints it: 1000 and above in k, m, b units,
# truncated (2000 -> 2k, 2500 -> 2k)
cnt_str() {
	local n=$1
	if [ "$n" -ge 1000000000 ]; then echo "$((n / 1000000000))b"
	elif [ "$n" -ge 1000000 ]; then echo "$((n / 1000000))m"
	elif [ "$n" -ge 1000 ]; then echo "$((n / 1000))k"
	else echo "$n"
	fi
}

# the result line: size, sent, every message acknowledged, then numbers
check_out() {
	local f=$1 who=$2
	if [ "$MODE" = sizes ] || [ "$MODE" = jumbo ]; then
		check_sizes "$f" "$who"
		return
	fi
	if ! grep -Eq "^64 +$CNT +=$CNT +[0-9.]+[kmg]? +[0-9.]+s +[0-9.]+ +[0-9.]+ +[0-9.]+" "$f"; then
		echo "FAIL: $who did not report a complete run:"
		grep -v 'returned -61' "$f" | tail -20
		return 1
	fi
	grep -E "^64 " "$f" | sed "s/^/# $who: /"
	return 0
}

# '-S all': one complete line per size, the last one 6 MiB
check_sizes() {
	local f=$1 who=$2 lines ok
	lines=$(grep -Ec '^[0-9.]+[kmg]? +[0-9]+' "$f")
	ok=$(grep -Ec "^[0-9.]+[kmg]? +$CNT +=$CNT +" "$f")
	if [ "$lines" -lt 40 ] || [ "$ok" -ne "$lines" ] ||
	    ! grep -Eq "^6m +$CNT +=$CNT " "$f"; then
		echo "FAIL: $who: $ok of $lines sizes complete, or no 6m line:"
		grep -v 'returned -61' "$f" | tail -20
		return 1
	fi
	grep -E '^(64|64k|1m|6m) ' "$f" | sed "s/^/# $who: /"
	return 0
}

CNT=$(cnt_str "$ITERS")
# fi_pingpong writes its result lines through a full stdio buffer, which
# the SIGTERM of the time bound discards: line-buffered, a run stopped by
# the bound shows how far it got (slow or stuck). stdbuf works by
# LD_PRELOAD, which must not put its library before the ASan runtime
# (test/ofi/meson.build preloads that one): not then.
LINEBUF=()
[ -z "${LD_PRELOAD:-}" ] && command -v stdbuf > /dev/null && LINEBUF=(stdbuf -oL)
export FI_PROVIDER_PATH=${FI_PROVIDER_PATH:?}
export FI_LOG_LEVEL=${FI_LOG_LEVEL:-warn}
unset FI_UET_PROVIDER_EAL_ARGS FI_UET_PROVIDER_CONFIG FI_PROVIDER
PROG=inline
[ "$MODE" = auto ] && PROG=auto
export FI_UET_PROVIDER_PROGRESS=$PROG
DOMAIN=""
SRV_RUN=()
CLI_RUN=()
OOB_ADDR=127.0.0.1

case "$MODE" in
tss|tsscluster)
	if [ ! -x "${UET_DUMP:-}" ]; then
		echo "FAIL: UET_DUMP does not name uet-dump"
		exit 1
	fi
	( umask 077 && openssl rand -hex 32 > "$TMP/sdi7.key" &&
	  openssl rand -hex 32 > "$TMP/other.key" &&
	  mkdir "$TMP/tss-state" ) || exit 1
	;;
esac
case "$MODE" in
memif|auto|rxd|sizes|jumbo|tss|tsscluster|dgram|peerkill|sigterm)
	sock="$TMP/memif.sock"
	conf "$TMP/server.conf" "net_memif0,role=server,id=0,socket=$sock" 0 \
		10.0.1.1 10.0.1.2 02:00:00:00:01:02 "${tag}s" 02:00:00:00:01:01
	conf "$TMP/client.conf" "net_memif0,role=client,id=0,socket=$sock" 1 \
		10.0.1.2 10.0.1.1 02:00:00:00:01:01 "${tag}c" 02:00:00:00:01:02
	DOMAIN=net_memif0-hpc
	;;
netns|afxdp)
	if [ "$(id -u)" -ne 0 ]; then
		echo "SKIP: network namespaces need root"
		exit 77
	fi
	if [ "$MODE" = afxdp ] && ! python3 -c 'import socket; socket.socket(44, socket.SOCK_RAW, 0).close()' 2> /dev/null; then
		echo "SKIP: the kernel refuses AF_XDP sockets (socket(AF_XDP))"
		exit 77
	fi
	NS_S="${tag}s"
	NS_C="${tag}c"
	vs="${tag}vs"
	vc="${tag}vc"
	ip netns add "$NS_S" || exit 1
	ip netns add "$NS_C" || exit 1
	ip link add "$vs" type veth peer name "$vc" || exit 1
	ip link set "$vs" netns "$NS_S" && ip link set "$vc" netns "$NS_C" || exit 1
	ip -n "$NS_S" link set "$vs" address 02:00:00:00:02:01
	ip -n "$NS_C" link set "$vc" address 02:00:00:00:02:02
	for ns in "$NS_S" "$NS_C"; do
		ip -n "$ns" link set lo up
	done
	ip -n "$NS_S" link set "$vs" up && ip -n "$NS_C" link set "$vc" up || exit 1
	# kernel addresses only for fi_pingpong's out-of-band TCP socket; on
	# a second veth pair under af_xdp, whose XDP program takes every
	# frame of the data veth (the kernel stack's too)
	os=$vs
	oc=$vc
	if [ "$MODE" = afxdp ]; then
		os="${tag}os"
		oc="${tag}oc"
		ip link add "$os" netns "$NS_S" type veth peer name "$oc" \
			netns "$NS_C" || exit 1
		ip -n "$NS_S" link set "$os" up && ip -n "$NS_C" link set "$oc" up ||
			exit 1
	fi
	ip -n "$NS_S" addr add 192.168.231.1/24 dev "$os"
	ip -n "$NS_C" addr add 192.168.231.2/24 dev "$oc"
	OOB_ADDR=192.168.231.1
	pmd=net_af_packet0
	qs=""
	if [ "$MODE" = afxdp ]; then
		pmd=net_af_xdp0
		qs=",start_queue=0,queue_count=1"
	fi
	conf "$TMP/server.conf" "$pmd,iface=$vs$qs" 0 \
		10.0.2.1 10.0.2.2 02:00:00:00:02:02 "${tag}s" none
	conf "$TMP/client.conf" "$pmd,iface=$vc$qs" 1 \
		10.0.2.2 10.0.2.1 02:00:00:00:02:01 "${tag}c" none
	DOMAIN=$pmd-hpc
	SRV_RUN=(ip netns exec "$NS_S")
	CLI_RUN=(ip netns exec "$NS_C")
	;;
*)
	echo "unknown mode $MODE"
	exit 1
	;;
esac

# Whether the server's out-of-band socket has sent and received bytes:
# the two sides exchanged their addresses, their fabrics are up and the
# timed run follows.
oob_exchanged() {
	ss -tniH state established "( sport = :$port )" 2>/dev/null |
		grep -q 'bytes_sent:[1-9].*bytes_received:[1-9]'
}

# A crash that a handler turned into an exit status (see the cd above).
crashed() {
	local f found=1
	for f in "$TMP"/*.btr; do
		[ -e "$f" ] || continue
		echo "FAIL: a process crashed ($(basename "$f")):"
		head -n 20 "$f"
		found=0
	done
	return $found
}

# peerkill: start the client, once the addresses were exchanged let both
# sides run for half a second, kill the client; the server must end
# without a signal of its own (a crash is 128 + signal), by itself (an
# operation failed once the PDS gave the peer up, about 4 s) or, still
# waiting in a receive PEERKILL_WAIT s after the kill, by our SIGTERM
# (timeout's 124: its bound stopped it first)
peerkill() {
	local srv=$1 cli rc stopped=0
	env FI_UET_PROVIDER_CONFIG="$TMP/client.conf" \
		"$PINGPONG" "${args[@]}" -P "$port" "$OOB_ADDR" \
		> "$TMP/client.out" 2>&1 &
	cli=$!
	PIDS+=("$cli")
	for _ in $(seq 200); do
		oob_exchanged && break
		sleep 0.1
	done
	sleep 0.5
	if ! oob_exchanged || ! kill -0 "$cli" 2>/dev/null; then
		echo "FAIL: the client ended, or never exchanged addresses, before it was killed:"
		tail -20 "$TMP/client.out"
		return 1
	fi
	kill -9 "$cli"
	wait "$cli" 2>/dev/null
	for _ in $(seq $((${PEERKILL_WAIT:-8} * 10))); do
		kill -0 "$srv" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$srv" 2>/dev/null; then
		stopped=1
		kill -TERM "$srv" 2>/dev/null
	fi
	wait "$srv"
	rc=$?
	PIDS=()
	# our SIGTERM: 143, or the provider's orderly exit on it (1)
	if [ "$stopped" -eq 1 ] && [ "$rc" -ne 0 ] &&
	    { [ "$rc" -lt 128 ] || [ "$rc" -eq 143 ]; } && ! crashed; then
		echo "# server stopped by the test (SIGTERM, exit $rc): it waited in a receive"
		return 0
	fi
	if [ "$rc" -ge 128 ] || crashed; then
		echo "FAIL: server died (exit $rc) after its peer was killed:"
		tail -60 "$TMP/server.out"
		return 1
	fi
	if [ "$rc" -eq 0 ]; then
		echo "FAIL: the server reported success although its peer died:"
		tail -20 "$TMP/server.out"
		return 1
	fi
	if [ "$rc" -eq 124 ]; then
		# killed while it waited for a message only: a posted receive
		# names no peer, nothing fails it (fi_pingpong has no timeout)
		echo "# server stopped by the bound: it waited in a receive"
	else
		echo "# server exit $rc (an operation failed)"
	fi
	return 0
}

if [ "$MODE" = rxd ]; then
	# the pair named: libfabric does not layer rxd over uet unasked
	args=(-p "uet;ofi_rxd" -e rdm -I "$ITERS" -S 64)
elif [ "$MODE" = sizes ]; then
	args=(-p uet -d "$DOMAIN" -e rdm -I "$ITERS" -S all)
elif [ "$MODE" = jumbo ]; then
	args=(-p uet -d "$DOMAIN" -e rdm -I "$ITERS" -S all -c)
elif [ "$MODE" = dgram ]; then
	# one DGRAM entry per port, on the AI Base domain
	args=(-p uet -d net_memif0-ai_base -e dgram -I "$ITERS" -S 64)
elif [ "$MODE" = sigterm ]; then
	args=(-p uet -d "$DOMAIN" -e rdm -I "$ITERS" -S 64)
elif [ "$MODE" = peerkill ]; then
	# 1 MiB messages: the port is busy in both directions at the kill
	args=(-p uet -d "$DOMAIN" -e rdm -I "$ITERS" -S 1048576)
else
	args=(-p uet -d "$DOMAIN" -e rdm -I "$ITERS" -S 64)
fi
# the server on a free control port: $srv
start_server() {
	port=$(free_port) || exit 1
	"${SRV_RUN[@]}" env FI_UET_PROVIDER_CONFIG="$TMP/server.conf" \
		timeout "$LIMIT" "${LINEBUF[@]}" "$PINGPONG" "${args[@]}" -B "$port" \
		> "$TMP/server.out" 2>&1 &
	srv=$!
	PIDS+=("$srv")
	# the server listens on its control port before it opens the fabric
	for _ in $(seq 50); do
		if "${SRV_RUN[@]}" ss -ltn 2>/dev/null | grep -q ":$port "; then
			break
		fi
		sleep 0.1
	done
}

# a random pause of 0-500 ms
nap() {
	local ms=$((RANDOM % 501))
	sleep "$((ms / 1000)).$(printf '%03d' $((ms % 1000)))"
}

# term <pid> <who>: SIGTERM, then its end within SIGTERM_BOUND seconds;
# a crash is a signal other than SIGTERM's,
# a handler's .btr report or a sanitizer's
term() {
	local pid=$1 who=$2 rc
	kill -TERM "$pid" 2>/dev/null
	for _ in $(seq $((${SIGTERM_BOUND:-20} * 10))); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		echo "FAIL: the $who still runs ${SIGTERM_BOUND:-20} s after SIGTERM"
		return 1
	fi
	wait "$pid"
	rc=$?
	echo "# $who: exit $rc"
	if { [ "$rc" -gt 128 ] && [ "$rc" -ne 143 ]; } ||
	    crashed || grep -q 'Sanitizer\|runtime error:' "$TMP/$who.out"; then
		echo "FAIL: the $who crashed (exit $rc) after SIGTERM:"
		tail -40 "$TMP/$who.out"
		return 1
	fi
	return 0
}

# sigterm: one run, SIGTERM to one side at random, then to the other
sigterm_round() {
	local cli first=server second=client fp sp
	env FI_UET_PROVIDER_CONFIG="$TMP/client.conf" \
		timeout "$LIMIT" "$PINGPONG" "${args[@]}" -P "$port" "$OOB_ADDR" \
		> "$TMP/client.out" 2>&1 &
	cli=$!
	PIDS+=("$cli")
	for _ in $(seq 200); do
		oob_exchanged && break
		sleep 0.1
	done
	if ! oob_exchanged; then
		echo "FAIL: the two sides never exchanged addresses:"
		tail -20 "$TMP/server.out" "$TMP/client.out"
		return 1
	fi
	# (timeout relays the signal to fi_pingpong, and exits with its
	# status, 128 + the signal when one ended it)
	fp=$srv
	sp=$cli
	if [ $((RANDOM % 2)) -eq 1 ]; then
		first=client second=server
		fp=$cli
		sp=$srv
	fi
	nap
	term "$fp" "$first" || return 1
	nap
	term "$sp" "$second" || return 1
	PIDS=()
	return 0
}

if [ "$MODE" = sigterm ]; then
	seed=${SIGTERM_SEED:-$$}
	RANDOM=$seed
	echo "# SIGTERM_SEED=$seed"
	for round in $(seq "${SIGTERM_ROUNDS:-5}"); do
		start_server
		echo "# round $round"
		sigterm_round || exit 1
	done
	echo "PASS: SIGTERM ended both sides without a crash ${SIGTERM_ROUNDS:-5} times"
	exit 0
fi
if [ "$MODE" = peerkill ]; then
	for round in $(seq "${PEERKILL_ROUNDS:-3}"); do
		start_server
		echo "# round $round"
		peerkill "$srv" || exit 1
	done
	echo "PASS: the server survived the death of its peer ${PEERKILL_ROUNDS:-3} times"
	exit 0
fi
start_server
"${CLI_RUN[@]}" env FI_UET_PROVIDER_CONFIG="$TMP/client.conf" \
	timeout "$LIMIT" "${LINEBUF[@]}" "$PINGPONG" "${args[@]}" -P "$port" "$OOB_ADDR" \
	> "$TMP/client.out" 2>&1
crc=$?
wait "$srv"
src=$?
PIDS=()
rc=0
check_out "$TMP/server.out" server || rc=1
check_out "$TMP/client.out" client || rc=1
crashed && rc=1
if [ $crc -ne 0 ] || [ $src -ne 0 ]; then
	# a complete result line with a non-zero exit means the failure came
	# after the timed run (finalize, teardown, a sanitizer report): show
	# everything each side printed
	echo "FAIL: client exit $crc, server exit $src"
	for who in server client; do
		echo "--- $who output (last 60 lines) ---"
		tail -n 60 "$TMP/$who.out"
	done
	rc=1
fi
# uet-dump links its own sanitizer runtime: not the one preloaded for
# fi_pingpong under ASan (test/ofi/meson.build host_env)
dump() {
	env -u LD_PRELOAD "$UET_DUMP" "$@"
}

# tss: the server's capture, sent and received frames, all protected
check_tss() {
	local cap=$TMP/server.conf.pcapng out=$TMP/dump.txt uet tss ok
	if ! dump "$cap" > "$out" 2>&1; then
		echo "FAIL: uet-dump $cap:"
		tail -5 "$out"
		return 1
	fi
	uet=$(grep -c ' 10\.0\.1\.[12]:[0-9]* > 10\.0\.1\.[12]:' "$out")
	tss=$(grep -c '| TSS sdi=0x7 ' "$out")
	echo "# server capture: $uet UET frames, $tss protected"
	if [ "$uet" -lt $((2 * ITERS)) ] || [ "$tss" -ne "$uet" ]; then
		echo "FAIL: UET frames in clear:"
		grep -v '| TSS ' "$out" | head -5
		return 1
	fi
	if [ "$MODE" = tsscluster ]; then
		# rotations: both association numbers from each side
		for dir in '1:[0-9]* > 10\.0\.1\.2' '2:[0-9]* > 10\.0\.1\.1'; do
			for an in 0 1; do
				grep -q "10\.0\.1\.$dir:.*TSS sdi=0x7 an=$an " "$out" &&
					continue
				echo "FAIL: no key rotation ($dir: no an=$an)"
				return 1
			done
		done
	fi
	local cl=()
	[ "$MODE" = tsscluster ] && cl=(--tss-cluster 64)
	ok=$(dump "${cl[@]}" --tss-key "7:$TMP/sdi7.key" "$cap" |
		grep -c 'icv=ok')
	echo "# opened with the domain key: $ok"
	if [ "$ok" -ne "$tss" ]; then
		echo "FAIL: $ok of $tss frames open with the key"
		return 1
	fi
	ok=$(dump "${cl[@]}" --tss-key "7:$TMP/other.key" "$cap" |
		grep -c 'icv=ok')
	if [ "$ok" -ne 0 ]; then
		echo "FAIL: $ok frames open with another key"
		return 1
	fi
	return 0
}
if [ $rc -eq 0 ] && { [ "$MODE" = tss ] || [ "$MODE" = tsscluster ]; }; then
	check_tss || rc=1
fi
[ $rc -eq 0 ] && echo "PASS: fi_pingpong over $MODE"
exit $rc
