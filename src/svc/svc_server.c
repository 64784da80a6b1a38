/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The uet-engine service, server side (include/svc/uet/uet_svc_server.h):
 * the listening socket, the epoll loop, messages in and out (with their
 * file descriptors), client life and death, telemetry /uet/service. The
 * requests themselves are in svc_srv_ops.c.
 */

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_log.h>
#include <rte_telemetry.h>

#include <uet/uet_clock.h>
#include <uet/uet_cma_worker.h>

#include "svc_server_private.h"

RTE_LOG_REGISTER_SUFFIX(uet_svc_logtype, svc, INFO);

/* fds of one reply: region, service page, one eventfd per context */
#define SVC_FDS_MAX (2 + UET_SVC_CTX_MAX)
/* Descriptors one message can carry (the kernel's SCM_MAX_FD): received
 * with room for all of them, none is closed by the kernel on the control
 * thread for want of room (MSG_CTRUNC). */
#define SVC_SCM_FDS 253
/* The reaper empties an AF_UNIX socket of at most this many messages. */
#define SVC_REAP_MSGS 1024
#define SVC_EVENTS 16
/* Departed clients being released at most (client_drop, accept_one). */
#define SVC_ZOMBIES_MAX(s) (2 * (s)->p.max_clients)
/* Requests kept (svc_wait.msg) run at most this many a tick. */
#define SVC_KEPT_RUNS 16

static void sock_close(struct uet_svc_server *s, int fd);

/* ------------------------------------------------------------------ */
/* telemetry                                                           */
/* ------------------------------------------------------------------ */

/* One service per process is what telemetry shows (the last created). */
static pthread_mutex_t telemetry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct uet_svc_server *telemetry_srv;
static bool telemetry_registered;

static void
telemetry_u64(struct rte_tel_data *d, const char *k, uint64_t v)
{
	(void)rte_tel_data_add_dict_u64(d, k, v);
}

static int
telemetry_service(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct uet_svc_server_stats st;
	int rc = -ENOENT;

	(void)cmd;
	(void)params;
	pthread_mutex_lock(&telemetry_lock);
	if (telemetry_srv != NULL)
		rc = uet_svc_server_stats_get(telemetry_srv, &st);
	pthread_mutex_unlock(&telemetry_lock);
	if (rc < 0)
		return rc;
	rte_tel_data_start_dict(d);
	telemetry_u64(d, "clients", st.clients);
	telemetry_u64(d, "chans", st.chans);
	telemetry_u64(d, "peers", st.peers);
	telemetry_u64(d, "mrs", st.mrs);
	telemetry_u64(d, "jobs", st.jobs);
	telemetry_u64(d, "pids", st.pids);
	telemetry_u64(d, "releasing", st.releasing);
	telemetry_u64(d, "attaches", st.attaches);
	telemetry_u64(d, "detaches", st.detaches);
	telemetry_u64(d, "cleanups", st.cleanups);
	telemetry_u64(d, "refused", st.refused);
	telemetry_u64(d, "requests", st.requests);
	telemetry_u64(d, "errors", st.errors);
	telemetry_u64(d, "bad", st.bad);
	telemetry_u64(d, "denied", st.denied);
	telemetry_u64(d, "policy", st.policy);
	telemetry_u64(d, "quota", st.quota);
	telemetry_u64(d, "timeouts", st.timeouts);
	telemetry_u64(d, "mem_timeouts", st.mem_timeouts);
	telemetry_u64(d, "mem_refused", st.mem_refused);
	telemetry_u64(d, "mem_stuck", st.mem_stuck);
	telemetry_u64(d, "fds_reaped", st.fds_reaped);
	telemetry_u64(d, "fds_held", st.fds_held);
	telemetry_u64(d, "fds_refused", st.fds_refused);
	telemetry_u64(d, "chan_held", st.chan_held);
	telemetry_u64(d, "accept_failed", st.accept_failed);
	return 0;
}

static void
telemetry_attach(struct uet_svc_server *s)
{
	pthread_mutex_lock(&telemetry_lock);
	if (!telemetry_registered) {
		(void)rte_telemetry_register_cmd("/uet/service", telemetry_service,
			"uet-engine service counters. No parameters");
		telemetry_registered = true;
	}
	telemetry_srv = s;
	pthread_mutex_unlock(&telemetry_lock);
}

static void
telemetry_detach(struct uet_svc_server *s)
{
	pthread_mutex_lock(&telemetry_lock);
	if (telemetry_srv == s)
		telemetry_srv = NULL;
	pthread_mutex_unlock(&telemetry_lock);
}

