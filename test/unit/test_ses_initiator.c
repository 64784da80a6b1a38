/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the SES initiator (src/ses/ses_initiator.c): header format
 * choice, fragmentation (SOM/EOM, message_offset, payload_length),
 * message ids, per-cookie rebuild, profile enforcement at submit.
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
#include <uet/uet_wire_csum.h>

#include "ses_fakewire.h"
#include "ses_private.h"

static struct sfw w;
static uint8_t data[8192];

static int
setup(void **state)
{
	*state = &w; /* for ses_fakewire_teardown() */
	return ses_fakewire_init(&w, UET_PROFILE_HPC, 1);
}

static void
fmt_choose__rules(void **state)
{
	(void)state;
	assert_int_equal(uet_ses_fmt_choose(UET_SES_OP_NO_OP, true, false, 0),
			 UET_SES_FMT_SMALL);
	assert_int_equal(uet_ses_fmt_choose(UET_SES_OP_SEND, true, false, 10),
			 UET_SES_FMT_MEDIUM);
	assert_int_equal(uet_ses_fmt_choose(UET_SES_OP_SEND, true, true, 10),
			 UET_SES_FMT_MEDIUM);
	assert_int_equal(uet_ses_fmt_choose(UET_SES_OP_SEND, false, false,
					    5000), UET_SES_FMT_STD);
	/* WRITE with immediate data needs HD and buffer_offset: STD. */
	assert_int_equal(uet_ses_fmt_choose(UET_SES_OP_WRITE, true, true, 10),
			 UET_SES_FMT_STD);
	assert_int_equal(uet_ses_fmt_choose(UET_SES_OP_WRITE, true, false,
					    10), UET_SES_FMT_MEDIUM);
	/* READ data up to UET_PDS_RESP_MAX - 12 rides in the ACK. */
	assert_int_equal(uet_ses_fmt_choose(UET_SES_OP_READ, true, false,
					    UET_PDS_RESP_DATA_MAX),
			 UET_SES_FMT_MEDIUM);
	assert_int_equal(uet_ses_fmt_choose(UET_SES_OP_READ, true, false,
					    UET_PDS_RESP_DATA_MAX + 1),
			 UET_SES_FMT_STD);
	assert_int_equal(uet_ses_fmt_choose(UET_SES_OP_FETCHING_ATOMIC, true,
					    false, 8), UET_SES_FMT_MEDIUM);
	assert_int_equal(uet_ses_fmt_choose(UET_SES_OP_RENDEZVOUS_SEND, true,
					    false, 8), UET_SES_FMT_STD);
	assert_int_equal(uet_ses_fmt_choose(UET_SES_OP_SEND, true, false,
					    UET_SES_LEN14_MAX + 1),
			 UET_SES_FMT_STD);
}

/* Submit, hand to the PDS, and decode every fragment it sends. */
static uint32_t
take_frags(struct uet_wire_ses_req *hs, uint32_t *plens, uint32_t max,
	   uint8_t *fmt)
{
	struct uet_pds_tx tx[64];
	uint8_t buf[SFW_MTU + 64], sbuf[SFW_MTU + 64];
	uint16_t n, i;
	uint32_t k = 0, sum;
	int len, hl;

	uet_ses_progress(w.n[0].ses, w.now);
	n = uet_pds_tx_burst(w.n[0].pds, w.now, tx, 64);
	for (i = 0; i < n && k < max; i++) {
		if (tx[i].kind == UET_PDS_TX_CTL)
			continue;
		len = uet_ses_build(w.n[0].ses, tx[i].cookie, 0, buf,
				    sizeof(buf));
		assert_int_equal(len, tx[i].len);
		*fmt = tx[i].hdr.next_hdr;
		hl = uet_wire_ses_req_decode(buf, (size_t)len,
					(enum uet_wire_ses_fmt)*fmt, &hs[k]);
		assert_true(hl > 0);
		plens[k] = (uint32_t)(len - hl);
		/* Payload bytes are the right slice of the source. */
		if (plens[k])
			assert_memory_equal(buf + hl, data +
				((hs[k].flags & UET_SES_F_SOM) ? 0 :
				 hs[k].message_offset), plens[k]);
		/* A second build of the cookie (retransmission) is equal. */
		assert_int_equal(uet_ses_build(w.n[0].ses, tx[i].cookie, 0,
					       buf, sizeof(buf)), len);
		/* and the build that sums writes the same bytes and their
		 * sum */
		assert_int_equal(uet_ses_build_csum(w.n[0].ses, tx[i].cookie,
						    0, sbuf, sizeof(sbuf),
						    &sum), len);
		assert_memory_equal(sbuf, buf, (size_t)len);
		assert_int_equal(uet_wire_csum_fold(sum),
				 uet_wire_csum_fold(uet_wire_csum_partial(
					 buf, (size_t)len, 0)));
		k++;
	}
	return k;
}

