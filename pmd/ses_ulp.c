/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The SES on the engine (include/pmd/uet/uet_ses_ulp.h): one struct uet_ses
 * per engine context over the context's PDS, driven as uet_ses.h
 * prescribes, and the consumer of the context's front-end channels:
 *   SQE -> uet_ses_submit()       RQE -> uet_ses_recv_post() / cancel
 *   uet_ses_cq_poll() -> CQE (context unchanged, through an op record)
 *   control ring -> MR table / job authorisation / peer table (owner
 *   lcore only)
 * Every array is allocated at init; the data path allocates nothing.
 * Descriptors name destinations by handles into the peer table, never by
 * pointers into the front end's memory.
 */

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_pause.h>
#include <rte_ring.h>

#include <uet/uet_chan.h>
#include <uet/uet_cma.h>
#include <uet/uet_ses_ulp.h>

#include "proto_private.h"

#define SUL_MAGIC 0x53554c31u /* "SUL1" */
#define SUL_CTL_RING 64
#define SUL_CTL_BURST 8
#define SUL_CQ_BURST 32
#define SUL_CHAN_BUDGET 32 /* descriptors per channel per iteration */
/* CQEs of one channel waiting for room in its CQ beyond which no more of
 * its descriptors are taken (its own back-pressure) ... */
#define SUL_CHAN_PEND_MAX 64
/* ... and beyond which unsolicited completions for it are dropped */
#define SUL_CHAN_PEND_UNSOL_MAX 256
#define SUL_NONE UINT32_MAX
#define SUL_EPS_MAX 8 /* processes (PIDonFEP) per context, its own included */
#define SUL_DRAIN_CTX UINT64_MAX /* SES context of the glue's own discards */
#define SUL_PEERS_DEFAULT 65536u
#define SUL_PEERS_MAX (1u << 20)
/* How long JOB_DEL / EP_DEL of a closed endpoint wait for the SES to let
 * go of its operations' memory before detaching them (below the 5 s a
 * caller of uet_ses_ulp_ctl() waits; the PDS's default retransmission
 * budget, about 2 s, ends every fragment before) */
#define SUL_WITHDRAW_NS (3000ull * 1000 * 1000)

#define SUL_INC(ctr) PROTO_INC(ctr)

/* An outstanding SQE or RQE: the SES context is its index. */
struct sul_op {
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
};

/*
 * A process on the FEP served by this context (an endpoint): its
 * PIDonFEP, initiator id and receive context. Slot 0 is the context's
 * own identity (channels without EP_ADD); slots 1.. come from EP_ADD.
 */
struct sul_ep {
	uint32_t ref;          /* channels bound to it (slot 0: unused) */
	bool dirty;            /* freed: reuse once no target record is open */
	uint16_t pid;
	uint32_t initiator;
	enum uet_profile profile;
	struct uet_ses_match *match;
	/* op records its channels hold, and at most (EP_ADD ops_max; 0:
	 * no limit) */
	uint32_t ops;
	uint32_t ops_max;
};

/* EP_ADD binding of a channel to a process slot. */
struct sul_bind {
	struct uet_chan *chan;
	uint32_t ep;
	uint32_t owner;        /* EP_ADD owner_id: whose peers it names */
	bool remote;           /* wants UET_CHAN_CQ_REMOTE events */
};

/* Per attached channel: the SQE/RQE the SES refused with -EAGAIN. */
struct sul_chan {
	struct uet_chan *chan;
	uint32_t ep;           /* process slot */
	uint32_t owner;        /* whose peers its descriptors may name */
	bool remote;           /* wants UET_CHAN_CQ_REMOTE events */
	uint16_t pid;          /* its PIDonFEP and initiator id */
	uint32_t initiator;
	uint32_t sq_slot;      /* SUL_NONE or op slot of the held SQE */
	uint32_t rq_slot;
	/* wrong-key throttling: BAD_MKEY completions since kb_start; its
	 * SQ is not read before kb_until */
	uint64_t kb_start;
	uint64_t kb_until;
	uint32_t kb_count;
	struct uet_chan_sqe sqe;
	struct uet_chan_rqe rqe;
};

