/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * latency: ping-pong, one message in flight; B answers every message with
 * a message of the same size; round trip measured by A from submission to
 * delivery of the answer (TSC), both engines on one thread.
 */

#include <errno.h>
#include <stdlib.h>

#include <rte_common.h>
#include <rte_cycles.h>

#include "perf.h"

/* ------------------------------------------------------------------ */
/* --ulp raw: the sender pings, the receiver echoes                    */
/* ------------------------------------------------------------------ */

#define LATENCY_PONGQ_LEN 64
/* samples held at first; doubled as round trips complete */
#define LATENCY_CAP0 4096u

/*
 * Room for sample @p n in @p lat (@p cap entries), growing it up to @p max
 * (the run's count): a --duration run may count up to PERF_MAX_COUNT
 * (10^8, 400 MB of samples if allocated up front) and completes what the
 * time allows. false: no room (at max, or no memory), the sample is not
 * recorded.
 */
static bool
lat_room(uint32_t **lat, uint64_t *cap, uint64_t n, uint64_t max)
{
	uint64_t c = RTE_MAX(*cap * 2, (uint64_t)LATENCY_CAP0);
	uint32_t *a;

	if (n < *cap)
		return true;
	if (n >= max)
		return false;
	c = RTE_MIN(c, max);
	a = realloc(*lat, c * sizeof(*a));
	if (a == NULL)
		return false;
	*lat = a;
	*cap = c;
	return true;
}

/* The sender: one message in flight, the next after its answer. */
struct latency_ping {
	uint64_t tsc;            /* submit time of the ping */
	uint64_t cap;            /* entries of the sample array */
	bool wait;               /* the ping went whole: its pong awaited */
	bool failed;             /* a packet of the ping being submitted
				  * failed: no pong will come */
};

static int
ping_init(void *priv, struct test_ulp *r)
{
	struct latency_ping *g = priv;
	struct test_ulp_result *res = test_ulp_res(r);

	g->cap = 0;
	if (test_ulp_params(r)->count == 0)
		return 0;
	return lat_room(&res->lat_ns, &g->cap, 0,
			test_ulp_params(r)->count) ? 0 : -ENOMEM;
}

static void
ping_fini(void *priv, struct test_ulp *r)
{
	(void)priv;
	free(test_ulp_res(r)->lat_ns);
	test_ulp_res(r)->lat_ns = NULL;
}

static bool
ping_send(void *priv, struct test_ulp *r, struct uet_ulp_ctx *ctx,
	  uint64_t seq, unsigned int *work)
{
	struct latency_ping *g = priv;
	uint32_t k;

	if (g->wait)
		return false;
	(void)test_ulp_next(r, &k);
	if (k == 0)
		g->tsc = rte_rdtsc();
	if (!test_ulp_submit(r, ctx, seq, work))
		return false;
	g->wait = !g->failed; /* no pong awaited for a failed ping */
	g->failed = false;
	return true;
}

/*
 * Packet of message @p seq failed (the PDS gave up after its retries):
 * when it is the current ping, its round trip failed and no pong is
 * awaited, else the run would stall until --ctl-timeout, reported as "no
 * progress". A pong that still comes (the peer was only descheduled and
 * got a copy) is stale then and ignored (ping_received).
 */
static void
ping_failed(void *priv, struct test_ulp *r, uint64_t seq)
{
	struct latency_ping *g = priv;
	uint32_t k;
	uint64_t cur = test_ulp_next(r, &k);

	if (g->wait && seq + 1 == cur) {
		g->wait = false;
		test_ulp_res(r)->pings_failed++;
	} else if (!g->wait && k > 0 && seq == cur && !g->failed) {
		g->failed = true;
		test_ulp_res(r)->pings_failed++;
	}
}

/* The pong of the current ping: one round trip. */
static void
ping_received(void *priv, struct test_ulp *r, uint64_t seq)
{
	struct latency_ping *g = priv;
	struct test_ulp_result *res = test_ulp_res(r);
	uint64_t t = rte_rdtsc() - g->tsc;
	uint32_t k;

	if (!g->wait || seq + 1 != test_ulp_next(r, &k))
		return;
	g->wait = false;
	if (lat_room(&res->lat_ns, &g->cap, res->lat_n,
		     test_ulp_params(r)->count))
		res->lat_ns[res->lat_n++] =
			(uint32_t)RTE_MIN(t * 1000000000ull / rte_get_tsc_hz(),
					  (uint64_t)UINT32_MAX);
	res->pongs++;
}

