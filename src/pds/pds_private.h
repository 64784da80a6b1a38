/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_PDS_PRIVATE_H
#define UET_PDS_PRIVATE_H

/*
 * Internal state of the PDS library. Everything is a fixed-capacity array
 * allocated at uet_pds_create(); objects refer to each other by 32-bit
 * indices (PDS_NIL = none), never by pointers, so pools are free lists of
 * indices and idle PDC state stays small.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <uet/uet_cms_nscc.h>
#include <uet/uet_pds.h>
#include <uet/uet_psn.h>
#include <uet/uet_rand.h>
#include <uet/uet_wire.h>

#define PDS_NIL UINT32_MAX
/* 64-bit words of a bitmap of @n timer wheel slots */
#define PDS_WHEEL_WORDS(n) (((n) + 63) / 64)

enum pds_role {
	PDS_ROLE_INIT = 0,
	PDS_ROLE_TGT = 1,
};

enum pds_pdc_state {
	PDC_FREE = 0,
	PDC_SYN,        /* initiator: no ACK yet, requests carry SYN */
	PDC_OPEN,
	PDC_CLOSING,    /* initiator: CLOSE CP sent; target: close asked */
	PDC_CLOSED,     /* target: CLOSE received, free after its ACK */
};

/* PDC flags. */
#define PDC_F_LISTED    0x01u /* on the active (transmit) list */
#define PDC_F_RSV       0x02u /* id from the reserved pool */
#define PDC_F_CLEAR     0x04u /* init: target asked for CLEAR (REQ=CLEAR) */
#define PDC_F_CLOSE_REQ 0x08u /* init: target asked to close; tgt: asking */
#define PDC_F_TLP       0x10u /* init: tail-loss probe sent for this tail */
#define PDC_F_BACKOFF   0x20u /* init: resource back-off in progress */
#define PDC_F_WPROBE    0x40u /* init: CLEAR with AR sent for the peer's
			       * window, no CACK move since */
#define PDC_F_KEYED     0x80u /* init: in the {job, FA, TC, mode} table */
#define PDC_F_ALISTED   0x100u /* on the ACK list (both roles) */
#define PDC_F_PROBE     0x200u /* init: PROBE CP sent, reply awaited */
#define PDC_F_CLEARQ    0x400u /* tgt: CLEAR_REQ sent, no CLEAR since */
#define PDC_F_CREQ      0x800u /* sender: CREDIT_REQ sent, no credit since */
#define PDC_F_CREQ_LOST 0x4000u /* sender: a timer fired without credit:
				 * the next CREDIT_REQ goes even if the
				 * requests sent carried its target */
#define PDC_F_CCPROBE   0x2000u /* init: the outstanding PROBE samples the
				 * base RTT for the CC (no loss repair) */
#define PDC_F_FRTO      0x1000u /* sender: RTO resent the head only, the
				 * next ACK decides (pds_initiator_rto) */
#define PDC_F_BLKWAIT   0x8000u /* init: closing, in line for a transmit
				 * block (uet_pds.blk_wait) */

/* Target pending-ACK flags (echoed in the next ACK, UEC 1.0 PDS ACK
 * generation). */
#define ACKF_NEED  0x01u /* an ACK must go out */
#define ACKF_M     0x02u /* a CE-marked request since the last ACK */
#define ACKF_RETX  0x04u /* a retransmitted request since the last ACK */
#define ACKF_PROBE 0x08u /* the next ACK answers a PROBE (P flag) */
#define ACKF_CLOSE_REQ 0x10u /* send a CLOSE_REQ CP */
#define ACKF_CLEAR_REQ 0x20u /* send a CLEAR_REQ CP */
#define ACKF_CREDIT 0x40u /* credit to grant in the next ACK_CC */
#define ACKF_CREDIT_CP 0x80u /* the source's last credit request was a
			      * CREDIT_REQ CP: grant in CREDIT CPs */

/*
 * A PDC is bidirectional (UEC 1.0 PDS return-direction read responses): each
 * end has a transmit PSN space (struct pds_initiator: forward requests at the
 * initiator, return-direction requests at the target) and a receive PSN space
 * (struct pds_target). DECISION: the return direction starts at the forward
 * Start_PSN, which both ends know, so it needs no SYN of its own.
 */
struct pds_initiator {
	uint32_t una;        /* first PSN not complete */
	uint32_t nxt;        /* next PSN to assign */
	uint32_t snd;        /* first PSN never sent */
	uint32_t inflight;   /* bytes sent and not acknowledged */
	uint32_t resp_psn;   /* last PSN whose response carried REQ=CLEAR */
	uint32_t clear_sent; /* highest CLEAR_PSN sent (request or CLEAR) */
	uint16_t nretx;      /* retransmissions sent (telemetry; saturates) */
	uint16_t rto_snd;    /* low 16 bits of snd at the first RTO expiry
			      * without progress: the PSNs below it are the
			      * current RTO episode's; una's when none runs
			      * (pds_rto_end, pds_ack_settle) */
	uint16_t n_retx;     /* slots marked for retransmission */
	uint8_t retries;     /* RTO rounds without progress */
	uint8_t backoffs;    /* SYN refusals in a row (NEW_START_PSN); the
			      * most refusals of one packet (its own count,
			      * pds_slot.refusals) since una last moved */
	uint64_t rto_base;   /* last send or progress, ns */
	uint64_t progress_ns; /* una last advanced (or the PDC left idle);
			       * idle: the peer last ACKed (a keepalive) */
	uint64_t backoff_until;
	uint64_t probe_ns;   /* when the outstanding PROBE left */
	union {
		uint32_t probe_psn; /* open: snd when the PROBE left */
		uint32_t syn_named; /* SYN state (no PROBE then): the
				     * Start_PSN the last NACK NEW_START_PSN
				     * named, start_psn: none yet */
	};
	uint16_t probe_id;   /* probe_opaque of the outstanding PROBE */
	uint16_t rod_wnd;    /* ROD: packets in flight at most (pds_rod_*) */
	uint32_t srtt_ns;    /* smoothed RTT, 0: no sample yet */
	uint16_t rod_acked;  /* ROD: packets acknowledged since rod_wnd grew */
	uint8_t mpr;         /* log2 of the peer's MP_Range (ACK_CC), 0:
			      * not told yet (pds_initiator_range) */
	uint8_t locks;       /* uet_pds_pdc_lock(): no idle close above 0 */
	uint64_t rack_ns;    /* latest send time of an acknowledged packet */
	uint32_t peer_cack;  /* highest CACK_PSN the peer reported: its
			      * MP_Range starts after it (pds_initiator_room) */
	uint32_t creq_sent;  /* RCCC: credit_target (256 B units) of the
			      * last request or CREDIT_REQ sent */
};

struct pds_target {
	uint32_t cack;       /* cumulative ACK PSN */
	uint32_t hi;         /* highest PSN received */
	uint32_t ack_psn;    /* PSN that triggers the next ACK */
	uint32_t ack_credit; /* coalescing counter, bytes */
	uint32_t rcvd_bytes; /* NSCC: nominal bytes of new requests, modulo
			      * 2^32 (ACK_CC rcvd_bytes, 2^24 x 256 B) */
	uint32_t rod_nacked; /* ROD: expected PSN already NACKed */
	uint16_t nbits;      /* set bits in the receive block */
	uint8_t ackf;        /* ACKF_* */
	uint8_t rod_ooo_retx; /* ROD: retransmissions past the hole since
			       * the last NACK */
	uint8_t close_reqs;  /* target: CLOSE_REQs sent, none answered */
	uint8_t clear_reqs;  /* target: quiet CLEAR_REQs sent, none answered */
	uint16_t ev;         /* EV to echo in ACKs and the target's CPs */
	uint64_t ack_ns;     /* first coalesced arrival (delayed ACK) */
	uint32_t probe_base; /* SACK base the PROBE asked for (or dup_want) */
	uint32_t credit;     /* RCCC: credit granted so far, bytes mod 2^32 */
	uint16_t probe_opaque; /* echoed in the PROBE reply */
	bool rx_unknown : 1; /* ACK_PSN names a packet whose arrival rx_ns
			      * is not (an ACK_REQ's PSN): service_time
			      * saturates, which says "no RTT sample" */
	bool dup_want : 1;   /* no PROBE pending: the next ACK's SACK starts
			      * at probe_base, the lowest duplicate above
			      * the CACK since the last ACK
			      * (pds_target_sack_base) */
	uint8_t sdom;        /* syn_expected: the secure domain of the
			      * SYN that opened the PDC (pds_sdom.c);
			      * 0: none */
	uint32_t rx_ns;      /* low 32 bits of the ACK_PSN packet's arrival
			      * (ACK_CC service_time; spans 4.29 s) */
};

