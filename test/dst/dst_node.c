/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DST nodes: one {PDS, SES, MR table, receive context} stack each, driven
 * as the engine drives it (pmd/proto/proto.c: drain events after every received
 * packet, then advance, progress and transmit once per loop turn), and
 * the invariants checked on what crosses the wire.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "dst.h"

/* ---- creation ---- */

/* Generator 9: every job in secure domain 1, its frames received in it. */
static uint8_t
dst_sdom_of(void *arg, uint32_t job)
{
	(void)arg;
	(void)job;
	return 1;
}

static void
pds_cfg(const struct dst_sim *s, int i, struct uet_pds_config *c,
	struct uet_pds_cc_cms_config *ccc)
{
	const struct dst_plan *p = s->plan;
	const struct dst_node_spec *ns = &p->node[i];

	uet_pds_config_default(c);
	c->max_pdcs = 32;
	c->max_rsv_pdcs = 4;
	c->tx_window = ns->tx_window;
	c->rx_window = ns->rx_window;
	c->tx_blocks = 16;
	c->rx_blocks = 16;
	c->resp_entries = 256;
	c->rudi_slots = 64;
	c->event_queue = 1024;
	c->ctl_queue = 256;
	c->dgram_queue = 256;
	c->mtu = DST_MTU;
	c->rto_init_ns = (uint64_t)ns->rto_init_us * 1000;
	c->rto_max_ns = (uint64_t)ns->rto_max_us * 1000;
	c->max_retries = ns->max_retries;
	c->max_nack_retx = ns->max_nack_retx;
	c->max_backoffs = ns->max_backoffs;
	c->backoff_init_ns = 20000;
	c->backoff_max_ns = 1000000;
	c->idle_close_ns = (uint64_t)ns->idle_close_us * 1000;
	c->tgt_close_req_ns = (uint64_t)ns->close_req_us * 1000;
	c->syn_holdoff_ns = (uint64_t)ns->holdoff_us * 1000;
	c->mpl_ns = DST_MPL_NS;
	if (s->syn_quiet >= 0)
		c->syn_quiet = s->syn_quiet != 0;
	/* a restart knows it is one (an owner with state across restarts;
	 * the engine keeps none, docs/WIRE-DECISIONS.md) */
	c->restarted = s->node[i].inc > 0;
	if (dst_syn_expected(p)) {
		c->syn_expected = true;
		c->sdom_of = dst_sdom_of;
	}
	c->ack_cc_always = ns->ack_cc_always;
	c->tlp_probe = ns->tlp_probe;
	c->pdc_events = true; /* the SES acts on PDC_DOWN */
	/* a new Start_PSN sequence per incarnation, as the engine's */
	c->seed = p->seed * 1000003u + (uint64_t)i * 7919u +
		  (uint64_t)s->node[i].inc * 104729u + 1;
	c->cc_param = c->tx_window * DST_MTU;
	c->lb.mode = (enum uet_cms_lb_mode)p->lb;
	c->lb.ev_base = DST_EV_BASE;
	c->lb.ev_count = DST_EV_COUNT;
	c->lb.base_rtt_ns = 2ull * ns->delay_ns + 2000;
	if (p->cc == 0)
		return;
	uet_pds_cc_cms_config_default(ccc, p->cc & 1, (p->cc & 2) != 0,
				      100000, (uint32_t)c->lb.base_rtt_ns,
				      DST_MTU, true);
	c->cc = &uet_pds_cc_cms;
	c->cc_arg = ccc;
}

/*
 * The MR table draws its keys from getrandom(2): the simulator supplies
 * them from the seed instead (this definition, in the executable, wins
 * over libc's), so a run stays a function of its seed.
 */
static struct uet_rand dst_key_rng, dst_shared_rng;
static size_t dst_shared_left;

/* The next bytes of getrandom(2): those of a stream seeded with @p seed,
 * the first @p shared_len replaced by those of one seeded with @p shared
 * (the same bytes when the seeds are). */
void
dst_getrandom_seed(uint64_t seed, uint64_t shared, size_t shared_len)
{
	uet_rand_seed(&dst_key_rng, seed);
	uet_rand_seed(&dst_shared_rng, shared);
	dst_shared_left = shared_len;
}

