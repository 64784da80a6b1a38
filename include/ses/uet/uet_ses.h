/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_SES_H
#define UET_SES_H

/**
 * @file
 * Semantic sublayer protocol core (UEC 1.0 SES), sans-I/O.
 *
 * One `struct uet_ses` per FEP and engine lcore, on top of one
 * `struct uet_pds` (the same lcore owns both; not thread safe). The SES
 * turns work requests into messages and messages into PDS packets
 * (initiator), and delivered PDS packets into memory accesses, matches,
 * responses and completions (target). It does no I/O and reads no clock.
 *
 * The engine glue drives it as an upper-layer protocol of the PDS:
 *  - uet_ses_submit() / uet_ses_recv_post() for each front-end descriptor;
 *  - uet_ses_progress() once per loop: hands queued fragments to
 *    uet_pds_submit() (stops at -EAGAIN, retries on the next call);
 *  - before uet_pds_rx() of a request: rx_meta.resp_expected =
 *    uet_ses_rx_resp_expected(...);
 *  - for every uet_pds_tx descriptor of kind NEW/RETX: uet_ses_build()
 *    writes the SES header and payload of the cookie ("build");
 *  - for every uet_pds_event: uet_ses_event() (DELIVER needs the bytes
 *    after the PDS header of the packet the event names: "deliver", and
 *    must reach the SES before the next PDS call so that it can be
 *    refused; DONE carries the response: "done"; PDC_DOWN fails what the
 *    SES still waits for on that PDC). The PDS must be created with
 *    uet_pds_config.pdc_events set;
 *  - uet_ses_cq_poll() to move completions to the front-end CQ.
 *
 * All memory is allocated by uet_ses_create(): fixed pools of messages,
 * target reassembly records, return-direction reads and completions.
 * Pool exhaustion is -EAGAIN at submit, a refused delivery at the target
 * (resource NACK: the initiator backs off and retries; a return code
 * such as NO_MATCH or UNDELIVERABLE where refusing is impossible), and a
 * counter; never a crash.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uet/uet_wire.h>
#include <uet/uet_pds.h>
#include <uet/uet_ses_match.h>
#include <uet/uet_ses_mr.h>

#ifdef __cplusplus
extern "C" {
#endif

struct uet_ses;

/** Work-request opcodes; the values equal enum uet_chan_op. */
enum uet_ses_wr_op {
	UET_SES_WR_NOP = 0,          /**< NO_OP to the destination */
	UET_SES_WR_SEND = 1,         /**< SEND (rendezvous/deferrable by size) */
	UET_SES_WR_TSEND = 2,        /**< TAGGED_SEND family */
	UET_SES_WR_WRITE = 3,        /**< WRITE (+ immediate data with IMM) */
	UET_SES_WR_READ = 4,         /**< READ into buf */
	UET_SES_WR_ATOMIC = 5,       /**< ATOMIC, no result */
	UET_SES_WR_FETCH_ATOMIC = 6, /**< FETCHING_ATOMIC, old value to result */
	UET_SES_WR_CSWAP = 7,        /**< FETCHING_ATOMIC, CAS form */
	UET_SES_WR_DGRAM_SEND = 8,   /**< DATAGRAM_SEND over UUD */
	UET_SES_WR_TSEND_ATOMIC = 9, /**< TSEND_ATOMIC (HPC) */
	UET_SES_WR_TSEND_FETCH_ATOMIC = 10, /**< TSEND_FETCH_ATOMIC (HPC) */
	UET_SES_WR__COUNT
};

/* Work-request flags: the low 16 bits equal UET_CHAN_F_*. */
#define UET_SES_WR_F_COMPLETION 0x0001u /**< completion on success too */
#define UET_SES_WR_F_IMM        0x0002u /**< imm_data is header data (HD) */
#define UET_SES_WR_F_DC         0x0010u /**< delivery complete (DC flag) */
#define UET_SES_WR_F_ORDERED    0x10000u /**< ROD instead of RUD */
#define UET_SES_WR_F_IDEMPOTENT 0x20000u /**< RUDI allowed (HPC, I=1 key) */
#define UET_SES_WR_F_RENDEZVOUS 0x40000u /**< force rendezvous (HPC) */
#define UET_SES_WR_F_DEFERRABLE 0x80000u /**< force deferrable (AI Full) */
#define UET_SES_WR_F_WILDCARD   0x100000u /**< peer posts wildcard recvs */
/** src_pid / initiator name the sending process (several processes per
 * instance); without it: cfg.pid_on_fep / cfg.initiator_id */
