/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a uet-perf --fabric run measured: per-flow completion times
 * against the ideal, throughput and Jain fairness, retransmissions and
 * trims, queue occupancy and utilisation of every switch port, the
 * emulator's speed; printed as a summary, written as JSON (jansson) and,
 * per interval of emulated time, as CSV rows.
 */

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <rte_common.h>

#include <uet/uet_pds.h>
#include <uet/uet_wire.h>

#include "fabric.h"

static const char *const fabric_tier[] = { "host", "leaf", "spine", "core" };

/* "leaf0_host1" for the port from end @p dir of @p li to the other. */
static void
fabric_port_name(const struct uet_fabric_link_info *li, unsigned int dir,
		 char sep, char *buf, size_t n)
{
	snprintf(buf, n, "%s%u%c%s%u", fabric_tier[li->tier[dir] & 3],
		 li->index[dir], sep, fabric_tier[li->tier[1 - dir] & 3],
		 li->index[1 - dir]);
}

/* Switch output ports: the ones that queue (a host's only serialises). */
static bool
fabric_switch_port(const struct uet_fabric_link_info *li, unsigned int dir)
{
	return li->tier[dir] != UET_FABRIC_TIER_HOST;
}

/* ------------------------------------------------------------------ */
/* CSV time series                                                     */
/* ------------------------------------------------------------------ */

void
fabric_csv_header(struct fabric_run *p)
{
	struct uet_fabric_link_info li;
	char n[48];

	fprintf(p->csv, "time_us");
	for (uint32_t i = 0; i < p->nflows; i++)
		fprintf(p->csv, ",rate_gbps_%u_%u", p->flow[i].spec.src,
			p->flow[i].spec.dst);
	for (uint32_t i = 0; i < p->nflows; i++)
		fprintf(p->csv, ",cwnd_%u_%u", p->flow[i].spec.src,
			p->flow[i].spec.dst);
	for (uint32_t i = 0; i < p->nflows; i++)
		fprintf(p->csv, ",srtt_us_%u_%u", p->flow[i].spec.src,
			p->flow[i].spec.dst);
	fprintf(p->csv, ",queue_max_bytes,link_drops");
	for (uint32_t l = 0; l < uet_fabric_links(p->fab); l++) {
		if (uet_fabric_link_info(p->fab, l, &li) < 0)
			continue;
		for (unsigned int d = 0; d < 2; d++) {
			if (!fabric_switch_port(&li, d))
				continue;
			fabric_port_name(&li, d, '_', n, sizeof(n));
			fprintf(p->csv, ",q_%s", n);
		}
	}
	fputc('\n', p->csv);
}

/* Every flow's window (bytes), then every flow's smoothed RTT (us);
 * 0 while its PDC is not open. */
static void
fabric_csv_cwnd(struct fabric_run *p)
{
	for (unsigned int col = 0; col < 2; col++) {
		for (uint32_t i = 0; i < p->nflows; i++) {
			const struct fabric_flow *f = &p->flow[i];
			const struct test_ulp_dest *d =
				&p->dests[f->spec.src][f->tx_index];
			uint64_t w = 0, rtt = 0;

			if (perf_engine_cwnd(p->eng[f->spec.src], &d->peer,
					     &w, &rtt) < 0)
				w = rtt = 0;
			if (col == 0)
				fprintf(p->csv, ",%" PRIu64, w);
			else
				fprintf(p->csv, ",%.3f", (double)rtt / 1000.0);
		}
	}
}

