/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * uet-perf --role client (twoproc.c has the protocol): connects, sends
 * RUN for each mode, drives its sender, and reports both sides' results.
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
			return twoproc_peer_err(line) ? -ECANCELED : -EPROTO;
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
	r->rec = mine->rec; /* the sender's PDS: ours */
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
	/* a one-way stream, shaped by the mode; the server shapes its
	 * side with the mode named, and is told whether it answers */
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
			   peer.engine != NULL ? 1u : 0u,
			   (unsigned long)(limit * 1000));
	if (rc == 0)
		rc = twoproc_wait_line(t, line, sizeof(line),
				       o->ctl_timeout_ms);
	if (rc < 0)
		return rc;
	if (twoproc_peer_err(line))
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
		rc = twoproc_wait_line(t, line, sizeof(line),
			       (uint64_t)o->ctl_timeout_ms * 2 +
			       TWOPROC_DRAIN_MS);
	if (rc == 0 && twoproc_peer_err(line))
		rc = -ECANCELED;
	else if (rc == 0 && !perf_verb(line, "RESULT"))
		rc = -EPROTO;
	if (rc < 0)
		goto free_cr;
	twoproc_counters(t, &c1);
	twoproc_counters_sub(&c1, &c0);
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
	bool all_ok = true;
	int rc;

	rc = twoproc_send_hello(t);
	if (rc == 0)
		rc = perf_ctl_recv(&t->ctl, line, sizeof(line),
				   (int)o->ctl_timeout_ms);
	if (rc < 0) {
		twoproc_ctl_err("HELLO", rc);
		return 1;
	}
	if (twoproc_peer_err(line))
		return 1;
	if (twoproc_accept_hello(t, line, "server", "client") != 0)
		return 1;
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
			twoproc_ctl_err(perf_modes[i]->name, rc);
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
		rc = twoproc_wait_line(t, line, sizeof(line),
				       o->ctl_timeout_ms);
	if (rc < 0 || !perf_verb(line, "BYE")) {
		twoproc_ctl_err("BYE", rc < 0 ? rc : -EPROTO);
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
int
twoproc_client_main(struct twoproc *t)
{
	int rc = perf_ctl_connect(t->o->ctl, &t->ctl,
				  (int)t->o->ctl_timeout_ms, &twoproc_stop);

	if (rc < 0) {
		twoproc_ctl_err(t->o->ctl, rc);
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
