/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Local delivery (pmd/core/local_delivery.c) in one EAL process (--no-huge): one
 * engine on one ring port, the PDS hook with the SES ULP, two processes
 * of that engine (A: the context's own PIDonFEP; B: a second PIDonFEP
 * bound with EP_ADD) sending to each other through the engine's own
 * fabric address, driven through the channel API only:
 *
 *   eager send / recv (expected, multi-packet, unexpected, tagged),
 *   rendezvous, RMA WRITE / READ, atomics (sum, fetch, compare-and-swap),
 *   B -> A as well, many small messages,
 *
 * every CQE and every byte checked; then the counters: every frame went
 * through the local queue (local_delivery_tx == local_delivery_rx, no drop), nothing
 * reached the port's TX ring, no ARP/ND for the own address, the frames
 * were decoded as received ones (rx_uet). Modes (argv[1]):
 *   ipv4    INLINE, IPv4 fabric address
 *   ipv6    INLINE, IPv6 fabric address
 *   native  INLINE, native IP (no UDP)
 *   lossy   INLINE, IPv4, RX fault injection (drop, dup, reorder): it
 *           applies to locally delivered frames as to received ones, the PDS
 *           repairs the losses
 *   tsslossy  lossy with [tss] on and the job in a secure domain: local
 *           frames stay clear, and those the fault injector held back are
 *           still known as local when it releases them (none dropped as
 *           clear frames of a secure job)
 *   auto    AUTO progress on one lcore that sleeps when idle: posts wake
 *           it, locally delivered frames keep it awake; then the same traffic
 *           with the application progressing the sleeping context
 *           (uet_engine_progress(), as fi_cq_read does)
 *   ctx2    INLINE, two contexts on a two-queue port: B is context 1's
 *           own process, so every PDC has its two ends in different
 *           contexts (frames steered by PIDonFEP and PDC owner); first,
 *           an AI Full deferrable send from context 1 to context 0 whose
 *           DEFERRABLE_RTR opens a PDC (steered by its restart token)
 *   ctx2auto  the same with two AUTO lcores that sleep: a frame for the
 *           other context wakes it
 *   ctx3    INLINE, three contexts, B on context 1: every context's PDC
 *           ids and restart tokens carry its owner id in the same number
 *           of bits (the deferrable send of ctx2 first)
 * Bounded by loop iterations (AUTO: iterations of 20 us naps); no timing
 * assertions.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_eth_ring.h>
#include <rte_ring.h>
#include <rte_telemetry.h>

#include <uet/uet_chan.h>
#include <uet/uet_engine.h>
#include <uet/uet_ses_mr.h>
#include <uet/uet_ses_ulp.h>
#include <uet/uet_ulp.h>

#include "itest.h"

#define JOB 7
#define PID_BASE 30
#define PID_B 41
#define INIT_B 0xB0B0
#define POLL_MAX 200000u
#define BIG 65536

static const uint8_t ip4[4] = { 10, 9, 0, 1 };
static const uint8_t ip6[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 9,
				 0, 0, 0, 0, 0, 0, 0, 1 };
static const uint8_t mac[6] = { 0x02, 0, 0, 0, 0x09, 0x01 };
static const uint8_t nomac[6] = { 0x02, 0, 0, 0, 0x09, 0x99 };
static const uint8_t noip[4] = { 10, 9, 0, 99 };

enum mode {
	M_IPV4, M_IPV6, M_NATIVE, M_LOSSY, M_AUTO, M_CTX2, M_CTX2AUTO, M_CTX3,
	M_TSSLOSSY,
};

static bool
multi_ctx(enum mode m)
{
	return m == M_CTX2 || m == M_CTX2AUTO || m == M_CTX3;
}

struct proc {
	unsigned int ctx; /* engine context serving it */
	struct uet_chan *ch;
	uint64_t peer; /* handle naming the other process */
	uint16_t pid;
	uint32_t initiator;
};

static struct uet_engine *eng;
static struct proc A, B;
#define NB_RINGS 3
static struct rte_ring *wire_out[NB_RINGS]; /* TX rings: stay empty */
static bool auto_mode;
static bool app_progress;          /* AUTO: the test thread progresses */
static uint8_t *sbuf, *rbuf, *lbuf;
static char cap_path[64];          /* ipv4: engine.capture */
static char key_path[64];          /* tsslossy: the domain's key file */
static char state_dir[64];         /* and its TSC reservations */

static void
pump(void)
{
	if (!auto_mode) {
		(void)uet_engine_poll(eng, 4);
		return;
	}
	if (app_progress)
		(void)uet_engine_progress(eng, 4);
	else
		usleep(20);
}

static bool
cq_wait(struct proc *p, struct uet_chan_cqe *e)
{
	for (unsigned int i = 0; i < POLL_MAX; i++) {
		if (uet_chan_cq_poll(p->ch, e, 1) == 1)
			return true;
		pump();
	}
	fprintf(stderr, "no completion for PIDonFEP %u\n", p->pid);
	return false;
}

static int
ctl_on(unsigned int ctx, struct uet_ses_ulp_ctl *r)
{
	int rc = uet_ses_ulp_ctl(eng, ctx, r, NULL, NULL);

	return rc < 0 ? rc : r->rc;
}

static int
ctl(struct uet_ses_ulp_ctl *r)
{
	return ctl_on(0, r);
}

