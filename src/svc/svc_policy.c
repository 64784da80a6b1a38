/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The service's authorization policy and quotas (docs/SERVICE.md
 * "Security"): who a connection is (SO_PEERCRED, SO_PEERGROUPS, read by
 * the kernel at connect, not claimed by the client), which JobIDs it may
 * use (job.N entries of [service], else the uid that took the JobID
 * first), how much of the service one uid may hold, and the socket's
 * directory and permissions. Every refusal is an error to the client and
 * a counter (svc_server.c count_rc).
 */

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_common.h>

#include "svc_server_private.h"

/* ---- credentials ---- */

int
svc_peer_creds(struct svc_client *c)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	gid_t g[SVC_GROUPS_MAX];

	if (getsockopt(c->fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0)
		return -errno;
	c->pid = cred.pid;
	c->uid = cred.uid;
	c->gid = cred.gid;
	/* supplementary groups, for gid: members of the policy; a process
	 * in more than SVC_GROUPS_MAX groups (ERANGE) is matched on its
	 * primary group only: less access, never more */
	len = sizeof(g);
	if (getsockopt(c->fd, SOL_SOCKET, SO_PEERGROUPS, g, &len) == 0) {
		c->nb_groups = RTE_MIN(len / sizeof(gid_t),
				       (socklen_t)SVC_GROUPS_MAX);
		memcpy(c->groups, g, c->nb_groups * sizeof(gid_t));
	}
	return 0;
}

/* ---- quotas ---- */

/* root and the service's own uid: any JobID, no quota (they could stop
 * the service, or read its memory, anyway) */
static bool
privileged(const struct uet_svc_server *s, uid_t uid)
{
	return uid == 0 || uid == s->euid;
}

int
svc_user_attach(struct uet_svc_server *s, struct svc_client *c)
{
	struct svc_user *free_u = NULL;

	for (unsigned int i = 0; i < 2 * s->p.max_clients; i++) {
		struct svc_user *u = &s->users[i];

		if (u->clients != 0 && u->uid == c->uid) {
			if (s->p.quota.clients != 0 && !u->privileged &&
			    u->clients >= s->p.quota.clients)
				return -EDQUOT;
			u->clients++;
			c->user = u;
			return 0;
		}
		if (u->clients == 0 && free_u == NULL)
			free_u = u;
	}
	/* one entry per uid attached or being released, 2 * max_clients of
	 * them: never full while a client slot is free */
	if (free_u == NULL)
		return -EUSERS;
	memset(free_u, 0, sizeof(*free_u));
	free_u->uid = c->uid;
	free_u->privileged = privileged(s, c->uid);
	free_u->clients = 1;
	c->user = free_u;
	return 0;
}

void
svc_user_detach(struct uet_svc_server *s, struct svc_client *c)
{
	(void)s;
	if (c->user != NULL && c->user->clients > 0)
		c->user->clients--;
	c->user = NULL;
}

int
svc_quota_take(struct uet_svc_server *s, struct svc_client *c,
	       enum svc_res r, uint64_t n)
{
	const struct uet_svc_quota *q = &s->p.quota;
	struct svc_user *u = c->user;
	uint64_t held, max;

	switch (r) {
	case SVC_Q_PIDS:
		held = u->pids, max = q->pids;
		break;
	case SVC_Q_JOBS:
		held = u->jobs, max = q->jobs;
		break;
	case SVC_Q_MRS:
		held = u->mrs, max = q->mrs;
		break;
	case SVC_Q_PEERS:
		held = u->peers, max = q->peers;
		break;
	default:
		held = u->window, max = q->window;
		break;
	}
	if (max != 0 && !u->privileged && (held + n > max || held + n < held))
		return -EDQUOT;
	switch (r) {
	case SVC_Q_PIDS:
		u->pids += (uint32_t)n;
		break;
	case SVC_Q_JOBS:
		u->jobs += (uint32_t)n;
		break;
	case SVC_Q_MRS:
		u->mrs += (uint32_t)n;
		break;
	case SVC_Q_PEERS:
		u->peers += (uint32_t)n;
		break;
	default:
		u->window += n;
		break;
	}
	return 0;
}

