/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * uet-perf --fabric: a traffic pattern (pattern.c) over the emulated
 * fabric (src/fabric, pmd/fabric/fabric_eth.c), one unchanged engine per
 * emulated host in this process, every engine inline on this thread.
 * The virtual clock (default) jumps whenever every engine and the fabric
 * are idle, so a run is a function of its inputs and seeds; --clock real
 * runs the same loop on the TSC. The report is fabric_report.c's.
 *
 * What carries the flows is a transport (struct fabric_transport): the raw
 * ULP (fabric_raw.c, the default) or the SES ULP through channels
 * (fabric_ses.c, --ulp ses).
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_mbuf.h>

#include <uet/uet_parse.h>

#include <uet/uet_wire.h>

#include "fabric.h"

#define FABRIC_DEF_SIZE (64u << 10)
#define FABRIC_DEF_FLOW (2ull << 20)
#define FABRIC_DEF_SAMPLE_NS 10000ull
#define FABRIC_DEF_LIMIT_NS 1000000000ull
#define FABRIC_TAIL_NS 200000ull      /* quiet time after the last flow */
#define FABRIC_MAX_ITERATIONS 4000000000ull
#define FABRIC_MBUFS 1279u            /* per engine: TX ring + caches */
#define FABRIC_WARM_ROUNDS 4u
#define FABRIC_CC_WINDOW_BDP 4u       /* default window cap with a CC */

/* --config plus the --fabric pairs, validated by perf_fabric_check() */
static struct uet_config fabric_cfg;
static unsigned int fabric_run_no;
/* [cc] base_rtt / link_speed_mbps not given: the fabric's (fabric_setup) */
static bool fabric_cc_rtt_auto;
static bool fabric_cc_rate_auto;
/* [timers] rto_init / tlp_timeout not given: from the fabric's queues */
static bool fabric_rto_auto;
static bool fabric_tlp_auto;
/* [timers] syn_quiet not given: off (fabric_cc_auto()) */
static bool fabric_quiet_auto;

/* ------------------------------------------------------------------ */
/* options                                                             */
/* ------------------------------------------------------------------ */

/* "hosts=16,spines=4,fail=leaf0-spine1@50us": fabric.KEY=VALUE each. */
static int
spec_apply(struct uet_config *cfg, const char *spec)
{
	char buf[1024], one[UET_CONFIG_STR_LEN + 8];
	struct uet_config_error err;
	char *save = NULL;

	if (strlen(spec) >= sizeof(buf)) {
		fprintf(stderr, "uet-perf: --fabric: longer than %zu "
			"characters\n", sizeof(buf) - 1);
		return -EINVAL;
	}
	strcpy(buf, spec);
	for (char *kv = strtok_r(buf, ",", &save); kv != NULL;
	     kv = strtok_r(NULL, ",", &save)) {
		if (strchr(kv, '=') == NULL) {
			fprintf(stderr, "uet-perf: --fabric: '%s' is not "
				"KEY=VALUE (keys of [fabric], "
				"docs/CONFIG.md)\n", kv);
			return -EINVAL;
		}
		snprintf(one, sizeof(one), "fabric.%s", kv);
		if (uet_config_override(cfg, one, &err) < 0) {
			fprintf(stderr, "uet-perf: --fabric: %s\n", err.msg);
			return -EINVAL;
		}
	}
	return 0;
}

/* Flags a --fabric run does not use. */
static const char *
fabric_refused(const struct perf_opts *o)
{
	if (o->role != PERF_ROLE_NONE)
		return "--role: the fabric runs every host in this process";
	if (o->ulp == PERF_ULP_SES && o->op != PERF_OP_SEND)
		return "--ulp ses: flows are sends (--op send)";
	if (o->tagged)
		return "--tagged: --ulp ses flows are always tagged sends (match "
		       "bits of their own)";
	if (o->loss_ppm >= 0)
		return "--loss: set fabric loss_ppm instead";
	if (o->duration > 0 || o->count != 0)
		return "--duration/--count: a flow is --flow-size bytes";
	if (o->peers != 0)
		return "--peers: the pattern and fabric hosts choose them";
	if (o->capture != NULL)
		return "--capture: not on the fabric yet";
	if (o->pds_mode != UET_PDS_MODE_RUD && o->pds_mode != UET_PDS_MODE_ROD)
		return "--pds: rud or rod (flows are checked exactly once)";
	return NULL;
}

