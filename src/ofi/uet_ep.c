/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Endpoints: FI_EP_RDM and FI_EP_DGRAM active endpoints (scalable
 * endpoints and their contexts: uet_sep.c). fi_enable() creates the
 * endpoint's channel (SQ, RQ, CQ rings, docs/CHANNELS.md) and its pool of
 * request slots, and attaches the channel to an engine context. Every
 * SQE/RQE context is a request slot; uet_ofi_ep_progress()
 * (uet_ep_progress.c) turns CQEs back into CQ entries and counter events
 * and recycles the slots.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_errno.h>

#include <uet/uet_engine.h>

#include "uet_ofi_private.h"

#include <rdma/fi_collective.h>

/* ---- bind / enable / close ---- */

static int
bind_cq(struct uet_ofi_ep *ep, struct uet_ofi_cq *cq, uint64_t flags)
{
	int rc;

	if (flags & ~(uint64_t)(FI_TRANSMIT | FI_RECV | FI_SELECTIVE_COMPLETION))
		return -FI_EBADFLAGS;
	if (!(flags & (FI_TRANSMIT | FI_RECV)))
		return -FI_EINVAL;
	if (((flags & FI_TRANSMIT) && ep->tx_cq != NULL) ||
	    ((flags & FI_RECV) && ep->rx_cq != NULL))
		return -FI_EINVAL;
	if (((flags & FI_TRANSMIT) && ep->rx_only) ||
	    ((flags & FI_RECV) && ep->tx_only))
		return -FI_EINVAL;
	rc = uet_ofi_waitable_ep_add(&cq->w, ep);
	if (rc < 0)
		return rc;
	if (flags & FI_TRANSMIT) {
		ep->tx_cq = cq;
		ep->tx_selective = (flags & FI_SELECTIVE_COMPLETION) != 0;
	}
	if (flags & FI_RECV) {
		ep->rx_cq = cq;
		ep->rx_selective = (flags & FI_SELECTIVE_COMPLETION) != 0;
	}
	return 0;
}

static int
bind_cntr(struct uet_ofi_ep *ep, struct uet_ofi_cntr *c, uint64_t flags)
{
	static const uint64_t bit[UET_OFI_CNTR_KINDS] = {
		FI_SEND, FI_RECV, FI_READ, FI_WRITE, FI_REMOTE_READ,
		FI_REMOTE_WRITE,
	};
	int rc;

	if (flags == 0 || (flags & ~(uint64_t)(FI_SEND | FI_RECV | FI_READ |
					       FI_WRITE | FI_REMOTE_READ |
					       FI_REMOTE_WRITE)))
		return -FI_EBADFLAGS;
	for (int k = 0; k < UET_OFI_CNTR_KINDS; k++)
		if ((flags & bit[k]) && ep->cntr[k] != NULL)
			return -FI_EINVAL;
	rc = uet_ofi_waitable_ep_add(&c->w, ep);
	if (rc < 0)
		return rc;
	for (int k = 0; k < UET_OFI_CNTR_KINDS; k++)
		if (flags & bit[k])
			ep->cntr[k] = c;
	return 0;
}

static int
ep_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
	struct uet_ofi_ep *ep = container_of(fid, struct uet_ofi_ep, ep_fid.fid);

	if (bfid == NULL)
		return -FI_EINVAL;
	if (ep->enabled)
		return -FI_EINVAL; /* bindings are fixed once enabled */
	switch (bfid->fclass) {
	case FI_CLASS_CQ: {
		struct uet_ofi_cq *cq =
			container_of(bfid, struct uet_ofi_cq, cq_fid.fid);

		if (ep->is_sep || cq->dom != ep->dom)
			return -FI_EINVAL;
		return bind_cq(ep, cq, flags);
	}
	case FI_CLASS_CNTR: {
		struct uet_ofi_cntr *c =
			container_of(bfid, struct uet_ofi_cntr, cntr_fid.fid);

		if (ep->is_sep || c->dom != ep->dom)
			return -FI_EINVAL;
		return bind_cntr(ep, c, flags);
	}
	case FI_CLASS_AV: {
		struct uet_ofi_av *av =
			container_of(bfid, struct uet_ofi_av, av_fid.fid);

		if (ep->sep != NULL || av->dom != ep->dom || ep->av != NULL)
			return -FI_EINVAL;
		ep->av = av;
		atomic_fetch_add(&av->ref, 1);
		return 0;
	}
	case FI_CLASS_EQ: {
		struct uet_ofi_eq *eq =
			container_of(bfid, struct uet_ofi_eq, eq_fid.fid);

		if (ep->eq != NULL)
			return -FI_EINVAL;
		ep->eq = eq;
		atomic_fetch_add(&eq->w.ref, 1);
		return 0;
	}
	case FI_CLASS_STX_CTX:
	case FI_CLASS_SRX_CTX:
		return -FI_ENOSYS;
	default:
		return -FI_EINVAL;
	}
}

