/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --pdcs N: msgrate over N PDCs between the two in-process engines (raw
 * ULP). A PDC is keyed by {job, destination FA, TC, mode} (UEC 1.0 PDS
 * PDC lookup), so message seq goes on the PDC of job
 * PERF_TEST_ULP_JOB + (seq / K) % N (test_ulp.c; K: --pdc-burst, default
 * 1). After the run every initiator PDC is closed and both
 * engines are polled until no PDC is left: the state returns to zero.
 * Reported: PDCs opened, PDS bytes per PDC id (uet_pds_pdc_bytes), the
 * RSS the open PDCs added, the close time and the open+close rate.
 */

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>

#include <rte_cycles.h>

#include <uet/uet_pds.h>

#include "perf.h"

/* Closing: polls of both engines at most, and TSC seconds at most. */
#define PDCS_CLOSE_POLLS 100000000u
#define PDCS_CLOSE_SECONDS 60

int
perf_pdcs_opts_check(const struct perf_opts *o)
{
	if (o->pdcs <= 1)
		return 0;
	if (o->ulp == PERF_ULP_SES)
		return -EINVAL; /* the SES keys its peers by job too */
	if (o->role != PERF_ROLE_NONE || o->fab.on || o->interactive)
		return -EINVAL;
	if (o->modes != 1u) /* bit 0: perf_modes[0], msgrate */
		return -EINVAL;
	return 0;
}

int
perf_pdcs_cfg_check(const struct perf_opts *o, const struct uet_config *cfg)
{
	struct uet_pds_config pc;

	if (o->pdcs <= 1)
		return 0;
	uet_proto_pds_config(cfg, &pc);
	if (o->pdcs <= pc.max_pdcs)
		return 0;
	fprintf(stderr, "uet-perf: --pdcs %u: the configuration holds %u "
		"PDCs per role ([engine] pdc_pool_general %u, max_pdcs %u; "
		"PDC ids are 16 bits, [engine] pdc_pool_reserved %u of them "
		"reserved): raise [engine] pdc_pool_general and max_pdcs "
		"(--config)\n", o->pdcs, pc.max_pdcs,
		cfg->engine.pdc_pool_general, cfg->engine.max_pdcs,
		cfg->engine.pdc_pool_reserved);
	return -ERANGE;
}

uint64_t
perf_rss_bytes(void)
{
	unsigned long size = 0, rss = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f == NULL)
		return 0;
	if (fscanf(f, "%lu %lu", &size, &rss) != 2)
		rss = 0;
	fclose(f);
	return (uint64_t)rss * (uint64_t)sysconf(_SC_PAGESIZE);
}

uint64_t
perf_rss_peak_bytes(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return 0;
	return (uint64_t)ru.ru_maxrss * 1024; /* KiB on Linux */
}

static struct uet_pds *
pds_of(struct perf_sess *s, unsigned int i)
{
	return uet_ulp_ctx_pds(uet_ulp_ctx_get(perf_sess_engine(s, i), 0));
}

/* Close every initiator PDC of A (engine 1) that --pdcs opened. */
static uint32_t
close_all(struct perf_sess *s, uint32_t n, uint8_t mode, const uint8_t *ip_b)
{
	struct uet_ulp_ctx *ctx = uet_ulp_ctx_get(perf_sess_engine(s, 1), 0);
	struct uet_pds *p = uet_ulp_ctx_pds(ctx);
	struct uet_pds_fa peer;
	uint32_t closed = 0, h;

	memset(&peer, 0, sizeof(peer));
	memcpy(peer.addr, ip_b, 4);
	for (uint32_t j = 0; j < n; j++)
		if (uet_pds_pdc_find(p, &peer, PERF_TEST_ULP_JOB + j, 0, mode,
				     &h) == 0 &&
		    uet_pds_pdc_close(p, h, uet_ulp_now(ctx)) == 0)
			closed++;
	return closed;
}

static bool
none_left(struct perf_sess *s)
{
	struct uet_pds_pool_info a, b;

	uet_pds_pool_info_get(pds_of(s, 1), &a);
	uet_pds_pool_info_get(pds_of(s, 0), &b);
	return a.pdc_used[0] + a.pdc_used[1] + b.pdc_used[0] +
	       b.pdc_used[1] == 0 && a.tx_blk_used + b.rx_blk_used == 0;
}

