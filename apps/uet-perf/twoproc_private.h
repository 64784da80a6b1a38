/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * uet-perf in two processes (twoproc.c, twoproc_server.c,
 * twoproc_client.c): the state of one side and what its parts share.
 */

#ifndef UET_PERF_TWOPROC_PRIVATE_H
#define UET_PERF_TWOPROC_PRIVATE_H

#include <signal.h>
#include <stdatomic.h>

#include "perf.h"

#define TWOPROC_VERSION 1
#define TWOPROC_JOB 0x42
#define TWOPROC_DRAIN_MS 20
#define TWOPROC_MAX_RUNS 8            /* RUNs a server serves a session */
#define TWOPROC_MAX_REFUSED 16        /* control lines refused: it ends */
#define TWOPROC_LINGER_MS 500         /* peer's port going down after BYE */
#define TWOPROC_CTL_CHECK_US 200      /* control socket look, busy polling */

/* The proxy ULP: forwards to the test ULP of the current run (or none). */
struct twoproc_slot {
	_Atomic(struct test_ulp *) want; /* set by the control thread */
	atomic_uint_fast64_t gen;     /* bumped with want */
	atomic_uint_fast64_t gen_seen; /* engine thread switched to gen */
	atomic_bool finished;         /* test_ulp_send_finished(cur) */
	atomic_uint_fast64_t stray;   /* deliveries outside a run */
	struct test_ulp *cur;             /* engine thread's view */
	uint64_t cur_gen;
	struct uet_ulp_ctx *ctx;
};

/* One side of the session. */
struct twoproc {
	const struct perf_opts *o;
	struct uet_config cfg;
	struct uet_engine *e;
	struct twoproc_slot slot;
	struct perf_ctl ctl;
	bool inline_mode;
	bool eal_up;
	uint32_t loss_ppm;
	uint8_t fa[4], mac[6];
	uint8_t peer_fa[4], peer_mac[6];
	/* server: control lines refused (bad RUN, RUN before HELLO, too
	 * long, too many runs), each answered with ERR naming the reason */
	uint64_t refused;
	/* server: what each run received, for --json */
	unsigned int nb_runs;
	struct twoproc_run {
		char mode[16];
		uint8_t pds;
		struct test_ulp_result res;
		uint64_t acks;
	} run[TWOPROC_MAX_RUNS];
};

/* Engine counters of one side, for per-run deltas. */
struct twoproc_counters {
	uint64_t retx, dup_rx, faults, tx_frames, ctl, stray;
	struct perf_recovery rec; /* this side's PDS */
};

/* SIGINT / SIGTERM seen: every loop of either role ends. */
extern volatile sig_atomic_t twoproc_stop;

/* Give the engine @p r (NULL: none) and wait until its thread took it. */
int twoproc_swap(struct twoproc *t, struct test_ulp *r);
/* The engine of this side on its port (EAL first): 0 or -errno. */
int twoproc_engine(struct twoproc *t);
/* Poll (inline) or sleep for about @p ms. */
void twoproc_idle(struct twoproc *t, unsigned int ms);
/*
 * One turn of a loop that runs the engine and watches the control socket:
 * polls the engine (inline) and says whether to look at the socket now,
 * and for how long (@p us, the ppoll() timeout). It waits there when the
 * engine runs on its lcore (1 ms) or when an idle inline poll should
 * sleep (--idle-sleep-us); a busy-polling loop looks every
 * TWOPROC_CTL_CHECK_US of TSC only, since a ppoll() on every idle iteration
 * was tens of thousands of syscalls a second on the data path's core
 * (strace -c of a bw run over net_af_packet), each one delaying the next
 * rx burst.
 */
bool twoproc_turn(struct twoproc *t, uint64_t *next, unsigned int *us);
/*
 * Next control line within @p ms while the engine keeps running. With
 * @p watch, also -ETIME when its traffic makes no progress for
 * --ctl-timeout: a peer that stopped (SIGSTOP, a hang) is detected in
 * that time, not after the whole run limit.
 */
int twoproc_wait_line_watch(struct twoproc *t, char *line, size_t n,
			    uint64_t ms, const struct test_ulp *watch);
int twoproc_wait_line(struct twoproc *t, char *line, size_t n, uint64_t ms);
/* The engine and port of @p t closed (EAL left up). */
void twoproc_free(struct twoproc *t);
int twoproc_link_up(struct twoproc *t);
int twoproc_neigh(struct twoproc *t);
void twoproc_counters(struct twoproc *t, struct twoproc_counters *c);
/* @p a -= @p b: the counters of one run. */
void twoproc_counters_sub(struct twoproc_counters *a,
			  const struct twoproc_counters *b);
int twoproc_send_hello(struct twoproc *t);
/* Check the peer's HELLO; @return 0 or -EPROTO with @p why. */
int twoproc_parse_hello(struct twoproc *t, const char *line,
			const char **why);
/* The peer's HELLO @p line checked, then its neighbour entry and our link:
 * 0, or 1 with the reason printed and sent to the peer as ERR. @p peer and
 * @p self name the two roles in the messages ("client", "server"). */
int twoproc_accept_hello(struct twoproc *t, const char *line,
			 const char *peer, const char *self);
const char *twoproc_strerror(int rc);
/* One line; nothing for -ECANCELED (the peer's ERR line was printed). */
void twoproc_ctl_err(const char *what, int rc);
/* The peer sent ERR: print it. */
bool twoproc_peer_err(const char *line);
/* The roles (twoproc_server.c, twoproc_client.c): exit code 0, 1, 2. */
int twoproc_server_main(struct twoproc *t);
/*
 * Connect first, then make the engine: the server's port exists by then
 * (a memif client port needs the server's socket to start).
 */
int twoproc_client_main(struct twoproc *t);

#endif /* UET_PERF_TWOPROC_PRIVATE_H */
