/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The uet-engine service as a trust boundary for memory (docs/SERVICE.md
 * "Security"), attacked by raw protocol clients (svc_rawcli.c) running as
 * the unprivileged user nobody, with a victim client that keeps working:
 *
 *   memory access is bound to the client's address space (HELLO's
 *   /proc/self/mem), never to its PID:
 *     - connect, fork a child that keeps the socket, exec a setuid-root
 *       program: the child's MR_REG of the program's ELF header and a
 *       READ through a key registered before the exec both fail
 *       (-ESRCH, AT_INVALID), nothing of the program read;
 *     - the connecting process exits and its PID is taken by another
 *       process (forced through ns_last_pid): MR_REG of that process's
 *       secret fails -ESRCH;
 *     - the engine's own memory cannot be named: a user cannot open
 *       /proc/<uet-engine>/mem, and HELLO takes nothing but a procfs
 *       mem file (a pipe, /dev/zero, a file, two descriptors: -EINVAL,
 *       counted);
 *   keys: a right key used outside its buffer answers BAD_MKEY as a
 *     wrong key does; a burst of wrong keys pauses the guesser's
 *     channel (key_throttled) while the victim is served;
 *   peer handles: another client's handle in an SQE is -EINVAL;
 *   fairness: a client that never polls its 2-entry CQ stalls only
 *     itself, another client's sends to the victim complete;
 *   a client killed with sends in flight: its release runs in
 *     the background, the victim's requests are answered meanwhile;
 *   the service page cannot be reopened writable.
 *
 * The setuid program is a copy of sleep(1) made by the test in a
 * directory of its own, removed at the end whatever happens.
 *
 * usage: test_svc_mem UET_ENGINE_BINARY
 */

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rte_common.h>

#include <uet/uet_ses_mr.h>
#include <uet/uet_ses_ulp.h>

#include "svc_rawcli.h"

#define JOB 1u
#define NOBODY 65534
#define WAIT_MS 5000

static struct rc_service svc;
static char suid_dir[64];
static char suid_bin[96];

static uint64_t
tel(const char *key)
{
	uint64_t v = UINT64_MAX;

	CHECK(rc_tel(&svc, "/uet/service", key, &v) == 0);
	return v;
}

static uint64_t
telemetry_ses(const char *key)
{
	uint64_t v = UINT64_MAX;

	CHECK(rc_tel(&svc, "/uet/ses,0", key, &v) == 0);
	return v;
}

struct cli {
	struct rc_client c;
	struct uet_svc_pid_get_rep pid;
	struct rc_chan ch;
};

/* Attached (HELLO with /proc/self/mem), a PIDonFEP, job JOB. */
static int
cli_attach(struct cli *k)
{
	int rc = rc_connect(&k->c, svc.sock);

	if (rc == 0)
		rc = rc_hello(&k->c);
	if (rc == 0)
		rc = rc_pid_get(&k->c, 0, UET_SVC_CTX_ANY, &k->pid);
	if (rc == 0)
		rc = rc_job(&k->c, true, JOB, k->pid.pid);
	return rc;
}

static int
cli_make(struct cli *k)
{
	int rc = cli_attach(k);

	if (rc == 0)
		rc = rc_chan_open(&k->c, k->pid.pid, 64, &k->ch);
	if (rc < 0)
		fprintf(stderr, "client setup: %s\n", strerror(-rc));
	return rc;
}

static int
mr_reg(struct rc_client *c, uint16_t pid, uintptr_t addr, uint64_t len,
       uint32_t access, uint64_t *key)
{
	struct uet_svc_mr_reg_req q = {
		.addr = addr, .len = len, .access = access, .job = JOB,
		.pid = pid,
	};
	struct uet_svc_mr_reg_rep r = { 0 };
	int rc;

	rc = rc_request(c, UET_SVC_OP_MR_REG, &q, sizeof(q), &r, sizeof(r),
			NULL, NULL);
	if (key != NULL)
		*key = r.key;
	return rc;
}

/* A READ of @p len bytes at @p raddr through @p key of @p peer into
 * window offset 0 of @p k: its CQE. */