int
uet_svc_server_stats_get(const struct uet_svc_server *s,
			 struct uet_svc_server_stats *st)
{
	if (s == NULL || st == NULL)
		return -EINVAL;
	/* racy reads of single-writer counters, as the engine's */
	memcpy(st, (const void *)&s->st, sizeof(*st));
	if (s->p.cma != NULL) {
		struct uet_cma_async_stats m;

		uet_cma_async_stats_get(s->p.cma, &m);
		st->mem_timeouts = m.timeouts;
		st->mem_refused = m.refused;
		st->mem_stuck = m.stuck;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* clients                                                             */
/* ------------------------------------------------------------------ */

/* Why the service ends a connection, before it closes it: a reply of
 * sequence 0 (no request has it) to @p op, with @p rc. Best effort: a
 * client that does not read is closed all the same. */
static void
notice_send(int fd, unsigned int op, int rc)
{
	struct uet_svc_hdr h;

	uet_svc_hdr_init(&h, op | UET_SVC_OP_REPLY, 0, 0, rc);
	(void)send(fd, &h, sizeof(h), MSG_NOSIGNAL | MSG_DONTWAIT);
}

static struct svc_client *
client_new(const struct uet_svc_server *s, int fd)
{
	struct svc_client *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return NULL;
	c->fd = fd;
	c->memfd = -1;
	c->as_fd = -1;
	c->rx_fd = -1;
	c->chans = calloc(s->p.max_chans, sizeof(*c->chans));
	c->pids = calloc(s->p.max_pids, sizeof(*c->pids));
	c->jobs = calloc(UET_SVC_CLIENT_JOBS_MAX, sizeof(*c->jobs));
	if (c->chans == NULL || c->pids == NULL || c->jobs == NULL) {
		free(c->chans);
		free(c->pids);
		free(c->jobs);
		free(c);
		return NULL;
	}
	return c;
}

/* The last of a client: its uid's count (quotas held until its release
 * ended), its connection if still open, its tables. */
static void
client_free(struct uet_svc_server *s, struct svc_client *c)
{
	bool held = false;

	svc_user_detach(s, c);
	if (c->fd >= 0)
		sock_close(s, c->fd);
	/* a channel whose EP_DEL went unanswered (svc_srv_ops.c
	 * chan_unbind) is the SES's still: its struct stays */
	for (unsigned int i = 0; c->chans != NULL && i < s->p.max_chans; i++)
		held |= c->chans[i].open;
	if (!held)
		free(c->chans);
	free(c->pids);
	free(c->jobs);
	free(c->peers);
	free(c->mrs);
	free(c);
}

/* Tick every millisecond while a release runs or a reply waits for the
 * engine (zombies_poll, waiters_poll). */
static void
release_timer(struct uet_svc_server *s, bool on)
{
	struct itimerspec t = { { 0, 0 }, { 0, 0 } };

	if (on) {
		t.it_interval.tv_nsec = 1000000;
		t.it_value.tv_nsec = 1000000;
	}
	(void)timerfd_settime(s->rtfd, 0, &t, NULL);
}

static void
zombies_poll(struct uet_svc_server *s)
{
	for (unsigned int i = 0; i < s->nb_zombies;) {
		struct svc_client *c = s->zombies[i];

		if (!svc_release_poll(s, c)) {
			i++;
			continue;
		}
		client_free(s, c);
		s->zombies[i] = s->zombies[--s->nb_zombies];
	}
}

/* The client went away (BYE, EOF, hang-up, error): release it all,
 * without holding the control thread. What it held goes one engine
 * request at a time in the background (svc_release.c): a client with
 * operations still on the wire has its EP_DELs wait up to 3 s, which
 * delays nobody else's requests. After a BYE the release is first given
 * SVC_CTL_QUICK_MS to end (what it held is free for the next request,
 * which may well be the same program's next run asking for the same
 * PIDonFEP); a client that died is released in the background only. */
static void
client_drop(struct uet_svc_server *s, unsigned int slot, bool clean)
{
	struct svc_client *c = s->clients[slot];
	uint64_t end = uet_mono_ns() + SVC_CTL_QUICK_MS * 1000000ull;
	bool held = c->hello, bg, done = false;

	(void)epoll_ctl(s->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	sock_close(s, c->fd);
	c->fd = -1;
	s->clients[slot] = NULL;
	if (c->wait.out)
		s->nb_waiting--; /* its release takes the answer first */
	free(c->wait.msg);
	c->wait.msg = NULL;
	SVC_LOG(INFO, "client pid %d uid %u: %s", (int)c->pid,
		(unsigned int)c->uid, clean ? "detached" : "gone, cleaned up");
	/* counted releasing before it stops counting as a client: a
	 * reader never sees it in neither */
	/* room for every departed client: accept_one keeps clients and
	 * zombies under SVC_ZOMBIES_MAX (a synchronous release would hold
	 * the control thread) */
	bg = held && !s->down && s->rtfd >= 0 &&
	     s->nb_zombies < SVC_ZOMBIES_MAX(s);
	if (bg)
		svc_release_start(s, c);
	else
		svc_client_release(s, c);
	s->st.detaches++;
	if (!clean && held)
		s->st.cleanups++;
	s->st.clients--;
	while (bg && !(done = svc_release_poll(s, c)) && clean &&
	       uet_mono_ns() < end)
		usleep(20);
	if (!bg || done) {
		client_free(s, c);
		return;
	}
	s->zombies[s->nb_zombies++] = c;
	release_timer(s, true);
}

/* A connection the service will not serve: why, then close. */
static void
refuse(struct uet_svc_server *s, int fd, int rc, const char *why,
       const struct svc_client *c)
{
	s->st.refused++;
	if (rc == -EDQUOT)
		s->st.quota++;
	if (c != NULL)
		SVC_LOG(WARNING, "connection of pid %d uid %u refused: %s",
			(int)c->pid, (unsigned int)c->uid, why);
	else
		SVC_LOG(WARNING, "connection refused: %s", why);
	notice_send(fd, UET_SVC_OP_HELLO, rc);
}

/* The listener out of the epoll set for UET_SVC_ACCEPT_PAUSE_MS
 * (@p pause), or back in it: a connection accept() cannot take for want
 * of descriptors (EMFILE, ENFILE) or memory stays in the backlog, the
 * listener stays readable, and polling it on would spin the control
 * thread until something else closes. */
static void
accept_pause(struct uet_svc_server *s, bool pause)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };
	struct itimerspec t = { { 0, 0 },
				{ 0, UET_SVC_ACCEPT_PAUSE_MS * 1000000L } };

	if (s->lfd < 0)
		return;
	if (!pause) {
		if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, s->lfd, &ev) == 0)
			return;
		/* the same want of memory: try again after another pause */
		SVC_LOG(WARNING, "listener back in the epoll set: %s",
			strerror(errno));
		s->st.accept_failed++;
	} else if (epoll_ctl(s->epfd, EPOLL_CTL_DEL, s->lfd, NULL) != 0) {
		return;
	}
	(void)timerfd_settime(s->atfd, 0, &t, NULL);
}

