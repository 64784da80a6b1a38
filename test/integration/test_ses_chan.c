/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SES glue integration test (pmd/ses_ulp/) in one EAL process
 * (--no-huge): two engines over rte_eth_from_rings() ports back to back,
 * both INLINE on this thread, the PDS hook with the SES ULP, driven only
 * through the channel API (uet_chan.h) and the control path
 * (uet_ses_ulp_ctl):
 *
 *   send / recv (multi-packet, unexpected, header data), tagged,
 *   truncation, cancel, RMA write / read (virtual addresses), atomics
 *   (sum, fetch, compare-and-swap), bad key, wrong job, deregistered key,
 *   SQ backpressure (small SES pool) and CQ backpressure (small CQ ring),
 *   the peer table (bad and removed handles, a full table), a windowed
 *   channel in caller memory (offsets, -EFAULT, -EPERM)
 *
 * every CQE and every byte checked; then the traffic part again with
 * injected loss / duplication / reordering (pmd/core/fault.c) on both sides,
 * and again with zero-copy transmit (port.tx_zero_copy = true).
 * Bounded by loop iterations; no timing assertions.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ring.h>
#include <rte_telemetry.h>

#include <uet/uet_chan.h>
#include <uet/uet_clock.h>
#include <uet/uet_engine.h>
#include <uet/uet_ses_mr.h>
#include <uet/uet_ses_ulp.h>
#include <uet/uet_ulp.h>

#include "itest.h"

#define JOB 42
#define PID_A 10
#define PID_B 20
#define POLL_MAX 200000u
#define BIG 65536
#define A_PEERS 8 /* A's peer table */

static const uint8_t ip_a[4] = { 10, 0, 0, 1 };
static const uint8_t ip_b[4] = { 10, 0, 0, 2 };
static const uint8_t mac_a[6] = { 0x02, 0, 0, 0, 0, 0x0a };
static const uint8_t mac_b[6] = { 0x02, 0, 0, 0, 0, 0x0b };
static unsigned int run_no;

struct side {
	struct uet_engine *e;
	struct uet_chan *ch;
	struct uet_ses_ulp_peer self; /* this side, by value */
	uint64_t peer; /* handle naming this side on the other's engine */
	uint32_t initiator;
};

static struct side A, B;
static uint8_t *sbuf, *rbuf, *lbuf;

static void
faults(struct uet_config *c, uint64_t seed)
{
	uint32_t *d = c->fault.ppm[UET_CONFIG_FAULT_TX][UET_CONFIG_FAULT_DATA];
	uint32_t *k = c->fault.ppm[UET_CONFIG_FAULT_TX]
				  [UET_CONFIG_FAULT_CONTROL];

	c->fault.enabled = true;
	c->fault.seed = seed;
	c->fault.reorder_depth = 3;
	d[UET_CONFIG_FAULT_DROP] = 30000;
	d[UET_CONFIG_FAULT_DUP] = 10000;
	d[UET_CONFIG_FAULT_REORDER] = 20000;
	k[UET_CONFIG_FAULT_DROP] = 20000;
}

static void
peer_make(struct uet_ses_ulp_peer *a, const uint8_t *ip, uint16_t pid,
	  uint32_t initiator)
{
	memset(a, 0, sizeof(*a));
	a->pid_on_fep = pid;
	a->start_ri = 0;
	a->initiator = initiator;
	memcpy(a->fa, ip, 4);
}

static int ctl(struct side *s, struct uet_ses_ulp_ctl *r);

/* Register a destination with the engine of side @p on: the handle its
 * descriptors name it by (0, counted as a failure, if refused). */
static uint64_t
peer_add(struct side *on, const uint8_t *ip, uint16_t pid,
	 uint32_t initiator)
{
	struct uet_ses_ulp_ctl r = { .op = UET_SES_ULP_PEER_ADD };

	peer_make(&r.peer, ip, pid, initiator);
	CHECK(ctl(on, &r) == 0);
	CHECK(r.handle != 0);
	return r.rc == 0 ? r.handle : 0;
}

static int
peer_del(struct side *on, uint64_t handle)
{
	struct uet_ses_ulp_ctl r = { .op = UET_SES_ULP_PEER_DEL,
				     .handle = handle };

	return ctl(on, &r);
}

/* An EP_ADD binding channel @p ch to process @p pid (initiator id
 * @p initiator). */
static struct uet_ses_ulp_ctl
ep_add_req(struct uet_chan *ch, uint16_t pid, uint32_t initiator)
{
	return (struct uet_ses_ulp_ctl){ .op = UET_SES_ULP_EP_ADD, .chan = ch,
					 .pid = pid, .initiator = initiator };
}

/* EP_DEL of channel @p ch on side @p on: the answer's rc. */
static int
ep_del(struct side *on, struct uet_chan *ch)
{
	struct uet_ses_ulp_ctl r = { .op = UET_SES_ULP_EP_DEL, .chan = ch };

	return ctl(on, &r);
}

static void
pump(void)
{
	(void)uet_engine_poll(A.e, 4);
	(void)uet_engine_poll(B.e, 4);
}

/* Wait for one CQE on @p s (bounded). */
static bool
cq_wait(struct side *s, struct uet_chan_cqe *e)
{
	for (unsigned int i = 0; i < POLL_MAX; i++) {
		if (uet_chan_cq_poll(s->ch, e, 1) == 1)
			return true;
		pump();
	}
	fprintf(stderr, "no completion on side %s\n", s == &A ? "A" : "B");
	return false;
}

/* Nothing more may arrive on @p s for a while. */
static bool
cq_quiet(struct side *s)
{
	struct uet_chan_cqe e;

	for (unsigned int i = 0; i < 2000; i++) {
		pump();
		if (uet_chan_cq_poll(s->ch, &e, 1) == 1) {
			fprintf(stderr, "unexpected CQE ctx %lu status %d\n",
				(unsigned long)e.context, e.status);
			return false;
		}
	}
	return true;
}

static void
sqe_init(struct uet_chan_sqe *q, uint8_t op, uint64_t ctx, const void *buf,
	 uint64_t len)
{
	memset(q, 0, sizeof(*q));
	q->op = op;
	q->flags = UET_CHAN_F_COMPLETION;
	q->context = ctx;
	q->addr = (uint64_t)(uintptr_t)buf;
	q->len = len;
	q->dest = B.peer;
	q->job = JOB;
	q->tc = 1;
}

static void
post_sq(struct side *s, const struct uet_chan_sqe *q)
{
	CHECK(uet_chan_sq_post(s->ch, q) == 0);
}

static void
post_recv(struct side *s, uint8_t op, uint64_t ctx, void *buf, uint64_t len,
	  uint64_t tag)
{
	struct uet_chan_rqe r;

	memset(&r, 0, sizeof(r));
	r.op = op;
	r.context = ctx;
	r.addr = (uint64_t)(uintptr_t)buf;
	r.len = len;
	r.tag = tag;
	CHECK(uet_chan_rq_post(s->ch, &r) == 0);
}

static void
fill(uint8_t *p, size_t n, unsigned int seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 7 + seed * 13 + (i >> 8));
}

/* The SEND completes on A; the receive on B with these properties. */
static void
expect_tx_ok(uint64_t ctx)
{
	struct uet_chan_cqe e;

	if (!cq_wait(&A, &e)) {
		failures++;
		return;
	}
	CHECK(e.context == ctx);
	CHECK(e.status == 0);
	CHECK(e.flags & UET_CHAN_CQ_SEND);
	if (e.status != 0)
		fprintf(stderr, "ctx %lu: status %d prov %u\n",
			(unsigned long)ctx, e.status, e.prov_errno);
}

static void
expect_tx_err(uint64_t ctx, uint32_t prov)
{
	struct uet_chan_cqe e;

	if (!cq_wait(&A, &e)) {
		failures++;
		return;
	}
	CHECK(e.context == ctx);
	CHECK(e.status != 0);
	CHECK(e.prov_errno == prov);
	if (e.prov_errno != prov)
		fprintf(stderr, "ctx %lu: status %d prov %u, want %u\n",
			(unsigned long)ctx, e.status, e.prov_errno, prov);
}

static void
test_send(void)
{
	struct uet_chan_sqe q;
	struct uet_chan_cqe e;

	/* expected, multi-packet */
	fill(sbuf, 5000, 1);
	memset(lbuf, 0, 8192);
	post_recv(&B, UET_CHAN_RQ_RECV, 100, lbuf, 8192, 0);
	pump();
	sqe_init(&q, UET_CHAN_OP_SEND, 1, sbuf, 5000);
	post_sq(&A, &q);
	expect_tx_ok(1);
	if (cq_wait(&B, &e)) {
		CHECK(e.context == 100);
		CHECK(e.status == 0);
		CHECK(e.len == 5000);
		CHECK(e.flags & UET_CHAN_CQ_RECV);
		CHECK(e.flags & UET_CHAN_CQ_SRC);
		CHECK(e.src == A.initiator);
		CHECK(!(e.flags & UET_CHAN_CQ_TRUNC));
		CHECK(memcmp(lbuf, sbuf, 5000) == 0);
	} else {
		failures++;
	}
	/* unexpected, with header data */
	fill(sbuf, 700, 2);
	sqe_init(&q, UET_CHAN_OP_SEND, 2, sbuf, 700);
	q.flags |= UET_CHAN_F_IMM;
	q.imm_data = 0xfeedf00d12345678ull;
	post_sq(&A, &q);
	expect_tx_ok(2);
	memset(lbuf, 0, 8192);
	post_recv(&B, UET_CHAN_RQ_RECV, 101, lbuf, 8192, 0);
	if (cq_wait(&B, &e)) {
		CHECK(e.context == 101);
		CHECK(e.len == 700);
		CHECK(e.flags & UET_CHAN_CQ_IMM);
		CHECK(e.data == 0xfeedf00d12345678ull);
		CHECK(memcmp(lbuf, sbuf, 700) == 0);
	} else {
		failures++;
	}
}

