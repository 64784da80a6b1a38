/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Initiator side of RUD and ROD PDCs (UEC 1.0 PDS RUD and ROD modes): 0-RTT
 * establishment, PSN assignment, the transmit pump (retransmissions before new
 * data, CC gate, AR rule), timers (RTO with exponential back-off, tail-loss
 * probe, resource back-off, idle close) and failure. ACK/NACK processing lives
 * in pds_ack.c.
 *
 * A transmit slot exists per PSN in [una, nxt): QUEUED until first sent,
 * SENT while in flight (counted in inflight), RETX when marked for
 * retransmission, WAIT when acknowledged but the SES response is still
 * due, DONE once complete. The PDS keeps no packet: a retransmission is a
 * descriptor naming the slot's cookie and PSN.
 */

#include "pds_private.h"

/* UEC 1.0 PDC establishment: random Start_PSN at least 2^16 away from the
 * previous, with PDS_NAMED clear: a Start_PSN a target of ours names has
 * it set (struct pds_syn_rec), so a name never equals one of ours. */
uint32_t
pds_start_psn(struct uet_pds *p)
{
	uint32_t r;

	if (p->test_start_set) {
		p->test_start_set = false;
		p->last_start = p->test_start_psn;
		return p->test_start_psn;
	}
	r = (uint32_t)(pds_rand(p) % (PDS_NAMED - 2 * 65536));
	p->last_start = (p->last_start + 65536 + r) & ~PDS_NAMED;
	return p->last_start;
}

/* Both PSN spaces of a new PDC start at Start_PSN (pds_private.h
 * DECISION), and the sender side gets its CC and load-balancing state. */
void
pds_pdc_psn_init(struct uet_pds *p, struct pds_pdc *c, uint64_t now)
{
	struct uet_pds_cc_pdc cp = {
		.peer = c->peer,
		.idx = pds_idx(p, c),
		.mtu = p->cfg.mtu,
		.param = p->cfg.cc_param,
		.tc = c->tc,
		.role = c->role,
	};

	c->u.i.una = c->u.i.nxt = c->u.i.snd = c->start_psn;
	c->u.i.rto_snd = (uint16_t)c->start_psn; /* no RTO episode */
	c->u.i.resp_psn = c->start_psn - 1;
	c->u.i.clear_sent = c->start_psn - 1;
	c->u.i.peer_cack = c->start_psn - 1;
	c->u.t.cack = c->start_psn - 1;
	c->u.t.hi = c->u.t.cack;
	c->u.t.rod_nacked = c->u.t.cack;
	c->u.i.rod_wnd = (uint16_t)p->cfg.tx_window;
	c->u.i.rod_acked = 0;
	p->cc->init(p->cc_inst, pds_cc_priv(p, c), &cp, now);
	pds_lb_pdc_init(p, c);
}

static void pds_initiator_msg_end(struct uet_pds *p, struct pds_pdc *c,
				  uint64_t now);

static struct pds_pdc *
pds_initiator_open(struct uet_pds *p, const struct uet_pds_submit *s, uint64_t now)
{
	struct pds_pdc *c;

	c = pds_pdc_alloc(p, PDS_ROLE_INIT, (s->flags & UET_PDS_SUBMIT_RSV) != 0,
			  now);
	if (c == NULL)
		return NULL;
	c->peer = s->dst;
	c->job = s->job;
	c->tc = s->tc;
	c->mode = s->mode;
	c->state = PDC_SYN;
	c->start_psn = pds_start_psn_job(p, s->job);
	c->u.i.syn_named = c->start_psn;
	c->u.i.progress_ns = now; /* no progress until the PDC opens */
	pds_pdc_psn_init(p, c, now);
	pds_ikey_add(p, c);
	c->flags |= PDC_F_KEYED;
	p->st.pdc_open_init++;
	return c;
}

/* Assign the next PSN to a request or control packet. */
static int
pds_initiator_queue(struct uet_pds *p, struct pds_pdc *c, uint64_t cookie,
	       uint16_t len, uint8_t kind, uint8_t flags)
{
	struct pds_slot *sl;

	if (!pds_tx_blk_attach(p, c))
		return -EAGAIN;
	/* With una held by a request whose default response waits for
	 * CACK, and CACK held below a response not yet cleared (UEC 1.0
	 * 3.5.20.2.2), only a CLEAR moves the window on: it takes no slot
	 * (pds_initiator_clear_tx). */
	if (c->u.i.nxt - c->u.i.una >= p->cfg.tx_window)
		return -EAGAIN;
	sl = pds_slot(p, c, c->u.i.nxt);
	sl->cookie = cookie;
	sl->sent_ns = 0;
	sl->len = len;
	sl->state = SLOT_QUEUED;
	sl->flags = flags;
	sl->kind = kind;
	sl->nacks = 0;
	sl->refusals = 0;
	sl->moves = 0;
	c->u.i.nxt++;
	pds_list_push(p, &p->active, pds_idx(p, c));
	return 0;
}

int
pds_initiator_queue_cp(struct uet_pds *p, struct pds_pdc *c, uint8_t ctl,
		  uint32_t payload)
{
	return pds_initiator_queue(p, c, payload, 0, ctl, SLOT_F_CP);
}

/* Queue @p s (a valid forward request) on @p c, or, @p c NULL, on its
 * key's PDC, opened if none is: that PDC, or NULL without room
 * (-EAGAIN). */
struct pds_pdc *
pds_initiator_submit_on(struct uet_pds *p, const struct uet_pds_submit *s,
			struct pds_pdc *c, uint64_t now)
{
	bool fresh = false;
	int rc;

	if (c == NULL)
		c = pds_ikey_find(p, &s->dst, s->job, s->tc, s->mode);
	if (c == NULL) {
		c = pds_initiator_open(p, s, now);
		if (c == NULL)
			return NULL;
		fresh = true;
	}
	rc = pds_initiator_queue(p, c, s->cookie, s->len, s->next_hdr,
			    ((s->flags & UET_PDS_SUBMIT_RESP) ? SLOT_F_RESP : 0) |
			    ((s->flags & UET_PDS_SUBMIT_AR) ? SLOT_F_AR : 0));
	if (rc < 0) {
		if (fresh) {
			pds_ikey_del(p, c);
			p->st.pdc_open_init--;
			p->st.pdc_close_init--;
			pds_pdc_free(p, c);
		}
		return NULL;
	}
	c->last_ns = now;
	switch (s->flags & (UET_PDS_SUBMIT_SOM | UET_PDS_SUBMIT_EOM)) {
	case UET_PDS_SUBMIT_SOM:
		if (c->open_msgs < PDS_OPEN_MSGS_MAX)
			c->open_msgs++;
		break;
	case UET_PDS_SUBMIT_EOM:
		pds_initiator_msg_end(p, c, now);
		break;
	default:
		break;
	}
	return c;
}

