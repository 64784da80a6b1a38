/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory regions. Every region is registered in the memory table of its
 * domain's engine context through the SES ULP's control ring
 * (uet_ofi_fabric_ctl); the key is the one that table made (FI_MR_PROV_KEY,
 * UET key format, UEC 1.0 SES memory key format): I bit set for HPC domains
 * (regions may be targets of RUDI operations), O = 0, vendor 0x55, rkey =
 * random(24) | generation(8) | slot(16). fi_close() deregisters before it
 * returns. FI_MR_VIRT_ADDR: remote addresses are virtual addresses. With
 * FI_MR_ENDPOINT a region must be bound to an endpoint and enabled before
 * use. The descriptor (fi_mr_desc) is the region itself.
 */
#include <stdlib.h>
#include <string.h>

#include <uet/uet_ses_mr.h>

#include "uet_ofi_private.h"

static void mr_engine_dereg(struct uet_ofi_mr *mr);

#define ACCESS_ALL (FI_SEND | FI_RECV | FI_READ | FI_WRITE | FI_REMOTE_READ | \
		    FI_REMOTE_WRITE)

static int
mr_close(struct fid *fid)
{
	struct uet_ofi_mr *mr = container_of(fid, struct uet_ofi_mr, mr_fid.fid);

	mr_engine_dereg(mr);
	if (mr->ep != NULL)
		atomic_fetch_sub(&mr->ep->ref, 1);
	if (mr->cntr != NULL)
		atomic_fetch_sub(&mr->cntr->w.ref, 1);
	atomic_fetch_sub(&mr->dom->ref, 1);
	free(mr);
	return 0;
}

static int
mr_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
	struct uet_ofi_mr *mr = container_of(fid, struct uet_ofi_mr, mr_fid.fid);

	if (bfid == NULL)
		return -FI_EINVAL;
	if (mr->enabled)
		return -FI_EINVAL;
	switch (bfid->fclass) {
	case FI_CLASS_EP:
		if (!(mr->dom->mr_mode & FI_MR_ENDPOINT))
			return -FI_EINVAL;
		if (mr->ep != NULL)
			return -FI_EBUSY;
		mr->ep = container_of(bfid, struct uet_ofi_ep, ep_fid.fid);
		if (mr->ep->dom != mr->dom) {
			mr->ep = NULL;
			return -FI_EINVAL;
		}
		atomic_fetch_add(&mr->ep->ref, 1);
		return 0;
	case FI_CLASS_CNTR:
		if (!(flags & FI_REMOTE_WRITE) || mr->cntr != NULL)
			return -FI_EINVAL;
		mr->cntr = container_of(bfid, struct uet_ofi_cntr,
					cntr_fid.fid);
		atomic_fetch_add(&mr->cntr->w.ref, 1);
		return 0;
	default:
		return -FI_EINVAL;
	}
}

static int
mr_control(struct fid *fid, int command, void *arg)
{
	struct uet_ofi_mr *mr = container_of(fid, struct uet_ofi_mr, mr_fid.fid);

	(void)arg;
	switch (command) {
	case FI_ENABLE:
		if (!(mr->dom->mr_mode & FI_MR_ENDPOINT))
			return 0;
		if (mr->ep == NULL)
			return -FI_EINVAL; /* FI_MR_ENDPOINT: bind an endpoint first */
		if (!mr->enabled) {
			struct uet_ses_ulp_ctl q = {
				.op = UET_SES_ULP_MR_ENABLE,
				.key = mr->mr_fid.key,
			};
			int rc = uet_ofi_fabric_ctl(mr->dom->fab, mr->dom->ctx,
						    &q);

			if (rc < 0)
				return rc == -ENOENT ? -FI_EINVAL : -FI_EOTHER;
		}
		mr->enabled = true;
		return 0;
	default:
		return -FI_ENOSYS;
	}
}

static struct fi_ops mr_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = mr_close,
	.bind = mr_bind,
	.control = mr_control,
	.ops_open = uet_ofi_fid_ops_open_enosys,
	.tostr = uet_ofi_fid_tostr_enosys,
	.ops_set = uet_ofi_fid_ops_set_enosys,
};

/* UET_SES_MR_* access of libfabric access bits. */
static uint32_t
mr_access(uint64_t access)
{
	uint32_t a = 0;

	if (access & (FI_SEND | FI_READ))
		a |= UET_SES_MR_LOCAL_READ;
	if (access & (FI_RECV | FI_WRITE))
		a |= UET_SES_MR_LOCAL_WRITE | UET_SES_MR_LOCAL_ATOMIC;
	if (access & FI_REMOTE_READ)
		a |= UET_SES_MR_REMOTE_READ;
	/* atomics need FI_REMOTE_WRITE (fetching ones FI_REMOTE_READ too) */
	if (access & FI_REMOTE_WRITE)
		a |= UET_SES_MR_REMOTE_WRITE | UET_SES_MR_REMOTE_ATOMIC;
	return a;
}

/* The one contiguous span of @p iov (UET regions are contiguous). */
static int
mr_span(const struct iovec *iov, size_t count, uintptr_t *base, uint64_t *len)
{
	uintptr_t end;

	*base = (uintptr_t)iov[0].iov_base;
	end = *base + iov[0].iov_len;
	for (size_t i = 1; i < count; i++) {
		if ((uintptr_t)iov[i].iov_base != end)
			return -FI_EOPNOTSUPP;
		end += iov[i].iov_len;
	}
	*len = end - *base;
	return 0;
}

