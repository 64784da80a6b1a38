/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SES_PRIVATE_H
#define SES_PRIVATE_H

/*
 * Internals of the SES protocol core (uet_ses.h). One owner lcore; every
 * pool is an array allocated at uet_ses_create().
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <uet/uet_rand.h>
#include <uet/uet_ses.h>
#include <uet/uet_ses_amo.h>
#include <uet/uet_ses_match.h>

#define SES_NIL UINT32_MAX

/*
 * Cookies (opaque to the PDS, which asks the SES to rebuild a cookie for a
 * retransmission under a new PSN):
 *   kind(2) | slot(22) | generation(8) | fragment(32)
 * A fragment number, not a fragment record: the bytes of fragment i are
 * recomputed from the work request, so no per-fragment state exists.
 */
#define SES_CK_INIT 0u   /* initiator fragment of a message */
#define SES_CK_RET 1u    /* target: return-direction read data */
#define SES_CK_RDV 2u    /* rendezvous send: its read-back answered in an
			  * ACK, until the PDS says it was cleared */
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

/* Largest data in a RESPONSE_DATA_SMALL stored by the PDS (UEC 1.0 SES
 * responses, PDS guaranteed delivery). */
#define SES_SMALL_DATA_MAX (UET_PDS_RESP_MAX - UET_SES_RESPONSE_DATA_SMALL_LEN)
/* Fetching atomics return their old values in the ACK: at most this. */
#define SES_FETCH_MAX UET_AMO_FETCH_MAX

enum ses_msg_state {
	SES_MSG_FREE = 0,
	SES_MSG_QUEUED,  /* fragments left to hand to the PDS */
	SES_MSG_ACTIVE,  /* all handed over, waiting for DONEs */
	SES_MSG_WAIT,    /* control message waiting to go again (ses_ctl.c) */
	SES_MSG_TXWAIT,  /* done, but a frame not yet released by the port
			  * still references its buffer (ses_txref.c) */
};

/* What a message is for (internal ones complete no work request). */
enum ses_msg_kind {
	SES_MK_WR = 0,   /* a work request of the application */
	SES_MK_RDV_READ, /* target: READ of a rendezvous remainder */
	SES_MK_RTR,      /* target: DEFERRABLE_RTR of a deferred send */
	SES_MK_MSG_ERROR, /* target: a rendezvous read-back failed */
};

/* PDCs a large READ's data is counted on (struct ses_read_pdc): the
 * first, the one NACK CLOSING moved requests to, rarely more; the count
 * of a PDC gone and settled makes room for another. */
#define SES_READ_PDCS 4

/* Entries of struct ses_read_frag a free message slot keeps for its next
 * large READ (3 KiB: a READ of 1 MiB in 4 KiB request packets), so that a
 * READ's counts cost no allocation once its slot has served one as
 * large; a larger array goes with the READ. */
#define SES_RFRAG_KEEP 256u

/*
 * The data of one request packet of a large READ (ses_read_land): the
 * bytes of it landed from the service of one PDC. Its target answers
 * a request packet's range once per PDC it came on (its return-direction
 * record there sends each byte once, the PDS delivering it once), but a
 * request served on two PDCs (its data sent again on another) brings its
 * bytes twice: the packet counts once, when one service completes it.
 */
struct ses_read_frag {
	uint32_t pdc;   /* PDC of the service counted */
	uint32_t got;   /* its bytes landed (= the packet's length: done) */
	int32_t failed; /* status of its failed DONE (0: none, or OK): the
			 * data it lacks then never comes (ses_read_judge) */
};

/*
 * A large READ's data on one PDC that carried its requests: a request's
 * data comes back on its PDC (UEC 1.0 PDS read responses, return
 * direction), so once that PDC is gone (PDC_DOWN) and every DONE naming
 * it is in, @p got is all of it that ever comes, and its requests are
 * answered unless @p got < @p asked (ses_msg_on_down_pdc).
 */
struct ses_read_pdc {
	uint32_t pdc;   /* handle its DONEs and data name */
	uint64_t asked; /* bytes asked by the requests whose DONE named it */
	uint64_t got;   /* bytes of data come on it */
};