static void
accept_one(struct uet_svc_server *s)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct svc_client *c;
	unsigned int slot;
	int fd, rc;

	fd = accept4(s->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0) {
		/* gone before we took it, or taken already: nothing to do */
		if (errno == EAGAIN || errno == EWOULDBLOCK ||
		    errno == ECONNABORTED || errno == EINTR)
			return;
		s->st.accept_failed++;
		SVC_LOG(WARNING, "accept: %s: connections wait %u ms",
			strerror(errno), UET_SVC_ACCEPT_PAUSE_MS);
		accept_pause(s, true);
		return;
	}
	s->st.attaches++;
	for (slot = 0; slot < s->p.max_clients; slot++)
		if (s->clients[slot] == NULL)
			break;
	if (slot == s->p.max_clients || s->down ||
	    s->st.clients + s->nb_zombies >= SVC_ZOMBIES_MAX(s)) {
		refuse(s, fd, -EUSERS, slot == s->p.max_clients ?
		       "max_clients attached" : "too many clients released",
		       NULL);
		sock_close(s, fd);
		return;
	}
	c = client_new(s, fd);
	if (c == NULL) {
		sock_close(s, fd);
		return;
	}
	rc = svc_peer_creds(c);
	if (rc < 0) {
		SVC_LOG(ERR, "SO_PEERCRED: %s", strerror(-rc));
		client_free(s, c);
		return;
	}
	/* the kernel's credentials decide, from here on: the quotas of the
	 * uid and, at JOB_ADD and MR_REG, the JobIDs it may use */
	rc = svc_user_attach(s, c);
	if (rc < 0) {
		refuse(s, fd, rc, "user_clients of its uid attached", c);
		client_free(s, c);
		return;
	}
	c->since_ns = uet_mono_ns();
	/* never 0 (the engine's own), unique for 2^32 - 1 clients */
	if (++s->owner_seq == 0)
		++s->owner_seq;
	c->owner_id = s->owner_seq;
	ev.data.ptr = c;
	if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev) != 0) {
		client_free(s, c);
		return;
	}
	s->clients[slot] = c;
	s->st.clients++;
	SVC_LOG(INFO, "client pid %d uid %u gid %u attached", (int)c->pid,
		(unsigned int)c->uid, (unsigned int)c->gid);
}

/* ------------------------------------------------------------------ */
/* messages                                                            */
/* ------------------------------------------------------------------ */

static int
reply_send(struct svc_client *c, const struct uet_svc_hdr *h,
	   const void *body, const int *fds, unsigned int nb_fds)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * SVC_FDS_MAX)];
		struct cmsghdr align;
	} u;
	struct iovec iov[2] = {
		{ .iov_base = (void *)(uintptr_t)h, .iov_len = sizeof(*h) },
		{ .iov_base = (void *)(uintptr_t)body, .iov_len = h->len },
	};
	struct msghdr m = { .msg_iov = iov, .msg_iovlen = h->len ? 2 : 1 };

	if (nb_fds > 0) {
		struct cmsghdr *cm;

		memset(&u, 0, sizeof(u));
		m.msg_control = u.buf;
		m.msg_controllen = CMSG_SPACE(sizeof(int) * nb_fds);
		cm = CMSG_FIRSTHDR(&m);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int) * nb_fds);
		memcpy(CMSG_DATA(cm), fds, sizeof(int) * nb_fds);
	}
	/* a client that does not read its replies is dropped, never waited
	 * for: the control thread serves every client */
	if (sendmsg(c->fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
		return -errno;
	return 0;
}

/* The descriptors of @p m's SCM_RIGHTS messages into @p fds (room for
 * SVC_SCM_FDS, all a control buffer of ours holds); *@p other (if
 * not NULL) tells whether another kind of control message came too.
 * @return how many. */
static unsigned int
scm_fds(struct msghdr *m, int *fds, bool *other)
{
	bool others = false;
	unsigned int n = 0;

	for (struct cmsghdr *cm = CMSG_FIRSTHDR(m); cm != NULL;
	     cm = CMSG_NXTHDR(m, cm)) {
		size_t k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);

		if (cm->cmsg_level != SOL_SOCKET ||
		    cm->cmsg_type != SCM_RIGHTS) {
			others = true;
			continue;
		}
		for (size_t j = 0; j < k && n < SVC_SCM_FDS; j++)
			memcpy(&fds[n++], CMSG_DATA(cm) + j * sizeof(int),
			       sizeof(int));
	}
	if (other != NULL)
		*other = others;
	return n;
}

/*
 * Descriptors clients passed that nothing took are closed by a thread of
 * their own, never by the control thread: closing one runs code its
 * sender chose (the FLUSH of a FUSE file whose server never answers, a
 * TCP socket lingering on unsent data), which held the control thread,
 * and with it every client and the service's stop, for as long as the
 * sender liked (the security review). The control thread hands them over
 * a pipe; one the pipe cannot take (the reaper held up, 16 k queued)
 * stays open, counted in fds_held, rather than be closed here. Clients'
 * own connections go the same way (sock_close), as what is queued in
 * them closes with them; the reaper closes sockets without lingering
 * and empties AF_UNIX ones first (reap_one), so that none of this holds
 * it either.
 */
/* Descriptors the reaper still has to close: those read from its pipe
 * and those found queued in the AF_UNIX sockets among them, at any
 * depth (the kernel bounds what a user has in flight). */
struct reap_list {
	int *fd;
	size_t n, cap;
};

