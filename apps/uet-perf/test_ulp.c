/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The "raw PDS" test ULP of uet-perf: a traffic source and checker that
 * stands where the SES will be. Messages are numbered; a message of
 * `size` bytes is cut into P packets of near-equal length (each >= 16).
 * Packet k of message seq is cookie seq * P + k. Each packet carries a
 * real SES header (SEND; SMALL for single-packet messages with seq in
 * buffer_offset, STD otherwise with seq in match_bits and the message
 * offset in buffer_offset / message_offset) and a payload
 *
 *   seq (8, little endian) | checksum (8) | pattern(seq, k) ...
 *
 * rebuilt identically for a retransmission. The receiver checks the
 * header, the sequence number, every pattern byte and the checksum, and
 * counts each packet (exactly once, in order for ROD).
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>

#include <uet/uet_wire.h>

#include "perf.h"

/* cookie = destination << DEST_SHIFT | (seq * ppm + k) */
#define DEST_SHIFT 40
#define POS_MASK ((UINT64_C(1) << DEST_SHIFT) - 1)
/* messages the receive record holds at first (grown as they arrive) */
#define TEST_ULP_RX_CAP0 4096u

/* Sender state per destination (p.dests). */
struct test_ulp_dstate {
	uint64_t next_seq;       /* messages fully submitted */
	uint32_t next_k;         /* next packet of the message in progress */
	uint64_t inflight;       /* packets submitted, not completed */
	uint64_t acked;          /* packets completed */
};

struct test_ulp {
	struct test_ulp_params p;
	uint32_t ppm;            /* packets per message */
	uint32_t base;           /* bytes of packets [rem, ppm) */
	uint32_t rem;            /* packets carrying base + 1 */
	uint32_t e_ppm, e_base, e_rem; /* same for the expected messages */
	/* sender */
	uint64_t next_seq;
	uint32_t next_k;
	uint64_t pkts_sub;
	uint64_t pkts_ok;
	uint64_t pkts_err;
	uint64_t msgs_sent;
	const struct test_ulp_engine *e; /* the mode's (NULL: stream) */
	void *e_priv;            /* its state */
	/* receiver */
	uint8_t *seen;           /* per expected packet: deliveries (sat.) */
	uint16_t *msg_pkts;      /* per expected message: packets seen */
	uint64_t rx_cap;         /* messages the two arrays hold (grown) */
	uint64_t next_g;         /* ROD: next packet expected */
	struct test_ulp_flow *flow;  /* incast: per sender (p.flows) */
	/* ROD with flows: next packet expected per sender (each sender's
	 * PDC is ordered, not the interleaving of several) */
	uint64_t *flow_next_g;
	struct test_ulp_dstate *ds;  /* per p.dests entry */
	uint32_t rr;             /* next destination to serve */
	struct test_ulp_result res;
};

/* ------------------------------------------------------------------ */
/* layout and pattern                                                  */
/* ------------------------------------------------------------------ */

static uint16_t
ses_len(uint32_t ppm)
{
	return ppm == 1 ? UET_SES_SMALL_LEN : UET_SES_STD_LEN;
}

uint32_t
test_ulp_pkts_per_msg(uint32_t size, uint16_t max_len)
{
	uint32_t cap;

	if (size + UET_SES_SMALL_LEN <= max_len && size <= UET_SES_LEN14_MAX)
		return 1;
	cap = (uint32_t)max_len - UET_SES_STD_LEN;
	return (size + cap - 1) / cap;
}

static void
split(uint32_t size, uint32_t ppm, uint32_t *base, uint32_t *rem)
{
	*base = size / ppm;
	*rem = size % ppm;
}

static uint32_t
pkt_len(uint32_t base, uint32_t rem, uint32_t k)
{
	return base + (k < rem ? 1 : 0);
}

static uint32_t
pkt_off(uint32_t base, uint32_t rem, uint32_t k)
{
	return k * base + (k < rem ? k : rem);
}

