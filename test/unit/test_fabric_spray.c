/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The fabric model and the load balancer together, in virtual time: a
 * minimal window-based transport (fixed window, no congestion control)
 * on 16 hosts of a 4-leaf / 4-spine fabric at 100 Gb/s, each host sending
 * 2 MB to a host on another leaf (a permutation). Receivers ACK every
 * packet on the packet's EV with M = its CE mark and NACK trimmed packets
 * (TRIMMED / TRIMMED_LASTHOP), which are retransmitted with the
 * trimmable-retransmit DSCP.
 *
 * What it shows: with a single path, flows collide on ECMP and the last
 * one finishes late; oblivious spraying and REPS spread every flow over
 * all spines and finish close to the line-rate time. Every packet is
 * delivered exactly once in every mode. Results are deterministic for a
 * seed, so they are asserted.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include <cmocka.h>

#include <uet/uet_cms.h>

#include "fabric_harness.h"

#define HOSTS 16
#define PKTS 512          /* 2 MiB of 4 KiB payloads per flow */
#define PAYLOAD 4096
/* Packets in flight per flow, about 1.1 BDP of each topology. */
#define WINDOW_LEAF_SPINE 32
#define WINDOW_FAT_TREE 48
#define RETX_MAX 1024
#define RTO_NS 100000     /* fixed retransmission timeout */
#define SCAN_NS 5000      /* how often timeouts are checked */

struct flow {
	uint32_t dst;
	uint32_t next_psn;
	uint32_t inflight;
	uint32_t acked;
	uint64_t done_at;
	uint32_t retx[RETX_MAX];
	uint32_t retx_head, retx_n;
	uint32_t sent, resent, timeouts;
	struct uet_cms_lb lb;
	uint64_t sent_at[PKTS];
	uint16_t ev_of[PKTS];
	uint8_t out[PKTS];     /* sent, no ACK/NACK/timeout yet */
	uint8_t acked_psn[PKTS];
	uint8_t got[PKTS];     /* receiver: copies of each PSN received */
};

struct sim {
	struct uet_fabric *fab;
	uint32_t window;
	int link;              /* leaf 0 - spine 0 */
	uint64_t link_lost;    /* frames lost on it so far */
	uint64_t last_loss_at; /* sample time its loss count last grew */
	struct uet_cms_lb_config lbc;
	struct flow flows[HOSTS];
	uint32_t dups;
	uint64_t trims_nacked;
};

static struct sim S;

static void
send_ctl(uint32_t from, uint32_t to, uint8_t type, uint8_t code, bool m,
	 uint32_t psn, uint16_t ev, uint64_t now)
{
	uint8_t f[256];
	struct uet_wire_pkt p;
	int len;

	if (type == UET_PDS_TYPE_ACK) {
		wfx_ack(&p, UET_PDS_TYPE_ACK, UET_PDS_NEXT_NONE,
			m ? UET_PDS_F_M : 0);
		p.pds.u.ack.ack_psn_offset = 0;
		p.pds.u.ack.cack_psn = psn;
	} else {
		wfx_base(&p, UET_PDS_TYPE_NACK, UET_PDS_NEXT_NONE,
			 m ? UET_PDS_F_M : 0);
		p.pds.u.nack.code = code;
		p.pds.u.nack.psn = psn;
		p.outer.dscp = 46;
	}
	p.outer.udp_sport = ev;
	uet_fabric_host_addr_get(S.fab, from, false, p.outer.src_addr);
	uet_fabric_host_addr_get(S.fab, to, false, p.outer.dst_addr);
	len = uet_wire_pkt_build(&p, NULL, 0, f, sizeof(f));
	assert_true(len > 0);
	assert_int_equal(uet_fabric_inject(S.fab, from, f, (uint32_t)len,
					   now), 0);
}

/* Send while the window allows: retransmissions first. */
static void
pump(uint32_t src, uint64_t now)
{
	struct flow *fl = &S.flows[src];
	uint8_t f[FH_FRAME_MAX];
	uint32_t psn;
	uint16_t ev;
	bool retx;
	int len;

	while (fl->inflight < S.window &&
	       (fl->retx_n > 0 || fl->next_psn < PKTS)) {
		retx = fl->retx_n > 0;
		if (retx) {
			psn = fl->retx[fl->retx_head];
			fl->retx_head = (fl->retx_head + 1) % RETX_MAX;
			fl->retx_n--;
			fl->resent++;
		} else {
			psn = fl->next_psn++;
		}
		ev = uet_cms_lb_next_ev(&fl->lb, &S.lbc, now,
					fl->inflight == 0);
		fl->sent_at[psn] = now;
		fl->ev_of[psn] = ev;
		fl->out[psn] = 1;
		len = fh_frame(S.fab, f, src, fl->dst, ev, retx ? 8 : 0, psn,
			       PAYLOAD);
		assert_true(len > 0);
		assert_int_equal(uet_fabric_inject(S.fab, src, f,
						   (uint32_t)len, now), 0);
		fl->inflight++;
		fl->sent++;
	}
}

