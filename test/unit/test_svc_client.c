/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Client side of the uet-engine service (src/svc/svc_client.c) against a
 * fake service: a thread on a UNIX socket of its own (unique path) that
 * answers as the protocol says, or breaks it on purpose. No EAL: the
 * rings are initialised in a memfd as the real service does.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <uet/uet_svc_client.h>

#define REGION_SIZE (1u << 20)
#define WINDOW_OFF (512u * 1024u)
#define RINGS_OFF 4096u
#define NB_CTX 2u

enum fake_mode {
	FAKE_OK,        /* HELLO, CHAN_OPEN, JOB_ADD -EPERM, others 0 */
	FAKE_SILENT,    /* never answers */
	FAKE_BAD_FDS,   /* HELLO reply with one descriptor */
	FAKE_STALE,     /* a reply with an old seq before each right one */
	FAKE_DIE,       /* closes the connection at the first request */
	FAKE_BAD_LEN,   /* PID_GET reply one byte short */
	FAKE_REFUSE,    /* at accept: a -EDQUOT notice (sequence 0), close */
};

struct fake {
	enum fake_mode mode;
	char path[108];
	int lfd, cfd;
	pthread_t th;
	int region_fd, page_fd, efd[NB_CTX];
	uint8_t *region;
	struct uet_chan chan;   /* the service's side of CHAN_OPEN */
	struct uet_svc_chan_open_rep open_rep;
	unsigned int requests;
};

static int
fake_send(int fd, unsigned int op, uint32_t seq, int32_t rc,
	  const void *body, size_t len, const int *fds, unsigned int nfds)
{
	uint8_t buf[UET_SVC_MSG_MAX] __attribute__((aligned(8)));
	union {
		struct cmsghdr align;
		uint8_t b[CMSG_SPACE((2 + NB_CTX) * sizeof(int))];
	} ctl;
	struct iovec iov = { .iov_base = buf,
			     .iov_len = sizeof(struct uet_svc_hdr) + len };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };

	uet_svc_hdr_init((struct uet_svc_hdr *)(void *)buf,
			 op | UET_SVC_OP_REPLY, (uint32_t)len, seq, rc);
	if (len != 0)
		memcpy(buf + sizeof(struct uet_svc_hdr), body, len);
	if (nfds > 0) {
		struct cmsghdr *cm;

		memset(&ctl, 0, sizeof(ctl));
		m.msg_control = ctl.b;
		m.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
		cm = CMSG_FIRSTHDR(&m);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(nfds * sizeof(int));
		memcpy(CMSG_DATA(cm), fds, nfds * sizeof(int));
	}
	return sendmsg(fd, &m, MSG_NOSIGNAL) < 0 ? -errno : 0;
}

static void
fake_hello(struct fake *f, uint32_t seq)
{
	struct uet_svc_hello_rep h = {
		.region_size = REGION_SIZE, .window_off = WINDOW_OFF,
		.window_len = REGION_SIZE - WINDOW_OFF, .page_size = 4096,
		.max_msg = 64 * 1024, .max_chans = 4, .max_pids = 8,
		.nb_ctx = NB_CTX, .caps = UET_SVC_CAP_WAKE, .mtu = 1500,
		.ring_max = 1024, .fa = { 10, 0, 0, 1 }, .nb_jobs = 1,
		.jobs = { { 1, 100 } },
	};
	int fds[2 + NB_CTX] = { f->region_fd, f->page_fd, f->efd[0],
				f->efd[1] };

	(void)fake_send(f->cfd, UET_SVC_OP_HELLO, seq, 0, &h, sizeof(h), fds,
			f->mode == FAKE_BAD_FDS ? 1 : 2 + NB_CTX);
}