static const uint8_t *
own_fa(enum mode m, uint8_t fa[16])
{
	memset(fa, 0, 16);
	memcpy(fa, m == M_IPV6 ? ip6 : ip4, m == M_IPV6 ? 16 : 4);
	return fa;
}

/* Process @p p as a destination in the peer table of context @p on. */
static uint64_t
peer_add(unsigned int on, const uint8_t fa[16], const struct proc *p)
{
	struct uet_ses_ulp_ctl r = { .op = UET_SES_ULP_PEER_ADD };

	r.peer.pid_on_fep = p->pid;
	r.peer.initiator = p->initiator;
	memcpy(r.peer.fa, fa, 16);
	CHECK(ctl_on(on, &r) == 0);
	return r.handle;
}

static void
fill(uint8_t *p, size_t n, unsigned int seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 11 + seed * 17 + (i >> 9));
}

static void
sqe_init(struct uet_chan_sqe *q, const struct proc *to, uint8_t op,
	 uint64_t ctx, const void *buf, uint64_t len)
{
	memset(q, 0, sizeof(*q));
	q->op = op;
	q->flags = UET_CHAN_F_COMPLETION;
	q->context = ctx;
	q->addr = (uint64_t)(uintptr_t)buf;
	q->len = len;
	q->dest = to->peer;
	q->job = JOB;
	q->tc = 1;
}

static void
post_recv(struct proc *p, uint8_t op, uint64_t ctx, void *buf, uint64_t len,
	  uint64_t tag)
{
	struct uet_chan_rqe r;

	memset(&r, 0, sizeof(r));
	r.op = op;
	r.context = ctx;
	r.addr = (uint64_t)(uintptr_t)buf;
	r.len = len;
	r.tag = tag;
	CHECK(uet_chan_rq_post(p->ch, &r) == 0);
}

/* The next CQE of @p p: @p ctx, status 0, and @p len when not ~0. */
static void
expect_ok(struct proc *p, uint64_t ctx, uint64_t len)
{
	struct uet_chan_cqe e;

	if (!cq_wait(p, &e)) {
		failures++;
		return;
	}
	CHECK(e.context == ctx);
	CHECK(e.status == 0);
	if (len != ~0ull)
		CHECK(e.len == len);
	if (e.context != ctx || e.status != 0)
		fprintf(stderr, "PIDonFEP %u: ctx %lu (want %lu) status %d "
			"prov %u\n", p->pid, (unsigned long)e.context,
			(unsigned long)ctx, e.status, e.prov_errno);
}

/* @p from sends @p len bytes to @p to (posted receive first, or after
 * the send when @p unexpected), tagged or not; both sides checked. */
static void
msg(struct proc *from, struct proc *to, uint64_t ctx, size_t len,
    bool unexpected, bool tagged, bool rdv)
{
	uint8_t op = tagged ? UET_CHAN_RQ_TRECV : UET_CHAN_RQ_RECV;
	struct uet_chan_sqe q;

	fill(sbuf, len, (unsigned int)ctx);
	memset(lbuf, 0, len + 64);
	if (!unexpected)
		post_recv(to, op, ctx + 1000, lbuf, len + 64, 0x55);
	sqe_init(&q, to, tagged ? UET_CHAN_OP_TSEND : UET_CHAN_OP_SEND, ctx,
		 sbuf, len);
	q.tag = 0x55;
	if (rdv)
		q.flags |= UET_CHAN_F_RENDEZVOUS;
	CHECK(uet_chan_sq_post(from->ch, &q) == 0);
	if (unexpected) {
		/* an unexpected rendezvous completes after the receive */
		if (!rdv)
			expect_ok(from, ctx, ~0ull);
		for (unsigned int i = 0; i < 50; i++)
			pump();
		post_recv(to, op, ctx + 1000, lbuf, len + 64, 0x55);
		if (rdv)
			expect_ok(from, ctx, ~0ull);
	} else {
		expect_ok(from, ctx, ~0ull);
	}
	expect_ok(to, ctx + 1000, len);
	CHECK(memcmp(lbuf, sbuf, len) == 0);
}

static void
test_msgs(void)
{
	msg(&A, &B, 1, 64, false, false, false);
	msg(&A, &B, 2, 9000, false, false, false);  /* several packets */
	msg(&A, &B, 3, 700, true, false, false);    /* unexpected */
	msg(&A, &B, 4, 1500, false, true, false);   /* tagged */
	msg(&B, &A, 5, 5000, false, false, false);  /* the other way */
	msg(&A, &B, 6, 30000, false, false, true);  /* rendezvous */
	msg(&B, &A, 7, 20000, true, false, true);   /* unexpected rdv */
}

