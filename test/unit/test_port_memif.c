/* SPDX-License-Identifier: BSD-3-Clause */
/* net_memif buffers sized from the MTU, stale server sockets
 * (pmd/core/port_memif.c). */

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <cmocka.h>

#include "engine_private.h"

/* Up to a 2048-byte frame the PMD's default buffers stay: no bsize. */
static void
engine_memif_devargs__standard_mtu(void **state)
{
	char out[256];

	(void)state;
	assert_int_equal(engine_memif_bsize(1500), 2048);
	assert_int_equal(engine_memif_bsize(2030), 2048);
	assert_int_equal(engine_memif_devargs("net_memif0,role=server,id=0",
					   1500, out, sizeof(out)), 0);
	assert_string_equal(out, "net_memif0,role=server,id=0");
}

/* Jumbo: one buffer holds the frame (MTU + 18), 128-byte multiples. */
static void
engine_memif_devargs__jumbo(void **state)
{
	char out[256];

	(void)state;
	assert_int_equal(engine_memif_bsize(2031), 2176);
	for (unsigned int mtu = 2031; mtu <= ENG_MEMIF_MTU_MAX; mtu += 397) {
		unsigned int b = engine_memif_bsize(mtu);

		assert_true(b >= mtu + 18);
		assert_true(b < mtu + 18 + 128);
		assert_int_equal(b % 128, 0);
	}
	assert_int_equal(engine_memif_devargs("net_memif0,role=client,id=0,"
					   "socket=/tmp/m.sock", 9000, out,
					   sizeof(out)), 0);
	assert_string_equal(out, "net_memif0,role=client,id=0,"
			    "socket=/tmp/m.sock,bsize=9088");
}

/* The user's bsize and other drivers' devargs pass through. */
static void
engine_memif_devargs__user_and_others(void **state)
{
	char out[128];

	(void)state;
	assert_int_equal(engine_memif_devargs("net_memif0,bsize=4096", 9000,
					   out, sizeof(out)), 0);
	assert_string_equal(out, "net_memif0,bsize=4096");
	assert_int_equal(engine_memif_devargs("net_ring0", 9000, out,
					   sizeof(out)), 0);
	assert_string_equal(out, "net_ring0");
	/* a socket named like a key is not one */
	assert_int_equal(engine_memif_devargs("net_memif0,socket=bsize", 9000,
					   out, sizeof(out)), 0);
	assert_string_equal(out, "net_memif0,socket=bsize,bsize=9088");
	assert_int_equal(engine_memif_devargs("net_memif0,id=0", 9000, out, 16),
			 -ENAMETOOLONG);
}

/* A socket file bound at @path, listening or not; returns its fd. */
static int
memif_bound_socket(const char *path, bool listening)
{
	struct sockaddr_un un = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);

	assert_true(fd >= 0);
	snprintf(un.sun_path, sizeof(un.sun_path), "%s", path);
	assert_int_equal(bind(fd, (struct sockaddr *)&un, sizeof(un)), 0);
	if (listening)
		assert_int_equal(listen(fd, 1), 0);
	return fd;
}

static bool
memif_path_exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

/* The stale check of @p devargs: its result, the lock it took given up
 * at once (as the port's close does). */
static int
stale_check(const char *devargs)
{
	int lock, rc = engine_memif_stale_socket(devargs, &lock);

	engine_memif_unlock(devargs, lock);
	return rc;
}

/* A killed server's socket file (nothing listens) goes before the probe;
 * the server about to start holds the socket's lock until its port
 * closes, which removes the lock file. */
