/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * incast: N sender engines (--peers) to one receiver engine, all in this
 * process on ring ports; the senders share the receiver's RX ring and a
 * software switch returns the ACKs (session.c). Reports each flow's
 * goodput (bytes delivered / time to its last delivery) and Jain's
 * fairness index over them: (sum x)^2 / (N * sum x^2), 1 = fair.
 */

#include "perf.h"

static void
incast_print(const struct perf_report *r, FILE *f)
{
	fprintf(f, "incast: %u senders -> 1 receiver, %lu x %u B over %s, "
		"window %u pkts each, loss %u ppm: %.3f GB/s, %.0f msgs/s "
		"(%.3f s)\n", r->nb_flows, (unsigned long)r->count, r->size,
		r->pds, r->window, r->loss_ppm, r->gbytes_per_s, r->msgs_per_s,
		r->seconds);
	for (unsigned int i = 0; i < r->nb_flows; i++)
		fprintf(f, "  flow %u: sent %lu, delivered %lu msgs, %lu B, "
			"lost pkts %lu, goodput %.3f GB/s (%.3f s)\n", i,
			(unsigned long)r->flow[i].msgs_sent,
			(unsigned long)r->flow[i].msgs,
			(unsigned long)r->flow[i].bytes,
			(unsigned long)r->flow[i].lost,
			r->flow[i].gbytes_per_s, r->flow[i].seconds);
	fprintf(f, "  Jain fairness index %.4f, retransmissions %lu, "
		"duplicates suppressed %lu, ACK frames %lu\n", r->jain,
		(unsigned long)r->retx, (unsigned long)r->dup_suppressed,
		(unsigned long)r->acks);
	perf_verified_print(r, f);
}

const struct perf_mode perf_mode_incast = {
	.name = "incast",
	.def_size = 4096,
	.def_count = 20000,
	.def_window = 64,
	.def_ses_window = 0,
	.def_loss_ppm = 0,
	.incast = true,
	.print = incast_print,
};
