/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SES target side: crafted requests (uet_wire_ses_req_encode()) delivered
 * straight to one SES instance as PDS DELIVER events, one test per group
 * of return codes. Every request answers exactly one return code (counted
 * in uet_ses_stats.rx_rc), and the memory around (and, on error, inside)
 * the addressed region is checked byte for byte after each request.
 *
 * The instance is node 1 of ses_fakewire.h (pid 1, job 42, RMA RI 1, MSG
 * RI 2); the wire is not run: responses go to a PDC handle the PDS does
 * not know (counted in resp_fail), which the SES treats like any other.
 */

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <uet/uet_ses.h>
#include <uet/uet_ses_amo.h>

#include "ses_fakewire.h"

#define ARENA 8192
#define REGION_OFF 2048
#define REGION_LEN 4096
#define GUARD 0x5A
#define FAKE_PDC 7

static struct sfw w;
static _Alignas(64) uint8_t arena[ARENA];
static uint8_t *region = arena + REGION_OFF;
static uint8_t snap[ARENA];
static uint32_t psn = 100;
static uint32_t deliver_pdc = FAKE_PDC; /* the PDC requests come on */

static struct uet_ses *
tgt(void)
{
	return w.n[1].ses;
}

/* The wire of @p p, left in *state for ses_fakewire_teardown(). */
static int
setup_profile(void **state, enum uet_wire_profile p)
{
	*state = &w;
	if (ses_fakewire_init(&w, p, 99) != 0)
		return -1;
	memset(arena, GUARD, sizeof(arena));
	return 0;
}

static int
setup_hpc(void **state)
{
	return setup_profile(state, UET_PROFILE_HPC);
}

static int
setup_full(void **state)
{
	return setup_profile(state, UET_PROFILE_AI_FULL);
}

static int
setup_base(void **state)
{
	return setup_profile(state, UET_PROFILE_AI_BASE);
}

/* A request header with the addressing of node 1's tables. */
static void
req(struct uet_wire_ses_req *h, uint8_t opcode, uint32_t len)
{
	memset(h, 0, sizeof(*h));
	h->opcode = opcode;
	h->version = UET_SES_VERSION;
	h->flags = UET_SES_F_SOM | UET_SES_F_EOM | UET_SES_F_REL;
	h->job_id = SFW_JOB;
	h->pid_on_fep = SFW_PID;
	h->resource_index = SFW_RI_RMA;
	h->initiator = 100;
	h->request_length = len;
}

/*
 * Deliver @p h (+ payload) to the target; returns the return code it
 * answered (0xFF: none). Exactly one code must have been counted.
 */
static unsigned int
deliver_fmt(const struct uet_wire_ses_req *h, enum uet_wire_ses_fmt fmt,
	    const void *pl, uint32_t plen)
{
	static uint8_t buf[SFW_MTU + 256];
	struct uet_pds_event ev;
	uint64_t before[64];
	unsigned int i, rc = 0xFF, hits = 0;
	struct uet_wire_ses_req c = *h;
	int n;

	c.ext = uet_wire_ses_req_ext_needed(&c);
	n = uet_wire_ses_req_encode(&c, fmt, buf, sizeof(buf));
	if (n <= 0)
		print_error("encode opcode %u: %d\n", c.opcode, n);
	assert_true(n > 0);
	assert_true((size_t)n + plen <= sizeof(buf));
	if (plen)
		memcpy(buf + n, pl, plen);
	memset(&ev, 0, sizeof(ev));
	ev.type = UET_PDS_EV_DELIVER;
	ev.mode = UET_PDS_MODE_RUD;
	ev.next_hdr = (uint8_t)uet_wire_ses_fmt_to_next_hdr(fmt);
	ev.pdc = deliver_pdc;
	ev.psn = psn++;
	ev.peer = w.n[0].fa;
	memcpy(before, uet_ses_stats_get(tgt())->rx_rc, sizeof(before));
	uet_ses_event(tgt(), &ev, buf, (uint16_t)(n + plen), w.now);
	for (i = 0; i < 64; i++) {
		uint64_t d = uet_ses_stats_get(tgt())->rx_rc[i] - before[i];

		if (d) {
			rc = i;
			hits += (unsigned int)d;
		}
	}
	if (rc != 0xFF)
		assert_int_equal(hits, 1);
	return rc;
}

static unsigned int
deliver(const struct uet_wire_ses_req *h, const void *pl, uint32_t plen)
{
	return deliver_fmt(h, UET_SES_FMT_STD, pl, plen);
}

static void
arena_snap(void)
{
	memcpy(snap, arena, sizeof(arena));
}

/* Nothing at all written since the snapshot. */
static void
arena_same(void)
{
	assert_memory_equal(arena, snap, sizeof(arena));
}

/* Only [off, off + len) of the region may differ from the snapshot. */
static void
arena_only(uint32_t off, uint32_t len)
{
	assert_memory_equal(arena, snap, REGION_OFF + off);
	assert_memory_equal(arena + REGION_OFF + off + len,
			    snap + REGION_OFF + off + len,
			    ARENA - REGION_OFF - off - len);
}

