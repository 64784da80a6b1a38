/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * EAL initialisation from the configuration, or reuse of an EAL the host
 * process (an MPI job, a libfabric application that uses DPDK itself)
 * already initialised. Every process gets its own runtime files unless
 * the arguments say otherwise (one EAL per process, nothing shared).
 * At exit, rte_eal_cleanup() with the interrupt thread parked.
 */

#include <errno.h>
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
 * The EAL leaves its runtime directory (/var/run/dpdk/<prefix>) behind: a
 * primary keeps its shared config, fbarray files and multi-process socket
 * there for secondaries (memif needs that channel, so --no-shconf is not
 * an option there), and nothing removes them at exit: with a prefix per
 * process (an MPI job's ranks) that is one stale directory per rank and
 * run. At exit, a primary that created the directory removes those files
 * and the directory, unless a secondary's socket (mp_socket_<pid>_...)
 * or any other file says someone else uses it. Registered before
 * rte_eal_init(), so it runs after the EAL's own exit handlers.
 */
static char eal_rundir[PATH_MAX];

/* A file a primary EAL (22.11) creates in its runtime directory. */
static bool
eal_rundir_own(const char *name)
{
	return strcmp(name, "config") == 0 ||
	       strcmp(name, "hugepage_info") == 0 ||
	       strcmp(name, "mp_socket") == 0 ||
	       strncmp(name, "fbarray_", 8) == 0;
}

static void
eal_rundir_remove(void)
{
	const struct dirent *e;
	char path[PATH_MAX + 256];
	DIR *d;

	if (eal_rundir[0] == '\0')
		return;
	d = opendir(eal_rundir);
	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.' && !eal_rundir_own(e->d_name))
			goto out; /* someone else's: leave it all */
	rewinddir(d);
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		(void)snprintf(path, sizeof(path), "%s/%s", eal_rundir,
			       e->d_name);
		(void)unlink(path);
	}
out:
	closedir(d);
	(void)rmdir(eal_rundir);
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
	if (!rundir_hook && atexit(eal_rundir_remove) == 0)
		rundir_hook = true;
	rc = rte_eal_init(argc, argv);
	if (rc < 0) {
		if (rte_errno == EALREADY) {
			if (reused != NULL)
				*reused = true;
			return 0;
		}
		return -rte_errno;
	}
	if (rte_eal_process_type() == RTE_PROC_PRIMARY)
		(void)snprintf(eal_rundir, sizeof(eal_rundir), "%s",
			       rte_eal_get_runtime_dir());
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
