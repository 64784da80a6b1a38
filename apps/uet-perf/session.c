/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * In-process runs of uet-perf (batch, interactive, incast). Engines are
 * joined by ring ports (rte_eth_from_rings) and driven inline by the
 * calling thread, one poll slice at a time so that the interactive prompt
 * stays responsive and statistics are sampled between slices.
 *
 * The mode (struct perf_mode) is chosen once per run and names the
 * topology that joins the engines (struct perf_topology):
 *
 *   perf_topology_pair (here):      A (sender) perfA <-> perfB B (receiver)
 *   perf_topology_switch (incast.c): S0..SN-1 -> R, a switch returns ACKs
 *
 * Traffic source (--ulp): raw, the raw-PDS test ULP on each engine
 * (test_ulp.c); ses, the engine's SES ULP on each engine and the SES driver
 * (ses_driver.c) posting to their channels between engine polls. The
 * end of a run (draining, results, counters) is session_results.c's.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ring.h>

#include "session.h"

#define SESS_MAX_SECONDS 300.0
#define SESS_SLICE_ROUNDS 256    /* per step, at most (a step is ~1 ms) */

static const uint8_t ip_a[4] = { 10, 0, 0, 1 };
const uint8_t perf_sess_ip_b[4] = { 10, 0, 0, 2 };
static const uint8_t mac_a[6] = { 0x02, 0, 0, 0, 0, 0x0a };
static const uint8_t mac_b[6] = { 0x02, 0, 0, 0, 0, 0x0b };

static bool pair_ports_made;
static unsigned int run_no;

