/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_SES_ULP_PRIVATE_H
#define UET_SES_ULP_PRIVATE_H

/*
 * Private state of the SES on the engine (include/pmd-ses/uet/uet_ses_ulp.h).
 * One struct ses_ulp_ctx per engine context, touched only by that context's
 * thread except for the control ring. The files of pmd/ses_ulp/:
 *   ulp.c         ULP callbacks: init / fini, build, event, poll
 *   channels.c    channel consumption: SQE -> uet_ses_submit(),
 *                 RQE -> uet_ses_recv_post() / cancel, the channel set
 *   window.c      descriptor addresses: data-window translation, SQE -> WR
 *   completion.c  uet_ses_cq_poll() -> channel CQEs (through op records)
 *   tables.c      job / RI tables, processes (EP_ADD), peers, MR_REG
 *   ctl.c         the control ring (uet_ses_ulp_ctl()) and its callers
 *   cma.c         other processes' memory (uet_cma.h: MR_REG of another
 *                 owner, the uet-engine service's clients)
 *   telemetry.c   /uet/ses
 * Every array is allocated at init; the data path allocates nothing.
 */

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_branch_prediction.h>

#include <uet/uet_chan.h>
#include <uet/uet_ses.h>
#include <uet/uet_ses_ulp.h>
#include <uet/uet_ulp.h>

#define SES_ULP_MAGIC 0x53554c31u /* "SUL1" */
#define SES_ULP_CTL_RING 64
#define SES_ULP_CTL_BURST 8
#define SES_ULP_CQ_BURST 32
#define SES_ULP_CHAN_BUDGET 32 /* descriptors per channel per iteration */
/* CQEs of one channel waiting for room in its CQ beyond which no more of
 * its descriptors are taken (its own back-pressure) ... */
#define SES_ULP_CHAN_PEND_MAX 64
/* ... and beyond which unsolicited completions for it are dropped */
#define SES_ULP_CHAN_PEND_UNSOL_MAX 256
/*
 * A channel's budgets, one for its SQ and one for its RQ: its descriptors
 * of that ring in progress (op records held) and its CQEs waiting,
 * together, at most this many; no descriptor of that ring is taken
 * beyond. (One budget for both let receives that wait for good hold it
 * all, and the channel's sends stopped: ofi_rxd over a DGRAM endpoint
 * hung.) So the CQEs one channel can leave in the pending queue are
 * bounded (both budgets, plus SES_ULP_CHAN_PEND_UNSOL_MAX unsolicited),
 * the queue holds every channel's at once (ulp.c), and a client that
 * never polls its CQ stalls only its own channels: before, its posted
 * receives completing filled the shared queue and stopped every channel
 * of the context (the security review).
 */
#define SES_ULP_CHAN_OPS_MAX 256
#define SES_ULP_NONE UINT32_MAX
#define SES_ULP_EPS_MAX 8 /* processes (PIDonFEP) per context, its own included */
#define SES_ULP_DRAIN_CTX UINT64_MAX /* SES context of the glue's own discards */
#define SES_ULP_PEERS_DEFAULT 65536u
#define SES_ULP_PEERS_MAX (1u << 20)
/* How long JOB_DEL / EP_DEL of a closed endpoint wait for the SES to let
 * go of its operations' memory before detaching them (below the 5 s a
 * caller of uet_ses_ulp_ctl() waits; the PDS's default retransmission
 * budget, about 2 s, ends every fragment before) */
#define SES_ULP_WITHDRAW_NS (3000ull * 1000 * 1000)
/* a held JOB_DEL / EP_DEL's withdrawal looked at no more often (ctl.c) */
#define SES_ULP_HELD_SCAN_NS (100ull * 1000)

/* Single-writer counter update; readers (uet_ses_ulp_stats_get(), the
 * telemetry thread) use relaxed loads. */
#define SES_ULP_ADD(ctr, n) \
	__atomic_store_n(&(ctr), (ctr) + (uint64_t)(n), __ATOMIC_RELAXED)