static uint64_t
reg(uint32_t access)
{
	uint64_t key = ses_fakewire_mr(&w, 1, region, REGION_LEN, access, false);

	assert_true(key != 0);
	return key;
}

/* ---- resolution codes (UEC 1.0 SES target-side resolution), WRITE ---- */

static void
write__every_resolution_code(void **state)
{
	uint64_t key = reg(UET_SES_MR_REMOTE_WRITE);
	uint64_t rokey = reg(UET_SES_MR_REMOTE_READ);
	static uint8_t pl[64];
	struct uet_wire_ses_req h, b;

	(void)state;
	memset(pl, 0xC3, sizeof(pl));
	req(&b, UET_SES_OP_WRITE, 64);
	b.match_bits = key;
	b.buffer_offset = 100;
	arena_snap();
	h = b;
	h.pid_on_fep = 3;
	assert_int_equal(deliver(&h, pl, 64), UET_RC_BAD_PID);
	h = b;
	h.job_id = 43;
	assert_int_equal(deliver(&h, pl, 64), UET_RC_BAD_JOB_ID);
	h = b;
	h.resource_index = 9;
	assert_int_equal(deliver(&h, pl, 64), UET_RC_BAD_INDEX);
	h = b;
	h.resource_index = SFW_RI_MSG;
	assert_int_equal(deliver(&h, pl, 64), UET_RC_OP_VIOLATION);
	h = b;
	h.match_bits = key ^ 0x10000;
	assert_int_equal(deliver(&h, pl, 64), UET_RC_BAD_MKEY);
	h = b;
	h.ri_generation = 9;
	assert_int_equal(deliver(&h, pl, 64), UET_RC_BAD_GENERATION);
	h = b;
	h.match_bits = rokey;
	assert_int_equal(deliver(&h, pl, 64), UET_RC_PERM_VIOLATION);
	h = b;
	h.buffer_offset = REGION_LEN;
	assert_int_equal(deliver(&h, pl, 64), UET_RC_BAD_ADDR);
	h = b;
	h.buffer_offset = REGION_LEN - 63;
	assert_int_equal(deliver(&h, pl, 64), UET_RC_TOO_LONG);
	assert_int_equal(uet_ses_mr_enable(w.n[1].mr, key, false), 0);
	assert_int_equal(deliver(&b, pl, 64), UET_RC_DISABLED_GEN);
	assert_int_equal(uet_ses_mr_enable(w.n[1].mr, key, true), 0);
	assert_int_equal(uet_ses_ri_enable(w.n[1].mr, w.n[1].ri_rma, false), 0);
	assert_int_equal(deliver(&b, pl, 64), UET_RC_DISABLED);
	assert_int_equal(uet_ses_ri_enable(w.n[1].mr, w.n[1].ri_rma, true), 0);
	arena_same();
	/* Continuation whose payload_length disagrees with the packet. */
	h = b;
	h.flags = UET_SES_F_EOM | UET_SES_F_REL;
	h.request_length = 128;
	h.message_offset = 64;
	h.payload_length = 60;
	assert_int_equal(deliver(&h, pl, 64), UET_RC_UNSUPPORTED_SIZE);
	arena_same();
	/* Last byte exactly at the end: OK, only those bytes change. */
	h = b;
	h.buffer_offset = REGION_LEN - 64;
	assert_int_equal(deliver(&h, pl, 64), UET_RC_OK);
	arena_only(REGION_LEN - 64, 64);
	assert_memory_equal(region + REGION_LEN - 64, pl, 64);
	assert_int_equal(arena[REGION_OFF + REGION_LEN], GUARD);
}

/* ---- atomics: AMO codes before any byte is touched ---- */