static void
fragment__std_offsets(void **state)
{
	struct uet_wire_ses_req h[16];
	uint32_t pl[16], k, i, total = 0, chunk0 = SFW_MTU - UET_SES_STD_LEN;
	struct uet_ses_wr wr;
	uint8_t fmt = 0;

	(void)state;
	for (i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7);
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_TSEND, data, 3000);
	wr.tag = 0x1234;
	wr.flags |= UET_SES_WR_F_IMM;
	wr.imm_data = 99;
	assert_int_equal(uet_ses_submit(w.n[0].ses, &wr, NULL), 0);
	k = take_frags(h, pl, 16, &fmt);
	assert_int_equal(fmt, UET_SES_FMT_STD);
	assert_int_equal(k, (3000 + chunk0 - 1) / chunk0);
	for (i = 0; i < k; i++) {
		assert_int_equal(h[i].opcode, UET_SES_OP_TAGGED_SEND);
		assert_int_equal(!!(h[i].flags & UET_SES_F_SOM), i == 0);
		assert_int_equal(!!(h[i].flags & UET_SES_F_EOM), i == k - 1);
		assert_int_equal(!!(h[i].flags & UET_SES_F_HD), i == 0);
		assert_int_equal(h[i].request_length, 3000);
		assert_int_equal(h[i].match_bits, 0x1234);
		assert_int_equal(h[i].initiator, 100);
		assert_int_equal(h[i].message_id, h[0].message_id);
		if (i == 0)
			assert_int_equal(h[i].header_data, 99);
		else
			assert_int_equal(h[i].message_offset, total);
		total += pl[i];
	}
	assert_int_equal(total, 3000);
}

/* Odd payload lengths (an odd last byte in the sum) and an unknown
 * cookie through the build that sums (the payload checks are
 * take_frags'). */
static void
build_csum__odd_lengths_and_unknown(void **state)
{
	struct uet_wire_ses_req h[16];
	uint32_t pl[16], sum = 0x1234;
	struct uet_ses_wr wr;
	uint8_t fmt = 0, buf[64];

	(void)state;
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 13 + 1);
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_SEND, data, 3001);
	assert_int_equal(uet_ses_submit(w.n[0].ses, &wr, NULL), 0);
	assert_true(take_frags(h, pl, 16, &fmt) > 1);
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_WRITE, data, 777);
	wr.rkey = 5;
	assert_int_equal(uet_ses_submit(w.n[0].ses, &wr, NULL), 0);
	assert_int_equal(take_frags(h, pl, 16, &fmt), 1);
	assert_int_equal(pl[0], 777);
	assert_int_equal(uet_ses_build_csum(w.n[0].ses, 0xFFFFFFFFFFFFull, 0,
					    buf, sizeof(buf), &sum), -ENOENT);
	assert_int_equal(sum, 0x1234);
}

