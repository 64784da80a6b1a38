/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * AUTO progress that sleeps when idle (docs/ENGINE.md "Progress modes").
 *
 * An AUTO lcore that found no work for engine.idle_spin blocks in
 * rte_epoll_wait() on its own epoll set:
 *   - an eventfd, written by a thread that posts to one of its channels
 *     (uet_chan_notify()), queues a control request (uet_engine_wake())
 *     or stops the engine;
 *   - a timerfd armed at the context's next timer deadline (PDS timer
 *     wheel, neighbour probes, held fault frames), or, when some RX queue
 *     has no interrupt, at the end of a back-off sleep (engine.idle_sleep
 *     doubled per idle wake-up, at most engine.idle_sleep_max): such a
 *     queue is polled that often;
 *   - the RX queue interrupts of ports that have them (engine.rx_intr:
 *     net_tap, NICs; not net_ring, net_memif or net_af_packet in DPDK
 *     22.11), armed only for the sleep as DPDK's l3fwd-power does.
 *
 * While the lcore sleeps, an application thread may run the context's
 * loop itself (uet_engine_progress(), posts to UET_CHAN_POSTER_PROGRESS
 * channels): both take the context's progress lock, the lcore for as long
 * as it is awake, the application thread with a trylock for a few
 * iterations. While an application thread progressed the context within
 * the last idle_sleep_max (the grace), the context is that thread's: the
 * lcore arms no RX interrupt and no timer deadline, and sleeps until the
 * grace has passed since the thread's last pass (the thread runs the
 * timers in its own iterations); a post or a due timer that wakes it
 * gets one pass, after which it sleeps again instead of staying awake
 * beside the polling thread (on few cores the two would compete for one
 * CPU). A lcore woken while an application thread holds the lock does
 * not wait for it: it asks the holder for one more pass and naps.
 *
 * No lost wake-up: the lcore sets `sleeping` (sequentially consistent)
 * before its last look at the rings and queues; a poster enqueues, fences
 * and reads `sleeping`. One of the two sees the other. A poster that
 * finds the lock held raises `pending` and tries the lock again; the
 * holder lets go of the lock, fences and reads `pending`, and runs one
 * more pass when it is raised (the holder may have looked before the
 * post). The lcore does the same before it blocks, so a post to a
 * progress channel needs no eventfd write.
 */

#include <errno.h>
#include <stdalign.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/uio.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <rte_ethdev.h>
#include <rte_interrupts.h>
#include <rte_log.h>
#include <rte_pause.h>

#include "engine_private.h"

/* epoll user data of the two fds of the context (RX queues: 1 + index) */
#define WAKE_TAG_EFD ((void *)(uintptr_t)0xefd0)
#define WAKE_TAG_TFD ((void *)(uintptr_t)0x7fd0)
/* spins on a busy progress lock before the lcore yields its CPU */
#define WAKE_LOCK_SPINS 1024
/* spins of a woken lcore on a lock an application thread holds before
 * it leaves the pass to that thread (which may be descheduled on the
 * lcore's own CPU: spinning longer would only delay it) */
#define WAKE_RELOCK_SPINS 64
/* iterations a poster runs for a sleeping context */
#define WAKE_POST_ITERATIONS 4
/* passes an application thread runs for others' requests (`pending`)
 * before it leaves the next one to the lcore (eventfd) */
#define WAKE_APP_ROUNDS 4

enum wake_cause {
	WAKE_NONE = 0,
	WAKE_POST,
	WAKE_RX,
	WAKE_TIME,
};

bool
engine_rx_intr_wanted(const struct uet_engine *e)
{
	const struct uet_config_engine *c = &e->cfg.engine;

	return c->progress == UET_CONFIG_PROGRESS_AUTO &&
	       c->idle_sleep_ns != 0 && c->rx_intr;
}

/* ------------------------------------------------------------------ */
/* setup                                                               */
/* ------------------------------------------------------------------ */

static int
ep_add(int ep, int fd, struct rte_epoll_event *ev, void *tag)
{
	memset(ev, 0, sizeof(*ev));
	ev->epdata.event = EPOLLIN | EPOLLET;
	ev->epdata.data = tag;
	return rte_epoll_ctl(ep, EPOLL_CTL_ADD, fd, ev) == 0 ? 0 : -errno;
}