static void
test_tagged(void)
{
	struct uet_chan_sqe q;
	struct uet_chan_cqe e;

	fill(sbuf, 1500, 3);
	memset(lbuf, 0, 4096);
	post_recv(&B, UET_CHAN_RQ_TRECV, 110, lbuf + 2048, 2048, 0x99);
	post_recv(&B, UET_CHAN_RQ_TRECV, 111, lbuf, 2048, 0x77);
	pump();
	sqe_init(&q, UET_CHAN_OP_TSEND, 3, sbuf, 1500);
	q.tag = 0x77;
	post_sq(&A, &q);
	expect_tx_ok(3);
	if (cq_wait(&B, &e)) {
		CHECK(e.context == 111);
		CHECK(e.flags & UET_CHAN_CQ_TAGGED);
		CHECK(e.tag == 0x77);
		CHECK(e.len == 1500);
		CHECK(memcmp(lbuf, sbuf, 1500) == 0);
	} else {
		failures++;
	}
	/* the 0x99 receive is still posted: cancel it */
	{
		struct uet_chan_rqe r;

		memset(&r, 0, sizeof(r));
		r.op = UET_CHAN_RQ_CANCEL;
		r.context = 110;
		CHECK(uet_chan_rq_post(B.ch, &r) == 0);
	}
	if (cq_wait(&B, &e)) {
		CHECK(e.context == 110);
		CHECK(e.status == -ECANCELED);
	} else {
		failures++;
	}
}

static void
test_trunc(void)
{
	struct uet_chan_sqe q;
	struct uet_chan_cqe e;

	fill(sbuf, 300, 4);
	memset(lbuf, 0xEE, 200);
	post_recv(&B, UET_CHAN_RQ_RECV, 120, lbuf, 100, 0);
	pump();
	sqe_init(&q, UET_CHAN_OP_SEND, 4, sbuf, 300);
	post_sq(&A, &q);
	expect_tx_ok(4);
	if (cq_wait(&B, &e)) {
		CHECK(e.context == 120);
		CHECK(e.status == -EMSGSIZE);
		CHECK(e.flags & UET_CHAN_CQ_TRUNC);
		CHECK(e.len == 100);
		CHECK(e.olen == 200);
		CHECK(memcmp(lbuf, sbuf, 100) == 0);
		CHECK(lbuf[100] == 0xEE);
	} else {
		failures++;
	}
}

/* Take the next CQE of B and check context, status and length. */
static void
expect_rx(uint64_t ctx, int status, uint64_t len)
{
	struct uet_chan_cqe e;

	if (!cq_wait(&B, &e)) {
		failures++;
		return;
	}
	CHECK(e.context == ctx);
	CHECK(e.status == status);
	CHECK(e.len == len);
	if (e.context != ctx || e.status != status || e.len != len)
		fprintf(stderr, "rx ctx %lu status %d len %lu\n",
			(unsigned long)e.context, e.status,
			(unsigned long)e.len);
}

static void
post_recv_flags(uint64_t ctx, void *buf, uint64_t len, uint64_t tag,
		uint32_t flags)
{
	struct uet_chan_rqe r;

	memset(&r, 0, sizeof(r));
	r.op = UET_CHAN_RQ_TRECV;
	r.flags = flags;
	r.context = ctx;
	r.addr = (uint64_t)(uintptr_t)buf;
	r.len = len;
	r.tag = tag;
	CHECK(uet_chan_rq_post(B.ch, &r) == 0);
}

/*
 * UET_CHAN_F_RENDEZVOUS: the eager part travels with the request, the
 * target reads the rest from A (the job's rendezvous RI table): expected
 * and unexpected, byte-exact; an unexpected one completes at A only
 * after B posted its receive. Then PEEK / PEEK|CLAIM / CLAIM / DISCARD on
 * unexpected messages (the CLAIM reuses the peek's channel context).
 */
static void
test_rdv_peek(void)
{
	struct uet_chan_sqe q;

	fill(sbuf, 30000, 41);
	memset(rbuf, 0, 30000);
	post_recv(&B, UET_CHAN_RQ_RECV, 150, rbuf, 30000, 0);
	pump();
	sqe_init(&q, UET_CHAN_OP_SEND, 50, sbuf, 30000);
	q.flags |= UET_CHAN_F_RENDEZVOUS;
	post_sq(&A, &q);
	expect_tx_ok(50);
	expect_rx(150, 0, 30000);
	CHECK(memcmp(rbuf, sbuf, 30000) == 0);
	/* unexpected */
	fill(sbuf, 12345, 42);
	memset(rbuf, 0, 13000);
	sqe_init(&q, UET_CHAN_OP_TSEND, 51, sbuf, 12345);
	q.tag = 0x51;
	q.flags |= UET_CHAN_F_RENDEZVOUS;
	post_sq(&A, &q);
	CHECK(cq_quiet(&A));
	post_recv(&B, UET_CHAN_RQ_TRECV, 151, rbuf, 13000, 0x51);
	expect_rx(151, 0, 12345);
	expect_tx_ok(51);
	CHECK(memcmp(rbuf, sbuf, 12345) == 0);
	/* peek / claim / discard */
	fill(sbuf, 9000, 43);
	sqe_init(&q, UET_CHAN_OP_TSEND, 52, sbuf, 9000);
	q.tag = 0x52;
	q.flags |= UET_CHAN_F_RENDEZVOUS;
	post_sq(&A, &q);
	sqe_init(&q, UET_CHAN_OP_TSEND, 53, sbuf + 100, 200);
	q.tag = 0x53;
	post_sq(&A, &q);
	expect_tx_ok(53);
	post_recv_flags(160, NULL, 0, 0x5f, UET_CHAN_F_PEEK);
	expect_rx(160, -ENOMSG, 0);
	post_recv_flags(161, NULL, 0, 0x52,
			UET_CHAN_F_PEEK | UET_CHAN_F_CLAIM);
	expect_rx(161, 0, 9000);
	memset(rbuf, 0, 9000);
	post_recv_flags(161, rbuf, 9000, 0x52, UET_CHAN_F_CLAIM);
	expect_rx(161, 0, 9000);
	CHECK(memcmp(rbuf, sbuf, 9000) == 0);
	expect_tx_ok(52);
	post_recv_flags(162, NULL, 0, 0x53,
			UET_CHAN_F_PEEK | UET_CHAN_F_DISCARD);
	expect_rx(162, 0, 0);
	post_recv_flags(163, NULL, 0, 0x53, UET_CHAN_F_PEEK);
	expect_rx(163, -ENOMSG, 0);
	/* a CLAIM that no PEEK|CLAIM reserved */
	post_recv_flags(164, rbuf, 100, 0x53, UET_CHAN_F_CLAIM);
	expect_rx(164, -ENOENT, 0);
}

/* Wait for one CQE on channel @p ch (bounded). */
static bool
chan_wait(struct uet_chan *ch, struct uet_chan_cqe *e)
{
	for (unsigned int i = 0; i < POLL_MAX; i++) {
		if (uet_chan_cq_poll(ch, e, 1) == 1)
			return true;
		pump();
	}
	fprintf(stderr, "no completion on the EP_ADD channel\n");
	return false;
}

/*
 * EP_ADD: a second channel on B's context bound to another process
 * (PIDonFEP PID_B + 5, its own initiator id and receive context, remote
 * events on). A send to that PIDonFEP lands in its receive and reports
 * A's initiator; the default channel sees nothing; a WRITE to B's region
 * through that PIDonFEP (RMA table alias) gives the channel a REMOTE
 * event; a PIDonFEP without EP_ADD is refused (BAD_PID); EP_DEL after
 * the detach. The send to PID_B + 5 is posted before its EP_ADD, as by a
 * client that starts before its server's endpoint: answered BAD_PID, it
 * goes again until the process is there ([engine] pid_wait, 30 ms in
 * this test), then lands once; the one to PID_B + 6 fails once the wait
 * is over.
 */
static const struct uet_ses_stats *
a_ses_stats(void)
{
	struct uet_ses_ulp_stats st;
	const struct uet_ses *ses = NULL;

	if (uet_ses_ulp_stats_get(A.e, 0, &st, &ses) != 0 || ses == NULL)
		return NULL;
	return uet_ses_stats_get(ses);
}

static bool
resent_twice(const struct uet_ses_stats *ss)
{
	return ss->pid_resent >= 2;
}

static bool
gave_up(const struct uet_ses_stats *ss)
{
	return ss->pid_gave_up >= 1;
}

/* Pump until A's SES counters say @p done (at most 5 s: the waits after
 * BAD_PID are timers). */
static bool
a_ses_wait(bool (*done)(const struct uet_ses_stats *))
{
	const struct uet_ses_stats *ss = a_ses_stats();
	uint64_t end = uet_mono_ms() + 5000;

	while (ss != NULL && uet_mono_ms() < end) {
		if (done(ss))
			return true;
		pump();
	}
	fprintf(stderr, "A's SES counters: pid_resent %lu pid_gave_up %lu\n",
		ss ? (unsigned long)ss->pid_resent : 0,
		ss ? (unsigned long)ss->pid_gave_up : 0);
	return false;
}

