/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PDC-less modes (UEC 1.0 PDS RUDI and UUD modes):
 *  - RUDI: at-least-once for idempotent operations. Every request is
 *    answered by RUDI_RESP; the initiator retransmits on RTO (and at once
 *    on a trim NACK with NT=1) until the response, max retries or the NACK
 *    retransmit limit. The target keeps no state, so a retransmission
 *    whose original arrived is delivered again: duplicates are allowed by
 *    design (idempotent ops).
 *  - UUD: best effort, no ACK, no state; the cookie completes when the
 *    packet is handed to the caller, it is never sent twice.
 * pkt_id = sequence(16) | slot(16), so a response finds its slot in O(1)
 * and a late response for a recycled slot is recognised as stale.
 *
 * The RUDI_RESP of a delivered request waits for the SES until the next
 * PDS call (pds_commit): it may carry an SES response (RESPONSE or
 * RESPONSE_DATA_SMALL, UEC 1.0 PDS next-header values 4 and 6) from
 * uet_pds_respond(), or be replaced by a resource NACK (uet_pds_refuse).
 * The response bytes live in a response-pool entry until the descriptor
 * was handed out, then until the next uet_pds_tx_burst().
 */

#include "pds_private.h"

#define RUDI_SLOT_MASK 0xFFFFu

static bool
pds_dgram_push(struct uet_pds *p, const struct pds_dgram *d)
{
	if (pds_ring_full(&p->dgram_r)) {
		p->st.exhaust_queue++;
		return false;
	}
	p->dgram[p->dgram_r.head & p->dgram_r.mask] = *d;
	p->dgram_r.head++;
	return true;
}

static bool
pds_rudi_queue(struct uet_pds *p, uint32_t idx)
{
	struct pds_dgram d = { .rudi = idx };

	/* One ring entry per slot at most (see pds_dgram_tx). */
	if (p->rudi[idx].queued)
		return true;
	if (!pds_dgram_push(p, &d))
		return false;
	p->rudi[idx].queued = 1;
	return true;
}

static void
pds_rudi_release(struct uet_pds *p, uint32_t idx)
{
	pds_timer_cancel(p, pds_rudi_node(p, idx));
	p->rudi[idx].busy = 0;
	pds_pool_put(&p->rudi_pool, idx);
}

static int
pds_rudi_submit(struct uet_pds *p, const struct uet_pds_submit *s)
{
	uint32_t idx = pds_pool_get(&p->rudi_pool);
	struct pds_rudi *r;

	if (idx == PDS_NIL) {
		p->st.exhaust_rudi++;
		return -EAGAIN;
	}
	r = &p->rudi[idx];
	r->dst = s->dst;
	r->cookie = s->cookie;
	r->len = s->len;
	r->next_hdr = s->next_hdr;
	r->retries = 0;
	r->nacks = 0;
	r->backoffs = 0;
	r->backoff = 0;
	r->why = PDS_WHY_NONE;
	r->busy = 1;
	r->pkt_id = ((p->rudi_seq++ & RUDI_SLOT_MASK) << 16) | idx;
	if (!pds_rudi_queue(p, idx)) {
		pds_rudi_release(p, idx);
		return -EAGAIN;
	}
	return 0;
}

int
pds_dgram_submit(struct uet_pds *p, const struct uet_pds_submit *s,
		 uint64_t now)
{
	struct pds_dgram d;

	(void)now;
	if (s->next_hdr < UET_PDS_NEXT_REQUEST_SMALL ||
	    s->next_hdr > UET_PDS_NEXT_REQUEST_STD)
		return -EINVAL;
	if (s->mode == UET_PDS_MODE_RUDI)
		return pds_rudi_submit(p, s);
	memset(&d, 0, sizeof(d));
	d.dst = s->dst;
	d.cookie = s->cookie;
	d.rudi = PDS_NIL;
	d.len = s->len;
	d.next_hdr = s->next_hdr;
	return pds_dgram_push(p, &d) ? 0 : -EAGAIN;
}

