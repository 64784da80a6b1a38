/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Event queue: a bounded FIFO of events (application writes with FI_WRITE,
 * asynchronous AV insert completions), FD wait object.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "uet_ofi_priv.h"

int
uet_ofi_eq_post(struct uet_ofi_eq *eq, uint32_t event, const void *buf,
		size_t len, bool err)
{
	struct uet_ofi_eq_event *ev;

	pthread_mutex_lock(&eq->lock);
	if (eq->count >= eq->attr.size) {
		pthread_mutex_unlock(&eq->lock);
		return -FI_EAGAIN;
	}
	ev = malloc(sizeof(*ev) + len);
	if (ev == NULL) {
		pthread_mutex_unlock(&eq->lock);
		return -FI_ENOMEM;
	}
	ev->next = NULL;
	ev->event = event;
	ev->err = err;
	ev->len = len;
	if (len)
		memcpy(ev->data, buf, len);
	if (eq->tail)
		eq->tail->next = ev;
	else
		eq->head = ev;
	eq->tail = ev;
	eq->count++;
	pthread_mutex_unlock(&eq->lock);
	uet_ofi_efd_signal(eq->efd);
	return 0;
}

static ssize_t
eq_read(struct fid_eq *fid, uint32_t *event, void *buf, size_t len,
	uint64_t flags)
{
	struct uet_ofi_eq *eq = container_of(fid, struct uet_ofi_eq, eq_fid);
	struct uet_ofi_eq_event *ev;
	ssize_t n;

	pthread_mutex_lock(&eq->lock);
	ev = eq->head;
	if (ev == NULL) {
		pthread_mutex_unlock(&eq->lock);
		return -FI_EAGAIN;
	}
	if (ev->err) {
		pthread_mutex_unlock(&eq->lock);
		return -FI_EAVAIL;
	}
	if (len < ev->len) {
		pthread_mutex_unlock(&eq->lock);
		return -FI_ETOOSMALL;
	}
	if (event != NULL)
		*event = ev->event;
	if (ev->len && buf != NULL)
		memcpy(buf, ev->data, ev->len);
	n = (ssize_t)ev->len;
	if (!(flags & FI_PEEK)) {
		eq->head = ev->next;
		if (eq->head == NULL)
			eq->tail = NULL;
		eq->count--;
		free(ev);
	}
	pthread_mutex_unlock(&eq->lock);
	return n;
}

static ssize_t
eq_readerr(struct fid_eq *fid, struct fi_eq_err_entry *buf, uint64_t flags)
{
	struct uet_ofi_eq *eq = container_of(fid, struct uet_ofi_eq, eq_fid);
	struct uet_ofi_eq_event *ev;

	if (buf == NULL)
		return -FI_EINVAL;
	pthread_mutex_lock(&eq->lock);
	ev = eq->head;
	if (ev == NULL || !ev->err) {
		pthread_mutex_unlock(&eq->lock);
		return -FI_EAGAIN;
	}
	memcpy(buf, ev->data, sizeof(*buf));
	buf->err_data = NULL;
	buf->err_data_size = 0;
	if (!(flags & FI_PEEK)) {
		eq->head = ev->next;
		if (eq->head == NULL)
			eq->tail = NULL;
		eq->count--;
		free(ev);
	}
	pthread_mutex_unlock(&eq->lock);
	return (ssize_t)sizeof(*buf);
}

static ssize_t
eq_write(struct fid_eq *fid, uint32_t event, const void *buf, size_t len,
	 uint64_t flags)
{
	struct uet_ofi_eq *eq = container_of(fid, struct uet_ofi_eq, eq_fid);
	struct fi_eq_err_entry err;
	int rc;

	if (!(eq->attr.flags & FI_WRITE))
		return -FI_EINVAL;
	if (flags & UET_OFI_EQ_WRITE_ERR) {
		if (buf == NULL || len < sizeof(err))
			return -FI_EINVAL;
		memcpy(&err, buf, sizeof(err));
		rc = uet_ofi_eq_post(eq, event, &err, sizeof(err), true);
	} else {
		if (len > 0 && buf == NULL)
			return -FI_EINVAL;
		rc = uet_ofi_eq_post(eq, event, buf, len, false);
	}
	return rc < 0 ? rc : (ssize_t)len;
}

static ssize_t
eq_sread(struct fid_eq *fid, uint32_t *event, void *buf, size_t len,
	 int timeout, uint64_t flags)
{
	struct uet_ofi_eq *eq = container_of(fid, struct uet_ofi_eq, eq_fid);
	uint64_t deadline = timeout < 0 ? UINT64_MAX :
				uet_ofi_now_ms() + (uint64_t)timeout;
	ssize_t rc;

	if (eq->attr.wait_obj == FI_WAIT_NONE)
		return -FI_EINVAL;
	for (;;) {
		uint64_t now;

		rc = eq_read(fid, event, buf, len, flags);
		if (rc != -FI_EAGAIN)
			return rc;
		now = uet_ofi_now_ms();
		if (now >= deadline)
			return -FI_EAGAIN;
		uet_ofi_efd_wait(eq->efd, deadline - now > 100 ? 100 :
					  (int)(deadline - now));
		uet_ofi_efd_drain(eq->efd);
	}
}