/* An initiator message: one work request. */
struct ses_msg {
	struct uet_ses_wr wr;
	uint8_t state;
	uint8_t gen;
	uint8_t opcode;      /* enum uet_wire_ses_opcode */
	uint8_t fmt;         /* enum uet_wire_ses_fmt of every packet */
	uint8_t mode;        /* enum uet_wire_pds_mode */
	uint8_t rc;          /* UET return code of the response */
	uint8_t hdr0;        /* SOM header + extension bytes */
	bool hd;             /* header data present */
	bool resp_seen;      /* EOM response in */
	bool large_read;     /* data comes as return-direction requests */
	bool rhashed;        /* large READ: on the read hash (rnext) */
	bool aborted;        /* submit failed: only next_frag fragments */
	uint16_t msg_id;
	int32_t status;      /* first -errno seen */
	uint32_t plen;       /* payload bytes of the message */
	uint32_t chunk0;     /* payload capacity of fragment 0 */
	uint32_t chunk;      /* ... of later fragments */
	uint32_t nfrags;
	uint32_t next_frag;  /* next to hand to the PDS */
	uint32_t frags_done;
	uint64_t ret_bytes;  /* large READ: bytes landed, each once (the
			      * lengths of the request packets whose data
			      * is all in, ses_read_land) */
	struct ses_read_frag *rfrag; /* large READ: per request packet
				      * (nfrags), its data landed; kept by
				      * the slot when freed, up to
				      * SES_RFRAG_KEEP entries */
	uint32_t rfrag_cap;  /* entries rfrag holds */
	uint64_t ret_refused; /* large READ: bytes asked by request packets
			       * its target refused (no data comes for them) */
	uint64_t mod_len;    /* modified_length of the response */
	uint32_t next;       /* its peer's submission FIFO (ses_peer.sq) */
	uint32_t rnext;      /* read hash chain */
	uint8_t kind;        /* enum ses_msg_kind */
	uint8_t list;        /* list of the response (EXPECTED/OVERFLOW) */
	uint8_t rdv_gen;     /* rendezvous: generation of our MR entry */
	bool rdv;            /* rendezvous send: waits for the read-back */
	bool rdv_served;     /* ... which has been served */
	uint32_t rdv_ret;    /* ... bytes of it served in the return direction */
	uint16_t rdv_rets;   /* ... return-direction records reading wr.buf */
	uint16_t rdv_resps;  /* ... answers in ACKs not yet cleared */
	uint32_t rdv_pdc;    /* ... PDC its read-back came on (the peer's) */
	bool withdrawn;      /* its process went away (uet_ses_withdraw()) */
	bool detached;       /* ... and its memory is gone: nothing of it is
			      * built, sent or written any more */
	uint32_t rchunk;     /* READ: data asked per request packet (0: one
			      * packet asks for the whole message) */
	bool ret_err;        /* large READ: return data carried an error */
	int32_t ret_lost;    /* large READ: request packets whose data never
			      * comes (ses_read_judge): the READ ends with
			      * this status once the rest is in ... */
	uint64_t ret_lost_len; /* ... their bytes */
	uint32_t ret_failed; /* large READ: request packets whose DONE failed
			      * (struct ses_read_frag.failed) */
	uint32_t req_pdc[2]; /* PDCs that carried its fragments (DONE events):
			      * the first and the latest; a large READ's
			      * data comes back on them (UET_PDS_PDC_NONE) */
	uint8_t req_locked;  /* large READ: bit k, req_pdc[k] is locked open
			      * (uet_pds_pdc_lock) until it is freed */
	uint8_t nrpdc;       /* large READ: entries of rpdc in use */
	bool rpdc_lost;      /* large READ: a PDC found rpdc full */
	struct ses_read_pdc rpdc[SES_READ_PDCS];
	bool deferred;       /* deferrable send parked until DEFERRABLE_RTR */
	bool rtr_pending;    /* RTR in before the defer answer */
	uint32_t rx;         /* RDV_READ / RTR: target record index + 1 */
	uint32_t tok_i;      /* deferrable / RTR: initiator token */
	uint32_t tok_t;      /* deferrable / RTR: target token (0: none) */
	uint64_t rdv_key;    /* rendezvous: our key exposing wr.buf (0: none) */
	/* RTR: fields repeated from the deferred send (WIRE-DECISIONS.md) */
	uint16_t rtr_msg_id;
	uint32_t rtr_total;
	uint32_t rtr_src;
	/* RTR / MSG_ERROR: attempts lost with their PDC, and when the next
	 * one goes (SES_MSG_WAIT) */
	uint8_t ctl_tries;
	uint8_t restart_rounds; /* RTR accepted, restart awaited: asked again */
	uint8_t pid_tries;   /* sent again after BAD_PID (ses_pid_wait) */
	uint64_t retry_at;
	uint64_t pid_wait_end; /* BAD_PID: sent again until then */
};

