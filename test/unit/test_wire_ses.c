/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the SES header codecs (src/wire/ses.c).
 *
 * Randomized tests use a seeded xorshift generator; the seed is printed on
 * failure and can be forced with UET_TEST_SEED=<number>.
 */

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <uet/uet_rand.h>
#include <uet/uet_wire.h>

#define RANDOM_ITERS 4000
#define DEFAULT_SEED 0x5e5c0de5eedULL

static uint64_t g_seed = DEFAULT_SEED;
static struct uet_rand g_rng;

/* ------------------------------------------------------------------ */
/* Helpers                                                             */
/* ------------------------------------------------------------------ */

static uint64_t
rnd64(void)
{
	return uet_rand_next(&g_rng);
}

/* Uniform-enough value in [0, n). */
static uint32_t
rnd(uint32_t n)
{
	return (uint32_t)((rnd64() >> 32) % n);
}

static uint64_t
rbits(unsigned int bits)
{
	return bits >= 64 ? rnd64() : rnd64() & ((1ULL << bits) - 1);
}

static int
rng_setup(void **state)
{
	(void)state;
	uet_rand_seed(&g_rng, g_seed);
	return 0;
}

static void
print_req(const char *tag, const struct uet_wire_ses_req *h)
{
	print_error("%s: op=%u ver=%u flags=0x%02x mid=%u rig=%u job=0x%x "
		    "pid=0x%x ri=0x%x bo=0x%llx init=0x%x mb=0x%llx "
		    "hd=0x%llx pl=%u mo=%u rl=%u ext=%d amo=%u/%u/%u "
		    "rdv=%u/%u/%u/%u/0x%llx/0x%llx\n",
		    tag, h->opcode, h->version, h->flags, h->message_id,
		    h->ri_generation, h->job_id, h->pid_on_fep,
		    h->resource_index, (unsigned long long)h->buffer_offset,
		    h->initiator, (unsigned long long)h->match_bits,
		    (unsigned long long)h->header_data, h->payload_length,
		    h->message_offset, h->request_length, (int)h->ext,
		    h->atomic.op, h->atomic.datatype,
		    h->atomic.semantic_control, h->rdv.eager_length,
		    h->rdv.read_ri_generation, h->rdv.read_pid_on_fep,
		    h->rdv.read_resource_index,
		    (unsigned long long)h->rdv.read_offset,
		    (unsigned long long)h->rdv.read_key_or_match);
}

static bool
req_eq(const struct uet_wire_ses_req *a, const struct uet_wire_ses_req *b)
{
	const struct uet_wire_ses_rdv_ext *ra = &a->rdv, *rb = &b->rdv;

	return a->opcode == b->opcode && a->version == b->version &&
	       a->flags == b->flags && a->message_id == b->message_id &&
	       a->ri_generation == b->ri_generation &&
	       a->job_id == b->job_id && a->pid_on_fep == b->pid_on_fep &&
	       a->resource_index == b->resource_index &&
	       a->buffer_offset == b->buffer_offset &&
	       a->initiator == b->initiator &&
	       a->match_bits == b->match_bits &&
	       a->header_data == b->header_data &&
	       a->payload_length == b->payload_length &&
	       a->message_offset == b->message_offset &&
	       a->request_length == b->request_length && a->ext == b->ext &&
	       a->atomic.op == b->atomic.op &&
	       a->atomic.datatype == b->atomic.datatype &&
	       a->atomic.semantic_control == b->atomic.semantic_control &&
	       memcmp(a->atomic.compare, b->atomic.compare, 16) == 0 &&
	       memcmp(a->atomic.swap, b->atomic.swap, 16) == 0 &&
	       ra->eager_length == rb->eager_length &&
	       ra->read_ri_generation == rb->read_ri_generation &&
	       ra->read_pid_on_fep == rb->read_pid_on_fep &&
	       ra->read_resource_index == rb->read_resource_index &&
	       ra->read_offset == rb->read_offset &&
	       ra->read_key_or_match == rb->read_key_or_match;
}

static void
assert_req_eq(const struct uet_wire_ses_req *want, const struct uet_wire_ses_req *got,
	      int iter)
{
	if (req_eq(want, got))
		return;
	print_error("seed=%llu iter=%d\n", (unsigned long long)g_seed, iter);
	print_req("want", want);
	print_req("got ", got);
	fail();
}

static bool
resp_eq(const struct uet_wire_ses_resp *a, const struct uet_wire_ses_resp *b)
{
	return a->fmt == b->fmt && a->list == b->list &&
	       a->opcode == b->opcode && a->version == b->version &&
	       a->return_code == b->return_code &&
	       a->message_id == b->message_id &&
	       a->ri_generation == b->ri_generation &&
	       a->job_id == b->job_id &&
	       a->modified_length == b->modified_length &&
	       a->read_request_message_id == b->read_request_message_id &&
	       a->payload_length == b->payload_length &&
	       a->message_offset == b->message_offset &&
	       a->original_request_psn == b->original_request_psn;
}

static void
assert_resp_eq(const struct uet_wire_ses_resp *want,
	       const struct uet_wire_ses_resp *got, int iter)
{
	if (resp_eq(want, got))
		return;
	print_error("seed=%llu iter=%d fmt=%d/%d op=%u/%u rc=%u/%u\n",
		    (unsigned long long)g_seed, iter, (int)want->fmt,
		    (int)got->fmt, want->opcode, got->opcode,
		    want->return_code, got->return_code);
	fail();
}

/* Report the seed with any failing randomized check. */
#define assert_int_equal_seed(a, b, iter)                                  \
	do {                                                                \
		long long a_ = (long long)(a), b_ = (long long)(b);         \
		if (a_ != b_)                                               \
			print_error("seed=%llu iter=%d\n",                  \
				    (unsigned long long)g_seed, (iter));    \
		assert_int_equal(a_, b_);                                   \
	} while (0)

/* ------------------------------------------------------------------ */
/* Format helpers                                                      */
/* ------------------------------------------------------------------ */

static void
fmt__next_hdr_mapping(void **state)
{
	(void)state;
	assert_int_equal(uet_wire_ses_fmt_from_next_hdr(1), UET_SES_FMT_SMALL);
	assert_int_equal(uet_wire_ses_fmt_from_next_hdr(2), UET_SES_FMT_MEDIUM);
	assert_int_equal(uet_wire_ses_fmt_from_next_hdr(3), UET_SES_FMT_STD);
	assert_int_equal(uet_wire_ses_fmt_from_next_hdr(0), -UET_WIRE_E_BAD_NEXT_HDR);
	assert_int_equal(uet_wire_ses_fmt_from_next_hdr(4), -UET_WIRE_E_BAD_NEXT_HDR);
	assert_int_equal(uet_wire_ses_fmt_to_next_hdr(UET_SES_FMT_SMALL), 1);
	assert_int_equal(uet_wire_ses_fmt_to_next_hdr(UET_SES_FMT_MEDIUM), 2);
	assert_int_equal(uet_wire_ses_fmt_to_next_hdr(UET_SES_FMT_STD), 3);
	assert_int_equal(uet_wire_ses_fmt_to_next_hdr((enum uet_wire_ses_fmt)4), 0);

	assert_int_equal(uet_wire_ses_resp_fmt_from_next_hdr(4),
			 UET_SES_RESP_FMT_RESPONSE);
	assert_int_equal(uet_wire_ses_resp_fmt_from_next_hdr(5),
			 UET_SES_RESP_FMT_DATA);
	assert_int_equal(uet_wire_ses_resp_fmt_from_next_hdr(6),
			 UET_SES_RESP_FMT_DATA_SMALL);
	assert_int_equal(uet_wire_ses_resp_fmt_from_next_hdr(3),
			 -UET_WIRE_E_BAD_NEXT_HDR);
	assert_int_equal(uet_wire_ses_resp_fmt_from_next_hdr(7),
			 -UET_WIRE_E_BAD_NEXT_HDR);
	assert_int_equal(uet_wire_ses_resp_fmt_to_next_hdr(UET_SES_RESP_FMT_DATA), 5);
	assert_int_equal(
		uet_wire_ses_resp_fmt_to_next_hdr((enum uet_wire_ses_resp_fmt)3), 0);
}

static void
fmt__lengths(void **state)
{
	(void)state;
	assert_int_equal(uet_wire_ses_fmt_len(UET_SES_FMT_STD), 44);
	assert_int_equal(uet_wire_ses_fmt_len(UET_SES_FMT_MEDIUM), 32);
	assert_int_equal(uet_wire_ses_fmt_len(UET_SES_FMT_SMALL), 20);
	assert_int_equal(uet_wire_ses_fmt_len((enum uet_wire_ses_fmt)0), 0);
	assert_int_equal(uet_wire_ses_resp_fmt_len(UET_SES_RESP_FMT_RESPONSE), 12);
	assert_int_equal(uet_wire_ses_resp_fmt_len(UET_SES_RESP_FMT_DATA), 20);
	assert_int_equal(uet_wire_ses_resp_fmt_len(UET_SES_RESP_FMT_DATA_SMALL), 12);
	assert_int_equal(uet_wire_ses_resp_fmt_len((enum uet_wire_ses_resp_fmt)0), 0);
	assert_int_equal(uet_wire_ses_ext_len(UET_SES_EXT_NONE), 0);
	assert_int_equal(uet_wire_ses_ext_len(UET_SES_EXT_ATOMIC), 4);
	assert_int_equal(uet_wire_ses_ext_len(UET_SES_EXT_ATOMIC_CAS), 36);
	assert_int_equal(uet_wire_ses_ext_len(UET_SES_EXT_RDV), 24);
	assert_int_equal(UET_SES_REQ_MAX_LEN, 80);
}

static void
fmt_allows__table(void **state)
{
	/* Bit per opcode 0x00..0x0F, as in docs/WIRE-DECISIONS.md. */
	static const uint16_t want_medium = 0x62BF; /* 0-5,7,9,D,E */
	static const uint16_t want_small = 0x0027;  /* 0,1,2,5 */
	unsigned int op;

	(void)state;
	for (op = 0; op < 0x40; op++) {
		bool def = op <= 0x0F;

		assert_int_equal(uet_wire_ses_fmt_allows(UET_SES_FMT_STD, op), def);
		assert_int_equal(uet_wire_ses_fmt_allows(UET_SES_FMT_MEDIUM, op),
				 def && ((want_medium >> op) & 1));
		assert_int_equal(uet_wire_ses_fmt_allows(UET_SES_FMT_SMALL, op),
				 def && ((want_small >> op) & 1));
		assert_false(uet_wire_ses_fmt_allows((enum uet_wire_ses_fmt)0, op));
	}
}

static void
req_ext_needed__by_opcode(void **state)
{
	struct uet_wire_ses_req h = { .flags = UET_SES_F_SOM };

	(void)state;
	h.opcode = UET_SES_OP_SEND;
	assert_int_equal(uet_wire_ses_req_ext_needed(&h), UET_SES_EXT_NONE);
	h.opcode = UET_SES_OP_TSEND_FETCH_ATOMIC;
	h.atomic.op = UET_AMO_BXOR;
	assert_int_equal(uet_wire_ses_req_ext_needed(&h), UET_SES_EXT_ATOMIC);
	h.atomic.op = UET_AMO_MSWAP;
	assert_int_equal(uet_wire_ses_req_ext_needed(&h), UET_SES_EXT_ATOMIC_CAS);
	h.atomic.op = UET_AMO_CSWAP;
	assert_int_equal(uet_wire_ses_req_ext_needed(&h), UET_SES_EXT_ATOMIC_CAS);
	h.flags = 0; /* continuation packets carry no extension */
	assert_int_equal(uet_wire_ses_req_ext_needed(&h), UET_SES_EXT_NONE);
	h.flags = UET_SES_F_SOM;
	h.opcode = UET_SES_OP_RENDEZVOUS_SEND;
	assert_int_equal(uet_wire_ses_req_ext_needed(&h), UET_SES_EXT_RDV);
	h.flags = UET_SES_F_EOM;
	assert_int_equal(uet_wire_ses_req_ext_needed(&h), UET_SES_EXT_NONE);
}