void
fabric_csv_row(struct fabric_run *p, uint64_t t)
{
	struct uet_fabric_link_info li;
	struct uet_fabric_port_stats ps;
	uint64_t dt = t > p->prev_row ? t - p->prev_row : 0, qmax = 0;
	uint64_t link_drops = 0;

	fprintf(p->csv, "%.3f", (double)(t - p->t0) / 1000.0);
	for (uint32_t i = 0; i < p->nflows; i++) {
		struct fabric_flow *f = &p->flow[i];
		uint64_t b = p->tp->flow_bytes(p, i);

		/* bits per ns = Gb/s */
		fprintf(p->csv, ",%.3f", dt ? (double)(b - f->prev_bytes) *
			8.0 / (double)dt : 0.0);
		f->prev_bytes = b;
	}
	fabric_csv_cwnd(p);
	for (uint32_t l = 0; l < uet_fabric_links(p->fab); l++)
		for (unsigned int d = 0; d < 2; d++)
			if (uet_fabric_link_info(p->fab, l, &li) == 0 &&
			    fabric_switch_port(&li, d) &&
			    uet_fabric_port_stats(p->fab, li.port[d],
						  &ps) == 0) {
				qmax = RTE_MAX(qmax, ps.data_bytes);
				link_drops += ps.drops_link;
			}
	fprintf(p->csv, ",%" PRIu64 ",%" PRIu64, qmax, link_drops);
	for (uint32_t l = 0; l < uet_fabric_links(p->fab); l++) {
		if (uet_fabric_link_info(p->fab, l, &li) < 0)
			continue;
		for (unsigned int d = 0; d < 2; d++) {
			if (!fabric_switch_port(&li, d))
				continue;
			if (uet_fabric_port_stats(p->fab, li.port[d], &ps) < 0)
				ps.data_bytes = 0;
			fprintf(p->csv, ",%" PRIu64, ps.data_bytes);
		}
	}
	fputc('\n', p->csv);
	p->prev_row = t;
}

/* ------------------------------------------------------------------ */
/* statistics                                                          */
/* ------------------------------------------------------------------ */

struct fabric_fres {                 /* one flow */
	uint64_t bytes, msgs, lost;
	uint64_t start_ns, done_ns;  /* from the start of the run */
	double fct_us, ideal_us, ratio, gbps;
	bool complete;
};

struct fabric_totals {
	uint64_t tx_new, tx_retx, retx_nack, retx_rto, retx_sack, rto_fires;
	uint64_t retx_again, retx_probe, retx_backoff, retx_trim, retx_tlp;
	uint64_t resend_cancelled;
	uint64_t nack_trim_tx, nack_trim_rx, rx_trimmed, dup_rx;
	struct fabric_delivery d;
	uint64_t neigh_hold_drop, rx_malformed;
};

struct fabric_pres {                 /* one switch port */
	char name[48];
	struct uet_fabric_port_stats st;
	double util;
};

struct fabric_result {
	struct fabric_fres *f;
	struct fabric_pres *port;
	uint32_t nports;
	uint32_t bottleneck;         /* index in port[] */
	struct fabric_totals t;
	/* per flow, from its own start; first/last: from the run's start */
	double fct_min, fct_p50, fct_p99, fct_max, first_done_us, last_done_us;
	double ideal_last_us, jain, line_gbps, util_max, util_mean;
	double gbps_min, gbps_mean, gbps_max;
	uint64_t span_ns;            /* the run: t0 to the last flow done */
	struct uet_fabric_stats fab;
	struct uet_fabric_eth_stats fe;
	struct uet_fabric_thresholds th;
	bool complete, verified;
};

static double
fabric_ser_us(uint64_t bytes, uint64_t rate_bps)
{
	return (double)bytes * 8.0 * 1e6 / (double)rate_bps;
}

static int
fabric_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void
fabric_totals(struct fabric_run *p, struct fabric_totals *t)
{
	static struct uet_engine_stats es;

	memset(t, 0, sizeof(*t));
	for (uint32_t h = 0; h < p->hosts; h++) {
		struct uet_ulp_ctx *ctx = uet_ulp_ctx_get(p->eng[h], 0);
		const struct uet_ulp_stats *u = uet_ulp_ctx_stats(ctx);
		const struct uet_pds_stats *s =
			uet_pds_stats_get(uet_ulp_ctx_pds(ctx));

		t->tx_new += u->tx_new;
		t->tx_retx += u->tx_retx;
		t->rx_trimmed += u->rx_trimmed;
		t->retx_nack += s->retx_nack;
		t->retx_rto += s->retx_rto;
		t->retx_sack += s->retx_sack;
		t->retx_again += s->retx_again;
		t->retx_probe += s->retx_probe;
		t->retx_backoff += s->retx_backoff;
		t->retx_trim += s->retx_trim;
		t->retx_tlp += s->retx_tlp;
		t->resend_cancelled += s->resend_cancelled;
		t->rto_fires += s->rto_fires;
		t->dup_rx += s->dup_rx;
		t->nack_trim_tx += s->nack_tx[UET_NACK_TRIMMED] +
				   s->nack_tx[UET_NACK_TRIMMED_LASTHOP];
		t->nack_trim_rx += s->nack_rx[UET_NACK_TRIMMED] +
				   s->nack_rx[UET_NACK_TRIMMED_LASTHOP];
		if (uet_engine_stats_get(p->eng[h], &es) == 0) {
			t->neigh_hold_drop += es.total.neigh_hold_drop;
			t->rx_malformed += es.total.rx_malformed;
		}
	}
	p->tp->delivery(p, &t->d);
}

