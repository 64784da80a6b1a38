#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Bulk bandwidth of docs/PERFORMANCE.md ("Bulk bandwidth") in one run, one
# table, the peers measured at the same moment on the same machine:
#   memcpy          one core copying a buffer of the size (Python's
#                   memoryview assignment: libc memcpy), MB per CPU
#                   second (the process's CPU time: what descheduling on a
#                   loaded machine does not inflate), the ceiling of any
#                   one-flow transfer that copies the bytes once
#   uet-perf        in-process SES WRITE and SEND (two engines polled by
#                   one thread, ring ports; the payload's sequence numbers
#                   checked: --verify's byte-by-byte check costs more than
#                   the transfer), MB/s and MB per CPU second
#   fabtests        fi_rdm_tagged_bw and fi_rma_bw (WRITE), two processes:
#                   uet over net_memif (inline progress) against
#                   libfabric's tcp provider on loopback, server pinned to
#                   CPU 0 and client to CPU 1 for both
#   Open MPI        (MPI=1) scripts/mpi-bench.sh's bandwidth phase for uet
#                   (its own configuration: MTU 1500) and tcp;ofi_rxm,
#                   64 KiB and 1 MiB only
# Sizes 64 KiB, 1 MiB and 4 MiB; R repetitions interleaved, the median
# (and range) of each cell. A benchmark, not a test: it asserts only that
# every run completed (a failed run prints its log and makes the exit
# status 1).
#
# usage: scripts/bench-bulk.sh [build dir] [repetitions]
#   (default build/release, 1)
# environment: FT_BIN fabtests' bin directory (default build/fabtests/bin,
#   scripts/fabtests.sh builds it; without one the fabtests rows are
#   skipped with a note); MTUS the uet ports' MTUs, each a row of its own
#   (default "1500 9000": ring and memif ports carry jumbo frames, 9000
#   being their default), an MTU
#   with a suffix :true, :false or :auto also sets the ports'
#   udp_checksum (default: the config's default, auto: none on ring and
#   memif ports), e.g. MTUS="1500:true 1500"; ZC the ports'
#   tx_zero_copy values, each MTU's rows once per value (default "auto":
#   on for net_memif, off for net_ring), e.g. ZC="false true"; SIZES
#   (bytes, default "65536 1048576 4194304"); MB megabytes moved per run
#   (default 256); MPI=1 adds the Open MPI rows.
set -u

BUILD=$(cd "${1:-build/release}" && pwd) || exit 1
REPS=${2:-1}
TOP=$(cd "$(dirname "$0")/.." && pwd)
PERF=$BUILD/apps/uet-perf/uet-perf
FT_BIN=${FT_BIN:-$TOP/build/fabtests/bin}
MTUS=${MTUS:-1500 9000}
ZC=${ZC:-auto}
SIZES=${SIZES:-65536 1048576 4194304}
MB=${MB:-256}
if ! [ -x "$PERF" ] || ! [ -f "$BUILD/src/ofi/libuet-fi.so" ]; then
	echo "bench-bulk: no $PERF or $BUILD/src/ofi/libuet-fi.so (-Dapps=enabled)" >&2
	exit 1
fi
# mtu_of VARIANT, csum_of VARIANT, zc_of VARIANT, row_of VARIANT:
# "1500:true@false" is MTU 1500 with udp_checksum = true and tx_zero_copy
# = false, row "MTU 1500 csum true zc false" (the zc part only when ZC
# was given)
mtu_of() { local v=${1%%@*}; echo "${v%%:*}"; }
csum_of() { local v=${1%%@*}; case $v in *:*) echo "${v#*:}" ;; esac; }
zc_of() { echo "${1#*@}"; }
row_of() {
	local zc=
	[ "$ZC" = auto ] || zc=$(zc_of "$1")
	echo "MTU $(mtu_of "$1")${2:+ csum $2}${zc:+ zc $zc}"
}
for v in $MTUS; do
	case $(csum_of "$v") in "" | true | false | auto) ;; *)
		echo "bench-bulk: an MTUS suffix is :true, :false or :auto ('$v')" >&2
		exit 2 ;;
	esac
