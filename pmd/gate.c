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
 * once our port is gone). While the engine runs the thread is free: the
 * memif PMD's bursts check the link themselves, and parking the thread
 * periodically during the run (tried: the data path skipping its bursts
 * while it was let go) made operations time out on a loaded machine.
 */

#include <errno.h>
#include <string.h>
#include <time.h>

#include <sys/eventfd.h>
#include <unistd.h>

#include <rte_errno.h>
#include <rte_interrupts.h>

#include "engine_private.h"

/* Bound of the waits for the interrupt thread, and the nap between looks. */
#define GATE_WAIT_NS (2ull * 1000 * 1000 * 1000)
#define GATE_NAP_NS (50ull * 1000)

static uint64_t
gate_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void
gate_nap(void)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = (long)GATE_NAP_NS };

	(void)nanosleep(&ts, NULL);
}

bool
eng_gate_wanted(const struct uet_config *cfg)
{
	for (unsigned int i = 0; i < uet_config_nb_ports(cfg); i++)
		if (strncmp(cfg->port[i].devargs, "net_memif", 9) == 0)
			return true;
	return false;
}

/* Runs on the interrupt thread: stay until told to go. */
static void
gate_cb(void *arg)
{
	struct eng_gate *g = arg;
	uint64_t v;

	/* level-triggered: drain the eventfd or be called again at once */
	(void)!read(g->efd, &v, sizeof(v));
	atomic_store(&g->parked, true);
	while (atomic_load(&g->hold))
		gate_nap();
	atomic_store(&g->parked, false);
}

/* Wait (bounded) until the callback is where @p parked says. */
static int
gate_wait(struct eng_gate *g, bool parked)
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
eng_gate_open(struct uet_engine *e)
{
	struct eng_gate *g = &e->gate;
	int rc;

	atomic_store(&g->hold, false);
	atomic_store(&g->parked, false);
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
	rc = eng_gate_hold(e);
	if (rc < 0) {
		ENG_LOG(ERR, "gate: the EAL interrupt thread did not answer");
		eng_gate_close(e);
	}
	return rc;

fail:
	ENG_LOG(ERR, "gate: interrupt source: %s", rte_strerror(-rc));
	g->enabled = true;
	eng_gate_close(e);
	return rc;
}

int
eng_gate_hold(struct uet_engine *e)
{
	struct eng_gate *g = &e->gate;
	uint64_t one = 1;

	if (!g->enabled || !g->registered)
		return 0;
	if (atomic_exchange(&g->hold, true))
		return gate_wait(g, true); /* already held */
	if (write(g->efd, &one, sizeof(one)) != sizeof(one))
		return -errno;
	return gate_wait(g, true);
}

void
eng_gate_run(struct uet_engine *e)
{
	struct eng_gate *g = &e->gate;

	if (!g->enabled)
		return;
	atomic_store(&g->hold, false);
	if (gate_wait(g, false) < 0)
		ENG_LOG(ERR, "gate: the interrupt thread did not leave");
}

void
eng_gate_close(struct uet_engine *e)
{
	struct eng_gate *g = &e->gate;
	uint64_t t0 = gate_now_ns();

	if (!g->enabled)
		return;
	eng_gate_run(e);
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
