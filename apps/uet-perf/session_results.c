/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The end of an in-process run (session.c runs it): the engines drained,
 * the results and counters of every engine collected into the report
 * (loss recovery, wire, SES), and the counters printed (the prompt's
 * show stats, --verbose).
 */

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>

#include "session.h"

#define SESS_DRAIN_ITERS 2000

static void
wire_add(struct perf_wire *w, const struct uet_engine_lcore_stats *t)
{
	for (unsigned int d = 0; d < UET_CONFIG_FAULT_DIRS; d++)
		for (unsigned int k = 0; k < UET_CONFIG_FAULT_KINDS; k++)
			w->fault[k] += t->fault[d].applied[k];
	w->csum_bad += t->rx_csum_bad;
	w->csum_none += t->rx_csum_none;
	w->trimmed += t->rx_trimmed;
	w->malformed += t->rx_malformed;
	w->chained += t->rx_chained;
	w->linearized += t->rx_linearized;
	w->tss_sealed += t->tss.tx_sealed;
	w->tss_opened += t->tss.rx_opened;
	w->tss_keys += t->tss.tx_keys + t->tss.rx_keys;
	for (unsigned int i = 0; i < UET_ENGINE_TSS_DROPS; i++)
		w->tss_drop[i] += t->tss.rx_drop[i];
}

static void
collect(struct perf_sess *s)
{
	static struct uet_engine_stats st;
	struct perf_report *r = s->r;

	for (unsigned int i = 0; i <= s->nb_tx; i++) {
		struct uet_ulp_ctx *c = perf_sess_ctx(s, i);

		(void)uet_engine_stats_get(s->e[i], &st);
		r->retx += uet_ulp_ctx_stats(c)->tx_retx;
		r->dup_suppressed +=
			uet_pds_stats_get(uet_ulp_ctx_pds(c))->dup_rx;
		r->faults_dropped += st.total.fault[UET_CONFIG_FAULT_TX]
					     .applied[UET_CONFIG_FAULT_DROP];
		r->tx_frames += st.total.tx_pkts;
		wire_add(&r->wire, &st.total);
		if (i > 0)
			perf_recovery_add(&r->rec,
				     uet_pds_stats_get(uet_ulp_ctx_pds(c)));
	}
	r->acks = uet_ulp_ctx_stats(perf_sess_ctx(s, 0))->tx_ctl;
}

static void
ses_side(struct perf_sess *s, unsigned int i, struct perf_ses_side *o)
{
	const struct uet_ses_stats *x = perf_sess_ses_stats(s, i);
	struct uet_ses_ulp_stats g;

	memset(&g, 0, sizeof(g));
	(void)uet_ses_ulp_stats_get(s->e[i], 0, &g, NULL);
	*o = (struct perf_ses_side){
		.wr_submitted = x->wr_submitted, .wr_eagain = x->wr_eagain,
		.msg_ok = x->msg_ok, .msg_err = x->msg_err,
		.frag_tx = x->frag_tx, .frag_rebuilt = x->frag_rebuilt,
		.rx_bad = x->rx_bad, .cq_overflow = x->cq_overflow,
		.unexp_drop = x->unexp_drop, .ret_tx = x->ret_tx,
		.ret_rx = x->ret_rx, .rdv_tx = x->rdv_tx,
		.sqe = g.sqe, .sqe_held = g.sqe_held,
		.sqe_rejected = g.sqe_rejected, .rqe = g.rqe,
		.rqe_rejected = g.rqe_rejected, .cqe = g.cqe,
		.cq_wait = g.cq_wait,
		.tx_ref = uet_ulp_ctx_stats(perf_sess_ctx(s, i))->tx_ref,
		.msg_tx_wait = x->msg_tx_wait,
		.rx_split = x->rx_split, .rx_flat = x->rx_flat,
	};
}

/* --ulp ses: driver results and the SES counters of both engines. */
static void
ses_results(struct perf_sess *s)
{
	struct perf_report *r = s->r;
	struct perf_ses *x = &r->ses;
	uint64_t pkts;

	ses_driver_result(s->sd, &r->tx, &r->rx);
	x->on = true;
	x->op = s->sdp.op;
	x->tagged = s->o.tagged && x->op == PERF_OP_SEND;
	x->payload_checked = s->o.verify;
	x->drv = *ses_driver_counters(s->sd);
	ses_side(s, 1, &x->ini);
	ses_side(s, 0, &x->tgt);
	/* data packets per operation, as the SES cut them */
	pkts = x->op == PERF_OP_READ ? x->tgt.ret_tx : x->ini.frag_tx;
	if (r->tx.msgs_sent > 0 && pkts > 0)
		r->pkts_per_msg = (uint32_t)((pkts + r->tx.msgs_sent - 1) /
					     r->tx.msgs_sent);
}

/* The pair's results: what was never sent (duration, stop, limit) is
 * not expected either. */
void
perf_sess_pair_results(struct perf_sess *s)
{
	struct perf_report *r = s->r;

	test_ulp_result(s->ru[1], &r->tx);
	if (r->tx.msgs_sent < r->count) {
		test_ulp_expect_trim(s->ru[0], r->tx.msgs_sent);
		test_ulp_expect_trim(s->ru[1], r->tx.msgs_sent);
		test_ulp_result(s->ru[1], &r->tx);
	}
	test_ulp_result(s->ru[0], &r->rx);
}