static void
test_ep_add(uint64_t key)
{
	uint64_t a2, a3;
	struct uet_ses_ulp_ctl r;
	struct uet_chan_sqe q;
	struct uet_chan_cqe e;
	struct uet_chan *ch;
	char name[20];

	snprintf(name, sizeof(name), "scE%u", run_no);
	ch = uet_chan_create(name, 64, 64, 64, SOCKET_ID_ANY, 0);
	CHECK(ch != NULL);
	if (ch == NULL)
		return;
	a2 = peer_add(&A, ip_b, PID_B + 5, 0xB2B2);
	a3 = peer_add(&A, ip_b, PID_B + 6, 0xB3B3);
	/* a send to PID_B + 5 before its process exists: it waits */
	fill(sbuf, 3000, 51);
	memset(lbuf, 0, 4096);
	sqe_init(&q, UET_CHAN_OP_SEND, 70, sbuf, 3000);
	q.dest = a2;
	post_sq(&A, &q);
	CHECK(a_ses_wait(resent_twice));
	CHECK(uet_chan_cq_poll(A.ch, &e, 1) == 0);
	memset(&r, 0, sizeof(r));
	r.op = UET_SES_ULP_EP_ADD;
	r.chan = ch;
	r.pid = PID_B + 5;
	r.initiator = 0xB2B2;
	r.remote_events = true;
	CHECK(ctl(&B, &r) == 0);
	CHECK(ctl(&B, &r) == -EEXIST);
	memset(&r, 0, sizeof(r));
	r.op = UET_SES_ULP_JOB_ADD;
	r.job = JOB;
	r.has_pid = true;
	r.pid = PID_B + 5;
	CHECK(ctl(&B, &r) == 0);
	CHECK(uet_engine_chan_attach(B.e, 0, ch) == 0);
	/* its receive, posted after the process came */
	{
		struct uet_chan_rqe rq;

		memset(&rq, 0, sizeof(rq));
		rq.op = UET_CHAN_RQ_RECV;
		rq.context = 170;
		rq.addr = (uint64_t)(uintptr_t)lbuf;
		rq.len = 4096;
		CHECK(uet_chan_rq_post(ch, &rq) == 0);
	}
	expect_tx_ok(70);
	if (chan_wait(ch, &e)) {
		CHECK(e.context == 170 && e.status == 0 && e.len == 3000);
		CHECK(e.src == A.initiator);
		CHECK(memcmp(lbuf, sbuf, 3000) == 0);
	} else {
		failures++;
	}
	CHECK(cq_quiet(&B));
	/* a WRITE through PID_B + 5: B's region, a REMOTE event */
	sqe_init(&q, UET_CHAN_OP_WRITE, 71, sbuf, 1000);
	q.dest = a2;
	q.rkey = key;
	q.roffset = (uint64_t)(uintptr_t)(rbuf + 50000);
	post_sq(&A, &q);
	expect_tx_ok(71);
	CHECK(memcmp(rbuf + 50000, sbuf, 1000) == 0);
	if (chan_wait(ch, &e)) {
		CHECK(e.context == 0 && (e.flags & UET_CHAN_CQ_REMOTE));
		CHECK(e.op == UET_CHAN_OP_WRITE && e.len == 1000);
		CHECK(e.src == A.initiator);
	} else {
		failures++;
	}
	/* PID_B + 6 is no process of B */
	sqe_init(&q, UET_CHAN_OP_SEND, 72, sbuf, 100);
	q.dest = a3;
	post_sq(&A, &q);
	CHECK(a_ses_wait(gave_up));
	expect_tx_err(72, UET_RC_BAD_PID);
	CHECK(peer_del(&A, a2) == 0);
	CHECK(peer_del(&A, a3) == 0);
	/* detach, then the job and the process go */
	CHECK(uet_engine_chan_detach(B.e, ch) == 0);
	pump();
	memset(&r, 0, sizeof(r));
	r.op = UET_SES_ULP_JOB_DEL;
	r.job = JOB;
	r.has_pid = true;
	r.pid = PID_B + 5;
	CHECK(ctl(&B, &r) == 0);
	memset(&r, 0, sizeof(r));
	r.op = UET_SES_ULP_EP_DEL;
	r.chan = ch;
	CHECK(ctl(&B, &r) == 0);
	CHECK(ctl(&B, &r) == -ENOENT);
	uet_chan_free(ch);
}

/*
 * The security review's stall of every channel of a context: a process
 * whose channels' CQs are never polled (size 2) had receives posted on
 * one channel after another and messages sent into them; their CQEs
 * waited in the context's one pending queue, and once it was full (2 x
 * the op records: 2048 here) no channel of the context took a
 * descriptor or got a completion. Now each channel's descriptors in
 * progress and CQEs waiting are bounded together, per ring
 * (SES_ULP_CHAN_OPS_MAX), and the queue holds every channel's: nine
 * channels of 250 stall, B's own channel goes on (a NOP completes), and
 * A's sends all complete.
 */
static void
test_cq_hog(void)
{
	enum { HOGS = 9, N = 250, HOG_PID = PID_B + 7 };
	struct uet_chan *hog[HOGS] = { NULL };
	struct uet_ses_ulp_ctl r;
	struct uet_chan_sqe q;
	struct uet_chan_cqe e;
	uint64_t peer = peer_add(&A, ip_b, HOG_PID, 0xB7B7);
	unsigned int h, i;
	char name[24];

	for (h = 0; h < HOGS; h++) {
		snprintf(name, sizeof(name), "scH%u_%u", run_no, h);
		hog[h] = uet_chan_create(name, 2, 512, 2, SOCKET_ID_ANY, 0);
		CHECK(hog[h] != NULL);
		if (hog[h] == NULL)
			goto out;
		r = ep_add_req(hog[h], HOG_PID, 0xB7B7);
		CHECK(ctl(&B, &r) == 0);
		CHECK(uet_engine_chan_attach(B.e, 0, hog[h]) == 0);
	}
	memset(&r, 0, sizeof(r));
	r.op = UET_SES_ULP_JOB_ADD;
	r.job = JOB;
	r.has_pid = true;
	r.pid = HOG_PID;
	CHECK(ctl(&B, &r) == 0);
	for (h = 0; h < HOGS; h++) {
		unsigned int sent = 0, done = 0;

		for (i = 0; i < N; i++) {
			struct uet_chan_rqe rq = {
				.op = UET_CHAN_RQ_RECV, .context = 1 + i,
				.addr = (uint64_t)(uintptr_t)lbuf, .len = 8,
			};

			CHECK(uet_chan_rq_post(hog[h], &rq) == 0);
		}
		for (i = 0; i < 64; i++)
			pump();
		for (i = 0; i < POLL_MAX && done < N; i++) {
			sqe_init(&q, UET_CHAN_OP_SEND, 3000 + sent, sbuf, 8);
			q.dest = peer;
			if (sent < N && uet_chan_sq_post(A.ch, &q) == 0)
				sent++;
			while (uet_chan_cq_poll(A.ch, &e, 1) == 1) {
				CHECK(e.status == 0);
				done++;
			}
			pump();
		}
		CHECK(done == N);
		if (done != N)
			printf("# hog channel %u: %u of %u sends done\n", h,
			       done, N);
	}
	/* B's own channel: served */
	sqe_init(&q, UET_CHAN_OP_NOP, 999, NULL, 0);
	q.flags = UET_CHAN_F_COMPLETION;
	post_sq(&B, &q);
	CHECK(cq_wait(&B, &e) && e.context == 999 && e.status == 0);
	printf("# %u x %u completions left unpolled on %u channels: B's "
	       "own channel and A's sends went on\n", HOGS, N, HOGS);
out:
	for (h = 0; h < HOGS && hog[h] != NULL; h++)
		CHECK(uet_engine_chan_detach(B.e, hog[h]) == 0);
	pump();
	memset(&r, 0, sizeof(r));
	r.op = UET_SES_ULP_JOB_DEL;
	r.job = JOB;
	r.has_pid = true;
	r.pid = HOG_PID;
	(void)ctl(&B, &r);
	for (h = 0; h < HOGS && hog[h] != NULL; h++) {
		CHECK(ep_del(&B, hog[h]) == 0);
		uet_chan_free(hog[h]);
	}
	CHECK(peer_del(&A, peer) == 0);
}

static void
ulp_stats(struct side *s, struct uet_ses_ulp_stats *st)
{
	CHECK(uet_ses_ulp_stats_get(s->e, 0, st, NULL) == 0);
}

/* Post control request @p r on side @p s without waiting. */
static struct uet_ses_ulp_ctl_pending *
ctl_post(struct side *s, const struct uet_ses_ulp_ctl *r)
{
	struct uet_ses_ulp_ctl_pending *op = NULL;

	CHECK(uet_ses_ulp_ctl_post(s->e, 0, r, &op) == 0);
	return op;
}

/*
 * The engine holds an EP_DEL while its process's operation is on the
 * wire (the peer B, not polled, acknowledges nothing), and with it only
 * what touches the same process, job or channel: another process's
 * EP_ADD and EP_DEL and a PEER_ADD posted after it are answered
 * meanwhile (before, every later request of the context was held behind
 * it, the service's clients included), an EP_ADD of the held one's
 * PIDonFEP waits and is answered after it once B acknowledges. With the
 * context's bindings then filled, an EP_ADD of a third process waits for
 * the room the held EP_DEL makes instead of being refused -ENOSPC ahead
 * of it.
 */
