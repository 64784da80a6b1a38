/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engine's alive files (docs/WIRE-DECISIONS.md "A SYN that reaches a
 * restarted target"). A peer's request that ran at this address just
 * before the engine went, its answer lost, must not run again at the
 * engine that replaces it: the new PDS refuses the retransmitted SYN
 * (its quiet time) and says, in the refusal, since when the previous
 * incarnation is gone, so that the peer fails what it sent before then
 * instead of sending it again (uet_pds_config.restarted, prev_alive_ns).
 * Only a record kept across the restart tells a restart from a first
 * start: one file per fabric address (and network namespace) in
 * [timers] alive_dir, holding the engine clock (the TSC, which a process
 * restart does not reset) when the engine last ran there, refreshed by
 * the lcores every ALIVE_PERIOD_NS and written once more, marked clean,
 * when the engine is freed. The engine holds an flock on it while it
 * runs: a file found locked belongs to a live engine of the same
 * address (none of the two is a restart of the other), one found
 * unlocked was left by an engine that went.
 */

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine_private.h"

#define ALIVE_MAGIC 0x31564c4154455531ull /* "1UETALV1" */
#define ALIVE_CLEAN 1u

/* What one alive file holds. */
struct engine_alive_rec {
	uint64_t magic;
	uint64_t ns;     /* engine clock when the engine last ran */
	uint64_t flags;  /* ALIVE_CLEAN: written when it was freed */
};

/* The directory of "auto": /run/uet-alive for root, else the user's
 * runtime directory, else /tmp/uet-alive-UID. */
static int
alive_dir_auto(char *buf, size_t len)
{
	const char *x = getenv("XDG_RUNTIME_DIR");
	int n;

	if (geteuid() == 0)
		n = snprintf(buf, len, "/run/uet-alive");
	else if (x != NULL && x[0] == '/')
		n = snprintf(buf, len, "%s/uet-alive", x);
	else
		n = snprintf(buf, len, "/tmp/uet-alive-%u",
			     (unsigned int)geteuid());
	return n > 0 && (size_t)n < len ? 0 : -ENAMETOOLONG;
}

/* Open @p path, a directory of the engine's user without group or other
 * access, created (0700) when missing; never through a symbolic link. */
static int
alive_dir_open(const char *path)
{
	struct stat st;
	int fd;

	if (mkdir(path, 0700) < 0 && errno != EEXIST)
		return -errno;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || st.st_uid != geteuid() ||
	    (st.st_mode & 077) != 0) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

/* The network namespace of this process, so that addresses alike in two
 * namespaces (two tests, two containers) keep files apart. */
static unsigned long long
alive_netns(void)
{
	struct stat st;

	return stat("/proc/self/ns/net", &st) == 0 ?
	       (unsigned long long)st.st_ino : 0;
}

/* @p fd is an alive file as an engine makes them: a regular file of the
 * engine's user without group or other access. */
static bool
alive_file_ours(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	       st.st_uid == geteuid() && (st.st_mode & 077) == 0;
}

/* Read the record of @p fd into @p r: true when it holds a time at most
 * ENGINE_ALIVE_HORIZON_NS before @p now (one that still tells a
 * restart). */
static bool
alive_rec_recent(int fd, uint64_t now, struct engine_alive_rec *r)
{
	return pread(fd, r, sizeof(*r), 0) == (ssize_t)sizeof(*r) &&
	       r->magic == ALIVE_MAGIC && r->ns <= now &&
	       now - r->ns < ENGINE_ALIVE_HORIZON_NS;
}

/* Take the file of address @p addr (text) in directory @p dfd: slot @p i
 * of @p a. A previous incarnation's time goes into a->prev_ns. */
