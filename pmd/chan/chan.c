/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Front-end channels (docs/CHANNELS.md): three rings of fixed-size
 * entries per endpoint, and their attachment to engine contexts.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include <uet/uet_chan.h>
#include <uet/uet_engine.h>

#define UET_CHAN_FLAGS (UET_CHAN_MP_SUBMIT | UET_CHAN_MC_COMPLETE | \
			UET_CHAN_POSTER_PROGRESS)

static struct rte_ring *
chan_ring(const char *name, const char *sfx, unsigned int esize,
	  unsigned int size, int socket, unsigned int flags)
{
	char rname[RTE_RING_NAMESIZE];

	snprintf(rname, sizeof(rname), "%s%s", name, sfx);
	return rte_ring_create_elem(rname, esize, size, socket, flags);
}

struct uet_chan *
uet_chan_create(const char *name, unsigned int sq_size, unsigned int rq_size,
		unsigned int cq_size, int socket, unsigned int flags)
{
	struct uet_chan *c;
	unsigned int sq_flags = RING_F_SC_DEQ, cq_flags = RING_F_SP_ENQ;

	if (name == NULL || strlen(name) > 20 || (flags & ~UET_CHAN_FLAGS) ||
	    !rte_is_power_of_2(sq_size) || !rte_is_power_of_2(rq_size) ||
	    !rte_is_power_of_2(cq_size) || sq_size < 2 || rq_size < 2 ||
	    cq_size < 2) {
		rte_errno = EINVAL;
		return NULL;
	}
	if (!(flags & UET_CHAN_MP_SUBMIT))
		sq_flags |= RING_F_SP_ENQ;
	if (!(flags & UET_CHAN_MC_COMPLETE))
		cq_flags |= RING_F_SC_DEQ;
	c = rte_zmalloc_socket("uet_chan", sizeof(*c), RTE_CACHE_LINE_SIZE,
			       socket);
	if (c == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->flags = flags;
	c->wake_fd = -1;
	c->sq_mask = sq_size - 1;
	c->rq_mask = rq_size - 1;
	c->cq_mask = cq_size - 1;
	c->sq = chan_ring(name, "_sq", sizeof(struct uet_chan_sqe), sq_size,
			  socket, sq_flags);
	if (c->sq == NULL)
		goto free_chan;
	c->rq = chan_ring(name, "_rq", sizeof(struct uet_chan_rqe), rq_size,
			  socket, sq_flags);
	if (c->rq == NULL)
		goto free_sq;
	c->cq = chan_ring(name, "_cq", sizeof(struct uet_chan_cqe), cq_size,
			  socket, cq_flags);
	if (c->cq == NULL)
		goto free_rq;
	return c;

free_rq:
	rte_ring_free(c->rq);
free_sq:
	rte_ring_free(c->sq);
free_chan:
	{
		int err = rte_errno;

		rte_free(c);
		rte_errno = err;
	}
	return NULL;
}

void
uet_chan_free(struct uet_chan *c)
{
	if (c == NULL)
		return;
	rte_ring_free(c->cq);
	rte_ring_free(c->rq);
	rte_ring_free(c->sq);
	rte_free(c);
}

/*
 * Attachment: the core keeps the context's list of work queues; the
 * channel learns the context and its wake-up flag before the core
 * publishes it (release), so a poster that sees it attached wakes it.
 */
int
uet_engine_chan_attach(struct uet_engine *e, unsigned int lcore_idx,
		       struct uet_chan *c)
{
	struct uet_engine_lcore *lc;
	int rc;

	if (e == NULL || c == NULL ||
	    (lc = uet_engine_lcore_get(e, lcore_idx)) == NULL)
		return -EINVAL;
	c->lcore = lc;
	/* posts wake the context when its lcore sleeps */
	__atomic_store_n(&c->waker, uet_engine_lcore_waker(lc),
			 __ATOMIC_RELEASE);
	rc = uet_engine_attach(e, lcore_idx, c);
	if (rc < 0) {
		__atomic_store_n(&c->waker, NULL, __ATOMIC_RELEASE);
		c->lcore = NULL;
		return rc;
	}
	/* entries posted before the attach */
	uet_engine_wake(e, lcore_idx);
	return 0;
}

int
uet_engine_chan_detach(struct uet_engine *e, struct uet_chan *c)
{
	int rc;

	if (e == NULL || c == NULL)
		return -EINVAL;
	rc = uet_engine_detach(e, c);
	if (rc < 0)
		return rc;
	__atomic_store_n(&c->waker, NULL, __ATOMIC_RELEASE);
	c->lcore = NULL;
	return 0;
}

unsigned int
uet_engine_lcore_nb_chans(const struct uet_engine_lcore *lc)
{
	return uet_engine_lcore_nb_attached(lc);
}

struct uet_chan *
uet_engine_lcore_chan(struct uet_engine_lcore *lc, unsigned int i)
{
	return uet_engine_lcore_attached(lc, i);
}

void
uet_chan_wake(struct uet_chan *c)
{
	struct uet_engine_waker *cw = __atomic_load_n(&c->waker,
						      __ATOMIC_ACQUIRE);

	if (cw == NULL)
		return;
	/* a client of the uet-engine service: the context is in the
	 * service's process, its eventfd is the way in */
	if (c->wake_fd >= 0) {
		uint64_t one = 1;

		(void)!write(c->wake_fd, &one, sizeof(one));
		return;
	}
	if (c->lcore != NULL)
		uet_engine_lcore_kick(c->lcore,
				      (c->flags & UET_CHAN_POSTER_PROGRESS) != 0);
}

/* ------------------------------------------------------------------ */
/* channels in caller memory (the uet-engine service, docs/SERVICE.md)  */
/* ------------------------------------------------------------------ */

/* 2^24 entries: far above any sane ring, and 2^24 * 128 B fits size_t */
#define CHAN_MEM_RING_MAX (1u << 24)

static bool
chan_size_ok(unsigned int n)
{
	return n >= 2 && n <= CHAN_MEM_RING_MAX && rte_is_power_of_2(n);
}

size_t
uet_chan_mem_size(unsigned int sq_size, unsigned int rq_size,
		  unsigned int cq_size, size_t off[3])
{
	const unsigned int sz[3] = { sq_size, rq_size, cq_size };
	const unsigned int es[3] = { sizeof(struct uet_chan_sqe),
				     sizeof(struct uet_chan_rqe),
				     sizeof(struct uet_chan_cqe) };
	size_t total = 0;

	for (unsigned int i = 0; i < 3; i++) {
		ssize_t m;

		if (!chan_size_ok(sz[i]))
			return 0;
		m = rte_ring_get_memsize_elem(es[i], sz[i]);
		if (m <= 0)
			return 0;
		if (off != NULL)
			off[i] = total;
		total += RTE_ALIGN_CEIL((size_t)m, RTE_CACHE_LINE_SIZE);
	}
	return total;
}

static void
chan_mem_fill(struct uet_chan *c, const char *name, unsigned int flags,
	      unsigned int sq_size, unsigned int rq_size,
	      unsigned int cq_size)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->flags = flags;
	c->wake_fd = -1;
	c->sq_mask = sq_size - 1;
	c->rq_mask = rq_size - 1;
	c->cq_mask = cq_size - 1;
}

