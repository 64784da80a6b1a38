/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DST_H
#define DST_H

/*
 * Deterministic simulation test (DST) of the whole protocol stack: N nodes,
 * each with the real sans-I/O PDS, SES, congestion control and load
 * balancing wired as the engine wires them (pmd/proto/proto.c, pmd/ses_ulp/),
 * joined by a simulated IPv6/UDP network that an adversary controls. One
 * thread, virtual time, and one 64-bit seed that decides everything: the
 * plan (configuration, workload, fault schedule) is drawn from it, and so
 * is every per-packet decision. docs/DST.md describes its use.
 *
 * Layout: dst_plan.c draws and prints plans, dst_net.c is the network and
 * its faults, dst_node.c the nodes and the wire-level invariants,
 * dst_work.c the workload and the end-to-end invariants, dst_sim.c the
 * event loop, the trace and the shrinker.
 */

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uet/uet_pds.h>
#include <uet/uet_pds_cc.h>
#include <uet/uet_rand.h>
#include <uet/uet_ses.h>
#include <uet/uet_ses_mr.h>
#include <uet/uet_ses_match.h>
#include <uet/uet_wire_packet.h>

#define DST_NODES_MAX 16
#define DST_OPS_MAX 192
#define DST_FAULTS_MAX 48
#define DST_MTU 2048            /* SES bytes per packet */
#define DST_FRAME_MAX 2304
#define DST_PKTS_MAX 16384      /* packets in flight in the network */
#define DST_MEM (2048u * 1024)  /* RMA memory of one node */
#define DST_JOB 42
#define DST_PID 1
#define DST_RI_RMA 1
#define DST_RI_MSG 2
#define DST_RI_RDV 3
#define DST_EV_BASE 49152
#define DST_EV_COUNT 256
#define DST_TRIM_DSCP 46
#define DST_UNTAGGED_MAX 12288  /* untagged sends land in such buffers */
#define DST_RETX_MAP 4096       /* tracked cookies per node */
#define DST_WIN_MAP 256         /* tracked transmit PSN spaces per node */
#define DST_ECN_RING 64         /* remembered CE marks per receive space */
/* The network's maximum packet lifetime (UEC 1.0 3.5 PDC establishment,
 * MPL), every node's mpl_ns: a 60 ms spike, a node stalled 200 ms with
 * packets queued for it. No packet older is delivered (dst_net.c). */
#define DST_MPL_NS 300000000ull

/* Workload operations. */
enum dst_op_kind {
	DST_OP_SEND = 0,  /* untagged SEND (eager) */
	DST_OP_TSEND,     /* tagged SEND */
	DST_OP_RDV,       /* rendezvous tagged SEND (HPC) */
	DST_OP_DEFER,     /* deferrable tagged SEND (AI Full) */
	DST_OP_WRITE,
	DST_OP_READ,
	DST_OP_FETCH,     /* FETCHING_ATOMIC SUM uint64 */
	DST_OP_ATOMIC,    /* ATOMIC SUM uint64 */
	DST_OP_DGRAM,     /* UUD datagram */
	/* generator 2 (dst_plan.gen >= 2) only: */
	DST_OP_AMO,       /* ATOMIC, any op x datatype, 1..8 elements */
	DST_OP_FAMO,      /* FETCHING_ATOMIC, any non-CAS op, <= 32 B */
	DST_OP_CSWAP,     /* FETCHING_ATOMIC, CSWAP family and MSWAP */
	DST_OP_TAMO,      /* TSEND_ATOMIC on a posted receive (HPC) */
	DST_OP_TFAMO,     /* TSEND_FETCH_ATOMIC (HPC) */
	DST_OP_NOP,       /* NO_OP */
	DST_OP__COUNT
};

/* An error the operation carries on purpose (generator 2): the target
 * must refuse it with the code the model predicts, memory untouched. */
enum dst_op_err {
	DST_E_NONE = 0,
	DST_E_KEY,        /* a memory key the target does not know */
	DST_E_ADDR,       /* an offset past the end of the region */
	DST_E_ALIGN,      /* an atomic target not aligned to its element */
	DST_E_GONE,       /* memory of another process that is gone */
	DST_E__COUNT
};

/* How a tagged message's receive is posted (generator 2): FI_PEEK
 * until the message is there, then FI_CLAIM or a plain receive; or
 * FI_DISCARD. */
