/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rte_telemetry commands under /uet/ (see docs/ENGINE.md):
 *   /uet/engines              names of the engines of this process
 *   /uet/stats,<engine>       engine-wide counters
 *   /uet/ports,<engine>       ports: ethdev id, MAC, FA, queues, ethdev stats
 *   /uet/lcores,<engine>      per-context counters
 *   /uet/fault,<engine>       fault injection counters per direction
 *   /uet/neigh,<engine>       neighbour resolution counters
 *   /uet/ses,<engine>         SES ULP: channel glue, SES and pool counters
 *                             per context (-ENOENT with another hook/ULP)
 * <engine> is an index (default 0) into the registration order.
 *
 * Callbacks run on the telemetry thread; the registry mutex keeps an
 * engine alive while a callback reads it.
 */

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_telemetry.h>

#include <uet/uet_pds.h>
#include <uet/uet_ses_ulp.h>
#include <uet/uet_ulp.h>

#include "engine_private.h"

#define TEL_ENGINES 8

static pthread_mutex_t tel_lock = PTHREAD_MUTEX_INITIALIZER;
static struct uet_engine *tel_engines[TEL_ENGINES];
static bool tel_registered;

typedef int (*tel_fill_fn)(const struct uet_engine *e,
			   const struct uet_engine_stats *s,
			   struct rte_tel_data *d);

static void
add_u64(struct rte_tel_data *d, const char *name, uint64_t v)
{
	(void)rte_tel_data_add_dict_u64(d, name, v);
}

static uint64_t
sum_ports(const uint64_t *v, unsigned int port)
{
	uint64_t n = 0;

	for (unsigned int p = 0; p < UET_CONFIG_MAX_PORTS; p++)
		if (port == UET_CONFIG_MAX_PORTS || p == port)
			n += v[p];
	return n;
}

/* Local delivery counters of one port (UET_CONFIG_MAX_PORTS: all). */
static void
add_hairpin(struct rte_tel_data *d, const struct uet_engine_lcore_stats *s,
	    unsigned int port)
{
	add_u64(d, "hairpin_tx", sum_ports(s->hairpin_tx, port));
	add_u64(d, "hairpin_rx", sum_ports(s->hairpin_rx, port));
	add_u64(d, "hairpin_drop", sum_ports(s->hairpin_drop, port));
	if (port == UET_CONFIG_MAX_PORTS) /* per context, not per port */
		add_u64(d, "hairpin_wake", s->hairpin_wake);
}

static int
fill_stats(const struct uet_engine *e, const struct uet_engine_stats *s,
	   struct rte_tel_data *d)
{
	const struct uet_engine_lcore_stats *t = &s->total;

