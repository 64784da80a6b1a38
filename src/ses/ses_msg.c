/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SES target, send family (UEC 1.0 SES send variants): matching, reassembly of
 * multi-packet messages by message_offset (RUD delivers packets of a
 * message in any order), unexpected messages, receive posts and receive
 * completions.
 */

#include <errno.h>
#include <string.h>

#include "ses_private.h"

/* ---- multi-packet records, keyed {PDC, message_id} (UEC 1.0 PDS:
 * all packets of a message use one PDC) ---- */

static uint32_t
ses_target_hash(const struct uet_ses *s, uint32_t pdc, uint16_t id)
{
	return ((pdc * 2654435761u) ^ (id * 40503u)) & s->tgt_hmask;
}

static struct ses_target *
ses_target_find(struct uet_ses *s, uint32_t pdc, uint16_t id)
{
	uint32_t i = s->tgt_hash[ses_target_hash(s, pdc, id)];

	for (; i != SES_NIL; i = s->tgts[i].hnext)
		if (s->tgts[i].pdc == pdc && s->tgts[i].msg_id == id)
			return &s->tgts[i];
	return NULL;
}

/*
 * uet_pds_continues_fn: a request reaching a target PDC that asked to
 * close continues a multi-packet message begun on it (a record keyed on
 * the PDC, not answered yet): the PDC takes it, so that the message stays
 * on one PDC (UEC 1.0 3.5.20). A single-packet message, and a packet of
 * one with no record yet (its first packet not in: refused too, the whole
 * message moves), is new.
 */
bool
ses_target_continues(void *arg, uint32_t pdc, uint8_t next_hdr,
		     const uint8_t *ses, uint16_t len)
{
	struct uet_ses *s = arg;
	struct uet_wire_ses_req h;
	const struct ses_target *t;

	if (next_hdr != UET_PDS_NEXT_REQUEST_STD ||
	    uet_wire_ses_req_decode(ses, len, UET_SES_FMT_STD, &h) < 0 ||
	    ((h.flags & UET_SES_F_SOM) && (h.flags & UET_SES_F_EOM)))
		return false;
	t = ses_target_find(s, pdc, h.message_id);
	return t != NULL && !t->responded;
}

void
ses_target_hash_add(struct uet_ses *s, struct ses_target *t)
{
	uint32_t b = ses_target_hash(s, t->pdc, t->msg_id);

	t->hnext = s->tgt_hash[b];
	s->tgt_hash[b] = (uint32_t)(t - s->tgts);
	t->hashed = true;
}

/* Records of rendezvous and parked deferrable messages are found by
 * handle or token, not by {PDC, message_id}: @p hashed false. */
struct ses_target *
ses_target_alloc(struct uet_ses *s, uint32_t pdc, uint16_t id, bool hashed)
{
	struct ses_target *t;
	uint8_t gen;

	if (s->n_tgt_free == 0)
		return NULL;
	t = &s->tgts[s->tgt_free[--s->n_tgt_free]];
	gen = (uint8_t)(t->gen + 1);
	memset(t, 0, sizeof(*t));
	t->gen = gen;
	t->pdc = pdc;
	t->msg_id = id;
	t->unexp = UET_SES_MATCH_NONE;
	t->match = NULL;
	t->hnext = SES_NIL;
	if (hashed)
		ses_target_hash_add(s, t);
	return t;
}

void
ses_target_unhash(struct uet_ses *s, struct ses_target *t)
{
	uint32_t idx = (uint32_t)(t - s->tgts);
	uint32_t *link = &s->tgt_hash[ses_target_hash(s, t->pdc, t->msg_id)];

	if (!t->hashed)
		return;
	while (*link != SES_NIL && *link != idx)
		link = &s->tgts[*link].hnext;
	if (*link == idx)
		*link = t->hnext;
	t->hashed = false;
}

void
ses_target_put(struct uet_ses *s, struct ses_target *t)
{
	ses_target_unhash(s, t);
	t->state = SES_TGT_FREE;
	s->tgt_free[s->n_tgt_free++] = (uint32_t)(t - s->tgts);
}

/* ---- receive completions ---- */

/*
 * FI_MULTI_RECV: the completion that says a multi-recv buffer is released
 * gives the buffer back to the application (fi_cq(3)), so it must be the
 * last one in that buffer. The matching engine releases the buffer with
 * the message whose slice leaves less than min_free; a message matched
 * into it before and still arriving (multi-packet, rendezvous read-back,
 * deferred restart) then takes the flag over and completes last.
 * Found by the deterministic simulator (docs/DST.md, "multi-recv").
 */
