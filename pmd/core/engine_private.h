/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_ENGINE_PRIVATE_H
#define UET_ENGINE_PRIVATE_H

/*
 * Private state of the poll-mode engine. Everything a context touches on
 * the data path lives in its own struct uet_engine_lcore (cache aligned);
 * the engine struct is read-only while lcores run, except `running`.
 */

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_epoll.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <rte_spinlock.h>

#include <uet/uet_config.h>
#include <uet/uet_engine.h>
#include <uet/uet_rand.h>

#define ENG_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, uet_engine_logtype, "uet.engine: " fmt "\n", \
		##__VA_ARGS__)

/* Single-writer counter update; readers use relaxed atomic loads. */
#define ENG_ADD(ctr, n) \
	__atomic_store_n(&(ctr), (ctr) + (uint64_t)(n), __ATOMIC_RELAXED)
#define ENG_INC(ctr) ENG_ADD(ctr, 1)

/* Staged TX frames per (context, port); flushed once per iteration. */
#define ENG_TX_STAGE (2 * UET_ENGINE_BURST_MAX)
/* the longest frame an IP MTU allows: Ethernet header and one VLAN tag */
#define ENG_FRAME_OVERHEAD (RTE_ETHER_HDR_LEN + RTE_VLAN_HLEN)
/* Frames a fault hold queue (reorder or delay, per direction) keeps. */
#define ENG_FAULT_HOLD 64
/* Neighbour resolution: probe interval, probes before giving up. */
#define ENG_NEIGH_PROBE_NS (100ull * 1000 * 1000)
#define ENG_NEIGH_MAX_PROBES 10
/* Entries examined per iteration by the incremental neighbour sweep. */
#define ENG_NEIGH_SWEEP 8
/* Neighbour updates queued to one context. */
#define ENG_NEIGH_UPD_RING 256
/* Frames a context's local queue on one port holds (local_delivery.c). */
#define ENG_HAIRPIN_RING 1024

struct engine_port {
	uint16_t port_id;      /* ethdev id; UINT16_MAX for a ring pair */
	bool probed;           /* we probed it: remove at free */
	int memif_lock;        /* memif server: its socket's lock, held while
				* the port lives (engine_memif_stale_socket);
				* -1: none */
	bool started;
	int socket;
	struct rte_mempool *pool;
	bool own_pool;         /* pool of this port alone (net_af_xdp) */
	uint16_t nb_rxq;
	uint16_t nb_txq;
	uint16_t mtu;
	struct rte_ether_addr mac;
	bool has_ipv4;
	bool has_ipv6;
	uint8_t ipv4[4];
	uint8_t ipv6[16];
	uint16_t udp_port;
	bool native;
	uint8_t ip_proto;
	struct uet_wire_outer_opts opts;
	/* UDP checksum: computed and required on IPv4 (port.udp_checksum;
	 * IPv6 always); through the port's offload where it has one */
	bool csum_v4;
	bool csum_tx_offload;
	bool csum_rx_offload;
	/* port.tx_zero_copy resolved: large payloads attached by reference
	 * (pmd/proto/proto_tx.c), the driver takes chained frames */
	bool tx_ref;
	/* no ethdev, a pair of rte_rings (devargs "rings:NAME": NAMErx
	 * into the engine, NAMEtx out of it; port.c) */
	struct rte_ring *ring_rx;
	struct rte_ring *ring_tx;
	char name[64];
};

/* A port's RX / TX burst: its ethdev queue, or its ring pair (one queue;
 * the ring's own SP/SC flags, as the net_ring PMD uses them). */
static inline uint16_t
engine_port_rx_burst(const struct engine_port *p, uint16_t queue,
		  struct rte_mbuf **m, uint16_t n)
{
	if (p->ring_rx != NULL)
		return (uint16_t)rte_ring_dequeue_burst(p->ring_rx, (void **)m,
							n, NULL);
	return rte_eth_rx_burst(p->port_id, queue, m, n);
}

static inline uint16_t
engine_port_tx_burst(const struct engine_port *p, uint16_t queue,
		  struct rte_mbuf **m, uint16_t n)
{
	if (p->ring_tx != NULL)
		return (uint16_t)rte_ring_enqueue_burst(p->ring_tx, (void **)m,
							n, NULL);
	return rte_eth_tx_burst(p->port_id, queue, m, n);
}

struct engine_rxq {
	uint16_t port;  /* engine port index */
	uint16_t queue;
	bool intr;      /* its RX interrupt fd is in the context's epoll set */
	bool intr_ctl;  /* the driver arms it (rx_intr_enable/disable) */
};

