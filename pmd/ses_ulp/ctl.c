/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The SES on the engine: the control path. Requests (uet_ses_ulp_ctl())
 * travel over a per-context ring to the owner lcore, so the data path
 * takes no lock; a request is either cancelled before the lcore starts
 * it or applied and answered, never both.
 */

#include <errno.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_pause.h>
#include <rte_ring.h>

#include "ses_ulp_private.h"

void
ses_ulp_ctl_answer(struct ses_ulp_ctl_msg *m)
{
	unsigned int expect = SES_ULP_CTL_RUNNING;

	if (!atomic_compare_exchange_strong(&m->state, &expect, SES_ULP_CTL_DONE))
		rte_free(m); /* the caller gave up waiting (ABANDONED) */
}

/* Whether return-direction READ data may still be built from the region
 * a waiting deregistration names. */
static bool
dereg_busy(const struct ses_ulp_ctx *c, const struct ses_ulp_dereg *d)
{
	return uet_ses_ret_reads(c->ses, d->owner, d->base, d->len);
}

void
ses_ulp_ctl_one(struct ses_ulp_ctx *c, struct ses_ulp_ctl_msg *m, uint64_t now)
{
	struct uet_ses_ulp_ctl *q = &m->req;
	unsigned int expect = SES_ULP_CTL_PENDING;
	struct ses_ulp_dereg dereg = { .m = NULL };

	/* the caller timed out before we got to it: not applied */
	if (!atomic_compare_exchange_strong(&m->state, &expect,
					    SES_ULP_CTL_RUNNING)) {
		SES_ULP_INC(c->st.ctl_cancelled);
		rte_free(m);
		return;
	}
	if (q->op == UET_SES_ULP_MR_DEREG) {
		const struct uet_ses_mr_entry *me =
			uet_ses_mr_lookup(c->mr, q->key);

		if (me != NULL)
			dereg = (struct ses_ulp_dereg){ .m = m, .owner = me->owner,
				.base = me->base, .len = me->length };
	}
	switch (q->op) {
	case UET_SES_ULP_JOB_ADD:
		q->rc = ses_ulp_job_add(c, q->job, q->has_pid ? q->pid : c->pid,
				    q->own_rma);
		break;
	case UET_SES_ULP_JOB_DEL:
		q->rc = ses_ulp_job_del(c, q->job, q->has_pid ? q->pid : c->pid);
		break;
	case UET_SES_ULP_MR_REG:
		q->rc = ses_ulp_mr_reg(c, q);
		break;
	case UET_SES_ULP_MR_DEREG:
		q->rc = uet_ses_mr_dereg(c->mr, q->key);
		break;
	case UET_SES_ULP_MR_ENABLE:
		q->rc = uet_ses_mr_enable(c->mr, q->key, !q->disabled);
		break;
	case UET_SES_ULP_EP_ADD:
		q->rc = ses_ulp_ep_add(c, q);
		break;
	case UET_SES_ULP_EP_DEL:
		q->rc = ses_ulp_ep_del(c, q->chan, now);
		break;
	case UET_SES_ULP_PEER_ADD:
		q->rc = ses_ulp_peer_add(c, q);
		break;
	case UET_SES_ULP_PEER_DEL:
		q->rc = ses_ulp_peer_del(c, q->handle, q->owner_id);
		break;
	default:
		q->rc = -EINVAL;
		break;
	}
	SES_ULP_INC(c->st.ctl);
	/* the key resolves no more; READ responses in flight may still be
	 * rebuilt from the region: answer once those of the region are all
	 * acknowledged (only those: the security review's READs of its own
	 * region held every deregistration of the context, and the service's
	 * control thread waiting on one, for 27 s) */
	if (q->op == UET_SES_ULP_MR_DEREG && q->rc == 0 && dereg.m != NULL &&
	    dereg_busy(c, &dereg) &&
	    c->nb_dereg_wait < RTE_DIM(c->dereg_wait)) {
		SES_ULP_INC(c->st.dereg_waits);
		c->dereg_wait[c->nb_dereg_wait++] = dereg;
		return;
	}
	ses_ulp_ctl_answer(m);
}

/* What request @p m touches: a PIDonFEP, a job, a channel (each may be
 * none; PEER_ADD / PEER_DEL touch none of them). */
