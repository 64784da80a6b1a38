/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Engines on the fabric model in virtual time (pmd/fabric/fabric_eth.c), one EAL
 * process (--no-huge), every engine inline on this thread: 8 emulated
 * hosts on a leaf/spine (4 leaves of 2 hosts, 2 spines, 100 Gb/s, 1 us
 * links; 16 on the fat tree), each an unchanged engine + PDS hook + the uet-perf raw-PDS ULP
 * (apps/uet-perf/test_ulp.c: numbered messages, byte-exact payload check,
 * per-packet delivery counts). Neighbours are resolved by ARP, answered by
 * the adapter. The virtual clock jumps whenever every engine and the
 * fabric are idle.
 *
 *   permutation  host h sends to host h + 2 (the next leaf): every
 *                message delivered exactly once and byte-exact
 *   incast       hosts 1..7 send to host 0 with trimming and ECN on:
 *                queues build at host 0's leaf, frames are trimmed (the
 *                engine drops them as malformed today, so the PDS
 *                recovers them as losses) and marked; still every
 *                message exactly once and byte-exact
 *   fat tree     the same permutation on a K = 4 fat tree (16 hosts),
 *                host h to host h + 4 (another pod), ECN and trimming on
 *   one flow     host 0 to host 2 alone: single path puts every frame on
 *                one of leaf 0's two spine uplinks, oblivious spraying
 *                about half on each (the EV the PDS chose reaches the
 *                wire as the UDP source port: nothing rewrites it)
 *   spray+fail   the permutation sprayed (REPS with 128 packets in
 *                flight per flow, oblivious with 64), trimming and ECN
 *                on, the cable between leaf 0 and spine 0 failing for
 *                good 50 us into the run (no local failover): frames
 *                lost on it, trims (REPS), REPS freezes; every message
 *                exactly once and byte-exact
 *   determinism  each scenario runs twice: identical counters
 *   [fabric]     the configuration section mapped onto the model and
 *                its schedule lines applied (uet_fabric_eth_config_from,
 *                uet_fabric_eth_schedule); the application's next
 *                deadline bounds a clock jump
 *
 * "lb" (not run by meson): the load-balancing measurement of
 * docs/CONGESTION.md (16 hosts, 4 spines, 4 KiB MTU); LB_DEBUG=1 in the
 * environment adds each flow's completion time.
 * "real" (not run by meson): the permutation on the engines' TSC clock.
 * "bench" (not run by meson): idle iterations per second, TSC vs virtual
 * clock.
 *
 * Bounded by iterations and virtual time; no wall-clock assertion (the
 * wall time is printed, for the emulator's speed).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_arp.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <rte_telemetry.h>
#include <rte_udp.h>

#include <uet/uet_engine.h>
#include <uet/uet_fabric.h>
#include <uet/uet_fabric_eth.h>
#include <uet/uet_ulp.h>

#include "itest.h"
#include "perf.h"

#define HOSTS 8      /* leaf/spine scenarios */
#define HOSTS_MAX 32 /* measure: 31:1 on 32 hosts */
#define MAX_NS (2ull * 1000 * 1000 * 1000) /* virtual time bound */

struct scenario {
	const char *name;
	bool incast;       /* else permutation */
	bool trim_ecn;     /* fabric trimming and ECN marking */
	uint32_t size;     /* message bytes */
	uint64_t count;    /* messages per sender */
	uint32_t window;   /* packets in flight per sender */
	bool real;         /* the engines' TSC clock, no jumps */
	bool fat_tree;     /* fat tree (K = 4: 16 hosts), else leaf/spine */
	unsigned int shift; /* permutation: host h sends to h + shift */
	enum uet_config_spray_mode spray; /* [spray] mode of every engine */
	bool one_flow;     /* only host 0 sends (to host shift) */
	uint64_t fail_ns;  /* leaf 0 - spine 0 fails then (0: never) */
	unsigned int senders; /* incast: hosts 1..senders (0: all others) */
	int cc;            /* enum uet_config_cc_algo of every engine */
	/* "measure" (not run by meson) */
	unsigned int k;    /* fat tree K (0: 4) */
	unsigned int hosts; /* leaf/spine hosts (0: 8; 32: 8 leaves of 4,
			     * 4 spines) */
	uint32_t mtu;      /* engines' IP MTU (0: 1500) */
	uint32_t loss_ppm; /* random loss per link traversal */
	bool measure;      /* flow completion times, no CC assertions */
};

/* What two runs of a scenario must agree on. */
struct signature {
	uint64_t end_ns, jumps, iterations;
	struct uet_fabric_stats fab;
	struct uet_fabric_eth_stats fe;
	uint64_t engine_tx[HOSTS_MAX], engine_rx[HOSTS_MAX], retx[HOSTS_MAX];
	uint64_t rx_malformed;
	uint64_t neigh_hold_drop;
	uint64_t up_frames[2];  /* leaf 0 -> spine 0 / 1 */
	uint64_t drops_link;    /* lost to the failed cable */
	uint64_t lb_freezes, lb_recycled, lb_explored;
	/* incast: the leaf port to host 0 (the bottleneck) */
	struct uet_fabric_port_stats bottleneck;
	/* every pattern: the switch port whose data queue grew deepest */
	struct uet_fabric_port_stats deepest;
	struct uet_pds_cc_stats cc[HOSTS_MAX];
};

struct run_state {
	struct test_ulp *r[HOSTS_MAX];
	bool sender[HOSTS_MAX];
	uint64_t expect[HOSTS_MAX];
	/* measure: when each sender's flow was complete at its receiver */
	struct uet_fabric_eth *fe;
	const struct scenario *sc;
	uint64_t flow_done_ns[HOSTS_MAX];
};

static unsigned int run_no;
static unsigned int nh = HOSTS; /* hosts of the scenario running */
static const struct scenario no_cc; /* outside run(): fixed window */
static const struct scenario *cur = &no_cc; /* the scenario running */
/* engine_make(): host 0 (clock_bench) or every host (real) on the TSC */
static bool bench_real_clock;
static bool all_real_clock;
/* engine_make(): [spray] mode of the scenario running */
static enum uet_config_spray_mode spray_mode;
/* engine_make() for the "lb" measurement: IP MTU 4 KiB, static
 * neighbours (host h talks to h - shift and h + shift) */
static bool lb_big;
static unsigned int lb_shift;

/* Record the virtual time at which each flow was complete: all its
 * messages at its receiver (checked every round of the driver). */
static void
flows_note(struct run_state *s)
{
	const struct scenario *sc = s->sc;
	struct test_ulp_flow fl;

	for (unsigned int h = 0; h < nh; h++) {
		if (!s->sender[h] || s->flow_done_ns[h] != 0)
			continue;
		if (sc->incast) {
			if (test_ulp_flow_get(s->r[0], h - 1, sc->count,
					      &fl) != 0 ||
			    fl.msgs < sc->count)
				continue;
		} else if (test_ulp_live(s->r[(h + sc->shift) % nh])->rx_msgs <
			   sc->count) {
			continue;
		}
		s->flow_done_ns[h] = uet_fabric_eth_now(s->fe);
	}
}

static bool
all_done(void *arg)
{
	struct run_state *s = arg;

	if (s->sc != NULL && s->sc->measure)
		flows_note(s);
	for (unsigned int h = 0; h < nh; h++) {
		if (s->sender[h] && !test_ulp_send_finished(s->r[h]))
			return false;
		if (test_ulp_live(s->r[h])->rx_msgs < s->expect[h])
			return false;
	}
	return true;
}

static bool
never(void *arg)
{
	(void)arg;
	return false;
}

static void
fabric_cfg(struct uet_fabric_config *fc, bool trim_ecn)
{
	uet_fabric_config_default(fc);
	fc->topo = UET_FABRIC_TOPO_LEAF_SPINE;
	fc->hosts = HOSTS;
	fc->hosts_per_leaf = 2;
	fc->spines = 2;
	fc->k = 4;
	fc->link_rate_bps = 100000000000ull;
	fc->link_delay_ns = 1000;
	fc->mtu = 1518;
	fc->frame_pool = 4096;
	fc->loss_ppm = cur->loss_ppm;
	if (cur->hosts) {
		fc->hosts = cur->hosts;
		fc->hosts_per_leaf = 4;
		fc->spines = 4;
	}
	if (cur->mtu) {
		/* the engines' IP MTU with Ethernet and VLAN headers */
		fc->mtu = cur->mtu + 18 + 4;
		fc->frame_pool = 32768;
	}
	fc->trimming = trim_ecn;
	fc->ecn = trim_ecn;
	fc->seed = 11;
	fc->failover = false; /* a failed link loses what ECMP sends it */
}

static void
test_ulp_setup(const struct scenario *sc, const struct uet_fabric_eth *fe,
	       unsigned int h, struct test_ulp_params *p, struct run_state *s)
{
	unsigned int dst = sc->incast ? 0 : (h + sc->shift) % nh;
	unsigned int senders = sc->senders ? sc->senders : nh - 1;
	uint8_t a[16];

	memset(p, 0, sizeof(*p));
	p->mode = UET_PDS_MODE_RUD;
	p->size = sc->size;
	p->window = sc->window;
	p->expect_size = sc->size;
	if (sc->one_flow) {
		p->expect = h == sc->shift ? sc->count : 0;
		s->expect[h] = p->expect;
		if (h != 0)
			return;
	}
	if (!sc->incast || (h != 0 && h <= senders)) {
		(void)uet_fabric_host_addr_get(
			uet_fabric_eth_fabric((struct uet_fabric_eth *)fe), dst,
			false, a);
		memset(&p->peer, 0, sizeof(p->peer));
		memcpy(p->peer.addr, a, 4);
		p->count = sc->count;
		s->sender[h] = true;
	}
	if (sc->incast) {
		/* host 0 receives 7 flows, sender i numbers from i * count */
		p->seq_base = h == 0 ? 0 : (h - 1) * sc->count;
		if (h == 0) {
			p->expect = senders * sc->count;
			p->flows = senders;
			p->flow_span = sc->count;
		}
	} else if (!sc->one_flow) {
		p->expect = sc->count;
	}
	s->expect[h] = p->expect;
}

/* Static neighbours of host @p h in the "lb" measurement (no ARP wait:
 * the first packets are not held or dropped). */
static void
lb_neighbours(const struct uet_fabric_eth *fe, unsigned int h,
	      struct uet_config *c)
{
	unsigned int peer[2] = { (h + lb_shift) % nh,
				 (h + nh - lb_shift) % nh };
	uint8_t a[16];

	for (unsigned int i = 0; i < 2; i++) {
		struct uet_config_neighbor *n = &c->neighbor[c->nb_neighbors++];

		(void)uet_fabric_host_addr_get(
			uet_fabric_eth_fabric((struct uet_fabric_eth *)fe),
			peer[i], false, a);
		n->ip.family = AF_INET;
		memcpy(&n->ip.v4, a, 4);
		(void)uet_fabric_eth_host_mac(fe, peer[i], n->mac);
	}
}

static struct uet_fabric_thresholds th_cur; /* of the fabric running */

/* measure: the peers as static neighbours, so that no flow starts with
 * frames dropped awaiting ARP (at most 64 entries: the 64:1 receiver's) */
static void
static_neighbours(const struct uet_fabric_eth *fe, unsigned int h,
		  struct uet_config *c)
{
	static struct uet_config peer;
	unsigned int senders = cur->senders ? cur->senders : nh - 1;

	for (unsigned int j = 0; j < nh && c->nb_neighbors < 64; j++) {
		bool want = cur->incast ? (h == 0 ? j >= 1 && j <= senders :
						    j == 0) :
				(j == (h + cur->shift) % nh ||
				 h == (j + cur->shift) % nh);
		struct uet_config_neighbor *n;

		if (!want || j == h)
			continue;
		uet_config_init_defaults(&peer);
		if (uet_fabric_eth_port_config(fe, j, &peer, 0) != 0)
			continue;
		n = &c->neighbor[c->nb_neighbors++];
		memset(n, 0, sizeof(*n));
		n->ip.family = AF_INET;
		memcpy(&n->ip.v4, &peer.port[0].ipv4, 4);
		memcpy(n->mac, peer.port[0].mac, 6);
	}
}

static struct uet_engine *
engine_make(const struct uet_fabric_eth *fe, unsigned int h,
	    struct uet_proto_params *pp, struct uet_pds_config *pds)
{
	struct uet_engine_params ep = {
		.hook = &uet_proto_hook_ops, .hook_arg = pp,
	};
	static const uint8_t zero[6];
	struct uet_config c;
	struct uet_engine *e;
	char name[16];

	itest_cfg_ring(&c, "unused", zero, zero, zero, zero);
	c.nb_neighbors = 0; /* resolved by ARP (the adapter answers) */
	c.engine.mbuf_pool_size = nh > 16 ? 1023 : 2047;
	c.engine.mbuf_cache = 32;
	if (lb_big) {
		c.port[0].mtu = 4096;
		c.engine.mbuf_size = 4096 + 256 + RTE_PKTMBUF_HEADROOM;
		c.engine.mbuf_pool_size = 1023;
		lb_neighbours(fe, h, &c);
	}
	if (cur->mtu) {
		c.port[0].mtu = (uint16_t)cur->mtu;
		c.engine.mbuf_size = cur->mtu + 256;
	}
	if (uet_fabric_eth_port_config(fe, h, &c, 0) != 0)
		return NULL;
	c.spray.mode = spray_mode;
	if (cur->measure)
		static_neighbours(fe, h, &c);
	/* [cc]: the fabric's base RTT and link rate (every link alike) */
	c.cc.algorithm = (enum uet_config_cc_algo)cur->cc;
	c.cc.link_speed_mbps = 100000;
	if (th_cur.base_rtt_ns != 0) /* 0: no fabric measured yet */
		c.cc.base_rtt_ns = th_cur.base_rtt_ns;
	c.cc.trimming = cur->trim_ecn;
	/* every host starts with the emulated fabric: nothing sent to an
	 * earlier incarnation is in it (as uet-perf --fabric) */
	c.timers.syn_quiet = false;
	uet_proto_pds_config(&c, pds);
	pds->seed = 1000 + h; /* reproducible Start_PSNs */
	pp->pds = pds;
	snprintf(name, sizeof(name), "fx%uh%u", run_no, h);
	ep.cfg = &c;
	ep.name = name;
	/* clock_bench: host 0 keeps the default (TSC) clock */
	ep.clock = (bench_real_clock && h == 0) || all_real_clock ? NULL :
						uet_fabric_eth_clock(fe);
	e = uet_engine_create(&ep);
	if (e == NULL)
		fprintf(stderr, "engine %s: %s\n", name,
			rte_strerror(rte_errno));
	return e;
}

static double
wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void
check_delivery(const struct scenario *sc, struct run_state *s)
{
	for (unsigned int h = 0; h < nh; h++) {
		struct test_ulp_result res;

		test_ulp_result(s->r[h], &res);
		if (s->sender[h]) {
			CHECK(res.msgs_sent == sc->count);
			CHECK(res.pkts_done_err == 0);
		}
		CHECK(res.rx_msgs == s->expect[h]);
		CHECK(res.rx_lost == 0);
		CHECK(res.rx_dup == 0);
		CHECK(res.rx_bad == 0);
	}
}

/* Port of the cable leaf 0 - spine @p spine leaving the leaf. */
static int
uplink_port(const struct uet_fabric *fab, uint32_t spine, uint32_t *port)
{
	struct uet_fabric_link_info li;
	int link = uet_fabric_link_find(fab, UET_FABRIC_TIER_LEAF, 0,
					UET_FABRIC_TIER_SPINE, spine);

	if (link < 0 || uet_fabric_link_info(fab, (uint32_t)link, &li) < 0)
		return -1;
	*port = li.tier[0] == UET_FABRIC_TIER_LEAF ? li.port[0] : li.port[1];
	return link;
}

static void
uplinks_take(struct signature *g, const struct uet_fabric *fab)
{
	struct uet_fabric_port_stats ps;
	uint32_t port;

	for (uint32_t sp = 0; sp < 2; sp++) {
		int link = uplink_port(fab, sp, &port);
		struct uet_fabric_link_info li;

		if (link < 0 || uet_fabric_port_stats(fab, port, &ps) < 0)
			continue;
		g->up_frames[sp] = ps.tx_frames;
		g->drops_link += ps.drops_link;
		/* and the other direction of the cable */
		(void)uet_fabric_link_info(fab, (uint32_t)link, &li);
		if (uet_fabric_port_stats(fab, li.port[0] == port ?
					  li.port[1] : li.port[0], &ps) == 0)
			g->drops_link += ps.drops_link;
	}
}

/* The deepest switch output queue: what MEASURE reports for a pattern
 * without one bottleneck (it printed 0 B there, beside thousands of trims,
 * which only a queue above the trim threshold makes). */
static void
deepest_take(struct signature *g, const struct uet_fabric *fab)
{
	struct uet_fabric_link_info li;
	struct uet_fabric_port_stats ps;

	memset(&g->deepest, 0, sizeof(g->deepest));
	for (uint32_t l = 0; l < uet_fabric_links(fab); l++) {
		if (uet_fabric_link_info(fab, l, &li) < 0)
			continue;
		for (unsigned int d = 0; d < 2; d++) {
			if (li.tier[d] == UET_FABRIC_TIER_HOST)
				continue; /* a host's NIC: not a switch queue */
			if (uet_fabric_port_stats(fab, li.port[d], &ps) == 0 &&
			    ps.data_max > g->deepest.data_max)
				g->deepest = ps;
		}
	}
}

static void
signature_take(struct signature *g, struct uet_fabric_eth *fe,
	       struct uet_engine *const *eng)
{
	static struct uet_engine_stats st;

	uplinks_take(g, uet_fabric_eth_fabric(fe));
	deepest_take(g, uet_fabric_eth_fabric(fe));
	uet_fabric_stats_get(uet_fabric_eth_fabric(fe), &g->fab);
	uet_fabric_eth_stats_get(fe, &g->fe);
	g->rx_malformed = 0;
	g->neigh_hold_drop = 0;
	for (unsigned int h = 0; h < nh; h++) {
		const struct uet_ulp_stats *u =
			uet_ulp_ctx_stats(uet_ulp_ctx_get(eng[h], 0));
		const struct uet_pds_stats *p =
			uet_pds_stats_get(uet_ulp_ctx_pds(
				uet_ulp_ctx_get(eng[h], 0)));

		(void)uet_engine_stats_get(eng[h], &st);
		g->engine_tx[h] = st.total.tx_pkts;
		g->engine_rx[h] = st.total.rx_pkts;
		g->rx_malformed += st.total.rx_malformed;
		g->neigh_hold_drop += st.total.neigh_hold_drop;
		g->retx[h] = u->tx_retx;
		g->lb_freezes += p->lb_freezes;
		g->lb_recycled += p->lb_recycled;
		g->lb_explored += p->lb_explored;
		uet_pds_cc_stats_get(uet_ulp_ctx_pds(uet_ulp_ctx_get(eng[h],
								     0)),
				     &g->cc[h]);
	}
	if (cur->cc != UET_CONFIG_CC_NONE) {
		/* /uet/cc answers for an engine of the PDS hook (slot 0:
		 * host 0, the first created) */
		struct rte_tel_data *d = rte_tel_data_alloc();

		CHECK(d != NULL);
		if (d != NULL) {
			CHECK(uet_engine_telemetry_call("/uet/cc", "0", d) == 0);
			rte_tel_data_free(d);
		}
	}
	if (cur->incast) {
		const struct uet_fabric *fab = uet_fabric_eth_fabric(fe);
		int link = uet_fabric_link_find(fab, UET_FABRIC_TIER_LEAF, 0,
						UET_FABRIC_TIER_HOST, 0);
		struct uet_fabric_link_info li;

		CHECK(link >= 0 &&
		      uet_fabric_link_info(fab, (uint32_t)link, &li) == 0);
		CHECK(uet_fabric_port_stats(fab, li.tier[0] ==
					    UET_FABRIC_TIER_LEAF ?
					    li.port[0] : li.port[1],
					    &g->bottleneck) == 0);
	}
}

/* The incast's bottleneck and what the congestion control did. */
static void
cc_report(const struct scenario *sc, const struct signature *g,
	  const struct uet_fabric_eth_run_stats *rs, uint64_t t_start)
{
	const struct uet_fabric_port_stats *b = &g->bottleneck;
	uint64_t act[11] = { 0 }, grants = 0, probes = 0;

	for (unsigned int h = 0; h < nh; h++) {
		for (unsigned int i = 0; i < 11; i++)
			act[i] += g->cc[h].act[i];
		grants += g->cc[h].grants;
		probes += g->cc[h].probe_acks;
	}
	uint64_t pkts = (uint64_t)(sc->senders ? sc->senders : nh - 1) *
			sc->count * ((sc->size + 1399) / 1400);

	printf("%-12s BDP %" PRIu64 " B (base RTT %" PRIu64 " ns), ECN %"
	       PRIu64 "..%" PRIu64 " B, trim above %" PRIu64 " B\n", sc->name,
	       th_cur.bdp, th_cur.base_rtt_ns, th_cur.ecn_min, th_cur.ecn_max,
	       th_cur.trim);
	printf("%-12s bottleneck: max %" PRIu64 " B, p50 %" PRIu64
	       " B, p99 %" PRIu64 " B, %" PRIu64 " marks, %" PRIu64
	       " trims, busy %.1f%%; NSCC: %" PRIu64 " MD, %" PRIu64
	       " QA, %" PRIu64 " fair, %" PRIu64 " prop, %" PRIu64
	       " fast, %" PRIu64 " decrease; %" PRIu64 " probes; RCCC: %"
	       PRIu64 " grants\n", sc->name, b->data_max, b->data_p50,
	       b->data_p99, b->marks, b->trims,
	       100.0 * (double)b->busy_ns / (double)(rs->end_ns - t_start),
	       act[UET_NSCC_MD], act[UET_NSCC_QUICK_ADAPT],
	       act[UET_NSCC_FAIR], act[UET_NSCC_PROPORTIONAL],
	       act[UET_NSCC_FAST], act[UET_NSCC_DECREASE], probes, grants);
	if (sc->cc == UET_CONFIG_CC_NONE || sc->measure)
		return;
	/* Counted, deterministic: with congestion control the incast is no
	 * trim storm (the fixed window trims about 3 times per packet) ... */
	CHECK(b->trims * 10 < pkts);
	/* ... and the CC ran: NSCC saw feedback and sampled the base RTT,
	 * RCCC's pacer granted credit. */
	if (sc->cc != UET_CONFIG_CC_RCCC) {
		CHECK(probes > 0);
		CHECK(act[UET_NSCC_PROPORTIONAL] + act[UET_NSCC_FAST] > 0);
	}
	if (sc->cc != UET_CONFIG_CC_NSCC)
		CHECK(grants > 0);
	/* NSCC keeps the queue below the trim threshold most of the time */
	if (sc->cc != UET_CONFIG_CC_RCCC)
		CHECK(b->data_p99 < th_cur.trim);
}

/*
 * Flow completion times against the ideal: every flow's bytes through
 * its receiver's link at line rate, frames counted with their headers
 * (Ethernet, IPv4, UDP, RUD_REQ, SES) and the 24 bytes of preamble, FCS
 * and gap, plus one base RTT; an incast's flows share one link, a
 * permutation's do not.
 */
static void
measure_report(const struct scenario *sc, const struct signature *g,
	       const struct run_state *s, uint64_t t_start, uint64_t retx)
{
	/* an incast's queue is its receiver's link, else the deepest */
	const struct uet_fabric_port_stats *q = sc->incast ? &g->bottleneck :
							     &g->deepest;
	uint64_t first = UINT64_MAX, last = 0, flows = 0, pkts, ideal;
	uint32_t ppm, per_pkt_hdr = 14 + 20 + 8 + UET_PDS_REQ_LEN + 24;

	for (unsigned int h = 0; h < nh; h++) {
		if (!s->sender[h])
			continue;
		flows++;
		CHECK(s->flow_done_ns[h] != 0);
		first = RTE_MIN(first, s->flow_done_ns[h] - t_start);
		last = RTE_MAX(last, s->flow_done_ns[h] - t_start);
	}
	ppm = test_ulp_pkts_per_msg(sc->size, (uint16_t)(sc->mtu - 20 - 8 -
							 UET_PDS_CC_REQ_LEN));
	pkts = (sc->incast ? flows : 1) * sc->count * ppm;
	ideal = ((sc->incast ? flows : 1) * sc->count * sc->size +
		 pkts * (per_pkt_hdr + UET_SES_STD_LEN)) * 8 / 100 + th_cur.base_rtt_ns;
	printf("MEASURE %s cc=%s flows=%" PRIu64 " last=%.1fus ideal=%.1fus "
	       "ratio=%.3f first/last=%.2f retx=%.1f%% (%" PRIu64 " of %"
	       PRIu64 ") queue_p99=%" PRIu64 "B (%.2f BDP) max=%" PRIu64
	       "B trims=%" PRIu64 " marks=%" PRIu64 "\n", sc->name,
	       sc->cc == 0 ? "fixed" : sc->cc == 1 ? "nscc" : sc->cc == 2 ?
	       "rccc" : "nscc+rccc", flows, last / 1000.0, ideal / 1000.0,
	       (double)last / (double)ideal,
	       (double)first / (double)last,
	       100.0 * (double)retx / (double)(flows * sc->count * ppm),
	       retx, flows * sc->count * ppm, q->data_p99,
	       (double)q->data_p99 / (double)th_cur.bdp, q->data_max,
	       g->fab.trims, g->fab.marks);
	/* trims happen only above the trim threshold: a run with trims had
	 * a queue that deep somewhere */
	CHECK(g->fab.trims == 0 || q->data_max > 0);
}

static int
run(const struct scenario *sc, struct signature *g)
{
	struct uet_fabric_eth_params fp = { 0 };
	struct uet_fabric_config fc;
	struct uet_fabric_eth *fe;
	struct uet_engine *eng[HOSTS_MAX] = { 0 };
	struct uet_proto_params pp[HOSTS_MAX];
	struct uet_pds_config pds[HOSTS_MAX];
	struct run_state s;
	struct uet_fabric_eth_run r = { 0 };
	struct uet_fabric_eth_run_stats rs, tail;
	uint64_t retx = 0;
	char name[9];
	double t0, wall;
	uint64_t t_start;
	int rc = -1, err = 0;

	run_no++;
	cur = sc;
	memset(&s, 0, sizeof(s));
	memset(g, 0, sizeof(*g));
	spray_mode = sc->spray;
	fabric_cfg(&fc, sc->trim_ecn);
	if (sc->fat_tree) {
		fc.topo = UET_FABRIC_TOPO_FAT_TREE;
		fc.k = sc->k ? sc->k : 4;
	}
	nh = sc->fat_tree ? fc.k * fc.k * fc.k / 4 :
	     sc->hosts ? sc->hosts : HOSTS;
	s.sc = sc;
	snprintf(name, sizeof(name), "fx%u", run_no);
	fp.fabric = &fc;
	fp.name = name;
	fe = uet_fabric_eth_create(&fp, &err);
	CHECK(fe != NULL);
	if (fe == NULL) {
		fprintf(stderr, "fabric adapter: %s\n", strerror(-err));
		return -1;
	}
	s.fe = fe;
	uet_fabric_thresholds_get(uet_fabric_eth_fabric(fe), &th_cur);
	for (unsigned int h = 0; h < nh; h++) {
		struct test_ulp_params p;

		test_ulp_setup(sc, fe, h, &p, &s);
		s.r[h] = test_ulp_create(&p);
		CHECK(s.r[h] != NULL);
		if (s.r[h] == NULL)
			goto out;
		pp[h] = (struct uet_proto_params){ .ulp = &test_ulp_ops,
						   .ulp_arg = s.r[h] };
		eng[h] = engine_make(fe, h, &pp[h], &pds[h]);
		CHECK(eng[h] != NULL);
		if (eng[h] == NULL)
			goto out;
	}
	if (sc->fail_ns != 0) {
		uint32_t port;
		int link = uplink_port(uet_fabric_eth_fabric(fe), 0, &port);

		CHECK(link >= 0);
		CHECK(link >= 0 && uet_fabric_link_schedule(
			uet_fabric_eth_fabric(fe), (uint32_t)link,
			uet_fabric_eth_now(fe) + sc->fail_ns,
			UET_FABRIC_LINK_FAIL, 0) == 0);
	}
	r.eng = eng;
	r.nb_eng = nh;
	r.virtual_time = !sc->real;
	r.done = all_done;
	r.arg = &s;
	/* real clock: 60 s of TSC time at most */
	r.until_ns = sc->real ? uet_engine_now(eng[0]) + 60000000000ull :
				MAX_NS;
	r.max_iterations = sc->real ? 2000000 : 50000000;
	t0 = wall_now();
	t_start = sc->real ? uet_engine_now(eng[0]) : uet_fabric_eth_now(fe);
	rc = uet_fabric_eth_run(fe, &r, &rs);
	if (rc != 0)
		printf("%s: run ended with %s\n", sc->name, strerror(-rc));
	CHECK(rc == 0);
	/* Then 2 ms more: late duplicates would show. */
	r.done = never;
	r.until_ns = rs.end_ns + 2000000;
	CHECK(uet_fabric_eth_run(fe, &r, &tail) == -ETIMEDOUT);
	wall = wall_now() - t0;
	if (!sc->real) {
		/* the engines read the adapter's clock */
		CHECK(uet_engine_now(eng[0]) == uet_fabric_eth_now(fe));
		CHECK(uet_fabric_eth_now(fe) == rs.end_ns + 2000000);
	} else {
		CHECK(rs.jumps == 0 && tail.jumps == 0);
	}
	check_delivery(sc, &s);
	signature_take(g, fe, eng);
	g->end_ns = rs.end_ns;
	g->jumps = rs.jumps + tail.jumps;
	g->iterations = rs.iterations + tail.iterations;
	for (unsigned int h = 0; h < nh; h++)
		retx += g->retx[h];
	printf("%-12s done at %.1f us %s (%" PRIu64 " iterations, %"
	       PRIu64 " jumps); fabric: %" PRIu64 " frames injected, %"
	       PRIu64 " delivered, %" PRIu64 " marks, %" PRIu64 " trims, %"
	       PRIu64 " drops; engines: %" PRIu64 " retransmissions, %"
	       PRIu64 " malformed (trimmed) frames dropped, %" PRIu64
	       " dropped awaiting ARP; ARP answered %" PRIu64
	       "; RX ring full %" PRIu64 ", held %" PRIu64
	       "; %.3f s wall, %.0f frames per wall second\n",
	       sc->name, (double)(rs.end_ns - t_start) / 1000.0,
	       sc->real ? "real" : "virtual", g->iterations, g->jumps,
	       g->fab.injected, g->fab.delivered, g->fab.marks, g->fab.trims,
	       g->fab.drops, retx, g->rx_malformed, g->neigh_hold_drop,
	       g->fe.arp_answered, g->fe.rx_full, g->fe.inject_held, wall,
	       (double)g->fab.delivered / wall);
	if (sc->spray != UET_CONFIG_SPRAY_SINGLE || sc->fail_ns)
		printf("%-12s leaf 0 uplinks: %" PRIu64 " / %" PRIu64
		       " frames, %" PRIu64 " lost on the failed cable; "
		       "REPS %" PRIu64 " recycled, %" PRIu64 " explored, %"
		       PRIu64 " freezes\n", sc->name, g->up_frames[0],
		       g->up_frames[1], g->drops_link, g->lb_recycled,
		       g->lb_explored, g->lb_freezes);
	if (sc->one_flow) {
		/* three packets per message, one flow, ARP answered aside */
		uint64_t all = g->up_frames[0] + g->up_frames[1];

		CHECK(all >= 3 * sc->count);
		if (sc->spray == UET_CONFIG_SPRAY_SINGLE)
			CHECK(g->up_frames[0] == 0 || g->up_frames[1] == 0);
		else
			CHECK(g->up_frames[0] * 10 >= all * 4 &&
			      g->up_frames[1] * 10 >= all * 4);
	} else if (!sc->measure) {
		/* measure runs start with static neighbours */
		CHECK(g->fe.arp_answered >= (sc->incast ? nh : 2 * nh) - 1);
	}
	if (sc->fail_ns)
		CHECK(g->drops_link > 0);
	/* 128 packets in flight per flow: queues build, frames are trimmed */
	if (sc->fail_ns && sc->spray == UET_CONFIG_SPRAY_REPS)
		CHECK(g->fab.trims > 0);
	if (sc->spray == UET_CONFIG_SPRAY_REPS)
		CHECK(g->lb_recycled > 0 && g->lb_explored > 0);
	if (sc->spray == UET_CONFIG_SPRAY_REPS && sc->fail_ns)
		CHECK(g->lb_freezes > 0);
	CHECK(g->fe.rx_full == 0 && g->fe.rx_nombuf == 0);
	/* (oblivious spraying around a dead link may queue nowhere) */
	if (sc->trim_ecn && !sc->fail_ns)
		CHECK(g->fab.marks > 0);
	if (sc->incast)
		cc_report(sc, g, &rs, t_start);
	if (sc->measure)
		measure_report(sc, g, &s, t_start, retx);
	if (sc->trim_ecn && sc->incast && sc->cc == UET_CONFIG_CC_NONE) {
		CHECK(g->fab.trims > 0);
		CHECK(retx > g->fab.trims);
	}
	rc = 0;
out:
	uet_fabric_eth_drain(fe);
	for (unsigned int h = 0; h < nh; h++)
		uet_engine_free(eng[h]);
	uet_fabric_eth_free(fe);
	for (unsigned int h = 0; h < nh; h++)
		test_ulp_free(s.r[h]);
	return rc;
}

/* ------------------------------------------------------------------ */
/* the adapter alone: ARP, backpressure, parameters                     */
/* ------------------------------------------------------------------ */

/* Host @p h's ring @p dir ("rx": into its engine, "tx": out of it). */
static struct rte_ring *
host_ring(const char *fabric, unsigned int h, const char *dir)
{
	char n[RTE_RING_NAMESIZE];

	snprintf(n, sizeof(n), "%sh%u%s", fabric, h, dir);
	return rte_ring_lookup(n);
}

/*
 * Engine ports of devargs "rings:NAME" refused with a clear cause: rings
 * nobody made (ENODEV), more than one queue or no MAC (EINVAL).
 */
static bool
rings_port_refused(const uint8_t mac[6], const uint8_t ip[4])
{
	static struct uet_config c; /* large: not on the stack */
	struct uet_engine_params ep = {
		.cfg = &c, .hook = &uet_proto_hook_ops, .name = "farings",
	};
	struct uet_proto_params pp = { 0 };
	struct uet_pds_config pds;
	bool ok = true;

	ep.hook_arg = &pp;
	itest_cfg_ring(&c, "rings:fanone", ip, mac, ip, mac);
	uet_proto_pds_config(&c, &pds);
	pp.pds = &pds;
	ok &= uet_engine_create(&ep) == NULL && rte_errno == ENODEV;
	snprintf(c.port[0].devargs, sizeof(c.port[0].devargs), "rings:fah0");
	c.port[0].rx_queues = 2;
	c.port[0].tx_queues = 2;
	ok &= uet_engine_create(&ep) == NULL && rte_errno == EINVAL;
	c.port[0].rx_queues = 1;
	c.port[0].tx_queues = 1;
	c.port[0].has_mac = false;
	ok &= uet_engine_create(&ep) == NULL && rte_errno == EINVAL;
	return ok;
}

static struct rte_mbuf *
arp_request(struct rte_mempool *mp, const uint8_t smac[6],
	    const uint8_t sip[4], const uint8_t tip[4])
{
	/* 14 + 28 bytes, 2-byte aligned like both headers */
	uint16_t f[(sizeof(struct rte_ether_hdr) +
		    sizeof(struct rte_arp_hdr)) / 2];
	struct rte_ether_hdr *eh = (struct rte_ether_hdr *)f;
	struct rte_arp_hdr *ah = (struct rte_arp_hdr *)(eh + 1);
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	char *d;

	if (m == NULL)
		return NULL;
	memset(eh, 0xff, sizeof(eh->dst_addr));
	memcpy(eh->src_addr.addr_bytes, smac, 6);
	eh->ether_type = RTE_BE16(RTE_ETHER_TYPE_ARP);
	ah->arp_hardware = RTE_BE16(RTE_ARP_HRD_ETHER);
	ah->arp_protocol = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	ah->arp_hlen = 6;
	ah->arp_plen = 4;
	ah->arp_opcode = RTE_BE16(RTE_ARP_OP_REQUEST);
	memcpy(ah->arp_data.arp_sha.addr_bytes, smac, 6);
	memcpy(&ah->arp_data.arp_sip, sip, 4);
	memset(&ah->arp_data.arp_tha, 0, 6);
	memcpy(&ah->arp_data.arp_tip, tip, 4);
	d = rte_pktmbuf_append(m, sizeof(f));
	if (d == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memcpy(d, f, sizeof(f));
	return m;
}

/* An IPv4/UDP frame of @p len bytes to @p dip, numbered @p seq. */
static struct rte_mbuf *
ip_frame(struct rte_mempool *mp, const uint8_t sip[4], const uint8_t dip[4],
	 uint16_t len, uint32_t seq)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	struct rte_ether_hdr *eh;
	struct rte_ipv4_hdr *ip;
	struct rte_udp_hdr *udp;
	uint8_t *d;

	if (m == NULL)
		return NULL;
	d = (uint8_t *)rte_pktmbuf_append(m, len);
	if (d == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memset(d, 0, len);
	eh = (struct rte_ether_hdr *)d;
	ip = (struct rte_ipv4_hdr *)(eh + 1);
	udp = (struct rte_udp_hdr *)(ip + 1);
	eh->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(len - sizeof(*eh)));
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	memcpy(&ip->src_addr, sip, 4);
	memcpy(&ip->dst_addr, dip, 4);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	udp->src_port = RTE_BE16(4000);
	udp->dst_port = RTE_BE16(4793);
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)(len - sizeof(*eh) -
						     sizeof(*ip)));
	memcpy(udp + 1, &seq, 4);
	return m;
}