/* B's region: WRITE, READ and atomics from A. */
static void
test_rma(uint64_t key)
{
	struct uet_chan_sqe q;
	uint64_t v, res, cmp;

	fill(sbuf, 4000, 9);
	memset(rbuf, 0, BIG);
	sqe_init(&q, &B, UET_CHAN_OP_WRITE, 20, sbuf, 4000);
	q.rkey = key;
	q.roffset = (uint64_t)(uintptr_t)(rbuf + 64);
	CHECK(uet_chan_sq_post(A.ch, &q) == 0);
	expect_ok(&A, 20, ~0ull);
	CHECK(memcmp(rbuf + 64, sbuf, 4000) == 0);
	CHECK(rbuf[63] == 0 && rbuf[4064] == 0);
	fill(rbuf + 8192, 12000, 10);
	memset(lbuf, 0, 12000);
	sqe_init(&q, &B, UET_CHAN_OP_READ, 21, lbuf, 12000);
	q.rkey = key;
	q.roffset = (uint64_t)(uintptr_t)(rbuf + 8192);
	CHECK(uet_chan_sq_post(A.ch, &q) == 0);
	expect_ok(&A, 21, ~0ull);
	CHECK(memcmp(lbuf, rbuf + 8192, 12000) == 0);
	memset(rbuf, 0, 8);
	v = 5;
	sqe_init(&q, &B, UET_CHAN_OP_ATOMIC, 22, &v, 8);
	q.atomic_op = UET_AMO_SUM;
	q.atomic_dt = UET_AMO_DT_UINT64;
	q.rkey = key;
	q.roffset = (uint64_t)(uintptr_t)rbuf;
	CHECK(uet_chan_sq_post(A.ch, &q) == 0);
	expect_ok(&A, 22, ~0ull);
	memcpy(&res, rbuf, 8);
	CHECK(res == 5);
	v = 7;
	res = 0;
	sqe_init(&q, &B, UET_CHAN_OP_FETCH_ATOMIC, 23, &v, 8);
	q.atomic_op = UET_AMO_SUM;
	q.atomic_dt = UET_AMO_DT_UINT64;
	q.rkey = key;
	q.roffset = (uint64_t)(uintptr_t)rbuf;
	q.result = (uint64_t)(uintptr_t)&res;
	CHECK(uet_chan_sq_post(A.ch, &q) == 0);
	expect_ok(&A, 23, ~0ull);
	CHECK(res == 5);
	memcpy(&v, rbuf, 8);
	CHECK(v == 12);
	cmp = 12;
	v = 99;
	res = 0;
	sqe_init(&q, &B, UET_CHAN_OP_CSWAP, 24, &v, 8);
	q.atomic_op = UET_AMO_CSWAP;
	q.atomic_dt = UET_AMO_DT_UINT64;
	q.rkey = key;
	q.roffset = (uint64_t)(uintptr_t)rbuf;
	q.compare = (uint64_t)(uintptr_t)&cmp;
	q.result = (uint64_t)(uintptr_t)&res;
	CHECK(uet_chan_sq_post(A.ch, &q) == 0);
	expect_ok(&A, 24, ~0ull);
	CHECK(res == 12);
	memcpy(&v, rbuf, 8);
	CHECK(v == 99);
}

/* @p n 64-byte messages A -> B, posted as fast as the SQ takes them:
 * each received exactly once, in posting order of the receives. */
static void
test_many(unsigned int n)
{
	unsigned int posted = 0, done_tx = 0, done_rx = 0, loops = 0;
	static uint8_t seen[1024];
	struct uet_chan_sqe q;
	struct uet_chan_cqe e;

	memset(seen, 0, sizeof(seen));
	for (unsigned int i = 0; i < n; i++)
		post_recv(&B, UET_CHAN_RQ_RECV, 3000 + i, lbuf + 64 * i, 64, 0);
	while ((done_tx < n || done_rx < n) && loops++ < POLL_MAX) {
		while (posted < n) {
			uint32_t v = posted;

			memcpy(sbuf + 64 * posted, &v, 4);
			sqe_init(&q, &B, UET_CHAN_OP_SEND, 4000 + posted,
				 sbuf + 64 * posted, 64);
			if (uet_chan_sq_post(A.ch, &q) != 0)
				break;
			posted++;
		}
		pump();
		while (uet_chan_cq_poll(A.ch, &e, 1) == 1) {
			CHECK(e.status == 0);
			done_tx++;
		}
		while (uet_chan_cq_poll(B.ch, &e, 1) == 1) {
			uint32_t v;

			CHECK(e.status == 0 && e.len == 64);
			CHECK(e.context == 3000 + done_rx);
			memcpy(&v, lbuf + 64 * done_rx, 4);
			if (v < n && v < RTE_DIM(seen))
				seen[v]++;
			done_rx++;
		}
	}
	CHECK(done_tx == n && done_rx == n);
	for (unsigned int i = 0; i < n && i < RTE_DIM(seen); i++)
		CHECK(seen[i] == 1);
}

/* B: a second PIDonFEP of context 0, its own channel; or (ctx2) the
 * own process of context 1. */
static int
proc_b_make(bool ctx2)
{
	struct uet_ses_ulp_ctl r = { .op = UET_SES_ULP_JOB_ADD, .job = JOB };

	B.ch = uet_chan_create("hpB", 64, 1024, 1024, SOCKET_ID_ANY, 0);
	if (B.ch == NULL)
		return -1;
	if (ctx2) {
		B.ctx = 1;
		if (uet_engine_chan_attach(eng, 1, B.ch) != 0 ||
		    uet_ses_ulp_identity(eng, 1, &B.pid, &B.initiator) != 0)
			return -1;
		return ctl_on(1, &r);
	}
	B.pid = PID_B;
	B.initiator = INIT_B;
	memset(&r, 0, sizeof(r));
	r.op = UET_SES_ULP_EP_ADD;
	r.chan = B.ch;
	r.pid = PID_B;
	r.initiator = INIT_B;
	r.remote_events = false;
	if (ctl(&r) != 0)
		return -1;
	memset(&r, 0, sizeof(r));
	r.op = UET_SES_ULP_JOB_ADD;
	r.job = JOB;
	r.has_pid = true;
	r.pid = PID_B;
	if (ctl(&r) != 0)
		return -1;
	return uet_engine_chan_attach(eng, 0, B.ch);
}