static void
reqs_free(struct uet_ofi_ep *ep)
{
	/* the channel is closed: the service no longer uses the chunks of
	 * what was still in flight */
	for (uint32_t i = 0; ep->svc != NULL && ep->reqs != NULL &&
			     i < ep->nb_reqs; i++)
		uet_ofi_service_release(ep, &ep->reqs[i]);
	free(ep->reqs);
	ep->reqs = NULL;
	free(ep->bounce_mem);
	ep->bounce_mem = NULL;
	ep->bounce_free = 0;
}

static int
reqs_create(struct uet_ofi_ep *ep)
{
	size_t tx = ep->rx_only ? 0 : ep->tx_size;
	size_t rx = ep->tx_only ? 0 : ep->rx_size;
	uint32_t i;

	ep->nb_reqs = (uint32_t)(tx + rx);
	ep->reqs = calloc(ep->nb_reqs ? ep->nb_reqs : 1, sizeof(*ep->reqs));
	if (ep->reqs == NULL)
		return -FI_ENOMEM;
	/* multi-entry iovs go through these (uet_ofi_req_buffers) */
	ep->bounce_size = uet_ofi_params()->iov_bounce_size;
	ep->bounce_mem = malloc(UET_OFI_BOUNCE_COUNT * ep->bounce_size);
	if (ep->bounce_mem == NULL && ep->bounce_size != 0) {
		reqs_free(ep);
		return -FI_ENOMEM;
	}
	ep->bounce_free = (1u << UET_OFI_BOUNCE_COUNT) - 1;
	ep->tx_free = ep->rx_free = 0;
	for (i = (uint32_t)tx; i > 0; i--) {
		ep->reqs[i - 1].next_free = ep->tx_free;
		ep->tx_free = i;
	}
	for (i = ep->nb_reqs; i > tx; i--) {
		ep->reqs[i - 1].rx = 1;
		ep->reqs[i - 1].next_free = ep->rx_free;
		ep->rx_free = i;
	}
	return 0;
}

struct uet_ofi_req *
uet_ofi_req_get(struct uet_ofi_ep *ep, bool rx)
{
	uint32_t *head = rx ? &ep->rx_free : &ep->tx_free;
	struct uet_ofi_req *r;

	if (*head == 0)
		return NULL;
	r = &ep->reqs[*head - 1];
	*head = r->next_free;
	r->busy = 1;
	if (rx)
		ep->rx_inflight++;
	else
		ep->tx_inflight++;
	return r;
}

void
uet_ofi_req_put(struct uet_ofi_ep *ep, struct uet_ofi_req *r)
{
	uint32_t idx = (uint32_t)(r - ep->reqs) + 1;

	uet_ofi_req_bounce_done(ep, r, 0);
	r->nb_res = 0;
	if (unlikely(r->win_len != 0))
		uet_ofi_service_release(ep, r);
	r->busy = 0;
	if (r->rx) {
		r->next_free = ep->rx_free;
		ep->rx_free = idx;
		ep->rx_inflight--;
	} else {
		r->next_free = ep->tx_free;
		ep->tx_free = idx;
		ep->tx_inflight--;
	}
}

static void
ep_job_del(struct uet_ofi_ep *ep)
{
	struct uet_ses_ulp_ctl q = {
		.op = UET_SES_ULP_JOB_DEL, .job = ep->job,
		.has_pid = true, .pid = ep->pid,
	};

	if (!ep->job_added)
		return;
	(void)uet_ofi_fabric_ctl(ep->dom->fab, ep->dom->ctx, &q);
	ep->job_added = false;
}

