/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Initiator control traffic beside the request stream (UEC 1.0 PDS control
 * packets, tail-loss probe, NACK codes, RCCC): the tail-loss PROBE and the
 * precise retransmission its reply allows, the CLEAR CP and the probe of the
 * receiver's MP_Range, the re-establishment ordered by NACK NEW_START_PSN,
 * resource back-off, and credit requests of a credit-based CC.
 */

#include "pds_private.h"

/* The PROBE CP itself; its P-flag reply echoes probe_opaque. */
static void
pds_initiator_probe_fill(struct uet_pds *p, struct pds_pdc *c,
		    struct uet_pds_tx *t, uint64_t now)
{
	struct pds_initiator *i = &c->u.i;

	t->hdr.type = UET_PDS_TYPE_CP;
	t->hdr.next_hdr = UET_PDS_CTL_PROBE;
	t->hdr.flags = UET_PDS_F_AR;
	if (c->mode == UET_PDS_MODE_ROD)
		t->hdr.flags |= UET_PDS_F_ISROD;
	t->hdr.u.cp.probe_opaque = ++i->probe_id;
	t->hdr.u.cp.psn = i->snd;
	t->hdr.u.cp.spdcid = c->lid;
	t->hdr.u.cp.dpdcid = c->rid;
	t->hdr.u.cp.payload = i->una;
	t->dst = c->peer;
	t->ev = pds_lb_next(p, c, now);
	i->probe_psn = i->snd;
	i->probe_ns = now;
}

/*
 * UEC 1.0 PDS tail-loss probe. On an established PDC the probe is a
 * PROBE CP (UEC 1.0 PDS control packets): it consumes no PSN (pds.c),
 * asks for the SACK from una (payload) and is answered at once by a P-flag
 * ACK_CC with the receiver's CACK and SACK. With PROBE disabled it is an
 * ACK_REQ CP (pds_initiator_ack_req). A SYN-state PDC has no dpdcid to name and
 * the return direction sends no CPs (pds.c): both resend their newest
 * packet instead (pds_initiator.c). false: no PROBE was sent.
 */
bool
pds_initiator_probe(struct uet_pds *p, struct pds_pdc *c, uint64_t now)
{
	struct uet_pds_tx *t;

	if (!p->cfg.tlp_probe || c->role != PDS_ROLE_INIT ||
	    c->state != PDC_OPEN || (t = pds_ctl_push(p)) == NULL)
		return false;
	pds_initiator_probe_fill(p, c, t, now);
	/* A tail-loss probe supersedes a CC probe still out: its reply
	 * (same probe_id counter) is no clean RTT sample any more. */
	c->flags = (uint16_t)((c->flags | PDC_F_PROBE) & ~PDC_F_CCPROBE);
	return true;
}

/*
 * UEC 1.0 NSCC: after the first feedback the CC asks once for a PROBE in
 * the control class to sample the base RTT. Same PROBE CP as the
 * tail-loss probe, but its reply repairs nothing: data sent before it may
 * still be queued behind it. Only on an established initiator PDC
 * without a PROBE out (the return direction sends no CPs).
 */
void
pds_initiator_cc_probe(struct uet_pds *p, struct pds_pdc *c, uint64_t now)
{
	struct uet_pds_tx *t;

	if (p->cc->probe_due == NULL || c->role != PDS_ROLE_INIT ||
	    c->state != PDC_OPEN ||
	    (c->flags & (PDC_F_PROBE | PDC_F_CCPROBE)) ||
	    !p->cc->probe_due(p->cc_inst, pds_cc_priv(p, c)) ||
	    (t = pds_ctl_push(p)) == NULL)
		return;
	pds_initiator_probe_fill(p, c, t, now);
	c->flags |= PDC_F_CCPROBE;
}

/*
 * ACK_REQ CP (UEC 1.0 PDS control packets): asks for the ACK of one PSN,
 * named in its psn field; it consumes none. The receiver ACKs that PSN if
 * it has it and NACKs PKT_NOT_RCVD otherwise, which resends it
 * (pds_ack.c). We ask for the newest PSN sent (the tail a loss would
 * leave unreported); payload: the message id, which the PDS does not
 * know, so 0. false: not an established initiator PDC, or no room.
 */
