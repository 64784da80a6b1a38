/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SES_PRIVATE_H
#define SES_PRIVATE_H

/*
 * Internals of the SES protocol core (uet_ses.h). One owner lcore; every
 * pool is an array allocated at uet_ses_create().
 */

#include <stdbool.h>
#include <stdint.h>

#include <uet/uet_ses.h>

#define SES_NIL UINT32_MAX

/*
 * Cookies (opaque to the PDS, PROTOCOL.md 3 "rebuild cookie X as PSN Y"):
 *   kind(2) | slot(22) | generation(8) | fragment(32)
 * A fragment number, not a fragment record: the bytes of fragment i are
 * recomputed from the work request, so no per-fragment state exists.
 */
#define SES_CK_INIT 0u   /* initiator fragment of a message */
#define SES_CK_RET 1u    /* target: return-direction read data */
#define SES_SLOT_MAX (1u << 20)

static inline uint64_t
ses_cookie(uint32_t kind, uint32_t slot, uint8_t gen, uint32_t frag)
{
	return (uint64_t)kind << 62 | (uint64_t)slot << 40 |
	       (uint64_t)gen << 32 | frag;
}

static inline uint32_t
ses_ck_kind(uint64_t c)
{
	return (uint32_t)(c >> 62);
}

static inline uint32_t
ses_ck_slot(uint64_t c)
{
	return (uint32_t)(c >> 40) & 0x3FFFFFu;
}

static inline uint8_t
ses_ck_gen(uint64_t c)
{
	return (uint8_t)(c >> 32);
}

static inline uint32_t
ses_ck_frag(uint64_t c)
{
	return (uint32_t)c;
}

/* Largest data in a RESPONSE_DATA_SMALL stored by the PDS (4.5, 3). */
#define SES_SMALL_DATA_MAX (UET_PDS_RESP_MAX - UET_SES_RESPONSE_DATA_SMALL_LEN)
/* Fetching atomics return their old values in the ACK: at most this. */
#define SES_FETCH_MAX 32u

enum ses_msg_state {
	SES_MSG_FREE = 0,
	SES_MSG_QUEUED,  /* fragments left to hand to the PDS */
	SES_MSG_ACTIVE,  /* all handed over, waiting for DONEs */
};

/* An initiator message: one work request. */
struct ses_msg {
	struct uet_ses_wr wr;
	uint8_t state;
	uint8_t gen;
	uint8_t opcode;      /* enum uet_ses_opcode */
	uint8_t fmt;         /* enum uet_ses_fmt of every packet */
	uint8_t mode;        /* enum uet_pds_mode */
	uint8_t rc;          /* UET return code of the response */
	uint8_t hdr0;        /* SOM header + extension bytes */
	bool hd;             /* header data present */
	bool resp_seen;      /* EOM response in */
	bool large_read;     /* data comes as return-direction requests */
	bool aborted;        /* submit failed: only next_frag fragments */
	uint16_t msg_id;
	int32_t status;      /* first -errno seen */
	uint32_t plen;       /* payload bytes of the message */
	uint32_t chunk0;     /* payload capacity of fragment 0 */
	uint32_t chunk;      /* ... of later fragments */
	uint32_t nfrags;
	uint32_t next_frag;  /* next to hand to the PDS */
	uint32_t frags_done;
	uint64_t ret_bytes;  /* large READ: bytes landed */
	uint64_t mod_len;    /* modified_length of the response */
	uint32_t next;       /* submission FIFO */
};

/* Target record of a multi-packet send (reassembly by message_offset). */
enum ses_tgt_state {
	SES_TGT_FREE = 0,
	SES_TGT_EXPECTED, /* bound to a receive buffer */
	SES_TGT_STORED,   /* held by the matching engine (unexpected) */
	SES_TGT_DROP,     /* refused: data discarded, rc answered */
};

struct ses_tgt {
	uint8_t state;
	uint8_t rc;
	uint8_t list;
	uint8_t opcode;
	uint8_t ri_gen;
	bool hd_valid;
	bool tagged;
	bool responded;
	bool have_eom;
	uint16_t msg_id;
	uint32_t pdc;
	uint32_t eom_psn;
	uint32_t job;
	uint32_t total;
	uint32_t rcvd;
	uint32_t unexp;       /* matching engine handle while STORED */
	uint64_t hd;
	uint64_t tag;
	uint64_t src;
	/* bound receive */
	uint64_t ctx;
	uint8_t *buf;
	uint64_t cap;         /* bytes the receive takes */
	uint32_t cq_flags;    /* MULTI_RECV_DONE carried to the CQE */
	uint32_t hnext;
};

