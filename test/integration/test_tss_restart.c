/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An engine restarted with the same key file never seals with a TSC it
 * used before (UEC 1.0 section 3.7: no IV twice under a key; docs/TSS.md,
 * "The TSC of a key"). Two engines with [tss] on (direct mode, SDI 7)
 * over ring ports, A's frames read on their way to B:
 *
 *   run 1    A sends 300 messages: its TSCs start at 1 and grow by one
 *   run 2    A and B freed and created again, same addresses, key file
 *            and state_dir: every TSC of A above every TSC of run 1 (the
 *            reservation's next block), all delivered
 *   run 3    the same after a crash in the middle of a reservation (the
 *            new file written, not yet renamed over the old one: a
 *            garbled NAME.tmp left behind): A resumes above run 2
 *   corrupt  A's state file garbled: A is not created (no guess); the
 *            file restored, it is
 *   replay   A's first frame of run 1 (its first SYN, authentic)
 *            replayed to B restarted (its replay windows gone), past its
 *            quiet time: with [tss] pdc_start = pds it opens a PDC and is
 *            delivered again; with random_1rtt it is refused, every time
 *
 * Each run delivers every message exactly once; B drops nothing.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include <uet/uet_engine.h>
#include <uet/uet_tss.h>
#include <uet/uet_wire_tss.h>

#include "itest.h"
#include "itest_ulp.h"

#define TSS_OFF  (14 + 20 + 8)      /* Ethernet, IPv4, UDP */
#define MSGS     300
#define RUNS     3
#define MAX_SEEN 4096

static const uint8_t ip_a[4] = { 10, 0, 1, 1 };
static const uint8_t ip_b[4] = { 10, 0, 1, 2 };
static const uint8_t mac_a[6] = { 0x02, 0, 0, 0, 1, 0x0a };
static const uint8_t mac_b[6] = { 0x02, 0, 0, 0, 1, 0x0b };

static char dir[64], state[80], key[128];
/* A's TSCs of each run, in the order sealed */
static uint64_t seen[RUNS][MAX_SEEN];
static unsigned int nb_seen[RUNS];
/* A's first two protected frames of run 1 (SYNs of its first PDC), for
 * the replay */
static uint8_t first_frame[2][2048];
static uint16_t first_len[2];

/* A's frames on their way to B: note each protected one's TSC. */
static void
intercept(struct rte_ring *from_a, struct rte_ring *to_b, unsigned int run)
{
	struct rte_mbuf *in[64];
	struct uet_wire_tss_hdr h;
	unsigned int n;

	n = rte_ring_dequeue_burst(from_a, (void **)in, RTE_DIM(in), NULL);
	for (unsigned int i = 0; i < n; i++) {
		const uint8_t *f = rte_pktmbuf_mtod(in[i], const uint8_t *);
		uint16_t len = rte_pktmbuf_data_len(in[i]);

		if (len <= TSS_OFF || !uet_wire_tss_hdr_present(f + TSS_OFF,
								len - TSS_OFF))
			continue;
		CHECK(uet_wire_tss_hdr_decode(f + TSS_OFF, len - TSS_OFF,
					      &h) > 0);
		CHECK(h.sdi == 7);
		if (run == 0 && nb_seen[run] < 2 &&
		    len <= sizeof(first_frame[0])) {
			memcpy(first_frame[nb_seen[run]], f, len);
			first_len[nb_seen[run]] = len;
		}
		if (nb_seen[run] < MAX_SEEN)
			seen[run][nb_seen[run]++] = h.tsc;
	}
	if (n != 0 && rte_ring_enqueue_burst(to_b, (void **)in, n, NULL) != n)
		CHECK(!"ring to B full");
}

static void
config(struct uet_config *c, bool is_a)
{
	struct uet_config_tss *t = &c->tss;

	if (is_a)
		itest_cfg_ring(c, "net_ring_trA", ip_a, mac_a, ip_b, mac_b);
	else
		itest_cfg_ring(c, "net_ring_trB", ip_b, mac_b, ip_a, mac_a);
	itest_tss_domain(t, 7, key, state);
}

/* One run: A and B created, MSGS messages A -> B, both freed. */
static void
run_once(unsigned int run)
{
	static struct uet_config ca, cb;
	struct rte_ring *ab = rte_ring_lookup("tr_ab");
	struct rte_ring *mb = rte_ring_lookup("tr_mb");
	struct test_ulp_params pa, pb;
	struct uet_proto_params ppa, ppb;
	struct test_ulp *ra, *rb;
	struct test_ulp_result tx, rx;
	struct uet_engine_stats st;
	struct uet_engine *a = NULL, *b = NULL;
	bool fin = false;

	config(&ca, true);
	config(&cb, false);
	itest_ulp_stream(&pa, &pb, ip_a, ip_b, 4, UET_PDS_MODE_RUD, 64, MSGS,
			 32);
	ra = test_ulp_create(&pa);
	rb = test_ulp_create(&pb);
	CHECK(ab != NULL && mb != NULL && ra != NULL && rb != NULL);
	if (ab == NULL || mb == NULL || ra == NULL || rb == NULL)
		goto out;
	ppa = (struct uet_proto_params){ .ulp = &test_ulp_ops, .ulp_arg = ra };
	ppb = (struct uet_proto_params){ .ulp = &test_ulp_ops, .ulp_arg = rb };
	a = itest_engine_virt("trA", &ca, &ppa);
	b = itest_engine_virt("trB", &cb, &ppb);
	CHECK(a != NULL && b != NULL);
	if (a == NULL || b == NULL)
		goto out;
	for (unsigned long i = 0; i < 200000ul && !fin; i++) {
		vnow += 50000;
		(void)uet_engine_poll(a, 1);
		intercept(ab, mb, run);
		(void)uet_engine_poll(b, 1);
		fin = (i & 15) == 0 && test_ulp_send_finished(ra);
	}
	for (unsigned int i = 0; i < 200; i++) {
		vnow += 50000;
		(void)uet_engine_poll(a, 1);
		intercept(ab, mb, run);
		(void)uet_engine_poll(b, 1);
	}
	test_ulp_result(ra, &tx);
	test_ulp_result(rb, &rx);
	CHECK(fin && tx.msgs_sent == MSGS && tx.pkts_done_err == 0);
	CHECK(rx.rx_msgs == MSGS && rx.rx_lost == 0 && rx.rx_dup == 0 &&
	      rx.rx_bad == 0);
	CHECK(uet_engine_stats_get(b, &st) == 0);
	for (unsigned int r = 0; r < UET_ENGINE_TSS_DROPS; r++)
		CHECK(st.total.tss.rx_drop[r] == 0);
	CHECK(st.total.tss.rx_opened == nb_seen[run]);
out:
	uet_engine_free(b);
	uet_engine_free(a);
	test_ulp_free(rb);
	test_ulp_free(ra);
}

/* The path of A's state file (its address's, 10.0.1.1.*). */
static int
state_file(char *path, size_t len)
{
	struct dirent *d;
	DIR *s = opendir(state);
	int found = 0;

	if (s == NULL)
		return -1;
	while ((d = readdir(s)) != NULL)
		if (strncmp(d->d_name, "10.0.1.1.", 9) == 0 &&
		    strchr(d->d_name + 9, '.') == NULL) {
			snprintf(path, len, "%s/%s", state, d->d_name);
			found++;
		}
	closedir(s);
	return found == 1 ? 0 : -1;
}

static void
file_copy(const char *from, const char *to)
{
	char buf[256];
	ssize_t n;
	int in = open(from, O_RDONLY), out;

	CHECK(in >= 0);
	n = in >= 0 ? read(in, buf, sizeof(buf)) : -1;
	CHECK(n > 0);
	if (in >= 0)
		close(in);
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(out >= 0 && n > 0 && write(out, buf, (size_t)n) == n);
	if (out >= 0)
		close(out);
}

/* Every TSC of @p r in order and above every one of the runs before. */
static void
check_tscs(unsigned int r)
{
	uint64_t before = 0;

	for (unsigned int p = 0; p < r; p++)
		for (unsigned int i = 0; i < nb_seen[p]; i++)
			before = RTE_MAX(before, seen[p][i]);
	printf("run %u: %u protected frames of A, TSCs %lu .. %lu (runs "
	       "before: up to %lu)\n", r + 1, nb_seen[r],
	       (unsigned long)(nb_seen[r] ? seen[r][0] : 0),
	       (unsigned long)(nb_seen[r] ? seen[r][nb_seen[r] - 1] : 0),
	       (unsigned long)before);
	CHECK(nb_seen[r] >= MSGS && nb_seen[r] < MAX_SEEN);
	for (unsigned int i = 0; i < nb_seen[r]; i++) {
		CHECK(seen[r][i] > before);
		CHECK(i == 0 || seen[r][i] > seen[r][i - 1]);
	}
}

/* B polled @p ms of virtual time, 1 ms a poll (the PDS's records and
 * quiet time age by its running time, 1 ms a gap at most). */
static void
poll_b(struct uet_engine *b, unsigned int ms)
{
	for (unsigned int i = 0; i < ms; i++) {
		vnow += 1000000;
		(void)uet_engine_poll(b, 1);
	}
}

/* Captured frame @p i into B's receive ring. */
static void
replay_first(struct rte_mempool *mp, unsigned int i)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	char *d = m != NULL ? rte_pktmbuf_append(m, first_len[i]) : NULL;

	CHECK(d != NULL);
	if (d == NULL) {
		rte_pktmbuf_free(m);
		return;
	}
	memcpy(d, first_frame[i], first_len[i]);
	if (rte_ring_enqueue(rte_ring_lookup("tr_mb"), m) != 0) {
		CHECK(!"ring to B full");
		rte_pktmbuf_free(m);
	}
}

