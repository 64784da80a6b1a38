/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * uet-perf batch mode: with no arguments, run every mode (msgrate,
 * latency, bw) between two engines in this process, joined by ring ports
 * (rte_eth_from_rings) back to back, both driven inline on this thread.
 * See docs/UET-PERF.md.
 */

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ring.h>

#include <uet/uet_parse.h>

#include "perf.h"

#define PERF_EAL_DEFAULT "-l 0 --no-huge -m 1024 --no-pci --log-level=4"
#define PERF_RING_SIZE 4096
#define PERF_MAX_SECONDS 300.0

static const struct perf_mode *const modes[] = {
	&perf_mode_msgrate,
	&perf_mode_latency,
	&perf_mode_bw,
};

static const uint8_t ip_a[4] = { 10, 0, 0, 1 };
static const uint8_t ip_b[4] = { 10, 0, 0, 2 };
static const uint8_t mac_a[6] = { 0x02, 0, 0, 0, 0, 0x0a };
static const uint8_t mac_b[6] = { 0x02, 0, 0, 0, 0, 0x0b };

static struct uet_config base_cfg;
static unsigned int run_no;

/* ------------------------------------------------------------------ */
/* command line                                                        */
/* ------------------------------------------------------------------ */

static void
usage(FILE *f)
{
	fprintf(f,
"usage: uet-perf [options]\n"
"  Batch benchmarks over two engines in one process (ring ports, inline).\n"
"  --mode M       msgrate | latency | bw | all (default all)\n"
"  --pds P        rud | rod | rudi | uud (default rud)\n"
"  --size BYTES   message size (default: msgrate 64, latency 64, bw 64K)\n"
"  --count N      messages (default: msgrate 1000000, latency 100000, bw 20000)\n"
"  --duration T   stop submitting after T (e.g. 5s) per mode\n"
"  --window PKTS  packets in flight (default 512; latency: 1 message)\n"
"  --loss PPM     drop rate on A's data packets (default: msgrate 10000, else 0)\n"
"  --seed N       PDS and fault injection seed (default 1)\n"
"  --config FILE  engine configuration ([timers], [dscp], [fault], ...)\n"
"  --json         print one JSON object with every number\n"
"  --verbose      print engine, hook and PDS counters after each mode\n"
"  --help         this text\n");
}

static int
bad_arg(const char *opt, const char *why)
{
	fprintf(stderr, "uet-perf: %s: %s\n", opt, why);
	usage(stderr);
	return 2;
}

static int
parse_mode(const char *s, unsigned int *out)
{
	if (strcmp(s, "all") == 0) {
		*out = (1u << RTE_DIM(modes)) - 1;
		return 0;
	}
	for (unsigned int i = 0; i < RTE_DIM(modes); i++)
		if (strcmp(s, modes[i]->name) == 0) {
			*out = 1u << i;
			return 0;
		}
	return -EINVAL;
}

static int
parse_pds(const char *s, uint8_t *out)
{
	static const char *const names[] = { "rud", "rod", "rudi", "uud" };

	for (unsigned int i = 0; i < RTE_DIM(names); i++)
		if (strcmp(s, names[i]) == 0) {
			*out = (uint8_t)i; /* enum uet_pds_mode order */
			return 0;
		}
	return -EINVAL;
}

static const char *
pds_name(uint8_t m)
{
	static const char *const names[] = { "rud", "rod", "rudi", "uud" };

	return m < RTE_DIM(names) ? names[m] : "?";
}