bool
pds_initiator_ack_req(struct uet_pds *p, struct pds_pdc *c, uint64_t now)
{
	struct uet_pds_tx *t;

	if (c->role != PDS_ROLE_INIT || c->state != PDC_OPEN ||
	    c->u.i.una == c->u.i.snd || (t = pds_ctl_push(p)) == NULL)
		return false;
	t->hdr.type = UET_PDS_TYPE_CP;
	t->hdr.next_hdr = UET_PDS_CTL_ACK_REQ;
	t->hdr.flags = UET_PDS_F_AR;
	if (c->mode == UET_PDS_MODE_ROD)
		t->hdr.flags |= UET_PDS_F_ISROD;
	t->hdr.u.cp.psn = c->u.i.snd - 1;
	t->hdr.u.cp.spdcid = c->lid;
	t->hdr.u.cp.dpdcid = c->rid;
	t->dst = c->peer;
	t->ev = pds_lb_next(p, c, now);
	return true;
}

/*
 * A CLEAR CP is due (UEC 1.0 PDS guaranteed delivery) when no request can
 * carry CLEAR_PSN: none queued or marked for retransmission, or none of
 * them inside the peer's range (pds_initiator_window_held). Then either
 * - our data waits for the peer's range with nothing in flight to bring
 *   an ACK: a CLEAR with AR, once until the peer's CACK moves (then the
 *   window probe timer, pds_initiator_window_probe); or
 * - the target asked to clear up to resp_psn, and una has passed it, or
 *   una waits on a request whose default response the target can only
 *   report by advancing CACK, which it holds below the responses we have
 *   not cleared yet (UEC 1.0 3.5.20.2.2): then clear what una passed,
 *   once per advance of una (the flag stays set until una passes
 *   resp_psn; pds_ack_settle kicks the PDC).
 */
bool
pds_initiator_clear_due(struct uet_pds *p, const struct pds_pdc *c)
{
	const struct pds_initiator *i = &c->u.i;
	bool held = pds_initiator_window_held(p, c);

	if (held && i->una == i->snd && !(c->flags & PDC_F_WPROBE))
		return true;
	if (!(c->flags & PDC_F_CLEAR) || c->state == PDC_CLOSING ||
	    (!held && (i->snd != i->nxt || i->n_retx != 0)))
		return false;
	if (uet_psn_ge(i->una - 1, i->resp_psn))
		return true;
	return i->una != i->snd && pds_slot(p, c, i->una)->state == SLOT_WAIT &&
	       uet_psn_gt(i->una - 1, i->clear_sent);
}

/*
 * CLEAR CP (UEC 1.0 PDS control packets, guaranteed delivery): an
 * unreliable CP, it consumes no PSN (psn field: the next PSN unsent) and
 * is not resent as such. Its payload is CLEAR_PSN as of now: every PSN
 * below una is complete. A lost one is made good by the next request's
 * clear_psn_offset, by the target's CLEAR_REQ (repeated while it still
 * holds answered responses, pds_target_ack.c), by the window probe or by
 * the close. The target ACKs when the CLEAR lets its CACK move past
 * CLEAR_PSN (pds_target.c), and when the CLEAR has AR: we set it when our
 * data waits for the peer's range, which the CACK this CLEAR lets move
 * opens (pds_initiator_window_held); a closing PDC's CLOSE may wait there too.
 * false: not established, or no room.
 */
bool
pds_initiator_clear_tx(struct uet_pds *p, struct pds_pdc *c, uint64_t now)
{
	struct uet_pds_tx *t;

	if (c->role != PDS_ROLE_INIT ||
	    (c->state != PDC_OPEN && c->state != PDC_CLOSING) ||
	    (t = pds_ctl_push(p)) == NULL)
		return false;
	t->hdr.type = UET_PDS_TYPE_CP;
	t->hdr.next_hdr = UET_PDS_CTL_CLEAR;
	if (c->mode == UET_PDS_MODE_ROD)
		t->hdr.flags = UET_PDS_F_ISROD;
	if (pds_initiator_window_held(p, c)) {
		t->hdr.flags |= UET_PDS_F_AR;
		c->flags |= PDC_F_WPROBE;
	} else if (c->u.i.locks != 0) {
		t->hdr.flags |= UET_PDS_F_AR; /* keepalive (pds_initiator_idle) */
	}
	t->hdr.u.cp.psn = c->u.i.snd;
	t->hdr.u.cp.spdcid = c->lid;
	t->hdr.u.cp.dpdcid = c->rid;
	t->hdr.u.cp.payload = c->u.i.una - 1;
	t->dst = c->peer;
	t->ev = pds_lb_next(p, c, now);
	c->u.i.clear_sent = uet_psn_max(c->u.i.clear_sent, c->u.i.una - 1);
	return true;
}

