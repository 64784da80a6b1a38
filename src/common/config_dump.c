/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * INI dump of a configuration, driven by the key tables. The output loads
 * back to the same struct: sizes and durations use the largest unit that
 * divides them exactly, doubles print with 15 significant digits (enough to
 * round-trip any value that was itself read from at most 15 digits).
 */

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "config_private.h"

struct out {
	char *buf;
	size_t size;
	size_t len; /* full length, may exceed size */
};

static void __attribute__((format(printf, 2, 3)))
out_printf(struct out *o, const char *fmt, ...)
{
	size_t room = o->len < o->size ? o->size - o->len : 0;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(room > 0 ? o->buf + o->len : NULL, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len += (size_t)n;
}

static void
fmt_size(uint64_t v, char *buf, size_t len)
{
	static const char *const sfx[] = { "T", "G", "M", "K" };
	unsigned int i;

	for (i = 0; i < 4 && v != 0; i++) {
		unsigned int shift = 40 - 10 * i;

		if ((v & ((1ULL << shift) - 1)) == 0) {
			snprintf(buf, len, "%" PRIu64 "%s", v >> shift, sfx[i]);
			return;
		}
	}
	snprintf(buf, len, "%" PRIu64, v);
}

static void
fmt_duration(uint64_t ns, char *buf, size_t len)
{
	static const struct {
		const char *name;
		uint64_t div;
	} units[] = {
		{ "s", 1000000000ULL }, { "ms", 1000000ULL }, { "us", 1000ULL },
	};
	unsigned int i;

	for (i = 0; i < 3 && ns != 0; i++) {
		if (ns % units[i].div == 0) {
			snprintf(buf, len, "%" PRIu64 "%s", ns / units[i].div,
				 units[i].name);
			return;
		}
	}
	snprintf(buf, len, "%" PRIu64 "ns", ns);
}

static void
fmt_lcores(const uint16_t *ids, unsigned int n, char *buf, size_t len)
{
	unsigned int i = 0, j;
	size_t used = 0;

	buf[0] = '\0';
	while (i < n && used < len) {
		/* Fold a run of consecutive ids written in ascending order. */
		for (j = i; j + 1 < n && ids[j + 1] == ids[j] + 1; j++)
			;
		if (j > i)
			used += (size_t)snprintf(buf + used, len - used,
						 "%s%u-%u", i ? "," : "",
						 ids[i], ids[j]);
		else
			used += (size_t)snprintf(buf + used, len - used,
						 "%s%u", i ? "," : "", ids[i]);
		i = j + 1;
	}
}

static uint64_t
load_uint(const void *field, unsigned int width)
{
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;

	switch (width) {
	case 1:
		memcpy(&u8, field, 1);
		return u8;
	case 2:
		memcpy(&u16, field, 2);
		return u16;
	case 4:
		memcpy(&u32, field, 4);
		return u32;
	default:
		memcpy(&u64, field, 8);
		return u64;
	}
}

static bool
load_bool(const void *p)
{
	bool b;

	memcpy(&b, p, sizeof(b));
	return b;
}

static void
fmt_value(const struct config_key *k, const void *base, char *buf, size_t len)
{
	const char *field = (const char *)base + k->off;
	const char *aux = (const char *)base + k->aux_off;
	uint16_t n16;
	uint64_t v = 0;
	double d;
	int e;

	if ((k->flags & CFG_F_NONE) && !load_bool(aux)) {
		snprintf(buf, len, "none");
		return;
	}
	if (k->type == CFG_T_UINT || k->type == CFG_T_SIZE ||
	    k->type == CFG_T_DUR)
		v = load_uint(field, k->width);
	if (k->type == CFG_T_DBL) {
		memcpy(&d, field, sizeof(d));
		v = d != 0.0;
	}
	if ((k->flags & CFG_F_AUTO) && v == 0) {
		snprintf(buf, len, "auto");
		return;
	}
	switch (k->type) {
	case CFG_T_STR:
		snprintf(buf, len, "%s", field);
		break;
	case CFG_T_UINT:
		snprintf(buf, len, "%" PRIu64, v);
		break;
	case CFG_T_SIZE:
		fmt_size(v, buf, len);
		break;
	case CFG_T_DUR:
		fmt_duration(v, buf, len);
		break;
	case CFG_T_DBL:
		snprintf(buf, len, "%.15g", d);
		break;
	case CFG_T_BOOL:
		snprintf(buf, len, "%s", load_bool(field) ? "true" : "false");
		break;
	case CFG_T_ENUM:
		memcpy(&e, field, sizeof(e));
		snprintf(buf, len, "%s", uet_parse_enum_name(k->names, e) ?
			 uet_parse_enum_name(k->names, e) : "?");
		break;
	case CFG_T_IPV4:
		inet_ntop(AF_INET, field, buf, (socklen_t)len);
		break;
	case CFG_T_IPV6:
		inet_ntop(AF_INET6, field, buf, (socklen_t)len);
		break;
	case CFG_T_MAC: {
		const uint8_t *m = (const uint8_t *)field;

		snprintf(buf, len, "%02x:%02x:%02x:%02x:%02x:%02x",
			 m[0], m[1], m[2], m[3], m[4], m[5]);
		break;
	}
	case CFG_T_LCORES:
		memcpy(&n16, aux, sizeof(n16));
		fmt_lcores((const uint16_t *)(const void *)field, n16, buf,
			   len);
		break;
	}
}

/* "range 1..64", "one of: a, b", ... for the comment above a key. */
static void
fmt_accepts(const struct config_key *k, char *buf, size_t len)
{
	char lo[32], hi[32];
	const struct uet_parse_name *n;
	size_t used;

	switch (k->type) {
	case CFG_T_STR:
		snprintf(buf, len, "text, at most %u characters",
			 k->width - 1u);
		break;
	case CFG_T_UINT:
		snprintf(buf, len, "%" PRIu64 "..%" PRIu64, k->min, k->max);
		break;
	case CFG_T_SIZE:
		fmt_size(k->min, lo, sizeof(lo));
		fmt_size(k->max, hi, sizeof(hi));
		snprintf(buf, len, "%s..%s bytes (suffix K, M, G)", lo, hi);
		break;
	case CFG_T_DUR:
		fmt_duration(k->min, lo, sizeof(lo));
		fmt_duration(k->max, hi, sizeof(hi));
		snprintf(buf, len, "%s..%s (unit ns, us, ms, s)", lo, hi);
		break;
	case CFG_T_DBL:
		snprintf(buf, len, "%g..%g", k->dmin, k->dmax);
		break;
	case CFG_T_BOOL:
		snprintf(buf, len, "true/false (also yes/no, on/off, 1/0)");
		break;
	case CFG_T_ENUM:
		used = (size_t)snprintf(buf, len, "one of");
		for (n = k->names; n->name != NULL && used < len; n++)
			used += (size_t)snprintf(buf + used, len - used, "%s %s",
						 n == k->names ? "" : ",",
						 n->name);
		break;
	case CFG_T_IPV4:
		snprintf(buf, len, "a.b.c.d");
		break;
	case CFG_T_IPV6:
		snprintf(buf, len, "IPv6 address");
		break;
	case CFG_T_MAC:
		snprintf(buf, len, "aa:bb:cc:dd:ee:ff");
		break;
	case CFG_T_LCORES:
		snprintf(buf, len, "ids 0..%" PRIu64 ", e.g. 1-3,5", k->max);
		break;
	}
	used = strlen(buf);
	if (k->flags & (CFG_F_AUTO | CFG_F_NONE))
		snprintf(buf + used, len - used, ", or %s",
			 (k->flags & CFG_F_AUTO) ? "auto" : "none");
}

static void
dump_keys(struct out *o, const struct config_section *sec, const void *base,
	  unsigned int flags)
{
	char value[UET_CONFIG_STR_LEN + 8], accepts[160];
	unsigned int i;

	for (i = 0; i < sec->nb_keys; i++) {
		const struct config_key *k = &sec->keys[i];

		fmt_value(k, base, value, sizeof(value));
		if (flags & UET_CONFIG_DUMP_COMMENTS) {
			fmt_accepts(k, accepts, sizeof(accepts));
			out_printf(o, "# %s. Accepts: %s.\n", k->help,
				   accepts);
		}
		/* "key =" does not load (CFG_F_EMPTY): a port defined without
		 * devargs is written as a comment, which loads as it was */
		if (value[0] == '\0' && !(k->flags & CFG_F_EMPTY))
			out_printf(o, "# %s = (empty: not set)\n", k->name);
		else
			out_printf(o, "%s = %s\n", k->name, value);
	}
}

static void
dump_neighbors(struct out *o, const struct uet_config *cfg)
{
	char ip[INET6_ADDRSTRLEN];
	unsigned int i;

	for (i = 0; i < cfg->nb_neighbors; i++) {
		const struct uet_config_neighbor *nb = &cfg->neighbor[i];
		const uint8_t *m = nb->mac;

		inet_ntop(nb->ip.family, nb->ip.family == AF_INET ?
			  (const void *)&nb->ip.v4 : (const void *)&nb->ip.v6,
			  ip, sizeof(ip));
		out_printf(o, "%s = %02x:%02x:%02x:%02x:%02x:%02x\n", ip,
			   m[0], m[1], m[2], m[3], m[4], m[5]);
	}
}

/* [fabric] schedule lines, after the keys */
static void
dump_fabric_events(struct out *o, const struct uet_config_fabric *f)
{
	char key[16], val[96];

	for (unsigned int i = 0; i < f->nb_events; i++)
		if (config_fabric_event_format(&f->event[i], key, sizeof(key), val,
					    sizeof(val)) == 0)
			out_printf(o, "%s = %s\n", key, val);
}

/* [service] job.N lines, after the keys */
static void
dump_service_acl(struct out *o, const struct uet_config_service *v)
{
	char key[32], val[512];

	for (unsigned int i = 0; i < v->nb_acl; i++)
		if (config_service_acl_format(&v->acl[i], key, sizeof(key), val,
					   sizeof(val)) == 0)
			out_printf(o, "%s = %s\n", key, val);
}

/* [tss] domain.SDI lines, after the keys */
static void
dump_tss_domains(struct out *o, const struct uet_config_tss *t)
{
	char key[32], val[512];

	for (unsigned int i = 0; i < t->nb_domains; i++)
		if (config_tss_domain_format(&t->domain[i], key, sizeof(key), val,
					  sizeof(val)) == 0)
			out_printf(o, "%s = %s\n", key, val);
}

static void
dump_section(struct out *o, const struct uet_config *cfg,
	     const struct config_section *sec, unsigned int flags)
{
	const char *base = (const char *)cfg + sec->off;
	unsigned int i;

	if (sec->id == CFG_S_PORT) {
		for (i = 0; i < UET_CONFIG_MAX_PORTS; i++) {
			if (!cfg->port[i].defined)
				continue;
			if (flags & UET_CONFIG_DUMP_COMMENTS)
				out_printf(o, "\n# %s\n", sec->help);
			else
				out_printf(o, "\n");
			out_printf(o, "[port%u]\n", i);
			dump_keys(o, sec, &cfg->port[i], flags);
		}
		return;
	}
	if (flags & UET_CONFIG_DUMP_COMMENTS)
		out_printf(o, "\n# %s\n", sec->help);
	else
		out_printf(o, "\n");
	out_printf(o, "[%s]\n", sec->name);
	if (sec->id == CFG_S_NEIGHBOR)
		dump_neighbors(o, cfg);
	else
		dump_keys(o, sec, base, flags);
	if (sec->id == CFG_S_FABRIC)
		dump_fabric_events(o, &cfg->fabric);
	if (sec->id == CFG_S_SERVICE)
		dump_service_acl(o, &cfg->service);
	if (sec->id == CFG_S_TSS)
		dump_tss_domains(o, &cfg->tss);
}

int
uet_config_dump(const struct uet_config *cfg, unsigned int flags, char *buf,
		size_t size)
{
	struct out o = { .buf = buf, .size = size, .len = 0 };
	unsigned int i;

	if (cfg == NULL || (buf == NULL && size != 0) ||
	    (flags & ~UET_CONFIG_DUMP_COMMENTS) != 0)
		return -EINVAL;
	if (size > 0)
		buf[0] = '\0';
	out_printf(&o, "# uet engine configuration\n");
	for (i = 0; i < CFG_S_COUNT; i++)
		dump_section(&o, cfg, &config_sections[i], flags);
	if (o.len > INT32_MAX)
		return -EINVAL;
	return (int)o.len;
}