static void
atomic__amo_codes(void **state)
{
	uint64_t key = reg(UET_SES_MR_REMOTE_ATOMIC | UET_SES_MR_REMOTE_READ);
	uint64_t v[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	struct uet_wire_ses_req h, b;

	(void)state;
	req(&b, UET_SES_OP_ATOMIC, 8);
	b.match_bits = key;
	b.buffer_offset = 16;
	b.atomic.op = UET_AMO_SUM;
	b.atomic.datatype = UET_AMO_DT_UINT64;
	arena_snap();
	h = b;
	h.atomic.op = UET_AMO_BAND;
	h.atomic.datatype = UET_AMO_DT_FLOAT;
	h.request_length = 4;
	assert_int_equal(deliver(&h, v, 4), UET_RC_AMO_UNSUPPORTED_OP);
	h = b;
	h.atomic.datatype = UET_AMO_DT_LONG_DOUBLE_COMPLEX;
	h.atomic.semantic_control = UET_SES_AMO_SC_CPU_COHERENT;
	h.request_length = 32;
	assert_int_equal(deliver(&h, v, 32), UET_RC_AMO_UNSUPPORTED_DT);
	h = b;
	h.request_length = 6;
	assert_int_equal(deliver(&h, v, 6), UET_RC_AMO_UNSUPPORTED_SIZE);
	h = b;
	h.buffer_offset = 18;
	assert_int_equal(deliver(&h, v, 8), UET_RC_AMO_UNALIGNED);
	/* Payload shorter than request_length. */
	assert_int_equal(deliver(&b, v, 4), UET_RC_AMO_UNSUPPORTED_SIZE);
	/* Fetch result larger than a RESPONSE_DATA_SMALL carries. */
	h = b;
	h.opcode = UET_SES_OP_FETCHING_ATOMIC;
	h.request_length = 64;
	assert_int_equal(deliver(&h, v, 64), UET_RC_AMO_UNSUPPORTED_SIZE);
	h = b;
	h.buffer_offset = REGION_LEN - 4;
	assert_int_equal(deliver(&h, v, 8), UET_RC_TOO_LONG);
	arena_same();
	memset(region + 16, 0, 8);
	arena_snap();
	assert_int_equal(deliver(&b, v, 8), UET_RC_OK);
	arena_only(16, 8);
	assert_int_equal(*(uint64_t *)(region + 16), 1);
}

/* ---- READ: small in the ACK, large in the return direction ---- */

static void
read__sizes_and_dropped(void **state)
{
	uint64_t key = reg(UET_SES_MR_REMOTE_READ);
	struct uet_ses_pool_info pi;
	struct uet_wire_ses_req h;
	uint32_t i;

	(void)state;
	req(&h, UET_SES_OP_READ, 36);
	h.match_bits = key;
	arena_snap();
	assert_int_equal(deliver(&h, NULL, 0), UET_RC_OK);
	/* Large READs take a return-direction slot each until their data
	 * is acknowledged (never here): the pool runs out -> DROPPED. */
	h.request_length = 3000;
	for (i = 0; i < 2048; i++)
		assert_int_equal(deliver(&h, NULL, 0), UET_RC_OK);
	uet_ses_pool_info_get(tgt(), &pi);
	assert_int_equal(pi.ret_used, 2048);
	assert_int_equal(deliver(&h, NULL, 0), UET_RC_DROPPED);
	arena_same();
}

/* Submissions of the target (uet_ses_config.submit), accepted. */
static struct uet_pds_submit subs[64];
static uint32_t nsubs;

static int
capture_submit(void *arg, const struct uet_pds_submit *ps, uint64_t now)
{
	(void)arg;
	(void)now;
	if (nsubs < 64)
		subs[nsubs++] = *ps;
	return 0;
}

static int
setup_capture(void **state)
{
	ses_fakewire_submit = capture_submit;
	nsubs = 0;
	return setup_profile(state, UET_PROFILE_HPC);
}

static int
setup_capture_full(void **state)
{
	ses_fakewire_submit = capture_submit;
	nsubs = 0;
	return setup_profile(state, UET_PROFILE_AI_FULL);
}

static int
teardown_capture(void **state)
{
	ses_fakewire_submit = NULL;
	return ses_fakewire_teardown(state);
}

/* The return-direction packets submitted since @p from: each a
 * RESPONSE_DATA of the READ with the region's bytes at its offset; bit i
 * of @p seen counts byte-range chunks of 100 bytes served (exactly once). */
static uint32_t
ret_bytes_since(uint32_t from, uint32_t *served, uint32_t total)
{
	static uint8_t buf[SFW_MTU + 64];
	struct uet_wire_ses_resp r;
	uint32_t i, k, sum = 0;
	int n, hl;

	uet_ses_progress(tgt(), w.now);
	for (i = from; i < nsubs; i++) {
		assert_int_equal(subs[i].next_hdr, UET_PDS_NEXT_RESPONSE_DATA);
		assert_true(subs[i].flags & UET_PDS_SUBMIT_PDC);
		n = uet_ses_build(tgt(), subs[i].cookie, 0, buf, sizeof(buf));
		assert_int_equal(n, subs[i].len);
		hl = uet_wire_ses_resp_decode(buf, (size_t)n, UET_SES_RESP_FMT_DATA,
					 &r);
		assert_true(hl > 0);
		assert_int_equal(r.payload_length, n - hl);
		assert_true(r.message_offset + r.payload_length <= total);
		assert_memory_equal(buf + hl, region + r.message_offset,
				    r.payload_length);
		for (k = 0; k < r.payload_length; k++)
			served[r.message_offset + k]++;
		sum += r.payload_length;
	}
	return sum;
}

/*
 * read_multi__served_once_per_packet: a spec-style multi-packet READ,
 * each packet asking for at most one packet of data at its own offset
 * (SOM: in the header-data slot), arriving out of order: the target
 * serves each packet's own range, so every byte goes back exactly once.
 * A packet asking past request_length is refused, nothing sent.
 */
static void
read_multi__served_once_per_packet(void **state)
{
	uint64_t key = reg(UET_SES_MR_REMOTE_READ);
	uint32_t chunk = SFW_MTU - UET_SES_RESPONSE_DATA_LEN, total = 3000;
	static uint32_t served[4096];
	struct uet_wire_ses_req h[3];
	uint32_t i, sum = 0, from;
	const int order[3] = { 2, 0, 1 };

	(void)state;
	for (i = 0; i < REGION_LEN; i++)
		region[i] = (uint8_t)(i * 13 + 1);
	for (i = 0; i < 3; i++) {
		req(&h[i], UET_SES_OP_READ, total);
		h[i].match_bits = key;
		h[i].message_id = 9;
		h[i].flags = UET_SES_F_REL | (i == 0 ? UET_SES_F_SOM : 0) |
			     (i == 2 ? UET_SES_F_EOM : 0);
		if (i == 0) {
			h[i].header_data = (uint64_t)chunk << 32;
		} else {
			h[i].message_offset = i * chunk;
			h[i].payload_length =
				(uint16_t)(i == 2 ? total - 2 * chunk : chunk);
		}
	}
	memset(served, 0, sizeof(served));
	for (i = 0; i < 3; i++) {
		from = nsubs;
		/* only the EOM packet answers; the others count no code */
		assert_int_equal(deliver(&h[order[i]], NULL, 0),
				 order[i] == 2 ? UET_RC_OK : 0xFF);
		sum += ret_bytes_since(from, served, total);
	}
	assert_int_equal(sum, total);
	for (i = 0; i < total; i++)
		assert_int_equal(served[i], 1);
	/* Past request_length: UNSUPPORTED_SIZE, nothing served. */
	h[1].payload_length = (uint16_t)chunk;
	h[1].message_offset = total - 10;
	from = nsubs;
	assert_int_equal(deliver(&h[1], NULL, 0), UET_RC_UNSUPPORTED_SIZE);
	assert_int_equal(ret_bytes_since(from, served, total), 0);
	/* A SOM whose slot names another offset: refused too. */
	h[0].header_data = (uint64_t)chunk << 32 | 5;
	assert_int_equal(deliver(&h[0], NULL, 0), UET_RC_UNSUPPORTED_SIZE);
}

/* Submissions on this PDC are refused (-EAGAIN: its window is full). */
static uint32_t full_pdc = UINT32_MAX;

static int
full_submit(void *arg, const struct uet_pds_submit *ps, uint64_t now)
{
	if ((ps->flags & UET_PDS_SUBMIT_PDC) && ps->pdc == full_pdc)
		return -EAGAIN;
	return capture_submit(arg, ps, now);
}

static int
setup_full_pdc(void **state)
{
	ses_fakewire_submit = full_submit;
	nsubs = 0;
	return setup_profile(state, UET_PROFILE_HPC);
}

static int
teardown_full_pdc(void **state)
{
	full_pdc = UINT32_MAX;
	deliver_pdc = FAKE_PDC;
	return teardown_capture(state);
}

static uint32_t
subs_on(uint32_t pdc)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < nsubs; i++)
		n += subs[i].pdc == pdc;
	return n;
}