#define UET_SES_WR_F_SRC        0x200000u

/** Where a work request goes, resolved by the engine from sqe.dest. */
struct uet_ses_dest {
	struct uet_pds_fa fa;    /**< destination FA */
	uint16_t pid_on_fep;     /**< 12 bits */
	uint16_t resource_index; /**< MSG RI (sends) or RMA RI (RMA, atomics) */
	uint8_t ri_generation;   /**< MSG table or memory entry generation */
	bool relative;           /**< REL flag (UEC 1.0 SES resolution) */
};

/**
 * One work request; field for field the front end's struct uet_chan_sqe
 * (uet_chan.h) with sqe.dest resolved to @c dest and addresses as
 * pointers. @c buf and @c result must stay valid until the completion.
 */
struct uet_ses_wr {
	uint8_t op;            /**< enum uet_ses_wr_op */
	uint8_t atomic_op;     /**< enum uet_wire_amo_op */
	uint8_t atomic_dt;     /**< enum uet_wire_amo_dt */
	uint8_t tc;            /**< traffic class */
	uint32_t flags;        /**< UET_SES_WR_F_* */
	uint64_t context;      /**< returned in the completion */
	void *buf;             /**< payload / read destination / operands */
	uint64_t len;          /**< bytes */
	struct uet_ses_dest dest;
	uint64_t tag;          /**< TSEND: match bits */
	uint64_t rkey;         /**< RMA / atomics: memory key */
	uint64_t roffset;      /**< RMA / atomics: offset in the region */
	uint64_t imm_data;     /**< header data (UET_SES_WR_F_IMM) */
	const void *compare;   /**< CSWAP: compare operand (MSWAP: mask) */
	void *result;          /**< FETCH/CSWAP: old values */
	uint32_t job;          /**< JobID, 24 bits */
	uint16_t src_pid;      /**< UET_SES_WR_F_SRC: our PIDonFEP */
	uint32_t initiator;    /**< UET_SES_WR_F_SRC: our initiator id */
};

/** Completion flags; values equal UET_CHAN_CQ_*. */
#define UET_SES_CQ_SEND   0x0001u /**< completion of a work request */
#define UET_SES_CQ_RECV   0x0002u /**< completion of a posted receive */
#define UET_SES_CQ_TAGGED 0x0004u /**< tag valid */
#define UET_SES_CQ_IMM    0x0008u /**< data holds header data */
#define UET_SES_CQ_SRC    0x0010u /**< src valid */
#define UET_SES_CQ_TRUNC  0x0020u /**< message longer than the buffer */
#define UET_SES_CQ_MULTI_RECV_DONE 0x0040u /**< multi-recv buffer released */
/** cfg.remote_events: a remote WRITE / READ / atomic of a peer was
 * served here (context 0; op, len, src, pid_on_fep) */
#define UET_SES_CQ_REMOTE 0x0080u

/** One completion; field for field struct uet_chan_cqe. */
struct uet_ses_cqe {
	uint64_t context;     /**< of the work request / receive */
	int32_t status;       /**< 0 or -errno (see uet_ses_rc_errno()) */
	uint32_t flags;       /**< UET_SES_CQ_* */
	uint64_t len;         /**< bytes transferred / received */
	uint64_t data;        /**< header data (UET_SES_CQ_IMM) */
	uint64_t tag;         /**< tag of a tagged receive */
	uint64_t src;         /**< initiator id of the sender */
	uint32_t prov_errno;  /**< UET return code (enum uet_wire_ses_rc) */
	uint8_t op;           /**< enum uet_ses_wr_op, or 1/2 (recv/trecv) */
	uint64_t olen;        /**< bytes dropped when TRUNC */
	/** unsolicited completions (context 0): the PIDonFEP targeted */
	uint16_t pid_on_fep;
	/** receives: where in the posted buffer the message starts (not 0
	 * only for a multi-recv buffer's second and later messages) */
	uint64_t offset;
};

/** A receive post; field for field struct uet_chan_rqe. */
struct uet_ses_recv {
	uint8_t op;         /**< 1 RECV, 2 TRECV (enum uet_chan_rq_op) */
	uint32_t flags;     /**< UET_SES_RECV_F_* */
	uint64_t context;   /**< returned in the completion; cancel key */
	void *buf;
	uint64_t len;
	uint64_t tag;       /**< TRECV */
	uint64_t ignore;    /**< TRECV */
	uint64_t src;       /**< initiator id (UET_SES_RECV_F_SRC) */
	uint64_t min_free;  /**< multi-recv threshold */
	/** receive context of this PIDonFEP (cfg.match_of); ignored
	 * without match_of */
	uint16_t pid_on_fep;
};

