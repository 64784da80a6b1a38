/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Engine integration test in one EAL process (--no-huge --in-memory):
 * two engines whose ports are rte_eth_from_rings() ethdevs wired back to
 * back exchange UET frames built with the wire codec through a trivial
 * hook (A sends RUD requests, B answers each with an ACK).
 *
 *   test_engine ring       ARP + ND resolution, inline progress, a
 *                          post's frames held by the port gate
 *                          (uet_engine_flush()), frames over the
 *                          receiver's MTU (dropped, counted, logged), every
 *                          fault action (fixed seed, reproducible), AUTO
 *                          progress on a worker lcore, channels
 *   test_engine telemetry  /uet/ commands over the telemetry socket
 *   test_engine sleep      an AUTO lcore that sleeps when idle: woken by
 *                          a post (eventfd), a timer, frames on a port
 *                          without RX interrupts (back-off); posts and
 *                          uet_engine_progress() that run its loop on
 *                          the application thread meanwhile (counters)
 *   test_engine sleep_tap  the same lcore on a net_tap port, whose RX
 *                          interrupts wake it (root; skipped otherwise)
 *   test_engine alive      the alive files of [timers] alive_dir: a
 *                          restart knows when its previous engine went
 *
 * Bounded by iteration counts; no timing assertions.
 */

#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <pthread.h>
#include <netinet/if_ether.h>
#include <netpacket/packet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <rte_telemetry.h>
#include <rte_udp.h>

#include <uet/uet_chan.h>
#include <uet/uet_engine.h>

/* the port gate's state, simulated on a ring port (test_gate_flush) */
#include "engine_private.h"
#include "itest.h"

/* ------------------------------------------------------------------ */
/* test hook                                                           */
/* ------------------------------------------------------------------ */

struct th {
	unsigned int ipver;
	uint8_t peer[16];
	unsigned int to_send;   /* requests still to send (A) */
	unsigned int sent;
	unsigned int acks_due;  /* ACKs to send (B) */
	unsigned int acks_sent;
	unsigned int rx_req;
	unsigned int rx_ack;
	unsigned int rx_other;  /* SES error */
	unsigned int rx_trimmed; /* received as trimmed */
	unsigned int frame_kind; /* enum th_frame_kind of A's requests */
	unsigned int plen;      /* payload bytes of A's requests, 0: 64 */
	struct uet_chan *chan;  /* NOP channel served by this context */
	struct uet_chan *chan2; /* a second one (sleep test) */
	unsigned int chan_done;
	uint64_t deadline;      /* armed timer (engine clock), 0: none */
	unsigned int fired;     /* timers fired */
	/* port gate simulated (test_gate_flush): TX passes until the EAL
	 * interrupt thread is back in, 0: not simulated */
	unsigned int gate_passes;
	struct engine_gate *gate;
};

static struct th hook_state[2];

/* the longest request payload A sends (test_mtu_mismatch) */
#define TH_PLEN_MAX 8192

/* What A's test requests look like on the wire. */
enum th_frame_kind {
	TH_FRAME_OK,        /* complete, UDP checksum filled */
	TH_FRAME_NO_CSUM,   /* UDP checksum 0 (IPv4) */
	TH_FRAME_BAD_CSUM,  /* one payload byte changed after the checksum */
	TH_FRAME_TRIMMED,   /* trimmed by a switch (UDP length kept) */
	TH_FRAME_TRIMMED_LH, /* ... at the last hop, IP length not fixed */
	TH_FRAME_SHORT,     /* cut like a trim but with the data DSCP */
};

static int
th_init(struct uet_engine_lcore *lc, void *arg, void **priv)
{
	(void)lc;
	*priv = arg;
	return 0;
}

static void
th_rx(void *priv, struct uet_engine_lcore *lc, struct uet_engine_rx *rx,
      uint16_t n, uint64_t now)
{
	struct th *t = priv;

	(void)lc;
	(void)now;
	for (uint16_t i = 0; i < n; i++) {
		const struct uet_wire_pkt *p = &rx[i].pkt;

		if (p->outer.trimmed)
			t->rx_trimmed++;
		else if (p->err_layer != UET_PKT_LAYER_NONE)
			t->rx_other++;
		else if (uet_wire_pds_type_is_req(p->pds.type)) {
			t->rx_req++;
			t->acks_due++;
		} else if (uet_wire_pds_type_is_ack(p->pds.type)) {
			t->rx_ack++;
		}
		rte_pktmbuf_free(rx[i].m);
	}
}

/* NOPs complete at once; a NOP whose tag is not 0 arms a timer that
 * fires tag ns later (sleep test). */
static void
th_serve(struct th *t, struct uet_chan *ch, uint64_t now)
{
	struct uet_chan_sqe sqe[8];
	unsigned int n;

	if (ch == NULL)
		return;
	n = uet_chan_sq_take(ch, sqe, RTE_DIM(sqe));
	for (unsigned int i = 0; i < n; i++) {
		struct uet_chan_cqe c = {
			.context = sqe[i].context,
			.flags = UET_CHAN_CQ_SEND,
			.op = sqe[i].op,
			.status = sqe[i].op == UET_CHAN_OP_NOP ? 0 : -ENOSYS,
		};

		if (sqe[i].op == UET_CHAN_OP_NOP && sqe[i].tag != 0)
			t->deadline = now + sqe[i].tag;
		if (uet_chan_cq_push(ch, &c) == 0)
			t->chan_done++;
	}
}

static void
th_advance(void *priv, struct uet_engine_lcore *lc, uint64_t now)
{
	struct th *t = priv;

	(void)lc;
	if (t->deadline != 0 && now >= t->deadline) {
		t->deadline = 0;
		__atomic_store_n(&t->fired, t->fired + 1, __ATOMIC_RELEASE);
	}
	th_serve(t, t->chan, now);
	th_serve(t, t->chan2, now);
}

static uint64_t
th_deadline(void *priv, struct uet_engine_lcore *lc)
{
	const struct th *t = priv;

	(void)lc;
	return t->deadline != 0 ? t->deadline : UINT64_MAX;
}

/*
 * The UDP checksum (the wire codec leaves it 0 over IPv4, so a hook that
 * builds its own frames fills it, here with DPDK's), then the frame
 * shaped as @p kind. Returns the frame length.
 */
static int
th_frame_finish(const struct uet_wire_outer *spec, uint8_t *f, int len,
		unsigned int kind)
{
	size_t l3 = UET_ETH_HLEN, l4 = l3 + (spec->ip_version == 4 ?
					     UET_IPV4_HLEN : UET_IPV6_HLEN);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(f + l4);
	struct uet_wire_outer o;

	if (spec->ip_version == 4 && kind != TH_FRAME_NO_CSUM) {
		udp->dgram_cksum = 0;
		udp->dgram_cksum = rte_ipv4_udptcp_cksum(
			(const struct rte_ipv4_hdr *)(f + l3), udp);
	}
	if (kind == TH_FRAME_BAD_CSUM)
		f[len - 1] ^= 0x20;
	if (kind != TH_FRAME_TRIMMED && kind != TH_FRAME_TRIMMED_LH &&
	    kind != TH_FRAME_SHORT)
		return len;
	if (uet_wire_outer_decode(f, (size_t)len, &o) < 0)
		return -1;
	/* PDS header kept (12 B); DSCP trimmed (16), trimmed last hop (18)
	 * or data (0) */
	return uet_wire_outer_frame_trim(&o, f, (size_t)len, UET_PDS_REQ_LEN,
				    kind == TH_FRAME_TRIMMED ? 16 :
				    kind == TH_FRAME_TRIMMED_LH ? 18 : 0,
				    kind != TH_FRAME_TRIMMED_LH);
}

static int
th_frame(struct uet_engine_lcore *lc, struct th *t, bool req,
	 struct rte_mbuf **out)
{
	static const uint8_t payload[TH_PLEN_MAX];
	struct rte_mbuf *m = uet_engine_mbuf_alloc(lc, 0);
	unsigned int plen = t->plen != 0 ? t->plen : 64;
	struct uet_wire_pkt p;
	int len;

	if (m == NULL)
		return -ENOMEM;
	memset(&p, 0, sizeof(p));
	if (uet_engine_outer_prepare(lc, 0, t->ipver, t->peer, &p.outer) < 0)
		goto free_m;
	p.outer.udp_sport = (uint16_t)(49152 + t->sent % 64);
	if (req) {
		p.pds.type = UET_PDS_TYPE_RUD_REQ;
		p.pds.next_hdr = UET_PDS_NEXT_REQUEST_STD;
		p.pds.u.req.psn = 1000 + t->sent;
		p.pds.u.req.spdcid = 1;
		p.pds.u.req.dpdcid = 2;
		p.req.opcode = UET_SES_OP_SEND;
		p.req.version = UET_SES_VERSION;
		p.req.flags = UET_SES_F_SOM | UET_SES_F_EOM;
		p.req.job_id = 1;
		p.req.request_length = plen;
	} else {
		p.pds.type = UET_PDS_TYPE_ACK;
		p.pds.next_hdr = UET_PDS_NEXT_NONE;
		p.pds.u.ack.cack_psn = 1000 + t->acks_sent;
		p.pds.u.ack.spdcid = 2;
		p.pds.u.ack.dpdcid = 1;
		p.outer.dscp = 46;
	}
	len = uet_wire_pkt_build(&p, payload, req ? plen : 0,
			    rte_pktmbuf_mtod(m, uint8_t *),
			    rte_pktmbuf_tailroom(m));
	if (len > 0)
		len = th_frame_finish(&p.outer, rte_pktmbuf_mtod(m, uint8_t *),
				      len, req ? t->frame_kind : TH_FRAME_OK);
	if (len <= 0 || rte_pktmbuf_append(m, (uint16_t)len) == NULL)
		goto free_m;
	*out = m;
	return 0;
free_m:
	rte_pktmbuf_free(m);
	return -EINVAL;
}

static uint16_t
th_tx(void *priv, struct uet_engine_lcore *lc, uint64_t now)
{
	struct th *t = priv;
	uint16_t queued = 0;

	(void)now;
	if (t->gate_passes != 0 && --t->gate_passes == 0)
		atomic_store(&t->gate->out, false);
	/* a few per iteration: TX staging is bounded */
	while (queued < 8 && (t->to_send > 0 || t->acks_due > 0) &&
	       uet_engine_tx_space(lc, 0) > 0) {
		bool req = t->to_send > 0;
		struct rte_mbuf *m;

		if (th_frame(lc, t, req, &m) < 0)
			break;
		if (uet_engine_tx_ip(lc, 0, m) < 0) {
			rte_pktmbuf_free(m);
			break;
		}
		if (req) {
			t->to_send--;
			t->sent++;
		} else {
			t->acks_due--;
			t->acks_sent++;
		}
		queued++;
	}
	return queued;
}

