/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The SES on the engine (include/pmd-ses/uet/uet_ses_ulp.h): one struct uet_ses
 * per engine context over the context's PDS, driven as uet_ses.h
 * prescribes. This file: the ULP callbacks (init / fini, build, event,
 * poll) and the SES's configuration; the rest of pmd/ses_ulp/ is listed
 * in ses_ulp_private.h. Descriptors name destinations by handles into
 * the peer table, never by pointers into the front end's memory.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_ring.h>

#include <uet/uet_cma.h>
#include <uet/uet_config.h>
#include <uet/uet_pow2.h>

#include "ses_ulp_private.h"

static atomic_uint ses_ulp_seq;

/* ------------------------------------------------------------------ */
/* ULP callbacks                                                       */
/* ------------------------------------------------------------------ */

/* uet_ses_config.submit: the SES's packets take the engine's one
 * submission path (MTU check, submit counters), its struct as is. The
 * engine's clock is the one the SES was given. */
static int
ses_ulp_submit(void *arg, const struct uet_pds_submit *ps, uint64_t now)
{
	const struct ses_ulp_ctx *c = arg;

	(void)now;
	return uet_ulp_submit(c->uctx, ps);
}

static void
ses_ulp_free(struct ses_ulp_ctx *c)
{
	uet_ses_free(c->ses);
	ses_ulp_txref_fini(c);
	uet_ses_match_free(c->match);
	for (unsigned int i = 1; i < SES_ULP_EPS_MAX; i++)
		uet_ses_match_free(c->eps[i].match);
	uet_ses_mr_table_free(c->mr);
	rte_ring_free(c->ctl);
	rte_free(c->jobs);
	rte_free(c->peers);
	rte_free(c->ops);
	rte_free(c->pend);
	rte_free(c);
}

static int
ses_ulp_tables(struct ses_ulp_ctx *c, const struct uet_ses_ulp_params *p)
{
	struct uet_ses_mr_table_attr ta = {
		.max_entries = p->max_mrs ? p->max_mrs : 1024,
		.max_ri = 3 * c->max_jobs,
		.max_pids = SES_ULP_EPS_MAX,
		.max_auth = c->max_jobs,
		.vendor = 0x55,
	};
	struct uet_ses_match_config mc;
	uint32_t bytes = p->unexp_bytes ? p->unexp_bytes : 4u << 20;

	c->mr = uet_ses_mr_table_create(&ta);
	if (c->mr == NULL || uet_ses_mr_pid_add(c->mr, c->pid) != 0)
		return -ENOMEM;
	uet_ses_match_config_default(&mc);
	mc.max_posted = p->max_posted ? p->max_posted : 1024;
	mc.chunk_size = 1024;
	mc.chunks = RTE_MAX(bytes / mc.chunk_size, 64u);
	c->match = uet_ses_match_create(&mc);
	if (c->match == NULL)
		return -ENOMEM;
	c->eps[0].pid = c->pid;
	c->eps[0].initiator = c->initiator;
	c->eps[0].profile = UET_PROFILE_HPC;
	c->eps[0].match = c->match;
	/* the other processes (EP_ADD) get a quarter of the unexpected
	 * pool each */
	mc.chunks = RTE_MAX(mc.chunks / 4, 64u);
	for (unsigned int i = 1; i < SES_ULP_EPS_MAX; i++) {
		c->eps[i].match = uet_ses_match_create(&mc);
		if (c->eps[i].match == NULL)
			return -ENOMEM;
	}
	return 0;
}

