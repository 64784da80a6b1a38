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
#include <uet/uet_ses_ulp.h>

#include "perf.h"

struct fabric_flow {
	struct perf_flow_spec spec;
	uint32_t rx_index;       /* flow number at the receiver */
	uint32_t tx_index;       /* destination number at the sender */
	uint64_t prev_bytes;     /* CSV: delivered at the previous row */
};

/* What the report needs of a flow, whichever transport carried it. */
struct fabric_flow_out {
	uint64_t bytes;          /* delivered, first copies */
	uint64_t msgs;           /* complete messages */
	uint64_t lost;           /* packets (raw) or messages (ses) missing */
	uint64_t done_ns;        /* engine time of the last message */
	bool complete;
};

/* Delivery totals over every flow. */
struct fabric_delivery {
	uint64_t rx_msgs, rx_dup, rx_bad, rx_lost, rx_order_err, done_err;
};

struct fabric_run;

/*
 * What carries the flows (--ulp): the raw-PDS ULP, one per host with a
 * destination per flow (fabric_raw.c), or the SES ULP driven through
 * channels, one driver per flow, each side its own process
 * (fabric_ses.c). Called in this order: hosts (the ULP of each host,
 * before the engines), start (after them), poll and done during the run,
 * flow_bytes for the time series, flow_out and delivery for the report,
 * detach (before the engines are freed), release.
 */
struct fabric_transport {
	const char *name;
	int (*hosts)(struct fabric_run *p);
	int (*start)(struct fabric_run *p);
	unsigned int (*poll)(struct fabric_run *p, uint64_t now);
	bool (*done)(const struct fabric_run *p);
	uint64_t (*flow_bytes)(const struct fabric_run *p, uint32_t flow);
	void (*flow_out)(struct fabric_run *p, uint32_t flow,
			 struct fabric_flow_out *out);
	void (*delivery)(struct fabric_run *p, struct fabric_delivery *d);
	void (*detach)(struct fabric_run *p);
	void (*release)(struct fabric_run *p);
};

extern const struct fabric_transport fabric_transport_raw;
extern const struct fabric_transport fabric_transport_ses;

struct fabric_run {
	const struct fabric_transport *tp;
	const struct perf_opts *o;
	const struct uet_config *cfg;   /* engines' base, [fabric] */
	struct uet_fabric_config fc;
	struct uet_fabric_eth *fe;
	struct uet_fabric *fab;
	uint32_t hosts;
	uint32_t nflows;
	struct fabric_flow *flow;
	/* raw transport */
	struct test_ulp **r;                /* per host */
	struct test_ulp_dest **dests;       /* per host: its flows out */
	/* ses transport */
	struct ses_driver **sd;               /* per flow */
	struct uet_ses_ulp_params *sp;  /* per host */
	uint64_t *done_ns;              /* per flow: last message, or 0 */
	uint32_t *nd;                   /* per host: flows out */
	uint32_t *nrx;                  /* per host: flows in */
	struct uet_engine **eng;
	struct uet_proto_params *pp;
	struct uet_pds_config *pds;
	uint32_t size;                  /* message bytes */
	uint64_t count;                 /* messages per flow */
	uint32_t window;                /* packets (ses: operations) in
					 * flight per flow */
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
	/* the process's resident memory (perf_rss_bytes): before the
	 * engines and the fabric were built, after, and its peak */
	uint64_t rss_before;
	uint64_t rss_setup;
	uint64_t rss_peak;
	struct uet_fabric_eth_run_stats rs;
};

/* fabric_report.c */
void fabric_csv_header(struct fabric_run *p);
void fabric_csv_row(struct fabric_run *p, uint64_t t);
/* Summary (stdout unless JSON goes there) and --json: 0 verified,
 * 1 not, 2 cannot write the JSON file. */
int fabric_report(struct fabric_run *p);

#endif /* UET_PERF_FABRIC_H */