static void
fake_chan_open(struct fake *f, uint32_t seq,
	       const struct uet_svc_chan_open_req *q)
{
	size_t off[3];
	size_t need = uet_chan_mem_size(q->sq_size, q->rq_size, q->cq_size,
					off);
	int rc = uet_chan_init_mem(&f->chan, "fake", f->region + RINGS_OFF,
				   WINDOW_OFF - RINGS_OFF, q->sq_size,
				   q->rq_size, q->cq_size,
				   q->flags | UET_CHAN_SHARED);

	if (need == 0 || rc != 0) {
		(void)fake_send(f->cfd, UET_SVC_OP_CHAN_OPEN, seq, -EINVAL,
				NULL, 0, NULL, 0);
		return;
	}
	f->open_rep.slot = 0;
	f->open_rep.ctx = 1;
	f->open_rep.sq_off = RINGS_OFF + off[0];
	f->open_rep.rq_off = RINGS_OFF + off[1];
	f->open_rep.cq_off = RINGS_OFF + off[2];
	(void)fake_send(f->cfd, UET_SVC_OP_CHAN_OPEN, seq, 0, &f->open_rep,
			sizeof(f->open_rep), NULL, 0);
}

static void
fake_request(struct fake *f, const struct uet_svc_hdr *h, const void *body)
{
	unsigned int op = h->op;
	int blen = uet_svc_body_len(op, true);
	uint8_t zero[64] = { 0 };

	f->requests++;
	if (f->mode == FAKE_STALE && op != UET_SVC_OP_HELLO)
		(void)fake_send(f->cfd, op, h->seq - 1, 0, zero,
				blen > 0 ? (size_t)blen : 0, NULL, 0);
	switch (op) {
	case UET_SVC_OP_HELLO:
		fake_hello(f, h->seq);
		return;
	case UET_SVC_OP_CHAN_OPEN:
		fake_chan_open(f, h->seq, body);
		return;
	case UET_SVC_OP_JOB_ADD:
		(void)fake_send(f->cfd, op, h->seq, -EPERM, NULL, 0, NULL, 0);
		return;
	case UET_SVC_OP_PID_GET: {
		struct uet_svc_pid_get_rep r = { .pid = 77, .ctx = 1,
						 .initiator = 0x1234 };

		(void)fake_send(f->cfd, op, h->seq, 0, &r,
				f->mode == FAKE_BAD_LEN ? sizeof(r) - 1 :
							  sizeof(r),
				NULL, 0);
		return;
	}
	case UET_SVC_OP_BYE:
		return;
	default:
		(void)fake_send(f->cfd, op, h->seq, 0, zero,
				blen > 0 ? (size_t)blen : 0, NULL, 0);
	}
}

/* Serve one connection until it closes (bounded: 200 messages). */
static void *
fake_main(void *arg)
{
	struct fake *f = arg;
	uint8_t buf[UET_SVC_MSG_MAX] __attribute__((aligned(8)));

	f->cfd = accept(f->lfd, NULL, NULL);
	if (f->cfd < 0)
		return NULL;
	if (f->mode == FAKE_REFUSE) {
		/* as the service over a uid's quota: before any request */
		(void)fake_send(f->cfd, UET_SVC_OP_HELLO, 0, -EDQUOT, NULL, 0,
				NULL, 0);
		close(f->cfd);
		return NULL;
	}
	for (int i = 0; i < 200; i++) {
		ssize_t n = recv(f->cfd, buf, sizeof(buf), 0);
		const struct uet_svc_hdr *h = (const void *)buf;

		if (n <= 0)
			break;
		if (uet_svc_hdr_check(h, (size_t)n, false) != 0)
			continue;
		if (f->mode == FAKE_SILENT)
			continue;
		if (f->mode == FAKE_DIE && h->op != UET_SVC_OP_HELLO)
			break;
		fake_request(f, h, buf + sizeof(*h));
		if (h->op == UET_SVC_OP_BYE)
			break;
	}
	close(f->cfd);
	return NULL;
}

