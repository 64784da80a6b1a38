/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_SVC_H
#define UET_SVC_H

/**
 * @file
 * The uet-engine service protocol (docs/SERVICE.md), both sides.
 *
 * A client (the provider) attaches to the service over a UNIX socket of
 * type SOCK_SEQPACKET (one message per datagram, boundaries kept). Every
 * message is a struct uet_svc_hdr followed by the body of its op, of a
 * fixed layout (static asserts below). Requests are synchronous: the
 * client sends one and waits for the reply with the same @c seq.
 *
 *  - Reply: op | UET_SVC_OP_REPLY, same seq, rc 0 or -errno. With rc 0
 *    the body is the op's reply body (len = its size, possibly 0); with
 *    rc < 0 there is no body (len 0).
 *  - The service checks every field: magic, version, an op it knows,
 *    len equal to the op's request body size, reserved fields and flag
 *    bits zero, values in range. Anything else is answered -EINVAL (an
 *    unknown op too) and counted; the client stays attached.
 *
 * HELLO must come first (anything else before it: -EPROTO). Its reply
 * carries, by SCM_RIGHTS, in this order: the memfd of the client's shared
 * region (mapped read-write, MAP_SHARED, region_size bytes), the memfd of
 * the service page (opened read-only: map it PROT_READ, page_size bytes)
 * and nb_ctx eventfds, one per engine context (written by the client to
 * wake a sleeping context, see struct uet_svc_page; without
 * UET_SVC_CAP_WAKE the contexts never sleep and they need no writing). A zero-length message cannot be told from the end of
 * the connection: the service takes it as one.
 *
 * No pointer crosses the socket or the rings: channel rings are named by
 * offsets into the region, buffers in SQEs/RQEs by offsets into the
 * region's data window (struct uet_chan.win_base), destinations by peer
 * handles, memory by keys.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uet/uet_chan.h>
#include <uet/uet_ses_ulp.h>

#ifdef __cplusplus
extern "C" {
#endif

/** uet_svc_hdr.magic: "UETS". */
#define UET_SVC_MAGIC 0x55455453u
/** Protocol version (uet_svc_hdr.version, HELLO). */
#define UET_SVC_VERSION 1u
/** Largest message (header + body) either side sends. */
#define UET_SVC_MSG_MAX 1024u
/** Default bound of a client's wait for a reply (ms): then -ETIMEDOUT. */
#define UET_SVC_TIMEOUT_MS 5000u

/** Largest number of engine contexts a service has (eventfds). */
#define UET_SVC_CTX_MAX 32u
/** Largest number of channels of one client (region slots). */
#define UET_SVC_CHANS_MAX 64u
/** Largest ring size (entries, power of two) CHAN_OPEN accepts. */
#define UET_SVC_RING_MAX 4096u
/** Largest number of job ranges granted to a client (HELLO reply). */
#define UET_SVC_JOB_RANGES_MAX 16u
/** Region and service page granularity (bytes). */
#define UET_SVC_PAGE 4096u

/** Message header (24 bytes; bodies follow 8-byte aligned). */
struct uet_svc_hdr {
	uint32_t magic;   /**< UET_SVC_MAGIC */
	uint16_t version; /**< UET_SVC_VERSION */
	uint16_t op;      /**< enum uet_svc_op, | UET_SVC_OP_REPLY in replies */
	uint32_t len;     /**< body bytes after this header */
	uint32_t seq;     /**< chosen by the client, echoed in the reply */
	int32_t rc;       /**< replies: 0 or -errno; requests: 0 */
	uint32_t rsvd;    /**< zero */
};

/** Ops (client -> service). */
enum uet_svc_op {
	UET_SVC_OP_HELLO = 1,      /**< attach: region, page, eventfds */
	UET_SVC_OP_PID_GET = 2,    /**< take a PIDonFEP */
	UET_SVC_OP_PID_PUT = 3,    /**< give it back */
	UET_SVC_OP_CHAN_OPEN = 4,  /**< rings in the region + EP_ADD + attach */
	UET_SVC_OP_CHAN_CLOSE = 5, /**< detach, withdraw, EP_DEL */
	UET_SVC_OP_JOB_ADD = 6,    /**< authorise a granted job for own pid */
	UET_SVC_OP_JOB_DEL = 7,    /**< drop one JOB_ADD */
	UET_SVC_OP_PEER_ADD = 8,   /**< register a destination -> handle */
	UET_SVC_OP_PEER_DEL = 9,   /**< forget an own handle */
	UET_SVC_OP_MR_REG = 10,    /**< register memory -> key */
	UET_SVC_OP_MR_DEREG = 11,  /**< deregister an own key */
	UET_SVC_OP_MR_ENABLE = 12, /**< enable / disable an own key */
	UET_SVC_OP_BYE = 13,       /**< detach (same as closing the socket) */
	UET_SVC_OP__COUNT
};