static bool
pds_rudi_emit(struct uet_pds *p, uint32_t idx, uint64_t now,
	      struct uet_pds_tx *t)
{
	struct pds_rudi *r = &p->rudi[idx];

	r->queued = 0;
	if (!r->busy) {
		/* Answered while its resend waited: nothing goes. */
		if (r->why != PDS_WHY_NONE)
			p->st.resend_cancelled++;
		r->why = PDS_WHY_NONE;
		return false;
	}
	if (r->retries) {
		/* Counted now that it leaves, by why it was queued. */
		pds_retx_sent(p, (enum pds_why)r->why);
		r->why = PDS_WHY_NONE;
	}
	memset(t, 0, sizeof(*t));
	t->hdr.type = UET_PDS_TYPE_RUDI_REQ;
	t->hdr.next_hdr = r->next_hdr;
	t->hdr.u.rudi.pkt_id = r->pkt_id;
	t->kind = r->retries ? UET_PDS_TX_RETX : UET_PDS_TX_NEW;
	if (r->retries)
		t->hdr.flags = UET_PDS_F_RETX;
	else
		r->first_ns = now;
	t->dst = r->dst;
	/* Each transmission, first or again, asks (pds_lb.c DECISION). */
	t->ev = pds_lb_dgram(p, &r->dst, now);
	t->len = r->len;
	t->cookie = r->cookie;
	r->sent_ns = now;
	pds_timer_arm(p, pds_rudi_node(p, idx),
		      now + p->cfg.rto_init_ns);
	return true;
}

static void
pds_uud_emit(struct uet_pds *p, const struct pds_dgram *d, uint64_t now,
	     struct uet_pds_tx *t)
{
	memset(t, 0, sizeof(*t));
	t->hdr.type = UET_PDS_TYPE_UUD_REQ;
	t->hdr.next_hdr = d->next_hdr;
	t->kind = UET_PDS_TX_NEW;
	t->dst = d->dst;
	t->ev = pds_lb_dgram(p, &d->dst, now);
	t->len = d->len;
	t->cookie = d->cookie;
	pds_done(p, UET_PDS_MODE_UUD, UET_PDS_PDC_NONE, d->cookie, 0, 0);
}

uint16_t
pds_dgram_tx(struct uet_pds *p, uint64_t now, struct uet_pds_tx *tx,
	     uint16_t n)
{
	const struct pds_dgram *d;
	uint16_t k = 0;

	while (k < n && pds_ring_count(&p->dgram_r) > 0) {
		d = &p->dgram[p->dgram_r.tail & p->dgram_r.mask];
		if (d->rudi == PDS_NIL) {
			/* UUD completes now: needs an event slot. */
			if (pds_event_room(p) < p->cfg.tx_window + 2)
				break;
			pds_uud_emit(p, d, now, &tx[k++]);
		} else if (pds_rudi_emit(p, d->rudi, now, &tx[k])) {
			k++;
		}
		p->dgram_r.tail++;
	}
	return k;
}

static struct pds_rudi *
pds_rudi_find(struct uet_pds *p, uint32_t pkt_id,
	      const struct uet_pds_rx_meta *m)
{
	uint32_t idx = pkt_id & RUDI_SLOT_MASK;
	struct pds_rudi *r;

	if (idx >= p->cfg.rudi_slots) {
		p->st.rx_stale++;
		return NULL;
	}
	r = &p->rudi[idx];
	if (!r->busy || r->pkt_id != pkt_id ||
	    memcmp(&r->dst, &m->src, sizeof(m->src)) != 0) {
		p->st.rx_stale++;
		return NULL;
	}
	return r;
}

static int
pds_rudi_resp(struct uet_pds *p, const struct uet_wire_pds_hdr *h,
	      const struct uet_pds_rx_meta *m)
{
	struct pds_rudi *r = pds_rudi_find(p, h->u.rudi.pkt_id, m);
	struct pds_event *e;
	uint16_t len = m->ses_len;

	if (r == NULL)
		return -EBADMSG;
	e = pds_event_push(p);
	p->st.done_ok++;
	if (e != NULL) {
		e->type = UET_PDS_EV_DONE;
		e->mode = UET_PDS_MODE_RUDI;
		e->next_hdr = h->next_hdr;
		e->cookie = r->cookie;
		e->psn = r->pkt_id;
		if (len > UET_PDS_RESP_MAX)
			len = UET_PDS_RESP_MAX;
		e->resp_len = len;
		if (len && m->ses)
			memcpy(pds_event_resp(p, e), m->ses, len);
	}
	pds_rudi_release(p, (uint32_t)(r - p->rudi));
	return 0;
}

