/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_CHAN_H
#define UET_CHAN_H

/**
 * @file
 * Front-end channels: the rings between an application thread (the
 * libfabric provider) and the engine lcore that serves an endpoint.
 *
 * One channel per endpoint holds three rte_rings of fixed-size entries
 * (copied by value: uet_chan_ring_put() / uet_chan_ring_get() below):
 *  - SQ, submission: struct uet_chan_sqe, application -> engine;
 *  - RQ, receive posts: struct uet_chan_rqe, application -> engine;
 *  - CQ, completions: struct uet_chan_cqe, engine -> application.
 *
 * Ring sizes are powers of two (a ring of size N holds N - 1 entries).
 * A full ring is backpressure: the post functions return -EAGAIN and the
 * caller retries after draining its CQ; nothing blocks and nothing is
 * allocated after uet_chan_create(). Layouts are fixed and checked with
 * static asserts; docs/CHANNELS.md describes every field.
 *
 * Destinations and sources travel as values or as handles into a table
 * the engine owns, never as pointers the engine would dereference; local
 * buffers (addr, an IOV array, compare, result) are virtual addresses of
 * the application's process, or, on a windowed channel (a client of the
 * uet-engine service, docs/SERVICE.md), offsets into its data window.
 */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <rte_atomic.h>
#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>
#include <rte_ring_peek_zc.h>

#include <uet/uet_engine.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Submission opcodes (struct uet_chan_sqe.op). */
enum uet_chan_op {
	UET_CHAN_OP_NOP = 0,        /**< completes at once (ring test) */
	UET_CHAN_OP_SEND = 1,       /**< untagged message */
	UET_CHAN_OP_TSEND = 2,      /**< tagged message (tag) */
	UET_CHAN_OP_WRITE = 3,      /**< RMA write (rkey, roffset) */
	UET_CHAN_OP_READ = 4,       /**< RMA read into buf */
	UET_CHAN_OP_ATOMIC = 5,     /**< atomic, no result */
	UET_CHAN_OP_FETCH_ATOMIC = 6, /**< atomic, old value into result */
	UET_CHAN_OP_CSWAP = 7,      /**< compare-and-swap, old value into result */
	UET_CHAN_OP_DGRAM_SEND = 8, /**< datagram (UUD) */
	UET_CHAN_OP__COUNT
};

/** Receive-post opcodes (struct uet_chan_rqe.op). */
enum uet_chan_rq_op {
	UET_CHAN_RQ_RECV = 1,  /**< untagged receive buffer */
	UET_CHAN_RQ_TRECV = 2, /**< tagged receive (tag, ignore) */
	UET_CHAN_RQ_CANCEL = 3, /**< cancel the post with this context */
};

/* SQE/RQE flags. */
#define UET_CHAN_F_COMPLETION 0x0001u /**< generate a CQE on success */
#define UET_CHAN_F_IMM        0x0002u /**< imm_data valid (remote CQ data) */
#define UET_CHAN_F_IOV        0x0004u /**< addr points to uet_chan_iov[len] */
#define UET_CHAN_F_INJECT     0x0008u /**< buffer reusable on return (copied) */
#define UET_CHAN_F_DELIVERY_COMPLETE 0x0010u /**< complete when placed */
#define UET_CHAN_F_FENCE      0x0020u /**< wait for earlier operations */
#define UET_CHAN_F_MULTI_RECV 0x0040u /**< RQ: buffer holds many messages */
#define UET_CHAN_F_SRC_FILTER 0x0080u /**< RQ: only from src */
/** RQ: FI_PEEK: complete with the first matching unexpected message's
 * length, tag, source and data (nothing copied), or -ENOMSG */
#define UET_CHAN_F_PEEK       0x0100u
/** RQ: FI_CLAIM: with PEEK, reserve the message for this context; alone,
 * take the message reserved by a PEEK | CLAIM post of the same context */
#define UET_CHAN_F_CLAIM      0x0200u
/** RQ: FI_DISCARD (with PEEK or CLAIM): drop the message, len 0 */
#define UET_CHAN_F_DISCARD    0x0400u
/** SQ: SEND/TSEND by rendezvous (HPC): eager part, then the target reads
 * the rest from the source buffer */