static int
alive_take(struct engine_alive *a, unsigned int i, int dfd, const char *addr,
	   uint64_t now)
{
	struct engine_alive_rec r = { 0 };
	char name[96];
	uint64_t prev;
	void *m;
	int fd, n;

	n = snprintf(name, sizeof(name), "alive-%llu-%s", alive_netns(), addr);
	if (n < 0 || (size_t)n >= sizeof(name))
		return -ENAMETOOLONG;
	fd = openat(dfd, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (!alive_file_ours(fd)) {
		close(fd);
		return -EPERM;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		int rc = errno == EWOULDBLOCK ? -EBUSY : -errno;

		close(fd);
		return rc;
	}
	if (alive_rec_recent(fd, now, &r)) {
		/* a crash may have come up to a refresh period (and a
		 * stalled iteration) after the last one written */
		prev = r.ns + ((r.flags & ALIVE_CLEAN) ? 0 :
			       ENGINE_ALIVE_MARGIN_NS);
		if (prev > a->prev_ns)
			a->prev_ns = prev;
	}
	r.magic = ALIVE_MAGIC;
	r.ns = now;
	r.flags = 0;
	if (pwrite(fd, &r, sizeof(r), 0) != (ssize_t)sizeof(r) ||
	    ftruncate(fd, sizeof(r)) < 0) {
		close(fd);
		return -EIO;
	}
	m = mmap(NULL, sizeof(r), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		close(fd);
		return -errno;
	}
	a->fd[i] = fd;
	a->rec[i] = m;
	return 0;
}

/* Remove the files of @p dfd no engine holds whose time is older than
 * ENGINE_ALIVE_HORIZON_NS (an address whose engine went for good, a
 * network namespace gone): they tell no restart any more. Held locked
 * while removed, so an engine that opens one meanwhile finds it busy. */
static void
alive_sweep(int dfd, uint64_t now)
{
	struct engine_alive_rec r;
	struct dirent *d;
	DIR *dir;
	int dup_fd = dup(dfd), fd;

	if (dup_fd < 0)
		return;
	dir = fdopendir(dup_fd);
	if (dir == NULL) {
		close(dup_fd);
		return;
	}
	while ((d = readdir(dir)) != NULL) {
		if (strncmp(d->d_name, "alive-", 6) != 0)
			continue;
		fd = openat(dfd, d->d_name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (alive_file_ours(fd) && flock(fd, LOCK_EX | LOCK_NB) == 0 &&
		    !alive_rec_recent(fd, now, &r))
			(void)unlinkat(dfd, d->d_name, 0);
		close(fd);
	}
	closedir(dir);
}

/* Every fabric address of the engine's ports, as text, into @p out. */
static unsigned int
alive_addrs(const struct uet_config *cfg,
	    char out[][INET6_ADDRSTRLEN], unsigned int max)
{
	unsigned int n = 0;

	for (unsigned int p = 0; p < UET_CONFIG_MAX_PORTS; p++) {
		const struct uet_config_port *c = &cfg->port[p];

		if (!c->defined)
			continue;
		if (c->has_ipv4 && n < max &&
		    inet_ntop(AF_INET, &c->ipv4, out[n], INET6_ADDRSTRLEN))
			n++;
		if (c->has_ipv6 && n < max &&
		    inet_ntop(AF_INET6, &c->ipv6, out[n], INET6_ADDRSTRLEN))
			n++;
	}
	return n;
}

int
engine_alive_open(struct uet_engine *e)
{
	struct engine_alive *a = &e->alive;
	char addr[ENGINE_ALIVE_MAX][INET6_ADDRSTRLEN];
	const char *dir = e->cfg.timers.alive_dir;
	char auto_dir[UET_CONFIG_STR_LEN];
	uint64_t now = engine_now_ns(e);
	unsigned int n, i;
	int dfd, rc;

	memset(a, 0, sizeof(*a));
	for (i = 0; i < ENGINE_ALIVE_MAX; i++)
		a->fd[i] = -1;
	a->next_ns = UINT64_MAX;
	a->inited = true;
	/* an injected clock (the fabric model's virtual time) is no
	 * record across processes */
	if (strcmp(dir, "off") == 0 || e->clock != NULL)
		return 0;
	if (strcmp(dir, "auto") == 0) {
		rc = alive_dir_auto(auto_dir, sizeof(auto_dir));
		if (rc < 0)
			return rc;
		dir = auto_dir;
	}
	dfd = alive_dir_open(dir);
	if (dfd < 0) {
		ENG_LOG(ERR, "[timers] alive_dir %s: %s%s%s", dir,
			strerror(-dfd), dfd == -EPERM ? " (must be a "
			"directory of the engine's user, mode 0700)" : "",
			dir == auto_dir ? ": going on without alive files "
			"(a restart of this engine is not told to its peers)"
			: "");
		/* auto's directory may be in a place others can write to
		 * (/tmp): one taken first must not stop the engine */
		return dir == auto_dir ? 0 : dfd;
	}
	alive_sweep(dfd, now);
	n = alive_addrs(&e->cfg, addr, ENGINE_ALIVE_MAX);
	for (i = 0; i < n; i++) {
		rc = alive_take(a, i, dfd, addr[i], now);
		if (rc == -EBUSY) {
			/* another live engine has this address: no restart
			 * of it is ours to tell */
			ENG_LOG(WARNING, "%s/alive-*-%s is held by a running "
				"engine of the same address: this one keeps "
				"no alive file for it", dir, addr[i]);
			a->busy++;
			continue;
		}
		if (rc < 0) {
			ENG_LOG(ERR, "[timers] alive_dir %s: file of %s: %s%s",
				dir, addr[i], strerror(-rc),
				dir == auto_dir ? ": going on without it" : "");
			if (dir == auto_dir)
				continue;
			close(dfd);
			engine_alive_close(e, true);
			return rc;
		}
	}
	close(dfd);
	for (i = 0; i < ENGINE_ALIVE_MAX; i++)
		if (a->rec[i] != NULL)
			a->next_ns = now + ENGINE_ALIVE_PERIOD_NS;
	if (a->prev_ns != 0)
		ENG_LOG(INFO, "restart: the previous engine of this address "
			"ran until %.3f s ago",
			(double)(now - RTE_MIN(now, a->prev_ns)) / 1e9);
	return 0;
}

void
engine_alive_refresh(struct uet_engine *e, uint64_t now)
{
	struct engine_alive *a = &e->alive;

	__atomic_store_n(&a->next_ns, now + ENGINE_ALIVE_PERIOD_NS,
			 __ATOMIC_RELAXED);
	for (unsigned int i = 0; i < ENGINE_ALIVE_MAX; i++)
		if (a->rec[i] != NULL)
			__atomic_store_n(&a->rec[i]->ns, now,
					 __ATOMIC_RELAXED);
}

void
engine_alive_close(struct uet_engine *e, bool clean)
{
	struct engine_alive *a = &e->alive;
	uint64_t now = engine_now_ns(e);

	if (!a->inited)
		return;
	for (unsigned int i = 0; i < ENGINE_ALIVE_MAX; i++) {
		if (a->rec[i] != NULL) {
			if (clean) {
				a->rec[i]->ns = now;
				a->rec[i]->flags = ALIVE_CLEAN;
			}
			munmap(a->rec[i], sizeof(struct engine_alive_rec));
			a->rec[i] = NULL;
		}
		if (a->fd[i] >= 0) {
			close(a->fd[i]);
			a->fd[i] = -1;
		}
	}
}

uint64_t
uet_engine_prev_alive_ns(const struct uet_engine *e)
{
	return e != NULL ? e->alive.prev_ns : 0;
}