/*
 * Whether --config sets [cc] base_rtt and link_speed_mbps (a value equal
 * to the default is still the user's). Those not set are the fabric's,
 * in fabric_setup(), so that NSCC's BDP and RCCC's pacing match the emulated
 * links: a plain run is a fair run. The file loaded already; this only
 * looks for the two keys.
 */
static void
fabric_cc_auto(const struct perf_opts *o)
{
	fabric_cc_rtt_auto = !perf_config_sets(o, "cc", "base_rtt");
	fabric_cc_rate_auto = !perf_config_sets(o, "cc", "link_speed_mbps");
	fabric_rto_auto = !perf_config_sets(o, "timers", "rto_init");
	fabric_tlp_auto = !perf_config_sets(o, "timers", "tlp_timeout");
	fabric_quiet_auto = !perf_config_sets(o, "timers", "syn_quiet");
	/* Every host of the emulated fabric starts with its network:
	 * nothing sent to an earlier incarnation can be in it, and the
	 * target's quiet time after start would refuse the first window of
	 * every flow (docs/WIRE-DECISIONS.md "A SYN that reaches a
	 * restarted target"); --config may turn it on to measure that. */
	if (fabric_quiet_auto)
		fabric_cfg.timers.syn_quiet = false;
}

int
perf_fabric_check(struct perf_opts *o)
{
	struct perf_fabric_opts *f = &o->fab;
	struct uet_config_error err;
	const char *why = fabric_refused(o);
	uint32_t size;

	if (why != NULL) {
		fprintf(stderr, "uet-perf: --fabric: %s\n", why);
		return 2;
	}
	uet_config_init_defaults(&fabric_cfg);
	if (o->config != NULL &&
	    uet_config_load(&fabric_cfg, o->config, &err) < 0) {
		fprintf(stderr, "uet-perf: %s\n", err.msg);
		return 2;
	}
	fabric_cc_auto(o);
	if (f->spec != NULL && spec_apply(&fabric_cfg, f->spec) < 0)
		return 2;
	if (perf_spray_apply(o, &fabric_cfg) < 0 ||
	    perf_cc_apply(o, &fabric_cfg) < 0)
		return 2;
	if (uet_config_validate(&fabric_cfg, &err) < 0) {
		fprintf(stderr, "uet-perf: --fabric: %s\n", err.msg);
		return 2;
	}
	if (f->pattern == NULL)
		f->pattern = perf_pattern_find("permutation");
	if (f->flow_size == 0)
		f->flow_size = FABRIC_DEF_FLOW;
	size = o->size ? o->size : FABRIC_DEF_SIZE;
	if (size > f->flow_size) {
		fprintf(stderr, "uet-perf: --size %u: above --flow-size %llu "
			"(a flow is whole messages)\n", size,
			(unsigned long long)f->flow_size);
		return 2;
	}
	if (f->sample_ns == 0)
		f->sample_ns = FABRIC_DEF_SAMPLE_NS;
	if (f->limit_ns == 0)
		f->limit_ns = FABRIC_DEF_LIMIT_NS;
	return 0;
}

/* ------------------------------------------------------------------ */
/* setup                                                               */
/* ------------------------------------------------------------------ */

static void *
fabric_calloc(size_t n, size_t sz, bool *ok)
{
	void *p = calloc(n ? n : 1, sz);

	*ok = *ok && p != NULL;
	return p;
}

