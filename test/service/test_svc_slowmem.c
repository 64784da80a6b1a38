/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A client page that never faults in must not stall the service
 * (docs/SERVICE.md "Memory access", issue 21 finding 6), played by the
 * unprivileged user nobody against a uet-engine root started:
 *
 *   the attacker (nobody) maps a page of a file on a FUSE mount that it
 *   serves itself (the test mounts it for nobody, as fusermount would),
 *   answers the open and then reads no more requests, so that the
 *   kernel's read of that page waits for ever; it registers [an
 *   anonymous page, the FUSE page] for remote read and write (MR_REG's
 *   probe reads the first byte: served) and READs and WRITEs the FUSE
 *   page through its own key: each completes with an error within a
 *   bounded time (the engine's access timed out: mem_timeouts), and a
 *   READ of its anonymous page fails at once meanwhile (held off:
 *   mem_refused);
 *   meanwhile the victim (root, another uid) sends messages to itself
 *   through the service with every byte checked, and its control
 *   requests (PID_GET, PID_PUT) are answered;
 *   SIGTERM ends the service (exit status 0) while the engine's worker
 *   still waits for the page.
 *
 * Userfaultfd is no such page here: the engine reads a client's memory
 * through /proc/PID/mem, whose faults the kernel does not let a
 * userfaultfd hold (the access fails at once, EIO), whatever
 * vm.unprivileged_userfaultfd says.
 *
 * Root only (mount, users): 77 otherwise, and without /dev/fuse.
 *
 * usage: test_svc_slowmem UET_ENGINE_BINARY
 */

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/fuse.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rte_common.h>

#include <uet/uet_clock.h>
#include <uet/uet_ses_mr.h>

#include "svc_rawcli.h"

#define JOB 1u
#define NOBODY 65534
#define WAIT_MS 5000
#define PAGE 4096u
#define VICTIM_LEN 3000u
#define VICTIM_ROUNDS_MAX 100000u
#define VICTIM_AFTER 50u

static struct rc_service svc;
static char mnt[64];
static unsigned int victim_rounds;

static uint64_t
tel(const char *key)
{
	uint64_t v = UINT64_MAX;

	CHECK(rc_tel(&svc, "/uet/service", key, &v) == 0);
	return v;
}

static int
drop_privs(void)
{
	if (setgroups(0, NULL) != 0 || setresgid(NOBODY, NOBODY, NOBODY) != 0 ||
	    setresuid(NOBODY, NOBODY, NOBODY) != 0 ||
	    prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) != 0)
		return -errno;
	return 0;
}

static void
reap(pid_t p)
{
	if (p <= 0)
		return;
	(void)kill(p, SIGKILL);
	(void)waitpid(p, NULL, 0);
}

/*
 * The sanitizer build's LeakSanitizer stops every thread of the engine
 * at exit (ptrace) to scan memory: a worker inside a FUSE wait never
 * stops, so this test's engine runs without the leak check (the other
 * service tests keep it). No effect in other builds.
 */
static void
asan_no_leak_check(void)
{
	const char *o = getenv("ASAN_OPTIONS");
	char buf[1024];

	snprintf(buf, sizeof(buf), "%s%sdetect_leaks=0", o != NULL ? o : "",
		 o != NULL && o[0] != '\0' ? ":" : "");
	(void)setenv("ASAN_OPTIONS", buf, 1);
}

/* ---- the FUSE server: one file "f" of one page ---- */

static void
fuse_attr_of(uint64_t ino, struct fuse_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->ino = ino;
	a->mode = ino == FUSE_ROOT_ID ? S_IFDIR | 0755 : S_IFREG | 0666;
	a->nlink = ino == FUSE_ROOT_ID ? 2 : 1;
	a->size = ino == FUSE_ROOT_ID ? 0 : PAGE;
	a->blocks = a->size / 512;
	a->blksize = PAGE;
	a->uid = a->gid = NOBODY;
}

static void
fuse_reply(int fd, uint64_t unique, int err, const void *body, size_t len)
{
	uint8_t buf[sizeof(struct fuse_out_header) + PAGE];
	struct fuse_out_header h = {
		.len = (uint32_t)(sizeof(h) + len), .error = err,
		.unique = unique,
	};

	memcpy(buf, &h, sizeof(h));
	if (len != 0)
		memcpy(buf + sizeof(h), body, len);
	(void)!write(fd, buf, sizeof(h) + len);
}

