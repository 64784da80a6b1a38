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
 *   RUN mode pds size count window echo limit_ms
 *                                 ->        (receiver armed)
 *                                 <-        READY
 *   ... traffic over the engines ...
 *   FIN sent complete             ->        (own sends finished, drain)
 *                                 <-        RESULT <counters>
 *   (RUN ... for every mode)
 *   BYE verified                  ->
 *                                 <-        BYE
 *
 * Either side answers a problem with "ERR reason" and closes, except
 * the server's refusals of a control line it does not serve (a bad RUN,
 * one before HELLO, a line over PERF_CTL_LINE, a RUN past
 * TWOPROC_MAX_RUNS): ERR naming the reason, counted, and the session
 * goes on, up to TWOPROC_MAX_REFUSED of them. This file
 * holds what both roles share (the engine, the control lines, HELLO);
 * each role is its own file (twoproc_server.c, twoproc_client.c). The
 * raw-PDS ULP (test_ulp.c) of a run is swapped in behind a proxy ULP, so
 * the engine (and the port: a memif connection, a socket) lives for the
 * session.
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

#include "twoproc_private.h"

volatile sig_atomic_t twoproc_stop;

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
int
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

int
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
void
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
bool
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
int
twoproc_wait_line_watch(struct twoproc *t, char *line, size_t n,
			uint64_t ms, const struct test_ulp *watch)
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

int
twoproc_wait_line(struct twoproc *t, char *line, size_t n, uint64_t ms)
{
	return twoproc_wait_line_watch(t, line, n, ms, NULL);
}

int
twoproc_accept_hello(struct twoproc *t, const char *line, const char *peer,
		     const char *self)
{
	const char *why;
	int rc;

	if (twoproc_parse_hello(t, line, &why) < 0) {
		fprintf(stderr, "uet-perf: %s HELLO: %s\n", peer, why);
		(void)perf_ctl_send(&t->ctl, 1000, "ERR HELLO: %s", why);
		return 1;
	}
	rc = twoproc_neigh(t);
	if (rc == 0)
		rc = twoproc_link_up(t);
	if (rc < 0) {
		fprintf(stderr, "uet-perf: port: %s\n", strerror(-rc));
		(void)perf_ctl_send(&t->ctl, 1000, "ERR %s port: %s", self,
				    strerror(-rc));
		return 1;
	}
	return 0;
}

int
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

int
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

void
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
	memset(&c->rec, 0, sizeof(c->rec));
	perf_recovery_add(&c->rec, p);
}

void
twoproc_counters_sub(struct twoproc_counters *a,
		     const struct twoproc_counters *b)
{
	a->retx -= b->retx;
	a->ctl -= b->ctl;
	a->dup_rx -= b->dup_rx;
	a->faults -= b->faults;
	a->tx_frames -= b->tx_frames;
	a->stray -= b->stray;
	perf_recovery_sub(&a->rec, &b->rec);
}

void
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

int
twoproc_send_hello(struct twoproc *t)
{
	char fa[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, t->fa, fa, sizeof(fa));
	return perf_ctl_send(&t->ctl, (int)t->o->ctl_timeout_ms,
			     "HELLO v=%u fa=%s mac=%02x:%02x:%02x:%02x:%02x:%02x"
			     " udp=%u job=%u mtu=%u", TWOPROC_VERSION, fa,
			     t->mac[0], t->mac[1], t->mac[2], t->mac[3],
			     t->mac[4], t->mac[5], t->cfg.port[0].udp_port,
			     TWOPROC_JOB,
			     uet_config_port_mtu(&t->cfg.port[0]));
}

/* Check the peer's HELLO; @return 0 or -EPROTO with @p why. */
int
twoproc_parse_hello(struct twoproc *t, const char *line, const char **why)
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
	*why = "mtu differs (set port0.mtu alike on both sides)";
	if (!perf_kv_u64(line, "mtu", &x) ||
	    x != uet_config_port_mtu(&t->cfg.port[0]))
		return -EPROTO;
	return 0;
}

const char *
twoproc_strerror(int rc)
{
	return rc == -ETIMEDOUT ? "timed out (--ctl-timeout)" :
	       rc == -ECONNRESET ? "peer closed the connection" :
	       rc == -EINTR ? "stopped (SIGINT or SIGTERM)" :
	       rc == -ETIME ? "no traffic progress within --ctl-timeout "
			      "(peer stopped or hung, or data path down: "
			      "addresses, MACs, link)" :
	       strerror(-rc);
}

/* One line; nothing for -ECANCELED (the peer's ERR line was printed). */
void
twoproc_ctl_err(const char *what, int rc)
{
	if (rc == -ECANCELED)
		return;
	fprintf(stderr, "uet-perf: control connection: %s: %s\n", what,
		twoproc_strerror(rc));
}

/* The peer sent ERR: print it. */
bool
twoproc_peer_err(const char *line)
{
	if (!perf_verb(line, "ERR"))
		return false;
	fprintf(stderr, "uet-perf: peer: %s\n",
		line[3] == ' ' ? line + 4 : line + 3);
	return true;
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
		rc = twoproc_engine(&t) < 0 ? 1 : twoproc_server_main(&t);
	else
		rc = twoproc_client_main(&t);
	twoproc_free(&t);
	/* not rte_eal_cleanup(): memif's leftovers on the interrupt thread */
	if (t.eal_up)
		(void)uet_engine_eal_cleanup();
	return rc;
}