void
perf_pdcs_finish(struct perf_sess *s, const struct perf_opts *o,
		 const uint8_t *ip_b, struct perf_report *r)
{
	struct perf_pdcs *x = &r->pdcs;
	struct uet_pds_pool_info a, b;
	uint64_t t0, limit, hz = rte_get_tsc_hz();
	uint32_t i;
	bool same;

	x->n = o->pdcs;
	x->burst = o->pdc_burst > 1 ? o->pdc_burst : 1;
	x->rss_delta = perf_rss_bytes() - x->rss0;
	uet_pds_pool_info_get(pds_of(s, 1), &a);
	uet_pds_pool_info_get(pds_of(s, 0), &b);
	x->open_a = a.pdc_used[0];
	x->open_b = b.pdc_used[1];
	x->bytes_a = uet_pds_pdc_bytes(pds_of(s, 1));
	x->bytes_b = uet_pds_pdc_bytes(pds_of(s, 0));
	/* Every PDC opens once, with its first message; more opens are
	 * PDCs closed idle while the run went round the others, re-opened
	 * by their next message. */
	x->opened = uet_pds_stats_get(pds_of(s, 1))->pdc_open_init;
	x->idle_closed = uet_pds_stats_get(pds_of(s, 1))->pdc_close_init;
	x->close_asked = close_all(s, o->pdcs, o->pds_mode, ip_b);
	t0 = rte_rdtsc();
	limit = t0 + PDCS_CLOSE_SECONDS * hz;
	for (i = 0; i < PDCS_CLOSE_POLLS && !none_left(s) &&
	     rte_rdtsc() < limit; i++) {
		(void)uet_engine_poll(perf_sess_engine(s, 1), 1);
		(void)uet_engine_poll(perf_sess_engine(s, 0), 1);
	}
	x->close_s = (double)(rte_rdtsc() - t0) / (double)hz;
	x->all_closed = none_left(s);
	/* A and B hold the same PDCs after the run, each found and closed,
	 * unless some closed idle in it: then some may still be closing
	 * when counted (not found by uet_pds_pdc_find(), or gone at A and
	 * not yet at B); none may be left after closing, either way. */
	same = x->idle_closed != 0 ||
	       (x->open_a == x->open_b && x->close_asked == x->open_a);
	if (r->verified && (!x->all_closed || !same)) {
		r->verified = false;
		r->why_not = !x->all_closed ? "PDCs left after closing" :
			     "PDCs open at A and B differ";
	}
}

void
perf_pdcs_print(const struct perf_report *r, FILE *f)
{
	const struct perf_pdcs *x = &r->pdcs;

	if (x->n == 0)
		return;
	fprintf(f, "  pdcs: %u asked (%u message%s in a row on each), %u open "
		"at A (initiator) / %u at B "
		"(target) after the run; PDS state %zu B (A) / %zu B (B) per "
		"PDC id; RSS +%.1f MiB during the run (%.0f B per open PDC)\n",
		x->n, x->burst, x->burst == 1 ? "" : "s", x->open_a,
		x->open_b, x->bytes_a, x->bytes_b,
		(double)x->rss_delta / (1 << 20),
		x->open_a ? (double)x->rss_delta / x->open_a : 0.0);
	fprintf(f, "  pdcs: opened %" PRIu64 " and closed %" PRIu64 " at A "
		"during the run (more opens than PDCs: closed idle, [timers] "
		"close_idle, and re-opened by their next message)\n",
		x->opened, x->idle_closed);
	fprintf(f, "  pdcs: closed %u in %.3f s (%.0f closes/s), %s; "
		"open+close: %.0f PDCs/s (run and close time)\n",
		x->close_asked, x->close_s,
		x->close_s > 0 ? x->close_asked / x->close_s : 0.0,
		x->all_closed ? "no PDC left on A or B" : "PDCs LEFT",
		r->seconds + x->close_s > 0 ?
		x->open_a / (r->seconds + x->close_s) : 0.0);
}

json_t *
perf_pdcs_json(const struct perf_report *r)
{
	const struct perf_pdcs *x = &r->pdcs;

	return json_pack("{s:i, s:i, s:i, s:i, s:I, s:I, s:i, s:b, s:I, s:I, "
			 "s:I, s:f}",
			 "asked", (int)x->n, "burst", (int)x->burst,
			 "open_a", (int)x->open_a,
			 "open_b", (int)x->open_b,
			 "opened_in_run", (json_int_t)x->opened,
			 "closed_in_run", (json_int_t)x->idle_closed,
			 "closed", (int)x->close_asked,
			 "all_closed", x->all_closed,
			 "bytes_per_id_a", (json_int_t)x->bytes_a,
			 "bytes_per_id_b", (json_int_t)x->bytes_b,
			 "rss_delta", (json_int_t)x->rss_delta,
			 "close_seconds", x->close_s);
}
