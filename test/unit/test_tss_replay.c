/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the TSS replay window (src/tss/tss_replay.c): fresh and
 * replayed TSCs, the window's lower edge, old TSCs, jumps far ahead, and a
 * random sequence against a set of every TSC accepted.
 */

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <uet/uet_rand.h>
#include <uet/uet_tss.h>

/* check, then update when accepted, as a receiver does after the ICV */
static int
accept_tsc(struct uet_tss_replay *w, uint64_t tsc)
{
	int rc = uet_tss_replay_check(w, tsc);

	if (rc == 0)
		uet_tss_replay_update(w, tsc);
	return rc;
}

static void
uet_tss_replay_init__sizes(void **state)
{
	struct uet_tss_replay w;

	(void)state;
	assert_int_equal(uet_tss_replay_init(&w, 0), -EINVAL);
	assert_int_equal(uet_tss_replay_init(&w, 100), -EINVAL);
	assert_int_equal(uet_tss_replay_init(&w, UET_TSS_REPLAY_MAX + 64),
			 -EINVAL);
	assert_int_equal(uet_tss_replay_init(&w, 64), 0);
	assert_int_equal(uet_tss_replay_init(&w, UET_TSS_REPLAY_MAX), 0);
}

static void
uet_tss_replay_check__replay(void **state)
{
	struct uet_tss_replay w;

	(void)state;
	uet_tss_replay_init(&w, 128);
	assert_int_equal(accept_tsc(&w, 0), 0);
	assert_int_equal(accept_tsc(&w, 0), -EEXIST);
	assert_int_equal(accept_tsc(&w, 5), 0);
	assert_int_equal(accept_tsc(&w, 3), 0); /* reordered, in window */
	assert_int_equal(accept_tsc(&w, 3), -EEXIST);
	assert_int_equal(accept_tsc(&w, 5), -EEXIST);
	assert_int_equal(accept_tsc(&w, 4), 0);
	/* a check alone records nothing */
	assert_int_equal(uet_tss_replay_check(&w, 6), 0);
	assert_int_equal(uet_tss_replay_check(&w, 6), 0);
}

/* TSCs top - size + 1 .. top are in the window; top - size is old. */
static void
uet_tss_replay_check__window_edge(void **state)
{
	struct uet_tss_replay w;

	(void)state;
	uet_tss_replay_init(&w, 64);
	assert_int_equal(accept_tsc(&w, 1000), 0);
	assert_int_equal(accept_tsc(&w, 1000 - 63), 0);
	assert_int_equal(accept_tsc(&w, 1000 - 63), -EEXIST);
	assert_int_equal(accept_tsc(&w, 1000 - 64), -ERANGE);
	assert_int_equal(accept_tsc(&w, 1001), 0);
	/* the window moved by one: 937 is now old, 938 fresh */
	assert_int_equal(accept_tsc(&w, 937), -ERANGE);
	assert_int_equal(accept_tsc(&w, 938), 0);
}

static void
uet_tss_replay_check__old(void **state)
{
	struct uet_tss_replay w;

	(void)state;
	uet_tss_replay_init(&w, 256);
	assert_int_equal(accept_tsc(&w, 10000), 0);
	assert_int_equal(accept_tsc(&w, 0), -ERANGE);
	assert_int_equal(accept_tsc(&w, 10000 - 256), -ERANGE);
	/* an old TSC forced into update (a caller bug) changes nothing */
	uet_tss_replay_update(&w, 5);
	assert_int_equal(uet_tss_replay_check(&w, 10000 - 255), 0);
}

/* A jump far ahead clears the window: nothing before it is remembered
 * as seen, everything more than a window behind is old. */
static void
uet_tss_replay_update__far_ahead(void **state)
{
	struct uet_tss_replay w;
	uint64_t t;

	(void)state;
	uet_tss_replay_init(&w, 128);
	for (t = 0; t < 128; t++)
		assert_int_equal(accept_tsc(&w, t), 0);
	assert_int_equal(accept_tsc(&w, UET_TSS_TSC_MAX), 0);
	assert_int_equal(accept_tsc(&w, 127), -ERANGE);
	assert_int_equal(accept_tsc(&w, UET_TSS_TSC_MAX - 127), 0);
	assert_int_equal(accept_tsc(&w, UET_TSS_TSC_MAX - 128), -ERANGE);
	assert_int_equal(accept_tsc(&w, UET_TSS_TSC_MAX), -EEXIST);
	/* a jump of less than a window keeps the overlap */
	uet_tss_replay_init(&w, 128);
	assert_int_equal(accept_tsc(&w, 100), 0);
	assert_int_equal(accept_tsc(&w, 200), 0);
	assert_int_equal(accept_tsc(&w, 100), -EEXIST);
	assert_int_equal(accept_tsc(&w, 150), 0);
}

/* Random TSCs around a moving front against the set of accepted TSCs. */
static void
uet_tss_replay_check__random_against_model(void **state)
{
	enum { N = 20000, SPAN = 3000, SIZE = 512 };
	struct uet_tss_replay w;
	static uint8_t seen[N + SPAN];
	uint64_t top = 0, t;
	struct uet_rand rng;
	bool any = false;
	int i, rc, want;

	(void)state;
	uet_rand_seed(&rng, 20261201);
	memset(seen, 0, sizeof(seen));
	uet_tss_replay_init(&w, SIZE);
	for (i = 0; i < N; i++) {
		t = (uint64_t)i + uet_rand_below(&rng, SPAN);
		t = t > (uint64_t)SPAN / 2 ? t - SPAN / 2 : t;
		if (any && t + SIZE <= top)
			want = -ERANGE;
		else
			want = seen[t] ? -EEXIST : 0;
		rc = accept_tsc(&w, t);
		assert_int_equal(rc, want);
		if (rc == 0) {
			seen[t] = 1;
			if (!any || t > top)
				top = t;
			any = true;
		}
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(uet_tss_replay_init__sizes),
		cmocka_unit_test(uet_tss_replay_check__replay),
		cmocka_unit_test(uet_tss_replay_check__window_edge),
		cmocka_unit_test(uet_tss_replay_check__old),
		cmocka_unit_test(uet_tss_replay_update__far_ahead),
		cmocka_unit_test(uet_tss_replay_check__random_against_model),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
