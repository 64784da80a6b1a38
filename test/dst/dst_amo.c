/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DST atomics: the simulator's own model of every atomic operation on
 * every datatype (UEC 1.0 SES atomic opcodes and datatypes; semantics as
 * docs/SES.md "Atomics" states them), independent of src/ses/amo.c.
 *
 * Values are small integers that every datatype holds exactly: signed
 * integers in [-100, 100], unsigned in [0, 100], reals and complex parts
 * in [-15, 15] without 0 (so that no product is a -0 and every result,
 * up to 15 x 15 + 15 x 15, is exact even in BF16). The model computes in
 * int64_t and encodes the result: integers wrap by truncation (two's
 * complement), reals through the C types, BF16 and FP16 by hand. A
 * completed operation's target memory, fetched values and receive buffer
 * must equal the model's bytes exactly.
 *
 * Below the model, the workload's side of generator 2's atomics and of
 * its errors on purpose: the code the target must answer (a memory key
 * it never gave, an offset past the region, an operation its datatype
 * does not define, an unaligned target), checked at completion, and the
 * target's bytes checked at the end.
 */

#include <errno.h>
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "dst.h"

enum amo_class { AC_INT, AC_REAL, AC_CPLX };

struct amo_dt {
	uint8_t size;
	uint8_t cls;     /* enum amo_class */
	bool sign;
};

static const struct amo_dt amo_dts[] = {
	[UET_AMO_DT_INT8] = { 1, AC_INT, true },
	[UET_AMO_DT_UINT8] = { 1, AC_INT, false },
	[UET_AMO_DT_INT16] = { 2, AC_INT, true },
	[UET_AMO_DT_UINT16] = { 2, AC_INT, false },
	[UET_AMO_DT_INT32] = { 4, AC_INT, true },
	[UET_AMO_DT_UINT32] = { 4, AC_INT, false },
	[UET_AMO_DT_INT64] = { 8, AC_INT, true },
	[UET_AMO_DT_UINT64] = { 8, AC_INT, false },
	[UET_AMO_DT_INT128] = { 16, AC_INT, true },
	[UET_AMO_DT_UINT128] = { 16, AC_INT, false },
	[UET_AMO_DT_FLOAT] = { 4, AC_REAL, true },
	[UET_AMO_DT_DOUBLE] = { 8, AC_REAL, true },
	[UET_AMO_DT_FLOAT_COMPLEX] = { 8, AC_CPLX, true },
	[UET_AMO_DT_DOUBLE_COMPLEX] = { 16, AC_CPLX, true },
	[UET_AMO_DT_LONG_DOUBLE] = { 16, AC_REAL, true },
	[UET_AMO_DT_LONG_DOUBLE_COMPLEX] = { 32, AC_CPLX, true },
	[UET_AMO_DT_BF16] = { 2, AC_REAL, true },
	[UET_AMO_DT_FP16] = { 2, AC_REAL, true },
};

#define AMO_NDT (sizeof(amo_dts) / sizeof(amo_dts[0]))

uint32_t
dst_amo_size(unsigned int dt)
{
	return dt < AMO_NDT ? amo_dts[dt].size : 0;
}

/* The support table of docs/SES.md: which ops each class defines. */
bool
dst_amo_supported(unsigned int op, unsigned int dt)
{
	uint8_t c = amo_dts[dt].cls;

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
		return c != AC_CPLX;
	default: /* logical, bitwise, MSWAP */
		return c == AC_INT;
	}
}

/* ---- encoding ---- */

/* IEEE binary16 of a small integer (|v| < 2048, exact). */
static uint16_t
fp16_of(int64_t v)
{
	uint16_t sign = v < 0 ? 0x8000 : 0;
	uint64_t m = (uint64_t)(v < 0 ? -v : v);
	int e = 0;

	if (m == 0)
		return sign;
	while ((m >> (e + 1)) != 0)
		e++;
	return (uint16_t)(sign | (uint16_t)((e + 15) << 10) |
			  (uint16_t)((m << (10 - e)) & 0x3FF));
}

