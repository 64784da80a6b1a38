/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SES target: decode a delivered request (UEC 1.0 SES request header, SES
 * extension headers), resolve it (UEC 1.0 SES target-side resolution), execute
 * WRITE / READ / atomics, answer with the exact return code (UEC 1.0 SES
 * responses), and send large READ data in the return direction (UEC 1.0 PDS
 * read responses).
 */

#include <errno.h>
#include <string.h>

#include <uet/uet_ses_amo.h>

#include "ses_private.h"

static bool
ses_is_send(unsigned int opcode)
{
	switch (opcode) {
	case UET_SES_OP_SEND:
	case UET_SES_OP_TAGGED_SEND:
	case UET_SES_OP_DATAGRAM_SEND:
	case UET_SES_OP_RENDEZVOUS_SEND:
	case UET_SES_OP_RENDEZVOUS_TSEND:
	case UET_SES_OP_DEFERRABLE_SEND:
	case UET_SES_OP_DEFERRABLE_TSEND:
	case UET_SES_OP_TSEND_ATOMIC:
	case UET_SES_OP_TSEND_FETCH_ATOMIC:
		return true;
	default:
		return false;
	}
}

/* Resolution of the whole message's range, so that every packet of a
 * message gets the same return code (UEC 1.0 SES target-side resolution checks,
 * first failure wins). */
void
ses_resolve_req_fill(struct uet_ses_resolve_req *q,
		     const struct uet_pds_event *ev,
		     const struct uet_wire_ses_req *h)
{
	memset(q, 0, sizeof(*q));
	q->relative = (h->flags & UET_SES_F_REL) != 0;
	q->job_id = h->job_id;
	q->pid_on_fep = h->pid_on_fep;
	q->resource_index = h->resource_index;
	q->ri_generation = h->ri_generation;
	q->opcode = h->opcode;
	q->is_rudi = ev->mode == UET_PDS_MODE_RUDI;
}

static enum uet_wire_ses_rc
ses_target_resolve(const struct uet_ses *s, const struct uet_pds_event *ev,
		const struct uet_wire_ses_req *h, struct uet_ses_resolved *out)
{
	struct uet_ses_resolve_req q;

	if (s->cfg.mr == NULL)
		return UET_RC_BAD_PID;
	ses_resolve_req_fill(&q, ev, h);
	q.mkey = h->match_bits;
	q.offset = h->buffer_offset;
	q.length = h->request_length;
	return uet_ses_resolve(s->cfg.mr, &q, out);
}

/* Payload consistency of one packet (UEC 1.0 SES standard request header):
 * continuation packets say their own length and offset; nothing may run past
 * request_length. */
static bool
ses_target_pkt_ok(const struct uet_wire_ses_req *h, uint32_t plen, uint32_t *moff)
{
	*moff = (h->flags & UET_SES_F_SOM) ? 0 : h->message_offset;
	if (!(h->flags & UET_SES_F_SOM) && h->payload_length != plen)
		return false;
	return *moff <= h->request_length && plen <= h->request_length - *moff;
}

/* cfg.remote_events: a remote operation was served on our memory. */
static void
ses_target_remote_event(struct uet_ses *s, const struct uet_wire_ses_req *h,
		     uint8_t op)
{
	struct uet_ses_cqe c;

	if (!s->cfg.remote_events)
		return;
	memset(&c, 0, sizeof(c));
	c.flags = UET_SES_CQ_REMOTE | UET_SES_CQ_SRC;
	c.op = op;
	c.len = h->request_length;
	c.src = h->initiator;
	c.pid_on_fep = h->pid_on_fep;
	ses_cq_push(s, &c);
}

