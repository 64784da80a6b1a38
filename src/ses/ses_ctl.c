/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Control messages a target sends to the initiator of a message it holds:
 * DEFERRABLE_RTR (a deferred send may restart, UEC 1.0 SES send variants)
 * and MSG_ERROR (a rendezvous read-back failed). The initiator waits for
 * them and has no other way to learn what they say: its own PDC to us
 * may be idle or closed, so nothing it sends would fail either. When the
 * PDC carrying one fails (retries or back-offs exhausted, a PDC-fatal
 * NACK), the message goes again on a new PDC (the PDS opens one for the
 * key: the failed PDC is gone), after a wait that doubles from
 * SES_CTL_WAIT_NS, SES_CTL_TRIES times: the attempts span some 0.5 s
 * plus the failure detection of each PDC, longer than the partitions
 * and trimming spells a PDC alone does not outlive (docs/SES.md "PDC
 * failures").
 */

#include <errno.h>

#include "ses_private.h"

#define SES_CTL_TRIES 9
#define SES_CTL_WAIT_NS 1000000ull
/* An RTR accepted, and the restarted message not begun: asked again
 * after 10 ms, doubling, 8 times (some 2.5 s, longer than a PDC takes to
 * fail with the default retries). */
#define SES_RESTART_ROUNDS 8
#define SES_RESTART_WAIT_NS 10000000ull

/* The message got no answer because its PDC failed (as opposed to an
 * answer with an error code, which is final). -ECONNABORTED: its PDC
 * went with it in flight, or the peer answered NACK CLOSING and the PDS
 * could not move it to a new PDC (pds_nack_closing()): never accepted,
 * so it may go again. */
bool
ses_ctl_lost(uint8_t rc, int status)
{
	return rc == UET_RC_NULL &&
	       (status == -ETIMEDOUT || status == -ECONNRESET ||
		status == -ECONNREFUSED || status == -ECONNABORTED);
}

/* @p m goes again at now + @p wait (ses_ctl_progress); events still
 * naming the cookies of its last attempt are stale from now on
 * (generation). */
static void
ses_ctl_wait(struct uet_ses *s, struct ses_msg *m, uint64_t wait)
{
	m->gen++;
	m->retry_at = s->now + wait;
	m->state = SES_MSG_WAIT;
	if (m->retry_at < s->retry_due)
		s->retry_due = m->retry_at;
}

/* Schedule control message @p m to go again; false when its attempts are
 * used up (the caller ends it). */
bool
ses_ctl_retry(struct uet_ses *s, struct ses_msg *m)
{
	if (m->ctl_tries >= SES_CTL_TRIES)
		return false;
	ses_ctl_wait(s, m, SES_CTL_WAIT_NS << m->ctl_tries);
	m->ctl_tries++;
	if (m->kind == SES_MK_RTR)
		s->st.rtr_resent++;
	else
		s->st.msg_error_resent++;
	return true;
}

/*
 * DEFERRABLE_RTR @p m was accepted, but the restarted message has not
 * begun to arrive: ask again later. The initiator answers a repeat OK
 * while its restarted send lives, CANCELLED once it is gone (failed, its
 * PDC down), which fails the receive; nothing else would tell us that
 * its restart failed before reaching us. False when the rounds are used
 * up (the caller fails the receive).
 */
bool
ses_ctl_recheck(struct uet_ses *s, struct ses_msg *m)
{
	if (m->restart_rounds >= SES_RESTART_ROUNDS)
		return false;
	m->ctl_tries = 0; /* it got through: a fresh budget for losses */
	ses_ctl_wait(s, m, SES_RESTART_WAIT_NS << m->restart_rounds);
	m->restart_rounds++;
	s->st.rtr_recheck++;
	return true;
}

/* BAD_PID: waits from 1 ms, doubling, up to 64 ms each. */
#define SES_PID_WAIT_NS 1000000ull
#define SES_PID_WAIT_DOUBLINGS 6

static bool
ses_pid_waits_for(unsigned int opcode)
{
	switch (opcode) {
	case UET_SES_OP_SEND:
	case UET_SES_OP_TAGGED_SEND:
	case UET_SES_OP_RENDEZVOUS_SEND:
	case UET_SES_OP_RENDEZVOUS_TSEND:
	case UET_SES_OP_DEFERRABLE_SEND:
	case UET_SES_OP_DEFERRABLE_TSEND:
		return true;
	default:
		return false;
	}
}

/*
 * Send @p m, done, was answered BAD_PID: its target has no process of
 * that PIDonFEP, perhaps not yet (cfg.pid_wait_ns). Nothing of it was
 * delivered: a packet refused for it fails the whole message at the
 * target (ses_send_refuse_part), the packets that came later are dropped
 * with it. So it goes again, whole, under a new message id (the target
 * may hold a record of the old one, refused), until the wait is over.
 * False: it ends now, with its answer.
 */
bool
ses_pid_wait(struct uet_ses *s, struct ses_msg *m)
{
	uint32_t n;

	/* A deferrable send restarted by its target's RTR (tok_t set): the
	 * process that sent the RTR was there and went; the receive it
	 * bound is gone with it. */
	if (s->cfg.pid_wait_ns == 0 || m->kind != SES_MK_WR ||
	    m->status != 0 || m->rc != UET_RC_BAD_PID ||
	    !ses_pid_waits_for(m->opcode) || m->withdrawn || m->detached ||
	    m->rdv_rets != 0 || m->rdv_served || m->tok_t != 0)
		return false;
	if (m->pid_tries == 0)
		m->pid_wait_end = s->now + s->cfg.pid_wait_ns;
	if (s->now >= m->pid_wait_end) {
		s->st.pid_gave_up++;
		return false;
	}
	n = m->pid_tries < SES_PID_WAIT_DOUBLINGS ? m->pid_tries :
						    SES_PID_WAIT_DOUBLINGS;
	ses_ctl_wait(s, m, SES_PID_WAIT_NS << n);
	if (m->pid_tries < UINT8_MAX)
		m->pid_tries++;
	s->st.pid_resent++;
	return true;
}

/* A send waiting to go again after BAD_PID gets a new message id and,
 * deferrable, a token of its new generation; false: no id (it ends). */
static bool
ses_pid_renew(struct uet_ses *s, struct ses_msg *m)
{
	if (m->fmt == UET_SES_FMT_STD &&
	    ses_peer_next_id(s, &m->wr.dest.fa, m->wr.job, &m->msg_id) != 0)
		return false;
	m->tok_i = (uint32_t)m->gen << UET_WIRE_SES_TOKEN_SLOT_BITS |
		   ses_token_owner(s) | (uint32_t)(m - s->msgs + 1);
	m->list = 0;
	return true;
}

/* The same message again, whole, from its first fragment. */
static void
ses_ctl_resubmit(struct uet_ses *s, struct ses_msg *m)
{
	if (m->kind == SES_MK_RTR && !ses_defer_rtr_wanted(s, m)) {
		ses_msg_put(s, m); /* the receive went meanwhile */
		return;
	}
	if (m->kind == SES_MK_WR && !ses_pid_renew(s, m)) {
		m->state = SES_MSG_ACTIVE;
		m->status = -EAGAIN;
		ses_msg_finish(s, m);
		return;
	}
	m->next_frag = 0;
	m->frags_done = 0;
	m->status = 0;
	m->rc = UET_RC_NULL;
	m->resp_seen = false;
	m->aborted = false;
	m->mod_len = 0;
	m->state = SES_MSG_QUEUED;
	ses_sq_push(s, m);
}

/* Send again the control messages whose wait is over. Rare path: a scan
 * of the message pool once a wait ends. */
void
ses_ctl_progress(struct uet_ses *s, uint64_t now)
{
	uint64_t due = UINT64_MAX;
	struct ses_msg *m;
	uint32_t i;

	if (now < s->retry_due)
		return;
	for (i = 0; i < s->cfg.max_msgs; i++) {
		m = &s->msgs[i];
		if (m->state != SES_MSG_WAIT)
			continue;
		if (m->retry_at <= now)
			ses_ctl_resubmit(s, m);
		else if (m->retry_at < due)
			due = m->retry_at;
	}
	s->retry_due = due;
}

uint64_t
uet_ses_next_deadline(const struct uet_ses *s)
{
	/* a message waiting for the port to release its buffer is asked
	 * about on every progress (ses_txref.c): due now */
	if (s->txw.head != SES_NIL)
		return s->now;
	/* A peer's first waiting message ends without the PDS
	 * (ses_msg_cut), or an event since the last progress may let one
	 * go: its PDC failed, or ACKs freed window, in the call that drained
	 * events after the progress of that turn (uet-dst generator 1 seeds
	 * 10459974: a WRITE half handed over waited for good, nothing else
	 * being due; 10542178: a send queued behind a withdrawn one never
	 * left once the PDC that held its window failed). */
	if (s->ready.head != SES_NIL && (s->sq_kick || ses_sq_cut_due(s)))
		return s->now;
	return s->retry_due;
}
