/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of src/cms/nscc.c: every step of the NSCC sender (UEC 1.0
 * section 3.6.13) with hand-computed expectations, and its destination
 * side (the ACK_CC cc_type 0 fields).
 *
 * Most tests use round parameters (P below) so the arithmetic can be
 * followed by hand: 80 Gb/s = 10 B/ns, base RTT 10 us (BDP 100 000 B,
 * max_wnd 150 000 B), MTU 1000 B, target 5 us, alpha 1 B/ns, fi 100 B,
 * fi_scale 0.25, eta 50 B, and adjustments far away unless a test asks.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include <uet/uet_cms_nscc.h>
#include <uet/uet_wire.h>

#define RTT 10000u   /* ns */
#define TARGET 5000u /* ns */
#define MTU 1000u

static struct uet_nscc_params
params(void)
{
	struct uet_nscc_params p;

	memset(&p, 0, sizeof(p));
	p.link_mbps = 80000;
	p.base_rtt_ns = RTT;
	p.mtu = MTU;
	p.trimming = true;
	p.target_qdelay_ns = TARGET;
	p.max_wnd = 150000;
	p.gamma_milli = 800;
	p.max_md_jump_milli = 500;
	p.fi_bytes = 100;
	p.fi_scale_q16 = 16384;
	p.fi_thresh_ns = 1000;
	p.eta_bytes = 50;
	p.alpha_q16 = 65536;
	p.qa_gate = 3;
	p.qa_threshold_ns = 0;
	p.adjust_bytes = 150000;
	p.adjust_period_ns = 1000000;
	p.ack_trigger = 16384;
	assert_int_equal(uet_nscc_params_check(&p, NULL), 0);
	return p;
}

/* A context with cwnd 100 000 B. */
static void
start(struct uet_nscc *n, const struct uet_nscc_params *p)
{
	uet_nscc_init(n, p);
	assert_int_equal(n->cwnd, 150000);
	n->cwnd = 100000;
}

static enum uet_nscc_action
ack(struct uet_nscc *n, const struct uet_nscc_params *p, uint32_t bytes,
    uint64_t rtt, bool ecn, uint64_t now)
{
	struct uet_nscc_ack a = { .bytes = bytes, .rtt_ns = rtt, .ecn = ecn };

	return uet_nscc_on_ack(n, p, &a, now);
}

static void
uet_nscc_params_default__100g_4150_14us(void **state)
{
	struct uet_nscc_params p;

	(void)state;
	/* BDP = 100 Gb/s x 14 us = 175 000 B; a = 7/6; target 10.5 us. */
	assert_int_equal(uet_nscc_params_default(&p, 100000, 14000, 4150, true),
			 0);
	assert_int_equal(uet_nscc_params_check(&p, NULL), 0);
	assert_int_equal(p.target_qdelay_ns, 10500);
	assert_int_equal(p.max_wnd, 262500);            /* 1.5 BDP */
	assert_int_equal(p.gamma_milli, 800);
	assert_int_equal(p.max_md_jump_milli, 500);
	assert_int_equal(p.fi_bytes, 24208);            /* 5 x 4150 x 7/6 */
	assert_int_equal(p.fi_scale_q16, 19114);        /* 0.2917 x 65536 */
	assert_int_equal(p.eta_bytes, 726);             /* 0.15 x 4150 x 7/6 */
	/* 4 a b MTU / target = 4 x 7/6 x 0.875 x 4150 / 10500 ns
	 * = 1.61389 B/ns = 105767.8 / 65536. */
	assert_int_equal(p.alpha_q16, 105767);
	assert_int_equal(p.qa_gate, 3);
	assert_int_equal(p.qa_threshold_ns, 0);         /* off with trims */
	assert_int_equal(p.adjust_bytes, 33200);        /* 8 MTU */
	assert_int_equal(p.adjust_period_ns, 14000);
	assert_int_equal(p.ack_trigger, 16384);
	/* Without trimming: target = base RTT, qa_threshold 4 targets;
	 * alpha does not depend on the target. */
	assert_int_equal(uet_nscc_params_default(&p, 100000, 14000, 4150,
						 false), 0);
	assert_int_equal(p.target_qdelay_ns, 14000);
	assert_int_equal(p.qa_threshold_ns, 56000);
	assert_int_equal(p.alpha_q16, 105767);
	assert_false(p.trimming);
}

static void
uet_nscc_params_default__rejects_bad_inputs(void **state)
{
	struct uet_nscc_params p;

	(void)state;
	assert_int_equal(uet_nscc_params_default(NULL, 100000, 14000, 4150,
						 true), -EINVAL);
	assert_int_equal(uet_nscc_params_default(&p, 0, 14000, 4150, true),
			 -EINVAL);
	assert_int_equal(uet_nscc_params_default(&p, 100000, 0, 4150, true),
			 -EINVAL);
	assert_int_equal(uet_nscc_params_default(&p, 100000, 14000, 0, true),
			 -EINVAL);
	/* 1.5 BDP below one MTU: 1 Gb/s x 100 ns = 12 B. */
	assert_int_equal(uet_nscc_params_default(&p, 1000, 100, 4150, true),
			 -EINVAL);
	/* 1.5 BDP of 2^30 or more: 3.2 Tb/s x 100 ms. */
	assert_int_equal(uet_nscc_params_default(&p, 3200000, 100000000,
						 4150, true), -EINVAL);
}

static void
uet_nscc_params_check__rejects_bad_fields(void **state)
{
	struct uet_nscc_params p;
	const char *why = NULL;

	(void)state;
	assert_int_equal(uet_nscc_params_check(NULL, &why), -EINVAL);
	assert_string_equal(why, "params");
	p = params();
	assert_int_equal(uet_nscc_params_check(&p, &why), 0);
	assert_null(why);
	p.max_wnd = 1u << 30;  /* the largest window */
	assert_int_equal(uet_nscc_params_check(&p, &why), 0);
#define BAD(field, value, text)                                          \
	do {                                                             \
		p = params();                                            \
		p.field = value;                                         \
		assert_int_equal(uet_nscc_params_check(&p, &why), -EINVAL); \
		assert_string_equal(why, text);                          \
	} while (0)
	BAD(link_mbps, 0, "link_mbps (1..3200000)");
	BAD(base_rtt_ns, 99, "base_rtt_ns (100..100000000)");
	BAD(mtu, 63, "mtu (64..65575)");
	BAD(max_wnd, 999, "max_wnd (mtu..2^30)");
	BAD(max_wnd, (1u << 30) + 1, "max_wnd (mtu..2^30)");
	BAD(target_qdelay_ns, 0, "target_qdelay_ns (1..100000000)");
	BAD(gamma_milli, 1001, "gamma_milli (1..1000)");
	BAD(max_md_jump_milli, 0, "max_md_jump_milli (1..1000)");
	BAD(fi_bytes, 150001, "fi_bytes (0..max_wnd)");
	BAD(fi_scale_q16, (16u << 16) + 1, "fi_scale_q16 (0..16 x 65536)");
	BAD(eta_bytes, 150001, "eta_bytes (0..max_wnd)");
	BAD(alpha_q16, (1024u << 16) + 1, "alpha_q16 (0..1024 x 65536)");
	BAD(qa_gate, 32, "qa_gate (0..31)");
	BAD(qa_threshold_ns, 100000001, "qa_threshold_ns (0..100000000)");
	BAD(adjust_bytes, 0, "adjust_bytes (1..max_wnd)");
	BAD(adjust_period_ns, 0, "adjust_period_ns (1..100000000)");
	BAD(ack_trigger, 150001, "ack_trigger (0..max_wnd)");
#undef BAD
	/* 3.2 Tb/s x 10 ms: 1.5 BDP = 6 GB, over the 2^30 limit. */
	p = params();
	p.link_mbps = 3200000;
	p.base_rtt_ns = 10000000;
	assert_int_equal(uet_nscc_params_check(&p, &why), -EINVAL);
	assert_string_equal(why,
			    "link_mbps x base_rtt_ns (1.5 BDP at most 2^30)");
}

