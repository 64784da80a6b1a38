/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fi_getinfo. One fi_info per (configured port, profile) for FI_EP_RDM, in
 * the order HPC, AI Full, AI Base, then one FI_EP_DGRAM entry per port.
 * The domain name is "<port device>-<profile>" with the suffixes "-hpc",
 * "-ai_full", "-ai_base"; the fabric name is "uet". Profiles differ in caps
 * (UEC 1.0 profiles): AI Base has no FI_READ/FI_REMOTE_READ and no
 * fetching atomics and a max_msg_size of one packet; AI Full and HPC send
 * up to 4 GiB - 1. docs/PROVIDER.md lists every attribute.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "uet_ofi_private.h"

#define CAPS_DIRS (FI_SEND | FI_RECV | FI_READ | FI_WRITE | FI_REMOTE_READ | \
		   FI_REMOTE_WRITE)
#define CAPS_SECONDARY (FI_LOCAL_COMM | FI_REMOTE_COMM | FI_SOURCE | \
			FI_MULTI_RECV | FI_DIRECTED_RECV)
#define ORDER_SUPPORTED (FI_ORDER_SAS | FI_ORDER_SAW | FI_ORDER_SAR | \
			 FI_ORDER_WAS | FI_ORDER_WAW | FI_ORDER_WAR | \
			 FI_ORDER_RAS | FI_ORDER_RAW | FI_ORDER_RAR | \
			 FI_ORDER_RMA_RAR | FI_ORDER_RMA_RAW | \
			 FI_ORDER_RMA_WAR | FI_ORDER_RMA_WAW | \
			 FI_ORDER_ATOMIC_RAR | FI_ORDER_ATOMIC_RAW | \
			 FI_ORDER_ATOMIC_WAR | FI_ORDER_ATOMIC_WAW)
#define TX_CAPS (FI_MSG | FI_TAGGED | FI_RMA | FI_ATOMIC | FI_SEND | \
		 FI_READ | FI_WRITE | FI_NAMED_RX_CTX | FI_TRIGGER)
#define RX_CAPS (FI_MSG | FI_TAGGED | FI_RMA | FI_ATOMIC | FI_RECV | \
		 FI_REMOTE_READ | FI_REMOTE_WRITE | FI_SOURCE | \
		 FI_MULTI_RECV | FI_DIRECTED_RECV | FI_RMA_EVENT | FI_TRIGGER)
#define TX_OP_FLAGS (FI_COMPLETION | FI_INJECT | FI_INJECT_COMPLETE | \
		     FI_TRANSMIT_COMPLETE | FI_DELIVERY_COMPLETE | FI_FENCE)
#define RX_OP_FLAGS (FI_COMPLETION | FI_MULTI_RECV)
#define MR_REQUIRED (FI_MR_PROV_KEY | FI_MR_ALLOCATED | FI_MR_VIRT_ADDR)

static const enum uet_wire_profile profiles[] = {
	UET_PROFILE_HPC, UET_PROFILE_AI_FULL, UET_PROFILE_AI_BASE,
};

const char *
uet_ofi_profile_suffix(enum uet_wire_profile p)
{
	switch (p) {
	case UET_PROFILE_HPC:
		return "-hpc";
	case UET_PROFILE_AI_FULL:
		return "-ai_full";
	case UET_PROFILE_AI_BASE:
		return "-ai_base";
	}
	return "";
}

enum uet_wire_profile
uet_ofi_profile_of_name(const char *name)
{
	size_t n, i, s;

	if (name == NULL)
		return 0;
	n = strlen(name);
	for (i = 0; i < sizeof(profiles) / sizeof(profiles[0]); i++) {
		const char *suf = uet_ofi_profile_suffix(profiles[i]);

		s = strlen(suf);
		if (n > s && strcmp(name + n - s, suf) == 0)
			return profiles[i];
	}
	return 0;
}