static uint32_t
ses_multi_done_flags(struct uet_ses *s, const struct ses_rx_info *i)
{
	uint32_t k;

	if (!(i->flags & UET_SES_CQ_MULTI_RECV_DONE))
		return i->flags;
	for (k = 0; k < s->cfg.max_tgt_msgs; k++) {
		struct ses_target *t = &s->tgts[k];

		if (t == i->rec || t->ctx != i->ctx || t->buf == NULL ||
		    (t->state != SES_TGT_EXPECTED && t->state != SES_TGT_RDV &&
		     t->state != SES_TGT_RTR))
			continue;
		t->cq_flags |= UET_SES_CQ_MULTI_RECV_DONE;
		return i->flags & ~UET_SES_CQ_MULTI_RECV_DONE;
	}
	return i->flags;
}

void
ses_recv_cqe(struct uet_ses *s, const struct ses_rx_info *i)
{
	struct uet_ses_cqe c;

	memset(&c, 0, sizeof(c));
	c.context = i->ctx;
	c.flags = UET_SES_CQ_RECV | UET_SES_CQ_SRC | ses_multi_done_flags(s, i);
	if (i->tagged)
		c.flags |= UET_SES_CQ_TAGGED;
	if (i->hd_valid)
		c.flags |= UET_SES_CQ_IMM;
	if (i->len < i->total) {
		c.flags |= UET_SES_CQ_TRUNC;
		c.olen = i->total - i->len;
	}
	c.len = i->len;
	c.data = i->hd;
	c.tag = i->tag;
	c.offset = i->moff;
	c.src = i->src;
	c.status = i->status;
	c.prov_errno = i->status != 0 ? i->rc : UET_RC_OK;
	c.op = i->tagged ? 2 : 1;
	ses_cq_push(s, &c);
}

static uint32_t
ses_multi_flags(const struct uet_ses_match_result *r)
{
	return (r->flags & UET_SES_MATCH_F_RELEASED) ?
		UET_SES_CQ_MULTI_RECV_DONE : 0;
}

static void
ses_rx_info_msg(struct ses_rx_info *i, const struct uet_ses_match_result *r)
{
	memset(i, 0, sizeof(*i));
	i->ctx = r->context;
	i->len = r->len;
	i->total = r->msg.total_len;
	i->tag = r->msg.tag;
	i->src = r->msg.src;
	i->hd = r->msg.header_data;
	i->tagged = (r->msg.flags & UET_SES_MATCH_MSG_TAGGED) != 0;
	i->hd_valid = (r->msg.flags & UET_SES_MATCH_MSG_HDATA) != 0;
	i->flags = ses_multi_flags(r);
	i->moff = r->offset;
}

/* What a message's record takes from the request that opens it. */
void
ses_target_from_req(struct ses_target *t, const struct uet_pds_event *ev,
		    const struct uet_wire_ses_req *h)
{
	t->opcode = h->opcode;
	t->job = h->job_id;
	t->ri_gen = h->ri_generation;
	t->total = h->request_length;
	t->src = h->initiator;
	t->tagged = ses_op_is_tagged(h->opcode);
	t->tag = t->tagged ? h->match_bits : 0;
	t->fa = ev->peer;
}

void
ses_rx_info_tgt(struct ses_rx_info *i, const struct ses_target *t)
{
	memset(i, 0, sizeof(*i));
	i->ctx = t->ctx;
	i->len = t->cap;
	i->total = t->total;
	i->tag = t->tag;
	i->src = t->src;
	i->hd = t->hd;
	i->tagged = t->tagged;
	i->hd_valid = t->hd_valid;
	i->flags = t->cq_flags;
	i->moff = t->moff;
	i->rec = t;
}

/* ---- responses of the send family (UEC 1.0 SES responses: list EXPECTED /
 * OVERFLOW) ---- */

void
ses_target_respond_rec(struct uet_ses *s, struct ses_target *t, uint64_t now)
{
	struct uet_wire_ses_resp r;

	memset(&r, 0, sizeof(r));
	r.fmt = UET_SES_RESP_FMT_RESPONSE;
	r.list = t->list;
	r.opcode = t->rc == UET_RC_OK && t->cap >= t->total ?
		UET_SES_RSP_DEFAULT_RESPONSE : UET_SES_RSP_RESPONSE;
	r.version = UET_SES_VERSION;
	r.return_code = t->rc;
	r.message_id = t->msg_id;
	r.ri_generation = t->ri_gen;
	r.job_id = t->job;
	r.modified_length = t->rc != UET_RC_OK ? 0 :
		t->state == SES_TGT_EXPECTED ? (uint32_t)t->cap : t->total;
	ses_respond(s, UET_PDS_MODE_RUD, t->pdc, t->eom_psn, &r, NULL, 0,
		    now);
	t->responded = true;
}

