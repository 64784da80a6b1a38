/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of src/fabric/fabric_port.c and fabric_frame.c: ECN marking
 * probabilities, trimming (bytes, DSCP, thresholds), strict priority of
 * the control queue, tail drop, random loss, backpressure and the frame
 * pool.
 *
 * Most tests use one leaf whose port to host 1 runs at 1 Gb/s while the
 * hosts send at 100 Gb/s: a burst from host 0 builds that queue one
 * frame per arrival (the first frame leaves only after ~100 arrivals),
 * so arrival k finds k frames queued. The plane BDP is set to 100 000 B
 * (100 Gb/s x 8 us) and frames are 1000 B.
 */

#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "fabric_harness.h"

#define FRAME 1000
#define PAYLOAD (FRAME - 98)

static struct fh H;

static void
config_small(struct uet_fabric_config *c)
{
	fh_config(c, &H);
	c->hosts = 8;
	c->hosts_per_leaf = 4;
	c->spines = 1;
	c->base_rtt_ns = 8000; /* BDP 100 000 B */
}

/* Slow the link between @p host and its leaf to 1 Gb/s. */
static void
slow_host_link(struct uet_fabric *fab, uint32_t host, uint32_t leaf)
{
	int l = uet_fabric_link_find(fab, UET_FABRIC_TIER_HOST, host,
				     UET_FABRIC_TIER_LEAF, leaf);

	assert_true(l >= 0);
	assert_int_equal(uet_fabric_link_set(fab, (uint32_t)l, 1000000000,
					     1000, 0), 0);
}

static void
burst(struct uet_fabric *fab, uint32_t src, uint32_t dst, uint32_t n,
      uint8_t dscp, uint32_t psn0)
{
	uint8_t f[FH_FRAME_MAX];
	uint32_t i;
	int len;

	for (i = 0; i < n; i++) {
		len = fh_frame(fab, f, src, dst, (uint16_t)(1000 + i), dscp,
			       psn0 + i, PAYLOAD);
		assert_int_equal(len, FRAME);
		assert_int_equal(uet_fabric_inject(fab, src, f, FRAME,
						   uet_fabric_now(fab)), 0);
	}
}

static struct uet_fabric_port_stats
pstats(const struct uet_fabric *fab, uint32_t port)
{
	struct uet_fabric_port_stats s;

	assert_int_equal(uet_fabric_port_stats(fab, port, &s), 0);
	return s;
}

static double
mark_p(uint32_t k)
{
	double occ = (double)k * FRAME;

	if (occ <= 20000)
		return 0;
	if (occ >= 80000)
		return 1;
	return (occ - 20000) / 60000;
}

/* Marks rise linearly from 0.2 to 0.8 BDP: none at or below 0.2, all
 * from 0.8, and in between counts within 5 sigma of the expectation. */
static void
fabric_ecn_maybe_mark__probability_between_thresholds(void **state)
{
	enum { ROUNDS = 40, BURST = 95 };
	struct uet_fabric_config c;
	struct uet_fabric *fab;
	uint32_t marks[BURST] = { 0 }, r, i, k, total = 0, bin;
	uint32_t port;

	(void)state;
	config_small(&c);
	fab = fh_make(&H, &c);
	slow_host_link(fab, 1, 0);
	port = fh_port(fab, UET_FABRIC_TIER_LEAF, 0, UET_FABRIC_TIER_HOST, 1);
	for (r = 0; r < ROUNDS; r++) {
		H.n = 0;
		burst(fab, 0, 1, BURST, 0, 0);
		fh_run(fab, UINT64_MAX);
		assert_int_equal(H.n, BURST);
		for (i = 0; i < H.n; i++)
			if ((H.log[i].tos & 3) == 3)
				marks[H.log[i].psn]++;
	}
	for (k = 0; k < BURST; k++) {
		total += marks[k];
		if (k <= 20)
			assert_int_equal(marks[k], 0);
		if (k >= 80)
			assert_int_equal(marks[k], ROUNDS);
	}
	for (bin = 20; bin < 80; bin += 20) {
		double mean = 0, var = 0;
		uint32_t got = 0;

		for (k = bin; k < bin + 20; k++) {
			mean += ROUNDS * mark_p(k);
			var += ROUNDS * mark_p(k) * (1 - mark_p(k));
			got += marks[k];
		}
		assert_true(fabs(got - mean) <= 5 * sqrt(var) + 1);
	}
	assert_int_equal(pstats(fab, port).marks, total);
	assert_int_equal(pstats(fab, port).trims, 0);
	uet_fabric_free(fab);
}

