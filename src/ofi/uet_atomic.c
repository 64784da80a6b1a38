/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Atomics: ATOMIC, FETCH_ATOMIC and CSWAP descriptors. Which op x datatype
 * pairs are valid comes from the SES support table (uet_amo_supported),
 * through the libfabric -> SES code mapping below; the largest count is
 * one packet of operands (UET_AMO_MAX_LEN). Fetching and compare atomics
 * need the AI Full or HPC profile. Operands, compare operands and
 * results may each come in up to iov_limit entries (fi_atomic(3)): the
 * engine takes one contiguous array of each, so several operand entries
 * are gathered (a non-fetching atomic's through the endpoint's bounce
 * buffers, the others' into the request) and results scattered from the
 * request at the completion.
 */
#include <string.h>

#include <uet/uet_ses_amo.h>

#include "uet_ofi_private.h"

int
uet_ofi_amo_op(enum fi_op op)
{
	static const int map[] = {
		[FI_MIN] = UET_AMO_MIN, [FI_MAX] = UET_AMO_MAX,
		[FI_SUM] = UET_AMO_SUM, [FI_PROD] = UET_AMO_PROD,
		[FI_LOR] = UET_AMO_LOR, [FI_LAND] = UET_AMO_LAND,
		[FI_BOR] = UET_AMO_BOR, [FI_BAND] = UET_AMO_BAND,
		[FI_LXOR] = UET_AMO_LXOR, [FI_BXOR] = UET_AMO_BXOR,
		[FI_ATOMIC_READ] = UET_AMO_READ,
		[FI_ATOMIC_WRITE] = UET_AMO_WRITE,
		[FI_CSWAP] = UET_AMO_CSWAP, [FI_CSWAP_NE] = UET_AMO_CSWAP_NE,
		[FI_CSWAP_LE] = UET_AMO_CSWAP_LE,
		[FI_CSWAP_LT] = UET_AMO_CSWAP_LT,
		[FI_CSWAP_GE] = UET_AMO_CSWAP_GE,
		[FI_CSWAP_GT] = UET_AMO_CSWAP_GT, [FI_MSWAP] = UET_AMO_MSWAP,
	};

	if ((unsigned int)op >= sizeof(map) / sizeof(map[0]))
		return -1;
	return map[op];
}

int
uet_ofi_amo_dt(enum fi_datatype dt)
{
	static const int map[] = {
		[FI_INT8] = UET_AMO_DT_INT8, [FI_UINT8] = UET_AMO_DT_UINT8,
		[FI_INT16] = UET_AMO_DT_INT16, [FI_UINT16] = UET_AMO_DT_UINT16,
		[FI_INT32] = UET_AMO_DT_INT32, [FI_UINT32] = UET_AMO_DT_UINT32,
		[FI_INT64] = UET_AMO_DT_INT64, [FI_UINT64] = UET_AMO_DT_UINT64,
		[FI_FLOAT] = UET_AMO_DT_FLOAT, [FI_DOUBLE] = UET_AMO_DT_DOUBLE,
		[FI_FLOAT_COMPLEX] = UET_AMO_DT_FLOAT_COMPLEX,
		[FI_DOUBLE_COMPLEX] = UET_AMO_DT_DOUBLE_COMPLEX,
		[FI_LONG_DOUBLE] = UET_AMO_DT_LONG_DOUBLE,
		[FI_LONG_DOUBLE_COMPLEX] = UET_AMO_DT_LONG_DOUBLE_COMPLEX,
		[FI_INT128] = UET_AMO_DT_INT128,
		[FI_UINT128] = UET_AMO_DT_UINT128,
	};

	if ((unsigned int)dt >= sizeof(map) / sizeof(map[0]))
		return -1;
	return map[dt];
}

size_t
uet_ofi_dt_size(enum fi_datatype dt)
{
	switch (dt) {
	case FI_INT8: case FI_UINT8:
		return 1;
	case FI_INT16: case FI_UINT16:
		return 2;
	case FI_INT32: case FI_UINT32: case FI_FLOAT:
		return 4;
	case FI_INT64: case FI_UINT64: case FI_DOUBLE: case FI_FLOAT_COMPLEX:
		return 8;
	case FI_INT128: case FI_UINT128: case FI_DOUBLE_COMPLEX:
	case FI_LONG_DOUBLE:
		return 16; /* long double travels in a 16-byte slot */
	case FI_LONG_DOUBLE_COMPLEX:
		return 32;
	default:
		return 0;
	}
}

enum amo_kind { AMO_WRITE, AMO_FETCH, AMO_COMPARE };

static bool
op_of_kind(enum fi_op op, enum amo_kind k)
{
	switch (k) {
	case AMO_WRITE:
		return op <= FI_BXOR || op == FI_ATOMIC_WRITE;
	case AMO_FETCH:
		return op <= FI_ATOMIC_WRITE;
	case AMO_COMPARE:
		return op >= FI_CSWAP && op <= FI_MSWAP;
	}
	return false;
}

/*
 * 0 and the largest count, or -FI_EOPNOTSUPP: what the target executes.
 * Operands travel in one packet (@p mtu less the headers below the SES
 * payload, at most UET_AMO_MAX_LEN); a fetching atomic's old values come
 * back in its ACK (UET_AMO_FETCH_MAX bytes); a compare-and-swap carries
 * one element of at most UET_AMO_CAS_MAX bytes in its extension header.
 */
static int
amo_valid(enum uet_wire_profile prof, uint16_t mtu, enum fi_datatype dt,
	  enum fi_op op, enum amo_kind k, size_t *count)
{
	int sop = uet_ofi_amo_op(op), sdt = uet_ofi_amo_dt(dt);
	size_t sz = uet_ofi_dt_size(dt);
	size_t max = mtu > UET_OFI_PKT_OVERHEAD ?
		     (size_t)mtu - UET_OFI_PKT_OVERHEAD : 0;

	if (sop < 0 || sdt < 0 || sz == 0 || !op_of_kind(op, k))
		return -FI_EOPNOTSUPP;
	if (k != AMO_WRITE && prof == UET_PROFILE_AI_BASE)
		return -FI_EOPNOTSUPP; /* fetching atomics: AI Full, HPC */
	if (!uet_amo_supported((unsigned int)sop, (unsigned int)sdt))
		return -FI_EOPNOTSUPP;
	if (max > UET_AMO_MAX_LEN)
		max = UET_AMO_MAX_LEN;
	if (k == AMO_FETCH && max > UET_AMO_FETCH_MAX)
		max = UET_AMO_FETCH_MAX;
	if (k == AMO_COMPARE)
		max = UET_AMO_CAS_MAX;
	if (sz > max)
		return -FI_EOPNOTSUPP;
	if (count != NULL)
		*count = k == AMO_COMPARE ? 1 : max / sz;
	return 0;
}

int
uet_ofi_query_atomic(struct fid_domain *domain, enum fi_datatype dt,
		     enum fi_op op, struct fi_atomic_attr *attr,
		     uint64_t flags)
{
	struct uet_ofi_domain *d =
		container_of(domain, struct uet_ofi_domain, dom_fid);
	enum amo_kind k = AMO_WRITE;
	size_t count;
	int rc;

	if (flags & FI_TAGGED)
		return -FI_EOPNOTSUPP; /* no libfabric API for tagged atomics */
	if ((flags & FI_FETCH_ATOMIC) && (flags & FI_COMPARE_ATOMIC))
		return -FI_EINVAL;
	if (flags & FI_FETCH_ATOMIC)
		k = AMO_FETCH;
	else if (flags & FI_COMPARE_ATOMIC)
		k = AMO_COMPARE;
	rc = amo_valid(d->profile, d->port.mtu, dt, op, k, &count);
	if (rc < 0)
		return rc;
	if (attr != NULL) {
		attr->size = uet_ofi_dt_size(dt);
		attr->count = count;
	}
	return 0;
}

static int
ep_writevalid(struct fid_ep *fid, enum fi_datatype dt, enum fi_op op,
	      size_t *count)
{
	struct uet_ofi_ep *ep = uet_ofi_ep_of(fid);

	return amo_valid(ep->dom->profile, ep->dom->port.mtu, dt, op,
			 AMO_WRITE, count);
}

static int
ep_readwritevalid(struct fid_ep *fid, enum fi_datatype dt, enum fi_op op,
		  size_t *count)
{
	struct uet_ofi_ep *ep = uet_ofi_ep_of(fid);

	return amo_valid(ep->dom->profile, ep->dom->port.mtu, dt, op,
			 AMO_FETCH, count);
}

static int
ep_compwritevalid(struct fid_ep *fid, enum fi_datatype dt, enum fi_op op,
		  size_t *count)
{
	struct uet_ofi_ep *ep = uet_ofi_ep_of(fid);

	return amo_valid(ep->dom->profile, ep->dom->port.mtu, dt, op,
			 AMO_COMPARE, count);
}

/*
 * A fetching atomic's results in several entries land in the request's
 * own bytes, after an operand copied there ([operand | results]): its
 * operands and results are at most UET_AMO_FETCH_MAX bytes each
 * (amo_valid).
 */
#define AMO_RES_OFF UET_AMO_FETCH_MAX
_Static_assert(AMO_RES_OFF + UET_AMO_FETCH_MAX <= UET_OFI_INJECT_MAX,
	       "results do not fit the request's bytes");

/* The entry holding all @p bytes when the others are empty, else NULL. */
static void *
ioc_single(const struct fi_ioc *ioc, size_t n, size_t dt_size, size_t bytes)
{
	void *one = NULL;

	for (size_t i = 0; i < n; i++) {
		if (ioc[i].count == 0)
			continue;
		if (one != NULL || ioc[i].count * dt_size != bytes)
			return NULL;
		one = ioc[i].addr;
	}
	return one;
}

void
uet_ofi_req_amo(struct uet_ofi_req *r, struct uet_chan_sqe *sqe,
		const struct uet_ofi_amo_io *io)
{
	void *one;

	/* a compare atomic has one element (amo_valid): its compare
	 * operand is in one entry, whatever empty ones surround it */
	if (io->cmp != NULL)
		sqe->compare = (uint64_t)(uintptr_t)ioc_single(io->cmp,
				io->nb_cmp, io->dt_size, io->bytes);
	one = ioc_single(io->res, io->nb_res, io->dt_size, io->bytes);
	if (one == NULL) {
		/* fi_atomic(3): results are in place before the completion;
		 * uet_ofi_req_amo_done() scatters them */
		for (size_t i = 0; i < io->nb_res; i++) {
			r->iov[i].addr = (uint64_t)(uintptr_t)io->res[i].addr;
			r->iov[i].len = io->res[i].count * io->dt_size;
		}
		r->nb_res = (uint8_t)io->nb_res;
		r->result_len = io->bytes;
		one = r->inject + AMO_RES_OFF;
	}
	sqe->result = (uint64_t)(uintptr_t)one;
}

void
uet_ofi_req_amo_done(struct uet_ofi_req *r, bool ok)
{
	const uint8_t *p = r->inject + AMO_RES_OFF;
	uint64_t off = 0;

	for (size_t i = 0; ok && i < r->nb_res && off < r->result_len; i++) {
		uint64_t n = r->result_len - off < r->iov[i].len ?
			     r->result_len - off : r->iov[i].len;

		if (n != 0)
			memcpy((void *)(uintptr_t)r->iov[i].addr, p + off, n);
		off += n;
	}
	r->nb_res = 0;
}

/*
 * Elements in @p n entries (@p total). -FI_EINVAL: no array, more entries
 * than iov_limit, or an entry with elements but no address (unless
 * @p null_ok: FI_ATOMIC_READ ignores its operands).
 */
static int
ioc_total(const struct fi_ioc *ioc, size_t n, bool null_ok, size_t *total)
{
	*total = 0;
	if (ioc == NULL || n == 0 || n > UET_OFI_IOV_MAX)
		return -FI_EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (ioc[i].count != 0 && ioc[i].addr == NULL && !null_ok)
			return -FI_EINVAL;
		*total += ioc[i].count;
	}
	return 0;
}