/** Set in uet_svc_hdr.op of a reply. */
#define UET_SVC_OP_REPLY 0x8000u

/* ---- HELLO ---- */

/** HELLO request. */
struct uet_svc_hello_req {
	uint32_t version; /**< UET_SVC_VERSION */
	uint32_t flags;   /**< UET_SVC_HELLO_F_*, other bits zero */
	uint64_t rsvd;    /**< zero */
};

/** The HELLO carries one descriptor (SCM_RIGHTS): the client's own
 * /proc/self/mem, opened by the client (read-write for remote write and
 * atomic access). It is how the engine reaches the memory of the
 * client's remote-access registrations: it names the client's address
 * space, not its PID, so it reaches nothing once the client exits or
 * execs. Without it, MR_REG with a remote access bit is -EPERM. */
#define UET_SVC_HELLO_F_MEM 0x1u

/** Capability bits (uet_svc_hello_rep.caps). */
/** MR_REG with remote access (the engine reaches client memory by
 * cross-memory attach); without it MR_REG with a REMOTE bit is refused
 * -EOPNOTSUPP */
#define UET_SVC_CAP_RMA 0x1u
/** the engine contexts sleep when idle: check the page's waker after a
 * post and write the context's eventfd when it is set */
#define UET_SVC_CAP_WAKE 0x2u

/** A granted JobID range, inclusive (24-bit JobIDs). */
struct uet_svc_job_range {
	uint32_t first;
	uint32_t last;
};

/** HELLO reply (+ fds: region, service page, nb_ctx eventfds). */
struct uet_svc_hello_rep {
	uint64_t region_size;  /**< bytes of the region memfd */
	uint64_t window_off;   /**< data window: offset in the region */
	uint64_t window_len;   /**< data window: bytes */
	uint64_t page_size;    /**< bytes of the service page memfd */
	uint64_t max_msg;      /**< largest message (<= window_len) */
	uint32_t max_chans;    /**< channel slots of the region */
	uint32_t max_pids;     /**< PIDonFEPs one client may hold */
	uint32_t nb_ctx;       /**< engine contexts (eventfds passed) */
	uint32_t caps;         /**< UET_SVC_CAP_* */
	uint32_t mtu;          /**< port 0 MTU (bytes) */
	uint32_t ring_max;     /**< largest ring size CHAN_OPEN takes */
	uint32_t inject_max;   /**< largest inject (0: the provider's own) */
	uint32_t rsvd1;        /**< zero */
	uint8_t fa[16];        /**< service FA (port 0); IPv4 in bytes 0..3 */
	uint8_t is_v6;         /**< fa is IPv6 */
	uint8_t rsvd0;         /**< zero */
	uint16_t start_ri;     /**< first RI of every process's tables */
	uint32_t nb_jobs;      /**< valid entries of jobs[] */
	/** JobIDs the client may use (JOB_ADD, MR_REG, sqe.job) */
	struct uet_svc_job_range jobs[UET_SVC_JOB_RANGES_MAX];
};

/* ---- PIDonFEPs ---- */

/** Any engine context (pid_get_req.ctx). */
#define UET_SVC_CTX_ANY 0xFFFFu

/** PID_GET request. */
struct uet_svc_pid_get_req {
	uint16_t want;  /**< 0: any free; else exactly this PIDonFEP */
	uint16_t ctx;   /**< engine context, or UET_SVC_CTX_ANY */
	uint32_t rsvd;  /**< zero */
};

/** PID_GET reply. */
struct uet_svc_pid_get_rep {
	uint16_t pid;       /**< PIDonFEP (12 bits) */
	uint16_t ctx;       /**< engine context that hosts it */
	uint32_t initiator; /**< its SES initiator id */
};

/** PID_PUT request (reply: no body). */
struct uet_svc_pid_put_req {
	uint16_t pid;
	uint16_t rsvd0; /**< zero */
	uint32_t rsvd1; /**< zero */
};

/* ---- channels ---- */