static const struct uet_engine_hook_ops th_ops = {
	.size = sizeof(struct uet_engine_hook_ops),
	.name = "test",
	.lcore_init = th_init,
	.rx_burst = th_rx,
	.advance = th_advance,
	.tx_ready = th_tx,
	.next_deadline = th_deadline,
};

/* ------------------------------------------------------------------ */
/* setup                                                               */
/* ------------------------------------------------------------------ */

static const uint8_t ip4_a[16] = { 10, 0, 0, 1 };
static const uint8_t ip4_b[16] = { 10, 0, 0, 2 };
static const uint8_t ip6_a[16] = { 0xfd, [15] = 1 };
static const uint8_t ip6_b[16] = { 0xfd, [15] = 2 };
static const uint8_t mac_a[6] = { 0x02, 0, 0, 0, 0, 0x0a };
static const uint8_t mac_b[6] = { 0x02, 0, 0, 0, 0, 0x0b };

static void
config_make(struct uet_config *c, const char *dev, const uint8_t *ip4,
	 const uint8_t *ip6, const uint8_t *mac, bool inline_mode)
{
	uet_config_init_defaults(c);
	for (unsigned int i = 1; i < UET_CONFIG_MAX_PORTS; i++)
		c->port[i].defined = false;
	c->port[0].defined = true;
	snprintf(c->port[0].devargs, sizeof(c->port[0].devargs), "%s", dev);
	c->port[0].has_ipv4 = true;
	memcpy(&c->port[0].ipv4, ip4, 4);
	c->port[0].has_ipv6 = true;
	memcpy(&c->port[0].ipv6, ip6, 16);
	c->port[0].has_mac = true;
	memcpy(c->port[0].mac, mac, 6);
	/* required, not auto's none on a ring port: test_rx_classes sends
	 * frames without or with a wrong checksum */
	c->port[0].udp_checksum = UET_CONFIG_UDP_CSUM_ON;
	c->engine.progress = inline_mode ? UET_CONFIG_PROGRESS_INLINE :
					   UET_CONFIG_PROGRESS_AUTO;
	c->engine.nb_lcores = 1;
	c->engine.lcores[0] = 1;
	c->engine.mbuf_pool_size = 2047;
	c->engine.mbuf_cache = 32;
	c->nb_neighbors = 0;
	c->fault.enabled = false;
}

static struct uet_engine *
engine_make(const char *name, const struct uet_config *c, struct th *t)
{
	struct uet_engine_params p = {
		.cfg = c, .hook = &th_ops, .hook_arg = t, .name = name,
	};
	struct uet_engine *e = uet_engine_create(&p);

	if (e == NULL)
		fprintf(stderr, "engine %s: %s\n", name, rte_strerror(rte_errno));
	return e;
}

static void
th_reset(struct th *t, unsigned int ipver, const uint8_t *peer)
{
	memset(t, 0, sizeof(*t));
	t->ipver = ipver;
	memcpy(t->peer, peer, 16);
}

/* Poll both inline engines until A sent everything and all went quiet. */
static void
poll_pair(struct uet_engine *a, struct uet_engine *b, struct th *ta)
{
	unsigned int idle = 0;

	for (unsigned int i = 0; i < 200000 && idle < 2000; i++) {
		int w = 0;

		if (a != NULL)
			w += uet_engine_poll(a, 1);
		w += uet_engine_poll(b, 1);
		idle = (w == 0 && ta->to_send == 0) ? idle + 1 : 0;
	}
}

static void
stats_of(struct uet_engine *e, struct uet_engine_lcore_stats *s)
{
	static struct uet_engine_stats st;

	CHECK(uet_engine_stats_get(e, &st) == 0);
	*s = st.total;
}

/* ------------------------------------------------------------------ */
/* ring test                                                           */
/* ------------------------------------------------------------------ */

static void
test_resolution(struct uet_engine *a, struct uet_engine *b, unsigned int ipver)
{
	struct th *ta = &hook_state[0], *tb = &hook_state[1];
	struct uet_engine_lcore_stats sa, sb, before;
	uint8_t mac[6];
	const unsigned int n = 200;

	stats_of(a, &before);
	th_reset(ta, ipver, ipver == 4 ? ip4_b : ip6_b);
	th_reset(tb, ipver, ipver == 4 ? ip4_a : ip6_a);
	ta->to_send = n;
	poll_pair(a, b, ta);
	stats_of(a, &sa);
	stats_of(b, &sb);
	sa.neigh_hold_drop -= before.neigh_hold_drop;
	printf("IPv%u: A sent %u, B got %u requests, A got %u ACKs, "
	       "held+dropped %lu\n", ipver, ta->sent, tb->rx_req, ta->rx_ack,
	       (unsigned long)sa.neigh_hold_drop);
	CHECK(ta->sent == n);
	/* frames beyond the hold limit while resolving are dropped+counted */
	CHECK(tb->rx_req + sa.neigh_hold_drop == n);
	CHECK(tb->rx_req >= n - 8);
	CHECK(ta->rx_ack == tb->acks_sent);
	CHECK(ta->rx_ack == tb->rx_req);
	CHECK(sa.rx_malformed == 0 && sb.rx_malformed == 0);
	if (ipver == 4) {
		CHECK(sa.arp_req_tx >= 1);
		CHECK(sb.arp_req_rx >= 1);
		CHECK(sa.arp_reply_rx >= 1);
		CHECK(uet_engine_neigh_lookup(a, 0, 4, ip4_b, mac) == 0);
		CHECK(memcmp(mac, mac_b, 6) == 0);
		/* B learnt A from the request: its ACKs never waited */
		CHECK(uet_engine_neigh_lookup(b, 0, 4, ip4_a, mac) == 0);
		CHECK(memcmp(mac, mac_a, 6) == 0);
	} else {
		CHECK(sa.nd_ns_tx >= 1);
		CHECK(sb.nd_ns_rx >= 1);
		CHECK(sa.nd_na_rx >= 1);
		CHECK(sa.nd_bad == 0 && sb.nd_bad == 0);
		CHECK(uet_engine_neigh_lookup(a, 0, 6, ip6_b, mac) == 0);
		CHECK(memcmp(mac, mac_b, 6) == 0);
	}
}

/* @p n requests of @p kind from A to B (IPv4, neighbours resolved). */
static void
send_kind(struct uet_engine *a, struct uet_engine *b, unsigned int kind,
	  unsigned int n, struct uet_engine_lcore_stats *sb)
{
	struct th *ta = &hook_state[0], *tb = &hook_state[1];
	struct uet_engine_lcore_stats before;

	stats_of(b, &before);
	th_reset(ta, 4, ip4_b);
	th_reset(tb, 4, ip4_a);
	ta->frame_kind = kind;
	ta->to_send = n;
	poll_pair(a, b, ta);
	stats_of(b, sb);
	for (size_t i = 0; i < sizeof(*sb) / sizeof(uint64_t); i++)
		((uint64_t *)sb)[i] -= ((const uint64_t *)&before)[i];
}

/*
 * The receive-side classes (port.udp_checksum on, config_make()): a frame
 * without UDP checksum or with a wrong one is dropped and counted before
 * the hook; a switch-trimmed frame (shorter than its UDP length, DSCP
 * trimmed, or trimmed_lasthop with the IP length left as it was)
 * reaches the hook as trimmed; the same cut with the data DSCP is a
 * short frame, dropped as malformed (TRUNCATED).
 */
static void
test_rx_classes(struct uet_engine *a, struct uet_engine *b)
{
	struct th *tb = &hook_state[1];
	struct uet_engine_lcore_stats sb;
	const unsigned int n = 50;

	send_kind(a, b, TH_FRAME_NO_CSUM, n, &sb);
	CHECK(sb.rx_csum_none == n && tb->rx_req == 0 && sb.rx_uet == 0);
	send_kind(a, b, TH_FRAME_BAD_CSUM, n, &sb);
	CHECK(sb.rx_csum_bad == n && tb->rx_req == 0 && sb.rx_uet == 0);
	send_kind(a, b, TH_FRAME_TRIMMED, n, &sb);
	CHECK(sb.rx_trimmed == n && tb->rx_trimmed == n);
	CHECK(sb.rx_malformed == 0 && sb.rx_csum_bad == 0);
	send_kind(a, b, TH_FRAME_TRIMMED_LH, n, &sb);
	CHECK(sb.rx_trimmed == n && tb->rx_trimmed == n);
	CHECK(sb.rx_malformed == 0 && sb.rx_csum_bad == 0);
	send_kind(a, b, TH_FRAME_SHORT, n, &sb);
	CHECK(sb.rx_malformed == n && sb.rx_trimmed == 0 && tb->rx_req == 0);
	CHECK(sb.rx_err_code[UET_WIRE_E_TRUNCATED] == n);
	CHECK(sb.rx_err_layer[UET_PKT_LAYER_UDP] == n);
	send_kind(a, b, TH_FRAME_OK, n, &sb);
	CHECK(tb->rx_req == n && sb.rx_csum_bad == 0 && sb.rx_csum_none == 0);
	printf("rx classes: %u each of no checksum, bad checksum, trimmed, "
	       "trimmed at the last hop, short, good: checked\n", n);
}

/* Frames A's context holds staged for TX. */
static unsigned int
staged_of(const struct uet_engine *a)
{
	return a->lc[0]->tx[0].n;
}

/*
 * A post's frames and the net_memif port gate (docs/ENGINE.md "Port
 * gate"): while the EAL interrupt thread is out of the gate the lcores
 * skip their bursts, so frames built meanwhile stay staged. An inline
 * application that posts (fi_inject) and then waits for its peer without
 * calling the provider (fi_pingpong's count over its TCP socket) never
 * sent them, and both sides waited for good. uet_engine_flush() polls on
 * until the gate is back. The gate is simulated on A's ring port: the
 * hook lowers @c out at its n-th TX pass, as the interrupt thread coming
 * back would. Deterministic: no clock decides a result.
 */