done
for v in $ZC; do
	case $v in true | false | auto) ;; *)
		echo "bench-bulk: ZC values are true, false or auto ('$v')" >&2
		exit 2 ;;
	esac
done
# every MTU variant once per tx_zero_copy value
VARIANTS=$(for m in $MTUS; do for z in $ZC; do echo "$m@$z"; done; done)
for v in $(for m in $VARIANTS; do mtu_of "$m"; done) $SIZES "$MB" "$REPS"; do
	case $v in "" | *[!0-9]* | 0)
		echo "bench-bulk: MTUS, SIZES, MB and repetitions are positive numbers ('$v')" >&2
		exit 2 ;;
	esac
done
TMP=$(mktemp -d /tmp/uet-bulk.XXXXXX) || exit 1
tag=uetbulk$$
trap 'rm -rf "$TMP" /var/run/dpdk/${tag}s /var/run/dpdk/${tag}c /var/run/dpdk/${tag}p' EXIT
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# result ROW SIZE VALUE: one measurement (VALUE in MB/s, empty: failed)
result() {
	printf '%s\t%s\t%s\n' "$1" "$2" "$3" >> "$TMP/results"
}

# --- memcpy ---------------------------------------------------------------
memcpy_bw() { # size
	python3 - "$1" "$MB" <<'EOF'
import sys, time
n, mb = int(sys.argv[1]), int(sys.argv[2])
src, dst = bytearray(b"\x5a" * n), bytearray(n)
view = memoryview(dst)
reps = max(8, mb * 2**20 // n)
view[:] = src  # fault the pages in
t = time.process_time()
for _ in range(reps):
    view[:] = src
print(f"{n * reps / (time.process_time() - t) / 1e6:.0f}")
EOF
}

# --- uet-perf in-process ---------------------------------------------------
perf_conf() { # variant [udp_checksum]
	cat > "$TMP/perf.conf.$1" <<EOF
[eal]
args = -l 0 --no-huge -m 1024 --no-pci --file-prefix=${tag}p --log-level=lib.eal:error
[port0]
devargs = net_ring0
ipv4 = 10.0.0.1
mtu = $(mtu_of "$1")
tx_zero_copy = $(zc_of "$1")
${2:+udp_checksum = $2}
EOF
}
perf_bw() { # op size mtu -> "MB/s MB-per-CPU-second"
	local count=$(( MB * 1048576 / $2 ))
	[ $count -ge 16 ] || count=16
	if ! "$PERF" --config "$TMP/perf.conf.$3" --ulp ses --mode bw --op "$1" \
		--size "$2" --count $count --json > "$TMP/perf.json" \
		2> "$TMP/perf.err"; then
		echo "FAILED: uet-perf --ulp ses --mode bw --op $1 --size $2" >&2
		tail -n 5 "$TMP/perf.err" >&2
		touch "$TMP/failed"
		return
	fi
	python3 - "$TMP/perf.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
r = next(iter(d["results"].values()))
if d.get("verified"):
    print(f'{r["gbytes_per_s"] * 1e3:.0f} '
          f'{r["gbytes_per_s"] * 1e3 * r["seconds"] / r["cpu_seconds"]:.0f}')
EOF
}

# --- fabtests: uet over memif, tcp on loopback -----------------------------
memif_conf() { # file role lcore fa peer_fa mac peer_mac mtu zc [udp_checksum]
	cat > "$1" <<EOF
[eal]
args = -l $3 --no-huge -m 512 --no-pci --file-prefix=${tag}${2:0:1} --log-level=lib.eal:error
[port0]
devargs = net_memif0,role=$2,id=0,socket=$TMP/memif.sock,socket-abstract=no
mtu = $8
tx_zero_copy = $9
${10:+udp_checksum = ${10}}
ipv4 = $4
ipv6 = none
mac = $6
[engine]
lcores = $3
progress = inline
mbuf_cache = 32
# two busy-polling processes on a shared 2-core machine can be descheduled
# for tens of ms: give the PDS seconds of retries
[timers]
rto_init = 2ms
rto_max = 4s
rto_max_retries = 10
[neighbor]
$5 = $7
EOF
}
for mtu in $VARIANTS; do
	perf_conf "$mtu" "$(csum_of "$mtu")"
	memif_conf "$TMP/s.conf.$mtu" server 0 127.0.1.1 127.0.1.2 \
		02:00:00:00:09:01 02:00:00:00:09:02 "$(mtu_of "$mtu")" \
		"$(zc_of "$mtu")" "$(csum_of "$mtu")"
	memif_conf "$TMP/c.conf.$mtu" client 1 127.0.1.2 127.0.1.1 \
		02:00:00:00:09:02 02:00:00:00:09:01 "$(mtu_of "$mtu")" \
		"$(zc_of "$mtu")" "$(csum_of "$mtu")"
done

# ft PROGRAM PROVIDER SIZE [args...] -> MB/s as the client prints it
# (uet: at MTU $mtu)
ft() {
	local name=$1 prog=$FT_BIN/$1 prov=$2 size=$3 iters win=16 port lport spid s c
	shift 3
	iters=$(( MB * 1048576 / size ))
	[ $iters -gt $win ] || iters=$((win + 1))
	port=$(free_port)
	if [ "$prov" = uet ]; then
		rm -f "$TMP/memif.sock"
		s=(-p uet -d net_memif0-hpc -s 127.0.1.1)
		c=(-p uet -d net_memif0-hpc -s 127.0.1.2 127.0.1.1)
	else
		# the provider's listener on a free port too
		lport=$(free_port)
		s=(-p "$prov" -s 127.0.0.1 -B "$lport")
		c=(-p "$prov" -s 127.0.0.1 -P "$lport" 127.0.0.1)
	fi
	FI_UET_PROVIDER_CONFIG=$TMP/s.conf.${mtu:-} taskset -c 0 timeout 120 \
		"$prog" "$@" -S "$size" -I "$iters" -W $win -E="$port" "${s[@]}" \
		> "$TMP/ft.s" 2>&1 &
	spid=$!
	sleep 0.5
	FI_UET_PROVIDER_CONFIG=$TMP/c.conf.${mtu:-} taskset -c 1 timeout 120 \
		"$prog" "$@" -S "$size" -I "$iters" -W $win -E="$port" "${c[@]}" \
		> "$TMP/ft.c" 2>&1
	wait "$spid"
	# bytes iters total time MB/sec usec/xfer Mxfers/sec
	awk -v s="$size" '$2 == s || $1 ~ /^[0-9.]+[km]$/ && $5 ~ /^[0-9.]+$/ { v = $5 } END { if (v != "") print v }' \
		"$TMP/ft.c" | grep . ||
		{
		echo "FAILED: $name $* $prov -S $size" >&2
		tail -n 5 "$TMP/ft.c" "$TMP/ft.s" >&2
		# (a command substitution: the status goes through a file)
		touch "$TMP/failed"
	}
}

export FI_PROVIDER_PATH=$BUILD/src/ofi FI_LOG_LEVEL=warn
unset FI_PROVIDER FI_UET_PROVIDER_EAL_ARGS FI_UET_PROVIDER_PROFILES
fabtests=1
if ! [ -x "$FT_BIN/fi_rdm_tagged_bw" ] || ! [ -x "$FT_BIN/fi_rma_bw" ]; then
	echo "# no fabtests in $FT_BIN (bash scripts/fabtests.sh, or FT_BIN=DIR): fabtests rows skipped"
	fabtests=0
fi
buildtype=$(python3 -c 'import json, sys
for o in json.load(open(sys.argv[1])):
    if o["name"] == "buildtype": print(o["value"])' \
	"$BUILD/meson-info/intro-buildoptions.json" 2>/dev/null)
echo "# bench-bulk: $BUILD (buildtype ${buildtype:-unknown}), MTU $MTUS, tx_zero_copy $ZC, $REPS repetitions, ${MB} MB per run, $(date -u)"
echo "# machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) CPUs"
echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 1; r <= REPS; r++)); do
	for size in $SIZES; do
		result "memcpy per CPU s" "$size" "$(memcpy_bw "$size")"
		for mtu in $VARIANTS; do
			for op in write send; do
				row=$(row_of "$mtu" "$(csum_of "$mtu")")
				read -r bw cpu <<< "$(perf_bw $op "$size" "$mtu")"
				result "uet-perf SES $op $row" "$size" "${bw:-}"
				result "uet-perf SES $op $row per CPU s" \
					"$size" "${cpu:-}"
			done
		done
		[ $fabtests -eq 1 ] || continue
		for mtu in $VARIANTS; do
			row=$(row_of "$mtu" "$(csum_of "$mtu")")
			result "fi_rdm_tagged_bw uet $row" "$size" \
				"$(ft fi_rdm_tagged_bw uet "$size")"
			result "fi_rma_bw write uet $row" "$size" \
				"$(ft fi_rma_bw uet "$size" -o write)"
		done
		result "fi_rdm_tagged_bw tcp" "$size" \
			"$(ft fi_rdm_tagged_bw tcp "$size")"
		result "fi_rma_bw write tcp" "$size" \
			"$(ft fi_rma_bw tcp "$size" -o write)"
	done
	if [ "${MPI:-0}" = 1 ]; then
		PROVIDERS="uet tcp;ofi_rxm" bash "$TOP/scripts/mpi-bench.sh" \
			"$BUILD" 20 > "$TMP/mpi.out" 2>&1 || touch "$TMP/failed"
		awk '/^## /{ p = $2 } p != "" && $1 ~ /^[0-9]+$/ && NF >= 3 { print p "\t" $1 "\t" $3 }' \
			"$TMP/mpi.out" | while IFS=$'\t' read -r p size bw; do
			case $size in 65536 | 1048576 | 4194304)
				result "Open MPI bw $p" "$size" "$bw" ;; esac
		done
	fi
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$TMP/results" "$SIZES" "$(for m in $VARIANTS; do row_of "$m" "$(csum_of "$m")"; done | paste -sd,)" <<'EOF'
import statistics, sys
rows, order = {}, []
for line in open(sys.argv[1]):
    name, size, val = line.rstrip("\n").split("\t")
    if name not in rows:
        rows[name] = {}
        order.append(name)
    vals = rows[name].setdefault(int(size), [])
    if val:
        vals.append(float(val))