/* Per-PDC state. Its size is asserted, and all that the PDS keeps per PDC
 * id is counted by uet_pds_pdc_bytes() (scale target: at most 256 bytes
 * per idle PDC, docs/PERFORMANCE.md "Scale"). The CC's state is in
 * uet_pds.cc_priv, sized by the CC. */
struct pds_pdc {
	struct uet_pds_fa peer;
	uint32_t job;
	uint8_t tc;
	uint8_t mode;
	uint8_t role;
	uint8_t state;
	uint16_t lid;        /* our PDC id on the wire */
	uint16_t rid;        /* the peer's PDC id */
	uint16_t gen;        /* handle generation */
	uint16_t flags;      /* PDC_F_* */
	uint16_t nresp;      /* target: stored responses on c->resp */
	uint16_t open_msgs : 15; /* init: messages begun on it
				  * (UET_PDS_SUBMIT_SOM: the ULP's, or a
				  * move's) whose last packet is not queued
				  * yet: it does not close, and, asked to,
				  * takes no other (pds_pdc_held) */
	uint16_t ulp_open : 1;   /* init: the ULP's message open on it (its
				  * packets without SOM go here) */
	uint32_t tblk;       /* transmit block (PDS_NIL: none attached) */
	uint32_t rblk;       /* receive block (PDS_NIL: none attached) */
	uint32_t next;       /* active list link */
	uint32_t anext;      /* ACK list link */
	uint32_t resp;       /* target: stored responses, oldest PSN first */
	uint32_t resp_tail;  /* target: newest stored response (if resp) */
	uint32_t start_psn;
	uint64_t last_ns;    /* last activity (idle close) */
	struct {
		struct pds_initiator i; /* transmit PSN space */
		struct pds_target t;  /* receive PSN space */
	} u;
};

_Static_assert(sizeof(struct pds_pdc) <= 224, "PDC record <= 224 bytes");

#define PDS_OPEN_MSGS_MAX 0x7fffu

/*
 * A RUD initiator PDC asked to close (by its owner, idle, its target's
 * CLOSE_REQ, a NACK CLOSING) while a message is open on it: it stays in
 * the key table for that message's remaining packets only (the target
 * reassembles a message on the PDC of its first packet), and closes
 * after its last; every other request of its key (a new message, a
 * refused request that moves) goes on the key's next PDC meanwhile.
 * Kept the key's PDC for all, it held back the requests a closing
 * target had refused, and with them the next messages of the ULP, until
 * the open message ended, which it could wait for in turn (fuzz_dst,
 * test/dst/fuzz-fixed/hang.*). ROD keeps one PDC per key, in order.
 */
static inline bool
pds_pdc_held(const struct pds_pdc *c)
{
	return c->mode == UET_PDS_MODE_RUD && (c->flags & PDC_F_CLOSE_REQ) &&
	       c->open_msgs != 0;
}

enum pds_slot_state {
	SLOT_FREE = 0,
	SLOT_QUEUED,   /* assigned a PSN, never sent */
	SLOT_SENT,     /* in flight */
	SLOT_RETX,     /* marked for retransmission */
	SLOT_WAIT,     /* acknowledged, waiting for the SES response */
	SLOT_DONE,     /* complete, waiting for una to pass */
	SLOT_REFUSED,  /* SYN state: NACKed NEW_START_PSN, the rest of its
			* burst not answered yet (pds_initiator_syn_refused) */
	SLOT_GONE,     /* its packet can never be built again
			* (uet_pds_tx_unbuildable): out of the window, never
			* resent; the PDC fails when una reaches it */
};

#define SLOT_F_RESP   0x01u /* completes on the SES response */
#define SLOT_F_CP     0x02u /* a control packet (kind = ctl_type) */
#define SLOT_F_AR     0x04u /* AR on every transmission */
#define SLOT_F_RETXD  0x08u /* retransmitted at least once */
/* High nibble of the flags: why a SLOT_RETX slot is to be resent (enum
 * pds_why), counted when the resend is drained (pds_retx_sent). A
 * SLOT_SENT slot has no reason, and uses the nibble for: */
#define SLOT_F_RETX2  0x10u /* its last transmission was the second or a
			     * later one (UEC 1.0 3.6.13.1 rtx_count > 1) */
#define SLOT_WHY_SHIFT 4
#define SLOT_WHY_MASK  0xf0u

/*
 * Why a packet is sent again. A retransmission is counted by its reason
 * when its descriptor leaves uet_pds_tx_burst(), not when it is marked:
 * an ACK may complete a marked packet first, and then nothing is sent
 * (uet_pds_stats.resend_cancelled).
 */
enum pds_why {
	PDS_WHY_NONE = 0,
	PDS_WHY_RTO,     /* retransmission timeout */
	PDS_WHY_NACK,    /* retransmit-class NACK other than a trim */
	PDS_WHY_TRIM,    /* TRIMMED / TRIMMED_LASTHOP NACK */
	PDS_WHY_SACK,    /* SACK-inferred loss of a first transmission */
	PDS_WHY_AGAIN,   /* a retransmission presumed lost too */
	PDS_WHY_PROBE,   /* PROBE reply: sent before the PROBE, not ACKed */
	PDS_WHY_BACKOFF, /* resource NACK, resent when the back-off ends */
	PDS_WHY_TLP,     /* tail-loss probe resending the newest packet */
	PDS_WHY_COUNT
};

_Static_assert(PDS_WHY_COUNT - 1 <= (SLOT_WHY_MASK >> SLOT_WHY_SHIFT),
	       "every reason fits in the high nibble of a slot's flags");

/* One PSN of a transmit block: enough to rebuild the packet. */
struct pds_slot {
	uint64_t cookie;   /* SES cookie; CP: payload */
	uint64_t sent_ns;
	uint16_t len;
	uint8_t state;
	uint8_t flags;
	uint8_t kind;      /* request next_hdr, or ctl_type */
	uint8_t nacks;     /* NACK-driven retransmissions of this PSN */
	uint8_t refusals;  /* resource NACKs of it (pds_nack_backoff), kept
			    * when it moves to another PDC */
	uint8_t moves;     /* times it moved to another PDC (NACK CLOSING) */
	uint16_t ev;       /* EV of its last transmission (loss feedback) */
};

/* Count one more in @p v, which stays at UINT8_MAX: the count, up to 256
 * (more than any limit a uint8_t configuration holds). */
static inline unsigned int
pds_count_up(uint8_t *v)
{
	unsigned int n = *v + 1u;

	if (*v < UINT8_MAX)
		(*v)++;
	return n;
}

/* Nominal bytes of a request of SES length @p len (UET_PDS_CC_NOMINAL_OVH),
 * what the CC hooks count; 0 for a CP (no SES bytes, not counted by the
 * receiver either). */
static inline uint32_t
pds_nominal(const struct pds_slot *sl)
{
	return (sl->flags & SLOT_F_CP) ? 0 : sl->len + UET_PDS_CC_NOMINAL_OVH;
}

/* A SENT slot leaves the window unacknowledged (marked for
 * retransmission): its bytes leave the PDS's and the CC's inflight. */
