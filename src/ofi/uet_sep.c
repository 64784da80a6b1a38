/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Scalable endpoints (fi_scalable_ep): a SEP holds the address and the
 * AV; its tx and rx contexts are endpoints of their own (each with a
 * channel, uet_ep.c) opened by fi_tx_context / fi_rx_context. With
 * FI_NAMED_RX_CTX and several rx contexts, the SEP takes a block of
 * PIDonFEPs: rx context i is the process PIDonFEP + i, which a sender
 * selects with fi_rx_addr().
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "uet_ofi_private.h"

/* ---- scalable endpoints ---- */

static struct uet_ofi_ep *
ctx_open(struct uet_ofi_ep *sep, int index, bool tx, void *context,
	 size_t size, uint64_t op_flags, int *rc)
{
	struct uet_ofi_ep *c = calloc(1, sizeof(*c));

	if (c == NULL) {
		*rc = -FI_ENOMEM;
		return NULL;
	}
	*rc = uet_ofi_ep_common_init(c, sep->dom, sep->info, context);
	if (*rc < 0) {
		free(c);
		return NULL;
	}
	c->sep = sep;
	c->ctx_index = index;
	c->tx_only = tx;
	c->rx_only = !tx;
	c->addr = sep->addr;
	c->job = sep->job;
	c->pid = sep->pid;
	/* named receive contexts: context i is its own process, PIDonFEP
	 * of the SEP + i, which fi_rx_addr() selects at the sender */
	if (!tx && sep->nb_pids > 1)
		c->pid = (uint16_t)((sep->pid + index) & UET_OFI_PID_MASK);
	c->initiator = sep->initiator;
	c->ep_fid.fid.fclass = tx ? FI_CLASS_TX_CTX : FI_CLASS_RX_CTX;
	if (size)
		*(tx ? &c->tx_size : &c->rx_size) = size;
	if (op_flags)
		*(tx ? &c->tx_op_flags : &c->rx_op_flags) = op_flags;
	atomic_fetch_add(&sep->ref, 1);
	return c;
}

static int
sep_tx_ctx(struct fid_ep *fid, int index, struct fi_tx_attr *attr,
	   struct fid_ep **tx_ep, void *context)
{
	struct uet_ofi_ep *sep = container_of(fid, struct uet_ofi_ep, ep_fid);
	struct uet_ofi_ep *c;
	int rc;

	if (index < 0 || index >= sep->nb_tx_ctx || sep->tx_ctx[index] != NULL)
		return -FI_EINVAL;
	c = ctx_open(sep, index, true, context, attr ? attr->size : 0,
		     attr ? attr->op_flags : 0, &rc);
	if (c == NULL)
		return rc;
	sep->tx_ctx[index] = c;
	*tx_ep = &c->ep_fid;
	return 0;
}

static int
sep_rx_ctx(struct fid_ep *fid, int index, struct fi_rx_attr *attr,
	   struct fid_ep **rx_ep, void *context)
{
	struct uet_ofi_ep *sep = container_of(fid, struct uet_ofi_ep, ep_fid);
	struct uet_ofi_ep *c;
	int rc;

	if (index < 0 || index >= sep->nb_rx_ctx || sep->rx_ctx[index] != NULL)
		return -FI_EINVAL;
	c = ctx_open(sep, index, false, context, attr ? attr->size : 0,
		     attr ? attr->op_flags : 0, &rc);
	if (c == NULL)
		return rc;
	sep->rx_ctx[index] = c;
	*rx_ep = &c->ep_fid;
	return 0;
}

static ssize_t
sep_cancel(fid_t fid, void *context)
{
	(void)fid; (void)context;
	return -FI_ENOSYS; /* cancel on the rx contexts */
}

static ssize_t
sep_size_left(struct fid_ep *ep)
{
	(void)ep;
	return -FI_ENOSYS;
}

