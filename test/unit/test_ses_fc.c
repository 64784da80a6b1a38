/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SES flow control and failure propagation over the fake lossy wire
 * (ses_fakewire.c): deliveries refused with resource NACKs when the
 * unexpected store or the target records run out (the sender backs off
 * and succeeds once receives are posted), PDC_DOWN failing what the SES
 * still waits for, rendezvous read-back failures reported to the sender
 * (MSG_ERROR), and small READ / WRITE over RUDI with their responses in
 * the RUDI_RESP. The seed is printed; UET_TEST_SEED= replays.
 */

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <uet/uet_ses.h>

#include "ses_fakewire.h"

#define RUN_NS (2000ull * 1000 * 1000) /* 2 s of fake time */
#define NMSG 64
#define SLOT 4096

static uint64_t seed = 0xfc5e5ull;
static struct sfw w;
static uint8_t *sbuf, *rbuf;

static void
lossy(uint32_t drop)
{
	int d;

	for (d = 0; d < 2; d++) {
		w.f[d].drop = drop;
		w.f[d].dup = 20000;     /* 2% */
		w.f[d].reorder = 100000; /* 10% */
	}
}

static int
start(const struct ses_fakewire_opts *o)
{
	if (ses_fakewire_init_opts(&w, UET_PROFILE_HPC, seed, o) != 0)
		return -1;
	sbuf = calloc(NMSG, SLOT);
	rbuf = calloc(NMSG, SLOT);
	return sbuf == NULL || rbuf == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
	(void)state;
	ses_fakewire_fini(&w);
	free(sbuf);
	free(rbuf);
	return 0;
}

static const struct uet_ses_cqe *
cqe(int node, uint64_t ctx)
{
	const struct uet_ses_cqe *c = ses_fakewire_cqe(&w, node, ctx);

	assert_non_null(c);
	return c;
}

static void
post_tagged(int node, uint64_t ctx, void *buf, uint64_t len, uint64_t tag)
{
	struct uet_ses_recv r;

	memset(&r, 0, sizeof(r));
	r.op = 2;
	r.context = ctx;
	r.buf = buf;
	r.len = len;
	r.tag = tag;
	assert_int_equal(uet_ses_recv_post(w.n[node].ses, &r, w.now), 0);
}

static const struct uet_ses_stats *
sst(int node)
{
	return uet_ses_stats_get(w.n[node].ses);
}

static const struct uet_pds_stats *
pst(int node)
{
	return uet_pds_stats_get(w.n[node].pds);
}

/* Message i: length 1 .. ~3 MTU, tag 1000 + i. */
static uint32_t
msg_len(uint32_t i)
{
	return 1 + (i * 797u) % 3200u;
}

static void
send_all(uint32_t flags)
{
	struct uet_ses_wr wr;
	uint32_t i;

	for (i = 0; i < NMSG; i++) {
		ses_fakewire_fill(sbuf + i * SLOT, msg_len(i), i + 1);
		ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_TSEND, sbuf + i * SLOT,
		       msg_len(i));
		wr.tag = 1000 + i;
		wr.context = i + 1;
		wr.flags |= flags;
		assert_int_equal(uet_ses_submit(w.n[0].ses, &wr, NULL), 0);
	}
}

/* Every message once, byte-exact, in its own receive; every send OK. */
static void
check_all(void)
{
	const struct uet_ses_cqe *c;
	uint32_t i;

	if (!ses_fakewire_run_cq(&w, 1, NMSG, 4 * RUN_NS) ||
	    !ses_fakewire_run_cq(&w, 0, NMSG, 4 * RUN_NS)) {
		print_error("cq %u/%u refused %llu/%llu/%llu pdc_fail %llu "
			    "rx_rc ok %llu undeliv %llu no_match %llu\n",
			    w.n[0].ncq, w.n[1].ncq,
			    (unsigned long long)sst(1)->refused_unexp,
			    (unsigned long long)sst(1)->refused_rec,
			    (unsigned long long)sst(1)->refused_res,
			    (unsigned long long)pst(0)->pdc_fail,
			    (unsigned long long)sst(1)->rx_rc[UET_RC_OK],
			    (unsigned long long)sst(1)->rx_rc[UET_RC_UNDELIVERABLE],
			    (unsigned long long)sst(1)->rx_rc[UET_RC_NO_MATCH]);
		for (i = 0; i < w.n[0].ncq; i++)
			if (w.n[0].cq[i].status != 0)
				print_error("send %llu: %d\n",
					    (unsigned long long)
					    w.n[0].cq[i].context,
					    w.n[0].cq[i].status);
		fail();
	}
	for (i = 0; i < NMSG; i++) {
		c = cqe(0, i + 1);
		if (c->status != 0)
			print_error("send %u: %d rc %u\n", i, c->status,
				    c->prov_errno);
		assert_int_equal(c->status, 0);
		assert_int_equal(ses_fakewire_cq_count(&w, 0, i + 1), 1);
		c = cqe(1, 5000 + i);
		assert_int_equal(c->status, 0);
		assert_int_equal(c->len, msg_len(i));
		assert_int_equal(c->tag, 1000 + i);
		assert_int_equal(ses_fakewire_cq_count(&w, 1, 5000 + i), 1);
		assert_memory_equal(rbuf + i * SLOT, sbuf + i * SLOT,
				    msg_len(i));
		assert_int_equal(rbuf[i * SLOT + msg_len(i)], 0);
	}
	assert_int_equal(w.n[0].ncq, NMSG);
	assert_int_equal(w.n[1].ncq, NMSG);
	assert_true(ses_fakewire_run_idle(&w, RUN_NS));
}