static void
test_gate_flush(struct uet_engine *a, struct uet_engine *b)
{
	struct th *ta = &hook_state[0], *tb = &hook_state[1];
	struct engine_gate *g = &a->gate;
	struct uet_engine_lcore_stats s0, s1;
	const unsigned int n = 4;

	th_reset(ta, 4, ip4_b);
	th_reset(tb, 4, ip4_a);
	g->enabled = true;
	atomic_store(&g->out, true);
	stats_of(a, &s0);
	/* one post's progress with the gate out: built, not sent */
	ta->to_send = n;
	CHECK(uet_engine_poll(a, 4) > 0);
	stats_of(a, &s1);
	CHECK(ta->sent == n && staged_of(a) == n);
	CHECK(s1.tx_pkts == s0.tx_pkts);
	/* the flush waits until the thread is back (3 passes), then sends */
	ta->gate = g;
	ta->gate_passes = 3;
	CHECK(uet_engine_flush(a, 4, 10ull * 1000 * 1000 * 1000) == 0);
	stats_of(a, &s1);
	CHECK(ta->gate_passes == 0 && staged_of(a) == 0);
	CHECK(s1.tx_pkts == s0.tx_pkts + n);
	CHECK(s1.tx_gate_waits == s0.tx_gate_waits + 1);
	/* a gate that stays out: bounded, and the frames wait, not lost */
	atomic_store(&g->out, true);
	ta->to_send = n;
	CHECK(uet_engine_flush(a, 4, 1000 * 1000) == -ETIMEDOUT);
	CHECK(staged_of(a) == n);
	atomic_store(&g->out, false);
	CHECK(uet_engine_flush(a, 4, 1000 * 1000) == 0);
	CHECK(staged_of(a) == 0);
	g->enabled = false;
	poll_pair(a, b, ta);
	CHECK(tb->rx_req == 2 * n && ta->rx_ack == 2 * n);
	printf("port gate: a post's %u frames waited for the gate, then left; "
	       "a gate kept out bounded the flush\n", n);
}

static void
fault_cfg(struct uet_config *c, unsigned int dir, unsigned int cls)
{
	c->fault.enabled = true;
	c->fault.seed = 42;
	c->fault.delay_ns = 2000;
	c->fault.reorder_depth = 3;
	for (unsigned int k = 0; k < UET_CONFIG_FAULT_KINDS; k++)
		c->fault.ppm[dir][cls][k] = 60000;
}

/* A and B know each other's IPv4 neighbour (no ARP). */
static void
static_pair(struct uet_config *ca, struct uet_config *cb)
{
	ca->nb_neighbors = 1;
	ca->neighbor[0].ip.family = AF_INET;
	memcpy(&ca->neighbor[0].ip.v4, ip4_b, 4);
	memcpy(ca->neighbor[0].mac, mac_b, 6);
	cb->nb_neighbors = 1;
	cb->neighbor[0].ip.family = AF_INET;
	memcpy(&cb->neighbor[0].ip.v4, ip4_a, 4);
	memcpy(cb->neighbor[0].mac, mac_a, 6);
}

/* A and B on the back-to-back rings with @p ca and @p cb, each knowing
 * the other's IPv4 neighbour, A addressing B; false (checked) when either
 * engine could not be created: the caller frees both. */
static bool
ring_pair_make(struct uet_config *ca, struct uet_config *cb,
	       const char *name_a, const char *name_b, struct uet_engine **a,
	       struct uet_engine **b)
{
	static_pair(ca, cb);
	th_reset(&hook_state[0], 4, ip4_b);
	th_reset(&hook_state[1], 4, ip4_a);
	*a = engine_make(name_a, ca, &hook_state[0]);
	*b = engine_make(name_b, cb, &hook_state[1]);
	CHECK(*a != NULL && *b != NULL);
	return *a != NULL && *b != NULL;
}

/* Occurrences of @p what in @p text (NULL: none). */
static unsigned int
count_of(const char *text, const char *what)
{
	unsigned int n = 0;

	for (const char *s = text; s != NULL && (s = strstr(s, what)) != NULL;
	     s += strlen(what))
		n++;
	return n;
}

/*
 * Both ends of a link need the same [port0] mtu: A at auto (9000 on a
 * net_ring port) sends B, at 1500, requests of a 4000-byte payload. B
 * drops each (nothing tells A, so silence would be a hang), counts it and
 * logs the first with the key to set; a frame of B's MTU still passes.
 */
static void
test_mtu_mismatch(void)
{
	struct th *ta = &hook_state[0], *tb = &hook_state[1];
	struct uet_engine_lcore_stats sa, sb;
	struct uet_config ca, cb;
	struct uet_engine *a, *b;
	const unsigned int n = 20;
	char *log = NULL;
	size_t log_len = 0;
	FILE *f;

	config_make(&ca, "net_ring_ringA", ip4_a, ip6_a, mac_a, true);
	config_make(&cb, "net_ring_ringB", ip4_b, ip6_b, mac_b, true);
	cb.port[0].mtu = 1500;
	static_pair(&ca, &cb);
	a = engine_make("ma", &ca, &hook_state[0]);
	b = engine_make("mb", &cb, &hook_state[1]);
	f = open_memstream(&log, &log_len);
	CHECK(a != NULL && b != NULL && f != NULL);
	if (a == NULL || b == NULL || f == NULL)
		goto out;
	rte_openlog_stream(f);
	th_reset(ta, 4, ip4_b);
	th_reset(tb, 4, ip4_a);
	ta->plen = 4000;
	ta->to_send = n;
	poll_pair(a, b, ta);
	rte_openlog_stream(NULL);
	fclose(f);
	stats_of(a, &sa);
	stats_of(b, &sb);
	printf("mtu mismatch: A sent %u, B dropped %lu, log: %s", ta->sent,
	       (unsigned long)sb.rx_mtu_exceeded, log);
	CHECK(ta->sent == n && tb->rx_req == 0 && sb.rx_uet == 0);
	CHECK(sb.rx_mtu_exceeded == n && sb.rx_malformed == 0);
	CHECK(sa.rx_mtu_exceeded == 0);
	/* logged once, naming the key */
	CHECK(log != NULL && strstr(log, "port0.mtu 1500") != NULL);
	CHECK(count_of(log, "set [port0] mtu alike at both ends") == 1);
	/* the longest payload of B's MTU passes */
	th_reset(ta, 4, ip4_b);
	th_reset(tb, 4, ip4_a);
	ta->plen = 1500 - UET_IPV4_HLEN - UET_UDP_HLEN - UET_PDS_REQ_LEN -
		   UET_SES_STD_LEN;
	ta->to_send = n;
	poll_pair(a, b, ta);
	stats_of(b, &sb);
	CHECK(tb->rx_req == n && sb.rx_mtu_exceeded == n);
out:
	free(log);
	uet_engine_free(b);
	uet_engine_free(a);
}

/* A: TX faults on requests; B: RX faults on requests (not on ARP/ND). */
static void
run_faults(struct uet_engine_fault_stats *out_a)
{
	struct th *ta = &hook_state[0], *tb = &hook_state[1];
	struct uet_config ca, cb;
	struct uet_engine *a, *b;
	struct uet_engine_lcore_stats sa, sb;
	const unsigned int n = 1000;

	config_make(&ca, "net_ring_ringA", ip4_a, ip6_a, mac_a, true);
	config_make(&cb, "net_ring_ringB", ip4_b, ip6_b, mac_b, true);
	fault_cfg(&ca, UET_CONFIG_FAULT_TX, UET_CONFIG_FAULT_DATA);
	fault_cfg(&cb, UET_CONFIG_FAULT_RX, UET_CONFIG_FAULT_DATA);
	if (!ring_pair_make(&ca, &cb, "fa", "fb", &a, &b))
		goto out;
	ta->to_send = n;
	poll_pair(a, b, ta);
	stats_of(a, &sa);
	stats_of(b, &sb);
	for (unsigned int k = 0; k < UET_CONFIG_FAULT_KINDS; k++) {
		printf("fault %-8s A.tx applied %4lu skipped %lu   "
		       "B.rx applied %4lu skipped %lu\n",
		       uet_engine_fault_name(k),
		       (unsigned long)sa.fault[UET_CONFIG_FAULT_TX].applied[k],
		       (unsigned long)sa.fault[UET_CONFIG_FAULT_TX].skipped[k],
		       (unsigned long)sb.fault[UET_CONFIG_FAULT_RX].applied[k],
		       (unsigned long)sb.fault[UET_CONFIG_FAULT_RX].skipped[k]);
		CHECK(sa.fault[UET_CONFIG_FAULT_TX].applied[k] > 0);
		CHECK(sb.fault[UET_CONFIG_FAULT_RX].applied[k] > 0);
		/* the other direction/class had no rates */
		CHECK(sa.fault[UET_CONFIG_FAULT_RX].applied[k] == 0);
	}
	printf("B: rx_uet %lu malformed %lu; A: rx acks %u\n",
	       (unsigned long)sb.rx_uet, (unsigned long)sb.rx_malformed,
	       ta->rx_ack);
	/* trimmed requests (UDP length of the original) reach the hook as
	 * trimmed; corrupted ones are dropped on their UDP checksum */
	CHECK(tb->rx_trimmed > 0 && tb->rx_trimmed == sb.rx_trimmed);
	CHECK(sb.rx_csum_bad > 0);
	/* everything held was released after the traffic stopped */
	CHECK(sa.fault[UET_CONFIG_FAULT_TX].released ==
	      sa.fault[UET_CONFIG_FAULT_TX].applied[UET_CONFIG_FAULT_REORDER] +
	      sa.fault[UET_CONFIG_FAULT_TX].applied[UET_CONFIG_FAULT_DELAY]);
	*out_a = sa.fault[UET_CONFIG_FAULT_TX];
out:
	uet_engine_free(b);
	uet_engine_free(a);
}

static void
test_faults(void)
{
	struct uet_engine_fault_stats r1, r2;

	memset(&r1, 0, sizeof(r1));
	memset(&r2, 0, sizeof(r2));
	run_faults(&r1);
	run_faults(&r2);
	/* same seed, same packet sequence: same decisions */
	CHECK(memcmp(r1.applied, r2.applied, sizeof(r1.applied)) == 0);
}

static uint64_t fakewire_now; /* test_fault_window's engine clock */

static uint64_t
fakewire_clock(void *arg)
{
	(void)arg;
	return fakewire_now;
}

/* [fault] from/until: frames before from and from until on pass
 * untouched; inside, every data frame is marked (ECN at 10^6 ppm). The
 * sender runs on an injected clock, so the window is exact. */
