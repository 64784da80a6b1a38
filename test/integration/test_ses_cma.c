/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Registered memory of another process (cross-memory attach, pmd/ses_ulp/cma.c):
 * a forked child owns a buffer and registers nothing; engine B (standing
 * for a service) registers the child's buffer with owner = a descriptor of
 * the child's /proc/PID/mem (UET_SES_ULP_MR_REG owner, uet_cma_fd_mem_ops),
 * and engine A, its peer over ring ports,
 * WRITEs, READs and runs atomics on it. The child fills and dumps its
 * buffer on request over pipes, so every byte is checked in the owner's
 * own address space. Then the failures: an address the child unmapped
 * (AT_NO_TRANS), an owner that has exited
 * (AT_INVALID): A gets the error completion, B survives and still serves
 * its own memory. Registration refuses an unreachable owner at once.
 *
 * Opening the child's /proc/PID/mem needs the right to ptrace it (same
 * uid and Yama ptrace_scope <= 1 for a parent, or CAP_SYS_PTRACE; a
 * service gets the descriptor from the client instead): probed first, skipped
 * (exit 77) with the reason when missing.
 *
 * `test_ses_cma bench [SIZE [COUNT]]`: WRITE and READ bandwidth of owner 0
 * against owner = child, and the raw accessor against memcpy (numbers in
 * docs/SES.md "Memory of another process"); no checks of timings.
 * Bounded by loop iterations.
 */

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>

#include <uet/uet_chan.h>
#include <uet/uet_cma.h>
#include <uet/uet_engine.h>
#include <uet/uet_ses_amo.h>
#include <uet/uet_ses_mr.h>
#include <uet/uet_ses_ulp.h>
#include <uet/uet_ulp.h>

#include "itest.h"

#define JOB 42
#define PID_A 10
#define PID_B 20
#define POLL_MAX 400000u
#define CHILD_LEN (4u << 20)  /* the child's buffer */
#define RO_OFF (CHILD_LEN - 65536) /* unmapped on request */

static const uint8_t ip_a[4] = { 10, 0, 0, 1 };
static const uint8_t ip_b[4] = { 10, 0, 0, 2 };
static const uint8_t mac_a[6] = { 0x02, 0, 0, 0, 0, 0x0a };
static const uint8_t mac_b[6] = { 0x02, 0, 0, 0, 0, 0x0b };

struct side {
	struct uet_engine *e;
	struct uet_chan *ch;
	uint16_t pid;
	uint32_t initiator;
	uint64_t peer; /* handle naming the other side */
};

static struct side A, B;

/* ---- the child: owns CHILD_LEN bytes, obeys commands ---- */

enum { C_FILL = 1, C_DUMP, C_UNMAP, C_QUIT };

struct cmd {
	uint32_t op;
	uint32_t off;
	uint32_t len;
	uint32_t seed;
};

struct child {
	pid_t pid;
	int mem;     /* its /proc/PID/mem: the owner handle */
	int to;      /* commands */
	int from;    /* answers */
	uintptr_t base;
};

static struct child kid = { .pid = -1, .mem = -1, .to = -1, .from = -1 };

static void
pattern(uint8_t *p, size_t n, uint32_t off, uint32_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)((off + i) * 7 + seed * 13 + ((off + i) >> 8));
}

static bool
io_all(int fd, void *p, size_t n, bool wr)
{
	uint8_t *b = p;

	while (n > 0) {
		ssize_t r = wr ? write(fd, b, n) : read(fd, b, n);

		if (r <= 0) {
			if (r < 0 && errno == EINTR)
				continue;
			return false;
		}
		b += r;
		n -= (size_t)r;
	}
	return true;
}

