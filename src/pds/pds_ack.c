/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Initiator processing of ACK, ACK_CC, NACK and target-to-initiator control
 * packets (UEC 1.0 PDS header formats, PDS NACK codes, PDS ACK processing):
 * CACK and SACK completion, SES responses carried in ACKs, SACK-inferred loss,
 * NACK handling by class.
 */

#include "pds_private.h"

/* Does the transmit side of @p c have @p psn (or psn + 1) outstanding? */
static bool
pds_ack_covers(const struct pds_pdc *c, uint32_t psn)
{
	return c->tblk != PDS_NIL &&
	       psn - (c->u.i.una - 1) <= c->u.i.snd - c->u.i.una;
}

/*
 * ACKs and NACKs address the transmit side of either an initiator PDC
 * (forward) or a target PDC (return direction), in two id spaces, and the
 * wire does not say which. DECISION: prefer the target PDC when it names
 * the sender as its peer and has @p psn outstanding while the initiator
 * PDC does not; Start_PSNs are random 32-bit values, so both covering the
 * same PSN is negligible and then the check of the PSNs rejects it.
 */
static struct pds_pdc *
pds_ack_lookup(struct uet_pds *p, uint16_t dpdcid, uint16_t spdcid,
	       uint32_t psn, const struct uet_pds_rx_meta *m)
{
	struct pds_pdc *c = pds_pdc_by_lid(p, PDS_ROLE_INIT, dpdcid);
	struct pds_pdc *t = pds_pdc_by_lid(p, PDS_ROLE_TGT, dpdcid);

	if (c != NULL && memcmp(&c->peer, &m->src, sizeof(m->src)) != 0)
		c = NULL;
	if (t != NULL && t->rid == spdcid && pds_ack_covers(t, psn) &&
	    memcmp(&t->peer, &m->src, sizeof(m->src)) == 0 &&
	    (c == NULL || !pds_ack_covers(c, psn)))
		return t;
	if (c == NULL)
		p->st.rx_stale++;
	return c;
}

/* psn in [una, snd): sent and not yet passed by una. */
static bool
pds_in_flight(const struct pds_pdc *c, uint32_t psn)
{
	return c->tblk != PDS_NIL &&
	       psn - c->u.i.una < c->u.i.snd - c->u.i.una;
}

static void
pds_slot_leave(struct pds_pdc *c, struct pds_slot *sl)
{
	if (sl->state == SLOT_SENT)
		c->u.i.inflight -= sl->len;
	else if (sl->state == SLOT_RETX)
		c->u.i.n_retx--;
}

/* The target has the packet at psn. */
static void
pds_ack_slot(struct uet_pds *p, struct pds_pdc *c, uint32_t psn,
	     uint32_t *acked)
{
	struct pds_slot *sl = pds_slot(p, c, psn);

	if (sl->state != SLOT_SENT && sl->state != SLOT_RETX)
		return;
	/* Marked for resend, and it arrived after all: nothing goes. */
	if (sl->state == SLOT_RETX)
		p->st.resend_cancelled++;
	pds_slot_leave(c, sl);
	*acked += pds_nominal(sl);
	/* Accepted: the refusals, if any, were not "in a row". */
	c->u.i.backoffs = 0;
	if (!(sl->flags & SLOT_F_RETXD))
		p->ack_orig = true;
	if (sl->sent_ns > c->u.i.rack_ns)
		c->u.i.rack_ns = sl->sent_ns;
	if (sl->flags & SLOT_F_CP) {
		sl->state = SLOT_DONE;
		return;
	}
	/* Arrived is not answered (UEC 1.0 3.5.20.3.2: a SACK bit says the
	 * packet is in, CACK held below it that its guaranteed-delivery
	 * response may still be to come). Any request may get one, not
	 * only the last of its message: a target reports an error on the
	 * packet that meets it (3.5.20.2.4). So every request waits until
	 * CACK passes it (default response) or its response comes; una,
	 * and so CLEAR_PSN, stay below it, the target keeps the response
	 * and resends it on the RTO's retransmission (pds_target_dup). Had
	 * it completed here, a lost response would be cleared unseen and
	 * the message completed OK with that packet's data missing. */
	sl->state = SLOT_WAIT;
}

/* A DONE (or, for a cookie that already had its DONE, RESP) event
 * carrying the response bytes of the ACK. */
static void
pds_ack_resp_event(struct uet_pds *p, struct pds_pdc *c,
		   const struct uet_wire_pds_hdr *h,
		   const struct uet_pds_rx_meta *m, const struct pds_slot *sl,
		   uint32_t psn, uint8_t type)
{
	struct pds_event *e = pds_event_push(p);
	uint16_t len = m->ses_len;

	if (e == NULL)
		return;
	e->type = type;
	e->mode = c->mode;
	e->pdc = pds_handle(p, pds_idx(p, c));
	e->next_hdr = h->next_hdr;
	e->cookie = sl->cookie;
	e->psn = psn;
	if (len > UET_PDS_RESP_MAX)
		len = UET_PDS_RESP_MAX;
	e->resp_len = len;
	if (len && m->ses)
		memcpy(pds_event_resp(p, e), m->ses, len);
}

/*
 * UEC 1.0 PDS guaranteed delivery: the response completes the cookie;
 * REQ=CLEAR asks us to advance CLEAR_PSN past it. A response may also
 * answer a packet that was not the last of its message (e.g. a target
 * reporting an error on the first packet): that packet completes with it
 * too, and if it already completed the response still reaches the SES
 * (UET_PDS_EV_RESP) instead of being dropped.
 */
static void
pds_ack_resp(struct uet_pds *p, struct pds_pdc *c, const struct uet_wire_pds_hdr *h,
	     const struct uet_pds_rx_meta *m, uint32_t psn, uint32_t *acked)
{
	struct pds_slot *sl = pds_slot(p, c, psn);

	if (sl->state == SLOT_QUEUED || (sl->flags & SLOT_F_CP))
		return;
	if (uet_wire_pds_ack_req_get(h) == UET_PDS_ACK_REQ_CLEAR) {
		c->flags |= PDC_F_CLEAR;
		c->u.i.resp_psn = uet_psn_max(c->u.i.resp_psn, psn);
	}
	if (sl->state == SLOT_DONE) {
		if (!(sl->flags & SLOT_F_RESP)) {
			p->st.resp_late++;
			pds_ack_resp_event(p, c, h, m, sl, psn, UET_PDS_EV_RESP);
		}
		return;
	}
	sl->flags |= SLOT_F_RESP; /* an early response: wait no further */
	pds_ack_slot(p, c, psn, acked);
	if (sl->state != SLOT_WAIT)
		return;
	sl->state = SLOT_DONE;
	p->st.done_ok++;
	pds_ack_resp_event(p, c, h, m, sl, psn, UET_PDS_EV_DONE);
}

/*
 * CACK passed @p psn. A target holds CACK below every request whose
 * guaranteed-delivery response is stored and not yet cleared (UEC 1.0
 * 3.5.20.2.2), so a request still waiting for its response when CACK
 * passes it was answered with the default response folded into CACK:
 * it completed successfully, with no response bytes.
 */
