/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * EAL initialisation from the configuration, or reuse of an EAL the host
 * process (an MPI job, a libfabric application that uses DPDK itself)
 * already initialised. Every process gets its own runtime files unless
 * the arguments say otherwise (one EAL per process, nothing shared).
 */

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
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
 * The EAL leaves its runtime directory (/var/run/dpdk/<prefix>) behind,
 * empty once its sockets are gone; with a prefix per process that is one
 * stale directory per run. Registered before rte_eal_init(), so it runs
 * after the EAL's own exit handlers; rmdir() never removes a directory
 * that still holds anything (another process's files, a shared config).
 */
static char eal_rundir[PATH_MAX];

static void
eal_rundir_remove(void)
{
	if (eal_rundir[0] != '\0')
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
	(void)snprintf(eal_rundir, sizeof(eal_rundir), "%s",
		       rte_eal_get_runtime_dir());
	return 0;
}