static int
ep_enable(struct uet_ofi_ep *ep)
{
	struct uet_ofi_fabric *fab = ep->dom->fab;
	int rc;

	if (ep->enabled)
		return 0;
	if (ep->type == FI_EP_RDM && ep->sep == NULL && ep->av == NULL)
		return -FI_ENOAV;
	if (ep->sep != NULL && ep->sep->av == NULL)
		return -FI_ENOAV;
	rc = reqs_create(ep);
	if (rc < 0)
		return rc;
	/* the endpoint's job for its process: authorisation and the MSG,
	 * RMA and rendezvous tables (a tx context needs the latter too) */
	{
		struct uet_ses_ulp_ctl q = {
			.op = UET_SES_ULP_JOB_ADD, .job = ep->job,
			.has_pid = true, .pid = ep->pid,
		};

		rc = uet_ofi_fabric_ctl(fab, ep->dom->ctx, &q);
		if (rc < 0)
			goto free_reqs;
		ep->job_added = true;
	}
	/* the channel sends and receives as the endpoint's process */
	rc = uet_ofi_fabric_chan_open(fab, ep);
	if (rc < 0)
		goto job_del;
	ep->enabled = true;
	return 0;

job_del:
	ep_job_del(ep);
free_reqs:
	reqs_free(ep);
	return rc;
}

static int
ep_control(struct fid *fid, int command, void *arg)
{
	struct uet_ofi_ep *ep = container_of(fid, struct uet_ofi_ep, ep_fid.fid);

	switch (command) {
	case FI_ENABLE:
		if (ep->is_sep) {
			if (ep->av == NULL)
				return -FI_ENOAV;
			ep->enabled = true;
			return 0;
		}
		return ep_enable(ep);
	case FI_ALIAS:
		return uet_ofi_ep_alias(ep, arg);
	case FI_GETOPSFLAG: {
		uint64_t *f = arg;

		if (f == NULL)
			return -FI_EINVAL;
		if ((*f & FI_TRANSMIT) && (*f & FI_RECV))
			return -FI_EINVAL;
		*f = (*f & FI_RECV) ? ep->rx_op_flags : ep->tx_op_flags;
		return 0;
	}
	case FI_SETOPSFLAG: {
		uint64_t *f = arg;

		if (f == NULL)
			return -FI_EINVAL;
		if (*f & FI_RECV)
			ep->rx_op_flags = *f & ~(uint64_t)FI_RECV;
		else
			ep->tx_op_flags = *f & ~(uint64_t)FI_TRANSMIT;
		return 0;
	}
	default:
		return -FI_ENOSYS;
	}
}

static void
ep_unbind_all(struct uet_ofi_ep *ep)
{
	struct uet_ofi_cntr *seen[UET_OFI_CNTR_KINDS] = { 0 };
	int ns = 0;

	if (ep->tx_cq != NULL)
		uet_ofi_waitable_ep_del(&ep->tx_cq->w, ep);
	if (ep->rx_cq != NULL && ep->rx_cq != ep->tx_cq)
		uet_ofi_waitable_ep_del(&ep->rx_cq->w, ep);
	for (int k = 0; k < UET_OFI_CNTR_KINDS; k++) {
		bool dup = false;

		if (ep->cntr[k] == NULL)
			continue;
		for (int j = 0; j < ns; j++)
			dup |= seen[j] == ep->cntr[k];
		if (!dup) {
			seen[ns++] = ep->cntr[k];
			uet_ofi_waitable_ep_del(&ep->cntr[k]->w, ep);
		}
	}
	if (ep->av != NULL)
		atomic_fetch_sub(&ep->av->ref, 1);
	if (ep->eq != NULL)
		atomic_fetch_sub(&ep->eq->w.ref, 1);
}