static struct uet_chan_cqe
rma_read(struct cli *k, uint64_t peer, uint64_t key, uintptr_t raddr,
	 uint32_t len, uint64_t ctx)
{
	struct uet_chan_sqe q;
	struct uet_chan_cqe e;

	memset(&q, 0, sizeof(q));
	q.op = UET_CHAN_OP_READ;
	q.flags = UET_CHAN_F_COMPLETION;
	q.context = ctx;
	q.len = len;
	q.dest = peer;
	q.job = JOB;
	q.tc = 1;
	q.rkey = key;
	q.roffset = raddr;
	memset(&e, 0, sizeof(e));
	e.status = -ETIMEDOUT;
	if (uet_chan_sq_post(&k->ch.ch, &q) == 0)
		(void)rc_cq_wait(&k->ch, &e);
	return e;
}

/* Become nobody (no supplementary groups), a process of that user as
 * a login would start it (dumpable: its /proc/self is its own). */
static int
drop_privs(void)
{
	if (setgroups(0, NULL) != 0 || setresgid(NOBODY, NOBODY, NOBODY) != 0 ||
	    setresuid(NOBODY, NOBODY, NOBODY) != 0 ||
	    prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) != 0)
		return -errno;
	return 0;
}

static bool
rd_full(int fd, void *buf, size_t n)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	if (poll(&p, 1, WAIT_MS) != 1)
		return false;
	return read(fd, buf, n) == (ssize_t)n;
}

static void
wr_full(int fd, const void *buf, size_t n)
{
	if (write(fd, buf, n) != (ssize_t)n)
		_exit(90);
}

static void
reap(pid_t p)
{
	if (p <= 0)
		return;
	(void)kill(p, SIGKILL);
	(void)waitpid(p, NULL, 0);
}

/* ---- the setuid program ---- */

static void
suid_remove(void)
{
	if (suid_bin[0] != '\0')
		(void)unlink(suid_bin);
	if (suid_dir[0] != '\0')
		(void)rmdir(suid_dir);
	suid_bin[0] = suid_dir[0] = '\0';
}

/* A setuid-root copy of sleep(1) that nobody may run. */
static int
suid_make(void)
{
	char buf[65536];
	int in, out = -1, rc = -EIO;
	ssize_t n;

	snprintf(suid_dir, sizeof(suid_dir), "/tmp/uet-suid.XXXXXX");
	if (mkdtemp(suid_dir) == NULL) {
		suid_dir[0] = '\0';
		return -errno;
	}
	snprintf(suid_bin, sizeof(suid_bin), "%s/sleep", suid_dir);
	in = open("/bin/sleep", O_RDONLY | O_CLOEXEC);
	if (in >= 0)
		out = open(suid_bin, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
			   0700);
	if (in < 0 || out < 0)
		goto out;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			goto out;
	if (n == 0 && fchmod(out, 04755) == 0 && chmod(suid_dir, 0711) == 0)
		rc = 0;
out:
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return rc;
}

/* Where the program's ELF header is mapped in process @p p (after its
 * exec): the first line of /proc/p/maps naming it. 0: not (yet). */
static uintptr_t
elf_base(pid_t p)
{
	char path[64], line[512];
	uintptr_t base = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)p);
	f = fopen(path, "r");
	if (f == NULL)
		return 0;
	while (base == 0 && fgets(line, sizeof(line), f) != NULL)
		if (strstr(line, suid_bin) != NULL)
			base = (uintptr_t)strtoull(line, NULL, 16);
	fclose(f);
	return base;
}

/* ---- finding: exec of a setuid program ---- */

struct attacker_info {
	uint16_t pid;
	uint32_t initiator;
	uint64_t key;
	uintptr_t addr;
	int rc;
};

static _Alignas(64) uint8_t secret[4096];

/*
 * The attacker: connects (as root: the test's socket is root's), becomes
 * nobody, attaches with its own /proc/self/mem, registers @c secret for
 * remote read, forks a child that keeps the socket and execs the setuid
 * program. The child waits for an address in the program and registers
 * it (and @c secret again), reporting both results.
 */