#define PDS_SLOT_UNSEND(p, c, sl) do {				\
		(c)->u.i.inflight -= (sl)->len;			\
		(p)->cc_lost += pds_nominal(sl);		\
	} while (0)


/* Stored guaranteed-delivery response (UEC 1.0 PDS guaranteed delivery), or a
 * RUDI_RESP's response until the descriptor left. Bytes: pds_resp_data(). */
struct pds_resp {
	uint32_t next;
	uint32_t psn;
	uint16_t len;
	uint8_t ready;
	uint8_t next_hdr;
	uint8_t watch;     /* UET_PDS_EV_CLEARED asked (uet_pds_resp_watch) */
	uint64_t cookie;   /* ... its cookie */
};

/* A delivered request whose PSN is not recorded yet: the SES may still
 * refuse it (uet_pds_refuse); committed by the next PDS call. */
struct pds_pend {
	bool valid;
	bool resp;         /* a response entry is reserved for it */
	bool blk;          /* its receive block was attached for it */
	bool ce;
	uint8_t flags;     /* request's PDS flags (AR, RETX) */
	uint16_t len;
	uint32_t handle;
	uint32_t psn;
	uint64_t rx_ns;    /* arrival (ACK_CC service time) */
};

/* The RUDI_RESP of the request just delivered, until committed. */
struct pds_rudi_pend {
	bool valid;
	bool ce;
	uint16_t ev;
	uint32_t pkt_id;
	struct uet_pds_fa dst;
};

/* Outstanding RUDI request (no PDC, UEC 1.0 RUDI mode). */
struct pds_rudi {
	struct uet_pds_fa dst;
	uint64_t cookie;
	uint64_t sent_ns;
	uint64_t first_ns; /* first transmission (NACK limit) */
	uint32_t pkt_id;
	uint32_t next;     /* free list */
	uint16_t len;
	uint8_t next_hdr;
	uint8_t retries;
	uint8_t nacks;     /* NACK-driven resends (pds_rudi_nack_limit) */
	uint8_t busy;
	uint8_t queued;
	uint8_t backoffs;  /* resource NACKs (refusals) so far */
	uint8_t backoff;   /* the timer ends a back-off, not an RTO */
	uint8_t why;       /* enum pds_why of the resend queued, if any */
};

/* Queued datagram transmission: UUD inline, RUDI by slot. */
struct pds_dgram {
	struct uet_pds_fa dst;
	uint64_t cookie;
	uint32_t rudi;     /* PDS_NIL for UUD */
	uint16_t len;
	uint8_t next_hdr;
	uint8_t retx;
};

/* Fewer PDCs than this keep their records in the cache (256 x 224 B is
 * 56 KiB): uet_pds_rx_prefetch() prefetches nothing below it. */
#define PDS_PREFETCH_PDCS 256

/*
 * Timer wheel node: one per PDC and per RUDI slot, 16 bytes (it is per
 * PDC id: docs/PERFORMANCE.md "Memory per PDC"). The links are 24-bit
 * node indices (at most 2 x 65 536 PDC ids and 65 536 RUDI slots,
 * uet_pds_config checks), the slot 16 bits (timer_slots at most
 * PDS_TIMER_SLOTS_MAX, so that no slot is PDS_TSLOT_NIL).
 */
struct pds_tnode {
	uint64_t next : 24;     /* PDS_TNIL: last of its slot */
	uint64_t prev : 24;     /* PDS_TNIL: first of its slot */
	uint64_t slot : 16;     /* wheel slot, PDS_TSLOT_NIL when not filed */
	uint64_t deadline;      /* PDS_TIMER_NONE: filed, dropped when visited */
};

_Static_assert(sizeof(struct pds_tnode) == 16, "timer node: 16 B");

#define PDS_TNIL 0xffffffu      /* no node: a link, or an empty slot's head */
#define PDS_TSLOT_NIL 0xffffu   /* a node not filed */
#define PDS_TIMER_SLOTS_MAX 32768u

static inline bool
pds_tnode_filed(const struct pds_tnode *t)
{
	return t->slot != PDS_TSLOT_NIL;
}

/* The deadline of a node left filed when its PDC had nothing due
 * (pds_pdc_timer_update). */
#define PDS_TIMER_NONE UINT64_MAX

/*
 * A record of one freed incarnation {FA, spdcid, Start_PSN} of a target
 * PDC (closed, given up or replaced): its SYNs are late duplicates.
 * PDS_TOMB_WAYS records per hash bucket, so the incarnations of one
 * reused id do not overwrite each other; the oldest record is evicted.
 * {FA, spdcid} is kept as a 64-bit tag (pds_tomb_tag: two hashes, each
 * with its own seed, neither the bucket's), not as its 18 bytes (16
 * bytes a record against 28; two records per target PDC id,
 * uet_pds_pdc_bytes). Two pairs alike in tag and Start_PSN are about one
 * in 2^96; the SYNs of a pair that matched another's record would be
 * dropped as late duplicates until its PDC gave up (docs/WIRE-DECISIONS.md
 * "A late duplicate SYN of a closed target PDC").
 */
struct pds_tomb {
	uint64_t tag;
	uint32_t start_psn;
	uint32_t seq;        /* insertion order (eviction); 0: free */
};

_Static_assert(sizeof(struct pds_tomb) == 16, "closed-target record: 16 B");

#define PDS_TOMB_WAYS 4

/*
 * The Start_PSNs a target refused to {FA, spdcid} with NACK NEW_START_PSN
 * (pds_target_syn.c DECISION). A Start_PSN it names has the low half of
 * the SYN it answers and a high half of its own: PDS_NAMED set and the
 * interval of PDS_NAME_SHIFT its naming fell in (the caller's clock,
 * pds_name_iv), later than the one named before (named) and than any
 * interval the PDS may have named in before it started or forgot the id
 * (pds_syn_rec_new). So no two alike, none any Start_PSN an initiator
 * picks (PDS_NAMED clear, pds_start_psn), none a previous incarnation
 * named. Only the last one named, next, may open a PDC, once; the record
 * lasts 2 x mpl_ns after the id's last SYN, on the records' clock
 * (syn_now, pds_syn_tick). The id is known by a 32-bit hash of it: two
 * ids taken for one refuse more, never deliver twice.
 */
struct pds_syn_rec {
	uint64_t last_ns;    /* last SYN of the id refused or accepted
			      * (syn_now) */
	uint32_t key;        /* pds_syn_key() of {FA, spdcid} */
	uint32_t next;       /* the Start_PSN named last (or the first
			      * refused, until one is named) */
	uint32_t named;      /* the interval next was named in: the next
			      * name's is later */
	uint16_t fresh_hi;   /* high half of the last Start_PSN refused
			      * that this PDS did not name, in next's
			      * class: never named */
	uint8_t used : 1;
	uint8_t opened : 1;  /* next opened a PDC: acceptable no more */
	uint8_t blind : 1;   /* made without knowledge of the id (quiet
			      * time, forgotten bucket): its refusals say
			      * so when this PDS restarted (PDS_VC_*) */
};

/* A named Start_PSN (above): bit 31 set; one an initiator picks has it
 * clear. Its bits 30..16 are the interval of 2^PDS_NAME_SHIFT ns (1.05
 * ms) of the caller's clock it was named in, so they come back after
 * 2^15 intervals (34.4 s): longer than a packet can live (mpl_ns, at
 * most PDS_MPL_MAX_NS) plus the time an initiator PDC sends SYNs under
 * one name (its SYN state). */
#define PDS_NAMED 0x80000000u
#define PDS_NAME_SHIFT 20
#define PDS_MPL_MAX_NS 4000000000ull

/* The interval of the caller's clock @p now a Start_PSN named then
 * carries: compared by difference (it wraps after 2^32 intervals). */
static inline uint32_t
pds_name_iv(uint64_t now)
{
	return (uint32_t)(now >> PDS_NAME_SHIFT);
}

#define PDS_SYN_WAYS 4

/* The most a gap between two calls into the PDS ages the records of
 * refused Start_PSNs and the quiet time after start (pds_syn_tick). */