/* Post the receives in a scrambled order, a few per 100 us of fake time,
 * while the senders are backing off. */
static void
post_all_slowly(void)
{
	uint32_t i, k;

	for (i = 0; i < NMSG; i++) {
		k = (i * 37u + 11u) % NMSG; /* 37 is prime to 64 */
		post_tagged(1, 5000 + k, rbuf + k * SLOT, SLOT, 1000 + k);
		ses_fakewire_step(&w, 25000);
	}
}

/* ---- 1. unexpected-list flow control ---- */

static void
fc__unexpected_bound(void **state)
{
	struct ses_fakewire_opts o;
	uint32_t i;

	(void)state;
	memset(&o, 0, sizeof(o));
	o.unexp_max = 4;    /* 4 unexpected messages ... */
	o.unexp_chunks = 6; /* ... and 6 KiB of their data */
	assert_int_equal(start(&o), 0);
	lossy(50000);
	send_all(0);
	/* No receive yet: the store fills, then everything is refused. */
	for (i = 0; i < 400 && sst(1)->refused_unexp < 2 * NMSG; i++)
		ses_fakewire_step(&w, 10000);
	assert_true(sst(1)->refused_unexp >= 2 * NMSG);
	assert_true(pst(0)->nack_rx[UET_NACK_NO_SES_MSG_AVAIL] > 0);
	assert_int_equal(sst(1)->unexp_drop, 0);
	/* Only the messages the store took are answered (OK, OVERFLOW). */
	assert_true(w.n[0].ncq <= o.unexp_max);
	for (i = 0; i < w.n[0].ncq; i++)
		assert_int_equal(w.n[0].cq[i].status, 0);
	post_all_slowly();
	check_all();
	/* The refused went again when their back-off ended (counted as they
	 * left, so not necessarily by the time the refusals were seen). */
	assert_true(pst(0)->retx_backoff > 0);
	assert_int_equal(sst(1)->unexp_drop, 0);
	assert_int_equal(sst(1)->rx_rc[UET_RC_NO_MATCH], 0);
	print_message("# refused %llu deliveries, %llu back-off retransmits\n",
		      (unsigned long long)sst(1)->refused_unexp,
		      (unsigned long long)pst(0)->retx_backoff);
}

/* Same under ROD: in-order delivery survives refusals. */
static void
fc__unexpected_bound_rod(void **state)
{
	struct ses_fakewire_opts o;
	uint32_t i;

	(void)state;
	memset(&o, 0, sizeof(o));
	o.unexp_max = 2;
	o.unexp_chunks = 4;
	assert_int_equal(start(&o), 0);
	lossy(20000);
	send_all(UET_SES_WR_F_ORDERED);
	for (i = 0; i < 400 && sst(1)->refused_unexp == 0; i++)
		ses_fakewire_step(&w, 10000);
	assert_true(sst(1)->refused_unexp > 0);
	post_all_slowly();
	check_all();
}

/* Receives posted, but only 2 reassembly records: multi-packet messages
 * beyond them are refused and retried, none is answered UNDELIVERABLE. */
static void
fc__target_records(void **state)
{
	struct ses_fakewire_opts o;
	uint32_t i;

	(void)state;
	memset(&o, 0, sizeof(o));
	o.max_tgt_msgs = 4;
	assert_int_equal(start(&o), 0);
	lossy(20000);
	for (i = 0; i < NMSG; i++)
		post_tagged(1, 5000 + i, rbuf + i * SLOT, SLOT, 1000 + i);
	send_all(0);
	check_all();
	assert_true(sst(1)->refused_rec > 0);
	assert_int_equal(sst(1)->rx_rc[UET_RC_UNDELIVERABLE], 0);
}