static void
fake_start(struct fake *f, enum fake_mode mode)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	static unsigned int seq;

	memset(f, 0, sizeof(*f));
	f->mode = mode;
	snprintf(f->path, sizeof(f->path), "/tmp/uet-svc-client-%d-%u.sock",
		 (int)getpid(), seq++);
	unlink(f->path);
	f->region_fd = memfd_create("region", MFD_CLOEXEC);
	f->page_fd = memfd_create("page", MFD_CLOEXEC);
	assert_true(f->region_fd >= 0 && f->page_fd >= 0);
	assert_int_equal(ftruncate(f->region_fd, REGION_SIZE), 0);
	assert_int_equal(ftruncate(f->page_fd, 4096), 0);
	f->region = mmap(NULL, REGION_SIZE, PROT_READ | PROT_WRITE,
			 MAP_SHARED, f->region_fd, 0);
	assert_true(f->region != MAP_FAILED);
	for (unsigned int i = 0; i < NB_CTX; i++)
		f->efd[i] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	f->lfd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	assert_true(f->lfd >= 0);
	strcpy(sa.sun_path, f->path);
	assert_int_equal(bind(f->lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(f->lfd, 1), 0);
	assert_int_equal(pthread_create(&f->th, NULL, fake_main, f), 0);
}

static void
fake_stop(struct fake *f)
{
	/* a thread still in accept() (attach failed before connecting) */
	shutdown(f->lfd, SHUT_RDWR);
	pthread_join(f->th, NULL);
	close(f->lfd);
	unlink(f->path);
	munmap(f->region, REGION_SIZE);
	close(f->region_fd);
	close(f->page_fd);
	for (unsigned int i = 0; i < NB_CTX; i++)
		close(f->efd[i]);
}

static void
svc_client_attach__maps_region_and_page(void **state)
{
	struct uet_svc_client *c = NULL;
	const struct uet_svc_hello_rep *h;
	struct fake f;

	(void)state;
	fake_start(&f, FAKE_OK);
	assert_int_equal(uet_svc_client_attach(f.path, 2000, &c), 0);
	h = uet_svc_client_hello(c);
	assert_int_equal(h->nb_ctx, NB_CTX);
	assert_int_equal(h->window_len, REGION_SIZE - WINDOW_OFF);
	assert_int_equal(h->fa[0], 10);
	/* the window is the service's memory: what we write, it reads */
	memcpy(uet_svc_client_window(c), "hello", 6);
	assert_string_equal((const char *)f.region + WINDOW_OFF, "hello");
	assert_int_equal(uet_svc_client_check(c), 0);
	assert_false(uet_svc_client_lost(c));
	uet_svc_client_detach(c);
	fake_stop(&f);
}

static void
svc_client_chan_map__rings_shared_with_service(void **state)
{
	struct uet_svc_chan_open_req q = {
		.pid = 77, .sq_size = 64, .rq_size = 64, .cq_size = 128,
	};
	struct uet_svc_chan_open_rep r;
	struct uet_chan_sqe s = { .op = UET_CHAN_OP_SEND, .len = 42,
				  .context = 7 }, s2;
	struct uet_chan_cqe e = { .context = 7, .len = 42 }, e2;
	struct uet_svc_client *c = NULL;
	struct uet_chan ch;
	struct fake f;

	(void)state;
	fake_start(&f, FAKE_OK);
	assert_int_equal(uet_svc_client_attach(f.path, 2000, &c), 0);
	assert_int_equal(uet_svc_client_request(c, UET_SVC_OP_CHAN_OPEN, &q,
						&r), 0);
	assert_int_equal(uet_svc_client_chan_map(c, "c0", &q, &r, &ch), 0);
	/* context 1's flag in the page, and its eventfd (a different
	 * descriptor number, the same eventfd) */
	{
		struct uet_svc_page *pg = mmap(NULL, 4096,
					       PROT_READ | PROT_WRITE,
					       MAP_SHARED, f.page_fd, 0);
		uint64_t one = 1, v = 0;

		assert_true(pg != MAP_FAILED);
		assert_non_null(ch.waker);
		assert_int_equal(ch.waker->sleeping, 0);
		pg->ctx[1].w.sleeping = 1;
		assert_int_equal(ch.waker->sleeping, 1);
		munmap(pg, 4096);

		assert_true(ch.wake_fd >= 0);
		assert_int_equal(write(ch.wake_fd, &one, sizeof(one)), 8);
		assert_int_equal(read(f.efd[1], &v, sizeof(v)), 8);
		assert_int_equal(v, 1);
	}
	/* client -> service: an SQE, by value */
	assert_int_equal(uet_chan_sq_post(&ch, &s), 0);
	{
		/* the context sleeps (flag set above): the post wrote its
		 * eventfd */
		uint64_t v = 0;

		assert_int_equal(read(f.efd[1], &v, sizeof(v)), 8);
		assert_int_equal(v, 1);
	}
	assert_int_equal(uet_chan_sq_take(&f.chan, &s2, 1), 1);
	assert_memory_equal(&s, &s2, sizeof(s));
	/* service -> client: a CQE */
	assert_int_equal(uet_chan_cq_push(&f.chan, &e), 0);
	assert_int_equal(uet_chan_cq_poll(&ch, &e2, 4), 1);
	assert_memory_equal(&e, &e2, sizeof(e));
	uet_svc_client_detach(c);
	fake_stop(&f);
}