#define UET_SES_RECV_F_MULTI 0x0040u /**< UET_CHAN_F_MULTI_RECV */
#define UET_SES_RECV_F_SRC   0x0080u /**< UET_CHAN_F_SRC_FILTER */
/** FI_PEEK: report the first matching unexpected message (completion
 * with its length, tag, source, header data; nothing copied) or complete
 * with -ENOMSG; nothing is queued. */
#define UET_SES_RECV_F_PEEK    0x0100u
/** FI_CLAIM: with PEEK, reserve the message for a later CLAIM receive
 * with the same context; without PEEK, take the claimed message. */
#define UET_SES_RECV_F_CLAIM   0x0200u
/** FI_DISCARD: with PEEK or CLAIM, drop the message (completion with
 * len 0); a rendezvous or deferred sender is still released. */
#define UET_SES_RECV_F_DISCARD 0x0400u

/**
 * Memory of another process (uet_ses_mr_attr.owner != 0): how the SES
 * reads and writes it; the owner value is the accessor's handle of that
 * address space. A service engine serving many client processes
 * implements it with pread() / pwrite() on a descriptor of each client's
 * /proc/PID/mem (the engine's uet_cma_fd_mem_ops, handle = descriptor);
 * tests with a fake. Entries of owner 0 never
 * go through it (plain memcpy, no indirect call).
 *
 * Both copy all @p n bytes or fail: 0, or -EFAULT (part of the range is
 * not mapped in the owner, or not writable there), -ESRCH (the owner is
 * gone), -EPERM / -EACCES (not allowed to reach it), another -errno. A
 * write that fails may have written a prefix: the SES never reports such
 * an operation as done (docs/SES.md "Memory of another process").
 * Called on the owner lcore of the SES, from uet_ses_event() and
 * uet_ses_build().
 */
struct uet_ses_mem_ops {
	/** copy [@p src, @p src + @p n) of @p owner's memory to @p dst */
	int (*read)(void *arg, pid_t owner, void *dst, uintptr_t src,
		    size_t n);
	/** copy @p n bytes at @p src to [@p dst, @p dst + @p n) of @p owner */
	int (*write)(void *arg, pid_t owner, uintptr_t dst, const void *src,
		     size_t n);
};