static void
test_ctl_order(uint64_t wd_key)
{
	enum { PX = PID_A + 3, PY = PID_A + 4, PZ = PID_A + 5 };
	struct uet_chan *fill[UET_ENGINE_CHANS_MAX + 1] = { NULL };
	struct uet_ses_ulp_ctl_pending *op[5];
	struct uet_ses_ulp_ctl r[5], a;
	struct uet_ses_ulp_stats st0, st;
	struct uet_chan *x, *x2, *y;
	struct uet_chan_sqe q;
	bool done[5] = { false }, order = true;
	unsigned int i, k, nf = 0;
	char name[24];

	snprintf(name, sizeof(name), "scX%u", run_no);
	x = uet_chan_create(name, 8, 8, 8, SOCKET_ID_ANY, 0);
	snprintf(name, sizeof(name), "scX2%u", run_no);
	x2 = uet_chan_create(name, 8, 8, 8, SOCKET_ID_ANY, 0);
	snprintf(name, sizeof(name), "scY%u", run_no);
	y = uet_chan_create(name, 8, 8, 8, SOCKET_ID_ANY, 0);
	CHECK(x != NULL && x2 != NULL && y != NULL);
	if (x == NULL || x2 == NULL || y == NULL)
		goto out;
	a = ep_add_req(x, PX, 0xA3A3);
	CHECK(ctl(&A, &a) == 0);
	CHECK(uet_engine_chan_attach(A.e, 0, x) == 0);
	/* a WRITE of what B's region holds already, A alone polled: on the
	 * wire, acknowledged by nobody */
	memcpy(lbuf, rbuf, 64);
	sqe_init(&q, UET_CHAN_OP_WRITE, 90, lbuf, 64);
	q.rkey = wd_key;
	q.roffset = (uint64_t)(uintptr_t)rbuf;
	CHECK(uet_chan_sq_post(x, &q) == 0);
	for (i = 0; i < 64; i++)
		(void)uet_engine_poll(A.e, 4);
	CHECK(uet_engine_chan_detach(A.e, x) == 0);
	ulp_stats(&A, &st0);

	memset(r, 0, sizeof(r));
	r[0].op = UET_SES_ULP_EP_DEL; /* held: its WRITE is on the wire */
	r[0].chan = x;
	r[1] = ep_add_req(y, PY, 0xA4A4); /* another process */
	/* the held one's PIDonFEP: waits */
	r[2] = ep_add_req(x2, PX, 0xA3A3);
	r[3].op = UET_SES_ULP_PEER_ADD;
	peer_make(&r[3].peer, ip_b, PID_B + 9, 0xB9B9);
	r[4].op = UET_SES_ULP_EP_DEL; /* the other process's */
	r[4].chan = y;
	for (k = 0; k < 5; k++)
		op[k] = ctl_post(&A, &r[k]);
	for (i = 0; i < 64; i++) {
		(void)uet_engine_poll(A.e, 4);
		for (k = 0; k < 5; k++)
			if (!done[k] && op[k] != NULL &&
			    uet_ses_ulp_ctl_poll(op[k], &r[k]) == 0)
				done[k] = true;
	}
	ulp_stats(&A, &st);
	printf("# EP_DEL held by a WRITE on the wire: %s; another process's "
	       "EP_ADD %s, EP_DEL %s, a PEER_ADD %s; an EP_ADD of its "
	       "PIDonFEP %s\n", done[0] ? "answered" : "held",
	       done[1] ? "answered" : "held", done[4] ? "answered" : "held",
	       done[3] ? "answered" : "held", done[2] ? "answered" : "held");
	CHECK(st.withdraw_waits == st0.withdraw_waits + 1);
	CHECK(!done[0] && !done[2]);
	CHECK(done[1] && done[3] && done[4]);
	CHECK(r[1].rc == 0 && r[3].rc == 0 && r[4].rc == 0);
	/* B acknowledges: the EP_DEL, then the EP_ADD behind it */
	for (i = 0; i < POLL_MAX && !(done[0] && done[2]); i++) {
		pump();
		for (k = 0; k < 3; k += 2)
			if (!done[k] && uet_ses_ulp_ctl_poll(op[k], &r[k]) == 0) {
				done[k] = true;
				order = order && (k == 0 || done[0]);
			}
	}
	CHECK(done[0] && done[2] && order);
	CHECK(r[0].rc == 0 && r[2].rc == 0);
	if (done[3])
		CHECK(peer_del(&A, r[3].handle) == 0);

	/* x2 closes with a WRITE on the wire, every binding taken */
	CHECK(uet_engine_chan_attach(A.e, 0, x2) == 0);
	q.context = 91;
	CHECK(uet_chan_sq_post(x2, &q) == 0);
	for (i = 0; i < 64; i++)
		(void)uet_engine_poll(A.e, 4);
	CHECK(uet_engine_chan_detach(A.e, x2) == 0);
	a = ep_add_req(NULL, PZ, 0xA5A5);
	for (nf = 0; nf < RTE_DIM(fill); nf++) {
		snprintf(name, sizeof(name), "scF%u_%u", run_no, nf);
		fill[nf] = uet_chan_create(name, 2, 2, 2, SOCKET_ID_ANY, 0);
		a.chan = fill[nf];
		if (fill[nf] == NULL || ctl(&A, &a) != 0)
			break;
	}
	CHECK(nf < RTE_DIM(fill) && fill[nf] != NULL && a.rc == -ENOSPC);
	memset(r, 0, sizeof(r));
	memset(done, 0, sizeof(done));
	r[0].op = UET_SES_ULP_EP_DEL; /* held: its WRITE is on the wire */
	r[0].chan = x2;
	r[1] = a; /* refused above: now behind the EP_DEL making room */
	for (k = 0; k < 2; k++)
		op[k] = ctl_post(&A, &r[k]);
	for (i = 0; i < 64; i++)
		(void)uet_engine_poll(A.e, 4);
	for (k = 0; k < 2; k++)
		done[k] = uet_ses_ulp_ctl_poll(op[k], &r[k]) == 0;
	printf("# %u bindings more fill the context: an EP_ADD %s\n", nf,
	       done[1] ? "answered at once" : "held behind the EP_DEL");
	CHECK(!done[0] && !done[1]);
	for (i = 0; i < POLL_MAX && !(done[0] && done[1]); i++) {
		pump();
		for (k = 0; k < 2; k++)
			if (!done[k] && uet_ses_ulp_ctl_poll(op[k], &r[k]) == 0) {
				done[k] = true;
				order = order && (k == 0 || done[0]);
			}
	}
	CHECK(done[0] && done[1] && order);
	CHECK(r[0].rc == 0 && r[1].rc == 0);
	ulp_stats(&A, &st);
	CHECK(st.withdraw_forced == st0.withdraw_forced);
	for (k = 0; k <= nf && k < RTE_DIM(fill); k++)
		if (fill[k] != NULL)
			CHECK(ep_del(&A, fill[k]) == 0);
out:
	for (k = 0; k < RTE_DIM(fill); k++)
		uet_chan_free(fill[k]);
	uet_chan_free(x);
	uet_chan_free(x2);
	uet_chan_free(y);
}

/* One SQE on the windowed channel @p cli, its CQE (bounded). */
static bool
win_post_wait(struct uet_chan *cli, const struct uet_chan_sqe *q,
	      struct uet_chan_cqe *e)
{
	CHECK(uet_chan_sq_post(cli, q) == 0);
	return chan_wait(cli, e);
}

/*
 * A windowed channel (the uet-engine service's, in caller memory, engine
 * side UET_CHAN_SHARED) on A: addresses are offsets into its data
 * window, checked against it (-EFAULT, win_bad: past the end, wrapping
 * sums, an IOV entry outside, an atomic result outside, a receive
 * outside), and only its job set may be used (-EPERM, job_bad). A send
 * from the window reaches B intact.
 */
static void
test_window(void)
{
	enum { WIN = 65536, SQ = 16, RQ = 16, CQ = 32 };
	static struct uet_chan_jobs jobs = { .nb = 1,
					     .r = { { JOB, JOB } } };
	struct uet_chan eng, cli;
	struct uet_ses_ulp_stats st0, st1;
	struct uet_chan_iov iov;
	struct uet_chan_sqe q;
	struct uet_chan_rqe r;
	struct uet_chan_cqe e;
	size_t off[3], len = uet_chan_mem_size(SQ, RQ, CQ, off);
	uint8_t *win = aligned_alloc(64, WIN);
	void *mem = aligned_alloc(64, len);

	CHECK(len != 0 && win != NULL && mem != NULL);
	if (len == 0 || win == NULL || mem == NULL)
		goto out;
	CHECK(uet_chan_init_mem(&eng, "scW", mem, len, SQ, RQ, CQ,
				UET_CHAN_SHARED) == 0);
	CHECK(uet_chan_map_mem(&cli, "scW", (uint8_t *)mem + off[0],
			       (uint8_t *)mem + off[1],
			       (uint8_t *)mem + off[2], SQ, RQ, CQ, 0) == 0);
	eng.win_base = win;
	eng.win_len = WIN;
	eng.jobs = &jobs;
	/* an INLINE engine never sleeps: no wake-up fd; its wakers move
	 * only with no channel attached */
	CHECK(uet_engine_wake_fd(A.e, 0) == -ENOENT);
	CHECK(uet_engine_wake_fd(A.e, 99) == -EINVAL);
	{
		static uint64_t spot[8];

		CHECK(uet_engine_wakers_place(A.e, spot, 2) == -EINVAL);
		CHECK(uet_engine_wakers_place(A.e, spot, sizeof(spot[0])) ==
		      -EBUSY); /* A.ch is attached */
	}
	CHECK(uet_engine_chan_attach(A.e, 0, &eng) == 0);
	ulp_stats(&A, &st0);
	/* a send of window bytes 1000..3999 */
	fill(win + 1000, 3000, 61);
	memset(lbuf, 0, 4096);
	post_recv(&B, UET_CHAN_RQ_RECV, 180, lbuf, 4096, 0);
	pump();
	sqe_init(&q, UET_CHAN_OP_SEND, 80, NULL, 3000);
	q.addr = 1000;
	if (win_post_wait(&cli, &q, &e))
		CHECK(e.context == 80 && e.status == 0);
	if (cq_wait(&B, &e)) {
		CHECK(e.context == 180 && e.status == 0 && e.len == 3000);
		CHECK(memcmp(lbuf, win + 1000, 3000) == 0);
	} else {
		failures++;
	}
	/* one byte past the end; a sum that wraps */
	q.context = 81;
	q.addr = WIN - 99;
	q.len = 100;
	if (win_post_wait(&cli, &q, &e))
		CHECK(e.context == 81 && e.status == -EFAULT);
	q.context = 82;
	q.addr = UINT64_MAX - 5;
	q.len = 10;
	if (win_post_wait(&cli, &q, &e))
		CHECK(e.context == 82 && e.status == -EFAULT);
	/* an IOV whose array is in the window but whose entry is not */
	iov.addr = WIN - 10;
	iov.len = 11;
	memcpy(win, &iov, sizeof(iov));
	q.context = 83;
	q.flags |= UET_CHAN_F_IOV;
	q.addr = 0;
	q.len = 1;
	if (win_post_wait(&cli, &q, &e))
		CHECK(e.context == 83 && e.status == -EFAULT);
	/* a fetching atomic whose result lies outside */
	sqe_init(&q, UET_CHAN_OP_FETCH_ATOMIC, 84, NULL, 8);
	q.addr = 0;
	q.result = WIN;
	q.rkey = 1;
	if (win_post_wait(&cli, &q, &e))
		CHECK(e.context == 84 && e.status == -EFAULT);
	/* a job outside the channel's set */
	sqe_init(&q, UET_CHAN_OP_SEND, 85, NULL, 10);
	q.addr = 0;
	q.job = JOB + 1;
	if (win_post_wait(&cli, &q, &e))
		CHECK(e.context == 85 && e.status == -EPERM);
	/* a receive outside */
	memset(&r, 0, sizeof(r));
	r.op = UET_CHAN_RQ_RECV;
	r.context = 86;
	r.addr = WIN;
	r.len = 1;
	CHECK(uet_chan_rq_post(&cli, &r) == 0);
	if (chan_wait(&cli, &e))
		CHECK(e.context == 86 && e.status == -EFAULT);
	ulp_stats(&A, &st1);
	CHECK(st1.win_bad == st0.win_bad + 5);
	CHECK(st1.job_bad == st0.job_bad + 1);
	CHECK(uet_engine_chan_detach(A.e, &eng) == 0);
	CHECK(cq_quiet(&A));
out:
	free(mem);
	free(win);
}

