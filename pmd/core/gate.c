/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Port gate: keeps net_memif's control channel off the ports while they
 * are probed and started, and while they are used for the last time and
 * closed.
 *
 * DPDK 22.11's net_memif runs its control channel on the EAL interrupt
 * thread: a client's connection request, and a peer's disconnect, which
 * unmaps the shared rings and frees the regions with no lock against the
 * thread inside rte_eth_rx_burst()/rte_eth_tx_burst() or closing the port
 * (a SIGSEGV, or the same region freed twice). A server probed but not
 * yet started answers a connecting client "ID not found", and a 22.11
 * client never tries again.
 *
 * The gate is an interrupt source of its own (an eventfd registered with
 * the EAL) whose callback parks the interrupt thread until it is told to
 * go: while it is parked no memif control callback can run. The engine
 * parks it from before the ports are probed until they are started (a
 * client that connects meanwhile is served once the server is started),
 * and from uet_engine_ports_hold() (a fabric about to linger and close)
 * until the ports are closed (a peer that disconnects meanwhile is served
 * once our port is gone).
 *
 * While the engine runs, the thread stays parked too and steps out on
 * its own: every GATE_OUT_NS, and at every nap while a link is down (a
 * connection handshake takes several rounds). To step out it raises
 * @c out, waits until no lcore is inside its port bursts (each lcore
 * raises in_ports, then looks at @c out: Dekker style, so one of them
 * backs off), re-arms its eventfd and returns: the EAL runs whatever
 * waited (a dead peer's disconnect unmaps the rings while nobody touches
 * them), then calls the gate again, which lowers @c out. The lcores skip
 * their bursts meanwhile (TX stays staged) and never wait for the
 * thread; nor does the thread depend on the application polling the
 * engine (inline progress).
 */

#include <errno.h>
#include <string.h>
#include <time.h>

#include <sys/eventfd.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_pause.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_interrupts.h>

#include "engine_private.h"

/* Bound of the waits for the interrupt thread, and the nap between looks.
 * Generous: on an oversubscribed host (two MPI ranks and their engines on
 * two busy cores) the thread was seen to take over 2 s to run its first
 * callback, and an engine that gives up here fails fi_fabric(). */
#define GATE_WAIT_NS (10ull * 1000 * 1000 * 1000)
#define GATE_NAP_NS (50ull * 1000)
/* While the engine runs and the links are up: how often the thread steps
 * out (how late a peer's death is served at most, besides scheduling).
 * Each step out pauses the bursts until the thread is back in, which on
 * a machine with fewer CPUs than busy threads can take a scheduler slice:
 * rarely (20 ms doubled small-message MPI latency with 2 ranks on 2 CPUs) */
#define GATE_OUT_NS (200ull * 1000 * 1000)
/* Spins on the lcores' flags before napping: they leave within a burst */
#define GATE_DRAIN_SPINS 100000u
/* How long it waits for the lcores to leave their bursts (a descheduled
 * lcore): then it stays in and tries again later */
#define GATE_DRAIN_NS (100ull * 1000 * 1000)
/* Its nap while parked with the engine running and the links up: it
 * only looks at the clock then, and a thread waking every GATE_NAP_NS
 * for the whole run takes CPU time from busy-polling lcores on a small
 * machine (MPI latency doubled with 2 ranks on 2 CPUs) */
#define GATE_IDLE_NAP_NS (1000ull * 1000)

static uint64_t
gate_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void
gate_nap_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = (long)ns };

	(void)nanosleep(&ts, NULL);
}

static void
gate_nap(void)
{
	gate_nap_ns(GATE_NAP_NS);
}

bool
engine_gate_wanted(const struct uet_config *cfg)
{
	for (unsigned int i = 0; i < uet_config_nb_ports(cfg); i++)
		if (strncmp(cfg->port[i].devargs, "net_memif", 9) == 0)
			return true;
	return false;
}

/* Whether a started port's link is down (a memif peer not connected
 * yet, or gone): its control channel wants the interrupt thread. */
static bool
gate_link_down(const struct uet_engine *e)
{
	for (unsigned int i = 0; i < e->nb_ports; i++) {
		struct rte_eth_link l;

		if (e->port[i].started &&
		    rte_eth_link_get_nowait(e->port[i].port_id, &l) == 0 &&
		    l.link_status == RTE_ETH_LINK_DOWN)
			return true;
	}
	return false;
}

/* Raise @c out and wait until no lcore is in its bursts; false (and
 * @c out lowered) when one stays inside too long. */
static bool
gate_drain(struct uet_engine *e)
{
	struct engine_gate *g = &e->gate;
	uint64_t t0 = gate_now_ns();

	unsigned int spins = 0;

	atomic_store_explicit(&g->out, true, memory_order_seq_cst);
	for (unsigned int i = 0; i < e->nb_lcores; i++) {
		while (atomic_load_explicit(&e->lc[i]->in_ports,
					    memory_order_seq_cst)) {
			if (spins < GATE_DRAIN_SPINS) {
				spins++;
				rte_pause();
				continue;
			}
			if (gate_now_ns() - t0 > GATE_DRAIN_NS) {
				atomic_store(&g->out, false);
				return false;
			}
			gate_nap();
		}
	}
	return true;
}

/* Step out while the engine runs: true when the callback must return
 * (re-armed: the EAL calls it again after what waited). */
