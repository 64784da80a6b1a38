/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Endpoints: FI_EP_RDM and FI_EP_DGRAM active endpoints, and scalable
 * endpoints whose tx/rx contexts are endpoints of their own (each with a
 * channel). fi_enable() creates the endpoint's channel (SQ, RQ, CQ rings,
 * docs/CHANNELS.md) and its pool of request slots, and attaches the
 * channel to an engine context. Every SQE/RQE context is a request slot;
 * uet_ofi_ep_progress() turns CQEs back into CQ entries and counter
 * events and recycles the slots.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_errno.h>

#include <uet/uet_engine.h>

#include "uet_ofi_priv.h"

#include <rdma/fi_collective.h>

#define CQ_BURST 32

/* ---- progress: CQEs -> CQ entries and counters ---- */

static uint64_t
cqe_flags(const struct uet_ofi_req *r, const struct uet_chan_cqe *c)
{
	uint64_t f = r->cq_flags;

	if (c->flags & UET_CHAN_CQ_IMM)
		f |= FI_REMOTE_CQ_DATA;
	if (c->flags & UET_CHAN_CQ_MULTI_RECV_DONE)
		f |= FI_MULTI_RECV;
	return f;
}

/*
 * A CQE without a request (context 0): a remote access served on this
 * endpoint's memory (UET_CHAN_CQ_REMOTE: WRITE and atomics count on the
 * FI_REMOTE_WRITE counter, READ and fetching atomics on FI_REMOTE_READ),
 * or remote CQ data of a WRITE that targeted this endpoint
 * (FI_REMOTE_WRITE | FI_REMOTE_CQ_DATA entry).
 */
/* Failed operations logged per endpoint at WARN, the rest counted only. */
#define EP_FAILURES_LOGGED 8

/*
 * A failed operation, at FI_LOG_LEVEL=warn: middleware often reports only
 * its own code (Open MPI: MPI_ERR_INTERN), so the provider says what
 * failed and why. Cancelled and truncated receives are the application's
 * business and not logged.
 */
static void
ep_log_failure(struct uet_ofi_ep *ep, const struct uet_ofi_cq_entry *e)
{
	char why[192];
	const char *op = (e->flags & FI_ATOMIC) ? "atomic" :
			 (e->flags & FI_READ) ? "RMA read" :
			 (e->flags & FI_WRITE) ? "RMA write" :
			 (e->flags & FI_RECV) ? "receive" : "send";

	if (e->err == FI_ECANCELED || e->err == FI_ETRUNC ||
	    ep->failures_logged >= EP_FAILURES_LOGGED)
		return;
	ep->failures_logged++;
	uet_ofi_prov_strerror(e->prov_errno, why, sizeof(why));
	FI_WARN(&uet_prov, FI_LOG_EP_DATA, "%s failed: %s (%s)%s\n",
		op, fi_strerror(e->err), why,
		ep->failures_logged == EP_FAILURES_LOGGED ?
			"; further failures of this endpoint are not logged" :
			"");
}

static bool
deliver_remote(struct uet_ofi_ep *ep, const struct uet_chan_cqe *c)
{
	struct uet_ofi_cntr *cntr;
	struct uet_ofi_cq_entry e;

	if (c->flags & UET_CHAN_CQ_REMOTE) {
		cntr = c->op == UET_CHAN_OP_READ ||
		       c->op == UET_CHAN_OP_FETCH_ATOMIC ||
		       c->op == UET_CHAN_OP_CSWAP ?
		       ep->cntr[UET_OFI_CNTR_REM_READ] :
		       ep->cntr[UET_OFI_CNTR_REM_WRITE];
		if (cntr != NULL)
			uet_ofi_cntr_inc(cntr);
		return true;
	}
	if (ep->rx_cq == NULL || !(c->flags & UET_CHAN_CQ_IMM))
		return true;
	if (uet_ofi_cq_reserve_unsolicited(ep->rx_cq) < 0)
		return false;
	memset(&e, 0, sizeof(e));
	e.flags = FI_REMOTE_WRITE | FI_RMA | FI_REMOTE_CQ_DATA;
	e.len = (size_t)c->len;
	e.data = c->data;
	e.src = FI_ADDR_NOTAVAIL;
	if ((c->flags & UET_CHAN_CQ_SRC) && ep->av != NULL)
		e.src = uet_ofi_av_reverse(ep->av, (uint32_t)c->src);
	uet_ofi_cq_push(ep->rx_cq, &e);
	return true;
}

