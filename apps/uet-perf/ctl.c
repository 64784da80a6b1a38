/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The TCP control connection of two-process uet-perf (like fabtests'
 * out-of-band socket): one text line per message, "VERB key=value ...",
 * at most PERF_CTL_LINE bytes. The socket is non-blocking and every read
 * and write waits with poll() for at most a given time, so a dead or
 * silent peer is an error, never a hang.
 */

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <uet/uet_clock.h>

#include "perf.h"

/* Split "[v6]:port", "host:port", "host" or ":port"/"port" (listen). */
static int
split_hostport(const char *spec, bool port_only_ok, char *host, size_t hn,
	       char *port, size_t pn)
{
	const char *colon;
	size_t len;

	snprintf(port, pn, "%u", PERF_CTL_PORT);
	if (spec[0] == '[') {
		const char *end = strchr(spec, ']');

		if (end == NULL || (end[1] != '\0' && end[1] != ':'))
			return -EINVAL;
		len = (size_t)(end - spec - 1);
		colon = end[1] == ':' ? end + 1 : NULL;
		spec++;
	} else {
		colon = strrchr(spec, ':');
		if (colon != NULL && strchr(spec, ':') != colon)
			return -EINVAL; /* bare IPv6: use [addr]:port */
		len = colon ? (size_t)(colon - spec) : strlen(spec);
		if (colon == NULL && port_only_ok &&
		    strspn(spec, "0123456789") == strlen(spec)) {
			colon = spec - 1; /* "PORT" */
			len = 0;
		}
	}
	if (len >= hn || (colon && strlen(colon + 1) >= pn))
		return -EINVAL;
	memcpy(host, spec, len);
	host[len] = '\0';
	if (colon != NULL) {
		if (colon[1] == '\0')
			return -EINVAL;
		snprintf(port, pn, "%s", colon + 1);
	}
	if (host[0] == '\0' && !port_only_ok)
		return -EINVAL;
	return 0;
}

int
perf_ctl_check_spec(const char *spec, bool listen)
{
	char host[256], port[16];
	uint64_t v;
	struct uet_parse_err err;

	struct addrinfo hints, *ai = NULL;

	if (split_hostport(spec, listen, host, sizeof(host), port,
			   sizeof(port)) < 0 ||
	    uet_parse_u64(port, listen ? 0 : 1, 65535, &v, &err) < 0)
		return -EINVAL;
	/* the host too, before anything starts: a server listens on an
	 * address of its own (numeric), a client's peer must resolve */
	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV |
			 (listen ? AI_PASSIVE | AI_NUMERICHOST : 0);
	if (getaddrinfo(host[0] ? host : NULL, port, &hints, &ai) != 0)
		return -EHOSTUNREACH;
	freeaddrinfo(ai);
	return 0;
}

static int
set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

static struct addrinfo *
resolve(const char *spec, bool listen, int *rc)
{
	struct addrinfo hints, *ai = NULL;
	char host[256], port[16];
	int g;

	*rc = split_hostport(spec, listen, host, sizeof(host), port,
			     sizeof(port));
	if (*rc < 0)
		return NULL;
	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = listen ? AI_PASSIVE : 0;
	hints.ai_family = listen && host[0] == '\0' ? AF_INET : AF_UNSPEC;
	g = getaddrinfo(host[0] ? host : NULL, port, &hints, &ai);
	if (g != 0) {
		fprintf(stderr, "uet-perf: %s: %s\n", spec, gai_strerror(g));
		*rc = -EHOSTUNREACH;
		return NULL;
	}
	return ai;
}

int
perf_ctl_listen(const char *spec, int *lfd, uint16_t *bound)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	struct addrinfo *ai;
	int fd, rc, one = 1;

	ai = resolve(spec, true, &rc);
	if (ai == NULL)
		return rc;
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		rc = -errno;
		goto free_ai;
	}
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(fd, 1) < 0 ||
	    getsockname(fd, (struct sockaddr *)&ss, &sl) < 0) {
		rc = -errno;
		goto close_fd;
	}
	*bound = ntohs(ss.ss_family == AF_INET6 ?
		       ((struct sockaddr_in6 *)&ss)->sin6_port :
		       ((struct sockaddr_in *)&ss)->sin_port);
	*lfd = fd;
	freeaddrinfo(ai);
	return 0;