#define UET_CHAN_F_RENDEZVOUS 0x0800u
/** SQ: SEND/TSEND as a deferrable send (AI Full): a target without a
 * matching receive defers it and asks for it again (DEFERRABLE_RTR) when
 * one is posted, instead of buffering the data */
#define UET_CHAN_F_DEFERRABLE 0x1000u

/* SQE delivery modes (struct uet_chan_sqe.mode). */
#define UET_CHAN_MODE_RUD  0u /**< reliable unordered (default) */
#define UET_CHAN_MODE_ROD  1u /**< reliable ordered (FI_ORDER_SAS...) */
#define UET_CHAN_MODE_RUDI 2u /**< RUD, RUDI allowed for idempotent ops */

/** Scatter-gather element (UET_CHAN_F_IOV). */
struct uet_chan_iov {
	uint64_t addr; /**< virtual address */
	uint64_t len;  /**< bytes */
};

/** Submission entry: 128 bytes, application -> engine. */
struct uet_chan_sqe {
	uint8_t op;          /**< enum uet_chan_op */
	uint8_t atomic_op;   /**< ATOMIC/FETCH/CSWAP: SES atomic opcode */
	uint8_t atomic_dt;   /**< ATOMIC/FETCH/CSWAP: SES datatype */
	uint8_t rsvd0;       /**< zero */
	uint32_t flags;      /**< UET_CHAN_F_* */
	uint64_t context;    /**< returned unchanged in the CQE */
	uint64_t addr;       /**< local buffer, or uet_chan_iov array (IOV) */
	uint64_t len;        /**< bytes, or iov count (IOV) */
	uint64_t dest;       /**< peer handle (uet_ses_ulp.h PEER_ADD) */
	uint64_t tag;        /**< TSEND: match bits */
	uint64_t rkey;       /**< WRITE/READ/atomics: remote memory key */
	uint64_t roffset;    /**< WRITE/READ/atomics: offset in that region */
	uint64_t imm_data;   /**< remote CQ data (UET_CHAN_F_IMM) */
	uint64_t compare;    /**< CSWAP: address of the compare operand */
	uint64_t result;     /**< FETCH/CSWAP/READ-small: result address */
	uint64_t local_desc; /**< local MR descriptor (0: none) */
	uint32_t job;        /**< JobID (auth key), 24 bits */
	uint8_t tc;          /**< traffic class */
	uint8_t mode;        /**< UET_CHAN_MODE_*: delivery mode */
	uint8_t rsvd1[2];    /**< zero */
	uint64_t rsvd2[3];   /**< zero */
};

/** Receive-post entry: 64 bytes, application -> engine. */
struct uet_chan_rqe {
	uint8_t op;       /**< enum uet_chan_rq_op */
	uint8_t rsvd0[3]; /**< zero */
	uint32_t flags;   /**< UET_CHAN_F_* */
	uint64_t context; /**< returned unchanged in the CQE */
	uint64_t addr;    /**< buffer, or uet_chan_iov array (IOV) */
	uint64_t len;     /**< bytes, or iov count */
	uint64_t tag;     /**< TRECV: tag */
	uint64_t ignore;  /**< TRECV: bits of tag ignored when matching */
	uint64_t src;     /**< SRC_FILTER: peer handle of the source */
	uint64_t local_desc; /**< local MR descriptor (0: none) */
};

/* CQE flags. */
#define UET_CHAN_CQ_SEND   0x0001u /**< completion of an SQE */
#define UET_CHAN_CQ_RECV   0x0002u /**< completion of an RQE */
#define UET_CHAN_CQ_TAGGED 0x0004u /**< tag valid */
#define UET_CHAN_CQ_IMM    0x0008u /**< data holds remote CQ data */
#define UET_CHAN_CQ_SRC    0x0010u /**< src valid */
#define UET_CHAN_CQ_TRUNC  0x0020u /**< message longer than the buffer */
#define UET_CHAN_CQ_MULTI_RECV_DONE 0x0040u /**< buffer released */
/** unsolicited (context 0): a peer's WRITE / READ / atomic (op) was
 * served on this process's memory (EP_ADD with remote_events) */
