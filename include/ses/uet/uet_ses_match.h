/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_SES_MATCH_H
#define UET_SES_MATCH_H

/**
 * @file
 * SES receive-side matching engine (UEC 1.0 SES standard request header, SES
 * responses, SES send variants; the provider receive calls), sans-I/O.
 *
 * One `struct uet_ses_match` per receive context (endpoint or rx context),
 * owned by one lcore (not thread safe). It keeps:
 *  - two posted-receive lists, untagged (fi_recv) and tagged (fi_trecv);
 *  - the unexpected (OVERFLOW) list of messages that arrived before a
 *    matching receive, with their eager bytes held in a bounded pool of
 *    fixed-size chunks.
 *
 * The engine never dereferences receive buffers and does no I/O: it
 * decides which receive a message lands in, at which offset and for how
 * many bytes; the SES moves the data and builds responses.
 *
 * All memory is allocated by uet_ses_match_create(); nothing afterwards.
 * Every loop is bounded by a pool size. Exhaustion is a verdict
 * (UET_SES_MATCH_NO_ROOM) or -EAGAIN, never a crash or a silent drop.
 *
 * Ordering guarantees (MPI non-overtaking):
 *  - An arrival matches the earliest-posted receive that accepts it.
 *  - A post matches the earliest-arrived unexpected message it accepts.
 *  - Hence, for one (source, tag), messages are consumed in arrival order
 *    (the order of uet_ses_match_arrival() calls) and receives are
 *    satisfied in posting order, whatever mix of wildcard and exact
 *    receives is posted. Untagged and tagged traffic never match each
 *    other and do not order against each other.
 *  - The caller must present arrivals of one source in send order (ROD,
 *    or RUD with the SES reordering SOM packets by message id) for the
 *    end-to-end guarantee to hold.
 *
 * Exact-tag receives (no ignore bits) and exact-tag lookups of unexpected
 * messages go through hash buckets; a per-receive posting sequence number
 * keeps posting order across buckets and the wildcard list, so an exact
 * match with no wildcard receive posted is O(1) amortised.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uet/uet_wire.h>
#include <uet/uet_wire_ses.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Source wildcard for a posted receive (no FI_DIRECTED_RECV). */
#define UET_SES_MATCH_SRC_ANY UINT64_MAX
/** Invalid unexpected-message handle. */
#define UET_SES_MATCH_NONE UINT32_MAX
/** Largest pool sizes (entries, chunks). */
#define UET_SES_MATCH_POOL_MAX (1u << 24)

struct uet_ses_match;

/** Creation parameters; uet_ses_match_config_default() fills every field. */
struct uet_ses_match_config {
	uint32_t max_posted;     /**< posted receives, both lists together */
	uint32_t max_unexpected; /**< unexpected messages recorded */
	uint32_t chunk_size;     /**< bytes per unexpected-data chunk (>= 64) */
	uint32_t chunks;         /**< chunks in the unexpected-data pool */
	uint32_t hash_buckets;   /**< tag buckets per list, power of 2 */
};

/** Fill @p cfg with defaults (1024 posted, 1024 unexpected, 1 MiB data). */
void uet_ses_match_config_default(struct uet_ses_match_config *cfg);

/**
 * Create a matching context; all memory is allocated here.
 * @return
 *   The context, or NULL with errno EINVAL (bad config) or ENOMEM.
 */
struct uet_ses_match *
uet_ses_match_create(const struct uet_ses_match_config *cfg);

/** Free a context; NULL is a no-op. Everything it holds is dropped. */
void uet_ses_match_free(struct uet_ses_match *m);

/** How the message's data travels (UEC 1.0 SES send variants). */
enum uet_ses_match_kind {
	UET_SES_MATCH_KIND_EAGER = 0,      /**< all data in the packets */
	UET_SES_MATCH_KIND_RENDEZVOUS = 1, /**< rest read from the initiator */
	UET_SES_MATCH_KIND_DEFERRABLE = 2, /**< initiator waits for RTR */
};

/** Message flags (struct uet_ses_match_msg::flags). */
#define UET_SES_MATCH_MSG_TAGGED 0x01u /**< TSEND family: tag is valid */
#define UET_SES_MATCH_MSG_HDATA  0x02u /**< header_data valid (HD) */

/** Header of an arrived message: what a completion and a response need. */
struct uet_ses_match_msg {
	uint64_t src;         /**< source id used for directed receive */
	uint64_t peer;        /**< opaque peer handle for the response */
	uint64_t tag;         /**< match_bits (tagged only) */
	uint64_t header_data; /**< valid with UET_SES_MATCH_MSG_HDATA */
	uint32_t initiator;   /**< initiator field of the SES standard header */
	uint32_t total_len;   /**< request_length: whole message */
	/**
	 * Bytes an unexpected record must be able to hold: the whole message
	 * (eager), the eager part (rendezvous) or 0 (deferrable, deferred).
	 * Must not exceed total_len.
	 */
	uint32_t hold_len;
	uint16_t message_id;  /**< SES message id (response correlation) */
	uint8_t kind;         /**< enum uet_ses_match_kind */
	uint8_t flags;        /**< UET_SES_MATCH_MSG_* */
	struct uet_wire_ses_rdv_ext rdv; /**< rendezvous only, else zero */
};

