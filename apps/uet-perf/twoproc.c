/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * uet-perf in two processes (or hosts): --role server | client. Each
 * process runs one engine on the port of its --config; a TCP control
 * connection (ctl.c) exchanges addresses and drives the test:
 *
 *   client                                  server
 *   HELLO v fa mac udp job        ->
 *                                 <-        HELLO v fa mac udp job
 *   (static neighbour each side, wait for link up)
 *   RUN mode pds size count window dur_us -> (receiver armed)
 *                                 <-        READY
 *   ... traffic over the engines ...
 *   FIN sent complete             ->        (own sends finished, drain)
 *                                 <-        RESULT <counters>
 *   (RUN ... for every mode)
 *   BYE verified                  ->
 *                                 <-        BYE
 *
 * Either side answers a problem with "ERR reason" and closes. The raw-PDS
 * ULP (test_ulp.c) of a run is swapped in behind a proxy ULP, so the engine
 * (and the port: a memif connection, a socket) lives for the session.
 */

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <sys/prctl.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>

#include "perf.h"

#define TWOPROC_VERSION 1
#define TWOPROC_JOB 0x42
#define TWOPROC_DRAIN_MS 20
#define TWOPROC_MAX_RUNS 8            /* RUNs remembered by the server */
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
};

static volatile sig_atomic_t twoproc_stop;

static void
on_signal(int sig)
{
	(void)sig;
	twoproc_stop = 1;
}

/* ------------------------------------------------------------------ */
/* proxy ULP                                                           */
/* ------------------------------------------------------------------ */

static int
slot_init(struct uet_ulp_ctx *ctx, void *arg, void **priv)
{
	struct twoproc_slot *s = arg;

	s->ctx = ctx;
	*priv = s;
	return 0;
}

static void
slot_fini(struct uet_ulp_ctx *ctx, void *priv)
{
	(void)ctx;
	(void)priv;
}

static int
slot_build(void *priv, uint64_t cookie, uint32_t psn, bool is_retx,
	   uint8_t *buf, size_t cap)
{
	struct twoproc_slot *s = priv;

	if (s->cur == NULL)
		return -ENOENT; /* a packet of a finished run: not sent */
	return test_ulp_ops.build(s->cur, cookie, psn, is_retx, buf, cap);
}

/* Deliveries of no run are strays; completions of no run are dropped. */
static void
slot_event(void *priv, struct uet_ulp_ctx *ctx,
	   const struct uet_pds_event *ev, const uint8_t *ses, uint16_t len)
{
	struct twoproc_slot *s = priv;

	if (s->cur != NULL)
		test_ulp_ops.event(s->cur, ctx, ev, ses, len);
	else if (ev->type == UET_PDS_EV_DELIVER)
		atomic_fetch_add_explicit(&s->stray, 1, memory_order_relaxed);
}

/* Once per iteration on the engine thread: follow the control thread. */
static unsigned int
slot_poll(void *priv, struct uet_ulp_ctx *ctx, uint64_t now)
{
	struct twoproc_slot *s = priv;
	uint64_t g = atomic_load_explicit(&s->gen, memory_order_acquire);
	unsigned int work = 0;

	if (g != s->cur_gen) {
		s->cur = atomic_load_explicit(&s->want, memory_order_relaxed);
		s->cur_gen = g;
	}
	if (s->cur != NULL)
		work = test_ulp_ops.poll(s->cur, ctx, now);
	atomic_store_explicit(&s->finished,
			      s->cur != NULL && test_ulp_send_finished(s->cur),
			      memory_order_relaxed);
	atomic_store_explicit(&s->gen_seen, g, memory_order_release);
	return work;
}

static const struct uet_ulp_ops slot_ops = {
	.size = sizeof(struct uet_ulp_ops),
	.name = "rawpds-2p",
	.init = slot_init,
	.fini = slot_fini,
	.build = slot_build,
	.event = slot_event,
	.poll = slot_poll,
};

