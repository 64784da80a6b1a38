/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Target side of RUD and ROD PDCs (UEC 1.0 PDS RUD and ROD modes): PDC creation
 * on the first SYN, the receive window anchored at CACK, duplicate detection,
 * exactly-once delivery, NACK generation, stored guaranteed-delivery
 * responses, CLEAR and CLOSE. ACK coalescing and generation and the target
 * timers live in pds_target_ack.c.
 */

#include "pds_private.h"

static void
pds_rxinfo(const struct uet_wire_pds_hdr *h, struct pds_rxinfo *ri)
{
	ri->syn = (h->flags & UET_PDS_F_SYN) != 0;
	ri->cp = h->type == UET_PDS_TYPE_CP;
	if (ri->cp) {
		ri->psn = h->u.cp.psn;
		ri->spdcid = h->u.cp.spdcid;
		ri->dpdcid = h->u.cp.dpdcid;
		ri->psn_offset = h->u.cp.psn_offset;
		ri->rsv = h->u.cp.use_rsv_pdc;
		ri->mode = (h->flags & UET_PDS_F_ISROD) ? UET_PDS_MODE_ROD :
							  UET_PDS_MODE_RUD;
		return;
	}
	ri->psn = h->u.req.psn;
	ri->spdcid = h->u.req.spdcid;
	ri->dpdcid = h->u.req.dpdcid;
	ri->psn_offset = h->u.req.psn_offset;
	ri->rsv = h->u.req.use_rsv_pdc;
	ri->mode = (h->type == UET_PDS_TYPE_ROD_REQ ||
		    h->type == UET_PDS_TYPE_ROD_CC_REQ) ? UET_PDS_MODE_ROD :
							   UET_PDS_MODE_RUD;
}

void
pds_target_nack(struct uet_pds *p, const struct uet_pds_rx_meta *m,
	     const struct pds_rxinfo *ri, uint16_t lid, uint8_t code,
	     uint32_t psn)
{
	pds_nack_tx(p, &m->src, m->ev, code, psn, lid, ri->spdcid,
		    m->ce ? UET_PDS_F_M : 0);
}

/* ---- stored responses ----
 *
 * A PDC's stored responses form a list in ascending PSN order (c->resp the
 * oldest, c->resp_tail the newest). In-order arrivals append at the tail
 * and CLEAR pops from the head, so both cost O(1) per response however many
 * are held; only an out-of-order PSN (RUD) walks to its place.
 */

static void
pds_resp_link(struct uet_pds *p, struct pds_pdc *c, uint32_t r)
{
	uint32_t psn = p->resp[r].psn, *link = &c->resp, q;

	if (c->resp == PDS_NIL ||
	    uet_psn_gt(psn, p->resp[c->resp_tail].psn)) {
		p->resp[r].next = PDS_NIL;
		if (c->resp == PDS_NIL)
			c->resp = r;
		else
			p->resp[c->resp_tail].next = r;
		c->resp_tail = r;
		return;
	}
	/* Below the tail, so the walk stops before the end of the list. */
	while (uet_psn_lt(p->resp[q = *link].psn, psn))
		link = &p->resp[q].next;
	p->resp[r].next = q;
	*link = r;
}

void
pds_resp_clear(struct uet_pds *p, struct pds_pdc *c, uint32_t clear_psn)
{
	uint32_t r;

	while ((r = c->resp) != PDS_NIL &&
	       uet_psn_le(p->resp[r].psn, clear_psn)) {
		c->resp = p->resp[r].next;
		if (p->resp[r].watch)
			pds_resp_cleared(p, c, r, 0);
		pds_pool_put(&p->resp_pool, r);
		c->nresp--;
		/* Progress: a later crossing may ask again. */
		c->flags &= (uint16_t)~PDC_F_CLEARQ;
		c->u.t.clear_reqs = 0;
	}
}

/* Forget the response entry of exactly @p psn (an undone reservation);
 * the responses of other PSNs stay until their CLEAR. */
void
pds_resp_drop(struct uet_pds *p, struct pds_pdc *c, uint32_t psn)
{
	uint32_t *link = &c->resp, r, prev = PDS_NIL;

	while ((r = *link) != PDS_NIL) {
		if (p->resp[r].psn == psn) {
			*link = p->resp[r].next;
			if (r == c->resp_tail)
				c->resp_tail = prev;
			pds_pool_put(&p->resp_pool, r);
			c->nresp--;
			return;
		}
		prev = r;
		link = &p->resp[r].next;
	}
}

/* The newest entry first: a response usually answers the latest request. */
static uint32_t
pds_resp_find(struct uet_pds *p, const struct pds_pdc *c, uint32_t psn)
{
	uint32_t r;

	if (c->resp == PDS_NIL)
		return PDS_NIL;
	if (p->resp[c->resp_tail].psn == psn)
		return c->resp_tail;
	for (r = c->resp; r != PDS_NIL && uet_psn_lt(p->resp[r].psn, psn);
	     r = p->resp[r].next)
		;
	return r != PDS_NIL && p->resp[r].psn == psn ? r : PDS_NIL;
}