static void
attacker_exec(int to_test, int from_test)
{
	struct attacker_info in = { 0 };
	struct cli a;
	int rc[2];
	uintptr_t addr;
	pid_t kid;

	/* a channel makes the PIDonFEP reachable from the network */
	if (rc_connect(&a.c, svc.sock) != 0 || drop_privs() != 0 ||
	    rc_hello(&a.c) != 0 ||
	    rc_pid_get(&a.c, 0, UET_SVC_CTX_ANY, &a.pid) != 0 ||
	    rc_job(&a.c, true, JOB, a.pid.pid) != 0 ||
	    rc_chan_open(&a.c, a.pid.pid, 16, &a.ch) != 0)
		_exit(91);
	memset(secret, 0x5A, sizeof(secret));
	in.pid = a.pid.pid;
	in.initiator = a.pid.initiator;
	in.addr = (uintptr_t)secret;
	in.rc = mr_reg(&a.c, a.pid.pid, in.addr, sizeof(secret),
		       UET_SES_MR_REMOTE_READ, &in.key);
	wr_full(to_test, &in, sizeof(in));
	kid = fork();
	if (kid < 0)
		_exit(92);
	if (kid == 0) {
		if (!rd_full(from_test, &addr, sizeof(addr)))
			_exit(93);
		rc[0] = mr_reg(&a.c, a.pid.pid, addr, 64,
			       UET_SES_MR_REMOTE_READ, NULL);
		rc[1] = mr_reg(&a.c, a.pid.pid, (uintptr_t)secret, 64,
			       UET_SES_MR_REMOTE_READ, NULL);
		wr_full(to_test, rc, sizeof(rc));
		/* the connection (and the key) lives until the test is done */
		(void)rd_full(from_test, &addr, sizeof(addr));
		_exit(0);
	}
	execl(suid_bin, "sleep", "20", (char *)NULL);
	_exit(94);
}

static void
test_exec_setuid(struct cli *v)
{
	int to_test[2], from_test[2], rc[2] = { 0, 0 };
	struct attacker_info in = { 0 };
	uint64_t err0 = tel("errors"), mem0 = telemetry_ses("ctx0_mem_err");
	uint64_t peer = 0;
	struct uet_chan_cqe e;
	uintptr_t base = 0;
	char elf[4] = { 0 }, path[64];
	pid_t att;
	int fd;

	if (suid_make() != 0 || pipe(to_test) != 0 || pipe(from_test) != 0) {
		fprintf(stderr, "setuid program: %s\n", strerror(errno));
		failures++;
		suid_remove();
		return;
	}
	att = fork();
	if (att == 0) {
		close(to_test[0]);
		attacker_exec(to_test[1], from_test[0]);
	}
	close(to_test[1]);
	CHECK(rd_full(to_test[0], &in, sizeof(in)));
	CHECK(in.rc == 0);
	/* the program runs (bounded wait): its ELF header is there, and
	 * root can read it, so any leak below would show */
	for (unsigned int i = 0; i < WAIT_MS / 10 && base == 0; i++) {
		base = elf_base(att);
		if (base == 0)
			usleep(10000);
	}
	CHECK(base != 0);
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)att);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	CHECK(fd >= 0 && pread(fd, elf, 4, (off_t)base) == 4 &&
	      memcmp(elf, "\x7f" "ELF", 4) == 0);
	if (fd >= 0)
		close(fd);
	/* the child, holding the socket, names the program's memory */
	CHECK(write(from_test[1], &base, sizeof(base)) == sizeof(base));
	CHECK(rd_full(to_test[0], rc, sizeof(rc)));
	CHECK(rc[0] == -ESRCH && rc[1] == -ESRCH);
	/* the victim READs through the key registered before the exec */
	CHECK(rc_peer_add(&v->c, v->ch.ctx, in.pid, in.initiator, &peer) == 0);
	memset(v->c.win, 0xEE, 64);
	e = rma_read(v, peer, in.key, in.addr, 64, 501);
	CHECK(e.status != 0 && e.prov_errno == UET_RC_AT_INVALID);
	for (unsigned int i = 0; i < 64; i++)
		CHECK(v->c.win[i] == 0xEE);
	CHECK(tel("errors") == err0 + 2);
	CHECK(telemetry_ses("ctx0_mem_err") >= mem0 + 1);
	CHECK(rc_peer_del(&v->c, v->ch.ctx, peer) == 0);
	CHECK(write(from_test[1], &base, sizeof(base)) == sizeof(base));
	printf("# exec setuid: ELF header at 0x%lx; MR_REG from the child "
	       "%d / %d, READ through the old key status %d rc %u\n",
	       (unsigned long)base, rc[0], rc[1], e.status, e.prov_errno);
	reap(att);
	close(to_test[0]);
	close(from_test[0]);
	close(from_test[1]);
	suid_remove();
}