/* Keep @p fd for later; false when there is no room (then the caller
 * closes it at once, lingering or not). */
static bool
reap_push(struct reap_list *l, int fd)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		int *fds = realloc(l->fd, cap * sizeof(*fds));

		if (fds == NULL)
			return false;
		l->fd = fds;
		l->cap = cap;
	}
	l->fd[l->n++] = fd;
	return true;
}

/* The descriptors queued in AF_UNIX socket @p fd go to @p l; nothing more
 * arrives once it is shut down. Bounded: what is left (more than
 * SVC_REAP_MSGS messages) goes with the socket's close. */
static void
reap_drain(struct reap_list *l, int fd)
{
	int inner[SVC_SCM_FDS];
	char data[4096];
	union {
		char buf[CMSG_SPACE(sizeof(int) * SVC_SCM_FDS)];
		struct cmsghdr align;
	} u;

	(void)shutdown(fd, SHUT_RDWR);
	for (unsigned int i = 0; i < SVC_REAP_MSGS; i++) {
		struct iovec iov = { .iov_base = data,
				     .iov_len = sizeof(data) };
		struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
				    .msg_control = u.buf,
				    .msg_controllen = sizeof(u.buf) };
		ssize_t n = recvmsg(fd, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		unsigned int k;

		if (n < 0 || (n == 0 && m.msg_controllen == 0))
			break;
		k = scm_fds(&m, inner, NULL);
		for (unsigned int j = 0; j < k; j++)
			if (!reap_push(l, inner[j]))
				close(inner[j]);
	}
}

/*
 * Close @p fd and what is queued in it. A socket closes without
 * lingering (SO_LINGER 0: a reset, no wait for unsent data), and an
 * AF_UNIX one first gives up the descriptors queued in it, each closed
 * the same way: the last close of a socket in flight would run the
 * lingering close of what is queued in it. getsockopt() asks no file
 * system (fstat() of a FUSE file may wait for its server).
 */
static void
reap_one(struct reap_list *l, int fd)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };

	if (!reap_push(l, fd)) {
		close(fd);
		return;
	}
	while (l->n > 0) {
		socklen_t len = sizeof(int);
		int dom;

		fd = l->fd[--l->n];
		if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &dom, &len) == 0) {
			(void)setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg,
					 sizeof(lg));
			if (dom == AF_UNIX)
				reap_drain(l, fd);
		}
		close(fd);
	}
}

static void *
reaper_run(void *arg)
{
	struct reap_list l = { .fd = NULL };
	int r = (int)(intptr_t)arg, fd;

	while (read(r, &fd, sizeof(fd)) == (ssize_t)sizeof(fd))
		reap_one(&l, fd);
	free(l.fd);
	close(r);
	return NULL;
}

static int
reaper_make(struct uet_svc_server *s)
{
	pthread_attr_t a;
	pthread_t t;
	int p[2], rc;

	if (pipe2(p, O_CLOEXEC) != 0)
		return -errno;
	(void)fcntl(p[1], F_SETFL, O_NONBLOCK);
	rc = -pthread_attr_init(&a);
	if (rc == 0)
		rc = -pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	if (rc == 0)
		rc = -pthread_create(&t, &a, reaper_run, (void *)(intptr_t)p[0]);
	(void)pthread_attr_destroy(&a);
	if (rc < 0) {
		close(p[0]);
		close(p[1]);
		return rc;
	}
	s->reap_w = p[1];
	return 0;
}

static void
fds_reap(struct uet_svc_server *s, int fd)
{
	if (write(s->reap_w, &fd, sizeof(fd)) == (ssize_t)sizeof(fd)) {
		s->st.fds_reaped++;
		return;
	}
	s->st.fds_held++;
}

/* A client's connection: shut down here (its peer sees the end at once),
 * closed by the reaper with what is queued in it. */
static void
sock_close(struct uet_svc_server *s, int fd)
{
	(void)shutdown(fd, SHUT_RDWR);
	if (s->reap_w >= 0)
		fds_reap(s, fd);
	else
		close(fd);
}

/* Descriptors a client passed us: the first is kept for the request
 * (HELLO's /proc/self/mem: c->rx_fd, c->nb_rx_fd counts them all), the
 * others go to the reaper. @return false when the control data was not
 * SCM_RIGHTS only. */
static bool
fds_take(struct uet_svc_server *s, struct svc_client *c, struct msghdr *m)
{
	int fds[SVC_SCM_FDS];
	bool other;

	c->nb_rx_fd = scm_fds(m, fds, &other);
	c->rx_fd = c->nb_rx_fd > 0 ? fds[0] : -1;
	for (unsigned int i = 1; i < c->nb_rx_fd; i++)
		fds_reap(s, fds[i]);
	return !other;
}

/* What the request's handler did not take. */
static void
fds_drop(struct uet_svc_server *s, struct svc_client *c)
{
	if (c->rx_fd >= 0)
		fds_reap(s, c->rx_fd);
	c->rx_fd = -1;
	c->nb_rx_fd = 0;
}

static void
count_rc(struct uet_svc_server *s, int rc)
{
	if (rc == 0)
		return;
	s->st.errors++;
	if (rc == -EINVAL || rc == -EPROTO)
		s->st.bad++;
	else if (rc == -EPERM)
		s->st.denied++;
	else if (rc == -EACCES)
		s->st.policy++;
	else if (rc == -EDQUOT)
		s->st.quota++;
}

/* The client's socket out of the epoll set while it waits (svc_wait),
 * or back in it. @return false when it cannot go back (drop it). */