/** A message start (SOM) presented to the engine. */
struct uet_ses_match_arrival {
	struct uet_ses_match_msg msg;
	const void *data;  /**< eager bytes of this packet, message offset 0 */
	uint32_t data_len; /**< <= msg.hold_len */
};

/** Receive flags (struct uet_ses_match_recv::flags). */
#define UET_SES_MATCH_RECV_TAGGED  0x01u /**< fi_trecv: tag/ignore valid */
#define UET_SES_MATCH_RECV_MULTI   0x02u /**< FI_MULTI_RECV buffer */
#define UET_SES_MATCH_RECV_PEEK    0x04u /**< FI_PEEK: report, keep */
#define UET_SES_MATCH_RECV_CLAIM   0x08u /**< FI_CLAIM (see post) */
#define UET_SES_MATCH_RECV_DISCARD 0x10u /**< FI_DISCARD with PEEK/CLAIM */

/** A receive as posted by the application. */
struct uet_ses_match_recv {
	uint64_t context;   /**< cookie: completion context, cancel key */
	void *buf;          /**< opaque to the engine, returned on match */
	uint64_t len;       /**< capacity in bytes (sum of the iov) */
	uint64_t tag;       /**< tagged only */
	uint64_t ignore;    /**< tagged only: bits that need not match */
	uint64_t src;       /**< source id or UET_SES_MATCH_SRC_ANY */
	uint64_t min_free;  /**< MULTI: release when free space < min_free */
	uint32_t iov_count; /**< opaque to the engine */
	uint32_t flags;     /**< UET_SES_MATCH_RECV_* */
};

/** What happened. */
enum uet_ses_match_verdict {
	/** Arrival matched a posted receive (list EXPECTED). */
	UET_SES_MATCH_EXPECTED = 0,
	/** Arrival recorded as unexpected; handle in @c unexp. */
	UET_SES_MATCH_STORED,
	/** Arrival: no receive and no room; answer NO_MATCH / flow-control. */
	UET_SES_MATCH_NO_ROOM,
	/** Post: no unexpected message matched; the receive is queued. */
	UET_SES_MATCH_POSTED,
	/** Post matched an unexpected message (list OVERFLOW), handed over. */
	UET_SES_MATCH_UNEXPECTED,
	/** Peek found a message (kept, or claimed with CLAIM). */
	UET_SES_MATCH_PEEKED,
	/** Peek found nothing (FI_ENOMSG). */
	UET_SES_MATCH_NOT_FOUND,
	/** The matched unexpected message was dropped (FI_DISCARD). */
	UET_SES_MATCH_DISCARDED,
};

/** Result flags. */
#define UET_SES_MATCH_F_TRUNC    0x01u /**< message longer than the space */
#define UET_SES_MATCH_F_RELEASED 0x02u /**< multi-recv buffer released */
#define UET_SES_MATCH_F_MORE     0x04u /**< call uet_ses_match_post_more() */

/** Outcome of an arrival or a post. */
struct uet_ses_match_result {
	enum uet_ses_match_verdict verdict;
	uint32_t flags;     /**< UET_SES_MATCH_F_* */
	uint64_t context;   /**< matched receive's cookie */
	void *buf;          /**< matched receive's buffer */
	uint32_t iov_count; /**< matched receive's iov count */
	uint64_t offset;    /**< where in @c buf the message starts (multi) */
	/** Bytes to deliver: min(total_len, space); less means F_TRUNC. */
	uint64_t len;
	/**
	 * STORED: handle for uet_ses_match_unexp_write() of continuation
	 * packets. UNEXPECTED: handle to copy the held bytes from and then
	 * release. Else UET_SES_MATCH_NONE.
	 */
	uint32_t unexp;
	uint32_t held;      /**< eager bytes written so far into the record */
	struct uet_ses_match_msg msg; /**< header of the message */
};

/**
 * A message start arrived: match it against the posted receives of its
 * kind (tagged or untagged) in posting order, else record it unexpected.
 * A matching multi-recv buffer hands out a slice and stays posted until
 * its free space drops below min_free (then F_RELEASED).
 * @return
 *   0 (see r->verdict), or -EINVAL (bad arrival: hold_len > total_len,
 *   data_len > hold_len, src == UET_SES_MATCH_SRC_ANY).
 */
int uet_ses_match_arrival(struct uet_ses_match *m,
			  const struct uet_ses_match_arrival *a,
			  struct uet_ses_match_result *r);

/**
 * A message that can only land in a posted receive (tagged atomics: the
 * result is due at once): like uet_ses_match_arrival(), but nothing is
 * recorded when no receive accepts it.
 * @return
 *   0 (verdict EXPECTED or NOT_FOUND), or -EINVAL as for an arrival.
 */
