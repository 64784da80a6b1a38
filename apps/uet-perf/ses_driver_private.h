/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The SES driver of uet-perf (ses_driver.c: payload, posting and
 * completions; ses_driver_setup.c: channels, processes, peers, region
 * and buffers): its state and what the two files share.
 */

#ifndef UET_PERF_SES_DRIVER_PRIVATE_H
#define UET_PERF_SES_DRIVER_PRIVATE_H

#include <stdbool.h>
#include <stdint.h>

#include <uet/uet_chan.h>
#include <uet/uet_ses_ulp.h>

#include "perf.h"

#define JOB_ID 0x5e5u            /* JobID of every operation */
#define DEFAULT_TAG 0x70657266u  /* match bits of tagged sends ("perf") */
#define CQ_BURST 32              /* CQEs read per turn and channel */
#define DRAIN_NS 2000000000ull   /* wait for late receives, at most */
#define SEQ_NONE UINT64_MAX      /* no sequence number (region slot) */

/* CQE contexts: kind in the top byte, buffer index below. */
enum ctx_kind { CTX_TX = 1, CTX_RECV = 2, CTX_ANSWER = 3, CTX_ANSWERED = 4 };
#define CTX_OF(k, i) (((uint64_t)(k) << 56) | (uint64_t)(i))
#define CTX_KIND(c) ((unsigned int)((c) >> 56))
#define CTX_INDEX(c) ((uint32_t)((c) & 0xffffffffu))

struct driver_side {
	struct uet_engine *e;
	struct uet_chan *ch;
	struct uet_ses_ulp_peer self; /* this side, by value */
	uint64_t peer; /* handle naming this side on the other's engine */
	uint16_t pid;             /* 0: the context's own process */
	uint32_t initiator;       /* with pid */
	bool attached;
	bool ep_added;            /* EP_ADD done: EP_DEL after detach */
};

struct ses_driver {
	struct ses_driver_params p;
	uint64_t tag;            /* match bits of tagged sends */
	struct driver_side a, b;
	uint32_t nslots;         /* A's operation slots */
	uint8_t *abuf;           /* nslots * size */
	uint64_t *aseq;          /* sequence number in slot */
	uint32_t *afree;         /* free slot stack */
	uint32_t nfree;
	uint32_t nrecv;          /* B's receive buffers (sends) */
	uint8_t *bbuf;           /* B: receive buffers or the region */
	size_t bbuf_len;
	uint64_t *rseq;          /* WRITE: last sequence placed per slot */
	const struct ses_driver_engine *e; /* the mode's (NULL: stream) */
	void *e_priv;            /* its state */
	uint32_t nanswers;       /* A's answer buffers */
	uint8_t *pbuf;           /* A: answer buffers */
	uint64_t key;            /* B's region (WRITE/READ) */
	uint64_t *seen;          /* bit per sequence number received */
	double ns_per_tsc;
	uint64_t next_seq;       /* next sequence number to submit */
	uint64_t inflight;       /* A's operations without a CQE */
	uint64_t answers_inflight; /* B's answers without a CQE */
	uint64_t rx_next;        /* ROD: next sequence number expected */
	bool stopped;
	bool checked;            /* end-of-run region check done */
	uint64_t idle_tsc;       /* A idle since (waiting for receives) */
	struct test_ulp_result tx;   /* A */
	struct test_ulp_result rx;   /* delivery side */
	struct ses_driver_counters cnt;
};

static inline uint8_t *
aslot(const struct ses_driver *d, uint32_t i)
{
	return d->abuf + (size_t)i * d->p.size;
}

static inline uint8_t *
bslot(const struct ses_driver *d, uint32_t i)
{
	return d->bbuf + (size_t)i * d->p.size;
}

/* Sequence number in the first 8 bytes, the pattern after (@p full). */
void ses_driver_payload_fill(uint8_t *b, uint32_t n, uint64_t seq,
			     bool full);
/* Post buffer @p buf on side @p s's RQ as context @p ctx. */
void ses_driver_post_recv(struct ses_driver *d, struct driver_side *s,
			  uint64_t ctx, void *buf);

#endif /* UET_PERF_SES_DRIVER_PRIVATE_H */
