/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * EAL initialisation from the configuration, or reuse of an EAL the host
 * process (an MPI job, a libfabric application that uses DPDK itself)
 * already initialised. Every process gets its own runtime files unless
 * the arguments say otherwise (one EAL per process, nothing shared).
 * At exit, rte_eal_cleanup() with the interrupt thread parked.
 */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <dirent.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_interrupts.h>
#include <rte_lcore.h>

#include "engine_private.h"

RTE_LOG_REGISTER_SUFFIX(uet_engine_logtype, engine, INFO);

static bool
arg_has(char **argv, int argc, const char *opt)
{
	size_t n = strlen(opt);

	for (int i = 1; i < argc; i++)
		if (strncmp(argv[i], opt, n) == 0 &&
		    (argv[i][n] == '\0' || argv[i][n] == '='))
			return true;
	return false;
}

/* Copy @p s into the argument buffer; NULL when it does not fit. */
static char *
arg_push(char *buf, size_t buflen, size_t *used, const char *s, size_t n)
{
	char *p;

	if (*used + n + 1 > buflen)
		return NULL;
	p = buf + *used;
	memcpy(p, s, n);
	p[n] = '\0';
	*used += n + 1;
	return p;
}

int
uet_engine_eal_args_split(const char *prog, const char *args, bool isolate,
			  char *buf, size_t buflen, char **argv, int max_argv)
{
	size_t used = 0;
	int argc = 0;
	const char *p = args != NULL ? args : "";
	char extra[48];

	if (max_argv < 4 || prog == NULL)
		return -E2BIG;
	argv[argc] = arg_push(buf, buflen, &used, prog, strlen(prog));
	if (argv[argc++] == NULL)
		return -E2BIG;
	while (*p != '\0') {
		size_t n;

		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (*p == '\0')
			break;
		n = strcspn(p, " \t\n");
		/* keep two slots for the isolation options and one for NULL */
		if (argc >= max_argv - 3)
			return -E2BIG;
		argv[argc] = arg_push(buf, buflen, &used, p, n);
		if (argv[argc++] == NULL)
			return -E2BIG;
		p += n;
	}
	if (isolate) {
		bool prefix = arg_has(argv, argc, "--file-prefix");
		bool nohuge = arg_has(argv, argc, "--no-huge");
		/*
		 * DPDK 22.11 treats --no-huge as legacy memory, which it
		 * refuses with --in-memory; --no-shconf gives the same
		 * isolation there (no shared config, no hugepage files).
		 */
		const char *mem = nohuge ? "--no-shconf" : "--in-memory";

		for (int i = 1; nohuge && i < argc; i++)
			if (strcmp(argv[i], "--in-memory") == 0)
				argv[i] = (char *)(uintptr_t)"--no-shconf";
		if (!prefix && !arg_has(argv, argc, "--in-memory") &&
		    !arg_has(argv, argc, "--no-shconf")) {
			argv[argc] = arg_push(buf, buflen, &used, mem,
					      strlen(mem));
			if (argv[argc++] == NULL)
				return -E2BIG;
		}
		if (!prefix) {
			int n = snprintf(extra, sizeof(extra),
					 "--file-prefix=uet%ld", (long)getpid());

			argv[argc] = arg_push(buf, buflen, &used, extra,
					      (size_t)n);
			if (argv[argc++] == NULL)
				return -E2BIG;
		}
	}
	argv[argc] = NULL;
	return argc;
}

/*
 * The EAL's runtime directory: DPDK 22.11 (eal_create_runtime_dir())
 * makes $RUNTIME_DIRECTORY, else /var/run for root, else $XDG_RUNTIME_DIR
 * or /tmp, then dpdk/<--file-prefix, "rte" by default>, early in
 * rte_eal_init(). The EAL never removes it: not when rte_eal_init() fails
 * after making it, not at exit (an empty directory per run with a prefix
 * per process), and its sockets stay when a signal ends the process. A
 * directory this process made (absent before rte_eal_init()) is emptied
 * and removed after a failed rte_eal_init(), at exit (the hook is
 * registered before rte_eal_init(), so it runs after the EAL's own exit
 * handlers) and by uet_engine_eal_rundir_purge() from a signal handler.
 * One that was there before (a --file-prefix shared with other processes)
 * is only removed when empty (rmdir), or, at exit, by a primary when it
 * holds nothing but a primary's own files (a killed run's leftovers with
 * the same prefix; a secondary's socket there says someone else uses it).
 */