/* Deliver one CQE; false when its CQ has no slot (retry later). */
static bool
deliver(struct uet_ofi_ep *ep, const struct uet_chan_cqe *c)
{
	struct uet_ofi_req *r;
	struct uet_ofi_cq *cq;
	struct uet_ofi_cntr *cntr;
	bool final;
	bool entry;
	struct uet_ofi_cq_entry e;

	if (c->context == 0)
		return deliver_remote(ep, c);
	r = uet_ofi_req_of(ep, c->context);
	if (unlikely(r == NULL || !r->busy)) {
		/* the engine returns contexts it was given: never here */
		FI_WARN(&uet_prov, FI_LOG_EP_DATA,
			"completion of unknown request %#llx dropped\n",
			(unsigned long long)c->context);
		return true;
	}
	cq = r->rx ? ep->rx_cq : ep->tx_cq;
	cntr = ep->cntr[r->cntr];
	final = !(r->rx && r->cq_reserved == 2) ||
		(c->flags & UET_CHAN_CQ_MULTI_RECV_DONE) || c->status != 0;
	/* an error completes in error even without FI_COMPLETION
	 * (selective completion), except a fi_inject*: libfabric gives
	 * those no completion, and an error entry would have no context
	 * (MPI layers dereference it); the counter still sees the error */
	entry = (c->status != 0 && !r->no_entry) || r->want_cq;
	if (c->status != 0 && r->no_entry)
		FI_WARN(&uet_prov, FI_LOG_EP_DATA, "an injected operation "
			"failed (%s): no completion for fi_inject*\n",
			strerror(c->status < 0 ? -c->status : c->status));
	/* FI_PEEK | FI_CLAIM found a message: the request stays for the
	 * FI_CLAIM that takes it (PROVIDER.md "Receive flags") */
	if (r->peek_claim && c->status == 0) {
		final = true;
		r->claimed = 1;
		((struct fi_context *)r->user_ctx)->internal[0] = r;
	}

	/* a multi-receive buffer completes many times: each extra entry
	 * needs a slot of its own */
	if (cq != NULL && entry && !final &&
	    uet_ofi_cq_reserve_unsolicited(cq) < 0)
		return false;
	memset(&e, 0, sizeof(e));
	e.op_context = r->user_ctx;
	e.flags = cqe_flags(r, c);
	e.len = (size_t)c->len;
	e.buf = r->rx ? (void *)((uintptr_t)r->buf) : NULL;
	e.data = c->data;
	e.tag = c->tag;
	if (r->rx && !(c->flags & UET_CHAN_CQ_TAGGED)) {
		/* untagged: the engine gives the message's offset in the
		 * buffer there; FI_MULTI_RECV entries point at it */
		if (r->cq_reserved == 2)
			e.buf = (void *)((uintptr_t)r->buf + c->tag);
		e.tag = 0;
	}
	e.src = FI_ADDR_NOTAVAIL;
	if ((c->flags & UET_CHAN_CQ_SRC) && ep->av != NULL)
		e.src = uet_ofi_av_reverse(ep->av, (uint32_t)c->src);
	/* received bytes reach the application's entries before its CQ
	 * entry is visible */
	if (unlikely(r->win_len != 0))
		uet_ofi_service_complete(ep, r, c, final && !r->claimed);
	if (final && !r->claimed) {
		uet_ofi_req_amo_done(r, c->status == 0);
		/* a peek or a discard lands nothing to scatter */
		uet_ofi_req_bounce_done(ep, r, !(r->rx && r->no_data) &&
					(c->status == 0 ||
					 (c->flags & UET_CHAN_CQ_TRUNC)) ?
					c->len : 0);
	}
	if (c->status != 0) {
		e.err = c->status < 0 ? -c->status : c->status;
		/* a UET return code from the target, or (none: NULL or
		 * OK, e.g. a PDS timeout or reset) the local errno,
		 * negative, so that fi_cq_strerror can tell which */
		e.prov_errno = c->prov_errno > UET_RC_OK ?
			       (int)c->prov_errno : -(int)e.err;
		if (c->flags & UET_CHAN_CQ_TRUNC) {
			e.err = FI_ETRUNC;
			e.olen = (size_t)c->olen;
		}
		ep_log_failure(ep, &e);
	}
	if (cq != NULL) {
		if (entry)
			uet_ofi_cq_push(cq, &e);
		else if (final)
			uet_ofi_cq_unreserve(cq);
	}
	if (cntr != NULL) {
		if (c->status != 0)
			uet_ofi_cntr_inc_err(cntr);
		else
			uet_ofi_cntr_inc(cntr);
	}
	if (final && !r->claimed)
		uet_ofi_req_put(ep, r);
	return true;
}

void
uet_ofi_ep_progress(struct uet_ofi_ep *ep)
{
	struct uet_chan_cqe c[CQ_BURST];
	unsigned int n, i;

	if (!ep->enabled || ep->chan == NULL)
		return;
	uet_ofi_lock(&ep->lock);
	for (;;) {
		/* an entry that found its CQ full is retried first */
		n = uet_chan_cq_poll(ep->chan, c, CQ_BURST);
		for (i = 0; i < n; i++) {
			if (!deliver(ep, &c[i])) {
				/* completions are never lost: a full
				 * multi-receive CQ is a provider invariant
				 * breach, counted and dropped */
				struct uet_ofi_cq *cq = ep->rx_cq;

				if (cq != NULL)
					cq->overruns++;
			}
		}
		if (n < CQ_BURST)
			break;
	}
	/* attached to a service that went away: what it held fails */
	if (unlikely(ep->svc != NULL) && uet_ofi_service_lost(ep))
		uet_ofi_service_fail(ep, deliver);
	uet_ofi_unlock(&ep->lock);
	/* counters may have moved: triggered operations (fi_trigger(3)) */
	if (unlikely(atomic_load_explicit(&ep->dom->trig_n,
					  memory_order_relaxed) != 0))
		uet_ofi_trig_run(ep->dom);
}

/* ---- bind / enable / close ---- */

static int
bind_cq(struct uet_ofi_ep *ep, struct uet_ofi_cq *cq, uint64_t flags)
{
	int rc;

	if (flags & ~(uint64_t)(FI_TRANSMIT | FI_RECV | FI_SELECTIVE_COMPLETION))
		return -FI_EBADFLAGS;
	if (!(flags & (FI_TRANSMIT | FI_RECV)))
		return -FI_EINVAL;
	if (((flags & FI_TRANSMIT) && ep->tx_cq != NULL) ||
	    ((flags & FI_RECV) && ep->rx_cq != NULL))
		return -FI_EINVAL;
	if (((flags & FI_TRANSMIT) && ep->rx_only) ||
	    ((flags & FI_RECV) && ep->tx_only))
		return -FI_EINVAL;
	rc = uet_ofi_waitable_ep_add(&cq->w, ep);
	if (rc < 0)
		return rc;
	if (flags & FI_TRANSMIT) {
		ep->tx_cq = cq;
		ep->tx_selective = (flags & FI_SELECTIVE_COMPLETION) != 0;
	}
	if (flags & FI_RECV) {
		ep->rx_cq = cq;
		ep->rx_selective = (flags & FI_SELECTIVE_COMPLETION) != 0;
	}
	return 0;
}