uint64_t
uet_ofi_profile_caps(enum uet_wire_profile p, enum fi_ep_type type)
{
	/* FI_TRIGGER: operations held until a counter reaches a threshold
	 * (uet_trigger.c) */
	uint64_t caps = FI_MSG | FI_SEND | FI_RECV | FI_SOURCE |
			FI_LOCAL_COMM | FI_REMOTE_COMM | FI_TRIGGER;

	if (type == FI_EP_DGRAM)
		return caps;
	/* FI_RMA_EVENT: FI_REMOTE_WRITE / FI_REMOTE_READ counters (and
	 * remote CQ data) count the peers' accesses (uet_ep.c) */
	caps |= FI_TAGGED | FI_MULTI_RECV | FI_DIRECTED_RECV | FI_RMA |
		FI_ATOMIC | FI_WRITE | FI_REMOTE_WRITE | FI_RMA_EVENT |
		FI_NAMED_RX_CTX;
	if (p != UET_PROFILE_AI_BASE)
		caps |= FI_READ | FI_REMOTE_READ;
	return caps;
}

int
uet_ofi_config_get(struct uet_config *cfg)
{
	const struct uet_ofi_params *p = uet_ofi_params();
	struct uet_config_error err;
	int rc;

	if (p->config_path[0] == '\0') {
		uet_config_init_defaults(cfg);
		return 0;
	}
	rc = uet_ofi_config_load(cfg, p->config_path, &err, NULL);
	if (rc == 0)
		rc = uet_config_validate(cfg, &err);
	if (rc < 0) {
		UET_OFI_REPORT(FI_LOG_CORE, "configuration %s rejected: %s",
			       p->config_path, err.msg);
		return -FI_EINVAL;
	}
	return 0;
}

static void
port_devname(const struct uet_config_port *cp, char *buf, size_t n)
{
	size_t len = strcspn(cp->devargs, ",");

	if (len >= n)
		len = n - 1;
	memcpy(buf, cp->devargs, len);
	buf[len] = '\0';
}

/* ---- matching ---- */

struct gi_req {
	uint32_t version;
	const char *node, *service;
	uint64_t flags;
	const struct fi_info *hints;
	bool have_src, have_dest;
	struct sockaddr_in src_sin, dest_sin;
	struct uet_ofi_addr src_uet, dest_uet;
	bool src_is_uet, dest_is_uet;
	bool inline_progress;
	struct uet_ofi_svc_limits svc; /* zero: in-process engine */
};

/*
 * The capabilities of an entry for requested @p req: the direction bits
 * restrict their own primary capabilities only (fi_getinfo(3)): FI_SEND /
 * FI_RECV the message ones, FI_READ / FI_WRITE / FI_REMOTE_* the RMA and
 * atomic ones; a group asked for without any of its bits gets them all
 * (fabtests fi_rma_bw asks FI_MSG | FI_RMA | FI_WRITE | FI_REMOTE_WRITE
 * and still receives messages).
 */
static uint64_t
result_caps(uint64_t entry, uint64_t req)
{
	const uint64_t msg_dirs = FI_SEND | FI_RECV;
	const uint64_t rma_dirs = FI_READ | FI_WRITE | FI_REMOTE_READ |
				  FI_REMOTE_WRITE;
	uint64_t caps;

	if (req == 0)
		return entry;
	caps = req | (entry & (FI_LOCAL_COMM | FI_REMOTE_COMM));
	if ((req & (FI_MSG | FI_TAGGED)) && !(req & msg_dirs))
		caps |= entry & msg_dirs;
	if ((req & (FI_RMA | FI_ATOMIC)) && !(req & rma_dirs))
		caps |= entry & rma_dirs;
	if (!(req & (FI_MSG | FI_TAGGED | FI_RMA | FI_ATOMIC)) &&
	    !(req & CAPS_DIRS))
		caps |= entry & CAPS_DIRS;
	return caps;
}

static bool
tx_match(const struct fi_tx_attr *h, const struct fi_tx_attr *e)
{
	if (h == NULL)
		return true;
	if ((h->caps & ~e->caps) || (h->op_flags & ~TX_OP_FLAGS) ||
	    (h->msg_order & ~ORDER_SUPPORTED) ||
	    (h->comp_order & ~FI_ORDER_NONE) ||
	    h->inject_size > e->inject_size || h->size > UET_OFI_QUEUE_MAX ||
	    h->iov_limit > e->iov_limit ||
	    h->rma_iov_limit > e->rma_iov_limit)
		return false;
	return true;
}