static char eal_rundir[PATH_MAX];
static volatile bool eal_rundir_ours;
static bool eal_primary; /* this process is the EAL primary */

/* Value of the last @p opt ("--opt=v" or "--opt v") in argv, or NULL:
 * the EAL's getopt keeps the last one too. */
static const char *
arg_value(char **argv, int argc, const char *opt)
{
	size_t n = strlen(opt);
	const char *v = NULL;

	for (int i = 1; i < argc; i++) {
		if (strncmp(argv[i], opt, n) != 0)
			continue;
		if (argv[i][n] == '=')
			v = argv[i] + n + 1;
		else if (argv[i][n] == '\0' && i + 1 < argc)
			v = argv[i + 1];
	}
	return v;
}

/* The runtime directory rte_eal_init(@p argv) will make (see above). */
static int
eal_rundir_of(char **argv, int argc, char *buf, size_t len)
{
	const char *dir = getenv("RUNTIME_DIRECTORY");
	const char *prefix = arg_value(argv, argc, "--file-prefix");
	int n;

	if (dir == NULL && getuid() == 0)
		dir = "/var/run";
	if (dir == NULL)
		dir = getenv("XDG_RUNTIME_DIR");
	if (dir == NULL)
		dir = "/tmp";
	if (prefix == NULL || prefix[0] == '\0')
		prefix = "rte";
	n = snprintf(buf, len, "%s/dpdk/%s", dir, prefix);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* linux_dirent64, as getdents64(2) fills it */
struct eal_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/* Unlink what the directory holds; only async-signal-safe calls. */
static void
eal_rundir_empty(const char *path)
{
	char buf[2048] __attribute__((aligned(8)));
	const struct eal_dirent64 *d;
	long n, off;
	int fd, rounds;

	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	/* bounded: the EAL puts a handful of files there */
	for (rounds = 0; rounds < 64; rounds++) {
		n = syscall(SYS_getdents64, fd, buf, sizeof(buf));
		if (n <= 0)
			break;
		for (off = 0; off < n; off += d->d_reclen) {
			d = (const struct eal_dirent64 *)(buf + off);
			if (strcmp(d->d_name, ".") != 0 &&
			    strcmp(d->d_name, "..") != 0)
				(void)unlinkat(fd, d->d_name, 0);
		}
	}
	close(fd);
}

void
uet_engine_eal_rundir_purge(void)
{
	if (eal_rundir[0] == '\0')
		return;
	if (eal_rundir_ours)
		eal_rundir_empty(eal_rundir);
	(void)rmdir(eal_rundir);
}

/* A file a primary EAL (22.11) creates in its runtime directory. */
static bool
eal_rundir_own(const char *name)
{
	return strcmp(name, "config") == 0 ||
	       strcmp(name, "hugepage_info") == 0 ||
	       strcmp(name, "mp_socket") == 0 ||
	       strncmp(name, "fbarray_", 8) == 0;
}

/* Does @p path hold only files of a primary EAL (not at a signal: it
 * uses opendir)? */
static bool
eal_rundir_only_own(const char *path)
{
	const struct dirent *e;
	bool own = true;
	DIR *d = opendir(path);

	if (d == NULL)
		return false;
	while (own && (e = readdir(d)) != NULL)
		if (e->d_name[0] != '.' && !eal_rundir_own(e->d_name))
			own = false;
	closedir(d);
	return own;
}

static void
eal_rundir_at_exit(void)
{
	/* a primary's files only, left by an earlier run: ours as well */
	if (eal_rundir[0] != '\0' && !eal_rundir_ours && eal_primary &&
	    eal_rundir_only_own(eal_rundir))
		eal_rundir_ours = true;
	uet_engine_eal_rundir_purge();
}

/* Before rte_eal_init(): where its directory will be, and whether this
 * process makes it. */
static void
eal_rundir_expect(char **argv, int argc)
{
	struct stat st;

	eal_rundir[0] = '\0';
	eal_rundir_ours = false;
	if (eal_rundir_of(argv, argc, eal_rundir, sizeof(eal_rundir)) < 0) {
		eal_rundir[0] = '\0';
		return;
	}
	eal_rundir_ours = stat(eal_rundir, &st) < 0 && errno == ENOENT;
}

/* After rte_eal_init(): the directory the EAL says it uses; ours only if
 * it is the one expected (else it may have been there before). */
static void
eal_rundir_settle(void)
{
	const char *dir = rte_eal_get_runtime_dir();

	if (dir == NULL || dir[0] == '\0' || strcmp(dir, eal_rundir) == 0)
		return;
	eal_rundir_ours = false;
	(void)snprintf(eal_rundir, sizeof(eal_rundir), "%s", dir);
}

int
uet_engine_eal_init(const char *prog, const char *args, bool *reused)
{
	static bool rundir_hook;
	char buf[1024];
	char *argv[UET_ENGINE_EAL_ARGS_MAX + 1];
	int argc, rc;

	if (reused != NULL)
		*reused = false;
	/*
	 * lcore_count is zero until rte_eal_init() succeeded: checking it
	 * first avoids the EAL's "already called" alert; EALREADY below
	 * covers a racing initialisation.
	 */
	if (rte_lcore_count() > 0) {
		if (reused != NULL)
			*reused = true;
		return 0;
	}
	argc = uet_engine_eal_args_split(prog != NULL ? prog : "uet", args,
					 true, buf, sizeof(buf), argv,
					 UET_ENGINE_EAL_ARGS_MAX + 1);
	if (argc < 0)
		return argc;
	if (!rundir_hook && atexit(eal_rundir_at_exit) == 0)
		rundir_hook = true;
	eal_rundir_expect(argv, argc);
	rc = rte_eal_init(argc, argv);
	if (rc < 0) {
		rc = rte_errno;
		if (rc == EALREADY) {
			if (reused != NULL)
				*reused = true;
			eal_rundir[0] = '\0'; /* not ours to touch */
			return 0;
		}
		/* half-way: its runtime directory may be there already */
		eal_rundir_settle();
		uet_engine_eal_rundir_purge();
		eal_rundir[0] = '\0';
		return -rc;
	}
	eal_rundir_settle();
	eal_primary = rte_eal_process_type() == RTE_PROC_PRIMARY;
	return 0;
}

/*
 * The interrupt thread parked by uet_engine_eal_cleanup(), in the callback
 * of an interrupt source of our own (an eventfd, its handle in process
 * memory): not an alarm, whose source rte_eal_cleanup() unregisters
 * synchronously (it would wait for the parked callback for good).
 */
static _Atomic bool eal_intr_parked;
/* its source, registered for good (kept reachable: not a leak) */
static struct rte_intr_handle *eal_park_ih;

static void
eal_intr_park(void *arg)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = 10 * 1000 * 1000 };

	(void)arg;
	atomic_store(&eal_intr_parked, true);
	/* until the process exits: returning would walk the sources whose
	 * memory rte_eal_cleanup() unmapped */
	for (;;)
		(void)nanosleep(&ts, NULL);
}