static int
bind_cntr(struct uet_ofi_ep *ep, struct uet_ofi_cntr *c, uint64_t flags)
{
	static const uint64_t bit[UET_OFI_CNTR_KINDS] = {
		FI_SEND, FI_RECV, FI_READ, FI_WRITE, FI_REMOTE_READ,
		FI_REMOTE_WRITE,
	};
	int rc;

	if (flags == 0 || (flags & ~(uint64_t)(FI_SEND | FI_RECV | FI_READ |
					       FI_WRITE | FI_REMOTE_READ |
					       FI_REMOTE_WRITE)))
		return -FI_EBADFLAGS;
	for (int k = 0; k < UET_OFI_CNTR_KINDS; k++)
		if ((flags & bit[k]) && ep->cntr[k] != NULL)
			return -FI_EINVAL;
	rc = uet_ofi_waitable_ep_add(&c->w, ep);
	if (rc < 0)
		return rc;
	for (int k = 0; k < UET_OFI_CNTR_KINDS; k++)
		if (flags & bit[k])
			ep->cntr[k] = c;
	return 0;
}

static int
ep_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
	struct uet_ofi_ep *ep = container_of(fid, struct uet_ofi_ep, ep_fid.fid);

	if (bfid == NULL)
		return -FI_EINVAL;
	if (ep->enabled)
		return -FI_EINVAL; /* bindings are fixed once enabled */
	switch (bfid->fclass) {
	case FI_CLASS_CQ: {
		struct uet_ofi_cq *cq =
			container_of(bfid, struct uet_ofi_cq, cq_fid.fid);

		if (ep->is_sep || cq->dom != ep->dom)
			return -FI_EINVAL;
		return bind_cq(ep, cq, flags);
	}
	case FI_CLASS_CNTR: {
		struct uet_ofi_cntr *c =
			container_of(bfid, struct uet_ofi_cntr, cntr_fid.fid);

		if (ep->is_sep || c->dom != ep->dom)
			return -FI_EINVAL;
		return bind_cntr(ep, c, flags);
	}
	case FI_CLASS_AV: {
		struct uet_ofi_av *av =
			container_of(bfid, struct uet_ofi_av, av_fid.fid);

		if (ep->sep != NULL || av->dom != ep->dom || ep->av != NULL)
			return -FI_EINVAL;
		ep->av = av;
		atomic_fetch_add(&av->ref, 1);
		return 0;
	}
	case FI_CLASS_EQ: {
		struct uet_ofi_eq *eq =
			container_of(bfid, struct uet_ofi_eq, eq_fid.fid);

		if (ep->eq != NULL)
			return -FI_EINVAL;
		ep->eq = eq;
		atomic_fetch_add(&eq->w.ref, 1);
		return 0;
	}
	case FI_CLASS_STX_CTX:
	case FI_CLASS_SRX_CTX:
		return -FI_ENOSYS;
	default:
		return -FI_EINVAL;
	}
}

static void
reqs_free(struct uet_ofi_ep *ep)
{
	/* the channel is closed: the service no longer uses the chunks of
	 * what was still in flight */
	for (uint32_t i = 0; ep->svc != NULL && ep->reqs != NULL &&
			     i < ep->nb_reqs; i++)
		uet_ofi_service_release(ep, &ep->reqs[i]);
	free(ep->reqs);
	ep->reqs = NULL;
	free(ep->bounce_mem);
	ep->bounce_mem = NULL;
	ep->bounce_free = 0;
}

static int
reqs_create(struct uet_ofi_ep *ep)
{
	size_t tx = ep->rx_only ? 0 : ep->tx_size;
	size_t rx = ep->tx_only ? 0 : ep->rx_size;
	uint32_t i;

	ep->nb_reqs = (uint32_t)(tx + rx);
	ep->reqs = calloc(ep->nb_reqs ? ep->nb_reqs : 1, sizeof(*ep->reqs));
	if (ep->reqs == NULL)
		return -FI_ENOMEM;
	/* multi-entry iovs go through these (uet_ofi_req_buffers) */
	ep->bounce_size = uet_ofi_params()->iov_bounce_size;
	ep->bounce_mem = malloc(UET_OFI_BOUNCE_COUNT * ep->bounce_size);
	if (ep->bounce_mem == NULL && ep->bounce_size != 0) {
		reqs_free(ep);
		return -FI_ENOMEM;
	}
	ep->bounce_free = (1u << UET_OFI_BOUNCE_COUNT) - 1;
	ep->tx_free = ep->rx_free = 0;
	for (i = (uint32_t)tx; i > 0; i--) {
		ep->reqs[i - 1].next_free = ep->tx_free;
		ep->tx_free = i;
	}
	for (i = ep->nb_reqs; i > tx; i--) {
		ep->reqs[i - 1].rx = 1;
		ep->reqs[i - 1].next_free = ep->rx_free;
		ep->rx_free = i;
	}
	return 0;
}

struct uet_ofi_req *
uet_ofi_req_get(struct uet_ofi_ep *ep, bool rx)
{
	uint32_t *head = rx ? &ep->rx_free : &ep->tx_free;
	struct uet_ofi_req *r;

	if (*head == 0)
		return NULL;
	r = &ep->reqs[*head - 1];
	*head = r->next_free;
	r->busy = 1;
	if (rx)
		ep->rx_inflight++;
	else
		ep->tx_inflight++;
	return r;
}

void
uet_ofi_req_put(struct uet_ofi_ep *ep, struct uet_ofi_req *r)
{
	uint32_t idx = (uint32_t)(r - ep->reqs) + 1;

	uet_ofi_req_bounce_done(ep, r, 0);
	r->nb_res = 0;
	if (unlikely(r->win_len != 0))
		uet_ofi_service_release(ep, r);
	r->busy = 0;
	if (r->rx) {
		r->next_free = ep->rx_free;
		ep->rx_free = idx;
		ep->rx_inflight--;
	} else {
		r->next_free = ep->tx_free;
		ep->tx_free = idx;
		ep->tx_inflight--;
	}
}

