#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Peer death over net_memif, measured: N runs of fabtests' fi_rdm_pingpong
# (1 MiB messages, a run far longer than the test) between two processes
# through the uet provider, each process with its own engine and its own
# end of one net_memif link. At a random moment after the two have
# exchanged their addresses (so while both move data), one side (random,
# or the one asked for) is killed with SIGKILL, and the survivor's end is
# classified:
#   error    it ended by itself with a non-zero status (an operation to
#            the dead peer failed, or its receive timed out: --timeout)
#   success  it exited 0 (it should not: its peer died mid-run)
#   signal   it died of a signal (SIGSEGV in the memif PMD, ...): its
#            status says so, or a crash handler reported it (Debian's
#            libfabric loads libpsm2, whose SIGSEGV handler writes
#            <program>.<host>-<pid>,<...>.btr into the working directory
#            and exits with status 1: each side runs in its own directory)
#   hang     it was still running at the bound and was killed
#   heap     it printed "EAL: Error: Invalid memory" (a region freed
#            twice), whatever its status
# A receive names no peer: nothing fails it when the peer dies (libfabric's
# RDM endpoints are connectionless), so the survivor is given fabtests'
# own bound for a completion (--timeout, seconds); operations that target
# the dead peer fail once the PDS gives it up (timers below: about 4 s).
#
# usage: memif-peerkill.sh [-p provider_dir] [-n runs] [-k server|client|random]
#                          [-t timeout_s] [-L busy_loops] [-s seed] [-o dir]
#   -p  directory holding libuet-fi.so (default: build/release/src/ofi of
#       this checkout, the quick start's tree)
#   -n  runs (default 30)
#   -k  which side is killed (default random)
#   -t  fi_rdm_pingpong --timeout of the survivor (default 5)
#   -L  busy loops (one shell loop each, same nice level as the pairs) that
#       load the machine for the whole measurement (default 0)
#   -s  seed of the random kill moments and sides (default: the PID)
#   -o  keep every run's outputs in this directory (default: only the
#       outputs of runs that crashed, hung or printed a heap error, in a
#       temporary directory that is printed)
# Environment: FT_BIN (fabtests' bin directory, default build/fabtests/bin,
# where scripts/fabtests.sh installs them), NICE (default 5).
# Output: one line per run "run <i> kill <side> after <ms> ms: <class>
# (exit <rc>)" and a summary line; exit 0 when no survivor crashed, hung
# or reported a heap error, 1 otherwise.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
PROV=$top/build/release/src/ofi
RUNS=30
KILL=random
TMO=5
LOAD=0
SEED=$$
KEEP=""
while getopts "p:n:k:t:L:s:o:" o; do
	case "$o" in
	p) PROV=$OPTARG ;;
	n) RUNS=$OPTARG ;;
	k) KILL=$OPTARG ;;
	t) TMO=$OPTARG ;;
	L) LOAD=$OPTARG ;;
	s) SEED=$OPTARG ;;
	o) KEEP=$OPTARG ;;
	*) sed -n 27,44p "$0"; exit 2 ;;
	esac
done
for v in "$RUNS" "$TMO" "$LOAD" "$SEED"; do
	case "$v" in
	''|*[!0-9]*) echo "not a number: '$v'"; exit 2 ;;
	esac
done
case "$KILL" in
server|client|random) ;;
*) echo "-k: server, client or random, not '$KILL'"; exit 2 ;;
esac
FT=${FT_BIN:-$top/build/fabtests/bin}/fi_rdm_pingpong
NICE=${NICE:-5}
if [ ! -x "$FT" ]; then
	echo "no fabtests fi_rdm_pingpong at $FT: build them with" \
		"'bash scripts/fabtests.sh' (or set FT_BIN to fabtests' bin directory)"
	exit 2
fi
if [ ! -e "$PROV/libuet-fi.so" ]; then
	echo "no libuet-fi.so in $PROV"
	exit 2
fi
RANDOM=$SEED