/* A multi-receive buffer takes several messages, then is released; a
 * directed receive only matches its source. */
static void
test_multi_and_directed(void)
{
	struct uet_chan_sqe q;
	struct uet_chan_cqe e;
	struct uet_chan_rqe r;
	uint64_t off = 0;

	memset(lbuf, 0, 2048);
	memset(&r, 0, sizeof(r));
	r.op = UET_CHAN_RQ_RECV;
	r.flags = UET_CHAN_F_MULTI_RECV;
	r.context = 130;
	r.addr = (uint64_t)(uintptr_t)lbuf;
	r.len = 1024;
	r.ignore = 200; /* min_multi_recv */
	CHECK(uet_chan_rq_post(B.ch, &r) == 0);
	pump();
	for (unsigned int i = 0; i < 3; i++) {
		fill(sbuf + 300 * i, 300, 20 + i);
		sqe_init(&q, UET_CHAN_OP_SEND, 40 + i, sbuf + 300 * i, 300);
		post_sq(&A, &q);
		expect_tx_ok(40 + i);
		if (!cq_wait(&B, &e)) {
			failures++;
			return;
		}
		CHECK(e.context == 130 && e.status == 0 && e.len == 300);
		/* 1024 - 3 * 300 = 124 < 200: released with the third */
		CHECK(!!(e.flags & UET_CHAN_CQ_MULTI_RECV_DONE) == (i == 2));
		off += 300;
	}
	CHECK(memcmp(lbuf, sbuf, off) == 0);
	/* directed: only A's messages match; a filter on another initiator
	 * stays posted and is cancelled */
	memset(&r, 0, sizeof(r));
	r.op = UET_CHAN_RQ_RECV;
	r.flags = UET_CHAN_F_SRC_FILTER;
	r.context = 131;
	r.addr = (uint64_t)(uintptr_t)(lbuf + 4096);
	r.len = 512;
	/* not the sender: B itself, as a peer of B's engine */
	r.src = peer_add(&B, ip_b, B.self.pid_on_fep, B.initiator);
	CHECK(uet_chan_rq_post(B.ch, &r) == 0);
	pump(); /* the engine took the post: its filter is a value now */
	CHECK(peer_del(&B, r.src) == 0);
	r.context = 132;
	r.src = A.peer;
	CHECK(uet_chan_rq_post(B.ch, &r) == 0);
	pump();
	fill(sbuf, 100, 30);
	sqe_init(&q, UET_CHAN_OP_SEND, 43, sbuf, 100);
	post_sq(&A, &q);
	expect_tx_ok(43);
	if (cq_wait(&B, &e)) {
		CHECK(e.context == 132 && e.status == 0 && e.len == 100);
		CHECK(e.src == A.initiator);
	} else {
		failures++;
	}
	memset(&r, 0, sizeof(r));
	r.op = UET_CHAN_RQ_CANCEL;
	r.context = 131;
	CHECK(uet_chan_rq_post(B.ch, &r) == 0);
	if (cq_wait(&B, &e))
		CHECK(e.context == 131 && e.status == -ECANCELED);
	else
		failures++;
}

/* ROD through the SQE mode byte: messages land in send order, also
 * under injected loss and reordering. */
static void
test_rod(void)
{
	struct uet_chan_sqe q;
	struct uet_chan_cqe e;
	unsigned int i, got = 0, sent = 0;

	for (i = 0; i < 40; i++)
		post_recv(&B, UET_CHAN_RQ_RECV, 3000 + i, lbuf + 64 * i, 64, 0);
	for (i = 0; i < 40; i++) {
		uint32_t v = i;

		memcpy(sbuf + 64 * i, &v, 4);
		sqe_init(&q, UET_CHAN_OP_SEND, 4000 + i, sbuf + 64 * i, 64);
		q.mode = UET_CHAN_MODE_ROD;
		q.flags = 0; /* no CQE on success */
		post_sq(&A, &q);
	}
	for (unsigned int k = 0; k < POLL_MAX && got < 40; k++) {
		pump();
		while (uet_chan_cq_poll(B.ch, &e, 1) == 1) {
			uint32_t v;

			memcpy(&v, lbuf + 64 * got, 4);
			CHECK(e.context == 3000 + got && e.status == 0);
			CHECK(v == got); /* in send order */
			got++;
		}
		while (uet_chan_cq_poll(A.ch, &e, 1) == 1) {
			CHECK(e.status == 0); /* only errors complete */
			sent++;
		}
	}
	CHECK(got == 40);
	CHECK(sent == 0);
}

static int
ctl(struct side *s, struct uet_ses_ulp_ctl *r)
{
	int rc = uet_ses_ulp_ctl(s->e, 0, r, NULL, NULL);

	return rc < 0 ? rc : r->rc;
}

/*
 * Zero-copy transmit (port.tx_zero_copy = true on the ring ports): a
 * 64 KiB send and a WRITE of 60 000 bytes go by reference, every packet;
 * when each completes, no frame holds its buffer any more (the ext shared
 * info counts back at the ULP's own reference), and the bytes are exact.
 */
static void
test_zero_copy(uint64_t key)
{
	struct uet_ses_ulp_stats st0, st;
	struct uet_chan_sqe q;
	struct uet_chan_cqe e;

	ulp_stats(&A, &st0);
	fill(sbuf, BIG, 9);
	memset(lbuf, 0, BIG);
	post_recv(&B, UET_CHAN_RQ_RECV, 300, lbuf, BIG, 0);
	pump();
	sqe_init(&q, UET_CHAN_OP_SEND, 30, sbuf, BIG);
	post_sq(&A, &q);
	expect_tx_ok(30);
	ulp_stats(&A, &st);
	CHECK(st.tx_ref_held == 0);
	/* 64 KiB at MTU 9000: 8 packets of about 8.9 KB */
	CHECK(st.tx_ref - st0.tx_ref >= BIG / 9000);
	if (cq_wait(&B, &e)) {
		CHECK(e.context == 300 && e.status == 0 && e.len == BIG);
		CHECK(memcmp(lbuf, sbuf, BIG) == 0);
	} else {
		failures++;
	}
	fill(sbuf, 60000, 10);
	memset(rbuf, 0, BIG);
	sqe_init(&q, UET_CHAN_OP_WRITE, 31, sbuf, 60000);
	q.rkey = key;
	q.roffset = (uint64_t)(uintptr_t)(rbuf + 8);
	post_sq(&A, &q);
	expect_tx_ok(31);
	ulp_stats(&A, &st0);
	CHECK(st0.tx_ref_held == 0);
	CHECK(st0.tx_ref - st.tx_ref >= 60000 / 9000);
	CHECK(memcmp(rbuf + 8, sbuf, 60000) == 0);
	CHECK(rbuf[7] == 0 && rbuf[60008] == 0);
	printf("# zero-copy: %lu frames by reference\n",
	       (unsigned long)st0.tx_ref);
}

