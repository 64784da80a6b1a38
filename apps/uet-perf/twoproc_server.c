/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * uet-perf --role server (twoproc.c has the protocol): answers HELLO,
 * arms its receiver for each RUN, reports RESULT, lingers after BYE.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "twoproc_private.h"

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
	struct test_ulp_params p, tx;
	char v[32];
	uint64_t x;
	int m;

	memset(&p, 0, sizeof(p));
	memset(&tx, 0, sizeof(tx));
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
	/* the receiver as the mode shapes it (latency: it answers), one
	 * engine chosen once; "echo" says the same from the client */
	*why = "bad RUN line (mode)";
	m = perf_kv(line, "mode", v, sizeof(v)) ?
	    perf_mode_find(v, strlen(v)) : -EINVAL;
	if (m < 0)
		return NULL;
	tx.count = p.expect;
	tx.size = p.size;
	if (perf_modes[m]->raw_traffic != NULL)
		perf_modes[m]->raw_traffic(&tx, &p);
	*why = "bad RUN line (echo)";
	if (!perf_kv_u64(line, "echo", &x) || x != (p.engine != NULL))
		return NULL;
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
	rc = twoproc_wait_line_watch(t, line, sizeof(line),
			     limit_ms + t->o->ctl_timeout_ms, r);
	if (rc == -ETIME)
		(void)perf_ctl_send(&t->ctl, 1000, "ERR server: no traffic "
				    "progress within --ctl-timeout");
	if (rc == 0 && twoproc_peer_err(line))
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
	twoproc_counters_sub(&c1, &c0);
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

	while (twoproc_wait_line(t, line, sizeof(line),
				 t->o->ctl_timeout_ms) == 0)
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
	uint64_t ok = 0;
	int rc;

	rc = perf_ctl_recv(&t->ctl, line, sizeof(line),
			   (int)t->o->ctl_timeout_ms);
	if (rc < 0) {
		twoproc_ctl_err("HELLO", rc);
		return 1;
	}
	if (twoproc_accept_hello(t, line, "client", "server") != 0)
		return 1;
	rc = twoproc_send_hello(t);
	while (rc == 0) {
		rc = twoproc_wait_line(t, line, sizeof(line),
				       t->o->ctl_timeout_ms);
		if (rc < 0)
			break;
		if (twoproc_peer_err(line)) {
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
		twoproc_ctl_err("session", rc);
	return 1;
}

int
twoproc_server_main(struct twoproc *t)
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
		twoproc_ctl_err("accept", rc);
		return 1;
	}
	rc = server_session(t);
	perf_ctl_close(&t->ctl);
	return rc;
}
