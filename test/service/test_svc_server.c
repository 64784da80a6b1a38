/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The uet-engine service, server side (src/svc/svc_server.c,
 * svc_srv_ops.c, apps/uet-engine), driven by a raw client written against
 * the protocol (svc_rawcli.c), not the provider:
 *
 *   attach: HELLO's fds and region, PIDonFEPs, jobs, channels;
 *   data path: a NOP through the shared rings, a SEND from one
 *     client's window to another's (the service's loopback ring port
 *     brings the frame back to its own FA), and four clients sending to
 *     each other, data checked; random SQEs/RQEs and ring cursors;
 *   bad messages: random bytes, wrong lengths, unknown ops, reserved
 *     fields, a passed fd, a request before HELLO: each answered with an
 *     error and counted (telemetry /uet/service bad), the service lives;
 *   isolation: another client's PIDonFEP, an ungranted job, another's
 *     peer handle and memory key, remote-access MR_REG of an address the
 *     client has not mapped, an SQE naming another client's peer handle
 *     (-EINVAL), one with an ungranted job (-EPERM) and one outside the
 *     window (-EFAULT);
 *   remote access to a client's own memory (cross-memory attach): WRITE,
 *     READ, fetching atomic from another client's window, data checked
 *     in place; the key through a third client's PIDonFEP: BAD_MKEY,
 *     nothing touched;
 *   limits: max_clients; the service out of descriptors (accept() at
 *     EMFILE pauses the listener, no spin); a CHAN_CLOSE waiting 2 s
 *     for the engine (a send on the wire), a JOB_DEL and a PEER_ADD of
 *     its context waiting behind it, a BYE released in the background
 *     and a PID_GET of its PIDonFEP waiting for the release, another
 *     client served meanwhile, a client gone while its close waits; a
 *     CHAN_OPEN past the context's 64 channels refused without asking
 *     the engine; a client gone without BYE is cleaned up; a second service on
 *     the socket (or on a file that is no socket) refuses and leaves it
 *     alone;
 *   every /uet/service count back to its start; SIGTERM (a CHAN_CLOSE
 *   waiting for the engine): exit 0, socket unlinked, nothing left of
 *   its EAL prefix in /var/run/dpdk.
 *
 * usage: test_svc_server UET_ENGINE_BINARY
 */

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rte_common.h>

#include <uet/uet_rand.h>
#include <uet/uet_ses_amo.h>
#include <uet/uet_ses_mr.h>
#include <uet/uet_svc_server.h>

#include "svc_rawcli.h"

#define JOB 1u
#define MAX_CLIENTS 7

static struct rc_service svc;

/* Counter @p key of telemetry command @p cmd (/uet/service, context 0's
 * /uet/ses and /uet/pds). */
static uint64_t
tel_of(const char *cmd, const char *key)
{
	uint64_t v = UINT64_MAX;

	CHECK(rc_tel(&svc, cmd, key, &v) == 0);
	return v;
}

static uint64_t
tel(const char *key)
{
	return tel_of("/uet/service", key);
}

static uint64_t
telemetry_ses(const char *key)
{
	return tel_of("/uet/ses,0", key);
}

/* An attached client with one PIDonFEP, job JOB and one channel. */
struct cli {
	struct rc_client c;
	struct uet_svc_pid_get_rep pid;
	struct rc_chan ch;
};

static int
cli_make(struct cli *k)
{
	int rc = rc_connect(&k->c, svc.sock);

	if (rc == 0)
		rc = rc_hello(&k->c);
	if (rc == 0)
		rc = rc_pid_get(&k->c, 0, UET_SVC_CTX_ANY, &k->pid);
	if (rc == 0)
		rc = rc_job(&k->c, true, JOB, k->pid.pid);
	if (rc == 0)
		rc = rc_chan_open(&k->c, k->pid.pid, 64, &k->ch);
	if (rc < 0)
		fprintf(stderr, "client setup: %s\n", strerror(-rc));
	return rc;
}

static void
sqe_make(struct uet_chan_sqe *q, uint8_t op, uint64_t ctx, uint64_t off,
	 uint64_t len, uint64_t dest)
{
	memset(q, 0, sizeof(*q));
	q->op = op;
	q->flags = UET_CHAN_F_COMPLETION;
	q->context = ctx;
	q->addr = off;
	q->len = len;
	q->dest = dest;
	q->job = JOB;
	q->tc = 1;
}

/* One SQE and its CQE: @return the CQE status (-ETIMEDOUT: none). */
static int
sqe_round_trip(struct cli *k, const struct uet_chan_sqe *q)
{
	struct uet_chan_cqe e;

	if (uet_chan_sq_post(&k->ch.ch, q) != 0)
		return -EAGAIN;
	if (!rc_cq_wait(&k->ch, &e))
		return -ETIMEDOUT;
	CHECK(e.context == q->context);
	return e.status;
}

static void
test_hello(struct cli *a)
{
	const struct uet_svc_region *h =
		(const struct uet_svc_region *)a->c.region;
	const struct uet_svc_hello_rep *r = &a->c.hello;

	CHECK(r->window_len == 16u << 20);
	CHECK(r->window_off + r->window_len == r->region_size);
	CHECK(r->nb_ctx == 1 && r->max_chans == 16 && r->max_pids == 8);
	CHECK(r->nb_jobs == 2 && r->jobs[0].first == 1 &&
	      r->jobs[0].last == 10 && r->jobs[1].first == 77);
	CHECK(r->caps & UET_SVC_CAP_RMA);
	CHECK(r->is_v6 == 0 && r->fa[0] == 10 && r->fa[3] == 1);
	/* one eventfd per context */
	CHECK(a->c.nb_efd == r->nb_ctx);
	CHECK(r->caps & UET_SVC_CAP_WAKE);
	CHECK(h->magic == UET_SVC_REGION_MAGIC && h->size == r->region_size);
	CHECK(h->chan[a->ch.slot].state == UET_SVC_CHAN_OPEN);
	CHECK(h->chan[a->ch.slot].pid == a->pid.pid);
	CHECK(a->c.page->magic == UET_SVC_PAGE_MAGIC);
	CHECK(a->c.page->nb_ctx == r->nb_ctx);
	/* a second HELLO is refused */
	{
		struct uet_svc_hello_req q = { .version = UET_SVC_VERSION };

		CHECK(rc_request(&a->c, UET_SVC_OP_HELLO, &q, sizeof(q), NULL,
				 0, NULL, NULL) == -EALREADY);
	}
	printf("# hello: region %lu bytes, window %lu at %lu, %u context(s), "
	       "caps 0x%x, %u eventfd(s)\n",
	       (unsigned long)r->region_size, (unsigned long)r->window_len,
	       (unsigned long)r->window_off, r->nb_ctx, r->caps,
	       a->c.nb_efd);
}

/* The engine keeps its context's flag in the service page: idle, its
 * lcore sleeps and the client sees it there; a post then writes the
 * context's eventfd and the NOP completes. */
static void test_nop(struct cli *a, uint64_t ctx);

static void
test_sleep_flag(struct cli *a)
{
	const struct uet_engine_waker *w = &a->c.page->ctx[a->ch.ctx].w;
	unsigned int i;

	/* idle_spin is 20 us: bounded wait of 5 s */
	for (i = 0; i < 5000 &&
	     __atomic_load_n(&w->sleeping, __ATOMIC_ACQUIRE) == 0; i++)
		usleep(1000);
	CHECK(__atomic_load_n(&w->sleeping, __ATOMIC_ACQUIRE) != 0);
	test_nop(a, 150);
}