static void
test_rma(uint64_t key)
{
	struct uet_chan_sqe q;
	uint64_t v, res, cmp;

	/* WRITE at a virtual address inside the region */
	fill(sbuf, 3000, 5);
	memset(rbuf, 0, BIG);
	sqe_init(&q, UET_CHAN_OP_WRITE, 10, sbuf, 3000);
	q.rkey = key;
	q.roffset = (uint64_t)(uintptr_t)(rbuf + 100);
	post_sq(&A, &q);
	expect_tx_ok(10);
	CHECK(memcmp(rbuf + 100, sbuf, 3000) == 0);
	CHECK(rbuf[99] == 0 && rbuf[3100] == 0);
	/* WRITE with remote CQ data: an unsolicited CQE (context 0) on B */
	sqe_init(&q, UET_CHAN_OP_WRITE, 15, sbuf, 512);
	q.flags |= UET_CHAN_F_IMM;
	q.imm_data = 0xabcdef;
	q.rkey = key;
	q.roffset = (uint64_t)(uintptr_t)(rbuf + 4096);
	post_sq(&A, &q);
	expect_tx_ok(15);
	{
		struct uet_chan_cqe e;

		if (cq_wait(&B, &e)) {
			CHECK(e.context == 0);
			CHECK(e.status == 0);
			CHECK(e.flags & UET_CHAN_CQ_IMM);
			CHECK(e.data == 0xabcdef);
			CHECK(e.len == 512);
			CHECK(e.op == UET_CHAN_OP_WRITE);
			CHECK(memcmp(rbuf + 4096, sbuf, 512) == 0);
		} else {
			failures++;
		}
	}
	/* READ back another part */
	fill(rbuf + 8192, 6000, 6);
	memset(lbuf, 0, 8192);
	sqe_init(&q, UET_CHAN_OP_READ, 11, lbuf, 6000);
	q.rkey = key;
	q.roffset = (uint64_t)(uintptr_t)(rbuf + 8192);
	post_sq(&A, &q);
	expect_tx_ok(11);
	CHECK(memcmp(lbuf, rbuf + 8192, 6000) == 0);
	/* atomics on a u64 */
	memset(rbuf, 0, 64);
	v = 5;
	sqe_init(&q, UET_CHAN_OP_ATOMIC, 12, &v, 8);
	q.atomic_op = UET_AMO_SUM;
	q.atomic_dt = UET_AMO_DT_UINT64;
	q.rkey = key;
	q.roffset = (uint64_t)(uintptr_t)rbuf;
	post_sq(&A, &q);
	expect_tx_ok(12);
	memcpy(&res, rbuf, 8);
	CHECK(res == 5);
	v = 7;
	res = 0;
	sqe_init(&q, UET_CHAN_OP_FETCH_ATOMIC, 13, &v, 8);
	q.atomic_op = UET_AMO_SUM;
	q.atomic_dt = UET_AMO_DT_UINT64;
	q.rkey = key;
	q.roffset = (uint64_t)(uintptr_t)rbuf;
	q.result = (uint64_t)(uintptr_t)&res;
	post_sq(&A, &q);
	expect_tx_ok(13);
	CHECK(res == 5);
	memcpy(&v, rbuf, 8);
	CHECK(v == 12);
	cmp = 12;
	v = 99;
	res = 0;
	sqe_init(&q, UET_CHAN_OP_CSWAP, 14, &v, 8);
	q.atomic_op = UET_AMO_CSWAP;
	q.atomic_dt = UET_AMO_DT_UINT64;
	q.rkey = key;
	q.roffset = (uint64_t)(uintptr_t)rbuf;
	q.compare = (uint64_t)(uintptr_t)&cmp;
	q.result = (uint64_t)(uintptr_t)&res;
	post_sq(&A, &q);
	expect_tx_ok(14);
	CHECK(res == 12);
	memcpy(&v, rbuf, 8);
	CHECK(v == 99);
}

/* A submission refused by the glue itself: -EINVAL, no UET code. */
static void
expect_tx_einval(uint64_t ctx)
{
	struct uet_chan_cqe e;

	if (!cq_wait(&A, &e)) {
		failures++;
		return;
	}
	CHECK(e.context == ctx && e.status == -EINVAL);
	CHECK(e.prov_errno == 0); /* no UET return code: a local error */
}

static uint64_t
peer_bad(struct side *s)
{
	struct uet_ses_ulp_stats st;

	CHECK(uet_ses_ulp_stats_get(s->e, 0, &st, NULL) == 0);
	return st.peer_bad;
}

/*
 * The peer table (A's holds at most A_PEERS): handles that name no peer
 * (0, out of range, a slot never used, a removed peer, a removed peer's
 * slot reused under a new generation) complete with -EINVAL and count in
 * peer_bad, on the SQ and as a receive's source filter; bad values and a
 * full table are refused; nothing reaches the wire for them.
 */
static void
no_progress(void *arg)
{
	(void)arg;
	usleep(1000);
}

/*
 * uet_ses_ulp_ctl__timeout_cancels: a request the lcore has not started
 * when its caller gives up (5 s: the engine is INLINE and the caller's
 * progress function does not poll it) is dropped by the lcore, never
 * applied: -ETIMEDOUT, ctl_cancelled + 1, no peer added.
 */
static void
test_ctl_cancel(void)
{
	struct uet_ses_ulp_ctl r = { .op = UET_SES_ULP_PEER_ADD };
	struct uet_ses_ulp_stats st0, st1;

	peer_make(&r.peer, ip_b, PID_B, B.initiator);
	CHECK(uet_ses_ulp_stats_get(A.e, 0, &st0, NULL) == 0);
	CHECK(uet_ses_ulp_ctl(A.e, 0, &r, no_progress, NULL) == -ETIMEDOUT);
	pump();
	CHECK(uet_ses_ulp_stats_get(A.e, 0, &st1, NULL) == 0);
	CHECK(st1.ctl_cancelled == st0.ctl_cancelled + 1);
	CHECK(st1.ctl == st0.ctl);
	CHECK(st1.peers == st0.peers);
	printf("# ctl: a request timed out before it started: cancelled, "
	       "not applied\n");
}

static void
test_peers(void)
{
	uint64_t h[A_PEERS], bad0 = peer_bad(&A), bad0_b = peer_bad(&B);
	uint64_t h2, stale, wire0 = uet_ulp_ctx_stats(
				uet_ulp_ctx_get(A.e, 0))->submit_ok;
	struct uet_ses_ulp_ctl r = { .op = UET_SES_ULP_PEER_ADD };
	struct uet_ses_ulp_stats st;
	struct uet_chan_sqe q;
	struct uet_chan_cqe e;
	struct uet_chan_rqe rq;
	unsigned int n = 0;

	/* values out of their 12-bit fields */
	peer_make(&r.peer, ip_b, 0x1000, 1);
	CHECK(ctl(&A, &r) == -EINVAL);
	peer_make(&r.peer, ip_b, PID_B, 1);
	r.peer.start_ri = 0x1000;
	CHECK(ctl(&A, &r) == -EINVAL);
	/* handles that never named a peer */
	{
		const uint64_t bad[] = {
			0,                               /* never a handle */
			A_PEERS + 1,                     /* past the table */
			UINT64_C(0xFFFFFFFF),            /* slot 2^32 - 2 */
			((uint64_t)7 << 32) | 1,         /* B's slot, wrong gen */
			A_PEERS,                         /* last slot, unused */
		};

		for (unsigned int i = 0; i < RTE_DIM(bad); i++) {
			sqe_init(&q, UET_CHAN_OP_SEND, 300 + i, sbuf, 8);
			q.dest = bad[i];
			post_sq(&A, &q);
			expect_tx_einval(300 + i);
		}
		CHECK(peer_bad(&A) == bad0 + RTE_DIM(bad));
	}
	/* a removed peer: refused, and PEER_DEL again is -ENOENT */
	h2 = peer_add(&A, ip_b, PID_B, B.initiator);
	fill(sbuf, 64, 40);
	post_recv(&B, UET_CHAN_RQ_RECV, 310, rbuf, 64, 0);
	sqe_init(&q, UET_CHAN_OP_SEND, 311, sbuf, 64);
	q.dest = h2;
	post_sq(&A, &q);
	expect_tx_ok(311);
	if (cq_wait(&B, &e))
		CHECK(e.context == 310 && e.status == 0 && e.len == 64);
	else
		failures++;
	CHECK(peer_del(&A, h2) == 0);
	CHECK(peer_del(&A, h2) == -ENOENT);
	q.context = 312;
	post_sq(&A, &q);
	expect_tx_einval(312);
	/* its slot again, a new generation: the old handle stays refused */
	stale = h2;
	h2 = peer_add(&A, ip_b, PID_B, B.initiator);
	CHECK(h2 != stale && (uint32_t)h2 == (uint32_t)stale);
	q.context = 313;
	post_sq(&A, &q);
	expect_tx_einval(313);
	CHECK(peer_del(&A, h2) == 0);
	CHECK(peer_bad(&A) == bad0 + 7);
	/* a source filter naming no peer of B */
	memset(&rq, 0, sizeof(rq));
	rq.op = UET_CHAN_RQ_RECV;
	rq.flags = UET_CHAN_F_SRC_FILTER;
	rq.context = 314;
	rq.addr = (uint64_t)(uintptr_t)rbuf;
	rq.len = 64;
	rq.src = stale;
	CHECK(uet_chan_rq_post(B.ch, &rq) == 0);
	if (cq_wait(&B, &e))
		CHECK(e.context == 314 && e.status == -EINVAL);
	else
		failures++;
	CHECK(peer_bad(&B) == bad0_b + 1);
	/* nothing of the refused SQEs reached the SES: one SEND only */
	CHECK(uet_ulp_ctx_stats(uet_ulp_ctx_get(A.e, 0))->submit_ok ==
	      wire0 + 1);
	/* a full table: -ENOSPC, then every slot back */
	CHECK(uet_ses_ulp_stats_get(A.e, 0, &st, NULL) == 0);
	CHECK(st.peers == 1); /* B */
	peer_make(&r.peer, ip_b, PID_B, B.initiator);
	while (n < A_PEERS && ctl(&A, &r) == 0)
		h[n++] = r.handle;
	CHECK(n == A_PEERS - 1);
	CHECK(r.rc == -ENOSPC);
	CHECK(uet_ses_ulp_stats_get(A.e, 0, &st, NULL) == 0);
	CHECK(st.peers == A_PEERS);
	while (n > 0)
		CHECK(peer_del(&A, h[--n]) == 0);
	CHECK(uet_ses_ulp_stats_get(A.e, 0, &st, NULL) == 0);
	CHECK(st.peers == 1);
}

