/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One move of the service's attack suite (test/service/svc_lib.sh,
 * test_svc_attack.sh), run as an unprivileged user (setpriv) against a
 * uet-engine that root started: each command does what an attacker (or
 * its victim) would, checks that the service answered as it must, says
 * what it saw on stdout and exits 0 (as expected) or 1 (not). Every wait
 * is bounded.
 *
 *   svc_attack SOCK victim JOB STOPFILE    a client sending to itself,
 *                                          data checked, until STOPFILE
 *   svc_attack SOCK job JOB RC             JOB_ADD and MR_REG of JOB: RC
 *   svc_attack SOCK pid-steal PID          another's PIDonFEP: taken/not its
 *   svc_attack SOCK send-into JOB PID      a SEND in another's JOB: -EPERM
 *   svc_attack SOCK conns N                N connections, the next -EDQUOT
 *   svc_attack SOCK window MAX             HELLOs until -EDQUOT (< MAX)
 *   svc_attack SOCK pids|jobs|mrs|peers N  N of them, the next -EDQUOT
 *   svc_attack SOCK ops N                  N receives nothing completes,
 *                                          the next 4 -ENOSPC (pid_ops)
 *   svc_attack SOCK hello-late             no HELLO (other requests, every
 *                                          200 ms): -ETIMEDOUT, closed
 *   svc_attack SOCK idle                   HELLO, nothing: -ETIMEDOUT
 *   svc_attack SOCK connect ERRNO          connect(): 0 or -ERRNO
 *   svc_attack SOCK attach ERRNO           the client library's attach
 *   svc_attack SOCK squat                  bind SOCK, serve one connection:
 *                                          exit 0 when it sent nothing
 *   svc_attack PREFIX tel [CMD] KEY        a counter (/uet/service)
 *   svc_attack - region MAX_CHANS WINDOW   bytes of one client's region
 */

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <rte_common.h>

#include <uet/uet_svc_client.h>

#include "svc_rawcli.h"

#define VICTIM_LEN 3000u
#define VICTIM_ROUNDS_MAX 1000000u
#define WAIT_MS 30000
/* the quota moves take JobIDs from here on (1 is the provider's) */
#define QUOTA_JOB 11u

static const char *sock;

static int
expect(const char *what, int got, int want)
{
	printf("%s: %d (%s), expected %d\n", what, got, strerror(-got), want);
	return got == want ? 0 : 1;
}

static int
attached(struct rc_client *c)
{
	int rc = rc_connect(c, sock);

	return rc == 0 ? rc_hello(c) : rc;
}

/* An attached client with a PIDonFEP. */
static int
with_pid(struct rc_client *c, struct uet_svc_pid_get_rep *p)
{
	int rc = attached(c);

	return rc == 0 ? rc_pid_get(c, 0, UET_SVC_CTX_ANY, p) : rc;
}

static int
mr_reg(struct rc_client *c, uint32_t job, uint16_t pid)
{
	static uint8_t buf[64];
	struct uet_svc_mr_reg_req q = {
		.addr = (uintptr_t)buf, .len = sizeof(buf), .job = job,
		.pid = pid, .access = 0, /* local only: the policy decides */
	};
	struct uet_svc_mr_reg_rep r;

	return rc_request(c, UET_SVC_OP_MR_REG, &q, sizeof(q), &r, sizeof(r),
			  NULL, NULL);
}

/* ---- the victim ---- */