static int
fabric_alloc(struct fabric_run *p)
{
	uint32_t n = p->hosts;
	bool ok = true;

	p->flow = fabric_calloc(PERF_FABRIC_MAX_FLOWS, sizeof(*p->flow), &ok);
	p->nd = fabric_calloc(n, sizeof(*p->nd), &ok);
	p->nrx = fabric_calloc(n, sizeof(*p->nrx), &ok);
	p->eng = fabric_calloc(n, sizeof(*p->eng), &ok);
	p->pp = fabric_calloc(n, sizeof(*p->pp), &ok);
	p->pds = fabric_calloc(n, sizeof(*p->pds), &ok);
	return ok ? 0 : -ENOMEM;
}

/* Hosts that share an uplink: a leaf's, or a fat-tree pod's. */
static uint32_t
fabric_group(const struct uet_config_fabric *f)
{
	return f->topology == UET_CONFIG_FABRIC_FAT_TREE ?
	       f->k * f->k / 4 : f->hosts_per_leaf;
}

static int
fabric_flows(struct fabric_run *p)
{
	const struct perf_fabric_opts *fo = &p->o->fab;
	struct perf_flow_spec *spec;
	int n;

	spec = calloc(PERF_FABRIC_MAX_FLOWS, sizeof(*spec));
	if (spec == NULL)
		return -ENOMEM;
	n = fo->pattern->flows(p->hosts, fabric_group(&p->cfg->fabric),
			       p->o->seed, spec, PERF_FABRIC_MAX_FLOWS);
	if (n <= 0) {
		fprintf(stderr, "uet-perf: --pattern %s: %s for %u hosts\n",
			fo->pattern->name, n == -E2BIG ? "too many flows" :
			"no flow", p->hosts);
		free(spec);
		return n < 0 ? n : -EINVAL;
	}
	if (fo->senders != 0 && (uint32_t)n > fo->senders)
		n = (int)fo->senders; /* incast:N: hosts 1..N */
	p->nflows = (uint32_t)n;
	for (uint32_t i = 0; i < p->nflows; i++) {
		struct fabric_flow *f = &p->flow[i];

		f->spec = spec[i];
		f->spec.start_ns = i * fo->stagger_ns;
		f->tx_index = p->nd[f->spec.src]++;
		f->rx_index = p->nrx[f->spec.dst]++;
	}
	free(spec);
	return 0;
}

static void
fabric_add_neigh(struct fabric_run *p, struct uet_config *c, uint32_t peer)
{
	struct uet_config_neighbor *n;
	uint8_t a[16];

	(void)uet_fabric_host_addr_get(p->fab, peer, false, a);
	for (unsigned int i = 0; i < c->nb_neighbors; i++)
		if (memcmp(&c->neighbor[i].ip.v4, a, 4) == 0)
			return;
	n = &c->neighbor[c->nb_neighbors++];
	memset(n, 0, sizeof(*n));
	n->ip.family = AF_INET;
	memcpy(&n->ip.v4, a, 4);
	(void)uet_fabric_eth_host_mac(p->fe, peer, n->mac);
}

/*
 * Static neighbours for a host's peers (both ways) when they fit the
 * table, so that the first packets are not held awaiting ARP (the engine
 * holds 4 per neighbour and drops older ones); else ARP, which the
 * adapter answers.
 */
static void
fabric_neighbours(struct fabric_run *p, uint32_t h, struct uet_config *c)
{
	uint32_t peers = 0;

	c->nb_neighbors = 0;
	for (uint32_t i = 0; i < p->nflows; i++)
		peers += p->flow[i].spec.src == h || p->flow[i].spec.dst == h;
	if (peers > UET_CONFIG_MAX_NEIGHBORS)
		return;
	for (uint32_t i = 0; i < p->nflows; i++) {
		if (p->flow[i].spec.src == h)
			fabric_add_neigh(p, c, p->flow[i].spec.dst);
		else if (p->flow[i].spec.dst == h)
			fabric_add_neigh(p, c, p->flow[i].spec.src);
	}
}