static void
uet_nscc__state_is_bounded(void **state)
{
	(void)state;
	assert_int_equal(sizeof(struct uet_nscc), 88);
	assert_int_equal(sizeof(struct uet_nscc_rcv), 8);
	assert_int_equal(sizeof(struct uet_nscc_rcvd), 4);
}

/* The gate uses a full MTU: inflight + MTU <= cwnd. */
static void
uet_nscc_may_send__window_gate(void **state)
{
	struct uet_nscc_params p = params();
	struct uet_nscc n;
	int i;

	(void)state;
	start(&n, &p);
	for (i = 0; i < 99; i++)
		uet_nscc_on_send(&n, 1000);
	assert_int_equal(n.inflight, 99000);
	assert_true(uet_nscc_may_send(&n, &p));   /* 99000 + 1000 <= 1e5 */
	uet_nscc_on_send(&n, 200);                 /* a small packet */
	assert_false(uet_nscc_may_send(&n, &p));  /* 100200 > 1e5 */
	ack(&n, &p, 256, 0, false, 1000);         /* no RTT sample */
	assert_int_equal(n.inflight, 98944);
	assert_true(uet_nscc_may_send(&n, &p));
}

/* rcvd_bytes is rounded up to 256 B: inflight may go below zero, and the
 * gate then lets cwnd + |inflight| - MTU bytes out. */
static void
uet_nscc_on_ack__signed_inflight_below_zero(void **state)
{
	struct uet_nscc_params p = params();
	struct uet_nscc n;

	(void)state;
	start(&n, &p);
	uet_nscc_on_send(&n, 1000);
	ack(&n, &p, 1024, 0, false, 1000); /* (1000 + 255) >> 8 = 4 units */
	assert_int_equal(n.inflight, -24);
	assert_int_equal(n.cwnd, 100000); /* no sample: no window change */
	n.cwnd = 1000;
	assert_true(uet_nscc_may_send(&n, &p)); /* -24 + 1000 <= 1000 */
	uet_nscc_on_send(&n, 1000);
	assert_int_equal(n.inflight, 976);
	assert_false(uet_nscc_may_send(&n, &p));
	assert_true(uet_nscc_want_ar(&n, &p)); /* 1000 - 976 < MTU */
}

static void
uet_nscc_want_ar__nearly_full_or_small_window(void **state)
{
	struct uet_nscc_params p = params();
	struct uet_nscc n;

	(void)state;
	start(&n, &p);
	uet_nscc_on_send(&n, 98000);
	assert_false(uet_nscc_want_ar(&n, &p)); /* 2000 free */
	uet_nscc_on_send(&n, 1001);
	assert_true(uet_nscc_want_ar(&n, &p));  /* 999 free < MTU */
	start(&n, &p);
	n.cwnd = 16383;                          /* below the ACK trigger */
	assert_true(uet_nscc_want_ar(&n, &p));
	n.cwnd = 16384;
	assert_false(uet_nscc_want_ar(&n, &p));
}

static void
uet_nscc_rtt_sample__single_transmissions_only(void **state)
{
	(void)state;
	/* 30 000 - (10 000 + 10 x 128) */
	assert_int_equal(uet_nscc_rtt_sample(10000, 1, false, 10, 30000),
			 18720);
	assert_int_equal(uet_nscc_rtt_sample(10000, 1, true, 0, 30000), 0);
	/* The one retransmission, ACK echoing RETX: its own time counts. */
	assert_int_equal(uet_nscc_rtt_sample(20000, 2, true, 0, 30000),
			 10000);
	assert_int_equal(uet_nscc_rtt_sample(20000, 2, false, 0, 30000), 0);
	assert_int_equal(uet_nscc_rtt_sample(20000, 3, true, 0, 30000), 0);
	assert_int_equal(uet_nscc_rtt_sample(20000, 0, false, 0, 30000), 0);
	/* A service time at least the wait is no sample (the formula of
	 * UEC 1.0 calculate_rtt() would be <= 0). */
	assert_int_equal(uet_nscc_rtt_sample(10000, 1, false, 200, 30000),
			 0);
	assert_int_equal(uet_nscc_rtt_sample(10000, 1, false, 157, 30096),
			 0);
}

/* No ECN, delay 2 us < 5 us: inc_bytes += alpha b (target - delay)
 * = 1 x 1000 x 3000. */
static void
uet_nscc_on_ack__matrix_proportional(void **state)
{
	struct uet_nscc_params p = params();
	struct uet_nscc n;

	(void)state;
	start(&n, &p);
	assert_int_equal(ack(&n, &p, 1000, RTT + 2000, false, 1000),
			 UET_NSCC_PROPORTIONAL);
	assert_int_equal(n.inc_bytes, 3000000);
	assert_int_equal(n.cwnd, 100000); /* applied at the adjustment */
	/* alpha 1.5 B/ns: 1.5 x 333 x 3000 = 1 498 500. */
	p.alpha_q16 = 98304;
	assert_int_equal(ack(&n, &p, 333, RTT + 2000, false, 2000),
			 UET_NSCC_PROPORTIONAL);
	assert_int_equal(n.inc_bytes, 3000000 + 1498500);
	/* Extreme gain and ACK: 1024 B/ns x 2^23 ns x 2^31 B = 2^64 would
	 * wrap to 0 (cwnd + 44); it saturates, and the adjustment that the
	 * 2^31 bytes trigger takes cwnd to max_wnd. */
	p.alpha_q16 = 1024u << 16;
	p.target_qdelay_ns = (1u << 23) + 2000;
	assert_int_equal(ack(&n, &p, 1u << 31, RTT + 2000, false, 3000),
			 UET_NSCC_PROPORTIONAL);
	assert_int_equal(n.inc_bytes, 0);
	assert_int_equal(n.cwnd, 150000);
}

/* No ECN, delay 6 us >= 5 us: inc_bytes += fi x b = 100 x 1000. */
static void
uet_nscc_on_ack__matrix_fair(void **state)
{
	struct uet_nscc_params p = params();
	struct uet_nscc n;

	(void)state;
	start(&n, &p);
	assert_int_equal(ack(&n, &p, 1000, RTT + 6000, false, 1000),
			 UET_NSCC_FAIR);
	assert_int_equal(n.inc_bytes, 100000);
	/* Exactly at the target is the high-delay column. */
	assert_int_equal(ack(&n, &p, 1000, RTT + TARGET, false, 2000),
			 UET_NSCC_FAIR);
	assert_int_equal(n.inc_bytes, 200000);
	assert_int_equal(n.cwnd, 100000);
}