struct sul_job {
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

struct sul_pend {
	struct uet_chan *chan;
	struct uet_chan_cqe cqe;
};

/*
 * A registered destination (PEER_ADD). Its handle is
 * (generation << 32) | (slot + 1): 0 is never a handle, and a handle kept
 * after PEER_DEL misses once the slot is reused (new generation).
 */
struct sul_peer {
	struct uet_ses_ulp_peer v;
	uint32_t owner;         /* PEER_ADD owner_id */
	uint32_t gen;
	uint32_t next;          /* free list (SUL_NONE: end) */
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
	SUL_CTL_PENDING = 0,
	SUL_CTL_RUNNING,
	SUL_CTL_DONE,
	SUL_CTL_CANCELLED,
	SUL_CTL_ABANDONED,
};
/* How long a caller waits for a request the lcore has started (an
 * MR_DEREG waits for READ responses, a JOB_DEL / EP_DEL for withdrawn
 * operations: bounded by the PDS's retransmissions) */
#define SUL_CTL_RUNNING_MAX_S 60

struct sul_ctl_msg {
	struct uet_ses_ulp_ctl req;
	atomic_uint state;
};

struct sul_ctx {
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
	struct sul_job *jobs;
	struct sul_peer *peers;
	uint32_t max_peers;
	uint32_t peer_free;     /* free list head */
	struct sul_op *ops;
	uint32_t nb_ops;
	uint32_t free_head;
	uint32_t nb_free;
	struct sul_pend *pend;  /* FIFO of CQEs waiting for CQ room */
	uint32_t pend_mask;
	uint32_t pend_head;     /* next to push */
	uint32_t pend_tail;     /* next free */
	unsigned int nb_chans;
	struct sul_ep eps[SUL_EPS_MAX];
	struct sul_bind binds[UET_ENGINE_CHANS_MAX];
	unsigned int nb_binds;
	/* MR_DEREG answers held until no READ response can still be built
	 * (rebuilt from the region on retransmission) */
	unsigned int nb_dereg_wait;
	struct sul_ctl_msg *dereg_wait[SUL_CTL_RING];
	/* requests held (in order) behind a JOB_DEL / EP_DEL that waits for
	 * the SES to let go of a closed channel's memory, since held_at */
	unsigned int nb_held;
	uint64_t held_at;
	struct sul_ctl_msg *held[SUL_CTL_BURST];
	struct sul_chan chans[UET_ENGINE_CHANS_MAX];
	struct uet_ses_cqe scq[SUL_CQ_BURST];
	struct uet_ses_ulp_stats st;
	const struct uet_ses_mem_ops *mem_ops; /* the SES's, for MR_REG */
	void *mem_arg;
};

static atomic_uint sul_seq;

static struct uet_ses_match *sul_match_of(void *arg, uint16_t pid);

/* ------------------------------------------------------------------ */
/* op records                                                          */
/* ------------------------------------------------------------------ */

static uint32_t
op_get(struct sul_ctx *c)
{
	uint32_t i = c->free_head;

	if (unlikely(i == SUL_NONE))
		return SUL_NONE;
	c->free_head = c->ops[i].next;
	c->nb_free--;
	return i;
}

/* Charge record @p i to process slot @p ep (op_put gives it back). */
static void
op_charge(struct sul_ctx *c, uint32_t i, uint32_t ep)
{
	c->ops[i].held = 1;
	c->ops[i].ep = (uint8_t)ep;
	c->eps[ep].ops++;
}

/* Whether @p sc's process holds all the records it may (ops_max). */
static bool
ep_full(const struct sul_ctx *c, const struct sul_chan *sc)
{
	const struct sul_ep *ep = &c->eps[sc->ep];

	return ep->ops_max != 0 && ep->ops >= ep->ops_max;
}

static void
op_put(struct sul_ctx *c, uint32_t i)
{
	if (c->ops[i].held)
		c->eps[c->ops[i].ep].ops--;
	c->ops[i].held = 0;
	c->ops[i].chan = NULL;
	c->ops[i].orphan = 0;
	c->ops[i].next = c->free_head;
	c->free_head = i;
	c->nb_free++;
}

/* ------------------------------------------------------------------ */
/* completions                                                         */
/* ------------------------------------------------------------------ */

static uint32_t
pend_count(const struct sul_ctx *c)
{
	return c->pend_tail - c->pend_head;
}

static uint32_t
pend_room(const struct sul_ctx *c)
{
	return c->pend_mask + 1 - pend_count(c);
}

static void
pend_add(struct sul_ctx *c, struct uet_chan *chan,
	 const struct uet_chan_cqe *e)
{
	struct sul_pend *p = &c->pend[c->pend_tail++ & c->pend_mask];

	p->chan = chan;
	p->cqe = *e;
	if (chan != NULL)
		chan->cq_pending++;
}

static bool
chan_in(struct uet_chan *const *v, unsigned int n, const struct uet_chan *ch)
{
	for (unsigned int i = 0; i < n; i++)
		if (v[i] == ch)
			return true;
	return false;
}

/*
 * Push waiting CQEs, in order per channel: a channel whose CQ is full
 * keeps its CQEs (and every later one of its own) for the next pass,
 * the others go past it. A client that never polls its CQ stalls only
 * itself (the queue is compacted around what stays).
 */
static unsigned int
pend_flush(struct sul_ctx *c)
{
	struct uet_chan *full[UET_ENGINE_CHANS_MAX];
	unsigned int n = 0, nfull = 0;
	uint32_t w = c->pend_head;

	for (uint32_t r = c->pend_head; r != c->pend_tail; r++) {
		struct sul_pend *p = &c->pend[r & c->pend_mask];

		if (p->chan == NULL)
			continue; /* its channel went away */
		if (!chan_in(full, nfull, p->chan) &&
		    uet_chan_cq_push(p->chan, &p->cqe) == 0) {
			p->chan->cq_pending--;
			SUL_INC(c->st.cqe);
			n++;
			continue;
		}
		if (!chan_in(full, nfull, p->chan)) {
			SUL_INC(c->st.cq_wait);
			if (nfull < RTE_DIM(full))
				full[nfull++] = p->chan;
		}
		if (w != r)
			c->pend[w & c->pend_mask] = *p;
		w++;
	}
	n = c->pend_tail - w; /* pushed or dropped */
	c->pend_tail = w;
	return n;
}

/* Whether @p ch takes no descriptor now: its CQ is full and enough of
 * its completions wait (its own back-pressure, nobody else's). */
static bool
chan_backlogged(const struct uet_chan *ch)
{
	return ch->cq_pending >= SUL_CHAN_PEND_MAX;
}

/* A completion made by the glue itself (NOP, refused descriptor). */
static void
complete_local(struct sul_ctx *c, uint32_t slot, int status,
	       uint32_t prov_errno)
{
	struct sul_op *o = &c->ops[slot];
	struct uet_chan_cqe e;

	if (status != 0 || o->want) {
		memset(&e, 0, sizeof(e));
		e.context = o->ctx;
		e.status = status;
		e.flags = o->rx ? UET_CHAN_CQ_RECV : UET_CHAN_CQ_SEND;
		e.prov_errno = prov_errno;
		e.op = o->op;
		pend_add(c, o->chan, &e);
	}
	op_put(c, slot);
}

static void
cqe_from_ses(struct uet_chan_cqe *e, const struct uet_ses_cqe *s)
{
	e->status = s->status;
	/* UET_SES_CQ_* equal UET_CHAN_CQ_* */
	e->flags = s->flags;
	/* a truncated receive is an error entry (FI_ETRUNC) for the front end */
	if ((s->flags & UET_SES_CQ_TRUNC) && e->status == 0)
		e->status = -EMSGSIZE;
	e->len = s->len;
	e->data = s->data;
	/* an untagged receive has no tag: the field carries where the
	 * message starts in the buffer (a multi-recv buffer's slices) */
	e->tag = (s->flags & UET_SES_CQ_RECV) && !(s->flags & UET_SES_CQ_TAGGED) ?
		 s->offset : s->tag;
	e->src = s->src;
	e->prov_errno = s->prov_errno;
	memset(e->rsvd0, 0, sizeof(e->rsvd0));
	e->olen = s->olen;
}

/* The channel that takes unsolicited completions (remote CQ data of a
 * WRITE) for process @p pid: its first channel that accepts receives
 * (by the ring size the engine made, never the ring header, which a
 * client of the service can write). */
static struct uet_chan *
rx_chan(const struct sul_ctx *c, uint16_t pid)
{
	for (unsigned int i = 0; i < c->nb_chans; i++)
		if (c->chans[i].pid == pid && c->chans[i].chan->rq_mask > 1)
			return c->chans[i].chan;
	return NULL;
}

/*
 * A wrong key costs its channel: past UET_SES_ULP_KEY_BAD_BURST BAD_MKEY
 * completions within a window, the channel's SQ is not read for a pause,
 * so that a client guessing keys (of another client of the service, or
 * of a remote process) makes a few hundred guesses a second, not
 * millions; every other channel goes on.
 */
static void
key_bad(struct sul_ctx *c, const struct uet_chan *ch, uint64_t now)
{
	struct sul_chan *sc = NULL;

	SUL_INC(c->st.key_bad);
	for (unsigned int i = 0; i < c->nb_chans && sc == NULL; i++)
		if (c->chans[i].chan == ch)
			sc = &c->chans[i];
	if (sc == NULL)
		return;
	if (now - sc->kb_start > UET_SES_ULP_KEY_BAD_WINDOW_NS) {
		sc->kb_start = now;
		sc->kb_count = 0;
	}
	if (++sc->kb_count > UET_SES_ULP_KEY_BAD_BURST &&
	    now >= sc->kb_until) {
		sc->kb_until = now + UET_SES_ULP_KEY_BAD_PAUSE_NS;
		SUL_INC(c->st.key_throttled);
	}
}

/* The channel that counts remote accesses to process @p pid (EP_ADD
 * with remote_events); none: the event is dropped. */
static struct uet_chan *
remote_chan(const struct sul_ctx *c, uint16_t pid)
{
	for (unsigned int i = 0; i < c->nb_chans; i++)
		if (c->chans[i].pid == pid && c->chans[i].remote)
			return c->chans[i].chan;
	return NULL;
}

static void
complete_ses(struct sul_ctx *c, const struct uet_ses_cqe *s, uint64_t now)
{
	struct uet_chan_cqe e;
	struct sul_op *o;
	bool last;

	if (s->context == SUL_DRAIN_CTX)
		return; /* a discard of the glue (ep_drain) */
	if (s->context == 0) {
		struct uet_chan *ch = (s->flags & UET_SES_CQ_REMOTE) ?
				      remote_chan(c, s->pid_on_fep) :
				      rx_chan(c, s->pid_on_fep);

		if (ch == NULL) {
			/* remote events are only wanted by counters */
			if (!(s->flags & UET_SES_CQ_REMOTE))
				SUL_INC(c->st.orphan_cqe);
			return;
		}
		if (ch->cq_pending >= SUL_CHAN_PEND_UNSOL_MAX) {
			/* never polled: its unsolicited completions are lost,
			 * not everybody's */
			SUL_INC(c->st.cq_overrun);
			return;
		}
		cqe_from_ses(&e, s);
		e.context = 0;
		e.op = s->op;
		pend_add(c, ch, &e);
		return;
	}
	if (unlikely(s->context > c->nb_ops)) {
		SUL_INC(c->st.orphan_cqe);
		return;
	}
	o = &c->ops[s->context - 1];
	last = !o->multi || s->status != 0 ||
	       (s->flags & UET_SES_CQ_MULTI_RECV_DONE) != 0;
	/* a successful PEEK | CLAIM keeps its record (and so its SES
	 * context) for the CLAIM post that takes the message */
	if (o->peek_claim && s->status == 0 && o->chan != NULL) {
		o->claimed = 1;
		last = false;
	}
	if (o->chan != NULL && s->status != 0 && !o->rx &&
	    s->prov_errno == UET_RC_BAD_MKEY)
		key_bad(c, o->chan, now);
	if (o->chan != NULL && (s->status != 0 || o->want || o->rx)) {
		cqe_from_ses(&e, s);
		e.context = o->ctx;
		e.op = o->op;
		pend_add(c, o->chan, &e);
	}
	if (last)
		op_put(c, (uint32_t)(s->context - 1));
}

static unsigned int
completions(struct sul_ctx *c, uint64_t now)
{
	unsigned int work = pend_flush(c);
	uint32_t room;
	uint16_t n;

	for (;;) {
		room = RTE_MIN(pend_room(c), (uint32_t)SUL_CQ_BURST);
		if (room == 0)
			break;
		n = uet_ses_cq_poll(c->ses, c->scq, (uint16_t)room);
		for (uint16_t i = 0; i < n; i++)
			complete_ses(c, &c->scq[i], now);
		work += n;
		if (n < room)
			break;
	}
	return work + pend_flush(c);
}

/* ------------------------------------------------------------------ */
/* descriptors                                                         */
/* ------------------------------------------------------------------ */

/* The peer a descriptor of a channel of @p owner names (bounds,
 * generation and owner checked: a client of the service names its own
 * peers only, not those of another client on the context), or NULL. */
static const struct uet_ses_ulp_peer *
peer_of(const struct sul_ctx *c, uint64_t handle, uint32_t owner)
{
	uint32_t slot = (uint32_t)handle - 1; /* 0 wraps: out of range */
	const struct sul_peer *p;

	if (unlikely(slot >= c->max_peers))
		return NULL;
	p = &c->peers[slot];
	if (unlikely(!p->used || p->gen != (uint32_t)(handle >> 32) ||
		     p->owner != owner))
		return NULL;
	return &p->v;
}

/*
 * An address of a descriptor as the engine uses it. On a windowed channel
 * (a client of the uet-engine service) it is an offset into the client's
 * data window: [off, off + len) must lie inside it (-EFAULT; written so
 * that no sum can wrap), and the engine's own mapping of the window is
 * what it touches. Otherwise it is a virtual address of this process.
 */
static int
win_addr(const struct uet_chan *ch, uint64_t off, uint64_t len, void **out)
{
	if (ch->win_len == 0) {
		*out = (void *)(uintptr_t)off;
		return 0;
	}
	if (unlikely(off > ch->win_len || len > ch->win_len - off))
		return -EFAULT;
	*out = ch->win_base + off;
	return 0;
}

/* Local buffer of a descriptor: flat, or an IOV of at most one entry. */
static int
desc_buf(const struct uet_chan *ch, uint32_t flags, uint64_t addr,
	 uint64_t len, void **buf, uint64_t *blen)
{
	struct uet_chan_iov iov;
	void *arr;
	int rc;

	if (!(flags & UET_CHAN_F_IOV)) {
		*blen = len;
		return win_addr(ch, addr, len, buf);
	}
	if (len == 0) {
		*buf = NULL;
		*blen = 0;
		return 0;
	}
	/* the SES takes one contiguous buffer (no bounce copies here) */
	if (len > 1)
		return -EOPNOTSUPP;
	rc = win_addr(ch, addr, sizeof(iov), &arr);
	if (rc < 0)
		return rc;
	/* one read of an entry a client may still be writing */
	memcpy(&iov, arr, sizeof(iov));
	*blen = iov.len;
	return win_addr(ch, iov.addr, iov.len, buf);
}

/* The SQE's job is one its channel may use (a service client's grant). */
static bool
job_granted(const struct uet_chan *ch, uint32_t job)
{
	const struct uet_chan_jobs *js = ch->jobs;

	if (js == NULL)
		return true;
	for (uint32_t i = 0; i < js->nb && i < UET_CHAN_JOB_RANGES_MAX; i++)
		if (job >= js->r[i].first && job <= js->r[i].last)
			return true;
	return false;
}

static bool
op_is_rma(uint8_t op)
{
	return op == UET_CHAN_OP_WRITE || op == UET_CHAN_OP_READ ||
	       op == UET_CHAN_OP_ATOMIC || op == UET_CHAN_OP_FETCH_ATOMIC ||
	       op == UET_CHAN_OP_CSWAP;
}

/*
 * compare and result of an atomic, each as long as the operand buffer
 * (wr->len). On a windowed channel only the operands the op uses are
 * translated (an offset of 0 is a valid one there), the others stay NULL.
 */
static int
sqe_operands(const struct uet_chan *ch, const struct uet_chan_sqe *q,
	     struct uet_ses_wr *wr)
{
	void *p;
	int rc;

