/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The SES on the engine: the tables the control path edits. Jobs and
 * their RI tables, the processes a context serves (EP_ADD), registered
 * peers (PEER_ADD: handles, never pointers) and memory registration
 * (another process's memory through its /proc/PID/mem descriptor,
 * uet_cma.h).
 */

#include <errno.h>
#include <string.h>

#include <rte_common.h>

#include <uet/uet_cma.h>

#include "ses_ulp_private.h"

/* ------------------------------------------------------------------ */
/* jobs and RI tables                                                  */
/* ------------------------------------------------------------------ */

struct ses_ulp_job *
ses_ulp_job_find(struct ses_ulp_ctx *c, uint32_t job, uint16_t pid)
{
	for (uint32_t i = 0; i < c->max_jobs; i++)
		if (c->jobs[i].ref != 0 && c->jobs[i].job == job &&
		    c->jobs[i].pid == pid)
			return &c->jobs[i];
	return NULL;
}

static void
job_tables_undo(struct ses_ulp_ctx *c, struct ses_ulp_job *j)
{
	uint16_t rma = (c->start_ri + UET_SES_ULP_RI_RMA) & 0xFFF;

	if (j->ri_msg >= 0)
		(void)uet_ses_ri_del(c->mr, j->ri_msg);
	if (j->ri_rdv >= 0)
		(void)uet_ses_ri_del(c->mr, j->ri_rdv);
	if (j->ri_rma >= 0 && j->alias)
		(void)uet_ses_ri_alias_del(c->mr, j->ri_rma, j->pid, rma);
	else if (j->ri_rma >= 0)
		(void)uet_ses_ri_del(c->mr, j->ri_rma);
}

/*
 * The RI tables of {job, pid}: MSG (start_ri), RMA (start_ri + 1) and
 * rendezvous (start_ri + 2). Another process than the context's shares
 * the context's RMA table of the job (@p base: memory regions are the
 * domain's), under an alias of its own PIDonFEP.
 */
static int
job_tables(struct ses_ulp_ctx *c, struct ses_ulp_job *j, const struct ses_ulp_job *base)
{
	/* MSG: initiators address a process by FA and PIDonFEP only (a
	 * libfabric address has no RI generation), so the table keeps
	 * generation 0 when an endpoint is closed and re-created */
	struct uet_ses_ri_attr ra = {
		.relative = true, .job_id = j->job, .pid_on_fep = j->pid,
		.type = UET_SES_RI_MSG, .generation_zero = true,
	};
	uint16_t rma = (c->start_ri + UET_SES_ULP_RI_RMA) & 0xFFF;
	int rc;

	ra.resource_index = (c->start_ri + UET_SES_ULP_RI_MSG) & 0xFFF;
	j->ri_msg = uet_ses_ri_add(c->mr, &ra);
	ra.generation_zero = false;
	ra.type = UET_SES_RI_RMA;
	/* another process's keys (a client of the service): no oracle */
	ra.opaque_errors = j->pid != c->pid;
	ra.resource_index = (c->start_ri + UET_SES_ULP_RI_RDV) & 0xFFF;
	j->ri_rdv = uet_ses_ri_add(c->mr, &ra);
	j->alias = base != NULL;
	if (base != NULL) {
		j->ri_rma = base->ri_rma;
		rc = uet_ses_ri_alias_add(c->mr, j->ri_rma, j->pid, rma);
		if (rc < 0)
			j->ri_rma = rc;
	} else {
		ra.resource_index = rma;
		j->ri_rma = uet_ses_ri_add(c->mr, &ra);
	}
	if (j->ri_msg >= 0 && j->ri_rma >= 0 && j->ri_rdv >= 0)
		return 0;
	rc = j->ri_msg < 0 ? j->ri_msg : j->ri_rma < 0 ? j->ri_rma : j->ri_rdv;
	job_tables_undo(c, j);
	return rc;
}