static int
ep_close(struct fid *fid)
{
	struct uet_ofi_ep *ep = container_of(fid, struct uet_ofi_ep, ep_fid.fid);

	if (atomic_load(&ep->ref) > 0)
		return -FI_EBUSY;
	uet_ofi_trig_drop_ep(ep);
	/* detach (its receives are withdrawn), then the job and the
	 * process go; the channel last */
	if (ep->chan != NULL)
		uet_ofi_fabric_chan_detach(ep->dom->fab, ep);
	ep_job_del(ep);
	if (ep->chan != NULL)
		uet_ofi_fabric_chan_free(ep->dom->fab, ep);
	if (ep->pid_held && ep->nb_pids > 0)
		uet_ofi_fabric_pid_block_put(ep->dom->fab, ep->pid,
					     ep->nb_pids);
	else if (ep->pid_held)
		uet_ofi_fabric_pid_put(ep->dom->fab, ep->dom->ctx, ep, ep->pid);
	ep_unbind_all(ep);
	if (ep->sep != NULL) {
		struct uet_ofi_ep **slot = ep->tx_only ?
			&ep->sep->tx_ctx[ep->ctx_index] :
			&ep->sep->rx_ctx[ep->ctx_index];

		*slot = NULL;
		atomic_fetch_sub(&ep->sep->ref, 1);
	} else {
		atomic_fetch_sub(&ep->dom->ref, 1);
	}
	free(ep->tx_ctx);
	free(ep->rx_ctx);
	reqs_free(ep);
	fi_freeinfo(ep->info);
	uet_ofi_lock_fini(&ep->lock);
	free(ep);
	return 0;
}

static struct fi_ops ep_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = ep_close,
	.bind = ep_bind,
	.control = ep_control,
	.ops_open = uet_ofi_fid_ops_open_enosys,
	.tostr = uet_ofi_fid_tostr_enosys,
	.ops_set = uet_ofi_fid_ops_set_enosys,
};

/* ---- fi_ops_ep ---- */

static ssize_t
ep_cancel(fid_t fid, void *context)
{
	struct uet_ofi_ep *ep = container_of(fid, struct uet_ofi_ep, ep_fid.fid);
	struct uet_chan_rqe rqe;
	ssize_t rc = -FI_ENOENT;

	if (!ep->enabled || ep->is_sep)
		return -FI_EOPBADSTATE;
	uet_ofi_lock(&ep->lock);
	/* cancel applies to posted receives: find the slot by context */
	for (uint32_t i = 0; i < ep->nb_reqs; i++) {
		struct uet_ofi_req *r = &ep->reqs[i];
		bool is_free = false;

		if (!r->rx || r->user_ctx != context)
			continue;
		for (uint32_t f = ep->rx_free; f != 0;
		     f = ep->reqs[f - 1].next_free)
			if (f - 1 == i) {
				is_free = true;
				break;
			}
		if (is_free)
			continue;
		memset(&rqe, 0, sizeof(rqe));
		rqe.op = UET_CHAN_RQ_CANCEL;
		rqe.context = uet_ofi_req_ctx(ep, r);
		rc = uet_chan_rq_post(ep->chan, &rqe) == 0 ? 0 : -FI_EAGAIN;
		break;
	}
	uet_ofi_unlock(&ep->lock);
	return rc;
}

int
uet_ofi_ep_getopt(fid_t fid, int level, int optname, void *optval,
		  size_t *optlen)
{
	struct uet_ofi_ep *ep = container_of(fid, struct uet_ofi_ep, ep_fid.fid);
	size_t v;

	if (level != FI_OPT_ENDPOINT)
		return -FI_ENOPROTOOPT;
	if (optval == NULL || optlen == NULL || *optlen < sizeof(size_t))
		return -FI_EINVAL;
	switch (optname) {
	case FI_OPT_MIN_MULTI_RECV:
		v = ep->min_multi_recv;
		break;
	case FI_OPT_TX_SIZE:
		v = ep->tx_size;
		break;
	case FI_OPT_RX_SIZE:
		v = ep->rx_size;
		break;
	default:
		return -FI_ENOPROTOOPT;
	}
	memcpy(optval, &v, sizeof(v));
	*optlen = sizeof(v);
	return 0;
}