/** Creation parameters; uet_ses_config_default() fills every field. */
struct uet_ses_config {
	enum uet_wire_profile profile; /**< enforced at submit and at the target */
	uint32_t mtu;          /**< SES bytes per packet (header + payload) */
	uint32_t max_msgs;     /**< initiator messages in flight (<= 2^20) */
	uint32_t max_tgt_msgs; /**< target multi-packet records (<= 2^20) */
	uint32_t max_peers;    /**< message-id spaces {FA, job} */
	uint32_t cq_size;      /**< completion ring, power of 2 */
	/** SEND/TSEND longer than this use rendezvous (HPC profile only;
	 * UINT32_MAX: never unless UET_SES_WR_F_RENDEZVOUS; needs rdv_ri). */
	uint32_t rdv_threshold;
	/** Eager bytes of a rendezvous send, capped to what fits its SOM
	 * packet (mtu - 44 - 24). */
	uint32_t rdv_eager;
	uint32_t initiator_id;  /**< initiator field of our requests */
	/** PRNG seed of the first generation of every message and target
	 * record and of the first message id toward each peer. A restarted
	 * process must draw other ones than its previous incarnation did:
	 * a DEFERRABLE_RTR or a restarted send that a peer still holds for
	 * that incarnation names a restart token (generation | slot) and a
	 * message id, and drawn the same it found the new incarnation's
	 * send of the same length and restarted it into another receive.
	 * Callers set a value per process (the engine: TSC and pid, as the
	 * PDS's seed); reproducible runs set their own. */
	uint64_t seed;
	uint16_t pid_on_fep;    /**< our process: read_pid_on_fep of rendezvous */
	/** Engine context of this SES, in the top @c token_owner_bits
	 * (0..8) of the slot part of its initiator restart tokens, so that
	 * an engine can steer a DEFERRABLE_RTR that opens a PDC to the
	 * context holding the deferred send (its PIDonFEP is the target's:
	 * uet_wire_ses_token_owner()). max_msgs must fit the rest. */
	uint32_t token_owner_id;
	uint32_t token_owner_bits;
	/** Rendezvous: handle (uet_ses_ri_add()) of a relative RMA RI table
	 * of {job, pid_on_fep, rdv_resource_index} in @c mr where the SES
	 * registers each rendezvous source buffer (remote read, one key per
	 * message, revoked at completion); -1: rendezvous unavailable. */
	int rdv_ri;
	/** Rendezvous with one RI table per job: when set, called at submit
	 * with the message's job and sending PIDonFEP instead of using
	 * @c rdv_ri; returns their handle (a relative RMA table {job,
	 * pid_on_fep, rdv_resource_index} in @c mr), or -1: no rendezvous
	 * for them (the send fails UNSUPPORTED_OP). Runs on the owner
	 * lcore. */
	int (*rdv_ri_of)(void *arg, uint32_t job, uint16_t pid_on_fep);
	void *rdv_ri_arg;            /**< argument of rdv_ri_of */
	uint16_t rdv_resource_index; /**< wire index of that RI table */
	bool rudi;              /**< use RUDI for UET_SES_WR_F_IDEMPOTENT */
	/** Target: one completion (context 0, UET_SES_CQ_REMOTE) per remote
	 * WRITE (when its EOM packet is placed), READ (when served) and
	 * atomic (when executed) that succeeded; not for the read-backs of
	 * our rendezvous sends. For FI_REMOTE_READ/WRITE counters. */
	bool remote_events;
	/** A send whose target answers BAD_PID (no process of that PIDonFEP
	 * there, or not yet: a peer whose engine runs while its endpoint is
	 * set up, a client that starts before its server) goes again, whole,
	 * under a new message id, after waits that double from 1 ms to
	 * 64 ms, until this long after the first BAD_PID; then it fails with
	 * it. 0: it fails at once. Sends only (SEND, TSEND, their rendezvous
	 * and deferrable forms, not DATAGRAM_SEND): an RMA or atomic names a
	 * key its target gave, so its target is up. */
	uint64_t pid_wait_ns;
	struct uet_pds *pds;    /**< required, not owned */
	/**
	 * The engine's submission path: every request packet the SES hands
	 * over (forward fragments and return-direction read data) goes
	 * through it, so the engine checks it against the port MTU, picks
	 * its entropy value (the SES leaves uet_pds_submit.ev 0) and counts
	 * it. Returns what uet_pds_submit() returns. NULL: the SES calls
	 * uet_pds_submit() on @c pds itself with EV 0 (sans-I/O tests).
	 */
	int (*submit)(void *arg, const struct uet_pds_submit *ps,
		      uint64_t now);
	void *submit_arg;       /**< argument of submit */
	struct uet_ses_mr_table *mr; /**< target tables, not owned (may be NULL) */
	struct uet_ses_match *match; /**< receive context, not owned (may be NULL) */
	/** Several receive contexts: when set, the receive context of a
	 * PIDonFEP (a request's destination, uet_ses_recv.pid_on_fep), or
	 * NULL (sends to it fail UNSUPPORTED_OP); @c match is then unused.
	 * The result must not change while messages of it are in flight. */
	struct uet_ses_match *(*match_of)(void *arg, uint16_t pid_on_fep);
	void *match_arg;             /**< argument of match_of */
	/** Profile per process: when set, the profile of a PIDonFEP (of the
	 * sending process at submit, of the targeted one at the target; a
	 * DEFERRABLE_RTR is checked against the deferred send's process),
	 * instead of @c profile for all. */
	enum uet_wire_profile (*profile_of)(void *arg, uint16_t pid_on_fep);
	void *profile_arg;           /**< argument of profile_of */
	/** Memory entries of another process (owner != 0) are reached
	 * through these; NULL: such entries answer HOST_UNSUCCESS_CMPL. */
	const struct uet_ses_mem_ops *mem_ops;
	void *mem_arg;               /**< argument of mem_ops */
	/**
	 * Zero-copy transmit (uet_ses_build_ref()): does a frame the port
	 * has not released yet still reference the buffer of initiator
	 * message @p msg? While it does, the message does not complete (the
	 * buffer is the application's again once it has); uet_ses_progress()
	 * asks again. NULL: never (every payload was copied).
	 */
	bool (*tx_busy)(void *arg, uint32_t msg);
	void *tx_busy_arg;           /**< argument of tx_busy */
};

/** Fill @p cfg with defaults (HPC, MTU 4096, 1024 messages, ...). */
void uet_ses_config_default(struct uet_ses_config *cfg);

/**
 * Create an SES instance; all memory is allocated here.
 * @return
 *   The instance, or NULL with errno EINVAL (bad config) or ENOMEM.
 */
