/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One configuration file for every process of a job on a host.
 *
 * An MPI launcher starts N processes with the same environment, hence the
 * same FI_UET_PROVIDER_CONFIG; what must differ per process (EAL file
 * prefix, lcores, memif role, fabric address, MAC, neighbours) is written
 * in the file with tokens that the provider expands before loading it:
 *
 *   %r        the process's local rank on this host
 *   %p        its PID
 *   %{a,b,c}  the local rank's item of the list (rank 0: a, rank 1: b...)
 *   %%        a '%'
 *
 * e.g. `devargs = net_memif0,role=%{server,client},socket=/tmp/j.sock`.
 * The local rank is FI_UET_PROVIDER_LOCAL_RANK, else the launcher's
 * (OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID, SLURM_LOCALID). Comments
 * are copied as they are; any other '%' sequence, a list without an item
 * for the rank, or a rank token without a known rank is an error naming
 * the line. Lines keep their numbers, so configuration errors still point
 * at the user's file.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rte_cfgfile.h>

#include "uet_ofi_private.h"

#define LOCAL_FILE_MAX (1u << 20)

struct local_buf {
	char *p;
	size_t len, cap;
};

static int
buf_put(struct local_buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		char *np;

		while (b->len + n + 1 > cap)
			cap *= 2;
		np = realloc(b->p, cap);
		if (np == NULL)
			return -ENOMEM;
		b->p = np;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}

static int
buf_num(struct local_buf *b, long v)
{
	char num[24];
	int n = snprintf(num, sizeof(num), "%ld", v);

	return buf_put(b, num, (size_t)n);
}

static int __attribute__((format(printf, 5, 6)))
local_err(struct uet_config_error *err, const char *path, unsigned int line,
	  int code, const char *fmt, ...)
{
	va_list ap;

	memset(err, 0, sizeof(*err));
	err->code = code;
	err->line = line;
	snprintf(err->file, sizeof(err->file), "%s", path);
	va_start(ap, fmt);
	vsnprintf(err->reason, sizeof(err->reason), fmt, ap);
	va_end(ap);
	if (line != 0)
		snprintf(err->msg, sizeof(err->msg), "%s:%u: %s", path, line,
			 err->reason);
	else
		snprintf(err->msg, sizeof(err->msg), "%s: %s", path,
			 err->reason);
	return code;
}

/* "%{a,b,c}" at @p s (after the '%'): the item of @p rank. */
static int
expand_list(struct local_buf *b, const char *s, size_t *used, long rank)
{
	const char *end = strchr(s, '}'), *item = s + 1;
	long i = 0;

	if (end == NULL || memchr(s, '#', (size_t)(end - s)) != NULL)
		return -EINVAL;
	*used = (size_t)(end - s) + 1;
	for (;;) {
		const char *comma = memchr(item, ',', (size_t)(end - item));
		const char *stop = comma != NULL ? comma : end;

		if (i == rank)
			return buf_put(b, item, (size_t)(stop - item));
		if (comma == NULL)
			return -ERANGE;
		item = comma + 1;
		i++;
	}
}

int
uet_ofi_local_rank(long *rank)
{
	static const char *const vars[] = {
		"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID",
	};
	const struct uet_ofi_params *p = uet_ofi_params();

	if (p->has_local_rank) {
		*rank = (long)p->local_rank;
		return 0;
	}
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *v = secure_getenv(vars[i]);
		char *end;
		long r;

		if (v == NULL || *v == '\0')
			continue;
		errno = 0;
		r = strtol(v, &end, 10);
		if (errno == 0 && *end == '\0' && r >= 0 && r <= 65535) {
			*rank = r;
			return 0;
		}
	}
	return -ENOENT;
}