void
ses_msg_from_req(const struct uet_wire_ses_req *h, struct uet_ses_match_msg *msg)
{
	memset(msg, 0, sizeof(*msg));
	msg->src = h->initiator;
	msg->initiator = h->initiator;
	msg->total_len = h->request_length;
	msg->hold_len = h->request_length;
	msg->message_id = h->message_id;
	msg->kind = UET_SES_MATCH_KIND_EAGER;
	if (ses_op_is_tagged(h->opcode)) {
		msg->flags |= UET_SES_MATCH_MSG_TAGGED;
		msg->tag = h->match_bits;
	}
	if ((h->flags & UET_SES_F_HD) && (h->flags & UET_SES_F_SOM)) {
		msg->flags |= UET_SES_MATCH_MSG_HDATA;
		msg->header_data = h->header_data;
	}
}

static void
ses_copy_capped(uint8_t *dst, uint64_t cap, uint64_t off, const uint8_t *src,
		uint32_t n)
{
	if (off >= cap)
		return;
	if (n > cap - off)
		n = (uint32_t)(cap - off);
	memcpy(dst + off, src, n);
}

/* The payload at message offset @p off into a receive of @p cap bytes,
 * each piece from where it is. */
static void
ses_pl_copy_capped(struct uet_ses *s, uint8_t *dst, uint64_t cap,
		   uint64_t off, const struct ses_pl *pl)
{
	ses_copy_capped(dst, cap, off, pl->p, pl->n);
	if (pl->tail_n) {
		s->st.rx_split++;
		ses_copy_capped(dst, cap, off + pl->n, pl->tail, pl->tail_n);
	}
}

/* The tail of a payload whose first piece an arrival stored unexpected
 * (uet_ses_match_arrival() takes one piece). */
static void
ses_pl_store_tail(struct uet_ses *s, struct uet_ses_match *m, uint32_t unexp,
		  uint32_t off, const struct ses_pl *pl)
{
	if (pl->tail_n == 0)
		return;
	s->st.rx_split++;
	(void)uet_ses_match_unexp_write(m, unexp, off + pl->n, pl->tail,
					pl->tail_n);
}

/* A whole message in one packet (UEC 1.0 SES standard request header
 * MEDIUM/SMALL, or STD SOM+EOM). */
static int
ses_send_single(struct uet_ses *s, const struct uet_pds_event *ev,
		const struct uet_wire_ses_req *h, const struct ses_pl *pl,
		uint64_t now)
{
	struct uet_ses_match_arrival a;
	struct uet_ses_match_result r;
	struct ses_rx_info ri;
	enum uet_wire_ses_rc rc = UET_RC_OK;
	uint8_t list = UET_SES_LIST_EXPECTED;

	struct uet_ses_match *m = ses_match(s, h->pid_on_fep);

	ses_msg_from_req(h, &a.msg);
	a.data = pl->p;
	a.data_len = pl->n;
	if (m == NULL || uet_ses_match_arrival(m, &a, &r) != 0) {
		rc = UET_RC_UNCOR;
	} else if (r.verdict == UET_SES_MATCH_EXPECTED) {
		ses_pl_copy_capped(s, ses_match_dst(&r), r.len, 0, pl);
		ses_rx_info_msg(&ri, &r);
		ses_recv_cqe(s, &ri);
	} else if (r.verdict == UET_SES_MATCH_STORED) {
		ses_pl_store_tail(s, m, r.unexp, 0, pl);
		list = UET_SES_LIST_OVERFLOW;
	} else if (ses_refuse(s, ev, UET_NACK_NO_SES_MSG_AVAIL,
			      &s->st.refused_unexp)) {
		/* Beyond the unexpected bound: the initiator backs off and
		 * retries until a receive is posted (UEC 1.0 SES send variants
		 * flow control). */
		return 0;
	} else {
		/* Not refusable (UUD, or too late): NO_MATCH, never OOM. */
		rc = UET_RC_NO_MATCH;
		if (h->opcode == UET_SES_OP_DATAGRAM_SEND)
			s->st.dgram_drop++;
		else
			s->st.unexp_drop++;
	}
	return ses_respond_rc(s, ev, h, rc, list, now);
}