struct uet_ses *uet_ses_create(const struct uet_ses_config *cfg);

/** Free an instance; NULL is a no-op. Nothing is completed; the keys of
 * rendezvous sends in flight are deregistered, so free it before its MR
 * table. */
void uet_ses_free(struct uet_ses *s);

/**
 * Accept a work request. Chooses opcode, header format, delivery mode and
 * fragmentation; nothing is sent before uet_ses_progress().
 * @return
 *   0; -EINVAL (malformed request: bad op, length, atomic operands);
 *   -EOPNOTSUPP (the profile forbids the operation, or a rendezvous
 *   without cfg.rdv_ri; *@p rc, when not NULL, gets the UET code);
 *   -EMSGSIZE (longer than the profile or the format allows);
 *   -EAGAIN (message pool, peer table or rendezvous MR table full:
 *   retry later).
 */
int uet_ses_submit(struct uet_ses *s, const struct uet_ses_wr *wr,
		   enum uet_wire_ses_rc *rc);

/**
 * Hand queued fragments to the PDS, oldest message first, until the PDS
 * answers -EAGAIN. Messages are never interleaved (UEC 1.0 PDS).
 * @return
 *   Fragments submitted.
 */
uint32_t uet_ses_progress(struct uet_ses *s, uint64_t now);

/**
 * The earliest time at which uet_ses_progress() has timed work: a
 * DEFERRABLE_RTR or MSG_ERROR whose PDC failed goes again on a new PDC
 * after a wait. Work due at once returns the time of the last progress:
 * a message waiting for the port to release its buffer, or the message
 * at the head of the send queue that ends without the PDS (its PDC
 * failed in the events drained after the last progress, withdrawn,
 * detached), or that an event since the last progress may let go (a
 * DONE freed window, a PDC went). A virtual clock that jumps when nothing else happens
 * must stop here too (with uet_pds_next_deadline()).
 * @return
 *   Time in ns, or UINT64_MAX when nothing waits.
 */
uint64_t uet_ses_next_deadline(const struct uet_ses *s);

/**
 * Build the SES bytes (header, extension, payload) of a PDS transmit
 * descriptor's cookie, for a first transmission or a retransmission.
 * @param psn
 *   PSN the PDS assigned (unused by the SES header; kept for the ULP
 *   interface).
 * @return
 *   Bytes written (equal to the length given to the PDS), -ENOENT (cookie
 *   no longer known), -ENOSPC (@p cap too small).
 */
int uet_ses_build(struct uet_ses *s, uint64_t cookie, uint32_t psn,
		  uint8_t *buf, size_t cap);

/**
 * uet_ses_build(), and in @p sum the one's complement sum of the bytes
 * written (uet_wire_csum_partial() of @p buf), the payload of a request
 * summed while it is copied (one pass over it): the UDP checksum of the
 * frame then sums only the headers in front.
 */
int uet_ses_build_csum(struct uet_ses *s, uint64_t cookie, uint32_t psn,
		       uint8_t *buf, size_t cap, uint32_t *sum);

/**
 * Payload by reference (zero-copy transmit): uet_ses_build(), but a
 * request fragment carrying at least @p min_ref payload bytes of the
 * initiator's buffer gets only its SES header written into @p buf; the
 * payload that follows it on the wire is *@p ref_len bytes at *@p ref,
 * in the application's buffer, which stays valid until the message
 * completes. The caller attaches it to the frame and reports, through
 * uet_ses_config.tx_busy with *@p msg, whether a frame still holds it.
 * Anything else (short payload, READ response data, memory of another
 * process) is built as by uet_ses_build(), *@p ref_len 0.
 * @return
 *   Bytes written into @p buf (the SES header, or the whole packet when
 *   *@p ref_len is 0), or what uet_ses_build() returns on error.
 */
int uet_ses_build_ref(struct uet_ses *s, uint64_t cookie, uint8_t *buf,
		      size_t cap, uint32_t min_ref, const void **ref,
		      uint32_t *ref_len, uint32_t *msg);

/**
 * Whether a request the PDS is about to accept needs a guaranteed-delivery
 * response (uet_pds_rx_meta.resp_expected): the EOM packet of every
 * RUD/ROD request (UEC 1.0 PDS guaranteed delivery, SES responses).
 * Return-direction data and malformed headers: false.
 */
bool uet_ses_rx_resp_expected(uint8_t pds_type, uint8_t next_hdr,
			      const uint8_t *ses, uint16_t len);

