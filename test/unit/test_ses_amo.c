/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the atomic engine (src/ses/amo.c, src/ses/amo_fp.c).
 *
 * The reference below is written independently of amo.c: integers go
 * through byte-assembled 128-bit values with explicit sign extension,
 * reals are compared as long double, BF16/FP16 use frexp/ldexp/rint
 * instead of bit manipulation. Operands come from a seeded PRNG; the seed
 * is printed with every failure (override with UET_TEST_SEED).
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

#define N_OPS (UET_AMO_MSWAP + 1)
#define N_DTS (UET_AMO_DT_FP16 + 1)
#define MAX_ELEMS 8
#define BUF (MAX_ELEMS * UET_AMO_ELEM_MAX)

static uint64_t seed = 0x5eed1234abcdULL;
static uint64_t rng;

static uint64_t
rnd(void)
{
	return uet_rand_splitmix(&rng);
}

/* ---------------------------------------------------------------- */
/* Reference                                                         */
/* ---------------------------------------------------------------- */

static bool
is_int(unsigned int dt)
{
	return dt <= UET_AMO_DT_UINT128;
}

static bool
is_cplx(unsigned int dt)
{
	return dt == UET_AMO_DT_FLOAT_COMPLEX ||
	       dt == UET_AMO_DT_DOUBLE_COMPLEX ||
	       dt == UET_AMO_DT_LONG_DOUBLE_COMPLEX;
}

/* The support table of docs/SES.md, spelled out. */
static bool
ref_supported(unsigned int op, unsigned int dt)
{
	if (is_int(dt))
		return true;
	switch (op) {
	case UET_AMO_SUM:
	case UET_AMO_DIFF:
	case UET_AMO_PROD:
	case UET_AMO_READ:
	case UET_AMO_WRITE:
	case UET_AMO_CSWAP:
	case UET_AMO_CSWAP_NE:
		return true;
	case UET_AMO_MIN:
	case UET_AMO_MAX:
	case UET_AMO_CSWAP_LE:
	case UET_AMO_CSWAP_LT:
	case UET_AMO_CSWAP_GE:
	case UET_AMO_CSWAP_GT:
		return !is_cplx(dt);
	default:
		return false;
	}
}

typedef unsigned __int128 u128;
typedef __int128 i128;

static u128
ld_int(const uint8_t *p, size_t n, bool sgn)
{
	u128 v = 0;

	for (size_t i = n; i-- > 0;)
		v = v << 8 | p[i];
	if (sgn && n < 16 && (p[n - 1] & 0x80))
		v |= ~(u128)0 << (8 * n);
	return v;
}

static void
st_int(uint8_t *p, size_t n, u128 v)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* -1, 0, 1 for x < y, ==, >; 2 unordered. */
static int
cmp_int(u128 x, u128 y, bool sgn)
{
	if (sgn)
		return (i128)x < (i128)y ? -1 : (i128)x > (i128)y;
	return x < y ? -1 : x > y;
}

static int
cmp_ld(long double x, long double y)
{
	if (isnan(x) || isnan(y))
		return 2;
	return x < y ? -1 : x > y;
}

/* Whether a CSWAP-family op swaps, given target-vs-compare. */
static bool
ref_cswap_takes(unsigned int op, int tc)
{
	switch (op) {
	case UET_AMO_CSWAP: return tc == 0;
	case UET_AMO_CSWAP_NE: return tc != 0;
	case UET_AMO_CSWAP_LE: return tc == -1 || tc == 0;
	case UET_AMO_CSWAP_LT: return tc == -1;
	case UET_AMO_CSWAP_GE: return tc == 1 || tc == 0;
	case UET_AMO_CSWAP_GT: return tc == 1;
	case UET_AMO_WRITE: return true;
	default: return false;
	}
}

