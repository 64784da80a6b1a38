/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NSCC, the sender-window congestion control of UEC 1.0 section 3.6.13
 * (SMaRTT/STrack lineage), and its destination side (the ACK_CC cc_type 0
 * fields). Sans-I/O: time and events are arguments, the context is
 * caller-owned and may be shared by the PDCs to one destination.
 *
 * Integer arithmetic only; the units are listed in uet_cms_nscc.h.
 */

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <uet/uet_cms_nscc.h>
#include <uet/uet_wire.h>

/* Bounded per-context state (docs/CONGESTION.md). */
_Static_assert(sizeof(struct uet_nscc) == 88, "NSCC context is 88 bytes");
_Static_assert(sizeof(struct uet_nscc_rcv) == 8,
	       "NSCC destination state is 8 bytes");

/* Windows stay at most 2^30 so that signed inflight never overflows. */
#define NSCC_WND_LIMIT (1u << 30)
#define NSCC_MTU_MIN 64u
#define NSCC_MTU_MAX (65535u + UET_NSCC_NOMINAL_EXTRA)
#define NSCC_RTT_MIN_NS 100u
#define NSCC_RTT_MAX_NS 100000000u /* 100 ms */
#define NSCC_LINK_MAX_MBPS 3200000u /* 3.2 Tb/s */
#define NSCC_ACK_TRIGGER 16384u
#define NSCC_FI_THRESH_NS 1000u
#define NSCC_QA_GATE 3u
#define NSCC_GAMMA_MILLI 800u
#define NSCC_MD_JUMP_MILLI 500u
#define NSCC_U24_MASK 0xFFFFFFu

/* Bytes in flight for a window: 1.5 x rate x RTT (UEC 3.6.13 max_wnd). */
static uint64_t
nscc_wnd_for(uint32_t link_mbps, uint64_t rtt_ns)
{
	return (uint64_t)link_mbps * rtt_ns * 3 / 16000;
}

int
uet_nscc_params_default(struct uet_nscc_params *p, uint32_t link_mbps,
			uint32_t base_rtt_ns, uint32_t mtu, bool trimming)
{
	uint64_t bdp;

	if (p == NULL || link_mbps == 0 || link_mbps > NSCC_LINK_MAX_MBPS ||
	    base_rtt_ns < NSCC_RTT_MIN_NS || base_rtt_ns > NSCC_RTT_MAX_NS ||
	    mtu < NSCC_MTU_MIN || mtu > NSCC_MTU_MAX)
		return -EINVAL;
	bdp = (uint64_t)link_mbps * base_rtt_ns / 8000;
	if (bdp * 3 / 2 > NSCC_WND_LIMIT || bdp * 3 / 2 < mtu)
		return -EINVAL;
	memset(p, 0, sizeof(*p));
	p->link_mbps = link_mbps;
	p->base_rtt_ns = base_rtt_ns;
	p->mtu = mtu;
	p->trimming = trimming;
	/* 0.75 base RTT with trimming, 1.0 without. */
	p->target_qdelay_ns = trimming ?
		(uint32_t)((uint64_t)base_rtt_ns * 3 / 4) : base_rtt_ns;
	p->max_wnd = (uint32_t)(bdp * 3 / 2);
	p->gamma_milli = NSCC_GAMMA_MILLI;
	p->max_md_jump_milli = NSCC_MD_JUMP_MILLI;
	/* a = BDP / 150000 B; b = target / 12 us (UEC 1.0 section 3.6.13
	 * defaults). */
	p->fi_bytes = (uint32_t)(5 * (uint64_t)mtu * bdp /
				 UET_NSCC_SCALE_A_BDP);
	p->fi_scale_q16 = (uint32_t)((bdp << 16) / (4 * UET_NSCC_SCALE_A_BDP));
	p->fi_thresh_ns = NSCC_FI_THRESH_NS;
	p->eta_bytes = (uint32_t)(15 * (uint64_t)mtu * bdp /
				  (100 * UET_NSCC_SCALE_A_BDP));
	/* alpha = 4 a b MTU / target: target cancels out of a x b / target,
	 * leaving 4 BDP MTU / (150000 B x 12 us), in bytes per ns. */
	p->alpha_q16 = (uint32_t)((4 * bdp * mtu << 16) /
				  ((uint64_t)UET_NSCC_SCALE_A_BDP *
				   UET_NSCC_SCALE_B_NS));
	p->qa_gate = NSCC_QA_GATE;
	p->qa_threshold_ns = trimming ? 0 : 4 * p->target_qdelay_ns;
	p->adjust_bytes = 8 * mtu;
	p->adjust_period_ns = base_rtt_ns;
	p->ack_trigger = NSCC_ACK_TRIGGER;
	return 0;
}