/*
 * Sleep and wake-up of an AUTO context (sleep.c). The progress lock is
 * held by the lcore while it is awake and by an application thread while
 * it runs the context's loop (only while the lcore sleeps). Posters read
 * `w.sleeping`; the lcore sets it before its last look at the rings.
 */
struct engine_wake {
	struct uet_engine_waker w; /* sleeping flag, unless placed elsewhere */
	/* the flag posters read: &w, or caller memory
	 * (uet_engine_wakers_place(): the uet-engine service page) */
	struct uet_engine_waker *wp;
	uint32_t kicked;          /* the eventfd was written this sleep */
	uint32_t pending;         /* a thread found the lock held: its holder
				   * runs one more pass after it lets go */
	rte_spinlock_t lock;      /* progress lock */
	bool enabled;             /* AUTO with idle_sleep: the lcore sleeps */
	/* the eventfd was handed out (uet_engine_wake_fd): a kick can be
	 * read by another process first, so a sleep ends by its back-off
	 * (idle_sleep_max at most) even with every RX queue's interrupt */
	bool shared;
	uint16_t nb_intr;         /* RX queues with an interrupt fd */
	uint64_t until_ns;        /* engine clock at which the sleep ends */
	uint64_t app_ns;          /* last loop run by an application thread */
	int efd;                  /* eventfd: posts, control, stop */
	int tfd;                  /* timerfd: timer deadline, back-off */
	int ep_all;               /* epoll: efd, tfd, RX interrupts */
	int ep_nap;               /* epoll: efd, tfd */
	struct rte_epoll_event ev[4]; /* efd, tfd in ep_all; efd, tfd in ep_nap */
} __rte_cache_aligned;

struct engine_txbuf {
	uint16_t n;
	uint16_t sealed; /* [tss]: the first frames, sealed (tss_tx.c) */
	uint16_t queue; /* TX queue of this context on the port */
	bool has_queue;
	struct rte_mbuf *m[ENG_TX_STAGE];
};

enum engine_neigh_state {
	ENG_NEIGH_FREE = 0,
	ENG_NEIGH_PENDING,
	ENG_NEIGH_VALID,
	ENG_NEIGH_STATIC,
};

struct engine_neigh {
	uint8_t state;     /* enum engine_neigh_state */
	uint8_t ipver;     /* 4 or 6 */
	uint8_t nb_hold;
	uint8_t probes;
	uint8_t mac[6];
	uint16_t probe_port; /* port the resolution is sent on */
	uint8_t addr[16];
	uint64_t next_probe_ns;
	struct rte_mbuf *hold[UET_ENGINE_NEIGH_HOLD];
	uint16_t hold_port[UET_ENGINE_NEIGH_HOLD];
};

/* Element of the per-context neighbour update ring (24 bytes). */
struct engine_neigh_upd {
	uint8_t ipver;
	uint8_t is_static;
	uint8_t mac[6];
	uint8_t addr[16];
};

struct engine_fault_held {
	struct rte_mbuf *m;
	uint64_t due_ns;   /* delay: release time; reorder: time limit */
	uint64_t due_cnt;  /* reorder: packet count that releases it */
	uint16_t port;
	uint16_t queue;
	bool local;        /* RX: from the local queues (lcore rx_local) */
};

struct engine_fault_queue {
	uint32_t head;
	uint32_t count;
	struct engine_fault_held h[ENG_FAULT_HOLD];
};

struct engine_fault_dir {
	struct uet_rand rng;
	uint64_t pkts;      /* frames seen by this direction */
	bool mutates;       /* ECN, trimming or corruption configured */
	struct engine_fault_queue reorder;
	struct engine_fault_queue delay;
};

struct uet_engine_lcore;
/* Where a frame goes after fault injection (RX: decode, TX: out list). */
typedef void (*engine_sink_fn)(struct uet_engine_lcore *lc, uint16_t port,
			    uint16_t queue, struct rte_mbuf *m, uint64_t now);

struct rte_pcapng;
struct engine_tss;
struct engine_tss_lc;