int
uet_ofi_ep_setopt(fid_t fid, int level, int optname, const void *optval,
		  size_t optlen)
{
	struct uet_ofi_ep *ep = container_of(fid, struct uet_ofi_ep, ep_fid.fid);
	size_t v;

	if (level != FI_OPT_ENDPOINT)
		return -FI_ENOPROTOOPT;
	if (optval == NULL || optlen != sizeof(size_t))
		return -FI_EINVAL;
	memcpy(&v, optval, sizeof(v));
	switch (optname) {
	case FI_OPT_MIN_MULTI_RECV:
		ep->min_multi_recv = v;
		return 0;
	case FI_OPT_TX_SIZE:
	case FI_OPT_RX_SIZE:
		if (ep->enabled)
			return -FI_EOPBADSTATE;
		if (v == 0 || v > UET_OFI_QUEUE_MAX)
			return -FI_EINVAL;
		if (optname == FI_OPT_TX_SIZE)
			ep->tx_size = v;
		else
			ep->rx_size = v;
		return 0;
	default:
		return -FI_ENOPROTOOPT;
	}
}

static ssize_t
ep_rx_size_left(struct fid_ep *fid)
{
	struct uet_ofi_ep *ep = container_of(fid, struct uet_ofi_ep, ep_fid);

	if (!ep->enabled)
		return -FI_EOPBADSTATE;
	return (ssize_t)(ep->tx_only ? 0 : ep->rx_size - ep->rx_inflight);
}

static ssize_t
ep_tx_size_left(struct fid_ep *fid)
{
	struct uet_ofi_ep *ep = container_of(fid, struct uet_ofi_ep, ep_fid);

	if (!ep->enabled)
		return -FI_EOPBADSTATE;
	return (ssize_t)(ep->rx_only ? 0 : ep->tx_size - ep->tx_inflight);
}

static int
ctx_enosys(struct fid_ep *sep, int index, struct fi_tx_attr *attr,
	   struct fid_ep **ep, void *context)
{
	(void)sep; (void)index; (void)attr; (void)ep; (void)context;
	return -FI_ENOSYS;
}

static int
rx_ctx_enosys(struct fid_ep *sep, int index, struct fi_rx_attr *attr,
	      struct fid_ep **ep, void *context)
{
	(void)sep; (void)index; (void)attr; (void)ep; (void)context;
	return -FI_ENOSYS;
}

static struct fi_ops_ep ep_ops = {
	.size = sizeof(struct fi_ops_ep),
	.cancel = ep_cancel,
	.getopt = uet_ofi_ep_getopt,
	.setopt = uet_ofi_ep_setopt,
	.tx_ctx = ctx_enosys,
	.rx_ctx = rx_ctx_enosys,
	.rx_size_left = ep_rx_size_left,
	.tx_size_left = ep_tx_size_left,
};

/* ---- CM: names ---- */


static int
ep_getname(fid_t fid, void *addr, size_t *addrlen)
{
	struct uet_ofi_ep *ep = container_of(fid, struct uet_ofi_ep, ep_fid.fid);

	if (ep->sep != NULL)
		ep = ep->sep;
	return uet_ofi_addr_export(&ep->addr, ep->dom->addr_format, addr,
				   addrlen);
}

static int
ep_getpeer(struct fid_ep *e, void *addr, size_t *addrlen)
{
	(void)e; (void)addr; (void)addrlen;
	return -FI_ENOSYS; /* connectionless */
}

static struct fi_ops_cm ep_cm_ops;

/* ---- open ---- */

/* @p a names the domain's port (its FA; the unspecified IPv4 address
 * stands for any). */
bool
uet_ofi_port_has_addr(const struct uet_ofi_port_info *p,
		      const struct uet_ofi_addr *a)
{
	static const uint8_t any[4];

	if (a->flags & UET_OFI_ADDR_F_IPV6)
		return p->has_ipv6 && memcmp(p->ipv6, a->fa, 16) == 0;
	return memcmp(a->fa, any, 4) == 0 ||
	       (p->has_ipv4 && memcmp(p->ipv4, a->fa, 4) == 0);
}

