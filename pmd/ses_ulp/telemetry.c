/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * /uet/ses,<engine>: the SES ULP's telemetry (channel glue, SES and pool
 * counters per context; -ENOENT for an engine of another hook or ULP).
 * Added to the engine's /uet/ commands when the first SES ULP context is
 * made (uet_engine_telemetry_add()).
 */

#include <errno.h>

#include <rte_telemetry.h>

#include "ses_ulp_private.h"

static void
tel_u64(struct rte_tel_data *d, unsigned int ctx, const char *name,
	uint64_t v)
{
	uet_engine_telemetry_ctx_u64(d, ctx, name, v);
}

/* Racy reads of single-writer counters, as for the other commands. */
static int
fill_ses(struct uet_engine *e, struct rte_tel_data *d)
{
	for (unsigned int i = 0; i < uet_engine_nb_lcores(e); i++) {
		const struct uet_ses_stats *ss;
		const struct uet_ses *ses = NULL;
		struct uet_ses_ulp_stats st;
		struct uet_ses_pool_info pi;

		if (uet_ses_ulp_stats_get(e, i, &st, &ses) != 0)
			return -ENOENT;
		ss = uet_ses_stats_get(ses);
		uet_ses_pool_info_get(ses, &pi);
		tel_u64(d, i, "sqe", st.sqe);
		tel_u64(d, i, "sqe_held", st.sqe_held);
		tel_u64(d, i, "sqe_rejected", st.sqe_rejected);
		tel_u64(d, i, "rqe", st.rqe);
		tel_u64(d, i, "rqe_rejected", st.rqe_rejected);
		tel_u64(d, i, "cancel", st.cancel);
		tel_u64(d, i, "cqe", st.cqe);
		tel_u64(d, i, "cq_wait", st.cq_wait);
		tel_u64(d, i, "cq_overrun", st.cq_overrun);
		tel_u64(d, i, "ctl", st.ctl);
		tel_u64(d, i, "dereg_waits", st.dereg_waits);
		tel_u64(d, i, "withdraw_waits", st.withdraw_waits);
		tel_u64(d, i, "withdraw_forced", st.withdraw_forced);
		tel_u64(d, i, "key_bad", st.key_bad);
		tel_u64(d, i, "key_throttled", st.key_throttled);
		tel_u64(d, i, "ctl_cancelled", st.ctl_cancelled);
		tel_u64(d, i, "ops_quota", st.ops_quota);
		tel_u64(d, i, "orphan_cqe", st.orphan_cqe);
		tel_u64(d, i, "peer_bad", st.peer_bad);
		tel_u64(d, i, "win_bad", st.win_bad);
		tel_u64(d, i, "job_bad", st.job_bad);
		tel_u64(d, i, "peers", st.peers);
		tel_u64(d, i, "wr_submitted", ss->wr_submitted);
		tel_u64(d, i, "wr_rejected", ss->wr_rejected);
		tel_u64(d, i, "wr_eagain", ss->wr_eagain);
		tel_u64(d, i, "msg_ok", ss->msg_ok);
		tel_u64(d, i, "msg_err", ss->msg_err);
		tel_u64(d, i, "rx_bad", ss->rx_bad);
		tel_u64(d, i, "ret_refused", ss->ret_refused);
		tel_u64(d, i, "tgt_exhaust", ss->tgt_exhaust);
		tel_u64(d, i, "unexp_drop", ss->unexp_drop);
		tel_u64(d, i, "dgram_drop", ss->dgram_drop);
		tel_u64(d, i, "cq_overflow", ss->cq_overflow);
		tel_u64(d, i, "resp_default", ss->resp_default);
		tel_u64(d, i, "resp_early", ss->resp_early);
		tel_u64(d, i, "mem_rd", ss->mem_rd);
		tel_u64(d, i, "mem_wr", ss->mem_wr);
		tel_u64(d, i, "mem_err", ss->mem_err);
		tel_u64(d, i, "mem_coherent", ss->mem_coherent);
		tel_u64(d, i, "msgs_used", pi.msgs_used);
		tel_u64(d, i, "tgt_used", pi.tgt_used);
		tel_u64(d, i, "ret_used", pi.ret_used);
	}
	return 0;
}

int
ses_ulp_telemetry_add(void)
{
	return uet_engine_telemetry_add("/uet/ses", fill_ses,
		"SES ULP counters per context. Parameter: engine index");
}
