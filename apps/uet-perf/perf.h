/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_PERF_H
#define UET_PERF_H

/*
 * uet-perf: batch benchmarks of the engine. One file per mode (msgrate.c,
 * latency.c, bw.c, incast.c: a struct perf_mode each, like testpmd's
 * forwarding engines), chosen once by --mode; one transport, chosen once
 * (main.c): engines in this process (session.c, the prompt cli.c), one
 * engine in each of two processes (twoproc.c) or one per host of the
 * emulated fabric (fabric.c). Two traffic sources (--ulp): the test ULP
 * over the PDS (test_ulp.c), or the SES ULP of the engine driven through
 * front-end channels (ses_driver.c).
 */

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include <uet/uet_parse.h>

#include <uet/uet_config.h>
#include <uet/uet_engine.h>
#include <uet/uet_ulp.h>

/* ------------------------------------------------------------------ */
/* raw PDS test ULP (test_ulp.c)                                         */
/* ------------------------------------------------------------------ */

/*
 * One destination of a multi-flow sender (uet-perf --fabric): its own
 * window and start time. The array stays the caller's (start times may be
 * set after test_ulp_create(), before the engines run).
 */
struct test_ulp_dest {
	struct uet_pds_fa peer;
	uint64_t seq_base;       /* first sequence number (receiver's numbering) */
	uint64_t count;          /* messages */
	uint64_t start_ns;       /* engine time before which none is sent */
	uint64_t done_ns;        /* out: engine time the last one was ACKed */
};

struct test_ulp;
struct test_ulp_result;

/*
 * A mode's part of one side of the test ULP (testpmd's fwd_engine
 * callbacks), chosen once by the mode's raw_traffic(): test_ulp.c calls
 * it where the side decides what to submit and what a completion or a
 * delivery means. A side without one streams (messages back to back in
 * the window, none answered); a NULL member keeps that behaviour. @p priv
 * is the mode's state, priv_size bytes, zeroed, made with the side.
 */
struct test_ulp_engine {
	size_t priv_size;
	/* The side @p r is made: 0 or -errno (e.g. its sample array). */
	int (*init)(void *priv, struct test_ulp *r);
	void (*fini)(void *priv, struct test_ulp *r);
	/* Each poll, before new messages: submit the messages owed
	 * (answers); false while one cannot go (no new message then). */
	bool (*owed)(void *priv, struct test_ulp *r, struct uet_ulp_ctx *ctx,
		     unsigned int *work);
	/* Submit (the rest of) new message @p seq with test_ulp_submit();
	 * true when it went whole and the next one may follow. */
	bool (*send)(void *priv, struct test_ulp *r, struct uet_ulp_ctx *ctx,
		     uint64_t seq, unsigned int *work);
	/* A packet of message @p seq completed with @p status (!= 0). */
	void (*failed)(void *priv, struct test_ulp *r, uint64_t seq);
	/* Message @p seq (the peer's numbering) was delivered whole. */
	void (*received)(void *priv, struct test_ulp *r, uint64_t seq);
	/* Nothing owed or awaited: the side may finish. */
	bool (*idle)(const void *priv);
	/* Messages done (progress); NULL: the messages acknowledged. */
	uint64_t (*msgs_done)(const void *priv, const struct test_ulp *r);
};

/* What one side sends and checks. */
struct test_ulp_params {
	struct uet_pds_fa peer;  /* where messages go */
	uint8_t mode;            /* enum uet_wire_pds_mode */
	uint32_t size;           /* message bytes (>= 16) */
	uint64_t count;          /* messages to send (0: none) */
	uint32_t window;         /* packets in flight */
	uint64_t expect;         /* messages the peer sends us (tracking) */
	uint32_t expect_size;    /* their size */
	const struct test_ulp_engine *engine; /* the mode's (NULL: stream) */
	uint64_t deadline_tsc;   /* stop submitting after this (0: none) */
	uint64_t seq_base;       /* first sequence number sent (incast) */
	uint32_t flows;          /* receiver: count per sender (0: no) */
	uint64_t flow_span;      /* sequence numbers per sender */
	/* several destinations (peer, count, seq_base unused); window is
	 * then per destination */
	struct test_ulp_dest *dests;
	uint32_t nb_dests;
	/* --pdcs: message seq goes on the PDC of job
	 * PERF_TEST_ULP_JOB + (seq / pdc_burst) % pdcs (0 or 1: one PDC) */
	uint32_t pdcs;
	uint32_t pdc_burst;      /* --pdc-burst (0 or 1: one message each) */
};

/* What one sender's flow delivered (incast receiver). */
struct test_ulp_flow {
	uint64_t msgs;           /* complete messages */
	uint64_t bytes;          /* message bytes, first copy */
	uint64_t last_tsc;       /* last message completed */
	uint64_t first_ns;       /* engine time: first packet delivered */
	uint64_t last_ns;        /* engine time: last message completed */
	uint64_t lost;           /* packets sent but never delivered */
};