/* CPU time of the calling thread (excludes preemption), seconds. */
static double
thread_cpu_s(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return 0;
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ------------------------------------------------------------------ */
/* ports                                                               */
/* ------------------------------------------------------------------ */

/* Ring ports A <-> B, made once per process (a run drains its own). */
static int
pair_ports(unsigned int senders)
{
	struct rte_ring *ab, *ba;

	(void)senders; /* one */
	if (pair_ports_made)
		return 0;
	ab = rte_ring_create("perf_ab", SESS_RING_SIZE, SOCKET_ID_ANY,
			     RING_F_SP_ENQ | RING_F_SC_DEQ);
	ba = rte_ring_create("perf_ba", SESS_RING_SIZE, SOCKET_ID_ANY,
			     RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (ab == NULL || ba == NULL)
		return -ENOMEM;
	if (rte_eth_from_rings("perfA", &ba, 1, &ab, 1, SOCKET_ID_ANY) < 0 ||
	    rte_eth_from_rings("perfB", &ab, 1, &ba, 1, SOCKET_ID_ANY) < 0)
		return -rte_errno;
	pair_ports_made = true;
	return 0;
}

static unsigned int
pair_senders(const struct perf_opts *o)
{
	(void)o;
	return 1;
}

static void
pair_sender(unsigned int i, char *dev, size_t len, uint8_t ip[4],
	    uint8_t mac[6])
{
	(void)i; /* one */
	snprintf(dev, len, "net_ring_perfA");
	memcpy(ip, ip_a, 4);
	memcpy(mac, mac_a, 6);
}

const struct perf_topology perf_topology_pair = {
	.senders = pair_senders,
	.ports = pair_ports,
	.receiver_dev = "net_ring_perfB",
	.sender = pair_sender,
	.results = perf_sess_pair_results,
};

/* ------------------------------------------------------------------ */
/* engines                                                             */
/* ------------------------------------------------------------------ */

static void
side_cfg(struct uet_config *c, const struct uet_config *base,
	 const char *dev, const uint8_t *ip, const uint8_t *mac)
{
	*c = *base;
	for (unsigned int i = 1; i < UET_CONFIG_MAX_PORTS; i++)
		c->port[i].defined = false;
	c->port[0].defined = true;
	snprintf(c->port[0].devargs, sizeof(c->port[0].devargs), "%s", dev);
	c->port[0].has_ipv4 = true;
	memcpy(&c->port[0].ipv4, ip, 4);
	c->port[0].has_ipv6 = false;
	c->port[0].has_mac = true;
	memcpy(c->port[0].mac, mac, 6);
	c->port[0].rx_queues = 1;
	c->port[0].tx_queues = 1;
	c->engine.progress = UET_CONFIG_PROGRESS_INLINE;
	c->engine.nb_lcores = 1;
	c->engine.lcores[0] = 0;
	c->nb_neighbors = 0;
}

static void
add_neigh(struct uet_config *c, const uint8_t *ip, const uint8_t *mac)
{
	struct uet_config_neighbor *n = &c->neighbor[c->nb_neighbors++];

	n->ip.family = AF_INET;
	memcpy(&n->ip.v4, ip, 4);
	memcpy(n->mac, mac, 6);
}

static struct uet_engine *
engine_make(const char *tag, unsigned int i, const struct uet_config *c,
	    const struct uet_proto_params *pp)
{
	struct uet_engine_params p = {
		.cfg = c, .hook = &uet_proto_hook_ops, .hook_arg = (void *)pp,
	};
	char name[24];
	struct uet_engine *e;

	snprintf(name, sizeof(name), "perf%s%u_%u", tag, i, run_no);
	p.name = name;
	e = uet_engine_create(&p);
	if (e == NULL)
		fprintf(stderr, "uet-perf: engine %s: %s\n", name,
			rte_strerror(rte_errno));
	return e;
}

struct uet_ulp_ctx *
perf_sess_ctx(struct perf_sess *s, unsigned int i)
{
	return uet_ulp_ctx_get(s->e[i], 0);
}

/* SES counters of engine @p i (zeros when it runs no SES). */
const struct uet_ses_stats *
perf_sess_ses_stats(struct perf_sess *s, unsigned int i)
{
	static const struct uet_ses_stats none;
	const struct uet_ses *ses = NULL;

	if (s->e[i] == NULL ||
	    uet_ses_ulp_stats_get(s->e[i], 0, NULL, &ses) != 0 || ses == NULL)
		return &none;
	return uet_ses_stats_get(ses);
}

/* ------------------------------------------------------------------ */
/* session                                                             */
/* ------------------------------------------------------------------ */

/* The senders' faults (--loss, set fault) on @p cfg, seeded @p seed. */
static void
faults_apply(const struct perf_sess *s, struct uet_config *cfg, uint64_t seed)
{
	cfg->fault.seed = seed;
	for (unsigned int k = 0; k < UET_CONFIG_FAULT_KINDS; k++) {
		uint32_t ppm = k == UET_CONFIG_FAULT_DROP ? s->r->loss_ppm :
			       s->o.fault_ppm[k];

		if (ppm == 0)
			continue;
		cfg->fault.enabled = true;
		cfg->fault.ppm[UET_CONFIG_FAULT_TX][UET_CONFIG_FAULT_DATA][k] =
			ppm;
	}
}

/* --ulp ses --op read: the data flows back, faults on the target too. */
static bool
target_faults(const struct perf_sess *s)
{
	return s->o.ulp == PERF_ULP_SES && s->sdp.op == PERF_OP_READ;
}

/* The PDS of engine @p i from @p cfg, seeded @p seed: --seed makes the
 * Start_PSNs of a run reproducible (engines seed randomly otherwise). */
static void
pds_seeded(struct perf_sess *s, unsigned int i, const struct uet_config *cfg,
	   uint64_t seed)
{
	uet_proto_pds_config(cfg, &s->pds[i]);
	s->pds[i].seed = seed;
	s->pp[i].pds = &s->pds[i];
}

static int
sess_engines(struct perf_sess *s, const struct uet_config *cbase)
{
	/* large: not on the stack */
	static struct uet_config cfg, base_spray;
	const struct perf_topology *topo = s->m->topology;
	const struct uet_config *base = &base_spray;
	uint8_t ip[4], mac[6];
	char dev[32];

	base_spray = *cbase;
	if (perf_spray_apply(&s->o, &base_spray) < 0)
		return -EINVAL;

	/* receiver */
	side_cfg(&cfg, base, topo->receiver_dev, perf_sess_ip_b, mac_b);
	for (unsigned int i = 0; i < s->nb_tx; i++) {
		topo->sender(i, dev, sizeof(dev), ip, mac);
		add_neigh(&cfg, ip, mac);
	}
	if (target_faults(s))
		faults_apply(s, &cfg, s->o.seed + PERF_MAX_PEERS);
	if (perf_cc_apply(&s->o, &cfg) < 0)
		return -EINVAL;
	pds_seeded(s, 0, &cfg, s->o.seed + PERF_MAX_PEERS);
	s->e[0] = engine_make("R", 0, &cfg, &s->pp[0]);
	if (s->e[0] == NULL)
		return -ENODEV;
	/* senders */
	for (unsigned int i = 0; i < s->nb_tx; i++) {
		topo->sender(i, dev, sizeof(dev), ip, mac);
		side_cfg(&cfg, base, dev, ip, mac);
		add_neigh(&cfg, perf_sess_ip_b, mac_b);
		faults_apply(s, &cfg, s->o.seed + i);
		if (perf_cc_apply(&s->o, &cfg) < 0)
			return -EINVAL;
		pds_seeded(s, 1 + i, &cfg, s->o.seed + i);
		/* --capture: the wire as the first sender sees it (both
		 * directions) */
		cfg.engine.capture[0] = '\0';
		if (i == 0 && s->o.capture != NULL)
			snprintf(cfg.engine.capture,
				 sizeof(cfg.engine.capture), "%s",
				 s->o.capture);
		s->e[1 + i] = engine_make("S", i, &cfg, &s->pp[1 + i]);
		if (s->e[1 + i] == NULL)
			return -ENODEV;
	}
	return 0;
}

static int
sess_test_ulps(struct perf_sess *s)
{
	const struct perf_topology *topo = s->m->topology;
	const struct perf_report *r = s->r;
	struct test_ulp_params pa, pb;
	uint8_t mac[6];
	char dev[32];

	/* a one-way stream, split evenly over the senders; the mode and
	 * the topology shape it */
	memset(&pa, 0, sizeof(pa));
	memcpy(pa.peer.addr, perf_sess_ip_b, 4);
	pa.mode = s->o.pds_mode;
	pa.size = r->size;
	pa.count = r->count / s->nb_tx;
	pa.window = r->window;
	pa.pdcs = s->o.pdcs;
	pa.pdc_burst = s->o.pdc_burst;
	pb = pa;
	topo->sender(0, dev, sizeof(dev), pb.peer.addr, mac);
	pb.count = 0;
	pb.expect = r->count;
	pb.expect_size = r->size;
	if (topo->raw_traffic != NULL)
		topo->raw_traffic(s->nb_tx, &pa, &pb);
	if (s->m->raw_traffic != NULL)
		s->m->raw_traffic(&pa, &pb);
	s->ru[0] = test_ulp_create(&pb);
	if (s->ru[0] == NULL)
		return -ENOMEM;
	for (unsigned int i = 0; i < s->nb_tx; i++) {
		pa.seq_base = (uint64_t)i * pa.count;
		s->ru[1 + i] = test_ulp_create(&pa);
		if (s->ru[1 + i] == NULL)
			return -ENOMEM;
	}
	for (unsigned int i = 0; i <= s->nb_tx; i++)
		s->pp[i] = (struct uet_proto_params){
			.ulp = &test_ulp_ops, .ulp_arg = s->ru[i],
		};
	return 0;
}

/* --ulp ses: the SES ULP on both engines, pools sized for the window. */
static void
sess_ses_params(struct perf_sess *s)
{
	uint32_t ops = s->r->window * 2 + 64;

	for (unsigned int i = 0; i < 2; i++) {
		s->sp[i] = (struct uet_ses_ulp_params){
			.pid_base = (uint16_t)(i == 0 ? 20 : 10),
			.max_msgs = RTE_MAX(ops, 1024u),
			.max_posted = RTE_MAX(ops, 1024u),
		};
		s->pp[i] = (struct uet_proto_params){
			.ulp = &uet_ses_ulp_ops, .ulp_arg = &s->sp[i],
		};
	}
}

/* --ulp ses: the driver's operations, before the engines (faults). */
static void
sess_ses_traffic(struct perf_sess *s)
{
	perf_ses_traffic(s->m, &s->o, s->r->size, s->r->window, &s->sdp);
	s->sdp.count = s->r->count;
}

static int
sess_ses_driver(struct perf_sess *s)
{
	char tag[12];

	snprintf(tag, sizeof(tag), "%u", run_no);
	s->sdp.ea = s->e[1];
	s->sdp.eb = s->e[0];
	s->sdp.tag = tag;
	s->sd = ses_driver_create(&s->sdp);
	s->sdp.tag = NULL; /* not kept: the driver made its names */
	return s->sd == NULL ? -ENOMEM : 0;
}

static void
sess_deadline(struct perf_sess *s, uint64_t deadline)
{
	if (s->sd != NULL)
		ses_driver_set_deadline(s->sd, deadline);
	else
		for (unsigned int i = 1; i <= s->nb_tx; i++)
			test_ulp_set_deadline(s->ru[i], deadline);
}

static struct uet_config perf_base_cfg;
static bool perf_base_set;

/* The --config file's engine settings, for every session engine. */
static const struct uet_config *
base_cfg(const struct perf_opts *o)
{
	struct uet_config_error err;

	if (perf_base_set)
		return &perf_base_cfg;
	uet_config_init_defaults(&perf_base_cfg);
	if (o->config != NULL &&
	    (uet_config_load(&perf_base_cfg, o->config, &err) < 0 ||
	     uet_config_validate(&perf_base_cfg, &err) < 0)) {
		fprintf(stderr, "uet-perf: %s\n", err.msg);
		return NULL;
	}
	/* The engines of a session are joined by rings of this process:
	 * nothing sent to an earlier incarnation of their addresses can
	 * reach them. The target's quiet time after start (its first
	 * window refused, one RTO of stall in every run) and the alive
	 * files telling restarts (docs/WIRE-DECISIONS.md "A SYN that
	 * reaches a restarted target") stay off unless --config sets
	 * them. */
	if (!perf_config_sets(o, "timers", "syn_quiet"))
		perf_base_cfg.timers.syn_quiet = false;
	if (!perf_config_sets(o, "timers", "alive_dir"))
		snprintf(perf_base_cfg.timers.alive_dir,
			 sizeof(perf_base_cfg.timers.alive_dir), "off");
	perf_base_set = true;
	return &perf_base_cfg;
}

static void sess_sample(struct perf_sess *s, struct perf_sample *out);

struct perf_sess *
perf_sess_begin(const struct perf_mode *m, const struct perf_opts *o,
		struct perf_report *r)
{
	const struct uet_config *base = base_cfg(o);
	struct perf_sess *s;
	FILE *live;
	int rc;

	if (base == NULL)
		return NULL;
	if (o->ulp == PERF_ULP_SES && perf_ses_unsupported(m, o) != NULL) {
		fprintf(stderr, "uet-perf: %s: --ulp ses: %s\n", m->name,
			perf_ses_unsupported(m, o));
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (s == NULL)
		return NULL;
	s->m = m;
	s->o = *o;
	s->r = r;
	s->nb_tx = m->topology->senders(o);
	perf_report_init(r, m, o, m->def_loss_ppm);
	/* --count, and the default without --duration, may be per sender:
	 * the total is split evenly over the senders (sess_test_ulps) */
	if (m->topology->count_per_sender &&
	    (o->count != 0 || o->duration <= 0))
		r->count *= s->nb_tx;
	run_no++;
	rc = m->topology->ports(s->nb_tx);
	if (rc < 0) {
		fprintf(stderr, "uet-perf: ring ports: %s\n", strerror(-rc));
		goto fail;
	}
	if (perf_pdcs_cfg_check(o, base) < 0)
		goto fail;
	if (o->ulp == PERF_ULP_SES) {
		sess_ses_traffic(s);
		sess_ses_params(s);
	} else
		rc = sess_test_ulps(s);
	if (rc == 0)
		rc = sess_engines(s, base);
	if (rc == 0 && o->ulp == PERF_ULP_SES)
		rc = sess_ses_driver(s);
	if (rc < 0)
		goto fail;
	r->pkts_per_msg =
		test_ulp_pkts_per_msg(r->size,
				      uet_ulp_max_len(perf_sess_ctx(s, 1)));
	if (o->pdcs > 1)
		r->pdcs.rss0 = perf_rss_bytes();
	s->t0 = rte_rdtsc();
	s->cpu0 = thread_cpu_s();
	if (o->duration > 0) /* from now: engine setup is not measured */
		sess_deadline(s, s->t0 + (uint64_t)(o->duration *
					(double)rte_get_tsc_hz()));
	s->hard = s->t0 + (uint64_t)((o->duration > 0 ? o->duration + 10 :
				      SESS_MAX_SECONDS) *
				     (double)rte_get_tsc_hz());
	live = o->interval_ms == 0 ? NULL : o->json ? stderr : stdout;
	perf_sampler_init(&s->smp, live, o->csv_file, o->interval_ms,
			  m->name, s->t0, s->sd != NULL, o->csv_ses);
	if (s->smp.period != 0) /* ports outlive runs: count from here */
		sess_sample(s, &s->smp.last);
	return s;
fail:
	perf_sess_free(s);
	return NULL;
}

static void
sess_sample(struct perf_sess *s, struct perf_sample *out)
{
	static struct uet_engine_stats st;
	const struct test_ulp_result *rx = s->sd != NULL ?
					   ses_driver_live(s->sd) :
					   test_ulp_live(s->ru[0]);

	memset(out, 0, sizeof(*out));
	if (s->sd != NULL) {
		out->cqe_err = ses_driver_counters(s->sd)->cqe_err;
		for (unsigned int i = 0; i <= s->nb_tx; i++)
			out->ses_frags += perf_sess_ses_stats(s, i)->frag_tx;
	}
	out->msgs = rx->rx_msgs;
	out->bytes = rx->rx_bytes;
	out->drops = s->sw_drops;
	perf_sample_cc(s->nb_tx ? s->e[1] : NULL, out);
	for (unsigned int i = 0; i <= s->nb_tx; i++) {
		out->retx += uet_ulp_ctx_stats(perf_sess_ctx(s, i))->tx_retx;
		(void)uet_engine_stats_get(s->e[i], &st);
		out->drops += st.total.tx_full + st.total.rx_malformed +
			      st.total.rx_csum_bad + st.total.rx_csum_none +
			      perf_port_drops(s->e[i]);
		for (unsigned int d = 0; d < UET_CONFIG_FAULT_DIRS; d++)
			out->drops += st.total.fault[d]
					.applied[UET_CONFIG_FAULT_DROP];
	}
}

void
perf_sess_poll_all(struct perf_sess *s)
{
	for (unsigned int i = 1; i <= s->nb_tx; i++)
		(void)uet_engine_poll(s->e[i], 1);
	(void)uet_engine_poll(s->e[0], 1);
	if (s->m->topology->pump != NULL)
		s->m->topology->pump(s);
	if (s->sd != NULL)
		ses_driver_poll(s->sd);
}

static bool
all_finished(const struct perf_sess *s)
{
	if (s->sd != NULL)
		return ses_driver_finished(s->sd);
	for (unsigned int i = 0; i <= s->nb_tx; i++)
		if (!test_ulp_send_finished(s->ru[i]))
			return false;
	return true;
}

/* perf_sess_poll_all() of the timed part: the cost of each engine side. */
static void
poll_all_timed(struct perf_sess *s)
{
	uint64_t ta = rte_rdtsc(), tb, tc;

	for (unsigned int i = 1; i <= s->nb_tx; i++)
		(void)uet_engine_poll(s->e[i], 1);
	tb = rte_rdtsc();
	(void)uet_engine_poll(s->e[0], 1);
	tc = rte_rdtsc();
	s->tsc_tx += tb - ta;
	s->tsc_rx += tc - tb;
	if (s->m->topology->pump != NULL)
		s->m->topology->pump(s);
	if (s->sd != NULL)
		ses_driver_poll(s->sd);
}

/* Per engine side: ns inside its poll per message delivered. */
void
perf_sess_cost_report(struct perf_sess *s)
{
	struct perf_report *r = s->r;
	double hz = (double)rte_get_tsc_hz();
	double msgs = (double)r->rx.rx_msgs;

	if (msgs > 0) {
		r->ns_per_msg_a = (double)s->tsc_tx / hz * 1e9 / msgs;
		r->ns_per_msg_b = (double)s->tsc_rx / hz * 1e9 / msgs;
	}
	if (r->seconds > 0)
		r->loop_share = (double)(s->tsc_tx + s->tsc_rx) / hz /
				r->seconds;
	r->cpu_seconds = s->cpu_s;
	if (s->cpu_s > 0)
		r->msgs_per_cpu_s = msgs / s->cpu_s;
}

bool
perf_sess_step(struct perf_sess *s)
{
	struct perf_sample cur;
	uint64_t now = rte_rdtsc();
	uint64_t slice_end = now + rte_get_tsc_hz() / 1000;

	if (s->done)
		return false;
	for (unsigned int round = 0; round < SESS_SLICE_ROUNDS &&
	     now < slice_end; round++) {
		for (unsigned int it = 0; it < 16; it++)
			poll_all_timed(s);
		if (all_finished(s)) {
			s->complete = true;
			s->done = true;
			break;
		}
		now = rte_rdtsc();
		if (now > s->hard) {
			s->done = true;
			break;
		}
	}
	now = rte_rdtsc();
	if (s->done) {
		s->t_fin = now;
		s->cpu_s = thread_cpu_s() - s->cpu0;
	}
	if (s->smp.period != 0 && (s->done || now >= s->smp.next)) {
		sess_sample(s, &cur);
		perf_sampler_tick(&s->smp, now, &cur, s->done);
	}
	return !s->done;
}

void
perf_sess_stop(struct perf_sess *s)
{
	s->stopped = true;
	if (s->sd != NULL)
		ses_driver_stop(s->sd);
	for (unsigned int i = 1; i <= s->nb_tx; i++)
		if (s->ru[i] != NULL)
			test_ulp_stop(s->ru[i]);
}

void
perf_sess_free(struct perf_sess *s)
{
	if (s == NULL)
		return;
	ses_driver_detach(s->sd);
	for (unsigned int i = 0; i <= PERF_MAX_PEERS; i++) {
		uet_engine_free(s->e[i]);
		test_ulp_free(s->ru[i]);
	}
	ses_driver_free(s->sd); /* its regions outlive the engines */
	free(s);
}

struct uet_engine *
perf_sess_engine(struct perf_sess *s, unsigned int i)
{
	return i <= s->nb_tx ? s->e[i] : NULL;
}

unsigned int
perf_sess_nb_engines(const struct perf_sess *s)
{
	return s->nb_tx + 1;
}

int
perf_run(const struct perf_mode *m, const struct perf_opts *o,
	 struct perf_report *r)
{
	struct perf_sess *s = perf_sess_begin(m, o, r);

	if (s == NULL)
		return -ENODEV;
	while (perf_sess_step(s))
		;
	perf_sess_end(s);
	perf_sess_free(s);
	return 0;
}
