/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The PDS protocol hook (include/pmd-proto/uet/uet_ulp.h): one sans-I/O PDS per
 * engine context between the engine loop and an upper-layer protocol.
 * This file: lifecycle, configuration mapping, RX into the PDS, events
 * out to the ULP, submissions. Frame building and TX: proto_tx.c.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_branch_prediction.h>
#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "proto_private.h"

/* ------------------------------------------------------------------ */
/* configuration                                                       */
/* ------------------------------------------------------------------ */

void
uet_proto_pds_config(const struct uet_config *cfg, struct uet_pds_config *c)
{
	const struct uet_config_timers *t = &cfg->timers;
	uint32_t owner_bits = uet_engine_owner_bits(cfg->engine.nb_lcores ?
						    cfg->engine.nb_lcores : 1);
	uint32_t ids = UET_PDS_PDC_MAX >> owner_bits;

	uet_pds_config_default(c);
	/* UEC 1.0 PDC establishment: Start_PSNs are random. A fixed seed would
	 * give every process the same PSN sequence (a stale packet of an old
	 * incarnation would fit the new PDC); callers that want
	 * reproducible runs (uet-perf --seed) set their own. */
	c->seed = rte_rdtsc() ^ ((uint64_t)getpid() << 32) ^
		  (uint64_t)(uintptr_t)c;
	c->owner_bits = owner_bits;
	/* PDC ids are 16 bits with the owner bits on top; keep one free. */
	c->max_rsv_pdcs = RTE_MIN(cfg->engine.pdc_pool_reserved, ids / 4);
	c->max_pdcs = RTE_MIN(cfg->engine.pdc_pool_general,
			      ids - 1 - c->max_rsv_pdcs);
	c->max_pdcs = RTE_MIN(c->max_pdcs, cfg->engine.max_pdcs);
	if (c->max_pdcs == 0)
		c->max_pdcs = 1;
	c->tx_window = 512;
	c->rx_window = 512;
	c->event_queue = 4096;
	c->ctl_queue = 2048;
	c->dgram_queue = 2048;
	c->rudi_slots = 2048;
	/* [timers] (UEC 1.0 PDS defaults, in config/uet.conf) */
	c->rto_init_ns = t->rto_init_ns;
	c->rto_max_ns = t->rto_max_ns;
	c->max_retries = t->rto_max_retries;
	c->ack_threshold = t->ack_coalesce_bytes;
	c->ack_min_bytes = t->ack_min_add;
	c->tlp_ns = t->tlp_timeout_ns;
	c->idle_close_ns = t->close_idle_ns;
	c->tgt_close_req_ns = t->close_req_idle_ns;
	c->syn_quiet = t->syn_quiet;
	c->syn_1rtt = cfg->tss.enabled &&
		      cfg->tss.pdc_start == UET_CONFIG_TSS_START_RANDOM_1RTT;
	/* its sdom_of is the engine's [tss] (proto_lcore_init) */
	c->syn_expected = cfg->tss.enabled &&
			  cfg->tss.pdc_start ==
			  UET_CONFIG_TSS_START_EXPECTED_0RTT;
	c->timer_tick_ns = t->tick_ns;
	c->mtu = uet_config_port_mtu(&cfg->port[0]);
	/*
	 * cc.algorithm fixed: a window of a full PSN window of MTU packets,
	 * so the PSN window is the limit. NSCC / RCCC: uet_pds_cc_cms, its
	 * cc_arg built per context from [cc] (proto_lcore_init).
	 */
	c->cc = cfg->cc.algorithm == UET_CONFIG_CC_NONE ? NULL :
		&uet_pds_cc_cms;
	c->cc_arg = NULL;
	c->cc_param = c->tx_window * uet_config_port_mtu(&cfg->port[0]);
	uet_proto_lb_config(cfg, &c->lb);
}

void
uet_proto_lb_config(const struct uet_config *cfg,
		    struct uet_cms_lb_config *lb)
{
	const struct uet_config_spray *s = &cfg->spray;