/*
 * A request of the ULP. The ULP hands over the packets of one message of
 * a key at a time: between its UET_PDS_SUBMIT_SOM and its
 * UET_PDS_SUBMIT_EOM, a packet without SOM is one of that message, and
 * goes to the PDC the message began on (UEC 1.0 3.5.20), which may no
 * longer take the key's other requests (pds_pdc_held).
 */
int
pds_initiator_submit(struct uet_pds *p, const struct uet_pds_submit *s,
		uint64_t now)
{
	uint8_t som = s->flags & (UET_PDS_SUBMIT_SOM | UET_PDS_SUBMIT_EOM);
	struct pds_pdc *o, *c;

	/* Forward requests carry REQUEST_* (UEC 1.0 PDS next-header values). */
	if (s->next_hdr < UET_PDS_NEXT_REQUEST_SMALL ||
	    s->next_hdr > UET_PDS_NEXT_REQUEST_STD)
		return -EINVAL;
	o = pds_ikey_find_open(p, &s->dst, s->job, s->tc, s->mode);
	if (o != NULL && som == UET_PDS_SUBMIT_SOM) {
		/* a message begun while one was open: that one ended */
		pds_ulp_open_set(p, o, false);
		pds_initiator_msg_end(p, o, now);
		o = NULL;
	}
	c = pds_initiator_submit_on(p, s, som == UET_PDS_SUBMIT_SOM ? NULL : o,
				    now);
	if (c == NULL)
		return -EAGAIN;
	if (som == UET_PDS_SUBMIT_SOM)
		pds_ulp_open_set(p, c, true);
	else if (som == UET_PDS_SUBMIT_EOM)
		/* (c may have closed: its record stays) */
		pds_ulp_open_set(p, c, false);
	return 0;
}

/*
 * A message open on @p c (UET_PDS_SUBMIT_SOM) ended: its last packet is
 * queued, or the SES gave up the rest. The last one to end carries out
 * a close asked for meanwhile (pds_initiator_close held it).
 */
static void
pds_initiator_msg_end(struct uet_pds *p, struct pds_pdc *c, uint64_t now)
{
	if (c->open_msgs == 0)
		return; /* begun on a PDC that moved it (pds_nack_closing) */
	if (--c->open_msgs == 0 && (c->flags & PDC_F_CLOSE_REQ))
		pds_initiator_close(p, c, now);
}

void
uet_pds_msg_abandon(struct uet_pds *p, const struct uet_pds_submit *s,
		    uint64_t now)
{
	struct pds_pdc *c;

	if (s->mode != UET_PDS_MODE_RUD && s->mode != UET_PDS_MODE_ROD)
		return;
	pds_commit(p, now);
	c = pds_ikey_find_open(p, &s->dst, s->job, s->tc, s->mode);
	if (c != NULL) {
		pds_ulp_open_set(p, c, false);
		pds_initiator_msg_end(p, c, now);
	}
}

/* Return direction of a target PDC (UEC 1.0 PDS next-header values, PDS
 * return-direction read responses): RESPONSE_DATA requests in the target's own
 * PSN space, no SYN (the PDC exists at both ends), no guaranteed-delivery
 * response. A CLOSED PDC still takes data: the ACK of CLOSE waits until it
 * drains (pds_target.c), so the initiator is still there to receive it. */
int
pds_initiator_submit_ret(struct uet_pds *p, const struct uet_pds_submit *s,
		    uint64_t now)
{
	struct pds_pdc *c = pds_handle_pdc(p, s->pdc);
	int rc;

	if (s->next_hdr != UET_PDS_NEXT_RESPONSE_DATA &&
	    s->next_hdr != UET_PDS_NEXT_RESPONSE_DATA_SMALL)
		return -EINVAL;
	if (c == NULL || c->role != PDS_ROLE_TGT)
		return -ENOENT;
	rc = pds_initiator_queue(p, c, s->cookie, s->len, s->next_hdr,
			    (s->flags & UET_PDS_SUBMIT_AR) ? SLOT_F_AR : 0);
	if (rc == 0)
		c->last_ns = now;
	return rc;
}

/* UEC 1.0 PDS sender AR rule: cwnd - inflight < MTU or cwnd < trigger. */
static bool
pds_initiator_ar(struct uet_pds *p, const struct pds_pdc *c)
{
	uint32_t cwnd;

	if (p->cc->want_ar != NULL)
		return p->cc->want_ar(p->cc_inst, pds_cc_priv(p, c),
				      c->u.i.inflight);
	cwnd = p->cc->cwnd(p->cc_inst, pds_cc_priv(p, c));
	if (cwnd < p->cfg.ack_threshold)
		return true;
	return cwnd < c->u.i.inflight || cwnd - c->u.i.inflight < p->cfg.mtu;
}

/*
 * A packet alone on its PDC (nothing else in flight, nothing queued
 * behind it) asks for its ACK: the target would otherwise hold the ACK
 * for the coalescing delay (ack_delay), and the sender's transmit block,
 * the message's completion and the next packet of a peer that sends one
 * message at a time (many PDCs, request-response) would wait for it.
 * A stream never has its packets alone, so its ACKs stay coalesced.
 * (UEC 1.0 PDS: the sender may set AR for reasons of its own.)
 */
static bool
pds_initiator_lone(const struct pds_pdc *c, const struct pds_slot *sl,
		   uint32_t psn)
{
	return c->u.i.inflight == sl->len && psn + 1 == c->u.i.nxt;
}

/* Fill the dpdcid field or its SYN variant (UEC 1.0 PDS header formats). */
static void
pds_initiator_ids(const struct pds_pdc *c, uint32_t psn, uint8_t *flags,
	     uint16_t *dpdcid, bool *rsv, uint16_t *off)
{
	if (c->state == PDC_SYN) {
		*flags |= UET_PDS_F_SYN;
		*rsv = (c->flags & PDC_F_RSV) != 0;
		*off = (uint16_t)(psn - c->start_psn);
	} else {
		*dpdcid = c->rid;
	}
}

/* A reliable CP (UEC 1.0 PDS control packets: NOOP, CLOSE, NEGOTIATION;
 * this PDS sends CLOSE): a PSN of its own, AR, resent like a request. */
static void
pds_initiator_hdr_cp(struct pds_pdc *c, const struct pds_slot *sl, uint32_t psn,
		struct uet_wire_pds_hdr *h)
{
	struct uet_wire_pds_cp *cp = &h->u.cp;