static void
fragment__medium_single_and_ids(void **state)
{
	struct uet_wire_ses_req h[4];
	uint32_t pl[4], k;
	struct uet_ses_wr wr;
	uint8_t fmt = 0;
	uint16_t id1;

	(void)state;
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_SEND, data,
	       SFW_MTU - UET_SES_MEDIUM_LEN);
	assert_int_equal(uet_ses_submit(w.n[0].ses, &wr, NULL), 0);
	k = take_frags(h, pl, 4, &fmt);
	assert_int_equal(k, 1);
	assert_int_equal(fmt, UET_SES_FMT_MEDIUM);
	assert_int_equal(h[0].flags & (UET_SES_F_SOM | UET_SES_F_EOM),
			 UET_SES_F_SOM | UET_SES_F_EOM);
	/* One byte more: two STD packets, message ids advance by one. */
	wr.len++;
	assert_int_equal(uet_ses_submit(w.n[0].ses, &wr, NULL), 0);
	k = take_frags(h, pl, 4, &fmt);
	assert_int_equal(k, 2);
	assert_int_equal(fmt, UET_SES_FMT_STD);
	id1 = h[0].message_id;
	assert_int_equal(uet_ses_submit(w.n[0].ses, &wr, NULL), 0);
	k = take_frags(h, pl, 4, &fmt);
	assert_int_equal(h[0].message_id, (uint16_t)(id1 + 1));
}

static void
fragment__atomic_cas_ext(void **state)
{
	struct uet_wire_ses_req h[2];
	uint32_t pl[2];
	uint64_t cmp = 5, swp = 6, res;
	struct uet_ses_wr wr;
	uint8_t fmt = 0;

	(void)state;
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_CSWAP, &swp, 8);
	wr.atomic_op = UET_AMO_CSWAP;
	wr.atomic_dt = UET_AMO_DT_UINT64;
	wr.compare = &cmp;
	wr.result = &res;
	wr.rkey = 1;
	assert_int_equal(uet_ses_submit(w.n[0].ses, &wr, NULL), 0);
	assert_int_equal(take_frags(h, pl, 2, &fmt), 1);
	assert_int_equal(fmt, UET_SES_FMT_MEDIUM);
	assert_int_equal(h[0].opcode, UET_SES_OP_FETCHING_ATOMIC);
	assert_int_equal(h[0].ext, UET_SES_EXT_ATOMIC_CAS);
	assert_int_equal(pl[0], 0);
	assert_memory_equal(h[0].atomic.compare, &cmp, 8);
	assert_memory_equal(h[0].atomic.swap, &swp, 8);
	/* CAS is single element: two elements are refused. */
	wr.len = 16;
	assert_int_equal(uet_ses_submit(w.n[0].ses, &wr, NULL), -EINVAL);
}