	rte_tel_data_add_dict_string(d, "name", e->name);
	rte_tel_data_add_dict_string(d, "hook", e->hook.name != NULL ?
				     e->hook.name : "");
	rte_tel_data_add_dict_string(d, "progress",
				     e->inline_mode ? "inline" : "auto");
	rte_tel_data_add_dict_int(d, "running", s->running);
	rte_tel_data_add_dict_int(d, "nb_lcores", (int)s->nb_lcores);
	rte_tel_data_add_dict_int(d, "nb_ports", (int)s->nb_ports);
	add_u64(d, "iterations", t->iterations);
	add_u64(d, "busy_iterations", t->busy_iterations);
	add_u64(d, "idle_sleeps", t->idle_sleeps);
	add_u64(d, "wake_post", t->wake_post);
	add_u64(d, "wake_rx", t->wake_rx);
	add_u64(d, "wake_timer", t->wake_timer);
	add_u64(d, "wake_poll", t->wake_poll);
	add_u64(d, "app_iterations", t->app_iterations);
	add_u64(d, "rx_pkts", t->rx_pkts);
	add_u64(d, "rx_bytes", t->rx_bytes);
	add_u64(d, "rx_uet", t->rx_uet);
	add_u64(d, "rx_uet_ses_err", t->rx_uet_ses_err);
	add_u64(d, "rx_req", t->rx_class[UET_ENGINE_CLASS_REQ]);
	add_u64(d, "rx_ack", t->rx_class[UET_ENGINE_CLASS_ACK]);
	add_u64(d, "rx_nack", t->rx_class[UET_ENGINE_CLASS_NACK]);
	add_u64(d, "rx_cp", t->rx_class[UET_ENGINE_CLASS_CP]);
	add_u64(d, "rx_arp", t->rx_arp);
	add_u64(d, "rx_nd", t->rx_nd);
	add_u64(d, "rx_non_uet", t->rx_non_uet);
	add_u64(d, "rx_malformed", t->rx_malformed);
	add_u64(d, "rx_trimmed", t->rx_trimmed);
	add_u64(d, "rx_csum_bad", t->rx_csum_bad);
	add_u64(d, "rx_csum_none", t->rx_csum_none);
	for (unsigned int c = 1; c < UET_WIRE_E__COUNT; c++) {
		char k[48];

		if (t->rx_err_code[c] == 0)
			continue;
		snprintf(k, sizeof(k), "rx_err_%s", uet_wire_errname((int)c));
		add_u64(d, k, t->rx_err_code[c]);
	}
	add_u64(d, "tx_pkts", t->tx_pkts);
	add_u64(d, "tx_bytes", t->tx_bytes);
	add_u64(d, "tx_full", t->tx_full);
	add_u64(d, "tx_held", t->tx_held);
	add_u64(d, "capture_pkts", t->capture_pkts);
	add_u64(d, "capture_fail", t->capture_fail);
	add_u64(d, "tx_staging_full", t->tx_staging_full);
	add_u64(d, "tx_no_queue", t->tx_no_queue);
	add_u64(d, "mbuf_alloc_fail", t->mbuf_alloc_fail);
	add_hairpin(d, t, UET_CONFIG_MAX_PORTS);
	return 0;
}

static int
fill_ports(const struct uet_engine *e, const struct uet_engine_stats *s,
	   struct rte_tel_data *d)
{
	for (unsigned int i = 0; i < e->nb_ports; i++) {
		const struct eng_port *p = &e->port[i];
		struct rte_tel_data *c = rte_tel_data_alloc();
		struct rte_eth_stats es;
		char buf[INET6_ADDRSTRLEN], key[16];

		if (c == NULL)
			return -ENOMEM;
		rte_tel_data_start_dict(c);
		rte_tel_data_add_dict_string(c, "devargs", p->name);
		rte_tel_data_add_dict_int(c, "port_id", p->port_id);
		rte_tel_data_add_dict_int(c, "socket", p->socket);
		rte_tel_data_add_dict_int(c, "queues", p->nb_rxq);
		rte_tel_data_add_dict_int(c, "mtu", p->mtu);
		rte_ether_format_addr(buf, sizeof(buf), &p->mac);
		rte_tel_data_add_dict_string(c, "mac", buf);
		if (p->has_ipv4 && inet_ntop(AF_INET, p->ipv4, buf, sizeof(buf)))
			rte_tel_data_add_dict_string(c, "ipv4", buf);
		if (p->has_ipv6 &&
		    inet_ntop(AF_INET6, p->ipv6, buf, sizeof(buf)))
			rte_tel_data_add_dict_string(c, "ipv6", buf);
		if (p->ring_rx == NULL && /* a ring pair has no ethdev */
		    rte_eth_stats_get(p->port_id, &es) == 0) {
			add_u64(c, "ipackets", es.ipackets);
			add_u64(c, "opackets", es.opackets);
			add_u64(c, "imissed", es.imissed);
			add_u64(c, "ierrors", es.ierrors);
			add_u64(c, "oerrors", es.oerrors);
			add_u64(c, "rx_nombuf", es.rx_nombuf);
		}
		add_hairpin(c, &s->total, i);
		snprintf(key, sizeof(key), "port%u", i);
		rte_tel_data_add_dict_container(d, key, c, 0);
	}
	return 0;
}

