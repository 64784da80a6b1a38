/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Waitable objects: the part CQs, counters and EQs share (libfabric's
 * util providers share theirs as util_wait / util_cq / util_cntr): the
 * wait object (an eventfd: FI_WAIT_FD, and FI_WAIT_SET members, which a
 * wait set polls together; fi_cq_sread, fi_cntr_wait, fi_eq_sread sleep
 * on it), wait set membership, the endpoints bound to the object (reading
 * it progresses them), its references, FI_GETWAIT / FI_GETWAITOBJ, and
 * the readiness poll and wait sets and fi_trywait judge it by.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "uet_ofi_private.h"

/* ---- eventfd wait objects ---- */

int
uet_ofi_efd_open(void)
{
	int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

void
uet_ofi_efd_signal(int fd)
{
	uint64_t one = 1;

	if (fd >= 0)
		(void)!write(fd, &one, sizeof(one));
}

void
uet_ofi_efd_drain(int fd)
{
	uint64_t v;

	if (fd >= 0)
		(void)!read(fd, &v, sizeof(v));
}

int
uet_ofi_efd_wait(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int rc;

	do {
		rc = poll(&p, 1, ms);
	} while (rc < 0 && errno == EINTR);
	return rc > 0 ? 1 : 0;
}


uint64_t
uet_ofi_deadline(int timeout)
{
	return timeout < 0 ? UINT64_MAX : uet_mono_ms() + (uint64_t)timeout;
}

/* ---- life cycle ---- */

/* The wait object an application asked for, as the object implements
 * it: UNSPEC and YIELD are an FD; mutex/cond and pollfd are not offered. */
static int
wait_obj_resolve(enum fi_wait_obj *wait_obj, struct fid_wait *wait_set)
{
	switch (*wait_obj) {
	case FI_WAIT_NONE:
	case FI_WAIT_FD:
		return 0;
	case FI_WAIT_UNSPEC:
	case FI_WAIT_YIELD:
		*wait_obj = FI_WAIT_FD;
		return 0;
	case FI_WAIT_SET:
		return uet_ofi_waitset_of(wait_set) != NULL ? 0 : -FI_EINVAL;
	default:
		return -FI_ENOSYS;
	}
}

int
uet_ofi_waitable_init(struct uet_ofi_waitable *w, struct fid *fid,
		      const struct uet_ofi_waitable_ops *ops,
		      struct uet_ofi_fabric *fab, bool locked,
		      enum fi_wait_obj *wait_obj, struct fid_wait *wait_set)
{
	int rc = wait_obj_resolve(wait_obj, wait_set);

	if (rc < 0)
		return rc;
	w->fid = fid;
	w->ops = ops;
	w->fab = fab;
	atomic_init(&w->ref, 0);
	w->wait_obj = *wait_obj;
	w->efd = -1;
	w->ws = NULL;
	w->eps = NULL;
	w->nb_eps = w->cap_eps = 0;
	if (w->wait_obj != FI_WAIT_NONE) {
		w->efd = uet_ofi_efd_open();
		if (w->efd < 0)
			return -FI_EMFILE;
	}
	if (w->wait_obj == FI_WAIT_SET) {
		w->ws = uet_ofi_waitset_of(wait_set);
		rc = uet_ofi_waitset_add(w->ws, fid, w->efd);
		if (rc < 0) {
			close(w->efd);
			return rc;
		}
	}
	uet_ofi_lock_init(&w->bind_lock, locked);
	return 0;
}

int
uet_ofi_waitable_fini(struct uet_ofi_waitable *w)
{
	if (atomic_load(&w->ref) > 0)
		return -FI_EBUSY;
	uet_ofi_waitset_del(w->ws, w->fid, w->efd);
	if (w->efd >= 0)
		close(w->efd);
	uet_ofi_lock_fini(&w->bind_lock);
	free(w->eps);
	return 0;
}

struct uet_ofi_waitable *
uet_ofi_waitable_of(struct fid *fid)
{
	switch (fid->fclass) {
	case FI_CLASS_CQ:
		return &container_of(fid, struct uet_ofi_cq, cq_fid.fid)->w;
	case FI_CLASS_CNTR:
		return &container_of(fid, struct uet_ofi_cntr,
				     cntr_fid.fid)->w;
	case FI_CLASS_EQ:
		return &container_of(fid, struct uet_ofi_eq, eq_fid.fid)->w;
	default:
		return NULL;
	}
}

/* ---- bound endpoints and progress ---- */

int
uet_ofi_waitable_ep_add(struct uet_ofi_waitable *w, struct uet_ofi_ep *ep)
{
	int rc = 0;

	uet_ofi_lock(&w->bind_lock);
	for (size_t i = 0; i < w->nb_eps; i++)
		if (w->eps[i] == ep)
			goto out; /* bound for both directions */
	if (w->nb_eps == w->cap_eps) {
		size_t cap = w->cap_eps ? w->cap_eps * 2 : 8;
		struct uet_ofi_ep **n = realloc(w->eps, cap * sizeof(*n));

		if (n == NULL) {
			rc = -FI_ENOMEM;
			goto out;
		}
		w->eps = n;
		w->cap_eps = cap;
	}
	w->eps[w->nb_eps++] = ep;
	atomic_fetch_add(&w->ref, 1);
out:
	uet_ofi_unlock(&w->bind_lock);
	return rc;
}

void
uet_ofi_waitable_ep_del(struct uet_ofi_waitable *w, struct uet_ofi_ep *ep)
{
	uet_ofi_lock(&w->bind_lock);
	for (size_t i = 0; i < w->nb_eps; i++) {
		if (w->eps[i] == ep) {
			w->eps[i] = w->eps[--w->nb_eps];
			atomic_fetch_sub(&w->ref, 1);
			break;
		}
	}
	uet_ofi_unlock(&w->bind_lock);
}

void
uet_ofi_waitable_progress(struct uet_ofi_waitable *w)
{
	if (w->fab == NULL)
		return;
	uet_ofi_fabric_progress(w->fab);
	uet_ofi_lock(&w->bind_lock);
	for (size_t i = 0; i < w->nb_eps; i++)
		uet_ofi_ep_progress(w->eps[i]);
	uet_ofi_unlock(&w->bind_lock);
}

bool
uet_ofi_waitable_ready(struct uet_ofi_waitable *w, uint64_t *seen,
		       bool consume)
{
	uint64_t v;

	uet_ofi_waitable_progress(w);
	if (w->ops->pending != NULL)
		return w->ops->pending(w);
	v = w->ops->stamp(w);
	if (v == *seen)
		return false;
	if (consume)
		*seen = v;
	return true;
}

/* ---- waiting ---- */

void
uet_ofi_waitable_signal(struct uet_ofi_waitable *w)
{
	uet_ofi_efd_signal(w->efd);
}

bool
uet_ofi_waitable_sleep(struct uet_ofi_waitable *w, uint64_t deadline,
		       int slice_ms)
{
	uint64_t now = uet_mono_ms();

	if (now >= deadline)
		return false;
	if (deadline - now < (uint64_t)slice_ms)
		slice_ms = (int)(deadline - now);
	uet_ofi_efd_wait(w->efd, slice_ms);
	uet_ofi_efd_drain(w->efd);
	return true;
}

int
uet_ofi_waitable_control(struct fid *fid, int command, void *arg)
{
	struct uet_ofi_waitable *w = uet_ofi_waitable_of(fid);

	switch (command) {
	case FI_GETWAIT:
		if (w->efd < 0 || arg == NULL)
			return -FI_ENODATA;
		*(int *)arg = w->efd;
		return 0;
	case FI_GETWAITOBJ:
		if (arg == NULL)
			return -FI_EINVAL;
		*(enum fi_wait_obj *)arg = w->wait_obj;
		return 0;
	default:
		return -FI_ENOSYS;
	}
}