/* Results of one side. */
struct test_ulp_result {
	uint64_t msgs_sent;      /* messages fully submitted */
	uint64_t pkts_done_ok;
	uint64_t pkts_done_err;
	uint64_t rx_pkts;        /* packets delivered */
	uint64_t rx_msgs;        /* messages with every packet delivered */
	uint64_t rx_bytes;       /* message bytes delivered (first copy) */
	uint64_t rx_dup;         /* packets delivered more than once */
	uint64_t rx_bad;         /* bad seq/checksum/length/header, or no
				  * memory to record it */
	uint64_t rx_order_err;   /* ROD: out of order */
	uint64_t rx_lost;        /* expected packets never delivered */
	uint64_t pongs;          /* latency: round trips completed */
	uint64_t pings_failed;   /* latency: pings the PDS failed (no pong
				  * awaited: the run goes on) */
	uint32_t *lat_ns;        /* latency samples (lat_n entries) */
	uint64_t lat_n;          /* samples recorded (<= pongs) */
};

extern const struct uet_ulp_ops test_ulp_ops;

/* State of one side, allocated for @p p (sample and tracking arrays). */
struct test_ulp *test_ulp_create(const struct test_ulp_params *p);
void test_ulp_free(struct test_ulp *r);
/* Every message submitted and completed (ok or error). */
bool test_ulp_send_finished(const struct test_ulp *r);
/* Fill @p out; counts rx_lost over the expected packets. */
void test_ulp_result(const struct test_ulp *r, struct test_ulp_result *out);
/* Packets per message of @p size with @p max_len SES bytes per packet. */
uint32_t test_ulp_pkts_per_msg(uint32_t size, uint16_t max_len);
/* The peer sent only @p n messages (duration): track no more than that. */
void test_ulp_expect_trim(struct test_ulp *r, uint64_t n);
/* Submit no new message (the one in progress is finished). */
void test_ulp_stop(struct test_ulp *r);
/* Messages to send in all (a single-destination stream): raised, the
 * stream goes on after it finished (waves). */
void test_ulp_set_count(struct test_ulp *r, uint64_t count);
/* --duration: submit no new message after TSC @p deadline (set once
 * the engines run, so that setup is not part of the duration). */
void test_ulp_set_deadline(struct test_ulp *r, uint64_t deadline);
/* Packets completed (ok or failed) plus packets received: progress. */
uint64_t test_ulp_activity(const struct test_ulp *r);
/* Messages acknowledged (or as the engine counts them) so far. */
uint64_t test_ulp_msgs_done(const struct test_ulp *r);
/* For engines: submit packets of message @p seq from where it stopped,
 * within the window; true when it went whole. */
bool test_ulp_submit(struct test_ulp *r, struct uet_ulp_ctx *ctx,
		     uint64_t seq, unsigned int *work);
/* For engines: the number of the message being (or next to be)
 * submitted, and in @p k its next packet (0: none of it yet). */
uint64_t test_ulp_next(const struct test_ulp *r, uint32_t *k);
/* For engines: the side's parameters and its results (the mode's
 * counters: pongs, pings_failed, lat_ns). */
const struct test_ulp_params *test_ulp_params(const struct test_ulp *r);
struct test_ulp_result *test_ulp_res(struct test_ulp *r);
/* Counters as they are (no loss scan): live statistics. */
const struct test_ulp_result *test_ulp_live(const struct test_ulp *r);
/* Flow @p f as it is (no loss scan: time series); NULL if none. */
const struct test_ulp_flow *test_ulp_flow_live(const struct test_ulp *r,
					       uint32_t f);
/* Flow @p f of which @p sent messages were sent; 0 or -EINVAL. */
int test_ulp_flow_get(const struct test_ulp *r, uint32_t f, uint64_t sent,
		      struct test_ulp_flow *out);

/* ------------------------------------------------------------------ */
/* SES traffic through front-end channels (ses_driver.c)                   */
/* ------------------------------------------------------------------ */

/* Traffic source (--ulp). */
enum perf_ulp { PERF_ULP_RAW = 0, PERF_ULP_SES = 1 };

/* SES operation of the bw test (--op); msgrate and latency send. */
enum perf_op { PERF_OP_WRITE = 0, PERF_OP_SEND = 1, PERF_OP_READ = 2 };

struct ses_driver_params;

/*
 * A mode's part of the SES driver (testpmd's fwd_engine callbacks),
 * chosen once by the mode's ses_traffic(): when A submits, what a failed
 * operation means, which of B's receives B answers (a SEND back to A from
 * the same buffer), and what A makes of an answer. A driver without one
 * streams (A's operations back to back in the window, none answered).
 * @p priv is the mode's state, priv_size bytes, zeroed, with the driver.
 */