/* ECN with a small delay: no change at all. */
static void
uet_nscc_on_ack__matrix_ecn_low_delay_no_change(void **state)
{
	struct uet_nscc_params p = params();
	struct uet_nscc n;

	(void)state;
	start(&n, &p);
	n.inc_bytes = 777;
	assert_int_equal(ack(&n, &p, 1000, RTT + 2000, true, 1000),
			 UET_NSCC_NONE);
	assert_int_equal(n.cwnd, 100000);
	assert_int_equal(n.inc_bytes, 777);
}

/* ECN and delay >= target: MD, once per base_rtt, by the EWMA:
 * avg 10 us, sample 6 us: avg_q8 = 2 560 000 - 4000 x 256 / 80
 * = 2 547 200; factor = 1000 - 800 x (2 547 200 - 1 280 000) / 2 547 200
 * = 1000 - 397 = 603. */
static void
uet_nscc_on_ack__matrix_md_once_per_base_rtt(void **state)
{
	struct uet_nscc_params p = params();
	struct uet_nscc n;

	(void)state;
	start(&n, &p);
	n.avg_delay_q8 = 10000u << 8;
	assert_int_equal(ack(&n, &p, 1000, RTT + 6000, true, 1000),
			 UET_NSCC_MD);
	assert_int_equal(n.avg_delay_q8, 2547200);
	assert_int_equal(n.cwnd, 60300);
	/* Half a base RTT later: held. */
	assert_int_equal(ack(&n, &p, 1000, RTT + 6000, true, 6000),
			 UET_NSCC_MD_HELD);
	assert_int_equal(n.cwnd, 60300);
	/* Exactly one base RTT later: still held ("> base_rtt"). One ns
	 * more, three samples of 6 us since: 2 547 200 -> 2 534 560 ->
	 * 2 522 078 -> 2 509 753; factor = 1000 - 800 x 1 229 753 /
	 * 2 509 753 (= 391.99) = 609. */
	assert_int_equal(ack(&n, &p, 1000, RTT + 6000, true, 11000),
			 UET_NSCC_MD_HELD);
	assert_int_equal(ack(&n, &p, 1000, RTT + 6000, true, 11001),
			 UET_NSCC_MD);
	assert_int_equal(n.avg_delay_q8, 2509753);
	assert_int_equal(n.cwnd, 36722); /* 60300 x 0.609 = 36722.7 */
}

/* A huge average: the factor is held at max_md_jump (0.5). avg_q8 =
 * 25 600 000 - (25 600 000 - 1 536 000) / 80 = 25 299 200; factor
 * 1000 - 759 = 241 < 500. And never below one MTU. */
static void
uet_nscc_on_ack__md_clamped_by_max_md_jump(void **state)
{
	struct uet_nscc_params p = params();
	struct uet_nscc n;

	(void)state;
	start(&n, &p);
	n.avg_delay_q8 = 100000u << 8;
	assert_int_equal(ack(&n, &p, 1000, RTT + 6000, true, 1000),
			 UET_NSCC_MD);
	assert_int_equal(n.avg_delay_q8, 25299200);
	assert_int_equal(n.cwnd, 50000);
	n.cwnd = 1500;
	assert_int_equal(ack(&n, &p, 1000, RTT + 6000, true, 12000),
			 UET_NSCC_MD);
	assert_int_equal(n.cwnd, MTU);
}

/* ECN and a high sample, but the average is still under the target:
 * no decrease (MD needs avg_delay > target). */
static void
uet_nscc_on_ack__md_needs_average_over_target(void **state)
{
	struct uet_nscc_params p = params();
	struct uet_nscc n;

	(void)state;
	start(&n, &p);
	assert_int_equal(ack(&n, &p, 1000, RTT + 6000, true, 1000),
			 UET_NSCC_NONE);
	assert_int_equal(n.avg_delay_q8, 6000 * 256 / 80);
	assert_int_equal(n.cwnd, 100000);
}

/* Fast increase: once more than a cwnd of bytes came back with delay
 * under 1 us, cwnd grows by b x fi_scale per ACK; a delay >= 1 us
 * resets the count and the mode. */
static void
uet_nscc_on_ack__fast_increase_escalation_and_reset(void **state)
{
	struct uet_nscc_params p = params();
	struct uet_nscc n;
	uint64_t t = 1000;
	int i;

	(void)state;
	start(&n, &p);
	for (i = 0; i < 10; i++) /* fi_count 10 000 .. 100 000 = cwnd */
		assert_int_equal(ack(&n, &p, 10000, RTT, false, t++),
				 UET_NSCC_PROPORTIONAL);
	assert_int_equal(n.fi_count, 100000);
	assert_int_equal(n.inc_bytes, 10 * 10000ull * TARGET);
	assert_int_equal(ack(&n, &p, 10000, RTT, false, t++), UET_NSCC_FAST);
	assert_int_equal(n.cwnd, 102500); /* + 10000 x 0.25 */
	/* Still fast while under 1 us. */
	assert_int_equal(ack(&n, &p, 10000, RTT + 999, false, t++),
			 UET_NSCC_FAST);
	assert_int_equal(n.cwnd, 105000);
	/* A delay of 1 us: back to proportional, count reset. */
	assert_int_equal(ack(&n, &p, 10000, RTT + 1000, false, t++),
			 UET_NSCC_PROPORTIONAL);
	assert_int_equal(n.fi_count, 0);
	assert_false(n.flags & UET_NSCC_F_FAST);
	assert_int_equal(ack(&n, &p, 10000, RTT, false, t++),
			 UET_NSCC_PROPORTIONAL);
	assert_int_equal(n.fi_count, 10000);
	/* UEC 1.0 matrix: ECN below target changes nothing, the fair cell
	 * only adds to inc_bytes; neither touches fast increase. */
	assert_int_equal(ack(&n, &p, 10000, RTT, true, t++), UET_NSCC_NONE);
	assert_int_equal(n.fi_count, 10000);
	assert_int_equal(ack(&n, &p, 10000, RTT + TARGET, false, t++),
			 UET_NSCC_FAIR);
	assert_int_equal(n.fi_count, 10000);
	/* The MD cell (ECN, delay >= target) resets it, even when the
	 * average is below target and nothing is cut. */
	assert_int_equal(ack(&n, &p, 10000, RTT + TARGET, true, t++),
			 UET_NSCC_NONE);
	assert_int_equal(n.fi_count, 0);
	/* Clamped to max_wnd. */
	n.cwnd = 149000;
	n.flags |= UET_NSCC_F_FAST;
	assert_int_equal(ack(&n, &p, 10000, RTT, false, t++), UET_NSCC_FAST);
	assert_int_equal(n.cwnd, 150000);
}

/* inc_bytes is applied every adjust_bytes (8000 here) of received bytes
 * or every adjust_period (10 us); eta only per period. */