static void
submit__profile_enforced(void **state)
{
	struct uet_ses_config sc;
	struct uet_ses *s, *hpc;
	struct uet_ses_wr wr;
	enum uet_wire_ses_rc rc;
	uint64_t res;

	(void)state;
	uet_ses_config_default(&sc);
	sc.profile = UET_PROFILE_AI_BASE;
	sc.mtu = SFW_MTU;
	sc.pds = w.n[0].pds;
	s = uet_ses_create(&sc);
	assert_non_null(s);
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_READ, data, 8);
	assert_int_equal(uet_ses_submit(s, &wr, &rc), -EOPNOTSUPP);
	assert_int_equal(rc, UET_RC_UNSUPPORTED_OP);
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_FETCH_ATOMIC, data, 8);
	wr.atomic_op = UET_AMO_SUM;
	wr.atomic_dt = UET_AMO_DT_UINT64;
	wr.result = &res;
	assert_int_equal(uet_ses_submit(s, &wr, &rc), -EOPNOTSUPP);
	/* AI Base SEND is at most one MTU. */
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_SEND, data, 4000);
	assert_int_equal(uet_ses_submit(s, &wr, &rc), -EMSGSIZE);
	assert_int_equal(rc, UET_RC_TOO_LONG);
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_TSEND, data, 8);
	wr.flags |= UET_SES_WR_F_WILDCARD;
	assert_int_equal(uet_ses_submit(s, &wr, &rc), -EOPNOTSUPP);
	assert_int_equal(rc, UET_RC_OP_VIOLATION);
	/* Rendezvous: not in AI Base; in HPC only with an RI table for the
	 * read-back (none configured on this instance). */
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_SEND, data, 8);
	wr.flags |= UET_SES_WR_F_RENDEZVOUS;
	assert_int_equal(uet_ses_submit(s, &wr, &rc), -EOPNOTSUPP);
	assert_int_equal(rc, UET_RC_UNSUPPORTED_OP);
	sc.profile = UET_PROFILE_HPC;
	hpc = uet_ses_create(&sc);
	assert_non_null(hpc);
	assert_int_equal(uet_ses_submit(hpc, &wr, &rc), -EOPNOTSUPP);
	assert_int_equal(rc, UET_RC_UNSUPPORTED_OP);
	uet_ses_free(hpc);
	/* Deferrable: AI Full only. */
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_TSEND, data, 8);
	wr.flags |= UET_SES_WR_F_DEFERRABLE;
	assert_int_equal(uet_ses_submit(s, &wr, &rc), -EOPNOTSUPP);
	assert_int_equal(rc, UET_RC_UNSUPPORTED_OP);
	assert_int_equal(uet_ses_submit(w.n[0].ses, &wr, &rc), -EOPNOTSUPP);
	assert_int_equal(rc, UET_RC_UNSUPPORTED_OP);
	/* Tagged atomics: HPC only. */
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_TSEND_ATOMIC, data, 8);
	wr.atomic_op = UET_AMO_SUM;
	wr.atomic_dt = UET_AMO_DT_UINT64;
	assert_int_equal(uet_ses_submit(s, &wr, &rc), -EOPNOTSUPP);
	assert_int_equal(rc, UET_RC_UNSUPPORTED_OP);
	assert_int_equal(uet_ses_stats_get(s)->wr_rejected, 7);
	uet_ses_free(s);
	/* AI Full: deferrable yes; rendezvous and tagged atomics no. */
	sc.profile = UET_PROFILE_AI_FULL;
	sc.rdv_ri = w.n[0].ri_rdv; /* even with a read-back table */
	sc.mr = w.n[0].mr;
	s = uet_ses_create(&sc);
	assert_non_null(s);
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_SEND, data, 8);
	wr.flags |= UET_SES_WR_F_DEFERRABLE;
	assert_int_equal(uet_ses_submit(s, &wr, &rc), 0);
	wr.flags = UET_SES_WR_F_RENDEZVOUS;
	assert_int_equal(uet_ses_submit(s, &wr, &rc), -EOPNOTSUPP);
	assert_int_equal(rc, UET_RC_UNSUPPORTED_OP);
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_TSEND_FETCH_ATOMIC, data, 8);
	wr.atomic_op = UET_AMO_SUM;
	wr.atomic_dt = UET_AMO_DT_UINT64;
	wr.result = &res;
	assert_int_equal(uet_ses_submit(s, &wr, &rc), -EOPNOTSUPP);
	assert_int_equal(rc, UET_RC_UNSUPPORTED_OP);
	uet_ses_free(s);
}

static void
submit__bad_requests(void **state)
{
	struct uet_ses_wr wr;

	(void)state;
	ses_fakewire_wr(&w, 0, &wr, 42, data, 8);
	assert_int_equal(uet_ses_submit(w.n[0].ses, &wr, NULL), -EINVAL);
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_SEND, NULL, 8);
	assert_int_equal(uet_ses_submit(w.n[0].ses, &wr, NULL), -EINVAL);
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_DGRAM_SEND, data, 4000);
	assert_int_equal(uet_ses_submit(w.n[0].ses, &wr, NULL), -EMSGSIZE);
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_ATOMIC, data, 6);
	wr.atomic_op = UET_AMO_SUM;
	wr.atomic_dt = UET_AMO_DT_UINT32;
	assert_int_equal(uet_ses_submit(w.n[0].ses, &wr, NULL), -EINVAL);
	assert_null(uet_ses_create(NULL));
}

/*
 * read_multi__one_packet_per_mtu: a READ longer than one return packet is
 * a multi-packet request: each packet asks for at most one packet of
 * data (mtu - RESPONSE_DATA header) at its own offset, no payload; the
 * SOM names its length in the header-data slot.
 */