static uint32_t
be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/* The fabric hands a frame to @p host: data to the receiver, ACK/NACK
 * to the sender (fixed offsets: Ethernet + IPv4 + UDP). */
static void
spray_deliver(void *arg, uint32_t host, const uint8_t *frame, uint32_t len,
	      uint64_t now)
{
	uint8_t dscp = frame[FH_IP_OFF + 1] >> 2;
	bool ce = (frame[FH_IP_OFF + 1] & 3) == 3;
	uint16_t ev = (uint16_t)(frame[FH_UDP_OFF] << 8 |
				 frame[FH_UDP_OFF + 1]);
	uint8_t type = frame[FH_PDS_OFF] >> 3;
	bool m = (frame[FH_PDS_OFF + 1] & UET_PDS_F_M) != 0;
	uint32_t psn = be32(frame + FH_PDS_OFF + 4), src;
	struct flow *fl;
	bool live;

	(void)arg;
	assert_true(len >= FH_PDS_OFF + 8);
	if (type == UET_PDS_TYPE_RUD_REQ) {
		for (src = 0; src < HOSTS && S.flows[src].dst != host; src++)
			;
		assert_true(src < HOSTS && psn < PKTS);
		if (dscp == 16 || dscp == 18) {
			S.trims_nacked++;
			send_ctl(host, src, UET_PDS_TYPE_NACK,
				 dscp == 16 ? UET_NACK_TRIMMED :
					      UET_NACK_TRIMMED_LASTHOP,
				 ce, psn, ev, now);
			return;
		}
		if (S.flows[src].got[psn]++ > 0)
			S.dups++;
		send_ctl(host, src, UET_PDS_TYPE_ACK, 0, ce, psn, ev, now);
		return;
	}
	fl = &S.flows[host];
	assert_true(psn < PKTS);
	/* a reply after a timeout already counted the packet as lost */
	live = fl->out[psn] != 0;
	if (live) {
		fl->out[psn] = 0;
		fl->inflight--;
	}
	if (type == UET_PDS_TYPE_ACK) {
		assert_int_equal(uet_cms_lb_on_ack(&fl->lb, &S.lbc, ev, m, now),
				 0);
		if (!fl->acked_psn[psn]) {
			fl->acked_psn[psn] = 1;
			if (++fl->acked == PKTS)
				fl->done_at = now;
		}
	} else {
		uint8_t code = frame[FH_PDS_OFF + 2];

		assert_int_equal(type, UET_PDS_TYPE_NACK);
		assert_int_equal(uet_cms_lb_on_nack(&fl->lb, &S.lbc, ev, true,
				code == UET_NACK_TRIMMED_LASTHOP, m, now), 0);
		if (live && !fl->acked_psn[psn]) {
			assert_true(fl->retx_n < RETX_MAX);
			fl->retx[(fl->retx_head + fl->retx_n++) % RETX_MAX] =
				psn;
		}
	}
	pump(host, now);
}

/* Packets without a reply for RTO_NS are lost: tell the load balancer
 * and retransmit them. */
static void
timeouts(uint64_t now)
{
	uint32_t h, p;

	for (h = 0; h < HOSTS; h++) {
		struct flow *fl = &S.flows[h];

		for (p = 0; p < PKTS; p++) {
			if (!fl->out[p] || fl->sent_at[p] + RTO_NS > now)
				continue;
			fl->out[p] = 0;
			fl->inflight--;
			fl->timeouts++;
			assert_int_equal(uet_cms_lb_on_loss(&fl->lb, &S.lbc,
							    fl->ev_of[p], now),
					 0);
			if (fl->acked_psn[p])
				continue;
			assert_true(fl->retx_n < RETX_MAX);
			fl->retx[(fl->retx_head + fl->retx_n++) % RETX_MAX] = p;
		}
		pump(h, now);
	}
}

static bool
all_done(void)
{
	uint32_t h;

	for (h = 0; h < HOSTS; h++)
		if (S.flows[h].acked < PKTS)
			return false;
	return true;
}

