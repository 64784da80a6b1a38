/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Engines on the fabric model (include/pmd-fabric/uet/uet_fabric_eth.h): one
 * pair of rte_rings per emulated host, which its engine opens as a
 * "rings:" port (no ethdev, so the hosts are not bounded by
 * RTE_MAX_ETHPORTS), a service step that moves frames between the host
 * rings and the sans-I/O fabric (src/fabric/), and a driver with a
 * virtual clock.
 *
 * Frames are copied both ways (the fabric keeps its own buffers, and a
 * trimming switch rewrites them); one copy per hop end is cheap next to
 * the engine's own work per frame. A frame the fabric refuses (the host's
 * NIC queue is full: backpressure) stays with the adapter and the host's
 * TX ring is not read until it is taken, so the engine sees a full TX
 * queue as it would on a NIC.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_arp.h>
#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_errno.h>
#include <rte_ether.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include <rte_log.h>

#include <uet/uet_fabric_defaults.h>
#include <uet/uet_fabric_eth.h>

/* the engine's log type: the adapter is part of the engine's setup */
#define FE_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, uet_engine_logtype, "uet.engine: " fmt "\n", \
		##__VA_ARGS__)

#define FE_NAME_MAX 8
#define FE_BURST 32
#define FE_RING_DEFAULT 1024u

struct fabric_eth_host {
	struct rte_ring *rx;   /* adapter -> engine */
	struct rte_ring *tx;   /* engine -> adapter */
	/* taken from tx, not yet injected: [pos, n) (refused by the
	 * fabric, retried first) */
	struct rte_mbuf *stage[FE_BURST];
	uint16_t pos;
	uint16_t n;
	uint8_t mac[6];
};

struct uet_fabric_eth {
	char name[FE_NAME_MAX + 1];
	struct uet_fabric *fab;
	struct rte_mempool *pool;
	uint32_t hosts;
	uint32_t mtu;          /* largest frame the fabric carries */
	uint64_t now;          /* virtual clock */
	struct uet_engine_clock clock;
	struct uet_fabric_eth_stats st;
	uint8_t *scratch;      /* linearised multi-segment frames */
	struct fabric_eth_host host[];
};

/* ------------------------------------------------------------------ */
/* delivery (fabric -> host RX ring)                                   */
/* ------------------------------------------------------------------ */

static void
fabric_eth_rx_put(struct uet_fabric_eth *fe, uint32_t host, struct rte_mbuf *m)
{
	struct rte_ring *r = fe->host[host].rx;
	unsigned int used;

	if (unlikely(rte_ring_sp_enqueue(r, m) != 0)) {
		fe->st.rx_full++;
		rte_pktmbuf_free(m);
		return;
	}
	fe->st.rx_frames++;
	used = rte_ring_count(r);
	if (unlikely(used > fe->st.rx_ring_peak))
		fe->st.rx_ring_peak = used;
}

static void
fabric_eth_deliver(void *arg, uint32_t host, const uint8_t *frame, uint32_t len,
	   uint64_t now)
{
	struct uet_fabric_eth *fe = arg;
	struct rte_mbuf *m;
	char *d;

	(void)now;
	m = rte_pktmbuf_alloc(fe->pool);
	if (unlikely(m == NULL)) {
		fe->st.rx_nombuf++;
		return;
	}
	d = rte_pktmbuf_append(m, (uint16_t)len);
	if (unlikely(d == NULL)) { /* cannot happen: room >= mtu */
		rte_pktmbuf_free(m);
		fe->st.rx_nombuf++;
		return;
	}
	memcpy(d, frame, len);
	fabric_eth_rx_put(fe, host, m);
}

/* ------------------------------------------------------------------ */
/* ARP: the fabric routes IP only, so the adapter answers for the hosts */
/* ------------------------------------------------------------------ */

static int
fabric_eth_host_of_ipv4(const struct uet_fabric_eth *fe, rte_be32_t ip)
{
	uint8_t a[16];

	for (uint32_t h = 0; h < fe->hosts; h++)
		if (uet_fabric_host_addr_get(fe->fab, h, false, a) == 0 &&
		    memcmp(a, &ip, 4) == 0)
			return (int)h;
	return -1;
}

/* An ARP request from @p host: answer it into the host's RX ring when it
 * asks for a fabric host's address. Consumes @p m. */
