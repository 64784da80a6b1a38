/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_SES_ULP_H
#define UET_SES_ULP_H

/**
 * @file
 * The SES on the engine: an upper-layer protocol (uet_ulp.h) that runs one
 * struct uet_ses per engine context on top of the context's PDS, and
 * consumes the front-end channels (uet_chan.h) attached to that context.
 *
 * An engine context has its own PIDonFEP and initiator id
 * (uet_ses_ulp_params): a channel attached without EP_ADD submits as that
 * process and shares its receive context (posted / unexpected lists).
 * EP_ADD binds a channel to another process (PIDonFEP, initiator id) with
 * a receive context of its own: the SES target finds the receive context
 * by the request's PIDonFEP.
 *
 * Destinations are values the engine owns: the front end registers a peer
 * (fabric address, PIDonFEP, first RI, initiator id) with PEER_ADD and gets
 * a handle, an index into the context's peer table with a generation;
 * sqe.dest and rqe.src (UET_CHAN_F_SRC_FILTER) carry that handle, never a
 * pointer. An SQE or RQE whose handle names no registered peer (out of
 * range, never added, or removed since) completes at once with -EINVAL and
 * counts in uet_ses_ulp_stats.peer_bad. MSG requests go to RI start_ri,
 * RMA and atomics to start_ri + 1 of the peer, relative addressing with
 * the SQE's job.
 *
 * Per loop iteration (ulp poll): control requests, then completions to the
 * channel CQs (held while a CQ is full), receive posts, then submissions
 * (an SQE the SES refuses with -EAGAIN stays held, in order), then
 * uet_ses_progress(). Nothing allocates after engine creation.
 *
 * Control path (uet_ses_ulp_ctl()): job authorisation and memory
 * registration travel over a per-context request ring processed by the
 * owner lcore, so the data path takes no lock; the call returns after the
 * lcore answered (AUTO) or after the caller's progress function ran the
 * loop (INLINE).
 */

#include <stdbool.h>
#include <stdint.h>

#include <uet/uet_engine.h>
#include <uet/uet_ses.h>
#include <uet/uet_ulp.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Resource indices relative to an address's start_ri. */
#define UET_SES_ULP_RI_MSG 0 /**< send family */
#define UET_SES_ULP_RI_RMA 1 /**< WRITE/READ/atomics */
#define UET_SES_ULP_RI_RDV 2 /**< rendezvous read-back of our sources */

/** Parameters; pass as uet_proto_params.ulp_arg. */
struct uet_ses_ulp_params {
	uint16_t pid_base;     /**< context i hosts PIDonFEP pid_base + i */
	uint16_t start_ri;     /**< first RI of every context's tables */
	/** initiator id of context i (NULL: pid_base + i). */
	uint32_t (*initiator_of)(void *arg, unsigned int ctx, uint16_t pid);
	void *initiator_arg;
	uint32_t max_msgs;     /**< SES messages in flight (0: 1024) */
	uint32_t max_posted;   /**< posted receives (0: 1024) */
	uint32_t max_mrs;      /**< memory entries (0: 1024) */
	uint32_t max_jobs;     /**< authorised jobs (0: 16) */
	uint32_t max_peers;    /**< registered peers (0: 65536, at most 2^20) */
	uint32_t unexp_bytes;  /**< unexpected-data pool (0: 4 MiB) */
	/** eager bytes of a rendezvous send (UET_CHAN_F_RENDEZVOUS; capped
	 * by the SES to its first packet) */
	uint32_t rdv_eager;
	/** how the lcores reach memory entries of another process (MR_REG
	 * owner != 0), and its argument; NULL: uet_cma_fd_mem_ops (owner =
	 * a /proc/PID/mem descriptor, accessed on the lcore). A service
	 * passes uet_cma_async_mem_ops (uet_cma_worker.h): bounded. */
	const struct uet_ses_mem_ops *mem_ops;
	void *mem_arg;
};