/*
 * The CACK this target reports (UEC 1.0 3.5.20.2.2): CACK must not pass a
 * request whose guaranteed-delivery response is stored and not yet
 * cleared, nor one the SES has not answered yet (its reservation), or the
 * initiator would take it for a default response (uet_pds_respond_default)
 * and complete it without the answer. The receive window and duplicate
 * detection keep using the real CACK.
 */
uint32_t
pds_target_cack_report(const struct uet_pds *p, const struct pds_pdc *c)
{
	uint32_t cack = c->u.t.cack;

	if (c->role == PDS_ROLE_TGT && c->resp != PDS_NIL &&
	    uet_psn_le(p->resp[c->resp].psn, cack))
		return p->resp[c->resp].psn - 1;
	return cack;
}

static void
pds_resp_send(struct uet_pds *p, struct pds_pdc *c, uint32_t r)
{
	struct pds_resp *e = &p->resp[r];
	uint32_t cack = pds_target_cack_report(p, c);
	int32_t off = uet_psn_diff(e->psn, cack);
	struct uet_pds_tx *t;

	if (off < INT16_MIN || off > INT16_MAX)
		return;
	t = pds_ctl_push(p);
	if (t == NULL)
		return;
	t->hdr.type = UET_PDS_TYPE_ACK;
	t->hdr.next_hdr = e->next_hdr;
	uet_wire_pds_ack_req_set(&t->hdr, UET_PDS_ACK_REQ_CLEAR);
	t->hdr.u.ack.ack_psn_offset = (int16_t)off;
	t->hdr.u.ack.cack_psn = cack;
	t->hdr.u.ack.spdcid = c->lid;
	t->hdr.u.ack.dpdcid = c->rid;
	t->dst = c->peer;
	t->ev = c->u.t.ev;
	t->resp = pds_resp_data(p, r);
	t->resp_len = e->len;
	pds_target_resp_sack(p, c, t);
}

static bool pds_target_resp_reserve(struct uet_pds *p, struct pds_pdc *c,
				 uint32_t psn);

/*
 * uet_pds_respond() of the pending delivery @p psn: accept it, with a
 * stored-response entry for its answer. A request answered before the
 * last packet of its message (an error) had none reserved at arrival.
 * Without room for the answer the request is refused NO_GTD_DEL_AVAIL,
 * as pds_target_accept() does: accepted, CACK would pass it and its
 * initiator read the default response, OK, whatever the answer was
 * (UEC 1.0 3.5.20.2 guaranteed delivery). The initiator sends it again.
 */
int
pds_target_accept_answered(struct uet_pds *p, struct pds_pdc *c, uint32_t psn,
			   uint64_t now)
{
	if (pds_resp_find(p, c, psn) == PDS_NIL &&
	    !pds_target_resp_reserve(p, c, psn)) {
		pds_target_refuse(p, c, psn, UET_NACK_NO_GTD_DEL_AVAIL);
		return -EAGAIN;
	}
	pds_target_commit(p, now);
	return 0;
}

/* uet_pds_respond() of an accepted request with its entry reserved. */
int
pds_target_respond(struct uet_pds *p, struct pds_pdc *c, uint32_t psn,
		uint8_t next_hdr, const void *resp, uint16_t len)
{
	uint32_t r = pds_resp_find(p, c, psn);
	struct pds_resp *e;

	if (r == PDS_NIL || p->resp[r].ready)
		return -ENOENT;
	e = &p->resp[r];
	e->ready = 1;
	e->next_hdr = next_hdr;
	e->len = len;
	if (len)
		memcpy(pds_resp_data(p, r), resp, len);
	pds_resp_send(p, c, r);
	return 0;
}

/* uet_pds_resp_watch(): the response of @p psn, given and not cleared. */
int
pds_target_resp_watch(struct uet_pds *p, struct pds_pdc *c, uint32_t psn,
		      uint64_t cookie)
{
	uint32_t r = pds_resp_find(p, c, psn);

	if (r == PDS_NIL || !p->resp[r].ready)
		return -ENOENT;
	p->resp[r].watch = 1;
	p->resp[r].cookie = cookie;
	return 0;
}

/* uet_pds_respond_default(): nothing to store; the ACK that reports
 * CACK past @p psn is the answer, so ask for one now (as a stored
 * response would have left now); ACKs of one burst still coalesce. */
int
pds_target_respond_default(struct uet_pds *p, struct pds_pdc *c, uint32_t psn)
{
	uint32_t r = pds_resp_find(p, c, psn);

	if (r == PDS_NIL || p->resp[r].ready)
		return -ENOENT;
	pds_resp_drop(p, c, psn);
	p->st.resp_default++;
	pds_target_want_ack(p, c);
	return 0;
}

