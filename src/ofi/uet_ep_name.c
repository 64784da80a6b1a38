/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fi_setname (fi_cm(3)) of an endpoint: a name in either address format
 * the provider advertises, and the PIDonFEP the endpoint moves to.
 */
#include <string.h>

#include <rdma/fi_errno.h>

#include "uet_ofi_private.h"

/*
 * The format of a name given to fi_setname: either of the two the
 * provider's fi_getinfo entries advertise (FI_SOCKADDR_IN, FI_SOCKADDR
 * being the same sockaddr_in, and UET_OFI_ADDR_FORMAT), told apart by
 * their first bytes as fi_av_insert does, whatever the domain's own
 * addr_format: an application may hold its name in the other one.
 */
static int
setname_format(const void *addr, size_t addrlen, uint32_t *fmt)
{
	uint32_t f;

	if (addr == NULL || addrlen < sizeof(sa_family_t)) {
		UET_OFI_REPORT(FI_LOG_EP_CTRL, "fi_setname: no address "
			       "(%zu bytes)", addrlen);
		return -FI_EINVAL;
	}
	f = uet_ofi_addr_format_of(addr);
	if (f != FI_SOCKADDR_IN && f != UET_OFI_ADDR_FORMAT) {
		UET_OFI_REPORT(FI_LOG_EP_CTRL,
			       "fi_setname: the address is %s (first bytes "
			       "%02x %02x), not FI_SOCKADDR_IN (FI_SOCKADDR: "
			       "AF_INET) nor UET_OFI_ADDR_FORMAT, the formats "
			       "of an endpoint's name",
			       uet_ofi_addr_format_name(f),
			       ((const uint8_t *)addr)[0],
			       ((const uint8_t *)addr)[1]);
		return -FI_EINVAL;
	}
	if (addrlen < uet_ofi_addrlen(f)) {
		UET_OFI_REPORT(FI_LOG_EP_CTRL,
			       "fi_setname: %s address of %zu bytes, not %zu",
			       uet_ofi_addr_format_name(f), addrlen,
			       uet_ofi_addrlen(f));
		return -FI_EINVAL;
	}
	*fmt = f;
	return 0;
}

/*
 * Move an endpoint not yet enabled to PIDonFEP @p want (0: where it is):
 * fi_endpoint took its PIDonFEP already (uet_ofi_ep_pid_take), so the
 * name fi_setname gives is taken now, or refused with the endpoint left
 * where it was. A scalable endpoint's PIDonFEP (a block, with named
 * receive contexts) is named by its src_addr only.
 */
static int
ep_pid_move(struct uet_ofi_ep *ep, uint16_t want)
{
	uint16_t old = ep->pid;
	int rc;

	if (want == 0 || want == old)
		return 0;
	if (ep->is_sep) {
		UET_OFI_REPORT(FI_LOG_EP_CTRL, "fi_setname: a scalable "
			       "endpoint's PIDonFEP is its src_addr's (%u), "
			       "not %u", old, want);
		return -FI_EOPNOTSUPP;
	}
	uet_ofi_fabric_pid_put(ep->dom->fab, ep->dom->ctx, ep, old);
	ep->pid_held = false;
	ep->want_pid = want;
	rc = uet_ofi_ep_pid_take(ep);
	if (rc == 0)
		return 0;
	UET_OFI_REPORT(FI_LOG_EP_CTRL, "fi_setname: PIDonFEP %u: %s", want,
		       fi_strerror(-rc));
	ep->want_pid = old;
	if (uet_ofi_ep_pid_take(ep) < 0)
		UET_OFI_REPORT(FI_LOG_EP_CTRL, "fi_setname: the endpoint lost "
			       "its PIDonFEP %u", old);
	return rc;
}

/*
 * fi_setname (fi_cm(3)): before fi_enable, the address the endpoint is
 * reached at, the FA of the domain's port and a PIDonFEP. The rest of a
 * UET_OFI_ADDR_FORMAT name (profile, caps, initiator id, RI window) is
 * the provider's, as for any endpoint.
 */
int
uet_ofi_ep_setname(fid_t fid, void *addr, size_t addrlen)
{
	const unsigned int fam = UET_OFI_ADDR_F_IPV4 | UET_OFI_ADDR_F_IPV6;
	static const uint8_t any[4];
	struct uet_ofi_ep *ep = container_of(fid, struct uet_ofi_ep, ep_fid.fid);
	struct uet_ofi_addr a;
	uint32_t fmt;
	int rc;

	if (ep->enabled || ep->sep != NULL)
		return -FI_EOPBADSTATE;
	rc = setname_format(addr, addrlen, &fmt);
	if (rc < 0)
		return rc;
	rc = uet_ofi_addr_import(addr, addrlen, fmt, ep->dom->profile,
				 ntohs(ep->addr.caps), &a);
	if (rc < 0) {
		UET_OFI_REPORT(FI_LOG_EP_CTRL, "fi_setname: not a valid %s "
			       "address", uet_ofi_addr_format_name(fmt));
		return rc;
	}
	if (!uet_ofi_port_has_addr(&ep->dom->port, &a)) {
		UET_OFI_REPORT(FI_LOG_EP_CTRL, "fi_setname: not the FA of "
			       "the domain's port");
		return -FI_EADDRNOTAVAIL;
	}
	rc = ep_pid_move(ep, uet_ofi_addr_pid(&a));
	if (rc < 0)
		return rc;
	/* the unspecified IPv4 FA (any) keeps the port's */
	if ((a.flags & UET_OFI_ADDR_F_IPV6) || memcmp(a.fa, any, 4) != 0) {
		ep->addr.flags = (uint8_t)((ep->addr.flags & ~fam) |
					   (a.flags & fam));
		memcpy(ep->addr.fa, a.fa, sizeof(a.fa));
	}
	return 0;
}
