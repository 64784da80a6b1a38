/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The SES on the engine: consumption of the context's front-end
 * channels (uet_chan.h). SQE -> uet_ses_submit(), RQE ->
 * uet_ses_recv_post() / cancel, each in order per channel (a descriptor
 * the SES refuses with -EAGAIN is held); and the channel set: a channel
 * that goes away has its operations withdrawn in the SES.
 */

#include <errno.h>
#include <string.h>

#include <rte_common.h>

#include "ses_ulp_private.h"

/* The SQE's job is one its channel may use (a service client's grant). */
static bool
job_granted(const struct uet_chan *ch, uint32_t job)
{
	const struct uet_chan_jobs *js = ch->jobs;

	if (js == NULL)
		return true;
	for (uint32_t i = 0; i < js->nb && i < UET_CHAN_JOB_RANGES_MAX; i++)
		if (job >= js->r[i].first && job <= js->r[i].last)
			return true;
	return false;
}

/* 0 consumed (submitted or completed), -EAGAIN keep it. */
static int
sqe_submit(struct ses_ulp_ctx *c, const struct ses_ulp_chan *sc,
	   const struct uet_chan_sqe *q, uint32_t slot, uint64_t now)
{
	const struct uet_ses_ulp_peer *peer;
	enum uet_wire_ses_rc urc = UET_RC_OK;
	struct uet_ses_wr wr;
	int rc;

	(void)now;
	if (q->op == UET_CHAN_OP_NOP) {
		ses_ulp_complete_local(c, slot, 0, 0);
		return 0;
	}
	peer = ses_ulp_peer_of(c, q->dest, sc->owner);
	if (unlikely(peer == NULL)) {
		SES_ULP_INC(c->st.peer_bad);
		SES_ULP_INC(c->st.sqe_rejected);
		ses_ulp_complete_local(c, slot, -EINVAL, 0);
		return 0;
	}
	if (unlikely(!job_granted(sc->chan, q->job))) {
		SES_ULP_INC(c->st.job_bad);
		SES_ULP_INC(c->st.sqe_rejected);
		ses_ulp_complete_local(c, slot, -EPERM, 0);
		return 0;
	}
	rc = ses_ulp_sqe_to_wr(sc, q, peer, slot, &wr);
	if (unlikely(rc == -EFAULT)) {
		SES_ULP_INC(c->st.win_bad);
		SES_ULP_INC(c->st.sqe_rejected);
		ses_ulp_complete_local(c, slot, rc, 0);
		return 0;
	}
	if (rc == 0)
		rc = uet_ses_submit(c->ses, &wr, &urc);
	if (rc == -EAGAIN) {
		SES_ULP_INC(c->st.sqe_held);
		return -EAGAIN;
	}
	if (rc < 0) {
		SES_ULP_INC(c->st.sqe_rejected);
		if (urc == UET_RC_OK)
			urc = rc == -EMSGSIZE ? UET_RC_TOO_LONG :
			      UET_RC_UNSUPPORTED_OP;
		ses_ulp_complete_local(c, slot, rc, urc);
	}
	return 0;
}

static void
op_fill(struct ses_ulp_op *o, struct uet_chan *chan, uint64_t ctx, uint8_t op,
	bool rx, uint32_t flags)
{
	if (o->chan != NULL)
		o->chan->ops_out[o->rx != 0]--;
	if (chan != NULL)
		chan->ops_out[rx]++;
	o->chan = chan;
	o->ctx = ctx;
	o->op = op;
	o->rx = rx;
	o->want = rx || (flags & UET_CHAN_F_COMPLETION) != 0;
	o->multi = rx && (flags & UET_CHAN_F_MULTI_RECV) != 0;
	o->peek_claim = rx && (flags & UET_CHAN_F_PEEK) &&
			(flags & UET_CHAN_F_CLAIM) &&
			!(flags & UET_CHAN_F_DISCARD);
	o->claimed = 0;
	o->orphan = 0;
}

/* How many op records @p sc's process may still take (ops_max). */
static uint32_t
ep_room(const struct ses_ulp_ctx *c, const struct ses_ulp_chan *sc)
{
	const struct ses_ulp_ep *ep = &c->eps[sc->ep];

	if (ep->ops_max == 0)
		return UINT32_MAX;
	return ep->ops >= ep->ops_max ? 0 : ep->ops_max - ep->ops;
}

/*
 * How many descriptors of @p sc one pass may take: each takes at most
 * one op record and, when it completes at once, one pending CQE; a
 * process at its ops_max sends again once one of its operations
 * completed (they all end, bounded by the PDS).
 */
