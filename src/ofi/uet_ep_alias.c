/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Endpoint aliases (fi_ep_alias, fi_endpoint(3)): another fid_ep for the
 * same endpoint with default operation flags of its own, e.g. FI_TRIGGER
 * on every transmit (fabtests' fi_rdm_rma_trigger). An alias is a struct
 * uet_ofi_ep whose alias_of names the endpoint: the data calls resolve
 * it (uet_ofi_ep_of) and read its op flags (uet_ofi_op_flags); its other
 * calls forward to the endpoint. The endpoint cannot close before its
 * aliases (-FI_EBUSY).
 */
#include <stdlib.h>
#include <string.h>

#include "uet_ofi_private.h"

static struct uet_ofi_ep *
alias_base(fid_t fid)
{
	return container_of(fid, struct uet_ofi_ep, ep_fid.fid)->alias_of;
}

static int
alias_close(struct fid *fid)
{
	struct uet_ofi_ep *a = container_of(fid, struct uet_ofi_ep, ep_fid.fid);

	atomic_fetch_sub(&a->alias_of->ref, 1);
	free(a);
	return 0;
}

static int
alias_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
	(void)fid; (void)bfid; (void)flags;
	return -FI_EINVAL; /* bindings are the endpoint's */
}

static int
alias_control(struct fid *fid, int command, void *arg)
{
	struct uet_ofi_ep *a = container_of(fid, struct uet_ofi_ep, ep_fid.fid);
	uint64_t *f = arg;

	switch (command) {
	case FI_GETOPSFLAG:
		if (f == NULL || ((*f & FI_TRANSMIT) && (*f & FI_RECV)))
			return -FI_EINVAL;
		*f = (*f & FI_RECV) ? a->rx_op_flags : a->tx_op_flags;
		return 0;
	case FI_SETOPSFLAG:
		if (f == NULL)
			return -FI_EINVAL;
		if (*f & FI_RECV)
			a->rx_op_flags = *f & ~(uint64_t)FI_RECV;
		else
			a->tx_op_flags = *f & ~(uint64_t)FI_TRANSMIT;
		return 0;
	default:
		return fi_control(&a->alias_of->ep_fid.fid, command, arg);
	}
}

static struct fi_ops alias_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = alias_close,
	.bind = alias_bind,
	.control = alias_control,
	.ops_open = uet_ofi_fid_ops_open_enosys,
	.tostr = uet_ofi_fid_tostr_enosys,
	.ops_set = uet_ofi_fid_ops_set_enosys,
};

static ssize_t
alias_cancel(fid_t fid, void *context)
{
	return fi_cancel(&alias_base(fid)->ep_fid.fid, context);
}

static int
alias_getopt(fid_t fid, int level, int name, void *val, size_t *len)
{
	return fi_getopt(&alias_base(fid)->ep_fid.fid, level, name, val, len);
}

static int
alias_setopt(fid_t fid, int level, int name, const void *val, size_t len)
{
	return fi_setopt(&alias_base(fid)->ep_fid.fid, level, name, val, len);
}

static int
alias_tx_ctx(struct fid_ep *sep, int index, struct fi_tx_attr *attr,
	     struct fid_ep **ep, void *context)
{
	(void)sep; (void)index; (void)attr; (void)ep; (void)context;
	return -FI_ENOSYS;
}

static int
alias_rx_ctx(struct fid_ep *sep, int index, struct fi_rx_attr *attr,
	     struct fid_ep **ep, void *context)
{
	(void)sep; (void)index; (void)attr; (void)ep; (void)context;
	return -FI_ENOSYS;
}

static ssize_t
alias_rx_size_left(struct fid_ep *fid)
{
	struct uet_ofi_ep *ep = alias_base(&fid->fid);

	return ep->ep_fid.ops->rx_size_left(&ep->ep_fid);
}

static ssize_t
alias_tx_size_left(struct fid_ep *fid)
{
	struct uet_ofi_ep *ep = alias_base(&fid->fid);

	return ep->ep_fid.ops->tx_size_left(&ep->ep_fid);
}

static struct fi_ops_ep alias_ep_ops = {
	.size = sizeof(struct fi_ops_ep),
	.cancel = alias_cancel,
	.getopt = alias_getopt,
	.setopt = alias_setopt,
	.tx_ctx = alias_tx_ctx,
	.rx_ctx = alias_rx_ctx,
	.rx_size_left = alias_rx_size_left,
	.tx_size_left = alias_tx_size_left,
};

static int
alias_getname(fid_t fid, void *addr, size_t *addrlen)
{
	return fi_getname(&alias_base(fid)->ep_fid.fid, addr, addrlen);
}

static int
alias_setname(fid_t fid, void *addr, size_t addrlen)
{
	(void)fid; (void)addr; (void)addrlen;
	return -FI_EOPBADSTATE; /* the endpoint's name is set on it */
}

static struct fi_ops_cm alias_cm_ops;

/* the connection calls are the endpoint's (ENOSYS: connectionless) */
__attribute__((constructor)) static void
alias_cm_ops_init(void)
{
	alias_cm_ops = uet_ofi_cm_enosys;
	alias_cm_ops.size = sizeof(struct fi_ops_cm);
	alias_cm_ops.getname = alias_getname;
	alias_cm_ops.setname = alias_setname;
}

int
uet_ofi_ep_alias(struct uet_ofi_ep *ep, struct fi_alias *alias)
{
	struct uet_ofi_ep *a;
	uint64_t dir;

	if (alias == NULL || alias->fid == NULL)
		return -FI_EINVAL;
	/* fi_endpoint(3): the flags are the alias's default op flags for
	 * the directions they name (FI_TRANSMIT, FI_RECV) */
	dir = alias->flags & (FI_TRANSMIT | FI_RECV);
	if (dir == 0 || ep->is_sep || ep->alias_of != NULL)
		return -FI_EINVAL;
	a = calloc(1, sizeof(*a));
	if (a == NULL)
		return -FI_ENOMEM;
	a->ep_fid = ep->ep_fid;
	a->ep_fid.fid.ops = &alias_fi_ops;
	a->ep_fid.ops = &alias_ep_ops;
	a->ep_fid.cm = &alias_cm_ops;
	a->alias_of = ep;
	a->tx_op_flags = ep->tx_op_flags;
	a->rx_op_flags = ep->rx_op_flags;
	if (dir & FI_TRANSMIT)
		a->tx_op_flags = alias->flags & ~(uint64_t)(FI_TRANSMIT |
							   FI_RECV);
	if (dir & FI_RECV)
		a->rx_op_flags = alias->flags & ~(uint64_t)(FI_TRANSMIT |
							   FI_RECV);
	atomic_fetch_add(&ep->ref, 1);
	*alias->fid = &a->ep_fid.fid;
	return 0;
}
