/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Message data path and the submission helpers every data file uses:
 * lock -> take a request slot from the pool (-FI_EAGAIN when empty) ->
 * reserve a CQ slot (-FI_EAGAIN when none) -> fill the descriptor -> post
 * it on the channel ring (-FI_EAGAIN when full, undoing the above).
 * The request slot is the descriptor's context; the engine returns it in
 * the CQE. UET_CHAN_F_COMPLETION is always set: the provider needs every
 * completion to recycle its slot (it drops the ones the application did
 * not ask for).
 */
#include <stdlib.h>
#include <string.h>

#include "uet_ofi_private.h"

static struct uet_ofi_av *
ep_av(const struct uet_ofi_ep *ep)
{
	return ep->sep != NULL ? ep->sep->av : ep->av;
}

uint64_t
uet_ofi_ep_dest(struct uet_ofi_ep *ep, fi_addr_t fi_addr)
{
	struct uet_ofi_av *av = ep_av(ep);

	if (av == NULL)
		return 0;
	return uet_ofi_av_peer(av, fi_addr);
}

static uint8_t *
bounce_get(struct uet_ofi_ep *ep)
{
	unsigned int i;

	if (ep->bounce_free == 0)
		return NULL;
	i = (unsigned int)__builtin_ctz(ep->bounce_free);
	ep->bounce_free &= ~(1u << i);
	return ep->bounce_mem + (size_t)i * ep->bounce_size;
}

void
uet_ofi_req_bounce_done(struct uet_ofi_ep *ep, struct uet_ofi_req *r,
			uint64_t len)
{
	uint64_t off = 0;

	if (r->bounce == NULL)
		return;
	/* received data: scatter over the application's entries */
	for (size_t i = 0; r->scatter && i < r->nb_iov && off < len; i++) {
		uint64_t n = len - off < r->iov[i].len ? len - off :
							 r->iov[i].len;

		if (n != 0)
			memcpy((void *)(uintptr_t)r->iov[i].addr,
			       r->bounce + off, n);
		off += n;
	}
	if (r->scatter && r->rx)
		ep->rx_scatter_pending--;
	if (r->bounce_heap)
		free(r->bounce);
	else
		ep->bounce_free |= 1u << ((size_t)(r->bounce - ep->bounce_mem) /
					  ep->bounce_size);
	r->bounce = NULL;
	r->bounce_heap = 0;
	r->scatter = 0;
}

int
uet_ofi_req_buffers(struct uet_ofi_ep *ep, struct uet_ofi_req *r,
		    const struct iovec *iov, void **desc, size_t count,
		    bool inject, bool inbound, uint64_t *addr, uint64_t *len,
		    uint64_t *local_desc, uint32_t *flags)
{
	size_t total = 0, i, off;

	if (count > UET_OFI_IOV_MAX || (count > 0 && iov == NULL))
		return -FI_EINVAL;
	for (i = 0; i < count; i++)
		total += iov[i].iov_len;
	*local_desc = desc != NULL && count > 0 ?
		      (uint64_t)(uintptr_t)desc[0] : 0;
	/* a claim reuses the request of its peek */
	uet_ofi_req_bounce_done(ep, r, 0);
	if (inject) {
		uint8_t *p = r->inject;

		if (total > UET_OFI_INJECT_MAX)
			return -FI_EINVAL;
		/* an empty entry may carry a NULL base (fi_injectdata of
		 * no payload): nothing to copy from it */
		for (i = 0; i < count; i++) {
			if (iov[i].iov_len != 0)
				memcpy(p, iov[i].iov_base, iov[i].iov_len);
			p += iov[i].iov_len;
		}
		*addr = (uint64_t)(uintptr_t)r->inject;
		*len = total;
		*flags |= UET_CHAN_F_INJECT;
		return 0;
	}
	if (count <= 1 && !(inbound && r->rx && ep->rx_scatter_pending > 0 &&
			    total != 0 && r->cq_reserved != 2 &&
			    !r->no_data)) {
		*addr = count ? (uint64_t)(uintptr_t)iov[0].iov_base : 0;
		*len = count ? iov[0].iov_len : 0;
		return 0;
	}
	/*
	 * Several entries: the engine takes one contiguous buffer, so the
	 * message goes through a bounce buffer of the endpoint, gathered
	 * here (outbound) or scattered by the completion (inbound); one
	 * larger than the pool's buffers, or one posted while every pooled
	 * buffer is taken, is allocated for the operation. Never -FI_EAGAIN:
	 * posted receives hold their buffers until a message lands, so a
	 * send waiting for one of them would wait for good (fi_ubertest's
	 * DGRAM sendv posts more receives than the pool has buffers).
	 *
	 * A receive's data must be in the application's buffer when its
	 * completion is read, and a later receive's over an earlier one's
	 * when both name the same bytes. Scattered receives land at their
	 * completion, in completion order; one entry lands in place, when
	 * its message arrives, which may be before an earlier receive's
	 * scatter copies the older message over it. So while a scattered
	 * receive is outstanding, a single-entry receive is scattered too
	 * (a multi-receive buffer excepted: its messages land side by side).
	 */
	if (total <= ep->bounce_size)
		r->bounce = bounce_get(ep);
	if (r->bounce == NULL) {
		r->bounce = malloc(total);
		if (r->bounce == NULL)
			return -FI_ENOMEM;
		r->bounce_heap = 1;
	}
	r->scatter = inbound;
	if (inbound && r->rx)
		ep->rx_scatter_pending++;
	r->nb_iov = (uint8_t)count;
	for (i = 0, off = 0; i < count; i++) {
		r->iov[i].addr = (uint64_t)(uintptr_t)iov[i].iov_base;
		r->iov[i].len = iov[i].iov_len;
		if (!inbound && iov[i].iov_len != 0)
			memcpy(r->bounce + off, iov[i].iov_base,
			       iov[i].iov_len);
		off += iov[i].iov_len;
	}
	*addr = (uint64_t)(uintptr_t)r->bounce;
	*len = total;
	return 0;
}