	h->type = UET_PDS_TYPE_CP;
	h->next_hdr = sl->kind;
	h->flags |= UET_PDS_F_AR;
	if (c->mode == UET_PDS_MODE_ROD)
		h->flags |= UET_PDS_F_ISROD;
	cp->psn = psn;
	cp->spdcid = c->lid;
	cp->payload = (uint32_t)sl->cookie;
	pds_initiator_ids(c, psn, &h->flags, &cp->dpdcid, &cp->use_rsv_pdc,
		     &cp->psn_offset);
}

/* UEC 1.0 PDS packet types, PDS header formats, RCCC: a credit request turns
 * the request into RUD_CC_REQ / ROD_CC_REQ carrying ccc_id and
 * credit_target. */
static void
pds_initiator_hdr_type(struct uet_pds *p, struct pds_pdc *c,
		       const struct pds_slot *sl, struct uet_wire_pds_hdr *h)
{
	struct uet_wire_pds_req *r = &h->u.req;
	bool rod = c->mode == UET_PDS_MODE_ROD;
	uint32_t target = pds_initiator_credit_target(p, c, sl, &r->ccc_id);

	if (target == 0) {
		h->type = rod ? UET_PDS_TYPE_ROD_REQ : UET_PDS_TYPE_RUD_REQ;
		r->ccc_id = 0;
		return;
	}
	h->type = rod ? UET_PDS_TYPE_ROD_CC_REQ : UET_PDS_TYPE_RUD_CC_REQ;
	r->credit_target = pds_to_units256(target);
	c->u.i.creq_sent = r->credit_target;
	p->st.credit_req_tx++;
}

static void
pds_initiator_hdr_req(struct uet_pds *p, struct pds_pdc *c,
		 const struct pds_slot *sl, uint32_t psn, struct uet_wire_pds_hdr *h)
{
	struct uet_wire_pds_req *r = &h->u.req;
	int32_t clr = uet_psn_diff(c->u.i.una - 1, psn);

	pds_initiator_hdr_type(p, c, sl, h);
	h->next_hdr = sl->kind;
	if ((sl->flags & SLOT_F_AR) || pds_initiator_ar(p, c) ||
	    pds_rod_wnd_last(p, c, psn) || pds_initiator_lone(c, sl, psn))
		h->flags |= UET_PDS_F_AR;
	/* CLEAR_PSN rides on every request (UEC 1.0 CLEAR_PSN). */
	if (clr < INT16_MIN)
		clr = INT16_MIN;
	if (clr > 0)
		clr = 0;
	r->clear_psn_offset = (int16_t)clr;
	c->u.i.clear_sent = uet_psn_max(c->u.i.clear_sent, psn + (uint32_t)clr);
	r->psn = psn;
	r->spdcid = c->lid;
	pds_initiator_ids(c, psn, &h->flags, &r->dpdcid, &r->use_rsv_pdc,
		     &r->psn_offset);
	if (uet_psn_ge(c->u.i.una - 1, c->u.i.resp_psn))
		c->flags &= (uint16_t)~PDC_F_CLEAR;
}

/* Descriptors are cleared by copying this: gcc turns a memset() of
 * this size into `rep stos`, whose start-up costs more than the copy. */
static const struct uet_pds_tx pds_tx_zero;

static void
pds_initiator_emit(struct uet_pds *p, struct pds_pdc *c, uint32_t psn, bool retx,
	      uint64_t now, struct uet_pds_tx *t)
{
	struct pds_slot *sl = pds_slot(p, c, psn);
	/* maybe lost under a refused Start_PSN (pds_initiator_renumber) */
	bool again = !retx && pds_slot_why(sl) != PDS_WHY_NONE;

	*t = pds_tx_zero;
	/* The RTO runs from the oldest transmission in flight. The progress
	 * clock (pds_nack_limit, the NACK retransmit limit of UEC 1.0
	 * 3.5.20.3.1) restarts only when the PDC leaves idle: a first
	 * transmission with nothing before it still to answer (una). A
	 * resend of a NACKed packet alone in flight is no progress, or a
	 * packet trimmed at every attempt would never reach the limit; nor
	 * is a new request sent while an older one waits for its response
	 * or for CACK (SLOT_WAIT, not in flight), or a request the target
	 * SACKed behind a hole that can never fill kept its PDC alive for
	 * as long as new requests left (uet-dst generator 1 seed 5001428).
	 * A PDC in SYN state never was idle: its clock runs from its open
	 * (pds_initiator_open), and a burst renumbered after NACK
	 * NEW_START_PSN (pds_initiator_new_start) is sent as new but is no
	 * progress either, or a PDC whose packets the SES no longer builds
	 * (withdrawn) would restart its clock at each refusal and never
	 * fail (UEC 1.0 3.5 PDC establishment: a refused SYN opened
	 * nothing). */
	if (c->u.i.inflight == 0) {
		c->u.i.rto_base = now;
		if (!retx && c->u.i.n_retx == 0 && psn == c->u.i.una &&
		    c->state != PDC_SYN)
			c->u.i.progress_ns = now;
	}
	/* In flight before its header is built: NSCC.AckRequest() assumes
	 * the packet counted (UEC 1.0 section 3.6.13.5). */
	c->u.i.inflight += sl->len;
	if (!(sl->flags & SLOT_F_CP))
		p->cc->on_send(p->cc_inst, pds_cc_priv(p, c), pds_nominal(sl),
			       retx, now);
	if (retx)
		t->hdr.flags = UET_PDS_F_RETX;
	if (sl->flags & SLOT_F_CP)
		pds_initiator_hdr_cp(c, sl, psn, &t->hdr);
	else
		pds_initiator_hdr_req(p, c, sl, psn, &t->hdr);
	t->dst = c->peer;
	/* Every transmission asks the CMS, so a resend may take another
	 * path (UEC 1.0 section 3.6.16; ROD PDCs keep a single path). */
	t->ev = pds_lb_next(p, c, now);
	sl->ev = t->ev;
	t->len = sl->len;
	t->kind = sl->flags & SLOT_F_CP ? UET_PDS_TX_CTL :
		  retx || again ? UET_PDS_TX_RETX : UET_PDS_TX_NEW;
	t->cookie = sl->flags & SLOT_F_CP ? 0 : sl->cookie;
	if (retx) {
		/* Counted now that it leaves, by the reason it was marked. */
		pds_retx_sent(p, pds_slot_why(sl));
		sl->flags = (uint8_t)((sl->flags & ~SLOT_WHY_MASK) |
				      SLOT_F_RETXD |
				      ((sl->flags & SLOT_F_RETXD) ?
				       SLOT_F_RETX2 : 0));
		if (c->u.i.nretx < UINT16_MAX)
			c->u.i.nretx++;
	} else if (again) {
		pds_retx_sent(p, pds_slot_why(sl));
		sl->flags &= (uint8_t)~SLOT_WHY_MASK;
		if (c->u.i.nretx < UINT16_MAX)
			c->u.i.nretx++;
	}
	sl->state = SLOT_SENT;
	sl->sent_ns = now;
}

