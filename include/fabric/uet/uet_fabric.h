/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_FABRIC_H
#define UET_FABRIC_H

/**
 * @file
 * Fabric in a box: a discrete-event model of a switched Ethernet/IP
 * network of N hosts, sans-I/O. Frames are byte buffers, time is an
 * argument in nanoseconds; the model reads no clock and does no I/O, so
 * a real-time loop and a virtual clock drive it the same way:
 *
 * @code
 *   uet_fabric_inject(fab, host, frame, len, now);   // a host sends
 *   uet_fabric_advance(fab, now);                     // run events <= now
 *   t = uet_fabric_next_event_time(fab);              // virtual clock: jump
 * @endcode
 *
 * Frames that reach their destination host are handed to the delivery
 * callback of the configuration (copy them out: the buffer is reused).
 *
 * Topologies: a two-tier leaf/spine (hosts on leaves, every leaf linked to
 * every spine) and a three-tier K-ary fat tree (K pods of K/2 leaf (edge)
 * and K/2 spine (aggregation) switches, (K/2)^2 core switches, K^3/4
 * hosts). Every link is a full-duplex cable with its own rate and
 * propagation delay. Routing is shortest-path with ECMP on a hash of the
 * 5-tuple (addresses, protocol, UDP ports, or the native-IP entropy value),
 * so a different entropy value (EV) can take a different path; each switch
 * hashes with its own seed.
 *
 * Per output port (UEC 1.0 congestion management: the recommended switch
 * behaviour for trimming): a data queue and a strict-priority control
 * queue, chosen by DSCP (control, trimmed and trimmed-last-hop go to the
 * control queue); probabilistic ECN marking on the data queue between
 * ecn_min_milli and ecn_max_milli of the plane BDP (min link rate x base
 * RTT); trimming above trim_milli (trim_retx_milli for the
 * trimmable-retransmit DSCP), or tail drop above drop_milli when trimming
 * is off. A trimmed frame keeps its
 * headers through the PDS header (and at least 24 bytes of IP payload),
 * gets DSCP trimmed (trimmed-last-hop on the port to the destination
 * host), a new IP length and IPv4 header checksum; its UDP length and
 * checksum are left as they were, as a real switch leaves them.
 *
 * Memory is bounded: a fixed pool of frame buffers and a fixed event heap
 * are allocated by uet_fabric_create(); an exhausted pool refuses
 * uet_fabric_inject() and is counted, never a crash. One thread owns a
 * fabric (no locking).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct uet_fabric;

/** Topology shapes. */
enum uet_fabric_topo {
	UET_FABRIC_TOPO_LEAF_SPINE = 0, /**< hosts / leaves / spines */
	UET_FABRIC_TOPO_FAT_TREE,       /**< K-ary three-tier fat tree */
};

/** Tier of a node. In a leaf/spine there is no core tier. */
enum uet_fabric_tier {
	UET_FABRIC_TIER_HOST = 0,
	UET_FABRIC_TIER_LEAF,  /**< top-of-rack (fat tree: edge) */
	UET_FABRIC_TIER_SPINE, /**< leaf/spine: spine; fat tree: aggregation */
	UET_FABRIC_TIER_CORE,  /**< fat tree only */
};

/** Largest number of hosts (K = 16 fat tree: 1024). */
#define UET_FABRIC_HOSTS_MAX 1024
/** Largest number of ports (links) of one switch. */
#define UET_FABRIC_DEGREE_MAX 64
/** Histogram buckets of queue occupancy (the last one is overflow). */
#define UET_FABRIC_HIST_BUCKETS 256

/** DSCP values per traffic class (PROTOCOL defaults 0/46/16/18/8). */
struct uet_fabric_dscp {
	uint8_t data;            /**< trimmable data */
	uint8_t control;         /**< ACKs and control packets */
	uint8_t trimmed;         /**< set by a trimming switch */
	uint8_t trimmed_lasthop; /**< set when trimmed on the last hop */
	uint8_t trimmable_retx;  /**< retransmissions, trimmed later */
};

