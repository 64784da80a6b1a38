/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Provider entry point. fi_prov_ini() only defines and reads parameters:
 * no EAL, no engine, no allocation that outlives the call. The EAL and the
 * engine start at fi_fabric() (uet_fabric.c).
 */
#include "uet_ofi_priv.h"

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
