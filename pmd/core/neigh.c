/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Neighbour resolution: ARP (RFC 826) for IPv4 FAs, ND (RFC 4861 NS/NA)
 * for IPv6 FAs, and a fixed-size cache per context.
 *
 * Cache: UET_ENGINE_NEIGH_SIZE entries in buckets of ENG_BUCKET ways keyed
 * by (IP version, address); no eviction. When a bucket is full, frames to
 * a new neighbour are dropped and counted (neigh_full). An unresolved
 * neighbour holds at most UET_ENGINE_NEIGH_HOLD frames (the oldest is
 * dropped and counted beyond that), probes every ENG_NEIGH_PROBE_NS and
 * gives up after ENG_NEIGH_MAX_PROBES probes, dropping what it held.
 * Learnt entries do not age (static fabric); static entries from the
 * configuration are never replaced.
 *
 * Contexts share nothing: the context that learns an address (ARP/ND
 * frames arrive on whichever queue RSS picks) posts it to every other
 * context's update ring, applied at their next iteration.
 */

#include <errno.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_byteorder.h>
#include <rte_errno.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "engine_private.h"

#define ENG_BUCKET 8
#define ETH_TYPE_ARP 0x0806
#define ARP_LEN 28
#define ICMP6_NS 135
#define ICMP6_NA 136
#define ND_LEN 24        /* NS/NA without options */
#define ND_OPT_SLLA 1
#define ND_OPT_TLLA 2
#define ND_FRAME_LEN (UET_ETH_HLEN + UET_IPV6_HLEN + ND_LEN + 8)
#define NA_F_SOLICITED 0x40
#define NA_F_OVERRIDE 0x20
#define IPPROTO_ICMP6 58

_Static_assert(sizeof(struct engine_neigh_upd) == 24, "update element size");

static inline uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline void
wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static unsigned int
bucket_of(unsigned int ipver, const uint8_t *addr)
{
	uint32_t h = ipver;

	for (unsigned int i = 0; i < (ipver == 4 ? 4u : 16u); i++)
		h = h * 31 + addr[i];
	h ^= h >> 15;
	h *= 0x2c1b3c6du;
	h ^= h >> 12;
	return (h % (UET_ENGINE_NEIGH_SIZE / ENG_BUCKET)) * ENG_BUCKET;
}

static bool
addr_eq(unsigned int ipver, const uint8_t *a, const uint8_t *b)
{
	return memcmp(a, b, ipver == 4 ? 4 : 16) == 0;
}

static struct engine_neigh *
neigh_find(struct uet_engine_lcore *lc, unsigned int ipver,
	   const uint8_t *addr, bool create)
{
	unsigned int b = bucket_of(ipver, addr);
	struct engine_neigh *free_e = NULL;

	for (unsigned int i = 0; i < ENG_BUCKET; i++) {
		struct engine_neigh *n = &lc->neigh[b + i];

		if (n->state == ENG_NEIGH_FREE) {
			if (free_e == NULL)
				free_e = n;
			continue;
		}
		if (n->ipver == ipver && addr_eq(ipver, n->addr, addr))
			return n;
	}
	if (!create || free_e == NULL)
		return NULL;
	memset(free_e, 0, sizeof(*free_e));
	free_e->ipver = (uint8_t)ipver;
	memcpy(free_e->addr, addr, ipver == 4 ? 4 : 16);
	lc->neigh_used++;
	return free_e;
}

static void
neigh_release(struct uet_engine_lcore *lc, struct engine_neigh *n)
{
	if (n->state == ENG_NEIGH_PENDING)
		lc->neigh_pending--;
	for (unsigned int i = 0; i < n->nb_hold; i++) {
		rte_pktmbuf_free(n->hold[i]);
		ENG_INC(lc->st.neigh_hold_drop);
	}
	n->nb_hold = 0;
	n->state = ENG_NEIGH_FREE;
	lc->neigh_used--;
}

