/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ACK generation of the receive side of a PDC (UEC 1.0 PDS ACK
 * generation): coalescing, ACK / ACK_CC with SACK, CLOSE_REQ and
 * CLEAR_REQ, and the receive-side timers (delayed ACK, clear and close
 * requests when quiet).
 */

#include "pds_private.h"

void
pds_target_want_ack(struct uet_pds *p, struct pds_pdc *c)
{
	c->u.t.ackf |= ACKF_NEED;
	pds_list_push(p, &p->acks, pds_idx(p, c));
}

void
pds_target_ack_kick(struct uet_pds *p, struct pds_pdc *c)
{
	if (c->u.t.ackf & ACKF_NEED)
		pds_list_push(p, &p->acks, pds_idx(p, c));
}

static void pds_target_ack_fill(struct uet_pds *p, struct pds_pdc *c,
			     struct uet_pds_tx *tx);
static void pds_target_cc_nscc(struct uet_pds *p, struct pds_pdc *c,
			    struct uet_wire_pds_ack *a);
static uint32_t pds_target_credit_units(const struct pds_target *t);

/*
 * An ACK for the threshold is built at once, with the CACK and SACK of
 * this moment, instead of waiting on the ACK list for the next transmit
 * burst: when a burst arrives between two transmit opportunities, every
 * 16 KiB trigger gets its own ACK. Collapsed into one, an ACK of a burst
 * longer than the 64-PSN bitmap would leave the sender without
 * information on most of it. false: left to the ACK list (a closed PDC
 * holds its last ACK, pds_target_ack_tx; or no room).
 */
static bool
pds_target_ack_now(struct uet_pds *p, struct pds_pdc *c)
{
	struct uet_pds_tx *tx;

	if (c->state == PDC_CLOSED || (tx = pds_ctl_push(p)) == NULL)
		return false;
	pds_target_ack_fill(p, c, tx);
	return true;
}

/*
 * The EV an ACK echoes and its M flag must be about the same packet
 * (UEC 1.0 3.6.16: the sender charges a mark to the path of the echoed
 * EV). An ACK pending with M is therefore sent before an arrival of
 * another EV takes over the echo: a mark is never coalesced with a
 * later arrival of another path. (A pending ACK without M may take the
 * EV of a marked arrival: the mark then goes with its own EV.) No room
 * to send it now (ctl ring full, CLOSED PDC holding its ACK): the marked
 * EV keeps the echo, the new arrival's EV only misses one recycling.
 */
void
pds_target_ev_set(struct uet_pds *p, struct pds_pdc *c,
	       const struct uet_pds_rx_meta *m)
{
	struct pds_target *t = &c->u.t;

	if (m->ev != t->ev && (t->ackf & ACKF_M)) {
		p->st.ack_ev_split++;
		if (!pds_target_ack_now(p, c))
			return;
	}
	t->ev = m->ev;
}

/* UEC 1.0 PDS ACK generation: credit max(1 KiB, len); ACK at the
 * threshold, on AR, RETX, CE, or the first packet of the PDC. */
void
pds_target_ack_policy(struct uet_pds *p, struct pds_pdc *c, uint8_t flags,
		   const struct uet_pds_rx_meta *m, uint64_t now)
{
	struct pds_target *t = &c->u.t;
	uint32_t len = m->len;

	/* The delayed ACK is bounded from the first coalesced arrival. */
	if (t->ack_credit == 0)
		t->ack_ns = now;
	t->ack_credit += len > p->cfg.ack_min_bytes ? len : p->cfg.ack_min_bytes;
	if (m->ce)
		t->ackf |= ACKF_M;
	/* The ACK's RETX echoes the ACK_PSN packet's, this one (UEC 1.0
	 * 3.6.13.1): the source takes an RTT sample of a packet resent
	 * once only when RETX is echoed, so a RETX left by an earlier
	 * packet made it time the original's ACK from the resend. */
	if (flags & UET_PDS_F_RETX)
		t->ackf |= ACKF_RETX;
	else
		t->ackf &= (uint8_t)~ACKF_RETX;
	if (t->ack_credit >= p->cfg.ack_threshold && pds_target_ack_now(p, c))
		return;
	if ((flags & (UET_PDS_F_AR | UET_PDS_F_RETX)) || m->ce ||
	    t->ack_credit >= p->cfg.ack_threshold || (t->ackf & ACKF_NEED))
		pds_target_want_ack(p, c);
	else
		p->st.acks_coalesced++;
}

