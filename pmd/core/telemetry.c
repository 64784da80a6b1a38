/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rte_telemetry commands under /uet/ (see docs/ENGINE.md):
 *   /uet/engines              names of the engines of this process
 *   /uet/stats,<engine>       engine-wide counters
 *   /uet/ports,<engine>       ports: ethdev id, MAC, FA, queues, ethdev stats
 *   /uet/lcores,<engine>      per-context counters
 *   /uet/fault,<engine>       fault injection counters per direction
 *   /uet/neigh,<engine>       neighbour resolution counters
 * <engine> is an index (default 0) into the registration order. The
 * layers above the core add their own commands (uet_engine_telemetry_add():
 * /uet/pds and /uet/cc from the PDS hook, /uet/ses from the SES ULP).
 *
 * Callbacks run on the telemetry thread; the registry mutex keeps an
 * engine alive while a callback reads it.
 */

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_telemetry.h>

#include "engine_private.h"

#define TEL_ENGINES 8

static pthread_mutex_t telemetry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct uet_engine *telemetry_engines[TEL_ENGINES];
static bool telemetry_registered;
/* commands added by the layers above (uet_engine_telemetry_add()) */
#define TEL_ADDED_MAX 8
static struct {
	const char *cmd;
	const char *help;
	uet_engine_tel_fn fn;
	bool registered;      /* with rte_telemetry */
} telemetry_added[TEL_ADDED_MAX];
static unsigned int telemetry_nb_added;

typedef int (*telemetry_fill_fn)(const struct uet_engine *e,
			   const struct uet_engine_stats *s,
			   struct rte_tel_data *d);

static void
add_u64(struct rte_tel_data *d, const char *name, uint64_t v)
{
	(void)rte_tel_data_add_dict_u64(d, name, v);
}

static uint64_t
sum_ports(const uint64_t *v, unsigned int port)
{
	uint64_t n = 0;

	for (unsigned int p = 0; p < UET_CONFIG_MAX_PORTS; p++)
		if (port == UET_CONFIG_MAX_PORTS || p == port)
			n += v[p];
	return n;
}

/* Local delivery counters of one port (UET_CONFIG_MAX_PORTS: all). */
static void
add_local(struct rte_tel_data *d, const struct uet_engine_lcore_stats *s,
	    unsigned int port)
{
	add_u64(d, "local_delivery_tx", sum_ports(s->local_delivery_tx, port));
	add_u64(d, "local_delivery_rx", sum_ports(s->local_delivery_rx, port));
	add_u64(d, "local_delivery_drop", sum_ports(s->local_delivery_drop, port));
	if (port == UET_CONFIG_MAX_PORTS) /* per context, not per port */
		add_u64(d, "local_delivery_wake", s->local_delivery_wake);
}

/* [tss] counters: zero unless the engine protects jobs */
static void
add_tss(struct rte_tel_data *d, const struct uet_engine_tss_stats *t)
{
	char k[48];

	add_u64(d, "tss_tx_sealed", t->tx_sealed);
	add_u64(d, "tss_tx_clear", t->tx_clear);
	add_u64(d, "tss_tx_fail", t->tx_fail);
	add_u64(d, "tss_tx_key_exhausted", t->tx_key_exhausted);
	add_u64(d, "tss_rx_opened", t->rx_opened);
	add_u64(d, "tss_tx_keys", t->tx_keys);
	add_u64(d, "tss_rx_keys", t->rx_keys);
	add_u64(d, "tss_epochs", t->epochs);
	for (unsigned int r = 0; r < UET_ENGINE_TSS_DROPS; r++) {
		snprintf(k, sizeof(k), "tss_rx_drop_%s",
			 uet_engine_tss_drop_name(r));
		add_u64(d, k, t->rx_drop[r]);
	}
}

static int
fill_stats(const struct uet_engine *e, const struct uet_engine_stats *s,
	   struct rte_tel_data *d)
{
	const struct uet_engine_lcore_stats *t = &s->total;