static void
adapter_params(void)
{
	struct uet_fabric_eth_params fp = { 0 };
	struct uet_fabric_config fc;
	int err = 0;

	fabric_cfg(&fc, false);
	fp.fabric = &fc;
	fp.name = "bad-name";
	CHECK(uet_fabric_eth_create(&fp, &err) == NULL && err == -EINVAL);
	fp.name = "ninechars";
	CHECK(uet_fabric_eth_create(&fp, &err) == NULL && err == -EINVAL);
	fp.name = "fp";
	fp.ring_size = 1000;
	CHECK(uet_fabric_eth_create(&fp, &err) == NULL && err == -EINVAL);
	fp.ring_size = 0;
	fc.hosts_per_leaf = 0;
	CHECK(uet_fabric_eth_create(&fp, &err) == NULL && err == -EINVAL);
}

static void
adapter_checks(void)
{
	struct uet_fabric_eth_params fp = { 0 };
	struct uet_fabric_eth_stats st;
	struct uet_fabric_config fc;
	struct uet_fabric_eth *fe;
	struct rte_mempool *mp;
	struct rte_mbuf *m[64];
	struct uet_config c;
	uint8_t ip0[16], ip1[16], mac0[6], mac1[6];
	static const uint8_t nowhere[4] = { 192, 168, 1, 1 };
	struct rte_ring *tx0, *rx0, *rx1;
	uint16_t n;
	uint32_t got = 0;
	bool in_order = true;
	int err = 0;

	adapter_params();
	fabric_cfg(&fc, false);
	fc.hosts = 2;
	fc.hosts_per_leaf = 1;
	fc.spines = 1;
	fc.host_queue_bytes = 2 * 1518; /* two frames: backpressure */
	fp.fabric = &fc;
	fp.name = "fa";
	fe = uet_fabric_eth_create(&fp, &err);
	mp = rte_pktmbuf_pool_create("fa_test", 255, 0, 0,
				     2048 + RTE_PKTMBUF_HEADROOM,
				     SOCKET_ID_ANY);
	CHECK(fe != NULL && mp != NULL);
	if (fe == NULL || mp == NULL)
		goto out;
	/* port configuration: devargs, address, MAC; an MTU too big */
	uet_config_init_defaults(&c);
	CHECK(uet_fabric_eth_port_config(fe, 1, &c, 0) == 0);
	CHECK(strcmp(c.port[0].devargs, "rings:fah1") == 0);
	CHECK(c.port[0].has_mac && c.port[0].mac[0] == 0x02 &&
	      c.port[0].mac[5] == 2);
	c.port[0].mtu = 1501;
	CHECK(uet_fabric_eth_port_config(fe, 1, &c, 0) == -EINVAL);
	CHECK(uet_fabric_eth_port_config(fe, 2, &c, 0) == -EINVAL);
	/* the hosts' rings, as their engines' "rings:" ports use them */
	tx0 = host_ring("fa", 0, "tx");
	rx0 = host_ring("fa", 0, "rx");
	rx1 = host_ring("fa", 1, "rx");
	CHECK(tx0 != NULL && rx0 != NULL && rx1 != NULL);
	if (tx0 == NULL || rx0 == NULL || rx1 == NULL)
		goto out;
	(void)uet_fabric_host_addr_get(uet_fabric_eth_fabric(fe), 0, false,
				       ip0);
	(void)uet_fabric_host_addr_get(uet_fabric_eth_fabric(fe), 1, false,
				       ip1);
	(void)uet_fabric_eth_host_mac(fe, 0, mac0);
	(void)uet_fabric_eth_host_mac(fe, 1, mac1);
	/* ARP: host 0 asks for host 1 (answered) and for an address no
	 * host has (ignored) */
	m[0] = arp_request(mp, mac0, ip0, ip1);
	m[1] = arp_request(mp, mac0, ip0, nowhere);
	CHECK(rte_ring_enqueue_burst(tx0, (void **)m, 2, NULL) == 2);
	/* two frames taken, one answer put into host 0's RX ring */
	CHECK(uet_fabric_eth_service(fe, 0) == 3);
	n = (uint16_t)rte_ring_dequeue_burst(rx0, (void **)m, 64, NULL);
	CHECK(n == 1);
	if (n == 1) {
		const struct rte_ether_hdr *eh =
			rte_pktmbuf_mtod(m[0], const struct rte_ether_hdr *);
		const struct rte_arp_hdr *ah =
			(const struct rte_arp_hdr *)(eh + 1);

		CHECK(ah->arp_opcode == RTE_BE16(RTE_ARP_OP_REPLY));
		CHECK(memcmp(ah->arp_data.arp_sha.addr_bytes, mac1, 6) == 0);
		CHECK(memcmp(&ah->arp_data.arp_sip, ip1, 4) == 0);
		CHECK(memcmp(&ah->arp_data.arp_tip, ip0, 4) == 0);
		CHECK(memcmp(eh->dst_addr.addr_bytes, mac0, 6) == 0);
		rte_pktmbuf_free(m[0]);
	}
	/* 40 full frames to host 1 through a two-frame host queue: the
	 * adapter holds what the fabric refuses, loses nothing, keeps the
	 * order */
	for (uint32_t i = 0; i < 40; i++) {
		struct rte_mbuf *f = ip_frame(mp, ip0, ip1, 1514, i);

		CHECK(f != NULL && rte_ring_enqueue(tx0, f) == 0);
	}
	for (unsigned int round = 0; round < 1000 && got < 40; round++) {
		uint64_t t = uet_fabric_eth_next_event(fe);

		(void)uet_fabric_eth_service(
			fe, t == UINT64_MAX ? uet_fabric_now(
				uet_fabric_eth_fabric(fe)) : t);
		n = (uint16_t)rte_ring_dequeue_burst(rx1, (void **)m, 64,
						     NULL);
		for (uint16_t i = 0; i < n; i++) {
			uint32_t seq;

			memcpy(&seq, rte_pktmbuf_mtod_offset(
				m[i], const uint8_t *, 42), 4);
			in_order &= seq == got;
			got++;
			rte_pktmbuf_free(m[i]);
		}
	}
	uet_fabric_eth_stats_get(fe, &st);
	CHECK(rings_port_refused(mac0, ip0));
	CHECK(got == 40);
	CHECK(in_order);
	CHECK(st.inject_held > 0);
	CHECK(st.injected == 40 && st.tx_bad == 0);
	CHECK(st.arp_answered == 1 && st.arp_ignored == 1);
	printf("adapter: ARP answered, 40 frames through a 2-frame host "
	       "queue (%" PRIu64 " refusals held), in order\n",
	       st.inject_held);
out:
	uet_fabric_eth_free(fe);
	rte_mempool_free(mp);
}