static bool
victim_round(struct rc_client *c, struct rc_chan *ch, uint64_t peer,
	     uint32_t job, unsigned int k)
{
	struct uet_chan_rqe r = { .op = UET_CHAN_RQ_RECV, .context = 2 * k,
				  .addr = 0, .len = 8192 };
	struct uet_chan_sqe q = { .op = UET_CHAN_OP_SEND,
				  .flags = UET_CHAN_F_COMPLETION,
				  .context = 2 * k + 1, .addr = 8192,
				  .len = VICTIM_LEN, .dest = peer, .job = job,
				  .tc = 1 };
	struct uet_chan_cqe e;
	bool sent = false, got = false;

	for (unsigned int i = 0; i < VICTIM_LEN; i++)
		c->win[8192 + i] = (uint8_t)(i * 7 + k);
	memset(c->win, 0, 8192);
	if (uet_chan_rq_post(&ch->ch, &r) != 0 ||
	    uet_chan_sq_post(&ch->ch, &q) != 0)
		return false;
	for (int n = 0; n < 2 && rc_cq_wait(ch, &e); n++) {
		if (e.status != 0)
			return false;
		sent |= e.context == q.context;
		got |= e.context == r.context && e.len == VICTIM_LEN;
	}
	return sent && got && memcmp(c->win, c->win + 8192, VICTIM_LEN) == 0;
}

static int
victim(uint32_t job, const char *stop)
{
	struct uet_svc_pid_get_rep p;
	struct rc_client c;
	struct rc_chan ch;
	uint64_t peer = 0;
	unsigned int k;
	int rc;

	rc = with_pid(&c, &p);
	if (rc == 0)
		rc = rc_job(&c, true, job, p.pid);
	if (rc == 0)
		rc = rc_chan_open(&c, p.pid, 64, &ch);
	if (rc == 0)
		rc = rc_peer_add(&c, ch.ctx, p.pid, p.initiator, &peer);
	if (rc < 0)
		return expect("victim setup", rc, 0);
	printf("ready %u\n", p.pid);
	fflush(stdout);
	/* a message per millisecond or so: the attacks share the CPUs */
	for (k = 0; k < VICTIM_ROUNDS_MAX && access(stop, F_OK) != 0; k++) {
		if (!victim_round(&c, &ch, peer, job, k)) {
			printf("victim: message %u lost or damaged\n", k);
			return 1;
		}
		usleep(1000);
	}
	printf("victim: %u messages, every byte checked\n", k);
	rc = rc_bye(&c);
	rc_close(&c);
	return k > 0 && k < VICTIM_ROUNDS_MAX && rc == 0 ? 0 : 1;
}

/* ---- op records ---- */

#define OPS_OVER 4u

/* A process posting receives that never complete holds at most pid_ops
 * of its context's op records: @p n of them are kept, the next ones
 * complete -ENOSPC at once (the victim's go on meanwhile). */
static int
ops(unsigned int n)
{
	struct uet_chan_rqe r = { .op = UET_CHAN_RQ_RECV, .len = 64 };
	struct uet_svc_pid_get_rep p;
	unsigned int ring = 2, refused = 0, bad = 0;
	struct uet_chan_cqe e;
	struct rc_client c;
	struct rc_chan ch;
	int rc;

	while (ring < n + OPS_OVER && ring < UET_SVC_RING_MAX)
		ring <<= 1;
	rc = with_pid(&c, &p);
	if (rc == 0)
		rc = rc_chan_open_sizes(&c, p.pid, 2, ring, ring, &ch);
	if (rc < 0)
		return expect("ops setup", rc, 0);
	for (unsigned int i = 0; i < n + OPS_OVER; i++) {
		r.context = i + 1;
		if (uet_chan_rq_post(&ch.ch, &r) != 0)
			return expect("post", -ENOSPC, 0);
	}
	/* the last OPS_OVER, in order, and nothing else */
	while (refused + bad < OPS_OVER && rc_cq_wait(&ch, &e)) {
		if (e.status == -ENOSPC && e.context == n + refused + 1)
			refused++;
		else
			bad++;
	}
	printf("ops: %u receives posted, %u refused -ENOSPC, %u other "
	       "completions\n", n + OPS_OVER, refused, bad);
	rc = rc_bye(&c);
	rc_close(&c);
	return refused == OPS_OVER && bad == 0 && rc == 0 ? 0 : 1;
}

/* ---- policy ---- */

static int
job(uint32_t id, int want)
{
	struct uet_svc_pid_get_rep p;
	struct rc_client c;
	int rc = with_pid(&c, &p), bad;

	if (rc < 0)
		return expect("setup", rc, 0);
	bad = expect("JOB_ADD", rc_job(&c, true, id, p.pid), want);
	bad |= expect("MR_REG", mr_reg(&c, id, p.pid), want);
	rc_close(&c);
	return bad;
}