static void
pds_ack_cack_slot(struct uet_pds *p, struct pds_pdc *c, uint32_t psn,
		  uint32_t *acked)
{
	struct pds_slot *sl = pds_slot(p, c, psn);

	pds_ack_slot(p, c, psn, acked);
	if (sl->state != SLOT_WAIT)
		return;
	sl->state = SLOT_DONE;
	if (sl->flags & SLOT_F_RESP)
		p->st.done_default++;
	pds_done_pdc(p, c, sl->cookie, 0, psn);
}

/* The fewest packets beyond CACK that make the PSNs under the bitmap
 * lost (pds_ack_infer_below; htsim's min_retx_config). */
#define PDS_OOO_LOSS_MIN 5u

/* ACK_CC's ooo_count (both cc_types); UINT32_MAX: a plain ACK, or a cc_type
 * that carries none. */
static uint32_t
pds_ack_ooo(const struct uet_wire_pds_hdr *h)
{
	const struct uet_wire_pds_ack *a = &h->u.ack;

	if (h->type != UET_PDS_TYPE_ACK_CC)
		return UINT32_MAX;
	if (a->cc_type == UET_CC_TYPE_NSCC)
		return a->cc.nscc.ooo_count;
	if (a->cc_type == UET_CC_TYPE_CREDIT)
		return a->cc.credit.ooo_count;
	return UINT32_MAX;
}

/*
 * Below the bitmap (UEC 1.0 SACK: no information) while the receiver
 * holds @p ooo packets beyond its CACK (ACK_CC ooo_count; UINT32_MAX:
 * none, a plain ACK): at least a window of them, the PSNs under the
 * bitmap still unacknowledged are lost (htsim's SLEEK recovery). The
 * receiver reports the newest 64 PSNs, so with more than 64 in flight a
 * hole at the start of the window never shows in a bitmap once the
 * packets behind it run past 64, and waited for the TLP or the RTO: a
 * PDC with a full window sends nothing new, so nothing overtakes the
 * hole by send time either. First transmissions only (a resend has its
 * own rule), each once (marked, it leaves SENT); on a spraying PDC only
 * one overtaken by a packet sent an SRTT after it, as inside the bitmap
 * (paths differ by up to a queue: with oblivious spraying, 45 packets of
 * a 16-flow permutation were resent without it, none of them lost).
 * DECISION: the window is the CC's cwnd in packets, at least 5 (htsim:
 * 1.5 cwnd capped at its max_wnd, at least 5; the same for RCCC alone,
 * whose cwnd is max_wnd, and at most it for NSCC): a packet 64 PSNs
 * below the newest arrival and a window of arrivals past it is no
 * reordering of a single path.
 */
static void
pds_ack_infer_below(struct uet_pds *p, struct pds_pdc *c, uint32_t sack_base,
		    uint32_t ooo, bool spray, uint64_t now)
{
	uint32_t wnd, psn;
	struct pds_slot *sl;

	if (ooo == UINT32_MAX || p->cfg.mtu == 0)
		return;
	wnd = p->cc->cwnd(p->cc_inst, pds_cc_priv(p, c)) / p->cfg.mtu;
	if (ooo < wnd || ooo < PDS_OOO_LOSS_MIN)
		return;
	for (psn = c->u.i.una; psn != c->u.i.snd && uet_psn_lt(psn, sack_base);
	     psn++) {
		sl = pds_slot(p, c, psn);
		if (sl->state != SLOT_SENT || (sl->flags & SLOT_F_RETXD) ||
		    (spray && sl->sent_ns + c->u.i.srtt_ns >= c->u.i.rack_ns))
			continue;
		pds_slot_mark(p, c, sl, PDS_WHY_SACK);
		pds_lb_loss(p, c, sl->ev, now);
	}
}

/*
 * RUD SACK-inferred loss (UEC 1.0 PDS retransmission). Only the SACK
 * bitmap says anything about the PSNs above CACK: a PSN below its base or
 * past its end, and a plain ACK's (no bitmap), is "no information" (the
 * receiver reports the newest 64 PSNs of a longer run, and ACKs coalesce),
 * never evidence of loss. Within the bitmap, a clear bit is a packet not
 * received when the ACK left, and it is presumed lost when the ACK shows
 * a later one received (@p hi: CACK, set bits, ACK_PSN):
 * - a first transmission sack_reorder PSNs below @p hi; when the PDC
 *   sprays (oblivious, REPS), also overtaken by a packet sent at least
 *   an SRTT after it (send-time order, as RACK): spraying reorders by
 *   design (paths differ by up to a queue), and a packet overtaken by
 *   its neighbours is no loss. DECISION: without this, reordering alone
 *   made 306 of 8192 packets "lost" in the 16-host oblivious measurement
 *   (docs/CONGESTION.md), and REPS froze on those losses, crowding its
 *   flows onto its cached EVs. (An ACK-overdue rule, now - sent > 1.25
 *   SRTT, was tried: REPS then left a failed link sooner but collided
 *   more without one.) A burst lost with nothing sent an SRTT later
 *   waits for the TLP;
 * - a retransmission when a packet sent more than SRTT / 8 after it was
 *   acknowledged (send-time order, as RACK), SRTT / 2 when the PDC
 *   sprays: it is sent again at once, not after the TLP or the RTO.
 *   DECISION: with SRTT / 8 on a spraying PDC, a permutation whose
 *   flows into one leaf shared one spine's full queue (a failed link,
 *   REPS, RCCC) resent 290 resends that were only late (seed 3), 0.8 MB
 *   more through that queue, and its last flow ended 1.2x later
 *   (docs/CONGESTION.md, perm-reps-fail). A whole SRTT, as for a first
 *   transmission, did as well there but doubled the same run's time
 *   with the fixed window, whose queues make the SRTT long and whose
 *   resends into the failed link were really lost.
 * Elsewhere the TLP or RTO repairs. The target drops duplicates, so
 * exactly-once delivery holds.
 */
static void
pds_ack_infer(struct uet_pds *p, struct pds_pdc *c, uint32_t hi,
	      uint32_t sack_base, uint32_t ooo, uint64_t now)
{
	uint64_t reo = pds_reo_ns(c);
	uint32_t psn = c->u.i.una, end = sack_base + UET_PSN_SACK_BITS;
	bool spray = pds_lb(p, c)->mode != UET_CMS_LB_SINGLE;
	struct pds_slot *sl;
	enum pds_why why;

	if (c->mode != UET_PDS_MODE_RUD)
		return;
	if (uet_psn_lt(psn, sack_base)) {
		pds_ack_infer_below(p, c, sack_base, ooo, spray, now);
		psn = sack_base;
	}
	for (; pds_in_flight(c, psn) && uet_psn_lt(psn, hi) &&
	     uet_psn_lt(psn, end); psn++) {
		sl = pds_slot(p, c, psn);
		if (sl->state != SLOT_SENT)
			continue;
		if (!(sl->flags & SLOT_F_RETXD)) {
			if (!uet_psn_lt(psn + p->cfg.sack_reorder, hi) ||
			    (spray &&
			     sl->sent_ns + c->u.i.srtt_ns >= c->u.i.rack_ns))
				continue;
			why = PDS_WHY_SACK;
		} else {
			if (c->u.i.srtt_ns == 0 ||
			    sl->sent_ns + (spray ? c->u.i.srtt_ns / 2 : reo) >=
			    c->u.i.rack_ns)
				continue;
			why = PDS_WHY_AGAIN;
		}
		pds_slot_mark(p, c, sl, why);
		/* A loss on the path it took (UEC 1.0 section 3.6.16). */
		pds_lb_loss(p, c, sl->ev, now);
	}
}