#define PDS_SYN_GAP_NS 1000000ull

/*
 * NACK NEW_START_PSN vendor_code of this PDS (docs/WIRE-DECISIONS.md "A
 * SYN that reaches a restarted target"): RESTARTED, the target is the
 * restart of an earlier incarnation (uet_pds_config.restarted) and
 * refused without any knowledge of the id (its quiet time after start,
 * or a bucket that forgot); then the NACK carries the time since its
 * previous incarnation was last known to run (else its own age), in
 * microseconds rounded down, at most PDS_VC_AGE_MAX_US (8.39 s): the
 * high 7 bits in the vendor_code's low 7, the low 16 in the spdcid (0,
 * no PDC, in every other refusal). 0: any other refusal, as from any
 * other target.
 */
#define PDS_VC_RESTARTED 0x80u
#define PDS_VC_AGE_MASK 0x7Fu
#define PDS_VC_AGE_MAX_US ((1u << 23) - 1)

/* Index free list. */
struct pds_pool {
	uint32_t *free;
	uint32_t nfree;
	uint32_t cap;
	uint32_t head;     /* FIFO pools: oldest free index at free[head] */
	bool fifo;         /* reuse the index freed longest ago (PDC ids) */
};

/* Open-addressing hash of PDC indices (linear probing). */
struct pds_htab {
	uint32_t *ent;     /* PDC index + 1, 0 = empty */
	uint32_t mask;
};

/* Single-producer single-consumer ring inside one lcore. */
/*
 * A queued event: struct uet_pds_event without the response array, so
 * the ring stays small (48 B a slot, not 320); response bytes live in
 * ev_resp at the slot's index, touched only by events that carry one
 * (pds_event_resp()).
 */
struct pds_event {
	uint8_t type;
	uint8_t mode;
	uint8_t next_hdr;
	uint16_t resp_len;
	int32_t status;
	uint32_t pdc;
	uint32_t psn;
	uint64_t cookie;
	struct uet_pds_fa peer;
};

struct pds_ring {
	uint32_t head;
	uint32_t tail;
	uint32_t mask;
};

/* Singly linked FIFO of PDC indices. */
struct pds_list {
	uint32_t head;
	uint32_t tail;
};

/* A request refused by a closing target, on its way to its key's PDC
 * (pds_move.c). */
struct pds_move {
	struct uet_pds_submit s; /* flags: UET_PDS_SUBMIT_RESP only */
	uint64_t msg;      /* its message (uet_pds_ulp.msg_of), 0: alone */
	uint32_t hold;     /* handle of the PDC its message holds, or
			    * PDS_NIL */
	uint8_t refusals;  /* pds_slot.refusals, kept across the move */
	uint8_t moves;     /* pds_slot.moves, this one counted */
	bool last;         /* the last of its message waiting */
	bool waited;       /* found no room once (move_waited) */
};

struct uet_pds {
	/* pds_initiator_ack(): the ACK being processed completed a packet that
	 * was never retransmitted (F-RTO evidence). */
	bool ack_orig;
	struct uet_pds_config cfg;
	struct uet_pds_ulp ulp;  /* uet_pds_set_ulp() */
	const struct uet_pds_cc_ops *cc;
	void *cc_inst;           /* cc->create(), NULL without one */
	uint64_t cc_now;         /* now of the latest rx/advance/tx_burst
				  * (service times of ACKs built inside) */
	uint32_t cc_lost;        /* nominal bytes marked lost, not yet told
				  * to the CC (pds_cc_flush_loss) */
	uint32_t cap;            /* PDCs per role (general + reserved) */
	uint32_t id_mask;        /* low bits of a PDC id */
	uint32_t id_tgt_base;    /* low bits of the first target PDC id */
	uint16_t id_owner;       /* owner prefix of our PDC ids */
	uint32_t tx_shift;       /* log2(tx_window) */
	uint32_t rx_words;       /* uint64_t per receive block */
	struct uet_rand rng;     /* seeded with cfg.seed as is (not expanded) */
	uint32_t rudi_seq;
	uint32_t last_start;     /* last Start_PSN picked (PDS_NAMED
				  * clear, pds_start_psn) */
	uint32_t resp_hw;        /* CLEAR_REQ high-water mark, entries */
	/* syn_expected, per secure domain 1..UET_PDS_SDOM_MAX (bit d of
	 * the masks: the value is set). Target: the Expected_PSN a SYN of
	 * the domain must reach to open a PDC at once. Initiator: the floor
	 * of our Start_PSNs in the domain, from our targets' EPSN ACKs. */
	uint32_t sdom_exp[UET_PDS_SDOM_MAX + 1];
	uint32_t sdom_floor[UET_PDS_SDOM_MAX + 1];
	uint32_t sdom_exp_set;
	uint32_t sdom_floor_set;
	bool test_start_set;     /* tests: force the next Start_PSN */
	uint32_t test_start_psn;

	struct pds_pdc *pdc;     /* [2 * cap] */
	uint8_t *cc_priv;        /* [2 * cap][cc_stride]: pds_cc_priv() */
	uint32_t cc_stride;      /* cc->priv_size rounded up to 8 (4 below 8) */
	/* Load-balancing state of each PDC's transmit side, by PDC index
	 * (beside the PDC array: struct pds_pdc has no room left). */
	struct uet_cms_lb *lb;   /* [2 * cap] */
	struct uet_cms_lb dg_lb; /* datagrams (pds_lb.c) */
	struct uet_cms_lb_config dg_lbc;
	uint32_t dg_salt;
	struct pds_pool pdc_pool[2][2]; /* [role][general, reserved] */
	uint32_t pdcs_open;      /* PDC records in use, both roles */
	struct pds_htab ikey;    /* initiator {job, FA, TC, mode} */
	uint32_t ikey_last;      /* last ikey hit (index), PDS_NIL: none */
	uint32_t ulp_open_n;     /* PDC records with ulp_open set: none, and
				  * no key has a message open
				  * (pds_ulp_open_set) */
	struct pds_htab tkey;    /* target {FA, spdcid} */
	struct pds_tomb *tomb;   /* incarnations freed or refused, by
				  * {FA, spdcid}: PDS_TOMB_WAYS a bucket */
	uint32_t tomb_mask;      /* buckets - 1 */
	uint32_t tomb_seq;
	struct pds_syn_rec *syn_rec; /* refused Start_PSNs, by {FA, spdcid}:
				      * PDS_SYN_WAYS a bucket */
	uint64_t *syn_forgot;    /* per bucket: until then (syn_now), a
				  * record of it may have been evicted
				  * (pds_target_syn.c) */
	uint64_t syn_quiet_ns;   /* until then (syn_now), every bucket
				  * counts as one that forgot: a previous
				  * incarnation's records are gone
				  * (pds_target_syn.c) */
	bool syn_quiet_set;      /* syn_quiet_ns set (first SYN seen) */
	bool syn_clock_set;      /* syn_now set (first call with a clock) */
	uint64_t syn_now;        /* the records' clock: the time this PDS
				  * ran (pds_syn_tick) */
	uint64_t syn_seen;       /* the caller's clock at the last tick */
	uint64_t syn_born;       /* syn_now at the first tick, which is the
				  * caller's clock then: the age of this
				  * PDS is syn_now - syn_born */
	uint32_t syn_born_iv;    /* the interval of the first tick
				  * (pds_name_iv): a previous incarnation
				  * may have named in it */
	uint32_t *syn_floor;     /* per bucket: the latest interval a
				  * record evicted from it may have named
				  * in (pds_target_syn.c) */
	uint32_t syn_mask;       /* buckets - 1 */