static void
ep_job_del(struct uet_ofi_ep *ep)
{
	struct uet_ses_ulp_ctl q = {
		.op = UET_SES_ULP_JOB_DEL, .job = ep->job,
		.has_pid = true, .pid = ep->pid,
	};

	if (!ep->job_added)
		return;
	(void)uet_ofi_fabric_ctl(ep->dom->fab, ep->dom->ctx, &q);
	ep->job_added = false;
}

static int
ep_enable(struct uet_ofi_ep *ep)
{
	struct uet_ofi_fabric *fab = ep->dom->fab;
	int rc;

	if (ep->enabled)
		return 0;
	if (ep->type == FI_EP_RDM && ep->sep == NULL && ep->av == NULL)
		return -FI_ENOAV;
	if (ep->sep != NULL && ep->sep->av == NULL)
		return -FI_ENOAV;
	rc = reqs_create(ep);
	if (rc < 0)
		return rc;
	/* the endpoint's job for its process: authorisation and the MSG,
	 * RMA and rendezvous tables (a tx context needs the latter too) */
	{
		struct uet_ses_ulp_ctl q = {
			.op = UET_SES_ULP_JOB_ADD, .job = ep->job,
			.has_pid = true, .pid = ep->pid,
		};

		rc = uet_ofi_fabric_ctl(fab, ep->dom->ctx, &q);
		if (rc < 0)
			goto free_reqs;
		ep->job_added = true;
	}
	/* the channel sends and receives as the endpoint's process */
	rc = uet_ofi_fabric_chan_open(fab, ep);
	if (rc < 0)
		goto job_del;
	ep->enabled = true;
	return 0;

job_del:
	ep_job_del(ep);
free_reqs:
	reqs_free(ep);
	return rc;
}

static int
ep_control(struct fid *fid, int command, void *arg)
{
	struct uet_ofi_ep *ep = container_of(fid, struct uet_ofi_ep, ep_fid.fid);

	switch (command) {
	case FI_ENABLE:
		if (ep->is_sep) {
			if (ep->av == NULL)
				return -FI_ENOAV;
			ep->enabled = true;
			return 0;
		}
		return ep_enable(ep);
	case FI_ALIAS:
		return uet_ofi_ep_alias(ep, arg);
	case FI_GETOPSFLAG: {
		uint64_t *f = arg;

		if (f == NULL)
			return -FI_EINVAL;
		if ((*f & FI_TRANSMIT) && (*f & FI_RECV))
			return -FI_EINVAL;
		*f = (*f & FI_RECV) ? ep->rx_op_flags : ep->tx_op_flags;
		return 0;
	}
	case FI_SETOPSFLAG: {
		uint64_t *f = arg;

		if (f == NULL)
			return -FI_EINVAL;
		if (*f & FI_RECV)
			ep->rx_op_flags = *f & ~(uint64_t)FI_RECV;
		else
			ep->tx_op_flags = *f & ~(uint64_t)FI_TRANSMIT;
		return 0;
	}
	default:
		return -FI_ENOSYS;
	}
}

static void
ep_unbind_all(struct uet_ofi_ep *ep)
{
	struct uet_ofi_cntr *seen[UET_OFI_CNTR_KINDS] = { 0 };
	int ns = 0;

	if (ep->tx_cq != NULL)
		uet_ofi_waitable_ep_del(&ep->tx_cq->w, ep);
	if (ep->rx_cq != NULL && ep->rx_cq != ep->tx_cq)
		uet_ofi_waitable_ep_del(&ep->rx_cq->w, ep);
	for (int k = 0; k < UET_OFI_CNTR_KINDS; k++) {
		bool dup = false;

		if (ep->cntr[k] == NULL)
			continue;
		for (int j = 0; j < ns; j++)
			dup |= seen[j] == ep->cntr[k];
		if (!dup) {
			seen[ns++] = ep->cntr[k];
			uet_ofi_waitable_ep_del(&ep->cntr[k]->w, ep);
		}
	}
	if (ep->av != NULL)
		atomic_fetch_sub(&ep->av->ref, 1);
	if (ep->eq != NULL)
		atomic_fetch_sub(&ep->eq->w.ref, 1);
}

static int
ep_close(struct fid *fid)
{
	struct uet_ofi_ep *ep = container_of(fid, struct uet_ofi_ep, ep_fid.fid);

	if (atomic_load(&ep->ref) > 0)
		return -FI_EBUSY;
	uet_ofi_trig_drop_ep(ep);
	/* detach (its receives are withdrawn), then the job and the
	 * process go; the channel last */
	if (ep->chan != NULL)
		uet_ofi_fabric_chan_detach(ep->dom->fab, ep);
	ep_job_del(ep);
	if (ep->chan != NULL)
		uet_ofi_fabric_chan_free(ep->dom->fab, ep);
	if (ep->pid_held && ep->nb_pids > 0)
		uet_ofi_fabric_pid_block_put(ep->dom->fab, ep->pid,
					     ep->nb_pids);
	else if (ep->pid_held)
		uet_ofi_fabric_pid_put(ep->dom->fab, ep->dom->ctx, ep, ep->pid);
	ep_unbind_all(ep);
	if (ep->sep != NULL) {
		struct uet_ofi_ep **slot = ep->tx_only ?
			&ep->sep->tx_ctx[ep->ctx_index] :
			&ep->sep->rx_ctx[ep->ctx_index];

		*slot = NULL;
		atomic_fetch_sub(&ep->sep->ref, 1);
	} else {
		atomic_fetch_sub(&ep->dom->ref, 1);
	}
	free(ep->tx_ctx);
	free(ep->rx_ctx);
	reqs_free(ep);
	fi_freeinfo(ep->info);
	uet_ofi_lock_fini(&ep->lock);
	free(ep);
	return 0;
}

