/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Bounded access to other processes' memory (uet_cma_worker.h): the
 * lcore hands each access to a worker thread of its own and waits a
 * bounded time for it.
 *
 * Hand-over: one request at a time per lcore (a lane), in a worker's
 * fields, published by its state word: IDLE -> POSTED by the lcore,
 * POSTED -> RUNNING by the worker as it starts the system call, RUNNING
 * -> DONE when it returned, DONE -> IDLE by the lcore once it took the
 * answer, EXIT by the lane to end an idle worker. The worker polls for a
 * new request a short while after each one (a multi-packet READ or WRITE
 * comes packet by packet) and then sleeps on a futex over the state
 * word; the lcore wakes it only when it said it sleeps.
 *
 * The timeout runs from RUNNING, and counts only while the worker waits
 * in the kernel: what the client's memory costs, not how long the
 * scheduler took to run the worker (a loaded host). At the deadline the
 * lcore reads the worker's state (/proc/self/task/TID/stat): runnable
 * ('R', preempted or computing) gets another timeout, up to CMA_CPU_NS
 * in all; asleep (a page fault waiting for I/O, FUSE, NFS) is late. A
 * worker that has not started after CMA_CPU_NS is taken back (POSTED ->
 * IDLE by the lcore: -EAGAIN, nothing touched, counted refused).
 *
 * Past the deadline the lane turns RUNNING into LATE (a compare-and-swap:
 * the worker's RUNNING -> DONE and the lane's RUNNING -> LATE cannot both
 * win), sets the worker aside with the uid of its request and starts
 * another one. A LATE worker is the only one that still touches its
 * bounce buffer and its handle's descriptor: the handle is
 * reference-counted (one for the open handle, one per access in flight),
 * and the last reference closes the descriptor, so that its number is not
 * reused for another client's while a late system call may still run on
 * it. When the system call returns, LATE -> BACK, and the lane ends the
 * worker once the hold-off passed. At destruction LATE -> ABANDONED: the
 * worker frees itself when it returns. Each LATE worker holds a reference
 * on the accessor (its handles and counters), so that the accessor's
 * memory outlives every system call that may still use it.
 */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_lcore.h>
#include <rte_pause.h>

#include <uet/uet_cma.h>
#include <uet/uet_cma_worker.h>

enum {
	W_IDLE, W_POSTED, W_RUNNING, W_DONE, W_EXIT, W_LATE, W_BACK,
	W_ABANDONED
};

#define CMA_BUF_MIN (16u * 1024)
/* how long a worker polls for the next request before it sleeps */
#define CMA_SPIN_NS 50000ull
/* how long an lcore spins for an answer before it yields its core */
#define CMA_WAIT_SPIN_NS 5000ull
/* how long an lcore waits for a worker that is not asleep in the kernel
 * (not started yet, preempted) */
#define CMA_CPU_NS 100000000ull
/* workers a lane keeps aside (one per uid whose access timed out); a
 * lane that has this many refuses every access of an uid it does not
 * hold yet, rather than start unbounded threads */
#define CMA_ASIDE_MAX 32u
#define CMA_LANES (RTE_MAX_LCORE + 1u) /* the last: a non-EAL thread */

struct cma_handle {
	atomic_uint ref;       /* 0: free; 1 open; +1 per access running */
	int fd;
	uid_t uid;
};

struct cma_worker {
	atomic_uint state;     /* the futex word */
	struct uet_cma_async *a;
	struct uet_ses_mem_ops ops;
	void *inner_arg;
	atomic_uint sleeping;  /* the worker waits on the futex */
	atomic_int stat_fd;    /* its /proc/self/task/TID/stat, or -1 */
	/* the request, written by the lcore before POSTED */
	bool write;
	struct cma_handle *h;
	uintptr_t addr;
	size_t n;
	/* the answer, written by the worker before DONE */
	int rc;
	uint8_t *buf;          /* bounce buffer, owned by the worker */
	size_t cap;
	/* lane side, while aside */
	uid_t uid;
	uint64_t back_ns;      /* 0 until seen BACK */
};

