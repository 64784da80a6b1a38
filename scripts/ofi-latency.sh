#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# 64-byte fi_pingpong latency (usec/xfer as fi_pingpong prints it) of
#   uet             this provider, two processes over net_memif (inline
#                   progress, EAL -l 0 / -l 1)
#   tcp             libfabric's tcp provider on loopback
#   udp;ofi_rxd     libfabric's udp provider under the rxd utility
# in one run, server pinned to CPU 0 and client to CPU 1, R repetitions.
# A benchmark, not a test: it reports numbers and asserts nothing.
#
# usage: scripts/ofi-latency.sh <build dir> [iterations] [repetitions]
set -u

BUILD=${1:?build dir}
ITERS=${2:-10000}
REPS=${3:-3}
PP=/usr/bin/fi_pingpong
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
trap 'rm -rf "$TMP"; runtime_clean "uetlat$$server" "uetlat$$client"' EXIT

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

memif_conf() { # file role lcore fa peer_fa mac peer_mac
	cat > "$1" <<EOF
[eal]
args = -l $3 --no-huge -m 256 --no-pci --file-prefix=uetlat$$$2 --log-level=lib.eal:error
[port0]
devargs = net_memif0,role=$2,id=0,socket=$TMP/memif.sock
mtu = 1500
ipv4 = $4
ipv6 = none
mac = $6
[engine]
lcores = $3
progress = inline
mbuf_pool_size = 4095
mbuf_cache = 32
# two busy-polling processes on a shared 2-core machine can be descheduled
# for tens of ms: give the PDS ~4 s of retries instead of 63 ms
[timers]
rto_init = 2ms
rto_max_retries = 10
[neighbor]
$5 = $7
EOF
}

memif_conf "$TMP/s.conf" server 0 10.0.1.1 10.0.1.2 02:00:00:00:01:01 02:00:00:00:01:02
memif_conf "$TMP/c.conf" client 1 10.0.1.2 10.0.1.1 02:00:00:00:01:02 02:00:00:00:01:01

# run <label> <fi_pingpong provider/domain args...>
run() {
	local label=$1 port lat
	shift
	port=$(free_port)
	env FI_UET_PROVIDER_CONFIG="$TMP/s.conf" taskset -c 0 timeout 120 \
		"$PP" "$@" -e rdm -I "$ITERS" -S 64 -B "$port" \
		> "$TMP/s.out" 2>&1 &
	sleep 0.5
	env FI_UET_PROVIDER_CONFIG="$TMP/c.conf" taskset -c 1 timeout 120 \
		"$PP" "$@" -e rdm -I "$ITERS" -S 64 -P "$port" 127.0.0.1 \
		> "$TMP/c.out" 2>&1
	wait
	lat=$(awk '$1 == 64 { print $7 }' "$TMP/c.out")
	printf '%-12s %s usec/xfer\n' "$label" "${lat:-FAILED}"
	[ -z "$lat" ] && grep -v 'returned -61' "$TMP/c.out" | tail -5
}

export FI_PROVIDER_PATH="$BUILD/src/ofi" FI_LOG_LEVEL=warn
export FI_UET_PROVIDER_PROGRESS=inline
echo "# fi_pingpong -e rdm -S 64 -I $ITERS, $REPS repetitions, $(date -u)"
for r in $(seq "$REPS"); do
	rm -f "$TMP/memif.sock"
	run uet -p uet -d net_memif0-hpc
	run tcp -p tcp
	run 'udp;ofi_rxd' -p 'udp;ofi_rxd'
done
