/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Counter: success and error counts (atomics), bumped by endpoint
 * progress; fi_cntr_read progresses the bound endpoints (and, in inline
 * mode, the engine). fi_cntr_wait polls in short slices on its wait
 * object (uet_waitable.c), or yielding the CPU without one. fi_cntr_add and fi_cntr_set post the
 * triggered operations whose threshold they reach (uet_trigger.c).
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "uet_ofi_private.h"

void
uet_ofi_cntr_inc(struct uet_ofi_cntr *c)
{
	atomic_fetch_add(&c->val, 1);
	uet_ofi_waitable_signal(&c->w);
}

void
uet_ofi_cntr_inc_err(struct uet_ofi_cntr *c)
{
	atomic_fetch_add(&c->err, 1);
	uet_ofi_waitable_signal(&c->w);
}

static uint64_t
cntr_stamp(struct uet_ofi_waitable *w)
{
	struct uet_ofi_cntr *c = container_of(w, struct uet_ofi_cntr, w);

	return atomic_load(&c->val) + atomic_load(&c->err);
}

static const struct uet_ofi_waitable_ops cntr_waitable_ops = {
	.stamp = cntr_stamp,
};

static uint64_t
cntr_read(struct fid_cntr *fid)
{
	struct uet_ofi_cntr *c = container_of(fid, struct uet_ofi_cntr, cntr_fid);

	uet_ofi_waitable_progress(&c->w);
	return atomic_load(&c->val);
}

static uint64_t
cntr_readerr(struct fid_cntr *fid)
{
	struct uet_ofi_cntr *c = container_of(fid, struct uet_ofi_cntr, cntr_fid);

	uet_ofi_waitable_progress(&c->w);
	return atomic_load(&c->err);
}

static int
cntr_add(struct fid_cntr *fid, uint64_t value)
{
	struct uet_ofi_cntr *c = container_of(fid, struct uet_ofi_cntr, cntr_fid);

	atomic_fetch_add(&c->val, value);
	uet_ofi_waitable_signal(&c->w);
	uet_ofi_trig_run(c->dom);
	return 0;
}

static int
cntr_set(struct fid_cntr *fid, uint64_t value)
{
	struct uet_ofi_cntr *c = container_of(fid, struct uet_ofi_cntr, cntr_fid);

	atomic_store(&c->val, value);
	uet_ofi_waitable_signal(&c->w);
	uet_ofi_trig_run(c->dom);
	return 0;
}

static int
cntr_adderr(struct fid_cntr *fid, uint64_t value)
{
	struct uet_ofi_cntr *c = container_of(fid, struct uet_ofi_cntr, cntr_fid);

	atomic_fetch_add(&c->err, value);
	uet_ofi_waitable_signal(&c->w);
	return 0;
}

static int
cntr_seterr(struct fid_cntr *fid, uint64_t value)
{
	struct uet_ofi_cntr *c = container_of(fid, struct uet_ofi_cntr, cntr_fid);

	atomic_store(&c->err, value);
	uet_ofi_waitable_signal(&c->w);
	return 0;
}

static int
cntr_wait(struct fid_cntr *fid, uint64_t threshold, int timeout)
{
	struct uet_ofi_cntr *c = container_of(fid, struct uet_ofi_cntr, cntr_fid);
	uint64_t deadline = uet_ofi_deadline(timeout);
	uint64_t err0 = atomic_load(&c->err);

	for (;;) {
		uet_ofi_waitable_progress(&c->w);
		if (atomic_load(&c->val) >= threshold)
			return 0;
		if (atomic_load(&c->err) != err0)
			return -FI_EAVAIL;
		/* no wait object (FI_WAIT_NONE): fi_cntr(3) calls the wait
		 * invalid there, yet applications (fabtests'
		 * fi_rdm_rma_trigger) wait so: polled, yielding the CPU
		 * between polls, as libfabric's sockets provider does */
		if (c->attr.wait_obj == FI_WAIT_NONE) {
			if (uet_mono_ms() >= deadline)
				return -FI_ETIMEDOUT;
			sched_yield();
		} else if (!uet_ofi_waitable_sleep(&c->w, deadline, 1)) {
			return -FI_ETIMEDOUT;
		}
	}
}

static struct fi_ops_cntr cntr_ops = {
	.size = sizeof(struct fi_ops_cntr),
	.read = cntr_read,
	.readerr = cntr_readerr,
	.add = cntr_add,
	.set = cntr_set,
	.wait = cntr_wait,
	.adderr = cntr_adderr,
	.seterr = cntr_seterr,
};

static int
cntr_close(struct fid *fid)
{
	struct uet_ofi_cntr *c =
		container_of(fid, struct uet_ofi_cntr, cntr_fid.fid);
	int rc;

	/* triggered operations wait for it (their endpoints close first) */
	if (uet_ofi_trig_uses_cntr(c))
		return -FI_EBUSY;
	rc = uet_ofi_waitable_fini(&c->w);
	if (rc < 0)
		return rc;
	atomic_fetch_sub(&c->dom->ref, 1);
	free(c);
	return 0;
}

static struct fi_ops cntr_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = cntr_close,
	.bind = uet_ofi_fid_bind_enosys,
	.control = uet_ofi_waitable_control,
	.ops_open = uet_ofi_fid_ops_open_enosys,
	.tostr = uet_ofi_fid_tostr_enosys,
	.ops_set = uet_ofi_fid_ops_set_enosys,
};

struct uet_ofi_cntr *
uet_ofi_cntr_of(struct fid_cntr *fid)
{
	if (fid == NULL || fid->fid.fclass != FI_CLASS_CNTR ||
	    fid->fid.ops != &cntr_fi_ops)
		return NULL;
	return container_of(fid, struct uet_ofi_cntr, cntr_fid);
}

int
uet_ofi_cntr_open(struct fid_domain *domain, struct fi_cntr_attr *attr,
		  struct fid_cntr **cntr, void *context)
{
	struct uet_ofi_domain *d =
		container_of(domain, struct uet_ofi_domain, dom_fid);
	struct fi_cntr_attr a = { .events = FI_CNTR_EVENTS_COMP,
				  .wait_obj = FI_WAIT_UNSPEC };
	struct uet_ofi_cntr *c;
	int rc;

	if (attr != NULL)
		a = *attr;
	if (a.events != FI_CNTR_EVENTS_COMP)
		return -FI_ENOSYS;
	c = calloc(1, sizeof(*c));
	if (c == NULL)
		return -FI_ENOMEM;
	rc = uet_ofi_waitable_init(&c->w, &c->cntr_fid.fid,
				   &cntr_waitable_ops, d->fab,
				   !uet_ofi_lockless(d), &a.wait_obj,
				   a.wait_set);
	if (rc < 0) {
		free(c);
		return rc;
	}
	c->dom = d;
	c->attr = a;
	c->cntr_fid.fid.fclass = FI_CLASS_CNTR;
	c->cntr_fid.fid.context = context;
	c->cntr_fid.fid.ops = &cntr_fi_ops;
	c->cntr_fid.ops = &cntr_ops;
	atomic_fetch_add(&d->ref, 1);
	*cntr = &c->cntr_fid;
	return 0;
}
