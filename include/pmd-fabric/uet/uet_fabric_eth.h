/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_FABRIC_ETH_H
#define UET_FABRIC_ETH_H

/**
 * @file
 * Engines on the fabric model: N emulated hosts, each a pair of
 * rte_rings (one RX, one TX) that an engine opens as a "rings:" port
 * (uet_fabric_eth_port_config(); no ethdev, so the number of hosts is
 * not bounded by RTE_MAX_ETHPORTS), so the engine, the PDS and the SES
 * run unchanged above it. The adapter services the rings:
 *
 *   host TX ring -> copy -> uet_fabric_inject()    (ARP answered here)
 *   fabric delivery -> mbuf copy -> host RX ring
 *
 * and owns a virtual clock that engines can be given at creation
 * (uet_fabric_eth_clock()). uet_fabric_eth_run() is the driver of one
 * process hosting every engine on one thread (INLINE progress): it runs an
 * iteration of every engine and services the fabric; when nothing moved,
 * the virtual clock jumps to the earliest of the fabric's next event and
 * the engines' next timer (uet_engine_next_deadline()). With the real
 * clock instead the same loop runs on the TSC and never jumps.
 *
 * @code
 *   fe = uet_fabric_eth_create(&params, &err);        // after the EAL
 *   for (h = 0; h < hosts; h++) {
 *       uet_fabric_eth_port_config(fe, h, &cfg[h], 0); // devargs, IP, MAC
 *       ep.clock = uet_fabric_eth_clock(fe);            // virtual time
 *       eng[h] = uet_engine_create(&ep);
 *   }
 *   uet_fabric_eth_run(fe, &run, &stats);
 * @endcode
 *
 * Addresses: host h has the fabric's IPv4 address (10.0.x.y, x.y = h + 1
 * unless changed with uet_fabric_host_addr_set() before the engines are
 * configured) and MAC 02:fa:00:00:x:y. The adapter answers ARP requests
 * for any host's IPv4 address itself, so engines resolve neighbours as
 * on a real network and need no static entries; IPv6 neighbour
 * discovery is not answered (give IPv6 engines static neighbours).
 * Ethernet headers pass the fabric unchanged.
 *
 * One thread owns an adapter and its fabric; the engines' lcores may run
 * elsewhere only with the real clock (the rings are single-producer,
 * single-consumer per direction).
 */

#include <stdbool.h>
#include <stdint.h>

#include <uet/uet_config.h>
#include <uet/uet_engine.h>
#include <uet/uet_fabric.h>