void
pds_target_release(struct uet_pds *p, struct pds_pdc *c)
{
	/* A CLOSE comes once every request of its initiator was answered
	 * (una = nxt), so a stored response uncleared then was received;
	 * a PDC gone any other way (given up, replaced by a restarted
	 * initiator's SYN) may have lost it (UEC 1.0 3.5.20.2.2). */
	int status = c->state == PDC_CLOSED ? 0 : -ECONNRESET;
	uint32_t r;

	while ((r = c->resp) != PDS_NIL) {
		c->resp = p->resp[r].next;
		if (p->resp[r].watch)
			pds_resp_cleared(p, c, r, status);
		pds_pool_put(&p->resp_pool, r);
	}
	c->nresp = 0;
	pds_tkey_del(p, c);
	pds_tomb_add(p, &c->peer, c->rid, c->start_psn);
}

/* ---- lookup and creation (UEC 1.0 PDS PDC establishment) ---- */

struct pds_pdc *
pds_target_create(struct uet_pds *p, const struct uet_pds_rx_meta *m,
	       const struct pds_rxinfo *ri, uint64_t now)
{
	struct pds_pdc *c = pds_pdc_alloc(p, PDS_ROLE_TGT, ri->rsv, now);

	if (c == NULL) {
		pds_target_nack(p, m, ri, 0, UET_NACK_NO_PDC_AVAIL, ri->psn);
		return NULL;
	}
	c->peer = m->src;
	c->rid = ri->spdcid;
	c->mode = ri->mode;
	c->state = PDC_OPEN;
	c->start_psn = ri->psn - ri->psn_offset;
	pds_pdc_psn_init(p, c, now);
	c->u.t.sdom = m->sdom; /* syn_expected: pds_sdom_retire */
	/* First packet of a PDC is ACKed at once (PDC establishment). */
	c->u.t.ackf = ACKF_NEED;
	pds_tkey_add(p, c);
	p->st.pdc_open_tgt++;
	return c;
}

static struct pds_pdc *
pds_target_lookup(struct uet_pds *p, const struct uet_pds_rx_meta *m,
	       const struct pds_rxinfo *ri, uint64_t now)
{
	struct pds_pdc *c;

	if (ri->syn)
		return pds_target_syn(p, m, ri, now);
	c = pds_pdc_by_lid(p, PDS_ROLE_TGT, ri->dpdcid);
	if (c == NULL || c->rid != ri->spdcid ||
	    memcmp(&c->peer, &m->src, sizeof(m->src)) != 0) {
		if (!m->trimmed && !m->trimmed_lasthop)
			pds_target_nack(p, m, ri, ri->dpdcid,
				     UET_NACK_INV_DPDCID, ri->psn);
		return NULL;
	}
	return c;
}

/* ---- receive window (UEC 1.0 PDS: anchored at CACK) ---- */

static void
pds_bit_flip(struct uet_pds *p, struct pds_pdc *c, uint32_t psn)
{
	uint32_t b = psn & (p->cfg.rx_window - 1);

	pds_rx_bits(p, c)[b / 64] ^= UINT64_C(1) << (b % 64);
}

/* Received already: at or below CACK, or its bit set (a PSN past the
 * window has no bit of its own: it shares one with a PSN in the window). */
static bool
pds_target_is_dup(struct uet_pds *p, const struct pds_pdc *c, uint32_t psn)
{
	return uet_psn_le(psn, c->u.t.cack) ||
	       (psn - (c->u.t.cack + 1) < p->cfg.rx_window &&
		pds_rx_bit_test(p, c, psn));
}

/* Record psn as received; false when no receive block is available. */
static bool
pds_target_record(struct uet_pds *p, struct pds_pdc *c, uint32_t psn)
{
	struct pds_target *t = &c->u.t;

	if (psn != t->cack + 1) {
		if (!pds_rx_blk_attach(p, c))
			return false;
		pds_bit_flip(p, c, psn);
		t->nbits++;
		p->st.ooo_rx++;
	} else {
		t->cack++;
		while (t->nbits && pds_rx_bit_test(p, c, t->cack + 1)) {
			pds_bit_flip(p, c, t->cack + 1);
			t->nbits--;
			t->cack++;
		}
		if (t->nbits == 0)
			pds_rx_blk_detach(p, c);
	}
	t->hi = uet_psn_max(t->hi, psn);
	return true;
}


/*
 * CLEAR_PSN (UEC 1.0 PDS guaranteed delivery), on a request or a CLEAR:
 * free the stored responses up to it. On a RUD target PDC asked to close
 * it also names the PSNs its initiator gave up on this PDC: a PSN not
 * received at or below it is a request this target refused with NACK
 * CLOSING and its initiator moved (nothing else leaves an initiator's
 * window unanswered without failing the PDC). It counts as received, so
 * CACK passes it and the requests delivered after it, which their
 * initiator completes only once CACK passes them (uet-dst generator 1
 * seed 5001428: CACK held below a moved hole, a delivered request waited
 * until its PDC failed); a late copy of it is then a duplicate, never
 * run. A CLEAR_PSN past @p limit passes nothing: past the highest PSN
 * received (outside the window), or, on a new request, at or past that
 * request's own PSN, which no initiator has given up while sending it
 * (recorded here, it would be recorded again as it is taken).
 */