static uint32_t
pkt_of_off(uint32_t base, uint32_t rem, uint32_t off)
{
	uint32_t big = rem * (base + 1);

	if (off < big)
		return off / (base + 1);
	return rem + (off - big) / base;
}

static inline uint64_t
pat(uint64_t seq, uint32_t k, uint32_t j)
{
	uint64_t x = seq * 0x9E3779B97F4A7C15ull ^
		     (((uint64_t)k << 24 | j) * 0xD1B54A32D192ED03ull);

	return x ^ (x >> 29);
}

static inline uint64_t
csum_step(uint64_t h, uint64_t w)
{
	h ^= w;
	return (h << 7 | h >> 57) * 0x100000001B3ull;
}

/* Write payload of packet (seq, k), @p len >= 16 bytes. */
static void
payload_fill(uint8_t *b, uint64_t seq, uint32_t k, uint32_t len)
{
	uint32_t words = (len - 16) / 8, tail = (len - 16) % 8, j;
	uint64_t h = 0, w;

	for (j = 0; j < words; j++) {
		w = pat(seq, k, j);
		memcpy(b + 16 + 8 * j, &w, 8);
		h = csum_step(h, w);
	}
	if (tail) {
		w = 0;
		memcpy(&w, &(uint64_t){ pat(seq, k, j) }, tail);
		memcpy(b + 16 + 8 * j, &w, tail);
		h = csum_step(h, w);
	}
	memcpy(b, &seq, 8);
	memcpy(b + 8, &h, 8);
}

/* Byte-exact check of packet (seq, k): pattern and checksum. */
static bool
payload_ok(const uint8_t *b, uint64_t seq, uint32_t k, uint32_t len)
{
	uint32_t words = (len - 16) / 8, tail = (len - 16) % 8, j;
	uint64_t h = 0, w, s, c;

	memcpy(&s, b, 8);
	memcpy(&c, b + 8, 8);
	if (s != seq)
		return false;
	for (j = 0; j < words; j++) {
		memcpy(&w, b + 16 + 8 * j, 8);
		if (w != pat(seq, k, j))
			return false;
		h = csum_step(h, w);
	}
	if (tail) {
		uint64_t e = 0;

		w = 0;
		memcpy(&w, b + 16 + 8 * j, tail);
		memcpy(&e, &(uint64_t){ pat(seq, k, j) }, tail);
		if (w != e)
			return false;
		h = csum_step(h, w);
	}
	return h == c;
}

/* ------------------------------------------------------------------ */
/* lifecycle                                                           */
/* ------------------------------------------------------------------ */

/* The mode's engine of the side and its state: 0 or -errno. */
static int
engine_create(struct test_ulp *r)
{
	r->e = r->p.engine;
	if (r->e == NULL)
		return 0;
	if (r->e->priv_size > 0) {
		r->e_priv = calloc(1, r->e->priv_size);
		if (r->e_priv == NULL)
			return -ENOMEM;
	}
	if (r->e->init != NULL && r->e->init(r->e_priv, r) != 0) {
		free(r->e_priv);
		r->e = NULL;
		return -ENOMEM;
	}
	return 0;
}

struct test_ulp *
test_ulp_create(const struct test_ulp_params *p)
{
	struct test_ulp *r = calloc(1, sizeof(*r));

	if (r == NULL)
		return NULL;
	r->p = *p;
	if (engine_create(r) != 0) {
		free(r);
		return NULL;
	}
	if (p->nb_dests > 0) {
		r->ds = calloc(p->nb_dests, sizeof(*r->ds));
		r->p.count = 0; /* the destinations' counts rule */
		if (r->ds == NULL || p->dests == NULL || p->engine != NULL ||
		    p->nb_dests > (1u << 20)) {
			test_ulp_free(r);
			return NULL;
		}
	}
	if (p->flows > 0) {
		if (p->flow_span == 0) {
			test_ulp_free(r);
			return NULL;
		}
		r->flow = calloc(p->flows, sizeof(*r->flow));
		r->flow_next_g = calloc(p->flows, sizeof(*r->flow_next_g));
		if (r->flow == NULL || r->flow_next_g == NULL) {
			test_ulp_free(r);
			return NULL;
		}
	}
	return r;
}