void
svc_quota_put(struct svc_client *c, enum svc_res r, uint64_t n)
{
	struct svc_user *u = c->user;

	if (u == NULL)
		return;
	switch (r) {
	case SVC_Q_PIDS:
		u->pids -= (uint32_t)RTE_MIN(n, (uint64_t)u->pids);
		break;
	case SVC_Q_JOBS:
		u->jobs -= (uint32_t)RTE_MIN(n, (uint64_t)u->jobs);
		break;
	case SVC_Q_MRS:
		u->mrs -= (uint32_t)RTE_MIN(n, (uint64_t)u->mrs);
		break;
	case SVC_Q_PEERS:
		u->peers -= (uint32_t)RTE_MIN(n, (uint64_t)u->peers);
		break;
	default:
		u->window -= RTE_MIN(n, u->window);
		break;
	}
}

/* ---- JobIDs ---- */

static const struct uet_svc_acl *
acl_find(const struct uet_svc_server *s, uint32_t job)
{
	for (unsigned int i = 0; i < s->p.nb_acl; i++)
		if (job >= s->acl[i].first && job <= s->acl[i].last)
			return &s->acl[i];
	return NULL;
}

static bool
in_group(const struct svc_client *c, uint32_t gid)
{
	if (c->gid == gid)
		return true;
	for (unsigned int i = 0; i < c->nb_groups; i++)
		if (c->groups[i] == gid)
			return true;
	return false;
}

static bool
acl_member(const struct uet_svc_acl *a, const struct svc_client *c)
{
	for (unsigned int i = 0; i < a->nb; i++)
		if (a->m[i].gid ? in_group(c, a->m[i].id) :
				  a->m[i].id == c->uid)
			return true;
	return false;
}

static struct svc_jobown *
owner_find(const struct uet_svc_server *s, uint32_t job)
{
	for (unsigned int i = 0; i < s->nb_owners; i++)
		if (s->owners[i].job == job)
			return &s->owners[i];
	return NULL;
}

int
svc_job_allowed(const struct uet_svc_server *s, const struct svc_client *c,
		uint32_t job)
{
	const struct uet_svc_acl *a;
	const struct svc_jobown *o;

	if (privileged(s, c->uid))
		return 0;
	a = acl_find(s, job);
	if (a != NULL)
		return acl_member(a, c) ? 0 : -EACCES;
	o = owner_find(s, job);
	return o == NULL || o->uid == c->uid ? 0 : -EACCES;
}

/* Only JobIDs no entry covers are owned. A privileged uid owns those it
 * takes first as any uid does (the security review: while a root client
 * used an unlisted JobID, any user could join it and send to root's
 * processes), and may also use one another uid owns (svc_job_allowed),
 * without taking it over. */
static bool
ownable(const struct uet_svc_server *s, uint32_t job)
{
	return acl_find(s, job) == NULL;
}

int
svc_job_claim(struct uet_svc_server *s, const struct svc_client *c,
	      uint32_t job)
{
	struct svc_jobown *o;

	if (!ownable(s, job))
		return 0;
	o = owner_find(s, job);
	if (o != NULL) {
		/* another's: a privileged client uses it, owns nothing */
		if (o->uid == c->uid)
			o->ref++;
		return 0;
	}
	if (s->nb_owners == s->cap_owners) {
		unsigned int cap = s->cap_owners ? s->cap_owners * 2 : 16;
		void *p = realloc(s->owners, cap * sizeof(*s->owners));

		if (p == NULL)
			return -ENOMEM;
		s->owners = p;
		s->cap_owners = cap;
	}
	o = &s->owners[s->nb_owners++];
	o->job = job;
	o->uid = c->uid;
	o->ref = 1;
	return 0;
}

void
svc_job_unclaim(struct uet_svc_server *s, const struct svc_client *c,
		uint32_t job)
{
	struct svc_jobown *o;

	if (!ownable(s, job))
		return;
	o = owner_find(s, job);
	if (o == NULL || o->uid != c->uid)
		return;
	if (--o->ref == 0)
		*o = s->owners[--s->nb_owners];
}

int
svc_job_begin(struct uet_svc_server *s, struct svc_client *c, uint32_t job)
{
	int rc = svc_quota_take(s, c, SVC_Q_JOBS, 1);

	if (rc < 0)
		return rc;
	rc = svc_job_claim(s, c, job);
	if (rc < 0)
		svc_quota_put(c, SVC_Q_JOBS, 1);
	return rc;
}

void
svc_job_end(struct uet_svc_server *s, struct svc_client *c, uint32_t job)
{
	svc_job_unclaim(s, c, job);
	svc_quota_put(c, SVC_Q_JOBS, 1);
}

/* ---- what a channel's SQEs may name ---- */