/*
 * ses_ret_progress__full_pdc_holds_only_its_own: the return data of a
 * READ whose PDC is full waits, in order, and the READs of other PDCs
 * queued behind it go at once (one return queue once stalled every PDC
 * behind the first full one).
 */
static void
ses_ret_progress__full_pdc_holds_only_its_own(void **state)
{
	uint64_t key = reg(UET_SES_MR_REMOTE_READ);
	const uint32_t total = 3000, a = FAKE_PDC, b = FAKE_PDC + 1;
	static uint32_t served[4096];
	struct uet_wire_ses_req h;
	uint32_t from;

	(void)state;
	full_pdc = a;
	req(&h, UET_SES_OP_READ, total);
	h.match_bits = key;
	h.message_id = 1;
	deliver_pdc = a;
	assert_int_equal(deliver(&h, NULL, 0), UET_RC_OK);
	h.message_id = 2;
	assert_int_equal(deliver(&h, NULL, 0), UET_RC_OK);
	h.message_id = 3;
	deliver_pdc = b;
	assert_int_equal(deliver(&h, NULL, 0), UET_RC_OK);
	uet_ses_progress(tgt(), w.now);
	assert_int_equal(subs_on(a), 0);
	memset(served, 0, sizeof(served));
	assert_int_equal(ret_bytes_since(0, served, total), total);
	assert_int_equal(subs_on(b), nsubs);
	/* the window opens: PDC a's two READs go, in order */
	full_pdc = UINT32_MAX;
	from = nsubs;
	memset(served, 0, sizeof(served));
	assert_int_equal(ret_bytes_since(from, served, total), 2 * total);
	assert_int_equal(subs_on(a), nsubs - from);
}

/* ---- the send family ---- */