static int
fabric_engine(struct fabric_run *p, uint32_t h)
{
	static struct uet_config c; /* large: not on the stack */
	struct uet_engine_params ep = {
		.cfg = &c, .hook = &uet_proto_hook_ops, .hook_arg = &p->pp[h],
	};
	struct uet_config_error err;
	char name[24];

	c = *p->cfg;
	for (unsigned int i = 1; i < UET_CONFIG_MAX_PORTS; i++)
		c.port[i].defined = false;
	c.port[0].mtu = (uint16_t)p->cfg->fabric.mtu;
	c.port[0].rx_queues = 1;
	c.port[0].tx_queues = 1;
	/* a ring pair: the engine's mbufs wait in its TX ring (the
	 * adapter's ring_size, 1024), RX rings hold the adapter's */
	c.port[0].rx_desc = 32;
	c.port[0].tx_desc = 1024;
	if (uet_fabric_eth_port_config(p->fe, h, &c, 0) < 0)
		return -EINVAL;
	c.engine.progress = UET_CONFIG_PROGRESS_INLINE;
	c.engine.nb_lcores = 1;
	c.engine.lcores[0] = 0;
	c.engine.mbuf_size = RTE_MAX(uet_config_mbuf_size(&c),
		RTE_PKTMBUF_HEADROOM + c.port[0].mtu + 64u);
	c.engine.mbuf_pool_size = FABRIC_MBUFS;
	c.engine.mbuf_cache = 32;
	fabric_neighbours(p, h, &c);
	if (uet_config_validate(&c, &err) < 0) {
		fprintf(stderr, "uet-perf: host %u: %s\n", h, err.msg);
		return -EINVAL;
	}
	uet_proto_pds_config(&c, &p->pds[h]);
	/* reproducible Start_PSNs: a run is a function of --seed */
	p->pds[h].seed = p->o->seed * 1000003u + h;
	p->pp[h].pds = &p->pds[h];
	snprintf(name, sizeof(name), "pf%u_%u", fabric_run_no, h);
	ep.name = name;
	ep.clock = p->virt ? uet_fabric_eth_clock(p->fe) : NULL;
	p->eng[h] = uet_engine_create(&ep);
	if (p->eng[h] == NULL) {
		fprintf(stderr, "uet-perf: engine %s: %s\n", name,
			rte_strerror(rte_errno));
		return -rte_errno;
	}
	return 0;
}

/* Bytes on a link per message: frames plus preamble, FCS and gap. */
static uint64_t
fabric_wire_per_msg(const struct fabric_run *p)
{
	uint32_t ses = p->ppm == 1 ? UET_SES_SMALL_LEN : UET_SES_STD_LEN;
	uint32_t per_pkt = 14 + 20 + 8 + UET_PDS_REQ_LEN + ses +
			   p->fc.frame_overhead;

	return p->size + (uint64_t)p->ppm * per_pkt;
}

/*
 * --window, or by default: without congestion control (the fixed window)
 * one BDP per flow; with NSCC or RCCC FABRIC_CC_WINDOW_BDP BDPs, a cap that
 * neither NSCC's max_wnd (1.5 BDP) nor a sprayed flow reaches, so the CC
 * decides. Raw: packets of full frames; ses: operations of --size bytes,
 * one more so that a new one is posted while the last ones complete.
 */
static uint32_t
fabric_window(const struct fabric_run *p)
{
	struct uet_fabric_thresholds th;
	uint64_t unit = p->tp == &fabric_transport_ses ? p->size :
			p->fc.mtu + p->fc.frame_overhead;
	uint64_t bdps = p->cfg->cc.algorithm == UET_CONFIG_CC_NONE ? 1 :
			FABRIC_CC_WINDOW_BDP;

	if (p->o->window)
		return p->o->window;
	uet_fabric_thresholds_get(p->fab, &th);
	return (uint32_t)RTE_MAX((bdps * th.bdp + unit - 1) / unit +
				 (p->tp == &fabric_transport_ses), 1ull);
}