static void
read_multi__one_packet_per_mtu(void **state)
{
	uint32_t chunk = SFW_MTU - UET_SES_RESPONSE_DATA_LEN, k, i;
	struct uet_wire_ses_req h[8];
	struct uet_ses_wr wr;
	uint32_t pl[8];
	uint8_t fmt = 0;

	(void)state;
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_READ, data, 2 * chunk + 100);
	wr.rkey = 5;
	wr.roffset = 64;
	assert_int_equal(uet_ses_submit(w.n[0].ses, &wr, NULL), 0);
	k = take_frags(h, pl, 8, &fmt);
	assert_int_equal(fmt, UET_SES_FMT_STD);
	assert_int_equal(k, 3);
	for (i = 0; i < k; i++) {
		assert_int_equal(h[i].opcode, UET_SES_OP_READ);
		assert_int_equal(pl[i], 0);
		assert_int_equal(!!(h[i].flags & UET_SES_F_SOM), i == 0);
		assert_int_equal(!!(h[i].flags & UET_SES_F_EOM), i == 2);
		assert_int_equal(h[i].request_length, 2 * chunk + 100);
		assert_int_equal(h[i].buffer_offset, 64);
		assert_int_equal(h[i].message_id, h[0].message_id);
	}
	assert_false(h[0].flags & UET_SES_F_HD);
	assert_true(h[0].header_data == (uint64_t)chunk << 32);
	assert_int_equal(h[1].message_offset, chunk);
	assert_int_equal(h[1].payload_length, chunk);
	assert_int_equal(h[2].message_offset, 2 * chunk);
	assert_int_equal(h[2].payload_length, 100);
	/* One return packet's worth: a single packet asking for it all. */
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_READ, data, chunk);
	wr.rkey = 5;
	assert_int_equal(uet_ses_submit(w.n[0].ses, &wr, NULL), 0);
	assert_int_equal(take_frags(h, pl, 8, &fmt), 1);
	assert_int_equal(h[0].flags & (UET_SES_F_SOM | UET_SES_F_EOM),
			 UET_SES_F_SOM | UET_SES_F_EOM);
	assert_true(h[0].header_data == 0);
}

/* A PDS event for cookie @p ck, with an encoded RESPONSE @p rc when
 * @p rc is not UET_RC_NULL. */
static void
ses_ev(uint8_t type, uint64_t ck, enum uet_wire_ses_rc rc)
{
	struct uet_pds_event ev;
	struct uet_wire_ses_resp r;
	int n;

	memset(&ev, 0, sizeof(ev));
	ev.type = type;
	ev.mode = UET_PDS_MODE_RUD;
	ev.cookie = ck;
	if (rc != UET_RC_NULL) {
		memset(&r, 0, sizeof(r));
		r.fmt = UET_SES_RESP_FMT_RESPONSE;
		r.opcode = UET_SES_RSP_RESPONSE;
		r.version = UET_SES_VERSION;
		r.return_code = rc;
		n = uet_wire_ses_resp_encode(&r, ev.resp, sizeof(ev.resp));
		assert_true(n > 0);
		ev.resp_len = (uint16_t)n;
		ev.next_hdr = UET_PDS_NEXT_RESPONSE;
	}
	assert_int_equal(uet_ses_event(w.n[0].ses, &ev, NULL, 0, w.now), 0);
}

/* Submit a 3-fragment SEND; its cookies in @p ck. */
static void
three_frags(uint64_t ctx, uint64_t *ck)
{
	struct uet_pds_tx tx[8];
	struct uet_ses_wr wr;
	uint16_t n, i, k = 0;

	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_SEND, data, 2500);
	wr.context = ctx;
	assert_int_equal(uet_ses_submit(w.n[0].ses, &wr, NULL), 0);
	uet_ses_progress(w.n[0].ses, w.now);
	n = uet_pds_tx_burst(w.n[0].pds, w.now, tx, 8);
	for (i = 0; i < n; i++)
		if (tx[i].kind != UET_PDS_TX_CTL && k < 3)
			ck[k++] = tx[i].cookie;
	assert_int_equal(k, 3);
}