/* Target record of a multi-packet send (reassembly by message_offset). */
enum ses_target_state {
	SES_TGT_FREE = 0,
	SES_TGT_EXPECTED, /* bound to a receive buffer */
	SES_TGT_STORED,   /* held by the matching engine (unexpected) */
	SES_TGT_DROP,     /* refused: data discarded, rc answered */
	SES_TGT_RDV,      /* rendezvous: unexpected, or reading the rest */
	SES_TGT_DEFER,    /* deferrable: unexpected, data discarded */
	SES_TGT_RTR,      /* deferrable: receive bound, RTR sent */
};

struct ses_target {
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
	struct uet_ses_match *match; /* receive context it was matched in */
	uint16_t pid;         /* PIDonFEP the message was sent to */
	uint64_t hd;
	uint64_t tag;
	uint64_t src;
	/* bound receive */
	uint64_t ctx;
	uint8_t *buf;
	uint64_t cap;         /* bytes the receive takes */
	uint32_t cq_flags;    /* MULTI_RECV_DONE carried to the CQE */
	uint64_t moff;        /* where buf is in a multi-recv buffer */
	uint32_t hnext;
	uint8_t gen;          /* bumped at every reuse (target tokens) */
	uint8_t tc;
	bool hashed;          /* on the {PDC, message_id} hash */
	bool no_cqe;          /* discarded (FI_DISCARD): no receive completion */
	uint32_t tok_i;       /* deferrable: initiator token */
	struct uet_pds_fa fa; /* initiator (rendezvous read-back, RTR) */
	struct uet_wire_ses_rdv_ext rdv;
	uint8_t wait;         /* enum ses_target_wait: on the wait FIFO */
	uint32_t wnext;       /* wait FIFO link */
};

/* Rendezvous work a target record waits to submit (no message free). */
enum ses_target_wait {
	SES_TW_NONE = 0,
	SES_TW_READ,  /* the read-back of the rest */
	SES_TW_ERR,   /* MSG_ERROR telling the initiator it failed */
};

/* Target: the range one READ request packet asked for (a large READ
 * answers each packet, UEC 1.0 SES standard request header message_offset),
 * answered in the return direction; contiguous packets of one READ share a
 * record. */
struct ses_ret {
	bool used;
	bool ar_last;        /* AR on the last packet: no more of this READ
			      * queued behind it (UET_PDS_SUBMIT_AR) */
	uint8_t gen;
	uint16_t msg_id;
	uint32_t pdc;
	uint32_t job;
	const uint8_t *addr; /* region address of message offset @c off */
	pid_t owner;         /* process @c addr lives in (0: this one) */
	uint32_t off;        /* message offset of the first byte */
	uint32_t total;      /* request_length of the READ */
	uint32_t len;
	uint32_t chunk;
	uint32_t nfrags;
	uint32_t next_frag;
	uint32_t done;
	uint32_t next;       /* submission FIFO */
	uint32_t rdv_msg;    /* rendezvous read-back: our send's slot + 1 */
	uint8_t rdv_msg_gen;
	bool aborted;        /* PDC gone: not every fragment was sent */
	int status;          /* ... why: the first failed DONE's status */
	bool detached;       /* its source memory is gone: nothing is built */
	bool locked;         /* @c pdc held open until it is all sent
			      * (uet_pds_pdc_lock) */
};

