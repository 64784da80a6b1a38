/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef PDS_FAKEWIRE_H
#define PDS_FAKEWIRE_H

/*
 * A fake lossy wire and clock joining two PDS instances (side 0 = initiator,
 * side 1 = target, though both may play both roles). Every packet is
 * encoded to bytes with the real PDS codec and decoded on the other side.
 * Faults are seeded and deterministic, per direction: drop, duplicate,
 * reorder (extra delay), trim, CE mark, and a dead path.
 */

#include <stdbool.h>
#include <stdint.h>

#include <uet/uet_pds.h>
#include <uet/uet_rand.h>

#define FW_PAYLOAD_MAX (UET_PDS_RESP_MAX + 16) /* RUDI/ACK responses */
#define FW_PKT_MAX (UET_PDS_HDR_MAX_LEN + FW_PAYLOAD_MAX)
#define FW_QUEUE 8192
#define FW_COOKIES 4096
/* Return-direction data for forward cookie c is cookie FW_RET_BASE + c. */
#define FW_RET_BASE 2048

/* Fault rates in parts per million, per direction (0: side0 -> side1). */
struct fakewire_faults {
	uint32_t drop;
	uint32_t dup;
	uint32_t reorder;
	uint32_t trim;
	uint32_t ce;
	bool dead;
};

struct fakewire_pkt {
	uint64_t at;
	uint16_t len;
	uint16_t full_len;  /* SES length before a trim */
	uint16_t ev;
	bool ce;
	bool trimmed;
	uint8_t bytes[FW_PKT_MAX];
};

/* A target names no Start_PSN in the interval of the clock it started in
 * (struct pds_syn_rec): a test that wants one named moves the clock on by
 * this much after the target's first call. */
#define FAKEWIRE_NAME_NS (UINT64_C(1) << 20)

struct fakewire {
	struct uet_pds *pds[2];
	struct uet_pds_fa fa[2];
	struct fakewire_faults f[2];
	uint64_t now;
	struct uet_rand rng;
	uint64_t delay_ns;          /* one-way base delay */
	uint64_t jitter_ns;         /* reorder: extra delay up to this */
	struct fakewire_pkt *q[2];
	uint32_t nq[2];
	/* Per cookie bookkeeping, cookie = index. */
	uint32_t delivered[FW_COOKIES];
	uint32_t done_ok[FW_COOKIES];
	uint32_t done_err[FW_COOKIES];
	uint32_t order[FW_COOKIES];  /* delivery order (cookies) */
	uint32_t norder;
	uint32_t bad_payload;
	uint32_t tx_pkts[2];
	uint32_t tx_retx[2];        /* UET_PDS_TX_RETX descriptors sent */
	uint32_t dropped[2];
	bool resp_expected;         /* target answers every request */
	bool resp_default;          /* ... with uet_pds_respond_default() */
	bool resp_hold;             /* ... no: the test answers (SES busy) */
	bool resp_unreserved;       /* answer every request with a response,
				     * none reserved at its arrival (an
				     * error before a message's last packet) */
	uint32_t resp_again;        /* uet_pds_respond() returned -EAGAIN */
	uint64_t events[2];
	uint32_t last_pdc[2];       /* handle of the last DELIVER event */
	uint32_t last_psn[2];
	uint8_t last_resp[2][UET_PDS_RESP_MAX]; /* last DONE response */
	uint16_t last_resp_len[2];
	int last_status[2];
	/* Return direction (UEC 1.0 PDS return-direction read responses): side
	 * 1 answers every forward delivery with data on the same PDC. */
	bool ret_data;
	uint32_t ret_pdc[FW_COOKIES];    /* pending submissions, FIFO */
	uint32_t ret_cookie[FW_COOKIES];
	uint32_t ret_head, ret_tail;
	uint32_t ret_enoent;             /* submissions refused: PDC gone */
	uint8_t ret_refused[FW_COOKIES]; /* ... per cookie */
	uint32_t rorder[FW_COOKIES];     /* return delivery order */
	uint32_t rorder_pdc[FW_COOKIES]; /* ... and the PDC it came on */
	uint32_t nrorder;
	/* SES stand-in on side 1: refuse its next refuse_left deliveries
	 * with refuse_code (uet_pds_refuse); answer RUDI requests with a
	 * response of rudi_resp_len bytes (cookie first) when set. */
	uint32_t refuse_left;
	uint8_t refuse_code;
	uint32_t refusals;
	uint16_t rudi_resp_len;
	/* UET_PDS_EV_RESP events (late responses) per cookie; the bytes go
	 * to last_resp like a DONE's. */
	uint32_t late_resp[FW_COOKIES];
	/* UET_PDS_EV_PDC_DOWN events per side, and the last one's status. */
	uint32_t pdc_down[2];
	int pdc_down_status[2];
	/* The secure domain every frame is received in (rx meta sdom). */
	uint8_t sdom;
	/* Targeted loss: drop what side @p from sends when this says so. */
	bool (*drop_fn)(struct fakewire *w, int from,
			const struct uet_pds_tx *t);
};

