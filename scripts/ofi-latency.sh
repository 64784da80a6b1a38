#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# 64-byte fi_pingpong latency (usec/xfer as fi_pingpong prints it) of
#   uet             this provider, two processes over net_memif (inline
#                   progress, EAL -l 0 / -l 1)
#   tcp             libfabric's tcp provider on loopback
#   udp;ofi_rxd     libfabric's udp provider under the rxd utility
#   uet-auto        this provider with AUTO progress: each process has
#                   an engine lcore (EAL -l 0-1, engine.lcores = 1), so
#                   four threads share the two CPUs (not pinned by taskset)
# in one run, server pinned to CPU 0 and client to CPU 1 (except uet-auto),
# R repetitions. A benchmark, not a test: it reports numbers and asserts
# nothing. IDLE_SLEEP / IDLE_SPIN / IDLE_SLEEP_MAX (environment, e.g. 0 or
# 10us) set the uet-auto engine's engine.idle_sleep / idle_spin /
# idle_sleep_max; AUTO_SPLIT=1 puts the client's engine lcore on CPU 0
# (the server's is on CPU 1). BEFORE=<other build dir> adds a row
# "uet-auto-before": the same AUTO run with that build's provider (e.g.
# an older commit). IDLE_CPU=1 also prints the CPU time of an idle AUTO
# engine over 10 s (test/ofi/ofi_idle_cpu, one ring port, and as root one
# net_tap port, which has RX interrupts) for the build (and BEFORE).
# SCHED=DIR records the scheduler (perf sched record -a) during the first
# repetition's uet rows into DIR/<row>.data, for perf sched timehist /
# latency; PROFILE=DIR samples every CPU (perf record -a -g) the same way
# into DIR/<row>.prof (either recording adds to the latency it profiles).
# PP=<fi_pingpong> picks the binary (default Debian's). The load average
# is printed before and after, and the median of each row at the end.
# SERVICE=1 adds "uet-svc": both fi_pingpong processes attached to one
# uet-engine service (<build>/apps/uet-engine, AUTO, one engine lcore on
# CPU 1, a net_ring port; the clients' frames go to the service's own
# FA), both clients on CPU 0, off the service's lcore (SVC_CPU0= and
# SVC_CPU1= give other CPU lists, e.g. 0,1 to let them share it); with
# BEFORE set, also "uet-before": the INLINE run with that build's provider.
#
# usage: scripts/ofi-latency.sh <build dir> [iterations] [repetitions]
set -u

BUILD=${1:?build dir}
ITERS=${2:-10000}
REPS=${3:-3}
PP=${PP:-/usr/bin/fi_pingpong}
BEFORE=${BEFORE:-}
TMP=$(mktemp -d /tmp/uet-lat.XXXXXX) || exit 1
# EAL runtime directories of our --file-prefix values (DPDK leaves them)
runtime_clean() {
	local base p
	for base in /var/run/dpdk "${XDG_RUNTIME_DIR:-/nonexistent}/dpdk" /tmp/dpdk; do
		for p in "$@"; do
			[ -n "$p" ] && [ -d "$base/$p" ] && rm -rf -- "${base:?}/$p"
		done
	done
}
SVC_PID=
trap '[ -n "$SVC_PID" ] && kill "$SVC_PID" 2>/dev/null; wait; rm -rf "$TMP"; runtime_clean "uetlat$$server" "uetlat$$client" "uetlat$$servera" "uetlat$$clienta" "uetlat$$svc"' EXIT

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

memif_conf() { # file role lcore fa peer_fa mac peer_mac [progress]
	local eal_l=$3 prog=${8:-inline} prefix=uetlat$$$2 extra= alc=
	if [ "$prog" = auto ]; then
		eal_l=0-1
		prefix=uetlat$$$2a
		# AUTO_SPLIT=1: the client's engine lcore is CPU 0 (main lcore
		# 1), so the two engines do not share a CPU
		if [ "${AUTO_SPLIT:-0}" = 1 ] && [ "$2" = client ]; then
			eal_l="0-1 --main-lcore 1"
			alc=0
		fi
		extra="idle_sleep = ${IDLE_SLEEP:-10us}
idle_spin = ${IDLE_SPIN:-20us}"
		# (a build from before idle_sleep_max rejects the key)
		[ -n "${IDLE_SLEEP_MAX:-}" ] &&
			extra="$extra
idle_sleep_max = $IDLE_SLEEP_MAX"
	fi
	cat > "$1" <<EOF
[eal]
args = -l $eal_l --no-huge -m 256 --no-pci --file-prefix=$prefix --log-level=lib.eal:error
[port0]
devargs = net_memif0,role=$2,id=0,socket=$TMP/memif.sock
mtu = 1500
ipv4 = $4
ipv6 = none
mac = $6
[engine]
lcores = $([ "$prog" = auto ] && echo "${alc:-1}" || echo "$3")
progress = $prog
$extra
mbuf_pool_size = 4095
mbuf_cache = 32
# two busy-polling processes on a shared 2-core machine can be descheduled
# for tens of ms: give the PDS ~4 s of retries (default: 1.93 s)
[timers]
rto_init = 2ms
rto_max = 4s
rto_max_retries = 10
[neighbor]
$5 = $7
EOF
}

