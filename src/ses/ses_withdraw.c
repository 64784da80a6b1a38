/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Withdrawing the operations of a process that goes away (an endpoint
 * closed with operations in flight, uet_ses_withdraw()).
 *
 * What only waits for the peer ends at once: a rendezvous send nobody
 * has started to read (its key is revoked: a late read-back gets
 * BAD_MKEY), a deferrable send parked for its RTR, a large READ waiting
 * for its data (what still arrives is dropped). What never reached the
 * wire is never sent. What is on the wire is let finish, because the PDS
 * may ask for any unacknowledged packet again and only the owner's
 * buffer holds its bytes; each such fragment ends within the PDS's
 * retransmission budget (acknowledged, or failed with its PDC). Receives
 * already bound to a message keep their record but write nothing more.
 *
 * Forced (the caller waited long enough), the rest is detached: nothing
 * of it is built again (the build returns -ENOENT, and the engine has the
 * PDS fail the PDC once such a packet is its oldest outstanding,
 * uet_pds_tx_unbuildable()), no response data is copied, no read-back
 * continues. Either way, once it returns 0 the SES does not touch the
 * memory of those operations again.
 */

#include <errno.h>

#include "ses_private.h"

/* Whether @p m still hands over or waits for fragments built from its
 * buffer. */
static bool
wd_wire_busy(const struct ses_msg *m)
{
	uint32_t want = m->aborted ? m->next_frag : m->nfrags;

	if (m->state == SES_MSG_QUEUED)
		return m->next_frag != 0 && !m->detached;
	return m->frags_done < want;
}

/* Detach @p m for good: no build, no copy, no read-back of its buffer. */
static void
wd_detach(struct uet_ses *s, struct ses_msg *m)
{
	m->detached = true;
	ses_rdv_release(s, m); /* new read-backs: BAD_MKEY */
	ses_ret_detach(s, m);
	ses_read_unhash(s, m); /* READ data still coming is refused */
	if (m->status == 0)
		m->status = -ECANCELED;
}

/*
 * One message whose memory is withdrawn. Returns whether it still may
 * touch that memory.
 */
static bool
wd_msg(struct uet_ses *s, struct ses_msg *m, bool force)
{
	if (!m->withdrawn) {
		m->withdrawn = true;
		s->st.withdrawn++;
	}
	/* waiting to go again (BAD_PID, ses_pid_wait): ends below */
	if (m->state == SES_MSG_WAIT)
		m->state = SES_MSG_ACTIVE;
	if (m->state == SES_MSG_QUEUED && m->next_frag == 0) {
		/* never on the wire: uet_ses_progress() drops it */
		ses_rdv_release(s, m);
		return false;
	}
	if (wd_wire_busy(m) || m->rdv_rets != 0) {
		if (!force)
			return true;
		wd_detach(s, m);
		s->st.withdraw_forced++;
		return false;
	}
	/* only the peer could still do something: end it now */
	ses_rdv_release(s, m);
	ses_read_unhash(s, m);
	if (m->status == 0)
		m->status = -ECANCELED;
	ses_msg_check_done(s, m);
	return false;
}

/* A receive bound to a message: later data lands nowhere (the record
 * completes as a zero-byte receive, which nobody reads). */
static void
wd_tgt(struct ses_target *t)
{
	if (t->state == SES_TGT_EXPECTED || t->state == SES_TGT_RTR ||
	    t->state == SES_TGT_RDV) {
		t->buf = NULL;
		t->cap = 0;
	}
}

/* The target record a rendezvous read-back message fills, when the
 * receive bound to it is withdrawn. */
static bool
wd_rdv_read_mine(const struct uet_ses *s, const struct ses_msg *m,
		 bool (*mine)(void *arg, uint64_t context), void *arg)
{
	const struct ses_target *t;

	if (m->kind != SES_MK_RDV_READ || m->rx == 0 ||
	    m->rx > s->cfg.max_tgt_msgs)
		return false;
	t = &s->tgts[m->rx - 1];
	return t->state == SES_TGT_RDV && mine(arg, t->ctx);
}

uint32_t
uet_ses_withdraw(struct uet_ses *s, bool (*mine)(void *arg, uint64_t context),
		 void *arg, bool force)
{
	uint32_t busy = 0, i;

	if (s == NULL || mine == NULL)
		return 0;
	/* Rare path (an endpoint closing): scans of the pools. Read-backs
	 * first, while their target records still name the receive. */
	for (i = 0; i < s->cfg.max_msgs; i++) {
		struct ses_msg *m = &s->msgs[i];

		if (m->state == SES_MSG_FREE)
			continue;
		if ((m->kind == SES_MK_WR && mine(arg, m->wr.context)) ||
		    wd_rdv_read_mine(s, m, mine, arg))
			busy += wd_msg(s, m, force);
	}
	for (i = 0; i < s->cfg.max_tgt_msgs; i++) {
		struct ses_target *t = &s->tgts[i];

		if (t->state != SES_TGT_FREE && mine(arg, t->ctx))
			wd_tgt(t);
	}
	return busy;
}