static void __attribute__((noreturn))
child_main(int in, int out)
{
	uint8_t *buf = mmap(NULL, CHILD_LEN, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uintptr_t a = (uintptr_t)buf;
	struct cmd c;

	/* never outlive the test */
	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (buf == MAP_FAILED)
		a = 0;
	else
		memset(buf, 0, CHILD_LEN);
	if (!io_all(out, &a, sizeof(a), true) || a == 0)
		_exit(1);
	while (io_all(in, &c, sizeof(c), false)) {
		int32_t rc = 0;

		if (c.op == C_QUIT || c.off > CHILD_LEN ||
		    c.len > CHILD_LEN - c.off)
			break;
		if (c.op == C_FILL)
			pattern(buf + c.off, c.len, c.off, c.seed);
		else if (c.op == C_UNMAP)
			rc = munmap(buf + c.off, c.len) == 0 ? 0 : -errno;
		if (c.op == C_DUMP) {
			if (!io_all(out, buf + c.off, c.len, true))
				break;
		} else if (!io_all(out, &rc, sizeof(rc), true)) {
			break;
		}
	}
	_exit(0);
}

static int
child_start(void)
{
	int p2c[2], c2p[2];
	char path[64];

	if (pipe(p2c) != 0 || pipe(c2p) != 0)
		return -errno;
	kid.pid = fork();
	if (kid.pid < 0)
		return -errno;
	if (kid.pid == 0) {
		close(p2c[1]);
		close(c2p[0]);
		child_main(p2c[0], c2p[1]);
	}
	close(p2c[0]);
	close(c2p[1]);
	kid.to = p2c[1];
	kid.from = c2p[0];
	if (!io_all(kid.from, &kid.base, sizeof(kid.base), false))
		return -EIO;
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)kid.pid);
	/* refused without the right to ptrace it: can_attach() says */
	kid.mem = open(path, O_RDWR | O_CLOEXEC);
	return 0;
}

static int
child_cmd(uint32_t op, uint32_t off, uint32_t len, uint32_t seed)
{
	struct cmd c = { .op = op, .off = off, .len = len, .seed = seed };
	int32_t rc;

	if (!io_all(kid.to, &c, sizeof(c), true) ||
	    !io_all(kid.from, &rc, sizeof(rc), false))
		return -EIO;
	return rc;
}

/* The child's bytes [off, off + len) into @p dst. */
static bool
child_dump(uint32_t off, uint32_t len, uint8_t *dst)
{
	struct cmd c = { .op = C_DUMP, .off = off, .len = len };

	return io_all(kid.to, &c, sizeof(c), true) &&
	       io_all(kid.from, dst, len, false);
}

/* Kill the child, leave it a zombie (its PID not reusable yet). */
static void
child_kill(void)
{
	siginfo_t si;

	if (kid.pid <= 0)
		return;
	(void)kill(kid.pid, SIGKILL);
	memset(&si, 0, sizeof(si));
	(void)waitid(P_PID, (id_t)kid.pid, &si, WEXITED | WNOWAIT);
}

static void
child_reap(void)
{
	if (kid.to >= 0) {
		struct cmd c = { .op = C_QUIT };

		(void)io_all(kid.to, &c, sizeof(c), true);
		close(kid.to);
	}
	if (kid.from >= 0)
		close(kid.from);
	if (kid.pid > 0)
		(void)waitpid(kid.pid, NULL, 0);
	if (kid.mem >= 0)
		close(kid.mem);
	kid.mem = -1;
	kid.pid = -1;
	kid.to = kid.from = -1;
}

/* ---- the engines ---- */

static int
ctl(struct side *s, struct uet_ses_ulp_ctl *r)
{
	int rc = uet_ses_ulp_ctl(s->e, 0, r, NULL, NULL);

	return rc < 0 ? rc : r->rc;
}

static void
pump(void)
{
	(void)uet_engine_poll(A.e, 4);
	(void)uet_engine_poll(B.e, 4);
}

static bool
cq_wait(struct side *s, struct uet_chan_cqe *e)
{
	for (unsigned int i = 0; i < POLL_MAX; i++) {
		if (uet_chan_cq_poll(s->ch, e, 1) == 1)
			return true;
		pump();
	}
	fprintf(stderr, "no completion\n");
	return false;
}

/* Where rma() goes when not 0 (else B's own process). */
static uint64_t rma_dest;

/* Post one RMA SQE from A to B and wait for its completion. */
static bool
rma(uint8_t op, uint64_t ctx, const void *buf, uint64_t len, uint64_t key,
    uintptr_t raddr, struct uet_chan_cqe *e)
{
	struct uet_chan_sqe q;

	memset(&q, 0, sizeof(q));
	q.op = op;
	q.flags = UET_CHAN_F_COMPLETION;
	q.context = ctx;
	q.addr = (uint64_t)(uintptr_t)buf;
	q.len = len;
	q.dest = rma_dest != 0 ? rma_dest : B.peer;
	q.job = JOB;
	q.tc = 1;
	q.rkey = key;
	q.roffset = raddr;
	if (uet_chan_sq_post(A.ch, &q) != 0 || !cq_wait(&A, e))
		return false;
	if (e->context != ctx) {
		fprintf(stderr, "completion %lu, want %lu\n",
			(unsigned long)e->context, (unsigned long)ctx);
		return false;
	}
	return true;
}