/* Links between two hosts: 2 under one leaf, 4 through a spine, 6
 * through a fat tree's core. */
static uint32_t
fabric_hops(const struct fabric_run *p, uint32_t a, uint32_t b)
{
	const struct uet_config_fabric *c = &p->cfg->fabric;
	uint32_t leaf = c->topology == UET_CONFIG_FABRIC_FAT_TREE ?
			c->k / 2 : c->hosts_per_leaf;
	uint32_t pod = c->k * c->k / 4;

	if (a / leaf == b / leaf)
		return 2;
	if (c->topology != UET_CONFIG_FABRIC_FAT_TREE || a / pod == b / pod)
		return 4;
	return 6;
}

/* Unloaded time from the first bit sent to the last received, beyond
 * the serialisation of the flow's bytes on one link: every other hop
 * stores and forwards the last frame, every link delays it. */
static double
fabric_path_us(const struct fabric_run *p, uint32_t hops)
{
	uint64_t frame = p->wire_per_msg / p->ppm;

	return (hops - 1) * fabric_ser_us(frame, p->fc.link_rate_bps) +
	       (double)(hops * p->cfg->fabric.link_delay_ns) / 1000.0;
}

static void
fabric_flow_stats(struct fabric_run *p, struct fabric_result *res)
{
	uint64_t rate = p->fc.link_rate_bps;
	uint64_t wire = p->count * p->wire_per_msg;
	double sum = 0, sum2 = 0, *fct;
	uint32_t n = 0;

	fct = calloc(p->nflows, sizeof(*fct));
	res->complete = fct != NULL;
	res->first_done_us = INFINITY;
	for (uint32_t i = 0; i < p->nflows; i++) {
		const struct fabric_flow *f = &p->flow[i];
		struct fabric_fres *r = &res->f[i];
		struct fabric_flow_out fl;

		memset(&fl, 0, sizeof(fl));
		p->tp->flow_out(p, i, &fl);
		r->bytes = fl.bytes;
		r->msgs = fl.msgs;
		r->lost = fl.lost;
		r->start_ns = f->spec.start_ns;
		r->complete = fl.complete;
		r->ideal_us = fabric_ser_us(wire, rate) +
			      fabric_path_us(p, fabric_hops(p, f->spec.src,
							    f->spec.dst));
		res->complete = res->complete && r->complete;
		if (!r->complete)
			continue;
		r->done_ns = fl.done_ns - p->t0;
		r->fct_us = (double)(r->done_ns - r->start_ns) / 1000.0;
		r->ratio = r->fct_us / r->ideal_us;
		r->gbps = (double)r->bytes * 8.0 / (r->fct_us * 1000.0);
		res->first_done_us = RTE_MIN(res->first_done_us,
					     (double)r->done_ns / 1000.0);
		res->last_done_us = RTE_MAX(res->last_done_us,
					    (double)r->done_ns / 1000.0);
		res->ideal_last_us = RTE_MAX(res->ideal_last_us,
			(double)r->start_ns / 1000.0 + r->ideal_us);
		sum += r->gbps;
		sum2 += r->gbps * r->gbps;
		res->gbps_min = n == 0 ? r->gbps :
				 RTE_MIN(res->gbps_min, r->gbps);
		res->gbps_max = RTE_MAX(res->gbps_max, r->gbps);
		fct[n++] = r->fct_us;
	}
	if (n > 0) {
		qsort(fct, n, sizeof(*fct), fabric_cmp_double);
		res->fct_min = fct[0];
		res->fct_p50 = fct[(n - 1) / 2];
		res->fct_p99 = fct[RTE_MIN(n - 1, (n * 99 + 99) / 100 - 1)];
		res->fct_max = fct[n - 1];
		res->jain = sum2 > 0 ? sum * sum / ((double)n * sum2) : 0;
		res->gbps_mean = sum / n;
	} else {
		res->first_done_us = 0;
	}
	free(fct);
}