static int
procs_make(enum mode m)
{
	struct uet_ses_ulp_ctl r = { .op = UET_SES_ULP_JOB_ADD, .job = JOB };
	uint8_t fa[16];

	A.ch = uet_chan_create("hpA", 64, 1024, 1024, SOCKET_ID_ANY, 0);
	if (A.ch == NULL || uet_engine_chan_attach(eng, 0, A.ch) != 0)
		return -1;
	if (uet_ses_ulp_identity(eng, 0, &A.pid, &A.initiator) != 0 ||
	    ctl(&r) != 0 || proc_b_make(multi_ctx(m)) != 0)
		return -1;
	/* both address each other at the engine's own FA, each in the
	 * peer table of the other's context */
	own_fa(m, fa);
	A.peer = peer_add(B.ctx, fa, &A);
	B.peer = peer_add(A.ctx, fa, &B);
	return A.peer != 0 && B.peer != 0 ? 0 : -1;
}

/* SDI 7 for JOB, its key in key_path (0600, as [tss] wants) */
static void
config_tss(struct uet_config *c)
{
	static const char hex[] = "000102030405060708090a0b0c0d0e0f"
				  "101112131415161718191a1b1c1d1e1f";
	struct uet_config_tss *t = &c->tss;
	int fd;

	snprintf(key_path, sizeof(key_path), "/tmp/test_local_delivery_%d.key",
		 (int)getpid());
	fd = open(key_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0 && write(fd, hex, 64) == 64);
	if (fd >= 0)
		close(fd);
	t->enabled = true;
	t->nb_domains = 1;
	t->domain[0].sdi = 7;
	t->domain[0].first[0] = JOB;
	t->domain[0].last[0] = JOB;
	t->domain[0].nb_ranges = 1;
	snprintf(t->domain[0].key_file, sizeof(t->domain[0].key_file), "%s",
		 key_path);
	snprintf(state_dir, sizeof(state_dir), "/tmp/test_local_delivery_%d",
		 (int)getpid());
	CHECK(mkdir(state_dir, 0700) == 0);
	snprintf(t->state_dir, sizeof(t->state_dir), "%s", state_dir);
}

static void
config_make(struct uet_config *c, enum mode m)
{
	uint32_t *k;

	/* a static neighbour that is not us: the own address needs none */
	itest_cfg_ring(c, "net_ring_hp", ip4, mac, noip, nomac);
	/* test_mixed_limit checks the BAD_PID answer itself: no waiting for
	 * a process that would come (test_ses_chan.c test_ep_add does) */
	c->engine.pid_wait_ns = 0;
	if (m == M_IPV6) {
		c->port[0].has_ipv4 = false;
		c->port[0].has_ipv6 = true;
		memcpy(&c->port[0].ipv6, ip6, 16);
	}
	if (m == M_NATIVE)
		c->port[0].native_ip = true;
	if (m == M_IPV4)
		snprintf(c->engine.capture, sizeof(c->engine.capture), "%s",
			 cap_path);
	if (m == M_TSSLOSSY)
		config_tss(c);
	if (m == M_LOSSY || m == M_TSSLOSSY) {
		k = c->fault.ppm[UET_CONFIG_FAULT_RX][UET_CONFIG_FAULT_DATA];
		c->fault.enabled = true;
		c->fault.seed = 23;
		c->fault.reorder_depth = 3;
		k[UET_CONFIG_FAULT_DROP] = 30000;
		k[UET_CONFIG_FAULT_DUP] = 10000;
		k[UET_CONFIG_FAULT_REORDER] = 20000;
		c->fault.ppm[UET_CONFIG_FAULT_RX][UET_CONFIG_FAULT_CONTROL]
			[UET_CONFIG_FAULT_DROP] = 20000;
	}
	if (m == M_AUTO || m == M_CTX2AUTO) {
		c->engine.progress = UET_CONFIG_PROGRESS_AUTO;
		c->engine.lcores[0] = 1;
	}
	if (multi_ctx(m)) {
		c->engine.nb_lcores = m == M_CTX3 ? 3 : 2;
		c->port[0].rx_queues = c->engine.nb_lcores;
		c->port[0].tx_queues = c->engine.nb_lcores;
		c->engine.lcores[1] = 2;
		c->engine.lcores[2] = 3;
	}
}

static uint64_t
port_sum(const uint64_t *v)
{
	uint64_t n = 0;

	for (unsigned int p = 0; p < UET_CONFIG_MAX_PORTS; p++)
		n += v[p];
	return n;
}