static void
uet_nscc_on_ack__periodic_adjust_and_eta(void **state)
{
	struct uet_nscc_params p = params();
	struct uet_nscc n;

	(void)state;
	p.adjust_bytes = 8000;
	p.adjust_period_ns = RTT;
	start(&n, &p);
	/* t = 1000 starts the period. 1000 x 3000 B^2 pending. */
	ack(&n, &p, 1000, RTT + 2000, false, 1000);
	assert_int_equal(n.cwnd, 100000);
	assert_int_equal(n.inc_bytes, 3000000);
	/* 7000 more: 8000 received is not more than adjust_bytes. */
	ack(&n, &p, 7000, RTT + 2000, false, 1500);
	assert_int_equal(n.cwnd, 100000);
	/* 1 B more: cwnd += 24 003 000 / 1e5 = 240, no eta. */
	ack(&n, &p, 1, RTT + 2000, false, 2000);
	assert_int_equal(n.cwnd, 100240);
	assert_int_equal(n.inc_bytes, 0);
	assert_int_equal(n.received_bytes, 0);
	/* The period ends (11 000 - 1000): 3e6 / 100 240 = 29, + eta 50. */
	ack(&n, &p, 1000, RTT + 2000, false, 11000);
	assert_int_equal(n.cwnd, 100319);
	assert_int_equal(n.last_adjust, 11000);
	/* Neither threshold: accumulate only. */
	ack(&n, &p, 1000, RTT + 6000, false, 12000);
	assert_int_equal(n.cwnd, 100319);
	assert_int_equal(n.inc_bytes, 100000);
	/* eta stops at max_wnd. */
	n.cwnd = 149990;
	n.inc_bytes = 0;
	ack(&n, &p, 1000, RTT + 6000, false, 21000);
	assert_int_equal(n.cwnd, 150000);
}

/* Quick adapt (UEC 1.0 quick_adapt()), judged once per base_rtt + target
 * = 15 us on the sample that ends the interval: a delay over qa_threshold
 * (20 us) with fewer than max_wnd >> 3 = 18 750 B achieved sets cwnd to
 * the achieved bytes; a high delay earlier in the interval is not
 * remembered. Then only ECN-marked feedback is ignored until the bytes in
 * flight at that moment are acknowledged, and it resets the pending
 * increase. */
static void
uet_nscc_on_ack__quick_adapt_and_bytes_to_ignore(void **state)
{
	struct uet_nscc_params p = params();
	struct uet_nscc n;
	int i;

	(void)state;
	p.qa_threshold_ns = 20000;
	start(&n, &p);
	for (i = 0; i < 50; i++)
		uet_nscc_on_send(&n, 1000);
	/* First feedback starts the interval: ends at 1000 + 15 000. */
	assert_int_equal(ack(&n, &p, 1000, RTT, false, 1000),
			 UET_NSCC_PROPORTIONAL);
	assert_int_equal(n.qa_end, 16000);
	assert_int_equal(n.achieved_bytes, 0);
	/* Delay 25 us > 20 us inside the interval: not latched. */
	assert_int_equal(ack(&n, &p, 1000, RTT + 25000, false, 5000),
			 UET_NSCC_FAIR);
	assert_false(n.flags & UET_NSCC_F_QA_TRIGGER);
	assert_int_equal(ack(&n, &p, 1000, RTT, false, 16000),
			 UET_NSCC_PROPORTIONAL);
	assert_int_equal(n.cwnd, 100000);
	assert_int_equal(n.qa_end, 31000);
	/* The sample ending the next interval is high: quick adapt. */
	assert_int_equal(ack(&n, &p, 1000, RTT + 25000, false, 31000),
			 UET_NSCC_QUICK_ADAPT);
	assert_int_equal(n.cwnd, 1000);          /* achieved: this ACK */
	assert_int_equal(n.bytes_to_ignore, 46000);
	assert_int_equal(n.bytes_ignored, 0);
	assert_int_equal(n.inc_bytes, 0);
	assert_int_equal(n.received_bytes, 0);
	assert_int_equal(n.qa_end, 46000);
	/* Marked feedback within the 46 000 B is ignored... */
	assert_int_equal(ack(&n, &p, 1000, RTT + 9000, true, 32000),
			 UET_NSCC_IGNORED);
	assert_int_equal(n.cwnd, 1000);
	/* ... unmarked feedback is not, */
	assert_int_equal(ack(&n, &p, 1000, RTT + 2000, false, 32500),
			 UET_NSCC_PROPORTIONAL);
	assert_int_equal(n.inc_bytes, 3000000);
	/* and ignoring resets the pending increase. */
	assert_int_equal(ack(&n, &p, 43000, RTT + 2000, true, 33000),
			 UET_NSCC_IGNORED);
	assert_int_equal(n.bytes_ignored, 45000);
	assert_int_equal(n.inc_bytes, 0);
	assert_int_equal(n.received_bytes, 0);
	/* 46 000 acknowledged: marked feedback counts again. */
	assert_int_equal(ack(&n, &p, 1000, RTT + 2000, true, 34000),
			 UET_NSCC_NONE);
}

/* A high delay at the interval's end but max_wnd >> qa_gate achieved:
 * no quick adapt. */
static void
uet_nscc_on_ack__quick_adapt_gated_by_achieved_bytes(void **state)
{
	struct uet_nscc_params p = params();
	struct uet_nscc n;

	(void)state;
	p.qa_threshold_ns = 20000;
	start(&n, &p);
	ack(&n, &p, 1000, RTT, false, 1000);
	ack(&n, &p, 17750, RTT + 2000, false, 5000);
	assert_int_equal(ack(&n, &p, 1000, RTT + 25000, false, 16000),
			 UET_NSCC_FAIR);
	assert_int_equal(n.cwnd, 100000);
	assert_int_equal(n.achieved_bytes, 0);
	assert_int_equal(n.qa_end, 31000);
	/* qa_threshold 0 (trimming): delay alone never fires it. */
	p.qa_threshold_ns = 0;
	assert_int_equal(ack(&n, &p, 1000, RTT + 90000, false, 31000),
			 UET_NSCC_FAIR);
	assert_int_equal(n.cwnd, 100000);
}

/* Receiver penalty: save cwnd once, cap at inflight, take pend x b >> 7;
 * the matrix is off until rc restores the saved window. */
static void
uet_nscc_on_ack__receiver_penalty_save_restore(void **state)
{
	struct uet_nscc_params p = params();
	struct uet_nscc_ack a = { .bytes = 1000, .rcv_cwnd_pend = 64 };
	struct uet_nscc n;

	(void)state;
	start(&n, &p);
	uet_nscc_on_send(&n, 50000);
	assert_int_equal(uet_nscc_on_ack(&n, &p, &a, 1000), UET_NSCC_PENALTY);
	assert_int_equal(n.saved_cwnd, 100000);
	assert_int_equal(n.cwnd, 48500);     /* 49000 - 64 x 1000 / 128 */
	a.rcv_cwnd_pend = 127;
	assert_int_equal(uet_nscc_on_ack(&n, &p, &a, 2000), UET_NSCC_PENALTY);
	assert_int_equal(n.saved_cwnd, 100000); /* saved once */
	assert_int_equal(n.cwnd, 47008);     /* 48000 - 127000 >> 7 */
	/* While limited, a valid sample skips the increases only: the MD
	 * cell still runs (here the average is below target: no cut). */
	a.rtt_ns = RTT + 6000;
	a.ecn = true;
	n.avg_delay_q8 = 10000u << 8;
	assert_int_equal(uet_nscc_on_ack(&n, &p, &a, 2500), UET_NSCC_PENALTY);
	assert_int_equal(n.cwnd, 27742);     /* (47000 - 992) x 0.603 */
	n.cwnd = 47008;
	n.avg_delay_q8 = 0;
	a.ecn = false;
	/* Penalty over (pend 0), no rc yet: the matrix runs again (UEC 1.0
	 * apply_cwnd_penalty() returns Rcv_Cwnd_Pend > 0). */
	a.rcv_cwnd_pend = 0;
	a.rtt_ns = RTT + 2000;
	assert_int_equal(uet_nscc_on_ack(&n, &p, &a, 3000),
			 UET_NSCC_PROPORTIONAL);
	assert_int_equal(n.cwnd, 47008);
	assert_int_equal(n.inc_bytes, 3000000);
	/* rc: back to the saved window, and the restoring ACK runs the
	 * matrix too. */
	a.restore = true;
	assert_int_equal(uet_nscc_on_ack(&n, &p, &a, 4000), UET_NSCC_RESTORED);
	assert_int_equal(n.cwnd, 100000);
	assert_int_equal(n.saved_cwnd, 0);
	assert_int_equal(n.inc_bytes, 6000000);
	a.restore = false;
	assert_int_equal(uet_nscc_on_ack(&n, &p, &a, 5000),
			 UET_NSCC_PROPORTIONAL);
	/* The penalty never goes below one MTU. */
	a.rcv_cwnd_pend = 127;
	a.bytes = 100000;
	assert_int_equal(uet_nscc_on_ack(&n, &p, &a, 6000), UET_NSCC_PENALTY);
	assert_int_equal(n.cwnd, MTU);
	/* rc without a penalty in force is a no-op. */
	start(&n, &p);
	a.rcv_cwnd_pend = 0;
	a.restore = true;
	a.rtt_ns = 0;
	assert_int_equal(uet_nscc_on_ack(&n, &p, &a, 1000), UET_NSCC_NONE);
	assert_int_equal(n.cwnd, 100000);
}

