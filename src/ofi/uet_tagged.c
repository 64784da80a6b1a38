/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tagged messages: TSEND / TRECV descriptors. The AI Base profile matches
 * tags exactly (UEC 1.0 profiles): a receive with ignore bits set is refused
 * there with -FI_EINVAL.
 */
#include <string.h>

#include "uet_ofi_private.h"

static ssize_t
tagged_recvmsg(struct fid_ep *fid, const struct fi_msg_tagged *msg,
	   uint64_t flags)
{
	struct uet_ofi_ep *ep = uet_ofi_ep_of(fid);
	struct uet_chan_rqe rqe;

	if (msg == NULL)
		return -FI_EINVAL;
	if (!(ep->caps & FI_TAGGED) || !(ep->caps & FI_RECV))
		return -FI_EOPNOTSUPP;
	if (msg->ignore != 0 && ep->dom->profile == UET_PROFILE_AI_BASE)
		return -FI_EINVAL;
	memset(&rqe, 0, sizeof(rqe));
	rqe.op = UET_CHAN_RQ_TRECV;
	rqe.tag = msg->tag;
	rqe.ignore = msg->ignore;
	if ((ep->caps & FI_DIRECTED_RECV) && msg->addr != FI_ADDR_UNSPEC) {
		rqe.src = uet_ofi_ep_dest(ep, msg->addr);
		if (rqe.src == 0)
			return -FI_EINVAL;
		rqe.flags |= UET_CHAN_F_SRC_FILTER;
	}
	if (unlikely(flags & FI_TRIGGER))
		return uet_ofi_trig_defer(ep, &(struct uet_ofi_trig_call){
			.kind = FI_OP_TRECV, .msg = msg,
			.context = msg->context }, flags);
	return uet_ofi_post_rqe(ep, &rqe, msg->msg_iov, msg->desc,
				msg->iov_count, flags, msg->context,
				FI_RECV | FI_TAGGED);
}

static ssize_t
tagged_recvv(struct fid_ep *fid, const struct iovec *iov, void **desc,
	 size_t count, fi_addr_t src, uint64_t tag, uint64_t ignore,
	 void *context)
{
	struct fi_msg_tagged m = {
		.msg_iov = iov, .desc = desc, .iov_count = count, .addr = src,
		.tag = tag, .ignore = ignore, .context = context,
	};

	return tagged_recvmsg(fid, &m, uet_ofi_rx_flags(fid) | FI_COMPLETION);
}

static ssize_t
tagged_recv(struct fid_ep *fid, void *buf, size_t len, void *desc, fi_addr_t src,
	uint64_t tag, uint64_t ignore, void *context)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };

	return tagged_recvv(fid, &iov, &desc, 1, src, tag, ignore, context);
}

static ssize_t
tagged_sendmsg(struct fid_ep *fid, const struct fi_msg_tagged *msg,
	   uint64_t flags)
{
	struct uet_ofi_ep *ep = uet_ofi_ep_of(fid);
	struct uet_chan_sqe sqe;

	if (msg == NULL)
		return -FI_EINVAL;
	if (!ep->enabled)
		return -FI_EOPBADSTATE;
	if (!(ep->caps & FI_TAGGED) || !(ep->caps & FI_SEND))
		return -FI_EOPNOTSUPP;
	memset(&sqe, 0, sizeof(sqe));
	sqe.op = UET_CHAN_OP_TSEND;
	sqe.tag = msg->tag;
	sqe.imm_data = msg->data;
	sqe.dest = uet_ofi_ep_dest(ep, msg->addr);
	if (sqe.dest == 0)
		return -FI_EINVAL;
	if (unlikely(flags & FI_TRIGGER))
		return uet_ofi_trig_defer(ep, &(struct uet_ofi_trig_call){
			.kind = FI_OP_TSEND, .msg = msg,
			.context = msg->context }, flags);
	return uet_ofi_post_sqe(ep, &sqe, msg->msg_iov, msg->desc,
				msg->iov_count, flags, msg->context,
				FI_SEND | FI_TAGGED, UET_OFI_CNTR_SEND, NULL);
}

static ssize_t
tagged_sendv(struct fid_ep *fid, const struct iovec *iov, void **desc,
	 size_t count, fi_addr_t dest, uint64_t tag, void *context)
{
	struct fi_msg_tagged m = {
		.msg_iov = iov, .desc = desc, .iov_count = count, .addr = dest,
		.tag = tag, .context = context,
	};

	return tagged_sendmsg(fid, &m, uet_ofi_tx_flags(fid) | FI_COMPLETION);
}

static ssize_t
tagged_send(struct fid_ep *fid, const void *buf, size_t len, void *desc,
	fi_addr_t dest, uint64_t tag, void *context)
{
	struct iovec iov = { .iov_base = (void *)(uintptr_t)buf,
			     .iov_len = len };

	return tagged_sendv(fid, &iov, &desc, 1, dest, tag, context);
}

static ssize_t
tagged_senddata(struct fid_ep *fid, const void *buf, size_t len, void *desc,
	    uint64_t data, fi_addr_t dest, uint64_t tag, void *context)
{
	struct iovec iov = { .iov_base = (void *)(uintptr_t)buf,
			     .iov_len = len };
	struct fi_msg_tagged m = {
		.msg_iov = &iov, .desc = &desc, .iov_count = 1, .addr = dest,
		.tag = tag, .context = context, .data = data,
	};

	return tagged_sendmsg(fid, &m, uet_ofi_tx_flags(fid) | FI_COMPLETION |
					   FI_REMOTE_CQ_DATA);
}

static ssize_t
tagged_inject(struct fid_ep *fid, const void *buf, size_t len, fi_addr_t dest,
	  uint64_t tag)
{
	struct iovec iov = { .iov_base = (void *)(uintptr_t)buf,
			     .iov_len = len };
	struct fi_msg_tagged m = {
		.msg_iov = &iov, .iov_count = 1, .addr = dest, .tag = tag,
	};

	return tagged_sendmsg(fid, &m, FI_INJECT | UET_OFI_NO_CQ);
}

static ssize_t
tagged_injectdata(struct fid_ep *fid, const void *buf, size_t len, uint64_t data,
	      fi_addr_t dest, uint64_t tag)
{
	struct iovec iov = { .iov_base = (void *)(uintptr_t)buf,
			     .iov_len = len };
	struct fi_msg_tagged m = {
		.msg_iov = &iov, .iov_count = 1, .addr = dest, .tag = tag,
		.data = data,
	};

	return tagged_sendmsg(fid, &m, FI_INJECT | UET_OFI_NO_CQ |
					   FI_REMOTE_CQ_DATA);
}

const struct fi_ops_tagged uet_ofi_tagged_ops = {
	.size = sizeof(struct fi_ops_tagged),
	.recv = tagged_recv,
	.recvv = tagged_recvv,
	.recvmsg = tagged_recvmsg,
	.send = tagged_send,
	.sendv = tagged_sendv,
	.sendmsg = tagged_sendmsg,
	.inject = tagged_inject,
	.senddata = tagged_senddata,
	.injectdata = tagged_injectdata,
};