/*
 * resp_early__error_fails_message: a target may report an error on a
 * packet before the last of the message (in its DONE, or after it as
 * UET_PDS_EV_RESP); the EOM then completes by CACK (no response bytes,
 * the default response). The message fails with that error, not OK.
 */
static void
resp_early__error_fails_message(void **state)
{
	struct uet_ses_cqe c[4];
	uint64_t ck[3];

	(void)state;
	three_frags(70, ck);
	ses_ev(UET_PDS_EV_DONE, ck[0], UET_RC_BAD_ADDR);
	ses_ev(UET_PDS_EV_DONE, ck[1], UET_RC_NULL);
	ses_ev(UET_PDS_EV_DONE, ck[2], UET_RC_NULL);
	assert_int_equal(uet_ses_cq_poll(w.n[0].ses, c, 4), 1);
	assert_int_equal(c[0].context, 70);
	assert_int_equal(c[0].status, -EFAULT);
	assert_int_equal(c[0].prov_errno, UET_RC_BAD_ADDR);
	/* Late: the packet's DONE came first, its response after. */
	three_frags(71, ck);
	ses_ev(UET_PDS_EV_DONE, ck[0], UET_RC_NULL);
	ses_ev(UET_PDS_EV_RESP, ck[0], UET_RC_PERM_VIOLATION);
	ses_ev(UET_PDS_EV_DONE, ck[1], UET_RC_NULL);
	assert_int_equal(uet_ses_cq_poll(w.n[0].ses, c, 4), 0);
	ses_ev(UET_PDS_EV_DONE, ck[2], UET_RC_NULL);
	assert_int_equal(uet_ses_cq_poll(w.n[0].ses, c, 4), 1);
	assert_int_equal(c[0].context, 71);
	assert_int_equal(c[0].prov_errno, UET_RC_PERM_VIOLATION);
	assert_int_equal(uet_ses_stats_get(w.n[0].ses)->resp_early, 2);
	/* Default response alone: OK. */
	three_frags(72, ck);
	ses_ev(UET_PDS_EV_DONE, ck[0], UET_RC_NULL);
	ses_ev(UET_PDS_EV_DONE, ck[1], UET_RC_NULL);
	ses_ev(UET_PDS_EV_DONE, ck[2], UET_RC_NULL);
	assert_int_equal(uet_ses_cq_poll(w.n[0].ses, c, 4), 1);
	assert_int_equal(c[0].context, 72);
	assert_int_equal(c[0].status, 0);
}

/* Everything node 1 sends is lost: node 0's PDCs to it fail. */
static bool
drop_from1(struct sfw *fw, int from, const struct uet_pds_tx *t)
{
	(void)fw;
	(void)t;
	return from == 1;
}

/*
 * A message whose PDC failed under it (no ACK ever came back: the PDS's
 * RTO rounds ran out) sends none of the fragments still queued: it
 * completes with the PDC's error. Sent, they went out on a new PDC to
 * the peer just declared unreachable, which answered requests of an
 * operation both ends had failed: a rendezvous read-back whose sender
 * had revoked its key (BAD_MKEY on the reader, over memif under load),
 * a WRITE into a region the target had closed.
 */
static void
progress__failed_message_sends_no_more(void **state)
{
	static uint8_t src[256 * 1024], mem[256 * 1024];
	const struct uet_ses_cqe *c;
	struct uet_ses_wr wr;
	uint64_t key;
	uint64_t nfrags = (sizeof(src) + SFW_MTU - 1) / SFW_MTU;

	(void)state;
	key = ses_fakewire_mr(&w, 1, mem, sizeof(mem), UET_SES_MR_REMOTE_WRITE,
			      false);
	assert_true(key != 0);
	w.drop_fn = drop_from1;
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_WRITE, src, sizeof(src));
	wr.rkey = key;
	wr.context = 80;
	assert_int_equal(uet_ses_submit(w.n[0].ses, &wr, NULL), 0);
	/* about 2.2 s of RTO rounds, then the PDC fails */
	assert_true(ses_fakewire_run_cq(&w, 0, 1, 20000000000ull));
	c = ses_fakewire_cqe(&w, 0, 80);
	assert_non_null(c);
	assert_int_equal(c->status, -ETIMEDOUT);
	/* one PDC, and only what its window took went out */
	assert_int_equal(uet_pds_stats_get(w.n[0].pds)->pdc_open_init, 1);
	assert_true(uet_ses_stats_get(w.n[0].ses)->frag_tx < nfrags);
	/* nothing left behind: no PDC opened later for the rest */
	w.drop_fn = NULL;
	assert_true(ses_fakewire_run_idle(&w, 20000000000ull));
	assert_int_equal(uet_pds_stats_get(w.n[0].pds)->pdc_open_init, 1);
}