static void
send__codes(void **state)
{
	static uint8_t pl[SFW_MTU];
	static uint8_t rbuf[512];
	struct uet_ses_recv r;
	struct uet_wire_ses_req h;
	struct uet_ses_cqe c;
	uint32_t i;

	(void)state;
	memset(pl, 0x11, sizeof(pl));
	req(&h, UET_SES_OP_SEND, 64);
	h.resource_index = SFW_RI_RMA;
	assert_int_equal(deliver(&h, pl, 64), UET_RC_OP_VIOLATION);
	h.resource_index = SFW_RI_MSG;
	h.ri_generation = 77;
	assert_int_equal(deliver(&h, pl, 64), UET_RC_BAD_GENERATION);
	assert_int_equal(uet_ses_ri_generation(w.n[1].mr, w.n[1].ri_msg,
					       &h.ri_generation), 0);
	/* Single packet whose payload is not the message. */
	assert_int_equal(deliver(&h, pl, 60), UET_RC_UNSUPPORTED_SIZE);
	/* Expected: lands in the receive, nothing beyond it. */
	memset(rbuf, GUARD, sizeof(rbuf));
	memset(&r, 0, sizeof(r));
	r.op = 1;
	r.context = 5;
	r.buf = rbuf;
	r.len = 64;
	assert_int_equal(uet_ses_recv_post(tgt(), &r, w.now), 0);
	assert_int_equal(deliver(&h, pl, 64), UET_RC_OK);
	assert_int_equal(uet_ses_cq_poll(tgt(), &c, 1), 1);
	assert_int_equal(c.context, 5);
	assert_int_equal(c.len, 64);
	assert_int_equal(c.status, 0);
	assert_memory_equal(rbuf, pl, 64);
	for (i = 64; i < sizeof(rbuf); i++)
		assert_int_equal(rbuf[i], GUARD);
	/* Multi-packet SOMs that never finish hold a record each; beyond
	 * max_tgt_msgs (256): UNDELIVERABLE on the EOM packet. */
	h.flags = UET_SES_F_SOM | UET_SES_F_REL;
	h.request_length = 2 * SFW_MTU;
	for (i = 0; i < 256; i++) {
		h.message_id = (uint16_t)(1 + i);
		/* Non-EOM packets count their code without a response. */
		assert_int_equal(deliver(&h, pl, SFW_MTU - UET_SES_STD_LEN),
				 0xFF);
	}
	h.message_id = 999;
	h.flags = UET_SES_F_SOM | UET_SES_F_EOM | UET_SES_F_REL;
	h.request_length = 64;
	h.opcode = UET_SES_OP_DEFERRABLE_SEND; /* profile first: HPC */
	assert_int_equal(deliver(&h, pl, 64), UET_RC_UNSUPPORTED_OP);
	h.opcode = UET_SES_OP_SEND;
	h.flags = UET_SES_F_EOM | UET_SES_F_REL;
	h.request_length = 2 * SFW_MTU;
	h.message_offset = 1000;
	h.payload_length = 64;
	assert_int_equal(deliver(&h, pl, 64), UET_RC_UNDELIVERABLE);
	assert_true(uet_ses_stats_get(tgt())->tgt_exhaust > 0);
}

/* ---- tagged atomics (HPC): matched, then applied in the receive ---- */

static void
post_t(uint64_t ctx, void *buf, uint64_t len, uint64_t tag)
{
	struct uet_ses_recv r;

	memset(&r, 0, sizeof(r));
	r.op = 2;
	r.context = ctx;
	r.buf = buf;
	r.len = len;
	r.tag = tag;
	assert_int_equal(uet_ses_recv_post(tgt(), &r, w.now), 0);
}