/* ---- the peer's MP_Range (pds_initiator_room) ---- */

/* A packet marked for retransmission that the peer's range and the ROD
 * window let leave, before any that can never be built
 * (pds_initiator_tx_retx). */
bool
pds_initiator_retx_ready(struct uet_pds *p, const struct pds_pdc *c)
{
	uint32_t psn;

	if (c->u.i.n_retx == 0)
		return false;
	for (psn = c->u.i.una; psn != c->u.i.snd && pds_initiator_room(p, c, psn) &&
	     pds_rod_wnd_has(p, c, psn); psn++) {
		if (pds_slot(p, c, psn)->state == SLOT_GONE)
			return false; /* nothing past it goes (tx_retx) */
		if (pds_slot(p, c, psn)->state == SLOT_RETX)
			return true;
	}
	return false;
}

/* Data to send, new or again, and none of it inside the peer's range:
 * only a CACK that moves lets it go. */
bool
pds_initiator_window_held(struct uet_pds *p, const struct pds_pdc *c)
{
	const struct pds_initiator *i = &c->u.i;

	return (i->snd != i->nxt || i->n_retx != 0) &&
	       !pds_initiator_room(p, c, i->snd) && !pds_initiator_retx_ready(p, c);
}

/*
 * The CACK_PSN of an ACK of ours (any type: all carry it) moves the
 * peer's range. With nothing in flight, a move is the progress the
 * window probe waits for: its retries and timer start again.
 */
void
pds_initiator_window_cack(struct pds_pdc *c, uint32_t cack, uint64_t now)
{
	struct pds_initiator *i = &c->u.i;

	if (!uet_psn_gt(cack, i->peer_cack))
		return;
	i->peer_cack = cack;
	c->flags &= (uint16_t)~PDC_F_WPROBE;
	if (i->una == i->snd) {
		i->retries = 0;
		i->rto_base = now;
	}
}

/*
 * Retransmission timer of a PDC whose data waits at the peer's range
 * with nothing in flight: no ACK will come by itself. What holds the
 * range is a CACK the target keeps below a guaranteed-delivery response
 * until it is cleared (UEC 1.0 3.5.20.2.2), or the ACK that reported its
 * move was lost: a CLEAR with AR answers both (the target ACKs it with
 * its CACK). An RTO in all but name: counted as one, and after
 * max_retries the PDC fails as after any RTO.
 */
void
pds_initiator_window_probe(struct uet_pds *p, struct pds_pdc *c, uint64_t now)
{
	int rc = pds_rto_count(p, c, now);

	if (rc < 0) {
		pds_initiator_fail(p, c, -ETIMEDOUT);
		return;
	}
	pds_initiator_clear_tx(p, c, now);
	c->u.i.rto_base = now;
	pds_pdc_timer_update(p, c, now);
}

/*
 * The reply to our outstanding PROBE (its probe_opaque), after its CACK and
 * SACK were applied: every packet sent before the PROBE and still not
 * acknowledged is lost, as far as the reply covers it (a clear SACK bit is
 * "no information", so not past the bitmap). Resend exactly those.
 */
void
pds_initiator_probe_reply(struct uet_pds *p, struct pds_pdc *c,
		     const struct uet_wire_pds_hdr *h, uint64_t now)
{
	const struct uet_wire_pds_ack *a = &h->u.ack;
	struct pds_initiator *i = &c->u.i;
	uint32_t lim = i->probe_psn, psn;
	struct pds_slot *sl;

	if ((c->flags & PDC_F_CCPROBE) && a->probe_opaque == i->probe_id) {
		c->flags &= (uint16_t)~PDC_F_CCPROBE;
		if (p->cc->on_probe_ack != NULL && now > i->probe_ns)
			p->cc->on_probe_ack(p->cc_inst, pds_cc_priv(p, c),
					    now - i->probe_ns);
		return;
	}
	if (!(c->flags & PDC_F_PROBE) || a->probe_opaque != i->probe_id)
		return;
	c->flags &= (uint16_t)~PDC_F_PROBE;
	if (h->type != UET_PDS_TYPE_ACK &&
	    uet_psn_gt(lim, uet_wire_pds_ack_sack_base(a) + UET_PSN_SACK_BITS))
		lim = uet_wire_pds_ack_sack_base(a) + UET_PSN_SACK_BITS;
	for (psn = i->una; psn != i->snd && uet_psn_lt(psn, lim); psn++) {
		sl = pds_slot(p, c, psn);
		if (sl->state != SLOT_SENT || sl->sent_ns > i->probe_ns)
			continue;
		pds_slot_mark(p, c, sl, PDS_WHY_PROBE);
	}
}