static void
real_put(uint8_t dt, int64_t v, uint8_t *out)
{
	float f = (float)v;
	double d = (double)v;
	long double ld = (long double)v;
	uint32_t fb;
	uint16_t h;

	switch (dt) {
	case UET_AMO_DT_FLOAT:
	case UET_AMO_DT_FLOAT_COMPLEX:
		memcpy(out, &f, 4);
		break;
	case UET_AMO_DT_DOUBLE:
	case UET_AMO_DT_DOUBLE_COMPLEX:
		memcpy(out, &d, 8);
		break;
	case UET_AMO_DT_LONG_DOUBLE:
	case UET_AMO_DT_LONG_DOUBLE_COMPLEX:
		/* a 16-byte slot; x86's 80-bit value leaves 6 bytes of zero
		 * padding, which computed results write as zero too */
		memset(out, 0, 16);
		memcpy(out, &ld, LDBL_MANT_DIG == 64 ? 10 : sizeof(ld));
		break;
	case UET_AMO_DT_BF16:
		/* the top half of the float: exact for |v| <= 256 */
		memcpy(&fb, &f, 4);
		h = (uint16_t)(fb >> 16);
		memcpy(out, &h, 2);
		break;
	default: /* FP16 */
		h = fp16_of(v);
		memcpy(out, &h, 2);
		break;
	}
}

static void
put(uint8_t dt, const struct dst_amo_v *v, uint8_t *out)
{
	const struct amo_dt *d = &amo_dts[dt];
	uint64_t u = (uint64_t)v->re;
	uint32_t k;

	if (d->cls == AC_CPLX) {
		real_put(dt, v->re, out);
		real_put(dt, v->im, out + d->size / 2);
		return;
	}
	if (d->cls == AC_REAL) {
		real_put(dt, v->re, out);
		return;
	}
	/* integers: little endian, wrapped to the width; 128-bit values
	 * sign-extend the model's 64 bits */
	for (k = 0; k < d->size; k++)
		out[k] = k < 8 ? (uint8_t)(u >> (8 * k)) :
				 (v->re < 0 ? 0xFF : 0);
}

/* ---- the model ---- */

static bool
cmp_holds(uint8_t op, const struct dst_amo_v *t, const struct dst_amo_v *c)
{
	bool eq = t->re == c->re && t->im == c->im;

	switch (op) {
	case UET_AMO_CSWAP:
		return eq;
	case UET_AMO_CSWAP_NE:
		return !eq;
	case UET_AMO_CSWAP_LE:
		return t->re <= c->re;
	case UET_AMO_CSWAP_LT:
		return t->re < c->re;
	case UET_AMO_CSWAP_GE:
		return t->re >= c->re;
	default:
		return t->re > c->re;
	}
}

/* t OP a (c: the compare value, the mask of MSWAP). */
static struct dst_amo_v
apply(uint8_t op, struct dst_amo_v t, struct dst_amo_v a,
      struct dst_amo_v c)
{
	struct dst_amo_v r = t;

	switch (op) {
	case UET_AMO_MIN:
		return a.re < t.re ? a : t;
	case UET_AMO_MAX:
		return a.re > t.re ? a : t;
	case UET_AMO_SUM:
		r.re = t.re + a.re;
		r.im = t.im + a.im;
		return r;
	case UET_AMO_DIFF:
		r.re = t.re - a.re;
		r.im = t.im - a.im;
		return r;
	case UET_AMO_PROD:
		r.re = t.re * a.re - t.im * a.im;
		r.im = t.re * a.im + t.im * a.re;
		return r;
	case UET_AMO_LOR:
		r.re = (t.re != 0) || (a.re != 0);
		return r;
	case UET_AMO_LAND:
		r.re = (t.re != 0) && (a.re != 0);
		return r;
	case UET_AMO_LXOR:
		r.re = (t.re != 0) != (a.re != 0);
		return r;
	case UET_AMO_BOR:
		r.re = t.re | a.re;
		return r;
	case UET_AMO_BAND:
		r.re = t.re & a.re;
		return r;
	case UET_AMO_BXOR:
		r.re = t.re ^ a.re;
		return r;
	case UET_AMO_READ:
		return t;
	case UET_AMO_WRITE:
		return a;
	case UET_AMO_MSWAP:
		r.re = (t.re & ~c.re) | (a.re & c.re);
		return r;
	default: /* the CSWAP family */
		return cmp_holds(op, &t, &c) ? a : t;
	}
}