/* Offsets outside the ring area or rings that are not what was asked
 * for: refused, nothing mapped from them. */
static void
svc_client_chan_map__bad_reply_is_eproto(void **state)
{
	struct uet_svc_chan_open_req q = {
		.pid = 77, .sq_size = 64, .rq_size = 64, .cq_size = 128,
	};
	struct uet_svc_chan_open_rep r, bad;
	struct uet_svc_client *c = NULL;
	struct uet_chan ch;
	struct fake f;

	(void)state;
	fake_start(&f, FAKE_OK);
	assert_int_equal(uet_svc_client_attach(f.path, 2000, &c), 0);
	assert_int_equal(uet_svc_client_request(c, UET_SVC_OP_CHAN_OPEN, &q,
						&r), 0);
	bad = r;
	bad.sq_off = WINDOW_OFF + 64; /* in the window */
	assert_int_equal(uet_svc_client_chan_map(c, "c0", &q, &bad, &ch),
			 -EPROTO);
	bad = r;
	bad.rq_off = REGION_SIZE * 4ull; /* beyond the region */
	assert_int_equal(uet_svc_client_chan_map(c, "c0", &q, &bad, &ch),
			 -EPROTO);
	bad = r;
	bad.cq_off += 8; /* not aligned */
	assert_int_equal(uet_svc_client_chan_map(c, "c0", &q, &bad, &ch),
			 -EPROTO);
	bad = r;
	bad.ctx = NB_CTX; /* no such context */
	assert_int_equal(uet_svc_client_chan_map(c, "c0", &q, &bad, &ch),
			 -EPROTO);
	q.cq_size = 256; /* the ring there has 128 entries */
	assert_int_equal(uet_svc_client_chan_map(c, "c0", &q, &r, &ch),
			 -EPROTO);
	uet_svc_client_detach(c);
	fake_stop(&f);
}

static void
svc_client_request__returns_the_service_rc(void **state)
{
	struct uet_svc_job_req j = { .job = 5, .pid = 77 };
	struct uet_svc_pid_get_req pq = { .want = 0, .ctx = UET_SVC_CTX_ANY };
	struct uet_svc_pid_get_rep pr;
	struct uet_svc_client *c = NULL;
	struct fake f;

	(void)state;
	fake_start(&f, FAKE_OK);
	assert_int_equal(uet_svc_client_attach(f.path, 2000, &c), 0);
	assert_int_equal(uet_svc_client_request(c, UET_SVC_OP_JOB_ADD, &j,
						NULL), -EPERM);
	assert_int_equal(uet_svc_client_request(c, UET_SVC_OP_PID_GET, &pq,
						&pr), 0);
	assert_int_equal(pr.pid, 77);
	assert_int_equal(pr.initiator, 0x1234);
	/* an op the client cannot send */
	assert_int_equal(uet_svc_client_request(c, 999, &j, NULL), -EINVAL);
	assert_int_equal(uet_svc_client_request(c, UET_SVC_OP_HELLO, &j,
						&pr), -EINVAL);
	uet_svc_client_detach(c);
	fake_stop(&f);
}

