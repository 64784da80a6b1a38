/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Engine lifecycle: contexts, queue assignment, launch and inline polling.
 *
 * Queue assignment: RX queue q of every port goes to context
 * q % nb_contexts, with TX queue q of the same port; a context transmits
 * on a port through the TX queue of its first RX queue there. With fewer
 * queues than contexts on a port, some contexts cannot send on that port
 * (uet_engine_tx() says -ENODEV), so create() rejects that configuration
 * unless the port has a single context by construction.
 */

#include <errno.h>
#include <sched.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "engine_private.h"

static int
lcores_check(const struct uet_engine *e, unsigned int nb_ctx)
{
	if (nb_ctx > UET_ENGINE_LCORES_MAX)
		return -EINVAL;
	for (unsigned int i = 0; i < e->nb_ports; i++)
		if (e->port[i].nb_rxq < nb_ctx) {
			ENG_LOG(ERR, "port %u has %u queues for %u contexts", i,
				e->port[i].nb_rxq, nb_ctx);
			return -EINVAL;
		}
	if (e->inline_mode)
		return 0;
	for (unsigned int i = 0; i < nb_ctx; i++) {
		unsigned int id = e->cfg.engine.lcores[i];

		if (id >= RTE_MAX_LCORE || !rte_lcore_is_enabled(id) ||
		    id == rte_get_main_lcore()) {
			ENG_LOG(ERR, "engine lcore %u is not an enabled worker",
				id);
			return -EINVAL;
		}
	}
	return 0;
}

static struct uet_engine_lcore *
lcore_create(struct uet_engine *e, unsigned int idx, unsigned int nb_ctx)
{
	struct uet_engine_lcore *lc;
	int socket = SOCKET_ID_ANY;

	if (!e->inline_mode)
		socket = (int)rte_lcore_to_socket_id(e->cfg.engine.lcores[idx]);
	lc = rte_zmalloc_socket("uet_lcore", sizeof(*lc), RTE_CACHE_LINE_SIZE,
				socket);
	if (lc == NULL)
		return NULL;
	lc->eng = e;
	lc->idx = idx;
	lc->lcore_id = e->inline_mode ? UINT32_MAX : e->cfg.engine.lcores[idx];
	lc->burst = RTE_MIN(e->cfg.engine.burst, UET_ENGINE_BURST_MAX);
	for (unsigned int p = 0; p < e->nb_ports; p++) {
		for (uint16_t q = 0; q < e->port[p].nb_rxq; q++) {
			if (q % nb_ctx != idx)
				continue;
			lc->rxq[lc->nb_rxq].port = (uint16_t)p;
			lc->rxq[lc->nb_rxq].queue = q;
			lc->nb_rxq++;
			if (!lc->tx[p].has_queue) {
				lc->tx[p].has_queue = true;
				lc->tx[p].queue = q;
			}
		}
	}
	engine_fault_init(lc);
	if (engine_local_delivery_init(lc) < 0)
		goto free_lc;
	if (engine_neigh_init(lc) < 0)
		goto free_local;
	if (engine_wake_init(lc) < 0)
		goto free_neigh;
	if (engine_tss_lcore_init(lc) < 0)
		goto free_wake;
	return lc;
free_wake:
	engine_wake_fini(lc);
free_neigh:
	engine_neigh_fini(lc);
free_local:
	engine_local_delivery_fini(lc);
free_lc:
	rte_free(lc);
	return NULL;
}

static void
lcores_free(struct uet_engine *e)
{
	for (unsigned int i = 0; i < e->nb_lcores; i++) {
		struct uet_engine_lcore *lc = e->lc[i];

		if (lc == NULL)
			continue;
		if (e->hook.lcore_fini != NULL)
			e->hook.lcore_fini(lc, lc->hook_priv);
		engine_lcore_drain(lc);
		engine_tss_lcore_fini(lc);
		engine_capture_close(lc);
		engine_neigh_fini(lc);
		engine_wake_fini(lc);
		engine_local_delivery_fini(lc);
		rte_free(lc);
		e->lc[i] = NULL;
	}
	e->nb_lcores = 0;
}

