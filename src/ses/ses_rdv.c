/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rendezvous sends (UEC 1.0 SES rendezvous extension header, SES send variants;
 * HPC profile).
 *
 * Initiator: the SOM packet carries the eager part and the rendezvous
 * extension; the whole source buffer is registered for remote read in
 * the RI table cfg.rdv_ri with a fresh provider key (one per message,
 * deregistered when the send completes). The send completes when the
 * target has the rest: its read-back's return-direction packets are all
 * acknowledged, or the ACK that carried a small (or zero-length) read-back
 * is cleared (ses_rdv_answered).
 *
 * Target: the message is matched like an eager send (the matching engine
 * holds the eager part when unexpected); once a receive is bound, the SES
 * issues a READ of min(receive, message) - eager bytes from the
 * initiator into the receive, and completes the receive when it lands. A
 * zero-length READ releases the initiator when nothing is left to read
 * (short receive, FI_DISCARD).
 */

#include <errno.h>
#include <string.h>

#include "ses_private.h"

/* Eager bytes: configured, capped to the SOM packet and the message. */
static uint32_t
ses_rdv_eager(const struct uet_ses *s, uint64_t len)
{
	uint32_t cap = s->cfg.mtu - UET_SES_STD_LEN - UET_SES_RDV_EXT_LEN;
	uint32_t e = s->cfg.rdv_eager < cap ? s->cfg.rdv_eager : cap;

	return len < e ? (uint32_t)len : e;
}

int
ses_rdv_ri(const struct uet_ses *s, uint32_t job, uint16_t pid)
{
	return s->cfg.rdv_ri_of != NULL ?
	       s->cfg.rdv_ri_of(s->cfg.rdv_ri_arg, job, pid) : s->cfg.rdv_ri;
}

int
ses_rdv_setup(struct uet_ses *s, struct ses_msg *m)
{
	const struct uet_ses_mr_entry *e;
	struct uet_ses_mr_attr a;
	uint64_t key;
	int64_t slot;
	int ret, ri;

	ri = ses_rdv_ri(s, m->wr.job, ses_wr_pid(s, &m->wr));
	if (ri < 0 || s->rdv_owner == NULL)
		return -EOPNOTSUPP;
	if (m->wr.len == 0)
		return -EINVAL; /* nothing to expose */
	memset(&a, 0, sizeof(a));
	a.ri = ri;
	a.base = (uintptr_t)m->wr.buf;
	a.length = m->wr.len;
	a.access = UET_SES_MR_REMOTE_READ;
	ret = uet_ses_mr_reg(s->cfg.mr, &a, &key);
	if (ret == -ENOSPC || ret == -EAGAIN)
		return -EAGAIN;
	if (ret != 0)
		return -EINVAL;
	e = uet_ses_mr_lookup(s->cfg.mr, key);
	slot = uet_ses_mr_index(s->cfg.mr, key);
	if (e == NULL || slot < 0 || (key & UET_MKEY_O)) {
		uet_ses_mr_dereg(s->cfg.mr, key);
		return -EINVAL;
	}
	m->rdv = true;
	m->rdv_key = key;
	m->rdv_gen = e->generation;
	m->plen = ses_rdv_eager(s, m->wr.len);
	s->rdv_owner[slot] = (uint32_t)(m - s->msgs) + 1;
	s->st.rdv_tx++;
	return 0;
}

void
ses_rdv_release(struct uet_ses *s, struct ses_msg *m)
{
	int64_t slot;

	if (m->rdv_key == 0)
		return;
	slot = uet_ses_mr_index(s->cfg.mr, m->rdv_key);
	if (slot >= 0)
		s->rdv_owner[slot] = 0;
	uet_ses_mr_dereg(s->cfg.mr, m->rdv_key);
	m->rdv_key = 0;
}

void
ses_rdv_ext_fill(const struct uet_ses *s, const struct ses_msg *m,
		 struct uet_wire_ses_req *h)
{
	h->ext = UET_SES_EXT_RDV;
	h->rdv.eager_length = m->plen;
	h->rdv.read_ri_generation = m->rdv_gen;
	h->rdv.read_pid_on_fep = ses_wr_pid(s, &m->wr);
	h->rdv.read_resource_index = s->cfg.rdv_resource_index;
	h->rdv.read_offset = m->plen;
	h->rdv.read_key_or_match = m->rdv_key;
}