void
test_ulp_free(struct test_ulp *r)
{
	if (r == NULL)
		return;
	if (r->e != NULL && r->e->fini != NULL)
		r->e->fini(r->e_priv, r);
	free(r->e_priv);
	free(r->seen);
	free(r->msg_pkts);
	free(r->flow);
	free(r->flow_next_g);
	free(r->ds);
	free(r);
}

/*
 * Make the receive record hold message @p seq (0: the first
 * TEST_ULP_RX_CAP0 messages): 0 or -ENOMEM. It grows by doubling, up to
 * p.expect, as messages arrive: a run bounded by --duration expects up
 * to PERF_MAX_COUNT messages (10^8, 300 MB for 64 B and 4.7 GB for 64 KiB
 * at MTU 1500 if allocated up front) but receives what the time allows.
 */
static int
rx_grow(struct test_ulp *r, uint64_t seq)
{
	uint64_t cap = RTE_MAX(r->rx_cap * 2, TEST_ULP_RX_CAP0);
	uint8_t *seen;
	uint16_t *mp;

	if (seq < r->rx_cap)
		return 0;
	cap = RTE_MAX(cap, seq + 1);
	cap = RTE_MIN(cap, r->p.expect);
	seen = realloc(r->seen, cap * r->e_ppm);
	if (seen == NULL)
		return -ENOMEM;
	r->seen = seen;
	mp = realloc(r->msg_pkts, cap * sizeof(*mp));
	if (mp == NULL)
		return -ENOMEM;
	r->msg_pkts = mp;
	memset(seen + r->rx_cap * r->e_ppm, 0, (cap - r->rx_cap) * r->e_ppm);
	memset(mp + r->rx_cap, 0, (cap - r->rx_cap) * sizeof(*mp));
	r->rx_cap = cap;
	return 0;
}

/* Deliveries of expected packet @p g (0 beyond what arrived). */
static unsigned int
seen_at(const struct test_ulp *r, uint64_t g)
{
	return g < r->rx_cap * r->e_ppm ? r->seen[g] : 0;
}

static int
test_ulp_init(struct uet_ulp_ctx *ctx, void *arg, void **priv)
{
	struct test_ulp *r = arg;
	uint16_t ml = uet_ulp_max_len(ctx);

	if (r->p.size < 16 || (r->p.expect && r->p.expect_size < 16))
		return -EINVAL;
	r->ppm = test_ulp_pkts_per_msg(r->p.size, ml);
	split(r->p.size, r->ppm, &r->base, &r->rem);
	r->e_ppm = test_ulp_pkts_per_msg(r->p.expect_size ? r->p.expect_size :
					 16, ml);
	split(r->p.expect_size, r->e_ppm, &r->e_base, &r->e_rem);
	if (r->ppm > 65535 || r->e_ppm > 65535)
		return -EINVAL;
	for (uint32_t f = 0; r->flow_next_g != NULL && f < r->p.flows; f++)
		r->flow_next_g[f] = f * r->p.flow_span * r->e_ppm;
	if (r->p.expect > 0 && rx_grow(r, 0) < 0)
		return -ENOMEM;
	*priv = r;
	return 0;
}

static void
test_ulp_fini(struct uet_ulp_ctx *ctx, void *priv)
{
	(void)ctx;
	(void)priv; /* owned by the caller (test_ulp_free) */
}

/* ------------------------------------------------------------------ */
/* sender                                                              */
/* ------------------------------------------------------------------ */

/* The job of message @p seq: a PDC is keyed by {job, destination, TC,
 * mode} (UEC 1.0 PDS PDC lookup), so --pdcs N spreads the messages over
 * N PDCs, --pdc-burst K of them in a row on each. */
