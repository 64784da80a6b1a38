/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Raw client of the uet-engine service (svc_rawcli.h), for the server's
 * tests. Every wait is bounded.
 */

#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rte_common.h>

#include "svc_rawcli.h"

/* longer than a provider's UET_SVC_TIMEOUT_MS: the sanitizer build on a
 * loaded machine answers slowly, and a test has its own bound */
#define RC_REPLY_MS 30000
#define RC_CQ_POLLS 50000u

int failures;

static void
nap_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	(void)nanosleep(&ts, NULL);
}

/* ------------------------------------------------------------------ */
/* the service process                                                 */
/* ------------------------------------------------------------------ */

static int telemetry_once(const struct rc_service *s, const char *cmd,
		    const char *key, uint64_t *v);

/* The probe connection of rc_service_start() was accepted and is gone
 * (its hang-up handled): counts and fds read now are the idle service's.
 * "clients" alone is 0 also before the service accepted the probe, and
 * "attaches" counts the probe before "clients" does (telemetry reads them
 * from another thread), so either could let the probe's count land in
 * the test's first reading: wait for the probe's detach. At most 10 s. */
static int
service_idle(const struct rc_service *s)
{
	uint64_t n = UINT64_MAX, det = 0;

	for (unsigned int i = 0; i < 1000; i++) {
		if (telemetry_once(s, "/uet/service", "detaches", &det) == 0 &&
		    det >= 1 &&
		    telemetry_once(s, "/uet/service", "clients", &n) == 0 && n == 0)
			return 0;
		nap_ms(10);
	}
	return -ETIMEDOUT;
}

int
rc_service_start(struct rc_service *s, const char *engine_bin,
		 const char *tag, const char *engine, const char *service)
{
	FILE *f;
	int me = (int)getpid();

	snprintf(s->dir, sizeof(s->dir), "/tmp/uet-svct-%s-XXXXXX", tag);
	if (mkdtemp(s->dir) == NULL || chmod(s->dir, 0755) != 0)
		return -errno;
	snprintf(s->sock, sizeof(s->sock), "%s/svc.sock", s->dir);
	snprintf(s->prefix, sizeof(s->prefix), "svct%s%d", tag, me);
	snprintf(s->conf, sizeof(s->conf), "%s/svc.conf", s->dir);
	f = fopen(s->conf, "w");
	if (f == NULL)
		return -errno;
	/* a net_ring vdev is a loopback port (one ring for RX and TX): a
	 * frame to the service's own FA comes back to it */
	fprintf(f,
		"[eal]\n"
		"args = -l 0-1 --no-huge -m 512 --no-pci --file-prefix=%s "
		"--log-level=5\n"
		"[port0]\n"
		"devargs = net_ring0\n"
		"ipv4 = 10.0.0.1\n"
		"mac = 02:00:00:00:00:01\n"
		"[engine]\n"
		"lcores = 1\n"
		"%s"
		"[neighbor]\n"
		"10.0.0.1 = 02:00:00:00:00:01\n"
		"[service]\n"
		"socket = %s\n"
		"jobs = 1-10,77\n"
		"%s",
		s->prefix, engine != NULL ? engine : "", s->sock,
		service != NULL ? service : "");
	fclose(f);
	s->pid = fork();
	if (s->pid < 0)
		return -errno;
	if (s->pid == 0) {
		/* a test that dies takes its service with it (SIGTERM: the
		 * service still removes its socket and runtime files) */
		(void)prctl(PR_SET_PDEATHSIG, SIGTERM);
		execl(engine_bin, engine_bin, "-c", s->conf, (char *)NULL);
		_exit(127);
	}
	/* the socket answers once the engine runs: at most 60 s (a loaded
	 * machine), in 10 ms steps */
	for (unsigned int i = 0; i < 6000; i++) {
		struct rc_client c;
		int st;

		if (rc_connect(&c, s->sock) == 0) {
			rc_close(&c);
			return service_idle(s);
		}
		if (waitpid(s->pid, &st, WNOHANG) == s->pid) {
			s->pid = -1;
			(void)unlink(s->conf);
			(void)rmdir(s->dir);
			return -ECHILD;
		}
		nap_ms(10);
	}
	return -ETIMEDOUT;
}

int
rc_service_stop(struct rc_service *s)
{
	int st;

	if (s->pid <= 0)
		return -1;
	(void)kill(s->pid, SIGTERM);
	/* bounded: 60 s, then SIGKILL */
	for (unsigned int i = 0; i < 6000; i++) {
		if (waitpid(s->pid, &st, WNOHANG) == s->pid) {
			s->pid = -1;
			(void)unlink(s->conf);
			(void)rmdir(s->dir);
			if (WIFEXITED(st))
				return WEXITSTATUS(st);
			return 128 + WTERMSIG(st);
		}
		nap_ms(10);
	}
	(void)kill(s->pid, SIGKILL);
	(void)waitpid(s->pid, &st, 0);
	s->pid = -1;
	(void)unlink(s->conf);
	(void)unlink(s->sock);
	(void)rmdir(s->dir);
	return -1;
}