/* Resource NACK (UEC 1.0 PDS NACK codes DECISION): retransmit after an
 * exponential back-off; fail with -ECONNREFUSED past max_backoffs. */
static void
pds_rudi_backoff(struct uet_pds *p, uint32_t idx, uint32_t pkt_id,
		 uint64_t now)
{
	struct pds_rudi *r = &p->rudi[idx];
	unsigned int k;
	uint64_t d;

	if (r->backoffs >= p->cfg.max_backoffs) {
		pds_done(p, UET_PDS_MODE_RUDI, UET_PDS_PDC_NONE, r->cookie,
			 -ECONNREFUSED, pkt_id);
		pds_rudi_release(p, idx);
		return;
	}
	k = r->backoffs < 20 ? r->backoffs : 20;
	r->backoffs++;
	d = p->cfg.backoff_init_ns << k;
	if (d > p->cfg.backoff_max_ns)
		d = p->cfg.backoff_max_ns;
	r->backoff = 1;
	r->why = PDS_WHY_BACKOFF;
	pds_timer_cancel(p, pds_rudi_node(p, idx));
	pds_timer_arm(p, pds_rudi_node(p, idx), now + d);
}

/*
 * Retransmission limit of NACK-driven resends (UEC 1.0 PDS
 * Max_NACK_Retx_Cnt), as for a PDC (pds_ack.c pds_nack_limit): each resend
 * re-arms the RTO, so a request trimmed at every attempt would never time
 * out. Past max_nack_retx of them a NACK resends nothing (the RTO does),
 * and once it has gone unanswered for as long as its RTO rounds would
 * have waited (pds_dead_ns), the request fails with -ETIMEDOUT. A NACK arriving while the resend it asks for is
 * still queued (a duplicate) does not count. true when it failed.
 */
static bool
pds_rudi_nack_limit(struct uet_pds *p, uint32_t idx, uint64_t now)
{
	struct pds_rudi *r = &p->rudi[idx];

	if (r->queued)
		return false;
	if (r->nacks < UINT8_MAX)
		r->nacks++;
	if (r->nacks <= p->cfg.max_nack_retx ||
	    now - r->first_ns < pds_dead_ns(p))
		return false;
	p->st.nack_retx_limit++;
	pds_done(p, UET_PDS_MODE_RUDI, UET_PDS_PDC_NONE, r->cookie,
			 -ETIMEDOUT, r->pkt_id);
	pds_rudi_release(p, idx);
	return true;
}

static int
pds_rudi_nack(struct uet_pds *p, const struct uet_wire_pds_hdr *h,
	      const struct uet_pds_rx_meta *m, uint64_t now)
{
	const struct uet_wire_pds_nack *n = &h->u.nack;
	struct pds_rudi *r;
	uint32_t idx;

	p->st.nack_rx[pds_code_idx(n->code)]++;
	r = pds_rudi_find(p, n->psn, m);
	if (r == NULL)
		return -EBADMSG;
	idx = (uint32_t)(r - p->rudi);
	switch (uet_wire_pds_nack_class(n->code)) {
	case UET_NACK_CLASS_RETRANSMIT:
		if (pds_rudi_nack_limit(p, idx, now))
			break;
		if (r->nacks > p->cfg.max_nack_retx) {
			/* Past the limit: the RTO armed at its last send
			 * resends it, backing off (a NACK answered at once
			 * comes back within one RTT, and a late copy of one
			 * would put a second copy on the wire). */
			p->st.nack_to_rto++;
			break;
		}
		r->why = n->code == UET_NACK_TRIMMED ||
			 n->code == UET_NACK_TRIMMED_LASTHOP ? PDS_WHY_TRIM :
							       PDS_WHY_NACK;
		r->retries = r->retries ? r->retries : 1;
		pds_timer_cancel(p, pds_rudi_node(p, idx));
		if (!pds_rudi_queue(p, idx))
			pds_timer_arm(p, pds_rudi_node(p, idx), now);
		break;
	case UET_NACK_CLASS_RESOURCE:
		pds_rudi_backoff(p, idx, n->psn, now);
		break;
	case UET_NACK_CLASS_FATAL:
	case UET_NACK_CLASS_CLOSING:
		pds_done(p, UET_PDS_MODE_RUDI, UET_PDS_PDC_NONE, r->cookie,
			 -ECONNRESET, n->psn);
		pds_rudi_release(p, idx);
		break;
	default:
		break;
	}
	return 0;
}