int
uet_chan_init_mem(struct uet_chan *c, const char *name, void *mem,
		  size_t mem_len, unsigned int sq_size, unsigned int rq_size,
		  unsigned int cq_size, unsigned int flags)
{
	const unsigned int ok = UET_CHAN_MP_SUBMIT | UET_CHAN_MC_COMPLETE |
				UET_CHAN_SHARED;
	unsigned int sq_flags = RING_F_SC_DEQ, cq_flags = RING_F_SP_ENQ;
	char rname[RTE_RING_NAMESIZE];
	size_t off[3], need;
	uint8_t *m = mem;

	need = uet_chan_mem_size(sq_size, rq_size, cq_size, off);
	if (c == NULL || name == NULL || strlen(name) > 20 || mem == NULL ||
	    (flags & ~ok) || need == 0 || mem_len < need ||
	    ((uintptr_t)mem & (RTE_CACHE_LINE_SIZE - 1)) != 0)
		return -EINVAL;
	if (!(flags & UET_CHAN_MP_SUBMIT))
		sq_flags |= RING_F_SP_ENQ;
	if (!(flags & UET_CHAN_MC_COMPLETE))
		cq_flags |= RING_F_SC_DEQ;
	chan_mem_fill(c, name, flags, sq_size, rq_size, cq_size);
	c->sq = (struct rte_ring *)(m + off[0]);
	c->rq = (struct rte_ring *)(m + off[1]);
	c->cq = (struct rte_ring *)(m + off[2]);
	snprintf(rname, sizeof(rname), "%s_sq", name);
	if (rte_ring_init(c->sq, rname, sq_size, sq_flags) != 0)
		return -EINVAL;
	snprintf(rname, sizeof(rname), "%s_rq", name);
	if (rte_ring_init(c->rq, rname, rq_size, sq_flags) != 0)
		return -EINVAL;
	snprintf(rname, sizeof(rname), "%s_cq", name);
	if (rte_ring_init(c->cq, rname, cq_size, cq_flags) != 0)
		return -EINVAL;
	return 0;
}

