/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Poll sets (fi_poll_open: fi_poll returns the contexts of the member CQs
 * that hold entries and the member counters whose value or error count
 * moved since the last fi_poll) and wait sets (fi_wait_open: CQs,
 * counters and EQs opened with FI_WAIT_SET; fi_wait returns once one of
 * them has something). fi_poll(3), fi_wait(3) / fi_control(FI_GETWAIT).
 *
 * Completions land in channel rings without waking anyone, so both run
 * the members' progress (as fi_cq_read does) and judge by the members'
 * state (uet_ofi_waitable_ready), never by their eventfds alone; fi_wait
 * sleeps on the members' eventfds in slices of 1 ms, as fi_cq_sread
 * does.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "uet_ofi_private.h"

struct set_member {
	struct fid *fid;
	uint64_t seen; /* counters: value + errors at the last report */
};

/* Members of a poll or wait set: a growable array, under the set's lock. */
struct member_set {
	pthread_mutex_t lock;
	struct set_member *m;
	size_t n, cap;
};

static int
members_add(struct member_set *s, struct fid *fid)
{
	int rc = 0;

	pthread_mutex_lock(&s->lock);
	for (size_t i = 0; i < s->n; i++)
		if (s->m[i].fid == fid) {
			rc = -FI_EALREADY;
			goto out;
		}
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 8;
		struct set_member *m = realloc(s->m, cap * sizeof(*m));

		if (m == NULL) {
			rc = -FI_ENOMEM;
			goto out;
		}
		s->m = m;
		s->cap = cap;
	}
	s->m[s->n].fid = fid;
	s->m[s->n].seen = 0;
	s->n++;
out:
	pthread_mutex_unlock(&s->lock);
	return rc;
}

static int
members_del(struct member_set *s, struct fid *fid)
{
	int rc = -FI_ENOENT;

	pthread_mutex_lock(&s->lock);
	for (size_t i = 0; i < s->n; i++)
		if (s->m[i].fid == fid) {
			s->m[i] = s->m[--s->n];
			rc = 0;
			break;
		}
	pthread_mutex_unlock(&s->lock);
	return rc;
}

/*
 * Whether member @p e has something to report (after progress): a CQ
 * with entries, an EQ with events, a counter whose value + errors moved
 * since @p e->seen (updated when @p consume).
 */
static bool
member_ready(struct set_member *e, bool consume)
{
	return uet_ofi_waitable_ready(uet_ofi_waitable_of(e->fid), &e->seen,
				      consume);
}

/* ---- poll sets ---- */

struct uet_ofi_pollset {
	struct fid_poll poll_fid;
	struct uet_ofi_domain *dom;
	struct member_set set;
};

static int
poll_poll(struct fid_poll *pollset, void **context, int count)
{
	struct uet_ofi_pollset *ps =
		container_of(pollset, struct uet_ofi_pollset, poll_fid);
	int n = 0;

	if (count < 0 || (count > 0 && context == NULL))
		return -FI_EINVAL;
	pthread_mutex_lock(&ps->set.lock);
	for (size_t i = 0; i < ps->set.n && n < count; i++)
		if (member_ready(&ps->set.m[i], true))
			context[n++] = ps->set.m[i].fid->context;
	pthread_mutex_unlock(&ps->set.lock);
	return n;
}

static int
poll_add(struct fid_poll *pollset, struct fid *fid, uint64_t flags)
{
	struct uet_ofi_pollset *ps =
		container_of(pollset, struct uet_ofi_pollset, poll_fid);
	int rc;

	if (fid == NULL || flags != 0)
		return -FI_EINVAL;
	/* fi_poll(3): CQs and counters */
	if (fid->fclass != FI_CLASS_CQ && fid->fclass != FI_CLASS_CNTR)
		return -FI_EINVAL;
	rc = members_add(&ps->set, fid);
	/* the member cannot close while in the set */
	if (rc == 0)
		atomic_fetch_add(&uet_ofi_waitable_of(fid)->ref, 1);
	return rc;
}