#define UET_CHAN_CQ_REMOTE 0x0080u

/** Completion entry: 64 bytes, engine -> application. */
struct uet_chan_cqe {
	uint64_t context; /**< of the SQE/RQE */
	int32_t status;   /**< 0 or -errno (-ETIMEDOUT, -ECONNRESET, ...) */
	uint32_t flags;   /**< UET_CHAN_CQ_* */
	uint64_t len;     /**< bytes transferred/received */
	uint64_t data;    /**< remote CQ data (UET_CHAN_CQ_IMM) */
	/** tag of a tagged receive; of an untagged one, the offset in the
	 * posted buffer where the message starts (multi-recv) */
	uint64_t tag;
	uint64_t src;     /**< initiator id of the source (a value) */
	uint32_t prov_errno; /**< UET NACK/return code when status != 0 */
	uint8_t op;       /**< enum uet_chan_op or uet_chan_rq_op */
	uint8_t rsvd0[3]; /**< zero */
	uint64_t olen;    /**< bytes dropped when TRUNC */
};

_Static_assert(sizeof(struct uet_chan_sqe) == 128, "sqe layout");
_Static_assert(sizeof(struct uet_chan_rqe) == 64, "rqe layout");
_Static_assert(sizeof(struct uet_chan_cqe) == 64, "cqe layout");

/** Largest number of JobID ranges of a channel's job set. */
#define UET_CHAN_JOB_RANGES_MAX 16u

/**
 * The jobs a channel's SQEs may name (a service client's grant): an SQE
 * whose job is in no range completes with -EPERM. Owned by the caller,
 * read by the engine while the channel is attached.
 */
struct uet_chan_jobs {
	uint32_t nb; /**< valid ranges */
	uint32_t rsvd;
	struct {
		uint32_t first; /**< inclusive */
		uint32_t last;  /**< inclusive */
	} r[UET_CHAN_JOB_RANGES_MAX];
};

/**
 * A channel: three rings. Fields are read-only after creation, except
 * `waker` and `lcore`, which uet_engine_chan_attach()/detach() set, and
 * the engine-side cursors of a shared channel.
 */
struct uet_chan {
	struct rte_ring *sq; /**< struct uet_chan_sqe */
	struct rte_ring *rq; /**< struct uet_chan_rqe */
	struct rte_ring *cq; /**< struct uet_chan_cqe */
	uint64_t user;       /**< owner cookie (endpoint), free for the caller */
	char name[32];       /**< as given to uet_chan_create() */
	unsigned int flags;  /**< UET_CHAN_* creation flags */
	/** the serving context's wake-up flag; NULL when its lcore never
	 * sleeps (INLINE progress, busy-polling AUTO) or not attached */
	struct uet_engine_waker *waker;
	/** the serving context (in-process channels: uet_chan_wake() runs
	 * or kicks it); NULL when not attached in this process */
	struct uet_engine_lcore *lcore;
	/** -1, or an eventfd that uet_chan_wake() writes instead (a client
	 * of the uet-engine service: the context runs in another process) */
	int wake_fd;
	/**
	 * Data window (uet-engine service, engine side): when win_len is not
	 * 0, every address of an SQE/RQE (addr, F_IOV arrays and entries,
	 * compare, result) is an offset into [win_base, win_base + win_len),
	 * checked and translated by the engine (-EFAULT when outside), and
	 * local_desc is ignored. 0: addresses are virtual addresses.
	 */
	uint8_t *win_base;
	uint64_t win_len;
	/** NULL: any job; else the only jobs SQEs may use (-EPERM) */
	const struct uet_chan_jobs *jobs;
	/** UET_CHAN_SHARED, engine side: private ring cursors (see there) */
	uint32_t sq_cons;
	uint32_t rq_cons;
	uint32_t cq_prod;
	uint32_t sq_mask; /**< ring size - 1, as made (every channel) */
	uint32_t rq_mask;
	uint32_t cq_mask;
	/** engine side: its CQEs waiting for room in its CQ */
	uint32_t cq_pending;
	/** engine side: the engine's op records its descriptors hold:
	 * [0] SQEs, [1] RQEs */
	uint32_t ops_out[2];
};