static struct fi_ops ep_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = ep_close,
	.bind = ep_bind,
	.control = ep_control,
	.ops_open = uet_ofi_fid_ops_open_enosys,
	.tostr = uet_ofi_fid_tostr_enosys,
	.ops_set = uet_ofi_fid_ops_set_enosys,
};

/* ---- fi_ops_ep ---- */

static ssize_t
ep_cancel(fid_t fid, void *context)
{
	struct uet_ofi_ep *ep = container_of(fid, struct uet_ofi_ep, ep_fid.fid);
	struct uet_chan_rqe rqe;
	ssize_t rc = -FI_ENOENT;

	if (!ep->enabled || ep->is_sep)
		return -FI_EOPBADSTATE;
	uet_ofi_lock(&ep->lock);
	/* cancel applies to posted receives: find the slot by context */
	for (uint32_t i = 0; i < ep->nb_reqs; i++) {
		struct uet_ofi_req *r = &ep->reqs[i];
		bool is_free = false;

		if (!r->rx || r->user_ctx != context)
			continue;
		for (uint32_t f = ep->rx_free; f != 0;
		     f = ep->reqs[f - 1].next_free)
			if (f - 1 == i) {
				is_free = true;
				break;
			}
		if (is_free)
			continue;
		memset(&rqe, 0, sizeof(rqe));
		rqe.op = UET_CHAN_RQ_CANCEL;
		rqe.context = uet_ofi_req_ctx(ep, r);
		rc = uet_chan_rq_post(ep->chan, &rqe) == 0 ? 0 : -FI_EAGAIN;
		break;
	}
	uet_ofi_unlock(&ep->lock);
	return rc;
}

static int
ep_getopt(fid_t fid, int level, int optname, void *optval, size_t *optlen)
{
	struct uet_ofi_ep *ep = container_of(fid, struct uet_ofi_ep, ep_fid.fid);
	size_t v;

	if (level != FI_OPT_ENDPOINT)
		return -FI_ENOPROTOOPT;
	if (optval == NULL || optlen == NULL || *optlen < sizeof(size_t))
		return -FI_EINVAL;
	switch (optname) {
	case FI_OPT_MIN_MULTI_RECV:
		v = ep->min_multi_recv;
		break;
	case FI_OPT_TX_SIZE:
		v = ep->tx_size;
		break;
	case FI_OPT_RX_SIZE:
		v = ep->rx_size;
		break;
	default:
		return -FI_ENOPROTOOPT;
	}
	memcpy(optval, &v, sizeof(v));
	*optlen = sizeof(v);
	return 0;
}

static int
ep_setopt(fid_t fid, int level, int optname, const void *optval,
	  size_t optlen)
{
	struct uet_ofi_ep *ep = container_of(fid, struct uet_ofi_ep, ep_fid.fid);
	size_t v;

	if (level != FI_OPT_ENDPOINT)
		return -FI_ENOPROTOOPT;
	if (optval == NULL || optlen != sizeof(size_t))
		return -FI_EINVAL;
	memcpy(&v, optval, sizeof(v));
	switch (optname) {
	case FI_OPT_MIN_MULTI_RECV:
		ep->min_multi_recv = v;
		return 0;
	case FI_OPT_TX_SIZE:
	case FI_OPT_RX_SIZE:
		if (ep->enabled)
			return -FI_EOPBADSTATE;
		if (v == 0 || v > UET_OFI_QUEUE_MAX)
			return -FI_EINVAL;
		if (optname == FI_OPT_TX_SIZE)
			ep->tx_size = v;
		else
			ep->rx_size = v;
		return 0;
	default:
		return -FI_ENOPROTOOPT;
	}
}

static ssize_t
ep_rx_size_left(struct fid_ep *fid)
{
	struct uet_ofi_ep *ep = container_of(fid, struct uet_ofi_ep, ep_fid);

	if (!ep->enabled)
		return -FI_EOPBADSTATE;
	return (ssize_t)(ep->tx_only ? 0 : ep->rx_size - ep->rx_inflight);
}

static ssize_t
ep_tx_size_left(struct fid_ep *fid)
{
	struct uet_ofi_ep *ep = container_of(fid, struct uet_ofi_ep, ep_fid);

	if (!ep->enabled)
		return -FI_EOPBADSTATE;
	return (ssize_t)(ep->rx_only ? 0 : ep->tx_size - ep->tx_inflight);
}

static int
ctx_enosys(struct fid_ep *sep, int index, struct fi_tx_attr *attr,
	   struct fid_ep **ep, void *context)
{
	(void)sep; (void)index; (void)attr; (void)ep; (void)context;
	return -FI_ENOSYS;
}

static int
rx_ctx_enosys(struct fid_ep *sep, int index, struct fi_rx_attr *attr,
	      struct fid_ep **ep, void *context)
{
	(void)sep; (void)index; (void)attr; (void)ep; (void)context;
	return -FI_ENOSYS;
}

static struct fi_ops_ep ep_ops = {
	.size = sizeof(struct fi_ops_ep),
	.cancel = ep_cancel,
	.getopt = ep_getopt,
	.setopt = ep_setopt,
	.tx_ctx = ctx_enosys,
	.rx_ctx = rx_ctx_enosys,
	.rx_size_left = ep_rx_size_left,
	.tx_size_left = ep_tx_size_left,
};

/* ---- CM: names ---- */