/* ---- finding: the connecting process exits, its PID is reused ---- */

/* A process holding @c secret (0xC3) that lives until killed (bounded). */
static pid_t
victim_at(pid_t want, int ready)
{
	char buf[32];
	pid_t p;
	int fd;

	/* the next PID handed out (root only); without it, no reuse is
	 * forced and the run still checks the exited case */
	fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		snprintf(buf, sizeof(buf), "%d", (int)want - 1);
		(void)!write(fd, buf, strlen(buf));
		close(fd);
	}
	p = fork();
	if (p == 0) {
		memset(secret, 0xC3, sizeof(secret));
		wr_full(ready, "r", 1);
		alarm(30);
		pause();
		_exit(0);
	}
	return p;
}

static void
test_pid_reuse(void)
{
	int to_test[2], from_test[2], rc = 0;
	uint64_t err0 = tel("errors");
	uintptr_t addr = (uintptr_t)secret;
	pid_t att, v = -1, kid = -1;
	unsigned int tries = 0;
	char c;

	CHECK(pipe(to_test) == 0 && pipe(from_test) == 0);
	att = fork();
	if (att == 0) {
		struct cli a;

		if (rc_connect(&a.c, svc.sock) != 0 || drop_privs() != 0 ||
		    rc_hello(&a.c) != 0 ||
		    rc_pid_get(&a.c, 0, UET_SVC_CTX_ANY, &a.pid) != 0 ||
		    rc_job(&a.c, true, JOB, a.pid.pid) != 0)
			_exit(91);
		kid = fork();
		if (kid == 0) {
			if (!rd_full(from_test[0], &addr, sizeof(addr)))
				_exit(93);
			rc = mr_reg(&a.c, a.pid.pid, addr, sizeof(secret),
				    UET_SES_MR_REMOTE_READ, NULL);
			wr_full(to_test[1], &rc, sizeof(rc));
			_exit(0);
		}
		wr_full(to_test[1], &kid, sizeof(kid));
		_exit(0); /* the connecting process goes */
	}
	CHECK(rd_full(to_test[0], &kid, sizeof(kid)));
	CHECK(waitpid(att, NULL, 0) == att);
	/* another process takes the PID (other processes of the machine
	 * may take it first: a few tries) */
	for (; tries < 20; tries++) {
		v = victim_at(att, to_test[1]);
		CHECK(v > 0 && rd_full(to_test[0], &c, 1));
		if (v == att)
			break;
		reap(v);
		v = -1;
	}
	CHECK(write(from_test[1], &addr, sizeof(addr)) == sizeof(addr));
	CHECK(rd_full(to_test[0], &rc, sizeof(rc)));
	CHECK(rc == -ESRCH);
	CHECK(tel("errors") == err0 + 1);
	printf("# pid reuse: %s after %u tries; MR_REG of its memory from "
	       "the connection: %d\n", v == att ? "PID taken" :
	       "PID not taken (other processes raced)", tries + 1, rc);
	reap(v);
	reap(kid);
	close(to_test[0]);
	close(to_test[1]);
	close(from_test[0]);
	close(from_test[1]);
}

/* ---- finding: the engine's memory; HELLO's descriptor ---- */

static int
hello_with(uint32_t flags, int fd)
{
	struct rc_client c;
	int rc = rc_connect(&c, svc.sock);

	if (rc == 0)
		rc = rc_hello_mem(&c, flags, fd);
	rc_close(&c);
	return rc;
}

