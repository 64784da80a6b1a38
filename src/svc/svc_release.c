/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Release of a departed client without holding the control thread
 * (docs/SERVICE.md "Client death and cleanup"): its channels are
 * detached at once (a short pause of the lcores), then what it held in
 * the engine goes one control request at a time, posted without waiting
 * (uet_ses_ulp_ctl_post) and polled between other clients' requests: an
 * EP_DEL that waits seconds for operations still on the wire delays
 * nobody else. Its PIDonFEPs, region and memory descriptor are given
 * back once the last answer came.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>

#include <uet/uet_ses_ulp.h>

#include "svc_server_private.h"

struct svc_step {
	uint16_t ctx;
	struct uet_ses_ulp_ctl q;
};

static struct svc_step *
step_add(struct svc_client *c, uint16_t ctx, uint8_t op)
{
	struct svc_step *st = &c->steps[c->nb_steps++];

	memset(st, 0, sizeof(*st));
	st->ctx = ctx;
	st->q.op = op;
	return st;
}

static unsigned int
steps_needed(const struct uet_svc_server *s, const struct svc_client *c)
{
	/* one engine reference per {job, PIDonFEP} (svc_srv_ops.c op_job) */
	unsigned int n = c->nb_peers + c->nb_mrs + c->nb_jobs;

	for (unsigned int i = 0; i < s->p.max_chans; i++)
		n += c->chans[i].open;
	return n;
}

static int
pid_ctx(const struct svc_client *c, uint16_t pid)
{
	for (unsigned int i = 0; i < c->nb_pids; i++)
		if (c->pids[i].pid == pid)
			return c->pids[i].ctx;
	return -1;
}

/* In the order of the synchronous release: peers, regions before jobs
 * (a job's RMA table goes once empty), jobs, then the channels' EP_DEL
 * (answered once the SES let go of their memory). */
static void
steps_fill(const struct uet_svc_server *s, struct svc_client *c)
{
	struct svc_step *st;

	for (unsigned int i = 0; i < c->nb_peers; i++) {
		st = step_add(c, c->peers[i].ctx, UET_SES_ULP_PEER_DEL);
		st->q.handle = c->peers[i].handle;
		st->q.owner_id = c->owner_id;
	}
	for (unsigned int i = 0; i < c->nb_mrs; i++) {
		if (c->mrs[i].local)
			continue;
		st = step_add(c, c->mrs[i].ctx, UET_SES_ULP_MR_DEREG);
		st->q.key = c->mrs[i].key;
	}
	for (unsigned int i = 0; i < c->nb_jobs; i++) {
		int ctx = pid_ctx(c, c->jobs[i].pid);

		if (ctx < 0 || c->jobs[i].ref == 0)
			continue;
		st = step_add(c, (uint16_t)ctx, UET_SES_ULP_JOB_DEL);
		st->q.job = c->jobs[i].job;
		st->q.has_pid = true;
		st->q.pid = c->jobs[i].pid;
		st->q.own_rma = true;
	}
	for (unsigned int i = 0; i < s->p.max_chans; i++) {
		if (!c->chans[i].open)
			continue;
		st = step_add(c, c->chans[i].ctx, UET_SES_ULP_EP_DEL);
		st->q.chan = &c->chans[i].ch;
	}
}

void
svc_release_start(struct uet_svc_server *s, struct svc_client *c)
{
	struct svc_chan *open[UET_SVC_CHANS_MAX];
	unsigned int n = 0;

	/* a CHAN_CLOSE waiting for its EP_DEL detached its channel already */
	for (unsigned int i = 0; i < s->p.max_chans; i++)
		if (c->chans[i].open &&
		    (c->wait.op == NULL ||
		     c->wait.req != UET_SVC_OP_CHAN_CLOSE ||
		     c->wait.chan != &c->chans[i]))
			open[n++] = &c->chans[i];
	/* the engine stops reading its rings at once */
	svc_chans_detach(s, open, n);
	c->steps = NULL;
	c->nb_steps = 0;
	c->next_step = 0;
	c->inflight = NULL;
	s->st.releasing++;
}

/* The steps, once a request the client left waiting (CHAN_CLOSE,
 * JOB_DEL: svc_wait) was answered and applied: what it still holds
 * then. @return false to try again at the next tick. */
static bool
steps_make(struct uet_svc_server *s, struct svc_client *c)
{
	int rc;

	if (c->wait.op != NULL && !svc_wait_poll(s, c, &rc))
		return false;
	c->steps = calloc(steps_needed(s, c) + 1, sizeof(*c->steps));
	if (c->steps == NULL)
		return false;
	steps_fill(s, c);
	return true;
}