static int
pid_steal(uint16_t pid)
{
	struct uet_svc_pid_put_req put = { .pid = pid };
	struct uet_svc_pid_get_rep p;
	struct rc_client c;
	int rc = attached(&c), bad;

	if (rc < 0)
		return expect("setup", rc, 0);
	bad = expect("PID_GET of it", rc_pid_get(&c, pid, UET_SVC_CTX_ANY, &p),
		     -EADDRINUSE);
	bad |= expect("PID_PUT of it", rc_request(&c, UET_SVC_OP_PID_PUT, &put,
						  sizeof(put), NULL, 0, NULL,
						  NULL), -EPERM);
	rc_close(&c);
	return bad;
}

/* A SEND naming a JobID the client did not authorise (another user's) to
 * that user's PIDonFEP: the engine completes it -EPERM, sends nothing. */
static int
send_into(uint32_t id, uint16_t pid)
{
	struct uet_svc_pid_get_rep p;
	struct uet_chan_cqe e = { .status = -ETIMEDOUT };
	struct uet_chan_sqe q;
	struct rc_client c;
	struct rc_chan ch;
	uint64_t peer = 0;
	uint32_t init;
	int rc = with_pid(&c, &p);

	if (rc == 0)
		rc = rc_chan_open(&c, p.pid, 64, &ch);
	/* the victim's initiator id: the provider's rule (low 20 bits of
	 * the FA, then the PIDonFEP) */
	init = ((((uint32_t)c.hello.fa[1] << 16 | (uint32_t)c.hello.fa[2] << 8 |
		  c.hello.fa[3]) & 0xFFFFFu) << 12) | pid;
	if (rc == 0)
		rc = rc_peer_add(&c, ch.ctx, pid, init, &peer);
	if (rc < 0)
		return expect("setup", rc, 0);
	memset(&q, 0, sizeof(q));
	q.op = UET_CHAN_OP_SEND;
	q.flags = UET_CHAN_F_COMPLETION;
	q.context = 7;
	q.len = 64;
	q.dest = peer;
	q.job = id;
	q.tc = 1;
	memset(c.win, 0xEE, 64);
	if (uet_chan_sq_post(&ch.ch, &q) != 0 || !rc_cq_wait(&ch, &e))
		e.status = -ETIMEDOUT;
	rc_close(&c);
	return expect("SEND in that job", e.status, -EPERM);
}

/* ---- quotas ---- */

static int
conns(unsigned int n)
{
	struct rc_client c[64];
	unsigned int i;
	int rc = 0, bad;

	n = RTE_MIN(n, (unsigned int)RTE_DIM(c) - 1);
	/* no HELLO: the connection alone counts */
	for (i = 0; i < n && rc == 0; i++)
		rc = rc_connect(&c[i], sock);
	bad = expect("connections", rc, 0);
	rc = attached(&c[i]);
	bad |= expect("one more", rc, -EDQUOT);
	for (unsigned int k = 0; k <= i; k++)
		rc_close(&c[k]);
	return bad;
}

static int
window(unsigned int max)
{
	struct rc_client c[64];
	unsigned int i;
	int rc = 0;

	max = RTE_MIN(max, (unsigned int)RTE_DIM(c));
	for (i = 0; i < max; i++) {
		rc = attached(&c[i]);
		if (rc < 0)
			break;
	}
	printf("%u connections with their region\n", i);
	for (unsigned int k = 0; k <= i && k < max; k++)
		rc_close(&c[k]);
	return expect("the next", rc, -EDQUOT) | (i == 0 || i == max);
}

static int
take(struct rc_client *c, const char *what, unsigned int k,
     const struct uet_svc_pid_get_rep *p)
{
	struct uet_svc_pid_get_rep q;
	uint64_t h;

	if (strcmp(what, "pids") == 0)
		return rc_pid_get(c, 0, UET_SVC_CTX_ANY, &q);
	if (strcmp(what, "jobs") == 0)
		return rc_job(c, true, QUOTA_JOB + k, p->pid);
	if (strcmp(what, "mrs") == 0)
		return mr_reg(c, QUOTA_JOB, p->pid);
	return rc_peer_add(c, p->ctx, p->pid, p->initiator, &h);
}

