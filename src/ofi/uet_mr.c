/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory regions. Keys are provider keys (FI_MR_PROV_KEY) in the UET
 * memory key format (PROTOCOL.md 4.7), made with uet_ses_mkey_encode():
 * I bit set for HPC domains (regions may be targets of RUDI operations),
 * O = 0, vendor 0x55, rkey = random(16) | domain(8) | serial(24).
 * FI_MR_VIRT_ADDR: remote addresses are virtual addresses. With
 * FI_MR_ENDPOINT a region must be bound to an endpoint and enabled before
 * use. The descriptor (fi_mr_desc) is the region itself.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include <uet/uet_ses_mr.h>

#include "uet_ofi_priv.h"

#define ACCESS_ALL (FI_SEND | FI_RECV | FI_READ | FI_WRITE | FI_REMOTE_READ | \
		    FI_REMOTE_WRITE)

static int
mr_close(struct fid *fid)
{
	struct uet_ofi_mr *mr = container_of(fid, struct uet_ofi_mr, mr_fid.fid);

	if (mr->ep != NULL)
		atomic_fetch_sub(&mr->ep->ref, 1);
	if (mr->cntr != NULL)
		atomic_fetch_sub(&mr->cntr->ref, 1);
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
		atomic_fetch_add(&mr->cntr->ref, 1);
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

static int
mr_key_make(struct uet_ofi_domain *d, uint64_t *key)
{
	struct uet_ses_mkey k = { 0 };
	uint16_t rnd = 0;
	uint32_t serial = atomic_fetch_add(&d->mr_serial, 1) & 0xFFFFFFu;

	if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != sizeof(rnd))
		rnd = (uint16_t)(serial * 40503u);
	k.idempotent = d->profile == UET_PROFILE_HPC;
	k.optimized = false;
	k.vendor = UET_OFI_MKEY_VENDOR;
	k.rkey = ((uint64_t)rnd << 32) | ((uint64_t)(d->id & 0xFF) << 24) |
		 serial;
	return uet_ses_mkey_encode(&k, key) == 0 ? 0 : -FI_EINVAL;
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
	rc = mr_key_make(d, &key);
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
