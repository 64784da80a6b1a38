/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Traffic patterns of uet-perf --fabric: who sends to whom. Each pattern
 * only lists flows; the driver (fabric.c) gives them sizes and start
 * times and runs them.
 */

#include <errno.h>
#include <string.h>

#include <uet/uet_rand.h>

#include "perf.h"

/* N - 1 hosts to host 0. */
static int
incast_flows(uint32_t hosts, uint32_t group, uint64_t seed,
	     struct perf_flow_spec *out, uint32_t max)
{
	(void)group;
	(void)seed;
	if (hosts - 1 > max)
		return -E2BIG;
	for (uint32_t h = 1; h < hosts; h++)
		out[h - 1] = (struct perf_flow_spec){ .src = h, .dst = 0 };
	return (int)(hosts - 1);
}

/*
 * A random permutation without fixed points (Sattolo's shuffle gives one
 * cycle through every host): each host sends to one host and receives
 * from one, so only the network can collide (ECMP), never two flows on
 * one host link.
 */
static int
permutation_flows(uint32_t hosts, uint32_t group, uint64_t seed,
		  struct perf_flow_spec *out, uint32_t max)
{
	uint32_t to[PERF_FABRIC_MAX_HOSTS];
	struct uet_rand rnd;

	(void)group;
	if (hosts > max || hosts > PERF_FABRIC_MAX_HOSTS)
		return -E2BIG;
	uet_rand_seed(&rnd, seed ^ 0x7065726dull);
	for (uint32_t h = 0; h < hosts; h++)
		to[h] = h;
	for (uint32_t i = hosts - 1; i > 0; i--) {
		uint32_t j = uet_rand_below(&rnd, i);
		uint32_t t = to[i];

		to[i] = to[j];
		to[j] = t;
	}
	for (uint32_t h = 0; h < hosts; h++)
		out[h] = (struct perf_flow_spec){ .src = h, .dst = to[h] };
	return (int)hosts;
}

/* Host h to host h + group: every flow leaves its leaf (or pod). */
static int
shift_flows(uint32_t hosts, uint32_t group, uint64_t seed,
	    struct perf_flow_spec *out, uint32_t max)
{
	(void)seed;
	if (hosts > max)
		return -E2BIG;
	if (group == 0 || group >= hosts)
		group = 1;
	for (uint32_t h = 0; h < hosts; h++)
		out[h] = (struct perf_flow_spec){ .src = h,
			.dst = (h + group) % hosts };
	return (int)hosts;
}

/* Every ordered pair. */
static int
all2all_flows(uint32_t hosts, uint32_t group, uint64_t seed,
	      struct perf_flow_spec *out, uint32_t max)
{
	uint32_t n = 0;

	(void)group;
	(void)seed;
	if ((uint64_t)hosts * (hosts - 1) > max)
		return -E2BIG;
	for (uint32_t s = 0; s < hosts; s++)
		for (uint32_t d = 0; d < hosts; d++)
			if (s != d)
				out[n++] = (struct perf_flow_spec){ .src = s,
								   .dst = d };
	return (int)n;
}

static const struct perf_pattern pat_incast = {
	"incast", "hosts 1..N-1 to host 0", incast_flows,
};
static const struct perf_pattern pat_permutation = {
	"permutation", "random derangement (--seed): one flow out and one "
	"in per host", permutation_flows,
};
static const struct perf_pattern pat_shift = {
	"shift", "host h to h + hosts_per_leaf (fat tree: the next pod)",
	shift_flows,
};
static const struct perf_pattern pat_all2all = {
	"all-to-all", "every host to every other host", all2all_flows,
};

const struct perf_pattern *const perf_patterns[PERF_NB_PATTERNS] = {
	&pat_incast, &pat_permutation, &pat_shift, &pat_all2all,
};

const struct perf_pattern *
perf_pattern_find(const char *name)
{
	for (unsigned int i = 0; i < PERF_NB_PATTERNS; i++)
		if (strcmp(name, perf_patterns[i]->name) == 0)
			return perf_patterns[i];
	return NULL;
}