/*
 * The first ACK after an RTO, which resent the oldest packets only
 * (pds_initiator_rto_mark): if it completes a packet never retransmitted,
 * the packets were not lost but late (the ACKs were, or this end did not
 * run for a while): the timeout was spurious, and SACK / NACK evidence
 * repairs what is really missing. Otherwise every packet sent before the
 * RTO (rto_base; what left since runs on its own time) and still not
 * acknowledged is lost: go back from una.
 */
static void
pds_ack_frto(struct uet_pds *p, struct pds_pdc *c)
{
	c->flags &= (uint16_t)~PDC_F_FRTO;
	if (p->ack_orig) {
		p->st.rto_spurious++;
		return;
	}
	pds_initiator_mark_from(p, c, c->u.i.una, true, PDS_WHY_RTO,
			   c->u.i.rto_base);
	pds_initiator_kick(p, c);
}

/* SRTT (RFC 6298 style, gain 1/8) from first-transmission samples. */
static void
pds_ack_rtt_sample(struct uet_pds *p, struct pds_pdc *c, uint64_t rtt)
{
	uint32_t r = rtt > UINT32_MAX ? UINT32_MAX : (uint32_t)rtt;
	uint32_t s = c->u.i.srtt_ns;

	p->st.rtt_samples++;
	if (s == 0)
		c->u.i.srtt_ns = r ? r : 1;
	else
		c->u.i.srtt_ns = s - (s >> 3) + (r >> 3);
}

/* Move una over completed slots; release the block when idle. */
static void
pds_ack_settle(struct uet_pds *p, struct pds_pdc *c, uint64_t now)
{
	struct pds_initiator *i = &c->u.i;
	uint32_t old = i->una;

	while (i->una != i->nxt && pds_slot(p, c, i->una)->state == SLOT_DONE)
		i->una++;
	/* Passed packets never sent: a RUD closing move took them. */
	if (uet_psn_gt(i->una, i->snd))
		i->snd = i->una;
	if (i->una != old) {
		pds_rod_wnd_grow(p, c, i->una - old);
		if (pds_rto_episode_over(c, old)) {
			i->progress_ns = now;
			i->rto_snd = (uint16_t)i->una;
		}
		i->retries = 0;
		i->backoffs = 0;
		i->rto_base = now;
		c->flags &= (uint16_t)~PDC_F_TLP;
		c->last_ns = now;
	}
	if (i->una == i->nxt) {
		pds_tx_blk_detach(p, c);
		if (c->role == PDS_ROLE_INIT && c->state == PDC_CLOSING) {
			pds_pdc_free(p, c);
			return;
		}
		/* Return direction drained: a held CLOSE ACK may go. */
		if (c->role == PDS_ROLE_TGT && c->state == PDC_CLOSED)
			pds_target_ack_kick(p, c);
	}
	pds_initiator_kick(p, c);
	pds_pdc_timer_update(p, c, now);
}

static void
pds_ack_sack(struct uet_pds *p, struct pds_pdc *c, const struct uet_wire_pds_ack *a,
	     uint32_t *acked, uint32_t *hi)
{
	uint32_t base = uet_wire_pds_ack_sack_base(a), psn;
	uint64_t bits = a->sack_bitmap;
	unsigned int b;

	while (bits) {
		b = (unsigned int)__builtin_ctzll(bits);
		bits &= bits - 1;
		psn = base + b;
		if (!pds_in_flight(c, psn))
			continue;
		pds_ack_slot(p, c, psn, acked);
		*hi = uet_psn_max(*hi, psn);
	}
}

/*
 * Time since @p psn was last sent when its ACK (or NACK) says which copy
 * it measures (UEC 1.0 section 3.6.13.1 calculate_rtt()): a packet sent
 * once, answered without RETX echoed, or retransmitted once and answered
 * with RETX. 0: no sample. Without the second case a PDC whose window
 * fell to one MTU with retransmissions queued never got another sample,
 * so NSCC never grew it again (the stall under random loss).
 */
static uint64_t
pds_ack_rtt(struct uet_pds *p, struct pds_pdc *c, uint32_t psn,
	    bool retx_echo, uint64_t now)
{
	struct pds_slot *sl;
	bool once;

	if (!pds_in_flight(c, psn))
		return 0;
	sl = pds_slot(p, c, psn);
	if (sl->state != SLOT_SENT || now < sl->sent_ns)
		return 0;
	once = (sl->flags & SLOT_F_RETXD) && !(sl->flags & SLOT_F_RETX2);
	if ((sl->flags & SLOT_F_RETXD) ? !(once && retx_echo) : retx_echo)
		return 0;
	return now - sl->sent_ns;
}

/* UEC 1.0 NSCC.OnNACK: the NACK of a packet sent once is an RTT sample
 * for base_rtt (service time 0). */
static void
pds_nack_rtt(struct uet_pds *p, struct pds_pdc *c, uint32_t psn, uint64_t now)
{
	uint64_t rtt;

	if (p->cc->on_nack_rtt != NULL &&
	    (rtt = pds_ack_rtt(p, c, psn, false, now)) != 0)
		p->cc->on_nack_rtt(p->cc_inst, pds_cc_priv(p, c), rtt, now);
}

/*
 * The receiver's range (UEC 1.0 MP_Range, pds_initiator_room): the CACK_PSN
 * every ACK carries, and the mpr of an ACK_CC (log2 of the PSNs it tracks
 * past CACK; 0 and absurd values say nothing). Also from an ACK that
 * finds nothing of ours outstanding: the ACK_CC after the ACK that
 * completed everything still tells the range the next burst must keep.
 */
static void
pds_ack_range(struct pds_pdc *c, const struct uet_wire_pds_hdr *h, uint64_t now)
{
	const struct uet_wire_pds_ack *a = &h->u.ack;

	if (h->type == UET_PDS_TYPE_ACK_CC && a->mpr != 0 && a->mpr < 32)
		c->u.i.mpr = a->mpr;
	pds_initiator_window_cack(c, a->cack_psn, now);
}