static void
expect_ok(bool posted, const struct uet_chan_cqe *e)
{
	CHECK(posted);
	CHECK(posted && e->status == 0);
	if (posted && e->status != 0)
		fprintf(stderr, "ctx %lu: status %d prov %u\n",
			(unsigned long)e->context, e->status, e->prov_errno);
}

static void
expect_err(bool posted, const struct uet_chan_cqe *e, uint32_t prov,
	   int status)
{
	CHECK(posted);
	CHECK(posted && e->prov_errno == prov);
	CHECK(posted && e->status == status);
	if (posted && (e->prov_errno != prov || e->status != status))
		fprintf(stderr, "ctx %lu: status %d prov %u, want %d %u\n",
			(unsigned long)e->context, e->status, e->prov_errno,
			status, prov);
}

static uint64_t
amo(uint8_t op, uint8_t aop, uint64_t ctx, uint64_t v, uint64_t cmp,
    uint64_t key, uintptr_t raddr, struct uet_chan_cqe *e, bool *posted)
{
	static uint64_t operand, compare, result;
	struct uet_chan_sqe q;

	operand = v;
	compare = cmp;
	result = 0xDEAD;
	memset(&q, 0, sizeof(q));
	q.op = op;
	q.flags = UET_CHAN_F_COMPLETION;
	q.context = ctx;
	q.addr = (uint64_t)(uintptr_t)&operand;
	q.len = 8;
	q.dest = B.peer;
	q.job = JOB;
	q.tc = 1;
	q.rkey = key;
	q.roffset = raddr;
	q.atomic_op = aop;
	q.atomic_dt = UET_AMO_DT_UINT64;
	q.compare = (uint64_t)(uintptr_t)&compare;
	q.result = (uint64_t)(uintptr_t)&result;
	*posted = uet_chan_sq_post(A.ch, &q) == 0 && cq_wait(&A, e) &&
		  e->context == ctx;
	return result;
}

static struct uet_engine *
engine_make(const char *tag, const struct uet_config *c,
	    struct uet_proto_params *pp)
{
	struct uet_engine_params p = {
		.cfg = c, .hook = &uet_proto_hook_ops, .hook_arg = pp,
	};
	char name[24];
	struct uet_engine *e;

	snprintf(name, sizeof(name), "cma%s%d", tag, (int)getpid());
	p.name = name;
	e = uet_engine_create(&p);
	if (e == NULL)
		fprintf(stderr, "engine %s: %s\n", name,
			rte_strerror(rte_errno));
	return e;
}

static int
side_make(struct side *s, const char *tag, const struct uet_config *c,
	  struct uet_proto_params *pp)
{
	struct uet_ses_ulp_ctl r = { .op = UET_SES_ULP_JOB_ADD, .job = JOB };
	char name[24];

	s->e = engine_make(tag, c, pp);
	if (s->e == NULL)
		return -1;
	snprintf(name, sizeof(name), "cma%s%d", tag, (int)getpid());
	s->ch = uet_chan_create(name, 64, 1024, 1024, SOCKET_ID_ANY, 0);
	if (s->ch == NULL || uet_engine_chan_attach(s->e, 0, s->ch) != 0)
		return -1;
	if (uet_ses_ulp_identity(s->e, 0, &s->pid, &s->initiator) != 0)
		return -1;
	return ctl(s, &r) == 0 ? 0 : -1;
}

static uint64_t
peer_add(struct side *on, const struct side *to, const uint8_t *ip)
{
	struct uet_ses_ulp_ctl r = { .op = UET_SES_ULP_PEER_ADD };

	memcpy(r.peer.fa, ip, 4);
	r.peer.pid_on_fep = to->pid;
	r.peer.initiator = to->initiator;
	return ctl(on, &r) == 0 ? r.handle : 0;
}

