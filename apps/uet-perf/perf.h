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

#include <uet/uet_parse.h>

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
/* The peer sent only @p n messages (duration): track no more than that. */
void rulp_expect_trim(struct rulp *r, uint64_t n);

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
	/* two processes (twoproc.c) */
	enum perf_role { PERF_ROLE_NONE, PERF_ROLE_SERVER,
			 PERF_ROLE_CLIENT } role;
	const char *ctl;         /* server: [ADDR:]PORT, client: HOST[:PORT] */
	int progress;            /* -1: config, else enum uet_config_progress */
	uint32_t idle_sleep_us;  /* inline: sleep when idle (0: busy poll) */
	uint32_t ctl_timeout_ms; /* every control socket operation */
	bool arp;                /* no static neighbour from the exchange */
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
	uint64_t retx;           /* request retransmissions (both sides) */
	uint64_t dup_suppressed; /* duplicates the PDS re-ACKed, not delivered */
	uint64_t faults_dropped;
	uint64_t tx_frames;
	uint64_t acks;
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

/* main.c helpers shared with twoproc.c */
extern const struct perf_mode *const perf_modes[];
#define PERF_NB_MODES 3u
const char *perf_pds_name(uint8_t m);
int perf_parse_pds(const char *s, uint8_t *out);
void perf_latency_stats(struct perf_report *r);
bool perf_verify(const struct perf_report *r, uint8_t pds);
void perf_json_report(FILE *f, const struct perf_report *r);
void perf_report_init(struct perf_report *r, const struct perf_mode *m,
		      const struct perf_opts *o, uint32_t def_loss);

/* ------------------------------------------------------------------ */
/* two processes: control connection (ctl.c) and roles (twoproc.c)     */
/* ------------------------------------------------------------------ */

#define PERF_CTL_PORT 47592      /* default control port */
#define PERF_CTL_LINE 1024       /* longest control line */

struct perf_ctl {
	int fd;
	size_t len;
	char buf[4 * PERF_CTL_LINE];
};

/* 0 when @p spec is [ADDR:]PORT (listen) or HOST[:PORT] (peer). */
int perf_ctl_check_spec(const char *spec, bool listen);
int perf_ctl_listen(const char *spec, int *lfd, uint16_t *bound);
int perf_ctl_accept(int lfd, struct perf_ctl *c, int timeout_ms);
int perf_ctl_connect(const char *spec, struct perf_ctl *c, int timeout_ms);
void perf_ctl_close(struct perf_ctl *c);
/* One line (newline added); 0, -ETIMEDOUT, -EMSGSIZE, -errno. */
int perf_ctl_send(struct perf_ctl *c, int timeout_ms, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* 1 line, 0 none within @p timeout_us, -ECONNRESET, -EMSGSIZE, -errno. */
int perf_ctl_poll_line(struct perf_ctl *c, char *out, size_t n,
		       unsigned int timeout_us);
/* 0 line, -ETIMEDOUT, -ECONNRESET, -EMSGSIZE, -errno. */
int perf_ctl_recv(struct perf_ctl *c, char *out, size_t n, int timeout_ms);
/* "VERB k=v k=v": value of @p key. */
bool perf_kv(const char *line, const char *key, char *val, size_t n);
bool perf_kv_u64(const char *line, const char *key, uint64_t *out);
bool perf_verb(const char *line, const char *verb);

/* twoproc.c: run the role of @p o; exit code 0, 1 or 2. */
int perf_twoproc_main(const struct perf_opts *o);

#endif /* UET_PERF_H */