/* First packet (in arrival order) of a multi-packet message: match it. */
static struct ses_target *
ses_send_open(struct uet_ses *s, const struct uet_pds_event *ev,
	      const struct uet_wire_ses_req *h, const struct ses_pl *pl,
	      bool *refused)
{
	struct ses_target *t = ses_target_alloc(s, ev->pdc, h->message_id, true);
	struct uet_ses_match_arrival a;
	struct uet_ses_match_result r;
	bool som = (h->flags & UET_SES_F_SOM) != 0;
	bool defer = h->opcode == UET_SES_OP_DEFERRABLE_SEND ||
		     h->opcode == UET_SES_OP_DEFERRABLE_TSEND;

	if (t == NULL)
		return NULL;
	ses_target_from_req(t, ev, h);
	t->rc = UET_RC_OK;
	t->tok_i = uet_wire_ses_req_token_initiator(h);
	t->pid = h->pid_on_fep;
	ses_msg_from_req(h, &a.msg);
	a.msg.peer = (uint64_t)(t - s->tgts) + 1;
	/* The matching engine takes message-offset-0 bytes only. A
	 * deferrable message is held as a header only (UEC 1.0 SES send
	 * variants "defer"). */
	if (defer) {
		a.msg.kind = UET_SES_MATCH_KIND_DEFERRABLE;
		a.msg.hold_len = 0;
	}
	a.data = som && !defer ? pl->p : NULL;
	a.data_len = som && !defer ? pl->n : 0;
	t->match = ses_match(s, h->pid_on_fep);
	if (t->match == NULL ||
	    uet_ses_match_arrival(t->match, &a, &r) != 0) {
		t->state = SES_TGT_DROP;
		t->rc = UET_RC_UNCOR;
	} else if (r.verdict == UET_SES_MATCH_EXPECTED) {
		t->state = SES_TGT_EXPECTED;
		t->ctx = r.context;
		t->buf = ses_match_dst(&r);
		t->moff = r.offset;
		t->cap = r.len;
		t->cq_flags = ses_multi_flags(&r);
	} else if (r.verdict == UET_SES_MATCH_STORED) {
		t->state = defer ? SES_TGT_DEFER : SES_TGT_STORED;
		t->unexp = r.unexp;
		t->list = UET_SES_LIST_OVERFLOW;
		if (som && !defer)
			ses_pl_store_tail(s, t->match, t->unexp, 0, pl);
	} else if (ses_refuse(s, ev, UET_NACK_NO_SES_MSG_AVAIL,
			      &s->st.refused_unexp)) {
		/* Nothing of the message is kept: every packet of it is
		 * refused (and retried) until the store has room. */
		ses_target_put(s, t);
		*refused = true;
		return NULL;
	} else {
		t->state = SES_TGT_DROP;
		t->rc = UET_RC_NO_MATCH;
		s->st.unexp_drop++;
	}
	return t;
}

static void
ses_send_land(struct uet_ses *s, struct ses_target *t, bool opened_som,
	      uint32_t moff, const struct ses_pl *pl)
{
	if (t->state == SES_TGT_EXPECTED) {
		ses_pl_copy_capped(s, t->buf, t->cap, moff, pl);
	} else if (t->state == SES_TGT_STORED && !opened_som) {
		if (pl->n)
			uet_ses_match_unexp_write(t->match, t->unexp, moff,
						  pl->p, pl->n);
		ses_pl_store_tail(s, t->match, t->unexp, moff, pl);
	}
}

/* All bytes in: answer, then complete the receive (or keep the record
 * until a receive takes the unexpected message). */
static void
ses_send_complete(struct uet_ses *s, struct ses_target *t, uint64_t now)
{
	struct ses_rx_info ri;

	if (t->state == SES_TGT_DEFER || t->state == SES_TGT_RTR) {
		ses_defer_answer(s, t, now);
		return;
	}
	ses_target_respond_rec(s, t, now);
	if (t->state == SES_TGT_STORED)
		return;
	if (t->state == SES_TGT_EXPECTED && !t->no_cqe) {
		ses_rx_info_tgt(&ri, t);
		ses_recv_cqe(s, &ri);
	}
	ses_target_put(s, t);
}

static int
ses_send_multi(struct uet_ses *s, const struct uet_pds_event *ev,
	       const struct uet_wire_ses_req *h, const struct ses_pl *pl,
	       uint32_t moff, uint64_t now)
{
	struct ses_target *t = ses_target_find(s, ev->pdc, h->message_id);
	bool opened = false, refused = false;

	if (t == NULL && uet_wire_ses_req_token_target(h) != 0 &&
	    ses_op_is_defer(h->opcode)) {
		/* Restarted after DEFERRABLE_RTR: the token names our record. */
		t = ses_defer_restart(s, ev, h);
		if (t == NULL)
			return ses_respond_rc(s, ev, h, UET_RC_NO_MATCH,
					      UET_SES_LIST_EXPECTED, now);
	} else if (t == NULL) {
		t = ses_send_open(s, ev, h, pl, &refused);
		opened = (h->flags & UET_SES_F_SOM) != 0;
		if (refused)
			return 0;
	}
	if (t == NULL)
		return ses_no_record(s, ev, h, UET_RC_UNDELIVERABLE,
				     UET_SES_LIST_EXPECTED, now);
	if ((h->flags & UET_SES_F_SOM) && (h->flags & UET_SES_F_HD)) {
		t->hd = h->header_data;
		t->hd_valid = true;
	}
	if (h->flags & UET_SES_F_EOM) {
		t->have_eom = true;
		t->eom_psn = ev->psn;
	}
	ses_send_land(s, t, opened, moff, pl);
	t->rcvd += ses_pl_len(pl);
	if (t->rcvd == t->total && t->have_eom && !t->responded)
		ses_send_complete(s, t, now);
	return 0;
}