ssize_t
getrandom(void *buf, size_t len, unsigned int flags)
{
	uint8_t *p = buf;

	(void)flags;
	for (size_t k = 0; k < len; k++) {
		uint64_t v = uet_rand_next(&dst_key_rng);

		if (dst_shared_left != 0) {
			dst_shared_left--;
			v = uet_rand_next(&dst_shared_rng);
		}
		p[k] = (uint8_t)(v >> 56);
	}
	return (ssize_t)len;
}

/*
 * Memory "of another process" (uet_ses_mr_attr.owner, reached through
 * uet_ses_config.mem_ops as the service engine reaches its clients'):
 * owner 1 is the node's own memory by another key, owner 2 a process
 * that is gone (-ESRCH: the request is answered AT_INVALID).
 */
#define DST_OWNER_FAR 1
#define DST_OWNER_GONE 2

static int
mem_read(void *arg, pid_t owner, void *dst, uintptr_t src, size_t n)
{
	(void)arg;
	if (owner != DST_OWNER_FAR)
		return -ESRCH;
	memcpy(dst, (const void *)src, n);
	return 0;
}

static int
mem_write(void *arg, pid_t owner, uintptr_t dst, const void *src, size_t n)
{
	(void)arg;
	if (owner != DST_OWNER_FAR)
		return -ESRCH;
	memcpy((void *)dst, src, n);
	return 0;
}

static const struct uet_ses_mem_ops dst_mem_ops = {
	.read = mem_read, .write = mem_write,
};

/* Generator 2's keys of the same memory as another process's. */
static int
node_far_keys(struct dst_sim *s, int i, struct uet_ses_mr_attr *ma)
{
	struct dst_node *n = &s->node[i];

	if (s->plan->gen < 2)
		return 0;
	ma->idempotent = false;
	ma->owner = DST_OWNER_FAR;
	if (uet_ses_mr_reg(n->mr, ma, &n->rkey_far) != 0)
		return -EINVAL;
	ma->owner = DST_OWNER_GONE;
	return uet_ses_mr_reg(n->mr, ma, &n->rkey_gone) != 0 ? -EINVAL : 0;
}

/* An application closing its memory regions and opening them again
 * (fi_close, fi_mr_reg) while requests are in flight: those with the
 * old keys are answered BAD_MKEY. */
void
dst_node_rereg(struct dst_sim *s, int i)
{
	struct dst_node *n = &s->node[i];
	uint64_t *keys[] = { &n->rkey, &n->rkey_idem, &n->rkey_far,
			     &n->rkey_gone };
	static const pid_t owner[] = { 0, 0, DST_OWNER_FAR, DST_OWNER_GONE };
	struct uet_ses_mr_attr ma = {
		.ri = n->ri_rma, .base = (uintptr_t)n->mem, .length = DST_MEM,
		.access = UET_SES_MR_ACCESS_MASK,
	};
	unsigned int k;

	for (k = 0; k < 4; k++)
		if (uet_ses_mr_dereg(n->mr, *keys[k]) != 0) {
			dst_fail(s, "setup", "n%d: key %u not deregistered",
				 i, k);
			return;
		}
	for (k = 0; k < 4; k++) {
		ma.idempotent = k == 1;
		ma.owner = owner[k];
		if (uet_ses_mr_reg(n->mr, &ma, keys[k]) != 0) {
			dst_fail(s, "setup", "n%d: key %u not registered",
				 i, k);
			return;
		}
	}
	n->keys++;
	/* new entries are on (an RMA table off stays off) */
	if (n->mr_off_how == 2)
		n->mr_off_how = 0;
	dst_trace(s, "n%d registers its memory anew (keys %u)", i, n->keys);
}