	rte_tel_data_add_dict_string(d, "name", e->name);
	rte_tel_data_add_dict_string(d, "hook", e->hook.name != NULL ?
				     e->hook.name : "");
	rte_tel_data_add_dict_string(d, "progress",
				     e->inline_mode ? "inline" : "auto");
	rte_tel_data_add_dict_int(d, "running", s->running);
	rte_tel_data_add_dict_int(d, "nb_lcores", (int)s->nb_lcores);
	rte_tel_data_add_dict_int(d, "nb_ports", (int)s->nb_ports);
	add_u64(d, "iterations", t->iterations);
	add_u64(d, "busy_iterations", t->busy_iterations);
	add_u64(d, "idle_sleeps", t->idle_sleeps);
	add_u64(d, "wake_post", t->wake_post);
	add_u64(d, "wake_rx", t->wake_rx);
	add_u64(d, "wake_timer", t->wake_timer);
	add_u64(d, "wake_poll", t->wake_poll);
	add_u64(d, "app_iterations", t->app_iterations);
	add_u64(d, "rx_pkts", t->rx_pkts);
	add_u64(d, "rx_bytes", t->rx_bytes);
	add_u64(d, "rx_uet", t->rx_uet);
	add_u64(d, "rx_req", t->rx_class[UET_ENGINE_CLASS_REQ]);
	add_u64(d, "rx_ack", t->rx_class[UET_ENGINE_CLASS_ACK]);
	add_u64(d, "rx_nack", t->rx_class[UET_ENGINE_CLASS_NACK]);
	add_u64(d, "rx_cp", t->rx_class[UET_ENGINE_CLASS_CP]);
	add_u64(d, "rx_arp", t->rx_arp);
	add_u64(d, "rx_nd", t->rx_nd);
	add_u64(d, "rx_non_uet", t->rx_non_uet);
	add_u64(d, "rx_malformed", t->rx_malformed);
	add_u64(d, "rx_trimmed", t->rx_trimmed);
	add_u64(d, "rx_csum_bad", t->rx_csum_bad);
	add_u64(d, "rx_csum_none", t->rx_csum_none);
	add_u64(d, "rx_mtu_exceeded", t->rx_mtu_exceeded);
	add_u64(d, "rx_chained", t->rx_chained);
	add_u64(d, "rx_linearized", t->rx_linearized);
	for (unsigned int c = 1; c < UET_WIRE_E__COUNT; c++) {
		char k[48];

		if (t->rx_err_code[c] == 0)
			continue;
		snprintf(k, sizeof(k), "rx_err_%s", uet_wire_errname((int)c));
		add_u64(d, k, t->rx_err_code[c]);
	}
	add_tss(d, &t->tss);
	add_u64(d, "tx_pkts", t->tx_pkts);
	add_u64(d, "tx_bytes", t->tx_bytes);
	add_u64(d, "tx_full", t->tx_full);
	add_u64(d, "tx_held", t->tx_held);
	add_u64(d, "tx_gate_waits", t->tx_gate_waits);
	add_u64(d, "capture_pkts", t->capture_pkts);
	add_u64(d, "capture_fail", t->capture_fail);
	add_u64(d, "tx_staging_full", t->tx_staging_full);
	add_u64(d, "tx_no_queue", t->tx_no_queue);
	add_u64(d, "mbuf_alloc_fail", t->mbuf_alloc_fail);
	add_local(d, t, UET_CONFIG_MAX_PORTS);
	return 0;
}

/* Who sums a port's UDP checksums (port.c port_csum_offloads): the
 * device, the engine in software, or nobody (native IP; IPv4-only with
 * port.udp_checksum = false). */
static const char *
csum_mode(const struct engine_port *p, bool offload)
{
	if (p->native || !(p->csum_v4 || p->has_ipv6))
		return "none";
	return offload ? "device" : "software";
}

static int
fill_ports(const struct uet_engine *e, const struct uet_engine_stats *s,
	   struct rte_tel_data *d)
{
	for (unsigned int i = 0; i < e->nb_ports; i++) {
		const struct engine_port *p = &e->port[i];
		struct rte_tel_data *c = rte_tel_data_alloc();
		struct rte_eth_stats es;
		char buf[INET6_ADDRSTRLEN], key[16];

		if (c == NULL)
			return -ENOMEM;
		rte_tel_data_start_dict(c);
		rte_tel_data_add_dict_string(c, "devargs", p->name);
		rte_tel_data_add_dict_int(c, "port_id", p->port_id);
		rte_tel_data_add_dict_int(c, "socket", p->socket);
		rte_tel_data_add_dict_int(c, "queues", p->nb_rxq);
		rte_tel_data_add_dict_int(c, "mtu", p->mtu);
		rte_tel_data_add_dict_string(c, "udp_checksum_tx",
					     csum_mode(p, p->csum_tx_offload));
		rte_tel_data_add_dict_string(c, "udp_checksum_rx",
					     csum_mode(p, p->csum_rx_offload));
		rte_ether_format_addr(buf, sizeof(buf), &p->mac);
		rte_tel_data_add_dict_string(c, "mac", buf);
		if (p->has_ipv4 && inet_ntop(AF_INET, p->ipv4, buf, sizeof(buf)))
			rte_tel_data_add_dict_string(c, "ipv4", buf);
		if (p->has_ipv6 &&
		    inet_ntop(AF_INET6, p->ipv6, buf, sizeof(buf)))
			rte_tel_data_add_dict_string(c, "ipv6", buf);
		if (p->ring_rx == NULL && /* a ring pair has no ethdev */
		    rte_eth_stats_get(p->port_id, &es) == 0) {
			add_u64(c, "ipackets", es.ipackets);
			add_u64(c, "opackets", es.opackets);
			add_u64(c, "imissed", es.imissed);
			add_u64(c, "ierrors", es.ierrors);
			add_u64(c, "oerrors", es.oerrors);
			add_u64(c, "rx_nombuf", es.rx_nombuf);
		}
		add_local(c, &s->total, i);
		snprintf(key, sizeof(key), "port%u", i);
		rte_tel_data_add_dict_container(d, key, c, 0);
	}
	return 0;
}