static enum uet_wire_ses_rc
ses_target_write(struct uet_ses *s, const struct uet_pds_event *ev,
	      const struct uet_wire_ses_req *h, const struct ses_pl *pl)
{
	struct uet_ses_resolved r;
	enum uet_wire_ses_rc rc = ses_target_resolve(s, ev, h, &r);
	uint8_t *dst;
	uint32_t moff;
	struct uet_ses_cqe c;
	int ret = 0;

	if (rc != UET_RC_OK)
		return rc;
	if (!ses_target_pkt_ok(h, ses_pl_len(pl), &moff)) {
		s->st.rx_bad++;
		return UET_RC_UNSUPPORTED_SIZE;
	}
	/* Stateless per packet: bounds were checked for the whole message,
	 * so base + offset + moff + the payload stays inside the region.
	 * Each piece is copied from the frame into the region once. */
	dst = (uint8_t *)r.addr + moff;
	if (pl->n)
		ret = ses_mem_write(s, r.entry->owner, dst, pl->p, pl->n);
	if (ret == 0 && pl->tail_n) {
		s->st.rx_split++;
		ret = ses_mem_write(s, r.entry->owner, dst + pl->n, pl->tail,
				    pl->tail_n);
	}
	if (ret != 0)
		return ses_mem_rc(s, ret);
	if ((h->flags & UET_SES_F_HD) && (h->flags & UET_SES_F_SOM)) {
		/* Remote CQ data of a write (fi_writedata, FI_REMOTE_CQ_DATA at
		 * the target). */
		memset(&c, 0, sizeof(c));
		c.flags = UET_SES_CQ_RECV | UET_SES_CQ_IMM | UET_SES_CQ_SRC;
		c.len = h->request_length;
		c.data = h->header_data;
		c.src = h->initiator;
		c.op = UET_SES_WR_WRITE;
		c.pid_on_fep = h->pid_on_fep;
		ses_cq_push(s, &c);
	}
	if (h->flags & UET_SES_F_EOM)
		ses_target_remote_event(s, h, UET_SES_WR_WRITE);
	return UET_RC_OK;
}

int
ses_target_data_resp(struct uet_ses *s, const struct uet_pds_event *ev,
		  const struct uet_wire_ses_req *h, uint8_t list, const void *data,
		  uint16_t n, uint64_t now)
{
	struct uet_wire_ses_resp r;

	memset(&r, 0, sizeof(r));
	r.list = list;
	r.fmt = UET_SES_RESP_FMT_DATA_SMALL;
	r.opcode = UET_SES_RSP_RESPONSE_W_DATA;
	r.version = UET_SES_VERSION;
	r.return_code = UET_RC_OK;
	r.payload_length = n;
	r.job_id = h->job_id;
	r.original_request_psn = ev->psn;
	return ses_respond(s, ev->mode, ev->pdc, ev->psn, &r, data, n, now);
}

/* ---- return-direction read data (UEC 1.0 PDS read responses) ---- */

static void
ses_ret_put(struct uet_ses *s, struct ses_ret *t)
{
	if (t->locked)
		uet_pds_pdc_unlock(s->cfg.pds, t->pdc, s->now);
	t->locked = false;
	t->used = false;
	t->gen++;
	s->ret_free[s->n_ret_free++] = (uint32_t)(t - s->rets);
}

/*
 * The range one READ request packet asks for (docs/WIRE-DECISIONS.md
 * "Multi-packet READ requests"): a single-packet READ asks for the whole
 * message; in a multi-packet one every packet names its own offset and
 * length: message_offset and payload_length (the packet carries no
 * payload), on the SOM packet in the header-data slot laid out as on a
 * continuation packet: rsvd(18) payload_length(14) message_offset(32).
 */
static bool
ses_target_read_range(const struct uet_wire_ses_req *h, uint32_t *off, uint32_t *len)
{
	uint64_t o, l;

	if ((h->flags & (UET_SES_F_SOM | UET_SES_F_EOM)) ==
	    (UET_SES_F_SOM | UET_SES_F_EOM)) {
		*off = 0;
		*len = h->request_length;
		return true;
	}
	if (h->flags & UET_SES_F_SOM) {
		if (h->header_data >> 46 != 0 ||
		    (h->header_data & UINT32_MAX) != 0)
			return false;
		o = 0;
		l = h->header_data >> 32;
	} else {
		o = h->message_offset;
		l = h->payload_length;
	}
	if (l == 0 || o > h->request_length || l > h->request_length - o)
		return false;
	*off = (uint32_t)o;
	*len = (uint32_t)l;
	return true;
}