static void
req_tokens__accessors(void **state)
{
	struct uet_wire_ses_req h = { .opcode = UET_SES_OP_DEFERRABLE_SEND };

	(void)state;
	/* Deferrable send: the tokens live in buffer_offset (UEC 1.0 SES
	 * standard request header). */
	uet_wire_ses_req_set_tokens(&h, 0xAABBCCDDu, 0x11223344u);
	assert_true(h.buffer_offset == 0xAABBCCDD11223344ULL);
	assert_true(h.match_bits == 0);
	assert_int_equal(uet_wire_ses_req_token_initiator(&h), 0xAABBCCDDu);
	assert_int_equal(uet_wire_ses_req_token_target(&h), 0x11223344u);
}

/* rtr_layout__ready_to_restart_fields: a DEFERRABLE_RTR keeps every field
 * in its own slot: restart offset in buffer_offset, the restart tokens in
 * the key/match slot, the deferred send's match bits in header data. */
static void
rtr_layout__ready_to_restart_fields(void **state)
{
	struct uet_wire_ses_req h = { .opcode = UET_SES_OP_DEFERRABLE_RTR };

	(void)state;
	uet_wire_ses_req_set_tokens(&h, 0xAABBCCDDu, 0x11223344u);
	uet_wire_ses_req_set_restart_offset(&h, 0x123456789ULL);
	uet_wire_ses_req_set_rtr_match_bits(&h, 0x63);
	assert_true(h.match_bits == 0xAABBCCDD11223344ULL);
	assert_true(h.buffer_offset == 0x123456789ULL);
	assert_true(h.header_data == 0x63);
	assert_int_equal(uet_wire_ses_req_token_initiator(&h), 0xAABBCCDDu);
	assert_int_equal(uet_wire_ses_req_token_target(&h), 0x11223344u);
	assert_true(uet_wire_ses_req_restart_offset(&h) == 0x123456789ULL);
	assert_true(uet_wire_ses_req_rtr_match_bits(&h) == 0x63);
}

/* ------------------------------------------------------------------ */
/* Golden requests, derived by hand from the UEC 1.0 SES headers       */
/* ------------------------------------------------------------------ */

struct req_case {
	const char *name;
	enum uet_wire_ses_fmt fmt;
	struct uet_wire_ses_req h;
	const uint8_t *bytes;
	size_t len;
};

/* TAGGED_SEND (0x09) first packet of a multi-packet message, STD. */
static const uint8_t g_std_som[44] = {
	0x09,                   /* rsvd(2)=0 opcode=0x09 */
	0x25,                   /* ver=0, DC 0x20 | HD 0x04 | SOM 0x01 */
	0x12, 0x34,             /* message_id 0x1234 */
	0x56,                   /* ri_generation */
	0xAB, 0xCD, 0xEF,       /* job_id */
	0x01, 0x23,             /* rsvd(4) pid_on_fep=0x123 */
	0x04, 0x56,             /* rsvd(4) resource_index=0x456 */
	0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, /* buffer_offset */
	0x11, 0x22, 0x33, 0x44, /* initiator */
	0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, /* match_bits */
	0xDE, 0xAD, 0xBE, 0xEF, 0xCA, 0xFE, 0xF0, 0x0D, /* header_data */
	0x00, 0x01, 0x00, 0x00, /* request_length 65536 */
};

/* The last packet of the same message: SOM=0, EOM=1. */
static const uint8_t g_std_cont[44] = {
	0x09, 0x02,             /* TAGGED_SEND; ver=0, EOM */
	0x12, 0x34, 0x56, 0xAB, 0xCD, 0xEF, 0x01, 0x23, 0x04, 0x56,
	0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, /* buffer_offset */
	0x11, 0x22, 0x33, 0x44, /* initiator */
	0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, /* match_bits */
	0x00, 0x00, 0x0F, 0xA0, /* rsvd(18)=0 payload_length=4000 */
	0x00, 0x00, 0xFF, 0x60, /* message_offset 65376 */
	0x00, 0x01, 0x00, 0x00, /* request_length */
};

/* SEND in MEDIUM with header data: slot at 12 holds header_data. */
static const uint8_t g_medium_hd[32] = {
	0x05,                   /* SEND */
	0x17,                   /* ver=0, IE 0x10 | HD | EOM | SOM */
	0x3F, 0xFF,             /* rsvd(2)=0 request_length=16383 */
	0x01,                   /* ri_generation */
	0x00, 0x01, 0x02,       /* job_id */
	0x00, 0x0A,             /* pid_on_fep 10 */
	0x00, 0x0B,             /* resource_index 11 */
	0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, /* header_data */
	0x00, 0x00, 0x00, 0x07, /* initiator */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* match_bits */
};

/* WRITE in MEDIUM without HD: slot at 12 holds buffer_offset. */
static const uint8_t g_medium[32] = {
	0x01,                   /* WRITE */
	0x0B,                   /* REL 0x08 | EOM | SOM */
	0x10, 0x00,             /* request_length 4096 */
	0xFF,                   /* ri_generation */
	0xFF, 0xFF, 0xFF,       /* job_id max */
	0x0F, 0xFF,             /* pid_on_fep max */
	0x0F, 0xFF,             /* resource_index max */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, /* buffer_offset */
	0xFF, 0xFF, 0xFF, 0xFF, /* initiator */
	0xC0, 0x00, 0x00, 0x00, 0x00, 0xAB, 0xC1, 0x23, /* memory key I=O=1 */
};

/* READ in SMALL. */
static const uint8_t g_small[20] = {
	0x02, 0x03,             /* READ; SOM|EOM */
	0x00, 0x40,             /* request_length 64 */
	0x02, 0x00, 0x00, 0x2A, /* ri_generation 2, job_id 42 */
	0x00, 0x01, 0x00, 0x02, /* pid 1, resource_index 2 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x20, 0x00, /* buffer_offset */
};

/* DEFERRABLE_SEND first packet: buffer_offset = tokens. */
static const uint8_t g_defer[44] = {
	0x08, 0x01,             /* DEFERRABLE_SEND; SOM */
	0x00, 0x07, 0x00, 0x00, 0x00, 0x05, 0x00, 0x03, 0x00, 0x04,
	0xAA, 0xAA, 0x00, 0x01, /* initiator token */
	0xBB, 0xBB, 0x00, 0x02, /* target token */
	0x00, 0x00, 0x00, 0x09, /* initiator */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x63, /* match_bits */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* header_data */
	0x00, 0x10, 0x00, 0x00, /* request_length 1 MiB */
};

/* DEFERRABLE_RTR, the ready-to-restart layout field by field. */
static const uint8_t g_rtr[44] = {
	0x0C, 0x03,             /* DEFERRABLE_RTR; SOM|EOM */
	0x00, 0x07, 0x00, 0x00, 0x00, 0x05, 0x00, 0x03, 0x00, 0x04,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, /* buffer_offset:
							 * restart 65536 */
	0x00, 0x00, 0x00, 0x09, /* initiator */
	0xAA, 0xAA, 0x00, 0x01, /* initiator restart token */
	0xBB, 0xBB, 0x00, 0x02, /* target restart token */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x63, /* header data:
							 * match bits */
	0x00, 0x10, 0x00, 0x00, /* request_length */
};

/* ATOMIC (non-CAS) in STD + 4 B extension. */
static const uint8_t g_atomic[48] = {
	0x03, 0x23,             /* ATOMIC; DC|EOM|SOM */
	0x00, 0x10, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x40, /* buffer_offset */
	0x00, 0x00, 0x00, 0x02, /* initiator */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05, /* memory_key */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* header_data */
	0x00, 0x00, 0x00, 0x08, /* request_length 8 */
	0x02, 0x07, 0x03, 0x00, /* SUM, UINT64, cacheable|coherent, rsvd */
};

/* FETCHING_ATOMIC CSWAP in MEDIUM + 36 B extension. */
static const uint8_t g_cas[68] = {
	0x04, 0x03,             /* FETCHING_ATOMIC; SOM|EOM */
	0x00, 0x04,             /* request_length 4 */
	0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, /* buffer_offset */
	0x00, 0x00, 0x00, 0x02, /* initiator */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05, /* memory_key */
	0x0D, 0x05, 0x01, 0x00, /* CSWAP, UINT32, cacheable, rsvd */
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, /* compare */
	0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F,
	0xF0, 0xF1, 0xF2, 0xF3, 0xF4, 0xF5, 0xF6, 0xF7, /* swap */
	0xF8, 0xF9, 0xFA, 0xFB, 0xFC, 0xFD, 0xFE, 0xFF,
};

/* RENDEZVOUS_TSEND first packet in STD + 24 B extension. */
static const uint8_t g_rdv[68] = {
	0x0A, 0x01,             /* RENDEZVOUS_TSEND; SOM */
	0x00, 0x33, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* buffer_offset */
	0x00, 0x00, 0x00, 0x02, /* initiator */
	0x00, 0x00, 0x00, 0x00, 0xCA, 0xFE, 0x00, 0x00, /* match_bits */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* header_data */
	0x00, 0x40, 0x00, 0x00, /* request_length 4 MiB */
	0x00, 0x00, 0x20, 0x00, /* eager_length 8192 */
	0x07,                   /* read_ri_generation */
	0xAB, 0xCD, 0xEF,       /* read_pid 0xABC, read_ri 0xDEF */
	0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, /* read_offset */
	0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF, /* read key */
};

#define TOK 0xAAAA0001BBBB0002ULL