static int
node_tables(struct dst_sim *s, int i)
{
	struct dst_node *n = &s->node[i];
	struct uet_ses_mr_table_attr ta = {
		.max_entries = 256, .max_ri = 8, .max_pids = 4, .max_auth = 8,
		.vendor = 0,
	};
	struct uet_ses_ri_attr ra = {
		.relative = true, .job_id = DST_JOB, .pid_on_fep = DST_PID,
		.resource_index = DST_RI_RMA, .type = UET_SES_RI_RMA,
	};
	struct uet_ses_mr_attr ma = {
		.base = (uintptr_t)n->mem, .length = DST_MEM,
		.access = UET_SES_MR_ACCESS_MASK,
	};
	struct uet_ses_match_config mc;
	int ri_msg, ri_rdv;

	/* keys differ per incarnation, as the engine's (getrandom); in
	 * generator 7 the application's four (the first 4 draws of 5 bytes)
	 * are the same, as an application's that names its keys
	 * (FI_MR_PROV_KEY off) and registers them again after a restart: a
	 * request sent to the previous incarnation is served. The keys the
	 * SES draws itself (a rendezvous send's buffer) still differ: drawn
	 * the same, a read-back sent to the previous incarnation was served
	 * from another message's buffer under the same key, which no engine
	 * does (generator 7 seed 19002617, payload, a bug of the simulator). */
	dst_getrandom_seed(s->plan->seed * 31 + (uint64_t)i +
			   ((uint64_t)s->node[i].inc << 40),
			   s->plan->seed * 31 + (uint64_t)i,
			   s->plan->gen >= 7 ? 4 * 5 : 0);
	n->mr = uet_ses_mr_table_create(&ta);
	uet_ses_match_config_default(&mc);
	mc.chunks = 2048;
	mc.chunk_size = 1024;
	if (s->plan->node[i].small_unexp)
		mc.max_unexpected = 4;
	n->match = uet_ses_match_create(&mc);
	if (n->mr == NULL || n->match == NULL ||
	    uet_ses_mr_pid_add(n->mr, DST_PID) != 0 ||
	    uet_ses_mr_auth_add(n->mr, DST_JOB, DST_PID) != 0)
		return -ENOMEM;
	n->ri_rma = uet_ses_ri_add(n->mr, &ra);
	ra.resource_index = DST_RI_MSG;
	ra.type = UET_SES_RI_MSG;
	ri_msg = uet_ses_ri_add(n->mr, &ra);
	ra.resource_index = DST_RI_RDV;
	ra.type = UET_SES_RI_RMA;
	ri_rdv = uet_ses_ri_add(n->mr, &ra);
	ma.ri = n->ri_rma;
	if (n->ri_rma < 0 || ri_msg < 0 || ri_rdv < 0 ||
	    uet_ses_mr_reg(n->mr, &ma, &n->rkey) != 0)
		return -EINVAL;
	/* the same memory under an idempotent key (RUDI may replay) */
	ma.idempotent = true;
	if (uet_ses_mr_reg(n->mr, &ma, &n->rkey_idem) != 0 ||
	    node_far_keys(s, i, &ma) != 0)
		return -EINVAL;
	return ri_rdv;
}

int
dst_node_up(struct dst_sim *s, int i)
{
	struct dst_node *n = &s->node[i];
	struct uet_pds_cc_cms_config ccc;
	struct uet_pds_config pc;
	struct uet_ses_config sc;
	int rdv;

	while (n->nretx_taken > 0)
		memset(&n->retx[n->retx_taken[--n->nretx_taken]], 0,
		       sizeof(n->retx[0]));
	while (n->nwin_taken > 0)
		memset(&n->win[n->win_taken[--n->nwin_taken]], 0,
		       sizeof(n->win[0]));
	while (n->necn_taken > 0)
		memset(&n->ecn[n->ecn_taken[--n->necn_taken]], 0,
		       sizeof(n->ecn[0]));
	n->nrod = 0;
	n->nclosing = 0;
	n->mr_off_how = 0;
	n->mr_flap_end = 0;
	n->mrecv_posted = false;
	n->stall_until = 0;
	n->link_free = 0;
	memset(&n->fa, 0, sizeof(n->fa));
	n->fa.addr[0] = 0xfd;
	n->fa.addr[15] = (uint8_t)(i + 1);
	pds_cfg(s, i, &pc, &ccc);
	n->pds = uet_pds_create(&pc);
	rdv = n->pds != NULL ? node_tables(s, i) : -ENOMEM;
	if (rdv < 0)
		return rdv;
	uet_ses_config_default(&sc);
	sc.profile = (enum uet_wire_profile)s->plan->profile;
	sc.mtu = DST_MTU;
	sc.max_msgs = 512;
	sc.max_tgt_msgs = s->plan->node[i].small_unexp ? 8 : 128;
	sc.cq_size = 4096;
	sc.initiator_id = 100 + (uint32_t)i;
	/* other generations and message ids per incarnation, as the
	 * engine's (its TSC and pid) */
	sc.seed = s->plan->seed * 2654435761u + (uint64_t)i * 40503u +
		  ((uint64_t)s->node[i].inc << 48) + 7;
	sc.pid_on_fep = DST_PID;
	sc.rdv_ri = rdv;
	sc.rdv_resource_index = DST_RI_RDV;
	sc.rdv_threshold = UINT32_MAX;
	sc.pid_wait_ns = dst_pid_wait_ns(s->plan, (unsigned int)i);
	sc.rdv_eager = 512;
	sc.rudi = true; /* for work requests flagged idempotent */
	sc.pds = n->pds;
	sc.mr = n->mr;
	sc.match = n->match;
	sc.mem_ops = &dst_mem_ops;
	if (s->plan->gen >= 3) {
		/* a profile per process (the engine's service does so) */
		sc.profile_of = dst_profile_of;
		sc.profile_arg = (void *)(uintptr_t)&s->plan->node[i];
		/* and tells of what peers do to its memory */
		sc.remote_events = true;
	}
	n->ses = uet_ses_create(&sc);
	return n->ses == NULL ? -ENOMEM : 0;
}