/*
 * Put the RX interrupt of every queue of the context that has one in
 * the epoll set. A driver without RX interrupts makes ethdev log an
 * error per call: the probe runs with the ethdev log quietened.
 */
static void
rx_intr_setup(struct uet_engine_lcore *lc)
{
	struct engine_wake *w = &lc->wake;
	int lt = rte_log_register("lib.ethdev");
	int lvl = lt >= 0 ? rte_log_get_level((uint32_t)lt) : -1;

	if (lvl >= 0)
		(void)rte_log_set_level((uint32_t)lt, RTE_LOG_CRIT);
	for (uint16_t i = 0; i < lc->nb_rxq; i++) {
		struct engine_rxq *q = &lc->rxq[i];
		uint16_t pid = lc->eng->port[q->port].port_id;
		int rc;

		if (rte_eth_dev_rx_intr_ctl_q_get_fd(pid, q->queue) < 0)
			continue;
		rc = rte_eth_dev_rx_intr_ctl_q(pid, q->queue, w->ep_all,
					       RTE_INTR_EVENT_ADD,
					       (void *)(uintptr_t)(1 + i));
		if (rc < 0)
			continue;
		q->intr = true;
		w->nb_intr++;
		rc = rte_eth_dev_rx_intr_disable(pid, q->queue);
		q->intr_ctl = rc == 0;
	}
	if (lvl >= 0)
		(void)rte_log_set_level((uint32_t)lt, (uint32_t)lvl);
}

int
engine_wake_init(struct uet_engine_lcore *lc)
{
	struct engine_wake *w = &lc->wake;
	int rc;

	w->efd = w->tfd = w->ep_all = w->ep_nap = -1;
	w->wp = &w->w;
	rte_spinlock_init(&w->lock);
	w->until_ns = UINT64_MAX;
	w->enabled = !lc->eng->inline_mode &&
		     lc->eng->cfg.engine.idle_sleep_ns != 0;
	if (!w->enabled)
		return 0;
	w->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	w->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	w->ep_all = epoll_create1(EPOLL_CLOEXEC);
	w->ep_nap = epoll_create1(EPOLL_CLOEXEC);
	if (w->efd < 0 || w->tfd < 0 || w->ep_all < 0 || w->ep_nap < 0) {
		rc = -errno;
		goto fail;
	}
	rc = ep_add(w->ep_all, w->efd, &w->ev[0], WAKE_TAG_EFD);
	if (rc == 0)
		rc = ep_add(w->ep_all, w->tfd, &w->ev[1], WAKE_TAG_TFD);
	if (rc == 0)
		rc = ep_add(w->ep_nap, w->efd, &w->ev[2], WAKE_TAG_EFD);
	if (rc == 0)
		rc = ep_add(w->ep_nap, w->tfd, &w->ev[3], WAKE_TAG_TFD);
	if (rc < 0)
		goto fail;
	if (engine_rx_intr_wanted(lc->eng))
		rx_intr_setup(lc);
	ENG_LOG(DEBUG, "context %u sleeps when idle; %u of %u RX queues "
		"have interrupts", lc->idx, w->nb_intr, lc->nb_rxq);
	return 0;
fail:
	ENG_LOG(ERR, "context %u: wake-up fds: %s", lc->idx, strerror(-rc));
	engine_wake_fini(lc);
	return rc;
}