static void
fabric_sample_hook(void *arg, const struct uet_fabric *fab, uint64_t now)
{
	(void)fab;
	fabric_csv_row(arg, now);
}

/*
 * [timers] rto_init and tlp_timeout the configuration does not set: the
 * unloaded round trip plus six full data queues (the trim threshold at
 * line rate), at least the longest round trip the fabric gives without
 * a loss (a fat-tree path crosses five switch ports), as htsim sets its
 * minimum RTO (15 us + 6 queues); the tail-loss probe at half of it, as
 * the defaults. The
 * engine's 1 ms default is 70 round trips of a 14 us fabric: with a
 * window of a few packets (an incast's share) a lost packet has no SACK
 * behind it and waited for that timer (docs/CONGESTION.md).
 */
static void
fabric_timers_from_fabric(struct fabric_run *p,
			  const struct uet_fabric_thresholds *th)
{
	uint64_t drain = th->trim * 8 * 1000000000ull / p->fc.link_rate_bps;
	uint64_t rto = th->base_rtt_ns + 6 * drain;

	if (fabric_rto_auto && rto >= fabric_cfg.timers.tick_ns) {
		fabric_cfg.timers.rto_init_ns = rto;
		if (fabric_cfg.timers.rto_max_ns < rto)
			fabric_cfg.timers.rto_max_ns = rto;
	}
	if (fabric_tlp_auto && fabric_cfg.timers.tlp_timeout_ns != 0)
		fabric_cfg.timers.tlp_timeout_ns =
			fabric_cfg.timers.rto_init_ns / 2;
}

/* [cc] base_rtt and link_speed_mbps the configuration does not set:
 * the fabric's unloaded round trip and link rate (fabric_cc_auto()). */
static int
fabric_cc_from_fabric(struct fabric_run *p)
{
	struct uet_fabric_thresholds th;
	struct uet_pds_cc_cms_config cc;
	const char *why = NULL;

	uet_fabric_thresholds_get(p->fab, &th);
	fabric_timers_from_fabric(p, &th);
	if (fabric_cc_rtt_auto)
		fabric_cfg.cc.base_rtt_ns = th.base_rtt_ns;
	if (fabric_cc_rate_auto)
		fabric_cfg.cc.link_speed_mbps =
			(uint32_t)(p->fc.link_rate_bps / 1000000u);
	if (fabric_cfg.cc.algorithm != UET_CONFIG_CC_NONE &&
	    uet_proto_cc_config(&fabric_cfg, &cc, &why) < 0) {
		fprintf(stderr, "uet-perf: [cc] from the fabric (base_rtt "
			"%" PRIu64 " ns, %u Mb/s): bad value of %s\n",
			fabric_cfg.cc.base_rtt_ns,
			fabric_cfg.cc.link_speed_mbps,
			why != NULL ? why : "?");
		return -EINVAL;
	}
	return 0;
}