/* Message-id space of one {FA, job}: every PDC to that peer for that job
 * (ses.c). */
struct ses_fifo {
	uint32_t head;
	uint32_t tail;
};

/*
 * A peer {FA, job}: its message-id space, and its messages with packets
 * still to hand to the PDS, in submission order (sq). uet_ses_progress()
 * serves the peers with such messages in turn (uet_ses.ready), so one
 * whose PDC has no room holds back its own messages only.
 */
struct ses_peer {
	bool used;
	bool id_drawn;       /* next_id drawn (at the first id asked) */
	bool ready;          /* messages in sq: on uet_ses.ready, or being
			      * served */
	uint16_t next_id;
	uint32_t job;
	uint32_t rnext;      /* uet_ses.ready link */
	struct ses_fifo sq;  /* messages with packets to submit */
	struct uet_pds_fa fa;
};

struct uet_ses {
	struct uet_ses_config cfg;
	struct uet_ses_stats st;
	struct ses_msg *msgs;
	uint32_t *msg_free;
	uint32_t n_msg_free;
	struct ses_fifo ready;   /* peers with messages to submit
				  * (ses_peer.sq), in turn */
	struct ses_target *tgts;
	uint32_t *tgt_free;
	uint32_t n_tgt_free;
	uint32_t *tgt_hash;
	uint32_t tgt_hmask;
	uint32_t *read_hash;     /* large READs in flight, {PDC, msg id} */
	uint32_t read_hmask;
	struct ses_ret *rets;
	uint32_t *ret_free;
	uint32_t n_ret_free;
	struct ses_fifo rq;      /* return-direction reads to submit */
	struct ses_fifo tw;      /* target records waiting for a message */
	struct ses_fifo txw;     /* SES_MSG_TXWAIT messages (ses_txref.c) */
	struct ses_peer *peers;  /* peer_mask + 1 hashed by {FA, job}, then
				  * one for the messages of peers that found
				  * the table full (ses_sq_peer) */
	uint32_t peer_mask;
	uint32_t peer_last;      /* the peer of the latest ses_sq_peer() */
	struct uet_ses_cqe *cq;
	uint32_t cq_mask;
	uint32_t cq_head;
	uint32_t cq_tail;
	uint32_t *rdv_owner;     /* MR slot of a rendezvous key -> msg + 1 */
	uint64_t now;            /* latest time given by the caller */
	uint64_t retry_due;      /* no SES_MSG_WAIT message due before */
	struct uet_rand rng;     /* first generations, message ids */
	/* An event that may let a peer's waiting message go (a DONE
	 * freed window, a PDC went) came since the last progress: it is
	 * due at once (uet_ses_next_deadline) */
	bool sq_kick;
	uint8_t *rx_flat;        /* UINT16_MAX bytes: ses_pl_flat() */
	bool ulp;                /* uet_pds_set_ulp() took ours */
};

/* The payload of a received request: n bytes at p, then tail_n bytes at
 * tail (the second segment of a chained frame, uet_ses_event_tail()),
 * placed from where they are. */
struct ses_pl {
	const uint8_t *p;
	const uint8_t *tail;
	uint32_t n;
	uint32_t tail_n;
};

static inline uint32_t
ses_pl_len(const struct ses_pl *pl)
{
	return pl->n + pl->tail_n;
}

/* ses.c */
void ses_cq_push(struct uet_ses *s, const struct uet_ses_cqe *c);
int ses_pds_submit(struct uet_ses *s, const struct uet_pds_submit *ps,
		   uint64_t now);
uint32_t ses_sq_peer(struct uet_ses *s, const struct uet_pds_fa *fa,
		     uint32_t job);
bool ses_sq_cut_due(const struct uet_ses *s);
int ses_peer_next_id(struct uet_ses *s, const struct uet_pds_fa *fa,
		     uint32_t job, uint16_t *id);