/* Fill the Ethernet addresses of a frame and queue it. */
static int
frame_send(struct uet_engine_lcore *lc, unsigned int port, struct rte_mbuf *m,
	   const uint8_t *dst_mac)
{
	uint8_t *d = rte_pktmbuf_mtod(m, uint8_t *);

	memcpy(d, dst_mac, 6);
	memcpy(d + 6, lc->eng->port[port].mac.addr_bytes, 6);
	return uet_engine_tx(lc, port, m);
}

static void
neigh_set(struct uet_engine_lcore *lc, unsigned int ipver,
	  const uint8_t *addr, const uint8_t *mac, bool is_static)
{
	struct engine_neigh *n = neigh_find(lc, ipver, addr, true);

	if (n == NULL) {
		ENG_INC(lc->st.neigh_full);
		return;
	}
	if (n->state == ENG_NEIGH_STATIC && !is_static)
		return;
	memcpy(n->mac, mac, 6);
	if (n->state == ENG_NEIGH_PENDING)
		lc->neigh_pending--;
	n->state = is_static ? ENG_NEIGH_STATIC : ENG_NEIGH_VALID;
	for (unsigned int i = 0; i < n->nb_hold; i++)
		if (frame_send(lc, n->hold_port[i], n->hold[i], mac) < 0) {
			rte_pktmbuf_free(n->hold[i]);
			ENG_INC(lc->st.neigh_hold_drop);
		}
	n->nb_hold = 0;
}

/* Learn from a frame: set locally, tell the other contexts. */
static void
neigh_learn(struct uet_engine_lcore *lc, unsigned int ipver,
	    const uint8_t *addr, const uint8_t *mac)
{
	struct engine_neigh_upd u = { .ipver = (uint8_t)ipver };
	const struct uet_engine *e = lc->eng;

	if (mac[0] & 1)
		return; /* never learn a multicast MAC */
	neigh_set(lc, ipver, addr, mac, false);
	memcpy(u.mac, mac, 6);
	memcpy(u.addr, addr, ipver == 4 ? 4 : 16);
	for (unsigned int i = 0; i < e->nb_lcores; i++)
		if (e->lc[i] != lc)
			(void)rte_ring_mp_enqueue_elem(e->lc[i]->neigh_upd, &u,
						       sizeof(u));
}

/* ------------------------------------------------------------------ */
/* ARP                                                                 */
/* ------------------------------------------------------------------ */

static void
arp_fill(uint8_t *a, uint16_t op, const uint8_t *sha, const uint8_t *spa,
	 const uint8_t *tha, const uint8_t *tpa)
{
	wr16(a, 1);            /* Ethernet */
	wr16(a + 2, UET_ETHERTYPE_IPV4);
	a[4] = 6;
	a[5] = 4;
	wr16(a + 6, op);
	memcpy(a + 8, sha, 6);
	memcpy(a + 14, spa, 4);
	memcpy(a + 18, tha, 6);
	memcpy(a + 24, tpa, 4);
}

static int
arp_request(struct uet_engine_lcore *lc, unsigned int port,
	    const uint8_t *tpa)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	static const uint8_t zero[6];
	const struct engine_port *p = &lc->eng->port[port];
	struct rte_mbuf *m = uet_engine_mbuf_alloc(lc, port);
	uint8_t *d;

	if (m == NULL)
		return -ENOMEM;
	d = (uint8_t *)rte_pktmbuf_append(m, UET_ETH_HLEN + ARP_LEN);
	if (d == NULL)
		goto free_m;
	wr16(d + 12, ETH_TYPE_ARP);
	arp_fill(d + UET_ETH_HLEN, 1, p->mac.addr_bytes, p->ipv4, zero, tpa);
	if (frame_send(lc, port, m, bcast) < 0)
		goto free_m;
	ENG_INC(lc->st.arp_req_tx);
	return 0;
free_m:
	rte_pktmbuf_free(m);
	return -ENOBUFS;
}

