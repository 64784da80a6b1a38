/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * [tss]: the transport security sublayer (UEC 1.0 section 3.7,
 * docs/TSS.md). Besides the keys of the table (config_keys.c), one line
 * per secure domain: "domain.7 = 1-100,200 /etc/uet/tss/7.key", the SDI
 * after "domain.", then the JobIDs of the domain and the file holding its
 * key (a client of client/server mode: its own keys). A key file is checked when the configuration is validated (owner,
 * mode, 64 hex digits) and read again by the engine that uses it; its
 * bytes never enter struct uet_config, a dump or a message.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_cfgfile.h>

#include "config_private.h"

#define DOMAIN_PREFIX "domain."
#define SDI_MAX 0xFFFFFFu
/* half the 48-bit TSC space: a larger interval never rotates */
#define REKEY_MAX (1ull << 47)

void
config_tss_defaults(struct uet_config_tss *t)
{
	memset(t, 0, sizeof(*t));
	t->mode = UET_CONFIG_TSS_DIRECT;
	snprintf(t->pmd, sizeof(t->pmd), "%s", "crypto_aesni_gcm");
	t->replay_window = 1024;
	t->epoch_switch_ns = 1000000000ull;
}

bool
config_tss_is_domain_key(const char *key)
{
	return strncmp(key, DOMAIN_PREFIX, strlen(DOMAIN_PREFIX)) == 0;
}

static bool
ranges_overlap(const struct uet_config_tss_domain *a,
	       const struct uet_config_tss_domain *b)
{
	for (unsigned int i = 0; i < a->nb_ranges; i++)
		for (unsigned int j = 0; j < b->nb_ranges; j++)
			if (a->first[i] <= b->last[j] &&
			    b->first[j] <= a->last[i])
				return true;
	return false;
}

/* "JOBS PATH": split at the first blank. */
static int
domain_value(const char *value, struct uet_config_tss_domain *d,
	     struct uet_parse_err *pe)
{
	char buf[CFG_VALUE_LEN], why[128];
	unsigned int n;
	char *path;

	snprintf(buf, sizeof(buf), "%s", value);
	path = strpbrk(buf, " \t");
	if (path == NULL) {
		uet_parse_err_set(pe, "expected JOBS KEYFILE (1-100,200 "
				  "/etc/uet/tss/7.key)");
		return -EINVAL;
	}
	*path++ = '\0';
	while (*path == ' ' || *path == '\t')
		path++;
	if (uet_config_jobs_parse(buf, d->first, d->last,
				  UET_CONFIG_JOB_RANGES_MAX, &n, why,
				  sizeof(why)) < 0) {
		uet_parse_err_set(pe, "JobIDs '%s': %s", buf, why);
		return -EINVAL;
	}
	d->nb_ranges = (uint16_t)n;
	if (path[0] != '/' || strpbrk(path, " \t") != NULL ||
	    strlen(path) >= sizeof(d->key_file)) {
		uet_parse_err_set(pe, "key file '%s': expected an absolute "
				  "path without blanks, below %zu bytes", path,
				  sizeof(d->key_file));
		return -EINVAL;
	}
	snprintf(d->key_file, sizeof(d->key_file), "%s", path);
	return 0;
}

int
config_tss_domain_add(struct uet_config_tss *t, const char *key,
		   const char *value, struct uet_parse_err *pe)
{
	struct uet_config_tss_domain d;
	int rc;

	memset(&d, 0, sizeof(d));
	if (uet_parse_u32(key + strlen(DOMAIN_PREFIX), 1, SDI_MAX, &d.sdi,
			  NULL) < 0) {
		uet_parse_err_set(pe, "%s: expected domain.SDI, SDI 1..%u",
				  key, SDI_MAX);
		return -EINVAL;
	}
	rc = domain_value(value, &d, pe);
	if (rc < 0)
		return rc;
	for (unsigned int i = 0; i < t->nb_domains; i++) {
		if (t->domain[i].sdi == d.sdi) {
			uet_parse_err_set(pe, "SDI %u already has a domain "
					  "line", d.sdi);
			return -EINVAL;
		}
		if (ranges_overlap(&t->domain[i], &d)) {
			uet_parse_err_set(pe, "a JobID is already in domain "
					  "%u (a job has one domain)",
					  t->domain[i].sdi);
			return -EINVAL;
		}
	}
	if (t->nb_domains == UET_CONFIG_TSS_DOMAINS_MAX) {
		uet_parse_err_set(pe, "more than %u domain lines",
				  UET_CONFIG_TSS_DOMAINS_MAX);
		return -E2BIG;
	}
	t->domain[t->nb_domains++] = d;
	return 0;
}