close_fd:
	close(fd);
free_ai:
	freeaddrinfo(ai);
	return rc;
}

static void
ctl_init(struct perf_ctl *c, int fd)
{
	int one = 1;

	memset(c, 0, sizeof(*c));
	c->fd = fd;
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* Whether *@p stop is set. */
static bool
stopped(const volatile sig_atomic_t *stop)
{
	return stop != NULL && *stop;
}

int
perf_ctl_accept(int lfd, struct perf_ctl *c, int timeout_ms,
		const volatile sig_atomic_t *stop)
{
	uint64_t end = uet_mono_ms() + (uint64_t)timeout_ms;
	struct pollfd p = { .fd = lfd, .events = POLLIN };
	int fd, rc;

	/* Other signals (a PMD's SIGIO, ...) do not end the wait; the one
	 * that sets *stop does, within 100 ms (it may come just before the
	 * poll). */
	for (;;) {
		uint64_t now = uet_mono_ms();

		if (stopped(stop))
			return -EINTR;
		if (now >= end)
			return -ETIMEDOUT;
		rc = poll(&p, 1, end - now < 100 ? (int)(end - now) : 100);
		if (rc > 0)
			break;
		if (rc < 0 && errno != EINTR)
			return -errno;
	}
	fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0)
		return -errno;
	rc = set_nonblock(fd);
	if (rc < 0) {
		close(fd);
		return rc;
	}
	ctl_init(c, fd);
	return 0;
}

/* One non-blocking connect attempt, finished within @p ms. */
static int
try_connect(const struct addrinfo *a, int ms)
{
	struct pollfd p;
	socklen_t sl = sizeof(int);
	int fd, err = 0;

	fd = socket(a->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
		    0);
	if (fd < 0)
		return -errno;
	if (connect(fd, a->ai_addr, a->ai_addrlen) == 0)
		return fd;
	if (errno != EINPROGRESS) {
		err = -errno;
		goto close_fd;
	}
	p = (struct pollfd){ .fd = fd, .events = POLLOUT };
	if (poll(&p, 1, ms) != 1) {
		err = -ETIMEDOUT;
		goto close_fd;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &sl) < 0 || err != 0) {
		err = err ? -err : -errno;
		goto close_fd;
	}
	return fd;
close_fd:
	close(fd);
	return err;
}

/* Retry (the server may still be starting) until @p timeout_ms. */
int
perf_ctl_connect(const char *spec, struct perf_ctl *c, int timeout_ms,
		 const volatile sig_atomic_t *stop)
{
	uint64_t end = uet_mono_ms() + (uint64_t)timeout_ms;
	struct addrinfo *ai;
	int rc, fd = -ETIMEDOUT;

	ai = resolve(spec, false, &rc);
	if (ai == NULL)
		return rc;
	for (;;) {
		for (const struct addrinfo *a = ai; a != NULL; a = a->ai_next) {
			fd = try_connect(a, 1000);
			if (fd >= 0)
				break;
		}
		if (fd >= 0 || uet_mono_ms() >= end)
			break;
		if (stopped(stop)) {
			fd = -EINTR;
			break;
		}
		usleep(100000);
	}
	freeaddrinfo(ai);
	if (fd < 0)
		return fd;
	ctl_init(c, fd);
	return 0;
}

void
perf_ctl_close(struct perf_ctl *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

int
perf_ctl_send(struct perf_ctl *c, int timeout_ms, const char *fmt, ...)
{
	char line[PERF_CTL_LINE];
	uint64_t end = uet_mono_ms() + (uint64_t)timeout_ms;
	size_t len, off = 0;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(line) - 1)
		return -EMSGSIZE;
	len = (size_t)n;
	line[len++] = '\n';
	while (off < len) {
		struct pollfd p = { .fd = c->fd, .events = POLLOUT };
		uint64_t now = uet_mono_ms();
		ssize_t w;

		if (now >= end)
			return -ETIMEDOUT;
		if (poll(&p, 1, (int)(end - now)) <= 0)
			continue;
		w = send(c->fd, line + off, len - off, MSG_NOSIGNAL);
		if (w < 0 && errno != EAGAIN && errno != EINTR)
			return -errno;
		if (w > 0)
			off += (size_t)w;
	}
	return 0;
}