static bool
gate_step_out(struct uet_engine *e)
{
	struct engine_gate *g = &e->gate;
	uint64_t one = 1;

	/* parked no more until back: engine_gate_hold() (the lcores about to
	 * be freed) waits for it; then look at running again (Dekker) */
	atomic_store_explicit(&g->parked, false, memory_order_seq_cst);
	if (!atomic_load_explicit(&g->running, memory_order_seq_cst) ||
	    !gate_drain(e)) {
		atomic_store(&g->parked, true);
		return false;
	}
	if (write(g->efd, &one, sizeof(one)) != sizeof(one)) {
		atomic_store(&g->out, false);
		atomic_store(&g->parked, true);
		return false;
	}
	g->nb_out++;
	return true;
}

/* Runs on the interrupt thread: stay until told to go (stepping out now
 * and then while the engine runs). */
static void
gate_cb(void *arg)
{
	struct engine_gate *g = arg;
	struct uet_engine *e = container_of(g, struct uet_engine, gate);
	uint64_t v, since;

	/* level-triggered: drain the eventfd or be called again at once */
	(void)!read(g->efd, &v, sizeof(v));
	/* back in: what ran meanwhile is over, the lcores may burst */
	atomic_store(&g->out, false);
	atomic_store(&g->parked, true);
	since = gate_now_ns();
	while (atomic_load(&g->hold)) {
		bool running = atomic_load(&g->running);
		bool down = running && gate_link_down(e);

		if (running && (down || gate_now_ns() - since >= GATE_OUT_NS) &&
		    gate_step_out(e))
			return;
		gate_nap_ns(running && !down ? GATE_IDLE_NAP_NS : GATE_NAP_NS);
	}
	atomic_store(&g->parked, false);
}

/* Wait (bounded) until the callback is where @p parked says. */
static int
gate_wait(struct engine_gate *g, bool parked)
{
	uint64_t t0 = gate_now_ns();

	while (atomic_load(&g->parked) != parked) {
		if (gate_now_ns() - t0 > GATE_WAIT_NS)
			return -ETIMEDOUT;
		gate_nap();
	}
	return 0;
}

int
engine_gate_open(struct uet_engine *e)
{
	struct engine_gate *g = &e->gate;
	int rc;

	atomic_store(&g->hold, false);
	atomic_store(&g->parked, false);
	atomic_store(&g->running, false);
	atomic_store(&g->out, false);
	g->registered = false;
	g->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	g->ih = rte_intr_instance_alloc(RTE_INTR_INSTANCE_F_PRIVATE);
	if (g->efd < 0 || g->ih == NULL ||
	    rte_intr_fd_set(g->ih, g->efd) != 0 ||
	    rte_intr_type_set(g->ih, RTE_INTR_HANDLE_EXT) != 0) {
		rc = -ENOMEM;
		goto fail;
	}
	rc = rte_intr_callback_register(g->ih, gate_cb, g);
	if (rc < 0)
		goto fail;
	g->registered = true;
	g->enabled = true;
	rc = engine_gate_hold(e);
	if (rc < 0) {
		ENG_LOG(ERR, "gate: the EAL interrupt thread did not answer");
		engine_gate_close(e);
	}
	return rc;

fail:
	ENG_LOG(ERR, "gate: interrupt source: %s", rte_strerror(-rc));
	g->enabled = true;
	engine_gate_close(e);
	return rc;
}

int
engine_gate_hold(struct uet_engine *e)
{
	struct engine_gate *g = &e->gate;
	uint64_t one = 1;

	if (!g->enabled || !g->registered)
		return 0;
	/* no more stepping out (the lcores may go away next) */
	atomic_store_explicit(&g->running, false, memory_order_seq_cst);
	if (atomic_exchange(&g->hold, true))
		return gate_wait(g, true); /* already held */
	if (write(g->efd, &one, sizeof(one)) != sizeof(one))
		return -errno;
	return gate_wait(g, true);
}

/* The engine runs (its lcores exist): the thread stays parked and steps
 * out now and then. */
void
engine_gate_run(struct uet_engine *e)
{
	struct engine_gate *g = &e->gate;

	if (!g->enabled)
		return;
	atomic_store(&g->running, true);
}

/* Let the interrupt thread go for good. */
static void
gate_release(struct engine_gate *g)
{
	atomic_store(&g->running, false);
	atomic_store(&g->hold, false);
	if (gate_wait(g, false) < 0)
		ENG_LOG(ERR, "gate: the interrupt thread did not leave");
	atomic_store(&g->out, false);
}

void
engine_gate_close(struct uet_engine *e)
{
	struct engine_gate *g = &e->gate;
	uint64_t t0 = gate_now_ns();

	if (!g->enabled)
		return;
	gate_release(g);
	if (g->ih != NULL && g->registered) {
		/* -EAGAIN while the callback is still on its way out */
		while (rte_intr_callback_unregister(g->ih, gate_cb, g) ==
		       -EAGAIN) {
			if (gate_now_ns() - t0 > GATE_WAIT_NS) {
				ENG_LOG(ERR, "gate: callback still running");
				return; /* leak rather than free in use */
			}
			gate_nap();
		}
		g->registered = false;
	}
	rte_intr_instance_free(g->ih);
	g->ih = NULL;
	if (g->efd >= 0)
		close(g->efd);
	g->efd = -1;
	g->enabled = false;
}