/*
 * Check a call's entries against each other and the largest count
 * (fi_atomic(3): between 1 and what the valid calls report, else
 * -FI_EMSGSIZE; compare operands and results as many as the operands,
 * else -FI_EINVAL); fill @p io and the operand entries @p iov.
 */
static int
amo_entries(enum amo_kind k, const struct fi_msg_atomic *msg, size_t max,
	    struct uet_ofi_amo_io *io, struct iovec *iov, void **desc,
	    size_t *nb_iov)
{
	/* FI_ATOMIC_READ has no operands: the engine reads zeros */
	static const uint8_t zero[UET_AMO_FETCH_MAX];
	bool read = k == AMO_FETCH && msg->op == FI_ATOMIC_READ;
	size_t count, n;
	int rc;

	rc = ioc_total(msg->msg_iov, msg->iov_count, read, &count);
	if (rc < 0)
		return rc;
	if (count == 0)
		return -FI_EINVAL;
	if (count > max)
		return -FI_EMSGSIZE;
	io->bytes = count * io->dt_size;
	/* results and compare operands: as many elements as operands */
	if (k != AMO_WRITE &&
	    (ioc_total(io->res, io->nb_res, false, &n) < 0 || n != count))
		return -FI_EINVAL;
	if (k == AMO_COMPARE &&
	    (ioc_total(io->cmp, io->nb_cmp, false, &n) < 0 || n != count))
		return -FI_EINVAL;
	if (read) {
		iov[0].iov_base = (void *)(uintptr_t)zero;
		iov[0].iov_len = io->bytes;
		desc[0] = NULL;
		*nb_iov = 1;
		return 0;
	}
	/* empty entries (which may have no address) left out, with their
	 * descriptors */
	*nb_iov = 0;
	for (size_t i = 0; i < msg->iov_count; i++) {
		if (msg->msg_iov[i].count == 0)
			continue;
		iov[*nb_iov].iov_base = msg->msg_iov[i].addr;
		iov[*nb_iov].iov_len = msg->msg_iov[i].count * io->dt_size;
		desc[*nb_iov] = msg->desc != NULL ? msg->desc[i] : NULL;
		(*nb_iov)++;
	}
	return 0;
}