static uint32_t
sq_quota(const struct ses_ulp_ctx *c, const struct ses_ulp_chan *sc,
	 uint32_t n)
{
	uint32_t q = SES_ULP_CHAN_BUDGET - n;

	q = RTE_MIN(q, c->nb_free);
	q = RTE_MIN(q, ses_ulp_pend_room(c));
	q = RTE_MIN(q, ses_ulp_chan_room(sc->chan, false));
	return RTE_MIN(q, ep_room(c, sc));
}

unsigned int
ses_ulp_chan_sq(struct ses_ulp_ctx *c, struct ses_ulp_chan *sc, uint64_t now)
{
	const struct uet_chan_sqe *q[SES_ULP_CHAN_BUDGET];
	unsigned int n = 0, i, nq;

	if (ses_ulp_pend_room(c) == 0 || now < sc->kb_until ||
	    ses_ulp_chan_backlogged(sc->chan))
		return 0;
	if (sc->sq_slot != SES_ULP_NONE) {
		if (sqe_submit(c, sc, &sc->sqe, sc->sq_slot, now) == -EAGAIN)
			return 0;
		sc->sq_slot = SES_ULP_NONE;
		n++;
	}
	/* one burst, read in the ring and taken with one ring operation */
	nq = uet_chan_sq_peek(sc->chan, q, c->sq_tmp, sq_quota(c, sc, n));
	for (i = 0; i < nq; i++) {
		uint32_t slot = ses_ulp_op_get(c);

		ses_ulp_op_charge(c, slot, sc->ep);
		op_fill(&c->ops[slot], sc->chan, q[i]->context, q[i]->op,
			false, q[i]->flags);
		if (sqe_submit(c, sc, q[i], slot, now) == -EAGAIN) {
			/* in order: nothing passes it; kept out of the ring
			 * (a shared ring's entry may change under us) */
			sc->sqe = *q[i];
			sc->sq_slot = slot;
			i++;
			break;
		}
	}
	uet_chan_sq_done(sc->chan, i);
	SES_ULP_ADD(c->st.sqe, i);
	return n + i;
}

static void
rqe_cancel(struct ses_ulp_ctx *c, const struct ses_ulp_chan *sc, uint64_t ctx)
{
	struct uet_chan *chan = sc->chan;

	SES_ULP_INC(c->st.cancel);
	/* rare: a scan of the op records (bounded by their number) */
	for (uint32_t i = 0; i < c->nb_ops; i++) {
		struct ses_ulp_op *o = &c->ops[i];

		if (o->chan == chan && o->rx && o->ctx == ctx &&
		    !o->claimed) {
			(void)uet_ses_recv_cancel_pid(c->ses, sc->pid,
						      (uint64_t)i + 1);
			return;
		}
	}
}

static int
rqe_post(struct ses_ulp_ctx *c, const struct ses_ulp_chan *sc,
	 const struct uet_chan_rqe *q, uint32_t slot, uint64_t now)
{
	struct uet_ses_recv r;
	int rc;

	memset(&r, 0, sizeof(r));
	r.op = q->op;
	r.pid_on_fep = sc->pid;
	r.context = (uint64_t)slot + 1;
	rc = ses_ulp_desc_buf(sc->chan, q->flags, q->addr, q->len, &r.buf, &r.len);
	if (unlikely(rc == -EFAULT))
		SES_ULP_INC(c->st.win_bad);
	if (q->op == UET_CHAN_RQ_TRECV) {
		r.tag = q->tag;
		r.ignore = q->ignore;
	}
	if (q->flags & UET_CHAN_F_MULTI_RECV) {
		r.flags |= UET_SES_RECV_F_MULTI;
		r.min_free = q->ignore; /* PROVIDER.md: min_multi_recv */
	}
	/* UET_CHAN_F_PEEK/CLAIM/DISCARD equal UET_SES_RECV_F_* */
	r.flags |= q->flags & (UET_CHAN_F_PEEK | UET_CHAN_F_CLAIM |
			       UET_CHAN_F_DISCARD);
	if (q->flags & UET_CHAN_F_SRC_FILTER) {
		const struct uet_ses_ulp_peer *peer =
			ses_ulp_peer_of(c, q->src, sc->owner);

		if (peer == NULL) {
			SES_ULP_INC(c->st.peer_bad);
			rc = -EINVAL;
		} else {
			r.src = peer->initiator;
		}
		r.flags |= UET_SES_RECV_F_SRC;
	}
	if (rc == 0)
		rc = uet_ses_recv_post(c->ses, &r, now);
	if (rc == -EAGAIN)
		return -EAGAIN;
	if (rc < 0) {
		SES_ULP_INC(c->st.rqe_rejected);
		ses_ulp_complete_local(c, slot, rc, 0);
	}
	return 0;
}

