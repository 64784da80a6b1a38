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
 *   wrongkey  a copy claiming SDI 8 and its key's epoch (sealed under SDI 7's
 *             key)                                  -> auth
 *   forge     a copy with its ciphertext and ICV replaced by random
 *             bytes and a TSC ahead of the sender's   -> auth
 *   badsdi    a copy claiming SDI 9 (no such domain)  -> sdi
 *   trunc     a copy cut shorter than header + ICV    -> header
 *   replay    a frame seen a few frames earlier       -> replay
 *   old       a frame seen 600 frames earlier (window 256), under the
 *             key A seals with (each key has its own window) -> old
 *   clear     a clear RUD request of the secure job, every other one
 *             with an SES header that does not decode (the engine reads
 *             its JobID field only: still the secure job's) -> clear
 *
 * "cluster" (argv[1]) runs the same in cluster mode (keys per source,
 * derived from the domain key) with a key rotation every 1024 TSCs, and
 * adds:
 *
 *   othersrc  the frame opened with A's derived key as this test derives
 *             it (OpenSSL's KBKDF and GCM: a cross-check of the engine's
 *             derivation and cryptodev's AEAD), then re-sealed under A's
 *             key as from another source address, as a host of the
 *             cluster would to pass as another             -> auth
 *   anflip    a copy with its association number flipped  -> epoch
 *   rotreplay at each rotation A makes, the last frame under the old
 *             key, replayed after the first under the new -> replay
 *
 * Both runs also rotate SDI 7's domain key twice (a new key file, then
 * uet_engine_tss_reload() on both engines, [tss] epoch_switch 1 ms, on
 * a virtual clock), and add:
 *
 *   epreplay  at each epoch switch of A, the last frame under the old
 *             key, replayed after the first under the new -> replay
 *   retired   that frame again, once the old key is retired -> epoch
 *
 * and check: a reload with an unchanged key rotates nothing, one during
 * a rotation is refused (-EBUSY) and changes nothing, each context took
 * up each rotation, A's frames carry three epochs in turn.
 *
 * A's fault injector drops and reorders 2 % of its data frames each.
 * Every injected frame is dropped and counted under exactly its reason,
 * and the real traffic is delivered exactly once, byte exact, across the
 * rotations. Bounded by loop iterations and counts; no timing assertion.
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
#include <rte_telemetry.h>
#include <rte_udp.h>

#include <uet/uet_engine.h>
#include <uet/uet_tss.h>
#include <uet/uet_ulp.h>
#include <uet/uet_wire_packet.h>
#include <uet/uet_wire_tss.h>

#include "itest.h"
#include "itest_ulp.h"

#define L4_OFF   (14 + 20)          /* Ethernet, IPv4 without options */
#define TSS_OFF  (L4_OFF + 8)
#define HIST     1024               /* protected frames remembered */
#define MSGS     3000

#define REKEY    1024               /* cluster: TSCs between rotations */

enum atk { FLIP, WRONGKEY, FORGE, BADSDI, TRUNC, REPLAY, OLD, CLEAR,
	   OTHERSRC, ANFLIP, ROTREPLAY, EPREPLAY, RETIRED, ATK_N };
#define ATK_DIRECT (CLEAR + 1)     /* the attacks of direct mode */

static const char *const atk_names[ATK_N] = {
	"flip", "wrongkey", "forge", "badsdi", "trunc", "replay", "old",
	"clear", "othersrc", "anflip", "rotreplay", "epreplay", "retired",
};

#define SWITCH_NS  1000000ull      /* [tss] epoch_switch */
#define TICK_NS    50000ull        /* virtual time per loop iteration */
#define ROTATIONS  2               /* of SDI 7's domain key */

static const uint8_t ip_a[4] = { 10, 0, 0, 1 };
static const uint8_t ip_b[4] = { 10, 0, 0, 2 };
static const uint8_t ip_c[4] = { 10, 0, 0, 3 }; /* no engine has it */
static const uint8_t mac_a[6] = { 0x02, 0, 0, 0, 0, 0x0a };
static const uint8_t mac_b[6] = { 0x02, 0, 0, 0, 0, 0x0b };

static struct rte_mempool *pool;
static struct rte_mbuf *hist[HIST];
static uint64_t nb_seen;
static unsigned int injected[ATK_N];
static char dir[64];
static bool cluster;
static uint16_t epoch8;            /* the epoch number of SDI 8's key */
static unsigned int rotations;     /* AN changes seen on A's frames */
static unsigned int reopened;      /* frames of A this test opened */
static unsigned int reloads;       /* rotations of SDI 7's key done */
static uint64_t reload_ns;         /* virtual time of the last one */
static unsigned int epochs_seen;   /* epoch changes in A's frames */
static struct rte_mbuf *last_old;  /* A's last frame before a switch */
static unsigned int retired_sent;  /* last_old sent once retired */
static unsigned int csum_set;      /* protected frames of A with one */
static uint8_t k7s[ROTATIONS + 1][32]; /* SDI 7's keys, in turn */
static uint16_t e7s[ROTATIONS + 1];    /* and their epoch numbers */

/* Write key file @p name from @p seed; the key also into @p key. */
static void
key_file(const char *name, unsigned int seed, char *path, size_t n,
	 uint8_t key[32])
{
	char hex[65];
	int fd;

	for (unsigned int i = 0; i < 32; i++) {
		key[i] = (uint8_t)((seed * 37 + i * 11) & 0xff);
		snprintf(hex + 2 * i, 3, "%02x", key[i]);
	}
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
	t->epoch_switch_ns = SWITCH_NS;
	if (cluster) {
		t->mode = UET_CONFIG_TSS_CLUSTER;
		t->rekey_interval = REKEY;
	}
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
	/* the TSC reservations, one file per engine and key */
	snprintf(t->state_dir, sizeof(t->state_dir), "%s", dir);
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

/* AAD of an IPv4/UDP frame: addresses, entropy (UDP source port), TSS
 * header (docs/WIRE-DECISIONS.md), built here without the engine's code */
static void
aad_of(const uint8_t *f, uint8_t aad[8 + 4 + UET_TSS_HDR_LEN])
{
	memcpy(aad, f + 14 + 12, 8);
	memcpy(aad + 8, f + L4_OFF, 2);
	aad[10] = 0;
	aad[11] = 0;
	memcpy(aad + 12, f + TSS_OFF, UET_TSS_HDR_LEN);
}

/* A's key for the frame's rekey counter, derived here: key || IV mask */
static void
key_of_a(const uint8_t *f, uint8_t out[UET_TSS_KDF_OUT_LEN])
{
	uint8_t ctx[UET_TSS_KDF_CTX_V6_LEN];
	uint64_t tsc = itest_get_be(f + TSS_OFF + 6, 6);
	uint16_t epoch = (uint16_t)itest_get_be(f + TSS_OFF + 4, 2);
	int n = uet_tss_kdf_ctx(epoch, (uint32_t)(tsc / REKEY), ip_a, 4, ctx);

	unsigned int i = 0;

	while (i < ROTATIONS && e7s[i] != epoch)
		i++;
	CHECK(n == UET_TSS_KDF_CTX_V4_LEN && e7s[i] == epoch);
	CHECK(uet_tss_kdf(k7s[i], UET_TSS_LABEL_CLUSTER, ctx, (size_t)n, out,
			  UET_TSS_KDF_OUT_LEN) == 0);
}

/*
 * Open @p c (a frame of A, SDI 7) with A's key as derived here, then seal
 * it again under that key as if from @p src: what a host of the cluster
 * that holds its own key can do to pass as another.
 */
static int
reseal_as(struct rte_mbuf *c, const uint8_t src[4])
{
	uint8_t *f = rte_pktmbuf_mtod(c, uint8_t *);
	uint8_t out[UET_TSS_KDF_OUT_LEN], aad[8 + 4 + UET_TSS_HDR_LEN];
	uint8_t iv[UET_TSS_IV_LEN], *ct = f + TSS_OFF + UET_TSS_HDR_LEN;
	size_t len = rte_pktmbuf_data_len(c) - TSS_OFF - UET_TSS_HDR_LEN -
		     UET_TSS_ICV_LEN;
	uint64_t tsc = itest_get_be(f + TSS_OFF + 6, 6);
	uint16_t epoch = (uint16_t)itest_get_be(f + TSS_OFF + 4, 2);
	int rc;

	if (itest_get_be(f + TSS_OFF + 1, 3) != 7)
		return -1;
	key_of_a(f, out);
	aad_of(f, aad);
	uet_tss_iv((uint32_t)itest_get_be(ip_a, 4), epoch, tsc,
		   out + UET_TSS_KEY_LEN, iv);
	rc = uet_tss_gcm_open(out, iv, aad, sizeof(aad), ct, len, ct,
			      ct + len);
	CHECK(rc == 0); /* the engine sealed with the key UEC derives */
	if (rc == 0)
		reopened++;
	memcpy(f + 14 + 12, src, 4);
	aad_of(f, aad);
	uet_tss_iv((uint32_t)itest_get_be(src, 4), epoch, tsc,
		   out + UET_TSS_KEY_LEN, iv);
	if (rc == 0)
		rc = uet_tss_gcm_seal(out, iv, aad, sizeof(aad), ct, len, ct,
				      ct + len);
	explicit_bzero(out, sizeof(out));
	return rc;
}

/* The epoch of frame @p f is one B accepts now: SDI 7's newest key's, or
 * the one before it until twice epoch_switch after the reload. */
static bool
epoch_live(const uint8_t *f)
{
	uint16_t epoch = (uint16_t)itest_get_be(f + TSS_OFF + 4, 2);

	return epoch == e7s[reloads] ||
	       (reloads > 0 && epoch == e7s[reloads - 1] &&
		vnow < reload_ns + 2 * SWITCH_NS);
}

/* Whether @p f is under the previous domain key and within a few ticks
 * of that key's retirement at B. */
static bool
epoch_near_retire(const uint8_t *f)
{
	uint16_t epoch = (uint16_t)itest_get_be(f + TSS_OFF + 4, 2);
	uint64_t retire = reload_ns + 2 * SWITCH_NS;

	return reloads > 0 && epoch == e7s[reloads - 1] &&
	       vnow + 2 * TICK_NS >= retire && vnow <= retire + 2 * TICK_NS;
}

/* The attack for protected frame number @p n (one frame in 16). */
static struct rte_mbuf *
attack(const struct rte_mbuf *m, uint64_t n, bool *before)
{
	enum atk k = (enum atk)((n / 16) % (cluster ? ROTREPLAY :
						      ATK_DIRECT));
	struct rte_mbuf *c = NULL;
	uint64_t tsc;
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
		/* SDI 8's epoch too, as a forger who saw its packets would:
		 * else the epoch alone drops it, before the ICV */
		if (c != NULL && k == WRONGKEY) {
			f = rte_pktmbuf_mtod(c, uint8_t *);
			f[TSS_OFF + 4] = (uint8_t)(epoch8 >> 8);
			f[TSS_OFF + 5] = (uint8_t)epoch8;
		}
		break;
	case FORGE:
		c = copy(m);
		if (c != NULL) {
			f = rte_pktmbuf_mtod(c, uint8_t *);
			/* TSC far ahead (2^20), and so its rekey counter
			 * (cluster mode): a fresh key to derive, its ICV
			 * the check that fails */
			tsc = itest_get_be(f + TSS_OFF + 6, 6) + (1u << 20);
			for (unsigned int b = 0; b < 6; b++)
				f[TSS_OFF + 11 - b] = (uint8_t)(tsc >> (8 * b));
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
		/* Close to the old key's retirement, whether B still takes
		 * it depends on when B read its clock and in which poll it
		 * sees the frame: no replay of that key then. */
		c = hist[(nb_seen - (k == REPLAY ? 3 : 600)) % HIST];
		if (c == NULL ||
		    epoch_near_retire(rte_pktmbuf_mtod(c, uint8_t *)))
			return NULL;
		c = copy(c);
		*before = false;
		/* a frame of a domain key B retired since: refused as such,
		 * before the replay window */
		if (c != NULL && !epoch_live(rte_pktmbuf_mtod(c, uint8_t *))) {
			injected[RETIRED]++;
			return c;
		}
		/* a live older key's frame meets that key's window (a TSC
		 * space is a key's), which stopped where A left the key:
		 * "old" only within one key */
		if (c != NULL && k == OLD &&
		    itest_get_be(rte_pktmbuf_mtod(c, uint8_t *) + TSS_OFF + 4, 2) !=
		    itest_get_be(rte_pktmbuf_mtod(m, uint8_t *) + TSS_OFF + 4, 2)) {
			rte_pktmbuf_free(c);
			return NULL;
		}
		break;
	case OTHERSRC:
		c = copy(m);
		if (c != NULL && reseal_as(c, ip_c) < 0) {
			rte_pktmbuf_free(c);
			c = NULL;
		}
		break;
	case ANFLIP:
		c = copy(m);
		if (c != NULL)
			rte_pktmbuf_mtod(c, uint8_t *)[TSS_OFF] ^= 0x01;
		break;
	case CLEAR:
		c = clear_request();
		/* reserved bits set: the SES would refuse the header, the
		 * JobID field still names the secure job */
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

/* A's frame @p f carries another association number than its last one:
 * A rotated its key (the first protected frame sets the AN). */
static bool
rotated(const uint8_t *f)
{
	static int last_an = -1;
	int an = f[TSS_OFF] & 0x01;
	bool r = last_an >= 0 && an != last_an && nb_seen > 0;

	rotations += r;
	last_an = an;
	return r;
}

/* A's frame @p f carries another epoch than its last one: A seals with
 * the domain key of the last reload. */
static bool
epoch_switched(const uint8_t *f)
{
	static int last = -1;
	int epoch = (int)itest_get_be(f + TSS_OFF + 4, 2);
	bool r = last >= 0 && epoch != last && nb_seen > 0;

	/* the TSCs are the key's: a new key's start at 1 (A's first
	 * frames under it may be lost or reordered) */
	if (r)
		CHECK(itest_get_be(f + TSS_OFF + 6, 6) < 64);
	epochs_seen += r;
	last = epoch;
	return r;
}

/* /uet/tss_reload on A (engine index 0) with its key files unchanged
 * (it rotates nothing: A's contexts count ROTATIONS epochs at the end);
 * an index without an engine: -ENOENT. */
static void
reload_tel_unchanged(void)
{
	struct rte_tel_data *d = rte_tel_data_alloc();

	CHECK(d != NULL);
	if (d == NULL)
		return;
	CHECK(uet_engine_telemetry_call("/uet/tss_reload", "0", d) == 0);
	rte_tel_data_free(d);
	d = rte_tel_data_alloc();
	CHECK(d != NULL && uet_engine_telemetry_call("/uet/tss_reload", "7",
						     d) == -ENOENT);
	rte_tel_data_free(d);
}

/*
 * Rotate SDI 7's key on both engines (a new key file, a reload each)
 * once A sent 800 more frames and the previous rotation retired its old
 * key; before it, a reload without a new key rotates nothing, and (the
 * first time) one with a third key during the rotation is refused.
 */
static void
rotate(struct uet_engine *a, struct uet_engine *b)
{
	char p[128], why[256];
	uint8_t k[32];
	int rc;

	if (reloads == ROTATIONS || nb_seen < 800u * (reloads + 1) ||
	    (reloads > 0 && vnow < reload_ns + 3 * SWITCH_NS))
		return;
	/* nothing changed: nothing rotates (through telemetry once) */
	if (reloads == 0)
		reload_tel_unchanged();
	CHECK(uet_engine_tss_reload(b, why, sizeof(why)) == 0);
	key_file("sdi7.key", 70 + reloads, p, sizeof(p), k7s[reloads + 1]);
	CHECK(uet_tss_epoch_of_key(k7s[reloads + 1], &e7s[reloads + 1]) ==
	      0);
	CHECK(uet_engine_tss_reload(a, why, sizeof(why)) == 1);
	CHECK(uet_engine_tss_reload(b, why, sizeof(why)) == 1);
	if (reloads == 0) {
		key_file("sdi7.key", 99, p, sizeof(p), k);
		rc = uet_engine_tss_reload(b, why, sizeof(why));
		CHECK(rc == -EBUSY && strstr(why, "still accepted") != NULL);
		key_file("sdi7.key", 70, p, sizeof(p), k);
	}
	reloads++;
	reload_ns = vnow;
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
			/* no UDP checksum on a protected frame: the ICV
			 * covers more */
			csum_set += f[L4_OFF + 6] != 0 || f[L4_OFF + 7] != 0;
			if (epoch_switched(f)) {
				a = copy(hist[(nb_seen - 1) % HIST]);
				last_old = copy(hist[(nb_seen - 1) % HIST]);
				/* A's first frame under the new key may come
				 * after B retired the old one (A idle) */
				if (a != NULL)
					injected[epoch_live(rte_pktmbuf_mtod(a,
						uint8_t *)) ? EPREPLAY :
						RETIRED]++;
			}
			if (cluster && rotated(f) && a == NULL) {
				a = copy(hist[(nb_seen - 1) % HIST]);
				injected[ROTREPLAY] += a != NULL;
			}
			rte_pktmbuf_free(hist[nb_seen % HIST]);
			hist[nb_seen % HIST] = copy(in[i]);
			if (a == NULL && nb_seen % 16 == 5)
				a = attack(in[i], nb_seen, &before);
			nb_seen++;
		}
		if (a != NULL && before)
			out[o++] = a;
		out[o++] = in[i];
		if (a != NULL && !before)
			out[o++] = a;
	}
	/* the old key retired at B: its frames are refused by epoch */
	if (last_old != NULL && vnow >= reload_ns + 2 * SWITCH_NS) {
		out[o++] = last_old;
		last_old = NULL;
		injected[RETIRED]++;
		retired_sent++;
	}
	if (o != 0 &&
	    rte_ring_enqueue_burst(to_b, (void **)out, o, NULL) != o)
		CHECK(!"ring to B full");
}

static void
check_drops(struct uet_engine *a, struct uet_engine *b)
{
	static struct uet_engine_stats st;
	const uint64_t *d = st.total.tss.rx_drop;

	CHECK(uet_engine_stats_get(a, &st) == 0);
	CHECK(st.total.tss.epochs == ROTATIONS);
	printf("A's faults: %lu dropped, %lu reordered\n", (unsigned long)
	       st.total.fault[UET_CONFIG_FAULT_TX].applied[UET_CONFIG_FAULT_DROP],
	       (unsigned long)st.total.fault[UET_CONFIG_FAULT_TX]
			.applied[UET_CONFIG_FAULT_REORDER]);
	CHECK(st.total.fault[UET_CONFIG_FAULT_TX]
		      .applied[UET_CONFIG_FAULT_DROP] > 0 &&
	      st.total.fault[UET_CONFIG_FAULT_TX]
		      .applied[UET_CONFIG_FAULT_REORDER] > 0);
	CHECK(uet_engine_stats_get(b, &st) == 0);
	CHECK(st.total.tss.epochs == ROTATIONS);
	for (unsigned int k = 0; k < ATK_N; k++)
		printf("injected %-8s %u\n", atk_names[k], injected[k]);
	for (unsigned int r = 0; r < UET_ENGINE_TSS_DROPS; r++)
		printf("B dropped %-11s %lu\n", uet_engine_tss_drop_name(r),
		       (unsigned long)d[r]);
	printf("rotations %u, frames of A opened here %u; domain key "
	       "rotations %u, epoch switches of A %u; virtual time %lu us\n",
	       rotations, reopened, reloads, epochs_seen,
	       (unsigned long)(vnow / 1000));
	CHECK(reloads == ROTATIONS && epochs_seen == ROTATIONS);
	CHECK(injected[EPREPLAY] >= 1 && retired_sent == ROTATIONS);
	for (unsigned int k = 0; k < (cluster ? ATK_N : ATK_DIRECT); k++)
		CHECK(injected[k] > 0);
	if (cluster) {
		/* a rotation every 1024 TSCs: A's frames cross several */
		CHECK(rotations >= 2);
		CHECK(reopened == injected[OTHERSRC]);
	}
	CHECK(d[UET_ENGINE_TSS_DROP_AUTH] ==
	      injected[FLIP] + injected[WRONGKEY] + injected[FORGE] +
	      injected[OTHERSRC]);
	CHECK(d[UET_ENGINE_TSS_DROP_EPOCH] ==
	      injected[ANFLIP] + injected[RETIRED]);
	CHECK(d[UET_ENGINE_TSS_DROP_SDI] == injected[BADSDI]);
	CHECK(d[UET_ENGINE_TSS_DROP_HEADER] == injected[TRUNC]);
	CHECK(d[UET_ENGINE_TSS_DROP_REPLAY] ==
	      injected[REPLAY] + injected[ROTREPLAY] + injected[EPREPLAY]);
	CHECK(d[UET_ENGINE_TSS_DROP_OLD] == injected[OLD]);
	CHECK(d[UET_ENGINE_TSS_DROP_CLEAR] == injected[CLEAR]);
	CHECK(d[UET_ENGINE_TSS_DROP_JOB] == 0 &&
	      d[UET_ENGINE_TSS_DROP_INNER] == 0 &&
	      d[UET_ENGINE_TSS_DROP_CRYPTO] == 0);
	CHECK(st.total.rx_csum_bad == 0 && st.total.rx_malformed == 0);
	/* A's protected frames carry no UDP checksum, and B (checksums
	 * required: [port] udp_checksum = true) takes them */
	CHECK(csum_set == 0 && st.total.rx_csum_none == 0);
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
	uint8_t key8[32];
	bool fin = false;

	key_file("sdi7.key", 7, k7, sizeof(k7), k7s[0]);
	key_file("sdi8.key", 8, k8, sizeof(k8), key8);
	CHECK(uet_tss_epoch_of_key(k7s[0], &e7s[0]) == 0);
	CHECK(uet_tss_epoch_of_key(key8, &epoch8) == 0);
	itest_cfg_ring(&ca, "net_ring_taA", ip_a, mac_a, ip_b, mac_b);
	itest_cfg_ring(&cb, "net_ring_taB", ip_b, mac_b, ip_a, mac_a);
	config_tss(&ca, k7, k8);
	/* B requires checksums (auto would not on a ring port): its
	 * acceptance of A's checksum-less protected frames is checked */
	cb.port[0].udp_checksum = UET_CONFIG_UDP_CSUM_ON;
	/* A's data frames lost and reordered on the wire (before the
	 * injector): exactly once across the rotations under loss */
	ca.fault.enabled = true;
	ca.fault.ppm[UET_CONFIG_FAULT_TX][UET_CONFIG_FAULT_DATA]
		    [UET_CONFIG_FAULT_DROP] = 20000;
	ca.fault.ppm[UET_CONFIG_FAULT_TX][UET_CONFIG_FAULT_DATA]
		    [UET_CONFIG_FAULT_REORDER] = 20000;
	config_tss(&cb, k7, k8);
	itest_ulp_stream(&pa, &pb, ip_a, ip_b, 4, UET_PDS_MODE_RUD, 64, MSGS,
			 64);
	ra = test_ulp_create(&pa);
	rb = test_ulp_create(&pb);
	CHECK(ab != NULL && mb != NULL && ra != NULL && rb != NULL);
	if (ab == NULL || mb == NULL || ra == NULL || rb == NULL)
		goto out;
	ppa = (struct uet_proto_params){ .ulp = &test_ulp_ops, .ulp_arg = ra };
	ppb = (struct uet_proto_params){ .ulp = &test_ulp_ops, .ulp_arg = rb };
	a = itest_engine_virt("taA", &ca, &ppa);
	b = itest_engine_virt("taB", &cb, &ppb);
	CHECK(a != NULL && b != NULL);
	if (a == NULL || b == NULL)
		goto out;
	for (unsigned long i = 0; i < 5000000ul && !fin; i++) {
		vnow += TICK_NS;
		rotate(a, b);
		(void)uet_engine_poll(a, 1);
		intercept(ab, mb);
		(void)uet_engine_poll(b, 1);
		fin = (i & 15) == 0 && test_ulp_send_finished(ra);
	}
	for (unsigned int i = 0; i < 2000; i++) {
		vnow += TICK_NS;
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
	check_drops(a, b);
out:
	uet_engine_free(b);
	uet_engine_free(a);
	test_ulp_free(rb);
	test_ulp_free(ra);
	unlink(k7);
	unlink(k8);
}

int
main(int argc, char **argv)
{
	if (argc > 2 || (argc == 2 && strcmp(argv[1], "direct") != 0 &&
			 strcmp(argv[1], "cluster") != 0)) {
		fprintf(stderr, "usage: %s [direct|cluster]\n", argv[0]);
		return 2;
	}
	cluster = argc == 2 && strcmp(argv[1], "cluster") == 0;
	snprintf(dir, sizeof(dir), "/tmp/uet_tss_atk_XXXXXX");
	if (itest_tmp_eal(dir, "test_tss_attack") < 0)
		return 1;
	pool = rte_pktmbuf_pool_create("ta_atk", 2047, 0, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	/* A sends into ta_ab, which only the injector reads; it passes
	 * A's frames and its own to ta_mb, which B reads; B sends into
	 * ta_ba */
	if (pool == NULL || itest_ring_pair_tapped("ta", 2048) < 0) {
		fprintf(stderr, "pool or ring ports failed\n");
		return 1;
	}
	run();
	for (unsigned int i = 0; i < HIST; i++)
		rte_pktmbuf_free(hist[i]);
	rte_pktmbuf_free(last_old);
	(void)rte_eal_cleanup();
	itest_rm_dir(dir);
	printf("%s: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
	return failures ? 1 : 0;
}