/* One request; @return false to stop serving. */
static bool
fuse_one(int fd, const uint8_t *req)
{
	const struct fuse_in_header *in = (const void *)req;
	const void *arg = req + sizeof(*in);
	union {
		struct fuse_init_out init;
		struct fuse_entry_out entry;
		struct fuse_attr_out attr;
		struct fuse_open_out open;
		uint8_t data[PAGE];
	} o;

	memset(&o, 0, sizeof(o));
	switch (in->opcode) {
	case FUSE_INIT: {
		const struct fuse_init_in *i = arg;

		o.init.major = FUSE_KERNEL_VERSION;
		o.init.minor = RTE_MIN(i->minor, 31u);
		o.init.max_readahead = i->max_readahead;
		o.init.max_write = PAGE;
		fuse_reply(fd, in->unique, 0, &o.init, sizeof(o.init));
		return true;
	}
	case FUSE_LOOKUP:
		if (in->nodeid != FUSE_ROOT_ID || strcmp(arg, "f") != 0) {
			fuse_reply(fd, in->unique, -ENOENT, NULL, 0);
			return true;
		}
		o.entry.nodeid = 2;
		o.entry.generation = 1;
		o.entry.entry_valid = o.entry.attr_valid = 3600;
		fuse_attr_of(2, &o.entry.attr);
		fuse_reply(fd, in->unique, 0, &o.entry, sizeof(o.entry));
		return true;
	case FUSE_GETATTR:
		o.attr.attr_valid = 3600;
		fuse_attr_of(in->nodeid, &o.attr.attr);
		fuse_reply(fd, in->unique, 0, &o.attr, sizeof(o.attr));
		return true;
	case FUSE_OPEN:
	case FUSE_OPENDIR:
		o.open.fh = 1;
		fuse_reply(fd, in->unique, 0, &o.open, sizeof(o.open));
		return true;
	case FUSE_FORGET:
	case FUSE_BATCH_FORGET:
	case FUSE_INTERRUPT:
		return true;
	case FUSE_READ:
		/* never answered: not expected before the stop */
		return false;
	default:
		fuse_reply(fd, in->unique, -ENOSYS, NULL, 0);
		return true;
	}
}

/*
 * Serve as nobody until told to stop (@p stop readable), then read
 * nothing more: a read of the page waits, in the kernel, for ever.
 */
static void
fuse_serve(int fd, int stop)
{
	static uint8_t req[FUSE_MIN_READ_BUFFER + PAGE];

	if (drop_privs() < 0)
		_exit(3);
	for (;;) {
		struct pollfd p[2] = { { .fd = fd, .events = POLLIN },
				       { .fd = stop, .events = POLLIN } };

		if (poll(p, 2, -1) < 0 || p[1].revents != 0)
			break;
		if (read(fd, req, sizeof(req)) <= 0 || !fuse_one(fd, req))
			break;
	}
	pause(); /* killed by the test */
	_exit(0);
}

static pid_t
fuse_start(int *stop_wr)
{
	char opts[160];
	int fd, stop[2];
	pid_t p;

	snprintf(mnt, sizeof(mnt), "/tmp/uet-fuse.XXXXXX");
	if (mkdtemp(mnt) == NULL) {
		mnt[0] = '\0';
		return -1;
	}
	(void)chmod(mnt, 0755);
	fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fd < 0 || pipe(stop) != 0)
		return -1;
	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=%d,"
		 "group_id=%d,allow_other", fd, NOBODY, NOBODY);
	if (mount("uetslow", mnt, "fuse.uetslow", MS_NOSUID | MS_NODEV,
		  opts) != 0) {
		fprintf(stderr, "mount fuse: %s\n", strerror(errno));
		return -1;
	}
	p = fork();
	if (p == 0) {
		close(stop[1]);
		fuse_serve(fd, stop[0]);
	}
	close(fd);
	close(stop[0]);
	*stop_wr = stop[1];
	return p;
}

static void
fuse_stop(pid_t server)
{
	reap(server); /* aborts the connection: a waiting read fails */
	if (mnt[0] != '\0') {
		(void)umount2(mnt, MNT_DETACH);
		(void)rmdir(mnt);
	}
	mnt[0] = '\0';
}

/* ---- the attacker ---- */

struct cli {
	struct rc_client c;
	struct uet_svc_pid_get_rep pid;
	struct rc_chan ch;
	uint64_t peer;     /* itself */
};

static int
cli_make(struct cli *k)
{
	int rc = rc_connect(&k->c, svc.sock);

	if (rc == 0 && getuid() != 0)
		rc = drop_privs();
	if (rc == 0)
		rc = rc_hello(&k->c);
	if (rc == 0)
		rc = rc_pid_get(&k->c, 0, UET_SVC_CTX_ANY, &k->pid);
	if (rc == 0)
		rc = rc_job(&k->c, true, JOB, k->pid.pid);
	if (rc == 0)
		rc = rc_chan_open(&k->c, k->pid.pid, 64, &k->ch);
	if (rc == 0)
		rc = rc_peer_add(&k->c, k->ch.ctx, k->pid.pid,
				 k->pid.initiator, &k->peer);
	return rc;
}