/* ---- ACK generation ---- */

/* SACK base: a PROBE names the base it wants reported (UEC 1.0 PDS control
 * packets); a duplicate above the CACK, from the lowest one since the
 * last ACK: its sender resends it because no ACK told it was in (while
 * the CACK is held, below a stored response or a hole, the bitmap of the
 * newest arrivals leaves a stretch between the two that no ACK covers,
 * and its packets were resent every RTO for good: uet-dst seed 41436383
 * of generator 7); otherwise cover the newest arrivals when they run
 * past 64 PSNs. */
static uint32_t
pds_target_sack_base(struct uet_pds *p, const struct pds_pdc *c, uint32_t cack,
		  bool probe)
{
	const struct pds_target *t = &c->u.t;
	uint32_t base = cack + 1;

	if (probe) {
		if (t->probe_base - base < p->cfg.rx_window)
			base = t->probe_base;
	} else if (t->dup_want && t->probe_base - base < p->cfg.rx_window) {
		base = t->probe_base;
	} else if (uet_psn_gt(t->hi, base + 63)) {
		base = t->hi - 63;
	}
	return base;
}

/* Received: at or below the real CACK, or its bit is set. */
static bool
pds_target_has(struct uet_pds *p, const struct pds_pdc *c, uint32_t psn)
{
	const struct pds_target *t = &c->u.t;

	if (uet_psn_le(psn, t->cack))
		return true;
	return c->rblk != PDS_NIL && uet_psn_le(psn, t->hi) &&
	       pds_rx_bit_test(p, c, psn);
}

/* @p cack is the reported one (pds_target_cack_report): held below a stored
 * response, the bitmap starts right after it and tells what is in. */
static void
pds_target_sack(struct uet_pds *p, const struct pds_pdc *c, struct uet_wire_pds_ack *a,
	     uint32_t cack, bool probe)
{
	uint32_t base = pds_target_sack_base(p, c, cack, probe), i;
	uint64_t bm = 0;

	for (i = 0; i < UET_PSN_SACK_BITS; i++)
		if (pds_target_has(p, c, base + i))
			bm |= UINT64_C(1) << i;
	a->mpr = (uint8_t)__builtin_ctz(p->cfg.rx_window);
	a->sack_psn_offset = (int16_t)(base - cack);
	a->sack_bitmap = bm;
}

/*
 * A response rides in its own ACK (pds_target.c); while the receive side has
 * holes that ACK is an ACK_CC with the SACK bitmap, so the sender keeps
 * learning which PSNs are missing from every ACK, not only from the
 * coalesced ones (a plain ACK says nothing past CACK).
 */
void
pds_target_resp_sack(struct uet_pds *p, struct pds_pdc *c,
		  struct uet_pds_tx *tx)
{
	struct uet_wire_pds_ack *a = &tx->hdr.u.ack;

	if (c->u.t.nbits == 0 && !p->cfg.ack_cc_always &&
	    p->cc->ack_state == NULL)
		return;
	tx->hdr.type = UET_PDS_TYPE_ACK_CC;
	pds_target_sack(p, c, a, a->cack_psn, false);
	a->cc_type = UET_CC_TYPE_NSCC;
	pds_target_cc_nscc(p, c, a);
}

/* Out-of-order count of ACK_CC (both cc_types): packets received beyond
 * the cumulative ACK now, as htsim's receiver reports it for its
 * sender's loss detection. */
static uint16_t
pds_target_ooo(const struct pds_target *t)
{
	return t->nbits;
}

/*
 * ACK_CC cc_type NSCC (UEC 1.0 section 3.6.13.9): rcvd_bytes is the
 * cumulative nominal bytes of the PDC's new untrimmed packets, in 256 B
 * units rounded up, modulo 2^24, and service_time runs from the arrival
 * of the ACK_PSN packet to now, whatever CC this end runs; the CC adds
 * its receiver state (penalty, rc) when it keeps one. When that arrival
 * is not known (an ACK_REQ named an older PSN), service_time saturates,
 * which the sender takes for "no RTT sample" (uet_nscc_rtt_sample()).
 */