/* The next packet of the READ queued last continues its range: extend
 * that record (one record, one AR tail, for in-order arrivals). A gap
 * makes the earlier record give the AR to the later one. */
static bool
ses_ret_extend(struct uet_ses *s, const struct uet_pds_event *ev,
	       const struct uet_wire_ses_req *h, pid_t owner, uint32_t off,
	       uint32_t len)
{
	struct ses_ret *t;

	if (s->rq.tail == SES_NIL)
		return false;
	t = &s->rets[s->rq.tail];
	if (t->pdc != ev->pdc || t->msg_id != h->message_id ||
	    t->job != h->job_id || t->next_frag >= t->nfrags ||
	    t->detached || t->owner != owner)
		return false;
	if (t->off + t->len != off) {
		t->ar_last = false;
		return false;
	}
	t->len += len;
	t->nfrags = (t->len + t->chunk - 1) / t->chunk;
	return true;
}

static int
ses_ret_start(struct uet_ses *s, const struct uet_pds_event *ev,
	      const struct uet_wire_ses_req *h, const struct uet_ses_resolved *res,
	      struct ses_msg *owner, uint32_t off, uint32_t len)
{
	const uint8_t *addr = res->addr;
	pid_t mem_owner = res->entry->owner;
	uint32_t chunk = ses_read_chunk(s), idx;
	struct ses_ret *t;

	if (ev->pdc == UINT32_MAX)
		return -EAGAIN;
	if (ses_ret_extend(s, ev, h, mem_owner, off, len))
		return 0;
	if (s->n_ret_free == 0)
		return -EAGAIN;
	idx = s->ret_free[--s->n_ret_free];
	t = &s->rets[idx];
	t->used = true;
	t->ar_last = true;
	t->msg_id = h->message_id;
	t->pdc = ev->pdc;
	t->job = h->job_id;
	t->addr = addr + off;
	t->owner = mem_owner;
	t->off = off;
	t->total = h->request_length;
	t->len = len;
	t->chunk = chunk;
	t->nfrags = (t->len + chunk - 1) / chunk;
	t->next_frag = 0;
	t->done = 0;
	t->next = SES_NIL;
	t->aborted = false;
	t->status = 0;
	t->detached = false;
	/* The PDC must not ask to close while this data waits behind other
	 * records (UEC 1.0 lock_pdc): its initiator waits for it there. */
	t->locked = uet_pds_pdc_lock(s->cfg.pds, t->pdc) == 0;
	t->rdv_msg = owner ? (uint32_t)(owner - s->msgs) + 1 : 0;
	t->rdv_msg_gen = owner ? owner->gen : 0;
	if (owner != NULL) {
		/* the send lives (and keeps its buffer) while this reads it */
		owner->rdv_rets++;
		owner->rdv_pdc = ev->pdc;
	}
	if (s->rq.tail == SES_NIL)
		s->rq.head = idx;
	else
		s->rets[s->rq.tail].next = idx;
	s->rq.tail = idx;
	return 0;
}