static int
fill_lcores(const struct uet_engine *e, const struct uet_engine_stats *s,
	    struct rte_tel_data *d)
{
	for (unsigned int i = 0; i < s->nb_lcores; i++) {
		const struct uet_engine_lcore_stats *l = &s->lcore[i];
		struct rte_tel_data *c = rte_tel_data_alloc();
		char key[16];

		if (c == NULL)
			return -ENOMEM;
		rte_tel_data_start_dict(c);
		rte_tel_data_add_dict_int(c, "lcore_id",
					  e->lc[i]->lcore_id == UINT32_MAX ? -1 :
					  (int)e->lc[i]->lcore_id);
		rte_tel_data_add_dict_int(c, "rx_queues", e->lc[i]->nb_rxq);
		rte_tel_data_add_dict_int(c, "channels",
					  (int)uet_engine_lcore_nb_chans(e->lc[i]));
		add_u64(c, "iterations", l->iterations);
		add_u64(c, "busy_iterations", l->busy_iterations);
		add_u64(c, "idle_sleeps", l->idle_sleeps);
		add_u64(c, "wake_post", l->wake_post);
		add_u64(c, "wake_rx", l->wake_rx);
		add_u64(c, "wake_timer", l->wake_timer);
		add_u64(c, "wake_poll", l->wake_poll);
		add_u64(c, "app_iterations", l->app_iterations);
		rte_tel_data_add_dict_int(c, "rx_intr_queues",
					  e->lc[i]->wake.nb_intr);
		add_u64(c, "rx_pkts", l->rx_pkts);
		add_u64(c, "rx_uet", l->rx_uet);
		add_u64(c, "rx_malformed", l->rx_malformed);
		add_u64(c, "rx_trimmed", l->rx_trimmed);
		add_u64(c, "rx_csum_bad", l->rx_csum_bad);
		add_u64(c, "tx_pkts", l->tx_pkts);
		add_u64(c, "tx_full", l->tx_full);
		add_u64(c, "tx_held", l->tx_held);
		add_hairpin(c, l, UET_CONFIG_MAX_PORTS);
		snprintf(key, sizeof(key), "ctx%u", i);
		rte_tel_data_add_dict_container(d, key, c, 0);
	}
	return 0;
}

static int
fill_fault(const struct uet_engine *e, const struct uet_engine_stats *s,
	   struct rte_tel_data *d)
{
	rte_tel_data_add_dict_int(d, "enabled", e->cfg.fault.enabled);
	add_u64(d, "seed", e->cfg.fault.seed);
	for (unsigned int dir = 0; dir < UET_CONFIG_FAULT_DIRS; dir++) {
		const struct uet_engine_fault_stats *f = &s->total.fault[dir];
		const char *dn = dir == UET_CONFIG_FAULT_RX ? "rx" : "tx";
		char k[48];

		for (unsigned int kind = 0; kind < UET_CONFIG_FAULT_KINDS;
		     kind++) {
			snprintf(k, sizeof(k), "%s_%s", dn,
				 uet_engine_fault_name(kind));
			add_u64(d, k, f->applied[kind]);
			snprintf(k, sizeof(k), "%s_%s_skipped", dn,
				 uet_engine_fault_name(kind));
			add_u64(d, k, f->skipped[kind]);
		}
		snprintf(k, sizeof(k), "%s_released", dn);
		add_u64(d, k, f->released);
		snprintf(k, sizeof(k), "%s_flushed", dn);
		add_u64(d, k, f->flushed);
	}
	return 0;
}

static int
fill_neigh(const struct uet_engine *e, const struct uet_engine_stats *s,
	   struct rte_tel_data *d)
{
	const struct uet_engine_lcore_stats *t = &s->total;

	(void)e;
	add_u64(d, "arp_req_rx", t->arp_req_rx);
	add_u64(d, "arp_reply_rx", t->arp_reply_rx);
	add_u64(d, "arp_req_tx", t->arp_req_tx);
	add_u64(d, "nd_ns_rx", t->nd_ns_rx);
	add_u64(d, "nd_na_rx", t->nd_na_rx);
	add_u64(d, "nd_ns_tx", t->nd_ns_tx);
	add_u64(d, "nd_bad", t->nd_bad);
	add_u64(d, "neigh_hit", t->neigh_hit);
	add_u64(d, "neigh_miss", t->neigh_miss);
	add_u64(d, "neigh_hold_drop", t->neigh_hold_drop);
	add_u64(d, "neigh_full", t->neigh_full);
	add_u64(d, "neigh_updates", t->neigh_updates);
	return 0;
}