static bool
ping_idle(const void *priv)
{
	return !((const struct latency_ping *)priv)->wait;
}

/* Progress is round trips. */
static uint64_t
ping_msgs_done(const void *priv, const struct test_ulp *r)
{
	(void)priv;
	return test_ulp_live(r)->pongs;
}

static const struct test_ulp_engine latency_ping_engine = {
	.priv_size = sizeof(struct latency_ping),
	.init = ping_init,
	.fini = ping_fini,
	.send = ping_send,
	.failed = ping_failed,
	.received = ping_received,
	.idle = ping_idle,
	.msgs_done = ping_msgs_done,
};

/* The receiver: answers every message (pongs owed, in arrival order). */
struct latency_echo {
	uint64_t q[LATENCY_PONGQ_LEN];
	uint32_t head, tail;
	uint64_t budget;         /* messages still to answer */
};

static int
echo_init(void *priv, struct test_ulp *r)
{
	((struct latency_echo *)priv)->budget = test_ulp_params(r)->expect;
	return 0;
}

static bool
echo_owed(void *priv, struct test_ulp *r, struct uet_ulp_ctx *ctx,
	  unsigned int *work)
{
	struct latency_echo *x = priv;

	while (x->head != x->tail) {
		if (!test_ulp_submit(r, ctx, x->q[x->head % LATENCY_PONGQ_LEN],
				     work))
			return false;
		x->head++;
	}
	return true;
}

static void
echo_received(void *priv, struct test_ulp *r, uint64_t seq)
{
	struct latency_echo *x = priv;

	(void)r;
	if (x->budget > 0 && x->tail - x->head < LATENCY_PONGQ_LEN) {
		x->q[x->tail++ % LATENCY_PONGQ_LEN] = seq;
		x->budget--;
	}
}

static bool
echo_idle(const void *priv)
{
	const struct latency_echo *x = priv;

	return x->head == x->tail;
}

static const struct test_ulp_engine latency_echo_engine = {
	.priv_size = sizeof(struct latency_echo),
	.init = echo_init,
	.owed = echo_owed,
	.received = echo_received,
	.idle = echo_idle,
};

/* The sender times each round trip; the receiver echoes. */
static void
latency_raw_traffic(struct test_ulp_params *tx, struct test_ulp_params *rx)
{
	tx->engine = &latency_ping_engine;
	tx->expect = tx->count;    /* the answers, checked like any message */
	tx->expect_size = tx->size;
	rx->engine = &latency_echo_engine;
}

/* ------------------------------------------------------------------ */
/* --ulp ses: A pings, B answers every send from its receive buffer    */
/* ------------------------------------------------------------------ */

/* A: one send in flight, the next after its answer. */
struct latency_ses_ping {
	uint64_t seq;            /* the ping */
	uint64_t tsc;            /* its submission */
	bool wait;               /* its answer awaited */
	uint32_t *lat;           /* round trips, ns */
	uint64_t cap;            /* entries of lat */
	uint64_t n;              /* samples in lat */
	uint64_t max;            /* the run's count */
	double ns_per_tsc;
};

static int
ses_ping_init(void *priv, const struct ses_driver_params *p)
{
	struct latency_ses_ping *g = priv;

	g->ns_per_tsc = 1e9 / (double)rte_get_tsc_hz();
	g->max = p->count;
	if (g->max == 0)
		return 0;
	return lat_room(&g->lat, &g->cap, 0, g->max) ? 0 : -ENOMEM;
}

static void
ses_ping_fini(void *priv)
{
	free(((struct latency_ses_ping *)priv)->lat);
}

static bool
ses_ping_may_send(const void *priv)
{
	return !((const struct latency_ses_ping *)priv)->wait;
}

static void
ses_ping_sent(void *priv, uint64_t seq)
{
	struct latency_ses_ping *g = priv;

	g->wait = true;
	g->seq = seq;
	g->tsc = rte_rdtsc();
}

static void
ses_ping_failed(void *priv, uint64_t seq)
{
	struct latency_ses_ping *g = priv;

	if (g->seq == seq)
		g->wait = false; /* no answer will come */
}

/* B answers every send. */
static bool
ses_ping_answer(const void *priv, uint64_t seq)
{
	(void)priv;
	(void)seq;
	return true;
}