/** CHAN_OPEN request. */
struct uet_svc_chan_open_req {
	uint16_t pid;          /**< own PIDonFEP the channel sends as */
	uint8_t remote_events; /**< EP_ADD remote_events (0/1) */
	uint8_t profile;       /**< enum uet_wire_profile (EP_ADD) */
	uint32_t flags;        /**< UET_CHAN_MP_SUBMIT | UET_CHAN_MC_COMPLETE */
	uint32_t sq_size;      /**< powers of two, 2 .. ring_max */
	uint32_t rq_size;
	uint32_t cq_size;
	uint32_t rsvd;         /**< zero */
};

/** CHAN_OPEN reply: the rings, by offset in the region. */
struct uet_svc_chan_open_rep {
	uint32_t slot;   /**< region slot (CHAN_CLOSE names it) */
	uint16_t ctx;    /**< engine context serving it (= the pid's) */
	uint16_t rsvd;   /**< zero */
	uint64_t sq_off; /**< struct rte_ring of struct uet_chan_sqe */
	uint64_t rq_off; /**< struct rte_ring of struct uet_chan_rqe */
	uint64_t cq_off; /**< struct rte_ring of struct uet_chan_cqe */
};

/** CHAN_CLOSE request (reply: no body). */
struct uet_svc_chan_close_req {
	uint32_t slot;
	uint32_t rsvd; /**< zero */
};

/* ---- jobs ---- */

/** JOB_ADD / JOB_DEL request (reply: no body). */
struct uet_svc_job_req {
	uint32_t job;  /**< granted JobID (24 bits) */
	uint16_t pid;  /**< own PIDonFEP */
	uint16_t rsvd; /**< zero */
};

/* ---- peers ---- */

/** PEER_ADD request. */
struct uet_svc_peer_add_req {
	uint16_t ctx;   /**< context of an own PIDonFEP (peer tables are per
			     context: the handle is valid on it only) */
	uint16_t rsvd0; /**< zero */
	uint32_t rsvd1; /**< zero */
	struct uet_ses_ulp_peer peer;
};

/** PEER_ADD reply. */
struct uet_svc_peer_add_rep {
	uint64_t handle; /**< sqe.dest / rqe.src on channels of ctx */
};

/** PEER_DEL request (reply: no body). */
struct uet_svc_peer_del_req {
	uint64_t handle; /**< own handle */
	uint16_t ctx;
	uint16_t rsvd0;  /**< zero */
	uint32_t rsvd1;  /**< zero */
};

/* ---- memory ---- */

/** MR_REG request. */
struct uet_svc_mr_reg_req {
	uint64_t addr;      /**< client virtual address */
	uint64_t len;       /**< bytes, > 0 */
	uint32_t access;    /**< UET_SES_MR_* */
	uint32_t job;       /**< granted JobID */
	uint16_t pid;       /**< own PIDonFEP */
	uint8_t idempotent; /**< 0/1 */
	uint8_t disabled;   /**< 0/1: register disabled */
	uint32_t rsvd;      /**< zero */
};

/** MR_REG reply. */
struct uet_svc_mr_reg_rep {
	uint64_t key;
};

/** MR_DEREG / MR_ENABLE request (reply: no body). */
struct uet_svc_mr_key_req {
	uint64_t key;     /**< own key */
	uint16_t pid;     /**< the PIDonFEP it was registered for */
	uint8_t disabled; /**< MR_ENABLE: 1 disables; MR_DEREG: zero */
	uint8_t rsvd0;    /**< zero */
	uint32_t rsvd1;   /**< zero */
};

/* ---- shared region (one memfd per client) ---- */

/** uet_svc_region.magic: "UETR". */
#define UET_SVC_REGION_MAGIC 0x55455452u

/** Channel slot states. */
#define UET_SVC_CHAN_FREE 0u
#define UET_SVC_CHAN_OPEN 1u

/** One channel slot of the region header (written by the service). */
struct uet_svc_region_chan {
	uint32_t state;   /**< UET_SVC_CHAN_* */
	uint16_t ctx;     /**< engine context */
	uint16_t pid;     /**< PIDonFEP */
	uint32_t sq_size;
	uint32_t rq_size;
	uint32_t cq_size;
	uint32_t flags;   /**< UET_CHAN_* of the rings */
	uint64_t sq_off;  /**< ring offsets in the region */
	uint64_t rq_off;
	uint64_t cq_off;
};

/**
 * Region header, at offset 0 (informational for the client: the service
 * writes it and never reads it back, as the client can write it too).
 * Then, from rings_off, max_chans ring slots of ring_slot_size bytes
 * (slot i holds the three rings of channel i), then the data window at
 * window_off (page aligned). The memfd is sealed against shrinking.
 */