/* Authorise @p job for process @p pid (refcounted) with its RI tables. */
int
ses_ulp_job_add(struct ses_ulp_ctx *c, uint32_t job, uint16_t pid, bool own)
{
	struct ses_ulp_job *j = ses_ulp_job_find(c, job, pid), *base = NULL;
	int rc;

	own = own && pid != c->pid;
	if (j != NULL) {
		/* another process's table is an alias unless its own */
		if (pid != c->pid && j->alias == own)
			return -EEXIST;
		j->ref++;
		return 0;
	}
	if (pid != c->pid && !own) {
		rc = ses_ulp_job_add(c, job, c->pid, false);
		if (rc < 0)
			return rc;
		base = ses_ulp_job_find(c, job, c->pid);
	}
	for (uint32_t i = 0; i < c->max_jobs && j == NULL; i++)
		if (c->jobs[i].ref == 0)
			j = &c->jobs[i];
	rc = j == NULL ? -ENOSPC : uet_ses_mr_auth_add(c->mr, job, pid);
	if (rc == 0) {
		j->job = job;
		j->pid = pid;
		rc = job_tables(c, j, base);
		if (rc < 0)
			(void)uet_ses_mr_auth_del(c->mr, job, pid);
	}
	if (rc < 0) {
		if (base != NULL)
			(void)ses_ulp_job_del(c, job, c->pid);
		return rc;
	}
	j->ref = 1;
	return 0;
}

int
ses_ulp_job_del(struct ses_ulp_ctx *c, uint32_t job, uint16_t pid)
{
	struct ses_ulp_job *j = ses_ulp_job_find(c, job, pid);
	uint16_t rma = (c->start_ri + UET_SES_ULP_RI_RMA) & 0xFFF;
	int rc;

	if (j == NULL)
		return -ENOENT;
	if (j->ref > 1) {
		j->ref--;
		return 0;
	}
	/* the context's RMA table goes last: regions may still be there */
	if (!j->alias) {
		rc = uet_ses_ri_del(c->mr, j->ri_rma);
		if (rc < 0)
			return rc; /* -EBUSY: regions or aliases remain */
	}
	/* rendezvous keys live as long as their sends */
	rc = uet_ses_ri_del(c->mr, j->ri_rdv);
	if (rc < 0) {
		if (!j->alias) {
			struct uet_ses_ri_attr ra = {
				.relative = true, .job_id = job,
				.pid_on_fep = pid, .resource_index = rma,
				.type = UET_SES_RI_RMA,
				.opaque_errors = pid != c->pid,
			};

			j->ri_rma = uet_ses_ri_add(c->mr, &ra);
		}
		return rc;
	}
	if (j->alias)
		(void)uet_ses_ri_alias_del(c->mr, j->ri_rma, pid, rma);
	(void)uet_ses_ri_del(c->mr, j->ri_msg);
	(void)uet_ses_mr_auth_del(c->mr, job, pid);
	j->ref = 0;
	if (j->alias)
		(void)ses_ulp_job_del(c, job, c->pid);
	return 0;
}

/* ------------------------------------------------------------------ */
/* processes (EP_ADD / EP_DEL)                                         */
/* ------------------------------------------------------------------ */

static int
bind_find(const struct ses_ulp_ctx *c, const struct uet_chan *chan)
{
	for (unsigned int i = 0; i < c->nb_binds; i++)
		if (c->binds[i].chan == chan)
			return (int)i;
	return -1;
}

/* The process slot of PIDonFEP @p pid (0: the context's own), or -1. */
static inline int
ep_find(const struct ses_ulp_ctx *c, uint16_t pid)
{
	if (pid == c->pid)
		return 0;
	for (unsigned int i = 1; i < SES_ULP_EPS_MAX; i++)
		if (c->eps[i].ref != 0 && c->eps[i].pid == pid)
			return (int)i;
	return -1;
}

/* A free process slot whose receive context holds nothing of a previous
 * process: never used, or freed with no target record open since. */
static int
ep_slot_free(struct ses_ulp_ctx *c)
{
	struct uet_ses_pool_info pi;

	uet_ses_pool_info_get(c->ses, &pi);
	for (unsigned int i = 1; i < SES_ULP_EPS_MAX; i++)
		if (c->eps[i].ref == 0 && (!c->eps[i].dirty || pi.tgt_used == 0))
			return (int)i;
	return -1;
}

bool
ses_ulp_ep_room(struct ses_ulp_ctx *c, const struct uet_ses_ulp_ctl *q)
{
	if (q->chan == NULL || bind_find(c, q->chan) >= 0)
		return true; /* refused for another reason */
	if (c->nb_binds == RTE_DIM(c->binds))
		return false;
	return ep_find(c, q->pid) >= 0 || ep_slot_free(c) >= 0;
}