static bool
pds_ack_check(struct uet_pds *p, struct pds_pdc *c, const struct uet_wire_pds_hdr *h,
	      uint64_t now)
{
	const struct uet_wire_pds_ack *a = &h->u.ack;

	/* Acknowledging a PSN never sent: bogus or from an old incarnation. */
	if ((c->tblk == PDS_NIL && c->state == PDC_SYN) ||
	    uet_psn_ge(a->cack_psn, c->u.i.snd) ||
	    uet_psn_lt(a->cack_psn, c->start_psn - 1)) {
		p->st.rx_stale++;
		return false;
	}
	if (c->state == PDC_SYN) {
		/* UEC 1.0 PDC establishment: the first ACK's spdcid becomes
		 * dpdcid. */
		c->rid = a->spdcid;
		c->state = PDC_OPEN;
		pds_initiator_syn_open(p, c);
	} else if (a->spdcid != c->rid) {
		p->st.rx_stale++;
		return false;
	}
	pds_ack_range(c, h, now);
	/* Nothing in flight: the peer's answer to a keepalive of a locked
	 * PDC is its progress (pds_initiator_idle). */
	if (c->u.i.una == c->u.i.snd)
		c->u.i.progress_ns = now;
	/* Nothing outstanding: a late or duplicate ACK. */
	if (c->tblk == PDS_NIL) {
		p->st.rx_stale++;
		return false;
	}
	return true;
}

static void
pds_ack_req(struct uet_pds *p, struct pds_pdc *c, const struct uet_wire_pds_hdr *h,
	    uint32_t ack_psn, uint64_t now)
{
	unsigned int req = uet_wire_pds_ack_req_get(h);

	/* CLEAR/CLOSE requests go from the target to the initiator only. */
	if (c->role != PDS_ROLE_INIT)
		return;
	if (req == UET_PDS_ACK_REQ_CLEAR && h->next_hdr == UET_PDS_NEXT_NONE) {
		c->flags |= PDC_F_CLEAR;
		c->u.i.resp_psn = uet_psn_max(c->u.i.resp_psn, ack_psn);
	} else if (req == UET_PDS_ACK_REQ_CLOSE && c->state != PDC_CLOSING) {
		pds_initiator_close(p, c, now);
	}
}

/*
 * Feed the CC (UEC 1.0 NSCC): the nominal bytes the PDS saw acknowledged,
 * the ECN echo, the ACK_CC cc_type NSCC state when present, and an RTT
 * sample of the ACK_PSN packet only when it was sent once (@p rtt 0
 * otherwise), less the receiver's service time.
 */
static void
pds_ack_cc(struct uet_pds *p, struct pds_pdc *c, const struct uet_wire_pds_hdr *h,
	   uint32_t acked, uint64_t rtt, uint64_t now)
{
	const struct uet_wire_pds_ack *a = &h->u.ack;
	struct uet_pds_cc_ack ca = {
		.bytes = acked,
		.ecn = (h->flags & UET_PDS_F_M) != 0,
	};

	if (h->type == UET_PDS_TYPE_ACK_CC && a->cc_type == UET_CC_TYPE_NSCC) {
		ca.has_state = true;
		ca.rcvd_bytes = a->cc.nscc.rcvd_bytes;
		ca.rcv_cwnd_pend = a->cc.nscc.rcv_cwnd_pend;
		ca.rc = a->cc.nscc.rc;
		ca.ooo_count = a->cc.nscc.ooo_count;
		ca.service_time = a->cc.nscc.service_time;
	}
	/* pds_ack_rtt() checked the copy: sent once, or resent once and
	 * RETX echoed. */
	if (rtt != 0 && rtt <= now)
		ca.rtt_ns = uet_nscc_rtt_sample(now - rtt,
						(h->flags & UET_PDS_F_RETX) ?
						2 : 1,
						(h->flags & UET_PDS_F_RETX) != 0,
						ca.service_time, now);
	p->cc->on_ack(p->cc_inst, pds_cc_priv(p, c), &ca, now);
}

int
pds_initiator_ack(struct uet_pds *p, const struct uet_wire_pds_hdr *h,
	     const struct uet_pds_rx_meta *m, uint64_t now)
{
	const struct uet_wire_pds_ack *a = &h->u.ack;
	struct pds_pdc *c = pds_ack_lookup(p, a->dpdcid, a->spdcid,
					   a->cack_psn, m);
	uint32_t acked = 0, hi, psn, ack_psn;
	bool probe = (h->flags & UET_PDS_F_P) != 0;
	uint64_t rtt;

	if (c == NULL || !pds_ack_check(p, c, h, now))
		return -EBADMSG;
	/* The ACK echoes the EV of the packet that triggered it, and its M
	 * flag (UEC 1.0 section 3.6.16; pds_lb.c DECISION). */
	pds_lb_ack(p, c, m->ev, (h->flags & UET_PDS_F_M) != 0, now);
	if (h->flags & UET_PDS_F_EPSN)
		pds_sdom_learn(p, c, h);
	p->ack_orig = false;
	ack_psn = probe ? a->cack_psn : uet_wire_pds_ack_psn(a);
	rtt = pds_ack_rtt(p, c, ack_psn, (h->flags & UET_PDS_F_RETX) != 0,
			  now);
	/* A saturated service time: the target does not know when the
	 * ACK_PSN packet arrived (it answers an ACK_REQ), no sample. */
	if (h->type == UET_PDS_TYPE_ACK_CC && a->cc_type == UET_CC_TYPE_NSCC &&
	    a->cc.nscc.service_time == UINT16_MAX)
		rtt = 0;
	if (rtt)
		pds_ack_rtt_sample(p, c, rtt);
	hi = a->cack_psn;
	/* The response this ACK carries goes first: CACK or SACK covering
	 * its PSN must not complete the request without it. */
	if (!probe && h->next_hdr != UET_PDS_NEXT_NONE &&
	    pds_in_flight(c, ack_psn)) {
		pds_ack_resp(p, c, h, m, ack_psn, &acked);
		hi = uet_psn_max(hi, ack_psn);
	}
	for (psn = c->u.i.una; uet_psn_le(psn, a->cack_psn) &&
	     psn != c->u.i.snd; psn++)
		pds_ack_cack_slot(p, c, psn, &acked);
	if (h->type != UET_PDS_TYPE_ACK)
		pds_ack_sack(p, c, a, &acked, &hi);
	if (probe)
		pds_initiator_probe_reply(p, c, h, now);
	if (!probe && h->next_hdr == UET_PDS_NEXT_NONE &&
	    pds_in_flight(c, ack_psn)) {
		pds_ack_slot(p, c, ack_psn, &acked);
		hi = uet_psn_max(hi, ack_psn);
	}
	if (c->flags & PDC_F_FRTO)
		pds_ack_frto(p, c);
	/* A plain ACK has no bitmap: no evidence of loss. */
	if (h->type != UET_PDS_TYPE_ACK)
		pds_ack_infer(p, c, hi, uet_wire_pds_ack_sack_base(a),
			      pds_ack_ooo(h), now);
	pds_ack_cc(p, c, h, acked, probe ? 0 : rtt, now);
	pds_cc_flush_loss(p, c, now);
	if (h->type == UET_PDS_TYPE_ACK_CC && a->cc_type == UET_CC_TYPE_CREDIT &&
	    a->cc.credit.credit != 0)
		pds_initiator_credit(p, c, pds_from_units256(a->cc.credit.credit),
				now);
	pds_ack_req(p, c, h, ack_psn, now);
	if (c->state != PDC_FREE)
		pds_ack_settle(p, c, now);
	if (c->state != PDC_FREE)
		pds_initiator_cc_probe(p, c, now);
	return 0;
}

/* ---- NACKs (UEC 1.0 codes; DECISION: class decides the reaction) ---- */