/*
 * ROD go-back-N window (UEC 1.0 3.5.7.2: the target drops every packet
 * past a hole and the sender resends from it): what a loss costs is what
 * flew past the hole before the NACK came back, so a ROD PDC's packets in
 * flight are cut in half at each go-back-N, down to rod_wnd_min, and grow
 * by one per window acknowledged (additive increase, multiplicative
 * decrease). What the wire carries is unchanged; only when packets leave.
 * Resends keep to the window as new packets do (pds_rod_wnd_has): the cut
 * comes after the window it cuts has left, and a go-back-N marks all of
 * it, from the hole to snd. Resent whole at each go-back, the window of
 * before the cut went again every round: under 28 % loss and 44 % trims
 * una crept one or two PSNs a round, and the packet at snd - 1 was resent
 * at every go-back, F-RTO and tail probe, 63 times in 45 ms while the
 * window was 8 (fuzz_dst retx-bound, generator 9, a ROD READ's return
 * data).
 */
static bool
pds_rod_wnd_on(const struct uet_pds *p, const struct pds_pdc *c)
{
	return c->mode == UET_PDS_MODE_ROD && p->cfg.rod_wnd_min != 0;
}

/* Room for PSN snd in the ROD window (always, outside ROD). */
static bool
pds_rod_wnd_room(const struct uet_pds *p, const struct pds_pdc *c)
{
	return !pds_rod_wnd_on(p, c) ||
	       c->u.i.snd - c->u.i.una < c->u.i.rod_wnd;
}

/* @p psn is inside the ROD window (always, outside ROD): it may leave,
 * new or again. What lies past it waits, marked, for una to move
 * (pds_initiator_tx_retx, pds_initiator_retx_ready). */
bool
pds_rod_wnd_has(const struct uet_pds *p, const struct pds_pdc *c,
		uint32_t psn)
{
	return !pds_rod_wnd_on(p, c) || psn - c->u.i.una < c->u.i.rod_wnd;
}

/* @p psn fills the ROD window: AR, so that the target's ACK opens it
 * again without waiting for the ACK coalescing delay. */
bool
pds_rod_wnd_last(const struct uet_pds *p, const struct pds_pdc *c,
		 uint32_t psn)
{
	return pds_rod_wnd_on(p, c) &&
	       psn - c->u.i.una + 1 >= c->u.i.rod_wnd;
}

void
pds_rod_wnd_cut(struct uet_pds *p, struct pds_pdc *c)
{
	struct pds_initiator *i = &c->u.i;
	uint32_t half = i->rod_wnd / 2u, floor = p->cfg.rod_wnd_min;

	if (!pds_rod_wnd_on(p, c))
		return;
	if (floor > p->cfg.tx_window)
		floor = p->cfg.tx_window;
	i->rod_wnd = (uint16_t)(half > floor ? half : floor);
	i->rod_acked = 0;
}

void
pds_rod_wnd_grow(struct uet_pds *p, struct pds_pdc *c, uint32_t acked)
{
	struct pds_initiator *i = &c->u.i;
	uint32_t n = i->rod_acked + acked;

	if (!pds_rod_wnd_on(p, c) || i->rod_wnd >= p->cfg.tx_window)
		return;
	if (n >= i->rod_wnd) {
		n -= i->rod_wnd;
		i->rod_wnd++;
	}
	i->rod_acked = (uint16_t)(n < i->rod_wnd ? n : i->rod_wnd);
}

/*
 * A window never deadlocks a PDC: with nothing in flight, no ACK would
 * open it, so one packet may go. Credit is another matter (UEC 1.0 RCCC;
 * htsim's isSendPermitted()): a packet never goes without it, since the
 * receiver's pacer, not the ACKs, brings it, and a blocked PDC asks for
 * it (pds_initiator_credit_req). A credit-based CC (credit_target set)
 * is therefore asked with nothing in flight too, and lets its window
 * pass then itself (uet_pds_cc_ops.may_send). Two PDCs have no credit
 * loop and keep the window rule: one not established yet, whose
 * speculative packets were all trimmed (a CP needs the dpdcid, and the
 * target keeps nothing of a trimmed SYN: the request is the credit
 * request), and the return direction (it sends no CPs, and its receiver
 * paces nothing).
 */
static bool
pds_initiator_gate(struct uet_pds *p, const struct pds_pdc *c, uint16_t len)
{
	if (c->u.i.inflight == 0 &&
	    (p->cc->credit_target == NULL || c->role != PDS_ROLE_INIT ||
	     c->state != PDC_OPEN))
		return true;
	return p->cc->may_send(p->cc_inst, pds_cc_priv(p, c), len,
			       c->u.i.inflight);
}

/* Which packets marked for retransmission pds_initiator_tx_retx sends. */
enum pds_retx_which {
	PDS_RETX_LOST,    /* all but those a receiver resource refused */
	PDS_RETX_REFUSED, /* those (PDS_WHY_BACKOFF) only */
	PDS_RETX_ALL,
};

/* The packets marked for retransmission, of those @p which names, in PSN
 * order: what lies past the peer's range or past the ROD window waits for
 * it (pds_rod_wnd_has), and nothing goes past a PSN that can never be
 * built (SLOT_GONE): nothing past it can complete (on ROD, none is ever
 * accepted), however long una takes to reach it and fail the PDC
 * (pds_initiator_unbuildable). Resent every round while una crept one
 * stored response per RTO, a packet past the hole outlived every
 * retransmission bound (fuzz_dst, test/dst/fuzz-fixed/
 * retx-bound.resent-past-unbuildable-hole). */
static uint16_t
pds_initiator_tx_retx(struct uet_pds *p, struct pds_pdc *c, uint64_t now,
		      struct uet_pds_tx *tx, uint16_t n,
		      enum pds_retx_which which)
{
	uint32_t psn;
	uint16_t k = 0;
	struct pds_slot *sl;
	bool refused;