/* RFC 791 checksum over an IPv4 header: 0 when valid. */
static uint16_t
ip_csum_fold(const uint8_t *ip, unsigned int hlen)
{
	uint32_t sum = 0;
	unsigned int i;

	for (i = 0; i < hlen; i += 2)
		sum += (uint32_t)(ip[i] << 8 | ip[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xFFFF) + (sum >> 16);
	return (uint16_t)~sum;
}

/*
 * The receive side of a switch trim: without trim DSCPs a parser sees a
 * frame shorter than its UDP length (TRUNCATED in the UDP layer); with the
 * trim DSCP it parses as trimmed, through the PDS header and no further.
 */
static void
fh_check_parsed_trimmed(const uint8_t *frame, size_t len, uint8_t dscp)
{
	struct uet_wire_outer_opts o = { .trim_dscps = UET_OUTER_DSCP_BIT(dscp) };
	struct uet_wire_pkt p;

	assert_int_equal(uet_wire_pkt_parse(frame, len, &p),
			 -UET_WIRE_E_TRUNCATED);
	assert_int_equal(p.err_layer, UET_PKT_LAYER_UDP);
	assert_int_equal(uet_wire_pkt_parse_ex(frame, len, &o, &p), 0);
	assert_true(p.outer.trimmed);
}

/* Over 1 BDP the frame is cut after the PDS header (24 bytes of IP
 * payload here: UDP 8 + PDS 12 + 4), re-marked TRIMMED_LASTHOP on the
 * port to the host, IP length and checksum fixed, UDP untouched; it
 * overtakes the queued data in the control queue. */
static void
fabric_frame_trim__bytes_on_last_hop(void **state)
{
	struct uet_fabric_config c;
	struct uet_fabric *fab;
	uint8_t orig[FH_FRAME_MAX];
	struct uet_fabric_port_stats s;
	uint32_t i, trimmed = 0, first = UINT32_MAX, first_idx = 0;

	(void)state;
	config_small(&c);
	fab = fh_make(&H, &c);
	H.cap_dscp = c.dscp.trimmed_lasthop;
	slow_host_link(fab, 1, 0);
	burst(fab, 0, 1, 130, 0, 0);
	fh_run(fab, UINT64_MAX);
	assert_int_equal(H.n, 130);
	for (i = 0; i < H.n; i++) {
		if (H.log[i].tos >> 2 != c.dscp.trimmed_lasthop)
			continue;
		trimmed++;
		assert_int_equal(H.log[i].len, 14 + 20 + 24);
		if (first == UINT32_MAX) {
			first = H.log[i].psn;
			first_idx = i;
		}
	}
	s = pstats(fab, fh_port(fab, UET_FABRIC_TIER_LEAF, 0,
				UET_FABRIC_TIER_HOST, 1));
	assert_int_equal(s.trims, trimmed);
	assert_in_range(trimmed, 25, 35);
	assert_true(s.data_max <= 100000);
	/* the first trimmed frame overtook the data queued before it */
	assert_true(first_idx < first);

	assert_int_equal(H.cap_psn, first);
	assert_int_equal(fh_frame(fab, orig, 0, 1, (uint16_t)(1000 + first),
				  0, first, PAYLOAD), FRAME);
	assert_int_equal(H.cap_len, 58);
	assert_memory_equal(H.cap, orig, 14);              /* Ethernet */
	assert_int_equal(H.cap[14], orig[14]);              /* v4, IHL */
	assert_int_equal(H.cap[15], c.dscp.trimmed_lasthop << 2 | 3);
	assert_int_equal(H.cap[16] << 8 | H.cap[17], 44);  /* IP length */
	assert_memory_equal(H.cap + 18, orig + 18, 6);     /* id .. proto */
	assert_memory_not_equal(H.cap + 24, orig + 24, 2); /* checksum */
	assert_int_equal(ip_csum_fold(H.cap + 14, 20), 0);
	assert_memory_equal(H.cap + 26, orig + 26, 8);     /* addresses */
	/* UDP header unchanged: length still 966, checksum as sent */
	assert_memory_equal(H.cap + 34, orig + 34, 8);
	assert_int_equal(H.cap[38] << 8 | H.cap[39], FRAME - 34);
	/* PDS header and the first SES bytes kept */
	assert_memory_equal(H.cap + 42, orig + 42, 16);
	fh_check_parsed_trimmed(H.cap, H.cap_len, c.dscp.trimmed_lasthop);
	uet_fabric_free(fab);
}

/* Congestion on a leaf uplink trims with DSCP TRIMMED (not last hop);
 * the trimmed frame crosses the rest of the path unchanged. */
static void
fabric_frame_trim__not_last_hop_dscp(void **state)
{
	struct uet_fabric_config c;
	struct uet_fabric *fab;
	uint32_t i, trimmed = 0;
	int l;

	(void)state;
	config_small(&c);
	fab = fh_make(&H, &c);
	l = uet_fabric_link_find(fab, UET_FABRIC_TIER_LEAF, 0,
				 UET_FABRIC_TIER_SPINE, 0);
	assert_int_equal(uet_fabric_link_set(fab, (uint32_t)l, 1000000000,
					     1000, 0), 0);
	burst(fab, 0, 4, 130, 0, 0);
	fh_run(fab, UINT64_MAX);
	assert_int_equal(H.per_host[4], 130);
	for (i = 0; i < H.n; i++) {
		assert_true(H.log[i].tos >> 2 != c.dscp.trimmed_lasthop);
		if (H.log[i].tos >> 2 == c.dscp.trimmed) {
			assert_int_equal(H.log[i].len, 58);
			trimmed++;
		}
	}
	assert_in_range(trimmed, 25, 35);
	assert_int_equal(pstats(fab, fh_port(fab, UET_FABRIC_TIER_LEAF, 0,
					     UET_FABRIC_TIER_SPINE, 0)).trims,
			 trimmed);
	uet_fabric_free(fab);
}

/* The trimmable-retransmit DSCP is trimmed at 1.5 BDP, not 1. */
static void
fabric_data_admit__retx_dscp_trims_later(void **state)
{
	struct uet_fabric_config c;
	struct uet_fabric *fab;
	uint32_t port;

	(void)state;
	config_small(&c);
	fab = fh_make(&H, &c);
	slow_host_link(fab, 1, 0);
	port = fh_port(fab, UET_FABRIC_TIER_LEAF, 0, UET_FABRIC_TIER_HOST, 1);
	burst(fab, 0, 1, 140, c.dscp.trimmable_retx, 0);
	fh_run(fab, UINT64_MAX);
	assert_int_equal(pstats(fab, port).trims, 0);
	assert_true(pstats(fab, port).data_max > 130000);
	burst(fab, 0, 1, 160, c.dscp.trimmable_retx, 0);
	fh_run(fab, UINT64_MAX);
	assert_in_range(pstats(fab, port).trims, 5, 15);
	uet_fabric_free(fab);
}

/* IPv6: the payload length is rewritten (no header checksum), DSCP and
 * ECN sit in the traffic class; the UDP checksum stays as sent. A marked
 * but untrimmed frame still parses (ECN is outside the checksum). */
static void
fabric_frame_trim__ipv6(void **state)
{
	struct uet_fabric_config c;
	struct uet_fabric *fab;
	uint8_t orig[FH_FRAME_MAX];
	struct uet_wire_pkt p;
	uint32_t i, tc;
	int len = 0;

	(void)state;
	config_small(&c);
	fab = fh_make(&H, &c);
	H.cap_short = 200;
	slow_host_link(fab, 1, 0);
	for (i = 0; i < 130; i++) {
		len = fh_frame_ex(fab, orig, 0, 1, 77, i, 1000 - 118, true,
				  false);
		assert_int_equal(len, FRAME);
		assert_int_equal(uet_fabric_inject(fab, 0, orig, FRAME, 0), 0);
	}
	fh_run(fab, UINT64_MAX);
	assert_int_equal(H.total, 130);
	assert_int_equal(H.cap_len, 14 + 40 + 24);
	/* the last delivery is a whole, marked data frame */
	assert_int_equal(H.last_len, FRAME);
	assert_int_equal(uet_wire_pkt_parse(H.last, H.last_len, &p), 0);
	assert_int_equal(p.outer.ecn, UET_ECN_CE);
	assert_int_not_equal(p.outer.udp_csum, 0);
	/* the trimmed one, against a rebuild of its original */
	assert_int_equal(fh_frame_ex(fab, orig, 0, 1, 77,
				     H.cap[62 + 4] << 24 | H.cap[62 + 5] << 16 |
				     H.cap[62 + 6] << 8 | H.cap[62 + 7],
				     1000 - 118, true, false), FRAME);
	tc = (uint32_t)(H.cap[14] & 0x0F) << 4 | H.cap[15] >> 4;
	assert_int_equal(H.cap[14] >> 4, 6);
	assert_int_equal(tc, (uint32_t)c.dscp.trimmed_lasthop << 2 | 3);
	assert_int_equal(H.cap[15] & 0x0F, orig[15] & 0x0F); /* flow label */
	assert_int_equal(H.cap[18] << 8 | H.cap[19], 24);    /* payload len */
	assert_memory_equal(H.cap + 20, orig + 20, 34);     /* nh .. dst */
	assert_memory_equal(H.cap + 54, orig + 54, 24);     /* UDP + PDS */
	fh_check_parsed_trimmed(H.cap, H.cap_len, c.dscp.trimmed_lasthop);
	uet_fabric_free(fab);
}

/* Raw-IP framing (no Ethernet header): routed and trimmed the same. */
static void
fabric_frame_parse__raw_ip(void **state)
{
	struct uet_fabric_config c;
	struct uet_fabric *fab;
	uint8_t f[FH_FRAME_MAX];
	uint32_t i;

	(void)state;
	config_small(&c);
	c.raw_ip = true;
	fab = fh_make(&H, &c);
	H.cap_short = 100;
	slow_host_link(fab, 1, 0);
	for (i = 0; i < 130; i++) {
		assert_int_equal(fh_frame_ex(fab, f, 0, 1, 5, i, 1000 - 84,
					     false, true), FRAME);
		assert_int_equal(uet_fabric_inject(fab, 0, f, FRAME, 0), 0);
	}
	fh_run(fab, UINT64_MAX);
	assert_int_equal(H.total, 130);
	assert_int_equal(H.cap_len, 20 + 24);
	assert_int_equal(H.cap[1] >> 2, c.dscp.trimmed_lasthop);
	assert_int_equal(H.cap[2] << 8 | H.cap[3], 44);
	assert_int_equal(ip_csum_fold(H.cap, 20), 0);
	/* UDP length still the original 1000 - 20 */
	assert_int_equal(H.cap[24] << 8 | H.cap[25], 980);
	uet_fabric_free(fab);
}

/* A control frame waits only for the frame being serialised. */
static void
fabric_port_start__control_queue_strict_priority(void **state)
{
	struct uet_fabric_config c;
	struct uet_fabric *fab;
	uint8_t f[FH_FRAME_MAX];
	int len;

	(void)state;
	config_small(&c);
	fab = fh_make(&H, &c);
	slow_host_link(fab, 1, 0);
	burst(fab, 0, 1, 10, 0, 0);
	fh_run(fab, 3000); /* all ten queued at the leaf, one in service */
	assert_int_equal(H.n, 0);
	len = fh_frame(fab, f, 2, 1, 7, c.dscp.control, 500, 0);
	assert_true(len > 0);
	assert_int_equal(uet_fabric_inject(fab, 2, f, (uint32_t)len, 3000), 0);
	fh_run(fab, UINT64_MAX);
	assert_int_equal(H.n, 11);
	assert_int_equal(H.log[0].psn, 0);
	assert_int_equal(H.log[1].psn, 500);
	assert_int_equal(H.log[1].tos >> 2, c.dscp.control);
	assert_int_equal(H.log[2].psn, 1);
	assert_int_equal(pstats(fab, fh_port(fab, UET_FABRIC_TIER_LEAF, 0,
					     UET_FABRIC_TIER_HOST, 1))
			 .control_frames, 1);
	uet_fabric_free(fab);
}

/* The control queue has its own tail-drop limit (here 1 % of the BDP,
 * 1000 bytes). */
static void
fabric_port_enqueue__control_queue_tail_drop(void **state)
{
	struct uet_fabric_config c;
	struct uet_fabric *fab;
	struct uet_fabric_port_stats s;
	uint8_t f[FH_FRAME_MAX];
	uint32_t i;
	int len = 0;

	(void)state;
	config_small(&c);
	c.control_drop_milli = 10;
	fab = fh_make(&H, &c);
	slow_host_link(fab, 1, 0);
	for (i = 0; i < 10; i++) {
		len = fh_frame(fab, f, 0, 1, 3, c.dscp.control, i, 102);
		assert_int_equal(len, 200);
		assert_int_equal(uet_fabric_inject(fab, 0, f, 200, 0), 0);
	}
	fh_run(fab, UINT64_MAX);
	s = pstats(fab, fh_port(fab, UET_FABRIC_TIER_LEAF, 0,
				UET_FABRIC_TIER_HOST, 1));
	/* 5 fit (the first one is being serialised, still counted) */
	assert_int_equal(s.drops_tail, 5);
	assert_int_equal(H.total, 5);
	assert_int_equal(s.control_max, 1000);
	assert_int_equal(s.samples, 0); /* no data-queue arrivals */
	uet_fabric_free(fab);
}

/* Trimming off: the queue is capped at drop_milli of the BDP and every
 * frame is either delivered whole or counted as a tail drop. */
static void
fabric_data_admit__tail_drop_without_trimming(void **state)
{
	struct uet_fabric_config c;
	struct uet_fabric *fab;
	struct uet_fabric_port_stats s;
	struct uet_fabric_stats fs;
	uint32_t i, ce;

	(void)state;
	config_small(&c);
	c.trimming = false;
	c.drop_milli = 2000;
	fab = fh_make(&H, &c);
	slow_host_link(fab, 1, 0);
	burst(fab, 0, 1, 300, 0, 0);
	fh_run(fab, UINT64_MAX);
	s = pstats(fab, fh_port(fab, UET_FABRIC_TIER_LEAF, 0,
				UET_FABRIC_TIER_HOST, 1));
	assert_int_equal(s.trims, 0);
	assert_true(s.drops_tail > 90);
	assert_int_equal(H.n + s.drops_tail, 300);
	assert_true(s.data_max <= 200000);
	assert_true(s.data_max > 190000);
	for (i = 0, ce = 0; i < H.n; i++) {
		assert_int_equal(H.log[i].len, FRAME);
		ce += (H.log[i].tos & 3) == 3;
	}
	/* dropped frames are not counted as marked */
	assert_true(ce > 100);
	assert_int_equal(s.marks, ce);
	uet_fabric_stats_get(fab, &fs);
	assert_int_equal(fs.drops, s.drops_tail);
	assert_int_equal(fs.frames_in_use, 0);
	/* occupancy percentiles from the arrival histogram: arrival k of the
	 * first 200 finds ~k frames, the last ~100 find a full queue */
	assert_true(s.data_p50 >= 140000 && s.data_p50 <= 160000);
	assert_true(s.data_p99 >= 190000 && s.data_p99 <= s.data_max);
	uet_fabric_free(fab);
}

/* Non-UET traffic over the trim threshold cannot be trimmed: dropped. */
static void
fabric_data_admit__non_uet_dropped_not_trimmed(void **state)
{
	struct uet_fabric_config c;
	struct uet_fabric *fab;
	uint8_t f[FH_FRAME_MAX];
	struct uet_fabric_port_stats s;
	uint32_t i;

	(void)state;
	config_small(&c);
	fab = fh_make(&H, &c);
	slow_host_link(fab, 1, 0);
	for (i = 0; i < 130; i++) {
		assert_int_equal(fh_frame(fab, f, 0, 1, 9, 0, i, PAYLOAD),
				 FRAME);
		f[36] = 0x13; /* UDP destination port 5000, checksum 0 */
		f[37] = 0x88;
		assert_int_equal(uet_fabric_inject(fab, 0, f, FRAME, 0), 0);
	}
	fh_run(fab, UINT64_MAX);
	s = pstats(fab, fh_port(fab, UET_FABRIC_TIER_LEAF, 0,
				UET_FABRIC_TIER_HOST, 1));
	assert_int_equal(s.trims, 0);
	assert_in_range(s.drops_untrimmable, 25, 35);
	assert_int_equal(H.n + s.drops_untrimmable, 130);
	uet_fabric_free(fab);
}

/* Seeded random loss: about 10 % per link over 4 links. */
static void
fabric_port_tx_done__random_loss(void **state)
{
	struct uet_fabric_config c;
	struct uet_fabric *fab;
	uint8_t f[FH_FRAME_MAX];
	struct uet_fabric_stats fs;
	uint32_t i;

	(void)state;
	config_small(&c);
	c.loss_ppm = 100000;
	fab = fh_make(&H, &c);
	for (i = 0; i < 2000; i++) {
		assert_int_equal(fh_frame(fab, f, 0, 4, (uint16_t)i, 0, i, 100),
				 198);
		assert_int_equal(uet_fabric_inject(fab, 0, f, 198,
						   uet_fabric_now(fab)), 0);
		fh_run(fab, UINT64_MAX);
	}
	uet_fabric_stats_get(fab, &fs);
	/* 2000 x 0.9^4 = 1312, sd 21 */
	assert_in_range(H.total, 1312 - 105, 1312 + 105);
	assert_int_equal(fs.drops + H.total, 2000);
	assert_int_equal(fs.delivered, H.total);
	uet_fabric_free(fab);
}

/* A full host queue and an empty pool refuse frames without taking
 * them; both recover once the fabric drains. */
static void
uet_fabric_inject__backpressure_and_pool(void **state)
{
	struct uet_fabric_config c;
	struct uet_fabric *fab;
	uint8_t f[FH_FRAME_MAX];
	struct uet_fabric_stats fs;

	(void)state;
	config_small(&c);
	c.host_queue_bytes = 2500;
	c.mtu = 2000;
	c.frame_pool = 3;
	fab = fh_make(&H, &c);
	assert_int_equal(fh_frame(fab, f, 0, 1, 1, 0, 0, PAYLOAD), FRAME);
	assert_int_equal(uet_fabric_inject(fab, 0, f, FRAME, 0), 0);
	assert_int_equal(uet_fabric_inject(fab, 0, f, FRAME, 0), 0);
	assert_int_equal(uet_fabric_inject(fab, 0, f, FRAME, 0), -ENOBUFS);
	assert_int_equal(uet_fabric_inject(fab, 2, f, FRAME, 0), 0);
	assert_int_equal(uet_fabric_inject(fab, 3, f, FRAME, 0), -ENOBUFS);
	uet_fabric_stats_get(fab, &fs);
	assert_int_equal(fs.host_full, 1);
	assert_int_equal(fs.pool_empty, 1);
	assert_int_equal(fs.frames_in_use, 3);
	fh_run(fab, UINT64_MAX);
	assert_int_equal(H.total, 3);
	assert_int_equal(uet_fabric_inject(fab, 0, f, FRAME, 0), 0);
	assert_int_equal(uet_fabric_inject(fab, 0, f, 2001, 0), -EINVAL);
	assert_int_equal(uet_fabric_inject(fab, 0, f, 0, 0), -EINVAL);
	assert_int_equal(uet_fabric_inject(fab, 8, f, FRAME, 0), -EINVAL);
	fh_run(fab, UINT64_MAX);
	uet_fabric_stats_get(fab, &fs);
	assert_int_equal(fs.frames_in_use, 0);
	assert_int_equal(fs.frames_max, 3);
	uet_fabric_free(fab);
}

/* Frames the fabric cannot route are taken and counted, not delivered. */
static void
uet_fabric_inject__bad_and_unroutable_frames(void **state)
{
	struct uet_fabric_config c;
	struct uet_fabric *fab;
	uint8_t f[FH_FRAME_MAX], addr[16] = { 192, 168, 0, 1 };
	struct uet_fabric_stats fs;

	(void)state;
	config_small(&c);
	fab = fh_make(&H, &c);
	assert_int_equal(fh_frame(fab, f, 0, 1, 1, 0, 0, 100), 198);
	f[12] = 0x08; /* ARP */
	f[13] = 0x06;
	assert_int_equal(uet_fabric_inject(fab, 0, f, 198, 0), 0);
	assert_int_equal(fh_frame(fab, f, 0, 1, 1, 0, 0, 100), 198);
	f[24] ^= 0xFF; /* IPv4 header checksum */
	assert_int_equal(uet_fabric_inject(fab, 0, f, 198, 0), 0);
	assert_int_equal(fh_frame(fab, f, 0, 1, 1, 0, 0, 100), 198);
	f[33] = 99; /* 10.0.0.99: nobody */
	f[24] = 0;
	f[25] = 0;
	/* keep the checksum right: recompute over the header */
	{
		uint16_t cs = ip_csum_fold(f + 14, 20);

		f[24] = (uint8_t)(cs >> 8);
		f[25] = (uint8_t)cs;
	}
	assert_int_equal(uet_fabric_inject(fab, 0, f, 198, 0), 0);
	fh_run(fab, UINT64_MAX);
	uet_fabric_stats_get(fab, &fs);
	assert_int_equal(fs.bad_frame, 2);
	assert_int_equal(fs.no_route, 1);
	assert_int_equal(fs.injected, 0);
	assert_int_equal(H.total, 0);
	assert_int_equal(fs.frames_in_use, 0);
	/* the address can be given to host 3, then the frame routes */
	assert_int_equal(uet_fabric_host_addr_set(fab, 3,
			(const uint8_t[16]){ 10, 0, 0, 99 }), 0);
	assert_int_equal(uet_fabric_inject(fab, 0, f, 198, 0), 0);
	fh_run(fab, UINT64_MAX);
	assert_int_equal(H.per_host[3], 1);
	assert_int_equal(uet_fabric_host_addr_set(fab, 2,
			(const uint8_t[16]){ 10, 0, 0, 99 }), -EEXIST);
	assert_int_equal(uet_fabric_host_addr_set(fab, 9, addr), -EINVAL);
	uet_fabric_free(fab);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fabric_ecn_maybe_mark__probability_between_thresholds),
		cmocka_unit_test(fabric_frame_trim__bytes_on_last_hop),
		cmocka_unit_test(fabric_frame_trim__not_last_hop_dscp),
		cmocka_unit_test(fabric_data_admit__retx_dscp_trims_later),
		cmocka_unit_test(fabric_frame_trim__ipv6),
		cmocka_unit_test(fabric_frame_parse__raw_ip),
		cmocka_unit_test(fabric_port_start__control_queue_strict_priority),
		cmocka_unit_test(fabric_port_enqueue__control_queue_tail_drop),
		cmocka_unit_test(fabric_data_admit__tail_drop_without_trimming),
		cmocka_unit_test(fabric_data_admit__non_uet_dropped_not_trimmed),
		cmocka_unit_test(fabric_port_tx_done__random_loss),
		cmocka_unit_test(uet_fabric_inject__backpressure_and_pool),
		cmocka_unit_test(uet_fabric_inject__bad_and_unroutable_frames),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