/* @return 0, 1 (--help: exit 0), 2 (usage error) */
static int
parse_args(int argc, char **argv, struct perf_opts *o)
{
	static const struct option lopts[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "pds", required_argument, NULL, 'p' },
		{ "size", required_argument, NULL, 's' },
		{ "count", required_argument, NULL, 'c' },
		{ "duration", required_argument, NULL, 'd' },
		{ "window", required_argument, NULL, 'w' },
		{ "loss", required_argument, NULL, 'l' },
		{ "seed", required_argument, NULL, 'S' },
		{ "config", required_argument, NULL, 'f' },
		{ "json", no_argument, NULL, 'j' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct uet_parse_err err;
	uint64_t v;
	int c;

	memset(o, 0, sizeof(*o));
	o->modes = (1u << RTE_DIM(modes)) - 1;
	o->pds_mode = UET_PDS_MODE_RUD;
	o->loss_ppm = -1;
	o->seed = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", lopts, NULL)) != -1) {
		switch (c) {
		case 'm':
			if (parse_mode(optarg, &o->modes) < 0)
				return bad_arg("--mode", "expected msgrate, "
					       "latency, bw or all");
			break;
		case 'p':
			if (parse_pds(optarg, &o->pds_mode) < 0)
				return bad_arg("--pds", "expected rud, rod, "
					       "rudi or uud");
			break;
		case 's':
			if (uet_parse_size(optarg, 16, 1u << 24, &v, &err) < 0)
				return bad_arg("--size", err.msg);
			o->size = (uint32_t)v;
			break;
		case 'c':
			if (uet_parse_u64(optarg, 1, 100000000, &o->count,
					  &err) < 0)
				return bad_arg("--count", err.msg);
			break;
		case 'd':
			if (uet_parse_duration_ns(optarg, 1000000,
						  3600ull * 1000000000, &v,
						  &err) < 0)
				return bad_arg("--duration", err.msg);
			o->duration = (double)v / 1e9;
			break;
		case 'w':
			if (uet_parse_u64(optarg, 1, 65536, &v, &err) < 0)
				return bad_arg("--window", err.msg);
			o->window = (uint32_t)v;
			break;
		case 'l':
			if (uet_parse_u64(optarg, 0, 1000000, &v, &err) < 0)
				return bad_arg("--loss", err.msg);
			o->loss_ppm = (int64_t)v;
			break;
		case 'S':
			if (uet_parse_u64(optarg, 0, UINT64_MAX, &o->seed,
					  &err) < 0)
				return bad_arg("--seed", err.msg);
			break;
		case 'f':
			o->config = optarg;
			break;
		case 'j':
			o->json = true;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			return bad_arg(argv[optind - 1] ? argv[optind - 1] :
				       "?", "unknown option or missing value");
		}
	}
	if (optind < argc)
		return bad_arg(argv[optind], "unexpected argument");
	return 0;
}

/* ------------------------------------------------------------------ */
/* setup                                                               */
/* ------------------------------------------------------------------ */