static bool
rx_match(const struct fi_rx_attr *h, const struct fi_rx_attr *e)
{
	if (h == NULL)
		return true;
	if ((h->caps & ~e->caps) || (h->op_flags & ~RX_OP_FLAGS) ||
	    (h->msg_order & ~ORDER_SUPPORTED) ||
	    (h->comp_order & ~FI_ORDER_NONE) || h->size > UET_OFI_QUEUE_MAX ||
	    h->iov_limit > e->iov_limit)
		return false;
	return true;
}

static bool
domain_match(const struct fi_domain_attr *h, const struct fi_domain_attr *e,
	     bool inline_progress)
{
	if (h == NULL)
		return true;
	if (h->name != NULL && strcmp(h->name, e->name) != 0)
		return false;
	if (h->control_progress == FI_PROGRESS_AUTO && inline_progress)
		return false;
	if (h->data_progress == FI_PROGRESS_AUTO && inline_progress)
		return false;
	if (h->av_type != FI_AV_UNSPEC && h->av_type != FI_AV_MAP &&
	    h->av_type != FI_AV_TABLE)
		return false;
	if (h->mr_key_size > e->mr_key_size ||
	    h->cq_data_size > e->cq_data_size || h->cq_cnt > e->cq_cnt ||
	    h->ep_cnt > e->ep_cnt || h->tx_ctx_cnt > e->tx_ctx_cnt ||
	    h->rx_ctx_cnt > e->rx_ctx_cnt ||
	    h->max_ep_tx_ctx > e->max_ep_tx_ctx ||
	    h->max_ep_rx_ctx > e->max_ep_rx_ctx || h->max_ep_stx_ctx ||
	    h->max_ep_srx_ctx || h->cntr_cnt > e->cntr_cnt ||
	    h->mr_iov_limit > e->mr_iov_limit || h->mr_cnt > e->mr_cnt)
		return false;
	if ((h->caps & ~e->caps) || h->auth_key_size > 4)
		return false;
	return true;
}

static bool
ep_match(const struct fi_ep_attr *h, const struct fi_ep_attr *e)
{
	if (h == NULL)
		return true;
	if (h->type != FI_EP_UNSPEC && h->type != e->type)
		return false;
	if (h->protocol != FI_PROTO_UNSPEC && h->protocol != e->protocol)
		return false;
	if (h->max_msg_size > e->max_msg_size ||
	    h->tx_ctx_cnt == FI_SHARED_CONTEXT ||
	    h->rx_ctx_cnt == FI_SHARED_CONTEXT ||
	    h->tx_ctx_cnt > UET_OFI_CTX_MAX || h->rx_ctx_cnt > UET_OFI_CTX_MAX ||
	    h->auth_key_size > 4 || h->msg_prefix_size > 0)
		return false;
	return true;
}

/* mr_mode of the result; -1 when no combination fits. *caps may lose the
 * RMA/atomic capabilities when the application did not ask for them and
 * cannot meet the mr_mode they need. */
static int64_t
mr_mode_of(const struct gi_req *r, uint64_t *caps)
{
	const struct fi_info *h = r->hints;
	uint64_t want, have;
	bool explicit_rma;

	if (!(*caps & (FI_RMA | FI_ATOMIC)))
		return 0;
	if (h == NULL || h->domain_attr == NULL)
		return MR_REQUIRED;
	have = (uint64_t)h->domain_attr->mr_mode;
	/* FI_MR_BASIC is the old name of exactly these three bits: answer
	 * in the application's terms (fi_mr(3)) */
	if (have == FI_MR_BASIC)
		return FI_MR_BASIC;
	if (r->version < FI_VERSION(1, 5))
		have = MR_REQUIRED;
	want = MR_REQUIRED;
	explicit_rma = (h->caps & (FI_RMA | FI_ATOMIC)) != 0;
	if ((have & want) != want) {
		if (explicit_rma)
			return -1;
		*caps &= ~(FI_RMA | FI_ATOMIC | FI_READ | FI_WRITE |
			   FI_REMOTE_READ | FI_REMOTE_WRITE);
		return (int64_t)(have & FI_MR_ENDPOINT);
	}
	return (int64_t)(want | (have & FI_MR_ENDPOINT));
}