static enum uet_wire_ses_rc
ses_target_read(struct uet_ses *s, const struct uet_pds_event *ev,
	     const struct uet_wire_ses_req *h, uint64_t now, bool *answered)
{
	struct uet_ses_resolved r;
	enum uet_wire_ses_rc rc = ses_target_resolve(s, ev, h, &r);
	struct ses_msg *owner = NULL;
	uint8_t data[SES_SMALL_DATA_MAX];
	const void *src;
	uint32_t off, len;
	int ret;

	if (rc != UET_RC_OK)
		return rc;
	if (!ses_target_read_range(h, &off, &len)) {
		s->st.rx_bad++;
		return UET_RC_UNSUPPORTED_SIZE;
	}
	/* A read-back of one of our rendezvous sends (UEC 1.0 SES send
	 * variants). */
	owner = ses_rdv_owner(s, h->match_bits);
	if (owner != NULL &&
	    r.ri != ses_rdv_ri(s, owner->wr.job, ses_wr_pid(s, &owner->wr)))
		owner = NULL;
	if (len == h->request_length && len <= SES_SMALL_DATA_MAX) {
		/* Small data rides in the ACK (PDS guaranteed delivery,
		 * RESPONSE_DATA_SMALL); the PDS keeps a copy for replays, so
		 * the buffer is free now. */
		src = r.addr;
		if (r.entry->owner != 0) {
			ret = ses_mem_read_slow(s, r.entry->owner, data, r.addr,
						len);
			if (ret != 0)
				return ses_mem_rc(s, ret);
			src = data;
		}
		*answered = true;
		ret = ses_target_data_resp(s, ev, h, UET_SES_LIST_EXPECTED,
					   src, (uint16_t)h->request_length,
					   now);
		if (owner != NULL)
			ses_rdv_answered(s, owner, ev, ret);
		else
			ses_target_remote_event(s, h, UET_SES_WR_READ);
		return UET_RC_OK;
	}
	/* Return-direction data needs a PDC: RUDI READs fit the RUDI_RESP. */
	if (ev->pdc == UET_PDS_PDC_NONE)
		return UET_RC_UNSUPPORTED_SIZE;
	if (ses_ret_start(s, ev, h, &r, owner, off, len) != 0) {
		s->st.tgt_exhaust++;
		/* No return-direction slot: the initiator retries later. */
		if (ses_refuse(s, ev, UET_NACK_NO_RESOURCE,
			       &s->st.refused_res)) {
			*answered = true;
			return UET_RC_OK;
		}
		return UET_RC_DROPPED;
	}
	if (owner == NULL && (h->flags & UET_SES_F_EOM))
		ses_target_remote_event(s, h, UET_SES_WR_READ);
	return UET_RC_OK;
}

int
ses_build_ret(struct uet_ses *s, uint64_t cookie, uint8_t *buf, size_t cap)
{
	uint32_t slot = ses_ck_slot(cookie), i = ses_ck_frag(cookie), off;
	struct uet_wire_ses_resp r;
	struct ses_ret *t;
	int n, ret;

	if (slot >= s->cfg.max_msgs)
		return -ENOENT;
	t = &s->rets[slot];
	if (!t->used || t->gen != ses_ck_gen(cookie) || i >= t->nfrags ||
	    t->detached)
		return -ENOENT;
	off = i * t->chunk;
	memset(&r, 0, sizeof(r));
	r.fmt = UET_SES_RESP_FMT_DATA;
	r.opcode = UET_SES_RSP_RESPONSE_W_DATA;
	r.version = UET_SES_VERSION;
	r.return_code = UET_RC_OK;
	r.message_id = t->msg_id;
	r.job_id = t->job;
	r.read_request_message_id = t->msg_id;
	r.payload_length = (uint16_t)(t->len - off < t->chunk ?
				      t->len - off : t->chunk);
	r.modified_length = t->total;
	r.message_offset = t->off + off;
	n = uet_wire_ses_resp_encode(&r, buf, cap);
	if (n < 0 || (size_t)n + r.payload_length > cap)
		return -ENOSPC;
	/* Read at every build, retransmissions included: the region is
	 * live memory (MR_DEREG waits for these packets). A failed read
	 * still sends the packet the PDS sized, zeroed, with the return
	 * code telling the initiator (the length is the PDS's, a code
	 * cannot change it). */
	ret = ses_mem_read(s, t->owner, buf + n, t->addr + off,
			   r.payload_length);
	if (ret != 0) {
		r.return_code = ses_mem_rc(s, ret);
		memset(buf + n, 0, r.payload_length);
		if (uet_wire_ses_resp_encode(&r, buf, cap) != n)
			return -ENOSPC;
	}
	s->st.frag_built++;
	return n + r.payload_length;
}

/*
 * The read-backs of @p m lose its buffer (uet_ses_withdraw(), forced):
 * no packet of them is built any more (-ENOENT). The READ's initiator
 * learns of the failure from its PDC, which the PDS fails for the packet
 * that cannot be built (uet_pds_tx_unbuildable(): NACK CLOSING_IN_ERR),
 * where a record cut short here would leave it waiting for data forever.
 */