static uint32_t
job_of(const struct test_ulp *r, uint64_t seq)
{
	if (r->p.pdcs <= 1)
		return PERF_TEST_ULP_JOB;
	if (r->p.pdc_burst > 1)
		seq /= r->p.pdc_burst;
	return PERF_TEST_ULP_JOB + (uint32_t)(seq % r->p.pdcs);
}

static int
test_ulp_build(void *priv, uint64_t cookie, uint32_t psn, bool is_retx,
	       uint8_t *buf, size_t cap)
{
	struct test_ulp *r = priv;
	uint64_t seq = (cookie & POS_MASK) / r->ppm;
	uint32_t k = (uint32_t)((cookie & POS_MASK) % r->ppm);
	uint32_t len = pkt_len(r->base, r->rem, k);
	uint32_t off = pkt_off(r->base, r->rem, k);
	/* copied, not memset(): gcc makes a slow `rep stos` of that */
	static const struct uet_wire_ses_req zero;
	struct uet_wire_ses_req h = zero;
	int hl;

	(void)psn;
	(void)is_retx;
	h.opcode = UET_SES_OP_SEND;
	h.version = UET_SES_VERSION;
	h.job_id = job_of(r, seq);
	h.request_length = r->p.size;
	if (r->ppm == 1) {
		h.flags = UET_SES_F_SOM | UET_SES_F_EOM;
		h.buffer_offset = seq;
		hl = uet_wire_ses_req_encode(&h, UET_SES_FMT_SMALL, buf, cap);
	} else {
		h.flags = (uint8_t)((k == 0 ? UET_SES_F_SOM : 0) |
				    (k == r->ppm - 1 ? UET_SES_F_EOM : 0));
		h.message_id = (uint16_t)seq;
		h.match_bits = seq;
		h.buffer_offset = off;
		if (k != 0) { /* continuation fields (payload_length, message_offset) */
			h.message_offset = off;
			h.payload_length = (uint16_t)len;
		}
		hl = uet_wire_ses_req_encode(&h, UET_SES_FMT_STD, buf, cap);
	}
	if (hl < 0 || (size_t)hl + len > cap)
		return -ENOSPC;
	payload_fill(buf + hl, seq, k, len);
	return hl + (int)len;
}

static int
submit_pkt(struct test_ulp *r, struct uet_ulp_ctx *ctx, uint64_t seq,
	   uint32_t k)
{
	struct uet_pds_submit q;

	q.dst = r->p.peer;
	q.job = job_of(r, seq);
	q.tc = 0;
	q.mode = r->p.mode;
	q.next_hdr = r->ppm == 1 ? UET_PDS_NEXT_REQUEST_SMALL :
				   UET_PDS_NEXT_REQUEST_STD;
	q.flags = 0;
	q.len = (uint16_t)(ses_len(r->ppm) + pkt_len(r->base, r->rem, k));
	q.pdc = 0;
	q.cookie = seq * r->ppm + k;
	return uet_ulp_submit(ctx, &q);
}

bool
test_ulp_submit(struct test_ulp *r, struct uet_ulp_ctx *ctx, uint64_t seq,
		unsigned int *work)
{
	while (r->next_k < r->ppm) {
		if (r->pkts_sub - r->pkts_ok - r->pkts_err >= r->p.window)
			return false;
		if (submit_pkt(r, ctx, seq, r->next_k) != 0)
			return false;
		r->next_k++;
		r->pkts_sub++;
		(*work)++;
	}
	r->next_k = 0;
	r->msgs_sent++;
	return true;
}

