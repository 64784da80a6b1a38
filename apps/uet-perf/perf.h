/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_PERF_H
#define UET_PERF_H

/*
 * uet-perf: batch benchmarks over two engines in one process (ring ports
 * back to back, inline progress on one thread). One file per traffic mode
 * (msgrate.c, latency.c, bw.c), like testpmd's forwarding engines; the
 * traffic source is the "raw PDS" test ULP (rawulp.c) until the SES
 * replaces it.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <uet/uet_config.h>
#include <uet/uet_engine.h>
#include <uet/uet_ulp.h>

/* ------------------------------------------------------------------ */
/* raw PDS test ULP (rawulp.c)                                         */
/* ------------------------------------------------------------------ */

/* What one side sends and checks. */
struct rulp_params {
	struct uet_pds_fa peer;  /* where messages go */
	uint8_t mode;            /* enum uet_pds_mode */
	uint32_t size;           /* message bytes (>= 16) */
	uint64_t count;          /* messages to send (0: none) */
	uint32_t window;         /* packets in flight */
	uint64_t expect;         /* messages the peer sends us (tracking) */
	uint32_t expect_size;    /* their size */
	bool echo;               /* answer every message (latency pong) */
	bool pingpong;           /* send the next message after the pong */
	uint64_t deadline_tsc;   /* stop submitting after this (0: none) */
};

/* Results of one side. */
struct rulp_result {
	uint64_t msgs_sent;      /* messages fully submitted */
	uint64_t pkts_done_ok;
	uint64_t pkts_done_err;
	uint64_t rx_pkts;        /* packets delivered */
	uint64_t rx_msgs;        /* messages with every packet delivered */
	uint64_t rx_bytes;       /* message bytes delivered (first copy) */
	uint64_t rx_dup;         /* packets delivered more than once */
	uint64_t rx_bad;         /* bad seq/checksum/length/header */
	uint64_t rx_order_err;   /* ROD: out of order */
	uint64_t rx_lost;        /* expected packets never delivered */
	uint64_t pongs;          /* latency: round trips completed */
	uint32_t *lat_ns;        /* latency samples (pongs entries) */
};

struct rulp;

extern const struct uet_ulp_ops rulp_ops;

/* State of one side, allocated for @p p (sample and tracking arrays). */
struct rulp *rulp_create(const struct rulp_params *p);
void rulp_free(struct rulp *r);
/* Every message submitted and completed (ok or error). */
bool rulp_send_finished(const struct rulp *r);
/* Fill @p out; counts rx_lost over the expected packets. */
void rulp_result(const struct rulp *r, struct rulp_result *out);
/* Packets per message of @p size with @p max_len SES bytes per packet. */
uint32_t rulp_pkts_per_msg(uint32_t size, uint16_t max_len);

/* ------------------------------------------------------------------ */
/* runs and modes                                                      */
/* ------------------------------------------------------------------ */

struct perf_opts {
	unsigned int modes;      /* bit per mode */
	uint8_t pds_mode;        /* enum uet_pds_mode */
	uint32_t size;           /* 0: mode default */
	uint64_t count;          /* 0: mode default */
	double duration;         /* seconds per mode, 0: until count */
	uint32_t window;         /* 0: mode default */
	int64_t loss_ppm;        /* -1: mode default */
	uint64_t seed;
	const char *config;      /* NULL: built-in */
	bool json;
	bool verbose;
};

/* Everything one mode run measured. */
struct perf_report {
	const char *mode;
	const char *pds;
	uint32_t size;
	uint64_t count;
	uint32_t window;
	uint32_t loss_ppm;
	uint32_t pkts_per_msg;
	double seconds;
	double msgs_per_s;
	double gbytes_per_s;
	/* TSC time inside uet_engine_poll() of each engine during the timed
	 * part, per message delivered: the cost of one engine side. */
	double ns_per_msg_a;
	double ns_per_msg_b;
	double loop_share;       /* share of the time inside the two polls */
	double cpu_seconds;      /* thread CPU time of the timed part */
	double msgs_per_cpu_s;   /* messages per CPU second (load-proof) */
	uint64_t retx;           /* request retransmissions (both sides) */
	uint64_t dup_suppressed; /* duplicates the PDS re-ACKed, not delivered */
	uint64_t faults_dropped;
	uint64_t tx_frames;
	uint64_t acks;
	/* Loss recovery of the sender's PDS (uet_pds_stats). */
	struct {
		uint64_t sack;       /* first retransmits on SACK evidence */
		uint64_t again;      /* retransmits of lost retransmissions */
		uint64_t nack;       /* retransmits on NACKs (ROD go-back) */
		uint64_t rto;        /* retransmits marked by RTOs */
		uint64_t rto_fires;
		uint64_t tlp_fires;
		uint64_t rod_goback; /* go-back-N restarts */
		uint64_t rod_stale;  /* NACKs ignored: resend on its way */
	} rec;
	bool complete;           /* everything sent and completed */
	bool verified;           /* delivery guarantees of the PDS mode held */
	struct rulp_result tx;   /* side A (sender) */
	struct rulp_result rx;   /* side B (receiver) */
	/* latency, ns */
	uint64_t lat_n;
	double lat_min, lat_p50, lat_p99, lat_p999, lat_max, lat_avg;
};

/* One benchmark, chosen by --mode (testpmd's fwd_engine shape). */
struct perf_mode {
	const char *name;
	uint32_t def_size;
	uint64_t def_count;
	uint32_t def_window;
	uint32_t def_loss_ppm;   /* on A's transmitted data */
	bool pingpong;
	void (*print)(const struct perf_report *r, FILE *f);
};

extern const struct perf_mode perf_mode_msgrate;
extern const struct perf_mode perf_mode_latency;
extern const struct perf_mode perf_mode_bw;

/* main.c: run @p m with @p o; 0 or -errno (setup failure). */
int perf_run(const struct perf_mode *m, const struct perf_opts *o,
	     struct perf_report *r);

#endif /* UET_PERF_H */