static void
pds_target_cc_nscc(struct uet_pds *p, struct pds_pdc *c, struct uet_wire_pds_ack *a)
{
	uint64_t svc = c->u.t.rx_unknown ? UINT64_MAX :
		(uint32_t)((uint32_t)p->cc_now - c->u.t.rx_ns);
	uint64_t units = svc / UET_NSCC_SERVICE_UNIT_NS;

	if (p->cc->ack_state != NULL)
		p->cc->ack_state(p->cc_inst, pds_cc_priv(p, c), svc,
				 &a->cc.nscc);
	a->cc.nscc.service_time = units > UINT16_MAX ? UINT16_MAX :
		(uint16_t)units;
	a->cc.nscc.rcvd_bytes = (uint32_t)(((uint64_t)c->u.t.rcvd_bytes +
					    255) >> 8) & UET_PDS_U24_MAX;
	a->cc.nscc.ooo_count = pds_target_ooo(&c->u.t);
}

/* ack_cc_state (UEC 1.0 PDS header formats): a pending credit grant makes it
 * cc_type CREDIT (UEC 1.0 RCCC), otherwise NSCC. */
static void
pds_target_cc_state(struct uet_pds *p, struct pds_pdc *c, struct uet_wire_pds_ack *a)
{
	struct pds_target *t = &c->u.t;

	if (t->ackf & ACKF_CREDIT) {
		a->cc_type = UET_CC_TYPE_CREDIT;
		a->cc.credit.credit = pds_target_credit_units(t);
		a->cc.credit.ooo_count = pds_target_ooo(t);
		return;
	}
	a->cc_type = UET_CC_TYPE_NSCC;
	pds_target_cc_nscc(p, c, a);
}

/* The ACK of a CLOSE of a PDC of a secure domain (syn_expected) carries
 * the domain's Expected_PSN (UET_PDS_F_EPSN), which only a plain ACK can:
 * one when nothing needs the bitmap (every PSN in, nothing held), the CC
 * state of the last ACK of a PDC its initiator frees being of no use. */
static void
pds_target_ack_epsn(struct uet_pds *p, const struct pds_pdc *c,
		    struct uet_pds_tx *tx)
{
	uint32_t e;

	if (c->u.t.nbits != 0 || (c->u.t.ackf & ACKF_PROBE) ||
	    pds_target_cack_report(p, c) != c->u.t.cack ||
	    !pds_sdom_close_epsn(p, c, &e))
		return;
	tx->hdr.type = UET_PDS_TYPE_ACK;
	tx->hdr.flags |= UET_PDS_F_EPSN;
	tx->hdr.u.ack.expected_psn = e;
}

static void
pds_target_ack_fill(struct uet_pds *p, struct pds_pdc *c, struct uet_pds_tx *tx)
{
	struct pds_target *t = &c->u.t;
	struct uet_wire_pds_ack *a = &tx->hdr.u.ack;
	uint32_t cack = pds_target_cack_report(p, c);
	int32_t off = uet_psn_diff(t->ack_psn, cack);
	bool probe = (t->ackf & ACKF_PROBE) != 0;

	memset(tx, 0, sizeof(*tx));
	tx->kind = UET_PDS_TX_CTL;
	tx->dst = c->peer;
	tx->ev = t->ev;
	/* A held CACK needs the bitmap to report what lies past it. */
	tx->hdr.type = (t->nbits || probe || (t->ackf & ACKF_CREDIT) ||
			cack != t->cack || p->cfg.ack_cc_always ||
			p->cc->ack_state != NULL) ?
		UET_PDS_TYPE_ACK_CC : UET_PDS_TYPE_ACK;
	if (t->ackf & ACKF_M)
		tx->hdr.flags |= UET_PDS_F_M;
	if (t->ackf & ACKF_RETX)
		tx->hdr.flags |= UET_PDS_F_RETX;
	if (c->role == PDS_ROLE_TGT && c->state == PDC_CLOSING)
		uet_wire_pds_ack_req_set(&tx->hdr, UET_PDS_ACK_REQ_CLOSE);
	if (probe) {
		/* UEC 1.0 PDS flags, PDS header formats: P flag, probe_opaque
		 * echoed in place of ack_psn_offset. */
		tx->hdr.flags |= UET_PDS_F_P;
		a->probe_opaque = t->probe_opaque;
	} else if (off >= INT16_MIN && off <= INT16_MAX) {
		a->ack_psn_offset = (int16_t)off;
	}
	a->cack_psn = cack;
	a->spdcid = c->lid;
	a->dpdcid = c->rid;
	if (c->role == PDS_ROLE_TGT && c->state == PDC_CLOSED &&
	    c->u.t.sdom != 0)
		pds_target_ack_epsn(p, c, tx);
	if (tx->hdr.type == UET_PDS_TYPE_ACK_CC) {
		pds_target_sack(p, c, a, cack, probe);
		pds_target_cc_state(p, c, a);
	}
	t->ackf &= (uint8_t)~(ACKF_NEED | ACKF_M | ACKF_RETX | ACKF_PROBE |
			      ACKF_CREDIT);
	t->dup_want = false;
	t->ack_credit = 0;
}