static int
fill_lcores(const struct uet_engine *e, const struct uet_engine_stats *s,
	    struct rte_tel_data *d)
{
	for (unsigned int i = 0; i < s->nb_lcores; i++) {
		const struct uet_engine_lcore_stats *l = &s->lcore[i];
		struct rte_tel_data *c = rte_tel_data_alloc();
		char key[16];

		if (c == NULL)
			return -ENOMEM;
		rte_tel_data_start_dict(c);
		rte_tel_data_add_dict_int(c, "lcore_id",
					  e->lc[i]->lcore_id == UINT32_MAX ? -1 :
					  (int)e->lc[i]->lcore_id);
		rte_tel_data_add_dict_int(c, "rx_queues", e->lc[i]->nb_rxq);
		rte_tel_data_add_dict_int(c, "channels",
					  (int)uet_engine_lcore_nb_attached(e->lc[i]));
		add_u64(c, "iterations", l->iterations);
		add_u64(c, "busy_iterations", l->busy_iterations);
		add_u64(c, "idle_sleeps", l->idle_sleeps);
		add_u64(c, "wake_post", l->wake_post);
		add_u64(c, "wake_rx", l->wake_rx);
		add_u64(c, "wake_timer", l->wake_timer);
		add_u64(c, "wake_poll", l->wake_poll);
		add_u64(c, "app_iterations", l->app_iterations);
		rte_tel_data_add_dict_int(c, "rx_intr_queues",
					  e->lc[i]->wake.nb_intr);
		add_u64(c, "rx_pkts", l->rx_pkts);
		add_u64(c, "rx_uet", l->rx_uet);
		add_u64(c, "rx_malformed", l->rx_malformed);
		add_u64(c, "rx_trimmed", l->rx_trimmed);
		add_u64(c, "rx_csum_bad", l->rx_csum_bad);
		add_u64(c, "tx_pkts", l->tx_pkts);
		add_u64(c, "tx_full", l->tx_full);
		add_u64(c, "tx_held", l->tx_held);
		add_u64(c, "tx_gate_waits", l->tx_gate_waits);
		add_local(c, l, UET_CONFIG_MAX_PORTS);
		snprintf(key, sizeof(key), "ctx%u", i);
		rte_tel_data_add_dict_container(d, key, c, 0);
	}
	return 0;
}

static int
fill_fault(const struct uet_engine *e, const struct uet_engine_stats *s,
	   struct rte_tel_data *d)
{
	rte_tel_data_add_dict_int(d, "enabled", e->cfg.fault.enabled);
	add_u64(d, "seed", e->cfg.fault.seed);
	for (unsigned int dir = 0; dir < UET_CONFIG_FAULT_DIRS; dir++) {
		const struct uet_engine_fault_stats *f = &s->total.fault[dir];
		const char *dn = dir == UET_CONFIG_FAULT_RX ? "rx" : "tx";
		char k[48];

		for (unsigned int kind = 0; kind < UET_CONFIG_FAULT_KINDS;
		     kind++) {
			snprintf(k, sizeof(k), "%s_%s", dn,
				 uet_engine_fault_name(kind));
			add_u64(d, k, f->applied[kind]);
			snprintf(k, sizeof(k), "%s_%s_skipped", dn,
				 uet_engine_fault_name(kind));
			add_u64(d, k, f->skipped[kind]);
		}
		snprintf(k, sizeof(k), "%s_released", dn);
		add_u64(d, k, f->released);
		snprintf(k, sizeof(k), "%s_flushed", dn);
		add_u64(d, k, f->flushed);
	}
	return 0;
}