int
config_tss_domain_format(const struct uet_config_tss_domain *d, char *key,
		      size_t key_len, char *buf, size_t len)
{
	size_t used = 0;
	int n;

	snprintf(key, key_len, DOMAIN_PREFIX "%u", d->sdi);
	for (unsigned int i = 0; i < d->nb_ranges; i++) {
		n = d->first[i] == d->last[i] ?
			snprintf(buf + used, len - used, "%s%u", i ? "," : "",
				 d->first[i]) :
			snprintf(buf + used, len - used, "%s%u-%u",
				 i ? "," : "", d->first[i], d->last[i]);
		if (n < 0 || (size_t)n >= len - used)
			return -ENOSPC;
		used += (size_t)n;
	}
	n = snprintf(buf + used, len - used, " %s", d->key_file);
	return n < 0 || (size_t)n >= len - used ? -ENOSPC : 0;
}

int
uet_config_tss_domain_of(const struct uet_config_tss *t, uint32_t job)
{
	for (unsigned int i = 0; i < t->nb_domains; i++)
		for (unsigned int r = 0; r < t->domain[i].nb_ranges; r++)
			if (job >= t->domain[i].first[r] &&
			    job <= t->domain[i].last[r])
				return (int)i;
	return -1;
}

int
uet_config_tss_key_read(const char *path,
			uint8_t key[UET_CONFIG_TSS_KEY_LEN], char *why,
			size_t why_len)
{
	return uet_parse_key_file(path, key, UET_CONFIG_TSS_KEY_LEN, why,
				  why_len);
}

static int
tss_fail(struct uet_config_error *err, const char *key, const char *why)
{
	return config_error(err, -EINVAL, NULL, 0, "tss", key, "%s", why);
}

/* A client's key file (role = client): its keys and the SSI they were
 * derived for, which must be this client's (the first 4 bytes, big
 * endian; src/tss/tss_client.c reads the rest). */
static int
client_key_read(const char *path, uint32_t ssi, char *why, size_t why_len)
{
	uint8_t b[UET_CONFIG_TSS_CLIENT_KEY_LEN] = { 0 };
	uint32_t got;
	int rc = uet_parse_key_file(path, b, sizeof(b), why, why_len);

	got = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
	      (uint32_t)b[2] << 8 | b[3];
	explicit_bzero(b, sizeof(b));
	if (rc == -EINVAL)
		snprintf(why, why_len, "expected a client key file (%u hex "
			 "digits, from uet-tss-key derive), not a domain key",
			 2 * UET_CONFIG_TSS_CLIENT_KEY_LEN);
	if (rc == 0 && got != ssi) {
		snprintf(why, why_len, "derived for SSI %u, not this "
			 "client's (ssi = %u)", got, ssi);
		rc = -EINVAL;
	}
	return rc;
}

/* Every domain's key file readable and well formed, now rather than
 * when the engine starts: a domain key, or a client's keys. */
static int
check_keys(const struct uet_config_tss *t, struct uet_config_error *err)
{
	uint8_t key[UET_CONFIG_TSS_KEY_LEN];
	char k[32], why[160];

	for (unsigned int i = 0; i < t->nb_domains; i++) {
		int rc;

		if (t->role == UET_CONFIG_TSS_ROLE_CLIENT)
			rc = client_key_read(t->domain[i].key_file, t->ssi,
					     why, sizeof(why));
		else
			rc = uet_config_tss_key_read(t->domain[i].key_file,
						     key, why, sizeof(why));
		explicit_bzero(key, sizeof(key));
		if (rc < 0) {
			snprintf(k, sizeof(k), DOMAIN_PREFIX "%u",
				 t->domain[i].sdi);
			return config_error(err, rc, NULL, 0, "tss", k,
					 "key file %s: %s",
					 t->domain[i].key_file, why);
		}
	}
	return 0;
}

/* role and ssi: client_server mode's, and there required (a setting
 * that would do nothing is refused). */