static const struct req_case g_req_cases[] = {
	{ "std_som", UET_SES_FMT_STD,
	  { .opcode = UET_SES_OP_TAGGED_SEND,
	    .flags = UET_SES_F_DC | UET_SES_F_HD | UET_SES_F_SOM,
	    .message_id = 0x1234, .ri_generation = 0x56,
	    .job_id = 0xABCDEF, .pid_on_fep = 0x123,
	    .resource_index = 0x456,
	    .buffer_offset = 0x0102030405060708ULL,
	    .initiator = 0x11223344, .match_bits = 0x8877665544332211ULL,
	    .header_data = 0xDEADBEEFCAFEF00DULL,
	    .request_length = 0x10000 },
	  g_std_som, sizeof(g_std_som) },
	{ "std_cont", UET_SES_FMT_STD,
	  { .opcode = UET_SES_OP_TAGGED_SEND, .flags = UET_SES_F_EOM,
	    .message_id = 0x1234, .ri_generation = 0x56,
	    .job_id = 0xABCDEF, .pid_on_fep = 0x123,
	    .resource_index = 0x456,
	    .buffer_offset = 0x0102030405060708ULL,
	    .initiator = 0x11223344, .match_bits = 0x8877665544332211ULL,
	    .payload_length = 4000, .message_offset = 65376,
	    .request_length = 0x10000 },
	  g_std_cont, sizeof(g_std_cont) },
	{ "medium_hd", UET_SES_FMT_MEDIUM,
	  { .opcode = UET_SES_OP_SEND,
	    .flags = UET_SES_F_IE | UET_SES_F_HD | UET_SES_F_EOM |
		     UET_SES_F_SOM,
	    .request_length = 0x3FFF, .ri_generation = 1,
	    .job_id = 0x102, .pid_on_fep = 10, .resource_index = 11,
	    .header_data = 0x0102030405060708ULL, .initiator = 7 },
	  g_medium_hd, sizeof(g_medium_hd) },
	{ "medium", UET_SES_FMT_MEDIUM,
	  { .opcode = UET_SES_OP_WRITE,
	    .flags = UET_SES_F_REL | UET_SES_F_EOM | UET_SES_F_SOM,
	    .request_length = 4096, .ri_generation = 0xFF,
	    .job_id = 0xFFFFFF, .pid_on_fep = 0xFFF,
	    .resource_index = 0xFFF, .buffer_offset = 0x1000,
	    .initiator = 0xFFFFFFFF, .match_bits = 0xC000000000ABC123ULL },
	  g_medium, sizeof(g_medium) },
	{ "small", UET_SES_FMT_SMALL,
	  { .opcode = UET_SES_OP_READ,
	    .flags = UET_SES_F_EOM | UET_SES_F_SOM,
	    .request_length = 64, .ri_generation = 2, .job_id = 42,
	    .pid_on_fep = 1, .resource_index = 2,
	    .buffer_offset = 0x2000 },
	  g_small, sizeof(g_small) },
	{ "deferrable", UET_SES_FMT_STD,
	  { .opcode = UET_SES_OP_DEFERRABLE_SEND, .flags = UET_SES_F_SOM,
	    .message_id = 7, .job_id = 5, .pid_on_fep = 3,
	    .resource_index = 4, .buffer_offset = TOK, .initiator = 9,
	    .match_bits = 99, .request_length = 0x100000 },
	  g_defer, sizeof(g_defer) },
	{ "rtr", UET_SES_FMT_STD,
	  { .opcode = UET_SES_OP_DEFERRABLE_RTR,
	    .flags = UET_SES_F_SOM | UET_SES_F_EOM,
	    .message_id = 7, .job_id = 5, .pid_on_fep = 3,
	    .resource_index = 4, .buffer_offset = 0x10000, .initiator = 9,
	    .match_bits = TOK, .header_data = 99,
	    .request_length = 0x100000 },
	  g_rtr, sizeof(g_rtr) },
	{ "atomic", UET_SES_FMT_STD,
	  { .opcode = UET_SES_OP_ATOMIC,
	    .flags = UET_SES_F_DC | UET_SES_F_EOM | UET_SES_F_SOM,
	    .message_id = 0x10, .job_id = 1, .pid_on_fep = 1,
	    .resource_index = 1, .buffer_offset = 0x40, .initiator = 2,
	    .match_bits = 5, .request_length = 8,
	    .ext = UET_SES_EXT_ATOMIC,
	    .atomic = { .op = UET_AMO_SUM, .datatype = UET_AMO_DT_UINT64,
			.semantic_control = UET_SES_AMO_SC_CACHEABLE |
					    UET_SES_AMO_SC_CPU_COHERENT } },
	  g_atomic, sizeof(g_atomic) },
	{ "cas", UET_SES_FMT_MEDIUM,
	  { .opcode = UET_SES_OP_FETCHING_ATOMIC,
	    .flags = UET_SES_F_EOM | UET_SES_F_SOM,
	    .request_length = 4, .job_id = 1, .pid_on_fep = 1,
	    .resource_index = 1, .buffer_offset = 0x80, .initiator = 2,
	    .match_bits = 5, .ext = UET_SES_EXT_ATOMIC_CAS,
	    .atomic = { .op = UET_AMO_CSWAP, .datatype = UET_AMO_DT_UINT32,
			.semantic_control = UET_SES_AMO_SC_CACHEABLE,
			.compare = { 0x00, 0x01, 0x02, 0x03, 0x04, 0x05,
				     0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B,
				     0x0C, 0x0D, 0x0E, 0x0F },
			.swap = { 0xF0, 0xF1, 0xF2, 0xF3, 0xF4, 0xF5, 0xF6,
				  0xF7, 0xF8, 0xF9, 0xFA, 0xFB, 0xFC, 0xFD,
				  0xFE, 0xFF } } },
	  g_cas, sizeof(g_cas) },
	{ "rdv", UET_SES_FMT_STD,
	  { .opcode = UET_SES_OP_RENDEZVOUS_TSEND, .flags = UET_SES_F_SOM,
	    .message_id = 0x33, .job_id = 1, .pid_on_fep = 1,
	    .resource_index = 1, .initiator = 2,
	    .match_bits = 0xCAFE0000ULL, .request_length = 0x400000,
	    .ext = UET_SES_EXT_RDV,
	    .rdv = { .eager_length = 8192, .read_ri_generation = 7,
		     .read_pid_on_fep = 0xABC, .read_resource_index = 0xDEF,
		     .read_offset = 0x0000100000000000ULL,
		     .read_key_or_match = 0x0123456789ABCDEFULL } },
	  g_rdv, sizeof(g_rdv) },
};

#define N_REQ_CASES (sizeof(g_req_cases) / sizeof(g_req_cases[0]))

static const struct req_case *
req_case(const char *name)
{
	size_t i;

	for (i = 0; i < N_REQ_CASES; i++)
		if (strcmp(g_req_cases[i].name, name) == 0)
			return &g_req_cases[i];
	fail_msg("no case %s", name);
	return NULL;
}

static void
check_req_golden(const char *name)
{
	const struct req_case *c = req_case(name);
	uint8_t buf[UET_SES_REQ_MAX_LEN + 8];
	uint8_t in[UET_SES_REQ_MAX_LEN + 8];
	struct uet_wire_ses_req got;

	assert_int_equal(uet_wire_ses_req_len(&c->h, c->fmt), c->len);
	memset(buf, 0xEE, sizeof(buf));
	assert_int_equal(uet_wire_ses_req_encode(&c->h, c->fmt, buf, sizeof(buf)),
			 c->len);
	assert_memory_equal(buf, c->bytes, c->len);
	assert_int_equal(buf[c->len], 0xEE); /* nothing written beyond */

	assert_int_equal(uet_wire_ses_req_decode(c->bytes, c->len, c->fmt, &got),
			 c->len);
	assert_req_eq(&c->h, &got, -1);
	/* Trailing payload is not consumed. */
	memcpy(in, c->bytes, c->len);
	memset(in + c->len, 0x5A, sizeof(in) - c->len);
	assert_int_equal(uet_wire_ses_req_decode(in, sizeof(in), c->fmt, &got),
			 c->len);
	assert_req_eq(&c->h, &got, -1);
}