/* Destination @p d: packets of its messages up to its window. */
static unsigned int
dest_submit(struct test_ulp *r, struct uet_ulp_ctx *ctx, uint32_t d)
{
	const struct test_ulp_dest *dst = &r->p.dests[d];
	struct test_ulp_dstate *x = &r->ds[d];
	unsigned int work = 0;
	struct uet_pds_submit q;

	while (x->next_seq < dst->count && x->inflight < r->p.window) {
		uint64_t seq = dst->seq_base + x->next_seq;

		q.dst = dst->peer;
		q.job = PERF_TEST_ULP_JOB;
		q.tc = 0;
		q.mode = r->p.mode;
		q.next_hdr = r->ppm == 1 ? UET_PDS_NEXT_REQUEST_SMALL :
					   UET_PDS_NEXT_REQUEST_STD;
		q.flags = 0;
		q.len = (uint16_t)(ses_len(r->ppm) +
				   pkt_len(r->base, r->rem, x->next_k));
		q.pdc = 0;
		q.cookie = (uint64_t)d << DEST_SHIFT |
			   (seq * r->ppm + x->next_k);
		if (uet_ulp_submit(ctx, &q) != 0)
			break;
		x->inflight++;
		r->pkts_sub++;
		work++;
		if (++x->next_k == r->ppm) {
			x->next_k = 0;
			x->next_seq++;
			r->msgs_sent++;
		}
	}
	return work;
}

/* Multi-destination sending: round robin over the started ones. */
static unsigned int
dests_poll(struct test_ulp *r, struct uet_ulp_ctx *ctx, uint64_t now)
{
	unsigned int work = 0;

	for (uint32_t i = 0; i < r->p.nb_dests; i++) {
		uint32_t d = (r->rr + i) % r->p.nb_dests;

		if (now >= r->p.dests[d].start_ns)
			work += dest_submit(r, ctx, d);
	}
	r->rr = (r->rr + 1) % r->p.nb_dests;
	return work;
}

static unsigned int
test_ulp_poll(void *priv, struct uet_ulp_ctx *ctx, uint64_t now)
{
	struct test_ulp *r = priv;
	unsigned int work = 0;

	if (r->p.nb_dests > 0)
		return dests_poll(r, ctx, now);
	if (r->e != NULL && r->e->owed != NULL &&
	    !r->e->owed(r->e_priv, r, ctx, &work))
		return work;
	while (r->next_seq < r->p.count) {
		uint64_t seq = r->p.seq_base + r->next_seq;

		if (r->p.deadline_tsc && r->next_k == 0 &&
		    rte_rdtsc() > r->p.deadline_tsc) {
			r->p.count = r->next_seq; /* duration reached */
			break;
		}
		if (r->e != NULL && r->e->send != NULL ?
		    !r->e->send(r->e_priv, r, ctx, seq, &work) :
		    !test_ulp_submit(r, ctx, seq, &work))
			break;
		r->next_seq++;
	}
	return work;
}

static void
test_ulp_done(struct test_ulp *r, struct uet_ulp_ctx *ctx, uint64_t cookie,
	      int status)
{
	if (status == 0)
		r->pkts_ok++;
	else
		r->pkts_err++;
	if (status != 0 && r->e != NULL && r->e->failed != NULL)
		r->e->failed(r->e_priv, r, (cookie & POS_MASK) / r->ppm);
	if (r->p.nb_dests > 0 && (cookie >> DEST_SHIFT) < r->p.nb_dests) {
		uint32_t d = (uint32_t)(cookie >> DEST_SHIFT);
		struct test_ulp_dstate *x = &r->ds[d];

		x->inflight--;
		if (++x->acked == r->p.dests[d].count * r->ppm)
			r->p.dests[d].done_ns = uet_ulp_now(ctx);
	}
}

bool
test_ulp_send_finished(const struct test_ulp *r)
{
	for (uint32_t d = 0; d < r->p.nb_dests; d++)
		if (r->ds[d].next_seq < r->p.dests[d].count)
			return false;
	return r->next_seq >= r->p.count && r->next_k == 0 &&
	       r->pkts_ok + r->pkts_err == r->pkts_sub &&
	       (r->e == NULL || r->e->idle == NULL || r->e->idle(r->e_priv));
}

/* ------------------------------------------------------------------ */
/* receiver                                                            */
/* ------------------------------------------------------------------ */