static void
fabric_eth_arp(struct uet_fabric_eth *fe, uint32_t host, struct rte_mbuf *m)
{
	struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_arp_hdr *ah = (struct rte_arp_hdr *)(eh + 1);
	struct rte_arp_ipv4 *a = &ah->arp_data;
	rte_be32_t sip;
	int t;

	if (rte_pktmbuf_data_len(m) < sizeof(*eh) + sizeof(*ah) ||
	    ah->arp_hardware != RTE_BE16(RTE_ARP_HRD_ETHER) ||
	    ah->arp_protocol != RTE_BE16(RTE_ETHER_TYPE_IPV4) ||
	    ah->arp_hlen != RTE_ETHER_ADDR_LEN || ah->arp_plen != 4 ||
	    ah->arp_opcode != RTE_BE16(RTE_ARP_OP_REQUEST) ||
	    (t = fabric_eth_host_of_ipv4(fe, a->arp_tip)) < 0) {
		fe->st.arp_ignored++;
		rte_pktmbuf_free(m);
		return;
	}
	/* Turn the request into the reply in place. */
	sip = a->arp_sip;
	a->arp_tha = a->arp_sha;
	memcpy(a->arp_sha.addr_bytes, fe->host[t].mac, 6);
	a->arp_sip = a->arp_tip;
	a->arp_tip = sip;
	ah->arp_opcode = RTE_BE16(RTE_ARP_OP_REPLY);
	eh->dst_addr = a->arp_tha;
	memcpy(eh->src_addr.addr_bytes, fe->host[t].mac, 6);
	fe->st.arp_answered++;
	fabric_eth_rx_put(fe, host, m);
}

/* ------------------------------------------------------------------ */
/* transmission (host TX ring -> fabric)                               */
/* ------------------------------------------------------------------ */

/* 0: taken (freed), -ENOBUFS: refused, keep it. */
static int
fabric_eth_inject(struct uet_fabric_eth *fe, uint32_t host, struct rte_mbuf *m,
	  uint64_t now)
{
	uint32_t len = rte_pktmbuf_pkt_len(m);
	const uint8_t *d;
	int rc;

	if (unlikely(len == 0 || len > fe->mtu)) {
		fe->st.tx_bad++;
		rte_pktmbuf_free(m);
		return 0;
	}
	d = rte_pktmbuf_read(m, 0, len, fe->scratch);
	rc = uet_fabric_inject(fe->fab, host, d, len, now);
	if (rc == -ENOBUFS) {
		fe->st.inject_held++;
		return rc;
	}
	if (rc == 0)
		fe->st.injected++;
	else
		fe->st.tx_bad++;
	rte_pktmbuf_free(m);
	return 0;
}

static bool
fabric_eth_is_arp(const struct rte_mbuf *m)
{
	const struct rte_ether_hdr *eh =
		rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);

	return rte_pktmbuf_data_len(m) >= sizeof(*eh) &&
	       eh->ether_type == RTE_BE16(RTE_ETHER_TYPE_ARP);
}

/* Frames of the host's TX ring in order: dequeued in bursts into the
 * host's staging array, left there from the first one the fabric
 * refuses until a later service. */
static unsigned int
fabric_eth_host_tx(struct uet_fabric_eth *fe, uint32_t host, uint64_t now)
{
	struct fabric_eth_host *h = &fe->host[host];
	unsigned int moved = 0;

	for (;;) {
		while (h->pos < h->n) {
			struct rte_mbuf *m = h->stage[h->pos];

			if (unlikely(fabric_eth_is_arp(m)))
				fabric_eth_arp(fe, host, m);
			else if (fabric_eth_inject(fe, host, m, now) != 0)
				return moved;
			h->pos++;
			moved++;
		}
		h->n = (uint16_t)rte_ring_sc_dequeue_burst(
			h->tx, (void **)h->stage, FE_BURST, NULL);
		h->pos = 0;
		fe->st.tx_frames += h->n;
		if (h->n == 0)
			return moved;
	}
}

unsigned int
uet_fabric_eth_service(struct uet_fabric_eth *fe, uint64_t now)
{
	unsigned int moved = 0;
	uint64_t rx0 = fe->st.rx_frames + fe->st.rx_full + fe->st.rx_nombuf;

	for (uint32_t h = 0; h < fe->hosts; h++)
		moved += fabric_eth_host_tx(fe, h, now);
	(void)uet_fabric_advance(fe->fab, now);
	moved += (unsigned int)(fe->st.rx_frames + fe->st.rx_full +
				fe->st.rx_nombuf - rx0);
	return moved;
}

