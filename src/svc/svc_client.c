/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Client side of the uet-engine service (include/svc/uet/uet_svc_client.h,
 * docs/SERVICE.md): attach over the UNIX socket, map the shared region
 * and the service page, synchronous requests with a bounded wait, and
 * channels over the rings the service initialised in the region. No EAL,
 * no DPDK memory: the rings are used through this process's mapping.
 *
 * Everything the service sends is checked before use (header, sizes,
 * file descriptors, offsets, ring headers): a broken or hostile service
 * makes attach or a request fail with -EPROTO, never an access outside
 * what was mapped.
 */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include <uet/uet_clock.h>
#include <uet/uet_svc_client.h>

/* Replies of earlier requests that timed out, dropped while waiting. */
#define CLIENT_STALE_MAX 64
#define CLIENT_FDS_MAX (2 + UET_SVC_CTX_MAX)

struct uet_svc_client {
	int fd;
	pthread_mutex_t lock;   /* one request at a time */
	uint32_t seq;
	unsigned int timeout_ms;
	atomic_bool lost;
	struct uet_svc_hello_rep hello;
	uint8_t *region;        /* read-write, hello.region_size bytes */
	const struct uet_svc_page *page; /* read-only, hello.page_size */
	int efd[UET_SVC_CTX_MAX];
	int region_fd, page_fd;
};

