/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The SES on the engine: completions. uet_ses_cq_poll() entries become
 * CQEs of the channel that posted the operation (found through its op
 * record, the SES context), or of the channel that takes a process's
 * unsolicited ones; a channel whose CQ is full keeps its CQEs queued,
 * in order, without holding up the others.
 */

#include <errno.h>
#include <string.h>

#include <rte_common.h>

#include "ses_ulp_private.h"

/* ------------------------------------------------------------------ */
/* op records                                                          */
/* ------------------------------------------------------------------ */

/* ------------------------------------------------------------------ */
/* completions                                                         */
/* ------------------------------------------------------------------ */

/* The pending queue's next entry for @p chan, to be filled. */
static struct uet_chan_cqe *
pend_slot(struct ses_ulp_ctx *c, struct uet_chan *chan)
{
	struct ses_ulp_pend *p = &c->pend[c->pend_tail++ & c->pend_mask];

	p->chan = chan;
	if (chan != NULL)
		chan->cq_pending++;
	return &p->cqe;
}

static void
pend_add(struct ses_ulp_ctx *c, struct uet_chan *chan,
	 const struct uet_chan_cqe *e)
{
	*pend_slot(c, chan) = *e;
}

/* Publish the CQEs written in place into the open CQ burst. */
static void
cq_close(struct ses_ulp_ctx *c)
{
	if (c->cq_chan == NULL)
		return;
	uet_chan_cq_commit(c->cq_chan, c->cq_used);
	SES_ULP_ADD(c->st.cqe, c->cq_used);
	c->cq_chan = NULL;
}

/*
 * Where the next CQE of @p chan is written: in place in its CQ, in a
 * burst reserved once (one ring operation for the completions of a
 * poll that go to one channel), or, when its CQ is full or CQEs of it
 * already wait, at the end of the pending queue (in order per channel).
 * The caller fills every field. The pending queue has room (the caller
 * polls no more SES completions than it has).
 */
static struct uet_chan_cqe *
cqe_slot(struct ses_ulp_ctx *c, struct uet_chan *chan)
{
	if (chan == c->cq_chan && c->cq_used < c->cq_n)
		return c->cq_e[c->cq_used++];
	if (chan->cq_pending == 0) {
		cq_close(c);
		c->cq_n = uet_chan_cq_reserve(chan, c->cq_e, SES_ULP_CQ_BURST);
		if (c->cq_n != 0) {
			c->cq_chan = chan;
			c->cq_used = 1;
			return c->cq_e[0];
		}
		SES_ULP_INC(c->st.cq_wait);
	}
	cq_close(c);
	return pend_slot(c, chan);
}

static bool
chan_in(struct uet_chan *const *v, unsigned int n, const struct uet_chan *ch)
{
	for (unsigned int i = 0; i < n; i++)
		if (v[i] == ch)
			return true;
	return false;
}

/*
 * Push waiting CQEs, in order per channel: a channel whose CQ is full
 * keeps its CQEs (and every later one of its own) for the next pass,
 * the others go past it. A client that never polls its CQ stalls only
 * itself (the queue is compacted around what stays).
 */
unsigned int
ses_ulp_pend_flush(struct ses_ulp_ctx *c)
{
	struct uet_chan *full[UET_ENGINE_CHANS_MAX];
	unsigned int n = 0, nfull = 0;
	uint32_t w = c->pend_head;

	for (uint32_t r = c->pend_head; r != c->pend_tail; r++) {
		struct ses_ulp_pend *p = &c->pend[r & c->pend_mask];

		if (p->chan == NULL)
			continue; /* its channel went away */
		if (!chan_in(full, nfull, p->chan) &&
		    uet_chan_cq_push(p->chan, &p->cqe) == 0) {
			p->chan->cq_pending--;
			SES_ULP_INC(c->st.cqe);
			n++;
			continue;
		}
		if (!chan_in(full, nfull, p->chan)) {
			SES_ULP_INC(c->st.cq_wait);
			if (nfull < RTE_DIM(full))
				full[nfull++] = p->chan;
		}
		if (w != r)
			c->pend[w & c->pend_mask] = *p;
		w++;
	}
	n = c->pend_tail - w; /* pushed or dropped */
	c->pend_tail = w;
	return n;
}

/* A completion made by the glue itself (NOP, refused descriptor). */
void
ses_ulp_complete_local(struct ses_ulp_ctx *c, uint32_t slot, int status,
		   uint32_t prov_errno)
{
	struct ses_ulp_op *o = &c->ops[slot];
	struct uet_chan_cqe e;

	if (status != 0 || o->want) {
		memset(&e, 0, sizeof(e));
		e.context = o->ctx;
		e.status = status;
		e.flags = o->rx ? UET_CHAN_CQ_RECV : UET_CHAN_CQ_SEND;
		e.prov_errno = prov_errno;
		e.op = o->op;
		pend_add(c, o->chan, &e);
	}
	ses_ulp_op_put(c, slot);
}

/* Every field of @p e but context and op (@p e may be a ring slot). */
static void
cqe_from_ses(struct uet_chan_cqe *e, const struct uet_ses_cqe *s)
{
	e->status = s->status;
	/* UET_SES_CQ_* equal UET_CHAN_CQ_* */
	e->flags = s->flags;
	/* a truncated receive is an error entry (FI_ETRUNC) for the front end */
	if ((s->flags & UET_SES_CQ_TRUNC) && e->status == 0)
		e->status = -EMSGSIZE;
	e->len = s->len;
	e->data = s->data;
	/* an untagged receive has no tag: the field carries where the
	 * message starts in the buffer (a multi-recv buffer's slices) */
	e->tag = (s->flags & UET_SES_CQ_RECV) && !(s->flags & UET_SES_CQ_TAGGED) ?
		 s->offset : s->tag;
	e->src = s->src;
	e->prov_errno = s->prov_errno;
	memset(e->rsvd0, 0, sizeof(e->rsvd0));
	e->olen = s->olen;
}

