/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The transport security sublayer against a hostile wire (docs/TSS.md):
 * two engines with [tss] on (direct mode, SDI 7 for the raw ULP's job,
 * SDI 8 another domain with another key) over ring ports, in one EAL
 * process, and an injector on A -> B that sees every protected frame and
 * adds, next to the real ones:
 *
 *   flip      a copy with one ciphertext bit flipped (UDP checksum
 *             recomputed, as an attacker would)      -> dropped: auth
 *   wrongkey  a copy claiming SDI 8 (sealed under SDI 7's key) -> auth
 *   forge     a copy with its ciphertext and ICV replaced by random
 *             bytes and a TSC ahead of the sender's   -> auth
 *   badsdi    a copy claiming SDI 9 (no such domain)  -> sdi
 *   trunc     a copy cut shorter than header + ICV    -> header
 *   replay    a frame seen a few frames earlier       -> replay
 *   old       a frame seen 600 frames earlier (window 256) -> old
 *   clear     a clear RUD request of the secure job, every other one
 *             with an SES header that does not decode  -> clear
 *
 * Every injected frame is dropped and counted under exactly its reason,
 * and the real traffic is delivered exactly once, byte exact. Bounded by
 * loop iterations and counts; no timing assertion.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <rte_udp.h>

#include <uet/uet_engine.h>
#include <uet/uet_ulp.h>
#include <uet/uet_wire_packet.h>
#include <uet/uet_wire_tss.h>

#include "itest.h"
#include "perf.h"

#define L4_OFF   (14 + 20)          /* Ethernet, IPv4 without options */
#define TSS_OFF  (L4_OFF + 8)
#define HIST     1024               /* protected frames remembered */
#define MSGS     3000

enum atk { FLIP, WRONGKEY, FORGE, BADSDI, TRUNC, REPLAY, OLD, CLEAR,
	   ATK_N };

static const char *const atk_names[ATK_N] = {
	"flip", "wrongkey", "forge", "badsdi", "trunc", "replay", "old",
	"clear",
};

static const uint8_t ip_a[4] = { 10, 0, 0, 1 };
static const uint8_t ip_b[4] = { 10, 0, 0, 2 };
static const uint8_t mac_a[6] = { 0x02, 0, 0, 0, 0, 0x0a };
static const uint8_t mac_b[6] = { 0x02, 0, 0, 0, 0, 0x0b };

static struct rte_mempool *pool;
static struct rte_mbuf *hist[HIST];
static uint64_t nb_seen;
static unsigned int injected[ATK_N];
static char dir[64];

static void
key_file(const char *name, unsigned int seed, char *path, size_t n)
{
	char hex[65];
	int fd;

	for (unsigned int i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", (seed * 37 + i * 11) & 0xff);
	snprintf(path, n, "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0 && write(fd, hex, 64) == 64);
	close(fd);
}

static void
config_tss(struct uet_config *c, const char *k7, const char *k8)
{
	struct uet_config_tss *t = &c->tss;

	t->enabled = true;
	t->replay_window = 256;
	t->nb_domains = 2;
	t->domain[0].sdi = 7;
	t->domain[0].first[0] = 1;
	t->domain[0].last[0] = 4095;
	t->domain[0].nb_ranges = 1;
	snprintf(t->domain[0].key_file, sizeof(t->domain[0].key_file), "%s",
		 k7);
	t->domain[1].sdi = 8;
	t->domain[1].first[0] = 5000;
	t->domain[1].last[0] = 5000;
	t->domain[1].nb_ranges = 1;
	snprintf(t->domain[1].key_file, sizeof(t->domain[1].key_file), "%s",
		 k8);
}

/* Lengths and checksums of an edited IPv4/UDP frame. */
static void
refresh(struct rte_mbuf *m)
{
	uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(f + 14);
	struct rte_udp_hdr *u = (struct rte_udp_hdr *)(f + L4_OFF);
	uint16_t len = rte_pktmbuf_data_len(m);

	ip->total_length = rte_cpu_to_be_16((uint16_t)(len - 14));
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	u->dgram_len = rte_cpu_to_be_16((uint16_t)(len - L4_OFF));
	u->dgram_cksum = 0;
	u->dgram_cksum = rte_ipv4_udptcp_cksum(ip, u);
}

static struct rte_mbuf *
copy(const struct rte_mbuf *m)
{
	struct rte_mbuf *c = rte_pktmbuf_copy(m, pool, 0, UINT32_MAX);

	CHECK(c != NULL);
	return c;
}

static void
set_sdi(struct rte_mbuf *m, uint32_t sdi)
{
	uint8_t *t = rte_pktmbuf_mtod_offset(m, uint8_t *, TSS_OFF);

	t[1] = (uint8_t)(sdi >> 16);
	t[2] = (uint8_t)(sdi >> 8);
	t[3] = (uint8_t)sdi;
}

/* A clear RUD request of the secure job (as if TSS were off at A). */
static struct rte_mbuf *
clear_request(void)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	static const uint8_t payload[32];
	struct uet_wire_pkt p;
	int len;

	CHECK(m != NULL);
	if (m == NULL)
		return NULL;
	memset(&p, 0, sizeof(p));
	uet_wire_outer_init(&p.outer, 4);
	memcpy(p.outer.src_mac, mac_a, 6);
	memcpy(p.outer.dst_mac, mac_b, 6);
	memcpy(p.outer.src_addr, ip_a, 4);
	memcpy(p.outer.dst_addr, ip_b, 4);
	p.outer.udp_sport = 49152;
	p.outer.udp_dport = 4793;
	p.pds.type = UET_PDS_TYPE_RUD_REQ;
	p.pds.next_hdr = UET_SES_FMT_STD;
	p.pds.flags = UET_PDS_F_SYN;
	p.pds.u.req.psn = 1000;
	p.pds.u.req.spdcid = 77;
	p.req.version = UET_SES_VERSION;
	p.req.opcode = UET_SES_OP_SEND;
	p.req.flags = UET_SES_F_SOM | UET_SES_F_EOM;
	p.req.job_id = 0x42; /* test_ulp.c PERF_TEST_ULP_JOB, in domain 7 */
	len = uet_wire_pkt_build(&p, payload, sizeof(payload),
			    rte_pktmbuf_mtod(m, uint8_t *),
			    rte_pktmbuf_tailroom(m));
	CHECK(len > 0);
	if (len <= 0 || rte_pktmbuf_append(m, (uint16_t)len) == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	return m;
}

/* The attack for protected frame number @p n (one frame in 16). */
static struct rte_mbuf *
attack(const struct rte_mbuf *m, uint64_t n, bool *before)
{
	enum atk k = (enum atk)((n / 16) % ATK_N);
	struct rte_mbuf *c = NULL;
	uint8_t *f;

	*before = true; /* ahead of the real frame: its TSC is not used */
	switch (k) {
	case FLIP:
		c = copy(m);
		if (c != NULL) {
			f = rte_pktmbuf_mtod(c, uint8_t *);
			f[TSS_OFF + UET_TSS_HDR_LEN + 5] ^= 0x40;
		}
		break;
	case WRONGKEY:
	case BADSDI:
		c = copy(m);
		if (c != NULL)
			set_sdi(c, k == WRONGKEY ? 8 : 9);
		break;
	case FORGE:
		c = copy(m);
		if (c != NULL) {
			f = rte_pktmbuf_mtod(c, uint8_t *);
			f[TSS_OFF + 6] = 0x7f; /* TSC far ahead */
			for (uint32_t i = TSS_OFF + UET_TSS_HDR_LEN;
			     i < rte_pktmbuf_data_len(c); i++)
				f[i] = (uint8_t)(i * 131 + n);
		}
		break;
	case TRUNC:
		c = copy(m);
		if (c != NULL)
			(void)rte_pktmbuf_trim(c, (uint16_t)
				(rte_pktmbuf_data_len(c) - TSS_OFF -
				 UET_TSS_HDR_LEN - 10));
		break;
	case REPLAY:
	case OLD:
		if (nb_seen < 600)
			return NULL;
		c = copy(hist[(nb_seen - (k == REPLAY ? 3 : 600)) % HIST]);
		*before = false;
		break;
	case CLEAR:
		c = clear_request();
		/* no readable JobID: not shown to be of a clear job */
		if (c != NULL && injected[CLEAR] % 2 == 1)
			rte_pktmbuf_mtod(c, uint8_t *)[TSS_OFF +
						      UET_PDS_REQ_LEN] = 0xff;
		break;
	default:
		break;
	}
	if (c == NULL)
		return NULL;
	if (k != REPLAY && k != OLD)
		refresh(c);
	injected[k]++;
	return c;
}

/* Take what A sent, add the attacks, pass it on to B. */
static void
intercept(struct rte_ring *from_a, struct rte_ring *to_b)
{
	struct rte_mbuf *in[64], *out[192];
	unsigned int n, o = 0;

	n = rte_ring_dequeue_burst(from_a, (void **)in, RTE_DIM(in), NULL);
	for (unsigned int i = 0; i < n; i++) {
		const uint8_t *f = rte_pktmbuf_mtod(in[i], const uint8_t *);
		struct rte_mbuf *a = NULL;
		bool before = false;

		if (rte_pktmbuf_data_len(in[i]) > TSS_OFF + 40 &&
		    uet_wire_tss_hdr_present(f + TSS_OFF, 1)) {
			rte_pktmbuf_free(hist[nb_seen % HIST]);
			hist[nb_seen % HIST] = copy(in[i]);
			if (nb_seen % 16 == 5)
				a = attack(in[i], nb_seen, &before);
			nb_seen++;
		}
		if (a != NULL && before)
			out[o++] = a;
		out[o++] = in[i];
		if (a != NULL && !before)
			out[o++] = a;
	}
	if (o != 0 &&
	    rte_ring_enqueue_burst(to_b, (void **)out, o, NULL) != o)
		CHECK(!"ring to B full");
}

/* A sends into ta_ab, which only the injector reads; it passes A's
 * frames and its own to ta_mb, which B reads; B sends into ta_ba. */
static int
ring_ports(void)
{
	struct rte_ring *ab, *mb, *ba;

	ab = rte_ring_create("ta_ab", 1024, SOCKET_ID_ANY,
			     RING_F_SP_ENQ | RING_F_SC_DEQ);
	mb = rte_ring_create("ta_mb", 2048, SOCKET_ID_ANY,
			     RING_F_SP_ENQ | RING_F_SC_DEQ);
	ba = rte_ring_create("ta_ba", 1024, SOCKET_ID_ANY,
			     RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (ab == NULL || mb == NULL || ba == NULL ||
	    rte_eth_from_rings("taA", &ba, 1, &ab, 1, SOCKET_ID_ANY) < 0 ||
	    rte_eth_from_rings("taB", &mb, 1, &ba, 1, SOCKET_ID_ANY) < 0)
		return -1;
	return 0;
}

static struct uet_engine *
engine_make(const char *name, const struct uet_config *c,
	    struct uet_proto_params *pp)
{
	struct uet_engine_params p = {
		.cfg = c, .name = name, .hook = &uet_proto_hook_ops,
		.hook_arg = pp,
	};
	struct uet_engine *e = uet_engine_create(&p);

	if (e == NULL)
		fprintf(stderr, "engine %s: %s\n", name,
			rte_strerror(rte_errno));
	return e;
}

static void
check_drops(struct uet_engine *b)
{
	static struct uet_engine_stats st;
	const uint64_t *d = st.total.tss.rx_drop;

	CHECK(uet_engine_stats_get(b, &st) == 0);
	for (unsigned int k = 0; k < ATK_N; k++)
		printf("injected %-8s %u\n", atk_names[k], injected[k]);
	for (unsigned int r = 0; r < UET_ENGINE_TSS_DROPS; r++)
		printf("B dropped %-11s %lu\n", uet_engine_tss_drop_name(r),
		       (unsigned long)d[r]);
	for (unsigned int k = 0; k < ATK_N; k++)
		CHECK(injected[k] > 0);
	CHECK(d[UET_ENGINE_TSS_DROP_AUTH] ==
	      injected[FLIP] + injected[WRONGKEY] + injected[FORGE]);
	CHECK(d[UET_ENGINE_TSS_DROP_SDI] == injected[BADSDI]);
	CHECK(d[UET_ENGINE_TSS_DROP_HEADER] == injected[TRUNC]);
	CHECK(d[UET_ENGINE_TSS_DROP_REPLAY] == injected[REPLAY]);
	CHECK(d[UET_ENGINE_TSS_DROP_OLD] == injected[OLD]);
	CHECK(d[UET_ENGINE_TSS_DROP_CLEAR] == injected[CLEAR]);
	CHECK(d[UET_ENGINE_TSS_DROP_JOB] == 0 &&
	      d[UET_ENGINE_TSS_DROP_INNER] == 0 &&
	      d[UET_ENGINE_TSS_DROP_CRYPTO] == 0);
	CHECK(st.total.rx_csum_bad == 0 && st.total.rx_malformed == 0);
}

static void
run(void)
{
	static struct uet_config ca, cb;
	struct test_ulp_params pa, pb;
	struct uet_proto_params ppa, ppb;
	struct uet_engine *a = NULL, *b = NULL;
	struct test_ulp *ra, *rb;
	struct test_ulp_result tx, rx;
	struct rte_ring *ab = rte_ring_lookup("ta_ab");
	struct rte_ring *mb = rte_ring_lookup("ta_mb");
	char k7[128], k8[128];
	bool fin = false;

	key_file("sdi7.key", 7, k7, sizeof(k7));
	key_file("sdi8.key", 8, k8, sizeof(k8));
	itest_cfg_ring(&ca, "net_ring_taA", ip_a, mac_a, ip_b, mac_b);
	itest_cfg_ring(&cb, "net_ring_taB", ip_b, mac_b, ip_a, mac_a);
	config_tss(&ca, k7, k8);
	config_tss(&cb, k7, k8);
	memset(&pa, 0, sizeof(pa));
	memcpy(pa.peer.addr, ip_b, 4);
	pa.mode = UET_PDS_MODE_RUD;
	pa.size = 64;
	pa.count = MSGS;
	pa.window = 64;
	pb = pa;
	memcpy(pb.peer.addr, ip_a, 4);
	pb.count = 0;
	pb.expect = MSGS;
	pb.expect_size = 64;
	ra = test_ulp_create(&pa);
	rb = test_ulp_create(&pb);
	CHECK(ab != NULL && mb != NULL && ra != NULL && rb != NULL);
	if (ab == NULL || mb == NULL || ra == NULL || rb == NULL)
		goto out;
	ppa = (struct uet_proto_params){ .ulp = &test_ulp_ops, .ulp_arg = ra };
	ppb = (struct uet_proto_params){ .ulp = &test_ulp_ops, .ulp_arg = rb };
	a = engine_make("taA", &ca, &ppa);
	b = engine_make("taB", &cb, &ppb);
	CHECK(a != NULL && b != NULL);
	if (a == NULL || b == NULL)
		goto out;
	for (unsigned long i = 0; i < 5000000ul && !fin; i++) {
		(void)uet_engine_poll(a, 1);
		intercept(ab, mb);
		(void)uet_engine_poll(b, 1);
		fin = (i & 15) == 0 && test_ulp_send_finished(ra);
	}
	for (unsigned int i = 0; i < 2000; i++) {
		(void)uet_engine_poll(a, 1);
		intercept(ab, mb);
		(void)uet_engine_poll(b, 1);
	}
	test_ulp_result(ra, &tx);
	test_ulp_result(rb, &rx);
	printf("sent %lu, done %lu ok / %lu err; delivered %lu, lost %lu, "
	       "dup %lu, bad %lu; protected frames seen %lu\n",
	       (unsigned long)tx.msgs_sent, (unsigned long)tx.pkts_done_ok,
	       (unsigned long)tx.pkts_done_err, (unsigned long)rx.rx_msgs,
	       (unsigned long)rx.rx_lost, (unsigned long)rx.rx_dup,
	       (unsigned long)rx.rx_bad, (unsigned long)nb_seen);
	CHECK(fin);
	CHECK(tx.msgs_sent == MSGS && tx.pkts_done_err == 0);
	CHECK(rx.rx_msgs == MSGS && rx.rx_lost == 0 && rx.rx_dup == 0 &&
	      rx.rx_bad == 0);
	check_drops(b);
out:
	uet_engine_free(b);
	uet_engine_free(a);
	test_ulp_free(rb);
	test_ulp_free(ra);
	unlink(k7);
	unlink(k8);
}

int
main(void)
{
	int rc;

	snprintf(dir, sizeof(dir), "/tmp/uet_tss_atk_XXXXXX");
	if (mkdtemp(dir) == NULL)
		return 1;
	rc = uet_engine_eal_init("test_tss_attack",
				 "-l 0 --no-huge -m 512 --no-pci "
				 "--log-level=4", NULL);
	if (rc < 0) {
		fprintf(stderr, "EAL: %s\n", strerror(-rc));
		rmdir(dir);
		return 1;
	}
	pool = rte_pktmbuf_pool_create("ta_atk", 2047, 0, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	if (pool == NULL || ring_ports() < 0) {
		fprintf(stderr, "pool or ring ports failed\n");
		return 1;
	}
	run();
	for (unsigned int i = 0; i < HIST; i++)
		rte_pktmbuf_free(hist[i]);
	(void)rte_eal_cleanup();
	rmdir(dir);
	printf("%s: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
	return failures ? 1 : 0;
}
