/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reference model of the SES atomics, independent of src/ses/amo.c
 * (ses_amo_model.h says who shares it and how it computes).
 */

#include <float.h>
#include <math.h>
#include <string.h>

#include <uet/uet_ses_amo.h>

#include "ses_amo_model.h"

typedef unsigned __int128 u128;
typedef __int128 i128;

size_t
ses_amo_model_size(unsigned int dt)
{
	return uet_wire_amo_dt_size(dt);
}

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

bool
ses_amo_model_supported(unsigned int op, unsigned int dt)
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
	default: /* logical, bitwise, MSWAP: integers only */
		return false;
	}
}

/* ---- integers ---- */

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
cswap_takes(unsigned int op, int tc)
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
model_int(unsigned int op, unsigned int dt, const uint8_t *tp,
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
	default: return cswap_takes(op, cmp_int(t, c, sgn));
	}
	st_int(out, n, r);
	return 2;
}

/* ---- reals ---- */

double
ses_amo_model_half_dec(uint16_t h, int mb, int eb)
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

uint16_t
ses_amo_model_half_enc(double d, int mb, int eb)
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

static uint16_t
half_of(unsigned int dt, double d)
{
	return dt == UET_AMO_DT_FP16 ? ses_amo_model_half_enc(d, 10, 5) :
				       ses_amo_model_half_enc(d, 7, 8);
}

long double
ses_amo_model_real(unsigned int dt, const uint8_t *p)
{
	float f;
	double d;
	long double l;
	uint16_t h;

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
		memcpy(&h, p, 2);
		return dt == UET_AMO_DT_FP16 ?
		       ses_amo_model_half_dec(h, 10, 5) :
		       ses_amo_model_half_dec(h, 7, 8);
	}
}

/* Computed long double values: value bytes, then zero padding. */
static void
st_ldbl(uint8_t *p, long double v)
{
	memset(p, 0, 16);
	memcpy(p, &v, LDBL_MANT_DIG == 64 ? 10 : sizeof(v));
}

/* A real @p v as an element of @p dt, rounded once. */
static void
st_real(unsigned int dt, long double v, uint8_t *out)
{
	float f = (float)v;
	double d = (double)v;
	uint16_t h;

	switch (dt) {
	case UET_AMO_DT_FLOAT:
		memcpy(out, &f, sizeof(f));
		break;
	case UET_AMO_DT_DOUBLE:
		memcpy(out, &d, sizeof(d));
		break;
	case UET_AMO_DT_LONG_DOUBLE:
		st_ldbl(out, v);
		break;
	default:
		h = half_of(dt, d);
		memcpy(out, &h, 2);
		break;
	}
}

/* SUM, DIFF, PROD in the element's own precision (BF16, FP16: double,
 * then one rounding). */
static void
real_arith(unsigned int op, unsigned int dt, const uint8_t *tp,
	   const uint8_t *ap, uint8_t *out)
{
	long double t = ses_amo_model_real(dt, tp);
	long double a = ses_amo_model_real(dt, ap);
	float f;
	double d;

	switch (dt) {
	case UET_AMO_DT_FLOAT:
		f = op == UET_AMO_SUM ? (float)t + (float)a :
		    op == UET_AMO_DIFF ? (float)t - (float)a : (float)t * (float)a;
		memcpy(out, &f, sizeof(f));
		break;
	case UET_AMO_DT_LONG_DOUBLE:
		st_ldbl(out, op == UET_AMO_SUM ? t + a :
			op == UET_AMO_DIFF ? t - a : t * a);
		break;
	default: /* DOUBLE, BF16, FP16 */
		d = op == UET_AMO_SUM ? (double)t + (double)a :
		    op == UET_AMO_DIFF ? (double)t - (double)a :
		    (double)t * (double)a;
		st_real(dt, d, out);
		break;
	}
}

