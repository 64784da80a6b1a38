/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target over the deterministic simulator (test/dst): the
 * fuzzer's bytes are the plan (configuration, workload and fault schedule,
 * read by the same generator that a seed drives, see dst_plan_gen()), and
 * every invariant of the simulator is checked. A violated invariant
 * prints the plan and the end of the trace, then aborts so that the
 * fuzzer keeps the input; uet-dst does not replay bytes, but the printed
 * plan names what to look at.
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "dst.h"

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);

static struct dst_sim sim;
static struct dst_plan plan;
static bool ready;

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	struct dst_src src;
	uint64_t seed = 1469598103934665603ull;
	size_t i;

	if (!ready) {
		if (dst_sim_init(&sim) != 0)
			abort();
		ready = true;
	}
	/* the runtime's per-packet choices follow from the bytes too */
	for (i = 0; i < n; i++)
		seed = (seed ^ d[i]) * 1099511628211ull;
	dst_src_bytes(&src, d, n);
	/* the newest generator: every operation */
	dst_plan_gen(&plan, &src, seed, DST_GEN_LAST);
	sim.trace_off = true;
	if (dst_run(&sim, &plan) == 0)
		return 0;
	/* the same run again with its trace (a run is a function of its
	 * plan), for the report */
	sim.trace_off = false;
	dst_run(&sim, &plan);
	fprintf(stderr, "fuzz_dst: %s: %s\n", sim.inv, sim.why);
	dst_plan_print(&plan, stderr);
	dst_trace_dump(&sim, stderr, 60);
	abort();
}