enum dst_rmode {
	DST_R_PLAIN = 0,
	DST_R_CLAIM,      /* PEEK|CLAIM, then CLAIM: take it */
	DST_R_PEEK,       /* PEEK, then a plain receive */
	DST_R_CLAIM_DROP, /* PEEK|CLAIM, then CLAIM|DISCARD */
	DST_R_PEEK_DROP,  /* PEEK|DISCARD */
	DST_R__COUNT
};

/* Adversary actions. Network faults hold on the link a -> b (b 0xFF: every
 * destination) from @c at for @c dur; node faults act on node a at @c at. */
enum dst_fault_kind {
	DST_F_LOSS = 0,   /* drop with ppm */
	DST_F_DUP,        /* duplicate with ppm */
	DST_F_REORDER,    /* extra delay up to arg us with ppm */
	DST_F_SPIKE,      /* delay by arg ms with ppm (very late packets) */
	DST_F_TRIM,       /* trim requests with ppm; arg bit 0: IP length
			   * rewritten, bit 1: UDP length rewritten too */
	DST_F_CORRUPT,    /* flip one bit with ppm (decoders must reject) */
	DST_F_CE,         /* CE-mark with ppm on EVs = arg (mod 4) */
	DST_F_PARTITION,  /* a <-> b cut (both ways) */
	DST_F_PATH,       /* EVs = arg (mod 8) dead on a -> b */
	DST_F_CLOSE_INIT, /* node a closes its initiator PDCs */
	DST_F_CLOSE_TGT,  /* node a closes its target PDCs (CLOSE_REQ) */
	DST_F_RESTART,    /* node a restarts with the same FA */
	DST_F_STALL,      /* node a stops for dur, then its clock jumps */
	DST_F_WITHDRAW,   /* node a withdraws its work requests with an odd
			   * context (arg bit 0: force), as a closing endpoint */
	/* generator 2 only (a withdrawal with arg bit 2 set): */
	DST_F_REREG,      /* node a deregisters its memory and registers it
			   * again (new keys) while requests are in flight */
	/* generator 3 only: */
	DST_F_MRCHURN,    /* node a manages its MR table while requests are
			   * in flight: PIDs, authorizations, RI tables and
			   * aliases added and removed (each result checked),
			   * and its RMA table (arg bit 0) or its memory
			   * entries disabled for dur */
	/* generator 7 only: */
	DST_F_HOLD,       /* with ppm, the network keeps a copy of a request
			   * on a -> b and releases it when b restarts (just
			   * after), else at the fault's end; never older
			   * than DST_MPL_NS */
	DST_F__COUNT
};

struct dst_op_spec {
	uint64_t at;      /* ns */
	uint32_t len;
	int32_t recv_us;  /* receive posted this long after the op (< 0:
			   * before) */
	uint8_t kind;     /* enum dst_op_kind */
	uint8_t src, dst;
	uint8_t tc;       /* 0..1: several PDCs per pair */
	bool ordered;     /* ROD */
	bool idem;        /* idempotent key: RUDI for WRITE / small READ (HPC) */
	uint8_t amo_op;   /* enum uet_wire_amo_op (DST_OP_AMO .. DST_OP_TFAMO) */
	uint8_t amo_dt;   /* enum uet_wire_amo_dt */
	uint8_t amo_n;    /* elements */
	uint8_t err;      /* enum dst_op_err */
	uint8_t rmode;    /* enum dst_rmode */
	bool far;         /* through the key of the memory "of another
			   * process" (uet_ses_mem_ops) */
	bool trunc;       /* generator 3: a tagged message's receive
			   * takes half of it (dst_op_truncated()) */
	bool imm;         /* generator 3: a WRITE carries header data
			   * (fi_writedata: a completion at the target) */
};

struct dst_fault_spec {
	uint64_t at, dur; /* ns */
	uint32_t ppm;
	uint32_t arg;
	uint8_t kind;     /* enum dst_fault_kind */
	uint8_t a, b;
};

