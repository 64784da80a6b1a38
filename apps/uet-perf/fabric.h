/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_PERF_FABRIC_H
#define UET_PERF_FABRIC_H

/*
 * One uet-perf --fabric run, shared by the driver (fabric.c: setup, the
 * run, the time series hook) and the report (fabric_report.c: per-flow
 * statistics, summary, JSON, CSV).
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <uet/uet_fabric.h>
#include <uet/uet_fabric_eth.h>

#include "perf.h"

struct pf_flow {
	struct perf_flow_spec spec;
	uint32_t rx_index;       /* flow number at the receiver */
	uint32_t tx_index;       /* destination number at the sender */
	uint64_t prev_bytes;     /* CSV: delivered at the previous row */
};

struct pf_run {
	const struct perf_opts *o;
	const struct uet_config *cfg;   /* engines' base, [fabric] */
	struct uet_fabric_config fc;
	struct uet_fabric_eth *fe;
	struct uet_fabric *fab;
	uint32_t hosts;
	uint32_t nflows;
	struct pf_flow *flow;
	struct rulp **r;                /* per host */
	struct rulp_dest **dests;       /* per host: its flows out */
	uint32_t *nd;                   /* per host: flows out */
	uint32_t *nrx;                  /* per host: flows in */
	struct uet_engine **eng;
	struct uet_proto_params *pp;
	struct uet_pds_config *pds;
	uint32_t size;                  /* message bytes */
	uint64_t count;                 /* messages per flow */
	uint32_t window;                /* packets in flight per flow */
	uint32_t ppm;                   /* packets per message */
	uint64_t wire_per_msg;          /* bytes on a link per message */
	uint64_t t0;                    /* start of the run, engine time */
	bool virt;                      /* virtual clock */
	/* --csv */
	FILE *csv;
	uint64_t sample_ns;
	uint64_t next_row;              /* real clock: next row due */
	uint64_t prev_row;
	/* outcome */
	int run_rc;
	uint64_t end_ns;                /* last flow done, engine time */
	uint64_t tail_end_ns;           /* after the quiet tail */
	/* every port's counters when the run ended (before the tail, so
	 * that utilisation and queues are those of the run) */
	struct uet_fabric_port_stats *port_end;
	double wall_s;
	double cpu_s;
	struct uet_fabric_eth_run_stats rs;
};

/* fabric_report.c */
void pf_csv_header(struct pf_run *p);
void pf_csv_row(struct pf_run *p, uint64_t t);
/* Summary (stdout unless JSON goes there) and --json: 0 verified,
 * 1 not, 2 cannot write the JSON file. */
int pf_report(struct pf_run *p);

#endif /* UET_PERF_FABRIC_H */