static const char *
nscc_params_why(const struct uet_nscc_params *p)
{
	if (p->link_mbps == 0 || p->link_mbps > NSCC_LINK_MAX_MBPS)
		return "link_mbps (1..3200000)";
	if (p->base_rtt_ns < NSCC_RTT_MIN_NS ||
	    p->base_rtt_ns > NSCC_RTT_MAX_NS)
		return "base_rtt_ns (100..100000000)";
	if (p->mtu < NSCC_MTU_MIN || p->mtu > NSCC_MTU_MAX)
		return "mtu (64..65575)";
	if (p->max_wnd < p->mtu || p->max_wnd > NSCC_WND_LIMIT)
		return "max_wnd (mtu..2^30)";
	if (p->target_qdelay_ns == 0 || p->target_qdelay_ns > NSCC_RTT_MAX_NS)
		return "target_qdelay_ns (1..100000000)";
	if (p->gamma_milli == 0 || p->gamma_milli > 1000)
		return "gamma_milli (1..1000)";
	if (p->max_md_jump_milli == 0 || p->max_md_jump_milli > 1000)
		return "max_md_jump_milli (1..1000)";
	if (p->fi_bytes > p->max_wnd)
		return "fi_bytes (0..max_wnd)";
	if (p->fi_scale_q16 > (16u << 16))
		return "fi_scale_q16 (0..16 x 65536)";
	if (p->eta_bytes > p->max_wnd)
		return "eta_bytes (0..max_wnd)";
	if (p->alpha_q16 > (1024u << 16))
		return "alpha_q16 (0..1024 x 65536)";
	if (p->qa_gate > 31)
		return "qa_gate (0..31)";
	if (p->qa_threshold_ns > NSCC_RTT_MAX_NS)
		return "qa_threshold_ns (0..100000000)";
	if (p->adjust_bytes == 0 || p->adjust_bytes > p->max_wnd)
		return "adjust_bytes (1..max_wnd)";
	if (p->adjust_period_ns == 0 || p->adjust_period_ns > NSCC_RTT_MAX_NS)
		return "adjust_period_ns (1..100000000)";
	if (p->ack_trigger > p->max_wnd)
		return "ack_trigger (0..max_wnd)";
	if (nscc_wnd_for(p->link_mbps, p->base_rtt_ns) > NSCC_WND_LIMIT)
		return "link_mbps x base_rtt_ns (1.5 BDP at most 2^30)";
	return NULL;
}

int
uet_nscc_params_check(const struct uet_nscc_params *p, const char **why)
{
	const char *w = p == NULL ? "params" : nscc_params_why(p);

	if (why != NULL)
		*why = w;
	return w == NULL ? 0 : -EINVAL;
}

void
uet_nscc_init(struct uet_nscc *n, const struct uet_nscc_params *p)
{
	memset(n, 0, sizeof(*n));
	n->cwnd = p->max_wnd;
	n->max_wnd = p->max_wnd;
	n->base_rtt_ns = p->base_rtt_ns;
}

