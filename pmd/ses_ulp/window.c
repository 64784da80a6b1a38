/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The SES on the engine: descriptor addresses. A channel of a client of
 * the uet-engine service names its buffers by offsets into its data
 * window, checked and translated here; an SQE becomes a uet_ses_wr.
 */

#include <errno.h>
#include <string.h>

#include "ses_ulp_private.h"

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
int
ses_ulp_desc_buf(const struct uet_chan *ch, uint32_t flags, uint64_t addr,
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

int
ses_ulp_sqe_to_wr(const struct ses_ulp_chan *sc, const struct uet_chan_sqe *q,
	      const struct uet_ses_ulp_peer *a, uint32_t slot,
	      struct uet_ses_wr *wr)
{
	uint16_t ri;
	int rc;

	if (q->op >= UET_CHAN_OP__COUNT)
		return -EINVAL;
	memset(wr, 0, sizeof(*wr));
	rc = ses_ulp_desc_buf(sc->chan, q->flags, q->addr, q->len, &wr->buf, &wr->len);
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