/*
 * A complete line in the buffer: move it to @p out (@return 1). A line
 * that does not fit @p out, or the buffer, is dropped whole, up to its
 * newline: -EMSGSIZE once, and the next line is read as usual (a peer's
 * over-long line is refused, never truncated into another line).
 */
static int
take_line(struct perf_ctl *c, char *out, size_t n)
{
	char *nl = memchr(c->buf, '\n', c->len);
	bool skipped = c->skip;
	size_t l;

	if (nl == NULL) {
		if (c->len < sizeof(c->buf))
			return 0;
		c->len = 0;
		c->skip = true;
		return skipped ? 0 : -EMSGSIZE;
	}
	l = (size_t)(nl - c->buf);
	if (!skipped && l < n) {
		memcpy(out, c->buf, l);
		out[l] = '\0';
	}
	memmove(c->buf, nl + 1, c->len - l - 1);
	c->len -= l + 1;
	c->skip = false;
	if (skipped) /* the end of a line already refused: the next one */
		return take_line(c, out, n);
	return l < n ? 1 : -EMSGSIZE;
}

/*
 * Next line within @p timeout_us (0: only what is already readable).
 * @return 1 (line), 0 (none yet), -ETIMEDOUT is never returned here: the
 *   caller owns the deadline; -ECONNRESET (peer closed), -EMSGSIZE (a line
 *   longer than @p n - 1 bytes, dropped: the connection stays usable).
 */
int
perf_ctl_poll_line(struct perf_ctl *c, char *out, size_t n,
		   unsigned int timeout_us)
{
	struct timespec ts = {
		.tv_sec = timeout_us / 1000000,
		.tv_nsec = (long)(timeout_us % 1000000) * 1000,
	};
	struct pollfd p = { .fd = c->fd, .events = POLLIN };
	ssize_t r;
	int rc;

	rc = take_line(c, out, n);
	if (rc != 0)
		return rc;
	if (ppoll(&p, 1, &ts, NULL) <= 0)
		return 0;
	r = recv(c->fd, c->buf + c->len, sizeof(c->buf) - c->len, 0);
	if (r == 0)
		return -ECONNRESET;
	if (r < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	c->len += (size_t)r;
	return take_line(c, out, n);
}

int
perf_ctl_recv(struct perf_ctl *c, char *out, size_t n, int timeout_ms)
{
	uint64_t end = uet_mono_ms() + (uint64_t)timeout_ms;

	for (;;) {
		int rc = perf_ctl_poll_line(c, out, n, 100000);

		if (rc != 0)
			return rc < 0 ? rc : 0;
		if (uet_mono_ms() >= end)
			return -ETIMEDOUT;
	}
}

bool
perf_kv(const char *line, const char *key, char *val, size_t n)
{
	size_t kl = strlen(key);

	for (const char *p = strchr(line, ' '); p != NULL;
	     p = strchr(p + 1, ' ')) {
		if (strncmp(p + 1, key, kl) == 0 && p[1 + kl] == '=') {
			const char *v = p + 2 + kl;
			size_t vl = strcspn(v, " ");

			if (vl >= n)
				return false;
			memcpy(val, v, vl);
			val[vl] = '\0';
			return true;
		}
	}
	return false;
}

bool
perf_kv_u64(const char *line, const char *key, uint64_t *out)
{
	struct uet_parse_err err;
	char v[32];

	return perf_kv(line, key, v, sizeof(v)) &&
	       uet_parse_u64(v, 0, UINT64_MAX, out, &err) == 0;
}

bool
perf_verb(const char *line, const char *verb)
{
	size_t l = strlen(verb);

	return strncmp(line, verb, l) == 0 &&
	       (line[l] == ' ' || line[l] == '\0');
}
