/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The TSS AEAD through rte_cryptodev (pmd/core/tss_cdev.c), one EAL process
 * (--no-huge --in-memory), for each crypto PMD this DPDK has:
 * crypto_aesni_gcm and crypto_aesni_mb (the ipsec_mb driver) and
 * crypto_openssl. A PMD whose library is not installed is reported and
 * skipped; none at all skips the test (exit 77).
 *
 * Known answers: the GCM specification's AES-256 test cases 14 and 16
 * (McGrew and Viega, as NIST's GCM validation uses them). Then: a wrong
 * ICV, ciphertext or AAD is refused and counted; a TSS packet built with
 * src/tss (header, AAD, IV) sealed by one PMD opens with every other.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_mbuf.h>

#include <uet/uet_engine.h>
#include <uet/uet_tss.h>
#include <uet/uet_tss_cdev.h>

static int failures;

#define CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, \
			__LINE__, #cond); \
		failures++; \
	} \
} while (0)

static const char *const drivers[] = {
	"crypto_aesni_gcm", "crypto_aesni_mb", "crypto_openssl",
};
#define NDRV (sizeof(drivers) / sizeof(drivers[0]))

static struct rte_mempool *mp;

static size_t
unhex(const char *h, uint8_t *out)
{
	size_t n = strlen(h) / 2, i;
	unsigned int v;

	for (i = 0; i < n; i++) {
		if (sscanf(h + 2 * i, "%2x", &v) != 1)
			return 0;
		out[i] = (uint8_t)v;
	}
	return n;
}

struct gcm_kat {
	const char *name, *key, *iv, *aad, *pt, *ct, *tag;
};

static const struct gcm_kat kats[] = {
	{ "test case 14", "00000000000000000000000000000000"
	  "00000000000000000000000000000000", "000000000000000000000000", "",
	  "00000000000000000000000000000000",
	  "cea7403d4d606b6e074ec5d3baf39d18",
	  "d0d1c8a799996bf0265b98b5d48ab919" },
	{ "test case 16", "feffe9928665731c6d6a8f9467308308"
	  "feffe9928665731c6d6a8f9467308308", "cafebabefacedbaddecaf888",
	  "feedfacedeadbeeffeedfacedeadbeefabaddad2",
	  "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
	  "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39",
	  "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa"
	  "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662",
	  "76fc6ece0f4e1768cddf8853bb2d551b" },
};

/* An mbuf holding @p len bytes of @p data followed by an ICV slot. */
static struct rte_mbuf *
mbuf_with(const uint8_t *data, size_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	uint8_t *p;

	if (m == NULL)
		return NULL;
	p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(len +
					  UET_TSS_CDEV_ICV_LEN));
	if (p == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memcpy(p, data, len);
	memset(p + len, 0, UET_TSS_CDEV_ICV_LEN);
	return m;
}

/* One known answer: seal, compare, open, then each tampering refused. */
static void
run_kat(struct uet_tss_cdev *d, const struct gcm_kat *k)
{
	uint8_t key[32], iv[12], aad[64], pt[64], ct[64], tag[16], *p;
	size_t al = unhex(k->aad, aad), pl = unhex(k->pt, pt);
	struct uet_tss_cdev_sess *seal = NULL, *open = NULL;
	struct uet_tss_cdev_op op = { 0 };
	struct rte_mbuf *m;

	unhex(k->key, key);
	unhex(k->iv, iv);
	unhex(k->ct, ct);
	unhex(k->tag, tag);
	CHECK(uet_tss_cdev_session(d, key, true, (uint16_t)al, &seal) == 0);
	CHECK(uet_tss_cdev_session(d, key, false, (uint16_t)al, &open) == 0);
	m = mbuf_with(pt, pl);
	CHECK(m != NULL);
	if (seal == NULL || open == NULL || m == NULL)
		goto out;
	p = rte_pktmbuf_mtod(m, uint8_t *);
	op = (struct uet_tss_cdev_op){
		.enc_off = 0, .enc_len = (uint32_t)pl, .icv_off = (uint32_t)pl,
		.iv = iv, .aad = aad,
	};
	CHECK(uet_tss_cdev_run(d, seal, m, &op) == 0);
	CHECK(memcmp(p, ct, pl) == 0);
	CHECK(memcmp(p + pl, tag, 16) == 0);
	CHECK(uet_tss_cdev_run(d, open, m, &op) == 0);
	CHECK(memcmp(p, pt, pl) == 0);
	/* a flipped ICV bit, ciphertext bit, AAD bit: all refused */
	memcpy(p, ct, pl);
	p[pl + 15] ^= 0x01;
	CHECK(uet_tss_cdev_run(d, open, m, &op) == -EBADMSG);
	p[pl + 15] ^= 0x01;
	memcpy(p, ct, pl);
	p[0] ^= 0x80;
	CHECK(uet_tss_cdev_run(d, open, m, &op) == -EBADMSG);
	memcpy(p, ct, pl);
	if (al > 0) {
		aad[al - 1] ^= 0x04;
		CHECK(uet_tss_cdev_run(d, open, m, &op) == -EBADMSG);
		aad[al - 1] ^= 0x04;
	}
	memcpy(p, ct, pl);
	CHECK(uet_tss_cdev_run(d, open, m, &op) == 0);
	CHECK(memcmp(p, pt, pl) == 0);
	printf("%s: %s ok\n", uet_tss_cdev_driver(d), k->name);
out:
	rte_pktmbuf_free(m);
	uet_tss_cdev_session_free(d, seal);
	uet_tss_cdev_session_free(d, open);
}