static void
test_hello_fd(void)
{
	uint64_t bad0 = tel("bad");
	char path[64];
	int p[2], zero, self, ro, rc;
	pid_t k;

	CHECK(pipe(p) == 0);
	zero = open("/dev/zero", O_RDWR | O_CLOEXEC);
	self = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
	ro = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
	CHECK(zero >= 0 && self >= 0 && ro >= 0);
	CHECK(hello_with(UET_SVC_HELLO_F_MEM, p[0]) == -EINVAL);
	CHECK(hello_with(UET_SVC_HELLO_F_MEM, zero) == -EINVAL);
	CHECK(hello_with(UET_SVC_HELLO_F_MEM, -1) == -EINVAL);
	CHECK(hello_with(0, self) == -EINVAL);
	CHECK(hello_with(0x2, self) == -EINVAL);
	CHECK(tel("bad") == bad0 + 5);
	/* a user cannot name the engine's address space */
	k = fork();
	if (k == 0) {
		snprintf(path, sizeof(path), "/proc/%d/mem", (int)svc.pid);
		if (drop_privs() != 0)
			_exit(2);
		_exit(open(path, O_RDONLY) < 0 && errno == EACCES ? 0 : 1);
	}
	CHECK(waitpid(k, &rc, 0) == k && WIFEXITED(rc) &&
	      WEXITSTATUS(rc) == 0);
	/* without the descriptor, or read-only: what it cannot reach is
	 * refused */
	{
		struct cli a;

		CHECK(rc_connect(&a.c, svc.sock) == 0);
		CHECK(rc_hello_mem(&a.c, UET_SVC_HELLO_F_MEM, ro) == 0);
		CHECK(rc_pid_get(&a.c, 0, UET_SVC_CTX_ANY, &a.pid) == 0);
		CHECK(rc_job(&a.c, true, JOB, a.pid.pid) == 0);
		CHECK(mr_reg(&a.c, a.pid.pid, (uintptr_t)secret, 64,
			     UET_SES_MR_REMOTE_WRITE, NULL) == -EPERM);
		CHECK(mr_reg(&a.c, a.pid.pid, (uintptr_t)secret, 64,
			     UET_SES_MR_REMOTE_READ, NULL) == 0);
		CHECK(rc_bye(&a.c) == 0);
		rc_close(&a.c);
		CHECK(rc_connect(&a.c, svc.sock) == 0);
		CHECK(rc_hello_mem(&a.c, 0, -1) == 0);
		CHECK(rc_pid_get(&a.c, 0, UET_SVC_CTX_ANY, &a.pid) == 0);
		CHECK(rc_job(&a.c, true, JOB, a.pid.pid) == 0);
		CHECK(mr_reg(&a.c, a.pid.pid, (uintptr_t)secret, 64,
			     UET_SES_MR_REMOTE_READ, NULL) == -EPERM);
		CHECK(rc_bye(&a.c) == 0);
		rc_close(&a.c);
	}
	close(p[0]);
	close(p[1]);
	close(zero);
	close(self);
	close(ro);
	printf("# hello: a pipe, /dev/zero, a missing or unasked descriptor "
	       "refused; /proc/<engine>/mem closed to users\n");
}

/* ---- keys: no oracle, guessing throttled ---- */

static _Alignas(64) uint8_t vbuf[8192];

/*
 * The victim registers a buffer for remote read and write; a guesser
 * (another client, its own PIDonFEP and channel) READs it with wrong
 * keys, and with the right key at an address outside the buffer: the
 * same BAD_MKEY (-EINVAL) for both. 3 x UET_SES_ULP_KEY_BAD_BURST
 * wrong keys pause its channel (key_throttled); every operation still
 * completes, the victim's NOP goes through meanwhile, its buffer is
 * untouched. The right key at the right address works.
 */