static int
setup(void)
{
	static struct uet_ses_ulp_params pa = { .pid_base = PID_A };
	static struct uet_ses_ulp_params pb = { .pid_base = PID_B };
	static struct uet_proto_params ppa = { .ulp = &uet_ses_ulp_ops,
					       .ulp_arg = &pa };
	static struct uet_proto_params ppb = { .ulp = &uet_ses_ulp_ops,
					       .ulp_arg = &pb };
	static struct uet_config ca, cb;
	unsigned int me = (unsigned int)getpid() % 1000000u;
	char a[12], b[12], da[32], db[32];

	snprintf(a, sizeof(a), "cmaA%u", me);
	snprintf(b, sizeof(b), "cmaB%u", me);
	if (itest_ring_pair(a, b) < 0)
		return -1;
	snprintf(da, sizeof(da), "net_ring_%s", a);
	snprintf(db, sizeof(db), "net_ring_%s", b);
	itest_cfg_ring(&ca, da, ip_a, mac_a, ip_b, mac_b);
	itest_cfg_ring(&cb, db, ip_b, mac_b, ip_a, mac_a);
	if (side_make(&A, "A", &ca, &ppa) < 0 ||
	    side_make(&B, "B", &cb, &ppb) < 0)
		return -1;
	B.peer = peer_add(&A, &B, ip_b);
	A.peer = peer_add(&B, &A, ip_a);
	return B.peer != 0 && A.peer != 0 ? 0 : -1;
}

static void
teardown(void)
{
	if (A.e != NULL && A.ch != NULL)
		(void)uet_engine_chan_detach(A.e, A.ch);
	if (B.e != NULL && B.ch != NULL)
		(void)uet_engine_chan_detach(B.e, B.ch);
	uet_engine_free(A.e);
	uet_engine_free(B.e);
	uet_chan_free(A.ch);
	uet_chan_free(B.ch);
}

/* Register [base, base + len) of @p owner on B: the key, 0 if refused
 * (*rc says why). */
static uint64_t
mr_reg(pid_t owner, uintptr_t base, uint64_t len, int *rc)
{
	struct uet_ses_ulp_ctl r = {
		.op = UET_SES_ULP_MR_REG, .job = JOB, .base = base, .len = len,
		.owner = owner,
		.access = UET_SES_MR_REMOTE_READ | UET_SES_MR_REMOTE_WRITE |
			  UET_SES_MR_REMOTE_ATOMIC,
	};

	*rc = ctl(&B, &r);
	return *rc == 0 ? r.key : 0;
}

static int
mr_dereg(uint64_t key)
{
	struct uet_ses_ulp_ctl r = { .op = UET_SES_ULP_MR_DEREG, .key = key };

	return ctl(&B, &r);
}

/* ---- the test ---- */

static uint8_t *lbuf, *want, *got;

/* mr_reg__unreachable_refused: a bad owner or address fails at once. */
static void
test_reg_refused(void)
{
	int rc;

	CHECK(mr_reg(kid.mem, 4096, 4096, &rc) == 0 && rc == -EFAULT);
	CHECK(mr_reg(-5, kid.base, 4096, &rc) == 0 && rc == -EINVAL);
}

static void
test_write_read(uint64_t key)
{
	struct uet_chan_cqe e;
	bool posted;

	/* WRITE (multi-packet) lands in the child */
	pattern(lbuf, 100000, 0, 3);
	posted = rma(UET_CHAN_OP_WRITE, 1, lbuf, 100000, key, kid.base + 1000,
		     &e);
	expect_ok(posted, &e);
	CHECK(child_dump(0, 102000, got));
	CHECK(memcmp(got + 1000, lbuf, 100000) == 0);
	memset(want, 0, 1000);
	CHECK(memcmp(got, want, 1000) == 0);
	CHECK(memcmp(got + 101000, want, 1000) == 0);
	/* large and small READs of what the child wrote itself */
	CHECK(child_cmd(C_FILL, 200000, 300000, 9) == 0);
	pattern(want, 300000, 200000, 9);
	memset(lbuf, 0, 300000);
	posted = rma(UET_CHAN_OP_READ, 2, lbuf, 300000, key, kid.base + 200000,
		     &e);
	expect_ok(posted, &e);
	CHECK(memcmp(lbuf, want, 300000) == 0);
	memset(lbuf, 0, 64);
	posted = rma(UET_CHAN_OP_READ, 3, lbuf, 40, key, kid.base + 200100, &e);
	expect_ok(posted, &e);
	CHECK(memcmp(lbuf, want + 100, 40) == 0);
}