/* Register with the engine: the job's RI tables, then the region. The key
 * is the engine's (rkey = random(24) | generation(8) | slot(16)). */
static int
mr_engine_reg(struct uet_ofi_mr *mr, uint64_t *key)
{
	struct uet_ofi_domain *d = mr->dom;
	struct uet_ses_ulp_ctl q = { .op = UET_SES_ULP_JOB_ADD, .job = mr->job };
	int rc;

	rc = mr_span(mr->iov, mr->iov_count, &q.base, &q.len);
	if (rc < 0)
		return rc;
	rc = uet_ofi_fabric_ctl(d->fab, d->ctx, &q);
	if (rc < 0)
		return rc == -ENOSPC ? -FI_ENOSPC : -FI_EOTHER;
	q.op = UET_SES_ULP_MR_REG;
	q.disabled = !mr->enabled; /* FI_MR_ENDPOINT: after fi_mr_enable */
	q.access = mr_access(mr->access);
	q.idempotent = d->profile == UET_PROFILE_HPC;
	rc = uet_ofi_fabric_ctl(d->fab, d->ctx, &q);
	if (rc < 0) {
		q.op = UET_SES_ULP_JOB_DEL;
		(void)uet_ofi_fabric_ctl(d->fab, d->ctx, &q);
		return rc == -ENOSPC ? -FI_ENOSPC : -FI_EINVAL;
	}
	*key = q.key;
	mr->registered = true;
	return 0;
}

/* After this returns the engine resolves the key no more (the control
 * request is answered after the lcore removed it). */
static void
mr_engine_dereg(struct uet_ofi_mr *mr)
{
	struct uet_ofi_domain *d = mr->dom;
	struct uet_ses_ulp_ctl q = {
		.op = UET_SES_ULP_MR_DEREG, .key = mr->mr_fid.key,
	};

	if (!mr->registered)
		return;
	(void)uet_ofi_fabric_ctl(d->fab, d->ctx, &q);
	q.op = UET_SES_ULP_JOB_DEL;
	q.job = mr->job;
	(void)uet_ofi_fabric_ctl(d->fab, d->ctx, &q);
	mr->registered = false;
}

static int
mr_regattr(struct fid *fid, const struct fi_mr_attr *attr, uint64_t flags,
	   struct fid_mr **mr_fid)
{
	struct uet_ofi_domain *d;
	struct uet_ofi_mr *mr;
	uint64_t key;
	uint32_t job;
	int rc;

	if (fid == NULL || fid->fclass != FI_CLASS_DOMAIN || attr == NULL ||
	    mr_fid == NULL)
		return -FI_EINVAL;
	d = container_of(fid, struct uet_ofi_domain, dom_fid.fid);
	if (attr->iov_count == 0 || attr->iov_count > UET_OFI_IOV_MAX ||
	    attr->mr_iov == NULL)
		return -FI_EINVAL;
	if (attr->access & ~(uint64_t)ACCESS_ALL)
		return -FI_EINVAL;
	if (flags & ~(uint64_t)FI_RMA_EVENT)
		return -FI_EBADFLAGS;
	if (attr->iface != FI_HMEM_SYSTEM)
		return -FI_ENOSYS;
	rc = uet_ofi_job_from_key(d, attr->auth_key, attr->auth_key_size,
				  &job);
	if (rc < 0)
		return rc;
	mr = calloc(1, sizeof(*mr));
	if (mr == NULL)
		return -FI_ENOMEM;
	mr->dom = d;
	mr->access = attr->access ? attr->access : ACCESS_ALL;
	mr->flags = flags;
	mr->job = job;
	mr->iov_count = attr->iov_count;
	memcpy(mr->iov, attr->mr_iov, attr->iov_count * sizeof(struct iovec));
	mr->enabled = !(d->mr_mode & FI_MR_ENDPOINT);
	rc = mr_engine_reg(mr, &key);
	if (rc < 0) {
		free(mr);
		return rc;
	}
	mr->mr_fid.fid.fclass = FI_CLASS_MR;
	mr->mr_fid.fid.context = attr->context;
	mr->mr_fid.fid.ops = &mr_fi_ops;
	mr->mr_fid.mem_desc = mr;
	mr->mr_fid.key = key;
	atomic_fetch_add(&d->ref, 1);
	*mr_fid = &mr->mr_fid;
	return 0;
}

static int
mr_regv(struct fid *fid, const struct iovec *iov, size_t count,
	uint64_t access, uint64_t offset, uint64_t requested_key,
	uint64_t flags, struct fid_mr **mr, void *context)
{
	struct fi_mr_attr attr = {
		.mr_iov = iov,
		.iov_count = count,
		.access = access,
		.offset = offset,
		.requested_key = requested_key, /* ignored: FI_MR_PROV_KEY */
		.context = context,
		.iface = FI_HMEM_SYSTEM,
	};

	return mr_regattr(fid, &attr, flags, mr);
}

static int
mr_reg(struct fid *fid, const void *buf, size_t len, uint64_t access,
       uint64_t offset, uint64_t requested_key, uint64_t flags,
       struct fid_mr **mr, void *context)
{
	struct iovec iov = { .iov_base = (void *)(uintptr_t)buf,
			     .iov_len = len };

	return mr_regv(fid, &iov, 1, access, offset, requested_key, flags, mr,
		       context);
}

const struct fi_ops_mr uet_ofi_mr_ops = {
	.size = sizeof(struct fi_ops_mr),
	.reg = mr_reg,
	.regv = mr_regv,
	.regattr = mr_regattr,
};
