/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Counter: success and error counts (atomics), bumped by endpoint
 * progress; fi_cntr_read progresses the bound endpoints (and, in inline
 * mode, the engine). fi_cntr_wait polls in short slices on an eventfd.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "uet_ofi_priv.h"

void
uet_ofi_cntr_inc(struct uet_ofi_cntr *c)
{
	atomic_fetch_add(&c->val, 1);
	uet_ofi_efd_signal(c->efd);
}

void
uet_ofi_cntr_inc_err(struct uet_ofi_cntr *c)
{
	atomic_fetch_add(&c->err, 1);
	uet_ofi_efd_signal(c->efd);
}

int
uet_ofi_cntr_ep_add(struct uet_ofi_cntr *c, struct uet_ofi_ep *ep)
{
	int rc = 0;

	uet_ofi_lock(&c->bind_lock);
	for (size_t i = 0; i < c->nb_eps; i++)
		if (c->eps[i] == ep)
			goto out;
	if (c->nb_eps == c->cap_eps) {
		size_t cap = c->cap_eps ? c->cap_eps * 2 : 8;
		struct uet_ofi_ep **n = realloc(c->eps, cap * sizeof(*n));

		if (n == NULL) {
			rc = -FI_ENOMEM;
			goto out;
		}
		c->eps = n;
		c->cap_eps = cap;
	}
	c->eps[c->nb_eps++] = ep;
	atomic_fetch_add(&c->ref, 1);
out:
	uet_ofi_unlock(&c->bind_lock);
	return rc;
}

void
uet_ofi_cntr_ep_del(struct uet_ofi_cntr *c, struct uet_ofi_ep *ep)
{
	uet_ofi_lock(&c->bind_lock);
	for (size_t i = 0; i < c->nb_eps; i++) {
		if (c->eps[i] == ep) {
			c->eps[i] = c->eps[--c->nb_eps];
			atomic_fetch_sub(&c->ref, 1);
			break;
		}
	}
	uet_ofi_unlock(&c->bind_lock);
}

static void
cntr_progress(struct uet_ofi_cntr *c)
{
	uet_ofi_fabric_progress(c->dom->fab);
	uet_ofi_lock(&c->bind_lock);
	for (size_t i = 0; i < c->nb_eps; i++)
		uet_ofi_ep_progress(c->eps[i]);
	uet_ofi_unlock(&c->bind_lock);
}

uint64_t
uet_ofi_cntr_stamp(struct uet_ofi_cntr *c)
{
	cntr_progress(c);
	return atomic_load(&c->val) + atomic_load(&c->err);
}

static uint64_t
cntr_read(struct fid_cntr *fid)
{
	struct uet_ofi_cntr *c = container_of(fid, struct uet_ofi_cntr, cntr_fid);

	cntr_progress(c);
	return atomic_load(&c->val);
}

static uint64_t
cntr_readerr(struct fid_cntr *fid)
{
	struct uet_ofi_cntr *c = container_of(fid, struct uet_ofi_cntr, cntr_fid);

	cntr_progress(c);
	return atomic_load(&c->err);
}

static int
cntr_add(struct fid_cntr *fid, uint64_t value)
{
	struct uet_ofi_cntr *c = container_of(fid, struct uet_ofi_cntr, cntr_fid);

	atomic_fetch_add(&c->val, value);
	uet_ofi_efd_signal(c->efd);
	return 0;
}

static int
cntr_set(struct fid_cntr *fid, uint64_t value)
{
	struct uet_ofi_cntr *c = container_of(fid, struct uet_ofi_cntr, cntr_fid);

	atomic_store(&c->val, value);
	uet_ofi_efd_signal(c->efd);
	return 0;
}

static int
cntr_adderr(struct fid_cntr *fid, uint64_t value)
{
	struct uet_ofi_cntr *c = container_of(fid, struct uet_ofi_cntr, cntr_fid);

	atomic_fetch_add(&c->err, value);
	uet_ofi_efd_signal(c->efd);
	return 0;
}

static int
cntr_seterr(struct fid_cntr *fid, uint64_t value)
{
	struct uet_ofi_cntr *c = container_of(fid, struct uet_ofi_cntr, cntr_fid);

	atomic_store(&c->err, value);
	uet_ofi_efd_signal(c->efd);
	return 0;
}

