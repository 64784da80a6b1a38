/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_memif ports: jumbo frames, one buffer per frame.
 *
 * net_memif (DPDK 22.11, copy mode) copies every frame through the
 * shared-memory buffers of its rings, `bsize` bytes each (default 2048).
 * A longer frame takes several buffers chained with MEMIF_DESC_FLAG_NEXT
 * on TX and becomes a chain of mbufs on RX (which the engine linearises),
 * so the PMD carries any frame length; yet its dev_info claims a fixed
 * 1518-byte maximum frame and it has no MTU operation. The engine
 * therefore takes any `mtu` of the key's range for a memif port and, when
 * it probes the port itself and the devargs name no `bsize`, sizes the
 * buffers from the MTU so that a frame is one buffer and one copy: the
 * frame (MTU + Ethernet header + one VLAN tag) rounded up to 128 bytes.
 * Both ends of a link read the same MTU, so they size their buffers alike
 * (the client's buffers are the ones the link uses).
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <rte_common.h>

#include "engine_private.h"

/* PMD default (drivers/net/memif: ETH_MEMIF_DEFAULT_PKT_BUFFER_SIZE) */
#define MEMIF_DFLT_BSIZE 2048u
/* Ethernet header and one VLAN tag in front of the IP packet */
#define MEMIF_L2_BYTES 18u
#define MEMIF_BSIZE_ALIGN 128u
/* PMD default (drivers/net/memif: ETH_MEMIF_DEFAULT_SOCKET_FILENAME) */
#define MEMIF_DFLT_SOCKET "/run/memif.sock"

bool
engine_memif_is(const char *devargs)
{
	return strncmp(devargs, "net_memif", 9) == 0;
}

unsigned int
engine_memif_bsize(unsigned int mtu)
{
	unsigned int frame = mtu + MEMIF_L2_BYTES;

	if (frame <= MEMIF_DFLT_BSIZE)
		return MEMIF_DFLT_BSIZE;
	return RTE_ALIGN_CEIL(frame, MEMIF_BSIZE_ALIGN);
}

int
engine_memif_devargs(const char *devargs, unsigned int mtu, char *out, size_t n)
{
	unsigned int bsize = engine_memif_bsize(mtu);
	int len;

	/* the user's bsize stands (a frame then spans several buffers) */
	if (!engine_memif_is(devargs) || engine_devargs_has_key(devargs, "bsize") ||
	    bsize == MEMIF_DFLT_BSIZE)
		len = snprintf(out, n, "%s", devargs);
	else
		len = snprintf(out, n, "%s,bsize=%u", devargs, bsize);
	return len < 0 || (size_t)len >= n ? -ENAMETOOLONG : 0;
}

/* The value of ",@key=" in @devargs into @out; -ENOENT when absent. */
static int
memif_devargs_value(const char *devargs, const char *key, char *out, size_t n)
{
	size_t k = strlen(key), len;

	for (const char *s = strchr(devargs, ','); s != NULL;
	     s = strchr(s + 1, ',')) {
		if (strncmp(s + 1, key, k) != 0 || s[1 + k] != '=')
			continue;
		s += 2 + k;
		len = strcspn(s, ",");
		if (len >= n)
			return -ENAMETOOLONG;
		memcpy(out, s, len);
		out[len] = '\0';
		return 0;
	}
	return -ENOENT;
}

/* "<socket>.lock" of a server's socket @p path into @p out. */
static int
memif_lock_path(const char *path, char *out, size_t n)
{
	int len = snprintf(out, n, "%s.lock", path);

	return len < 0 || (size_t)len >= n ? -ENAMETOOLONG : 0;
}

/*
 * Take the lock every memif server of this engine holds on
 * "<socket>.lock" for as long as its port lives. Returns the locked file
 * (to keep), -EWOULDBLOCK when a live server holds it, or another -errno
 * when the file cannot be opened (another user's, say).
 */
static int
memif_lock_take(const char *path)
{
	char lock[sizeof(((struct sockaddr_un *)0)->sun_path) + 8];
	int fd, rc;

	rc = memif_lock_path(path, lock, sizeof(lock));
	if (rc < 0)
		return rc;
	fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		rc = -errno;
		close(fd);
		return rc == -EAGAIN ? -EWOULDBLOCK : rc;
	}
	return fd;
}

/* Whether a listening socket of this network namespace is bound to
 * @p path (/proc/net/unix: flag __SO_ACCEPTCON, 0x10000). */