static int
ses_ulp_init(struct uet_ulp_ctx *uctx, void *arg, void **priv)
{
	const struct uet_ses_ulp_params *p = arg;
	struct uet_engine_lcore *lc = uet_ulp_ctx_lcore(uctx);
	unsigned int idx = uet_engine_lcore_index(lc);
	struct uet_ses_config sc;
	char name[RTE_RING_NAMESIZE];
	uint32_t msgs, posted;
	struct ses_ulp_ctx *c;
	int rc;

	if (p == NULL || p->max_peers > SES_ULP_PEERS_MAX)
		return -EINVAL;
	(void)ses_ulp_telemetry_add();
	c = rte_zmalloc("ses_ulp_ctx", sizeof(*c), RTE_CACHE_LINE_SIZE);
	if (c == NULL)
		return -ENOMEM;
	c->magic = SES_ULP_MAGIC;
	c->uctx = uctx;
	c->pid = (uint16_t)((p->pid_base + idx) & 0xFFF);
	c->start_ri = p->start_ri;
	c->initiator = p->initiator_of != NULL ?
		       p->initiator_of(p->initiator_arg, idx, c->pid) :
		       (uint32_t)p->pid_base + idx;
	c->max_jobs = p->max_jobs ? p->max_jobs : 16;
	c->max_peers = p->max_peers ? p->max_peers : SES_ULP_PEERS_DEFAULT;
	msgs = p->max_msgs ? p->max_msgs : 1024;
	posted = p->max_posted ? p->max_posted : 1024;
	rc = ses_ulp_tables(c, p);
	if (rc == 0)
		rc = ses_ulp_txref_init(c, msgs);
	if (rc < 0)
		goto fail;
	uet_ses_config_default(&sc);
	sc.profile = UET_PROFILE_HPC; /* the provider enforces its domain's */
	sc.mtu = uet_ulp_max_len(uctx);
	sc.max_msgs = msgs;
	sc.cq_size = uet_pow2_ceil(4 * (msgs + posted));
	sc.initiator_id = c->initiator;
	sc.pid_on_fep = c->pid;
	/* restart tokens and message ids of this process's own (an earlier
	 * incarnation's, still held by a peer, name none of ours) */
	sc.seed = rte_rdtsc() ^ ((uint64_t)getpid() << 32) ^
		  (uint64_t)(uintptr_t)c ^ (uint64_t)idx;
	/* the context in our restart tokens: local delivery steers a
	 * DEFERRABLE_RTR that opens a PDC by it (docs/ENGINE.md), with
	 * the width of the engine's final number of contexts (its
	 * nb_lcores still grows while the contexts are made: context 1 of
	 * three wrote 1 bit, read back as owner 2) */
	sc.token_owner_id = idx;
	sc.token_owner_bits = uet_engine_owner_bits(
		uet_engine_config(uet_engine_lcore_engine(lc))->engine.nb_lcores);
	/* the front end picks rendezvous per SQE (UET_CHAN_F_RENDEZVOUS) */
	sc.rdv_threshold = UINT32_MAX;
	sc.rdv_eager = p->rdv_eager;
	sc.rdv_ri_of = ses_ulp_rdv_ri_of;
	sc.rdv_ri_arg = c;
	sc.rdv_resource_index = (c->start_ri + UET_SES_ULP_RI_RDV) & 0xFFF;
	sc.pds = uet_ulp_ctx_pds(uctx);
	sc.mr = c->mr;
	sc.match = c->match;
	sc.match_of = ses_ulp_match_of;
	sc.match_arg = c;
	sc.remote_events = true; /* routed to channels that asked */
	sc.pid_wait_ns = uet_engine_config(uet_engine_lcore_engine(lc))->
			 engine.pid_wait_ns;
	sc.profile_of = ses_ulp_profile_of;
	sc.profile_arg = c;
	sc.submit = ses_ulp_submit;
	sc.submit_arg = c;
	sc.tx_busy = ses_ulp_tx_busy;
	sc.tx_busy_arg = c;
	/* MR_REG of another owner: by its /proc/PID/mem descriptor, or
	 * the handle of the caller's accessor */
	sc.mem_ops = p->mem_ops != NULL ? p->mem_ops : &uet_cma_fd_mem_ops;
	sc.mem_arg = p->mem_ops != NULL ? p->mem_arg : NULL;
	c->mem_ops = sc.mem_ops;
	c->mem_arg = sc.mem_arg;
	c->ses = uet_ses_create(&sc);
	if (c->ses == NULL) {
		rc = -errno;
		goto fail;
	}
	c->nb_ops = msgs + posted;
	c->ops = rte_zmalloc("ses_ulp_ops", c->nb_ops * sizeof(*c->ops), 0);
	c->jobs = rte_zmalloc("ses_ulp_jobs", c->max_jobs * sizeof(*c->jobs), 0);
	c->peers = rte_zmalloc("ses_ulp_peers",
			       (size_t)c->max_peers * sizeof(*c->peers), 0);
	/* every channel's CQEs at once: its two budgets of solicited ones
	 * (SES_ULP_CHAN_OPS_MAX) and its unsolicited ones, so that one
	 * channel never waits for room another holds */
	c->pend_mask = uet_pow2_ceil(RTE_MAX(2 * (uint64_t)c->nb_ops,
					     (uint64_t)UET_ENGINE_CHANS_MAX *
					     (2 * SES_ULP_CHAN_OPS_MAX +
					      SES_ULP_CHAN_PEND_UNSOL_MAX))) - 1;
	c->pend = rte_zmalloc("ses_ulp_pend", (c->pend_mask + 1) *
			      sizeof(*c->pend), 0);
	snprintf(name, sizeof(name), "ses_ulp_ctl%u", atomic_fetch_add(&ses_ulp_seq, 1));
	c->ctl = rte_ring_create(name, SES_ULP_CTL_RING, SOCKET_ID_ANY,
				 RING_F_SC_DEQ);
	if (c->ops == NULL || c->jobs == NULL || c->peers == NULL ||
	    c->pend == NULL || c->ctl == NULL) {
		rc = -ENOMEM;
		goto fail;
	}
	c->free_head = SES_ULP_NONE;
	for (uint32_t i = c->nb_ops; i-- > 0;)
		ses_ulp_op_put(c, i);
	for (uint32_t i = 0; i < c->max_peers; i++)
		c->peers[i].next = i + 1 < c->max_peers ? i + 1 : SES_ULP_NONE;
	c->peer_free = 0;
	ses_ulp_pid_local(c, c->pid, true);
	*priv = c;
	return 0;
fail:
	ses_ulp_free(c);
	return rc < 0 ? rc : -ENOMEM;
}