struct ses_msg *
ses_rdv_owner(struct uet_ses *s, uint64_t key)
{
	int64_t slot;
	uint32_t i;

	/* ours are provider keys (one hash lookup); an optimized key
	 * would make the lookup try every RI table */
	if (s->rdv_owner == NULL || (key & UET_MKEY_O))
		return NULL;
	slot = uet_ses_mr_index(s->cfg.mr, key);
	if (slot < 0)
		return NULL;
	i = s->rdv_owner[slot];
	if (i == 0 || s->msgs[i - 1].rdv_key != key)
		return NULL;
	return &s->msgs[i - 1];
}

void
ses_rdv_served(struct uet_ses *s, struct ses_msg *m, int status)
{
	if (m->rdv_served) {
		ses_msg_check_done(s, m); /* a last read-back record ended */
		return;
	}
	m->rdv_served = true;
	if (status != 0 && m->status == 0)
		m->status = status;
	s->st.rdv_served++;
	ses_msg_check_done(s, m);
}

/* Return-direction data of a read-back fully acknowledged (or lost). */
void
ses_rdv_ret_done(struct uet_ses *s, const struct ses_ret *t)
{
	struct ses_msg *m = &s->msgs[t->rdv_msg - 1];

	if (m->state == SES_MSG_FREE || m->gen != t->rdv_msg_gen || !m->rdv)
		return;
	if (m->rdv_rets != 0)
		m->rdv_rets--;
	/* A multi-packet read-back is served by several records. */
	m->rdv_ret += t->len;
	/* Aborted: the PDC failed under the read-back (its retransmissions
	 * ran out: -ETIMEDOUT); the send fails as a send whose own packets
	 * went unacknowledged would, with that PDC's status. */
	if (t->aborted || m->rdv_ret >= t->total)
		ses_rdv_served(s, m, !t->aborted ? 0 :
			       t->status != 0 ? t->status : -EIO);
	else
		/* Part of it served: a send already ended (withdrawn, forced:
		 * the rest meets a revoked key) only waited for this record
		 * to stop reading its buffer. */
		ses_msg_check_done(s, m);
}

/*
 * A read-back of @p m answered in the ACK of the READ (RESPONSE_DATA_SMALL,
 * UEC 1.0 3.5.20.2.7; @p ret: ses_respond()'s). Answering is not
 * delivering: that ACK may be lost, and the READ's initiator then gets the
 * data only from the copy our PDS keeps until CLEAR_PSN passes the READ
 * (guaranteed delivery, 3.5.20.2.2), a copy gone if the PDC goes first
 * (the reader gives up, or this node restarts). So the send completes OK
 * only once the PDS reports the answer cleared, as a read of the
 * return direction completes once its packets are acknowledged
 * (3.5.20.2.5, step 5.b.i), and fails when the PDC goes without it.
 */
void
ses_rdv_answered(struct uet_ses *s, struct ses_msg *m,
		 const struct uet_pds_event *ev, int ret)
{
	uint64_t ck = ses_cookie(SES_CK_RDV, (uint32_t)(m - s->msgs), m->gen,
				 0);

	/* RUDI (no PDC) has no CLEAR: its RUDI_RESP is the whole answer. */
	if (ev->pdc == UET_PDS_PDC_NONE) {
		ses_rdv_served(s, m, ret);
		return;
	}
	if (ret == 0 && uet_pds_resp_watch(s->cfg.pds, ev->pdc, ev->psn,
					   ck) == 0) {
		m->rdv_resps++;
		return;
	}
	/* Not stored: the reader cannot get it. */
	ses_rdv_served(s, m, -EIO);
}

/* UET_PDS_EV_CLEARED of an answer of ses_rdv_answered(). */
void
ses_rdv_cleared(struct uet_ses *s, const struct uet_pds_event *ev)
{
	uint32_t slot = ses_ck_slot(ev->cookie);
	struct ses_msg *m;

	if (ses_ck_kind(ev->cookie) != SES_CK_RDV || slot >= s->cfg.max_msgs) {
		s->st.stale_done++;
		return;
	}
	m = &s->msgs[slot];
	/* A send already ended (withdrawn, failed) left its answer behind. */
	if (m->state == SES_MSG_FREE || m->gen != ses_ck_gen(ev->cookie) ||
	    !m->rdv || m->rdv_resps == 0) {
		s->st.stale_done++;
		return;
	}
	m->rdv_resps--;
	if (ev->status != 0 || m->rdv_resps == 0)
		ses_rdv_served(s, m, ev->status);
}

/* ---- initiator: MSG_ERROR from the target (read-back failed) ---- */