/*
 * A fetching or compare atomic's operands in several entries: gathered
 * here (at most UET_AMO_FETCH_MAX bytes), then copied into the request as
 * an inject is (uet_ofi_req_buffers): the request's iov[] is where its
 * results scatter from, so they cannot take a bounce buffer.
 */
static void
amo_gather(struct iovec *iov, size_t *nb_iov, uint8_t *buf,
	   uint64_t *flags)
{
	size_t off = 0;

	for (size_t i = 0; i < *nb_iov; i++) {
		memcpy(buf + off, iov[i].iov_base, iov[i].iov_len);
		off += iov[i].iov_len;
	}
	iov[0].iov_base = buf;
	iov[0].iov_len = off;
	*nb_iov = 1;
	*flags |= FI_INJECT;
}

/* One atomic descriptor; @p io: a fetching or compare atomic's results
 * and compare operand. */
static ssize_t
amo_post(struct uet_ofi_ep *ep, enum amo_kind k,
	 const struct fi_msg_atomic *msg, struct uet_ofi_amo_io *io,
	 uint64_t flags)
{
	struct uet_ofi_amo_io none = { .res = NULL };
	struct uet_chan_sqe sqe;
	struct iovec iov[UET_OFI_IOV_MAX];
	void *desc[UET_OFI_IOV_MAX];
	uint8_t gather[UET_AMO_FETCH_MAX];
	size_t count, nb_iov;
	int rc;

	/* several operand (and compare, result) entries: gathered into one
	 * array over the target range, results scattered back (fi_atomic(3):
	 * the target range is their concatenation) */
	if (msg == NULL || msg->rma_iov_count != 1 || msg->rma_iov == NULL)
		return -FI_EINVAL;
	if (!ep->enabled)
		return -FI_EOPBADSTATE;
	if (!(ep->caps & FI_ATOMIC) ||
	    !(ep->caps & (k == AMO_WRITE ? FI_WRITE : FI_READ)))
		return -FI_EOPNOTSUPP;
	rc = amo_valid(ep->dom->profile, ep->dom->port.mtu, msg->datatype,
		       msg->op, k, &count);
	if (rc < 0)
		return rc;
	if (unlikely(flags & FI_TRIGGER))
		return uet_ofi_trig_defer(ep, &(struct uet_ofi_trig_call){
			.kind = k == AMO_WRITE ? FI_OP_ATOMIC :
				k == AMO_FETCH ? FI_OP_FETCH_ATOMIC :
						 FI_OP_COMPARE_ATOMIC,
			.msg = msg, .context = msg->context,
			.cmp = io != NULL ? io->cmp : NULL,
			.nb_cmp = io != NULL ? io->nb_cmp : 0,
			.res = io != NULL ? io->res : NULL,
			.nb_res = io != NULL ? io->nb_res : 0 }, flags);
	if (io == NULL)
		io = &none;
	io->dt_size = uet_ofi_dt_size(msg->datatype);
	rc = amo_entries(k, msg, count, io, iov, desc, &nb_iov);
	if (rc < 0)
		return rc;
	if (k != AMO_WRITE && nb_iov > 1)
		amo_gather(iov, &nb_iov, gather, &flags);
	memset(&sqe, 0, sizeof(sqe));
	sqe.op = k == AMO_WRITE ? UET_CHAN_OP_ATOMIC :
		 k == AMO_FETCH ? UET_CHAN_OP_FETCH_ATOMIC : UET_CHAN_OP_CSWAP;
	sqe.atomic_op = (uint8_t)uet_ofi_amo_op(msg->op);
	sqe.atomic_dt = (uint8_t)uet_ofi_amo_dt(msg->datatype);
	sqe.dest = uet_ofi_ep_dest(ep, msg->addr);
	if (sqe.dest == 0)
		return -FI_EINVAL;
	sqe.rkey = msg->rma_iov[0].key;
	sqe.roffset = msg->rma_iov[0].addr;
	sqe.imm_data = msg->data;
	return uet_ofi_post_sqe(ep, &sqe, iov, desc, nb_iov, flags,
				msg->context,
				FI_ATOMIC | (k == AMO_WRITE ? FI_WRITE : FI_READ),
				k == AMO_WRITE ? UET_OFI_CNTR_WRITE :
						 UET_OFI_CNTR_READ,
				k == AMO_WRITE ? NULL : io);
}