/*
 * The busiest host link bounds the last completion from below: every
 * byte through it, after the shortest unloaded path of its flows (flows
 * all starting at 0; with staggered starts the per-flow bound above may
 * be the larger).
 */
static void
fabric_ideal_last(const struct fabric_run *p, struct fabric_result *res)
{
	uint64_t *load = calloc(2 * (size_t)p->hosts, sizeof(*load));
	uint32_t *hops = calloc(2 * (size_t)p->hosts, sizeof(*hops));
	uint64_t wire = p->count * p->wire_per_msg;

	for (uint32_t i = 0; load != NULL && hops != NULL &&
	     i < p->nflows; i++) {
		const struct perf_flow_spec *f = &p->flow[i].spec;
		uint32_t n = fabric_hops(p, f->src, f->dst);
		uint32_t end[2] = { 2 * f->src, 2 * f->dst + 1 };

		for (unsigned int e = 0; e < 2; e++) {
			load[end[e]] += wire;
			if (hops[end[e]] == 0 || n < hops[end[e]])
				hops[end[e]] = n;
		}
	}
	for (uint32_t h = 0; load != NULL && hops != NULL &&
	     h < 2 * p->hosts; h++)
		if (load[h] > 0)
			res->ideal_last_us = RTE_MAX(res->ideal_last_us,
				fabric_ser_us(load[h], p->fc.link_rate_bps) +
				fabric_path_us(p, hops[h]));
	free(load);
	free(hops);
}

static void
fabric_port_stats(const struct fabric_run *p, struct fabric_result *res)
{
	struct uet_fabric_link_info li;
	double span = (double)res->span_ns, sum = 0;
	uint32_t busy = 0;

	for (uint32_t l = 0; l < uet_fabric_links(p->fab); l++) {
		if (uet_fabric_link_info(p->fab, l, &li) < 0)
			continue;
		for (unsigned int d = 0; d < 2; d++) {
			struct fabric_pres *x = &res->port[res->nports];

			if (!fabric_switch_port(&li, d) || p->port_end == NULL)
				continue;
			x->st = p->port_end[li.port[d]];
			fabric_port_name(&li, d, '>', x->name, sizeof(x->name));
			x->util = span > 0 ? (double)x->st.busy_ns / span : 0;
			if (x->st.tx_frames > 0) {
				sum += x->util;
				busy++;
			}
			res->util_max = RTE_MAX(res->util_max, x->util);
			if (x->st.data_max >
			    res->port[res->bottleneck].st.data_max)
				res->bottleneck = res->nports;
			res->nports++;
		}
	}
	res->util_mean = busy ? sum / busy : 0;
}

static void
fabric_compute(struct fabric_run *p, struct fabric_result *res)
{
	uet_fabric_thresholds_get(p->fab, &res->th);
	uet_fabric_stats_get(p->fab, &res->fab);
	uet_fabric_eth_stats_get(p->fe, &res->fe);
	fabric_totals(p, &res->t);
	fabric_flow_stats(p, res);
	fabric_ideal_last(p, res);
	res->span_ns = p->end_ns - p->t0;
	fabric_port_stats(p, res);
	res->line_gbps = (double)p->fc.link_rate_bps / 1e9;
	res->verified = res->complete && p->run_rc == 0 &&
			res->t.d.rx_dup == 0 && res->t.d.rx_bad == 0 &&
			res->t.d.rx_lost == 0 && res->t.d.done_err == 0 &&
			res->t.d.rx_order_err == 0;
}

/* ------------------------------------------------------------------ */
/* summary                                                             */
/* ------------------------------------------------------------------ */

static int
fabric_cmp_port(const void *a, const void *b)
{
	const struct fabric_pres *x = a, *y = b;

	if (x->st.data_max != y->st.data_max)
		return x->st.data_max < y->st.data_max ? 1 : -1;
	return x->util < y->util ? 1 : x->util > y->util ? -1 : 0;
}

/* raw: packets of a flow in flight; ses: its operations */
static const char *
fabric_window_unit(const struct fabric_run *p)
{
	return p->tp == &fabric_transport_ses ? "operations" : "packets";
}

/*
 * Why a run stopped before it was done. The usual cause is the emulated
 * time limit, which strerror(ETIMEDOUT) would report as "Connection timed
 * out", as if a PDC had failed (a failed PDC counts in "failed" instead).
 * Every message delivered but the run not done: a sender still waits for
 * the acknowledgement of one (e.g. its retransmissions' ACKs keep taking
 * a failed link while the RTO doubles).
 */
