/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_ENGINE_H
#define UET_ENGINE_H

/**
 * @file
 * Poll-mode engine: EAL and ports from a struct uet_config, engine lcore
 * contexts that each own a set of (port, queue) pairs and run
 *
 *   RX burst -> fault injection (optional) -> outer/PDS decode
 *   (ARP/ND answered here; non-UET and malformed frames counted, dropped)
 *   -> hook rx_burst -> hook advance(now) -> hook tx_ready(now)
 *   -> fault injection (optional) -> neighbour resolution -> TX burst
 *   (a frame to one of the engine's own addresses skips the last three
 *   steps: local delivery puts it on the RX path of the context that
 *   receives it)
 *
 * with one coarse timestamp per iteration. The protocol work (PDS/SES) is
 * a hook: an ops table given at creation, with per-lcore private state.
 *
 * Progress: AUTO launches one pinned EAL lcore per context
 * (rte_eal_remote_launch), which sleeps when idle (woken by posts, timers
 * and RX interrupts) and meanwhile lets application threads progress the
 * context (uet_engine_progress()); INLINE runs nothing by itself and the
 * caller drives every context with uet_engine_poll().
 *
 * Threading: uet_engine_create/start/stop/free and uet_engine_attach
 * from one control thread. Hook callbacks and the uet_engine_lcore_*,
 * uet_engine_tx*, uet_engine_mbuf_alloc functions only from the thread
 * running that context: its AUTO lcore, or, while that lcore sleeps, the
 * application thread that holds the context's progress lock
 * (uet_engine_progress(), posts); a hook must not assume the EAL lcore
 * id. Stats functions, uet_engine_progress() and uet_engine_wake() from
 * any thread.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <uet/uet_config.h>
#include <uet/uet_wire.h>
#include <uet/uet_wire_outer.h>
#include <uet/uet_wire_packet.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rte_mbuf;
struct uet_engine;
struct uet_engine_lcore;

/** The engine's rte_log type ("uet.engine"), for the layers above the
 * core too. */
extern int uet_engine_logtype;

/** Largest burst of the engine loop (engine.burst is capped to it). */
#define UET_ENGINE_BURST_MAX 64
/**
 * Bytes of a chained received frame kept in its first segment (struct
 * uet_engine_rx): the largest outer, PDS and SES headers, so that they
 * decode in place.
 */
#define UET_ENGINE_RX_HDR_ROOM 256u
/** Largest number of engine lcore contexts. */
#define UET_ENGINE_LCORES_MAX 32
/** Largest number of work queues (channels, uet_chan.h) attached to one
 * context (uet_engine_attach()). */
#define UET_ENGINE_CHANS_MAX 64

/* ------------------------------------------------------------------ */
/* EAL                                                                 */
/* ------------------------------------------------------------------ */

/** Largest number of EAL arguments uet_engine_eal_init() accepts. */
#define UET_ENGINE_EAL_ARGS_MAX 64

/**
 * Split @p args on blanks (no quoting) into @p argv, copying into @p buf.
 * argv[0] is @p prog. When @p isolate is true: with neither
 * "--file-prefix", "--in-memory" nor "--no-shconf" in @p args,
 * "--in-memory" is appended ("--no-shconf" with "--no-huge", which DPDK
 * 22.11 refuses together with "--in-memory"; an explicit "--in-memory"
 * is rewritten to "--no-shconf" then); without "--file-prefix",
 * "--file-prefix=uet<pid>" is appended. So two processes never share
 * runtime files or the telemetry socket.
 * @return
 *   argc, or -E2BIG (too many arguments or @p buf too small).
 */
int uet_engine_eal_args_split(const char *prog, const char *args,
			      bool isolate, char *buf, size_t buflen,
			      char **argv, int max_argv);

/**
 * Initialise the EAL from @p args (see uet_engine_eal_args_split(), with
 * isolation), or reuse an EAL the process already initialised.
 * The EAL's runtime directory (/var/run/dpdk/<file-prefix> for root),
 * when this call made it, is removed with what it holds if
 * rte_eal_init() fails, and at exit; one that existed before only if
 * it is empty then. See uet_engine_eal_rundir_purge() for signals.
 * @param reused
 *   May be NULL; set to true when the EAL was already initialised.
 * @return
 *   0, -E2BIG (arguments), or the -rte_errno of rte_eal_init().
 */
int uet_engine_eal_init(const char *prog, const char *args, bool *reused);

/**
 * Remove the EAL runtime directory as at exit (see uet_engine_eal_init()),
 * from the handler of a signal that ends the process (SIGINT, SIGTERM,
 * ...), where exit handlers do not run: async-signal-safe. DPDK is not
 * usable afterwards. Nothing when uet_engine_eal_init() did not start the
 * EAL.
 */
void uet_engine_eal_rundir_purge(void);