static int
poll_del(struct fid_poll *pollset, struct fid *fid, uint64_t flags)
{
	struct uet_ofi_pollset *ps =
		container_of(pollset, struct uet_ofi_pollset, poll_fid);
	int rc;

	if (fid == NULL || flags != 0)
		return -FI_EINVAL;
	rc = members_del(&ps->set, fid);
	if (rc == 0)
		atomic_fetch_sub(&uet_ofi_waitable_of(fid)->ref, 1);
	return rc;
}

static int
poll_close(struct fid *fid)
{
	struct uet_ofi_pollset *ps =
		container_of(fid, struct uet_ofi_pollset, poll_fid.fid);

	if (ps->set.n > 0)
		return -FI_EBUSY;
	pthread_mutex_destroy(&ps->set.lock);
	free(ps->set.m);
	atomic_fetch_sub(&ps->dom->ref, 1);
	free(ps);
	return 0;
}

static struct fi_ops poll_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = poll_close,
	.bind = uet_ofi_fid_bind_enosys,
	.control = uet_ofi_fid_control_enosys,
	.ops_open = uet_ofi_fid_ops_open_enosys,
	.tostr = uet_ofi_fid_tostr_enosys,
	.ops_set = uet_ofi_fid_ops_set_enosys,
};

static struct fi_ops_poll poll_ops = {
	.size = sizeof(struct fi_ops_poll),
	.poll = poll_poll,
	.poll_add = poll_add,
	.poll_del = poll_del,
};

int
uet_ofi_poll_open(struct fid_domain *domain, struct fi_poll_attr *attr,
		  struct fid_poll **pollset)
{
	struct uet_ofi_domain *d =
		container_of(domain, struct uet_ofi_domain, dom_fid);
	struct uet_ofi_pollset *ps;

	if (pollset == NULL || (attr != NULL && attr->flags != 0))
		return -FI_EINVAL;
	ps = calloc(1, sizeof(*ps));
	if (ps == NULL)
		return -FI_ENOMEM;
	pthread_mutex_init(&ps->set.lock, NULL);
	ps->dom = d;
	ps->poll_fid.fid.fclass = FI_CLASS_POLL;
	ps->poll_fid.fid.ops = &poll_fi_ops;
	ps->poll_fid.ops = &poll_ops;
	atomic_fetch_add(&d->ref, 1);
	*pollset = &ps->poll_fid;
	return 0;
}

/* ---- wait sets ---- */

struct uet_ofi_waitset {
	struct fid_wait wait_fid;
	struct uet_ofi_fabric_hdl *fabh;
	struct member_set set;
	int epfd; /* the members' eventfds: FI_GETWAIT */
};

/* 1 when a member has something, 0 otherwise; drains what woke us. */
static int
wait_check(struct uet_ofi_waitset *ws)
{
	int ready = 0;

	pthread_mutex_lock(&ws->set.lock);
	for (size_t i = 0; i < ws->set.n; i++) {
		uet_ofi_efd_drain(uet_ofi_waitable_of(ws->set.m[i].fid)->efd);
		if (member_ready(&ws->set.m[i], true))
			ready = 1;
	}
	pthread_mutex_unlock(&ws->set.lock);
	return ready;
}

static int
wait_wait(struct fid_wait *waitset, int timeout)
{
	struct uet_ofi_waitset *ws =
		container_of(waitset, struct uet_ofi_waitset, wait_fid);
	uint64_t deadline = uet_ofi_deadline(timeout);
	struct epoll_event ev;

	for (;;) {
		uint64_t now;

		if (wait_check(ws))
			return 0;
		now = uet_mono_ms();
		if (now >= deadline)
			return -FI_ETIMEDOUT;
		(void)epoll_wait(ws->epfd, &ev, 1, 1);
	}
}