static void
ctl_keys(const struct ses_ulp_ctx *c, struct ses_ulp_ctl_msg *m)
{
	const struct uet_ses_ulp_ctl *q = &m->req;
	const struct uet_ses_mr_entry *me;

	m->k_chan = NULL;
	m->k_has_job = false;
	m->k_pid = -1;
	switch (q->op) {
	case UET_SES_ULP_JOB_ADD:
	case UET_SES_ULP_JOB_DEL:
	case UET_SES_ULP_MR_REG:
		m->k_pid = q->has_pid ? q->pid : c->pid;
		m->k_job = q->job;
		m->k_has_job = true;
		break;
	case UET_SES_ULP_MR_DEREG:
	case UET_SES_ULP_MR_ENABLE:
		me = uet_ses_mr_lookup(c->mr, q->key);
		if (me != NULL) {
			m->k_pid = me->pid_on_fep;
			m->k_job = me->job_id;
			m->k_has_job = true;
		}
		break;
	case UET_SES_ULP_EP_ADD:
		m->k_pid = q->pid;
		m->k_chan = q->chan;
		break;
	case UET_SES_ULP_EP_DEL:
		m->k_pid = ses_ulp_chan_pid(c, q->chan);
		m->k_chan = q->chan;
		break;
	default:
		break;
	}
}

static bool
ctl_conflict(const struct ses_ulp_ctl_msg *a, const struct ses_ulp_ctl_msg *b)
{
	return (a->k_pid >= 0 && a->k_pid == b->k_pid) ||
	       (a->k_has_job && b->k_has_job && a->k_job == b->k_job) ||
	       (a->k_chan != NULL && a->k_chan == b->k_chan);
}

/* An EP_ADD or JOB_ADD the context has no room for, while an EP_DEL or
 * JOB_DEL held before it (in the first @p before of held[]) would make
 * some: it goes after it, as it came, rather than refused -ENOSPC ahead
 * of it. */
static bool
ctl_room_later(struct ses_ulp_ctx *c, const struct ses_ulp_ctl_msg *m,
	       unsigned int before)
{
	uint8_t del;
	unsigned int i;

	if (m->req.op == UET_SES_ULP_EP_ADD)
		del = UET_SES_ULP_EP_DEL;
	else if (m->req.op == UET_SES_ULP_JOB_ADD)
		del = UET_SES_ULP_JOB_DEL;
	else
		return false;
	for (i = 0; i < before && c->held[i]->req.op != del; i++)
		;
	if (i == before)
		return false;
	return m->req.op == UET_SES_ULP_EP_ADD ? !ses_ulp_ep_room(c, &m->req) :
						 !ses_ulp_job_room(c, &m->req);
}

/* A request its caller stopped waiting for before the lcore started it
 * (uet_ses_ulp_ctl's -ETIMEDOUT): freed, never applied, holding nothing
 * behind it. */
static bool
ctl_cancelled(struct ses_ulp_ctx *c, struct ses_ulp_ctl_msg *m)
{
	if (atomic_load(&m->state) != SES_ULP_CTL_CANCELLED)
		return false;
	SES_ULP_INC(c->st.ctl_cancelled);
	rte_free(m);
	return true;
}

struct orphan_of {
	struct ses_ulp_ctx *c;
	int32_t pid;
};

/* uet_ses_withdraw()'s predicate: a withdrawn operation of one process */
static bool
orphan_of_pid(void *arg, uint64_t ctx)
{
	const struct orphan_of *w = arg;

	return ses_ulp_orphan(w->c, ctx) && w->c->ops[ctx - 1].pid == w->pid;
}

/*
 * Whether held request @p m may run now: no request held before it (the
 * first @p before of held[]) touches what it touches, and, a JOB_DEL or
 * EP_DEL, the SES no longer touches the memory of its process's
 * withdrawn operations (after SES_ULP_WITHDRAW_NS what is left of them
 * is detached). Only that process's: another's close, or a request of
 * another process, is not held behind a send nobody acknowledges. That
 * takes a pass over the SES's message pools: only when @p scan (a held
 * one is looked at every SES_ULP_HELD_SCAN_NS, not at every turn of the
 * loop, which would slow every channel of the lcore while closes wait).
 */