static void
test_errors(uint64_t key)
{
	struct uet_chan_sqe q;

	/* a key nobody registered */
	sqe_init(&q, UET_CHAN_OP_WRITE, 20, sbuf, 64);
	q.rkey = key ^ 0x10000000ull;
	q.roffset = (uint64_t)(uintptr_t)rbuf;
	post_sq(&A, &q);
	expect_tx_err(20, UET_RC_BAD_MKEY);
	/* outside the region */
	sqe_init(&q, UET_CHAN_OP_WRITE, 21, sbuf, 64);
	q.rkey = key;
	q.roffset = (uint64_t)(uintptr_t)(rbuf + BIG);
	post_sq(&A, &q);
	expect_tx_err(21, UET_RC_BAD_ADDR);
	/* a job B does not authorise */
	sqe_init(&q, UET_CHAN_OP_SEND, 22, sbuf, 64);
	q.job = JOB + 1;
	post_sq(&A, &q);
	expect_tx_err(22, UET_RC_BAD_JOB_ID);
	/* malformed descriptors: completed in error, counted, no crash */
	sqe_init(&q, 99, 24, sbuf, 8);
	post_sq(&A, &q);
	expect_tx_err(24, UET_RC_UNSUPPORTED_OP);
	{
		struct uet_chan_rqe r;
		struct uet_chan_cqe e;
		struct uet_ses_ulp_stats st;

		memset(&r, 0, sizeof(r));
		r.op = 77;
		r.context = 140;
		CHECK(uet_chan_rq_post(B.ch, &r) == 0);
		if (cq_wait(&B, &e))
			CHECK(e.context == 140 && e.status == -EINVAL);
		else
			failures++;
		CHECK(uet_ses_ulp_stats_get(B.e, 0, &st, NULL) == 0);
		CHECK(st.rqe_rejected >= 1);
	}
	/* an IOV of several entries is refused at once */
	{
		struct uet_chan_iov iov[2] = {
			{ (uint64_t)(uintptr_t)sbuf, 8 },
			{ (uint64_t)(uintptr_t)sbuf + 8, 8 },
		};

		sqe_init(&q, UET_CHAN_OP_SEND, 23, iov, 2);
		q.flags |= UET_CHAN_F_IOV;
		post_sq(&A, &q);
		expect_tx_err(23, UET_RC_UNSUPPORTED_OP);
	}
}

/* Many sends through a small SES pool and a small CQ: all complete, all
 * received in order, nothing lost. */
static void
test_backpressure(unsigned int n)
{
	struct uet_chan_sqe q;
	struct uet_chan_cqe e;
	unsigned int posted = 0, done_tx = 0, done_rx = 0, loops = 0;
	static uint64_t seen[512], tx_seen[512];

	memset(seen, 0, sizeof(seen));
	memset(tx_seen, 0, sizeof(tx_seen));
	for (unsigned int i = 0; i < n; i++)
		post_recv(&B, UET_CHAN_RQ_RECV, 1000 + i, lbuf + 64 * i, 64,
			  0);
	while ((done_tx < n || done_rx < n) && loops++ < POLL_MAX) {
		while (posted < n) {
			uint32_t v = posted;

			memcpy(sbuf + 64 * posted, &v, 4);
			sqe_init(&q, UET_CHAN_OP_SEND, 2000 + posted,
				 sbuf + 64 * posted, 64);
			if (uet_chan_sq_post(A.ch, &q) != 0)
				break;
			posted++;
		}
		pump();
		/* drain slowly: the CQ ring is smaller than the burst */
		if (uet_chan_cq_poll(A.ch, &e, 1) == 1) {
			/* RUD: send completions in any order (comp_order
			 * NONE), each exactly once */
			CHECK(e.status == 0);
			CHECK(e.context >= 2000 && e.context < 2000 + n);
			if (e.context >= 2000 && e.context < 2000 + 512)
				tx_seen[e.context - 2000]++;
			done_tx++;
		}
		if (uet_chan_cq_poll(B.ch, &e, 1) == 1) {
			uint32_t v;

			CHECK(e.status == 0 && e.len == 64);
			/* receives are satisfied in posting order */
			CHECK(e.context == 1000 + done_rx);
			memcpy(&v, lbuf + 64 * done_rx, 4);
			if (done_rx < 512 && v < 512)
				seen[v]++;
			done_rx++;
		}
	}
	CHECK(done_tx == n);
	CHECK(done_rx == n);
	/* every message landed exactly once, none lost */
	for (unsigned int i = 0; i < n && i < 512; i++) {
		CHECK(seen[i] == 1);
		CHECK(tx_seen[i] == 1);
	}
}

/* B first: B serves the control request before A acknowledges the
 * READ response B has just sent. */
static void
pump_ba(void *arg)
{
	(void)arg;
	(void)uet_engine_poll(B.e, 4);
	(void)uet_engine_poll(A.e, 4);
}

static uint32_t
ret_used(struct side *s)
{
	const struct uet_ses *ses = NULL;
	struct uet_ses_pool_info pi;

	if (uet_ses_ulp_stats_get(s->e, 0, NULL, &ses) != 0 || ses == NULL)
		return 0;
	uet_ses_pool_info_get(ses, &pi);
	return pi.ret_used;
}

/* Deregistering a region while a READ response from it is in flight:
 * the answer waits until the responses queued are acknowledged. Another
 * region's deregistration meanwhile is answered at once (before, every
 * deregistration of the context waited for every READ: the security
 * review held the service's control thread 27 s with READs of its own
 * region). */
static void
test_dereg_during_read(void)
{
	struct uet_ses_ulp_ctl r;
	struct uet_ses_ulp_stats st;
	struct uet_chan_sqe q;
	struct uet_chan_cqe e;
	uint8_t *region = rbuf + 16384;
	unsigned int i;

	memset(&r, 0, sizeof(r));
	r.op = UET_SES_ULP_MR_REG;
	r.job = JOB;
	r.base = (uintptr_t)region;
	r.len = 40000;
	r.access = UET_SES_MR_REMOTE_READ;
	CHECK(ctl(&B, &r) == 0);
	fill(region, 40000, 40);
	memset(lbuf, 0, 40000);
	sqe_init(&q, UET_CHAN_OP_READ, 50, lbuf, 40000);
	q.rkey = r.key;
	q.roffset = (uint64_t)(uintptr_t)region;
	post_sq(&A, &q);
	for (i = 0; i < POLL_MAX && ret_used(&B) == 0; i++)
		pump();
	CHECK(ret_used(&B) > 0);
	{
		struct uet_ses_ulp_ctl o = { .op = UET_SES_ULP_MR_REG,
					     .job = JOB,
					     .base = (uintptr_t)rbuf,
					     .len = 8192,
					     .access = UET_SES_MR_REMOTE_READ };
		uint64_t w0;

		CHECK(uet_ses_ulp_stats_get(B.e, 0, &st, NULL) == 0);
		w0 = st.dereg_waits;
		CHECK(uet_ses_ulp_ctl(B.e, 0, &o, NULL, NULL) == 0 &&
		      o.rc == 0);
		o.op = UET_SES_ULP_MR_DEREG;
		CHECK(uet_ses_ulp_ctl(B.e, 0, &o, NULL, NULL) == 0 &&
		      o.rc == 0);
		CHECK(uet_ses_ulp_stats_get(B.e, 0, &st, NULL) == 0);
		CHECK(st.dereg_waits == w0);
		/* the READ of the other region still in flight */
		CHECK(ret_used(&B) > 0);
	}
	r.op = UET_SES_ULP_MR_DEREG;
	CHECK(uet_ses_ulp_ctl(B.e, 0, &r, pump_ba, NULL) == 0);
	CHECK(r.rc == 0);
	CHECK(ret_used(&B) == 0);
	CHECK(uet_ses_ulp_stats_get(B.e, 0, &st, NULL) == 0);
	CHECK(st.dereg_waits > 0);
	/* A READ longer than one packet of data is a multi-packet request:
	 * packets still on their way when the key goes (lost, resent) fail
	 * with BAD_MKEY, like WRITE packets; the READ completes either way. */
	if (cq_wait(&A, &e)) {
		CHECK(e.context == 50);
		CHECK(e.status == 0 || e.prov_errno == UET_RC_BAD_MKEY);
		if (e.status == 0)
			CHECK(memcmp(lbuf, region, 40000) == 0);
		printf("# READ during deregistration: status %d prov %u\n",
		       e.status, e.prov_errno);
	} else {
		failures++;
	}
}

static void
test_dereg(uint64_t key)
{
	struct uet_ses_ulp_ctl r = { .op = UET_SES_ULP_MR_DEREG, .key = key };
	struct uet_chan_sqe q;

	CHECK(ctl(&B, &r) == 0);
	CHECK(ctl(&B, &r) == -ENOENT);
	sqe_init(&q, UET_CHAN_OP_WRITE, 30, sbuf, 64);
	q.rkey = key;
	q.roffset = (uint64_t)(uintptr_t)rbuf;
	post_sq(&A, &q);
	expect_tx_err(30, UET_RC_BAD_MKEY);
}

static struct uet_engine *
engine_make(const char *tag, const struct uet_config *c,
	    struct uet_proto_params *pp)
{
	struct uet_engine_params p = {
		.cfg = c, .hook = &uet_proto_hook_ops, .hook_arg = pp,
	};
	char name[16];
	struct uet_engine *e;

	snprintf(name, sizeof(name), "sc%s%u", tag, run_no);
	p.name = name;
	e = uet_engine_create(&p);
	if (e == NULL)
		fprintf(stderr, "engine %s: %s\n", name,
			rte_strerror(rte_errno));
	return e;
}

static int
side_make(struct side *s, const char *tag, const struct uet_config *c,
	  struct uet_proto_params *pp, const uint8_t *ip, unsigned int cq)
{
	struct uet_ses_ulp_ctl r = { .op = UET_SES_ULP_JOB_ADD, .job = JOB };
	char name[20];
	uint16_t pid;

	s->e = engine_make(tag, c, pp);
	if (s->e == NULL)
		return -1;
	snprintf(name, sizeof(name), "sc%s%u", tag, run_no);
	s->ch = uet_chan_create(name, 64, 1024, cq, SOCKET_ID_ANY, 0);
	if (s->ch == NULL || uet_engine_chan_attach(s->e, 0, s->ch) != 0)
		return -1;
	if (uet_ses_ulp_identity(s->e, 0, &pid, &s->initiator) != 0)
		return -1;
	peer_make(&s->self, ip, pid, s->initiator);
	return ctl(s, &r) == 0 ? 0 : -1;
}

/* /uet/pds over the socket: A's and B's PDS completed and delivered
 * what this run sent; under injected loss they retransmitted. */