struct dst_node_spec {
	uint16_t tx_window, rx_window;
	uint32_t rto_init_us, rto_max_us;
	uint32_t idle_close_us, close_req_us;
	uint32_t holdoff_us;
	uint32_t delay_ns;        /* one-way delay of packets it sends */
	uint32_t gbps;            /* its link: packets leave one by one */
	uint8_t max_retries, max_nack_retx, max_backoffs;
	bool ack_cc_always;
	bool tlp_probe;
	bool small_unexp;         /* a few unexpected records only */
	/* generator 3: */
	uint8_t profile;          /* enum uet_wire_profile of its process */
	uint32_t mrecv_len;       /* untagged receives: a multi-recv buffer
				   * of this size (0: one receive each) */
	uint32_t mrecv_min;       /* its min_free */
};

struct dst_plan {
	uint64_t seed;
	/* generator version: 1 draws the plans the seeds of seeds.txt and
	 * open.txt were found with; 2 adds every atomic, tagged atomics,
	 * PEEK/CLAIM receives, NO_OP and the error operations */
	uint8_t gen;
	uint8_t nnodes;           /* 2..DST_NODES_MAX */
	uint8_t cc;               /* 0 fixed, 1 NSCC, 2 RCCC, 3 both */
	uint8_t lb;               /* enum uet_cms_lb_mode */
	uint8_t profile;          /* enum uet_wire_profile (AI Full or HPC) */
	uint32_t nop, nfault;
	struct dst_node_spec node[DST_NODES_MAX];
	struct dst_op_spec op[DST_OPS_MAX];
	struct dst_fault_spec fault[DST_FAULTS_MAX];
	/* index of each op / fault in the drawn plan (kept by shrinking) */
	uint8_t op_id[DST_OPS_MAX];
	uint8_t fault_id[DST_FAULTS_MAX];
};

/* Where the plan's numbers come from: a seeded generator, or bytes
 * (libFuzzer), read in order, zero once exhausted. */
struct dst_src {
	struct uet_rand rng;
	const uint8_t *data;
	size_t size, pos;
	bool bytes;
};

void dst_src_seed(struct dst_src *s, uint64_t seed);
void dst_src_bytes(struct dst_src *s, const uint8_t *data, size_t size);
/* Value in [0, n), n >= 1. */
uint32_t dst_draw(struct dst_src *s, uint32_t n);

/* Draw a whole plan. */
void dst_getrandom_seed(uint64_t seed, uint64_t shared, size_t shared_len);
void dst_plan_gen(struct dst_plan *p, struct dst_src *s, uint64_t seed,
		  uint8_t gen);
#define DST_GEN_LAST 9
uint64_t dst_pid_wait_ns(const struct dst_plan *p, unsigned int i);
bool dst_syn_expected(const struct dst_plan *p);
/* Print the plan as a reproducer (one line per op and fault). */
void dst_plan_print(const struct dst_plan *p, void *f);
/* Keep only the ops / faults whose drawn index is set in @p ops /
 * @p faults (NULL: keep all of that kind). */
void dst_plan_filter(struct dst_plan *p, const bool *ops, const bool *faults);
const char *dst_op_name(unsigned int kind);
const char *dst_fault_name(unsigned int kind);

/* ---- run state ---- */

struct dst_pkt {
	uint64_t at;
	uint64_t seq;
	uint64_t born;    /* sent then (its lifetime: DST_MPL_NS) */
	bool held;        /* a copy DST_F_HOLD keeps */
	uint16_t len;
	uint8_t from, to;
	uint8_t frame[DST_FRAME_MAX];
};

/* A transmit PSN space the sender must keep inside the receiver's
 * advertised window (UEC 1.0 PDS MP_Range): what the sender has seen. */
struct dst_win {
	uint16_t lid;
	uint8_t peer;
	bool used;
	bool seen;   /* cack learnt from an ACK of this PSN space */
	bool acked;  /* ... and mpr from an ACK_CC */
	uint32_t start;
	uint32_t cack;
	uint8_t mpr;
};

/* CE marks that arrived at a receive space (key: sender, sender's PDC):
 * the EVs that carried one and when the last did. */
struct dst_ecn {
	uint16_t spdcid;
	uint8_t peer;
	bool used;
	uint8_t head;
	uint16_t ev[DST_ECN_RING];
	uint64_t t[DST_ECN_RING];
	uint64_t lost_t; /* newest mark the full ring let go (0: none) */
};