static bool
wait_set(struct uet_svc_server *s, struct svc_client *c, bool waits)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = c };

	if (waits == c->wait.out)
		return true;
	c->wait.out = waits;
	if (!waits) {
		s->nb_waiting--;
		return epoll_ctl(s->epfd, EPOLL_CTL_ADD, c->fd, &ev) == 0;
	}
	(void)epoll_ctl(s->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	s->nb_waiting++;
	release_timer(s, true);
	return true;
}

/*
 * Run request @p op (sequence @p seq, its body after the header @p h)
 * of client @p slot, unless @p rc already refused it, and reply; a
 * request whose reply waits for the engine (SVC_DEFERRED) leaves the
 * client waiting. @p fds_in: descriptors the message carried.
 * @return false when the client must go (*bye: it said BYE).
 */
static bool
request_serve(struct uet_svc_server *s, unsigned int slot, unsigned int op,
	      const struct uet_svc_hdr *h, int rc, unsigned int fds_in,
	      bool *bye)
{
	struct svc_client *c = s->clients[slot];
	uint64_t out[UET_SVC_MSG_MAX / 8];
	int fds[SVC_FDS_MAX];
	unsigned int nb_fds = 0;
	uint32_t rep_len = 0, seq = h != NULL ? h->seq : 0;
	struct uet_svc_hdr rh;

	if (rc == 0)
		rc = svc_op(s, c, op, h + 1, out, &rep_len, fds, &nb_fds);
	fds_drop(s, c);
	/* the idle clock restarts with each request once attached; before
	 * HELLO nothing postpones the deadline (requests are -EPROTO) */
	if (c->hello)
		c->since_ns = uet_mono_ns();
	if (rc == SVC_DEFERRED) {
		/* the reply waits for the engine (waiters_poll) */
		c->wait.seq = seq;
		return wait_set(s, c, true);
	}
	count_rc(s, rc);
	if (rc < 0) {
		rep_len = 0;
		nb_fds = 0;
	}
	uet_svc_hdr_init(&rh, (op & 0x7FFFu) | UET_SVC_OP_REPLY, rep_len, seq,
			 rc);
	if (reply_send(c, &rh, out, fds, nb_fds) < 0)
		return false;
	if (fds_in > (op == UET_SVC_OP_HELLO ? 1u : 0u)) {
		s->st.fds_refused++;
		return false;
	}
	*bye = rc == 0 && op == UET_SVC_OP_BYE;
	return !*bye;
}