static void
test_atomics(uint64_t key)
{
	uintptr_t at = kid.base + 4096 * 3 + 8;
	struct uet_chan_cqe e;
	uint64_t v, r;
	bool posted;

	CHECK(child_cmd(C_FILL, 4096 * 3, 64, 0) == 0);
	CHECK(child_dump(4096 * 3 + 8, 8, (uint8_t *)&v));
	(void)amo(UET_CHAN_OP_ATOMIC, UET_AMO_SUM, 10, 5, 0, key, at, &e,
		  &posted);
	expect_ok(posted, &e);
	r = amo(UET_CHAN_OP_FETCH_ATOMIC, UET_AMO_SUM, 11, 7, 0, key, at, &e,
		&posted);
	expect_ok(posted, &e);
	CHECK(r == v + 5);
	r = amo(UET_CHAN_OP_CSWAP, UET_AMO_CSWAP, 12, 99, v + 12, key, at, &e,
		&posted);
	expect_ok(posted, &e);
	CHECK(r == v + 12);
	CHECK(child_dump(4096 * 3 + 8, 8, (uint8_t *)&r));
	CHECK(r == 99);
}

/* Pages the child unmapped after registration: WRITE, atomics and READ
 * fail AT_NO_TRANS; the rest of the region still works. */
static void
test_unmapped(uint64_t key)
{
	struct uet_chan_cqe e;
	bool posted;

	CHECK(child_cmd(C_UNMAP, RO_OFF, 65536, 0) == 0);
	pattern(lbuf, 8192, 0, 77);
	posted = rma(UET_CHAN_OP_WRITE, 20, lbuf, 8192, key,
		     kid.base + RO_OFF, &e);
	expect_err(posted, &e, UET_RC_AT_NO_TRANS, -EFAULT);
	(void)amo(UET_CHAN_OP_FETCH_ATOMIC, UET_AMO_SUM, 21, 1, 0, key,
		  kid.base + RO_OFF + 64, &e, &posted);
	expect_err(posted, &e, UET_RC_AT_NO_TRANS, -EFAULT);
	posted = rma(UET_CHAN_OP_READ, 22, lbuf, 8192, key, kid.base + RO_OFF,
		     &e);
	expect_err(posted, &e, UET_RC_AT_NO_TRANS, -EFAULT);
	CHECK(child_cmd(C_FILL, 0, 4096, 4) == 0);
	posted = rma(UET_CHAN_OP_READ, 23, lbuf, 4096, key, kid.base, &e);
	expect_ok(posted, &e);
	pattern(want, 4096, 0, 4);
	CHECK(memcmp(lbuf, want, 4096) == 0);
}

static int
ctl_pid(uint8_t op, uint16_t pid, bool own)
{
	struct uet_ses_ulp_ctl r = { .op = op, .job = JOB, .has_pid = true,
				     .pid = pid, .own_rma = own };

	return ctl(&B, &r);
}

/*
 * A second process on B (EP_ADD) with an RMA table of its own (JOB_ADD
 * own_rma, as the service gives its clients): the child's buffer
 * registered for it (MR_REG has_pid) is reached through its PIDonFEP,
 * and the same key through B's own process resolves nothing.
 */