/* ---- building ---- */

static struct fi_info *
entry_make(const struct uet_config *cfg, unsigned int port,
	   enum uet_wire_profile prof, enum fi_ep_type type, bool inline_progress)
{
	const struct uet_config_port *cp = &cfg->port[port];
	struct fi_info *fi = fi_allocinfo();
	char dev[64], name[96];
	uint64_t caps = uet_ofi_profile_caps(prof, type);
	uint64_t mtu = uet_config_port_mtu(cp);
	uint64_t pkt = mtu > UET_OFI_PKT_OVERHEAD ?
		       mtu - UET_OFI_PKT_OVERHEAD : 64;
	enum fi_progress prog = inline_progress ? FI_PROGRESS_MANUAL :
						  FI_PROGRESS_AUTO;

	if (fi == NULL)
		return NULL;
	port_devname(cp, dev, sizeof(dev));
	snprintf(name, sizeof(name), "%s%s", dev, uet_ofi_profile_suffix(prof));
	fi->caps = caps;
	fi->mode = 0;
	fi->addr_format = UET_OFI_ADDR_FORMAT;

	/* tx/rx attributes carry only the capabilities of their direction
	 * (fi_getinfo(3)): the domain-level LOCAL/REMOTE_COMM and the
	 * receive-side SOURCE, MULTI_RECV, DIRECTED_RECV stay off tx_attr */
	fi->tx_attr->caps = caps & TX_CAPS;
	fi->tx_attr->op_flags = 0;
	fi->tx_attr->msg_order = 0;
	fi->tx_attr->comp_order = FI_ORDER_NONE;
	fi->tx_attr->inject_size = UET_OFI_INJECT_MAX;
	fi->tx_attr->size = UET_OFI_TX_SIZE_DEF;
	fi->tx_attr->iov_limit = UET_OFI_IOV_MAX;
	fi->tx_attr->rma_iov_limit = type == FI_EP_RDM ? 1 : 0;

	fi->rx_attr->caps = caps & RX_CAPS;
	fi->rx_attr->op_flags = 0;
	fi->rx_attr->msg_order = 0;
	fi->rx_attr->comp_order = FI_ORDER_NONE;
	fi->rx_attr->total_buffered_recv = 0;
	fi->rx_attr->size = UET_OFI_RX_SIZE_DEF;
	fi->rx_attr->iov_limit = UET_OFI_IOV_MAX;

	fi->ep_attr->type = type;
	fi->ep_attr->protocol = UET_OFI_ADDR_FORMAT; /* provider specific */
	fi->ep_attr->protocol_version = 1;
	fi->ep_attr->max_msg_size = (type == FI_EP_DGRAM ||
				     prof == UET_PROFILE_AI_BASE) ?
				    pkt : UET_OFI_MSG_MAX;
	fi->ep_attr->msg_prefix_size = 0;
	fi->ep_attr->max_order_raw_size = fi->ep_attr->max_msg_size;
	fi->ep_attr->max_order_war_size = fi->ep_attr->max_msg_size;
	fi->ep_attr->max_order_waw_size = fi->ep_attr->max_msg_size;
	/* tags travel in the 64-bit match_bits field of the SES standard
	 * request header and match on all 64 bits: every bit is the
	 * application's (MPI layers carve their communicator, rank and tag
	 * fields out of it; zero makes them refuse the entry) */
	fi->ep_attr->mem_tag_format = (caps & FI_TAGGED) ?
				      UET_OFI_MEM_TAG_FORMAT : 0;
	fi->ep_attr->tx_ctx_cnt = 1;
	fi->ep_attr->rx_ctx_cnt = 1;