	struct pds_slot *tx_blk; /* [tx_blocks * tx_window] */
	struct pds_pool tx_pool;
	/* Handles of PDCs waiting for a transmit block to close, oldest
	 * first (pds_blk_wait); a released block wakes one. */
	uint32_t *blk_wait;
	struct pds_ring blk_wait_r;
	/* Requests refused by a closing target, waiting for room on their
	 * key's PDC, in order (pds_move.c). */
	struct pds_move *mv;
	uint32_t mv_n;
	uint32_t mv_cap;
	uint64_t *rx_blk;        /* [rx_blocks * rx_words] */
	struct pds_pool rx_pool;
	struct pds_resp *resp;
	uint8_t *resp_data;      /* [resp_entries * resp_max] */
	uint32_t resp_max;
	struct pds_pool resp_pool;
	uint32_t resp_defer;     /* RUDI response entries handed out by the
				  * last tx_burst, freed at the next */
	struct pds_pend pend;
	struct pds_rudi_pend rpend;
	struct pds_rudi *rudi;
	struct pds_pool rudi_pool;

	struct pds_list active;  /* initiator PDCs with something to send */
	struct pds_list acks;    /* target PDCs with an ACK/CP to send */

	struct pds_dgram *dgram;
	struct pds_ring dgram_r;
	struct uet_pds_tx *ctl;
	struct pds_ring ctl_r;
	struct pds_event *ev;
	uint8_t *ev_resp;        /* [event_queue][UET_PDS_RESP_MAX] */
	struct pds_ring ev_r;

	struct pds_tnode *tnode; /* [2 * cap + rudi_slots] */
	uint32_t *wheel;         /* slot heads */
	uint64_t *wheel_busy;    /* a bit per slot: its list is not empty */
	uint64_t wheel_now;      /* last processed tick */

	struct uet_pds_stats st;
};

/* Mark @p sl (SENT, or a WAIT slot whose request must go again) for
 * retransmission because of @p why; nothing is counted until it is sent. */
static inline void
pds_slot_mark(struct uet_pds *p, struct pds_pdc *c, struct pds_slot *sl,
	      enum pds_why why)
{
	if (sl->state == SLOT_SENT)
		PDS_SLOT_UNSEND(p, c, sl);
	sl->state = SLOT_RETX;
	sl->flags = (uint8_t)((sl->flags & ~SLOT_WHY_MASK) |
			      ((unsigned int)why << SLOT_WHY_SHIFT));
	c->u.i.n_retx++;
	/* The request that carried the latest credit_target may be the one
	 * lost or trimmed: the next blocked send asks again by CP. */
	c->u.i.creq_sent = 0;
}

static inline enum pds_why
pds_slot_why(const struct pds_slot *sl)
{
	return (enum pds_why)((sl->flags & SLOT_WHY_MASK) >> SLOT_WHY_SHIFT);
}

/* ---- pds.c: rings, events, handles ---- */
static inline uint32_t
pds_ring_count(const struct pds_ring *r)
{
	return r->head - r->tail;
}

static inline bool
pds_ring_full(const struct pds_ring *r)
{
	return pds_ring_count(r) > r->mask;
}

uint64_t pds_rand(struct uet_pds *p);
struct pds_event *pds_event_push(struct uet_pds *p);
uint8_t *pds_event_resp(struct uet_pds *p, const struct pds_event *e);
uint32_t pds_event_room(const struct uet_pds *p);
struct uet_pds_tx *pds_ctl_push(struct uet_pds *p);
void pds_done(struct uet_pds *p, uint8_t mode, uint32_t pdc, uint64_t cookie,
	      int status, uint32_t psn);
void pds_done_pdc(struct uet_pds *p, struct pds_pdc *c, uint64_t cookie,
		  int status, uint32_t psn);
void pds_pdc_down(struct uet_pds *p, struct pds_pdc *c, int status);
void pds_target_gone(struct uet_pds *p, struct pds_pdc *c);
void pds_commit(struct uet_pds *p, uint64_t now);
/* A retransmission of reason @p why leaves: count it. */
void pds_retx_sent(struct uet_pds *p, enum pds_why why);

/* 1.25 SRTT: a resend younger than this cannot have been answered yet;
 * 0 without an RTT sample. */
static inline uint64_t
pds_rtt_guard(const struct pds_pdc *c)
{
	uint64_t s = c->u.i.srtt_ns;

	return s + (s >> 2);
}

/*
 * Retransmission timeout of a packet of PDC @p c: twice the smoothed RTT,
 * never below the fixed floor rto_init nor above rto_max. It does not
 * grow with the retries. UEC 1.0 PDS retransmission (RUD, 3.5.20.3) bounds
 * only the count, Max_RTO_Retx_Cnt (max_retries), and htsim's UEC source
 * (uec.cpp startRTO) arms every packet's timer at its send time plus one
 * fixed minimum RTO. DECISION (docs/CONGESTION.md "Retransmission
 * timeout"): no exponential back-off on the data path; a timeout doubling
 * per PDC kept an ACK path through a failed link waiting up to rto_max.
 * 2 x SRTT keeps a queue that has grown past the floor from firing the
 * timer on packets that are only late.
 */
static inline uint64_t
pds_rto_ns(const struct uet_pds *p, const struct pds_pdc *c)
{
	uint64_t rto = 2 * (uint64_t)c->u.i.srtt_ns;

	if (rto < p->cfg.rto_init_ns)
		rto = p->cfg.rto_init_ns;
	if (rto > p->cfg.rto_max_ns && p->cfg.rto_max_ns >= p->cfg.rto_init_ns)
		rto = p->cfg.rto_max_ns;
	return rto;
}

/*
 * Repeat interval of a target's unanswered CLOSE_REQ / CLEAR_REQ after @p k
 * repeats, and the k-th term of the time a silent peer is given
 * (pds_dead_ns): rto_init x 2^k, capped at rto_max. These are not
 * retransmissions of data; the spec sets no interval. DECISION: they back
 * off, so that a quiet peer is asked a bounded number of times over a
 * long span (1.93 s by default).
 */
static inline uint64_t
pds_backoff_ns(const struct uet_pds *p, uint32_t k)
{
	uint64_t init = p->cfg.rto_init_ns;
	uint64_t max = p->cfg.rto_max_ns > init ? p->cfg.rto_max_ns : init;

	if (k >= 63 || init > (max >> k))
		return max;
	return init << k;
}

/*
 * Time without progress after which a PDC (or a datagram) is given up:
 * pds_backoff_ns(0 .. max_retries) back to back (1.93 s with the
 * defaults). The RTO keeps resending at its fixed interval; the PDC fails
 * once max_retries expiries (Max_RTO_Retx_Cnt) went without progress and
 * this much time passed since its last progress. DECISION
 * (docs/CONGESTION.md "Retransmission timeout"): a peer descheduled for a
 * second on a loaded host (a process beside others on two CPUs) is alive,
 * and a PDC on a sprayed fabric with a failed link finds a live path in
 * time.
 */
static inline uint64_t
pds_dead_ns(const struct uet_pds *p)
{
	uint64_t sum = 0;
	uint32_t k;

	for (k = 0; k <= p->cfg.max_retries; k++)
		sum += pds_backoff_ns(p, k);
	return sum;
}

/* When the retransmission timer of initiator state @p c is due. */
static inline uint64_t
pds_rto_due(const struct uet_pds *p, const struct pds_pdc *c)
{
	return c->u.i.rto_base + pds_rto_ns(p, c);
}

/*
 * The end of the RTO episode of @p c: the first PSN past those sent when
 * the timer first expired without progress (rto_snd, its low 16 bits, at
 * most a window from @p una, the una they were last kept against); una's
 * own when no episode runs.
 */
static inline uint32_t
pds_rto_end(const struct pds_pdc *c, uint32_t una)
{
	return una + (uint16_t)(c->u.i.rto_snd - (uint16_t)una);
}