/**
 * rte_eal_cleanup() with the EAL interrupt thread parked for the rest of
 * the process. DPDK 22.11 leaves that thread running through
 * rte_eal_cleanup(), which unmaps DPDK memory, while net_memif leaves its
 * listening socket registered with it after the port is closed, with the
 * handle in that memory: an event on it, or a rebuild of the thread's wait
 * list, then faults (uet-perf's memif server died so on a loaded machine).
 * Call it after every engine is freed, at exit: interrupt callbacks (link
 * events, alarms) no longer run afterwards.
 * @return
 *   0; -ETIMEDOUT when the thread did not answer within 2 s (the EAL is
 *   then left as it is); or the rte_eal_cleanup() result.
 */
int uet_engine_eal_cleanup(void);

/* ------------------------------------------------------------------ */
/* Hook: the per-lcore protocol work                                   */
/* ------------------------------------------------------------------ */

/** One received UET frame, decoded through the PDS header. */
struct uet_engine_rx {
	struct rte_mbuf *m; /**< the frame; owned by the hook from rx_burst */
	uint16_t port;      /**< engine port index (not the ethdev id) */
	uint16_t queue;     /**< RX queue */
	/**
	 * The frame parsed up to its PDS header (uet_wire_pkt_parse_pds()): outer
	 * and PDS fields are valid, `pkt.err_layer` is NONE; the bytes after
	 * the PDS header (SES header and payload) are `pkt.payload_off`,
	 * `pkt.payload_len`, undecoded (`pkt.req` / `pkt.resp` unset).
	 * `m` may be a chain of two segments (a frame sent by reference,
	 * [portN] tx_zero_copy, over a ring or local delivery): its first
	 * segment then holds at least the first UET_ENGINE_RX_HDR_ROOM
	 * bytes of the frame (every header), the second the rest; any
	 * other frame is one segment.
	 */
	struct uet_wire_pkt pkt;
	/** The secure domain the frame was authenticated and opened in
	 *  ([tss] domain index + 1, as uet_pds_rx_meta.sdom); 0: clear. */
	uint8_t sdom;
};

/**
 * Protocol hook, chosen at creation. Every callback runs on the thread of
 * the context it is given. `rx_burst`, `tx_ready` and `advance` are
 * mandatory; `lcore_init`/`lcore_fini` are optional.
 */
struct uet_engine_hook_ops {
	size_t size;      /**< sizeof(struct uet_engine_hook_ops) */
	const char *name; /**< for stats and logs */
	/** At creation, on the control thread: allocate private state. */
	int (*lcore_init)(struct uet_engine_lcore *lc, void *arg, void **priv);
	/** At free, on the control thread. */
	void (*lcore_fini)(struct uet_engine_lcore *lc, void *priv);
	/**
	 * Received UET frames. The hook owns every `rx[i].m` and must free,
	 * keep or transmit it; `rx` itself is valid during the call only.
	 */
	void (*rx_burst)(void *priv, struct uet_engine_lcore *lc,
			 struct uet_engine_rx *rx, uint16_t n, uint64_t now);
	/** Once per iteration: timers (RTO, ACK delay, ...). */
	void (*advance)(void *priv, struct uet_engine_lcore *lc, uint64_t now);
	/**
	 * Once per iteration, after advance: queue frames with
	 * uet_engine_tx() while uet_engine_tx_space() allows.
	 * @return frames queued (for idle detection).
	 */
	uint16_t (*tx_ready)(void *priv, struct uet_engine_lcore *lc,
			     uint64_t now);
	/**
	 * Optional: the earliest time (ns, the engine clock) at which
	 * advance() has something to do (a timer), UINT64_MAX when none.
	 * A virtual clock jumps there when every engine is idle;
	 * without it uet_engine_next_deadline() cannot see the hook's
	 * timers.
	 */
	uint64_t (*next_deadline)(void *priv, struct uet_engine_lcore *lc);
};

/**
 * The engine clock: nanoseconds, monotonic. NULL (the default) reads
 * the TSC; a driver may give its own, for example a virtual clock that
 * it advances itself (include/pmd-fabric/uet/uet_fabric_eth.h).
 */
typedef uint64_t (*uet_engine_clock_fn)(void *arg);

/** An injected clock: `now(arg)` is read once per loop iteration. */
struct uet_engine_clock {
	uet_engine_clock_fn now;
	void *arg;
};

/** Creation parameters. */
struct uet_engine_params {
	const struct uet_config *cfg;          /**< validated configuration */
	const struct uet_engine_hook_ops *hook; /**< protocol hook */
	void *hook_arg;                        /**< passed to lcore_init */
	const char *name;  /**< unique per process, <= 15 chars, names pools */
	/** NULL: real time (TSC). Copied at creation. */
	const struct uet_engine_clock *clock;
};