/**
 * Delivery of a frame to its destination host. @p frame is valid only
 * during the call. The callback may inject frames (at @p now), e.g. a
 * receiver's ACK; it must not call uet_fabric_advance().
 */
typedef void (*uet_fabric_deliver_fn)(void *arg, uint32_t host,
				      const uint8_t *frame, uint32_t len,
				      uint64_t now);

/**
 * Time-series hook, called when the fabric clock crosses a multiple of
 * sample_ns (before events at later times are processed). The hook may
 * read counters; it must not inject or advance.
 */
typedef void (*uet_fabric_sample_fn)(void *arg, const struct uet_fabric *fab,
				     uint64_t now);

/** Creation parameters; uet_fabric_config_default() fills every field. */
struct uet_fabric_config {
	enum uet_fabric_topo topo;  /**< shape */
	uint32_t hosts;         /**< leaf/spine: host count (>= 2) */
	uint32_t hosts_per_leaf; /**< leaf/spine: hosts on each leaf */
	uint32_t spines;        /**< leaf/spine: spine count */
	uint32_t k;             /**< fat tree: even K in 2..16 (K^3/4 hosts) */
	uint64_t link_rate_bps; /**< initial rate of every link */
	uint64_t link_delay_ns; /**< initial propagation delay of every link */
	/**
	 * Base RTT for the plane BDP (min link rate x base RTT); 0 derives
	 * the unloaded RTT of the longest path for an mtu-sized frame and a
	 * 64-byte reply.
	 */
	uint64_t base_rtt_ns;
	uint32_t mtu;           /**< largest frame in bytes (buffer size) */
	uint32_t frame_overhead; /**< bytes added per frame on the wire for
				  * serialisation (preamble, FCS, gap: 24) */
	uint32_t frame_pool;    /**< frame buffers (frames inside the fabric) */
	uint32_t host_queue_bytes; /**< a host's NIC queue; inject fails with
				    * -ENOBUFS beyond it (backpressure) */
	bool trimming;          /**< trim instead of dropping (data queue) */
	bool ecn;               /**< probabilistic ECN marking */
	/** ECN marking starts, in thousandths of the BDP (200). */
	uint32_t ecn_min_milli;
	/** ECN marking reaches probability 1, thousandths of the BDP (800). */
	uint32_t ecn_max_milli;
	uint32_t trim_milli;      /**< trim threshold, thousandths (1000) */
	uint32_t trim_retx_milli; /**< for trimmable_retx DSCP (1500) */
	/** Tail drop, thousandths of the BDP, 2000..5000 (3000). */
	uint32_t drop_milli;
	/** Control queue tail drop, thousandths of the BDP (drop_milli). */
	uint32_t control_drop_milli;
	uint32_t loss_ppm;      /**< random loss per link traversal, 1e-6 */
	/** Skip ports of failed links in ECMP (local fast reroute). */
	bool failover;
	bool raw_ip;            /**< frames start at the IP header */
	uint8_t native_proto;   /**< native-IP protocol (0: 253) */
	struct uet_fabric_dscp dscp; /**< traffic-class map */
	uint32_t schedule_max;  /**< capacity of link events (fail/restore) */
	uint64_t seed;          /**< PRNG and ECMP hash seeds */
	uet_fabric_deliver_fn deliver; /**< required */
	void *deliver_arg;
	uet_fabric_sample_fn sample;   /**< optional time-series hook */
	void *sample_arg;
	uint64_t sample_ns;     /**< period of @c sample (0 without it) */
};

/** Fill @p c with defaults: 16-host leaf/spine, 4 spines, 100 Gb/s, 1 us. */
void uet_fabric_config_default(struct uet_fabric_config *c);

/**
 * Check a configuration without creating a fabric.
 * @return
 *   0, or -EINVAL; @p why (if not NULL) then names the offending field.
 */
int uet_fabric_config_check(const struct uet_fabric_config *c,
			    const char **why);

/**
 * Create a fabric at time 0. Host h gets IPv4 address 10.0.x.y, where x
 * and y are the high and low bytes of h + 1, and IPv6 address
 * fd00::(h + 1) (uet_fabric_host_addr_set() changes them).
 * @return
 *   The fabric, or NULL with *err set to -EINVAL (bad configuration) or
 *   -ENOMEM.
 */