static void
tamo__codes(void **state)
{
	uint64_t one = 3;
	struct uet_wire_ses_req h, b;
	struct uet_ses_cqe c;

	(void)state;
	req(&b, UET_SES_OP_TSEND_FETCH_ATOMIC, 8);
	b.resource_index = SFW_RI_MSG;
	assert_int_equal(uet_ses_ri_generation(w.n[1].mr, w.n[1].ri_msg,
					       &b.ri_generation), 0);
	b.match_bits = 0xABC;
	b.atomic.op = UET_AMO_SUM;
	b.atomic.datatype = UET_AMO_DT_UINT64;
	memset(region, 0, 64);
	arena_snap();
	assert_int_equal(deliver(&b, &one, 8), UET_RC_NO_MATCH);
	post_t(1, region + 8, 16, 0xABC);
	/* Bad operands do not consume the receive. */
	h = b;
	h.atomic.op = UET_AMO_BAND;
	h.atomic.datatype = UET_AMO_DT_DOUBLE;
	assert_int_equal(deliver(&h, &one, 8), UET_RC_AMO_UNSUPPORTED_OP);
	h = b;
	h.request_length = 40;
	assert_int_equal(deliver(&h, &one, 8), UET_RC_AMO_UNSUPPORTED_SIZE);
	arena_same();
	assert_int_equal(uet_ses_cq_poll(tgt(), &c, 1), 0);
	/* Fits: applied at buffer_offset 8 of the receive. */
	h = b;
	h.buffer_offset = 8;
	assert_int_equal(deliver(&h, &one, 8), UET_RC_OK);
	arena_only(16, 8);
	assert_int_equal(*(uint64_t *)(region + 16), 3);
	assert_int_equal(uet_ses_cq_poll(tgt(), &c, 1), 1);
	assert_int_equal(c.context, 1);
	assert_int_equal(c.len, 8);
	assert_int_equal(c.tag, 0xABC);
	assert_int_equal(c.flags, UET_SES_CQ_RECV | UET_SES_CQ_TAGGED |
			 UET_SES_CQ_SRC);
	/* Beyond the receive: the receive fails, nothing written. */
	arena_snap();
	post_t(2, region + 8, 16, 0xABC);
	h.buffer_offset = 12;
	assert_int_equal(deliver(&h, &one, 8), UET_RC_TOO_LONG);
	post_t(3, region + 8, 16, 0xABC);
	h.buffer_offset = 16;
	assert_int_equal(deliver(&h, &one, 8), UET_RC_BAD_ADDR);
	post_t(4, region + 9, 16, 0xABC);
	h.buffer_offset = 0;
	assert_int_equal(deliver(&h, &one, 8), UET_RC_AMO_UNALIGNED);
	arena_same();
	assert_int_equal(uet_ses_cq_poll(tgt(), &c, 1), 1);
	assert_int_equal(c.status, -EMSGSIZE);
	assert_int_equal(uet_ses_cq_poll(tgt(), &c, 1), 1);
	assert_int_equal(c.status, -EFAULT);
	assert_int_equal(c.prov_errno, UET_RC_BAD_ADDR);
	assert_int_equal(uet_ses_cq_poll(tgt(), &c, 1), 1);
	assert_int_equal(c.prov_errno, UET_RC_AMO_UNALIGNED);
	/* Multi-packet tagged atomic: refused. */
	h = b;
	h.flags = UET_SES_F_SOM | UET_SES_F_REL;
	assert_int_equal(deliver(&h, &one, 8), UET_RC_AMO_UNSUPPORTED_SIZE);
}

/* ---- rendezvous (HPC) target: header checks, read-back issued ---- */

static void
rdv__target(void **state)
{
	static uint8_t pl[64], rbuf[4096];
	struct uet_ses_pool_info pi;
	struct uet_wire_ses_req h;

	(void)state;
	memset(pl, 0x22, sizeof(pl));
	req(&h, UET_SES_OP_RENDEZVOUS_TSEND, 3000);
	h.resource_index = SFW_RI_MSG;
	assert_int_equal(uet_ses_ri_generation(w.n[1].mr, w.n[1].ri_msg,
					       &h.ri_generation), 0);
	h.match_bits = 5;
	h.message_id = 1;
	h.rdv.eager_length = 64;
	h.rdv.read_pid_on_fep = SFW_PID;
	h.rdv.read_resource_index = SFW_RI_RDV;
	h.rdv.read_offset = 64;
	h.rdv.read_key_or_match = 0x1234;
	/* eager_length must equal the payload. */
	assert_int_equal(deliver(&h, pl, 60), UET_RC_UNSUPPORTED_SIZE);
	/* Unexpected: answered OK on list OVERFLOW, no read yet. */
	assert_int_equal(deliver(&h, pl, 64), UET_RC_OK);
	assert_int_equal(uet_ses_stats_get(tgt())->rdv_reads, 0);
	uet_ses_pool_info_get(tgt(), &pi);
	assert_int_equal(pi.tgt_used, 1);
	post_t(9, rbuf, sizeof(rbuf), 5);
	assert_int_equal(uet_ses_stats_get(tgt())->rdv_reads, 1);
	assert_memory_equal(rbuf, pl, 64);
	uet_ses_pool_info_get(tgt(), &pi);
	assert_int_equal(pi.msgs_used, 1); /* the READ of the rest */
	/* Expected: the read starts at once. */
	post_t(10, rbuf, sizeof(rbuf), 6);
	h.match_bits = 6;
	h.message_id = 2;
	assert_int_equal(deliver(&h, pl, 64), UET_RC_OK);
	assert_int_equal(uet_ses_stats_get(tgt())->rdv_reads, 2);
}

/* ---- profiles at the target (UEC 1.0 profiles) ---- */