void
dst_node_down(struct dst_sim *s, int i)
{
	struct dst_node *n = &s->node[i];
	const struct uet_ses_stats *st =
		n->ses != NULL ? uet_ses_stats_get(n->ses) : NULL;

	if (st != NULL && (st->pid_resent != 0 || st->pid_gave_up != 0))
		dst_trace(s, "n%d: sends answered BAD_PID sent again %llu "
			  "times, %llu failed with it", i,
			  (unsigned long long)st->pid_resent,
			  (unsigned long long)st->pid_gave_up);
	uet_ses_free(n->ses);
	uet_pds_free(n->pds);
	uet_ses_match_free(n->match);
	uet_ses_mr_table_free(n->mr);
	n->ses = NULL;
	n->pds = NULL;
	n->match = NULL;
	n->mr = NULL;
}

/* ---- events ---- */

static struct dst_retx *
retx_slot(struct dst_node *n, uint64_t cookie, bool add)
{
	uint32_t h = (uint32_t)(cookie * 0x9E3779B97F4A7C15ull >> 52), k;

	for (k = 0; k < 16; k++) {
		struct dst_retx *r = &n->retx[(h + k) % DST_RETX_MAP];

		if (r->used && r->cookie == cookie)
			return r;
		if (!r->used) {
			if (!add)
				return NULL;
			n->retx_taken[n->nretx_taken++] =
				(uint16_t)((h + k) % DST_RETX_MAP);
			r->used = true;
			r->cookie = cookie;
			r->count = 0;
			r->first_ns = 0;
			r->win_count = 0;
			return r;
		}
	}
	return NULL;
}

/* ROD: what the SES accepts of one PDC comes in PSN order, no gap. */
static void
rod_check(struct dst_sim *s, int i, const struct uet_pds_event *e)
{
	struct dst_node *n = &s->node[i];
	struct uet_pds_pdc_info pi;
	uint32_t k;

	if (uet_pds_pdc_info_get(n->pds, e->pdc, &pi) != 0)
		return;
	for (k = 0; k < n->nrod; k++) {
		if (n->rod_pdc[k] != e->pdc || n->rod_start[k] != pi.start_psn)
			continue;
		if (e->psn != n->rod_last[k] + 1)
			dst_fail(s, "rod-order", "n%d pdc %u delivered PSN %u "
				 "after %u", i, e->pdc, e->psn,
				 n->rod_last[k]);
		n->rod_last[k] = e->psn;
		return;
	}
	k = n->nrod < 64 ? n->nrod++ : e->psn % 64;
	n->rod_pdc[k] = e->pdc;
	n->rod_start[k] = pi.start_psn;
	n->rod_last[k] = e->psn;
}

/* The SES dropped a request the PDS accepted (and so acknowledged):
 * corrupted frames never get here (UDP checksum), so the data is lost
 * although its sender was told it arrived. */
