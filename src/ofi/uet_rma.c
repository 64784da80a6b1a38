/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RMA: WRITE / READ descriptors. rkey is the provider key of the target
 * region; roffset carries the target virtual address (FI_MR_VIRT_ADDR):
 * the engine subtracts the region base found through the key. READ needs
 * the AI Full or HPC profile. One remote iov (rma_iov_limit 1).
 */
#include <string.h>

#include "uet_ofi_private.h"

static ssize_t
rma_post(struct uet_ofi_ep *ep, bool is_read, const struct fi_msg_rma *msg,
	 uint64_t flags)
{
	struct uet_chan_sqe sqe;

	if (msg == NULL || msg->rma_iov_count != 1 || msg->rma_iov == NULL)
		return -FI_EINVAL;
	if (!ep->enabled)
		return -FI_EOPBADSTATE;
	if (!(ep->caps & FI_RMA) ||
	    !(ep->caps & (is_read ? FI_READ : FI_WRITE)))
		return -FI_EOPNOTSUPP;
	memset(&sqe, 0, sizeof(sqe));
	sqe.op = is_read ? UET_CHAN_OP_READ : UET_CHAN_OP_WRITE;
	sqe.dest = uet_ofi_ep_dest(ep, msg->addr);
	if (sqe.dest == 0)
		return -FI_EINVAL;
	sqe.rkey = msg->rma_iov[0].key;
	sqe.roffset = msg->rma_iov[0].addr;
	sqe.imm_data = msg->data;
	if (unlikely(flags & FI_TRIGGER))
		return uet_ofi_trig_defer(ep, &(struct uet_ofi_trig_call){
			.kind = is_read ? FI_OP_READ : FI_OP_WRITE, .msg = msg,
			.context = msg->context }, flags);
	return uet_ofi_post_sqe(ep, &sqe, msg->msg_iov, msg->desc,
				msg->iov_count, flags, msg->context,
				FI_RMA | (is_read ? FI_READ : FI_WRITE),
				is_read ? UET_OFI_CNTR_READ :
					  UET_OFI_CNTR_WRITE, NULL);
}

static ssize_t
rma_readmsg(struct fid_ep *fid, const struct fi_msg_rma *msg, uint64_t flags)
{
	struct uet_ofi_ep *ep = uet_ofi_ep_of(fid);

	if (flags & FI_INJECT)
		return -FI_EINVAL;
	return rma_post(ep, true, msg, flags);
}

static ssize_t
rma_writemsg(struct fid_ep *fid, const struct fi_msg_rma *msg,
	     uint64_t flags)
{
	struct uet_ofi_ep *ep = uet_ofi_ep_of(fid);

	return rma_post(ep, false, msg, flags);
}

static ssize_t
rma_vec(struct fid_ep *fid, bool is_read, const struct iovec *iov,
	void **desc, size_t count, fi_addr_t a, uint64_t addr, uint64_t key,
	uint64_t data, uint64_t extra, void *context)
{
	struct uet_ofi_ep *ep = uet_ofi_ep_of(fid);
	struct fi_rma_iov r = { .addr = addr, .len = 0, .key = key };
	struct fi_msg_rma m = {
		.msg_iov = iov, .desc = desc, .iov_count = count, .addr = a,
		.rma_iov = &r, .rma_iov_count = 1, .context = context,
		.data = data,
	};

	for (size_t i = 0; i < count && iov != NULL; i++)
		r.len += iov[i].iov_len;
	if (extra & FI_INJECT)
		return rma_post(ep, is_read, &m, extra);
	return rma_post(ep, is_read, &m, uet_ofi_tx_flags(fid) | FI_COMPLETION |
						 extra);
}

static ssize_t
rma_readv(struct fid_ep *fid, const struct iovec *iov, void **desc,
	  size_t count, fi_addr_t a, uint64_t addr, uint64_t key,
	  void *context)
{
	return rma_vec(fid, true, iov, desc, count, a, addr, key, 0, 0,
		       context);
}

static ssize_t
rma_read(struct fid_ep *fid, void *buf, size_t len, void *desc, fi_addr_t a,
	 uint64_t addr, uint64_t key, void *context)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };

	return rma_readv(fid, &iov, &desc, 1, a, addr, key, context);
}

static ssize_t
rma_writev(struct fid_ep *fid, const struct iovec *iov, void **desc,
	   size_t count, fi_addr_t a, uint64_t addr, uint64_t key,
	   void *context)
{
	return rma_vec(fid, false, iov, desc, count, a, addr, key, 0, 0,
		       context);
}

static ssize_t
rma_write(struct fid_ep *fid, const void *buf, size_t len, void *desc,
	  fi_addr_t a, uint64_t addr, uint64_t key, void *context)
{
	struct iovec iov = { .iov_base = (void *)(uintptr_t)buf,
			     .iov_len = len };

	return rma_writev(fid, &iov, &desc, 1, a, addr, key, context);
}

static ssize_t
rma_writedata(struct fid_ep *fid, const void *buf, size_t len, void *desc,
	      uint64_t data, fi_addr_t a, uint64_t addr, uint64_t key,
	      void *context)
{
	struct iovec iov = { .iov_base = (void *)(uintptr_t)buf,
			     .iov_len = len };

	return rma_vec(fid, false, &iov, &desc, 1, a, addr, key, data,
		       FI_REMOTE_CQ_DATA, context);
}

static ssize_t
rma_inject(struct fid_ep *fid, const void *buf, size_t len, fi_addr_t a,
	   uint64_t addr, uint64_t key)
{
	struct iovec iov = { .iov_base = (void *)(uintptr_t)buf,
			     .iov_len = len };

	return rma_vec(fid, false, &iov, NULL, 1, a, addr, key, 0,
		       FI_INJECT | UET_OFI_NO_CQ, NULL);
}

static ssize_t
rma_injectdata(struct fid_ep *fid, const void *buf, size_t len, uint64_t data,
	       fi_addr_t a, uint64_t addr, uint64_t key)
{
	struct iovec iov = { .iov_base = (void *)(uintptr_t)buf,
			     .iov_len = len };

	return rma_vec(fid, false, &iov, NULL, 1, a, addr, key, data,
		       FI_INJECT | UET_OFI_NO_CQ | FI_REMOTE_CQ_DATA, NULL);
}

const struct fi_ops_rma uet_ofi_rma_ops = {
	.size = sizeof(struct fi_ops_rma),
	.read = rma_read,
	.readv = rma_readv,
	.readmsg = rma_readmsg,
	.write = rma_write,
	.writev = rma_writev,
	.writemsg = rma_writemsg,
	.inject = rma_inject,
	.writedata = rma_writedata,
	.injectdata = rma_injectdata,
};
