/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * msgrate: small messages one way A -> B as fast as the window allows,
 * with loss injected on A's transmitted data (default 1%): messages/s,
 * retransmissions, duplicates suppressed, exactly-once verification.
 */

#include "perf.h"

static void
msgrate_print(const struct perf_report *r, FILE *f)
{
	fprintf(f, "msgrate: %lu x %u B over %s, window %u %s, loss %u ppm: "
		"%.0f msgs/s (%.3f s)\n", (unsigned long)r->count, r->size,
		r->pds, r->window, perf_window_unit(r), r->loss_ppm,
		r->msgs_per_s, r->seconds);
	fprintf(f, "  delivered %lu, lost %lu, duplicated %lu, bad %lu, "
		"order errors %lu, completions %lu ok / %lu failed\n",
		(unsigned long)r->rx.rx_msgs, (unsigned long)r->rx.rx_lost,
		(unsigned long)r->rx.rx_dup, (unsigned long)r->rx.rx_bad,
		(unsigned long)r->rx.rx_order_err,
		(unsigned long)r->tx.pkts_done_ok,
		(unsigned long)r->tx.pkts_done_err);
	fprintf(f, "  retransmissions %lu, duplicates suppressed %lu, "
		"frames dropped by fault injection %lu, ACK frames %lu\n",
		(unsigned long)r->retx, (unsigned long)r->dup_suppressed,
		(unsigned long)r->faults_dropped, (unsigned long)r->acks);
	fprintf(f, "  recovery (sender PDS, retransmissions sent): sack %lu, "
		"again %lu, nack %lu, trim %lu, rto %lu (%lu RTOs), probe %lu, "
		"tlp %lu (%lu TLPs), back-off %lu; %lu marked but acknowledged "
		"before they left; %lu go-back-N, %lu stale NACKs\n",
		(unsigned long)r->rec.sack, (unsigned long)r->rec.again,
		(unsigned long)r->rec.nack, (unsigned long)r->rec.trim,
		(unsigned long)r->rec.rto, (unsigned long)r->rec.rto_fires,
		(unsigned long)r->rec.probe, (unsigned long)r->rec.tlp,
		(unsigned long)r->rec.tlp_fires,
		(unsigned long)r->rec.backoff, (unsigned long)r->rec.cancelled,
		(unsigned long)r->rec.rod_goback,
		(unsigned long)r->rec.rod_stale);
	if (r->ns_per_msg_a > 0 && r->ns_per_msg_b > 0)
		fprintf(f, "  per engine side: A (sender) %.0f ns/msg = %.2f M "
			"msgs/s/lcore, B (receiver) %.0f ns/msg = %.2f M "
			"msgs/s/lcore; %.0f%% of the time in the two polls\n",
			r->ns_per_msg_a, 1e3 / r->ns_per_msg_a,
			r->ns_per_msg_b, 1e3 / r->ns_per_msg_b,
			100 * r->loop_share);
	if (r->cpu_seconds > 0 && r->seconds > 0) {
		double share = r->cpu_seconds / r->seconds;

		fprintf(f, "  thread CPU time %.3f s (%.0f%% of wall time): "
			"%.0f msgs per CPU second; per side scaled to CPU "
			"time: A %.0f ns/msg, B %.0f ns/msg\n", r->cpu_seconds,
			100 * share, r->msgs_per_cpu_s,
			r->ns_per_msg_a * share, r->ns_per_msg_b * share);
	}
	perf_pdcs_print(r, f);
	perf_ses_print(r, f);
	perf_wire_print(r, f);
	perf_verified_print(r, f);
}

const struct perf_mode perf_mode_msgrate = {
	.name = "msgrate",
	.in_all = true,
	.def_size = 64,
	.def_count = 1000000,
	.def_window = 512,
	.def_ses_window = 32,
	.def_loss_ppm = 10000,
	.topology = &perf_topology_pair,
	.print = msgrate_print,
};