static int
wait_control(struct fid *fid, int command, void *arg)
{
	struct uet_ofi_waitset *ws =
		container_of(fid, struct uet_ofi_waitset, wait_fid.fid);

	switch (command) {
	case FI_GETWAIT:
		if (arg == NULL)
			return -FI_EINVAL;
		*(int *)arg = ws->epfd;
		return 0;
	case FI_GETWAITOBJ:
		if (arg == NULL)
			return -FI_EINVAL;
		*(enum fi_wait_obj *)arg = FI_WAIT_FD;
		return 0;
	default:
		return -FI_ENOSYS;
	}
}

static int
wait_close(struct fid *fid)
{
	struct uet_ofi_waitset *ws =
		container_of(fid, struct uet_ofi_waitset, wait_fid.fid);

	if (ws->set.n > 0)
		return -FI_EBUSY;
	close(ws->epfd);
	pthread_mutex_destroy(&ws->set.lock);
	free(ws->set.m);
	atomic_fetch_sub(&ws->fabh->ref, 1);
	free(ws);
	return 0;
}

static struct fi_ops wait_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = wait_close,
	.bind = uet_ofi_fid_bind_enosys,
	.control = wait_control,
	.ops_open = uet_ofi_fid_ops_open_enosys,
	.tostr = uet_ofi_fid_tostr_enosys,
	.ops_set = uet_ofi_fid_ops_set_enosys,
};

static struct fi_ops_wait wait_ops = {
	.size = sizeof(struct fi_ops_wait),
	.wait = wait_wait,
};

int
uet_ofi_wait_open(struct fid_fabric *fabric, struct fi_wait_attr *attr,
		  struct fid_wait **waitset)
{
	struct uet_ofi_fabric_hdl *fabh =
		container_of(fabric, struct uet_ofi_fabric_hdl, fabric_fid);
	struct uet_ofi_waitset *ws;

	if (attr == NULL || waitset == NULL || attr->flags != 0)
		return -FI_EINVAL;
	/* an FD (the members' eventfds under one epoll) */
	if (attr->wait_obj != FI_WAIT_UNSPEC && attr->wait_obj != FI_WAIT_FD)
		return -FI_ENOSYS;
	ws = calloc(1, sizeof(*ws));
	if (ws == NULL)
		return -FI_ENOMEM;
	ws->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (ws->epfd < 0) {
		free(ws);
		return -FI_EMFILE;
	}
	pthread_mutex_init(&ws->set.lock, NULL);
	ws->fabh = fabh;
	ws->wait_fid.fid.fclass = FI_CLASS_WAIT;
	ws->wait_fid.fid.ops = &wait_fi_ops;
	ws->wait_fid.ops = &wait_ops;
	atomic_fetch_add(&fabh->ref, 1);
	*waitset = &ws->wait_fid;
	return 0;
}

struct uet_ofi_waitset *
uet_ofi_waitset_of(struct fid_wait *w)
{
	if (w == NULL || w->fid.fclass != FI_CLASS_WAIT ||
	    w->fid.ops != &wait_fi_ops)
		return NULL;
	return container_of(w, struct uet_ofi_waitset, wait_fid);
}

int
uet_ofi_waitset_add(struct uet_ofi_waitset *ws, struct fid *fid, int efd)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = fid };
	int rc;

	if (epoll_ctl(ws->epfd, EPOLL_CTL_ADD, efd, &ev) < 0)
		return -errno;
	rc = members_add(&ws->set, fid);
	if (rc < 0)
		(void)epoll_ctl(ws->epfd, EPOLL_CTL_DEL, efd, NULL);
	return rc;
}

void
uet_ofi_waitset_del(struct uet_ofi_waitset *ws, struct fid *fid, int efd)
{
	if (ws == NULL)
		return;
	(void)epoll_ctl(ws->epfd, EPOLL_CTL_DEL, efd, NULL);
	(void)members_del(&ws->set, fid);
}
