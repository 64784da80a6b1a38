/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_PERF_SESSION_H
#define UET_PERF_SESSION_H

/*
 * The state of one in-process run (session.c), shared with the
 * topologies that join its engines: perf_topology_pair (session.c) and
 * perf_topology_switch (incast.c).
 */

#include <uet/uet_ses_ulp.h>

#include "perf.h"

/* descriptors of every ring port */
#define SESS_RING_SIZE 4096

struct perf_sess {
	const struct perf_mode *m;
	struct perf_opts o;
	struct perf_report *r;
	unsigned int nb_tx;                       /* senders */
	struct uet_engine *e[PERF_MAX_PEERS + 1]; /* 0: receiver */
	struct test_ulp *ru[PERF_MAX_PEERS + 1];  /* --ulp raw */
	struct uet_proto_params pp[PERF_MAX_PEERS + 1];
	struct uet_pds_config pds[PERF_MAX_PEERS + 1];
	struct uet_ses_ulp_params sp[2];          /* --ulp ses: B, A */
	struct ses_driver_params sdp;             /* --ulp ses */
	struct ses_driver *sd;                    /* --ulp ses */
	struct perf_sampler smp;
	uint64_t t0, t_fin, hard;
	/* TSC inside the senders' / the receiver's uet_engine_poll() during
	 * the timed part, and the thread's CPU time over it */
	uint64_t tsc_tx, tsc_rx;
	double cpu0, cpu_s;
	uint64_t sw_drops;                        /* dropped by the topology */
	bool done, complete, stopped, ended;
};

/* session.c and session_results.c */
/* The receiver's address (engine 0): 10.0.0.2. */
extern const uint8_t perf_sess_ip_b[4];
/* The ULP context of engine @p i (0: the receiver). */
struct uet_ulp_ctx *perf_sess_ctx(struct perf_sess *s, unsigned int i);
/* SES counters of engine @p i (zeros when it runs no SES). */
const struct uet_ses_stats *perf_sess_ses_stats(struct perf_sess *s,
						unsigned int i);
/* One poll of every engine (and the SES driver). */
void perf_sess_poll_all(struct perf_sess *s);
/* Per engine side: ns inside its poll per message delivered. */
void perf_sess_cost_report(struct perf_sess *s);
/* The pair's results: what was never sent (duration, stop, limit) is
 * not expected either. */
void perf_sess_pair_results(struct perf_sess *s);

#endif /* UET_PERF_SESSION_H */
