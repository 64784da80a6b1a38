/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Domain: one engine port (FEP) in one profile, named "<device>-<profile>"
 * by fi_getinfo. Holds the JobID of its auth_key, the MR key generator and
 * the threading level (FI_THREAD_DOMAIN objects run without locks).
 */
#include <stdlib.h>
#include <string.h>

#include <uet/uet_engine.h>

#include "uet_ofi_private.h"

static atomic_uint domain_seq;

bool
uet_ofi_lockless(const struct uet_ofi_domain *d)
{
	return d->threading == FI_THREAD_DOMAIN;
}

int
uet_ofi_job_from_key(const struct uet_ofi_domain *d, const void *key,
		     size_t key_size, uint32_t *job)
{
	const struct uet_ofi_params *p = uet_ofi_params();
	const uint8_t *k = key;
	uint32_t v;

	if (key != NULL && key_size > 0) {
		if (key_size == 3) {
			*job = ((uint32_t)k[0] << 16) | ((uint32_t)k[1] << 8) |
			       k[2];
			return 0;
		}
		if (key_size == 4) {
			memcpy(&v, key, 4);
			if (v > UET_OFI_JOB_MASK)
				return -FI_EINVAL;
			*job = v;
			return 0;
		}
		FI_WARN(&uet_prov, FI_LOG_DOMAIN,
			"auth_key must be 3 bytes (a 24-bit JobID), got %zu\n",
			key_size);
		return -FI_EINVAL;
	}
	if (d != NULL && d->has_job) {
		*job = d->job;
		return 0;
	}
	if (p->fallback_job) {
		*job = p->fallback_job_id;
		return 0;
	}
	FI_WARN(&uet_prov, FI_LOG_DOMAIN,
		"no auth_key (JobID) given and "
		"FI_UET_PROVIDER_FALLBACK_JOBID_SUPPORT is off\n");
	return -FI_EINVAL;
}

static int
domain_close(struct fid *fid)
{
	struct uet_ofi_domain *d =
		container_of(fid, struct uet_ofi_domain, dom_fid.fid);

	if (atomic_load(&d->ref) > 0)
		return -FI_EBUSY;
	atomic_fetch_sub(&d->fabh->ref, 1);
	uet_ofi_trig_domain_fini(d);
	fi_freeinfo(d->info);
	free(d);
	return 0;
}

static int
domain_stx(struct fid_domain *domain, struct fi_tx_attr *attr,
	   struct fid_stx **stx, void *context)
{
	(void)domain; (void)attr; (void)stx; (void)context;
	return -FI_ENOSYS; /* no shared contexts */
}

static int
domain_srx(struct fid_domain *domain, struct fi_rx_attr *attr,
	   struct fid_ep **rx_ep, void *context)
{
	(void)domain; (void)attr; (void)rx_ep; (void)context;
	return -FI_ENOSYS;
}

static int
domain_query_coll(struct fid_domain *domain, enum fi_collective_op coll,
		  struct fi_collective_attr *attr, uint64_t flags)
{
	(void)domain; (void)coll; (void)attr; (void)flags;
	return -FI_ENOSYS;
}

static int
domain_endpoint2(struct fid_domain *domain, struct fi_info *info,
		 struct fid_ep **ep, uint64_t flags, void *context)
{
	if (flags != 0)
		return -FI_EINVAL;
	return uet_ofi_ep_open(domain, info, ep, context);
}

static struct fi_ops domain_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = domain_close,
	.bind = uet_ofi_fid_bind_enosys,
	.control = uet_ofi_fid_control_enosys,
	.ops_open = uet_ofi_fid_ops_open_enosys,
	.tostr = uet_ofi_fid_tostr_enosys,
	.ops_set = uet_ofi_fid_ops_set_enosys,
};

static struct fi_ops_domain domain_ops = {
	.size = sizeof(struct fi_ops_domain),
	.av_open = uet_ofi_av_open,
	.cq_open = uet_ofi_cq_open,
	.endpoint = uet_ofi_ep_open,
	.scalable_ep = uet_ofi_sep_open,
	.cntr_open = uet_ofi_cntr_open,
	.poll_open = uet_ofi_poll_open,
	.stx_ctx = domain_stx,
	.srx_ctx = domain_srx,
	.query_atomic = uet_ofi_query_atomic,
	.query_collective = domain_query_coll,
	.endpoint2 = domain_endpoint2,
};

