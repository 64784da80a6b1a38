/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Deferrable sends (UEC 1.0 SES standard request header tokens, SES send
 * variants; AI Full profile).
 *
 * Initiator: DEFERRABLE_SEND/TSEND carry token_i = gen(8) | slot + 1 (24)
 * and token_t = 0 in buffer_offset. A response NO_MATCH on list OVERFLOW
 * means "deferred": the message stays parked (nothing re-sent) until a
 * DEFERRABLE_RTR naming token_i arrives; it is then sent again, whole,
 * under a new message id with token_t set.
 *
 * Target: a deferrable message without a matching receive is recorded
 * header-only (its data is dropped) and answered NO_MATCH/OVERFLOW at EOM.
 * A receive that matches it later sends DEFERRABLE_RTR with both tokens;
 * the restarted message finds its record by token_t = gen(8) | index + 1
 * and lands in the bound receive.
 */

#include <errno.h>
#include <string.h>

#include "ses_private.h"

/* ---- target ---- */

static void
ses_defer_fail(struct uet_ses *s, struct ses_target *t, int status)
{
	struct ses_rx_info ri;

	if (!t->no_cqe) {
		ses_rx_info_tgt(&ri, t);
		ri.status = status;
		ri.rc = t->rc;
		ses_recv_cqe(s, &ri);
	}
	ses_target_put(s, t);
}

static void
ses_defer_send_rtr(struct uet_ses *s, struct ses_target *t)
{
	struct uet_ses_wr wr;
	struct ses_msg *m;
	int ret;

	memset(&wr, 0, sizeof(wr));
	wr.op = UET_SES_WR_NOP; /* opcode replaced by DEFERRABLE_RTR */
	wr.job = t->job;
	wr.tag = t->tag;
	wr.dest.fa = t->fa;
	wr.dest.relative = true;
	/* sent by the receiving process (its profile); the header's
	 * initiator is the deferred send's (ses_defer_rtr_fill) */
	wr.flags = UET_SES_WR_F_SRC;
	wr.src_pid = t->pid;
	ret = ses_msg_submit_internal(s, &wr, SES_MK_RTR,
				      (uint32_t)(t - s->tgts) + 1, &m);
	if (ret != 0) {
		t->rc = UET_RC_UNDELIVERABLE;
		ses_defer_fail(s, t, ret == -EAGAIN ? -EAGAIN : -EIO);
		return;
	}
	/* Set before the first build (uet_ses_progress() comes later). */
	m->tok_i = t->tok_i;
	m->tok_t = ses_target_token(s, t);
	m->rtr_msg_id = t->msg_id;
	m->rtr_total = t->total;
	m->rtr_src = (uint32_t)t->src;
	s->st.rtr_tx++;
}

/* EOM of a deferred message: answer "deferred" (NO_MATCH on list
 * OVERFLOW); the record leaves the {PDC, message_id} hash and waits for
 * a receive (DEFER) or sends the RTR now (a receive came meanwhile). */
void
ses_defer_answer(struct uet_ses *s, struct ses_target *t, uint64_t now)
{
	t->rc = UET_RC_NO_MATCH;
	t->list = UET_SES_LIST_OVERFLOW;
	ses_target_respond_rec(s, t, now);
	t->rc = UET_RC_OK;
	ses_target_unhash(s, t);
	if (t->state == SES_TGT_RTR)
		ses_defer_send_rtr(s, t);
}

/* A receive was bound to the deferred message (post, claim or discard). */
void
ses_defer_post(struct uet_ses *s, struct ses_target *t)
{
	t->state = SES_TGT_RTR;
	if (t->responded)
		ses_defer_send_rtr(s, t);
}

/* Ready-to-restart layout (docs/WIRE-DECISIONS.md), field by field:
 * buffer_offset = restart offset (0: the target keeps no data of a
 * deferred message), initiator = the deferred send's, key/match slot =
 * initiator and target restart tokens, header-data slot = the deferred
 * send's match bits; message id and length repeat the deferred send's. */
void
ses_defer_rtr_fill(const struct ses_msg *m, struct uet_wire_ses_req *h)
{
	h->flags &= (uint8_t)~UET_SES_F_HD;
	uet_wire_ses_req_set_restart_offset(h, 0);
	h->initiator = m->rtr_src;
	uet_wire_ses_req_set_tokens(h, m->tok_i, m->tok_t);
	uet_wire_ses_req_set_rtr_match_bits(h, m->wr.tag);
	h->message_id = m->rtr_msg_id;
	h->request_length = m->rtr_total;
}