/* DPDK telemetry (v2 socket of the EAL's runtime directory): one JSON
 * object per command; a number is found after its "key": */
static int
telemetry_once(const struct rc_service *s, const char *cmd, const char *key,
	 uint64_t *v)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	char buf[16384], pat[80];
	const char *p;
	ssize_t n;
	int fd, rc = -EIO;

	snprintf(a.sun_path, sizeof(a.sun_path),
		 "/var/run/dpdk/%s/dpdk_telemetry.v2", s->prefix);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0)
		goto out;
	n = read(fd, buf, sizeof(buf) - 1); /* the greeting */
	/* a connection the telemetry server refused is closed at once: no
	 * SIGPIPE for writing to it */
	if (n <= 0 || send(fd, cmd, strlen(cmd), MSG_NOSIGNAL) < 0)
		goto out;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n <= 0)
		goto out;
	buf[n] = '\0';
	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(buf, pat);
	if (p == NULL) {
		rc = -ENOENT;
		goto out;
	}
	*v = strtoull(p + strlen(pat), NULL, 10);
	rc = 0;
out:
	close(fd);
	return rc;
}

/* DPDK's telemetry serves a few connections at once, each on a thread
 * that goes away a little after the client: a refused or cut read is
 * tried again (at most 200 times, 10 ms apart). */
int
rc_tel(const struct rc_service *s, const char *cmd, const char *key,
       uint64_t *v)
{
	int rc = -EIO;

	for (unsigned int i = 0; i < 200; i++) {
		rc = telemetry_once(s, cmd, key, v);
		if (rc == 0)
			return 0;
		nap_ms(10);
	}
	return rc;
}

int
rc_proc_fds(pid_t pid)
{
	char path[64];
	struct dirent *de;
	DIR *d;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	d = opendir(path);
	if (d == NULL)
		return -errno;
	while ((de = readdir(d)) != NULL)
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

long
rc_proc_rss_kib(pid_t pid)
{
	char path[64], line[256];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "VmRSS: %ld kB", &v) == 1)
			break;
	fclose(f);
	return v;
}

/* ------------------------------------------------------------------ */
/* messages                                                            */
/* ------------------------------------------------------------------ */

int
rc_connect(struct rc_client *c, const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };

	memset(c, 0, sizeof(*c));
	c->memfd = c->pagefd = -1;
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	c->fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (c->fd < 0)
		return -errno;
	if (connect(c->fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
		int err = -errno;

		close(c->fd);
		c->fd = -1;
		return err;
	}
	return 0;
}

void
rc_close(struct rc_client *c)
{
	if (c->region != NULL)
		(void)munmap(c->region, c->hello.region_size);
	if (c->page != NULL)
		(void)munmap((void *)(uintptr_t)c->page, c->hello.page_size);
	if (c->memfd >= 0)
		close(c->memfd);
	if (c->pagefd >= 0)
		close(c->pagefd);
	for (unsigned int i = 0; i < c->nb_efd; i++)
		close(c->efd[i]);
	if (c->fd >= 0)
		close(c->fd);
	memset(c, 0, sizeof(*c));
	c->fd = c->memfd = c->pagefd = -1;
}

int
rc_send_fds(struct rc_client *c, const void *buf, size_t len, const int *fds,
	    unsigned int nb_fds)
{
	union {
		char b[CMSG_SPACE(sizeof(int) * RC_SEND_FDS_MAX)];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = (void *)(uintptr_t)buf,
			     .iov_len = len };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (nb_fds > RC_SEND_FDS_MAX)
		return -EINVAL;
	if (nb_fds > 0) {
		struct cmsghdr *cm;

		memset(&u, 0, sizeof(u));
		m.msg_control = u.b;
		m.msg_controllen = CMSG_SPACE(sizeof(int) * nb_fds);
		cm = CMSG_FIRSTHDR(&m);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int) * nb_fds);
		memcpy(CMSG_DATA(cm), fds, sizeof(int) * nb_fds);
	}
	return sendmsg(c->fd, &m, MSG_NOSIGNAL) < 0 ? -errno : 0;
}

int
rc_send_raw(struct rc_client *c, const void *buf, size_t len, int fd)
{
	return rc_send_fds(c, buf, len, &fd, fd >= 0 ? 1 : 0);
}