/*
 * Whether una moving from @p old to its current value ends the RTO
 * episode of @p c: una passed every PSN sent when the timer first
 * expired, or nothing is outstanding. Only those: a stream that keeps
 * moving ends each episode within a few round trips, whatever else it
 * loses meanwhile. Within the episode, una moving is no progress for
 * the dead-peer clock (pds_rto_count): one of the packets the RTO
 * resends may complete while another stays unanswered, and each
 * completion restarted the clock of them all, so a request was resent
 * far past the dead-peer time (uet-dst generator 1 seed 10260731: 51
 * times in 75 ms, a one-way partition, the READ data of an older request
 * moving una). UEC 1.0 counts Max_RTO_Retx_Cnt per packet. The count of
 * expiries still starts again: answers that keep coming (a target whose
 * SES answers slowly, one response after another) keep the PDC alive
 * as they did.
 */
static inline bool
pds_rto_episode_over(const struct pds_pdc *c, uint32_t old)
{
	const struct pds_initiator *i = &c->u.i;

	return i->una == i->nxt || !uet_psn_lt(i->una, pds_rto_end(c, old));
}

/*
 * Count an expiry of the retransmission timer of @p c (an RTO, or the
 * window or credit probe standing in for one): 0 to resend, -ETIMEDOUT
 * when the PDC must fail: more than max_retries (Max_RTO_Retx_Cnt)
 * expiries without progress, and the peer silent for pds_dead_ns.
 */
static inline int
pds_rto_count(struct uet_pds *p, struct pds_pdc *c, uint64_t now)
{
	p->st.rto_fires++;
	/* an episode begins, unless one runs */
	if (!uet_psn_lt(c->u.i.una, pds_rto_end(c, c->u.i.una)))
		c->u.i.rto_snd = (uint16_t)c->u.i.snd;
	if (c->u.i.retries < UINT8_MAX)
		c->u.i.retries++;
	if (c->u.i.retries > p->cfg.max_retries &&
	    now - c->u.i.progress_ns >= pds_dead_ns(p))
		return -ETIMEDOUT;
	return 0;
}

/* Reordering allowance of send-time loss evidence: SRTT / 8. */
static inline uint64_t
pds_reo_ns(const struct pds_pdc *c)
{
	return c->u.i.srtt_ns >> 3;
}

/* The CC's private state of @p c (struct uet_pds_cc_ops.priv_size). */
static inline void *
pds_cc_priv(const struct uet_pds *p, const struct pds_pdc *c)
{
	return p->cc_priv + (size_t)(c - p->pdc) * p->cc_stride;
}

static inline uint8_t *
pds_resp_data(const struct uet_pds *p, uint32_t r)
{
	return p->resp_data + (size_t)r * p->resp_max;
}
uint32_t pds_handle(const struct uet_pds *p, uint32_t idx);
struct pds_pdc *pds_handle_pdc(struct uet_pds *p, uint32_t handle);
struct uet_pds_tx *pds_nack_tx(struct uet_pds *p, const struct uet_pds_fa *dst,
			       uint16_t ev, uint8_t code, uint32_t psn,
			       uint16_t spdcid, uint16_t dpdcid, uint8_t flags);
void pds_list_push(struct uet_pds *p, struct pds_list *l, uint32_t idx);
uint32_t pds_list_pop(struct uet_pds *p, struct pds_list *l);

static inline uint32_t
pds_idx(const struct uet_pds *p, const struct pds_pdc *c)
{
	return (uint32_t)(c - p->pdc);
}

/* Bytes to 24-bit 256-byte units, rounded up (UEC 1.0 PDS header formats
 * DECISION). */
static inline uint32_t
pds_to_units256(uint32_t bytes)
{
	uint32_t u = bytes / 256 + (bytes % 256 != 0);

	return u > UET_PDS_U24_MAX ? UET_PDS_U24_MAX : u;
}

/* 256-byte units to bytes, saturating. */
static inline uint32_t
pds_from_units256(uint32_t units)
{
	return units > UINT32_MAX / 256 ? UINT32_MAX : units * 256;
}

static inline unsigned int
pds_code_idx(unsigned int code)
{
	return code < 31 ? code : 31;
}

/* ---- pdc.c: pools, lookup, blocks ---- */
int pds_pool_init(struct pds_pool *pl, uint32_t cap);
void pds_pool_fini(struct pds_pool *pl);
uint32_t pds_pool_get(struct pds_pool *pl);
void pds_pool_put(struct pds_pool *pl, uint32_t idx);
int pds_pdc_mgr_init(struct uet_pds *p);
void pds_pdc_mgr_fini(struct uet_pds *p);
struct pds_pdc *pds_pdc_alloc(struct uet_pds *p, unsigned int role, bool rsv,
			      uint64_t now);
void pds_pdc_free(struct uet_pds *p, struct pds_pdc *c);
struct pds_pdc *pds_pdc_by_lid(struct uet_pds *p, unsigned int role,
			       uint16_t lid);
struct pds_pdc *pds_ikey_find(struct uet_pds *p, const struct uet_pds_fa *fa,
			      uint32_t job, uint8_t tc, uint8_t mode);
struct pds_pdc *pds_ikey_find_open(struct uet_pds *p,
				   const struct uet_pds_fa *fa, uint32_t job,
				   uint8_t tc, uint8_t mode);
void pds_ikey_add(struct uet_pds *p, struct pds_pdc *c);
void pds_ikey_del(struct uet_pds *p, struct pds_pdc *c);
struct pds_pdc *pds_tkey_find(struct uet_pds *p, const struct uet_pds_fa *fa,
			      uint16_t spdcid);
uint32_t pds_tkey_hash(const struct uet_pds_fa *fa, uint16_t spdcid);
void pds_tkey_add(struct uet_pds *p, struct pds_pdc *c);
void pds_tkey_del(struct uet_pds *p, struct pds_pdc *c);
void pds_tomb_add(struct uet_pds *p, const struct uet_pds_fa *fa,
		  uint16_t spdcid, uint32_t start_psn);
const struct pds_tomb *pds_tomb_find(const struct uet_pds *p,
				     const struct uet_pds_fa *fa,
				     uint16_t spdcid, uint32_t start_psn);
void pds_blk_wait(struct uet_pds *p, struct pds_pdc *c);
bool pds_tx_blk_attach(struct uet_pds *p, struct pds_pdc *c);
void pds_tx_blk_detach(struct uet_pds *p, struct pds_pdc *c);
bool pds_rx_blk_attach(struct uet_pds *p, struct pds_pdc *c);
void pds_rx_blk_detach(struct uet_pds *p, struct pds_pdc *c);

/* Every write of pds_pdc.ulp_open goes here, so that uet_pds.ulp_open_n
 * counts the records with it set: with none, a submission does not look
 * for a key's open message (pds_ikey_find_open) in the key table. */
static inline void
pds_ulp_open_set(struct uet_pds *p, struct pds_pdc *c, bool on)
{
	if (c->ulp_open == on)
		return;
	c->ulp_open = on;
	if (on)
		p->ulp_open_n++;
	else
		p->ulp_open_n--;
}

static inline struct pds_slot *
pds_slot(struct uet_pds *p, const struct pds_pdc *c, uint32_t psn)
{
	return &p->tx_blk[((size_t)c->tblk << p->tx_shift) +
			  (psn & (p->cfg.tx_window - 1))];
}

static inline uint64_t *
pds_rx_bits(struct uet_pds *p, const struct pds_pdc *c)
{
	return &p->rx_blk[(size_t)c->rblk * p->rx_words];
}

/* Has the receive side of @p c recorded @p psn past CACK? */
static inline bool
pds_rx_bit_test(struct uet_pds *p, const struct pds_pdc *c, uint32_t psn)
{
	uint32_t b = psn & (p->cfg.rx_window - 1);

	return c->rblk != PDS_NIL &&
	       ((pds_rx_bits(p, c)[b / 64] >> (b % 64)) & 1u);
}

/* ---- pds_lb.c: entropy values from the CMS ---- */
static inline struct uet_cms_lb *
pds_lb(struct uet_pds *p, const struct pds_pdc *c)
{
	return &p->lb[pds_idx(p, c)];
}