struct uet_svc_region {
	uint32_t magic;          /**< UET_SVC_REGION_MAGIC */
	uint32_t version;        /**< UET_SVC_VERSION */
	uint64_t size;           /**< region bytes */
	uint64_t window_off;
	uint64_t window_len;
	uint64_t rings_off;
	uint64_t ring_slot_size;
	uint32_t max_chans;
	uint32_t rsvd;
	struct uet_svc_region_chan chan[UET_SVC_CHANS_MAX];
};

/* ---- service page (one memfd, all clients, read-only for them) ---- */

/** uet_svc_page.magic: "UETP". */
#define UET_SVC_PAGE_MAGIC 0x55455450u

/** One engine context's wake-up flag, a cache line of its own. */
struct uet_svc_page_ctx {
	/** the engine's waker: a client channel of this context points its
	 * struct uet_chan.waker here and wake_fd at the context's eventfd */
	struct uet_engine_waker w;
	uint32_t rsvd[15];
};

/** The service page. */
struct uet_svc_page {
	uint32_t magic;   /**< UET_SVC_PAGE_MAGIC */
	uint32_t version; /**< UET_SVC_VERSION */
	uint32_t nb_ctx;
	uint32_t rsvd[13];
	struct uet_svc_page_ctx ctx[UET_SVC_CTX_MAX];
};

_Static_assert(sizeof(struct uet_svc_hdr) == 24, "hdr layout");
_Static_assert(sizeof(struct uet_svc_hello_req) == 16, "hello req");
_Static_assert(sizeof(struct uet_svc_hello_rep) == 224, "hello rep");
_Static_assert(sizeof(struct uet_svc_pid_get_req) == 8, "pid_get req");
_Static_assert(sizeof(struct uet_svc_pid_get_rep) == 8, "pid_get rep");
_Static_assert(sizeof(struct uet_svc_pid_put_req) == 8, "pid_put req");
_Static_assert(sizeof(struct uet_svc_chan_open_req) == 24, "chan_open req");
_Static_assert(sizeof(struct uet_svc_chan_open_rep) == 32, "chan_open rep");
_Static_assert(sizeof(struct uet_svc_chan_close_req) == 8, "chan_close");
_Static_assert(sizeof(struct uet_svc_job_req) == 8, "job req");
_Static_assert(sizeof(struct uet_ses_ulp_peer) == 24, "peer layout");
_Static_assert(sizeof(struct uet_svc_peer_add_req) == 32, "peer_add req");
_Static_assert(sizeof(struct uet_svc_peer_add_rep) == 8, "peer_add rep");
_Static_assert(sizeof(struct uet_svc_peer_del_req) == 16, "peer_del req");
_Static_assert(sizeof(struct uet_svc_mr_reg_req) == 32, "mr_reg req");
_Static_assert(sizeof(struct uet_svc_mr_reg_rep) == 8, "mr_reg rep");
_Static_assert(sizeof(struct uet_svc_mr_key_req) == 16, "mr key req");
_Static_assert(sizeof(struct uet_svc_region_chan) == 48, "region chan");
_Static_assert(sizeof(struct uet_svc_region) <= UET_SVC_PAGE,
	       "region header fits its page");
_Static_assert(sizeof(struct uet_svc_page_ctx) == 64, "page ctx");
_Static_assert(sizeof(struct uet_svc_page) <= UET_SVC_PAGE,
	       "service page fits a page");
_Static_assert(sizeof(struct uet_svc_hdr) + sizeof(struct uet_svc_hello_rep)
	       <= UET_SVC_MSG_MAX, "largest message");

/**
 * Body size of an op's request (@p reply false) or reply (@p reply true).
 * @return Bytes (0 for an empty body), or -EINVAL for an unknown op.
 */
int uet_svc_body_len(unsigned int op, bool reply);

/** Name of an op ("hello", ...; "?" when unknown). */
const char *uet_svc_op_name(unsigned int op);

/**
 * Check a received header: magic, version, rsvd, len against the op's
 * body (@p reply: a reply, whose body is absent when rc < 0; an error
 * reply may echo an op this side does not know).
 * @return 0, -EINVAL (malformed), -EPROTO (wrong magic or version),
 *   -ENOSYS (well-formed header of an unknown op).
 */
int uet_svc_hdr_check(const struct uet_svc_hdr *h, size_t msg_len,
		      bool reply);

/** Fill a header (magic, version, rsvd 0). */
void uet_svc_hdr_init(struct uet_svc_hdr *h, unsigned int op, uint32_t len,
		      uint32_t seq, int32_t rc);

#ifdef __cplusplus
}
#endif

#endif /* UET_SVC_H */