/* One READ or WRITE of @p len at @p raddr through @p key: its CQE. */
static struct uet_chan_cqe
rma(struct cli *k, uint8_t op, uint64_t key, uintptr_t raddr, uint32_t len,
    uint64_t ctx)
{
	struct uet_chan_sqe q;
	struct uet_chan_cqe e;

	memset(&q, 0, sizeof(q));
	q.op = op;
	q.flags = UET_CHAN_F_COMPLETION;
	q.context = ctx;
	q.len = len;
	q.dest = k->peer;
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

/* What the attacker saw: results and how long each took (ms). */
struct atk_report {
	int setup;
	int reg;
	int rd, wr, rd_anon;
	uint64_t rd_ms, wr_ms;
};

static void
attacker(int to_test, int go, int fuse_stop_wr)
{
	struct atk_report r = { 0 };
	struct uet_svc_mr_reg_req q = { .len = 2 * PAGE, .job = JOB,
		.access = UET_SES_MR_REMOTE_READ | UET_SES_MR_REMOTE_WRITE };
	struct uet_svc_mr_reg_rep rep = { 0 };
	char path[96], b;
	uint8_t *reg;
	struct cli a;
	uint64_t t;
	int fd;

	r.setup = cli_make(&a);
	snprintf(path, sizeof(path), "%s/f", mnt);
	fd = r.setup == 0 ? open(path, O_RDWR) : -1;
	reg = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r.setup == 0 && (fd < 0 || reg == MAP_FAILED ||
	    mmap(reg + PAGE, PAGE, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED))
		r.setup = -errno;
	/* from now on a read of the file's page is never answered */
	(void)!write(fuse_stop_wr, "s", 1);
	if (r.setup == 0) {
		reg[0] = 1; /* the anonymous page: MR_REG's probe is served */
		q.addr = (uintptr_t)reg;
		q.pid = a.pid.pid;
		r.reg = rc_request(&a.c, UET_SVC_OP_MR_REG, &q, sizeof(q),
				   &rep, sizeof(rep), NULL, NULL);
	}
	if (r.setup == 0 && r.reg == 0) {
		t = uet_mono_ms();
		r.rd = rma(&a, UET_CHAN_OP_READ, rep.key,
			   (uintptr_t)reg + PAGE, 64, 1).status;
		r.rd_ms = uet_mono_ms() - t;
		t = uet_mono_ms();
		memset(a.c.win, 0xee, 64);
		r.wr = rma(&a, UET_CHAN_OP_WRITE, rep.key,
			   (uintptr_t)reg + PAGE + 64, 64, 2).status;
		r.wr_ms = uet_mono_ms() - t;
		r.rd_anon = rma(&a, UET_CHAN_OP_READ, rep.key,
				(uintptr_t)reg, 64, 3).status;
	}
	(void)!write(to_test, &r, sizeof(r));
	/* stay, holding the page, until the test is done */
	(void)!read(go, &b, 1);
	_exit(0);
}

/* ---- the victim ---- */

static bool
victim_round(struct cli *v, unsigned int k)
{
	struct uet_chan_rqe r = { .op = UET_CHAN_RQ_RECV, .context = 2 * k,
				  .addr = 0, .len = 8192 };
	struct uet_chan_sqe q = { .op = UET_CHAN_OP_SEND,
				  .flags = UET_CHAN_F_COMPLETION,
				  .context = 2 * k + 1, .addr = 8192,
				  .len = VICTIM_LEN, .dest = v->peer,
				  .job = JOB, .tc = 1 };
	uint8_t *w = v->c.win;
	struct uet_chan_cqe e;
	bool sent = false, got = false;

	for (unsigned int i = 0; i < VICTIM_LEN; i++)
		w[8192 + i] = (uint8_t)(i * 7 + k);
	memset(w, 0, 8192);
	if (uet_chan_rq_post(&v->ch.ch, &r) != 0 ||
	    uet_chan_sq_post(&v->ch.ch, &q) != 0)
		return false;
	for (int n = 0; n < 2 && rc_cq_wait(&v->ch, &e); n++) {
		if (e.status != 0)
			return false;
		sent |= e.context == q.context;
		got |= e.context == r.context && e.len == VICTIM_LEN;
	}
	return sent && got && memcmp(w, w + 8192, VICTIM_LEN) == 0;
}

/* Messages with every byte checked and a PID_GET / PID_PUT now and then,
 * each answered, until the attacker reported (@p rep readable) and a
 * few more; @return the slowest control request (ms). */
static uint64_t
victim_run(struct cli *v, int rep)
{
	struct uet_svc_pid_put_req put = { 0 };
	struct uet_svc_pid_get_rep p;
	uint64_t slowest = 0, t;
	unsigned int k, after = 0;

	for (k = 0; k < VICTIM_ROUNDS_MAX && after < VICTIM_AFTER; k++) {
		struct pollfd pf = { .fd = rep, .events = POLLIN };

		if (!victim_round(v, k)) {
			fprintf(stderr, "victim: message %u lost or damaged\n",
				k);
			failures++;
			break;
		}
		if (k % 20 == 0) {
			t = uet_mono_ms();
			CHECK(rc_pid_get(&v->c, 0, UET_SVC_CTX_ANY, &p) == 0);
			put.pid = p.pid;
			CHECK(rc_request(&v->c, UET_SVC_OP_PID_PUT, &put,
					 sizeof(put), NULL, 0, NULL,
					 NULL) == 0);
			slowest = RTE_MAX(slowest, uet_mono_ms() - t);
		}
		after += after != 0 || poll(&pf, 1, 0) == 1;
	}
	victim_rounds = k;
	return slowest;
}

static void
test_slow_page(pid_t *atk, int *go_wr, int fuse_stop_wr)
{
	int rep[2], go[2];
	struct atk_report r;
	struct pollfd p;
	uint64_t slowest;
	struct cli v;

	if (cli_make(&v) != 0 || pipe(rep) != 0 || pipe(go) != 0) {
		failures++;
		return;
	}
	*atk = fork();
	if (*atk == 0) {
		close(rep[0]);
		close(go[1]);
		attacker(rep[1], go[0], fuse_stop_wr);
	}
	close(rep[1]);
	close(go[0]);
	*go_wr = go[1];
	slowest = victim_run(&v, rep[0]);
	p = (struct pollfd){ .fd = rep[0], .events = POLLIN };
	CHECK(poll(&p, 1, 4 * WAIT_MS) == 1 &&
	      read(rep[0], &r, sizeof(r)) == sizeof(r));
	close(rep[0]);
	printf("# attacker: setup %d, MR_REG %d, READ of the FUSE page %d "
	       "(%lu ms), WRITE %d (%lu ms), READ of its other page %d; "
	       "victim: %u messages checked, slowest control request %lu ms\n",
	       r.setup, r.reg, r.rd, (unsigned long)r.rd_ms, r.wr,
	       (unsigned long)r.wr_ms, r.rd_anon, victim_rounds,
	       (unsigned long)slowest);
	CHECK(r.setup == 0 && r.reg == 0);
	/* AT_NO_TRANS at the target: -EFAULT at the initiator */
	CHECK(r.rd == -EFAULT && r.wr == -EFAULT && r.rd_anon == -EFAULT);
	CHECK(tel("mem_timeouts") >= 1);
	CHECK(tel("mem_refused") >= 1);
	CHECK(tel("mem_stuck") >= 1);
	/* the victim once more, after the attack */
	CHECK(victim_rounds > VICTIM_AFTER);
	CHECK(victim_round(&v, victim_rounds));
	CHECK(rc_bye(&v.c) == 0);
	rc_close(&v.c);
}

int
main(int argc, char **argv)
{
	pid_t server = -1, atk = -1;
	int stop_wr = -1, go_wr = -1, rc;
	uint64_t t;

	if (argc != 2) {
		fprintf(stderr, "usage: %s UET_ENGINE\n", argv[0]);
		return 2;
	}
	if (geteuid() != 0 || access("/dev/fuse", R_OK | W_OK) != 0) {
		printf("SKIP: needs root and /dev/fuse\n");
		return 77;
	}
	(void)prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	server = fuse_start(&stop_wr);
	if (server < 0) {
		fprintf(stderr, "FUSE mount failed\n");
		failures++;
		goto out;
	}
	asan_no_leak_check();
	rc = rc_service_start(&svc, argv[1], "slowmem", NULL, NULL);
	if (rc < 0) {
		fprintf(stderr, "service start: %s\n", strerror(-rc));
		failures++;
		goto out;
	}
	test_slow_page(&atk, &go_wr, stop_wr);
	/* SIGTERM while the engine's worker still waits for the page */
	t = uet_mono_ms();
	rc = rc_service_stop(&svc);
	CHECK(rc == 0);
	printf("# SIGTERM with a worker in the page: exit status %d in %lu "
	       "ms\n", rc, (unsigned long)(uet_mono_ms() - t));
	svc.pid = 0;
out:
	if (svc.pid > 0)
		(void)rc_service_stop(&svc);
	if (go_wr >= 0)
		close(go_wr);
	/* the server first: the attacker's exit flushes its file, a
	 * request the kernel waits for uninterruptibly */
	fuse_stop(server);
	reap(atk);
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	printf("%s: %d failure(s)\n", argv[0], failures);
	return failures == 0 ? 0 : 1;
}
