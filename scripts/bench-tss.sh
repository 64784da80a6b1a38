#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# SES bandwidth with the transport security sublayer off and on, side by
# side in one run (docs/PERFORMANCE.md "Transport security", docs/TSS.md
# "Cost"): uet-perf in one process (two engines polled by one thread over
# ring ports, so every figure pays for both sealing and opening), SES
# WRITE and SEND of SIZE bytes, with [tss] off, with crypto_aesni_gcm
# (ipsec_mb, CPU crypto) and with crypto_openssl (a queue pair), R rounds
# interleaved. Per cell the median (and range) of GB/s of wall-clock time
# and of GB per CPU second of the thread (cpu_seconds: what a loaded
# machine's descheduling does not inflate), and the ratio of the latter
# to the TSS off's; then the per-byte cost of AES-256-GCM on this CPU
# alone (`openssl speed`, user CPU time, 8 KiB blocks: the frames' size),
# which bounds what sealing and opening every byte can reach. A
# benchmark, not a test: it asserts only that every run completed (a
# failed run prints its log and makes the exit status 1).
#
# usage: scripts/bench-tss.sh [build dir] [rounds]
#   (default build/release, 3)
# environment: SIZE (bytes, default 65536), COUNT (messages per run,
#   default 3000), PMDS (default "crypto_aesni_gcm crypto_openssl").
set -u

BUILD=$(cd "${1:-build/release}" && pwd) || exit 1
ROUNDS=${2:-3}
PERF=$BUILD/apps/uet-perf/uet-perf
SIZE=${SIZE:-65536}
COUNT=${COUNT:-3000}
PMDS=${PMDS:-crypto_aesni_gcm crypto_openssl}
if ! [ -x "$PERF" ]; then
	echo "bench-tss: no $PERF (-Dapps=enabled)" >&2
	exit 1
fi
WORK=$(mktemp -d /tmp/bench-tss.XXXXXX) || exit 1
trap 'rm -rf "$WORK"' EXIT
mkdir -m 700 "$WORK/state"
openssl rand -hex 32 > "$WORK/k7" && chmod 600 "$WORK/k7" || exit 1
for p in $PMDS; do
	printf '[tss]\nenabled = true\npmd = %s\nstate_dir = %s/state\ndomain.7 = 1-4095 %s/k7\n' \
		"$p" "$WORK" "$WORK" > "$WORK/$p.conf"
done

echo "bench-tss: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)" \
	"at the start; $ROUNDS rounds of $COUNT x $SIZE B"
status=0
for r in $(seq 1 "$ROUNDS"); do
	for op in write send; do
		for p in off $PMDS; do
			cfg=()
			[ "$p" = off ] || cfg=(--config "$WORK/$p.conf")
			out=$WORK/$op.$p.$r.json
			if ! "$PERF" "${cfg[@]}" --ulp ses --mode bw --op "$op" \
				--size "$SIZE" --count "$COUNT" --loss 0 --json \
				> "$out" 2> "$WORK/log"; then
				echo "bench-tss: $op $p round $r failed:" >&2
				cat "$WORK/log" >&2
				rm -f "$out"
				status=1
			fi
		done
	done
done

python3 - "$WORK" "$ROUNDS" "$SIZE" "$COUNT" $PMDS <<'EOF'
import json, statistics, sys, os
work, rounds, size, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
variants = ["off"] + sys.argv[5:]
def cell(op, v):
    wall, cpu = [], []
    for r in range(1, rounds + 1):
        f = os.path.join(work, "%s.%s.%d.json" % (op, v, r))
        if not os.path.exists(f):
            continue
        b = json.load(open(f))["results"]["bw"]
        if not b.get("complete"):
            continue
        gb = b["size"] * b["count"] / 1e9
        wall.append(gb / b["seconds"])
        cpu.append(gb / b["cpu_seconds"])
    return wall, cpu
def fmt(xs):
    if not xs:
        return "-"
    return "%.2f (%.2f-%.2f)" % (statistics.median(xs), min(xs), max(xs))
print()
print("| op | [tss] | GB/s | GB per CPU second | ratio (CPU) |")
print("|---|---|---|---|---|")
for op in ("write", "send"):
    base = statistics.median(cell(op, "off")[1]) if cell(op, "off")[1] else None
    for v in variants:
        wall, cpu = cell(op, v)
        ratio = "%.2f" % (statistics.median(cpu) / base) if base and cpu else "-"
        print("| %s %d B | %s | %s | %s | %s |" % (op.upper(), size, v, fmt(wall), fmt(cpu), ratio))
EOF
echo
echo "AES-256-GCM alone on this CPU (openssl speed, 8 KiB blocks, user CPU time):"
openssl speed -seconds 2 -bytes 8192 -evp aes-256-gcm 2>/dev/null |
	awk 'tolower($1) == "aes-256-gcm" { v = $NF; sub(/k$/, "", v);
		printf "  %.0f MB/s per CPU second: %.3f ns per byte, sealing or opening\n",
			v * 1000 / 1e6, 1e9 / (v * 1000) }'
echo "bench-tss: load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
exit $status
