/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of PSN serial arithmetic and SACK helpers (uet_psn.h). */

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <uet/uet_psn.h>

static void
psn_cmp__wrap_at_zero(void **state)
{
	(void)state;
	assert_true(uet_psn_lt(0xFFFFFFFF, 0));
	assert_true(uet_psn_le(0xFFFFFFFF, 0));
	assert_true(uet_psn_gt(0, 0xFFFFFFFF));
	assert_true(uet_psn_ge(0, 0xFFFFFFFF));
	assert_false(uet_psn_lt(0, 0xFFFFFFFF));
	assert_false(uet_psn_gt(0xFFFFFFFF, 0));
	assert_int_equal(uet_psn_diff(0, 0xFFFFFFFF), 1);
	assert_int_equal(uet_psn_diff(0xFFFFFFFF, 0), -1);
	assert_int_equal(uet_psn_diff(5, 0xFFFFFFFB), 10);
	assert_int_equal(uet_psn_max(0xFFFFFFFF, 3), 3);
	assert_int_equal(uet_psn_max(3, 0xFFFFFFFF), 3);
	assert_int_equal(uet_psn_min(0xFFFFFFFF, 3), 0xFFFFFFFF);
}

static void
psn_cmp__equal(void **state)
{
	static const uint32_t v[] = { 0, 1, 0x7FFFFFFF, 0x80000000,
				      0xFFFFFFFF };

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		assert_false(uet_psn_lt(v[i], v[i]));
		assert_true(uet_psn_le(v[i], v[i]));
		assert_false(uet_psn_gt(v[i], v[i]));
		assert_true(uet_psn_ge(v[i], v[i]));
		assert_int_equal(uet_psn_diff(v[i], v[i]), 0);
		assert_int_equal(uet_psn_max(v[i], v[i]), v[i]);
	}
}

static void
psn_cmp__half_range_boundary(void **state)
{
	(void)state;
	/* 2^31 - 1 ahead is still "after". */
	assert_true(uet_psn_gt(0x7FFFFFFF, 0));
	assert_true(uet_psn_lt(0, 0x7FFFFFFF));
	assert_int_equal(uet_psn_diff(0x7FFFFFFF, 0), INT32_MAX);
	/* Exactly 2^31 apart: the difference is INT32_MIN, so each one
	 * looks "before" the other (serial order is undefined there). */
	assert_int_equal(uet_psn_diff(0x80000000, 0), INT32_MIN);
	assert_true(uet_psn_lt(0x80000000, 0));
	assert_true(uet_psn_lt(0, 0x80000000));
	/* 2^31 + 1 ahead wraps to "before". */
	assert_true(uet_psn_lt(0x80000001, 0));
	assert_true(uet_psn_gt(0, 0x80000001));
	/* The same around an arbitrary base. */
	assert_true(uet_psn_gt(0x7FFFFFFF + 0x10u, 0x10));
	assert_true(uet_psn_lt(0x80000010u + 0x10u, 0x10));
}

static void
psn_sack__set_test_window(void **state)
{
	struct uet_psn_sack s;

	(void)state;
	uet_psn_sack_init(&s, 1000);
	assert_false(uet_psn_sack_set(&s, 999));
	assert_false(uet_psn_sack_set(&s, 1064));
	assert_int_equal(s.bitmap, 0);
	assert_true(uet_psn_sack_set(&s, 1000));
	assert_true(uet_psn_sack_set(&s, 1063)); /* bit 63 */
	assert_int_equal(s.bitmap, UINT64_C(0x8000000000000001));
	assert_true(uet_psn_sack_test(&s, 1000));
	assert_true(uet_psn_sack_test(&s, 1063));
	assert_false(uet_psn_sack_test(&s, 1001));
	assert_false(uet_psn_sack_test(&s, 999));
	assert_false(uet_psn_sack_test(&s, 1064));
	assert_int_equal(uet_psn_sack_index(&s, 1063), 63);
	assert_int_equal(uet_psn_sack_index(&s, 1064), -1);
	assert_int_equal(uet_psn_sack_index(&s, 999), -1);
	assert_int_equal(uet_psn_sack_count(&s), 2);
}

static void
psn_sack__base_wrap(void **state)
{
	struct uet_psn_sack s;

	(void)state;
	uet_psn_sack_init(&s, 0xFFFFFFF0);
	assert_true(uet_psn_sack_set(&s, 0xFFFFFFFF)); /* bit 15 */
	assert_true(uet_psn_sack_set(&s, 0));          /* bit 16 */
	assert_true(uet_psn_sack_set(&s, 0x2F));       /* bit 63 */
	assert_false(uet_psn_sack_set(&s, 0x30));
	assert_false(uet_psn_sack_set(&s, 0xFFFFFFEF));
	assert_int_equal(s.bitmap, (UINT64_C(1) << 63) | (UINT64_C(3) << 15));
	assert_true(uet_psn_sack_test(&s, 0));
	assert_true(uet_psn_sack_test(&s, 0xFFFFFFFF));
	uet_psn_sack_shift(&s, 0);
	assert_int_equal(s.base, 0);
	assert_int_equal(s.bitmap, (UINT64_C(1) << 47) | 1);
	assert_false(uet_psn_sack_test(&s, 0xFFFFFFFF)); /* dropped */
}

