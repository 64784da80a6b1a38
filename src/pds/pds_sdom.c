/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Secure PDC establishment by Expected_PSN (uet_pds_config.syn_expected:
 * TSS's EXPECTED_0RTT_START, docs/TSS.md; the ACK's EPSN,
 * docs/WIRE-DECISIONS.md).
 *
 * Target: each secure domain has an Expected_PSN. A target PDC of the
 * domain that goes (closed, failed, replaced) moves it past every PSN the
 * PDC used in either direction, and the ACK of a close carries it. A SYN
 * of the domain that an id has no record of opens a PDC at once when its
 * Start_PSN is at or after the Expected_PSN (serial order), and is refused
 * below it, naming a Start_PSN (pds_target_syn): an authentic SYN of a
 * PDC that went, replayed, never opens one again.
 *
 * Initiator: the Expected_PSN an ACK of our CLOSE carries is the domain's
 * floor for our next Start_PSNs, so they open at once.
 */

#include "pds_private.h"

/* Past a PDC's highest PSN, and between two Start_PSNs of ours at the
 * floor: a whole PSN window of any size, as between two Start_PSNs an
 * initiator of ours picks (pds_start_psn). */
#define SDOM_GAP 65536u

static bool
pds_sdom_ok(const struct uet_pds *p, uint8_t d)
{
	return p->cfg.syn_expected && d != 0 && d <= UET_PDS_SDOM_MAX;
}

/* The secure domain of our PDCs of JobID @p job, 0: none. */
static uint8_t
pds_sdom_of_job(const struct uet_pds *p, uint32_t job)
{
	uint8_t d;

	if (!p->cfg.syn_expected || p->cfg.sdom_of == NULL)
		return 0;
	d = p->cfg.sdom_of(p->cfg.sdom_arg, job);
	return pds_sdom_ok(p, d) ? d : 0;
}

/* A new initiator PDC's Start_PSN: our pick when at or after the domain's
 * floor, else the floor, which then moves on (a PDC of ours that opened
 * there and failed moved no target's Expected_PSN). */
uint32_t
pds_start_psn_job(struct uet_pds *p, uint32_t job)
{
	uint32_t s = pds_start_psn(p), f;
	uint8_t d = pds_sdom_of_job(p, job);

	if (d == 0 || !(p->sdom_floor_set & 1u << d))
		return s;
	f = p->sdom_floor[d];
	if (uet_psn_diff(s, f) >= 0)
		return s;
	p->sdom_floor[d] = f + SDOM_GAP;
	return f;
}

/* An ACK with UET_PDS_F_EPSN for initiator PDC @p c: taken as its domain's
 * floor when it acknowledges our CLOSE (the only ACK a target of the
 * method sends it in) and is later than the floor. */
void
pds_sdom_learn(struct uet_pds *p, const struct pds_pdc *c,
	       const struct uet_wire_pds_hdr *h)
{
	uint32_t e = h->u.ack.expected_psn;
	uint8_t d = pds_sdom_of_job(p, c->job);

	if (d == 0 || c->role != PDS_ROLE_INIT || c->state != PDC_CLOSING) {
		p->st.epsn_ignored++;
		return;
	}
	p->st.epsn_rx++;
	if ((p->sdom_floor_set & 1u << d) &&
	    uet_psn_diff(e, p->sdom_floor[d]) <= 0)
		return;
	p->sdom_floor[d] = e;
	p->sdom_floor_set |= 1u << d;
}

/* Target PDC @p c goes: its domain's Expected_PSN passes every PSN it
 * used (both PSN spaces start at its Start_PSN; pds_pdc_psn_init). Called
 * again for the same PDC, it moves nothing more. */
void
pds_sdom_retire(struct uet_pds *p, const struct pds_pdc *c)
{
	uint8_t d = c->u.t.sdom;
	uint32_t hi, e;

	if (!pds_sdom_ok(p, d))
		return;
	hi = uet_psn_max(uet_psn_max(c->u.t.hi, c->u.i.nxt - 1), c->start_psn);
	e = hi + SDOM_GAP;
	if ((p->sdom_exp_set & 1u << d) && uet_psn_diff(e, p->sdom_exp[d]) <= 0)
		return;
	p->sdom_exp[d] = e;
	p->sdom_exp_set |= 1u << d;
}

/* The Expected_PSN the ACK of @p c's CLOSE carries (true), moved past
 * @p c first. */
bool
pds_sdom_close_epsn(struct uet_pds *p, const struct pds_pdc *c, uint32_t *e)
{
	uint8_t d = c->u.t.sdom;

	if (!pds_sdom_ok(p, d))
		return false;
	pds_sdom_retire(p, c);
	*e = p->sdom_exp[d];
	p->st.epsn_tx++;
	return true;
}

/* A SYN of the secure domain of @p m, Start_PSN @p start, that its id has
 * no record for: before the domain's Expected_PSN, so refused. */
bool
pds_sdom_old(const struct uet_pds *p, const struct uet_pds_rx_meta *m,
	     uint32_t start)
{
	uint8_t d = m->sdom;

	return pds_sdom_ok(p, d) && (p->sdom_exp_set & 1u << d) &&
	       uet_psn_diff(start, p->sdom_exp[d]) < 0;
}