struct cma_lane {
	struct cma_worker *active;
	struct cma_worker *aside[CMA_ASIDE_MAX];
	unsigned int nb_aside;
};

struct uet_cma_async {
	struct uet_ses_mem_ops inner;
	void *inner_arg;
	uint64_t timeout_ns;
	uint64_t hold_ns;
	uint32_t nb_handles;
	struct cma_handle *handles;
	struct cma_lane *_Atomic lanes[CMA_LANES];
	atomic_uint refs;      /* 1 + one per LATE worker */
	atomic_uint_fast64_t accesses, timeouts, refused, workers, stuck;
};

static uint64_t
now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static void
futex_wait(atomic_uint *w, unsigned int val)
{
	(void)syscall(SYS_futex, (unsigned int *)w, FUTEX_WAIT_PRIVATE, val,
		      NULL, NULL, 0);
}

static void
futex_wake(atomic_uint *w)
{
	(void)syscall(SYS_futex, (unsigned int *)w, FUTEX_WAKE_PRIVATE, 1,
		      NULL, NULL, 0);
}

/* The last reference of a handle closes its descriptor, then frees it. */
static void
handle_put(struct cma_handle *h)
{
	if (atomic_fetch_sub(&h->ref, 1) != 1)
		return;
	(void)close(h->fd);
	h->fd = -1;
	atomic_store(&h->ref, 0); /* release: free for uet_cma_async_open */
}

static void
worker_free(struct cma_worker *w)
{
	int fd = atomic_load(&w->stat_fd);

	if (fd >= 0)
		(void)close(fd);
	free(w->buf);
	free(w);
}

/* Wait for a request: poll a little, then sleep on the futex. */
static unsigned int
worker_next(struct cma_worker *w)
{
	uint64_t until = now_ns() + CMA_SPIN_NS;
	unsigned int s;

	for (;;) {
		s = atomic_load(&w->state);
		if (s == W_POSTED || s == W_EXIT)
			return s;
		if (now_ns() < until) {
			rte_pause();
			continue;
		}
		atomic_store(&w->sleeping, 1);
		/* seq_cst against the lcore's POSTED-then-sleeping check */
		if (atomic_load(&w->state) == s)
			futex_wait(&w->state, s);
		atomic_store(&w->sleeping, 0);
		until = now_ns() + CMA_SPIN_NS;
	}
}

static void
cma_put(struct uet_cma_async *a)
{
	if (atomic_fetch_sub(&a->refs, 1) != 1)
		return;
	free(a->handles);
	free(a);
}

/* The lane gave up on this access (LATE): tell it the worker is back, or
 * (ABANDONED) that nobody will collect it. @return true to go on. */
static bool
worker_late(struct cma_worker *w)
{
	struct uet_cma_async *a = w->a;
	unsigned int late = W_LATE;
	bool back;

	atomic_fetch_sub(&a->stuck, 1);
	back = atomic_compare_exchange_strong(&w->state, &late, W_BACK);
	cma_put(a);
	return back;
}

static void *
worker_main(void *arg)
{
	struct cma_worker *w = arg;
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)gettid());
	atomic_store(&w->stat_fd, open(path, O_RDONLY | O_CLOEXEC));

	while (worker_next(w) == W_POSTED) {
		unsigned int posted = W_POSTED;
		int rc;

		/* fails when the lcore took it back (IDLE) */
		if (!atomic_compare_exchange_strong(&w->state, &posted,
						    W_RUNNING))
			continue;
		posted = W_RUNNING;

		if (w->write)
			rc = w->ops.write(w->inner_arg, w->h->fd, w->addr,
					  w->buf, w->n);
		else
			rc = w->ops.read(w->inner_arg, w->h->fd, w->buf,
					 w->addr, w->n);
		handle_put(w->h);
		w->h = NULL;
		w->rc = rc;
		if (!atomic_compare_exchange_strong(&w->state, &posted,
						    W_DONE) &&
		    !worker_late(w))
			break;
	}
	worker_free(w);
	return NULL;
}