static void
add_ctx_u64(struct rte_tel_data *d, unsigned int ctx, const char *name,
	    uint64_t v)
{
	char k[RTE_TEL_MAX_STRING_LEN];

	snprintf(k, sizeof(k), "ctx%u_%s", ctx, name);
	add_u64(d, k, v);
}

/* Racy reads of single-writer counters, as for the other commands. */
static int
fill_ses(const struct uet_engine *e, const struct uet_engine_stats *s,
	 struct rte_tel_data *d)
{
	struct uet_engine *me = (struct uet_engine *)(uintptr_t)e;

	(void)s;
	for (unsigned int i = 0; i < e->nb_lcores; i++) {
		const struct uet_ses_stats *ss;
		const struct uet_ses *ses = NULL;
		struct uet_ses_ulp_stats st;
		struct uet_ses_pool_info pi;

		if (uet_ses_ulp_stats_get(me, i, &st, &ses) != 0)
			return -ENOENT;
		ss = uet_ses_stats_get(ses);
		uet_ses_pool_info_get(ses, &pi);
		add_ctx_u64(d, i, "sqe", st.sqe);
		add_ctx_u64(d, i, "sqe_held", st.sqe_held);
		add_ctx_u64(d, i, "sqe_rejected", st.sqe_rejected);
		add_ctx_u64(d, i, "rqe", st.rqe);
		add_ctx_u64(d, i, "rqe_rejected", st.rqe_rejected);
		add_ctx_u64(d, i, "cancel", st.cancel);
		add_ctx_u64(d, i, "cqe", st.cqe);
		add_ctx_u64(d, i, "cq_wait", st.cq_wait);
		add_ctx_u64(d, i, "cq_overrun", st.cq_overrun);
		add_ctx_u64(d, i, "ctl", st.ctl);
		add_ctx_u64(d, i, "dereg_waits", st.dereg_waits);
		add_ctx_u64(d, i, "withdraw_waits", st.withdraw_waits);
		add_ctx_u64(d, i, "withdraw_forced", st.withdraw_forced);
		add_ctx_u64(d, i, "key_bad", st.key_bad);
		add_ctx_u64(d, i, "key_throttled", st.key_throttled);
		add_ctx_u64(d, i, "ctl_cancelled", st.ctl_cancelled);
		add_ctx_u64(d, i, "ops_quota", st.ops_quota);
		add_ctx_u64(d, i, "orphan_cqe", st.orphan_cqe);
		add_ctx_u64(d, i, "peer_bad", st.peer_bad);
		add_ctx_u64(d, i, "win_bad", st.win_bad);
		add_ctx_u64(d, i, "job_bad", st.job_bad);
		add_ctx_u64(d, i, "peers", st.peers);
		add_ctx_u64(d, i, "wr_submitted", ss->wr_submitted);
		add_ctx_u64(d, i, "wr_rejected", ss->wr_rejected);
		add_ctx_u64(d, i, "wr_eagain", ss->wr_eagain);
		add_ctx_u64(d, i, "msg_ok", ss->msg_ok);
		add_ctx_u64(d, i, "msg_err", ss->msg_err);
		add_ctx_u64(d, i, "rx_bad", ss->rx_bad);
		add_ctx_u64(d, i, "ret_refused", ss->ret_refused);
		add_ctx_u64(d, i, "tgt_exhaust", ss->tgt_exhaust);
		add_ctx_u64(d, i, "unexp_drop", ss->unexp_drop);
		add_ctx_u64(d, i, "dgram_drop", ss->dgram_drop);
		add_ctx_u64(d, i, "cq_overflow", ss->cq_overflow);
		add_ctx_u64(d, i, "resp_default", ss->resp_default);
		add_ctx_u64(d, i, "resp_early", ss->resp_early);
		add_ctx_u64(d, i, "mem_rd", ss->mem_rd);
		add_ctx_u64(d, i, "mem_wr", ss->mem_wr);
		add_ctx_u64(d, i, "mem_err", ss->mem_err);
		add_ctx_u64(d, i, "mem_coherent", ss->mem_coherent);
		add_ctx_u64(d, i, "msgs_used", pi.msgs_used);
		add_ctx_u64(d, i, "tgt_used", pi.tgt_used);
		add_ctx_u64(d, i, "ret_used", pi.ret_used);
	}
	return 0;
}