static void
pds_target_cleared(struct uet_pds *p, struct pds_pdc *c, uint32_t clear_psn,
		   uint32_t limit)
{
	struct pds_target *t = &c->u.t;

	pds_resp_clear(p, c, clear_psn);
	if (c->role != PDS_ROLE_TGT || c->state != PDC_CLOSING ||
	    c->mode == UET_PDS_MODE_ROD || uet_psn_gt(clear_psn, limit) ||
	    uet_psn_gt(clear_psn, t->hi))
		return;
	while (uet_psn_le(t->cack + 1, clear_psn)) {
		p->st.closing_cleared++;
		pds_target_record(p, c, t->cack + 1);
	}
}

static void
pds_target_dup(struct uet_pds *p, struct pds_pdc *c, const struct uet_wire_pds_hdr *h,
	    const struct pds_rxinfo *ri, const struct uet_pds_rx_meta *m)
{
	uint32_t r = PDS_NIL;

	p->st.dup_rx++;
	if (!ri->cp) {
		/* A retransmission carries the sender's CLEAR_PSN as of its
		 * resend (UEC 1.0 CLEAR_PSN); clearing up to an older one is
		 * a no-op. */
		pds_target_cleared(p, c, uet_wire_pds_req_clear_psn(&h->u.req),
				   c->u.t.hi);
		r = pds_resp_find(p, c, ri->psn);
	}
	/* UEC 1.0 NACK codes: a duplicate of a request whose SES processing
	 * has not finished (its response entry is reserved, not answered)
	 * gets RCVD_SES_PROCG, not an ACK: the answer is still to come. */
	if (r != PDS_NIL && !p->resp[r].ready) {
		pds_target_nack(p, m, ri, c->lid, UET_NACK_RCVD_SES_PROCG,
			     ri->psn);
		return;
	}
	/* Other duplicates are re-ACKed, never NACKed (UEC 1.0 PDS
	 * duplicates). The ACK still names the last new packet (ACK_PSN),
	 * so it echoes that one's RETX, not the duplicate's. */
	if (m->ce)
		c->u.t.ackf |= ACKF_M;
	/* ... and its SACK covers the duplicate (pds_target_sack_base) */
	if (!(c->u.t.ackf & ACKF_PROBE) &&
	    uet_psn_gt(ri->psn, pds_target_cack_report(p, c)) &&
	    (!c->u.t.dup_want || uet_psn_lt(ri->psn, c->u.t.probe_base))) {
		c->u.t.probe_base = ri->psn;
		c->u.t.dup_want = true;
	}
	pds_target_want_ack(p, c);
	if (r != PDS_NIL) {
		pds_resp_send(p, c, r);
		p->st.resp_resent++;
	}
}

/*
 * ROD drops out-of-order packets and NACKs ROD_OOO for the expected PSN
 * (UEC 1.0 PDS go-back-N), once per expected PSN. If the resent head is
 * lost as well, the sender's go-back-N retransmissions keep arriving past
 * the hole with RETX set; rod_renack of them mean the head's resend left
 * before them on the same path (ROD is single-path, UEC 1.0 load balancing) and
 * was lost: NACK again instead of leaving the recovery to the RTO. First-flight
 * stragglers (RETX clear) do not count, so a resend still on its way is
 * not NACKed twice.
 */
static void
pds_target_rod_ooo(struct uet_pds *p, struct pds_pdc *c,
		const struct pds_rxinfo *ri, const struct uet_pds_rx_meta *m,
		uint8_t flags)
{
	struct pds_target *t = &c->u.t;

	if (t->rod_nacked == t->cack + 1) {
		if (!(flags & UET_PDS_F_RETX) || p->cfg.rod_renack == 0 ||
		    ++t->rod_ooo_retx < p->cfg.rod_renack)
			return;
		p->st.rod_renack++;
	}
	t->rod_nacked = t->cack + 1;
	t->rod_ooo_retx = 0;
	pds_target_nack(p, m, ri, c->lid, UET_NACK_ROD_OOO, t->cack + 1);
}

/*
 * A request reaching a closing target PDC that continues a message the
 * SES has begun on it (uet_pds_ulp.continues). All packets of a message
 * go on one PDC (UEC 1.0 3.5.20) and the PDS keeps a PDC from closing
 * while a message on it is unfinished: refused, the rest of the message
 * would move to a new PDC, where the SES, which reassembles a message on
 * the PDC that began it, takes it for another message: neither completes,
 * the moved EOM answered RCVD_SES_PROCG until its PDC fails (the class of
 * uet-dst generator 2 seed 8000077, a tagged send split over PDCs).
 */
static bool
pds_target_continues(struct uet_pds *p, struct pds_pdc *c,
		     const struct uet_wire_pds_hdr *h,
		     const struct uet_pds_rx_meta *m)
{
	if (p->ulp.continues == NULL ||
	    h->next_hdr < UET_PDS_NEXT_REQUEST_SMALL ||
	    h->next_hdr > UET_PDS_NEXT_REQUEST_STD ||
	    !p->ulp.continues(p->ulp.arg, pds_handle(p, pds_idx(p, c)),
			      h->next_hdr, m->ses, m->ses_len))
		return false;
	p->st.closing_continued++;
	return true;
}

