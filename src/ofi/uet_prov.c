/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Provider entry point. fi_prov_ini() only defines and reads parameters:
 * no EAL, no engine, no allocation that outlives the call. The EAL and the
 * engine start at fi_fabric() (uet_fabric.c).
 */
#include <stdarg.h>
#include <stdio.h>

#include <rte_log.h>

#include "uet_ofi_priv.h"

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
	.getinfo = uet_ofi_getinfo,
	.fabric = uet_ofi_fabric_open,
	.cleanup = uet_prov_cleanup,
};

/* the prototype libfabric's loader looks up with dlsym() */
struct fi_provider *fi_prov_ini(void);

FI_EXT_INI
{
	uet_ofi_params_init();
	return &uet_prov;
}