	fi->domain_attr->name = strdup(name);
	fi->domain_attr->threading = FI_THREAD_SAFE;
	fi->domain_attr->control_progress = prog;
	fi->domain_attr->data_progress = prog;
	fi->domain_attr->resource_mgmt = FI_RM_ENABLED;
	fi->domain_attr->av_type = FI_AV_UNSPEC;
	fi->domain_attr->mr_mode = (caps & FI_RMA) ? (int)MR_REQUIRED : 0;
	fi->domain_attr->mr_key_size = sizeof(uint64_t);
	fi->domain_attr->cq_data_size = sizeof(uint64_t);
	fi->domain_attr->cq_cnt = UET_OFI_CQ_MAX;
	fi->domain_attr->ep_cnt = UET_OFI_EP_MAX;
	fi->domain_attr->tx_ctx_cnt = UET_OFI_EP_MAX;
	fi->domain_attr->rx_ctx_cnt = UET_OFI_EP_MAX;
	fi->domain_attr->max_ep_tx_ctx = type == FI_EP_RDM ? UET_OFI_CTX_MAX : 1;
	fi->domain_attr->max_ep_rx_ctx = type == FI_EP_RDM ? UET_OFI_CTX_MAX : 1;
	fi->domain_attr->max_ep_stx_ctx = 0;
	fi->domain_attr->max_ep_srx_ctx = 0;
	fi->domain_attr->cntr_cnt = UET_OFI_CNTR_MAX;
	fi->domain_attr->mr_iov_limit = UET_OFI_IOV_MAX;
	fi->domain_attr->caps = FI_LOCAL_COMM | FI_REMOTE_COMM;
	fi->domain_attr->mode = 0;
	fi->domain_attr->auth_key_size = 3;
	fi->domain_attr->max_err_data = 0;
	fi->domain_attr->mr_cnt = UET_OFI_MR_MAX;
	fi->domain_attr->tclass = FI_TC_UNSPEC;

	fi->fabric_attr->name = strdup(UET_OFI_FABRIC_NAME);
	/* prov_name is filled in by the libfabric core */
	fi->fabric_attr->prov_version = UET_OFI_PROV_VERSION;
	fi->fabric_attr->api_version = UET_OFI_API_VERSION;
	if (fi->domain_attr->name == NULL || fi->fabric_attr->name == NULL) {
		fi_freeinfo(fi);
		return NULL;
	}
	return fi;
}

/* A service's limits (nothing for the in-process engine): capabilities
 * it cannot serve, messages larger than its data window. */
static void
entry_limit(struct fi_info *fi, const struct uet_ofi_svc_limits *lim)
{
	struct fi_ep_attr *ea = fi->ep_attr;

	fi->caps &= ~lim->caps_off;
	fi->tx_attr->caps &= ~lim->caps_off;
	fi->rx_attr->caps &= ~lim->caps_off;
	if (!(fi->caps & FI_RMA))
		fi->domain_attr->mr_mode = 0;
	if (lim->max_msg != 0 && ea->max_msg_size > lim->max_msg) {
		ea->max_msg_size = lim->max_msg;
		ea->max_order_raw_size = lim->max_msg;
		ea->max_order_war_size = lim->max_msg;
		ea->max_order_waw_size = lim->max_msg;
	}
}

static bool
port_has_fa(const struct uet_config_port *cp, const struct sockaddr_in *sin)
{
	if (sin->sin_addr.s_addr == htonl(INADDR_ANY))
		return true;
	return cp->has_ipv4 && memcmp(&cp->ipv4, &sin->sin_addr, 4) == 0;
}

static bool
port_has_uet_fa(const struct uet_config_port *cp, const struct uet_ofi_addr *a)
{
	if (a->flags & UET_OFI_ADDR_F_IPV6)
		return cp->has_ipv6 && memcmp(&cp->ipv6, a->fa, 16) == 0;
	return cp->has_ipv4 && memcmp(&cp->ipv4, a->fa, 4) == 0;
}

static int
set_addr(void **dst, size_t *dstlen, uint32_t fmt, const struct uet_ofi_addr *a)
{
	size_t len = uet_ofi_addrlen(fmt);
	void *p = calloc(1, len);
	int rc;

	if (p == NULL)
		return -FI_ENOMEM;
	rc = uet_ofi_addr_export(a, fmt, p, &len);
	if (rc < 0) {
		free(p);
		return rc;
	}
	*dst = p;
	*dstlen = len;
	return 0;
}