static void
test_keys(struct cli *v)
{
	const unsigned int n = 3 * UET_SES_ULP_KEY_BAD_BURST;
	uint64_t kb0 = telemetry_ses("ctx0_key_bad");
	uint64_t kt0 = telemetry_ses("ctx0_key_throttled");
	uint64_t key = 0, peer = 0, kv;
	struct uet_chan_sqe q;
	struct uet_chan_cqe e;
	unsigned int bad = 0;
	struct cli g;

	memset(vbuf, 0x77, sizeof(vbuf));
	CHECK(mr_reg(&v->c, v->pid.pid, (uintptr_t)vbuf, sizeof(vbuf),
		     UET_SES_MR_REMOTE_READ | UET_SES_MR_REMOTE_WRITE,
		     &key) == 0);
	if (cli_make(&g) < 0) {
		failures++;
		return;
	}
	CHECK(rc_peer_add(&g.c, g.ch.ctx, v->pid.pid, v->pid.initiator,
			  &peer) == 0);
	/* a right key used outside its buffer answers as a wrong key */
	e = rma_read(&g, peer, key, (uintptr_t)vbuf + sizeof(vbuf), 64, 600);
	CHECK(e.status == -EINVAL && e.prov_errno == UET_RC_BAD_MKEY);
	e = rma_read(&g, peer, key ^ (1ull << 30), (uintptr_t)vbuf, 64, 601);
	CHECK(e.status == -EINVAL && e.prov_errno == UET_RC_BAD_MKEY);
	/* guessing: a burst of wrong keys, posted a few at a time */
	for (unsigned int i = 0; i < n; i += 8) {
		unsigned int posted = 0;

		for (unsigned int k = 0; k < 8 && i + k < n; k++) {
			memset(&q, 0, sizeof(q));
			q.op = UET_CHAN_OP_READ;
			q.flags = UET_CHAN_F_COMPLETION;
			q.context = 1000 + i + k;
			q.len = 64;
			q.dest = peer;
			q.job = JOB;
			q.tc = 1;
			kv = key ^ ((uint64_t)(i + k + 1) << 24);
			q.rkey = kv;
			q.roffset = (uintptr_t)vbuf;
			posted += uet_chan_sq_post(&g.ch.ch, &q) == 0;
		}
		for (unsigned int k = 0; k < posted; k++) {
			memset(&e, 0, sizeof(e));
			if (rc_cq_wait(&g.ch, &e) &&
			    e.prov_errno == UET_RC_BAD_MKEY)
				bad++;
		}
		/* the victim is served whatever the guesser does */
		if (i == n / 2) {
			memset(&q, 0, sizeof(q));
			q.op = UET_CHAN_OP_NOP;
			q.flags = UET_CHAN_F_COMPLETION;
			q.context = 2000;
			CHECK(uet_chan_sq_post(&v->ch.ch, &q) == 0);
			CHECK(rc_cq_wait(&v->ch, &e) && e.context == 2000 &&
			      e.status == 0);
		}
	}
	CHECK(bad == n);
	CHECK(telemetry_ses("ctx0_key_bad") >= kb0 + n + 2);
	CHECK(telemetry_ses("ctx0_key_throttled") >= kt0 + 1);
	for (unsigned int i = 0; i < sizeof(vbuf); i++)
		CHECK(vbuf[i] == 0x77);
	/* the right key at the right address */
	e = rma_read(&g, peer, key, (uintptr_t)vbuf + 64, 64, 602);
	CHECK(e.status == 0 && g.c.win[0] == 0x77 && g.c.win[63] == 0x77);
	printf("# keys: %u wrong keys and a right key out of range all "
	       "BAD_MKEY; key_throttled +%lu\n", bad,
	       (unsigned long)(telemetry_ses("ctx0_key_throttled") - kt0));
	/* peer handles are per client: another client on the context
	 * naming the guesser's handle gets -EINVAL (peer_bad) */
	{
		uint64_t pb0 = telemetry_ses("ctx0_peer_bad");
		struct cli x;

		if (cli_make(&x) == 0) {
			memset(&q, 0, sizeof(q));
			q.op = UET_CHAN_OP_SEND;
			q.flags = UET_CHAN_F_COMPLETION;
			q.context = 603;
			q.len = 64;
			q.dest = peer;
			q.job = JOB;
			q.tc = 1;
			memset(&e, 0, sizeof(e));
			CHECK(uet_chan_sq_post(&x.ch.ch, &q) == 0 &&
			      rc_cq_wait(&x.ch, &e) && e.context == 603 &&
			      e.status == -EINVAL);
			CHECK(telemetry_ses("ctx0_peer_bad") == pb0 + 1);
			CHECK(rc_bye(&x.c) == 0);
			rc_close(&x.c);
		} else {
			failures++;
		}
	}
	CHECK(rc_bye(&g.c) == 0);
	rc_close(&g.c);
}

/* ---- fairness: a full CQ stalls its own channel only ---- */

/*
 * A client with a 2-entry CQ it does not poll posts NOPs until the engine
 * stops taking them (its own back-pressure); meanwhile another client
 * sends 20 messages to the victim, each received with its data and each
 * send completed. Then the stuck client drains its CQ: every NOP, in
 * order.
 */