static void
test_nop(struct cli *a, uint64_t ctx)
{
	struct uet_chan_sqe q;

	sqe_make(&q, UET_CHAN_OP_NOP, ctx, 0, 0, 0);
	CHECK(sqe_round_trip(a, &q) == 0);
}

/* A's window bytes 4096.. to B's receive at window offset 0. */
static void
test_send(struct cli *a, struct cli *b, uint64_t *peer_b)
{
	struct uet_chan_rqe r;
	struct uet_chan_sqe q;
	struct uet_chan_cqe e;
	const unsigned int len = 3000;

	CHECK(rc_peer_add(&a->c, a->ch.ctx, b->pid.pid, b->pid.initiator,
			  peer_b) == 0);
	for (unsigned int i = 0; i < len; i++)
		a->c.win[4096 + i] = (uint8_t)(i * 7 + 3);
	memset(b->c.win, 0, 8192);
	memset(&r, 0, sizeof(r));
	r.op = UET_CHAN_RQ_RECV;
	r.context = 500;
	r.addr = 0;
	r.len = 8192;
	CHECK(uet_chan_rq_post(&b->ch.ch, &r) == 0);
	sqe_make(&q, UET_CHAN_OP_SEND, 501, 4096, len, *peer_b);
	CHECK(sqe_round_trip(a, &q) == 0);
	if (rc_cq_wait(&b->ch, &e)) {
		CHECK(e.context == 500 && e.status == 0 && e.len == len);
		CHECK(e.src == a->pid.initiator);
		CHECK(memcmp(b->c.win, a->c.win + 4096, len) == 0);
	} else {
		fprintf(stderr, "no receive completion\n");
		failures++;
	}
}

/* Send @p len raw bytes, read the reply: @return its rc (or -errno). */
static int
raw_reply(struct rc_client *c, const void *msg, size_t len, int fd)
{
	uint64_t in[UET_SVC_MSG_MAX / 8];
	const struct uet_svc_hdr *h = (const struct uet_svc_hdr *)in;
	int n;

	if (rc_send_raw(c, msg, len, fd) < 0)
		return -EIO;
	n = rc_recv_raw(c, in, sizeof(in), NULL, NULL);
	if (n < (int)sizeof(*h))
		return n < 0 ? n : -EIO;
	CHECK(uet_svc_hdr_check(h, (size_t)n, true) == 0);
	CHECK(h->len == 0);
	return h->rc;
}

/*
 * A TCP socket over loopback whose close() lingers (SO_LINGER, 60 s) on
 * data its peer (*@p peer, which reads nothing) has no room for: the
 * security review's way to hold a thread that closes it. -1 on failure.
 */
static int
lingering_socket(int *peer)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct linger lg = { .l_onoff = 1, .l_linger = 60 };
	socklen_t alen = sizeof(a);
	int small = 4096, l, c = -1;
	char buf[4096] = { 0 };

	*peer = -1;
	l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (l < 0 ||
	    setsockopt(l, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small)) != 0 ||
	    bind(l, (struct sockaddr *)&a, sizeof(a)) != 0 ||
	    getsockname(l, (struct sockaddr *)&a, &alen) != 0 ||
	    listen(l, 1) != 0)
		goto out;
	c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c < 0 ||
	    setsockopt(c, SOL_SOCKET, SO_SNDBUF, &small, sizeof(small)) != 0 ||
	    connect(c, (struct sockaddr *)&a, sizeof(a)) != 0 ||
	    (*peer = accept4(l, NULL, NULL, SOCK_CLOEXEC)) < 0 ||
	    fcntl(c, F_SETFL, O_NONBLOCK) != 0)
		goto fail;
	for (unsigned int i = 0; i < 10000; i++)
		if (send(c, buf, sizeof(buf), MSG_NOSIGNAL) < 0)
			break;
	if (setsockopt(c, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)) == 0)
		goto out;
fail:
	if (c >= 0)
		close(c);
	if (*peer >= 0)
		close(*peer);
	c = *peer = -1;
out:
	if (l >= 0)
		close(l);
	return c;
}

/*
 * The peer of a lingering socket the service was passed: true when it
 * sees the reset of a close without lingering, false at the end of a
 * graceful one (the lingering close done, every byte sent) or after
 * 10 s (the linger is 60 s). Reads what arrives meanwhile.
 */
static bool
peer_reset(int peer)
{
	struct pollfd p = { .fd = peer, .events = POLLIN };
	char buf[4096];

	for (unsigned int i = 0; i < 100000; i++) {
		ssize_t n;

		if (poll(&p, 1, 100) < 0)
			return false;
		if (p.revents == 0) {
			if (i >= 100)
				return false;
			continue;
		}
		n = recv(peer, buf, sizeof(buf), MSG_DONTWAIT);
		if (n < 0 && errno == ECONNRESET)
			return true;
		if (n == 0 || (n < 0 && errno != EAGAIN))
			return false;
	}
	return false;
}

/* A connection of its own, HELLO said, passes @p nb descriptors with a
 * PID_GET and closes its own copies at once (the service holds the last
 * ones): refused at once, the connection dropped (fds_refused), client
 * @p a answered meanwhile. */
static void
fds_request(struct cli *a, const int *fds, unsigned int nb, uint64_t ctx)
{
	uint64_t m[(sizeof(struct uet_svc_hdr) + 8) / 8 + 1] = { 0 };
	uint64_t in[UET_SVC_MSG_MAX / 8];
	struct uet_svc_hdr *h = (struct uet_svc_hdr *)m;
	const struct uet_svc_hdr *r = (const struct uet_svc_hdr *)in;
	uint64_t refused0 = tel("fds_refused");
	struct rc_client k;
	int n;

	CHECK(rc_connect(&k, svc.sock) == 0 && rc_hello(&k) == 0);
	uet_svc_hdr_init(h, UET_SVC_OP_PID_GET, 8, 7, 0);
	CHECK(rc_send_fds(&k, m, sizeof(*h) + 8, fds, nb) == 0);
	for (unsigned int i = 0; i < nb; i++)
		close(fds[i]);
	n = rc_recv_raw(&k, in, sizeof(in), NULL, NULL);
	CHECK(n >= (int)sizeof(*h) && r->rc == -EINVAL);
	CHECK(rc_recv_raw(&k, in, sizeof(in), NULL, NULL) == 0);
	test_nop(a, ctx);
	CHECK(tel("fds_refused") == refused0 + 1);
	rc_close(&k);
}

/*
 * The security review's holds of the control thread and of the reaper:
 * a request carrying a descriptor whose last close blocks (a TCP socket
 * lingering on unsent data; a FUSE file whose server never answers FLUSH
 * does the same), its sender's own copy closed at once so the service
 * holds the last one:
 * - one descriptor: answered at once, closed by the reaper (before, the
 *   answer waited for the close, 60 s);
 * - nine, the lingering one last: a control buffer of eight descriptors
 *   let the kernel close the ninth on the control thread (no client
 *   served, the stop ignored, for the linger time);
 * - inside AF_UNIX sockets (six deep) passed alone: the last close of
 *   the outer one, by the reaper, closed the lingering one there and
 *   held the reaper.
 * The reaper closes each without lingering: its peer sees a reset, not
 * the end of a 60 s close.
 */
/* @p n descriptors passed with request @p ctx: refused, and the
 * lingering socket among them (its peer @p peer) closed with a reset. */
static void
reaped(struct cli *a, int *fds, unsigned int n, uint64_t ctx, int peer)
{
	fds_request(a, fds, n, ctx);
	CHECK(peer_reset(peer));
	close(peer);
}