memif_conf "$TMP/s.conf" server 0 10.0.1.1 10.0.1.2 02:00:00:00:01:01 02:00:00:00:01:02
memif_conf "$TMP/c.conf" client 1 10.0.1.2 10.0.1.1 02:00:00:00:01:02 02:00:00:00:01:01
memif_conf "$TMP/sa.conf" server 0 10.0.1.1 10.0.1.2 02:00:00:00:01:01 02:00:00:00:01:02 auto
memif_conf "$TMP/ca.conf" client 1 10.0.1.2 10.0.1.1 02:00:00:00:01:02 02:00:00:00:01:01 auto

# run <label> <fi_pingpong provider/domain args...>
# (SUFFIX / CPU0 / CPU1 select the AUTO configuration and the pinning)
run() {
	local label=$1 port lat spid rec=
	shift
	port=$(free_port)
	if [ "$r" = 1 ] && [ "${label#uet}" != "$label" ]; then
		if [ -n "${SCHED:-}" ]; then
			perf sched record -a -o "$SCHED/$label.data" \
				> "$TMP/perf.log" 2>&1 &
			rec=$!
		elif [ -n "${PROFILE:-}" ]; then
			perf record -a -g -o "$PROFILE/$label.prof" \
				> "$TMP/perf.log" 2>&1 &
			rec=$!
		fi
		[ -n "$rec" ] && sleep 1
	fi
	env FI_UET_PROVIDER_CONFIG="$TMP/s${SUFFIX:-}.conf" \
		taskset -c "${CPU0:-0}" timeout 120 \
		"$PP" "$@" -e rdm -I "$ITERS" -S 64 -B "$port" \
		> "$TMP/s.out" 2>&1 &
	spid=$!
	sleep 0.5
	env FI_UET_PROVIDER_CONFIG="$TMP/c${SUFFIX:-}.conf" \
		taskset -c "${CPU1:-1}" timeout 120 \
		"$PP" "$@" -e rdm -I "$ITERS" -S 64 -P "$port" 127.0.0.1 \
		> "$TMP/c.out" 2>&1
	# the server only (SERVICE=1: the service runs in the background)
	wait "$spid"
	if [ -n "$rec" ]; then
		kill -INT "$rec"
		wait "$rec"
	fi
	lat=$(awk '$1 == 64 { print $7 }' "$TMP/c.out")
	printf '%-16s %s usec/xfer\n' "$label" "${lat:-FAILED}"
	[ -n "$lat" ] && printf '%s\t%s\n' "$label" "$lat" >> "$TMP/results"
	# (an "[ ] &&" list here made the script exit 1 after a good last run)
	if [ -z "$lat" ]; then
		grep -v 'returned -61' "$TMP/c.out" | tail -5
	fi
}

# idle_cpu <label> <build dir> [config]: CPU of an idle AUTO engine over
# 10 s (default: test/ofi/uet-auto.conf, one ring port)
idle_cpu() {
	printf '%-16s ' "$1"
	env FI_PROVIDER_PATH="$2/src/ofi" FI_LOG_LEVEL=warn \
		FI_UET_PROVIDER_CONFIG="${3:-$SRC/test/ofi/uet-auto.conf}" \
		FI_UET_PROVIDER_EAL_ARGS="-l 0-1 --no-huge --no-shconf -m 256 --no-pci --log-level=lib.eal:error" \
		"$BUILD/test/ofi/ofi_idle_cpu" 10 2>&1 | grep '^idle'
}

# the uet-engine service of the uet-svc row (SERVICE=1)
svc_start() {
	cat > "$TMP/svc.conf" <<EOF
[eal]
args = -l 0-1 --no-huge -m 256 --no-pci --file-prefix=uetlat$$svc --log-level=lib.eal:error
[port0]
devargs = net_ring0
mtu = 1500
ipv4 = 10.0.2.1
ipv6 = none
mac = 02:00:00:00:02:01
[engine]
lcores = 1
progress = auto
idle_sleep = ${IDLE_SLEEP:-10us}
idle_spin = ${IDLE_SPIN:-20us}
mbuf_pool_size = 4095
mbuf_cache = 32
[neighbor]
10.0.2.1 = 02:00:00:00:02:01
[service]
socket = $TMP/svc.sock
EOF
	"$BUILD/apps/uet-engine/uet-engine" -c "$TMP/svc.conf" \
		> "$TMP/svc.log" 2>&1 &
	SVC_PID=$!
	for _ in $(seq 100); do
		[ -S "$TMP/svc.sock" ] && return 0
		sleep 0.1
	done
	echo "uet-engine did not start:"
	cat "$TMP/svc.log"
	return 1
}