void
perf_sess_end(struct perf_sess *s)
{
	struct perf_report *r = s->r;

	if (s->ended)
		return;
	s->ended = true;
	/* late datagrams (UUD/RUDI) and final ACKs */
	for (unsigned int i = 0; i < SESS_DRAIN_ITERS; i++)
		perf_sess_poll_all(s);
	r->seconds = (double)(s->t_fin - s->t0) / (double)rte_get_tsc_hz();
	r->complete = s->complete;
	r->stopped = s->stopped;
	if (s->sd != NULL)
		ses_results(s);
	else
		s->m->topology->results(s);
	if (!r->complete || r->tx.msgs_sent < r->count)
		r->count = r->tx.msgs_sent;
	collect(s);
	if (s->o.verbose)
		perf_sess_counters_print(s, stderr);
	if (r->seconds > 0) {
		r->msgs_per_s = (double)r->rx.rx_msgs / r->seconds;
		r->gbytes_per_s = (double)r->rx.rx_bytes / r->seconds / 1e9;
	}
	perf_sess_cost_report(s);
	if (s->m->report != NULL)
		s->m->report(r);
	r->why_not = perf_verify_why(r, s->o.pds_mode);
	r->verified = r->why_not == NULL;
	if (s->o.pdcs > 1)
		perf_pdcs_finish(s, &s->o, perf_sess_ip_b, r);
	r->tx.lat_ns = NULL; /* freed with the test ULP */
}

void
perf_sess_counters_print(struct perf_sess *s, FILE *f)
{
	static struct uet_engine_stats st;

	for (unsigned int i = 0; i <= s->nb_tx; i++) {
		struct uet_ulp_ctx *c = perf_sess_ctx(s, i);
		const struct uet_ulp_stats *u = uet_ulp_ctx_stats(c);
		const struct uet_pds_stats *p =
			uet_pds_stats_get(uet_ulp_ctx_pds(c));

		if (i == 0)
			fprintf(f, "--- receiver engine\n");
		else
			fprintf(f, "--- sender engine %u\n", i - 1);
		(void)uet_engine_stats_get(s->e[i], &st);
		uet_engine_stats_print(&st, f);
		fprintf(f, "hook: rx %" PRIu64 " bad %" PRIu64 " nobufs %"
			PRIu64 " delivered %" PRIu64 " done %" PRIu64 "/%"
			PRIu64 " submit %" PRIu64 " eagain %" PRIu64
			" tx new %" PRIu64 " retx %" PRIu64 " ctl %" PRIu64
			" nombuf %" PRIu64 "\n", u->rx_pkts, u->rx_pds_bad,
			u->rx_pds_nobufs, u->delivered, u->done_ok,
			u->done_err, u->submit_ok, u->submit_eagain,
			u->tx_new, u->tx_retx, u->tx_ctl, u->tx_nombuf);
		fprintf(f, "pds: retx sack %" PRIu64 " again %" PRIu64
			" nack %" PRIu64 " trim %" PRIu64 " rto %" PRIu64
			" (rto_fires %" PRIu64 ", spurious %" PRIu64 ") probe %"
			PRIu64 " tlp %" PRIu64 " (tlp_fires %" PRIu64
			") backoff %" PRIu64 " cancelled %" PRIu64
			" rod_goback %" PRIu64 " rod_nack_stale %" PRIu64
			" rtt_samples %" PRIu64 " dup_rx %" PRIu64 " ooo_rx %"
			PRIu64 " rx_bad %" PRIu64 "\n", p->retx_sack,
			p->retx_again, p->retx_nack, p->retx_trim,
			p->retx_rto, p->rto_fires, p->rto_spurious,
			p->retx_probe, p->retx_tlp, p->tlp_fires,
			p->retx_backoff, p->resend_cancelled, p->rod_goback,
			p->rod_nack_stale, p->rtt_samples, p->dup_rx,
			p->ooo_rx, p->rx_bad);
		fprintf(f, "lb: recycled %" PRIu64 " explored %" PRIu64
			" freezes %" PRIu64 " foreign_ev %" PRIu64 "\n",
			p->lb_recycled, p->lb_explored, p->lb_freezes,
			p->lb_ev_foreign);
		if (s->sd != NULL) {
			struct perf_ses_side x;

			ses_side(s, i, &x);
			fprintf(f, "ses: wr %" PRIu64 " eagain %" PRIu64
				" ok %" PRIu64 " err %" PRIu64 " frag_tx %"
				PRIu64 " rebuilt %" PRIu64 " rx_bad %" PRIu64
				" cq_overflow %" PRIu64 " unexp_drop %" PRIu64
				" ret_tx %" PRIu64 " ret_rx %" PRIu64
				" rdv %" PRIu64 "\n", x.wr_submitted,
				x.wr_eagain, x.msg_ok, x.msg_err, x.frag_tx,
				x.frag_rebuilt, x.rx_bad, x.cq_overflow,
				x.unexp_drop, x.ret_tx, x.ret_rx, x.rdv_tx);
			fprintf(f, "chan: sqe %" PRIu64 " held %" PRIu64
				" rejected %" PRIu64 " rqe %" PRIu64
				" rejected %" PRIu64 " cqe %" PRIu64
				" cq_wait %" PRIu64 "\n", x.sqe, x.sqe_held,
				x.sqe_rejected, x.rqe, x.rqe_rejected, x.cqe,
				x.cq_wait);
		}
	}
	if (s->m->topology->counters_print != NULL)
		s->m->topology->counters_print(s, f);
}