struct uet_engine_lcore {
	struct uet_engine *eng;
	struct rte_pcapng *cap;  /* engine.capture, else NULL */
	struct rte_mempool *cap_pool; /* copies for the capture */
	uint64_t cap_ref_ns;  /* CLOCK_REALTIME at capture open, ns */
	uint64_t cap_ref_tsc; /* TSC read at the same moment */
	unsigned int idx;
	unsigned int lcore_id;   /* EAL lcore (AUTO), or UINT32_MAX */
	void *hook_priv;
	uint16_t burst;
	uint16_t nb_rxq;
	struct engine_rxq rxq[UET_CONFIG_MAX_PORTS * 64];
	uint64_t now;            /* coarse time of this iteration */
	uint16_t nb_rx;          /* frames pending for the hook */
	uint16_t iter_rx;        /* frames received this iteration */
	uint16_t iter_tx;        /* frames sent this iteration */
	struct uet_engine_rx rx[UET_ENGINE_BURST_MAX];
	struct engine_txbuf tx[UET_CONFIG_MAX_PORTS];
	/* TX fault output of the port being flushed */
	struct rte_mbuf *txo[ENG_TX_STAGE * 2 + ENG_FAULT_HOLD * 2];
	uint16_t nb_txo;
	uint16_t txo_port;
	/* TX frames released from fault holds, not faulted again */
	uint16_t nb_rel;
	struct engine_rel {
		struct rte_mbuf *m;
		uint16_t port;
	} rel[ENG_TX_STAGE + ENG_FAULT_HOLD * 2];
	/* inside its port bursts (gate.c: the EAL interrupt thread leaves
	 * the port gate only while no lcore is) */
	_Atomic bool in_ports;
	/* its last iteration left frames staged because the port gate was
	 * out, not because a TX queue refused them (uet_engine_flush()) */
	bool tx_gated;
	/* work queues its hook consumes (uet_engine_attach(): channels) */
	_Atomic unsigned int nb_att;
	void *att[UET_ENGINE_CHANS_MAX];
	/* local delivery (local_delivery.c): frames to the engine's own addresses,
	 * one queue per port; frames in them, for the sleep and deadline */
	struct rte_ring *local_ring[UET_CONFIG_MAX_PORTS];
	uint32_t local_delivery_queued;  /* any producer context adds */
	uint8_t local_delivery_reply;    /* 1 + context that last opened to us */
	/* neighbours */
	struct rte_ring *neigh_upd;
	uint32_t neigh_sweep;
	uint32_t neigh_used;
	uint32_t neigh_pending;   /* entries resolving: the sweep's work */
	struct engine_neigh *neigh_last; /* last TX hit (checked before use) */
	struct engine_neigh neigh[UET_ENGINE_NEIGH_SIZE];
	/* fault injection */
	bool fault_on;
	uint64_t fault_from;  /* engine clock: faults apply from ... */
	uint64_t fault_until; /* ... until (UINT64_MAX: no end) */
	struct engine_fault_dir fault[UET_CONFIG_FAULT_DIRS];
	struct uet_engine_lcore_stats st;
	/* [tss] enabled: crypto device, sessions, replay windows */
	struct engine_tss_lc *tss;
	/* the frames being received come from the local queues */
	bool rx_local;
	/* ports whose frame over the MTU was logged (bit per port) */
	uint8_t rx_mtu_logged;
	/* AUTO: sleep, wake-ups, progress lock */
	struct engine_wake wake;
} __rte_cache_aligned;

struct rte_intr_handle;

/* Port gate (gate.c): the EAL interrupt thread parked while memif ports
 * are probed and started, and while they are used last and closed. */
struct engine_gate {
	bool enabled;                /* a memif port: the gate exists */
	bool registered;             /* callback registered with the EAL */
	_Atomic bool hold;           /* the interrupt thread must stay */
	_Atomic bool parked;         /* it is in the gate callback */
	int efd;                     /* eventfd: the interrupt source */
	struct rte_intr_handle *ih;  /* its EAL interrupt handle */
	/* while the engine runs (engine_gate_run): the thread leaves the
	 * callback now and then, for as long as @c out keeps the lcores off
	 * the ports */
	_Atomic bool running;
	_Atomic bool out;            /* the thread is out: no port bursts */
	uint64_t nb_out;             /* times it went out while running */
};

/*
 * The engine's alive files (alive.c): one per fabric address, the time
 * the engine last ran there, so that its restart can tell its PDS when
 * the previous incarnation went (uet_engine_prev_alive_ns()).
 */
#define ENGINE_ALIVE_MAX (2 * UET_CONFIG_MAX_PORTS)   /* IPv4 + IPv6 */
#define ENGINE_ALIVE_PERIOD_NS 1000000ull     /* refreshed this often */
/* a crash may follow the last refresh by a period and a stalled
 * iteration: a file not marked clean counts this much later */