/* Returns 0 keep, 1 move operand, 2 computed into out. */
static int
ref_int(unsigned int op, unsigned int dt, const uint8_t *tp,
	const uint8_t *ap, const uint8_t *cp, uint8_t *out)
{
	size_t n = uet_wire_amo_dt_size(dt);
	bool sgn = dt % 2 == 0;
	u128 t = ld_int(tp, n, sgn), a = ld_int(ap, n, sgn);
	u128 c = ld_int(cp, n, sgn), r;

	switch (op) {
	case UET_AMO_MIN: return cmp_int(a, t, sgn) < 0;
	case UET_AMO_MAX: return cmp_int(a, t, sgn) > 0;
	case UET_AMO_SUM: r = t + a; break;
	case UET_AMO_DIFF: r = t - a; break;
	case UET_AMO_PROD: r = t * a; break;
	case UET_AMO_LOR: r = (t != 0) | (a != 0); break;
	case UET_AMO_LAND: r = (t != 0) & (a != 0); break;
	case UET_AMO_LXOR: r = (t != 0) ^ (a != 0); break;
	case UET_AMO_BOR: r = t | a; break;
	case UET_AMO_BAND: r = t & a; break;
	case UET_AMO_BXOR: r = t ^ a; break;
	case UET_AMO_MSWAP: r = (t & ~c) | (a & c); break;
	default: return ref_cswap_takes(op, cmp_int(t, c, sgn));
	}
	st_int(out, n, r);
	return 2;
}

static double
half_dec(uint16_t h, int mb, int eb)
{
	int bias = (1 << (eb - 1)) - 1;
	unsigned int e = (h >> mb) & ((1u << eb) - 1);
	unsigned int m = h & ((1u << mb) - 1);
	double s = (h & 0x8000) ? -1.0 : 1.0;

	if (e == (1u << eb) - 1)
		return m ? copysign(NAN, s) : s * INFINITY;
	if (e == 0)
		return s * ldexp(m, 1 - bias - mb);
	return s * ldexp(m + (1u << mb), (int)e - bias - mb);
}

static uint16_t
half_enc(double d, int mb, int eb)
{
	uint16_t sign = signbit(d) ? 0x8000 : 0;
	int bias = (1 << (eb - 1)) - 1, k, e;
	unsigned int emax = (1u << eb) - 1;
	double q;

	if (isnan(d))
		return (uint16_t)(sign | emax << mb | 1u << (mb - 1));
	d = fabs(d);
	/* Halfway between the largest finite value and 2^(emax - bias). */
	if (d >= ldexp(2 - ldexp(1, -mb - 1), (int)emax - 1 - bias))
		return (uint16_t)(sign | emax << mb);
	if (d < ldexp(1, 1 - bias))
		return (uint16_t)(sign | (uint16_t)rint(ldexp(d, bias - 1 + mb)));
	q = rint(ldexp(frexp(d, &k), mb + 1));
	e = k - 1 + bias;
	if (q == ldexp(1, mb + 1)) {
		q /= 2;
		e++;
	}
	return (uint16_t)(sign | e << mb | ((unsigned int)q - (1u << mb)));
}

static double
half_val(unsigned int dt, const uint8_t *p)
{
	uint16_t h;

	memcpy(&h, p, 2);
	return dt == UET_AMO_DT_FP16 ? half_dec(h, 10, 5) : half_dec(h, 7, 8);
}

static long double
real_val(unsigned int dt, const uint8_t *p)
{
	float f;
	double d;
	long double l;

	switch (dt) {
	case UET_AMO_DT_FLOAT:
		memcpy(&f, p, sizeof(f));
		return f;
	case UET_AMO_DT_DOUBLE:
		memcpy(&d, p, sizeof(d));
		return d;
	case UET_AMO_DT_LONG_DOUBLE:
		memcpy(&l, p, sizeof(l));
		return l;
	default:
		return half_val(dt, p);
	}
}

/* Computed long double values: value bytes, then zero padding. */
static void
st_ldbl(uint8_t *p, long double v)
{
	memset(p, 0, 16);
	memcpy(p, &v, LDBL_MANT_DIG == 64 ? 10 : sizeof(v));
}