/* ---- 2. PDC_DOWN and failed rendezvous read-backs ---- */

/* Node 1 loses every return-direction data packet it sends. */
static bool
drop_ret_data(struct sfw *fw, int from, const struct uet_pds_tx *t)
{
	(void)fw;
	return from == 1 && t->kind != UET_PDS_TX_CTL &&
	       t->hdr.next_hdr == UET_PDS_NEXT_RESPONSE_DATA;
}

/* A large READ whose data never arrives: the target's return direction
 * times out, the initiator's PDC goes down, and the READ fails with the
 * event's status instead of waiting forever. */
static void
pdc_down__large_read_fails(void **state)
{
	uint8_t *mem = calloc(1, 65536);
	struct uet_ses_wr wr;
	struct ses_fakewire_opts o;
	uint64_t key;

	(void)state;
	memset(&o, 0, sizeof(o));
	assert_int_equal(start(&o), 0);
	assert_non_null(mem);
	key = ses_fakewire_mr(&w, 1, mem, 65536, UET_SES_MR_REMOTE_READ, false);
	w.drop_fn = drop_ret_data;
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_READ, rbuf, 9000);
	wr.rkey = key;
	wr.context = 1;
	assert_int_equal(uet_ses_submit(w.n[0].ses, &wr, NULL), 0);
	assert_true(ses_fakewire_run_cq(&w, 0, 1, RUN_NS));
	assert_true(cqe(0, 1)->status == -ECONNRESET ||
		    cqe(0, 1)->status == -ETIMEDOUT);
	assert_int_equal(cqe(0, 1)->len, 0);
	assert_true(sst(0)->pdc_down >= 1);
	assert_int_equal(sst(0)->pdc_down_fail, 1);
	/* The wire works again: a new PDC, a new READ succeeds. */
	w.drop_fn = NULL;
	ses_fakewire_fill(mem, 9000, 9);
	wr.context = 2;
	assert_int_equal(uet_ses_submit(w.n[0].ses, &wr, NULL), 0);
	assert_true(ses_fakewire_run_cq(&w, 0, 2, RUN_NS));
	assert_int_equal(cqe(0, 2)->status, 0);
	assert_memory_equal(rbuf, mem, 9000);
	assert_true(ses_fakewire_run_idle(&w, RUN_NS));
	free(mem);
}

/* A rendezvous whose read-back fails (the initiator's table is disabled
 * after the send was answered, so the READ gets DISABLED): the receive
 * fails, and MSG_ERROR makes the send fail too (before: it waited for
 * a read that would never come). Small (ACK) and large (return
 * direction) read-backs, lossy wire. */
static void
rdv__readback_failure_reported(void **state)
{
	static const uint32_t len[2] = { 250, 20000 };
	struct uet_ses_wr wr;
	struct ses_fakewire_opts o;
	uint32_t i, k;

	(void)state;
	memset(&o, 0, sizeof(o));
	o.rdv_threshold = 100;
	assert_int_equal(start(&o), 0);
	lossy(50000);
	for (i = 0; i < 2; i++) {
		ses_fakewire_fill(sbuf, len[i], 40 + i);
		ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_SEND, sbuf, len[i]);
		wr.context = 1 + i;
		assert_int_equal(uet_ses_submit(w.n[0].ses, &wr, NULL), 0);
		/* Answered OK on list OVERFLOW: held unexpected. */
		for (k = 0; k < 100000 && sst(1)->rx_rc[UET_RC_OK] < i + 1;
		     k++)
			ses_fakewire_step(&w, 1000);
		assert_int_equal(sst(1)->rx_rc[UET_RC_OK], i + 1);
		assert_int_equal(uet_ses_ri_enable(w.n[0].mr, w.n[0].ri_rdv,
						   false), 0);
		memset(&wr, 0, sizeof(wr));
		{
			struct uet_ses_recv r;

			memset(&r, 0, sizeof(r));
			r.op = 1;
			r.context = 100 + i;
			r.buf = rbuf;
			r.len = SLOT * NMSG;
			assert_int_equal(uet_ses_recv_post(w.n[1].ses, &r,
							   w.now), 0);
		}
		assert_true(ses_fakewire_run_cq(&w, 1, i + 1, RUN_NS));
		assert_int_equal(cqe(1, 100 + i)->status,
				 uet_ses_rc_errno(UET_RC_DISABLED));
		assert_int_equal(cqe(1, 100 + i)->prov_errno, UET_RC_DISABLED);
		assert_true(ses_fakewire_run_cq(&w, 0, i + 1, RUN_NS));
		assert_int_equal(cqe(0, 1 + i)->status, -EIO);
		assert_int_equal(cqe(0, 1 + i)->prov_errno, UET_RC_DISABLED);
		assert_int_equal(sst(1)->msg_error_tx, i + 1);
		assert_int_equal(sst(0)->msg_error_rx, i + 1);
		assert_int_equal(uet_ses_ri_enable(w.n[0].mr, w.n[0].ri_rdv,
						   true), 0);
	}
	assert_true(ses_fakewire_run_idle(&w, RUN_NS));
	/* Key revoked with the failed sends: the RI table is empty. */
	assert_int_equal(uet_ses_ri_del(w.n[0].mr, w.n[0].ri_rdv), 0);
}