struct ses_driver_engine {
	size_t priv_size;
	uint32_t slots;          /* A's operation slots (0: the window) */
	uint32_t recvs;          /* B's receive buffers (0: 2 x window) */
	uint32_t answers;        /* A's receive buffers for B's answers */
	int (*init)(void *priv, const struct ses_driver_params *p);
	void (*fini)(void *priv);
	/* A may submit its next operation now. */
	bool (*may_send)(const void *priv);
	/* A submitted operation @p seq (its SQE is posted). */
	void (*sent)(void *priv, uint64_t seq);
	/* Operation @p seq completed in error. */
	void (*failed)(void *priv, uint64_t seq);
	/* B received message @p seq (checked): answer it. */
	bool (*answer)(const void *priv, uint64_t seq);
	/* An answer is awaited: true, with the @p seq it must carry. */
	bool (*awaits)(const void *priv, uint64_t *seq);
	/* The awaited answer came (checked, counted in @p tx) at TSC @p now. */
	void (*answered)(void *priv, struct test_ulp_result *tx, uint64_t now);
	/* Nothing awaited: the run may end (without draining B's
	 * receives: an answered run has seen them all). */
	bool (*idle)(const void *priv);
	/* The results: the mode's part of A's (@p tx, e.g. lat_ns). */
	void (*result)(const void *priv, struct test_ulp_result *tx);
};

/* What the SES driver runs between initiator A and target B. */
struct ses_driver_params {
	struct uet_engine *ea;   /* initiator engine (SES ULP) */
	struct uet_engine *eb;   /* target engine (SES ULP) */
	const char *tag;         /* unique per run: channel names */
	uint8_t op;              /* enum perf_op */
	bool tagged;             /* SEND as TSEND / TRECV */
	bool rod;                /* SQE mode ROD (else RUD) */
	bool verify;             /* fill and check every payload byte */
	const struct ses_driver_engine *engine; /* the mode's (NULL: stream) */
	uint32_t size;           /* bytes per operation */
	uint64_t count;          /* operations */
	uint32_t window;         /* operations in flight */
	uint64_t deadline_tsc;   /* stop submitting after this (0: none) */
	/* --fabric: the sides' fabric addresses (all zero: 10.0.0.1 and
	 * 10.0.0.2) and processes (0: the engine context's own; else a
	 * PIDonFEP of its own, bound with EP_ADD, so that several drivers
	 * can share an engine) */
	uint8_t fa_a[4], fa_b[4];
	uint16_t pid_a, pid_b;
	uint32_t ini_a, ini_b;   /* their initiator ids (0: the PID) */
	/* tagged sends' match bits (0: the default): drivers whose
	 * receivers share a process receive only their own sends */
	uint64_t match_bits;
};

/* Driver-level counters (besides the per-side results). */
struct ses_driver_counters {
	uint64_t cqe_err;        /* CQEs with status != 0 (both sides) */
	uint64_t cqe_bad;        /* CQEs with an unknown context */
	uint64_t post_fail;      /* RQ posts refused (never expected) */
};

struct ses_driver;

/* Channels, job, region, pre-posted receives; NULL on failure (printed). */
struct ses_driver *ses_driver_create(const struct ses_driver_params *p);
/* Detach the channels (before the engines are freed). */
void ses_driver_detach(struct ses_driver *d);
/* Free channels and buffers (after the engines); NULL: no-op. */
void ses_driver_free(struct ses_driver *d);
/* Application side of one loop turn: CQs, reposts, submissions.
 * @return completions read plus operations posted (0: nothing moved). */
unsigned int ses_driver_poll(struct ses_driver *d);
/* Every operation submitted and completed, every message received. */
bool ses_driver_finished(struct ses_driver *d);
/* Submit no new operation. */
void ses_driver_stop(struct ses_driver *d);
/* --duration: submit no new operation after TSC @p deadline. */
void ses_driver_set_deadline(struct ses_driver *d, uint64_t deadline);
/* Delivered so far (live statistics): messages / bytes in rx_*. */
const struct test_ulp_result *ses_driver_live(const struct ses_driver *d);
/* Driver counters. */
const struct ses_driver_counters *
ses_driver_counters(const struct ses_driver *d);
/*
 * Final results (first call checks the target region of WRITEs):
 * @p tx initiator side, @p rx delivery side (B's receives for sends, the
 * placed / read data for WRITE / READ). tx->lat_ns: latency samples.
 */
void ses_driver_result(struct ses_driver *d, struct test_ulp_result *tx,
		       struct test_ulp_result *rx);
const char *perf_op_name(uint8_t op);
int perf_parse_op(const char *s, uint8_t *out);

/* ------------------------------------------------------------------ */
/* runs and modes                                                      */
/* ------------------------------------------------------------------ */

/* ------------------------------------------------------------------ */
/* the emulated fabric (fabric.c, pattern.c, fabric_report.c)          */
/* ------------------------------------------------------------------ */

/* One flow: @p src sends @p bytes to @p dst, from @p start_ns into the run. */
struct perf_flow_spec {
	uint32_t src;
	uint32_t dst;
	uint64_t start_ns;
};