/* Elements in the entries of a *v call: its target range. */
static size_t
ioc_count(const struct fi_ioc *iov, size_t n)
{
	size_t count = 0;

	for (size_t i = 0; iov != NULL && i < n; i++)
		count += iov[i].count;
	return count;
}

static ssize_t
atomic_writemsg(struct fid_ep *fid, const struct fi_msg_atomic *msg,
	    uint64_t flags)
{
	struct uet_ofi_ep *ep = uet_ofi_ep_of(fid);

	return amo_post(ep, AMO_WRITE, msg, NULL, flags);
}

static ssize_t
atomic_writev(struct fid_ep *fid, const struct fi_ioc *iov, void **desc,
	  size_t count, fi_addr_t a, uint64_t addr, uint64_t key,
	  enum fi_datatype dt, enum fi_op op, void *context)
{
	struct uet_ofi_ep *ep = uet_ofi_ep_of(fid);
	struct fi_rma_ioc r = { .addr = addr, .key = key };
	struct fi_msg_atomic m = {
		.msg_iov = iov, .desc = desc, .iov_count = count, .addr = a,
		.rma_iov = &r, .rma_iov_count = 1, .datatype = dt, .op = op,
		.context = context,
	};

	r.count = ioc_count(iov, count);
	return amo_post(ep, AMO_WRITE, &m, NULL,
			uet_ofi_tx_flags(fid) | FI_COMPLETION);
}