static int
lcores_setup(struct uet_engine *e, void *hook_arg)
{
	unsigned int nb_ctx = e->cfg.engine.nb_lcores;
	int rc;

	if (nb_ctx == 0)
		nb_ctx = 1;
	rc = lcores_check(e, nb_ctx);
	if (rc < 0)
		return rc;
	for (unsigned int i = 0; i < nb_ctx; i++) {
		e->lc[i] = lcore_create(e, i, nb_ctx);
		if (e->lc[i] == NULL)
			return -ENOMEM;
		e->nb_lcores = i + 1;
		rc = engine_capture_open(e->lc[i]);
		if (rc < 0)
			return rc;
		if (e->hook.lcore_init != NULL) {
			rc = e->hook.lcore_init(e->lc[i], hook_arg,
						&e->lc[i]->hook_priv);
			if (rc < 0)
				return rc;
		}
	}
	return 0;
}

static int
hook_copy(struct uet_engine *e, const struct uet_engine_hook_ops *h)
{
	if (h == NULL || h->size < offsetof(struct uet_engine_hook_ops,
					    tx_ready) + sizeof(h->tx_ready))
		return -EINVAL;
	memcpy(&e->hook, h, RTE_MIN(h->size, sizeof(e->hook)));
	if (e->hook.rx_burst == NULL || e->hook.advance == NULL ||
	    e->hook.tx_ready == NULL)
		return -EINVAL;
	return 0;
}