/**
 * Create an engine: probe and configure the ports of @p p->cfg, create
 * NUMA-local mbuf pools, build the lcore contexts and call the hook's
 * lcore_init. Needs an initialised EAL. Ports are started; lcores are
 * not launched (uet_engine_start()).
 *
 * A port's devargs are, in order: "rings:NAME", no ethdev but the two
 * rte_rings NAMErx (frames in) and NAMEtx (frames out) the application
 * made (one queue, the port's configured MAC; the emulated fabric's
 * hosts), the name of an existing ethdev (for example one made with
 * rte_eth_from_rings()), a PCI address, or a vdev string probed with
 * rte_dev_probe().
 * @return
 *   The engine, or NULL with rte_errno: EINVAL (configuration: queues
 *   fewer than contexts, lcore not enabled, bad hook), ENODEV (port
 *   probe), ENOMEM, EEXIST (name in use), or an ethdev error.
 */
struct uet_engine *uet_engine_create(const struct uet_engine_params *p);

/**
 * AUTO progress: launch every context on its lcore. INLINE: no-op.
 * @return 0, -EALREADY, -EBUSY (an lcore is not idle).
 */
int uet_engine_start(struct uet_engine *e);

/** Stop and join the lcores (AUTO); no-op when not running. @return 0. */
int uet_engine_stop(struct uet_engine *e);

/** Stop, call lcore_fini, close the ports it probed, free. NULL: no-op. */
void uet_engine_free(struct uet_engine *e);

/**
 * The engine is about to be freed: from now on a net_memif peer's
 * disconnect is not served (the EAL interrupt thread stays parked by the
 * engine's port gate) until the ports are closed, so the data path can
 * run on (lingering for the last ACKs) and the ports close without the
 * memif PMD unmapping the rings underneath. No-op without memif ports.
 * @return 0, or -ETIMEDOUT (the interrupt thread did not park in 2 s).
 */
int uet_engine_ports_hold(struct uet_engine *e);

/**
 * INLINE progress: run up to @p max_iterations loop iterations of every
 * context on the calling thread, returning early after an iteration in
 * which no context did any work.
 * @return
 *   Frames received plus transmitted, or -EBUSY (lcores are running).
 */
int uet_engine_poll(struct uet_engine *e, unsigned int max_iterations);

/**
 * INLINE progress after a post: uet_engine_poll(@p max_iterations), then,
 * while frames that were built wait only because the net_memif port gate
 * has the EAL interrupt thread out (docs/ENGINE.md "Port gate"), more
 * iterations, yielding the CPU between them, for at most @p max_ns of
 * wall-clock time. An application may not call the provider again before
 * its peer answered the message it just posted (fi_inject has no
 * completion to wait for): a frame left staged then is never sent. Frames
 * a TX queue refused (full, link down) are not waited for: that is
 * backpressure, retried by the next call.
 * @return
 *   0, -ETIMEDOUT (frames still wait for the gate), or -EBUSY (lcores
 *   are running).
 */
int uet_engine_flush(struct uet_engine *e, unsigned int max_iterations,
		     uint64_t max_ns);

/**
 * AUTO progress, from an application thread (fi_cq_read and the like):
 * run up to @p max_iterations loop iterations, on the calling thread, of
 * every context whose lcore sleeps and that no other thread is running;
 * contexts whose lcore is awake are left to it, which sleeps at its next
 * iteration without work since this thread polls. So an application that
 * polls needs no thread hand-off, and the lcore leaves the context to it,
 * timers included, while it keeps polling (up to engine.idle_sleep_max
 * after its last call). INLINE: uet_engine_poll().
 * Any thread, any time (a few atomic loads when nothing sleeps).
 * @return
 *   Frames received plus transmitted, or -EBUSY (INLINE only: running).
 */
int uet_engine_progress(struct uet_engine *e, unsigned int max_iterations);

/**
 * Work was queued for context @p lcore_idx other than through a channel
 * post (a control request): wake its lcore if it sleeps. No-op otherwise,
 * and for INLINE engines.
 */
void uet_engine_wake(struct uet_engine *e, unsigned int lcore_idx);

/**
 * Wake-up flag of an engine context, read by the threads that post work
 * to it (AUTO progress whose lcores sleep when idle, docs/ENGINE.md
 * "Progress modes").
 */
struct uet_engine_waker {
	/** non-zero while the context's lcore sleeps (or is about to): a
	 * post must then wake it, or run its iteration itself */
	uint32_t sleeping;
};

/**
 * Keep the wake-up flags (struct uet_engine_waker) of the contexts in
 * caller memory: context i's at @p base + i * @p stride. The uet-engine
 * service places them in a page its clients map read-only, so a client
 * reads whether a context sleeps without a syscall. Before uet_engine_
 * start() and before any work queue is attached; @p base must outlive
 * the engine, or until they are placed back with @p base NULL (the
 * engine's own memory again).
 * @return 0, -EINVAL, -EBUSY (running, or work queues attached).
 */
int uet_engine_wakers_place(struct uet_engine *e, void *base, size_t stride);

