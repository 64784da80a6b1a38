/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * uet-perf's traffic patterns (apps/uet-perf/pattern.c): who sends to
 * whom for N hosts, and the bound on the number of flows.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "perf.h"

#define MAXF 1024

static struct perf_flow_spec fl[MAXF];

static int
flows(const char *name, uint32_t hosts, uint32_t group, uint64_t seed,
      uint32_t max)
{
	const struct perf_pattern *p = perf_pattern_find(name);

	assert_non_null(p);
	memset(fl, 0xa5, sizeof(fl));
	return p->flows(hosts, group, seed, fl, max);
}

static void
pattern_find__names(void **state)
{
	(void)state;
	assert_non_null(perf_pattern_find("incast"));
	assert_non_null(perf_pattern_find("permutation"));
	assert_non_null(perf_pattern_find("shift"));
	assert_non_null(perf_pattern_find("all-to-all"));
	assert_null(perf_pattern_find("all2all"));
	assert_null(perf_pattern_find(""));
}

static void
incast__every_other_host_to_host0(void **state)
{
	(void)state;
	assert_int_equal(flows("incast", 16, 4, 1, MAXF), 15);
	for (uint32_t i = 0; i < 15; i++) {
		assert_int_equal(fl[i].src, i + 1);
		assert_int_equal(fl[i].dst, 0);
		assert_int_equal(fl[i].start_ns, 0);
	}
	assert_int_equal(flows("incast", 16, 4, 1, 14), -E2BIG);
}

/* One flow out and one in per host, never to itself, for every size and
 * seed tried; the seed changes the permutation, the same seed repeats it. */
static void
permutation__derangement(void **state)
{
	uint32_t first[32];

	(void)state;
	for (uint32_t n = 2; n <= 32; n++) {
		for (uint64_t seed = 0; seed < 20; seed++) {
			uint8_t in[32] = { 0 };

			assert_int_equal(flows("permutation", n, 4, seed,
					       MAXF), (int)n);
			for (uint32_t h = 0; h < n; h++) {
				assert_int_equal(fl[h].src, h);
				assert_true(fl[h].dst < n);
				assert_int_not_equal(fl[h].dst, h);
				in[fl[h].dst]++;
			}
			for (uint32_t h = 0; h < n; h++)
				assert_int_equal(in[h], 1);
		}
	}
	(void)flows("permutation", 32, 4, 7, MAXF);
	for (uint32_t h = 0; h < 32; h++)
		first[h] = fl[h].dst;
	(void)flows("permutation", 32, 4, 7, MAXF);
	for (uint32_t h = 0; h < 32; h++)
		assert_int_equal(fl[h].dst, first[h]);
	(void)flows("permutation", 32, 4, 8, MAXF);
	{
		bool differs = false;

		for (uint32_t h = 0; h < 32; h++)
			differs |= fl[h].dst != first[h];
		assert_true(differs);
	}
	assert_int_equal(flows("permutation", 16, 4, 1, 15), -E2BIG);
}

static void
shift__next_group(void **state)
{
	(void)state;
	assert_int_equal(flows("shift", 16, 4, 1, MAXF), 16);
	for (uint32_t h = 0; h < 16; h++)
		assert_int_equal(fl[h].dst, (h + 4) % 16);
	/* a group as large as the fabric: the next host */
	assert_int_equal(flows("shift", 4, 4, 1, MAXF), 4);
	for (uint32_t h = 0; h < 4; h++)
		assert_int_equal(fl[h].dst, (h + 1) % 4);
}

static void
all_to_all__every_ordered_pair(void **state)
{
	uint8_t pair[32][32] = { { 0 } };

	(void)state;
	assert_int_equal(flows("all-to-all", 32, 8, 1, MAXF), 32 * 31);
	for (uint32_t i = 0; i < 32 * 31; i++) {
		assert_int_not_equal(fl[i].src, fl[i].dst);
		pair[fl[i].src][fl[i].dst]++;
	}
	for (uint32_t s = 0; s < 32; s++)
		for (uint32_t d = 0; d < 32; d++)
			assert_int_equal(pair[s][d], s != d);
	assert_int_equal(flows("all-to-all", 33, 8, 1, MAXF), -E2BIG);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pattern_find__names),
		cmocka_unit_test(incast__every_other_host_to_host0),
		cmocka_unit_test(permutation__derangement),
		cmocka_unit_test(shift__next_group),
		cmocka_unit_test(all_to_all__every_ordered_pair),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