static void
test_fault_window(void)
{
	static const struct uet_engine_clock clk = { .now = fakewire_clock };
	struct th *ta = &hook_state[0], *tb = &hook_state[1];
	struct uet_engine_params pa = { .hook = &th_ops, .hook_arg = ta,
					.name = "fwa", .clock = &clk };
	static const uint64_t at[3] = { 500000, 1500000, 2500000 };
	static const uint64_t want[3] = { 0, 100, 100 };
	struct uet_engine_lcore_stats sa;
	struct uet_engine *a = NULL, *b;
	struct uet_config ca, cb;

	config_make(&ca, "net_ring_ringA", ip4_a, ip6_a, mac_a, true);
	config_make(&cb, "net_ring_ringB", ip4_b, ip6_b, mac_b, true);
	ca.fault.enabled = true;
	ca.fault.ppm[UET_CONFIG_FAULT_TX][UET_CONFIG_FAULT_DATA]
		    [UET_CONFIG_FAULT_ECN] = 1000000;
	ca.fault.from_ns = 1000000;  /* 1 ms */
	ca.fault.until_ns = 2000000; /* 2 ms */
	static_pair(&ca, &cb);
	th_reset(ta, 4, ip4_b);
	th_reset(tb, 4, ip4_a);
	fakewire_now = 0;
	pa.cfg = &ca;
	a = uet_engine_create(&pa);
	b = engine_make("fwb", &cb, tb);
	CHECK(a != NULL && b != NULL);
	if (a == NULL || b == NULL)
		goto out;
	for (unsigned int i = 0; i < RTE_DIM(at); i++) {
		fakewire_now = at[i];
		ta->to_send = 100;
		poll_pair(a, b, ta);
		stats_of(a, &sa);
		CHECK(sa.fault[UET_CONFIG_FAULT_TX]
			      .applied[UET_CONFIG_FAULT_ECN] == want[i]);
	}
	CHECK(tb->rx_req == 300); /* marked or not, every frame arrived */
	printf("fault window 1 ms .. 2 ms: 100 frames before, 100 inside "
	       "(all marked), 100 after: checked\n");
out:
	uet_engine_free(b);
	uet_engine_free(a);
}

/*
 * A sends to B, which does not poll: the ring between them fills. With
 * TX faults on, what the queue refuses waits in the fault path's release
 * list, and uet_engine_tx_space() must shrink with it, as it does with
 * the staging array when faults are off: A stops building frames and
 * frees none (tx_full); once B polls, every frame A built arrives, the
 * duplicates with them.
 */
static void
test_fault_backpressure(void)
{
	struct th *ta = &hook_state[0], *tb = &hook_state[1];
	struct uet_engine_lcore_stats sa;
	struct uet_config ca, cb;
	struct uet_engine *a, *b;
	const unsigned int n = 20000;
	unsigned int sent_full;
	uint64_t dups;

	config_make(&ca, "net_ring_ringA", ip4_a, ip6_a, mac_a, true);
	config_make(&cb, "net_ring_ringB", ip4_b, ip6_b, mac_b, true);
	ca.fault.enabled = true;
	ca.fault.seed = 7;
	ca.fault.reorder_depth = 3;
	ca.fault.ppm[UET_CONFIG_FAULT_TX][UET_CONFIG_FAULT_DATA]
		    [UET_CONFIG_FAULT_DUP] = 100000;
	ca.fault.ppm[UET_CONFIG_FAULT_TX][UET_CONFIG_FAULT_DATA]
		    [UET_CONFIG_FAULT_REORDER] = 100000;
	if (!ring_pair_make(&ca, &cb, "pa", "pb", &a, &b))
		goto out;
	ta->to_send = n;
	for (unsigned int i = 0; i < 5000; i++)
		(void)uet_engine_poll(a, 1);
	stats_of(a, &sa);
	sent_full = ta->sent;
	printf("fault backpressure: A built %u of %u into a full queue, "
	       "held %lu, freed %lu\n", sent_full, n,
	       (unsigned long)sa.tx_held, (unsigned long)sa.tx_full);
	CHECK(sent_full < n && sa.tx_held > 0);
	CHECK(sa.tx_full == 0);
	poll_pair(a, b, ta);
	stats_of(a, &sa);
	dups = sa.fault[UET_CONFIG_FAULT_TX].applied[UET_CONFIG_FAULT_DUP];
	printf("fault backpressure: then B polled: A sent %u, %lu "
	       "duplicates, B received %u\n", ta->sent, (unsigned long)dups,
	       tb->rx_req);
	CHECK(ta->sent == n && sa.tx_full == 0 && dups > 0);
	CHECK(tb->rx_req == n + dups);
out:
	uet_engine_free(b);
	uet_engine_free(a);
}

static void
test_chan_backpressure(void)
{
	struct uet_chan *c = uet_chan_create("tq", 8, 8, 8, SOCKET_ID_ANY, 0);
	struct uet_chan_sqe s = { .op = UET_CHAN_OP_NOP };
	unsigned int posted = 0;

	CHECK(c != NULL);
	if (c == NULL)
		return;
	while (uet_chan_sq_post(c, &s) == 0 && posted < 100)
		posted++;
	CHECK(posted == 7); /* size 8 holds 7 */
	CHECK(uet_chan_sq_post(c, &s) == -EAGAIN);
	CHECK(uet_chan_create("tq", 8, 8, 8, SOCKET_ID_ANY, 0) == NULL);
	CHECK(uet_chan_create("tq2", 6, 8, 8, SOCKET_ID_ANY, 0) == NULL);
	uet_chan_free(c);
	uet_chan_free(NULL);
}

/* A runs on worker lcore 1 (AUTO), B inline on this thread. */
static void
test_auto(void)
{
	struct th *ta = &hook_state[0], *tb = &hook_state[1];
	struct uet_config ca, cb;
	struct uet_engine *a, *b;
	struct uet_chan *ch;
	struct uet_engine_lcore_stats sa;
	unsigned int nops = 0, acks = 0;
	const unsigned int n = 300;

	if (rte_lcore_count() < 2 || !rte_lcore_is_enabled(1)) {
		printf("auto: skipped (no worker lcore 1)\n");
		return;
	}
	config_make(&ca, "net_ring_ringA", ip4_a, ip6_a, mac_a, false);
	config_make(&cb, "net_ring_ringB", ip4_b, ip6_b, mac_b, true);
	/* static entry for A: no frames lost while resolving */
	static_pair(&ca, &cb);
	th_reset(ta, 4, ip4_b);
	th_reset(tb, 4, ip4_a);
	ch = uet_chan_create("autoch", 64, 64, 64, SOCKET_ID_ANY, 0);
	ta->chan = ch;
	a = engine_make("aa", &ca, ta);
	b = engine_make("ab", &cb, tb);
	CHECK(a != NULL && b != NULL && ch != NULL);
	if (a == NULL || b == NULL || ch == NULL)
		goto out;
	CHECK(uet_engine_chan_attach(a, 0, ch) == 0);
	__atomic_store_n(&ta->to_send, n, __ATOMIC_RELEASE);
	CHECK(uet_engine_start(a) == 0);
	CHECK(uet_engine_poll(a, 1) == -EBUSY);
	for (unsigned int i = 0; i < 16; i++) {
		struct uet_chan_sqe s = { .op = UET_CHAN_OP_NOP, .context = i };

		CHECK(uet_chan_sq_post(ch, &s) == 0);
	}
	/* bounded by iterations of this thread, not by time */
	for (unsigned int i = 0; i < 2000000; i++) {
		struct uet_chan_cqe c[8];
		unsigned int k = uet_chan_cq_poll(ch, c, RTE_DIM(c));

		for (unsigned int j = 0; j < k; j++) {
			CHECK(c[j].status == 0 && c[j].context == nops);
			nops++;
		}
		(void)uet_engine_poll(b, 1);
		stats_of(a, &sa);
		acks = (unsigned int)sa.rx_class[UET_ENGINE_CLASS_ACK];
		if (nops == 16 && acks >= n)
			break;
	}
	CHECK(uet_engine_stop(a) == 0);
	stats_of(a, &sa);
	printf("auto: A iterations %lu, sent %u, ACKs %u, hold drops %lu, "
	       "NOPs completed %u\n", (unsigned long)sa.iterations, ta->sent,
	       ta->rx_ack, (unsigned long)sa.neigh_hold_drop, nops);
	CHECK(nops == 16);
	CHECK(ta->sent == n);
	CHECK(ta->rx_ack == n);
	CHECK(sa.neigh_hold_drop == 0 && sa.arp_req_tx == 0);
	CHECK(uet_engine_chan_detach(a, ch) == 0);
out:
	uet_engine_free(b);
	uet_engine_free(a);
	uet_chan_free(ch);
}

/* ------------------------------------------------------------------ */
/* sleep test: an AUTO lcore that sleeps when idle                     */
/* ------------------------------------------------------------------ */

/* Bounds of the waits below (counts of 100 us naps, not assertions). */
#define SLEEP_WAIT_STEPS 100000

static struct uet_engine_lcore_stats
sleep_stats(struct uet_engine *e)
{
	struct uet_engine_lcore_stats s;

	stats_of(e, &s);
	return s;
}

/* Wait until @p e's lcore sleeps (blocked: one sleep more than the
 * wake-ups counted). */
static bool
wait_asleep(struct uet_engine *e)
{
	for (unsigned int i = 0; i < SLEEP_WAIT_STEPS; i++) {
		struct uet_engine_lcore_stats s = sleep_stats(e);

		if (s.idle_sleeps > s.wake_post + s.wake_rx + s.wake_timer +
				    s.wake_poll)
			return true;
		usleep(100);
	}
	return false;
}

/* Wait for the CQE of a NOP with @p context on @p ch, without ever
 * running the engine on this thread. */
static bool
wait_cqe(struct uet_chan *ch, uint64_t context)
{
	for (unsigned int i = 0; i < SLEEP_WAIT_STEPS; i++) {
		struct uet_chan_cqe c;

		if (uet_chan_cq_poll(ch, &c, 1) == 1)
			return c.context == context && c.status == 0;
		usleep(100);
	}
	return false;
}

/*
 * A post to a plain channel of a sleeping context writes the eventfd:
 * the lcore wakes (wake_post) and completes the NOP. A race with a
 * back-off wake-up (the lcore awake at the moment of the post, so no
 * eventfd is needed) is possible, hence a few tries.
 */