static bool
ring_hdr_ok(const struct rte_ring *r, unsigned int size)
{
	return r != NULL &&
	       ((uintptr_t)r & (RTE_CACHE_LINE_SIZE - 1)) == 0 &&
	       r->size == size && r->mask == size - 1 &&
	       r->capacity == size - 1;
}

int
uet_chan_map_mem(struct uet_chan *c, const char *name, void *sq, void *rq,
		 void *cq, unsigned int sq_size, unsigned int rq_size,
		 unsigned int cq_size, unsigned int flags)
{
	const unsigned int ok = UET_CHAN_MP_SUBMIT | UET_CHAN_MC_COMPLETE;

	if (c == NULL || name == NULL || (flags & ~ok) ||
	    !chan_size_ok(sq_size) || !chan_size_ok(rq_size) ||
	    !chan_size_ok(cq_size) || !ring_hdr_ok(sq, sq_size) ||
	    !ring_hdr_ok(rq, rq_size) || !ring_hdr_ok(cq, cq_size))
		return -EINVAL;
	chan_mem_fill(c, name, flags, sq_size, rq_size, cq_size);
	c->sq = sq;
	c->rq = rq;
	c->cq = cq;
	return 0;
}

/*
 * Engine side of a UET_CHAN_SHARED channel: the single consumer of the
 * SQ/RQ and single producer of the CQ keeps its cursor in private memory
 * and indexes the ring with the mask it made, so whatever a peer writes
 * into the ring header, every access stays inside the ring's entries.
 * The peer's side is a plain rte_ring (it reads cons.tail to find free
 * room, prod.tail to find entries), so both cursors are published there.
 */
static unsigned int
shared_take(struct rte_ring *r, uint32_t mask, uint32_t *cons, void *dst,
	    size_t esize, unsigned int n)
{
	const uint8_t *ents = (const uint8_t *)&r[1];
	uint32_t avail = __atomic_load_n(&r->prod.tail, __ATOMIC_ACQUIRE) -
			 *cons;

	/* a peer's bogus tail yields at most one ring of garbage entries */
	if (avail > mask)
		avail = mask;
	if (n > avail)
		n = avail;
	for (unsigned int i = 0; i < n; i++)
		memcpy((uint8_t *)dst + i * esize,
		       ents + (size_t)((*cons + i) & mask) * esize, esize);
	*cons += n;
	__atomic_store_n(&r->cons.head, *cons, __ATOMIC_RELAXED);
	__atomic_store_n(&r->cons.tail, *cons, __ATOMIC_RELEASE);
	return n;
}

unsigned int
uet_chan_sq_take_shared(struct uet_chan *c, struct uet_chan_sqe *e,
			unsigned int n)
{
	return shared_take(c->sq, c->sq_mask, &c->sq_cons, e, sizeof(*e), n);
}

unsigned int
uet_chan_rq_take_shared(struct uet_chan *c, struct uet_chan_rqe *e,
			unsigned int n)
{
	return shared_take(c->rq, c->rq_mask, &c->rq_cons, e, sizeof(*e), n);
}

