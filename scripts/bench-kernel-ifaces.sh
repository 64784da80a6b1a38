#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Kernel-backed interfaces against the kernel itself, in one run on one
# veth pair between two network namespaces of the script's own (created
# here, removed at any exit), one process each side, the server side
# pinned to CPU $CPU_S and the client side to CPU $CPU_C:
#   kernel        iperf3 TCP, 64 KiB writes (bw); iperf3 UDP, 64-byte
#                 datagrams, unlimited rate (msgrate: datagrams received
#                 per second); ping, 64-byte ICMP echo (RTT p50 / p99)
#   af_packet     uet-perf --role server|client over net_af_packet:
#                 msgrate and latency of 64-byte messages, bw of 64 KiB
#   af_packet+tc  the same with a tc ingress filter on both veths that
#                 drops UDP to port 4793 after af_packet has its copy
#                 (scripts/uet-rx-drop.bpf.c, built here with clang): the
#                 kernel's IP stack no longer routes and drops each frame
#   af_xdp        the same over net_af_xdp (native XDP on the veth; its
#                 MTU limit of 3490 in DPDK 22.11 leaves it out of jumbo
#                 rows)
# for each MTU in $MTUS (default "1500 9000"; both veths and port0.mtu),
# the whole sequence $REPS times (default 3), so that each path's runs
# alternate with the others' on a machine whose load changes.
# The control connections (iperf3's, uet-perf's) run over a second veth
# pair: net_af_xdp's XDP program takes every frame of the data veth.
# Prints each repetition's rows, then a table of the median of each
# number over the repetitions with its range (min-max), and each row's
# ratio to the kernel row of its MTU (bw to TCP, msgrate to UDP, RTT to
# ICMP) as the median of the ratios within each repetition. A benchmark,
# not a test: it asserts nothing, exits 1 when a measurement failed. On a
# shared machine the absolute numbers follow the load: compare ratios.
#
# usage: scripts/bench-kernel-ifaces.sh [BUILD_DIR]   (as root)
# environment: SECS (per test, default 3), REPS, MTUS, PMDS (default
# "af_packet af_packet+tc af_xdp"), CPU_S / CPU_C (default 0 / 1), TAG
# (prefix of the namespace and interface names, default ukb<pid>),
# AFP_DEVARGS / AFX_DEVARGS (extra net_af_packet / net_af_xdp devargs,
# e.g. ",framecnt=4096", ",busy_budget=0"),
# KEEP=1 (keep the raw outputs, their directory is printed)
set -u

BUILD=${1:-build/release}
PERF=$(readlink -f "$BUILD/apps/uet-perf/uet-perf")
SECS=${SECS:-3}
REPS=${REPS:-3}
MTUS=${MTUS:-1500 9000}
PMDS=${PMDS:-af_packet af_packet+tc af_xdp}
CPU_S=${CPU_S:-0}
CPU_C=${CPU_C:-1}
AFP_DEVARGS=${AFP_DEVARGS:-}
AFX_DEVARGS=${AFX_DEVARGS:-}
# af_xdp in DPDK 22.11: 4 KiB UMEM frames, no multi-buffer
AFXDP_MAX_MTU=3490
LIMIT=$((SECS * 6 + 40))   # bound of each process

die() { echo "bench-kernel-ifaces: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || die "needs root (network namespaces)"
[ -x "$PERF" ] || die "no uet-perf in $BUILD (bash scripts/quickstart.sh)"
for t in iperf3 ip ping taskset python3; do
	command -v $t > /dev/null || die "$t missing (scripts/install-deps.sh)"
done
case "$SECS" in ''|*[!0-9]*|0) die "SECS must be a positive number" ;; esac
case "$REPS" in ''|*[!0-9]*|0) die "REPS must be a positive number" ;; esac
for p in $PMDS; do
	case "$p" in
	af_packet|af_packet+tc|af_xdp) ;;
	*) die "PMDS: no path $p (af_packet, af_packet+tc, af_xdp)" ;;
	esac
done