	for (psn = c->u.i.una; c->u.i.n_retx > 0 && k < n &&
	     psn != c->u.i.snd && pds_initiator_room(p, c, psn) &&
	     pds_rod_wnd_has(p, c, psn); psn++) {
		sl = pds_slot(p, c, psn);
		if (sl->state == SLOT_GONE)
			break;
		if (sl->state != SLOT_RETX)
			continue;
		refused = pds_slot_why(sl) == PDS_WHY_BACKOFF;
		if (which != PDS_RETX_ALL &&
		    refused != (which == PDS_RETX_REFUSED))
			continue;
		if (!pds_initiator_gate(p, c, sl->len)) {
			/* a credit-based CC may have nothing left to grant:
			 * the retransmissions are backlog too */
			pds_initiator_credit_req(p, c, now);
			break;
		}
		c->u.i.n_retx--;
		pds_initiator_emit(p, c, psn, true, now, &tx[k++]);
	}
	return k;
}

uint16_t
pds_initiator_tx(struct uet_pds *p, struct pds_pdc *c, uint64_t now,
	    struct uet_pds_tx *tx, uint16_t n)
{
	struct pds_slot *sl;
	bool ordered;
	uint16_t k;

	if (c->state == PDC_FREE || (c->flags & PDC_F_BACKOFF))
		return 0;
	/*
	 * Losses first; packets a receiver resource refused after the
	 * packets never sent (RUD: the order is free). Those may be what
	 * frees the resource: the target's message records all held by
	 * deferred messages whose receives wait for their restarts, the
	 * refused packet a new message wanting a record, the restarts
	 * queued behind it, and a window of one packet (NSCC at one MTU
	 * after the receiver's penalty) that the refused packet took again
	 * at the end of every back-off: nothing moved for good (fuzz_dst,
	 * test/dst/fuzz-fixed/defer-restart-behind-refused). ROD delivers
	 * in order: all of them in PSN order, before the new ones. A later
	 * loss resent before an earlier refused packet only met ROD_OOO, and
	 * with a window of one packet (NSCC at one MTU, no RCCC credit) the
	 * refused packet waited behind it at every RTO while the later one
	 * went again each time (fuzz_dst, test/dst/fuzz-fixed/
	 * retx-bound.rod-tail-behind-refused-hole: 34 resends in 27 ms).
	 */
	ordered = c->mode == UET_PDS_MODE_ROD;
	k = pds_initiator_tx_retx(p, c, now, tx, n,
				  ordered ? PDS_RETX_ALL : PDS_RETX_LOST);
	while (k < n && c->u.i.snd != c->u.i.nxt &&
	       pds_initiator_room(p, c, c->u.i.snd)) {
		sl = pds_slot(p, c, c->u.i.snd);
		if (sl->state == SLOT_DONE) { /* moved unsent (RUD closing) */
			c->u.i.snd++;
			continue;
		}
		if (!pds_rod_wnd_room(p, c))
			break; /* the ACK of the packet with AR opens it */
		if (!pds_initiator_gate(p, c, sl->len)) {
			pds_initiator_credit_req(p, c, now);
			break;
		}
		pds_initiator_emit(p, c, c->u.i.snd, false, now, &tx[k++]);
		c->u.i.snd++;
	}
	if (!ordered)
		k += pds_initiator_tx_retx(p, c, now, tx + k, n - k,
					   PDS_RETX_REFUSED);
	/* Stopped at the peer's range: off the active list (has_work)
	 * until the ACK that moves its CACK kicks the PDC. */
	if (c->u.i.snd != c->u.i.nxt && !pds_initiator_room(p, c, c->u.i.snd))
		p->st.mpr_limited++;
	/* Nothing to carry CLEAR_PSN: send a CLEAR CP (UEC 1.0 PDS). */
	if (pds_initiator_clear_due(p, c) && pds_initiator_clear_tx(p, c, now)) {
		if (uet_psn_ge(c->u.i.una - 1, c->u.i.resp_psn))
			c->flags &= (uint16_t)~PDC_F_CLEAR;
		p->st.clear_idle++;
	}
	if (k > 0) {
		c->last_ns = now;
		pds_pdc_timer_update(p, c, now);
	}
	return k;
}

bool
pds_initiator_has_work(struct uet_pds *p, const struct pds_pdc *c, uint64_t now)
{
	(void)now;
	if (c->state == PDC_FREE || (c->flags & PDC_F_BACKOFF))
		return false;
	return pds_initiator_retx_ready(p, c) ||
	       (c->u.i.snd != c->u.i.nxt && pds_initiator_room(p, c, c->u.i.snd) &&
		pds_rod_wnd_room(p, c)) ||
	       pds_initiator_clear_due(p, c);
}

void
pds_initiator_kick(struct uet_pds *p, struct pds_pdc *c)
{
	if (pds_initiator_has_work(p, c, 0))
		pds_list_push(p, &p->active, pds_idx(p, c));
}

/* Complete every pending cookie of the transmit side with @p status. */
void
pds_initiator_abort(struct uet_pds *p, struct pds_pdc *c, int status)
{
	struct pds_slot *sl;
	uint32_t psn;

	for (psn = c->u.i.una; c->tblk != PDS_NIL && psn != c->u.i.nxt; psn++) {
		sl = pds_slot(p, c, psn);
		if (sl->state != SLOT_DONE && !(sl->flags & SLOT_F_CP))
			pds_done_pdc(p, c, sl->cookie, status, psn);
		sl->state = SLOT_DONE;
	}
}

/* Fail every pending cookie and close the PDC (UEC 1.0 PDS NACK codes fatal,
 * 3 retries exhausted). */
void
pds_initiator_fail(struct uet_pds *p, struct pds_pdc *c, int status)
{
	pds_initiator_abort(p, c, status);
	if (p->mv_n != 0)
		pds_move_unhold(p, c, status);
	if (c->flags & PDC_F_KEYED)
		pds_ikey_del(p, c);
	p->st.pdc_fail++;
	pds_pdc_down(p, c, status);
	pds_pdc_free(p, c);
}

/* Fail @p c with @p status for a reason of this end (retries exhausted, a
 * packet that cannot be built). The return direction's initiator waits
 * for this data and sends nothing: tell it (fatal NACK class, DECISION)
 * so it fails its end too. Best effort: if lost, its next packet meets
 * INV_DPDCID. */
static void
pds_initiator_give_up(struct uet_pds *p, struct pds_pdc *c, int status,
		      uint64_t now)
{
	if (c->role == PDS_ROLE_TGT)
		pds_nack_tx(p, &c->peer, pds_lb_next(p, c, now),
			    UET_NACK_CLOSING_IN_ERR, c->u.i.una, c->lid,
			    c->rid, 0);
	pds_initiator_fail(p, c, status);
}