/* Trim NACK: release the bytes; TRIMMED reduces cwnd by the packet
 * (or quick-adapts); TRIMMED_LASTHOP too without RCCC, not with it. */
static void
uet_nscc_on_trim__decrease_and_lasthop(void **state)
{
	struct uet_nscc_params p = params();
	struct uet_nscc n;

	(void)state;
	start(&n, &p);
	uet_nscc_on_send(&n, 10000);
	assert_int_equal(uet_nscc_on_trim(&n, &p, 1000, false, 1000),
			 UET_NSCC_DECREASE);
	assert_int_equal(n.cwnd, 99000);
	assert_int_equal(n.inflight, 9000);
	assert_int_equal(uet_nscc_on_trim(&n, &p, 1000, true, 2000),
			 UET_NSCC_DECREASE);
	assert_int_equal(n.cwnd, 98000);
	p.rccc = true;
	assert_int_equal(uet_nscc_on_trim(&n, &p, 1000, true, 3000),
			 UET_NSCC_NONE);
	assert_int_equal(n.cwnd, 98000);
	assert_int_equal(n.inflight, 7000);
	assert_int_equal(uet_nscc_on_trim(&n, &p, 1000, false, 4000),
			 UET_NSCC_DECREASE);
	assert_int_equal(n.cwnd, 97000);
	n.cwnd = 1500;
	uet_nscc_on_trim(&n, &p, 1000, false, 5000);
	assert_int_equal(n.cwnd, MTU);
}

/* A trim at the end of a quick-adapt interval with little achieved
 * fires quick adapt instead of the one-packet decrease. */
static void
uet_nscc_on_trim__fires_quick_adapt(void **state)
{
	struct uet_nscc_params p = params();
	struct uet_nscc n;

	(void)state;
	start(&n, &p);
	uet_nscc_on_send(&n, 30000);
	ack(&n, &p, 1000, RTT, false, 1000);    /* interval to 16 000 */
	ack(&n, &p, 3000, RTT + 2000, false, 2000);
	assert_int_equal(uet_nscc_on_trim(&n, &p, 1000, false, 16000),
			 UET_NSCC_QUICK_ADAPT);
	assert_int_equal(n.cwnd, 3000);          /* achieved */
	assert_int_equal(n.bytes_to_ignore, 25000);
	/* The next trim is part of the ignored flight: no decrease. */
	assert_int_equal(uet_nscc_on_trim(&n, &p, 1000, false, 17000),
			 UET_NSCC_IGNORED);
	assert_int_equal(n.cwnd, 3000);
}

/* Inferred loss (SACK or RTO), UEC 1.0 NSCC.OnInferredLoss: cwnd -=
 * packet, floor MTU; it does not arm quick adapt. */
static void
uet_nscc_on_loss__decrease_only(void **state)
{
	struct uet_nscc_params p = params();
	struct uet_nscc n;

	(void)state;
	start(&n, &p);
	uet_nscc_on_send(&n, 20000);
	ack(&n, &p, 1000, RTT, false, 1000);    /* interval to 16 000 */
	assert_int_equal(uet_nscc_on_loss(&n, &p, 1000, 2000),
			 UET_NSCC_DECREASE);
	assert_int_equal(n.cwnd, 99000);
	assert_int_equal(n.inflight, 18000);
	assert_int_equal(n.bytes_ignored, 2000);
	assert_false(n.flags & UET_NSCC_F_QA_TRIGGER);
	assert_int_equal(ack(&n, &p, 2000, RTT + 2000, false, 16000),
			 UET_NSCC_PROPORTIONAL);
	assert_int_equal(n.cwnd, 99000);
	n.cwnd = 1999;
	uet_nscc_on_loss(&n, &p, 1000, 17000);
	assert_int_equal(n.cwnd, MTU);
}

/* UEC 1.0 NSCC.OnNACK: a trim (either kind, also a last-hop trim with
 * RCCC on) feeds update_delay(config_base_rtt): avg_q8 += (10 000 x 256
 * - avg_q8) / 80 = 32 000, then 63 600. */
static void
uet_nscc_on_trim__feeds_the_delay_average(void **state)
{
	struct uet_nscc_params p = params();
	struct uet_nscc n;

	(void)state;
	start(&n, &p);
	uet_nscc_on_trim(&n, &p, 1000, false, 1000);
	assert_int_equal(n.avg_delay_q8, 32000);
	p.rccc = true;
	assert_int_equal(uet_nscc_on_trim(&n, &p, 1000, true, 2000),
			 UET_NSCC_NONE);
	assert_int_equal(n.avg_delay_q8, 63600);
	assert_int_equal(n.bytes_ignored, 2000);
	/* Only the RCCC last-hop case leaves trigger_qa alone. */
	n.flags &= ~UET_NSCC_F_QA_TRIGGER;
	uet_nscc_on_trim(&n, &p, 1000, true, 3000);
	assert_false(n.flags & UET_NSCC_F_QA_TRIGGER);
	uet_nscc_on_trim(&n, &p, 1000, false, 4000);
	assert_true(n.flags & UET_NSCC_F_QA_TRIGGER);
}

/* UEC 1.0 NSCC.OnNACK: its RTT sample lowers base_rtt (and max_wnd), it
 * is not a delay sample; other NACKs release their bytes only. */
static void
uet_nscc_on_nack_rtt__lowers_base_rtt_only(void **state)
{
	struct uet_nscc_params p = params();
	struct uet_nscc n;

	(void)state;
	start(&n, &p);
	uet_nscc_on_send(&n, 5000);
	uet_nscc_on_nack_rtt(&n, &p, 0);
	assert_int_equal(n.base_rtt_ns, RTT);
	uet_nscc_on_nack_rtt(&n, &p, 12000);
	assert_int_equal(n.base_rtt_ns, RTT);
	uet_nscc_on_nack_rtt(&n, &p, 8000);
	assert_int_equal(n.base_rtt_ns, 8000);
	assert_int_equal(n.max_wnd, 120000);
	assert_int_equal(n.avg_delay_q8, 0);
	uet_nscc_on_nack(&n, 1000, 1000);
	assert_int_equal(n.inflight, 4000);
	assert_int_equal(n.cwnd, 100000);
	assert_int_equal(n.bytes_ignored, 0);
}