static bool
memif_listed(const char *path)
{
	unsigned int flags;
	char line[512];
	bool found = false;
	FILE *f = fopen("/proc/net/unix", "re");
	int at;

	if (f == NULL)
		return false;
	while (!found && fgets(line, sizeof(line), f) != NULL) {
		at = -1;
		/* Num RefCount Protocol Flags Type St Inode Path */
		if (sscanf(line, "%*s %*x %*x %x %*x %*x %*u %n", &flags,
			   &at) < 1 || at < 0)
			continue;
		line[strcspn(line, "\n")] = '\0';
		found = (flags & 0x10000u) && strcmp(line + at, path) == 0;
	}
	fclose(f);
	return found;
}

/*
 * A memif server on a socket file (socket-abstract=no) binds that path,
 * and the PMD unlinks it when the port closes: a server that was killed
 * leaves the file behind, and the next server's bind() fails "Address
 * already in use", and its probe with it. Before probing a server port,
 * remove such a file when no server has it. Not found out by connecting
 * to it: a live DPDK 22.11 memif server takes any connection for a
 * client's, and one closed at once made its interrupt thread panic
 * ("PANIC in eal_intr_thread_main(): Error adding fd ... epoll_ctl, Bad
 * file descriptor"): a second uet-perf server on the socket of a running
 * one crashed the running one. Two checks that touch nothing of the
 * socket: each server of this engine holds a lock on "<socket>.lock"
 * while its port lives (@p lock: the locked file for the caller to keep
 * until the port closes, engine_memif_unlock(); -1 when none), which
 * covers servers of any network namespace; and a listening socket of this
 * network namespace on the path is listed in /proc/net/unix (another
 * program's server). A live server's socket stays, and the port is not
 * probed (-EADDRINUSE, logged: the probe would fail on it); so does
 * anything that is not a socket. An abstract socket (the PMD's default)
 * dies with its process: nothing to do. Returns 1 when a stale socket
 * was removed, 0 when there was none, -EADDRINUSE when a server has it,
 * -errno when it could not be removed.
 */
int
engine_memif_stale_socket(const char *devargs, int *lock)
{
	struct sockaddr_un un = {.sun_family = AF_UNIX};
	char v[16];
	struct stat st;
	int rc;

	*lock = -1;
	if (!engine_memif_is(devargs))
		return 0;
	/* the PMD's role and socket-abstract defaults: server, yes */
	if (memif_devargs_value(devargs, "role", v, sizeof(v)) == 0 &&
	    strcmp(v, "server") != 0)
		return 0;
	if (memif_devargs_value(devargs, "socket-abstract", v, sizeof(v)) != 0 ||
	    strstr(v, "no") == NULL)
		return 0;
	rc = memif_devargs_value(devargs, "socket", un.sun_path,
				 sizeof(un.sun_path));
	if (rc == -ENOENT)
		snprintf(un.sun_path, sizeof(un.sun_path), "%s",
			 MEMIF_DFLT_SOCKET);
	else if (rc < 0)
		return 0; /* the PMD rejects a path that long */
	rc = memif_lock_take(un.sun_path);
	if (rc == -EWOULDBLOCK || (lstat(un.sun_path, &st) == 0 &&
				   S_ISSOCK(st.st_mode) &&
				   memif_listed(un.sun_path))) {
		ENG_LOG(ERR, "%s: memif socket %s is in use by a running "
			"server", devargs, un.sun_path);
		if (rc >= 0)
			engine_memif_unlock(devargs, rc);
		return -EADDRINUSE;
	}
	*lock = rc >= 0 ? rc : -1;
	if (lstat(un.sun_path, &st) != 0 || !S_ISSOCK(st.st_mode))
		return 0;
	if (unlink(un.sun_path) != 0 && errno != ENOENT) {
		rc = -errno;
		ENG_LOG(ERR, "%s: stale memif socket %s not removed: %s",
			devargs, un.sun_path, strerror(-rc));
		engine_memif_unlock(devargs, *lock);
		*lock = -1;
		return rc;
	}
	ENG_LOG(NOTICE, "%s: removed stale memif socket %s (no server on it)",
		devargs, un.sun_path);
	return 1;
}

/* Give up the lock engine_memif_stale_socket() took for @p devargs'
 * server; -1: none. The file goes first, while it is still ours. */
void
engine_memif_unlock(const char *devargs, int lock)
{
	struct sockaddr_un un;
	char path[sizeof(un.sun_path) + 8];

	if (lock < 0)
		return;
	if (memif_devargs_value(devargs, "socket", un.sun_path,
				sizeof(un.sun_path)) == 0 &&
	    memif_lock_path(un.sun_path, path, sizeof(path)) == 0)
		(void)unlink(path);
	else if (memif_lock_path(MEMIF_DFLT_SOCKET, path, sizeof(path)) == 0)
		(void)unlink(path);
	close(lock);
}
