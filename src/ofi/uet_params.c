/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Runtime parameters. Each is defined with fi_param_define() (so that
 * `fi_info -e` lists it as FI_UET_PROVIDER_<NAME>) and read once at
 * fi_prov_ini() with fi_param_get_*(). The shorter spelling
 * UET_PROVIDER_<NAME> (docs/PROVIDER.md) is accepted as an alias when the
 * FI_ one is not set. The values are constant afterwards: no mutable
 * global tunables.
 */
#include <stdio.h>
#include <errno.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "uet_ofi_private.h"

static struct uet_ofi_params params;

const struct uet_ofi_params *
uet_ofi_params(void)
{
	return &params;
}

struct uet_param_def {
	const char *name; /* after FI_UET_ */
	enum fi_param_type type;
	const char *help;
};

static const struct uet_param_def defs[] = {
	{ "provider_service_path", FI_PARAM_STRING,
	  "Socket of a uet-engine service: fi_fabric attaches to it instead "
	  "of starting an EAL and an engine in this process (default: none, "
	  "in-process engine)" },
	{ "provider_service_uid", FI_PARAM_STRING,
	  "Attached to a uet-engine service: the user (name or uid) it runs "
	  "as when not root; a socket served by any other user (but this "
	  "process's own) is not attached to (default: none)" },
	{ "provider_service_timeout", FI_PARAM_INT,
	  "Attached to a uet-engine service: the longest wait for the answer "
	  "to one control request, in ms, 1..600000 (default: 5000)" },
	{ "provider_msg_rendezvous_size", FI_PARAM_SIZE_T,
	  "fi_send messages at least this long use RENDEZVOUS_SEND (HPC "
	  "profile) (default: 65536)" },
	{ "provider_tagged_rendezvous_size", FI_PARAM_SIZE_T,
	  "fi_tsend messages at least this long use RENDEZVOUS_TSEND (HPC "
	  "profile) (default: 65536)" },
	{ "provider_max_eager_size", FI_PARAM_SIZE_T,
	  "Bytes sent eagerly ahead of a rendezvous (default: 16384)" },
	{ "provider_def_data_dc", FI_PARAM_STRING,
	  "Default delivery mode of RDM data: rud or rod (default: rud; rod "
	  "is chosen anyway when ordering is requested)" },
	{ "provider_fallback_jobid_support", FI_PARAM_BOOL,
	  "Use the fallback JobID (FI_UET_PROVIDER_FALLBACK_JOBID, default 1) "
	  "when no auth_key is given; without it an auth_key is required "
	  "(default: yes)" },
	{ "provider_fallback_jobid", FI_PARAM_INT,
	  "The fallback JobID, 24 bits (default: 1)" },
	{ "provider_initiator_id", FI_PARAM_SIZE_T,
	  "SES initiator id of this process's endpoints (default: derived "
	  "from the fabric address and PIDonFEP)" },
	{ "provider_eal_args", FI_PARAM_STRING,
	  "EAL arguments for the provider's rte_eal_init (default: the config "
	  "file's [eal] args; ignored when the process already has an EAL)" },
	{ "provider_iov_bounce_size", FI_PARAM_SIZE_T,
	  "Size of the 8 bounce buffers per endpoint that messages with a "
	  "multi-entry iov are gathered into / scattered from; a larger "
	  "message gets a buffer of its own (default: 65536)" },
	{ "provider_poll_yield", FI_PARAM_BOOL,
	  "AUTO progress: an fi_cq_read that finds nothing yields the CPU "
	  "(sched_yield), so that an engine lcore or another polling process "
	  "sharing the core gets it (default: yes)" },
	{ "provider_poll_yield_spin", FI_PARAM_SIZE_T,
	  "AUTO progress: microseconds a thread's fi_cq_read calls find "
	  "nothing before they yield (POLL_YIELD), while its yields find "
	  "no other thread wanting the CPU (one that does: every empty read "
	  "yields); 0: every empty one yields (default: 50)" },
	{ "provider_progress", FI_PARAM_STRING,
	  "auto: engine lcores make progress; inline: fi_cq_read / "
	  "fi_cntr_read run the engine loop (default: auto)" },
	{ "provider_profiles", FI_PARAM_STRING,
	  "Profiles whose RDM entries fi_getinfo lists, comma separated: "
	  "hpc, ai_full, ai_base (default: hpc). An entry the hints name "
	  "(domain_attr->name) is served whatever this lists. The peers of "
	  "an endpoint must all use its profile" },
	{ "provider_local_rank", FI_PARAM_INT,
	  "Local rank of this process on its host, for the %r and %{a,b,...} "
	  "tokens of the configuration file (default: the launcher's "
	  "OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID or SLURM_LOCALID)" },
	{ "provider_config", FI_PARAM_STRING,
	  "Engine configuration file (INI, docs/CONFIG.md) (default: built-in "
	  "defaults, those of config/uet.conf)" },
};