/* Resource back-off (UEC 1.0 PDS NACK codes DECISION) for the @p n-th
 * refusal (from 1) of what was refused: a wait exponential from
 * backoff_init_ns, capped, during which the PDC sends nothing; a round
 * under way ends no earlier. False once @p n exceeds max_backoffs and the
 * PDC failed (it is freed). */
bool
pds_initiator_backoff(struct uet_pds *p, struct pds_pdc *c, unsigned int n,
		      uint64_t now)
{
	struct pds_initiator *i = &c->u.i;
	unsigned int k = n - 1 < 20 ? n - 1 : 20;
	uint64_t d;

	if (n > p->cfg.max_backoffs) {
		pds_initiator_fail(p, c, -ECONNREFUSED);
		return false;
	}
	d = p->cfg.backoff_init_ns << k;
	if (d > p->cfg.backoff_max_ns)
		d = p->cfg.backoff_max_ns;
	if (!(c->flags & PDC_F_BACKOFF) || now + d > i->backoff_until)
		i->backoff_until = now + d;
	c->flags |= PDC_F_BACKOFF;
	return true;
}

/* Turn the slots of @p c's transmit block by @p r places (slot j to
 * j + r, modulo the window): three reversals, in place. */
static void
pds_slots_turn(struct uet_pds *p, const struct pds_pdc *c, uint32_t r)
{
	struct pds_slot *b = pds_slot(p, c, 0), t;
	uint32_t w = p->cfg.tx_window, lo, hi;
	const uint32_t cut[3][2] = { { 0, w }, { 0, r }, { r, w } };

	for (unsigned int k = 0; k < 3; k++)
		for (lo = cut[k][0], hi = cut[k][1]; hi > lo + 1; lo++, hi--) {
			t = b[lo];
			b[lo] = b[hi - 1];
			b[hi - 1] = t;
		}
}

/* Move every PSN of both spaces of @p c by @p delta (the slots turn with
 * them when it is not a multiple of tx_window) and make every slot
 * unsent. A packet refused goes again under the new numbering as a first
 * transmission: the target saw it and named the Start_PSN to use. One
 * never answered (the RTO renumbers, pds_initiator_rto) or marked for
 * resending (a trim) may have been lost: its next transmission is a
 * retransmission, counted by its reason (PDS_WHY_RTO for the
 * unanswered, pds_initiator_emit), as the same packet resent under its
 * old PSN would have been; on the wire its new PSN is new. */
static void
pds_initiator_renumber(struct uet_pds *p, struct pds_pdc *c, uint32_t delta)
{
	struct pds_initiator *i = &c->u.i;
	struct pds_target *t = &c->u.t;
	struct pds_slot *sl;
	enum pds_why why;
	uint32_t psn;
	bool sent = true;

	for (psn = i->una; c->tblk != PDS_NIL && psn != i->nxt; psn++) {
		sl = pds_slot(p, c, psn);
		if (psn == i->snd)
			sent = false;
		if (sl->state == SLOT_DONE)
			continue; /* moved to another PDC (NACK CLOSING) */
		why = !sent || (sl->flags & SLOT_F_CP) ? PDS_WHY_NONE :
		      sl->state == SLOT_SENT ? PDS_WHY_RTO :
		      sl->state == SLOT_RETX ? pds_slot_why(sl) : PDS_WHY_NONE;
		if (sent && sl->state == SLOT_SENT) /* RTO: answer lost */
			PDS_SLOT_UNSEND(p, c, sl);
		sl->state = SLOT_QUEUED;
		sl->flags &= (uint8_t)~(SLOT_F_RETXD | SLOT_WHY_MASK);
		sl->flags |= (uint8_t)(why << SLOT_WHY_SHIFT);
	}
	i->inflight = 0;
	i->n_retx = 0;
	i->snd = i->una;
	if (c->tblk != PDS_NIL && (delta & (p->cfg.tx_window - 1)) != 0)
		pds_slots_turn(p, c, delta & (p->cfg.tx_window - 1));
	c->start_psn += delta;
	i->una += delta;
	i->nxt += delta;
	i->snd += delta;
	i->resp_psn += delta;
	i->clear_sent += delta;
	i->rto_snd = (uint16_t)(i->rto_snd + delta);
	i->peer_cack += delta;
	t->cack += delta;
	t->hi += delta;
	t->ack_psn += delta;
	t->rod_nacked += delta;
}