/* Give the engine @p r (NULL: none) and wait until its thread took it. */
static int
twoproc_swap(struct twoproc *t, struct test_ulp *r)
{
	uint64_t g, end = rte_rdtsc() + rte_get_tsc_hz() * 5;

	atomic_store_explicit(&t->slot.want, r, memory_order_relaxed);
	g = atomic_fetch_add_explicit(&t->slot.gen, 1,
				      memory_order_release) + 1;
	while (atomic_load_explicit(&t->slot.gen_seen,
				    memory_order_acquire) != g) {
		if (rte_rdtsc() > end)
			return -ETIMEDOUT;
		if (t->inline_mode)
			(void)uet_engine_poll(t->e, 1);
		else
			usleep(50);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* engine                                                              */
/* ------------------------------------------------------------------ */

static int
twoproc_config(struct twoproc *t)
{
	const struct perf_opts *o = t->o;
	struct uet_config *c = &t->cfg;
	struct uet_config_error err;
	struct uet_config_port *p = &c->port[0];

	uet_config_init_defaults(c);
	if (uet_config_load(c, o->config, &err) < 0 ||
	    uet_config_validate(c, &err) < 0) {
		fprintf(stderr, "uet-perf: %s\n", err.msg);
		return -EINVAL;
	}
	if (uet_config_nb_ports(c) != 1 || !p->has_ipv4) {
		fprintf(stderr, "uet-perf: %s: two-process mode needs exactly "
			"one port ([port0]) with an ipv4 FA\n", o->config);
		return -EINVAL;
	}
	/* one engine lcore, one queue pair: a setting for more would do
	 * nothing here, so it is refused */
	if (p->rx_queues != 1 || p->tx_queues != 1) {
		fprintf(stderr, "uet-perf: %s: two-process mode runs one queue "
			"pair: [port0] rx_queues %u, tx_queues %u (leave them "
			"out)\n", o->config, p->rx_queues, p->tx_queues);
		return -EINVAL;
	}
	if (o->eal_args != NULL) /* EAL options before "--" */
		snprintf(c->eal.args, sizeof(c->eal.args), "%s", o->eal_args);
	if (o->progress >= 0)
		c->engine.progress = (enum uet_config_progress)o->progress;
	if (perf_spray_apply(o, c) < 0)
		return -EINVAL;
	if (o->capture != NULL)
		snprintf(c->engine.capture, sizeof(c->engine.capture), "%s",
			 o->capture);
	if (perf_cc_apply(o, c) < 0)
		return -EINVAL;
	if (c->engine.nb_lcores == 0)
		c->engine.progress = UET_CONFIG_PROGRESS_INLINE;
	/* one context: the proxy ULP is one traffic source */
	if (c->engine.nb_lcores > 1)
		c->engine.nb_lcores = 1;
	t->inline_mode = c->engine.progress == UET_CONFIG_PROGRESS_INLINE;
	if (o->role == PERF_ROLE_CLIENT && o->loss_ppm > 0) {
		t->loss_ppm = (uint32_t)o->loss_ppm;
		c->fault.enabled = true;
		c->fault.seed = o->seed;
		c->fault.ppm[UET_CONFIG_FAULT_TX][UET_CONFIG_FAULT_DATA]
			    [UET_CONFIG_FAULT_DROP] = t->loss_ppm;
	}
	memcpy(t->fa, &p->ipv4, 4);
	return 0;
}

static int
twoproc_engine(struct twoproc *t)
{
	struct uet_proto_params pp = { .ulp = &slot_ops, .ulp_arg = &t->slot };
	struct uet_engine_params ep = {
		.cfg = &t->cfg, .hook = &uet_proto_hook_ops, .hook_arg = &pp,
		.name = t->o->role == PERF_ROLE_SERVER ? "perf-srv" : "perf-cli",
	};
	struct rte_ether_addr mac;
	int rc;

	rc = uet_engine_eal_init("uet-perf", t->cfg.eal.args, NULL);
	if (rc < 0) {
		fprintf(stderr, "uet-perf: EAL init: %s\n", strerror(-rc));
		return rc;
	}
	t->eal_up = true;
	t->e = uet_engine_create(&ep);
	if (t->e == NULL) {
		fprintf(stderr, "uet-perf: engine: %s\n",
			rte_strerror(rte_errno));
		return -rte_errno;
	}
	if (t->cfg.port[0].has_mac) {
		memcpy(t->mac, t->cfg.port[0].mac, 6);
	} else {
		rc = rte_eth_macaddr_get(uet_engine_port_id(t->e, 0), &mac);
		if (rc < 0)
			return rc;
		memcpy(t->mac, mac.addr_bytes, 6);
	}
	rc = uet_engine_start(t->e);
	if (rc < 0)
		fprintf(stderr, "uet-perf: engine start: %s\n", strerror(-rc));
	return rc;
}

/* Poll (inline) or sleep for about @p ms. */
static void
twoproc_idle(struct twoproc *t, unsigned int ms)
{
	uint64_t end = rte_rdtsc() + rte_get_tsc_hz() / 1000 * ms;

	while (rte_rdtsc() < end) {
		if (!t->inline_mode) {
			usleep(1000);
		} else if (uet_engine_poll(t->e, 32) == 0 &&
			   t->o->idle_sleep_us) {
			usleep(t->o->idle_sleep_us);
		}
	}
}

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
static bool
twoproc_turn(struct twoproc *t, uint64_t *next, unsigned int *us)
{
	uint64_t now;

	*us = 0;
	if (!t->inline_mode) {
		*us = 1000;
		return true;
	}
	if (uet_engine_poll(t->e, 32) == 0 && t->o->idle_sleep_us != 0) {
		*us = t->o->idle_sleep_us;
		return true;
	}
	now = rte_rdtsc();
	if (now < *next)
		return false;
	*next = now + rte_get_tsc_hz() / 1000000 * TWOPROC_CTL_CHECK_US;
	return true;
}

/*
 * Next control line within @p ms while the engine keeps running. With
 * @p watch, also -ETIME when its traffic makes no progress for
 * --ctl-timeout: a peer that stopped (SIGSTOP, a hang) is detected in
 * that time, not after the whole run limit.
 */
static int
wait_line_watch(struct twoproc *t, char *line, size_t n, uint64_t ms,
		const struct test_ulp *watch)
{
	uint64_t hz = rte_get_tsc_hz(), now = rte_rdtsc();
	uint64_t end = now + hz / 1000 * ms;
	uint64_t stall = hz / 1000 * t->o->ctl_timeout_ms, last_tsc = now;
	uint64_t act, last_act = watch != NULL ? test_ulp_activity(watch) : 0;
	uint64_t next = 0;

	while (!twoproc_stop) {
		unsigned int us;
		int rc;

		if (!twoproc_turn(t, &next, &us))
			continue;
		rc = perf_ctl_poll_line(&t->ctl, line, n, us);
		if (rc != 0)
			return rc < 0 ? rc : 0;
		now = rte_rdtsc();
		if (now > end)
			return -ETIMEDOUT;
		if (watch == NULL)
			continue;
		act = test_ulp_activity(watch);
		if (act != last_act) {
			last_act = act;
			last_tsc = now;
		} else if (now - last_tsc > stall) {
			return -ETIME;
		}
	}
	return -EINTR;
}

static int
wait_line(struct twoproc *t, char *line, size_t n, uint64_t ms)
{
	return wait_line_watch(t, line, n, ms, NULL);
}

static int
twoproc_link_up(struct twoproc *t)
{
	uint64_t end = rte_rdtsc() + rte_get_tsc_hz() / 1000 *
		       t->o->ctl_timeout_ms;
	struct rte_eth_link link;

	for (;;) {
		if (rte_eth_link_get_nowait(uet_engine_port_id(t->e, 0),
					    &link) == 0 && link.link_status)
			return 0;
		if (rte_rdtsc() > end || twoproc_stop)
			return -ENETDOWN;
		twoproc_idle(t, 10);
	}
}

static int
twoproc_neigh(struct twoproc *t)
{
	uint8_t a[16] = { 0 };
	int rc;

	if (t->o->arp)
		return 0;
	memcpy(a, t->peer_fa, 4);
	for (unsigned int i = 0; i < 1000; i++) {
		rc = uet_engine_neigh_add(t->e, 4, a, t->peer_mac);
		if (rc != -ENOSPC)
			return rc;
		twoproc_idle(t, 1);
	}
	return -ENOSPC;
}

static void
twoproc_counters(struct twoproc *t, struct twoproc_counters *c)
{
	static struct uet_engine_stats st;
	struct uet_ulp_ctx *ctx = t->slot.ctx;
	const struct uet_pds_stats *p = uet_pds_stats_get(uet_ulp_ctx_pds(ctx));
	const struct uet_ulp_stats *u = uet_ulp_ctx_stats(ctx);

	(void)uet_engine_stats_get(t->e, &st);
	c->retx = u->tx_retx;
	c->ctl = u->tx_ctl;
	c->dup_rx = p->dup_rx;
	c->faults = st.total.fault[UET_CONFIG_FAULT_TX]
			.applied[UET_CONFIG_FAULT_DROP];
	c->tx_frames = st.total.tx_pkts;
	c->stray = atomic_load_explicit(&t->slot.stray, memory_order_relaxed);
}

static void
counters_sub(struct twoproc_counters *a, const struct twoproc_counters *b)
{
	a->retx -= b->retx;
	a->ctl -= b->ctl;
	a->dup_rx -= b->dup_rx;
	a->faults -= b->faults;
	a->tx_frames -= b->tx_frames;
	a->stray -= b->stray;
}

static void
twoproc_free(struct twoproc *t)
{
	if (t->e != NULL) {
		(void)uet_engine_stop(t->e);
		uet_engine_free(t->e);
		t->e = NULL;
	}
}

/* ------------------------------------------------------------------ */
/* address exchange                                                    */
/* ------------------------------------------------------------------ */

static int
send_hello(struct twoproc *t)
{
	char fa[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, t->fa, fa, sizeof(fa));
	return perf_ctl_send(&t->ctl, (int)t->o->ctl_timeout_ms,
			     "HELLO v=%u fa=%s mac=%02x:%02x:%02x:%02x:%02x:%02x"
			     " udp=%u job=%u mtu=%u", TWOPROC_VERSION, fa,
			     t->mac[0], t->mac[1], t->mac[2], t->mac[3],
			     t->mac[4], t->mac[5], t->cfg.port[0].udp_port,
			     TWOPROC_JOB, t->cfg.port[0].mtu);
}

/* Check the peer's HELLO; @return 0 or -EPROTO with @p why. */
static int
parse_hello(struct twoproc *t, const char *line, const char **why)
{
	struct uet_parse_err err;
	struct in_addr ia;
	char v[64];
	uint64_t x;

	*why = "not a HELLO";
	if (!perf_verb(line, "HELLO"))
		return -EPROTO;
	*why = "protocol version differs";
	if (!perf_kv_u64(line, "v", &x) || x != TWOPROC_VERSION)
		return -EPROTO;
	*why = "bad fa";
	if (!perf_kv(line, "fa", v, sizeof(v)) ||
	    uet_parse_ipv4(v, &ia, &err) < 0)
		return -EPROTO;
	memcpy(t->peer_fa, &ia, 4);
	*why = "same fa on both sides";
	if (memcmp(t->peer_fa, t->fa, 4) == 0)
		return -EPROTO;
	*why = "bad mac";
	if (!perf_kv(line, "mac", v, sizeof(v)) ||
	    uet_parse_mac(v, t->peer_mac, &err) < 0)
		return -EPROTO;
	*why = "udp port differs";
	if (!perf_kv_u64(line, "udp", &x) || x != t->cfg.port[0].udp_port)
		return -EPROTO;
	*why = "job differs";
	if (!perf_kv_u64(line, "job", &x) || x != TWOPROC_JOB)
		return -EPROTO;
	*why = "mtu differs";
	if (!perf_kv_u64(line, "mtu", &x) || x != t->cfg.port[0].mtu)
		return -EPROTO;
	return 0;
}

static const char *
twoproc_strerror(int rc)
{
	return rc == -ETIMEDOUT ? "timed out (--ctl-timeout)" :
	       rc == -ECONNRESET ? "peer closed the connection" :
	       rc == -ETIME ? "no traffic progress within --ctl-timeout "
			      "(peer stopped or hung, or data path down: "
			      "addresses, MACs, link)" :
	       strerror(-rc);
}

/* One line; nothing for -ECANCELED (the peer's ERR line was printed). */
static void
ctl_err(const char *what, int rc)
{
	if (rc == -ECANCELED)
		return;
	fprintf(stderr, "uet-perf: control connection: %s: %s\n", what,
		twoproc_strerror(rc));
}

/* The peer sent ERR: print it. */
static bool
peer_err(const char *line)
{
	if (!perf_verb(line, "ERR"))
		return false;
	fprintf(stderr, "uet-perf: peer: %s\n",
		line[3] == ' ' ? line + 4 : line + 3);
	return true;
}

/* ------------------------------------------------------------------ */
/* server                                                              */
/* ------------------------------------------------------------------ */

/* RESULT line: everything the client needs of this side. */
static int
send_result(struct twoproc *t, const struct test_ulp_result *s,
	    const struct twoproc_counters *c)
{
	return perf_ctl_send(&t->ctl, (int)t->o->ctl_timeout_ms,
		"RESULT msgs_sent=%lu done_ok=%lu done_err=%lu rx_pkts=%lu "
		"rx_msgs=%lu rx_bytes=%lu rx_dup=%lu rx_bad=%lu "
		"rx_order_err=%lu rx_lost=%lu pongs=%lu retx=%lu dup_rx=%lu "
		"faults=%lu tx_frames=%lu ctl=%lu stray=%lu",
		(unsigned long)s->msgs_sent, (unsigned long)s->pkts_done_ok,
		(unsigned long)s->pkts_done_err, (unsigned long)s->rx_pkts,
		(unsigned long)s->rx_msgs, (unsigned long)s->rx_bytes,
		(unsigned long)s->rx_dup, (unsigned long)s->rx_bad,
		(unsigned long)s->rx_order_err, (unsigned long)s->rx_lost,
		(unsigned long)s->pongs, (unsigned long)c->retx,
		(unsigned long)c->dup_rx, (unsigned long)c->faults,
		(unsigned long)c->tx_frames, (unsigned long)c->ctl,
		(unsigned long)c->stray);
}

/* Arm the receiver for a RUN line; @return the test ULP or NULL (@p why). */
static struct test_ulp *
server_arm(struct twoproc *t, const char *line, struct test_ulp_params *rp,
	   const char **why)
{
	struct test_ulp_params p;
	char v[32];
	uint64_t x;

	memset(&p, 0, sizeof(p));
	*why = "bad RUN line";
	memcpy(p.peer.addr, t->peer_fa, 4);
	if (!perf_kv(line, "pds", v, sizeof(v)) ||
	    perf_parse_pds(v, &p.mode) < 0)
		return NULL;
	if (!perf_kv_u64(line, "size", &x) || x < 16 || x > (1u << 24))
		return NULL;
	p.size = (uint32_t)x;
	p.expect_size = p.size;
	if (!perf_kv_u64(line, "count", &x) || x == 0 || x > PERF_MAX_COUNT)
		return NULL;
	p.expect = x;
	if (!perf_kv_u64(line, "window", &x) || x == 0 || x > 65536)
		return NULL;
	p.window = (uint32_t)x;
	if (!perf_kv_u64(line, "echo", &x) || x > 1)
		return NULL;
	p.echo = x == 1;
	*rp = p;
	*why = "out of memory";
	return test_ulp_create(&p);
}

/* Serve one RUN: @return 0, or -errno (session over). */
static int
server_run(struct twoproc *t, const char *run)
{
	struct twoproc_counters c0, c1;
	struct test_ulp_params p;
	struct test_ulp_result res;
	struct test_ulp *r;
	const char *why;
	char line[PERF_CTL_LINE], mode[16] = "?";
	uint64_t sent = 0, end, limit_ms;
	int rc;

	r = server_arm(t, run, &p, &why);
	if (r != NULL && (!perf_kv_u64(run, "limit_ms", &limit_ms) ||
			  limit_ms == 0 || limit_ms > 3600ull * 1000)) {
		test_ulp_free(r);
		r = NULL;
		why = "bad RUN line (limit_ms)";
	}
	if (r == NULL) {
		(void)perf_ctl_send(&t->ctl, 1000, "ERR %s", why);
		return -EPROTO;
	}
	(void)perf_kv(run, "mode", mode, sizeof(mode));
	twoproc_counters(t, &c0);
	rc = test_ulp_ops.init(t->slot.ctx, r, &(void *){ NULL });
	if (rc == 0)
		rc = twoproc_swap(t, r);
	if (rc < 0) {
		(void)perf_ctl_send(&t->ctl, 1000, "ERR receiver setup: %s",
				    strerror(-rc));
		goto free_r;
	}
	rc = perf_ctl_send(&t->ctl, (int)t->o->ctl_timeout_ms, "READY");
	if (rc < 0)
		goto swap_out;
	/* the run lasts what the client says, up to its hard limit, as
	 * long as its traffic keeps arriving (the client watches ours) */
	rc = wait_line_watch(t, line, sizeof(line),
			     limit_ms + t->o->ctl_timeout_ms, r);
	if (rc == -ETIME)
		(void)perf_ctl_send(&t->ctl, 1000, "ERR server: no traffic "
				    "progress within --ctl-timeout");
	if (rc == 0 && peer_err(line))
		rc = -ECANCELED;
	else if (rc == 0 && (!perf_verb(line, "FIN") ||
			     !perf_kv_u64(line, "sent", &sent)))
		rc = -EPROTO;
	if (rc < 0)
		goto swap_out;
	/* our own sends (latency pongs) until acknowledged, then drain */
	end = rte_rdtsc() + rte_get_tsc_hz() / 1000 * t->o->ctl_timeout_ms;
	while (!atomic_load_explicit(&t->slot.finished, memory_order_relaxed) &&
	       rte_rdtsc() < end && !twoproc_stop)
		twoproc_idle(t, 1);
	twoproc_idle(t, TWOPROC_DRAIN_MS);
	rc = twoproc_swap(t, NULL);
	if (rc < 0)
		goto free_r;
	test_ulp_expect_trim(r, sent);
	test_ulp_result(r, &res);
	twoproc_counters(t, &c1);
	counters_sub(&c1, &c0);
	rc = send_result(t, &res, &c1);
	if (t->nb_runs < TWOPROC_MAX_RUNS) {
		struct twoproc_run *tr = &t->run[t->nb_runs++];

		snprintf(tr->mode, sizeof(tr->mode), "%s", mode);
		tr->pds = p.mode;
		tr->res = res;
		tr->res.lat_ns = NULL;
		tr->acks = c1.ctl;
	}
	if (!t->o->json)
		printf("server: %s over %s: received %lu msgs (%lu B), lost "
		       "%lu pkts, duplicated %lu, bad %lu, sent %lu msgs, "
		       "ACK frames %lu\n", mode, perf_pds_name(p.mode),
		       (unsigned long)res.rx_msgs, (unsigned long)res.rx_bytes,
		       (unsigned long)res.rx_lost, (unsigned long)res.rx_dup,
		       (unsigned long)res.rx_bad,
		       (unsigned long)res.msgs_sent, (unsigned long)c1.ctl);
	fflush(stdout);
	goto free_r;
swap_out:
	(void)twoproc_swap(t, NULL);
free_r:
	test_ulp_free(r);
	return rc;
}

/* One JSON line: the receiver side of every run and the verdict. */
static void
server_json(const struct twoproc *t, bool verified)
{
	json_t *runs = json_array();

	for (unsigned int i = 0; runs != NULL && i < t->nb_runs; i++) {
		const struct twoproc_run *r = &t->run[i];

		json_array_append_new(runs, json_pack(
			"{s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
			"mode", r->mode, "pds", perf_pds_name(r->pds),
			"rx_msgs", (json_int_t)r->res.rx_msgs,
			"rx_bytes", (json_int_t)r->res.rx_bytes,
			"rx_lost", (json_int_t)r->res.rx_lost,
			"rx_dup", (json_int_t)r->res.rx_dup,
			"rx_bad", (json_int_t)r->res.rx_bad,
			"msgs_sent", (json_int_t)r->res.msgs_sent,
			"acks", (json_int_t)r->acks));
	}
	(void)perf_json_print(json_pack("{s:s, s:s, s:o, s:b}",
					"tool", "uet-perf", "role", "server",
					"runs", runs, "verified", verified));
}

/*
 * After BYE: the client closes its port, then the control connection.
 * Wait for both (bounded) so that our port is not closed while the
 * driver is still handling the peer's disconnect (net_memif does that on
 * its interrupt thread).
 */
static void
server_linger(struct twoproc *t)
{
	char line[PERF_CTL_LINE];
	struct rte_eth_link link;
	uint64_t end;

	while (wait_line(t, line, sizeof(line), t->o->ctl_timeout_ms) == 0)
		; /* nothing more is expected: until EOF or the timeout */
	end = rte_rdtsc() + rte_get_tsc_hz() / 1000 * TWOPROC_LINGER_MS;
	while (rte_rdtsc() < end && !twoproc_stop &&
	       rte_eth_link_get_nowait(uet_engine_port_id(t->e, 0),
				       &link) == 0 && link.link_status)
		twoproc_idle(t, 1);
}

static int
server_session(struct twoproc *t)
{
	char line[PERF_CTL_LINE];
	const char *why;
	uint64_t ok = 0;
	int rc;

	rc = perf_ctl_recv(&t->ctl, line, sizeof(line),
			   (int)t->o->ctl_timeout_ms);
	if (rc < 0) {
		ctl_err("HELLO", rc);
		return 1;
	}
	if (parse_hello(t, line, &why) < 0) {
		fprintf(stderr, "uet-perf: client HELLO: %s\n", why);
		(void)perf_ctl_send(&t->ctl, 1000, "ERR HELLO: %s", why);
		return 1;
	}
	rc = twoproc_neigh(t);
	if (rc == 0)
		rc = twoproc_link_up(t);
	if (rc < 0) {
		fprintf(stderr, "uet-perf: port: %s\n", strerror(-rc));
		(void)perf_ctl_send(&t->ctl, 1000, "ERR server port: %s",
				    strerror(-rc));
		return 1;
	}
	rc = send_hello(t);
	while (rc == 0) {
		rc = wait_line(t, line, sizeof(line), t->o->ctl_timeout_ms);
		if (rc < 0)
			break;
		if (peer_err(line)) {
			rc = -ECANCELED;
			break;
		}
		if (perf_verb(line, "BYE")) {
			(void)perf_kv_u64(line, "verified", &ok);
			(void)perf_ctl_send(&t->ctl, 1000, "BYE");
			server_linger(t);
			if (!t->o->json)
				printf("server: client verified: %s\n",
				       ok == 1 ? "yes" : "NO");
			else
				server_json(t, ok == 1);
			return ok == 1 ? 0 : 1;
		}
		if (!perf_verb(line, "RUN")) {
			(void)perf_ctl_send(&t->ctl, 1000, "ERR unexpected");
			rc = -EPROTO;
			break;
		}
		rc = server_run(t, line);
	}
	if (rc < 0)
		ctl_err("session", rc);
	return 1;
}

static int
server_main(struct twoproc *t)
{
	const char *spec = t->o->ctl ? t->o->ctl : "47592";
	uint16_t port;
	int lfd, rc;

	rc = perf_ctl_listen(spec, &lfd, &port);
	if (rc < 0) {
		fprintf(stderr, "uet-perf: --ctl %s: %s\n", spec,
			strerror(-rc));
		return 1;
	}
	printf("uet-perf: listening on port %u\n", port);
	fflush(stdout);
	rc = perf_ctl_accept(lfd, &t->ctl, (int)t->o->accept_ms);
	close(lfd);
	if (rc == -ETIMEDOUT) {
		fprintf(stderr, "uet-perf: no client connected within %u ms "
			"(--ctl-timeout)\n", t->o->accept_ms);
		return 1;
	}
	if (rc < 0) {
		ctl_err("accept", rc);
		return 1;
	}
	rc = server_session(t);
	perf_ctl_close(&t->ctl);
	return rc;
}

/* ------------------------------------------------------------------ */
/* client                                                              */
/* ------------------------------------------------------------------ */

static void
parse_result(const char *line, struct test_ulp_result *s,
	     struct twoproc_counters *c)
{
	memset(s, 0, sizeof(*s));
	memset(c, 0, sizeof(*c));
	(void)perf_kv_u64(line, "msgs_sent", &s->msgs_sent);
	(void)perf_kv_u64(line, "done_ok", &s->pkts_done_ok);
	(void)perf_kv_u64(line, "done_err", &s->pkts_done_err);
	(void)perf_kv_u64(line, "rx_pkts", &s->rx_pkts);
	(void)perf_kv_u64(line, "rx_msgs", &s->rx_msgs);
	(void)perf_kv_u64(line, "rx_bytes", &s->rx_bytes);
	(void)perf_kv_u64(line, "rx_dup", &s->rx_dup);
	(void)perf_kv_u64(line, "rx_bad", &s->rx_bad);
	(void)perf_kv_u64(line, "rx_order_err", &s->rx_order_err);
	(void)perf_kv_u64(line, "rx_lost", &s->rx_lost);
	(void)perf_kv_u64(line, "pongs", &s->pongs);
	(void)perf_kv_u64(line, "retx", &c->retx);
	(void)perf_kv_u64(line, "dup_rx", &c->dup_rx);
	(void)perf_kv_u64(line, "faults", &c->faults);
	(void)perf_kv_u64(line, "tx_frames", &c->tx_frames);
	(void)perf_kv_u64(line, "ctl", &c->ctl);
	(void)perf_kv_u64(line, "stray", &c->stray);
}

/* Client view for live lines: messages acknowledged (or answered). */
static void
client_sample(struct twoproc *t, struct test_ulp *cr,
	      const struct perf_report *r, struct perf_sample *out)
{
	struct twoproc_counters c;

	twoproc_counters(t, &c);
	out->msgs = test_ulp_msgs_done(cr);
	out->bytes = out->msgs * r->size;
	out->retx = c.retx;
	out->drops = c.faults + perf_port_drops(t->e);
	perf_sample_cc(t->e, out);
}

/* Drive our sends until finished, the duration, or the hard limit. */
static int
client_drive(struct twoproc *t, struct test_ulp *cr, uint64_t t0, double limit,
	     struct perf_report *r)
{
	uint64_t hz = rte_get_tsc_hz();
	uint64_t hard = t0 + (uint64_t)(limit * (double)hz);
	uint64_t stall = (uint64_t)t->o->ctl_timeout_ms * (hz / 1000);
	uint64_t act, last_act = 0, last_tsc = t0;
	struct perf_sampler smp;
	struct perf_sample cur;
	char line[PERF_CTL_LINE];
	uint64_t next = 0;
	int rc;

	r->complete = false;
	perf_sampler_init(&smp, t->o->interval_ms ?
			  (t->o->json ? stderr : stdout) : NULL,
			  t->o->csv_file, t->o->interval_ms, r->mode, t0,
			  false, t->o->csv_ses);
	client_sample(t, cr, r, &smp.last);
	while (!twoproc_stop) {
		unsigned int us;
		uint64_t now;
		bool look = twoproc_turn(t, &next, &us);

		if (atomic_load_explicit(&t->slot.finished,
					 memory_order_relaxed)) {
			r->complete = true;
			break;
		}
		if (!look)
			continue;
		now = rte_rdtsc();
		if (now > hard)
			break;
		act = test_ulp_activity(cr);
		if (act != last_act) {
			last_act = act;
			last_tsc = now;
		} else if (now - last_tsc > stall) {
			return -ETIME; /* nothing acknowledged, failed or received */
		}
		if (smp.period && now >= smp.next) {
			client_sample(t, cr, r, &cur);
			perf_sampler_tick(&smp, now, &cur, false);
		}
		/* the server only speaks now to give up */
		rc = perf_ctl_poll_line(&t->ctl, line, sizeof(line), us);
		if (rc < 0)
			return rc;
		if (rc > 0)
			return peer_err(line) ? -ECANCELED : -EPROTO;
	}
	r->seconds = (double)(rte_rdtsc() - t0) / (double)hz;
	if (smp.period) {
		client_sample(t, cr, r, &cur);
		perf_sampler_tick(&smp, rte_rdtsc(), &cur, true);
	}
	return twoproc_stop ? -EINTR : 0;
}

static void
client_report(struct twoproc *t, const struct perf_mode *m,
	      struct perf_report *r, struct test_ulp *cr,
	      const char *res_line, const struct twoproc_counters *mine,
	      const struct perf_opts *o)
{
	struct twoproc_counters peer;

	(void)t;
	test_ulp_result(cr, &r->tx);
	parse_result(res_line, &r->rx, &peer);
	if (!r->complete || o->duration > 0)
		r->count = r->tx.msgs_sent;
	r->retx = mine->retx + peer.retx;
	r->dup_suppressed = mine->dup_rx + peer.dup_rx;
	r->faults_dropped = mine->faults + peer.faults;
	r->tx_frames = mine->tx_frames + peer.tx_frames;
	r->acks = peer.ctl;
	if (r->seconds > 0) {
		r->msgs_per_s = (double)r->rx.rx_msgs / r->seconds;
		r->gbytes_per_s = (double)r->rx.rx_bytes / r->seconds / 1e9;
	}
	if (m->report != NULL)
		m->report(r);
	r->why_not = perf_verify_why(r, o->pds_mode);
	if (r->why_not == NULL && (peer.stray != 0 || mine->stray != 0))
		r->why_not = "packets delivered outside a run";
	r->verified = r->why_not == NULL;
	r->tx.lat_ns = NULL; /* freed with cr */
}

static int
client_run(struct twoproc *t, const struct perf_mode *m, struct perf_report *r)
{
	const struct perf_opts *o = t->o;
	double limit = o->duration > 0 ? o->duration + 10 : 300.0;
	struct twoproc_counters c0, c1;
	struct test_ulp_params p, peer;
	struct test_ulp *cr;
	char line[PERF_CTL_LINE];
	uint64_t t0;
	int rc;

	perf_report_init(r, m, o, 0);
	r->loss_ppm = t->loss_ppm;
	/* a one-way stream, shaped by the mode; the server's side is
	 * told whether it echoes */
	memset(&p, 0, sizeof(p));
	memcpy(p.peer.addr, t->peer_fa, 4);
	p.mode = o->pds_mode;
	p.size = r->size;
	p.count = r->count;
	p.window = r->window;
	memset(&peer, 0, sizeof(peer));
	if (m->raw_traffic != NULL)
		m->raw_traffic(&p, &peer);
	rc = perf_ctl_send(&t->ctl, (int)o->ctl_timeout_ms,
			   "RUN mode=%s pds=%s size=%u count=%lu window=%u "
			   "echo=%u limit_ms=%lu", m->name, r->pds, r->size,
			   (unsigned long)r->count, r->window,
			   peer.echo ? 1u : 0u,
			   (unsigned long)(limit * 1000));
	if (rc == 0)
		rc = wait_line(t, line, sizeof(line), o->ctl_timeout_ms);
	if (rc < 0)
		return rc;
	if (peer_err(line))
		return -ECANCELED;
	if (!perf_verb(line, "READY"))
		return -EPROTO;
	cr = test_ulp_create(&p);
	if (cr == NULL)
		return -ENOMEM;
	twoproc_counters(t, &c0);
	rc = test_ulp_ops.init(t->slot.ctx, cr, &(void *){ NULL });
	/* the duration counts from the moment the engine may send */
	t0 = rte_rdtsc();
	if (o->duration > 0)
		test_ulp_set_deadline(cr, t0 + (uint64_t)(o->duration *
					(double)rte_get_tsc_hz()));
	if (rc == 0)
		rc = twoproc_swap(t, cr);
	if (rc < 0)
		goto free_cr;
	r->pkts_per_msg = test_ulp_pkts_per_msg(r->size,
						uet_ulp_max_len(t->slot.ctx));
	rc = client_drive(t, cr, t0, limit, r);
	/* the test ULP is ours again; the PDS keeps ACKing the server's
	 * pongs */
	if (twoproc_swap(t, NULL) < 0 && rc == 0)
		rc = -ETIMEDOUT;
	if (rc < 0)
		goto free_cr;
	test_ulp_result(cr, &r->tx);
	if (o->duration > 0)
		test_ulp_expect_trim(cr, r->tx.msgs_sent);
	rc = perf_ctl_send(&t->ctl, (int)o->ctl_timeout_ms,
			   "FIN sent=%lu complete=%u",
			   (unsigned long)r->tx.msgs_sent, r->complete ? 1u : 0u);
	if (rc == 0)
		rc = wait_line(t, line, sizeof(line),
			       (uint64_t)o->ctl_timeout_ms * 2 +
			       TWOPROC_DRAIN_MS);
	if (rc == 0 && peer_err(line))
		rc = -ECANCELED;
	else if (rc == 0 && !perf_verb(line, "RESULT"))
		rc = -EPROTO;
	if (rc < 0)
		goto free_cr;
	twoproc_counters(t, &c1);
	counters_sub(&c1, &c0);
	client_report(t, m, r, cr, line, &c1, o);
free_cr:
	test_ulp_free(cr);
	return rc;
}

static void
client_json(struct twoproc *t, struct perf_report *rep, bool all_ok)
{
	const struct perf_opts *o = t->o;
	char fa[INET_ADDRSTRLEN], pfa[INET_ADDRSTRLEN], mac[18];
	json_t *res = json_object();

	inet_ntop(AF_INET, t->fa, fa, sizeof(fa));
	inet_ntop(AF_INET, t->peer_fa, pfa, sizeof(pfa));
	snprintf(mac, sizeof(mac), "%02x:%02x:%02x:%02x:%02x:%02x",
		 t->peer_mac[0], t->peer_mac[1], t->peer_mac[2],
		 t->peer_mac[3], t->peer_mac[4], t->peer_mac[5]);
	for (unsigned int i = 0; res != NULL && i < PERF_NB_MODES; i++)
		if (o->modes & (1u << i))
			json_object_set_new(res, rep[i].mode,
					    perf_json_report(&rep[i]));
	(void)perf_json_print(json_pack(
		"{s:s, s:s, s:s, s:I, s:b, s:i, s:i, s:i, s:s, s:s, s:s, s:b,"
		" s:o, s:b}",
		"tool", "uet-perf", "role", "client",
		"pds", perf_pds_name(o->pds_mode),
		"seed", (json_int_t)o->seed, "inline", t->inline_mode,
		"idle_sleep_us", (int)o->idle_sleep_us, "engines", 2,
		"processes", 2, "local_fa", fa, "peer_fa", pfa,
		"peer_mac", mac, "static_neighbor", !o->arp,
		"results", res, "verified", all_ok));
}

static int
client_session(struct twoproc *t)
{
	static struct perf_report rep[PERF_NB_MODES];
	const struct perf_opts *o = t->o;
	char line[PERF_CTL_LINE], pfa[INET_ADDRSTRLEN];
	const char *why;
	bool all_ok = true;
	int rc;

	rc = send_hello(t);
	if (rc == 0)
		rc = perf_ctl_recv(&t->ctl, line, sizeof(line),
				   (int)o->ctl_timeout_ms);
	if (rc < 0) {
		ctl_err("HELLO", rc);
		return 1;
	}
	if (peer_err(line))
		return 1;
	if (parse_hello(t, line, &why) < 0) {
		fprintf(stderr, "uet-perf: server HELLO: %s\n", why);
		(void)perf_ctl_send(&t->ctl, 1000, "ERR HELLO: %s", why);
		return 1;
	}
	rc = twoproc_neigh(t);
	if (rc == 0)
		rc = twoproc_link_up(t);
	if (rc < 0) {
		fprintf(stderr, "uet-perf: port: %s\n", strerror(-rc));
		(void)perf_ctl_send(&t->ctl, 1000, "ERR client port: %s",
				    strerror(-rc));
		return 1;
	}
	inet_ntop(AF_INET, t->peer_fa, pfa, sizeof(pfa));
	if (!o->json)
		printf("uet-perf: client, peer FA %s (%02x:%02x:%02x:%02x:%02x:"
		       "%02x), %s neighbour, PDS %s, %s progress, idle sleep "
		       "%u us, loss %u ppm\n", pfa, t->peer_mac[0],
		       t->peer_mac[1], t->peer_mac[2], t->peer_mac[3],
		       t->peer_mac[4], t->peer_mac[5], o->arp ? "ARP" :
		       "static", perf_pds_name(o->pds_mode),
		       t->inline_mode ? "inline" : "auto", o->idle_sleep_us,
		       t->loss_ppm);
	for (unsigned int i = 0; i < PERF_NB_MODES; i++) {
		if (!(o->modes & (1u << i)))
			continue;
		rc = client_run(t, perf_modes[i], &rep[i]);
		if (rc < 0) {
			ctl_err(perf_modes[i]->name, rc);
			if (rc != -ECANCELED)
				(void)perf_ctl_send(&t->ctl, 1000,
						    "ERR client: %s: %s",
						    perf_modes[i]->name,
						    twoproc_strerror(rc));
			return 1;
		}
		all_ok = all_ok && rep[i].verified;
		if (!o->json) {
			perf_modes[i]->print(&rep[i], stdout);
			fflush(stdout);
		}
	}
	rc = perf_ctl_send(&t->ctl, (int)o->ctl_timeout_ms, "BYE verified=%u",
			   all_ok ? 1u : 0u);
	if (rc == 0)
		rc = wait_line(t, line, sizeof(line), o->ctl_timeout_ms);
	if (rc < 0 || !perf_verb(line, "BYE")) {
		ctl_err("BYE", rc < 0 ? rc : -EPROTO);
		all_ok = false;
	}
	if (o->json)
		client_json(t, rep, all_ok);
	return all_ok ? 0 : 1;
}

/*
 * Connect first, then make the engine: the server's port exists by then
 * (a memif client port needs the server's socket to start).
 */
static int
client_main(struct twoproc *t)
{
	int rc = perf_ctl_connect(t->o->ctl, &t->ctl,
				  (int)t->o->ctl_timeout_ms);

	if (rc < 0) {
		ctl_err(t->o->ctl, rc);
		return 1;
	}
	rc = twoproc_engine(t);
	if (rc < 0) {
		(void)perf_ctl_send(&t->ctl, 1000, "ERR client engine: %s",
				    strerror(-rc));
		perf_ctl_close(&t->ctl);
		return 1;
	}
	rc = client_session(t);
	/* port first: the server closes its own after seeing us go */
	twoproc_free(t);
	perf_ctl_close(&t->ctl);
	return rc;
}

int
perf_twoproc_main(const struct perf_opts *o)
{
	static struct twoproc t;
	struct sigaction sa;
	int rc;

	memset(&t, 0, sizeof(t));
	t.o = o;
	t.ctl.fd = -1;
	if (twoproc_config(&t) < 0)
		return 2;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	(void)sigaction(SIGINT, &sa, NULL);
	(void)sigaction(SIGTERM, &sa, NULL);
	/* idle sleeps of a few us: do not round them up to 50 us */
	(void)prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	if (o->role == PERF_ROLE_SERVER)
		rc = twoproc_engine(&t) < 0 ? 1 : server_main(&t);
	else
		rc = client_main(&t);
	twoproc_free(&t);
	/* not rte_eal_cleanup(): memif's leftovers on the interrupt thread */
	if (t.eal_up)
		(void)uet_engine_eal_cleanup();
	return rc;
}
