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
telemetry_u64(struct rte_tel_data *d, unsigned int ctx, const char *name,
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
		telemetry_u64(d, i, "sqe", st.sqe);
		telemetry_u64(d, i, "sqe_held", st.sqe_held);
		telemetry_u64(d, i, "sqe_rejected", st.sqe_rejected);
		telemetry_u64(d, i, "rqe", st.rqe);
		telemetry_u64(d, i, "rqe_rejected", st.rqe_rejected);
		telemetry_u64(d, i, "cancel", st.cancel);
		telemetry_u64(d, i, "cqe", st.cqe);
		telemetry_u64(d, i, "cq_wait", st.cq_wait);
		telemetry_u64(d, i, "cq_overrun", st.cq_overrun);
		telemetry_u64(d, i, "ctl", st.ctl);
		telemetry_u64(d, i, "dereg_waits", st.dereg_waits);
		telemetry_u64(d, i, "withdraw_waits", st.withdraw_waits);
		telemetry_u64(d, i, "withdraw_forced", st.withdraw_forced);
		telemetry_u64(d, i, "key_bad", st.key_bad);
		telemetry_u64(d, i, "key_throttled", st.key_throttled);
		telemetry_u64(d, i, "ctl_cancelled", st.ctl_cancelled);
		telemetry_u64(d, i, "ops_quota", st.ops_quota);
		telemetry_u64(d, i, "orphan_cqe", st.orphan_cqe);
		telemetry_u64(d, i, "peer_bad", st.peer_bad);
		telemetry_u64(d, i, "win_bad", st.win_bad);
		telemetry_u64(d, i, "job_bad", st.job_bad);
		telemetry_u64(d, i, "peers", st.peers);
		telemetry_u64(d, i, "wr_submitted", ss->wr_submitted);
		telemetry_u64(d, i, "wr_rejected", ss->wr_rejected);
		telemetry_u64(d, i, "wr_eagain", ss->wr_eagain);
		telemetry_u64(d, i, "msg_ok", ss->msg_ok);
		telemetry_u64(d, i, "msg_err", ss->msg_err);
		telemetry_u64(d, i, "rx_bad", ss->rx_bad);
		telemetry_u64(d, i, "ret_refused", ss->ret_refused);
		telemetry_u64(d, i, "tgt_exhaust", ss->tgt_exhaust);
		telemetry_u64(d, i, "unexp_drop", ss->unexp_drop);
		telemetry_u64(d, i, "dgram_drop", ss->dgram_drop);
		telemetry_u64(d, i, "pid_resent", ss->pid_resent);
		telemetry_u64(d, i, "pid_gave_up", ss->pid_gave_up);
		telemetry_u64(d, i, "cq_overflow", ss->cq_overflow);
		telemetry_u64(d, i, "resp_default", ss->resp_default);
		telemetry_u64(d, i, "resp_early", ss->resp_early);
		telemetry_u64(d, i, "mem_rd", ss->mem_rd);
		telemetry_u64(d, i, "mem_wr", ss->mem_wr);
		telemetry_u64(d, i, "mem_err", ss->mem_err);
		telemetry_u64(d, i, "mem_coherent", ss->mem_coherent);
		telemetry_u64(d, i, "msgs_used", pi.msgs_used);
		telemetry_u64(d, i, "tgt_used", pi.tgt_used);
		telemetry_u64(d, i, "ret_used", pi.ret_used);
	}
	return 0;
}

int
ses_ulp_telemetry_add(void)
{
	return uet_engine_telemetry_add("/uet/ses", fill_ses,
		"SES ULP counters per context. Parameter: engine index");
}