/* Reject what cannot be accepted now; true when a NACK was queued. */
static bool
pds_target_reject(struct uet_pds *p, struct pds_pdc *c,
	       const struct uet_wire_pds_hdr *h, const struct pds_rxinfo *ri,
	       const struct uet_pds_rx_meta *m)
{
	struct pds_target *t = &c->u.t;
	uint32_t d = ri->psn - (t->cack + 1);

	if (c->mode == UET_PDS_MODE_ROD && d != 0) {
		pds_target_rod_ooo(p, c, ri, m, h->flags);
		return true;
	}
	if (d >= p->cfg.rx_window) {
		pds_target_nack(p, m, ri, c->lid, UET_NACK_PSN_OOR_WINDOW, ri->psn);
		return true;
	}
	/* Closing (CLOSE_REQ, UEC 1.0 PDC close): a request not received
	 * yet is refused with NACK CLOSING and its initiator moves it to a
	 * new PDC, unless it continues a message begun on this PDC
	 * (pds_target_continues). Every copy of a PSN meets the same answer:
	 * a hole below the highest PSN received, once taken, ran a request
	 * twice when a copy of it had been refused before hi passed it (the
	 * initiator had moved it; fuzz_dst, docs/DST.md). Its initiator's
	 * CLEAR_PSN then passes the hole, which lets CACK pass it
	 * (pds_target_cleared). */
	if (c->role == PDS_ROLE_TGT && c->state == PDC_CLOSING && !ri->cp &&
	    !pds_target_continues(p, c, h, m)) {
		pds_target_nack(p, m, ri, c->lid, UET_NACK_CLOSING, ri->psn);
		return true;
	}
	return false;
}

static int
pds_target_ctl(struct uet_pds *p, struct pds_pdc *c, const struct uet_wire_pds_hdr *h)
{
	/* Reliable CPs (pds.c): NOOP and NEGOTIATION (none negotiated)
	 * only want the ACK; so does any CP of the return direction. */
	switch (c->role == PDS_ROLE_TGT ? h->next_hdr : UET_PDS_CTL_NOOP) {
	case UET_PDS_CTL_CLOSE:
		/* UEC 1.0 PDS PDC close: ACK, then free (after the ACK). */
		c->state = PDC_CLOSED;
		break;
	default:
		break;
	}
	pds_target_want_ack(p, c);
	return 0;
}

static int
pds_target_deliver(struct uet_pds *p, struct pds_pdc *c,
		const struct uet_wire_pds_hdr *h, const struct uet_pds_rx_meta *m)
{
	struct pds_event *e = pds_event_push(p);

	p->st.delivered++;
	if (e == NULL)
		return 0;
	e->type = UET_PDS_EV_DELIVER;
	e->mode = c->mode;
	e->next_hdr = h->next_hdr;
	e->pdc = pds_handle(p, pds_idx(p, c));
	e->psn = h->u.req.psn;
	e->cookie = m->pkt_cookie;
	e->peer = m->src;
	return 1;
}

/* Reserve a stored-response entry before accepting (UEC 1.0 PDS guaranteed
 * delivery). */
static bool
pds_target_resp_reserve(struct uet_pds *p, struct pds_pdc *c, uint32_t psn)
{
	uint32_t r = pds_pool_get(&p->resp_pool);

	if (r == PDS_NIL) {
		p->st.exhaust_resp++;
		return false;
	}
	memset(&p->resp[r], 0, sizeof(p->resp[r]));
	p->resp[r].psn = psn;
	pds_resp_link(p, c, r);
	c->nresp++;
	/* UEC 1.0 PDS guaranteed delivery: past the high-water mark ask
	 * the initiator (once per crossing) to advance CLEAR_PSN now. */
	if (p->resp_pool.cap - p->resp_pool.nfree >= p->resp_hw &&
	    !(c->flags & PDC_F_CLEARQ)) {
		c->flags |= PDC_F_CLEARQ;
		c->u.t.ackf |= ACKF_CLEAR_REQ;
		pds_list_push(p, &p->acks, pds_idx(p, c));
	}
	return true;
}

/* A new request accepted (UEC 1.0 NSCC destination side): its nominal
 * bytes count in rcvd_bytes; the receiver keeps up again. Before it is
 * recorded, so that the CC sees whether it came out of order. */
static void
pds_target_cc_rx(struct uet_pds *p, struct pds_pdc *c, uint32_t psn,
	      uint16_t len, bool ce, uint64_t now)
{
	c->u.t.rcvd_bytes += len + UET_PDS_CC_NOMINAL_OVH;
	if (p->cc->rx_data != NULL)
		p->cc->rx_data(p->cc_inst, pds_cc_priv(p, c),
			       len + UET_PDS_CC_NOMINAL_OVH,
			       psn != c->u.t.cack + 1, ce, now);
	if (p->cc->rx_overload != NULL)
		p->cc->rx_overload(p->cc_inst, pds_cc_priv(p, c), false);
}