static const char *
eq_strerror(struct fid_eq *fid, int prov_errno, const void *err_data,
	    char *buf, size_t len)
{
	static __thread char tls[160];
	char *out = buf != NULL && len > 0 ? buf : tls;
	size_t n = buf != NULL && len > 0 ? len : sizeof(tls);

	(void)fid; (void)err_data;
	uet_ofi_prov_strerror(prov_errno, out, n);
	return out;
}

static struct fi_ops_eq eq_ops = {
	.size = sizeof(struct fi_ops_eq),
	.read = eq_read,
	.readerr = eq_readerr,
	.write = eq_write,
	.sread = eq_sread,
	.strerror = eq_strerror,
};

static int
eq_control(struct fid *fid, int command, void *arg)
{
	struct uet_ofi_eq *eq = container_of(fid, struct uet_ofi_eq, eq_fid.fid);

	switch (command) {
	case FI_GETWAIT:
		if (eq->efd < 0 || arg == NULL)
			return -FI_ENODATA;
		*(int *)arg = eq->efd;
		return 0;
	case FI_GETWAITOBJ:
		if (arg == NULL)
			return -FI_EINVAL;
		*(enum fi_wait_obj *)arg = eq->attr.wait_obj;
		return 0;
	default:
		return -FI_ENOSYS;
	}
}

static int
eq_close(struct fid *fid)
{
	struct uet_ofi_eq *eq = container_of(fid, struct uet_ofi_eq, eq_fid.fid);
	struct uet_ofi_eq_event *ev, *next;

	if (atomic_load(&eq->ref) > 0)
		return -FI_EBUSY;
	for (ev = eq->head; ev != NULL; ev = next) {
		next = ev->next;
		free(ev);
	}
	uet_ofi_waitset_del(eq->ws, &eq->eq_fid.fid, eq->efd);
	if (eq->efd >= 0)
		close(eq->efd);
	pthread_mutex_destroy(&eq->lock);
	atomic_fetch_sub(&eq->fabh->ref, 1);
	free(eq);
	return 0;
}

static struct fi_ops eq_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = eq_close,
	.bind = uet_ofi_fid_bind_enosys,
	.control = eq_control,
	.ops_open = uet_ofi_fid_ops_open_enosys,
	.tostr = uet_ofi_fid_tostr_enosys,
	.ops_set = uet_ofi_fid_ops_set_enosys,
};

bool
uet_ofi_eq_ready(struct uet_ofi_eq *eq)
{
	size_t n;

	pthread_mutex_lock(&eq->lock);
	n = eq->count;
	pthread_mutex_unlock(&eq->lock);
	return n > 0;
}

int
uet_ofi_eq_open(struct fid_fabric *fabric, struct fi_eq_attr *attr,
		struct fid_eq **eq_fid, void *context)
{
	struct uet_ofi_fabric_hdl *fabh =
		container_of(fabric, struct uet_ofi_fabric_hdl, fab_fid);
	struct fi_eq_attr a = { .wait_obj = FI_WAIT_UNSPEC };
	struct uet_ofi_eq *eq;
	int fd = -1;

	if (attr != NULL)
		a = *attr;
	if (a.flags & ~(uint64_t)FI_WRITE)
		return -FI_EINVAL;
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
	if (a.size == 0)
		a.size = UET_OFI_EQ_SIZE_DEF;
	eq = calloc(1, sizeof(*eq));
	if (eq == NULL) {
		if (fd >= 0)
			close(fd);
		return -FI_ENOMEM;
	}
	eq->fabh = fabh;
	eq->attr = a;
	eq->efd = fd;
	if (a.wait_obj == FI_WAIT_SET) {
		int rc;

		eq->ws = uet_ofi_waitset_of(a.wait_set);
		rc = uet_ofi_waitset_add(eq->ws, &eq->eq_fid.fid, fd);
		if (rc < 0) {
			close(fd);
			free(eq);
			return rc;
		}
	}
	pthread_mutex_init(&eq->lock, NULL);
	eq->eq_fid.fid.fclass = FI_CLASS_EQ;
	eq->eq_fid.fid.context = context;
	eq->eq_fid.fid.ops = &eq_fi_ops;
	eq->eq_fid.ops = &eq_ops;
	atomic_fetch_add(&fabh->ref, 1);
	*eq_fid = &eq->eq_fid;
	return 0;
}