/* The PDS counters of /uet/pds (struct uet_pds_stats, scalar ones). */
#define PDS_CTR(f) { #f, offsetof(struct uet_pds_stats, f) }
static const struct {
	const char *name;
	size_t off;
} pds_ctrs[] = {
	PDS_CTR(retx_sack), PDS_CTR(retx_nack), PDS_CTR(retx_rto),
	PDS_CTR(retx_backoff), PDS_CTR(retx_probe), PDS_CTR(retx_again),
	PDS_CTR(retx_trim), PDS_CTR(retx_tlp), PDS_CTR(resend_cancelled),
	PDS_CTR(rto_fires), PDS_CTR(rto_spurious), PDS_CTR(rto_unblock),
	PDS_CTR(credit_cp_tx),
	PDS_CTR(tlp_fires),
	PDS_CTR(dup_rx), PDS_CTR(ooo_rx), PDS_CTR(acks_coalesced),
	PDS_CTR(resp_resent), PDS_CTR(pdc_open_init), PDS_CTR(pdc_open_tgt),
	PDS_CTR(pdc_close_init), PDS_CTR(pdc_close_tgt), PDS_CTR(pdc_fail),
	PDS_CTR(done_ok), PDS_CTR(done_err), PDS_CTR(delivered),
	PDS_CTR(refused), PDS_CTR(exhaust_pdc), PDS_CTR(exhaust_txblk),
	PDS_CTR(exhaust_rxblk), PDS_CTR(exhaust_resp), PDS_CTR(exhaust_rudi),
	PDS_CTR(exhaust_queue), PDS_CTR(ev_full), PDS_CTR(rx_bad),
	PDS_CTR(rx_stale), PDS_CTR(rod_goback), PDS_CTR(rod_renack),
	PDS_CTR(rod_nack_stale), PDS_CTR(clear_req_tx), PDS_CTR(clear_idle),
	PDS_CTR(syn_conflict), PDS_CTR(syn_replace),
	PDS_CTR(syn_stale), PDS_CTR(close_req_giveup), PDS_CTR(close_nack), PDS_CTR(new_start),
	PDS_CTR(rtt_samples), PDS_CTR(nack_retx_limit), PDS_CTR(resp_default),
	PDS_CTR(done_default), PDS_CTR(resp_late),
	PDS_CTR(lb_recycled), PDS_CTR(lb_explored), PDS_CTR(lb_freezes),
	PDS_CTR(lb_ev_foreign), PDS_CTR(ack_ev_split), PDS_CTR(syn_refused),
	PDS_CTR(tomb_evict), PDS_CTR(mpr_limited),
};

/* The PDS of each context (PDS hook engines only): its counters, the
 * NACKs it sent and received (by code, non-zero ones) and pool use. */
static int
fill_pds(const struct uet_engine *e, const struct uet_engine_stats *s,
	 struct rte_tel_data *d)
{
	struct uet_engine *me = (struct uet_engine *)(uintptr_t)e;

	(void)s;
	for (unsigned int i = 0; i < e->nb_lcores; i++) {
		struct uet_ulp_ctx *ctx = uet_ulp_ctx_get(me, i);
		const struct uet_pds_stats *ps;
		struct uet_pds_pool_info pi;
		const struct uet_pds *pds;
		char k[32];

		if (ctx == NULL || (pds = uet_ulp_ctx_pds(ctx)) == NULL)
			return -ENOENT;
		ps = uet_pds_stats_get(pds);
		for (size_t c = 0; c < RTE_DIM(pds_ctrs); c++)
			add_ctx_u64(d, i, pds_ctrs[c].name,
				    *(const uint64_t *)((const char *)ps +
							pds_ctrs[c].off));
		for (unsigned int c = 0; c < RTE_DIM(ps->nack_tx); c++) {
			if (ps->nack_tx[c] != 0) {
				snprintf(k, sizeof(k), "nack_tx_%u", c);
				add_ctx_u64(d, i, k, ps->nack_tx[c]);
			}
			if (ps->nack_rx[c] != 0) {
				snprintf(k, sizeof(k), "nack_rx_%u", c);
				add_ctx_u64(d, i, k, ps->nack_rx[c]);
			}
		}
		uet_pds_pool_info_get(pds, &pi);
		add_ctx_u64(d, i, "pdc_used_init", pi.pdc_used[0]);
		add_ctx_u64(d, i, "pdc_used_tgt", pi.pdc_used[1]);
		add_ctx_u64(d, i, "resp_used", pi.resp_used);
	}
	return 0;
}

