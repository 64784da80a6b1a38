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
#include <stddef.h>
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
	union {
		struct iovec iov[UET_OFI_IOV_MAX];
		struct fi_ioc ioc[UET_OFI_IOV_MAX];
	} local;
	void *desc[UET_OFI_IOV_MAX];
	union {
		struct fi_rma_iov iov[UET_OFI_IOV_MAX];
		struct fi_rma_ioc ioc[UET_OFI_IOV_MAX];
	} remote;
	/* fetching and compare atomics */
	struct fi_ioc cmp[UET_OFI_IOV_MAX], res[UET_OFI_IOV_MAX];
	void *cmp_desc[UET_OFI_IOV_MAX], *res_desc[UET_OFI_IOV_MAX];
	size_t nb_cmp, nb_res;
};

/*
 * One op kind, one row: the fi_msg* struct its call passes and where that
 * struct keeps its arrays (offsets of msg_iov, desc, iov_count, context,
 * and of rma_iov, rma_iov_count when it has remote ones), and where its
 * completion goes when a held post fails.
 */
struct trig_kind {
	size_t size;             /* the message struct */
	size_t iov, desc, count, context;
	size_t iov_size;         /* an entry of msg_iov */
	size_t rma, rma_count;   /* 0: no rma_iov (msg_iov comes first) */
	size_t rma_size;
	bool rx;                 /* the receive CQ, else the transmit one */
	enum uet_ofi_cntr_kind cntr;
	uint64_t cq_flags;
};

#define TRIG_LOCAL(T, entry) \
	.size = sizeof(T), .iov = offsetof(T, msg_iov), \
	.desc = offsetof(T, desc), .count = offsetof(T, iov_count), \
	.context = offsetof(T, context), .iov_size = sizeof(entry)
#define TRIG_REMOTE(T, entry) \
	.rma = offsetof(T, rma_iov), .rma_count = offsetof(T, rma_iov_count), \
	.rma_size = sizeof(entry)
#define TRIG_MSG TRIG_LOCAL(struct fi_msg, struct iovec)
#define TRIG_TAGGED TRIG_LOCAL(struct fi_msg_tagged, struct iovec)
#define TRIG_RMA TRIG_LOCAL(struct fi_msg_rma, struct iovec), \
	TRIG_REMOTE(struct fi_msg_rma, struct fi_rma_iov)
#define TRIG_ATOMIC TRIG_LOCAL(struct fi_msg_atomic, struct fi_ioc), \
	TRIG_REMOTE(struct fi_msg_atomic, struct fi_rma_ioc)

static const struct trig_kind trig_kinds[] = {
	[FI_OP_RECV] = { TRIG_MSG, .rx = true, .cntr = UET_OFI_CNTR_RECV,
			 .cq_flags = FI_RECV | FI_MSG },
	[FI_OP_SEND] = { TRIG_MSG, .cntr = UET_OFI_CNTR_SEND,
			 .cq_flags = FI_SEND | FI_MSG },
	[FI_OP_TRECV] = { TRIG_TAGGED, .rx = true, .cntr = UET_OFI_CNTR_RECV,
			  .cq_flags = FI_RECV | FI_TAGGED },
	[FI_OP_TSEND] = { TRIG_TAGGED, .cntr = UET_OFI_CNTR_SEND,
			  .cq_flags = FI_SEND | FI_TAGGED },
	[FI_OP_READ] = { TRIG_RMA, .cntr = UET_OFI_CNTR_READ,
			 .cq_flags = FI_READ | FI_RMA },
	[FI_OP_WRITE] = { TRIG_RMA, .cntr = UET_OFI_CNTR_WRITE,
			  .cq_flags = FI_WRITE | FI_RMA },
	[FI_OP_ATOMIC] = { TRIG_ATOMIC, .cntr = UET_OFI_CNTR_WRITE,
			   .cq_flags = FI_WRITE | FI_ATOMIC },
	[FI_OP_FETCH_ATOMIC] = { TRIG_ATOMIC, .cntr = UET_OFI_CNTR_READ,
				 .cq_flags = FI_READ | FI_ATOMIC },
	[FI_OP_COMPARE_ATOMIC] = { TRIG_ATOMIC, .cntr = UET_OFI_CNTR_READ,
				   .cq_flags = FI_READ | FI_ATOMIC },
};