static void
ses_pools_empty(int node)
{
	struct uet_ses_pool_info pi;

	uet_ses_pool_info_get(w.n[node].ses, &pi);
	assert_int_equal(pi.msgs_used, 0);
	assert_int_equal(pi.tgt_used, 0);
	assert_int_equal(pi.ret_used, 0);
}

/* A rendezvous send waiting to be read when its PDC goes down (the peer
 * stops answering): the send fails with the PDC's status and its key is
 * revoked; the peer's late read-back then fails, and its MSG_ERROR names
 * nothing live any more. */
static void
rdv__pdc_down_fails_waiting_send(void **state)
{
	struct uet_ses_wr wr;
	struct uet_ses_recv r;
	struct ses_fakewire_opts o;
	uint32_t k;

	(void)state;
	memset(&o, 0, sizeof(o));
	o.rdv_threshold = 100;
	assert_int_equal(start(&o), 0);
	ses_fakewire_fill(sbuf, 5000, 50);
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_SEND, sbuf, 5000);
	wr.context = 1;
	assert_int_equal(uet_ses_submit(w.n[0].ses, &wr, NULL), 0);
	for (k = 0; k < 100000 && pst(0)->done_ok == 0; k++)
		ses_fakewire_step(&w, 1000);
	assert_int_equal(w.n[0].ncq, 0); /* answered, waits to be read */
	/* Node 1 goes silent; the next request on the PDC times out. */
	w.f[1].drop = 1000000;
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_SEND, sbuf, 10);
	wr.context = 2;
	assert_int_equal(uet_ses_submit(w.n[0].ses, &wr, NULL), 0);
	assert_true(ses_fakewire_run_cq(&w, 0, 2, RUN_NS));
	assert_int_equal(cqe(0, 1)->status, -ETIMEDOUT);
	assert_int_equal(cqe(0, 2)->status, -ETIMEDOUT);
	assert_int_equal(sst(0)->pdc_down_fail, 1);
	/* The peer comes back and posts a receive: the read-back fails. */
	w.f[1].drop = 0;
	memset(&r, 0, sizeof(r));
	r.op = 1;
	r.context = 100;
	r.buf = rbuf;
	r.len = 5000;
	assert_int_equal(uet_ses_recv_post(w.n[1].ses, &r, w.now), 0);
	assert_true(ses_fakewire_run_cq(&w, 1, 1, RUN_NS));
	assert_true(cqe(1, 100)->status != 0);
	for (k = 0; k < 100000 && sst(0)->msg_error_stale == 0; k++)
		ses_fakewire_step(&w, 1000);
	assert_int_equal(sst(1)->msg_error_tx, 1);
	assert_int_equal(sst(0)->msg_error_stale, 1);
	/* SES pools drained. (Node 1's PDS keeps the stored response of
	 * the timed-out PDC: its initiator is gone and never clears it.) */
	ses_fakewire_step(&w, 100000);
	ses_pools_empty(0);
	ses_pools_empty(1);
	assert_int_equal(uet_ses_ri_del(w.n[0].mr, w.n[0].ri_rdv), 0);
}

/* Node 0 loses the return-direction data it sends while set. */
static bool hold_ret_data;

static int
count_initiator(const struct uet_pds_pdc_info *i, void *arg)
{
	*(uint32_t *)arg += i->role == 0;
	return 0;
}