/* Port index whose device name prefixes @p name ("<dev>-<profile>"). */
static int
port_of_name(const struct uet_config *cfg, const char *name)
{
	for (unsigned int i = 0; i < UET_CONFIG_MAX_PORTS; i++) {
		const struct uet_config_port *cp = &cfg->port[i];
		size_t len = strcspn(cp->devargs, ",");

		if (!cp->defined)
			continue;
		if (name == NULL)
			return (int)i;
		if (strncmp(name, cp->devargs, len) == 0 && name[len] == '-')
			return (int)i;
	}
	return -1;
}

int
uet_ofi_domain_open(struct fid_fabric *fabric, struct fi_info *info,
		    struct fid_domain **dom, void *context)
{
	struct uet_ofi_fabric_hdl *fabh =
		container_of(fabric, struct uet_ofi_fabric_hdl, fabric_fid);
	struct uet_ofi_fabric *fab = fabh->fab;
	const struct fi_domain_attr *da = info ? info->domain_attr : NULL;
	const struct uet_config_port *cp;
	struct uet_ofi_domain *d;
	int port, rc;

	if (info == NULL || da == NULL)
		return -FI_EINVAL;
	port = port_of_name(&fab->cfg, da->name);
	if (port < 0) {
		FI_WARN(&uet_prov, FI_LOG_DOMAIN, "unknown domain '%s'\n",
			da->name);
		return -FI_EINVAL;
	}
	d = calloc(1, sizeof(*d));
	if (d == NULL)
		return -FI_ENOMEM;
	d->info = fi_dupinfo(info);
	if (d->info == NULL) {
		free(d);
		return -FI_ENOMEM;
	}
	d->fabh = fabh;
	d->fab = fab;
	d->profile = uet_ofi_profile_of_name(da->name);
	if (d->profile == 0)
		d->profile = UET_PROFILE_HPC;
	d->threading = da->threading == FI_THREAD_UNSPEC ? FI_THREAD_SAFE :
							    da->threading;
	d->mr_mode = (uint64_t)da->mr_mode;
	d->addr_format = info->addr_format == FI_FORMAT_UNSPEC ?
			 UET_OFI_ADDR_FORMAT : info->addr_format;
	if (!uet_ofi_fmt_sin(d->addr_format) &&
	    d->addr_format != UET_OFI_ADDR_FORMAT) {
		FI_WARN(&uet_prov, FI_LOG_DOMAIN,
			"address format %u not supported\n", d->addr_format);
		rc = -FI_EINVAL;
		goto free_info;
	}
	if (da->auth_key != NULL && da->auth_key_size > 0) {
		rc = uet_ofi_job_from_key(NULL, da->auth_key,
					  da->auth_key_size, &d->job);
		if (rc < 0)
			goto free_info;
		d->has_job = true;
	}
	cp = &fab->cfg.port[port];
	d->port.index = (unsigned int)port;
	d->port.has_ipv4 = cp->has_ipv4;
	d->port.has_ipv6 = cp->has_ipv6;
	memcpy(d->port.ipv4, &cp->ipv4, 4);
	memcpy(d->port.ipv6, &cp->ipv6, 16);
	d->port.mtu = (uint16_t)uet_config_port_mtu(cp);
	d->id = atomic_fetch_add(&domain_seq, 1);
	/* the engine context that serves the domain's endpoints and MRs */
	d->ctx = uet_ofi_fabric_ctx_pick(fab);
	rc = uet_ofi_fabric_identity(fab, d->ctx, &d->pid,
				  &d->initiator);
	if (rc != 0) {
		FI_WARN(&uet_prov, FI_LOG_DOMAIN,
			"engine context %u has no SES: %s\n", d->ctx,
			strerror(-rc));
		rc = uet_ofi_errno(rc);
		goto free_info;
	}

	pthread_mutex_init(&d->trig_lock, NULL);
	d->dom_fid.fid.fclass = FI_CLASS_DOMAIN;
	d->dom_fid.fid.context = context;
	d->dom_fid.fid.ops = &domain_fi_ops;
	d->dom_fid.ops = &domain_ops;
	d->dom_fid.mr = (struct fi_ops_mr *)&uet_ofi_mr_ops;
	atomic_fetch_add(&fabh->ref, 1);
	*dom = &d->dom_fid;
	return 0;

free_info:
	fi_freeinfo(d->info);
	free(d);
	return rc;
}