/* Receiver-to-sender CPs: unreliable, they consume no PSN (pds.c). */
static void
pds_target_cp_fill(struct pds_pdc *c, struct uet_pds_tx *tx, uint8_t ctl,
		uint32_t payload)
{
	memset(tx, 0, sizeof(*tx));
	tx->kind = UET_PDS_TX_CTL;
	tx->dst = c->peer;
	tx->ev = c->u.t.ev;
	tx->hdr.type = UET_PDS_TYPE_CP;
	tx->hdr.next_hdr = ctl;
	if (c->mode == UET_PDS_MODE_ROD)
		tx->hdr.flags = UET_PDS_F_ISROD;
	tx->hdr.u.cp.spdcid = c->lid;
	tx->hdr.u.cp.dpdcid = c->rid;
	tx->hdr.u.cp.payload = payload;
}

/*
 * CLEAR_REQ carries the PSN to clear (UEC 1.0 PDS control packets, PDS
 * behaviour): that of the newest stored response already sent, which the
 * initiator can have; CACK when none was sent yet (rare path: once per
 * high-water crossing).
 */
static uint32_t
pds_target_clear_req_psn(const struct uet_pds *p, const struct pds_pdc *c)
{
	uint32_t r, psn = c->u.t.cack;

	for (r = c->resp; r != PDS_NIL; r = p->resp[r].next)
		if (p->resp[r].ready)
			psn = p->resp[r].psn;
	return psn;
}

/* A pending CLOSE_REQ or CLEAR_REQ CP; false when none. */
static bool
pds_target_req_tx(struct uet_pds *p, struct pds_pdc *c, struct uet_pds_tx *tx)
{
	struct pds_target *t = &c->u.t;

	if (t->ackf & ACKF_CLOSE_REQ) {
		pds_target_cp_fill(c, tx, UET_PDS_CTL_CLOSE_REQ, 0);
		t->ackf &= (uint8_t)~ACKF_CLOSE_REQ;
		if (t->close_reqs < UINT8_MAX)
			t->close_reqs++;
	} else if (t->ackf & ACKF_CLEAR_REQ) {
		pds_target_cp_fill(c, tx, UET_PDS_CTL_CLEAR_REQ,
				pds_target_clear_req_psn(p, c));
		t->ackf &= (uint8_t)~ACKF_CLEAR_REQ;
		p->st.clear_req_tx++;
	} else {
		return false;
	}
	if (t->ackf & (ACKF_NEED | ACKF_CLEAR_REQ))
		pds_list_push(p, &p->acks, pds_idx(p, c));
	return true;
}

/* Credit field of ACK_CC cc_type CREDIT and CREDIT CPs: the cumulative
 * credit granted to the PDC, 256 B units modulo 2^24 (htsim's pull
 * number), so that the next grant makes up for a lost one. */
static uint32_t
pds_target_credit_units(const struct pds_target *t)
{
	return (t->credit >> 8) & UET_PDS_U24_MAX;
}

/* Grant @p bytes (whole 256 B units): in a CREDIT CP when the source
 * asked by CP, else in the next ACK_CC, cc_type CREDIT. */
static void
pds_target_credit_add(struct uet_pds *p, struct pds_pdc *c, uint32_t bytes)
{
	struct uet_pds_tx *t;

	/* Exact: grants of one packet are not whole units; the field
	 * carries the total rounded down, and the next grant makes up. */
	c->u.t.credit += bytes; /* modulo 2^32 */
	if ((c->u.t.ackf & ACKF_CREDIT_CP) && c->state != PDC_CLOSED &&
	    (t = pds_ctl_push(p)) != NULL) {
		pds_target_cp_fill(c, t, UET_PDS_CTL_CREDIT,
				pds_target_credit_units(&c->u.t));
		p->st.credit_cp_tx++;
		return;
	}
	c->u.t.ackf |= ACKF_CREDIT;
	pds_target_want_ack(p, c);
}