/**
 * The eventfd that wakes context @p lcore_idx when its lcore sleeps (a
 * write of a non-zero count; the lcore drains it). Owned by the engine.
 * @return The fd, -EINVAL, or -ENOENT (the context never sleeps: INLINE,
 *   or engine.idle_sleep 0).
 */
int uet_engine_wake_fd(const struct uet_engine *e, unsigned int lcore_idx);

/** The engine clock now (ns): the TSC, or the injected clock. */
uint64_t uet_engine_now(const struct uet_engine *e);

/**
 * Earliest time (engine clock, ns) at which some context has timer work:
 * the hook's next_deadline(), a neighbour probe, a held fault frame.
 * UINT64_MAX when nothing is armed. Only while no lcore runs (INLINE),
 * from the polling thread. With a hook that has no next_deadline the
 * hook's own timers are not included.
 */
uint64_t uet_engine_next_deadline(const struct uet_engine *e);

/** Number of lcore contexts. */
unsigned int uet_engine_nb_lcores(const struct uet_engine *e);

/** Number of ports. */
unsigned int uet_engine_nb_ports(const struct uet_engine *e);

/** The ethdev port id of engine port @p port, or UINT16_MAX (no such
 * port, or a "rings:" port). */
uint16_t uet_engine_port_id(const struct uet_engine *e, unsigned int port);

struct rte_mempool;
/**
 * An mbuf pool that only the CPU reads (ring-pair ports, the fabric
 * adapter): objects may cross page boundaries, so a 4.5 KB mbuf takes
 * 4.5 KB, not two 4 KiB pages. NULL with rte_errno set on failure.
 */
struct rte_mempool *uet_engine_mbuf_pool_cpu(const char *name, unsigned int n,
					     unsigned int cache, uint16_t room,
					     int socket);

/** Context @p idx, or NULL. For tests and setup code. */
struct uet_engine_lcore *uet_engine_lcore_get(struct uet_engine *e,
					      unsigned int idx);

/** True when AUTO lcores are running. */
bool uet_engine_running(const struct uet_engine *e);

/* ------------------------------------------------------------------ */
/* Work queues attached to a context                                   */
/* ------------------------------------------------------------------ */

/*
 * The core keeps, per context, the list of work queues that its hook
 * consumes (front-end channels, uet_chan.h, which wraps these calls);
 * it never looks inside one. Attaching one counts for the sleep (a
 * poster wakes the context) and for uet_engine_wakers_place().
 */

/**
 * Make @p q visible to context @p lcore_idx (uet_engine_lcore_attached()).
 * Allowed while running (published with release ordering).
 * @return 0, -EINVAL, -ENOSPC (UET_ENGINE_CHANS_MAX per context).
 */
int uet_engine_attach(struct uet_engine *e, unsigned int lcore_idx, void *q);

/**
 * Remove @p q from its context. Only while stopped (INLINE or after
 * uet_engine_stop()).
 * @return 0, -ENOENT, -EBUSY (running).
 */
int uet_engine_detach(struct uet_engine *e, const void *q);

/**
 * The flag a poster to context @p lc reads (uet_engine_wakers_place()),
 * or NULL when its lcore never sleeps (INLINE, busy-polling AUTO).
 */
struct uet_engine_waker *uet_engine_lcore_waker(struct uet_engine_lcore *lc);

/**
 * A poster found the context asleep: run a few of its iterations on the
 * calling thread (@p run, when the context's progress lock is free) or
 * kick its lcore awake. Any thread.
 */
void uet_engine_lcore_kick(struct uet_engine_lcore *lc, bool run);

/* ------------------------------------------------------------------ */
/* Services for hooks (owner thread of @p lc only)                     */
/* ------------------------------------------------------------------ */

/** Index of the context (0 .. nb_lcores - 1). */
unsigned int uet_engine_lcore_index(const struct uet_engine_lcore *lc);

/** Engine of the context. */
struct uet_engine *uet_engine_lcore_engine(struct uet_engine_lcore *lc);

/** Number of work queues attached to the context (acquire load). */
unsigned int uet_engine_lcore_nb_attached(const struct uet_engine_lcore *lc);

/** Work queue @p i of the context, or NULL. */
void *uet_engine_lcore_attached(struct uet_engine_lcore *lc, unsigned int i);

/**
 * When the previous engine of one of @p e's fabric addresses last ran
 * (the engine clock), when that engine went less than 4 s before this
 * one was created ([timers] alive_dir): this engine is its restart, and
 * its PDS says so in the refusals of its quiet time
 * (uet_pds_config.restarted, prev_alive_ns). 0 = none, not known, or
 * alive_dir off.
 */
uint64_t uet_engine_prev_alive_ns(const struct uet_engine *e);

/** The configuration the engine was created with. */
const struct uet_config *uet_engine_config(const struct uet_engine *e);

/**
 * The private state of @p ops on context @p idx (what its lcore_init
 * made), or NULL when @p e runs another hook (same rx_burst callback).
 */