/* Adjust a template to hints; 0 keep, -FI_ENODATA drop, other errors. */
static int
entry_fit(struct fi_info *fi, const struct gi_req *r,
	  const struct uet_config_port *cp, enum uet_wire_profile prof)
{
	const struct fi_info *h = r->hints;
	uint32_t fmt = UET_OFI_ADDR_FORMAT;
	uint64_t caps = fi->caps;
	struct uet_ofi_addr a;
	uint8_t fa[16] = { 0 };
	uint16_t acaps;
	int64_t mr;
	int rc;

	if (h != NULL) {
		if (h->caps & ~fi->caps)
			return -FI_ENODATA;
		if (h->addr_format != FI_FORMAT_UNSPEC &&
		    !uet_ofi_fmt_sin(h->addr_format) &&
		    h->addr_format != UET_OFI_ADDR_FORMAT)
			return -FI_ENODATA;
		if (h->addr_format != FI_FORMAT_UNSPEC)
			fmt = h->addr_format;
		if (h->fabric_attr != NULL) {
			if (h->fabric_attr->name != NULL &&
			    strcmp(h->fabric_attr->name, UET_OFI_FABRIC_NAME))
				return -FI_ENODATA;
			if (h->fabric_attr->prov_name != NULL &&
			    strstr(h->fabric_attr->prov_name, UET_OFI_NAME) ==
				    NULL)
				return -FI_ENODATA;
		}
		if (!ep_match(h->ep_attr, fi->ep_attr) ||
		    !domain_match(h->domain_attr, fi->domain_attr,
				  r->inline_progress) ||
		    !tx_match(h->tx_attr, fi->tx_attr) ||
		    !rx_match(h->rx_attr, fi->rx_attr))
			return -FI_ENODATA;
		caps = result_caps(fi->caps, h->caps);
	}
	mr = mr_mode_of(r, &caps);
	if (mr < 0)
		return -FI_ENODATA;
	fi->caps = caps;
	fi->tx_attr->caps &= caps;
	fi->rx_attr->caps &= caps;
	fi->domain_attr->mr_mode = (int)mr;
	fi->addr_format = fmt;
	if (uet_ofi_fmt_sin(fmt) && !cp->has_ipv4)
		return -FI_ENODATA;

	if (h != NULL) {
		const struct fi_domain_attr *hd = h->domain_attr;
		const struct fi_tx_attr *ht = h->tx_attr;
		const struct fi_rx_attr *hr = h->rx_attr;

		if (hd != NULL) {
			if (hd->threading != FI_THREAD_UNSPEC)
				fi->domain_attr->threading = hd->threading;
			if (hd->control_progress != FI_PROGRESS_UNSPEC)
				fi->domain_attr->control_progress =
					hd->control_progress;
			if (hd->data_progress != FI_PROGRESS_UNSPEC)
				fi->domain_attr->data_progress =
					hd->data_progress;
			if (hd->resource_mgmt != FI_RM_UNSPEC)
				fi->domain_attr->resource_mgmt =
					hd->resource_mgmt;
			if (hd->av_type != FI_AV_UNSPEC)
				fi->domain_attr->av_type = hd->av_type;
			if (hd->auth_key != NULL && hd->auth_key_size > 0) {
				fi->domain_attr->auth_key =
					malloc(hd->auth_key_size);
				if (fi->domain_attr->auth_key == NULL)
					return -FI_ENOMEM;
				memcpy(fi->domain_attr->auth_key, hd->auth_key,
				       hd->auth_key_size);
				fi->domain_attr->auth_key_size =
					hd->auth_key_size;
			}
		}
		if (ht != NULL) {
			fi->tx_attr->op_flags = ht->op_flags;
			fi->tx_attr->msg_order = ht->msg_order;
			if (ht->size)
				fi->tx_attr->size = ht->size;
			if (ht->iov_limit)
				fi->tx_attr->iov_limit = ht->iov_limit;
			if (ht->inject_size)
				fi->tx_attr->inject_size = ht->inject_size;
		}
		if (hr != NULL) {
			fi->rx_attr->op_flags = hr->op_flags;
			fi->rx_attr->msg_order = hr->msg_order;
			if (hr->size)
				fi->rx_attr->size = hr->size;
			if (hr->iov_limit)
				fi->rx_attr->iov_limit = hr->iov_limit;
		}
		if (h->ep_attr != NULL) {
			if (h->ep_attr->tx_ctx_cnt)
				fi->ep_attr->tx_ctx_cnt = h->ep_attr->tx_ctx_cnt;
			if (h->ep_attr->rx_ctx_cnt)
				fi->ep_attr->rx_ctx_cnt = h->ep_attr->rx_ctx_cnt;
			if (h->ep_attr->max_msg_size)
				fi->ep_attr->max_msg_size =
					h->ep_attr->max_msg_size;
			if (h->ep_attr->auth_key != NULL &&
			    h->ep_attr->auth_key_size > 0) {
				fi->ep_attr->auth_key =
					malloc(h->ep_attr->auth_key_size);
				if (fi->ep_attr->auth_key == NULL)
					return -FI_ENOMEM;
				memcpy(fi->ep_attr->auth_key,
				       h->ep_attr->auth_key,
				       h->ep_attr->auth_key_size);
				fi->ep_attr->auth_key_size =
					h->ep_attr->auth_key_size;
			}
		}
	}

	/* addresses */
	acaps = uet_ofi_addr_caps(caps, fi->ep_attr->type, prof);
	if (!r->have_src) {
		/* the port's FA and PIDonFEP 0: "any process", the
		 * endpoint takes one at fi_endpoint (docs/PROVIDER.md) */
		if (cp->has_ipv4)
			memcpy(fa, &cp->ipv4, 4);
		else
			memcpy(fa, &cp->ipv6, 16);
		uet_ofi_addr_make(&a, fa, !cp->has_ipv4, 0, prof, acaps);
		rc = set_addr(&fi->src_addr, &fi->src_addrlen, fmt, &a);
		if (rc < 0)
			return rc == -FI_EADDRNOTAVAIL ? -FI_ENODATA : rc;
	} else {
		if (r->src_is_uet) {
			if (!port_has_uet_fa(cp, &r->src_uet))
				return -FI_ENODATA;
			a = r->src_uet;
			a.profile = (uint8_t)prof;
		} else {
			if (!port_has_fa(cp, &r->src_sin))
				return -FI_ENODATA;
			memcpy(fa, &cp->ipv4, 4);
			uet_ofi_addr_make(&a, fa, false,
					  ntohs(r->src_sin.sin_port) &
						  UET_OFI_PID_MASK,
					  prof, 0);
		}
		a.caps = htons(acaps);
		rc = set_addr(&fi->src_addr, &fi->src_addrlen, fmt, &a);
		if (rc < 0)
			return rc == -FI_EADDRNOTAVAIL ? -FI_ENODATA : rc;
	}
	if (r->have_dest) {
		if (r->dest_is_uet) {
			a = r->dest_uet;
		} else {
			memcpy(fa, &r->dest_sin.sin_addr, 4);
			uet_ofi_addr_make(&a, fa, false,
					  ntohs(r->dest_sin.sin_port) &
						  UET_OFI_PID_MASK,
					  prof, acaps);
			a.initiator_id = htonl(uet_ofi_initiator_default(&a));
		}
		rc = set_addr(&fi->dest_addr, &fi->dest_addrlen, fmt, &a);
		if (rc < 0)
			return rc == -FI_EADDRNOTAVAIL ? -FI_ENODATA : rc;
	}
	return 0;
}