static void
test_fd_reaper(struct cli *a)
{
	int peer, fd, fds[9], sp[2];

	fd = lingering_socket(&peer);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	reaped(a, &fd, 1, 610, peer);
	printf("# a lingering socket passed with a request: refused, the "
	       "connection dropped, closed by the reaper without lingering\n");

	fds[8] = lingering_socket(&peer);
	CHECK(fds[8] >= 0);
	if (fds[8] < 0)
		return;
	for (unsigned int i = 0; i < 8; i++)
		fds[i] = open("/dev/null", O_RDONLY | O_CLOEXEC);
	reaped(a, fds, 9, 611, peer);
	printf("# nine descriptors, a lingering socket the ninth: all "
	       "reaped\n");

	/* inside a socket inside a socket ..., six deep */
	fd = lingering_socket(&peer);
	CHECK(fd >= 0);
	for (unsigned int i = 0; fd >= 0 && i < 6; i++) {
		struct rc_client pair;
		char one = 1;

		CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
				 sp) == 0);
		pair.fd = sp[0];
		CHECK(rc_send_fds(&pair, &one, 1, &fd, 1) == 0);
		close(fd);
		close(sp[0]);
		fd = sp[1];
	}
	if (fd < 0)
		return;
	reaped(a, &fd, 1, 612, peer);
	printf("# a lingering socket six sockets deep, passed alone: reaped, "
	       "the reaper not held\n");
}

/* The lowest descriptor number free in process @p pid (what its next
 * accept() would get), or -1. */
static int
proc_fd_free(pid_t pid)
{
	char path[64];

	for (int fd = 0; fd < 65536; fd++) {
		snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)pid, fd);
		if (access(path, F_OK) != 0)
			return errno == ENOENT ? fd : -1;
	}
	return -1;
}

static uint64_t
now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

/*
 * The service out of descriptors: its RLIMIT_NOFILE lowered (prlimit, we
 * are root) to its lowest free descriptor, so that accept() fails with
 * EMFILE while a client waits in the backlog. The listener used to stay
 * in the epoll set, readable: the control thread spun on accept() until
 * a descriptor closed. Now each failure pauses the listener for
 * UET_SVC_ACCEPT_PAUSE_MS (accept_failed): at most one failure per pause
 * for as long as the limit holds, and the client waiting is taken once
 * descriptors are back. (No telemetry meanwhile: DPDK's telemetry thread
 * ends at a failed accept.)
 */
static void
test_accept_pause(void)
{
	uint64_t t0, held_ms, failed = 0, failed0, att0;
	struct rlimit lo, old;
	struct rc_client x;
	int free_fd, again;

	if (prlimit(svc.pid, RLIMIT_NOFILE, NULL, &old) != 0) {
		failures++;
		return;
	}
	/* a descriptor the service closes between the scan and its accept
	 * (a telemetry connection's end, the reaper's) lets the accept
	 * succeed: the limit follows the lowest free descriptor until it
	 * holds still, and the try is made again (three at most) */
	for (unsigned int try = 0; try < 3 && failed == 0; try++) {
		failed0 = tel("accept_failed");
		att0 = tel("attaches");
		lo = old;
		again = 0;
		for (unsigned int i = 0; i < 50; i++) {
			free_fd = proc_fd_free(svc.pid);
			if (free_fd <= 0 || free_fd == again)
				break;
			lo.rlim_cur = (rlim_t)free_fd;
			CHECK(prlimit(svc.pid, RLIMIT_NOFILE, &lo, NULL) == 0);
			again = free_fd;
			usleep(20000);
		}
		CHECK(free_fd > 0);
		t0 = now_ms();
		CHECK(rc_connect(&x, svc.sock) == 0);
		usleep(4 * UET_SVC_ACCEPT_PAUSE_MS * 1000);
		CHECK(prlimit(svc.pid, RLIMIT_NOFILE, &old, NULL) == 0);
		held_ms = now_ms() - t0;
		/* taken after the pause under way */
		CHECK(rc_hello(&x) == 0);
		failed = tel("accept_failed") - failed0;
		printf("# accept() at EMFILE for %llu ms: %llu failures, then "
		       "the client waiting attached\n",
		       (unsigned long long)held_ms, (unsigned long long)failed);
		CHECK(failed <= held_ms / UET_SVC_ACCEPT_PAUSE_MS + 1);
		CHECK(tel("attaches") == att0 + 1);
		CHECK(rc_bye(&x) == 0);
		rc_close(&x);
	}
	CHECK(failed >= 1);
}

/* A SEND of @p k to a peer at an FA nobody has (one per @p context),
 * and once its PDC opened (nothing will acknowledge it): an operation on
 * the wire until the engine withdraws it (SES_ULP_WITHDRAW_NS, 3 s). */
static bool
send_to_nobody(struct cli *k, uint64_t context)
{
	struct uet_svc_peer_add_req pq = { .ctx = k->ch.ctx };
	struct uet_svc_peer_add_rep pr;
	uint64_t open0 = tel_of("/uet/pds,0", "ctx0_pdc_open_init");
	struct uet_chan_sqe q;

	memcpy(pq.peer.fa, k->c.hello.fa, sizeof(pq.peer.fa));
	pq.peer.fa[2] ^= (uint8_t)context;
	pq.peer.pid_on_fep = k->pid.pid;
	pq.peer.start_ri = k->c.hello.start_ri;
	pq.peer.initiator = k->pid.initiator;
	if (rc_request(&k->c, UET_SVC_OP_PEER_ADD, &pq, sizeof(pq), &pr,
		       sizeof(pr), NULL, NULL) != 0)
		return false;
	sqe_make(&q, UET_CHAN_OP_SEND, context, 0, 4096, pr.handle);
	if (uet_chan_sq_post(&k->ch.ch, &q) != 0)
		return false;
	for (unsigned int i = 0; i < 500; i++) {
		if (tel_of("/uet/pds,0", "ctx0_pdc_open_init") > open0)
			return true;
		usleep(10000);
	}
	return false;
}

/* Client @p o's requests, answered (none of them waits for the engine). */
static void
others_served(struct cli *o)
{
	for (unsigned int i = 0; i < 3; i++) {
		CHECK(rc_job(&o->c, true, JOB, o->pid.pid) == 0);
		CHECK(rc_job(&o->c, false, JOB, o->pid.pid) == 0);
	}
}

static bool
readable(const struct cli *k)
{
	struct pollfd p = { .fd = k->c.fd, .events = POLLIN };

	return poll(&p, 1, 0) != 0;
}

/*
 * CHAN_CLOSE, JOB_DEL and BYE while a send is on the wire: the engine
 * answers an EP_DEL or JOB_DEL of that process only once it withdrew the
 * send (about 2 s later, nothing acknowledges it). The control thread
 * used to wait for those answers, every client's requests held meanwhile
 * (the security review: 1.6 s a close, as often as a client liked); then
 * every control request of that context waited behind them (the engine
 * served nothing after a held request). Now only the client and what
 * touches what it closes wait: K's close waits for its EP_DEL, while O's
 * JOB_DEL and P's PEER_ADD on the same context, and Q's requests, are
 * answered. K's BYE is answered at once, its release runs in the
 * background; its JOB_DEL, held by the engine, keeps P's JOB_DEL of the
 * same job waiting (the engine orders requests of one job) while Q is
 * served, and a PID_GET of its PIDonFEP waits for the release to end
 * instead of failing -EADDRINUSE. D, gone while its close waits, is
 * released.
 */