/* Initiator PDCs of node @p node (closing ones included). */
static uint32_t
initiator_pdcs(int node)
{
	uint32_t n = 0;

	uet_pds_pdc_foreach(w.n[node].pds, count_initiator, &n);
	return n;
}

static bool
drop_ret_data0(struct sfw *fw, int from, const struct uet_pds_tx *t)
{
	(void)fw;
	return hold_ret_data && from == 0 && t->kind != UET_PDS_TX_CTL &&
	       t->hdr.next_hdr == UET_PDS_NEXT_RESPONSE_DATA;
}

/*
 * A rendezvous send whose read-back runs on the peer's PDC (the peer is
 * the READ's initiator) when the sender's own PDC to the peer goes down:
 * the send's outcome is that of the read-back, not of the PDC that only
 * carried its eager part. Before: the send failed at once (its buffer
 * free for the application) while the read-back went on reading it, so
 * the receiver got what the application wrote there afterwards.
 */
static void
rdv__pdc_down_follows_readback_pdc(void **state)
{
	const uint32_t len = 60000;
	uint8_t *orig = malloc(len);
	struct uet_ses_pool_info pi;
	struct uet_pds_event ev;
	struct uet_ses_recv r;
	struct uet_ses_wr wr;
	struct ses_fakewire_opts o;
	uint32_t h, k;

	(void)state;
	memset(&o, 0, sizeof(o));
	o.rdv_threshold = 100;
	assert_int_equal(start(&o), 0);
	assert_non_null(orig);
	ses_fakewire_fill(sbuf, len, 70);
	memcpy(orig, sbuf, len);
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_SEND, sbuf, len);
	wr.context = 1;
	assert_int_equal(uet_ses_submit(w.n[0].ses, &wr, NULL), 0);
	for (k = 0; k < 100000 && sst(1)->rx_rc[UET_RC_OK] == 0; k++)
		ses_fakewire_step(&w, 1000);
	/* the read-back starts; node 0's data of it is held back */
	hold_ret_data = true;
	w.drop_fn = drop_ret_data0;
	memset(&r, 0, sizeof(r));
	r.op = 1;
	r.context = 100;
	r.buf = rbuf;
	r.len = len;
	assert_int_equal(uet_ses_recv_post(w.n[1].ses, &r, w.now), 0);
	for (k = 0; k < 100000; k++) {
		uet_ses_pool_info_get(w.n[0].ses, &pi);
		if (pi.ret_used != 0)
			break;
		ses_fakewire_step(&w, 1000);
	}
	assert_true(pi.ret_used != 0);
	/* node 0's own PDC to node 1 (the eager part's) goes away ... */
	assert_int_equal(uet_pds_pdc_find(w.n[0].pds, &w.n[1].fa, SFW_JOB,
					  wr.tc, UET_PDS_MODE_RUD, &h), 0);
	assert_int_equal(uet_pds_pdc_close(w.n[0].pds, h, w.now), 0);
	for (k = 0; k < 100000 && initiator_pdcs(0) != 0; k++)
		ses_fakewire_step(&w, 1000);
	assert_int_equal(initiator_pdcs(0), 0);
	uet_ses_pool_info_get(w.n[0].ses, &pi);
	assert_true(pi.ret_used != 0); /* the read-back still runs */
	/* ... failed (as a fatal NACK would report it) */
	memset(&ev, 0, sizeof(ev));
	ev.type = UET_PDS_EV_PDC_DOWN;
	ev.mode = UET_PDS_MODE_RUD;
	ev.status = -ECONNRESET;
	ev.pdc = h;
	ev.peer = w.n[1].fa;
	assert_int_equal(uet_ses_event(w.n[0].ses, &ev, NULL, 0, w.now), 0);
	assert_int_equal(sst(0)->pdc_down_fail, 0);
	assert_int_equal(w.n[0].ncq, 0);
	/* the read-back goes on and decides the send */
	hold_ret_data = false;
	assert_true(ses_fakewire_run_cq(&w, 0, 1, 4 * RUN_NS));
	assert_int_equal(cqe(0, 1)->status, 0);
	memset(sbuf, 0xEE, len); /* the application's buffer again */
	assert_true(ses_fakewire_run_cq(&w, 1, 1, RUN_NS));
	assert_int_equal(cqe(1, 100)->status, 0);
	assert_int_equal(cqe(1, 100)->len, len);
	assert_memory_equal(rbuf, orig, len);
	assert_true(ses_fakewire_run_idle(&w, RUN_NS));
	ses_pools_empty(0);
	free(orig);
}

/* The target has no message free when a receive takes a rendezvous
 * message: the read-back waits (rdv_wait) and goes once one frees up. */