static struct ses_target *
ses_defer_by_token(struct uet_ses *s, uint32_t tok)
{
	uint32_t idx = tok & 0xFFFFFFu;
	struct ses_target *t;

	if (idx == 0 || idx > s->cfg.max_tgt_msgs)
		return NULL;
	t = &s->tgts[idx - 1];
	return ses_target_token(s, t) == tok ? t : NULL;
}

/* Does the receive that RTR @p m was sent for still wait for it? */
bool
ses_defer_rtr_wanted(struct uet_ses *s, const struct ses_msg *m)
{
	const struct ses_target *t = ses_defer_by_token(s, m->tok_t);

	return t != NULL && t->state == SES_TGT_RTR;
}

void
ses_defer_rtr_done(struct uet_ses *s, struct ses_msg *m, int status)
{
	struct ses_target *t = ses_defer_by_token(s, m->tok_t);
	uint8_t rc = m->rc;

	/* The restarted message is in (or the receive went). */
	if (t == NULL || t->state != SES_TGT_RTR) {
		ses_msg_put(s, m);
		return;
	}
	/* Accepted, restart not begun yet: asked again if it does not come.
	 * Lost with its PDC: sent again (ses_ctl.c); the parked send waits
	 * for nothing else, and no one else tells its initiator. Refused
	 * (the send was cancelled or is gone): the receive fails. */
	if (status == 0 ? ses_ctl_recheck(s, m) :
	    ses_ctl_lost(rc, status) && ses_ctl_retry(s, m))
		return;
	ses_msg_put(s, m);
	t->rc = rc != UET_RC_NULL ? rc : UET_RC_UNCOR;
	ses_defer_fail(s, t, status != 0 ? status : -ETIMEDOUT);
}

struct ses_target *
ses_defer_restart(struct uet_ses *s, const struct uet_pds_event *ev,
		  const struct uet_wire_ses_req *h)
{
	struct ses_target *t = ses_defer_by_token(s, uet_wire_ses_req_token_target(h));

	/* Both tokens name the deferral: the target token alone names a
	 * record that may be another send's (a restarted target whose
	 * record generations happened to repeat: uet-dst, payload). */
	if (t == NULL || t->state != SES_TGT_RTR || t->hashed ||
	    t->tok_i != uet_wire_ses_req_token_initiator(h) ||
	    t->total != h->request_length ||
	    memcmp(&t->fa, &ev->peer, sizeof(t->fa)) != 0) {
		s->st.rtr_stale++;
		return NULL;
	}
	t->pdc = ev->pdc;
	t->msg_id = h->message_id;
	ses_target_hash_add(s, t);
	t->state = SES_TGT_EXPECTED;
	t->rcvd = 0;
	t->have_eom = false;
	t->responded = false;
	t->hd_valid = false;
	t->rc = UET_RC_OK;
	return t;
}

/* ---- initiator ---- */

static void
ses_defer_resend(struct uet_ses *s, struct ses_msg *m)
{
	int ret = ses_peer_next_id(s, &m->wr.dest.fa, m->wr.job,
				   &m->msg_id);

	m->deferred = false;
	m->rtr_pending = false;
	if (ret != 0) {
		m->status = -EAGAIN;
		ses_msg_finish(s, m);
		return;
	}
	/* DECISION (docs/WIRE-DECISIONS.md "Deferrable send and ready-to-
	 * restart"): an ordered send restarts unordered. Its place among
	 * the messages was taken by its first copy, which the target
	 * matched; the restart only fills the receive bound to it, found by
	 * token on any PDC. On the ordered PDC it queued behind any later
	 * message the target refused for want of a record, and that record
	 * could only come free once such restarts landed: the PDC failed
	 * after its back-offs and took every send with it
	 * (test_ses_defer.c, ses_defer_records_full__rod_...). */
	if (m->mode == UET_PDS_MODE_ROD)
		m->mode = UET_PDS_MODE_RUD;
	m->next_frag = 0;
	m->frags_done = 0;
	m->rc = UET_RC_NULL;
	m->list = 0;
	m->resp_seen = false;
	m->mod_len = 0;
	m->state = SES_MSG_QUEUED;
	ses_sq_push(s, m);
}

bool
ses_defer_parked(struct uet_ses *s, struct ses_msg *m)
{
	if (m->kind != SES_MK_WR || !ses_op_is_defer(m->opcode) ||
	    m->status != 0 || m->rc != UET_RC_NO_MATCH ||
	    m->list != UET_SES_LIST_OVERFLOW)
		return false;
	if (!m->deferred) {
		m->deferred = true;
		s->st.defer_tx++;
	}
	if (m->rtr_pending)
		ses_defer_resend(s, m);
	return true;
}