static size_t
iov_total(const struct iovec *iov, size_t count)
{
	size_t t = 0;

	for (size_t i = 0; i < count; i++)
		t += iov[i].iov_len;
	return t;
}

static uint32_t
sqe_flags(uint64_t flags)
{
	uint32_t f = UET_CHAN_F_COMPLETION;

	if (flags & FI_REMOTE_CQ_DATA)
		f |= UET_CHAN_F_IMM;
	if (flags & (FI_DELIVERY_COMPLETE | FI_TRANSMIT_COMPLETE))
		f |= UET_CHAN_F_DELIVERY_COMPLETE;
	if (flags & FI_FENCE)
		f |= UET_CHAN_F_FENCE;
	return f;
}

/*
 * Large sends (PROVIDER.md "Parameters"): a SEND of at least
 * MSG_RENDEZVOUS_SIZE bytes, or a TSEND of at least
 * TAGGED_RENDEZVOUS_SIZE, goes as RENDEZVOUS_SEND/TSEND in HPC domains
 * (MAX_EAGER_SIZE bytes with the request, the rest read by the target
 * once a receive matched) and as DEFERRABLE_SEND/TSEND in AI Full
 * domains (a target without a receive defers it and asks for it again
 * when one is posted). AI Base has neither.
 */
static uint32_t
rdv_flag(const struct uet_ofi_ep *ep, uint8_t op, size_t len)
{
	const struct uet_ofi_params *p = uet_ofi_params();

	if (len == 0 || !((op == UET_CHAN_OP_SEND && len >= p->msg_rdzv_size) ||
			  (op == UET_CHAN_OP_TSEND &&
			   len >= p->tagged_rdzv_size)))
		return 0;
	if (ep->dom->profile == UET_PROFILE_HPC)
		return UET_CHAN_F_RENDEZVOUS;
	if (ep->dom->profile == UET_PROFILE_AI_FULL)
		return UET_CHAN_F_DEFERRABLE;
	return 0;
}

ssize_t
uet_ofi_post_sqe(struct uet_ofi_ep *ep, struct uet_chan_sqe *sqe,
		 const struct iovec *iov, void **desc, size_t count,
		 uint64_t flags, void *context, uint64_t cq_flags,
		 enum uet_ofi_cntr_kind cntr, const struct uet_ofi_amo_io *amo)
{
	struct uet_ofi_req *r;
	struct uet_ofi_cq *cq = ep->tx_cq;
	ssize_t rc;