uint64_t
uet_nscc_rtt_sample(uint64_t tx_time, uint32_t tx_count, bool ack_retx,
		    uint16_t service_units, uint64_t now)
{
	uint64_t sent = tx_time +
		(uint64_t)service_units * UET_NSCC_SERVICE_UNIT_NS;

	/* UEC 3.6.13: only a packet sent once, or the ACK that echoes RETX
	 * for its one retransmission, says which copy it measures. */
	if (!((tx_count == 1 && !ack_retx) || (tx_count == 2 && ack_retx)))
		return 0;
	/* A saturated service time is not a time: 8.4 ms or more, or a
	 * receiver that does not know when the ACK_PSN packet arrived (the
	 * PSN an ACK_REQ named). */
	if (service_units == UINT16_MAX)
		return 0;
	/* A service time at least the measured time says nothing about the
	 * network (clocks of two ends, or a stale ACK_PSN): no sample, or it
	 * would pin base_rtt and max_wnd near zero for good. */
	if (now <= sent)
		return 0;
	return now - sent;
}

bool
uet_nscc_may_send(const struct uet_nscc *n, const struct uet_nscc_params *p)
{
	return (int64_t)n->inflight + p->mtu <= (int64_t)n->cwnd;
}

bool
uet_nscc_want_ar(const struct uet_nscc *n, const struct uet_nscc_params *p)
{
	return (int64_t)n->cwnd - n->inflight < (int64_t)p->mtu ||
	       n->cwnd < p->ack_trigger;
}

static uint32_t
nscc_add_sat(uint32_t a, uint32_t b)
{
	return a > UINT32_MAX - b ? UINT32_MAX : a + b;
}

static void
nscc_inflight_sub(struct uet_nscc *n, uint32_t bytes)
{
	int64_t v = (int64_t)n->inflight - bytes;

	n->inflight = v < INT32_MIN ? INT32_MIN : (int32_t)v;
}

void
uet_nscc_on_send(struct uet_nscc *n, uint32_t bytes)
{
	int64_t v = (int64_t)n->inflight + bytes;

	n->inflight = v > INT32_MAX ? INT32_MAX : (int32_t)v;
}

static void
nscc_feedback(struct uet_nscc *n, uint64_t now)
{
	if (!(n->flags & UET_NSCC_F_FEEDBACK)) {
		n->flags |= UET_NSCC_F_FEEDBACK;
		n->last_adjust = now; /* the first period starts now */
		if (!(n->flags & UET_NSCC_F_PROBED))
			n->flags |= UET_NSCC_F_PROBE_DUE;
	}
}

static void
nscc_set_base_rtt(struct uet_nscc *n, const struct uet_nscc_params *p,
		  uint32_t rtt)
{
	uint64_t w = nscc_wnd_for(p->link_mbps, rtt);

	n->base_rtt_ns = rtt;
	n->max_wnd = w < p->mtu ? p->mtu : (uint32_t)w;
	if (n->cwnd > n->max_wnd)
		n->cwnd = n->max_wnd;
}

/* update_base_rtt (UEC 1.0 section 3.6.13.6): only a smaller sample. */
static void
nscc_update_base_rtt(struct uet_nscc *n, const struct uet_nscc_params *p,
		     uint64_t rtt)
{
	uint32_t r = rtt > NSCC_RTT_MAX_NS ? NSCC_RTT_MAX_NS : (uint32_t)rtt;

	if (r < n->base_rtt_ns)
		nscc_set_base_rtt(n, p, r);
}

/* update_delay: the average of the queueing delay (gain 1/80; the
 * specification leaves the average to the implementation). */
static void
nscc_update_delay(struct uet_nscc *n, uint32_t delay)
{
	int64_t diff = ((int64_t)delay << 8) - (int64_t)n->avg_delay_q8;

	n->avg_delay_q8 = (uint64_t)((int64_t)n->avg_delay_q8 +
				     diff / UET_NSCC_EWMA_DIV);
}

