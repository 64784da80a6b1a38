/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Loading the engine configuration with rte_cfgfile.
 *
 * rte_cfgfile silently skips lines that are neither a section header nor
 * contain '=', truncates long names and values, ignores text after ']' and
 * keeps duplicate sections and keys. A typo must not pass unnoticed, so the
 * file is first checked line by line here with the same line grammar (the
 * same comment character, stripping and splitting), and line numbers for
 * error messages come from the same scan.
 */

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cfgfile.h>
#include <rte_common.h>
#include <rte_config.h>

#include "config_private.h"

/*
 * rte_cfgfile reads a line into CFG_NAME_LEN + CFG_VALUE_LEN + 4 bytes and
 * fails on longer ones; keep a margin for the newline and the NUL.
 */
#define LINE_MAX_CHARS (CFG_NAME_LEN + CFG_VALUE_LEN + 1)
/* Entries copied out of one section at a time (fault has 32 keys). */
#define SECTION_MAX_ENTRIES (UET_CONFIG_MAX_NEIGHBORS + 8)

int
config_error(struct uet_config_error *err, int code, const char *file,
	  unsigned int line, const char *section, const char *key,
	  const char *fmt, ...)
{
	char where[sizeof(err->file) + 16];
	va_list ap;

	if (err == NULL)
		return code;
	memset(err, 0, sizeof(*err));
	err->code = code;
	err->line = line;
	snprintf(err->file, sizeof(err->file), "%s", file ? file : "");
	snprintf(err->section, sizeof(err->section), "%s",
		 section ? section : "");
	snprintf(err->key, sizeof(err->key), "%s", key ? key : "");
	va_start(ap, fmt);
	vsnprintf(err->reason, sizeof(err->reason), fmt, ap);
	va_end(ap);

	where[0] = '\0';
	if (err->file[0] != '\0' && line != 0)
		snprintf(where, sizeof(where), "%s:%u: ", err->file, line);
	else if (err->file[0] != '\0')
		snprintf(where, sizeof(where), "%s: ", err->file);
	snprintf(err->msg, sizeof(err->msg), "%s%s%s%s%s%s%s", where,
		 err->section[0] ? "[" : "", err->section,
		 err->section[0] ? "] " : "", err->key,
		 err->key[0] ? ": " : "", err->reason);
	return code;
}