static double
fabric_mib(uint64_t bytes)
{
	return (double)bytes / (1 << 20);
}

/* What each emulated host added to the process at its peak: the fabric,
 * the engines and their pools, the frames in flight. */
static uint64_t
fabric_rss_per_host(const struct fabric_run *p)
{
	return p->rss_peak > p->rss_before ?
	       (p->rss_peak - p->rss_before) / p->hosts : 0;
}

static void
fabric_print_end(const struct fabric_run *p, const struct fabric_result *res,
		 FILE *f)
{
	double lim = (double)p->o->fab.limit_ns;

	if (p->run_rc == 0)
		return;
	if (p->run_rc != -ETIMEDOUT || p->end_ns - p->t0 < p->o->fab.limit_ns) {
		fprintf(f, "  run ended early: %s\n", strerror(-p->run_rc));
		return;
	}
	fprintf(f, "  run ended early: the emulated time limit (%g %s, "
		"--time-limit) passed %s\n", lim >= 1e9 ? lim / 1e9 :
		lim >= 1e6 ? lim / 1e6 : lim / 1e3,
		lim >= 1e9 ? "s" : lim >= 1e6 ? "ms" : "us", res->complete ?
		"with every message delivered but a sender still waiting for "
		"an acknowledgement" : "with messages still to deliver");
}