/* The alias spelling UET_PROVIDER_<NAME> of a parameter. */
static const char *
param_alias(const char *name)
{
	char alias[96];
	size_t i;

	snprintf(alias, sizeof(alias), "UET_%s", name);
	for (i = 0; alias[i] != '\0'; i++)
		if (alias[i] >= 'a' && alias[i] <= 'z')
			alias[i] = (char)(alias[i] - 'a' + 'A');
	return secure_getenv(alias);
}

static const char *
param_str(const char *name)
{
	char *v = NULL;

	if (fi_param_get_str(&uet_prov, name, &v) == FI_SUCCESS && v != NULL)
		return v;
	return param_alias(name);
}

static bool
parse_u64(const char *name, const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (s == NULL || *s == '\0')
		return false;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno != 0 || *end != '\0' || v > max || s[0] == '-') {
		FI_WARN(&uet_prov, FI_LOG_CORE,
			"parameter %s: bad value '%s' (0..%llu), ignored\n",
			name, s, (unsigned long long)max);
		return false;
	}
	*out = v;
	return true;
}

static bool
param_u64(const char *name, bool is_int, uint64_t max, uint64_t *out)
{
	size_t sz;
	int i;

	if (is_int) {
		if (fi_param_get_int(&uet_prov, name, &i) == FI_SUCCESS) {
			if (i < 0 || (uint64_t)i > max) {
				FI_WARN(&uet_prov, FI_LOG_CORE,
					"parameter %s: %d out of range\n",
					name, i);
				return false;
			}
			*out = (uint64_t)i;
			return true;
		}
	} else if (fi_param_get_size_t(&uet_prov, name, &sz) == FI_SUCCESS) {
		if (sz > max) {
			FI_WARN(&uet_prov, FI_LOG_CORE,
				"parameter %s: %zu out of range\n", name, sz);
			return false;
		}
		*out = sz;
		return true;
	}
	return parse_u64(name, param_alias(name), max, out);
}

static bool
param_bool(const char *name, bool *out)
{
	const char *s;
	int b;

	if (fi_param_get_bool(&uet_prov, name, &b) == FI_SUCCESS) {
		*out = b != 0;
		return true;
	}
	s = param_alias(name);
	if (s == NULL)
		return false;
	if (!strcasecmp(s, "1") || !strcasecmp(s, "yes") ||
	    !strcasecmp(s, "true") || !strcasecmp(s, "on")) {
		*out = true;
		return true;
	}
	if (!strcasecmp(s, "0") || !strcasecmp(s, "no") ||
	    !strcasecmp(s, "false") || !strcasecmp(s, "off")) {
		*out = false;
		return true;
	}
	FI_WARN(&uet_prov, FI_LOG_CORE, "parameter %s: bad boolean '%s'\n",
		name, s);
	return false;
}

/* "hpc,ai_full" -> profile bits; 0 (and a warning) when malformed. */
static unsigned int
parse_profiles(const char *s)
{
	static const struct {
		const char *name;
		enum uet_wire_profile p;
	} names[] = {
		{ "hpc", UET_PROFILE_HPC },
		{ "ai_full", UET_PROFILE_AI_FULL },
		{ "ai_base", UET_PROFILE_AI_BASE },
	};
	unsigned int bits = 0;
	const char *p = s;

	for (;;) {
		size_t n = strcspn(p, ","), i;

		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (n == strlen(names[i].name) &&
			    strncmp(p, names[i].name, n) == 0)
				break;
		if (i == sizeof(names) / sizeof(names[0])) {
			FI_WARN(&uet_prov, FI_LOG_CORE,
				"PROFILES: '%s' is not a comma list of hpc, "
				"ai_full, ai_base: no RDM entry is listed\n",
				s);
			return 0;
		}
		bits |= 1u << names[i].p;
		if (p[n] == '\0')
			return bits;
		p += n + 1;
	}
}

static void
copy_str(char *dst, size_t n, const char *s)
{
	if (s != NULL)
		snprintf(dst, n, "%s", s);
}

/* provider_service_uid: a user name or a uid; a bad one trusts nobody
 * more (warned), never anybody. */