/* A late reply of an earlier request (older seq) is not taken for the
 * answer of the current one. */
static void
svc_client_request__drops_stale_replies(void **state)
{
	struct uet_svc_pid_get_req pq = { .want = 0, .ctx = UET_SVC_CTX_ANY };
	struct uet_svc_pid_get_rep pr;
	struct uet_svc_client *c = NULL;
	struct fake f;

	(void)state;
	fake_start(&f, FAKE_STALE);
	assert_int_equal(uet_svc_client_attach(f.path, 2000, &c), 0);
	for (int i = 0; i < 3; i++) {
		memset(&pr, 0, sizeof(pr));
		assert_int_equal(uet_svc_client_request(c, UET_SVC_OP_PID_GET,
							&pq, &pr), 0);
		assert_int_equal(pr.pid, 77);
	}
	uet_svc_client_detach(c);
	fake_stop(&f);
}

static void
svc_client_request__bad_reply_length_is_eproto(void **state)
{
	struct uet_svc_pid_get_req pq = { .want = 0, .ctx = UET_SVC_CTX_ANY };
	struct uet_svc_pid_get_rep pr;
	struct uet_svc_client *c = NULL;
	struct fake f;

	(void)state;
	fake_start(&f, FAKE_BAD_LEN);
	assert_int_equal(uet_svc_client_attach(f.path, 2000, &c), 0);
	assert_int_equal(uet_svc_client_request(c, UET_SVC_OP_PID_GET, &pq,
						&pr), -EPROTO);
	/* a service that breaks the protocol is not talked to again */
	assert_true(uet_svc_client_lost(c));
	uet_svc_client_detach(c);
	fake_stop(&f);
}

static void
svc_client_attach__no_reply_times_out(void **state)
{
	struct uet_svc_client *c = NULL;
	struct fake f;

	(void)state;
	fake_start(&f, FAKE_SILENT);
	assert_int_equal(uet_svc_client_attach(f.path, 100, &c), -ETIMEDOUT);
	assert_null(c);
	fake_stop(&f);
}

static void
svc_client_attach__wrong_descriptors_is_eproto(void **state)
{
	struct uet_svc_client *c = NULL;
	struct fake f;

	(void)state;
	fake_start(&f, FAKE_BAD_FDS);
	assert_int_equal(uet_svc_client_attach(f.path, 2000, &c), -EPROTO);
	fake_stop(&f);
}

static void
svc_client_attach__no_service(void **state)
{
	struct uet_svc_client *c = NULL;
	char path[108];

	(void)state;
	snprintf(path, sizeof(path), "/tmp/uet-svc-none-%d.sock",
		 (int)getpid());
	assert_int_equal(uet_svc_client_attach(path, 100, &c), -ENOENT);
	assert_int_equal(uet_svc_client_attach("", 100, &c), -EINVAL);
}

/* A service that refuses the connection says why before closing it (a
 * reply of sequence 0): attach returns that, whether its HELLO was sent
 * before the close or not. */
static void
svc_client_attach__refusal_notice_is_its_rc(void **state)
{
	struct uet_svc_client *c = NULL;
	struct fake f;

	(void)state;
	for (int i = 0; i < 2; i++) {
		fake_start(&f, FAKE_REFUSE);
		if (i == 1)
			usleep(20000); /* the close first: HELLO hits EPIPE */
		assert_int_equal(uet_svc_client_attach(f.path, 2000, &c),
				 -EDQUOT);
		assert_null(c);
		fake_stop(&f);
	}
}

/* A socket served by another user (squatted: bound by whoever could
 * write the directory) gets no HELLO: -EPERM before anything is sent.
 * Needs root (to be another user); skipped otherwise. */