uint64_t
uet_fabric_eth_next_event(const struct uet_fabric_eth *fe)
{
	return uet_fabric_next_event_time(fe->fab);
}

/* ------------------------------------------------------------------ */
/* clock                                                               */
/* ------------------------------------------------------------------ */

static uint64_t
fabric_eth_clock_now(void *arg)
{
	const struct uet_fabric_eth *fe = arg;

	return fe->now;
}

const struct uet_engine_clock *
uet_fabric_eth_clock(const struct uet_fabric_eth *fe)
{
	return &fe->clock;
}

uint64_t
uet_fabric_eth_now(const struct uet_fabric_eth *fe)
{
	return fe->now;
}

void
uet_fabric_eth_set_now(struct uet_fabric_eth *fe, uint64_t now)
{
	if (now > fe->now)
		fe->now = now;
}

/* ------------------------------------------------------------------ */
/* lifecycle                                                           */
/* ------------------------------------------------------------------ */

static bool
fabric_eth_name_ok(const char *n)
{
	size_t len;

	if (n == NULL)
		return false;
	len = strlen(n);
	if (len == 0 || len > FE_NAME_MAX)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!((n[i] >= 'a' && n[i] <= 'z') ||
		      (n[i] >= 'A' && n[i] <= 'Z') ||
		      (n[i] >= '0' && n[i] <= '9')))
			return false;
	return true;
}

static int
fabric_eth_params_check(const struct uet_fabric_eth_params *p, uint32_t *ring)
{
	if (p == NULL || p->fabric == NULL)
		return -EINVAL;
	if (!fabric_eth_name_ok(p->name)) {
		FE_LOG(ERR, "fabric adapter: name must be 1..%d letters or "
			"digits", FE_NAME_MAX);
		return -EINVAL;
	}
	*ring = p->ring_size != 0 ? p->ring_size : FE_RING_DEFAULT;
	if (!rte_is_power_of_2(*ring) || *ring < 64 || *ring > 16384) {
		FE_LOG(ERR, "fabric %s: ring_size %u is not a power of two "
			"in 64..16384", p->name, *ring);
		return -EINVAL;
	}
	/* an mbuf must hold a whole delivered frame */
	if (p->fabric->mtu > UINT16_MAX - RTE_PKTMBUF_HEADROOM) {
		FE_LOG(ERR, "fabric %s: mtu %u does not fit an mbuf",
			p->name, p->fabric->mtu);
		return -EINVAL;
	}
	return 0;
}