static void
sleep_post_wakes(struct uet_engine *a, struct uet_chan *ch)
{
	bool woke = false;

	for (uint64_t k = 1; k <= 10 && !woke; k++) {
		struct uet_engine_lcore_stats s0 = sleep_stats(a), s1;
		struct uet_chan_sqe q = { .op = UET_CHAN_OP_NOP,
					  .context = k };

		CHECK(wait_asleep(a));
		s0 = sleep_stats(a);
		CHECK(uet_chan_sq_post(ch, &q) == 0);
		CHECK(wait_cqe(ch, k));
		s1 = sleep_stats(a);
		woke = s1.wake_post > s0.wake_post &&
		       s1.app_iterations == s0.app_iterations;
	}
	CHECK(woke);
}

/*
 * A post to a UET_CHAN_POSTER_PROGRESS channel of a sleeping context
 * runs its loop on the posting thread: the CQE is there when the post
 * returns, counted in app_iterations.
 */
static void
sleep_post_progresses(struct uet_engine *a, struct uet_chan *ch)
{
	bool ran = false;

	for (uint64_t k = 100; k < 110 && !ran; k++) {
		struct uet_engine_lcore_stats s0 = sleep_stats(a), s1;
		struct uet_chan_sqe q = { .op = UET_CHAN_OP_NOP,
					  .context = k };
		struct uet_chan_cqe c;

		CHECK(wait_asleep(a));
		s0 = sleep_stats(a);
		CHECK(uet_chan_sq_post(ch, &q) == 0);
		s1 = sleep_stats(a);
		if (s1.app_iterations > s0.app_iterations) {
			ran = true;
			CHECK(uet_chan_cq_poll(ch, &c, 1) == 1);
			CHECK(c.context == k && c.status == 0);
		} else {
			CHECK(wait_cqe(ch, k));
		}
	}
	CHECK(ran);
}

/* The thief of sleep_stolen_kicks(): reads the wake eventfd, blocking,
 * until told to stop. */
struct thief {
	int fd;
	volatile bool stop;
	volatile bool done;
	unsigned long reads;
};

static void *
thief_run(void *arg)
{
	struct thief *t = arg;
	uint64_t v;

	while (!t->stop)
		if (read(t->fd, &v, sizeof(v)) == (ssize_t)sizeof(v))
			t->reads++;
	t->done = true;
	return NULL;
}

/*
 * The security review's freeze of a uet-engine service's lcore: the
 * wake-up eventfd is shared with the processes that post (one open file
 * description), and one of them cleared O_NONBLOCK and read the counter
 * in a loop, so the lcore's own read blocked for good (and the engine
 * could not stop). Now the lcore reads it without blocking, and a sleep
 * of a context whose eventfd was handed out ends by its back-off: every
 * post still completes, kicks stolen or not, and the engine stops.
 */
static void
sleep_stolen_kicks(struct uet_engine *a, struct uet_chan *ch)
{
	struct thief t = { .fd = uet_engine_wake_fd(a, 0) };
	pthread_t th;
	int fl = t.fd >= 0 ? fcntl(t.fd, F_GETFL) : -1;
	uint64_t one = 1;

	CHECK(t.fd >= 0 && fl >= 0);
	if (t.fd < 0 || fl < 0)
		return;
	CHECK(fcntl(t.fd, F_SETFL, fl & ~O_NONBLOCK) == 0);
	CHECK(pthread_create(&th, NULL, thief_run, &t) == 0);
	for (uint64_t k = 200; k < 204; k++) {
		struct uet_chan_sqe q = { .op = UET_CHAN_OP_NOP,
					  .context = k };

		CHECK(uet_chan_sq_post(ch, &q) == 0);
		CHECK(wait_cqe(ch, k));
	}
	/* its blocked read ends with a write it gets before the lcore */
	t.stop = true;
	for (unsigned int i = 0; i < SLEEP_WAIT_STEPS && !t.done; i++) {
		if (write(t.fd, &one, sizeof(one)) != sizeof(one))
			CHECK(!"eventfd write");
		usleep(100);
	}
	CHECK(t.done);
	CHECK(pthread_join(th, NULL) == 0);
	printf("sleep: 4 posts completed with a thief reading the wake "
	       "eventfd (%lu kicks stolen)\n", t.reads);
	CHECK(fcntl(t.fd, F_SETFL, fl) == 0);
}

/* A timer armed from the loop wakes the sleeping lcore at its deadline. */
static void
sleep_timer_wakes(struct uet_engine *a, struct th *ta, struct uet_chan *ch)
{
	struct uet_engine_lcore_stats s0 = sleep_stats(a), s1;
	/* the NOP arms a timer 3 ms later (th_serve) */
	struct uet_chan_sqe q = { .op = UET_CHAN_OP_NOP, .context = 200,
				  .tag = 3000000 };
	unsigned int fired = __atomic_load_n(&ta->fired, __ATOMIC_ACQUIRE);

	CHECK(uet_chan_sq_post(ch, &q) == 0);
	CHECK(wait_cqe(ch, 200));
	for (unsigned int i = 0; i < SLEEP_WAIT_STEPS; i++) {
		if (__atomic_load_n(&ta->fired, __ATOMIC_ACQUIRE) != fired)
			break;
		usleep(100);
	}
	s1 = sleep_stats(a);
	CHECK(__atomic_load_n(&ta->fired, __ATOMIC_ACQUIRE) == fired + 1);
	CHECK(s1.wake_timer > s0.wake_timer);
	printf("sleep: timer: wake_timer %lu -> %lu, wake_poll %lu -> %lu\n",
	       (unsigned long)s0.wake_timer, (unsigned long)s1.wake_timer,
	       (unsigned long)s0.wake_poll, (unsigned long)s1.wake_poll);
}

/*
 * Frames for a sleeping context on a port without RX interrupts (ring):
 * the back-off wake-up finds them (wake_poll), A answers every request.
 */
static void
sleep_packets_polled(struct uet_engine *a, struct uet_engine *b,
		     struct th *ta, struct th *tb)
{
	struct uet_engine_lcore_stats s0 = sleep_stats(a), s1;
	const unsigned int n = 5;
	unsigned int acks = tb->rx_ack;

	CHECK(wait_asleep(a));
	s0 = sleep_stats(a);
	__atomic_store_n(&tb->to_send, n, __ATOMIC_RELEASE);
	for (unsigned int i = 0; i < SLEEP_WAIT_STEPS &&
	     tb->rx_ack < acks + n; i++) {
		if (uet_engine_poll(b, 4) == 0)
			usleep(100);
	}
	s1 = sleep_stats(a);
	CHECK(tb->rx_ack == acks + n);
	CHECK(__atomic_load_n(&ta->rx_req, __ATOMIC_ACQUIRE) >= n);
	CHECK(s1.wake_poll > s0.wake_poll);
	CHECK(s1.rx_class[UET_ENGINE_CLASS_REQ] ==
	      s0.rx_class[UET_ENGINE_CLASS_REQ] + n);
}

/*
 * uet_engine_progress() from this thread while the lcore sleeps: the
 * requests B sends are answered by iterations run here.
 */
static void
sleep_app_progress(struct uet_engine *a, struct uet_engine *b,
		   struct th *tb)
{
	struct uet_engine_lcore_stats s0, s1;
	const unsigned int n = 5;
	unsigned int acks = tb->rx_ack;

	CHECK(wait_asleep(a));
	s0 = sleep_stats(a);
	__atomic_store_n(&tb->to_send, n, __ATOMIC_RELEASE);
	for (unsigned int i = 0; i < 200000 && tb->rx_ack < acks + n; i++) {
		(void)uet_engine_poll(b, 1);
		(void)uet_engine_progress(a, 4);
	}
	s1 = sleep_stats(a);
	CHECK(tb->rx_ack == acks + n);
	CHECK(s1.app_iterations > s0.app_iterations);
	printf("sleep: app progress: %lu iterations on this thread\n",
	       (unsigned long)(s1.app_iterations - s0.app_iterations));
}

/*
 * A polling application thread owns the context: a ping-pong (B, inline
 * on this thread, sends a request, A answers with an ACK) in which each
 * round also posts a NOP to A's progress channel that arms a timer 100 us
 * later; this thread's uet_engine_progress() calls answer the requests
 * and fire the timers while A's lcore stays asleep. The lcore may wake
 * once per grace (idle_sleep_max) that the run lasts, and once more for a
 * sleep that began before, but not per message or per timer: an eventfd
 * write or a timerfd wake-up per message is what made AUTO progress
 * several times slower than INLINE on two CPUs.
 */
static void
sleep_app_owns(struct uet_engine *a, struct uet_engine *b, struct th *ta,
	       struct th *tb, struct uet_chan *chp, uint64_t grace_ns)
{
	const unsigned int n = 20;
	struct uet_engine_lcore_stats s0, s1;
	unsigned int fired = __atomic_load_n(&ta->fired, __ATOMIC_ACQUIRE);
	unsigned int acks = tb->rx_ack, done = 0;
	uint64_t t0, wakes, allowed;

	CHECK(wait_asleep(a));
	s0 = sleep_stats(a);
	t0 = uet_engine_now(a);
	for (unsigned int k = 0; k < n; k++) {
		struct uet_chan_sqe q = { .op = UET_CHAN_OP_NOP,
					  .context = 300 + k, .tag = 100000 };
		bool cqe = false;

		CHECK(uet_chan_sq_post(chp, &q) == 0);
		__atomic_store_n(&tb->to_send, 1, __ATOMIC_RELEASE);
		/* bounded by calls, not by time */
		for (unsigned int i = 0; i < 20000000; i++) {
			struct uet_chan_cqe c;

			if (!cqe && uet_chan_cq_poll(chp, &c, 1) == 1) {
				CHECK(c.context == 300 + k && c.status == 0);
				cqe = true;
			}
			if (cqe && tb->rx_ack == acks + k + 1 &&
			    __atomic_load_n(&ta->fired, __ATOMIC_ACQUIRE) ==
			    fired + k + 1)
				break;
			(void)uet_engine_poll(b, 1);
			(void)uet_engine_progress(a, 4);
		}
		done += cqe;
	}
	s1 = sleep_stats(a);
	wakes = (s1.wake_post - s0.wake_post) + (s1.wake_rx - s0.wake_rx) +
		(s1.wake_timer - s0.wake_timer) +
		(s1.wake_poll - s0.wake_poll);
	allowed = 2 + (uet_engine_now(a) - t0) / grace_ns;
	printf("sleep: app owns: %u NOPs, %u ACKs, %u timers, lcore wake-ups "
	       "%lu (allowed %lu), app iterations %lu\n", done,
	       tb->rx_ack - acks,
	       __atomic_load_n(&ta->fired, __ATOMIC_ACQUIRE) - fired,
	       (unsigned long)wakes, (unsigned long)allowed,
	       (unsigned long)(s1.app_iterations - s0.app_iterations));
	CHECK(done == n);
	CHECK(tb->rx_ack == acks + n);
	CHECK(__atomic_load_n(&ta->fired, __ATOMIC_ACQUIRE) == fired + n);
	CHECK(wakes <= allowed);
	CHECK(s1.app_iterations > s0.app_iterations);
}