/* Record @p psn as received and let the ACK policy see it. */
static void
pds_target_note(struct uet_pds *p, struct pds_pdc *c, uint32_t psn,
	     uint8_t flags, const struct uet_pds_rx_meta *m, uint64_t now)
{
	/* Cannot fail: an out-of-order PSN got its block at accept. */
	if (!pds_target_record(p, c, psn)) {
		p->st.exhaust_rxblk++;
		return;
	}
	c->u.t.ack_psn = psn;
	c->u.t.rx_ns = (uint32_t)now;
	c->u.t.rx_unknown = false;
	pds_target_ack_policy(p, c, flags, m, now);
}

/* The SES did not refuse the pending delivery (uet_pds_rx()). */
void
pds_target_commit(struct uet_pds *p, uint64_t now)
{
	struct pds_pend *pd = &p->pend;
	struct pds_pdc *c = pds_handle_pdc(p, pd->handle);
	struct uet_pds_rx_meta m;

	pd->valid = false;
	if (c == NULL)
		return;
	memset(&m, 0, sizeof(m));
	m.len = pd->len;
	m.ce = pd->ce;
	pds_target_cc_rx(p, c, pd->psn, pd->len, pd->ce, now);
	pds_target_note(p, c, pd->psn, pd->flags, &m, now);
	/* The service time runs from the arrival, not from the commit. */
	c->u.t.rx_ns = (uint32_t)pd->rx_ns;
	pds_pdc_timer_update(p, c, now);
}

/* uet_pds_refuse(): forget the pending delivery as if never received and
 * NACK it with a resource code; the sender backs off (UEC 1.0 NACK codes). */
int
pds_target_refuse(struct uet_pds *p, struct pds_pdc *c, uint32_t psn,
	       uint8_t code)
{
	struct pds_pend *pd = &p->pend;

	pd->valid = false;
	if (pd->resp)
		pds_resp_drop(p, c, psn);
	if (pd->blk && c->u.t.nbits == 0)
		pds_rx_blk_detach(p, c);
	p->st.refused++;
	/* UEC 1.0 NSCC: a refusing receiver asks its senders to slow down
	 * (rcv_cwnd_pend) until it accepts again. */
	if (p->cc->rx_overload != NULL)
		p->cc->rx_overload(p->cc_inst, pds_cc_priv(p, c), true);
	pds_nack_tx(p, &c->peer, c->u.t.ev, code, psn, c->lid, c->rid,
		    pd->ce ? UET_PDS_F_M : 0);
	pds_pdc_timer_update(p, c, 0); /* deadlines come from PDC state */
	return 0;
}

/* Keep the delivery pending until the SES had its say (uet_pds_refuse):
 * the PSN is recorded, hence ACKable, only at the next PDS call. */
static void
pds_target_pend(struct uet_pds *p, struct pds_pdc *c, const struct uet_wire_pds_hdr *h,
	     const struct uet_pds_rx_meta *m, bool resp, bool blk,
	     uint64_t now)
{
	struct pds_pend *pd = &p->pend;

	pd->valid = true;
	pd->resp = resp;
	pd->blk = blk;
	pd->ce = m->ce;
	pd->flags = h->flags;
	pd->len = m->len;
	pd->handle = pds_handle(p, pds_idx(p, c));
	pd->psn = h->u.req.psn;
	pd->rx_ns = now;
}

static int
pds_target_accept(struct uet_pds *p, struct pds_pdc *c,
	       const struct uet_wire_pds_hdr *h, const struct pds_rxinfo *ri,
	       const struct uet_pds_rx_meta *m, uint64_t now)
{
	/* Return-direction data is itself a response: nothing to store. */
	bool resp = !ri->cp && m->resp_expected && c->role == PDS_ROLE_TGT;
	bool blk = c->rblk == PDS_NIL;

	if (resp && !pds_target_resp_reserve(p, c, ri->psn)) {
		pds_target_nack(p, m, ri, c->lid, UET_NACK_NO_GTD_DEL_AVAIL,
			     ri->psn);
		return 0;
	}
	/* Out of order needs the receive block: take it now, so recording
	 * cannot fail once the SES has the request. */
	if (ri->psn != c->u.t.cack + 1 && !pds_rx_blk_attach(p, c)) {
		if (resp)
			pds_resp_drop(p, c, ri->psn); /* undo the reserve */
		pds_target_nack(p, m, ri, c->lid, UET_NACK_NO_BITMAP, ri->psn);
		return 0;
	}
	blk = blk && c->rblk != PDS_NIL;
	if (ri->cp) {
		pds_target_note(p, c, ri->psn, h->flags, m, now);
		return pds_target_ctl(p, c, h);
	}
	/* UEC 1.0 RCCC: RUD/ROD_CC_REQ carry the sender's credit_target
	 * (256 B units); the grant rides in the ACK_CC. */
	if (uet_wire_pds_type_is_cc_req(h->type) && h->u.req.credit_target)
		pds_target_credit_request(p, c,
				       pds_from_units256(h->u.req.credit_target),
				       (uint32_t)m->len + UET_PDS_CC_NOMINAL_OVH,
				       now);
	pds_target_cleared(p, c, uet_wire_pds_req_clear_psn(&h->u.req),
			   ri->psn - 1);
	if (pds_target_deliver(p, c, h, m) == 0) {
		pds_target_cc_rx(p, c, ri->psn, m->len, m->ce, now);
		pds_target_note(p, c, ri->psn, h->flags, m, now);
		return 0;
	}
	pds_target_pend(p, c, h, m, resp, blk, now);
	return 1;
}