static int
ep_getname(fid_t fid, void *addr, size_t *addrlen)
{
	struct uet_ofi_ep *ep = container_of(fid, struct uet_ofi_ep, ep_fid.fid);

	if (ep->sep != NULL)
		ep = ep->sep;
	return uet_ofi_addr_export(&ep->addr, ep->dom->addr_format, addr,
				   addrlen);
}

static int
ep_setname(fid_t fid, void *addr, size_t addrlen)
{
	struct uet_ofi_ep *ep = container_of(fid, struct uet_ofi_ep, ep_fid.fid);
	struct uet_ofi_addr a;
	int rc;

	if (ep->enabled || ep->sep != NULL)
		return -FI_EOPBADSTATE;
	rc = uet_ofi_addr_import(addr, addrlen, ep->dom->addr_format,
				 ep->dom->profile, ntohs(ep->addr.caps), &a);
	if (rc < 0)
		return rc;
	ep->addr = a;
	ep->addr.profile = (uint8_t)ep->dom->profile;
	return 0;
}

static int
ep_getpeer(struct fid_ep *e, void *addr, size_t *addrlen)
{
	(void)e; (void)addr; (void)addrlen;
	return -FI_ENOSYS; /* connectionless */
}

static struct fi_ops_cm ep_cm_ops;

/* ---- open ---- */

/* @p a names the domain's port (its FA; the unspecified IPv4 address
 * stands for any). */
static bool
port_has_addr(const struct uet_ofi_port_info *p, const struct uet_ofi_addr *a)
{
	static const uint8_t any[4];

	if (a->flags & UET_OFI_ADDR_F_IPV6)
		return p->has_ipv6 && memcmp(p->ipv6, a->fa, 16) == 0;
	return memcmp(a->fa, any, 4) == 0 ||
	       (p->has_ipv4 && memcmp(p->ipv4, a->fa, 4) == 0);
}

static int
ep_common_init(struct uet_ofi_ep *ep, struct uet_ofi_domain *d,
	       const struct fi_info *info, void *context)
{
	const struct fi_ep_attr *ea = info->ep_attr;
	uint8_t fa[16] = { 0 };
	bool v6 = !d->port.has_ipv4 && d->port.has_ipv6;
	int rc;

	ep->dom = d;
	ep->type = ea != NULL && ea->type != FI_EP_UNSPEC ? ea->type : FI_EP_RDM;
	if (ep->type != FI_EP_RDM && ep->type != FI_EP_DGRAM)
		return -FI_EINVAL;
	ep->caps = info->caps ? info->caps :
				uet_ofi_profile_caps(d->profile, ep->type) &
				~d->fab->svc_lim.caps_off;
	if (ep->caps & ~uet_ofi_profile_caps(d->profile, ep->type) &
	    ~(uint64_t)(FI_LOCAL_COMM | FI_REMOTE_COMM | FI_SOURCE_ERR |
			FI_RMA_EVENT))
		return -FI_ENOSYS; /* not in this profile (UEC 1.0 profiles) */
	/* what the service (when attached to one) does not offer */
	if (ep->caps & d->fab->svc_lim.caps_off &
	    ~(uint64_t)(FI_RMA_EVENT | FI_READ | FI_WRITE | FI_REMOTE_READ |
			FI_REMOTE_WRITE))
		return -FI_ENOSYS;
	ep->tx_size = info->tx_attr && info->tx_attr->size ?
		      info->tx_attr->size : UET_OFI_TX_SIZE_DEF;
	ep->rx_size = info->rx_attr && info->rx_attr->size ?
		      info->rx_attr->size : UET_OFI_RX_SIZE_DEF;
	if (ep->tx_size > UET_OFI_QUEUE_MAX || ep->rx_size > UET_OFI_QUEUE_MAX)
		return -FI_EINVAL;
	ep->tx_op_flags = info->tx_attr ? info->tx_attr->op_flags : 0;
	ep->rx_op_flags = info->rx_attr ? info->rx_attr->op_flags : 0;
	ep->min_multi_recv = 64;
	rc = uet_ofi_job_from_key(d, ea ? ea->auth_key : NULL,
				  ea ? ea->auth_key_size : 0, &ep->job);
	if (rc < 0)
		return rc;
	if (v6)
		memcpy(fa, d->port.ipv6, 16);
	else
		memcpy(fa, d->port.ipv4, 4);
	/* the engine context of the domain is the process on the FEP: its
	 * PIDonFEP and initiator id are the endpoint's */
	uet_ofi_addr_make(&ep->addr, fa, v6, d->pid, d->profile,
			  uet_ofi_addr_caps(ep->caps, ep->type, d->profile));
	ep->addr.initiator_id = htonl(d->initiator);
	ep->pid = d->pid;
	ep->initiator = d->initiator;
	if (info->src_addr != NULL && info->src_addrlen > 0) {
		struct uet_ofi_addr a;

		rc = uet_ofi_addr_import(info->src_addr, info->src_addrlen,
					 d->addr_format, d->profile,
					 ntohs(ep->addr.caps), &a);
		if (rc < 0)
			return rc;
		if (!port_has_addr(&d->port, &a)) {
			FI_WARN(&uet_prov, FI_LOG_EP_CTRL,
				"src_addr: not the FA of the domain's port\n");
			return -FI_EADDRNOTAVAIL;
		}
		/* bound to a service: the endpoint is that PIDonFEP
		 * (ep_pid_take); 0 lets the provider pick one */
		ep->want_pid = uet_ofi_addr_pid(&a);
	}
	ep->tx_mode = uet_ofi_params()->def_data_dc ? UET_CHAN_MODE_ROD :
						      UET_CHAN_MODE_RUD;
	if (info->tx_attr != NULL &&
	    (info->tx_attr->msg_order & (FI_ORDER_SAS | FI_ORDER_RAW |
					 FI_ORDER_WAW | FI_ORDER_WAR |
					 FI_ORDER_RAR)))
		ep->tx_mode = UET_CHAN_MODE_ROD;
	uet_ofi_lock_init(&ep->lock, !uet_ofi_lockless(d));
	ep->info = fi_dupinfo(info);
	if (ep->info == NULL) {
		uet_ofi_lock_fini(&ep->lock);
		return -FI_ENOMEM;
	}
	ep->ep_fid.fid.fclass = FI_CLASS_EP;
	ep->ep_fid.fid.context = context;
	ep->ep_fid.fid.ops = &ep_fi_ops;
	ep->ep_fid.ops = &ep_ops;
	ep->ep_fid.cm = &ep_cm_ops;
	ep->ep_fid.collective = (struct fi_ops_collective *)&uet_ofi_coll_enosys;
	if (ep->type == FI_EP_DGRAM) {
		atomic_store(&d->fab->dgram, true);
		ep->ep_fid.msg = (struct fi_ops_msg *)&uet_ofi_msg_ops;
		ep->ep_fid.tagged = (struct fi_ops_tagged *)&uet_ofi_tagged_enosys;
		ep->ep_fid.rma = (struct fi_ops_rma *)&uet_ofi_rma_enosys;
		ep->ep_fid.atomic = (struct fi_ops_atomic *)&uet_ofi_atomic_enosys;
	} else {
		ep->ep_fid.msg = (struct fi_ops_msg *)&uet_ofi_msg_ops;
		ep->ep_fid.tagged = (struct fi_ops_tagged *)&uet_ofi_tagged_ops;
		ep->ep_fid.rma = (struct fi_ops_rma *)&uet_ofi_rma_ops;
		ep->ep_fid.atomic = (struct fi_ops_atomic *)&uet_ofi_atomic_ops;
	}
	return 0;
}

