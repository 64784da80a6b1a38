/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fabric: the process's engine, one for every fi_fabric() of the process
 * (each gets a handle on it; the first creates it, the last close stops
 * it), run by one of two backends chosen once (uet_ofi_backend): an
 * engine of this process (uet_local.c) or a uet-engine service it
 * attaches to (uet_service.c). The uet_ofi_fabric_* calls below dispatch
 * to it; the fabric's fid, fi_trywait and progress from application
 * threads are here.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <uet/uet_engine.h>

#include "uet_ofi_private.h"

static atomic_uint fabric_seq;

void
uet_ofi_fabric_progress(struct uet_ofi_fabric *fab)
{
	if (fab->engine == NULL) {
		/* attached to a service: its lcores progress */
		if (fab->svc != NULL)
			uet_ofi_service_progress(fab);
		return;
	}
	/* AUTO: run the contexts whose lcore sleeps, on this thread; those
	 * whose lcore is awake are left to it */
	if (!fab->inline_progress) {
		(void)uet_engine_progress(fab->engine, 4);
		return;
	}
	/* one thread runs the engine loop at a time; others skip */
	if (pthread_mutex_trylock(&fab->progress_lock) != 0)
		return;
	(void)uet_engine_poll(fab->engine, 4);
	pthread_mutex_unlock(&fab->progress_lock);
}

/* How long a post waits for the port gate to let its frames out (it is
 * back within a scheduler slice; seconds only on a host that starves the
 * EAL interrupt thread, and then the next call sends them). */
#define POST_FLUSH_NS (1000ull * 1000 * 1000)

void
uet_ofi_fabric_progress_post(struct uet_ofi_fabric *fab)
{
	if (fab->engine == NULL || !fab->inline_progress) {
		uet_ofi_fabric_progress(fab);
		return;
	}
	/* another thread runs the loop: it sends the frames */
	if (pthread_mutex_trylock(&fab->progress_lock) != 0)
		return;
	if (uet_engine_flush(fab->engine, 4, POST_FLUSH_NS) == -ETIMEDOUT)
		FI_WARN(&uet_prov, FI_LOG_EP_DATA, "frames of a post still "
			"wait for the net_memif port gate after %llu ms: sent "
			"at the next call into the provider\n",
			POST_FLUSH_NS / 1000000);
	pthread_mutex_unlock(&fab->progress_lock);
}

/* The process's engine, shared by every fi_fabric() (uet_ofi_private.h). */
static struct uet_ofi_fabric *proc_fab;
static pthread_mutex_t proc_fab_lock = PTHREAD_MUTEX_INITIALIZER;

static void
fabric_free(struct uet_ofi_fabric *fab)
{
	pthread_mutex_destroy(&fab->ctl_lock);
	pthread_mutex_destroy(&fab->progress_lock);
	free(fab);
}

/* A handle goes; the engine with the last one. */
static int
fabric_close(struct fid *fid)
{
	struct uet_ofi_fabric_hdl *h =
		container_of(fid, struct uet_ofi_fabric_hdl, fabric_fid.fid);
	struct uet_ofi_fabric *fab = h->fab;

	if (atomic_load(&h->ref) > 0)
		return -FI_EBUSY;
	pthread_mutex_lock(&proc_fab_lock);
	if (--fab->opens == 0) {
		proc_fab = NULL;
		fab->be->stop(fab);
		fabric_free(fab);
	}
	pthread_mutex_unlock(&proc_fab_lock);
	free(h);
	return 0;
}

static struct fi_ops fabric_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = fabric_close,
	.bind = uet_ofi_fid_bind_enosys,
	.control = uet_ofi_fid_control_enosys,
	.ops_open = uet_ofi_fid_ops_open_enosys,
	.tostr = uet_ofi_fid_tostr_enosys,
	.ops_set = uet_ofi_fid_ops_set_enosys,
};

static int
fabric_pep(struct fid_fabric *fabric, struct fi_info *info,
	   struct fid_pep **pep, void *context)
{
	(void)fabric; (void)info; (void)pep; (void)context;
	return -FI_ENOSYS; /* connectionless provider: no passive endpoints */
}

/* fi_trywait(3): -FI_EAGAIN while a CQ or EQ holds something (counters
 * are not judged here: their threshold is the waiter's) */
static int
fabric_trywait(struct fid_fabric *fabric, struct fid **fids, int count)
{
	uint64_t seen = 0;

	(void)fabric;
	for (int i = 0; i < count; i++) {
		struct uet_ofi_waitable *w = uet_ofi_waitable_of(fids[i]);

		if (w == NULL)
			return -FI_EINVAL;
		if (w->ops->pending != NULL &&
		    uet_ofi_waitable_ready(w, &seen, false))
			return -FI_EAGAIN;
	}
	return 0;
}

static int
fabric_domain2(struct fid_fabric *fabric, struct fi_info *info,
	       struct fid_domain **dom, uint64_t flags, void *context)
{
	if (flags != 0)
		return -FI_EINVAL;
	return uet_ofi_domain_open(fabric, info, dom, context);
}