static void
rx_bad_check(struct dst_sim *s, int i, const struct uet_pds_event *e,
	     uint64_t before)
{
	const struct uet_ses_stats *ss = uet_ses_stats_get(s->node[i].ses);

	if (ss->rx_bad != before)
		dst_fail(s, "ses-rx-bad", "n%d SES dropped a %s (pdc %u psn %u "
			 "next_hdr %u) the PDS accepted", i,
			 e->type == UET_PDS_EV_DELIVER ? "delivery" : "event",
			 e->pdc, e->psn, e->next_hdr);
}

/* The SES answered the request being delivered, its PDS could not store
 * the answer (response pool empty) and accepted the request all the same:
 * CACK passes it and its initiator takes the default response, OK, for
 * whatever the target answered (UEC 1.0 3.5.20.2). A target that cannot
 * keep an answer must refuse the request (NACK NO_GTD_DEL_AVAIL). RUDI
 * excepted: no CACK, an unsent RUDI_RESP makes the initiator send again. */
static void
answer_check(struct dst_sim *s, int i, const struct uet_pds_event *e,
	     uint64_t exhaust, uint64_t refused)
{
	const struct uet_pds_stats *st = uet_pds_stats_get(s->node[i].pds);

	if (e->pdc != UET_PDS_PDC_NONE && st->exhaust_resp != exhaust &&
	    st->refused == refused)
		dst_fail(s, "answer", "n%d pdc %u psn %u: the SES's answer "
			 "found no room to be stored and the PDS accepted the "
			 "request: its initiator reads OK", i, e->pdc, e->psn);
}

static void
on_event(struct dst_sim *s, int i, const struct uet_pds_event *e)
{
	uint64_t bad = uet_ses_stats_get(s->node[i].ses)->rx_bad;

	struct dst_node *n = &s->node[i];
	const struct uet_pds_stats *st = uet_pds_stats_get(n->pds);
	struct dst_retx *r;
	uint64_t refused = st->refused;
	uint64_t exhaust = st->exhaust_resp;

	if (e->type == UET_PDS_EV_DELIVER) {
		if (s->rx_ses == NULL || e->cookie != s->pkt_cookie) {
			dst_fail(s, "deliver-orphan", "n%d DELIVER of packet "
				 "%llu outside its reception", i,
				 (unsigned long long)e->cookie);
			return;
		}
		uet_ses_event(n->ses, e, s->rx_ses, s->rx_ses_len, s->now);
		dst_trace(s, "n%d DELIVER pdc %u psn %u %s%s", i, e->pdc,
			  e->psn, uet_wire_pds_next_hdr_name(e->next_hdr),
			  st->refused != refused ? " (refused)" : "");
		/* refused: the PDS NACKs it, nothing was acknowledged */
		if (st->refused == refused) {
			rx_bad_check(s, i, e, bad);
			if (e->pdc != UET_PDS_PDC_NONE)
				dst_tap_deliver(s, i, e);
		}
		answer_check(s, i, e, exhaust, refused);
		if (e->mode == UET_PDS_MODE_ROD && st->refused == refused &&
		    e->pdc != UET_PDS_PDC_NONE)
			rod_check(s, i, e);
		return;
	}
	if (e->type == UET_PDS_EV_DONE) {
		r = retx_slot(n, e->cookie, false);
		if (r != NULL)
			r->count = r->win_count = 0;
	}
	if (e->type == UET_PDS_EV_PDC_DOWN)
		dst_trace(s, "n%d PDC_DOWN pdc %u status %d", i, e->pdc,
			  e->status);
	uet_ses_event(n->ses, e, NULL, 0, s->now);
	rx_bad_check(s, i, e, bad);
}

void
dst_node_drain(struct dst_sim *s, int i)
{
	struct dst_node *n = &s->node[i];
	struct uet_pds_event ev[32];
	struct uet_ses_cqe c;
	uint16_t k, j;

	do {
		k = uet_pds_events(n->pds, ev, 32);
		for (j = 0; j < k && !s->failed; j++)
			on_event(s, i, &ev[j]);
	} while (k == 32 && !s->failed);
	while (!s->failed && uet_ses_cq_poll(n->ses, &c, 1) == 1)
		dst_work_cqe(s, i, &c);
}