void
ses_ret_detach(struct uet_ses *s, const struct ses_msg *m)
{
	uint32_t idx = (uint32_t)(m - s->msgs) + 1;

	for (uint32_t i = 0; i < s->cfg.max_msgs; i++) {
		struct ses_ret *t = &s->rets[i];

		if (t->used && t->rdv_msg == idx && t->rdv_msg_gen == m->gen)
			t->detached = true;
	}
}

static void
ses_ret_check(struct uet_ses *s, struct ses_ret *t)
{
	if (!t->used || t->next_frag != t->nfrags || t->done != t->nfrags)
		return;
	if (t->rdv_msg != 0)
		ses_rdv_ret_done(s, t);
	ses_ret_put(s, t);
}

void
ses_ret_done(struct uet_ses *s, uint64_t cookie, int status)
{
	uint32_t slot = ses_ck_slot(cookie);
	struct ses_ret *t;

	if (slot >= s->cfg.max_msgs) {
		s->st.stale_done++;
		return;
	}
	t = &s->rets[slot];
	if (!t->used || t->gen != ses_ck_gen(cookie)) {
		s->st.stale_done++;
		return;
	}
	if (status != 0 && !t->aborted) {
		t->aborted = true;
		t->status = status;
	}
	t->done++;
	ses_ret_check(s, t);
}

static int
ses_ret_submit(struct uet_ses *s, struct ses_ret *t, uint64_t now)
{
	uint32_t i = t->next_frag, off = i * t->chunk;
	uint32_t plen = t->len - off < t->chunk ? t->len - off : t->chunk;
	struct uet_pds_submit ps;
	int ret;

	memset(&ps, 0, sizeof(ps));
	ps.flags = UET_PDS_SUBMIT_PDC;
	ps.pdc = t->pdc;
	ps.next_hdr = UET_PDS_NEXT_RESPONSE_DATA;
	ps.len = (uint16_t)(UET_SES_RESPONSE_DATA_LEN + plen);
	ps.cookie = ses_cookie(SES_CK_RET, (uint32_t)(t - s->rets), t->gen, i);
	/* The READ's initiator acknowledges the tail at once: it has no SES
	 * response to send, and nothing else may make it run (inline). The
	 * tail of every record no later packet of the READ follows. */
	if (i + 1 == t->nfrags && t->ar_last)
		ps.flags |= UET_PDS_SUBMIT_AR;
	ret = ses_pds_submit(s, &ps, now);
	if (ret == 0) {
		t->next_frag++;
		s->st.ret_tx++;
	}
	return ret;
}

/* PDCs found full in one pass of ses_ret_progress(): more than this and
 * the PDS is short of something all share (transmit blocks). */
#define SES_RET_BLOCKED_MAX 8

static bool
ses_ret_pdc_in(const uint32_t *pdcs, uint32_t n, uint32_t pdc)
{
	for (uint32_t k = 0; k < n; k++)
		if (pdcs[k] == pdc)
			return true;
	return false;
}

/* Take record @p idx, after @p prev (SES_NIL: the head), off the queue. */
static void
ses_ret_unlink(struct uet_ses *s, uint32_t prev, uint32_t idx)
{
	uint32_t next = s->rets[idx].next;

	if (prev == SES_NIL)
		s->rq.head = next;
	else
		s->rets[prev].next = next;
	if (s->rq.tail == idx)
		s->rq.tail = prev;
}

/*
 * Hand queued return-direction data to the PDS, oldest first per PDC. A
 * PDC whose window is full (-EAGAIN) keeps its records queued, in order,
 * and the pass goes on with the records of other PDCs: one READ waiting
 * for its initiator's ACKs must not hold back the READ returns of every
 * other PDC (their initiators would wait, then close or fail them).
 */