/*
 * A traffic pattern (--pattern): fills up to @p max flows for @p hosts
 * hosts (@p group: hosts per leaf, or per pod of a fat tree; @p seed for
 * random ones). @return the number of flows, or -errno.
 */
struct perf_pattern {
	const char *name;
	const char *help;
	int (*flows)(uint32_t hosts, uint32_t group, uint64_t seed,
		     struct perf_flow_spec *out, uint32_t max);
};

extern const struct perf_pattern *const perf_patterns[];
#define PERF_NB_PATTERNS 4u
/* Hosts of a --fabric run (the fabric's limit). */
#define PERF_FABRIC_MAX_HOSTS 1024u
/* Flows of every pattern fit this (all-to-all of 64 hosts). */
#define PERF_FABRIC_MAX_FLOWS 4032u
const struct perf_pattern *perf_pattern_find(const char *name);

/* --fabric options. */
struct perf_fabric_opts {
	bool on;
	const char *spec;        /* --fabric k=v,... (NULL: none) */
	const struct perf_pattern *pattern;
	uint32_t senders;        /* incast:N (0: every other host) */
	uint64_t flow_size;      /* bytes per flow (0: 2 MiB) */
	uint64_t stagger_ns;     /* flow i starts at i x stagger */
	bool real_clock;         /* --clock real */
	uint64_t sample_ns;      /* --csv period of emulated time (0: 10 us) */
	uint64_t limit_ns;       /* emulated time bound (0: 1 s) */
};

/* The congestion window (bytes) and smoothed RTT (ns, 0: no sample yet)
 * of @p e's first initiator PDC to @p dst (context 0): 0, or -ENOENT
 * when there is none (the --fabric --csv cwnd_ and srtt_us_ columns). */
int perf_engine_cwnd(struct uet_engine *e, const struct uet_pds_fa *dst,
		     uint64_t *bytes, uint64_t *srtt_ns);

struct perf_opts {
	unsigned int modes;      /* bit per mode */
	uint8_t pds_mode;        /* enum uet_wire_pds_mode */
	uint32_t size;           /* 0: mode default */
	uint64_t count;          /* 0: mode default */
	double duration;         /* seconds per mode, 0: until count */
	uint32_t window;         /* 0: mode default */
	int64_t loss_ppm;        /* -1: mode default */
	uint64_t seed;
	const char *config;      /* NULL: built-in */
	const char *eal_args;    /* EAL arguments before "--" (NULL: none) */
	bool json;
	bool verbose;
	/* two processes (twoproc.c) */
	enum perf_role { PERF_ROLE_NONE, PERF_ROLE_SERVER,
			 PERF_ROLE_CLIENT } role;
	const char *ctl;         /* server: [ADDR:]PORT, client: HOST[:PORT] */
	int progress;            /* -1: config, else enum uet_config_progress */
	uint32_t idle_sleep_us;  /* inline: sleep when idle (0: busy poll) */
	uint32_t ctl_timeout_ms; /* every control socket operation */
	uint32_t accept_ms;      /* server: wait for the client (60 s, or
				  * --ctl-timeout when given) */
	bool arp;                /* no static neighbour from the exchange */
	/* incast, statistics, interactive */
	uint32_t peers;          /* incast senders (0: default) */
	uint32_t interval_ms;    /* live stats / CSV period (0: none) */
	const char *csv;         /* CSV time series file (NULL: none) */
	const char *capture;     /* pcapng of an engine's frames (NULL: none) */
	FILE *csv_file;          /* opened by main */
	bool interactive;        /* -i: cmdline prompt */
	/* faults on the senders' data besides drop (loss_ppm), by kind */
	uint32_t fault_ppm[UET_CONFIG_FAULT_KINDS];
	/* traffic source */
	uint8_t ulp;             /* enum perf_ulp */
	uint8_t op;              /* enum perf_op (bw over the SES) */
	bool tagged;             /* SES sends tagged */
	bool verify;             /* SES: check every payload byte */
	bool csv_ses;            /* the --csv header has the SES columns */
	/* load balancing: -1 the [spray] mode of --config, else enum
	 * uet_config_spray_mode (--spray, set spray) */
	int spray;
	const char *json_path;   /* --json FILE (NULL: stdout) */
	struct perf_fabric_opts fab;
	int cc;                  /* -1: [cc] of --config, else
				  * enum uet_config_cc_algo (--cc) */
	uint32_t pdcs;           /* --pdcs N (0: one PDC) */
	uint32_t pdc_burst;      /* --pdc-burst K (0: 1) */
};

#define PERF_MAX_PEERS 8         /* incast senders */
/* --count bound; also the count of --duration without --count (the
 * receiver's per-packet tables are allocated for it, touched only as
 * packets arrive) */
#define PERF_MAX_COUNT 100000000ull

