/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Client death (src/svc/svc_srv_ops.c svc_client_release): CYCLES times a
 * forked client attaches, takes two PIDonFEPs, a job, two channels and a
 * peer, posts receives and sends messages from one of its processes to
 * the other through the service (the loopback port brings them back),
 * and is killed with SIGKILL mid-transfer. After each death the service
 * releases everything; at the end every /uet/service count is back to
 * its start, the service's open fds are as many as before (asserted) and
 * its resident set is printed (after a warm-up and at the end). Then a
 * client that stays alive still gets a NOP through, and a SIGTERM of the
 * service with that client attached ends in exit status 0 and the end of
 * the client's connection.
 *
 * usage: test_svc_kill UET_ENGINE_BINARY [CYCLES]
 */

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rte_common.h>

#include "svc_rawcli.h"

#define JOB 1u
#define WARMUP 10u

static struct rc_service svc;

static uint64_t
tel(const char *key)
{
	uint64_t v = UINT64_MAX;

	CHECK(rc_tel(&svc, "/uet/service", key, &v) == 0);
	return v;
}

/*
 * The engine reuses the process slot of a killed client's PIDonFEP once
 * no target record of the context is open (docs/SERVICE.md "Client death
 * and cleanup"): until then CHAN_OPEN may answer -ENOSPC. Retried for at
 * most 30 s.
 */
static int
chan_open_retry(struct rc_client *c, uint16_t pid, struct rc_chan *ch)
{
	int rc = -ENOSPC;

	for (unsigned int i = 0; i < 3000 && rc == -ENOSPC; i++) {
		rc = rc_chan_open(c, pid, 64, ch);
		if (rc == -ENOSPC)
			usleep(10000);
	}
	return rc;
}

/* The victim: runs until killed (bounded: it exits by itself after
 * 60 s of posting, should nobody kill it). Writes one byte to @p ready
 * once traffic flows. */
static void
victim(int ready, unsigned int cycle)
{
	struct rc_client c;
	struct uet_svc_pid_get_rep p1, p2;
	struct rc_chan tx, rx;
	struct uet_chan_sqe q;
	struct uet_chan_rqe r;
	struct uet_chan_cqe e;
	uint64_t peer;
	bool told = false;

	int rc, step = 0;

	if ((rc = rc_connect(&c, svc.sock)) < 0 ||
	    (++step, rc = rc_hello(&c)) < 0 ||
	    (++step, rc = rc_pid_get(&c, 0, UET_SVC_CTX_ANY, &p1)) < 0 ||
	    (++step, rc = rc_pid_get(&c, 0, UET_SVC_CTX_ANY, &p2)) < 0 ||
	    (++step, rc = rc_job(&c, true, JOB, p1.pid)) < 0 ||
	    (++step, rc = rc_job(&c, true, JOB, p2.pid)) < 0 ||
	    (++step, rc = chan_open_retry(&c, p1.pid, &tx)) < 0 ||
	    (++step, rc = chan_open_retry(&c, p2.pid, &rx)) < 0 ||
	    (++step, rc = rc_peer_add(&c, tx.ctx, p2.pid, p2.initiator,
				      &peer)) < 0) {
		fprintf(stderr, "cycle %u: client setup step %d: %s\n", cycle,
			step, strerror(-rc));
		_exit(3);
	}
	/* receives for some of the messages, the rest wait unexpected */
	memset(&r, 0, sizeof(r));
	r.op = UET_CHAN_RQ_RECV;
	r.len = 65536;
	for (unsigned int i = 0; i < 16; i++) {
		r.context = i + 1;
		r.addr = (uint64_t)i * 65536;
		(void)uet_chan_rq_post(&rx.ch, &r);
	}
	memset(&q, 0, sizeof(q));
	q.op = UET_CHAN_OP_SEND;
	q.flags = UET_CHAN_F_COMPLETION;
	q.addr = 2u << 20;
	q.len = 16384 + (cycle % 7) * 4096;
	q.dest = peer;
	q.job = JOB;
	q.tc = 1;
	for (unsigned int i = 0; i < 600000; i++) {
		q.context = i + 1;
		(void)uet_chan_sq_post(&tx.ch, &q);
		while (uet_chan_cq_poll(&tx.ch, &e, 1) == 1 ||
		       uet_chan_cq_poll(&rx.ch, &e, 1) == 1)
			;
		if (!told && i >= 8) {
			if (write(ready, "r", 1) != 1)
				_exit(4);
			told = true;
		}
		usleep(100);
	}
	_exit(0);
}

/* The service's open fds once they settle: the DPDK telemetry thread
 * closes the connection of a telemetry read shortly after it; two equal
 * counts 50 ms apart (at most 100 tries). */
static int
fds_settled(void)
{
	int prev = rc_proc_fds(svc.pid), cur = prev;

	for (unsigned int i = 0; i < 100; i++) {
		usleep(50000);
		cur = rc_proc_fds(svc.pid);
		if (cur == prev)
			break;
		prev = cur;
	}
	return cur;
}