struct uet_fabric *uet_fabric_create(const struct uet_fabric_config *c,
				     int *err);

/** Free a fabric; NULL is a no-op. */
void uet_fabric_free(struct uet_fabric *fab);

/** Number of hosts. */
uint32_t uet_fabric_hosts(const struct uet_fabric *fab);

/**
 * Set an address frames for @p host are routed by: its IPv4 address when
 * bytes 4..15 are zero (IPv4 in the first 4 bytes), else its IPv6 one.
 * @return
 *   0, -EINVAL (host out of range), -EEXIST (address of another host).
 */
int uet_fabric_host_addr_set(struct uet_fabric *fab, uint32_t host,
			     const uint8_t addr[16]);

/**
 * Copy @p host's IPv4 (@p ipv6 false) or IPv6 address into @p addr.
 * @return 0 or -EINVAL.
 */
int uet_fabric_host_addr_get(const struct uet_fabric *fab, uint32_t host,
			     bool ipv6, uint8_t addr[16]);

/** Plane BDP in bytes and the thresholds derived from it. */
struct uet_fabric_thresholds {
	uint64_t base_rtt_ns;
	uint64_t bdp;        /**< min link rate x base RTT, bytes */
	uint64_t ecn_min;    /**< data-queue bytes */
	uint64_t ecn_max;
	uint64_t trim;
	uint64_t trim_retx;
	uint64_t drop;
	uint64_t control_drop;
};

/** Thresholds in bytes, fixed at creation. */
void uet_fabric_thresholds_get(const struct uet_fabric *fab,
			       struct uet_fabric_thresholds *t);

/**
 * A host sends a frame at @p now (clamped to the fabric clock if
 * earlier). The frame is copied and enters the host's link queue when
 * uet_fabric_advance() reaches @p now.
 * Frames the fabric cannot route (not IP, bad IPv4 checksum, unknown
 * destination) are taken and counted as drops.
 * @return
 *   0 (taken), -EINVAL (host out of range, len 0 or above mtu),
 *   -ENOBUFS (the host queue is full or the frame pool is empty; not
 *   taken, counted), -ENOSPC (event heap full: only if the fabric's
 *   state is corrupt, since it holds an event per frame buffer).
 */
int uet_fabric_inject(struct uet_fabric *fab, uint32_t host,
		      const uint8_t *frame, uint32_t len, uint64_t now);

/**
 * Process every event due at or before @p now in time order (ties in
 * the order they were scheduled), delivering frames and firing the
 * sample hook; the fabric clock becomes @p now (it never goes back).
 * @return
 *   Number of events processed.
 */
uint32_t uet_fabric_advance(struct uet_fabric *fab, uint64_t now);

/** Time of the earliest pending event, or UINT64_MAX when idle. */
uint64_t uet_fabric_next_event_time(const struct uet_fabric *fab);

/** The fabric clock: the latest time given to uet_fabric_advance(). */
uint64_t uet_fabric_now(const struct uet_fabric *fab);

/* ---- topology ---------------------------------------------------- */

/** One cable: two ports, one per direction. */
struct uet_fabric_link_info {
	enum uet_fabric_tier tier[2]; /**< tiers of the two ends */
	uint32_t index[2];            /**< index of each end in its tier */
	uint32_t port[2];             /**< port ids: end 0 -> 1, end 1 -> 0 */
	uint64_t rate_bps;            /**< current rate */
	uint64_t delay_ns;            /**< propagation delay */
	bool up;                      /**< not failed */
};

/** Number of links (cables). Ports are numbered 0 .. 2 * links - 1. */
uint32_t uet_fabric_links(const struct uet_fabric *fab);

/** Describe link @p link. @return 0 or -EINVAL. */
int uet_fabric_link_info(const struct uet_fabric *fab, uint32_t link,
			 struct uet_fabric_link_info *info);

/**
 * Find the link between two nodes.
 * @return
 *   The link id, or -ENOENT (no such node or no link between them).
 */