/* Every frame was delivered locally and received as such. */
static void
check_counters(enum mode m)
{
	static struct uet_engine_stats s;
	const struct uet_engine_lcore_stats *t = &s.total;
	struct rte_eth_stats es;

	/* a frame one context queued for another in its last iteration
	 * (an ACK behind the final completion) is received at the next
	 * poll: let those land (bounded) */
	for (unsigned int i = 0; i < POLL_MAX; i++) {
		CHECK(uet_engine_stats_get(eng, &s) == 0);
		if (t->local_delivery_rx[0] == t->local_delivery_tx[0])
			break;
		pump();
	}
	printf("# local_delivery_tx %lu local_delivery_rx %lu local_delivery_drop %lu rx_uet %lu "
	       "tx_pkts %lu rx_pkts %lu fault rx drop %lu\n",
	       (unsigned long)t->local_delivery_tx[0], (unsigned long)t->local_delivery_rx[0],
	       (unsigned long)t->local_delivery_drop[0], (unsigned long)t->rx_uet,
	       (unsigned long)t->tx_pkts, (unsigned long)t->rx_pkts,
	       (unsigned long)t->fault[UET_CONFIG_FAULT_RX]
			.applied[UET_CONFIG_FAULT_DROP]);
	CHECK(t->local_delivery_tx[0] > 100);
	CHECK(port_sum(t->local_delivery_tx) == t->local_delivery_tx[0]);
	CHECK(t->local_delivery_rx[0] == t->local_delivery_tx[0]);
	CHECK(port_sum(t->local_delivery_drop) == 0);
	/* nothing on the wire, nothing asked of it */
	CHECK(t->tx_pkts == 0 && t->rx_pkts == 0);
	for (unsigned int q = 0; q < NB_RINGS; q++)
		CHECK(rte_ring_count(wire_out[q]) == 0);
	CHECK(rte_eth_stats_get(uet_engine_port_id(eng, 0), &es) == 0);
	CHECK(es.opackets == 0);
	CHECK(t->arp_req_tx == 0 && t->nd_ns_tx == 0);
	CHECK(t->neigh_miss == 0 && t->neigh_hit == 0);
	/* decoded as received frames: requests and ACKs */
	CHECK(t->rx_malformed == 0 && t->rx_csum_bad == 0 &&
	      t->rx_csum_none == 0 && t->rx_non_uet == 0);
	CHECK(t->rx_class[UET_ENGINE_CLASS_REQ] > 0);
	CHECK(t->rx_class[UET_ENGINE_CLASS_ACK] > 0);
	if (m == M_LOSSY || m == M_TSSLOSSY) {
		/* RX faults see locally delivered frames: dropped ones are not
		 * decoded, duplicates are decoded twice */
		CHECK(t->fault[UET_CONFIG_FAULT_RX]
			      .applied[UET_CONFIG_FAULT_DROP] > 0);
		CHECK(t->fault[UET_CONFIG_FAULT_RX]
			      .applied[UET_CONFIG_FAULT_DUP] > 0);
	} else {
		CHECK(t->rx_uet == t->local_delivery_rx[0]);
	}
	/* [tss]: the own address's frames are neither sealed nor refused,
	 * also those the RX fault injector held and released later */
	if (m == M_TSSLOSSY) {
		printf("# tss sealed %lu clear %lu; rx opened %lu, dropped as "
		       "clear %lu; fault rx reorder %lu released %lu\n",
		       (unsigned long)t->tss.tx_sealed,
		       (unsigned long)t->tss.tx_clear,
		       (unsigned long)t->tss.rx_opened,
		       (unsigned long)t->tss.rx_drop[UET_ENGINE_TSS_DROP_CLEAR],
		       (unsigned long)t->fault[UET_CONFIG_FAULT_RX]
			       .applied[UET_CONFIG_FAULT_REORDER],
		       (unsigned long)t->fault[UET_CONFIG_FAULT_RX].released);
		CHECK(t->fault[UET_CONFIG_FAULT_RX]
			      .applied[UET_CONFIG_FAULT_REORDER] > 0);
		CHECK(t->tss.tx_sealed == 0 && t->tss.rx_opened == 0);
		for (unsigned int r = 0; r < UET_ENGINE_TSS_DROPS; r++)
			CHECK(t->tss.rx_drop[r] == 0);
	}
	/* the capture sees each frame twice: sent, then received */
	if (m == M_IPV4) {
		CHECK(t->capture_fail == 0);
		CHECK(t->capture_pkts == t->local_delivery_tx[0] + t->local_delivery_rx[0]);
	}
	if (auto_mode) {
		CHECK(t->idle_sleeps > 0);
		CHECK(t->wake_post > 0);
		CHECK(t->app_iterations > 0);
	}
	/* two contexts: each received frames the other sent */
	if (multi_ctx(m)) {
		printf("# ctx0: local_delivery_tx %lu rx %lu; ctx1: local_delivery_tx %lu "
		       "rx %lu; wake-ups %lu\n",
		       (unsigned long)s.lcore[0].local_delivery_tx[0],
		       (unsigned long)s.lcore[0].local_delivery_rx[0],
		       (unsigned long)s.lcore[1].local_delivery_tx[0],
		       (unsigned long)s.lcore[1].local_delivery_rx[0],
		       (unsigned long)t->local_delivery_wake);
		CHECK(s.lcore[0].local_delivery_rx[0] > 0);
		CHECK(s.lcore[1].local_delivery_rx[0] > 0);
		CHECK(s.lcore[0].local_delivery_tx[0] > 0);
		CHECK(s.lcore[1].local_delivery_tx[0] > 0);
	}
	/* AUTO, two contexts: frames for the other, sleeping, context
	 * woke it (INLINE: nothing sleeps) */
	if (m == M_CTX2AUTO)
		CHECK(t->local_delivery_wake > 0);
	else
		CHECK(t->local_delivery_wake == 0);
	/* ctx3: the third context serves nobody and got nothing */
	if (m == M_CTX3)
		CHECK(s.lcore[2].local_delivery_rx[0] == 0 &&
		      s.lcore[2].local_delivery_tx[0] == 0);
}