	if (ch->win_len == 0) {
		wr->compare = (const void *)(uintptr_t)q->compare;
		wr->result = (void *)(uintptr_t)q->result;
		return 0;
	}
	if (q->op == UET_CHAN_OP_CSWAP) {
		rc = win_addr(ch, q->compare, wr->len, &p);
		if (rc < 0)
			return rc;
		wr->compare = p;
	}
	if (q->op == UET_CHAN_OP_CSWAP || q->op == UET_CHAN_OP_FETCH_ATOMIC) {
		rc = win_addr(ch, q->result, wr->len, &p);
		if (rc < 0)
			return rc;
		wr->result = p;
	}
	return 0;
}

static int
sqe_to_wr(const struct sul_chan *sc, const struct uet_chan_sqe *q,
	  const struct uet_ses_ulp_peer *a, uint32_t slot,
	  struct uet_ses_wr *wr)
{
	uint16_t ri;
	int rc;

	if (q->op >= UET_CHAN_OP__COUNT)
		return -EINVAL;
	memset(wr, 0, sizeof(*wr));
	rc = desc_buf(sc->chan, q->flags, q->addr, q->len, &wr->buf, &wr->len);
	if (rc < 0)
		return rc;
	rc = sqe_operands(sc->chan, q, wr);
	if (rc < 0)
		return rc;
	wr->op = q->op;
	wr->atomic_op = q->atomic_op;
	wr->atomic_dt = q->atomic_dt;
	wr->tc = q->tc;
	/* always complete: the op record is recycled on the completion */
	wr->flags = (q->flags & (UET_CHAN_F_IMM | UET_CHAN_F_DELIVERY_COMPLETE)) |
		    UET_SES_WR_F_COMPLETION;
	if ((q->flags & UET_CHAN_F_RENDEZVOUS) &&
	    (q->op == UET_CHAN_OP_SEND || q->op == UET_CHAN_OP_TSEND))
		wr->flags |= UET_SES_WR_F_RENDEZVOUS;
	if ((q->flags & UET_CHAN_F_DEFERRABLE) &&
	    (q->op == UET_CHAN_OP_SEND || q->op == UET_CHAN_OP_TSEND))
		wr->flags |= UET_SES_WR_F_DEFERRABLE;
	if (q->mode == UET_CHAN_MODE_ROD)
		wr->flags |= UET_SES_WR_F_ORDERED;
	else if (q->mode == UET_CHAN_MODE_RUDI)
		wr->flags |= UET_SES_WR_F_IDEMPOTENT;
	wr->context = (uint64_t)slot + 1;
	memcpy(wr->dest.fa.addr, a->fa, sizeof(wr->dest.fa.addr));
	wr->dest.pid_on_fep = a->pid_on_fep & 0xFFF;
	ri = a->start_ri;
	wr->dest.relative = true;
	if (op_is_rma(q->op)) {
		wr->dest.resource_index = (ri + UET_SES_ULP_RI_RMA) & 0xFFF;
		/* provider keys: rkey = random(24) | generation(8) | slot(16) */
		wr->dest.ri_generation = (uint8_t)(q->rkey >> 16);
	} else {
		wr->dest.resource_index = (ri + UET_SES_ULP_RI_MSG) & 0xFFF;
	}
	wr->tag = q->tag;
	wr->rkey = q->rkey;
	wr->roffset = q->roffset;
	wr->imm_data = q->imm_data;
	wr->job = q->job;
	/* the channel's process sends */
	wr->flags |= UET_SES_WR_F_SRC;
	wr->src_pid = sc->pid;
	wr->initiator = sc->initiator;
	return 0;
}

/* 0 consumed (submitted or completed), -EAGAIN keep it. */
static int
sqe_submit(struct sul_ctx *c, const struct sul_chan *sc,
	   const struct uet_chan_sqe *q, uint32_t slot, uint64_t now)
{
	const struct uet_ses_ulp_peer *peer;
	enum uet_ses_rc urc = UET_RC_OK;
	struct uet_ses_wr wr;
	int rc;

	(void)now;
	if (q->op == UET_CHAN_OP_NOP) {
		complete_local(c, slot, 0, 0);
		return 0;
	}
	peer = peer_of(c, q->dest, sc->owner);
	if (unlikely(peer == NULL)) {
		SUL_INC(c->st.peer_bad);
		SUL_INC(c->st.sqe_rejected);
		complete_local(c, slot, -EINVAL, 0);
		return 0;
	}
	if (unlikely(!job_granted(sc->chan, q->job))) {
		SUL_INC(c->st.job_bad);
		SUL_INC(c->st.sqe_rejected);
		complete_local(c, slot, -EPERM, 0);
		return 0;
	}
	rc = sqe_to_wr(sc, q, peer, slot, &wr);
	if (unlikely(rc == -EFAULT)) {
		SUL_INC(c->st.win_bad);
		SUL_INC(c->st.sqe_rejected);
		complete_local(c, slot, rc, 0);
		return 0;
	}
	if (rc == 0)
		rc = uet_ses_submit(c->ses, &wr, &urc);
	if (rc == -EAGAIN) {
		SUL_INC(c->st.sqe_held);
		return -EAGAIN;
	}
	if (rc < 0) {
		SUL_INC(c->st.sqe_rejected);
		if (urc == UET_RC_OK)
			urc = rc == -EMSGSIZE ? UET_RC_TOO_LONG :
			      UET_RC_UNSUPPORTED_OP;
		complete_local(c, slot, rc, urc);
	}
	return 0;
}

static void
op_fill(struct sul_op *o, struct uet_chan *chan, uint64_t ctx, uint8_t op,
	bool rx, uint32_t flags)
{
	o->chan = chan;
	o->ctx = ctx;
	o->op = op;
	o->rx = rx;
	o->want = rx || (flags & UET_CHAN_F_COMPLETION) != 0;
	o->multi = rx && (flags & UET_CHAN_F_MULTI_RECV) != 0;
	o->peek_claim = rx && (flags & UET_CHAN_F_PEEK) &&
			(flags & UET_CHAN_F_CLAIM) &&
			!(flags & UET_CHAN_F_DISCARD);
	o->claimed = 0;
	o->orphan = 0;
}

static unsigned int
chan_sq(struct sul_ctx *c, struct sul_chan *sc, uint64_t now)
{
	unsigned int n = 0;

	if (pend_room(c) == 0 || now < sc->kb_until ||
	    chan_backlogged(sc->chan))
		return 0;
	if (sc->sq_slot != SUL_NONE) {
		if (sqe_submit(c, sc, &sc->sqe, sc->sq_slot, now) == -EAGAIN)
			return 0;
		sc->sq_slot = SUL_NONE;
		n++;
	}
	/* each descriptor may complete at once: keep a pending slot; a
	 * process at its ops_max sends again once one of its operations
	 * completed (they all end, bounded by the PDS) */
	while (n < SUL_CHAN_BUDGET && c->nb_free != 0 && pend_room(c) != 0 &&
	       !ep_full(c, sc)) {
		uint32_t slot;

		if (uet_chan_sq_take(sc->chan, &sc->sqe, 1) == 0)
			break;
		SUL_INC(c->st.sqe);
		slot = op_get(c);
		op_charge(c, slot, sc->ep);
		op_fill(&c->ops[slot], sc->chan, sc->sqe.context, sc->sqe.op,
			false, sc->sqe.flags);
		n++;
		if (sqe_submit(c, sc, &sc->sqe, slot, now) == -EAGAIN) {
			sc->sq_slot = slot; /* in order: nothing passes it */
			break;
		}
	}
	return n;
}

static void
rqe_cancel(struct sul_ctx *c, const struct sul_chan *sc, uint64_t ctx)
{
	struct uet_chan *chan = sc->chan;

	SUL_INC(c->st.cancel);
	/* rare: a scan of the op records (bounded by their number) */
	for (uint32_t i = 0; i < c->nb_ops; i++) {
		struct sul_op *o = &c->ops[i];

		if (o->chan == chan && o->rx && o->ctx == ctx &&
		    !o->claimed) {
			(void)uet_ses_recv_cancel_pid(c->ses, sc->pid,
						      (uint64_t)i + 1);
			return;
		}
	}
}

static int
rqe_post(struct sul_ctx *c, const struct sul_chan *sc,
	 const struct uet_chan_rqe *q, uint32_t slot, uint64_t now)
{
	struct uet_ses_recv r;
	int rc;

	memset(&r, 0, sizeof(r));
	r.op = q->op;
	r.pid_on_fep = sc->pid;
	r.context = (uint64_t)slot + 1;
	rc = desc_buf(sc->chan, q->flags, q->addr, q->len, &r.buf, &r.len);
	if (unlikely(rc == -EFAULT))
		SUL_INC(c->st.win_bad);
	if (q->op == UET_CHAN_RQ_TRECV) {
		r.tag = q->tag;
		r.ignore = q->ignore;
	}
	if (q->flags & UET_CHAN_F_MULTI_RECV) {
		r.flags |= UET_SES_RECV_F_MULTI;
		r.min_free = q->ignore; /* PROVIDER.md: min_multi_recv */
	}
	/* UET_CHAN_F_PEEK/CLAIM/DISCARD equal UET_SES_RECV_F_* */
	r.flags |= q->flags & (UET_CHAN_F_PEEK | UET_CHAN_F_CLAIM |
			       UET_CHAN_F_DISCARD);
	if (q->flags & UET_CHAN_F_SRC_FILTER) {
		const struct uet_ses_ulp_peer *peer = peer_of(c, q->src,
							      sc->owner);

		if (peer == NULL) {
			SUL_INC(c->st.peer_bad);
			rc = -EINVAL;
		} else {
			r.src = peer->initiator;
		}
		r.flags |= UET_SES_RECV_F_SRC;
	}
	if (rc == 0)
		rc = uet_ses_recv_post(c->ses, &r, now);
	if (rc == -EAGAIN)
		return -EAGAIN;
	if (rc < 0) {
		SUL_INC(c->st.rqe_rejected);
		complete_local(c, slot, rc, 0);
	}
	return 0;
}

/*
 * A CLAIM post (without PEEK) takes the message its PEEK | CLAIM post
 * reserved: the SES knows it by the SES context of that post, so the
 * claim runs on the record the PEEK | CLAIM kept (the front end posts
 * both with the same channel context). @p fresh is returned to the pool
 * then; without such a record the SES answers -ENOENT.
 */
static uint32_t
claim_slot(struct sul_ctx *c, struct uet_chan *chan,
	   const struct uet_chan_rqe *q, uint32_t fresh)
{
	if ((q->flags & (UET_CHAN_F_CLAIM | UET_CHAN_F_PEEK)) !=
	    UET_CHAN_F_CLAIM)
		return fresh;
	/* rare: a scan of the op records (bounded by their number) */
	for (uint32_t i = 0; i < c->nb_ops; i++) {
		struct sul_op *o = &c->ops[i];

		if (o->claimed && o->chan == chan && o->ctx == q->context) {
			op_put(c, fresh);
			return i;
		}
	}
	return fresh;
}

/*
 * A receive its process has no record left for (ops_max, counting the
 * one just taken): refused at once, -ENOSPC (a posted receive may wait
 * for ever, so its process could not count on the others ending).
 * A CLAIM takes the record its PEEK | CLAIM kept: never refused.
 */
static bool
rqe_over(struct sul_ctx *c, const struct sul_chan *sc, uint32_t slot)
{
	const struct sul_ep *ep = &c->eps[sc->ep];
	uint32_t f = sc->rqe.flags & (UET_CHAN_F_CLAIM | UET_CHAN_F_PEEK);

	if (ep->ops_max == 0 || ep->ops <= ep->ops_max ||
	    f == UET_CHAN_F_CLAIM)
		return false;
	op_fill(&c->ops[slot], sc->chan, sc->rqe.context, sc->rqe.op, true,
		sc->rqe.flags);
	SUL_INC(c->st.ops_quota);
	complete_local(c, slot, -ENOSPC, 0);
	return true;
}

static unsigned int
chan_rq(struct sul_ctx *c, struct sul_chan *sc, uint64_t now)
{
	unsigned int n = 0;

	if (pend_room(c) == 0 || chan_backlogged(sc->chan))
		return 0;
	if (sc->rq_slot != SUL_NONE) {
		if (rqe_post(c, sc, &sc->rqe, sc->rq_slot, now) == -EAGAIN)
			return 0;
		sc->rq_slot = SUL_NONE;
		n++;
	}
	/* each descriptor may complete at once: keep a pending slot */
	while (n < SUL_CHAN_BUDGET && c->nb_free != 0 && pend_room(c) != 0) {
		uint32_t slot;

		if (uet_chan_rq_take(sc->chan, &sc->rqe, 1) == 0)
			break;
		SUL_INC(c->st.rqe);
		n++;
		if (sc->rqe.op == UET_CHAN_RQ_CANCEL) {
			rqe_cancel(c, sc, sc->rqe.context);
			continue;
		}
		slot = op_get(c);
		op_charge(c, slot, sc->ep);
		if (rqe_over(c, sc, slot))
			continue;
		slot = claim_slot(c, sc->chan, &sc->rqe, slot);
		op_fill(&c->ops[slot], sc->chan, sc->rqe.context,
			sc->rqe.op, true, sc->rqe.flags);
		if (sc->rqe.op != UET_CHAN_RQ_RECV &&
		    sc->rqe.op != UET_CHAN_RQ_TRECV) {
			SUL_INC(c->st.rqe_rejected);
			complete_local(c, slot, -EINVAL, 0);
			continue;
		}
		if (rqe_post(c, sc, &sc->rqe, slot, now) == -EAGAIN) {
			sc->rq_slot = slot;
			break;
		}
	}
	return n;
}

/* ------------------------------------------------------------------ */
/* channel set                                                         */
/* ------------------------------------------------------------------ */

/* A message reserved by a PEEK | CLAIM whose channel went away: discard
 * it (its sender is released); the record returns on that completion. */
static void
claim_drop(struct sul_ctx *c, uint16_t pid, uint32_t slot, uint64_t now)
{
	struct uet_ses_recv r;

	memset(&r, 0, sizeof(r));
	r.op = c->ops[slot].op;
	r.pid_on_fep = pid;
	r.flags = UET_SES_RECV_F_CLAIM | UET_SES_RECV_F_DISCARD;
	r.context = (uint64_t)slot + 1;
	c->ops[slot].claimed = 0;
	if (uet_ses_recv_post(c->ses, &r, now) != 0)
		op_put(c, slot);
}

/* uet_ses_withdraw() selector: the operations of channels gone. */
static bool
sul_orphan(void *arg, uint64_t ctx)
{
	const struct sul_ctx *c = arg;

	return ctx != 0 && ctx <= c->nb_ops && c->ops[ctx - 1].orphan;
}

/* A channel went away (detached while stopped): forget its records,
 * withdraw its receives and its operations in the SES (what waits only
 * for the peer ends now; what is on the wire ends before JOB_DEL / EP_DEL
 * are answered, see ctl_poll), so that no buffer of it is touched once
 * the endpoint is closed. */
static void
chan_gone(struct sul_ctx *c, struct sul_chan *sc, uint64_t now)
{
	for (uint32_t i = 0; i < c->nb_ops; i++) {
		struct sul_op *o = &c->ops[i];

		if (o->chan != sc->chan)
			continue;
		o->chan = NULL;
		o->orphan = 1;
		if (o->claimed)
			claim_drop(c, sc->pid, i, now);
		else if (o->rx)
			(void)uet_ses_recv_cancel_pid(c->ses, sc->pid,
						      (uint64_t)i + 1);
	}
	if (sc->sq_slot != SUL_NONE)
		op_put(c, sc->sq_slot);
	if (sc->rq_slot != SUL_NONE)
		op_put(c, sc->rq_slot);
	for (uint32_t i = c->pend_head; i != c->pend_tail; i++)
		if (c->pend[i & c->pend_mask].chan == sc->chan)
			c->pend[i & c->pend_mask].chan = NULL;
	(void)uet_ses_withdraw(c->ses, sul_orphan, c, false);
}

/* The process a channel sends and receives as (EP_ADD, else slot 0). */
static void
chan_identity(const struct sul_ctx *c, struct sul_chan *sc)
{
	const struct sul_ep *ep;
	unsigned int i;

	sc->ep = 0;
	sc->owner = 0;
	sc->remote = false;
	for (i = 0; i < c->nb_binds; i++) {
		if (c->binds[i].chan == sc->chan) {
			sc->ep = c->binds[i].ep;
			sc->owner = c->binds[i].owner;
			sc->remote = c->binds[i].remote;
		}
	}
	ep = &c->eps[sc->ep];
	sc->pid = ep->pid;
	sc->initiator = ep->initiator;
}

static void
chans_sync(struct sul_ctx *c, struct uet_engine_lcore *lc, uint64_t now)
{
	unsigned int n = uet_engine_lcore_nb_chans(lc);
	struct sul_chan tmp[UET_ENGINE_CHANS_MAX];
	bool same = n == c->nb_chans;

	for (unsigned int i = 0; same && i < n; i++)
		same = uet_engine_lcore_chan(lc, i) == c->chans[i].chan;
	if (likely(same))
		return;
	/* rebuild, keeping the held descriptors of surviving channels */
	for (unsigned int i = 0; i < n; i++) {
		struct uet_chan *ch = uet_engine_lcore_chan(lc, i);
		unsigned int j;

		memset(&tmp[i], 0, sizeof(tmp[i]));
		tmp[i].chan = ch;
		tmp[i].sq_slot = SUL_NONE;
		tmp[i].rq_slot = SUL_NONE;
		chan_identity(c, &tmp[i]);
		for (j = 0; j < c->nb_chans; j++)
			if (c->chans[j].chan == ch)
				break;
		if (j < c->nb_chans) {
			tmp[i] = c->chans[j];
			c->chans[j].chan = NULL;
		}
	}
	for (unsigned int j = 0; j < c->nb_chans; j++)
		if (c->chans[j].chan != NULL)
			chan_gone(c, &c->chans[j], now);
	memcpy(c->chans, tmp, n * sizeof(tmp[0]));
	c->nb_chans = n;
}

/* ------------------------------------------------------------------ */
/* control path                                                        */
/* ------------------------------------------------------------------ */

static struct sul_job *
job_find(struct sul_ctx *c, uint32_t job, uint16_t pid)
{
	for (uint32_t i = 0; i < c->max_jobs; i++)
		if (c->jobs[i].ref != 0 && c->jobs[i].job == job &&
		    c->jobs[i].pid == pid)
			return &c->jobs[i];
	return NULL;
}

static void
job_tables_undo(struct sul_ctx *c, struct sul_job *j)
{
	uint16_t rma = (c->start_ri + UET_SES_ULP_RI_RMA) & 0xFFF;

	if (j->ri_msg >= 0)
		(void)uet_ses_ri_del(c->mr, j->ri_msg);
	if (j->ri_rdv >= 0)
		(void)uet_ses_ri_del(c->mr, j->ri_rdv);
	if (j->ri_rma >= 0 && j->alias)
		(void)uet_ses_ri_alias_del(c->mr, j->ri_rma, j->pid, rma);
	else if (j->ri_rma >= 0)
		(void)uet_ses_ri_del(c->mr, j->ri_rma);
}

/*
 * The RI tables of {job, pid}: MSG (start_ri), RMA (start_ri + 1) and
 * rendezvous (start_ri + 2). Another process than the context's shares
 * the context's RMA table of the job (@p base: memory regions are the
 * domain's), under an alias of its own PIDonFEP.
 */
static int
job_tables(struct sul_ctx *c, struct sul_job *j, const struct sul_job *base)
{
	/* MSG: initiators address a process by FA and PIDonFEP only (a
	 * libfabric address has no RI generation), so the table keeps
	 * generation 0 when an endpoint is closed and re-created */
	struct uet_ses_ri_attr ra = {
		.relative = true, .job_id = j->job, .pid_on_fep = j->pid,
		.type = UET_SES_RI_MSG, .generation_zero = true,
	};
	uint16_t rma = (c->start_ri + UET_SES_ULP_RI_RMA) & 0xFFF;
	int rc;

	ra.resource_index = (c->start_ri + UET_SES_ULP_RI_MSG) & 0xFFF;
	j->ri_msg = uet_ses_ri_add(c->mr, &ra);
	ra.generation_zero = false;
	ra.type = UET_SES_RI_RMA;
	/* another process's keys (a client of the service): no oracle */
	ra.opaque_errors = j->pid != c->pid;
	ra.resource_index = (c->start_ri + UET_SES_ULP_RI_RDV) & 0xFFF;
	j->ri_rdv = uet_ses_ri_add(c->mr, &ra);
	j->alias = base != NULL;
	if (base != NULL) {
		j->ri_rma = base->ri_rma;
		rc = uet_ses_ri_alias_add(c->mr, j->ri_rma, j->pid, rma);
		if (rc < 0)
			j->ri_rma = rc;
	} else {
		ra.resource_index = rma;
		j->ri_rma = uet_ses_ri_add(c->mr, &ra);
	}
	if (j->ri_msg >= 0 && j->ri_rma >= 0 && j->ri_rdv >= 0)
		return 0;
	rc = j->ri_msg < 0 ? j->ri_msg : j->ri_rma < 0 ? j->ri_rma : j->ri_rdv;
	job_tables_undo(c, j);
	return rc;
}

static int job_del(struct sul_ctx *c, uint32_t job, uint16_t pid);

/* Authorise @p job for process @p pid (refcounted) with its RI tables. */
static int
job_add(struct sul_ctx *c, uint32_t job, uint16_t pid, bool own)
{
	struct sul_job *j = job_find(c, job, pid), *base = NULL;
	int rc;

	own = own && pid != c->pid;
	if (j != NULL) {
		/* another process's table is an alias unless its own */
		if (pid != c->pid && j->alias == own)
			return -EEXIST;
		j->ref++;
		return 0;
	}
	if (pid != c->pid && !own) {
		rc = job_add(c, job, c->pid, false);
		if (rc < 0)
			return rc;
		base = job_find(c, job, c->pid);
	}
	for (uint32_t i = 0; i < c->max_jobs && j == NULL; i++)
		if (c->jobs[i].ref == 0)
			j = &c->jobs[i];
	rc = j == NULL ? -ENOSPC : uet_ses_mr_auth_add(c->mr, job, pid);
	if (rc == 0) {
		j->job = job;
		j->pid = pid;
		rc = job_tables(c, j, base);
		if (rc < 0)
			(void)uet_ses_mr_auth_del(c->mr, job, pid);
	}
	if (rc < 0) {
		if (base != NULL)
			(void)job_del(c, job, c->pid);
		return rc;
	}
	j->ref = 1;
	return 0;
}

static int
job_del(struct sul_ctx *c, uint32_t job, uint16_t pid)
{
	struct sul_job *j = job_find(c, job, pid);
	uint16_t rma = (c->start_ri + UET_SES_ULP_RI_RMA) & 0xFFF;
	int rc;

	if (j == NULL)
		return -ENOENT;
	if (j->ref > 1) {
		j->ref--;
		return 0;
	}
	/* the context's RMA table goes last: regions may still be there */
	if (!j->alias) {
		rc = uet_ses_ri_del(c->mr, j->ri_rma);
		if (rc < 0)
			return rc; /* -EBUSY: regions or aliases remain */
	}
	/* rendezvous keys live as long as their sends */
	rc = uet_ses_ri_del(c->mr, j->ri_rdv);
	if (rc < 0) {
		if (!j->alias) {
			struct uet_ses_ri_attr ra = {
				.relative = true, .job_id = job,
				.pid_on_fep = pid, .resource_index = rma,
				.type = UET_SES_RI_RMA,
				.opaque_errors = pid != c->pid,
			};

			j->ri_rma = uet_ses_ri_add(c->mr, &ra);
		}
		return rc;
	}
	if (j->alias)
		(void)uet_ses_ri_alias_del(c->mr, j->ri_rma, pid, rma);
	(void)uet_ses_ri_del(c->mr, j->ri_msg);
	(void)uet_ses_mr_auth_del(c->mr, job, pid);
	j->ref = 0;
	if (j->alias)
		(void)job_del(c, job, c->pid);
	return 0;
}

/* ------------------------------------------------------------------ */
/* processes (EP_ADD / EP_DEL)                                         */
/* ------------------------------------------------------------------ */

static int
bind_find(const struct sul_ctx *c, const struct uet_chan *chan)
{
	for (unsigned int i = 0; i < c->nb_binds; i++)
		if (c->binds[i].chan == chan)
			return (int)i;
	return -1;
}

/* A free process slot whose receive context holds nothing of a previous
 * process: never used, or freed with no target record open since. */
static int
ep_slot_free(struct sul_ctx *c)
{
	struct uet_ses_pool_info pi;

	uet_ses_pool_info_get(c->ses, &pi);
	for (unsigned int i = 1; i < SUL_EPS_MAX; i++)
		if (c->eps[i].ref == 0 && (!c->eps[i].dirty || pi.tgt_used == 0))
			return (int)i;
	return -1;
}

/* Local delivery steers frames that open a PDC to a process to the
 * context serving it (docs/ENGINE.md "Frames to the engine's own
 * addresses"). */
static void
sul_pid_local(struct sul_ctx *c, uint16_t pid, bool on)
{
	struct uet_engine_lcore *lc = uet_ulp_ctx_lcore(c->uctx);

	(void)uet_engine_pid_context_set(uet_engine_lcore_engine(lc), pid,
					 on ? uet_engine_lcore_index(lc) :
					      UINT32_MAX);
}

static int
ep_add(struct sul_ctx *c, const struct uet_ses_ulp_ctl *q)
{
	int i = 0, rc;

	if (q->chan == NULL || q->pid > 0xFFF)
		return -EINVAL;
	if (bind_find(c, q->chan) >= 0)
		return -EEXIST;
	if (c->nb_binds == RTE_DIM(c->binds))
		return -ENOSPC;
	if (q->pid == c->pid && q->profile != 0)
		c->eps[0].profile = q->profile;
	if (q->pid != c->pid) {
		for (i = 1; i < SUL_EPS_MAX; i++)
			if (c->eps[i].ref != 0 && c->eps[i].pid == q->pid)
				break;
		if (i == SUL_EPS_MAX) {
			i = ep_slot_free(c);
			if (i < 0)
				return -ENOSPC;
			rc = uet_ses_mr_pid_add(c->mr, q->pid);
			if (rc < 0)
				return rc;
			c->eps[i].pid = q->pid;
			c->eps[i].initiator = q->initiator;
			c->eps[i].profile = q->profile != 0 ? q->profile :
					    UET_PROFILE_HPC;
			c->eps[i].dirty = false;
			c->eps[i].ops_max = q->ops_max;
			sul_pid_local(c, q->pid, true);
		}
		c->eps[i].ref++;
	}
	c->binds[c->nb_binds].chan = q->chan;
	c->binds[c->nb_binds].ep = (uint32_t)i;
	c->binds[c->nb_binds].remote = q->remote_events;
	c->binds[c->nb_binds].owner = q->owner_id;
	c->nb_binds++;
	return 0;
}

/* Drop the unexpected messages a receive context still holds (their
 * senders are released, FI_DISCARD semantics): wildcard PEEK | DISCARD
 * posts, untagged and tagged, until it holds none (bounded by its pool;
 * a message reserved by a PEEK | CLAIM was dropped by chan_gone). */
static void
ep_drain(struct sul_ctx *c, uint16_t pid, uint64_t now)
{
	struct uet_ses_match *m = sul_match_of(c, pid);
	struct uet_ses_match_pool_info pi;
	struct uet_ses_recv r;

	if (m == NULL)
		return;
	uet_ses_match_pool_info(m, &pi);
	for (uint32_t k = 0; k < pi.unexp_total &&
			     pi.unexp_free < pi.unexp_total; k++) {
		for (uint8_t op = UET_CHAN_RQ_RECV; op <= UET_CHAN_RQ_TRECV;
		     op++) {
			memset(&r, 0, sizeof(r));
			r.op = op;
			r.flags = UET_SES_RECV_F_PEEK | UET_SES_RECV_F_DISCARD;
			r.context = SUL_DRAIN_CTX;
			r.ignore = UINT64_MAX;
			r.pid_on_fep = pid;
			(void)uet_ses_recv_post(c->ses, &r, now);
		}
		(void)completions(c, now); /* their completions are dropped */
		uet_ses_match_pool_info(m, &pi);
	}
}

static int
ep_del(struct sul_ctx *c, struct uet_chan *chan, uint64_t now)
{
	int b = bind_find(c, chan);
	struct sul_ep *ep;

	if (b < 0)
		return -ENOENT;
	ep = &c->eps[c->binds[b].ep];
	c->binds[b] = c->binds[--c->nb_binds];
	if (ep == &c->eps[0])
		return 0;
	if (ep->ref > 1) {
		ep->ref--;
		return 0;
	}
	ep_drain(c, ep->pid, now); /* while its receive context resolves */
	ep->ref = 0;
	ep->dirty = true;
	sul_pid_local(c, ep->pid, false);
	return uet_ses_mr_pid_del(c->mr, ep->pid);
}

/* ------------------------------------------------------------------ */
/* peers (PEER_ADD / PEER_DEL)                                         */
/* ------------------------------------------------------------------ */

static int
peer_add(struct sul_ctx *c, struct uet_ses_ulp_ctl *q)
{
	struct sul_peer *p;
	uint32_t slot = c->peer_free;

	if (q->peer.pid_on_fep > 0xFFF || q->peer.start_ri > 0xFFF)
		return -EINVAL;
	if (slot == SUL_NONE)
		return -ENOSPC;
	p = &c->peers[slot];
	c->peer_free = p->next;
	p->v = q->peer;
	p->owner = q->owner_id;
	p->used = true;
	/* single writer, read with relaxed loads (like SUL_INC) */
	__atomic_store_n(&c->st.peers, c->st.peers + 1, __ATOMIC_RELAXED);
	q->handle = ((uint64_t)p->gen << 32) | (slot + 1);
	return 0;
}

static int
peer_del(struct sul_ctx *c, uint64_t handle, uint32_t owner)
{
	uint32_t slot = (uint32_t)handle - 1;
	struct sul_peer *p;

	if (peer_of(c, handle, owner) == NULL)
		return -ENOENT;
	p = &c->peers[slot];
	p->used = false;
	p->gen++;
	p->next = c->peer_free;
	c->peer_free = slot;
	__atomic_store_n(&c->st.peers, c->st.peers - 1, __ATOMIC_RELAXED);
	return 0;
}

static int
mr_reg(struct sul_ctx *c, struct uet_ses_ulp_ctl *q)
{
	struct sul_job *j = job_find(c, q->job, q->has_pid ? q->pid : c->pid);
	int rc;
	struct uet_ses_mr_attr a = {
		.base = q->base, .length = q->len, .access = q->access,
		.idempotent = q->idempotent, .virt_addr = true,
		.owner = q->owner,
	};
	uint8_t probe;

	if (j == NULL)
		return -ENOENT;
	if (q->owner < 0)
		return -EINVAL;
	/* another process's memory: reachable now, or refused now */
	if (q->owner != 0 && q->len != 0) {
		rc = c->mem_ops->read(c->mem_arg, q->owner, &probe, q->base,
				      1);
		if (rc != 0)
			return rc;
	}
	a.ri = j->ri_rma;
	rc = uet_ses_mr_reg(c->mr, &a, &q->key);
	/* disabled from the start (FI_MR_ENDPOINT until fi_mr_enable) */
	if (rc == 0 && q->disabled)
		(void)uet_ses_mr_enable(c->mr, q->key, false);
	return rc;
}

static void
ctl_answer(struct sul_ctl_msg *m)
{
	unsigned int expect = SUL_CTL_RUNNING;

	if (!atomic_compare_exchange_strong(&m->state, &expect, SUL_CTL_DONE))
		rte_free(m); /* the caller gave up waiting (ABANDONED) */
}

/* Whether return-direction READ data may still be built from memory. */
static bool
ret_busy(const struct sul_ctx *c)
{
	struct uet_ses_pool_info pi;

	uet_ses_pool_info_get(c->ses, &pi);
	return pi.ret_used != 0;
}

static void
ctl_one(struct sul_ctx *c, struct sul_ctl_msg *m, uint64_t now)
{
	struct uet_ses_ulp_ctl *q = &m->req;
	unsigned int expect = SUL_CTL_PENDING;

	/* the caller timed out before we got to it: not applied */
	if (!atomic_compare_exchange_strong(&m->state, &expect,
					    SUL_CTL_RUNNING)) {
		SUL_INC(c->st.ctl_cancelled);
		rte_free(m);
		return;
	}
	switch (q->op) {
	case UET_SES_ULP_JOB_ADD:
		q->rc = job_add(c, q->job, q->has_pid ? q->pid : c->pid,
				q->own_rma);
		break;
	case UET_SES_ULP_JOB_DEL:
		q->rc = job_del(c, q->job, q->has_pid ? q->pid : c->pid);
		break;
	case UET_SES_ULP_MR_REG:
		q->rc = mr_reg(c, q);
		break;
	case UET_SES_ULP_MR_DEREG:
		q->rc = uet_ses_mr_dereg(c->mr, q->key);
		break;
	case UET_SES_ULP_MR_ENABLE:
		q->rc = uet_ses_mr_enable(c->mr, q->key, !q->disabled);
		break;
	case UET_SES_ULP_EP_ADD:
		q->rc = ep_add(c, q);
		break;
	case UET_SES_ULP_EP_DEL:
		q->rc = ep_del(c, q->chan, now);
		break;
	case UET_SES_ULP_PEER_ADD:
		q->rc = peer_add(c, q);
		break;
	case UET_SES_ULP_PEER_DEL:
		q->rc = peer_del(c, q->handle, q->owner_id);
		break;
	default:
		q->rc = -EINVAL;
		break;
	}
	SUL_INC(c->st.ctl);
	/* the key resolves no more; READ responses in flight may still be
	 * rebuilt from the region: answer once they are all acknowledged */
	if (q->op == UET_SES_ULP_MR_DEREG && q->rc == 0 && ret_busy(c) &&
	    c->nb_dereg_wait < RTE_DIM(c->dereg_wait)) {
		SUL_INC(c->st.dereg_waits);
		c->dereg_wait[c->nb_dereg_wait++] = m;
		return;
	}
	ctl_answer(m);
}

/* Whether @p m is the JOB_DEL / EP_DEL of a closed endpoint that must
 * wait: the SES may still touch memory of withdrawn operations. */
static bool
ctl_must_wait(struct sul_ctx *c, const struct sul_ctl_msg *m, uint64_t now)
{
	if (m->req.op != UET_SES_ULP_JOB_DEL && m->req.op != UET_SES_ULP_EP_DEL)
		return false;
	if (uet_ses_withdraw(c->ses, sul_orphan, c, false) == 0)
		return false;
	SUL_INC(c->st.withdraw_waits);
	c->held_at = now;
	return true;
}

/* Serve the held requests once the SES let go (or, after
 * SUL_WITHDRAW_NS, detach what is left); false while they still wait. */
static bool
ctl_held_poll(struct sul_ctx *c, uint64_t now)
{
	bool force = now - c->held_at > SUL_WITHDRAW_NS;

	if (uet_ses_withdraw(c->ses, sul_orphan, c, force) != 0)
		return false;
	if (force)
		SUL_INC(c->st.withdraw_forced);
	for (unsigned int i = 0; i < c->nb_held; i++)
		ctl_one(c, c->held[i], now);
	c->nb_held = 0;
	return true;
}

static unsigned int
ctl_poll(struct sul_ctx *c, uint64_t now)
{
	void *m[SUL_CTL_BURST];
	unsigned int n;

	if (c->nb_dereg_wait != 0 && !ret_busy(c)) {
		for (unsigned int i = 0; i < c->nb_dereg_wait; i++)
			ctl_answer(c->dereg_wait[i]);
		c->nb_dereg_wait = 0;
	}
	if (c->nb_held != 0 && !ctl_held_poll(c, now))
		return 0;
	n = rte_ring_sc_dequeue_burst(c->ctl, m, SUL_CTL_BURST, NULL);
	for (unsigned int i = 0; i < n; i++) {
		if (c->nb_held == 0 && !ctl_must_wait(c, m[i], now))
			ctl_one(c, m[i], now);
		else
			c->held[c->nb_held++] = m[i];
	}
	return n;
}

static struct sul_ctx *
sul_of(struct uet_engine *e, unsigned int idx)
{
	struct uet_ulp_ctx *u = uet_ulp_ctx_get(e, idx);
	struct sul_ctx *c;

	if (u == NULL || u->ulp != &uet_ses_ulp_ops)
		return NULL;
	c = uet_ulp_ctx_priv(u);
	return c != NULL && c->magic == SUL_MAGIC ? c : NULL;
}

int
uet_ses_ulp_ctl(struct uet_engine *e, unsigned int ctx_idx,
		struct uet_ses_ulp_ctl *req, void (*progress)(void *),
		void *arg)
{
	struct sul_ctx *c;
	struct sul_ctl_msg *m;
	uint64_t end;
	unsigned int expect;

	if (e == NULL || req == NULL)
		return -EINVAL;
	c = sul_of(e, ctx_idx);
	if (c == NULL)
		return -ENOENT;
	m = rte_zmalloc("sul_ctl", sizeof(*m), 0);
	if (m == NULL)
		return -ENOMEM;
	m->req = *req;
	atomic_init(&m->state, SUL_CTL_PENDING);
	if (rte_ring_mp_enqueue(c->ctl, m) != 0) {
		rte_free(m);
		return -EAGAIN;
	}
	/* an AUTO lcore asleep (docs/ENGINE.md "Progress modes") */
	uet_engine_wake(e, ctx_idx);
	end = rte_get_timer_cycles() + 5 * rte_get_timer_hz();
	while (atomic_load(&m->state) == SUL_CTL_PENDING &&
	       rte_get_timer_cycles() < end) {
		if (uet_engine_running(e))
			rte_pause();
		else if (progress != NULL)
			progress(arg);
		else
			(void)uet_engine_poll(e, 1);
	}
	expect = SUL_CTL_PENDING;
	if (atomic_compare_exchange_strong(&m->state, &expect,
					   SUL_CTL_CANCELLED))
		return -ETIMEDOUT; /* never applied; the lcore frees it */
	/* started: its answer comes (late), it is not abandoned lightly */
	end = rte_get_timer_cycles() + SUL_CTL_RUNNING_MAX_S *
	      rte_get_timer_hz();
	while (atomic_load(&m->state) == SUL_CTL_RUNNING &&
	       rte_get_timer_cycles() < end) {
		if (uet_engine_running(e))
			rte_delay_us_sleep(100);
		else if (progress != NULL)
			progress(arg);
		else
			(void)uet_engine_poll(e, 1);
	}
	expect = SUL_CTL_RUNNING;
	if (atomic_compare_exchange_strong(&m->state, &expect,
					   SUL_CTL_ABANDONED))
		return -EINPROGRESS; /* applied or not: unknown */
	*req = m->req;
	rte_free(m);
	return 0;
}

int
uet_ses_ulp_ctl_post(struct uet_engine *e, unsigned int ctx_idx,
		     const struct uet_ses_ulp_ctl *req,
		     struct uet_ses_ulp_ctl_pending **op)
{
	struct sul_ctl_msg *m;
	struct sul_ctx *c;