struct ses_msg *ses_msg_get(struct uet_ses *s, uint64_t cookie);
void ses_msg_put(struct uet_ses *s, struct ses_msg *m);
struct ses_msg *ses_msg_alloc(struct uet_ses *s);

/* Receive completion of the send family. */
struct ses_rx_info {
	uint64_t ctx;
	uint64_t len;     /* bytes placed */
	uint64_t total;   /* message length */
	uint64_t tag;
	uint64_t src;
	uint64_t hd;
	bool tagged;
	bool hd_valid;
	uint32_t flags;   /* extra UET_SES_CQ_* */
	int32_t status;
	uint32_t rc;
	uint64_t moff;    /* offset of the message in its receive buffer */
	const struct ses_target *rec; /* its record, NULL: none */
};

/* ses_initiator.c */
/* Opcode classes (UEC 1.0 SES opcodes): inline, several per message. */
static inline bool
ses_op_is_atomic(unsigned int opcode)
{
	return opcode == UET_SES_OP_ATOMIC ||
	       opcode == UET_SES_OP_FETCHING_ATOMIC ||
	       opcode == UET_SES_OP_TSEND_ATOMIC ||
	       opcode == UET_SES_OP_TSEND_FETCH_ATOMIC;
}

/* Opcodes whose match_bits are a tag (UEC 1.0 SES standard request
 * header, SES opcodes). */
static inline bool
ses_op_is_tagged(unsigned int opcode)
{
	return opcode == UET_SES_OP_TAGGED_SEND ||
	       opcode == UET_SES_OP_RENDEZVOUS_TSEND ||
	       opcode == UET_SES_OP_DEFERRABLE_TSEND ||
	       opcode == UET_SES_OP_TSEND_ATOMIC ||
	       opcode == UET_SES_OP_TSEND_FETCH_ATOMIC;
}

static inline bool
ses_op_is_defer(unsigned int opcode)
{
	return opcode == UET_SES_OP_DEFERRABLE_SEND ||
	       opcode == UET_SES_OP_DEFERRABLE_TSEND;
}

static inline bool
ses_op_is_rdv(unsigned int opcode)
{
	return opcode == UET_SES_OP_RENDEZVOUS_SEND ||
	       opcode == UET_SES_OP_RENDEZVOUS_TSEND;
}
/*
 * Whether the queued message @p m hands over no more packets: withdrawn
 * before its first, detached, or failed already (its PDC gave up: the
 * rest is not sent, uet_ses_progress). It then ends at the next progress,
 * without the PDS: the SES has work due at once (uet_ses_next_deadline).
 */
static inline bool
ses_msg_cut(const struct ses_msg *m)
{
	return (m->withdrawn && m->next_frag == 0) || m->detached ||
	       m->status != 0;
}
void ses_sq_push(struct uet_ses *s, struct ses_msg *m);
int ses_msg_submit_internal(struct uet_ses *s, const struct uet_ses_wr *wr,
			    uint8_t kind, uint32_t rx, struct ses_msg **out);
uint32_t ses_frag_off(const struct ses_msg *m, uint32_t i);
uint32_t ses_frag_len(const struct ses_msg *m, uint32_t i);
uint32_t ses_read_frag_len(const struct ses_msg *m, uint32_t i);
bool ses_read_waits(const struct ses_msg *m);
void ses_read_settle(struct ses_msg *m);
void ses_msg_finish(struct uet_ses *s, struct ses_msg *m);
uint64_t ses_msg_of(void *arg, uint64_t cookie, bool *last, bool *open);
bool ses_target_continues(void *arg, uint32_t pdc, uint8_t next_hdr,
			  const uint8_t *ses, uint16_t len);
void ses_msg_check_done(struct uet_ses *s, struct ses_msg *m);
/* ses_txref.c: zero-copy transmit. Park @p m (true) while a frame still
 * references its buffer; finish the parked ones that are released. */