# names no other run (ours or a test's) uses: the pid in hex, or $TAG
tag=${TAG:-ukb$(printf %x $$)}
case "$tag" in
''|*[!a-z0-9]*) die "TAG: lower-case letters and digits only" ;;
esac
[ ${#tag} -le 12 ] || die "TAG: 12 characters at most (interface names)"
NS=("${tag}s" "${tag}c")
DV=("${tag}d0" "${tag}d1")    # data veth
CV=("${tag}c0" "${tag}c1")    # control veth
KADDR=(172.30.1.1 172.30.1.2) # kernel addresses on the data veth
CADDR=(172.30.2.1 172.30.2.2) # control addresses
TMP=$(mktemp -d /tmp/uet-bench-kif.XXXXXX) || exit 1
PIDS=()

cleanup() {
	local p base
	for p in "${PIDS[@]}"; do
		kill "$p" 2> /dev/null
	done
	wait 2> /dev/null
	ip netns del "${NS[0]}" 2> /dev/null
	ip netns del "${NS[1]}" 2> /dev/null
	for base in /var/run/dpdk /tmp/dpdk; do
		rm -rf -- "$base/${tag}s" "$base/${tag}c"
	done
	if [ "${KEEP:-0}" = 1 ]; then
		echo "raw outputs kept in $TMP"
	else
		rm -rf -- "$TMP"
	fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

in_ns() { local i=$1; shift; ip netns exec "${NS[$i]}" "$@"; }

# the ingress filter of the af_packet+tc rows, built once
DROP_OBJ=$TMP/uet-rx-drop.bpf.o
build_drop() {
	command -v clang > /dev/null || die "clang missing (af_packet+tc)"
	clang -O2 -target bpf -I/usr/include/"$(gcc -print-multiarch)" \
		-c "$(dirname "$0")/uet-rx-drop.bpf.c" -o "$DROP_OBJ" ||
		die "cannot build scripts/uet-rx-drop.bpf.c"
}

rx_drop() { # on|off
	local i
	for i in 0 1; do
		if [ "$1" = on ]; then
			in_ns "$i" tc qdisc add dev "${DV[$i]}" clsact &&
			in_ns "$i" tc filter add dev "${DV[$i]}" ingress bpf \
				da obj "$DROP_OBJ" sec tc || return 1
		else
			in_ns "$i" tc qdisc del dev "${DV[$i]}" clsact
		fi
	done
}

setup() {
	ip netns add "${NS[0]}" && ip netns add "${NS[1]}" || return 1
	ip link add "${DV[0]}" netns "${NS[0]}" type veth peer name "${DV[1]}" \
		netns "${NS[1]}" || return 1
	ip link add "${CV[0]}" netns "${NS[0]}" type veth peer name "${CV[1]}" \
		netns "${NS[1]}" || return 1
	for i in 0 1; do
		ip -n "${NS[$i]}" addr add "${KADDR[$i]}/24" dev "${DV[$i]}" &&
		ip -n "${NS[$i]}" addr add "${CADDR[$i]}/24" dev "${CV[$i]}" &&
		ip -n "${NS[$i]}" link set lo up &&
		ip -n "${NS[$i]}" link set "${CV[$i]}" up &&
		ip -n "${NS[$i]}" link set "${DV[$i]}" up || return 1
	done
}

set_mtu() {
	local i
	for i in 0 1; do
		ip -n "${NS[$i]}" link set "${DV[$i]}" mtu "$1" || return 1
	done
}

# json_get FILE FORMAT EXPR: a Python expression over the parsed document
# d, formatted (format() spec), or "-" when the run left no number
json_get() {
	python3 - "$1" "$2" "$3" << 'EOF'
import json, sys
try:
    with open(sys.argv[1]) as f:
        text = f.read()
    # uet-perf: the last JSON line; iperf3: one indented document
    try:
        d = json.loads(text)
    except ValueError:
        d = json.loads(text.strip().splitlines()[-1])
    print(format(eval(sys.argv[3], {"d": d}), sys.argv[2]))
except Exception as e:  # a failed run: no number
    print("-")
    print(f"{sys.argv[1]}: {e}", file=sys.stderr)
EOF
}

# iperf3 server in the server namespace for one client run
iperf() { # out args...
	local out=$1 srv
	shift
	in_ns 0 timeout "$LIMIT" iperf3 -s -1 -B "${KADDR[0]}" -A "$CPU_S" \
		> /dev/null 2>&1 &
	srv=$!
	PIDS+=("$srv")
	for _ in $(seq 50); do
		in_ns 0 ss -ltn 2> /dev/null | grep -q ":5201 " && break
		sleep 0.1
	done
	in_ns 1 timeout "$LIMIT" iperf3 -c "${KADDR[0]}" -A "$CPU_C" -t "$SECS" \
		-J "$@" > "$out" 2>&1
	wait "$srv"
}

# RTT of 64-byte ICMP echoes, pinned like the others: "p50 p99" in us
ping_rtt() {
	in_ns 1 taskset -c "$CPU_C" timeout "$LIMIT" ping -n -q -c 1 \
		"${KADDR[0]}" > /dev/null 2>&1 # neighbour resolved first
	in_ns 1 taskset -c "$CPU_C" timeout "$LIMIT" ping -n -i 0.0005 \
		-c 2000 -s 56 "${KADDR[0]}" 2> /dev/null |
		python3 -c '
import re, statistics, sys
v = sorted(float(m.group(1)) * 1000 for m in
           (re.search(r"time=([0-9.]+) ms", l) for l in sys.stdin) if m)
if len(v) < 100:
    print("- -")
else:
    print(f"{v[len(v) // 2]:.1f} {v[int(len(v) * 0.99)]:.1f}")'
}

kernel_row() { # mtu rep
	local m=$1 tcp udp rtt
	iperf "$TMP/tcp-$m-$2.json" -l 64K
	iperf "$TMP/udp-$m-$2.json" -u -l 64 -b 0
	tcp=$(json_get "$TMP/tcp-$m-$2.json" .3f \
		"d['end']['sum_received']['bits_per_second'] / 8e9")
	udp=$(json_get "$TMP/udp-$m-$2.json" .0f \
		"(lambda s: (s['packets'] - s['lost_packets']) / s['seconds'] / 1e3)(d['end']['sum'])")
	rtt=$(ping_rtt)
	echo "$2 $m kernel $tcp $udp $rtt"
}

perf_conf() { # file side pmd mtu
	local devargs
	if [ "$3" = af_xdp ]; then
		devargs="net_af_xdp0,iface=${DV[$2]},start_queue=0,queue_count=1$AFX_DEVARGS"
	else
		devargs="net_af_packet0,iface=${DV[$2]}$AFP_DEVARGS"
	fi
	cat > "$1" << EOF
[eal]
args = -l $( [ "$2" = 0 ] && echo "$CPU_S" || echo "$CPU_C") --no-shconf --file-prefix=${NS[$2]} --no-huge -m 512 --no-pci --log-level=4

[port0]
devargs = $devargs
ipv4 = 10.0.0.$(($2 + 1))
mtu = $4

[engine]
lcores = $( [ "$2" = 0 ] && echo "$CPU_S" || echo "$CPU_C")
progress = inline
mbuf_pool_size = 16383
EOF
}

# one uet-perf session: server then client; the client's JSON in $out
session() { # out pmd mtu client-args...
	local out=$1 pmd=$2 mtu=$3 srv
	shift 3
	perf_conf "$TMP/s.conf" 0 "$pmd" "$mtu"
	perf_conf "$TMP/c.conf" 1 "$pmd" "$mtu"
	in_ns 0 taskset -c "$CPU_S" timeout "$LIMIT" "$PERF" --role server \
		--config "$TMP/s.conf" --ctl "${CADDR[0]}:47592" \
		--ctl-timeout 20s > "$out.server" 2>&1 &
	srv=$!
	PIDS+=("$srv")
	for _ in $(seq 100); do
		grep -q "listening on port" "$out.server" 2> /dev/null && break
		kill -0 "$srv" 2> /dev/null || break
		sleep 0.1
	done
	in_ns 1 taskset -c "$CPU_C" timeout "$LIMIT" "$PERF" --role client \
		--config "$TMP/c.conf" --ctl "${CADDR[0]}:47592" \
		--ctl-timeout 20s --json "$@" > "$out" 2> "$out.err"
	wait "$srv"
}

perf_row() { # path mtu rep
	local path=$1 m=$2 pmd=${1%+tc} out=$TMP/$1-$2-$3 bw rate p50 p99
	if [ "$pmd" = af_xdp ] && [ "$m" -gt "$AFXDP_MAX_MTU" ]; then
		echo "$3 $m $path n/a n/a n/a n/a"
		return
	fi
	if [ "$path" != "$pmd" ]; then
		rx_drop on || die "tc ingress filter refused"
	fi
	session "$out-small.json" "$pmd" "$m" --mode msgrate,latency \
		--size 64 --duration "${SECS}s"
	session "$out-bw.json" "$pmd" "$m" --mode bw --size 65536 \
		--duration "${SECS}s"
	if [ "$path" != "$pmd" ]; then
		rx_drop off
	fi
	rate=$(json_get "$out-small.json" .0f \
		"d['results']['msgrate']['msgs_per_s'] / 1e3")
	p50=$(json_get "$out-small.json" .1f \
		"d['results']['latency']['latency_ns']['p50'] / 1e3")
	p99=$(json_get "$out-small.json" .1f \
		"d['results']['latency']['latency_ns']['p99'] / 1e3")
	bw=$(json_get "$out-bw.json" .3f "d['results']['bw']['gbytes_per_s']")
	echo "$3 $m $path $bw $rate $p50 $p99"
}

setup || die "namespace setup failed"
case " $PMDS " in *"+tc "*) build_drop ;; esac
echo "# $(date -u '+%F %T') UTC, $(uname -r), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# veth pair in namespaces ${NS[*]}, server CPU $CPU_S, client CPU $CPU_C, ${SECS} s per test, $REPS repetitions"
# rows in a file, not through $(...): the processes each row starts must
# be in PIDS of this shell for the trap
for r in $(seq "$REPS"); do
	for m in $MTUS; do
		set_mtu "$m" || die "veth MTU $m refused"
		kernel_row "$m" "$r" >> "$TMP/rows"
		for p in $PMDS; do
			perf_row "$p" "$m" "$r" >> "$TMP/rows"
		done
	done
	echo "# repetition $r done, load average $(cut -d' ' -f1-3 /proc/loadavg)"
done
python3 "$(dirname "$0")/bench-kernel-ifaces-table.py" < "$TMP/rows"