/**
 * Process one PDS event. DONE: a fragment (or return-direction packet)
 * completed, @p ses / @p len ignored (the response is in the event).
 * DELIVER: @p ses / @p len are the bytes after the PDS header of the
 * delivered packet; the SES may refuse it (uet_pds_refuse()) when a
 * target resource is exhausted. PDC_DOWN: large READ data and rendezvous
 * read-backs still expected from that peer fail with the event's status.
 * PDC_CLOSED: messages still reassembled from that target PDC are dropped
 * (a bound receive completes with -ECONNRESET).
 * @return
 *   0, or -EBADMSG (malformed SES header: counted and dropped; for a
 *   request with a pending response, answered UNSUPPORTED_OP).
 */
int uet_ses_event(struct uet_ses *s, const struct uet_pds_event *ev,
		  const uint8_t *ses, uint16_t len, uint64_t now);

/**
 * uet_ses_event() for a DELIVER whose bytes are in two pieces: @p len
 * bytes at @p ses (the SES header, whole, and maybe the start of the
 * payload), then @p tail_len payload bytes at @p tail (the second segment
 * of a chained frame: a header mbuf chained to the sender's buffer,
 * [portN] tx_zero_copy). A WRITE or a send places the two pieces into
 * their destination (memory entry, posted receive, unexpected store)
 * where they are, each byte copied once (counted in rx_split); the other
 * requests, which read their payload in place (atomics, rendezvous, READ
 * data), get the pieces joined in a buffer of the SES first (rx_flat).
 * @p tail_len 0 is uet_ses_event().
 * @return
 *   As uet_ses_event(); -EBADMSG also for a header not whole in @p ses
 *   or more than 65535 bytes in all.
 */
int uet_ses_event_tail(struct uet_ses *s, const struct uet_pds_event *ev,
		       const uint8_t *ses, uint16_t len, const uint8_t *tail,
		       uint32_t tail_len, uint64_t now);

/**
 * Post a receive buffer (matching engine, UEC 1.0 SES send variants): an
 * unexpected message that matches is copied in and completed at once, its
 * rendezvous rest read from the initiator, or its deferred send restarted with
 * a DEFERRABLE_RTR. UET_SES_RECV_F_PEEK / _CLAIM / _DISCARD select the
 * FI_PEEK / FI_CLAIM / FI_DISCARD modes (each completes at once).
 * @return
 *   0, -EINVAL (bad op or flag combination), -EAGAIN (posted pool full,
 *   or no message free for a read-back / RTR), -ENOENT (CLAIM without a
 *   claimed message), -EBUSY (multi-recv pending), -ENOTSUP (no match
 *   context).
 */
int uet_ses_recv_post(struct uet_ses *s, const struct uet_ses_recv *r,
		      uint64_t now);

/**
 * Cancel a posted receive; its completion (-ECANCELED) is queued.
 * @return
 *   0 or -ENOENT.
 */
int uet_ses_recv_cancel(struct uet_ses *s, uint64_t context);

/** uet_ses_recv_cancel() in the receive context of @p pid_on_fep
 * (cfg.match_of). */
int uet_ses_recv_cancel_pid(struct uet_ses *s, uint16_t pid_on_fep,
			    uint64_t context);

/**
 * Cancel a send with @p context that is parked waiting for a
 * DEFERRABLE_RTR (UEC 1.0 SES send variants), or waiting to go again
 * after a BAD_PID answer (uet_ses_config.pid_wait_ns); its completion
 * (-ECANCELED) is queued, and a later RTR for it is answered CANCELLED.
 * Sends in any other state cannot be cancelled.
 * @return
 *   0, -ENOENT (no such parked send).
 */
int uet_ses_send_cancel(struct uet_ses *s, uint64_t context);

/**
 * Withdraw the operations of a process that goes away (an endpoint
 * closing with work requests and receives in flight): those whose
 * context @p mine selects (work requests by uet_ses_wr.context,
 * receives bound to a message by uet_ses_recv.context; a posted receive
 * not matched yet is cancelled with uet_ses_recv_cancel()). What waits
 * only for the peer completes at once with -ECANCELED (a rendezvous send
 * not being read: its key is revoked; a parked deferrable send; a large
 * READ waiting for data, which is dropped when it comes); what was not
 * handed to the PDS yet is never sent; a receive bound to a message gets
 * no more data. Fragments on the wire, and the read-back of a rendezvous
 * send under way, are let finish: call again until it returns 0. With
 * @p force they are detached instead (never built again: the PDS then
 * fails their PDC unless acknowledged meanwhile; response data is not
 * copied). Completions still come for every context (drop them).
 * @return
 *   Messages that may still read or write memory of those operations;
 *   0: none will ever again.
 */
