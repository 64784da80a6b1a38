/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fixed-window congestion gate: the default struct uet_pds_cc_ops, for
 * fabrics that need no congestion control and for tests. Send while
 * inflight + bytes <= cwnd (SES bytes); network signals are ignored.
 * NSCC and RCCC plug in through uet_pds_cc_cms (pds_cc_cms.c).
 */

#include "pds_private.h"

struct pds_cc_fixed {
	uint32_t cwnd;
};

_Static_assert(sizeof(struct pds_cc_fixed) <= UET_PDS_CC_PRIV_MAX,
	       "CC private state fits the PDC");

static void
pds_cc_fixed_init(void *inst, void *priv, const struct uet_pds_cc_pdc *pdc,
		  uint64_t now)
{
	struct pds_cc_fixed *f = priv;

	(void)inst;
	(void)now;
	f->cwnd = pdc->param > pdc->mtu ? pdc->param : pdc->mtu;
}

static bool
pds_cc_fixed_may_send(void *inst, const void *priv, uint32_t bytes,
		      uint32_t inflight)
{
	const struct pds_cc_fixed *f = priv;

	(void)inst;
	return (uint64_t)inflight + bytes <= f->cwnd;
}

static void
pds_cc_fixed_on_send(void *inst, void *priv, uint32_t bytes, bool retx,
		     uint64_t now)
{
	(void)inst;
	(void)priv;
	(void)bytes;
	(void)retx;
	(void)now;
}

static void
pds_cc_fixed_on_ack(void *inst, void *priv, const struct uet_pds_cc_ack *a,
		    uint64_t now)
{
	(void)inst;
	(void)priv;
	(void)a;
	(void)now;
}

static void
pds_cc_fixed_on_nack(void *inst, void *priv, uint32_t bytes, uint8_t code,
		     uint64_t now)
{
	(void)inst;
	(void)priv;
	(void)bytes;
	(void)code;
	(void)now;
}

static void
pds_cc_fixed_on_trim(void *inst, void *priv, uint32_t bytes, bool lasthop,
		     uint64_t now)
{
	(void)inst;
	(void)priv;
	(void)bytes;
	(void)lasthop;
	(void)now;
}

static void
pds_cc_fixed_on_loss(void *inst, void *priv, uint32_t bytes, uint64_t now)
{
	(void)inst;
	(void)priv;
	(void)bytes;
	(void)now;
}

static uint32_t
pds_cc_fixed_cwnd(void *inst, const void *priv)
{
	const struct pds_cc_fixed *f = priv;

	(void)inst;
	return f->cwnd;
}

const struct uet_pds_cc_ops uet_pds_cc_fixed = {
	.name = "fixed",
	.priv_size = sizeof(struct pds_cc_fixed),
	.init = pds_cc_fixed_init,
	.may_send = pds_cc_fixed_may_send,
	.on_send = pds_cc_fixed_on_send,
	.on_ack = pds_cc_fixed_on_ack,
	.on_nack = pds_cc_fixed_on_nack,
	.on_trim = pds_cc_fixed_on_trim,
	.on_loss = pds_cc_fixed_on_loss,
	.cwnd = pds_cc_fixed_cwnd,
};

/* ---- Calls into the CC from the PDS (struct uet_pds_cc_ops) ---- */

void
pds_cc_flush_loss(struct uet_pds *p, struct pds_pdc *c, uint64_t now)
{
	uint32_t b = pds_cc_take(p);

	if (b != 0)
		p->cc->on_loss(p->cc_inst, pds_cc_priv(p, c), b, now);
}

uint32_t
pds_cc_take(struct uet_pds *p)
{
	uint32_t b = p->cc_lost;

	p->cc_lost = 0;
	return b;
}

void
pds_cc_acked(struct uet_pds *p, struct pds_pdc *c, uint32_t bytes,
	     uint64_t now)
{
	struct uet_pds_cc_ack a = { .bytes = bytes };

	p->cc->on_ack(p->cc_inst, pds_cc_priv(p, c), &a, now);
}

void
pds_cc_nacked(struct uet_pds *p, struct pds_pdc *c, uint8_t code,
	      uint64_t now)
{
	uint32_t b = pds_cc_take(p);

	if (b != 0)
		p->cc->on_nack(p->cc_inst, pds_cc_priv(p, c), b, code, now);
}

/* Nominal bytes still in flight on @p c (told to the CC when it goes). */
uint32_t
pds_cc_inflight(struct uet_pds *p, struct pds_pdc *c)
{
	const struct pds_slot *sl;
	uint64_t b = 0;
	uint32_t psn;

	if (c->tblk == PDS_NIL)
		return 0;
	for (psn = c->u.i.una; psn != c->u.i.snd; psn++) {
		sl = pds_slot(p, c, psn);
		if (sl->state == SLOT_SENT)
			b += pds_nominal(sl);
	}
	return b > UINT32_MAX ? UINT32_MAX : (uint32_t)b;
}

/* Grants per call at most: a late call catches up one grant in the
 * pacer anyway (uet_rccc_pacer_poll), this only bounds the loop. */
#define PDS_CC_GRANTS_MAX 64

void
pds_cc_grants(struct uet_pds *p, uint64_t now)
{
	uint32_t idx, bytes, k;
	struct pds_pdc *c;

	if (p->cc->poll_grant == NULL)
		return;
	for (k = 0; k < PDS_CC_GRANTS_MAX &&
	     p->cc->poll_grant(p->cc_inst, now, &idx, &bytes) == 1; k++) {
		if (idx >= 2 * p->cap)
			continue;
		c = &p->pdc[idx];
		if (c->state != PDC_FREE && c->state != PDC_CLOSED)
			pds_target_credit_grant(p, c, bytes);
	}
}