/*
 * UEC 1.0 RCCC: the peer asked for credit, in a request of @p bytes
 * (nominal; 0: a CREDIT_REQ CP). The CC grants what it can; a grant
 * answers a CREDIT_REQ CP with a CREDIT CP (payload in 256 B units), and
 * a CC request with credit in the ACK_CC it triggers.
 */
void
pds_target_credit_request(struct uet_pds *p, struct pds_pdc *c, uint32_t target,
		       uint32_t bytes, uint64_t now)
{
	uint32_t grant = 0;
	bool cp = bytes == 0;

	/* A source asking by CP has no data in flight to carry grants
	 * back in ACKs: the pacer's grants go in CREDIT CPs until it asks
	 * in a request again. */
	if (cp)
		c->u.t.ackf |= ACKF_CREDIT_CP;
	else
		c->u.t.ackf &= (uint8_t)~ACKF_CREDIT_CP;
	if (p->cc->on_credit_request == NULL)
		return;
	grant = p->cc->on_credit_request(p->cc_inst, pds_cc_priv(p, c),
					 target, bytes, now);
	if (grant != 0) {
		pds_target_credit_add(p, c, grant);
	} else if (cp && c->u.t.credit != 0 &&
		   (int32_t)(target - c->u.t.credit) <= 0) {
		/* A blocked source asks for no more than it was granted in
		 * all: grants were lost (an ACK_CC on a dead path), and the
		 * pacer, at the target, grants nothing more. Repeat the
		 * cumulative total in a CREDIT CP, or the source crawls one
		 * forced packet per round trip (7 ms for 2 MiB after a spine
		 * link failed). Not on a data request: there a target below
		 * the total only means grants on their way, and an ACK_CC
		 * of cc_type CREDIT would displace NSCC's state. */
		pds_target_credit_add(p, c, 0);
	}
}

/* A grant of the CC's pull pacer (UEC 1.0 RCCC) for @p c. */
void
pds_target_credit_grant(struct uet_pds *p, struct pds_pdc *c, uint32_t bytes)
{
	pds_target_credit_add(p, c, bytes);
}

bool
pds_target_ack_tx(struct uet_pds *p, struct pds_pdc *c, uint64_t now,
	       struct uet_pds_tx *tx)
{
	bool closed = c->role == PDS_ROLE_TGT && c->state == PDC_CLOSED;

	if (c->state == PDC_FREE)
		return false;
	/* Hold the ACK of CLOSE while return data is unacknowledged, or
	 * still to be handed over by the SES (a READ's data waiting behind
	 * other records keeps the PDC locked, uet_pds_pdc_lock): the
	 * initiator keeps its PDC (and ACKs) until it gets it. Acknowledged
	 * at once, the CLOSE freed the PDC under data not sent yet, and the
	 * READ's initiator, its PDC closed cleanly, waited for it for good
	 * (uet-dst generator 1 seed 14553283). */
	if (closed && (c->u.i.una != c->u.i.nxt || c->u.i.locks != 0))
		return false;
	if (pds_target_req_tx(p, c, tx)) {
		pds_pdc_timer_update(p, c, now); /* CLOSE_REQ repeat */
		return true;
	}
	if (!(c->u.t.ackf & ACKF_NEED))
		return false;
	pds_target_ack_fill(p, c, tx);
	if (closed) {
		pds_pdc_free(p, c);
		return true;
	}
	pds_pdc_timer_update(p, c, now);
	return true;
}

/* ---- timers: delayed ACK, clear and close requests when quiet ---- */

/*
 * Close request (UEC 1.0 PDS PDC close): an idle target PDC (nothing
 * received for tgt_close_req_ns, no return data outstanding) asks the
 * initiator to close it. A live initiator answers with a CLOSE once it is
 * idle itself; until then every packet it sends postpones the next step.
 * Unanswered, CLOSE_REQ is repeated after rto_init_ns, doubling, and
 * after max_retries repeats the PDC is given up: the initiator is gone or
 * never had it (a PDC opened by a late duplicate SYN whose own tombstone
 * was overwritten). It is freed with NACK CLOSING_IN_ERR, which fails the
 * initiator's PDC should it still exist.
 */
