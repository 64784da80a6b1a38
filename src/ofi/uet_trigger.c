/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Triggered operations (FI_TRIGGER, fi_trigger(3)): a data transfer call
 * with FI_TRIGGER (in its flags, or its endpoint's or alias's op flags)
 * whose context is a struct fi_triggered_context of kind
 * FI_TRIGGER_THRESHOLD is held until the counter named there reaches the
 * threshold, then posted as if called then, with the same context (its
 * completion carries it).
 *
 * The call is copied (its message and every array it points to; the
 * buffers themselves stay the application's, as for any operation) into
 * the domain's list, ordered by threshold. The list is run when a counter
 * can have moved: after an endpoint's progress, on fi_cntr_add and
 * fi_cntr_set, and when an operation is queued. Running posts, in list
 * order, every operation whose counter reached its threshold; -FI_EAGAIN
 * (queue full) stops it until the next run. A post that fails otherwise
 * completes in error on the endpoint's CQ and counter, as the operation
 * would have.
 *
 * The list's lock is taken with no endpoint lock held, and held while
 * posting (an endpoint lock inside it), so the order of the list is the
 * order of the posts. A run inside a post (progress after -FI_EAGAIN)
 * finds the lock taken and returns.
 */
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_trigger.h>

#include "uet_ofi_private.h"

struct uet_ofi_trig {
	struct uet_ofi_trig *next;
	struct uet_ofi_ep *ep;
	struct uet_ofi_cntr *cntr;
	uint64_t threshold;
	uint64_t flags;          /* the call's, without FI_TRIGGER */
	enum fi_op_type kind;
	union {
		struct fi_msg msg;
		struct fi_msg_tagged tagged;
		struct fi_msg_rma rma;
		struct fi_msg_atomic atomic;
	} m;
	/* the arrays the message points to, copied */
	struct iovec iov[UET_OFI_IOV_MAX];
	struct fi_ioc ioc[UET_OFI_IOV_MAX];
	void *desc[UET_OFI_IOV_MAX];
	struct fi_rma_iov rma_iov[UET_OFI_IOV_MAX];
	struct fi_rma_ioc rma_ioc[UET_OFI_IOV_MAX];
	/* fetching and compare atomics */
	struct fi_ioc cmp[UET_OFI_IOV_MAX], res[UET_OFI_IOV_MAX];
	void *cmp_desc[UET_OFI_IOV_MAX], *res_desc[UET_OFI_IOV_MAX];
	size_t nb_cmp, nb_res;
};

/* Copy @p n entries of @p size bytes from @p src (may be NULL when
 * n is 0; desc arrays may be NULL) into @p dst; what the copy points to
 * (NULL stays NULL), or NULL with -FI_EINVAL in *rc. */
static void *
arr_copy(void *dst, const void *src, size_t n, size_t size, int *rc)
{
	if (n > UET_OFI_IOV_MAX) {
		*rc = -FI_EINVAL;
		return NULL;
	}
	if (src == NULL || n == 0)
		return NULL;
	memcpy(dst, src, n * size);
	return dst;
}

static int
copy_call(struct uet_ofi_trig *t, const struct uet_ofi_trig_call *c)
{
	int rc = 0;

	switch (t->kind) {
	case FI_OP_SEND:
	case FI_OP_RECV:
		t->m.msg = *(const struct fi_msg *)c->msg;
		t->m.msg.msg_iov = arr_copy(t->iov, t->m.msg.msg_iov,
					    t->m.msg.iov_count,
					    sizeof(t->iov[0]), &rc);
		t->m.msg.desc = arr_copy(t->desc, t->m.msg.desc,
					 t->m.msg.iov_count,
					 sizeof(t->desc[0]), &rc);
		break;
	case FI_OP_TSEND:
	case FI_OP_TRECV:
		t->m.tagged = *(const struct fi_msg_tagged *)c->msg;
		t->m.tagged.msg_iov = arr_copy(t->iov, t->m.tagged.msg_iov,
					       t->m.tagged.iov_count,
					       sizeof(t->iov[0]), &rc);
		t->m.tagged.desc = arr_copy(t->desc, t->m.tagged.desc,
					    t->m.tagged.iov_count,
					    sizeof(t->desc[0]), &rc);
		break;
	case FI_OP_WRITE:
	case FI_OP_READ:
		t->m.rma = *(const struct fi_msg_rma *)c->msg;
		t->m.rma.msg_iov = arr_copy(t->iov, t->m.rma.msg_iov,
					    t->m.rma.iov_count,
					    sizeof(t->iov[0]), &rc);
		t->m.rma.desc = arr_copy(t->desc, t->m.rma.desc,
					 t->m.rma.iov_count,
					 sizeof(t->desc[0]), &rc);
		t->m.rma.rma_iov = arr_copy(t->rma_iov, t->m.rma.rma_iov,
					    t->m.rma.rma_iov_count,
					    sizeof(t->rma_iov[0]), &rc);
		break;
	default:
		t->m.atomic = *(const struct fi_msg_atomic *)c->msg;
		t->m.atomic.msg_iov = arr_copy(t->ioc, t->m.atomic.msg_iov,
					       t->m.atomic.iov_count,
					       sizeof(t->ioc[0]), &rc);
		t->m.atomic.desc = arr_copy(t->desc, t->m.atomic.desc,
					    t->m.atomic.iov_count,
					    sizeof(t->desc[0]), &rc);
		t->m.atomic.rma_iov = arr_copy(t->rma_ioc, t->m.atomic.rma_iov,
					       t->m.atomic.rma_iov_count,
					       sizeof(t->rma_ioc[0]), &rc);
		t->nb_cmp = c->nb_cmp;
		t->nb_res = c->nb_res;
		(void)arr_copy(t->cmp, c->cmp, c->nb_cmp, sizeof(t->cmp[0]),
			       &rc);
		(void)arr_copy(t->cmp_desc, c->cmp_desc, c->nb_cmp,
			       sizeof(t->cmp_desc[0]), &rc);
		(void)arr_copy(t->res, c->res, c->nb_res, sizeof(t->res[0]),
			       &rc);
		(void)arr_copy(t->res_desc, c->res_desc, c->nb_res,
			       sizeof(t->res_desc[0]), &rc);
		break;
	}
	return rc;
}

/* Post @p t as its call would have been: 0 or the call's -errno. */
static ssize_t
trig_post(struct uet_ofi_trig *t)
{
	struct fid_ep *e = &t->ep->ep_fid;

	switch (t->kind) {
	case FI_OP_SEND:
		return e->msg->sendmsg(e, &t->m.msg, t->flags);
	case FI_OP_RECV:
		return e->msg->recvmsg(e, &t->m.msg, t->flags);
	case FI_OP_TSEND:
		return e->tagged->sendmsg(e, &t->m.tagged, t->flags);
	case FI_OP_TRECV:
		return e->tagged->recvmsg(e, &t->m.tagged, t->flags);
	case FI_OP_WRITE:
		return e->rma->writemsg(e, &t->m.rma, t->flags);
	case FI_OP_READ:
		return e->rma->readmsg(e, &t->m.rma, t->flags);
	case FI_OP_ATOMIC:
		return e->atomic->writemsg(e, &t->m.atomic, t->flags);
	case FI_OP_FETCH_ATOMIC:
		return e->atomic->readwritemsg(e, &t->m.atomic,
					       t->nb_res ? t->res : NULL,
					       t->res_desc, t->nb_res,
					       t->flags);
	case FI_OP_COMPARE_ATOMIC:
		return e->atomic->compwritemsg(e, &t->m.atomic,
					       t->nb_cmp ? t->cmp : NULL,
					       t->cmp_desc, t->nb_cmp,
					       t->nb_res ? t->res : NULL,
					       t->res_desc, t->nb_res,
					       t->flags);
	default:
		return -FI_ENOSYS;
	}
}

static void *
trig_context(const struct uet_ofi_trig *t)
{
	switch (t->kind) {
	case FI_OP_SEND:
	case FI_OP_RECV:
		return t->m.msg.context;
	case FI_OP_TSEND:
	case FI_OP_TRECV:
		return t->m.tagged.context;
	case FI_OP_WRITE:
	case FI_OP_READ:
		return t->m.rma.context;
	default:
		return t->m.atomic.context;
	}
}

/*
 * A triggered post that failed (not -FI_EAGAIN): the operation completes
 * in error, on the CQ and the counter its completion would have used;
 * no CQ (or no room for the entry): the counter's error count alone.
 */
static void
trig_fail(struct uet_ofi_trig *t, ssize_t rc)
{
	static const enum uet_ofi_cntr_kind kind[] = {
		[FI_OP_RECV] = UET_OFI_CNTR_RECV,
		[FI_OP_SEND] = UET_OFI_CNTR_SEND,
		[FI_OP_TRECV] = UET_OFI_CNTR_RECV,
		[FI_OP_TSEND] = UET_OFI_CNTR_SEND,
		[FI_OP_READ] = UET_OFI_CNTR_READ,
		[FI_OP_WRITE] = UET_OFI_CNTR_WRITE,
		[FI_OP_ATOMIC] = UET_OFI_CNTR_WRITE,
		[FI_OP_FETCH_ATOMIC] = UET_OFI_CNTR_READ,
		[FI_OP_COMPARE_ATOMIC] = UET_OFI_CNTR_READ,
	};
	static const uint64_t cq_flags[] = {
		[FI_OP_RECV] = FI_RECV | FI_MSG,
		[FI_OP_SEND] = FI_SEND | FI_MSG,
		[FI_OP_TRECV] = FI_RECV | FI_TAGGED,
		[FI_OP_TSEND] = FI_SEND | FI_TAGGED,
		[FI_OP_READ] = FI_READ | FI_RMA,
		[FI_OP_WRITE] = FI_WRITE | FI_RMA,
		[FI_OP_ATOMIC] = FI_WRITE | FI_ATOMIC,
		[FI_OP_FETCH_ATOMIC] = FI_READ | FI_ATOMIC,
		[FI_OP_COMPARE_ATOMIC] = FI_READ | FI_ATOMIC,
	};
	bool rx = t->kind == FI_OP_RECV || t->kind == FI_OP_TRECV;
	struct uet_ofi_cq *cq = rx ? t->ep->rx_cq : t->ep->tx_cq;
	struct uet_ofi_cntr *cntr = t->ep->cntr[kind[t->kind]];
	struct uet_ofi_cq_entry e;

	FI_WARN(&uet_prov, FI_LOG_EP_DATA,
		"triggered operation (threshold %llu reached) failed to "
		"post: %s\n", (unsigned long long)t->threshold,
		fi_strerror((int)-rc));
	if (cq != NULL && uet_ofi_cq_reserve_unsolicited(cq) == 0) {
		memset(&e, 0, sizeof(e));
		e.op_context = trig_context(t);
		e.flags = cq_flags[t->kind];
		e.src = FI_ADDR_NOTAVAIL;
		e.err = (int)-rc;
		e.prov_errno = (int)rc;
		uet_ofi_cq_push(cq, &e);
		uet_ofi_waitable_signal(&cq->w);
	}
	if (cntr != NULL)
		uet_ofi_cntr_inc_err(cntr);
}

void
uet_ofi_trig_run(struct uet_ofi_domain *d)
{
	struct uet_ofi_trig **pp, *t;
	ssize_t rc;

	if (atomic_load(&d->trig_n) == 0 ||
	    pthread_mutex_trylock(&d->trig_lock) != 0)
		return;
	pp = &d->trig_head;
	while ((t = *pp) != NULL) {
		if (atomic_load(&t->cntr->val) < t->threshold) {
			pp = &t->next;
			continue;
		}
		rc = trig_post(t);
		if (rc == -FI_EAGAIN)
			break; /* the queue is full: in order, next run */
		*pp = t->next;
		atomic_fetch_sub(&d->trig_n, 1);
		if (rc < 0)
			trig_fail(t, rc);
		free(t);
	}
	pthread_mutex_unlock(&d->trig_lock);
}

/* Insert after every entry of a lower or equal threshold (stable). */
static void
trig_insert(struct uet_ofi_domain *d, struct uet_ofi_trig *t)
{
	struct uet_ofi_trig **pp = &d->trig_head;

	pthread_mutex_lock(&d->trig_lock);
	while (*pp != NULL && (*pp)->threshold <= t->threshold)
		pp = &(*pp)->next;
	t->next = *pp;
	*pp = t;
	atomic_fetch_add(&d->trig_n, 1);
	pthread_mutex_unlock(&d->trig_lock);
}

ssize_t
uet_ofi_trig_defer(struct uet_ofi_ep *ep, const struct uet_ofi_trig_call *c,
		   uint64_t flags)
{
	const struct fi_triggered_context *tc = c->context;
	struct uet_ofi_cntr *cntr;
	struct uet_ofi_trig *t;
	int rc;

	if (!(ep->caps & FI_TRIGGER))
		return -FI_EOPNOTSUPP;
	if (!ep->enabled)
		return -FI_EOPBADSTATE;
	/* an inject has no context to carry the trigger */
	if (c->msg == NULL || tc == NULL || (flags & FI_INJECT) ||
	    tc->event_type != FI_TRIGGER_THRESHOLD)
		return -FI_EINVAL;
	cntr = uet_ofi_cntr_of(tc->trigger.threshold.cntr);
	if (cntr == NULL || cntr->dom != ep->dom)
		return -FI_EINVAL;
	t = calloc(1, sizeof(*t));
	if (t == NULL)
		return -FI_ENOMEM;
	t->ep = ep;
	t->cntr = cntr;
	t->threshold = tc->trigger.threshold.threshold;
	t->flags = flags & ~(uint64_t)FI_TRIGGER;
	t->kind = c->kind;
	rc = copy_call(t, c);
	if (rc < 0) {
		free(t);
		return rc;
	}
	trig_insert(ep->dom, t);
	/* the threshold may be reached already */
	uet_ofi_trig_run(ep->dom);
	return 0;
}

/* How many held operations are of @p ep or wait for @p cntr (NULL:
 * any); with @p drop, they go (unposted). */
static unsigned int
trig_match(struct uet_ofi_domain *d, const struct uet_ofi_ep *ep,
	   const struct uet_ofi_cntr *cntr, bool drop)
{
	struct uet_ofi_trig **pp, *t;
	unsigned int n = 0;

	if (atomic_load(&d->trig_n) == 0)
		return 0;
	pthread_mutex_lock(&d->trig_lock);
	pp = &d->trig_head;
	while ((t = *pp) != NULL) {
		if ((ep != NULL && t->ep != ep) ||
		    (cntr != NULL && t->cntr != cntr)) {
			pp = &t->next;
			continue;
		}
		n++;
		if (!drop) {
			pp = &t->next;
			continue;
		}
		*pp = t->next;
		atomic_fetch_sub(&d->trig_n, 1);
		free(t);
	}
	pthread_mutex_unlock(&d->trig_lock);
	return n;
}

void
uet_ofi_trig_drop_ep(struct uet_ofi_ep *ep)
{
	unsigned int n = trig_match(ep->dom, ep, NULL, true);

	if (n != 0)
		FI_WARN(&uet_prov, FI_LOG_EP_CTRL,
			"endpoint closed with %u triggered operation(s) whose "
			"threshold was not reached: not posted\n", n);
}

bool
uet_ofi_trig_uses_cntr(struct uet_ofi_cntr *cntr)
{
	return trig_match(cntr->dom, NULL, cntr, false) != 0;
}

void
uet_ofi_trig_domain_fini(struct uet_ofi_domain *d)
{
	(void)trig_match(d, NULL, NULL, true);
	pthread_mutex_destroy(&d->trig_lock);
}