static void
rdv__readback_waits_for_message(void **state)
{
	uint8_t *mem = calloc(1, 4096);
	struct uet_ses_wr wr;
	struct uet_ses_recv r;
	struct ses_fakewire_opts o;
	uint32_t k;
	uint64_t key;

	(void)state;
	memset(&o, 0, sizeof(o));
	o.rdv_threshold = 100;
	o.max_msgs = 2;
	assert_int_equal(start(&o), 0);
	assert_non_null(mem);
	key = ses_fakewire_mr(&w, 0, mem, 4096, UET_SES_MR_REMOTE_WRITE, false);
	ses_fakewire_fill(sbuf, 3000, 60);
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_SEND, sbuf, 3000);
	wr.context = 1;
	assert_int_equal(uet_ses_submit(w.n[0].ses, &wr, NULL), 0);
	for (k = 0; k < 100000 && sst(1)->rx_rc[UET_RC_OK] == 0; k++)
		ses_fakewire_step(&w, 1000);
	/* Node 1's two messages stay busy: their ACKs are lost for now. */
	w.f[0].drop = 1000000;
	for (k = 0; k < 2; k++) {
		ses_fakewire_wr(&w, 1, &wr, UET_SES_WR_WRITE, sbuf, 64);
		wr.rkey = key;
		wr.context = 10 + k;
		assert_int_equal(uet_ses_submit(w.n[1].ses, &wr, NULL), 0);
	}
	ses_fakewire_step(&w, 1000);
	memset(&r, 0, sizeof(r));
	r.op = 1;
	r.context = 100;
	r.buf = rbuf;
	r.len = 3000;
	assert_int_equal(uet_ses_recv_post(w.n[1].ses, &r, w.now), 0);
	assert_int_equal(sst(1)->rdv_wait, 1);
	assert_int_equal(sst(1)->rdv_reads, 0);
	ses_fakewire_step(&w, 100000);
	w.f[0].drop = 0;
	assert_true(ses_fakewire_run_cq(&w, 1, 3, RUN_NS));
	assert_int_equal(cqe(1, 100)->status, 0);
	assert_int_equal(cqe(1, 100)->len, 3000);
	assert_memory_equal(rbuf, sbuf, 3000);
	assert_int_equal(cqe(1, 10)->status, 0);
	assert_int_equal(sst(1)->rdv_reads, 1);
	assert_true(ses_fakewire_run_cq(&w, 0, 1, RUN_NS));
	assert_int_equal(cqe(0, 1)->status, 0);
	assert_true(ses_fakewire_run_idle(&w, RUN_NS));
	free(mem);
}

/* Node 0 loses the ACKs it sends (node 1's WRITEs stay unanswered). */
static bool
drop_acks_of_0(struct sfw *fw, int from, const struct uet_pds_tx *t)
{
	(void)fw;
	return from == 0 && (t->hdr.type == UET_PDS_TYPE_ACK ||
			     t->hdr.type == UET_PDS_TYPE_ACK_CC);
}

/* The target has no message free when a rendezvous send arrives for a
 * posted receive: it refuses it (NACK NO_RESOURCE, refused_res) rather
 * than match a receive whose read-back it could not issue; the initiator
 * backs off and sends it again, and it is served once a message frees. */