/*
 * The SES request header of a delivered packet (the engine hands the
 * bytes after the PDS header, undecoded): its payload and length, or
 * NULL when the header does not decode or a continuation's declared
 * payload length is not what arrived.
 */
static const uint8_t *
decode_req(const struct uet_pds_event *ev, const uint8_t *ses, uint16_t len,
	   struct uet_wire_ses_req *req, uint16_t *plen)
{
	enum uet_wire_ses_fmt fmt = (enum uet_wire_ses_fmt)ev->next_hdr;
	int hl;

	if (ses == NULL || uet_wire_ses_fmt_from_next_hdr(ev->next_hdr) < 0)
		return NULL;
	hl = uet_wire_ses_req_decode(ses, len, fmt, req);
	if (hl < 0)
		return NULL;
	*plen = (uint16_t)(len - hl);
	if (fmt == UET_SES_FMT_STD && !(req->flags & UET_SES_F_SOM) &&
	    req->payload_length != *plen)
		return NULL;
	return ses + hl;
}

static bool
decode_pos(const struct test_ulp *r, uint8_t next_hdr,
	   const struct uet_wire_ses_req *req, uint64_t *seq, uint32_t *k)
{
	if (r->e_ppm == 1) {
		if (next_hdr != UET_SES_FMT_SMALL)
			return false;
		*seq = req->buffer_offset;
		*k = 0;
		return true;
	}
	if (next_hdr != UET_SES_FMT_STD)
		return false;
	*seq = req->match_bits;
	*k = pkt_of_off(r->e_base, r->e_rem, (uint32_t)req->buffer_offset);
	return *k < r->e_ppm;
}

static void
test_ulp_deliver(struct test_ulp *r, struct uet_ulp_ctx *ctx,
		 const struct uet_pds_event *ev, const uint8_t *ses,
		 uint16_t slen)
{
	struct uet_wire_ses_req req;
	const uint8_t *payload;
	uint16_t len = 0;
	uint64_t seq, g;
	uint32_t k;

	r->res.rx_pkts++;
	payload = decode_req(ev, ses, slen, &req, &len);
	if (payload == NULL || !decode_pos(r, ev->next_hdr, &req, &seq, &k) ||
	    seq >= r->p.expect ||
	    len != pkt_len(r->e_base, r->e_rem, k) ||
	    !payload_ok(payload, seq, k, len)) {
		r->res.rx_bad++;
		return;
	}
	if (rx_grow(r, seq) < 0) {
		r->res.rx_bad++; /* cannot be recorded */
		return;
	}
	g = seq * r->e_ppm + k;
	if (ev->mode == UET_PDS_MODE_ROD) {
		uint64_t *next = r->flow_next_g == NULL ? &r->next_g :
			&r->flow_next_g[RTE_MIN(seq / r->p.flow_span,
						r->p.flows - 1)];

		if (g != *next)
			r->res.rx_order_err++;
		*next = g + 1;
	}
	if (r->seen[g] != 0) {
		r->res.rx_dup++;
		if (r->seen[g] < UINT8_MAX)
			r->seen[g]++;
		return;
	}
	r->seen[g] = 1;
	r->res.rx_bytes += len;
	if (r->flow != NULL) {
		struct test_ulp_flow *f =
			&r->flow[RTE_MIN(seq / r->p.flow_span, r->p.flows - 1)];

		if (f->bytes == 0)
			f->first_ns = uet_ulp_now(ctx);
		f->bytes += len;
	}
	if (++r->msg_pkts[seq] != r->e_ppm)
		return;
	r->res.rx_msgs++;
	if (r->flow != NULL) {
		struct test_ulp_flow *f =
			&r->flow[RTE_MIN(seq / r->p.flow_span, r->p.flows - 1)];

		f->msgs++;
		f->last_tsc = rte_rdtsc();
		f->last_ns = uet_ulp_now(ctx);
	}
	if (r->e != NULL && r->e->received != NULL)
		r->e->received(r->e_priv, r, seq);
}