static void
svc_client_attach__untrusted_server_is_eperm(void **state)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct uet_svc_client *c = NULL;
	int ready[2], st = -1;
	pid_t pid;
	char b;

	(void)state;
	if (geteuid() != 0)
		skip();
	snprintf(sa.sun_path, sizeof(sa.sun_path),
		 "/tmp/uet-svc-squat-%d.sock", (int)getpid());
	assert_int_equal(pipe(ready), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct timeval tv = { .tv_sec = 10 };
		uint8_t buf[64];
		int l, a;

		/* nobody: the squatter */
		if (setgid(65534) != 0 || setuid(65534) != 0)
			_exit(2);
		l = socket(AF_UNIX, SOCK_SEQPACKET, 0);
		if (l < 0 || bind(l, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
		    listen(l, 1) != 0 || write(ready[1], "r", 1) != 1)
			_exit(3);
		a = accept(l, NULL, NULL);
		if (a < 0 || setsockopt(a, SOL_SOCKET, SO_RCVTIMEO, &tv,
					sizeof(tv)) != 0)
			_exit(4);
		/* nothing but the close: 0 bytes */
		_exit(recv(a, buf, sizeof(buf), 0) == 0 ? 0 : 5);
	}
	assert_int_equal(read(ready[0], &b, 1), 1);
	assert_int_equal(uet_svc_client_attach(sa.sun_path, 2000, &c), -EPERM);
	assert_null(c);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	close(ready[0]);
	close(ready[1]);
	unlink(sa.sun_path);
}

/* The service goes away: the next request and the liveness check say so
 * (-ENOTCONN), and later requests fail at once. */
static void
svc_client_check__service_death_is_seen(void **state)
{
	struct uet_svc_job_req j = { .job = 5, .pid = 77 };
	struct uet_svc_client *c = NULL;
	struct fake f;
	int rc = 0;

	(void)state;
	fake_start(&f, FAKE_DIE);
	assert_int_equal(uet_svc_client_attach(f.path, 2000, &c), 0);
	assert_int_equal(uet_svc_client_check(c), 0);
	assert_int_equal(uet_svc_client_request(c, UET_SVC_OP_JOB_ADD, &j,
						NULL), -ENOTCONN);
	assert_true(uet_svc_client_lost(c));
	assert_int_equal(uet_svc_client_request(c, UET_SVC_OP_JOB_DEL, &j,
						NULL), -ENOTCONN);
	assert_int_equal(uet_svc_client_check(c), -ENOTCONN);
	uet_svc_client_detach(c);
	fake_stop(&f);

	/* seen by the check alone, without a request: bounded wait */
	fake_start(&f, FAKE_DIE);
	assert_int_equal(uet_svc_client_attach(f.path, 2000, &c), 0);
	shutdown(f.cfd, SHUT_RDWR);
	for (int i = 0; i < 2000 && rc == 0; i++) {
		rc = uet_svc_client_check(c);
		if (rc == 0)
			usleep(1000);
	}
	assert_int_equal(rc, -ENOTCONN);
	uet_svc_client_detach(c);
	fake_stop(&f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(svc_client_attach__maps_region_and_page),
		cmocka_unit_test(svc_client_chan_map__rings_shared_with_service),
		cmocka_unit_test(svc_client_chan_map__bad_reply_is_eproto),
		cmocka_unit_test(svc_client_request__returns_the_service_rc),
		cmocka_unit_test(svc_client_request__drops_stale_replies),
		cmocka_unit_test(svc_client_request__bad_reply_length_is_eproto),
		cmocka_unit_test(svc_client_attach__no_reply_times_out),
		cmocka_unit_test(svc_client_attach__wrong_descriptors_is_eproto),
		cmocka_unit_test(svc_client_attach__no_service),
		cmocka_unit_test(svc_client_check__service_death_is_seen),
		cmocka_unit_test(svc_client_attach__refusal_notice_is_its_rc),
		cmocka_unit_test(svc_client_attach__untrusted_server_is_eperm),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