	uet_cms_lb_config_default(lb);
	lb->mode = s->mode == UET_CONFIG_SPRAY_OBLIVIOUS ? UET_CMS_LB_OBLIVIOUS :
		   s->mode == UET_CONFIG_SPRAY_REPS ? UET_CMS_LB_REPS :
						      UET_CMS_LB_SINGLE;
	lb->ev_base = s->ev_base;
	lb->ev_count = s->num_evs;
	/* The RTT of the one-RTT REPS block and the single-path hold. */
	lb->base_rtt_ns = cfg->cc.base_rtt_ns;
	lb->single_hold_rtts = s->single_hold_rtts;
	lb->reps_ring = s->reps_cache_size;
	lb->freeze_ns = s->reps_freeze_duration_ns;
}

/* A [cc] fraction in thousandths or 1/65536, rounded. */
static uint32_t
cc_fixed(double v, double scale)
{
	double r = v * scale + 0.5;

	return r >= (double)UINT32_MAX ? UINT32_MAX : (uint32_t)r;
}

static uint32_t
cc_u32(uint64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* The NSCC keys of [cc] that are set (0 is auto where a key has auto). */
static void
cc_nscc_keys(const struct uet_config_cc *k, struct uet_nscc_params *np)
{
	if (k->target_qdelay_ns) {
		np->target_qdelay_ns = cc_u32(k->target_qdelay_ns);
		/* UEC 1.0 NSCC: qa_threshold follows the target (4x) unless
		 * trimming turns it off. */
		if (!k->trimming)
			np->qa_threshold_ns = cc_u32(4 * k->target_qdelay_ns);
	}
	if (k->max_wnd)
		np->max_wnd = cc_u32(k->max_wnd);
	np->gamma_milli = cc_fixed(k->gamma, 1000);
	np->max_md_jump_milli = cc_fixed(k->max_md_jump, 1000);
	if (k->fair_increase)
		np->fi_bytes = cc_u32(k->fair_increase);
	if (k->fast_increase_scale != 0)
		np->fi_scale_q16 = cc_fixed(k->fast_increase_scale, 65536);
	if (k->eta)
		np->eta_bytes = cc_u32(k->eta);
	if (k->alpha != 0) /* bytes per us of delay -> per ns, /65536 */
		np->alpha_q16 = cc_fixed(k->alpha, 65536.0 / 1000);
	np->qa_gate = k->qa_gate;
	if (k->qa_threshold_ns)
		np->qa_threshold_ns = cc_u32(k->qa_threshold_ns);
	if (k->adjust_bytes)
		np->adjust_bytes = cc_u32(k->adjust_bytes);
	if (k->adjust_period_ns)
		np->adjust_period_ns = cc_u32(k->adjust_period_ns);
}

int
uet_proto_cc_config(const struct uet_config *cfg,
		    struct uet_pds_cc_cms_config *out, const char **why)
{
	const struct uet_config_cc *k = &cfg->cc;
	enum uet_config_cc_algo a = k->algorithm;
	int rc;

	if (why != NULL)
		*why = NULL;
	if (a == UET_CONFIG_CC_NONE)
		return -ENOENT;
	rc = uet_pds_cc_cms_config_default(out,
			a == UET_CONFIG_CC_NSCC || a == UET_CONFIG_CC_BOTH,
			a == UET_CONFIG_CC_RCCC || a == UET_CONFIG_CC_BOTH,
			k->link_speed_mbps, cc_u32(k->base_rtt_ns),
			uet_config_port_mtu(&cfg->port[0]), k->trimming);
	if (rc < 0) {
		if (why != NULL)
			*why = "link_speed_mbps x base_rtt (out of range)";
		return rc;
	}
	cc_nscc_keys(k, &out->nscc_params);
	if (k->rccc_rate_mbps)
		out->pacer.link_mbps = k->rccc_rate_mbps;
	if (k->rccc_quantum)
		out->pacer.quantum = cc_u32(k->rccc_quantum);
	out->spec_credit = cc_u32(k->rccc_spec_credit);
	out->pacer.charge_marked = k->rccc_charge_marked;
	return uet_pds_cc_cms_config_check(out, why);
}

/* ------------------------------------------------------------------ */
/* lifecycle                                                           */
/* ------------------------------------------------------------------ */

static uint16_t
max_len_of(const struct uet_config *cfg,
	   const struct uet_engine_port_info *p, unsigned int port)
{
	unsigned int ip = p->has_ipv4 ? UET_IPV4_HLEN : UET_IPV6_HLEN;
	unsigned int l4 = p->native ? UET_ENTROPY_HDR_LEN : UET_UDP_HLEN;
	unsigned int mtu = uet_config_port_mtu(&cfg->port[port]);
	/* the frame must also fit one mbuf (no multi-segment TX yet) */
	unsigned int room = cfg->engine.mbuf_size - RTE_PKTMBUF_HEADROOM -
			    UET_ETH_HLEN;

	if (room < mtu)
		mtu = room;
	/* [tss]: the TSS header and ICV of a secure job's frames */
	mtu -= uet_engine_tss_overhead(cfg);
	return (uint16_t)(mtu - ip - l4 - UET_PDS_CC_REQ_LEN);
}

/* uet_pds_config.sdom_of: a JobID's [tss] domain, as the engine's TSS
 * seals its frames in (uet_engine_rx.sdom numbers them alike). */
static uint8_t
proto_sdom_of(void *arg, uint32_t job)
{
	int d = uet_config_tss_domain_of(arg, job);

	return d < 0 ? 0 : (uint8_t)(d + 1);
}

static int
proto_lcore_init(struct uet_engine_lcore *lc, void *arg, void **priv)
{
	const struct uet_proto_params *pp = arg;
	const struct uet_engine *e = uet_engine_lcore_engine(lc);
	const struct uet_config *cfg = uet_engine_config(e);
	unsigned int idx = uet_engine_lcore_index(lc);
	struct uet_engine_port_info pi;
	struct uet_pds_cc_cms_config ccc;
	struct uet_pds_config pc;
	struct uet_ulp_ctx *ctx;
	uint64_t prev_alive;
	int rc;

	if (pp == NULL || pp->ulp == NULL ||
	    pp->ulp->size < sizeof(struct uet_ulp_ops) ||
	    pp->ulp->build == NULL || pp->ulp->event == NULL)
		return -EINVAL;
	/* a full table of added commands leaves /uet/pds unanswered only */
	(void)proto_telemetry_add();
	ctx = rte_zmalloc("uet_ulp_ctx", sizeof(*ctx), RTE_CACHE_LINE_SIZE);
	if (ctx == NULL)
		return -ENOMEM;
	if (pp->pds != NULL)
		pc = *pp->pds;
	else
		uet_proto_pds_config(cfg, &pc);
	if (pc.syn_expected && pc.sdom_of == NULL) {
		pc.sdom_of = proto_sdom_of;
		pc.sdom_arg = (void *)(uintptr_t)&cfg->tss;
	}
	/* the restart of an engine that ran moments ago at this address
	 * (its alive file, docs/WIRE-DECISIONS.md) */
	prev_alive = uet_engine_prev_alive_ns(e);
	if (prev_alive != 0) {
		pc.restarted = true;
		pc.prev_alive_ns = prev_alive;
	}
	/* [cc] NSCC/RCCC: the PDS copies it at creation. */
	if (pc.cc == &uet_pds_cc_cms && pc.cc_arg == NULL) {
		rc = uet_proto_cc_config(cfg, &ccc, NULL);
		if (rc < 0)
			goto free_ctx;
		pc.cc_arg = &ccc;
	}
	/* A ULP (the SES) fails what it still expects from a peer when its
	 * PDC goes down: it needs UET_PDS_EV_PDC_DOWN. */
	pc.pdc_events = true;
	/* the engine's final number of contexts (e->nb_lcores still grows
	 * while the contexts are made): every context must encode its
	 * owner id with the same width, which local delivery decodes */
	pc.owner_bits = uet_engine_owner_bits(cfg->engine.nb_lcores ?
					      cfg->engine.nb_lcores : 1);
	pc.owner_id = idx;
	pc.seed ^= (uint64_t)idx * 0x9E3779B97F4A7C15ull;
	ctx->pds = uet_pds_create(&pc);
	if (ctx->pds == NULL) {
		rc = -errno;
		goto free_ctx;
	}
	ctx->lc = lc;
	ctx->ulp = pp->ulp;
	ctx->port = 0;
	for (unsigned int p = 0; p < uet_engine_nb_ports(e); p++)
		if (uet_engine_lcore_has_port(lc, p)) {
			ctx->port = (uint16_t)p;
			break;
		}
	(void)uet_engine_port_info_get(e, ctx->port, &pi);
	ctx->max_len = max_len_of(cfg, &pi, ctx->port);
	ctx->dscp_data = cfg->dscp.data;
	ctx->dscp_retx = cfg->dscp.trimmable_retx;
	ctx->dscp_ctl = cfg->dscp.control;
	ctx->dscp_trimmed = cfg->dscp.trimmed;
	ctx->dscp_trimmed_lh = cfg->dscp.trimmed_lasthop;
	ctx->csum_v4 = pi.csum_v4;
	ctx->csum_v6 = !pi.native;
	ctx->csum_offload = pi.csum_tx_offload;
	ctx->tss = uet_engine_tss_overhead(cfg) != 0;
	ctx->tx_ref = pi.tx_ref;
	if (ctx->ulp->init != NULL) {
		rc = ctx->ulp->init(ctx, pp->ulp_arg, &ctx->ulp_priv);
		if (rc < 0)
			goto free_pds;
	}
	*priv = ctx;
	return 0;
free_pds:
	uet_pds_free(ctx->pds);
free_ctx:
	rte_free(ctx);
	return rc < 0 ? rc : -EINVAL;
}

static void
proto_lcore_fini(struct uet_engine_lcore *lc, void *priv)
{
	struct uet_ulp_ctx *ctx = priv;

	(void)lc;
	if (ctx == NULL)
		return;
	if (ctx->ulp->fini != NULL)
		ctx->ulp->fini(ctx, ctx->ulp_priv);
	uet_pds_free(ctx->pds);
	rte_free(ctx);
}

/* ------------------------------------------------------------------ */
/* events                                                              */
/* ------------------------------------------------------------------ */

/* One PDS event to the ULP; a DELIVER with the bytes after the PDS
 * header of the frame it names (the SES header is the ULP's to decode). */
static void
proto_event(struct uet_ulp_ctx *ctx, const struct uet_pds_event *e)
{
	const uint8_t *ses = NULL, *tail;
	uint16_t len = 0;
	uint32_t tail_len;

	if (e->type == UET_PDS_EV_DELIVER) {
		/* pkt_cookie: the index of the frame in the burst */
		if (unlikely(ctx->rx == NULL || e->cookie >= ctx->nb_rx)) {
			PROTO_INC(ctx->st.deliver_orphan);
			return;
		}
		if (unlikely(ctx->rx[e->cookie].m->nb_segs > 1) &&
		    ctx->ulp->event_tail == NULL &&
		    rte_pktmbuf_linearize(ctx->rx[e->cookie].m) < 0) {
			PROTO_INC(ctx->st.deliver_orphan);
			return;
		}
		ses = proto_ses_bytes(&ctx->rx[e->cookie], &len, &tail,
				      &tail_len);
		PROTO_INC(ctx->st.delivered);
		if (tail_len != 0) {
			ctx->ulp->event_tail(ctx->ulp_priv, ctx, e, ses, len,
					     tail, tail_len);
			return;
		}
	} else if (e->type == UET_PDS_EV_DONE) {
		if (e->status == 0)
			PROTO_INC(ctx->st.done_ok);
		else
			PROTO_INC(ctx->st.done_err);
	}
	ctx->ulp->event(ctx->ulp_priv, ctx, e, ses, len);
}

unsigned int
proto_events(struct uet_ulp_ctx *ctx)
{
	unsigned int total = 0;
	uint16_t n;

	do {
		n = uet_pds_events(ctx->pds, ctx->ev, PROTO_BURST);
		for (uint16_t i = 0; i < n; i++)
			proto_event(ctx, &ctx->ev[i]);
		total += n;
	} while (n == PROTO_BURST);
	return total;
}

/* ------------------------------------------------------------------ */
/* RX                                                                  */
/* ------------------------------------------------------------------ */

static void
fa_from_outer(struct uet_pds_fa *fa, const uint8_t addr[16],
	      unsigned int ipver)
{
	if (ipver == 4) {
		memset(fa->addr, 0, sizeof(fa->addr));
		memcpy(fa->addr, addr, 4);
	} else {
		memcpy(fa->addr, addr, 16);
	}
}

/* The bytes after the PDS header of frame @p r: @p len of them at the
 * address returned, the rest (@p tail_len, 0 but for a chain, struct
 * uet_engine_rx) at @p tail. */
const uint8_t *
proto_ses_bytes(const struct uet_engine_rx *r, uint16_t *len,
		const uint8_t **tail, uint32_t *tail_len)
{
	const struct uet_wire_outer *o = &r->pkt.outer;
	size_t hl = uet_wire_pds_hdr_size(&r->pkt.pds);
	uint32_t off = (uint32_t)(o->hdr_len + hl), head;

	*len = o->inner_len > hl ? (uint16_t)(o->inner_len - hl) : 0;
	*tail = NULL;
	*tail_len = 0;
	if (unlikely(r->m->nb_segs > 1)) {
		/* the headers are in the first segment (engine RX) */
		head = rte_pktmbuf_data_len(r->m) > off ?
		       rte_pktmbuf_data_len(r->m) - off : 0;
		if (*len > head) {
			*tail_len = RTE_MIN((uint32_t)(*len - head),
					    rte_pktmbuf_data_len(r->m->next));
			*tail = rte_pktmbuf_mtod(r->m->next, const uint8_t *);
			*len = (uint16_t)head;
		}
	}
	return rte_pktmbuf_mtod_offset(r->m, const uint8_t *, off);
}

static void
proto_rx_one(struct uet_ulp_ctx *ctx, uint16_t i)
{
	const struct uet_engine_rx *r = &ctx->rx[i];
	const struct uet_wire_pkt *pkt = &r->pkt;
	const struct uet_wire_outer *o = &pkt->outer;
	struct uet_pds_rx_meta m;
	const uint8_t *tail;
	uint32_t tail_len;
	int rc;

	fa_from_outer(&m.src, o->src_addr, o->ip_version);
	fa_from_outer(&m.dst, o->dst_addr, o->ip_version);
	m.ses = proto_ses_bytes(r, &m.ses_len, &tail, &tail_len);
	m.len = (uint16_t)(m.ses_len + tail_len);
	m.ev = uet_wire_outer_ev_get(o);
	m.ce = o->ecn == UET_ECN_CE;
	/* UEC 1.0 encapsulation and DSCP classes: a trimming switch re-marks
	 * the DSCP */
	m.trimmed = o->dscp == ctx->dscp_trimmed;
	m.trimmed_lasthop = o->dscp == ctx->dscp_trimmed_lh;
	m.resp_expected = ctx->ulp->resp_expected != NULL &&
			  ctx->ulp->resp_expected(ctx->ulp_priv,
						  pkt->pds.type,
						  pkt->pds.next_hdr, m.ses,
						  m.ses_len);
	m.pkt_cookie = i;
	m.sdom = r->sdom;
	if (unlikely(m.ce))
		PROTO_INC(ctx->st.rx_ce);
	if (unlikely(m.trimmed || m.trimmed_lasthop))
		PROTO_INC(ctx->st.rx_trimmed);
	rc = uet_pds_rx(ctx->pds, &pkt->pds, &m, ctx->now);
	if (unlikely(rc < 0)) {
		if (rc == -ENOBUFS)
			PROTO_INC(ctx->st.rx_pds_nobufs);
		else
			PROTO_INC(ctx->st.rx_pds_bad);
	}
}

static void
proto_rx_burst(void *priv, struct uet_engine_lcore *lc,
	       struct uet_engine_rx *rx, uint16_t n, uint64_t now)
{
	struct uet_ulp_ctx *ctx = priv;

	(void)lc;
	ctx->now = now;
	ctx->rx = rx;
	ctx->nb_rx = n;
	PROTO_ADD(ctx->st.rx_pkts, n);
	/* the burst's PDC records load while the first packets run */
	for (uint16_t i = 0; i < n; i++)
		uet_pds_rx_prefetch(ctx->pds, &rx[i].pkt.pds);
	for (uint16_t i = 0; i < n; i++) {
		proto_rx_one(ctx, i);
		/*
		 * Drain after every packet: DELIVER events keep RX order
		 * (ROD), and uet_pds_rx() needs a window of event room.
		 */
		proto_events(ctx);
	}
	ctx->rx = NULL;
	ctx->nb_rx = 0;
	for (uint16_t i = 0; i < n; i++)
		ctx->mb_rx[i] = rx[i].m;
	rte_pktmbuf_free_bulk(ctx->mb_rx, n);
}

static void
proto_advance(void *priv, struct uet_engine_lcore *lc, uint64_t now)
{
	struct uet_ulp_ctx *ctx = priv;

	(void)lc;
	ctx->now = now;
	uet_pds_advance(ctx->pds, now);
	proto_events(ctx);
}

/* The PDS timer wheel and the ULP's own timers (the SES retries a lost
 * DEFERRABLE_RTR or MSG_ERROR from poll() after a wait): an lcore that
 * sleeps, or a virtual clock that jumps, must stop at the earlier. */
static uint64_t
proto_next_deadline(void *priv, struct uet_engine_lcore *lc)
{
	struct uet_ulp_ctx *ctx = priv;
	uint64_t t = uet_pds_next_deadline(ctx->pds);

	(void)lc;
	if (ctx->ulp->next_deadline != NULL)
		t = RTE_MIN(t, ctx->ulp->next_deadline(ctx->ulp_priv, ctx));
	return t;
}

const struct uet_engine_hook_ops uet_proto_hook_ops = {
	.size = sizeof(struct uet_engine_hook_ops),
	.name = "pds",
	.lcore_init = proto_lcore_init,
	.lcore_fini = proto_lcore_fini,
	.rx_burst = proto_rx_burst,
	.advance = proto_advance,
	.tx_ready = proto_tx_ready,
	.next_deadline = proto_next_deadline,
};

/* ------------------------------------------------------------------ */
/* services for the ULP                                                */
/* ------------------------------------------------------------------ */

struct uet_ulp_ctx *
uet_ulp_ctx_get(struct uet_engine *e, unsigned int idx)
{
	return uet_engine_hook_priv(e, idx, &uet_proto_hook_ops);
}

void *
uet_ulp_ctx_priv(const struct uet_ulp_ctx *ctx)
{
	return ctx->ulp_priv;
}

const struct uet_ulp_ops *
uet_ulp_ctx_ops(const struct uet_ulp_ctx *ctx)
{
	return ctx->ulp;
}

struct uet_engine_lcore *
uet_ulp_ctx_lcore(struct uet_ulp_ctx *ctx)
{
	return ctx->lc;
}

struct uet_pds *
uet_ulp_ctx_pds(struct uet_ulp_ctx *ctx)
{
	return ctx->pds;
}

uint64_t
uet_ulp_now(const struct uet_ulp_ctx *ctx)
{
	return ctx->now;
}

uint16_t
uet_ulp_max_len(const struct uet_ulp_ctx *ctx)
{
	return ctx->max_len;
}

const struct uet_ulp_stats *
uet_ulp_ctx_stats(const struct uet_ulp_ctx *ctx)
{
	return &ctx->st;
}

int
uet_ulp_submit(struct uet_ulp_ctx *ctx, const struct uet_pds_submit *s)
{
	int rc;

	if (unlikely(s->len > ctx->max_len))
		return -EINVAL;
	rc = uet_pds_submit(ctx->pds, s, ctx->now);
	if (likely(rc == 0))
		PROTO_INC(ctx->st.submit_ok);
	else if (rc == -EAGAIN)
		PROTO_INC(ctx->st.submit_eagain);
	return rc;
}