/*
 * The [fabric] section onto the model: shape, rate, MTU + 18, thresholds
 * in thousandths of the BDP; its schedule lines at t0 + their time (the
 * link goes down and comes back), and a line naming a link the fabric
 * does not have refused with its index.
 */
static void
config_section(void)
{
	struct uet_fabric_eth_params fp = { 0 };
	struct uet_fabric_link_info li;
	struct uet_config_error cerr;
	struct uet_fabric_config fc;
	struct uet_fabric_eth *fe;
	struct uet_config c;
	unsigned int line = 99;
	int link, err = 0;

	uet_config_init_defaults(&c);
	CHECK(uet_config_override(&c, "fabric.hosts=8", &cerr) == 0);
	CHECK(uet_config_override(&c, "fabric.hosts_per_leaf=2", &cerr) == 0);
	CHECK(uet_config_override(&c, "fabric.spines=2", &cerr) == 0);
	CHECK(uet_config_override(&c, "fabric.link_rate_mbps=25000",
				  &cerr) == 0);
	CHECK(uet_config_override(&c, "fabric.ecn_min=0.25", &cerr) == 0);
	CHECK(uet_config_override(&c, "fabric.queue=2.5", &cerr) == 0);
	CHECK(uet_config_override(&c, "fabric.mtu=1500", &cerr) == 0);
	CHECK(uet_config_override(&c, "fabric.fail=spine1-leaf2@10us",
				  &cerr) == 0);
	CHECK(uet_config_override(&c, "fabric.restore=leaf2-spine1@20us",
				  &cerr) == 0);
	CHECK(uet_config_validate(&c, &cerr) == 0);
	uet_fabric_eth_config_from(&c.fabric, &fc);
	CHECK(fc.topo == UET_FABRIC_TOPO_LEAF_SPINE && fc.hosts == 8 &&
	      fc.hosts_per_leaf == 2 && fc.spines == 2);
	CHECK(fc.link_rate_bps == 25000000000ull && fc.link_delay_ns == 1000);
	CHECK(fc.mtu == 1518 && fc.ecn_min_milli == 250 &&
	      fc.ecn_max_milli == 800 && fc.trim_milli == 1000 &&
	      fc.trim_retx_milli == 1500 && fc.drop_milli == 2500 &&
	      fc.control_drop_milli == 2500 && fc.trimming && fc.ecn);
	fp.fabric = &fc;
	fp.name = "fc";
	fe = uet_fabric_eth_create(&fp, &err);
	CHECK(fe != NULL);
	if (fe == NULL)
		return;
	uet_fabric_eth_set_now(fe, 5000);
	(void)uet_fabric_eth_service(fe, 5000);
	CHECK(uet_fabric_eth_schedule(fe, &c.fabric, 5000, &line) == 0);
	link = uet_fabric_link_find(uet_fabric_eth_fabric(fe),
				    UET_FABRIC_TIER_LEAF, 2,
				    UET_FABRIC_TIER_SPINE, 1);
	CHECK(link >= 0);
	(void)uet_fabric_eth_service(fe, 14999);
	CHECK(uet_fabric_link_info(uet_fabric_eth_fabric(fe), (uint32_t)link,
				   &li) == 0 && li.up);
	(void)uet_fabric_eth_service(fe, 15000);
	CHECK(uet_fabric_link_info(uet_fabric_eth_fabric(fe), (uint32_t)link,
				   &li) == 0 && !li.up);
	(void)uet_fabric_eth_service(fe, 25000);
	CHECK(uet_fabric_link_info(uet_fabric_eth_fabric(fe), (uint32_t)link,
				   &li) == 0 && li.up);
	/* not validated against this shape: a leaf the fabric lacks */
	c.fabric.event[1].index[0] = 7;
	CHECK(uet_fabric_eth_schedule(fe, &c.fabric, 30000, &line) ==
	      -ENOENT && line == 1);
	uet_fabric_eth_free(fe);
}