	if (!ep->enabled)
		return -FI_EOPBADSTATE;
	if (ep->rx_only)
		return -FI_EOPNOTSUPP;
	if (iov_total(iov, count) > ep->info->ep_attr->max_msg_size)
		return -FI_EMSGSIZE;
	if ((flags & FI_INJECT) && iov_total(iov, count) > UET_OFI_INJECT_MAX)
		return -FI_EINVAL;
	uet_ofi_lock(&ep->lock);
	r = uet_ofi_req_get(ep, false);
	if (r == NULL) {
		rc = -FI_EAGAIN;
		goto unlock;
	}
	if (cq != NULL && uet_ofi_cq_reserve(cq) < 0) {
		rc = -FI_EAGAIN;
		goto put;
	}
	r->user_ctx = context;
	r->cq_flags = cq_flags;
	r->buf = NULL;
	r->cntr = (uint8_t)cntr;
	r->cq_reserved = cq != NULL;
	r->want_cq = cq != NULL && !(flags & UET_OFI_NO_CQ) &&
		     (!ep->tx_selective || (flags & FI_COMPLETION));
	r->no_entry = (flags & UET_OFI_NO_CQ) != 0;
	sqe->flags |= sqe_flags(flags);
	r->bounce = NULL;
	r->bounce_heap = 0;
	r->nb_res = 0;
	if (amo != NULL)
		uet_ofi_req_amo(r, sqe, amo);
	if (ep->svc != NULL)
		rc = uet_ofi_service_sqe(ep, r, sqe, iov, count, flags);
	else
		rc = uet_ofi_req_buffers(ep, r, iov, desc, count,
					 (flags & FI_INJECT) != 0,
					 sqe->op == UET_CHAN_OP_READ,
					 &sqe->addr, &sqe->len,
					 &sqe->local_desc, &sqe->flags);
	if (rc < 0)
		goto unreserve;
	if (!(flags & FI_INJECT))
		sqe->flags |= rdv_flag(ep, sqe->op, iov_total(iov, count));
	sqe->context = uet_ofi_req_ctx(ep, r);
	sqe->job = ep->job & UET_OFI_JOB_MASK;
	sqe->mode = ep->tx_mode;
	if (uet_chan_sq_post(ep->chan, sqe) < 0) {
		rc = -FI_EAGAIN;
		goto unreserve;
	}
	uet_ofi_unlock(&ep->lock);
	/* INLINE progress: send it now, the application may not poll again
	 * before its peer answers (an inject has no completion to wait for) */
	uet_ofi_fabric_progress_post(ep->dom->fab);
	return 0;

unreserve:
	if (cq != NULL)
		uet_ofi_cq_unreserve(cq);
put:
	uet_ofi_req_put(ep, r);
unlock:
	uet_ofi_unlock(&ep->lock);
	if (rc == -FI_EAGAIN)
		uet_ofi_ep_progress(ep);
	return rc;
}

/* FI_PEEK / FI_CLAIM / FI_DISCARD combinations (fi_tagged(3)). */
static int
recv_flags_check(uint64_t flags, size_t count, void *context)
{
	if ((flags & FI_DISCARD) && !(flags & (FI_PEEK | FI_CLAIM)))
		return -FI_EINVAL;
	if ((flags & (FI_PEEK | FI_CLAIM)) && (flags & FI_MULTI_RECV))
		return -FI_EINVAL;
	/* a multi-receive buffer is one contiguous buffer */
	if ((flags & FI_MULTI_RECV) && count > 1)
		return -FI_EINVAL;
	/* the claim finds its message through the fi_context */
	if ((flags & FI_CLAIM) && context == NULL)
		return -FI_EINVAL;
	return 0;
}

/*
 * The request of a successful FI_PEEK | FI_CLAIM receive, kept (with its
 * channel context, which the engine knows the reserved message by) in
 * the first word of the application's struct fi_context.
 */
static struct uet_ofi_req *
claimed_req(struct uet_ofi_ep *ep, void *context)
{
	struct uet_ofi_req *r = ((struct fi_context *)context)->internal[0];

	if (r == NULL || r < ep->reqs || r >= ep->reqs + ep->nb_reqs ||
	    !r->claimed || r->user_ctx != context)
		return NULL;
	return r;
}