/** The SES ULP: uet_proto_params.ulp. */
extern const struct uet_ulp_ops uet_ses_ulp_ops;

/** Control requests. */
enum uet_ses_ulp_ctl_op {
	/** authorise job (refcounted) + its RI tables: MSG, RMA and the
	 * rendezvous table (start_ri + UET_SES_ULP_RI_RDV) */
	UET_SES_ULP_JOB_ADD = 1,
	UET_SES_ULP_JOB_DEL = 2, /**< drop one reference of job */
	UET_SES_ULP_MR_REG = 3,  /**< register base/len/access -> key */
	UET_SES_ULP_MR_DEREG = 4, /**< deregister key */
	UET_SES_ULP_MR_ENABLE = 5, /**< enable key (disable it with disabled) */
	/** bind channel @c chan (before attaching it) to process @c pid with
	 * initiator id @c initiator: its SQEs send as that process, its RQEs
	 * post to that process's receive context (one per PIDonFEP, shared
	 * by the channels of one PIDonFEP); the context's own PIDonFEP is
	 * its default receive context. At most 8 PIDonFEPs per context. */
	UET_SES_ULP_EP_ADD = 6,
	/** unbind @c chan (after detaching it); the last channel of a
	 * PIDonFEP drops the unexpected messages of its receive context */
	UET_SES_ULP_EP_DEL = 7,
	/** register destination @c peer: @c handle (out) is what SQEs
	 * (dest) and source-filtered RQEs (src) name it by */
	UET_SES_ULP_PEER_ADD = 8,
	/** forget the peer of @c handle; SQEs and RQEs that still name it
	 * complete with -EINVAL (its slot returns with a new generation) */
	UET_SES_ULP_PEER_DEL = 9,
};

/** A destination, by value (UEC 1.0 relative addressing: the fabric
 * address and PIDonFEP of the target process, its first resource index,
 * and the initiator id its requests carry). */
struct uet_ses_ulp_peer {
	uint8_t fa[16];        /**< fabric address; IPv4 in bytes 0..3 */
	uint16_t pid_on_fep;   /**< 12 bits */
	uint16_t start_ri;     /**< 12 bits: MSG RI; RMA at start_ri + 1 */
	uint32_t initiator;    /**< its SES initiator id (source filters) */
};

/** One control request (filled by the caller, answered by the lcore). */
struct uet_ses_ulp_ctl {
	uint8_t op;           /**< enum uet_ses_ulp_ctl_op */
	uint32_t job;         /**< JOB_*, MR_REG: the RI tables' job */
	uintptr_t base;       /**< MR_REG */
	uint64_t len;         /**< MR_REG */
	uint32_t access;      /**< MR_REG: UET_SES_MR_* */
	/** MR_REG: the address space base/len name; 0: this process's.
	 * Another process's is the handle of uet_ses_ulp_params.mem_ops:
	 * by default a descriptor (in this process) of its /proc/PID/mem,
	 * read and written with uet_cma_fd_mem_ops (uet_cma.h), never a
	 * PID; the caller keeps it open until the key's MR_DEREG is
	 * answered. Registration reads the first byte,
	 * so an owner that cannot be reached is refused then (-ESRCH,
	 * -EBADF, -EFAULT) */
	pid_t owner;
	bool idempotent;      /**< MR_REG: I bit */
	/** MR_REG: register it disabled; MR_ENABLE: disable instead */
	bool disabled;
	uint64_t key;         /**< MR_REG: out; MR_DEREG, MR_ENABLE: in */
	/** JOB_ADD/JOB_DEL: the job's process is @c pid (else the
	 * context's own); MR_REG: register in the RMA table of {job,
	 * @c pid} */
	bool has_pid;
	/** JOB_ADD of another process than the context's: give it an RMA
	 * table of its own instead of a name of the context's, so that its
	 * memory regions are reachable through its PIDonFEP only and its
	 * keys resolve for no other process (service clients); a JOB_ADD
	 * disagreeing with the existing tables of {job, pid} is -EEXIST */
	bool own_rma;
	uint16_t pid;         /**< JOB_*, EP_ADD: PIDonFEP */
	uint32_t initiator;   /**< EP_ADD */
	/** EP_ADD: the channel gets a CQE (context 0, UET_CHAN_CQ_REMOTE)
	 * for each remote WRITE / READ / atomic served for its process */
	bool remote_events;
	/** EP_ADD: the process's profile (0: HPC); the SES enforces it for
	 * what the process sends and what is sent to it */
	enum uet_wire_profile profile;
	struct uet_chan *chan; /**< EP_ADD, EP_DEL */
	/** PEER_ADD, EP_ADD: who registers (the service: one per client;
	 * 0 for everyone in-process). A channel's descriptors name only
	 * peers of its owner (others: -EINVAL, peer_bad) */
	uint32_t owner_id;
	/** EP_ADD of a new process: the op records (SQEs and RQEs in
	 * progress) its channels may hold together on the context (0: no
	 * limit). Past it an RQE completes -ENOSPC (ops_quota) and SQEs
	 * wait in their ring for one of its operations to end. */
	uint32_t ops_max;
	struct uet_ses_ulp_peer peer; /**< PEER_ADD */
	/** PEER_ADD: out (never 0); PEER_DEL: in */
	uint64_t handle;
	int rc;               /**< out: 0 or -errno */
};