uint32_t uet_ses_withdraw(struct uet_ses *s,
			  bool (*mine)(void *arg, uint64_t context),
			  void *arg, bool force);

/**
 * Drain up to @p n completions.
 * @return
 *   Number written.
 */
uint16_t uet_ses_cq_poll(struct uet_ses *s, struct uet_ses_cqe *c,
			 uint16_t n);

/**
 * The -errno a completion carries for a UET return code: OK 0;
 * NO_MATCH, DROPPED -EAGAIN; TOO_LONG, UNSUPPORTED_SIZE, AMO sizes
 * -EMSGSIZE; UNSUPPORTED_OP, AMO op/dt -EOPNOTSUPP; PERM_VIOLATION,
 * OP_VIOLATION, BAD_JOB_ID -EACCES; BAD_MKEY, BAD_GENERATION, DISABLED*,
 * BAD_INDEX, BAD_PID -EINVAL (FI_EINVAL/FI_EKEYREJECTED class);
 * BAD_ADDR, AMO_UNALIGNED, AT_NO_TRANS, AT_INVALID, AT_OUT_OF_RANGE
 * -EFAULT; AT_PERM -EACCES; CANCELLED -ECANCELED; others (among them
 * HOST_UNSUCCESS_CMPL) -EIO.
 */
int uet_ses_rc_errno(enum uet_wire_ses_rc rc);

/** Counters; written only by the owner lcore. */
struct uet_ses_stats {
	uint64_t wr_submitted;   /**< accepted work requests */
	uint64_t wr_rejected;    /**< refused at submit (profile/invalid) */
	uint64_t wr_eagain;      /**< refused: pool full */
	uint64_t frag_tx;        /**< fragments handed to the PDS */
	uint64_t frag_built;     /**< build calls served */
	uint64_t frag_rebuilt;   /**< build calls for an old cookie (retx) */
	uint64_t msg_ok;         /**< initiator messages completed OK */
	uint64_t msg_err;        /**< initiator messages completed in error */
	uint64_t msg_tx_wait;    /**< acknowledged messages that waited for
				  *   the port to release a frame referencing
				  *   their buffer (uet_ses_build_ref()) */
	uint64_t fmt[4];         /**< requests sent by format (1..3) */
	uint64_t rx_req[16];     /**< requests received, by opcode */
	uint64_t rx_bad;         /**< undecodable / inconsistent requests */
	uint64_t rx_split;       /**< requests placed from two pieces
				  *   (uet_ses_event_tail()) */
	uint64_t rx_flat;        /**< requests in two pieces joined in a
				  *   buffer first (uet_ses_event_tail()) */
	uint64_t rx_rc[64];      /**< target responses, by return code */
	uint64_t resp_fail;      /**< uet_pds_respond() refused */
	uint64_t resp_default;   /**< target: default responses (nothing
				  *   stored, CACK tells the initiator) */
	uint64_t resp_early;     /**< initiator: errors answered to a packet
				  *   before the last of its message */
	uint64_t tgt_exhaust;    /**< no target record for a message */
	uint64_t unexp_drop;     /**< unexpected message over the bound */
	/** datagrams with no buffer, or for a PIDonFEP with no receive
	 * context (no such process, or not yet: before its endpoint) */
	uint64_t dgram_drop;
	uint64_t cq_overflow;    /**< completions lost: CQ full */
	uint64_t stale_done;     /**< DONE for an unknown cookie */
	uint64_t ret_tx;         /**< return-direction read packets queued */
	uint64_t ret_rx;         /**< return-direction read packets landed */
	uint64_t rdv_tx;         /**< rendezvous sends started */
	uint64_t rdv_reads;      /**< rendezvous read-backs issued (target) */
	uint64_t rdv_served;     /**< read-backs of our buffers served */
	uint64_t defer_tx;       /**< deferrable sends parked by a defer */
	uint64_t rtr_tx;         /**< DEFERRABLE_RTR issued (target) */
	uint64_t rtr_rx;         /**< DEFERRABLE_RTR received and honoured */
	uint64_t rtr_stale;      /**< RTR for an unknown/cancelled send */
	uint64_t rtr_resent;     /**< RTR sent again: its PDC had failed */
	uint64_t rtr_recheck;    /**< RTR sent again: accepted, but the
				  *   restarted message did not begin */
	uint64_t rtr_dup;        /**< repeated RTR for a send restarted by
				  *   its first one (answered OK) */
	uint64_t msg_error_resent; /**< MSG_ERROR sent again: its PDC had
				    *   failed */
	uint64_t pid_resent;     /**< sends sent again after a BAD_PID answer
				  *   (uet_ses_config.pid_wait_ns) */
	uint64_t pid_gave_up;    /**< ... that failed with it, the wait over */
	uint64_t send_cancel;    /**< sends cancelled */
	/* Flow control: deliveries refused with a resource NACK (the
	 * initiator backs off and retries, uet_pds_refuse()). */
	uint64_t refused_unexp;  /**< unexpected store full */
	uint64_t refused_rec;    /**< no target record free */
	uint64_t refused_res;    /**< no return-direction slot / message */
	uint64_t pdc_down;       /**< UET_PDS_EV_PDC_DOWN events */
	uint64_t pdc_down_fail;  /**< messages failed by a PDC_DOWN */
	/** large READs: the data count of a PDC gone and settled reused
	 * for another PDC (a READ moved by NACK CLOSING again and again) */
	uint64_t read_pdc_reclaim;
	/** large READs: no count left for a PDC (its failed DONE fails
	 * the READ) */
	uint64_t read_pdc_full;
	uint64_t tgt_pdc_closed; /**< UET_PDS_EV_PDC_CLOSED events */
	uint64_t tgt_abandoned;  /**< messages dropped unfinished with their
				  *   target PDC (receive failed -ECONNRESET) */
	uint64_t tgt_part_refused; /**< multi-packet messages failed by an
				    * error on one of their packets */
	uint64_t rdv_wait;       /**< read-backs or MSG_ERRORs delayed (no
				  *   message free), retried by progress */
	uint64_t msg_error_tx;   /**< MSG_ERROR sent: a read-back failed */
	uint64_t msg_error_rx;   /**< MSG_ERROR failing one of our sends */
	uint64_t msg_error_stale; /**< MSG_ERROR naming no waiting send */
	uint64_t withdrawn;      /**< messages of withdrawn operations */
	uint64_t withdraw_forced; /**< ... detached while on the wire */
	/* Memory entries of another process (uet_ses_mem_ops). */
	uint64_t mem_rd;         /**< reads through the accessor */
	uint64_t mem_wr;         /**< writes through the accessor */
	uint64_t mem_err;        /**< accesses that failed (the request is
				  *   answered AT_NO_TRANS, AT_PERM, AT_INVALID
				  *   or HOST_UNSUCCESS_CMPL) */
	uint64_t mem_coherent;   /**< cpu-coherent atomics refused on it */
	uint64_t ret_rx_err;     /**< initiator: return-direction READ data
				  *   carrying an error code */
	uint64_t ret_refused;    /**< initiator: return-direction data
				  *   matching no READ, refused (not ACKed) */
};