static struct cma_worker *
worker_start(struct uet_cma_async *a)
{
	struct cma_worker *w = calloc(1, sizeof(*w));
	pthread_t tid;
	int rc;

	if (w == NULL)
		return NULL;
	w->cap = CMA_BUF_MIN;
	w->buf = malloc(w->cap);
	if (w->buf == NULL)
		goto fail;
	atomic_init(&w->state, W_IDLE);
	atomic_init(&w->stat_fd, -1);
	w->a = a;
	w->ops = a->inner;
	w->inner_arg = a->inner_arg;
	/* an lcore's worker runs on the control cores (off the lcores) */
	if (rte_lcore_id() != LCORE_ID_ANY)
		rc = rte_ctrl_thread_create(&tid, "uet-cma", NULL, worker_main,
					    w);
	else
		rc = pthread_create(&tid, NULL, worker_main, w);
	if (rc != 0)
		goto fail;
	(void)pthread_detach(tid);
	atomic_fetch_add(&a->workers, 1);
	return w;
fail:
	worker_free(w);
	return NULL;
}

/* End a worker that is not inside a request (it frees itself). */
static void
worker_end(struct cma_worker *w)
{
	atomic_store(&w->state, W_EXIT);
	futex_wake(&w->state);
}

static struct cma_lane *
lane_get(struct uet_cma_async *a)
{
	unsigned int id = rte_lcore_id();
	struct cma_lane *l;

	if (id >= RTE_MAX_LCORE)
		id = CMA_LANES - 1;
	l = atomic_load_explicit(&a->lanes[id], memory_order_relaxed);
	if (likely(l != NULL))
		return l;
	/* once per lcore; only that lcore uses it until destruction */
	l = calloc(1, sizeof(*l));
	if (l != NULL)
		atomic_store(&a->lanes[id], l);
	return l;
}

/*
 * Is @p uid held off on this lane? Lets go of the aside workers that came
 * back and whose hold-off passed.
 */
static bool
lane_held(struct uet_cma_async *a, struct cma_lane *l, uid_t uid)
{
	uint64_t now = now_ns();
	bool held = false;

	for (unsigned int i = 0; i < l->nb_aside;) {
		struct cma_worker *w = l->aside[i];

		if (w->back_ns == 0 && atomic_load(&w->state) == W_BACK)
			w->back_ns = now;
		if (w->back_ns != 0 && now - w->back_ns >= a->hold_ns) {
			worker_end(w);
			l->aside[i] = l->aside[--l->nb_aside];
			continue;
		}
		held |= w->uid == uid;
		i++;
	}
	return held;
}

/*
 * The lane's worker missed its deadline: set it aside (LATE), get a new
 * one. @return false when it finished meanwhile (DONE: use its answer).
 */
static bool
lane_aside(struct uet_cma_async *a, struct cma_lane *l, uid_t uid)
{
	struct cma_worker *w = l->active;
	unsigned int posted = W_RUNNING;

	/* its references first: the worker may come back at once */
	atomic_fetch_add(&a->refs, 1);
	atomic_fetch_add(&a->stuck, 1);
	if (!atomic_compare_exchange_strong(&w->state, &posted, W_LATE)) {
		atomic_fetch_sub(&a->stuck, 1);
		atomic_fetch_sub(&a->refs, 1);
		return false;
	}
	atomic_fetch_add(&a->timeouts, 1);
	w->uid = uid;
	w->back_ns = 0;
	l->aside[l->nb_aside++] = w;
	l->active = NULL;
	return true;
}

