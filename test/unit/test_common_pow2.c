/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests for include/common/uet/uet_pow2.h and uet_rand.h. */

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <uet/uet_pow2.h>
#include <uet/uet_rand.h>

static void
uet_is_pow2__zero_and_neighbours(void **state)
{
	(void)state;
	assert_false(uet_is_pow2(0));
	assert_true(uet_is_pow2(1));
	assert_true(uet_is_pow2(2));
	assert_false(uet_is_pow2(3));
	assert_true(uet_is_pow2(UINT64_C(1) << 63));
	assert_false(uet_is_pow2((UINT64_C(1) << 63) + 1));
	assert_false(uet_is_pow2(UINT64_MAX));
}

static void
uet_pow2_ceil__every_bit(void **state)
{
	(void)state;
	assert_int_equal(uet_pow2_ceil(0), 1);
	assert_int_equal(uet_pow2_ceil(1), 1);
	for (unsigned int b = 1; b < 32; b++) {
		uint32_t p = UINT32_C(1) << b;

		assert_int_equal(uet_pow2_ceil(p), p);
		assert_int_equal(uet_pow2_ceil(p - 1), b == 1 ? 1 : p);
		if (b < 31)
			assert_int_equal(uet_pow2_ceil(p + 1), p << 1);
	}
}

static void
uet_pow2_ceil__too_large_is_zero(void **state)
{
	(void)state;
	assert_int_equal(uet_pow2_ceil((UINT32_C(1) << 31) + 1), 0);
	assert_int_equal(uet_pow2_ceil(UINT32_MAX), 0);
}

static void
uet_rand_below__stays_below_and_repeats(void **state)
{
	struct uet_rand a, b;

	(void)state;
	uet_rand_seed(&a, 42);
	uet_rand_seed(&b, 42);
	for (unsigned int i = 0; i < 10000; i++) {
		uint32_t n = 1 + i % 97;
		uint32_t x = uet_rand_below(&a, n);

		assert_true(x < n);
		assert_int_equal(x, uet_rand_below(&b, n));
	}
	uet_rand_seed(&a, 0); /* a zero seed still gives a working stream */
	assert_true(a.s != 0);
	assert_true(uet_rand_next(&a) != uet_rand_next(&a));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(uet_is_pow2__zero_and_neighbours),
		cmocka_unit_test(uet_pow2_ceil__every_bit),
		cmocka_unit_test(uet_pow2_ceil__too_large_is_zero),
		cmocka_unit_test(uet_rand_below__stays_below_and_repeats),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