static void
pds_nack_mark(struct uet_pds *p, struct pds_pdc *c, uint32_t psn,
	      enum pds_why why)
{
	struct pds_slot *sl = pds_slot(p, c, psn);

	if (sl->state != SLOT_SENT)
		return;
	pds_slot_mark(p, c, sl, why);
}

/*
 * ROD: a NACK for a hole whose resend is queued, or left less than
 * 1.25 SRTT ago, was sent before that resend could arrive (the target
 * re-NACKs on go-back-N retransmissions of an earlier round still on
 * the wire). Going back again would resend the window once more for
 * nothing: only the hole is resent (pds_nack_retx).
 * Only a hole NACKed before: a packet first NACKed now that was resent
 * inside a go-back-N (not as its hole) is the next hole, its resend
 * lost. The target dropped what followed it, so that NACK goes back
 * again; resending it alone would leave the rest to the RTO.
 * (pds_nack_limit has counted this NACK in sl->nacks already.)
 * Without an RTT sample the guard is rto_init, the RTT the RTO allows
 * (pds_rto_ns): a new PDC whose first packet was lost has no sample
 * until the hole is in, and none after it if the window it sent first
 * was resent more than once meanwhile (pds_ack_rtt). With no guard each
 * re-NACK went back over the whole window, each go-back drawing more
 * re-NACKs (rod_renack): 1347 resends of one PSN in 38 ms, its link
 * queue 240 ms deep (fuzz_dst retx-bound, generator 9).
 */
static bool
pds_rod_nack_stale(struct uet_pds *p, const struct pds_pdc *c, uint32_t psn,
		   uint64_t now)
{
	const struct pds_slot *sl = pds_slot(p, c, psn);
	uint64_t guard = c->u.i.srtt_ns ? pds_rtt_guard(c) :
					  p->cfg.rto_init_ns;

	if (sl->state == SLOT_RETX)
		return true;
	return sl->state == SLOT_SENT && (sl->flags & SLOT_F_RETXD) &&
	       sl->nacks > 1 && guard != 0 && now - sl->sent_ns < guard;
}

/*
 * ROD: the hole a NACK names is no longer this PDC's to send: answered
 * (the NACK left before the ACK that passed it) or moved to another PDC by
 * NACK CLOSING. Going back from it resends the window for nothing, and
 * after NACK CLOSING for nothing again at each NACK: the closing target
 * accepted nothing from the hole on and NACKs ROD_OOO every packet of the
 * window that still arrives (rod_renack), each NACK naming the same hole
 * (UEC 1.0 3.5.7.2: the receiver accepts in order only). Such a go-back
 * was counted against no PSN's max_nack_retx (the hole is not in flight),
 * so it went on without bound (uet-dst, thousands of resends of one PSN in
 * 60 ms). What is left in flight is the RTO's, within max_retries.
 */
static bool
pds_rod_hole_gone(struct uet_pds *p, const struct pds_pdc *c, uint32_t psn)
{
	uint8_t st = pds_slot(p, c, psn)->state;

	return st != SLOT_SENT && st != SLOT_RETX;
}

/*
 * Retransmission limit of NACK-driven resends (UEC 1.0 3.5.20.3.1,
 * Max_NACK_Retx_Cnt): a PSN NACKed at each attempt (trimmed on every
 * path, always out of the receiver's window) is resent at once
 * max_nack_retx times; past that a NACK no longer resends it
 * (pds_nack_past_limit): the RTO does, with its back-off and its
 * max_retries rounds, so a packet NACKed at every attempt costs a bounded
 * number of transmissions however fast the NACKs come (a NACK resent at
 * once is answered by a NACK within one RTT: 150 000 resends in 10 ms,
 * duplicated NACKs multiplying the copies in flight). The PDC fails with
 * -ETIMEDOUT when such a NACK comes once the PDC has also made no
 * progress for as long as the RTO rounds would have waited (pds_dead_ns):
 * under congestion without a congestion controller that backs off (the
 * fixed window), a packet may be trimmed dozens of times while the PDC
 * still moves, and that is no reason to give up on the peer.
 */
static bool
pds_nack_limit(struct uet_pds *p, struct pds_pdc *c, uint32_t psn,
	       uint64_t now)
{
	struct pds_slot *sl = pds_slot(p, c, psn);

	/* One per transmission: a duplicated NACK counts once. */
	if (sl->state != SLOT_SENT)
		return false;
	if (sl->nacks < UINT8_MAX)
		sl->nacks++;
	if (sl->nacks <= p->cfg.max_nack_retx ||
	    now - c->u.i.progress_ns < pds_dead_ns(p))
		return false;
	p->st.nack_retx_limit++;
	pds_initiator_fail(p, c, -ETIMEDOUT);
	return true;
}

/* Past the NACK retransmit limit (pds_nack_limit): the PSN stays in
 * flight for the RTO to resend. */
static bool
pds_nack_past_limit(struct uet_pds *p, const struct pds_pdc *c, uint32_t psn)
{
	const struct pds_slot *sl = pds_slot(p, c, psn);

	if (sl->state != SLOT_SENT || sl->nacks <= p->cfg.max_nack_retx)
		return false;
	p->st.nack_to_rto++;
	return true;
}

static void
pds_nack_retx(struct uet_pds *p, struct pds_pdc *c,
	      const struct uet_wire_pds_nack *n, uint64_t now)
{
	uint32_t acked = 0, psn, lost;
	bool trim;

	if (pds_nack_limit(p, c, n->psn, now))
		return;

	if (n->code == UET_NACK_ROD_OOO) {
		/* ROD receivers accept in order only: everything before the
		 * expected PSN arrived; go back N from it. */
		for (psn = c->u.i.una; psn != n->psn; psn++)
			pds_ack_slot(p, c, psn, &acked);
		if (acked)
			pds_cc_acked(p, c, acked, now);
		if (pds_rod_hole_gone(p, c, n->psn)) {
			p->st.rx_stale++;
			return;
		}
		if (pds_nack_past_limit(p, c, n->psn))
			return;
		if (pds_rod_nack_stale(p, c, n->psn, now)) {
			/* Resend the hole alone: one duplicate at worst, and
			 * if its resend was lost the target NACKs what
			 * follows with fresh evidence. */
			p->st.rod_nack_stale++;
			pds_nack_mark(p, c, n->psn, PDS_WHY_NACK);
			pds_cc_nacked(p, c, n->code, now);
			return;
		}
		p->st.rod_goback++;
		pds_rod_wnd_cut(p, c);
		pds_initiator_mark_from(p, c, n->psn, false, PDS_WHY_NACK,
				   UINT64_MAX);
		/* The packets past the hole were dropped, not congested:
		 * released like the hole itself. */
		pds_cc_nacked(p, c, n->code, now);
		return;
	}
	if (pds_nack_past_limit(p, c, n->psn))
		return;
	trim = n->code == UET_NACK_TRIMMED ||
	       n->code == UET_NACK_TRIMMED_LASTHOP;
	pds_nack_mark(p, c, n->psn, trim ? PDS_WHY_TRIM : PDS_WHY_NACK);
	if (trim) {
		/* UEC 1.0 packet trimming: retransmit; the load balancer
		 * heard of it (pds_initiator_nack) and picks the resend's EV. A
		 * repeated NACK of a packet already marked says nothing new
		 * to the CC. */
		lost = pds_cc_take(p);
		if (lost)
			p->cc->on_trim(p->cc_inst, pds_cc_priv(p, c), lost,
				       n->code == UET_NACK_TRIMMED_LASTHOP, now);
	} else {
		pds_cc_nacked(p, c, n->code, now);
	}
}