static int
quota(const char *what, unsigned int n)
{
	struct uet_svc_pid_get_rep p;
	struct rc_client c;
	unsigned int k = 0;
	int rc, bad;

	rc = with_pid(&c, &p);
	/* MR_REG needs a JobID of its own */
	if (rc == 0 && strcmp(what, "mrs") == 0)
		rc = rc_job(&c, true, QUOTA_JOB, p.pid);
	if (rc < 0)
		return expect("setup", rc, 0);
	/* the PIDonFEP of the setup is one of them */
	if (strcmp(what, "pids") == 0)
		k = 1;
	for (; k < n && rc == 0; k++)
		rc = take(&c, what, k, &p);
	bad = expect(what, rc, 0);
	bad |= expect("one more", take(&c, what, k, &p), -EDQUOT);
	rc_close(&c);
	return bad;
}

/* ---- timeouts ---- */

static int
notice(struct rc_client *c, unsigned int op)
{
	struct uet_svc_hdr h;
	struct pollfd p = { .fd = c->fd, .events = POLLIN };
	int n, bad;

	if (poll(&p, 1, WAIT_MS) != 1)
		return expect("notice", -ETIMEDOUT, 0);
	n = rc_recv_raw(c, &h, sizeof(h), NULL, NULL);
	bad = expect("notice", n == (int)sizeof(h) && h.seq == 0 &&
		     h.op == (op | UET_SVC_OP_REPLY) ? h.rc : -EPROTO,
		     -ETIMEDOUT);
	bad |= expect("then the end", rc_recv_raw(c, &h, sizeof(h), NULL,
						  NULL), 0);
	return bad;
}

/* Requests before HELLO (each -EPROTO) do not postpone its deadline:
 * one every 200 ms until the service gives up on the connection. */
static int
chatty_until_notice(struct rc_client *c)
{
	struct uet_svc_pid_get_req q = { .ctx = UET_SVC_CTX_ANY };
	struct uet_svc_pid_get_rep r;
	int rc = -EPROTO;

	for (unsigned int i = 0; i < WAIT_MS / 200 && rc == -EPROTO; i++) {
		rc = rc_request(c, UET_SVC_OP_PID_GET, &q, sizeof(q), &r,
				sizeof(r), NULL, NULL);
		if (rc == -EPROTO)
			usleep(200000);
	}
	return expect("notice", rc, -ETIMEDOUT);
}

static int
silent(bool hello)
{
	struct rc_client c;
	int rc = hello ? attached(&c) : rc_connect(&c, sock), bad;

	if (rc < 0)
		return expect("setup", rc, 0);
	bad = hello ? notice(&c, UET_SVC_OP_BYE) : chatty_until_notice(&c);
	rc_close(&c);
	return bad;
}

/* ---- the socket ---- */

static int
squat(void)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct pollfd p;
	uint8_t buf[64];
	int l, s, n;

	snprintf(a.sun_path, sizeof(a.sun_path), "%s", sock);
	l = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	/* open to anyone, as a squatter would make it */
	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) != 0 ||
	    chmod(sock, 0777) != 0 || listen(l, 4) != 0)
		return expect("squat", -errno, 0);
	printf("listening\n");
	fflush(stdout);
	p = (struct pollfd){ .fd = l, .events = POLLIN };
	if (poll(&p, 1, WAIT_MS) != 1)
		return expect("a client", -ETIMEDOUT, 0);
	s = accept(l, NULL, NULL);
	p = (struct pollfd){ .fd = s, .events = POLLIN };
	n = poll(&p, 1, WAIT_MS) == 1 ? (int)recv(s, buf, sizeof(buf), 0) :
					 -ETIMEDOUT;
	close(s);
	close(l);
	unlink(sock);
	return expect("bytes the client sent the squatter", n, 0);
}