static void
test_own_rma(void)
{
	const uint16_t pid2 = PID_B + 7;
	struct uet_ses_ulp_ctl r;
	struct uet_chan_cqe e;
	struct uet_chan *ch;
	uint64_t key, dest;
	bool posted;

	ch = uet_chan_create("cmaE", 64, 64, 64, SOCKET_ID_ANY, 0);
	CHECK(ch != NULL);
	if (ch == NULL)
		return;
	memset(&r, 0, sizeof(r));
	r.op = UET_SES_ULP_EP_ADD;
	r.chan = ch;
	r.pid = pid2;
	r.initiator = 0xE2;
	CHECK(ctl(&B, &r) == 0);
	CHECK(ctl_pid(UET_SES_ULP_JOB_ADD, pid2, true) == 0);
	/* its tables are its own: a JOB_ADD wanting an alias disagrees */
	CHECK(ctl_pid(UET_SES_ULP_JOB_ADD, pid2, false) == -EEXIST);
	CHECK(ctl_pid(UET_SES_ULP_JOB_ADD, pid2, true) == 0);
	memset(&r, 0, sizeof(r));
	r.op = UET_SES_ULP_MR_REG;
	r.job = JOB;
	r.has_pid = true;
	r.pid = pid2;
	r.base = kid.base;
	r.len = 65536;
	r.owner = kid.mem;
	r.access = UET_SES_MR_REMOTE_WRITE;
	CHECK(ctl(&B, &r) == 0);
	key = r.key;
	memset(&r, 0, sizeof(r));
	r.op = UET_SES_ULP_PEER_ADD;
	memcpy(r.peer.fa, ip_b, 4);
	r.peer.pid_on_fep = pid2;
	r.peer.initiator = 0xE2;
	CHECK(ctl(&A, &r) == 0);
	dest = r.handle;
	pattern(lbuf, 2000, 0, 21);
	rma_dest = dest;
	posted = rma(UET_CHAN_OP_WRITE, 40, lbuf, 2000, key, kid.base + 300,
		     &e);
	rma_dest = 0;
	expect_ok(posted, &e);
	CHECK(child_dump(300, 2000, got));
	CHECK(memcmp(got, lbuf, 2000) == 0);
	/* the key through B's own PIDonFEP: another table */
	pattern(lbuf, 2000, 0, 22);
	posted = rma(UET_CHAN_OP_WRITE, 41, lbuf, 2000, key, kid.base + 300,
		     &e);
	expect_err(posted, &e, UET_RC_BAD_MKEY, -EINVAL);
	CHECK(child_dump(300, 2000, want));
	CHECK(memcmp(got, want, 2000) == 0);
	/* the table goes once empty */
	CHECK(ctl_pid(UET_SES_ULP_JOB_DEL, pid2, true) == 0);
	CHECK(ctl_pid(UET_SES_ULP_JOB_DEL, pid2, true) == -EBUSY);
	CHECK(mr_dereg(key) == 0);
	CHECK(ctl_pid(UET_SES_ULP_JOB_DEL, pid2, true) == 0);
	memset(&r, 0, sizeof(r));
	r.op = UET_SES_ULP_PEER_DEL;
	r.handle = dest;
	CHECK(ctl(&A, &r) == 0);
	memset(&r, 0, sizeof(r));
	r.op = UET_SES_ULP_EP_DEL;
	r.chan = ch;
	CHECK(ctl(&B, &r) == 0);
	uet_chan_free(ch);
}

/* The owner exits: every access fails AT_INVALID; B serves its own
 * memory as before. */
static void
test_owner_gone(uint64_t key)
{
	static uint8_t own[8192];
	const struct uet_ses *ses = NULL;
	struct uet_ses_ulp_stats ust;
	struct uet_chan_cqe e;
	uint64_t okey;
	bool posted;
	int rc;

	child_kill();
	posted = rma(UET_CHAN_OP_WRITE, 30, lbuf, 5000, key, kid.base, &e);
	expect_err(posted, &e, UET_RC_AT_INVALID, -EFAULT);
	posted = rma(UET_CHAN_OP_READ, 31, lbuf, 5000, key, kid.base, &e);
	expect_err(posted, &e, UET_RC_AT_INVALID, -EFAULT);
	posted = rma(UET_CHAN_OP_READ, 32, lbuf, 16, key, kid.base, &e);
	expect_err(posted, &e, UET_RC_AT_INVALID, -EFAULT);
	(void)amo(UET_CHAN_OP_ATOMIC, UET_AMO_SUM, 33, 1, 0, key, kid.base,
		  &e, &posted);
	expect_err(posted, &e, UET_RC_AT_INVALID, -EFAULT);
	CHECK(mr_reg(kid.mem, kid.base, 4096, &rc) == 0 && rc == -ESRCH);
	CHECK(mr_dereg(key) == 0);
	/* B is alive: its own memory (owner 0) */
	okey = mr_reg(0, (uintptr_t)own, sizeof(own), &rc);
	CHECK(okey != 0);
	pattern(lbuf, sizeof(own), 0, 5);
	posted = rma(UET_CHAN_OP_WRITE, 34, lbuf, sizeof(own), okey,
		     (uintptr_t)own, &e);
	expect_ok(posted, &e);
	CHECK(memcmp(own, lbuf, sizeof(own)) == 0);
	CHECK(mr_dereg(okey) == 0);
	CHECK(uet_ses_ulp_stats_get(B.e, 0, &ust, &ses) == 0);
	if (ses != NULL) {
		const struct uet_ses_stats *st = uet_ses_stats_get(ses);

		printf("# B: mem_rd %lu mem_wr %lu mem_err %lu\n",
		       (unsigned long)st->mem_rd, (unsigned long)st->mem_wr,
		       (unsigned long)st->mem_err);
		CHECK(st->mem_err >= 6);
		CHECK(st->mem_rd > 0 && st->mem_wr > 0);
	}
}