/** Channel creation flags. */
#define UET_CHAN_MP_SUBMIT 0x1u /**< several application threads post */
#define UET_CHAN_MC_COMPLETE 0x2u /**< several application threads poll */
/**
 * A post to the channel of a sleeping context runs that context's loop
 * on the posting thread (when no other thread does), instead of waking
 * the lcore: no thread hand-off on the path of a message. Without it a
 * post wakes the lcore (an eventfd write).
 */
#define UET_CHAN_POSTER_PROGRESS 0x4u
/**
 * The rings live in memory another process can write (a uet-engine
 * service client's region): the engine side never trusts the ring
 * headers there. It keeps its own consumer (SQ, RQ) and producer (CQ)
 * cursors and uses the sizes the channel was made with, so a peer that
 * scribbles on a ring header gets garbage entries (each one is checked)
 * but never an access outside the ring. uet_chan_init_mem() only.
 */
#define UET_CHAN_SHARED 0x8u

/**
 * Create a channel. Needs an initialised EAL.
 * @param name
 *   Unique, at most 20 characters (ring names get a 3-char suffix).
 * @param sq_size, rq_size, cq_size
 *   Ring sizes, powers of two >= 2 (usable entries are size - 1).
 * @param socket
 *   NUMA socket of the rings, or SOCKET_ID_ANY.
 * @param flags
 *   UET_CHAN_MP_SUBMIT, UET_CHAN_MC_COMPLETE, UET_CHAN_POSTER_PROGRESS.
 *   The engine side is always single consumer (SQ/RQ) and single
 *   producer (CQ).
 * @return
 *   The channel, or NULL with rte_errno: EINVAL (size not a power of two,
 *   name too long), EEXIST (name in use), ENOMEM.
 */
struct uet_chan *uet_chan_create(const char *name, unsigned int sq_size,
				 unsigned int rq_size, unsigned int cq_size,
				 int socket, unsigned int flags);

/** Free a channel and its rings; NULL is a no-op. Detach it first. */
void uet_chan_free(struct uet_chan *c);

/**
 * Make @p c visible to engine context @p lcore_idx
 * (uet_engine_lcore_chan()), with the context's wake-up flag. Allowed
 * while running (published with release ordering).
 * @return 0, -EINVAL, -ENOSPC (UET_ENGINE_CHANS_MAX per context).
 */
int uet_engine_chan_attach(struct uet_engine *e, unsigned int lcore_idx,
			   struct uet_chan *c);

/**
 * Remove @p c from its context. Only while stopped (INLINE or after
 * uet_engine_stop()).
 * @return 0, -ENOENT, -EBUSY (running).
 */
int uet_engine_chan_detach(struct uet_engine *e, struct uet_chan *c);

/** Number of channels attached to context @p lc (acquire load). */
unsigned int uet_engine_lcore_nb_chans(const struct uet_engine_lcore *lc);

/** Channel @p i of context @p lc, or NULL. Its thread only. */
struct uet_chan *uet_engine_lcore_chan(struct uet_engine_lcore *lc,
				       unsigned int i);

/**
 * Memory for the three rings of a channel laid out back to back (SQ, RQ,
 * CQ, each cache-line aligned), for uet_chan_init_mem().
 * @param off
 *   NULL, or out: offsets of the SQ, RQ and CQ ring from the start.
 * @return
 *   Bytes, or 0 when a size is not a power of two in 2 .. 2^24.
 */
size_t uet_chan_mem_size(unsigned int sq_size, unsigned int rq_size,
			 unsigned int cq_size, size_t off[3]);

