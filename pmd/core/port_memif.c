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
#include <stdio.h>
#include <string.h>
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

/*
 * A memif server on a socket file (socket-abstract=no) binds that path,
 * and the PMD unlinks it when the port closes: a server that was killed
 * leaves the file behind, and the next server's bind() fails "Address
 * already in use", and its probe with it. Before probing a server port,
 * remove such a file when nothing listens on it (connect() refused); a
 * listening server's socket stays (its probe then fails, naming the
 * conflict), and so does anything that is not a socket. An abstract
 * socket (the PMD's default) dies with its process: nothing to do.
 * Returns 1 when a stale socket was removed, 0 when there was none,
 * -errno when it could not be removed.
 */
int
engine_memif_stale_socket(const char *devargs)
{
	struct sockaddr_un un = {.sun_family = AF_UNIX};
	char v[16];
	struct stat st;
	int fd, rc;

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
	if (lstat(un.sun_path, &st) != 0 || !S_ISSOCK(st.st_mode))
		return 0;
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	rc = connect(fd, (const struct sockaddr *)&un, sizeof(un));
	if (rc == 0 || errno != ECONNREFUSED) {
		close(fd);
		return 0;
	}
	close(fd);
	if (unlink(un.sun_path) != 0 && errno != ENOENT) {
		rc = -errno;
		ENG_LOG(ERR, "%s: stale memif socket %s not removed: %s",
			devargs, un.sun_path, strerror(-rc));
		return rc;
	}
	ENG_LOG(NOTICE, "%s: removed stale memif socket %s (no server on it)",
		devargs, un.sun_path);
	return 1;
}