/* The pointer-sized field at @p off of message @p m (memcpy: the field
 * is a pointer or a size_t of any of the fi_msg* structs). */
static void *
field_ptr(const void *m, size_t off)
{
	void *p;

	memcpy(&p, (const uint8_t *)m + off, sizeof(p));
	return p;
}

static size_t
field_count(const void *m, size_t off)
{
	size_t n;

	memcpy(&n, (const uint8_t *)m + off, sizeof(n));
	return n;
}

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

/* The array field at @p off of message @p m, @p n entries of @p size
 * bytes, copied into @p dst; the field then points to the copy. */
static void
field_copy(void *m, size_t off, void *dst, size_t n, size_t size, int *rc)
{
	void *p = arr_copy(dst, field_ptr(m, off), n, size, rc);

	memcpy((uint8_t *)m + off, &p, sizeof(p));
}

/* The call's message and every array it points to, by its kind's row. */
static int
copy_call(struct uet_ofi_trig *t, const struct uet_ofi_trig_call *c)
{
	const struct trig_kind *k = &trig_kinds[t->kind];
	size_t n;
	int rc = 0;

	memcpy(&t->m, c->msg, k->size);
	n = field_count(&t->m, k->count);
	field_copy(&t->m, k->iov, &t->local, n, k->iov_size, &rc);
	field_copy(&t->m, k->desc, t->desc, n, sizeof(t->desc[0]), &rc);
	if (k->rma != 0)
		field_copy(&t->m, k->rma, &t->remote,
			   field_count(&t->m, k->rma_count), k->rma_size, &rc);
	/* fetching and compare atomics (none for the other kinds) */
	t->nb_cmp = c->nb_cmp;
	t->nb_res = c->nb_res;
	(void)arr_copy(t->cmp, c->cmp, c->nb_cmp, sizeof(t->cmp[0]), &rc);
	(void)arr_copy(t->cmp_desc, c->cmp_desc, c->nb_cmp,
		       sizeof(t->cmp_desc[0]), &rc);
	(void)arr_copy(t->res, c->res, c->nb_res, sizeof(t->res[0]), &rc);
	(void)arr_copy(t->res_desc, c->res_desc, c->nb_res,
		       sizeof(t->res_desc[0]), &rc);
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

/*
 * A triggered post that failed (not -FI_EAGAIN): the operation completes
 * in error, on the CQ and the counter its completion would have used;
 * no CQ (or no room for the entry): the counter's error count alone.
 */
static void
trig_fail(struct uet_ofi_trig *t, ssize_t rc)
{
	const struct trig_kind *k = &trig_kinds[t->kind];
	struct uet_ofi_cq *cq = k->rx ? t->ep->rx_cq : t->ep->tx_cq;
	struct uet_ofi_cntr *cntr = t->ep->cntr[k->cntr];
	struct uet_ofi_cq_entry e;

	FI_WARN(&uet_prov, FI_LOG_EP_DATA,
		"triggered operation (threshold %llu reached) failed to "
		"post: %s\n", (unsigned long long)t->threshold,
		fi_strerror((int)-rc));
	if (cq != NULL && uet_ofi_cq_reserve_unsolicited(cq) == 0) {
		memset(&e, 0, sizeof(e));
		e.op_context = field_ptr(&t->m, k->context);
		e.flags = k->cq_flags;
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
	    tc->event_type != FI_TRIGGER_THRESHOLD ||
	    (size_t)c->kind >= sizeof(trig_kinds) / sizeof(trig_kinds[0]) ||
	    trig_kinds[c->kind].size == 0)
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