/**
 * Make a channel whose rings are initialised in caller memory @p mem
 * (rte_ring_init(): position independent, no EAL, no rte_malloc), as
 * uet_chan_mem_size() lays them out. The uet-engine service does this in
 * a client's shared region, then another process uses the same rings
 * through uet_chan_map_mem().
 * @param c
 *   Filled (wake_fd -1, no window, no job set); the caller owns it.
 * @param mem, mem_len
 *   Cache-line aligned, at least uet_chan_mem_size() bytes.
 * @param flags
 *   UET_CHAN_MP_SUBMIT, UET_CHAN_MC_COMPLETE, UET_CHAN_SHARED.
 * @return 0, or -EINVAL (sizes, flags, name, alignment, mem_len).
 */
int uet_chan_init_mem(struct uet_chan *c, const char *name, void *mem,
		      size_t mem_len, unsigned int sq_size,
		      unsigned int rq_size, unsigned int cq_size,
		      unsigned int flags);

/**
 * Fill @p c over rings another process initialised with
 * uet_chan_init_mem() (the client of the uet-engine service: sq, rq, cq
 * are its mapping of the region plus the offsets the service gave).
 * Checks each ring's header against the expected size (a mismatch is
 * -EINVAL). No EAL needed. wake_fd and waker are the caller's to set.
 * @param flags
 *   UET_CHAN_MP_SUBMIT, UET_CHAN_MC_COMPLETE (as the rings were made).
 * @return 0 or -EINVAL.
 */
int uet_chan_map_mem(struct uet_chan *c, const char *name, void *sq,
		     void *rq, void *cq, unsigned int sq_size,
		     unsigned int rq_size, unsigned int cq_size,
		     unsigned int flags);

/* UET_CHAN_SHARED, engine side (pmd/chan/chan.c). */
unsigned int uet_chan_sq_take_shared(struct uet_chan *c,
				     struct uet_chan_sqe *e, unsigned int n);
unsigned int uet_chan_rq_take_shared(struct uet_chan *c,
				     struct uet_chan_rqe *e, unsigned int n);
int uet_chan_cq_push_shared(struct uet_chan *c,
			    const struct uet_chan_cqe *e);
unsigned int uet_chan_cq_free_count_shared(const struct uet_chan *c);
unsigned int uet_chan_sq_peek_shared(struct uet_chan *c,
				     const struct uet_chan_sqe **e,
				     struct uet_chan_sqe *tmp, unsigned int n);
unsigned int uet_chan_rq_peek_shared(struct uet_chan *c,
				     const struct uet_chan_rqe **e,
				     struct uet_chan_rqe *tmp, unsigned int n);
void uet_chan_sq_done_shared(struct uet_chan *c, unsigned int n);
void uet_chan_rq_done_shared(struct uet_chan *c, unsigned int n);
unsigned int uet_chan_cq_reserve_shared(struct uet_chan *c,
					struct uet_chan_cqe **e,
					unsigned int n);
void uet_chan_cq_commit_shared(struct uet_chan *c, unsigned int n);

/**
 * Slow path of a post to a channel whose context sleeps: with a wake_fd,
 * write it (the context runs in the uet-engine service); else run its
 * loop on this thread (UET_CHAN_POSTER_PROGRESS, when no other thread
 * holds it) or wake its lcore. Engine library (pmd/core/sleep.c).
 */
void uet_chan_wake(struct uet_chan *c);

/**
 * After an entry was posted: when the serving lcore sleeps, wake it (or
 * progress, UET_CHAN_POSTER_PROGRESS). A fence and a load of a flag when
 * the lcore is awake. The lcore sets the flag before it looks at the
 * rings a last time, so one of the two sees the other (no lost wake-up).
 */
static inline void
uet_chan_notify(struct uet_chan *c)
{
	struct uet_engine_waker *w = __atomic_load_n(&c->waker,
						   __ATOMIC_ACQUIRE);

	if (w == NULL)
		return;
	rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (unlikely(__atomic_load_n(&w->sleeping, __ATOMIC_RELAXED) != 0))
		uet_chan_wake(c);
}