bool ses_txref_park(struct uet_ses *s, struct ses_msg *m);
uint32_t ses_txref_progress(struct uet_ses *s);

/* ses_resp.c */
int ses_respond(struct uet_ses *s, uint8_t mode, uint32_t pdc, uint32_t psn,
		const struct uet_wire_ses_resp *r, const void *data,
		uint16_t dlen, uint64_t now);
int ses_respond_rc(struct uet_ses *s, const struct uet_pds_event *ev,
		   const struct uet_wire_ses_req *h, enum uet_wire_ses_rc rc,
		   uint8_t list, uint64_t now);
bool ses_refuse(struct uet_ses *s, const struct uet_pds_event *ev,
		uint8_t code, uint64_t *ctr);
void ses_initiator_done(struct uet_ses *s, const struct uet_pds_event *ev);
int ses_initiator_ret_rx(struct uet_ses *s, const struct uet_pds_event *ev,
		    const uint8_t *ses, uint16_t len);
void ses_read_hash_add(struct uet_ses *s, struct ses_msg *m);
void ses_read_unhash(struct uet_ses *s, struct ses_msg *m);
void ses_msg_unlock_pdcs(struct uet_ses *s, struct ses_msg *m);
struct ses_msg *ses_read_find(struct uet_ses *s, const struct uet_pds_fa *fa,
			      uint32_t job, uint16_t msg_id);

/* ses_target.c */
/* The fields of a resolution request every arriving request carries (its
 * {REL, JobID, PIDonFEP, RI} address, opcode, mode); RMA adds key, offset
 * and length. */
struct uet_ses_resolve_req;
void ses_resolve_req_fill(struct uet_ses_resolve_req *q,
			  const struct uet_pds_event *ev,
			  const struct uet_wire_ses_req *h);
int ses_target_deliver(struct uet_ses *s, const struct uet_pds_event *ev,
		    const uint8_t *ses, uint16_t len, const uint8_t *tail,
		    uint32_t tail_len, uint64_t now);
int ses_build_ret(struct uet_ses *s, uint64_t cookie, uint8_t *buf,
		  size_t cap);
void ses_ret_done(struct uet_ses *s, uint64_t cookie, int status);
uint32_t ses_ret_progress(struct uet_ses *s, uint64_t now);
void ses_ret_detach(struct uet_ses *s, const struct ses_msg *m);

/* ses_msg.c (target side of the send family) */
int ses_target_send(struct uet_ses *s, const struct uet_pds_event *ev,
		 const struct uet_wire_ses_req *h, const struct ses_pl *pl,
		 uint64_t now);
const uint8_t *ses_pl_flat(struct uet_ses *s, const struct ses_pl *pl);
struct ses_target *ses_target_alloc(struct uet_ses *s, uint32_t pdc, uint16_t id,
			      bool hashed);
void ses_target_hash_add(struct uet_ses *s, struct ses_target *t);
void ses_target_put(struct uet_ses *s, struct ses_target *t);
void ses_target_unhash(struct uet_ses *s, struct ses_target *t);
void ses_recv_cqe(struct uet_ses *s, const struct ses_rx_info *i);
void ses_target_from_req(struct ses_target *t, const struct uet_pds_event *ev,
			 const struct uet_wire_ses_req *h);
void ses_rx_info_tgt(struct ses_rx_info *i, const struct ses_target *t);
void ses_msg_from_req(const struct uet_wire_ses_req *h,
		      struct uet_ses_match_msg *msg);
void ses_target_respond_rec(struct uet_ses *s, struct ses_target *t, uint64_t now);
void ses_target_pdc_closed(struct uet_ses *s, const struct uet_pds_event *ev);
int ses_no_record(struct uet_ses *s, const struct uet_pds_event *ev,
		  const struct uet_wire_ses_req *h, enum uet_wire_ses_rc rc,
		  uint8_t list, uint64_t now);

