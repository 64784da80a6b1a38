/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Completion queue. Completions come from the CQ rings of the channels of
 * the endpoints bound to it (uet_ofi_ep_progress) into a fixed array of
 * `size` entries. Every operation reserves its slot when it is submitted
 * (FI_RM_ENABLED), so the array never overruns: submission returns
 * -FI_EAGAIN when the CQ has no unreserved slot. Entries no operation
 * posted (remote CQ data of a peer's write, the extra completions of a
 * multi-receive buffer) take a slot of a second `size` behind those:
 * otherwise receives posted up to the CQ's size would hold every slot
 * and such an entry would wait for a completion that needs it first
 * (fi_ubertest's writedata ping-pong waited for good). Errors stay in
 * order with successes: fi_cq_read returns -FI_EAVAIL when the next entry
 * is an error. A failed fi_inject* has no entry (no context to give: an
 * error entry with a NULL op_context crashed Open MPI 4.1's mtl ofi,
 * which dereferences it), but is not lost in silence either: the next
 * read that finds no entry returns -FI_EIO once (Open MPI then aborts
 * the job with the error, instead of waiting for good for an answer to a
 * message that never left).
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "uet_ofi_private.h"

static int
cq_reserve_below(struct uet_ofi_cq *cq, size_t limit)
{
	int rc = 0;

	uet_ofi_lock(&cq->lock);
	if (cq->reserved >= limit)
		rc = -FI_EAGAIN;
	else
		cq->reserved++;
	uet_ofi_unlock(&cq->lock);
	return rc;
}

int
uet_ofi_cq_reserve(struct uet_ofi_cq *cq)
{
	return cq_reserve_below(cq, cq->size);
}

int
uet_ofi_cq_reserve_unsolicited(struct uet_ofi_cq *cq)
{
	return cq_reserve_below(cq, cq->cap);
}

void
uet_ofi_cq_unreserve(struct uet_ofi_cq *cq)
{
	uet_ofi_lock(&cq->lock);
	if (cq->reserved > cq->count)
		cq->reserved--;
	uet_ofi_unlock(&cq->lock);
}

void
uet_ofi_cq_push(struct uet_ofi_cq *cq, const struct uet_ofi_cq_entry *e)
{
	uet_ofi_lock(&cq->lock);
	if (cq->count >= cq->cap) {
		/* unreachable while reservations hold; counted, not fatal */
		cq->overruns++;
		uet_ofi_unlock(&cq->lock);
		return;
	}
	cq->ent[(cq->head + cq->count) % cq->cap] = *e;
	cq->count++;
	uet_ofi_unlock(&cq->lock);
	uet_ofi_waitable_signal(&cq->w);
}

void
uet_ofi_cq_lost(struct uet_ofi_cq *cq)
{
	uet_ofi_lock(&cq->lock);
	cq->lost++;
	uet_ofi_unlock(&cq->lock);
	uet_ofi_waitable_signal(&cq->w);
}

static bool
cq_pending(struct uet_ofi_waitable *w)
{
	struct uet_ofi_cq *cq = container_of(w, struct uet_ofi_cq, w);
	bool any;

	uet_ofi_lock(&cq->lock);
	any = cq->count > 0 || cq->lost > 0;
	uet_ofi_unlock(&cq->lock);
	return any;
}

static const struct uet_ofi_waitable_ops cq_waitable_ops = {
	.pending = cq_pending,
};

/* Per thread: since when its fi_cq_read calls found nothing (0: the
 * last one found something); whether its last sched_yield() gave the CPU
 * to another thread. */
static __thread uint64_t cq_empty_since;
static __thread bool cq_yield_gave;

/* The shortest of a few system calls that never switch (getppid), ns: a
 * sched_yield() that nobody took the CPU from costs about as much; one
 * that ran another thread costs that thread's turn and two switches
 * more (on the project's VM: 0.9 us, a yield alone 1.3 us at the median,
 * 2.2 us at the 99th percentile, a yield to a thread that yields straight
 * back 4.2 us at the 10th). */
static uint64_t cq_syscall_ns;
static pthread_once_t cq_syscall_once = PTHREAD_ONCE_INIT;

static void
cq_syscall_measure(void)
{
	uint64_t t, d, min = UINT64_MAX;
	unsigned int i;

	for (i = 0; i < 16; i++) {
		t = uet_mono_ns();
		(void)syscall(SYS_getppid);
		d = uet_mono_ns() - t;
		if (d < min)
			min = d;
	}
	cq_syscall_ns = min;
}

/*
 * Nothing to read with AUTO progress: the completion comes from an
 * engine lcore. An application polling in a tight loop on a machine with
 * fewer cores than busy threads would hold its core for a whole scheduler
 * slice (ms) while that lcore, or the peer process it waits for, needs
 * it: give the CPU away (PROVIDER.md "Progress", POLL_YIELD).
 *
 * A sched_yield() is a system call, though (1.3 us on the project's VM),
 * and a thread alone on its CPU that yields at every empty read of a
 * ping-pong spent a third of its time in it and saw each answer up to a
 * yield late. So a thread whose last yield came back at once (nobody
 * else wanted the CPU: within twice a plain system call) yields again
 * only once it has found nothing for POLL_YIELD_SPIN; one whose last
 * yield gave the CPU away (two clients of a service polling on one CPU,
 * an awake lcore) yields at every empty read, as each answer may need
 * the thread it yields to. A yield taken for one that gave is harmless
 * (the next one tells); the other way round would cost a spin per
 * answer, so the bound errs low.
 */
static void
cq_idle(const struct uet_ofi_cq *cq)
{
	const struct uet_ofi_params *p = uet_ofi_params();
	uint64_t now, d;

	if (cq->dom->fab->inline_progress || !p->poll_yield)
		return;
	if (p->poll_yield_spin_ns == 0) {
		(void)sched_yield();
		return;
	}
	if (!cq_yield_gave) {
		now = uet_mono_ns();
		if (cq_empty_since == 0) {
			cq_empty_since = now;
			return;
		}
		if (now - cq_empty_since < p->poll_yield_spin_ns)
			return;
	}
	(void)pthread_once(&cq_syscall_once, cq_syscall_measure);
	now = uet_mono_ns();
	(void)sched_yield();
	d = uet_mono_ns() - now;
	cq_yield_gave = d > 2 * cq_syscall_ns;
}

static void
entry_out(const struct uet_ofi_cq *cq, const struct uet_ofi_cq_entry *e,
	  void *buf, size_t i)
{
	switch (cq->attr.format) {
	case FI_CQ_FORMAT_MSG: {
		struct fi_cq_msg_entry *m = (struct fi_cq_msg_entry *)buf + i;

		m->op_context = e->op_context;
		m->flags = e->flags;
		m->len = e->len;
		break;
	}
	case FI_CQ_FORMAT_DATA: {
		struct fi_cq_data_entry *d = (struct fi_cq_data_entry *)buf + i;

		d->op_context = e->op_context;
		d->flags = e->flags;
		d->len = e->len;
		d->buf = e->buf;
		d->data = e->data;
		break;
	}
	case FI_CQ_FORMAT_TAGGED: {
		struct fi_cq_tagged_entry *t =
			(struct fi_cq_tagged_entry *)buf + i;

		t->op_context = e->op_context;
		t->flags = e->flags;
		t->len = e->len;
		t->buf = e->buf;
		t->data = e->data;
		t->tag = e->tag;
		break;
	}
	default: {
		struct fi_cq_entry *c = (struct fi_cq_entry *)buf + i;

		c->op_context = e->op_context;
		break;
	}
	}
}

static ssize_t
cq_readfrom(struct fid_cq *cq_fid, void *buf, size_t count,
	    fi_addr_t *src_addr)
{
	struct uet_ofi_cq *cq = container_of(cq_fid, struct uet_ofi_cq, cq_fid);
	size_t n = 0;

	uet_ofi_waitable_progress(&cq->w);
	if (count == 0)
		return 0;
	if (buf == NULL)
		return -FI_EINVAL;
	uet_ofi_lock(&cq->lock);
	while (n < count && cq->count > 0) {
		const struct uet_ofi_cq_entry *e = &cq->ent[cq->head];

		if (e->err != 0)
			break;
		entry_out(cq, e, buf, n);
		if (src_addr != NULL)
			src_addr[n] = e->src;
		cq->head = (cq->head + 1) % cq->cap;
		cq->count--;
		cq->reserved--;
		n++;
	}
	if (n == 0 && cq->count > 0) {
		uet_ofi_unlock(&cq->lock);
		return -FI_EAVAIL;
	}
	if (n == 0 && cq->lost > 0) {
		cq->lost = 0;
		uet_ofi_unlock(&cq->lock);
		return -FI_EIO;
	}
	uet_ofi_unlock(&cq->lock);
	if (n == 0) {
		cq_idle(cq);
		return -FI_EAGAIN;
	}
	cq_empty_since = 0;
	return (ssize_t)n;
}

static ssize_t
cq_read(struct fid_cq *cq_fid, void *buf, size_t count)
{
	return cq_readfrom(cq_fid, buf, count, NULL);
}

static ssize_t
cq_readerr(struct fid_cq *cq_fid, struct fi_cq_err_entry *buf, uint64_t flags)
{
	struct uet_ofi_cq *cq = container_of(cq_fid, struct uet_ofi_cq, cq_fid);
	const struct uet_ofi_cq_entry *e;
	uint32_t api = cq->dom->fabh->fabric_fid.api_version;

	(void)flags;
	if (buf == NULL)
		return -FI_EINVAL;
	uet_ofi_lock(&cq->lock);
	if (cq->count == 0 || cq->ent[cq->head].err == 0) {
		uet_ofi_unlock(&cq->lock);
		return -FI_EAGAIN;
	}
	e = &cq->ent[cq->head];
	buf->op_context = e->op_context;
	buf->flags = e->flags;
	buf->len = e->len;
	buf->buf = e->buf;
	buf->data = e->data;
	buf->tag = e->tag;
	buf->olen = e->olen;
	buf->err = e->err;
	buf->prov_errno = e->prov_errno;
	if (api >= FI_VERSION(1, 5))
		buf->err_data_size = 0;
	else
		buf->err_data = NULL;
	cq->head = (cq->head + 1) % cq->cap;
	cq->count--;
	cq->reserved--;
	uet_ofi_unlock(&cq->lock);
	return 1;
}

static ssize_t
cq_sreadfrom(struct fid_cq *cq_fid, void *buf, size_t count,
	     fi_addr_t *src_addr, const void *cond, int timeout)
{
	struct uet_ofi_cq *cq = container_of(cq_fid, struct uet_ofi_cq, cq_fid);
	uint64_t deadline = uet_ofi_deadline(timeout);
	ssize_t rc;

	(void)cond;
	if (cq->attr.wait_obj == FI_WAIT_NONE)
		return -FI_EINVAL;
	for (;;) {
		rc = cq_readfrom(cq_fid, buf, count, src_addr);
		if (rc != -FI_EAGAIN || count == 0)
			return rc;
		if (atomic_exchange(&cq->signaled, false) ||
		    !uet_ofi_waitable_sleep(&cq->w, deadline, 1))
			return -FI_EAGAIN;
	}
}

static ssize_t
cq_sread(struct fid_cq *cq_fid, void *buf, size_t count, const void *cond,
	 int timeout)
{
	return cq_sreadfrom(cq_fid, buf, count, NULL, cond, timeout);
}

static int
cq_signal(struct fid_cq *cq_fid)
{
	struct uet_ofi_cq *cq = container_of(cq_fid, struct uet_ofi_cq, cq_fid);

	atomic_store(&cq->signaled, true);
	uet_ofi_waitable_signal(&cq->w);
	return 0;
}

void
uet_ofi_prov_strerror(int prov_errno, char *out, size_t n)
{
	if (prov_errno > UET_RC_OK && prov_errno <= 0xFF)
		snprintf(out, n, "UET %s (0x%02x) from the target",
			 uet_wire_ses_rc_name((unsigned int)prov_errno),
			 (unsigned int)prov_errno);
	else if (prov_errno == UET_OFI_PROV_SERVICE_LOST)
		snprintf(out, n, "service lost: the uet-engine service this "
			 "process was attached to went away");
	else if (prov_errno == -FI_ETIMEDOUT)
		snprintf(out, n, "timed out: the peer acknowledged nothing "
			 "within the PDS retransmissions (timers.rto_init, "
			 "timers.rto_max_retries)");
	else if (prov_errno < 0)
		snprintf(out, n, "local: %s", fi_strerror(-prov_errno));
	else
		snprintf(out, n, "UET provider error %d", prov_errno);
}

static const char *
cq_strerror(struct fid_cq *cq_fid, int prov_errno, const void *err_data,
	    char *buf, size_t len)
{
	static __thread char tls[160];
	char *out = buf != NULL && len > 0 ? buf : tls;
	size_t n = buf != NULL && len > 0 ? len : sizeof(tls);

	(void)cq_fid; (void)err_data;
	uet_ofi_prov_strerror(prov_errno, out, n);
	return out;
}

static struct fi_ops_cq cq_ops = {
	.size = sizeof(struct fi_ops_cq),
	.read = cq_read,
	.readfrom = cq_readfrom,
	.readerr = cq_readerr,
	.sread = cq_sread,
	.sreadfrom = cq_sreadfrom,
	.signal = cq_signal,
	.strerror = cq_strerror,
};

/* ---- provider extension: inject completions (tests, diagnostics) ---- */

static int
ext_write(void *fid, void *op_context, uint64_t flags, size_t len, void *buf,
	  uint64_t data, uint64_t tag, uint64_t src_addr)
{
	struct uet_ofi_cq *cq = container_of(fid, struct uet_ofi_cq, cq_fid);
	struct uet_ofi_cq_entry e = {
		.op_context = op_context, .flags = flags, .len = len,
		.buf = buf, .data = data, .tag = tag, .src = src_addr,
	};

	if (uet_ofi_cq_reserve(cq) < 0)
		return -FI_EAGAIN;
	uet_ofi_cq_push(cq, &e);
	return 0;
}

static int
ext_writeerr(void *fid, void *op_context, uint64_t flags, int err,
	     int prov_errno, size_t olen)
{
	struct uet_ofi_cq *cq = container_of(fid, struct uet_ofi_cq, cq_fid);
	struct uet_ofi_cq_entry e = {
		.op_context = op_context, .flags = flags,
		.err = err != 0 ? (err < 0 ? -err : err) : FI_EOTHER,
		.prov_errno = prov_errno, .olen = olen, .src = FI_ADDR_NOTAVAIL,
	};

	if (uet_ofi_cq_reserve(cq) < 0)
		return -FI_EAGAIN;
	uet_ofi_cq_push(cq, &e);
	return 0;
}

static const struct uet_ofi_cq_ops cq_ext_ops = {
	.size = sizeof(struct uet_ofi_cq_ops),
	.write = ext_write,
	.writeerr = ext_writeerr,
};

static int
cq_ops_open(struct fid *fid, const char *name, uint64_t flags, void **ops,
	    void *context)
{
	(void)fid; (void)flags; (void)context;
	if (name == NULL || ops == NULL)
		return -FI_EINVAL;
	if (strcmp(name, UET_OFI_CQ_OPS_NAME) != 0)
		return -FI_ENOSYS;
	*ops = (void *)(uintptr_t)&cq_ext_ops;
	return 0;
}

static int
cq_close(struct fid *fid)
{
	struct uet_ofi_cq *cq = container_of(fid, struct uet_ofi_cq, cq_fid.fid);
	int rc = uet_ofi_waitable_fini(&cq->w);

	if (rc < 0)
		return rc;
	atomic_fetch_sub(&cq->dom->ref, 1);
	uet_ofi_lock_fini(&cq->lock);
	free(cq->ent);
	free(cq);
	return 0;
}

static struct fi_ops cq_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = cq_close,
	.bind = uet_ofi_fid_bind_enosys,
	.control = uet_ofi_waitable_control,
	.ops_open = cq_ops_open,
	.tostr = uet_ofi_fid_tostr_enosys,
	.ops_set = uet_ofi_fid_ops_set_enosys,
};