void
dst_node_rx(struct dst_sim *s, int to, int from, const uint8_t *frame,
	    const struct uet_wire_pkt *pkt)
{
	const struct uet_wire_outer *o = &pkt->outer;
	size_t hl = uet_wire_pds_hdr_size(&pkt->pds);
	struct uet_pds_rx_meta m;

	memset(&m, 0, sizeof(m));
	memcpy(m.src.addr, o->src_addr, 16);
	memcpy(m.dst.addr, o->dst_addr, 16);
	m.ses = frame + o->hdr_len + hl;
	m.ses_len = o->inner_len > hl ? (uint16_t)(o->inner_len - hl) : 0;
	m.len = m.ses_len;
	m.ev = uet_wire_outer_ev_get(o);
	m.ce = o->ecn == UET_ECN_CE;
	m.trimmed = o->dscp == DST_TRIM_DSCP;
	m.resp_expected = !m.trimmed &&
		uet_ses_rx_resp_expected(pkt->pds.type, pkt->pds.next_hdr,
					 m.ses, m.ses_len);
	m.pkt_cookie = ++s->pkt_cookie;
	m.sdom = dst_syn_expected(s->plan) ? 1 : 0;
	dst_tap_rx(s, to, from, pkt, m.ce);
	if (s->failed)
		return;
	s->rx_ses = m.ses;
	s->rx_ses_len = m.ses_len;
	uet_pds_rx(s->node[to].pds, &pkt->pds, &m, s->now);
	dst_node_drain(s, to);
	s->rx_ses = NULL;
	s->rx_ses_len = 0;
}

/* How long a PDC may go without progress before it fails: the sum of
 * min(rto_init << k, rto_max) for k = 0 .. max_retries (the PDS's
 * pds_dead_ns: its RTO stays fixed, and the PDC fails once that long has
 * passed since una last moved), plus max_backoffs resource back-offs of
 * at most backoff_max_ns (1 ms here). */
static uint64_t
dead_ns(const struct dst_node_spec *ns)
{
	uint64_t sum = (uint64_t)ns->max_backoffs * 1000000, rto;
	uint32_t k;

	for (k = 0; k <= ns->max_retries; k++) {
		rto = (uint64_t)ns->rto_init_us * 1000 << k;
		if (rto > (uint64_t)ns->rto_max_us * 1000)
			rto = (uint64_t)ns->rto_max_us * 1000;
		sum += rto;
	}
	return sum;
}

/*
 * The rate of one packet's retransmissions (UEC 1.0 3.5.20.3.1): within
 * the time a PDC may go without progress (dead_ns), a packet leaves again
 * at once on a NACK at most Max_NACK_Retx_Cnt times, once per resource
 * back-off round, and otherwise on a timer: an RTO or a tail-loss probe
 * ahead of it, which run from the RTO base and so come at most twice per
 * RTO_INIT. ROD goes back N from a NACKed hole: a packet also leaves
 * again for each NACK of a PSN before it, at most Max_NACK_Retx_Cnt for
 * each of the tx_window PSNs that can be. More in that time is a storm
 * (a NACK answered at once, again and again, within one RTT), whether or
 * not its PDC fails later.
 */
static bool
retx_rate(struct dst_sim *s, int i, struct dst_retx *r, uint8_t type,
	  uint64_t win)
{
	const struct dst_node_spec *ns = &s->plan->node[i];
	bool rod = type == UET_PDS_TYPE_ROD_REQ ||
		   type == UET_PDS_TYPE_ROD_CC_REQ;
	uint64_t nacked = (uint64_t)ns->max_nack_retx *
			  (rod ? ns->tx_window : 1);
	uint64_t timed = 2 * (win / ((uint64_t)ns->rto_init_us * 1000) + 1);
	uint64_t bound = nacked + ns->max_backoffs + timed;

	if (r->win_count == 0 || s->now - r->win_ns > win) {
		r->win_ns = s->now;
		r->win_count = 0;
	}
	if (++r->win_count <= bound)
		return true;
	dst_fail(s, "retx-bound", "n%d PSN retransmitted %u times in %llu us "
		 "(at most %llu in %llu us: %llu NACK-driven, %u back-offs, "
		 "%llu on timers)", i, r->win_count,
		 (unsigned long long)((s->now - r->win_ns) / 1000),
		 (unsigned long long)bound, (unsigned long long)(win / 1000),
		 (unsigned long long)nacked, ns->max_backoffs,
		 (unsigned long long)timed);
	return false;
}