/*
 * A CLAIM post (without PEEK) takes the message its PEEK | CLAIM post
 * reserved: the SES knows it by the SES context of that post, so the
 * claim runs on the record the PEEK | CLAIM kept (the front end posts
 * both with the same channel context). @p fresh is returned to the pool
 * then; without such a record the SES answers -ENOENT.
 */
static uint32_t
claim_slot(struct ses_ulp_ctx *c, struct uet_chan *chan,
	   const struct uet_chan_rqe *q, uint32_t fresh)
{
	if ((q->flags & (UET_CHAN_F_CLAIM | UET_CHAN_F_PEEK)) !=
	    UET_CHAN_F_CLAIM)
		return fresh;
	/* rare: a scan of the op records (bounded by their number) */
	for (uint32_t i = 0; i < c->nb_ops; i++) {
		struct ses_ulp_op *o = &c->ops[i];

		if (o->claimed && o->chan == chan && o->ctx == q->context) {
			ses_ulp_op_put(c, fresh);
			return i;
		}
	}
	return fresh;
}

/*
 * A receive its process has no record left for (ops_max, counting the
 * one just taken): refused at once, -ENOSPC (a posted receive may wait
 * for ever, so its process could not count on the others ending).
 * A CLAIM takes the record its PEEK | CLAIM kept: never refused.
 */
static bool
rqe_over(struct ses_ulp_ctx *c, const struct ses_ulp_chan *sc,
	 const struct uet_chan_rqe *q, uint32_t slot)
{
	const struct ses_ulp_ep *ep = &c->eps[sc->ep];
	uint32_t f = q->flags & (UET_CHAN_F_CLAIM | UET_CHAN_F_PEEK);

	if (ep->ops_max == 0 || ep->ops <= ep->ops_max ||
	    f == UET_CHAN_F_CLAIM)
		return false;
	op_fill(&c->ops[slot], sc->chan, q->context, q->op, true, q->flags);
	SES_ULP_INC(c->st.ops_quota);
	ses_ulp_complete_local(c, slot, -ENOSPC, 0);
	return true;
}

/* 0 consumed, -EAGAIN held (sc->rqe, sc->rq_slot) */
static int
rqe_one(struct ses_ulp_ctx *c, struct ses_ulp_chan *sc,
	const struct uet_chan_rqe *q, uint64_t now)
{
	uint32_t slot;

	if (q->op == UET_CHAN_RQ_CANCEL) {
		rqe_cancel(c, sc, q->context);
		return 0;
	}
	slot = ses_ulp_op_get(c);
	ses_ulp_op_charge(c, slot, sc->ep);
	if (rqe_over(c, sc, q, slot))
		return 0;
	slot = claim_slot(c, sc->chan, q, slot);
	op_fill(&c->ops[slot], sc->chan, q->context, q->op, true, q->flags);
	if (q->op != UET_CHAN_RQ_RECV && q->op != UET_CHAN_RQ_TRECV) {
		SES_ULP_INC(c->st.rqe_rejected);
		ses_ulp_complete_local(c, slot, -EINVAL, 0);
		return 0;
	}
	if (rqe_post(c, sc, q, slot, now) == -EAGAIN) {
		sc->rqe = *q;
		sc->rq_slot = slot;
		return -EAGAIN;
	}
	return 0;
}

unsigned int
ses_ulp_chan_rq(struct ses_ulp_ctx *c, struct ses_ulp_chan *sc, uint64_t now)
{
	const struct uet_chan_rqe *q[SES_ULP_CHAN_BUDGET];
	unsigned int n = 0, i, nq;
	uint32_t quota;

	if (ses_ulp_pend_room(c) == 0 || ses_ulp_chan_backlogged(sc->chan))
		return 0;
	if (sc->rq_slot != SES_ULP_NONE) {
		if (rqe_post(c, sc, &sc->rqe, sc->rq_slot, now) == -EAGAIN)
			return 0;
		sc->rq_slot = SES_ULP_NONE;
		n++;
	}
	/* each descriptor takes at most one record and one pending CQE */
	quota = RTE_MIN(c->nb_free, ses_ulp_pend_room(c));
	quota = RTE_MIN(quota, ses_ulp_chan_room(sc->chan, true));
	quota = RTE_MIN(quota, SES_ULP_CHAN_BUDGET - n);
	nq = uet_chan_rq_peek(sc->chan, q, c->rq_tmp, quota);
	for (i = 0; i < nq;)
		if (rqe_one(c, sc, q[i++], now) == -EAGAIN)
			break;
	uet_chan_rq_done(sc->chan, i);
	SES_ULP_ADD(c->st.rqe, i);
	return n + i;
}

/* ------------------------------------------------------------------ */
/* channel set                                                         */
/* ------------------------------------------------------------------ */

/* A message reserved by a PEEK | CLAIM whose channel went away: discard
 * it (its sender is released); the record returns on that completion. */