/*
 * NACK NEW_START_PSN (UEC 1.0 PDS NACK codes, PDC establishment): the target
 * would not take our SYN: it holds another live PDC under our id
 * (pds_target.c DECISION), holds a record of a Start_PSN of ours it
 * refused, or keeps none at all yet (its quiet time after a start,
 * pds_target_syn.c). None of our packets was accepted, so move to the
 * Start_PSN the NACK's payload names, renumber everything and resend it
 * with SYN. The target chose it, whatever its distance from ours: ours
 * names one in the class of the SYN's (a whole number of 2^16 away),
 * another target may name any (UEC's reference provider names its secure
 * domain's Expected_PSN, or a random one), and only that one opens the
 * PDC there. Asked for none (@p want our own Start_PSN: an RTO before
 * any name), we pick one ourselves in the class of ours, at least 2^16
 * away.
 * DECISION (docs/WIRE-DECISIONS.md "A SYN that reaches a restarted
 * target"): the first refusal of a PDC is resent at once: a target in its
 * quiet time, or one that lost a record, opens under the Start_PSN it
 * named, so the first PDC to a freshly started target costs one round
 * trip, no wait. Each further refusal is a resource back-off (the live
 * PDC of a peer's previous incarnation, held for syn_holdoff_ns),
 * exponential and bounded by max_backoffs, then the PDC fails; the free
 * round counts as one of them.
 */
void
pds_initiator_new_start(struct uet_pds *p, struct pds_pdc *c, uint32_t want,
		   uint64_t now)
{
	uint32_t v = want;

	if (want == c->start_psn) {
		/* ours, in the class of the old one: 2^16 apart at least */
		v = (pds_start_psn(p) & 0x7FFF0000u) |
		    (c->start_psn & 0xFFFFu);
		if (v == c->start_psn)
			v = (v + 0x10000u) & ~PDS_NAMED;
		p->last_start = v;
	}
	pds_initiator_renumber(p, c, v - c->start_psn);
	c->u.i.syn_named = c->start_psn; /* none under this one yet */
	pds_cc_nacked(p, c, UET_NACK_NEW_START_PSN, now);
	c->flags &= (uint16_t)~(PDC_F_TLP | PDC_F_PROBE);
	p->st.new_start++;
	c->u.i.rto_base = now;
	if (c->u.i.backoffs == 0) {
		c->u.i.backoffs = 1;
		pds_initiator_kick(p, c);
		pds_pdc_timer_update(p, c, now);
		return;
	}
	if (!pds_initiator_backoff(p, c, pds_count_up(&c->u.i.backoffs), now))
		return;
	/* the RTO of the resends runs from when they may leave */
	c->u.i.rto_base = c->u.i.backoff_until;
	pds_pdc_timer_update(p, c, now);
}

/*
 * NACK NEW_START_PSN for @p sl, a packet of a PDC still in SYN state.
 * Renumbering (pds_initiator_new_start) resends every packet under the new
 * Start_PSN, which is right only if the target accepted none of them. A
 * target deciding per incarnation (ours, pds_target.c) refuses a burst whole;
 * one deciding per packet may refuse P1 and accept P2..P5. So the packet
 * waits (SLOT_REFUSED) until every packet in flight was answered: all
 * refused, renumber; an ACK instead (the PDC opened, pds_initiator_syn_open),
 * the refused ones are resent on the open PDC and nothing twice. An RTO
 * meanwhile (answers lost) renumbers (pds_initiator_rto).
 */
