/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the atomic engine (src/ses/amo.c, src/ses/amo_fp.c).
 *
 * The reference is the shared model of the atomics (ses_amo_model.c, which
 * the simulator's atomics use too), written independently of amo.c.
 * Operands come from a seeded PRNG; the seed is printed with every
 * failure (override with UET_TEST_SEED).
 */

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <uet/uet_rand.h>
#include <uet/uet_ses_amo.h>

#include "ses_amo_model.h"

#define N_OPS (UET_AMO_MSWAP + 1)
#define N_DTS (UET_AMO_DT_FP16 + 1)
#define MAX_ELEMS 8
#define BUF (MAX_ELEMS * UET_AMO_ELEM_MAX)

static uint64_t seed = 0x5eed1234abcdULL;
static struct uet_rand rng;

static uint64_t
rnd(void)
{
	return uet_rand_next(&rng);
}

static void
check_bufs(const char *what, unsigned int op, unsigned int dt,
	   const uint8_t *got, const uint8_t *want, unsigned int n)
{
	size_t s = uet_wire_amo_dt_size(dt);

	for (unsigned int i = 0; i < n; i++) {
		if (ses_amo_model_same(dt, got + i * s, want + i * s, 1))
			continue;
		fail_msg("seed 0x%llx: %s differs: op %s dt %s elem %u of %u",
			 (unsigned long long)seed, what, uet_wire_amo_op_name(op),
			 uet_wire_amo_dt_name(dt), i, n);
	}
}

/* One random request of n elements, checked against the reference. */
static void
run_one(unsigned int op, unsigned int dt, unsigned int n, unsigned int flags)
{
	_Alignas(16) uint8_t tgt[BUF], ref[BUF], before[BUF];
	uint8_t a[BUF], c[BUF], f[BUF], rf[BUF];
	size_t s = uet_wire_amo_dt_size(dt);
	enum uet_wire_ses_rc rc;

	for (unsigned int i = 0; i < n; i++) {
		ses_amo_model_gen(&rng, dt, tgt + i * s);
		ses_amo_model_gen(&rng, dt, a + i * s);
		ses_amo_model_gen(&rng, dt, c + i * s);
		if (rnd() % 3 == 0) /* make CSWAP/CSWAP_LE... true often */
			memcpy(c + i * s, tgt + i * s, s);
		if (rnd() % 8 == 0)
			memcpy(a + i * s, tgt + i * s, s);
	}
	memcpy(ref, tgt, n * s);
	memcpy(before, tgt, n * s);
	rc = uet_amo_exec(op, dt, tgt, a, c, f, n * s, flags);
	if (!ses_amo_model_supported(op, dt)) {
		if (rc != UET_RC_AMO_UNSUPPORTED_OP)
			fail_msg("op %s dt %s: rc %s, want AMO_UNSUPPORTED_OP",
				 uet_wire_amo_op_name(op), uet_wire_amo_dt_name(dt),
				 uet_wire_ses_rc_name(rc));
		assert_memory_equal(tgt, before, n * s);
		return;
	}
	if (rc != UET_RC_OK)
		fail_msg("seed 0x%llx: op %s dt %s n %u: rc %s",
			 (unsigned long long)seed, uet_wire_amo_op_name(op),
			 uet_wire_amo_dt_name(dt), n, uet_wire_ses_rc_name(rc));
	ses_amo_model_exec(op, dt, ref, a, c, rf, n);
	check_bufs("target", op, dt, tgt, ref, n);
	check_bufs("fetch", op, dt, f, before, n);
}

static void
amo__every_op_every_dt(void **state)
{
	(void)state;
	uet_rand_seed(&rng, seed);
	for (unsigned int op = 0; op < N_OPS; op++) {
		for (unsigned int dt = 0; dt < N_DTS; dt++) {
			for (unsigned int it = 0; it < 150; it++)
				run_one(op, dt, 1 + (unsigned int)(rnd() %
					MAX_ELEMS), 0);
		}
	}
}

static void
amo__every_op_every_dt_coherent(void **state)
{
	(void)state;
	uet_rand_seed(&rng, seed ^ 0xC0);
	for (unsigned int op = 0; op < N_OPS; op++) {
		for (unsigned int dt = 0; dt < N_DTS; dt++) {
			if (uet_wire_amo_dt_size(dt) > 16)
				continue;
			for (unsigned int it = 0; it < 100; it++)
				run_one(op, dt, 1 + (unsigned int)(rnd() %
					MAX_ELEMS), UET_AMO_F_CPU_COHERENT |
					UET_SES_AMO_SC_CACHEABLE);
		}
	}
}

static void
amo__fetch_optional_and_read(void **state)
{
	_Alignas(16) int64_t t[3] = { 5, -7, 9 };
	int64_t a[3] = { 1, 1, 1 }, f[3];

	(void)state;
	assert_int_equal(uet_amo_exec(UET_AMO_SUM, UET_AMO_DT_INT64, t, a,
				      NULL, NULL, sizeof(t), 0), UET_RC_OK);
	assert_int_equal(t[1], -6);
	assert_int_equal(uet_amo_exec(UET_AMO_READ, UET_AMO_DT_INT64, t, NULL,
				      NULL, f, sizeof(t), 0), UET_RC_OK);
	assert_memory_equal(f, t, sizeof(t));
	assert_int_equal(t[2], 10);
}

/* Each comparison, true and false, on an integer and a double. */
static void
amo__cswap_each_comparison(void **state)
{
	static const struct {
		unsigned int op;
		bool lt, eq, gt; /* swaps when target <, ==, > compare */
	} tab[] = {
		{ UET_AMO_CSWAP, false, true, false },
		{ UET_AMO_CSWAP_NE, true, false, true },
		{ UET_AMO_CSWAP_LE, true, true, false },
		{ UET_AMO_CSWAP_LT, true, false, false },
		{ UET_AMO_CSWAP_GE, false, true, true },
		{ UET_AMO_CSWAP_GT, false, false, true },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		for (int cmpv = 4; cmpv <= 6; cmpv++) {
			/* target 5 vs compare 4 (gt), 5 (eq), 6 (lt) */
			bool want = cmpv == 4 ? tab[i].gt : cmpv == 5 ?
				    tab[i].eq : tab[i].lt;
			_Alignas(8) int32_t t = 5;
			int32_t a = 99, c = cmpv, f = 0;
			_Alignas(8) double td = 5, ad = 99, cd = cmpv, fd = 0;

			assert_int_equal(uet_amo_exec(tab[i].op,
				UET_AMO_DT_INT32, &t, &a, &c, &f, 4, 0),
				UET_RC_OK);
			assert_int_equal(t, want ? 99 : 5);
			assert_int_equal(f, 5);
			assert_int_equal(uet_amo_exec(tab[i].op,
				UET_AMO_DT_DOUBLE, &td, &ad, &cd, &fd, 8, 0),
				UET_RC_OK);
			assert_true(td == (want ? 99 : 5) && fd == 5);
		}
	}
}

static void
amo__mswap_and_nan_rules(void **state)
{
	_Alignas(4) uint16_t t = 0xF0F0;
	uint16_t a = 0x0FFF, m = 0x00FF;
	_Alignas(8) double d = NAN, x = 3.0, nz = -0.0;

	(void)state;
	assert_int_equal(uet_amo_exec(UET_AMO_MSWAP, UET_AMO_DT_UINT16, &t, &a,
				      &m, NULL, 2, 0), UET_RC_OK);
	assert_int_equal(t, 0xF0FF);
	/* minNum: a NaN target is replaced, a NaN operand is ignored. */
	assert_int_equal(uet_amo_exec(UET_AMO_MIN, UET_AMO_DT_DOUBLE, &d, &x,
				      NULL, NULL, 8, 0), UET_RC_OK);
	assert_true(d == 3.0);
	x = NAN;
	assert_int_equal(uet_amo_exec(UET_AMO_MAX, UET_AMO_DT_DOUBLE, &d, &x,
				      NULL, NULL, 8, 0), UET_RC_OK);
	assert_true(d == 3.0);
	/* -0 vs +0: equal, target kept. */
	d = 0.0;
	assert_int_equal(uet_amo_exec(UET_AMO_MIN, UET_AMO_DT_DOUBLE, &d, &nz,
				      NULL, NULL, 8, 0), UET_RC_OK);
	assert_false(signbit(d));
	/* CSWAP_NE with a NaN target swaps; CSWAP (EQ) never does. */
	d = NAN;
	x = 1.0;
	assert_int_equal(uet_amo_exec(UET_AMO_CSWAP, UET_AMO_DT_DOUBLE, &d, &x,
				      &d, NULL, 8, 0), UET_RC_OK);
	assert_true(isnan(d));
}

/* ---------------------------------------------------------------- */
/* FP16 / BF16 conversions                                           */
/* ---------------------------------------------------------------- */

static void
fp__fp16_edges(void **state)
{
	static const struct { double d; uint16_t h; } tab[] = {
		{ 0.0, 0x0000 }, { -0.0, 0x8000 }, { 1.0, 0x3C00 },
		{ -2.0, 0xC000 }, { 65504.0, 0x7BFF }, { 65519.0, 0x7BFF },
		{ 65520.0, 0x7C00 }, { 1e9, 0x7C00 }, { -1e9, 0xFC00 },
		{ INFINITY, 0x7C00 }, { -INFINITY, 0xFC00 },
		{ 0x1p-14, 0x0400 }, { 0x1p-24, 0x0001 }, { 0x1p-25, 0x0000 },
		{ 0x1.0000001p-25, 0x0001 }, { 0x3p-25, 0x0002 },
		{ 0x5p-25, 0x0002 }, { 0x3FFp-24, 0x03FF },
		{ 0x7FFp-25, 0x0400 }, /* max subnormal + half ulp -> normal */
		{ 1.0 + 0x1p-11, 0x3C00 }, { 1.0 + 0x3p-11, 0x3C02 },
		{ 1.0 + 0x1.8p-11, 0x3C01 }, { 1e-10, 0x0000 },
		{ -1e-10, 0x8000 }, { 4.9e-324, 0x0000 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		if (uet_amo_double_to_fp16(tab[i].d) != tab[i].h)
			fail_msg("fp16(%a) = 0x%04x, want 0x%04x", tab[i].d,
				 uet_amo_double_to_fp16(tab[i].d), tab[i].h);
	}
	assert_true(uet_amo_fp16_to_double(0x0001) == 0x1p-24);
	assert_true(uet_amo_fp16_to_double(0x7BFF) == 65504.0);
	assert_true(uet_amo_fp16_to_double(0x03FF) == 0x3FFp-24);
	assert_true(signbit(uet_amo_fp16_to_double(0x8000)));
	assert_true(isinf(uet_amo_fp16_to_double(0xFC00)));
	assert_true(isnan(uet_amo_fp16_to_double(0x7C01)));
	assert_true((uet_amo_double_to_fp16(NAN) & 0x7E00) == 0x7E00);
	assert_int_equal(uet_amo_double_to_fp16(-NAN) & 0x8000, 0x8000);
}

static void
fp__bf16_edges(void **state)
{
	static const struct { double d; uint16_t h; } tab[] = {
		{ 1.0, 0x3F80 }, { -0.0, 0x8000 }, { 1.0 + 0x1p-8, 0x3F80 },
		{ 1.0 + 0x3p-8, 0x3F82 }, { 1.0 + 0x1.8p-8, 0x3F81 },
		{ 0x1.FEp127, 0x7F7F }, { 0x1.FFp127, 0x7F80 },
		{ 0x1.FDFFFFFp127, 0x7F7F }, { 1e300, 0x7F80 },
		{ -INFINITY, 0xFF80 }, { 0x1p-133, 0x0001 },
		{ 0x1p-134, 0x0000 }, { 0x1.8p-134, 0x0001 },
		{ 0x1p-126, 0x0080 }, { 4.9e-324, 0x0000 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		if (uet_amo_double_to_bf16(tab[i].d) != tab[i].h)
			fail_msg("bf16(%a) = 0x%04x, want 0x%04x", tab[i].d,
				 uet_amo_double_to_bf16(tab[i].d), tab[i].h);
	}
	assert_true(uet_amo_bf16_to_double(0x0001) == 0x1p-133);
	assert_true(uet_amo_bf16_to_double(0x7F7F) == 0x1.FEp127);
	assert_true(isnan(uet_amo_bf16_to_double(0x7F81)));
	assert_true((uet_amo_double_to_bf16(NAN) & 0x7FC0) == 0x7FC0);
}

/* Every pattern: decode matches the reference, re-encode is identity. */
static void
fp__all_patterns_round_trip(void **state)
{
	(void)state;
	for (uint32_t h = 0; h <= 0xFFFF; h++) {
		double f = uet_amo_fp16_to_double((uint16_t)h);
		double b = uet_amo_bf16_to_double((uint16_t)h);

		if (isnan(f)) {
			assert_true(isnan(ses_amo_model_half_dec((uint16_t)h, 10, 5)));
			/* quiet, sign and top payload kept */
			assert_int_equal(uet_amo_double_to_fp16(f),
					 h | 0x0200);
		} else {
			assert_true(f == ses_amo_model_half_dec((uint16_t)h, 10, 5));
			assert_int_equal(uet_amo_double_to_fp16(f), h);
		}
		if (isnan(b)) {
			assert_int_equal(uet_amo_double_to_bf16(b), h | 0x0040);
		} else {
			assert_true(b == ses_amo_model_half_dec((uint16_t)h, 7, 8));
			assert_int_equal(uet_amo_double_to_bf16(b), h);
		}
	}
}

/* Random doubles: the bit-level rounding equals the frexp/rint one. */
static void
fp__random_rounding(void **state)
{
	(void)state;
	uet_rand_seed(&rng, seed ^ 0xF16);
	for (int i = 0; i < 200000; i++) {
		uint64_t bits = rnd();
		double d;

		/* Concentrate exponents around the small formats' range. */
		bits = (bits & ~(UINT64_C(0x7FF) << 52)) |
		       ((uint64_t)(1023 - 140 + (int)(rnd() % 290)) << 52);
		memcpy(&d, &bits, sizeof(d));
		if (uet_amo_double_to_fp16(d) != ses_amo_model_half_enc(d, 10, 5) ||
		    uet_amo_double_to_bf16(d) != ses_amo_model_half_enc(d, 7, 8))
			fail_msg("seed 0x%llx: %a", (unsigned long long)seed, d);
	}
}

/* ---------------------------------------------------------------- */
/* Errors                                                            */
/* ---------------------------------------------------------------- */

static void
amo__error_codes(void **state)
{
	_Alignas(16) uint8_t t[64] = { 0 }, before[64];
	uint8_t a[64] = { 1 }, c[64] = { 2 };

	(void)state;
	memcpy(before, t, sizeof(t));
	/* undefined op (even with an undefined dt), undefined dt */
	assert_int_equal(uet_amo_exec(0x14, UET_AMO_DT_INT8, t, a, c, NULL, 1,
				      0), UET_RC_AMO_UNSUPPORTED_OP);
	assert_int_equal(uet_amo_exec(0xFF, 0x40, t, a, c, NULL, 1, 0),
			 UET_RC_AMO_UNSUPPORTED_OP);
	assert_int_equal(uet_amo_exec(UET_AMO_SUM, 0x12, t, a, c, NULL, 1, 0),
			 UET_RC_AMO_UNSUPPORTED_DT);
	/* undefined combinations */
	assert_int_equal(uet_amo_exec(UET_AMO_BOR, UET_AMO_DT_FLOAT, t, a, c,
				      NULL, 4, 0), UET_RC_AMO_UNSUPPORTED_OP);
	assert_int_equal(uet_amo_exec(UET_AMO_LOR, UET_AMO_DT_DOUBLE, t, a, c,
				      NULL, 8, 0), UET_RC_AMO_UNSUPPORTED_OP);
	assert_int_equal(uet_amo_exec(UET_AMO_MIN, UET_AMO_DT_FLOAT_COMPLEX, t,
				      a, c, NULL, 8, 0),
			 UET_RC_AMO_UNSUPPORTED_OP);
	assert_int_equal(uet_amo_exec(UET_AMO_CSWAP_LT,
				      UET_AMO_DT_DOUBLE_COMPLEX, t, a, c, NULL,
				      16, 0), UET_RC_AMO_UNSUPPORTED_OP);
	assert_int_equal(uet_amo_exec(UET_AMO_MSWAP, UET_AMO_DT_FP16, t, a, c,
				      NULL, 2, 0), UET_RC_AMO_UNSUPPORTED_OP);
	/* 32-byte elements have no cpu-coherent path */
	assert_int_equal(uet_amo_exec(UET_AMO_SUM,
				      UET_AMO_DT_LONG_DOUBLE_COMPLEX, t, a, c,
				      NULL, 32, UET_AMO_F_CPU_COHERENT),
			 UET_RC_AMO_UNSUPPORTED_DT);
	/* sizes */
	assert_int_equal(uet_amo_exec(UET_AMO_SUM, UET_AMO_DT_INT16, t, a, c,
				      NULL, 0, 0), UET_RC_AMO_UNSUPPORTED_SIZE);
	assert_int_equal(uet_amo_exec(UET_AMO_SUM, UET_AMO_DT_INT16, t, a, c,
				      NULL, 3, 0), UET_RC_AMO_UNSUPPORTED_SIZE);
	assert_int_equal(uet_amo_check(UET_AMO_SUM, UET_AMO_DT_INT8, t,
				       UET_AMO_MAX_LEN + 1, 0),
			 UET_RC_AMO_UNSUPPORTED_SIZE);
	assert_int_equal(uet_amo_check(UET_AMO_SUM, UET_AMO_DT_INT8, t,
				       UET_AMO_MAX_LEN, 0), UET_RC_OK);
	/* alignment: natural up to 16 */
	assert_int_equal(uet_amo_exec(UET_AMO_SUM, UET_AMO_DT_INT32, t + 2, a,
				      c, NULL, 4, 0), UET_RC_AMO_UNALIGNED);
	assert_int_equal(uet_amo_exec(UET_AMO_SUM, UET_AMO_DT_UINT128, t + 8,
				      a, c, NULL, 16, 0), UET_RC_AMO_UNALIGNED);
	assert_int_equal(uet_amo_exec(UET_AMO_SUM, UET_AMO_DT_FLOAT_COMPLEX,
				      t + 4, a, c, NULL, 8, 0),
			 UET_RC_AMO_UNALIGNED);
	assert_int_equal(uet_amo_exec(UET_AMO_SUM,
				      UET_AMO_DT_LONG_DOUBLE_COMPLEX, t + 16, a,
				      c, NULL, 32, 0), UET_RC_OK);
	assert_int_equal(uet_amo_dt_align(UET_AMO_DT_LONG_DOUBLE_COMPLEX), 16);
	memset(t, 0, sizeof(t));
	/* caller bugs */
	assert_int_equal(uet_amo_exec(UET_AMO_SUM, UET_AMO_DT_INT8, NULL, a, c,
				      NULL, 1, 0), UET_RC_NULL);
	assert_int_equal(uet_amo_exec(UET_AMO_SUM, UET_AMO_DT_INT8, t, NULL, c,
				      NULL, 1, 0), UET_RC_NULL);
	assert_int_equal(uet_amo_exec(UET_AMO_CSWAP, UET_AMO_DT_INT8, t, a,
				      NULL, NULL, 1, 0), UET_RC_NULL);
	assert_memory_equal(t, before, sizeof(t));
	/* predicates */
	assert_false(uet_amo_op_valid(0x14));
	assert_false(uet_amo_dt_valid(0x12));
	assert_false(uet_amo_supported(0x14, 0));
	assert_int_equal(uet_amo_dt_align(0x12), 0);
}

/* ---------------------------------------------------------------- */
/* cpu-coherent path under real contention                           */
/* ---------------------------------------------------------------- */

#define RACE_ITERS 20000

static _Alignas(16) unsigned __int128 race128;
static _Alignas(8) int32_t race32;

static void *
race_thread(void *arg)
{
	unsigned __int128 one = 1;
	int32_t one32 = 1;

	(void)arg;
	for (int i = 0; i < RACE_ITERS; i++) {
		uet_amo_exec(UET_AMO_SUM, UET_AMO_DT_UINT128, &race128, &one,
			     NULL, NULL, 16, UET_AMO_F_CPU_COHERENT);
		uet_amo_exec(UET_AMO_SUM, UET_AMO_DT_INT32, &race32, &one32,
			     NULL, NULL, 4, UET_AMO_F_CPU_COHERENT);
	}
	return NULL;
}

static void
amo__coherent_concurrent_sum(void **state)
{
	pthread_t th[2];

	(void)state;
	race128 = (unsigned __int128)1 << 64; /* carries across halves */
	race32 = 0;
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&th[i], NULL, race_thread,
						NULL), 0);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	assert_true(race128 == ((unsigned __int128)1 << 64) + 2 * RACE_ITERS);
	assert_int_equal(race32, 2 * RACE_ITERS);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(amo__every_op_every_dt),
		cmocka_unit_test(amo__every_op_every_dt_coherent),
		cmocka_unit_test(amo__fetch_optional_and_read),
		cmocka_unit_test(amo__cswap_each_comparison),
		cmocka_unit_test(amo__mswap_and_nan_rules),
		cmocka_unit_test(amo__error_codes),
		cmocka_unit_test(amo__coherent_concurrent_sum),
		cmocka_unit_test(fp__fp16_edges),
		cmocka_unit_test(fp__bf16_edges),
		cmocka_unit_test(fp__all_patterns_round_trip),
		cmocka_unit_test(fp__random_rounding),
	};
	const char *s = getenv("UET_TEST_SEED");

	if (s != NULL)
		seed = strtoull(s, NULL, 0);
	printf("# test_ses_amo seed 0x%llx\n", (unsigned long long)seed);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