/* ses_rdv.c (rendezvous, UEC 1.0 SES extension headers, SES send variants) */
/* RI handle of the rendezvous table of @p job and @p pid (-1: none) */
int ses_rdv_ri(const struct uet_ses *s, uint32_t job, uint16_t pid);
int ses_rdv_setup(struct uet_ses *s, struct ses_msg *m);
void ses_rdv_release(struct uet_ses *s, struct ses_msg *m);
void ses_rdv_ext_fill(const struct uet_ses *s, const struct ses_msg *m,
		      struct uet_wire_ses_req *h);
struct ses_msg *ses_rdv_owner(struct uet_ses *s, uint64_t key);
void ses_rdv_served(struct uet_ses *s, struct ses_msg *m, int status);
int ses_target_rdv(struct uet_ses *s, const struct uet_pds_event *ev,
		const struct uet_wire_ses_req *h, const uint8_t *pl, uint32_t plen,
		uint64_t now);
void ses_rdv_start(struct uet_ses *s, struct ses_target *t, uint8_t *dst,
		   uint64_t cap);
void ses_rdv_read_done(struct uet_ses *s, struct ses_msg *m, int status);
void ses_rdv_abandon(struct uet_ses *s, struct ses_target *t);
void ses_rdv_ret_done(struct uet_ses *s, const struct ses_ret *t);
void ses_rdv_answered(struct uet_ses *s, struct ses_msg *m,
		      const struct uet_pds_event *ev, int ret);
void ses_rdv_cleared(struct uet_ses *s, const struct uet_pds_event *ev);
uint32_t ses_rdv_wait_progress(struct uet_ses *s);
void ses_rdv_error_fill(const struct ses_msg *m, struct uet_wire_ses_req *h);
int ses_rdv_error_rx(struct uet_ses *s, const struct uet_pds_event *ev,
		     const struct uet_wire_ses_req *h, uint64_t now);
void ses_pdc_down(struct uet_ses *s, const struct uet_pds_event *ev);

/* ses_defer.c (deferrable sends, UEC 1.0 SES standard request header, SES send
 * variants) */
bool ses_defer_parked(struct uet_ses *s, struct ses_msg *m);
void ses_defer_pdc_down(struct uet_ses *s, struct ses_msg *m, int status);
int ses_defer_rtr_rx(struct uet_ses *s, const struct uet_pds_event *ev,
		     const struct uet_wire_ses_req *h, uint64_t now);
void ses_defer_rtr_fill(const struct ses_msg *m, struct uet_wire_ses_req *h);
struct ses_target *ses_defer_restart(struct uet_ses *s,
				  const struct uet_pds_event *ev,
				  const struct uet_wire_ses_req *h);
void ses_defer_post(struct uet_ses *s, struct ses_target *t);
void ses_defer_rtr_done(struct uet_ses *s, struct ses_msg *m, int status);
void ses_defer_answer(struct uet_ses *s, struct ses_target *t, uint64_t now);
bool ses_defer_rtr_wanted(struct uet_ses *s, const struct ses_msg *m);

/* ses_ctl.c (RTR and MSG_ERROR sent again after their PDC failed) */
bool ses_ctl_lost(uint8_t rc, int status);
bool ses_ctl_retry(struct uet_ses *s, struct ses_msg *m);
bool ses_ctl_recheck(struct uet_ses *s, struct ses_msg *m);
bool ses_pid_wait(struct uet_ses *s, struct ses_msg *m);
void ses_ctl_progress(struct uet_ses *s, uint64_t now);

/* ses_tamo.c (tagged atomics, UEC 1.0 SES extension headers, SES opcodes and
 * atomic datatypes) */
int ses_target_tamo(struct uet_ses *s, const struct uet_pds_event *ev,
		 const struct uet_wire_ses_req *h, const uint8_t *pl, uint32_t plen,
		 uint64_t now);
enum uet_wire_ses_rc ses_target_amo_args(const struct uet_wire_ses_req *h,
				 const uint8_t *pl, uint32_t plen,
				 const void **operand, const void **compare);
int ses_target_data_resp(struct uet_ses *s, const struct uet_pds_event *ev,
		      const struct uet_wire_ses_req *h, uint8_t list,
		      const void *data, uint16_t n, uint64_t now);