/* One message of client @p slot. @return false when it must go. */
static bool
request_one(struct uet_svc_server *s, unsigned int slot, bool *bye)
{
	struct svc_client *c = s->clients[slot];
	uint64_t in[UET_SVC_MSG_MAX / 8 + 1];
	union {
		char buf[CMSG_SPACE(sizeof(int) * SVC_SCM_FDS)];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = in, .iov_len = sizeof(in) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = u.buf,
			    .msg_controllen = sizeof(u.buf) };
	const struct uet_svc_hdr *h = (const struct uet_svc_hdr *)in;
	unsigned int op = 0, fds_in, held = UINT_MAX;
	bool fds_ok;
	ssize_t n;
	int rc;

	n = recvmsg(c->fd, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (n == 0)
		return false;
	if (n < 0)
		return errno == EAGAIN || errno == EINTR;
	s->st.requests++;
	if ((size_t)n >= sizeof(*h))
		op = h->op & ~UET_SVC_OP_REPLY;
	/* only a HELLO may carry a descriptor, one (svc_op checks); a
	 * client that sends others is answered, then dropped: one message
	 * of descriptors per connection reaches the reaper, not a stream
	 * of them that would fill the root process's table (fds_held) */
	fds_ok = fds_take(s, c, &m);
	fds_in = c->nb_rx_fd;
	if (!fds_ok || (m.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) ||
	    (size_t)n > UET_SVC_MSG_MAX)
		rc = -EINVAL;
	else
		rc = uet_svc_hdr_check(h, (size_t)n, false);
	if (rc == -ENOSYS)
		rc = -EINVAL;
	/* a request that must wait is kept, run later (waiters_poll) */
	if (rc == 0 && fds_in == 0 && c->hello &&
	    svc_op_waits(s, c, op, h + 1, &held)) {
		c->wait.msg = malloc((size_t)n);
		if (c->wait.msg == NULL)
			return request_serve(s, slot, op, h, -ENOMEM, 0, bye);
		memcpy(c->wait.msg, in, (size_t)n);
		c->wait.req = op;
		c->wait.ticket = s->tickets++;
		return wait_set(s, c, true);
	}
	return request_serve(s, slot, op, (size_t)n >= sizeof(*h) ? h : NULL,
			     rc, fds_in, bye);
}

/* The request kept longest (svc_wait.msg) that need not wait any more,
 * or -1. */
static int
kept_next(struct uet_svc_server *s)
{
	unsigned int held = UINT_MAX; /* filled once, if needed */
	int best = -1;

	for (unsigned int i = 0; i < s->p.max_clients; i++) {
		struct svc_client *c = s->clients[i];

		if (c == NULL || c->wait.msg == NULL ||
		    (best >= 0 &&
		     c->wait.ticket > s->clients[best]->wait.ticket) ||
		    svc_op_waits(s, c, c->wait.req,
				 (const struct uet_svc_hdr *)c->wait.msg + 1,
				 &held))
			continue;
		best = (int)i;
	}
	return best;
}

/* Clients that wait (svc_wait): a reply that waited for the engine, sent
 * once it answered; then the requests kept, in their order of arrival,
 * each once it need not wait (a few a tick: each may make its context
 * busy again). */
static void
waiters_poll(struct uet_svc_server *s)
{
	int i;

	for (unsigned int k = 0; s->nb_waiting != 0 && k < s->p.max_clients;
	     k++) {
		struct svc_client *c = s->clients[k];
		struct uet_svc_hdr rh;
		int rc;

		if (c == NULL || c->wait.op == NULL || !svc_wait_poll(s, c, &rc))
			continue;
		count_rc(s, rc);
		uet_svc_hdr_init(&rh, c->wait.req | UET_SVC_OP_REPLY, 0,
				 c->wait.seq, rc);
		if (reply_send(c, &rh, NULL, NULL, 0) < 0 ||
		    !wait_set(s, c, false))
			client_drop(s, k, false);
	}
	for (unsigned int runs = 0; runs < SVC_KEPT_RUNS && s->nb_waiting != 0 &&
	     (i = kept_next(s)) >= 0; runs++) {
		struct svc_client *c = s->clients[i];
		void *msg = c->wait.msg;
		bool bye = false, keep;

		c->wait.msg = NULL;
		keep = request_serve(s, (unsigned int)i, c->wait.req, msg, 0, 0,
				     &bye);
		free(msg);
		if (keep && c->wait.op == NULL)
			keep = wait_set(s, c, false);
		if (!keep)
			client_drop(s, (unsigned int)i, bye);
	}
}

static void
client_event(struct uet_svc_server *s, struct svc_client *c, uint32_t ev)
{
	unsigned int slot;
	bool bye = false, keep = true;

	for (slot = 0; slot < s->p.max_clients; slot++)
		if (s->clients[slot] == c)
			break;
	if (slot == s->p.max_clients)
		return;
	/* requests are synchronous: one per readable event is enough, and
	 * a hang-up after the last one is seen on the next wait */
	if (ev & EPOLLIN)
		keep = request_one(s, slot, &bye);
	else if (ev & (EPOLLHUP | EPOLLERR))
		keep = false;
	if (!keep)
		client_drop(s, slot, bye);
}

/* HELLO deadline and idle timeout: connections that hold nothing and
 * say nothing do not keep a client slot (and their uid's quota). */
static void
deadlines(struct uet_svc_server *s)
{
	uint64_t now = uet_mono_ns(), hello = s->p.hello_timeout_ms * 1000000ull,
		 idle = s->p.idle_timeout_ms * 1000000ull, ticks;

	if (read(s->tfd, &ticks, sizeof(ticks)) < 0)
		return;
	for (unsigned int i = 0; i < s->p.max_clients; i++) {
		struct svc_client *c = s->clients[i];
		uint64_t age;

		/* one that waits for its reply is not idle */
		if (c == NULL || c->wait.out)
			continue;
		age = now - c->since_ns;
		if (!c->hello && hello != 0 && age >= hello) {
			SVC_LOG(WARNING, "client pid %d uid %u: no HELLO "
				"within %u ms, closed", (int)c->pid,
				(unsigned int)c->uid, s->p.hello_timeout_ms);
			notice_send(c->fd, UET_SVC_OP_HELLO, -ETIMEDOUT);
		} else if (c->hello && c->nb_pids == 0 && idle != 0 &&
			   age >= idle) {
			SVC_LOG(WARNING, "client pid %d uid %u: idle for %u "
				"ms holding no PIDonFEP, closed", (int)c->pid,
				(unsigned int)c->uid, s->p.idle_timeout_ms);
			notice_send(c->fd, UET_SVC_OP_BYE, -ETIMEDOUT);
		} else {
			continue;
		}
		s->st.timeouts++;
		client_drop(s, i, false);
	}
}

int
uet_svc_server_run(struct uet_svc_server *s, int timeout_ms)
{
	struct epoll_event ev[SVC_EVENTS];
	int n;

	if (s == NULL)
		return -EINVAL;
	n = epoll_wait(s->epfd, ev, SVC_EVENTS, timeout_ms);
	if (n < 0)
		return -errno;
	for (int i = 0; i < n; i++) {
		if (ev[i].data.ptr == NULL) {
			if (s->lfd >= 0)
				accept_one(s);
			continue;
		}
		if (ev[i].data.ptr == &s->tfd) {
			deadlines(s);
			continue;
		}
		if (ev[i].data.ptr == &s->rtfd) {
			uint64_t ticks;

			(void)!read(s->rtfd, &ticks, sizeof(ticks));
			zombies_poll(s);
			waiters_poll(s);
			if (s->nb_zombies == 0 && s->nb_waiting == 0)
				release_timer(s, false);
			continue;
		}
		if (ev[i].data.ptr == &s->atfd) {
			uint64_t ticks;

			(void)!read(s->atfd, &ticks, sizeof(ticks));
			accept_pause(s, false);
			continue;
		}
		client_event(s, ev[i].data.ptr, ev[i].events);
	}
	return n;
}

int
uet_svc_server_fd(const struct uet_svc_server *s)
{
	return s == NULL ? -EINVAL : s->epfd;
}

/* ------------------------------------------------------------------ */
/* creation                                                            */
/* ------------------------------------------------------------------ */

static int
params_check(const struct uet_svc_server_params *p)
{
	if (p->engine == NULL || p->socket_path == NULL ||
	    strlen(p->socket_path) == 0 ||
	    strlen(p->socket_path) >= sizeof(((struct sockaddr_un *)0)->sun_path) ||
	    p->window_size == 0 || p->window_size % UET_SVC_PAGE != 0 ||
	    p->max_clients == 0 || p->max_clients > 1024 ||
	    p->max_chans == 0 || p->max_chans > UET_SVC_CHANS_MAX ||
	    p->max_pids == 0 || p->jobs.nb == 0 ||
	    p->jobs.nb > UET_CHAN_JOB_RANGES_MAX || p->socket_mode > 0777 ||
	    (p->nb_acl != 0 && p->acl == NULL))
		return -EINVAL;
	for (unsigned int i = 0; i < p->nb_acl; i++)
		if (p->acl[i].first > p->acl[i].last ||
		    p->acl[i].nb > UET_SVC_ACL_MEMBERS_MAX)
			return -EINVAL;
	if (uet_engine_nb_lcores(p->engine) > UET_SVC_CTX_MAX)
		return -EINVAL;
	for (unsigned int i = 0; i < p->jobs.nb; i++)
		if (p->jobs.r[i].first > p->jobs.r[i].last ||
		    p->jobs.r[i].last > 0xFFFFFFu)
			return -EINVAL;
	return 0;
}

/* The service page: a memfd the service maps read-write, the contexts'
 * wakers in it; clients get a read-only reopen (they can map it
 * PROT_READ only). Sealed against future writes once the service holds
 * its mapping: a client reopening its descriptor read-write through
 * /proc/self/fd/N can then neither write() it nor map it writable. */
static int
page_make(struct uet_svc_server *s)
{
	char path[64];
	int rc;

	s->page_fd = memfd_create("uet-svc-page", MFD_CLOEXEC |
				  MFD_ALLOW_SEALING);
	if (s->page_fd < 0)
		return -errno;
	if (ftruncate(s->page_fd, UET_SVC_PAGE) != 0 ||
	    fcntl(s->page_fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) != 0)
		return -errno;
	s->page = mmap(NULL, UET_SVC_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED,
		       s->page_fd, 0);
	if (s->page == MAP_FAILED) {
		s->page = NULL;
		return -errno;
	}
	if (fcntl(s->page_fd, F_ADD_SEALS, F_SEAL_FUTURE_WRITE |
					   F_SEAL_SEAL) != 0)
		return -errno;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", s->page_fd);
	s->page_ro = open(path, O_RDONLY | O_CLOEXEC);
	if (s->page_ro < 0)
		return -errno;
	s->page->magic = UET_SVC_PAGE_MAGIC;
	s->page->version = UET_SVC_VERSION;
	s->page->nb_ctx = s->nb_ctx;
	rc = uet_engine_wakers_place(s->p.engine, &s->page->ctx[0].w,
				     sizeof(s->page->ctx[0]));
	return rc;
}

/* A timer in the epoll set, disarmed, its event pointing at *@p fd:
 * the release timer (zombies_poll) and the listener's pause
 * (accept_pause). */
static int
timer_add(struct uet_svc_server *s, int *fd)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = fd };

	*fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (*fd < 0 || epoll_ctl(s->epfd, EPOLL_CTL_ADD, *fd, &ev) != 0)
		return -errno;
	return 0;
}