static int
fabric_setup(struct fabric_run *p)
{
	struct uet_fabric_eth_params fp = { 0 };
	struct uet_ulp_ctx *ctx;
	char name[9];
	int rc;

	p->cfg = &fabric_cfg;
	p->virt = !p->o->fab.real_clock;
	p->csv = p->o->csv_file;
	p->sample_ns = p->o->fab.sample_ns;
	uet_fabric_eth_config_from(&p->cfg->fabric, &p->fc);
	/* the switches classify by the DSCPs the engines send */
	p->fc.dscp = (struct uet_fabric_dscp){
		.data = p->cfg->dscp.data, .control = p->cfg->dscp.control,
		.trimmed = p->cfg->dscp.trimmed,
		.trimmed_lasthop = p->cfg->dscp.trimmed_lasthop,
		.trimmable_retx = p->cfg->dscp.trimmable_retx,
	};
	if (p->csv != NULL && p->virt) {
		p->fc.sample = fabric_sample_hook;
		p->fc.sample_arg = p;
		p->fc.sample_ns = p->sample_ns;
	}
	snprintf(name, sizeof(name), "pf%u", ++fabric_run_no % 1000000);
	fp.fabric = &p->fc;
	fp.name = name;
	p->fe = uet_fabric_eth_create(&fp, &rc);
	if (p->fe == NULL) {
		fprintf(stderr, "uet-perf: fabric: %s\n", strerror(-rc));
		return rc;
	}
	p->fab = uet_fabric_eth_fabric(p->fe);
	p->hosts = uet_fabric_eth_hosts(p->fe);
	rc = fabric_cc_from_fabric(p);
	if (rc < 0)
		return rc;
	p->size = p->o->size ? p->o->size : FABRIC_DEF_SIZE;
	p->count = p->o->fab.flow_size / p->size;
	rc = fabric_alloc(p);
	if (rc == 0)
		rc = fabric_flows(p);
	if (rc < 0)
		return rc;
	p->window = fabric_window(p);
	rc = p->tp->hosts(p);
	for (uint32_t h = 0; rc == 0 && h < p->hosts; h++)
		rc = fabric_engine(p, h);
	if (rc < 0)
		return rc;
	ctx = uet_ulp_ctx_get(p->eng[0], 0);
	p->ppm = test_ulp_pkts_per_msg(p->size, uet_ulp_max_len(ctx));
	p->wire_per_msg = fabric_wire_per_msg(p);
	return 0;
}

static void
fabric_teardown(struct fabric_run *p)
{
	if (p->tp->detach != NULL)
		p->tp->detach(p);
	uet_fabric_eth_drain(p->fe);
	for (uint32_t h = 0; p->eng != NULL && h < p->hosts; h++)
		uet_engine_free(p->eng[h]);
	uet_fabric_eth_free(p->fe);
	p->tp->release(p);
	free(p->port_end);
	free(p->flow);
	free(p->nd);
	free(p->nrx);
	free(p->eng);
	free(p->pp);
	free(p->pds);
}

/* ------------------------------------------------------------------ */
/* the run                                                             */
/* ------------------------------------------------------------------ */

static bool
fabric_done(void *arg)
{
	const struct fabric_run *p = arg;

	return p->tp->done(p);
}

static bool
fabric_never(void *arg)
{
	(void)arg;
	return false;
}

/*
 * The application's share of a round: the transport's (its work counts
 * for the virtual clock) and, on the real clock, the CSV rows (the
 * fabric's clock is then the TSC).
 */
static unsigned int
fabric_poll(void *arg)
{
	struct fabric_run *p = arg;
	uint64_t now = p->virt ? uet_fabric_eth_now(p->fe) :
				 uet_engine_now(p->eng[0]);
	unsigned int work = p->tp->poll != NULL ? p->tp->poll(p, now) : 0;

	if (p->csv != NULL && !p->virt && now >= p->next_row) {
		fabric_csv_row(p, now);
		p->next_row = now + p->sample_ns;
	}
	return work;
}

/* Virtual clock: do not jump over a flow's start. */
static uint64_t
fabric_next(void *arg)
{
	const struct fabric_run *p = arg;
	uint64_t now = uet_fabric_eth_now(p->fe), t = UINT64_MAX;

	for (uint32_t i = 0; i < p->nflows; i++) {
		uint64_t s = p->t0 + p->flow[i].spec.start_ns;

		if (s > now && s < t)
			t = s;
	}
	return t;
}

static double
fabric_clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/*
 * Before the clock starts: a few rounds of every engine with no flow
 * started (the first rounds bring ports up and fill caches; on the real
 * clock they would otherwise count as the flows' time).
 */