uint32_t
ses_ret_progress(struct uet_ses *s, uint64_t now)
{
	uint32_t blocked[SES_RET_BLOCKED_MAX], nb = 0, n = 0;
	uint32_t idx = s->rq.head, prev = SES_NIL, next;
	struct ses_ret *t;
	int ret;

	for (; idx != SES_NIL; idx = next) {
		t = &s->rets[idx];
		next = t->next;
		ret = 0;
		if (ses_ret_pdc_in(blocked, nb, t->pdc)) {
			prev = idx;
			continue;
		}
		while (t->next_frag < t->nfrags) {
			ret = ses_ret_submit(s, t, now);
			if (ret != 0)
				break;
			n++;
		}
		if (ret == -EAGAIN) {
			if (nb == SES_RET_BLOCKED_MAX)
				return n;
			blocked[nb++] = t->pdc;
			prev = idx;
			continue;
		}
		ses_ret_unlink(s, prev, idx);
		/* PDC gone: the initiator's READ fails by its own PDC. */
		if (t->next_frag < t->nfrags) {
			t->nfrags = t->next_frag;
			if (!t->aborted)
				t->status = -ECONNRESET;
			t->aborted = true;
		}
		ses_ret_check(s, t);
	}
	return n;
}

/* ---- atomics (UEC 1.0 SES extension headers; executed exactly once: RUD/ROD
 * deliver once and the PDS replays the stored response to a retransmission:
 * guaranteed delivery) ---- */

enum uet_wire_ses_rc
ses_target_amo_args(const struct uet_wire_ses_req *h, const uint8_t *pl,
		 uint32_t plen, const void **operand, const void **compare)
{
	bool cas = uet_wire_ses_amo_op_is_cas(h->atomic.op);

	*operand = NULL;
	*compare = NULL;
	if (cas) {
		if (plen != 0 || h->request_length > UET_AMO_CAS_MAX)
			return UET_RC_AMO_UNSUPPORTED_SIZE;
		*operand = h->atomic.swap;
		*compare = h->atomic.compare;
		return UET_RC_OK;
	}
	if (h->atomic.op == UET_AMO_READ)
		return plen == 0 ? UET_RC_OK : UET_RC_AMO_UNSUPPORTED_SIZE;
	if (plen != h->request_length)
		return UET_RC_AMO_UNSUPPORTED_SIZE;
	*operand = pl;
	return UET_RC_OK;
}

static enum uet_wire_ses_rc
ses_target_atomic(struct uet_ses *s, const struct uet_pds_event *ev,
	       const struct uet_wire_ses_req *h, const uint8_t *pl, uint32_t plen,
	       uint64_t now, bool *answered)
{
	bool fetch = h->opcode == UET_SES_OP_FETCHING_ATOMIC;
	uint8_t old[SES_FETCH_MAX];
	struct ses_amo_args a;
	struct uet_ses_resolved r;
	enum uet_wire_ses_rc rc = ses_target_resolve(s, ev, h, &r);

	if (rc != UET_RC_OK)
		return rc;
	rc = ses_target_amo_args(h, pl, plen, &a.operand, &a.compare);
	if (rc != UET_RC_OK)
		return rc;
	if (fetch && h->request_length > SES_FETCH_MAX)
		return UET_RC_AMO_UNSUPPORTED_SIZE;
	a.op = (enum uet_wire_amo_op)h->atomic.op;
	a.dt = (enum uet_wire_amo_dt)h->atomic.datatype;
	a.target = r.addr;
	a.fetch = fetch ? old : NULL;
	a.len = h->request_length;
	a.flags = h->atomic.semantic_control;
	rc = ses_mem_amo(s, r.entry->owner, &a);
	if (rc == UET_RC_OK)
		ses_target_remote_event(s, h, fetch ? UET_SES_WR_FETCH_ATOMIC :
						   UET_SES_WR_ATOMIC);
	if (rc != UET_RC_OK || !fetch)
		return rc;
	*answered = true;
	ses_target_data_resp(s, ev, h, UET_SES_LIST_EXPECTED, old,
			  (uint16_t)h->request_length, now);
	return UET_RC_OK;
}

/* ---- dispatch ---- */