void *uet_engine_hook_priv(struct uet_engine *e, unsigned int idx,
			   const struct uet_engine_hook_ops *ops);

/**
 * Bits at the top of a PDC id that name the context owning the PDC (the
 * PDS hook's uet_pds_config.owner_bits): enough for @p nb_contexts.
 * Local delivery steers frames by them.
 */
static inline uint32_t
uet_engine_owner_bits(uint32_t nb_contexts)
{
	uint32_t b = 0;

	while ((1u << b) < nb_contexts)
		b++;
	return b;
}

/** What a hook needs to know of an engine port to build its frames. */
struct uet_engine_port_info {
	bool has_ipv4;        /**< IPv4 FA (else IPv6 only) */
	bool native;          /**< native IP (UET over IP), else UDP */
	bool csum_v4;         /**< UDP checksum on IPv4 (IPv6: always) */
	bool csum_tx_offload; /**< computed by the port */
	/** large payloads may be attached to frames by reference
	 * (port.tx_zero_copy): the driver takes chained frames of external
	 * buffers and reads them by virtual address */
	bool tx_ref;
};

/** Fill @p info for engine port @p port; 0 or -EINVAL. */
int uet_engine_port_info_get(const struct uet_engine *e, unsigned int port,
			     struct uet_engine_port_info *info);

/** True when the context owns a TX queue on @p port. */
bool uet_engine_lcore_has_port(const struct uet_engine_lcore *lc,
			       unsigned int port);

/**
 * Fill @p o for a frame from engine port @p port to @p dst_fa (16 bytes,
 * IPv4 in the first 4): uet_wire_outer_init(), our MAC and FA, UDP port,
 * native mode, TTL. MACs are resolved later by uet_engine_tx_ip().
 * @return 0, -EINVAL (port), -EAFNOSUPPORT (no local FA of that family).
 */
int uet_engine_outer_prepare(const struct uet_engine_lcore *lc,
			     unsigned int port, unsigned int ip_version,
			     const uint8_t dst_fa[16], struct uet_wire_outer *o);

/**
 * Allocate @p n mbufs from the pool of @p port's socket, all or none
 * (counted in mbuf_alloc_fail).
 * @return 0 or -ENOMEM.
 */
int uet_engine_mbuf_alloc_bulk(struct uet_engine_lcore *lc, unsigned int port,
			       struct rte_mbuf **m, unsigned int n);

/** Allocate an mbuf from the pool of @p port's socket, or NULL. */
struct rte_mbuf *uet_engine_mbuf_alloc(struct uet_engine_lcore *lc,
				       unsigned int port);

/** Frames that can still be queued on @p port this iteration (room in
 * the TX staging array and in the context's local queue of the port). */
uint16_t uet_engine_tx_space(const struct uet_engine_lcore *lc,
			     unsigned int port);

/**
 * Queue a complete Ethernet frame on @p port (sent as is).
 * On success the engine owns @p m.
 * @return 0, -EAGAIN (TX staging full this iteration), -ENODEV (no queue
 *   of this context on @p port).
 */
int uet_engine_tx(struct uet_engine_lcore *lc, unsigned int port,
		  struct rte_mbuf *m);

/**
 * Queue an Ethernet frame whose destination MAC the engine fills from the
 * neighbour cache (key: the IP destination of the frame). An unresolved
 * destination sends an ARP request / ND solicitation and holds the frame
 * (at most UET_ENGINE_NEIGH_HOLD per neighbour; the oldest is dropped and
 * counted when more arrive). A destination that is the address of one of
 * the engine's ports is not sent: the frame goes to that port's RX path
 * on this context, as if received (local delivery, counters local_delivery_*;
 * a full local queue drops it). On every return but -EAGAIN/-ENODEV the
 * engine owns @p m.
 * @return 0 (queued or held), -EAGAIN, -ENODEV, -EINVAL (not IP: freed).
 */
int uet_engine_tx_ip(struct uet_engine_lcore *lc, unsigned int port,
		     struct rte_mbuf *m);

/**
 * Local delivery with several contexts: context @p ctx_idx serves process
 * @p pid (PIDonFEP, 12 bits) of this engine, so a frame to the engine's
 * own address that opens a PDC or carries a datagram to @p pid goes to
 * that context (docs/ENGINE.md "Frames to the engine's own addresses").
 * @p ctx_idx UINT32_MAX: no context any more. The SES ULP keeps it for
 * its processes; any thread.
 * @return 0, -EINVAL.
 */
int uet_engine_pid_context_set(struct uet_engine *e, uint16_t pid,
			       unsigned int ctx_idx);

/** Frames held per unresolved neighbour. */
#define UET_ENGINE_NEIGH_HOLD 4
/** Neighbour cache entries per context (power of two). */
#define UET_ENGINE_NEIGH_SIZE 256

/* ------------------------------------------------------------------ */
/* Neighbours (control thread; applies to every context)               */
/* ------------------------------------------------------------------ */