static void
arp_rx(struct uet_engine_lcore *lc, uint16_t port, struct rte_mbuf *m)
{
	const struct engine_port *p = &lc->eng->port[port];
	uint8_t *a = rte_pktmbuf_mtod_offset(m, uint8_t *, UET_ETH_HLEN);
	uint8_t sha[6], spa[4];

	ENG_INC(lc->st.rx_arp);
	if (rte_pktmbuf_data_len(m) < UET_ETH_HLEN + ARP_LEN ||
	    rd16(a) != 1 || rd16(a + 2) != UET_ETHERTYPE_IPV4 || a[4] != 6 ||
	    a[5] != 4) {
		ENG_INC(lc->st.nd_bad);
		goto free_m;
	}
	/* only frames about our FA are of interest (no snooping) */
	if (!p->has_ipv4 || memcmp(a + 24, p->ipv4, 4) != 0)
		goto free_m;
	memcpy(sha, a + 8, 6);
	memcpy(spa, a + 14, 4);
	neigh_learn(lc, 4, spa, sha);
	if (rd16(a + 6) == 2) {
		ENG_INC(lc->st.arp_reply_rx);
		goto free_m;
	}
	if (rd16(a + 6) != 1)
		goto free_m;
	ENG_INC(lc->st.arp_req_rx);
	/* answer in place */
	arp_fill(a, 2, p->mac.addr_bytes, p->ipv4, sha, spa);
	if (frame_send(lc, port, m, sha) == 0)
		return;
free_m:
	rte_pktmbuf_free(m);
}

/* ------------------------------------------------------------------ */
/* ND                                                                  */
/* ------------------------------------------------------------------ */

/* Build an NS or NA frame (with one link-layer address option). */
static struct rte_mbuf *
nd_build(struct uet_engine_lcore *lc, unsigned int port, uint8_t type,
	 uint8_t flags, const uint8_t *dst_ip, const uint8_t *target)
{
	const struct engine_port *p = &lc->eng->port[port];
	struct rte_mbuf *m = uet_engine_mbuf_alloc(lc, port);
	struct rte_ipv6_hdr *ip;
	uint8_t *d, *icmp;

	if (m == NULL)
		return NULL;
	d = (uint8_t *)rte_pktmbuf_append(m, ND_FRAME_LEN);
	if (d == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memset(d, 0, ND_FRAME_LEN);
	wr16(d + 12, UET_ETHERTYPE_IPV6);
	ip = (struct rte_ipv6_hdr *)(d + UET_ETH_HLEN);
	d[UET_ETH_HLEN] = 0x60;
	wr16(d + UET_ETH_HLEN + 4, ND_LEN + 8);
	d[UET_ETH_HLEN + 6] = IPPROTO_ICMP6;
	d[UET_ETH_HLEN + 7] = 255;
	memcpy(d + UET_ETH_HLEN + 8, p->ipv6, 16);
	memcpy(d + UET_ETH_HLEN + 24, dst_ip, 16);
	icmp = d + UET_ETH_HLEN + UET_IPV6_HLEN;
	icmp[0] = type;
	icmp[4] = flags;
	memcpy(icmp + 8, target, 16);
	icmp[24] = type == ICMP6_NS ? ND_OPT_SLLA : ND_OPT_TLLA;
	icmp[25] = 1;
	memcpy(icmp + 26, p->mac.addr_bytes, 6);
	wr16(icmp + 2, rte_be_to_cpu_16(rte_ipv6_udptcp_cksum(ip, icmp)));
	return m;
}

static int
nd_solicit(struct uet_engine_lcore *lc, unsigned int port,
	   const uint8_t *target)
{
	uint8_t snm[16] = { 0xff, 0x02, [11] = 0x01, [12] = 0xff };
	uint8_t mac[6] = { 0x33, 0x33, 0xff };
	struct rte_mbuf *m;

	memcpy(snm + 13, target + 13, 3);
	memcpy(mac + 3, target + 13, 3);
	m = nd_build(lc, port, ICMP6_NS, 0, snm, target);
	if (m == NULL)
		return -ENOMEM;
	if (frame_send(lc, port, m, mac) < 0) {
		rte_pktmbuf_free(m);
		return -ENOBUFS;
	}
	ENG_INC(lc->st.nd_ns_tx);
	return 0;
}

/* Link-layer address option of type @p want, or NULL. */
static const uint8_t *
nd_opt_lla(const uint8_t *opt, size_t len, uint8_t want)
{
	/* bounded: every option is at least 8 bytes */
	while (len >= 8) {
		size_t olen = (size_t)opt[1] * 8;

		if (olen == 0 || olen > len)
			return NULL;
		if (opt[0] == want && olen == 8)
			return opt + 2;
		opt += olen;
		len -= olen;
	}
	return NULL;
}

static void
nd_advertise(struct uet_engine_lcore *lc, uint16_t port, const uint8_t *src,
	     const uint8_t *eth_src, const uint8_t *slla)
{
	static const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 0x01 };
	static const uint8_t all_nodes_mac[6] = { 0x33, 0x33, 0, 0, 0, 1 };
	static const uint8_t unspec[16];
	bool dad = memcmp(src, unspec, 16) == 0;
	struct rte_mbuf *r;

	r = nd_build(lc, port, ICMP6_NA,
		     (uint8_t)(NA_F_OVERRIDE | (dad ? 0 : NA_F_SOLICITED)),
		     dad ? all_nodes : src, lc->eng->port[port].ipv6);
	if (r == NULL)
		return;
	if (frame_send(lc, port, r, dad ? all_nodes_mac :
				    slla != NULL ? slla : eth_src) < 0)
		rte_pktmbuf_free(r);
}