/* Arguments the device must not see. */
static void
run_bad_args(struct uet_tss_cdev *d)
{
	static const uint8_t key[32], iv[12], aad[64], data[32];
	struct uet_tss_cdev_sess *s = NULL;
	struct uet_tss_cdev_stats st0, st1;
	struct uet_tss_cdev_op op = {
		.enc_off = 0, .enc_len = 33, .icv_off = 32, .iv = iv, .aad = aad,
	};
	struct rte_mbuf *m = mbuf_with(data, sizeof(data));

	CHECK(uet_tss_cdev_session(d, key, true, UET_TSS_CDEV_AAD_MAX + 1,
				   &s) == -EINVAL);
	CHECK(uet_tss_cdev_session(d, key, true, 0, &s) == 0);
	CHECK(m != NULL);
	if (s == NULL || m == NULL)
		goto out;
	uet_tss_cdev_stats_get(d, &st0);
	/* the encrypted part runs into the ICV; then the ICV ends past the
	 * 48 bytes present */
	CHECK(uet_tss_cdev_run(d, s, m, &op) == -EINVAL);
	op.enc_len = 32;
	op.icv_off = 33;
	CHECK(uet_tss_cdev_run(d, s, m, &op) == -EINVAL);
	uet_tss_cdev_stats_get(d, &st1);
	CHECK(st1.errors == st0.errors + 2 && st1.sealed == st0.sealed);
out:
	rte_pktmbuf_free(m);
	uet_tss_cdev_session_free(d, s);
}

#define BURST_N 6

/*
 * A burst of two sessions' packets (runs of one session, then
 * alternating), one op invalid: sealed, then opened with one ICV
 * flipped. Only the flipped packet fails verification, only the invalid
 * op is refused; the others open to their plaintext; the stats count
 * each.
 */