static int
req_addrs(struct gi_req *r)
{
	const struct fi_info *h = r->hints;
	int rc;

	if (r->node != NULL || r->service != NULL) {
		struct sockaddr_in sin;

		rc = uet_ofi_resolve(r->node, r->service, &sin);
		if (rc < 0)
			return rc;
		if ((r->flags & FI_SOURCE) || r->node == NULL) {
			r->have_src = true;
			r->src_sin = sin;
		} else {
			r->have_dest = true;
			r->dest_sin = sin;
		}
	}
	if (h == NULL)
		return 0;
	if (h->src_addr != NULL && !r->have_src) {
		if (uet_ofi_fmt_sin(h->addr_format) &&
		    h->src_addrlen >= sizeof(struct sockaddr_in)) {
			memcpy(&r->src_sin, h->src_addr, sizeof(r->src_sin));
			if (r->src_sin.sin_family != AF_INET)
				return -FI_ENODATA;
		} else if (h->addr_format == UET_OFI_ADDR_FORMAT &&
			   h->src_addrlen >= sizeof(struct uet_ofi_addr)) {
			memcpy(&r->src_uet, h->src_addr, sizeof(r->src_uet));
			if (uet_ofi_addr_check(&r->src_uet) < 0)
				return -FI_ENODATA;
			r->src_is_uet = true;
		} else {
			return -FI_ENODATA;
		}
		r->have_src = true;
	}
	if (h->dest_addr != NULL && !r->have_dest) {
		if (uet_ofi_fmt_sin(h->addr_format) &&
		    h->dest_addrlen >= sizeof(struct sockaddr_in)) {
			memcpy(&r->dest_sin, h->dest_addr, sizeof(r->dest_sin));
			if (r->dest_sin.sin_family != AF_INET)
				return -FI_ENODATA;
		} else if (h->addr_format == UET_OFI_ADDR_FORMAT &&
			   h->dest_addrlen >= sizeof(struct uet_ofi_addr)) {
			memcpy(&r->dest_uet, h->dest_addr, sizeof(r->dest_uet));
			if (uet_ofi_addr_check(&r->dest_uet) < 0)
				return -FI_ENODATA;
			r->dest_is_uet = true;
		} else {
			return -FI_ENODATA;
		}
		r->have_dest = true;
	}
	return 0;
}