static struct fi_ops_ep sep_ops = {
	.size = sizeof(struct fi_ops_ep),
	.cancel = sep_cancel,
	.getopt = uet_ofi_ep_getopt,
	.setopt = uet_ofi_ep_setopt,
	.tx_ctx = sep_tx_ctx,
	.rx_ctx = sep_rx_ctx,
	.rx_size_left = sep_size_left,
	.tx_size_left = sep_size_left,
};

int
uet_ofi_sep_open(struct fid_domain *domain, struct fi_info *info,
		 struct fid_ep **sep_fid, void *context)
{
	struct uet_ofi_domain *d =
		container_of(domain, struct uet_ofi_domain, dom_fid);
	struct uet_ofi_ep *sep;
	int rc, ntx, nrx;

	if (info == NULL || info->ep_attr == NULL || sep_fid == NULL)
		return -FI_EINVAL;
	if (info->ep_attr->type != FI_EP_RDM)
		return -FI_ENOSYS;
	ntx = (int)(info->ep_attr->tx_ctx_cnt ? info->ep_attr->tx_ctx_cnt : 1);
	nrx = (int)(info->ep_attr->rx_ctx_cnt ? info->ep_attr->rx_ctx_cnt : 1);
	if (ntx > UET_OFI_CTX_MAX || nrx > UET_OFI_CTX_MAX)
		return -FI_EINVAL;
	sep = calloc(1, sizeof(*sep));
	if (sep == NULL)
		return -FI_ENOMEM;
	rc = uet_ofi_ep_common_init(sep, d, info, context);
	if (rc < 0) {
		free(sep);
		return rc;
	}
	if ((sep->caps & FI_NAMED_RX_CTX) && nrx > 1) {
		rc = uet_ofi_fabric_pid_block(d->fab, sep->want_pid,
					      (unsigned int)nrx, &sep->pid,
					      &sep->initiator);
		if (rc == 0) {
			sep->nb_pids = (unsigned int)nrx;
			sep->pid_held = true;
			sep->addr.pid_on_fep = htons(sep->pid);
			sep->addr.initiator_id = htonl(sep->initiator);
		}
	} else {
		rc = uet_ofi_ep_pid_take(sep);
	}
	if (rc < 0) {
		fi_freeinfo(sep->info);
		uet_ofi_lock_fini(&sep->lock);
		free(sep);
		return rc;
	}
	sep->is_sep = true;
	sep->nb_tx_ctx = ntx;
	sep->nb_rx_ctx = nrx;
	sep->tx_ctx = calloc((size_t)ntx, sizeof(*sep->tx_ctx));
	sep->rx_ctx = calloc((size_t)nrx, sizeof(*sep->rx_ctx));
	if (sep->tx_ctx == NULL || sep->rx_ctx == NULL) {
		free(sep->tx_ctx);
		free(sep->rx_ctx);
		if (sep->nb_pids > 0)
			uet_ofi_fabric_pid_block_put(d->fab, sep->pid,
						     sep->nb_pids);
		else
			uet_ofi_fabric_pid_put(d->fab, d->ctx, sep, sep->pid);
		fi_freeinfo(sep->info);
		uet_ofi_lock_fini(&sep->lock);
		free(sep);
		return -FI_ENOMEM;
	}
	sep->ep_fid.fid.fclass = FI_CLASS_SEP;
	sep->ep_fid.ops = &sep_ops;
	/* data transfers go through the contexts */
	sep->ep_fid.msg = (struct fi_ops_msg *)&uet_ofi_msg_enosys;
	sep->ep_fid.tagged = (struct fi_ops_tagged *)&uet_ofi_tagged_enosys;
	sep->ep_fid.rma = (struct fi_ops_rma *)&uet_ofi_rma_enosys;
	sep->ep_fid.atomic = (struct fi_ops_atomic *)&uet_ofi_atomic_enosys;
	atomic_fetch_add(&d->ref, 1);
	*sep_fid = &sep->ep_fid;
	return 0;
}