/* The application's poll counts as work: no jump while it reports some. */
static unsigned int app_calls;
static const struct uet_fabric_eth *fabric_eth_of_test;

static unsigned int
app_poll(void *arg)
{
	(void)arg;
	return ++app_calls <= 5 ? 1 : 0;
}

static uint64_t app_deadlines[] = { 2500, 4000 };

static uint64_t
app_next(void *arg)
{
	const struct uet_fabric_eth *fe = fabric_eth_of_test;

	(void)arg;
	for (unsigned int i = 0; i < RTE_DIM(app_deadlines); i++)
		if (app_deadlines[i] > uet_fabric_eth_now(fe))
			return app_deadlines[i];
	return UINT64_MAX;
}

static void
driver_app_poll(void)
{
	struct uet_fabric_eth_params fp = { 0 };
	struct uet_fabric_eth_run r = { 0 };
	struct uet_fabric_eth_run_stats rs;
	struct uet_fabric_config fc;
	struct uet_fabric_eth *fe;
	int err = 0;

	fabric_cfg(&fc, false);
	fp.fabric = &fc;
	fp.name = "fd";
	fp.start_ns = 1000;
	fe = uet_fabric_eth_create(&fp, &err);
	CHECK(fe != NULL);
	if (fe == NULL)
		return;
	fabric_eth_of_test = fe;
	r.virtual_time = true;
	r.done = never;
	r.poll = app_poll;
	CHECK(uet_fabric_eth_run(fe, &r, &rs) == -EDEADLK);
	CHECK(rs.iterations == 6 && rs.jumps == 0);
	CHECK(rs.end_ns == 1000 && uet_fabric_eth_now(fe) == 1000);
	/* the application's next deadline stops a jump as a timer does:
	 * 2500 then 4000, then nothing armed */
	app_calls = 100;
	r.next = app_next;
	CHECK(uet_fabric_eth_run(fe, &r, &rs) == -EDEADLK);
	CHECK(rs.jumps == 2 && rs.end_ns == 4000);
	r.done = NULL;
	CHECK(uet_fabric_eth_run(fe, &r, &rs) == -EINVAL);
	uet_fabric_eth_free(fe);
}