/* The message slot of the latest submission with @p context. */
static const struct ses_msg *
msg_of_ctx(uint64_t context)
{
	const struct uet_ses *s = w.n[0].ses;
	uint32_t i;

	for (i = 0; i < s->cfg.max_msgs; i++)
		if (s->msgs[i].state != SES_MSG_FREE &&
		    s->msgs[i].wr.context == context)
			return &s->msgs[i];
	fail();
	return NULL;
}

static uint64_t
msg_key(const struct ses_msg *m, uint8_t gen, uint32_t frag, bool *last,
	bool *open)
{
	return ses_msg_of(w.n[0].ses,
			  ses_cookie(SES_CK_INIT,
				     (uint32_t)(m - w.n[0].ses->msgs), gen,
				     frag),
			  last, open);
}

/*
 * uet_pds_ulp.msg_of: every packet of a send of several packets names the
 * same message (the target reassembles it on one PDC, so a closing target
 * that refuses one has none of it and all of it moves); open while packets
 * are still to submit, last on its last. A WRITE's packets stand alone at
 * the target (one may be in when another is refused), as does a one-packet
 * send: no message; but a WRITE of several packets, submitted with
 * UET_PDS_SUBMIT_SOM, is open on its PDC while packets of it are still to
 * submit: a refused packet of it is not another message the PDC must stay
 * its key's for (fuzz_dst, test/dst/fuzz-fixed/hang.held-pdc-open-message:
 * said not open, the WRITE held its PDC for itself, whose window the target
 * never opened again). A cookie of an older use of the slot names nothing.
 */
static void
msg_of__multi_packet_sends_only(void **state)
{
	struct uet_wire_ses_req h[16];
	const struct ses_msg *m;
	struct ses_msg *mw;
	struct uet_ses_wr wr;
	uint32_t pl[16], n, i;
	uint8_t fmt = 0;
	bool last = true, open = false;
	uint64_t key;

	(void)state;
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_SEND, data, 3001);
	wr.context = 1;
	assert_int_equal(uet_ses_submit(w.n[0].ses, &wr, NULL), 0);
	m = msg_of_ctx(1);
	key = msg_key(m, m->gen, 0, &last, &open);
	assert_true(key != 0);
	assert_false(last);
	assert_true(open); /* nothing submitted to the PDS yet */
	n = take_frags(h, pl, 16, &fmt);
	assert_true(n > 1);
	for (i = 0; i < n; i++) {
		assert_int_equal(msg_key(m, m->gen, i, &last, &open), key);
		assert_int_equal(last, i == n - 1);
		assert_false(open);
	}
	assert_int_equal(msg_key(m, (uint8_t)(m->gen - 1), 0, &last, &open),
			 0);
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_WRITE, data, 3001);
	wr.rkey = 5;
	wr.context = 2;
	assert_int_equal(uet_ses_submit(w.n[0].ses, &wr, NULL), 0);
	mw = (struct ses_msg *)msg_of_ctx(2);
	open = false;
	assert_int_equal(msg_key(mw, mw->gen, 0, &last, &open), 0);
	assert_true(open); /* still to submit: the message open on its PDC */
	n = take_frags(h, pl, 16, &fmt);
	assert_true(n > 1);
	for (i = 0; i < n; i++) {
		assert_int_equal(msg_key(mw, mw->gen, i, &last, &open), 0);
		assert_int_equal(last, i == n - 1);
		assert_false(open);
	}
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_SEND, data, 8);
	wr.context = 3;
	assert_int_equal(uet_ses_submit(w.n[0].ses, &wr, NULL), 0);
	m = msg_of_ctx(3);
	assert_int_equal(msg_key(m, m->gen, 0, &last, &open), 0);
}