static uint64_t
pds_target_close_deadline(struct uet_pds *p, const struct pds_pdc *c)
{
	unsigned int k = c->u.t.close_reqs;

	if (c->role != PDS_ROLE_TGT || c->u.i.una != c->u.i.nxt)
		return 0;
	/* Locked: the SES still owes return data on it (lock_pdc). */
	if (c->state == PDC_OPEN && p->cfg.tgt_close_req_ns)
		return c->u.i.locks ? 0 :
				      c->last_ns + p->cfg.tgt_close_req_ns;
	if (c->state != PDC_CLOSING || k == 0)
		return 0; /* the first CLOSE_REQ has not left yet */
	return c->last_ns + pds_backoff_ns(p, k - 1);
}

/*
 * Answered responses still stored after a quiet spell (UEC 1.0 PDS
 * guaranteed delivery): CLEAR is an unreliable CP (pds_initiator_ctl.c), so a
 * target PDC whose oldest stored response has been sent and that received
 * nothing for rto_init_ns asks with CLEAR_REQ, again after twice as long,
 * at most max_retries times until a CLEAR frees something (pds_target.c).
 * 0: none due.
 */
static uint64_t
pds_target_clear_deadline(struct uet_pds *p, const struct pds_pdc *c)
{
	if (c->role != PDS_ROLE_TGT || c->state != PDC_OPEN ||
	    c->resp == PDS_NIL || !p->resp[c->resp].ready ||
	    c->u.t.clear_reqs >= p->cfg.max_retries)
		return 0;
	return c->last_ns + pds_backoff_ns(p, c->u.t.clear_reqs);
}

uint64_t
pds_target_deadline(struct uet_pds *p, const struct pds_pdc *c)
{
	uint64_t close, clear;

	if (c->u.t.ack_credit && p->cfg.ack_delay_ns)
		return c->u.t.ack_ns + p->cfg.ack_delay_ns;
	close = pds_target_close_deadline(p, c);
	clear = pds_target_clear_deadline(p, c);
	if (close == 0 || (clear != 0 && clear < close))
		return clear;
	return close;
}

static void
pds_target_close_giveup(struct uet_pds *p, struct pds_pdc *c)
{
	p->st.close_req_giveup++;
	pds_nack_tx(p, &c->peer, c->u.t.ev, UET_NACK_CLOSING_IN_ERR,
		    c->u.i.nxt, c->lid, c->rid, 0);
	pds_pdc_free(p, c);
}

static void
pds_target_close_step(struct uet_pds *p, struct pds_pdc *c, uint64_t now)
{
	if (c->state == PDC_OPEN) {
		pds_target_close_req(p, c, now);
		return;
	}
	if (c->u.t.close_reqs > p->cfg.max_retries) {
		pds_target_close_giveup(p, c);
		return;
	}
	c->last_ns = now;
	c->u.t.ackf |= ACKF_CLOSE_REQ;
	pds_list_push(p, &p->acks, pds_idx(p, c));
}

void
pds_target_timer(struct uet_pds *p, struct pds_pdc *c, uint64_t now)
{
	uint64_t d = pds_target_deadline(p, c);

	if (d != 0 && now >= d) {
		if (c->u.t.ack_credit) {
			pds_target_want_ack(p, c);
		} else if (d == pds_target_clear_deadline(p, c)) {
			c->u.t.clear_reqs++;
			c->u.t.ackf |= ACKF_CLEAR_REQ;
			pds_list_push(p, &p->acks, pds_idx(p, c));
		} else {
			pds_target_close_step(p, c, now);
			if (c->state == PDC_FREE)
				return;
		}
	}
	pds_pdc_timer_update(p, c, now);
}

void
pds_target_close_req(struct uet_pds *p, struct pds_pdc *c, uint64_t now)
{
	if (c->state != PDC_OPEN)
		return;
	/* UEC 1.0 PDC close: the target asks with CLOSE_REQ (and REQ=CLOSE
	 * in its ACKs); new requests get NACK CLOSING. */
	c->state = PDC_CLOSING;
	c->last_ns = now;
	c->u.t.ackf |= ACKF_CLOSE_REQ;
	pds_list_push(p, &p->acks, pds_idx(p, c));
}
