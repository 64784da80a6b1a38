/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DST atomics: what each atomic of the workload must do, by the reference
 * model of the atomics that the unit tests use too (test/unit/
 * ses_amo_model.c, independent of src/ses/amo.c; UEC 1.0 SES atomic
 * opcodes and datatypes, semantics as docs/SES.md "Atomics" states them).
 *
 * Generators 1 and 2 draw small integers that every datatype holds
 * exactly: signed integers in [-100, 100], unsigned in [0, 100], reals
 * and complex parts in [-15, 15] without 0 (so that no product is a -0
 * and every result, up to 15 x 15 + 15 x 15, is exact even in BF16).
 * Generator 3 draws any element the model's generator gives: NaN,
 * infinities, zeros of both signs, subnormals, any bits. A completed
 * operation's target memory, fetched values and receive buffer must
 * equal the model's (NaN for NaN).
 *
 * Below the model, the workload's side of the atomics and of the errors
 * on purpose: the code the target must answer (a memory key it never
 * gave, an offset past the region, an operation its datatype does not
 * define, an unaligned target), checked at completion, and the target's
 * bytes checked at the end.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dst.h"
#include "ses_amo_model.h"

uint32_t
dst_amo_size(unsigned int dt)
{
	return (uint32_t)ses_amo_model_size(dt);
}

bool
dst_amo_supported(unsigned int op, unsigned int dt)
{
	return ses_amo_model_supported(op, dt);
}

/* ---- the values ---- */

static bool
dt_int(uint8_t dt)
{
	return dt <= UET_AMO_DT_UINT128;
}

static bool
dt_cplx(uint8_t dt)
{
	return dt == UET_AMO_DT_FLOAT_COMPLEX ||
	       dt == UET_AMO_DT_DOUBLE_COMPLEX ||
	       dt == UET_AMO_DT_LONG_DOUBLE_COMPLEX;
}

/* A small exact value of @p dt's class (generators 1 and 2). */
static int64_t
draw_val(struct uet_rand *rng, uint8_t dt)
{
	int64_t v;

	if (!dt_int(dt)) {
		v = (int64_t)uet_rand_below(rng, 15) + 1;
		return uet_rand_below(rng, 2) ? -v : v;
	}
	v = (int64_t)uet_rand_below(rng, 101);
	/* even datatype numbers are the signed integers */
	return dt % 2 == 0 && uet_rand_below(rng, 2) ? -v : v;
}

static void
draw(struct uet_rand *rng, uint8_t dt, uint8_t *out)
{
	int64_t re = draw_val(rng, dt), im = 0;

	if (dt_cplx(dt))
		im = draw_val(rng, dt);
	ses_amo_model_put(dt, re, im, out);
}

/* Element @p k's target, operand and compare values. */
static void
draw_elem(struct uet_rand *rng, uint8_t dt, uint8_t gen, uint8_t *t,
	  uint8_t *x, uint8_t *c)
{
	uint32_t esz = dst_amo_size(dt);

	if (gen >= 3) {
		ses_amo_model_gen(rng, dt, t);
		ses_amo_model_gen(rng, dt, x);
		ses_amo_model_gen(rng, dt, c);
	} else {
		draw(rng, dt, t);
		draw(rng, dt, x);
	}
	/* a compare value equal to the target half of the time, so that
	 * CSWAP swaps as often as not */
	if (uet_rand_below(rng, 2))
		memcpy(c, t, esz);
	else if (gen < 3)
		draw(rng, dt, c);
}

void
dst_amo_prepare(struct uet_rand *rng, const struct dst_op_spec *o,
		uint8_t gen, struct dst_amo *a)
{
	uint32_t esz = dst_amo_size(o->amo_dt), k;
	uint8_t compare[DST_AMO_MAX];

	for (k = 0; k < o->amo_n; k++)
		draw_elem(rng, o->amo_dt, gen, a->init + k * esz,
			  a->operand + k * esz, compare + k * esz);
	/* one compare value (the CAS forms have one element) */
	memcpy(a->compare, compare, esz < 16 ? esz : 16);
	memcpy(a->want, a->init, o->amo_n * esz);
	ses_amo_model_exec(o->amo_op, o->amo_dt, a->want, a->operand, compare,
			   NULL, o->amo_n);
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
	dst_amo_prepare(&s->rng, o, s->plan->gen, op->amo);
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
 * other keys: not judged); generator 3 judges every operation so (its
 * profiles, tables and memory going off refuse any). */
void
dst_model_checks(struct dst_sim *s, uint32_t j)
{
	const struct dst_op_spec *o = &s->plan->op[j];
	struct dst_op *op = &s->op[j];

	/* keys registered anew since: BAD_MKEY is right then */
	if ((!dst_op_modelled(o) && s->plan->gen < 3) ||
	    op->dst_inc != s->node[o->dst].inc ||
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
	bool done = ses_amo_model_same(o->amo_dt, t, op->amo->want, o->amo_n);
	bool untouched = ses_amo_model_same(o->amo_dt, t, op->amo->init,
					    o->amo_n);

	/* a refusal predicted by the table being off holds for requests
	 * that arrived then; a transport failure may hide a late one */
	if (op->state == DST_S_OK ? done :
	    (op->want != 0 && !op->want_off) || semantic(op->status) ?
	    untouched : done || untouched)
		return;
	dst_fail(s, "atomic-model", "op %u %s %s/%s x%u (%s %d): the target "
		 "holds %s", j, dst_op_name(o->kind),
		 uet_wire_amo_op_name(o->amo_op), uet_wire_amo_dt_name(o->amo_dt),
		 o->amo_n, op->state == DST_S_OK ? "ok" : "failed",
		 op->status, done ? "the result" : untouched ?
		 "its initial values" : "neither the result nor its initial "
		 "values");
}