/* An ACK whose service time ate the measured time has no sample (0):
 * base_rtt, max_wnd and cwnd stay (they went to 1 ns and one MTU). */
static void
uet_nscc_on_ack__service_time_over_rtt_keeps_base_rtt(void **state)
{
	struct uet_nscc_params p = params();
	struct uet_nscc n;
	uint64_t rtt = uet_nscc_rtt_sample(1000, 1, false, 200, 20000);

	(void)state;
	start(&n, &p);
	assert_int_equal(rtt, 0);
	assert_int_equal(ack(&n, &p, 1000, rtt, false, 20000), UET_NSCC_NONE);
	assert_int_equal(n.base_rtt_ns, RTT);
	assert_int_equal(n.max_wnd, 150000);
	assert_int_equal(n.cwnd, 100000);
}

/* A saturated service time (0xFFFF: 8.4 ms or more, or a receiver that
 * does not know when the ACK_PSN packet arrived) is no time: no sample,
 * even when the packet was sent longer ago than 8.4 ms. */
static void
uet_nscc_rtt_sample__saturated_service_time_no_sample(void **state)
{
	uint64_t sent = 1000, now = sent + 20000000;

	(void)state;
	assert_int_equal(uet_nscc_rtt_sample(sent, 1, false, 0xFFFF, now), 0);
	assert_int_equal(uet_nscc_rtt_sample(sent, 2, true, 0xFFFF, now), 0);
	/* one unit less is a time */
	assert_int_equal(uet_nscc_rtt_sample(sent, 1, false, 0xFFFE, now),
			 now - sent - 0xFFFEull * UET_NSCC_SERVICE_UNIT_NS);
}

/* A smaller RTT lowers base_rtt and max_wnd = 1.5 x rate x base_rtt
 * (10 B/ns x 8 us x 1.5 = 120 000), clamping cwnd. */
static void
uet_nscc_on_ack__base_rtt_and_max_wnd(void **state)
{
	struct uet_nscc_params p = params();
	struct uet_nscc n;

	(void)state;
	uet_nscc_init(&n, &p);
	assert_int_equal(n.base_rtt_ns, RTT);
	assert_int_equal(n.max_wnd, 150000);
	assert_int_equal(ack(&n, &p, 1000, 8000, false, 1000),
			 UET_NSCC_PROPORTIONAL);
	assert_int_equal(n.base_rtt_ns, 8000);
	assert_int_equal(n.max_wnd, 120000);
	assert_int_equal(n.cwnd, 120000);
	assert_int_equal(n.avg_delay_q8, 0);
	/* Larger samples never raise it. */
	ack(&n, &p, 1000, 12000, false, 2000);
	assert_int_equal(n.base_rtt_ns, 8000);
	assert_int_equal(n.avg_delay_q8, 4000 * 256 / 80);
}

/* A window saved by the receiver's penalty comes back no larger than
 * max_wnd, which a smaller base_rtt lowered meanwhile (found by uet-dst
 * --seed 551 --gen 2: cwnd 226 537 over max_wnd 210 600; seeds 3764 and
 * 4649: cwnd 124 893 over max_wnd 117 487). */
static void
uet_nscc_on_ack__restore_capped_at_max_wnd(void **state)
{
	struct uet_nscc_params p = params();
	struct uet_nscc_ack a = { .bytes = 1000, .rcv_cwnd_pend = 64 };
	struct uet_nscc n;

	(void)state;
	uet_nscc_init(&n, &p);
	uet_nscc_on_send(&n, 50000);
	assert_int_equal(uet_nscc_on_ack(&n, &p, &a, 1000), UET_NSCC_PENALTY);
	assert_int_equal(n.saved_cwnd, 150000);
	/* an 8 us sample: max_wnd 120 000 */
	a.rcv_cwnd_pend = 0;
	a.rtt_ns = 8000;
	uet_nscc_on_ack(&n, &p, &a, 2000);
	assert_int_equal(n.max_wnd, 120000);
	a.rtt_ns = 0;
	a.restore = true;
	assert_int_equal(uet_nscc_on_ack(&n, &p, &a, 3000), UET_NSCC_RESTORED);
	assert_int_equal(n.cwnd, 120000);
	assert_int_equal(n.saved_cwnd, 0);
}

/* After the first feedback a PROBE is due, once; its sample, like any
 * other, only lowers base_rtt (UEC 1.0 update_base_rtt()). */
static void
uet_nscc_probe__after_first_feedback(void **state)
{
	struct uet_nscc_params p = params();
	struct uet_nscc n;

	(void)state;
	uet_nscc_init(&n, &p);
	assert_false(uet_nscc_probe_due(&n));
	uet_nscc_on_trim(&n, &p, 1000, false, 1000);
	assert_true(uet_nscc_probe_due(&n));
	uet_nscc_probe_sent(&n);
	assert_false(uet_nscc_probe_due(&n));
	ack(&n, &p, 1000, 0, false, 2000);
	assert_false(uet_nscc_probe_due(&n));
	uet_nscc_on_probe_ack(&n, &p, 0);        /* no sample */
	assert_int_equal(n.base_rtt_ns, RTT);
	uet_nscc_on_probe_ack(&n, &p, 12000);
	assert_int_equal(n.base_rtt_ns, RTT);
	assert_int_equal(n.max_wnd, 150000);
	uet_nscc_on_probe_ack(&n, &p, 9000);
	assert_int_equal(n.base_rtt_ns, 9000);
	assert_int_equal(n.max_wnd, 135000);
}

/* rcvd_bytes deltas, modulo 2^24 units of 256 B. */
static void
uet_nscc_rcvd_delta__wraps_and_ignores_old(void **state)
{
	struct uet_nscc_rcvd r = { 0 };

	(void)state;
	assert_int_equal(uet_nscc_rcvd_delta(&r, 4), 1024);
	assert_int_equal(uet_nscc_rcvd_delta(&r, 4), 0);
	assert_int_equal(uet_nscc_rcvd_delta(&r, 3), 0); /* reordered ACK */
	assert_int_equal(r.last, 4);
	r.last = 0xFFFFFE;
	assert_int_equal(uet_nscc_rcvd_delta(&r, 2), 4 * 256);
	assert_int_equal(r.last, 2);
}

/* rcvd_bytes counts the nominal size (UDP length + 40) of new,
 * untrimmed, non-duplicate packets; the ACK_CC carries it rounded up to
 * 256 B units; ooo_count is left to the caller (the PDS). */