struct dst_retx {
	uint64_t cookie;
	uint64_t first_ns;  /* its first retransmission of this stretch */
	uint64_t last_ns;   /* its last retransmission */
	uint64_t win_ns;    /* start of the current rate window */
	uint32_t count;     /* retransmissions of this stretch */
	uint32_t win_count; /* retransmissions since win_ns */
	uint16_t pdc;       /* the PDC (spdcid) of the last one */
	bool used;
};

#define DST_CLOSING 256

struct dst_node {
	struct uet_pds *pds;
	struct uet_ses *ses;
	struct uet_ses_mr_table *mr;
	struct uet_ses_match *match;
	struct uet_pds_fa fa;
	int ri_rma;
	uint64_t rkey;
	uint64_t rkey_idem;       /* same memory, idempotent key (RUDI) */
	/* generator 2: the same memory as another process's (owner 1,
	 * reached through uet_ses_mem_ops), and a process gone (owner 2,
	 * every access fails -ESRCH) */
	uint64_t rkey_far, rkey_gone;
	uint32_t inc;             /* incarnation, +1 per restart */
	uint64_t inc_ns;          /* when this incarnation started */
	uint32_t keys;            /* +1 per registration anew (DST_F_REREG) */
	uint64_t stall_until;
	uint64_t link_free;       /* its link sends the next packet then */
	uint8_t *mem;             /* RMA memory (DST_MEM) */
	uint32_t mem_next;        /* bump allocator over mem */
	struct dst_retx retx[DST_RETX_MAP];
	struct dst_win win[DST_WIN_MAP];
	struct dst_ecn ecn[DST_WIN_MAP];
	/* the entries of those maps taken since dst_node_up(), which clears
	 * them one by one (the whole maps are 165 KB a node) */
	uint16_t retx_taken[DST_RETX_MAP];
	uint16_t win_taken[DST_WIN_MAP], ecn_taken[DST_WIN_MAP];
	uint32_t nretx_taken, nwin_taken, necn_taken;
	/* ROD delivery order per target PDC handle (last PSN + start) */
	uint32_t rod_pdc[64], rod_start[64], rod_last[64];
	uint32_t nrod;
	/* the last DST_CLOSING request PSNs this node's target PDCs refused
	 * with NACK CLOSING (their initiators move them): none may be taken
	 * on that PDC later (dst_tap.c) */
	struct dst_refusal {
		uint64_t at;
		uint32_t psn;
		uint16_t lid;
	} closing[DST_CLOSING];
	uint32_t nclosing;
	/* generator 3: MR table disabled until then (DST_F_MRCHURN) */
	uint64_t mr_off_until;
	int mr_off_how;           /* 0 on, 1 RI table off, 2 entries off,
				   * 3 (generator 8) its process gone */
	/* generator 4: it flaps (off, on, off ...) until mr_flap_end, off
	 * again at mr_flap_next; 0: no flapping */
	uint64_t mr_flap_end, mr_flap_next, mr_flap_ns;
	int mr_flap_how;
	/* generator 3: the multi-recv buffer of untagged receives */
	bool mrecv_posted;
	bool mrecv_due;           /* released: post the next one now, not
				   * at the next event (dst_mrecv_due) */
	uint32_t mrecv_cur;       /* its index in dst_sim.mrecv */
};

/* A multi-recv buffer as posted (generator 3) and what it took. */
struct dst_mrecv {
	uint8_t *buf;
	uint8_t *map;             /* a bit per byte handed out */
	uint32_t len, min_free;
	uint8_t node;
	bool released;
	bool end_seen;            /* the slice that left < min_free came */
	bool failed;              /* a message in it failed */
	uint64_t fail_off;        /* the highest offset a failed one had */
};
#define DST_MRECV_MAX 256

enum dst_op_state {
	DST_S_IDLE = 0,
	DST_S_PENDING,   /* submit said -EAGAIN: retried */
	DST_S_SUBMITTED,
	DST_S_OK,
	DST_S_ERR,
	DST_S_REJECTED,  /* refused at submit (not an error of the run) */
	DST_S_ABANDONED, /* its initiator restarted */
};