int
uet_ofi_ep_common_init(struct uet_ofi_ep *ep, struct uet_ofi_domain *d,
	       const struct fi_info *info, void *context)
{
	const struct fi_ep_attr *ea = info->ep_attr;
	uint8_t fa[16] = { 0 };
	bool v6 = !d->port.has_ipv4 && d->port.has_ipv6;
	int rc;

	ep->dom = d;
	ep->type = ea != NULL && ea->type != FI_EP_UNSPEC ? ea->type : FI_EP_RDM;
	if (ep->type != FI_EP_RDM && ep->type != FI_EP_DGRAM)
		return -FI_EINVAL;
	ep->caps = info->caps ? info->caps :
				uet_ofi_profile_caps(d->profile, ep->type) &
				~d->fab->svc_lim.caps_off;
	if (ep->caps & ~uet_ofi_profile_caps(d->profile, ep->type) &
	    ~(uint64_t)(FI_LOCAL_COMM | FI_REMOTE_COMM | FI_SOURCE_ERR |
			FI_RMA_EVENT) &
	    ~(uint64_t)(d->fab->svc != NULL ? FI_SHARED_AV : 0))
		return -FI_ENOSYS; /* not in this profile (UEC 1.0 profiles) */
	/* what the service (when attached to one) does not offer */
	if (ep->caps & d->fab->svc_lim.caps_off &
	    ~(uint64_t)(FI_RMA_EVENT | FI_READ | FI_WRITE | FI_REMOTE_READ |
			FI_REMOTE_WRITE))
		return -FI_ENOSYS;
	ep->tx_size = info->tx_attr && info->tx_attr->size ?
		      info->tx_attr->size : UET_OFI_TX_SIZE_DEF;
	ep->rx_size = info->rx_attr && info->rx_attr->size ?
		      info->rx_attr->size : UET_OFI_RX_SIZE_DEF;
	if (ep->tx_size > UET_OFI_QUEUE_MAX || ep->rx_size > UET_OFI_QUEUE_MAX)
		return -FI_EINVAL;
	ep->tx_op_flags = info->tx_attr ? info->tx_attr->op_flags : 0;
	ep->rx_op_flags = info->rx_attr ? info->rx_attr->op_flags : 0;
	ep->min_multi_recv = 64;
	rc = uet_ofi_job_from_key(d, ea ? ea->auth_key : NULL,
				  ea ? ea->auth_key_size : 0, &ep->job);
	if (rc < 0)
		return rc;
	if (v6)
		memcpy(fa, d->port.ipv6, 16);
	else
		memcpy(fa, d->port.ipv4, 4);
	/* the engine context of the domain is the process on the FEP: its
	 * PIDonFEP and initiator id are the endpoint's */
	uet_ofi_addr_make(&ep->addr, fa, v6, d->pid, d->profile,
			  uet_ofi_addr_caps(ep->caps, ep->type, d->profile));
	ep->addr.initiator_id = htonl(d->initiator);
	ep->pid = d->pid;
	ep->initiator = d->initiator;
	if (info->src_addr != NULL && info->src_addrlen > 0) {
		struct uet_ofi_addr a;

		rc = uet_ofi_addr_import(info->src_addr, info->src_addrlen,
					 d->addr_format, d->profile,
					 ntohs(ep->addr.caps), &a);
		if (rc < 0)
			return rc;
		if (!uet_ofi_port_has_addr(&d->port, &a)) {
			FI_WARN(&uet_prov, FI_LOG_EP_CTRL,
				"src_addr: not the FA of the domain's port\n");
			return -FI_EADDRNOTAVAIL;
		}
		/* bound to a service: the endpoint is that PIDonFEP
		 * (ep_pid_take); 0 lets the provider pick one */
		ep->want_pid = uet_ofi_addr_pid(&a);
	}
	ep->tx_mode = uet_ofi_params()->def_data_dc ? UET_CHAN_MODE_ROD :
						      UET_CHAN_MODE_RUD;
	if (info->tx_attr != NULL &&
	    (info->tx_attr->msg_order & (FI_ORDER_SAS | FI_ORDER_RAW |
					 FI_ORDER_WAW | FI_ORDER_WAR |
					 FI_ORDER_RAR)))
		ep->tx_mode = UET_CHAN_MODE_ROD;
	uet_ofi_lock_init(&ep->lock, !uet_ofi_lockless(d));
	ep->info = fi_dupinfo(info);
	if (ep->info == NULL) {
		uet_ofi_lock_fini(&ep->lock);
		return -FI_ENOMEM;
	}
	ep->ep_fid.fid.fclass = FI_CLASS_EP;
	ep->ep_fid.fid.context = context;
	ep->ep_fid.fid.ops = &ep_fi_ops;
	ep->ep_fid.ops = &ep_ops;
	ep->ep_fid.cm = &ep_cm_ops;
	ep->ep_fid.collective = (struct fi_ops_collective *)&uet_ofi_coll_enosys;
	if (ep->type == FI_EP_DGRAM) {
		atomic_store(&d->fab->dgram, true);
		ep->ep_fid.msg = (struct fi_ops_msg *)&uet_ofi_msg_ops;
		ep->ep_fid.tagged = (struct fi_ops_tagged *)&uet_ofi_tagged_enosys;
		ep->ep_fid.rma = (struct fi_ops_rma *)&uet_ofi_rma_enosys;
		ep->ep_fid.atomic = (struct fi_ops_atomic *)&uet_ofi_atomic_enosys;
	} else {
		ep->ep_fid.msg = (struct fi_ops_msg *)&uet_ofi_msg_ops;
		ep->ep_fid.tagged = (struct fi_ops_tagged *)&uet_ofi_tagged_ops;
		ep->ep_fid.rma = (struct fi_ops_rma *)&uet_ofi_rma_ops;
		ep->ep_fid.atomic = (struct fi_ops_atomic *)&uet_ofi_atomic_ops;
	}
	return 0;
}