int uet_fabric_link_find(const struct uet_fabric *fab,
			 enum uet_fabric_tier ta, uint32_t a,
			 enum uet_fabric_tier tb, uint32_t b);

/** Number of nodes of a tier. */
uint32_t uet_fabric_tier_size(const struct uet_fabric *fab,
			      enum uet_fabric_tier tier);

/**
 * Set a link's rate, delay and random loss now (before traffic, or at
 * any time: frames already being serialised keep their old rate).
 * @return
 *   0 or -EINVAL (unknown link, zero rate, loss above 1e6 ppm).
 */
int uet_fabric_link_set(struct uet_fabric *fab, uint32_t link,
			uint64_t rate_bps, uint64_t delay_ns, uint32_t loss_ppm);

/** Kinds of scheduled link events. */
enum uet_fabric_link_action {
	UET_FABRIC_LINK_FAIL = 0, /**< down: queued and in-flight frames lost */
	UET_FABRIC_LINK_RESTORE,  /**< up again */
	UET_FABRIC_LINK_RATE,     /**< new rate (degraded or restored) */
};

/**
 * Schedule @p action on @p link at time @p at (rate_bps for RATE).
 * @return
 *   0, -EINVAL (unknown link or action, zero rate, @p at before the
 *   fabric clock), -ENOSPC (schedule_max events already pending).
 */
int uet_fabric_link_schedule(struct uet_fabric *fab, uint32_t link,
			     uint64_t at, enum uet_fabric_link_action action,
			     uint64_t rate_bps);

/* ---- counters ---------------------------------------------------- */

/** Counters of one output port (one direction of a link). */
struct uet_fabric_port_stats {
	uint64_t tx_frames;     /**< frames serialised onto the link */
	uint64_t tx_bytes;
	uint64_t busy_ns;       /**< time spent serialising */
	uint64_t marks;         /**< ECN CE set */
	uint64_t trims;         /**< frames trimmed */
	uint64_t drops_tail;    /**< tail drops (data or control queue) */
	uint64_t drops_untrimmable; /**< over the trim threshold, not UET */
	uint64_t drops_link;    /**< lost to a failed link */
	uint64_t drops_loss;    /**< random loss */
	uint64_t control_frames; /**< frames through the control queue */
	uint64_t data_bytes;    /**< data queue occupancy now */
	uint64_t control_bytes; /**< control queue occupancy now */
	uint64_t data_max;      /**< highest data queue occupancy */
	uint64_t control_max;   /**< highest control queue occupancy */
	uint64_t data_p50;      /**< data occupancy seen by arrivals, median */
	uint64_t data_p99;      /**< ... 99th percentile (bucket upper edge) */
	uint64_t samples;       /**< arrivals sampled */
};

/**
 * Counters of port @p port. Percentiles are read from a histogram of
 * the data-queue occupancy each arriving frame found, with buckets of
 * drop / (UET_FABRIC_HIST_BUCKETS - 1) bytes (the value is the bucket's
 * upper edge).
 * @return
 *   0 or -EINVAL.
 */
int uet_fabric_port_stats(const struct uet_fabric *fab, uint32_t port,
			  struct uet_fabric_port_stats *s);

/** Fabric-wide counters. */
struct uet_fabric_stats {
	uint64_t injected;       /**< frames taken by inject */
	uint64_t delivered;      /**< frames handed to deliver */
	uint64_t delivered_bytes;
	uint64_t host_full;      /**< inject refused: host queue full */
	uint64_t pool_empty;     /**< inject refused: no frame buffer */
	uint64_t bad_frame;      /**< not IP / bad header: dropped */
	uint64_t no_route;       /**< unknown destination or no live port */
	uint64_t marks;          /**< sums over the ports */
	uint64_t trims;
	uint64_t drops;          /**< every drop inside the fabric */
	uint64_t events;         /**< events processed */
	uint32_t frames_in_use;  /**< frame buffers now held */
	uint32_t frames_max;     /**< highest frames_in_use */
};

/** Fabric-wide counters. */
void uet_fabric_stats_get(const struct uet_fabric *fab,
			  struct uet_fabric_stats *s);

#ifdef __cplusplus
}
#endif

#endif /* UET_FABRIC_H */