int
uet_ofi_cq_open(struct fid_domain *domain, struct fi_cq_attr *attr,
		struct fid_cq **cq_fid, void *context)
{
	struct uet_ofi_domain *d =
		container_of(domain, struct uet_ofi_domain, dom_fid);
	struct uet_ofi_cq *cq;
	struct fi_cq_attr a;
	int rc;

	if (attr == NULL)
		return -FI_EINVAL;
	a = *attr;
	switch (a.format) {
	case FI_CQ_FORMAT_UNSPEC:
		a.format = FI_CQ_FORMAT_CONTEXT;
		break;
	case FI_CQ_FORMAT_CONTEXT:
	case FI_CQ_FORMAT_MSG:
	case FI_CQ_FORMAT_DATA:
	case FI_CQ_FORMAT_TAGGED:
		break;
	default:
		return -FI_ENOSYS;
	}
	if (a.wait_cond != FI_CQ_COND_NONE)
		return -FI_ENOSYS;
	if (a.size == 0)
		a.size = UET_OFI_CQ_SIZE_DEF;
	if (a.size > UET_OFI_CQ_SIZE_MAX)
		return -FI_EINVAL;
	cq = calloc(1, sizeof(*cq));
	if (cq == NULL)
		return -FI_ENOMEM;
	cq->ent = calloc(2 * a.size, sizeof(*cq->ent));
	if (cq->ent == NULL) {
		free(cq);
		return -FI_ENOMEM;
	}
	rc = uet_ofi_waitable_init(&cq->w, &cq->cq_fid.fid, &cq_waitable_ops,
				   d->fab, !uet_ofi_lockless(d), &a.wait_obj,
				   a.wait_set);
	if (rc < 0) {
		free(cq->ent);
		free(cq);
		return rc;
	}
	cq->dom = d;
	cq->attr = a;
	cq->size = a.size;
	cq->cap = 2 * a.size;
	uet_ofi_lock_init(&cq->lock, !uet_ofi_lockless(d));
	cq->cq_fid.fid.fclass = FI_CLASS_CQ;
	cq->cq_fid.fid.context = context;
	cq->cq_fid.fid.ops = &cq_fi_ops;
	cq->cq_fid.ops = &cq_ops;
	atomic_fetch_add(&d->ref, 1);
	*cq_fid = &cq->cq_fid;
	return 0;
}