static void
nd_rx(struct uet_engine_lcore *lc, uint16_t port, struct rte_mbuf *m)
{
	const struct engine_port *p = &lc->eng->port[port];
	uint8_t *d = rte_pktmbuf_mtod(m, uint8_t *);
	const struct rte_ipv6_hdr *ip =
		(const struct rte_ipv6_hdr *)(d + UET_ETH_HLEN);
	const uint8_t *icmp = d + UET_ETH_HLEN + UET_IPV6_HLEN;
	size_t plen = rd16(d + UET_ETH_HLEN + 4);
	const uint8_t *lla;

	ENG_INC(lc->st.rx_nd);
	if (plen < ND_LEN ||
	    UET_ETH_HLEN + UET_IPV6_HLEN + plen > rte_pktmbuf_data_len(m) ||
	    d[UET_ETH_HLEN + 7] != 255 || icmp[1] != 0 ||
	    rte_ipv6_udptcp_cksum_verify(ip, icmp) != 0) {
		ENG_INC(lc->st.nd_bad);
		goto free_m;
	}
	if (!p->has_ipv6 || (icmp[0] == ICMP6_NS &&
			     memcmp(icmp + 8, p->ipv6, 16) != 0))
		goto free_m;
	lla = nd_opt_lla(icmp + ND_LEN, plen - ND_LEN,
			 icmp[0] == ICMP6_NS ? ND_OPT_SLLA : ND_OPT_TLLA);
	if (icmp[0] == ICMP6_NA) {
		ENG_INC(lc->st.nd_na_rx);
		if (lla != NULL)
			neigh_learn(lc, 6, icmp + 8, lla);
		goto free_m;
	}
	ENG_INC(lc->st.nd_ns_rx);
	if (lla != NULL)
		neigh_learn(lc, 6, d + UET_ETH_HLEN + 8, lla);
	nd_advertise(lc, port, d + UET_ETH_HLEN + 8, d + 6, lla);
free_m:
	rte_pktmbuf_free(m);
}

