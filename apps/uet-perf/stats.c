/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Periodic statistics of a run, testpmd style: every --interval a live
 * line (rates over the last interval, cumulative totals) and, with --csv,
 * one row of the time series. Sampled by the thread that drives the
 * engines, between poll slices, never per packet.
 */

#include <inttypes.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "perf.h"

void
perf_csv_header(FILE *f, bool ses)
{
	/* _total: running totals since the test started; _interval: in the
	 * interval that ends at time_s */
	fprintf(f, "time_s,mode,msgs_total,bytes_total,msgs_per_s_interval,"
		"bytes_per_s_interval,retransmissions_interval,"
		"drops_interval%s,cwnd_bytes,srtt_ns\n",
		ses ? ",ses_fragments_interval,completion_errors_interval" :
		"");
	fflush(f);
}

void
perf_sampler_init(struct perf_sampler *s, FILE *live, FILE *csv,
		  uint32_t interval_ms, const char *mode, uint64_t t0,
		  bool ses, bool csv_ses)
{
	memset(s, 0, sizeof(*s));
	s->live = live;
	s->csv = csv;
	s->mode = mode;
	s->hz = rte_get_tsc_hz();
	s->period = interval_ms ? s->hz / 1000 * interval_ms : 0;
	s->t0 = t0;
	s->last_tsc = t0;
	s->next = t0 + s->period;
	s->ses = ses;
	s->csv_ses = csv_ses;
}

void
perf_sampler_tick(struct perf_sampler *s, uint64_t now,
		  const struct perf_sample *cur, bool force)
{
	double t, dt, mps, bps;

	if (s->period == 0 || (s->live == NULL && s->csv == NULL))
		return;
	if (!force && now < s->next)
		return;
	if (force && now <= s->last_tsc)
		return;
	t = (double)(now - s->t0) / (double)s->hz;
	dt = (double)(now - s->last_tsc) / (double)s->hz;
	mps = (double)(cur->msgs - s->last.msgs) / dt;
	bps = (double)(cur->bytes - s->last.bytes) / dt;
	if (s->live != NULL) {
		fprintf(s->live, "  [%8.3f s] %-7s %12.0f msgs/s %10.3f MB/s  "
			"msgs %" PRIu64 "  retx +%" PRIu64 "  drops +%" PRIu64
			"%s", t, s->mode, mps, bps / 1e6, cur->msgs,
			cur->retx - s->last.retx, cur->drops - s->last.drops,
			s->ses ? "" : "\n");
		if (s->ses)
			fprintf(s->live, "  ses frags +%" PRIu64 "  cqe err +%"
				PRIu64 "\n", cur->ses_frags - s->last.ses_frags,
				cur->cqe_err - s->last.cqe_err);
		fflush(s->live);
	}
	if (s->csv != NULL) {
		fprintf(s->csv, "%.6f,%s,%" PRIu64 ",%" PRIu64 ",%.1f,%.1f,"
			"%" PRIu64 ",%" PRIu64, t, s->mode, cur->msgs,
			cur->bytes, mps, bps, cur->retx - s->last.retx,
			cur->drops - s->last.drops);
		if (s->csv_ses) /* SES columns (0 for raw runs) */
			fprintf(s->csv, ",%" PRIu64 ",%" PRIu64,
				cur->ses_frags - s->last.ses_frags,
				cur->cqe_err - s->last.cqe_err);
		/* the first sender's window and RTT (not per interval) */
		fprintf(s->csv, ",%u,%u\n", cur->cwnd, cur->srtt_ns);
		fflush(s->csv);
	}
	s->last = *cur;
	s->last_tsc = now;
	while (s->next <= now)
		s->next += s->period;
}

static int
first_initiator(const struct uet_pds_pdc_info *i, void *arg)
{
	if (i->role != 0)
		return 0;
	*(struct uet_pds_pdc_info *)arg = *i;
	return 1;
}

void
perf_sample_cc(struct uet_engine *e, struct perf_sample *out)
{
	struct uet_ulp_ctx *ctx = e != NULL ? uet_ulp_ctx_get(e, 0) : NULL;
	const struct uet_pds *pds;
	struct uet_pds_pdc_info pi;
	struct uet_pds_cc_info ci;

	out->cwnd = 0;
	out->srtt_ns = 0;
	if (ctx == NULL || (pds = uet_ulp_ctx_pds(ctx)) == NULL ||
	    uet_pds_pdc_foreach(pds, first_initiator, &pi) != 1)
		return;
	out->srtt_ns = pi.srtt_ns;
	out->cwnd = uet_pds_cc_info_get(pds, pi.handle, &ci) == 0 ? ci.cwnd :
		    pi.cwnd;
}

struct cwnd_find {
	const struct uet_pds_fa *dst;
	struct uet_pds_pdc_info pi;
};

static int
initiator_to(const struct uet_pds_pdc_info *i, void *arg)
{
	struct cwnd_find *f = arg;

	if (i->role != 0 || memcmp(&i->peer, f->dst, sizeof(*f->dst)) != 0)
		return 0;
	f->pi = *i;
	return 1;
}

int
perf_engine_cwnd(struct uet_engine *e, const struct uet_pds_fa *dst,
		 uint64_t *bytes, uint64_t *srtt_ns)
{
	struct uet_ulp_ctx *ctx = e != NULL ? uet_ulp_ctx_get(e, 0) : NULL;
	struct cwnd_find f = { .dst = dst };
	const struct uet_pds *pds;
	struct uet_pds_cc_info ci;

	if (ctx == NULL || (pds = uet_ulp_ctx_pds(ctx)) == NULL ||
	    uet_pds_pdc_foreach(pds, initiator_to, &f) != 1)
		return -ENOENT;
	*bytes = uet_pds_cc_info_get(pds, f.pi.handle, &ci) == 0 ? ci.cwnd :
		 f.pi.cwnd;
	*srtt_ns = f.pi.srtt_ns;
	return 0;
}

void
perf_recovery_add(struct perf_recovery *rec, const struct uet_pds_stats *p)
{
	rec->sack += p->retx_sack;
	rec->again += p->retx_again;
	rec->nack += p->retx_nack;
	rec->trim += p->retx_trim;
	rec->rto += p->retx_rto;
	rec->probe += p->retx_probe;
	rec->tlp += p->retx_tlp;
	rec->backoff += p->retx_backoff;
	rec->cancelled += p->resend_cancelled;
	rec->rto_fires += p->rto_fires;
	rec->tlp_fires += p->tlp_fires;
	rec->rod_goback += p->rod_goback;
	rec->rod_stale += p->rod_nack_stale;
	rec->lb_recycled += p->lb_recycled;
	rec->lb_explored += p->lb_explored;
	rec->lb_freezes += p->lb_freezes;
}

void
perf_recovery_sub(struct perf_recovery *a, const struct perf_recovery *b)
{
	uint64_t *x = (uint64_t *)a;
	const uint64_t *y = (const uint64_t *)b;

	/* counters only, every one a uint64_t */
	RTE_BUILD_BUG_ON(sizeof(*a) % sizeof(uint64_t) != 0);
	for (size_t i = 0; i < sizeof(*a) / sizeof(uint64_t); i++)
		x[i] -= y[i];
}

uint64_t
perf_port_drops(struct uet_engine *e)
{
	struct rte_eth_stats st;
	uint64_t n = 0;

	for (unsigned int i = 0; i < uet_engine_nb_ports(e); i++)
		if (rte_eth_stats_get(uet_engine_port_id(e, i), &st) == 0)
			n += st.imissed + st.oerrors + st.rx_nombuf;
	return n;
}
