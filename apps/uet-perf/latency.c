/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * latency: ping-pong, one message in flight; B answers every message with
 * a message of the same size; round trip measured by A from submission to
 * delivery of the answer (TSC), both engines on one thread.
 */

#include <stdlib.h>

#include <rte_common.h>

#include "perf.h"

/* The sender times each round trip; the receiver echoes. */
static void
latency_raw_traffic(struct test_ulp_params *tx, struct test_ulp_params *rx)
{
	tx->pingpong = true;       /* next message after the answer */
	tx->expect = tx->count;    /* the answers, checked like any message */
	tx->expect_size = tx->size;
	rx->echo = true;           /* the receiver answers each message */
}

/* Sends, one in flight, each answered by B. */
static void
latency_ses_traffic(const struct perf_opts *o, struct ses_driver_params *p)
{
	(void)o;
	p->op = PERF_OP_SEND;
	p->pingpong = true;
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
	uint64_t n = RTE_MIN(r->tx.pongs, r->count), sum = 0;

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