static void
profile__base(void **state)
{
	static uint8_t pl[SFW_MTU + 8];
	struct uet_wire_ses_req h;
	uint64_t key = reg(UET_SES_MR_REMOTE_READ | UET_SES_MR_REMOTE_ATOMIC);
	static const uint8_t ops[] = {
		UET_SES_OP_READ, UET_SES_OP_FETCHING_ATOMIC,
		UET_SES_OP_RENDEZVOUS_SEND, UET_SES_OP_RENDEZVOUS_TSEND,
		UET_SES_OP_DEFERRABLE_SEND, UET_SES_OP_DEFERRABLE_TSEND,
		UET_SES_OP_TSEND_ATOMIC, UET_SES_OP_TSEND_FETCH_ATOMIC,
	};
	size_t i;

	(void)state;
	arena_snap();
	for (i = 0; i < sizeof(ops); i++) {
		req(&h, ops[i], 8);
		h.match_bits = key;
		if (uet_wire_ses_req_ext_needed(&h) == UET_SES_EXT_ATOMIC) {
			h.atomic.op = UET_AMO_SUM;
			h.atomic.datatype = UET_AMO_DT_UINT64;
		}
		if (ops[i] == UET_SES_OP_RENDEZVOUS_SEND ||
		    ops[i] == UET_SES_OP_RENDEZVOUS_TSEND)
			h.rdv.eager_length = 8;
		assert_int_equal(deliver(&h, pl,
					 ops[i] == UET_SES_OP_READ ? 0 : 8),
				 UET_RC_UNSUPPORTED_OP);
	}
	/* SEND above one MTU. */
	req(&h, UET_SES_OP_SEND, 2 * SFW_MTU);
	h.resource_index = SFW_RI_MSG;
	/* Every packet gets the same code; only the EOM is answered. */
	h.flags = UET_SES_F_SOM | UET_SES_F_REL;
	assert_int_equal(deliver(&h, pl, 8), UET_RC_TOO_LONG);
	h.flags |= UET_SES_F_EOM;
	h.request_length = 2 * SFW_MTU;
	assert_int_equal(deliver(&h, pl, SFW_MTU - UET_SES_STD_LEN),
			 UET_RC_TOO_LONG);
	arena_same();
}

static void
profile__full(void **state)
{
	static uint8_t pl[64];
	struct uet_ses_recv r;
	struct uet_wire_ses_req h;

	(void)state;
	req(&h, UET_SES_OP_RENDEZVOUS_SEND, 100);
	h.resource_index = SFW_RI_MSG;
	h.rdv.eager_length = 8;
	assert_int_equal(deliver(&h, pl, 8), UET_RC_UNSUPPORTED_OP);
	req(&h, UET_SES_OP_TSEND_ATOMIC, 8);
	h.resource_index = SFW_RI_MSG;
	h.atomic.op = UET_AMO_SUM;
	h.atomic.datatype = UET_AMO_DT_UINT64;
	assert_int_equal(deliver(&h, pl, 8), UET_RC_UNSUPPORTED_OP);
	/* RTR naming no send of ours: answered CANCELLED and counted. */
	req(&h, UET_SES_OP_DEFERRABLE_RTR, 0);
	h.message_id = 3;
	uet_wire_ses_req_set_tokens(&h, 0x01000005u, 0x02000001u);
	assert_int_equal(deliver(&h, NULL, 0), UET_RC_CANCELLED);
	assert_int_equal(uet_ses_stats_get(tgt())->rtr_stale, 1);
	/* An RTR without a target token is malformed. */
	uet_wire_ses_req_set_tokens(&h, 0x01000005u, 0);
	assert_int_equal(deliver(&h, NULL, 0), UET_RC_UNSUPPORTED_SIZE);
	/* A restarted deferrable send naming an unknown record. */
	req(&h, UET_SES_OP_DEFERRABLE_SEND, 8);
	h.resource_index = SFW_RI_MSG;
	assert_int_equal(uet_ses_ri_generation(w.n[1].mr, w.n[1].ri_msg,
					       &h.ri_generation), 0);
	h.message_id = 4;
	uet_wire_ses_req_set_tokens(&h, 0x01000001u, 0x05000002u);
	assert_int_equal(deliver(&h, pl, 8), UET_RC_NO_MATCH);
	/* A new deferrable send without a receive: deferred (NO_MATCH on
	 * list OVERFLOW), its record kept for the RTR. */
	uet_wire_ses_req_set_tokens(&h, 0x01000001u, 0);
	h.message_id = 5;
	assert_int_equal(deliver(&h, pl, 8), UET_RC_NO_MATCH);
	assert_int_equal(uet_ses_stats_get(tgt())->rtr_tx, 0);
	/* The matching receive sends the DEFERRABLE_RTR. */
	memset(&r, 0, sizeof(r));
	r.op = 1;
	r.context = 1;
	r.buf = pl + 32;
	r.len = 8;
	assert_int_equal(uet_ses_recv_post(tgt(), &r, w.now), 0);
	assert_int_equal(uet_ses_stats_get(tgt())->rtr_tx, 1);
}

/* The target token of the DEFERRABLE_RTR submitted last (captured). */
static uint32_t
rtr_token_target(void)
{
	static uint8_t buf[SFW_MTU + 64];
	struct uet_wire_ses_req r;
	int n;

	uet_ses_progress(tgt(), w.now);
	assert_true(nsubs > 0);
	n = uet_ses_build(tgt(), subs[nsubs - 1].cookie, 0, buf, sizeof(buf));
	assert_int_equal(n, subs[nsubs - 1].len);
	assert_true(uet_wire_ses_req_decode(buf, (size_t)n, UET_SES_FMT_STD,
					    &r) > 0);
	assert_int_equal(r.opcode, UET_SES_OP_DEFERRABLE_RTR);
	return uet_wire_ses_req_token_target(&r);
}