static void
test_cq_full(struct cli *v)
{
	struct timespec nap = { 0, 200000 };
	uint64_t wait0 = telemetry_ses("ctx0_cq_wait"), peer = 0;
	unsigned int posted = 0, idle = 0, got = 0, sent = 0;
	struct uet_chan_sqe q;
	struct uet_chan_rqe r;
	struct uet_chan_cqe e;
	struct cli st, w;
	bool order = true;

	if (cli_attach(&st) != 0 ||
	    rc_chan_open_sizes(&st.c, st.pid.pid, 16, 2, 2, &st.ch) != 0 ||
	    cli_make(&w) != 0) {
		failures++;
		return;
	}
	/* bounded: at most 600 posts, stop after 50 refused in a row */
	while (posted < 600 && idle < 50) {
		memset(&q, 0, sizeof(q));
		q.op = UET_CHAN_OP_NOP;
		q.flags = UET_CHAN_F_COMPLETION;
		q.context = posted + 1;
		if (uet_chan_sq_post(&st.ch.ch, &q) == 0) {
			posted++;
			idle = 0;
		} else {
			idle++;
			(void)nanosleep(&nap, NULL);
		}
	}
	CHECK(posted < 600); /* it was stopped */
	CHECK(rc_peer_add(&w.c, w.ch.ctx, v->pid.pid, v->pid.initiator,
			  &peer) == 0);
	for (unsigned int i = 0; i < 20; i++) {
		memset(v->c.win, 0, 1024);
		memset(w.c.win, (int)(i + 1), 1000);
		memset(&r, 0, sizeof(r));
		r.op = UET_CHAN_RQ_RECV;
		r.context = 3000 + i;
		r.len = 1024;
		CHECK(uet_chan_rq_post(&v->ch.ch, &r) == 0);
		memset(&q, 0, sizeof(q));
		q.op = UET_CHAN_OP_SEND;
		q.flags = UET_CHAN_F_COMPLETION;
		q.context = 4000 + i;
		q.len = 1000;
		q.dest = peer;
		q.job = JOB;
		q.tc = 1;
		CHECK(uet_chan_sq_post(&w.ch.ch, &q) == 0);
		if (rc_cq_wait(&w.ch, &e) && e.context == 4000 + i &&
		    e.status == 0 && rc_cq_wait(&v->ch, &e) &&
		    e.context == 3000 + i && e.status == 0 && e.len == 1000 &&
		    v->c.win[0] == i + 1 && v->c.win[999] == i + 1)
			sent++;
	}
	CHECK(sent == 20);
	CHECK(telemetry_ses("ctx0_cq_wait") > wait0);
	/* the stuck client's completions, all of them, in order */
	while (got < posted && rc_cq_wait(&st.ch, &e)) {
		order &= e.context == got + 1 && e.status == 0;
		got++;
	}
	CHECK(got == posted && order);
	printf("# cq full: %u NOPs held for a client not polling its 2-entry "
	       "CQ; 20 sends of others completed meanwhile; %u NOPs then "
	       "drained in order\n", posted, got);
	CHECK(rc_bye(&w.c) == 0);
	rc_close(&w.c);
	CHECK(rc_bye(&st.c) == 0);
	rc_close(&st.c);
}

/* ---- a client dying with operations in flight ---- */

/*
 * A client sends four 64 KiB messages to an address nobody answers
 * (retransmitted until the PDS gives up) and is killed: its release
 * waits for the SES to let go of them (seconds). Meanwhile
 * the victim's requests are answered at once: the release runs in the
 * background (releasing 1 after the victim's answer), then everything
 * it held comes back.
 */
