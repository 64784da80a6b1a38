/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Port gate: keeps the EAL interrupt thread and the data path off a
 * net_memif port at the same time.
 *
 * DPDK 22.11's net_memif runs its control channel on the EAL interrupt
 * thread: a client's connection request, and a peer's disconnect, which
 * unmaps the shared rings and frees the regions with no lock against the
 * thread inside rte_eth_rx_burst()/rte_eth_tx_burst() or closing the port
 * (a SIGSEGV in the burst, or the same region freed twice). A server
 * probed but not yet started answers a connecting client "ID not found",
 * and a 22.11 client never tries again.
 *
 * The gate is an EAL alarm whose callback parks the interrupt thread:
 * while it is parked no memif control callback can run, and the data path
 * may use the ports. Every gate period the callback lets go: it waits for
 * the data path to leave its port bursts (which then skip the ports),
 * re-arms itself a little later and returns, so that the interrupt thread
 * serves whatever memif events are pending (the peer's handshake, its
 * disconnect) with no burst in progress. The gate is held closed (no
 * release) from before the ports are probed until they are started, and
 * from uet_engine_ports_hold() (a fabric lingering before close) until the
 * ports are closed: a peer that disconnects then is served only after our
 * port is gone. After a peer's disconnect the memif PMD reports the link
 * down and its bursts return 0 without touching the rings.
 */

#include <errno.h>
#include <string.h>
#include <time.h>

#include <rte_alarm.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_pause.h>

#include "engine_private.h"

/* Interrupt thread released this often while every port is up, and
 * while some port is still connecting (memif's handshake needs a few
 * control messages, each served in a release). */
#define GATE_PERIOD_UP_NS (20ull * 1000 * 1000)
#define GATE_PERIOD_DOWN_NS (1ull * 1000 * 1000)
/* A release lasts this long: the interrupt thread serves what is ready. */
#define GATE_RELEASE_US 100
/* Bounds of the waits (a parked interrupt thread, a data path burst). */
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

static bool
gate_links_up(const struct uet_engine *e)
{
	for (unsigned int i = 0; i < e->nb_ports; i++) {
		struct rte_eth_link l;

		if (!e->port[i].started ||
		    rte_eth_link_get_nowait(e->port[i].port_id, &l) != 0 ||
		    l.link_status != RTE_ETH_LINK_UP)
			return false;
	}
	return true;
}

static void gate_cb(void *arg);

/* Let the interrupt thread go once: no data path burst may be in
 * progress when this returns. */
static void
gate_release(struct eng_gate *g)
{
	uint64_t t0 = gate_now_ns();

	atomic_store(&g->parked, false);
	while (atomic_load(&g->active) != 0) {
		if (gate_now_ns() - t0 > GATE_WAIT_NS) {
			/* a burst does not take seconds: a data path thread
			 * that entered and never left is a bug */
			ENG_LOG(ERR, "gate: data path still in a port burst");
			t0 = gate_now_ns();
		}
		rte_pause();
	}
}

static void
gate_cb(void *arg)
{
	struct uet_engine *e = arg;
	struct eng_gate *g = &e->gate;
	uint64_t start = gate_now_ns(), period;

	atomic_store(&g->parked, true);
	while (!atomic_load(&g->stop)) {
		if (!atomic_load(&g->hold)) {
			period = gate_links_up(e) ? GATE_PERIOD_UP_NS :
						    GATE_PERIOD_DOWN_NS;
			if (gate_now_ns() - start >= period)
				break;
		}
		gate_nap();
	}
	gate_release(g);
	if (!atomic_load(&g->stop) &&
	    rte_eal_alarm_set(GATE_RELEASE_US, gate_cb, e) == 0)
		return;
	/* stopped (or the alarm could not be set: the ports go on
	 * ungated rather than unusable) */
	if (!atomic_load(&g->stop))
		ENG_LOG(ERR, "gate: cannot re-arm: ports no longer gated");
	atomic_store(&g->enabled, false);
	atomic_store(&g->armed, false);
}

/* Wait (bounded) until the interrupt thread is parked. */
static int
gate_wait_parked(struct eng_gate *g)
{
	uint64_t t0 = gate_now_ns();

	while (!atomic_load(&g->parked)) {
		if (!atomic_load(&g->armed) ||
		    gate_now_ns() - t0 > GATE_WAIT_NS)
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

	atomic_store(&g->hold, true);
	atomic_store(&g->stop, false);
	atomic_store(&g->parked, false);
	atomic_store(&g->active, 0);
	atomic_store(&g->armed, true);
	rc = rte_eal_alarm_set(1, gate_cb, e);
	if (rc < 0) {
		atomic_store(&g->armed, false);
		ENG_LOG(ERR, "gate: alarm: %s", rte_strerror(-rc));
		return rc;
	}
	rc = gate_wait_parked(g);
	if (rc < 0) {
		ENG_LOG(ERR, "gate: the EAL interrupt thread did not answer");
		eng_gate_close(e);
		return rc;
	}
	atomic_store(&g->enabled, true);
	return 0;
}

int
eng_gate_hold(struct uet_engine *e)
{
	struct eng_gate *g = &e->gate;

	if (!atomic_load(&g->enabled))
		return 0;
	atomic_store(&g->hold, true);
	return gate_wait_parked(g);
}

void
eng_gate_run(struct uet_engine *e)
{
	atomic_store(&e->gate.hold, false);
}

void
eng_gate_close(struct uet_engine *e)
{
	struct eng_gate *g = &e->gate;
	uint64_t t0 = gate_now_ns();

	atomic_store(&g->stop, true);
	/* a running callback returns at its next look at the flag without
	 * re-arming (rte_eal_alarm_cancel() waits for it); an alarm set but
	 * not fired yet is cancelled */
	while (atomic_load(&g->armed)) {
		if (rte_eal_alarm_cancel(gate_cb, e) > 0)
			break;
		if (gate_now_ns() - t0 > GATE_WAIT_NS) {
			ENG_LOG(ERR, "gate: callback did not return");
			break;
		}
		gate_nap();
	}
	atomic_store(&g->armed, false);
	atomic_store(&g->enabled, false);
}