static int
lane_worker(struct uet_cma_async *a, struct cma_lane *l, size_t n)
{
	struct cma_worker *w;
	uint8_t *b;

	if (l->active == NULL) {
		l->active = worker_start(a);
		if (l->active == NULL)
			return -ENOMEM;
	}
	w = l->active;
	if (n > w->cap) { /* idle: the buffer is the lane's to change */
		b = realloc(w->buf, n);
		if (b == NULL)
			return -ENOMEM;
		w->buf = b;
		w->cap = n;
	}
	return 0;
}

/* Whether the worker is runnable (on a CPU or waiting for one) rather
 * than asleep in the kernel: the state field after the command name. */
static bool
worker_runnable(struct cma_worker *w)
{
	int fd = atomic_load(&w->stat_fd);
	char buf[256], *p;
	ssize_t n;

	if (fd < 0)
		return false;
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p != NULL && p[1] == ' ' && p[2] == 'R';
}

/* Post the request, wait for its end: at most the timeout once started.
 * @return 0 (DONE), -EAGAIN (never started) or -EFAULT (set aside). */
static int
lane_wait(struct uet_cma_async *a, struct cma_lane *l, struct cma_worker *w,
	  struct cma_handle *h)
{
	uint64_t now = now_ns(), deadline = now + CMA_CPU_NS;
	uint64_t spin_end = now + CMA_WAIT_SPIN_NS, cpu_end = 0;
	bool started = false;
	unsigned int s;

	atomic_store(&w->state, W_POSTED);
	if (atomic_load(&w->sleeping))
		futex_wake(&w->state);
	while ((s = atomic_load(&w->state)) != W_DONE) {
		now = now_ns();
		if (s == W_RUNNING && !started) {
			started = true;
			cpu_end = now + CMA_CPU_NS;
			deadline = now + a->timeout_ns;
		}
		if (now >= deadline && started && now < cpu_end &&
		    worker_runnable(w)) {
			deadline = now + a->timeout_ns; /* preempted */
			continue;
		}
		if (now >= deadline) {
			unsigned int posted = W_POSTED;

			if (started && lane_aside(a, l, h->uid))
				return -EFAULT;
			if (!started && atomic_compare_exchange_strong(
					&w->state, &posted, W_IDLE)) {
				handle_put(h); /* the worker's */
				atomic_fetch_add(&a->refused, 1);
				return -EAGAIN;
			}
		}
		/* past a short spin, let the worker have this core should
		 * the scheduler have put it here (a loaded host) */
		if (now < spin_end)
			rte_pause();
		else
			sched_yield();
	}
	return 0;
}

/* Hand one access to the lane's worker; wait at most the timeout. */
static int
cma_access(struct uet_cma_async *a, pid_t handle, bool write, void *dst,
	   uintptr_t addr, const void *src, size_t n)
{
	struct cma_handle *h;
	struct cma_lane *l;
	struct cma_worker *w;
	int rc;

	if (handle <= 0 || (uint32_t)handle > a->nb_handles)
		return -EBADF;
	h = &a->handles[handle - 1];
	if (atomic_load(&h->ref) == 0)
		return -EBADF;
	l = lane_get(a);
	if (l == NULL)
		return -ENOMEM;
	if (l->nb_aside != 0 &&
	    (lane_held(a, l, h->uid) || l->nb_aside == CMA_ASIDE_MAX)) {
		atomic_fetch_add(&a->refused, 1);
		return -EFAULT;
	}
	rc = lane_worker(a, l, n);
	if (rc < 0)
		return rc;
	w = l->active;
	if (write)
		memcpy(w->buf, src, n);
	atomic_fetch_add(&h->ref, 1); /* the worker's, dropped by it */
	w->h = h;
	w->write = write;
	w->addr = addr;
	w->n = n;
	atomic_fetch_add(&a->accesses, 1);
	rc = lane_wait(a, l, w, h);
	if (rc < 0)
		return rc;
	rc = w->rc;
	atomic_store(&w->state, W_IDLE);
	if (rc == 0 && !write)
		memcpy(dst, w->buf, n);
	return rc;
}