static void
claim_drop(struct ses_ulp_ctx *c, uint16_t pid, uint32_t slot, uint64_t now)
{
	struct uet_ses_recv r;

	memset(&r, 0, sizeof(r));
	r.op = c->ops[slot].op;
	r.pid_on_fep = pid;
	r.flags = UET_SES_RECV_F_CLAIM | UET_SES_RECV_F_DISCARD;
	r.context = (uint64_t)slot + 1;
	c->ops[slot].claimed = 0;
	if (uet_ses_recv_post(c->ses, &r, now) != 0)
		ses_ulp_op_put(c, slot);
}

/* uet_ses_withdraw() selector: the operations of channels gone. */
bool
ses_ulp_orphan(void *arg, uint64_t ctx)
{
	const struct ses_ulp_ctx *c = arg;

	return ctx != 0 && ctx <= c->nb_ops && c->ops[ctx - 1].orphan;
}

/* A channel went away (detached while stopped): forget its records,
 * withdraw its receives and its operations in the SES (what waits only
 * for the peer ends now; what is on the wire ends before JOB_DEL / EP_DEL
 * are answered, see ses_ulp_ctl_poll), so that no buffer of it is touched once
 * the endpoint is closed. */
static void
chan_gone(struct ses_ulp_ctx *c, struct ses_ulp_chan *sc, uint64_t now)
{
	for (uint32_t i = 0; i < c->nb_ops; i++) {
		struct ses_ulp_op *o = &c->ops[i];

		if (o->chan != sc->chan)
			continue;
		o->chan = NULL;
		o->orphan = 1;
		o->pid = sc->pid;
		if (o->claimed)
			claim_drop(c, sc->pid, i, now);
		else if (o->rx)
			(void)uet_ses_recv_cancel_pid(c->ses, sc->pid,
						      (uint64_t)i + 1);
	}
	if (sc->sq_slot != SES_ULP_NONE)
		ses_ulp_op_put(c, sc->sq_slot);
	if (sc->rq_slot != SES_ULP_NONE)
		ses_ulp_op_put(c, sc->rq_slot);
	for (uint32_t i = c->pend_head; i != c->pend_tail; i++)
		if (c->pend[i & c->pend_mask].chan == sc->chan)
			c->pend[i & c->pend_mask].chan = NULL;
	/* nothing of it is left here (attached again, it starts anew) */
	sc->chan->cq_pending = 0;
	sc->chan->ops_out[0] = sc->chan->ops_out[1] = 0;
	(void)uet_ses_withdraw(c->ses, ses_ulp_orphan, c, false);
}

/* The process a channel sends and receives as (EP_ADD, else slot 0). */
static void
chan_identity(const struct ses_ulp_ctx *c, struct ses_ulp_chan *sc)
{
	const struct ses_ulp_ep *ep;
	unsigned int i;

	sc->ep = 0;
	sc->owner = 0;
	sc->remote = false;
	for (i = 0; i < c->nb_binds; i++) {
		if (c->binds[i].chan == sc->chan) {
			sc->ep = c->binds[i].ep;
			sc->owner = c->binds[i].owner;
			sc->remote = c->binds[i].remote;
		}
	}
	ep = &c->eps[sc->ep];
	sc->pid = ep->pid;
	sc->initiator = ep->initiator;
}

void
ses_ulp_chans_sync(struct ses_ulp_ctx *c, struct uet_engine_lcore *lc, uint64_t now)
{
	unsigned int n = uet_engine_lcore_nb_chans(lc);
	struct ses_ulp_chan tmp[UET_ENGINE_CHANS_MAX];
	bool same = n == c->nb_chans;

	for (unsigned int i = 0; same && i < n; i++)
		same = uet_engine_lcore_chan(lc, i) == c->chans[i].chan;
	if (likely(same))
		return;
	/* rebuild, keeping the held descriptors of surviving channels */
	for (unsigned int i = 0; i < n; i++) {
		struct uet_chan *ch = uet_engine_lcore_chan(lc, i);
		unsigned int j;

		memset(&tmp[i], 0, sizeof(tmp[i]));
		tmp[i].chan = ch;
		tmp[i].sq_slot = SES_ULP_NONE;
		tmp[i].rq_slot = SES_ULP_NONE;
		chan_identity(c, &tmp[i]);
		for (j = 0; j < c->nb_chans; j++)
			if (c->chans[j].chan == ch)
				break;
		if (j < c->nb_chans) {
			tmp[i] = c->chans[j];
			c->chans[j].chan = NULL;
		}
	}
	for (unsigned int j = 0; j < c->nb_chans; j++)
		if (c->chans[j].chan != NULL)
			chan_gone(c, &c->chans[j], now);
	memcpy(c->chans, tmp, n * sizeof(tmp[0]));
	c->nb_chans = n;
}