static void
engine_memif_stale_socket__removed(void **state)
{
	char dir[] = "/tmp/uet-test-memif.XXXXXX", path[128], lock_path[160];
	char devargs[256];
	int lock;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/m.sock", dir);
	snprintf(lock_path, sizeof(lock_path), "%s.lock", path);
	close(memif_bound_socket(path, false));
	assert_true(memif_path_exists(path));
	snprintf(devargs, sizeof(devargs),
		 "net_memif0,role=server,id=0,socket=%s,socket-abstract=no",
		 path);
	assert_int_equal(engine_memif_stale_socket(devargs, &lock), 1);
	assert_true(lock >= 0);
	assert_true(memif_path_exists(lock_path));
	assert_false(memif_path_exists(path));
	engine_memif_unlock(devargs, lock);
	assert_false(memif_path_exists(lock_path));
	/* none left: nothing to do; the PMD's default role is server */
	assert_int_equal(stale_check(devargs), 0);
	close(memif_bound_socket(path, false));
	snprintf(devargs, sizeof(devargs), "net_memif1,socket-abstract=no,"
		 "socket=%s,id=1", path);
	assert_int_equal(stale_check(devargs), 1);
	assert_false(memif_path_exists(path));
	assert_int_equal(rmdir(dir), 0);
}

/* A live server's socket (a second server on it is refused), a
 * client's, an abstract one, a file that is not a socket: left alone. A live server is not connected to: a DPDK
 * memif server takes any connection for a client's, and one closed at
 * once made its interrupt thread panic (the check used to connect()). */
static void
engine_memif_stale_socket__kept(void **state)
{
	char dir[] = "/tmp/uet-test-memif.XXXXXX", path[128], devargs[256];
	/* devargs: head, ",socket=" the path, tail */
	const char *forms[][2] = {
		{"net_memif0,role=server", ",socket-abstract=no"},
		{"net_memif0,role=client", ",socket-abstract=no"},
		{"net_memif0,role=server", ""},
		{"net_memif0,role=server", ",socket-abstract=yes"},
		{"net_ring0", ",socket-abstract=no"},
	};
	int fd;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/m.sock", dir);
	fd = memif_bound_socket(path, true);
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		snprintf(devargs, sizeof(devargs), "%s,socket=%s%s",
			 forms[i][0], path, forms[i][1]);
		/* a server port on it is refused, not probed */
		assert_int_equal(stale_check(devargs),
				 i == 0 ? -EADDRINUSE : 0);
		assert_true(memif_path_exists(path));
	}
	/* nobody knocked */
	assert_int_equal(poll(&(struct pollfd){.fd = fd, .events = POLLIN}, 1,
			      0), 0);
	close(fd);
	assert_int_equal(unlink(path), 0);
	/* not a socket */
	f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
	snprintf(devargs, sizeof(devargs), "%s,socket=%s%s", forms[0][0],
		 path, forms[0][1]);
	assert_int_equal(stale_check(devargs), 0);
	assert_true(memif_path_exists(path));
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
}

/* A socket this network namespace does not list as listening, whose lock
 * another server of the engine holds (it runs in another network
 * namespace, say): left alone, the port refused, and the lock stays the
 * other's. */
static void
engine_memif_stale_socket__locked_kept(void **state)
{
	char dir[] = "/tmp/uet-test-memif.XXXXXX", path[128], devargs[256];
	int lock, other;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/m.sock", dir);
	snprintf(devargs, sizeof(devargs),
		 "net_memif0,role=server,id=0,socket=%s,socket-abstract=no",
		 path);
	assert_int_equal(engine_memif_stale_socket(devargs, &other), 0);
	assert_true(other >= 0);
	close(memif_bound_socket(path, false));
	assert_int_equal(engine_memif_stale_socket(devargs, &lock),
			 -EADDRINUSE);
	assert_int_equal(lock, -1);
	assert_true(memif_path_exists(path));
	engine_memif_unlock(devargs, other);
	/* the other server gone: its socket is stale now */
	assert_int_equal(stale_check(devargs), 1);
	assert_int_equal(rmdir(dir), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(engine_memif_devargs__standard_mtu),
		cmocka_unit_test(engine_memif_devargs__jumbo),
		cmocka_unit_test(engine_memif_devargs__user_and_others),
		cmocka_unit_test(engine_memif_stale_socket__removed),
		cmocka_unit_test(engine_memif_stale_socket__kept),
		cmocka_unit_test(engine_memif_stale_socket__locked_kept),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