ssize_t
uet_ofi_post_rqe(struct uet_ofi_ep *ep, struct uet_chan_rqe *rqe,
		 const struct iovec *iov, void **desc, size_t count,
		 uint64_t flags, void *context, uint64_t cq_flags)
{
	struct uet_ofi_req *r;
	struct uet_ofi_cq *cq = ep->rx_cq;
	uint32_t f = 0;
	ssize_t rc;

	if (!ep->enabled)
		return -FI_EOPBADSTATE;
	if (ep->tx_only)
		return -FI_EOPNOTSUPP;
	rc = recv_flags_check(flags, count, context);
	if (rc < 0)
		return rc;
	uet_ofi_lock(&ep->lock);
	if ((flags & (FI_CLAIM | FI_PEEK)) == FI_CLAIM) {
		r = claimed_req(ep, context);
		if (r == NULL) {
			rc = -FI_EINVAL;
			goto unlock_only;
		}
	} else {
		r = uet_ofi_req_get(ep, true);
	}
	if (r == NULL) {
		rc = -FI_EAGAIN;
		goto unlock;
	}
	if (cq != NULL && uet_ofi_cq_reserve(cq) < 0) {
		rc = -FI_EAGAIN;
		goto put;
	}
	r->user_ctx = context;
	r->cq_flags = cq_flags;
	r->buf = count ? iov[0].iov_base : NULL;
	r->cntr = UET_OFI_CNTR_RECV;
	r->cq_reserved = (flags & FI_MULTI_RECV) ? 2 : (cq != NULL);
	r->want_cq = cq != NULL &&
		     (!ep->rx_selective || (flags & FI_COMPLETION));
	r->no_entry = 0;
	r->peek_claim = (flags & (FI_PEEK | FI_CLAIM | FI_DISCARD)) ==
			(FI_PEEK | FI_CLAIM);
	r->no_data = (flags & (FI_PEEK | FI_DISCARD)) != 0;
	if (!r->claimed) {
		r->bounce = NULL;
		r->bounce_heap = 0;
	}
	if (ep->svc != NULL)
		rc = uet_ofi_service_rqe(ep, r, rqe, iov, count, flags);
	else
		rc = uet_ofi_req_buffers(ep, r, iov, desc, count, false, true,
					 &rqe->addr, &rqe->len,
					 &rqe->local_desc, &f);
	if (rc < 0)
		goto unreserve;
	rqe->flags |= f;
	if (flags & FI_PEEK)
		rqe->flags |= UET_CHAN_F_PEEK;
	if (flags & FI_CLAIM)
		rqe->flags |= UET_CHAN_F_CLAIM;
	if (flags & FI_DISCARD)
		rqe->flags |= UET_CHAN_F_DISCARD;
	if (flags & FI_MULTI_RECV) {
		rqe->flags |= UET_CHAN_F_MULTI_RECV;
		/* RECV has no ignore mask: it carries min_multi_recv */
		if (rqe->op == UET_CHAN_RQ_RECV)
			rqe->ignore = ep->min_multi_recv;
	}
	rqe->context = uet_ofi_req_ctx(ep, r);
	if (uet_chan_rq_post(ep->chan, rqe) < 0) {
		rc = -FI_EAGAIN;
		goto unreserve;
	}
	r->claimed = 0;
	uet_ofi_unlock(&ep->lock);
	return 0;

unreserve:
	if (cq != NULL)
		uet_ofi_cq_unreserve(cq);
put:
	/* a claim keeps its request for the next try */
	if (!r->claimed)
		uet_ofi_req_put(ep, r);
unlock:
	uet_ofi_unlock(&ep->lock);
	if (rc == -FI_EAGAIN)
		uet_ofi_ep_progress(ep);
	return rc;
unlock_only:
	uet_ofi_unlock(&ep->lock);
	return rc;
}

/* ---- fi_ops_msg ---- */

static ssize_t
msg_recvmsg(struct fid_ep *fid, const struct fi_msg *msg, uint64_t flags)
{
	struct uet_ofi_ep *ep = uet_ofi_ep_of(fid);
	struct uet_chan_rqe rqe;

	if (msg == NULL)
		return -FI_EINVAL;
	if (!(ep->caps & FI_MSG) || !(ep->caps & FI_RECV))
		return -FI_EOPNOTSUPP;
	if ((flags & FI_MULTI_RECV) && !(ep->caps & FI_MULTI_RECV))
		return -FI_EOPNOTSUPP;
	memset(&rqe, 0, sizeof(rqe));
	rqe.op = UET_CHAN_RQ_RECV;
	if ((ep->caps & FI_DIRECTED_RECV) && msg->addr != FI_ADDR_UNSPEC) {
		rqe.src = uet_ofi_ep_dest(ep, msg->addr);
		if (rqe.src == 0)
			return -FI_EINVAL;
		rqe.flags |= UET_CHAN_F_SRC_FILTER;
	}
	if (unlikely(flags & FI_TRIGGER))
		return uet_ofi_trig_defer(ep, &(struct uet_ofi_trig_call){
			.kind = FI_OP_RECV, .msg = msg,
			.context = msg->context }, flags);
	return uet_ofi_post_rqe(ep, &rqe, msg->msg_iov, msg->desc,
				msg->iov_count, flags, msg->context,
				FI_RECV | FI_MSG);
}

static ssize_t
msg_recvv(struct fid_ep *fid, const struct iovec *iov, void **desc,
	  size_t count, fi_addr_t src, void *context)
{
	struct fi_msg m = {
		.msg_iov = iov, .desc = desc, .iov_count = count, .addr = src,
		.context = context,
	};

	return msg_recvmsg(fid, &m, uet_ofi_rx_flags(fid) | FI_COMPLETION);
}