int
svc_chan_jobs_room(const struct uet_svc_server *s,
		   const struct svc_client *c, uint16_t pid)
{
	unsigned int n = 0;

	if (privileged(s, c->uid))
		return 0;
	for (unsigned int i = 0; i < c->nb_jobs; i++)
		n += c->jobs[i].pid == pid;
	return n < UET_CHAN_JOB_RANGES_MAX ? 0 : -ENOSPC;
}

/*
 * An SQE names a JobID the lcore checks against ch.jobs
 * (pmd/ses_ulp/channels.c job_granted()): the service's whole grant would let a client send in
 * any granted job, another user's included, without JOB_ADD. A client's
 * channel gets the JobIDs its client authorised on the channel's
 * PIDonFEP instead. The lcore reads the table without a lock: a change
 * fills the other table and then swaps the pointer. Each change follows
 * a control request answered by that channel's lcore (JOB_ADD, JOB_DEL),
 * which it serves between SQEs: by then no SQE check still reads the
 * table the change before this one left.
 */
int
svc_chan_jobs(const struct uet_svc_server *s, const struct svc_client *c,
	      struct svc_chan *sc, bool live)
{
	unsigned int next = live ? sc->cur ^ 1u : sc->cur, n = 0;
	struct uet_chan_jobs *t = &sc->jobs[next];

	if (privileged(s, c->uid)) {
		sc->ch.jobs = &s->p.jobs;
		return 0;
	}
	memset(t, 0, sizeof(*t));
	for (unsigned int i = 0; i < c->nb_jobs; i++) {
		if (c->jobs[i].pid != sc->pid)
			continue;
		if (n == UET_CHAN_JOB_RANGES_MAX)
			return -ENOSPC;
		t->r[n].first = t->r[n].last = c->jobs[i].job;
		n++;
	}
	t->nb = n;
	sc->cur = next;
	__atomic_store_n(&sc->ch.jobs, t, __ATOMIC_RELEASE);
	return 0;
}

void
svc_chans_jobs(const struct uet_svc_server *s, const struct svc_client *c,
	       uint16_t pid)
{
	for (unsigned int i = 0; i < s->p.max_chans; i++)
		if (c->chans[i].open && c->chans[i].pid == pid)
			(void)svc_chan_jobs(s, c, &c->chans[i], true);
}

/* ---- the socket ---- */

int
svc_sock_dir_check(const char *path)
{
	char buf[108];
	const char *dir;
	struct stat st;

	snprintf(buf, sizeof(buf), "%s", path);
	dir = dirname(buf);
	if (lstat(dir, &st) != 0 && errno == ENOENT) {
		int fd, rc = 0;

		/* only the last component: its parent is the deployer's.
		 * Its mode set through a descriptor of the directory made:
		 * by its path, a symbolic link put there since (a parent
		 * others may write) would have had root chmod its target */
		if (mkdir(dir, 0755) != 0 && errno != EEXIST)
			return -errno;
		fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			return errno == ELOOP ? -ENOTDIR : -errno;
		if (fchmod(fd, 0755) != 0)
			rc = -errno;
		close(fd);
		if (rc < 0)
			return rc;
	}
	if (lstat(dir, &st) != 0)
		return -errno;
	if (!S_ISDIR(st.st_mode)) {
		SVC_LOG(ERR, "%s: the socket's directory is not a directory "
			"(a symbolic link is refused)", dir);
		return -ENOTDIR;
	}
	if ((st.st_uid != 0 && st.st_uid != geteuid()) ||
	    (st.st_mode & (S_IWGRP | S_IWOTH))) {
		SVC_LOG(ERR, "%s: owned by uid %u, mode %04o: the socket's "
			"directory must belong to root or uid %u and be "
			"writable by nobody else (another user could replace "
			"the socket)", dir, (unsigned int)st.st_uid,
			(unsigned int)(st.st_mode & 07777),
			(unsigned int)geteuid());
		return -EPERM;
	}
	return 0;
}

int
svc_sock_perms(const struct uet_svc_server *s)
{
	/* never through a symbolic link (the directory is checked, but a
	 * root service does not follow one where the socket should be) */
	if (s->p.socket_gid != UET_SVC_GID_KEEP &&
	    lchown(s->path, (uid_t)-1, (gid_t)s->p.socket_gid) != 0) {
		int err = -errno;

		SVC_LOG(ERR, "%s: group %u: %s", s->path,
			(unsigned int)s->p.socket_gid, strerror(-err));
		return err;
	}
	if (fchmodat(AT_FDCWD, s->path, (mode_t)s->p.socket_mode,
		     AT_SYMLINK_NOFOLLOW) != 0)
		return -errno;
	return 0;
}