int
rc_recv_raw(struct rc_client *c, void *buf, size_t cap, int *fds,
	    unsigned int *nb_fds)
{
	union {
		char b[CMSG_SPACE(sizeof(int) * (2 + UET_SVC_CTX_MAX))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = buf, .iov_len = cap };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = u.b, .msg_controllen = sizeof(u.b) };
	struct pollfd p = { .fd = c->fd, .events = POLLIN };
	unsigned int got = 0;
	ssize_t n;

	if (poll(&p, 1, RC_REPLY_MS) != 1)
		return -ETIMEDOUT;
	n = recvmsg(c->fd, &m, MSG_CMSG_CLOEXEC);
	if (n < 0)
		return -errno;
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(&m); cm != NULL;
	     cm = CMSG_NXTHDR(&m, cm)) {
		size_t k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);

		for (size_t i = 0; i < k; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int),
			       sizeof(fd));
			if (fds != NULL && got < 2 + UET_SVC_CTX_MAX)
				fds[got++] = fd;
			else
				close(fd);
		}
	}
	if (nb_fds != NULL)
		*nb_fds = got;
	return (int)n;
}

int
rc_request(struct rc_client *c, unsigned int op, const void *body,
	   uint32_t len, void *rep, uint32_t rep_len, int *fds,
	   unsigned int *nb_fds)
{
	return rc_request_fd(c, op, body, len, -1, rep, rep_len, fds, nb_fds);
}

int
rc_request_send(struct rc_client *c, unsigned int op, const void *body,
		uint32_t len, int fd)
{
	uint64_t out[UET_SVC_MSG_MAX / 8];
	struct uet_svc_hdr *h = (struct uet_svc_hdr *)out;

	uet_svc_hdr_init(h, op, len, ++c->seq, 0);
	if (len)
		memcpy(h + 1, body, len);
	return rc_send_raw(c, out, sizeof(*h) + len, fd);
}

int
rc_reply_recv(struct rc_client *c, unsigned int op, int send_rc, void *rep,
	      uint32_t rep_len, int *fds, unsigned int *nb_fds)
{
	uint64_t in[UET_SVC_MSG_MAX / 8];
	const struct uet_svc_hdr *r = (const struct uet_svc_hdr *)in;
	int n;

	n = rc_recv_raw(c, in, sizeof(in), fds, nb_fds);
	/* a close with our request unread resets us before the notice */
	if (n == -ECONNRESET)
		n = rc_recv_raw(c, in, sizeof(in), fds, nb_fds);
	if (n < 0 || (n == 0 && send_rc < 0))
		return n < 0 ? n : send_rc;
	/* sequence 0: the service ends the connection, saying why */
	if (uet_svc_hdr_check(r, (size_t)n, true) == 0 && r->seq == 0 &&
	    r->rc < 0)
		return r->rc;
	if (uet_svc_hdr_check(r, (size_t)n, true) != 0 || r->seq != c->seq ||
	    r->op != (op | UET_SVC_OP_REPLY))
		return -EPROTO;
	if (r->rc == 0 && rep != NULL)
		memcpy(rep, r + 1, RTE_MIN(rep_len, r->len));
	return r->rc;
}

int
rc_request_fd(struct rc_client *c, unsigned int op, const void *body,
	      uint32_t len, int fd, void *rep, uint32_t rep_len, int *fds,
	      unsigned int *nb_fds)
{
	int rc = rc_request_send(c, op, body, len, fd);

	/* a connection the service closed may hold why (a notice) */
	if (rc < 0 && rc != -EPIPE)
		return rc;
	return rc_reply_recv(c, op, rc, rep, rep_len, fds, nb_fds);
}

/* ------------------------------------------------------------------ */
/* ops                                                                 */
/* ------------------------------------------------------------------ */

int
rc_hello(struct rc_client *c)
{
	int mem = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
	int rc;

	if (mem < 0)
		return -errno;
	rc = rc_hello_mem(c, UET_SVC_HELLO_F_MEM, mem);
	close(mem);
	return rc;
}

int
rc_hello_mem(struct rc_client *c, uint32_t flags, int mem)
{
	struct uet_svc_hello_req q = { .version = UET_SVC_VERSION,
				       .flags = flags };
	int fds[2 + UET_SVC_CTX_MAX];
	unsigned int n = 0;
	int rc;

	rc = rc_request_fd(c, UET_SVC_OP_HELLO, &q, sizeof(q), mem, &c->hello,
			   sizeof(c->hello), fds, &n);
	if (rc < 0)
		return rc;
	if (n < 2) {
		for (unsigned int i = 0; i < n; i++)
			close(fds[i]);
		return -EPROTO;
	}
	c->memfd = fds[0];
	c->pagefd = fds[1];
	c->nb_efd = n - 2;
	memcpy(c->efd, fds + 2, sizeof(int) * c->nb_efd);
	c->region = mmap(NULL, c->hello.region_size, PROT_READ | PROT_WRITE,
			 MAP_SHARED, c->memfd, 0);
	c->page = mmap(NULL, c->hello.page_size, PROT_READ, MAP_SHARED,
		       c->pagefd, 0);
	if (c->region == MAP_FAILED || c->page == MAP_FAILED) {
		if (c->region == MAP_FAILED)
			c->region = NULL;
		if (c->page == MAP_FAILED)
			c->page = NULL;
		return -ENOMEM;
	}
	c->win = c->region + c->hello.window_off;
	return 0;
}