/*
 * The AUTO guarantee: a timer armed by an application thread's pass
 * fires although that thread never calls again. The lcore, which left
 * the context to the thread, takes it back once the grace has passed.
 */
static void
sleep_app_leaves(struct uet_engine *a, struct th *ta, struct uet_chan *chp)
{
	struct uet_engine_lcore_stats s0, s1;
	struct uet_chan_sqe q = { .op = UET_CHAN_OP_NOP, .context = 400,
				  .tag = 200000 };
	unsigned int fired = __atomic_load_n(&ta->fired, __ATOMIC_ACQUIRE);
	bool ran = false;

	/* the post runs the pass (and arms the timer) on this thread */
	for (unsigned int k = 0; k < 10 && !ran; k++) {
		CHECK(wait_asleep(a));
		s0 = sleep_stats(a);
		q.context = 400 + k;
		CHECK(uet_chan_sq_post(chp, &q) == 0);
		ran = sleep_stats(a).app_iterations > s0.app_iterations;
		CHECK(wait_cqe(chp, 400 + k));
		for (unsigned int i = 0; i < SLEEP_WAIT_STEPS; i++) {
			if (__atomic_load_n(&ta->fired, __ATOMIC_ACQUIRE) !=
			    fired)
				break;
			usleep(100);
		}
		CHECK(__atomic_load_n(&ta->fired, __ATOMIC_ACQUIRE) ==
		      fired + 1);
		fired = __atomic_load_n(&ta->fired, __ATOMIC_ACQUIRE);
	}
	s1 = sleep_stats(a);
	CHECK(ran);
	/* fired by the lcore: this thread ran nothing since the post */
	CHECK(s1.wake_timer + s1.wake_poll > s0.wake_timer + s0.wake_poll);
}

/*
 * An idle lcore does not spin: over three sleeps with nothing to do, each
 * of its loop iterations belongs to a wake-up (the one that ends a sleep
 * and the last look before the next).
 */
static void
sleep_idle_iterations(struct uet_engine *a)
{
	struct uet_engine_lcore_stats s0, s1;
	uint64_t sleeps, iters;

	CHECK(wait_asleep(a));
	s0 = sleep_stats(a);
	/* three sleeps of the back-off (or of the grace) */
	for (unsigned int i = 0; i < SLEEP_WAIT_STEPS &&
	     sleep_stats(a).idle_sleeps < s0.idle_sleeps + 3; i++)
		usleep(100);
	CHECK(wait_asleep(a));
	s1 = sleep_stats(a);
	sleeps = s1.idle_sleeps - s0.idle_sleeps;
	CHECK(sleeps >= 3);
	iters = s1.iterations - s0.iterations;
	printf("sleep: idle: %lu sleeps, %lu iterations\n",
	       (unsigned long)sleeps, (unsigned long)iters);
	CHECK(iters <= 2 * sleeps);
	CHECK(s1.app_iterations == s0.app_iterations);
}

/* A runs on worker lcore 1 (AUTO, sleeping when idle), B inline here. */
static void
test_sleep(void)
{
	struct th *ta = &hook_state[0], *tb = &hook_state[1];
	struct uet_config ca, cb;
	struct uet_engine *a = NULL, *b = NULL;
	struct uet_chan *ch, *chp;
	struct uet_engine_lcore_stats s;

	if (rte_lcore_count() < 2 || !rte_lcore_is_enabled(1)) {
		printf("sleep: skipped (no worker lcore 1)\n");
		return;
	}
	config_make(&ca, "net_ring_ringA", ip4_a, ip6_a, mac_a, false);
	config_make(&cb, "net_ring_ringB", ip4_b, ip6_b, mac_b, true);
	ca.engine.idle_spin_ns = 0;
	ca.engine.idle_sleep_ns = 100000;
	ca.engine.idle_sleep_max_ns = 1000000000;
	ca.nb_neighbors = cb.nb_neighbors = 1;
	ca.neighbor[0].ip.family = cb.neighbor[0].ip.family = AF_INET;
	memcpy(&ca.neighbor[0].ip.v4, ip4_b, 4);
	memcpy(ca.neighbor[0].mac, mac_b, 6);
	memcpy(&cb.neighbor[0].ip.v4, ip4_a, 4);
	memcpy(cb.neighbor[0].mac, mac_a, 6);
	th_reset(ta, 4, ip4_b);
	th_reset(tb, 4, ip4_a);
	ch = uet_chan_create("slch", 64, 64, 64, SOCKET_ID_ANY, 0);
	chp = uet_chan_create("slchp", 64, 64, 64, SOCKET_ID_ANY,
			      UET_CHAN_POSTER_PROGRESS);
	CHECK(uet_chan_create("slbad", 64, 64, 64, SOCKET_ID_ANY, 0x80) ==
	      NULL && rte_errno == EINVAL);
	ta->chan = ch;
	ta->chan2 = chp;
	a = engine_make("sa", &ca, ta);
	b = engine_make("sb", &cb, tb);
	CHECK(a != NULL && b != NULL && ch != NULL && chp != NULL);
	if (a == NULL || b == NULL || ch == NULL || chp == NULL)
		goto out;
	CHECK(uet_engine_chan_attach(a, 0, ch) == 0);
	CHECK(uet_engine_chan_attach(a, 0, chp) == 0);
	CHECK(ch->waker != NULL && chp->waker != NULL);
	/* INLINE: progress is a poll, nothing sleeps, wake is a no-op */
	CHECK(uet_engine_progress(b, 1) == 0);
	uet_engine_wake(b, 0);
	CHECK(sleep_stats(b).iterations == 1 &&
	      sleep_stats(b).idle_sleeps == 0);
	CHECK(uet_engine_progress(NULL, 1) == -EINVAL);
	CHECK(uet_engine_start(a) == 0);
	/* first, while the back-off is short */
	sleep_packets_polled(a, b, ta, tb);
	sleep_post_wakes(a, ch);
	sleep_post_progresses(a, chp);
	sleep_timer_wakes(a, ta, ch);
	sleep_app_progress(a, b, tb);
	sleep_app_owns(a, b, ta, tb, chp, ca.engine.idle_sleep_max_ns);
	sleep_app_leaves(a, ta, chp);
	sleep_idle_iterations(a);
	sleep_stolen_kicks(a, ch);
	CHECK(uet_engine_stop(a) == 0);
	/* a stopped engine is not progressed by posters */
	s = sleep_stats(a);
	CHECK(uet_engine_progress(a, 4) == 0);
	CHECK(sleep_stats(a).app_iterations == s.app_iterations);
	printf("sleep: sleeps %lu, wake post %lu rx %lu timer %lu poll %lu, "
	       "app iterations %lu, iterations %lu\n",
	       (unsigned long)s.idle_sleeps, (unsigned long)s.wake_post,
	       (unsigned long)s.wake_rx, (unsigned long)s.wake_timer,
	       (unsigned long)s.wake_poll, (unsigned long)s.app_iterations,
	       (unsigned long)s.iterations);
	CHECK(s.wake_rx == 0); /* ring ports have no RX interrupts */
	CHECK(uet_engine_chan_detach(a, ch) == 0);
	CHECK(ch->waker == NULL);
	CHECK(uet_engine_chan_detach(a, chp) == 0);
out:
	uet_engine_free(b);
	uet_engine_free(a);
	uet_chan_free(chp);
	uet_chan_free(ch);
	ta->chan = ta->chan2 = NULL;
}

/*
 * A lcore kept awake (idle_spin 100 ms, the longest allowed) hands its
 * context over to an application thread that polls: it sleeps at its next
 * iteration without work instead of spinning out idle_spin beside the
 * thread, which then runs the loop. Counted, not timed: the lcore's own
 * iterations while the thread polls (iterations - app_iterations) are a
 * handful, where a lcore that spins out idle_spin runs hundreds of
 * thousands.
 */
static void
test_sleep_handover(void)
{
	struct th *ta = &hook_state[0];
	struct uet_engine_lcore_stats s0, s1;
	struct uet_config c;
	struct uet_engine *a;
	uint64_t own;

	if (rte_lcore_count() < 2 || !rte_lcore_is_enabled(1)) {
		printf("sleep: handover skipped (no worker lcore 1)\n");
		return;
	}
	config_make(&c, "net_ring_ringH", ip4_a, ip6_a, mac_a, false);
	c.engine.idle_spin_ns = 100000000;
	c.engine.idle_sleep_ns = 100000;
	c.engine.idle_sleep_max_ns = 1000000000;
	th_reset(ta, 4, ip4_b);
	a = engine_make("sh", &c, ta);
	CHECK(a != NULL);
	if (a == NULL)
		return;
	CHECK(uet_engine_start(a) == 0);
	/* the lcore spins since its start: this call finds it awake */
	(void)uet_engine_progress(a, 4);
	s0 = sleep_stats(a);
	for (unsigned int i = 0; i < 1000; i++) {
		(void)uet_engine_progress(a, 4);
		usleep(100);
	}
	s1 = sleep_stats(a);
	own = (s1.iterations - s1.app_iterations) -
	      (s0.iterations - s0.app_iterations);
	printf("sleep: handover: lcore iterations %lu, app iterations %lu, "
	       "sleeps %lu\n", (unsigned long)own,
	       (unsigned long)(s1.app_iterations - s0.app_iterations),
	       (unsigned long)(s1.idle_sleeps - s0.idle_sleeps));
	CHECK(own <= 100);
	CHECK(s1.app_iterations > s0.app_iterations);
	CHECK(uet_engine_stop(a) == 0);
	uet_engine_free(a);
}

/* ------------------------------------------------------------------ */
/* sleep on a port with RX interrupts (net_tap, needs root)            */
/* ------------------------------------------------------------------ */

/* An ARP request for @p ip from a made-up host, sent by the kernel side
 * of tap @p ifname: it arrives on the engine's RX queue. */