#define ENGINE_ALIVE_MARGIN_NS 10000000ull
/* an engine gone longer ago is no restart (the age a refusal carries
 * reaches 4.03 s: longer than a peer PDC stays in SYN state with the
 * default timers, 1.93 s) */
#define ENGINE_ALIVE_HORIZON_NS 4000000000ull

struct engine_alive_rec;

struct engine_alive {
	struct engine_alive_rec *rec[ENGINE_ALIVE_MAX]; /* mapped, or NULL */
	int fd[ENGINE_ALIVE_MAX];   /* flock held while the engine runs */
	uint64_t next_ns;           /* next refresh (UINT64_MAX: none) */
	uint64_t prev_ns;           /* the latest a previous incarnation of
				     * an address ran; 0 = none */
	unsigned int busy;          /* addresses another engine holds */
	bool inited;                /* fd[] set (engine_alive_open) */
};

struct uet_engine {
	char name[16];
	struct uet_config cfg;
	struct uet_engine_hook_ops hook;
	unsigned int nb_ports;
	struct engine_port port[UET_CONFIG_MAX_PORTS];
	struct rte_mempool *pools[RTE_MAX_NUMA_NODES];
	unsigned int nb_lcores;
	struct uet_engine_lcore *lc[UET_ENGINE_LCORES_MAX];
	bool inline_mode;
	_Atomic bool stop;
	bool running;
	uint64_t tsc_hz;
	uint64_t ns_mult;        /* ns = tsc * ns_mult >> 32 */
	uet_engine_clock_fn clock; /* NULL: TSC (clock.c) */
	void *clock_arg;
	int telemetry_slot;            /* telemetry registry slot, -1 if none */
	/* local delivery: 1 + the context serving each PIDonFEP, 0 unknown
	 * (uet_engine_pid_context_set(), any thread; relaxed bytes) */
	uint8_t pid_ctx[4096];
	struct engine_gate gate;
	struct engine_tss *tss;     /* [tss] enabled, else NULL */
	struct engine_alive alive;
};

/*
 * The engine clock (clock.c). Inline so that the default (TSC) path
 * costs a predicted branch, not a call; an injected clock is one
 * indirect call per loop iteration.
 */
static inline uint64_t
engine_now_ns(const struct uet_engine *e)
{
	if (likely(e->clock == NULL))
		return (uint64_t)(((unsigned __int128)rte_rdtsc() *
				   e->ns_mult) >> 32);
	return e->clock(e->clock_arg);
}

/* alive.c */
int engine_alive_open(struct uet_engine *e);
void engine_alive_refresh(struct uet_engine *e, uint64_t now);
void engine_alive_close(struct uet_engine *e, bool clean);

/* port.c */
int engine_ports_setup(struct uet_engine *e);
void engine_ports_close(struct uet_engine *e);
int engine_port_socket(const struct uet_engine *e, unsigned int port);

/* port_kernel.c: ports backed by a kernel interface */
struct rte_eth_dev_info;
struct engine_afp_geo {
	unsigned int framesz;  /* ring slot, bytes */
	unsigned int blocksz;  /* ring block, bytes (page multiple) */
	unsigned int framecnt; /* slots (whole blocks) */
};
bool engine_devargs_has_key(const char *devargs, const char *key);
bool engine_afp_is(const char *devargs);
unsigned int engine_afp_framesz_min(unsigned int mtu);
unsigned int engine_afp_mbuf_room_min(unsigned int framesz);
void engine_afp_geometry(unsigned int mtu, struct engine_afp_geo *g);
int engine_afp_devargs(const char *devargs, unsigned int mtu, char *out,
		    size_t n);
int engine_afp_check(unsigned int port, unsigned int mtu, unsigned int framesz,
		  unsigned int blocksz, unsigned int mbuf_size, char *msg,
		  size_t n);
int engine_afp_queues(unsigned int port, const struct rte_eth_dev_info *info,
		      unsigned int nb_rxq, char *msg, size_t n);
int engine_port_mtu(const struct uet_engine *e, unsigned int port,
		 const struct rte_eth_dev_info *info);

/* port_memif.c: net_memif buffers sized from the MTU; any MTU of the
 * [portN] mtu key's range */
#define ENG_MEMIF_MTU_MAX 9216u
bool engine_memif_is(const char *devargs);
unsigned int engine_memif_bsize(unsigned int mtu);
int engine_memif_devargs(const char *devargs, unsigned int mtu, char *out,
		      size_t n);