static void
fabric_warm_up(struct fabric_run *p)
{
	for (unsigned int round = 0; round < FABRIC_WARM_ROUNDS; round++) {
		for (uint32_t h = 0; h < p->hosts; h++)
			(void)uet_engine_poll(p->eng[h], 1);
		(void)uet_fabric_eth_service(p->fe, p->virt ?
			uet_fabric_eth_now(p->fe) : uet_engine_now(p->eng[0]));
	}
}

static void
fabric_ports_snapshot(struct fabric_run *p)
{
	uint32_t n = 2 * uet_fabric_links(p->fab);

	p->port_end = calloc(n ? n : 1, sizeof(*p->port_end));
	for (uint32_t i = 0; p->port_end != NULL && i < n; i++)
		(void)uet_fabric_port_stats(p->fab, i, &p->port_end[i]);
}

static int
fabric_drive(struct fabric_run *p)
{
	struct uet_fabric_eth_run r = {
		.eng = p->eng, .nb_eng = p->hosts, .virtual_time = p->virt,
		.done = fabric_done, .arg = p, .poll = fabric_poll,
		.next = fabric_next,
		.max_iterations = FABRIC_MAX_ITERATIONS,
	};
	struct uet_fabric_eth_run_stats tail;
	double w0, c0;
	unsigned int line = 0;
	int rc;

	fabric_warm_up(p);
	p->t0 = p->virt ? uet_fabric_eth_now(p->fe) :
			  uet_engine_now(p->eng[0]);
	rc = p->tp->start(p);
	if (rc < 0) {
		fprintf(stderr, "uet-perf: --fabric: %s flows: %s\n",
			p->tp->name, strerror(-rc));
		return rc;
	}
	rc = uet_fabric_eth_schedule(p->fe, &p->cfg->fabric, p->t0, &line);
	if (rc < 0) {
		fprintf(stderr, "uet-perf: [fabric] schedule line %u: %s\n",
			line + 1, strerror(-rc));
		return rc;
	}
	p->next_row = p->t0;
	p->prev_row = p->t0;
	r.until_ns = p->t0 + p->o->fab.limit_ns;
	w0 = fabric_clock_s(CLOCK_MONOTONIC);
	c0 = fabric_clock_s(CLOCK_THREAD_CPUTIME_ID);
	p->run_rc = uet_fabric_eth_run(p->fe, &r, &p->rs);
	p->end_ns = p->virt ? p->rs.end_ns : uet_engine_now(p->eng[0]);
	fabric_ports_snapshot(p);
	p->tail_end_ns = p->end_ns;
	if (p->run_rc == 0) {
		/* a quiet tail: late duplicates or retransmissions would
		 * show (none after a run that did not finish: its numbers
		 * are those of the moment it stopped) */
		r.done = fabric_never;
		r.until_ns = p->end_ns + FABRIC_TAIL_NS;
		(void)uet_fabric_eth_run(p->fe, &r, &tail);
		p->tail_end_ns = p->virt ? tail.end_ns :
					   uet_engine_now(p->eng[0]);
	}
	p->wall_s = fabric_clock_s(CLOCK_MONOTONIC) - w0;
	p->cpu_s = fabric_clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
	p->rss_peak = perf_rss_peak_bytes();
	if (p->csv != NULL)
		fabric_csv_row(p, p->tail_end_ns);
	return 0;
}

int
perf_fabric_main(const struct perf_opts *o)
{
	struct fabric_run p;
	int rc, code;

	memset(&p, 0, sizeof(p));
	p.o = o;
	p.tp = o->ulp == PERF_ULP_SES ? &fabric_transport_ses :
					&fabric_transport_raw;
	p.rss_before = perf_rss_bytes();
	rc = fabric_setup(&p);
	p.rss_setup = perf_rss_bytes();
	if (rc == 0 && p.csv != NULL)
		fabric_csv_header(&p);
	if (rc == 0)
		rc = fabric_drive(&p);
	code = rc < 0 ? 1 : fabric_report(&p);
	fabric_teardown(&p);
	return code;
}