/* ses_mem.c: target memory of a memory entry (uet_ses_mr_entry.owner) */
struct ses_amo_args {
	enum uet_wire_amo_op op;
	enum uet_wire_amo_dt dt;
	void *target;         /* in the owner's address space */
	const void *operand;
	const void *compare;
	void *fetch;          /* old values, or NULL */
	size_t len;
	unsigned int flags;   /* semantic_control */
};
enum uet_wire_ses_rc ses_mem_rc(struct uet_ses *s, int err);
int ses_mem_read_slow(struct uet_ses *s, pid_t owner, void *dst,
		      const void *src, size_t n);
int ses_mem_write_slow(struct uet_ses *s, pid_t owner, void *dst,
		       const void *src, size_t n);
enum uet_wire_ses_rc ses_mem_amo(struct uet_ses *s, pid_t owner,
			    const struct ses_amo_args *a);

/* Read @p n bytes of an entry of @p owner at @p src: 0 or -errno. */
static inline int
ses_mem_read(struct uet_ses *s, pid_t owner, void *dst, const void *src,
	     size_t n)
{
	if (__builtin_expect(owner == 0, 1)) {
		memcpy(dst, src, n);
		return 0;
	}
	return ses_mem_read_slow(s, owner, dst, src, n);
}

/* Write @p n bytes to an entry of @p owner at @p dst: 0 or -errno. */
static inline int
ses_mem_write(struct uet_ses *s, pid_t owner, void *dst, const void *src,
	      size_t n)
{
	if (__builtin_expect(owner == 0, 1)) {
		memcpy(dst, src, n);
		return 0;
	}
	return ses_mem_write_slow(s, owner, dst, src, n);
}

/* READ data one request packet asks for and one return-direction packet
 * carries (RESPONSE_DATA, 14-bit payload_length). */
static inline uint32_t
ses_read_chunk(const struct uet_ses *s)
{
	uint32_t c = s->cfg.mtu - UET_SES_RESPONSE_DATA_LEN;

	return c > UET_SES_LEN14_MAX ? UET_SES_LEN14_MAX : c;
}

/* Target token of a record: generation(8) | index + 1 (24 bits, != 0). */
static inline uint32_t
ses_target_token(const struct uet_ses *s, const struct ses_target *t)
{
	return (uint32_t)t->gen << 24 | (uint32_t)(t - s->tgts + 1);
}

/* Receive context of requests to @p pid (cfg.match_of, else cfg.match). */
static inline struct uet_ses_match *
ses_match(const struct uet_ses *s, uint16_t pid)
{
	return s->cfg.match_of != NULL ?
	       s->cfg.match_of(s->cfg.match_arg, pid) : s->cfg.match;
}

/* Profile of process @p pid (cfg.profile_of, else cfg.profile). */
static inline enum uet_wire_profile
ses_profile(const struct uet_ses *s, uint16_t pid)
{
	return s->cfg.profile_of != NULL ?
	       s->cfg.profile_of(s->cfg.profile_arg, pid) : s->cfg.profile;
}

/* Our owner bits in the slot field of an initiator restart token. */
static inline uint32_t
ses_token_owner(const struct uet_ses *s)
{
	return s->cfg.token_owner_bits == 0 ? 0 :
	       s->cfg.token_owner_id << (UET_WIRE_SES_TOKEN_SLOT_BITS -
					 s->cfg.token_owner_bits);
}

/* Sending PIDonFEP / initiator id of a work request. */
static inline uint16_t
ses_wr_pid(const struct uet_ses *s, const struct uet_ses_wr *wr)
{
	return (wr->flags & UET_SES_WR_F_SRC) ? wr->src_pid :
						s->cfg.pid_on_fep;
}

/* Where a matched receive's data goes: an empty receive may name no
 * buffer at all (NULL), which takes no offset. */
static inline uint8_t *
ses_match_dst(const struct uet_ses_match_result *r)
{
	return r->buf == NULL ? NULL : (uint8_t *)r->buf + r->offset;
}

#endif /* SES_PRIVATE_H */