bool
ses_ulp_job_room(struct ses_ulp_ctx *c, const struct uet_ses_ulp_ctl *q)
{
	uint16_t pid = q->has_pid ? q->pid : c->pid;
	/* another process's alias needs the context's own table too */
	uint32_t need = 1, nfree = 0;

	if (ses_ulp_job_find(c, q->job, pid) != NULL)
		return true;
	if (pid != c->pid && !q->own_rma &&
	    ses_ulp_job_find(c, q->job, c->pid) == NULL)
		need = 2;
	for (uint32_t i = 0; i < c->max_jobs && nfree < need; i++)
		nfree += c->jobs[i].ref == 0;
	return nfree >= need;
}

int
ses_ulp_chan_pid(const struct ses_ulp_ctx *c, const struct uet_chan *chan)
{
	int b = bind_find(c, chan);

	return b < 0 ? -1 : c->eps[c->binds[b].ep].pid;
}

/* Local delivery steers frames that open a PDC to a process to the
 * context serving it (docs/ENGINE.md "Frames to the engine's own
 * addresses"). */
void
ses_ulp_pid_local(struct ses_ulp_ctx *c, uint16_t pid, bool on)
{
	struct uet_engine_lcore *lc = uet_ulp_ctx_lcore(c->uctx);

	(void)uet_engine_pid_context_set(uet_engine_lcore_engine(lc), pid,
					 on ? uet_engine_lcore_index(lc) :
					      UINT32_MAX);
}

int
ses_ulp_ep_add(struct ses_ulp_ctx *c, const struct uet_ses_ulp_ctl *q)
{
	int i = 0, rc;

	if (q->chan == NULL || q->pid > 0xFFF)
		return -EINVAL;
	if (bind_find(c, q->chan) >= 0)
		return -EEXIST;
	if (c->nb_binds == RTE_DIM(c->binds))
		return -ENOSPC;
	if (q->pid == c->pid && q->profile != 0)
		c->eps[0].profile = q->profile;
	if (q->pid != c->pid) {
		i = ep_find(c, q->pid);
		if (i < 0) {
			i = ep_slot_free(c);
			if (i < 0)
				return -ENOSPC;
			rc = uet_ses_mr_pid_add(c->mr, q->pid);
			if (rc < 0)
				return rc;
			c->eps[i].pid = q->pid;
			c->eps[i].initiator = q->initiator;
			c->eps[i].profile = q->profile != 0 ? q->profile :
					    UET_PROFILE_HPC;
			c->eps[i].dirty = false;
			c->eps[i].ops_max = q->ops_max;
			ses_ulp_pid_local(c, q->pid, true);
		}
		c->eps[i].ref++;
	}
	c->binds[c->nb_binds].chan = q->chan;
	c->binds[c->nb_binds].ep = (uint32_t)i;
	c->binds[c->nb_binds].remote = q->remote_events;
	c->binds[c->nb_binds].owner = q->owner_id;
	c->nb_binds++;
	return 0;
}

/* Drop the unexpected messages a receive context still holds (their
 * senders are released, FI_DISCARD semantics): wildcard PEEK | DISCARD
 * posts, untagged and tagged, until it holds none (bounded by its pool;
 * a message reserved by a PEEK | CLAIM was dropped by chan_gone). */
static void
ep_drain(struct ses_ulp_ctx *c, uint16_t pid, uint64_t now)
{
	struct uet_ses_match *m = ses_ulp_match_of(c, pid);
	struct uet_ses_match_pool_info pi;
	struct uet_ses_recv r;

	if (m == NULL)
		return;
	uet_ses_match_pool_info(m, &pi);
	for (uint32_t k = 0; k < pi.unexp_total &&
			     pi.unexp_free < pi.unexp_total; k++) {
		for (uint8_t op = UET_CHAN_RQ_RECV; op <= UET_CHAN_RQ_TRECV;
		     op++) {
			memset(&r, 0, sizeof(r));
			r.op = op;
			r.flags = UET_SES_RECV_F_PEEK | UET_SES_RECV_F_DISCARD;
			r.context = SES_ULP_DRAIN_CTX;
			r.ignore = UINT64_MAX;
			r.pid_on_fep = pid;
			(void)uet_ses_recv_post(c->ses, &r, now);
		}
		(void)ses_ulp_completions(c, now); /* their completions are dropped */
		uet_ses_match_pool_info(m, &pi);
	}
}