static int
cntr_wait(struct fid_cntr *fid, uint64_t threshold, int timeout)
{
	struct uet_ofi_cntr *c = container_of(fid, struct uet_ofi_cntr, cntr_fid);
	uint64_t deadline = timeout < 0 ? UINT64_MAX :
				uet_ofi_now_ms() + (uint64_t)timeout;
	uint64_t err0 = atomic_load(&c->err);

	if (c->attr.wait_obj == FI_WAIT_NONE)
		return -FI_EINVAL;
	for (;;) {
		uint64_t now;

		cntr_progress(c);
		if (atomic_load(&c->val) >= threshold)
			return 0;
		if (atomic_load(&c->err) != err0)
			return -FI_EAVAIL;
		now = uet_ofi_now_ms();
		if (now >= deadline)
			return -FI_ETIMEDOUT;
		uet_ofi_efd_wait(c->efd, 1);
		uet_ofi_efd_drain(c->efd);
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
cntr_control(struct fid *fid, int command, void *arg)
{
	struct uet_ofi_cntr *c =
		container_of(fid, struct uet_ofi_cntr, cntr_fid.fid);

	switch (command) {
	case FI_GETWAIT:
		if (c->efd < 0 || arg == NULL)
			return -FI_ENODATA;
		*(int *)arg = c->efd;
		return 0;
	case FI_GETWAITOBJ:
		if (arg == NULL)
			return -FI_EINVAL;
		*(enum fi_wait_obj *)arg = c->attr.wait_obj;
		return 0;
	default:
		return -FI_ENOSYS;
	}
}

static int
cntr_close(struct fid *fid)
{
	struct uet_ofi_cntr *c =
		container_of(fid, struct uet_ofi_cntr, cntr_fid.fid);

	if (atomic_load(&c->ref) > 0)
		return -FI_EBUSY;
	uet_ofi_waitset_del(c->ws, &c->cntr_fid.fid, c->efd);
	if (c->efd >= 0)
		close(c->efd);
	atomic_fetch_sub(&c->dom->ref, 1);
	uet_ofi_lock_fini(&c->bind_lock);
	free(c->eps);
	free(c);
	return 0;
}

static struct fi_ops cntr_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = cntr_close,
	.bind = uet_ofi_fid_bind_enosys,
	.control = cntr_control,
	.ops_open = uet_ofi_fid_ops_open_enosys,
	.tostr = uet_ofi_fid_tostr_enosys,
	.ops_set = uet_ofi_fid_ops_set_enosys,
};

int
uet_ofi_cntr_open(struct fid_domain *domain, struct fi_cntr_attr *attr,
		  struct fid_cntr **cntr, void *context)
{
	struct uet_ofi_domain *d =
		container_of(domain, struct uet_ofi_domain, dom_fid);
	struct fi_cntr_attr a = { .events = FI_CNTR_EVENTS_COMP,
				  .wait_obj = FI_WAIT_UNSPEC };
	struct uet_ofi_cntr *c;
	int fd = -1;

	if (attr != NULL)
		a = *attr;
	if (a.events != FI_CNTR_EVENTS_COMP)
		return -FI_ENOSYS;
	switch (a.wait_obj) {
	case FI_WAIT_NONE:
		break;
	case FI_WAIT_UNSPEC:
	case FI_WAIT_FD:
	case FI_WAIT_YIELD:
		a.wait_obj = FI_WAIT_FD;
		/* fall through */
	case FI_WAIT_SET:
		if (a.wait_obj == FI_WAIT_SET &&
		    uet_ofi_waitset_of(a.wait_set) == NULL)
			return -FI_EINVAL;
		fd = uet_ofi_efd_open();
		if (fd < 0)
			return -FI_EMFILE;
		break;
	default:
		return -FI_ENOSYS;
	}
	c = calloc(1, sizeof(*c));
	if (c == NULL) {
		if (fd >= 0)
			close(fd);
		return -FI_ENOMEM;
	}
	c->dom = d;
	c->attr = a;
	c->efd = fd;
	if (a.wait_obj == FI_WAIT_SET) {
		int rc;

		c->ws = uet_ofi_waitset_of(a.wait_set);
		rc = uet_ofi_waitset_add(c->ws, &c->cntr_fid.fid, fd);
		if (rc < 0) {
			close(fd);
			free(c);
			return rc;
		}
	}
	uet_ofi_lock_init(&c->bind_lock, !uet_ofi_lockless(d));
	c->cntr_fid.fid.fclass = FI_CLASS_CNTR;
	c->cntr_fid.fid.context = context;
	c->cntr_fid.fid.ops = &cntr_fi_ops;
	c->cntr_fid.ops = &cntr_ops;
	atomic_fetch_add(&d->ref, 1);
	*cntr = &c->cntr_fid;
	return 0;
}