static void
uet_nscc_rcv_fill__counts_new_untrimmed_packets(void **state)
{
	struct uet_wire_pds_nscc_state st;
	struct uet_nscc_rcv r;

	(void)state;
	uet_nscc_rcv_init(&r);
	memset(&st, 0xA5, sizeof(st));
	uet_nscc_rcv_fill(&r, 0, &st);
	assert_int_equal(st.rcvd_bytes, 0);
	assert_int_equal(st.service_time, 0);
	assert_int_equal(st.ooo_count, 0xA5A5); /* untouched */
	assert_int_equal(st.rcv_cwnd_pend, 0);
	assert_false(st.rc);
	uet_nscc_rcv_on_data(&r, 4110, false, false);  /* 4150 */
	uet_nscc_rcv_on_data(&r, 4110, true, false);   /* trimmed */
	uet_nscc_rcv_on_data(&r, 4110, false, true);   /* duplicate */
	uet_nscc_rcv_on_data(&r, 60, false, false);    /* 100 */
	assert_int_equal(r.rcvd_bytes, 4250);
	uet_nscc_rcv_fill(&r, 1000, &st);
	assert_int_equal(st.rcvd_bytes, 17);      /* (4250 + 255) >> 8 */
	assert_int_equal(st.service_time, 7);     /* 1000 ns / 128 */
	/* The sender's tracker turns it back into bytes, rounded up. */
	{
		struct uet_nscc_rcvd t = { 0 };

		assert_int_equal(uet_nscc_rcvd_delta(&t, st.rcvd_bytes),
				 17 * 256);
	}
	/* Exactly 256 B multiples do not round. */
	uet_nscc_rcv_init(&r);
	uet_nscc_rcv_on_data(&r, 472, false, false);   /* 512 */
	uet_nscc_rcv_fill(&r, 0, &st);
	assert_int_equal(st.rcvd_bytes, 2);
}

/* The 24-bit rcvd_bytes wraps with the 32-bit byte count (2^24 units of
 * 256 B); service_time saturates. */
static void
uet_nscc_rcv_fill__wraps_and_saturates(void **state)
{
	struct uet_wire_pds_nscc_state st;
	struct uet_nscc_rcv r;

	(void)state;
	uet_nscc_rcv_init(&r);
	r.rcvd_bytes = UINT32_MAX - 39;       /* 2^24 units - 40 B */
	uet_nscc_rcv_on_data(&r, 0, false, false);     /* 40: wraps to 0 */
	uet_nscc_rcv_fill(&r, 0, &st);
	assert_int_equal(st.rcvd_bytes, 0);
	uet_nscc_rcv_on_data(&r, 1000, false, false);  /* 1040 */
	uet_nscc_rcv_fill(&r, 128ull * 70000, &st);
	assert_int_equal(st.rcvd_bytes, 5);       /* (1040 + 255) >> 8 */
	assert_int_equal(st.service_time, 0xFFFF);
	r.rcvd_bytes = UINT32_MAX - 10;       /* rounds up to 2^24 units */
	uet_nscc_rcv_fill(&r, 0, &st);
	assert_int_equal(st.rcvd_bytes, 0);
}

/* Overload sets rcv_cwnd_pend; its end owes one rc. */
static void
uet_nscc_rcv_overload__pend_and_restore(void **state)
{
	struct uet_wire_pds_nscc_state st;
	struct uet_nscc_rcv r;

	(void)state;
	uet_nscc_rcv_init(&r);
	assert_int_equal(uet_nscc_rcv_overload(&r, 128), -EINVAL);
	assert_int_equal(uet_nscc_rcv_overload(&r, 0), 0);
	uet_nscc_rcv_fill(&r, 0, &st);
	assert_false(st.rc);                 /* never overloaded: no rc */
	assert_int_equal(uet_nscc_rcv_overload(&r, 127), 0);
	uet_nscc_rcv_fill(&r, 0, &st);
	assert_int_equal(st.rcv_cwnd_pend, 127);
	assert_false(st.rc);
	assert_int_equal(uet_nscc_rcv_overload(&r, 0), 0);
	uet_nscc_rcv_fill(&r, 0, &st);
	assert_int_equal(st.rcv_cwnd_pend, 0);
	assert_true(st.rc);
	uet_nscc_rcv_fill(&r, 0, &st);
	assert_false(st.rc);                 /* carried once */
	/* A new penalty before the rc went out cancels it. */
	uet_nscc_rcv_overload(&r, 10);
	uet_nscc_rcv_overload(&r, 0);
	uet_nscc_rcv_overload(&r, 20);
	uet_nscc_rcv_fill(&r, 0, &st);
	assert_false(st.rc);
	assert_int_equal(st.rcv_cwnd_pend, 20);
}

/* End to end through the wire struct: the sender's inflight returns to
 * zero from rcvd_bytes alone, give or take the 256 B rounding, and the
 * penalty and rc fields drive its cwnd. */
static void
uet_nscc_rcv_fill__drives_the_sender(void **state)
{
	struct uet_nscc_params p = params();
	struct uet_wire_pds_nscc_state st;
	struct uet_nscc_rcvd t = { 0 };
	struct uet_nscc_ack a;
	struct uet_nscc_rcv r;
	struct uet_nscc n;
	int i;

	(void)state;
	start(&n, &p);
	uet_nscc_rcv_init(&r);
	for (i = 0; i < 10; i++) {
		uet_nscc_on_send(&n, uet_nscc_nominal(960));
		uet_nscc_rcv_on_data(&r, 960, false, false);
	}
	assert_int_equal(n.inflight, 10000);
	uet_nscc_rcv_overload(&r, 64);
	uet_nscc_rcv_fill(&r, 0, &st);
	memset(&a, 0, sizeof(a));
	a.bytes = uet_nscc_rcvd_delta(&t, st.rcvd_bytes);
	a.rcv_cwnd_pend = st.rcv_cwnd_pend;
	a.restore = st.rc;
	assert_int_equal(a.bytes, 10240);           /* 40 units */
	assert_int_equal(uet_nscc_on_ack(&n, &p, &a, 1000), UET_NSCC_PENALTY);
	assert_int_equal(n.inflight, -240);
	assert_int_equal(n.cwnd, MTU);              /* capped at inflight */
	uet_nscc_rcv_overload(&r, 0);
	uet_nscc_rcv_fill(&r, 0, &st);
	a.bytes = uet_nscc_rcvd_delta(&t, st.rcvd_bytes);
	a.rcv_cwnd_pend = st.rcv_cwnd_pend;
	a.restore = st.rc;
	assert_int_equal(uet_nscc_on_ack(&n, &p, &a, 2000), UET_NSCC_RESTORED);
	assert_int_equal(n.cwnd, 100000);
	assert_int_equal(n.inflight, -240);
}

/* Closed loop in virtual time: 4 senders of 2000 x 1000 B into one
 * 10 B/ns FIFO (base RTT 10 us, ECN above 20 000 B queued), each sender
 * paced by its own 10 B/ns link, one ACK per packet. Defaults of
 * uet_nscc_params_default() with qa_threshold 4 targets. */
#define SIM_FLOWS 4
#define SIM_PKTS 2000u
#define SIM_SER 100u   /* ns per packet */
#define SIM_PROP 9900u /* the rest of the base RTT */
#define SIM_RING 8192u
#define SIM_MARK 20000u

struct sim_pkt {
	uint64_t ack_at;
	uint64_t tx;
	uint8_t src;
	bool ecn;
};

struct sim {
	struct uet_nscc n[SIM_FLOWS];
	struct sim_pkt ring[SIM_RING];
	uint64_t next_tx[SIM_FLOWS], done_at[SIM_FLOWS];
	uint32_t left[SIM_FLOWS], acked[SIM_FLOWS];
	uint64_t now, last_dep, q_sum, q_n, mds;
	uint32_t head, tail;
};