/* The channel that takes unsolicited completions (remote CQ data of a
 * WRITE) for process @p pid: its first channel that accepts receives
 * (by the ring size the engine made, never the ring header, which a
 * client of the service can write). */
static struct uet_chan *
rx_chan(const struct ses_ulp_ctx *c, uint16_t pid)
{
	for (unsigned int i = 0; i < c->nb_chans; i++)
		if (c->chans[i].pid == pid && c->chans[i].chan->rq_mask > 1)
			return c->chans[i].chan;
	return NULL;
}

/*
 * A wrong key costs its channel: past UET_SES_ULP_KEY_BAD_BURST BAD_MKEY
 * completions within a window, the channel's SQ is not read for a pause,
 * so that a client guessing keys (of another client of the service, or
 * of a remote process) makes a few hundred guesses a second, not
 * millions; every other channel goes on.
 */
static void
key_bad(struct ses_ulp_ctx *c, const struct uet_chan *ch, uint64_t now)
{
	struct ses_ulp_chan *sc = NULL;

	SES_ULP_INC(c->st.key_bad);
	for (unsigned int i = 0; i < c->nb_chans && sc == NULL; i++)
		if (c->chans[i].chan == ch)
			sc = &c->chans[i];
	if (sc == NULL)
		return;
	if (now - sc->kb_start > UET_SES_ULP_KEY_BAD_WINDOW_NS) {
		sc->kb_start = now;
		sc->kb_count = 0;
	}
	if (++sc->kb_count > UET_SES_ULP_KEY_BAD_BURST &&
	    now >= sc->kb_until) {
		sc->kb_until = now + UET_SES_ULP_KEY_BAD_PAUSE_NS;
		SES_ULP_INC(c->st.key_throttled);
	}
}

/* The channel that counts remote accesses to process @p pid (EP_ADD
 * with remote_events); none: the event is dropped. */
static struct uet_chan *
remote_chan(const struct ses_ulp_ctx *c, uint16_t pid)
{
	for (unsigned int i = 0; i < c->nb_chans; i++)
		if (c->chans[i].pid == pid && c->chans[i].remote)
			return c->chans[i].chan;
	return NULL;
}

static void
complete_ses(struct ses_ulp_ctx *c, const struct uet_ses_cqe *s, uint64_t now)
{
	struct uet_chan_cqe *e;
	struct ses_ulp_op *o;
	bool last;

	if (s->context == SES_ULP_DRAIN_CTX)
		return; /* a discard of the glue (ep_drain) */
	if (s->context == 0) {
		struct uet_chan *ch = (s->flags & UET_SES_CQ_REMOTE) ?
				      remote_chan(c, s->pid_on_fep) :
				      rx_chan(c, s->pid_on_fep);

		if (ch == NULL) {
			/* remote events are only wanted by counters */
			if (!(s->flags & UET_SES_CQ_REMOTE))
				SES_ULP_INC(c->st.orphan_cqe);
			return;
		}
		if (ch->cq_pending >= SES_ULP_CHAN_PEND_UNSOL_MAX) {
			/* never polled: its unsolicited completions are lost,
			 * not everybody's */
			SES_ULP_INC(c->st.cq_overrun);
			return;
		}
		e = cqe_slot(c, ch);
		cqe_from_ses(e, s);
		e->context = 0;
		e->op = s->op;
		return;
	}
	if (unlikely(s->context > c->nb_ops)) {
		SES_ULP_INC(c->st.orphan_cqe);
		return;
	}
	o = &c->ops[s->context - 1];
	last = !o->multi || s->status != 0 ||
	       (s->flags & UET_SES_CQ_MULTI_RECV_DONE) != 0;
	/* a successful PEEK | CLAIM keeps its record (and so its SES
	 * context) for the CLAIM post that takes the message */
	if (o->peek_claim && s->status == 0 && o->chan != NULL) {
		o->claimed = 1;
		last = false;
	}
	if (o->chan != NULL && s->status != 0 && !o->rx &&
	    s->prov_errno == UET_RC_BAD_MKEY)
		key_bad(c, o->chan, now);
	if (o->chan != NULL && (s->status != 0 || o->want || o->rx)) {
		e = cqe_slot(c, o->chan);
		cqe_from_ses(e, s);
		e->context = o->ctx;
		e->op = o->op;
	}
	if (last)
		ses_ulp_op_put(c, (uint32_t)(s->context - 1));
}

unsigned int
ses_ulp_completions(struct ses_ulp_ctx *c, uint64_t now)
{
	unsigned int work = ses_ulp_pend_flush(c);
	uint32_t room;
	uint16_t n;

	for (;;) {
		room = RTE_MIN(ses_ulp_pend_room(c), (uint32_t)SES_ULP_CQ_BURST);
		if (room == 0)
			break;
		n = uet_ses_cq_poll(c->ses, c->scq, (uint16_t)room);
		for (uint16_t i = 0; i < n; i++)
			complete_ses(c, &c->scq[i], now);
		work += n;
		if (n < room)
			break;
	}
	cq_close(c);
	return work + ses_ulp_pend_flush(c);
}