/* Target: a large READ answered in the return direction. */
struct ses_ret {
	bool used;
	uint8_t gen;
	uint16_t msg_id;
	uint32_t pdc;
	uint32_t job;
	const uint8_t *addr;
	uint32_t len;
	uint32_t chunk;
	uint32_t nfrags;
	uint32_t next_frag;
	uint32_t done;
	uint32_t next;       /* submission FIFO */
};

/* Message-id space of one {FA, job, tc, mode} (PROTOCOL.md 3 PDC key). */
struct ses_peer {
	bool used;
	uint8_t tc;
	uint8_t mode;
	uint16_t next_id;
	uint32_t job;
	struct uet_pds_fa fa;
};

struct ses_fifo {
	uint32_t head;
	uint32_t tail;
};

struct uet_ses {
	struct uet_ses_config cfg;
	struct uet_ses_stats st;
	struct ses_msg *msgs;
	uint32_t *msg_free;
	uint32_t n_msg_free;
	struct ses_fifo sq;      /* messages with fragments to submit */
	struct ses_tgt *tgts;
	uint32_t *tgt_free;
	uint32_t n_tgt_free;
	uint32_t *tgt_hash;
	uint32_t tgt_hmask;
	struct ses_ret *rets;
	uint32_t *ret_free;
	uint32_t n_ret_free;
	struct ses_fifo rq;      /* return-direction reads to submit */
	struct ses_peer *peers;
	uint32_t peer_mask;
	struct uet_ses_cqe *cq;
	uint32_t cq_mask;
	uint32_t cq_head;
	uint32_t cq_tail;
};

/* ses.c */
void ses_cq_push(struct uet_ses *s, const struct uet_ses_cqe *c);
int ses_peer_next_id(struct uet_ses *s, const struct uet_pds_fa *fa,
		     uint32_t job, uint8_t tc, uint8_t mode, uint16_t *id);
struct ses_msg *ses_msg_get(struct uet_ses *s, uint64_t cookie);
void ses_msg_put(struct uet_ses *s, struct ses_msg *m);
struct ses_msg *ses_msg_alloc(struct uet_ses *s);

/* ses_init.c */
uint32_t ses_frag_off(const struct ses_msg *m, uint32_t i);
uint32_t ses_frag_len(const struct ses_msg *m, uint32_t i);
void ses_msg_finish(struct uet_ses *s, struct ses_msg *m);
void ses_msg_check_done(struct uet_ses *s, struct ses_msg *m);

/* ses_resp.c */
int ses_respond(struct uet_ses *s, uint32_t pdc, uint32_t psn,
		const struct uet_ses_resp *r, const void *data,
		uint16_t dlen, uint64_t now);
int ses_respond_rc(struct uet_ses *s, const struct uet_pds_event *ev,
		   const struct uet_ses_req *h, enum uet_ses_rc rc,
		   uint8_t list, uint64_t now);
void ses_init_done(struct uet_ses *s, const struct uet_pds_event *ev);
int ses_init_ret_rx(struct uet_ses *s, const struct uet_pds_event *ev,
		    const uint8_t *ses, uint16_t len);

/* ses_tgt.c */
int ses_tgt_deliver(struct uet_ses *s, const struct uet_pds_event *ev,
		    const uint8_t *ses, uint16_t len, uint64_t now);
int ses_build_ret(struct uet_ses *s, uint64_t cookie, uint8_t *buf,
		  size_t cap);
void ses_ret_done(struct uet_ses *s, uint64_t cookie);
uint32_t ses_ret_progress(struct uet_ses *s, uint64_t now);

/* ses_msg.c (target side of the send family) */
int ses_tgt_send(struct uet_ses *s, const struct uet_pds_event *ev,
		 const struct uet_ses_req *h, const uint8_t *pl,
		 uint32_t plen, uint64_t now);

#endif /* SES_PRIVATE_H */