static void
real_arith(unsigned int op, unsigned int dt, const uint8_t *tp,
	   const uint8_t *ap, uint8_t *out)
{
	long double t = real_val(dt, tp), a = real_val(dt, ap);
	float f;
	double d;
	uint16_t h;

	switch (dt) {
	case UET_AMO_DT_FLOAT:
		f = op == UET_AMO_SUM ? (float)t + (float)a :
		    op == UET_AMO_DIFF ? (float)t - (float)a : (float)t * (float)a;
		memcpy(out, &f, sizeof(f));
		break;
	case UET_AMO_DT_DOUBLE:
		d = op == UET_AMO_SUM ? (double)t + (double)a :
		    op == UET_AMO_DIFF ? (double)t - (double)a :
		    (double)t * (double)a;
		memcpy(out, &d, sizeof(d));
		break;
	case UET_AMO_DT_LONG_DOUBLE:
		st_ldbl(out, op == UET_AMO_SUM ? t + a :
			op == UET_AMO_DIFF ? t - a : t * a);
		break;
	default:
		d = op == UET_AMO_SUM ? (double)t + (double)a :
		    op == UET_AMO_DIFF ? (double)t - (double)a :
		    (double)t * (double)a;
		h = dt == UET_AMO_DT_FP16 ? half_enc(d, 10, 5) :
		    half_enc(d, 7, 8);
		memcpy(out, &h, 2);
		break;
	}
}

static int
ref_real(unsigned int op, unsigned int dt, const uint8_t *tp,
	 const uint8_t *ap, const uint8_t *cp, uint8_t *out)
{
	long double t = real_val(dt, tp), a = real_val(dt, ap);
	long double c = real_val(dt, cp);

	switch (op) {
	case UET_AMO_MIN:
		return (isnan(t) && !isnan(a)) || cmp_ld(a, t) == -1;
	case UET_AMO_MAX:
		return (isnan(t) && !isnan(a)) || cmp_ld(a, t) == 1;
	case UET_AMO_SUM:
	case UET_AMO_DIFF:
	case UET_AMO_PROD:
		real_arith(op, dt, tp, ap, out);
		return 2;
	default:
		return ref_cswap_takes(op, cmp_ld(t, c));
	}
}

#define CPLX_ARITH(T, op, t, a, r) do {					\
	T t_[2], a_[2], r_[2];						\
	memcpy(t_, t, sizeof(t_));					\
	memcpy(a_, a, sizeof(a_));					\
	if (op == UET_AMO_SUM) {					\
		r_[0] = t_[0] + a_[0]; r_[1] = t_[1] + a_[1];		\
	} else if (op == UET_AMO_DIFF) {				\
		r_[0] = t_[0] - a_[0]; r_[1] = t_[1] - a_[1];		\
	} else {							\
		r_[0] = t_[0] * a_[0] - t_[1] * a_[1];			\
		r_[1] = t_[0] * a_[1] + t_[1] * a_[0];			\
	}								\
	memcpy(r, r_, sizeof(r_));					\
} while (0)

static int
ref_cplx(unsigned int op, unsigned int dt, const uint8_t *tp,
	 const uint8_t *ap, const uint8_t *cp, uint8_t *out)
{
	unsigned int half = dt == UET_AMO_DT_FLOAT_COMPLEX ? UET_AMO_DT_FLOAT :
			    dt == UET_AMO_DT_DOUBLE_COMPLEX ? UET_AMO_DT_DOUBLE :
			    UET_AMO_DT_LONG_DOUBLE;
	size_t s = uet_wire_amo_dt_size(half);
	bool eq = real_val(half, tp) == real_val(half, cp) &&
		  real_val(half, tp + s) == real_val(half, cp + s);
	long double r[2];

	if (op != UET_AMO_SUM && op != UET_AMO_DIFF && op != UET_AMO_PROD)
		return ref_cswap_takes(op, eq ? 0 : 2);
	if (half == UET_AMO_DT_FLOAT)
		CPLX_ARITH(float, op, tp, ap, out);
	else if (half == UET_AMO_DT_DOUBLE)
		CPLX_ARITH(double, op, tp, ap, out);
	else {
		CPLX_ARITH(long double, op, tp, ap, r);
		st_ldbl(out, r[0]);
		st_ldbl(out + 16, r[1]);
	}
	return 2;
}