/**
 * Add a static neighbour on every port (also done for cfg [neighbor]).
 * Takes effect on the next iteration of every context.
 * @return 0, -EINVAL, -ENOSPC (update ring full: retry).
 */
int uet_engine_neigh_add(struct uet_engine *e, unsigned int ip_version,
			 const uint8_t addr[16], const uint8_t mac[6]);

/**
 * Look up @p addr in context @p lcore_idx's cache (tests, tools; racy
 * read while running).
 * @return 0 and @p mac, -ENOENT, -EAGAIN (resolution pending).
 */
int uet_engine_neigh_lookup(struct uet_engine *e, unsigned int lcore_idx,
			    unsigned int ip_version, const uint8_t addr[16],
			    uint8_t mac[6]);

/* ------------------------------------------------------------------ */
/* Statistics                                                          */
/* ------------------------------------------------------------------ */

/** Packet classes of fault injection and of counters. */
enum uet_engine_pkt_class {
	UET_ENGINE_CLASS_REQ = 0,  /**< PDS requests (RUD/ROD/RUDI/UUD) */
	UET_ENGINE_CLASS_ACK = 1,  /**< ACK, ACK_CC, ACK_CCX, RUDI_RESP */
	UET_ENGINE_CLASS_NACK = 2, /**< NACK, NACK_CCX */
	UET_ENGINE_CLASS_CP = 3,   /**< control packets */
	UET_ENGINE_CLASSES = 4,
};

/**
 * Why the transport security sublayer dropped a received frame
 * (docs/TSS.md): index of uet_engine_tss_stats.rx_drop. Every such frame
 * is dropped before the PDS sees it.
 */
enum uet_engine_tss_drop {
	UET_ENGINE_TSS_DROP_HEADER = 0, /**< TSS header malformed, too short */
	UET_ENGINE_TSS_DROP_SDI,        /**< SDI of no configured domain */
	UET_ENGINE_TSS_DROP_EPOCH,      /**< AN or epoch not in use */
	UET_ENGINE_TSS_DROP_REPLAY,     /**< TSC already accepted */
	UET_ENGINE_TSS_DROP_OLD,        /**< TSC below the replay window */
	UET_ENGINE_TSS_DROP_AUTH,       /**< ICV does not verify */
	UET_ENGINE_TSS_DROP_INNER,      /**< decrypted PDS header malformed */
	UET_ENGINE_TSS_DROP_JOB,        /**< JobID unreadable, or JobID or PDC
					     of another domain */
	UET_ENGINE_TSS_DROP_CLEAR,      /**< clear frame of a secure job or
					     PDC, or whose JobID is unreadable */
	UET_ENGINE_TSS_DROP_TRIMMED,    /**< trimmed: cannot be authenticated */
	UET_ENGINE_TSS_DROP_UNSUPPORTED, /**< IPv6, or an SSI outside
					      client/server mode */
	UET_ENGINE_TSS_DROP_SOURCES,    /**< replay-window table full */
	UET_ENGINE_TSS_DROP_CRYPTO,     /**< crypto device error */
	UET_ENGINE_TSS_DROP_SSI,        /**< client/server: no SSI, not this
					     client's, or another than the
					     one its address speaks for */
	UET_ENGINE_TSS_DROPS,
};

/**
 * Bytes the TSS adds to a frame of a secure job (header and ICV) when
 * @p cfg enables it, else 0: what a builder keeps free below the MTU.
 */
uint16_t uet_engine_tss_overhead(const struct uet_config *cfg);

/**
 * Tell the TSS sealer where the headers of UET frame @p m are, so that it
 * need not parse the frame it seals: the outer header template @p t it
 * was built from and the PDS header @p h encoded right after them. Kept
 * in the mbuf (a dynamic field) until the frame is sealed or sent clear;
 * a frame without it is parsed. Nothing without [tss], nor over IPv6
 * (not sealed).
 */
void uet_engine_tx_meta_set(struct uet_engine_lcore *lc, struct rte_mbuf *m,
			    const struct uet_wire_outer_tpl *t,
			    const struct uet_wire_pds_hdr *h);

/** Name of a TSS drop reason ("auth", "replay", ...). */
const char *uet_engine_tss_drop_name(unsigned int reason);

/**
 * Read the key files of the [tss] domains again and rotate each domain
 * whose key changed to the new key, a new epoch (docs/TSS.md, "Rotating a
 * domain key"): accepted at once, sealed with [tss] epoch_switch later,
 * the old key refused twice that later. All or nothing: on an error no
 * domain changes. Safe from any thread, also while the engine runs.
 * @param why  Out on error (may be NULL): the reason, without key bytes.
 * @return
 *   The number of domains rotated (0: no key changed), -ENOTSUP ([tss]
 *   off), -EBUSY (a domain's previous rotation has not retired its old
 *   key yet), -EEXIST (a new key whose epoch number equals the current
 *   key's: generate another), a key file's error (-ENOENT, -EPERM,
 *   -EINVAL, ...), -EIO.
 */
