/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The TSC reservation of a key (UEC 1.0 section 3.7: the IV is built from
 * the source and the TSC, and AES-GCM must never see an IV twice under a
 * key; a receiver's replay window wants the TSC of a source to grow). An
 * engine restarted with the same key file must go on above every TSC it
 * could have sealed with, so the highest one it may use is on disk before
 * it is used: a file per {source, key} (the IV holds both) holding the lowest TSC not yet
 * reserved, moved a block at a time. The file is named by a fingerprint of
 * the key (KDF label "TS", docs/WIRE-DECISIONS.md): the key itself never
 * reaches the disk, and a key used again (a rotation back to it) finds its
 * file. The format is one line, "uet-tss-tsc 1 FINGERPRINT LIMIT\n";
 * anything else refuses: guessing a TSC is how an IV repeats.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <uet/uet_tss.h>

#define MAGIC     "uet-tss-tsc 1 "
#define FILE_MAX  128 /* bytes of a state file: more is not ours */

static int
fail(char *why, size_t len, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int
fail(char *why, size_t len, int rc, const char *fmt, ...)
{
	va_list ap;

	if (why != NULL && len != 0) {
		va_start(ap, fmt);
		vsnprintf(why, len, fmt, ap);
		va_end(ap);
	}
	return rc;
}

/* The engine's own, nobody else's: a file or directory another user can
 * write could hold any TSC. */
static int
check_owner(const struct stat *st, mode_t type, const char *what,
	    const char *path, char *why, size_t len)
{
	if ((st->st_mode & S_IFMT) != type)
		return fail(why, len, type == S_IFDIR ? -ENOTDIR : -EPERM,
			    "%s %s: not a %s", what, path,
			    type == S_IFDIR ? "directory" : "regular file");
	if (st->st_uid != geteuid() || (st->st_mode & 077) != 0)
		return fail(why, len, -EPERM, "%s %s: owner uid %u, mode %03o: "
			    "must be the engine's user's (uid %u), without "
			    "group or other access (%s)", what, path,
			    (unsigned int)st->st_uid,
			    (unsigned int)(st->st_mode & 0777),
			    (unsigned int)geteuid(),
			    type == S_IFDIR ? "0700" : "0600");
	return 0;
}

static int
fingerprint(const uint8_t key[UET_TSS_KEY_LEN], char hex[33])
{
	static const uint8_t none[1]; /* an empty context, not NULL */
	uint8_t out[16];
	int rc = uet_tss_kdf(key, UET_TSS_LABEL_TSC, none, 0, out, sizeof(out));

	if (rc < 0)
		return rc;
	for (unsigned int i = 0; i < sizeof(out); i++)
		snprintf(hex + 2 * i, 3, "%02x", out[i]);
	return 0;
}

/* Parse "uet-tss-tsc 1 FP LIMIT\n" exactly. */
static int
parse(const struct uet_tss_tsc_store *s, const char *buf, uint64_t *limit)
{
	const char *p = buf;
	char *end;
	unsigned long long v;

	if (strncmp(p, MAGIC, strlen(MAGIC)) != 0)
		return -EBADMSG;
	p += strlen(MAGIC);
	if (strncmp(p, s->fp, 32) != 0 || p[32] != ' ')
		return -EBADMSG;
	p += 33;
	if (*p < '0' || *p > '9')
		return -EBADMSG;
	errno = 0;
	v = strtoull(p, &end, 10);
	if (errno != 0 || strcmp(end, "\n") != 0 || v == 0 || v > s->max + 1)
		return -EBADMSG;
	*limit = v;
	return 0;
}

/* The limit on disk: 0 and 1 when there is no file yet. */
static int
load(struct uet_tss_tsc_store *s, const char *dir, uint64_t *limit,
     char *why, size_t len)
{
	char buf[FILE_MAX + 1];
	struct stat st;
	ssize_t n;
	int fd, rc;

	fd = openat(s->dir_fd, s->name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		*limit = 1;
		return 0;
	}
	if (fd < 0)
		return fail(why, len, -errno, "state file %s/%s: %s", dir,
			    s->name, strerror(errno));
	rc = fstat(fd, &st) < 0 ? -errno : 0;
	if (rc == 0)
		rc = check_owner(&st, S_IFREG, "state file", s->name, why, len);
	if (rc < 0)
		goto out;
	n = read(fd, buf, FILE_MAX + 1);
	if (n < 0) {
		rc = fail(why, len, -errno, "state file %s/%s: %s", dir,
			  s->name, strerror(errno));
		goto out;
	}
	buf[n < FILE_MAX ? n : FILE_MAX] = '\0';
	if (n > FILE_MAX || strlen(buf) != (size_t)n ||
	    parse(s, buf, limit) < 0)
		rc = fail(why, len, -EBADMSG, "state file %s/%s: does not read "
			  "as written: the TSCs this key sealed "
			  "with are unknown; rotate the key (a new key file)",
			  dir, s->name);
out:
	close(fd);
	return rc;
}

/* Write @p limit: a new file, synced, renamed over the old one, and the
 * directory synced, so that a crash leaves the old limit or the new one. */
static int
store(struct uet_tss_tsc_store *s, uint64_t limit)
{
	char tmp[UET_TSS_TSC_NAME_LEN + 8], buf[FILE_MAX];
	int fd, n, rc = 0;

	snprintf(tmp, sizeof(tmp), "%s.tmp", s->name);
	n = snprintf(buf, sizeof(buf), MAGIC "%s %" PRIu64 "\n", s->fp, limit);
	fd = openat(s->dir_fd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
		    O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (fchmod(fd, 0600) < 0 || write(fd, buf, (size_t)n) != n ||
	    fsync(fd) < 0)
		rc = errno != 0 ? -errno : -EIO;
	if (close(fd) < 0 && rc == 0)
		rc = -errno;
	if (rc == 0 && renameat(s->dir_fd, tmp, s->dir_fd, s->name) < 0)
		rc = -errno;
	if (rc == 0 && fsync(s->dir_fd) < 0)
		rc = -errno;
	if (rc < 0)
		(void)unlinkat(s->dir_fd, tmp, 0);
	return rc;
}

static int
open_dir(struct uet_tss_tsc_store *s, const char *dir, char *why, size_t len)
{
	struct stat st;
	int rc;

	s->dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (s->dir_fd < 0)
		return fail(why, len, -errno, "state_dir %s: %s", dir,
			    strerror(errno));
	rc = fstat(s->dir_fd, &st) < 0 ? -errno : 0;
	return rc < 0 ? rc : check_owner(&st, S_IFDIR, "state_dir", dir, why,
					 len);
}

static int
lock(struct uet_tss_tsc_store *s, const char *dir, char *why, size_t len)
{
	char name[UET_TSS_TSC_NAME_LEN + 8];

	snprintf(name, sizeof(name), "%s.lock", s->name);
	s->lock_fd = openat(s->dir_fd, name, O_RDWR | O_CREAT | O_NOFOLLOW |
			    O_CLOEXEC, 0600);
	if (s->lock_fd < 0)
		return fail(why, len, -errno, "state file %s/%s: %s", dir,
			    name, strerror(errno));
	if (flock(s->lock_fd, LOCK_EX | LOCK_NB) < 0)
		return fail(why, len, errno == EWOULDBLOCK ? -EBUSY : -errno,
			    "state file %s/%s: in use by another engine with "
			    "this source address and key (two senders of one "
			    "address would repeat IVs)",
			    dir, s->name);
	return 0;
}

int
uet_tss_tsc_open(struct uet_tss_tsc_store *s, const char *dir,
		 const char *source, const uint8_t key[UET_TSS_KEY_LEN],
		 uint64_t max, uint64_t block, uint64_t *first, char *why,
		 size_t why_len)
{
	uint64_t limit = 0;
	int rc;

	memset(s, 0, sizeof(*s));
	s->dir_fd = -1;
	s->lock_fd = -1;
	s->max = max;
	s->block = block;
	if (dir == NULL || source == NULL || source[0] == '\0' ||
	    source[0] == '.' || strchr(source, '/') != NULL || block == 0 ||
	    block > max || strlen(source) + 34 > sizeof(s->name))
		return fail(why, why_len, -EINVAL, "bad arguments");
	if (fingerprint(key, s->fp) < 0)
		return fail(why, why_len, -EIO, "key fingerprint: libcrypto "
			    "failed");
	snprintf(s->name, sizeof(s->name), "%s.%s", source, s->fp);
	rc = open_dir(s, dir, why, why_len);
	if (rc == 0)
		rc = lock(s, dir, why, why_len);
	if (rc == 0)
		rc = load(s, dir, &limit, why, why_len);
	if (rc == 0 && limit > max)
		rc = fail(why, why_len, -ENOSPC, "state file %s/%s: every TSC "
			  "of this key is used: rotate it (a new key file)",
			  dir, s->name);
	if (rc == 0) {
		s->limit = limit;
		rc = uet_tss_tsc_reserve(s, limit);
		if (rc < 0)
			fail(why, why_len, rc, "state file %s/%s: %s", dir,
			     s->name, strerror(-rc));
	}
	if (rc < 0) {
		uet_tss_tsc_close(s);
		return rc;
	}
	*first = limit;
	return 0;
}

int
uet_tss_tsc_reserve(struct uet_tss_tsc_store *s, uint64_t tsc)
{
	uint64_t limit = s->limit;
	int rc;

	if (tsc < s->limit)
		return 0;
	if (tsc > s->max || s->dir_fd < 0)
		return s->dir_fd < 0 ? -EBADF : -ENOSPC;
	/* whole blocks, so that a reservation is a multiple of writes */
	limit += (tsc - limit) / s->block * s->block + s->block;
	if (limit > s->max + 1 || limit < s->limit)
		limit = s->max + 1;
	rc = store(s, limit);
	if (rc < 0)
		return rc;
	s->limit = limit;
	if (!s->warned && limit - 1 >= s->max - s->max / 8) {
		s->warned = true;
		return 1;
	}
	return 0;
}

void
uet_tss_tsc_close(struct uet_tss_tsc_store *s)
{
	if (s->lock_fd >= 0)
		close(s->lock_fd); /* and its lock */
	if (s->dir_fd >= 0)
		close(s->dir_fd);
	s->lock_fd = -1;
	s->dir_fd = -1;
}