/*
 * A new stretch of one packet's retransmissions, counted afresh: it moved
 * to another PDC (NACK CLOSING: a new PDC, with its own retry budget), or
 * it was not resent for longer than an RTO at its cap and a back-off
 * round. The RTO resends the oldest packet (pds_initiator_rto_mark) every
 * rto_max at most, so such a silence means it was resending an older one,
 * and the PDC's clock for this packet starts when una reaches it (a
 * tail-loss probe, then a 50 ms partition: generator 3 seed 5034182).
 */
static bool
retx_new_stretch(const struct dst_node_spec *ns, const struct dst_retx *r,
		 const struct uet_pds_tx *t, uint64_t now)
{
	uint64_t gap = (uint64_t)ns->rto_max_us * 1000 + 1000000;

	return r->count == 0 || r->pdc != t->hdr.u.req.spdcid ||
	       now - r->last_ns > gap;
}

/* Retransmissions of one packet are bounded (UEC 1.0 PDS: Max_NACK_Retx_Cnt,
 * Max_RTO_Retx_Cnt): in rate (retx_rate), and once a packet was resent
 * more often than max_nack_retx + max_retries + max_backoffs allow in one
 * stretch (retx_new_stretch), its PDC must fail within the time it may go
 * without progress; a packet still resent after that (two RTOs of slack)
 * loops. */
static void
retx_count(struct dst_sim *s, int i, const struct uet_pds_tx *t)
{
	const struct dst_node_spec *ns = &s->plan->node[i];
	struct dst_retx *r = retx_slot(&s->node[i], t->cookie, true);
	uint32_t bound = ns->max_nack_retx + ns->max_retries +
			 ns->max_backoffs + 8;
	uint64_t dead = dead_ns(ns) + 2ull * ns->rto_max_us * 1000 + 1000000;

	if (r == NULL)
		return;
	if (retx_new_stretch(ns, r, t, s->now)) {
		if (r->count != 0)
			dst_trace(s, "n%d cookie %llu: retransmissions counted "
				  "afresh (PDC %u -> %u, %llu us since the "
				  "last)", i, (unsigned long long)t->cookie,
				  r->pdc, t->hdr.u.req.spdcid,
				  (unsigned long long)((s->now - r->last_ns) /
						       1000));
		r->count = 0;
		r->first_ns = s->now;
		r->pdc = t->hdr.u.req.spdcid;
	}
	r->count++;
	r->last_ns = s->now;
	if (!retx_rate(s, i, r, t->hdr.type, dead_ns(ns)))
		return;
	if (r->count <= bound || s->now - r->first_ns <= dead)
		return;
	dst_fail(s, "retx-bound", "n%d cookie %llu (PSN %u) retransmitted "
		 "%u times in %llu us, and its PDC has not failed (bound %u "
		 "times, %llu us)", i, (unsigned long long)t->cookie,
		 t->hdr.u.req.psn, r->count,
		 (unsigned long long)((s->now - r->first_ns) / 1000), bound,
		 (unsigned long long)(dead / 1000));
}

void
dst_node_poll(struct dst_sim *s, int i)
{
	struct dst_node *n = &s->node[i];
	struct uet_pds_tx tx[32];
	uint16_t k, j;

	if (n->stall_until > s->now || n->pds == NULL)
		return;
	uet_pds_advance(n->pds, s->now);
	dst_node_drain(s, i);
	uet_ses_progress(n->ses, s->now);
	do {
		k = uet_pds_tx_burst(n->pds, s->now, tx, 32);
		for (j = 0; j < k && !s->failed; j++) {
			if (tx[j].kind == UET_PDS_TX_RETX)
				retx_count(s, i, &tx[j]);
			dst_net_send(s, i, &tx[j]);
		}
	} while (k == 32 && !s->failed);
	dst_node_drain(s, i);
}

/* ---- adversary actions on a node ---- */

struct close_list {
	uint32_t h[128];
	uint32_t n;
	uint8_t role;
};

static int
collect(const struct uet_pds_pdc_info *pi, void *arg)
{
	struct close_list *l = arg;

	if (pi->role == l->role && l->n < 128)
		l->h[l->n++] = pi->handle;
	return 0;
}

