/* SPDX-License-Identifier: BSD-3-Clause */
/* Locks and FD wait objects (eventfd) shared by CQs, counters and EQs. */
#include <errno.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "uet_ofi_priv.h"

void
uet_ofi_lock_init(struct uet_ofi_lock *l, bool on)
{
	pthread_mutex_init(&l->m, NULL);
	l->on = on;
}

void
uet_ofi_lock_fini(struct uet_ofi_lock *l)
{
	pthread_mutex_destroy(&l->m);
}

int
uet_ofi_efd_open(void)
{
	int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

void
uet_ofi_efd_signal(int fd)
{
	uint64_t one = 1;

	if (fd >= 0)
		(void)!write(fd, &one, sizeof(one));
}

void
uet_ofi_efd_drain(int fd)
{
	uint64_t v;

	if (fd >= 0)
		(void)!read(fd, &v, sizeof(v));
}

int
uet_ofi_efd_wait(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int rc;

	do {
		rc = poll(&p, 1, ms);
	} while (rc < 0 && errno == EINTR);
	return rc > 0 ? 1 : 0;
}

uint64_t
uet_ofi_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}