/*
 * Resource NACK (UEC 1.0 PDS NACK codes DECISION): the packet goes again
 * after a back-off, during which its PDC sends nothing. Each packet counts
 * its own refusals (a NACK repeated for a packet already marked counts
 * nothing), so its wait grows with them whatever else the PDC delivers
 * meanwhile, and past max_backoffs of them the PDC fails. Counted per PDC
 * and reset by any packet accepted, refusals of a packet whose target
 * freed one message record at a time for the others went back to the
 * shortest wait after each: 215 resends of it in 27 ms (fuzz_dst,
 * retx-bound). NACKs of other packets during a round join it, each
 * lengthening it to its own packet's wait at most.
 */
static void
pds_nack_backoff(struct uet_pds *p, struct pds_pdc *c,
		 const struct uet_wire_pds_nack *n, uint64_t now)
{
	struct pds_slot *sl = pds_slot(p, c, n->psn);
	unsigned int k;

	if (sl->state != SLOT_SENT)
		return;
	k = pds_count_up(&sl->refusals);
	if (!pds_initiator_backoff(p, c, k, now))
		return;
	if (c->u.i.backoffs < sl->refusals)
		c->u.i.backoffs = sl->refusals;
	pds_nack_mark(p, c, n->psn, PDS_WHY_BACKOFF);
	pds_cc_nacked(p, c, n->code, now);
}

/* Take @p psn out of @p c, to be submitted again on the key's new PDC
 * (exactly once is kept: the closing target did not accept it), as a
 * packet of message @p msg (0: it stands alone; pds_move.c). A control
 * packet goes with its PDC; return data cannot move. The packet keeps
 * its refusals (pds_nack_backoff), so one a target keeps refusing fails
 * after max_backoffs of them however often the target closes the PDC
 * under it: counted afresh on each new PDC, a target that closed every
 * PDC quiet through a back-off (its message records held by messages
 * waiting for receives) moved one packet from PDC to PDC every 1.3 ms
 * for good (fuzz_dst). It also counts its moves: past max_backoffs of
 * them it fails (-ECONNREFUSED), or a target answering NACK CLOSING on
 * every PDC would move it, and hold its operation, for good. */
static void
pds_closing_move(struct uet_pds *p, struct pds_pdc *c, uint32_t psn,
		 uint64_t msg)
{
	struct pds_slot *sl = pds_slot(p, c, psn);

	if (sl->state == SLOT_SENT)
		p->cc_lost += pds_nominal(sl);
	pds_slot_leave(c, sl);
	sl->state = SLOT_DONE;
	if (sl->flags & SLOT_F_CP)
		return;
	if (c->role != PDS_ROLE_INIT) {
		pds_done_pdc(p, c, sl->cookie, -ECONNABORTED, psn);
		return;
	}
	/* A target refusing it on every new PDC would move it for good. */
	if (sl->moves >= p->cfg.max_backoffs) {
		p->st.move_limit++;
		pds_done_pdc(p, c, sl->cookie, -ECONNREFUSED, psn);
		return;
	}
	pds_move_add(p, c, psn, msg);
}

/* A request that can never be built (SLOT_GONE) past a ROD hole that
 * moves: its cookie completes with the error its PDC's failure would
 * have given it. */
static void
pds_closing_gone(struct uet_pds *p, struct pds_pdc *c, uint32_t psn)
{
	struct pds_slot *sl = pds_slot(p, c, psn);

	sl->state = SLOT_DONE;
	pds_done_pdc(p, c, sl->cookie, -ECONNRESET, psn);
}

/*
 * ROD: a target checks order before closing (pds_target_reject), so NACK
 * CLOSING names the PSN it expects: it accepted nothing from there on,
 * and, closing, it never will. Every later request of this PDC, sent or
 * not, would only be NACKed ROD_OOO naming the moved hole until its
 * retries ran out: they follow it to the new PDC, in PSN order, so ROD
 * order holds (UEC 1.0 3.5.7.2) and each is still accepted once at most.
 * The PSNs from the hole on are then unused at both ends: the PDC's next
 * PSN goes back to the hole, so that its CLOSE (UEC 1.0 PDC close, a CP
 * that takes a PSN) is the packet the target expects. Numbered past the
 * hole, the CLOSE was NACKed ROD_OOO at every resend and the PDC lived on
 * until it failed (uet-dst generator 1 seed 5018278: four PDCs resending
 * CLOSE every RTO). A late copy of a moved request at the hole still
 * meets NACK CLOSING (a closing target takes no request), which names a
 * CP slot now and is ignored (pds_nack_closing).
 */
static void
pds_rod_closing_move_rest(struct uet_pds *p, struct pds_pdc *c, uint32_t psn)
{
	uint32_t q;
	uint8_t st;

	for (q = psn + 1; q != c->u.i.nxt; q++) {
		st = pds_slot(p, c, q)->state;
		if (st == SLOT_SENT || st == SLOT_RETX || st == SLOT_QUEUED)
			pds_closing_move(p, c, q, 0);
		else if (st == SLOT_GONE) /* nothing to move: it fails */
			pds_closing_gone(p, c, q);
	}
	c->u.i.snd = c->u.i.nxt = psn;
}

/* A packet of @p c not accepted yet, which a move may take. */
static bool
pds_closing_movable(const struct pds_slot *sl)
{
	return (sl->state == SLOT_SENT || sl->state == SLOT_RETX ||
		sl->state == SLOT_QUEUED) && !(sl->flags & SLOT_F_CP);
}

/*
 * RUD: @p psn, refused, is a packet of a multi-packet message @p key
 * (uet_pds_ulp.msg_of). A closing target refuses one only when none of
 * its message is in (it takes what continues a message begun on it,
 * pds_target_continues), so every packet of it not acknowledged moves
 * now, together, to the same new PDC, which it holds open until its
 * last packet (pds_move.c). Moved one at a time, as each copy met the
 * refusal, its packets went to different new PDCs, where the target's
 * SES took each for a message of its own that never completed and held
 * a record (fuzz_dst, docs/DST.md).
 */
static void
pds_rud_closing_move_msg(struct uet_pds *p, struct pds_pdc *c, uint64_t key)
{
	struct pds_slot *sl;
	bool last, open;
	uint32_t q;

	for (q = c->u.i.una; q != c->u.i.nxt; q++) {
		sl = pds_slot(p, c, q);
		if (pds_closing_movable(sl) &&
		    p->ulp.msg_of(p->ulp.arg, sl->cookie, &last, &open) == key)
			pds_closing_move(p, c, q, key);
	}
}