/* Initialise with two instances created from @p cfg (seeded per side). */
/* Both ends have started (a first call) and the clock moved past the
 * interval they started in (FAKEWIRE_NAME_NS). */
void fakewire_past_start(struct fakewire *w);
int fakewire_init(struct fakewire *w, const struct uet_pds_config *cfg,
	    uint64_t seed);
void fakewire_fini(struct fakewire *w);

/* Deterministic payload of a cookie (length and bytes). */
uint16_t fakewire_payload(uint64_t cookie, uint8_t *buf);

/* Submit cookie @p cookie from side 0 to side 1. */
int fakewire_submit(struct fakewire *w, uint8_t mode, uint64_t cookie,
	      uint8_t flags);
/* Same with an explicit JobID (another PDC key). */
int fakewire_submit_job(struct fakewire *w, uint8_t mode, uint64_t cookie,
		  uint8_t flags, uint32_t job);

/* One step: TX both sides, move the clock by @p dt, deliver due packets,
 * advance timers, drain events. */
void fakewire_step(struct fakewire *w, uint64_t dt);

/* Run steps until @p pred(w) or @p max_ns of fake time elapsed. */
bool fakewire_run(struct fakewire *w, uint64_t dt, uint64_t max_ns,
	    bool (*pred)(struct fakewire *w, void *arg), void *arg);

/* Encode a descriptor and receive it on side @p to, right now, faults off. */
int fakewire_inject(struct fakewire *w, int to, const struct uet_pds_tx *t,
	      bool trimmed, bool ce);

/* Drain everything side @p from would send, without delivering it. */
uint16_t fakewire_take(struct fakewire *w, int from, struct uet_pds_tx *tx,
		 uint16_t n);

/* True when every pool of both instances is back to empty use. */
bool fakewire_pools_idle(struct fakewire *w);



/* Small deterministic configuration for unit tests (no idle close). */
void fakewire_test_config(struct uet_pds_config *cfg);

/*
 * cmocka fixtures shared by the PDS unit tests: one wire, W, built from
 * fakewire_test_config() (then @p tweak, if any) with @p seed.
 */
extern struct fakewire W;
int fakewire_setup_with(uint64_t seed, void (*tweak)(struct uet_pds_config *cfg));
/* fakewire_setup_with(1, NULL), as a cmocka setup. */
int fakewire_setup(void **state);
/* Free W, as a cmocka teardown. */
int fakewire_teardown(void **state);
/* Counters of side @p side of W. */
const struct uet_pds_stats *fakewire_st(int side);
/* Retransmissions counted in @p s, every reason. */
uint64_t fakewire_retx_of(const struct uet_pds_stats *s);
/* Retransmissions side @p side of W counted, every reason. */
uint64_t fakewire_retx_sent(int side);
/*
 * Submit cookies @p first .. @p first + @p n - 1 (RUD, submit @p flags,
 * n <= 64) from side 0, hand them all to side 1 and let it answer; its
 * ACKs are held back in @p acks (at most @p max): a window the target has
 * whole whose ACKs have not reached the sender yet. Returns the ACKs
 * held, 0 if the window did not go out whole.
 */
uint16_t fakewire_window_acks_held(struct fakewire *w, uint32_t first, uint16_t n,
			     uint8_t flags, struct uet_pds_tx *acks,
			     uint16_t max);
/* A cmocka test of W with the given setup and fakewire_teardown. */
#define FW_TEST(f, setup) cmocka_unit_test_setup_teardown(f, setup, fakewire_teardown)

/* Take side @p from's pending descriptors and return the first one of PDS
 * type @p type (copied into @p out); false if none. Others are dropped. */
bool fakewire_take_type(struct fakewire *w, int from, uint8_t type,
		  struct uet_pds_tx *out);
#endif /* PDS_FAKEWIRE_H */