/* Apply op to n elements of ref[], the way docs/SES.md describes it. */
static void
ref_exec(unsigned int op, unsigned int dt, uint8_t *tgt, const uint8_t *a,
	 const uint8_t *c, uint8_t *fetch, unsigned int n)
{
	size_t s = uet_wire_amo_dt_size(dt);
	uint8_t out[32];
	int v;

	memcpy(fetch, tgt, s * n);
	for (unsigned int i = 0; i < n; i++) {
		uint8_t *t = tgt + i * s;

		if (is_int(dt))
			v = ref_int(op, dt, t, a + i * s, c + i * s, out);
		else if (is_cplx(dt))
			v = ref_cplx(op, dt, t, a + i * s, c + i * s, out);
		else
			v = ref_real(op, dt, t, a + i * s, c + i * s, out);
		if (v == 1)
			memcpy(t, a + i * s, s);
		else if (v == 2)
			memcpy(t, out, s);
	}
}

/* ---------------------------------------------------------------- */
/* Operand generation and comparison                                 */
/* ---------------------------------------------------------------- */

static void
gen_real(unsigned int dt, uint8_t *p)
{
	static const double special[] = { 0.0, -0.0, INFINITY, -INFINITY,
		NAN, DBL_MAX, DBL_MIN, 1e-310, -1.0, 0.5 };
	uint64_t r = rnd();
	double d;
	float f;
	long double l;
	uint16_t h;

	if (r % 8 == 0) {
		for (size_t i = 0; i < uet_wire_amo_dt_size(dt); i++)
			p[i] = (uint8_t)rnd();
		return;
	}
	d = r % 8 == 1 ? special[(r >> 8) % 10] :
	    (double)((int64_t)(r >> 16) % 2001 - 1000) / 8.0;
	switch (dt) {
	case UET_AMO_DT_FLOAT:
		f = (float)d;
		memcpy(p, &f, sizeof(f));
		break;
	case UET_AMO_DT_DOUBLE:
		memcpy(p, &d, sizeof(d));
		break;
	case UET_AMO_DT_LONG_DOUBLE:
		l = d;
		for (int i = 0; i < 16; i++)
			p[i] = (uint8_t)rnd(); /* padding stays random */
		memcpy(p, &l, 10);
		break;
	default:
		h = dt == UET_AMO_DT_FP16 ? half_enc(d, 10, 5) :
		    half_enc(d, 7, 8);
		memcpy(p, &h, 2);
		break;
	}
}

static void
gen_elem(unsigned int dt, uint8_t *p)
{
	size_t s = uet_wire_amo_dt_size(dt);

	if (is_int(dt)) {
		for (size_t i = 0; i < s; i++)
			p[i] = (uint8_t)rnd();
		if (rnd() % 4 == 0) /* small values: LOR/LAND zeros, etc. */
			memset(p + 1, (p[0] & 0x80) ? 0xFF : 0, s - 1);
		if (rnd() % 8 == 0)
			memset(p, 0, s);
	} else if (is_cplx(dt)) {
		unsigned int h = dt == UET_AMO_DT_FLOAT_COMPLEX ?
			UET_AMO_DT_FLOAT : dt == UET_AMO_DT_DOUBLE_COMPLEX ?
			UET_AMO_DT_DOUBLE : UET_AMO_DT_LONG_DOUBLE;

		gen_real(h, p);
		gen_real(h, p + s / 2);
	} else {
		gen_real(dt, p);
	}
}