/*
 * The endpoint's process on the FEP: the first endpoint (or scalable
 * endpoint) of the domain's engine context takes the context's PIDonFEP
 * and initiator id, further ones an extra PIDonFEP with its own receive
 * context in the engine (EP_ADD at fi_enable) and a derived initiator id.
 */
int
uet_ofi_ep_pid_take(struct uet_ofi_ep *ep)
{
	int rc = uet_ofi_fabric_pid_get(ep->dom->fab, ep->dom->ctx, ep,
					ep->want_pid, &ep->pid,
					&ep->initiator);

	if (rc < 0)
		return rc;
	ep->pid_held = true;
	ep->addr.pid_on_fep = htons(ep->pid & UET_OFI_PID_MASK);
	ep->addr.initiator_id = htonl(ep->initiator);
	return 0;
}

int
uet_ofi_ep_open(struct fid_domain *domain, struct fi_info *info,
		struct fid_ep **ep_fid, void *context)
{
	struct uet_ofi_domain *d =
		container_of(domain, struct uet_ofi_domain, dom_fid);
	struct uet_ofi_ep *ep;
	int rc;

	if (info == NULL || ep_fid == NULL)
		return -FI_EINVAL;
	ep = calloc(1, sizeof(*ep));
	if (ep == NULL)
		return -FI_ENOMEM;
	rc = uet_ofi_ep_common_init(ep, d, info, context);
	if (rc == 0)
		rc = uet_ofi_ep_pid_take(ep);
	if (rc < 0) {
		if (ep->info != NULL) {
			fi_freeinfo(ep->info);
			uet_ofi_lock_fini(&ep->lock);
		}
		free(ep);
		return rc;
	}
	atomic_fetch_add(&d->ref, 1);
	*ep_fid = &ep->ep_fid;
	return 0;
}

/* Tables with function pointers defined above. */
static int cm_connect(struct fid_ep *e, const void *a, const void *p,
		      size_t l);

static int
cm_connect(struct fid_ep *e, const void *a, const void *p, size_t l)
{
	(void)e; (void)a; (void)p; (void)l;
	return -FI_ENOSYS;
}

static struct fi_ops_cm ep_cm_ops = {
	.size = sizeof(struct fi_ops_cm),
	.setname = uet_ofi_ep_setname,
	.getname = ep_getname,
	.getpeer = ep_getpeer,
	.connect = cm_connect,
};

/* fill the remaining CM calls from the enosys table at load time */
__attribute__((constructor)) static void
ep_cm_ops_init(void)
{
	ep_cm_ops.listen = uet_ofi_cm_enosys.listen;
	ep_cm_ops.accept = uet_ofi_cm_enosys.accept;
	ep_cm_ops.reject = uet_ofi_cm_enosys.reject;
	ep_cm_ops.shutdown = uet_ofi_cm_enosys.shutdown;
	ep_cm_ops.join = uet_ofi_cm_enosys.join;
}