/* Make the interrupt thread enter eal_intr_park(); 0 once it did. */
static int
eal_intr_park_request(void)
{
	struct timespec nap = { .tv_sec = 0, .tv_nsec = 100 * 1000 };
	struct rte_intr_handle *ih;
	uint64_t one = 1;
	unsigned int waited_us = 0;
	int efd, rc;

	efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	ih = rte_intr_instance_alloc(RTE_INTR_INSTANCE_F_PRIVATE);
	if (efd < 0 || ih == NULL || rte_intr_fd_set(ih, efd) != 0 ||
	    rte_intr_type_set(ih, RTE_INTR_HANDLE_EXT) != 0) {
		rc = -ENOMEM;
		goto fail;
	}
	rc = rte_intr_callback_register(ih, eal_intr_park, NULL);
	if (rc < 0)
		goto fail;
	if (write(efd, &one, sizeof(one)) != sizeof(one)) {
		rc = -errno;
		goto fail_unregister;
	}
	while (!atomic_load(&eal_intr_parked) && waited_us < 2000000u) {
		(void)nanosleep(&nap, NULL);
		waited_us += 100;
	}
	/* parked or not, the source stays: the thread may still come */
	eal_park_ih = ih;
	return atomic_load(&eal_intr_parked) ? 0 : -ETIMEDOUT;

fail_unregister:
	(void)rte_intr_callback_unregister(ih, eal_intr_park, NULL);
fail:
	rte_intr_instance_free(ih);
	if (efd >= 0)
		close(efd);
	return rc;
}

int
uet_engine_eal_cleanup(void)
{
	int rc;

	if (!atomic_load(&eal_intr_parked)) {
		rc = eal_intr_park_request();
		if (rc < 0)
			return rc;
	}
	return rte_eal_cleanup();
}