static void
test_slow_close(void)
{
	uint64_t chans0 = tel("chans"), clients0 = tel("clients"), t0, peer;
	uint64_t waited, held0;
	struct uet_svc_chan_close_req cq = { .rsvd = 0 };
	struct uet_svc_job_req jq = { .job = JOB };
	struct uet_svc_peer_add_req pq = { .rsvd0 = 0 };
	struct uet_svc_pid_get_req gq = { .ctx = UET_SVC_CTX_ANY };
	struct uet_svc_pid_get_rep gr;
	struct cli k, o, p, q;
	bool served;
	int rc[3];

	if (cli_make(&k) < 0 || cli_make(&o) < 0 || cli_make(&p) < 0 ||
	    cli_make(&q) < 0) {
		failures++;
		return;
	}
	/* the releases of the tests before ended (fd_reaper's connections) */
	for (unsigned int i = 0; i < 1000 && tel("releasing") != 0; i++)
		usleep(10000);
	CHECK(tel("releasing") == 0);
	CHECK(send_to_nobody(&k, 0x81));
	cq.slot = k.ch.slot;
	jq.pid = o.pid.pid;
	pq.ctx = p.ch.ctx;
	memcpy(pq.peer.fa, p.c.hello.fa, sizeof(pq.peer.fa));
	pq.peer.pid_on_fep = o.pid.pid;
	pq.peer.start_ri = p.c.hello.start_ri;
	pq.peer.initiator = o.pid.initiator;
	t0 = now_ms();
	rc[0] = rc_request_send(&k.c, UET_SVC_OP_CHAN_CLOSE, &cq, sizeof(cq),
				-1);
	/* O's last reference to JOB: the engine's JOB_DEL */
	rc[1] = rc_request_send(&o.c, UET_SVC_OP_JOB_DEL, &jq, sizeof(jq), -1);
	rc[2] = rc_request_send(&p.c, UET_SVC_OP_PEER_ADD, &pq, sizeof(pq), -1);
	CHECK(rc[0] == 0 && rc[1] == 0 && rc[2] == 0);
	others_served(&q);
	CHECK(rc_reply_recv(&o.c, UET_SVC_OP_JOB_DEL, rc[1], NULL, 0, NULL,
			    NULL) == 0);
	CHECK(rc_reply_recv(&p.c, UET_SVC_OP_PEER_ADD, rc[2], &peer,
			    sizeof(peer), NULL, NULL) == 0);
	waited = now_ms() - t0;
	served = !readable(&k);
	CHECK(served);
	CHECK(rc_reply_recv(&k.c, UET_SVC_OP_CHAN_CLOSE, rc[0], NULL, 0, NULL,
			    NULL) == 0);
	printf("# CHAN_CLOSE with a send on the wire: answered after %llu ms; "
	       "another client's JOB_DEL and PEER_ADD on its context, and a "
	       "third's requests, answered %s (%llu ms)\n",
	       (unsigned long long)(now_ms() - t0),
	       served ? "meanwhile" : "after it", (unsigned long long)waited);
	CHECK(tel("chans") == chans0 + 3);
	CHECK(rc_job(&o.c, true, JOB, o.pid.pid) == 0);
	CHECK(rc_peer_del(&p.c, p.ch.ctx, peer) == 0);

	/* BYE: answered at once, released in the background; its PIDonFEP
	 * asked for meanwhile */
	CHECK(rc_chan_open(&k.c, k.pid.pid, 64, &k.ch) == 0);
	CHECK(send_to_nobody(&k, 0x82));
	t0 = now_ms();
	held0 = telemetry_ses("ctx0_withdraw_waits");
	CHECK(rc_bye(&k.c) == 0);
	rc_close(&k.c);
	gq.want = k.pid.pid;
	rc[0] = rc_request_send(&o.c, UET_SVC_OP_PID_GET, &gq, sizeof(gq), -1);
	/* K's JOB_DEL (its release's first request after its PEER_DEL)
	 * held by the engine: P's last reference to JOB waits behind it */
	for (unsigned int i = 0; i < 1000 &&
	     telemetry_ses("ctx0_withdraw_waits") == held0; i++)
		usleep(1000);
	CHECK(telemetry_ses("ctx0_withdraw_waits") > held0);
	jq.pid = p.pid.pid;
	rc[1] = rc_request_send(&p.c, UET_SVC_OP_JOB_DEL, &jq, sizeof(jq), -1);
	others_served(&q);
	served = tel("releasing") == 1 && !readable(&o) && !readable(&p);
	CHECK(served);
	CHECK(rc_reply_recv(&p.c, UET_SVC_OP_JOB_DEL, rc[1], NULL, 0, NULL,
			    NULL) == 0);
	CHECK(rc_reply_recv(&o.c, UET_SVC_OP_PID_GET, rc[0], &gr, sizeof(gr),
			    NULL, NULL) == 0 && gr.pid == k.pid.pid);
	CHECK(tel("releasing") == 0);
	printf("# BYE with a send on the wire: released in %llu ms, another "
	       "client served %s, a JOB_DEL of its job and a PID_GET of its "
	       "PIDonFEP answered once released\n",
	       (unsigned long long)(now_ms() - t0),
	       served ? "meanwhile" : "after it");
	CHECK(tel("chans") == chans0 + 3);
	CHECK(rc_request(&o.c, UET_SVC_OP_PID_PUT, &(struct uet_svc_pid_put_req){
		.pid = gr.pid }, sizeof(struct uet_svc_pid_put_req), NULL, 0,
		NULL, NULL) == 0);

	/* D gone while its close waits: released all the same */
	if (cli_make(&k) == 0) {
		CHECK(send_to_nobody(&k, 0x84));
		cq.slot = k.ch.slot;
		CHECK(rc_request_send(&k.c, UET_SVC_OP_CHAN_CLOSE, &cq,
				      sizeof(cq), -1) == 0);
		usleep(50000); /* past the service's 10 ms wait for it */
		rc_close(&k.c);
		for (unsigned int i = 0; i < 1000 && (tel("clients") !=
		     clients0 + 3 || tel("releasing") != 0); i++)
			usleep(10000);
		CHECK(tel("clients") == clients0 + 3);
		CHECK(tel("chans") == chans0 + 3);
	} else {
		failures++;
	}
	CHECK(rc_bye(&o.c) == 0 && rc_bye(&p.c) == 0 && rc_bye(&q.c) == 0);
	rc_close(&o.c);
	rc_close(&p.c);
	rc_close(&q.c);
}

/*
 * A CHAN_OPEN past the context's 64 channels is refused before the
 * engine is asked: its EP_ADD, then the EP_DEL undoing it when the
 * attach failed, could wait behind a departed client's withdrawn sends
 * (the control thread held up to 3 s). Four clients open channels (15
 * each past their first, under their own max_chans of 16) until the
 * context is full: the refusal is -ENOSPC and no control request
 * reaches the engine (ctx0_ctl unchanged; it was EP_ADD and EP_DEL).
 */
static void
test_chan_full(void)
{
	struct rc_chan ch[4][15];
	uint64_t asked = UINT64_MAX;
	struct cli k[4];
	unsigned int n = 0;
	bool full = false;

	for (unsigned int i = 0; i < 4; i++)
		if (cli_make(&k[i]) < 0) {
			failures++;
			return;
		}
	for (unsigned int i = 0; i < 4 && !full; i++)
		for (unsigned int j = 0; j < 15 && !full; j++) {
			uint64_t ctl0 = telemetry_ses("ctx0_ctl");
			int rc = rc_chan_open(&k[i].c, k[i].pid.pid, 2, &ch[i][j]);

			if (rc == 0) {
				n++;
				continue;
			}
			full = true;
			asked = telemetry_ses("ctx0_ctl") - ctl0;
			CHECK(rc == -ENOSPC);
			CHECK(asked == 0);
		}
	printf("# %u channels more, then CHAN_OPEN -ENOSPC, %llu engine "
	       "request(s) for it\n", n, (unsigned long long)asked);
	CHECK(full);
	for (unsigned int i = 0; i < 4; i++) {
		CHECK(rc_bye(&k[i].c) == 0);
		rc_close(&k[i].c);
	}
	for (unsigned int i = 0; i < 1000 && tel("releasing") != 0; i++)
		usleep(10000);
}