/* apply_cwnd_penalty (UEC 1.0 section 3.6.13.6, destination flow
 * control); returns rcv_limit_mode, i.e. Rcv_Cwnd_Pend > 0. */
static bool
nscc_penalty(struct uet_nscc *n, const struct uet_nscc_params *p,
	     const struct uet_nscc_ack *a, enum uet_nscc_action *act)
{
	uint32_t cap, dec;

	if (a->rcv_cwnd_pend > 0) {
		if (n->saved_cwnd == 0)
			n->saved_cwnd = n->cwnd;
		n->flags |= UET_NSCC_F_RCV_LIMIT;
		dec = (uint32_t)(((uint64_t)a->rcv_cwnd_pend * a->bytes) >> 7);
		cap = n->inflight > 0 ? (uint32_t)n->inflight : 0;
		if (n->cwnd > cap)
			n->cwnd = cap;
		n->cwnd = n->cwnd > (uint64_t)dec + p->mtu ? n->cwnd - dec :
			p->mtu;
		*act = UET_NSCC_PENALTY;
		return true;
	}
	if (a->restore && n->saved_cwnd > 0) {
		/* max_wnd may have dropped since (a smaller base_rtt):
		 * cwnd never exceeds it (UEC 1.0 section 3.6.13) */
		n->cwnd = n->saved_cwnd < n->max_wnd ? n->saved_cwnd :
						       n->max_wnd;
		n->saved_cwnd = 0;
		n->flags &= ~UET_NSCC_F_RCV_LIMIT;
		*act = UET_NSCC_RESTORED;
	}
	return false;
}

/*
 * quick_adapt (UEC 1.0 section 3.6.13.6). While the bytes in flight at
 * the last quick adapt are acknowledged, ECN-marked feedback (@p marked)
 * is ignored; otherwise once per base_rtt + target_qdelay, after a trim
 * (trigger_qa), a loss or a delay of this sample above qa_threshold, with
 * fewer than max_wnd >> qa_gate bytes achieved in the interval, cwnd
 * drops to what was achieved. Ignoring or adapting resets the pending
 * increase. Returns true when the caller must stop.
 */
static bool
nscc_quick_adapt(struct uet_nscc *n, const struct uet_nscc_params *p,
		 bool loss, bool marked, uint32_t delay, uint64_t now,
		 enum uet_nscc_action *act)
{
	bool done = false;

	if (n->bytes_ignored < n->bytes_to_ignore && marked) {
		done = true;
		*act = UET_NSCC_IGNORED;
	} else if (now >= n->qa_end) {
		if (n->qa_end != 0 &&
		    ((n->flags & UET_NSCC_F_QA_TRIGGER) || loss ||
		     (p->qa_threshold_ns > 0 && delay > p->qa_threshold_ns)) &&
		    n->achieved_bytes < (n->max_wnd >> p->qa_gate)) {
			n->cwnd = n->achieved_bytes > p->mtu ?
				n->achieved_bytes : p->mtu;
			n->bytes_to_ignore = n->inflight > 0 ?
				(uint32_t)n->inflight : 0;
			n->bytes_ignored = 0;
			n->flags &= ~UET_NSCC_F_QA_TRIGGER;
			done = true;
			*act = UET_NSCC_QUICK_ADAPT;
		}
		n->achieved_bytes = 0;
		n->qa_end = now + n->base_rtt_ns + p->target_qdelay_ns;
	}
	if (done) {
		n->inc_bytes = 0;
		n->received_bytes = 0;
	}
	return done;
}

/* fast_increase: after a window's worth of bytes acknowledged with (almost)
 * no delay, grow by fi_scale per acknowledged byte until a delay shows. */