static void
run_burst_one_bad(struct uet_tss_cdev *d)
{
	static const int ses_of[BURST_N] = { 0, 0, 0, 1, 0, 1 };
	struct uet_tss_cdev_sess *seal[2] = { NULL }, *open[2] = { NULL };
	struct uet_tss_cdev_sess *ss[BURST_N], *os[BURST_N];
	struct uet_tss_cdev_op op[BURST_N];
	struct uet_tss_cdev_stats st0, st1;
	struct rte_mbuf *m[BURST_N] = { NULL };
	uint8_t key[2][32], iv[BURST_N][12], aad[24], pt[BURST_N][48];
	int rc[BURST_N];
	size_t i;

	for (i = 0; i < sizeof(key); i++)
		key[i / 32][i % 32] = (uint8_t)(i * 7 + 1);
	memset(aad, 0xA5, sizeof(aad));
	for (i = 0; i < 2; i++) {
		CHECK(uet_tss_cdev_session(d, key[i], true, sizeof(aad),
					   &seal[i]) == 0);
		CHECK(uet_tss_cdev_session(d, key[i], false, sizeof(aad),
					   &open[i]) == 0);
	}
	for (i = 0; i < BURST_N; i++) {
		memset(pt[i], (int)(0x10 + i), sizeof(pt[i]));
		memset(iv[i], (int)i, sizeof(iv[i]));
		m[i] = mbuf_with(pt[i], sizeof(pt[i]) - 16);
		CHECK(m[i] != NULL);
		ss[i] = seal[ses_of[i]];
		os[i] = open[ses_of[i]];
		op[i] = (struct uet_tss_cdev_op){
			.enc_off = 0, .enc_len = 32, .icv_off = 32,
			.iv = iv[i], .aad = aad,
		};
	}
	for (i = 0; i < BURST_N; i++)
		if (m[i] == NULL)
			goto out;
	if (seal[0] == NULL || open[0] == NULL || seal[1] == NULL ||
	    open[1] == NULL)
		goto out;
	CHECK(uet_tss_cdev_run_burst(d, ss, m, op, BURST_N, rc) == BURST_N);
	for (i = 0; i < BURST_N; i++)
		CHECK(rc[i] == 0 &&
		      memcmp(rte_pktmbuf_mtod(m[i], uint8_t *), pt[i], 32) != 0);
	rte_pktmbuf_mtod(m[2], uint8_t *)[32] ^= 0x01;  /* its ICV */
	op[4].enc_len = 33;                             /* into the ICV */
	uet_tss_cdev_stats_get(d, &st0);
	CHECK(uet_tss_cdev_run_burst(d, os, m, op, BURST_N, rc) ==
	      BURST_N - 2);
	uet_tss_cdev_stats_get(d, &st1);
	for (i = 0; i < BURST_N; i++) {
		if (i == 2)
			CHECK(rc[i] == -EBADMSG);
		else if (i == 4)
			CHECK(rc[i] == -EINVAL);
		else
			CHECK(rc[i] == 0 && memcmp(rte_pktmbuf_mtod(m[i],
					uint8_t *), pt[i], 32) == 0);
	}
	CHECK(st1.opened == st0.opened + BURST_N - 2 &&
	      st1.auth_fail == st0.auth_fail + 1 &&
	      st1.errors == st0.errors + 1);
	printf("%s: burst (%s) with a forged and an invalid packet ok\n",
	       uet_tss_cdev_driver(d), uet_tss_cdev_cpu(d) ? "CPU crypto" :
							   "queue pair");
out:
	for (i = 0; i < BURST_N; i++)
		rte_pktmbuf_free(m[i]);
	for (i = 0; i < 2; i++) {
		uet_tss_cdev_session_free(d, seal[i]);
		uet_tss_cdev_session_free(d, open[i]);
	}
}

/* A TSS packet as the spec lays it out: TSS header (with SSI) || PDS and
 * SES bytes || ICV after IPv4/UDP, AAD and IV from src/tss. */
struct tss_pkt {
	struct uet_wire_outer o;
	uint8_t key[32], iv[12], aad[UET_TSS_AAD_MAX_LEN], inner[128];
	int aad_len;
	struct uet_tss_split split;
};

static int
tss_pkt_build(struct tss_pkt *t)
{
	struct uet_wire_tss_hdr h = {
		.sp = true, .sdi = 7, .ssi = 0x0A000001, .epoch = 1, .tsc = 42,
	};
	uint8_t ctx[UET_TSS_KDF_CTX_V6_LEN], km[UET_TSS_KDF_OUT_LEN];
	uint8_t sd_key[32], ssi[4] = { 10, 0, 0, 1 };
	int n, cl, i;

	memset(t, 0, sizeof(*t));
	t->o.ip_version = 4;
	t->o.udp_sport = 0xC123;
	memcpy(t->o.src_addr, ssi, 4);
	memcpy(t->o.dst_addr, (uint8_t[]){ 10, 0, 0, 2 }, 4);
	for (i = 0; i < 32; i++)
		sd_key[i] = (uint8_t)(0x40 + i);
	/* cluster mode: per-source key and IV mask from the domain key */
	cl = uet_tss_kdf_ctx(h.epoch, 0, ssi, 4, ctx);
	if (cl < 0 || uet_tss_kdf(sd_key, UET_TSS_LABEL_CLUSTER, ctx,
				  (size_t)cl, km, sizeof(km)) < 0)
		return -1;
	memcpy(t->key, km, 32);
	n = uet_wire_tss_hdr_encode(&h, t->inner, sizeof(t->inner));
	if (n < 0 || uet_tss_split(sizeof(t->inner), true, &t->split) < 0)
		return -1;
	for (i = n; i < t->split.icv_off; i++)
		t->inner[i] = (uint8_t)i; /* stands for PDS + SES + payload */
	t->aad_len = uet_tss_aad(&t->o, t->inner, (size_t)n, t->aad,
				 sizeof(t->aad));
	uet_tss_iv(h.ssi, h.epoch, h.tsc, km + 32, t->iv);
	return t->aad_len > 0 ? 0 : -1;
}