/*
 * A destination no host has: the adapter leaves the ARP requests
 * unanswered. The PDC fails once its peer has been silent for the
 * dead-peer time (pds_dead_ns: 1.93 s with the default timers, its fixed
 * RTO resending meanwhile); the run sees the failed send at the engine's
 * next event, the ARP probe at 2.0 s. The engine probes every
 * 100 ms while traffic waits (20 probes), at least 10 times, and then
 * gives the neighbour up. The
 * virtual clock has to see those probes as engine timers
 * (uet_engine_next_deadline()), else the run would stop at the PDC's
 * failure with one probe sent; afterwards nothing is armed and the
 * driver reports -EDEADLK.
 */
static bool
sent(void *arg)
{
	return test_ulp_send_finished(arg);
}

static void
unreachable(void)
{
	static const uint8_t nowhere[4] = { 10, 0, 0, 99 };
	struct uet_fabric_eth_params fp = { 0 };
	struct uet_fabric_eth_run r = { 0 };
	struct uet_fabric_eth_run_stats rs;
	struct uet_fabric_eth_stats fst;
	static struct uet_engine_stats st;
	struct uet_fabric_config fc;
	struct uet_fabric_eth *fe;
	struct uet_engine *e = NULL;
	struct uet_proto_params pp;
	struct uet_pds_config pds;
	struct test_ulp_result res;
	struct test_ulp *ru = NULL;
	struct test_ulp_params p;
	uint64_t failed_at;
	int err = 0;

	run_no++;
	fabric_cfg(&fc, false);
	fp.fabric = &fc;
	fp.name = "fu";
	fe = uet_fabric_eth_create(&fp, &err);
	CHECK(fe != NULL);
	if (fe == NULL)
		return;
	memset(&p, 0, sizeof(p));
	memcpy(p.peer.addr, nowhere, 4);
	p.mode = UET_PDS_MODE_RUD;
	p.size = 64;
	p.count = 1;
	p.window = 1;
	ru = test_ulp_create(&p);
	pp = (struct uet_proto_params){ .ulp = &test_ulp_ops, .ulp_arg = ru };
	e = ru != NULL ? engine_make(fe, 0, &pp, &pds) : NULL;
	CHECK(e != NULL);
	if (e == NULL)
		goto out;
	r.eng = &e;
	r.nb_eng = 1;
	r.virtual_time = true;
	r.done = sent;
	r.arg = ru;
	r.until_ns = 10 * MAX_NS;
	r.max_iterations = 1000000;
	CHECK(uet_fabric_eth_run(fe, &r, &rs) == 0);
	failed_at = rs.end_ns;
	r.done = never;
	CHECK(uet_fabric_eth_run(fe, &r, &rs) == -EDEADLK);
	test_ulp_result(ru, &res);
	(void)uet_engine_stats_get(e, &st);
	uet_fabric_eth_stats_get(fe, &fst);
	printf("unreachable: PDC failed at %.1f ms virtual, last of %" PRIu64
	       " ARP probes unanswered, idle from %.1f ms\n",
	       (double)failed_at / 1e6, st.total.arp_req_tx,
	       (double)rs.end_ns / 1e6);
	CHECK(res.pkts_done_err == 1);
	CHECK(st.total.arp_req_tx == 20);
	CHECK(fst.arp_ignored == 20 && fst.injected == 0);
	CHECK(failed_at > 1900000000ull && failed_at < 2100000000ull &&
	      rs.end_ns > failed_at);
out:
	uet_fabric_eth_drain(fe);
	uet_engine_free(e);
	uet_fabric_eth_free(fe);
	test_ulp_free(ru);
}

