/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The PDS side of load balancing (UEC 1.0 section 3.6.16): every packet
 * the transmit side of a PDC sends asks the CMS (src/cms/cms_lb.c) for its
 * entropy value, and the fate of those EVs goes back to it: ACKs and NACKs
 * echo the EV of the packet they answer, with its M flag; a packet presumed
 * lost (RTO, SACK) reports the EV it left on, kept in its transmit slot.
 *
 * DECISION: an ACK echoes the EV of the one packet that triggered it
 * (UEC 1.0 section 3.6.16) and reports only that one, although it may
 * acknowledge several (coalescing, 16 KiB by default): its round trip is
 * the only one known to work. Recycling the EVs of every packet an ACK
 * covers was tried: REPS explored less without failures, but it also
 * recycled EVs whose data got through while their ACKs' path was dead,
 * and a frozen PDC then resent on such an EV over and over (a flow of the
 * 16-host measurement in docs/CONGESTION.md took 15.8 ms instead of
 * 0.3 ms after a spine link failed).
 *
 * Datagrams (UUD, RUDI) have no PDC to keep feedback in. DECISION: single
 * path sends them on one EV per destination (a hash of the FA and the
 * seed); the spraying modes walk one oblivious order shared by every
 * datagram of this PDS (each EV once per round), retransmissions included.
 */

#include <rte_jhash.h>

#include "pds_private.h"

/* UEC: REPS state under 25 bytes per PDC; with the mode byte and the
 * other modes in the union the per-PDC load-balancing state is this. */
_Static_assert(sizeof(struct uet_cms_lb) <= 28, "load-balancing state");

/* Salts come from the seed, not from the PDS generator, so that the
 * Start_PSN sequence does not depend on the load-balancing mode. */
static uint32_t
pds_lb_salt(const struct uet_pds *p, uint64_t tweak)
{
	uint64_t x = p->cfg.seed ^ tweak * 0x9E3779B97F4A7C15ull;

	return (uint32_t)uet_rand_splitmix(&x);
}

void
pds_lb_create(struct uet_pds *p)
{
	struct uet_cms_lb_config dc = p->cfg.lb;

	dc.mode = p->cfg.lb.mode == UET_CMS_LB_SINGLE ? UET_CMS_LB_SINGLE :
							UET_CMS_LB_OBLIVIOUS;
	p->dg_lbc = dc;
	uet_cms_lb_init(&p->dg_lb, &p->dg_lbc, pds_lb_salt(p, 1), false);
	p->dg_salt = pds_lb_salt(p, 2);
}

/* A new PDC (either role: the target's return direction sends too); each
 * incarnation of an index gets its own salt. */
void
pds_lb_pdc_init(struct uet_pds *p, struct pds_pdc *c)
{
	uint64_t tweak = (uint64_t)pds_idx(p, c) << 16 | c->gen;

	uet_cms_lb_init(pds_lb(p, c), &p->cfg.lb, pds_lb_salt(p, tweak + 3),
			c->mode == UET_PDS_MODE_ROD);
}

uint16_t
pds_lb_next(struct uet_pds *p, struct pds_pdc *c, uint64_t now)
{
	struct uet_cms_lb *lb = pds_lb(p, c);
	/* Idle: nothing of this PDC is in flight (single path may move). */
	uint16_t ev = uet_cms_lb_next_ev(lb, &p->cfg.lb, now,
					 c->u.i.una == c->u.i.snd);

	/* Counted by what REPS did, not by its cache beforehand: frozen,
	 * it reuses a kept EV with the cache empty. */
	if (lb->mode == UET_CMS_LB_REPS) {
		if (uet_cms_lb_explored(lb))
			p->st.lb_explored++;
		else
			p->st.lb_recycled++;
	}
	return ev;
}

void
pds_lb_ack(struct uet_pds *p, struct pds_pdc *c, uint16_t ev, bool m,
	   uint64_t now)
{
	if (uet_cms_lb_on_ack(pds_lb(p, c), &p->cfg.lb, ev, m, now) < 0)
		p->st.lb_ev_foreign++;
}

void
pds_lb_nack(struct uet_pds *p, struct pds_pdc *c, uint16_t ev, uint8_t code,
	    bool m, uint64_t now)
{
	bool lasthop = code == UET_NACK_TRIMMED_LASTHOP;
	bool trimmed = lasthop || code == UET_NACK_TRIMMED;

	if (uet_cms_lb_on_nack(pds_lb(p, c), &p->cfg.lb, ev, trimmed,
			       lasthop, m, now) < 0)
		p->st.lb_ev_foreign++;
}

void
pds_lb_loss(struct uet_pds *p, struct pds_pdc *c, uint16_t ev, uint64_t now)
{
	struct uet_cms_lb *lb = pds_lb(p, c);
	bool frozen = uet_cms_lb_frozen(lb, &p->cfg.lb, now);

	if (uet_cms_lb_on_loss(lb, &p->cfg.lb, ev, now) < 0)
		return;
	if (!frozen && uet_cms_lb_frozen(lb, &p->cfg.lb, now))
		p->st.lb_freezes++;
}

uint16_t
pds_lb_dgram(struct uet_pds *p, const struct uet_pds_fa *dst, uint64_t now)
{
	const struct uet_cms_lb_config *c = &p->dg_lbc;

	if (c->mode == UET_CMS_LB_SINGLE)
		return (uint16_t)(c->ev_base +
				  rte_jhash(dst->addr, sizeof(dst->addr),
					    p->dg_salt) % c->ev_count);
	return uet_cms_lb_next_ev(&p->dg_lb, c, now, false);
}