static int
pds_rudi_req(struct uet_pds *p, const struct uet_wire_pds_hdr *h,
	     const struct uet_pds_rx_meta *m)
{
	struct pds_event *e;

	if (m->trimmed || m->trimmed_lasthop) {
		pds_nack_tx(p, &m->src, m->ev, m->trimmed_lasthop ?
			    UET_NACK_TRIMMED_LASTHOP : UET_NACK_TRIMMED,
			    h->u.rudi.pkt_id, 0, 0,
			    (uint8_t)(UET_PDS_F_NT | (m->ce ? UET_PDS_F_M : 0)));
		return 0;
	}
	if (h->flags & UET_PDS_F_RETX)
		p->st.dup_rx++;
	/* Not delivered, not answered: the initiator retransmits. */
	e = pds_event_push(p);
	if (e == NULL)
		return 0;
	p->st.delivered++;
	p->rpend.valid = true;
	p->rpend.ce = m->ce;
	p->rpend.ev = m->ev;
	p->rpend.pkt_id = h->u.rudi.pkt_id;
	p->rpend.dst = m->src;
	e->type = UET_PDS_EV_DELIVER;
	e->mode = UET_PDS_MODE_RUDI;
	e->next_hdr = h->next_hdr;
	e->pdc = UINT32_MAX;
	e->psn = h->u.rudi.pkt_id;
	e->cookie = m->pkt_cookie;
	e->peer = m->src;
	return 1;
}

static struct uet_pds_tx *
pds_rudi_resp_push(struct uet_pds *p)
{
	struct pds_rudi_pend *rp = &p->rpend;
	struct uet_pds_tx *t;

	rp->valid = false;
	/* No room to answer: drop, the initiator retransmits. */
	t = pds_ctl_push(p);
	if (t == NULL)
		return NULL;
	t->hdr.type = UET_PDS_TYPE_RUDI_RESP;
	t->hdr.flags = rp->ce ? UET_PDS_F_M : 0;
	t->hdr.u.rudi.pkt_id = rp->pkt_id;
	t->dst = rp->dst;
	t->ev = rp->ev;
	return t;
}

/* The SES neither answered nor refused: a bare RUDI_RESP. */
void
pds_rudi_commit(struct uet_pds *p)
{
	(void)pds_rudi_resp_push(p);
}

int
pds_rudi_respond(struct uet_pds *p, uint32_t pkt_id, uint8_t next_hdr,
		 const void *resp, uint16_t len)
{
	struct uet_pds_tx *t;
	uint32_t r;

	if (!p->rpend.valid || p->rpend.pkt_id != pkt_id)
		return -ENOENT;
	r = pds_pool_get(&p->resp_pool);
	if (r == PDS_NIL) {
		/* No answer rather than one without the response. */
		p->rpend.valid = false;
		p->st.exhaust_resp++;
		return -EAGAIN;
	}
	t = pds_rudi_resp_push(p);
	if (t == NULL) {
		pds_pool_put(&p->resp_pool, r);
		return -EAGAIN;
	}
	memset(&p->resp[r], 0, sizeof(p->resp[r]));
	if (len)
		memcpy(pds_resp_data(p, r), resp, len);
	t->hdr.next_hdr = next_hdr;
	t->resp = pds_resp_data(p, r);
	t->resp_len = len;
	p->st.rudi_resp_data++;
	return 0;
}