/* The same counters through the telemetry callbacks (/uet/ports,
 * /uet/stats, /uet/lcores). */
static void
check_telemetry(void)
{
	static char buf[65536];
	static struct uet_engine_stats s;
	int fd = itest_tel_open(buf, sizeof(buf));
	long long v;

	if (fd < 0)
		return;
	CHECK(uet_engine_stats_get(eng, &s) == 0);
	CHECK(itest_tel_query(fd, "/uet/ports,0", buf, sizeof(buf)) == 0);
	/* (an AUTO engine may still move: no less than the snapshot) */
	v = itest_tel_value(buf, "local_delivery_tx");
	CHECK(v > 0 && (uint64_t)v >= s.total.local_delivery_tx[0]);
	CHECK(itest_tel_value(buf, "local_delivery_drop") == 0);
	CHECK(itest_tel_query(fd, "/uet/stats,0", buf, sizeof(buf)) == 0);
	CHECK(itest_tel_value(buf, "local_delivery_tx") >= v);
	CHECK(itest_tel_value(buf, "local_delivery_rx") >=
	      (long long)s.total.local_delivery_rx[0]);
	/* the first context's */
	CHECK(itest_tel_query(fd, "/uet/lcores,0", buf, sizeof(buf)) == 0);
	CHECK(itest_tel_value(buf, "local_delivery_tx") >=
	      (long long)s.lcore[0].local_delivery_tx[0]);
	CHECK(s.lcore[0].local_delivery_tx[0] > 0);
	close(fd);
}

/* AUTO: wait until the lcore sleeps (bounded), so that the next post
 * has to wake it. */
static void
wait_asleep(void)
{
	static struct uet_engine_stats s;
	uint64_t s0;

	CHECK(uet_engine_stats_get(eng, &s) == 0);
	s0 = s.total.idle_sleeps;
	for (unsigned int i = 0; i < 50000; i++) {
		usleep(20);
		CHECK(uet_engine_stats_get(eng, &s) == 0);
		if (s.total.idle_sleeps > s0)
			return;
	}
	fprintf(stderr, "the engine lcore never slept\n");
	failures++;
}

/*
 * ctx2, the documented limit: A (context 0) already talks to B (context
 * 1) in this job, class and mode, so its one PDC to the engine's address
 * has its target side in context 1. A send to D, a process of context 0,
 * rides that PDC and fails there with BAD_PID, delivered to nobody.
 */
static void
test_mixed_limit(const uint8_t fa[16])
{
	struct uet_ses_ulp_ctl r;
	struct uet_chan_sqe q;
	struct uet_chan_cqe e;
	struct proc d = { .ctx = 0, .pid = PID_B + 1, .initiator = 0xD0D0 };
	uint64_t h;

	d.ch = uet_chan_create("hpD", 64, 64, 64, SOCKET_ID_ANY, 0);
	CHECK(d.ch != NULL);
	if (d.ch == NULL)
		return;
	memset(&r, 0, sizeof(r));
	r.op = UET_SES_ULP_EP_ADD;
	r.chan = d.ch;
	r.pid = d.pid;
	r.initiator = d.initiator;
	CHECK(ctl(&r) == 0);
	memset(&r, 0, sizeof(r));
	r.op = UET_SES_ULP_JOB_ADD;
	r.job = JOB;
	r.has_pid = true;
	r.pid = d.pid;
	CHECK(ctl(&r) == 0);
	CHECK(uet_engine_chan_attach(eng, 0, d.ch) == 0);
	post_recv(&d, UET_CHAN_RQ_RECV, 90, lbuf, 4096, 0);
	h = peer_add(0, fa, &d);
	fill(sbuf, 100, 9);
	sqe_init(&q, &B, UET_CHAN_OP_SEND, 91, sbuf, 100);
	q.dest = h;
	CHECK(uet_chan_sq_post(A.ch, &q) == 0);
	if (cq_wait(&A, &e)) {
		CHECK(e.context == 91 && e.status != 0);
		CHECK(e.prov_errno == UET_RC_BAD_PID);
	} else {
		failures++;
	}
	for (unsigned int i = 0; i < 100; i++)
		pump();
	CHECK(uet_chan_cq_poll(d.ch, &e, 1) == 0);
	CHECK(uet_engine_chan_detach(eng, d.ch) == 0);
	memset(&r, 0, sizeof(r));
	r.op = UET_SES_ULP_JOB_DEL;
	r.job = JOB;
	r.has_pid = true;
	r.pid = d.pid;
	CHECK(ctl(&r) == 0);
	memset(&r, 0, sizeof(r));
	r.op = UET_SES_ULP_EP_DEL;
	r.chan = d.ch;
	CHECK(ctl(&r) == 0);
	uet_chan_free(d.ch);
}

