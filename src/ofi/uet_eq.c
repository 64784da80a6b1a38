/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Event queue: a bounded FIFO of events (application writes with FI_WRITE,
 * asynchronous AV insert completions), FD wait object (uet_waitable.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uet_ofi_private.h"

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
	uet_ofi_waitable_signal(&eq->w);
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
	uint64_t deadline = uet_ofi_deadline(timeout);
	ssize_t rc;

	if (eq->attr.wait_obj == FI_WAIT_NONE)
		return -FI_EINVAL;
	for (;;) {
		rc = eq_read(fid, event, buf, len, flags);
		if (rc != -FI_EAGAIN)
			return rc;
		/* events are posted with a wakeup: longer slices */
		if (!uet_ofi_waitable_sleep(&eq->w, deadline, 100))
			return -FI_EAGAIN;
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
eq_close(struct fid *fid)
{
	struct uet_ofi_eq *eq = container_of(fid, struct uet_ofi_eq, eq_fid.fid);
	struct uet_ofi_eq_event *ev, *next;
	int rc = uet_ofi_waitable_fini(&eq->w);

	if (rc < 0)
		return rc;
	for (ev = eq->head; ev != NULL; ev = next) {
		next = ev->next;
		free(ev);
	}
	pthread_mutex_destroy(&eq->lock);
	atomic_fetch_sub(&eq->fabh->ref, 1);
	free(eq);
	return 0;
}

static struct fi_ops eq_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = eq_close,
	.bind = uet_ofi_fid_bind_enosys,
	.control = uet_ofi_waitable_control,
	.ops_open = uet_ofi_fid_ops_open_enosys,
	.tostr = uet_ofi_fid_tostr_enosys,
	.ops_set = uet_ofi_fid_ops_set_enosys,
};

static bool
eq_pending(struct uet_ofi_waitable *w)
{
	struct uet_ofi_eq *eq = container_of(w, struct uet_ofi_eq, w);
	size_t n;

	pthread_mutex_lock(&eq->lock);
	n = eq->count;
	pthread_mutex_unlock(&eq->lock);
	return n > 0;
}

static const struct uet_ofi_waitable_ops eq_waitable_ops = {
	.pending = eq_pending,
};

int
uet_ofi_eq_open(struct fid_fabric *fabric, struct fi_eq_attr *attr,
		struct fid_eq **eq_fid, void *context)
{
	struct uet_ofi_fabric_hdl *fabh =
		container_of(fabric, struct uet_ofi_fabric_hdl, fabric_fid);
	struct fi_eq_attr a = { .wait_obj = FI_WAIT_UNSPEC };
	struct uet_ofi_eq *eq;
	int rc;

	if (attr != NULL)
		a = *attr;
	if (a.flags & ~(uint64_t)FI_WRITE)
		return -FI_EINVAL;
	if (a.size == 0)
		a.size = UET_OFI_EQ_SIZE_DEF;
	eq = calloc(1, sizeof(*eq));
	if (eq == NULL)
		return -FI_ENOMEM;
	/* events come from the application and AV inserts: no endpoints
	 * to progress */
	rc = uet_ofi_waitable_init(&eq->w, &eq->eq_fid.fid, &eq_waitable_ops,
				   NULL, true, &a.wait_obj, a.wait_set);
	if (rc < 0) {
		free(eq);
		return rc;
	}
	eq->fabh = fabh;
	eq->attr = a;
	pthread_mutex_init(&eq->lock, NULL);
	eq->eq_fid.fid.fclass = FI_CLASS_EQ;
	eq->eq_fid.fid.context = context;
	eq->eq_fid.fid.ops = &eq_fi_ops;
	eq->eq_fid.ops = &eq_ops;
	atomic_fetch_add(&fabh->ref, 1);
	*eq_fid = &eq->eq_fid;
	return 0;
}
