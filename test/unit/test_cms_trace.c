/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Trace tests: one long, deterministic sequence of sends, ACKs, trims,
 * NACKs, inferred losses and receiver penalties through src/cms (NSCC;
 * RCCC's source credit and pull pacer) and through a second rendering of
 * the same rules
 * written here from the specification's pseudocode, line by line (UEC 1.0
 * section 3.6.13.5-3.6.13.6 NSCC; RCCC's source as htsim's uec.cpp
 * computePullTarget()/handlePull(), the specification leaving it open).
 * Window, inflight, base RTT and credit must agree after every event.
 *
 * The reference uses the same fixed-point units as the library (the
 * pseudocode's floats are implementation-defined, table 3-76 note), and
 * the same choices where the pseudocode leaves one: update_delay() is an
 * average of gain 1/80; last_adjust_time starts at the first feedback;
 * the first multiplicative decrease is not held.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <uet/uet_cms_nscc.h>
#include <uet/uet_cms_rccc.h>
#include <uet/uet_rand.h>

/* ---- the reference, from the pseudocode ---- */

struct ref {
	int64_t cwnd, inflight, saved_cwnd, base_rtt, max_wnd;
	int64_t achieved_bytes, received_bytes, fi_count;
	int64_t bytes_to_ignore, bytes_ignored, avg_q8;
	uint64_t inc_bytes, qa_endtime, last_adjust_time, last_dec_time;
	bool trigger_qa, increase, dec_done, started;
};

static const struct uet_nscc_params *P;

static void
ref_init(struct ref *r)
{
	memset(r, 0, sizeof(*r));
	r->cwnd = P->max_wnd;
	r->max_wnd = P->max_wnd;
	r->base_rtt = P->base_rtt_ns;
}

static void
ref_start(struct ref *r, uint64_t now)
{
	if (!r->started)
		r->last_adjust_time = now;
	r->started = true;
}

static void
update_base_rtt(struct ref *r, int64_t raw_rtt)
{
	if (r->base_rtt > raw_rtt) {
		r->base_rtt = raw_rtt;
		/* 1.5 x linkspeed x base_rtt */
		r->max_wnd = (int64_t)P->link_mbps * raw_rtt * 3 / 16000;
		if (r->max_wnd < P->mtu)
			r->max_wnd = P->mtu;
		if (r->cwnd > r->max_wnd)
			r->cwnd = r->max_wnd;
	}
}

static void
update_delay(struct ref *r, int64_t delay)
{
	r->avg_q8 += ((delay << 8) - r->avg_q8) / UET_NSCC_EWMA_DIV;
}

static bool
apply_cwnd_penalty(struct ref *r, int pend, bool restore, int64_t b)
{
	int64_t window_decrease;

	if (pend > 0) {
		if (r->saved_cwnd == 0)
			r->saved_cwnd = r->cwnd;
		window_decrease = (pend * b) >> 7;
		r->cwnd = r->cwnd < r->inflight ? r->cwnd : r->inflight;
		r->cwnd = r->cwnd - window_decrease > P->mtu ?
			r->cwnd - window_decrease : P->mtu;
	} else if (restore && r->saved_cwnd > 0) {
		r->cwnd = r->saved_cwnd;
		r->saved_cwnd = 0;
	}
	return pend > 0;
}

static bool
quick_adapt(struct ref *r, bool is_loss, bool m_flag, int64_t qdelay,
	    uint64_t now)
{
	bool qa_done_or_ignore = false;

	if (r->bytes_ignored < r->bytes_to_ignore && m_flag) {
		qa_done_or_ignore = true;
	} else if (now >= r->qa_endtime) {
		if (r->qa_endtime != 0 &&
		    (r->trigger_qa || is_loss ||
		     (P->qa_threshold_ns && qdelay > P->qa_threshold_ns)) &&
		    r->achieved_bytes < (r->max_wnd >> P->qa_gate)) {
			r->cwnd = r->achieved_bytes > P->mtu ?
				r->achieved_bytes : P->mtu;
			r->bytes_to_ignore = r->inflight;
			r->bytes_ignored = 0;
			r->trigger_qa = false;
			qa_done_or_ignore = true;
		}
		r->achieved_bytes = 0;
		r->qa_endtime = now + (uint64_t)r->base_rtt +
				P->target_qdelay_ns;
	}
	if (qa_done_or_ignore) {
		r->inc_bytes = 0;
		r->received_bytes = 0;
	}
	return qa_done_or_ignore;
}

static void
fast_increase(struct ref *r, int64_t b, int64_t delay)
{
	if (delay < P->fi_thresh_ns) {
		r->fi_count += b;
		if (r->fi_count > r->cwnd || r->increase) {
			r->cwnd += (b * P->fi_scale_q16) >> 16;
			if (r->cwnd > r->max_wnd)
				r->cwnd = r->max_wnd;
			r->increase = true;
			return;
		}
	} else {
		r->fi_count = 0;
	}
	r->increase = false;
}

static void
proportional_increase(struct ref *r, int64_t b, int64_t delay)
{
	fast_increase(r, b, delay);
	if (r->increase)
		return;
	r->inc_bytes += (uint64_t)(((__int128)P->alpha_q16 * b *
				    (P->target_qdelay_ns - delay)) >> 16);
}

static void
multiplicative_decrease(struct ref *r, uint64_t now)
{
	int64_t target = (int64_t)P->target_qdelay_ns << 8, f;

	r->increase = false;
	r->fi_count = 0;
	if (r->avg_q8 > target &&
	    (!r->dec_done || now - r->last_dec_time > (uint64_t)r->base_rtt)) {
		f = 1000 - (int64_t)P->gamma_milli * (r->avg_q8 - target) /
			r->avg_q8;
		f = f > P->max_md_jump_milli ? f : P->max_md_jump_milli;
		r->cwnd = r->cwnd * f / 1000;
		r->cwnd = r->cwnd > P->mtu ? r->cwnd : P->mtu;
		r->last_dec_time = now;
		r->dec_done = true;
	}
}

static void
fulfill_adjustment(struct ref *r, uint64_t now)
{
	r->cwnd += (int64_t)(r->inc_bytes / (uint64_t)r->cwnd);
	if (now - r->last_adjust_time >= P->adjust_period_ns) {
		r->last_adjust_time = now;
		r->cwnd += P->eta_bytes;
	}
	if (r->cwnd > r->max_wnd)
		r->cwnd = r->max_wnd;
	r->inc_bytes = 0;
	r->received_bytes = 0;
}

static void
ref_on_ack(struct ref *r, int64_t b, int64_t rtt_sample, bool m_flag,
	   int pend, bool restore, uint64_t now)
{
	bool rcv_limit_mode;
	int64_t delay;

	ref_start(r, now);
	r->inflight -= b;
	r->bytes_ignored += b;
	r->received_bytes += b;
	r->achieved_bytes += b;
	rcv_limit_mode = apply_cwnd_penalty(r, pend, restore, b);
	if (rtt_sample == 0) /* INVALID_RTT */
		return;
	update_base_rtt(r, rtt_sample);
	delay = rtt_sample - r->base_rtt;
	update_delay(r, delay);
	if (quick_adapt(r, false, m_flag, delay, now))
		return;
	if (!m_flag && delay >= P->target_qdelay_ns && !rcv_limit_mode)
		r->inc_bytes += (uint64_t)P->fi_bytes * (uint64_t)b;
	else if (!m_flag && delay < P->target_qdelay_ns && !rcv_limit_mode)
		proportional_increase(r, b, delay);
	else if (m_flag && delay >= P->target_qdelay_ns)
		multiplicative_decrease(r, now);
	if (now - r->last_adjust_time >= P->adjust_period_ns ||
	    r->received_bytes > P->adjust_bytes)
		fulfill_adjustment(r, now);
}

static void
ref_on_inferred_loss(struct ref *r, int64_t size, uint64_t now)
{
	ref_start(r, now);
	r->cwnd = r->cwnd - size > P->mtu ? r->cwnd - size : P->mtu;
	r->bytes_ignored += size;
	r->inflight -= size;
}

/* NSCC.OnNACK; lasthop: UET_TRIMMED_LASTHOP, trim: either trim code. */
static void
ref_on_nack(struct ref *r, int64_t size, int64_t rtt_sample, bool trim,
	    bool lasthop, uint64_t now)
{
	bool adjust_cwnd = false;

	ref_start(r, now);
	r->inflight -= size;
	if (rtt_sample != 0)
		update_base_rtt(r, rtt_sample);
	if (trim) {
		update_delay(r, P->base_rtt_ns);
		r->bytes_ignored += size;
	}
	if (trim && (!lasthop || !P->rccc)) {
		adjust_cwnd = true;
		r->trigger_qa = true;
		if (quick_adapt(r, true, true, 0, now))
			adjust_cwnd = false;
	}
	if (adjust_cwnd)
		r->cwnd = r->cwnd - size > P->mtu ? r->cwnd - size : P->mtu;
}

/* ---- the trace ---- */

static uint64_t
rnd(struct uet_rand *s)
{
	return uet_rand_next(s);
}

static struct uet_nscc_params
trace_params(bool rccc)
{
	struct uet_nscc_params p;

	/* 100 Gb/s, 12 us, a 4 KiB MTU, trimming: the UEC defaults, with
	 * qa_threshold on so that the delay path of quick adapt runs too. */
	assert_int_equal(uet_nscc_params_default(&p, 100000, 12000, 4156,
						 true), 0);
	p.qa_threshold_ns = 4 * p.target_qdelay_ns;
	p.rccc = rccc;
	return p;
}

static void
check(const struct uet_nscc *n, const struct ref *r, int step)
{
	if (n->cwnd != r->cwnd || n->inflight != r->inflight ||
	    n->base_rtt_ns != r->base_rtt || n->max_wnd != r->max_wnd ||
	    n->inc_bytes != r->inc_bytes ||
	    n->avg_delay_q8 != (uint64_t)r->avg_q8)
		fail_msg("step %d: cwnd %u/%lld inflight %d/%lld base %u/%lld",
			 step, n->cwnd, (long long)r->cwnd, n->inflight,
			 (long long)r->inflight, n->base_rtt_ns,
			 (long long)r->base_rtt);
}

/* Library outcomes seen in a trace (enum uet_nscc_action). */
static unsigned int acts[UET_NSCC_DECREASE + 1];
/* An uncongested stretch: delays under 1 us, no marks (fast increase). */
static bool calm;
/* Unmarked ACKs with a sample while bytes are ignored (they count). */
static unsigned int unmarked_in_ignore;

/* One event of the trace on both; returns a code of what it was. */
static int
trace_step(struct uet_nscc *n, struct ref *r, struct uet_rand *s,
	   uint64_t now)
{
	const struct uet_nscc_params *p = P;
	uint64_t x = rnd(s);
	uint32_t mtu = p->mtu, b;
	uint64_t rtt;
	int kind = (int)(x % 100);

	if ((kind < 40 || n->inflight < (int32_t)mtu) &&
	    uet_nscc_may_send(n, p)) {
		uet_nscc_on_send(n, mtu);
		r->inflight += mtu;
		return 0;
	}
	/* Feedback for bytes in flight, mostly (rounding and reordering
	 * let inflight dip below zero now and then). */
	b = (uint32_t)(1 + (x >> 8) % 3) * mtu;
	if (n->inflight > 0 && b > (uint32_t)n->inflight + mtu)
		b = (uint32_t)n->inflight;
	if (kind < 85) {
		struct uet_nscc_ack a = { .bytes = b };
		uint64_t q = (x >> 16) % (4 * (uint64_t)p->target_qdelay_ns);

		/* RTT from 0.8 base up: a few samples lower base_rtt. */
		rtt = (x >> 40) % 50 == 0 ? 0 :
			p->base_rtt_ns * 8 / 10 + (x >> 32) % 4000 + q;
		if (calm && rtt != 0)
			rtt = n->base_rtt_ns + (x >> 32) % 800;
		a.rtt_ns = rtt;
		a.ecn = !calm && q > p->target_qdelay_ns / 2 &&
			(x >> 24) % 3 != 0;
		a.rcv_cwnd_pend = (x >> 48) % 40 == 0 ? (uint8_t)(x >> 50) % 128
				  : 0;
		a.restore = (x >> 56) % 8 == 0;
		if (!a.ecn && rtt != 0 && n->bytes_ignored + b <
		    n->bytes_to_ignore)
			unmarked_in_ignore++;
		acts[uet_nscc_on_ack(n, p, &a, now)]++;
		ref_on_ack(r, b, (int64_t)rtt, a.ecn, a.rcv_cwnd_pend,
			   a.restore, now);
		return 1;
	}
	if (kind < 93) {
		bool lasthop = (x >> 20) & 1;

		rtt = (x >> 24) % 2 ? p->base_rtt_ns / 2 + (x >> 32) % 9000 :
			0;
		uet_nscc_on_nack_rtt(n, p, rtt);
		acts[uet_nscc_on_trim(n, p, mtu, lasthop, now)]++;
		ref_on_nack(r, mtu, (int64_t)rtt, true, lasthop, now);
		return 2;
	}
	if (kind < 96) {
		uet_nscc_on_nack(n, mtu, now);
		ref_on_nack(r, mtu, 0, false, false, now);
		return 3;
	}
	uet_nscc_on_loss(n, p, mtu, now);
	ref_on_inferred_loss(r, mtu, now);
	return 4;
}

static void
nscc_trace(bool rccc, uint64_t seed)
{
	struct uet_nscc_params p = trace_params(rccc);
	struct uet_nscc n;
	struct ref r;
	uint64_t now = 1000;
	struct uet_rand s;
	int i, seen[5] = { 0 };

	uet_rand_seed(&s, seed);
	P = &p;
	memset(acts, 0, sizeof(acts));
	unmarked_in_ignore = 0;
	uet_nscc_init(&n, &p);
	ref_init(&r);
	check(&n, &r, -1);
	for (i = 0; i < 20000; i++) {
		/* Busy stretches and quiet ones, so that quick adapt both
		 * fires and is held back by the bytes achieved. */
		now += 500 + rnd(&s) % (i % 2000 < 1000 ? 3000 : 9000);
		calm = i % 5000 >= 4000;
		seen[trace_step(&n, &r, &s, now)]++;
		check(&n, &r, i);
	}
	/* Every kind of event happened, many times. */
	for (i = 0; i < 5; i++)
		assert_true(seen[i] > 100);
	assert_true(acts[UET_NSCC_QUICK_ADAPT] > 10);
	assert_true(acts[UET_NSCC_IGNORED] > 10);
	assert_true(acts[UET_NSCC_MD] > 10);
	assert_true(acts[UET_NSCC_FAST] > 10);
	assert_true(acts[UET_NSCC_PENALTY] > 10);
	assert_true(unmarked_in_ignore > 10);
}

static void
uet_nscc__trace_matches_the_pseudocode(void **state)
{
	(void)state;
	nscc_trace(false, 0x9E3779B97F4A7C15ull);
	nscc_trace(false, 12345);
}

static void
uet_nscc__trace_matches_the_pseudocode_with_rccc(void **state)
{
	(void)state;
	nscc_trace(true, 0xC0FFEEull);
}

/* ---- RCCC: the source's credit and the pacer's grants, against htsim's
 * UecSrc::computePullTarget() / handlePull() / stopSpeculating() and
 * UecSink::handlePullTarget() / pull(), written here from them ---- */

struct rref {
	int64_t credit, pull;        /* source */
	bool speculating;
	int64_t highest_pt, latest;  /* sink */
};

static int64_t
rref_target(const struct rref *r, int64_t backlog, int64_t rtx, int64_t cwnd,
	    int64_t mtu, int64_t maxwnd, int64_t active)
{
	int64_t pt = backlog + rtx;

	if (pt > cwnd + mtu)
		pt = cwnd + mtu;
	if (pt > maxwnd)
		pt = maxwnd;
	pt -= r->credit;
	if (r->speculating && pt < mtu && backlog > 0)
		pt = mtu;
	if (active > 1)
		pt /= active;
	pt += r->pull;
	return (pt + 255) / 256 * 256; /* quantize_ceil */
}

static void
rref_stop_speculating(struct rref *r)
{
	if (r->speculating) {
		r->speculating = false;
		if (r->credit > 0)
			r->credit = 0;
	}
}

static void
rref_handle_pull(struct rref *r, int64_t pullno, int64_t maxwnd)
{
	rref_stop_speculating(r);
	if (pullno > r->pull) {
		r->credit += pullno - r->pull;
		if (r->credit > maxwnd)
			r->credit = maxwnd;
		r->pull = pullno;
	}
}

/* The sink's next grant of at most @p quantum, or 0. */
static int64_t
rref_sink_pull(struct rref *r, int64_t quantum)
{
	int64_t prev = r->latest;

	r->latest += quantum;
	if (r->latest > r->highest_pt)
		r->latest = r->highest_pt > prev ? r->highest_pt : prev;
	return r->latest - prev;
}

static void
uet_rccc__trace_matches_htsim_pull_rules(void **state)
{
	const uint32_t mtu = 4352, maxwnd = 262500, quantum = 4352;
	struct uet_rccc_pacer_config pcfg;
	struct uet_rccc_slot slot;
	struct uet_rccc_pacer pc;
	struct uet_rccc_src src;
	struct rref r = { .credit = maxwnd, .speculating = true };
	uint64_t now = 0, x;
	struct uet_rand s;
	uint32_t idx, bytes, t, granted = 0, k, grants = 0, sends = 0;
	int64_t rt, backlog = 2000000;
	int i;

	(void)state;
	uet_rand_seed(&s, 0xABCDEFull);
	assert_int_equal(uet_rccc_pacer_config_default(&pcfg, 100000, mtu,
						       0), 0);
	pcfg.quantum = quantum;
	assert_int_equal(uet_rccc_pacer_init(&pc, &pcfg, &slot, 1, NULL), 0);
	uet_rccc_src_init(&src, maxwnd);
	for (i = 0; i < 20000; i++) {
		x = rnd(&s);
		now += 50 + x % 400;
		/* Every event the source states its target (a request, or a
		 * CREDIT_REQ CP when it cannot send). */
		k = (uint32_t)(1 + (x >> 24) % 4);
		t = uet_rccc_src_credit_target(&src, (uint64_t)backlog, 0,
					       maxwnd, mtu, maxwnd, k);
		rt = rref_target(&r, backlog, 0, maxwnd, mtu, maxwnd, k);
		if (rt > r.pull) {
			assert_int_equal(t, (uint32_t)rt);
			uet_rccc_pacer_request(&pc, 0, t);
			if (rt > r.highest_pt)
				r.highest_pt = rt;
		} else {
			assert_int_equal(t, 0);
		}
		switch ((x >> 16) % 4) {
		case 0: /* send while any credit is left, as the
			 * reference (htsim's can_send_RCCC(): credit > 0);
			 * the packet asks. Now and then one goes without,
			 * as a PDC not established yet resends
			 * (pds_initiator_gate): a debt, as htsim's signed
			 * credit. */
			assert_int_equal(uet_rccc_src_may_send(&src, mtu),
					 r.credit > 0);
			if (r.credit <= 0 && (x >> 40) % 4 != 0)
				break;
			uet_rccc_src_on_send(&src, mtu);
			r.credit -= mtu;
			sends++;
			backlog = backlog > mtu ? backlog - mtu : 2000000;
			break;
		case 1: /* an ACK */
			uet_rccc_src_stop_speculating(&src);
			rref_stop_speculating(&r);
			break;
		default: /* the pacer's next grant, carried (or lost) */
			if (uet_rccc_pacer_poll(&pc, now, &idx, &bytes) != 1)
				break;
			assert_int_equal(bytes, rref_sink_pull(&r, quantum));
			granted += bytes;
			grants++;
			if ((x >> 32) % 10 == 0)
				break; /* lost: the next total makes it up */
			uet_rccc_src_on_credit(&src, granted, maxwnd);
			rref_handle_pull(&r, granted, maxwnd);
			break;
		}
		if ((int64_t)src.credit != r.credit ||
		    (src.pulled & ~1u) != (uint32_t)r.pull)
			fail_msg("step %d: credit %d/%lld pulled %u/%lld", i,
				 src.credit, (long long)r.credit, src.pulled,
				 (long long)r.pull);
	}
	assert_true(sends > 300);
	assert_true(grants > 300);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(uet_nscc__trace_matches_the_pseudocode),
		cmocka_unit_test(
			uet_nscc__trace_matches_the_pseudocode_with_rccc),
		cmocka_unit_test(uet_rccc__trace_matches_htsim_pull_rules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