void pds_lb_create(struct uet_pds *p);
void pds_lb_pdc_init(struct uet_pds *p, struct pds_pdc *c);
uint16_t pds_lb_next(struct uet_pds *p, struct pds_pdc *c, uint64_t now);
void pds_lb_ack(struct uet_pds *p, struct pds_pdc *c, uint16_t ev, bool m,
		uint64_t now);
void pds_lb_nack(struct uet_pds *p, struct pds_pdc *c, uint16_t ev,
		 uint8_t code, bool m, uint64_t now);
void pds_lb_loss(struct uet_pds *p, struct pds_pdc *c, uint16_t ev,
		 uint64_t now);
uint16_t pds_lb_dgram(struct uet_pds *p, const struct uet_pds_fa *dst,
		      uint64_t now);

/* ---- pds_timer.c ---- */
int pds_timer_init(struct uet_pds *p, uint64_t now);
void pds_timer_fini(struct uet_pds *p);
void pds_timer_arm(struct uet_pds *p, uint32_t node, uint64_t deadline);
void pds_timer_cancel(struct uet_pds *p, uint32_t node);
void pds_pdc_timer_update(struct uet_pds *p, struct pds_pdc *c, uint64_t now);

/* Will @p node fire (at its deadline, or the visit that re-files it)? */
static inline bool
pds_timer_armed(const struct uet_pds *p, uint32_t node)
{
	return pds_tnode_filed(&p->tnode[node]) &&
	       p->tnode[node].deadline != PDS_TIMER_NONE;
}

static inline uint32_t
pds_rudi_node(const struct uet_pds *p, uint32_t rudi)
{
	return 2 * p->cap + rudi;
}

/* ---- pds_initiator.c: initiator ---- */

/*
 * The receiver's MP_Range (UEC 1.0 PDS ACK_CC mpr): PSNs past its CACK it
 * tracks. DECISION: until an ACK_CC told it, assume the peer's receive
 * window is our own (both ends of a fabric normally share one
 * configuration); never more than our transmit window.
 */
static inline uint32_t
pds_initiator_range(const struct uet_pds *p, const struct pds_pdc *c)
{
	uint32_t r = c->u.i.mpr != 0 ? UINT32_C(1) << c->u.i.mpr :
				       p->cfg.rx_window;

	return r < p->cfg.tx_window ? r : p->cfg.tx_window;
}

/*
 * May @p psn leave now, first or again (UEC 1.0 MP_Range)? The receiver
 * NACKs a PSN past its range (PSN_OOR_WINDOW) instead of taking it, and
 * the range runs from the CACK_PSN it reports, which it holds below a
 * guaranteed-delivery response until that is cleared (3.5.20.2.2), not
 * from what we know it received: so only PSNs less than the range past
 * the last CACK_PSN it reported.
 */
static inline bool
pds_initiator_room(const struct uet_pds *p, const struct pds_pdc *c, uint32_t psn)
{
	return psn - (c->u.i.peer_cack + 1) < pds_initiator_range(p, c);
}

/* pds_move.c */
void pds_move_add(struct uet_pds *p, struct pds_pdc *c, uint32_t psn,
		  uint64_t msg);
void pds_move_drain(struct uet_pds *p, uint64_t now);
void pds_move_unhold(struct uet_pds *p, struct pds_pdc *c, int status);
bool pds_move_waiting(struct uet_pds *p, const struct uet_pds_submit *s);
bool pds_move_holds(const struct uet_pds *p, const struct pds_pdc *c,
		    uint64_t msg);

struct pds_pdc *pds_initiator_submit_on(struct uet_pds *p,
					const struct uet_pds_submit *s,
					struct pds_pdc *c, uint64_t now);
int pds_initiator_submit(struct uet_pds *p, const struct uet_pds_submit *s,
		    uint64_t now);
int pds_initiator_submit_ret(struct uet_pds *p, const struct uet_pds_submit *s,
			uint64_t now);
uint32_t pds_start_psn(struct uet_pds *p);
uint32_t pds_start_psn_job(struct uet_pds *p, uint32_t job);
void pds_sdom_learn(struct uet_pds *p, const struct pds_pdc *c,
		    const struct uet_wire_pds_hdr *h);
void pds_sdom_retire(struct uet_pds *p, const struct pds_pdc *c);
bool pds_sdom_close_epsn(struct uet_pds *p, const struct pds_pdc *c,
			 uint32_t *e);
bool pds_sdom_old(const struct uet_pds *p, const struct uet_pds_rx_meta *m,
		  uint32_t start);
void pds_pdc_psn_init(struct uet_pds *p, struct pds_pdc *c, uint64_t now);
/* ---- pds_cc.c: calls into the CC ---- */
/* Tell the CC about the bytes marked lost since the last flush. */
void pds_cc_flush_loss(struct uet_pds *p, struct pds_pdc *c, uint64_t now);
/* Send the grants of the CC's pull pacer due at @p now (UEC 1.0 RCCC). */
void pds_cc_grants(struct uet_pds *p, uint64_t now);
/* Nominal bytes in flight on @p c. */
uint32_t pds_cc_inflight(struct uet_pds *p, struct pds_pdc *c);
/* The bytes marked lost since the last flush, cleared. */
uint32_t pds_cc_take(struct uet_pds *p);
/* Bytes acknowledged outside an ACK (NACK evidence): no RTT, no state. */
void pds_cc_acked(struct uet_pds *p, struct pds_pdc *c, uint32_t bytes,
		  uint64_t now);
/* A NACK (@p code) released the bytes marked since the last flush. */
void pds_cc_nacked(struct uet_pds *p, struct pds_pdc *c, uint8_t code,
		   uint64_t now);
/* The CC asks for a base-RTT PROBE (UEC 1.0 NSCC): send it if it may. */
void pds_initiator_cc_probe(struct uet_pds *p, struct pds_pdc *c, uint64_t now);
void pds_initiator_abort(struct uet_pds *p, struct pds_pdc *c, int status);
uint16_t pds_initiator_tx(struct uet_pds *p, struct pds_pdc *c, uint64_t now,
		     struct uet_pds_tx *tx, uint16_t n);
bool pds_initiator_has_work(struct uet_pds *p, const struct pds_pdc *c,
		       uint64_t now);
int pds_initiator_ack(struct uet_pds *p, const struct uet_wire_pds_hdr *h,
		 const struct uet_pds_rx_meta *m, uint64_t now);
int pds_initiator_nack(struct uet_pds *p, const struct uet_wire_pds_hdr *h,
		  const struct uet_pds_rx_meta *m, uint64_t now);
int pds_initiator_cp(struct uet_pds *p, const struct uet_wire_pds_hdr *h,
		const struct uet_pds_rx_meta *m, uint64_t now);
void pds_initiator_timer(struct uet_pds *p, struct pds_pdc *c, uint64_t now);
uint64_t pds_initiator_deadline(struct uet_pds *p, const struct pds_pdc *c);
void pds_initiator_fail(struct uet_pds *p, struct pds_pdc *c, int status);
int pds_initiator_unbuildable(struct uet_pds *p, struct pds_pdc *c,
			      uint32_t psn, uint64_t cookie, uint64_t now);

/* ---- pds_initiator_ctl.c: probes, re-establishment, back-off, credit ---- */
bool pds_initiator_probe(struct uet_pds *p, struct pds_pdc *c, uint64_t now);
bool pds_initiator_ack_req(struct uet_pds *p, struct pds_pdc *c, uint64_t now);
/* ROD go-back-N window (pds_initiator.c) */
bool pds_rod_wnd_has(const struct uet_pds *p, const struct pds_pdc *c,
		     uint32_t psn);
bool pds_rod_wnd_last(const struct uet_pds *p, const struct pds_pdc *c,
		      uint32_t psn);
void pds_rod_wnd_cut(struct uet_pds *p, struct pds_pdc *c);
void pds_rod_wnd_grow(struct uet_pds *p, struct pds_pdc *c, uint32_t acked);
bool pds_initiator_clear_due(struct uet_pds *p, const struct pds_pdc *c);
bool pds_initiator_clear_tx(struct uet_pds *p, struct pds_pdc *c,
		       uint64_t now);