int uet_engine_tss_reload(struct uet_engine *e, char *why, size_t why_len);

/** Transport security counters of a context. */
struct uet_engine_tss_stats {
	uint64_t tx_sealed;   /**< frames protected and sent */
	uint64_t tx_clear;    /**< UET frames sent in clear (no secure job) */
	uint64_t tx_fail;     /**< frames of a secure job not sent: no room,
				   crypto error, IPv6, no TSC (below) */
	uint64_t tx_key_exhausted; /**< of tx_fail: the key of the frame's
				   domain used its last TSC (2^48 - 1):
				   rotate it (docs/TSS.md) */
	uint64_t rx_opened;   /**< protected frames authenticated, decrypted
				   and given to the PDS */
	uint64_t rx_drop[UET_ENGINE_TSS_DROPS]; /**< by reason */
	uint64_t tx_keys;     /**< cluster mode: keys derived to seal with
				   (one per source and rotation) */
	uint64_t rx_keys;     /**< cluster mode: keys derived to open with
				   and kept (their first frame verified) */
	uint64_t epochs;      /**< domain key changes this context took up
				   (uet_engine_tss_reload()) */
};

/** Per-direction fault counters (index: enum uet_config_fault_kind). */
struct uet_engine_fault_stats {
	uint64_t applied[UET_CONFIG_FAULT_KINDS]; /**< actions taken */
	uint64_t skipped[UET_CONFIG_FAULT_KINDS]; /**< chosen, not applicable
						     (hold queue full, no
						     mbuf, not ECN capable) */
	uint64_t released;  /**< held frames released (reorder, delay) */
	uint64_t flushed;   /**< held frames freed at stop */
};

/** Counters of one context (or their sum). */
struct uet_engine_lcore_stats {
	uint64_t iterations;      /**< loop iterations */
	uint64_t busy_iterations; /**< iterations that did work */
	uint64_t idle_sleeps;     /**< AUTO: times the lcore went to sleep */
	uint64_t wake_post;       /**< ... woken by a post, a control request
				       or uet_engine_wake() (eventfd) */
	uint64_t wake_rx;         /**< ... woken by an RX queue interrupt */
	uint64_t wake_timer;      /**< ... woken at a timer deadline */
	uint64_t wake_poll;       /**< ... at the end of a timed sleep:
				       back-off (ports without RX
				       interrupts), or the grace of a polling
				       application thread. While blocked,
				       idle_sleeps exceeds the sum of the
				       wake_* counters by one */
	uint64_t app_iterations;  /**< loop iterations an application thread
				       ran while the lcore slept */
	uint64_t rx_pkts;         /**< frames from rte_eth_rx_burst */
	uint64_t rx_bytes;
	uint64_t rx_uet;          /**< UET frames given to the hook */
	uint64_t rx_class[UET_ENGINE_CLASSES]; /**< UET frames per class */
	uint64_t rx_arp;          /**< ARP frames */
	uint64_t rx_nd;           /**< ICMPv6 NS/NA frames */
	uint64_t rx_non_uet;      /**< other frames, dropped */
	uint64_t rx_malformed;    /**< outer/PDS decode failed, dropped */
	uint64_t rx_err_layer[8]; /**< ... by enum uet_wire_pkt_layer */
	uint64_t rx_err_code[UET_WIRE_E__COUNT]; /**< ... by UET_WIRE_E_* */
	uint64_t rx_trimmed;      /**< trimmed by a switch (trim DSCP, shorter
				       than its UDP/IP length): to the hook,
				       checksum not verifiable */
	uint64_t rx_csum_bad;     /**< UDP checksum wrong: dropped */
	uint64_t rx_csum_none;    /**< UDP checksum 0 where one is required
				       (IPv6, IPv4 with port.udp_checksum):
				       dropped */
	uint64_t rx_mtu_exceeded; /**< frames longer than the port's mtu + 18
				       (Ethernet header, one VLAN tag): a peer
				       with a larger [portN] mtu; dropped, the
				       first per port logged */
	uint64_t rx_chained;      /**< frames of two segments given to the
				       hook as they are (struct
				       uet_engine_rx) */
	uint64_t rx_linearized;   /**< chained frames copied into their
				       first segment (more segments, [tss],
				       a software checksum to verify) */
	uint64_t tx_pkts;         /**< frames accepted by rte_eth_tx_burst */
	uint64_t tx_bytes;
	uint64_t tx_full;         /**< frames freed: TX queue full and no
				       room left to hold them */
	uint64_t capture_pkts;    /**< frames written to engine.capture */
	uint64_t capture_fail;    /**< frames not captured (copy pool empty,
				       write error) */
	uint64_t tx_held;         /**< frames the TX queue refused, kept for
				       the next iteration (full queue, link
				       not up yet) */
	uint64_t tx_gate_waits;   /**< uet_engine_flush() calls that polled
				       on for frames the port gate held */
	uint64_t tx_staging_full; /**< uet_engine_tx() -EAGAIN */
	uint64_t tx_no_queue;     /**< uet_engine_tx() -ENODEV */
	uint64_t arp_req_rx;      /**< ARP requests for our FA answered */
	uint64_t arp_reply_rx;    /**< ARP replies learnt */
	uint64_t arp_req_tx;      /**< ARP requests sent */
	uint64_t nd_ns_rx;        /**< neighbour solicitations answered */
	uint64_t nd_na_rx;        /**< neighbour advertisements learnt */
	uint64_t nd_ns_tx;        /**< neighbour solicitations sent */
	uint64_t nd_bad;          /**< bad ARP/ND (checksum, length, ...) */
	uint64_t neigh_hit;       /**< uet_engine_tx_ip() resolved at once */
	uint64_t neigh_miss;      /**< ... held for resolution */
	uint64_t neigh_hold_drop; /**< held frames dropped (overflow/timeout) */
	uint64_t neigh_full;      /**< no cache entry available: dropped */
	uint64_t neigh_updates;   /**< entries learnt from other contexts */
	uint64_t mbuf_alloc_fail; /**< allocations that failed */
	/** Local delivery, per engine port (the receiving one): frames
	 * uet_engine_tx_ip() addressed to an address of the engine's own
	 * ports and queued for that port's RX path instead of a TX queue
	 * (not in tx_pkts) */
	uint64_t local_delivery_tx[UET_CONFIG_MAX_PORTS];
	/** ... taken into the RX path (not in rx_pkts; decoded and counted
	 * as received frames from there: rx_uet, rx_class, ...) */
	uint64_t local_delivery_rx[UET_CONFIG_MAX_PORTS];
	/** ... dropped, the context's local queue full (a loss for the
	 * PDS, which retransmits) */
	uint64_t local_delivery_drop[UET_CONFIG_MAX_PORTS];
	/** ... queued for another context whose lcore slept: woken (its
	 * eventfd written, or found written this sleep) */
	uint64_t local_delivery_wake;
	struct uet_engine_fault_stats fault[UET_CONFIG_FAULT_DIRS];
	struct uet_engine_tss_stats tss; /**< [tss] enabled */
};