int engine_memif_stale_socket(const char *devargs, int *lock);
void engine_memif_unlock(const char *devargs, int lock);
bool engine_afx_is(const struct rte_eth_dev_info *info);
int engine_afx_pool(struct uet_engine *e, unsigned int port);
void engine_pool_fault_in(struct rte_mempool *mp);
bool engine_afx_pause(const struct engine_port *p, unsigned int *waited,
		   unsigned int *pause);

/* gate.c */
bool engine_gate_wanted(const struct uet_config *cfg);
int engine_gate_open(struct uet_engine *e);
void engine_gate_run(struct uet_engine *e);

/*
 * An lcore's port bursts: entered only while the EAL interrupt thread is
 * parked in the gate (it may run net_memif's control channel, which
 * unmaps a dead peer's rings, only while no lcore is inside). Dekker
 * style: each side publishes its flag, then reads the other's.
 */
static inline bool
engine_gate_ports_enter(struct uet_engine_lcore *lc)
{
	const struct engine_gate *g = &lc->eng->gate;

	if (likely(!g->enabled))
		return true;
	atomic_store_explicit(&lc->in_ports, true, memory_order_seq_cst);
	if (likely(!atomic_load_explicit(&g->out, memory_order_seq_cst)))
		return true;
	atomic_store_explicit(&lc->in_ports, false, memory_order_release);
	return false;
}

/* Frames staged for TX (a queue refused them, or the gate was out) or
 * released from fault holds: the next iteration sends them. */
static inline bool
engine_lcore_tx_staged(const struct uet_engine_lcore *lc)
{
	if (lc->nb_rel != 0)
		return true;
	for (unsigned int p = 0; p < lc->eng->nb_ports; p++)
		if (lc->tx[p].n != 0)
			return true;
	return false;
}

static inline void
engine_gate_ports_leave(struct uet_engine_lcore *lc, bool entered)
{
	if (entered && lc->eng->gate.enabled)
		atomic_store_explicit(&lc->in_ports, false,
				      memory_order_release);
}
int engine_gate_hold(struct uet_engine *e);
void engine_gate_close(struct uet_engine *e);

/* loop.c */
int engine_lcore_main(void *arg);
unsigned int engine_lcore_iterate(struct uet_engine_lcore *lc);
void engine_rx_one(struct uet_engine_lcore *lc, uint16_t port, uint16_t queue,
		struct rte_mbuf *m, uint64_t now);
/* A chain of two segments: its first UET_ENGINE_RX_HDR_ROOM bytes (every
 * header; the whole frame but at least one byte of the second segment)
 * moved into the first, which must be direct and not shared; its headers
 * then decode in place with the whole frame's length. 0, or -1 when it
 * is not such a chain (left as it was). */
int engine_chain_pullup(struct rte_mbuf *m);
/* A frame decoded into lc->rx[lc->nb_rx].pkt, to the hook; opened in
 * secure domain @p sdom (uet_engine_rx.sdom), 0: clear. */
void engine_rx_deliver(struct uet_engine_lcore *lc, uint16_t port,
		    uint16_t queue, struct rte_mbuf *m, uint8_t sdom);

/* tss_path.c, tss_tx.c, tss_rx.c: [tss] on the RX/TX paths */
int engine_tss_init(struct uet_engine *e);
void engine_tss_fini(struct uet_engine *e);
int engine_tss_lcore_init(struct uet_engine_lcore *lc);
void engine_tss_lcore_fini(struct uet_engine_lcore *lc);
/* Seal the staged frames of @p b from b->sealed on (one burst). */
void engine_tss_tx_seal(struct uet_engine_lcore *lc, uint16_t port,
		     struct engine_txbuf *b);
/* A frame whose PDS layer did not decode: true when it was a protected
 * frame, now queued for opening or dropped and counted. */
bool engine_tss_rx_take(struct uet_engine_lcore *lc, uint16_t port,
		     uint16_t queue, struct rte_mbuf *m,
		     const struct uet_wire_pkt *p);
/* A clear frame: false when it belongs to a secure job or PDC (freed and
 * counted). */
bool engine_tss_rx_clear_ok(struct uet_engine_lcore *lc, struct rte_mbuf *m,
			 const struct uet_wire_pkt *p);
/* Open the queued protected frames (one burst) and hand them on. */
void engine_tss_rx_flush(struct uet_engine_lcore *lc);
void engine_lcore_drain(struct uet_engine_lcore *lc);