/*
 * PSN @p psn of @p c, just handed out with @p cookie, can never be built
 * (uet_pds_tx_unbuildable): the PDS keeps no copy of a packet, so the PSN
 * can never be filled and no ACK will ever move una past it. Resent every
 * RTO, it kept its PDC alive for as long as the peer answered (the budget
 * fails a PDC once its peer is also silent; uet-dst generator 1 seed
 * 5117982). DECISION (docs/WIRE-DECISIONS.md "A request that cannot be
 * built"): an error the PDC cannot recover from (UEC 1.0 3.5 PDS-SES
 * interface, pds_ses_error: every unacknowledged request of the PDC
 * completes with the error), taken when the PSN is the oldest one
 * outstanding: what was sent before it still completes, and nothing
 * after it can (CACK never passes the hole). Until then it leaves the
 * window and is not resent (SLOT_GONE), nor is anything past it
 * (pds_initiator_tx_retx); the RTO that follows una's
 * arrival there fails the PDC (pds_initiator_rto). A NOOP in the PSN
 * would move the window but deliver part of a message at the target and
 * leave the rest waiting for ever.
 */
int
pds_initiator_unbuildable(struct uet_pds *p, struct pds_pdc *c, uint32_t psn,
			  uint64_t cookie, uint64_t now)
{
	struct pds_slot *sl;

	if (c->tblk == PDS_NIL || !uet_psn_ge(psn, c->u.i.una) ||
	    !uet_psn_gt(c->u.i.snd, psn))
		return -ENOENT;
	sl = pds_slot(p, c, psn);
	if (sl->state != SLOT_SENT || (sl->flags & SLOT_F_CP) ||
	    sl->cookie != cookie)
		return -ENOENT;
	if (psn != c->u.i.una) {
		PDS_SLOT_UNSEND(p, c, sl);
		sl->state = SLOT_GONE;
		pds_cc_flush_loss(p, c, now);
		return 0;
	}
	p->st.tx_unbuildable++;
	pds_initiator_give_up(p, c, -ECONNRESET, now);
	return 0;
}

/* Mark every in-flight slot sent before @p before for retransmission
 * because of @p why (RTO, go-back-N).
 * @p wait_too: also the request at una if it waits for its response
 * (WAIT): the target holds CACK below it (UEC 1.0 3.5.20.2.2), so its
 * stored response was lost or is still due; a duplicate makes the target
 * send it again. WAIT requests above una wait for CACK to pass what lies
 * below them (default responses): resending them would only make
 * duplicates; their turn comes when una reaches them.
 * Returns how many were marked. */
uint32_t
pds_initiator_mark_from(struct uet_pds *p, struct pds_pdc *c, uint32_t from,
		   bool wait_too, enum pds_why why, uint64_t before)
{
	struct pds_slot *sl;
	uint32_t psn, k = 0;

	for (psn = from; psn != c->u.i.snd; psn++) {
		sl = pds_slot(p, c, psn);
		if (sl->sent_ns >= before)
			continue;
		if (sl->state != SLOT_SENT &&
		    !(wait_too && sl->state == SLOT_WAIT && psn == c->u.i.una))
			continue;
		pds_slot_mark(p, c, sl, why);
		k++;
	}
	return k;
}

/*
 * Close @p c: unkeyed at once (new messages open a new PDC), the CLOSE CP
 * once nothing is outstanding. A message open on it (UET_PDS_SUBMIT_SOM)
 * holds the close, the PDC still keyed for that message's rest only
 * (pds_pdc_held: on RUD the key's other requests open a new PDC), until
 * its last packet is queued (pds_initiator_msg_end): all packets of a
 * message go on one PDC (UEC
 * 1.0 3.5.20), and the target's SES reassembles a message on the PDC of
 * its first packet. Unkeyed, the rest of the message opened a new PDC,
 * where the target took it for another message that never completed
 * (uet-dst generator 1 seed 10048737, a close of the initiator's own
 * while a 130 KB send waited for window).
 */
int
pds_initiator_close(struct uet_pds *p, struct pds_pdc *c, uint64_t now)
{
	if (c->open_msgs != 0 && (c->flags & PDC_F_KEYED) &&
	    c->state != PDC_CLOSING) {
		if (!(c->flags & PDC_F_CLOSE_REQ))
			p->st.close_held++;
		c->flags |= PDC_F_CLOSE_REQ;
		return 0;
	}
	if (c->flags & PDC_F_KEYED) {
		pds_ikey_del(p, c);
		c->flags &= (uint16_t)~PDC_F_KEYED;
	}
	if (c->state == PDC_CLOSING)
		return 0;
	c->flags |= PDC_F_CLOSE_REQ;
	if (c->u.i.una != c->u.i.nxt) {
		/* Close once idle (timer deadline is now). */
		pds_pdc_timer_update(p, c, now);
		return 0;
	}
	if (c->state == PDC_SYN) {
		pds_pdc_free(p, c);
		return 0;
	}
	/* UEC 1.0 PDS PDC close: CLOSE CP with AR; freed on its ACK. */
	if (pds_initiator_queue_cp(p, c, UET_PDS_CTL_CLOSE, 0) < 0) {
		/* No transmit block free: wait in line for one
		 * (pds_blk_wait), else try again after RTO_INIT, not at
		 * every tick. Thousands of PDCs closing at once (idle close,
		 * uet-perf --pdcs) each retrying per tick were a timer storm
		 * that starved the closes in flight of CPU. */
		pds_blk_wait(p, c);
		c->last_ns = now + p->cfg.rto_init_ns;
		pds_pdc_timer_update(p, c, now);
		return 0;
	}
	c->state = PDC_CLOSING;
	c->flags &= (uint16_t)~PDC_F_BLKWAIT;
	pds_pdc_timer_update(p, c, now);
	return 0;
}

/*
 * Idle for idle_close_ns: close, unless a large READ's data is still to
 * come on this PDC (UEC 1.0 lock_pdc, uet_pds_pdc_lock). Then ask the
 * target whether it still has the PDC instead: a CLEAR with AR, which it
 * ACKs, or NACKs INV_DPDCID once it gave the PDC up (its return data
 * failed, it restarted), which fails ours and so the READ (PDC_DOWN).
 * Without it a lost fatal NACK of the target would leave the READ waiting
 * on a PDC nobody sends on. A peer that answers nothing at all (gone, cut
 * off) fails the PDC with -ETIMEDOUT once it has been silent for as long
 * as the RTO rounds would wait for it (pds_dead_ns), as a PDC with
 * requests in flight would: nothing else ends the READ.
 */