static void
fabric_print(const struct fabric_run *p, const struct fabric_result *res,
	     FILE *f)
{
	const struct fabric_totals *t = &res->t;
	const struct uet_config_fabric *c = &p->cfg->fabric;
	struct fabric_pres *top = calloc(res->nports ? res->nports : 1,
					 sizeof(*top));
	double emu_s = (double)(p->tail_end_ns - p->t0) / 1e9;

	fprintf(f, "fabric: %u hosts (%s), %g Gb/s, %" PRIu64 " ns links, "
		"MTU %u, BDP %" PRIu64 " B (base RTT %.2f us), trimming %s, "
		"ECN %s, %s clock\n", p->hosts,
		c->topology == UET_CONFIG_FABRIC_FAT_TREE ? "fat tree" :
		"leaf/spine", res->line_gbps, c->link_delay_ns, c->mtu,
		res->th.bdp, (double)res->th.base_rtt_ns / 1000.0,
		c->trimming ? "on" : "off", c->ecn ? "on" : "off",
		p->virt ? "virtual" : "real");
	fprintf(f, "traffic: %s, %u flows of %" PRIu64 " B (%" PRIu64
		" messages of %u B, %u packets each), window %u %s per "
		"flow, CC %s ([cc] base_rtt %.2f us, %u Mb/s), load "
		"balancing %s, PDS %s, ULP %s\n", p->o->fab.pattern->name,
		p->nflows, p->count * p->size, p->count, p->size, p->ppm,
		p->window, fabric_window_unit(p),
		perf_cc_name((int)p->cfg->cc.algorithm),
		(double)p->cfg->cc.base_rtt_ns / 1000.0,
		p->cfg->cc.link_speed_mbps,
		perf_spray_name((int)p->cfg->spray.mode),
		perf_pds_name(p->o->pds_mode), p->tp->name);
	/* Two origins: a flow's completion time counts from its own start,
	 * first/last from the run's (they differ with --start staggered) */
	fprintf(f, "  completion (us): per flow min %.1f, p50 %.1f, p99 %.1f, "
		"max %.1f; from the start of the run first %.1f, last %.1f; "
		"ideal last %.1f (x%.2f)\n",
		res->fct_min, res->fct_p50, res->fct_p99, res->fct_max,
		res->first_done_us, res->last_done_us, res->ideal_last_us,
		res->ideal_last_us > 0 ? res->last_done_us /
		res->ideal_last_us : 0);
	fprintf(f, "  throughput per flow (Gb/s, fraction of line rate): min "
		"%.4g (%.2f), mean %.4g (%.2f), max %.4g (%.2f); Jain %.4f\n",
		res->gbps_min, res->gbps_min / res->line_gbps, res->gbps_mean,
		res->gbps_mean / res->line_gbps, res->gbps_max,
		res->gbps_max / res->line_gbps, res->jain);
	fprintf(f, "  packets: %" PRIu64 " new, %" PRIu64 " retransmitted "
		"(sent after a trim NACK %" PRIu64 ", other NACK %" PRIu64
		", RTO %" PRIu64 ", SACK %" PRIu64 ", lost again %" PRIu64
		", probe %" PRIu64 ", TLP %" PRIu64 ", back-off %" PRIu64
		"; %" PRIu64 " marked but acknowledged before they left); "
		"trims %" PRIu64 " (received %" PRIu64 ", trim NACKs sent %"
		PRIu64 " / received %" PRIu64 "); ECN marks %" PRIu64
		"; drops %" PRIu64 "\n", t->tx_new, t->tx_retx, t->retx_trim,
		t->retx_nack, t->retx_rto, t->retx_sack, t->retx_again,
		t->retx_probe, t->retx_tlp, t->retx_backoff,
		t->resend_cancelled, res->fab.trims, t->rx_trimmed,
		t->nack_trim_tx, t->nack_trim_rx, res->fab.marks,
		res->fab.drops);
	if (top != NULL && res->nports > 0) {
		memcpy(top, res->port, res->nports * sizeof(*top));
		qsort(top, res->nports, sizeof(*top), fabric_cmp_port);
		fprintf(f, "  queues (data bytes max / p99 / p50, "
			"utilisation):");
		for (uint32_t i = 0; i < RTE_MIN(res->nports, 3u); i++)
			fprintf(f, "%s %s %" PRIu64 " / %" PRIu64 " / %" PRIu64
				" %.0f%%", i ? ";" : "", top[i].name,
				top[i].st.data_max, top[i].st.data_p99,
				top[i].st.data_p50, 100.0 * top[i].util);
		fprintf(f, "\n  links: utilisation max %.0f%%, mean %.0f%% of "
			"the switch ports that carried traffic\n",
			100.0 * res->util_max, 100.0 * res->util_mean);
	}
	free(top);
	fprintf(f, "  delivery: %" PRIu64 " messages, duplicates %" PRIu64
		", lost %" PRIu64 ", bad %" PRIu64 ", failed %" PRIu64 ": %s\n",
		t->d.rx_msgs, t->d.rx_dup, t->d.rx_lost, t->d.rx_bad,
		t->d.done_err,
		res->verified ? "every flow complete, exactly once" :
		"NOT VERIFIED");
	fprintf(f, "  emulator: %" PRIu64 " frames, %" PRIu64 " events in "
		"%.3f s wall (%.3f s CPU): %.0f frames/s, %.0f events/s; "
		"%.1f us emulated, %" PRIu64 " iterations, %" PRIu64
		" clock jumps\n", res->fab.delivered, res->fab.events,
		p->wall_s, p->cpu_s, p->wall_s > 0 ?
		(double)res->fab.delivered / p->wall_s : 0,
		p->wall_s > 0 ? (double)res->fab.events / p->wall_s : 0,
		emu_s * 1e6, p->rs.iterations, p->rs.jumps);
	fprintf(f, "  memory: resident %.1f MiB before the fabric and its "
		"engines, %.1f MiB once built, peak %.1f MiB: %.2f MiB per "
		"emulated host\n", fabric_mib(p->rss_before),
		fabric_mib(p->rss_setup), fabric_mib(p->rss_peak),
		fabric_mib(fabric_rss_per_host(p)));
	fabric_print_end(p, res, f);
}

/* ------------------------------------------------------------------ */
/* JSON                                                                */
/* ------------------------------------------------------------------ */

static json_t *
fabric_json_flows(const struct fabric_run *p, const struct fabric_result *res)
{
	json_t *a = json_array();

	for (uint32_t i = 0; a != NULL && i < p->nflows; i++) {
		const struct fabric_fres *r = &res->f[i];

		json_array_append_new(a, json_pack(
			"{s:i, s:i, s:I, s:I, s:I, s:b, s:f, s:f, s:f, s:f, "
			"s:f}",
			"src", (json_int_t)p->flow[i].spec.src,
			"dst", (json_int_t)p->flow[i].spec.dst,
			"bytes", (json_int_t)r->bytes,
			"lost_packets", (json_int_t)r->lost,
			"start_ns", (json_int_t)r->start_ns,
			"complete", r->complete,
			"fct_us", r->fct_us, "ideal_us", r->ideal_us,
			"ratio", r->ratio, "gbps", r->gbps,
			"line_rate_fraction", r->gbps / res->line_gbps));
	}
	return a;
}