static bool
nscc_fast(struct uet_nscc *n, const struct uet_nscc_params *p, uint32_t b,
	  uint32_t delay)
{
	uint64_t w;

	if (delay < p->fi_thresh_ns) {
		n->fi_count = nscc_add_sat(n->fi_count, b);
		if (n->fi_count > n->cwnd || (n->flags & UET_NSCC_F_FAST)) {
			w = n->cwnd + (((uint64_t)b * p->fi_scale_q16) >> 16);
			n->cwnd = w > n->max_wnd ? n->max_wnd : (uint32_t)w;
			n->flags |= UET_NSCC_F_FAST;
			return true;
		}
	} else {
		n->fi_count = 0;
	}
	n->flags &= ~UET_NSCC_F_FAST;
	return false;
}

/* inc_bytes saturates rather than wraps (huge ACKs, extreme gains). */
static void
nscc_inc(struct uet_nscc *n, uint64_t v)
{
	n->inc_bytes = n->inc_bytes > UINT64_MAX - v ? UINT64_MAX :
		n->inc_bytes + v;
}

/* alpha x b x (target - delay), alpha in 1/65536 bytes per ns; exact
 * floor without a 128-bit product, saturated. */
static uint64_t
nscc_proportional(const struct uet_nscc_params *p, uint32_t b, uint32_t room)
{
	uint64_t t = (uint64_t)p->alpha_q16 * room;
	uint64_t hi = t >> 16, lo = ((t & 0xFFFF) * b) >> 16;

	if (b != 0 && hi > (UINT64_MAX - lo) / b)
		return UINT64_MAX;
	return hi * b + lo;
}

/* multiplicative_decrease: stops fast increase; then, at most once per
 * base_rtt, cwnd *= max(1 - gamma (avg - target) / avg, max_md_jump). */
static enum uet_nscc_action
nscc_md(struct uet_nscc *n, const struct uet_nscc_params *p, uint64_t now)
{
	uint64_t target = (uint64_t)p->target_qdelay_ns << 8;
	uint64_t avg = n->avg_delay_q8;
	uint64_t factor, w;

	n->flags &= ~UET_NSCC_F_FAST;
	n->fi_count = 0;
	if (avg <= target)
		return UET_NSCC_NONE;
	if ((n->flags & UET_NSCC_F_MD_DONE) &&
	    now - n->last_md <= n->base_rtt_ns)
		return UET_NSCC_MD_HELD;
	factor = 1000 - p->gamma_milli * (avg - target) / avg;
	if (factor < p->max_md_jump_milli)
		factor = p->max_md_jump_milli;
	w = (uint64_t)n->cwnd * factor / 1000;
	n->cwnd = w < p->mtu ? p->mtu : (uint32_t)w;
	n->last_md = now;
	n->flags |= UET_NSCC_F_MD_DONE;
	return UET_NSCC_MD;
}

/* The four cells of UEC 1.0 section 3.6.13 (ECN x delay against
 * target_qdelay); the increases wait while the destination limits. */
static enum uet_nscc_action
nscc_matrix(struct uet_nscc *n, const struct uet_nscc_params *p, bool ecn,
	    uint32_t delay, uint32_t b, bool rcv_limit, uint64_t now)
{
	if (ecn)
		return delay >= p->target_qdelay_ns ? nscc_md(n, p, now) :
			UET_NSCC_NONE;
	if (rcv_limit)
		return UET_NSCC_NONE;
	if (delay >= p->target_qdelay_ns) {
		nscc_inc(n, (uint64_t)p->fi_bytes * b);
		return UET_NSCC_FAIR;
	}
	if (nscc_fast(n, p, b, delay))
		return UET_NSCC_FAST;
	nscc_inc(n, nscc_proportional(p, b, p->target_qdelay_ns - delay));
	return UET_NSCC_PROPORTIONAL;
}

/* fulfill_adjustment, due after adjust_period or more than adjust_bytes
 * received: apply inc_bytes / cwnd, and eta once per period. */
