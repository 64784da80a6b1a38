/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_CMA_WORKER_H
#define UET_CMA_WORKER_H

/**
 * @file
 * Bounded access to other processes' memory: an accessor
 * (uet_ses_mem_ops) that never lets a client's page stall an engine
 * lcore. A read or write of a client's memory (through the descriptor of
 * its /proc/PID/mem, uet_cma_fd_read/write) may fault in a page that the
 * client made slow on purpose or by accident (a FUSE file whose server
 * does not answer, NFS, a slow disk); the kernel then waits in the
 * accessing thread for as long as that takes. Here the system call runs
 * on a worker thread of the accessing lcore, into a bounce buffer of the
 * worker's; the lcore waits at most the configured time
 * (uet_cma_async_params.timeout_us) once the worker started it.
 *
 * An access that has not finished by then fails -EFAULT (the SES answers
 * the request AT_NO_TRANS, a memory fault, and counts mem_err); its
 * worker is set aside, still inside the system call, and the lcore gets
 * a new one. While a worker set aside for a uid has not come back, and
 * for a hold-off after it has (uet_cma_async_params.hold_off_us), every
 * access of that uid on that lcore fails -EFAULT at once without
 * touching memory: one slow page costs an lcore at most one timeout per
 * hold-off, and a uid holds at most one stuck worker per lcore. A late
 * completion writes only into its worker's own buffer (a write already
 * reported failed may still land, in the client's own memory, as any
 * failed write may have written a prefix). Stuck workers are never
 * joined: destroying the accessor abandons them, and each frees what it
 * owns when its system call returns.
 *
 * Handles: the owner value of memory entries (uet_ses_mr_attr.owner,
 * UET_SES_ULP_MR_REG owner) is a handle from uet_cma_async_open(), which
 * takes over the descriptor; uet_cma_async_close() gives the handle back
 * once no memory entry names it any more, and the descriptor is closed
 * when no worker uses it.
 */

#include <stdint.h>
#include <sys/types.h>

#include <uet/uet_ses.h>

#ifdef __cplusplus
extern "C" {
#endif

struct uet_cma_async;

/** Creation parameters. */
struct uet_cma_async_params {
	uint32_t max_handles;  /**< address spaces open at once (>= 1) */
	uint32_t timeout_us;   /**< longest an lcore waits (1 .. 10^6) */
	/** after a timed-out access, how long that uid's accesses fail at
	 * once on that lcore after its worker came back (0 .. 60 s) */
	uint32_t hold_off_us;
	/** how a worker reaches the memory, owner = the handle's
	 * descriptor (NULL: uet_cma_fd_mem_ops; tests pass a fake) */
	const struct uet_ses_mem_ops *inner;
	void *inner_arg;
};

/** Counters (totals since creation, and workers stuck now). */
struct uet_cma_async_stats {
	uint64_t accesses;  /**< handed to a worker */
	uint64_t timeouts;  /**< not done in time: -EFAULT, worker set aside */
	uint64_t refused;   /**< failed at once: the uid's worker is aside */
	uint64_t workers;   /**< worker threads started */
	uint64_t stuck;     /**< workers set aside that have not come back */
};

/**
 * Create the accessor.
 * @return It, or NULL with errno (EINVAL parameters out of range,
 *   ENOMEM).
 */
struct uet_cma_async *
uet_cma_async_create(const struct uet_cma_async_params *p);

/**
 * Destroy: idle workers end, stuck ones are abandoned (not joined; each
 * frees itself and closes what it still uses when its system call
 * returns). Every handle must have been closed, or is closed here. No
 * lcore may access memory through it any more. NULL: no-op.
 */
void uet_cma_async_destroy(struct uet_cma_async *a);

/**
 * Take @p mem_fd (a descriptor of a /proc/PID/mem, uet_cma_fd_read()),
 * whose accesses are charged to @p uid, and return its handle (> 0).
 * The descriptor belongs to the accessor from then on (closed by
 * uet_cma_async_close(), or here on failure).
 * @return A handle, or -EINVAL (@p mem_fd < 0), -ENOSPC (max_handles
 *   open, or still used by a stuck worker).
 */
int uet_cma_async_open(struct uet_cma_async *a, int mem_fd, uid_t uid);

/**
 * Give @p handle back: no memory entry names it any more. Its
 * descriptor is closed now, or by the stuck worker that still uses it
 * when that one comes back.
 */
void uet_cma_async_close(struct uet_cma_async *a, int handle);

/** Counters. */
void uet_cma_async_stats_get(const struct uet_cma_async *a,
			     struct uet_cma_async_stats *st);

/**
 * The accessor: uet_ses_config.mem_ops with mem_arg the uet_cma_async,
 * owner a handle of uet_cma_async_open(). Errors as uet_cma_fd_mem_ops
 * (uet_cma.h), and -EFAULT for an access that timed out or was refused
 * at once, -EAGAIN when the worker did not even start the access within
 * 100 ms (a host too loaded to run it; nothing touched), -EBADF for a
 * handle that is not open, -ENOMEM when the lcore cannot get a worker
 * (thread creation failed).
 */
extern const struct uet_ses_mem_ops uet_cma_async_mem_ops;

#ifdef __cplusplus
}
#endif

#endif /* UET_CMA_WORKER_H */