/* An AI Full process of context @p p->ctx (EP_ADD), channel @p name. */
static void
ai_proc_make(struct proc *p, const char *name)
{
	struct uet_ses_ulp_ctl r;

	p->ch = uet_chan_create(name, 64, 64, 64, SOCKET_ID_ANY, 0);
	CHECK(p->ch != NULL);
	if (p->ch == NULL)
		return;
	memset(&r, 0, sizeof(r));
	r.op = UET_SES_ULP_EP_ADD;
	r.chan = p->ch;
	r.pid = p->pid;
	r.initiator = p->initiator;
	r.profile = UET_PROFILE_AI_FULL;
	CHECK(ctl_on(p->ctx, &r) == 0);
	memset(&r, 0, sizeof(r));
	r.op = UET_SES_ULP_JOB_ADD;
	r.job = JOB;
	r.has_pid = true;
	r.pid = p->pid;
	CHECK(ctl_on(p->ctx, &r) == 0);
	CHECK(uet_engine_chan_attach(eng, p->ctx, p->ch) == 0);
}

static void
ai_proc_free(struct proc *p)
{
	struct uet_ses_ulp_ctl r;

	if (p->ch == NULL)
		return;
	CHECK(uet_engine_chan_detach(eng, p->ch) == 0);
	memset(&r, 0, sizeof(r));
	r.op = UET_SES_ULP_JOB_DEL;
	r.job = JOB;
	r.has_pid = true;
	r.pid = p->pid;
	CHECK(ctl_on(p->ctx, &r) == 0);
	memset(&r, 0, sizeof(r));
	r.op = UET_SES_ULP_EP_DEL;
	r.chan = p->ch;
	CHECK(ctl_on(p->ctx, &r) == 0);
	uet_chan_free(p->ch);
}

/*
 * Several contexts, before any other traffic: an unexpected deferrable
 * send from an AI Full process of context 1 to one of context 0 is
 * deferred, and the DEFERRABLE_RTR that the receive sends back opens
 * the first PDC from context 0 to the engine's address. Its PIDonFEP
 * is the deferred send's (the RTR sender's own process), so local
 * delivery must steer it by the owner in its initiator restart token
 * (uet_ses_config.token_owner_bits) to context 1, which holds the send;
 * steered by PIDonFEP it went back to context 0, whose SES answered
 * CANCELLED: the receive failed and the send never completed. Now the
 * send completes once, the receive once, byte-exact.
 */
static void
test_defer(const uint8_t fa[16])
{
	struct proc snd = { .ctx = 1, .pid = PID_B + 2, .initiator = 0xA1A1 };
	struct proc rcv = { .ctx = 0, .pid = PID_B + 3, .initiator = 0xB1B1 };
	struct uet_chan_sqe q;
	struct uet_chan_cqe e;
	const size_t len = 30000;

	ai_proc_make(&snd, "hpSai");
	ai_proc_make(&rcv, "hpRai");
	if (snd.ch == NULL || rcv.ch == NULL)
		goto out;
	rcv.peer = peer_add(snd.ctx, fa, &rcv);
	snd.peer = peer_add(rcv.ctx, fa, &snd);
	fill(sbuf, len, 77);
	memset(lbuf, 0, len + 64);
	sqe_init(&q, &rcv, UET_CHAN_OP_SEND, 700, sbuf, len);
	q.flags |= UET_CHAN_F_DEFERRABLE;
	CHECK(uet_chan_sq_post(snd.ch, &q) == 0);
	/* deferred: the target kept no data, the send waits for the RTR */
	for (unsigned int i = 0; i < 200; i++)
		pump();
	CHECK(uet_chan_cq_poll(snd.ch, &e, 1) == 0);
	CHECK(uet_chan_cq_poll(rcv.ch, &e, 1) == 0);
	post_recv(&rcv, UET_CHAN_RQ_RECV, 701, lbuf, len + 64, 0);
	expect_ok(&rcv, 701, len);
	CHECK(memcmp(lbuf, sbuf, len) == 0);
	expect_ok(&snd, 700, ~0ull);
	/* delivered once: nothing more for either */
	for (unsigned int i = 0; i < 200; i++)
		pump();
	CHECK(uet_chan_cq_poll(snd.ch, &e, 1) == 0);
	CHECK(uet_chan_cq_poll(rcv.ch, &e, 1) == 0);
out:
	ai_proc_free(&snd);
	ai_proc_free(&rcv);
}

static void
traffic(uint64_t key)
{
	if (auto_mode)
		wait_asleep();
	test_msgs();
	if (auto_mode)
		wait_asleep();
	test_rma(key);
	test_many(auto_mode ? 200 : 500);
}