/* A socket file left by a service that died is replaced; one that
 * answers is somebody's: -EADDRINUSE; any other file: -EEXIST. */
static int
listen_make(struct uet_svc_server *s)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };
	struct stat st;
	int fd, probe, rc;

	rc = svc_sock_dir_check(s->path);
	if (rc < 0)
		return rc;
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", s->path);
	probe = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (probe < 0)
		return -errno;
	if (connect(probe, (struct sockaddr *)&a, sizeof(a)) == 0) {
		close(probe);
		return -EADDRINUSE;
	}
	close(probe);
	/* only a socket is replaced, never another kind of file */
	if (lstat(s->path, &st) == 0 && !S_ISSOCK(st.st_mode))
		return -EEXIST;
	if (unlink(s->path) != 0 && errno != ENOENT)
		return -errno;
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    0);
	if (fd < 0)
		return -errno;
	/* mode and group before listen(): nobody connects before they hold */
	rc = bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 ? -errno :
	     svc_sock_perms(s);
	if (rc == 0 && (listen(fd, 64) != 0 ||
			epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev) != 0))
		rc = -errno;
	if (rc < 0) {
		close(fd);
		(void)unlink(s->path);
		return rc;
	}
	s->lfd = fd;
	return 0;
}

static int
efds_make(struct uet_svc_server *s)
{
	s->efd_own = !s->wake;
	for (unsigned int i = 0; i < s->nb_ctx; i++) {
		s->efd[i] = s->wake ? uet_engine_wake_fd(s->p.engine, i) :
			    eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (s->efd[i] < 0)
			return s->wake ? s->efd[i] : -errno;
	}
	return 0;
}

/* The deadlines' clock: a tick at half the shortest timeout (10 ms to
 * 1 s), only when there is one. */
static int
timer_make(struct uet_svc_server *s)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &s->tfd };
	uint32_t ms = UINT32_MAX;
	struct itimerspec its;

	if (s->p.hello_timeout_ms != 0)
		ms = s->p.hello_timeout_ms;
	if (s->p.idle_timeout_ms != 0)
		ms = RTE_MIN(ms, s->p.idle_timeout_ms);
	if (ms == UINT32_MAX)
		return 0;
	ms = RTE_MIN(ms / 2, 1000u);
	ms = RTE_MAX(ms, 10u);
	s->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (s->tfd < 0)
		return -errno;
	its.it_interval.tv_sec = ms / 1000;
	its.it_interval.tv_nsec = (long)(ms % 1000) * 1000000L;
	its.it_value = its.it_interval;
	if (timerfd_settime(s->tfd, 0, &its, NULL) != 0 ||
	    epoll_ctl(s->epfd, EPOLL_CTL_ADD, s->tfd, &ev) != 0)
		return -errno;
	return 0;
}

static void
layout(struct uet_svc_server *s)
{
	size_t ring = uet_chan_mem_size(UET_SVC_RING_MAX, UET_SVC_RING_MAX,
					UET_SVC_RING_MAX, NULL);

	s->rings_off = UET_SVC_PAGE;
	s->slot_size = RTE_ALIGN_CEIL(ring, (size_t)UET_SVC_PAGE);
	s->window_off = s->rings_off + s->slot_size * s->p.max_chans;
	s->region_size = s->window_off + s->p.window_size;
}