static int64_t
draw_val(struct uet_rand *rng, const struct amo_dt *d)
{
	int64_t v;

	if (d->cls != AC_INT) {
		v = (int64_t)uet_rand_below(rng, 15) + 1;
		return uet_rand_below(rng, 2) ? -v : v;
	}
	v = (int64_t)uet_rand_below(rng, 101);
	return d->sign && uet_rand_below(rng, 2) ? -v : v;
}

static struct dst_amo_v
draw(struct uet_rand *rng, uint8_t dt)
{
	const struct amo_dt *d = &amo_dts[dt];
	struct dst_amo_v v = { draw_val(rng, d), 0 };

	if (d->cls == AC_CPLX)
		v.im = draw_val(rng, d);
	return v;
}

void
dst_amo_prepare(struct uet_rand *rng, const struct dst_op_spec *o,
		struct dst_amo *a)
{
	uint32_t esz = amo_dts[o->amo_dt].size, k;

	for (k = 0; k < o->amo_n; k++) {
		struct dst_amo_v t = draw(rng, o->amo_dt);
		struct dst_amo_v x = draw(rng, o->amo_dt);
		/* a compare value equal to the target half of the time, so
		 * that CSWAP swaps as often as not */
		struct dst_amo_v c = uet_rand_below(rng, 2) ? t :
				     draw(rng, o->amo_dt);
		struct dst_amo_v r = apply(o->amo_op, t, x, c);

		put(o->amo_dt, &t, a->init + k * esz);
		put(o->amo_dt, &x, a->operand + k * esz);
		if (k == 0)
			put(o->amo_dt, &c, a->compare);
		put(o->amo_dt, &r, a->want + k * esz);
	}
}

/* ---- the operations of the workload (dst_work.c) ---- */

/* Where a tagged atomic lands in its receive buffer (buffer_offset). */
static uint32_t
tamo_off(uint32_t j, const struct dst_op_spec *o)
{
	uint32_t al = dst_amo_size(o->amo_dt);

	/* aligned (min(element, 16)); the receive buffer has 48 spare
	 * bytes (dst_work_start()) */
	return (j % 3) * (al > 16 ? 16 : al);
}

/* An atomic's values are drawn at the start: a tagged atomic's receive
 * buffer, which holds its target values, may be posted before it. */
void
dst_amo_start(struct dst_sim *s, uint32_t j)
{
	const struct dst_op_spec *o = &s->plan->op[j];
	struct dst_op *op = &s->op[j];

	op->amo = calloc(1, sizeof(*op->amo));
	if (op->amo == NULL)
		return;
	dst_amo_prepare(&s->rng, o, op->amo);
	if (!dst_op_is_tamo(o->kind))
		return;
	op->off = tamo_off(j, o);
	op->rlen = op->off + o->len;
	memset(op->rbuf, 0xEE, op->off);
	memcpy(op->rbuf + op->off, op->amo->init, o->len);
}

void
dst_amo_wr(uint32_t j, const struct dst_op_spec *o, struct dst_op *op,
	   struct uet_ses_wr *wr)
{
	wr->atomic_op = o->amo_op;
	wr->atomic_dt = o->amo_dt;
	wr->buf = op->amo->operand;
	wr->compare = op->amo->compare;
	wr->result = o->kind == DST_OP_FAMO || o->kind == DST_OP_CSWAP ||
		     o->kind == DST_OP_TFAMO ? op->amo->result : NULL;
	/* a tagged atomic addresses the buffer its tag matches */
	if (dst_op_is_tamo(o->kind))
		wr->roffset = tamo_off(j, o);
}

/* What the target must answer, by the model (UEC 1.0 SES target-side
 * resolution before the atomic's own checks: key, bounds; then the
 * operation on its datatype, the alignment). */