/*
 * B restarted (a new engine: its replay windows and PDS records gone)
 * gets A's frames of run 1, authentic and replayed by someone on the
 * path: the second (a SYN: the quiet time begins and refuses it), then
 * the first, past the quiet time and the record of that refusal (0.5 s
 * of running time; each TSC once, or TSS drops it as a replay). @return
 * the messages B's ULP received; *@p refused_1rtt, its PDS's syn_1rtt.
 */
static uint64_t
replay_after_restart(enum uet_config_tss_pdc_start how, struct rte_mempool *mp,
		     uint64_t *refused_1rtt)
{
	static struct uet_config cb;
	struct test_ulp_params pa, pb;
	struct uet_proto_params pp;
	struct test_ulp_result rx;
	struct test_ulp *rb;
	struct uet_engine *b;
	struct uet_ulp_ctx *ctx;

	*refused_1rtt = 0;
	config(&cb, false);
	cb.tss.pdc_start = how;
	itest_ulp_stream(&pa, &pb, ip_a, ip_b, 4, UET_PDS_MODE_RUD, 64, MSGS,
			 32);
	rb = test_ulp_create(&pb);
	CHECK(rb != NULL && first_len[1] > 0);
	if (rb == NULL || first_len[1] == 0)
		return UINT64_MAX;
	pp = (struct uet_proto_params){ .ulp = &test_ulp_ops, .ulp_arg = rb };
	b = itest_engine_virt("trB", &cb, &pp);
	CHECK(b != NULL);
	if (b == NULL) {
		test_ulp_free(rb);
		return UINT64_MAX;
	}
	poll_b(b, 1);
	replay_first(mp, 1);
	poll_b(b, 500);
	replay_first(mp, 0);
	poll_b(b, 5);
	test_ulp_result(rb, &rx);
	ctx = uet_ulp_ctx_get(b, 0);
	if (ctx != NULL && uet_ulp_ctx_pds(ctx) != NULL)
		*refused_1rtt = uet_pds_stats_get(uet_ulp_ctx_pds(ctx))->syn_1rtt;
	uet_engine_free(b);
	test_ulp_free(rb);
	/* what B sent (NACKs, ACKs) went to A, which is not there */
	{
		struct rte_mbuf *out[64];
		unsigned int n;

		while ((n = rte_ring_dequeue_burst(rte_ring_lookup("tr_ba"),
						   (void **)out, RTE_DIM(out),
						   NULL)) != 0)
			rte_pktmbuf_free_bulk(out, n);
	}
	return rx.rx_msgs;
}

