/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bw: large messages one way, cut into MTU-sized packets (one PDC,
 * messages not interleaved): GB/s of message bytes delivered.
 */

#include "perf.h"

static void
bw_print(const struct perf_report *r, FILE *f)
{
	fprintf(f, "bw: %lu x %u B (%u packets each) over %s, window %u %s, "
		"loss %u ppm: %.3f GB/s, %.0f msgs/s (%.3f s)\n",
		(unsigned long)r->count, r->size, r->pkts_per_msg, r->pds,
		r->window, perf_window_unit(r), r->loss_ppm, r->gbytes_per_s,
		r->msgs_per_s, r->seconds);
	fprintf(f, "  delivered %lu, lost pkts %lu, duplicated %lu, bad %lu, "
		"retransmissions %lu\n", (unsigned long)r->rx.rx_msgs,
		(unsigned long)r->rx.rx_lost, (unsigned long)r->rx.rx_dup,
		(unsigned long)r->rx.rx_bad, (unsigned long)r->retx);
	perf_ses_print(r, f);
	perf_wire_print(r, f);
	perf_verified_print(r, f);
}

const struct perf_mode perf_mode_bw = {
	.name = "bw",
	.def_size = 65536,
	.def_count = 20000,
	.def_window = 512,
	.def_ses_window = 16,
	.def_loss_ppm = 0,
	.print = bw_print,
};
