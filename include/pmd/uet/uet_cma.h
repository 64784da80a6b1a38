/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_CMA_H
#define UET_CMA_H

/**
 * @file
 * Cross-memory attach: the engine's accessor of memory entries that belong
 * to another process (uet_ses_mr_attr.owner, UET_SES_ULP_MR_REG owner), by
 * process_vm_readv(2) / process_vm_writev(2). A service engine reaches the
 * registered memory of its client processes with it (RMA and atomics
 * targets) without mapping it. Needs the right to ptrace the owner
 * (PTRACE_MODE_ATTACH_REALCREDS): same uid and Yama ptrace_scope 0, or
 * CAP_SYS_PTRACE. Costs and limits: docs/SES.md "Memory of another
 * process".
 */

#include <sys/types.h>

#include <uet/uet_ses.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * The accessor (uet_ses_config.mem_ops; its argument is unused). Each
 * call copies the whole range or returns -errno: -EFAULT (a page of the
 * range is not mapped in the owner, or not writable for a write; a prefix
 * may have been written), -ESRCH (no such process), -EPERM (not allowed
 * to attach to it), -ENOMEM, -EINVAL.
 */
extern const struct uet_ses_mem_ops uet_cma_mem_ops;

/**
 * Read @p n bytes at @p src in process @p owner into @p dst.
 * @return 0 or -errno as above.
 */
int uet_cma_read(pid_t owner, void *dst, uintptr_t src, size_t n);

/**
 * Write @p n bytes from @p src at @p dst in process @p owner.
 * @return 0 or -errno as above.
 */
int uet_cma_write(pid_t owner, uintptr_t dst, const void *src, size_t n);

/**
 * The accessor by descriptor (uet_ses_config.mem_ops): the owner handle
 * of an entry is a descriptor, in this process, of the owner's
 * /proc/PID/mem, opened by the owner itself (its own rights) and passed
 * over a UNIX socket. It keeps naming the address space it was opened
 * on: after the owner exits or execs, every access fails -ESRCH, and a
 * PID reused by another process is never reached. What the service
 * engine's workers call (uet_cma_worker.h: the lcores never do, a page
 * may take for ever to fault in; docs/SERVICE.md "Security"). Errors as
 * above, plus -EBADF
 * (not a descriptor, or a write through one opened read-only).
 * Writes go through the kernel's ptrace-style access: a page the owner
 * mapped private read-only is written as a debugger would (copy on
 * write in the owner).
 */
extern const struct uet_ses_mem_ops uet_cma_fd_mem_ops;

/** Read @p n bytes at @p src of the address space of @p mem_fd. */
int uet_cma_fd_read(int mem_fd, void *dst, uintptr_t src, size_t n);

/** Write @p n bytes from @p src at @p dst of the address space of
 * @p mem_fd. */
int uet_cma_fd_write(int mem_fd, uintptr_t dst, const void *src, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* UET_CMA_H */