/* Everything answered: what the client held goes back. */
static void
release_finish(struct uet_svc_server *s, struct svc_client *c)
{
	unsigned int chans = 0;

	for (unsigned int i = 0; i < s->p.max_chans; i++) {
		chans += c->chans[i].open;
		c->chans[i].open = false;
	}
	s->st.chans -= chans;
	/* its uid's quotas and JobID ownership, as the synchronous release
	 * gives them back one by one */
	for (unsigned int i = 0; i < c->nb_jobs; i++)
		svc_job_end(s, c, c->jobs[i].job);
	svc_quota_put(c, SVC_Q_PEERS, c->nb_peers);
	svc_quota_put(c, SVC_Q_MRS, c->nb_mrs);
	s->st.jobs -= c->nb_jobs;
	s->st.peers -= c->nb_peers;
	s->st.mrs -= c->nb_mrs;
	c->nb_jobs = c->nb_peers = c->nb_mrs = 0;
	/* a key not released may still name the client's address space:
	 * its descriptor stays open rather than be reused */
	if (c->release_failed || c->as_pinned)
		SVC_LOG(ERR, "client pid %d: a key not released, its memory "
			"descriptor kept", (int)c->pid);
	svc_client_unmap(s, c, c->release_failed || c->as_pinned);
	free(c->steps);
	c->steps = NULL;
	s->st.releasing--;
}

/* The answer of a step: an MR_DEREG that did not succeed leaves a key
 * that may live on. */
static void
step_done(struct svc_client *c, const struct uet_ses_ulp_ctl *q, int rc)
{
	if (q->op == UET_SES_ULP_MR_DEREG && rc != 0 && rc != -ENOENT)
		c->release_failed = true;
	c->next_step++;
}

bool
svc_release_poll(struct uet_svc_server *s, struct svc_client *c)
{
	struct uet_ses_ulp_ctl q;
	int rc;

	if (c->steps == NULL && !steps_make(s, c))
		return false;
	/* bounded: each turn answers or posts one step, or returns */
	for (unsigned int turn = 0; turn <= 2 * c->nb_steps + 1; turn++) {
		if (c->inflight != NULL) {
			if (uet_ses_ulp_ctl_poll(c->inflight, &q) != 0)
				return false;
			c->inflight = NULL;
			step_done(c, &q, q.rc);
			continue;
		}
		if (c->next_step == c->nb_steps) {
			release_finish(s, c);
			return true;
		}
		rc = uet_ses_ulp_ctl_post(s->p.engine,
					  c->steps[c->next_step].ctx,
					  &c->steps[c->next_step].q,
					  &c->inflight);
		/* its ring full, or no memory: later (a step taken as
		 * answered would free what the engine may still hold) */
		if (rc == -EAGAIN || rc == -ENOMEM)
			return false;
		if (rc < 0) {
			c->inflight = NULL;
			step_done(c, &c->steps[c->next_step].q, rc);
		}
	}
	return false;
}

/* What engine request @p q on @p ctx of @p c touches. */
static void
ctl_touch(const struct svc_client *c, uint16_t ctx,
	  const struct uet_ses_ulp_ctl *q, struct svc_touch *t)
{
	*t = (struct svc_touch){ .ctx = ctx, .pid = -1, .job = -1 };
	switch (q->op) {
	case UET_SES_ULP_JOB_DEL:
		t->pid = q->pid;
		t->job = q->job;
		t->job_del = true;
		break;
	case UET_SES_ULP_EP_DEL:
		/* steps_fill's: a channel of c->chans */
		t->chan = q->chan;
		t->pid = container_of(q->chan, const struct svc_chan, ch)->pid;
		break;
	case UET_SES_ULP_MR_DEREG:
		t->all = true;
		for (unsigned int i = 0; i < c->nb_mrs; i++)
			if (c->mrs[i].key == q->key && !c->mrs[i].local) {
				t->pid = c->mrs[i].pid;
				t->job = c->mrs[i].job;
				t->all = false;
			}
		break;
	case UET_SES_ULP_PEER_DEL:
		t->ctx = -1; /* the lcore holds no PEER_DEL, nor for one */
		break;
	default:
		t->all = true;
		break;
	}
}

bool
svc_client_touch(const struct svc_client *c, struct svc_touch *t)
{
	/* started, it holds nothing (an MR_DEREG waiting for READs) */
	if (c->wait.op != NULL && !uet_ses_ulp_ctl_started(c->wait.op)) {
		*t = (struct svc_touch){ .ctx = c->wait.ctx, .pid = c->wait.pid,
					 .job = -1 };
		if (c->wait.req == UET_SVC_OP_CHAN_CLOSE && c->wait.chan != NULL) {
			t->chan = &c->wait.chan->ch;
			t->pid = c->wait.chan->pid;
		} else if (c->wait.req == UET_SVC_OP_JOB_DEL) {
			t->job = c->wait.job;
			t->job_del = true;
		} else if (c->wait.req == UET_SVC_OP_MR_DEREG &&
			   c->wait.mr < c->nb_mrs) {
			t->pid = c->mrs[c->wait.mr].pid;
			t->job = c->mrs[c->wait.mr].job;
		} else {
			t->all = true;
		}
		return true;
	}
	/* a release step in flight is steps[next_step] */
	if (c->inflight != NULL && !uet_ses_ulp_ctl_started(c->inflight)) {
		ctl_touch(c, c->steps[c->next_step].ctx,
			  &c->steps[c->next_step].q, t);
		return t->ctx >= 0;
	}
	return false;
}