struct uet_svc_server *
uet_svc_server_create(const struct uet_svc_server_params *p, int *err)
{
	struct uet_svc_server *s;
	int rc = p == NULL ? -EINVAL : params_check(p);

	if (rc < 0)
		goto out;
	rc = -ENOMEM;
	s = calloc(1, sizeof(*s));
	if (s == NULL)
		goto out;
	s->p = *p;
	snprintf(s->path, sizeof(s->path), "%s", p->socket_path);
	s->lfd = s->epfd = s->page_fd = s->page_ro = s->tfd = s->rtfd =
		s->atfd = -1;
	s->reap_w = -1;
	s->euid = geteuid();
	for (unsigned int i = 0; i < UET_SVC_CTX_MAX; i++)
		s->efd[i] = -1;
	s->nb_ctx = uet_engine_nb_lcores(p->engine);
	s->wake = uet_engine_wake_fd(p->engine, 0) >= 0;
	s->nb_client_pids = s->nb_ctx * UET_SVC_PIDS_PER_CTX;
	layout(s);
	s->clients = calloc(p->max_clients, sizeof(*s->clients));
	s->zombies = calloc(SVC_ZOMBIES_MAX(s), sizeof(*s->zombies));
	s->touch = calloc(p->max_clients + SVC_ZOMBIES_MAX(s),
			  sizeof(*s->touch));
	s->pid_owner = calloc(s->nb_client_pids, sizeof(*s->pid_owner));
	/* one entry per uid of a client attached or still being released */
	s->users = calloc(2 * (size_t)p->max_clients, sizeof(*s->users));
	s->acl = calloc(RTE_MAX(p->nb_acl, 1u), sizeof(*s->acl));
	if (s->clients == NULL || s->zombies == NULL || s->touch == NULL ||
	    s->pid_owner == NULL || s->users == NULL || s->acl == NULL)
		goto fail;
	if (p->nb_acl != 0)
		memcpy(s->acl, p->acl, p->nb_acl * sizeof(*s->acl));
	rc = (unsigned int)p->pid_base + s->nb_ctx + s->nb_client_pids > 0x1000 ?
	     -EINVAL : 0;
	if (rc < 0)
		goto fail;
	rc = efds_make(s);
	if (rc == 0)
		rc = reaper_make(s);
	if (rc < 0)
		goto fail;
	s->epfd = epoll_create1(EPOLL_CLOEXEC);
	rc = s->epfd < 0 ? -errno : page_make(s);
	if (rc == 0)
		rc = timer_make(s);
	if (rc < 0)
		goto fail;
	rc = timer_add(s, &s->rtfd);
	if (rc == 0)
		rc = timer_add(s, &s->atfd);
	if (rc < 0)
		goto fail;
	rc = listen_make(s);
	if (rc < 0)
		goto fail;
	telemetry_attach(s);
	SVC_LOG(INFO, "listening on %s: %u contexts, window %zu bytes, "
		"%u clients x %u channels", s->path, s->nb_ctx,
		(size_t)p->window_size, p->max_clients, p->max_chans);
	if (err != NULL)
		*err = 0;
	return s;

fail:
	s->down = true;
	uet_svc_server_free(s);
out:
	if (err != NULL)
		*err = rc;
	return NULL;
}

void
uet_svc_server_shutdown(struct uet_svc_server *s)
{
	if (s == NULL)
		return;
	if (s->lfd >= 0) {
		(void)epoll_ctl(s->epfd, EPOLL_CTL_DEL, s->lfd, NULL);
		close(s->lfd);
		s->lfd = -1;
		(void)unlink(s->path);
	}
	s->down = true;
	for (unsigned int i = 0; s->clients != NULL && i < s->p.max_clients;
	     i++)
		if (s->clients[i] != NULL)
			client_drop(s, i, false);
	/* releases under way finish before the engine may stop: their
	 * requests are answered within the SES's bounds (bounded here) */
	for (unsigned int ms = 0; s->nb_zombies != 0 && ms < 70000; ms++) {
		zombies_poll(s);
		if (s->nb_zombies != 0)
			usleep(1000);
	}
	if (s->nb_zombies != 0)
		SVC_LOG(ERR, "%u client release(s) unfinished at shutdown",
			s->nb_zombies);
}

void
uet_svc_server_free(struct uet_svc_server *s)
{
	if (s == NULL)
		return;
	telemetry_detach(s);
	uet_svc_server_shutdown(s);
	if (s->epfd >= 0)
		close(s->epfd);
	/* the engine's wakers go back to its own memory before the page
	 * goes; with the engine still running they cannot: the page stays
	 * mapped (4 KiB) rather than pulled from under its lcores */
	if (s->page != NULL &&
	    uet_engine_wakers_place(s->p.engine, NULL, 0) == 0)
		(void)munmap(s->page, UET_SVC_PAGE);
	else if (s->page != NULL)
		SVC_LOG(WARNING, "engine running: service page left mapped");
	if (s->page_ro >= 0)
		close(s->page_ro);
	for (unsigned int i = 0; s->efd_own && i < s->nb_ctx; i++)
		if (s->efd[i] >= 0)
			close(s->efd[i]);
	if (s->page_fd >= 0)
		close(s->page_fd);
	if (s->tfd >= 0)
		close(s->tfd);
	if (s->rtfd >= 0)
		close(s->rtfd);
	if (s->atfd >= 0)
		close(s->atfd);
	/* the reaper ends once it closed what it was given */
	if (s->reap_w >= 0)
		close(s->reap_w);
	free(s->clients);
	free(s->zombies);
	free(s->touch);
	free(s->pid_owner);
	free(s->users);
	free(s->owners);
	free(s->acl);
	free(s);
}