#define SES_ULP_INC(ctr) SES_ULP_ADD(ctr, 1)

/* An outstanding SQE or RQE: the SES context is its index. */
struct ses_ulp_op {
	struct uet_chan *chan; /* NULL: channel gone, drop the completion */
	uint64_t ctx;          /* the descriptor's context, returned as is */
	uint32_t next;         /* free list */
	uint8_t op;            /* chan op / rq op */
	uint8_t rx;
	uint8_t want;          /* CQE on success */
	uint8_t multi;         /* multi-recv: stays until RELEASED */
	uint8_t peek_claim;    /* PEEK | CLAIM post */
	uint8_t claimed;       /* its message is reserved: kept for CLAIM */
	uint8_t orphan;        /* its channel went away: withdrawn in the SES */
	uint8_t held;          /* counted in eps[ep].ops */
	uint8_t ep;            /* process slot of its channel */
	uint16_t pid;          /* orphan: its channel's PIDonFEP */
};

/*
 * A process on the FEP served by this context (an endpoint): its
 * PIDonFEP, initiator id and receive context. Slot 0 is the context's
 * own identity (channels without EP_ADD); slots 1.. come from EP_ADD.
 */
struct ses_ulp_ep {
	uint32_t ref;          /* channels bound to it (slot 0: unused) */
	bool dirty;            /* freed: reuse once no target record is open */
	uint16_t pid;
	uint32_t initiator;
	enum uet_wire_profile profile;
	struct uet_ses_match *match;
	/* op records its channels hold, and at most (EP_ADD ops_max; 0:
	 * no limit) */
	uint32_t ops;
	uint32_t ops_max;
};

/* EP_ADD binding of a channel to a process slot. */
struct ses_ulp_bind {
	struct uet_chan *chan;
	uint32_t ep;
	uint32_t owner;        /* EP_ADD owner_id: whose peers it names */
	bool remote;           /* wants UET_CHAN_CQ_REMOTE events */
};

/* Per attached channel: the SQE/RQE the SES refused with -EAGAIN. */
struct ses_ulp_chan {
	struct uet_chan *chan;
	uint32_t ep;           /* process slot */
	uint32_t owner;        /* whose peers its descriptors may name */
	bool remote;           /* wants UET_CHAN_CQ_REMOTE events */
	uint16_t pid;          /* its PIDonFEP and initiator id */
	uint32_t initiator;
	uint32_t sq_slot;      /* SES_ULP_NONE or op slot of the held SQE */
	uint32_t rq_slot;
	/* wrong-key throttling: BAD_MKEY completions since kb_start; its
	 * SQ is not read before kb_until */
	uint64_t kb_start;
	uint64_t kb_until;
	uint32_t kb_count;
	struct uet_chan_sqe sqe;
	struct uet_chan_rqe rqe;
};

struct ses_ulp_job {
	uint32_t job;
	uint16_t pid;          /* process the tables belong to */
	uint32_t ref;          /* 0: free */
	int ri_msg;
	int ri_rma;
	int ri_rdv;            /* rendezvous sources (remote read) */
	/* another process than the context's: ri_rma is the context's
	 * table, aliased under {job, pid, start_ri + 1} */
	bool alias;
};

struct ses_ulp_pend {
	struct uet_chan *chan;
	struct uet_chan_cqe cqe;
};

/*
 * A registered destination (PEER_ADD). Its handle is
 * (generation << 32) | (slot + 1): 0 is never a handle, and a handle kept
 * after PEER_DEL misses once the slot is reused (new generation).
 */
struct ses_ulp_peer {
	struct uet_ses_ulp_peer v;
	uint32_t owner;         /* PEER_ADD owner_id */
	uint32_t gen;
	uint32_t next;          /* free list (SES_ULP_NONE: end) */
	bool used;
};

/*
 * Control message: the caller's request plus a hand-over state. A request
 * is either cancelled before the lcore starts it (PENDING -> CANCELLED by
 * the caller: never applied) or applied and answered (PENDING -> RUNNING
 * -> DONE by the lcore), never both: a caller that times out on a RUNNING
 * request waits for its answer. ABANDONED: the caller gave up on a
 * RUNNING one after the long bound (the outcome is unknown to it).
 */