/*
 * MSG_ERROR (UEC 1.0 SES opcodes and atomic datatypes; layout in
 * docs/WIRE-DECISIONS.md): the target could not read the rest of our rendezvous
 * send. It names the send by message id and key; the header-data slot holds the
 * return code. The send completes with -EIO and that code; the key is revoked.
 */
int
ses_rdv_error_rx(struct uet_ses *s, const struct uet_pds_event *ev,
		 const struct uet_wire_ses_req *h, uint64_t now)
{
	struct ses_msg *m = ses_rdv_owner(s, h->match_bits);
	enum uet_wire_ses_rc rc = (enum uet_wire_ses_rc)(h->header_data & 0x3F);

	if (m == NULL || !m->rdv || m->rdv_served ||
	    m->msg_id != h->message_id || m->wr.job != h->job_id ||
	    memcmp(&m->wr.dest.fa, &ev->peer, sizeof(ev->peer)) != 0) {
		s->st.msg_error_stale++;
		return ses_respond_rc(s, ev, h, UET_RC_NO_MATCH,
				      UET_SES_LIST_EXPECTED, now);
	}
	s->st.msg_error_rx++;
	if (rc == UET_RC_NULL || rc == UET_RC_OK)
		rc = UET_RC_UNCOR;
	m->rc = rc;
	ses_respond_rc(s, ev, h, UET_RC_OK, UET_SES_LIST_EXPECTED, now);
	ses_rdv_served(s, m, -EIO);
	return 0;
}

void
ses_rdv_error_fill(const struct ses_msg *m, struct uet_wire_ses_req *h)
{
	h->flags &= (uint8_t)~UET_SES_F_HD;
	h->message_id = m->rtr_msg_id;
	h->request_length = m->rtr_total;
	h->match_bits = m->wr.rkey;
	h->header_data = m->wr.imm_data;
}

/* ---- target ---- */

/* Queue @p t until a message is free (uet_ses_progress retries). */
static void
ses_target_wait(struct uet_ses *s, struct ses_target *t, uint8_t what)
{
	uint32_t idx = (uint32_t)(t - s->tgts);

	t->wait = what;
	t->wnext = SES_NIL;
	if (s->tw.tail == SES_NIL)
		s->tw.head = idx;
	else
		s->tgts[s->tw.tail].wnext = idx;
	s->tw.tail = idx;
	s->st.rdv_wait++;
}

/* Tell the initiator its send will never be read (MSG_ERROR). */
static int
ses_rdv_error_send(struct uet_ses *s, struct ses_target *t)
{
	struct uet_ses_wr wr;
	struct ses_msg *m;
	int ret;

	memset(&wr, 0, sizeof(wr));
	wr.op = UET_SES_WR_NOP;
	wr.tc = t->tc;
	wr.job = t->job;
	wr.dest.fa = t->fa;
	wr.dest.pid_on_fep = t->rdv.read_pid_on_fep;
	wr.dest.resource_index = t->rdv.read_resource_index;
	wr.dest.ri_generation = t->rdv.read_ri_generation;
	wr.dest.relative = true;
	wr.rkey = t->rdv.read_key_or_match;
	wr.imm_data = t->rc;
	ret = ses_msg_submit_internal(s, &wr, SES_MK_MSG_ERROR, 0, &m);
	if (ret != 0)
		return ret;
	m->rtr_msg_id = t->msg_id;
	m->rtr_total = t->total;
	s->st.msg_error_tx++;
	return 0;
}

/*
 * The receive completes (with @p status); a failed read-back is also
 * reported to the initiator, which would otherwise wait forever (with
 * t->rc on the wire). The receive's completion carries @p cqe_rc, the
 * code the sender answered the READ with, or UET_RC_NULL when this side
 * decided (its PDC failed, no READ could be issued): a provider errno
 * then names the local cause, not a code "from the target".
 */
static void
ses_rdv_finish(struct uet_ses *s, struct ses_target *t, int status,
	       enum uet_wire_ses_rc cqe_rc)
{
	struct ses_rx_info ri;

	if (!t->no_cqe) {
		ses_rx_info_tgt(&ri, t);
		if (status != 0) {
			ri.status = status;
			ri.rc = cqe_rc;
		}
		ses_recv_cqe(s, &ri);
	}
	if (status != 0 && ses_rdv_error_send(s, t) == -EAGAIN) {
		ses_target_wait(s, t, SES_TW_ERR);
		return;
	}
	ses_target_put(s, t);
}