/* The receive side of either end, once the PDC is known (or not). */
static int
pds_rx_common(struct uet_pds *p, struct pds_pdc *c,
	      const struct uet_wire_pds_hdr *h, const struct pds_rxinfo *ri,
	      const struct uet_pds_rx_meta *m, uint64_t now)
{
	int rc = 0;

	if (m->trimmed || m->trimmed_lasthop) {
		/* UEC 1.0 packet trimming: NACK with the PSN and M = CE; a
		 * trimmed packet is not received. */
		pds_target_nack(p, m, ri, c ? c->lid : 0,
			     m->trimmed_lasthop ? UET_NACK_TRIMMED_LASTHOP :
						  UET_NACK_TRIMMED, ri->psn);
		return 0;
	}
	if (c == NULL)
		return 0;
	if (c->mode != ri->mode) {
		pds_target_nack(p, m, ri, c->lid, UET_NACK_PDC_MODE_MISMATCH,
			     ri->psn);
		return 0;
	}
	/* Echoed by the ACK it triggers (UEC 1.0 section 3.6.16); the
	 * transmit side asks the CMS for its own EVs. */
	pds_target_ev_set(p, c, m);
	c->last_ns = now;
	if (pds_target_is_dup(p, c, ri->psn))
		pds_target_dup(p, c, h, ri, m);
	else if (!pds_target_reject(p, c, h, ri, m))
		rc = pds_target_accept(p, c, h, ri, m, now);
	/* A pending delivery re-arms the timer when it is committed (at
	 * the next PDS call, before any timer runs) or refused. */
	if (c->state != PDC_FREE && rc == 0)
		pds_pdc_timer_update(p, c, now);
	return rc;
}

int
pds_target_rx(struct uet_pds *p, const struct uet_wire_pds_hdr *h,
	   const struct uet_pds_rx_meta *m, uint64_t now)
{
	struct pds_rxinfo ri;

	pds_rxinfo(h, &ri);
	return pds_rx_common(p, pds_target_lookup(p, m, &ri, now), h, &ri, m,
			     now);
}

/*
 * ACK_REQ (UEC 1.0 PDS control packets, NACK codes) asks for the ACK of
 * the PSN it names. Received (at or below CACK, or its bit set): ACK it
 * now, ACK_PSN naming it, or resend its stored response, which rides in
 * an ACK. Not received: NACK PKT_NOT_RCVD with that PSN, and the sender
 * resends it. Read data this target sends back travels as requests of the
 * return direction or in a stored response, never only in an ACK it
 * could not rebuild, so it has no use for ACK_WITH_DATA.
 */
static void
pds_target_ack_req(struct uet_pds *p, struct pds_pdc *c,
		const struct pds_rxinfo *ri, const struct uet_pds_rx_meta *m)
{
	uint32_t r;

	if (!pds_target_is_dup(p, c, ri->psn)) {
		pds_target_nack(p, m, ri, c->lid, UET_NACK_PKT_NOT_RCVD, ri->psn);
		return;
	}
	r = c->role == PDS_ROLE_TGT ? pds_resp_find(p, c, ri->psn) : PDS_NIL;
	if (r != PDS_NIL && p->resp[r].ready) {
		pds_resp_send(p, c, r);
		p->st.resp_resent++;
		return;
	}
	/* rx_ns is the arrival of the last new packet; naming another PSN,
	 * whose arrival is not kept, the ACK must not carry a service time
	 * from it: the sender would take the wrong RTT (UEC 1.0 3.6.13.1). */
	if (uet_psn_diff(ri->psn, pds_target_cack_report(p, c)) >= INT16_MIN &&
	    ri->psn != c->u.t.ack_psn) {
		c->u.t.ack_psn = ri->psn;
		c->u.t.rx_unknown = true;
	}
	pds_target_want_ack(p, c);
}

/* CLEAR (UEC 1.0 PDS guaranteed delivery): free the stored responses up
 * to its CLEAR_PSN. When that lets the reported CACK move past CLEAR_PSN,
 * ACK: the request after it may complete by default response, and waits
 * for that CACK. Up to CLEAR_PSN the initiator has everything complete,
 * so a CACK that stops there tells it nothing, unless its data waits for
 * the range past our CACK (MP_Range): then its CLEAR has AR, and is
 * ACKed whatever the CACK did (pds_initiator_window_probe). */
