#!/usr/bin/env bash
# A long fuzz_dst campaign (docs/DST.md "A long campaign"): start one in
# the background, or report one, running or ended.
#   scripts/dst-fuzz.sh start DIR [--fuzzer BIN] [--corpus CDIR]
#                       [--workers W] [--runs N]
#   scripts/dst-fuzz.sh resume DIR
#   scripts/dst-fuzz.sh report DIR
# start: copies BIN (default build/clang-fuzz/test/fuzz/fuzz_dst; build it
# with -Dfuzz=enabled, and -Dfuzz_trace_cmp=false for speed) into DIR, so
# that a rebuild does not touch it, records the commit of this checkout,
# and runs W libFuzzer workers (default 2) of N executions each (default
# 5000000) at nice 19 over CDIR (default DIR/corpus), which outlives the
# campaign. A worker stops at the first broken invariant and writes its
# input to DIR/crash-*. libFuzzer's entropic schedule is off: with the
# tens of thousands of features a grown corpus has, its bookkeeping took
# two thirds of a worker's time.
# resume: the same campaign (its binary, corpus and runs) again after its
# workers were stopped from outside; the logs of each earlier sitting move
# to DIR/sitting-K/, and report counts them all.
# report: executions per worker (the final count of one that ended or was
# interrupted, else the last "#N" of its log, a lower bound), the total, every broken
# invariant with its input, and whether workers still run. Exits 1 if any
# invariant broke.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)

usage() {
	echo "usage: dst-fuzz.sh start DIR [--fuzzer BIN] [--corpus CDIR] [--workers W] [--runs N]" >&2
	echo "       dst-fuzz.sh resume DIR" >&2
	echo "       dst-fuzz.sh report DIR" >&2
	exit 2
}

[ $# -ge 2 ] || usage
cmd=$1
dir=$2
shift 2

start() {
	local fuzzer=$top/build/clang-fuzz/test/fuzz/fuzz_dst corpus=
	local workers=2 runs=5000000 v
	while [ $# -gt 0 ]; do
		[ $# -ge 2 ] || usage
		case $1 in
		--fuzzer) fuzzer=$2 ;;
		--corpus) corpus=$2 ;;
		--workers) workers=$2 ;;
		--runs) runs=$2 ;;
		*) usage ;;
		esac
		shift 2
	done
	for v in "$workers" "$runs"; do
		case $v in '' | *[!0-9]* | 0) echo "dst-fuzz.sh: --workers and --runs take a positive number" >&2; exit 2 ;; esac
	done
	[ -x "$fuzzer" ] || { echo "dst-fuzz.sh: no fuzzer at $fuzzer (meson setup ... -Dfuzz=enabled)" >&2; exit 2; }
	if [ -e "$dir/fuzz_dst" ]; then
		echo "dst-fuzz.sh: $dir holds a campaign already (report it, or pick another DIR)" >&2
		exit 2
	fi
	mkdir -p "$dir" || exit 1
	dir=$(cd "$dir" && pwd)
	corpus=${corpus:-$dir/corpus}
	mkdir -p "$corpus" || exit 1
	cp "$fuzzer" "$dir/fuzz_dst" || exit 1
	git -C "$top" describe --always --dirty > "$dir/TREE" 2>/dev/null || echo unknown > "$dir/TREE"
	echo "$workers x $runs" > "$dir/RUNS"
	echo "$corpus" > "$dir/CORPUS"
	launch "$workers" "$runs" "$corpus"
	echo "dst-fuzz: $workers workers x $runs executions of $(cat "$dir/TREE") in $dir"
}

launch() {
	(cd "$dir" && nohup nice -n 19 ./fuzz_dst -jobs="$1" -workers="$1" \
		-runs="$2" -max_len=4096 -entropic=0 -print_final_stats=1 \
		-artifact_prefix="$dir/" "$3" > campaign.out 2>&1 &)
}

resume() {
	local workers runs corpus k=1 f
	[ -x "$dir/fuzz_dst" ] && [ -f "$dir/RUNS" ] && [ -f "$dir/CORPUS" ] ||
		{ echo "dst-fuzz.sh: no campaign to resume in $dir" >&2; exit 2; }
	dir=$(cd "$dir" && pwd)
	if pgrep -f "artifact_prefix=$dir/" > /dev/null 2>&1; then
		echo "dst-fuzz.sh: the workers of $dir still run" >&2
		exit 2
	fi
	if ls "$dir"/crash-* > /dev/null 2>&1; then
		echo "dst-fuzz.sh: $dir stopped at a broken invariant (report it)" >&2
		exit 2
	fi
	read -r workers _ runs < "$dir/RUNS"
	corpus=$(cat "$dir/CORPUS")
	while [ -e "$dir/sitting-$k" ]; do k=$((k + 1)); done
	mkdir "$dir/sitting-$k" || exit 1
	for f in "$dir"/fuzz-*.log "$dir"/campaign.out; do
		[ -f "$f" ] && mv "$f" "$dir/sitting-$k/"
	done
	launch "$workers" "$runs" "$corpus"
	echo "dst-fuzz: sitting $((k + 1)) of the campaign of $(cat "$dir/TREE") in $dir"
}

report() {
	local f n total=0 broke=0 logs=0 line
	[ -d "$dir" ] || { echo "dst-fuzz.sh: no campaign in $dir" >&2; exit 2; }
	dir=$(cd "$dir" && pwd)
	echo "dst-fuzz: tree $(cat "$dir/TREE" 2>/dev/null || echo unknown), $(cat "$dir/RUNS" 2>/dev/null || echo '?') executions"
	for f in "$dir"/sitting-*/fuzz-*.log "$dir"/fuzz-*.log; do
		[ -f "$f" ] || continue
		logs=$((logs + 1))
		n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$f" | tail -n 1)
		if [ -n "$n" ]; then
			line="ended"
			grep -q 'libFuzzer: run interrupted' "$f" && line="stopped by a signal"
		else
			n=$(grep -o '^#[0-9]*' "$f" | tail -n 1 | tr -d '#')
			n=${n:-0}
			line="running or stopped from outside (last count)"
		fi
		total=$((total + n))
		echo "  ${f#"$dir"/}: $n executions, $line"
		if grep -q '^fuzz_dst: ' "$f"; then
			broke=$((broke + 1))
			echo "    $(grep -m1 '^fuzz_dst: ' "$f")"
			grep -m1 'Test unit written to' "$f" | sed 's/^/    /'
		fi
	done
	[ "$logs" -gt 0 ] || echo "  no worker log yet"
	if pgrep -f "artifact_prefix=$dir/" > /dev/null 2>&1; then
		echo "  workers still run"
	fi
	echo "$total executions, $broke failed"
	[ "$broke" -eq 0 ]
}

case $cmd in
start) start "$@" ;;
resume) [ $# -eq 0 ] || usage; resume ;;
report) [ $# -eq 0 ] || usage; report ;;
*) usage ;;
esac