static struct ses_msg *
ses_defer_find(struct uet_ses *s, const struct uet_pds_event *ev,
	       uint32_t tok)
{
	uint32_t slot = (tok & 0xFFFFFFu) ^ ses_token_owner(s);
	struct ses_msg *m;

	/* Another owner's token (an engine context that is not us) leaves
	 * bits above the slot: out of range. */
	if (slot == 0 || slot > s->cfg.max_msgs)
		return NULL;
	m = &s->msgs[slot - 1];
	if (m->state == SES_MSG_FREE || m->gen != (uint8_t)(tok >> 24) ||
	    m->kind != SES_MK_WR || !ses_op_is_defer(m->opcode) ||
	    memcmp(&m->wr.dest.fa, &ev->peer, sizeof(ev->peer)) != 0)
		return NULL;
	return m;
}

/* DEFERRABLE_RTR from the target of one of our deferred sends. */
int
ses_defer_rtr_rx(struct uet_ses *s, const struct uet_pds_event *ev,
		 const struct uet_wire_ses_req *h, uint64_t now)
{
	struct ses_msg *m;

	if (uet_wire_ses_req_token_target(h) == 0) {
		s->st.rx_bad++;
		return ses_respond_rc(s, ev, h, UET_RC_UNSUPPORTED_SIZE,
				      UET_SES_LIST_EXPECTED, now);
	}
	m = ses_defer_find(s, ev, uet_wire_ses_req_token_initiator(h));
	if (m != NULL && m->tok_t != 0) {
		/* Restarted already: by this RTR (a repeat: the target has
		 * not seen the restart begin yet), or by another. */
		if (m->tok_t == uet_wire_ses_req_token_target(h) &&
		    h->request_length == m->wr.len) {
			s->st.rtr_dup++;
			return ses_respond_rc(s, ev, h, UET_RC_OK,
					      UET_SES_LIST_EXPECTED, now);
		}
		m = NULL;
	}
	if (m != NULL && (h->message_id != m->msg_id ||
			  h->request_length != m->wr.len ||
			  uet_wire_ses_req_restart_offset(h) != 0))
		m = NULL;
	if (m == NULL) {
		/* Completed or cancelled: the target fails its receive. */
		s->st.rtr_stale++;
		return ses_respond_rc(s, ev, h, UET_RC_CANCELLED,
				      UET_SES_LIST_EXPECTED, now);
	}
	if (s->cfg.profile_of != NULL &&
	    !uet_ses_profile_allows(ses_profile(s, ses_wr_pid(s, &m->wr)),
				    UET_SES_OP_DEFERRABLE_RTR, 0, 0,
				    s->cfg.mtu - UET_SES_MEDIUM_LEN, NULL))
		return ses_respond_rc(s, ev, h, UET_RC_UNSUPPORTED_OP,
				      UET_SES_LIST_EXPECTED, now);
	s->st.rtr_rx++;
	m->tok_t = uet_wire_ses_req_token_target(h);
	if (m->deferred)
		ses_defer_resend(s, m);
	else
		m->rtr_pending = true; /* the defer answer is still on its way */
	return ses_respond_rc(s, ev, h, UET_RC_OK, UET_SES_LIST_EXPECTED, now);
}

/* Complete a parked send with @p status and UET return code @p rc; a
 * later RTR for it is stale (answered CANCELLED). */
static void
ses_defer_complete(struct uet_ses *s, struct ses_msg *m, int status,
		   uint8_t rc)
{
	struct uet_ses_cqe c;

	memset(&c, 0, sizeof(c));
	c.context = m->wr.context;
	c.status = status;
	c.flags = UET_SES_CQ_SEND;
	c.prov_errno = rc;
	c.op = m->wr.op;
	ses_cq_push(s, &c);
	s->st.msg_err++;
	ses_msg_put(s, m); /* generation bump: a later RTR is stale */
}

/* The PDC to the target of parked send @p m failed (PDC_DOWN, and no other
 * PDC of its key is open): the target cannot be reached to send the RTR
 * the send waits for, so the send fails rather than waiting for good. */
void
ses_defer_pdc_down(struct uet_ses *s, struct ses_msg *m, int status)
{
	s->st.pdc_down_fail++;
	ses_defer_complete(s, m, status, UET_RC_NULL);
}

int
uet_ses_send_cancel(struct uet_ses *s, uint64_t context)
{
	struct ses_msg *m;
	uint32_t i;

	/* Rare path: a scan of the message pool. */
	for (i = 0; i < s->cfg.max_msgs; i++) {
		m = &s->msgs[i];
		if (m->state == SES_MSG_FREE || m->kind != SES_MK_WR ||
		    (!m->deferred && m->state != SES_MSG_WAIT) ||
		    m->wr.context != context)
			continue;
		s->st.send_cancel++;
		ses_defer_complete(s, m, -ECANCELED, UET_RC_CANCELLED);
		return 0;
	}
	return -ENOENT;
}