/* The PDS has no room for requests to job 7 (its PDC's window full, say),
 * while @p stalled_job7 says so. */
static bool stalled_job7;

static int
submit_job7_stalled(void *arg, const struct uet_pds_submit *ps, uint64_t now)
{
	struct ses_fakewire_node *n = arg;

	if (stalled_job7 && ps->job == 7)
		return -EAGAIN;
	return uet_pds_submit(n->pds, ps, now);
}

static int
setup_job7_stalled(void **state)
{
	stalled_job7 = true;
	ses_fakewire_submit = submit_job7_stalled;
	return setup(state);
}

static int
teardown_job7_stalled(void **state)
{
	ses_fakewire_submit = NULL;
	return ses_fakewire_teardown(state);
}

/*
 * A peer {FA, job} whose PDC takes no more holds back its own messages
 * only: the others go meanwhile, and its own go, in order, once it takes
 * them again. With one submission queue for all, a message to a peer that
 * took nothing (partitioned, its window full until its PDC failed) held
 * back every later message of the node to every other peer, and in the
 * service those of every other process.
 */
static void
progress__stalled_peer_holds_back_its_own_only(void **state)
{
	struct uet_ses_wr wr;

	(void)state;
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_WRITE, data, 3000);
	wr.rkey = 5;
	wr.job = 7;
	wr.context = 1;
	assert_int_equal(uet_ses_submit(w.n[0].ses, &wr, NULL), 0);
	wr.context = 2;
	assert_int_equal(uet_ses_submit(w.n[0].ses, &wr, NULL), 0);
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_SEND, data, 8);
	wr.context = 3;
	assert_int_equal(uet_ses_submit(w.n[0].ses, &wr, NULL), 0);
	assert_true(ses_fakewire_run_cq(&w, 0, 1, 100000000));
	assert_int_equal(w.n[0].cq[0].context, 3);
	assert_int_equal(msg_of_ctx(1)->next_frag, 0);
	assert_int_equal(msg_of_ctx(2)->next_frag, 0);
	/* Job 7's PDC takes them again: both go, the first first. */
	stalled_job7 = false;
	assert_true(ses_fakewire_run_cq(&w, 0, 3, 100000000));
	assert_int_equal(w.n[0].cq[1].context, 1);
	assert_int_equal(w.n[0].cq[2].context, 2);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fmt_choose__rules),
		cmocka_unit_test_setup_teardown(fragment__std_offsets, setup,
						ses_fakewire_teardown),
		cmocka_unit_test_setup_teardown(build_csum__odd_lengths_and_unknown,
						setup, ses_fakewire_teardown),
		cmocka_unit_test_setup_teardown(msg_of__multi_packet_sends_only,
						setup, ses_fakewire_teardown),
		cmocka_unit_test_setup_teardown(fragment__medium_single_and_ids,
						setup, ses_fakewire_teardown),
		cmocka_unit_test_setup_teardown(fragment__atomic_cas_ext,
						setup, ses_fakewire_teardown),
		cmocka_unit_test_setup_teardown(submit__profile_enforced, setup,
						ses_fakewire_teardown),
		cmocka_unit_test_setup_teardown(submit__bad_requests, setup,
						ses_fakewire_teardown),
		cmocka_unit_test_setup_teardown(resp_early__error_fails_message,
						setup, ses_fakewire_teardown),
		cmocka_unit_test_setup_teardown(read_multi__one_packet_per_mtu,
						setup, ses_fakewire_teardown),
		cmocka_unit_test_setup_teardown(
			progress__failed_message_sends_no_more, setup,
			ses_fakewire_teardown),
		cmocka_unit_test_setup_teardown(
			progress__stalled_peer_holds_back_its_own_only,
			setup_job7_stalled, teardown_job7_stalled),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
