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

/* A RUN line, checked: what the receiver is armed with. */
struct server_req {
	struct test_ulp_params p;
	uint64_t limit_ms;       /* the run's hard limit */
	char mode[16];
};

/* Key @p key of RUN line @p line, a number in [@p lo, @p hi]: true, or
 * false with the reason in @p why. */
static bool
run_u64(const char *line, const char *key, uint64_t lo, uint64_t hi,
	uint64_t *x, char *why, size_t n)
{
	if (perf_kv_u64(line, key, x) && *x >= lo && *x <= hi)
		return true;
	snprintf(why, n, "bad RUN line (%s: %lu..%lu)", key,
		 (unsigned long)lo, (unsigned long)hi);
	return false;
}

/*
 * RUN @p line parsed into @p q: 0, or -EINVAL with the reason in @p why
 * (the ERR line names the key). The receiver as the mode shapes it
 * (latency: it answers), one engine chosen once; "echo" says the same
 * from the client, so that two builds that disagree fail here.
 */
static int
server_req_parse(const struct twoproc *t, const char *line,
		 struct server_req *q, char *why, size_t n)
{
	struct test_ulp_params *p = &q->p, tx;
	char v[16];
	uint64_t x;
	int m;

	memset(q, 0, sizeof(*q));
	memset(&tx, 0, sizeof(tx));
	memcpy(p->peer.addr, t->peer_fa, 4);
	if (!perf_kv(line, "pds", v, sizeof(v)) ||
	    perf_parse_pds(v, &p->mode) < 0) {
		snprintf(why, n, "bad RUN line (pds: rud, rod, rudi or uud)");
		return -EINVAL;
	}
	if (!run_u64(line, "size", 16, 1u << 24, &x, why, n))
		return -EINVAL;
	p->size = (uint32_t)x;
	p->expect_size = p->size;
	if (!run_u64(line, "count", 1, PERF_MAX_COUNT, &p->expect, why, n))
		return -EINVAL;
	if (!run_u64(line, "window", 1, 65536, &x, why, n))
		return -EINVAL;
	p->window = (uint32_t)x;
	if (!perf_kv(line, "mode", q->mode, sizeof(q->mode)) ||
	    (m = perf_mode_find(q->mode, strlen(q->mode))) < 0) {
		snprintf(why, n, "bad RUN line (mode: no mode of that name)");
		return -EINVAL;
	}
	tx.count = p->expect;
	tx.size = p->size;
	if (perf_modes[m]->raw_traffic != NULL)
		perf_modes[m]->raw_traffic(&tx, p);
	if (!perf_kv_u64(line, "echo", &x) || x != (p->engine != NULL)) {
		snprintf(why, n, "bad RUN line (echo: mode %s takes echo=%d)",
			 q->mode, p->engine != NULL);
		return -EINVAL;
	}
	if (!run_u64(line, "limit_ms", 1, 3600ull * 1000, &q->limit_ms, why,
		     n))
		return -EINVAL;
	return 0;
}

/*
 * A RUN line the server does not serve: the ERR line names the reason
 * and the session goes on (the client may send a good RUN), up to
 * TWOPROC_MAX_REFUSED refusals: @return 0, or -EPROTO (session over).
 */
static int
server_refuse(struct twoproc *t, const char *why)
{
	t->refused++;
	if (t->refused > TWOPROC_MAX_REFUSED) {
		(void)perf_ctl_send(&t->ctl, 1000, "ERR %s; %u lines refused, "
				    "session over", why, TWOPROC_MAX_REFUSED);
		fprintf(stderr, "uet-perf: client: %u control lines refused, "
			"the last: %s\n", TWOPROC_MAX_REFUSED, why);
		return -ECANCELED;
	}
	return perf_ctl_send(&t->ctl, 1000, "ERR %s", why);
}

/* What run @p q received (@p acks: ACK frames sent), for BYE's --json
 * line, and printed now without --json. */
static void
server_record(struct twoproc *t, const struct server_req *q,
	      const struct test_ulp_result *res, uint64_t acks)
{
	struct twoproc_run *tr = &t->run[t->nb_runs++];

	snprintf(tr->mode, sizeof(tr->mode), "%s", q->mode);
	tr->pds = q->p.mode;
	tr->res = *res;
	tr->res.lat_ns = NULL;
	tr->acks = acks;
	if (!t->o->json)
		printf("server: %s over %s: received %lu msgs (%lu B), lost "
		       "%lu pkts, duplicated %lu, bad %lu, sent %lu msgs, "
		       "ACK frames %lu\n", q->mode, perf_pds_name(q->p.mode),
		       (unsigned long)res->rx_msgs,
		       (unsigned long)res->rx_bytes,
		       (unsigned long)res->rx_lost, (unsigned long)res->rx_dup,
		       (unsigned long)res->rx_bad,
		       (unsigned long)res->msgs_sent, (unsigned long)acks);
	fflush(stdout);
}