static int
fill_neigh(const struct uet_engine *e, const struct uet_engine_stats *s,
	   struct rte_tel_data *d)
{
	const struct uet_engine_lcore_stats *t = &s->total;

	(void)e;
	add_u64(d, "arp_req_rx", t->arp_req_rx);
	add_u64(d, "arp_reply_rx", t->arp_reply_rx);
	add_u64(d, "arp_req_tx", t->arp_req_tx);
	add_u64(d, "nd_ns_rx", t->nd_ns_rx);
	add_u64(d, "nd_na_rx", t->nd_na_rx);
	add_u64(d, "nd_ns_tx", t->nd_ns_tx);
	add_u64(d, "nd_bad", t->nd_bad);
	add_u64(d, "neigh_hit", t->neigh_hit);
	add_u64(d, "neigh_miss", t->neigh_miss);
	add_u64(d, "neigh_hold_drop", t->neigh_hold_drop);
	add_u64(d, "neigh_full", t->neigh_full);
	add_u64(d, "neigh_updates", t->neigh_updates);
	return 0;
}

void
uet_engine_telemetry_ctx_u64(struct rte_tel_data *d, unsigned int ctx,
			     const char *name, uint64_t v)
{
	char k[RTE_TEL_MAX_STRING_LEN];

	snprintf(k, sizeof(k), "ctx%u_%s", ctx, name);
	add_u64(d, k, v);
}

/* The answer to a command that cannot be answered: an object that says
 * why ({"error": ..., "errno": N}), never a bare null. */
static int
telemetry_error(struct rte_tel_data *d, int rc, const char *why)
{
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "error", why);
	rte_tel_data_add_dict_int(d, "errno", -rc);
	return rc;
}

/* Run @p fill (a core command, given the engine's counters) or @p fn (an
 * added one) for the engine @p params names, under the registry lock. */
static int
telemetry_run(const char *params, struct rte_tel_data *d, telemetry_fill_fn fill,
	uet_engine_tel_fn fn)
{
	static struct uet_engine_stats s; /* large: under telemetry_lock */
	unsigned long idx = 0;
	int rc;

	if (params != NULL && *params != '\0') {
		char *end;

		idx = strtoul(params, &end, 10);
		if (*end != '\0' || !isdigit((unsigned char)params[0]))
			return telemetry_error(d, -EINVAL, "parameter: expected an "
					 "engine index (see /uet/engines)");
		if (idx >= TEL_ENGINES)
			return telemetry_error(d, -ENOENT, "no engine with this "
					 "index (see /uet/engines)");
	}
	pthread_mutex_lock(&telemetry_lock);
	if (telemetry_engines[idx] == NULL) {
		rc = telemetry_error(d, -ENOENT, "no engine with this index (see "
			       "/uet/engines)");
	} else {
		rte_tel_data_start_dict(d);
		if (fill != NULL) {
			(void)uet_engine_stats_get(telemetry_engines[idx], &s);
			rc = fill(telemetry_engines[idx], &s, d);
		} else {
			rc = fn(telemetry_engines[idx], d);
		}
		if (rc < 0)
			(void)telemetry_error(d, rc, "not available on this engine "
					"(its hook or ULP does not provide it)");
	}
	pthread_mutex_unlock(&telemetry_lock);
	return rc;
}

/* What the telemetry socket runs: errors are answered as an object. */
static int
telemetry_socket_cmd(const char *cmd, const char *params, struct rte_tel_data *d)
{
	int rc = uet_engine_telemetry_call(cmd, params, d);

	return rc < 0 ? 0 : rc;
}

static int
cmd_engines(const char *cmd, const char *params, struct rte_tel_data *d)
{
	(void)cmd;
	(void)params;
	rte_tel_data_start_array(d, RTE_TEL_STRING_VAL);
	pthread_mutex_lock(&telemetry_lock);
	for (unsigned int i = 0; i < TEL_ENGINES; i++)
		if (telemetry_engines[i] != NULL)
			rte_tel_data_add_array_string(d, telemetry_engines[i]->name);
	pthread_mutex_unlock(&telemetry_lock);
	return 0;
}

#define TEL_CMD(fn, fill) \
static int \
fn(const char *cmd, const char *params, struct rte_tel_data *d) \
{ \
	(void)cmd; \
	return telemetry_run(params, d, fill, NULL); \
}