/* Component datatype of a complex type (the type itself otherwise). */
static unsigned int
comp_dt(unsigned int dt)
{
	switch (dt) {
	case UET_AMO_DT_FLOAT_COMPLEX: return UET_AMO_DT_FLOAT;
	case UET_AMO_DT_DOUBLE_COMPLEX: return UET_AMO_DT_DOUBLE;
	case UET_AMO_DT_LONG_DOUBLE_COMPLEX: return UET_AMO_DT_LONG_DOUBLE;
	default: return dt;
	}
}

/*
 * Equal bytes, or (floating point) both NaN component by component: NaN
 * payloads and signs depend on which operand the compiler put first in a
 * commutative instruction, which IEEE leaves open.
 */
static bool
elem_same(unsigned int dt, const uint8_t *x, const uint8_t *y)
{
	unsigned int cd = comp_dt(dt);
	size_t s = uet_wire_amo_dt_size(dt), cs = uet_wire_amo_dt_size(cd);

	if (memcmp(x, y, s) == 0)
		return true;
	if (is_int(dt))
		return false;
	for (size_t o = 0; o < s; o += cs) {
		if (memcmp(x + o, y + o, cs) != 0 &&
		    !(isnan(real_val(cd, x + o)) && isnan(real_val(cd, y + o))))
			return false;
	}
	return true;
}

static void
check_bufs(const char *what, unsigned int op, unsigned int dt,
	   const uint8_t *got, const uint8_t *want, unsigned int n)
{
	size_t s = uet_wire_amo_dt_size(dt);

	for (unsigned int i = 0; i < n; i++) {
		if (elem_same(dt, got + i * s, want + i * s))
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
		gen_elem(dt, tgt + i * s);
		gen_elem(dt, a + i * s);
		gen_elem(dt, c + i * s);
		if (rnd() % 3 == 0) /* make CSWAP/CSWAP_LE... true often */
			memcpy(c + i * s, tgt + i * s, s);
		if (rnd() % 8 == 0)
			memcpy(a + i * s, tgt + i * s, s);
	}
	memcpy(ref, tgt, n * s);
	memcpy(before, tgt, n * s);
	rc = uet_amo_exec(op, dt, tgt, a, c, f, n * s, flags);
	if (!ref_supported(op, dt)) {
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
	ref_exec(op, dt, ref, a, c, rf, n);
	check_bufs("target", op, dt, tgt, ref, n);
	check_bufs("fetch", op, dt, f, before, n);
}

static void
amo__every_op_every_dt(void **state)
{
	(void)state;
	rng = seed;
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
	rng = seed ^ 0xC0;
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
			assert_true(isnan(half_dec((uint16_t)h, 10, 5)));
			/* quiet, sign and top payload kept */
			assert_int_equal(uet_amo_double_to_fp16(f),
					 h | 0x0200);
		} else {
			assert_true(f == half_dec((uint16_t)h, 10, 5));
			assert_int_equal(uet_amo_double_to_fp16(f), h);
		}
		if (isnan(b)) {
			assert_int_equal(uet_amo_double_to_bf16(b), h | 0x0040);
		} else {
			assert_true(b == half_dec((uint16_t)h, 7, 8));
			assert_int_equal(uet_amo_double_to_bf16(b), h);
		}
	}
}

/* Random doubles: the bit-level rounding equals the frexp/rint one. */
static void
fp__random_rounding(void **state)
{
	(void)state;
	rng = seed ^ 0xF16;
	for (int i = 0; i < 200000; i++) {
		uint64_t bits = rnd();
		double d;

		/* Concentrate exponents around the small formats' range. */
		bits = (bits & ~(UINT64_C(0x7FF) << 52)) |
		       ((uint64_t)(1023 - 140 + (int)(rnd() % 290)) << 52);
		memcpy(&d, &bits, sizeof(d));
		if (uet_amo_double_to_fp16(d) != half_enc(d, 10, 5) ||
		    uet_amo_double_to_bf16(d) != half_enc(d, 7, 8))
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