static int
cycle_one(unsigned int i, const uint64_t *clients0)
{
	int pfd[2], st;
	pid_t pid;
	char b;

	if (pipe(pfd) != 0)
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		/* it goes with the test, should the test die first */
		(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(pfd[0]);
		victim(pfd[1], i);
	}
	close(pfd[1]);
	/* bounded: the victim writes within a few ms, or exits */
	if (read(pfd[0], &b, 1) != 1) {
		fprintf(stderr, "cycle %u: the client did not start\n", i);
		failures++;
	}
	close(pfd[0]);
	/* a little more traffic, a different point each cycle */
	usleep(200 * (i % 5));
	(void)kill(pid, SIGKILL);
	(void)waitpid(pid, &st, 0);
	/* the service sees the hang-up and cleans up (in the background;
	 * a release counts before the client stops counting): bounded */
	for (unsigned int k = 0; k < 1500; k++) {
		if (tel("clients") == *clients0 && tel("releasing") == 0)
			return 0;
		usleep(20000);
	}
	return -ETIMEDOUT;
}

static const char *const counts[] = {
	"clients", "chans", "peers", "mrs", "jobs", "pids",
};

int
main(int argc, char **argv)
{
	unsigned int cycles = argc > 2 ? (unsigned int)atoi(argv[2]) : 100;
	uint64_t start[RTE_DIM(counts)], att0, cl0;
	long rss_warm = -1, rss_end;
	int fds0, fds_end, rc;

	if (argc < 2) {
		fprintf(stderr, "usage: %s UET_ENGINE [CYCLES]\n", argv[0]);
		return 2;
	}
	rc = rc_service_start(&svc, argv[1], "kill", NULL, NULL);
	if (rc < 0) {
		fprintf(stderr, "service start: %s\n", strerror(-rc));
		if (svc.pid > 0)
			(void)rc_service_stop(&svc);
		return 1;
	}
	for (unsigned int i = 0; i < RTE_DIM(counts); i++)
		start[i] = tel(counts[i]);
	att0 = tel("attaches");
	cl0 = tel("cleanups");
	fds0 = fds_settled();
	printf("# start: fds %d rss %ld KiB\n", fds0,
	       rc_proc_rss_kib(svc.pid));
	for (unsigned int i = 0; i < cycles; i++) {
		if (cycle_one(i, &start[0]) < 0) {
			fprintf(stderr, "cycle %u: client not released\n", i);
			failures++;
			break;
		}
		if (i + 1 == WARMUP)
			rss_warm = rc_proc_rss_kib(svc.pid);
		if ((i + 1) % 100 == 0)
			printf("# cycle %u: rss %ld KiB\n", i + 1,
			       rc_proc_rss_kib(svc.pid));
	}
	fds_end = fds_settled();
	rss_end = rc_proc_rss_kib(svc.pid);
	printf("# after %u attach/kill cycles: fds %d (start %d), rss %ld KiB "
	       "(after %u cycles %ld KiB), attaches +%lu, cleanups +%lu\n",
	       cycles, fds_end, fds0, rss_end, WARMUP, rss_warm,
	       (unsigned long)(tel("attaches") - att0),
	       (unsigned long)(tel("cleanups") - cl0));
	CHECK(fds_end == fds0);
	CHECK(tel("cleanups") - cl0 == cycles);
	for (unsigned int i = 0; i < RTE_DIM(counts); i++) {
		uint64_t v = tel(counts[i]);

		printf("# %s: %lu (start %lu)\n", counts[i], (unsigned long)v,
		       (unsigned long)start[i]);
		CHECK(v == start[i]);
	}
	/* the service still serves */
	{
		struct rc_client c;
		struct uet_svc_pid_get_rep p;
		struct rc_chan ch;
		struct uet_chan_sqe q = { .op = UET_CHAN_OP_NOP,
					  .flags = UET_CHAN_F_COMPLETION,
					  .context = 9 };
		struct uet_chan_cqe e;

		CHECK(rc_connect(&c, svc.sock) == 0);
		CHECK(rc_hello(&c) == 0);
		CHECK(rc_pid_get(&c, 0, UET_SVC_CTX_ANY, &p) == 0);
		CHECK(rc_chan_open(&c, p.pid, 8, &ch) == 0);
		CHECK(uet_chan_sq_post(&ch.ch, &q) == 0);
		CHECK(rc_cq_wait(&ch, &e) && e.context == 9 && e.status == 0);
		/* SIGTERM with this client attached: released, exit 0, the
		 * client reads the end of its connection */
		rc = rc_service_stop(&svc);
		CHECK(rc == 0);
		{
			char b;

			CHECK(rc_recv_raw(&c, &b, 1, NULL, NULL) == 0);
		}
		rc_close(&c);
	}
	printf("%s: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
	return failures ? 1 : 0;
}