static ssize_t
msg_recv(struct fid_ep *fid, void *buf, size_t len, void *desc,
	 fi_addr_t src, void *context)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };

	return msg_recvv(fid, &iov, &desc, 1, src, context);
}

static ssize_t
msg_sendmsg(struct fid_ep *fid, const struct fi_msg *msg, uint64_t flags)
{
	struct uet_ofi_ep *ep = uet_ofi_ep_of(fid);
	struct uet_chan_sqe sqe;

	if (msg == NULL)
		return -FI_EINVAL;
	if (!ep->enabled)
		return -FI_EOPBADSTATE;
	if (!(ep->caps & FI_MSG) || !(ep->caps & FI_SEND))
		return -FI_EOPNOTSUPP;
	memset(&sqe, 0, sizeof(sqe));
	sqe.op = ep->type == FI_EP_DGRAM ? UET_CHAN_OP_DGRAM_SEND :
					   UET_CHAN_OP_SEND;
	sqe.dest = uet_ofi_ep_dest(ep, msg->addr);
	if (sqe.dest == 0)
		return -FI_EINVAL;
	sqe.imm_data = msg->data;
	if (unlikely(flags & FI_TRIGGER))
		return uet_ofi_trig_defer(ep, &(struct uet_ofi_trig_call){
			.kind = FI_OP_SEND, .msg = msg,
			.context = msg->context }, flags);
	return uet_ofi_post_sqe(ep, &sqe, msg->msg_iov, msg->desc,
				msg->iov_count, flags, msg->context,
				FI_SEND | FI_MSG, UET_OFI_CNTR_SEND, NULL);
}

static ssize_t
msg_sendv(struct fid_ep *fid, const struct iovec *iov, void **desc,
	  size_t count, fi_addr_t dest, void *context)
{
	struct fi_msg m = {
		.msg_iov = iov, .desc = desc, .iov_count = count, .addr = dest,
		.context = context,
	};

	return msg_sendmsg(fid, &m, uet_ofi_tx_flags(fid) | FI_COMPLETION);
}

static ssize_t
msg_send(struct fid_ep *fid, const void *buf, size_t len, void *desc,
	 fi_addr_t dest, void *context)
{
	struct iovec iov = { .iov_base = (void *)(uintptr_t)buf,
			     .iov_len = len };

	return msg_sendv(fid, &iov, &desc, 1, dest, context);
}

static ssize_t
msg_senddata(struct fid_ep *fid, const void *buf, size_t len, void *desc,
	     uint64_t data, fi_addr_t dest, void *context)
{
	struct iovec iov = { .iov_base = (void *)(uintptr_t)buf,
			     .iov_len = len };
	struct fi_msg m = {
		.msg_iov = &iov, .desc = &desc, .iov_count = 1, .addr = dest,
		.context = context, .data = data,
	};

	return msg_sendmsg(fid, &m, uet_ofi_tx_flags(fid) | FI_COMPLETION |
					    FI_REMOTE_CQ_DATA);
}

static ssize_t
msg_inject(struct fid_ep *fid, const void *buf, size_t len, fi_addr_t dest)
{
	struct iovec iov = { .iov_base = (void *)(uintptr_t)buf,
			     .iov_len = len };
	struct fi_msg m = {
		.msg_iov = &iov, .iov_count = 1, .addr = dest,
	};

	return msg_sendmsg(fid, &m, FI_INJECT | UET_OFI_NO_CQ);
}

static ssize_t
msg_injectdata(struct fid_ep *fid, const void *buf, size_t len,
	       uint64_t data, fi_addr_t dest)
{
	struct iovec iov = { .iov_base = (void *)(uintptr_t)buf,
			     .iov_len = len };
	struct fi_msg m = {
		.msg_iov = &iov, .iov_count = 1, .addr = dest, .data = data,
	};

	return msg_sendmsg(fid, &m, FI_INJECT | UET_OFI_NO_CQ |
					    FI_REMOTE_CQ_DATA);
}

const struct fi_ops_msg uet_ofi_msg_ops = {
	.size = sizeof(struct fi_ops_msg),
	.recv = msg_recv,
	.recvv = msg_recvv,
	.recvmsg = msg_recvmsg,
	.send = msg_send,
	.sendv = msg_sendv,
	.sendmsg = msg_sendmsg,
	.inject = msg_inject,
	.senddata = msg_senddata,
	.injectdata = msg_injectdata,
};