/* Expand one line (with its '\n', if any) of @p path. */
static int
expand_line(struct local_buf *b, const char *s, size_t n, const char *path,
	    unsigned int line, struct uet_config_error *err)
{
	long rank = -1;
	bool have_rank = uet_ofi_local_rank(&rank) == 0;
	size_t i = 0;
	int rc = 0;

	while (i < n && rc == 0) {
		size_t run = strcspn(s + i, "%#"), used = 2;

		if (run > n - i)
			run = n - i;
		rc = buf_put(b, s + i, run);
		i += run;
		if (i >= n || rc < 0)
			break;
		if (s[i] == '#')
			return buf_put(b, s + i, n - i); /* comment: verbatim */
		if (i + 1 >= n)
			return local_err(err, path, line, -EINVAL,
					 "'%%' at the end of the line");
		switch (s[i + 1]) {
		case '%':
			rc = buf_put(b, "%", 1);
			break;
		case 'p':
			rc = buf_num(b, (long)getpid());
			break;
		case 'r':
		case '{':
			if (!have_rank)
				return local_err(err, path, line, -ENOENT,
					"'%%%s' needs the local rank: none from "
					"the launcher, set "
					"FI_UET_PROVIDER_LOCAL_RANK",
					s[i + 1] == 'r' ? "r" : "{");
			if (s[i + 1] == 'r') {
				rc = buf_num(b, rank);
				break;
			}
			rc = expand_list(b, s + i + 1, &used, rank);
			used += 1;
			if (rc == -ERANGE)
				return local_err(err, path, line, -ERANGE,
					"'%%{...}' has no item for local "
					"rank %ld", rank);
			if (rc == -EINVAL)
				return local_err(err, path, line, -EINVAL,
					"'%%{' without its '}'");
			break;
		default:
			return local_err(err, path, line, -EINVAL,
				"unknown token '%%%c' (%%r, %%p, %%{a,b}, %%%%)",
				s[i + 1]);
		}
		i += used;
	}
	return rc;
}

static int
expand_file(const char *path, struct local_buf *out,
	    struct uet_config_error *err)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0, total = 0;
	unsigned int nr = 0;
	ssize_t n;
	int rc = 0;

	if (f == NULL)
		return local_err(err, path, 0, -errno, "cannot open: %s",
				 strerror(errno));
	while (rc == 0 && (n = getline(&line, &cap, f)) >= 0) {
		total += (size_t)n;
		if (total > LOCAL_FILE_MAX) {
			rc = local_err(err, path, nr + 1, -EFBIG,
				       "file larger than 1 MiB");
			break;
		}
		rc = expand_line(out, line, (size_t)n, path, ++nr, err);
		if (rc == -ENOMEM)
			local_err(err, path, nr, rc, "out of memory");
	}
	free(line);
	fclose(f);
	return rc;
}

/* Whether the (expanded) file names @p key in @p section itself: a
 * default does not count. */
static bool
file_has_key(const char *path, const char *section, const char *key)
{
	/* empty values: as uet_config_load() reads the file (engine.capture
	 * may be empty); without the flag rte_cfgfile prints an error */
	struct rte_cfgfile *f = rte_cfgfile_load(path, CFG_FLAG_EMPTY_VALUES);
	bool has;

	if (f == NULL)
		return false;
	has = rte_cfgfile_has_entry(f, section, key) != 0;
	rte_cfgfile_close(f);
	return has;
}

int
uet_ofi_config_load(struct uet_config *cfg, const char *path,
		    struct uet_config_error *err, bool *service_set)
{
	struct local_buf b = { 0 };
	char fdpath[64];
	int fd, rc;

	rc = expand_file(path, &b, err);
	if (rc < 0)
		goto out;
	fd = memfd_create("uet-config", MFD_CLOEXEC);
	if (fd < 0) {
		rc = local_err(err, path, 0, -errno, "memfd: %s",
			       strerror(errno));
		goto out;
	}
	if (b.len > 0 && write(fd, b.p, b.len) != (ssize_t)b.len) {
		rc = local_err(err, path, 0, -EIO, "memfd write failed");
		close(fd);
		goto out;
	}
	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
	rc = uet_config_load(cfg, fdpath, err);
	if (rc == 0 && service_set != NULL)
		*service_set = file_has_key(fdpath, "service", "socket");
	close(fd);
	if (rc < 0 && strncmp(err->msg, fdpath, strlen(fdpath)) == 0) {
		/* the user's file, not our copy of it */
		char msg[sizeof(err->msg)];

		snprintf(msg, sizeof(msg), "%s%s", path,
			 err->msg + strlen(fdpath));
		snprintf(err->msg, sizeof(err->msg), "%s", msg);
		snprintf(err->file, sizeof(err->file), "%s", path);
	}
out:
	free(b.p);
	return rc;
}
