/* SPDX-License-Identifier: BSD-3-Clause */
/* The uet fi_info the provider tests open their objects from. */
#ifndef OFI_INFO_H
#define OFI_INFO_H

#include <stdint.h>
#include <string.h>

#include <rdma/fabric.h>

#include <uet/uet_ofi.h>

/*
 * uet's fi_info for @p domain (NULL: any) and endpoint @p type with
 * address format @p addr_format (FI_FORMAT_UNSPEC: the provider's), the
 * caps and mr_mode the tests use; NULL when fi_getinfo has none.
 */
static inline struct fi_info *
info_get_fmt(const char *domain, enum fi_ep_type type, uint32_t addr_format)
{
	struct fi_info *h = fi_allocinfo(), *fi = NULL;

	h->fabric_attr->prov_name = strdup("uet");
	/* libfabric layers ofi_rxd over our DGRAM endpoints; asking for
	 * the UET protocol keeps those entries out */
	h->ep_attr->protocol = UET_OFI_ADDR_FORMAT;
	h->ep_attr->type = type;
	h->caps = type == FI_EP_RDM ? FI_MSG | FI_TAGGED | FI_RMA | FI_ATOMIC :
				      FI_MSG;
	h->domain_attr->mr_mode = FI_MR_PROV_KEY | FI_MR_ALLOCATED |
				  FI_MR_VIRT_ADDR | FI_MR_ENDPOINT;
	if (domain)
		h->domain_attr->name = strdup(domain);
	h->tx_attr->size = 64;
	h->rx_attr->size = 64;
	h->addr_format = addr_format;
	if (fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, h, &fi) != 0)
		fi = NULL;
	fi_freeinfo(h);
	return fi;
}

#endif