int
rc_pid_get(struct rc_client *c, uint16_t want, uint16_t ctx,
	   struct uet_svc_pid_get_rep *r)
{
	struct uet_svc_pid_get_req q = { .want = want, .ctx = ctx };

	return rc_request(c, UET_SVC_OP_PID_GET, &q, sizeof(q), r, sizeof(*r),
			  NULL, NULL);
}

int
rc_job(struct rc_client *c, bool add, uint32_t job, uint16_t pid)
{
	struct uet_svc_job_req q = { .job = job, .pid = pid };

	return rc_request(c, add ? UET_SVC_OP_JOB_ADD : UET_SVC_OP_JOB_DEL,
			  &q, sizeof(q), NULL, 0, NULL, NULL);
}

int
rc_chan_open(struct rc_client *c, uint16_t pid, unsigned int size,
	     struct rc_chan *ch)
{
	return rc_chan_open_sizes(c, pid, size, size, size * 2, ch);
}

int
rc_chan_open_sizes(struct rc_client *c, uint16_t pid, unsigned int sq,
		   unsigned int rq, unsigned int cq, struct rc_chan *ch)
{
	struct uet_svc_chan_open_req q = {
		.pid = pid, .sq_size = sq, .rq_size = rq,
		.cq_size = cq, .profile = UET_PROFILE_HPC,
	};
	struct uet_svc_chan_open_rep r;
	int rc;

	rc = rc_request(c, UET_SVC_OP_CHAN_OPEN, &q, sizeof(q), &r, sizeof(r),
			NULL, NULL);
	if (rc < 0)
		return rc;
	rc = uet_chan_map_mem(&ch->ch, "rc", c->region + r.sq_off,
			      c->region + r.rq_off, c->region + r.cq_off,
			      q.sq_size, q.rq_size, q.cq_size, 0);
	if (rc < 0)
		return rc;
	ch->slot = r.slot;
	ch->ctx = r.ctx;
	/* posts read the context's flag in the service page and write its
	 * eventfd only while it sleeps */
	if ((c->hello.caps & UET_SVC_CAP_WAKE) && r.ctx < c->nb_efd) {
		ch->ch.waker = (struct uet_engine_waker *)(uintptr_t)
			&c->page->ctx[r.ctx].w;
		ch->ch.wake_fd = c->efd[r.ctx];
	}
	return 0;
}

int
rc_chan_close(struct rc_client *c, struct rc_chan *ch)
{
	struct uet_svc_chan_close_req q = { .slot = ch->slot };

	return rc_request(c, UET_SVC_OP_CHAN_CLOSE, &q, sizeof(q), NULL, 0,
			  NULL, NULL);
}

int
rc_peer_add(struct rc_client *c, uint16_t ctx, uint16_t pid,
	    uint32_t initiator, uint64_t *handle)
{
	struct uet_svc_peer_add_req q = { .ctx = ctx };
	struct uet_svc_peer_add_rep r;
	int rc;

	memcpy(q.peer.fa, c->hello.fa, sizeof(q.peer.fa));
	q.peer.pid_on_fep = pid;
	q.peer.start_ri = c->hello.start_ri;
	q.peer.initiator = initiator;
	rc = rc_request(c, UET_SVC_OP_PEER_ADD, &q, sizeof(q), &r, sizeof(r),
			NULL, NULL);
	if (rc == 0)
		*handle = r.handle;
	return rc;
}

int
rc_peer_del(struct rc_client *c, uint16_t ctx, uint64_t handle)
{
	struct uet_svc_peer_del_req q = { .ctx = ctx, .handle = handle };

	return rc_request(c, UET_SVC_OP_PEER_DEL, &q, sizeof(q), NULL, 0,
			  NULL, NULL);
}

int
rc_bye(struct rc_client *c)
{
	return rc_request(c, UET_SVC_OP_BYE, NULL, 0, NULL, 0, NULL, NULL);
}

bool
rc_cq_wait(struct rc_chan *ch, struct uet_chan_cqe *e)
{
	struct timespec ts = { 0, 100000 }; /* 100 us */

	/* at least 5 s: RC_CQ_POLLS naps of 100 us */
	for (unsigned int i = 0; i < RC_CQ_POLLS; i++) {
		if (uet_chan_cq_poll(&ch->ch, e, 1) == 1)
			return true;
		(void)nanosleep(&ts, NULL);
	}
	return false;
}