/* Per-flow result of an incast run. */
struct perf_flow {
	uint64_t msgs_sent;      /* by the sender */
	uint64_t msgs;           /* delivered */
	uint64_t bytes;
	uint64_t lost;           /* packets */
	double seconds;          /* start to last delivery */
	double gbytes_per_s;     /* goodput */
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
	/* The wire of the in-process engines (all engines, both
	 * directions): faults applied by kind, and what RX made of them. */
	struct perf_wire {
		uint64_t fault[UET_CONFIG_FAULT_KINDS];
		uint64_t csum_bad;   /* UDP checksum wrong: dropped */
		uint64_t csum_none;  /* UDP checksum missing: dropped */
		uint64_t trimmed;    /* trimmed frames received */
		uint64_t malformed;  /* malformed frames dropped */
		uint64_t chained;    /* chained frames given to the PDS as
				      * they are (placed from both segments) */
		uint64_t linearized; /* chained frames copied whole first */
		/* [tss]: frames sealed, opened, dropped by reason */
		uint64_t tss_sealed;
		uint64_t tss_opened;
		uint64_t tss_keys; /* cluster: keys derived, both sides */
		uint64_t tss_drop[UET_ENGINE_TSS_DROPS];
	} wire;
	/* Loss recovery of the senders' PDSs (uet_pds_stats). */
	struct perf_recovery {
		/* retransmissions sent, by reason (uet_pds_stats) */
		uint64_t sack;       /* first retransmits on SACK evidence */
		uint64_t again;      /* retransmits of lost retransmissions */
		uint64_t nack;       /* retransmits on NACKs other than trims
				      * (ROD go-back) */
		uint64_t trim;       /* retransmits on trim NACKs */
		uint64_t rto;        /* retransmits after RTOs */
		uint64_t probe;      /* retransmits on PROBE replies */
		uint64_t tlp;        /* tail-loss probes resending a packet */
		uint64_t backoff;    /* retransmits after resource back-off */
		uint64_t cancelled;  /* marked, acknowledged before sent */
		uint64_t rto_fires;
		uint64_t tlp_fires;
		uint64_t rod_goback; /* go-back-N restarts */
		uint64_t rod_stale;  /* NACKs ignored: resend on its way */
		/* load balancing (REPS): packets on a cached / a new EV,
		 * freezes after a loss */
		uint64_t lb_recycled;
		uint64_t lb_explored;
		uint64_t lb_freezes;
	} rec;
	bool complete;           /* everything sent and completed */
	bool verified;           /* delivery guarantees of the PDS mode held */
	const char *why_not;     /* !verified: the first check that failed */
	struct test_ulp_result tx;   /* side A (sender) */
	struct test_ulp_result rx;   /* side B (receiver) */
	/* latency, ns */
	uint64_t lat_n;
	double lat_min, lat_p50, lat_p99, lat_p999, lat_max, lat_avg;
	/* incast */
	uint32_t nb_flows;
	struct perf_flow flow[PERF_MAX_PEERS];
	double jain;             /* Jain fairness of the flows' goodput */
	bool stopped;            /* ended by a stop command */
	/* --pdcs (pdcs.c) */
	struct perf_pdcs {
		uint32_t n;          /* --pdcs (0: not given) */
		uint32_t burst;      /* --pdc-burst (1: one message each) */
		uint32_t open_a;     /* initiator PDCs at A after the run */
		uint32_t open_b;     /* target PDCs at B after the run */
		uint32_t close_asked; /* uet_pds_pdc_close() accepted */
		uint64_t opened;     /* initiator PDCs A opened in the run */
		uint64_t idle_closed; /* ... and closed in the run (idle) */
		bool all_closed;     /* none left on A or B afterwards */
		size_t bytes_a, bytes_b; /* uet_pds_pdc_bytes() */
		uint64_t rss0;       /* RSS once the engines were made */
		uint64_t rss_delta;  /* RSS the run added */
		double close_s;      /* closing them all */
	} pdcs;
	/* --ulp ses */
	struct perf_ses {
		bool on;
		uint8_t op;              /* enum perf_op */
		bool tagged;
		bool payload_checked;    /* every byte (--verify) */
		struct ses_driver_counters drv;
		/* SES + glue counters of initiator (A) and target (B) */
		struct perf_ses_side {
			uint64_t wr_submitted, wr_eagain, msg_ok, msg_err;
			uint64_t frag_tx, frag_rebuilt, rx_bad, cq_overflow;
			uint64_t unexp_drop, ret_tx, ret_rx, rdv_tx;
			uint64_t sqe, sqe_held, sqe_rejected, rqe;
			uint64_t rqe_rejected, cqe, cq_wait;
			uint64_t tx_ref, msg_tx_wait; /* zero-copy TX */
			uint64_t rx_split, rx_flat; /* chained frames RX */
		} ini, tgt;
	} ses;
};

/* ------------------------------------------------------------------ */
/* modes: one engine per benchmark (testpmd's struct fwd_engine)       */
/* ------------------------------------------------------------------ */

struct perf_sess;