int
uet_ofi_getinfo(uint32_t version, const char *node, const char *service,
		uint64_t flags, const struct fi_info *hints,
		struct fi_info **info)
{
	static const enum fi_ep_type types[] = { FI_EP_RDM, FI_EP_DGRAM };
	struct uet_config cfg;
	struct gi_req r;
	struct fi_info *head = NULL, **tail = &head;
	unsigned int port, t, p;
	bool svc;
	int rc;

	*info = NULL;
	if (version < FI_VERSION(1, 5))
		return -FI_ENODATA;
	memset(&r, 0, sizeof(r));
	r.version = version;
	r.node = node;
	r.service = service;
	r.flags = flags;
	r.hints = hints;
	r.inline_progress = uet_ofi_params()->inline_progress;
	if (hints != NULL && hints->ep_attr != NULL &&
	    hints->ep_attr->type != FI_EP_UNSPEC &&
	    hints->ep_attr->type != FI_EP_RDM &&
	    hints->ep_attr->type != FI_EP_DGRAM)
		return -FI_ENODATA;
	rc = req_addrs(&r);
	if (rc < 0)
		return rc;
	svc = uet_ofi_service_configured();
	if (svc) {
		/* what the service says it is and can do */
		rc = uet_ofi_service_probe(&cfg, &r.svc);
		r.inline_progress = false;
	} else {
		rc = uet_ofi_config_get(&cfg);
	}
	if (rc < 0)
		return -FI_ENODATA;

	for (port = 0; port < UET_CONFIG_MAX_PORTS; port++) {
		if (!cfg.port[port].defined)
			continue;
		for (t = 0; t < 2; t++) {
			for (p = 0; p < 3; p++) {
				enum uet_wire_profile prof = profiles[p];
				struct fi_info *fi;

				if (types[t] == FI_EP_DGRAM) {
					if (p != 2)
						continue;
				}
				fi = entry_make(&cfg, port, prof, types[t],
						r.inline_progress);
				if (fi == NULL) {
					fi_freeinfo(head);
					return -FI_ENOMEM;
				}
				entry_limit(fi, &r.svc);
				if (svc) {
					/* named AVs (uet_av_shared.c): each
					 * process an attachment of its own */
					fi->caps |= FI_SHARED_AV;
					fi->domain_attr->caps |= FI_SHARED_AV;
				}
				rc = entry_fit(fi, &r, &cfg.port[port], prof);
				if (rc < 0) {
					fi_freeinfo(fi);
					if (rc == -FI_ENODATA)
						continue;
					fi_freeinfo(head);
					return rc;
				}
				*tail = fi;
				tail = &fi->next;
			}
		}
	}
	if (head == NULL)
		return -FI_ENODATA;
	*info = head;
	return 0;
}