static void
test_bad_messages(struct cli *a)
{
	uint64_t bad0 = tel("bad"), err0 = tel("errors"), req0 = tel("requests");
	uint64_t m[(UET_SVC_MSG_MAX + 128) / 8];
	struct uet_svc_hdr *h = (struct uet_svc_hdr *)m;
	struct uet_svc_pid_get_req *pg = (struct uet_svc_pid_get_req *)(h + 1);
	unsigned int sent = 0;
	struct uet_rand rng = { .s = 12345 };
	struct rc_client fresh;
	int rc;

	/* random bytes, 1 .. MSG_MAX + 100 of them (0 would read as EOF) */
	for (unsigned int i = 0; i < 200; i++) {
		size_t len = 1 + (size_t)(uet_rand_next(&rng) %
					  (UET_SVC_MSG_MAX + 100));

		for (size_t j = 0; j < len; j++)
			((uint8_t *)m)[j] = (uint8_t)uet_rand_next(&rng);
		rc = raw_reply(&a->c, m, len, -1);
		CHECK(rc == -EINVAL || rc == -EPROTO);
		sent++;
	}
	/* well-formed headers with something wrong */
	memset(m, 0, sizeof(m));
	uet_svc_hdr_init(h, UET_SVC_OP_PID_GET, 4, 1, 0); /* short body */
	CHECK(raw_reply(&a->c, m, sizeof(*h) + 4, -1) == -EINVAL);
	uet_svc_hdr_init(h, 99, 0, 2, 0); /* unknown op */
	CHECK(raw_reply(&a->c, m, sizeof(*h), -1) == -EINVAL);
	uet_svc_hdr_init(h, UET_SVC_OP_PID_GET, 8, 3, 0);
	h->rsvd = 1; /* reserved header field */
	CHECK(raw_reply(&a->c, m, sizeof(*h) + 8, -1) == -EINVAL);
	uet_svc_hdr_init(h, UET_SVC_OP_PID_GET, 8, 4, 0);
	pg->rsvd = 1; /* reserved body field */
	CHECK(raw_reply(&a->c, m, sizeof(*h) + 8, -1) == -EINVAL);
	pg->rsvd = 0;
	h->version = 2; /* another protocol version */
	CHECK(raw_reply(&a->c, m, sizeof(*h) + 8, -1) == -EPROTO);
	/* (a request carrying a file descriptor: test_fd_reaper; its
	 * connection is dropped) */
	/* a ring size that is not a power of two */
	{
		struct uet_svc_chan_open_req q = {
			.pid = a->pid.pid, .sq_size = 3, .rq_size = 4,
			.cq_size = 4,
		};

		CHECK(rc_request(&a->c, UET_SVC_OP_CHAN_OPEN, &q, sizeof(q),
				 NULL, 0, NULL, NULL) == -EINVAL);
	}
	sent += 6;
	/* a request before HELLO */
	CHECK(rc_connect(&fresh, svc.sock) == 0);
	{
		struct uet_svc_pid_get_rep r;

		CHECK(rc_pid_get(&fresh, 0, UET_SVC_CTX_ANY, &r) == -EPROTO);
	}
	rc_close(&fresh);
	sent++;
	CHECK(tel("bad") == bad0 + sent);
	CHECK(tel("errors") == err0 + sent);
	CHECK(tel("requests") == req0 + sent);
	printf("# bad messages: %u answered with an error, counted\n", sent);
	/* still serving */
	test_nop(a, 600);
}

static void
test_isolation(struct cli *a, struct cli *c, uint64_t a_peer)
{
	uint64_t den0 = tel("denied");
	uint64_t win0 = telemetry_ses("ctx0_win_bad"), job0 = telemetry_ses("ctx0_job_bad");
	uint64_t pb0, c_peer = 0;
	struct uet_svc_mr_reg_req mq = {
		.addr = 0x10000, .len = 4096,
		.access = UET_SES_MR_LOCAL_READ | UET_SES_MR_LOCAL_WRITE,
		.job = JOB, .pid = a->pid.pid,
	};
	struct uet_svc_mr_reg_rep mr;
	struct uet_svc_mr_key_req kq;
	struct uet_svc_pid_get_rep pr;
	struct uet_chan_sqe q;
	unsigned int denied = 0;

	/* another's PIDonFEP: jobs, channels, taking it */
	CHECK(rc_job(&c->c, true, JOB, a->pid.pid) == -EPERM);
	denied++;
	{
		struct uet_svc_chan_open_req oq = {
			.pid = a->pid.pid, .sq_size = 4, .rq_size = 4,
			.cq_size = 4,
		};

		CHECK(rc_request(&c->c, UET_SVC_OP_CHAN_OPEN, &oq, sizeof(oq),
				 NULL, 0, NULL, NULL) == -EPERM);
		denied++;
	}
	CHECK(rc_pid_get(&c->c, a->pid.pid, UET_SVC_CTX_ANY, &pr) ==
	      -EADDRINUSE);
	/* a job outside the grant (1-10,77), for its own PIDonFEP */
	CHECK(rc_job(&c->c, true, 999, c->pid.pid) == -EPERM);
	denied++;
	CHECK(rc_job(&c->c, true, 77, c->pid.pid) == 0);
	CHECK(rc_job(&c->c, false, 77, c->pid.pid) == 0);
	CHECK(rc_job(&c->c, false, 77, c->pid.pid) == -ENOENT);
	/* the security review's unbounded references: one per endpoint and
	 * memory key at most (16 channels + 4096 keys), counted by the
	 * service (the engine holds one), each JOB_DEL taking one back */
	for (unsigned int i = 0; i < 16 + 4096; i++)
		if (rc_job(&c->c, true, 77, c->pid.pid) != 0) {
			CHECK(!"JOB_ADD within the bound refused");
			break;
		}
	CHECK(rc_job(&c->c, true, 77, c->pid.pid) == -EDQUOT);
	for (unsigned int i = 0; i < 16 + 4096; i++)
		if (rc_job(&c->c, false, 77, c->pid.pid) != 0) {
			CHECK(!"JOB_DEL of a reference refused");
			break;
		}
	CHECK(rc_job(&c->c, false, 77, c->pid.pid) == -ENOENT);
	/* another's peer handle */
	CHECK(rc_peer_del(&c->c, c->ch.ctx, a_peer) == -ENOENT);
	/* another's memory key */
	CHECK(rc_request(&a->c, UET_SVC_OP_MR_REG, &mq, sizeof(mq), &mr,
			 sizeof(mr), NULL, NULL) == 0);
	memset(&kq, 0, sizeof(kq));
	kq.key = mr.key;
	kq.pid = a->pid.pid;
	CHECK(rc_request(&c->c, UET_SVC_OP_MR_DEREG, &kq, sizeof(kq), NULL, 0,
			 NULL, NULL) == -ENOENT);
	CHECK(rc_request(&c->c, UET_SVC_OP_MR_ENABLE, &kq, sizeof(kq), NULL,
			 0, NULL, NULL) == -ENOENT);
	CHECK(tel("mrs") == 1);
	CHECK(rc_request(&a->c, UET_SVC_OP_MR_DEREG, &kq, sizeof(kq), NULL, 0,
			 NULL, NULL) == 0);
	mq.job = 999;
	CHECK(rc_request(&a->c, UET_SVC_OP_MR_REG, &mq, sizeof(mq), &mr,
			 sizeof(mr), NULL, NULL) == -EPERM);
	denied++;
	mq.job = JOB;
	/* remote access to an address the client has not mapped (below
	 * mmap_min_addr): refused when registering */
	mq.access |= UET_SES_MR_REMOTE_WRITE;
	CHECK(rc_request(&a->c, UET_SVC_OP_MR_REG, &mq, sizeof(mq), &mr,
			 sizeof(mr), NULL, NULL) == -EFAULT);
	CHECK(tel("mrs") == 0);
	/* the data path: another client's peer handle, an ungranted job,
	 * an address outside the window */
	pb0 = telemetry_ses("ctx0_peer_bad");
	sqe_make(&q, UET_CHAN_OP_SEND, 699, 0, 100, a_peer);
	CHECK(sqe_round_trip(c, &q) == -EINVAL);
	CHECK(telemetry_ses("ctx0_peer_bad") == pb0 + 1);
	CHECK(rc_peer_add(&c->c, c->ch.ctx, a->pid.pid, a->pid.initiator,
			  &c_peer) == 0);
	sqe_make(&q, UET_CHAN_OP_SEND, 700, 0, 100, c_peer);
	q.job = 999;
	CHECK(sqe_round_trip(c, &q) == -EPERM);
	sqe_make(&q, UET_CHAN_OP_SEND, 701, c->c.hello.window_len - 50, 100,
		 c_peer);
	CHECK(sqe_round_trip(c, &q) == -EFAULT);
	CHECK(rc_peer_del(&c->c, c->ch.ctx, c_peer) == 0);
	CHECK(tel("denied") == den0 + denied);
	CHECK(telemetry_ses("ctx0_win_bad") == win0 + 1);
	CHECK(telemetry_ses("ctx0_job_bad") == job0 + 1);
	printf("# isolation: %u requests denied, 1 SQE naming another "
	       "client's peer -EINVAL, 1 -EPERM, 1 -EFAULT\n", denied);
}