static void
run_cross(struct uet_tss_cdev *a, struct uet_tss_cdev *b)
{
	struct uet_tss_cdev_sess *seal = NULL, *open = NULL;
	struct uet_tss_cdev_op op;
	struct rte_mbuf *m = NULL;
	struct tss_pkt t;
	uint8_t *p;

	CHECK(tss_pkt_build(&t) == 0);
	CHECK(uet_tss_cdev_session(a, t.key, true, (uint16_t)t.aad_len,
				   &seal) == 0);
	CHECK(uet_tss_cdev_session(b, t.key, false, (uint16_t)t.aad_len,
				   &open) == 0);
	m = mbuf_with(t.inner, t.split.icv_off);
	CHECK(m != NULL);
	if (seal == NULL || open == NULL || m == NULL)
		goto out;
	p = rte_pktmbuf_mtod(m, uint8_t *);
	op = (struct uet_tss_cdev_op){
		.enc_off = t.split.hdr_len, .enc_len = t.split.enc_len,
		.icv_off = t.split.icv_off, .iv = t.iv, .aad = t.aad,
	};
	CHECK(uet_tss_cdev_run(a, seal, m, &op) == 0);
	CHECK(memcmp(p, t.inner, t.split.hdr_len) == 0); /* header clear */
	CHECK(memcmp(p + t.split.hdr_len, t.inner + t.split.hdr_len,
		     t.split.enc_len) != 0);
	CHECK(uet_tss_cdev_run(b, open, m, &op) == 0);
	CHECK(memcmp(p, t.inner, t.split.icv_off) == 0);
	printf("TSS packet: sealed by %s, opened by %s\n",
	       uet_tss_cdev_driver(a), uet_tss_cdev_driver(b));
out:
	rte_pktmbuf_free(m);
	uet_tss_cdev_session_free(a, seal);
	uet_tss_cdev_session_free(b, open);
}

int
main(int argc, char **argv)
{
	struct uet_tss_cdev *dev[NDRV] = { NULL };
	size_t i, j, n = 0;
	int rc;
	bool reused;

	(void)argc;
	rc = uet_engine_eal_init(argv[0],
				 "-l 0 --no-huge --no-pci -m 1024 --in-memory "
				 "--log-level=lib.eal:warning", &reused);
	if (rc < 0) {
		fprintf(stderr, "EAL init: %s\n", rte_strerror(-rc));
		return 1;
	}
	mp = rte_pktmbuf_pool_create("tss_mb", 63, 0, 0, 2048, SOCKET_ID_ANY);
	if (mp == NULL) {
		fprintf(stderr, "mbuf pool: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	for (i = 0; i < NDRV; i++) {
		rc = uet_tss_cdev_create(drivers[i], NULL, SOCKET_ID_ANY, 16,
					 &dev[i]);
		if (rc == -ENODEV) {
			printf("%s: PMD absent in this DPDK, skipped\n",
			       drivers[i]);
			continue;
		}
		CHECK(rc == 0);
		if (rc < 0) {
			fprintf(stderr, "%s: %s\n", drivers[i],
				rte_strerror(-rc));
			continue;
		}
		n++;
		for (j = 0; j < sizeof(kats) / sizeof(kats[0]); j++)
			run_kat(dev[i], &kats[j]);
		run_bad_args(dev[i]);
		run_burst_one_bad(dev[i]);
	}
	for (i = 0; i < NDRV; i++)
		for (j = 0; j < NDRV; j++)
			if (dev[i] != NULL && dev[j] != NULL)
				run_cross(dev[i], dev[j]);
	for (i = 0; i < NDRV; i++)
		uet_tss_cdev_destroy(dev[i]);
	rte_mempool_free(mp);
	if (n == 0) {
		printf("no crypto PMD with AES-GCM: test skipped\n");
		return 77;
	}
	printf("%zu PMDs, %d failures\n", n, failures);
	return failures == 0 ? 0 : 1;
}