static void
fds_close(int *fds, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

/* Descriptors of an SCM_RIGHTS message; closes them all when there are
 * more than @p max. */
static unsigned int
msg_fds(struct msghdr *m, int *fds, unsigned int max, bool *bad)
{
	unsigned int n = 0;

	for (struct cmsghdr *cm = CMSG_FIRSTHDR(m); cm != NULL;
	     cm = CMSG_NXTHDR(m, cm)) {
		unsigned int k;
		int tmp[CLIENT_FDS_MAX];

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		k = (unsigned int)((cm->cmsg_len - CMSG_LEN(0)) / sizeof(int));
		if (k > CLIENT_FDS_MAX)
			k = CLIENT_FDS_MAX; /* cannot be: MSG_CTRUNC */
		memcpy(tmp, CMSG_DATA(cm), k * sizeof(int));
		for (unsigned int i = 0; i < k; i++) {
			if (n < max)
				fds[n++] = tmp[i];
			else {
				close(tmp[i]);
				*bad = true;
			}
		}
	}
	return n;
}

static void
client_lose(struct uet_svc_client *c)
{
	atomic_store_explicit(&c->lost, true, memory_order_release);
}

/*
 * Wait (until @p deadline) for the reply to @p seq of @p op; its body
 * into @p body (@p body_len bytes when rc is 0), its descriptors into
 * @p fds (at most @p max_fds, *nfds set). Late replies of earlier
 * requests are dropped.
 */
static int
client_recv(struct uet_svc_client *c, uint32_t seq, unsigned int op,
	    void *body, size_t body_len, int *fds, unsigned int max_fds,
	    unsigned int *nfds, uint64_t deadline)
{
	union {
		uint64_t align;
		uint8_t b[UET_SVC_MSG_MAX];
	} buf;
	union {
		struct cmsghdr align;
		uint8_t b[CMSG_SPACE(CLIENT_FDS_MAX * sizeof(int))];
	} ctl;
	const struct uet_svc_hdr *h = (const void *)buf.b;
	bool reset = false;

	for (unsigned int stale = 0; stale <= CLIENT_STALE_MAX;) {
		struct iovec iov = { .iov_base = buf.b, .iov_len = sizeof(buf) };
		struct msghdr m = {
			.msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = ctl.b, .msg_controllen = sizeof(ctl),
		};
		struct pollfd p = { .fd = c->fd, .events = POLLIN };
		uint64_t now = uet_mono_ms();
		unsigned int n = 0;
		bool bad = false;
		ssize_t len;
		int rc;

		if (now >= deadline)
			return -ETIMEDOUT;
		rc = poll(&p, 1, (int)RTE_MIN(deadline - now, (uint64_t)INT32_MAX));
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc < 0)
			return -errno;
		if (rc == 0)
			return -ETIMEDOUT;
		len = recvmsg(c->fd, &m, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
		if (len < 0 && errno == EAGAIN && reset)
			len = 0;
		if (len < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		/* a service that closed with our request unread resets us,
		 * and the kernel reports that before what it sent last (a
		 * refusal's reason): read once more */
		if (len < 0 && errno == ECONNRESET && !reset) {
			reset = true;
			continue;
		}
		if (len <= 0) {
			/* EOF or reset: the service is gone */
			client_lose(c);
			return -ENOTCONN;
		}
		n = msg_fds(&m, fds, max_fds, &bad);
		if ((m.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) || bad ||
		    uet_svc_hdr_check(h, (size_t)len, true) != 0) {
			fds_close(fds, n);
			client_lose(c);
			return -EPROTO;
		}
		/* sequence 0: the service ends the connection and says why
		 * (quota, HELLO deadline, idleness) */
		if (h->seq == 0 && h->rc < 0) {
			fds_close(fds, n);
			client_lose(c);
			return h->rc;
		}
		if (h->seq != seq) {
			fds_close(fds, n);
			stale++;
			continue;
		}
		if (h->op != (op | UET_SVC_OP_REPLY) ||
		    (h->rc == 0 && h->len != body_len) || h->rc > 0) {
			fds_close(fds, n);
			client_lose(c);
			return -EPROTO;
		}
		if (h->rc == 0 && body_len != 0)
			memcpy(body, buf.b + sizeof(*h), body_len);
		if (nfds != NULL)
			*nfds = n;
		else
			fds_close(fds, n);
		return h->rc;
	}
	client_lose(c);
	return -EPROTO;
}

static int
client_send(struct uet_svc_client *c, unsigned int op, const void *body,
	    size_t body_len, int fd, uint32_t *seq)
{
	union {
		uint64_t align;
		uint8_t b[UET_SVC_MSG_MAX];
	} buf;
	union {
		char b[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { .iov_base = buf.b };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	if (sizeof(struct uet_svc_hdr) + body_len > sizeof(buf))
		return -EINVAL;
	*seq = ++c->seq;
	uet_svc_hdr_init((struct uet_svc_hdr *)(void *)buf.b, op,
			 (uint32_t)body_len, *seq, 0);
	if (body_len != 0)
		memcpy(buf.b + sizeof(struct uet_svc_hdr), body, body_len);
	iov.iov_len = sizeof(struct uet_svc_hdr) + body_len;
	if (fd >= 0) {
		struct cmsghdr *cm;

		memset(&ctl, 0, sizeof(ctl));
		m.msg_control = ctl.b;
		m.msg_controllen = sizeof(ctl.b);
		cm = CMSG_FIRSTHDR(&m);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	}
	do {
		n = sendmsg(c->fd, &m, MSG_NOSIGNAL);
	} while (n < 0 && errno == EINTR);
	if (n < 0) {
		if (errno == EPIPE || errno == ECONNRESET ||
		    errno == ENOTCONN) {
			client_lose(c);
			return -ENOTCONN;
		}
		return -errno;
	}
	return 0;
}

int
uet_svc_client_request(struct uet_svc_client *c, unsigned int op,
		       const void *req, void *rep)
{
	int req_len = uet_svc_body_len(op, false);
	int rep_len = uet_svc_body_len(op, true);
	int fds[CLIENT_FDS_MAX];
	uint32_t seq;
	int rc;

	if (c == NULL || req_len < 0 || op == UET_SVC_OP_HELLO ||
	    (req_len > 0 && req == NULL) || (rep_len > 0 && rep == NULL))
		return -EINVAL;
	pthread_mutex_lock(&c->lock);
	if (uet_svc_client_lost(c)) {
		rc = -ENOTCONN;
		goto unlock;
	}
	rc = client_send(c, op, req, (size_t)req_len, -1, &seq);
	if (rc == 0)
		rc = client_recv(c, seq, op, rep, (size_t)rep_len, fds, 0,
				 NULL, uet_mono_ms() + c->timeout_ms);
unlock:
	pthread_mutex_unlock(&c->lock);
	return rc;
}

/* ---- attach ---- */

/* Root, this process's uid or @p service_uid: whoever else listens on
 * the path squatted it (a socket in a directory others can write). */
static int
server_check(int fd, uint32_t service_uid)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0)
		return -errno;
	if (cred.uid == 0 || cred.uid == geteuid() ||
	    (service_uid != UET_SVC_UID_NONE && cred.uid == service_uid))
		return 0;
	return -EPERM;
}

static int
client_connect(const char *path, uint32_t service_uid, int *fd)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int s, rc;

	if (path == NULL || path[0] == '\0' ||
	    strlen(path) >= sizeof(sa.sun_path))
		return -EINVAL;
	strcpy(sa.sun_path, path);
	s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -errno;
	if (connect(s, (const struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int err = errno;

		close(s);
		return -err;
	}
	rc = server_check(s, service_uid);
	if (rc < 0) {
		close(s);
		return rc;
	}
	*fd = s;
	return 0;
}

/* The HELLO reply's limits, before anything is mapped. */
static int
hello_check(const struct uet_svc_hello_rep *h)
{
	if (h->region_size == 0 || h->window_len == 0 ||
	    h->window_off % UET_SVC_PAGE != 0 ||
	    h->window_off > h->region_size ||
	    h->window_len > h->region_size - h->window_off ||
	    h->window_off < sizeof(struct uet_svc_region) ||
	    h->page_size < sizeof(struct uet_svc_page) ||
	    h->nb_ctx == 0 || h->nb_ctx > UET_SVC_CTX_MAX ||
	    h->max_msg > h->window_len || h->nb_jobs > UET_SVC_JOB_RANGES_MAX ||
	    h->max_chans == 0 || h->max_chans > UET_SVC_CHANS_MAX ||
	    h->ring_max < 2 || h->is_v6 > 1)
		return -EPROTO;
	return 0;
}

/* Map @p fd (at least @p len bytes: a shorter file would fault). */
static void *
map_fd(int fd, uint64_t len, int prot, int *err)
{
	struct stat st;
	void *p;

	if (fstat(fd, &st) < 0 || st.st_size < 0 ||
	    (uint64_t)st.st_size < len || len > SIZE_MAX) {
		*err = -EPROTO;
		return NULL;
	}
	p = mmap(NULL, (size_t)len, prot, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		*err = -errno;
		return NULL;
	}
	return p;
}

static int
client_hello(struct uet_svc_client *c)
{
	struct uet_svc_hello_req req = { .version = UET_SVC_VERSION };
	int fds[CLIENT_FDS_MAX];
	unsigned int nfds = 0;
	uint32_t seq;
	int rc, mem;

	/* The service reaches the memory of our remote-access registrations
	 * through this descriptor of our own address space, opened with our
	 * rights (UET_SVC_HELLO_F_MEM); without it (no /proc) those
	 * registrations are refused, nothing else changes. */
	mem = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
	if (mem >= 0)
		req.flags = UET_SVC_HELLO_F_MEM;
	rc = client_send(c, UET_SVC_OP_HELLO, &req, sizeof(req), mem, &seq);
	if (mem >= 0)
		close(mem);
	/* refused at connect: the reason may wait in the socket */
	if (rc == -ENOTCONN) {
		rc = client_recv(c, seq, UET_SVC_OP_HELLO, NULL, 0, fds, 0,
				 NULL, uet_mono_ms() + c->timeout_ms);
		return rc < 0 ? rc : -ENOTCONN;
	}
	if (rc < 0)
		return rc;
	rc = client_recv(c, seq, UET_SVC_OP_HELLO, &c->hello,
			 sizeof(c->hello), fds, CLIENT_FDS_MAX, &nfds,
			 uet_mono_ms() + c->timeout_ms);
	if (rc < 0)
		return rc;
	if (hello_check(&c->hello) < 0 || nfds != 2 + c->hello.nb_ctx) {
		fds_close(fds, nfds);
		return -EPROTO;
	}
	c->region_fd = fds[0];
	c->page_fd = fds[1];
	memcpy(c->efd, fds + 2, c->hello.nb_ctx * sizeof(int));
	c->region = map_fd(c->region_fd, c->hello.region_size,
			   PROT_READ | PROT_WRITE, &rc);
	if (c->region == NULL)
		return rc;
	c->page = map_fd(c->page_fd, c->hello.page_size, PROT_READ, &rc);
	if (c->page == NULL)
		return rc;
	return 0;
}

static struct uet_svc_client *
client_new(unsigned int timeout_ms)
{
	struct uet_svc_client *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return NULL;
	c->fd = c->region_fd = c->page_fd = -1;
	for (unsigned int i = 0; i < UET_SVC_CTX_MAX; i++)
		c->efd[i] = -1;
	c->timeout_ms = timeout_ms ? timeout_ms : UET_SVC_TIMEOUT_MS;
	pthread_mutex_init(&c->lock, NULL);
	return c;
}

static void
client_free(struct uet_svc_client *c)
{
	if (c->page != NULL)
		munmap((void *)(uintptr_t)c->page, (size_t)c->hello.page_size);
	if (c->region != NULL)
		munmap(c->region, (size_t)c->hello.region_size);
	fds_close(c->efd, UET_SVC_CTX_MAX);
	if (c->page_fd >= 0)
		close(c->page_fd);
	if (c->region_fd >= 0)
		close(c->region_fd);
	if (c->fd >= 0)
		close(c->fd);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

int
uet_svc_client_attach(const char *path, unsigned int timeout_ms,
		      struct uet_svc_client **out)
{
	return uet_svc_client_attach_uid(path, timeout_ms, UET_SVC_UID_NONE,
					 out);
}

int
uet_svc_client_attach_uid(const char *path, unsigned int timeout_ms,
			  uint32_t service_uid, struct uet_svc_client **out)
{
	struct uet_svc_client *c;
	int rc;

	if (out == NULL)
		return -EINVAL;
	c = client_new(timeout_ms);
	if (c == NULL)
		return -ENOMEM;
	rc = client_connect(path, service_uid, &c->fd);
	if (rc == 0)
		rc = client_hello(c);
	if (rc < 0) {
		client_free(c);
		return rc;
	}
	*out = c;
	return 0;
}

void
uet_svc_client_detach(struct uet_svc_client *c)
{
	uint32_t seq;

	if (c == NULL)
		return;
	/* closing the socket says the same; BYE makes it explicit in the
	 * service's log, and needs no answer */
	if (!uet_svc_client_lost(c))
		(void)client_send(c, UET_SVC_OP_BYE, NULL, 0, -1, &seq);
	client_free(c);
}

/* ---- state ---- */

const struct uet_svc_hello_rep *
uet_svc_client_hello(const struct uet_svc_client *c)
{
	return &c->hello;
}

uint8_t *
uet_svc_client_window(const struct uet_svc_client *c)
{
	return c->region + c->hello.window_off;
}

int
uet_svc_client_fd(const struct uet_svc_client *c)
{
	return c->fd;
}

bool
uet_svc_client_lost(const struct uet_svc_client *c)
{
	return atomic_load_explicit(&c->lost, memory_order_acquire);
}

int
uet_svc_client_check(struct uet_svc_client *c)
{
	struct pollfd p = { .fd = c->fd, .events = POLLIN };
	uint8_t b[UET_SVC_MSG_MAX];
	ssize_t n;

	if (uet_svc_client_lost(c))
		return -ENOTCONN;
	/* a thread in a request reads the socket: it sees the end itself */
	if (pthread_mutex_trylock(&c->lock) != 0)
		return 0;
	if (poll(&p, 1, 0) == 1) {
		if (p.revents & (POLLHUP | POLLERR | POLLNVAL)) {
			client_lose(c);
		} else if (p.revents & POLLIN) {
			/* a late reply to a request that timed out: drop
			 * it; 0 bytes is the end of the connection */
			n = recv(c->fd, b, sizeof(b), MSG_DONTWAIT);
			if (n == 0 || (n < 0 && errno != EAGAIN &&
				       errno != EINTR))
				client_lose(c);
		}
	}
	pthread_mutex_unlock(&c->lock);
	return uet_svc_client_lost(c) ? -ENOTCONN : 0;
}

/* ---- channels ---- */

/* Ring @p off of @p size entries of @p esize bytes lies in the region's
 * ring area (before the window), cache-line aligned. */
static bool
ring_in_region(const struct uet_svc_client *c, uint64_t off,
	       unsigned int esize, uint32_t size)
{
	ssize_t bytes = rte_ring_get_memsize_elem(esize, size);

	return bytes > 0 && off % RTE_CACHE_LINE_SIZE == 0 &&
	       off >= sizeof(struct uet_svc_region) &&
	       off <= c->hello.window_off &&
	       (uint64_t)bytes <= c->hello.window_off - off;
}

int
uet_svc_client_chan_map(struct uet_svc_client *c, const char *name,
			const struct uet_svc_chan_open_req *req,
			const struct uet_svc_chan_open_rep *rep,
			struct uet_chan *chan)
{
	int rc;

	if (c == NULL || req == NULL || rep == NULL || chan == NULL)
		return -EINVAL;
	if (!ring_in_region(c, rep->sq_off, sizeof(struct uet_chan_sqe),
			    req->sq_size) ||
	    !ring_in_region(c, rep->rq_off, sizeof(struct uet_chan_rqe),
			    req->rq_size) ||
	    !ring_in_region(c, rep->cq_off, sizeof(struct uet_chan_cqe),
			    req->cq_size) ||
	    rep->ctx >= c->hello.nb_ctx)
		return -EPROTO;
	rc = uet_chan_map_mem(chan, name, c->region + rep->sq_off,
			      c->region + rep->rq_off, c->region + rep->cq_off,
			      req->sq_size, req->rq_size, req->cq_size,
			      req->flags);
	if (rc < 0)
		return rc == -EINVAL ? -EPROTO : rc;
	/* a post reads the context's flag in the page and writes its
	 * eventfd only while it sleeps (no syscall per post otherwise) */
	chan->wake_fd = -1;
	chan->waker = NULL;
	if (c->hello.caps & UET_SVC_CAP_WAKE) {
		chan->waker = (struct uet_engine_waker *)(uintptr_t)
			      &c->page->ctx[rep->ctx].w;
		chan->wake_fd = c->efd[rep->ctx];
	}
	return 0;
}