static void
ses_ulp_fini(struct uet_ulp_ctx *uctx, void *priv)
{
	struct ses_ulp_ctx *c = priv;
	void *m;

	(void)uctx;
	if (c == NULL)
		return;
	/* the SES goes away with everything it could still touch (a held
	 * MR_DEREG may join dereg_wait: answered below) */
	for (unsigned int i = 0; i < c->nb_held; i++)
		ses_ulp_ctl_one(c, c->held[i], 0);
	c->nb_held = 0;
	for (unsigned int i = 0; i < c->nb_dereg_wait; i++)
		ses_ulp_ctl_answer(c->dereg_wait[i].m);
	c->nb_dereg_wait = 0;
	/* answer requests nobody will process any more */
	while (rte_ring_sc_dequeue(c->ctl, &m) == 0) {
		struct ses_ulp_ctl_msg *cm = m;
		unsigned int expect = SES_ULP_CTL_PENDING;

		cm->req.rc = -ESHUTDOWN;
		if (!atomic_compare_exchange_strong(&cm->state, &expect,
						    SES_ULP_CTL_DONE))
			rte_free(cm);
	}
	ses_ulp_free(c);
}

static int
ses_ulp_build(void *priv, uint64_t cookie, uint32_t psn, bool is_retx,
	  uint8_t *buf, size_t cap)
{
	struct ses_ulp_ctx *c = priv;

	(void)is_retx;
	return uet_ses_build(c->ses, cookie, psn, buf, cap);
}

static int
ses_ulp_build_csum(void *priv, uint64_t cookie, uint32_t psn, bool is_retx,
		   uint8_t *buf, size_t cap, uint32_t *sum)
{
	struct ses_ulp_ctx *c = priv;

	(void)is_retx;
	return uet_ses_build_csum(c->ses, cookie, psn, buf, cap, sum);
}

static void
ses_ulp_event(void *priv, struct uet_ulp_ctx *uctx,
	  const struct uet_pds_event *ev, const uint8_t *ses, uint16_t len)
{
	struct ses_ulp_ctx *c = priv;

	(void)uet_ses_event(c->ses, ev, ses, len, uet_ulp_now(uctx));
}

static void
ses_ulp_event_tail(void *priv, struct uet_ulp_ctx *uctx,
		   const struct uet_pds_event *ev, const uint8_t *ses,
		   uint16_t len, const uint8_t *tail, uint32_t tail_len)
{
	struct ses_ulp_ctx *c = priv;

	(void)uet_ses_event_tail(c->ses, ev, ses, len, tail, tail_len,
				 uet_ulp_now(uctx));
}

static bool
ses_ulp_resp_expected(void *priv, uint8_t pds_type, uint8_t next_hdr,
		  const uint8_t *ses, uint16_t len)
{
	(void)priv;
	return uet_ses_rx_resp_expected(pds_type, next_hdr, ses, len);
}

static unsigned int
ses_ulp_poll(void *priv, struct uet_ulp_ctx *uctx, uint64_t now)
{
	struct ses_ulp_ctx *c = priv;
	unsigned int work;

	/* channels first: a detached channel's receives are withdrawn
	 * before the EP_DEL that follows its detach frees its process */
	ses_ulp_chans_sync(c, uet_ulp_ctx_lcore(uctx), now);
	work = ses_ulp_ctl_poll(c, now);
	work += ses_ulp_completions(c, now);
	for (unsigned int i = 0; i < c->nb_chans; i++) {
		work += ses_ulp_chan_rq(c, &c->chans[i], now);
		work += ses_ulp_chan_sq(c, &c->chans[i], now);
	}
	work += uet_ses_progress(c->ses, now);
	/* completions made at once (NOP, refused) go out this iteration */
	work += ses_ulp_pend_flush(c);
	return work;
}

/* The SES's timed work (a lost DEFERRABLE_RTR or MSG_ERROR sent again
 * after a wait) runs in uet_ses_progress() from ses_ulp_poll(). */
static uint64_t
ses_ulp_next_deadline(void *priv, struct uet_ulp_ctx *uctx)
{
	const struct ses_ulp_ctx *c = priv;

	(void)uctx;
	return uet_ses_next_deadline(c->ses);
}

const struct uet_ulp_ops uet_ses_ulp_ops = {
	.size = sizeof(struct uet_ulp_ops),
	.name = "ses",
	.init = ses_ulp_init,
	.fini = ses_ulp_fini,
	.build = ses_ulp_build,
	.build_ref = ses_ulp_build_ref,
	.poll = ses_ulp_poll,
	.event = ses_ulp_event,
	.resp_expected = ses_ulp_resp_expected,
	.next_deadline = ses_ulp_next_deadline,
	.build_csum = ses_ulp_build_csum,
	.event_tail = ses_ulp_event_tail,
};