static void
pds_target_clear(struct uet_pds *p, struct pds_pdc *c, uint32_t clear_psn,
	      bool ar)
{
	uint32_t cack = pds_target_cack_report(p, c), now_cack;

	if (c->role != PDS_ROLE_TGT)
		return;
	pds_target_cleared(p, c, clear_psn, c->u.t.hi);
	now_cack = pds_target_cack_report(p, c);
	if (ar || (now_cack != cack && uet_psn_gt(now_cack, clear_psn)))
		pds_target_want_ack(p, c);
}

/*
 * An ACK_REQ with SYN comes from a peer whose PDC is not established:
 * it names the PDC by {source FA, spdcid} and Start_PSN. It opens nothing:
 * with no such PDC nothing was received.
 */
static struct pds_pdc *
pds_target_syn_ack_req(struct uet_pds *p, const struct uet_pds_rx_meta *m,
		    const struct pds_rxinfo *ri)
{
	struct pds_pdc *c = pds_tkey_find(p, &m->src, ri->spdcid);

	if (c != NULL && c->start_psn == ri->psn - ri->psn_offset)
		return c;
	pds_target_nack(p, m, ri, 0, UET_NACK_PKT_NOT_RCVD, ri->psn);
	return NULL;
}

/*
 * Unreliable CPs of the sender (pds.c): answered, never delivered or
 * recorded. PROBE (payload = the SACK base the sender wants) is answered
 * by an ACK_CC with the P flag echoing probe_opaque and reporting the
 * current CACK and SACK, so the sender can resend exactly what is missing.
 */
int
pds_target_cp_unseq(struct uet_pds *p, const struct uet_wire_pds_hdr *h,
		 const struct uet_pds_rx_meta *m, uint64_t now)
{
	struct pds_rxinfo ri;
	struct pds_pdc *c;

	pds_rxinfo(h, &ri);
	if (m->trimmed || m->trimmed_lasthop ||
	    (ri.syn && h->next_hdr != UET_PDS_CTL_ACK_REQ)) {
		p->st.rx_bad++;
		return -EBADMSG;
	}
	c = ri.syn ? pds_target_syn_ack_req(p, m, &ri) :
		     pds_target_lookup(p, m, &ri, now);
	if (c == NULL)
		return 0;
	pds_target_ev_set(p, c, m);
	switch (h->next_hdr) {
	case UET_PDS_CTL_CREDIT_REQ:
		pds_target_credit_request(p, c, pds_from_units256(h->u.cp.payload),
				       0, now);
		break;
	case UET_PDS_CTL_ACK_REQ:
		pds_target_ack_req(p, c, &ri, m);
		break;
	case UET_PDS_CTL_CLEAR:
		pds_target_clear(p, c, h->u.cp.payload,
			      (h->flags & UET_PDS_F_AR) != 0);
		break;
	default:
		c->u.t.probe_opaque = h->u.cp.probe_opaque;
		c->u.t.probe_base = h->u.cp.payload;
		c->u.t.ackf |= ACKF_PROBE;
		pds_target_want_ack(p, c);
		break;
	}
	return 0;
}

/* Does a return-direction packet belong to initiator PDC @p c? Before
 * the first ACK the PDC learns the target's id from it, but only for a
 * PSN of this incarnation (Start_PSNs are >= 2^16 apart). */
static bool
pds_ret_match(struct uet_pds *p, struct pds_pdc *c,
	      const struct pds_rxinfo *ri, const struct uet_pds_rx_meta *m)
{
	if (ri->syn || memcmp(&c->peer, &m->src, sizeof(m->src)) != 0)
		return false;
	if (c->state != PDC_SYN)
		return c->rid == ri->spdcid;
	if (ri->psn - c->start_psn >= p->cfg.rx_window)
		return false;
	c->rid = ri->spdcid;
	c->state = PDC_OPEN;
	pds_initiator_syn_open(p, c);
	return true;
}

/* Return-direction requests and CPs at the initiator (UEC 1.0 PDS
 * read responses): same receive window, delivery and ACKs as the
 * forward direction. */
int
pds_ret_rx(struct uet_pds *p, const struct uet_wire_pds_hdr *h,
	   const struct uet_pds_rx_meta *m, uint64_t now)
{
	struct pds_rxinfo ri;
	struct pds_pdc *c;

	pds_rxinfo(h, &ri);
	c = pds_pdc_by_lid(p, PDS_ROLE_INIT, ri.dpdcid);
	if (c == NULL || !pds_ret_match(p, c, &ri, m)) {
		p->st.rx_stale++;
		if (!m->trimmed && !m->trimmed_lasthop)
			pds_target_nack(p, m, &ri, ri.dpdcid, UET_NACK_INV_DPDCID,
				     ri.psn);
		return 0;
	}
	if (!ri.cp && h->next_hdr != UET_PDS_NEXT_RESPONSE_DATA &&
	    h->next_hdr != UET_PDS_NEXT_RESPONSE_DATA_SMALL) {
		p->st.rx_bad++;
		return -EBADMSG;
	}
	return pds_rx_common(p, c, h, &ri, m, now);
}