static void
rdv__no_message_at_arrival_refused_then_served(void **state)
{
	uint8_t *mem = calloc(1, 4096);
	struct uet_ses_wr wr;
	struct uet_ses_recv r;
	struct ses_fakewire_opts o;
	uint32_t k;
	uint64_t key;

	(void)state;
	memset(&o, 0, sizeof(o));
	o.rdv_threshold = 100;
	o.max_msgs = 2;
	assert_int_equal(start(&o), 0);
	assert_non_null(mem);
	key = ses_fakewire_mr(&w, 0, mem, 4096, UET_SES_MR_REMOTE_WRITE, false);
	memset(&r, 0, sizeof(r));
	r.op = 1;
	r.context = 100;
	r.buf = rbuf;
	r.len = 3000;
	assert_int_equal(uet_ses_recv_post(w.n[1].ses, &r, w.now), 0);
	/* Node 1's two messages busy: WRITEs whose ACKs are lost for now. */
	w.drop_fn = drop_acks_of_0;
	for (k = 0; k < 2; k++) {
		ses_fakewire_wr(&w, 1, &wr, UET_SES_WR_WRITE, sbuf, 64);
		wr.rkey = key;
		wr.context = 10 + k;
		assert_int_equal(uet_ses_submit(w.n[1].ses, &wr, NULL), 0);
	}
	ses_fakewire_fill(sbuf, 3000, 61);
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_SEND, sbuf, 3000);
	wr.context = 1;
	assert_int_equal(uet_ses_submit(w.n[0].ses, &wr, NULL), 0);
	for (k = 0; k < 1000 && sst(1)->refused_res == 0; k++)
		ses_fakewire_step(&w, 1000);
	assert_true(sst(1)->refused_res >= 1);
	assert_int_equal(sst(1)->rdv_reads, 0);
	assert_int_equal(w.n[1].ncq, 0);
	w.drop_fn = NULL;
	assert_true(ses_fakewire_run_cq(&w, 1, 3, RUN_NS));
	assert_int_equal(cqe(1, 100)->status, 0);
	assert_int_equal(cqe(1, 100)->len, 3000);
	assert_memory_equal(rbuf, sbuf, 3000);
	assert_int_equal(cqe(1, 10)->status, 0);
	assert_int_equal(cqe(1, 11)->status, 0);
	assert_int_equal(sst(1)->rdv_reads, 1);
	assert_true(ses_fakewire_run_cq(&w, 0, 1, RUN_NS));
	assert_int_equal(cqe(0, 1)->status, 0);
	assert_true(ses_fakewire_run_idle(&w, RUN_NS));
	free(mem);
}

/* ---- 3. RUDI for idempotent READ / WRITE (HPC) ---- */

#define RUDI_N 100
#define RUDI_MEM (1u << 18)

static void
rudi_wr(struct uet_ses_wr *wr, uint8_t op, void *buf, uint32_t len,
	uint64_t key, uint64_t off, uint64_t ctx)
{
	ses_fakewire_wr(&w, 0, wr, op, buf, len);
	wr->rkey = key;
	wr->roffset = off;
	wr->context = ctx;
	wr->flags |= UET_SES_WR_F_IDEMPOTENT;
	assert_int_equal(uet_ses_submit(w.n[0].ses, wr, NULL), 0);
}

/* RUDI error: the target's code reaches the initiator's completion. */
static void
rudi_expect(uint8_t op, uint32_t len, uint64_t key, uint64_t off,
	    uint64_t ctx, enum uet_wire_ses_rc rc)
{
	struct uet_ses_wr wr;
	uint64_t rudi = pst(0)->tx_type[UET_PDS_TYPE_RUDI_REQ];

	rudi_wr(&wr, op, sbuf, len, key, off, ctx);
	assert_true(ses_fakewire_run_cq(&w, 0, w.n[0].ncq + 1, RUN_NS));
	assert_true(pst(0)->tx_type[UET_PDS_TYPE_RUDI_REQ] > rudi);
	assert_int_equal(cqe(0, ctx)->prov_errno, rc);
	assert_int_equal(cqe(0, ctx)->status, uet_ses_rc_errno(rc));
}

