/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Zero-copy transmit (uet_ses_build_ref()): a frame may carry a message's
 * payload by reference into the application's buffer, and the port may
 * hold that frame after the message is acknowledged (a driver's TX queue,
 * a ring the peer has not read, a retransmission of an acknowledged
 * packet, fault injection's hold). The buffer is the application's again
 * when the message completes (libfabric: the operation's completion), so
 * an acknowledged message whose buffer a frame still references waits
 * here, in SES_MSG_TXWAIT, and completes once uet_ses_config.tx_busy says
 * the last such frame is released.
 */

#include "ses_private.h"

bool
ses_txref_park(struct uet_ses *s, struct ses_msg *m)
{
	uint32_t idx = (uint32_t)(m - s->msgs);

	if (s->cfg.tx_busy == NULL || m->state == SES_MSG_TXWAIT ||
	    !s->cfg.tx_busy(s->cfg.tx_busy_arg, idx))
		return false;
	m->state = SES_MSG_TXWAIT;
	m->next = SES_NIL;
	if (s->txw.tail == SES_NIL)
		s->txw.head = idx;
	else
		s->msgs[s->txw.tail].next = idx;
	s->txw.tail = idx;
	s->st.msg_tx_wait++;
	return true;
}

/* Finish the parked messages whose buffers are released, in order; the
 * ones still referenced stay. Returns messages finished. */
uint32_t
ses_txref_progress(struct uet_ses *s)
{
	uint32_t idx = s->txw.head, prev = SES_NIL, n = 0;

	while (idx != SES_NIL) {
		struct ses_msg *m = &s->msgs[idx];
		uint32_t next = m->next;

		if (s->cfg.tx_busy(s->cfg.tx_busy_arg, idx)) {
			prev = idx;
			idx = next;
			continue;
		}
		if (prev == SES_NIL)
			s->txw.head = next;
		else
			s->msgs[prev].next = next;
		if (s->txw.tail == idx)
			s->txw.tail = prev;
		/* the state says it is parked: ses_msg_finish() goes on */
		ses_msg_finish(s, m);
		n++;
		idx = next;
	}
	return n;
}
