/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The PDS hook's telemetry, added to the engine's /uet/ commands when the
 * first context of the hook is made (uet_engine_telemetry_add()):
 *   /uet/pds,<engine>  PDS counters, NACKs by code and pool use per context
 *   /uet/cc,<engine>   congestion control (NSCC, RCCC) per context
 * -ENOENT for an engine of another hook.
 */

#include <errno.h>
#include <stddef.h>
#include <stdio.h>

#include <rte_common.h>
#include <rte_telemetry.h>

#include "proto_private.h"

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
	PDS_CTR(syn_stale), PDS_CTR(close_req_giveup), PDS_CTR(close_nack),
	PDS_CTR(lock_keepalive), PDS_CTR(new_start),
	PDS_CTR(rtt_samples), PDS_CTR(nack_retx_limit), PDS_CTR(resp_default),
	PDS_CTR(done_default), PDS_CTR(resp_late),
	PDS_CTR(lb_recycled), PDS_CTR(lb_explored), PDS_CTR(lb_freezes),
	PDS_CTR(lb_ev_foreign), PDS_CTR(ack_ev_split), PDS_CTR(syn_refused),
	PDS_CTR(tomb_evict), PDS_CTR(mpr_limited), PDS_CTR(nack_to_rto),
	PDS_CTR(lock_silent), PDS_CTR(syn_rec_evict), PDS_CTR(syn_forgot), PDS_CTR(syn_1rtt), PDS_CTR(syn_restart),
	PDS_CTR(syn_unnamed), PDS_CTR(syn_expected_old), PDS_CTR(epsn_tx),
	PDS_CTR(epsn_rx), PDS_CTR(epsn_ignored),
	PDS_CTR(tx_unbuildable), PDS_CTR(closing_continued),
	PDS_CTR(closing_cleared),
	PDS_CTR(close_held), PDS_CTR(move_waited), PDS_CTR(move_dropped),
	PDS_CTR(move_limit),
};

/* The PDS of each context (PDS hook engines only): its counters, the
 * NACKs it sent and received (by code, non-zero ones) and pool use. */
static int
fill_pds(struct uet_engine *e, struct rte_tel_data *d)
{
	for (unsigned int i = 0; i < uet_engine_nb_lcores(e); i++) {
		struct uet_ulp_ctx *ctx = uet_ulp_ctx_get(e, i);
		const struct uet_pds_stats *ps;
		struct uet_pds_pool_info pi;
		const struct uet_pds *pds;
		char k[32];

		if (ctx == NULL || (pds = uet_ulp_ctx_pds(ctx)) == NULL)
			return -ENOENT;
		ps = uet_pds_stats_get(pds);
		for (size_t c = 0; c < RTE_DIM(pds_ctrs); c++)
			uet_engine_telemetry_ctx_u64(d, i, pds_ctrs[c].name,
				    *(const uint64_t *)((const char *)ps +
							pds_ctrs[c].off));
		for (unsigned int c = 0; c < RTE_DIM(ps->nack_tx); c++) {
			if (ps->nack_tx[c] != 0) {
				snprintf(k, sizeof(k), "nack_tx_%u", c);
				uet_engine_telemetry_ctx_u64(d, i, k, ps->nack_tx[c]);
			}
			if (ps->nack_rx[c] != 0) {
				snprintf(k, sizeof(k), "nack_rx_%u", c);
				uet_engine_telemetry_ctx_u64(d, i, k, ps->nack_rx[c]);
			}
		}
		uet_pds_pool_info_get(pds, &pi);
		uet_engine_telemetry_ctx_u64(d, i, "pdc_used_init", pi.pdc_used[0]);
		uet_engine_telemetry_ctx_u64(d, i, "pdc_used_tgt", pi.pdc_used[1]);
		uet_engine_telemetry_ctx_u64(d, i, "resp_used", pi.resp_used);
	}
	return 0;
}

/* Congestion control per context (uet_pds_cc_stats; zeroes under the
 * fixed window, whose name says so). */
static int
fill_cc(struct uet_engine *e, struct rte_tel_data *d)
{
	static const char *const act[] = {
		"none", "ignored", "quick_adapt", "fair", "proportional",
		"fast", "md", "md_held", "penalty", "restored", "decrease",
	};
	char k[32];
	static const char *const algo[] = { "fixed", "nscc", "rccc",
					    "nscc+rccc" };
	unsigned int a0 = (unsigned int)uet_engine_config(e)->cc.algorithm;

	rte_tel_data_add_dict_string(d, "algorithm",
				     a0 < RTE_DIM(algo) ? algo[a0] : "?");
	for (unsigned int i = 0; i < uet_engine_nb_lcores(e); i++) {
		struct uet_ulp_ctx *ctx = uet_ulp_ctx_get(e, i);
		const struct uet_pds *pds;
		struct uet_pds_cc_stats st;

		if (ctx == NULL || (pds = uet_ulp_ctx_pds(ctx)) == NULL)
			return -ENOENT;
		uet_pds_cc_stats_get(pds, &st);
		uet_engine_telemetry_ctx_u64(d, i, "ctx_used", st.ctx_used);
		uet_engine_telemetry_ctx_u64(d, i, "ctx_max", st.ctx_max);
		uet_engine_telemetry_ctx_u64(d, i, "ctx_overflow", st.ctx_overflow);
		for (unsigned int a = 1; a < RTE_DIM(act); a++) {
			snprintf(k, sizeof(k), "nscc_%s", act[a]);
			uet_engine_telemetry_ctx_u64(d, i, k, st.act[a]);
		}
		uet_engine_telemetry_ctx_u64(d, i, "probes", st.probes);
		uet_engine_telemetry_ctx_u64(d, i, "probe_acks", st.probe_acks);
		uet_engine_telemetry_ctx_u64(d, i, "credit_req", st.credit_req);
		uet_engine_telemetry_ctx_u64(d, i, "grants", st.grants);
		uet_engine_telemetry_ctx_u64(d, i, "grant_bytes", st.grant_bytes);
		uet_engine_telemetry_ctx_u64(d, i, "charged_bytes",
					     st.charged_bytes);
		uet_engine_telemetry_ctx_u64(d, i, "src_full", st.src_full);
		uet_engine_telemetry_ctx_u64(d, i, "overload", st.overload);
	}
	return 0;
}

int
proto_telemetry_add(void)
{
	int rc = uet_engine_telemetry_add("/uet/pds", fill_pds,
		"PDS counters per context. Parameter: engine index");

	if (rc == 0)
		rc = uet_engine_telemetry_add("/uet/cc", fill_cc,
			"Congestion control (NSCC, RCCC) per context. "
			"Parameter: engine index");
	return rc;
}