/* The one upcall of the ULP interface: deliveries and completions (a PDC
 * that goes down has completed its cookies with DONE already). */
static void
test_ulp_event(void *priv, struct uet_ulp_ctx *ctx,
	       const struct uet_pds_event *ev, const uint8_t *ses, uint16_t len)
{
	struct test_ulp *r = priv;

	if (ev->type == UET_PDS_EV_DELIVER)
		test_ulp_deliver(r, ctx, ev, ses, len);
	else if (ev->type == UET_PDS_EV_DONE)
		test_ulp_done(r, ctx, ev->cookie, ev->status);
}

void
test_ulp_expect_trim(struct test_ulp *r, uint64_t n)
{
	if (n < r->p.expect)
		r->p.expect = n;
}

void
test_ulp_set_deadline(struct test_ulp *r, uint64_t deadline)
{
	r->p.deadline_tsc = deadline;
}

void
test_ulp_set_count(struct test_ulp *r, uint64_t count)
{
	r->p.count = count;
}

void
test_ulp_stop(struct test_ulp *r)
{
	r->p.deadline_tsc = 1; /* in the past: no new message */
}

uint64_t
test_ulp_activity(const struct test_ulp *r)
{
	return r->pkts_ok + r->pkts_err + r->res.rx_pkts;
}

uint64_t
test_ulp_msgs_done(const struct test_ulp *r)
{
	if (r->e != NULL && r->e->msgs_done != NULL)
		return r->e->msgs_done(r->e_priv, r);
	return r->pkts_ok / r->ppm;
}

uint64_t
test_ulp_next(const struct test_ulp *r, uint32_t *k)
{
	*k = r->next_k;
	return r->p.seq_base + r->next_seq;
}

const struct test_ulp_params *
test_ulp_params(const struct test_ulp *r)
{
	return &r->p;
}

struct test_ulp_result *
test_ulp_res(struct test_ulp *r)
{
	return &r->res;
}

const struct test_ulp_result *
test_ulp_live(const struct test_ulp *r)
{
	return &r->res;
}

const struct test_ulp_flow *
test_ulp_flow_live(const struct test_ulp *r, uint32_t f)
{
	return r->flow != NULL && f < r->p.flows ? &r->flow[f] : NULL;
}

int
test_ulp_flow_get(const struct test_ulp *r, uint32_t f, uint64_t sent,
		  struct test_ulp_flow *out)
{
	uint64_t first, last;

	if (r->flow == NULL || f >= r->p.flows)
		return -EINVAL;
	*out = r->flow[f];
	out->lost = 0;
	first = (uint64_t)f * r->p.flow_span;
	last = first + RTE_MIN(sent, r->p.flow_span);
	last = RTE_MIN(last, r->p.expect);
	for (uint64_t g = first * r->e_ppm; g < last * r->e_ppm; g++)
		out->lost += seen_at(r, g) == 0;
	return 0;
}

void
test_ulp_result(const struct test_ulp *r, struct test_ulp_result *out)
{
	uint64_t rec;

	*out = r->res;
	out->msgs_sent = r->msgs_sent;
	out->pkts_done_ok = r->pkts_ok;
	out->pkts_done_err = r->pkts_err;
	out->rx_lost = 0;
	if (r->seen == NULL)
		return;
	/* past the record nothing arrived */
	rec = RTE_MIN(r->rx_cap, r->p.expect) * r->e_ppm;
	for (uint64_t g = 0; g < rec; g++)
		out->rx_lost += r->seen[g] == 0;
	out->rx_lost += r->p.expect * r->e_ppm - rec;
}

const struct uet_ulp_ops test_ulp_ops = {
	.size = sizeof(struct uet_ulp_ops),
	.name = "rawpds",
	.init = test_ulp_init,
	.fini = test_ulp_fini,
	.build = test_ulp_build,
	.event = test_ulp_event,
	.poll = test_ulp_poll,
};
