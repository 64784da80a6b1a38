/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Front-end channels (docs/CHANNELS.md): three rings of fixed-size
 * entries per endpoint, and their attachment to engine contexts.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "engine_private.h"

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

int
uet_engine_chan_attach(struct uet_engine *e, unsigned int lcore_idx,
		       struct uet_chan *c)
{
	struct uet_engine_lcore *lc;
	unsigned int n;

	if (e == NULL || c == NULL || lcore_idx >= e->nb_lcores)
		return -EINVAL;
	lc = e->lc[lcore_idx];
	n = atomic_load_explicit(&lc->nb_chans, memory_order_relaxed);
	if (n >= UET_ENGINE_CHANS_MAX)
		return -ENOSPC;
	lc->chans[n] = c;
	/* posts wake the context when its lcore sleeps */
	__atomic_store_n(&c->waker, lc->wake.enabled ? &lc->wake.w : NULL,
			 __ATOMIC_RELEASE);
	/* the slot is written before the count that publishes it */
	atomic_store_explicit(&lc->nb_chans, n + 1, memory_order_release);
	/* entries posted before the attach */
	uet_engine_wake(e, lcore_idx);
	return 0;
}

int
uet_engine_chan_detach(struct uet_engine *e, struct uet_chan *c)
{
	if (e == NULL || c == NULL)
		return -EINVAL;
	if (e->running)
		return -EBUSY;
	for (unsigned int i = 0; i < e->nb_lcores; i++) {
		struct uet_engine_lcore *lc = e->lc[i];
		unsigned int n = atomic_load_explicit(&lc->nb_chans,
						      memory_order_relaxed);

		for (unsigned int j = 0; j < n; j++) {
			if (lc->chans[j] != c)
				continue;
			__atomic_store_n(&c->waker, NULL, __ATOMIC_RELEASE);
			lc->chans[j] = lc->chans[n - 1];
			lc->chans[n - 1] = NULL;
			atomic_store_explicit(&lc->nb_chans, n - 1,
					      memory_order_release);
			return 0;
		}
	}
	return -ENOENT;
}

unsigned int
uet_engine_lcore_nb_chans(const struct uet_engine_lcore *lc)
{
	return atomic_load_explicit(&lc->nb_chans, memory_order_acquire);
}

struct uet_chan *
uet_engine_lcore_chan(struct uet_engine_lcore *lc, unsigned int i)
{
	if (i >= uet_engine_lcore_nb_chans(lc))
		return NULL;
	return lc->chans[i];
}