static ssize_t
atomic_write(struct fid_ep *fid, const void *buf, size_t count, void *desc,
	 fi_addr_t a, uint64_t addr, uint64_t key, enum fi_datatype dt,
	 enum fi_op op, void *context)
{
	struct fi_ioc ioc = { .addr = (void *)(uintptr_t)buf, .count = count };

	return atomic_writev(fid, &ioc, &desc, 1, a, addr, key, dt, op, context);
}

static ssize_t
atomic_inject(struct fid_ep *fid, const void *buf, size_t count, fi_addr_t a,
	  uint64_t addr, uint64_t key, enum fi_datatype dt, enum fi_op op)
{
	struct uet_ofi_ep *ep = uet_ofi_ep_of(fid);
	struct fi_ioc ioc = { .addr = (void *)(uintptr_t)buf, .count = count };
	struct fi_rma_ioc r = { .addr = addr, .count = count, .key = key };
	struct fi_msg_atomic m = {
		.msg_iov = &ioc, .iov_count = 1, .addr = a, .rma_iov = &r,
		.rma_iov_count = 1, .datatype = dt, .op = op,
	};

	return amo_post(ep, AMO_WRITE, &m, NULL, FI_INJECT | UET_OFI_NO_CQ);
}

static ssize_t
atomic_readwritemsg(struct fid_ep *fid, const struct fi_msg_atomic *msg,
		struct fi_ioc *resultv, void **result_desc,
		size_t result_count, uint64_t flags)
{
	struct uet_ofi_ep *ep = uet_ofi_ep_of(fid);
	struct uet_ofi_amo_io io = { .res = resultv, .nb_res = result_count };

	(void)result_desc;
	return amo_post(ep, AMO_FETCH, msg, &io, flags);
}