/* An SQE and its whole CQE (status -ETIMEDOUT: none). */
static struct uet_chan_cqe
sqe_cqe(struct cli *k, const struct uet_chan_sqe *q)
{
	struct uet_chan_cqe e;

	memset(&e, 0, sizeof(e));
	e.status = -ETIMEDOUT;
	if (uet_chan_sq_post(&k->ch.ch, q) != 0 || !rc_cq_wait(&k->ch, &e))
		return e;
	CHECK(e.context == q->context);
	return e;
}

static _Alignas(64) uint8_t rma_buf[16384];

/*
 * Remote access to a client's own memory: A registers a buffer of this
 * process (the service reaches it by cross-memory attach, owner = A's
 * SO_PEERCRED PID); B WRITEs into it, READs it back and runs a fetching
 * atomic on it from its window through A's PIDonFEP, every byte checked
 * here in place. The same key through C's PIDonFEP names C's own RMA
 * table: BAD_MKEY, nothing touched.
 */
static void
test_rma(struct cli *a, struct cli *b, struct cli *c)
{
	struct uet_svc_mr_reg_req mq = {
		.addr = (uintptr_t)rma_buf, .len = sizeof(rma_buf),
		.access = UET_SES_MR_REMOTE_READ | UET_SES_MR_REMOTE_WRITE |
			  UET_SES_MR_REMOTE_ATOMIC,
		.job = JOB, .pid = a->pid.pid,
	};
	const unsigned int len = 6000;
	uint64_t peer_a = 0, peer_c = 0, mrs0 = tel("mrs"), v;
	struct uet_svc_mr_reg_rep mr;
	struct uet_svc_mr_key_req kq;
	struct uet_chan_sqe q;
	struct uet_chan_cqe e;
	int rc;

	/* Yama ptrace_scope 1: name the service as our tracer (an error
	 * without Yama is of no consequence) */
	(void)prctl(PR_SET_PTRACER, (unsigned long)svc.pid, 0, 0, 0);
	rc = rc_request(&a->c, UET_SVC_OP_MR_REG, &mq, sizeof(mq), &mr,
			sizeof(mr), NULL, NULL);
	if (rc == -EPERM) {
		printf("# rma: SKIPPED, the service may not attach to this "
		       "process (ptrace rules, seccomp)\n");
		return;
	}
	CHECK(rc == 0);
	if (rc != 0)
		return;
	CHECK(tel("mrs") == mrs0 + 1);
	CHECK(rc_peer_add(&b->c, b->ch.ctx, a->pid.pid, a->pid.initiator,
			  &peer_a) == 0);
	CHECK(rc_peer_add(&b->c, b->ch.ctx, c->pid.pid, c->pid.initiator,
			  &peer_c) == 0);
	for (unsigned int i = 0; i < len; i++)
		b->c.win[i] = (uint8_t)(i * 11 + 5);
	memset(rma_buf, 0, sizeof(rma_buf));
	sqe_make(&q, UET_CHAN_OP_WRITE, 900, 0, len, peer_a);
	q.rkey = mr.key;
	q.roffset = (uintptr_t)rma_buf + 100;
	CHECK(sqe_round_trip(b, &q) == 0);
	CHECK(memcmp(rma_buf + 100, b->c.win, len) == 0);
	CHECK(rma_buf[99] == 0 && rma_buf[100 + len] == 0);
	memset(b->c.win + 65536, 0, len);
	sqe_make(&q, UET_CHAN_OP_READ, 901, 65536, len, peer_a);
	q.rkey = mr.key;
	q.roffset = (uintptr_t)rma_buf + 100;
	CHECK(sqe_round_trip(b, &q) == 0);
	CHECK(memcmp(b->c.win + 65536, rma_buf + 100, len) == 0);
	v = 5;
	memcpy(rma_buf + 8192, &v, 8);
	v = 7;
	memcpy(b->c.win + 131072, &v, 8);
	sqe_make(&q, UET_CHAN_OP_FETCH_ATOMIC, 902, 131072, 8, peer_a);
	q.atomic_op = UET_AMO_SUM;
	q.atomic_dt = UET_AMO_DT_UINT64;
	q.rkey = mr.key;
	q.roffset = (uintptr_t)rma_buf + 8192;
	q.result = 131080;
	CHECK(sqe_round_trip(b, &q) == 0);
	memcpy(&v, b->c.win + 131080, 8);
	CHECK(v == 5);
	memcpy(&v, rma_buf + 8192, 8);
	CHECK(v == 12);
	/* A's key used with C's PIDonFEP */
	memset(rma_buf, 0x11, 64);
	sqe_make(&q, UET_CHAN_OP_WRITE, 903, 0, 64, peer_c);
	q.rkey = mr.key;
	q.roffset = (uintptr_t)rma_buf;
	e = sqe_cqe(b, &q);
	CHECK(e.status == -EINVAL && e.prov_errno == UET_RC_BAD_MKEY);
	for (unsigned int i = 0; i < 64; i++)
		CHECK(rma_buf[i] == 0x11);
	memset(&kq, 0, sizeof(kq));
	kq.key = mr.key;
	kq.pid = a->pid.pid;
	CHECK(rc_request(&a->c, UET_SVC_OP_MR_DEREG, &kq, sizeof(kq), NULL, 0,
			 NULL, NULL) == 0);
	CHECK(tel("mrs") == mrs0);
	CHECK(rc_peer_del(&b->c, b->ch.ctx, peer_a) == 0);
	CHECK(rc_peer_del(&b->c, b->ch.ctx, peer_c) == 0);
	printf("# rma: write, read, fetching atomic on a client's memory; "
	       "its key through another PIDonFEP: BAD_MKEY\n");
}