static int
fabric_eth_host_create(struct uet_fabric_eth *fe, uint32_t h, uint32_t ring)
{
	struct fabric_eth_host *hs = &fe->host[h];
	char n[RTE_RING_NAMESIZE];

	hs->mac[0] = 0x02;
	hs->mac[1] = 0xfa;
	hs->mac[4] = (uint8_t)((h + 1) >> 8);
	hs->mac[5] = (uint8_t)(h + 1);
	snprintf(n, sizeof(n), "%sh%urx", fe->name, h);
	hs->rx = rte_ring_create(n, ring, SOCKET_ID_ANY,
				 RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (hs->rx == NULL)
		return -rte_errno;
	snprintf(n, sizeof(n), "%sh%utx", fe->name, h);
	hs->tx = rte_ring_create(n, ring, SOCKET_ID_ANY,
				 RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (hs->tx == NULL)
		return -rte_errno;
	return 0;
}

static void
fabric_eth_ring_drain(struct rte_ring *r)
{
	void *m;

	while (r != NULL && rte_ring_sc_dequeue(r, &m) == 0)
		rte_pktmbuf_free(m);
}

void
uet_fabric_eth_drain(struct uet_fabric_eth *fe)
{
	if (fe == NULL)
		return;
	for (uint32_t h = 0; h < fe->hosts; h++) {
		struct fabric_eth_host *hs = &fe->host[h];

		for (uint16_t i = hs->pos; i < hs->n; i++)
			rte_pktmbuf_free(hs->stage[i]);
		hs->pos = 0;
		hs->n = 0;
		fabric_eth_ring_drain(hs->rx);
		fabric_eth_ring_drain(hs->tx);
	}
}

void
uet_fabric_eth_free(struct uet_fabric_eth *fe)
{
	if (fe == NULL)
		return;
	uet_fabric_eth_drain(fe);
	for (uint32_t h = 0; h < fe->hosts; h++) {
		rte_ring_free(fe->host[h].rx);
		rte_ring_free(fe->host[h].tx);
	}
	uet_fabric_free(fe->fab);
	rte_mempool_free(fe->pool);
	rte_free(fe->scratch);
	rte_free(fe);
}

/*
 * Delivery mbufs: a delivered frame waits in its host's RX ring only
 * until the engine's next round, and the fabric holds at most frame_pool
 * frames, so a service cannot deliver more than that; 64 more per host
 * for the frames the engines have not read yet (in virtual time one frame
 * at most was seen waiting in a ring: rx_ring_peak). Never more than the
 * rings can hold.
 */
static uint32_t
fabric_eth_mbufs_default(const struct uet_fabric_config *fc, uint32_t hosts,
		 uint32_t ring)
{
	uint64_t full = (uint64_t)hosts * (ring + 64);
	uint64_t need = (uint64_t)fc->frame_pool + (uint64_t)hosts * 64;

	need = RTE_MIN(need, full);
	return (uint32_t)RTE_MIN(need, (uint64_t)UINT32_MAX);
}

struct uet_fabric_eth *
uet_fabric_eth_create(const struct uet_fabric_eth_params *p, int *err)
{
	struct uet_fabric_config fc;
	struct uet_fabric_eth *fe = NULL;
	char n[RTE_MEMPOOL_NAMESIZE];
	uint32_t ring, hosts, mbufs;
	const char *why = NULL;
	int rc;

	rc = fabric_eth_params_check(p, &ring);
	if (rc < 0)
		goto fail;
	fc = *p->fabric;
	fc.deliver = fabric_eth_deliver;
	fc.deliver_arg = NULL; /* set below, once the adapter exists */
	rc = uet_fabric_config_check(&fc, &why);
	if (rc < 0) {
		FE_LOG(ERR, "fabric %s: bad configuration: %s", p->name, why);
		goto fail;
	}
	hosts = fc.topo == UET_FABRIC_TOPO_FAT_TREE ? fc.k * fc.k * fc.k / 4 :
						     fc.hosts;
	fe = rte_zmalloc("uet_fabric_eth",
			 sizeof(*fe) + hosts * sizeof(fe->host[0]), 0);
	if (fe == NULL) {
		rc = -ENOMEM;
		goto fail;
	}
	snprintf(fe->name, sizeof(fe->name), "%s", p->name);
	fe->hosts = hosts;
	fe->mtu = fc.mtu;
	fe->now = p->start_ns;
	fe->clock.now = fabric_eth_clock_now;
	fe->clock.arg = fe;
	fc.deliver_arg = fe;
	fe->fab = uet_fabric_create(&fc, &rc);
	fe->scratch = rte_malloc("uet_fabric_eth", fc.mtu, 0);
	if (fe->fab == NULL || fe->scratch == NULL) {
		rc = fe->fab == NULL ? rc : -ENOMEM;
		goto free_fe;
	}
	if (uet_fabric_hosts(fe->fab) != hosts) {
		rc = -EINVAL;
		goto free_fe;
	}
	mbufs = p->mbufs != 0 ? p->mbufs : fabric_eth_mbufs_default(&fc, hosts, ring);
	snprintf(n, sizeof(n), "fe_%s", fe->name);
	fe->pool = uet_engine_mbuf_pool_cpu(n, mbufs, 0,
			(uint16_t)(fc.mtu + RTE_PKTMBUF_HEADROOM), SOCKET_ID_ANY);
	if (fe->pool == NULL) {
		rc = rte_errno == EEXIST ? -EEXIST : -ENOMEM;
		goto free_fe;
	}
	for (uint32_t h = 0; h < hosts; h++) {
		rc = fabric_eth_host_create(fe, h, ring);
		if (rc < 0)
			goto free_fe;
	}
	return fe;
free_fe:
	uet_fabric_eth_free(fe);
fail:
	if (err != NULL)
		*err = rc < 0 ? rc : -EINVAL;
	return NULL;
}

struct uet_fabric *
uet_fabric_eth_fabric(struct uet_fabric_eth *fe)
{
	return fe->fab;
}

uint32_t
uet_fabric_eth_hosts(const struct uet_fabric_eth *fe)
{
	return fe->hosts;
}

int
uet_fabric_eth_host_mac(const struct uet_fabric_eth *fe, uint32_t host,
			uint8_t mac[6])
{
	if (host >= fe->hosts)
		return -EINVAL;
	memcpy(mac, fe->host[host].mac, 6);
	return 0;
}

int
uet_fabric_eth_port_config(const struct uet_fabric_eth *fe, uint32_t host,
			   struct uet_config *cfg, unsigned int port)
{
	struct uet_config_port *cp;
	uint8_t a[16];

	if (host >= fe->hosts || port >= UET_CONFIG_MAX_PORTS ||
	    uet_fabric_host_addr_get(fe->fab, host, false, a) != 0)
		return -EINVAL;
	cp = &cfg->port[port];
	/* the engine sends IP MTU + Ethernet header (VLAN tags: + 4);
	 * auto on a "rings:" port is the Ethernet MTU */
	if ((uint32_t)(cp->mtu ? cp->mtu : UET_CONFIG_MTU_ETHERNET) +
	    RTE_ETHER_HDR_LEN + 4 > fe->mtu)
		return -EINVAL;
	cp->defined = true;
	cp->rx_queues = 1;
	cp->tx_queues = 1;
	snprintf(cp->devargs, sizeof(cp->devargs), "rings:%sh%u",
		 fe->name, host);
	cp->has_ipv4 = true;
	memcpy(&cp->ipv4, a, 4);
	cp->has_ipv6 = false;
	cp->has_mac = true;
	memcpy(cp->mac, fe->host[host].mac, 6);
	return 0;
}

void
uet_fabric_eth_stats_get(const struct uet_fabric_eth *fe,
			 struct uet_fabric_eth_stats *s)
{
	*s = fe->st;
}

/* ------------------------------------------------------------------ */
/* driver                                                              */
/* ------------------------------------------------------------------ */

static uint64_t
fabric_eth_engines_next(const struct uet_fabric_eth_run *r)
{
	uint64_t t = UINT64_MAX;

	for (unsigned int i = 0; i < r->nb_eng; i++)
		t = RTE_MIN(t, uet_engine_next_deadline(r->eng[i]));
	if (r->next != NULL)
		t = RTE_MIN(t, r->next(r->arg));
	return t;
}

/*
 * Virtual time, after a round in which nothing moved: another round at
 * the same time would do nothing either. Jump to the next thing due. The
 * idle engines can only be woken by a delivery or by one of their timers,
 * so fabric events before the first engine timer are run without
 * polling the engines (their deadlines cannot change meanwhile) until one
 * delivers a frame. A timer the engines report at or before now (a PDS
 * wheel catching up) moves the clock by 1 ns, which bounds the loop.
 */
static int
fabric_eth_idle_advance(struct uet_fabric_eth *fe, const struct uet_fabric_eth_run *r,
		struct uet_fabric_eth_run_stats *st)
{
	uint64_t eng = fabric_eth_engines_next(r);

	for (;;) {
		uint64_t t = RTE_MIN(uet_fabric_next_event_time(fe->fab), eng);

		if (t == UINT64_MAX)
			return -EDEADLK;
		if (t <= fe->now)
			t = fe->now + 1;
		if (r->until_ns != 0 && t > r->until_ns) {
			fe->now = r->until_ns;
			return -ETIMEDOUT;
		}
		fe->now = t;
		st->jumps++;
		if (t >= eng || uet_fabric_eth_service(fe, t) != 0)
			return 0;
	}
}

int
uet_fabric_eth_run(struct uet_fabric_eth *fe,
		   const struct uet_fabric_eth_run *r,
		   struct uet_fabric_eth_run_stats *st)
{
	struct uet_fabric_eth_run_stats local;
	int rc = 0;

	if (st == NULL)
		st = &local;
	memset(st, 0, sizeof(*st));
	if (fe == NULL || r == NULL || r->done == NULL ||
	    (r->nb_eng > 0 && r->eng == NULL))
		return -EINVAL;
	while (!r->done(r->arg)) {
		uint64_t now;
		unsigned int work = 0;

		if (r->max_iterations != 0 &&
		    st->iterations >= r->max_iterations) {
			rc = -ETIMEDOUT;
			break;
		}
		for (unsigned int i = 0; i < r->nb_eng; i++) {
			int w = uet_engine_poll(r->eng[i], 1);

			if (w < 0) {
				rc = w;
				goto out;
			}
			work += (unsigned int)w;
		}
		if (r->poll != NULL)
			work += r->poll(r->arg);
		now = r->virtual_time || r->nb_eng == 0 ? fe->now :
			uet_engine_now(r->eng[0]);
		work += uet_fabric_eth_service(fe, now);
		st->iterations++;
		if (!r->virtual_time) {
			fe->now = now;
			if (r->until_ns != 0 && now >= r->until_ns) {
				rc = -ETIMEDOUT;
				break;
			}
			continue;
		}
		if (work == 0) {
			rc = fabric_eth_idle_advance(fe, r, st);
			if (rc < 0)
				break;
		}
	}
out:
	st->end_ns = fe->now;
	return rc;
}

/* ------------------------------------------------------------------ */
/* the [fabric] section                                                */
/* ------------------------------------------------------------------ */

static uint32_t
fabric_eth_milli(double bdp)
{
	return (uint32_t)(bdp * 1000.0 + 0.5);
}

void
uet_fabric_eth_config_from(const struct uet_config_fabric *in,
			   struct uet_fabric_config *out)
{
	uet_fabric_config_default(out);
	out->topo = in->topology == UET_CONFIG_FABRIC_FAT_TREE ?
		    UET_FABRIC_TOPO_FAT_TREE : UET_FABRIC_TOPO_LEAF_SPINE;
	out->hosts = in->hosts;
	out->hosts_per_leaf = in->hosts_per_leaf;
	out->spines = in->spines;
	out->k = in->k;
	out->link_rate_bps = (uint64_t)in->link_rate_mbps * 1000000u;
	out->link_delay_ns = in->link_delay_ns;
	out->base_rtt_ns = in->base_rtt_ns;
	out->mtu = in->mtu + UET_FABRIC_L2_BYTES;
	out->frame_pool = in->frame_pool;
	out->host_queue_bytes = (uint32_t)RTE_MIN(in->host_queue,
						  (uint64_t)UINT32_MAX);
	out->trimming = in->trimming;
	out->ecn = in->ecn;
	out->ecn_min_milli = fabric_eth_milli(in->ecn_min);
	out->ecn_max_milli = fabric_eth_milli(in->ecn_max);
	out->trim_milli = fabric_eth_milli(in->trim);
	out->trim_retx_milli = fabric_eth_milli(in->trim_retx);
	out->drop_milli = fabric_eth_milli(in->queue);
	out->control_drop_milli = out->drop_milli;
	out->loss_ppm = in->loss_ppm;
	out->failover = in->failover;
	out->seed = in->seed;
	out->schedule_max = RTE_MAX(out->schedule_max,
				    (uint32_t)UET_CONFIG_FABRIC_EVENTS_MAX);
}

int
uet_fabric_eth_schedule(struct uet_fabric_eth *fe,
			const struct uet_config_fabric *in, uint64_t t0,
			unsigned int *line)
{
	/* enum uet_config_fabric_tier and enum uet_fabric_tier agree */
	RTE_BUILD_BUG_ON(UET_CONFIG_FABRIC_CORE != (int)UET_FABRIC_TIER_CORE);
	for (unsigned int i = 0; i < in->nb_events; i++) {
		const struct uet_config_fabric_event *e = &in->event[i];
		static const enum uet_fabric_link_action act[] = {
			[UET_CONFIG_FABRIC_FAIL] = UET_FABRIC_LINK_FAIL,
			[UET_CONFIG_FABRIC_RESTORE] = UET_FABRIC_LINK_RESTORE,
			[UET_CONFIG_FABRIC_RATE] = UET_FABRIC_LINK_RATE,
		};
		int link = uet_fabric_link_find(fe->fab,
			(enum uet_fabric_tier)e->tier[0], e->index[0],
			(enum uet_fabric_tier)e->tier[1], e->index[1]);
		int rc = link;

		if (link >= 0 && e->action < RTE_DIM(act))
			rc = uet_fabric_link_schedule(fe->fab, (uint32_t)link,
				t0 + e->at_ns, act[e->action],
				(uint64_t)e->rate_mbps * 1000000u);
		else if (link >= 0)
			rc = -EINVAL;
		if (rc < 0) {
			if (line != NULL)
				*line = i;
			return rc;
		}
	}
	return 0;
}