/*
 * How the engines of an in-process run are joined (session.c): a pair of
 * ring ports back to back, or N senders through a software switch. The
 * mode names one; the session calls it and nothing else decides.
 */
struct perf_topology {
	/* senders of a run with @p o */
	unsigned int (*senders)(const struct perf_opts *o);
	/* ring ports of @p senders senders (made once per process, emptied
	 * of an earlier run's frames): 0 or -errno */
	int (*ports)(unsigned int senders);
	const char *receiver_dev; /* the receiver's port (10.0.0.2) */
	/* port, address and MAC of sender @p i */
	void (*sender)(unsigned int i, char *dev, size_t len, uint8_t ip[4],
		       uint8_t mac[6]);
	/* --count (and the default count) is per sender, not in all */
	bool count_per_sender;
	/* --ulp raw: what the topology adds to a sender's @p tx and the
	 * receiver's @p rx parameters (NULL: nothing) */
	void (*raw_traffic)(unsigned int senders, struct test_ulp_params *tx,
			    struct test_ulp_params *rx);
	/* once per loop turn after the engines' polls (NULL: none) */
	void (*pump)(struct perf_sess *s);
	/* --ulp raw, at the end: the senders' and the receiver's results
	 * into the report (tx, rx, per-flow numbers) */
	void (*results)(struct perf_sess *s);
	/* its own counters for --verbose and show stats (NULL: none) */
	void (*counters_print)(const struct perf_sess *s, FILE *f);
};

extern const struct perf_topology perf_topology_pair;
extern const struct perf_topology perf_topology_switch;

/*
 * One benchmark, chosen once by --mode: its defaults and the options it
 * takes, the topology of its in-process engines, the traffic it asks of
 * the test ULP or of the SES driver (they submit and complete; the mode
 * chooses the shape: a one-way stream, or ping-pong), what it derives
 * from the results and how it prints them. Callbacks may be NULL (none)
 * but print.
 */
struct perf_mode {
	const char *name;
	bool in_all;             /* one of --mode all */
	bool alone;              /* not in a --mode list */
	bool takes_op;           /* --op chooses its SES operation */
	bool takes_peers;        /* --peers sets its senders */
	uint32_t def_size;
	uint64_t def_count;
	uint32_t def_window;
	uint32_t def_loss_ppm;   /* on A's transmitted data */
	uint32_t def_ses_window; /* --ulp ses: operations in flight */
	const struct perf_topology *topology; /* in-process runs */
	/* NULL when @p o can run it, else why, with *@p flag the option
	 * named (command line and `set` at the prompt) */
	const char *(*refuse)(const struct perf_opts *o, const char **flag);
	/* --ulp raw: a sender's @p tx and the receiver's @p rx parameters,
	 * set for a one-way stream (tx->count messages) on entry */
	void (*raw_traffic)(struct test_ulp_params *tx,
			    struct test_ulp_params *rx);
	/* --ulp ses: @p p, set for a stream of sends on entry */
	void (*ses_traffic)(const struct perf_opts *o,
			    struct ses_driver_params *p);
	const char *ses_refusal; /* not over the SES: why (NULL: it runs) */
	/* the results are in: derived numbers, before verification */
	void (*report)(struct perf_report *r);
	void (*print)(const struct perf_report *r, FILE *f);
};


/* ------------------------------------------------------------------ */
/* statistics: live lines and CSV time series (stats.c)                */
/* ------------------------------------------------------------------ */

/* Cumulative counters of a run at one instant. */
struct perf_sample {
	uint64_t msgs;           /* messages delivered */
	uint64_t bytes;          /* message bytes delivered */
	uint64_t retx;           /* retransmissions */
	uint64_t drops;          /* frames dropped (faults, full queues) */
	uint64_t cqe_err;        /* --ulp ses: completions in error */
	uint64_t ses_frags;      /* --ulp ses: fragments handed to the PDS */
	/* the first sender's first PDC: congestion window (nominal bytes
	 * with NSCC, the fixed window otherwise) and smoothed RTT (0: none) */
	uint32_t cwnd;
	uint32_t srtt_ns;
};

struct perf_sampler {
	FILE *live;              /* live lines (NULL: none) */
	FILE *csv;               /* CSV rows (NULL: none) */
	const char *mode;
	uint64_t hz, period, t0, next;
	struct perf_sample last;
	uint64_t last_tsc;
	bool ses;                /* SES fields on live lines */
	bool csv_ses;            /* the CSV header has the SES columns */
};

/* cwnd and srtt_ns of @p out: the first initiator PDC of engine @p e's
 * first context (0 without one). */
void perf_sample_cc(struct uet_engine *e, struct perf_sample *out);

/* Write the CSV header line (@p ses: with the SES columns). */
void perf_csv_header(FILE *f, bool ses);
/* Start sampling at @p t0 every @p interval_ms (0: never). */
void perf_sampler_init(struct perf_sampler *s, FILE *live, FILE *csv,
		       uint32_t interval_ms, const char *mode, uint64_t t0,
		       bool ses, bool csv_ses);
