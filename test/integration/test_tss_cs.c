/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TSS client/server mode end to end (UEC 1.0 section 3.7, docs/TSS.md):
 * a client engine A (SSI 21, holding only its key file from
 * uet_tss_client_key_derive, as uet-tss-key writes it) and a server
 * engine S (holding the domain key) over ring ports, messages both ways
 * on a virtual clock. Every frame on the wire is read here:
 *
 *   - every UET frame protected, with the SSI (S set, SSI 21, SDI 7);
 *   - each opened with OpenSSL by this test: A's with A's up key and the
 *     SSI in the IV, S's with A's down key and S's address in the IV;
 *     none with client C's keys (SSI 22: another client of the domain),
 *     nor with A's key of the other direction;
 *
 * and a hostile wire adds next to A's frames (S's counters by reason):
 *
 *   flip      a copy with a ciphertext bit flipped, before the real one: auth
 *   replay    a copy after the real one: replay
 *   forge     12 frames from an address no engine has, each with an SSI
 *             never seen and random ciphertext: auth; 1500 of them, more
 *             than a context's 1024 windows, so a forger filling the
 *             table would show as sources drops of the real frames
 *   impostor  A's frame opened, its TSC moved on, sealed again with C's
 *             key under A's SSI (C passing as A): auth
 *   otherssi  the same sealed with C's key under C's SSI from A's address
 *             (an address speaks for one SSI): ssi
 *   nossi     A's frame without its SSI (a direct-mode header): ssi
 *
 * and next to S's frames (A's counters): a copy naming SSI 22 (not A's):
 * ssi. Every message arrives exactly once, byte exact, both ways.
 *
 * With uet-dump's path as argument, the real frames of both ways are
 * written to a capture, and uet-dump must open every one with the
 * domain key (--tss-server) and with A's key file (--tss-client), and
 * none with C's key file or with the domain key taken as direct mode's.
 *
 * Mode "rekey" (the first argument; "plain" the above alone): both
 * engines rotate their keys every REKEY TSCs ([tss] rekey_interval), the
 * key of counter r derived from the client's key of its direction
 * (docs/TSS.md, "Key rotation"), which this test derives itself to open
 * each frame (and checks that neither the base key nor the key of the
 * next counter opens it, and that the AN is the counter's low bit); both
 * engines' fault injectors lose, duplicate and reorder 2 % of their data
 * and control frames; midway, the domain key is rotated (a new domain
 * key, A's new key file, a reload of both: the epoch in the header and
 * the KDF context changes). At each rotation of A's keys the test adds:
 *
 *   rotreplay  the last frame under the old key, after the first under
 *              the new one: replay
 *   stale      the first frame of two rotations before: old (below the
 *              replay window)
 *
 * A frame seen twice on the wire (the injector's duplicates) is a
 * replay at its receiver; every counter is checked one for one and
 * every message still arrives exactly once.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <rte_udp.h>

#include <uet/uet_engine.h>
#include <uet/uet_tss.h>
#include <uet/uet_wire_tss.h>

#include "itest.h"
#include "itest_ulp.h"

#define L4_OFF   (14 + 20)          /* Ethernet, IPv4 without options */
#define TSS_OFF  (L4_OFF + 8)
#define HL       UET_TSS_HDR_SSI_LEN
#define AADL     (8 + 4 + HL)
/* in the header with the SSI: SSI, then epoch and TSC */
#define SSI_AT   (TSS_OFF + 4)
#define EPOCH_AT (TSS_OFF + 8)
#define TSC_AT   (TSS_OFF + 10)
#define MSGS     400
#define MSGS_REKEY 1200
#define REKEY    128                /* TSCs between rotations (rekey mode),
				     * its replay window too */
#define RELOAD_AT 500               /* A's frames before the domain key
				     * rotation (rekey mode) */
#define SWITCH_NS 1000000ull        /* [tss] epoch_switch (rekey mode) */
#define HOLD_NS  200000ull          /* the longest reorder hold */
#define TSC_SEEN (1u << 20)         /* TSCs tracked per direction, epoch */
#define SSI_A    21
#define SSI_C    22
#define FORGE_N  12                 /* forgeries per attacked frame */
#define ATTACK_FROM 40              /* A's frames before the attacks */

enum atk { FLIP, REPLAY, FORGE, IMPOSTOR, OTHERSSI, NOSSI, DOWNSSI,
	   ROTREPLAY, STALE, ATK_N };

static const char *const atk_names[ATK_N] = {
	"flip", "replay", "forge", "impostor", "otherssi", "nossi", "downssi",
	"rotreplay", "stale",
};

static const uint8_t ip_a[4] = { 10, 0, 2, 1 };
static const uint8_t ip_s[4] = { 10, 0, 2, 2 };
static const uint8_t ip_x[4] = { 10, 0, 2, 9 }; /* no engine has it */
static const uint8_t mac_a[6] = { 0x02, 0, 0, 0, 2, 0x0a };
static const uint8_t mac_s[6] = { 0x02, 0, 0, 0, 2, 0x0b };

static struct rte_mempool *pool;
static bool rekey;                 /* mode "rekey" */
static unsigned int msgs = MSGS;
/* the clients' keys of the first domain key, then ([1]) of the second */
static struct uet_tss_client_key ck_a, ck_c, ck_a2, ck_c2;
static uint8_t seen_tsc[2][2][TSC_SEEN / 8]; /* direction, epoch index */
static unsigned int wire_dup[2];   /* frames seen again, by direction */
static unsigned int rotations[2];  /* rekey counter changes seen */
static unsigned int ctrs[2][2];    /* counters used, by epoch index */
static unsigned int reloads;
static unsigned int seen2[2];      /* frames under the second domain key */
static struct rte_mbuf *first_of[4]; /* A's first frame of counter r & 3 */
static uint32_t first_ctr[4];
static struct rte_mbuf *last_up;   /* A's last frame of the top counter */
static char dir[64], dkey_path[128], ckey_path[128], state[128];
static unsigned int injected[ATK_N];
static unsigned int seen[2], opened[2], clear_frames, a_frames;
static uint32_t next_forged_ssi = 1000;
static FILE *cap;                  /* the real frames, pcap */
static unsigned int nb_cap, cap_up;
#define CAP_MAX  200

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
}

static struct rte_mbuf *
copy(const struct rte_mbuf *m)
{
	struct rte_mbuf *c = rte_pktmbuf_copy(m, pool, 0, UINT32_MAX);

	CHECK(c != NULL);
	return c;
}

/* The AAD as docs/WIRE-DECISIONS.md gives it, built here: addresses,
 * entropy (the UDP source port), 0, the TSS header with the SSI. */
static void
aad_of(const uint8_t *f, uint8_t aad[AADL])
{
	memcpy(aad, f + 14 + 12, 8);
	memcpy(aad + 8, f + L4_OFF, 2);
	aad[10] = 0;
	aad[11] = 0;
	memcpy(aad + 12, f + TSS_OFF, HL);
}

/* Open (in a scratch copy) or, with @p seal, seal in place frame @p f
 * of @p len bytes with @p k (key || IV mask), IV source @p id. */
static int
gcm(uint8_t *f, size_t len, const uint8_t k[UET_TSS_KDF_OUT_LEN],
    uint32_t id, bool seal)
{
	static uint8_t scratch[2048];
	uint8_t aad[AADL], iv[UET_TSS_IV_LEN], *ct = f + TSS_OFF + HL;
	size_t n = len - TSS_OFF - HL - UET_TSS_ICV_LEN;

	if (n > sizeof(scratch))
		return -EMSGSIZE;
	aad_of(f, aad);
	uet_tss_iv(id, (uint16_t)itest_get_be(f + EPOCH_AT, 2),
		   itest_get_be(f + TSC_AT, 6), k + UET_TSS_KEY_LEN, iv);
	if (seal)
		return uet_tss_gcm_seal(k, iv, aad, sizeof(aad), ct, n, ct,
					ct + n);
	return uet_tss_gcm_open(k, iv, aad, sizeof(aad), ct, n, scratch,
				ct + n);
}

/* The client key of A (@p c: C's) that frame @p f's epoch names. */
static const struct uet_tss_client_key *
ck_of(const uint8_t *f, bool c)
{
	uint16_t epoch = (uint16_t)itest_get_be(f + EPOCH_AT, 2);

	if (reloads > 0 && epoch == ck_a2.epoch)
		return c ? &ck_c2 : &ck_a2;
	return c ? &ck_c : &ck_a;
}

/*
 * The key (key || IV mask) client key @p ck gives frames of TSC @p tsc
 * in direction @p up: its key file's without rotation, else KDF(that
 * key, "U2" or "U3", epoch | TSC / REKEY | SSI), built here from
 * docs/TSS.md (the library's KDF, its known answers in test_tss_kdf).
 */
static const uint8_t *
key_of(const struct uet_tss_client_key *ck, bool up, uint64_t tsc,
       uint8_t buf[UET_TSS_KDF_OUT_LEN])
{
	const uint8_t *base = up ? ck->up : ck->down;
	uint32_t r = (uint32_t)(tsc / REKEY);
	uint8_t ctx[10] = {
		(uint8_t)(ck->epoch >> 8), (uint8_t)ck->epoch,
		(uint8_t)(r >> 24), (uint8_t)(r >> 16), (uint8_t)(r >> 8),
		(uint8_t)r,
		(uint8_t)(ck->ssi >> 24), (uint8_t)(ck->ssi >> 16),
		(uint8_t)(ck->ssi >> 8), (uint8_t)ck->ssi,
	};

	if (!rekey)
		return base;
	CHECK(uet_tss_kdf(base, up ? "U2" : "U3", ctx, sizeof(ctx), buf,
			  UET_TSS_KDF_OUT_LEN) == 0);
	return buf;
}

/* Frame @p f (@p up: A's to S) opens with the key of its direction and
 * no other; its header names SDI 7 and SSI 21. With rotation, its AN is
 * its counter's low bit, and neither the key file's key nor the next
 * counter's opens it. */
static void
check_frame(uint8_t *f, size_t len, bool up)
{
	const struct uet_tss_client_key *a = ck_of(f, false);
	const struct uet_tss_client_key *c = ck_of(f, true);
	uint64_t tsc = itest_get_be(f + TSC_AT, 6);
	uint8_t k1[UET_TSS_KDF_OUT_LEN], k2[UET_TSS_KDF_OUT_LEN];
	const uint8_t *mine = key_of(a, up, tsc, k1);
	uint32_t id = up ? SSI_A : (uint32_t)itest_get_be(ip_s, 4);
	struct uet_wire_tss_hdr h;

	seen[up]++;
	CHECK(uet_wire_tss_hdr_decode(f + TSS_OFF, len - TSS_OFF, &h) == HL);
	CHECK(h.sp && h.ssi == SSI_A && h.sdi == 7 && h.epoch == a->epoch);
	CHECK(h.an == (rekey ? (tsc / REKEY) & 1u : 0));
	if (gcm(f, len, mine, id, false) == 0)
		opened[up]++;
	CHECK(gcm(f, len, key_of(a, !up, tsc, k2), id, false) == -EBADMSG);
	CHECK(gcm(f, len, key_of(c, up, tsc, k2), id, false) == -EBADMSG);
	CHECK(gcm(f, len, k2, up ? SSI_C : id, false) == -EBADMSG);
	if (rekey) {
		CHECK(gcm(f, len, up ? a->up : a->down, id, false) ==
		      -EBADMSG);
		CHECK(gcm(f, len, key_of(a, up, tsc + REKEY, k2), id,
			  false) == -EBADMSG);
	}
}

/* pcap: the global header, then a record per frame (Ethernet) */
static void
cap_open(const char *path)
{
	static const uint32_t gh[6] = { 0xa1b2c3d4, 0x00040002, 0, 0, 65535,
					1 };

	cap = fopen(path, "wb");
	CHECK(cap != NULL && fwrite(gh, sizeof(gh), 1, cap) == 1);
}

static void
cap_frame(const uint8_t *f, uint32_t len)
{
	uint32_t rh[4] = { nb_cap, 0, len, len };

	if (cap == NULL || nb_cap == CAP_MAX)
		return;
	CHECK(fwrite(rh, sizeof(rh), 1, cap) == 1 &&
	      fwrite(f, len, 1, cap) == 1);
	nb_cap++;
}

/* uet-dump's verdicts on the capture: frames whose ICV verified, of
 * which @p up with a client's key. */
static unsigned int
dump_ok(const char *uet_dump, const char *cap_path, const char *keys,
	unsigned int *up)
{
	char cmd[1024], line[8192];
	unsigned int ok = 0, lines = 0;
	FILE *pp;

	snprintf(cmd, sizeof(cmd), "%s --json %s %s", uet_dump, keys,
		 cap_path);
	pp = popen(cmd, "r");
	CHECK(pp != NULL);
	if (pp == NULL)
		return 0;
	while (fgets(line, sizeof(line), pp) != NULL) {
		lines++;
		ok += strstr(line, "\"icv\":\"ok\"") != NULL;
		*up += strstr(line, "\"key\":\"client\"") != NULL;
	}
	CHECK(pclose(pp) == 0);
	CHECK(lines >= nb_cap);
	printf("uet-dump %s: %u of %u frames opened\n", keys, ok, nb_cap);
	return ok;
}

static void
set_ssi(uint8_t *f, uint32_t ssi)
{
	for (int b = 0; b < 4; b++)
		f[SSI_AT + b] = (uint8_t)(ssi >> (24 - 8 * b));
}

static void
set_tsc(uint8_t *f, uint64_t tsc)
{
	for (int b = 0; b < 6; b++)
		f[TSC_AT + 5 - b] = (uint8_t)(tsc >> (8 * b));
}

/* A's frame @p m opened with A's key and sealed again with C's up key,
 * TSC moved ahead (a fresh one), header SSI @p ssi, from @p src. */
static struct rte_mbuf *
reseal_by_c(const struct rte_mbuf *m, uint32_t ssi)
{
	struct rte_mbuf *c = copy(m);
	uint8_t *f = rte_pktmbuf_mtod(c, uint8_t *);
	size_t len = rte_pktmbuf_data_len(c);
	size_t n = len - TSS_OFF - HL - UET_TSS_ICV_LEN;
	uint8_t aad[AADL], iv[UET_TSS_IV_LEN], *ct = f + TSS_OFF + HL;

	uint64_t tsc = itest_get_be(f + TSC_AT, 6);
	uint8_t k[UET_TSS_KDF_OUT_LEN];
	const uint8_t *ka = key_of(ck_of(f, false), true, tsc, k);

	aad_of(f, aad);
	uet_tss_iv(SSI_A, ck_of(f, false)->epoch, tsc, ka + UET_TSS_KEY_LEN,
		   iv);
	CHECK(uet_tss_gcm_open(ka, iv, aad, sizeof(aad), ct, n, ct,
			       ct + n) == 0);
	tsc += 100000;
	set_tsc(f, tsc);
	set_ssi(f, ssi);
	/* the AN of the new TSC's counter (else an epoch drop) */
	f[TSS_OFF] = (uint8_t)((f[TSS_OFF] & ~1u) |
			       (rekey ? (tsc / REKEY) & 1u : 0));
	CHECK(gcm(f, len, key_of(ck_of(f, true), true, tsc, k), ssi, true) ==
	      0);
	return c;
}

/* A's frame without its SSI: the 12-byte header of direct mode. */
static struct rte_mbuf *
strip_ssi(const struct rte_mbuf *m)
{
	struct rte_mbuf *c = copy(m);
	uint8_t *f = rte_pktmbuf_mtod(c, uint8_t *);
	struct uet_wire_tss_hdr h;

	CHECK(uet_wire_tss_hdr_decode(f + TSS_OFF, HL, &h) == HL);
	h.sp = false;
	h.ssi = 0;
	CHECK(uet_wire_tss_hdr_encode(&h, f + TSS_OFF, UET_TSS_HDR_LEN) ==
	      UET_TSS_HDR_LEN);
	memmove(f + TSS_OFF + UET_TSS_HDR_LEN, f + TSS_OFF + HL,
		rte_pktmbuf_data_len(c) - TSS_OFF - HL);
	CHECK(rte_pktmbuf_trim(c, HL - UET_TSS_HDR_LEN) == 0);
	refresh(c);
	return c;
}

static struct rte_mbuf *
forge(const struct rte_mbuf *m)
{
	struct rte_mbuf *c = copy(m);
	uint8_t *f = rte_pktmbuf_mtod(c, uint8_t *);

	memcpy(f + 14 + 12, ip_x, 4);
	set_ssi(f, next_forged_ssi++);
	for (uint32_t i = TSS_OFF + HL; i < rte_pktmbuf_data_len(c); i++)
		f[i] = (uint8_t)rand();
	refresh(c);
	return c;
}

static void
send1(struct rte_ring *to, struct rte_mbuf *m, enum atk a)
{
	if (m == NULL)
		return;
	if (rte_ring_enqueue(to, m) != 0) {
		rte_pktmbuf_free(m);
		CHECK(!"ring full");
		return;
	}
	if (a < ATK_N)
		injected[a]++;
}

/* A's protected frame @p m, A's n-th: the attacks around it. */
static void
attack_up(struct rte_ring *to, const struct rte_mbuf *m, unsigned int n)
{
	struct rte_mbuf *c;

	if (n < ATTACK_FROM)
		return;
	switch (n % 6) {
	case 0:
		c = copy(m);
		if (c != NULL)
			rte_pktmbuf_mtod(c, uint8_t *)[TSS_OFF + HL + 3] ^= 0x10;
		send1(to, c, FLIP);
		break;
	case 1:
		for (unsigned int i = 0; i < FORGE_N; i++)
			send1(to, forge(m), FORGE);
		break;
	case 2:
		send1(to, reseal_by_c(m, SSI_A), IMPOSTOR);
		break;
	case 3:
		send1(to, reseal_by_c(m, SSI_C), OTHERSSI);
		break;
	case 4:
		send1(to, strip_ssi(m), NOSSI);
		break;
	default:
		for (unsigned int i = 0; i < FORGE_N; i++)
			send1(to, forge(m), FORGE);
		break;
	}
}

/* Frame @p f of direction @p up was on the wire before (the fault
 * injector's duplicate: a replay for its receiver). */
static bool
wire_seen(const uint8_t *f, bool up)
{
	uint64_t tsc = itest_get_be(f + TSC_AT, 6);
	unsigned int e = ck_of(f, false) == &ck_a2;
	uint8_t bit = (uint8_t)(1u << (tsc & 7));
	bool was;

	CHECK(tsc < TSC_SEEN);
	if (tsc >= TSC_SEEN)
		return false;
	seen2[up] += e;
	was = (seen_tsc[up][e][tsc >> 3] & bit) != 0;
	seen_tsc[up][e][tsc >> 3] |= bit;
	wire_dup[up] += was;
	return was;
}

static void
put(struct rte_mbuf **slot, struct rte_mbuf *m)
{
	rte_pktmbuf_free(*slot);
	*slot = m;
}

/*
 * Rotation: frame @p m (direction @p up, not a duplicate) under a later
 * rekey counter than any before in its epoch counts a rotation; of A's
 * frames, the last under the old counter (@p after[0], rotreplay) and
 * the first of two counters before (@p after[1], stale) are to follow
 * the real one.
 */
static void
rotation(const struct rte_mbuf *m, bool up, struct rte_mbuf *after[2])
{
	static uint16_t epoch[2];
	static int64_t top[2] = { -1, -1 };
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	uint16_t ep = (uint16_t)itest_get_be(f + EPOCH_AT, 2);
	int64_t r = (int64_t)(itest_get_be(f + TSC_AT, 6) / REKEY);

	if (top[up] >= 0 && ep != epoch[up]) {
		top[up] = -1; /* a new domain key: its TSCs start again */
		for (unsigned int i = 0; up && i < 4; i++)
			put(&first_of[i], NULL);
		if (up)
			put(&last_up, NULL);
	}
	epoch[up] = ep;
	if (top[up] >= 0 && r > top[up]) {
		rotations[up]++;
		if (up) {
			after[0] = last_up;
			last_up = NULL;
		}
		if (up && r >= 2 && first_of[(r - 2) & 3] != NULL &&
		    first_ctr[(r - 2) & 3] == (uint32_t)(r - 2))
			after[1] = copy(first_of[(r - 2) & 3]);
	}
	if (r > top[up]) {
		ctrs[up][ck_of(f, false) == &ck_a2]++;
		top[up] = r;
		if (up) {
			put(&first_of[r & 3], copy(m));
			first_ctr[r & 3] = (uint32_t)r;
		}
	}
	if (up && r == top[up])
		put(&last_up, copy(m));
}

/* The frames of one direction: checked, attacked, passed on. */
static void
intercept(struct rte_ring *from, struct rte_ring *to, bool up)
{
	struct rte_mbuf *in[64];
	unsigned int n = rte_ring_dequeue_burst(from, (void **)in,
						RTE_DIM(in), NULL);

	for (unsigned int i = 0; i < n; i++) {
		uint8_t *f = rte_pktmbuf_mtod(in[i], uint8_t *);
		uint16_t len = rte_pktmbuf_data_len(in[i]);
		bool prot = len > TSS_OFF + HL + UET_TSS_ICV_LEN &&
			    uet_wire_tss_hdr_present(f + TSS_OFF, 1);
		struct rte_mbuf *c, *after[2] = { NULL, NULL };
		bool dup = false;

		if (len > TSS_OFF && f[12] == 0x08 && f[13] == 0x00 && !prot)
			clear_frames++;
		if (prot) {
			check_frame(f, len, up);
			cap_up += up && nb_cap < CAP_MAX;
			cap_frame(f, len);
			dup = wire_seen(f, up);
			if (!dup && rekey)
				rotation(in[i], up, after);
		}
		if (prot && up && !dup)
			attack_up(to, in[i], a_frames++);
		if (prot && !up && seen[0] % 8 == 0 && (c = copy(in[i]))) {
			set_ssi(rte_pktmbuf_mtod(c, uint8_t *), SSI_C);
			send1(to, c, DOWNSSI);
		}
		send1(to, in[i], ATK_N);
		if (prot && up && !dup && a_frames > ATTACK_FROM &&
		    a_frames % 6 == 5)
			send1(to, copy(in[i]), REPLAY);
		send1(to, after[0], ROTREPLAY);
		send1(to, after[1], STALE);
	}
}

static void
config(struct uet_config *c, bool client)
{
	struct uet_config_tss *t = &c->tss;

	if (client)
		itest_cfg_ring(c, "net_ring_csA", ip_a, mac_a, ip_s, mac_s);
	else
		itest_cfg_ring(c, "net_ring_csS", ip_s, mac_s, ip_a, mac_a);
	itest_tss_domain(t, 7, client ? ckey_path : dkey_path, state);
	t->mode = UET_CONFIG_TSS_CLIENT_SERVER;
	t->role = client ? UET_CONFIG_TSS_ROLE_CLIENT :
			   UET_CONFIG_TSS_ROLE_SERVER;
	t->ssi = client ? SSI_A : 0;
	if (!rekey)
		return;
	t->rekey_interval = REKEY;
	t->replay_window = REKEY;
	t->epoch_switch_ns = SWITCH_NS;
	c->fault.enabled = true;
	/* a reordered frame arrives well within the old key's acceptance
	 * after a domain key rotation (twice epoch_switch) */
	c->fault.delay_ns = HOLD_NS;
	for (unsigned int k = 0; k < UET_CONFIG_FAULT_CLASSES; k++) {
		uint32_t *ppm = c->fault.ppm[UET_CONFIG_FAULT_TX][k];

		ppm[UET_CONFIG_FAULT_DROP] = 20000;
		ppm[UET_CONFIG_FAULT_DUP] = 20000;
		ppm[UET_CONFIG_FAULT_REORDER] = 20000;
	}
}

/* Rekey mode: a new domain key on both sides (S's key file, A's new
 * client key file), taken up by a reload of each. */
static void
reload_keys(struct uet_engine *a, struct uet_engine *s)
{
	static const char dk[] = "1f2e3d4c5b6a79880716253443526170"
				 "8f9eadbccbdae9f80716253443526170\n";
	uint8_t key[UET_TSS_KEY_LEN];
	char why[160], old[160];
	int fd;

	/* the first keys stay beside, for uet-dump (the capture's) */
	snprintf(old, sizeof(old), "%s.1", dkey_path);
	CHECK(rename(dkey_path, old) == 0);
	snprintf(old, sizeof(old), "%s.1", ckey_path);
	CHECK(rename(ckey_path, old) == 0);
	fd = open(dkey_path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	CHECK(fd >= 0 && write(fd, dk, sizeof(dk) - 1) == sizeof(dk) - 1);
	if (fd >= 0)
		close(fd);
	CHECK(uet_parse_key_file(dkey_path, key, sizeof(key), why,
				 sizeof(why)) == 0);
	CHECK(uet_tss_client_key_derive(key, SSI_A, &ck_a2) == 0);
	CHECK(uet_tss_client_key_derive(key, SSI_C, &ck_c2) == 0);
	explicit_bzero(key, sizeof(key));
	CHECK(ck_a2.epoch != ck_a.epoch);
	CHECK(uet_tss_client_key_write(ckey_path, &ck_a2) == 0);
	reloads++;
	CHECK(uet_engine_tss_reload(s, why, sizeof(why)) == 1);
	CHECK(uet_engine_tss_reload(a, why, sizeof(why)) == 1);
}

static void
check_counts(struct uet_engine *a, struct uet_engine *s)
{
	struct uet_engine_stats sa, ss;
	const uint64_t *d = ss.total.tss.rx_drop;

	CHECK(uet_engine_stats_get(a, &sa) == 0);
	CHECK(uet_engine_stats_get(s, &ss) == 0);
	for (unsigned int k = 0; k < ATK_N; k++)
		printf("%-9s %u injected\n", atk_names[k], injected[k]);
	for (unsigned int r = 0; r < UET_ENGINE_TSS_DROPS; r++)
		printf("drop %-11s S %lu A %lu\n", uet_engine_tss_drop_name(r),
		       (unsigned long)d[r],
		       (unsigned long)sa.total.tss.rx_drop[r]);
	printf("A->S %u frames (%u opened here), S->A %u (%u), clear %u; "
	       "S keys rx %lu tx %lu, tx_fail S %lu A %lu\n", seen[1],
	       opened[1], seen[0], opened[0], clear_frames,
	       (unsigned long)ss.total.tss.rx_keys,
	       (unsigned long)ss.total.tss.tx_keys,
	       (unsigned long)ss.total.tss.tx_fail,
	       (unsigned long)sa.total.tss.tx_fail);
	printf("wire duplicates A->S %u, S->A %u; rotations A %u, S %u; "
	       "counters A %u+%u, S %u+%u; A keys rx %lu tx %lu; epochs A "
	       "%lu S %lu\n", wire_dup[1], wire_dup[0], rotations[1],
	       rotations[0], ctrs[1][0], ctrs[1][1], ctrs[0][0], ctrs[0][1],
	       (unsigned long)sa.total.tss.rx_keys,
	       (unsigned long)sa.total.tss.tx_keys,
	       (unsigned long)sa.total.tss.epochs,
	       (unsigned long)ss.total.tss.epochs);
	CHECK(injected[FORGE] > 1024 && injected[IMPOSTOR] > 0 &&
	      injected[OTHERSSI] > 0 && injected[NOSSI] > 0 &&
	      injected[FLIP] > 0 && injected[REPLAY] > 0 &&
	      injected[DOWNSSI] > 0);
	CHECK(d[UET_ENGINE_TSS_DROP_AUTH] ==
	      injected[FLIP] + injected[FORGE] + injected[IMPOSTOR]);
	CHECK(d[UET_ENGINE_TSS_DROP_SSI] == injected[OTHERSSI] +
					     injected[NOSSI]);
	/* the wire's duplicates are replays too */
	CHECK(d[UET_ENGINE_TSS_DROP_REPLAY] == injected[REPLAY] +
	      injected[ROTREPLAY] + wire_dup[1]);
	CHECK(d[UET_ENGINE_TSS_DROP_OLD] == injected[STALE]);
	CHECK(sa.total.tss.rx_drop[UET_ENGINE_TSS_DROP_SSI] ==
	      injected[DOWNSSI]);
	CHECK(sa.total.tss.rx_drop[UET_ENGINE_TSS_DROP_REPLAY] ==
	      wire_dup[0]);
	for (unsigned int r = 0; r < UET_ENGINE_TSS_DROPS; r++) {
		if (r != UET_ENGINE_TSS_DROP_AUTH &&
		    r != UET_ENGINE_TSS_DROP_SSI &&
		    r != UET_ENGINE_TSS_DROP_REPLAY &&
		    r != UET_ENGINE_TSS_DROP_OLD)
			CHECK(d[r] == 0);
		if (r != UET_ENGINE_TSS_DROP_SSI &&
		    r != UET_ENGINE_TSS_DROP_REPLAY)
			CHECK(sa.total.tss.rx_drop[r] == 0);
	}
	CHECK(clear_frames == 0);
	CHECK(seen[0] > 0 && seen[1] >= msgs && opened[0] == seen[0] &&
	      opened[1] == seen[1]);
	CHECK(ss.total.tss.rx_opened == seen[1] - wire_dup[1]);
	CHECK(sa.total.tss.rx_opened == seen[0] - wire_dup[0]);
	if (!rekey) {
		/* one key per client and direction: A's up key, kept with
		 * its window; its down key */
		CHECK(ss.total.tss.rx_keys == 1 && ss.total.tss.tx_keys == 1);
		CHECK(injected[ROTREPLAY] == 0 && injected[STALE] == 0);
		return;
	}
	/* each way several rotations under both domain keys, each with
	 * its replays; a key per counter, each side */
	CHECK(rotations[0] >= 6 && rotations[1] >= 6 && reloads == 1);
	CHECK(injected[ROTREPLAY] >= 4 && injected[STALE] >= 2);
	CHECK(wire_dup[0] > 0 && wire_dup[1] > 0);
	/* a sender derives each counter's key once; a receiver keeps
	 * those of the current domain key (an old one's frames in flight
	 * after a rotation each derive theirs) */
	CHECK(sa.total.tss.tx_keys == ctrs[1][0] + ctrs[1][1]);
	CHECK(ss.total.tss.tx_keys == ctrs[0][0] + ctrs[0][1]);
	CHECK(ss.total.tss.rx_keys >= ctrs[1][1] &&
	      ss.total.tss.rx_keys <= ctrs[1][0] + ctrs[1][1]);
	CHECK(sa.total.tss.rx_keys >= ctrs[0][1] &&
	      sa.total.tss.rx_keys <= ctrs[0][0] + ctrs[0][1]);
	CHECK(sa.total.tss.epochs == 1 && ss.total.tss.epochs == 1);
	CHECK(seen2[0] > 0 && seen2[1] > 0);
}

/* The capture (the first frames, all under the first domain key):
 * uet-dump opens each with the domain key and with A's key file (with
 * rotation, each packet's key derived with --tss-rekey, and none
 * without), none with C's key file or the domain key as direct mode's. */
static void
dump_checks(const char *uet_dump)
{
	char cap_path[160], keys[400], dkey[160], ckey[160], rk[32];
	unsigned int up = 0;

	snprintf(cap_path, sizeof(cap_path), "%s/cs.pcap", dir);
	snprintf(dkey, sizeof(dkey), "%s%s", dkey_path, reloads ? ".1" : "");
	snprintf(ckey, sizeof(ckey), "%s%s", ckey_path, reloads ? ".1" : "");
	snprintf(rk, sizeof(rk), " --tss-rekey %u", REKEY);
	if (!rekey)
		rk[0] = '\0';
	/* both ways in the capture */
	CHECK(nb_cap == CAP_MAX && cap_up > 0 && cap_up < nb_cap);
	snprintf(keys, sizeof(keys), "--tss-server --tss-key 7:%s%s", dkey,
		 rk);
	CHECK(dump_ok(uet_dump, cap_path, keys, &up) == nb_cap);
	CHECK(up == cap_up);
	up = 0;
	snprintf(keys, sizeof(keys), "--tss-client 7:%s%s", ckey, rk);
	CHECK(dump_ok(uet_dump, cap_path, keys, &up) == nb_cap);
	CHECK(up == cap_up);
	if (rekey) {
		snprintf(keys, sizeof(keys), "--tss-client 7:%s", ckey);
		CHECK(dump_ok(uet_dump, cap_path, keys, &up) == 0);
	}
	snprintf(keys, sizeof(keys), "--tss-client 7:%s/sdi7.c22.key", dir);
	CHECK(dump_ok(uet_dump, cap_path, keys, &up) == 0);
	snprintf(keys, sizeof(keys), "--tss-key 7:%s", dkey_path);
	CHECK(dump_ok(uet_dump, cap_path, keys, &up) == 0);
}

static void
run(void)
{
	static struct uet_config ca, cs;
	struct rte_ring *as = rte_ring_lookup("cs_as");
	struct rte_ring *ms = rte_ring_lookup("cs_ms");
	struct rte_ring *sa = rte_ring_lookup("cs_sa");
	struct rte_ring *ma = rte_ring_lookup("cs_ma");
	struct test_ulp_params pa, ps;
	struct uet_proto_params ppa, pps;
	struct test_ulp *ua = NULL, *us = NULL;
	struct test_ulp_result ta, ts, ra, rs;
	struct uet_engine *a = NULL, *s = NULL;
	bool fin = false;

	config(&ca, true);
	config(&cs, false);
	memset(&pa, 0, sizeof(pa));
	memcpy(pa.peer.addr, ip_s, 4);
	pa.mode = UET_PDS_MODE_RUD;
	pa.size = 200;
	pa.count = msgs;
	pa.window = 16;
	pa.expect = msgs;
	pa.expect_size = 200;
	ps = pa;
	memcpy(ps.peer.addr, ip_a, 4);
	ua = test_ulp_create(&pa);
	us = test_ulp_create(&ps);
	CHECK(as && ms && sa && ma && ua && us);
	if (!(as && ms && sa && ma && ua && us))
		goto out;
	ppa = (struct uet_proto_params){ .ulp = &test_ulp_ops, .ulp_arg = ua };
	pps = (struct uet_proto_params){ .ulp = &test_ulp_ops, .ulp_arg = us };
	a = itest_engine_virt("csA", &ca, &ppa);
	s = itest_engine_virt("csS", &cs, &pps);
	CHECK(a != NULL && s != NULL);
	if (a == NULL || s == NULL)
		goto out;
	for (unsigned long i = 0; i < 400000ul && !fin; i++) {
		vnow += 50000;
		(void)uet_engine_poll(a, 1);
		intercept(as, ms, true);
		(void)uet_engine_poll(s, 1);
		intercept(sa, ma, false);
		if (rekey && reloads == 0 && a_frames >= RELOAD_AT)
			reload_keys(a, s);
		fin = (i & 15) == 0 && test_ulp_send_finished(ua) &&
		      test_ulp_send_finished(us) &&
		      test_ulp_msgs_done(ua) == msgs &&
		      test_ulp_msgs_done(us) == msgs;
	}
	for (unsigned int i = 0; i < 400; i++) {
		vnow += 50000;
		(void)uet_engine_poll(a, 1);
		intercept(as, ms, true);
		(void)uet_engine_poll(s, 1);
		intercept(sa, ma, false);
	}
	test_ulp_result(ua, &ta);
	test_ulp_result(us, &ts);
	test_ulp_result(ua, &ra);
	test_ulp_result(us, &rs);
	CHECK(fin && ta.msgs_sent == msgs && ts.msgs_sent == msgs &&
	      ta.pkts_done_err == 0 && ts.pkts_done_err == 0);
	CHECK(rs.rx_msgs == msgs && rs.rx_lost == 0 && rs.rx_dup == 0 &&
	      rs.rx_bad == 0);
	CHECK(ra.rx_msgs == msgs && ra.rx_lost == 0 && ra.rx_dup == 0 &&
	      ra.rx_bad == 0);
	check_counts(a, s);
out:
	for (unsigned int i = 0; i < 4; i++)
		put(&first_of[i], NULL);
	put(&last_up, NULL);
	uet_engine_free(s);
	uet_engine_free(a);
	test_ulp_free(us);
	test_ulp_free(ua);
}

static int
setup(void)
{
	static const char dk[] = "8a0b1c2d3e4f50617283940516273849"
				 "5a6b7c8d9eafb0c1d2e3f40516273849\n";
	uint8_t key[UET_TSS_KEY_LEN];
	char why[160], path[160];
	int fd;

	snprintf(dkey_path, sizeof(dkey_path), "%s/sdi7.key", dir);
	snprintf(ckey_path, sizeof(ckey_path), "%s/sdi7.c21.key", dir);
	snprintf(state, sizeof(state), "%s/state", dir);
	fd = open(dkey_path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0 || write(fd, dk, sizeof(dk) - 1) != sizeof(dk) - 1)
		return -1;
	close(fd);
	if (mkdir(state, 0700) < 0 ||
	    uet_parse_key_file(dkey_path, key, sizeof(key), why,
			       sizeof(why)) < 0 ||
	    uet_tss_client_key_derive(key, SSI_A, &ck_a) < 0 ||
	    uet_tss_client_key_derive(key, SSI_C, &ck_c) < 0 ||
	    uet_tss_client_key_write(ckey_path, &ck_a) < 0)
		return -1;
	explicit_bzero(key, sizeof(key));
	/* C's key file too: what C holds (never given to an engine here) */
	snprintf(path, sizeof(path), "%s/sdi7.c22.key", dir);
	return uet_tss_client_key_write(path, &ck_c);
}

static int
rings(void)
{
	struct rte_ring *r[4];
	static const char *const names[4] = { "cs_as", "cs_ms", "cs_sa",
					      "cs_ma" };

	for (int i = 0; i < 4; i++) {
		r[i] = rte_ring_create(names[i], 1024, SOCKET_ID_ANY,
				       RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (r[i] == NULL)
			return -1;
	}
	/* A: RX ma, TX as; S: RX ms, TX sa (this test moves the frames) */
	if (rte_eth_from_rings("csA", &r[3], 1, &r[0], 1, SOCKET_ID_ANY) < 0 ||
	    rte_eth_from_rings("csS", &r[1], 1, &r[2], 1, SOCKET_ID_ANY) < 0)
		return -1;
	pool = rte_pktmbuf_pool_create("cs_pool", 4095, 0, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	return pool == NULL ? -1 : 0;
}

int
main(int argc, char **argv)
{
	char cap_path[160];
	int rc;

	if (argc < 2 || (strcmp(argv[1], "plain") != 0 &&
			  strcmp(argv[1], "rekey") != 0)) {
		fprintf(stderr, "usage: %s plain|rekey [UET-DUMP]\n",
			argv[0]);
		return 2;
	}
	rekey = strcmp(argv[1], "rekey") == 0;
	msgs = rekey ? MSGS_REKEY : MSGS;
	srand(26);
	snprintf(dir, sizeof(dir), "/tmp/uet_tss_cs_XXXXXX");
	if (mkdtemp(dir) == NULL)
		return 1;
	rc = setup();
	if (rc == 0)
		rc = uet_engine_eal_init("test_tss_cs", "-l 0 --no-huge -m 512 "
					 "--no-pci --log-level=4", NULL);
	if (rc < 0 || rings() < 0) {
		fprintf(stderr, "setup failed: %s\n", strerror(rc < 0 ? -rc :
								EIO));
		itest_rm_dir(dir);
		return 1;
	}
	snprintf(cap_path, sizeof(cap_path), "%s/cs.pcap", dir);
	if (argc > 2)
		cap_open(cap_path);
	run();
	if (cap != NULL) {
		CHECK(fclose(cap) == 0);
		cap = NULL;
		dump_checks(argv[2]);
	}
	(void)rte_eal_cleanup();
	explicit_bzero(&ck_a, sizeof(ck_a));
	explicit_bzero(&ck_c, sizeof(ck_c));
	explicit_bzero(&ck_a2, sizeof(ck_a2));
	explicit_bzero(&ck_c2, sizeof(ck_c2));
	itest_rm_dir(dir);
	printf("%s: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
	return failures ? 1 : 0;
}