void
pds_initiator_syn_refused(struct uet_pds *p, struct pds_pdc *c,
		     struct pds_slot *sl, uint32_t want, uint64_t now)
{
	uint32_t psn;

	if (sl->state == SLOT_SENT)
		PDS_SLOT_UNSEND(p, c, sl);
	else
		c->u.i.n_retx--;
	sl->state = SLOT_REFUSED;
	pds_cc_nacked(p, c, UET_NACK_NEW_START_PSN, now);
	c->u.i.syn_named = want;
	for (psn = c->u.i.una; psn != c->u.i.snd; psn++)
		if (pds_slot(p, c, psn)->state == SLOT_SENT)
			return;
	pds_initiator_new_start(p, c, want, now);
}

bool
pds_initiator_syn_refused_any(struct uet_pds *p, const struct pds_pdc *c)
{
	uint32_t psn;

	for (psn = c->u.i.una; c->tblk != PDS_NIL && psn != c->u.i.snd; psn++)
		if (pds_slot(p, c, psn)->state == SLOT_REFUSED)
			return true;
	return false;
}

/* The PDC left SYN state (an ACK, or return data): packets refused under
 * SYN go again, on the open PDC. */
void
pds_initiator_syn_open(struct uet_pds *p, struct pds_pdc *c)
{
	struct pds_slot *sl;
	uint32_t psn;

	for (psn = c->u.i.una; c->tblk != PDS_NIL && psn != c->u.i.snd; psn++) {
		sl = pds_slot(p, c, psn);
		if (sl->state == SLOT_REFUSED)
			pds_slot_mark(p, c, sl, PDS_WHY_NACK);
	}
	pds_initiator_kick(p, c);
}

/* Credit to request (UEC 1.0 3.6.12 ccc.backlog, ccc.rtx_backlog): the
 * backlog is what was never sent, the retransmit backlog what is marked
 * for retransmission, both the nominal bytes of their packets (what the
 * pacer grants and the source spends), less @p sending, the packet whose
 * header asks (NULL: none), which OnSend took off its backlog first
 * (htsim's sendNewPacket() computes the target after _backlog -=).
 * Counting full packets, and the packet being sent, asked for a packet
 * or two more at every message tail. Either sum stops past the CC's
 * window and a packet: credit_target asks for no more (htsim's
 * computePullTarget() caps at cwnd + MTU). 0: none. */
uint32_t
pds_initiator_credit_target(struct uet_pds *p, struct pds_pdc *c,
			    const struct pds_slot *sending, uint8_t *ccc_id)
{
	const struct pds_initiator *i = &c->u.i;
	uint64_t cap = (uint64_t)p->cfg.mtu + UET_PDS_CC_NOMINAL_OVH;
	uint64_t backlog = 0, rtx = 0;
	const struct pds_slot *sl;
	uint32_t psn;
	uint16_t left;

	*ccc_id = 0;
	if (p->cc->credit_target == NULL)
		return 0;
	cap += p->cc->cwnd != NULL ? p->cc->cwnd(p->cc_inst, pds_cc_priv(p, c)) :
				     UINT32_MAX;
	for (psn = i->snd; c->tblk != PDS_NIL && psn != i->nxt &&
	     backlog <= cap; psn++) {
		sl = pds_slot(p, c, psn);
		if (sl != sending)
			backlog += pds_nominal(sl);
	}
	for (psn = i->una, left = i->n_retx; c->tblk != PDS_NIL && left > 0 &&
	     psn != i->snd && rtx <= cap; psn++) {
		sl = pds_slot(p, c, psn);
		if (sl->state != SLOT_RETX || sl == sending)
			continue;
		rtx += pds_nominal(sl);
		left--;
	}
	if (backlog > UINT32_MAX)
		backlog = UINT32_MAX;
	if (rtx > UINT32_MAX)
		rtx = UINT32_MAX;
	return p->cc->credit_target(p->cc_inst, pds_cc_priv(p, c),
				    (uint32_t)backlog, (uint32_t)rtx, ccc_id);
}

/* Asked for credit: no more CPs until credit comes. Nothing in flight: no
 * RTO covers the request, the credit probe does (pds_initiator_credit_probe). */