/* A service whose lcores never sleep: no UET_SVC_CAP_WAKE, still one
 * eventfd per context (nobody needs to write them), NOPs go through. */
static void
test_no_sleep(const char *bin)
{
	struct rc_service keep = svc;
	struct cli a;
	int rc;

	rc = rc_service_start(&svc, bin, "nosleep", "idle_sleep = 0ns\n",
			      NULL);
	CHECK(rc == 0);
	if (rc == 0 && cli_make(&a) == 0) {
		CHECK(!(a.c.hello.caps & UET_SVC_CAP_WAKE));
		CHECK(a.c.nb_efd == a.c.hello.nb_ctx);
		CHECK(a.ch.ch.waker == NULL);
		test_nop(&a, 900);
		CHECK(rc_bye(&a.c) == 0);
		rc_close(&a.c);
	} else {
		failures++;
	}
	CHECK(rc_service_stop(&svc) == 0);
	svc = keep;
}

/*
 * A client that writes garbage: random SQEs and RQEs, then random ring
 * header cursors. Every entry the engine takes is checked and refused
 * (or, for a receive inside the window, posted); it never reads or
 * writes outside the ring or the window. The service lives on.
 */
static void
test_ring_garbage(void)
{
	struct cli g;
	struct uet_chan_cqe e;
	unsigned int cqes = 0;
	struct uet_rand rng = { .s = 777 };

	if (cli_make(&g) < 0) {
		failures++;
		return;
	}
	for (unsigned int i = 0; i < 300; i++) {
		struct uet_chan_sqe q;
		struct uet_chan_rqe r;

		for (size_t j = 0; j < sizeof(q); j++)
			((uint8_t *)&q)[j] = (uint8_t)uet_rand_next(&rng);
		for (size_t j = 0; j < sizeof(r); j++)
			((uint8_t *)&r)[j] = (uint8_t)uet_rand_next(&rng);
		(void)uet_chan_sq_post(&g.ch.ch, &q);
		(void)uet_chan_rq_post(&g.ch.ch, &r);
		while (uet_chan_cq_poll(&g.ch.ch, &e, 1) == 1)
			cqes++;
		usleep(100);
	}
	/* cursors out of any sense: the engine takes at most a ring */
	g.ch.ch.sq->prod.tail = (uint32_t)uet_rand_next(&rng);
	g.ch.ch.sq->prod.head = g.ch.ch.sq->prod.tail;
	g.ch.ch.rq->prod.tail = (uint32_t)uet_rand_next(&rng);
	g.ch.ch.cq->cons.tail = (uint32_t)uet_rand_next(&rng);
	g.ch.ch.sq->mask = 0xFFFFFFFFu;
	usleep(100000);
	printf("# garbage: 300 random SQEs and RQEs, %u CQEs back, ring "
	       "cursors scribbled\n", cqes);
	CHECK(cqes > 0);
	CHECK(rc_bye(&g.c) == 0);
	rc_close(&g.c);
}

/*
 * Four clients, each sending one message to each of the others (12
 * messages, 1000 + 100 * sender bytes, a pattern naming sender and
 * receiver) through the service: every receive completes with the
 * sender's initiator id and the right bytes.
 */
#define A2A 4

static uint8_t
a2a_byte(unsigned int from, unsigned int to, unsigned int i)
{
	return (uint8_t)(from * 31 + to * 7 + i);
}

static void
test_all_to_all(void)
{
	struct cli k[A2A];
	unsigned int made = 0, got = 0;

	for (; made < A2A; made++)
		if (cli_make(&k[made]) < 0)
			break;
	CHECK(made == A2A);
	for (unsigned int r = 0; r < made; r++) {
		struct uet_chan_rqe q;

		memset(&q, 0, sizeof(q));
		q.op = UET_CHAN_RQ_RECV;
		q.len = 4096;
		for (unsigned int j = 0; j + 1 < made; j++) {
			q.context = 1000 + j;
			q.addr = (uint64_t)j * 4096;
			CHECK(uet_chan_rq_post(&k[r].ch.ch, &q) == 0);
		}
	}
	for (unsigned int f = 0; f < made; f++) {
		for (unsigned int t = 0; t < made; t++) {
			uint64_t peer = 0;
			struct uet_chan_sqe q;
			unsigned int len = 1000 + 100 * f;
			uint8_t *src = k[f].c.win + (1u << 20) + t * 4096;

			if (t == f)
				continue;
			CHECK(rc_peer_add(&k[f].c, k[f].ch.ctx, k[t].pid.pid,
					  k[t].pid.initiator, &peer) == 0);
			for (unsigned int i = 0; i < len; i++)
				src[i] = a2a_byte(f, t, i);
			sqe_make(&q, UET_CHAN_OP_SEND, 2000 + t, (1u << 20) +
				 t * 4096, len, peer);
			CHECK(uet_chan_sq_post(&k[f].ch.ch, &q) == 0);
		}
	}
	/* each channel: its sends' and its receives' completions */
	for (unsigned int r = 0; r < made; r++) {
		for (unsigned int j = 0; j < 2 * (made - 1); j++) {
			struct uet_chan_cqe e;
			unsigned int f;
			const uint8_t *buf;

			if (!rc_cq_wait(&k[r].ch, &e)) {
				failures++;
				continue;
			}
			if (e.flags & UET_CHAN_CQ_SEND) {
				CHECK(e.status == 0 && e.context >= 2000);
				continue;
			}
			CHECK(e.status == 0 && e.context >= 1000 &&
			      e.context < 1000 + made - 1);
			for (f = 0; f < made; f++)
				if (k[f].pid.initiator == e.src)
					break;
			CHECK(f < made && f != r);
			if (f >= made || e.status != 0)
				continue;
			CHECK(e.len == 1000 + 100 * f);
			buf = k[r].c.win + (e.context - 1000) * 4096;
			for (unsigned int i = 0; i < e.len; i++)
				if (buf[i] != a2a_byte(f, r, i)) {
					failures++;
					break;
				}
			got++;
		}
	}
	printf("# all to all: %u clients, %u messages received and "
	       "checked\n", made, got);
	CHECK(got == made * (made - 1));
	for (unsigned int i = 0; i < made; i++) {
		CHECK(rc_bye(&k[i].c) == 0);
		rc_close(&k[i].c);
	}
}

/* Run uet-engine on @p sock with the service's configuration and its
 * own EAL prefix: @return its exit status (bounded wait), or -1. */
static int
second_engine(const char *bin, const char *sock, const char *prefix)
{
	char arg[96];
	pid_t pid;
	int st;

	snprintf(arg, sizeof(arg), "--file-prefix=%s", prefix);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		(void)prctl(PR_SET_PDEATHSIG, SIGTERM);
		execl(bin, bin, "-c", svc.conf, "--socket", sock, "--", "-l",
		      "0-1", "--no-huge", "-m", "256", "--no-pci",
		      "--log-level=5", arg, (char *)NULL);
		_exit(127);
	}
	for (unsigned int i = 0; i < 6000; i++) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
		usleep(10000);
	}
	(void)kill(pid, SIGKILL);
	(void)waitpid(pid, &st, 0);
	return -1;
}

/* A second service on a socket in use, on a path that is not a socket,
 * or in a directory that is not safe: it refuses (exit 1) and leaves
 * them alone. The first one's socket has the default mode and group. */