static void
psn_sack__shift(void **state)
{
	struct uet_psn_sack s;

	(void)state;
	uet_psn_sack_init(&s, 100);
	s.bitmap = UINT64_MAX;
	uet_psn_sack_shift(&s, 100);
	assert_int_equal(s.bitmap, UINT64_MAX);
	uet_psn_sack_shift(&s, 101);
	assert_int_equal(s.bitmap, UINT64_MAX >> 1);
	assert_false(uet_psn_sack_test(&s, 164)); /* new top bit: no info */
	uet_psn_sack_shift(&s, 164); /* by 63 */
	assert_int_equal(s.bitmap, 0);
	s.bitmap = UINT64_MAX;
	uet_psn_sack_shift(&s, 164 + 64); /* by exactly 64 */
	assert_int_equal(s.bitmap, 0);
	assert_int_equal(s.base, 228);
	s.bitmap = UINT64_MAX;
	uet_psn_sack_shift(&s, 228 + 1000); /* far beyond */
	assert_int_equal(s.bitmap, 0);
	/* Backwards: upper bits drop, newly covered PSNs are clear. */
	s.bitmap = UINT64_C(0x8000000000000001);
	uet_psn_sack_shift(&s, 1228 - 4);
	assert_int_equal(s.bitmap, UINT64_C(0x10));
	s.bitmap = UINT64_MAX;
	uet_psn_sack_shift(&s, 1224 - 64);
	assert_int_equal(s.bitmap, 0);
	/* Across the wrap. */
	uet_psn_sack_init(&s, 0xFFFFFFFE);
	s.bitmap = 0xF;
	uet_psn_sack_shift(&s, 1);
	assert_int_equal(s.bitmap, 1);
	assert_true(uet_psn_sack_test(&s, 1));
}

static void
psn_sack__count_and_first_clear(void **state)
{
	struct uet_psn_sack s;

	(void)state;
	uet_psn_sack_init(&s, 0);
	assert_int_equal(uet_psn_sack_count(&s), 0);
	assert_int_equal(uet_psn_sack_first_clear(&s, 0), 0);
	assert_int_equal(uet_psn_sack_first_clear(&s, 63), 63);
	assert_int_equal(uet_psn_sack_first_clear(&s, 64), UET_PSN_SACK_BITS);
	s.bitmap = 0x0F;
	assert_int_equal(uet_psn_sack_count(&s), 4);
	assert_int_equal(uet_psn_sack_first_clear(&s, 0), 4);
	assert_int_equal(uet_psn_sack_first_clear(&s, 2), 4);
	assert_int_equal(uet_psn_sack_first_clear(&s, 5), 5);
	s.bitmap = UINT64_MAX;
	assert_int_equal(uet_psn_sack_count(&s), 64);
	assert_int_equal(uet_psn_sack_first_clear(&s, 0), UET_PSN_SACK_BITS);
	s.bitmap = UINT64_MAX >> 1; /* only bit 63 clear */
	assert_int_equal(uet_psn_sack_first_clear(&s, 0), 63);
	assert_int_equal(uet_psn_sack_first_clear(&s, 63), 63);
	assert_int_equal(uet_psn_sack_first_clear(&s, 1000),
			 UET_PSN_SACK_BITS);
}

static void
psn_sack__known(void **state)
{
	struct uet_psn_sack s;

	(void)state;
	uet_psn_sack_init(&s, 0xFFFFFFFE);
	s.bitmap = 0x5; /* 0xFFFFFFFE and 0 */
	/* cack just below the wrap: everything up to it is known. */
	assert_true(uet_psn_sack_known(0xFFFFFFFD, &s, 0xFFFFFFFD));
	assert_true(uet_psn_sack_known(0xFFFFFFFD, &s, 0x90000000));
	assert_true(uet_psn_sack_known(0xFFFFFFFD, &s, 0xFFFFFFFE));
	/* Clear bit = no information, not lost. */
	assert_false(uet_psn_sack_known(0xFFFFFFFD, &s, 0xFFFFFFFF));
	assert_true(uet_psn_sack_known(0xFFFFFFFD, &s, 0));
	assert_false(uet_psn_sack_known(0xFFFFFFFD, &s, 1));
	/* Beyond the window and after cack: unknown. */
	assert_false(uet_psn_sack_known(0xFFFFFFFD, &s, 0x100));
	/* Bits at or below cack are redundant but harmless. */
	assert_true(uet_psn_sack_known(5, &s, 0xFFFFFFFF));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(psn_cmp__wrap_at_zero),
		cmocka_unit_test(psn_cmp__equal),
		cmocka_unit_test(psn_cmp__half_range_boundary),
		cmocka_unit_test(psn_sack__set_test_window),
		cmocka_unit_test(psn_sack__base_wrap),
		cmocka_unit_test(psn_sack__shift),
		cmocka_unit_test(psn_sack__count_and_first_clear),
		cmocka_unit_test(psn_sack__known),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
