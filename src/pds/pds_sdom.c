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
 *
 * DECISION (docs/WIRE-DECISIONS.md "Secure PDC establishment"): the
 * Expected_PSN, and so every Start_PSN an initiator takes from it, lies
 * in the half of the PSN space with bit 31 clear, and is ordered there
 * (serial order mod 2^31, sdom_diff). The other half is the Start_PSNs a
 * target of ours names (PDS_NAMED, pds_target_syn.c): a name of a
 * restarted target, or of one naming in a later interval, must be no
 * Start_PSN an initiator sent before, and an Expected_PSN moved 2^16 past
 * a named PDC was the name of a later interval (a held SYN of a floor
 * opened a PDC at the restarted target under a name it had just given
 * for that SYN's renumbered copy: an atomic executed twice). So a named
 * PDC moves no Expected_PSN (its SYN, replayed, has no record and is
 * refused: pds_sdom_old), and a SYN with bit 31 set opens no PDC without
 * a record.
 */

#include "pds_private.h"

/* Past a PDC's highest PSN, and between two Start_PSNs of ours at the
 * floor: a whole PSN window of any size, as between two Start_PSNs an
 * initiator of ours picks (pds_start_psn). */
#define SDOM_GAP 65536u

/* Serial order of two Start_PSNs of the Expected_PSN's half (bit 31 clear)
 * mod 2^31; of any other (a target of another vendor's), mod 2^32. */
static int32_t
sdom_diff(uint32_t a, uint32_t b)
{
	if ((a | b) & PDS_NAMED)
		return uet_psn_diff(a, b);
	return (int32_t)((a - b) << 1) >> 1;
}

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
	if (sdom_diff(s, f) >= 0)
		return s;
	p->sdom_floor[d] = f & PDS_NAMED ? f + SDOM_GAP :
			   (f + SDOM_GAP) & ~PDS_NAMED;
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
	    sdom_diff(e, p->sdom_floor[d]) <= 0)
		return;
	p->sdom_floor[d] = e;
	p->sdom_floor_set |= 1u << d;
}

/* Target PDC @p c goes: its domain's Expected_PSN passes every PSN it
 * used (both PSN spaces start at its Start_PSN; pds_pdc_psn_init), in the
 * Expected_PSN's half; a PDC opened under a name moves nothing (above).
 * Called again for the same PDC, it moves nothing more. */
void
pds_sdom_retire(struct uet_pds *p, const struct pds_pdc *c)
{
	uint8_t d = c->u.t.sdom;
	uint32_t hi, e;

	if (!pds_sdom_ok(p, d) || (c->start_psn & PDS_NAMED))
		return;
	hi = uet_psn_max(uet_psn_max(c->u.t.hi, c->u.i.nxt - 1), c->start_psn);
	e = (hi + SDOM_GAP) & ~PDS_NAMED;
	if ((p->sdom_exp_set & 1u << d) && sdom_diff(e, p->sdom_exp[d]) <= 0)
		return;
	p->sdom_exp[d] = e;
	p->sdom_exp_set |= 1u << d;
}

/* The Expected_PSN the ACK of @p c's CLOSE carries (true), moved past
 * @p c first; none while the domain has none (only named PDCs went). */
bool
pds_sdom_close_epsn(struct uet_pds *p, const struct pds_pdc *c, uint32_t *e)
{
	uint8_t d = c->u.t.sdom;

	if (!pds_sdom_ok(p, d))
		return false;
	pds_sdom_retire(p, c);
	if (!(p->sdom_exp_set & 1u << d))
		return false;
	*e = p->sdom_exp[d];
	p->st.epsn_tx++;
	return true;
}

/* A SYN of the secure domain of @p m, Start_PSN @p start, that its id has
 * no record for: before the domain's Expected_PSN, or in the names' half
 * (above), so refused. */
bool
pds_sdom_old(const struct uet_pds *p, const struct uet_pds_rx_meta *m,
	     uint32_t start)
{
	uint8_t d = m->sdom;

	return pds_sdom_ok(p, d) && (p->sdom_exp_set & 1u << d) &&
	       ((start & PDS_NAMED) || sdom_diff(start, p->sdom_exp[d]) < 0);
}
