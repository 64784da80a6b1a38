/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Cross-memory attach (uet_cma.h): memory of another process read and
 * written by process_vm_readv / process_vm_writev on a PID, or by pread /
 * pwrite on a descriptor of its /proc/PID/mem, one system call per
 * access (one iovec each side). The kernel may stop short at the first
 * page it cannot reach; the rest is retried once from there, which then
 * fails with the reason (or transfers nothing: -EFAULT).
 */

#include <errno.h>
#include <stdint.h>
#include <sys/uio.h>
#include <unistd.h>

#include <uet/uet_cma.h>

/* A transfer of nothing is no progress: stop there. */
static int
cma_step(ssize_t r, size_t *done)
{
	if (r < 0)
		return -errno;
	if (r == 0)
		return -EFAULT;
	*done += (size_t)r;
	return 0;
}

int
uet_cma_read(pid_t owner, void *dst, uintptr_t src, size_t n)
{
	size_t done = 0;
	int rc = 0;

	if (owner <= 0)
		return -EINVAL;
	while (rc == 0 && done < n) {
		struct iovec l = { (uint8_t *)dst + done, n - done };
		struct iovec r = { (void *)(src + done), n - done };

		rc = cma_step(process_vm_readv(owner, &l, 1, &r, 1, 0), &done);
	}
	return rc;
}

int
uet_cma_write(pid_t owner, uintptr_t dst, const void *src, size_t n)
{
	size_t done = 0;
	int rc = 0;

	if (owner <= 0)
		return -EINVAL;
	while (rc == 0 && done < n) {
		struct iovec l = { (void *)((const uint8_t *)src + done),
				   n - done };
		struct iovec r = { (void *)(dst + done), n - done };

		rc = cma_step(process_vm_writev(owner, &l, 1, &r, 1, 0),
			      &done);
	}
	return rc;
}

static int
cma_ops_read(void *arg, pid_t owner, void *dst, uintptr_t src, size_t n)
{
	(void)arg;
	return uet_cma_read(owner, dst, src, n);
}

static int
cma_ops_write(void *arg, pid_t owner, uintptr_t dst, const void *src,
	      size_t n)
{
	(void)arg;
	return uet_cma_write(owner, dst, src, n);
}

const struct uet_ses_mem_ops uet_cma_mem_ops = {
	.read = cma_ops_read,
	.write = cma_ops_write,
};

/*
 * A /proc/PID/mem descriptor refers to the address space it was opened
 * on, not to the PID: once that address space is gone (exit, execve) an
 * access transfers nothing (end of file), which is -ESRCH here; an
 * address not mapped there is EIO, -EFAULT here.
 */
static int
memfd_step(ssize_t r, size_t *done)
{
	if (r < 0)
		return errno == EIO ? -EFAULT : -errno;
	if (r == 0)
		return *done == 0 ? -ESRCH : -EFAULT;
	*done += (size_t)r;
	return 0;
}

int
uet_cma_fd_read(int mem_fd, void *dst, uintptr_t src, size_t n)
{
	size_t done = 0;
	int rc = 0;

	if (mem_fd <= 0 || src > (uintptr_t)INT64_MAX - n)
		return -EINVAL;
	while (rc == 0 && done < n)
		rc = memfd_step(pread(mem_fd, (uint8_t *)dst + done, n - done,
				      (off_t)(src + done)), &done);
	return rc;
}

int
uet_cma_fd_write(int mem_fd, uintptr_t dst, const void *src, size_t n)
{
	size_t done = 0;
	int rc = 0;

	if (mem_fd <= 0 || dst > (uintptr_t)INT64_MAX - n)
		return -EINVAL;
	while (rc == 0 && done < n)
		rc = memfd_step(pwrite(mem_fd, (const uint8_t *)src + done,
				       n - done, (off_t)(dst + done)), &done);
	return rc;
}

static int
memfd_ops_read(void *arg, pid_t owner, void *dst, uintptr_t src, size_t n)
{
	(void)arg;
	return uet_cma_fd_read(owner, dst, src, n);
}

static int
memfd_ops_write(void *arg, pid_t owner, uintptr_t dst, const void *src,
		size_t n)
{
	(void)arg;
	return uet_cma_fd_write(owner, dst, src, n);
}

const struct uet_ses_mem_ops uet_cma_fd_mem_ops = {
	.read = memfd_ops_read,
	.write = memfd_ops_write,
};