static int
tap_send_arp(const char *ifname, const uint8_t *ip)
{
	static const uint8_t src_mac[6] = { 0x02, 0, 0, 0, 0, 0x77 };
	static const uint8_t src_ip[4] = { 10, 0, 0, 77 };
	uint8_t f[42] = { 0 };
	struct sockaddr_ll sa = { .sll_family = AF_PACKET };
	int fd, rc;

	memset(f, 0xff, 6);
	memcpy(f + 6, src_mac, 6);
	f[12] = 0x08; f[13] = 0x06;            /* ARP */
	f[14] = 0; f[15] = 1;                   /* Ethernet */
	f[16] = 0x08; f[17] = 0;                /* IPv4 */
	f[18] = 6; f[19] = 4; f[20] = 0; f[21] = 1; /* request */
	memcpy(f + 22, src_mac, 6);
	memcpy(f + 28, src_ip, 4);
	memcpy(f + 38, ip, 4);
	sa.sll_ifindex = (int)if_nametoindex(ifname);
	sa.sll_halen = 6;
	memset(sa.sll_addr, 0xff, 6);
	if (sa.sll_ifindex == 0)
		return -errno;
	fd = socket(AF_PACKET, SOCK_RAW, 0);
	if (fd < 0)
		return -errno;
	rc = (int)sendto(fd, f, sizeof(f), 0, (struct sockaddr *)&sa,
			 sizeof(sa));
	rc = rc == (int)sizeof(f) ? 0 : -errno;
	close(fd);
	return rc;
}

/* Quieten the kernel side (IPv6 autoconfiguration frames would wake the
 * engine too). Best effort. */
static void
tap_quiet(const char *ifname)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "/proc/sys/net/ipv6/conf/%s/disable_ipv6",
		 ifname);
	fd = open(path, O_WRONLY);
	if (fd >= 0) {
		(void)!write(fd, "1", 1);
		close(fd);
	}
}

/*
 * A frame on a port with RX interrupts wakes the sleeping lcore
 * (wake_rx), which answers it. A back-off wake-up may find the frame
 * first (the lcore awake when it arrives): a few tries, at least one
 * woken by the interrupt.
 */
static int
test_sleep_tap(void)
{
	struct th *ta = &hook_state[0];
	struct uet_config ca;
	struct uet_engine *a;
	char dev[64], ifname[IFNAMSIZ];
	bool woke = false;

	if (geteuid() != 0 || access("/dev/net/tun", R_OK | W_OK) != 0) {
		printf("sleep_tap: skipped (needs root and /dev/net/tun)\n");
		return 77;
	}
	if (rte_lcore_count() < 2 || !rte_lcore_is_enabled(1)) {
		printf("sleep_tap: skipped (no worker lcore 1)\n");
		return 77;
	}
	snprintf(ifname, sizeof(ifname), "uets%u", (unsigned int)getpid());
	snprintf(dev, sizeof(dev), "net_tap%u,iface=%s",
		 (unsigned int)getpid() % 1000, ifname);
	config_make(&ca, dev, ip4_a, ip6_a, mac_a, false);
	ca.port[0].has_ipv6 = false;
	ca.engine.idle_spin_ns = 0;
	ca.engine.idle_sleep_ns = 100000;
	ca.engine.idle_sleep_max_ns = 1000000000;
	th_reset(ta, 4, ip4_b);
	a = engine_make("tap", &ca, ta);
	CHECK(a != NULL);
	if (a == NULL)
		return 1;
	tap_quiet(ifname);
	CHECK(uet_engine_start(a) == 0);
	for (unsigned int k = 0; k < 10 && !woke; k++) {
		struct uet_engine_lcore_stats s0 = sleep_stats(a), s1;

		CHECK(wait_asleep(a));
		s0 = sleep_stats(a);
		CHECK(tap_send_arp(ifname, ip4_a) == 0);
		for (unsigned int i = 0; i < SLEEP_WAIT_STEPS; i++) {
			if (sleep_stats(a).arp_req_rx > s0.arp_req_rx)
				break;
			usleep(100);
		}
		s1 = sleep_stats(a);
		CHECK(s1.arp_req_rx == s0.arp_req_rx + 1);
		woke = s1.wake_rx > s0.wake_rx;
		printf("sleep_tap: try %u: wake_rx %lu -> %lu, wake_poll %lu "
		       "-> %lu\n", k, (unsigned long)s0.wake_rx,
		       (unsigned long)s1.wake_rx, (unsigned long)s0.wake_poll,
		       (unsigned long)s1.wake_poll);
	}
	CHECK(woke);
	CHECK(uet_engine_stop(a) == 0);
	uet_engine_free(a);
	return 0;
}

static void
test_ring(void)
{
	struct uet_config ca, cb;
	struct uet_engine *a, *b;
	static struct uet_engine_stats st;

	config_make(&ca, "net_ring_ringA", ip4_a, ip6_a, mac_a, true);
	config_make(&cb, "net_ring_ringB", ip4_b, ip6_b, mac_b, true);
	a = engine_make("ea", &ca, &hook_state[0]);
	b = engine_make("eb", &cb, &hook_state[1]);
	CHECK(a != NULL && b != NULL);
	if (a != NULL && b != NULL) {
		CHECK(uet_engine_nb_lcores(a) == 1);
		CHECK(uet_engine_nb_ports(a) == 1);
		test_resolution(a, b, 4);
		test_resolution(a, b, 6);
		test_rx_classes(a, b);
		test_gate_flush(a, b);
		CHECK(uet_engine_stats_get(a, &st) == 0);
		uet_engine_stats_print(&st, stdout);
	}
	uet_engine_free(b);
	uet_engine_free(a);
	test_mtu_mismatch();
	test_faults();
	test_fault_window();
	test_fault_backpressure();
	test_chan_backpressure();
	test_auto();
}

/* ------------------------------------------------------------------ */
/* telemetry                                                           */
/* ------------------------------------------------------------------ */

/* A command a layer above the core adds (uet_engine_telemetry_add()). */
static int
telemetry_added_fill(struct uet_engine *e, struct rte_tel_data *d)
{
	rte_tel_data_add_dict_u64(d, "lcores", uet_engine_nb_lcores(e));
	return 0;
}

/* ... and one that this engine's hook does not provide. */
static int
telemetry_added_none(struct uet_engine *e, struct rte_tel_data *d)
{
	(void)e;
	(void)d;
	return -ENOENT;
}

static void
test_telemetry(void)
{
	static const char *const cmds[] = {
		"/uet/engines", "/uet/stats,0", "/uet/ports,0",
		"/uet/lcores,0", "/uet/fault,0", "/uet/neigh,0",
	};
	static const struct {
		const char *cmd;
		long long err;
	} bad[] = {
		{ "/uet/stats,7", ENOENT }, { "/uet/stats,99", ENOENT },
		{ "/uet/stats,x", EINVAL }, { "/uet/stats,-1", EINVAL },
	};
	struct uet_config c;
	struct uet_engine *e;
	struct rte_tel_data *d;
	char buf[16384];
	int fd;

	config_make(&c, "net_ring_ringA", ip4_a, ip6_a, mac_a, true);
	e = engine_make("tel", &c, &hook_state[0]);
	CHECK(e != NULL);
	if (e == NULL)
		return;
	(void)uet_engine_poll(e, 10);
	/* in-process call path */
	d = rte_tel_data_alloc();
	CHECK(d != NULL);
	CHECK(uet_engine_telemetry_call("/uet/stats", "0", d) == 0);
	CHECK(uet_engine_telemetry_call("/uet/stats", "7", d) == -ENOENT);
	CHECK(uet_engine_telemetry_call("/uet/stats", "x", d) == -EINVAL);
	CHECK(uet_engine_telemetry_call("/uet/nope", NULL, d) == -ENOENT);
	/* not an engine with the PDS hook or the SES ULP: those layers add
	 * their commands when they make a context, none did here */
	CHECK(uet_engine_telemetry_call("/uet/pds", "0", d) == -ENOENT);
	CHECK(uet_engine_telemetry_call("/uet/ses", "0", d) == -ENOENT);
	CHECK(uet_engine_telemetry_call("/uet/cc", "0", d) == -ENOENT);
	/* added commands: idempotent, answered for the engine named */
	CHECK(uet_engine_telemetry_add(NULL, telemetry_added_fill, "x") == -EINVAL);
	CHECK(uet_engine_telemetry_add("/uet/test_added", telemetry_added_fill,
				       "test: lcores") == 0);
	CHECK(uet_engine_telemetry_add("/uet/test_added", telemetry_added_fill,
				       "test: lcores") == 0);
	CHECK(uet_engine_telemetry_add("/uet/test_none", telemetry_added_none,
				       "test: not provided") == 0);
	CHECK(uet_engine_telemetry_call("/uet/test_added", "0", d) == 0);
	CHECK(uet_engine_telemetry_call("/uet/test_added", "7", d) == -ENOENT);
	CHECK(uet_engine_telemetry_call("/uet/test_none", "0", d) == -ENOENT);
	rte_tel_data_free(d);
	/* the socket dpdk-telemetry.py uses */
	fd = itest_tel_open(buf, sizeof(buf));
	if (fd < 0)
		goto out;
	for (unsigned int i = 0; i < RTE_DIM(cmds); i++) {
		char key[64];
		const char *name = cmds[i];
		size_t klen = strcspn(name, ",");

		snprintf(key, sizeof(key), "{\"%.*s\":", (int)klen, name);
		CHECK(itest_tel_query(fd, cmds[i], buf, sizeof(buf)) == 0);
		printf("%s -> %.160s%s\n", cmds[i], buf,
		       strlen(buf) > 160 ? "..." : "");
		CHECK(strncmp(buf, key, strlen(key)) == 0);
		CHECK(strstr(buf, "null") == NULL);
	}
	CHECK(itest_tel_query(fd, "/uet/stats,0", buf, sizeof(buf)) == 0);
	CHECK(strstr(buf, "\"rx_pkts\"") != NULL);
	CHECK(strstr(buf, "\"wake_post\"") != NULL);
	/* a ring port has no checksum offload: the engine sums */
	CHECK(itest_tel_query(fd, "/uet/ports,0", buf, sizeof(buf)) == 0);
	CHECK(strstr(buf, "\"udp_checksum_tx\":\"software\"") != NULL);
	CHECK(strstr(buf, "\"udp_checksum_rx\":\"software\"") != NULL);
	CHECK(itest_tel_query(fd, "/uet/lcores,0", buf, sizeof(buf)) == 0);
	CHECK(strstr(buf, "\"app_iterations\"") != NULL);
	CHECK(strstr(buf, "\"rx_intr_queues\":0") != NULL);
	/* added after the engine registered: on the socket too */
	CHECK(itest_tel_query(fd, "/uet/test_added,0", buf, sizeof(buf)) == 0);
	CHECK(strstr(buf, "\"lcores\":") != NULL);
	CHECK(itest_tel_query(fd, "/uet/test_none,0", buf, sizeof(buf)) == 0);
	CHECK(itest_tel_value(buf, "errno") == ENOENT);
	/* what cannot be answered is an error object, not null: an engine
	 * that does not exist, a bad index */
	for (unsigned int i = 0; i < RTE_DIM(bad); i++) {
		CHECK(itest_tel_query(fd, bad[i].cmd, buf, sizeof(buf)) == 0);
		printf("%s -> %s\n", bad[i].cmd, buf);
		CHECK(strstr(buf, "null") == NULL);
		CHECK(strstr(buf, "\"error\":\"") != NULL);
		CHECK(itest_tel_value(buf, "errno") == bad[i].err);
	}
	CHECK(itest_tel_query(fd, "/", buf, sizeof(buf)) == 0);
	CHECK(strstr(buf, "/uet/fault") != NULL);
	/* the core knows no command of the layers above it */
	CHECK(strstr(buf, "/uet/pds") == NULL);
	CHECK(strstr(buf, "/uet/ses") == NULL);
out:
	if (fd >= 0)
		close(fd);
	uet_engine_free(e);
}