static bool
ctl_ready(struct ses_ulp_ctx *c, const struct ses_ulp_ctl_msg *m,
	  unsigned int before, uint64_t now, bool scan)
{
	struct orphan_of w = { .c = c, .pid = m->k_pid };
	bool force;

	for (unsigned int i = 0; i < before; i++)
		if (ctl_conflict(c->held[i], m))
			return false;
	if (ctl_room_later(c, m, before))
		return false;
	if ((m->req.op != UET_SES_ULP_JOB_DEL &&
	     m->req.op != UET_SES_ULP_EP_DEL) || m->k_pid < 0)
		return true;
	if (!scan)
		return false;
	force = now - m->held_at > SES_ULP_WITHDRAW_NS;
	if (uet_ses_withdraw(c->ses, orphan_of_pid, &w, force) != 0)
		return false;
	if (force)
		SES_ULP_INC(c->st.withdraw_forced);
	return true;
}

unsigned int
ses_ulp_ctl_poll(struct ses_ulp_ctx *c, uint64_t now)
{
	void *m[SES_ULP_CTL_BURST];
	unsigned int n, kept = 0;
	bool scan = now - c->held_scan_at >= SES_ULP_HELD_SCAN_NS;

	if (c->nb_dereg_wait != 0) {
		unsigned int w = 0;

		for (unsigned int i = 0; i < c->nb_dereg_wait; i++) {
			if (dereg_busy(c, &c->dereg_wait[i]))
				c->dereg_wait[w++] = c->dereg_wait[i];
			else
				ses_ulp_ctl_answer(c->dereg_wait[i].m);
		}
		c->nb_dereg_wait = w;
	}
	/* the held ones in order, each once those before it that touch
	 * the same are gone (what they touch looked up again: an EP_DEL
	 * held behind the EP_ADD of its channel names its process now) */
	for (unsigned int i = 0; i < c->nb_held; i++) {
		if (ctl_cancelled(c, c->held[i]))
			continue;
		ctl_keys(c, c->held[i]);
		if (ctl_ready(c, c->held[i], kept, now, scan))
			ses_ulp_ctl_one(c, c->held[i], now);
		else
			c->held[kept++] = c->held[i];
	}
	c->nb_held = kept;
	if (scan)
		c->held_scan_at = now;
	/* no more than held[] takes: the rest waits in the ring */
	n = rte_ring_sc_dequeue_burst(c->ctl, m,
				      RTE_MIN(RTE_DIM(m),
					      RTE_DIM(c->held) - c->nb_held),
				      NULL);
	for (unsigned int i = 0; i < n; i++) {
		struct ses_ulp_ctl_msg *cm = m[i];

		if (ctl_cancelled(c, cm))
			continue;
		ctl_keys(c, cm);
		cm->held_at = now;
		if (ctl_ready(c, cm, c->nb_held, now, true)) {
			ses_ulp_ctl_one(c, cm, now);
			continue;
		}
		if (cm->req.op == UET_SES_ULP_JOB_DEL ||
		    cm->req.op == UET_SES_ULP_EP_DEL)
			SES_ULP_INC(c->st.withdraw_waits);
		c->held[c->nb_held++] = cm;
	}
	return n;
}

struct ses_ulp_ctx *
ses_ulp_of(struct uet_engine *e, unsigned int idx)
{
	struct uet_ulp_ctx *u = uet_ulp_ctx_get(e, idx);
	struct ses_ulp_ctx *c;

	if (u == NULL || uet_ulp_ctx_ops(u) != &uet_ses_ulp_ops)
		return NULL;
	c = uet_ulp_ctx_priv(u);
	return c != NULL && c->magic == SES_ULP_MAGIC ? c : NULL;
}

/*
 * Drive the engine (or let its lcore run) while @p m is in @p state, at
 * most @p secs seconds: an idle wait spins (@p nap_us 0) or sleeps.
 */
static void
ctl_wait_while(struct uet_engine *e, struct ses_ulp_ctl_msg *m,
	       unsigned int state, unsigned int secs, unsigned int nap_us,
	       void (*progress)(void *), void *arg)
{
	uint64_t end = rte_get_timer_cycles() + secs * rte_get_timer_hz();

	while (atomic_load(&m->state) == state &&
	       rte_get_timer_cycles() < end) {
		if (uet_engine_running(e) && nap_us == 0)
			rte_pause();
		else if (uet_engine_running(e))
			rte_delay_us_sleep(nap_us);
		else if (progress != NULL)
			progress(arg);
		else
			(void)uet_engine_poll(e, 1);
	}
}