TEL_CMD(cmd_stats, fill_stats)
TEL_CMD(cmd_ports, fill_ports)
TEL_CMD(cmd_lcores, fill_lcores)
TEL_CMD(cmd_fault, fill_fault)
TEL_CMD(cmd_neigh, fill_neigh)

static const struct {
	const char *cmd;
	telemetry_cb fn;
	const char *help;
} telemetry_cmds[] = {
	{ "/uet/engines", cmd_engines, "Engines of this process. No parameters" },
	{ "/uet/stats", cmd_stats, "Engine counters. Parameter: engine index" },
	{ "/uet/ports", cmd_ports, "Engine ports. Parameter: engine index" },
	{ "/uet/lcores", cmd_lcores,
	  "Per-context counters. Parameter: engine index" },
	{ "/uet/fault", cmd_fault,
	  "Fault injection counters. Parameter: engine index" },
	{ "/uet/neigh", cmd_neigh, "ARP/ND counters. Parameter: engine index" },
};

/* Register the added commands with rte_telemetry once the core's are
 * (telemetry_lock held). */
static void
telemetry_added_register(void)
{
	for (unsigned int i = 0; i < telemetry_nb_added; i++)
		if (!telemetry_added[i].registered) {
			(void)rte_telemetry_register_cmd(telemetry_added[i].cmd,
							 telemetry_socket_cmd,
							 telemetry_added[i].help);
			telemetry_added[i].registered = true;
		}
}

int
uet_engine_telemetry_add(const char *cmd, uet_engine_tel_fn fn,
			 const char *help)
{
	int rc = 0;

	if (cmd == NULL || fn == NULL || help == NULL)
		return -EINVAL;
	pthread_mutex_lock(&telemetry_lock);
	for (unsigned int i = 0; i < telemetry_nb_added; i++)
		if (strcmp(telemetry_added[i].cmd, cmd) == 0)
			goto out; /* already there */
	if (telemetry_nb_added == TEL_ADDED_MAX) {
		rc = -ENOSPC;
		goto out;
	}
	telemetry_added[telemetry_nb_added].cmd = cmd;
	telemetry_added[telemetry_nb_added].help = help;
	telemetry_added[telemetry_nb_added].fn = fn;
	telemetry_nb_added++;
	if (telemetry_registered)
		telemetry_added_register();
out:
	pthread_mutex_unlock(&telemetry_lock);
	return rc;
}

int
engine_telemetry_register(struct uet_engine *e)
{
	int rc = -ENOSPC;

	pthread_mutex_lock(&telemetry_lock);
	if (!telemetry_registered) {
		for (unsigned int i = 0; i < RTE_DIM(telemetry_cmds); i++)
			(void)rte_telemetry_register_cmd(telemetry_cmds[i].cmd,
							 telemetry_socket_cmd,
							 telemetry_cmds[i].help);
		telemetry_registered = true;
	}
	telemetry_added_register();
	for (int i = 0; i < TEL_ENGINES; i++)
		if (telemetry_engines[i] == NULL) {
			telemetry_engines[i] = e;
			e->telemetry_slot = i;
			rc = 0;
			break;
		}
	pthread_mutex_unlock(&telemetry_lock);
	return rc;
}

void
engine_telemetry_unregister(struct uet_engine *e)
{
	pthread_mutex_lock(&telemetry_lock);
	if (e->telemetry_slot >= 0 && telemetry_engines[e->telemetry_slot] == e)
		telemetry_engines[e->telemetry_slot] = NULL;
	e->telemetry_slot = -1;
	pthread_mutex_unlock(&telemetry_lock);
}

int
uet_engine_telemetry_call(const char *cmd, const char *params,
			  struct rte_tel_data *d)
{
	uet_engine_tel_fn fn = NULL;

	for (unsigned int i = 0; i < RTE_DIM(telemetry_cmds); i++)
		if (strcmp(cmd, telemetry_cmds[i].cmd) == 0)
			return telemetry_cmds[i].fn(cmd, params, d);
	pthread_mutex_lock(&telemetry_lock);
	for (unsigned int i = 0; i < telemetry_nb_added && fn == NULL; i++)
		if (strcmp(cmd, telemetry_added[i].cmd) == 0)
			fn = telemetry_added[i].fn;
	pthread_mutex_unlock(&telemetry_lock);
	return fn != NULL ? telemetry_run(params, d, NULL, fn) : -ENOENT;
}