static char *
strip(char *s)
{
	size_t n;

	while (isspace((unsigned char)*s))
		s++;
	n = strlen(s);
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

/* Position in the file: n-th section header, n-th entry within it. */
struct scan_target {
	int section; /* -1: check the whole file */
	int entry;   /* -1: the section header itself */
	unsigned int line;
};

struct scan_state {
	const char *path;
	unsigned int lineno;
	int section;
	int entry;
	char section_name[CFG_NAME_LEN];
};

static int
scan_error(struct scan_state *st, struct uet_config_error *err,
	   const char *reason, const char *detail)
{
	return config_error(err, -EINVAL, st->path, st->lineno, st->section_name,
			 NULL, "%s%s", reason, detail ? detail : "");
}

/* Check one line; returns 1 when it is the requested target. */
static int
scan_line(struct scan_state *st, char *buf, const struct scan_target *want,
	  struct uet_config_error *err)
{
	static const char esc[] = { '\\', CFG_COMMENT_CHAR, '\0' };
	char *s, *end, *eq, *name;

	/* rte_cfgfile keeps a '\#' literally: refuse the ambiguity. */
	if (strstr(buf, esc) != NULL)
		return scan_error(st, err, "escaped comment characters are "
				  "not supported", NULL);
	end = strchr(buf, CFG_COMMENT_CHAR);
	if (end != NULL)
		*end = '\0';
	s = strip(buf);
	if (*s == '\0')
		return 0;
	if (*s == '[') {
		end = strchr(s, ']');
		if (end == NULL)
			return scan_error(st, err, "missing ']'", NULL);
		if (end[1] != '\0')
			return scan_error(st, err, "text after ']'", NULL);
		*end = '\0';
		name = strip(s + 1);
		if (*name == '\0')
			return scan_error(st, err, "empty section name", NULL);
		if (strlen(name) >= CFG_NAME_LEN)
			return scan_error(st, err, "section name too long",
					  NULL);
		strcpy(st->section_name, name);
		st->section++;
		st->entry = -1;
		return st->section == want->section && want->entry < 0;
	}
	eq = strchr(s, '=');
	if (eq == NULL)
		return scan_error(st, err, "expected '[section]' or "
				  "'key = value', got: ", s);
	if (st->section < 0)
		return scan_error(st, err, "entry before the first section",
				  NULL);
	*eq = '\0';
	name = strip(s);
	if (*name == '\0')
		return scan_error(st, err, "missing key before '='", NULL);
	if (strlen(name) >= CFG_NAME_LEN)
		return scan_error(st, err, "key too long", NULL);
	if (strlen(strip(eq + 1)) >= CFG_VALUE_LEN)
		return scan_error(st, err, "value too long", NULL);
	if (++st->entry >= SECTION_MAX_ENTRIES)
		return scan_error(st, err, "too many entries in section",
				  NULL);
	return st->section == want->section && st->entry == want->entry;
}

/*
 * Check the syntax of the whole file (want->section < 0), or find the line
 * of one section header or entry. Returns 0, or a negative errno with @err
 * filled.
 */
static int
scan_file(const char *path, struct scan_target *want,
	  struct uet_config_error *err)
{
	struct scan_state st = { .path = path, .section = -1, .entry = -1 };
	char *buf = NULL, ebuf[128];
	size_t cap = 0, len;
	ssize_t n;
	FILE *f;
	int rc = 0;

	f = fopen(path, "r");
	if (f == NULL) {
		rc = -errno;
		return config_error(err, rc, path, 0, NULL, NULL,
				 "cannot open: %s",
				 strerror_r(-rc, ebuf, sizeof(ebuf)));
	}
	/* getline: the length read, so that a NUL byte (rte_cfgfile would
	 * end the line there) is reported as what it is */
	while ((n = getline(&buf, &cap, f)) > 0) {
		st.lineno++;
		len = (size_t)n;
		if (buf[len - 1] == '\n')
			buf[--len] = '\0';
		if (memchr(buf, '\0', len) != NULL) {
			rc = config_error(err, -EINVAL, path, st.lineno, NULL,
				       NULL, "NUL byte at column %zu (not a "
				       "text file?)",
				       (size_t)((char *)memchr(buf, '\0', len) -
						buf) + 1);
			goto close_file;
		}
		if (len > LINE_MAX_CHARS) {
			rc = config_error(err, -EINVAL, path, st.lineno, NULL,
				       NULL, "line longer than %d characters",
				       LINE_MAX_CHARS);
			goto close_file;
		}
		rc = scan_line(&st, buf, want, err);
		if (rc < 0)
			goto close_file;
		if (rc == 1) {
			want->line = st.lineno;
			rc = 0;
			goto close_file;
		}
	}
	if (ferror(f))
		rc = config_error(err, -EIO, path, st.lineno, NULL, NULL,
			       "read error");
close_file:
	free(buf);
	fclose(f);
	return rc;
}

static unsigned int
line_of(const char *path, int section, int entry)
{
	struct scan_target want = { .section = section, .entry = entry };

	if (scan_file(path, &want, NULL) < 0)
		return 0;
	return want.line;
}

/* "port3" -> 3; rejects "port", "port03", "port8". */
static int
port_index(const char *name, unsigned int *idx)
{
	const char *d = name + 4;

	if (strncmp(name, "port", 4) != 0 || !isdigit((unsigned char)d[0]) ||
	    d[1] != '\0')
		return -1;
	*idx = (unsigned int)(d[0] - '0');
	return *idx < UET_CONFIG_MAX_PORTS ? 0 : -ERANGE;
}

/*
 * Resolve a section name. Returns the section (and the port index), or
 * NULL with a reason in @pe.
 */
static const struct config_section *
section_find(const char *name, unsigned int *port, struct uet_parse_err *pe)
{
	unsigned int i;
	int rc;

	*port = 0;
	for (i = 0; i < CFG_S_COUNT; i++) {
		if (i != CFG_S_PORT && strcmp(config_sections[i].name, name) == 0)
			return &config_sections[i];
	}
	rc = port_index(name, port);
	if (rc == 0)
		return &config_sections[CFG_S_PORT];
	if (rc == -ERANGE)
		uet_parse_err_set(pe, "port index out of range [0, %d]",
				  UET_CONFIG_MAX_PORTS - 1);
	else
		uet_parse_err_set(pe, "unknown section (expected eal, "
				  "port0..port%d, engine, timers, cc, spray, "
				  "dscp, neighbor, fault, fabric, service, tss)",
				  UET_CONFIG_MAX_PORTS - 1);
	return NULL;
}

/*
 * A key of a part not built yet ([cc], most of [spray]): its default (a
 * file or a dump that spells out every default) is accepted, any other
 * value rejected, so that a setting never silently does nothing.
 */
static int
set_unbuilt(const struct config_key *k, const struct config_section *sec,
	    void *base, const char *value, const char *why,
	    struct uet_parse_err *pe)
{
	union {
		struct uet_config_cc cc;
		struct uet_config_spray spray;
	} def, val;
	int rc;

	if (sec->id == CFG_S_CC) {
		config_cc_defaults(&def.cc);
		config_cc_defaults(&val.cc);
	} else {
		config_spray_defaults(&def.spray);
		config_spray_defaults(&val.spray);
	}
	rc = config_key_set(k, &val, value, pe);
	if (rc < 0)
		return rc;
	if (memcmp((const char *)&val + k->off, (const char *)&def + k->off,
		   k->width) != 0) {
		uet_parse_err_set(pe, "%s: %s; only the default is "
				  "accepted", value, why);
		return -ENOTSUP;
	}
	return config_key_set(k, base, value, pe);
}

/* Apply one key of a section; the port must already be set up. */
static int
apply_entry(struct uet_config *cfg, const struct config_section *sec,
	    unsigned int port, const char *key, const char *value,
	    bool replace, struct uet_parse_err *pe)
{
	const struct config_key *k;
	void *base;

	if ((sec->id == CFG_S_NEIGHBOR ||
	     (sec->id == CFG_S_FABRIC && config_fabric_is_event_key(key))) &&
	    value[0] == '\0')
		return config_empty_value(pe);
	if (sec->id == CFG_S_NEIGHBOR)
		return config_neighbor_set(cfg, key, value, replace, pe);
	if (sec->id == CFG_S_FABRIC && config_fabric_is_event_key(key))
		return config_fabric_event_add(&cfg->fabric, key, value, pe);
	if (sec->id == CFG_S_SERVICE && config_service_is_acl_key(key))
		return config_service_acl_add(&cfg->service, key, value, pe);
	if (sec->id == CFG_S_TSS && config_tss_is_domain_key(key))
		return config_tss_domain_add(&cfg->tss, key, value, pe);
	k = config_key_find(sec, key);
	if (k == NULL) {
		uet_parse_err_set(pe, "unknown key (see docs/CONFIG.md)");
		return -EINVAL;
	}
	base = (char *)cfg + sec->off;
	if (sec->id == CFG_S_PORT)
		base = &cfg->port[port];
	if (config_key_unbuilt(sec, k) != NULL)
		return set_unbuilt(k, sec, base, value,
				   config_key_unbuilt(sec, k), pe);
	return config_key_set(k, base, value, pe);
}

struct load_ctx {
	const char *path;
	struct rte_cfgfile *file;
	struct uet_config *cfg;
	uint32_t seen;       /* bit per section id, ports from bit 16 */
	bool ports_reset;
	struct rte_cfgfile_entry entries[SECTION_MAX_ENTRIES];
};

static int
load_section(struct load_ctx *c, int idx, struct uet_config_error *err)
{
	char name[CFG_NAME_LEN];
	const struct config_section *sec;
	struct uet_parse_err pe;
	unsigned int port, bit, i;
	int n, j, rc;

	n = rte_cfgfile_section_num_entries_by_index(c->file, name, idx);
	if (n < 0 || n > SECTION_MAX_ENTRIES)
		return config_error(err, -EINVAL, c->path, 0, NULL, NULL,
				 "cannot read section %d", idx);
	sec = section_find(name, &port, &pe);
	if (sec == NULL)
		return config_error(err, -EINVAL, c->path,
				 line_of(c->path, idx, -1), name, NULL, "%s",
				 pe.msg);
	bit = sec->id == CFG_S_PORT ? 16 + port : (unsigned int)sec->id;
	if (c->seen & (1u << bit))
		return config_error(err, -EINVAL, c->path,
				 line_of(c->path, idx, -1), name, NULL,
				 "duplicate section");
	c->seen |= 1u << bit;
	if (sec->id == CFG_S_PORT) {
		/* The file's ports replace the default port set. */
		if (!c->ports_reset) {
			for (i = 0; i < UET_CONFIG_MAX_PORTS; i++)
				config_port_defaults(&c->cfg->port[i]);
			c->ports_reset = true;
		}
		c->cfg->port[port].defined = true;
	}
	if (rte_cfgfile_section_entries_by_index(c->file, idx, name,
						 c->entries, n) != n)
		return config_error(err, -EINVAL, c->path, 0, name, NULL,
				 "cannot read entries");
	for (j = 0; j < n; j++) {
		const char *key = c->entries[j].name;
		int k;

		/* schedule lines of [fabric] repeat by design */
		for (k = 0; k < j && !(sec->id == CFG_S_FABRIC &&
				       config_fabric_is_event_key(key)); k++) {
			if (strcmp(c->entries[k].name, key) == 0)
				return config_error(err, -EINVAL, c->path,
						 line_of(c->path, idx, j),
						 name, key, "duplicate key "
						 "(first set on line %u)",
						 line_of(c->path, idx, k));
		}
		rc = apply_entry(c->cfg, sec, port, key, c->entries[j].value,
				 false, &pe);
		if (rc < 0)
			return config_error(err, rc, c->path,
					 line_of(c->path, idx, j), name, key,
					 "%s", pe.msg);
	}
	return 0;
}

int
uet_config_load(struct uet_config *cfg, const char *path,
		struct uet_config_error *err)
{
	static const struct rte_cfgfile_parameters params = {
		.comment_character = CFG_COMMENT_CHAR,
	};
	struct scan_target all = { .section = -1, .entry = -1 };
	struct uet_config tmp;
	struct load_ctx ctx;
	int i, nb, rc;

	if (cfg == NULL || path == NULL)
		return config_error(err, -EINVAL, path, 0, NULL, NULL,
				 "invalid arguments");
	rc = scan_file(path, &all, err);
	if (rc < 0)
		return rc;

	/* Parse into a copy so that *cfg is untouched on error. */
	uet_config_init_defaults(&tmp);
	memset(&ctx, 0, offsetof(struct load_ctx, entries));
	ctx.path = path;
	ctx.cfg = &tmp;
	ctx.file = rte_cfgfile_load_with_params(path, CFG_FLAG_EMPTY_VALUES,
						&params);
	if (ctx.file == NULL)
		return config_error(err, -EIO, path, 0, NULL, NULL,
				 "rte_cfgfile could not load the file");
	nb = rte_cfgfile_num_sections(ctx.file, "", 0);
	for (i = 0; i < nb; i++) {
		rc = load_section(&ctx, i, err);
		if (rc < 0)
			goto close_file;
	}
	*cfg = tmp;
	rc = 0;
close_file:
	rte_cfgfile_close(ctx.file);
	return rc;
}

int
uet_config_override(struct uet_config *cfg, const char *assignment,
		    struct uet_config_error *err)
{
	static const char src[] = "<override>";
	char section[CFG_NAME_LEN], key[CFG_NAME_LEN];
	const struct config_section *sec;
	const struct config_key *k;
	struct uet_config_port port;
	struct uet_parse_err pe;
	const char *dot, *eq;
	unsigned int idx;
	int rc;

	if (cfg == NULL || assignment == NULL)
		return config_error(err, -EINVAL, src, 0, NULL, NULL,
				 "invalid arguments");
	dot = strchr(assignment, '.');
	eq = strchr(assignment, '=');
	if (dot == NULL || eq == NULL || dot > eq || dot == assignment ||
	    eq == dot + 1)
		return config_error(err, -EINVAL, src, 0, NULL, NULL,
				 "'%.64s' is not section.key=value",
				 assignment);
	if ((size_t)(dot - assignment) >= sizeof(section) ||
	    (size_t)(eq - dot - 1) >= sizeof(key) ||
	    strlen(eq + 1) >= CFG_VALUE_LEN)
		return config_error(err, -EINVAL, src, 0, NULL, NULL,
				 "section, key or value too long");
	memcpy(section, assignment, (size_t)(dot - assignment));
	section[dot - assignment] = '\0';
	memcpy(key, dot + 1, (size_t)(eq - dot - 1));
	key[eq - dot - 1] = '\0';

	sec = section_find(section, &idx, &pe);
	if (sec == NULL)
		return config_error(err, -EINVAL, src, 0, section, NULL, "%s",
				 pe.msg);
	if (sec->id != CFG_S_PORT) {
		rc = apply_entry(cfg, sec, 0, key, eq + 1, true, &pe);
		if (rc < 0)
			return config_error(err, rc, src, 0, section, key, "%s",
					 pe.msg);
		return 0;
	}
	k = config_key_find(sec, key);
	if (k == NULL)
		return config_error(err, -EINVAL, src, 0, section, key,
				 "unknown key (see docs/CONFIG.md)");
	/* Work on a copy so a failed override leaves the port untouched. */
	port = cfg->port[idx];
	if (!port.defined) {
		config_port_defaults(&port);
		port.defined = true;
	}
	rc = config_key_set(k, &port, eq + 1, &pe);
	if (rc < 0)
		return config_error(err, rc, src, 0, section, key, "%s", pe.msg);
	cfg->port[idx] = port;
	return 0;
}

/* Bytes beyond the MTU an auto mbuf holds: a net_af_packet ring slot
 * (pmd/core/port_kernel.c: 80 bytes in front of the IP packet, slots of
 * jumbo rings in multiples of 128 bytes, of which the PMD copies all but
 * 32), which also covers the Ethernet header and a VLAN tag. */
#define MBUF_AUTO_SLACK 80u
#define MBUF_AUTO_ALIGN 128u
#define MBUF_AUTO_MIN 2048u

unsigned int
uet_config_mbuf_size(const struct uet_config *cfg)
{
	unsigned int room = MBUF_AUTO_MIN;

	if (cfg->engine.mbuf_size != 0)
		return cfg->engine.mbuf_size;
	for (unsigned int i = 0; i < UET_CONFIG_MAX_PORTS; i++)
		if (cfg->port[i].defined)
			room = RTE_MAX(room, RTE_ALIGN_CEIL(
					uet_config_port_mtu(&cfg->port[i]) +
					MBUF_AUTO_SLACK, MBUF_AUTO_ALIGN));
	return room + RTE_PKTMBUF_HEADROOM;
}

/* Auto pool: DPDK's default-sized pool of 2 KiB mbufs, and at most this
 * many bytes of mbufs once they are larger (jumbo frames). */
#define MBUF_POOL_AUTO_MAX 16383u
#define MBUF_POOL_AUTO_BYTES (64u << 20)

uint64_t
uet_config_mbuf_need(const struct uet_config *cfg)
{
	const struct uet_config_engine *e = &cfg->engine;
	uint64_t need = 0;

	for (unsigned int i = 0; i < UET_CONFIG_MAX_PORTS; i++) {
		const struct uet_config_port *p = &cfg->port[i];

		if (p->defined)
			need += (uint64_t)p->rx_queues * p->rx_desc +
				(uint64_t)p->tx_queues * p->tx_desc;
	}
	return need + (uint64_t)e->nb_lcores * (e->mbuf_cache + e->burst);
}

unsigned int
uet_config_mbuf_pool_size(const struct uet_config *cfg)
{
	uint64_t n, need;

	if (cfg->engine.mbuf_pool_size != 0)
		return cfg->engine.mbuf_pool_size;
	n = MBUF_POOL_AUTO_BYTES / uet_config_mbuf_size(cfg);
	if (n > MBUF_POOL_AUTO_MAX)
		n = MBUF_POOL_AUTO_MAX;
	need = uet_config_mbuf_need(cfg);
	if (need > n)
		n = need; /* validation bounds the rings: fits 32 bits */
	return (unsigned int)n;
}

static bool
fault_corrupts(const struct uet_config_fault *f)
{
	unsigned int d, c;

	if (!f->enabled)
		return false;
	for (d = 0; d < UET_CONFIG_FAULT_DIRS; d++)
		for (c = 0; c < UET_CONFIG_FAULT_CLASSES; c++)
			if (f->ppm[d][c][UET_CONFIG_FAULT_CORRUPT] != 0)
				return true;
	return false;
}

/* auto: a frame between two ports of shared memory never crosses a link
 * that could corrupt it (as Linux's loopback, which neither computes nor
 * verifies checksums); RFC 768 lets IPv4 carry none. The fault injector
 * is such a link: with it corrupting, the frames are summed (and a peer
 * on auto verifies a non-zero checksum it receives). */
static bool
port_shared_memory(const struct uet_config_port *p)
{
	return strncmp(p->devargs, "net_ring", 8) == 0 ||
	       strncmp(p->devargs, "net_memif", 9) == 0;
}

unsigned int
uet_config_port_mtu(const struct uet_config_port *p)
{
	if (p->mtu != 0)
		return p->mtu;
	return port_shared_memory(p) ? UET_CONFIG_MTU_JUMBO :
				       UET_CONFIG_MTU_ETHERNET;
}

bool
uet_config_port_udp_csum(const struct uet_config *cfg,
			 const struct uet_config_port *p)
{
	switch (p->udp_checksum) {
	case UET_CONFIG_UDP_CSUM_ON:
		return true;
	case UET_CONFIG_UDP_CSUM_OFF:
		return false;
	default:
		if (p->native_ip)
			return false;
		return fault_corrupts(&cfg->fault) || !port_shared_memory(p);
	}
}

unsigned int
uet_config_nb_ports(const struct uet_config *cfg)
{
	unsigned int i, n = 0;

	for (i = 0; i < UET_CONFIG_MAX_PORTS; i++)
		n += cfg->port[i].defined;
	return n;
}