static uint32_t
service_uid(void)
{
	const char *s = param_str("provider_service_uid");
	struct passwd pw, *r = NULL;
	char buf[4096], *end;
	unsigned long v;

	if (s == NULL || s[0] == '\0')
		return UINT32_MAX;
	if (s[0] >= '0' && s[0] <= '9') {
		errno = 0;
		v = strtoul(s, &end, 10);
		if (errno == 0 && *end == '\0' && v < UINT32_MAX)
			return (uint32_t)v;
	} else if (getpwnam_r(s, &pw, buf, sizeof(buf), &r) == 0 &&
		   r != NULL) {
		return (uint32_t)pw.pw_uid;
	}
	FI_WARN(&uet_prov, FI_LOG_CORE, "parameter provider_service_uid: "
		"'%s' is no user: only root and this process's uid are "
		"trusted to serve the socket\n", s);
	return UINT32_MAX;
}

void
uet_ofi_params_init(void)
{
	const char *s;
	uint64_t v;
	size_t i;

	for (i = 0; i < sizeof(defs) / sizeof(defs[0]); i++)
		fi_param_define(&uet_prov, defs[i].name, defs[i].type, "%s",
				defs[i].help);

	memset(&params, 0, sizeof(params));
	params.msg_rdzv_size = 65536;
	params.tagged_rdzv_size = 65536;
	params.max_eager_size = 16384;
	params.fallback_job = true;
	params.fallback_job_id = 1;
	params.poll_yield = true;
	params.poll_yield_spin_ns = UET_OFI_POLL_YIELD_SPIN_US * 1000u;
	params.iov_bounce_size = 65536;

	params.service_timeout_ms = 5000;
	params.service_uid = service_uid();
	copy_str(params.service_path, sizeof(params.service_path),
		 param_str("provider_service_path"));
	/* 0 would be no wait at all: out of range, like a negative one */
	if (param_u64("provider_service_timeout", true, 600000, &v)) {
		if (v == 0)
			FI_WARN(&uet_prov, FI_LOG_CORE,
				"parameter provider_service_timeout: 0 out of "
				"range (1..600000)\n");
		else
			params.service_timeout_ms = (unsigned int)v;
	}
	if (param_u64("provider_msg_rendezvous_size", false, UINT32_MAX, &v))
		params.msg_rdzv_size = v;
	if (param_u64("provider_tagged_rendezvous_size", false, UINT32_MAX,
		      &v))
		params.tagged_rdzv_size = v;
	if (param_u64("provider_max_eager_size", false, UINT32_MAX, &v))
		params.max_eager_size = v;
	s = param_str("provider_def_data_dc");
	if (s != NULL) {
		if (!strcasecmp(s, "rod"))
			params.def_data_dc = 1;
		else if (strcasecmp(s, "rud"))
			FI_WARN(&uet_prov, FI_LOG_CORE,
				"DEF_DATA_DC: '%s' is not rud|rod\n", s);
	}
	param_bool("provider_fallback_jobid_support", &params.fallback_job);
	if (param_u64("provider_fallback_jobid", true, UET_OFI_JOB_MASK, &v))
		params.fallback_job_id = (uint32_t)v;
	if (param_u64("provider_initiator_id", false, UINT32_MAX, &v)) {
		params.has_initiator_id = true;
		params.initiator_id = (uint32_t)v;
	}
	copy_str(params.eal_args, sizeof(params.eal_args),
		 param_str("provider_eal_args"));
	param_bool("provider_poll_yield", &params.poll_yield);
	if (param_u64("provider_poll_yield_spin", false, 1000000, &v))
		params.poll_yield_spin_ns = v * 1000u;
	if (param_u64("provider_iov_bounce_size", false, 1ULL << 30, &v))
		params.iov_bounce_size = v;
	s = param_str("provider_progress");
	if (s != NULL) {
		if (!strcasecmp(s, "inline"))
			params.inline_progress = true;
		else if (strcasecmp(s, "auto"))
			FI_WARN(&uet_prov, FI_LOG_CORE,
				"PROGRESS: '%s' is not auto|inline\n", s);
	}
	copy_str(params.config_path, sizeof(params.config_path),
		 param_str("provider_config"));
	if (param_u64("provider_local_rank", true, 65535, &v)) {
		params.has_local_rank = true;
		params.local_rank = (unsigned int)v;
	}
	s = param_str("provider_profiles");
	params.rdm_profiles = s != NULL ? parse_profiles(s) :
			      1u << UET_PROFILE_HPC;
}
