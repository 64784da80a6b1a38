/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * [service] job.N lines: the uet-engine service's authorization policy
 * (docs/SERVICE.md "Security"), "job.5 = uid:1000, gid:adm" or
 * "job.10-19 = gid:hpc", one line per JobID or range, at most
 * UET_CONFIG_SVC_ACL_MAX. User and group names are resolved when the file
 * is loaded (an unknown name is an error then, not a silent deny later);
 * the dump writes numbers.
 */

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cfgfile.h>

#include "config_private.h"

#define ACL_PREFIX "job."
#define JOBID_MAX 0xFFFFFFu

bool
config_service_is_acl_key(const char *key)
{
	return strncmp(key, ACL_PREFIX, strlen(ACL_PREFIX)) == 0;
}

/* "5" or "10-19" after "job.". */
static int
acl_range(const char *s, uint32_t *first, uint32_t *last,
	  struct uet_parse_err *pe)
{
	char buf[32];
	char *dash;

	if (snprintf(buf, sizeof(buf), "%s", s) >= (int)sizeof(buf))
		goto bad;
	dash = strchr(buf, '-');
	if (dash != NULL)
		*dash = '\0';
	if (uet_parse_u32(buf, 0, JOBID_MAX, first, NULL) < 0 ||
	    uet_parse_u32(dash != NULL ? dash + 1 : buf, 0, JOBID_MAX, last,
			  NULL) < 0 || *first > *last)
		goto bad;
	return 0;
bad:
	uet_parse_err_set(pe, "job.%s: expected job.N or job.N-M, JobIDs "
			  "0..16777215, N <= M", s);
	return -EINVAL;
}

/* A name or a number: getpwnam_r / getgrnam_r for names. */
static int
member_id(const char *s, bool gid, uint32_t *id)
{
	char buf[4096];

	if (s[0] >= '0' && s[0] <= '9')
		return uet_parse_u32(s, 0, UINT32_MAX - 1, id, NULL);
	if (gid) {
		struct group g, *r = NULL;

		if (getgrnam_r(s, &g, buf, sizeof(buf), &r) != 0 || r == NULL)
			return -ENOENT;
		*id = (uint32_t)g.gr_gid;
	} else {
		struct passwd p, *r = NULL;

		if (getpwnam_r(s, &p, buf, sizeof(buf), &r) != 0 || r == NULL)
			return -ENOENT;
		*id = (uint32_t)p.pw_uid;
	}
	return 0;
}

static char *
trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		*--e = '\0';
	return s;
}

static int
acl_members(char *list, struct uet_config_svc_acl *a,
	    struct uet_parse_err *pe)
{
	char *save = NULL;

	for (char *t = strtok_r(list, ",", &save); t != NULL;
	     t = strtok_r(NULL, ",", &save)) {
		struct uet_config_svc_member *m;
		char *w = trim(t);
		int rc;

		if (a->nb == UET_CONFIG_SVC_MEMBERS_MAX) {
			uet_parse_err_set(pe, "more than %u members",
					  UET_CONFIG_SVC_MEMBERS_MAX);
			return -E2BIG;
		}
		m = &a->m[a->nb];
		if (strncmp(w, "uid:", 4) != 0 && strncmp(w, "gid:", 4) != 0) {
			uet_parse_err_set(pe, "'%s': expected uid:USER or "
					  "gid:GROUP (name or number)", w);
			return -EINVAL;
		}
		m->gid = w[0] == 'g';
		rc = member_id(w + 4, m->gid, &m->id);
		if (rc < 0) {
			uet_parse_err_set(pe, "'%s': %s", w, rc == -ENOENT ?
					  (m->gid ? "no such group" :
					   "no such user") : "bad number");
			return -EINVAL;
		}
		a->nb++;
	}
	if (a->nb == 0) {
		uet_parse_err_set(pe, "no members: expected uid:USER, "
				  "gid:GROUP, ...");
		return -EINVAL;
	}
	return 0;
}

int
config_service_acl_add(struct uet_config_service *v, const char *key,
		    const char *value, struct uet_parse_err *pe)
{
	struct uet_config_svc_acl a;
	char buf[CFG_VALUE_LEN];
	int rc;

	memset(&a, 0, sizeof(a));
	rc = acl_range(key + strlen(ACL_PREFIX), &a.first, &a.last, pe);
	if (rc < 0)
		return rc;
	for (unsigned int i = 0; i < v->nb_acl; i++)
		if (a.first <= v->acl[i].last && v->acl[i].first <= a.last) {
			uet_parse_err_set(pe, "JobIDs %u-%u already have a "
					  "job line", v->acl[i].first,
					  v->acl[i].last);
			return -EINVAL;
		}
	if (v->nb_acl == UET_CONFIG_SVC_ACL_MAX) {
		uet_parse_err_set(pe, "more than %u job lines",
				  UET_CONFIG_SVC_ACL_MAX);
		return -E2BIG;
	}
	snprintf(buf, sizeof(buf), "%s", value);
	rc = acl_members(buf, &a, pe);
	if (rc < 0)
		return rc;
	v->acl[v->nb_acl++] = a;
	return 0;
}

int
config_service_acl_format(const struct uet_config_svc_acl *a, char *key,
		       size_t key_len, char *buf, size_t len)
{
	size_t used = 0;

	if (a->first == a->last)
		snprintf(key, key_len, ACL_PREFIX "%u", a->first);
	else
		snprintf(key, key_len, ACL_PREFIX "%u-%u", a->first, a->last);
	buf[0] = '\0';
	for (unsigned int i = 0; i < a->nb; i++) {
		int n = snprintf(buf + used, len - used, "%s%s:%u",
				 i ? ", " : "", a->m[i].gid ? "gid" : "uid",
				 a->m[i].id);

		if (n < 0 || (size_t)n >= len - used)
			return -ENOSPC;
		used += (size_t)n;
	}
	return 0;
}