/*
 * The PDC that brought rendezvous message @p t, still unexpected, ended
 * without its initiator closing it (UET_PDS_EV_PDC_CLOSED with an error:
 * CLOSE_REQs unanswered, a fatal NACK, replaced by a restarted
 * initiator). Its initiator has no such PDC: it failed it (and the send
 * with it, unless another PDC to us lives), or it restarted, or the PDC
 * was opened by a copy of a SYN delayed past a restart of ours, which
 * delivered the message a second time. Matched, the record would read
 * back a send that is over (its key revoked): the receive it took would
 * fail, or, never matched, the record would stay for good. It leaves
 * the unexpected list, and the initiator is told as for a failed
 * read-back (MSG_ERROR): a send still waiting fails, a send that is over
 * answers NO_MATCH.
 */
void
ses_rdv_abandon(struct uet_ses *s, struct ses_target *t)
{
	s->st.tgt_abandoned++;
	uet_ses_match_unexp_abandon(t->match, t->unexp);
	t->unexp = UET_SES_MATCH_NONE;
	t->rc = UET_RC_UNDELIVERABLE;
	t->no_cqe = true; /* no receive of ours took it */
	ses_rdv_finish(s, t, -ECONNRESET, UET_RC_NULL);
}

/* Submit the READ of the rest; -EAGAIN: no message (or id space) free. */
static int
ses_rdv_submit_read(struct uet_ses *s, struct ses_target *t)
{
	uint32_t eager = t->rdv.eager_length;
	uint64_t want = t->cap < t->total ? t->cap : t->total;
	struct uet_ses_wr wr;
	struct ses_msg *m;
	int ret;

	memset(&wr, 0, sizeof(wr));
	wr.op = UET_SES_WR_READ;
	wr.tc = t->tc;
	wr.job = t->job;
	wr.buf = want > eager ? t->buf + eager : NULL;
	wr.len = want > eager ? want - eager : 0;
	wr.dest.fa = t->fa;
	wr.dest.pid_on_fep = t->rdv.read_pid_on_fep;
	wr.dest.resource_index = t->rdv.read_resource_index;
	wr.dest.ri_generation = t->rdv.read_ri_generation;
	wr.dest.relative = true;
	wr.rkey = t->rdv.read_key_or_match;
	wr.roffset = t->rdv.read_offset;
	ret = ses_msg_submit_internal(s, &wr, SES_MK_RDV_READ,
				      (uint32_t)(t - s->tgts) + 1, &m);
	if (ret == 0)
		s->st.rdv_reads++;
	return ret;
}

void
ses_rdv_start(struct uet_ses *s, struct ses_target *t, uint8_t *dst,
	      uint64_t cap)
{
	int ret;

	t->state = SES_TGT_RDV;
	t->buf = dst;
	t->cap = cap;
	ret = ses_rdv_submit_read(s, t);
	if (ret == -EAGAIN) {
		ses_target_wait(s, t, SES_TW_READ); /* retried by progress */
	} else if (ret != 0) {
		t->rc = UET_RC_UNDELIVERABLE;
		ses_rdv_finish(s, t, -EIO, UET_RC_NULL);
	}
}

/* Records waiting for a message, oldest first; stops at the first that
 * still cannot get one. */
uint32_t
ses_rdv_wait_progress(struct uet_ses *s)
{
	uint32_t idx, n = 0;
	struct ses_target *t;
	uint8_t what;
	int ret;

	while ((idx = s->tw.head) != SES_NIL) {
		t = &s->tgts[idx];
		ret = t->wait == SES_TW_READ ? ses_rdv_submit_read(s, t) :
					       ses_rdv_error_send(s, t);
		if (ret == -EAGAIN)
			break;
		s->tw.head = t->wnext;
		if (s->tw.head == SES_NIL)
			s->tw.tail = SES_NIL;
		n++;
		what = t->wait;
		t->wait = SES_TW_NONE;
		if (what == SES_TW_ERR) {
			ses_target_put(s, t); /* reported (or impossible to) */
		} else if (ret != 0) {
			/* READ impossible: fail the receive and report it. */
			t->rc = UET_RC_UNDELIVERABLE;
			ses_rdv_finish(s, t, -EIO, UET_RC_NULL);
		}
	}
	return n;
}