struct dst_op {
	uint8_t state;
	bool recv_posted;
	int status;
	uint32_t src_inc, dst_inc; /* incarnations at submit */
	uint32_t dst_keys;         /* the target's keys at submit */
	uint32_t delivered;        /* receive completions, this dst inc */
	uint32_t off;              /* slice of the target's memory */
	uint64_t t_submit, t_done;
	uint64_t init, add, fetched;
	uint8_t *sbuf;             /* payload / read destination */
	uint8_t *rbuf;             /* receive buffer */
	uint32_t rlen;
	struct dst_amo *amo;       /* atomics of generator 2 */
	int want;                  /* error the model predicts, 0: none */
	uint8_t rstage;            /* PEEK/CLAIM: 0 peeking, 1 taking */
	uint16_t npeek;
	uint64_t rnext;            /* next PEEK */
	int submit_want;           /* generator 3: submit refusal the
				    * profile model predicts, 0: none */
	bool cancelled;            /* generator 3: its receive was cancelled
				    * (FI_CANCEL), -ECANCELED to come */
	bool want_off;             /* want is the table's being off: not
				    * so for a retransmission after it */
	bool stale_watch;          /* generator 7: done before its target
				    * restarted; its slice was set to
				    * DST_STALE_FILL then and must stay so */
};
#define DST_STALE_FILL 0xA5

/* An atomic of the model (dst_amo.c): its bytes and what it must do. */
#define DST_AMO_MAX 256   /* 8 elements of 32 bytes */

struct dst_amo {
	uint8_t init[DST_AMO_MAX];   /* target before */
	uint8_t operand[DST_AMO_MAX];
	uint8_t compare[16];
	uint8_t want[DST_AMO_MAX];   /* target after, when it executed */
	uint8_t result[32];          /* fetched values */
};

struct dst_sim;
typedef void (*dst_fail_fn)(struct dst_sim *s);

struct dst_sim {
	const struct dst_plan *plan;
	struct dst_node node[DST_NODES_MAX];
	struct dst_op op[DST_OPS_MAX];
	/* the ops that may act or wake (dst_work.c), in index order: not
	 * yet submitted, or a receive still to post; rebuilt after any
	 * completion, which is what can bring an op back */
	uint8_t live[DST_OPS_MAX];
	uint32_t nlive;
	bool live_stale;
	uint64_t live_wake;        /* earliest time an op left out wakes */
	struct uet_rand rng;
	uint64_t now;
	uint64_t fault_done;       /* node faults done, bit per fault */
	uint64_t restart_now;      /* generator 6: restarts due at once */
	uint64_t horizon;          /* last op / fault + margin */
	uint64_t end;              /* hard end of the run */
	uint64_t seq;
	/* network: a binary heap of packets ordered by (at, seq) */
	struct dst_pkt **heap;
	uint32_t nheap;
	struct dst_pkt *pool;
	struct dst_pkt **free;
	uint32_t nfree;
	uint64_t pkt_cookie;       /* the packet being received */
	const uint8_t *rx_ses;
	uint16_t rx_ses_len;
	/* counters */
	uint64_t sent, dropped, corrupt_rejected, steps;
	/* failure */
	bool failed;
	char inv[32];              /* invariant that fired */
	char why[256];
	/* trace: the last lines, printed on failure (or all, live) */
	char (*trace)[128];
	uint32_t ntrace;
	bool trace_live;
	/* keep no trace: a block of seeds formats none, and runs a failing
	 * seed again with it (a run is a function of its plan) */
	bool trace_off;
	bool quiet;
	/* uet_pds_config.syn_quiet of every node: -1 the PDS default
	 * (uet-dst --pds syn_quiet=0|1) */
	int syn_quiet;
	/* copies DST_F_HOLD kept, copies dropped at DST_MPL_NS */
	uint64_t held, expired;
	/* generator 3: every multi-recv buffer posted in this run */
	struct dst_mrecv mrecv[DST_MRECV_MAX];
	uint32_t nmrecv;
};

/* dst_sim.c */
int dst_sim_init(struct dst_sim *s);
void dst_sim_fini(struct dst_sim *s);
/* Run @p plan; 0 when every invariant held, -1 on a failure (s->inv,
 * s->why, s->trace describe it). */