/*
 * RUD: the requests of @p c not sent yet, once it is no longer its key's
 * PDC, is not established and has nothing in flight: the target took
 * nothing on it, and will refuse them. They could not even leave: past
 * the moved PSNs the target's range never passes (its CACK passes them
 * only on a CLEAR_PSN, which a PDC not established sends no CLEAR for),
 * the PDC waited with nothing in flight and no timer for good. They move
 * now, in PSN order, each with its message, and their PSNs go unused.
 */
static void
pds_rud_closing_move_unsent(struct uet_pds *p, struct pds_pdc *c)
{
	struct pds_slot *sl;
	bool last, open;
	uint64_t msg;
	uint32_t q;

	for (q = c->u.i.snd; q != c->u.i.nxt; q++) {
		sl = pds_slot(p, c, q);
		if (!pds_closing_movable(sl))
			continue;
		msg = p->ulp.msg_of != NULL ?
			      p->ulp.msg_of(p->ulp.arg, sl->cookie, &last, &open) :
			      0;
		pds_closing_move(p, c, q, msg);
	}
	for (q = c->u.i.snd; q != c->u.i.nxt; q++)
		if (pds_slot(p, c, q)->state != SLOT_DONE)
			return;
	c->u.i.nxt = c->u.i.snd;
}

/* Whether any request of @p c is still in flight (sent, not answered). */
static bool
pds_closing_in_flight(struct uet_pds *p, const struct pds_pdc *c)
{
	uint32_t q;
	uint8_t st;

	for (q = c->u.i.una; q != c->u.i.snd; q++) {
		st = pds_slot(p, c, q)->state;
		if (st == SLOT_SENT || st == SLOT_RETX)
			return true;
	}
	return false;
}

/*
 * Whether @p c, refused a request of message @p key (@p open: the ULP
 * still submits packets of it) by its closing target, stays in the key
 * table: a RUD PDC with a message open on it that is not the refused
 * one. The target began that message (it takes what continues it), so
 * its rest goes there, as after a close of ours (pds_initiator_close);
 * held (pds_pdc_held), the PDC takes nothing else, and what moves goes
 * on the key's next PDC. Unkeyed at once, the rest of the open message
 * went to the new PDC, where the target never saw it begin. A PDC not
 * established with nothing in flight (the refused requests moved) had
 * nothing taken by the target, no message begun there: held, its window
 * full of moved PSNs that the target's range never passed, the rest of
 * the open message waited for room on it for good (fuzz_dst,
 * test/dst/fuzz-fixed/hang.held-pdc-open-message).
 */
static bool
pds_closing_keeps_key(struct uet_pds *p, const struct pds_pdc *c,
		      uint64_t key, bool open)
{
	return c->mode == UET_PDS_MODE_RUD && c->open_msgs != 0 && !open &&
	       (c->flags & PDC_F_KEYED) && !pds_move_holds(p, c, key) &&
	       (c->state != PDC_SYN || pds_closing_in_flight(p, c));
}

/* NACK CLOSING: the target did not accept this PSN and is closing; move
 * the request to a new PDC and close this one once idle. */
static void
pds_nack_closing(struct uet_pds *p, struct pds_pdc *c, uint32_t psn,
		 uint64_t now)
{
	struct pds_slot *sl = pds_slot(p, c, psn);
	bool last, open = false;
	uint64_t key = 0;

	/* A closing target NACKs requests, never CPs (pds_target_reject):
	 * naming one, the NACK is about an older use of the PSN. */
	if ((sl->state != SLOT_SENT && sl->state != SLOT_RETX) ||
	    (sl->flags & SLOT_F_CP))
		return;
	if (c->mode == UET_PDS_MODE_RUD && p->ulp.msg_of != NULL)
		key = p->ulp.msg_of(p->ulp.arg, sl->cookie, &last, &open);
	if (key != 0) {
		pds_rud_closing_move_msg(p, c, key);
	} else {
		pds_closing_move(p, c, psn, 0);
		if (c->mode == UET_PDS_MODE_ROD)
			pds_rod_closing_move_rest(p, c, psn);
	}
	if (pds_closing_keeps_key(p, c, key, open)) {
		if (!(c->flags & PDC_F_CLOSE_REQ))
			p->st.close_held++;
	} else {
		if (c->flags & PDC_F_KEYED) {
			pds_ikey_del(p, c);
			c->flags &= (uint16_t)~PDC_F_KEYED;
		}
		/* The rest of a message open on it (the refused one, or
		 * one a move placed there) goes to the new PDC of the key
		 * now: it holds this one's close no more. */
		c->open_msgs = 0;
		pds_ulp_open_set(p, c, false);
		if (p->mv_n != 0)
			pds_move_unhold(p, c, 0);
	}
	c->flags |= PDC_F_CLOSE_REQ;
	if (c->mode == UET_PDS_MODE_RUD && c->state == PDC_SYN &&
	    !(c->flags & PDC_F_KEYED) && !pds_closing_in_flight(p, c))
		pds_rud_closing_move_unsent(p, c);
	pds_move_drain(p, now);
	pds_cc_nacked(p, c, UET_NACK_CLOSING, now);
}

/*
 * RCVD_SES_PROCG (UEC 1.0 NACK codes: retransmit, the ACK may come
 * first): the target has the packet and its SES is still at work on it.
 * That is what an ACK of it says: a packet that completes on its
 * response waits for it (SLOT_WAIT; the RTO resends it if the response
 * never comes, pds_initiator_mark_from), any other completes. Nothing is
 * resent now.
 */
static void
pds_nack_received(struct uet_pds *p, struct pds_pdc *c, uint32_t psn,
		  uint64_t now)
{
	uint32_t acked = 0;

	pds_ack_slot(p, c, psn, &acked);
	if (acked)
		pds_cc_acked(p, c, acked, now);
}

/*
 * A refusal by a restarted target that kept no knowledge of our id
 * (PDS_VC_RESTARTED) of a PDC that may have reached its previous
 * incarnation. DECISION (docs/WIRE-DECISIONS.md "A SYN that reaches a
 * restarted target"): the target started at U = now - its age at the
 * latest (the NACK left it before now); what we sent before U may have
 * run at the incarnation before, whose answer was lost, and must not run
 * again under a new Start_PSN. The PDC opened before U (its packets left
 * after): it fails instead. A PDC opened after U renumbers as usual.
 */
static bool
pds_nack_restarted(const struct pds_pdc *c, const struct uet_wire_pds_nack *n,
		   uint64_t now)
{
	uint64_t age = pds_syn_vc_age_ns(n->vendor_code, n->spdcid);

	return (n->vendor_code & PDS_VC_RESTARTED) && age < now &&
	       c->u.i.progress_ns < now - age;
}

/* NEW_START_PSN answers a SYN only (pds_target.c DECISION): for a PDC past
 * SYN it is a stale answer to an old SYN of ours, and so is one naming
 * the Start_PSN the PDC runs under already (a target names one it
 * refused to open under never; renumbered by a fraction of the window,
 * the NACK's old PSN may name one of our new packets). */