static int
async_read(void *arg, pid_t owner, void *dst, uintptr_t src, size_t n)
{
	return cma_access(arg, owner, false, dst, src, NULL, n);
}

static int
async_write(void *arg, pid_t owner, uintptr_t dst, const void *src,
	    size_t n)
{
	return cma_access(arg, owner, true, NULL, dst, src, n);
}

const struct uet_ses_mem_ops uet_cma_async_mem_ops = {
	.read = async_read,
	.write = async_write,
};

struct uet_cma_async *
uet_cma_async_create(const struct uet_cma_async_params *p)
{
	struct uet_cma_async *a;

	if (p == NULL || p->max_handles == 0 || p->max_handles > INT_MAX ||
	    p->timeout_us == 0 || p->timeout_us > 1000000 ||
	    p->hold_off_us > 60000000) {
		errno = EINVAL;
		return NULL;
	}
	a = calloc(1, sizeof(*a));
	if (a == NULL)
		return NULL;
	a->handles = calloc(p->max_handles, sizeof(*a->handles));
	if (a->handles == NULL) {
		free(a);
		errno = ENOMEM;
		return NULL;
	}
	a->nb_handles = p->max_handles;
	atomic_init(&a->refs, 1);
	for (uint32_t i = 0; i < a->nb_handles; i++)
		a->handles[i].fd = -1;
	a->inner = p->inner != NULL ? *p->inner : uet_cma_fd_mem_ops;
	a->inner_arg = p->inner_arg;
	a->timeout_ns = (uint64_t)p->timeout_us * 1000;
	a->hold_ns = (uint64_t)p->hold_off_us * 1000;
	return a;
}

static void
lane_free(struct cma_lane *l)
{
	if (l->active != NULL)
		worker_end(l->active);
	for (unsigned int i = 0; i < l->nb_aside; i++) {
		struct cma_worker *w = l->aside[i];
		unsigned int late = W_LATE;

		/* still inside its system call: it frees itself when it
		 * returns; back already: end it */
		if (!atomic_compare_exchange_strong(&w->state, &late,
						    W_ABANDONED))
			worker_end(w);
	}
	free(l);
}

void
uet_cma_async_destroy(struct uet_cma_async *a)
{
	if (a == NULL)
		return;
	for (unsigned int i = 0; i < CMA_LANES; i++)
		if (a->lanes[i] != NULL)
			lane_free(a->lanes[i]);
	for (uint32_t i = 0; i < a->nb_handles; i++)
		if (atomic_load(&a->handles[i].ref) != 0)
			uet_cma_async_close(a, (int)i + 1);
	/* the last abandoned worker to return frees it */
	cma_put(a);
}

int
uet_cma_async_open(struct uet_cma_async *a, int mem_fd, uid_t uid)
{
	if (mem_fd < 0)
		return -EINVAL;
	for (uint32_t i = 0; i < a->nb_handles; i++) {
		struct cma_handle *h = &a->handles[i];
		unsigned int free_ref = 0;

		if (atomic_load(&h->ref) != 0)
			continue;
		h->fd = mem_fd;
		h->uid = uid;
		/* published to the lcores by the MR_REG that names it */
		if (atomic_compare_exchange_strong(&h->ref, &free_ref, 1))
			return (int)i + 1;
	}
	(void)close(mem_fd);
	return -ENOSPC;
}

void
uet_cma_async_close(struct uet_cma_async *a, int handle)
{
	if (handle <= 0 || (uint32_t)handle > a->nb_handles)
		return;
	handle_put(&a->handles[handle - 1]);
}

void
uet_cma_async_stats_get(const struct uet_cma_async *a,
			struct uet_cma_async_stats *st)
{
	st->accesses = atomic_load(&a->accesses);
	st->timeouts = atomic_load(&a->timeouts);
	st->refused = atomic_load(&a->refused);
	st->workers = atomic_load(&a->workers);
	st->stuck = atomic_load(&a->stuck);
}