static void
pds_initiator_idle(struct uet_pds *p, struct pds_pdc *c, uint64_t now)
{
	if (c->u.i.locks == 0 || c->state != PDC_OPEN) {
		pds_initiator_close(p, c, now);
		return;
	}
	if (now - c->u.i.progress_ns >= pds_dead_ns(p)) {
		p->st.lock_silent++;
		pds_initiator_fail(p, c, -ETIMEDOUT);
		return;
	}
	p->st.lock_keepalive++;
	pds_initiator_clear_tx(p, c, now);
	c->last_ns = now;
	pds_pdc_timer_update(p, c, now);
}

uint64_t
pds_initiator_deadline(struct uet_pds *p, const struct pds_pdc *c)
{
	const struct pds_initiator *i = &c->u.i;
	uint64_t rto, d = 0;

	if (c->flags & PDC_F_BACKOFF)
		return i->backoff_until;
	if (i->una != i->snd) {
		rto = pds_rto_due(p, c);
		d = rto;
		/* a tail: nothing left to send, or nothing that may
		 * leave before an ACK (a full ROD window, the end of the
		 * peer's range) */
		if (p->cfg.tlp_ns && !(c->flags & PDC_F_TLP) &&
		    (i->snd == i->nxt || !pds_rod_wnd_room(p, c) ||
		     !pds_initiator_room(p, c, i->snd)) &&
		    i->retries == 0 &&
		    i->rto_base + p->cfg.tlp_ns < rto)
			d = i->rto_base + p->cfg.tlp_ns;
		return d;
	}
	if (i->una != i->nxt) {
		/* Queued with nothing in flight: a window lets one go, but
		 * only a CACK that moves opens the peer's range (UEC 1.0
		 * MP_Range), and only credit a credit-blocked PDC: probe
		 * for them (pds_initiator_window_probe, _credit_probe). */
		if (!pds_initiator_window_held(p, c) &&
		    !(c->flags & PDC_F_CREQ))
			return 0;
		return pds_rto_due(p, c);
	}
	if (c->role != PDS_ROLE_INIT)
		return 0; /* closing is the initiator's (UEC 1.0 PDS) */
	/* A message is open: the SES's next packet decides, not a timer
	 * (pds_initiator_close). */
	if (c->open_msgs != 0 && (c->flags & PDC_F_KEYED))
		return i->locks != 0 && c->state == PDC_OPEN ?
			       c->last_ns + p->cfg.rto_init_ns : 0;
	if ((c->flags & PDC_F_CLOSE_REQ) && c->state != PDC_CLOSING)
		return c->last_ns ? c->last_ns : 1;
	/* Idle close, or the keepalive of a locked PDC (pds_initiator_idle):
	 * every RTO_INIT when PDCs do not close for being idle. */
	if (p->cfg.idle_close_ns && c->state == PDC_OPEN)
		return c->last_ns + p->cfg.idle_close_ns;
	if (i->locks != 0 && c->state == PDC_OPEN)
		return c->last_ns + p->cfg.rto_init_ns;
	return 0;
}

/*
 * What an RTO resends. UEC 1.0 PDS retransmission (RUD loss sequences,
 * 3.5.20.3.2): a packet is resent when its own timeout expires, with
 * RETX set, up to Max_RTO_Retx_Cnt times; the timeout does not grow
 * (pds_rto_ns). This PDS keeps one timer per PDC, restarted by progress
 * (una moving) and by a first send from idle, so it expires no earlier
 * than the timeout of the oldest outstanding packet; retries counts its
 * expiries without progress, and past max_retries, with the peer silent
 * for pds_dead_ns, the PDC fails. When
 * it expires, many packets may have expired - after a stall of this end,
 * all of them at once - but a window whose ACKs were only late (this end
 * did not run, or they were lost) is not lost: resending it would send
 * the window twice, all of it duplicates.
 * DECISION: an expiry resends one packet, the one sent longest ago, as
 * htsim's rtxTimerExpired resends the packet of the earliest send time
 * (uec.cpp): the packet at una unless a NACK or SACK had it resent more
 * recently than a later one (refused at every attempt, it would starve
 * the packets behind it; ROD resends at una, the only PSN its target
 * takes), whatever it waits for: its ACK, or as a WAIT
 * slot at una its guaranteed-delivery response, which a duplicate makes
 * the target send again. The next ACK decides (pds_ack_frto, after F-RTO,
 * RFC 5682): if it acknowledges a packet never retransmitted the rest was
 * late, and SACK, NACK and the next RTO repair what is really missing;
 * otherwise every packet sent before the RTO is lost and is resent
 * (WIRE-DECISIONS "RTO: the oldest packet first").
 */
static void
pds_initiator_rto_mark(struct uet_pds *p, struct pds_pdc *c)
{
	struct pds_initiator *i = &c->u.i;
	struct pds_slot *sl, *old = NULL;
	uint32_t psn, old_psn = 0, left = 0;

	/* One expiry a round, so a scan of the window is cheap. */
	for (psn = i->una; psn != i->snd; psn++) {
		sl = pds_slot(p, c, psn);
		if (sl->state != SLOT_SENT &&
		    !(sl->state == SLOT_WAIT && psn == i->una))
			continue;
		left++;
		/* ROD: the target takes only the expected PSN, so una's
		 * packet is the one that can make progress. */
		if (old == NULL || (c->mode != UET_PDS_MODE_ROD &&
				    (int64_t)(sl->sent_ns - old->sent_ns) < 0)) {
			old = sl;
			old_psn = psn;
		}
	}
	if (old != NULL)
		pds_slot_mark(p, c, old, PDS_WHY_RTO);
	/* A packet first sent after the episode began and now resent by
	 * the RTO belongs to it as well: una passing the older ones is no
	 * progress for it (pds_rto_episode_over). Left out, a late ACK of
	 * the older packet restarted the dead-peer clock of one resent
	 * unanswered all along (uet-dst generator 3 seed 16216290: 111
	 * resends in 47 ms, a partition both ways and an ACK 23 ms late). */
	if (old != NULL && !uet_psn_lt(old_psn, pds_rto_end(c, i->una)))
		i->rto_snd = (uint16_t)(old_psn + 1);
	if (left > 1)
		c->flags |= PDC_F_FRTO;
	else
		c->flags &= (uint16_t)~PDC_F_FRTO;
}

/*
 * Packets marked for retransmission wait behind the CC gate, held shut
 * by packets in flight whose ACKs never come (NSCC's window down to one
 * MTU under loss): marking only the oldest would change nothing, the
 * RTO would double until the PDC fails. Every packet in flight for a
 * whole RTO_INIT is then presumed lost as well (UEC 1.0 NSCC
 * OnInferredLoss on a timeout), which opens the window to the resends.
 */