static int
pds_nack_new_start(struct uet_pds *p, struct pds_pdc *c,
		   const struct uet_wire_pds_nack *n, uint64_t now)
{
	struct pds_slot *sl;

	if (c->role != PDS_ROLE_INIT || c->state != PDC_SYN ||
	    n->payload == c->start_psn) {
		p->st.rx_stale++;
		return 0;
	}
	sl = pds_slot(p, c, n->psn);
	if (sl->state != SLOT_SENT && sl->state != SLOT_RETX) {
		p->st.rx_stale++; /* answered already */
		return 0;
	}
	if (pds_nack_restarted(c, n, now)) {
		p->st.syn_restart++;
		pds_initiator_fail(p, c, -ECONNRESET);
		return 0;
	}
	pds_initiator_syn_refused(p, c, sl, n->payload, now);
	return 0;
}

/*
 * A PDC-fatal NACK naming a PSN of our receive (return) direction: the
 * target gave up on its return data (retries exhausted, pds_initiator.c) and
 * closed the PDC. Only for an established initiator PDC of that target,
 * and a PSN within its receive window (another incarnation's PSNs are
 * >= 2^16 away).
 */
static bool
pds_nack_ret_fatal(struct uet_pds *p, const struct pds_pdc *c,
		   const struct uet_wire_pds_nack *n)
{
	return uet_wire_pds_nack_class(n->code) == UET_NACK_CLASS_FATAL &&
	       c->role == PDS_ROLE_INIT && c->state != PDC_SYN &&
	       c->rid == n->spdcid &&
	       n->psn - (c->u.t.cack + 1) < p->cfg.rx_window;
}

/*
 * ... or one naming the PSN a CLEAR carries (it consumes none: the next
 * unsent) while nothing is in flight: the keepalive of a locked PDC
 * (pds_initiator_idle) or a window probe met a target that no longer has the
 * PDC, so the return data it waits for will not come.
 */
static bool
pds_nack_clear_fatal(const struct pds_pdc *c, const struct uet_wire_pds_nack *n)
{
	return uet_wire_pds_nack_class(n->code) == UET_NACK_CLASS_FATAL &&
	       c->role == PDS_ROLE_INIT && c->state == PDC_OPEN &&
	       c->rid == n->spdcid && n->psn == c->u.i.snd &&
	       c->u.i.una == c->u.i.snd;
}

int
pds_initiator_nack(struct uet_pds *p, const struct uet_wire_pds_hdr *h,
	      const struct uet_pds_rx_meta *m, uint64_t now)
{
	const struct uet_wire_pds_nack *n = &h->u.nack;
	struct pds_pdc *c;

	p->st.nack_rx[pds_code_idx(n->code)]++;
	c = pds_ack_lookup(p, n->dpdcid, n->spdcid, n->psn, m);
	if (c == NULL)
		return -EBADMSG;
	if (!pds_in_flight(c, n->psn)) {
		if (pds_nack_ret_fatal(p, c, n) ||
		    pds_nack_clear_fatal(c, n)) {
			pds_initiator_fail(p, c, -ECONNRESET);
			return 0;
		}
		p->st.rx_stale++;
		return -EBADMSG;
	}
	if (n->code == UET_NACK_NEW_START_PSN)
		return pds_nack_new_start(p, c, n, now);
	/* The NACK echoes the EV of the packet it names, with M = its CE
	 * mark; a trim before the last hop counts against that path (UEC
	 * 1.0 sections 3.6.12.3 and 3.6.16). */
	pds_lb_nack(p, c, m->ev, n->code, (h->flags & UET_PDS_F_M) != 0, now);
	pds_nack_rtt(p, c, n->psn, now);
	if (n->code == UET_NACK_RCVD_SES_PROCG)
		pds_nack_received(p, c, n->psn, now);
	switch (uet_wire_pds_nack_class(n->code)) {
	case UET_NACK_CLASS_RETRANSMIT:
		pds_nack_retx(p, c, n, now);
		break;
	case UET_NACK_CLASS_RESOURCE:
		pds_nack_backoff(p, c, n, now);
		break;
	case UET_NACK_CLASS_FATAL:
		if (c->role == PDS_ROLE_INIT && c->state == PDC_CLOSING) {
			/* Only control packets are in flight on a closing
			 * PDC (its CLOSE left when idle): the target no longer
			 * knows it, i.e. the close happened and its ACK was
			 * lost or is late, or the target gave up on its
			 * return data (retries exhausted) and dropped the PDC.
			 * No request of ours is affected, but a READ may still
			 * wait for that return data: the PDC-down event
			 * (-EPIPE) lets the SES fail a READ whose data will
			 * never come (none waits after a clean close: the
			 * target closes with its return direction done). */
			p->st.close_nack++;
			pds_pdc_down(p, c, -EPIPE);
			pds_pdc_free(p, c);
			return 0;
		}
		pds_initiator_fail(p, c, -ECONNRESET);
		return 0;
	case UET_NACK_CLASS_CLOSING:
		pds_nack_closing(p, c, n->psn, now);
		break;
	default:
		break; /* RCVD_SES_PROCG may have moved una */
	}
	if (c->state != PDC_FREE)
		pds_ack_settle(p, c, now);
	return 0;
}

/* CLEAR_REQ: the target's response store crossed its high-water mark,
 * or it still holds answered responses after a quiet spell (UEC 1.0 PDS
 * guaranteed delivery). Its payload is the PSN to clear: one never sent
 * is from another incarnation, ignored. Answer with a CLEAR CP at once;
 * its CLEAR_PSN is every PSN complete, so at least what was asked when we
 * have it. No room for it: the idle CLEAR sends it. */
static void
pds_initiator_clear_req(struct uet_pds *p, struct pds_pdc *c, uint32_t psn,
		   uint64_t now)
{
	if (uet_psn_ge(psn, c->u.i.snd) ||
	    uet_psn_lt(psn, c->start_psn - 1)) {
		p->st.rx_stale++;
		return;
	}
	if (c->state == PDC_CLOSING || pds_initiator_clear_tx(p, c, now))
		return;
	c->flags |= PDC_F_CLEAR;
	c->u.i.resp_psn = uet_psn_max(c->u.i.resp_psn, c->u.i.una - 1);
	pds_initiator_kick(p, c);
}

/* Target-to-initiator CPs: unreliable (UEC 1.0 PDS control packets,
 * pds.c), they consume no PSN; ours carry psn 0. */
int
pds_initiator_cp(struct uet_pds *p, const struct uet_wire_pds_hdr *h,
	    const struct uet_pds_rx_meta *m, uint64_t now)
{
	struct pds_pdc *c = pds_ack_lookup(p, h->u.cp.dpdcid, h->u.cp.spdcid,
					   h->u.cp.psn, m);

	if (c == NULL)
		return -EBADMSG;
	if (h->next_hdr == UET_PDS_CTL_CREDIT) {
		pds_initiator_credit(p, c, pds_from_units256(h->u.cp.payload), now);
		return 0;
	}
	if (c->role != PDS_ROLE_INIT) {
		p->st.rx_bad++;
		return -EBADMSG;
	}
	if (h->next_hdr == UET_PDS_CTL_CLOSE_REQ)
		pds_initiator_close(p, c, now);
	else
		pds_initiator_clear_req(p, c, h->u.cp.payload, now);
	return 0;
}