/** Counters of an instance. */
const struct uet_ses_stats *uet_ses_stats_get(const struct uet_ses *s);

/** Pool occupancy (leak checks). */
struct uet_ses_pool_info {
	uint32_t msgs_used;
	uint32_t tgt_used;
	uint32_t ret_used;
	uint32_t cq_used;
};

/** Current pool occupancy. */
void uet_ses_pool_info_get(const struct uet_ses *s,
			   struct uet_ses_pool_info *pi);

/**
 * Whether a READ response in progress (its data still built, or sent and
 * not all acknowledged: a retransmission rebuilds it) reads bytes of
 * [@p base, @p base + @p len) in address space @p owner (0: this process).
 * A deregistration waits for none to remain (the SES ULP's MR_DEREG).
 */
bool uet_ses_ret_reads(const struct uet_ses *s, pid_t owner, uintptr_t base,
		       uint64_t len);

/**
 * Request format the initiator uses (UEC 1.0 SES standard request header, SES
 * extension headers): MEDIUM for a single-packet request of at most 16383 bytes
 * that needs a key, tag or initiator but not both header data and a buffer
 * offset; SMALL for NO_OP; STD otherwise (multi-packet, rendezvous, deferrable,
 * WRITE with immediate data).
 * @param opcode
 *   enum uet_wire_ses_opcode.
 * @param single
 *   Whether the message is one packet.
 * @param hd
 *   Header data present.
 * @param len
 *   request_length.
 */
enum uet_wire_ses_fmt uet_ses_fmt_choose(unsigned int opcode, bool single,
				    bool hd, uint64_t len);

#ifdef __cplusplus
}
#endif

#endif /* UET_SES_H */