static void
test_pds_telemetry(bool lossy)
{
	static char buf[65536];
	long long retx = 0;
	int fd = itest_tel_open(buf, sizeof(buf));

	if (fd < 0)
		return;
	for (unsigned int i = 0; i < 2; i++) {
		static const char *const kinds[] = {
			"ctx0_retx_sack", "ctx0_retx_nack", "ctx0_retx_rto",
			"ctx0_retx_probe",
		};
		char cmd[32];

		snprintf(cmd, sizeof(cmd), "/uet/pds,%u", i);
		CHECK(itest_tel_query(fd, cmd, buf, sizeof(buf)) == 0);
		printf("# %s: done_ok %lld delivered %lld\n", cmd,
		       itest_tel_value(buf, "ctx0_done_ok"),
		       itest_tel_value(buf, "ctx0_delivered"));
		CHECK(itest_tel_value(buf, "ctx0_done_ok") > 0);
		CHECK(itest_tel_value(buf, "ctx0_delivered") > 0);
		CHECK(itest_tel_value(buf, "ctx0_pdc_used_init") >= 0);
		for (unsigned int k = 0; k < RTE_DIM(kinds); k++)
			retx += itest_tel_value(buf, kinds[k]);
	}
	if (lossy)
		CHECK(retx > 0);
	close(fd);
}

/* ses_submit__through_engine_path: every packet the SES handed over
 * (fragments and return-direction read data) went through the engine's
 * submission path (uet_ulp_submit: MTU check, EV policy, counters), not
 * straight to the PDS. */
static void
test_submit_path(struct side *s)
{
	struct uet_ulp_ctx *u = uet_ulp_ctx_get(s->e, 0);
	const struct uet_ses *ses = NULL;
	const struct uet_ses_stats *ss;
	struct uet_ses_ulp_stats st;

	CHECK(u != NULL);
	CHECK(uet_ses_ulp_stats_get(s->e, 0, &st, &ses) == 0);
	if (u == NULL || ses == NULL)
		return;
	ss = uet_ses_stats_get(ses);
	printf("# side %s: engine submit_ok %lu, SES fragments %lu + "
	       "read data %lu\n", s == &A ? "A" : "B",
	       (unsigned long)uet_ulp_ctx_stats(u)->submit_ok,
	       (unsigned long)ss->frag_tx, (unsigned long)ss->ret_tx);
	CHECK(ss->frag_tx > 0);
	CHECK(uet_ulp_ctx_stats(u)->submit_ok == ss->frag_tx + ss->ret_tx);
}

static void
run(bool lossy, bool zc)
{
	struct uet_config ca, cb;
	struct uet_ses_ulp_params pa = { .pid_base = PID_A, .max_msgs = 16,
					 .max_posted = 600,
					 .max_peers = A_PEERS };
	struct uet_ses_ulp_params pb = { .pid_base = PID_B, .max_msgs = 64,
					 .max_posted = 600 };
	struct uet_proto_params ppa = { .ulp = &uet_ses_ulp_ops,
					.ulp_arg = &pa };
	struct uet_proto_params ppb = { .ulp = &uet_ses_ulp_ops,
					.ulp_arg = &pb };
	struct uet_ses_ulp_ctl r;
	struct uet_ses_ulp_stats st;
	uint64_t key = 0;

	run_no++;
	printf("# run %u: %s%s\n", run_no, lossy ? "lossy" : "clean",
	       zc ? ", tx_zero_copy" : "");
	itest_cfg_ring(&ca, "net_ring_sctA", ip_a, mac_a, ip_b, mac_b);
	itest_cfg_ring(&cb, "net_ring_sctB", ip_b, mac_b, ip_a, mac_a);
	/* sends answered BAD_PID go again 30 ms (test_ep_add) */
	ca.engine.pid_wait_ns = 30000000;
	cb.engine.pid_wait_ns = 30000000;
	if (zc) {
		ca.port[0].tx_zero_copy = UET_CONFIG_TX_ZC_ON;
		cb.port[0].tx_zero_copy = UET_CONFIG_TX_ZC_ON;
	}
	if (lossy) {
		faults(&ca, 11);
		faults(&cb, 17);
	}
	memset(&A, 0, sizeof(A));
	memset(&B, 0, sizeof(B));
	/* a peer table beyond 2^20 slots is refused at creation */
	{
		struct uet_ses_ulp_params px = pa;
		struct uet_proto_params ppx = { .ulp = &uet_ses_ulp_ops,
						.ulp_arg = &px };
		struct uet_engine *x;

		px.max_peers = (1u << 20) + 1;
		x = engine_make("X", &ca, &ppx);
		CHECK(x == NULL && rte_errno == EINVAL);
		uet_engine_free(x);
	}
	if (side_make(&A, "A", &ca, &ppa, ip_a, 16) < 0 ||
	    side_make(&B, "B", &cb, &ppb, ip_b, 16) < 0) {
		fprintf(stderr, "setup failed\n");
		failures++;
		goto out;
	}
	/* each side's descriptors name the other by a peer handle */
	B.peer = peer_add(&A, ip_b, B.self.pid_on_fep, B.initiator);
	A.peer = peer_add(&B, ip_a, A.self.pid_on_fep, A.initiator);
	/* control path: B's region; bad requests refused */
	memset(&r, 0, sizeof(r));
	r.op = UET_SES_ULP_MR_REG;
	r.job = JOB;
	r.base = (uintptr_t)rbuf;
	r.len = BIG;
	r.access = UET_SES_MR_REMOTE_READ | UET_SES_MR_REMOTE_WRITE |
		   UET_SES_MR_REMOTE_ATOMIC;
	CHECK(ctl(&B, &r) == 0);
	key = r.key;
	CHECK(key != 0);
	/* a region registered disabled refuses access until enabled */
	{
		struct uet_ses_ulp_ctl d = r;
		struct uet_chan_sqe q;

		d.base = (uintptr_t)(rbuf + 60000);
		d.len = 1024;
		d.disabled = true;
		CHECK(ctl(&B, &d) == 0);
		sqe_init(&q, UET_CHAN_OP_WRITE, 60, sbuf, 64);
		q.rkey = d.key;
		q.roffset = (uint64_t)(uintptr_t)(rbuf + 60000);
		post_sq(&A, &q);
		expect_tx_err(60, UET_RC_DISABLED_GEN);
		d.op = UET_SES_ULP_MR_ENABLE;
		d.disabled = false;
		CHECK(ctl(&B, &d) == 0);
		q.context = 61;
		post_sq(&A, &q);
		expect_tx_ok(61);
		d.op = UET_SES_ULP_MR_DEREG;
		CHECK(ctl(&B, &d) == 0);
	}
	r.job = JOB + 5;
	CHECK(ctl(&B, &r) == -ENOENT);
	r.op = 77;
	CHECK(ctl(&B, &r) == -EINVAL);

	test_send();
	test_tagged();
	test_trunc();
	test_multi_and_directed();
	test_rod();
	test_rdv_peek();
	test_rma(key);
	if (zc)
		test_zero_copy(key);
	test_ep_add(key);
	test_cq_hog();
	test_window();
	test_errors(key);
	test_peers();
	if (!lossy) {
		test_ctl_cancel();
		test_ctl_order(key);
	}
	test_backpressure(400);
	test_dereg_during_read();
	test_dereg(key);
	CHECK(cq_quiet(&A));
	CHECK(cq_quiet(&B));
	CHECK(uet_ses_ulp_stats_get(A.e, 0, &st, NULL) == 0);
	printf("# A: sqe %lu held %lu rejected %lu cq_wait %lu\n",
	       (unsigned long)st.sqe, (unsigned long)st.sqe_held,
	       (unsigned long)st.sqe_rejected, (unsigned long)st.cq_wait);
	/* the small SES pool and CQ ring did push back */
	CHECK(st.sqe_held > 0);
	CHECK(st.cq_wait > 0);
	CHECK(st.orphan_cqe == 0);
	test_submit_path(&A);
	test_submit_path(&B);
	{
		struct rte_tel_data *d = rte_tel_data_alloc();

		CHECK(d != NULL);
		if (d != NULL) {
			/* index 0 is A (freed engines' slots are reused) */
			CHECK(uet_engine_telemetry_call("/uet/ses", "0", d) == 0);
			CHECK(uet_engine_telemetry_call("/uet/pds", "1", d) == 0);
			rte_tel_data_free(d);
		}
	}
	test_pds_telemetry(lossy);
	if (lossy) {
		static struct uet_engine_stats es;
		uint64_t drops;

		CHECK(uet_engine_stats_get(A.e, &es) == 0);
		drops = es.total.fault[UET_CONFIG_FAULT_TX]
				.applied[UET_CONFIG_FAULT_DROP];
		CHECK(uet_engine_stats_get(B.e, &es) == 0);
		drops += es.total.fault[UET_CONFIG_FAULT_TX]
				 .applied[UET_CONFIG_FAULT_DROP];
		printf("# frames dropped by fault injection: %lu\n",
		       (unsigned long)drops);
		CHECK(drops > 0);
	}
out:
	if (A.e != NULL && A.ch != NULL)
		(void)uet_engine_chan_detach(A.e, A.ch);
	if (B.e != NULL && B.ch != NULL)
		(void)uet_engine_chan_detach(B.e, B.ch);
	uet_engine_free(A.e);
	uet_engine_free(B.e);
	uet_chan_free(A.ch);
	uet_chan_free(B.ch);
}

int
main(void)
{
	int rc;

	rc = uet_engine_eal_init("test_ses_chan",
				 "-l 0 --no-huge -m 512 --no-pci "
				 "--log-level=4", NULL);
	if (rc < 0) {
		fprintf(stderr, "EAL: %s\n", strerror(-rc));
		return 1;
	}
	if (itest_ring_pair("sctA", "sctB") < 0) {
		fprintf(stderr, "ring ports failed\n");
		return 1;
	}
	sbuf = calloc(1, BIG);
	rbuf = calloc(1, BIG);
	lbuf = calloc(1, BIG);
	if (sbuf == NULL || rbuf == NULL || lbuf == NULL)
		return 1;
	run(false, false);
	run(true, false);
	run(false, true);
	free(sbuf);
	free(rbuf);
	free(lbuf);
	(void)rte_eal_cleanup();
	printf("%s: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
	return failures ? 1 : 0;
}