static json_t *
fabric_json_ports(const struct fabric_result *res)
{
	json_t *a = json_array();

	for (uint32_t i = 0; a != NULL && i < res->nports; i++) {
		const struct fabric_pres *x = &res->port[i];

		json_array_append_new(a, json_pack(
			"{s:s, s:I, s:I, s:f, s:I, s:I, s:I, s:I, s:I, s:I, "
			"s:I}",
			"port", x->name,
			"tx_frames", (json_int_t)x->st.tx_frames,
			"tx_bytes", (json_int_t)x->st.tx_bytes,
			"utilisation", x->util,
			"queue_max", (json_int_t)x->st.data_max,
			"queue_p99", (json_int_t)x->st.data_p99,
			"queue_p50", (json_int_t)x->st.data_p50,
			"marks", (json_int_t)x->st.marks,
			"trims", (json_int_t)x->st.trims,
			"drops", (json_int_t)(x->st.drops_tail +
					      x->st.drops_untrimmable +
					      x->st.drops_link +
					      x->st.drops_loss),
			"drops_link", (json_int_t)x->st.drops_link));
	}
	return a;
}

static json_t *
fabric_json(const struct fabric_run *p, const struct fabric_result *res)
{
	const struct uet_config_fabric *c = &p->cfg->fabric;
	const struct fabric_totals *t = &res->t;
	const struct fabric_pres *b = res->nports ?
				      &res->port[res->bottleneck] : NULL;

	return json_pack(
		"{s:s, s:{s:s, s:i, s:f, s:I, s:i, s:I, s:I, s:b, s:b, s:s},"
		" s:{s:s, s:i, s:I, s:i, s:I, s:i, s:s, s:s, s:s, s:s, s:s,"
		" s:I, s:I, s:I, s:I},"
		" s:{s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f}, s:f,"
		" s:{s:f, s:f, s:f},"
		" s:o, s:o, s:{s:s?, s:I, s:f, s:f},"
		" s:{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I,"
		" s:I, s:I, s:I, s:I, s:I, s:I},"
		" s:{s:I, s:I, s:I, s:I, s:b},"
		" s:{s:I, s:I, s:f, s:f, s:f, s:f, s:I, s:I},"
		" s:{s:I, s:I, s:I, s:I}, s:b}",
		"tool", "uet-perf",
		"fabric", "topology",
			c->topology == UET_CONFIG_FABRIC_FAT_TREE ?
			"fat_tree" : "leaf_spine",
		"hosts", (int)p->hosts, "link_gbps", res->line_gbps,
		"link_delay_ns", (json_int_t)c->link_delay_ns,
		"mtu", (int)c->mtu, "bdp_bytes", (json_int_t)res->th.bdp,
		"base_rtt_ns", (json_int_t)res->th.base_rtt_ns,
		"trimming", c->trimming, "ecn", c->ecn,
		"clock", p->virt ? "virtual" : "real",
		"traffic", "pattern", p->o->fab.pattern->name,
		"flows", (int)p->nflows,
		"flow_bytes", (json_int_t)(p->count * p->size),
		"message_bytes", (int)p->size,
		"messages_per_flow", (json_int_t)p->count,
		"window", (int)p->window, "window_unit", fabric_window_unit(p),
		"pds", perf_pds_name(p->o->pds_mode), "ulp", p->tp->name,
		"cc", perf_cc_name((int)p->cfg->cc.algorithm),
		"load_balancing", perf_spray_name((int)p->cfg->spray.mode),
		"cc_base_rtt_ns", (json_int_t)p->cfg->cc.base_rtt_ns,
		"rto_init_ns", (json_int_t)p->cfg->timers.rto_init_ns,
		"tlp_timeout_ns", (json_int_t)p->cfg->timers.tlp_timeout_ns,
		"seed", (json_int_t)p->o->seed,
		"completion_us", "first", res->first_done_us,
		"min", res->fct_min, "p50", res->fct_p50, "p99", res->fct_p99, "max", res->fct_max,
		"last", res->last_done_us, "ideal_last", res->ideal_last_us,
		"ratio", res->ideal_last_us > 0 ? res->last_done_us /
			res->ideal_last_us : 0.0,
		"jain", res->jain,
		"flow_gbps", "min", res->gbps_min, "mean", res->gbps_mean,
		"max", res->gbps_max,
		"flow", fabric_json_flows(p, res),
		"ports", fabric_json_ports(res),
		"bottleneck", "port", b != NULL ? b->name : NULL,
		"queue_max", (json_int_t)(b != NULL ? b->st.data_max : 0),
		"utilisation_max", res->util_max,
		"utilisation_mean", res->util_mean,
		"packets", "new", (json_int_t)t->tx_new,
		"retransmitted", (json_int_t)t->tx_retx,
		"retx_nack", (json_int_t)t->retx_nack,
		"retx_rto", (json_int_t)t->retx_rto,
		"retx_sack", (json_int_t)t->retx_sack,
		"retx_again", (json_int_t)t->retx_again,
		"retx_probe", (json_int_t)t->retx_probe,
		"retx_trim", (json_int_t)t->retx_trim,
		"retx_tlp", (json_int_t)t->retx_tlp,
		"retx_backoff", (json_int_t)t->retx_backoff,
		"resend_cancelled", (json_int_t)t->resend_cancelled,
		"trims", (json_int_t)res->fab.trims,
		"trimmed_received", (json_int_t)t->rx_trimmed,
		"trim_nacks_sent", (json_int_t)t->nack_trim_tx,
		"trim_nacks_received", (json_int_t)t->nack_trim_rx,
		"ecn_marks", (json_int_t)res->fab.marks,
		"fabric_drops", (json_int_t)res->fab.drops,
		"delivery", "messages", (json_int_t)t->d.rx_msgs,
		"duplicates", (json_int_t)t->d.rx_dup,
		"lost_packets", (json_int_t)t->d.rx_lost,
		"bad", (json_int_t)t->d.rx_bad, "exactly_once",
		t->d.rx_dup == 0 && t->d.rx_lost == 0 && t->d.rx_bad == 0,
		"emulator", "frames", (json_int_t)res->fab.delivered,
		"events", (json_int_t)res->fab.events,
		"wall_s", p->wall_s, "cpu_s", p->cpu_s,
		"frames_per_wall_s", p->wall_s > 0 ?
			(double)res->fab.delivered / p->wall_s : 0.0,
		"emulated_us", (double)(p->tail_end_ns - p->t0) / 1000.0,
		"iterations", (json_int_t)p->rs.iterations,
		"clock_jumps", (json_int_t)p->rs.jumps,
		"memory", "rss_before_bytes", (json_int_t)p->rss_before,
		"rss_built_bytes", (json_int_t)p->rss_setup,
		"rss_peak_bytes", (json_int_t)p->rss_peak,
		"per_host_bytes", (json_int_t)fabric_rss_per_host(p),
		"verified", res->verified);
}