/**
 * Run one control request on context @p ctx_idx of @p e and wait for the
 * answer. With the engine not running (INLINE), @p progress (or
 * uet_engine_poll() when NULL) drives the loop meanwhile. A request the
 * lcore has not started within 5 s is cancelled: it is never applied
 * (-ETIMEDOUT, counted ctl_cancelled when the lcore drops it). One it has
 * started is answered, late if need be (an MR_DEREG waiting for READ
 * responses, a JOB_DEL / EP_DEL for withdrawn operations), for at most
 * 60 s more; past that the outcome is unknown (-EINPROGRESS).
 * After MR_DEREG returns 0 the lcore no longer resolves the key and no
 * READ response that could be rebuilt from the region is in flight (the
 * answer waits until every return-direction READ of the context was
 * acknowledged): the engine does not access the region any more.
 * @return
 *   0 (then see req->rc), -EINVAL, -ENOENT (no SES on that context),
 *   -ENOMEM, -EAGAIN (request ring full), -ETIMEDOUT (not started:
 *   cancelled, not applied), -EINPROGRESS (started, not answered: it
 *   may or may not have been applied).
 */
int uet_ses_ulp_ctl(struct uet_engine *e, unsigned int ctx_idx,
		    struct uet_ses_ulp_ctl *req, void (*progress)(void *),
		    void *arg);

/** A control request posted without waiting (uet_ses_ulp_ctl_post). */
struct uet_ses_ulp_ctl_pending;

/**
 * Post one control request to context @p ctx_idx without waiting: the
 * lcore runs it in order with the others (AUTO engines; an INLINE one
 * runs it when polled). Never cancelled: it runs, and its answer waits
 * for uet_ses_ulp_ctl_poll().
 * @return 0 (*op set), -EINVAL, -ENOENT, -ENOMEM, -EAGAIN (ring full).
 */
int uet_ses_ulp_ctl_post(struct uet_engine *e, unsigned int ctx_idx,
			 const struct uet_ses_ulp_ctl *req,
			 struct uet_ses_ulp_ctl_pending **op);

/**
 * Whether the lcore started the request of @p op (applied it, or applies
 * it: an MR_DEREG waiting for READ responses). One not started yet may
 * be held behind another request touching the same PIDonFEP, job or
 * channel (docs/ENGINE.md), and holds those after it.
 */
bool uet_ses_ulp_ctl_started(const struct uet_ses_ulp_ctl_pending *op);