/* One cmocka test per golden case, named after it. */
#define REQ_GOLDEN_TEST(name)                                               \
	static void req_golden__##name(void **state)                        \
	{                                                                   \
		(void)state;                                                \
		check_req_golden(#name);                                    \
	}

REQ_GOLDEN_TEST(std_som)
REQ_GOLDEN_TEST(std_cont)
REQ_GOLDEN_TEST(medium_hd)
REQ_GOLDEN_TEST(medium)
REQ_GOLDEN_TEST(small)
REQ_GOLDEN_TEST(deferrable)
REQ_GOLDEN_TEST(rtr)
REQ_GOLDEN_TEST(atomic)
REQ_GOLDEN_TEST(cas)
REQ_GOLDEN_TEST(rdv)

static void
req_golden__tokens_and_restart(void **state)
{
	struct uet_wire_ses_req h;

	(void)state;
	assert_int_equal(uet_wire_ses_req_decode(g_rtr, sizeof(g_rtr),
					    UET_SES_FMT_STD, &h), 44);
	assert_int_equal(uet_wire_ses_req_token_initiator(&h), 0xAAAA0001u);
	assert_int_equal(uet_wire_ses_req_token_target(&h), 0xBBBB0002u);
	assert_true(uet_wire_ses_req_restart_offset(&h) == 0x10000);
	assert_true(uet_wire_ses_req_rtr_match_bits(&h) == 99);
	assert_int_equal(h.initiator, 9);
	assert_int_equal(h.message_id, 7);
	assert_int_equal(h.request_length, 0x100000);
}

static void
req_decode__every_truncation(void **state)
{
	struct uet_wire_ses_req h;
	size_t i, l;

	(void)state;
	for (i = 0; i < N_REQ_CASES; i++) {
		const struct req_case *c = &g_req_cases[i];

		for (l = 0; l < c->len; l++) {
			int rc = uet_wire_ses_req_decode(c->bytes, l, c->fmt, &h);

			if (rc != -UET_WIRE_E_TRUNCATED)
				print_error("%s len %zu\n", c->name, l);
			assert_int_equal(rc, -UET_WIRE_E_TRUNCATED);
		}
	}
}

static void
req_encode__every_short_cap(void **state)
{
	uint8_t buf[UET_SES_REQ_MAX_LEN];
	size_t i, cap;

	(void)state;
	for (i = 0; i < N_REQ_CASES; i++) {
		const struct req_case *c = &g_req_cases[i];

		for (cap = 0; cap < c->len; cap++) {
			int rc = uet_wire_ses_req_encode(&c->h, c->fmt, buf, cap);

			if (rc != -UET_WIRE_E_NOSPACE)
				print_error("%s cap %zu\n", c->name, cap);
			assert_int_equal(rc, -UET_WIRE_E_NOSPACE);
		}
	}
}

/* ------------------------------------------------------------------ */
/* Golden responses                                                    */
/* ------------------------------------------------------------------ */

struct resp_case {
	const char *name;
	struct uet_wire_ses_resp h;
	const uint8_t *bytes;
	size_t len;
};

static const uint8_t g_response[12] = {
	0x41,                   /* list=1 (OVERFLOW) opcode=1 (RESPONSE) */
	0x01,                   /* ver=0 return_code=OK */
	0x12, 0x34,             /* message_id */
	0x56,                   /* ri_generation */
	0xAB, 0xCD, 0xEF,       /* job_id */
	0x00, 0x01, 0x00, 0x00, /* modified_length 65536 */
};

static const uint8_t g_response_data[20] = {
	0x02,                   /* list=0 opcode=2 (RESPONSE_W_DATA) */
	0x01,                   /* ver=0 rc=OK */
	0x00, 0x42,             /* message_id */
	0x00,                   /* rsvd(8) */
	0x00, 0x00, 0x01,       /* job_id */
	0x00, 0x99,             /* read_request_message_id */
	0x0F, 0xA0,             /* rsvd(2) payload_length=4000 */
	0x00, 0x10, 0x00, 0x00, /* modified_length */
	0x00, 0x00, 0x20, 0x00, /* message_offset 8192 */
};

static const uint8_t g_response_data_small[12] = {
	0x02,                   /* list=0 opcode=2 */
	0x22,                   /* ver=0 rc=TOO_LONG (0x22) */
	0x3F, 0xFF,             /* rsvd(2) payload_length=16383 */
	0x00,                   /* rsvd(8) */
	0x12, 0x34, 0x56,       /* job_id */
	0x89, 0xAB, 0xCD, 0xEF, /* original_request_psn */
};

static const struct resp_case g_resp_cases[] = {
	{ "response",
	  { .fmt = UET_SES_RESP_FMT_RESPONSE, .list = UET_SES_LIST_OVERFLOW,
	    .opcode = UET_SES_RSP_RESPONSE, .return_code = UET_RC_OK,
	    .message_id = 0x1234, .ri_generation = 0x56,
	    .job_id = 0xABCDEF, .modified_length = 0x10000 },
	  g_response, sizeof(g_response) },
	{ "response_data",
	  { .fmt = UET_SES_RESP_FMT_DATA,
	    .opcode = UET_SES_RSP_RESPONSE_W_DATA, .return_code = UET_RC_OK,
	    .message_id = 0x42, .job_id = 1,
	    .read_request_message_id = 0x99, .payload_length = 4000,
	    .modified_length = 0x100000, .message_offset = 8192 },
	  g_response_data, sizeof(g_response_data) },
	{ "response_data_small",
	  { .fmt = UET_SES_RESP_FMT_DATA_SMALL,
	    .opcode = UET_SES_RSP_RESPONSE_W_DATA,
	    .return_code = UET_RC_TOO_LONG, .payload_length = 0x3FFF,
	    .job_id = 0x123456, .original_request_psn = 0x89ABCDEF },
	  g_response_data_small, sizeof(g_response_data_small) },
};

#define N_RESP_CASES (sizeof(g_resp_cases) / sizeof(g_resp_cases[0]))

static void
check_resp_golden(const struct resp_case *c)
{
	uint8_t buf[32];
	struct uet_wire_ses_resp got;

	memset(buf, 0xEE, sizeof(buf));
	assert_int_equal(uet_wire_ses_resp_encode(&c->h, buf, sizeof(buf)), c->len);
	assert_memory_equal(buf, c->bytes, c->len);
	assert_int_equal(buf[c->len], 0xEE);
	assert_int_equal(uet_wire_ses_resp_decode(c->bytes, c->len, c->h.fmt, &got),
			 c->len);
	assert_resp_eq(&c->h, &got, -1);
}

#define RESP_GOLDEN_TEST(name, idx)                                         \
	static void resp_golden__##name(void **state)                       \
	{                                                                   \
		(void)state;                                                \
		check_resp_golden(&g_resp_cases[idx]);                      \
	}

RESP_GOLDEN_TEST(response, 0)
RESP_GOLDEN_TEST(data, 1)
RESP_GOLDEN_TEST(data_small, 2)

static void
resp_decode__every_truncation(void **state)
{
	struct uet_wire_ses_resp h;
	size_t i, l;

	(void)state;
	for (i = 0; i < N_RESP_CASES; i++) {
		const struct resp_case *c = &g_resp_cases[i];

		for (l = 0; l < c->len; l++)
			assert_int_equal(uet_wire_ses_resp_decode(c->bytes, l,
							     c->h.fmt, &h),
					 -UET_WIRE_E_TRUNCATED);
	}
}

static void
resp_encode__every_short_cap(void **state)
{
	uint8_t buf[32];
	size_t i, cap;

	(void)state;
	for (i = 0; i < N_RESP_CASES; i++) {
		const struct resp_case *c = &g_resp_cases[i];

		for (cap = 0; cap < c->len; cap++)
			assert_int_equal(uet_wire_ses_resp_encode(&c->h, buf, cap),
					 -UET_WIRE_E_NOSPACE);
	}
}

/* ------------------------------------------------------------------ */
/* Randomized round trips                                              */
/* ------------------------------------------------------------------ */

enum form {
	FORM_STD_SOM,
	FORM_STD_CONT,
	FORM_MEDIUM_HD,
	FORM_MEDIUM,
	FORM_SMALL,
	FORM_DEFER,
	FORM_RTR,
	FORM_ATOMIC,
	FORM_CAS,
	FORM_RDV,
	FORM__COUNT
};

static uint8_t
pick(const uint8_t *ops, size_t n)
{
	return ops[rnd((uint32_t)n)];
}

#define PICK(arr) pick((arr), sizeof(arr))

static uint8_t
opt_flags(void)
{
	uint32_t r = rnd(8);

	return (uint8_t)(((r & 1) ? UET_SES_F_DC : 0) |
			 ((r & 2) ? UET_SES_F_IE : 0) |
			 ((r & 4) ? UET_SES_F_REL : 0));
}

/* Random values for every field format @p fmt carries given h->flags. */
static void
fill_fields(struct uet_wire_ses_req *h, enum uet_wire_ses_fmt fmt)
{
	h->ri_generation = (uint8_t)rbits(8);
	h->job_id = (uint32_t)rbits(24);
	h->pid_on_fep = (uint16_t)rbits(12);
	h->resource_index = (uint16_t)rbits(12);
	if (fmt == UET_SES_FMT_STD) {
		h->message_id = (uint16_t)rbits(16);
		h->buffer_offset = rnd64();
		h->initiator = (uint32_t)rbits(32);
		h->match_bits = rnd64();
		h->request_length = (uint32_t)rbits(32);
		if (h->flags & UET_SES_F_SOM) {
			h->header_data = rnd64();
		} else {
			h->payload_length = (uint16_t)rbits(14);
			h->message_offset = (uint32_t)rbits(32);
		}
	} else {
		h->request_length = (uint32_t)rbits(14);
		if (fmt == UET_SES_FMT_SMALL || !(h->flags & UET_SES_F_HD))
			h->buffer_offset = rnd64();
		else
			h->header_data = rnd64();
		if (fmt == UET_SES_FMT_MEDIUM) {
			h->initiator = (uint32_t)rbits(32);
			h->match_bits = rnd64();
		}
	}
}

static void
fill_atomic(struct uet_wire_ses_req *h, bool cas)
{
	static const uint8_t ops[] = {
		UET_SES_OP_ATOMIC, UET_SES_OP_FETCHING_ATOMIC,
		UET_SES_OP_TSEND_ATOMIC, UET_SES_OP_TSEND_FETCH_ATOMIC,
	};
	size_t i;

	h->opcode = PICK(ops);
	h->atomic.datatype = (uint8_t)rnd(UET_AMO_DT_FP16 + 1);
	h->atomic.semantic_control = (uint8_t)rnd(4);
	if (!cas) {
		h->atomic.op = (uint8_t)rnd(UET_AMO_CSWAP);
		return;
	}
	h->atomic.op = (uint8_t)(UET_AMO_CSWAP + rnd(7));
	for (i = 0; i < 16; i++) {
		h->atomic.compare[i] = (uint8_t)rnd64();
		h->atomic.swap[i] = (uint8_t)rnd64();
	}
}

static enum uet_wire_ses_fmt
gen_req(enum form form, struct uet_wire_ses_req *h)
{
	static const uint8_t std_som_ops[] = {
		UET_SES_OP_NO_OP, UET_SES_OP_WRITE, UET_SES_OP_READ,
		UET_SES_OP_SEND, UET_SES_OP_TAGGED_SEND,
		UET_SES_OP_DEFERRABLE_SEND, UET_SES_OP_DEFERRABLE_TSEND,
		UET_SES_OP_MSG_ERROR,
	};
	static const uint8_t cont_ops[] = {
		0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06,
		0x08, 0x09, 0x0A, 0x0B, 0x0D, 0x0E, 0x0F,
	};
	static const uint8_t medium_ops[] = {
		UET_SES_OP_NO_OP, UET_SES_OP_WRITE, UET_SES_OP_READ,
		UET_SES_OP_SEND, UET_SES_OP_DATAGRAM_SEND,
		UET_SES_OP_TAGGED_SEND,
	};
	static const uint8_t defer_ops[] = {
		UET_SES_OP_DEFERRABLE_SEND, UET_SES_OP_DEFERRABLE_TSEND,
	};
	static const uint8_t rdv_ops[] = {
		UET_SES_OP_RENDEZVOUS_SEND, UET_SES_OP_RENDEZVOUS_TSEND,
	};
	const uint8_t som_eom = UET_SES_F_SOM | UET_SES_F_EOM;
	uint8_t maybe_eom = rnd(2) ? UET_SES_F_EOM : 0;
	uint8_t maybe_hd = rnd(2) ? UET_SES_F_HD : 0;
	enum uet_wire_ses_fmt fmt = UET_SES_FMT_STD;

	memset(h, 0, sizeof(*h));
	switch (form) {
	case FORM_STD_SOM:
		h->opcode = PICK(std_som_ops);
		h->flags = UET_SES_F_SOM | maybe_eom | maybe_hd | opt_flags();
		break;
	case FORM_STD_CONT:
		h->opcode = PICK(cont_ops);
		h->flags = maybe_eom | opt_flags();
		break;
	case FORM_MEDIUM_HD:
	case FORM_MEDIUM:
		fmt = UET_SES_FMT_MEDIUM;
		h->opcode = PICK(medium_ops);
		h->flags = som_eom | opt_flags() |
			   (form == FORM_MEDIUM_HD ? UET_SES_F_HD : 0);
		break;
	case FORM_SMALL:
		fmt = UET_SES_FMT_SMALL;
		h->opcode = (uint8_t)(rnd(2) ? rnd(3) : UET_SES_OP_SEND);
		h->flags = som_eom | opt_flags();
		break;
	case FORM_DEFER:
		h->opcode = PICK(defer_ops);
		h->flags = (rnd(2) ? UET_SES_F_SOM : 0) | maybe_eom |
			   opt_flags();
		break;
	case FORM_RTR:
		h->opcode = UET_SES_OP_DEFERRABLE_RTR;
		h->flags = som_eom | opt_flags();
		break;
	case FORM_ATOMIC:
	case FORM_CAS:
		fmt = rnd(2) ? UET_SES_FMT_STD : UET_SES_FMT_MEDIUM;
		fill_atomic(h, form == FORM_CAS);
		h->flags = som_eom | opt_flags();
		break;
	case FORM_RDV:
		h->opcode = PICK(rdv_ops);
		h->flags = UET_SES_F_SOM | maybe_eom | maybe_hd | opt_flags();
		h->rdv.eager_length = (uint32_t)rbits(32);
		h->rdv.read_ri_generation = (uint8_t)rbits(8);
		h->rdv.read_pid_on_fep = (uint16_t)rbits(12);
		h->rdv.read_resource_index = (uint16_t)rbits(12);
		h->rdv.read_offset = rnd64();
		h->rdv.read_key_or_match = rnd64();
		break;
	case FORM__COUNT:
		break;
	}
	fill_fields(h, fmt);
	if (form == FORM_DEFER || form == FORM_RTR)
		uet_wire_ses_req_set_tokens(h, (uint32_t)rnd64(), (uint32_t)rnd64());
	if (form == FORM_RTR)
		uet_wire_ses_req_set_restart_offset(h, rnd64());
	h->ext = uet_wire_ses_req_ext_needed(h);
	return fmt;
}

static void
roundtrip_form(enum form form)
{
	uint8_t buf[UET_SES_REQ_MAX_LEN];
	struct uet_wire_ses_req h, got;
	int i, n;

	for (i = 0; i < RANDOM_ITERS; i++) {
		enum uet_wire_ses_fmt fmt = gen_req(form, &h);

		n = uet_wire_ses_req_encode(&h, fmt, buf, sizeof(buf));
		if (n < 0)
			print_req("rejected", &h);
		assert_int_equal_seed(n, uet_wire_ses_req_len(&h, fmt), i);
		assert_int_equal_seed(uet_wire_ses_req_decode(buf, (size_t)n, fmt,
							 &got), n, i);
		assert_req_eq(&h, &got, i);
	}
}

#define REQ_ROUNDTRIP_TEST(name, form)                                      \
	static void req_roundtrip__##name(void **state)                     \
	{                                                                   \
		(void)state;                                                \
		roundtrip_form(form);                                       \
	}

REQ_ROUNDTRIP_TEST(std_som, FORM_STD_SOM)
REQ_ROUNDTRIP_TEST(std_cont, FORM_STD_CONT)
REQ_ROUNDTRIP_TEST(medium_hd, FORM_MEDIUM_HD)
REQ_ROUNDTRIP_TEST(medium, FORM_MEDIUM)
REQ_ROUNDTRIP_TEST(small, FORM_SMALL)
REQ_ROUNDTRIP_TEST(deferrable, FORM_DEFER)
REQ_ROUNDTRIP_TEST(rtr, FORM_RTR)
REQ_ROUNDTRIP_TEST(atomic, FORM_ATOMIC)
REQ_ROUNDTRIP_TEST(cas, FORM_CAS)
REQ_ROUNDTRIP_TEST(rdv, FORM_RDV)

/* Any struct the encoder accepts decodes back to itself, whatever mix of
 * (possibly illegal) values it was built from. */
static void
req_roundtrip__arbitrary_structs(void **state)
{
	static const uint64_t vals[] = { 0, 1, 0x3F, 0xFFF, 0x3FFF, 0x1000 };
	uint8_t buf[UET_SES_REQ_MAX_LEN];
	struct uet_wire_ses_req h, got;
	int i, n, accepted = 0;

	(void)state;
	for (i = 0; i < RANDOM_ITERS * 4; i++) {
		enum uet_wire_ses_fmt fmt = (enum uet_wire_ses_fmt)(1 + rnd(3));

		gen_req((enum form)rnd(FORM__COUNT), &h);
		/* Perturb one field with an edge value. */
		switch (rnd(8)) {
		case 0: h.opcode = (uint8_t)rnd(0x12); break;
		case 1: h.flags = (uint8_t)rnd(0x40); break;
		case 2: h.message_id = (uint16_t)vals[rnd(6)]; break;
		case 3: h.header_data = vals[rnd(6)]; break;
		case 4: h.payload_length = (uint16_t)vals[rnd(6)]; break;
		case 5: h.request_length = (uint32_t)vals[rnd(6)]; break;
		case 6: h.ext = (enum uet_wire_ses_ext)rnd(4); break;
		default: h.atomic.op = (uint8_t)rnd(0x15); break;
		}
		n = uet_wire_ses_req_encode(&h, fmt, buf, sizeof(buf));
		if (n < 0)
			continue;
		accepted++;
		assert_int_equal_seed(uet_wire_ses_req_decode(buf, (size_t)n, fmt,
							 &got), n, i);
		assert_req_eq(&h, &got, i);
	}
	assert_true(accepted > 100);
}

/* Any byte string the decoder accepts re-encodes to the same bytes. */
static void
req_decode__mutated_bytes_reencode(void **state)
{
	uint8_t buf[UET_SES_REQ_MAX_LEN], out[UET_SES_REQ_MAX_LEN];
	struct uet_wire_ses_req h;
	int i, j, n, accepted = 0;

	(void)state;
	for (i = 0; i < RANDOM_ITERS * 4; i++) {
		enum uet_wire_ses_fmt fmt = gen_req((enum form)rnd(FORM__COUNT), &h);

		memset(buf, 0, sizeof(buf));
		assert_true(uet_wire_ses_req_encode(&h, fmt, buf, sizeof(buf)) > 0);
		for (j = 0; j < 1 + (int)rnd(3); j++)
			buf[rnd(sizeof(buf))] ^= (uint8_t)(1u << rnd(8));
		n = uet_wire_ses_req_decode(buf, sizeof(buf), fmt, &h);
		if (n < 0)
			continue;
		accepted++;
		assert_int_equal_seed(uet_wire_ses_req_encode(&h, fmt, out,
							 sizeof(out)), n, i);
		if (memcmp(out, buf, (size_t)n) != 0) {
			print_error("seed=%llu iter=%d\n",
				    (unsigned long long)g_seed, i);
			assert_memory_equal(out, buf, (size_t)n);
		}
	}
	assert_true(accepted > 100);
}

static void
gen_resp(struct uet_wire_ses_resp *h)
{
	static const uint8_t plain_ops[] = {
		UET_SES_RSP_DEFAULT_RESPONSE, UET_SES_RSP_RESPONSE,
		UET_SES_RSP_NO_RESPONSE,
	};

	memset(h, 0, sizeof(*h));
	h->fmt = (enum uet_wire_ses_resp_fmt)(UET_SES_RESP_FMT_RESPONSE + rnd(3));
	h->list = (uint8_t)rnd(2);
	h->return_code = (uint8_t)rnd(UET_RC_DROPPED + 1);
	h->job_id = (uint32_t)rbits(24);
	switch (h->fmt) {
	case UET_SES_RESP_FMT_RESPONSE:
		h->opcode = PICK(plain_ops);
		h->message_id = (uint16_t)rbits(16);
		h->ri_generation = (uint8_t)rbits(8);
		h->modified_length = (uint32_t)rbits(32);
		break;
	case UET_SES_RESP_FMT_DATA:
		h->opcode = UET_SES_RSP_RESPONSE_W_DATA;
		h->message_id = (uint16_t)rbits(16);
		h->read_request_message_id = (uint16_t)rbits(16);
		h->payload_length = (uint16_t)rbits(14);
		h->modified_length = (uint32_t)rbits(32);
		h->message_offset = (uint32_t)rbits(32);
		break;
	case UET_SES_RESP_FMT_DATA_SMALL:
		h->opcode = UET_SES_RSP_RESPONSE_W_DATA;
		h->payload_length = (uint16_t)rbits(14);
		h->original_request_psn = (uint32_t)rbits(32);
		break;
	}
}

static void
resp_roundtrip__random(void **state)
{
	uint8_t buf[32];
	struct uet_wire_ses_resp h, got;
	int i, n;

	(void)state;
	for (i = 0; i < RANDOM_ITERS * 3; i++) {
		gen_resp(&h);
		n = uet_wire_ses_resp_encode(&h, buf, sizeof(buf));
		assert_int_equal_seed(n, uet_wire_ses_resp_fmt_len(h.fmt), i);
		assert_int_equal_seed(uet_wire_ses_resp_decode(buf, (size_t)n,
							  h.fmt, &got), n, i);
		assert_resp_eq(&h, &got, i);
	}
}

static void
resp_decode__mutated_bytes_reencode(void **state)
{
	uint8_t buf[32], out[32];
	struct uet_wire_ses_resp h;
	int i, n, accepted = 0;

	(void)state;
	for (i = 0; i < RANDOM_ITERS * 3; i++) {
		gen_resp(&h);
		memset(buf, 0, sizeof(buf));
		assert_true(uet_wire_ses_resp_encode(&h, buf, sizeof(buf)) > 0);
		buf[rnd(24)] ^= (uint8_t)(1u << rnd(8));
		n = uet_wire_ses_resp_decode(buf, sizeof(buf), h.fmt, &h);
		if (n < 0)
			continue;
		accepted++;
		assert_int_equal_seed(uet_wire_ses_resp_encode(&h, out, sizeof(out)),
				      n, i);
		assert_memory_equal(out, buf, (size_t)n);
	}
	assert_true(accepted > 100);
}

/* ------------------------------------------------------------------ */
/* Request decode: one negative test per rule                          */
/* ------------------------------------------------------------------ */

/* Decode a copy of golden @p name with byte @p off replaced by @p val. */
static int
decode_patched(const char *name, size_t off, uint8_t val)
{
	const struct req_case *c = req_case(name);
	uint8_t buf[UET_SES_REQ_MAX_LEN];
	struct uet_wire_ses_req h;

	memcpy(buf, c->bytes, c->len);
	buf[off] = val;
	return uet_wire_ses_req_decode(buf, c->len, c->fmt, &h);
}

static void
req_decode__bad_next_hdr(void **state)
{
	struct uet_wire_ses_req h;

	(void)state;
	assert_int_equal(uet_wire_ses_req_decode(g_std_som, 44, (enum uet_wire_ses_fmt)0,
					    &h), -UET_WIRE_E_BAD_NEXT_HDR);
	assert_int_equal(uet_wire_ses_req_decode(g_std_som, 44, (enum uet_wire_ses_fmt)4,
					    &h), -UET_WIRE_E_BAD_NEXT_HDR);
}

static void
req_decode__reserved_above_opcode(void **state)
{
	(void)state;
	assert_int_equal(decode_patched("std_som", 0, 0x49),
			 -UET_WIRE_E_RESERVED);
	assert_int_equal(decode_patched("small", 0, 0x82),
			 -UET_WIRE_E_RESERVED);
}

static void
req_decode__reserved_above_pid_and_ri(void **state)
{
	(void)state;
	assert_int_equal(decode_patched("std_som", 8, 0x11),
			 -UET_WIRE_E_RESERVED);
	assert_int_equal(decode_patched("medium", 8, 0x8F),
			 -UET_WIRE_E_RESERVED);
	assert_int_equal(decode_patched("std_som", 10, 0x14),
			 -UET_WIRE_E_RESERVED);
	assert_int_equal(decode_patched("small", 10, 0x80),
			 -UET_WIRE_E_RESERVED);
}

static void
req_decode__reserved_above_request_length(void **state)
{
	(void)state;
	assert_int_equal(decode_patched("medium_hd", 2, 0x7F),
			 -UET_WIRE_E_RESERVED);
	assert_int_equal(decode_patched("small", 2, 0x80),
			 -UET_WIRE_E_RESERVED);
}

static void
req_decode__reserved_in_continuation_word(void **state)
{
	(void)state;
	assert_int_equal(decode_patched("std_cont", 32, 0x80),
			 -UET_WIRE_E_RESERVED);
	assert_int_equal(decode_patched("std_cont", 33, 0x01),
			 -UET_WIRE_E_RESERVED);
	assert_int_equal(decode_patched("std_cont", 34, 0x4F),
			 -UET_WIRE_E_RESERVED);
	/* The same bytes are header_data on a SOM packet: accepted. */
	assert_int_equal(decode_patched("std_som", 32, 0xFF), 44);
}

static void
req_decode__reserved_atomic_byte(void **state)
{
	(void)state;
	assert_int_equal(decode_patched("atomic", 47, 0x01),
			 -UET_WIRE_E_RESERVED);
	assert_int_equal(decode_patched("cas", 35, 0x80),
			 -UET_WIRE_E_RESERVED);
}

static void
req_decode__reserved_semantic_control(void **state)
{
	unsigned int bit;

	(void)state;
	for (bit = 2; bit < 8; bit++)
		assert_int_equal(decode_patched("atomic", 46,
						(uint8_t)(1u << bit)),
				 -UET_WIRE_E_RESERVED);
}

static void
req_decode__bad_opcode(void **state)
{
	(void)state;
	assert_int_equal(decode_patched("std_som", 0, 0x10),
			 -UET_WIRE_E_BAD_OPCODE);
	assert_int_equal(decode_patched("std_som", 0, 0x3F),
			 -UET_WIRE_E_BAD_OPCODE);
}

static void
req_decode__bad_version(void **state)
{
	(void)state;
	assert_int_equal(decode_patched("std_som", 1, 0x40 | 0x25),
			 -UET_WIRE_E_BAD_VERSION);
	assert_int_equal(decode_patched("small", 1, 0xC3),
			 -UET_WIRE_E_BAD_VERSION);
}

static void
req_decode__bad_atomic(void **state)
{
	(void)state;
	assert_int_equal(decode_patched("atomic", 44, 0x14),
			 -UET_WIRE_E_BAD_ATOMIC);
	assert_int_equal(decode_patched("atomic", 45, 0x12),
			 -UET_WIRE_E_BAD_ATOMIC);
	assert_int_equal(decode_patched("cas", 32, 0xFF),
			 -UET_WIRE_E_BAD_ATOMIC);
}

static void
req_decode__single_packet_formats_need_som_eom(void **state)
{
	(void)state;
	assert_int_equal(decode_patched("medium", 1, 0x09), /* no EOM */
			 -UET_WIRE_E_BAD_COMBINATION);
	assert_int_equal(decode_patched("medium_hd", 1, 0x16), /* no SOM */
			 -UET_WIRE_E_BAD_COMBINATION);
	assert_int_equal(decode_patched("small", 1, 0x02),
			 -UET_WIRE_E_BAD_COMBINATION);
	assert_int_equal(decode_patched("small", 1, 0x00),
			 -UET_WIRE_E_BAD_COMBINATION);
}

static void
req_decode__hd_without_header_data_slot(void **state)
{
	(void)state;
	/* Continuation packet with HD. */
	assert_int_equal(decode_patched("std_cont", 1, 0x06),
			 -UET_WIRE_E_BAD_COMBINATION);
	/* Small has no header_data. */
	assert_int_equal(decode_patched("small", 1, 0x07),
			 -UET_WIRE_E_BAD_COMBINATION);
}

static void
req_decode__opcode_not_in_format(void **state)
{
	(void)state;
	assert_int_equal(decode_patched("medium", 0,
					UET_SES_OP_RENDEZVOUS_SEND),
			 -UET_WIRE_E_BAD_COMBINATION);
	assert_int_equal(decode_patched("medium", 0,
					UET_SES_OP_DEFERRABLE_SEND),
			 -UET_WIRE_E_BAD_COMBINATION);
	assert_int_equal(decode_patched("medium", 0,
					UET_SES_OP_DEFERRABLE_RTR),
			 -UET_WIRE_E_BAD_COMBINATION);
	assert_int_equal(decode_patched("medium", 0, UET_SES_OP_MSG_ERROR),
			 -UET_WIRE_E_BAD_COMBINATION);
	assert_int_equal(decode_patched("small", 0, UET_SES_OP_TAGGED_SEND),
			 -UET_WIRE_E_BAD_COMBINATION);
	assert_int_equal(decode_patched("small", 0, UET_SES_OP_ATOMIC),
			 -UET_WIRE_E_BAD_COMBINATION);
	assert_int_equal(decode_patched("small", 0,
					UET_SES_OP_DATAGRAM_SEND),
			 -UET_WIRE_E_BAD_COMBINATION);
}

static void
req_decode__datagram_rules(void **state)
{
	(void)state;
	/* STD datagram with message_id 0x1234. */
	assert_int_equal(decode_patched("std_som", 0, UET_SES_OP_DATAGRAM_SEND),
			 -UET_WIRE_E_BAD_COMBINATION);
	/* STD datagram, message_id 0 but not EOM. */
	{
		uint8_t b[44];
		struct uet_wire_ses_req h;

		memcpy(b, g_std_som, sizeof(b));
		b[0] = UET_SES_OP_DATAGRAM_SEND;
		b[2] = b[3] = 0;
		assert_int_equal(uet_wire_ses_req_decode(b, 44, UET_SES_FMT_STD,
						    &h),
				 -UET_WIRE_E_BAD_COMBINATION);
		b[1] |= UET_SES_F_EOM;
		assert_int_equal(uet_wire_ses_req_decode(b, 44, UET_SES_FMT_STD,
						    &h), 44);
	}
}

static void
req_decode__rtr_rules(void **state)
{
	(void)state;
	assert_int_equal(decode_patched("rtr", 1, 0x01), /* no EOM */
			 -UET_WIRE_E_BAD_COMBINATION);
	assert_int_equal(decode_patched("rtr", 1, 0x07), /* HD */
			 -UET_WIRE_E_BAD_COMBINATION);
}

/* ------------------------------------------------------------------ */
/* Request encode: one negative test per rule                          */
/* ------------------------------------------------------------------ */

static struct uet_wire_ses_req
golden_req(const char *name)
{
	return req_case(name)->h;
}

static int
encode_as(const struct uet_wire_ses_req *h, const char *name)
{
	uint8_t buf[UET_SES_REQ_MAX_LEN];

	return uet_wire_ses_req_encode(h, req_case(name)->fmt, buf, sizeof(buf));
}

#define ENC_EXPECT(name, stmt, err)                                         \
	do {                                                                \
		struct uet_wire_ses_req h_ = golden_req(name);                   \
		struct uet_wire_ses_req *h = &h_;                                \
		stmt;                                                       \
		assert_int_equal(encode_as(h, name), -(err));               \
	} while (0)

static void
req_encode__bad_next_hdr(void **state)
{
	uint8_t buf[UET_SES_REQ_MAX_LEN];
	struct uet_wire_ses_req h = golden_req("small");

	(void)state;
	assert_int_equal(uet_wire_ses_req_encode(&h, (enum uet_wire_ses_fmt)0, buf,
					    sizeof(buf)),
			 -UET_WIRE_E_BAD_NEXT_HDR);
	assert_int_equal(uet_wire_ses_req_len(&h, (enum uet_wire_ses_fmt)5), 0);
}

static void
req_encode__bad_field(void **state)
{
	(void)state;
	ENC_EXPECT("std_som", h->opcode = 0x40, UET_WIRE_E_BAD_FIELD);
	ENC_EXPECT("std_som", h->version = 4, UET_WIRE_E_BAD_FIELD);
	ENC_EXPECT("std_som", h->flags = 0x41, UET_WIRE_E_BAD_FIELD);
	ENC_EXPECT("std_som", h->job_id = 0x1000000, UET_WIRE_E_BAD_FIELD);
	ENC_EXPECT("std_som", h->pid_on_fep = 0x1000, UET_WIRE_E_BAD_FIELD);
	ENC_EXPECT("small", h->resource_index = 0x1000,
		   UET_WIRE_E_BAD_FIELD);
	ENC_EXPECT("std_cont", h->payload_length = 0x4000,
		   UET_WIRE_E_BAD_FIELD);
	ENC_EXPECT("medium", h->request_length = 0x4000,
		   UET_WIRE_E_BAD_FIELD);
	ENC_EXPECT("small", h->request_length = 0x4000,
		   UET_WIRE_E_BAD_FIELD);
	ENC_EXPECT("rdv", h->rdv.read_pid_on_fep = 0x1000,
		   UET_WIRE_E_BAD_FIELD);
	ENC_EXPECT("rdv", h->rdv.read_resource_index = 0x1000,
		   UET_WIRE_E_BAD_FIELD);
	ENC_EXPECT("std_som", h->ext = (enum uet_wire_ses_ext)9,
		   UET_WIRE_E_BAD_FIELD);
	/* The 32-bit STD request_length takes any value. */
	ENC_EXPECT("std_som", h->request_length = UINT32_MAX; h->opcode = 0x10,
		   UET_WIRE_E_BAD_OPCODE);
}

static void
req_encode__bad_opcode_version(void **state)
{
	(void)state;
	ENC_EXPECT("std_som", h->opcode = 0x10, UET_WIRE_E_BAD_OPCODE);
	ENC_EXPECT("std_som", h->opcode = 0x3F, UET_WIRE_E_BAD_OPCODE);
	ENC_EXPECT("std_som", h->version = 1, UET_WIRE_E_BAD_VERSION);
	ENC_EXPECT("small", h->version = 3, UET_WIRE_E_BAD_VERSION);
}

static void
req_encode__atomic_ext_rules(void **state)
{
	(void)state;
	ENC_EXPECT("atomic", h->atomic.op = 0x14, UET_WIRE_E_BAD_ATOMIC);
	ENC_EXPECT("atomic", h->atomic.datatype = 0x12,
		   UET_WIRE_E_BAD_ATOMIC);
	ENC_EXPECT("atomic", h->atomic.semantic_control = 0x04,
		   UET_WIRE_E_RESERVED);
	/* CAS op declared with the short form, and the reverse. */
	ENC_EXPECT("atomic", h->atomic.op = UET_AMO_CSWAP,
		   UET_WIRE_E_BAD_COMBINATION);
	ENC_EXPECT("cas", h->atomic.op = UET_AMO_SUM,
		   UET_WIRE_E_BAD_COMBINATION);
	/* Compare/swap data on a non-CAS atomic. */
	ENC_EXPECT("atomic", h->atomic.swap[15] = 1,
		   UET_WIRE_E_BAD_COMBINATION);
	/* Atomic opcode without its extension. */
	ENC_EXPECT("atomic", h->ext = UET_SES_EXT_NONE,
		   UET_WIRE_E_BAD_COMBINATION);
	/* Atomic extension on a SEND. */
	ENC_EXPECT("atomic", h->opcode = UET_SES_OP_SEND,
		   UET_WIRE_E_BAD_COMBINATION);
	/* Atomic fields without an extension. */
	ENC_EXPECT("std_som", h->atomic.datatype = 1,
		   UET_WIRE_E_BAD_COMBINATION);
}

static void
req_encode__rdv_ext_rules(void **state)
{
	(void)state;
	/* Continuation of a rendezvous send carries no extension. */
	ENC_EXPECT("rdv", h->flags = UET_SES_F_EOM,
		   UET_WIRE_E_BAD_COMBINATION);
	ENC_EXPECT("rdv", h->ext = UET_SES_EXT_NONE,
		   UET_WIRE_E_BAD_COMBINATION);
	ENC_EXPECT("std_som", h->rdv.eager_length = 1,
		   UET_WIRE_E_BAD_COMBINATION);
	ENC_EXPECT("std_som", h->ext = UET_SES_EXT_RDV,
		   UET_WIRE_E_BAD_COMBINATION);
}

static void
req_encode__combination_rules(void **state)
{
	(void)state;
	ENC_EXPECT("medium", h->flags &= (uint8_t)~UET_SES_F_EOM,
		   UET_WIRE_E_BAD_COMBINATION);
	ENC_EXPECT("small", h->flags &= (uint8_t)~UET_SES_F_SOM,
		   UET_WIRE_E_BAD_COMBINATION);
	ENC_EXPECT("std_cont", h->flags |= UET_SES_F_HD,
		   UET_WIRE_E_BAD_COMBINATION);
	ENC_EXPECT("small", h->flags |= UET_SES_F_HD,
		   UET_WIRE_E_BAD_COMBINATION);
	ENC_EXPECT("small", h->opcode = UET_SES_OP_TAGGED_SEND,
		   UET_WIRE_E_BAD_COMBINATION);
	ENC_EXPECT("medium", h->opcode = UET_SES_OP_DEFERRABLE_TSEND,
		   UET_WIRE_E_BAD_COMBINATION);
	ENC_EXPECT("std_som", h->opcode = UET_SES_OP_DATAGRAM_SEND,
		   UET_WIRE_E_BAD_COMBINATION);
	ENC_EXPECT("rtr", h->flags = UET_SES_F_SOM,
		   UET_WIRE_E_BAD_COMBINATION);
	ENC_EXPECT("rtr", h->flags |= UET_SES_F_HD,
		   UET_WIRE_E_BAD_COMBINATION);
}

static void
req_encode__uncarried_fields_must_be_zero(void **state)
{
	(void)state;
	ENC_EXPECT("medium", h->message_id = 1, UET_WIRE_E_BAD_COMBINATION);
	ENC_EXPECT("small", h->message_id = 1, UET_WIRE_E_BAD_COMBINATION);
	ENC_EXPECT("small", h->initiator = 1, UET_WIRE_E_BAD_COMBINATION);
	ENC_EXPECT("small", h->match_bits = 1, UET_WIRE_E_BAD_COMBINATION);
	ENC_EXPECT("small", h->header_data = 1, UET_WIRE_E_BAD_COMBINATION);
	ENC_EXPECT("medium_hd", h->buffer_offset = 1,
		   UET_WIRE_E_BAD_COMBINATION);
	ENC_EXPECT("medium", h->header_data = 1, UET_WIRE_E_BAD_COMBINATION);
	ENC_EXPECT("std_cont", h->header_data = 1,
		   UET_WIRE_E_BAD_COMBINATION);
	ENC_EXPECT("std_som", h->payload_length = 1,
		   UET_WIRE_E_BAD_COMBINATION);
	ENC_EXPECT("std_som", h->message_offset = 1,
		   UET_WIRE_E_BAD_COMBINATION);
	ENC_EXPECT("medium", h->payload_length = 1,
		   UET_WIRE_E_BAD_COMBINATION);
}

/* ------------------------------------------------------------------ */
/* Responses: one negative test per rule                               */
/* ------------------------------------------------------------------ */

static int
resp_decode_patched(size_t idx, size_t off, uint8_t val)
{
	const struct resp_case *c = &g_resp_cases[idx];
	uint8_t buf[32];
	struct uet_wire_ses_resp h;

	memcpy(buf, c->bytes, c->len);
	buf[off] = val;
	return uet_wire_ses_resp_decode(buf, c->len, c->h.fmt, &h);
}

enum { RC_RESP, RC_DATA, RC_DATA_SMALL };

static void
resp_decode__bad_next_hdr(void **state)
{
	struct uet_wire_ses_resp h;

	(void)state;
	assert_int_equal(uet_wire_ses_resp_decode(g_response, 12,
					     (enum uet_wire_ses_resp_fmt)3, &h),
			 -UET_WIRE_E_BAD_NEXT_HDR);
	assert_int_equal(uet_wire_ses_resp_decode(g_response, 12,
					     (enum uet_wire_ses_resp_fmt)7, &h),
			 -UET_WIRE_E_BAD_NEXT_HDR);
}

static void
resp_decode__reserved(void **state)
{
	(void)state;
	assert_int_equal(resp_decode_patched(RC_DATA, 4, 0x01),
			 -UET_WIRE_E_RESERVED);
	assert_int_equal(resp_decode_patched(RC_DATA, 10, 0x4F),
			 -UET_WIRE_E_RESERVED);
	assert_int_equal(resp_decode_patched(RC_DATA_SMALL, 4, 0x80),
			 -UET_WIRE_E_RESERVED);
	assert_int_equal(resp_decode_patched(RC_DATA_SMALL, 2, 0xBF),
			 -UET_WIRE_E_RESERVED);
	/* Byte 4 is ri_generation in RESPONSE: any value. */
	assert_int_equal(resp_decode_patched(RC_RESP, 4, 0xFF), 12);
}

static void
resp_decode__bad_opcode(void **state)
{
	(void)state;
	assert_int_equal(resp_decode_patched(RC_RESP, 0, 0x44),
			 -UET_WIRE_E_BAD_OPCODE);
	assert_int_equal(resp_decode_patched(RC_DATA, 0, 0x3F),
			 -UET_WIRE_E_BAD_OPCODE);
}

static void
resp_decode__bad_version(void **state)
{
	(void)state;
	assert_int_equal(resp_decode_patched(RC_RESP, 1, 0x41),
			 -UET_WIRE_E_BAD_VERSION);
	assert_int_equal(resp_decode_patched(RC_DATA_SMALL, 1, 0xE2),
			 -UET_WIRE_E_BAD_VERSION);
}

static void
resp_decode__bad_list_and_rc(void **state)
{
	(void)state;
	assert_int_equal(resp_decode_patched(RC_RESP, 0, 0x81), /* list 2 */
			 -UET_WIRE_E_BAD_FIELD);
	assert_int_equal(resp_decode_patched(RC_DATA, 0, 0xC2), /* list 3 */
			 -UET_WIRE_E_BAD_FIELD);
	assert_int_equal(resp_decode_patched(RC_RESP, 1, 0x25), /* rc 0x25 */
			 -UET_WIRE_E_BAD_FIELD);
	assert_int_equal(resp_decode_patched(RC_RESP, 1, 0x24), 12);
}

static void
resp_decode__opcode_not_in_format(void **state)
{
	(void)state;
	assert_int_equal(resp_decode_patched(RC_RESP, 0, 0x42),
			 -UET_WIRE_E_BAD_COMBINATION);
	assert_int_equal(resp_decode_patched(RC_DATA, 0, 0x01),
			 -UET_WIRE_E_BAD_COMBINATION);
	assert_int_equal(resp_decode_patched(RC_DATA_SMALL, 0, 0x03),
			 -UET_WIRE_E_BAD_COMBINATION);
}

#define RESP_ENC_EXPECT(idx, stmt, err)                                     \
	do {                                                                \
		struct uet_wire_ses_resp h_ = g_resp_cases[idx].h;               \
		struct uet_wire_ses_resp *h = &h_;                               \
		uint8_t b_[32];                                             \
		stmt;                                                       \
		assert_int_equal(uet_wire_ses_resp_encode(h, b_, sizeof(b_)),    \
				 -(err));                                   \
	} while (0)

static void
resp_encode__validation(void **state)
{
	(void)state;
	RESP_ENC_EXPECT(RC_RESP, h->fmt = (enum uet_wire_ses_resp_fmt)0,
			UET_WIRE_E_BAD_NEXT_HDR);
	RESP_ENC_EXPECT(RC_RESP, h->list = 4, UET_WIRE_E_BAD_FIELD);
	RESP_ENC_EXPECT(RC_RESP, h->list = 2, UET_WIRE_E_BAD_FIELD);
	RESP_ENC_EXPECT(RC_RESP, h->opcode = 0x40, UET_WIRE_E_BAD_FIELD);
	RESP_ENC_EXPECT(RC_RESP, h->version = 4, UET_WIRE_E_BAD_FIELD);
	RESP_ENC_EXPECT(RC_RESP, h->return_code = 0x40,
			UET_WIRE_E_BAD_FIELD);
	RESP_ENC_EXPECT(RC_RESP, h->return_code = 0x25,
			UET_WIRE_E_BAD_FIELD);
	RESP_ENC_EXPECT(RC_RESP, h->job_id = 0x1000000, UET_WIRE_E_BAD_FIELD);
	RESP_ENC_EXPECT(RC_DATA, h->payload_length = 0x4000,
			UET_WIRE_E_BAD_FIELD);
	RESP_ENC_EXPECT(RC_RESP, h->opcode = 4, UET_WIRE_E_BAD_OPCODE);
	RESP_ENC_EXPECT(RC_RESP, h->version = 1, UET_WIRE_E_BAD_VERSION);
	RESP_ENC_EXPECT(RC_RESP, h->opcode = UET_SES_RSP_RESPONSE_W_DATA,
			UET_WIRE_E_BAD_COMBINATION);
	RESP_ENC_EXPECT(RC_DATA, h->opcode = UET_SES_RSP_NO_RESPONSE,
			UET_WIRE_E_BAD_COMBINATION);
}

static void
resp_encode__uncarried_fields_must_be_zero(void **state)
{
	(void)state;
	RESP_ENC_EXPECT(RC_RESP, h->payload_length = 1,
			UET_WIRE_E_BAD_COMBINATION);
	RESP_ENC_EXPECT(RC_RESP, h->read_request_message_id = 1,
			UET_WIRE_E_BAD_COMBINATION);
	RESP_ENC_EXPECT(RC_RESP, h->message_offset = 1,
			UET_WIRE_E_BAD_COMBINATION);
	RESP_ENC_EXPECT(RC_RESP, h->original_request_psn = 1,
			UET_WIRE_E_BAD_COMBINATION);
	RESP_ENC_EXPECT(RC_DATA, h->ri_generation = 1,
			UET_WIRE_E_BAD_COMBINATION);
	RESP_ENC_EXPECT(RC_DATA, h->original_request_psn = 1,
			UET_WIRE_E_BAD_COMBINATION);
	RESP_ENC_EXPECT(RC_DATA_SMALL, h->message_id = 1,
			UET_WIRE_E_BAD_COMBINATION);
	RESP_ENC_EXPECT(RC_DATA_SMALL, h->modified_length = 1,
			UET_WIRE_E_BAD_COMBINATION);
	RESP_ENC_EXPECT(RC_DATA_SMALL, h->message_offset = 1,
			UET_WIRE_E_BAD_COMBINATION);
	RESP_ENC_EXPECT(RC_DATA_SMALL, h->read_request_message_id = 1,
			UET_WIRE_E_BAD_COMBINATION);
}

/* ------------------------------------------------------------------ */
/* The JobID read in place (what TSS needs below the SES)              */
/* ------------------------------------------------------------------ */

static void
job_id__every_format(void **state)
{
	uint32_t job;

	(void)state;
	for (size_t i = 0; i < N_REQ_CASES; i++) {
		const struct req_case *c = &g_req_cases[i];

		job = 0;
		assert_int_equal(uet_wire_ses_job_id(c->bytes, c->len, c->fmt,
						     &job), 0);
		assert_int_equal(job, c->h.job_id);
	}
	for (size_t i = 0; i < N_RESP_CASES; i++) {
		const struct resp_case *c = &g_resp_cases[i];

		job = 0;
		assert_int_equal(uet_wire_ses_job_id(c->bytes, c->len, c->h.fmt,
						     &job), 0);
		assert_int_equal(job, c->h.job_id);
	}
}

static void
job_id__truncated(void **state)
{
	uint32_t job = 7;

	(void)state;
	for (size_t i = 0; i < N_REQ_CASES; i++) {
		const struct req_case *c = &g_req_cases[i];
		size_t hl = uet_wire_ses_fmt_len(c->fmt);

		assert_int_equal(uet_wire_ses_job_id(c->bytes, hl - 1, c->fmt,
						     &job),
				 -UET_WIRE_E_TRUNCATED);
	}
	for (size_t i = 0; i < N_RESP_CASES; i++) {
		const struct resp_case *c = &g_resp_cases[i];
		size_t hl = uet_wire_ses_resp_fmt_len(c->h.fmt);

		assert_int_equal(uet_wire_ses_job_id(c->bytes, hl - 1,
						     c->h.fmt, &job),
				 -UET_WIRE_E_TRUNCATED);
	}
	assert_int_equal(job, 7);
}

static void
job_id__not_ses(void **state)
{
	static const uint8_t b[64];
	uint32_t job = 7;

	(void)state;
	/* next header 0 (none) and the values past the response formats */
	assert_int_equal(uet_wire_ses_job_id(b, sizeof(b), 0, &job),
			 -UET_WIRE_E_BAD_NEXT_HDR);
	for (unsigned int nh = UET_SES_RESP_FMT_DATA_SMALL + 1; nh < 16; nh++)
		assert_int_equal(uet_wire_ses_job_id(b, sizeof(b), nh, &job),
				 -UET_WIRE_E_BAD_NEXT_HDR);
	assert_int_equal(job, 7);
}

static void
req_pid__every_format(void **state)
{
	uint16_t pid;

	(void)state;
	for (size_t i = 0; i < N_REQ_CASES; i++) {
		const struct req_case *c = &g_req_cases[i];
		size_t hl = uet_wire_ses_fmt_len(c->fmt);

		pid = 0;
		assert_int_equal(uet_wire_ses_req_pid(c->bytes, c->len, c->fmt,
						      &pid), 0);
		assert_int_equal(pid, c->h.pid_on_fep);
		assert_int_equal(uet_wire_ses_req_pid(c->bytes, hl - 1, c->fmt,
						      &pid),
				 -UET_WIRE_E_TRUNCATED);
	}
}

static void
req_pid__refused(void **state)
{
	const struct req_case *c = &g_req_cases[0];
	uint8_t b[64];
	uint16_t pid = 7;

	(void)state;
	assert_true(c->len <= sizeof(b));
	memcpy(b, c->bytes, c->len);
	b[8] |= 0x10; /* a reserved bit above the 12-bit PIDonFEP */
	assert_int_equal(uet_wire_ses_req_pid(b, c->len, c->fmt, &pid),
			 -UET_WIRE_E_RESERVED);
	/* a response carries no PIDonFEP */
	for (unsigned int nh = UET_SES_RESP_FMT_RESPONSE; nh < 16; nh++)
		assert_int_equal(uet_wire_ses_req_pid(b, sizeof(b), nh, &pid),
				 -UET_WIRE_E_BAD_NEXT_HDR);
	assert_int_equal(uet_wire_ses_req_pid(b, sizeof(b), 0, &pid),
			 -UET_WIRE_E_BAD_NEXT_HDR);
	assert_int_equal(pid, 7);
}

/* ------------------------------------------------------------------ */
/* The fields read in place against the decoder                        */
/* ------------------------------------------------------------------ */

/* The decoder's verdict on @p b as next header @p nh, and the fields the
 * in-place readers return (@p pid only for a request). */
static int
decode_as(const uint8_t *b, size_t len, unsigned int nh, uint32_t *job,
	  uint16_t *pid)
{
	struct uet_wire_ses_req rq;
	struct uet_wire_ses_resp rs;
	int rc;

	if (uet_wire_ses_fmt_len((enum uet_wire_ses_fmt)nh) != 0) {
		rc = uet_wire_ses_req_decode(b, len, (enum uet_wire_ses_fmt)nh,
					     &rq);
		*job = rq.job_id;
		*pid = rq.pid_on_fep;
		return rc;
	}
	rc = uet_wire_ses_resp_decode(b, len, (enum uet_wire_ses_resp_fmt)nh,
				      &rs);
	*job = rs.job_id;
	return rc;
}

/* The readers' contract: where the decoder accepts, they accept and read
 * what it decoded; where they refuse, the decoder refuses. @return whether
 * the JobID reader refused. */
static bool
readers_agree(const uint8_t *b, size_t len, unsigned int nh)
{
	bool req = uet_wire_ses_fmt_len((enum uet_wire_ses_fmt)nh) != 0;
	uint32_t job = 0, djob = 0;
	uint16_t pid = 0, dpid = 0;
	int drc = decode_as(b, len, nh, &djob, &dpid);
	int jrc = uet_wire_ses_job_id(b, len, nh, &job);
	int prc = uet_wire_ses_req_pid(b, len, nh, &pid);

	if (drc >= 0) {
		assert_int_equal(jrc, 0);
		assert_int_equal(job, djob);
		if (req) {
			assert_int_equal(prc, 0);
			assert_int_equal(pid, dpid);
		}
	}
	if (jrc < 0 || (req && prc < 0))
		assert_true(drc < 0);
	if (!req)
		assert_int_equal(prc, -UET_WIRE_E_BAD_NEXT_HDR);
	return jrc < 0;
}

/* Copy case bytes into @p b, zeros after them. */
static void
case_bytes(uint8_t *b, size_t cap, const uint8_t *bytes, size_t len)
{
	assert_true(len <= cap);
	memset(b, 0, cap);
	memcpy(b, bytes, len);
}

/* A hostile header the readers must refuse as the decoder does: short,
 * another version, an opcode outside the format's family. */
static void
job_id__refuses_what_decoder_refuses(void **state)
{
	uint8_t b[128];

	(void)state;
	for (size_t i = 0; i < N_REQ_CASES; i++) {
		const struct req_case *c = &g_req_cases[i];
		size_t hl = uet_wire_ses_fmt_len(c->fmt);

		for (size_t l = 0; l < hl; l++)
			assert_true(readers_agree(c->bytes, l, c->fmt));
		for (unsigned int v = 1; v < 4; v++) {
			case_bytes(b, sizeof(b), c->bytes, c->len);
			b[1] = (uint8_t)((b[1] & 0x3F) | (v << 6));
			assert_true(readers_agree(b, c->len, c->fmt));
		}
		for (unsigned int op = 0; op < 256; op++) {
			case_bytes(b, sizeof(b), c->bytes, c->len);
			b[0] = (uint8_t)op;
			assert_int_equal(readers_agree(b, c->len, c->fmt),
					 !uet_wire_ses_fmt_allows(c->fmt, op));
		}
	}
	for (size_t i = 0; i < N_RESP_CASES; i++) {
		const struct resp_case *c = &g_resp_cases[i];
		size_t hl = uet_wire_ses_resp_fmt_len(c->h.fmt);

		for (size_t l = 0; l < hl; l++)
			assert_true(readers_agree(c->bytes, l, c->h.fmt));
		for (unsigned int v = 1; v < 4; v++) {
			case_bytes(b, sizeof(b), c->bytes, c->len);
			b[1] = (uint8_t)((b[1] & 0x3F) | (v << 6));
			assert_true(readers_agree(b, c->len, c->h.fmt));
		}
		for (unsigned int op = 0; op < 64; op++) {
			bool data_fmt = c->h.fmt != UET_SES_RESP_FMT_RESPONSE;

			case_bytes(b, sizeof(b), c->bytes, c->len);
			b[0] = (uint8_t)((b[0] & 0xC0) | op);
			assert_int_equal(readers_agree(b, c->len, c->h.fmt),
					 op > UET_SES_RSP_NO_RESPONSE ||
					 data_fmt !=
					 (op == UET_SES_RSP_RESPONSE_W_DATA));
		}
	}
}

/* Fuzz-like: every case header with one to four random bytes of its
 * first 16 changed (where the common fields and flags are), at a random
 * length around the header's, read as a random next header. */
static void
job_id__agrees_with_decoder_on_mutations(void **state)
{
	unsigned int refused = 0, accepted = 0;
	uint8_t b[128];
	size_t cut;

	(void)state;
	for (unsigned int it = 0; it < RANDOM_ITERS; it++) {
		size_t k = rnd(N_REQ_CASES + N_RESP_CASES);
		const uint8_t *bytes = k < N_REQ_CASES ?
			g_req_cases[k].bytes : g_resp_cases[k - N_REQ_CASES].bytes;
		size_t len = k < N_REQ_CASES ?
			g_req_cases[k].len : g_resp_cases[k - N_REQ_CASES].len;
		unsigned int nh = k < N_REQ_CASES ?
			(unsigned int)g_req_cases[k].fmt :
			(unsigned int)g_resp_cases[k - N_REQ_CASES].h.fmt;

		case_bytes(b, sizeof(b), bytes, len);
		for (unsigned int n = 1 + rnd(4); n > 0; n--)
			b[rnd(16)] = (uint8_t)rbits(8);
		if (rnd(4) == 0)
			nh = 1 + rnd(UET_SES_RESP_FMT_DATA_SMALL);
		cut = rnd(8);
		len = (len > cut ? len - cut : 0) + rnd(8);
		if (readers_agree(b, len < sizeof(b) ? len : sizeof(b), nh))
			refused++;
		else
			accepted++;
	}
	/* both outcomes were exercised */
	assert_true(refused > RANDOM_ITERS / 10);
	assert_true(accepted > RANDOM_ITERS / 10);
}

/* ------------------------------------------------------------------ */

#define T(f) cmocka_unit_test_setup(f, rng_setup)

int
main(void)
{
	const struct CMUnitTest tests[] = {
		T(fmt__next_hdr_mapping),
		T(fmt__lengths),
		T(fmt_allows__table),
		T(req_ext_needed__by_opcode),
		T(req_tokens__accessors),
		T(rtr_layout__ready_to_restart_fields),
		T(req_golden__std_som),
		T(req_golden__std_cont),
		T(req_golden__medium_hd),
		T(req_golden__medium),
		T(req_golden__small),
		T(req_golden__deferrable),
		T(req_golden__rtr),
		T(req_golden__atomic),
		T(req_golden__cas),
		T(req_golden__rdv),
		T(req_golden__tokens_and_restart),
		T(req_decode__every_truncation),
		T(req_encode__every_short_cap),
		T(resp_golden__response),
		T(resp_golden__data),
		T(resp_golden__data_small),
		T(resp_decode__every_truncation),
		T(resp_encode__every_short_cap),
		T(req_roundtrip__std_som),
		T(req_roundtrip__std_cont),
		T(req_roundtrip__medium_hd),
		T(req_roundtrip__medium),
		T(req_roundtrip__small),
		T(req_roundtrip__deferrable),
		T(req_roundtrip__rtr),
		T(req_roundtrip__atomic),
		T(req_roundtrip__cas),
		T(req_roundtrip__rdv),
		T(req_roundtrip__arbitrary_structs),
		T(req_decode__mutated_bytes_reencode),
		T(resp_roundtrip__random),
		T(resp_decode__mutated_bytes_reencode),
		T(req_decode__bad_next_hdr),
		T(req_decode__reserved_above_opcode),
		T(req_decode__reserved_above_pid_and_ri),
		T(req_decode__reserved_above_request_length),
		T(req_decode__reserved_in_continuation_word),
		T(req_decode__reserved_atomic_byte),
		T(req_decode__reserved_semantic_control),
		T(req_decode__bad_opcode),
		T(req_decode__bad_version),
		T(req_decode__bad_atomic),
		T(req_decode__single_packet_formats_need_som_eom),
		T(req_decode__hd_without_header_data_slot),
		T(req_decode__opcode_not_in_format),
		T(req_decode__datagram_rules),
		T(req_decode__rtr_rules),
		T(req_encode__bad_next_hdr),
		T(req_encode__bad_field),
		T(req_encode__bad_opcode_version),
		T(req_encode__atomic_ext_rules),
		T(req_encode__rdv_ext_rules),
		T(req_encode__combination_rules),
		T(req_encode__uncarried_fields_must_be_zero),
		T(resp_decode__bad_next_hdr),
		T(resp_decode__reserved),
		T(resp_decode__bad_opcode),
		T(resp_decode__bad_version),
		T(resp_decode__bad_list_and_rc),
		T(resp_decode__opcode_not_in_format),
		T(resp_encode__validation),
		T(resp_encode__uncarried_fields_must_be_zero),
		T(job_id__every_format),
		T(job_id__truncated),
		T(job_id__not_ses),
		T(req_pid__every_format),
		T(req_pid__refused),
		T(job_id__refuses_what_decoder_refuses),
		T(job_id__agrees_with_decoder_on_mutations),
	};
	const char *env = getenv("UET_TEST_SEED");

	if (env != NULL && *env != '\0')
		g_seed = strtoull(env, NULL, 0);
	print_message("test_wire_ses: seed=%llu\n",
		      (unsigned long long)g_seed);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