/* The record of a message that failed: a receive bound to it fails with
 * @p rc (a deferrable message's too, its RTR not sent: that waits for the
 * EOM), a partial unexpected message leaves the matching engine (a
 * deferrable one's header too: no receive takes it and asks for it). */
static void
ses_target_fail(struct uet_ses *s, struct ses_target *t, enum uet_wire_ses_rc rc)
{
	struct ses_rx_info ri;

	if ((t->state == SES_TGT_EXPECTED || t->state == SES_TGT_RTR) &&
	    !t->no_cqe) {
		ses_rx_info_tgt(&ri, t);
		ri.len = 0;
		ri.total = 0;
		ri.status = uet_ses_rc_errno(rc);
		ri.rc = rc;
		ses_recv_cqe(s, &ri);
	} else if ((t->state == SES_TGT_STORED || t->state == SES_TGT_DEFER) &&
		   t->unexp != UET_SES_MATCH_NONE) {
		uet_ses_match_unexp_abandon(t->match, t->unexp);
		t->unexp = UET_SES_MATCH_NONE;
	}
	t->state = SES_TGT_DROP;
	t->rc = rc;
	t->list = UET_SES_LIST_EXPECTED;
}

/* A packet that found no record of its message and no record free: it
 * is refused (NO_SES_MSG_AVAIL, retried) while the PDS can refuse it,
 * else answered @p rc on @p list. */
int
ses_no_record(struct uet_ses *s, const struct uet_pds_event *ev,
	      const struct uet_wire_ses_req *h, enum uet_wire_ses_rc rc,
	      uint8_t list, uint64_t now)
{
	s->st.tgt_exhaust++;
	if (ses_refuse(s, ev, UET_NACK_NO_SES_MSG_AVAIL, &s->st.refused_rec))
		return 0;
	return ses_respond_rc(s, ev, h, rc, list, now);
}

/* A packet of a multi-packet message refused with @p rc (table off, size
 * that disagrees): the whole message is in error (UEC 1.0 3.5.20.2.4). A
 * packet before the last reports it in its own response at once; the
 * message's record (opened now if none) turns DROP with that code, counts
 * the packet's bytes as every packet's, and answers the EOM with the code
 * once all are in. Without it the other packets opened a record that
 * waited for the refused bytes for good, its EOM never answered. */
static int
ses_send_refuse_part(struct uet_ses *s, const struct uet_pds_event *ev,
		     const struct uet_wire_ses_req *h, uint32_t plen,
		     enum uet_wire_ses_rc rc, uint64_t now)
{
	struct ses_target *t = ses_target_find(s, ev->pdc, h->message_id);

	if (t == NULL) {
		t = ses_target_alloc(s, ev->pdc, h->message_id, true);
		/* No record to remember the failure by: refused (retried)
		 * like any packet that finds none (ses_target_send).
		 * Answered without one, the message failed while a packet
		 * of it still to come (refused before, moved to another PDC)
		 * found nothing to join and opened a message of its own
		 * later, which a receive took, and the send that went again
		 * for the failure waited for good (fuzz_dst,
		 * test/dst/fuzz-fixed/leak.defer-sent-twice-after-ack). */
		if (t == NULL)
			return ses_no_record(s, ev, h, rc,
					     UET_SES_LIST_EXPECTED, now);
		ses_target_from_req(t, ev, h);
		t->pid = h->pid_on_fep;
		t->state = SES_TGT_DROP;
		t->rc = UET_RC_OK; /* failed just below */
	} else if (t->state == SES_TGT_RDV) {
		/* a rendezvous message is one packet, answered already: a
		 * packet under its id is no part of it */
		return ses_respond_rc(s, ev, h, rc, UET_SES_LIST_EXPECTED, now);
	}
	/* The process went (BAD_PID) while a receive of it held part of
	 * the message: that receive and the message end CANCELLED, every
	 * later packet of it answered so, and its initiator does not send
	 * it again to whatever process comes under that PIDonFEP
	 * (ses_pid_wait): part of it reached one. */
	if (rc == UET_RC_BAD_PID && t->rcvd != 0 &&
	    (t->state == SES_TGT_EXPECTED || t->state == SES_TGT_RTR))
		rc = UET_RC_CANCELLED;
	if (t->state != SES_TGT_DROP || t->rc == UET_RC_OK) {
		s->st.tgt_part_refused++;
		ses_target_fail(s, t, rc);
	} else if (t->rc == UET_RC_CANCELLED) {
		rc = t->rc;
	}
	if (h->flags & UET_SES_F_EOM) {
		t->have_eom = true;
		t->eom_psn = ev->psn;
	} else if (ses_respond_rc(s, ev, h, rc, UET_SES_LIST_EXPECTED,
				  now) == -EAGAIN) {
		/* refused for want of room for the answer (NO_GTD_DEL_AVAIL):
		 * not received, its bytes count when it comes again */
		return 0;
	}
	t->rcvd += plen;
	if (t->rcvd >= t->total && t->have_eom && !t->responded)
		ses_send_complete(s, t, now);
	return 0;
}