/*
 * Entries copied into and out of a ring. rte_ring's elem API moves an
 * entry four bytes at a time (a 128-byte SQE is 32 loads and 32 stores
 * in a loop); a ring with one producer (or one consumer) is written (or
 * read) in place instead (rte_ring_peek_zc.h), one memcpy per contiguous
 * part, which the compiler turns into a few vector moves for one entry.
 * A multi-producer or multi-consumer ring (UET_CHAN_MP_SUBMIT,
 * UET_CHAN_MC_COMPLETE) has no in-place API and keeps the elem API.
 */

/* Copy between @p e and a burst of @p zcd (@p n entries, may wrap). */
static inline void
uet_chan_zc_copy(const struct rte_ring_zc_data *zcd, void *e, size_t esize,
		 unsigned int n, bool to_ring)
{
	unsigned int n1 = RTE_MIN(n, zcd->n1);
	uint8_t *p = (uint8_t *)e;

	if (to_ring) {
		memcpy(zcd->ptr1, p, (size_t)n1 * esize);
		if (n > n1)
			memcpy(zcd->ptr2, p + (size_t)n1 * esize,
			       (size_t)(n - n1) * esize);
	} else {
		memcpy(p, zcd->ptr1, (size_t)n1 * esize);
		if (n > n1)
			memcpy(p + (size_t)n1 * esize, zcd->ptr2,
			       (size_t)(n - n1) * esize);
	}
}

/* One entry into @p r. @return 0, or -EAGAIN (full). */
static inline int
uet_chan_ring_put1(struct rte_ring *r, const void *e, size_t esize)
{
	struct rte_ring_zc_data zcd;

	if (r->prod.sync_type != RTE_RING_SYNC_ST)
		/* the elem API takes a non-const table; it only reads it */
		return rte_ring_enqueue_elem(r, (void *)(uintptr_t)e,
					     (unsigned int)esize) == 0 ?
		       0 : -EAGAIN;
	if (rte_ring_enqueue_zc_bulk_elem_start(r, (unsigned int)esize, 1,
						&zcd, NULL) == 0)
		return -EAGAIN;
	/* one entry never wraps: all of it is at ptr1 */
	memcpy(zcd.ptr1, e, esize);
	rte_ring_enqueue_zc_elem_finish(r, 1);
	return 0;
}

/* Up to @p n entries into @p r, in order. @return the number put. */
static inline unsigned int
uet_chan_ring_put(struct rte_ring *r, const void *e, size_t esize,
		  unsigned int n)
{
	struct rte_ring_zc_data zcd;

	if (r->prod.sync_type != RTE_RING_SYNC_ST)
		return rte_ring_enqueue_burst_elem(r, (void *)(uintptr_t)e,
						   (unsigned int)esize, n,
						   NULL);
	n = rte_ring_enqueue_zc_burst_elem_start(r, (unsigned int)esize, n,
						 &zcd, NULL);
	if (n == 0)
		return 0;
	uet_chan_zc_copy(&zcd, (void *)(uintptr_t)e, esize, n, true);
	rte_ring_enqueue_zc_elem_finish(r, n);
	return n;
}

/* Up to @p n entries out of @p r, in order. @return the number taken. */
static inline unsigned int
uet_chan_ring_get(struct rte_ring *r, void *e, size_t esize, unsigned int n)
{
	struct rte_ring_zc_data zcd;

	if (r->cons.sync_type != RTE_RING_SYNC_ST)
		return rte_ring_dequeue_burst_elem(r, e, (unsigned int)esize,
						   n, NULL);
	n = rte_ring_dequeue_zc_burst_elem_start(r, (unsigned int)esize, n,
						 &zcd, NULL);
	if (n == 0)
		return 0;
	uet_chan_zc_copy(&zcd, e, esize, n, false);
	rte_ring_dequeue_zc_elem_finish(r, n);
	return n;
}

/**
 * Post one submission (and wake a sleeping lcore, uet_chan_notify()).
 * @return 0, or -EAGAIN (SQ full: drain the CQ and retry).
 */