void
dst_node_close_all(struct dst_sim *s, int i, int role)
{
	struct close_list l = { .n = 0, .role = (uint8_t)role };
	uint32_t k;

	uet_pds_pdc_foreach(s->node[i].pds, collect, &l);
	for (k = 0; k < l.n; k++)
		uet_pds_pdc_close(s->node[i].pds, l.h[k], s->now);
	dst_trace(s, "n%d closes %u %s PDCs", i, l.n,
		  role ? "target" : "initiator");
}

/* ---- state checks ---- */

bool
dst_node_idle(struct dst_sim *s, int i, char *why, size_t cap)
{
	struct dst_node *n = &s->node[i];
	struct uet_pds_pool_info pi;
	struct uet_ses_pool_info si;
	struct uet_pds_cc_stats cs;

	uet_pds_pool_info_get(n->pds, &pi);
	uet_ses_pool_info_get(n->ses, &si);
	uet_pds_cc_stats_get(n->pds, &cs);
	/* a message waiting for a target that restarted waits for good (no
	 * one tells its initiator, see dst_work_check_hang) */
	if (si.msgs_used >= dst_work_orphans(s, i))
		si.msgs_used -= dst_work_orphans(s, i);
	if (!(pi.pdc_used[0] | pi.pdc_used[1] | pi.tx_blk_used |
	      pi.rx_blk_used | pi.resp_used | pi.rudi_used | pi.events |
	      si.msgs_used | si.tgt_used | si.ret_used) && cs.ctx_used == 0)
		return true;
	if (why != NULL)
		snprintf(why, cap, "n%d: pdc %u/%u txblk %u rxblk %u resp %u "
			 "rudi %u events %u msgs %u tgt %u ret %u cc_ctx %llu",
			 i, pi.pdc_used[0], pi.pdc_used[1], pi.tx_blk_used,
			 pi.rx_blk_used, pi.resp_used, pi.rudi_used, pi.events,
			 si.msgs_used, si.tgt_used, si.ret_used,
			 (unsigned long long)cs.ctx_used);
	return false;
}

struct cc_walk {
	struct dst_sim *s;
	int node;
	uint32_t opened; /* PDCs this instance ever opened */
};

static int
cc_one(const struct uet_pds_pdc_info *pi, void *arg)
{
	struct cc_walk *w = arg;
	const struct dst_node *n = &w->s->node[w->node];
	const struct dst_node_spec *ns = &w->s->plan->node[w->node];
	struct uet_pds_cc_info ci;

	if (pi->tx_inflight > (uint32_t)ns->tx_window * DST_MTU) {
		dst_fail(w->s, "cc-inflight", "n%d pdc %u: %u bytes in flight "
			 "over a %u-packet window", w->node, pi->handle,
			 pi->tx_inflight, ns->tx_window);
		return 1;
	}
	if (w->s->plan->cc == 0 ||
	    uet_pds_cc_info_get(n->pds, pi->handle, &ci) != 0)
		return 0;
	/* rcvd_bytes travels in 256-byte units rounded up; a PDC releases
	 * at most its own share (pds_cc_cms.c), so inflight stays >= 0 in
	 * principle: the allowance of 255 bytes per PDC that ever used the
	 * context is slack, beyond it inflight went wrong */
	if (ci.inflight < -256 * (int32_t)w->opened ||
	    (w->s->plan->cc & 1 &&
				(ci.cwnd == 0 || ci.cwnd > ci.max_wnd))) {
		dst_fail(w->s, "cc-state", "n%d pdc %u: inflight %d cwnd %u "
			 "max_wnd %u", w->node, pi->handle, ci.inflight,
			 ci.cwnd, ci.max_wnd);
		return 1;
	}
	return 0;
}

void
dst_node_check_cc(struct dst_sim *s, int i)
{
	struct cc_walk w = { .s = s, .node = i };
	const struct uet_pds_stats *st;

	if (s->node[i].pds == NULL)
		return;
	st = uet_pds_stats_get(s->node[i].pds);
	w.opened = (uint32_t)(st->pdc_open_init + st->pdc_open_tgt);
	uet_pds_pdc_foreach(s->node[i].pds, cc_one, &w);
}