static int
check_role(const struct uet_config_tss *t, struct uet_config_error *err)
{
	if (t->mode != UET_CONFIG_TSS_CLIENT_SERVER) {
		if (t->role != UET_CONFIG_TSS_ROLE_NONE)
			return tss_fail(err, "role", "only with mode = "
					"client_server");
		if (t->ssi != 0)
			return tss_fail(err, "ssi", "only with mode = "
					"client_server and role = client");
		return 0;
	}
	if (t->role == UET_CONFIG_TSS_ROLE_NONE)
		return tss_fail(err, "role", "mode = client_server needs "
				"role = server (holds the domain keys) or "
				"client (holds its own keys)");
	if (t->role == UET_CONFIG_TSS_ROLE_CLIENT && t->ssi == 0)
		return tss_fail(err, "ssi", "not set: a client needs the SSI "
				"its key files were derived for");
	if (t->role == UET_CONFIG_TSS_ROLE_SERVER && t->ssi != 0)
		return tss_fail(err, "ssi", "a server has no SSI (its "
				"clients' come in their packets)");
	return 0;
}

/* Rotation derives each generation's key: cluster mode (from the
 * domain key) and client/server mode (from a client's keys); a
 * direct-mode key is used as it is. An interval shorter
 * than the replay window would retire a key the window still accepts
 * packets of; the rekey counter is the TSC / interval (docs/TSS.md). */
static int
check_rekey(const struct uet_config_tss *t, struct uet_config_error *err)
{
	if (t->rekey_interval == 0)
		return 0;
	if (t->mode != UET_CONFIG_TSS_CLUSTER &&
	    t->mode != UET_CONFIG_TSS_CLIENT_SERVER)
		return tss_fail(err, "rekey_interval", "key rotation derives "
				"the keys: it needs mode = cluster or "
				"client_server (0 = off)");
	if (t->rekey_interval < t->replay_window)
		return tss_fail(err, "rekey_interval", "below replay_window: "
				"a key would retire while its packets are "
				"still in the window");
	if (t->rekey_interval > REKEY_MAX)
		return tss_fail(err, "rekey_interval", "above 2^47 TSCs: it "
				"would never rotate");
	return 0;
}

/* The TSC reservations' directory (src/tss/tss_tsc.c checks it again
 * when the engine opens it): without one, a restarted engine could not
 * know which TSCs it used under a key, and would reuse IVs. */
static int
check_state_dir(const struct uet_config_tss *t, struct uet_config_error *err)
{
	struct stat st;

	if (t->state_dir[0] == '\0')
		return tss_fail(err, "state_dir", "not set: the directory "
				"(0700) where the engine keeps each key's TSC "
				"reservation, so that a restart never reuses "
				"an IV (docs/TSS.md)");
	if (t->state_dir[0] != '/')
		return tss_fail(err, "state_dir", "not an absolute path");
	if (stat(t->state_dir, &st) < 0)
		return config_error(err, -errno, NULL, 0, "tss", "state_dir",
				    "%s: %s", t->state_dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return config_error(err, -ENOTDIR, NULL, 0, "tss",
				    "state_dir", "%s: not a directory",
				    t->state_dir);
	if (st.st_uid != geteuid() || (st.st_mode & 077) != 0)
		return config_error(err, -EPERM, NULL, 0, "tss", "state_dir",
				    "%s: owner uid %u, mode %03o: must be "
				    "this user's (uid %u), mode 0700",
				    t->state_dir, (unsigned int)st.st_uid,
				    (unsigned int)(st.st_mode & 0777),
				    (unsigned int)geteuid());
	return 0;
}

int
config_tss_validate(const struct uet_config_tss *t, struct uet_config_error *err)
{
	int rc;

	if (t->replay_window % 64 != 0)
		return tss_fail(err, "replay_window", "not a multiple of 64");
	if (!t->enabled && t->pdc_start != UET_CONFIG_TSS_START_PDS)
		return tss_fail(err, "pdc_start", "random_1rtt and "
				"expected_0rtt establish secure PDCs: they "
				"need enabled = true");
	if (!t->enabled)
		return 0;
	rc = check_role(t, err);
	if (rc == 0)
		rc = check_rekey(t, err);
	if (rc < 0)
		return rc;
	if (t->nb_domains == 0)
		return tss_fail(err, "enabled", "no domain.SDI line: no job "
				"would be protected");
	if (t->pmd[0] == '\0')
		return tss_fail(err, "pmd", "empty");
	rc = check_state_dir(t, err);
	if (rc < 0)
		return rc;
	return check_keys(t, err);
}