enum {
	SES_ULP_CTL_PENDING = 0,
	SES_ULP_CTL_RUNNING,
	SES_ULP_CTL_DONE,
	SES_ULP_CTL_CANCELLED,
	SES_ULP_CTL_ABANDONED,
};
/* How long a caller waits for a request the lcore has started (an
 * MR_DEREG waits for READ responses, a JOB_DEL / EP_DEL for withdrawn
 * operations: bounded by the PDS's retransmissions) */
#define SES_ULP_CTL_RUNNING_MAX_S 60

struct ses_ulp_ctl_msg {
	struct uet_ses_ulp_ctl req;
	atomic_uint state;
	/* lcore side: what it touches (ses_ulp_ctl_keys), for ordering it
	 * after held requests, and since when it is held */
	struct uet_chan *k_chan;  /* NULL: none */
	uint32_t k_job;
	bool k_has_job;
	int32_t k_pid;            /* -1: none */
	uint64_t held_at;
};

/* An MR_DEREG answered once no READ response reads its region. */
struct ses_ulp_dereg {
	struct ses_ulp_ctl_msg *m;
	pid_t owner;
	uintptr_t base;
	uint64_t len;
};

struct ses_ulp_ctx {
	uint32_t magic;
	struct uet_ulp_ctx *uctx;
	struct uet_ses *ses;
	struct uet_ses_mr_table *mr;
	struct uet_ses_match *match;
	struct rte_ring *ctl;
	uint16_t pid;
	uint16_t start_ri;
	uint32_t initiator;
	uint32_t max_jobs;
	struct ses_ulp_job *jobs;
	struct ses_ulp_peer *peers;
	/* zero-copy transmit: frames referencing each SES message's buffer
	 * (txref.c), one count per message slot */
	struct rte_mbuf_ext_shared_info *txref;
	uint32_t nb_txref;
	uint32_t max_peers;
	uint32_t peer_free;     /* free list head */
	struct ses_ulp_op *ops;
	uint32_t nb_ops;
	uint32_t free_head;
	uint32_t nb_free;
	struct ses_ulp_pend *pend;  /* FIFO of CQEs waiting for CQ room */
	uint32_t pend_mask;
	uint32_t pend_head;     /* next to push */
	uint32_t pend_tail;     /* next free */
	unsigned int nb_chans;
	struct ses_ulp_ep eps[SES_ULP_EPS_MAX];
	struct ses_ulp_bind binds[UET_ENGINE_CHANS_MAX];
	unsigned int nb_binds;
	/* MR_DEREG answers held until no READ response can still be built
	 * (rebuilt from the region on retransmission) */
	unsigned int nb_dereg_wait;
	struct ses_ulp_dereg dereg_wait[SES_ULP_CTL_RING];
	/* requests held, in order: a JOB_DEL / EP_DEL waiting for the SES
	 * to let go of its process's withdrawn operations, and those that
	 * touch what a held one does (ses_ulp_ctl_poll) */
	unsigned int nb_held;
	uint64_t held_scan_at;
	struct ses_ulp_ctl_msg *held[SES_ULP_CTL_RING];
	struct ses_ulp_chan chans[UET_ENGINE_CHANS_MAX];
	struct uet_ses_cqe scq[SES_ULP_CQ_BURST];
	/* the CQ burst open during ses_ulp_completions(): cq_used of the
	 * cq_n slots of cq_chan's CQ written in place */
	struct uet_chan *cq_chan;
	unsigned int cq_n;
	unsigned int cq_used;
	struct uet_chan_cqe *cq_e[SES_ULP_CQ_BURST];
	/* a shared channel's burst, copied out of its ring (uet_chan_sq_peek) */
	struct uet_chan_sqe sq_tmp[SES_ULP_CHAN_BUDGET];
	struct uet_chan_rqe rq_tmp[SES_ULP_CHAN_BUDGET];
	struct uet_ses_ulp_stats st;
	const struct uet_ses_mem_ops *mem_ops; /* the SES's, for MR_REG */
	void *mem_arg;
};