int
ses_ulp_ep_del(struct ses_ulp_ctx *c, struct uet_chan *chan, uint64_t now)
{
	int b = bind_find(c, chan);
	struct ses_ulp_ep *ep;

	if (b < 0)
		return -ENOENT;
	ep = &c->eps[c->binds[b].ep];
	c->binds[b] = c->binds[--c->nb_binds];
	if (ep == &c->eps[0])
		return 0;
	if (ep->ref > 1) {
		ep->ref--;
		return 0;
	}
	ep_drain(c, ep->pid, now); /* while its receive context resolves */
	ep->ref = 0;
	ep->dirty = true;
	ses_ulp_pid_local(c, ep->pid, false);
	return uet_ses_mr_pid_del(c->mr, ep->pid);
}

/* ------------------------------------------------------------------ */
/* peers (PEER_ADD / PEER_DEL)                                         */
/* ------------------------------------------------------------------ */

int
ses_ulp_peer_add(struct ses_ulp_ctx *c, struct uet_ses_ulp_ctl *q)
{
	struct ses_ulp_peer *p;
	uint32_t slot = c->peer_free;

	if (q->peer.pid_on_fep > 0xFFF || q->peer.start_ri > 0xFFF)
		return -EINVAL;
	if (slot == SES_ULP_NONE)
		return -ENOSPC;
	p = &c->peers[slot];
	c->peer_free = p->next;
	p->v = q->peer;
	p->owner = q->owner_id;
	p->used = true;
	/* single writer, read with relaxed loads (like SES_ULP_INC) */
	__atomic_store_n(&c->st.peers, c->st.peers + 1, __ATOMIC_RELAXED);
	q->handle = ((uint64_t)p->gen << 32) | (slot + 1);
	return 0;
}

int
ses_ulp_peer_del(struct ses_ulp_ctx *c, uint64_t handle, uint32_t owner)
{
	uint32_t slot = (uint32_t)handle - 1;
	struct ses_ulp_peer *p;

	if (ses_ulp_peer_of(c, handle, owner) == NULL)
		return -ENOENT;
	p = &c->peers[slot];
	p->used = false;
	p->gen++;
	p->next = c->peer_free;
	c->peer_free = slot;
	__atomic_store_n(&c->st.peers, c->st.peers - 1, __ATOMIC_RELAXED);
	return 0;
}

int
ses_ulp_mr_reg(struct ses_ulp_ctx *c, struct uet_ses_ulp_ctl *q)
{
	struct ses_ulp_job *j = ses_ulp_job_find(c, q->job,
					 q->has_pid ? q->pid : c->pid);
	int rc;
	struct uet_ses_mr_attr a = {
		.base = q->base, .length = q->len, .access = q->access,
		.idempotent = q->idempotent, .virt_addr = true,
		.owner = q->owner,
	};
	uint8_t probe;

	if (j == NULL)
		return -ENOENT;
	if (q->owner < 0)
		return -EINVAL;
	/* another process's memory: reachable now, or refused now */
	if (q->owner != 0 && q->len != 0) {
		rc = c->mem_ops->read(c->mem_arg, q->owner, &probe, q->base,
				      1);
		if (rc != 0)
			return rc;
	}
	a.ri = j->ri_rma;
	rc = uet_ses_mr_reg(c->mr, &a, &q->key);
	/* disabled from the start (FI_MR_ENDPOINT until fi_mr_enable) */
	if (rc == 0 && q->disabled)
		(void)uet_ses_mr_enable(c->mr, q->key, false);
	return rc;
}

/* The SES's rendezvous table of @p job (uet_ses_config.rdv_ri_of). */
int
ses_ulp_rdv_ri_of(void *arg, uint32_t job, uint16_t pid)
{
	struct ses_ulp_ctx *c = arg;
	const struct ses_ulp_job *j = ses_ulp_job_find(c, job, pid);

	return j != NULL ? j->ri_rdv : -1;
}

/* The profile of process @p pid (uet_ses_config.profile_of): its
 * domain's (EP_ADD), HPC for the unknown. */
enum uet_wire_profile
ses_ulp_profile_of(void *arg, uint16_t pid)
{
	const struct ses_ulp_ctx *c = arg;
	int i = ep_find(c, pid);

	return i < 0 ? UET_PROFILE_HPC : c->eps[i].profile;
}

/* The SES's receive context of process @p pid (uet_ses_config.match_of). */
struct uet_ses_match *
ses_ulp_match_of(void *arg, uint16_t pid)
{
	const struct ses_ulp_ctx *c = arg;
	int i = ep_find(c, pid);

	return i < 0 ? NULL : c->eps[i].match;
}