static double
now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Bandwidth of @p count WRITEs or READs of @p size (one at a time). */
static double
bw(uint8_t op, uint64_t key, uintptr_t raddr, uint32_t size,
   unsigned int count)
{
	struct uet_chan_cqe e;
	double t0 = now_s();

	for (unsigned int i = 0; i < count; i++)
		if (!rma(op, 100 + i, lbuf, size, key, raddr, &e) ||
		    e.status != 0)
			return 0;
	return (double)size * count / (now_s() - t0) / 1e6;
}

/* Microseconds per fetching atomic, one at a time. */
static double
amo_rate(uint64_t key, uintptr_t raddr, unsigned int count)
{
	struct uet_chan_cqe e;
	double t0 = now_s();
	bool posted;

	for (unsigned int i = 0; i < count; i++) {
		(void)amo(UET_CHAN_OP_FETCH_ATOMIC, UET_AMO_SUM, 100 + i, 1, 0,
			  key, raddr, &e, &posted);
		if (!posted || e.status != 0)
			return 0;
	}
	return (now_s() - t0) / count * 1e6;
}

/* Per-call cost of the raw accessor against memcpy, in ns. */
static void
raw_costs(uint8_t *own)
{
	static const uint32_t sizes[] = { 8, 64, 4096, 65536 };
	volatile uint8_t sink;

	for (unsigned int k = 0; k < RTE_DIM(sizes); k++) {
		uint32_t n = sizes[k], reps = n >= 65536 ? 2000 : 100000;
		double t0 = now_s(), tm, tr, tw, tv;

		for (uint32_t i = 0; i < reps; i++) {
			memcpy(lbuf, own, n);
			sink = lbuf[i % n];
		}
		tm = (now_s() - t0) / reps * 1e9;
		t0 = now_s();
		for (uint32_t i = 0; i < reps; i++)
			(void)uet_cma_fd_read(kid.mem, lbuf, kid.base, n);
		tr = (now_s() - t0) / reps * 1e9;
		t0 = now_s();
		for (uint32_t i = 0; i < reps; i++)
			(void)uet_cma_fd_write(kid.mem, kid.base, lbuf, n);
		tw = (now_s() - t0) / reps * 1e9;
		/* the PID-based accessor, for comparison */
		t0 = now_s();
		for (uint32_t i = 0; i < reps; i++)
			(void)uet_cma_read(kid.pid, lbuf, kid.base, n);
		tv = (now_s() - t0) / reps * 1e9;
		printf("raw %6u B: memcpy %8.0f ns  pread /proc/PID/mem %8.0f ns"
		       "  pwrite %8.0f ns  process_vm_readv %8.0f ns\n", n, tm,
		       tr, tw, tv);
	}
	(void)sink;
}

static void
bench(uint64_t key, uint32_t size, unsigned int count)
{
	uint8_t *own = aligned_alloc(4096, CHILD_LEN);
	uint64_t okey;
	int rc;

	if (own == NULL)
		return;
	memset(own, 1, CHILD_LEN);
	okey = mr_reg(0, (uintptr_t)own, CHILD_LEN, &rc);
	if (okey == 0) {
		free(own);
		return;
	}
	raw_costs(own);
	for (int pass = 0; pass < 2; pass++) {
		printf("WRITE %u B x %u: owner 0 %8.1f MB/s, owner child "
		       "%8.1f MB/s\n", size, count,
		       bw(UET_CHAN_OP_WRITE, okey, (uintptr_t)own, size, count),
		       bw(UET_CHAN_OP_WRITE, key, kid.base, size, count));
		printf("READ  %u B x %u: owner 0 %8.1f MB/s, owner child "
		       "%8.1f MB/s\n", size, count,
		       bw(UET_CHAN_OP_READ, okey, (uintptr_t)own, size, count),
		       bw(UET_CHAN_OP_READ, key, kid.base, size, count));
	}
	for (int pass = 0; pass < 2; pass++) {
		double b0 = bw(UET_CHAN_OP_READ, okey, (uintptr_t)own, 8,
			       count);
		double b1 = bw(UET_CHAN_OP_READ, key, kid.base, 8, count);

		printf("READ  8 B x %u: owner 0 %6.2f us/op, owner child "
		       "%6.2f us/op\n", count, b0 > 0 ? 8 / b0 : 0,
		       b1 > 0 ? 8 / b1 : 0);
		b0 = amo_rate(okey, (uintptr_t)own, count);
		b1 = amo_rate(key, kid.base, count);
		printf("FETCH_ATOMIC SUM u64 x %u: owner 0 %6.2f us/op, "
		       "owner child %6.2f us/op\n", count, b0, b1);
	}
	(void)mr_dereg(okey);
	free(own);
}