struct uet_engine *
uet_engine_create(const struct uet_engine_params *p)
{
	struct uet_engine *e;
	int rc;

	if (p == NULL || p->cfg == NULL || p->name == NULL ||
	    strlen(p->name) >= sizeof(e->name)) {
		rte_errno = EINVAL;
		return NULL;
	}
	e = rte_zmalloc("uet_engine", sizeof(*e), RTE_CACHE_LINE_SIZE);
	if (e == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	snprintf(e->name, sizeof(e->name), "%s", p->name);
	e->cfg = *p->cfg;
	/* auto (0): from the port MTUs; every reader below sees bytes */
	e->cfg.engine.mbuf_size = (uint16_t)uet_config_mbuf_size(&e->cfg);
	e->cfg.engine.mbuf_pool_size = uet_config_mbuf_pool_size(&e->cfg);
	for (unsigned int i = 0; i < UET_CONFIG_MAX_PORTS; i++)
		e->cfg.port[i].mtu =
			(uint16_t)uet_config_port_mtu(&e->cfg.port[i]);
	e->telemetry_slot = -1;
	e->inline_mode = e->cfg.engine.progress == UET_CONFIG_PROGRESS_INLINE;
	e->tsc_hz = rte_get_tsc_hz();
	e->ns_mult = (uint64_t)(((unsigned __int128)1000000000u << 32) /
				e->tsc_hz);
	if (p->clock != NULL && p->clock->now != NULL) {
		e->clock = p->clock->now;
		e->clock_arg = p->clock->arg;
	}
	rc = hook_copy(e, p->hook);
	if (rc < 0)
		goto free_engine;
	/* memif: the interrupt thread is parked from before the probe until
	 * the ports are started (gate.c) */
	if (engine_gate_wanted(&e->cfg)) {
		rc = engine_gate_open(e);
		if (rc < 0)
			goto free_engine;
	}
	rc = engine_tss_init(e);
	if (rc < 0)
		goto free_engine;
	rc = engine_alive_open(e);
	if (rc < 0)
		goto free_engine;
	rc = engine_ports_setup(e);
	if (rc < 0)
		goto close_ports;
	rc = lcores_setup(e, p->hook_arg);
	if (rc < 0)
		goto free_lcores;
	engine_gate_run(e); /* once the lcores exist (gate.c) */
	for (unsigned int i = 0; i < e->cfg.nb_neighbors; i++) {
		const struct uet_config_neighbor *n = &e->cfg.neighbor[i];
		uint8_t addr[16] = { 0 };
		unsigned int ver = n->ip.family == AF_INET6 ? 6 : 4;

		memcpy(addr, ver == 6 ? (const void *)&n->ip.v6 :
					(const void *)&n->ip.v4,
		       ver == 6 ? 16 : 4);
		rc = engine_neigh_static_all(e, ver, addr, n->mac);
		if (rc < 0)
			goto free_lcores;
	}
	(void)engine_telemetry_register(e);
	return e;

free_lcores:
	lcores_free(e);
close_ports:
	engine_ports_close(e);
free_engine:
	engine_alive_close(e, true);
	engine_tss_fini(e);
	rte_free(e);
	rte_errno = -rc;
	return NULL;
}

int
uet_engine_start(struct uet_engine *e)
{
	if (e == NULL)
		return -EINVAL;
	if (e->inline_mode)
		return 0;
	if (e->running)
		return -EALREADY;
	for (unsigned int i = 0; i < e->nb_lcores; i++)
		if (rte_eal_get_lcore_state(e->lc[i]->lcore_id) != WAIT)
			return -EBUSY;
	atomic_store_explicit(&e->stop, false, memory_order_relaxed);
	e->running = true;
	for (unsigned int i = 0; i < e->nb_lcores; i++) {
		int rc = rte_eal_remote_launch(engine_lcore_main, e->lc[i],
					       e->lc[i]->lcore_id);

		if (rc < 0) {
			ENG_LOG(ERR, "launch on lcore %u: %d",
				e->lc[i]->lcore_id, rc);
			uet_engine_stop(e);
			return -EBUSY;
		}
	}
	return 0;
}

int
uet_engine_stop(struct uet_engine *e)
{
	if (e == NULL || !e->running)
		return 0;
	atomic_store_explicit(&e->stop, true, memory_order_release);
	/* sleeping lcores see the flag when woken */
	for (unsigned int i = 0; i < e->nb_lcores; i++)
		engine_wake_kick(e->lc[i], true);
	for (unsigned int i = 0; i < e->nb_lcores; i++)
		(void)rte_eal_wait_lcore(e->lc[i]->lcore_id);
	e->running = false;
	return 0;
}

void
uet_engine_free(struct uet_engine *e)
{
	if (e == NULL)
		return;
	uet_engine_stop(e);
	engine_telemetry_unregister(e);
	/* the port gate's interrupt thread looks at the lcores (gate.c) */
	if (engine_gate_hold(e) < 0)
		ENG_LOG(ERR, "port gate not held: closing anyway");
	lcores_free(e);
	engine_ports_close(e);
	/* nothing runs any more: the alive files' last time is exact */
	engine_alive_close(e, true);
	engine_tss_fini(e);
	rte_free(e);
}

int
uet_engine_poll(struct uet_engine *e, unsigned int max_iterations)
{
	unsigned int work = 0;

	if (e == NULL)
		return -EINVAL;
	if (e->running)
		return -EBUSY;
	for (unsigned int it = 0; it < max_iterations; it++) {
		unsigned int w = 0;

		for (unsigned int i = 0; i < e->nb_lcores; i++)
			w += engine_lcore_iterate(e->lc[i]);
		work += w;
		if (w == 0)
			break;
	}
	return (int)RTE_MIN(work, (unsigned int)INT32_MAX);
}

/* Whether some context holds frames that only the port gate keeps;
 * @p count: count a wait on each such context. */
static bool
engine_tx_gated(struct uet_engine *e, bool count)
{
	bool gated = false;

	for (unsigned int i = 0; i < e->nb_lcores; i++) {
		if (!e->lc[i]->tx_gated)
			continue;
		if (count)
			ENG_INC(e->lc[i]->st.tx_gate_waits);
		gated = true;
	}
	return gated;
}

static uint64_t
flush_clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int
uet_engine_flush(struct uet_engine *e, unsigned int max_iterations,
		 uint64_t max_ns)
{
	uint64_t t0 = 0;
	int rc;

	rc = uet_engine_poll(e, max_iterations);
	if (rc < 0)
		return rc;
	/* the gate's interrupt thread is out (gate.c): it is back within a
	 * scheduler slice, which on a machine with fewer CPUs than busy
	 * threads it may have to take from this one */
	while (engine_tx_gated(e, t0 == 0)) {
		uint64_t now = flush_clock_ns();

		if (t0 == 0)
			t0 = now;
		else if (now - t0 >= max_ns)
			return -ETIMEDOUT;
		(void)sched_yield();
		rc = uet_engine_poll(e, 1);
		if (rc < 0)
			return rc;
	}
	return 0;
}

unsigned int
uet_engine_nb_lcores(const struct uet_engine *e)
{
	return e != NULL ? e->nb_lcores : 0;
}

unsigned int
uet_engine_nb_ports(const struct uet_engine *e)
{
	return e != NULL ? e->nb_ports : 0;
}

uint16_t
uet_engine_port_id(const struct uet_engine *e, unsigned int port)
{
	if (e == NULL || port >= e->nb_ports)
		return UINT16_MAX;
	return e->port[port].port_id;
}

struct uet_engine_lcore *
uet_engine_lcore_get(struct uet_engine *e, unsigned int idx)
{
	if (e == NULL || idx >= e->nb_lcores)
		return NULL;
	return e->lc[idx];
}

int
uet_engine_ports_hold(struct uet_engine *e)
{
	if (e == NULL)
		return -EINVAL;
	return engine_gate_hold(e);
}

bool
uet_engine_running(const struct uet_engine *e)
{
	return e != NULL && e->running;
}

unsigned int
uet_engine_lcore_index(const struct uet_engine_lcore *lc)
{
	return lc->idx;
}

struct uet_engine *
uet_engine_lcore_engine(struct uet_engine_lcore *lc)
{
	return lc->eng;
}

bool
uet_engine_lcore_has_port(const struct uet_engine_lcore *lc,
			  unsigned int port)
{
	return port < lc->eng->nb_ports && lc->tx[port].has_queue;
}

const struct uet_config *
uet_engine_config(const struct uet_engine *e)
{
	return &e->cfg;
}

void *
uet_engine_hook_priv(struct uet_engine *e, unsigned int idx,
		     const struct uet_engine_hook_ops *ops)
{
	if (e == NULL || ops == NULL || idx >= e->nb_lcores ||
	    e->hook.rx_burst != ops->rx_burst)
		return NULL;
	return e->lc[idx]->hook_priv;
}

int
uet_engine_port_info_get(const struct uet_engine *e, unsigned int port,
			 struct uet_engine_port_info *info)
{
	const struct engine_port *p;

	if (e == NULL || info == NULL || port >= e->nb_ports)
		return -EINVAL;
	p = &e->port[port];
	info->has_ipv4 = p->has_ipv4;
	info->native = p->native;
	info->csum_v4 = p->csum_v4;
	info->csum_tx_offload = p->csum_tx_offload;
	info->tx_ref = p->tx_ref;
	return 0;
}

/* ------------------------------------------------------------------ */
/* work queues attached to a context                                   */
/* ------------------------------------------------------------------ */

int
uet_engine_attach(struct uet_engine *e, unsigned int lcore_idx, void *q)
{
	struct uet_engine_lcore *lc;
	unsigned int n;

	if (e == NULL || q == NULL || lcore_idx >= e->nb_lcores)
		return -EINVAL;
	lc = e->lc[lcore_idx];
	n = atomic_load_explicit(&lc->nb_att, memory_order_relaxed);
	if (n >= UET_ENGINE_CHANS_MAX)
		return -ENOSPC;
	lc->att[n] = q;
	/* the slot is written before the count that publishes it */
	atomic_store_explicit(&lc->nb_att, n + 1, memory_order_release);
	return 0;
}

int
uet_engine_detach(struct uet_engine *e, const void *q)
{
	if (e == NULL || q == NULL)
		return -EINVAL;
	if (e->running)
		return -EBUSY;
	for (unsigned int i = 0; i < e->nb_lcores; i++) {
		struct uet_engine_lcore *lc = e->lc[i];
		unsigned int n = atomic_load_explicit(&lc->nb_att,
						      memory_order_relaxed);

		for (unsigned int j = 0; j < n; j++) {
			if (lc->att[j] != q)
				continue;
			lc->att[j] = lc->att[n - 1];
			lc->att[n - 1] = NULL;
			atomic_store_explicit(&lc->nb_att, n - 1,
					      memory_order_release);
			return 0;
		}
	}
	return -ENOENT;
}

unsigned int
uet_engine_lcore_nb_attached(const struct uet_engine_lcore *lc)
{
	return atomic_load_explicit(&lc->nb_att, memory_order_acquire);
}

void *
uet_engine_lcore_attached(struct uet_engine_lcore *lc, unsigned int i)
{
	if (i >= uet_engine_lcore_nb_attached(lc))
		return NULL;
	return lc->att[i];
}