/* A live line / CSV row when the period elapsed (or @p force). */
void perf_sampler_tick(struct perf_sampler *s, uint64_t now,
		       const struct perf_sample *cur, bool force);

/* ------------------------------------------------------------------ */
/* in-process runs (session.c): batch, interactive and incast          */
/* ------------------------------------------------------------------ */

struct perf_sess;

/*
 * Set up @p m with @p o in this process: ring ports (once), one sender
 * and one receiver engine (incast: o->peers senders through a software
 * switch), the raw-PDS ULP on each. EAL must be up.
 * @return the session or NULL (setup failure, message printed).
 */
struct perf_sess *perf_sess_begin(const struct perf_mode *m,
				  const struct perf_opts *o,
				  struct perf_report *r);
/* Poll the engines for a slice (about 1 ms); false once finished. */
bool perf_sess_step(struct perf_sess *s);
/* Submit no new message; outstanding ones finish. */
void perf_sess_stop(struct perf_sess *s);
/* Drain, fill the report (results, rates, verification). */
void perf_sess_end(struct perf_sess *s);
/* Free the engines and state; NULL: no-op. */
void perf_sess_free(struct perf_sess *s);
/* Engines of the session (interactive show): 0 receiver, 1.. senders. */
struct uet_engine *perf_sess_engine(struct perf_sess *s, unsigned int i);
unsigned int perf_sess_nb_engines(const struct perf_sess *s);
/* Print engine, hook and PDS counters of every engine to @p f. */
void perf_sess_counters_print(struct perf_sess *s, FILE *f);

/* --pdcs (pdcs.c): the raw ULP's job base (a PDC per job) */
#define PERF_TEST_ULP_JOB 0x42
#define PERF_MAX_PDCS 65536u
#define PERF_MAX_PDC_BURST 4096u /* --pdc-burst: a transmit window */
/* 0, or -EINVAL: --pdcs N > 1 needs --mode msgrate, --ulp raw, in process */
int perf_pdcs_opts_check(const struct perf_opts *o);
/* 0, or -ERANGE (printed, naming the [engine] keys): @p cfg's PDS holds
 * fewer than --pdcs PDCs per role */
int perf_pdcs_cfg_check(const struct perf_opts *o,
			const struct uet_config *cfg);
uint64_t perf_rss_bytes(void);
/* The process's peak resident memory so far (getrusage). */
uint64_t perf_rss_peak_bytes(void);
/* After the run: count, close every PDC and poll until none is left. */
void perf_pdcs_finish(struct perf_sess *s, const struct perf_opts *o,
		      const uint8_t *ip_b, struct perf_report *r);
void perf_pdcs_print(const struct perf_report *r, FILE *f);
json_t *perf_pdcs_json(const struct perf_report *r);

/* Begin, step until done, end, free: 0 or -errno (setup failure). */
int perf_run(const struct perf_mode *m, const struct perf_opts *o,
	     struct perf_report *r);

/* interactive prompt (cli.c): @return exit code. */
int perf_cli_main(struct perf_opts *o);

/* modes.c: the modes, one file each, in --mode order: PERF_MODES(X) is
 * X(name) for each, defined by meson.build's perf_mode_names */
extern const struct perf_mode *const perf_modes[];
#define PERF_MODE_ONE(name) + 1u
#define PERF_NB_MODES (0u PERF_MODES(PERF_MODE_ONE))
/* Index of mode @p name (@p len characters) in perf_modes, or -EINVAL. */
int perf_mode_find(const char *name, size_t len);
/* The modes' names (@p in_all: of --mode all) in table order, joined by
 * @p sep, into @p buf (@p n > 0 bytes): @return buf. For --help, etc. */
char *perf_mode_names(char *buf, size_t n, const char *sep, bool in_all);
/* The modes of @p o->modes, counted. */
unsigned int perf_modes_count(const struct perf_opts *o);
/* The modes of --mode all (a perf_opts.modes set). */
unsigned int perf_modes_all(void);
/* @p p: the SES operations of mode @p m with @p o, @p size bytes each,
 * @p window in flight (the mode may change them), count 0. */
void perf_ses_traffic(const struct perf_mode *m, const struct perf_opts *o,
		      uint32_t size, uint32_t window,
		      struct ses_driver_params *p);
/* NULL when @p m can run over @p o->ulp with @p o, else why not. */
const char *perf_ses_unsupported(const struct perf_mode *m,
				 const struct perf_opts *o);
/* --op given (or set op typed), for perf_settings_conflict() */
#define PERF_SET_OP 1u
/*
 * Test settings that cannot run together (@p o->modes the tests, @p
 * given PERF_SET_OP or 0), with one set of rules for the command line
 * and for each `set` at the prompt (o->interactive: the settings of the
 * next runs, some of which apply to one test only): NULL, or the reason,
 * with *@p flag the option it names.
 */