static void
replay_checks(void)
{
	struct rte_mempool *mp = rte_pktmbuf_pool_create("tr_replay", 63, 0,
							 0, 2048 + 128,
							 SOCKET_ID_ANY);
	uint64_t pds, one_rtt, refused;

	CHECK(mp != NULL);
	if (mp == NULL)
		return;
	pds = replay_after_restart(UET_CONFIG_TSS_START_PDS, mp, &refused);
	CHECK(refused == 0);
	one_rtt = replay_after_restart(UET_CONFIG_TSS_START_RANDOM_1RTT, mp,
				       &refused);
	printf("replay of run 1's first SYN to B restarted: delivered %lu "
	       "time(s) with pdc_start = pds, %lu with random_1rtt (%lu "
	       "refused)\n", (unsigned long)pds, (unsigned long)one_rtt,
	       (unsigned long)refused);
	/* the exposure 1-RTT closes: past the quiet time, authentic and
	 * with no replay window left, the copy opens a PDC */
	CHECK(pds == 1);
	CHECK(one_rtt == 0 && refused == 2);
	rte_mempool_free(mp);
}

static void
run(void)
{
	static struct uet_config ca;
	struct uet_proto_params pp = { .ulp = &test_ulp_ops };
	struct test_ulp_params up;
	struct test_ulp *u;
	char path[400], saved[300], tmp[420];
	struct uet_engine *e;
	int fd;

	/* the key file and the state directory (0700) */
	itest_tss_files(dir, "000102030405060708090a0b0c0d0e0f"
			"f0e0d0c0b0a090807060504030201000", key, sizeof(key),
			state, sizeof(state));

	run_once(0);
	CHECK(nb_seen[0] > 0 && seen[0][0] == 1); /* a new key starts at 1 */
	check_tscs(0);
	CHECK(state_file(path, sizeof(path)) == 0);
	snprintf(saved, sizeof(saved), "%s/saved", dir);
	run_once(1);
	check_tscs(1);
	CHECK(seen[1][0] == 1 + UET_TSS_TSC_BLOCK); /* the next block */
	/* a crash while writing the next reservation */
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0 && write(fd, "uet-tss-", 8) == 8);
	if (fd >= 0)
		close(fd);
	run_once(2);
	check_tscs(2);
	CHECK(seen[2][0] == 1 + 2 * UET_TSS_TSC_BLOCK);
	CHECK(access(tmp, F_OK) < 0);
	file_copy(path, saved);
	/* garbled: refused, not guessed */
	fd = open(path, O_WRONLY | O_TRUNC);
	CHECK(fd >= 0 && write(fd, "uet-tss-tsc 1 x\n", 16) == 16);
	if (fd >= 0)
		close(fd);
	memset(&up, 0, sizeof(up));
	memcpy(up.peer.addr, ip_b, 4);
	up.mode = UET_PDS_MODE_RUD;
	up.size = 64;
	u = test_ulp_create(&up);
	CHECK(u != NULL);
	pp.ulp_arg = u;
	config(&ca, true);
	CHECK(itest_engine_virt("trA", &ca, &pp) == NULL);
	file_copy(saved, path);
	e = itest_engine_virt("trA", &ca, &pp);
	CHECK(e != NULL);
	uet_engine_free(e);
	test_ulp_free(u);
	replay_checks();
}

int
main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/uet_tss_rst_XXXXXX");
	if (itest_tmp_eal(dir, "test_tss_restart") < 0)
		return 1;
	if (itest_ring_pair_tapped("tr", 1024) < 0) {
		fprintf(stderr, "ring ports failed\n");
		itest_rm_dir(dir);
		return 1;
	}
	run();
	(void)rte_eal_cleanup();
	itest_rm_dir(dir);
	printf("%s: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
	return failures ? 1 : 0;
}