TMP=$(mktemp -d /tmp/uet-peerkill.XXXXXX) || exit 1
OUT=${KEEP:-$TMP/kept}
mkdir -p "$OUT" || exit 1
tag="uetpk$$"
PIDS=()
LOADERS=()

cleanup() {
	local p base
	for p in "${PIDS[@]}" "${LOADERS[@]}"; do
		kill -9 "$p" 2>/dev/null
	done
	wait 2>/dev/null
	for base in /var/run/dpdk /tmp/dpdk "${XDG_RUNTIME_DIR:-/nonexistent}/dpdk"; do
		rm -rf "${base:?}/${tag}"* 2>/dev/null
	done
	rm -rf "$TMP/run" "$TMP"/*.conf
	# keep the outputs worth reading
	if [ -z "$KEEP" ] && [ -z "$(ls -A "$OUT")" ]; then
		rm -rf "$TMP"
	elif [ -z "$KEEP" ]; then
		echo "outputs of the failed runs: $OUT"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# conf <file> <devargs> <lcore> <fa> <peer fa> <peer mac> <prefix> <mac>
conf() {
	cat > "$1" <<EOF
[eal]
args = -l $3 --no-huge -m 256 --no-pci --file-prefix=$7 --log-level=lib.eal:error
[port0]
devargs = $2
rx_queues = 1
tx_queues = 1
mtu = 1500
ipv4 = $4
ipv6 = none
mac = $8
[engine]
lcores = $3
progress = inline
mbuf_pool_size = 4095
mbuf_cache = 32
# two busy-polling processes on a shared machine are descheduled for tens
# of ms: about 4 s of retries before a peer is given up
[timers]
rto_init = 2ms
rto_max = 4s
rto_max_retries = 10
[neighbor]
$5 = $6
EOF
}

# Whether the out-of-band socket of the server (port $1) sent and received
# bytes: the addresses are exchanged, both fabrics are up.
oob_exchanged() {
	ss -tniH state established "( sport = :$1 )" 2>/dev/null |
		grep -q 'bytes_sent:[1-9].*bytes_received:[1-9]'
}

for _ in $(seq "$LOAD"); do
	nice -n "$NICE" sh -c 'while :; do :; done' &
	LOADERS+=($!)
done

declare -A count=([error]=0 [success]=0 [signal]=0 [hang]=0 [heap]=0 [nostart]=0)
# the survivor's bound: its --timeout, the PDS's ~4 s of retries, the
# teardown, a loaded machine
BOUND=$((TMO + 20))
for i in $(seq "$RUNS"); do
	d=$TMP/run
	rm -rf "$d"
	mkdir -p "$d"
	sock=$d/memif.sock
	conf "$d/s.conf" "net_memif0,role=server,id=0,socket=$sock" 0 \
		10.0.9.1 10.0.9.2 02:00:00:00:09:02 "${tag}s$i" 02:00:00:00:09:01
	conf "$d/c.conf" "net_memif0,role=client,id=0,socket=$sock" 1 \
		10.0.9.2 10.0.9.1 02:00:00:00:09:01 "${tag}c$i" 02:00:00:00:09:02
	oob=$(free_port) || exit 1
	args=(-p uet -d net_memif0-hpc -e rdm -S 1048576 -I 1000000
	      --timeout "$TMO")
	mkdir -p "$d/server" "$d/client"
	(cd "$d/server" && FI_PROVIDER=^ofi_rxd FI_PROVIDER_PATH=$PROV \
	 FI_LOG_LEVEL=warn FI_UET_PROVIDER_CONFIG=$d/s.conf \
		exec nice -n "$NICE" timeout -s KILL "$((BOUND + 60))" \
		"$FT" "${args[@]}" -E="$oob" > "$d/server.out" 2>&1) &
	srv=$!
	PIDS=("$srv")
	for _ in $(seq 100); do
		ss -ltnH "( sport = :$oob )" 2>/dev/null | grep -q . && break
		sleep 0.05
	done
	(cd "$d/client" && FI_PROVIDER=^ofi_rxd FI_PROVIDER_PATH=$PROV \
	 FI_LOG_LEVEL=warn FI_UET_PROVIDER_CONFIG=$d/c.conf \
		exec nice -n "$NICE" timeout -s KILL "$((BOUND + 60))" \
		"$FT" "${args[@]}" -E="$oob" 127.0.0.1 > "$d/client.out" 2>&1) &
	cli=$!
	PIDS+=("$cli")
	for _ in $(seq 200); do
		oob_exchanged "$oob" && break
		sleep 0.05
	done
	side=$KILL
	# not in a subshell: bash reseeds $RANDOM there (-s would not hold)
	if [ "$side" = random ]; then
		if [ $((RANDOM % 2)) -eq 0 ]; then side=server; else side=client; fi
	fi
	# 100 ms .. 2.5 s into the run (both sides sync over the fabric
	# first, a few ms)
	ms=$((100 + RANDOM % 2400))
	sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"
	if [ "$side" = server ]; then
		victim=$srv; survivor=$cli; sname=client
	else
		victim=$cli; survivor=$srv; sname=server
	fi
	if ! oob_exchanged "$oob" || ! kill -0 "$victim" 2>/dev/null ||
	    ! kill -0 "$survivor" 2>/dev/null; then
		class=nostart
		rc=-
	else
		# timeout(1) is the victim's parent: kill the test itself
		pkill_target=$(pgrep -P "$victim" -x fi_rdm_pingpong)
		kill -9 "${pkill_target:-$victim}" 2>/dev/null
		{ wait "$victim"; } 2>/dev/null
		t0=$SECONDS
		while kill -0 "$survivor" 2>/dev/null &&
		      [ $((SECONDS - t0)) -lt "$BOUND" ]; do
			sleep 0.1
		done
		if kill -0 "$survivor" 2>/dev/null; then
			class=hang
			kill -9 "$(pgrep -P "$survivor" -x fi_rdm_pingpong)" \
				2>/dev/null
		fi
		{ wait "$survivor"; } 2>/dev/null
		rc=$?
		if [ "${class:-}" != hang ]; then
			if [ "$rc" -ge 128 ]; then
				class=signal
				rc="$rc (signal $((rc - 128)))"
			elif [ "$rc" -eq 0 ]; then
				class=success
			else
				class=error
			fi
		fi
		if grep -qs "terminated with signal" "$d/$sname"/*.btr; then
			class=signal
			rc="$rc ($(grep -hos 'signal [0-9]*' "$d/$sname"/*.btr |
				   head -n 1), crash handler)"
		fi
		if grep -q "Invalid memory" "$d/$sname.out"; then
			class=heap
		fi
	fi
	for p in "${PIDS[@]}"; do
		kill -9 "$p" 2>/dev/null
	done
	{ wait "${PIDS[@]}"; } 2>/dev/null
	PIDS=()
	count[$class]=$((count[$class] + 1))
	echo "run $i kill $side after $ms ms: $class (exit $rc)"
	if [ -n "$KEEP" ] || [ "$class" = signal ] || [ "$class" = hang ] ||
	   [ "$class" = heap ]; then
		mkdir -p "$OUT/$i"
		cp "$d"/*.out "$OUT/$i/"
		cp "$d"/server/*.btr "$d"/client/*.btr "$OUT/$i/" 2>/dev/null
	fi
	unset class
	for base in /var/run/dpdk /tmp/dpdk "${XDG_RUNTIME_DIR:-/nonexistent}/dpdk"; do
		rm -rf "${base:?}/${tag}"s"$i" "${base:?}/${tag}"c"$i" 2>/dev/null
	done
done
echo "summary: $RUNS runs, load $LOAD: error ${count[error]}, success" \
	"${count[success]}, signal ${count[signal]}, hang ${count[hang]}," \
	"heap ${count[heap]}, not started ${count[nostart]}"
[ $((count[signal] + count[hang] + count[heap])) -eq 0 ]