static enum uet_wire_ses_rc
ses_target_profile(const struct uet_ses *s, const struct uet_pds_event *ev,
		const struct uet_wire_ses_req *h)
{
	enum uet_wire_ses_rc why = UET_RC_OK;
	unsigned int pf = ev->mode == UET_PDS_MODE_RUDI ?
		UET_SES_PROF_F_RUDI : 0;

	/* a DEFERRABLE_RTR names no process of ours in its header: with
	 * profiles per process it is checked against its deferred send */
	if (h->opcode == UET_SES_OP_DEFERRABLE_RTR && s->cfg.profile_of)
		return UET_RC_OK;
	if (uet_ses_profile_allows(ses_profile(s, h->pid_on_fep), h->opcode,
				   h->request_length, pf,
				   s->cfg.mtu - UET_SES_MEDIUM_LEN, &why))
		return UET_RC_OK;
	return why;
}

static enum uet_wire_ses_rc
ses_target_exec(struct uet_ses *s, const struct uet_pds_event *ev,
	     const struct uet_wire_ses_req *h, const struct ses_pl *pl,
	     uint64_t now, bool *answered)
{
	switch (h->opcode) {
	case UET_SES_OP_NO_OP:
		return UET_RC_OK;
	case UET_SES_OP_WRITE:
		return ses_target_write(s, ev, h, pl);
	case UET_SES_OP_READ:
		return ses_target_read(s, ev, h, now, answered);
	case UET_SES_OP_ATOMIC:
	case UET_SES_OP_FETCHING_ATOMIC:
		return ses_target_atomic(s, ev, h, ses_pl_flat(s, pl),
					 ses_pl_len(pl), now, answered);
	default:
		return UET_RC_UNSUPPORTED_OP;
	}
}

/* A request we cannot decode still owes its response (PDS reserved it). */
static void
ses_target_bad(struct uet_ses *s, const struct uet_pds_event *ev,
	    const uint8_t *ses, uint16_t len, uint64_t now)
{
	struct uet_wire_ses_req h;

	s->st.rx_bad++;
	if (len < UET_SES_COMMON_LEN || !(ses[1] & UET_SES_F_EOM))
		return;
	memset(&h, 0, sizeof(h));
	h.flags = UET_SES_F_EOM;
	h.job_id = (uint32_t)ses[5] << 16 | (uint32_t)ses[6] << 8 | ses[7];
	ses_respond_rc(s, ev, &h, UET_RC_UNSUPPORTED_OP, UET_SES_LIST_EXPECTED,
		       now);
}

int
ses_target_deliver(struct uet_ses *s, const struct uet_pds_event *ev,
		const uint8_t *ses, uint16_t len, const uint8_t *tail,
		uint32_t tail_len, uint64_t now)
{
	int fmt = uet_wire_ses_fmt_from_next_hdr(ev->next_hdr), n;
	struct uet_wire_ses_req h;
	enum uet_wire_ses_rc rc;
	bool answered = false;
	struct ses_pl pl;

	n = fmt < 0 ? fmt : uet_wire_ses_req_decode(ses, len,
					       (enum uet_wire_ses_fmt)fmt, &h);
	if (n < 0) {
		ses_target_bad(s, ev, ses, len, now);
		return -EBADMSG;
	}
	s->st.rx_req[h.opcode & 15]++;
	rc = ses_target_profile(s, ev, &h);
	if (rc == UET_RC_OK && h.opcode == UET_SES_OP_DEFERRABLE_RTR)
		return ses_defer_rtr_rx(s, ev, &h, now);
	if (rc == UET_RC_OK && h.opcode == UET_SES_OP_MSG_ERROR)
		return ses_rdv_error_rx(s, ev, &h, now);
	pl = (struct ses_pl){ .p = ses + n, .n = (uint32_t)(len - n),
			      .tail = tail, .tail_n = tail_len };
	if (rc == UET_RC_OK && ses_is_send(h.opcode))
		return ses_target_send(s, ev, &h, &pl, now);
	if (rc == UET_RC_OK)
		rc = ses_target_exec(s, ev, &h, &pl, now, &answered);
	if (!answered)
		ses_respond_rc(s, ev, &h, rc, UET_SES_LIST_EXPECTED, now);
	return 0;
}