static ssize_t
atomic_readwritev(struct fid_ep *fid, const struct fi_ioc *iov, void **desc,
	      size_t count, struct fi_ioc *resultv, void **result_desc,
	      size_t result_count, fi_addr_t a, uint64_t addr, uint64_t key,
	      enum fi_datatype dt, enum fi_op op, void *context)
{
	struct fi_rma_ioc r = { .addr = addr, .count = ioc_count(iov, count),
				.key = key };
	struct fi_msg_atomic m = {
		.msg_iov = iov, .desc = desc, .iov_count = count, .addr = a,
		.rma_iov = &r, .rma_iov_count = 1, .datatype = dt, .op = op,
		.context = context,
	};

	return atomic_readwritemsg(fid, &m, resultv, result_desc, result_count,
			       uet_ofi_tx_flags(fid) | FI_COMPLETION);
}

static ssize_t
atomic_readwrite(struct fid_ep *fid, const void *buf, size_t count, void *desc,
	     void *result, void *result_desc, fi_addr_t a, uint64_t addr,
	     uint64_t key, enum fi_datatype dt, enum fi_op op, void *context)
{
	/* FI_ATOMIC_READ ignores buf (may be NULL): count sizes it */
	struct fi_ioc ioc = { .addr = (void *)(uintptr_t)buf, .count = count };
	struct fi_ioc res = { .addr = result, .count = count };

	return atomic_readwritev(fid, &ioc, &desc, 1, &res, &result_desc, 1, a,
			     addr, key, dt, op, context);
}

static ssize_t
atomic_compwritemsg(struct fid_ep *fid, const struct fi_msg_atomic *msg,
		const struct fi_ioc *comparev, void **compare_desc,
		size_t compare_count, struct fi_ioc *resultv,
		void **result_desc, size_t result_count, uint64_t flags)
{
	struct uet_ofi_ep *ep = uet_ofi_ep_of(fid);
	struct uet_ofi_amo_io io = {
		.cmp = comparev, .nb_cmp = compare_count,
		.res = resultv, .nb_res = result_count,
	};

	(void)compare_desc; (void)result_desc;
	/* a NULL comparev is no compare operand, not "not a compare" */
	if (comparev == NULL)
		return -FI_EINVAL;
	return amo_post(ep, AMO_COMPARE, msg, &io, flags);
}

static ssize_t
atomic_compwritev(struct fid_ep *fid, const struct fi_ioc *iov, void **desc,
	      size_t count, const struct fi_ioc *comparev,
	      void **compare_desc, size_t compare_count,
	      struct fi_ioc *resultv, void **result_desc, size_t result_count,
	      fi_addr_t a, uint64_t addr, uint64_t key, enum fi_datatype dt,
	      enum fi_op op, void *context)
{
	struct fi_rma_ioc r = { .addr = addr, .count = ioc_count(iov, count),
				.key = key };
	struct fi_msg_atomic m = {
		.msg_iov = iov, .desc = desc, .iov_count = count, .addr = a,
		.rma_iov = &r, .rma_iov_count = 1, .datatype = dt, .op = op,
		.context = context,
	};

	return atomic_compwritemsg(fid, &m, comparev, compare_desc, compare_count,
			       resultv, result_desc, result_count,
			       uet_ofi_tx_flags(fid) | FI_COMPLETION);
}

static ssize_t
atomic_compwrite(struct fid_ep *fid, const void *buf, size_t count, void *desc,
	     const void *compare, void *compare_desc, void *result,
	     void *result_desc, fi_addr_t a, uint64_t addr, uint64_t key,
	     enum fi_datatype dt, enum fi_op op, void *context)
{
	struct fi_ioc ioc = { .addr = (void *)(uintptr_t)buf, .count = count };
	struct fi_ioc cmp = { .addr = (void *)(uintptr_t)compare,
			      .count = count };
	struct fi_ioc res = { .addr = result, .count = count };

	return atomic_compwritev(fid, &ioc, &desc, 1, &cmp, &compare_desc, 1, &res,
			     &result_desc, 1, a, addr, key, dt, op, context);
}

const struct fi_ops_atomic uet_ofi_atomic_ops = {
	.size = sizeof(struct fi_ops_atomic),
	.write = atomic_write,
	.writev = atomic_writev,
	.writemsg = atomic_writemsg,
	.inject = atomic_inject,
	.readwrite = atomic_readwrite,
	.readwritev = atomic_readwritev,
	.readwritemsg = atomic_readwritemsg,
	.compwrite = atomic_compwrite,
	.compwritev = atomic_compwritev,
	.compwritemsg = atomic_compwritemsg,
	.writevalid = ep_writevalid,
	.readwritevalid = ep_readwritevalid,
	.compwritevalid = ep_compwritevalid,
};