static void
post_defer_recv(uint64_t ctx, void *buf)
{
	struct uet_ses_recv r;

	memset(&r, 0, sizeof(r));
	r.op = 1;
	r.context = ctx;
	r.buf = buf;
	r.len = 8;
	assert_int_equal(uet_ses_recv_post(tgt(), &r, w.now), 0);
}

/*
 * defer_restart__both_tokens_name_the_send: two deferred sends, a receive
 * bound to each. A restart that carries the target token of the second's
 * record but the initiator token of the first is not the second send: it
 * is refused (NO_MATCH, rtr_stale) and the second receive stays empty.
 * The target used to look at the target token alone: a target that
 * restarted and whose record generations happened to repeat put one
 * send's data in another's receive (uet-dst, payload).
 */
static void
defer_restart__both_tokens_name_the_send(void **state)
{
	static uint8_t pa[8], pb[8], ra[8], rb[8];
	struct uet_wire_ses_req ha, hb;
	uint32_t ta, tb;
	struct uet_ses_cqe c;

	(void)state;
	memset(pa, 0xAA, sizeof(pa));
	memset(pb, 0xBB, sizeof(pb));
	memset(ra, GUARD, sizeof(ra));
	memset(rb, GUARD, sizeof(rb));
	req(&ha, UET_SES_OP_DEFERRABLE_SEND, 8);
	ha.resource_index = SFW_RI_MSG;
	assert_int_equal(uet_ses_ri_generation(w.n[1].mr, w.n[1].ri_msg,
					       &ha.ri_generation), 0);
	hb = ha;
	ha.message_id = 5;
	uet_wire_ses_req_set_tokens(&ha, 0x01000001u, 0);
	hb.message_id = 6;
	uet_wire_ses_req_set_tokens(&hb, 0x01000002u, 0);
	assert_int_equal(deliver(&ha, pa, 8), UET_RC_NO_MATCH);
	assert_int_equal(deliver(&hb, pb, 8), UET_RC_NO_MATCH);
	post_defer_recv(1, ra);
	ta = rtr_token_target();
	post_defer_recv(2, rb);
	tb = rtr_token_target();
	assert_int_not_equal(ta, tb);
	/* the first send's restart, under the second record's token */
	ha.message_id = 7;
	uet_wire_ses_req_set_tokens(&ha, 0x01000001u, tb);
	assert_int_equal(deliver(&ha, pa, 8), UET_RC_NO_MATCH);
	assert_int_equal(uet_ses_stats_get(tgt())->rtr_stale, 1);
	assert_int_equal(uet_ses_cq_poll(tgt(), &c, 1), 0);
	memset(pa + 4, GUARD, 4);
	assert_memory_equal(rb, pa + 4, 4);
	/* each send's own restart lands in its own receive */
	hb.message_id = 8;
	uet_wire_ses_req_set_tokens(&hb, 0x01000002u, tb);
	assert_int_equal(deliver(&hb, pb, 8), UET_RC_OK);
	assert_int_equal(uet_ses_cq_poll(tgt(), &c, 1), 1);
	assert_int_equal(c.context, 2);
	assert_int_equal(c.status, 0);
	memset(pa, 0xAA, sizeof(pa));
	ha.message_id = 9;
	uet_wire_ses_req_set_tokens(&ha, 0x01000001u, ta);
	assert_int_equal(deliver(&ha, pa, 8), UET_RC_OK);
	assert_int_equal(uet_ses_cq_poll(tgt(), &c, 1), 1);
	assert_int_equal(c.context, 1);
	assert_int_equal(c.status, 0);
	assert_memory_equal(ra, pa, 8);
	assert_memory_equal(rb, pb, 8);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(write__every_resolution_code,
						setup_hpc, ses_fakewire_teardown),
		cmocka_unit_test_setup_teardown(atomic__amo_codes, setup_hpc,
						ses_fakewire_teardown),
		cmocka_unit_test_setup_teardown(read__sizes_and_dropped,
						setup_hpc, ses_fakewire_teardown),
		cmocka_unit_test_setup_teardown(
			ses_ret_progress__full_pdc_holds_only_its_own,
			setup_full_pdc, teardown_full_pdc),
		cmocka_unit_test_setup_teardown(
			read_multi__served_once_per_packet, setup_capture,
			teardown_capture),
		cmocka_unit_test_setup_teardown(send__codes, setup_hpc,
						ses_fakewire_teardown),
		cmocka_unit_test_setup_teardown(tamo__codes, setup_hpc,
						ses_fakewire_teardown),
		cmocka_unit_test_setup_teardown(rdv__target, setup_hpc,
						ses_fakewire_teardown),
		cmocka_unit_test_setup_teardown(profile__base, setup_base,
						ses_fakewire_teardown),
		cmocka_unit_test_setup_teardown(profile__full, setup_full,
						ses_fakewire_teardown),
		cmocka_unit_test_setup_teardown(
			defer_restart__both_tokens_name_the_send,
			setup_capture_full, teardown_capture),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