static void
nscc_adjust(struct uet_nscc *n, const struct uet_nscc_params *p, uint64_t now)
{
	bool period = now - n->last_adjust >= p->adjust_period_ns;
	uint64_t w = n->cwnd;

	if (!period && n->received_bytes <= p->adjust_bytes)
		return;
	w += n->inc_bytes / (n->cwnd > 0 ? n->cwnd : 1);
	if (period) {
		w += p->eta_bytes;
		n->last_adjust = now;
	}
	n->cwnd = w > n->max_wnd ? n->max_wnd : (uint32_t)w;
	n->inc_bytes = 0;
	n->received_bytes = 0;
}

/* NSCC.OnACK of UEC 1.0 section 3.6.13.5, step by step. */
enum uet_nscc_action
uet_nscc_on_ack(struct uet_nscc *n, const struct uet_nscc_params *p,
		const struct uet_nscc_ack *a, uint64_t now)
{
	enum uet_nscc_action act = UET_NSCC_NONE, m;
	uint32_t b = a->bytes, delay;
	bool rcv_limit;

	nscc_feedback(n, now);
	nscc_inflight_sub(n, b);
	n->bytes_ignored = nscc_add_sat(n->bytes_ignored, b);
	n->received_bytes = nscc_add_sat(n->received_bytes, b);
	n->achieved_bytes = nscc_add_sat(n->achieved_bytes, b);
	rcv_limit = nscc_penalty(n, p, a, &act);
	if (a->rtt_ns == 0)
		return act;
	nscc_update_base_rtt(n, p, a->rtt_ns);
	delay = a->rtt_ns > NSCC_RTT_MAX_NS ? NSCC_RTT_MAX_NS - n->base_rtt_ns :
		(uint32_t)a->rtt_ns - n->base_rtt_ns;
	nscc_update_delay(n, delay);
	if (nscc_quick_adapt(n, p, false, a->ecn, delay, now, &act))
		return act;
	m = nscc_matrix(n, p, a->ecn, delay, b, rcv_limit, now);
	nscc_adjust(n, p, now);
	/* Report the penalty or the restore over the matrix's cell. */
	return act != UET_NSCC_NONE ? act : m;
}

/* The trim half of NSCC.OnNACK (UEC 1.0 section 3.6.13.5); the RTT half
 * is uet_nscc_on_nack_rtt(). */
enum uet_nscc_action
uet_nscc_on_trim(struct uet_nscc *n, const struct uet_nscc_params *p,
		 uint32_t bytes, bool lasthop, uint64_t now)
{
	enum uet_nscc_action act = UET_NSCC_NONE;

	nscc_feedback(n, now);
	nscc_inflight_sub(n, bytes);
	/* A trimmed packet met a queue at the trim threshold: about
	 * config_base_rtt of queueing. */
	nscc_update_delay(n, p->base_rtt_ns);
	n->bytes_ignored = nscc_add_sat(n->bytes_ignored, bytes);
	/* With RCCC the last hop is the receiver's to pace (UEC 3.6.14). */
	if (lasthop && p->rccc)
		return UET_NSCC_NONE;
	n->flags |= UET_NSCC_F_QA_TRIGGER;
	/* is_loss ignores the delay (0); a trim counts as ECN-marked. */
	if (nscc_quick_adapt(n, p, true, true, 0, now, &act))
		return act;
	n->cwnd = n->cwnd > (uint64_t)bytes + p->mtu ? n->cwnd - bytes :
		p->mtu;
	return UET_NSCC_DECREASE;
}

void
uet_nscc_on_nack(struct uet_nscc *n, uint32_t bytes, uint64_t now)
{
	nscc_feedback(n, now);
	nscc_inflight_sub(n, bytes);
}

void
uet_nscc_on_nack_rtt(struct uet_nscc *n, const struct uet_nscc_params *p,
		     uint64_t rtt_ns)
{
	if (rtt_ns != 0)
		nscc_update_base_rtt(n, p, rtt_ns);
}

