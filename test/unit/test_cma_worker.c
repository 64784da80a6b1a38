/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the bounded accessor of other processes' memory
 * (pmd/ses_ulp/cma_worker.c). No EAL: the accesses run from this thread (the
 * accessor's lane of non-EAL threads). The slow page is a fake inner
 * accessor that blocks on a pipe until the test writes to it, standing
 * for a FUSE or NFS page whose fault does not end; the fast path uses
 * the real one on this process's /proc/self/mem.
 */

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include <uet/uet_cma.h>
#include <uet/uet_cma_worker.h>

#define SLOW_ADDR ((uintptr_t)0x1000)
#define BUSY_ADDR ((uintptr_t)0x2000) /* 5 ms of CPU, then served */
#define POLL_MAX 5000 /* x 1 ms: how long a worker may take to come back */

static int slow_pipe[2];
static atomic_uint slow_in, slow_out;

/* The fake memory: SLOW_ADDR blocks until the pipe is written, anything
 * else is this process's memory. */
static int
fake_read(void *arg, pid_t owner, void *dst, uintptr_t src, size_t n)
{
	char b;

	(void)arg;
	(void)owner;
	if (src == BUSY_ADDR) {
		struct timespec t0, t;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		do {
			clock_gettime(CLOCK_MONOTONIC, &t);
		} while ((t.tv_sec - t0.tv_sec) * 1000000000L +
			 (t.tv_nsec - t0.tv_nsec) < 5000000L);
		memset(dst, 0x33, n);
		return 0;
	}
	if (src == SLOW_ADDR) {
		atomic_fetch_add(&slow_in, 1);
		(void)!read(slow_pipe[0], &b, 1);
		atomic_fetch_add(&slow_out, 1);
		memset(dst, 0x5a, n);
		return 0;
	}
	memcpy(dst, (const void *)src, n);
	return 0;
}

static int
fake_write(void *arg, pid_t owner, uintptr_t dst, const void *src,
	   size_t n)
{
	(void)arg;
	(void)owner;
	memcpy((void *)dst, src, n);
	return 0;
}

static const struct uet_ses_mem_ops fake_ops = {
	.read = fake_read,
	.write = fake_write,
};

static void
sleep_ms(unsigned int ms)
{
	struct timespec t = { 0, (long)ms * 1000000L };

	nanosleep(&t, NULL);
}

/* Wait (bounded) for @p n slow reads to have returned. */
static void
slow_release(unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		assert_int_equal(write(slow_pipe[1], "x", 1), 1);
	for (unsigned int i = 0; i < POLL_MAX && atomic_load(&slow_out) < n;
	     i++)
		sleep_ms(1);
	assert_true(atomic_load(&slow_out) >= n);
	sleep_ms(5); /* the worker's own end (free, close) */
}

static struct uet_cma_async *
make(uint32_t timeout_us, uint32_t hold_off_us)
{
	struct uet_cma_async_params p = {
		.max_handles = 4,
		.timeout_us = timeout_us,
		.hold_off_us = hold_off_us,
		.inner = &fake_ops,
	};
	struct uet_cma_async *a;

	assert_int_equal(pipe(slow_pipe), 0);
	atomic_store(&slow_in, 0);
	atomic_store(&slow_out, 0);
	a = uet_cma_async_create(&p);
	assert_non_null(a);
	return a;
}

static void
unmake(void)
{
	close(slow_pipe[0]);
	close(slow_pipe[1]);
}

static int
handle(struct uet_cma_async *a, uid_t uid)
{
	int h = uet_cma_async_open(a, open("/dev/null", O_RDONLY), uid);

	assert_true(h > 0);
	return h;
}

/* A read; -EAGAIN (its worker not scheduled within CMA_CPU_NS: a loaded
 * host) is tried again, bounded, as what these tests look at comes once
 * the worker runs. */
static int
rd(struct uet_cma_async *a, int h, void *dst, uintptr_t src, size_t n)
{
	int rc = -EAGAIN;

	for (unsigned int i = 0; i < 50 && rc == -EAGAIN; i++)
		rc = uet_cma_async_mem_ops.read(a, h, dst, src, n);
	return rc;
}

static void
uet_cma_async_create__bad_params(void **state)
{
	struct uet_cma_async_params ok = { .max_handles = 1,
					   .timeout_us = 1000 };
	struct uet_cma_async_params p;

	(void)state;
	p = ok;
	p.max_handles = 0;
	assert_null(uet_cma_async_create(&p));
	assert_int_equal(errno, EINVAL);
	p = ok;
	p.timeout_us = 0;
	assert_null(uet_cma_async_create(&p));
	p.timeout_us = 1000001;
	assert_null(uet_cma_async_create(&p));
	p = ok;
	p.hold_off_us = 60000001;
	assert_null(uet_cma_async_create(&p));
	assert_null(uet_cma_async_create(NULL));
	uet_cma_async_destroy(uet_cma_async_create(&ok));
}

/* The real accessor on our own /proc/self/mem, through a worker. */
static void
cma_access__fast_read_write(void **state)
{
	struct uet_cma_async_params p = { .max_handles = 2,
					  .timeout_us = 1000000 };
	struct uet_cma_async_stats st;
	static uint8_t mem[20000];
	uint8_t out[20000], in[20000];
	struct uet_cma_async *a;
	int h;

	(void)state;
	a = uet_cma_async_create(&p);
	assert_non_null(a);
	h = uet_cma_async_open(a, open("/proc/self/mem", O_RDWR), 1000);
	assert_true(h > 0);
	for (size_t i = 0; i < sizeof(in); i++)
		in[i] = (uint8_t)(i * 7);
	/* larger than the first bounce buffer: it grows */
	assert_int_equal(uet_cma_async_mem_ops.write(a, h, (uintptr_t)mem,
						     in, sizeof(in)), 0);
	assert_memory_equal(mem, in, sizeof(in));
	assert_int_equal(rd(a, h, out, (uintptr_t)mem + 1, 100), 0);
	assert_memory_equal(out, in + 1, 100);
	/* not mapped: the kernel's answer comes back */
	assert_int_equal(rd(a, h, out, 8, 1), -EFAULT);
	/* not a handle */
	assert_int_equal(rd(a, 0, out, (uintptr_t)mem, 1), -EBADF);
	assert_int_equal(rd(a, 3, out, (uintptr_t)mem, 1), -EBADF);
	uet_cma_async_stats_get(a, &st);
	assert_int_equal(st.accesses, 3);
	assert_int_equal(st.timeouts, 0);
	assert_int_equal(st.workers, 1);
	uet_cma_async_close(a, h);
	assert_int_equal(rd(a, h, out, (uintptr_t)mem, 1), -EBADF);
	uet_cma_async_destroy(a);
}

/*
 * A slow page: the access fails -EFAULT once the timeout passed, the
 * same uid's next ones fail at once (nothing touched) until the worker
 * came back and the hold-off passed, another uid is served meanwhile.
 */
static void
cma_access__slow_page_bounded(void **state)
{
	struct uet_cma_async *a = make(2000, 20000);
	struct uet_cma_async_stats st;
	uint64_t v = 42, out = 0, late = 0;
	int slow, other, same;

	(void)state;
	slow = handle(a, 1000);
	same = handle(a, 1000);
	other = handle(a, 2000);
	assert_int_equal(rd(a, slow, &late, SLOW_ADDR, 8), -EFAULT);
	/* the uid is held off, on any of its handles */
	assert_int_equal(rd(a, same, &out, (uintptr_t)&v, 8), -EFAULT);
	assert_int_equal(out, 0);
	assert_int_equal(rd(a, other, &out, (uintptr_t)&v, 8), 0);
	assert_int_equal(out, 42);
	uet_cma_async_stats_get(a, &st);
	assert_int_equal(st.timeouts, 1);
	assert_int_equal(st.refused, 1);
	assert_int_equal(st.stuck, 1);
	assert_int_equal(st.workers, 2);
	slow_release(1);
	assert_int_equal(late, 0); /* its late answer stayed in the worker */
	uet_cma_async_stats_get(a, &st);
	assert_int_equal(st.stuck, 0);
	/* back, and the hold-off passes: served again (bounded) */
	out = 0;
	for (unsigned int i = 0; i < POLL_MAX && out != 42; i++) {
		if (rd(a, same, &out, (uintptr_t)&v, 8) != 0)
			sleep_ms(1);
	}
	assert_int_equal(out, 42);
	uet_cma_async_close(a, slow);
	uet_cma_async_close(a, same);
	uet_cma_async_close(a, other);
	uet_cma_async_destroy(a);
	unmake();
}

/* A worker that runs (or waits for a CPU) past the timeout is not late:
 * only one asleep in the kernel is (a loaded host is not a slow page). */
static void
cma_access__busy_worker_not_late(void **state)
{
	struct uet_cma_async *a = make(1000, 1000000);
	struct uet_cma_async_stats st;
	uint8_t b = 0;
	int h;

	(void)state;
	h = handle(a, 1000);
	assert_int_equal(rd(a, h, &b, BUSY_ADDR, 1), 0);
	assert_int_equal(b, 0x33);
	uet_cma_async_stats_get(a, &st);
	assert_int_equal(st.timeouts, 0);
	assert_int_equal(st.stuck, 0);
	uet_cma_async_close(a, h);
	uet_cma_async_destroy(a);
	unmake();
}

/* A handle closed while a late worker still uses it keeps its
 * descriptor open until that worker returns: the number cannot be
 * reused for another client's under a late system call. */
static void
uet_cma_async_close__late_worker_keeps_fd(void **state)
{
	struct uet_cma_async *a = make(1000, 0);
	int fd = open("/dev/null", O_RDONLY), h;
	uint8_t b;

	(void)state;
	assert_true(fd >= 0);
	h = uet_cma_async_open(a, fd, 1000);
	assert_true(h > 0);
	assert_int_equal(rd(a, h, &b, SLOW_ADDR, 1), -EFAULT);
	uet_cma_async_close(a, h);
	assert_true(fcntl(fd, F_GETFD) >= 0);
	/* its slot is not free either */
	assert_true(uet_cma_async_open(a, open("/dev/null", O_RDONLY),
				       1) != h);
	slow_release(1);
	assert_int_equal(fcntl(fd, F_GETFD), -1);
	assert_int_equal(errno, EBADF);
	uet_cma_async_destroy(a);
	unmake();
}

/* Destruction does not wait for a stuck worker; the worker frees itself
 * (and the accessor) when it returns (leak checks of the sanitizer
 * build). */
static void
uet_cma_async_destroy__abandons_stuck(void **state)
{
	struct uet_cma_async *a = make(1000, 1000000);
	uint8_t b;
	int h;

	(void)state;
	h = handle(a, 1000);
	assert_int_equal(rd(a, h, &b, SLOW_ADDR, 1), -EFAULT);
	uet_cma_async_destroy(a);
	slow_release(1);
	unmake();
}

/* Bad input to open: refused, the descriptor not leaked; handles run
 * out. */
static void
uet_cma_async_open__bad(void **state)
{
	struct uet_cma_async *a = make(1000, 0);
	int h[4];

	(void)state;
	assert_int_equal(uet_cma_async_open(a, -1, 0), -EINVAL);
	for (unsigned int i = 0; i < 4; i++)
		h[i] = handle(a, 0);
	assert_int_equal(uet_cma_async_open(a, open("/dev/null", O_RDONLY),
					    0), -ENOSPC);
	uet_cma_async_close(a, h[2]);
	assert_int_equal(handle(a, 0), h[2]);
	uet_cma_async_close(a, 0);
	uet_cma_async_close(a, 99);
	uet_cma_async_destroy(a); /* closes what is left open */
	unmake();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(uet_cma_async_create__bad_params),
		cmocka_unit_test(cma_access__fast_read_write),
		cmocka_unit_test(cma_access__slow_page_bounded),
		cmocka_unit_test(cma_access__busy_worker_not_late),
		cmocka_unit_test(uet_cma_async_close__late_worker_keeps_fd),
		cmocka_unit_test(uet_cma_async_destroy__abandons_stuck),
		cmocka_unit_test(uet_cma_async_open__bad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