/*
 * The endpoint's process on the FEP: the first endpoint (or scalable
 * endpoint) of the domain's engine context takes the context's PIDonFEP
 * and initiator id, further ones an extra PIDonFEP with its own receive
 * context in the engine (EP_ADD at fi_enable) and a derived initiator id.
 */
static int
ep_pid_take(struct uet_ofi_ep *ep)
{
	int rc = uet_ofi_fabric_pid_get(ep->dom->fab, ep->dom->ctx, ep,
					ep->want_pid, &ep->pid,
					&ep->initiator);

	if (rc < 0)
		return rc;
	ep->pid_held = true;
	ep->addr.pid_on_fep = htons(ep->pid & UET_OFI_PID_MASK);
	ep->addr.initiator_id = htonl(ep->initiator);
	return 0;
}

int
uet_ofi_ep_open(struct fid_domain *domain, struct fi_info *info,
		struct fid_ep **ep_fid, void *context)
{
	struct uet_ofi_domain *d =
		container_of(domain, struct uet_ofi_domain, dom_fid);
	struct uet_ofi_ep *ep;
	int rc;

	if (info == NULL || ep_fid == NULL)
		return -FI_EINVAL;
	ep = calloc(1, sizeof(*ep));
	if (ep == NULL)
		return -FI_ENOMEM;
	rc = ep_common_init(ep, d, info, context);
	if (rc == 0)
		rc = ep_pid_take(ep);
	if (rc < 0) {
		if (ep->info != NULL) {
			fi_freeinfo(ep->info);
			uet_ofi_lock_fini(&ep->lock);
		}
		free(ep);
		return rc;
	}
	atomic_fetch_add(&d->ref, 1);
	*ep_fid = &ep->ep_fid;
	return 0;
}

/* ---- scalable endpoints ---- */

static struct uet_ofi_ep *
ctx_open(struct uet_ofi_ep *sep, int index, bool tx, void *context,
	 size_t size, uint64_t op_flags, int *rc)
{
	struct uet_ofi_ep *c = calloc(1, sizeof(*c));

	if (c == NULL) {
		*rc = -FI_ENOMEM;
		return NULL;
	}
	*rc = ep_common_init(c, sep->dom, sep->info, context);
	if (*rc < 0) {
		free(c);
		return NULL;
	}
	c->sep = sep;
	c->ctx_index = index;
	c->tx_only = tx;
	c->rx_only = !tx;
	c->addr = sep->addr;
	c->job = sep->job;
	c->pid = sep->pid;
	/* named receive contexts: context i is its own process, PIDonFEP
	 * of the SEP + i, which fi_rx_addr() selects at the sender */
	if (!tx && sep->nb_pids > 1)
		c->pid = (uint16_t)((sep->pid + index) & UET_OFI_PID_MASK);
	c->initiator = sep->initiator;
	c->ep_fid.fid.fclass = tx ? FI_CLASS_TX_CTX : FI_CLASS_RX_CTX;
	if (size)
		*(tx ? &c->tx_size : &c->rx_size) = size;
	if (op_flags)
		*(tx ? &c->tx_op_flags : &c->rx_op_flags) = op_flags;
	atomic_fetch_add(&sep->ref, 1);
	return c;
}

static int
sep_tx_ctx(struct fid_ep *fid, int index, struct fi_tx_attr *attr,
	   struct fid_ep **tx_ep, void *context)
{
	struct uet_ofi_ep *sep = container_of(fid, struct uet_ofi_ep, ep_fid);
	struct uet_ofi_ep *c;
	int rc;

	if (index < 0 || index >= sep->nb_tx_ctx || sep->tx_ctx[index] != NULL)
		return -FI_EINVAL;
	c = ctx_open(sep, index, true, context, attr ? attr->size : 0,
		     attr ? attr->op_flags : 0, &rc);
	if (c == NULL)
		return rc;
	sep->tx_ctx[index] = c;
	*tx_ep = &c->ep_fid;
	return 0;
}

static int
sep_rx_ctx(struct fid_ep *fid, int index, struct fi_rx_attr *attr,
	   struct fid_ep **rx_ep, void *context)
{
	struct uet_ofi_ep *sep = container_of(fid, struct uet_ofi_ep, ep_fid);
	struct uet_ofi_ep *c;
	int rc;