static inline int
uet_chan_sq_post(struct uet_chan *c, const struct uet_chan_sqe *e)
{
	if (uet_chan_ring_put1(c->sq, e, sizeof(*e)) != 0)
		return -EAGAIN;
	uet_chan_notify(c);
	return 0;
}

/**
 * Post one receive buffer (and wake a sleeping lcore).
 * @return 0, or -EAGAIN (RQ full).
 */
static inline int
uet_chan_rq_post(struct uet_chan *c, const struct uet_chan_rqe *e)
{
	if (uet_chan_ring_put1(c->rq, e, sizeof(*e)) != 0)
		return -EAGAIN;
	uet_chan_notify(c);
	return 0;
}

/**
 * Post up to @p n submissions, in order, with one ring operation and one
 * wake-up check (uet_chan_notify()).
 * @return The number posted (the first of @p e), 0 when the SQ is full.
 */
static inline unsigned int
uet_chan_sq_post_burst(struct uet_chan *c, const struct uet_chan_sqe *e,
		       unsigned int n)
{
	n = uet_chan_ring_put(c->sq, e, sizeof(*e), n);
	if (n != 0)
		uet_chan_notify(c);
	return n;
}

/**
 * Post up to @p n receive buffers, in order, with one ring operation.
 * @return The number posted (the first of @p e), 0 when the RQ is full.
 */
static inline unsigned int
uet_chan_rq_post_burst(struct uet_chan *c, const struct uet_chan_rqe *e,
		       unsigned int n)
{
	n = uet_chan_ring_put(c->rq, e, sizeof(*e), n);
	if (n != 0)
		uet_chan_notify(c);
	return n;
}

/**
 * Read up to @p n completions (best effort).
 * @return The number read, 0 when the CQ is empty.
 */
static inline unsigned int
uet_chan_cq_poll(struct uet_chan *c, struct uet_chan_cqe *e, unsigned int n)
{
	return uet_chan_ring_get(c->cq, e, sizeof(*e), n);
}

/** Engine side: take up to @p n submissions. @return count taken. */
static inline unsigned int
uet_chan_sq_take(struct uet_chan *c, struct uet_chan_sqe *e, unsigned int n)
{
	if (unlikely(c->flags & UET_CHAN_SHARED))
		return uet_chan_sq_take_shared(c, e, n);
	return uet_chan_ring_get(c->sq, e, sizeof(*e), n);
}

/** Engine side: take up to @p n receive posts. @return count taken. */
static inline unsigned int
uet_chan_rq_take(struct uet_chan *c, struct uet_chan_rqe *e, unsigned int n)
{
	if (unlikely(c->flags & UET_CHAN_SHARED))
		return uet_chan_rq_take_shared(c, e, n);
	return uet_chan_ring_get(c->rq, e, sizeof(*e), n);
}

/**
 * Engine side: push one completion.
 * @return 0, or -EAGAIN (CQ full: keep the completion and retry later).
 */
static inline int
uet_chan_cq_push(struct uet_chan *c, const struct uet_chan_cqe *e)
{
	if (unlikely(c->flags & UET_CHAN_SHARED))
		return uet_chan_cq_push_shared(c, e);
	return uet_chan_ring_put1(c->cq, e, sizeof(*e));
}

/** Free CQ slots (engine side: complete only when there is room). */
static inline unsigned int
uet_chan_cq_free_count(const struct uet_chan *c)
{
	if (unlikely(c->flags & UET_CHAN_SHARED))
		return uet_chan_cq_free_count_shared(c);
	return rte_ring_free_count(c->cq);
}

/*
 * Engine side, in place: a burst of the ring's entries is read or
 * written where it lies (rte_ring_peek_zc.h), one ring operation per
 * burst and no copy of each 128-byte SQE or 64-byte CQE. A peek or a
 * reserve is always followed by its done or commit (of any count up to
 * what it returned, 0 included) before the same ring is used again.
 */