static void
test_death_in_flight(struct cli *v)
{
	struct timespec t0, t1, t2;
	int ready[2];
	double req_ms, rel_ms;
	uint64_t rel_seen = 0;
	struct uet_svc_pid_get_rep pr;
	struct uet_svc_pid_put_req pq;
	pid_t k;
	char b;

	CHECK(pipe(ready) == 0);
	k = fork();
	if (k == 0) {
		struct uet_chan_sqe q;
		uint64_t self = 0;
		struct cli a;

		struct uet_svc_peer_add_req pa = { .ctx = 0 };
		struct uet_svc_peer_add_rep pr2;

		if (cli_make(&a) != 0)
			_exit(91);
		/* an address nobody answers: every packet is retransmitted
		 * until the PDS gives up (seconds) */
		pa.ctx = a.ch.ctx;
		memcpy(pa.peer.fa, a.c.hello.fa, sizeof(pa.peer.fa));
		pa.peer.fa[3] = 77;
		pa.peer.pid_on_fep = a.pid.pid;
		pa.peer.start_ri = a.c.hello.start_ri;
		pa.peer.initiator = a.pid.initiator;
		if (rc_request(&a.c, UET_SVC_OP_PEER_ADD, &pa, sizeof(pa), &pr2,
			       sizeof(pr2), NULL, NULL) != 0)
			_exit(91);
		self = pr2.handle;
		for (unsigned int i = 0; i < 4; i++) {
			memset(&q, 0, sizeof(q));
			q.op = UET_CHAN_OP_SEND;
			q.flags = UET_CHAN_F_COMPLETION;
			q.context = 10 + i;
			q.addr = (uint64_t)i * 65536;
			q.len = 65536;
			q.dest = self;
			q.job = JOB;
			q.tc = 1;
			if (uet_chan_sq_post(&a.ch.ch, &q) != 0)
				_exit(92);
		}
		usleep(50000); /* on the wire */
		wr_full(ready[1], "r", 1);
		alarm(30);
		pause();
		_exit(0);
	}
	CHECK(rd_full(ready[0], &b, 1));
	reap(k);
	/* the service sees the hang-up within microseconds; its release
	 * lasts as long as the PDS retransmits (seconds) */
	usleep(20000);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	memset(&pq, 0, sizeof(pq));
	CHECK(rc_pid_get(&v->c, 0, UET_SVC_CTX_ANY, &pr) == 0);
	pq.pid = pr.pid;
	CHECK(rc_request(&v->c, UET_SVC_OP_PID_PUT, &pq, sizeof(pq), NULL, 0,
			 NULL, NULL) == 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	/* answered while the dead client's release still runs */
	rel_seen = tel("releasing");
	CHECK(rel_seen == 1);
	for (unsigned int i = 0; i < 1000 && tel("releasing") != 0; i++)
		usleep(10000);
	clock_gettime(CLOCK_MONOTONIC, &t2);
	CHECK(tel("releasing") == 0);
	req_ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
		 (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	rel_ms = (double)(t2.tv_sec - t0.tv_sec) * 1e3 +
		 (double)(t2.tv_nsec - t0.tv_nsec) / 1e6;
	printf("# death in flight: the victim's PID_GET + PID_PUT answered in "
	       "%.1f ms while the release ran (%.0f ms more)\n", req_ms,
	       rel_ms - req_ms);
	close(ready[0]);
	close(ready[1]);
}

/* ---- the service page ---- */

static void
test_page_sealed(struct cli *v)
{
	char path[64];
	void *p;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", v->c.pagefd);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd >= 0) {
		uint32_t x = 0;

		p = mmap(NULL, v->c.hello.page_size, PROT_READ | PROT_WRITE,
			 MAP_SHARED, fd, 0);
		CHECK(p == MAP_FAILED && errno == EPERM);
		CHECK(pwrite(fd, &x, sizeof(x), 0) < 0 && errno == EPERM);
		close(fd);
	}
	p = mmap(NULL, v->c.hello.page_size, PROT_READ | PROT_WRITE,
		 MAP_SHARED, v->c.pagefd, 0);
	CHECK(p == MAP_FAILED);
	CHECK(v->c.page->magic == UET_SVC_PAGE_MAGIC);
	printf("# service page: reopened read-write %s, not writable\n",
	       fd >= 0 ? "succeeds" : "refused");
}

int
main(int argc, char **argv)
{
	struct cli v;
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: %s UET_ENGINE\n", argv[0]);
		return 2;
	}
	/* the attackers' children are reaped here, not by init */
	(void)prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	rc = rc_service_start(&svc, argv[1], "mem", NULL, NULL);
	if (rc < 0) {
		fprintf(stderr, "service start: %s\n", strerror(-rc));
		if (svc.pid > 0)
			(void)rc_service_stop(&svc);
		return 1;
	}
	if (cli_make(&v) < 0) {
		failures++;
		goto stop;
	}
	test_page_sealed(&v);
	test_hello_fd();
	test_exec_setuid(&v);
	test_pid_reuse();
	test_keys(&v);
	test_cq_full(&v);
	test_death_in_flight(&v);
	CHECK(rc_bye(&v.c) == 0);
	rc_close(&v.c);
stop:
	suid_remove();
	CHECK(rc_service_stop(&svc) == 0);
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	printf("%s: %d failure(s)\n", argv[0], failures);
	return failures == 0 ? 0 : 1;
}