int
pds_rudi_refuse(struct uet_pds *p, uint32_t pkt_id, uint8_t code)
{
	struct pds_rudi_pend *rp = &p->rpend;

	if (!rp->valid || rp->pkt_id != pkt_id)
		return -ENOENT;
	rp->valid = false;
	p->st.refused++;
	pds_nack_tx(p, &rp->dst, rp->ev, code, pkt_id, 0, 0,
		    (uint8_t)(UET_PDS_F_NT | (rp->ce ? UET_PDS_F_M : 0)));
	return 0;
}

/* A RUDI_RESP with a response left in a burst: its bytes stay valid
 * until the next uet_pds_tx_burst() (pds_rudi_defer_free). */
void
pds_rudi_handed_out(struct uet_pds *p, const struct uet_pds_tx *t)
{
	uint32_t r = (uint32_t)((size_t)(t->resp - p->resp_data) /
				p->resp_max);

	p->resp[r].next = p->resp_defer;
	p->resp_defer = r;
}

void
pds_rudi_defer_free(struct uet_pds *p)
{
	uint32_t r;

	while ((r = p->resp_defer) != PDS_NIL) {
		p->resp_defer = p->resp[r].next;
		pds_pool_put(&p->resp_pool, r);
	}
}

static int
pds_uud_rx(struct uet_pds *p, const struct uet_wire_pds_hdr *h,
	   const struct uet_pds_rx_meta *m)
{
	struct pds_event *e;

	if (m->trimmed || m->trimmed_lasthop) {
		p->st.rx_bad++; /* best effort: a trimmed datagram is lost */
		return 0;
	}
	p->st.delivered++;
	e = pds_event_push(p);
	if (e == NULL)
		return 0;
	e->type = UET_PDS_EV_DELIVER;
	e->mode = UET_PDS_MODE_UUD;
	e->next_hdr = h->next_hdr;
	e->pdc = UINT32_MAX;
	e->cookie = m->pkt_cookie;
	e->peer = m->src;
	return 1;
}

int
pds_dgram_rx(struct uet_pds *p, const struct uet_wire_pds_hdr *h,
	     const struct uet_pds_rx_meta *m, uint64_t now)
{
	if (h->type == UET_PDS_TYPE_RUDI_REQ)
		return pds_rudi_req(p, h, m);
	if (h->type == UET_PDS_TYPE_RUDI_RESP)
		return pds_rudi_resp(p, h, m);
	if (h->type == UET_PDS_TYPE_UUD_REQ)
		return pds_uud_rx(p, h, m);
	return pds_rudi_nack(p, h, m, now);
}

void
pds_rudi_timer(struct uet_pds *p, uint32_t idx, uint64_t now)
{
	struct pds_rudi *r = &p->rudi[idx];

	if (!r->busy)
		return;
	if (r->queued) {
		/* Still waiting in the queue (NACK or back-off path). */
		pds_timer_arm(p, pds_rudi_node(p, idx),
			      now + p->cfg.rto_init_ns);
		return;
	}
	if (r->backoff) {
		/* Back-off over: resend, the RTO budget untouched. */
		r->backoff = 0;
		r->retries = r->retries ? r->retries : 1;
		if (!pds_rudi_queue(p, idx))
			pds_timer_arm(p, pds_rudi_node(p, idx),
				      now + p->cfg.timer_tick_ns);
		return;
	}
	p->st.rto_fires++;
	if (++r->retries > p->cfg.max_retries) {
		pds_done(p, UET_PDS_MODE_RUDI, UET_PDS_PDC_NONE, r->cookie,
			 -ETIMEDOUT, r->pkt_id);
		pds_rudi_release(p, idx);
		return;
	}
	r->why = PDS_WHY_RTO;
	if (!pds_rudi_queue(p, idx))
		pds_timer_arm(p, pds_rudi_node(p, idx),
			      now + p->cfg.timer_tick_ns);
}
