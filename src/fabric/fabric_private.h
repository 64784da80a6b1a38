/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_FABRIC_PRIVATE_H
#define UET_FABRIC_PRIVATE_H

/*
 * Internal state of the fabric model. Everything is a fixed array
 * allocated by uet_fabric_create(); frames, ports, links and events refer
 * to each other by 32-bit indices (FAB_NIL = none).
 *
 * Nodes are numbered hosts first (0 .. hosts-1), then leaves, spines and
 * cores. Port p of a link is the direction link.end[p & 1] -> other end;
 * port ids are 2 * link + direction.
 */

#include <stdbool.h>
#include <stdint.h>

#include <uet/uet_fabric.h>
#include <uet/uet_rand.h>

#define FAB_NIL UINT32_MAX

/* Per-frame metadata; the bytes live in fab->buf at index * mtu. */
struct fab_frame {
	uint32_t next;      /* queue or free-list link */
	uint32_t len;       /* current length (a trim shortens it) */
	uint32_t dst;       /* destination host */
	uint32_t hash;      /* 5-tuple hash, mixed per switch for ECMP */
	uint32_t epoch;     /* link epoch when its serialisation started */
	uint32_t trim_len;  /* length after a trim; 0: not trimmable */
	uint16_t l3_off;    /* IP header offset */
	uint8_t ip_hlen;    /* IP header length */
	uint8_t ip_version; /* 4 or 6 */
	bool ctl;           /* counted in the control queue */
};

struct fab_queue {
	uint32_t head;
	uint32_t tail;
	uint64_t bytes;     /* queued, plus the frame being serialised */
	uint64_t max;
};

struct fab_port {
	uint32_t node;      /* sending node */
	uint32_t peer;      /* receiving node */
	uint32_t link;
	uint32_t cur;       /* frame being serialised, or FAB_NIL */
	bool from_host;     /* a host's NIC: no marking, trimming or drops */
	bool to_host;       /* last hop: trims are TRIMMED_LASTHOP */
	uint64_t rem;       /* serialisation remainder, bit-ns mod rate */
	uint64_t cur_ns;    /* serialisation time of cur */
	uint64_t pending;   /* host port: bytes injected, not yet queued */
	struct fab_queue data;
	struct fab_queue ctl;
	struct uet_fabric_port_stats st; /* occupancy fields filled on read */
	uint32_t *hist;     /* UET_FABRIC_HIST_BUCKETS arrival samples */
};

struct fab_link {
	uint32_t end[2];    /* nodes */
	uint64_t rate_bps;
	uint64_t delay_ns;
	uint32_t loss_ppm;
	uint32_t epoch;     /* bumped at each failure */
	bool up;
};

struct fab_node {
	enum uet_fabric_tier tier;
	uint32_t index;     /* within its tier */
	uint32_t first;     /* first entry in fab->node_ports */
	uint32_t nports;    /* output ports (degree) */
	uint32_t seed;      /* ECMP hash seed of this switch */
};

enum fab_ev_kind {
	FAB_EV_INJECT = 0,  /* a = frame, b = host port */
	FAB_EV_TX_DONE,     /* a = port */
	FAB_EV_ARRIVE,      /* a = frame, b = port it came over */
	FAB_EV_LINK,        /* a = schedule slot */
};

struct fab_event {
	uint64_t time;
	uint64_t seq;       /* tie-break: scheduling order */
	uint32_t kind;
	uint32_t a;
	uint32_t b;
};

struct fab_sched {
	uint32_t link;      /* FAB_NIL: free slot */
	uint32_t action;    /* enum uet_fabric_link_action */
	uint64_t rate_bps;
};

struct uet_fabric {
	struct uet_fabric_config cfg;
	struct uet_fabric_thresholds th;
	uint64_t now;
	uint64_t seq;
	uint64_t next_sample;
	struct uet_rand rng;
	uint32_t hosts;
	uint32_t tier_size[4];
	uint32_t tier_first[4]; /* node id of a tier's first node */
	uint32_t nnodes;
	uint32_t nlinks;
	struct fab_node *nodes;
	uint32_t *node_ports;   /* output port ids, grouped by node */
	uint64_t *routes;       /* (switch, dst host) -> mask of node ports */
	struct fab_link *links;
	struct fab_port *ports;
	uint32_t *hist;         /* 2 * nlinks * UET_FABRIC_HIST_BUCKETS */
	struct fab_frame *frames;
	uint8_t *buf;           /* frame_pool * mtu bytes */
	uint32_t free_head;
	struct fab_event *heap;
	uint32_t heap_len;
	uint32_t heap_cap;
	struct fab_sched *sched;
	uint8_t (*addr)[2][16];  /* per host: IPv4 and IPv6 address */
	uint32_t *addr_tab;     /* open addressing: host * 2 + family + 1 */
	uint32_t addr_mask;
	struct uet_fabric_stats st;
};

/* fabric_topo.c */
int fab_topo_build(struct uet_fabric *fab);
int fab_routes_build(struct uet_fabric *fab, uint32_t *max_hops);
uint32_t fab_route_port(struct uet_fabric *fab, uint32_t node,
			const struct fab_frame *f);

/* fabric_addr.c */
int fab_addr_init(struct uet_fabric *fab);
uint32_t fab_addr_lookup(const struct uet_fabric *fab, const uint8_t a[16]);

/* fabric_event.c */
int fab_event_push(struct uet_fabric *fab, uint64_t time, uint32_t kind,
		   uint32_t a, uint32_t b);

/* fabric_port.c */
void fab_port_enqueue(struct uet_fabric *fab, uint32_t port, uint32_t fi,
		      uint64_t now);
void fab_port_tx_done(struct uet_fabric *fab, uint32_t port, uint64_t now);
void fab_port_flush(struct uet_fabric *fab, uint32_t port);
void fab_frame_free(struct uet_fabric *fab, uint32_t fi);
void fab_frame_drop(struct uet_fabric *fab, uint32_t fi, uint64_t *counter);

/* fabric_frame.c */
int fab_frame_parse(struct uet_fabric *fab, struct fab_frame *f,
		    const uint8_t *b, uint32_t len);
bool fab_frame_is_ctl(const struct uet_fabric *fab, const uint8_t *b,
		      const struct fab_frame *f);
uint8_t fab_frame_dscp(const uint8_t *b, const struct fab_frame *f);
bool fab_frame_ecn_capable(const uint8_t *b, const struct fab_frame *f);
void fab_frame_mark_ce(uint8_t *b, const struct fab_frame *f);
void fab_frame_trim(uint8_t *b, struct fab_frame *f, uint8_t dscp);

static inline uint8_t *
fab_frame_bytes(const struct uet_fabric *fab, uint32_t fi)
{
	return fab->buf + (uint64_t)fi * fab->cfg.mtu;
}

static inline struct fab_link *
fab_port_link(const struct uet_fabric *fab, uint32_t port)
{
	return &fab->links[port >> 1];
}

#endif /* UET_FABRIC_PRIVATE_H */