	if (e == NULL || req == NULL || op == NULL)
		return -EINVAL;
	c = sul_of(e, ctx_idx);
	if (c == NULL)
		return -ENOENT;
	m = rte_zmalloc("sul_ctl", sizeof(*m), 0);
	if (m == NULL)
		return -ENOMEM;
	m->req = *req;
	atomic_init(&m->state, SUL_CTL_PENDING);
	if (rte_ring_mp_enqueue(c->ctl, m) != 0) {
		rte_free(m);
		return -EAGAIN;
	}
	uet_engine_wake(e, ctx_idx);
	*op = (struct uet_ses_ulp_ctl_pending *)m;
	return 0;
}

int
uet_ses_ulp_ctl_poll(struct uet_ses_ulp_ctl_pending *op, struct uet_ses_ulp_ctl *req)
{
	struct sul_ctl_msg *m = (struct sul_ctl_msg *)op;

	if (m == NULL || req == NULL)
		return -EINVAL;
	if (atomic_load(&m->state) != SUL_CTL_DONE)
		return -EAGAIN;
	*req = m->req;
	rte_free(m);
	return 0;
}

int
uet_ses_ulp_identity(struct uet_engine *e, unsigned int ctx_idx,
		     uint16_t *pid, uint32_t *initiator)
{
	struct sul_ctx *c = sul_of(e, ctx_idx);

	if (c == NULL)
		return -ENOENT;
	if (pid != NULL)
		*pid = c->pid;
	if (initiator != NULL)
		*initiator = c->initiator;
	return 0;
}

int
uet_ses_ulp_stats_get(struct uet_engine *e, unsigned int ctx_idx,
		      struct uet_ses_ulp_stats *st, const struct uet_ses **ses)
{
	struct sul_ctx *c = sul_of(e, ctx_idx);