/* Whether this process may attach to the child; the reason if not. */
static bool
can_attach(void)
{
	uint8_t b;
	int rc = uet_cma_fd_read(kid.mem, &b, kid.base, 1);
	FILE *f;
	int scope = -1;

	if (rc == 0)
		return true;
	f = fopen("/proc/sys/kernel/yama/ptrace_scope", "r");
	if (f != NULL) {
		if (fscanf(f, "%d", &scope) != 1)
			scope = -1;
		fclose(f);
	}
	printf("SKIP: cannot attach to the child (/proc/PID/mem: %s); "
	       "uid %d, Yama ptrace_scope %d (-1: no Yama); needs same uid "
	       "with ptrace_scope <= 1, or CAP_SYS_PTRACE\n", strerror(-rc),
	       (int)getuid(), scope);
	return false;
}

/* A whole decimal number in [1, max], else 0. */
static unsigned long
arg_num(const char *s, unsigned long max)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v > max)
		return 0;
	return v;
}

int
main(int argc, char **argv)
{
	bool do_bench = argc > 1 && strcmp(argv[1], "bench") == 0;
	uint32_t size = argc > 2 ? (uint32_t)arg_num(argv[2], CHILD_LEN) :
				   65536;
	unsigned int count = argc > 3 ? (unsigned int)arg_num(argv[3], 1000000)
				      : 2000;
	uint64_t key;
	int rc;

	if ((argc > 1 && !do_bench) || argc > 4 || size == 0 || count == 0) {
		fprintf(stderr, "usage: %s [bench [SIZE [COUNT]]]\n", argv[0]);
		return 2;
	}
	/* writes to a dead child's pipe fail with EPIPE */
	(void)signal(SIGPIPE, SIG_IGN);
	/* before the EAL: the child is a plain process */
	rc = child_start();
	if (rc != 0) {
		fprintf(stderr, "child: %s\n", strerror(-rc));
		child_reap();
		return 1;
	}
	if (!can_attach()) {
		child_reap();
		return 77;
	}
	rc = uet_engine_eal_init("test_ses_cma",
				 "-l 0 --no-huge -m 512 --no-pci --in-memory "
				 "--log-level=4", NULL);
	if (rc < 0) {
		fprintf(stderr, "EAL: %s\n", strerror(-rc));
		child_reap();
		return 1;
	}
	lbuf = calloc(1, CHILD_LEN);
	want = calloc(1, CHILD_LEN);
	got = calloc(1, CHILD_LEN);
	if (lbuf == NULL || want == NULL || got == NULL || setup() < 0) {
		fprintf(stderr, "setup failed\n");
		failures++;
		goto out;
	}
	key = mr_reg(kid.mem, kid.base, CHILD_LEN, &rc);
	CHECK(key != 0);
	if (key == 0) {
		fprintf(stderr, "MR_REG owner %d: %s\n", (int)kid.pid,
			strerror(-rc));
		goto out;
	}
	if (do_bench) {
		bench(key, size, count);
		goto out;
	}
	test_reg_refused();
	test_write_read(key);
	test_atomics(key);
	test_unmapped(key);
	test_own_rma();
	test_owner_gone(key);
out:
	teardown();
	child_reap();
	free(lbuf);
	free(want);
	free(got);
	(void)rte_eal_cleanup();
	printf("%s: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
	return failures ? 1 : 0;
}
