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
struct fabric_frame {
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

struct fabric_queue {
	uint32_t head;
	uint32_t tail;
	uint64_t bytes;     /* queued, plus the frame being serialised */
	uint64_t max;
};

struct fabric_port {
	uint32_t node;      /* sending node */
	uint32_t peer;      /* receiving node */
	uint32_t link;
	uint32_t cur;       /* frame being serialised, or FAB_NIL */
	bool from_host;     /* a host's NIC: no marking, trimming or drops */
	bool to_host;       /* last hop: trims are TRIMMED_LASTHOP */
	uint64_t rem;       /* serialisation remainder, bit-ns mod rate */
	uint64_t cur_ns;    /* serialisation time of cur */
	uint64_t pending;   /* host port: bytes injected, not yet queued */
	struct fabric_queue data;
	struct fabric_queue ctl;
	struct uet_fabric_port_stats st; /* occupancy fields filled on read */
	uint32_t *hist;     /* UET_FABRIC_HIST_BUCKETS arrival samples */
};

struct fabric_link {
	uint32_t end[2];    /* nodes */
	uint64_t rate_bps;
	uint64_t delay_ns;
	uint32_t loss_ppm;
	uint32_t epoch;     /* bumped at each failure */
	bool up;
};

struct fabric_node {
	enum uet_fabric_tier tier;
	uint32_t index;     /* within its tier */
	uint32_t first;     /* first entry in fab->node_ports */
	uint32_t nports;    /* output ports (degree) */
	uint32_t seed;      /* ECMP hash seed of this switch */
};

enum fabric_ev_kind {
	FAB_EV_INJECT = 0,  /* a = frame, b = host port */
	FAB_EV_TX_DONE,     /* a = port */
	FAB_EV_ARRIVE,      /* a = frame, b = port it came over */
	FAB_EV_LINK,        /* a = schedule slot */
};

struct fabric_event {
	uint64_t time;
	uint64_t seq;       /* tie-break: scheduling order */
	uint32_t kind;
	uint32_t a;
	uint32_t b;
};

struct fabric_sched {
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
	struct fabric_node *nodes;
	uint32_t *node_ports;   /* output port ids, grouped by node */
	uint64_t *routes;       /* (switch, dst host) -> mask of node ports */
	struct fabric_link *links;
	struct fabric_port *ports;
	uint32_t *hist;         /* 2 * nlinks * UET_FABRIC_HIST_BUCKETS */
	struct fabric_frame *frames;
	uint8_t *buf;           /* frame_pool * mtu bytes */
	uint32_t free_head;
	struct fabric_event *heap;
	uint32_t heap_len;
	uint32_t heap_cap;
	struct fabric_sched *sched;
	uint8_t (*addr)[2][16];  /* per host: IPv4 and IPv6 address */
	uint32_t *addr_tab;     /* open addressing: host * 2 + family + 1 */
	uint32_t addr_mask;
	struct uet_fabric_stats st;
};

/* fabric_topo.c */
int fabric_topo_build(struct uet_fabric *fab);
int fabric_routes_build(struct uet_fabric *fab, uint32_t *max_hops);
uint32_t fabric_route_port(struct uet_fabric *fab, uint32_t node,
			const struct fabric_frame *f);

/* fabric_addr.c */
int fabric_addr_init(struct uet_fabric *fab);
uint32_t fabric_addr_lookup(const struct uet_fabric *fab, const uint8_t a[16]);

/* fabric_event.c */
int fabric_event_push(struct uet_fabric *fab, uint64_t time, uint32_t kind,
		   uint32_t a, uint32_t b);

/* fabric_port.c */
void fabric_port_enqueue(struct uet_fabric *fab, uint32_t port, uint32_t fi,
		      uint64_t now);
void fabric_port_tx_done(struct uet_fabric *fab, uint32_t port, uint64_t now);
void fabric_port_flush(struct uet_fabric *fab, uint32_t port);
void fabric_frame_free(struct uet_fabric *fab, uint32_t fi);
void fabric_frame_drop(struct uet_fabric *fab, uint32_t fi, uint64_t *counter);

/* fabric_frame.c */
int fabric_frame_parse(struct uet_fabric *fab, struct fabric_frame *f,
		    const uint8_t *b, uint32_t len);
bool fabric_frame_is_ctl(const struct uet_fabric *fab, const uint8_t *b,
		      const struct fabric_frame *f);
uint8_t fabric_frame_dscp(const uint8_t *b, const struct fabric_frame *f);
bool fabric_frame_ecn_capable(const uint8_t *b, const struct fabric_frame *f);
void fabric_frame_mark_ce(uint8_t *b, const struct fabric_frame *f);
void fabric_frame_trim(uint8_t *b, struct fabric_frame *f, uint8_t dscp);

static inline uint8_t *
fabric_frame_bytes(const struct uet_fabric *fab, uint32_t fi)
{
	return fab->buf + (uint64_t)fi * fab->cfg.mtu;
}

static inline struct fabric_link *
fabric_port_link(const struct uet_fabric *fab, uint32_t port)
{
	return &fab->links[port >> 1];
}

#endif /* UET_FABRIC_PRIVATE_H */