int
ses_target_send(struct uet_ses *s, const struct uet_pds_event *ev,
	     const struct uet_wire_ses_req *h, const struct ses_pl *pl,
	     uint64_t now)
{
	uint32_t plen = ses_pl_len(pl);
	struct uet_ses_resolved res;
	struct uet_ses_resolve_req q;
	enum uet_wire_ses_rc rc;
	uint32_t moff = (h->flags & UET_SES_F_SOM) ? 0 : h->message_offset;
	bool single = (h->flags & UET_SES_F_SOM) && (h->flags & UET_SES_F_EOM);

	ses_resolve_req_fill(&q, ev, h);
	rc = s->cfg.mr ? uet_ses_resolve(s->cfg.mr, &q, &res) : UET_RC_BAD_PID;
	if (rc == UET_RC_OK && ses_match(s, h->pid_on_fep) == NULL)
		rc = UET_RC_UNSUPPORTED_OP;
	if (rc == UET_RC_OK && ses_op_is_atomic(h->opcode))
		return ses_target_tamo(s, ev, h, ses_pl_flat(s, pl), plen,
				       now);
	if (rc == UET_RC_OK && (h->opcode == UET_SES_OP_RENDEZVOUS_SEND ||
				h->opcode == UET_SES_OP_RENDEZVOUS_TSEND))
		return ses_target_rdv(s, ev, h, ses_pl_flat(s, pl), plen,
				      now);
	if (rc == UET_RC_OK && (moff > h->request_length ||
				plen > h->request_length - moff ||
				(single && plen != h->request_length) ||
				(!(h->flags & UET_SES_F_SOM) &&
				 h->payload_length != plen))) {
		s->st.rx_bad++;
		rc = UET_RC_UNSUPPORTED_SIZE;
	}
	if (rc == UET_RC_OK && !single && ev->pdc == UINT32_MAX)
		rc = UET_RC_UNSUPPORTED_OP; /* multi-packet needs a PDC */
	if (rc != UET_RC_OK && !single && ev->pdc != UINT32_MAX)
		return ses_send_refuse_part(s, ev, h, plen, rc, now);
	/* A datagram gets no answer: one for no process (none of that
	 * PIDonFEP, or not yet: it came before the endpoint) is counted
	 * here, nowhere else. */
	if (rc != UET_RC_OK && h->opcode == UET_SES_OP_DATAGRAM_SEND)
		s->st.dgram_drop++;
	if (rc != UET_RC_OK)
		return ses_respond_rc(s, ev, h, rc, UET_SES_LIST_EXPECTED, now);
	/* Deferrable messages always get a record: a defer keeps it. */
	if (single && !ses_op_is_defer(h->opcode))
		return ses_send_single(s, ev, h, pl, now);
	return ses_send_multi(s, ev, h, pl, moff, now);
}

/* ---- a target PDC went (UET_PDS_EV_PDC_CLOSED) ---- */

/* Record @p t of a message whose initiator gave up before its last
 * packet: its bound receive fails (the buffer is the application's
 * again), a partial unexpected message is dropped. */
static void
ses_target_abandon(struct uet_ses *s, struct ses_target *t)
{
	struct ses_rx_info ri;

	s->st.tgt_abandoned++;
	if ((t->state == SES_TGT_EXPECTED || t->state == SES_TGT_RTR) &&
	    !t->no_cqe) {
		ses_rx_info_tgt(&ri, t);
		ri.len = 0;
		ri.total = 0;
		ri.status = -ECONNRESET;
		ri.rc = UET_RC_NULL;
		ses_recv_cqe(s, &ri);
	} else if ((t->state == SES_TGT_STORED ||
		    t->state == SES_TGT_DEFER) &&
		   t->unexp != UET_SES_MATCH_NONE) {
		uet_ses_match_unexp_abandon(t->match, t->unexp);
	}
	ses_target_put(s, t);
}