/**
 * Whether the request of @p op was answered: 0 (@p req filled with the
 * answer, see req->rc; @p op freed) or -EAGAIN (not yet).
 */
int uet_ses_ulp_ctl_poll(struct uet_ses_ulp_ctl_pending *op,
			 struct uet_ses_ulp_ctl *req);

/** PIDonFEP and initiator id of context @p ctx_idx. @return 0/-ENOENT. */
int uet_ses_ulp_identity(struct uet_engine *e, unsigned int ctx_idx,
			 uint16_t *pid, uint32_t *initiator);

/** Glue counters of one context. */
struct uet_ses_ulp_stats {
	uint64_t sqe;          /**< SQEs taken */
	uint64_t sqe_held;     /**< SES -EAGAIN: SQE kept for the next turn */
	uint64_t sqe_rejected; /**< SQEs completed at once in error */
	uint64_t rqe;          /**< RQEs taken */
	uint64_t rqe_rejected; /**< RQEs completed at once in error */
	uint64_t cancel;       /**< cancels served */
	uint64_t cqe;          /**< CQEs pushed */
	uint64_t cq_wait;      /**< pushes deferred: CQ full */
	/** unsolicited completions dropped: their channel's CQ full and
	 * 256 of its completions waiting already */
	uint64_t cq_overrun;
	uint64_t ctl;          /**< control requests served */
	uint64_t dereg_waits;  /**< MR_DEREG answers held for READ responses */
	uint64_t orphan_cqe;   /**< SES completions with no op record */
	/** SQEs / RQEs naming no registered peer (completed -EINVAL) */
	uint64_t peer_bad;
	uint32_t peers;        /**< peers registered now */
	/** JOB_DEL / EP_DEL of a closed endpoint held until the SES no longer
	 * touches the memory of its operations (uet_ses_withdraw()) */
	uint64_t withdraw_waits;
	uint64_t withdraw_forced; /**< ... detached after the wait's bound */
	/** windowed channels: an address outside the data window (-EFAULT) */
	uint64_t win_bad;
	/** an SQE whose job is not in its channel's job set (-EPERM) */
	uint64_t job_bad;
	/** operations completed BAD_MKEY (a wrong key, or a right one used
	 * wrongly on a table without an oracle) */
	uint64_t key_bad;
	/** channels paused for guessing keys: more than
	 * UET_SES_ULP_KEY_BAD_BURST BAD_MKEY completions within
	 * UET_SES_ULP_KEY_BAD_WINDOW_NS; their SQ is not read for
	 * UET_SES_ULP_KEY_BAD_PAUSE_NS */
	uint64_t key_throttled;
	/** control requests whose caller timed out before the lcore
	 * started them: dropped, never applied */
	uint64_t ctl_cancelled;
	/** RQEs refused (-ENOSPC): their process held its EP_ADD ops_max
	 * op records */
	uint64_t ops_quota;
	/** zero-copy transmit (port.tx_zero_copy): frames sent with their
	 * payload by reference, and those of them a port still holds now
	 * (their messages do not complete before they are released) */
	uint64_t tx_ref;
	uint64_t tx_ref_held;
};

/** Wrong-key throttling of a channel (uet_ses_ulp_stats.key_throttled). */
#define UET_SES_ULP_KEY_BAD_BURST 32u
#define UET_SES_ULP_KEY_BAD_WINDOW_NS (100ull * 1000 * 1000)
#define UET_SES_ULP_KEY_BAD_PAUSE_NS (100ull * 1000 * 1000)

/** Glue counters, SES and match context of context @p ctx_idx. */
int uet_ses_ulp_stats_get(struct uet_engine *e, unsigned int ctx_idx,
			  struct uet_ses_ulp_stats *st,
			  const struct uet_ses **ses);

#ifdef __cplusplus
}
#endif

#endif /* UET_SES_ULP_H */