/* sleep.c (AUTO contexts that sleep when idle) */
int engine_wake_init(struct uet_engine_lcore *lc);
void engine_wake_fini(struct uet_engine_lcore *lc);
void engine_wake_lock(struct uet_engine_lcore *lc);
void engine_wake_unlock_awake(struct uet_engine_lcore *lc);
void engine_lcore_sleep(struct uet_engine_lcore *lc);
void engine_wake_kick(struct uet_engine_lcore *lc, bool force);
bool engine_app_polls(const struct uet_engine_lcore *lc, uint64_t now);
int engine_app_progress(struct uet_engine_lcore *lc, unsigned int max_iterations,
		     bool posted);
uint64_t engine_lcore_deadline(const struct uet_engine_lcore *lc);
/* does the port configuration ask for RX queue interrupts */
bool engine_rx_intr_wanted(const struct uet_engine *e);

/* capture.c (engine.capture) */
int engine_capture_open(struct uet_engine_lcore *lc);
void engine_capture_close(struct uet_engine_lcore *lc);
void engine_capture_copy(struct uet_engine_lcore *lc, uint16_t port,
		      uint16_t queue, struct rte_mbuf *const *m, uint16_t n,
		      bool tx, struct rte_mbuf **out);
void engine_capture_write(struct uet_engine_lcore *lc, struct rte_mbuf **c,
		       uint16_t n_write, uint16_t n);

/* local_delivery.c (frames to the engine's own addresses) */
int engine_local_delivery_init(struct uet_engine_lcore *lc);
void engine_local_delivery_fini(struct uet_engine_lcore *lc);
void engine_local_delivery_drain(struct uet_engine_lcore *lc);
/* engine port whose address is @p dst (IPv@p ipver), else -1 */
int engine_local_delivery_port(const struct uet_engine *e, unsigned int ipver,
		     const uint8_t *dst);
/* queue @p m (sent on port @p from, IP header at @p l3off) for the RX
 * path of port @p to; 0 (a full queue drops and counts it) */
int engine_local_delivery_tx(struct uet_engine_lcore *lc, unsigned int from,
		   unsigned int to, struct rte_mbuf *m, unsigned int l3off,
		   unsigned int ipver);
uint16_t engine_local_delivery_rx(struct uet_engine_lcore *lc, uint16_t port,
			struct rte_mbuf **pkts);
uint16_t engine_local_delivery_space(const struct uet_engine_lcore *lc,
			   unsigned int port);
static inline bool
engine_local_delivery_pending(const struct uet_engine_lcore *lc)
{
	return __atomic_load_n(&lc->local_delivery_queued, __ATOMIC_RELAXED) != 0;
}

/* neigh.c */
int engine_neigh_init(struct uet_engine_lcore *lc);
void engine_neigh_fini(struct uet_engine_lcore *lc);
/* Could @p m be ARP or ND (else engine_neigh_rx() would return 0)? IPv4
 * frames, most of them, skip the call. */
static inline bool
engine_neigh_candidate(const struct rte_mbuf *m)
{
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);

	return rte_pktmbuf_data_len(m) >= UET_ETH_HLEN &&
	       !(d[12] == 0x08 && d[13] == 0x00);
}
/* 1: consumed (ARP/ND), 0: not a neighbour frame */
int engine_neigh_rx(struct uet_engine_lcore *lc, uint16_t port,
		 struct rte_mbuf *m);
void engine_neigh_advance(struct uet_engine_lcore *lc, uint64_t now);
int engine_neigh_static_all(struct uet_engine *e, unsigned int ipver,
			 const uint8_t addr[16], const uint8_t mac[6]);

/* fault.c */
void engine_fault_init(struct uet_engine_lcore *lc);
void engine_fault_apply(struct uet_engine_lcore *lc, unsigned int dir,
		     uint16_t port, uint16_t queue, struct rte_mbuf *m,
		     uint64_t now, engine_sink_fn sink);
void engine_fault_release(struct uet_engine_lcore *lc, unsigned int dir,
		       uint64_t now, bool all, engine_sink_fn sink);
void engine_fault_flush(struct uet_engine_lcore *lc);

/* telemetry.c */
int engine_telemetry_register(struct uet_engine *e);
void engine_telemetry_unregister(struct uet_engine *e);

/* stats.c */
void engine_lcore_stats_read(const struct uet_engine_lcore *lc,
			  struct uet_engine_lcore_stats *out);

#endif /* UET_ENGINE_PRIVATE_H */