/* Serve one RUN: @return 0, or -errno (session over). */
static int
server_run(struct twoproc *t, const char *run)
{
	struct twoproc_counters c0, c1;
	struct server_req q;
	struct test_ulp_result res;
	struct test_ulp *r;
	char line[PERF_CTL_LINE], why[96];
	uint64_t sent = 0, end;
	int rc;

	if (t->nb_runs >= TWOPROC_MAX_RUNS) {
		snprintf(why, sizeof(why), "too many runs (%u a session)",
			 TWOPROC_MAX_RUNS);
		return server_refuse(t, why);
	}
	if (server_req_parse(t, run, &q, why, sizeof(why)) < 0)
		return server_refuse(t, why);
	r = test_ulp_create(&q.p);
	if (r == NULL) {
		(void)perf_ctl_send(&t->ctl, 1000, "ERR out of memory");
		return -ENOMEM;
	}
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
			     q.limit_ms + t->o->ctl_timeout_ms, r);
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
	server_record(t, &q, &res, c1.ctl);
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
	(void)perf_json_print(json_pack("{s:s, s:s, s:o, s:I, s:b}",
					"tool", "uet-perf", "role", "server",
					"runs", runs,
					"refused", (json_int_t)t->refused,
					"verified", verified));
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

/* BYE: answer, linger, the verdict: @return the exit code. */
static int
server_bye(struct twoproc *t, const char *line)
{
	uint64_t ok = 0;

	(void)perf_kv_u64(line, "verified", &ok);
	(void)perf_ctl_send(&t->ctl, 1000, "BYE");
	server_linger(t);
	if (t->o->json) {
		server_json(t, ok == 1);
	} else {
		printf("server: control lines refused: %lu\n",
		       (unsigned long)t->refused);
		printf("server: client verified: %s\n", ok == 1 ? "yes" : "NO");
	}
	return ok == 1 ? 0 : 1;
}

/*
 * The client's HELLO, first: other lines before it are refused (RUN
 * before HELLO); a HELLO that does not match this side ends the
 * session. @return 0, or 1 (session over, the reason printed). The
 * engine is not polled yet: a memif client's connection to our port is
 * made meanwhile, by the interrupt thread that polling would hold off.
 */
static int
server_hello(struct twoproc *t)
{
	char line[PERF_CTL_LINE];
	int rc;

	for (;;) {
		rc = perf_ctl_recv(&t->ctl, line, sizeof(line),
				   (int)t->o->ctl_timeout_ms);
		if (rc == -EMSGSIZE)
			rc = server_refuse(t, "line too long");
		else if (rc == 0 && !perf_verb(line, "HELLO"))
			rc = server_refuse(t, "HELLO first");
		else if (rc == 0)
			break;
		if (rc < 0) {
			twoproc_ctl_err("HELLO", rc);
			return 1;
		}
	}
	if (twoproc_accept_hello(t, line, "client", "server") != 0)
		return 1;
	rc = twoproc_send_hello(t);
	if (rc < 0) {
		twoproc_ctl_err("HELLO", rc);
		return 1;
	}
	return 0;
}

/* HELLO, then RUNs until BYE: @return the exit code. */
static int
server_session(struct twoproc *t)
{
	char line[PERF_CTL_LINE];
	int rc = 0;

	if (server_hello(t) != 0)
		return 1;
	while (rc == 0) {
		rc = twoproc_wait_line(t, line, sizeof(line),
				       t->o->ctl_timeout_ms);
		if (rc == -EMSGSIZE) {
			rc = server_refuse(t, "line too long");
			continue;
		}
		if (rc < 0)
			break;
		if (twoproc_peer_err(line))
			rc = -ECANCELED;
		else if (perf_verb(line, "BYE"))
			return server_bye(t, line);
		else if (perf_verb(line, "RUN"))
			rc = server_run(t, line);
		else
			rc = server_refuse(t, "unexpected line (RUN or BYE)");
	}
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
	rc = perf_ctl_accept(lfd, &t->ctl, (int)t->o->accept_ms,
			     &twoproc_stop);
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