SRC=$(cd "$(dirname "$0")/.." && pwd)
export FI_PROVIDER_PATH="$BUILD/src/ofi" FI_LOG_LEVEL=warn
load() { cut -d' ' -f1-3 /proc/loadavg; }
echo "# fi_pingpong -e rdm -S 64 -I $ITERS, $REPS repetitions, $(date -u)"
echo "# load average at start: $(load)"
echo "# uet-auto: idle_sleep ${IDLE_SLEEP:-10us}, idle_spin ${IDLE_SPIN:-20us}, idle_sleep_max ${IDLE_SLEEP_MAX:-default}, split ${AUTO_SPLIT:-0}${BEFORE:+, before: $BEFORE}"
# uet-auto runs two processes of two threads each: an engine lcore that
# never sleeps (IDLE_SLEEP=0) and an application that never yields in
# fi_cq_read (FI_UET_PROVIDER_POLL_YIELD=0) each keep a CPU busy. More
# busy threads than CPUs: every transfer waits for the scheduler's time
# slice (milliseconds), which measures the scheduler, not the provider.
busy=0
case "${IDLE_SLEEP:-10us}" in 0 | 0us | 0ns | 0ms) busy=$((busy + 2)) ;; esac
case "${FI_UET_PROVIDER_POLL_YIELD:-1}" in 0 | no | false | off) busy=$((busy + 2)) ;; esac
if [ $busy -gt "$(nproc)" ]; then
	echo "# WARNING: uet-auto has $busy busy-polling threads on $(nproc) CPUs:" \
		"expect milliseconds per transfer (time slices), not the provider's latency"
fi
for r in $(seq "$REPS"); do
	rm -f "$TMP/memif.sock"
	FI_UET_PROVIDER_PROGRESS=inline run uet -p uet -d net_memif0-hpc
	rm -f "$TMP/memif.sock"
	if [ -n "$BEFORE" ]; then
		FI_PROVIDER_PATH="$BEFORE/src/ofi" FI_UET_PROVIDER_PROGRESS=inline \
			run uet-before -p uet -d net_memif0-hpc
		rm -f "$TMP/memif.sock"
	fi
	if [ "${SERVICE:-0}" = 1 ] && { [ -n "$SVC_PID" ] || svc_start; }; then
		FI_UET_PROVIDER_SERVICE_PATH="$TMP/svc.sock" CPU0=${SVC_CPU0:-0} CPU1=${SVC_CPU1:-0} \
			run uet-svc -p uet -d svc-hpc
	fi
	SUFFIX=a CPU0=0,1 CPU1=0,1 run uet-auto -p uet -d net_memif0-hpc
	if [ -n "$BEFORE" ]; then
		rm -f "$TMP/memif.sock"
		FI_PROVIDER_PATH="$BEFORE/src/ofi" SUFFIX=a CPU0=0,1 CPU1=0,1 \
			run uet-auto-before -p uet -d net_memif0-hpc
	fi
	run tcp -p tcp
	run 'udp;ofi_rxd' -p 'udp;ofi_rxd'
done
echo "# load average at end: $(load)"
# the median of each row over the repetitions (failed runs left out)
if [ -s "$TMP/results" ]; then
	echo "# medians (runs)"
	awk -F'\t' '{ v[$1] = v[$1] " " $2; if (!($1 in seen)) { seen[$1] = 1; o[++n] = $1 } }
	END {
		for (i = 1; i <= n; i++) {
			k = split(substr(v[o[i]], 2), a, " ")
			for (x = 1; x <= k; x++)
				for (y = x + 1; y <= k; y++)
					if (a[y] + 0 < a[x] + 0) { t = a[x]; a[x] = a[y]; a[y] = t }
			m = k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
			printf "median %-16s %.2f usec/xfer (%d)\n", o[i], m, k
		}
	}' "$TMP/results"
fi
if [ "${IDLE_CPU:-0}" = 1 ]; then
	echo "# CPU time of an idle AUTO engine (ofi_idle_cpu, test/ofi/uet-auto.conf)"
	idle_cpu "idle-auto" "$BUILD"
	[ -n "$BEFORE" ] && idle_cpu "idle-auto-before" "$BEFORE"
	# a port with RX interrupts (net_tap: root)
	if [ "$(id -u)" = 0 ] && [ -w /dev/net/tun ]; then
		sed "s|^devargs = .*|devargs = net_tap9,iface=uetlat$$|" \
			"$SRC/test/ofi/uet-auto.conf" > "$TMP/tap.conf"
		idle_cpu "idle-auto-tap" "$BUILD" "$TMP/tap.conf"
		[ -n "$BEFORE" ] &&
			idle_cpu "idle-tap-before" "$BEFORE" "$TMP/tap.conf"
	fi
fi