	if (c == NULL)
		return -ENOENT;
	if (st != NULL)
		*st = c->st;
	if (ses != NULL)
		*ses = c->ses;
	return 0;
}

/* ------------------------------------------------------------------ */
/* ULP callbacks                                                       */
/* ------------------------------------------------------------------ */

static uint32_t
pow2_at_least(uint32_t n)
{
	uint32_t p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

/* The SES's rendezvous table of @p job (uet_ses_config.rdv_ri_of). */
static int
sul_rdv_ri_of(void *arg, uint32_t job, uint16_t pid)
{
	struct sul_ctx *c = arg;
	const struct sul_job *j = job_find(c, job, pid);

	return j != NULL ? j->ri_rdv : -1;
}

/* The profile of process @p pid (uet_ses_config.profile_of): its
 * domain's (EP_ADD), HPC for the unknown. */
static enum uet_profile
sul_profile_of(void *arg, uint16_t pid)
{
	const struct sul_ctx *c = arg;

	if (pid == c->pid)
		return c->eps[0].profile;
	for (unsigned int i = 1; i < SUL_EPS_MAX; i++)
		if (c->eps[i].ref != 0 && c->eps[i].pid == pid)
			return c->eps[i].profile;
	return UET_PROFILE_HPC;
}

/* uet_ses_config.submit: the SES's packets take the engine's one
 * submission path (MTU check, entropy policy, submit counters). The
 * engine's clock is the one the SES was given. */
static int
sul_submit(void *arg, const struct uet_pds_submit *ps, uint64_t now)
{
	const struct sul_ctx *c = arg;
	struct uet_ulp_req r;

	(void)now;
	r.dst = ps->dst;
	r.job = ps->job;
	r.tc = ps->tc;
	r.mode = ps->mode;
	r.next_hdr = ps->next_hdr;
	r.flags = ps->flags;
	r.len = ps->len;
	r.pdc = ps->pdc;
	r.cookie = ps->cookie;
	return uet_ulp_submit(c->uctx, &r);
}

/* The SES's receive context of process @p pid (uet_ses_config.match_of). */
static struct uet_ses_match *
sul_match_of(void *arg, uint16_t pid)
{
	const struct sul_ctx *c = arg;

	if (pid == c->pid)
		return c->eps[0].match;
	for (unsigned int i = 1; i < SUL_EPS_MAX; i++)
		if (c->eps[i].ref != 0 && c->eps[i].pid == pid)
			return c->eps[i].match;
	return NULL;
}

static void
sul_free(struct sul_ctx *c)
{
	uet_ses_free(c->ses);
	uet_ses_match_free(c->match);
	for (unsigned int i = 1; i < SUL_EPS_MAX; i++)
		uet_ses_match_free(c->eps[i].match);
	uet_ses_mr_table_free(c->mr);
	rte_ring_free(c->ctl);
	rte_free(c->jobs);
	rte_free(c->peers);
	rte_free(c->ops);
	rte_free(c->pend);
	rte_free(c);
}

static int
sul_tables(struct sul_ctx *c, const struct uet_ses_ulp_params *p)
{
	struct uet_ses_mr_table_attr ta = {
		.max_entries = p->max_mrs ? p->max_mrs : 1024,
		.max_ri = 3 * c->max_jobs,
		.max_pids = SUL_EPS_MAX,
		.max_auth = c->max_jobs,
		.vendor = 0x55,
	};
	struct uet_ses_match_config mc;
	uint32_t bytes = p->unexp_bytes ? p->unexp_bytes : 4u << 20;

	c->mr = uet_ses_mr_table_create(&ta);
	if (c->mr == NULL || uet_ses_mr_pid_add(c->mr, c->pid) != 0)
		return -ENOMEM;
	uet_ses_match_config_default(&mc);
	mc.max_posted = p->max_posted ? p->max_posted : 1024;
	mc.chunk_size = 1024;
	mc.chunks = RTE_MAX(bytes / mc.chunk_size, 64u);
	c->match = uet_ses_match_create(&mc);
	if (c->match == NULL)
		return -ENOMEM;
	c->eps[0].pid = c->pid;
	c->eps[0].initiator = c->initiator;
	c->eps[0].profile = UET_PROFILE_HPC;
	c->eps[0].match = c->match;
	/* the other processes (EP_ADD) get a quarter of the unexpected
	 * pool each */
	mc.chunks = RTE_MAX(mc.chunks / 4, 64u);
	for (unsigned int i = 1; i < SUL_EPS_MAX; i++) {
		c->eps[i].match = uet_ses_match_create(&mc);
		if (c->eps[i].match == NULL)
			return -ENOMEM;
	}
	return 0;
}

static int
sul_init(struct uet_ulp_ctx *uctx, void *arg, void **priv)
{
	const struct uet_ses_ulp_params *p = arg;
	struct uet_engine_lcore *lc = uet_ulp_ctx_lcore(uctx);
	unsigned int idx = uet_engine_lcore_index(lc);
	struct uet_ses_config sc;
	char name[RTE_RING_NAMESIZE];
	uint32_t msgs, posted;
	struct sul_ctx *c;
	int rc;

	if (p == NULL || p->max_peers > SUL_PEERS_MAX)
		return -EINVAL;
	c = rte_zmalloc("sul_ctx", sizeof(*c), RTE_CACHE_LINE_SIZE);
	if (c == NULL)
		return -ENOMEM;
	c->magic = SUL_MAGIC;
	c->uctx = uctx;
	c->pid = (uint16_t)((p->pid_base + idx) & 0xFFF);
	c->start_ri = p->start_ri;
	c->initiator = p->initiator_of != NULL ?
		       p->initiator_of(p->initiator_arg, idx, c->pid) :
		       (uint32_t)p->pid_base + idx;
	c->max_jobs = p->max_jobs ? p->max_jobs : 16;
	c->max_peers = p->max_peers ? p->max_peers : SUL_PEERS_DEFAULT;
	msgs = p->max_msgs ? p->max_msgs : 1024;
	posted = p->max_posted ? p->max_posted : 1024;
	rc = sul_tables(c, p);
	if (rc < 0)
		goto fail;
	uet_ses_config_default(&sc);
	sc.profile = UET_PROFILE_HPC; /* the provider enforces its domain's */
	sc.mtu = uet_ulp_max_len(uctx);
	sc.max_msgs = msgs;
	sc.cq_size = pow2_at_least(4 * (msgs + posted));
	sc.initiator_id = c->initiator;
	sc.pid_on_fep = c->pid;
	/* the front end picks rendezvous per SQE (UET_CHAN_F_RENDEZVOUS) */
	sc.rdv_threshold = UINT32_MAX;
	sc.rdv_eager = p->rdv_eager;
	sc.rdv_ri_of = sul_rdv_ri_of;
	sc.rdv_ri_arg = c;
	sc.rdv_resource_index = (c->start_ri + UET_SES_ULP_RI_RDV) & 0xFFF;
	sc.pds = uet_ulp_ctx_pds(uctx);
	sc.mr = c->mr;
	sc.match = c->match;
	sc.match_of = sul_match_of;
	sc.match_arg = c;
	sc.remote_events = true; /* routed to channels that asked */
	sc.profile_of = sul_profile_of;
	sc.profile_arg = c;
	sc.submit = sul_submit;
	sc.submit_arg = c;
	/* MR_REG of another owner: by its /proc/PID/mem descriptor, or
	 * the handle of the caller's accessor */
	sc.mem_ops = p->mem_ops != NULL ? p->mem_ops : &uet_cma_fd_mem_ops;
	sc.mem_arg = p->mem_ops != NULL ? p->mem_arg : NULL;
	c->mem_ops = sc.mem_ops;
	c->mem_arg = sc.mem_arg;
	c->ses = uet_ses_create(&sc);
	if (c->ses == NULL) {
		rc = -errno;
		goto fail;
	}
	c->nb_ops = msgs + posted;
	c->ops = rte_zmalloc("sul_ops", c->nb_ops * sizeof(*c->ops), 0);
	c->jobs = rte_zmalloc("sul_jobs", c->max_jobs * sizeof(*c->jobs), 0);
	c->peers = rte_zmalloc("sul_peers",
			       (size_t)c->max_peers * sizeof(*c->peers), 0);
	/* every op record's completion, plus the unsolicited ones a few
	 * channels may hold (SUL_CHAN_PEND_UNSOL_MAX each) */
	c->pend_mask = pow2_at_least(2 * c->nb_ops) - 1;
	c->pend = rte_zmalloc("sul_pend", (c->pend_mask + 1) *
			      sizeof(*c->pend), 0);
	snprintf(name, sizeof(name), "sulctl%u", atomic_fetch_add(&sul_seq, 1));
	c->ctl = rte_ring_create(name, SUL_CTL_RING, SOCKET_ID_ANY,
				 RING_F_SC_DEQ);
	if (c->ops == NULL || c->jobs == NULL || c->peers == NULL ||
	    c->pend == NULL || c->ctl == NULL) {
		rc = -ENOMEM;
		goto fail;
	}
	c->free_head = SUL_NONE;
	for (uint32_t i = c->nb_ops; i-- > 0;)
		op_put(c, i);
	for (uint32_t i = 0; i < c->max_peers; i++)
		c->peers[i].next = i + 1 < c->max_peers ? i + 1 : SUL_NONE;
	c->peer_free = 0;
	sul_pid_local(c, c->pid, true);
	*priv = c;
	return 0;
fail:
	sul_free(c);
	return rc < 0 ? rc : -ENOMEM;
}

static void
sul_fini(struct uet_ulp_ctx *uctx, void *priv)
{
	struct sul_ctx *c = priv;
	void *m;

	(void)uctx;
	if (c == NULL)
		return;
	for (unsigned int i = 0; i < c->nb_dereg_wait; i++)
		ctl_answer(c->dereg_wait[i]);
	c->nb_dereg_wait = 0;
	/* the SES goes away with everything it could still touch */
	for (unsigned int i = 0; i < c->nb_held; i++)
		ctl_one(c, c->held[i], 0);
	c->nb_held = 0;
	/* answer requests nobody will process any more */
	while (rte_ring_sc_dequeue(c->ctl, &m) == 0) {
		struct sul_ctl_msg *cm = m;
		unsigned int expect = SUL_CTL_PENDING;

		cm->req.rc = -ESHUTDOWN;
		if (!atomic_compare_exchange_strong(&cm->state, &expect,
						    SUL_CTL_DONE))
			rte_free(cm);
	}
	sul_free(c);
}

static int
sul_build(void *priv, uint64_t cookie, uint32_t psn, bool is_retx,
	  uint8_t *buf, size_t cap)
{
	struct sul_ctx *c = priv;

	(void)is_retx;
	return uet_ses_build(c->ses, cookie, psn, buf, cap);
}

static void
sul_event(void *priv, struct uet_ulp_ctx *uctx,
	  const struct uet_pds_event *ev, const uint8_t *ses, uint16_t len)
{
	struct sul_ctx *c = priv;

	(void)uet_ses_event(c->ses, ev, ses, len, uet_ulp_now(uctx));
}

static bool
sul_resp_expected(void *priv, uint8_t pds_type, uint8_t next_hdr,
		  const uint8_t *ses, uint16_t len)
{
	(void)priv;
	return uet_ses_rx_resp_expected(pds_type, next_hdr, ses, len);
}

static unsigned int
sul_poll(void *priv, struct uet_ulp_ctx *uctx, uint64_t now)
{
	struct sul_ctx *c = priv;
	unsigned int work;

	/* channels first: a detached channel's receives are withdrawn
	 * before the EP_DEL that follows its detach frees its process */
	chans_sync(c, uet_ulp_ctx_lcore(uctx), now);
	work = ctl_poll(c, now);
	work += completions(c, now);
	for (unsigned int i = 0; i < c->nb_chans; i++) {
		work += chan_rq(c, &c->chans[i], now);
		work += chan_sq(c, &c->chans[i], now);
	}
	work += uet_ses_progress(c->ses, now);
	/* completions made at once (NOP, refused) go out this iteration */
	work += pend_flush(c);
	return work;
}

const struct uet_ulp_ops uet_ses_ulp_ops = {
	.size = sizeof(struct uet_ulp_ops),
	.name = "ses",
	.init = sul_init,
	.fini = sul_fini,
	.build = sul_build,
	.poll = sul_poll,
	.event = sul_event,
	.resp_expected_raw = sul_resp_expected,
};
