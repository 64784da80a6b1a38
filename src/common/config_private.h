/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_CONFIG_PRIV_H
#define UET_CONFIG_PRIV_H

/*
 * Key tables shared by the loader (config.c), the key setter and dumper
 * (config_keys.c) and the cross-field checks (config_validate.c). One table
 * row per key keeps the parser, the dump and the documentation in step.
 */

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uet/uet_config.h>

/* Comment character of configuration files (rte_cfgfile parameter). */
#define CFG_COMMENT_CHAR '#'

enum config_type {
	CFG_T_STR,    /* char array of width bytes */
	CFG_T_UINT,   /* unsigned integer of width 1, 2, 4 or 8 bytes */
	CFG_T_SIZE,   /* unsigned bytes with K/M/G suffixes */
	CFG_T_DUR,    /* uint64_t nanoseconds with ns/us/ms/s */
	CFG_T_DBL,    /* double */
	CFG_T_BOOL,   /* bool */
	CFG_T_ENUM,   /* int-sized enum, names table */
	CFG_T_IPV4,   /* struct in_addr + bool at aux_off */
	CFG_T_IPV6,   /* struct in6_addr + bool at aux_off */
	CFG_T_MAC,    /* uint8_t[6] + bool at aux_off, unicast only */
	CFG_T_LCORES, /* uint16_t array + uint16_t count at aux_off */
};

/* "auto" accepted and stored as 0 (numeric keys whose minimum is above 0). */
#define CFG_F_AUTO 0x1
/* "none" accepted: the bool at aux_off is cleared. */
#define CFG_F_NONE 0x2
/* An empty value is meaningful (its help says what it means); any other
 * key refuses one, so that "key =" never passes for a setting. */
#define CFG_F_EMPTY 0x4

struct config_key {
	const char *name;
	enum config_type type;
	uint8_t flags;
	uint16_t width;   /* sizeof the field */
	size_t off;       /* offset in the section struct */
	size_t aux_off;   /* has-flag or count, see config_type */
	uint64_t min;
	uint64_t max;
	double dmin;
	double dmax;
	const struct uet_parse_name *names;
	const char *help; /* meaning and unit; the range is added by the dump */
};

enum config_section_id {
	CFG_S_EAL,
	CFG_S_PORT,
	CFG_S_ENGINE,
	CFG_S_TIMERS,
	CFG_S_CC,
	CFG_S_SPRAY,
	CFG_S_DSCP,
	CFG_S_NEIGHBOR,
	CFG_S_FAULT,
	CFG_S_FABRIC,
	CFG_S_SERVICE,
	CFG_S_TSS,
	CFG_S_COUNT,
};

struct config_section {
	const char *name;         /* "port" stands for port0..port7 */
	enum config_section_id id;
	const struct config_key *keys;
	unsigned int nb_keys;
	size_t off;               /* offset in struct uet_config */
	const char *help;
};

extern const struct config_section config_sections[CFG_S_COUNT];

/* Defaults of [cc] and [spray]: what is built. */
void
config_cc_defaults(struct uet_config_cc *c);
void
config_spray_defaults(struct uet_config_spray *s);

/*
 * Why key @k of @sec does nothing yet (a value other than its default is
 * rejected), or NULL when the key is used.
 */
const char *
config_key_unbuilt(const struct config_section *sec, const struct config_key *k);

/* Defaults of [fabric] (config_fabric.c). */
void
config_fabric_defaults(struct uet_config_fabric *f);

/* A [fabric] schedule line key: fail, restore or rate. */
bool
config_fabric_is_event_key(const char *key);

/* Append the schedule line "key = value" to [fabric]; writes only on
 * success. */
int
config_fabric_event_add(struct uet_config_fabric *f, const char *key,
		     const char *value, struct uet_parse_err *pe);

/* "fail = leaf0-spine1 at 50us" lines of the dump. */
int
config_fabric_event_format(const struct uet_config_fabric_event *e,
			char *key, size_t key_len, char *buf, size_t len);

/* Cross-field checks of [fabric]: -EINVAL with @err filled. */
int
config_fabric_validate(const struct uet_config_fabric *f,
		    struct uet_config_error *err);

/* A [service] job.N line key. */
bool
config_service_is_acl_key(const char *key);

/* Add the job.N line "key = value" to [service] (names resolved now);
 * writes only on success. */
int
config_service_acl_add(struct uet_config_service *v, const char *key,
		    const char *value, struct uet_parse_err *pe);

/* "job.5 = uid:1000, gid:4" lines of the dump. */
int
config_service_acl_format(const struct uet_config_svc_acl *a, char *key,
		       size_t key_len, char *buf, size_t len);

/* Defaults of [tss] (config_tss.c). */
void
config_tss_defaults(struct uet_config_tss *t);

/* A [tss] domain.SDI line key. */
bool
config_tss_is_domain_key(const char *key);

/* Add the domain line "key = value" to [tss]; writes only on success. */
int
config_tss_domain_add(struct uet_config_tss *t, const char *key,
		   const char *value, struct uet_parse_err *pe);

/* "domain.7 = 1-100,200 /etc/uet/tss/7.key" lines of the dump. */
int
config_tss_domain_format(const struct uet_config_tss_domain *d, char *key,
		      size_t key_len, char *buf, size_t len);

/* Cross-field checks of [tss], key files included: -errno, @err filled. */
int
config_tss_validate(const struct uet_config_tss *t,
		 struct uet_config_error *err);

/* Defaults of a newly defined [portN]. */
void
config_port_defaults(struct uet_config_port *p);

const struct config_key *
config_key_find(const struct config_section *sec, const char *name);

/* -EINVAL with the reason an empty value is refused (CFG_F_EMPTY). */
int
config_empty_value(struct uet_parse_err *pe);

/* Parse @value into the field of @k in @base; writes only on success. */
int
config_key_set(const struct config_key *k, void *base, const char *value,
	    struct uet_parse_err *pe);

/*
 * Add one [neighbor] entry "ip = mac" (an existing address is replaced when
 * @replace, an error otherwise); writes only on success.
 */
int
config_neighbor_set(struct uet_config *cfg, const char *ip, const char *mac,
		 bool replace, struct uet_parse_err *pe);

/*
 * Fill @err (may be NULL) and return @code. Any of file/section/key may be
 * NULL or "". The message is "file:line: [section] key: reason".
 */
int
config_error(struct uet_config_error *err, int code, const char *file,
	  unsigned int line, const char *section, const char *key,
	  const char *fmt, ...) __attribute__((format(printf, 7, 8)));

#endif /* UET_CONFIG_PRIV_H */
