/* SPDX-License-Identifier: BSD-3-Clause */
/* Cross-field checks; single-key ranges are enforced by the key tables. */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_config.h>
#include <rte_ether.h>

#include "config_private.h"

/* Ethernet header plus one VLAN tag: the frame an MTU-sized packet needs. */
#define FRAME_OVERHEAD (RTE_ETHER_HDR_LEN + RTE_VLAN_HLEN)
/* rte_mempool_create refuses a cache larger than n / 1.5. */
#define CACHE_FLUSH_MULT_NUM 3
#define CACHE_FLUSH_MULT_DEN 2

static int
fail(struct uet_config_error *err, const char *section, const char *key,
     const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int
fail(struct uet_config_error *err, const char *section, const char *key,
     const char *fmt, ...)
{
	char reason[UET_PARSE_ERR_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	return config_error(err, -EINVAL, NULL, 0, section, key, "%s", reason);
}

static int
check_port_pair(const struct uet_config *cfg, unsigned int i, unsigned int j,
		const char *sec, struct uet_config_error *err)
{
	const struct uet_config_port *a = &cfg->port[i], *b = &cfg->port[j];

	if (strcmp(a->devargs, b->devargs) == 0)
		return fail(err, sec, "devargs", "same device as port%u", i);
	if (a->has_ipv4 && b->has_ipv4 && a->ipv4.s_addr == b->ipv4.s_addr)
		return fail(err, sec, "ipv4", "same address as port%u", i);
	if (a->has_ipv6 && b->has_ipv6 &&
	    memcmp(&a->ipv6, &b->ipv6, sizeof(a->ipv6)) == 0)
		return fail(err, sec, "ipv6", "same address as port%u", i);
	return 0;
}

/* udp_checksum must change something: native-IP frames have no UDP
 * header, and IPv6 always carries the checksum (RFC 8200 8.1). auto
 * resolves to what applies (uet_config_port_udp_csum()). */
static int
check_port_csum(const struct uet_config_port *p, const char *sec,
		struct uet_config_error *err)
{
	if (p->native_ip && p->udp_checksum == UET_CONFIG_UDP_CSUM_ON)
		return fail(err, sec, "udp_checksum", "native-IP mode has no "
			    "UDP header: set udp_checksum = false or auto "
			    "(frames are then not integrity-checked)");
	if (!p->native_ip && p->udp_checksum == UET_CONFIG_UDP_CSUM_OFF &&
	    !p->has_ipv4)
		return fail(err, sec, "udp_checksum", "false only applies to "
			    "IPv4 and this port has no ipv4 address (IPv6 "
			    "always carries the UDP checksum)");
	return 0;
}

/* tx_zero_copy = true must change something: the payload is copied where
 * it is summed in software or encrypted in place (AES-GCM of [tss]). */
static int
check_port_tx_zc(const struct uet_config *cfg, const struct uet_config_port *p,
		 const char *sec, struct uet_config_error *err)
{
	if (p->tx_zero_copy != UET_CONFIG_TX_ZC_ON)
		return 0;
	if (p->udp_checksum == UET_CONFIG_UDP_CSUM_ON)
		return fail(err, sec, "tx_zero_copy", "udp_checksum = true sums "
			    "the payload while copying it: set one of them "
			    "to false or auto");
	if (cfg->tss.enabled)
		return fail(err, sec, "tx_zero_copy", "[tss] encrypts the "
			    "payload in place in the frame: set tx_zero_copy "
			    "= false or auto");
	return 0;
}

static int
check_ports(const struct uet_config *cfg, struct uet_config_error *err)
{
	unsigned int room = uet_config_mbuf_size(cfg) - RTE_PKTMBUF_HEADROOM;
	char sec[16];
	unsigned int i, j, n = 0;
	int rc;

	for (i = 0; i < UET_CONFIG_MAX_PORTS; i++) {
		const struct uet_config_port *p = &cfg->port[i];

		snprintf(sec, sizeof(sec), "port%u", i);
		if (!p->defined)
			continue;
		if (i != n)
			return fail(err, sec, NULL, "ports must be numbered "
				    "from 0 without gaps (port%u missing)", n);
		n++;
		if (p->devargs[0] == '\0')
			return fail(err, sec, "devargs", "required");
		if (!p->has_ipv4 && !p->has_ipv6)
			return fail(err, sec, "ipv4", "a port needs an ipv4 "
				    "or ipv6 fabric address");
		if (uet_config_port_mtu(p) + FRAME_OVERHEAD > room)
			return fail(err, sec, "mtu", "mtu %u%s needs %u-byte "
				    "frames but engine.mbuf_size %u leaves %u "
				    "bytes after the %u-byte headroom",
				    uet_config_port_mtu(p),
				    p->mtu == 0 ? " (auto)" : "",
				    uet_config_port_mtu(p) + FRAME_OVERHEAD,
				    cfg->engine.mbuf_size, room,
				    RTE_PKTMBUF_HEADROOM);
		if (p->native_ip && p->ip_proto == IPPROTO_UDP)
			return fail(err, sec, "ip_proto", "native-IP mode "
				    "cannot use protocol 17 (UDP)");
		rc = check_port_csum(p, sec, err);
		if (rc == 0)
			rc = check_port_tx_zc(cfg, p, sec, err);
		if (rc < 0)
			return rc;
		for (j = 0; j < i; j++) {
			rc = check_port_pair(cfg, j, i, sec, err);
			if (rc < 0)
				return rc;
		}
	}
	if (n == 0)
		return fail(err, "port0", NULL, "at least one port is "
			    "required");
	return 0;
}

static int
check_engine(const struct uet_config *cfg, struct uet_config_error *err)
{
	const struct uet_config_engine *e = &cfg->engine;
	unsigned int pool = uet_config_mbuf_pool_size(cfg);
	uint64_t need = uet_config_mbuf_need(cfg), rxq = 0;
	unsigned int i;

	if (e->mbuf_size != 0 && e->mbuf_size <= RTE_PKTMBUF_HEADROOM)
		return fail(err, "engine", "mbuf_size", "must exceed the "
			    "%u-byte headroom", RTE_PKTMBUF_HEADROOM);
	if ((uint64_t)e->mbuf_cache * CACHE_FLUSH_MULT_NUM >
	    (uint64_t)pool * CACHE_FLUSH_MULT_DEN)
		return fail(err, "engine", "mbuf_cache", "cache %u too large "
			    "for mbuf_pool_size %u (at most pool / 1.5)",
			    e->mbuf_cache, pool);
	for (i = 0; i < UET_CONFIG_MAX_PORTS; i++)
		if (cfg->port[i].defined)
			rxq += cfg->port[i].rx_queues;
	if (need > pool)
		return fail(err, "engine", "mbuf_pool_size", "%u mbufs cannot "
			    "fill the descriptor rings and caches (need at "
			    "least %" PRIu64 ")", pool, need);
	if (e->nb_lcores == 0)
		return fail(err, "engine", "lcores", "at least one lcore is "
			    "required");
	if (e->progress == UET_CONFIG_PROGRESS_AUTO && rxq < e->nb_lcores)
		return fail(err, "engine", "lcores", "%u lcores but the ports "
			    "have %" PRIu64 " RX queues in total; every engine "
			    "lcore needs at least one", e->nb_lcores, rxq);
	if (e->pdc_pool_general + e->pdc_pool_reserved > 65535)
		return fail(err, "engine", "pdc_pool_reserved", "general + "
			    "reserved PDC ids exceed the 16-bit id space "
			    "(65535)");
	/* the back-off doubles idle_sleep up to idle_sleep_max */
	if (e->idle_sleep_ns > e->idle_sleep_max_ns)
		return fail(err, "engine", "idle_sleep_max", "%" PRIu64 " ns "
			    "is shorter than idle_sleep (%" PRIu64 " ns)",
			    e->idle_sleep_max_ns, e->idle_sleep_ns);
	return 0;
}

static int
check_timers(const struct uet_config *cfg, struct uet_config_error *err)
{
	const struct uet_config_timers *t = &cfg->timers;

	if (t->tick_ns > t->rto_init_ns)
		return fail(err, "timers", "tick", "tick must not exceed "
			    "rto_init");
	if (t->rto_max_ns < t->rto_init_ns)
		return fail(err, "timers", "rto_max", "must be at least "
			    "rto_init");
	if (t->tlp_timeout_ns != 0 && (t->tlp_timeout_ns < t->tick_ns ||
				       t->tlp_timeout_ns >= t->rto_init_ns))
		return fail(err, "timers", "tlp_timeout", "must be 0 (off) or "
			    "in [tick, rto_init)");
	if (t->close_idle_ns != 0 && t->close_idle_ns < t->rto_init_ns)
		return fail(err, "timers", "close_idle", "must be 0 (never) "
			    "or at least rto_init");
	if (t->close_req_idle_ns != 0 && t->close_req_idle_ns < t->rto_init_ns)
		return fail(err, "timers", "close_req_idle", "must be 0 (never) "
			    "or at least rto_init");
	if (t->ack_min_add > t->ack_coalesce_bytes)
		return fail(err, "timers", "ack_min_add", "must not exceed "
			    "ack_coalesce_bytes");
	if (strcmp(t->alive_dir, "auto") != 0 &&
	    strcmp(t->alive_dir, "off") != 0 && t->alive_dir[0] != '/')
		return fail(err, "timers", "alive_dir", "must be auto, off or "
			    "an absolute path");
	return 0;
}

/*
 * [cc] and most of [spray] are not built yet: a configuration filled in
 * by code (not read from a file, which is checked key by key as it is
 * read) must not carry a value that would silently do nothing.
 */
static int
check_unbuilt(const struct uet_config *cfg, struct uet_config_error *err)
{
	static const enum config_section_id ids[] = { CFG_S_CC, CFG_S_SPRAY };
	union {
		struct uet_config_cc cc;
		struct uet_config_spray spray;
	} def;

	for (unsigned int i = 0; i < RTE_DIM(ids); i++) {
		const struct config_section *sec = &config_sections[ids[i]];
		const char *have = (const char *)cfg + sec->off;

		if (ids[i] == CFG_S_CC)
			config_cc_defaults(&def.cc);
		else
			config_spray_defaults(&def.spray);
		for (unsigned int k = 0; k < sec->nb_keys; k++) {
			const struct config_key *key = &sec->keys[k];
			const char *why = config_key_unbuilt(sec, key);

			if (why != NULL &&
			    memcmp(have + key->off, (const char *)&def +
				   key->off, key->width) != 0)
				return config_error(err, -ENOTSUP, NULL, 0,
						 sec->name, key->name, "%s; "
						 "only the default is "
						 "accepted", why);
		}
	}
	return 0;
}

/* [cc] keys checked here; the derived NSCC parameters are checked when
 * the engine builds them (uet_proto_cc_config()). */
static int
check_cc(const struct uet_config *cfg, struct uet_config_error *err)
{
	const struct uet_config_cc *c = &cfg->cc;

	if (c->rccc_quantum % 256 != 0)
		return config_error(err, -EINVAL, NULL, 0, "cc", "rccc_quantum",
				 "must be a multiple of 256 (credit is "
				 "carried in 256-byte units)");
	return 0;
}

static int
check_spray(const struct uet_config *cfg, struct uet_config_error *err)
{
	const struct uet_config_spray *s = &cfg->spray;

	if ((uint32_t)s->ev_base + s->num_evs > 65536)
		return fail(err, "spray", "num_evs", "ev_base %u + num_evs %u "
			    "exceeds the 16-bit UDP port space", s->ev_base,
			    s->num_evs);
	/* UEC 1.0 section 3.6.16: spraying over at least 256 EVs. */
	if (s->mode != UET_CONFIG_SPRAY_SINGLE && s->num_evs < 256)
		return fail(err, "spray", "num_evs", "%u EVs: mode %s needs "
			    "at least 256", s->num_evs,
			    s->mode == UET_CONFIG_SPRAY_REPS ? "reps" :
							       "oblivious");
	return 0;
}

static int
check_dscp(const struct uet_config *cfg, struct uet_config_error *err)
{
	const struct uet_config_dscp *d = &cfg->dscp;

	/* The receiver recognises trimmed packets by DSCP alone (UEC 1.0 packet
	 * trimming). */
	if (d->trimmed == d->data || d->trimmed == d->control ||
	    d->trimmed == d->trimmable_retx)
		return fail(err, "dscp", "trimmed", "must differ from data, "
			    "control and trimmable_retx");
	if (d->trimmed_lasthop == d->data || d->trimmed_lasthop == d->control ||
	    d->trimmed_lasthop == d->trimmable_retx ||
	    d->trimmed_lasthop == d->trimmed)
		return fail(err, "dscp", "trimmed_lasthop", "must differ from "
			    "data, control, trimmable_retx and trimmed");
	if (d->control == d->data)
		return fail(err, "dscp", "control", "must differ from data "
			    "(control traffic has strict priority)");
	return 0;
}

static int
check_fault(const struct uet_config *cfg, struct uet_config_error *err)
{
	const struct uet_config_fault *f = &cfg->fault;
	unsigned int d, c;

	for (d = 0; d < UET_CONFIG_FAULT_DIRS; d++) {
		for (c = 0; c < UET_CONFIG_FAULT_CLASSES; c++) {
			if (f->ppm[d][c][UET_CONFIG_FAULT_DELAY] != 0 &&
			    f->delay_ns == 0)
				return fail(err, "fault", "delay", "delay "
					    "faults are enabled but delay is "
					    "0");
		}
	}
	if (f->until_ns != 0 && f->until_ns <= f->from_ns)
		return fail(err, "fault", "until", "%" PRIu64 " ns is not "
			    "after from (%" PRIu64 " ns)", f->until_ns,
			    f->from_ns);
	return 0;
}

static int
job_id(const char **p, uint32_t *v)
{
	char *end;
	unsigned long x;

	if (**p < '0' || **p > '9')
		return -EINVAL;
	errno = 0;
	x = strtoul(*p, &end, 10);
	if (errno != 0 || x > 0xFFFFFFul)
		return -EINVAL;
	*v = (uint32_t)x;
	*p = end;
	return 0;
}

int
uet_config_jobs_parse(const char *s, uint32_t *first, uint32_t *last,
		      unsigned int max, unsigned int *n, char *why,
		      size_t why_len)
{
	const char *p = s;
	const char *bad = NULL;

	*n = 0;
	if (s == NULL || *s == '\0')
		bad = "empty (give at least one JobID)";
	while (bad == NULL) {
		uint32_t a, b;

		if (job_id(&p, &a) < 0) {
			bad = "JobIDs are decimal numbers 0..16777215";
			break;
		}
		b = a;
		if (*p == '-') {
			p++;
			if (job_id(&p, &b) < 0) {
				bad = "JobIDs are decimal numbers 0..16777215";
				break;
			}
			if (b < a) {
				bad = "a range's first JobID is above its last";
				break;
			}
		}
		if (*n == max) {
			bad = "too many JobIDs and ranges";
			break;
		}
		first[*n] = a;
		last[*n] = b;
		(*n)++;
		if (*p == '\0')
			return 0;
		if (*p != ',') {
			bad = "expected ',' or '-' between JobIDs";
			break;
		}
		p++;
	}
	if (why != NULL)
		snprintf(why, why_len, "%s", bad);
	return -EINVAL;
}

static int
check_service(const struct uet_config *cfg, struct uet_config_error *err)
{
	const struct uet_config_service *v = &cfg->service;
	uint32_t a[UET_CONFIG_JOB_RANGES_MAX], b[UET_CONFIG_JOB_RANGES_MAX];
	char why[128];
	unsigned int n;

	if (v->socket[0] == '\0')
		return fail(err, "service", "socket", "empty");
	if (v->window_size % 4096 != 0)
		return fail(err, "service", "window_size", "%" PRIu64 " is "
			    "not a multiple of 4K", v->window_size);
	if (uet_config_jobs_parse(v->jobs, a, b, UET_CONFIG_JOB_RANGES_MAX,
				  &n, why, sizeof(why)) < 0)
		return fail(err, "service", "jobs", "%s: %s", v->jobs, why);
	if (uet_config_socket_mode(v->socket_mode) < 0)
		return fail(err, "service", "socket_mode", "'%s': expected "
			    "octal permissions 0000..0777 (e.g. 0660)",
			    v->socket_mode);
	return 0;
}

int
uet_config_socket_mode(const char *s)
{
	unsigned int v = 0;

	if (s == NULL || s[0] != '0' || strlen(s) > 4)
		return -EINVAL;
	for (const char *p = s + 1; *p != '\0'; p++) {
		if (*p < '0' || *p > '7')
			return -EINVAL;
		v = v * 8 + (unsigned int)(*p - '0');
	}
	return (int)v;
}

int
uet_config_validate(const struct uet_config *cfg,
		    struct uet_config_error *err)
{
	int rc;

	if (cfg == NULL)
		return config_error(err, -EINVAL, NULL, 0, NULL, NULL,
				 "invalid arguments");
	rc = check_ports(cfg, err);
	if (rc == 0)
		rc = check_engine(cfg, err);
	if (rc == 0)
		rc = check_timers(cfg, err);
	if (rc == 0)
		rc = check_unbuilt(cfg, err);
	if (rc == 0)
		rc = check_cc(cfg, err);
	if (rc == 0)
		rc = check_spray(cfg, err);
	if (rc == 0)
		rc = check_dscp(cfg, err);
	if (rc == 0)
		rc = check_fault(cfg, err);
	if (rc == 0)
		rc = config_fabric_validate(&cfg->fabric, err);
	if (rc == 0)
		rc = check_service(cfg, err);
	if (rc == 0)
		rc = config_tss_validate(&cfg->tss, err);
	return rc;
}