int
uet_ses_ulp_ctl(struct uet_engine *e, unsigned int ctx_idx,
		struct uet_ses_ulp_ctl *req, void (*progress)(void *),
		void *arg)
{
	struct uet_ses_ulp_ctl_pending *op;
	struct ses_ulp_ctl_msg *m;
	unsigned int expect;
	int rc;

	rc = uet_ses_ulp_ctl_post(e, ctx_idx, req, &op);
	if (rc != 0)
		return rc;
	m = (struct ses_ulp_ctl_msg *)op;
	ctl_wait_while(e, m, SES_ULP_CTL_PENDING, 5, 0, progress, arg);
	expect = SES_ULP_CTL_PENDING;
	if (atomic_compare_exchange_strong(&m->state, &expect,
					   SES_ULP_CTL_CANCELLED))
		return -ETIMEDOUT; /* never applied; the lcore frees it */
	/* started: its answer comes (late), it is not abandoned lightly */
	ctl_wait_while(e, m, SES_ULP_CTL_RUNNING, SES_ULP_CTL_RUNNING_MAX_S, 100,
		       progress, arg);
	expect = SES_ULP_CTL_RUNNING;
	if (atomic_compare_exchange_strong(&m->state, &expect,
					   SES_ULP_CTL_ABANDONED))
		return -EINPROGRESS; /* applied or not: unknown */
	*req = m->req;
	rte_free(m);
	return 0;
}

int
uet_ses_ulp_ctl_post(struct uet_engine *e, unsigned int ctx_idx,
		     const struct uet_ses_ulp_ctl *req,
		     struct uet_ses_ulp_ctl_pending **op)
{
	struct ses_ulp_ctl_msg *m;
	struct ses_ulp_ctx *c;

	if (e == NULL || req == NULL || op == NULL)
		return -EINVAL;
	c = ses_ulp_of(e, ctx_idx);
	if (c == NULL)
		return -ENOENT;
	m = rte_zmalloc("ses_ulp_ctl", sizeof(*m), 0);
	if (m == NULL)
		return -ENOMEM;
	m->req = *req;
	atomic_init(&m->state, SES_ULP_CTL_PENDING);
	if (rte_ring_mp_enqueue(c->ctl, m) != 0) {
		rte_free(m);
		return -EAGAIN;
	}
	uet_engine_wake(e, ctx_idx);
	*op = (struct uet_ses_ulp_ctl_pending *)m;
	return 0;
}

bool
uet_ses_ulp_ctl_started(const struct uet_ses_ulp_ctl_pending *op)
{
	const struct ses_ulp_ctl_msg *m = (const struct ses_ulp_ctl_msg *)op;

	return m != NULL && atomic_load(&m->state) != SES_ULP_CTL_PENDING;
}

int
uet_ses_ulp_ctl_poll(struct uet_ses_ulp_ctl_pending *op, struct uet_ses_ulp_ctl *req)
{
	struct ses_ulp_ctl_msg *m = (struct ses_ulp_ctl_msg *)op;

	if (m == NULL || req == NULL)
		return -EINVAL;
	if (atomic_load(&m->state) != SES_ULP_CTL_DONE)
		return -EAGAIN;
	*req = m->req;
	rte_free(m);
	return 0;
}

int
uet_ses_ulp_identity(struct uet_engine *e, unsigned int ctx_idx,
		     uint16_t *pid, uint32_t *initiator)
{
	struct ses_ulp_ctx *c = ses_ulp_of(e, ctx_idx);

	if (c == NULL)
		return -ENOENT;
	if (pid != NULL)
		*pid = c->pid;
	if (initiator != NULL)
		*initiator = c->initiator;
	return 0;
}

int
uet_ses_ulp_stats_get(struct uet_engine *e, unsigned int ctx_idx,
		      struct uet_ses_ulp_stats *st, const struct uet_ses **ses)
{
	struct ses_ulp_ctx *c = ses_ulp_of(e, ctx_idx);

	if (c == NULL)
		return -ENOENT;
	if (st != NULL) {
		*st = c->st;
		st->tx_ref = uet_ulp_ctx_stats(c->uctx)->tx_ref;
		st->tx_ref_held = ses_ulp_txref_held(c);
	}
	if (ses != NULL)
		*ses = c->ses;
	return 0;
}