static void
fd_close(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

void
engine_wake_fini(struct uet_engine_lcore *lc)
{
	struct engine_wake *w = &lc->wake;

	for (uint16_t i = 0; i < lc->nb_rxq; i++) {
		struct engine_rxq *q = &lc->rxq[i];

		if (!q->intr)
			continue;
		(void)rte_eth_dev_rx_intr_ctl_q(lc->eng->port[q->port].port_id,
						q->queue, w->ep_all,
						RTE_INTR_EVENT_DEL, NULL);
		q->intr = false;
	}
	w->nb_intr = 0;
	fd_close(&w->ep_nap);
	fd_close(&w->ep_all);
	fd_close(&w->tfd);
	fd_close(&w->efd);
	w->enabled = false;
}

/* ------------------------------------------------------------------ */
/* the progress lock                                                   */
/* ------------------------------------------------------------------ */

/*
 * The lcore takes the lock back after a wake-up. An application thread
 * holds it for a few iterations; on a machine with fewer CPUs than busy
 * threads it may be descheduled meanwhile, so the lcore stops spinning
 * after a while and sleeps idle_sleep between tries.
 */
void
engine_wake_lock(struct uet_engine_lcore *lc)
{
	struct engine_wake *w = &lc->wake;
	unsigned int spins = 0;

	while (!rte_spinlock_trylock(&w->lock)) {
		if (++spins < WAKE_LOCK_SPINS) {
			rte_pause();
		} else {
			uint64_t ns = lc->eng->cfg.engine.idle_sleep_ns;
			struct timespec ts = {
				.tv_sec = (time_t)(ns / 1000000000ULL),
				.tv_nsec = (long)(ns % 1000000000ULL) + 1000,
			};

			(void)nanosleep(&ts, NULL);
		}
	}
}

/* The lcore leaves (stop): application threads no longer progress it. */
void
engine_wake_unlock_awake(struct uet_engine_lcore *lc)
{
	__atomic_store_n(&lc->wake.wp->sleeping, 0, __ATOMIC_SEQ_CST);
	rte_spinlock_unlock(&lc->wake.lock);
}

void
engine_wake_kick(struct uet_engine_lcore *lc, bool force)
{
	struct engine_wake *w = &lc->wake;
	uint64_t one = 1;

	if (w->efd < 0)
		return;
	/* one write per sleep is enough: the lcore drains the counter */
	if (!force && __atomic_exchange_n(&w->kicked, 1, __ATOMIC_ACQ_REL))
		return;
	/* a plain write: eventfd takes no RWF_NOWAIT for writes (Linux 6.18:
	 * EOPNOTSUPP). A process the eventfd is shared with can make it
	 * block (O_NONBLOCK cleared, the counter filled), but only until
	 * the lcore, which a full counter wakes, empties it (efd_drain) */
	if (write(w->efd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		ENG_LOG(ERR, "context %u: eventfd write: %s", lc->idx,
			strerror(errno));
}

/* ------------------------------------------------------------------ */
/* application-driven progress                                         */
/* ------------------------------------------------------------------ */

static bool
wake_sleeping(const struct engine_wake *w)
{
	return __atomic_load_n(&w->wp->sleeping, __ATOMIC_RELAXED) != 0;
}

/* An application thread ran or polled the context within @p grace. */
static bool
app_active(const struct engine_wake *w, uint64_t now, uint64_t grace)
{
	uint64_t t = __atomic_load_n(&w->app_ns, __ATOMIC_RELAXED);

	return t != 0 && (int64_t)(now - t) < (int64_t)grace;
}

bool
engine_app_polls(const struct uet_engine_lcore *lc, uint64_t now)
{
	return app_active(&lc->wake, now,
			  lc->eng->cfg.engine.idle_sleep_max_ns);
}

/*
 * Ask the holder of the progress lock for one more pass (it reads
 * `pending` after it lets go, wake_release()), then try the lock again:
 * true when this thread got it after all. Dekker with wake_release(): one
 * of the two sees the other.
 */
static bool
wake_ask_holder(struct engine_wake *w)
{
	__atomic_store_n(&w->pending, 1, __ATOMIC_SEQ_CST);
	rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
	return rte_spinlock_trylock(&w->lock) != 0;
}

/* Let go of the progress lock; true when another thread asked for a pass
 * meanwhile (wake_ask_holder()). */
static bool
wake_release(struct engine_wake *w)
{
	rte_spinlock_unlock(&w->lock);
	rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
	return __atomic_load_n(&w->pending, __ATOMIC_RELAXED) != 0;
}

/* The lock holder is about to look at the rings and queues: the requests
 * made so far are served by this pass. True when there was one. */
static bool
wake_take_pending(struct engine_wake *w)
{
	return __atomic_exchange_n(&w->pending, 0, __ATOMIC_SEQ_CST) != 0;
}

/*
 * Up to @p max_iterations on the calling thread, holding the lock: the
 * lcore's next wake-up is left alone unless this pass armed a timer
 * earlier than it and the lcore sleeps longer than the grace (a lcore
 * that sleeps until the grace is over runs the timers then, if no thread
 * ran them meanwhile).
 */
static unsigned int
app_pass(struct uet_engine_lcore *lc, unsigned int max_iterations)
{
	struct engine_wake *w = &lc->wake;
	const uint64_t max = lc->eng->cfg.engine.idle_sleep_max_ns;
	unsigned int work = 0;
	uint64_t until;

	(void)wake_take_pending(w);
	for (unsigned int i = 0; i < max_iterations; i++) {
		unsigned int n = engine_lcore_iterate(lc);

		ENG_INC(lc->st.app_iterations);
		work += n;
		if (n == 0)
			break;
	}
	__atomic_store_n(&w->app_ns, lc->now, __ATOMIC_RELAXED);
	until = __atomic_load_n(&w->until_ns, __ATOMIC_RELAXED);
	if (work != 0 && until > lc->now + max &&
	    engine_lcore_deadline(lc) < until)
		engine_wake_kick(lc, false);
	return work;
}

/*
 * An application thread polls a context whose lcore is awake: it wants
 * the completions now, and will run the loop itself once the lcore
 * sleeps. The lcore sees it (engine_app_polls()) and sleeps at its next
 * iteration without work instead of spinning idle_spin beside it. The
 * stamp is refreshed at most once per microsecond: the lcore reads this
 * cache line only when it has nothing to do.
 */
static void
app_polls(struct uet_engine_lcore *lc)
{
	struct engine_wake *w = &lc->wake;
	uint64_t now = engine_now_ns(lc->eng);

	if (now - __atomic_load_n(&w->app_ns, __ATOMIC_RELAXED) > 1000)
		__atomic_store_n(&w->app_ns, now, __ATOMIC_RELAXED);
}

/*
 * Run up to @p max_iterations of a sleeping context on the calling
 * thread. @p posted: the caller queued work for it; if another thread
 * holds the lock (it may have looked at the rings before the post), ask
 * it for one more pass. Requests that come while this thread runs the
 * loop get passes of their own (at most WAKE_APP_ROUNDS, then the lcore
 * is woken for the next).
 */
int
engine_app_progress(struct uet_engine_lcore *lc, unsigned int max_iterations,
		 bool posted)
{
	struct engine_wake *w = &lc->wake;
	unsigned int work = 0;

	if (!wake_sleeping(w)) {
		app_polls(lc);
		return 0;
	}
	if (!rte_spinlock_trylock(&w->lock) &&
	    (!posted || !wake_ask_holder(w)))
		return 0;
	for (unsigned int round = 0;; round++) {
		/* the lcore stopped meanwhile (it clears the flag under the
		 * lock) */
		if (!wake_sleeping(w)) {
			rte_spinlock_unlock(&w->lock);
			break;
		}
		work += app_pass(lc, max_iterations);
		if (!wake_release(w))
			break;
		if (round + 1 == WAKE_APP_ROUNDS) {
			engine_wake_kick(lc, false);
			break;
		}
		/* another holder now sees `pending` when it lets go */
		if (!rte_spinlock_trylock(&w->lock))
			break;
	}
	return (int)RTE_MIN(work, (unsigned int)INT32_MAX);
}

int
uet_engine_progress(struct uet_engine *e, unsigned int max_iterations)
{
	int work = 0;

	if (e == NULL)
		return -EINVAL;
	if (e->inline_mode)
		return uet_engine_poll(e, max_iterations);
	for (unsigned int i = 0; i < e->nb_lcores; i++)
		if (e->lc[i]->wake.enabled)
			work += engine_app_progress(e->lc[i], max_iterations,
						 false);
	return work;
}

void
uet_engine_wake(struct uet_engine *e, unsigned int lcore_idx)
{
	struct uet_engine_lcore *lc;

	if (e == NULL || lcore_idx >= e->nb_lcores)
		return;
	lc = e->lc[lcore_idx];
	if (!lc->wake.enabled)
		return;
	rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (wake_sleeping(&lc->wake))
		engine_wake_kick(lc, false);
}

int
uet_engine_wakers_place(struct uet_engine *e, void *base, size_t stride)
{
	if (e == NULL || (base != NULL &&
			  (stride < sizeof(struct uet_engine_waker) ||
			   stride % alignof(struct uet_engine_waker) != 0)))
		return -EINVAL;
	if (e->running)
		return -EBUSY;
	for (unsigned int i = 0; i < e->nb_lcores; i++)
		if (uet_engine_lcore_nb_attached(e->lc[i]) != 0)
			return -EBUSY;
	for (unsigned int i = 0; i < e->nb_lcores; i++) {
		struct engine_wake *w = &e->lc[i]->wake;
		struct uet_engine_waker *to = base == NULL ? &w->w :
			(struct uet_engine_waker *)((uint8_t *)base +
						  (size_t)i * stride);

		__atomic_store_n(&to->sleeping,
				 __atomic_load_n(&w->wp->sleeping,
						 __ATOMIC_RELAXED),
				 __ATOMIC_SEQ_CST);
		w->wp = to;
	}
	return 0;
}

int
uet_engine_wake_fd(const struct uet_engine *e, unsigned int lcore_idx)
{
	struct engine_wake *w;

	if (e == NULL || lcore_idx >= e->nb_lcores)
		return -EINVAL;
	w = &e->lc[lcore_idx]->wake;
	if (!w->enabled || w->efd < 0)
		return -ENOENT;
	/* another process may read it first: no sleep waits on it alone */
	__atomic_store_n(&w->shared, true, __ATOMIC_RELAXED);
	return w->efd;
}

struct uet_engine_waker *
uet_engine_lcore_waker(struct uet_engine_lcore *lc)
{
	return lc->wake.enabled ? lc->wake.wp : NULL;
}

void
uet_engine_lcore_kick(struct uet_engine_lcore *lc, bool run)
{
	if (run)
		(void)engine_app_progress(lc, WAKE_POST_ITERATIONS, true);
	else
		engine_wake_kick(lc, false);
}

/* ------------------------------------------------------------------ */
/* the lcore's sleep                                                   */
/* ------------------------------------------------------------------ */

static void
rx_intr_arm(struct uet_engine_lcore *lc, bool on)
{
	for (uint16_t i = 0; i < lc->nb_rxq; i++) {
		const struct engine_rxq *q = &lc->rxq[i];
		uint16_t pid = lc->eng->port[q->port].port_id;

		if (!q->intr_ctl)
			continue;
		if (on)
			(void)rte_eth_dev_rx_intr_enable(pid, q->queue);
		else
			(void)rte_eth_dev_rx_intr_disable(pid, q->queue);
	}
}

/* Reset an eventfd or timerfd (one read returns and clears its whole
 * count); true when it had fired. */
static bool
fd_drain(int fd)
{
	uint64_t v;

	return read(fd, &v, sizeof(v)) == (ssize_t)sizeof(v);
}

/*
 * Reset the wake-up eventfd, never blocking. It is shared with the
 * processes that post to the lcore (a uet-engine service hands it to its
 * clients): one open file description, whose O_NONBLOCK any of them can
 * clear, and a counter any of them can read first. A read() would then
 * block the lcore for good (the security review: a client cleared the
 * flag and read the counter in a loop). RWF_NOWAIT makes this read
 * non-blocking whatever the file's flags (Linux 5.12 and later; before,
 * EOPNOTSUPP: the file's flag, which the engine set, is all there is).
 */
static bool
efd_drain(int fd)
{
	uint64_t v;
	struct iovec iov = { .iov_base = &v, .iov_len = sizeof(v) };
	ssize_t n = preadv2(fd, &iov, 1, -1, RWF_NOWAIT);

	if (n < 0 && errno == EOPNOTSUPP)
		return fd_drain(fd);
	return n == (ssize_t)sizeof(v);
}

/* Block for at most @p ns (UINT64_MAX: until a wake-up) on @p ep. */
static enum wake_cause
wake_block(struct uet_engine_lcore *lc, int ep, uint64_t ns)
{
	struct engine_wake *w = &lc->wake;
	struct itimerspec its = { { 0, 0 }, { 0, 0 } };
	struct rte_epoll_event ev[8];
	enum wake_cause cause = WAKE_NONE;
	bool efd = false;
	int n;

	if (ns != UINT64_MAX) {
		its.it_value.tv_sec = (time_t)(ns / 1000000000ULL);
		its.it_value.tv_nsec = (long)(ns % 1000000000ULL);
	}
	/* zero disarms: a wait without a deadline */
	(void)timerfd_settime(w->tfd, 0, &its, NULL);
	/* a kick of an earlier sleep of this round was read: the next one
	 * must write again (a kicker that set the flag writes anyway) */
	__atomic_store_n(&w->kicked, 0, __ATOMIC_SEQ_CST);
	n = rte_epoll_wait(ep, ev, RTE_DIM(ev), -1);
	for (int i = 0; i < n; i++) {
		void *tag = ev[i].epdata.data;

		if (tag == WAKE_TAG_TFD) {
			(void)fd_drain(w->tfd);
			if (cause == WAKE_NONE)
				cause = WAKE_TIME;
		} else if (tag == WAKE_TAG_EFD) {
			efd = true;
		} else {
			cause = WAKE_RX;
		}
	}
	/* a kick that came after epoll returned counts too: its post may
	 * be unseen by the loop that held the lock meanwhile (kickers set
	 * `kicked` before they write; without either there is nothing to
	 * read) */
	if ((efd || __atomic_load_n(&w->kicked, __ATOMIC_ACQUIRE) != 0) &&
	    efd_drain(w->efd) && cause != WAKE_RX)
		cause = WAKE_POST;
	return cause == WAKE_NONE ? WAKE_TIME : cause;
}


/*
 * How long to sleep, from the lock holder's view. Returns the end of the
 * sleep (engine clock) and whether RX interrupts are waited for.
 */
static uint64_t
wake_until(struct uet_engine_lcore *lc, uint64_t now, uint64_t backoff,
	   bool *rx)
{
	struct engine_wake *w = &lc->wake;
	uint64_t max = lc->eng->cfg.engine.idle_sleep_max_ns;
	uint64_t dl = engine_lcore_deadline(lc);

	*rx = false;
	/* the polling thread runs the timers meanwhile */
	if (app_active(w, now, max))
		return __atomic_load_n(&w->app_ns, __ATOMIC_RELAXED) + max;
	*rx = w->nb_intr != 0;
	/* frames a TX queue refused (full, link down) wait for a retry: no
	 * interrupt announces room, so the back-off retries them */
	if (w->nb_intr == lc->nb_rxq && !engine_lcore_tx_staged(lc) &&
	    !__atomic_load_n(&w->shared, __ATOMIC_RELAXED))
		return dl;
	return RTE_MIN(dl, now + backoff);
}

/*
 * Take the progress lock back after a wake-up. An application thread that
 * holds it runs the loop, and may be descheduled on this very CPU: after a
 * few spins, ask it for one more pass (which serves whatever woke the
 * lcore) instead of waiting. @p asked: a pass was asked of the lcore.
 */
static bool
wake_relock(struct uet_engine_lcore *lc, bool *asked)
{
	struct engine_wake *w = &lc->wake;

	for (unsigned int i = 0; !rte_spinlock_trylock(&w->lock); i++) {
		if (i == WAKE_RELOCK_SPINS) {
			if (!wake_ask_holder(w))
				return false;
			break;
		}
		rte_pause();
	}
	*asked = wake_take_pending(w);
	return true;
}

/* A wake-up that found an application thread running the loop. */
static void
wake_count_busy(struct uet_engine_lcore *lc, enum wake_cause cause)
{
	switch (cause) {
	case WAKE_POST:
		ENG_INC(lc->st.wake_post);
		break;
	case WAKE_RX:
		ENG_INC(lc->st.wake_rx);
		break;
	default:
		ENG_INC(lc->st.wake_poll);
		break;
	}
}

/*
 * Let go of the lock, block on @p ep for at most @p ns, take the lock
 * back. A pass asked of the lcore before it blocks, or found when it
 * takes the lock back, is a post. While an application thread holds the
 * lock, the lcore naps beside it for the grace (counted as a sleep of its
 * own), without touching the context.
 */
static enum wake_cause
wake_sleep(struct uet_engine_lcore *lc, int ep, uint64_t ns)
{
	struct engine_wake *w = &lc->wake;
	enum wake_cause cause;
	bool asked = false;

	if (wake_release(w) && wake_relock(lc, &asked))
		return WAKE_POST;
	for (;;) {
		cause = wake_block(lc, ep, ns);
		if (wake_relock(lc, &asked))
			return asked && cause == WAKE_TIME ? WAKE_POST : cause;
		if (atomic_load_explicit(&lc->eng->stop,
					 memory_order_acquire)) {
			engine_wake_lock(lc);
			return cause;
		}
		wake_count_busy(lc, cause);
		ENG_INC(lc->st.idle_sleeps);
		ep = w->ep_nap;
		ns = lc->eng->cfg.engine.idle_sleep_max_ns;
		__atomic_store_n(&w->until_ns, engine_now_ns(lc->eng) + ns,
				 __ATOMIC_RELAXED);
	}
}

/* Count the cause of a wake-up; returns false for a nap to continue. */
static bool
wake_count(struct uet_engine_lcore *lc, enum wake_cause cause, uint64_t now,
	   uint64_t *backoff)
{
	struct engine_wake *w = &lc->wake;
	uint64_t max = lc->eng->cfg.engine.idle_sleep_max_ns;

	switch (cause) {
	case WAKE_POST:
		ENG_INC(lc->st.wake_post);
		return true;
	case WAKE_RX:
		ENG_INC(lc->st.wake_rx);
		return true;
	default:
		break;
	}
	if (engine_lcore_deadline(lc) <= now) {
		ENG_INC(lc->st.wake_timer);
		return true;
	}
	ENG_INC(lc->st.wake_poll);
	if (app_active(w, now, max))
		return false;
	*backoff = RTE_MIN(*backoff * 2, max);
	return true;
}

/*
 * The lcore found no work for idle_spin: sleep until a wake-up finds
 * work (or the engine stops). Called and returns with the progress lock
 * held and `sleeping` clear.
 */
void
engine_lcore_sleep(struct uet_engine_lcore *lc)
{
	struct uet_engine *e = lc->eng;
	struct engine_wake *w = &lc->wake;
	const uint64_t max = e->cfg.engine.idle_sleep_max_ns;
	uint64_t backoff = e->cfg.engine.idle_sleep_ns;
	bool nap = false;

	for (;;) {
		enum wake_cause cause = WAKE_TIME;
		uint64_t now, until;
		bool rx;
		bool slept = false;

		if (!nap) {
			__atomic_store_n(&w->kicked, 0, __ATOMIC_RELAXED);
			__atomic_store_n(&w->wp->sleeping, 1, __ATOMIC_SEQ_CST);
			rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
			/* the last look, after the flag: posts and frames
			 * that came before it are found here */
			if (engine_lcore_iterate(lc) != 0 && !app_active(w, lc->now,
								    max))
				break;
		}
		now = engine_now_ns(e);
		until = wake_until(lc, now, backoff, &rx);
		__atomic_store_n(&w->until_ns, until, __ATOMIC_RELAXED);
		if (until > now) {
			if (rx)
				rx_intr_arm(lc, true);
			ENG_INC(lc->st.idle_sleeps);
			cause = wake_sleep(lc, rx ? w->ep_all : w->ep_nap,
					   until == UINT64_MAX ? UINT64_MAX :
					   until - now);
			if (rx)
				rx_intr_arm(lc, false);
			slept = true;
		}
		if (atomic_load_explicit(&e->stop, memory_order_acquire))
			break;
		/* a deadline already reached (within a timer tick): no
		 * sleep, run the loop until the timer fires */
		nap = slept && !wake_count(lc, cause, engine_now_ns(e), &backoff);
		if (nap)
			continue;
		__atomic_store_n(&w->wp->sleeping, 0, __ATOMIC_SEQ_CST);
		/* while an application thread polls, the lcore does what
		 * woke it and sleeps again rather than compete with it */
		if (engine_lcore_iterate(lc) != 0 && !app_active(w, lc->now, max))
			break;
	}
	__atomic_store_n(&w->wp->sleeping, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&w->until_ns, UINT64_MAX, __ATOMIC_RELAXED);
}
