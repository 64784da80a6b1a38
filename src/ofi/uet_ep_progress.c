/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Endpoint progress: the CQEs of an endpoint's channel become CQ entries
 * and counter events, and their request slots are recycled. A CQE
 * carries the context of its SQE/RQE (the request slot, uet_msg.c) or
 * none for a peer's access served on this endpoint's memory. Received
 * bytes a bounce buffer holds are scattered before the CQ entry is
 * visible; a failed operation is logged (a few per endpoint) with its
 * libfabric error and the provider's errno.
 */
#include <string.h>

#include "uet_ofi_private.h"

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
 * What a BAD_MKEY means for @p op: no key of a correct program is ever
 * unknown to its peer while both run, so the log says what revoked it.
 * A rendezvous receive reads its sender's buffer under a key the sender
 * revokes when its send ends; a peer that gave up on this process (its
 * PDC timed out while this one was descheduled) ends its sends and
 * closes its regions. A service hides why it refused a client's key (no
 * oracle, docs/SES.md "Keys"). docs/PROVIDER.md "Errors".
 */
static const char *
ep_bad_mkey_hint(bool recv)
{
	return recv ?
	       "; the sender's rendezvous send had ended before this receive "
	       "read it back (it timed out, was cancelled, or its endpoint "
	       "closed)" :
	       "; the key is not registered at the target: never registered "
	       "there, or its MR or endpoint was closed (as a peer that timed "
	       "out on this process does); a uet-engine service answers it "
	       "to any refused use of its clients' keys";
}

/*
 * A failed operation, at FI_LOG_LEVEL=warn: middleware often reports only
 * its own code (Open MPI: MPI_ERR_INTERN), so the provider says what
 * failed and why. Cancelled and truncated receives are the application's
 * business and not logged.
 */
/*
 * What a BAD_PID means: no endpoint of that PIDonFEP at the target, after
 * waiting `[engine] pid_wait` for one. Two processes on the built-in
 * default configuration (one net_ring port each, in the process) share
 * its fabric address, and each one's peers are its own: the other's
 * PIDonFEP is never there.
 */
static const char *
ep_hint(const struct uet_ofi_cq_entry *e, bool recv)
{
	if (e->prov_errno == UET_RC_BAD_MKEY)
		return ep_bad_mkey_hint(recv);
	if (e->prov_errno == UET_RC_BAD_PID)
		return "; no endpoint of that PIDonFEP at the target (its "
		       "process not there, or another process on a port "
		       "only its own process reaches: the net_ring of the "
		       "built-in default configuration; processes need a "
		       "configuration whose port joins them, "
		       "FI_UET_PROVIDER_CONFIG)";
	return "";
}

static void
ep_log_failure(struct uet_ofi_ep *ep, const struct uet_ofi_cq_entry *e,
	       bool injected)
{
	char why[192];
	bool recv = (e->flags & FI_RECV) != 0;
	const char *op = (e->flags & FI_ATOMIC) ? "atomic" :
			 (e->flags & FI_READ) ? "RMA read" :
			 (e->flags & FI_WRITE) ? "RMA write" :
			 recv ? "receive" : "send";

	if (e->err == FI_ECANCELED || e->err == FI_ETRUNC ||
	    ep->failures_logged >= EP_FAILURES_LOGGED)
		return;
	ep->failures_logged++;
	uet_ofi_prov_strerror(e->prov_errno, why, sizeof(why));
	if (injected) {
		/* no entry tells the application: said whatever the log
		 * level (uet_cq.c: its CQ's next read returns -FI_EIO) */
		UET_OFI_REPORT(FI_LOG_EP_DATA, "an injected %s failed: %s "
			       "(%s)%s; fi_inject* has no completion entry: "
			       "the CQ's next read returns -FI_EIO%s", op,
			       fi_strerror(e->err), why, ep_hint(e, recv),
			       ep->failures_logged == EP_FAILURES_LOGGED ?
			       "; further failures of this endpoint are not "
			       "logged" : "");
		return;
	}
	FI_WARN(&uet_prov, FI_LOG_EP_DATA, "%s failed: %s (%s)%s%s\n",
		op, fi_strerror(e->err), why, ep_hint(e, recv),
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
	 * (MPI layers dereference it): the CQ's next read fails instead
	 * (uet_ofi_cq_lost); the counter sees the error as well */
	entry = (c->status != 0 && !r->no_entry) || r->want_cq;
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
		ep_log_failure(ep, &e, !entry);
	}
	if (cq != NULL) {
		if (entry)
			uet_ofi_cq_push(cq, &e);
		else if (final)
			uet_ofi_cq_unreserve(cq);
		if (!entry && c->status != 0 && e.err != FI_ECANCELED)
			uet_ofi_cq_lost(cq);
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