int dst_run(struct dst_sim *s, const struct dst_plan *plan);
void dst_trace(struct dst_sim *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Whether dst_trace() keeps or prints lines (callers that build
 * arguments of their own skip that work when not). */
static inline bool
dst_tracing(const struct dst_sim *s)
{
	return s->trace_live || !s->trace_off;
}
void dst_fail(struct dst_sim *s, const char *inv, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void dst_trace_dump(const struct dst_sim *s, void *f, uint32_t last);
/* Shrink @p p (failing with invariant @p inv) in place; returns runs. */
uint32_t dst_shrink(struct dst_sim *s, struct dst_plan *p, const char *inv,
		    uint32_t budget);

/* dst_net.c */
int dst_net_init(struct dst_sim *s);
void dst_net_fini(struct dst_sim *s);
void dst_net_reset(struct dst_sim *s);
/* Send one PDS descriptor of node @p from (builds the frame, applies the
 * faults, queues it). */
void dst_net_send(struct dst_sim *s, int from, const struct uet_pds_tx *t);
/* Deliver every packet due at s->now; returns packets delivered. */
uint32_t dst_net_deliver(struct dst_sim *s);
uint64_t dst_net_next(const struct dst_sim *s);
/* Node @p to restarted: the copies held for it go now (DST_F_HOLD). */
void dst_net_release(struct dst_sim *s, int to);
int dst_node_of(const struct dst_sim *s, const struct uet_pds_fa *fa);
bool dst_fault_on(const struct dst_sim *s, unsigned int kind, int a, int b,
		  const struct dst_fault_spec **f);

/* dst_node.c */
int dst_node_up(struct dst_sim *s, int i);
void dst_node_down(struct dst_sim *s, int i);
/* Run node @p i once: timers, events, completions, submissions, TX. */
void dst_node_poll(struct dst_sim *s, int i);
/* Receive one parsed frame at node @p to. */
void dst_node_rx(struct dst_sim *s, int to, int from, const uint8_t *frame,
		 const struct uet_wire_pkt *pkt);
void dst_node_drain(struct dst_sim *s, int i);
void dst_node_close_all(struct dst_sim *s, int i, int role);
/* Deregister node @p i's memory keys and register them again. */
void dst_node_rereg(struct dst_sim *s, int i);
bool dst_node_idle(struct dst_sim *s, int i, char *why, size_t cap);
void dst_node_check_cc(struct dst_sim *s, int i);
/* Wire taps (invariants on what crosses the network). */
void dst_tap_tx(struct dst_sim *s, int from, int to,
		const struct uet_pds_tx *t);
void dst_tap_rx(struct dst_sim *s, int to, int from,
		const struct uet_wire_pkt *pkt, bool ce);
/* A request node @p i's PDS delivered and its SES did not refuse. */
void dst_tap_deliver(struct dst_sim *s, int i, const struct uet_pds_event *e);

/* dst_work.c */
void dst_work_start(struct dst_sim *s);
void dst_work_poll(struct dst_sim *s);
uint64_t dst_work_next(struct dst_sim *s);
void dst_work_cqe(struct dst_sim *s, int i, const struct uet_ses_cqe *c);
void dst_work_restart(struct dst_sim *s, int i);
/* Generator 7: node @p i restarted; the memory of the RMA requests to it
 * that were over is set to DST_STALE_FILL, which they must not change. */
void dst_work_stale_fill(struct dst_sim *s, int i);
bool dst_work_done(const struct dst_sim *s);
/* Messages of node @p i still wait for a target that restarted. */
uint32_t dst_work_orphans(const struct dst_sim *s, int i);
void dst_work_check_hang(struct dst_sim *s);
void dst_work_final(struct dst_sim *s);
void dst_work_fini(struct dst_sim *s);
static inline bool
dst_op_is_amo(uint8_t kind)
{
	return kind >= DST_OP_AMO && kind <= DST_OP_TFAMO;
}

static inline bool
dst_op_is_tamo(uint8_t kind)
{
	return kind == DST_OP_TAMO || kind == DST_OP_TFAMO;
}

/* A tagged send whose plain receive is shorter than the message: the
 * receive completes with the first half, flagged truncated. */
static inline bool
dst_op_truncated(const struct dst_op_spec *o)
{
	return o->trunc && o->rmode == DST_R_PLAIN && o->len >= 16 &&
	       o->kind >= DST_OP_TSEND && o->kind <= DST_OP_DEFER;
}

/* Judged against the model's return code (generator 2). */
static inline bool
dst_op_modelled(const struct dst_op_spec *o)
{
	return o->err != DST_E_NONE || o->kind >= DST_OP_AMO;
}

/* dst_amo.c */
uint32_t dst_amo_size(unsigned int dt);
bool dst_amo_supported(unsigned int op, unsigned int dt);
/* Draw the values of atomic @p o (target, operand, compare) and compute
 * what it must leave in the target when it executes. */
void dst_amo_prepare(struct uet_rand *rng, const struct dst_op_spec *o,
		     uint8_t gen, struct dst_amo *a);
/* The workload's side of atomics (dst_work.c calls these): values drawn
 * at the start, the work request's operands, the return code the model
 * predicts, the checks at completion and at the end. */
void dst_amo_start(struct dst_sim *s, uint32_t j);
void dst_amo_wr(uint32_t j, const struct dst_op_spec *o, struct dst_op *op,
		struct uet_ses_wr *wr);
int dst_model_status(const struct dst_sim *s, uint32_t j);
void dst_model_checks(struct dst_sim *s, uint32_t j);
void dst_amo_final(struct dst_sim *s, uint32_t j);

/* dst_profile.c (generator 3): processes of different profiles. */
/* The code the initiator's profile refuses @p j with at submit, 0: none. */
int dst_profile_submit_rc(const struct dst_sim *s, uint32_t j);
/* The code the target's profile refuses @p j with, 0: none. */
int dst_profile_target_rc(const struct dst_sim *s, uint32_t j);
/* Whether the initiator's profile allows @p kind (plan drawing). */
bool dst_profile_allows(uint8_t profile, uint8_t kind);
/* Check a submission's result against the model. */
void dst_profile_check_submit(struct dst_sim *s, uint32_t j, int r);
enum uet_wire_profile dst_profile_of(void *arg, uint16_t pid_on_fep);

/* dst_mr.c (generator 3): MR table management while traffic runs. */
void dst_mr_churn(struct dst_sim *s, int i, const struct dst_fault_spec *f);
/* Re-enable what a churn disabled once its time is over. */
void dst_mr_poll(struct dst_sim *s, int i);
/* The code an RMA request to node @p i gets while its table or entries
 * are off, 0: none. */
int dst_mr_off_rc(const struct dst_sim *s, uint32_t j);
/* A completion of a peer's request at node @p i (cfg.remote_events, a
 * WRITE's header data): it names an RMA request sent to node @p i. */
void dst_mr_remote_cqe(struct dst_sim *s, int i, const struct uet_ses_cqe *c);
#define DST_IMM_BASE 0x5E5E000000000000ull  /* header data: | (j + 1) */

/* dst_mrecv.c (generator 3): FI_MULTI_RECV buffers for untagged sends,
 * receives cancelled. */
bool dst_mrecv_on(const struct dst_sim *s, int node);
void dst_mrecv_poll(struct dst_sim *s, int node);
bool dst_mrecv_due(const struct dst_sim *s);
void dst_mrecv_cqe(struct dst_sim *s, int node, const struct uet_ses_cqe *c);
void dst_mrecv_restart(struct dst_sim *s, int node);
void dst_mrecv_fini(struct dst_sim *s);
/* At the end: every buffer whose last slice came was released. */
void dst_mrecv_final(struct dst_sim *s);
/* A message op @p m reached node @p i (dst_work.c). */
void dst_work_delivered(struct dst_sim *s, int i, uint32_t m, uint32_t j);
bool dst_work_payload_ok(const struct dst_sim *s, int i, const uint8_t *b,
			 uint64_t len, uint32_t *m);
#define DST_RECV_CTX (1ull << 40)  /* receive of op j: | (j + 1) */
#define DST_MRECV_CTX (1ull << 41) /* multi-recv buffer k: | k */
/* Cancel op @p j's receive (generator 3). */
void dst_recv_cancel(struct dst_sim *s, uint32_t j);
/* @return whether receive completion @p c of op @p j is its cancel's. */
bool dst_recv_cancel_cqe(struct dst_sim *s, uint32_t j,
			 const struct uet_ses_cqe *c);
/* The completion of op @p j's receive shorter than its message. */
void dst_recv_truncated_cqe(struct dst_sim *s, int i, uint32_t j,
			    const struct uet_ses_cqe *c);

/* Deterministic payload byte @p i of op @p id. */
uint8_t dst_pattern(uint32_t id, uint32_t i);
/* @p len bytes of op @p id's payload, from its start. */
bool dst_pattern_same(const uint8_t *b, uint32_t id, uint32_t len);

#endif /* DST_H */