int uet_ses_match_arrival_posted(struct uet_ses_match *m,
				 const struct uet_ses_match_arrival *a,
				 struct uet_ses_match_result *r);

/**
 * Post a receive. It first searches the unexpected messages in arrival
 * order; a match is handed over (UNEXPECTED: copy the held bytes with
 * uet_ses_match_unexp_copy(), or start the rendezvous read / RTR, then
 * uet_ses_match_unexp_release()). Otherwise the receive is queued.
 *
 * Modes: PEEK reports the first match without consuming it (PEEKED or
 * NOT_FOUND, nothing is queued); PEEK|CLAIM also reserves it for a later
 * CLAIM receive with the same context; PEEK|DISCARD drops it. A CLAIM
 * receive (without PEEK) consumes the message claimed by its context, or
 * drops it with DISCARD.
 *
 * A MULTI buffer that matched an unexpected message and still has room
 * returns F_MORE: call uet_ses_match_post_more() until F_MORE is clear
 * (no other post is accepted meanwhile).
 * @return
 *   0 (see r->verdict), -EINVAL (bad flags), -EAGAIN (posted pool full),
 *   -ENOENT (CLAIM: nothing claimed by this context), -EBUSY (a multi-recv
 *   post is pending).
 */
int uet_ses_match_post(struct uet_ses_match *m,
		       const struct uet_ses_match_recv *p,
		       struct uet_ses_match_result *r);

/**
 * Continue a multi-recv post that returned F_MORE.
 * @return
 *   0 (see r->verdict), or -ENOENT (nothing pending).
 */
int uet_ses_match_post_more(struct uet_ses_match *m,
			    struct uet_ses_match_result *r);

/**
 * Cancel the posted receive (or pending multi-recv) with @p context.
 * @return
 *   0 (found and removed: complete it with FI_ECANCELED), or -ENOENT.
 */
int uet_ses_match_cancel(struct uet_ses_match *m, uint64_t context);

/**
 * Write continuation bytes of a stored (or handed-over) unexpected
 * message at @p offset of its held region.
 * @return
 *   0, -ENOENT (bad handle), -EINVAL (beyond hold_len).
 */
int uet_ses_match_unexp_write(struct uet_ses_match *m, uint32_t h,
			      uint32_t offset, const void *data,
			      uint32_t len);

/**
 * Copy up to @p len held bytes from @p offset of a handed-over (or still
 * stored) unexpected message into @p dst.
 * @return
 *   Bytes copied (0 for a bad handle or an offset past hold_len).
 */
uint32_t uet_ses_match_unexp_copy(const struct uet_ses_match *m, uint32_t h,
				  uint32_t offset, void *dst, uint32_t len);

/**
 * Release a handed-over unexpected message (after UNEXPECTED).
 * @return
 *   0, or -ENOENT (not a handed-over handle).
 */
int uet_ses_match_unexp_release(struct uet_ses_match *m, uint32_t h);

/**
 * Drop a stored unexpected message that will never be complete (its
 * sender gave up before its last packet): no receive matches it any more,
 * its held bytes and record go back to their pools. For a message still
 * matchable (STORED) or claimed; a claiming context's CLAIM then finds
 * nothing.
 * @return
 *   0, or -ENOENT (not a stored or claimed handle).
 */
int uet_ses_match_unexp_abandon(struct uet_ses_match *m, uint32_t h);

/** Counters; written only by the owner lcore. */
struct uet_ses_match_stats {
	uint64_t posted;             /**< receives queued */
	uint64_t matched_expected;   /**< arrivals matched a posted receive */
	uint64_t matched_unexpected; /**< posts matched an unexpected msg */
	uint64_t unexp_stored;       /**< arrivals recorded unexpected */
	uint64_t unexp_rejected;     /**< arrivals refused: no room */
	uint64_t truncations;        /**< deliveries shorter than the msg */
	uint64_t cancels;            /**< receives cancelled */
	uint64_t peeks;              /**< peek requests */
	uint64_t claims;             /**< messages claimed */
	uint64_t discards;           /**< messages discarded */
	uint64_t multi_released;     /**< multi-recv buffers released */
	uint64_t bad_requests;       /**< calls refused with -EINVAL */
};

/** Counters of a context. */
const struct uet_ses_match_stats *
uet_ses_match_stats_get(const struct uet_ses_match *m);

/** Pool occupancy, for leak checks and telemetry. */
struct uet_ses_match_pool_info {
	uint32_t posted_free;
	uint32_t posted_total;
	uint32_t unexp_free;
	uint32_t unexp_total;
	uint32_t chunks_free;
	uint32_t chunks_total;
};

/** Fill @p info with the current pool occupancy. */
void uet_ses_match_pool_info(const struct uet_ses_match *m,
			     struct uet_ses_match_pool_info *info);

#ifdef __cplusplus
}
#endif

#endif /* UET_SES_MATCH_H */