/* @p zcd's @p i-th entry of @p esize bytes (the burst may wrap). */
static inline void *
uet_chan_zc_at(const struct rte_ring_zc_data *zcd, unsigned int i,
	       size_t esize)
{
	if (i < zcd->n1)
		return (uint8_t *)zcd->ptr1 + (size_t)i * esize;
	return (uint8_t *)zcd->ptr2 + (size_t)(i - zcd->n1) * esize;
}

/**
 * Engine side: point @p e[0..] at up to @p n waiting SQEs without
 * taking them; uet_chan_sq_done() takes the first of them. A shared
 * channel's entries are copied into @p tmp first (at least @p n
 * entries), so that a peer writing the ring cannot change an entry
 * while it is checked; in-process ones are read in the ring.
 * @return The number of SQEs, 0 when none waits.
 */
static inline unsigned int
uet_chan_sq_peek(struct uet_chan *c, const struct uet_chan_sqe **e,
		 struct uet_chan_sqe *tmp, unsigned int n)
{
	struct rte_ring_zc_data zcd;

	if (unlikely(c->flags & UET_CHAN_SHARED))
		return uet_chan_sq_peek_shared(c, e, tmp, n);
	n = rte_ring_dequeue_zc_burst_elem_start(c->sq, sizeof(**e), n, &zcd,
						 NULL);
	for (unsigned int i = 0; i < n; i++)
		e[i] = uet_chan_zc_at(&zcd, i, sizeof(**e));
	return n;
}

/** Engine side: take the first @p n SQEs of the last peek. */
static inline void
uet_chan_sq_done(struct uet_chan *c, unsigned int n)
{
	if (unlikely(c->flags & UET_CHAN_SHARED))
		uet_chan_sq_done_shared(c, n);
	else
		rte_ring_dequeue_zc_elem_finish(c->sq, n);
}

/** Engine side: uet_chan_sq_peek() for the RQ. */
static inline unsigned int
uet_chan_rq_peek(struct uet_chan *c, const struct uet_chan_rqe **e,
		 struct uet_chan_rqe *tmp, unsigned int n)
{
	struct rte_ring_zc_data zcd;

	if (unlikely(c->flags & UET_CHAN_SHARED))
		return uet_chan_rq_peek_shared(c, e, tmp, n);
	n = rte_ring_dequeue_zc_burst_elem_start(c->rq, sizeof(**e), n, &zcd,
						 NULL);
	for (unsigned int i = 0; i < n; i++)
		e[i] = uet_chan_zc_at(&zcd, i, sizeof(**e));
	return n;
}

/** Engine side: take the first @p n RQEs of the last peek. */
static inline void
uet_chan_rq_done(struct uet_chan *c, unsigned int n)
{
	if (unlikely(c->flags & UET_CHAN_SHARED))
		uet_chan_rq_done_shared(c, n);
	else
		rte_ring_dequeue_zc_elem_finish(c->rq, n);
}

/**
 * Engine side: point @p e[0..] at up to @p n free CQ slots, to be
 * written in place; uet_chan_cq_commit() publishes the first of them.
 * @return The number of slots, 0 when the CQ is full.
 */
static inline unsigned int
uet_chan_cq_reserve(struct uet_chan *c, struct uet_chan_cqe **e,
		    unsigned int n)
{
	struct rte_ring_zc_data zcd;

	if (unlikely(c->flags & UET_CHAN_SHARED))
		return uet_chan_cq_reserve_shared(c, e, n);
	n = rte_ring_enqueue_zc_burst_elem_start(c->cq, sizeof(**e), n, &zcd,
						 NULL);
	for (unsigned int i = 0; i < n; i++)
		e[i] = uet_chan_zc_at(&zcd, i, sizeof(**e));
	return n;
}

/** Engine side: publish the first @p n CQEs of the last reserve. */
static inline void
uet_chan_cq_commit(struct uet_chan *c, unsigned int n)
{
	if (unlikely(c->flags & UET_CHAN_SHARED))
		uet_chan_cq_commit_shared(c, n);
	else
		rte_ring_enqueue_zc_elem_finish(c->cq, n);
}

#ifdef __cplusplus
}
#endif

#endif /* UET_CHAN_H */