int
engine_neigh_rx(struct uet_engine_lcore *lc, uint16_t port, struct rte_mbuf *m)
{
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t len = rte_pktmbuf_data_len(m);
	uint16_t et;

	if (len < UET_ETH_HLEN)
		return 0;
	et = rd16(d + 12);
	if (et == ETH_TYPE_ARP) {
		arp_rx(lc, port, m);
		return 1;
	}
	if (et == UET_ETHERTYPE_IPV6 &&
	    len >= UET_ETH_HLEN + UET_IPV6_HLEN + 4 &&
	    d[UET_ETH_HLEN + 6] == IPPROTO_ICMP6 &&
	    (d[UET_ETH_HLEN + UET_IPV6_HLEN] == ICMP6_NS ||
	     d[UET_ETH_HLEN + UET_IPV6_HLEN] == ICMP6_NA)) {
		nd_rx(lc, port, m);
		return 1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* resolution                                                          */
/* ------------------------------------------------------------------ */

static void
neigh_probe(struct uet_engine_lcore *lc, struct engine_neigh *n, uint64_t now)
{
	if (n->ipver == 4)
		(void)arp_request(lc, n->probe_port, n->addr);
	else
		(void)nd_solicit(lc, n->probe_port, n->addr);
	n->probes++;
	n->next_probe_ns = now + ENG_NEIGH_PROBE_NS;
}

int
uet_engine_tx_ip(struct uet_engine_lcore *lc, unsigned int port,
		 struct rte_mbuf *m)
{
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t len = rte_pktmbuf_data_len(m);
	unsigned int ipver, off = UET_ETH_HLEN;
	struct engine_neigh *n;
	uint16_t et;
	int hp;

	if (!uet_engine_lcore_has_port(lc, port)) {
		ENG_INC(lc->st.tx_no_queue);
		return -ENODEV;
	}
	et = len >= UET_ETH_HLEN + UET_VLAN_HLEN ? rd16(d + 12) : 0;
	if (et == UET_ETHERTYPE_VLAN) {
		et = rd16(d + 16);
		off += UET_VLAN_HLEN;
	}
	ipver = et == UET_ETHERTYPE_IPV4 ? 4 : et == UET_ETHERTYPE_IPV6 ? 6 : 0;
	if (ipver == 0 || len < off + (ipver == 4 ? 20u : 40u)) {
		rte_pktmbuf_free(m);
		return -EINVAL;
	}
	/* one of our own addresses: delivered locally, no neighbour */
	hp = engine_local_delivery_port(lc->eng, ipver,
			      d + off + (ipver == 4 ? 16 : 24));
	if (unlikely(hp >= 0))
		return engine_local_delivery_tx(lc, port, (unsigned int)hp, m, off,
				      ipver);
	/* a run of frames to one neighbour: skip the hash (the entry may
	 * have changed since: state and address are checked) */
	n = lc->neigh_last;
	if (likely(n != NULL && n->state >= ENG_NEIGH_VALID &&
		   n->ipver == ipver &&
		   addr_eq(ipver, n->addr, d + off + (ipver == 4 ? 16 : 24)))) {
		ENG_INC(lc->st.neigh_hit);
		return frame_send(lc, port, m, n->mac);
	}
	n = neigh_find(lc, ipver, d + off + (ipver == 4 ? 16 : 24), true);
	if (n == NULL) {
		ENG_INC(lc->st.neigh_full);
		rte_pktmbuf_free(m);
		return 0;
	}
	if (n->state == ENG_NEIGH_VALID || n->state == ENG_NEIGH_STATIC) {
		ENG_INC(lc->st.neigh_hit);
		lc->neigh_last = n;
		return frame_send(lc, port, m, n->mac);
	}
	ENG_INC(lc->st.neigh_miss);
	if (n->nb_hold == UET_ENGINE_NEIGH_HOLD) {
		rte_pktmbuf_free(n->hold[0]);
		ENG_INC(lc->st.neigh_hold_drop);
		memmove(n->hold, n->hold + 1, sizeof(n->hold[0]) * (n->nb_hold - 1));
		memmove(n->hold_port, n->hold_port + 1,
			sizeof(n->hold_port[0]) * (n->nb_hold - 1));
		n->nb_hold--;
	}
	n->hold[n->nb_hold] = m;
	n->hold_port[n->nb_hold] = (uint16_t)port;
	n->nb_hold++;
	if (n->state == ENG_NEIGH_FREE) {
		n->state = ENG_NEIGH_PENDING;
		lc->neigh_pending++;
		n->probe_port = (uint16_t)port;
		neigh_probe(lc, n, lc->now);
	}
	return 0;
}

void
engine_neigh_advance(struct uet_engine_lcore *lc, uint64_t now)
{
	struct engine_neigh_upd u[16];
	unsigned int n;

	n = rte_ring_sc_dequeue_burst_elem(lc->neigh_upd, u, sizeof(u[0]),
					   RTE_DIM(u), NULL);
	for (unsigned int i = 0; i < n; i++) {
		neigh_set(lc, u[i].ipver, u[i].addr, u[i].mac, u[i].is_static);
		ENG_INC(lc->st.neigh_updates);
	}
	/* only resolving entries have timers (learnt ones never age) */
	if (lc->neigh_pending == 0)
		return;
	for (unsigned int i = 0; i < ENG_NEIGH_SWEEP; i++) {
		struct engine_neigh *e = &lc->neigh[lc->neigh_sweep];

		lc->neigh_sweep = (lc->neigh_sweep + 1) %
				  UET_ENGINE_NEIGH_SIZE;
		if (e->state != ENG_NEIGH_PENDING || e->next_probe_ns > now)
			continue;
		if (e->probes >= ENG_NEIGH_MAX_PROBES)
			neigh_release(lc, e);
		else
			neigh_probe(lc, e, now);
	}
}

int
engine_neigh_init(struct uet_engine_lcore *lc)
{
	char name[RTE_RING_NAMESIZE];

	snprintf(name, sizeof(name), "uetnu_%s_%u", lc->eng->name, lc->idx);
	lc->neigh_upd = rte_ring_create_elem(name, sizeof(struct engine_neigh_upd),
					     ENG_NEIGH_UPD_RING, SOCKET_ID_ANY,
					     RING_F_SC_DEQ);
	return lc->neigh_upd != NULL ? 0 : -rte_errno;
}

void
engine_neigh_fini(struct uet_engine_lcore *lc)
{
	for (unsigned int i = 0; i < UET_ENGINE_NEIGH_SIZE; i++)
		if (lc->neigh[i].state != ENG_NEIGH_FREE)
			neigh_release(lc, &lc->neigh[i]);
	rte_ring_free(lc->neigh_upd);
	lc->neigh_upd = NULL;
}

int
engine_neigh_static_all(struct uet_engine *e, unsigned int ipver,
		     const uint8_t addr[16], const uint8_t mac[6])
{
	if (ipver != 4 && ipver != 6)
		return -EINVAL;
	for (unsigned int i = 0; i < e->nb_lcores; i++)
		neigh_set(e->lc[i], ipver, addr, mac, true);
	return 0;
}

int
uet_engine_neigh_add(struct uet_engine *e, unsigned int ip_version,
		     const uint8_t addr[16], const uint8_t mac[6])
{
	struct engine_neigh_upd u = { .ipver = (uint8_t)ip_version,
				   .is_static = 1 };

	if (e == NULL || (ip_version != 4 && ip_version != 6))
		return -EINVAL;
	memcpy(u.mac, mac, 6);
	memcpy(u.addr, addr, ip_version == 4 ? 4 : 16);
	for (unsigned int i = 0; i < e->nb_lcores; i++) {
		if (rte_ring_mp_enqueue_elem(e->lc[i]->neigh_upd, &u,
					     sizeof(u)) != 0)
			return -ENOSPC;
		uet_engine_wake(e, i);
	}
	return 0;
}

int
uet_engine_neigh_lookup(struct uet_engine *e, unsigned int lcore_idx,
			unsigned int ip_version, const uint8_t addr[16],
			uint8_t mac[6])
{
	const struct engine_neigh *n;

	if (e == NULL || lcore_idx >= e->nb_lcores ||
	    (ip_version != 4 && ip_version != 6))
		return -EINVAL;
	n = neigh_find(e->lc[lcore_idx], ip_version, addr, false);
	if (n == NULL)
		return -ENOENT;
	if (n->state == ENG_NEIGH_PENDING)
		return -EAGAIN;
	memcpy(mac, n->mac, 6);
	return 0;
}