static void
pds_initiator_credit_wait(struct uet_pds *p, struct pds_pdc *c, uint64_t now)
{
	c->flags = (uint16_t)((c->flags | PDC_F_CREQ) & ~PDC_F_CREQ_LOST);
	if (c->u.i.una == c->u.i.snd) {
		c->u.i.rto_base = now;
		pds_pdc_timer_update(p, c, now);
	}
}

/* The CC gate blocks queued data: ask for credit with a CREDIT_REQ CP
 * (UEC 1.0 PDS control packets, RCCC), once until credit comes. Initiator PDCs
 * only: the return direction sends no CPs (pds.c). */
void
pds_initiator_credit_req(struct uet_pds *p, struct pds_pdc *c, uint64_t now)
{
	struct uet_pds_tx *t;
	uint32_t target;
	uint8_t ccc;

	if (c->role != PDS_ROLE_INIT || c->state != PDC_OPEN ||
	    (c->flags & PDC_F_CREQ))
		return;
	target = pds_initiator_credit_target(p, c, NULL, &ccc);
	if (target == 0)
		return;
	/* A request that stated this target is in flight or arrived (one
	 * marked for retransmission clears creq_sent): the pacer knows it,
	 * and a CP per grant would take ~2 % of the receiver's link from
	 * the data (one 84 B frame per packet in a 63:1 incast: a standing
	 * last-hop queue under a pacer at 99 %). With nothing in flight
	 * the credit probe still runs, should the grants be lost. */
	if (!(c->flags & PDC_F_CREQ_LOST) &&
	    pds_to_units256(target) == c->u.i.creq_sent) {
		if (c->u.i.una == c->u.i.snd)
			pds_initiator_credit_wait(p, c, now);
		return;
	}
	if ((t = pds_ctl_push(p)) == NULL)
		return;
	t->hdr.type = UET_PDS_TYPE_CP;
	t->hdr.next_hdr = UET_PDS_CTL_CREDIT_REQ;
	if (c->mode == UET_PDS_MODE_ROD)
		t->hdr.flags = UET_PDS_F_ISROD;
	t->hdr.u.cp.psn = c->u.i.snd;
	t->hdr.u.cp.spdcid = c->lid;
	t->hdr.u.cp.dpdcid = c->rid;
	t->hdr.u.cp.payload = pds_to_units256(target);
	c->u.i.creq_sent = t->hdr.u.cp.payload;
	t->dst = c->peer;
	t->ev = pds_lb_next(p, c, now);
	p->st.credit_req_tx++;
	pds_initiator_credit_wait(p, c, now);
}

/*
 * Retransmission timer of a PDC blocked on credit with nothing in flight
 * (its CREDIT_REQ CP unanswered): no ACK will come, and without credit
 * nothing may leave (UEC 1.0 RCCC); the CP, or the CREDIT CPs answering
 * it, were lost. Ask again, flagged lost so that a target at the PDC's
 * total repeats it (pds_target_credit_request), as htsim's source sends
 * its RTS again when the RTO finds it without credit. An RTO in all but
 * name, as the window probe: counted as one, and after
 * max_retries the PDC fails.
 */
void
pds_initiator_credit_probe(struct uet_pds *p, struct pds_pdc *c,
			   uint64_t now)
{
	int rc = pds_rto_count(p, c, now);

	if (rc < 0) {
		pds_initiator_fail(p, c, -ETIMEDOUT);
		return;
	}
	c->flags = (uint16_t)((c->flags & ~PDC_F_CREQ) | PDC_F_CREQ_LOST);
	c->u.i.rto_base = now;
	pds_initiator_credit_req(p, c, now);
	pds_pdc_timer_update(p, c, now);
}

/* Credit granted by the receiver (ACK_CC cc_type CREDIT or CREDIT CP).
 * With nothing in flight it is the progress the credit probe waits for:
 * its retries start again. */
void
pds_initiator_credit(struct uet_pds *p, struct pds_pdc *c, uint32_t bytes,
		uint64_t now)
{
	p->st.credit_rx++;
	if ((c->flags & PDC_F_CREQ) && c->u.i.una == c->u.i.snd)
		c->u.i.retries = 0;
	c->flags &= (uint16_t)~(PDC_F_CREQ | PDC_F_CREQ_LOST);
	if (p->cc->on_credit != NULL)
		p->cc->on_credit(p->cc_inst, pds_cc_priv(p, c), bytes, now);
	pds_initiator_kick(p, c);
}