unsigned int
uet_chan_cq_free_count_shared(const struct uet_chan *c)
{
	uint32_t used = c->cq_prod -
			__atomic_load_n(&c->cq->cons.tail, __ATOMIC_ACQUIRE);

	return used >= c->cq_mask ? 0 : c->cq_mask - used;
}

int
uet_chan_cq_push_shared(struct uet_chan *c, const struct uet_chan_cqe *e)
{
	uint8_t *ents = (uint8_t *)&c->cq[1];

	if (uet_chan_cq_free_count_shared(c) == 0)
		return -EAGAIN;
	memcpy(ents + (size_t)(c->cq_prod & c->cq_mask) * sizeof(*e), e,
	       sizeof(*e));
	c->cq_prod++;
	__atomic_store_n(&c->cq->prod.head, c->cq_prod, __ATOMIC_RELAXED);
	__atomic_store_n(&c->cq->prod.tail, c->cq_prod, __ATOMIC_RELEASE);
	return 0;
}

/* Copies of up to @p n entries from the private cursor on, not taken. */
static unsigned int
shared_peek(struct rte_ring *r, uint32_t mask, uint32_t cons, void *tmp,
	    const void **e, size_t esize, unsigned int n)
{
	const uint8_t *ents = (const uint8_t *)&r[1];
	uint32_t avail = __atomic_load_n(&r->prod.tail, __ATOMIC_ACQUIRE) -
			 cons;

	/* a peer's bogus tail yields at most one ring of garbage entries */
	if (avail > mask)
		avail = mask;
	if (n > avail)
		n = avail;
	for (unsigned int i = 0; i < n; i++) {
		uint8_t *d = (uint8_t *)tmp + i * esize;

		memcpy(d, ents + (size_t)((cons + i) & mask) * esize, esize);
		e[i] = d;
	}
	return n;
}

/* The first @p n peeked entries are taken: publish the cursor. */
static void
shared_done(struct rte_ring *r, uint32_t *cons, unsigned int n)
{
	*cons += n;
	__atomic_store_n(&r->cons.head, *cons, __ATOMIC_RELAXED);
	__atomic_store_n(&r->cons.tail, *cons, __ATOMIC_RELEASE);
}

unsigned int
uet_chan_sq_peek_shared(struct uet_chan *c, const struct uet_chan_sqe **e,
			struct uet_chan_sqe *tmp, unsigned int n)
{
	return shared_peek(c->sq, c->sq_mask, c->sq_cons, tmp,
			   (const void **)e, sizeof(*tmp), n);
}

unsigned int
uet_chan_rq_peek_shared(struct uet_chan *c, const struct uet_chan_rqe **e,
			struct uet_chan_rqe *tmp, unsigned int n)
{
	return shared_peek(c->rq, c->rq_mask, c->rq_cons, tmp,
			   (const void **)e, sizeof(*tmp), n);
}

void
uet_chan_sq_done_shared(struct uet_chan *c, unsigned int n)
{
	shared_done(c->sq, &c->sq_cons, n);
}

void
uet_chan_rq_done_shared(struct uet_chan *c, unsigned int n)
{
	shared_done(c->rq, &c->rq_cons, n);
}

/* CQ slots are written in the peer's memory: nothing is read back. */
unsigned int
uet_chan_cq_reserve_shared(struct uet_chan *c, struct uet_chan_cqe **e,
			   unsigned int n)
{
	struct uet_chan_cqe *ents = (struct uet_chan_cqe *)&c->cq[1];
	unsigned int room = uet_chan_cq_free_count_shared(c);

	if (n > room)
		n = room;
	for (unsigned int i = 0; i < n; i++)
		e[i] = &ents[(c->cq_prod + i) & c->cq_mask];
	return n;
}

void
uet_chan_cq_commit_shared(struct uet_chan *c, unsigned int n)
{
	c->cq_prod += n;
	__atomic_store_n(&c->cq->prod.head, c->cq_prod, __ATOMIC_RELAXED);
	__atomic_store_n(&c->cq->prod.tail, c->cq_prod, __ATOMIC_RELEASE);
}