static int
fabric_json_write(const struct fabric_run *p, const struct fabric_result *res)
{
	const char *path = p->o->json_path;
	json_t *root = fabric_json(p, res);
	size_t flags = JSON_INDENT(1) | JSON_REAL_PRECISION(9);
	int rc;

	if (root == NULL) {
		fprintf(stderr, "uet-perf: --json: could not build the "
			"report\n");
		return -ENOMEM;
	}
	if (path != NULL)
		rc = json_dump_file(root, path, flags);
	else
		rc = json_dumpf(root, stdout, flags) == 0 &&
		     fputc('\n', stdout) != EOF ? 0 : -1;
	json_decref(root);
	if (rc != 0) {
		fprintf(stderr, "uet-perf: --json %s: cannot write\n",
			path != NULL ? path : "(stdout)");
		return -EIO;
	}
	return 0;
}

int
fabric_report(struct fabric_run *p)
{
	struct fabric_result res;
	int code;

	memset(&res, 0, sizeof(res));
	res.f = calloc(p->nflows, sizeof(*res.f));
	res.port = calloc(2 * (size_t)uet_fabric_links(p->fab) + 1,
			  sizeof(*res.port));
	if (res.f == NULL || res.port == NULL) {
		free(res.f);
		free(res.port);
		return 1;
	}
	fabric_compute(p, &res);
	if (!p->o->json || p->o->json_path != NULL)
		fabric_print(p, &res, stdout);
	code = res.verified ? 0 : 1;
	if (p->o->json && fabric_json_write(p, &res) < 0)
		code = 2;
	free(res.f);
	free(res.port);
	return code;
}