const char *perf_settings_conflict(const struct perf_opts *o,
				   unsigned int given, const char **flag);
/* @p r zeroed, with the size, count, window and loss of mode @p m with
 * @p o (@p def_loss: the loss when @p o sets none). */
void perf_report_init(struct perf_report *r, const struct perf_mode *m,
		      const struct perf_opts *o, uint32_t def_loss);

/* options.c: the command line into @p o; 0, 1 (--help: exit 0) or 2
 * (usage error, printed). */
int perf_parse_args(int argc, char **argv, struct perf_opts *o);
/* options.c and main.c helpers shared with twoproc.c and cli.c */
const char *perf_pds_name(uint8_t m);
const char *perf_fault_name(unsigned int kind);
int perf_parse_pds(const char *s, uint8_t *out);
/* --spray / set spray: single, oblivious, reps */
int perf_parse_spray(const char *s, int *out);
const char *perf_spray_name(int m);
/* @p o's spray mode on @p c, checked with the rest of @p c: 0, or
 * -EINVAL with the reason printed (e.g. too few EVs to spray). */
int perf_spray_apply(const struct perf_opts *o, struct uet_config *c);
bool perf_config_sets(const struct perf_opts *o, const char *section,
		      const char *key);
/* --cc / set cc: fixed | nscc | rccc | nscc+rccc; 0 or -EINVAL. */
int perf_parse_cc(const char *s, int *out);
const char *perf_cc_name(int cc);
/* Apply --cc to @p cfg and check the [cc] it gives; 0 or -EINVAL
 * (printed). */
int perf_cc_apply(const struct perf_opts *o, struct uet_config *cfg);
/* NULL when @p r holds the guarantees of PDS mode @p pds, else the first
 * check that failed, in words. */
const char *perf_verify_why(const struct perf_report *r, uint8_t pds);
bool perf_verify(const struct perf_report *r, uint8_t pds);
/* json.c: the report of one test as a JSON object (NULL: no memory). */
json_t *perf_json_report(const struct perf_report *r);
/* json.c: @p doc on one line of stdout, then released; 0 or -errno
 * (printed; a NULL @p doc is -ENOMEM). */
int perf_json_print(json_t *doc);
/* --ulp ses: one line of SES counters (nothing for raw runs). */
void perf_ses_print(const struct perf_report *r, FILE *f);
void perf_wire_print(const struct perf_report *r, FILE *f);
/* "  verified: yes", or NO and why (r->why_not). */
void perf_verified_print(const struct perf_report *r, FILE *f);
/* Unit of the window: "pkts" (raw) or "ops" (ses). */
static inline const char *
perf_window_unit(const struct perf_report *r)
{
	return r->ses.on ? "ops" : "pkts";
}

/* ------------------------------------------------------------------ */
/* two processes: control connection (ctl.c) and roles (twoproc.c)     */
/* ------------------------------------------------------------------ */

#define PERF_CTL_PORT 47592      /* default control port */
#define PERF_CTL_LINE 1024       /* longest control line */

struct perf_ctl {
	int fd;
	bool skip;               /* dropping an over-long line to its end */
	size_t len;
	char buf[4 * PERF_CTL_LINE];
};

/* 0 when @p spec is [ADDR:]PORT (listen, ADDR numeric) or HOST[:PORT]
 * (peer, HOST resolves); -EINVAL (syntax), -EHOSTUNREACH (host). */
int perf_ctl_check_spec(const char *spec, bool listen);
int perf_ctl_listen(const char *spec, int *lfd, uint16_t *bound);
/* Wait for a client / retry a connection until @p timeout_ms, or until
 * *@p stop is set (a signal handler's flag; NULL: none): -EINTR. */
int perf_ctl_accept(int lfd, struct perf_ctl *c, int timeout_ms,
		    const volatile sig_atomic_t *stop);
int perf_ctl_connect(const char *spec, struct perf_ctl *c, int timeout_ms,
		     const volatile sig_atomic_t *stop);
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

/* stats.c: loss recovery of a sender's PDS @p p added to @p rec. */
void perf_recovery_add(struct perf_recovery *rec,
		       const struct uet_pds_stats *p);
/* stats.c: @p a -= @p b, field by field (the recovery of one run). */
void perf_recovery_sub(struct perf_recovery *a, const struct perf_recovery *b);
/* stats.c: frames the port of @p e lost (imissed + oerrors + nombuf). */
uint64_t perf_port_drops(struct uet_engine *e);

/* fabric.c: check the --fabric options and configuration (EAL not
 * needed): 0, or 2 with the error printed. */
int perf_fabric_check(struct perf_opts *o);
/* fabric.c: one run over the emulated fabric; exit code 0, 1 or 2. */
int perf_fabric_main(const struct perf_opts *o);

/* twoproc.c: run the role of @p o; exit code 0, 1 or 2. */
int perf_twoproc_main(const struct perf_opts *o);

#endif /* UET_PERF_H */
