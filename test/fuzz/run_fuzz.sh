#!/bin/sh
# Run one libFuzzer target for a bounded time over a fresh corpus.
#   run_fuzz.sh FUZZER SECONDS [SEED_GENERATOR | --files DIR]
# SEED_GENERATOR (test/apps/gen_pcap) writes the hand-built fixture frames
# into the corpus with --seeds DIR; --files DIR copies DIR's regular files
# (and those of its subdirectories) in as seeds. Exits non-zero on a crash, leak or
# round-trip mismatch; the crashing input is kept in the working directory.
set -u
fuzzer=$1
secs=$2
gen=${3:-}
seed_dir=${4:-}
name=$(basename "$fuzzer")
corpus=$(mktemp -d "${TMPDIR:-/tmp}/$name-corpus.XXXXXX") || exit 1
log="$corpus.log"
trap 'rm -rf "$corpus" "$log"' EXIT

if [ "$gen" = --files ]; then
	find "$seed_dir" -type f -exec cp {} "$corpus"/ \; ||
		{ echo "$name: cannot copy seeds from $seed_dir"; exit 1; }
elif [ -n "$gen" ]; then
	"$gen" --seeds "$corpus" || { echo "$name: seed generation failed"; exit 1; }
fi
seeds=$(ls "$corpus" | wc -l)

# FUZZ_RUNS caps the executions too: with -seed=1 the run is then the same
# sequence of inputs wherever it runs (a slow machine stops earlier in it)
runs_opt=
[ -n "${FUZZ_RUNS:-}" ] && runs_opt="-runs=$FUZZ_RUNS"
"$fuzzer" -max_total_time="$secs" -seed=1 -max_len=4096 $runs_opt \
	-print_final_stats=1 -artifact_prefix="./$name-" "$corpus" >"$log" 2>&1
rc=$?

runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
files=$(ls "$corpus" | wc -l)
if [ $rc -ne 0 ]; then
	tail -n 40 "$log"
	echo "$name: FAILED (exit $rc) after ${runs:-?} runs; input kept as ./$name-*"
	exit 1
fi
echo "$name: ok, ${runs:-?} runs in ${secs}s, corpus $seeds seeds -> $files inputs"