static int
attach(int want)
{
	struct uet_svc_client *c = NULL;
	int rc = uet_svc_client_attach(sock, 5000, &c);

	uet_svc_client_detach(c);
	return expect("attach", rc, want);
}

static int
connect_only(int want)
{
	struct rc_client c;
	int rc = rc_connect(&c, sock);

	if (rc == 0)
		rc_close(&c);
	return expect("connect", rc, want);
}

static int
tel(const char *prefix, const char *cmd, const char *key)
{
	struct rc_service s;
	uint64_t v;

	memset(&s, 0, sizeof(s));
	snprintf(s.prefix, sizeof(s.prefix), "%s", prefix);
	if (rc_tel(&s, cmd, key, &v) < 0)
		return 1;
	printf("%lu\n", (unsigned long)v);
	return 0;
}

static int
region(unsigned int chans, unsigned long window)
{
	size_t ring = uet_chan_mem_size(UET_SVC_RING_MAX, UET_SVC_RING_MAX,
					UET_SVC_RING_MAX, NULL);

	printf("%lu\n", (unsigned long)(UET_SVC_PAGE + chans *
		RTE_ALIGN_CEIL(ring, (size_t)UET_SVC_PAGE) + window));
	return 0;
}

static long
num(const char *s)
{
	char *end;
	long v = strtol(s, &end, 0);

	if (*s == '\0' || *end != '\0') {
		fprintf(stderr, "svc_attack: '%s': not a number\n", s);
		exit(2);
	}
	return v;
}

static int
run(const char *cmd, int argc, char **argv)
{
	const char *a1 = argc > 0 ? argv[0] : "0", *a2 = argc > 1 ? argv[1] : "";

	if (strcmp(cmd, "victim") == 0 && argc == 2)
		return victim((uint32_t)num(a1), a2);
	if (strcmp(cmd, "job") == 0 && argc == 2)
		return job((uint32_t)num(a1), (int)num(a2));
	if (strcmp(cmd, "pid-steal") == 0 && argc == 1)
		return pid_steal((uint16_t)num(a1));
	if (strcmp(cmd, "send-into") == 0 && argc == 2)
		return send_into((uint32_t)num(a1), (uint16_t)num(a2));
	if (strcmp(cmd, "conns") == 0 && argc == 1)
		return conns((unsigned int)num(a1));
	if (strcmp(cmd, "window") == 0 && argc == 1)
		return window((unsigned int)num(a1));
	if ((strcmp(cmd, "pids") == 0 || strcmp(cmd, "jobs") == 0 ||
	     strcmp(cmd, "mrs") == 0 || strcmp(cmd, "peers") == 0) &&
	    argc == 1)
		return quota(cmd, (unsigned int)num(a1));
	if (strcmp(cmd, "ops") == 0 && argc == 1)
		return ops((unsigned int)num(argv[0]));
	if (strcmp(cmd, "hello-late") == 0 && argc == 0)
		return silent(false);
	if (strcmp(cmd, "idle") == 0 && argc == 0)
		return silent(true);
	if (strcmp(cmd, "connect") == 0 && argc == 1)
		return connect_only((int)num(a1));
	if (strcmp(cmd, "attach") == 0 && argc == 1)
		return attach((int)num(a1));
	if (strcmp(cmd, "squat") == 0 && argc == 0)
		return squat();
	if (strcmp(cmd, "tel") == 0 && argc == 1)
		return tel(sock, "/uet/service", a1);
	if (strcmp(cmd, "tel") == 0 && argc == 2)
		return tel(sock, a1, a2);
	if (strcmp(cmd, "region") == 0 && argc == 2)
		return region((unsigned int)num(a1), (unsigned long)num(a2));
	fprintf(stderr, "svc_attack: bad command '%s' (see the file's "
		"head)\n", cmd);
	return 2;
}

int
main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: %s SOCK|PREFIX COMMAND [ARGS]\n",
			argv[0]);
		return 2;
	}
	sock = argv[1];
	setvbuf(stdout, NULL, _IOLBF, 0);
	return run(argv[2], argc - 3, argv + 3);
}