	if (index < 0 || index >= sep->nb_rx_ctx || sep->rx_ctx[index] != NULL)
		return -FI_EINVAL;
	c = ctx_open(sep, index, false, context, attr ? attr->size : 0,
		     attr ? attr->op_flags : 0, &rc);
	if (c == NULL)
		return rc;
	sep->rx_ctx[index] = c;
	*rx_ep = &c->ep_fid;
	return 0;
}

static ssize_t
sep_cancel(fid_t fid, void *context)
{
	(void)fid; (void)context;
	return -FI_ENOSYS; /* cancel on the rx contexts */
}

static ssize_t
sep_size_left(struct fid_ep *ep)
{
	(void)ep;
	return -FI_ENOSYS;
}

static struct fi_ops_ep sep_ops = {
	.size = sizeof(struct fi_ops_ep),
	.cancel = sep_cancel,
	.getopt = ep_getopt,
	.setopt = ep_setopt,
	.tx_ctx = sep_tx_ctx,
	.rx_ctx = sep_rx_ctx,
	.rx_size_left = sep_size_left,
	.tx_size_left = sep_size_left,
};

int
uet_ofi_sep_open(struct fid_domain *domain, struct fi_info *info,
		 struct fid_ep **sep_fid, void *context)
{
	struct uet_ofi_domain *d =
		container_of(domain, struct uet_ofi_domain, dom_fid);
	struct uet_ofi_ep *sep;
	int rc, ntx, nrx;

	if (info == NULL || info->ep_attr == NULL || sep_fid == NULL)
		return -FI_EINVAL;
	if (info->ep_attr->type != FI_EP_RDM)
		return -FI_ENOSYS;
	ntx = (int)(info->ep_attr->tx_ctx_cnt ? info->ep_attr->tx_ctx_cnt : 1);
	nrx = (int)(info->ep_attr->rx_ctx_cnt ? info->ep_attr->rx_ctx_cnt : 1);
	if (ntx > UET_OFI_CTX_MAX || nrx > UET_OFI_CTX_MAX)
		return -FI_EINVAL;
	sep = calloc(1, sizeof(*sep));
	if (sep == NULL)
		return -FI_ENOMEM;
	rc = ep_common_init(sep, d, info, context);
	if (rc < 0) {
		free(sep);
		return rc;
	}
	if ((sep->caps & FI_NAMED_RX_CTX) && nrx > 1) {
		rc = uet_ofi_fabric_pid_block(d->fab, sep->want_pid,
					      (unsigned int)nrx, &sep->pid,
					      &sep->initiator);
		if (rc == 0) {
			sep->nb_pids = (unsigned int)nrx;
			sep->pid_held = true;
			sep->addr.pid_on_fep = htons(sep->pid);
			sep->addr.initiator_id = htonl(sep->initiator);
		}
	} else {
		rc = ep_pid_take(sep);
	}
	if (rc < 0) {
		fi_freeinfo(sep->info);
		uet_ofi_lock_fini(&sep->lock);
		free(sep);
		return rc;
	}
	sep->is_sep = true;
	sep->nb_tx_ctx = ntx;
	sep->nb_rx_ctx = nrx;
	sep->tx_ctx = calloc((size_t)ntx, sizeof(*sep->tx_ctx));
	sep->rx_ctx = calloc((size_t)nrx, sizeof(*sep->rx_ctx));
	if (sep->tx_ctx == NULL || sep->rx_ctx == NULL) {
		free(sep->tx_ctx);
		free(sep->rx_ctx);
		if (sep->nb_pids > 0)
			uet_ofi_fabric_pid_block_put(d->fab, sep->pid,
						     sep->nb_pids);
		else
			uet_ofi_fabric_pid_put(d->fab, d->ctx, sep, sep->pid);
		fi_freeinfo(sep->info);
		uet_ofi_lock_fini(&sep->lock);
		free(sep);
		return -FI_ENOMEM;
	}
	sep->ep_fid.fid.fclass = FI_CLASS_SEP;
	sep->ep_fid.ops = &sep_ops;
	/* data transfers go through the contexts */
	sep->ep_fid.msg = (struct fi_ops_msg *)&uet_ofi_msg_enosys;
	sep->ep_fid.tagged = (struct fi_ops_tagged *)&uet_ofi_tagged_enosys;
	sep->ep_fid.rma = (struct fi_ops_rma *)&uet_ofi_rma_enosys;
	sep->ep_fid.atomic = (struct fi_ops_atomic *)&uet_ofi_atomic_enosys;
	atomic_fetch_add(&d->ref, 1);
	*sep_fid = &sep->ep_fid;
	return 0;
}

/* Tables with function pointers defined above. */
static int cm_connect(struct fid_ep *e, const void *a, const void *p,
		      size_t l);

static int
cm_connect(struct fid_ep *e, const void *a, const void *p, size_t l)
{
	(void)e; (void)a; (void)p; (void)l;
	return -FI_ENOSYS;
}

static struct fi_ops_cm ep_cm_ops = {
	.size = sizeof(struct fi_ops_cm),
	.setname = ep_setname,
	.getname = ep_getname,
	.getpeer = ep_getpeer,
	.connect = cm_connect,
};

/* fill the remaining CM calls from the enosys table at load time */
__attribute__((constructor)) static void
ep_cm_ops_init(void)
{
	ep_cm_ops.listen = uet_ofi_cm_enosys.listen;
	ep_cm_ops.accept = uet_ofi_cm_enosys.accept;
	ep_cm_ops.reject = uet_ofi_cm_enosys.reject;
	ep_cm_ops.shutdown = uet_ofi_cm_enosys.shutdown;
	ep_cm_ops.join = uet_ofi_cm_enosys.join;
}