/* op records and the queue of CQEs waiting for CQ room (hot: inline) */

static inline uint32_t
ses_ulp_op_get(struct ses_ulp_ctx *c)
{
	uint32_t i = c->free_head;

	if (unlikely(i == SES_ULP_NONE))
		return SES_ULP_NONE;
	c->free_head = c->ops[i].next;
	c->nb_free--;
	return i;
}

/* Charge record @p i to process slot @p ep (ses_ulp_op_put gives it back). */
static inline void
ses_ulp_op_charge(struct ses_ulp_ctx *c, uint32_t i, uint32_t ep)
{
	c->ops[i].held = 1;
	c->ops[i].ep = (uint8_t)ep;
	c->eps[ep].ops++;
}

static inline void
ses_ulp_op_put(struct ses_ulp_ctx *c, uint32_t i)
{
	if (c->ops[i].held)
		c->eps[c->ops[i].ep].ops--;
	c->ops[i].held = 0;
	if (c->ops[i].chan != NULL)
		c->ops[i].chan->ops_out[c->ops[i].rx != 0]--;
	c->ops[i].chan = NULL;
	c->ops[i].orphan = 0;
	c->ops[i].next = c->free_head;
	c->free_head = i;
	c->nb_free++;
}

static inline uint32_t
ses_ulp_pend_count(const struct ses_ulp_ctx *c)
{
	return c->pend_tail - c->pend_head;
}

static inline uint32_t
ses_ulp_pend_room(const struct ses_ulp_ctx *c)
{
	return c->pend_mask + 1 - ses_ulp_pend_count(c);
}

/* Whether @p ch takes no descriptor now: its CQ is full and enough of
 * its completions wait, or it holds its budget (its own back-pressure,
 * nobody else's). */
static inline bool
ses_ulp_chan_backlogged(const struct uet_chan *ch)
{
	return ch->cq_pending >= SES_ULP_CHAN_PEND_MAX;
}

/* Descriptors of @p ch's SQ (@p rx false) or RQ it may still have taken
 * (its budget, SES_ULP_CHAN_OPS_MAX). */
static inline uint32_t
ses_ulp_chan_room(const struct uet_chan *ch, bool rx)
{
	uint32_t used = ch->cq_pending + ch->ops_out[rx];

	return used >= SES_ULP_CHAN_OPS_MAX ? 0 : SES_ULP_CHAN_OPS_MAX - used;
}

/* The peer a descriptor of a channel of @p owner names (bounds,
 * generation and owner checked: a client of the service names its own
 * peers only, not those of another client on the context), or NULL. */
static inline const struct uet_ses_ulp_peer *
ses_ulp_peer_of(const struct ses_ulp_ctx *c, uint64_t handle, uint32_t owner)
{
	uint32_t slot = (uint32_t)handle - 1; /* 0 wraps: out of range */
	const struct ses_ulp_peer *p;

	if (unlikely(slot >= c->max_peers))
		return NULL;
	p = &c->peers[slot];
	if (unlikely(!p->used || p->gen != (uint32_t)(handle >> 32) ||
		     p->owner != owner))
		return NULL;
	return &p->v;
}

/* completion.c */
void ses_ulp_complete_local(struct ses_ulp_ctx *c, uint32_t slot, int status,
			uint32_t prov_errno);
unsigned int ses_ulp_pend_flush(struct ses_ulp_ctx *c);
unsigned int ses_ulp_completions(struct ses_ulp_ctx *c, uint64_t now);

/* window.c */
int ses_ulp_desc_buf(const struct uet_chan *ch, uint32_t flags, uint64_t addr,
		 uint64_t len, void **buf, uint64_t *blen);
int ses_ulp_sqe_to_wr(const struct ses_ulp_chan *sc, const struct uet_chan_sqe *q,
		  const struct uet_ses_ulp_peer *a, uint32_t slot,
		  struct uet_ses_wr *wr);