/** Engine-wide snapshot. */
struct uet_engine_stats {
	unsigned int nb_lcores;
	unsigned int nb_ports;
	bool running;        /**< AUTO: the engine lcores are running */
	bool inline_progress; /**< INLINE: the application polls */
	struct uet_engine_lcore_stats total; /**< sum over contexts */
	struct uet_engine_lcore_stats lcore[UET_ENGINE_LCORES_MAX];
};

/**
 * Take a snapshot (relaxed atomic loads of every counter).
 * @return 0, -EINVAL.
 */
int uet_engine_stats_get(const struct uet_engine *e,
			 struct uet_engine_stats *s);

/** Print a snapshot (non-zero counters) to @p f, e.g. for uet-perf. */
void uet_engine_stats_print(const struct uet_engine_stats *s, FILE *f);

/** Name of a fault kind ("drop", "dup", ...). */
const char *uet_engine_fault_name(unsigned int kind);

/* ------------------------------------------------------------------ */
/* Telemetry                                                           */
/* ------------------------------------------------------------------ */

/**
 * Engines register with the /uet/ telemetry commands (/uet/stats,
 * /uet/ports, /uet/lcores, /uet/fault, /uet/neigh) at creation; the
 * commands take an optional engine index parameter.
 */
struct rte_tel_data;

/**
 * A command of a layer above the core (/uet/pds, /uet/ses ...): fill
 * @p d (a dict, started) for engine @p e, which stays alive meanwhile.
 * @return 0 or -errno (-ENOENT: not provided by this engine's hook).
 */
typedef int (*uet_engine_tel_fn)(struct uet_engine *e,
				 struct rte_tel_data *d);

/**
 * Add telemetry command @p cmd (a string literal: kept) answered by
 * @p fn for the engine index given as parameter. Idempotent; any thread.
 * @return 0, -EINVAL, -ENOSPC (the table of added commands is full).
 */
int uet_engine_telemetry_add(const char *cmd, uet_engine_tel_fn fn,
			     const char *help);

/** Add "ctx<ctx>_<name>": @p v to the dict @p d (per-context counters). */
void uet_engine_telemetry_ctx_u64(struct rte_tel_data *d, unsigned int ctx,
				  const char *name, uint64_t v);

/**
 * Run a /uet/ telemetry command in-process (what the telemetry socket
 * does), for tests and tools.
 * @return 0 or the callback's -errno (@p d then holds the object the
 *   socket answers: {"error": reason, "errno": N}); -ENOENT for an
 *   unknown command.
 */
int uet_engine_telemetry_call(const char *cmd, const char *params,
			      struct rte_tel_data *d);

#ifdef __cplusplus
}
#endif

#endif /* UET_ENGINE_H */