static int
model_real(unsigned int op, unsigned int dt, const uint8_t *tp,
	   const uint8_t *ap, const uint8_t *cp, uint8_t *out)
{
	long double t = ses_amo_model_real(dt, tp);
	long double a = ses_amo_model_real(dt, ap);
	long double c = ses_amo_model_real(dt, cp);

	switch (op) {
	case UET_AMO_MIN: /* minNum: a NaN target is replaced */
		return (isnan(t) && !isnan(a)) || cmp_ld(a, t) == -1;
	case UET_AMO_MAX:
		return (isnan(t) && !isnan(a)) || cmp_ld(a, t) == 1;
	case UET_AMO_SUM:
	case UET_AMO_DIFF:
	case UET_AMO_PROD:
		real_arith(op, dt, tp, ap, out);
		return 2;
	default:
		return cswap_takes(op, cmp_ld(t, c));
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
model_cplx(unsigned int op, unsigned int dt, const uint8_t *tp,
	   const uint8_t *ap, const uint8_t *cp, uint8_t *out)
{
	unsigned int half = comp_dt(dt);
	size_t s = uet_wire_amo_dt_size(half);
	bool eq = ses_amo_model_real(half, tp) == ses_amo_model_real(half, cp) &&
		  ses_amo_model_real(half, tp + s) ==
		  ses_amo_model_real(half, cp + s);
	long double r[2];

	if (op != UET_AMO_SUM && op != UET_AMO_DIFF && op != UET_AMO_PROD)
		return cswap_takes(op, eq ? 0 : 2);
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

void
ses_amo_model_exec(unsigned int op, unsigned int dt, uint8_t *tgt,
		   const uint8_t *a, const uint8_t *c, uint8_t *fetch,
		   unsigned int n)
{
	size_t s = uet_wire_amo_dt_size(dt);
	uint8_t out[32];
	int v;

	if (fetch != NULL)
		memcpy(fetch, tgt, s * n);
	if (!ses_amo_model_supported(op, dt))
		return;
	for (unsigned int i = 0; i < n; i++) {
		uint8_t *t = tgt + i * s;

		if (is_int(dt))
			v = model_int(op, dt, t, a + i * s, c + i * s, out);
		else if (is_cplx(dt))
			v = model_cplx(op, dt, t, a + i * s, c + i * s, out);
		else
			v = model_real(op, dt, t, a + i * s, c + i * s, out);
		if (v == 1)
			memcpy(t, a + i * s, s);
		else if (v == 2)
			memcpy(t, out, s);
	}
}

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
		    !(isnan(ses_amo_model_real(cd, x + o)) &&
		      isnan(ses_amo_model_real(cd, y + o))))
			return false;
	}
	return true;
}

bool
ses_amo_model_same(unsigned int dt, const uint8_t *x, const uint8_t *y,
		   unsigned int n)
{
	size_t s = uet_wire_amo_dt_size(dt);

	for (unsigned int i = 0; i < n; i++)
		if (!elem_same(dt, x + i * s, y + i * s))
			return false;
	return true;
}

/* ---- values ---- */

void
ses_amo_model_put(unsigned int dt, int64_t re, int64_t im, uint8_t *out)
{
	unsigned int cd = comp_dt(dt);

	if (is_int(dt)) {
		st_int(out, uet_wire_amo_dt_size(dt), (u128)(i128)re);
		return;
	}
	st_real(cd, (long double)re, out);
	if (is_cplx(dt))
		st_real(cd, (long double)im, out + uet_wire_amo_dt_size(cd));
}

static void
gen_real(struct uet_rand *rng, unsigned int dt, uint8_t *p)
{
	static const double special[] = { 0.0, -0.0, INFINITY, -INFINITY,
		NAN, DBL_MAX, DBL_MIN, 1e-310, -1.0, 0.5 };
	uint64_t r = uet_rand_next(rng);
	double d;
	long double l;

	if (r % 8 == 0) {
		for (size_t i = 0; i < uet_wire_amo_dt_size(dt); i++)
			p[i] = (uint8_t)uet_rand_next(rng);
		return;
	}
	d = r % 8 == 1 ? special[(r >> 8) % 10] :
	    (double)((int64_t)(r >> 16) % 2001 - 1000) / 8.0;
	if (dt != UET_AMO_DT_LONG_DOUBLE) {
		st_real(dt, d, p);
		return;
	}
	l = d;
	for (int i = 0; i < 16; i++)
		p[i] = (uint8_t)uet_rand_next(rng); /* padding stays random */
	memcpy(p, &l, 10);
}

void
ses_amo_model_gen(struct uet_rand *rng, unsigned int dt, uint8_t *p)
{
	size_t s = uet_wire_amo_dt_size(dt);

	if (is_int(dt)) {
		for (size_t i = 0; i < s; i++)
			p[i] = (uint8_t)uet_rand_next(rng);
		if (uet_rand_next(rng) % 4 == 0) /* small: LOR/LAND zeros */
			memset(p + 1, (p[0] & 0x80) ? 0xFF : 0, s - 1);
		if (uet_rand_next(rng) % 8 == 0)
			memset(p, 0, s);
	} else if (is_cplx(dt)) {
		gen_real(rng, comp_dt(dt), p);
		gen_real(rng, comp_dt(dt), p + s / 2);
	} else {
		gen_real(rng, dt, p);
	}
}