#ifdef __cplusplus
extern "C" {
#endif

struct uet_fabric_eth;

/** Creation parameters. */
struct uet_fabric_eth_params {
	/**
	 * The fabric; its deliver callback and argument are the adapter's
	 * (whatever is set there is ignored). mtu bounds the frames hosts
	 * can send.
	 */
	const struct uet_fabric_config *fabric;
	/** Prefix of ring, ethdev and pool names: 1..8 characters of
	 * [A-Za-z0-9], unique per process. */
	const char *name;
	/** Slots of each host ring, a power of two, 64..16384 (0: 1024). */
	uint32_t ring_size;
	/** Adapter mbufs for deliveries (0: the fabric's frame_pool + 64
	 * per host, at most hosts x (ring_size + 64)). */
	uint32_t mbufs;
	/** Virtual clock start, ns. */
	uint64_t start_ns;
};

/**
 * Create the fabric, its host rings ("<name>h<N>rx" into host N's engine,
 * "<name>h<N>tx" out of it) and the delivery pool. Needs an initialised
 * EAL.
 * @return
 *   The adapter, or NULL with *err: -EINVAL (parameters, fabric
 *   configuration), -EEXIST (name in use), -ENOMEM.
 */
struct uet_fabric_eth *
uet_fabric_eth_create(const struct uet_fabric_eth_params *p, int *err);

/**
 * Free every frame waiting in the host rings (the engines' mbufs on the
 * way out, the adapter's on the way in). Call it before freeing the
 * engines: an engine frees its mbuf pool. NULL: no-op.
 */
void uet_fabric_eth_drain(struct uet_fabric_eth *fe);

/**
 * Drain, then free the rings, pool and fabric. Order of a
 * teardown: uet_fabric_eth_drain(), uet_engine_free() of every engine on
 * the adapter, uet_fabric_eth_free(). NULL: no-op.
 */
void uet_fabric_eth_free(struct uet_fabric_eth *fe);

/**
 * Fill @p out from the [fabric] section @p in (docs/CONFIG.md): shape,
 * links, thresholds (BDP multiples to thousandths), loss, seed; frames of
 * up to in->mtu + UET_FABRIC_L2_BYTES (uet_fabric_defaults.h) bytes. What the section does not
 * set keeps uet_fabric_config_default(); deliver and sample stay unset.
 * The schedule lines are applied by uet_fabric_eth_schedule().
 */
void uet_fabric_eth_config_from(const struct uet_config_fabric *in,
				struct uet_fabric_config *out);

/**
 * Schedule the fail / restore / rate lines of @p in on the adapter's
 * fabric, each at @p t0 + its time (t0: the start of the run on the
 * fabric's clock).
 * @return
 *   0, or -ENOENT (a line names a link the fabric does not have),
 *   -EINVAL or -ENOSPC from uet_fabric_link_schedule(); @p line (may be
 *   NULL) is then the index of the line.
 */
int uet_fabric_eth_schedule(struct uet_fabric_eth *fe,
			    const struct uet_config_fabric *in, uint64_t t0,
			    unsigned int *line);

/** The fabric model (topology, schedules, counters). */
struct uet_fabric *uet_fabric_eth_fabric(struct uet_fabric_eth *fe);

/** Number of hosts. */
uint32_t uet_fabric_eth_hosts(const struct uet_fabric_eth *fe);

/** Host @p host's MAC address. @return 0 or -EINVAL. */
int uet_fabric_eth_host_mac(const struct uet_fabric_eth *fe, uint32_t host,
			    uint8_t mac[6]);

/**
 * Make engine port @p port of @p cfg host @p host's ring pair: defined,
 * devargs "rings:<name>h<N>", IPv4 address and MAC (IPv6 off). The
 * port's IP MTU must fit the fabric's frame size and it has one queue.
 * @return 0, -EINVAL (host, port, or an MTU above the fabric's).
 */
int uet_fabric_eth_port_config(const struct uet_fabric_eth *fe,
			       uint32_t host, struct uet_config *cfg,
			       unsigned int port);

/**
 * The virtual clock, for uet_engine_params.clock: it reads the adapter's
 * time, which only uet_fabric_eth_run() (or uet_fabric_eth_set_now())
 * moves.
 */
const struct uet_engine_clock *
uet_fabric_eth_clock(const struct uet_fabric_eth *fe);

/** Virtual time now, ns. */
uint64_t uet_fabric_eth_now(const struct uet_fabric_eth *fe);

/** Move the virtual clock forward to @p now (never back). */
void uet_fabric_eth_set_now(struct uet_fabric_eth *fe, uint64_t now);

/**
 * Move every frame the hosts transmitted into the fabric (or answer it,
 * ARP), advance the fabric to @p now, and put what it delivers into the
 * hosts' RX rings.
 * @return
 *   Frames taken from TX rings plus frames put into RX rings (ARP
 *   answers included); 0: nothing happened.
 */
unsigned int uet_fabric_eth_service(struct uet_fabric_eth *fe, uint64_t now);

/**
 * Earliest time the adapter has work without a host transmitting: the
 * fabric's next event, UINT64_MAX when it is idle.
 */
uint64_t uet_fabric_eth_next_event(const struct uet_fabric_eth *fe);

/** Adapter counters. */
struct uet_fabric_eth_stats {
	uint64_t tx_frames;    /**< frames taken from host TX rings */
	uint64_t injected;     /**< ... given to the fabric */
	uint64_t inject_held;  /**< fabric refused (host queue, pool): the
				    frame waits for the next service */
	uint64_t tx_bad;       /**< too long or refused: freed, counted */
	uint64_t arp_answered; /**< ARP requests answered for a host */
	uint64_t arp_ignored;  /**< other ARP frames (replies, unknown IP) */
	uint64_t rx_frames;    /**< deliveries put into host RX rings */
	uint64_t rx_full;      /**< deliveries lost: RX ring full */
	uint64_t rx_nombuf;    /**< deliveries lost: no mbuf */
	uint64_t rx_ring_peak; /**< most frames seen waiting in one host's
				    RX ring (sizes ring_size and mbufs) */
};

/** Adapter counters. */
void uet_fabric_eth_stats_get(const struct uet_fabric_eth *fe,
			      struct uet_fabric_eth_stats *s);

/** What uet_fabric_eth_run() drives and until when. */
struct uet_fabric_eth_run {
	struct uet_engine *const *eng; /**< INLINE engines on the fabric */
	unsigned int nb_eng;
	/** true: the adapter's virtual clock (engines created with
	 * uet_fabric_eth_clock()); false: the engines' real clock. */
	bool virtual_time;
	/** Checked every iteration: true ends the run (required). */
	bool (*done)(void *arg);
	void *arg;
	/**
	 * Optional: the application's share of a round (polling completion
	 * queues, posting to channels), after the engines. The work it
	 * returns counts like theirs, so the virtual clock does not jump
	 * over what it set in motion.
	 */
	unsigned int (*poll)(void *arg);
	/**
	 * Optional, virtual time: the application's next deadline (ns,
	 * UINT64_MAX: none), e.g. a flow that starts later; the clock does
	 * not jump past it, as for an engine timer.
	 */
	uint64_t (*next)(void *arg);
	/** Stop at this engine time, ns (0: no limit). */
	uint64_t until_ns;
	/** Stop after this many iterations (0: no limit). */
	uint64_t max_iterations;
};

/** What a run did. */
struct uet_fabric_eth_run_stats {
	uint64_t iterations; /**< rounds of every engine + the fabric */
	uint64_t jumps;      /**< virtual clock jumps */
	uint64_t end_ns;     /**< clock at the end */
};

/**
 * Drive the engines and the fabric until done().
 * @return
 *   0 (done), -ETIMEDOUT (until_ns or max_iterations reached first),
 *   -EDEADLK (virtual time: every engine and the fabric idle with no
 *   timer armed, and not done), -EINVAL, or an engine poll error.
 */
int uet_fabric_eth_run(struct uet_fabric_eth *fe,
		       const struct uet_fabric_eth_run *r,
		       struct uet_fabric_eth_run_stats *st);

#ifdef __cplusplus
}
#endif

#endif /* UET_FABRIC_ETH_H */