static void
test_socket_taken(const char *bin)
{
	char prefix[64], path[128], buf[8] = "";
	struct stat st;
	FILE *f;

	snprintf(prefix, sizeof(prefix), "svctdup%d", (int)getpid());
	CHECK(second_engine(bin, svc.sock, prefix) == 1);
	CHECK(stat(svc.sock, &st) == 0 && S_ISSOCK(st.st_mode));
	snprintf(path, sizeof(path), "%s/file", svc.dir);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (f != NULL) {
		fputs("keep", f);
		fclose(f);
		CHECK(second_engine(bin, path, prefix) == 1);
		f = fopen(path, "r");
		CHECK(f != NULL && fgets(buf, sizeof(buf), f) != NULL &&
		      strcmp(buf, "keep") == 0);
		if (f != NULL)
			fclose(f);
		(void)unlink(path);
	}
	/* a directory others may write (where they could have bound a
	 * socket first, or replace ours): refused, nothing created */
	snprintf(path, sizeof(path), "/tmp/uet-svct-dir-%d.sock",
		 (int)getpid());
	CHECK(second_engine(bin, path, prefix) == 1);
	CHECK(stat(path, &st) != 0 && errno == ENOENT);
	/* a directory of another user: the same */
	snprintf(path, sizeof(path), "%s/other", svc.dir);
	if (geteuid() == 0 && mkdir(path, 0755) == 0) {
		CHECK(chown(path, 65534, 65534) == 0);
		strcat(path, "/svc.sock");
		CHECK(second_engine(bin, path, prefix) == 1);
		CHECK(stat(path, &st) != 0 && errno == ENOENT);
		*strrchr(path, '/') = '\0';
		CHECK(rmdir(path) == 0);
	}
	/* the default mode and group: 0660, the service's */
	CHECK(stat(svc.sock, &st) == 0 && (st.st_mode & 07777) == 0660 &&
	      st.st_gid == getegid());
	snprintf(path, sizeof(path), "/var/run/dpdk/%s", prefix);
	CHECK(stat(path, &st) != 0 && errno == ENOENT);
	/* the first one still serves */
	CHECK(tel("clients") != UINT64_MAX);
}

static const char *const counts[] = {
	"clients", "chans", "peers", "mrs", "jobs", "pids",
};

int
main(int argc, char **argv)
{
	uint64_t start[RTE_DIM(counts)];
	struct cli a, b, c;
	struct rc_client extra[MAX_CLIENTS];
	uint64_t peer_b = 0;
	char path[160];
	struct stat st;
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: %s UET_ENGINE\n", argv[0]);
		return 2;
	}
	rc = rc_service_start(&svc, argv[1], "srv", NULL, "max_clients = 7\n");
	if (rc < 0) {
		fprintf(stderr, "service start: %s\n", strerror(-rc));
		if (svc.pid > 0)
			(void)rc_service_stop(&svc);
		return 1;
	}
	for (unsigned int i = 0; i < RTE_DIM(counts); i++)
		start[i] = tel(counts[i]);
	if (cli_make(&a) < 0 || cli_make(&b) < 0 || cli_make(&c) < 0) {
		failures++;
		goto stop;
	}
	CHECK(tel("clients") == start[0] + 3);
	CHECK(tel("chans") == start[1] + 3);
	CHECK(tel("pids") == start[5] + 3);
	test_hello(&a);
	test_nop(&a, 100);
	test_sleep_flag(&a);
	test_send(&a, &b, &peer_b);
	test_bad_messages(&a);
	test_fd_reaper(&a);
	test_accept_pause();
	test_slow_close();
	test_chan_full();
	test_isolation(&a, &c, peer_b);
	test_rma(&a, &b, &c);
	test_ring_garbage();
	test_all_to_all();
	test_socket_taken(argv[1]);
	/* a channel closed and opened again */
	CHECK(rc_chan_close(&c.c, &c.ch) == 0);
	CHECK(rc_chan_close(&c.c, &c.ch) == -ENOENT);
	CHECK(rc_chan_open(&c.c, c.pid.pid, 16, &c.ch) == 0);
	test_nop(&c, 800);
	/* PID_PUT of a PIDonFEP in use, then of another's */
	{
		struct uet_svc_pid_put_req q = { .pid = c.pid.pid };

		CHECK(rc_request(&c.c, UET_SVC_OP_PID_PUT, &q, sizeof(q), NULL,
				 0, NULL, NULL) == -EBUSY);
		q.pid = a.pid.pid;
		CHECK(rc_request(&c.c, UET_SVC_OP_PID_PUT, &q, sizeof(q), NULL,
				 0, NULL, NULL) == -EPERM);
	}
	/* max_clients = 7: four more attach, the eighth is refused */
	{
		uint64_t ref0 = tel("refused");
		struct uet_svc_hdr h;

		for (unsigned int i = 0; i < 5; i++)
			CHECK(rc_connect(&extra[i], svc.sock) == 0);
		for (unsigned int i = 0; i < 4; i++)
			CHECK(rc_hello(&extra[i]) == 0);
		/* the service closes the eighth at once, saying why
		 * (sequence 0: no request's reply), then EOF */
		CHECK(rc_recv_raw(&extra[4], &h, sizeof(h), NULL, NULL) ==
		      (int)sizeof(h) && h.seq == 0 && h.rc == -EUSERS &&
		      h.op == (UET_SVC_OP_HELLO | UET_SVC_OP_REPLY));
		CHECK(rc_recv_raw(&extra[4], &h, sizeof(h), NULL, NULL) == 0);
		CHECK(tel("refused") == ref0 + 1);
		for (unsigned int i = 0; i < 5; i++)
			rc_close(&extra[i]);
	}
	/* B leaves without BYE, holding a channel, a PIDonFEP and a job:
	 * cleaned up; A and C say BYE */
	{
		uint64_t cl0 = tel("cleanups");

		rc_close(&b.c);
		CHECK(rc_bye(&a.c) == 0);
		CHECK(rc_bye(&c.c) == 0);
		rc_close(&a.c);
		rc_close(&c.c);
		/* the service handles the hang-ups in order, and releases a
		 * dead client in the background; bounded wait */
		for (unsigned int i = 0; i < 500 && (tel("clients") != start[0] ||
		     tel("releasing") != 0); i++)
			usleep(10000);
		CHECK(tel("cleanups") >= cl0 + 1);
	}
	for (unsigned int i = 0; i < RTE_DIM(counts); i++) {
		uint64_t v = tel(counts[i]);

		printf("# %s: %lu (start %lu)\n", counts[i], (unsigned long)v,
		       (unsigned long)start[i]);
		CHECK(v == start[i]);
	}
	/* the service stopped while a CHAN_CLOSE waits for its EP_DEL
	 * (test_slow_close): the stop takes the answer first, then exits 0 */
	if (cli_make(&a) == 0) {
		struct uet_svc_chan_close_req cq = { .slot = a.ch.slot };

		CHECK(send_to_nobody(&a, 0x83));
		CHECK(rc_request_send(&a.c, UET_SVC_OP_CHAN_CLOSE, &cq,
				      sizeof(cq), -1) == 0);
		usleep(50000); /* past the service's 10 ms wait for it */
	} else {
		failures++;
	}
stop:
	rc = rc_service_stop(&svc);
	if (rc == 0)
		test_no_sleep(argv[1]);
	printf("# SIGTERM: exit status %d\n", rc);
	CHECK(rc == 0);
	CHECK(stat(svc.sock, &st) != 0 && errno == ENOENT);
	snprintf(path, sizeof(path), "/var/run/dpdk/%s", svc.prefix);
	CHECK(stat(path, &st) != 0 && errno == ENOENT);
	printf("%s: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
	return failures ? 1 : 0;
}