static void
rudi__read_write_lossy(void **state)
{
	uint32_t rw = UET_SES_MR_REMOTE_READ | UET_SES_MR_REMOTE_WRITE;
	uint8_t *mem = calloc(1, RUDI_MEM), *back = calloc(RUDI_N, 256);
	uint64_t key, rokey, wokey, plain;
	struct uet_ses_wr wr;
	struct ses_fakewire_opts o;
	uint32_t i, len;
	uint64_t rudi;

	(void)state;
	memset(&o, 0, sizeof(o));
	assert_int_equal(start(&o), 0);
	assert_non_null(mem);
	assert_non_null(back);
	key = ses_fakewire_mr(&w, 1, mem, RUDI_MEM, rw, true);
	rokey = ses_fakewire_mr(&w, 1, mem, RUDI_MEM, UET_SES_MR_REMOTE_READ, true);
	wokey = ses_fakewire_mr(&w, 1, mem, RUDI_MEM, UET_SES_MR_REMOTE_WRITE, true);
	plain = ses_fakewire_mr(&w, 1, mem, RUDI_MEM, rw, false);
	assert_true(key && rokey && wokey && plain);
	lossy(100000); /* 10% loss, 2% duplicates, 10% reordering */
	ses_fakewire_fill(sbuf, NMSG * SLOT, 77);
	/* Writes of 1 B .. 3 packets, then reads of every small size. */
	for (i = 0; i < RUDI_N; i++) {
		len = 1 + (i * 331u) % 2600u;
		rudi_wr(&wr, UET_SES_WR_WRITE, sbuf + i * 1000, len, key,
			i * 2600u, 1 + i);
	}
	assert_true(ses_fakewire_run_cq(&w, 0, RUDI_N, 4 * RUN_NS));
	for (i = 0; i < RUDI_N; i++) {
		len = 1 + (i * 331u) % 2600u;
		assert_int_equal(cqe(0, 1 + i)->status, 0);
		assert_memory_equal(mem + i * 2600u, sbuf + i * 1000, len);
	}
	for (i = 0; i < RUDI_N; i++) {
		len = 1 + (i * 97u) % 256u;
		rudi_wr(&wr, UET_SES_WR_READ, back + i * 256, len, key,
			i * 2600u, 1000 + i);
	}
	assert_true(ses_fakewire_run_cq(&w, 0, 2 * RUDI_N, 4 * RUN_NS));
	for (i = 0; i < RUDI_N; i++) {
		len = 1 + (i * 97u) % 256u;
		assert_int_equal(cqe(0, 1000 + i)->status, 0);
		assert_memory_equal(back + i * 256, mem + i * 2600u, len);
	}
	/* Every one went over RUDI, answered in the RUDI_RESP. */
	assert_true(pst(0)->tx_type[UET_PDS_TYPE_RUDI_REQ] >= 2 * RUDI_N);
	assert_true(pst(1)->rudi_resp_data >= RUDI_N);
	assert_int_equal(pst(0)->pdc_open_init, 0);
	print_message("# RUDI: %llu requests (retransmits incl.), %llu "
		      "responses with SES data\n",
		      (unsigned long long)pst(0)->tx_type[UET_PDS_TYPE_RUDI_REQ],
		      (unsigned long long)pst(1)->rudi_resp_data);
	/* Errors reach the initiator (before: RUDI WRITE completed OK). */
	rudi_expect(UET_SES_WR_WRITE, 64, rokey, 0, 3000,
		    UET_RC_PERM_VIOLATION);
	rudi_expect(UET_SES_WR_WRITE, 2000, rokey, 0, 3001,
		    UET_RC_PERM_VIOLATION);
	rudi_expect(UET_SES_WR_READ, 64, wokey, 0, 3002,
		    UET_RC_PERM_VIOLATION);
	rudi_expect(UET_SES_WR_WRITE, 64, key, RUDI_MEM - 10, 3003,
		    UET_RC_TOO_LONG);
	rudi_expect(UET_SES_WR_READ, 64, key, RUDI_MEM + 1, 3004,
		    UET_RC_BAD_ADDR);
	/* Not RUDI: a key without the I bit, and a READ above 256 B. */
	rudi = pst(0)->tx_type[UET_PDS_TYPE_RUDI_REQ];
	rudi_wr(&wr, UET_SES_WR_READ, back, 64, plain, 0, 3005);
	rudi_wr(&wr, UET_SES_WR_READ, rbuf, 3000, key, 0, 3006);
	assert_true(ses_fakewire_run_cq(&w, 0, w.n[0].ncq + 2, RUN_NS));
	assert_int_equal(cqe(0, 3005)->status, 0);
	assert_int_equal(cqe(0, 3006)->status, 0);
	assert_memory_equal(back, mem, 64);
	assert_memory_equal(rbuf, mem, 3000);
	assert_int_equal(pst(0)->tx_type[UET_PDS_TYPE_RUDI_REQ], rudi);
	assert_true(ses_fakewire_run_idle(&w, RUN_NS));
	free(mem);
	free(back);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(fc__unexpected_bound, teardown),
		cmocka_unit_test_teardown(fc__unexpected_bound_rod, teardown),
		cmocka_unit_test_teardown(fc__target_records, teardown),
		cmocka_unit_test_teardown(rudi__read_write_lossy, teardown),
		cmocka_unit_test_teardown(pdc_down__large_read_fails,
					  teardown),
		cmocka_unit_test_teardown(rdv__readback_failure_reported,
					  teardown),
		cmocka_unit_test_teardown(rdv__pdc_down_fails_waiting_send,
					  teardown),
		cmocka_unit_test_teardown(rdv__readback_waits_for_message,
					  teardown),
		cmocka_unit_test_teardown(
			rdv__no_message_at_arrival_refused_then_served, teardown),
		cmocka_unit_test_teardown(rdv__pdc_down_follows_readback_pdc,
					  teardown),
	};
	const char *s = getenv("UET_TEST_SEED");

	if (s != NULL)
		seed = strtoull(s, NULL, 0);
	printf("# seed 0x%llx\n", (unsigned long long)seed);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
