/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Provider entry point. fi_prov_ini() only defines and reads parameters:
 * no EAL, no engine, no allocation that outlives the call. The EAL and the
 * engine start at fi_fabric() (uet_fabric.c).
 */
#include <assert.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include <rte_log.h>

#include "uet_ofi_private.h"

RTE_LOG_REGISTER(uet_ofi_logtype, uet.ofi, NOTICE);

void
uet_ofi_report(enum fi_log_subsys subsys, const char *func, int line,
	       const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (fi_log_enabled(&uet_prov, FI_LOG_WARN, subsys))
		fi_log(&uet_prov, FI_LOG_WARN, subsys, func, line, "%s\n",
		       msg);
	else
		rte_log(RTE_LOG_ERR, uet_ofi_logtype, "uet.ofi: %s\n", msg);
}

/*
 * libfabric lists every utility provider that can layer over a core
 * provider's entries: ofi_rxd over our DGRAM entry gives "uet;ofi_rxd",
 * and libfabric orders it ahead of a provider it does not know, so an
 * application asking for RDM from "uet" (Open MPI's provider_include,
 * fi_pingpong -p uet) would get rxd's software reliability instead of
 * UET's own RUD/ROD. libfabric's core keeps one flag per provider that
 * turns this off (it sets it itself for sockets, shm, efa, psm3, ucx and
 * cxi): a utility provider then layers over the provider only when the
 * application names the pair ("uet;ofi_rxd"). The flag lives in the
 * provider's fi_context, after the provider type (an enum) and the
 * logging flag (a bool); libfabric 1.17 up to 2.x read it at byte 5.
 */
#define UET_PROV_CTX_NO_LAYERING 5

static_assert(sizeof(struct fi_context) > UET_PROV_CTX_NO_LAYERING,
	      "fi_provider.context too small for libfabric's flags");

static void
uet_prov_no_layering(struct fi_provider *p)
{
	((unsigned char *)&p->context)[UET_PROV_CTX_NO_LAYERING] = 1;
}

/*
 * fi_getinfo without the RDM entries of the profiles PROFILES leaves out,
 * unless the hints name the domain (e.g. "net_ring0-ai_full"): a named
 * entry is always served. Open MPI (4.1, opal_mca_common_ofi_select_provider)
 * treats the entries of one provider whose attributes look the same as
 * NICs and gives local rank r the entry r % n: with an HPC and an AI Full
 * entry per port, rank 0 took HPC and rank 1 AI Full, and the job died at
 * its first rendezvous (the profiles do not interoperate, UEC 1.0
 * profiles). So only HPC is listed by default; a job that lists several
 * and still mixes them fails at fi_av_insert (uet_av.c), by name.
 */
static int
uet_prov_getinfo(uint32_t version, const char *node, const char *service,
		 uint64_t flags, const struct fi_info *hints,
		 struct fi_info **info)
{
	unsigned int keep = uet_ofi_params()->rdm_profiles;
	struct fi_info *head = NULL, **tail = &head, *fi, *next;
	int rc;

	rc = uet_ofi_getinfo(version, node, service, flags, hints, info);
	if (rc != 0)
		return rc;
	if (hints != NULL && hints->domain_attr != NULL &&
	    hints->domain_attr->name != NULL)
		return 0;
	for (fi = *info; fi != NULL; fi = next) {
		enum uet_wire_profile p =
			uet_ofi_profile_of_name(fi->domain_attr->name);

		next = fi->next;
		fi->next = NULL;
		if (fi->ep_attr->type == FI_EP_RDM && !(keep & (1u << p))) {
			fi_freeinfo(fi);
			continue;
		}
		*tail = fi;
		tail = &fi->next;
	}
	*info = head;
	return head != NULL ? 0 : -FI_ENODATA;
}

static void
uet_prov_cleanup(void)
{
	/* Engines are freed with their fabric; the EAL stays (it cannot be
	 * initialised twice in a process). */
}

struct fi_provider uet_prov = {
	.version = UET_OFI_PROV_VERSION,
	.fi_version = UET_OFI_API_VERSION,
	.name = UET_OFI_NAME,
	.getinfo = uet_prov_getinfo,
	.fabric = uet_ofi_fabric_open,
	.cleanup = uet_prov_cleanup,
};

/* the prototype libfabric's loader looks up with dlsym() */
struct fi_provider *fi_prov_ini(void);

FI_EXT_INI
{
	uet_ofi_params_init();
	uet_prov_no_layering(&uet_prov);
	return &uet_prov;
}