/*
 * The READ of a read-back ended (@p status: its m->status, or else the
 * errno of the code the sender answered). A failure of its own (the PDC
 * failed: -ETIMEDOUT, -ECONNRESET) is reported as such even when a
 * request packet was also answered with an error: the sender answers a
 * read-back BAD_MKEY once its send ended, which is what a PDC failure
 * under the read-back does to it (the key is revoked at once).
 */
void
ses_rdv_read_done(struct uet_ses *s, struct ses_msg *m, int status)
{
	struct ses_target *t = &s->tgts[m->rx - 1];
	bool answered = m->rc != UET_RC_NULL && m->rc != UET_RC_OK;
	enum uet_wire_ses_rc cqe_rc = UET_RC_NULL;

	if (status != 0) {
		t->rc = answered ? m->rc : UET_RC_UNDELIVERABLE;
		if (answered && m->status == 0)
			cqe_rc = (enum uet_wire_ses_rc)m->rc;
	}
	ses_msg_put(s, m);
	if (t->state == SES_TGT_RDV)
		ses_rdv_finish(s, t, status, cqe_rc);
}

/*
 * SOM (and only packet) of a rendezvous send: it carries the eager part;
 * a record keeps the read-back parameters until a receive is bound.
 */
int
ses_target_rdv(struct uet_ses *s, const struct uet_pds_event *ev,
	    const struct uet_wire_ses_req *h, const uint8_t *pl, uint32_t plen,
	    uint64_t now)
{
	struct uet_ses_match_arrival a;
	struct uet_ses_match_result r;
	struct ses_target *t;
	uint8_t list = UET_SES_LIST_EXPECTED;
	int ret;

	if (!(h->flags & UET_SES_F_SOM) || !(h->flags & UET_SES_F_EOM) ||
	    h->ext != UET_SES_EXT_RDV || h->rdv.eager_length != plen ||
	    plen > h->request_length || ev->pdc == UINT32_MAX) {
		s->st.rx_bad++;
		return ses_respond_rc(s, ev, h, UET_RC_UNSUPPORTED_SIZE, list,
				      now);
	}
	/* The read-back needs a message of ours: without one, refuse now
	 * rather than match a receive we could not fill. */
	if (s->n_msg_free == 0 &&
	    ses_refuse(s, ev, UET_NACK_NO_RESOURCE, &s->st.refused_res))
		return 0;
	t = ses_target_alloc(s, ev->pdc, h->message_id, false);
	if (t == NULL)
		return ses_no_record(s, ev, h, UET_RC_UNDELIVERABLE, list, now);
	ses_target_from_req(t, ev, h);
	t->rcvd = plen;
	t->hd = h->header_data;
	t->hd_valid = (h->flags & UET_SES_F_HD) != 0;
	t->rdv = h->rdv;
	t->responded = true;
	ses_msg_from_req(h, &a.msg);
	a.msg.kind = UET_SES_MATCH_KIND_RENDEZVOUS;
	a.msg.hold_len = plen;
	a.msg.rdv = h->rdv;
	a.msg.peer = (uint64_t)(t - s->tgts) + 1;
	a.data = pl;
	a.data_len = plen;
	t->match = ses_match(s, h->pid_on_fep);
	ret = t->match != NULL ?
	      uet_ses_match_arrival(t->match, &a, &r) : -ENOENT;
	if (ret != 0 || r.verdict == UET_SES_MATCH_NO_ROOM) {
		ses_target_put(s, t);
		if (ret == 0 && ses_refuse(s, ev, UET_NACK_NO_SES_MSG_AVAIL,
			       &s->st.refused_unexp))
			return 0;
		s->st.unexp_drop++;
		return ses_respond_rc(s, ev, h, UET_RC_NO_MATCH, list, now);
	}
	if (r.verdict == UET_SES_MATCH_STORED) {
		t->state = SES_TGT_RDV;
		t->unexp = r.unexp;
		t->list = UET_SES_LIST_OVERFLOW;
		return ses_respond_rc(s, ev, h, UET_RC_OK,
				      UET_SES_LIST_OVERFLOW, now);
	}
	t->ctx = r.context;
	t->moff = r.offset;
	t->cq_flags = (r.flags & UET_SES_MATCH_F_RELEASED) ?
		      UET_SES_CQ_MULTI_RECV_DONE : 0;
	if (r.len != 0 && plen != 0)
		memcpy(ses_match_dst(&r), pl, r.len < plen ? r.len : plen);
	ses_respond_rc(s, ev, h, UET_RC_OK, list, now);
	ses_rdv_start(s, t, ses_match_dst(&r), r.len);
	return 0;
}
