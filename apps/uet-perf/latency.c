/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * latency: ping-pong, one message in flight; B answers every message with
 * a message of the same size; round trip measured by A from submission to
 * delivery of the answer (TSC), both engines on one thread.
 */

#include "perf.h"

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
	.def_size = 64,
	.def_count = 100000,
	.def_window = 64,
	.def_ses_window = 1,
	.def_loss_ppm = 0,
	.pingpong = true,
	.print = latency_print,
};