/* Virtual clock: jump to the next fabric event or timeout check. */
static void
drive(void)
{
	uint64_t t, scan = SCAN_NS;

	while (!all_done() || uet_fabric_next_event_time(S.fab) != UINT64_MAX) {
		assert_true(scan < 100 * RTO_NS); /* bounded */
		t = uet_fabric_next_event_time(S.fab);
		if (t > scan) {
			uet_fabric_advance(S.fab, scan);
			timeouts(scan);
			scan += SCAN_NS;
			continue;
		}
		uet_fabric_advance(S.fab, t);
	}
}

struct result {
	uint64_t last_loss_at;
	uint64_t first_done, last_done;
	uint64_t resent;
	uint64_t timeouts;
	uint64_t trims;
	uint64_t dups;
	uint64_t link_drops;
	uint64_t digest;
};

static uint64_t
link_drops(int link)
{
	struct uet_fabric_link_info li;
	struct uet_fabric_port_stats a, b;

	assert_int_equal(uet_fabric_link_info(S.fab, (uint32_t)link, &li), 0);
	assert_int_equal(uet_fabric_port_stats(S.fab, li.port[0], &a), 0);
	assert_int_equal(uet_fabric_port_stats(S.fab, li.port[1], &b), 0);
	return a.drops_link + b.drops_link;
}

/* Every microsecond: note when frames were last lost on the link. */
static void
watch_link(void *arg, const struct uet_fabric *fab, uint64_t now)
{
	uint64_t lost;

	(void)arg;
	(void)fab;
	lost = link_drops(S.link);
	if (lost != S.link_lost) {
		S.link_lost = lost;
		S.last_loss_at = now;
	}
}

/* @p fail_at: time the link leaf 0 - spine 0 fails (0: never); @p fat:
 * a K = 4 fat tree instead of 4 leaves and 4 spines. */
static void
run(enum uet_cms_lb_mode mode, uint64_t fail_at, bool fat,
    struct result *res)
{
	struct uet_fabric_config c;
	struct uet_fabric_stats fs;
	uint32_t h, p;
	int err = 0, link;

	memset(&S, 0, sizeof(S));
	uet_fabric_config_default(&c);
	c.mtu = PAYLOAD + 98; /* frames of 4 KiB of payload and headers */
	c.hosts = HOSTS;
	c.hosts_per_leaf = 4;
	c.spines = 4;
	if (fat) {
		c.topo = UET_FABRIC_TOPO_FAT_TREE;
		c.k = 4;
	}
	S.window = fat ? WINDOW_FAT_TREE : WINDOW_LEAF_SPINE;
	c.deliver = spray_deliver;
	c.sample = watch_link;
	c.sample_ns = 1000;
	c.seed = 3;
	S.fab = uet_fabric_create(&c, &err);
	assert_non_null(S.fab);
	uet_cms_lb_config_default(&S.lbc);
	S.lbc.mode = mode;
	for (h = 0; h < HOSTS; h++) {
		/* hosts 4i..4i+3 (a leaf, or a pod of the fat tree) send to
		 * the next four, shifted by one */
		S.flows[h].dst = (h + 4 + (h + 1) % 4 - h % 4) % HOSTS;
		uet_cms_lb_init(&S.flows[h].lb, &S.lbc, 1000 + h, false);
	}
	link = uet_fabric_link_find(S.fab, UET_FABRIC_TIER_LEAF, 0,
				    UET_FABRIC_TIER_SPINE, 0);
	assert_true(link >= 0);
	S.link = link;
	if (fail_at != 0)
		assert_int_equal(uet_fabric_link_schedule(S.fab, (uint32_t)link,
				fail_at, UET_FABRIC_LINK_FAIL, 0), 0);
	for (h = 0; h < HOSTS; h++)
		pump(h, 0);
	drive();
	memset(res, 0, sizeof(*res));
	res->first_done = UINT64_MAX;
	for (h = 0; h < HOSTS; h++) {
		struct flow *fl = &S.flows[h];

		/* every packet reached the receiver; the application would
		 * take the first copy of each */
		assert_int_equal(fl->acked, PKTS);
		for (p = 0; p < PKTS; p++)
			assert_true(S.flows[h].got[p] >= 1);
		if (fl->done_at < res->first_done)
			res->first_done = fl->done_at;
		if (fl->done_at > res->last_done)
			res->last_done = fl->done_at;
		res->resent += fl->resent;
		res->timeouts += fl->timeouts;
	}
	uet_fabric_stats_get(S.fab, &fs);
	assert_int_equal(fs.trims, S.trims_nacked);
	assert_int_equal(fs.frames_in_use, 0);
	res->trims = fs.trims;
	res->dups = S.dups;
	res->link_drops = link_drops(link);
	res->last_loss_at = S.last_loss_at;
	if (fail_at == 0) {
		/* no loss: nothing timed out, nothing arrived twice, every
		 * retransmission answered a trim */
		assert_int_equal(fs.drops, 0);
		assert_int_equal(res->timeouts, 0);
		assert_int_equal(S.dups, 0);
		assert_int_equal(res->resent, fs.trims);
	}
	res->digest = fs.events ^ fs.delivered_bytes << 20 ^ res->last_done;
	uet_fabric_free(S.fab);
	print_message("%s mode %u%s: first %.1f us, last %.1f us, trims %llu, "
		      "timeouts %llu, lost on the failed link %llu (last at "
		      "%.0f us), duplicates %llu, frames %llu, events %llu\n",
		      fat ? "fat tree" : "leaf/spine", mode,
		      fail_at ? " (link failure)" : "",
		      res->first_done / 1e3, res->last_done / 1e3,
		      (unsigned long long)res->trims,
		      (unsigned long long)res->timeouts,
		      (unsigned long long)res->link_drops,
		      res->last_loss_at / 1e3,
		      (unsigned long long)res->dups,
		      (unsigned long long)fs.delivered,
		      (unsigned long long)fs.events);
}