/* NSCC.OnInferredLoss: a packet's worth off cwnd, nothing else. */
enum uet_nscc_action
uet_nscc_on_loss(struct uet_nscc *n, const struct uet_nscc_params *p,
		 uint32_t bytes, uint64_t now)
{
	nscc_feedback(n, now);
	n->cwnd = n->cwnd > (uint64_t)bytes + p->mtu ? n->cwnd - bytes :
		p->mtu;
	n->bytes_ignored = nscc_add_sat(n->bytes_ignored, bytes);
	nscc_inflight_sub(n, bytes);
	return UET_NSCC_DECREASE;
}

bool
uet_nscc_probe_due(const struct uet_nscc *n)
{
	return (n->flags & (UET_NSCC_F_PROBE_DUE | UET_NSCC_F_PROBED)) ==
	       UET_NSCC_F_PROBE_DUE;
}

void
uet_nscc_probe_sent(struct uet_nscc *n)
{
	n->flags = (n->flags & ~UET_NSCC_F_PROBE_DUE) | UET_NSCC_F_PROBED;
}

void
uet_nscc_on_probe_ack(struct uet_nscc *n, const struct uet_nscc_params *p,
		      uint64_t rtt_ns)
{
	if (rtt_ns == 0)
		return;
	/* update_base_rtt (UEC 1.0 section 3.6.13.7): the PROBE's sample
	 * may only lower base_rtt, like any other. */
	nscc_update_base_rtt(n, p, rtt_ns);
	n->flags |= UET_NSCC_F_PROBE_RTT;
}

uint32_t
uet_nscc_rcvd_delta(struct uet_nscc_rcvd *r, uint32_t units)
{
	uint32_t d = (units - r->last) & NSCC_U24_MASK;

	/* Half the 24-bit space backwards is an older, reordered ACK. */
	if (d >= (1u << 23))
		return 0;
	r->last = units & NSCC_U24_MASK;
	return d << 8;
}

/* ---- Destination side (UEC 3.6.13, ACK_CC cc_type 0) ---- */

void
uet_nscc_rcv_init(struct uet_nscc_rcv *r)
{
	memset(r, 0, sizeof(*r));
}

void
uet_nscc_rcv_on_data(struct uet_nscc_rcv *r, uint32_t udp_len, bool trimmed,
		     bool duplicate)
{
	/* A trimmed packet is NACKed and a duplicate was counted already:
	 * only new payload cancels the sender's inflight. */
	if (trimmed || duplicate)
		return;
	r->rcvd_bytes += uet_nscc_nominal(udp_len);
}

int
uet_nscc_rcv_overload(struct uet_nscc_rcv *r, uint32_t pend)
{
	if (pend > UET_NSCC_PEND_MAX)
		return -EINVAL;
	if (pend == 0 && r->pend > 0)
		r->restore = 1;
	else if (pend > 0)
		r->restore = 0; /* a new penalty supersedes an unsent rc */
	r->pend = (uint8_t)pend;
	return 0;
}

void
uet_nscc_rcv_fill(struct uet_nscc_rcv *r, uint64_t service_ns,
		  struct uet_wire_pds_nscc_state *st)
{
	uint64_t units = service_ns / UET_NSCC_SERVICE_UNIT_NS;

	st->service_time = units > UINT16_MAX ? UINT16_MAX : (uint16_t)units;
	st->rc = r->restore != 0;
	st->rcv_cwnd_pend = r->pend;
	/* Rounded up, so the sender never keeps bytes that arrived; the
	 * 24-bit counter wraps and the sender takes differences. */
	st->rcvd_bytes = (uint32_t)(((uint64_t)r->rcvd_bytes + 255) >> 8) &
		NSCC_U24_MASK;
	r->restore = 0;
}