/* channels.c */
unsigned int ses_ulp_chan_sq(struct ses_ulp_ctx *c, struct ses_ulp_chan *sc,
			 uint64_t now);
unsigned int ses_ulp_chan_rq(struct ses_ulp_ctx *c, struct ses_ulp_chan *sc,
			 uint64_t now);
void ses_ulp_chans_sync(struct ses_ulp_ctx *c, struct uet_engine_lcore *lc,
		    uint64_t now);
/* uet_ses_withdraw() selector: the operations of channels gone */
bool ses_ulp_orphan(void *arg, uint64_t ctx);
/* Whether EP_ADD @p q finds a binding and a process slot free (or
 * needs none), JOB_ADD @p q a job table entry or two. */
bool ses_ulp_ep_room(struct ses_ulp_ctx *c, const struct uet_ses_ulp_ctl *q);
bool ses_ulp_job_room(struct ses_ulp_ctx *c, const struct uet_ses_ulp_ctl *q);
/* The PIDonFEP channel @p chan is bound to (EP_ADD), -1 if none. */
int ses_ulp_chan_pid(const struct ses_ulp_ctx *c, const struct uet_chan *chan);

/* tables.c */
struct ses_ulp_job *ses_ulp_job_find(struct ses_ulp_ctx *c, uint32_t job, uint16_t pid);
int ses_ulp_job_add(struct ses_ulp_ctx *c, uint32_t job, uint16_t pid, bool own);
int ses_ulp_job_del(struct ses_ulp_ctx *c, uint32_t job, uint16_t pid);
int ses_ulp_ep_add(struct ses_ulp_ctx *c, const struct uet_ses_ulp_ctl *q);
int ses_ulp_ep_del(struct ses_ulp_ctx *c, struct uet_chan *chan, uint64_t now);
void ses_ulp_pid_local(struct ses_ulp_ctx *c, uint16_t pid, bool on);
int ses_ulp_peer_add(struct ses_ulp_ctx *c, struct uet_ses_ulp_ctl *q);
int ses_ulp_peer_del(struct ses_ulp_ctx *c, uint64_t handle, uint32_t owner);
int ses_ulp_mr_reg(struct ses_ulp_ctx *c, struct uet_ses_ulp_ctl *q);
/* uet_ses_config resolvers (arg: the struct ses_ulp_ctx) */
int ses_ulp_rdv_ri_of(void *arg, uint32_t job, uint16_t pid);
enum uet_wire_profile ses_ulp_profile_of(void *arg, uint16_t pid);
struct uet_ses_match *ses_ulp_match_of(void *arg, uint16_t pid);

/* ctl.c */
void ses_ulp_ctl_answer(struct ses_ulp_ctl_msg *m);
void ses_ulp_ctl_one(struct ses_ulp_ctx *c, struct ses_ulp_ctl_msg *m, uint64_t now);
unsigned int ses_ulp_ctl_poll(struct ses_ulp_ctx *c, uint64_t now);
/* The SES ULP state of context @p idx of @p e, or NULL (another ULP). */
struct ses_ulp_ctx *ses_ulp_of(struct uet_engine *e, unsigned int idx);

/* telemetry.c: add /uet/ses (idempotent) */
int ses_ulp_telemetry_add(void);

/* txref.c: zero-copy transmit (port.tx_zero_copy) */
int ses_ulp_txref_init(struct ses_ulp_ctx *c, uint32_t msgs);
void ses_ulp_txref_fini(struct ses_ulp_ctx *c);
uint64_t ses_ulp_txref_held(const struct ses_ulp_ctx *c);
bool ses_ulp_tx_busy(void *arg, uint32_t msg);
int ses_ulp_build_ref(void *priv, uint64_t cookie, uint32_t psn, bool is_retx,
		      uint8_t *buf, size_t cap, uint32_t min_ref,
		      struct uet_ulp_ref *ref);

#endif /* UET_SES_ULP_PRIVATE_H */