static struct fi_ops_fabric fabric_ops = {
	.size = sizeof(struct fi_ops_fabric),
	.domain = uet_ofi_domain_open,
	.passive_ep = fabric_pep,
	.eq_open = uet_ofi_eq_open,
	.wait_open = uet_ofi_wait_open,
	.trywait = fabric_trywait,
	.domain2 = fabric_domain2,
};

/* The engine of the process: created on first use (locked by the
 * caller). */
static int
fabric_get(struct uet_ofi_fabric **out)
{
	struct uet_ofi_fabric *fab = proc_fab;
	int rc;

	if (fab == NULL) {
		fab = calloc(1, sizeof(*fab));
		if (fab == NULL)
			return -FI_ENOMEM;
		pthread_mutex_init(&fab->ctl_lock, NULL);
		pthread_mutex_init(&fab->progress_lock, NULL);
		fab->id = atomic_fetch_add(&fabric_seq, 1);
		/* the service when one is configured, else an engine of our
		 * own */
		fab->be = uet_ofi_service_configured() ?
				  &uet_ofi_backend_service :
				  &uet_ofi_backend_local;
		rc = fab->be->start(fab);
		if (rc < 0) {
			fabric_free(fab);
			return rc;
		}
		proc_fab = fab;
	}
	fab->opens++;
	*out = fab;
	return 0;
}

int
uet_ofi_fabric_open(struct fi_fabric_attr *attr, struct fid_fabric **fabric,
		    void *context)
{
	struct uet_ofi_fabric_hdl *h;
	int rc;

	if (attr != NULL && attr->name != NULL &&
	    strcmp(attr->name, UET_OFI_FABRIC_NAME) != 0)
		return -FI_ENODATA;
	h = calloc(1, sizeof(*h));
	if (h == NULL)
		return -FI_ENOMEM;
	pthread_mutex_lock(&proc_fab_lock);
	rc = fabric_get(&h->fab);
	pthread_mutex_unlock(&proc_fab_lock);
	if (rc < 0) {
		free(h);
		return rc;
	}
	h->fabric_fid.fid.fclass = FI_CLASS_FABRIC;
	h->fabric_fid.fid.context = context;
	h->fabric_fid.fid.ops = &fabric_fi_ops;
	h->fabric_fid.ops = &fabric_ops;
	h->fabric_fid.api_version = attr != NULL ? attr->api_version :
						UET_OFI_API_VERSION;
	*fabric = &h->fabric_fid;
	return 0;
}

/* ---- what the rest of the provider calls: the fabric's backend ---- */

unsigned int
uet_ofi_fabric_ctx_pick(struct uet_ofi_fabric *fab)
{
	return fab->be->ctx_pick(fab);
}

int
uet_ofi_fabric_identity(struct uet_ofi_fabric *fab, unsigned int ctx,
			uint16_t *pid, uint32_t *initiator)
{
	return fab->be->identity(fab, ctx, pid, initiator);
}

int
uet_ofi_fabric_pid_get(struct uet_ofi_fabric *fab, unsigned int ctx,
		       const void *owner, uint16_t want, uint16_t *pid,
		       uint32_t *initiator)
{
	return fab->be->pid_get(fab, ctx, owner, want, pid, initiator);
}

void
uet_ofi_fabric_pid_put(struct uet_ofi_fabric *fab, unsigned int ctx,
		       const void *owner, uint16_t pid)
{
	fab->be->pid_put(fab, ctx, owner, pid);
}

int
uet_ofi_fabric_pid_block(struct uet_ofi_fabric *fab, uint16_t want,
			 unsigned int n, uint16_t *pid, uint32_t *initiator)
{
	return fab->be->pid_block(fab, want, n, pid, initiator);
}

void
uet_ofi_fabric_pid_block_put(struct uet_ofi_fabric *fab, uint16_t pid,
			     unsigned int n)
{
	fab->be->pid_block_put(fab, pid, n);
}

int
uet_ofi_fabric_ctl(struct uet_ofi_fabric *fab, unsigned int ctx,
		   struct uet_ses_ulp_ctl *req)
{
	return fab->be->ctl(fab, ctx, req);
}

int
uet_ofi_fabric_chan_open(struct uet_ofi_fabric *fab, struct uet_ofi_ep *ep)
{
	struct uet_chan *c = NULL;
	int rc = fab->be->chan_open(fab, ep, &c);

	if (rc == 0) {
		ep->chan = c;
		c->user = (uint64_t)(uintptr_t)ep;
	}
	return rc;
}

void
uet_ofi_fabric_chan_detach(struct uet_ofi_fabric *fab, struct uet_ofi_ep *ep)
{
	fab->be->chan_detach(fab, ep);
}

void
uet_ofi_fabric_chan_free(struct uet_ofi_fabric *fab, struct uet_ofi_ep *ep)
{
	fab->be->chan_free(fab, ep);
	ep->chan = NULL;
}