/* Congestion control per context (uet_pds_cc_stats; zeroes under the
 * fixed window, whose name says so). */
static int
fill_cc(const struct uet_engine *e, const struct uet_engine_stats *s,
	struct rte_tel_data *d)
{
	static const char *const act[] = {
		"none", "ignored", "quick_adapt", "fair", "proportional",
		"fast", "md", "md_held", "penalty", "restored", "decrease",
	};
	struct uet_engine *me = (struct uet_engine *)(uintptr_t)e;
	char k[32];
	static const char *const algo[] = { "fixed", "nscc", "rccc",
					    "nscc+rccc" };
	unsigned int a0 = (unsigned int)e->cfg.cc.algorithm;

	rte_tel_data_add_dict_string(d, "algorithm",
				     a0 < RTE_DIM(algo) ? algo[a0] : "?");
	(void)s;
	for (unsigned int i = 0; i < e->nb_lcores; i++) {
		struct uet_ulp_ctx *ctx = uet_ulp_ctx_get(me, i);
		const struct uet_pds *pds;
		struct uet_pds_cc_stats st;

		if (ctx == NULL || (pds = uet_ulp_ctx_pds(ctx)) == NULL)
			return -ENOENT;
		uet_pds_cc_stats_get(pds, &st);
		add_ctx_u64(d, i, "ctx_used", st.ctx_used);
		add_ctx_u64(d, i, "ctx_max", st.ctx_max);
		add_ctx_u64(d, i, "ctx_overflow", st.ctx_overflow);
		for (unsigned int a = 1; a < RTE_DIM(act); a++) {
			snprintf(k, sizeof(k), "nscc_%s", act[a]);
			add_ctx_u64(d, i, k, st.act[a]);
		}
		add_ctx_u64(d, i, "probes", st.probes);
		add_ctx_u64(d, i, "probe_acks", st.probe_acks);
		add_ctx_u64(d, i, "credit_req", st.credit_req);
		add_ctx_u64(d, i, "grants", st.grants);
		add_ctx_u64(d, i, "grant_bytes", st.grant_bytes);
		add_ctx_u64(d, i, "src_full", st.src_full);
		add_ctx_u64(d, i, "overload", st.overload);
	}
	return 0;
}

/* The answer to a command that cannot be answered: an object that says
 * why ({"error": ..., "errno": N}), never a bare null. */
static int
tel_error(struct rte_tel_data *d, int rc, const char *why)
{
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "error", why);
	rte_tel_data_add_dict_int(d, "errno", -rc);
	return rc;
}

static int
tel_run(const char *params, struct rte_tel_data *d, tel_fill_fn fill)
{
	static struct uet_engine_stats s; /* large: under tel_lock */
	unsigned long idx = 0;
	int rc;

	if (params != NULL && *params != '\0') {
		char *end;

		idx = strtoul(params, &end, 10);
		if (*end != '\0' || !isdigit((unsigned char)params[0]))
			return tel_error(d, -EINVAL, "parameter: expected an "
					 "engine index (see /uet/engines)");
		if (idx >= TEL_ENGINES)
			return tel_error(d, -ENOENT, "no engine with this "
					 "index (see /uet/engines)");
	}
	pthread_mutex_lock(&tel_lock);
	if (tel_engines[idx] == NULL) {
		rc = tel_error(d, -ENOENT, "no engine with this index (see "
			       "/uet/engines)");
	} else {
		rte_tel_data_start_dict(d);
		(void)uet_engine_stats_get(tel_engines[idx], &s);
		rc = fill(tel_engines[idx], &s, d);
		if (rc < 0)
			(void)tel_error(d, rc, "not available on this engine "
					"(its hook or ULP does not provide it)");
	}
	pthread_mutex_unlock(&tel_lock);
	return rc;
}