static bool
ses_ping_awaits(const void *priv, uint64_t *seq)
{
	const struct latency_ses_ping *g = priv;

	*seq = g->seq;
	return g->wait;
}

static void
ses_ping_answered(void *priv, struct test_ulp_result *tx, uint64_t now)
{
	struct latency_ses_ping *g = priv;

	if (lat_room(&g->lat, &g->cap, g->n, g->max))
		g->lat[g->n++] =
			(uint32_t)RTE_MIN((double)(now - g->tsc) *
					  g->ns_per_tsc, (double)UINT32_MAX);
	tx->pongs++;
	g->wait = false;
}

/* The samples; a ping without its answer is lost. */
static void
ses_ping_result(const void *priv, struct test_ulp_result *tx)
{
	tx->lat_ns = ((const struct latency_ses_ping *)priv)->lat;
	tx->lat_n = ((const struct latency_ses_ping *)priv)->n;
	tx->rx_lost = tx->msgs_sent > tx->pongs ?
		      tx->msgs_sent - tx->pongs : 0;
}

static const struct ses_driver_engine latency_ses_engine = {
	.priv_size = sizeof(struct latency_ses_ping),
	.slots = 4,              /* A's send slots */
	.recvs = 8,              /* B's receives */
	.answers = 4,            /* A's receives for the answers */
	.init = ses_ping_init,
	.fini = ses_ping_fini,
	.may_send = ses_ping_may_send,
	.sent = ses_ping_sent,
	.failed = ses_ping_failed,
	.answer = ses_ping_answer,
	.awaits = ses_ping_awaits,
	.answered = ses_ping_answered,
	.idle = ses_ping_may_send, /* nothing awaited */
	.result = ses_ping_result,
};

/* Sends, one in flight, each answered by B. */
static void
latency_ses_traffic(const struct perf_opts *o, struct ses_driver_params *p)
{
	(void)o;
	p->op = PERF_OP_SEND;
	p->engine = &latency_ses_engine;
	p->window = 1;
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Percentiles of the round trips (r->tx.lat_ns, sorted in place). */
static void
latency_report(struct perf_report *r)
{
	uint32_t *v = r->tx.lat_ns;
	uint64_t n = RTE_MIN(r->tx.lat_n, r->count), sum = 0;

	r->lat_n = n;
	if (v == NULL || n == 0)
		return;
	qsort(v, n, sizeof(*v), cmp_u32);
	for (uint64_t i = 0; i < n; i++)
		sum += v[i];
	r->lat_min = v[0];
	r->lat_max = v[n - 1];
	r->lat_p50 = v[n * 50 / 100];
	r->lat_p99 = v[RTE_MIN(n - 1, n * 99 / 100)];
	r->lat_p999 = v[RTE_MIN(n - 1, n * 999 / 1000)];
	r->lat_avg = (double)sum / (double)n;
}

static void
latency_print(const struct perf_report *r, FILE *f)
{
	fprintf(f, "latency: %lu round trips of %u B over %s, loss %u ppm "
		"(%.3f s)\n", (unsigned long)r->lat_n, r->size, r->pds,
		r->loss_ppm, r->seconds);
	fprintf(f, "  RTT ns: min %.0f  p50 %.0f  p99 %.0f  p99.9 %.0f  "
		"max %.0f  avg %.0f\n", r->lat_min, r->lat_p50, r->lat_p99,
		r->lat_p999, r->lat_max, r->lat_avg);
	if (r->tx.pings_failed != 0 || r->tx.pkts_done_err != 0)
		fprintf(f, "  pings failed by the PDS %lu (send completions "
			"%lu ok / %lu failed: see [timers] rto_max_retries)\n",
			(unsigned long)r->tx.pings_failed,
			(unsigned long)r->tx.pkts_done_ok,
			(unsigned long)r->tx.pkts_done_err);
	perf_ses_print(r, f);
	perf_wire_print(r, f);
	perf_verified_print(r, f);
}

const struct perf_mode perf_mode_latency = {
	.name = "latency",
	.in_all = true,
	.def_size = 64,
	.def_count = 100000,
	.def_window = 64,
	.def_ses_window = 1,
	.def_loss_ppm = 0,
	.topology = &perf_topology_pair,
	.raw_traffic = latency_raw_traffic,
	.ses_traffic = latency_ses_traffic,
	.report = latency_report,  /* percentiles of the round trips */
	.print = latency_print,
};