/* The alive file of @p dir for address @p addr (text), read into @p r
 * (alive.c: magic, engine clock, flags); its path into @p path. */
struct alive_file {
	uint64_t magic, ns, flags;
};

static int
alive_read(const char *dir, const char *addr, struct alive_file *r,
	   char *path, size_t len)
{
	struct stat st;
	int fd, n;

	if (stat("/proc/self/ns/net", &st) < 0)
		st.st_ino = 0;
	snprintf(path, len, "%s/alive-%llu-%s", dir,
		 (unsigned long long)st.st_ino, addr);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = (int)pread(fd, r, sizeof(*r), 0);
	close(fd);
	return n == (int)sizeof(*r) ? 0 : -1;
}

static void
alive_write(const char *path, const struct alive_file *r)
{
	int fd = open(path, O_WRONLY);

	CHECK(fd >= 0 && pwrite(fd, r, sizeof(*r), 0) == (ssize_t)sizeof(*r));
	if (fd >= 0)
		close(fd);
}

/*
 * [timers] alive_dir (alive.c): an engine keeps a file per fabric address
 * with the time it last ran. A first start finds none (not a restart);
 * a second engine of the same address while the first runs leaves the
 * file alone; the first freed writes its last time, marked clean; one
 * created again within 4 s is its restart and knows that time exactly
 * (the time of an unclean end counts 10 ms later; one older than 4 s is
 * no restart, and such files are removed when an engine starts). The
 * directory must be the engine's user's, mode 0700, and the file is
 * never opened through a symbolic link; off keeps none.
 */
static void
test_alive(void)
{
	struct uet_config ca, cb;
	struct uet_engine *a, *b;
	struct alive_file r, r6;
	char dir[] = "/tmp/uet-alive-test.XXXXXX", path[512], path6[512];
	char target[600];
	uint64_t prev, now;

	if (mkdtemp(dir) == NULL) {
		CHECK(false);
		return;
	}
	config_make(&ca, "net_ring_ringA", ip4_a, ip6_a, mac_a, true);
	snprintf(ca.timers.alive_dir, sizeof(ca.timers.alive_dir), "%s", dir);
	a = engine_make("alive_a", &ca, &hook_state[0]);
	CHECK(a != NULL);
	if (a == NULL)
		goto out;
	CHECK(uet_engine_prev_alive_ns(a) == 0);
	CHECK(alive_read(dir, "10.0.0.1", &r, path, sizeof(path)) == 0);
	CHECK(alive_read(dir, "fd00::1", &r6, path6, sizeof(path6)) == 0);
	CHECK(r.flags == 0);
	/* the same addresses on another port while A runs: not a restart */
	cb = ca;
	snprintf(cb.port[0].devargs, sizeof(cb.port[0].devargs),
		 "net_ring_ringB");
	b = engine_make("alive_b", &cb, &hook_state[1]);
	CHECK(b != NULL && uet_engine_prev_alive_ns(b) == 0);
	uet_engine_free(b);
	CHECK(alive_read(dir, "10.0.0.1", &r, path, sizeof(path)) == 0 &&
	      r.flags == 0);
	/* refreshed while A runs */
	(void)uet_engine_poll(a, 1);
	uet_engine_free(a);
	CHECK(alive_read(dir, "10.0.0.1", &r, path, sizeof(path)) == 0);
	CHECK(r.flags == 1 && r.ns != 0);
	/* the restart knows when A went */
	a = engine_make("alive_a", &ca, &hook_state[0]);
	CHECK(a != NULL);
	if (a == NULL)
		goto out;
	prev = uet_engine_prev_alive_ns(a);
	now = engine_now_ns(a);
	printf("alive: restart %llu ns after the previous engine went\n",
	       (unsigned long long)(now - prev));
	CHECK(prev == r.ns && prev <= now && now - prev < 4000000000ull);
	uet_engine_free(a);
	/* an unclean end (a crash: flags not set) counts 10 ms later */
	CHECK(alive_read(dir, "10.0.0.1", &r, path, sizeof(path)) == 0);
	r.flags = 0;
	alive_write(path, &r);
	alive_read(dir, "fd00::1", &r6, path6, sizeof(path6));
	r6.flags = 0;
	alive_write(path6, &r6);
	a = engine_make("alive_a", &ca, &hook_state[0]);
	CHECK(a != NULL && uet_engine_prev_alive_ns(a) ==
			   (r.ns > r6.ns ? r.ns : r6.ns) + 10000000ull);
	uet_engine_free(a);
	/* one that went more than 4 s ago is no restart */
	CHECK(alive_read(dir, "10.0.0.1", &r, path, sizeof(path)) == 0);
	r.ns -= 5000000000ull;
	alive_write(path, &r);
	alive_read(dir, "fd00::1", &r6, path6, sizeof(path6));
	r6.ns -= 5000000000ull;
	alive_write(path6, &r6);
	a = engine_make("alive_a", &ca, &hook_state[0]);
	CHECK(a != NULL && uet_engine_prev_alive_ns(a) == 0);
	uet_engine_free(a);
	/* a symbolic link in the file's place is not followed (its target,
	 * a name in the test's directory, is not created) */
	snprintf(target, sizeof(target), "%s/link-target", dir);
	CHECK(unlink(path) == 0 && symlink(target, path) == 0);
	a = engine_make("alive_a", &ca, &hook_state[0]);
	CHECK(a == NULL && access(target, F_OK) < 0);
	uet_engine_free(a);
	(void)unlink(path);
	/* a directory others may write to is refused */
	CHECK(chmod(dir, 0733) == 0);
	a = engine_make("alive_a", &ca, &hook_state[0]);
	CHECK(a == NULL);
	uet_engine_free(a);
	CHECK(chmod(dir, 0700) == 0);
	/* files of other addresses: one older than 4 s is removed by the
	 * next engine that starts, a recent one kept */
	{
		char old[600], young[600];
		struct alive_file o = r;
		int fd;

		snprintf(old, sizeof(old), "%s/alive-1-192.0.2.9", dir);
		snprintf(young, sizeof(young), "%s/alive-1-192.0.2.10", dir);
		fd = open(old, O_CREAT | O_WRONLY, 0600);
		CHECK(fd >= 0);
		if (fd >= 0)
			close(fd);
		alive_write(old, &o);
		fd = open(young, O_CREAT | O_WRONLY, 0600);
		CHECK(fd >= 0);
		if (fd >= 0)
			close(fd);
		o.ns = r.ns + 5000000000ull;
		alive_write(young, &o);
		a = engine_make("alive_a", &ca, &hook_state[0]);
		CHECK(a != NULL);
		CHECK(access(old, F_OK) < 0 && access(young, F_OK) == 0);
		uet_engine_free(a);
	}
	/* auto: a directory that is not usable (here /run/uet-alive made
	 * 0755 for a moment; as a user, /tmp/uet-alive-UID another user
	 * created first) is logged and the engine goes on without files */
	if (geteuid() == 0) {
		bool made = false;
		struct stat st;

		snprintf(ca.timers.alive_dir, sizeof(ca.timers.alive_dir),
			 "auto");
		if (stat("/run/uet-alive", &st) < 0) {
			made = mkdir("/run/uet-alive", 0700) == 0;
			CHECK(made && stat("/run/uet-alive", &st) == 0);
		}
		CHECK(chmod("/run/uet-alive", 0755) == 0);
		a = engine_make("alive_a", &ca, &hook_state[0]);
		CHECK(a != NULL && uet_engine_prev_alive_ns(a) == 0);
		uet_engine_free(a);
		/* as found: the mode put back, or the directory the test
		 * made removed (the engine wrote nothing in it) */
		if (made)
			CHECK(rmdir("/run/uet-alive") == 0);
		else
			CHECK(chmod("/run/uet-alive", st.st_mode & 07777) == 0);
	}
	/* off: no file */
	itest_rm_dir(dir);
	snprintf(ca.timers.alive_dir, sizeof(ca.timers.alive_dir), "off");
	a = engine_make("alive_a", &ca, &hook_state[0]);
	CHECK(a != NULL && access(dir, F_OK) < 0);
	uet_engine_free(a);
out:
	itest_rm_dir(dir);
}

int
main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "ring";
	bool reused, skip = false;
	int rc;

	rc = uet_engine_eal_init(argv[0],
				 "-l 0-1 --no-huge --no-pci -m 512 --in-memory "
				 "--log-level=lib.eal:warning", &reused);
	if (rc < 0) {
		fprintf(stderr, "EAL init: %s\n", rte_strerror(-rc));
		return 1;
	}
	CHECK(!reused);
	CHECK(uet_engine_eal_init(argv[0], "", &reused) == 0 && reused);
	if (itest_ring_pair("ringA", "ringB") < 0) {
		fprintf(stderr, "ring ports: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	if (strcmp(what, "ring") == 0)
		test_ring();
	else if (strcmp(what, "telemetry") == 0)
		test_telemetry();
	else if (strcmp(what, "sleep") == 0) {
		test_sleep();
		test_sleep_handover();
	}
	else if (strcmp(what, "alive") == 0)
		test_alive();
	else if (strcmp(what, "sleep_tap") == 0)
		skip = test_sleep_tap() == 77;
	else
		failures++;
	rte_eal_cleanup();
	printf("%s: %d failure(s)\n", what, failures);
	if (skip && failures == 0)
		return 77;
	return failures != 0;
}