/* What the telemetry socket runs: errors are answered as an object. */
static int
tel_socket_cmd(const char *cmd, const char *params, struct rte_tel_data *d)
{
	int rc = uet_engine_telemetry_call(cmd, params, d);

	return rc < 0 ? 0 : rc;
}

static int
cmd_engines(const char *cmd, const char *params, struct rte_tel_data *d)
{
	(void)cmd;
	(void)params;
	rte_tel_data_start_array(d, RTE_TEL_STRING_VAL);
	pthread_mutex_lock(&tel_lock);
	for (unsigned int i = 0; i < TEL_ENGINES; i++)
		if (tel_engines[i] != NULL)
			rte_tel_data_add_array_string(d, tel_engines[i]->name);
	pthread_mutex_unlock(&tel_lock);
	return 0;
}

#define TEL_CMD(fn, fill) \
static int \
fn(const char *cmd, const char *params, struct rte_tel_data *d) \
{ \
	(void)cmd; \
	return tel_run(params, d, fill); \
}

TEL_CMD(cmd_stats, fill_stats)
TEL_CMD(cmd_ports, fill_ports)
TEL_CMD(cmd_lcores, fill_lcores)
TEL_CMD(cmd_fault, fill_fault)
TEL_CMD(cmd_neigh, fill_neigh)
TEL_CMD(cmd_ses, fill_ses)
TEL_CMD(cmd_pds, fill_pds)
TEL_CMD(cmd_cc, fill_cc)

static const struct {
	const char *cmd;
	telemetry_cb fn;
	const char *help;
} tel_cmds[] = {
	{ "/uet/engines", cmd_engines, "Engines of this process. No parameters" },
	{ "/uet/stats", cmd_stats, "Engine counters. Parameter: engine index" },
	{ "/uet/ports", cmd_ports, "Engine ports. Parameter: engine index" },
	{ "/uet/lcores", cmd_lcores,
	  "Per-context counters. Parameter: engine index" },
	{ "/uet/fault", cmd_fault,
	  "Fault injection counters. Parameter: engine index" },
	{ "/uet/neigh", cmd_neigh, "ARP/ND counters. Parameter: engine index" },
	{ "/uet/pds", cmd_pds,
	  "PDS counters per context. Parameter: engine index" },
	{ "/uet/cc", cmd_cc,
	  "Congestion control (NSCC, RCCC) per context. Parameter: engine "
	  "index" },
	{ "/uet/ses", cmd_ses,
	  "SES ULP counters per context. Parameter: engine index" },
};

int
eng_telemetry_register(struct uet_engine *e)
{
	int rc = -ENOSPC;

	pthread_mutex_lock(&tel_lock);
	if (!tel_registered) {
		for (unsigned int i = 0; i < RTE_DIM(tel_cmds); i++)
			(void)rte_telemetry_register_cmd(tel_cmds[i].cmd,
							 tel_socket_cmd,
							 tel_cmds[i].help);
		tel_registered = true;
	}
	for (int i = 0; i < TEL_ENGINES; i++)
		if (tel_engines[i] == NULL) {
			tel_engines[i] = e;
			e->tel_slot = i;
			rc = 0;
			break;
		}
	pthread_mutex_unlock(&tel_lock);
	return rc;
}

void
eng_telemetry_unregister(struct uet_engine *e)
{
	pthread_mutex_lock(&tel_lock);
	if (e->tel_slot >= 0 && tel_engines[e->tel_slot] == e)
		tel_engines[e->tel_slot] = NULL;
	e->tel_slot = -1;
	pthread_mutex_unlock(&tel_lock);
}

int
uet_engine_telemetry_call(const char *cmd, const char *params,
			  struct rte_tel_data *d)
{
	for (unsigned int i = 0; i < RTE_DIM(tel_cmds); i++)
		if (strcmp(cmd, tel_cmds[i].cmd) == 0)
			return tel_cmds[i].fn(cmd, params, d);
	return -ENOENT;
}