int
dst_model_status(const struct dst_sim *s, uint32_t j)
{
	const struct dst_op_spec *o = &s->plan->op[j];
	const struct dst_op *op = &s->op[j];
	uintptr_t at;
	uint32_t al;

	if (o->err == DST_E_KEY)
		return -EINVAL;  /* BAD_MKEY */
	if (o->err == DST_E_ADDR)
		return -EFAULT;  /* BAD_ADDR */
	if (!dst_op_is_amo(o->kind))
		return o->err == DST_E_GONE ? -EFAULT : 0; /* AT_INVALID */
	if (!dst_amo_supported(o->amo_op, o->amo_dt))
		return -EOPNOTSUPP; /* AMO_UNSUPPORTED_OP */
	if (o->err == DST_E_GONE)
		return -EFAULT;
	al = dst_amo_size(o->amo_dt);
	al = al > 16 ? 16 : al;
	at = (uintptr_t)(dst_op_is_tamo(o->kind) ? op->rbuf : s->node[o->dst].mem) +
	     op->off + (o->err == DST_E_ALIGN);
	return at % al != 0 ? -EFAULT : 0; /* AMO_UNALIGNED */
}

/* Codes only a target's verdict on the request itself gives (not a
 * PDC that failed, a receive missing, a cancel). */
static bool
semantic(int status)
{
	return status == -EINVAL || status == -EFAULT ||
	       status == -EOPNOTSUPP || status == -EMSGSIZE ||
	       status == -EACCES;
}

/* Generator 2: the status is the model's, or a failure of the transport
 * when the model expects success (a target that restarted since gave
 * other keys: not judged). */
void
dst_model_checks(struct dst_sim *s, uint32_t j)
{
	const struct dst_op_spec *o = &s->plan->op[j];
	struct dst_op *op = &s->op[j];

	/* keys registered anew since: BAD_MKEY is right then */
	if (!dst_op_modelled(o) || op->dst_inc != s->node[o->dst].inc ||
	    op->dst_keys != s->node[o->dst].keys)
		return;
	if (op->want != 0 ? op->status == 0 || (semantic(op->status) &&
						op->status != op->want) :
			    semantic(op->status))
		dst_fail(s, "rc-model", "op %u %s completed with %d, the "
			 "model says %d", j, dst_op_name(o->kind), op->status,
			 op->want);
	if (op->state == DST_S_OK && op->amo != NULL &&
	    (o->kind == DST_OP_FAMO || o->kind == DST_OP_CSWAP ||
	     o->kind == DST_OP_TFAMO) &&
	    memcmp(op->amo->result, op->amo->init, o->len) != 0)
		dst_fail(s, "atomic-fetch", "op %u %s %s/%s fetched other "
			 "values than the target held", j,
			 dst_op_name(o->kind), uet_wire_amo_op_name(o->amo_op),
			 uet_wire_amo_dt_name(o->amo_dt));
}

/* An atomic of generator 2 executed at most once, exactly once when it
 * completed OK, never when the target refused it: its target holds the
 * model's result or its initial values. */
void
dst_amo_final(struct dst_sim *s, uint32_t j)
{
	const struct dst_op_spec *o = &s->plan->op[j];
	const struct dst_op *op = &s->op[j];
	const uint8_t *t = dst_op_is_tamo(o->kind) ? op->rbuf + op->off :
			   s->node[o->dst].mem + op->off;
	bool done = memcmp(t, op->amo->want, o->len) == 0;
	bool untouched = memcmp(t, op->amo->init, o->len) == 0;

	if (op->state == DST_S_OK ? done :
	    op->want != 0 || semantic(op->status) ? untouched :
	    done || untouched)
		return;
	dst_fail(s, "atomic-model", "op %u %s %s/%s x%u (%s %d): the target "
		 "holds %s", j, dst_op_name(o->kind),
		 uet_wire_amo_op_name(o->amo_op), uet_wire_amo_dt_name(o->amo_dt),
		 o->amo_n, op->state == DST_S_OK ? "ok" : "failed",
		 op->status, done ? "the result" : untouched ?
		 "its initial values" : "neither the result nor its initial "
		 "values");
}