static int
ring_ports(void)
{
	struct rte_ring *ab, *ba;

	ab = rte_ring_create("perf_ab", PERF_RING_SIZE, SOCKET_ID_ANY,
			     RING_F_SP_ENQ | RING_F_SC_DEQ);
	ba = rte_ring_create("perf_ba", PERF_RING_SIZE, SOCKET_ID_ANY,
			     RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (ab == NULL || ba == NULL)
		return -ENOMEM;
	if (rte_eth_from_rings("perfA", &ba, 1, &ab, 1, SOCKET_ID_ANY) < 0 ||
	    rte_eth_from_rings("perfB", &ab, 1, &ba, 1, SOCKET_ID_ANY) < 0)
		return -rte_errno;
	return 0;
}

static void
side_cfg(struct uet_config *c, const char *dev, const uint8_t *ip,
	 const uint8_t *mac, const uint8_t *peer_ip, const uint8_t *peer_mac)
{
	*c = base_cfg;
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
	c->nb_neighbors = 1;
	c->neighbor[0].ip.family = AF_INET;
	memcpy(&c->neighbor[0].ip.v4, peer_ip, 4);
	memcpy(c->neighbor[0].mac, peer_mac, 6);
}

static struct uet_engine *
engine_make(const char *tag, const struct uet_config *c,
	    const struct uet_proto_params *pp)
{
	struct uet_engine_params p = {
		.cfg = c, .hook = &uet_proto_hook_ops, .hook_arg = (void *)pp,
	};
	char name[16];
	struct uet_engine *e;

	snprintf(name, sizeof(name), "perf%s%u", tag, run_no);
	p.name = name;
	e = uet_engine_create(&p);
	if (e == NULL)
		fprintf(stderr, "uet-perf: engine %s: %s\n", name,
			rte_strerror(rte_errno));
	return e;
}

/* ------------------------------------------------------------------ */
/* one run                                                             */
/* ------------------------------------------------------------------ */

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static void
latency_stats(struct perf_report *r)
{
	uint32_t *v = r->tx.lat_ns;
	uint64_t n = RTE_MIN(r->tx.pongs, r->count), sum = 0;

	r->lat_n = n;
	if (v == NULL || n == 0)
		return;
	qsort(v, n, sizeof(*v), cmp_u32);
	for (uint64_t i = 0; i < n; i++)
		sum += v[i];
	r->lat_min = v[0];
	r->lat_max = v[n - 1];
	r->lat_p50 = v[n * 50 / 100];
	r->lat_p99 = v[RTE_MIN(n - 1, n * 99 / 100)];
	r->lat_p999 = v[RTE_MIN(n - 1, n * 999 / 1000)];
	r->lat_avg = (double)sum / (double)n;
}

static bool
verify(const struct perf_report *r, uint8_t pds)
{
	const struct rulp_result *rx = &r->rx;
	bool ok = rx->rx_bad == 0 && r->tx.rx_bad == 0 && r->complete;

	switch (pds) {
	case UET_PDS_MODE_RUD:
	case UET_PDS_MODE_ROD:
		ok = ok && rx->rx_lost == 0 && rx->rx_dup == 0 &&
		     rx->rx_msgs == r->count && r->tx.pkts_done_err == 0 &&
		     r->tx.rx_dup == 0 && r->tx.rx_order_err == 0 &&
		     rx->rx_order_err == 0;
		if (r->lat_n)
			ok = ok && r->tx.rx_lost == 0;
		break;
	case UET_PDS_MODE_RUDI:
		ok = ok && rx->rx_lost == 0;
		break;
	default: /* UUD: best effort, never duplicated */
		ok = ok && rx->rx_dup == 0;
		break;
	}
	return ok;
}

static void
collect(struct perf_report *r, struct uet_engine *a, struct uet_engine *b)
{
	static struct uet_engine_stats sa, sb;
	struct uet_ulp_ctx *ca = uet_ulp_ctx_get(a, 0);
	struct uet_ulp_ctx *cb = uet_ulp_ctx_get(b, 0);
	const struct uet_pds_stats *pa = uet_pds_stats_get(uet_ulp_ctx_pds(ca));
	const struct uet_pds_stats *pb = uet_pds_stats_get(uet_ulp_ctx_pds(cb));

	(void)uet_engine_stats_get(a, &sa);
	(void)uet_engine_stats_get(b, &sb);
	r->retx = uet_ulp_ctx_stats(ca)->tx_retx + uet_ulp_ctx_stats(cb)->tx_retx;
	r->dup_suppressed = pa->dup_rx + pb->dup_rx;
	r->faults_dropped =
		sa.total.fault[UET_CONFIG_FAULT_TX].applied[UET_CONFIG_FAULT_DROP] +
		sb.total.fault[UET_CONFIG_FAULT_TX].applied[UET_CONFIG_FAULT_DROP];
	r->tx_frames = sa.total.tx_pkts + sb.total.tx_pkts;
	r->acks = uet_ulp_ctx_stats(cb)->tx_ctl;
	r->rec.sack = pa->retx_sack;
	r->rec.again = pa->retx_again;
	r->rec.nack = pa->retx_nack;
	r->rec.rto = pa->retx_rto;
	r->rec.rto_fires = pa->rto_fires;
	r->rec.tlp_fires = pa->tlp_fires;
	r->rec.rod_goback = pa->rod_goback;
	r->rec.rod_stale = pa->rod_nack_stale;
}

static void
counters_print(struct uet_engine *a, struct uet_engine *b)
{
	static struct uet_engine_stats st;
	struct uet_engine *e[2] = { a, b };

	for (unsigned int i = 0; i < 2; i++) {
		struct uet_ulp_ctx *c = uet_ulp_ctx_get(e[i], 0);
		const struct uet_ulp_stats *u = uet_ulp_ctx_stats(c);
		const struct uet_pds_stats *p =
			uet_pds_stats_get(uet_ulp_ctx_pds(c));

		fprintf(stderr, "--- engine %c\n", 'A' + i);
		(void)uet_engine_stats_get(e[i], &st);
		uet_engine_stats_print(&st, stderr);
		fprintf(stderr, "hook: rx %lu bad %lu nobufs %lu trimmed %lu "
			"ce %lu delivered %lu orphan %lu done %lu/%lu "
			"submit %lu eagain %lu tx new %lu retx %lu ctl %lu "
			"ev_change %lu build_err %lu nombuf %lu queue_err %lu\n",
			(unsigned long)u->rx_pkts, (unsigned long)u->rx_pds_bad,
			(unsigned long)u->rx_pds_nobufs,
			(unsigned long)u->rx_trimmed, (unsigned long)u->rx_ce,
			(unsigned long)u->delivered,
			(unsigned long)u->deliver_orphan,
			(unsigned long)u->done_ok, (unsigned long)u->done_err,
			(unsigned long)u->submit_ok,
			(unsigned long)u->submit_eagain,
			(unsigned long)u->tx_new, (unsigned long)u->tx_retx,
			(unsigned long)u->tx_ctl, (unsigned long)u->tx_ev_change,
			(unsigned long)u->tx_build_err,
			(unsigned long)u->tx_nombuf,
			(unsigned long)u->tx_queue_err);
		fprintf(stderr, "pds: retx sack %lu again %lu nack %lu rto %lu "
			"rto_fires %lu tlp %lu rod_goback %lu rod_nack_stale %lu "
			"rtt_samples %lu rto_spurious %lu "
			"dup_rx %lu ooo_rx %lu rx_bad %lu rx_stale %lu "
			"ev_full %lu nack_tx %lu\n",
			(unsigned long)p->retx_sack, (unsigned long)p->retx_again,
			(unsigned long)p->retx_nack,
			(unsigned long)p->retx_rto, (unsigned long)p->rto_fires,
			(unsigned long)p->tlp_fires,
			(unsigned long)p->rod_goback,
			(unsigned long)p->rod_nack_stale,
			(unsigned long)p->rtt_samples,
			(unsigned long)p->rto_spurious,
			(unsigned long)p->dup_rx, (unsigned long)p->ooo_rx,
			(unsigned long)p->rx_bad, (unsigned long)p->rx_stale,
			(unsigned long)p->ev_full,
			(unsigned long)(p->nack_tx[0x0B] + p->nack_tx[0x0D] +
					p->nack_tx[0x01]));
	}
}

/* TSC spent in each engine's poll during the timed part of a run. */
struct drive_cost {
	uint64_t tsc_a;
	uint64_t tsc_b;
	double cpu_s;    /* CPU time of this thread (excludes preemption) */
};

static double
thread_cpu_s(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return 0;
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Poll both engines until @p fin or the hard limit; @return seconds. */
static double
drive(struct uet_engine *a, struct uet_engine *b, struct rulp *ra,
      struct rulp *rb, uint64_t hard_tsc, bool *complete,
      struct drive_cost *cost)
{
	double c0 = thread_cpu_s();
	uint64_t t0 = rte_rdtsc(), t1, ta, tb, tc;

	*complete = false;
	cost->tsc_a = 0;
	cost->tsc_b = 0;
	for (uint64_t it = 1;; it++) {
		ta = rte_rdtsc();
		(void)uet_engine_poll(a, 1);
		tb = rte_rdtsc();
		(void)uet_engine_poll(b, 1);
		tc = rte_rdtsc();
		cost->tsc_a += tb - ta;
		cost->tsc_b += tc - tb;
		if ((it & 15) != 0)
			continue;
		if (rulp_send_finished(ra) && rulp_send_finished(rb)) {
			*complete = true;
			break;
		}
		if (tc > hard_tsc)
			break;
	}
	t1 = rte_rdtsc();
	cost->cpu_s = thread_cpu_s() - c0;
	/* late datagrams (UUD/RUDI) and final ACKs */
	for (unsigned int i = 0; i < 2000; i++) {
		(void)uet_engine_poll(a, 1);
		(void)uet_engine_poll(b, 1);
	}
	return (double)(t1 - t0) / (double)rte_get_tsc_hz();
}

/* Per-engine cost: ns inside each engine's poll per message delivered. */
static void
cost_report(struct perf_report *r, const struct drive_cost *c)
{
	double hz = (double)rte_get_tsc_hz();
	double msgs = (double)r->rx.rx_msgs;

	if (msgs > 0) {
		r->ns_per_msg_a = (double)c->tsc_a / hz * 1e9 / msgs;
		r->ns_per_msg_b = (double)c->tsc_b / hz * 1e9 / msgs;
	}
	if (r->seconds > 0)
		r->loop_share = (double)(c->tsc_a + c->tsc_b) / hz / r->seconds;
	r->cpu_seconds = c->cpu_s;
	if (c->cpu_s > 0)
		r->msgs_per_cpu_s = msgs / c->cpu_s;
}

int
perf_run(const struct perf_mode *m, const struct perf_opts *o,
	 struct perf_report *r)
{
	struct uet_config ca, cb;
	struct rulp_params pa, pb;
	struct uet_proto_params ppa, ppb;
	struct uet_engine *a = NULL, *b = NULL;
	struct rulp *ra = NULL, *rb = NULL;
	struct drive_cost cost;
	uint64_t hz = rte_get_tsc_hz();
	double limit = o->duration > 0 ? o->duration + 10 : PERF_MAX_SECONDS;
	int rc = -ENOMEM;

	memset(r, 0, sizeof(*r));
	r->mode = m->name;
	r->pds = pds_name(o->pds_mode);
	r->size = o->size ? o->size : m->def_size;
	r->count = o->count ? o->count : m->def_count;
	r->window = o->window ? o->window : m->def_window;
	r->loss_ppm = (uint32_t)(o->loss_ppm >= 0 ? o->loss_ppm :
				 m->def_loss_ppm);
	run_no++;
	side_cfg(&ca, "net_ring_perfA", ip_a, mac_a, ip_b, mac_b);
	side_cfg(&cb, "net_ring_perfB", ip_b, mac_b, ip_a, mac_a);
	ca.fault.seed = o->seed;
	if (r->loss_ppm) {
		ca.fault.enabled = true;
		ca.fault.ppm[UET_CONFIG_FAULT_TX][UET_CONFIG_FAULT_DATA]
			    [UET_CONFIG_FAULT_DROP] = r->loss_ppm;
	}
	memset(&pa, 0, sizeof(pa));
	memcpy(pa.peer.addr, ip_b, 4);
	pa.mode = o->pds_mode;
	pa.size = r->size;
	pa.count = r->count;
	pa.window = r->window;
	pa.pingpong = m->pingpong;
	if (o->duration > 0)
		pa.deadline_tsc = rte_rdtsc() + (uint64_t)(o->duration * hz);
	pb = pa;
	memcpy(pb.peer.addr, ip_a, 4);
	pb.count = 0;
	pb.pingpong = false;
	pb.deadline_tsc = 0;
	pb.expect = r->count;
	pb.expect_size = r->size;
	pb.echo = m->pingpong;
	if (m->pingpong) {
		pa.expect = r->count;
		pa.expect_size = r->size;
	}
	ra = rulp_create(&pa);
	rb = rulp_create(&pb);
	if (ra == NULL || rb == NULL)
		goto out;
	ppa = (struct uet_proto_params){ .ulp = &rulp_ops, .ulp_arg = ra };
	ppb = (struct uet_proto_params){ .ulp = &rulp_ops, .ulp_arg = rb };
	rc = -ENODEV;
	a = engine_make("A", &ca, &ppa);
	b = engine_make("B", &cb, &ppb);
	if (a == NULL || b == NULL)
		goto out;
	r->pkts_per_msg = rulp_pkts_per_msg(r->size,
					    uet_ulp_max_len(uet_ulp_ctx_get(a, 0)));
	r->seconds = drive(a, b, ra, rb, rte_rdtsc() + (uint64_t)(limit * hz),
			   &r->complete, &cost);
	rulp_result(ra, &r->tx);
	rulp_result(rb, &r->rx);
	if (!r->complete || o->duration > 0)
		r->count = r->tx.msgs_sent;
	collect(r, a, b);
	if (o->verbose)
		counters_print(a, b);
	if (r->seconds > 0) {
		r->msgs_per_s = (double)r->rx.rx_msgs / r->seconds;
		r->gbytes_per_s = (double)r->rx.rx_bytes / r->seconds / 1e9;
	}
	cost_report(r, &cost);
	latency_stats(r);
	r->verified = verify(r, o->pds_mode);
	r->tx.lat_ns = NULL; /* freed with ra */
	rc = 0;
out:
	uet_engine_free(b);
	uet_engine_free(a);
	rulp_free(rb);
	rulp_free(ra);
	return rc;
}

/* ------------------------------------------------------------------ */
/* output                                                              */
/* ------------------------------------------------------------------ */

static void
json_side(FILE *f, const char *name, const struct rulp_result *s)
{
	fprintf(f, "\"%s\":{\"msgs_sent\":%lu,\"done_ok\":%lu,\"done_err\":%lu,"
		"\"rx_pkts\":%lu,\"rx_msgs\":%lu,\"rx_bytes\":%lu,\"rx_dup\":%lu,"
		"\"rx_bad\":%lu,\"rx_order_err\":%lu,\"rx_lost\":%lu,"
		"\"pongs\":%lu}", name, (unsigned long)s->msgs_sent,
		(unsigned long)s->pkts_done_ok, (unsigned long)s->pkts_done_err,
		(unsigned long)s->rx_pkts, (unsigned long)s->rx_msgs,
		(unsigned long)s->rx_bytes, (unsigned long)s->rx_dup,
		(unsigned long)s->rx_bad, (unsigned long)s->rx_order_err,
		(unsigned long)s->rx_lost, (unsigned long)s->pongs);
}

static void
json_report(FILE *f, const struct perf_report *r)
{
	fprintf(f, "\"%s\":{\"pds\":\"%s\",\"size\":%u,\"count\":%lu,"
		"\"window\":%u,\"loss_ppm\":%u,\"pkts_per_msg\":%u,"
		"\"seconds\":%.6f,\"msgs_per_s\":%.1f,\"gbytes_per_s\":%.6f,"
		"\"ns_per_msg_a\":%.1f,\"ns_per_msg_b\":%.1f,"
		"\"loop_share\":%.3f,\"cpu_seconds\":%.6f,"
		"\"msgs_per_cpu_s\":%.1f,"
		"\"retransmissions\":%lu,\"duplicates_suppressed\":%lu,"
		"\"faults_dropped\":%lu,\"tx_frames\":%lu,\"acks\":%lu,"
		"\"complete\":%s,\"verified\":%s,", r->mode, r->pds, r->size,
		(unsigned long)r->count, r->window, r->loss_ppm, r->pkts_per_msg,
		r->seconds, r->msgs_per_s, r->gbytes_per_s, r->ns_per_msg_a,
		r->ns_per_msg_b, r->loop_share, r->cpu_seconds,
		r->msgs_per_cpu_s,
		(unsigned long)r->retx, (unsigned long)r->dup_suppressed,
		(unsigned long)r->faults_dropped, (unsigned long)r->tx_frames,
		(unsigned long)r->acks, r->complete ? "true" : "false",
		r->verified ? "true" : "false");
	fprintf(f, "\"recovery\":{\"retx_sack\":%lu,\"retx_again\":%lu,"
		"\"retx_nack\":%lu,\"retx_rto\":%lu,\"rto_fires\":%lu,"
		"\"tlp_fires\":%lu,\"rod_goback\":%lu,\"rod_nack_stale\":%lu},",
		(unsigned long)r->rec.sack, (unsigned long)r->rec.again,
		(unsigned long)r->rec.nack, (unsigned long)r->rec.rto,
		(unsigned long)r->rec.rto_fires, (unsigned long)r->rec.tlp_fires,
		(unsigned long)r->rec.rod_goback, (unsigned long)r->rec.rod_stale);
	if (r->lat_n)
		fprintf(f, "\"latency_ns\":{\"n\":%lu,\"min\":%.0f,\"p50\":%.0f,"
			"\"p99\":%.0f,\"p999\":%.0f,\"max\":%.0f,\"avg\":%.1f},",
			(unsigned long)r->lat_n, r->lat_min, r->lat_p50,
			r->lat_p99, r->lat_p999, r->lat_max, r->lat_avg);
	json_side(f, "sender", &r->tx);
	fputc(',', f);
	json_side(f, "receiver", &r->rx);
	fputc('}', f);
}

int
main(int argc, char **argv)
{
	static struct perf_report rep[RTE_DIM(modes)];
	struct uet_config_error cerr;
	struct perf_opts o;
	bool all_ok = true, first = true;
	const char *eal;
	int rc;

	rc = parse_args(argc, argv, &o);
	if (rc != 0)
		return rc == 1 ? 0 : 2;
	uet_config_init_defaults(&base_cfg);
	eal = PERF_EAL_DEFAULT;
	if (o.config != NULL) {
		if (uet_config_load(&base_cfg, o.config, &cerr) < 0 ||
		    uet_config_validate(&base_cfg, &cerr) < 0) {
			fprintf(stderr, "uet-perf: %s\n", cerr.msg);
			return 2;
		}
		eal = base_cfg.eal.args;
	}
	base_cfg.spray.mode = UET_CONFIG_SPRAY_SINGLE;
	rc = uet_engine_eal_init("uet-perf", eal, NULL);
	if (rc < 0) {
		fprintf(stderr, "uet-perf: EAL init: %s\n", strerror(-rc));
		return 1;
	}
	rc = ring_ports();
	if (rc < 0) {
		fprintf(stderr, "uet-perf: ring ports: %s\n", strerror(-rc));
		return 1;
	}
	if (!o.json)
		printf("uet-perf: 2 engines, 1 thread (inline), ring ports, "
		       "PDS %s, seed %lu\n", pds_name(o.pds_mode),
		       (unsigned long)o.seed);
	for (unsigned int i = 0; i < RTE_DIM(modes); i++) {
		if (!(o.modes & (1u << i)))
			continue;
		rc = perf_run(modes[i], &o, &rep[i]);
		if (rc < 0) {
			fprintf(stderr, "uet-perf: %s: setup failed: %s\n",
				modes[i]->name, strerror(-rc));
			return 1;
		}
		all_ok = all_ok && rep[i].verified;
		if (!o.json) {
			modes[i]->print(&rep[i], stdout);
			fflush(stdout);
		}
	}
	if (o.json) {
		printf("{\"tool\":\"uet-perf\",\"pds\":\"%s\",\"seed\":%lu,"
		       "\"inline\":true,\"engines\":2,\"threads\":1,",
		       pds_name(o.pds_mode), (unsigned long)o.seed);
		printf("\"results\":{");
		for (unsigned int i = 0; i < RTE_DIM(modes); i++) {
			if (!(o.modes & (1u << i)))
				continue;
			if (!first)
				putchar(',');
			first = false;
			json_report(stdout, &rep[i]);
		}
		printf("},\"verified\":%s}\n", all_ok ? "true" : "false");
	}
	return all_ok ? 0 : 1;
}
