/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bw: large messages one way, cut into MTU-sized packets (one PDC,
 * messages not interleaved): GB/s of message bytes delivered.
 */

#include "perf.h"

/* --op: the operation (WRITE by default). */
static void
bw_ses_traffic(const struct perf_opts *o, struct ses_driver_params *p)
{
	p->op = o->op;
}

/* --tagged tags sends: a bw run alone must send. With other modes, or
 * at the prompt (the settings of later runs), it is for the others. */
static const char *
bw_refuse(const struct perf_opts *o, const char **flag)
{
	*flag = "--tagged";
	if (o->tagged && o->op != PERF_OP_SEND && !o->interactive &&
	    perf_modes_count(o) == 1)
		return "applies to sends (--op send)";
	return NULL;
}

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
	.in_all = true,
	.takes_op = true,
	.def_size = 65536,
	.def_count = 20000,
	.def_window = 512,
	.def_ses_window = 16,
	.def_loss_ppm = 0,
	.topology = &perf_topology_pair,
	.refuse = bw_refuse,
	.ses_traffic = bw_ses_traffic,
	.print = bw_print,
};