static int
sim_next_sender(struct sim *sm, const struct uet_nscc_params *p,
		uint64_t *at)
{
	int i, s = -1;
	uint64_t t;

	*at = UINT64_MAX;
	for (i = 0; i < SIM_FLOWS; i++) {
		if (sm->left[i] == 0 || !uet_nscc_may_send(&sm->n[i], p))
			continue;
		t = sm->next_tx[i] > sm->now ? sm->next_tx[i] : sm->now;
		if (t < *at) {
			*at = t;
			s = i;
		}
	}
	return s;
}

static void
sim_send(struct sim *sm, int s)
{
	struct sim_pkt *k = &sm->ring[sm->tail++ % SIM_RING];
	uint64_t q = sm->last_dep > sm->now ?
		(sm->last_dep - sm->now) / SIM_SER * MTU : 0;

	if (sm->now > 400000) { /* second half: steady state */
		sm->q_sum += q;
		sm->q_n++;
	}
	sm->last_dep = (sm->last_dep > sm->now ? sm->last_dep : sm->now) +
		SIM_SER;
	k->tx = sm->now;
	k->src = (uint8_t)s;
	k->ecn = q > SIM_MARK;
	k->ack_at = sm->last_dep + SIM_PROP;
	uet_nscc_on_send(&sm->n[s], MTU);
	sm->next_tx[s] = sm->now + SIM_SER;
	sm->left[s]--;
}

static void
sim_ack(struct sim *sm, const struct uet_nscc_params *p)
{
	struct sim_pkt *k = &sm->ring[sm->head++ % SIM_RING];
	struct uet_nscc_ack a = { .bytes = MTU, .rtt_ns = k->ack_at - k->tx,
				  .ecn = k->ecn };

	sm->now = k->ack_at;
	if (uet_nscc_on_ack(&sm->n[k->src], p, &a, sm->now) == UET_NSCC_MD)
		sm->mds++;
	if (++sm->acked[k->src] == SIM_PKTS)
		sm->done_at[k->src] = sm->now;
}

static void
uet_nscc__four_flows_share_a_bottleneck(void **state)
{
	static struct sim sm;
	struct uet_nscc_params p;
	uint64_t tx_at, first = UINT64_MAX, last = 0;
	uint32_t it;
	int i, s;

	(void)state;
	memset(&sm, 0, sizeof(sm));
	assert_int_equal(uet_nscc_params_default(&p, 80000, RTT, MTU, true),
			 0);
	p.qa_threshold_ns = 4 * p.target_qdelay_ns;
	for (i = 0; i < SIM_FLOWS; i++) {
		uet_nscc_init(&sm.n[i], &p);
		sm.left[i] = SIM_PKTS;
	}
	for (it = 0; it < 4 * SIM_FLOWS * SIM_PKTS; it++) {
		s = sim_next_sender(&sm, &p, &tx_at);
		if (sm.head != sm.tail && sm.ring[sm.head % SIM_RING].ack_at <=
		    tx_at) {
			sim_ack(&sm, &p);
		} else if (s >= 0) {
			sm.now = tx_at;
			sim_send(&sm, s);
		} else {
			break;
		}
		assert_true(sm.tail - sm.head <= SIM_RING);
	}
	for (i = 0; i < SIM_FLOWS; i++) {
		assert_int_equal(sm.acked[i], SIM_PKTS);
		assert_int_equal(sm.n[i].inflight, 0);
		first = sm.done_at[i] < first ? sm.done_at[i] : first;
		last = sm.done_at[i] > last ? sm.done_at[i] : last;
	}
	/* Ideal: 8000 packets x 100 ns + one base RTT = 810 us. The first
	 * round trip's burst (4 x 1.5 BDP) queues 50 us; we measured
	 * 891.3 us (1.10x) and the first flow done at 0.93 of the last. */
	assert_true(last <= 810000 * 115 / 100);
	assert_true(first * 100 >= last * 85);
	assert_true(sm.mds > 0);
	/* Steady state: the average queue stays below the delay target
	 * (7.5 us x 10 B/ns = 75 000 B); we measured 39 201 B. */
	assert_true(sm.q_sum / sm.q_n < 75000);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(uet_nscc_params_default__100g_4150_14us),
		cmocka_unit_test(uet_nscc_params_default__rejects_bad_inputs),
		cmocka_unit_test(uet_nscc_params_check__rejects_bad_fields),
		cmocka_unit_test(uet_nscc__state_is_bounded),
		cmocka_unit_test(uet_nscc_may_send__window_gate),
		cmocka_unit_test(uet_nscc_on_ack__signed_inflight_below_zero),
		cmocka_unit_test(uet_nscc_want_ar__nearly_full_or_small_window),
		cmocka_unit_test(
			uet_nscc_rtt_sample__single_transmissions_only),
		cmocka_unit_test(uet_nscc_on_ack__matrix_proportional),
		cmocka_unit_test(uet_nscc_on_ack__matrix_fair),
		cmocka_unit_test(
			uet_nscc_on_ack__matrix_ecn_low_delay_no_change),
		cmocka_unit_test(uet_nscc_on_ack__matrix_md_once_per_base_rtt),
		cmocka_unit_test(uet_nscc_on_ack__md_clamped_by_max_md_jump),
		cmocka_unit_test(uet_nscc_on_ack__md_needs_average_over_target),
		cmocka_unit_test(
			uet_nscc_on_ack__fast_increase_escalation_and_reset),
		cmocka_unit_test(uet_nscc_on_ack__periodic_adjust_and_eta),
		cmocka_unit_test(
			uet_nscc_on_ack__quick_adapt_and_bytes_to_ignore),
		cmocka_unit_test(
			uet_nscc_on_ack__quick_adapt_gated_by_achieved_bytes),
		cmocka_unit_test(
			uet_nscc_on_ack__receiver_penalty_save_restore),
		cmocka_unit_test(uet_nscc_on_ack__restore_capped_at_max_wnd),
		cmocka_unit_test(uet_nscc_on_trim__decrease_and_lasthop),
		cmocka_unit_test(uet_nscc_on_trim__fires_quick_adapt),
		cmocka_unit_test(
			uet_nscc_on_loss__decrease_only),
		cmocka_unit_test(uet_nscc_on_ack__base_rtt_and_max_wnd),
		cmocka_unit_test(uet_nscc_on_trim__feeds_the_delay_average),
		cmocka_unit_test(uet_nscc_on_nack_rtt__lowers_base_rtt_only),
		cmocka_unit_test(
			uet_nscc_on_ack__service_time_over_rtt_keeps_base_rtt),
		cmocka_unit_test(
			uet_nscc_rtt_sample__saturated_service_time_no_sample),
		cmocka_unit_test(uet_nscc_probe__after_first_feedback),
		cmocka_unit_test(uet_nscc_rcvd_delta__wraps_and_ignores_old),
		cmocka_unit_test(
			uet_nscc_rcv_fill__counts_new_untrimmed_packets),
		cmocka_unit_test(uet_nscc_rcv_fill__wraps_and_saturates),
		cmocka_unit_test(uet_nscc_rcv_overload__pend_and_restore),
		cmocka_unit_test(uet_nscc_rcv_fill__drives_the_sender),
		cmocka_unit_test(uet_nscc__four_flows_share_a_bottleneck),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