/* The peer's MP_Range (pds_initiator_room) */
bool pds_initiator_retx_ready(struct uet_pds *p, const struct pds_pdc *c);
bool pds_initiator_window_held(struct uet_pds *p, const struct pds_pdc *c);
void pds_initiator_window_cack(struct pds_pdc *c, uint32_t cack, uint64_t now);
void pds_initiator_window_probe(struct uet_pds *p, struct pds_pdc *c,
			   uint64_t now);
void pds_initiator_probe_reply(struct uet_pds *p, struct pds_pdc *c,
			  const struct uet_wire_pds_hdr *h, uint64_t now);
bool pds_initiator_backoff(struct uet_pds *p, struct pds_pdc *c, unsigned int n,
			   uint64_t now);
void pds_initiator_new_start(struct uet_pds *p, struct pds_pdc *c, uint32_t want,
			uint64_t now);
void pds_initiator_syn_refused(struct uet_pds *p, struct pds_pdc *c,
			  struct pds_slot *sl, uint32_t want, uint64_t now);
bool pds_initiator_syn_refused_any(struct uet_pds *p, const struct pds_pdc *c);
void pds_initiator_syn_open(struct uet_pds *p, struct pds_pdc *c);
uint32_t pds_initiator_credit_target(struct uet_pds *p, struct pds_pdc *c,
				    const struct pds_slot *sending,
				    uint8_t *ccc_id);
void pds_initiator_credit_req(struct uet_pds *p, struct pds_pdc *c,
			 uint64_t now);
void pds_initiator_credit_probe(struct uet_pds *p, struct pds_pdc *c,
				uint64_t now);
void pds_initiator_credit(struct uet_pds *p, struct pds_pdc *c, uint32_t bytes,
		     uint64_t now);
void pds_initiator_kick(struct uet_pds *p, struct pds_pdc *c);
int pds_initiator_close(struct uet_pds *p, struct pds_pdc *c, uint64_t now);
int pds_initiator_queue_cp(struct uet_pds *p, struct pds_pdc *c, uint8_t ctl,
		      uint32_t payload);
uint32_t pds_initiator_mark_from(struct uet_pds *p, struct pds_pdc *c,
			    uint32_t from, bool wait_too, enum pds_why why,
			    uint64_t before);

/* Fields common to requests and CPs (pds_target.c). */
struct pds_rxinfo {
	uint32_t psn;
	uint16_t spdcid;
	uint16_t dpdcid;
	uint16_t psn_offset;
	uint8_t mode;
	bool syn;
	bool rsv;
	bool cp;
};

/* ---- pds_target.c: target ---- */
void pds_target_nack(struct uet_pds *p, const struct uet_pds_rx_meta *m,
		  const struct pds_rxinfo *ri, uint16_t lid, uint8_t code,
		  uint32_t psn);
void pds_resp_clear(struct uet_pds *p, struct pds_pdc *c, uint32_t clear_psn);
void pds_resp_cleared(struct uet_pds *p, const struct pds_pdc *c, uint32_t r,
		      int status);
void pds_resp_drop(struct uet_pds *p, struct pds_pdc *c, uint32_t psn);
void pds_target_commit(struct uet_pds *p, uint64_t now);
int pds_target_refuse(struct uet_pds *p, struct pds_pdc *c, uint32_t psn,
		   uint8_t code);
int pds_target_rx(struct uet_pds *p, const struct uet_wire_pds_hdr *h,
	       const struct uet_pds_rx_meta *m, uint64_t now);
int pds_target_cp_unseq(struct uet_pds *p, const struct uet_wire_pds_hdr *h,
		     const struct uet_pds_rx_meta *m, uint64_t now);
int pds_ret_rx(struct uet_pds *p, const struct uet_wire_pds_hdr *h,
	       const struct uet_pds_rx_meta *m, uint64_t now);

struct pds_pdc *pds_target_create(struct uet_pds *p,
				  const struct uet_pds_rx_meta *m,
				  const struct pds_rxinfo *ri, uint64_t now);

/* ---- pds_target_syn.c: PDC establishment at the target ---- */
int pds_syn_rec_init(struct uet_pds *p, uint32_t records);
void pds_syn_rec_fini(struct uet_pds *p);
size_t pds_syn_rec_bytes(const struct uet_pds *p);
void pds_syn_tick(struct uet_pds *p, uint64_t now);
void pds_syn_restart_stamp(const struct uet_pds *p,
			   struct uet_wire_pds_nack *n);
uint64_t pds_syn_vc_age_ns(uint8_t vendor_code, uint16_t spdcid);
struct pds_pdc *pds_target_syn(struct uet_pds *p,
			       const struct uet_pds_rx_meta *m,
			       const struct pds_rxinfo *ri, uint64_t now);

/* ---- pds_target_ack.c: ACK generation, receive-side timers ---- */
void pds_target_want_ack(struct uet_pds *p, struct pds_pdc *c);
void pds_target_ev_set(struct uet_pds *p, struct pds_pdc *c,
		    const struct uet_pds_rx_meta *m);
void pds_target_ack_kick(struct uet_pds *p, struct pds_pdc *c);
void pds_target_resp_sack(struct uet_pds *p, struct pds_pdc *c,
		       struct uet_pds_tx *tx);
void pds_target_ack_policy(struct uet_pds *p, struct pds_pdc *c, uint8_t flags,
			const struct uet_pds_rx_meta *m, uint64_t now);
void pds_target_credit_grant(struct uet_pds *p, struct pds_pdc *c,
			  uint32_t bytes);
void pds_target_credit_request(struct uet_pds *p, struct pds_pdc *c,
			    uint32_t target, uint32_t bytes, uint64_t now);
bool pds_target_ack_tx(struct uet_pds *p, struct pds_pdc *c, uint64_t now,
		    struct uet_pds_tx *tx);
void pds_target_timer(struct uet_pds *p, struct pds_pdc *c, uint64_t now);
uint64_t pds_target_deadline(struct uet_pds *p, const struct pds_pdc *c);
int pds_target_resp_watch(struct uet_pds *p, struct pds_pdc *c, uint32_t psn,
			  uint64_t cookie);
int pds_target_respond_default(struct uet_pds *p, struct pds_pdc *c,
			    uint32_t psn);
uint32_t pds_target_cack_report(const struct uet_pds *p,
			     const struct pds_pdc *c);
int pds_target_accept_answered(struct uet_pds *p, struct pds_pdc *c,
			       uint32_t psn, uint64_t now);
int pds_target_respond(struct uet_pds *p, struct pds_pdc *c, uint32_t psn,
		    uint8_t next_hdr, const void *resp, uint16_t len);
void pds_target_close_req(struct uet_pds *p, struct pds_pdc *c, uint64_t now);
void pds_target_release(struct uet_pds *p, struct pds_pdc *c);

/* ---- pds_dgram.c: RUDI and UUD ---- */
int pds_dgram_submit(struct uet_pds *p, const struct uet_pds_submit *s,
		     uint64_t now);
uint16_t pds_dgram_tx(struct uet_pds *p, uint64_t now, struct uet_pds_tx *tx,
		      uint16_t n);
int pds_dgram_rx(struct uet_pds *p, const struct uet_wire_pds_hdr *h,
		 const struct uet_pds_rx_meta *m, uint64_t now);
void pds_rudi_timer(struct uet_pds *p, uint32_t rudi, uint64_t now);
void pds_rudi_commit(struct uet_pds *p);
int pds_rudi_respond(struct uet_pds *p, uint32_t pkt_id, uint8_t next_hdr,
		     const void *resp, uint16_t len);
int pds_rudi_refuse(struct uet_pds *p, uint32_t pkt_id, uint8_t code);
void pds_rudi_defer_free(struct uet_pds *p);
void pds_rudi_handed_out(struct uet_pds *p, const struct uet_pds_tx *t);

#endif /* UET_PDS_PRIVATE_H */