/* The time 2 MiB of 4 KiB frames take at 100 Gb/s on one link. */
static uint64_t
ideal_ns(void)
{
	uint64_t frame = PAYLOAD + 98 + 24;

	return PKTS * frame * 8 / 100;
}

static void
permutation__spraying_beats_single_path(void **state)
{
	struct result single, obl, reps, again;

	(void)state;
	run(UET_CMS_LB_SINGLE, 0, false, &single);
	run(UET_CMS_LB_OBLIVIOUS, 0, false, &obl);
	run(UET_CMS_LB_REPS, 0, false, &reps);
	/* ECMP collisions: some single-path flow shares a link and takes
	 * far longer than the line-rate time */
	assert_true(single.last_done > 3 * ideal_ns() / 2);
	/* spraying spreads the load: the last flow within 1.3x of ideal */
	assert_true(obl.last_done < 13 * ideal_ns() / 10);
	assert_true(reps.last_done < 13 * ideal_ns() / 10);
	assert_true(obl.last_done < single.last_done);
	/* deterministic in virtual time */
	run(UET_CMS_LB_REPS, 0, false, &again);
	assert_int_equal(again.digest, reps.digest);
	assert_int_equal(again.last_done, reps.last_done);
}

/* The link leaf 0 - spine 0 fails 50 us into the run and stays down:
 * every flow still completes; REPS stops using the dead path and loses
 * fewer packets to it than oblivious spraying, which keeps sending a
 * quarter of leaf 0's packets into it. */
static void
permutation__reps_steers_around_failed_link(void **state)
{
	struct result obl, reps;

	(void)state;
	run(UET_CMS_LB_OBLIVIOUS, 50000, false, &obl);
	run(UET_CMS_LB_REPS, 50000, false, &reps);
	assert_true(obl.link_drops > 0);
	assert_true(reps.link_drops < obl.link_drops);
	assert_true(reps.last_done < obl.last_done);
	/* losses are detected by the 100 us timeout; within one more
	 * timeout REPS no longer sends into the dead link */
	assert_true(reps.last_loss_at < 50000 + 2 * RTO_NS);
}

/* The same permutation across pods of a K = 4 fat tree (the shape of
 * UEC's reference scenario): two tiers of ECMP choices. */
static void
permutation_fat_tree__spraying_beats_single_path(void **state)
{
	struct result single, obl, reps;

	(void)state;
	run(UET_CMS_LB_SINGLE, 0, true, &single);
	run(UET_CMS_LB_OBLIVIOUS, 0, true, &obl);
	run(UET_CMS_LB_REPS, 0, true, &reps);
	assert_true(single.last_done > 3 * ideal_ns() / 2);
	assert_true(obl.last_done < 13 * ideal_ns() / 10);
	assert_true(reps.last_done < 13 * ideal_ns() / 10);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(permutation__spraying_beats_single_path),
		cmocka_unit_test(permutation__reps_steers_around_failed_link),
		cmocka_unit_test(permutation_fat_tree__spraying_beats_single_path),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