/*
 * All packets of a message come on one PDC (UEC 1.0 PDS): once it is gone,
 * a message it has not brought whole never will be (its initiator failed
 * it, or aborted it). Records still keyed on it and not answered are
 * dropped; answered ones (a whole unexpected message waiting for a
 * receive) stay, except an unexpected rendezvous message when the PDC
 * ended without its initiator's CLOSE (ses_rdv_abandon): its send needs
 * that initiator. Rare path: a scan of the record pool per target PDC.
 */
void
ses_target_pdc_closed(struct uet_ses *s, const struct uet_pds_event *ev)
{
	struct ses_target *t;
	uint32_t i;

	s->st.tgt_pdc_closed++;
	for (i = 0; i < s->cfg.max_tgt_msgs; i++) {
		t = &s->tgts[i];
		if (t->state != SES_TGT_FREE && t->hashed &&
		    t->pdc == ev->pdc && !t->responded)
			ses_target_abandon(s, t);
		else if (ev->status != 0 && t->state == SES_TGT_RDV &&
			 t->pdc == ev->pdc && t->unexp != UET_SES_MATCH_NONE &&
			 t->wait == SES_TW_NONE)
			ses_rdv_abandon(s, t);
	}
}

/* ---- receive posts ---- */

static void
ses_post_unexp(struct uet_ses *s, struct uet_ses_match *m,
	       const struct uet_ses_match_result *r, uint64_t now)
{
	struct ses_rx_info ri;
	struct ses_target *t;
	uint8_t *dst = ses_match_dst(r);
	uint32_t n = r->len < r->msg.hold_len ? (uint32_t)r->len :
						 r->msg.hold_len;

	(void)now;
	uet_ses_match_unexp_copy(m, r->unexp, 0, dst, n);
	uet_ses_match_unexp_release(m, r->unexp);
	if (r->msg.peer == 0) {
		ses_rx_info_msg(&ri, r);
		ses_recv_cqe(s, &ri);
		return;
	}
	t = &s->tgts[r->msg.peer - 1];
	t->unexp = UET_SES_MATCH_NONE;
	t->ctx = r->context;
	t->buf = dst;
	t->moff = r->offset;
	t->cap = r->len;
	t->cq_flags = ses_multi_flags(r);
	if (r->msg.kind == UET_SES_MATCH_KIND_RENDEZVOUS) {
		ses_rdv_start(s, t, dst, r->len); /* read the rest */
		return;
	}
	if (r->msg.kind == UET_SES_MATCH_KIND_DEFERRABLE) {
		ses_defer_post(s, t); /* deferrable send: DEFERRABLE_RTR */
		return;
	}
	/* Multi-packet: the rest (if any) goes straight to the buffer. */
	t->state = SES_TGT_EXPECTED;
	if (!t->responded)
		return;
	ses_rx_info_tgt(&ri, t);
	ses_recv_cqe(s, &ri);
	ses_target_put(s, t);
}

/* FI_PEEK: the message's header, nothing copied; -ENOMSG if none. */
static void
ses_post_peeked(struct uet_ses *s, const struct uet_ses_match_result *r)
{
	struct ses_rx_info ri;

	memset(&ri, 0, sizeof(ri));
	ri.ctx = r->context;
	if (r->verdict == UET_SES_MATCH_NOT_FOUND) {
		ri.status = -ENOMSG;
		ri.rc = UET_RC_NO_MATCH;
		ses_recv_cqe(s, &ri);
		return;
	}
	ri.len = r->msg.total_len;
	ri.total = r->msg.total_len;
	ri.tag = r->msg.tag;
	ri.src = r->msg.src;
	ri.hd = r->msg.header_data;
	ri.tagged = (r->msg.flags & UET_SES_MATCH_MSG_TAGGED) != 0;
	ri.hd_valid = (r->msg.flags & UET_SES_MATCH_MSG_HDATA) != 0;
	ses_recv_cqe(s, &ri);
}

/*
 * FI_DISCARD: the matching engine dropped the message. Its sender is
 * still released: a multi-packet record keeps absorbing (and answers)
 * the rest, a rendezvous gets its zero-length read-back, a deferred send
 * its RTR (the restarted data is dropped). Completion with length 0.
 */