static void
pds_initiator_rto_unblock(struct uet_pds *p, struct pds_pdc *c, uint64_t now)
{
	struct pds_initiator *i = &c->u.i;
	struct pds_slot *sl;
	uint32_t psn;

	if (i->n_retx == 0 || i->inflight == 0 ||
	    p->cc->may_send(p->cc_inst, pds_cc_priv(p, c), p->cfg.mtu,
			    i->inflight))
		return;
	p->st.rto_unblock++;
	for (psn = i->una; psn != i->snd; psn++) {
		sl = pds_slot(p, c, psn);
		if (sl->state == SLOT_SENT &&
		    now - sl->sent_ns >= p->cfg.rto_init_ns)
			pds_slot_mark(p, c, sl, PDS_WHY_RTO);
	}
}

/* A timer fired with no answer: the CREDIT_REQ, the requests carrying
 * the target or the grants may have been lost (a failed link of a
 * sprayed path). A blocked source asks again at its next send
 * (pds_initiator_credit_req), even if a resend carried the same target:
 * otherwise it waited, one RTO and one packet at a time, for credit the
 * receiver had granted into the dead link and would not grant again. */
static void
pds_initiator_credit_lost(struct pds_pdc *c)
{
	c->flags = (uint16_t)((c->flags & ~PDC_F_CREQ) | PDC_F_CREQ_LOST);
}

static void
pds_initiator_rto(struct uet_pds *p, struct pds_pdc *c, uint64_t now)
{
	int rc;

	/* Refused under SYN, the rest of the burst never answered: renumber
	 * now (pds_initiator_syn_refused), to the Start_PSN the target named:
	 * it refuses a burst whole and names one Start_PSN to all of it
	 * (pds_target_syn.c), while a fresh one is refused again, so under
	 * loss of its answers a new pick each time would never open. */
	if (c->state == PDC_SYN && pds_initiator_syn_refused_any(p, c)) {
		p->st.rto_fires++;
		pds_initiator_new_start(p, c, c->u.i.syn_named, now);
		return;
	}
	/* The oldest PSN can never be built (pds_initiator_unbuildable). */
	if (pds_slot(p, c, c->u.i.una)->state == SLOT_GONE) {
		p->st.rto_fires++;
		p->st.tx_unbuildable++;
		pds_initiator_give_up(p, c, -ECONNRESET, now);
		return;
	}
	/* UEC 1.0 PDS retransmission: past Max_RTO_Retx_Cnt expiries
	 * without progress, once the peer was silent for pds_dead_ns, fail
	 * and close. */
	rc = pds_rto_count(p, c, now);
	if (rc < 0) {
		pds_initiator_give_up(p, c, -ETIMEDOUT, now);
		return;
	}
	/* A timeout is a loss on the path of the packet it is about (UEC
	 * 1.0 section 3.6.16: REPS freezes, single path moves when idle). */
	pds_lb_loss(p, c, pds_slot(p, c, c->u.i.una)->ev, now);
	pds_initiator_rto_mark(p, c);
	pds_initiator_rto_unblock(p, c, now);
	/* None of it may leave inside the peer's range: ask for the CACK
	 * that moves it (pds_initiator_window_probe). */
	if (pds_initiator_window_held(p, c))
		pds_initiator_clear_tx(p, c, now);
	c->u.i.rto_base = now;
	pds_initiator_credit_lost(c);
	pds_cc_flush_loss(p, c, now);
	pds_initiator_kick(p, c);
	pds_pdc_timer_update(p, c, now);
}

/* UEC 1.0 PDS tail-loss probe (PROBE or ACK_REQ CP, pds_initiator_ctl.c, or a
 * resend of the tail) before the RTO. */
static void
pds_initiator_tlp(struct uet_pds *p, struct pds_pdc *c, uint64_t now)
{
	struct pds_slot *sl = pds_slot(p, c, c->u.i.snd - 1);

	c->flags |= PDC_F_TLP;
	pds_initiator_credit_lost(c);
	/* A closing PDC has nothing in flight but its CLOSE, which asks for
	 * an ACK itself (AR): a probe behind it would only meet INV_DPDCID
	 * once the target has freed the PDC. The RTO resends the CLOSE. */
	if (c->state == PDC_CLOSING) {
		pds_pdc_timer_update(p, c, now);
		return;
	}
	if (pds_initiator_probe(p, c, now) || pds_initiator_ack_req(p, c, now)) {
		p->st.tlp_fires++;
	} else if (sl->state == SLOT_SENT) {
		/* A SYN-state PDC has no dpdcid for a CP to name, and the
		 * return direction sends no CPs (pds.c): resend the tail
		 * instead; its RETX flag makes the receiver ACK at once, and
		 * a SYN request may open the PDC itself. */
		pds_slot_mark(p, c, sl, PDS_WHY_TLP);
		p->st.tlp_fires++;
		pds_cc_flush_loss(p, c, now);
		pds_initiator_kick(p, c);
	}
	pds_pdc_timer_update(p, c, now);
}

void
pds_initiator_timer(struct uet_pds *p, struct pds_pdc *c, uint64_t now)
{
	struct pds_initiator *i = &c->u.i;

	if (c->flags & PDC_F_BACKOFF) {
		if (now < i->backoff_until) {
			pds_pdc_timer_update(p, c, now);
			return;
		}
		c->flags &= (uint16_t)~PDC_F_BACKOFF;
		pds_initiator_kick(p, c);
		/* An RTO that expired during the round fires now: the next
		 * refusal may start another round before the timer runs
		 * again, and lost (not refused) packets would starve. */
		if (i->una != i->snd &&
		    now >= pds_rto_due(p, c))
			pds_initiator_rto(p, c, now);
		else
			pds_pdc_timer_update(p, c, now);
		return;
	}
	if (i->una != i->snd) {
		if (now >= pds_rto_due(p, c))
			pds_initiator_rto(p, c, now);
		else if (now >= pds_initiator_deadline(p, c))
			pds_initiator_tlp(p, c, now);
		else
			pds_pdc_timer_update(p, c, now);
		return;
	}
	if (i->una != i->nxt && now >= pds_rto_due(p, c)) {
		if (pds_initiator_window_held(p, c)) {
			pds_initiator_window_probe(p, c, now);
			return;
		}
		if (c->flags & PDC_F_CREQ) {
			pds_initiator_credit_probe(p, c, now);
			return;
		}
	}
	if (i->una == i->nxt && c->state != PDC_CLOSING &&
	    pds_initiator_deadline(p, c) != 0 && now >= pds_initiator_deadline(p, c)) {
		pds_initiator_idle(p, c, now);
		return;
	}
	pds_pdc_timer_update(p, c, now);
}