/* ------------------------------------------------------------------ */
/* "lb" (not run by meson): load balancing through the real PDS         */
/* ------------------------------------------------------------------ */

#define LB_HOSTS 16
#define LB_SIZE 4000     /* one packet per message at IP MTU 4096 */
#define LB_MSGS 512      /* per flow: 2.048 MB */
#define LB_WINDOW 32     /* packets in flight per flow */
#define LB_SLICE_NS 1000 /* failure runs: look at the dead cable this often */

struct lb_state {
	struct run_state rs;
	struct uet_fabric_eth *fe;
	uint64_t done_ns[LB_HOSTS]; /* receiver h has every message */
};

static bool
lb_done(void *arg)
{
	struct lb_state *l = arg;
	bool all = true;

	for (unsigned int h = 0; h < nh; h++) {
		if (l->done_ns[h] == 0 &&
		    test_ulp_live(l->rs.r[h])->rx_msgs >= l->rs.expect[h])
			l->done_ns[h] = uet_fabric_eth_now(l->fe);
		all &= l->done_ns[h] != 0 && test_ulp_send_finished(l->rs.r[h]);
	}
	return all;
}

/* Frames lost on both directions of leaf 0 - spine 0 so far. */
static uint64_t
lb_dead_drops(const struct uet_fabric *fab)
{
	struct uet_fabric_link_info li;
	struct uet_fabric_port_stats ps;
	uint64_t n = 0;
	uint32_t port;
	int link = uplink_port(fab, 0, &port);

	if (link < 0 || uet_fabric_link_info(fab, (uint32_t)link, &li) < 0)
		return 0;
	for (unsigned int e = 0; e < 2; e++)
		if (uet_fabric_port_stats(fab, li.port[e], &ps) == 0)
			n += ps.drops_link;
	return n;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Permutation on 16 hosts (4 leaves of 4, 4 spines, 100 Gb/s, 1 us
 * links, 4 KiB IP MTU): host h sends 512 messages of 4000 B to host
 * h + 4 (the next leaf), 32 packets in flight, trimming and ECN on.
 * Per flow: goodput over the time until its receiver had every message,
 * as a fraction of 100 Gb/s. With @p fail_ns, leaf 0 - spine 0 fails for
 * good then; the run goes in 1 us slices to see when the last frame was
 * lost on it.
 */
static void
lb_one(enum uet_config_spray_mode mode, uint64_t fail_ns)
{
	static const char *const names[] = { "single", "oblivious", "reps" };
	const struct scenario sc = {
		"lb", false, true, LB_SIZE, LB_MSGS, LB_WINDOW, .shift = 4,
		.spray = mode, .fail_ns = fail_ns,
	};
	struct uet_fabric_eth_params fp = { 0 };
	struct uet_fabric_config fc;
	struct uet_engine *eng[LB_HOSTS] = { 0 };
	struct uet_proto_params pp[LB_HOSTS];
	struct uet_pds_config pds[LB_HOSTS];
	struct uet_fabric_eth_run r = { 0 };
	struct uet_fabric_eth_run_stats rs;
	static struct lb_state l;
	struct signature g;
	uint64_t t[LB_HOSTS], dead = 0, last_loss = 0, retx = 0, dup = 0;
	uint64_t lb_sack = 0;
	double frac[LB_HOSTS], wall;
	char name[9];
	int rc, err = 0;

	run_no++;
	memset(&l, 0, sizeof(l));
	memset(&g, 0, sizeof(g));
	spray_mode = mode;
	lb_big = true;
	lb_shift = sc.shift;
	nh = LB_HOSTS;
	fabric_cfg(&fc, true);
	fc.hosts = LB_HOSTS;
	fc.hosts_per_leaf = 4;
	fc.spines = 4;
	fc.mtu = 4096 + 18;
	fc.frame_pool = 16384;
	snprintf(name, sizeof(name), "fl%u", run_no);
	fp.fabric = &fc;
	fp.name = name;
	l.fe = uet_fabric_eth_create(&fp, &err);
	CHECK(l.fe != NULL);
	if (l.fe == NULL)
		return;
	cur = &no_cc; /* the fixed window, at the fabric's base RTT */
	uet_fabric_thresholds_get(uet_fabric_eth_fabric(l.fe), &th_cur);
	for (unsigned int h = 0; h < nh; h++) {
		struct test_ulp_params p;

		test_ulp_setup(&sc, l.fe, h, &p, &l.rs);
		l.rs.r[h] = test_ulp_create(&p);
		pp[h] = (struct uet_proto_params){ .ulp = &test_ulp_ops,
						   .ulp_arg = l.rs.r[h] };
		eng[h] = l.rs.r[h] ? engine_make(l.fe, h, &pp[h], &pds[h]) :
				     NULL;
		CHECK(eng[h] != NULL);
		if (eng[h] == NULL)
			goto out;
	}
	if (fail_ns) {
		uint32_t port;
		int link = uplink_port(uet_fabric_eth_fabric(l.fe), 0, &port);

		CHECK(link >= 0 && uet_fabric_link_schedule(
			uet_fabric_eth_fabric(l.fe), (uint32_t)link,
			uet_fabric_eth_now(l.fe) + fail_ns,
			UET_FABRIC_LINK_FAIL, 0) == 0);
	}
	r.eng = eng;
	r.nb_eng = nh;
	r.virtual_time = true;
	r.done = lb_done;
	r.arg = &l;
	r.max_iterations = 50000000;
	wall = wall_now();
	do {
		r.until_ns = fail_ns ? uet_fabric_eth_now(l.fe) + LB_SLICE_NS :
				       MAX_NS;
		rc = uet_fabric_eth_run(l.fe, &r, &rs);
		if (fail_ns) {
			uint64_t d = lb_dead_drops(uet_fabric_eth_fabric(l.fe));

			if (d > dead) {
				dead = d;
				last_loss = uet_fabric_eth_now(l.fe);
			}
		}
	} while (rc == -ETIMEDOUT && uet_fabric_eth_now(l.fe) < MAX_NS);
	wall = wall_now() - wall;
	CHECK(rc == 0);
	check_delivery(&sc, &l.rs);
	signature_take(&g, l.fe, eng);
	for (unsigned int h = 0; h < nh; h++) {
		struct test_ulp_result res;

		test_ulp_result(l.rs.r[h], &res);
		lb_sack += uet_pds_stats_get(uet_ulp_ctx_pds(
			uet_ulp_ctx_get(eng[h], 0)))->retx_sack;
		dup += res.rx_dup;
		retx += g.retx[h];
		t[h] = l.done_ns[h];
		/* bits delivered / (time x 100 Gb/s) */
		frac[h] = (double)LB_MSGS * LB_SIZE * 8 /
			  ((double)l.done_ns[h] * 100.0);
	}
	if (getenv("LB_DEBUG"))
		for (unsigned int h = 0; h < nh; h++)
			printf("  flow %u -> %u done %.1f us, sender retx %" PRIu64 "\n",
			       (h + nh - 4) % nh, h, l.done_ns[h] / 1e3,
			       g.retx[(h + nh - 4) % nh]);
	qsort(t, nh, sizeof(t[0]), cmp_u64);
	{
		double fmin = frac[0], fsum = 0;

		for (unsigned int h = 0; h < nh; h++) {
			fmin = frac[h] < fmin ? frac[h] : fmin;
			fsum += frac[h];
		}
		printf("| %s | %s | %.1f | %.1f | %.1f | %.3f | %.3f | %"
		       PRIu64 " | %" PRIu64 " | %" PRIu64 " | %" PRIu64,
		       names[mode], fail_ns ? "leaf0-spine0 at 50 us" : "-",
		       t[0] / 1e3, t[nh / 2] / 1e3, t[nh - 1] / 1e3, fmin,
		       fsum / nh, retx, g.fab.trims, g.fab.marks, dup);
		if (fail_ns)
			printf(" | %" PRIu64 " | %.1f", dead,
			       last_loss ? (last_loss - fail_ns) / 1e3 : 0.0);
		printf(" | freezes %" PRIu64 " recycled %" PRIu64
		       " explored %" PRIu64 " sack %" PRIu64 " (%.2f s wall)\n",
		       g.lb_freezes, g.lb_recycled, g.lb_explored,
		       lb_sack, wall);
	}
	CHECK(dup == 0);
out:
	uet_fabric_eth_drain(l.fe);
	for (unsigned int h = 0; h < nh; h++)
		uet_engine_free(eng[h]);
	uet_fabric_eth_free(l.fe);
	for (unsigned int h = 0; h < nh; h++)
		test_ulp_free(l.rs.r[h]);
	lb_big = false;
}

static void
lb_measure(void)
{
	printf("| mode | failure | first flow done (us) | median | last | "
	       "min fraction of 100 Gb/s | mean | retransmissions | trims "
	       "| marks | duplicates | frames lost on the dead cable | last "
	       "loss there (us after the failure) |\n");
	for (unsigned int m = 0; m < 3; m++)
		lb_one((enum uet_config_spray_mode)m, 0);
	for (unsigned int m = 0; m < 3; m++)
		lb_one((enum uet_config_spray_mode)m, 50000);
}

/*
 * Not run by meson ("bench" argument): idle loop iterations per wall
 * second of an engine on the real clock (TSC, the default) and of one on
 * the injected virtual clock, to see what the clock indirection costs.
 */
static void
clock_bench(void)
{
	struct uet_fabric_eth_params fp = { 0 };
	struct uet_fabric_config fc;
	struct uet_fabric_eth *fe;
	struct uet_engine *e[2] = { 0 };
	struct uet_proto_params pp[2];
	struct uet_pds_config pds[2];
	struct test_ulp *r[2] = { 0 };
	struct test_ulp_params p;
	const unsigned long iters = 5000000;
	int err;

	fabric_cfg(&fc, false);
	fc.hosts = 2;
	fc.hosts_per_leaf = 1;
	fc.spines = 1;
	fp.fabric = &fc;
	fp.name = "fb";
	fe = uet_fabric_eth_create(&fp, &err);
	if (fe == NULL)
		return;
	memset(&p, 0, sizeof(p));
	p.size = 64;
	for (unsigned int h = 0; h < 2; h++) {
		r[h] = test_ulp_create(&p);
		pp[h] = (struct uet_proto_params){ .ulp = &test_ulp_ops,
						   .ulp_arg = r[h] };
		e[h] = engine_make(fe, h, &pp[h], &pds[h]);
	}
	for (unsigned int round = 0; round < 3 && e[0] && e[1]; round++) {
		double t[2];

		for (unsigned int h = 0; h < 2; h++) {
			double t0 = wall_now();

			for (unsigned long i = 0; i < iters; i++)
				(void)uet_engine_poll(e[h], 1);
			t[h] = wall_now() - t0;
		}
		printf("idle iterations per second: TSC clock %.1f M, "
		       "virtual clock %.1f M\n", iters / t[0] / 1e6,
		       iters / t[1] / 1e6);
	}
	uet_fabric_eth_drain(fe);
	for (unsigned int h = 0; h < 2; h++) {
		uet_engine_free(e[h]);
		test_ulp_free(r[h]);
	}
	uet_fabric_eth_free(fe);
}

/*
 * "measure" (not run by meson): the reference scenario of UEC's
 * congestion-control model on a K = 4 fat tree (16 hosts, 100 Gb/s, 1 us
 * links, 4 KiB MTU, trim above 1 BDP, ECN 0.2..0.8 BDP): 15 senders x
 * 2 MiB to host 0 for each CC, the same at 1 % random loss per link, a
 * 16-flow permutation, and a 31:1 incast on a 32-host leaf/spine
 * (64:1 would need more ethdevs than DPDK's 32). @p only: run
 * the scenarios whose name starts with it.
 */
static int
measure(const char *only)
{
	static const int ccs[] = { UET_CONFIG_CC_NONE, UET_CONFIG_CC_NSCC,
				   UET_CONFIG_CC_RCCC, UET_CONFIG_CC_BOTH };
	static const struct scenario base[] = {
		{ "ref15", true, true, 65536, 32, 512, .fat_tree = true,
		  .senders = 15, .mtu = 4096, .measure = true },
		/* 1 % per path: 1667 ppm on each of the (up to) 6 links */
		{ "ref15-loss1", true, true, 65536, 32, 512, .fat_tree = true,
		  .senders = 15, .mtu = 4096, .loss_ppm = 1667,
		  .measure = true },
		{ "perm16", false, true, 65536, 32, 512, .fat_tree = true,
		  .shift = 4, .mtu = 4096, .measure = true },
		/* 64:1 needs 65 ring ethdevs in one process, and Debian's
		 * DPDK 22.11 has RTE_MAX_ETHPORTS 32: 31:1 on 32 hosts */
		{ "incast31", true, true, 65536, 32, 512, .hosts = 32,
		  .senders = 31, .mtu = 4096, .measure = true },
	};
	struct signature *g = calloc(1, sizeof(*g));

	if (g == NULL)
		return -ENOMEM;
	for (unsigned int i = 0; i < RTE_DIM(base); i++) {
		if (only != NULL &&
		    strncmp(base[i].name, only, strlen(only)) != 0)
			continue;
		for (unsigned int c = 0; c < RTE_DIM(ccs); c++) {
			struct scenario sc = base[i];

			sc.cc = ccs[c];
			(void)run(&sc, g);
			fflush(stdout);
		}
	}
	free(g);
	return 0;
}

int
main(int argc, char **argv)
{
	static const struct scenario sc[] = {
		{ "permutation", false, false, 4000, 300, 64, .shift = 2 },
		{ "incast", true, true, 2000, 150, 64 },
		/* 4:1 with each congestion control */
		{ "incast4-fixed", true, true, 4000, 300, 64, .senders = 4,
		  .cc = UET_CONFIG_CC_NONE },
		{ "incast4-nscc", true, true, 4000, 300, 64, .senders = 4,
		  .cc = UET_CONFIG_CC_NSCC },
		{ "incast4-rccc", true, true, 4000, 300, 64, .senders = 4,
		  .cc = UET_CONFIG_CC_RCCC },
		{ "incast4-both", true, true, 4000, 300, 64, .senders = 4,
		  .cc = UET_CONFIG_CC_BOTH },
		{ "fat-tree", false, true, 4000, 200, 64, .fat_tree = true,
		  .shift = 4 },
		{ "one-single", false, false, 4000, 300, 64, .shift = 2,
		  .one_flow = true },
		{ "one-oblivious", false, false, 4000, 300, 64, .shift = 2,
		  .one_flow = true, .spray = UET_CONFIG_SPRAY_OBLIVIOUS },
		{ "reps-fail", false, true, 4000, 300, 128, .shift = 2,
		  .spray = UET_CONFIG_SPRAY_REPS, .fail_ns = 50000 },
		{ "obliv-fail", false, true, 4000, 300, 64, .shift = 2,
		  .spray = UET_CONFIG_SPRAY_OBLIVIOUS, .fail_ns = 50000 },
	};
	static const struct scenario real = {
		"perm-real", false, false, 4000, 300, 64, true, .shift = 2,
	};
	struct signature g;
	int rc;

	/* measure: up to 65 engines with 4 KiB frames */
	rc = uet_engine_eal_init("test_fabric_eth",
				 argc > 1 && strcmp(argv[1], "measure") == 0 ?
				 "-l 0 --no-huge -m 3072 --no-pci "
				 "--log-level=4" :
				 "-l 0 --no-huge -m 512 --no-pci "
				 "--log-level=4", NULL);
	if (rc < 0) {
		fprintf(stderr, "EAL: %s\n", strerror(-rc));
		return 1;
	}
	if (argc > 1 && strcmp(argv[1], "bench") == 0) {
		bench_real_clock = true;
		clock_bench();
		(void)rte_eal_cleanup();
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "lb") == 0) {
		lb_measure();
		(void)rte_eal_cleanup();
		printf("%s: %d failure(s)\n", failures ? "FAIL" : "PASS",
		       failures);
		return failures ? 1 : 0;
	}
	if (argc > 1 && strcmp(argv[1], "measure") == 0) {
		rc = measure(argc > 2 ? argv[2] : NULL);
		(void)rte_eal_cleanup();
		printf("%s: %d failure(s)\n", failures ? "FAIL" : "PASS",
		       failures);
		return rc < 0 || failures ? 1 : 0;
	}
	if (argc > 1 && strcmp(argv[1], "real") == 0) {
		/* The real clock: the same loop without jumps. Not run by
		 * meson: how it goes depends on the machine's speed (an
		 * instrumented build is slow enough for RTOs to fire). */
		all_real_clock = true;
		(void)run(&real, &g);
		(void)rte_eal_cleanup();
		printf("%s: %d failure(s)\n", failures ? "FAIL" : "PASS",
		       failures);
		return failures ? 1 : 0;
	}
	adapter_checks();
	config_section();
	driver_app_poll();
	unreachable();
	for (unsigned int i = 0; i < RTE_DIM(sc); i++) {
		struct signature a, b;

		if (run(&sc[i], &a) < 0 || run(&sc[i], &b) < 0)
			continue;
		/* same seeds, same inputs: the same run, counter for counter */
		CHECK(memcmp(&a, &b, sizeof(a)) == 0);
	}
	(void)rte_eal_cleanup();
	printf("%s: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
	return failures ? 1 : 0;
}