static void
ses_post_discarded(struct uet_ses *s, const struct uet_ses_match_result *r)
{
	struct ses_rx_info ri;
	struct ses_target *t;

	memset(&ri, 0, sizeof(ri));
	ri.ctx = r->context;
	ri.tag = r->msg.tag;
	ri.src = r->msg.src;
	ri.tagged = (r->msg.flags & UET_SES_MATCH_MSG_TAGGED) != 0;
	ses_recv_cqe(s, &ri);
	if (r->msg.peer == 0)
		return;
	t = &s->tgts[r->msg.peer - 1];
	t->unexp = UET_SES_MATCH_NONE;
	t->no_cqe = true;
	t->buf = NULL;
	t->cap = 0;
	if (r->msg.kind == UET_SES_MATCH_KIND_RENDEZVOUS) {
		ses_rdv_start(s, t, NULL, 0);
		return;
	}
	if (r->msg.kind == UET_SES_MATCH_KIND_DEFERRABLE) {
		ses_defer_post(s, t);
		return;
	}
	t->state = SES_TGT_EXPECTED;
	if (t->responded)
		ses_target_put(s, t);
}

static void
ses_post_result(struct uet_ses *s, struct uet_ses_match *m,
		const struct uet_ses_match_result *r, uint64_t now)
{
	switch (r->verdict) {
	case UET_SES_MATCH_UNEXPECTED:
		ses_post_unexp(s, m, r, now);
		break;
	case UET_SES_MATCH_PEEKED:
	case UET_SES_MATCH_NOT_FOUND:
		ses_post_peeked(s, r);
		break;
	case UET_SES_MATCH_DISCARDED:
		ses_post_discarded(s, r);
		break;
	default:
		break;
	}
}

#define SES_RECV_FLAGS                                                    \
	(UET_SES_RECV_F_MULTI | UET_SES_RECV_F_SRC | UET_SES_RECV_F_PEEK | \
	 UET_SES_RECV_F_CLAIM | UET_SES_RECV_F_DISCARD)

static uint32_t
ses_recv_match_flags(const struct uet_ses_recv *rr)
{
	uint32_t f = rr->op == 2 ? UET_SES_MATCH_RECV_TAGGED : 0;

	if (rr->flags & UET_SES_RECV_F_MULTI)
		f |= UET_SES_MATCH_RECV_MULTI;
	if (rr->flags & UET_SES_RECV_F_PEEK)
		f |= UET_SES_MATCH_RECV_PEEK;
	if (rr->flags & UET_SES_RECV_F_CLAIM)
		f |= UET_SES_MATCH_RECV_CLAIM;
	if (rr->flags & UET_SES_RECV_F_DISCARD)
		f |= UET_SES_MATCH_RECV_DISCARD;
	return f;
}

int
uet_ses_recv_post(struct uet_ses *s, const struct uet_ses_recv *rr,
		  uint64_t now)
{
	struct uet_ses_match *m = ses_match(s, rr->pid_on_fep);
	struct uet_ses_match_recv p;
	struct uet_ses_match_result r;
	int ret;

	if (m == NULL)
		return -ENOTSUP;
	if ((rr->op != 1 && rr->op != 2) || (rr->flags & ~SES_RECV_FLAGS))
		return -EINVAL;
	memset(&p, 0, sizeof(p));
	p.context = rr->context;
	p.buf = rr->buf;
	p.len = rr->len;
	p.tag = rr->tag;
	p.ignore = rr->ignore;
	p.src = (rr->flags & UET_SES_RECV_F_SRC) ? rr->src :
						   UET_SES_MATCH_SRC_ANY;
	p.min_free = rr->min_free;
	p.iov_count = 1;
	p.flags = ses_recv_match_flags(rr);
	ret = uet_ses_match_post(m, &p, &r);
	if (ret != 0)
		return ret;
	ses_post_result(s, m, &r, now);
	while ((r.flags & UET_SES_MATCH_F_MORE) &&
	       uet_ses_match_post_more(m, &r) == 0)
		ses_post_result(s, m, &r, now);
	return 0;
}

int
uet_ses_recv_cancel(struct uet_ses *s, uint64_t context)
{
	return uet_ses_recv_cancel_pid(s, s->cfg.pid_on_fep, context);
}

int
uet_ses_recv_cancel_pid(struct uet_ses *s, uint16_t pid_on_fep,
			uint64_t context)
{
	struct uet_ses_match *m = ses_match(s, pid_on_fep);
	struct uet_ses_cqe c;

	if (m == NULL || uet_ses_match_cancel(m, context) != 0)
		return -ENOENT;
	memset(&c, 0, sizeof(c));
	c.context = context;
	c.status = -ECANCELED;
	c.flags = UET_SES_CQ_RECV;
	c.prov_errno = UET_RC_CANCELLED;
	c.op = 1;
	ses_cq_push(s, &c);
	return 0;
}