sizes = [int(s) for s in sys.argv[2].split()]

def label(n):
    return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n >> 10} KiB"

def med(name, s):
    v = rows.get(name, {}).get(s)
    return statistics.median(v) if v else None

def cell(name, s):
    if s not in rows[name]:
        return "-"  # not measured at this size (Open MPI: up to 1 MiB)
    v = rows[name][s]
    if not v:
        return "failed"
    m = statistics.median(v)
    return f"{m:.0f}" if len(v) == 1 else f"{m:.0f} ({min(v):.0f}-{max(v):.0f})"

print()
print("| MB/s (median) | " + " | ".join(label(s) for s in sizes) + " |")
print("|---" * (len(sizes) + 1) + "|")
for name in order:
    print(f"| {name} | " + " | ".join(cell(name, s) for s in sizes) + " |")
# the ratios the targets name (docs/PERFORMANCE.md "Bulk bandwidth")
ratios = [("Open MPI bw uet / tcp", "Open MPI bw uet", "Open MPI bw tcp;ofi_rxm")]
for row in sys.argv[3].split(","):
    m = f" {row}"
    ratios += [(f"fi_rdm_tagged_bw uet{m} / tcp", f"fi_rdm_tagged_bw uet{m}", "fi_rdm_tagged_bw tcp"),
               (f"fi_rma_bw write uet{m} / tcp", f"fi_rma_bw write uet{m}", "fi_rma_bw write tcp"),
               (f"uet-perf SES write{m} / memcpy (per CPU s)", f"uet-perf SES write{m} per CPU s", "memcpy per CPU s"),
               (f"uet-perf SES send{m} / memcpy (per CPU s)", f"uet-perf SES send{m} per CPU s", "memcpy per CPU s")]
for title, a, b in ratios:
    if a not in rows:
        continue
    vals = []
    for s in sizes:
        x, y = med(a, s), med(b, s)
        vals.append(f"{x / y:.3g}x" if x and y else "-")
    print(f"| {title} | " + " | ".join(vals) + " |")
EOF
[ ! -e "$TMP/failed" ]