static void
run(enum mode m)
{
	struct uet_ses_ulp_params sp = { .pid_base = PID_BASE, .max_msgs = 64,
					 .max_posted = 1100 };
	struct uet_proto_params pp = { .ulp = &uet_ses_ulp_ops,
				       .ulp_arg = &sp };
	struct uet_engine_params ep = { .hook = &uet_proto_hook_ops,
					.hook_arg = &pp, .name = "hp" };
	struct uet_ses_ulp_ctl r;
	struct uet_config c;

	config_make(&c, m);
	ep.cfg = &c;
	auto_mode = m == M_AUTO || m == M_CTX2AUTO;
	eng = uet_engine_create(&ep);
	if (eng == NULL) {
		fprintf(stderr, "engine: %s\n", rte_strerror(rte_errno));
		failures++;
		return;
	}
	if (auto_mode && uet_engine_start(eng) != 0) {
		fprintf(stderr, "engine start failed\n");
		failures++;
		goto out;
	}
	/* the steering table refuses what names no PIDonFEP or context */
	CHECK(uet_engine_pid_context_set(NULL, 1, 0) == -EINVAL);
	CHECK(uet_engine_pid_context_set(eng, 0x1000, 0) == -EINVAL);
	CHECK(uet_engine_pid_context_set(eng, 1, UET_ENGINE_LCORES_MAX) ==
	      -EINVAL);
	CHECK(uet_engine_pid_context_set(eng, 1, UINT32_MAX) == 0);
	if (procs_make(m) != 0) {
		fprintf(stderr, "setup failed\n");
		failures++;
		goto out;
	}
	memset(&r, 0, sizeof(r));
	r.op = UET_SES_ULP_MR_REG;
	r.job = JOB;
	r.base = (uintptr_t)rbuf;
	r.len = BIG;
	r.access = UET_SES_MR_REMOTE_READ | UET_SES_MR_REMOTE_WRITE |
		   UET_SES_MR_REMOTE_ATOMIC;
	CHECK(ctl_on(B.ctx, &r) == 0); /* B's region */
	if (m == M_CTX2 || m == M_CTX3) {
		uint8_t fa[16];

		test_defer(own_fa(m, fa));
	}
	traffic(r.key);
	if (auto_mode) {
		/* the application progresses the sleeping context itself:
		 * frames it queued to the own address wake the lcore if it
		 * stops (engine_app_progress) */
		app_progress = true;
		traffic(r.key);
		app_progress = false;
	}
	if (m == M_CTX2) {
		uint8_t fa[16];

		test_mixed_limit(own_fa(m, fa));
	}
	check_counters(m);
	check_telemetry();
out:
	uet_engine_stop(eng);
	if (A.ch != NULL)
		(void)uet_engine_chan_detach(eng, A.ch);
	if (B.ch != NULL)
		(void)uet_engine_chan_detach(eng, B.ch);
	uet_engine_free(eng);
	uet_chan_free(A.ch);
	uet_chan_free(B.ch);
}

int
main(int argc, char **argv)
{
	static const char *const names[] = {
		"ipv4", "ipv6", "native", "lossy", "auto", "ctx2", "ctx2auto",
		"ctx3", "tsslossy",
	};
	/* AUTO lcores 1 and 2 share the two CPUs with the test thread */
	static const char *const eal[] = {
		"-l 0 --no-huge -m 512 --no-pci --log-level=4",
		"-l 0,1 --no-huge -m 512 --no-pci --log-level=4",
		"--lcores=0@0,1@0,2@1 --no-huge -m 512 --no-pci --log-level=4",
	};
	struct rte_ring *in[NB_RINGS];
	char name[RTE_RING_NAMESIZE];
	int m = -1, rc;

	for (unsigned int i = 0; argc > 1 && i < RTE_DIM(names); i++)
		if (strcmp(argv[1], names[i]) == 0)
			m = (int)i;
	if (m < 0) {
		fprintf(stderr, "usage: %s ipv4|ipv6|native|lossy|auto|ctx2|"
			"ctx2auto|ctx3|tsslossy\n", argv[0]);
		return 2;
	}
	rc = uet_engine_eal_init("test_local_delivery",
				 eal[m == M_AUTO ? 1 : m == M_CTX2AUTO ? 2 : 0],
				 NULL);
	if (rc < 0) {
		fprintf(stderr, "EAL: %s\n", strerror(-rc));
		return 1;
	}
	/* a queue per context (ctx2, ctx3); the port's TX rings are read
	 * by nobody: what reaches them left the engine */
	for (unsigned int q = 0; q < NB_RINGS; q++) {
		snprintf(name, sizeof(name), "hp_in%u", q);
		in[q] = rte_ring_create(name, 1024, SOCKET_ID_ANY,
					RING_F_SP_ENQ | RING_F_SC_DEQ);
		snprintf(name, sizeof(name), "hp_out%u", q);
		wire_out[q] = rte_ring_create(name, 1024, SOCKET_ID_ANY,
					      RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (in[q] == NULL || wire_out[q] == NULL) {
			fprintf(stderr, "rings failed\n");
			return 1;
		}
	}
	if (rte_eth_from_rings("hp", in, NB_RINGS, wire_out, NB_RINGS,
			       SOCKET_ID_ANY) < 0) {
		fprintf(stderr, "ring port failed\n");
		return 1;
	}
	sbuf = calloc(1, BIG);
	rbuf = calloc(1, BIG);
	lbuf = calloc(1, BIG);
	if (sbuf == NULL || rbuf == NULL || lbuf == NULL)
		return 1;
	snprintf(cap_path, sizeof(cap_path), "/tmp/test_local_delivery_%d.pcapng",
		 (int)getpid());
	run((enum mode)m);
	if (m == M_IPV4)
		(void)unlink(cap_path);
	if (key_path[0] != '\0')
		(void)unlink(key_path);
	if (state_dir[0] != '\0')
		itest_rm_dir(state_dir);
	free(sbuf);
	free(rbuf);
	free(lbuf);
	(void)rte_eal_cleanup();
	printf("%s: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
	return failures ? 1 : 0;
}
