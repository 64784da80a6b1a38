/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One client process of a uet-engine service (FI_UET_PROVIDER_SERVICE_PATH
 * set by test_ofi_service.sh); several of them talk to each other.
 *
 *   svc_clients exchange <dir> <index> <count> <messages>
 *     Publishes its address as <dir>/addr.<index>, waits for the other
 *     <count> - 1, then sends every other client <messages> untagged and
 *     <messages> tagged messages of sizes cycling through 16 B, 64 B,
 *     4000 B and 70000 B (past the rendezvous threshold), each filled
 *     with a pattern of (sender, receiver, sequence), and receives as
 *     many from each: untagged ones into any posted buffer (the sender
 *     and sequence are in the first bytes, the rest must follow), tagged
 *     ones with the exact tag (sender << 32 | sequence). Every byte is
 *     checked. Then <dir>/done.<index>, and it waits for every client's
 *     before closing (the last messages are acknowledged).
 *     With a sixth argument "cross", only clients of the other parity
 *     are peers (index i talks to j when i + j is odd): clients 0, 2 on
 *     one service and 1, 3 on another, when the service cannot yet
 *     deliver frames to its own fabric address.
 *   svc_clients kinds <dir> <index>
 *     Two clients (index 0 receives, 1 sends): a tagged message sent
 *     from two entries (fi_tsendmsg, gathered into the window) lands in
 *     a receive of three entries (scattered out of it); three untagged
 *     messages and an fi_inject land in one FI_MULTI_RECV buffer, each
 *     CQ entry pointing at its message inside the buffer. Every byte is
 *     checked.
 *   svc_clients wait <dir>
 *     Posts a receive that nothing will match and blocks in fi_cq_sread
 *     with no timeout; writes <dir>/waiting first. The test kills the
 *     service: the receive must complete with FI_EIO whose
 *     fi_cq_strerror names the service loss, and a send afterwards must
 *     fail with -FI_EIO.
 *   svc_clients rma <dir> <index> <count> [iso]
 *     Registers one buffer (FI_REMOTE_READ | FI_REMOTE_WRITE), publishes
 *     {address, key} as <dir>/mr.<index> with its address, and to every
 *     other client: fi_write of a 70000 B pattern into the slot the
 *     peer keeps for it, fi_read of the peer's pattern for it, fi_atomic
 *     SUM, fi_fetch_atomic SUM, fi_compare_atomic CSWAP (one that swaps,
 *     one that must not) on the slot's UINT64, fi_atomic and
 *     fi_fetch_atomic SUM of 4 UINT64 elements, and fi_writedata (remote
 *     CQ data: the target counts one FI_REMOTE_CQ_DATA entry per peer
 *     with the writer's data). After a barrier (<dir>/done1.*) each
 *     client checks its own buffer: every slot holds what its peer
 *     wrote, every UINT64 the value the atomics leave, its guard bytes
 *     unchanged.
 *     With "iso" (count >= 3), client 0 also tries client 1's key and
 *     address against client 2, and a wrong key against client 1: each
 *     must complete in error; the targets' guards are checked unchanged.
 *   svc_clients rma_dead <dir> <0|1>
 *     Client 1 registers and publishes its buffer and waits to be
 *     killed; once <dir>/killed exists, client 0's fi_write and fi_read
 *     on client 1's key must complete in error (nothing read), and its
 *     fi_write to its own buffer must still succeed.
 *   svc_clients caps [rma]
 *     What fi_getinfo offers through the service (with "rma": hints
 *     FI_RMA | FI_ATOMIC, which a service with cross-memory attach
 *     offers), max_msg_size within the data window; prints them.
 *
 * Exit 0 when every check passed. Every wait is bounded.
 */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_atomic.h>

#include "ofi_check.h"

#define MAX_CLIENTS 8
#define BIG 70000
/* below the test's 60 s timeout(1): a client gone wrong says why */
#define WAIT_MS 50000
#define HDR 16

static const size_t sizes[] = { 16, 64, 4000, BIG };

static struct fi_info *info;
static struct fid_fabric *fab;
static struct fid_domain *dom;
static struct fid_av *av;
static struct fid_cq *cq;
static struct fid_ep *ep;

static int
setup(uint64_t caps)
{
	struct fi_cq_attr ca = { .format = FI_CQ_FORMAT_TAGGED,
				 .wait_obj = FI_WAIT_FD, .size = 4096 };
	struct fi_av_attr aa = { .type = FI_AV_TABLE };
	struct fi_info *hints = fi_allocinfo();
	int rc;

	hints->caps = caps;
	hints->ep_attr->type = FI_EP_RDM;
	hints->fabric_attr->prov_name = strdup("uet");
	hints->domain_attr->threading = FI_THREAD_DOMAIN;
	if (caps & (FI_RMA | FI_ATOMIC))
		hints->domain_attr->mr_mode = FI_MR_PROV_KEY |
					      FI_MR_ALLOCATED |
					      FI_MR_VIRT_ADDR;
	rc = fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, hints, &info);
	fi_freeinfo(hints);
	if (rc != 0) {
		fprintf(stderr, "fi_getinfo: %s\n", fi_strerror(-rc));
		return rc;
	}
	if ((rc = fi_fabric(info->fabric_attr, &fab, NULL)) != 0 ||
	    (rc = fi_domain(fab, info, &dom, NULL)) != 0 ||
	    (rc = fi_av_open(dom, &aa, &av, NULL)) != 0 ||
	    (rc = fi_cq_open(dom, &ca, &cq, NULL)) != 0 ||
	    (rc = fi_endpoint(dom, info, &ep, NULL)) != 0 ||
	    (rc = fi_ep_bind(ep, &av->fid, 0)) != 0 ||
	    (rc = fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV)) != 0 ||
	    (rc = fi_enable(ep)) != 0) {
		fprintf(stderr, "setup: %s\n", fi_strerror(-rc));
		return rc;
	}
	return 0;
}

static void
teardown(void)
{
	if (ep != NULL)
		fi_close(&ep->fid);
	if (cq != NULL)
		fi_close(&cq->fid);
	if (av != NULL)
		fi_close(&av->fid);
	if (dom != NULL)
		fi_close(&dom->fid);
	if (fab != NULL)
		fi_close(&fab->fid);
	fi_freeinfo(info);
}

static void
path_of(char *out, size_t n, const char *dir, const char *what, int idx)
{
	if (idx < 0)
		snprintf(out, n, "%s/%s", dir, what);
	else
		snprintf(out, n, "%s/%s.%d", dir, what, idx);
}

/* Write a file atomically (rename), so a reader never sees half of it. */
static int
publish(const char *dir, const char *what, int idx, const void *buf,
	size_t len)
{
	char p[512], tmp[520];
	FILE *f;

	path_of(p, sizeof(p), dir, what, idx);
	snprintf(tmp, sizeof(tmp), "%s.tmp", p);
	f = fopen(tmp, "wb");
	if (f == NULL || fwrite(buf, 1, len, f) != len || fclose(f) != 0)
		return -1;
	return rename(tmp, p);
}

/* Read @p dir/@p what.@p idx once it exists (bounded wait). */
static long
await(const char *dir, const char *what, int idx, void *buf, size_t len)
{
	char p[512];
	uint64_t end = uet_mono_ms() + WAIT_MS;

	path_of(p, sizeof(p), dir, what, idx);
	while (uet_mono_ms() < end) {
		FILE *f = fopen(p, "rb");

		if (f != NULL) {
			size_t n = fread(buf, 1, len, f);

			fclose(f);
			return (long)n;
		}
		/* the service's lcores and the peers need the CPU */
		usleep(2000);
	}
	return -1;
}

static uint8_t
pattern(int from, int to, uint32_t seq, size_t i)
{
	return (uint8_t)(from * 31 + to * 7 + seq * 13 + i);
}

static void
fill(uint8_t *b, size_t len, int from, int to, uint32_t seq)
{
	for (size_t i = 0; i < len; i++)
		b[i] = pattern(from, to, seq, i);
	if (len >= HDR) {
		memcpy(b, &from, sizeof(from));
		memcpy(b + 4, &seq, sizeof(seq));
		memcpy(b + 8, &to, sizeof(to));
	}
}

static bool
check(const uint8_t *b, size_t len, int from, int to, uint32_t seq)
{
	for (size_t i = len >= HDR ? HDR : 0; i < len; i++)
		if (b[i] != pattern(from, to, seq, i))
			return false;
	return true;
}

/* Next completion, bounded: 1 entry, 0 error entry (in *err), -1. */
static int
cq_next(struct fi_cq_tagged_entry *e, struct fi_cq_err_entry *err)
{
	uint64_t end = uet_mono_ms() + WAIT_MS;

	while (uet_mono_ms() < end) {
		ssize_t rc = fi_cq_sread(cq, e, 1, NULL, 100);

		if (rc == 1)
			return 1;
		if (rc == -FI_EAVAIL) {
			memset(err, 0, sizeof(*err));
			return fi_cq_readerr(cq, err, 0) == 1 ? 0 : -1;
		}
		if (rc != -FI_EAGAIN)
			return -1;
	}
	return -1;
}

struct op {
	uint8_t *buf;
	size_t len;
	int peer;       /* tagged receive: expected sender */
	uint32_t seq;
	bool tagged, rx;
};

static bool cross;

static bool
is_peer(int me, int j)
{
	return j != me && (!cross || (me + j) % 2 == 1);
}

static int
exchange(const char *dir, int me, int count, uint32_t msgs)
{
	fi_addr_t peer[MAX_CLIENTS];
	int npeers = 0;
	size_t nops;
	struct op *ops;
	size_t posted = 0, done = 0, tx_bytes = 0, rx_bytes = 0;
	uint32_t got[MAX_CLIENTS] = { 0 }, tgot[MAX_CLIENTS] = { 0 };
	char name[256];
	size_t nlen = sizeof(name);
	int rc;

	if (count < 2 || count > MAX_CLIENTS || me >= count)
		return 1;
	for (int j = 0; j < count; j++)
		npeers += is_peer(me, j);
	nops = (size_t)npeers * msgs * 4;
	ops = calloc(nops, sizeof(*ops));
	if (ops == NULL)
		return 1;
	CHECK_RC(fi_getname(&ep->fid, name, &nlen), 0);
	if (publish(dir, "addr", me, name, nlen) != 0)
		return 1;
	for (int j = 0; j < count; j++) {
		char a[256];
		long n = await(dir, "addr", j, a, sizeof(a));

		if (n <= 0) {
			fprintf(stderr, "client %d: no address of %d\n", me, j);
			return 1;
		}
		CHECK_RC(fi_av_insert(av, a, 1, &peer[j], 0, NULL), 1);
	}
	/* receives first: untagged ones take any message (BIG each),
	 * tagged ones name sender and sequence */
	for (int j = 0; j < count; j++) {
		if (!is_peer(me, j))
			continue;
		for (uint32_t k = 0; k < msgs; k++) {
			struct op *u = &ops[posted++], *t = &ops[posted++];

			u->rx = t->rx = true;
			u->len = BIG;
			t->len = sizes[k % 4];
			t->tagged = true;
			t->peer = j;
			t->seq = k;
			u->buf = malloc(u->len);
			t->buf = malloc(t->len);
			/* nothing completes before the sends: a full
			 * window here is a test sized wrong, not a wait */
			rc = (int)fi_recv(ep, u->buf, u->len, NULL,
					  FI_ADDR_UNSPEC, u);
			CHECK_RC(rc, 0);
			rc = (int)fi_trecv(ep, t->buf, t->len, NULL,
					   FI_ADDR_UNSPEC, (uint64_t)j << 32 | k,
					   0, t);
			CHECK_RC(rc, 0);
			if (rc != 0)
				return 1;
		}
	}
	for (int j = 0; j < count; j++) {
		if (!is_peer(me, j))
			continue;
		for (uint32_t k = 0; k < msgs; k++) {
			struct op *u = &ops[posted++], *t = &ops[posted++];

			u->len = t->len = sizes[k % 4];
			u->buf = malloc(u->len);
			t->buf = malloc(t->len);
			fill(u->buf, u->len, me, j, k);
			fill(t->buf, t->len, me, j, k);
			for (int tries = 0;; tries++) {
				struct fi_cq_tagged_entry e;

				rc = (int)fi_send(ep, u->buf, u->len, NULL,
						  peer[j], u);
				if (rc != -FI_EAGAIN || tries > 100000)
					break;
				(void)fi_cq_read(cq, &e, 0);
			}
			CHECK_RC(rc, 0);
			for (int tries = 0;; tries++) {
				struct fi_cq_tagged_entry e;

				rc = (int)fi_tsend(ep, t->buf, t->len, NULL,
						   peer[j],
						   (uint64_t)me << 32 | k, t);
				if (rc != -FI_EAGAIN || tries > 100000)
					break;
				(void)fi_cq_read(cq, &e, 0);
			}
			CHECK_RC(rc, 0);
			tx_bytes += u->len + t->len;
		}
	}
	while (done < nops) {
		struct fi_cq_tagged_entry e;
		struct fi_cq_err_entry err;
		struct op *o;

		rc = cq_next(&e, &err);
		if (rc <= 0) {
			fprintf(stderr, "client %d: completion %zu of %zu: %s\n",
				me, done, nops, rc == 0 ?
				fi_cq_strerror(cq, err.prov_errno, NULL, NULL,
					       0) : "none in time");
			ofi_failures++;
			break;
		}
		done++;
		o = e.op_context;
		if (!o->rx)
			continue;
		if (o->tagged) {
			CHECK(e.tag == ((uint64_t)o->peer << 32 | o->seq));
			CHECK(e.len == o->len);
			CHECK(check(o->buf, o->len, o->peer, me, o->seq));
			tgot[o->peer]++;
		} else {
			int from = -1, to = -1;
			uint32_t seq = 0;

			CHECK(e.len >= HDR);
			memcpy(&from, o->buf, 4);
			memcpy(&seq, o->buf + 4, 4);
			memcpy(&to, o->buf + 8, 4);
			CHECK(to == me);
			CHECK(e.len == sizes[seq % 4]);
			CHECK(check(o->buf, e.len, from, me, seq));
			if (from >= 0 && from < count && is_peer(me, from))
				got[from]++;
			else
				CHECK(!"untagged message from nobody");
		}
		rx_bytes += e.len;
	}
	{
		uint32_t ut = 0, tt = 0;

		for (int j = 0; j < count; j++) {
			ut += got[j];
			tt += tgot[j];
			if (is_peer(me, j)) {
				CHECK(tgot[j] == msgs);
				CHECK(got[j] == msgs);
			}
		}
		CHECK(ut == msgs * (uint32_t)npeers);
		CHECK(tt == msgs * (uint32_t)npeers);
		printf("client %d: %u untagged, %u tagged received, %zu bytes "
		       "sent, %zu received, checked\n", me, ut, tt, tx_bytes,
		       rx_bytes);
	}
	/* everyone received everything before anyone closes */
	CHECK(publish(dir, "done", me, "1", 1) == 0);
	for (int j = 0; j < count; j++) {
		char c;

		CHECK(await(dir, "done", j, &c, 1) == 1);
	}
	for (size_t i = 0; i < posted; i++)
		free(ops[i].buf);
	free(ops);
	return 0;
}

static int
peer_of(const char *dir, int me, fi_addr_t *peer)
{
	char name[256], a[256];
	size_t nlen = sizeof(name);
	long n;

	CHECK_RC(fi_getname(&ep->fid, name, &nlen), 0);
	if (publish(dir, "addr", me, name, nlen) != 0)
		return -1;
	n = await(dir, "addr", 1 - me, a, sizeof(a));
	if (n <= 0)
		return -1;
	return fi_av_insert(av, a, 1, peer, 0, NULL) == 1 ? 0 : -1;
}

#define KINDS_TAG 0x55
#define KINDS_MSG 1000
#define KINDS_INJ 40

static void
kinds_send(fi_addr_t peer)
{
	static uint8_t a[1000], b[2100], m[3][KINDS_MSG], inj[KINDS_INJ];
	struct iovec iov[2] = { { a, sizeof(a) }, { b, sizeof(b) } };
	struct fi_msg_tagged t = {
		.msg_iov = iov, .iov_count = 2, .addr = peer,
		.tag = KINDS_TAG, .context = a,
	};
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;

	for (size_t i = 0; i < sizeof(a); i++)
		a[i] = pattern(1, 0, 99, i);
	for (size_t i = 0; i < sizeof(b); i++)
		b[i] = pattern(1, 0, 99, sizeof(a) + i);
	CHECK_RC(fi_tsendmsg(ep, &t, FI_COMPLETION), 0);
	for (uint32_t k = 0; k < 3; k++) {
		fill(m[k], KINDS_MSG, 1, 0, k);
		CHECK_RC(fi_send(ep, m[k], KINDS_MSG, NULL, peer, m[k]), 0);
	}
	fill(inj, KINDS_INJ, 1, 0, 3);
	CHECK_RC(fi_inject(ep, inj, KINDS_INJ, peer), 0);
	/* the buffers are the window's copies now: scribbling on ours
	 * must not change what arrives */
	memset(a, 0xEE, sizeof(a));
	memset(m, 0xEE, sizeof(m));
	for (int i = 0; i < 4; i++)
		CHECK(cq_next(&e, &err) == 1);
}

static void
kinds_recv(void)
{
	static uint8_t r0[100], r1[1000], r2[2000], mr[8192];
	struct iovec iov[3] = { { r0, sizeof(r0) }, { r1, sizeof(r1) },
				{ r2, sizeof(r2) } };
	struct fi_msg_tagged t = {
		.msg_iov = iov, .iov_count = 3, .addr = FI_ADDR_UNSPEC,
		.tag = KINDS_TAG, .context = r0,
	};
	struct iovec miov = { mr, sizeof(mr) };
	struct fi_msg m = {
		.msg_iov = &miov, .iov_count = 1, .addr = FI_ADDR_UNSPEC,
		.context = mr,
	};
	bool seen[4] = { false };
	int got = 0;

	CHECK_RC(fi_trecvmsg(ep, &t, FI_COMPLETION), 0);
	CHECK_RC(fi_recvmsg(ep, &m, FI_MULTI_RECV | FI_COMPLETION), 0);
	for (int i = 0; i < 5 && got < 5; i++) {
		struct fi_cq_tagged_entry e;
		struct fi_cq_err_entry err;
		const uint8_t *p;
		int from = -1;
		uint32_t seq = 0;

		if (cq_next(&e, &err) != 1) {
			CHECK(!"kinds: a completion");
			return;
		}
		got++;
		if (e.op_context == r0) {
			uint8_t all[3100];

			CHECK(e.len == 3100 && e.tag == KINDS_TAG);
			memcpy(all, r0, 100);
			memcpy(all + 100, r1, 1000);
			memcpy(all + 1100, r2, 2000);
			CHECK(check(all, 3100, 1, 0, 99) &&
			      all[0] == pattern(1, 0, 99, 0));
			continue;
		}
		CHECK(e.op_context == mr && (e.flags & FI_RECV));
		p = e.buf;
		CHECK(p >= mr && p + e.len <= mr + sizeof(mr));
		memcpy(&from, p, 4);
		memcpy(&seq, p + 4, 4);
		CHECK(from == 1 && seq < 4);
		CHECK(e.len == (seq == 3 ? KINDS_INJ : KINDS_MSG));
		CHECK(check(p, e.len, 1, 0, seq));
		if (seq < 4)
			seen[seq] = true;
	}
	CHECK(got == 5);
	CHECK(seen[0] && seen[1] && seen[2] && seen[3]);
	printf("kinds: 2-entry tagged send into a 3-entry receive, 4 "
	       "messages into one multi-receive buffer: checked\n");
}

static int
kinds(const char *dir, int me)
{
	fi_addr_t peer;

	if (peer_of(dir, me, &peer) != 0)
		return 1;
	if (me == 1)
		kinds_send(peer);
	else
		kinds_recv();
	CHECK(publish(dir, "done", me, "1", 1) == 0);
	for (int j = 0; j < 2; j++) {
		char c;

		CHECK(await(dir, "done", j, &c, 1) == 1);
	}
	return 0;
}

/* Blocked in fi_cq_sread when the service dies. */
static int
wait_lost(const char *dir)
{
	static uint8_t buf[64];
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err = { 0 };
	char name[256];
	size_t nlen = sizeof(name);
	fi_addr_t self;
	const char *s;
	ssize_t rc;

	CHECK_RC(fi_getname(&ep->fid, name, &nlen), 0);
	CHECK_RC(fi_av_insert(av, name, 1, &self, 0, NULL), 1);
	CHECK_RC(fi_trecv(ep, buf, sizeof(buf), NULL, FI_ADDR_UNSPEC, 77, 0,
			  buf), 0);
	CHECK(publish(dir, "waiting", -1, "1", 1) == 0);
	rc = fi_cq_sread(cq, &e, 1, NULL, -1);
	CHECK_RC(rc, -FI_EAVAIL);
	CHECK_RC(fi_cq_readerr(cq, &err, 0), 1);
	CHECK(err.err == FI_EIO);
	CHECK(err.op_context == buf);
	s = fi_cq_strerror(cq, err.prov_errno, NULL, NULL, 0);
	CHECK(s != NULL && strstr(s, "service lost") != NULL);
	printf("wait: %s (%s)\n", fi_strerror(err.err), s ? s : "?");
	rc = fi_send(ep, buf, 8, NULL, self, NULL);
	CHECK_RC(rc, -FI_EIO);
	return 0;
}

/* ---- rma: RMA and atomics between clients of the service(s) ---- */

/* fi_write / fi_read size: many packets, past the rendezvous threshold */
#define SLOT_DATA BIG
#define GUARD 256
#define IMM_LEN 64
/* elements of the vector atomics (fetching: 32 bytes of operands) */
#define VEC 4

/* What client <me> keeps for each peer j in its registered buffer. */
struct rma_slot {
	uint8_t wr[SLOT_DATA];  /* j fi_writes here */
	uint8_t rd[SLOT_DATA];  /* j fi_reads this */
	uint8_t imm[IMM_LEN];   /* j fi_writedata here */
	uint64_t atom;          /* j's atomics */
	uint64_t pad;
	uint64_t vec[VEC];      /* j's 4-element SUMs */
};

struct rma_buf {
	struct rma_slot slot[MAX_CLIENTS];
	uint8_t guard[GUARD];   /* nobody may change it */
};

struct rma_pub {
	uint64_t addr;
	uint64_t key;
};

static struct rma_buf rbuf;
static unsigned int imm_seen[MAX_CLIENTS];

static uint64_t
atom_init(int me)
{
	return 1000 + (uint64_t)me;
}

static uint64_t
vec_init(int me, int i)
{
	return 0x100000u * (uint64_t)(me + 1) + (uint64_t)i;
}

static uint64_t
swapped(int from)
{
	return 0xC0FFEE00u + (uint64_t)from;
}

static uint64_t
imm_data(int from, int to)
{
	return 0xDA7A000000000000ull | (uint64_t)from << 8 | (uint64_t)to;
}

/* The completion of @p ctx (1 ok, 0 error in *err, -1 none in time);
 * remote CQ data entries met on the way are counted. */
static int
rma_wait(void *ctx, struct fi_cq_err_entry *err)
{
	uint64_t end = uet_mono_ms() + WAIT_MS;

	while (uet_mono_ms() < end) {
		struct fi_cq_tagged_entry e;
		ssize_t rc = fi_cq_sread(cq, &e, 1, NULL, 100);

		if (rc == -FI_EAVAIL) {
			memset(err, 0, sizeof(*err));
			if (fi_cq_readerr(cq, err, 0) != 1)
				return -1;
			if (err->op_context == ctx)
				return 0;
			CHECK(!"an error entry of another operation");
			continue;
		}
		if (rc == -FI_EAGAIN)
			continue;
		if (rc != 1)
			return -1;
		if (e.flags & FI_REMOTE_CQ_DATA) {
			int from = (int)(e.data >> 8 & 0xFF);

			CHECK((e.data & ~0xFFFFull) == 0xDA7A000000000000ull);
			CHECK(e.len == IMM_LEN);
			if (from >= 0 && from < MAX_CLIENTS)
				imm_seen[from]++;
			if (ctx == NULL)
				return 1;
			continue;
		}
		if (e.op_context == ctx)
			return 1;
		CHECK(!"a completion of another operation");
	}
	return -1;
}

/* Post with bounded -FI_EAGAIN retries (progress in between). */
#define RMA_POST(call)                                                  \
	({                                                              \
		ssize_t prc_;                                            \
		struct fi_cq_tagged_entry pe_;                           \
		for (int pt_ = 0;; pt_++) {                               \
			prc_ = (call);                                   \
			if (prc_ != -FI_EAGAIN || pt_ > 100000)           \
				break;                                  \
			(void)fi_cq_read(cq, &pe_, 0);                   \
		}                                                       \
		prc_;                                                    \
	})

static bool
rma_done(const char *what, int me, int j, void *ctx)
{
	struct fi_cq_err_entry err;
	int rc = rma_wait(ctx, &err);

	if (rc != 1) {
		fprintf(stderr, "client %d: %s to %d: %s\n", me, what, j,
			rc == 0 ? fi_cq_strerror(cq, err.prov_errno,
						 err.err_data, NULL, 0) :
			"no completion in time");
		ofi_failures++;
		return false;
	}
	return true;
}

static void
rma_peer(int me, int j, fi_addr_t a, const struct rma_pub *p)
{
	uint64_t base = p->addr + offsetof(struct rma_buf, slot) +
			(uint64_t)me * sizeof(struct rma_slot);
	static uint8_t out[SLOT_DATA], in[SLOT_DATA], imm[IMM_LEN];
	uint64_t opnd, res, cmp, vop[VEC], vres[VEC];
	int ctx;

	for (size_t i = 0; i < SLOT_DATA; i++)
		out[i] = pattern(me, j, 1, i);
	memset(in, 0, sizeof(in));
	CHECK_RC(RMA_POST(fi_write(ep, out, SLOT_DATA, NULL, a, base +
				   offsetof(struct rma_slot, wr), p->key,
				   &ctx)), 0);
	rma_done("fi_write", me, j, &ctx);
	CHECK_RC(RMA_POST(fi_read(ep, in, SLOT_DATA, NULL, a, base +
				  offsetof(struct rma_slot, rd), p->key,
				  &ctx)), 0);
	if (rma_done("fi_read", me, j, &ctx))
		for (size_t i = 0; i < SLOT_DATA; i++)
			CHECK(in[i] == pattern(j, me, 2, i));
	/* atom: init + (me + 1), fetch: that, + 10, cswap to swapped(me),
	 * a cswap with the wrong compare value leaves it */
	opnd = (uint64_t)me + 1;
	CHECK_RC(RMA_POST(fi_atomic(ep, &opnd, 1, NULL, a, base +
				    offsetof(struct rma_slot, atom), p->key,
				    FI_UINT64, FI_SUM, &ctx)), 0);
	rma_done("fi_atomic SUM", me, j, &ctx);
	opnd = 10;
	res = 0;
	CHECK_RC(RMA_POST(fi_fetch_atomic(ep, &opnd, 1, NULL, &res, NULL, a,
					  base + offsetof(struct rma_slot, atom),
					  p->key, FI_UINT64, FI_SUM, &ctx)), 0);
	if (rma_done("fi_fetch_atomic SUM", me, j, &ctx))
		CHECK(res == atom_init(j) + (uint64_t)me + 1);
	cmp = atom_init(j) + (uint64_t)me + 11;
	opnd = swapped(me);
	res = 0;
	CHECK_RC(RMA_POST(fi_compare_atomic(ep, &opnd, 1, NULL, &cmp, NULL,
					    &res, NULL, a, base +
					    offsetof(struct rma_slot, atom),
					    p->key, FI_UINT64, FI_CSWAP,
					    &ctx)), 0);
	if (rma_done("fi_compare_atomic CSWAP", me, j, &ctx))
		CHECK(res == cmp);
	cmp = 1;
	opnd = 2;
	res = 0;
	CHECK_RC(RMA_POST(fi_compare_atomic(ep, &opnd, 1, NULL, &cmp, NULL,
					    &res, NULL, a, base +
					    offsetof(struct rma_slot, atom),
					    p->key, FI_UINT64, FI_CSWAP,
					    &ctx)), 0);
	if (rma_done("fi_compare_atomic CSWAP (no swap)", me, j, &ctx))
		CHECK(res == swapped(me));
	/* 4 elements: + v, then fetch and + v again */
	for (int i = 0; i < VEC; i++)
		vop[i] = (uint64_t)(me * 100 + i + 1);
	CHECK_RC(RMA_POST(fi_atomic(ep, vop, VEC, NULL, a, base +
				    offsetof(struct rma_slot, vec), p->key,
				    FI_UINT64, FI_SUM, &ctx)), 0);
	rma_done("fi_atomic SUM x4", me, j, &ctx);
	/* the fetch in entries split unevenly: operands 1 + 3, results
	 * 3 + 1 (through the data window, scattered back) */
	memset(vres, 0, sizeof(vres));
	struct fi_ioc vioc[2] = { { vop, 1 }, { vop + 1, VEC - 1 } };
	struct fi_ioc rioc[2] = { { vres, VEC - 1 }, { vres + VEC - 1, 1 } };
	CHECK_RC(RMA_POST(fi_fetch_atomicv(ep, vioc, NULL, 2, rioc, NULL, 2, a,
					   base + offsetof(struct rma_slot, vec),
					   p->key, FI_UINT64, FI_SUM, &ctx)),
		 0);
	if (rma_done("fi_fetch_atomicv SUM x4 (1+3, 3+1)", me, j, &ctx))
		for (int i = 0; i < VEC; i++)
			CHECK(vres[i] == vec_init(j, i) + vop[i]);
	for (size_t i = 0; i < IMM_LEN; i++)
		imm[i] = pattern(me, j, 3, i);
	CHECK_RC(RMA_POST(fi_writedata(ep, imm, IMM_LEN, NULL,
				       imm_data(me, j), a, base +
				       offsetof(struct rma_slot, imm), p->key,
				       &ctx)), 0);
	rma_done("fi_writedata", me, j, &ctx);
}

/* One operation that must fail: its error, printed. */
static void
rma_denied(const char *what, int me, void *ctx, ssize_t posted)
{
	struct fi_cq_err_entry err;
	int rc;

	if (posted != 0) {
		/* refused when posted: also a denial */
		printf("client %d: %s: refused (%s)\n", me, what,
		       fi_strerror((int)-posted));
		return;
	}
	rc = rma_wait(ctx, &err);
	CHECK(rc == 0);
	if (rc == 0)
		printf("client %d: %s: error %s, prov_errno %d (%s)\n", me,
		       what, fi_strerror(err.err), err.prov_errno,
		       fi_cq_strerror(cq, err.prov_errno, err.err_data, NULL,
				      0));
	else
		fprintf(stderr, "client %d: %s: %s\n", me, what,
			rc == 1 ? "SUCCEEDED" : "no completion in time");
}

/* Client 0: client 1's key against client 2, a wrong key against 1. */
static void
rma_iso(int me, const fi_addr_t *peer, const struct rma_pub *pub)
{
	static uint8_t out[GUARD], in[GUARD];
	uint64_t g1 = pub[1].addr + offsetof(struct rma_buf, guard);
	uint64_t g2 = pub[2].addr + offsetof(struct rma_buf, guard);
	uint64_t bad = pub[1].key ^ 0x5A5A5A5Aull, opnd = 7;
	int ctx;

	memset(out, 0xBD, sizeof(out));
	memset(in, 0x11, sizeof(in));
	rma_denied("fi_write, 1's key and address, to 2", me, &ctx,
		   RMA_POST(fi_write(ep, out, GUARD, NULL, peer[2], g1,
				     pub[1].key, &ctx)));
	rma_denied("fi_write, 1's key, 2's address, to 2", me, &ctx,
		   RMA_POST(fi_write(ep, out, GUARD, NULL, peer[2], g2,
				     pub[1].key, &ctx)));
	rma_denied("fi_atomic SUM, 1's key, to 2", me, &ctx,
		   RMA_POST(fi_atomic(ep, &opnd, 1, NULL, peer[2], g2,
				      pub[1].key, FI_UINT64, FI_SUM, &ctx)));
	rma_denied("fi_read, 1's key, from 2", me, &ctx,
		   RMA_POST(fi_read(ep, in, GUARD, NULL, peer[2], g2,
				    pub[1].key, &ctx)));
	rma_denied("fi_write, wrong key, to 1", me, &ctx,
		   RMA_POST(fi_write(ep, out, GUARD, NULL, peer[1], g1, bad,
				     &ctx)));
	rma_denied("fi_read, wrong key, from 1", me, &ctx,
		   RMA_POST(fi_read(ep, in, GUARD, NULL, peer[1], g1, bad,
				    &ctx)));
	rma_denied("fi_write past 1's buffer", me, &ctx,
		   RMA_POST(fi_write(ep, out, GUARD, NULL, peer[1],
				     pub[1].addr + sizeof(struct rma_buf),
				     pub[1].key, &ctx)));
	for (size_t i = 0; i < GUARD; i++)
		CHECK(in[i] == 0x11);
}

static void
rma_fill(int me, int count)
{
	memset(&rbuf, 0, sizeof(rbuf));
	for (int j = 0; j < count; j++) {
		for (size_t i = 0; i < SLOT_DATA; i++)
			rbuf.slot[j].rd[i] = pattern(me, j, 2, i);
		rbuf.slot[j].atom = atom_init(me);
		for (int i = 0; i < VEC; i++)
			rbuf.slot[j].vec[i] = vec_init(me, i);
	}
	for (size_t i = 0; i < GUARD; i++)
		rbuf.guard[i] = pattern(me, me, 7, i);
}

static void
rma_check_own(int me, int count)
{
	int slots = 0;

	for (int j = 0; j < count; j++) {
		const struct rma_slot *sl = &rbuf.slot[j];
		bool ok = true;

		if (j == me)
			continue;
		for (size_t i = 0; i < SLOT_DATA; i++)
			ok &= sl->wr[i] == pattern(j, me, 1, i) &&
			      sl->rd[i] == pattern(me, j, 2, i);
		for (size_t i = 0; i < IMM_LEN; i++)
			ok &= sl->imm[i] == pattern(j, me, 3, i);
		ok &= sl->atom == swapped(j);
		for (int i = 0; i < VEC; i++)
			ok &= sl->vec[i] == vec_init(me, i) +
					    2 * (uint64_t)(j * 100 + i + 1);
		CHECK(ok);
		CHECK(imm_seen[j] == 1);
		slots += ok;
	}
	for (size_t i = 0; i < GUARD; i++)
		CHECK(rbuf.guard[i] == pattern(me, me, 7, i));
	printf("client %d: %d peers' writes, atomics and remote CQ data in "
	       "its buffer, guard intact, checked\n", me, slots);
}

static int
rma(const char *dir, int me, int count, bool iso)
{
	fi_addr_t peer[MAX_CLIENTS];
	struct rma_pub pub[MAX_CLIENTS], mine;
	struct fid_mr *mr = NULL;
	char name[256];
	size_t nlen = sizeof(name);
	int rc;

	if (count < 2 || count > MAX_CLIENTS || me >= count ||
	    (iso && count < 3))
		return 1;
	rma_fill(me, count);
	rc = fi_mr_reg(dom, &rbuf, sizeof(rbuf),
		       FI_REMOTE_READ | FI_REMOTE_WRITE, 0, 0, 0, &mr, NULL);
	if (rc != 0) {
		fprintf(stderr, "client %d: fi_mr_reg: %s\n", me,
			fi_strerror(-rc));
		return 1;
	}
	mine.addr = (uint64_t)(uintptr_t)&rbuf;
	mine.key = fi_mr_key(mr);
	CHECK_RC(fi_getname(&ep->fid, name, &nlen), 0);
	if (publish(dir, "mr", me, &mine, sizeof(mine)) != 0 ||
	    publish(dir, "addr", me, name, nlen) != 0)
		return 1;
	for (int j = 0; j < count; j++) {
		char a[256];

		if (await(dir, "mr", j, &pub[j], sizeof(pub[j])) !=
		    (long)sizeof(pub[j]) ||
		    await(dir, "addr", j, a, sizeof(a)) <= 0) {
			fprintf(stderr, "client %d: nothing of %d\n", me, j);
			return 1;
		}
		CHECK_RC(fi_av_insert(av, a, 1, &peer[j], 0, NULL), 1);
	}
	for (int j = 0; j < count; j++)
		if (j != me)
			rma_peer(me, j, peer[j], &pub[j]);
	if (iso && me == 0)
		rma_iso(me, peer, pub);
	/* every peer's remote CQ data entry, bounded */
	for (int j = 0; j < count; j++) {
		struct fi_cq_err_entry err;

		while (j != me && imm_seen[j] == 0 &&
		       rma_wait(NULL, &err) == 1)
			;
	}
	CHECK(publish(dir, "done1", me, "1", 1) == 0);
	for (int j = 0; j < count; j++) {
		char c;

		CHECK(await(dir, "done1", j, &c, 1) == 1);
	}
	rma_check_own(me, count);
	CHECK(publish(dir, "done2", me, "1", 1) == 0);
	for (int j = 0; j < count; j++) {
		char c;

		CHECK(await(dir, "done2", j, &c, 1) == 1);
	}
	CHECK_RC(fi_close(&mr->fid), 0);
	return 0;
}

/*
 * rma_dead: client 1 registers and publishes its buffer, then waits to be
 * killed (kill -9 by the test, which then writes <dir>/killed); client 0
 * writes to and reads from the dead client's key: each must complete in
 * error within the bound, and the service must still serve client 0
 * (RMA on its own buffer through its own address).
 */
static int
rma_dead(const char *dir, int me)
{
	struct rma_pub pub[2], mine;
	struct fid_mr *mr = NULL;
	static uint8_t out[SLOT_DATA], in[SLOT_DATA];
	char name[256], a[256], c;
	size_t nlen = sizeof(name);
	fi_addr_t peer[2];
	int ctx;

	rma_fill(me, 2);
	CHECK_RC(fi_mr_reg(dom, &rbuf, sizeof(rbuf),
			   FI_REMOTE_READ | FI_REMOTE_WRITE, 0, 0, 0, &mr,
			   NULL), 0);
	if (mr == NULL)
		return 1;
	mine.addr = (uint64_t)(uintptr_t)&rbuf;
	mine.key = fi_mr_key(mr);
	CHECK_RC(fi_getname(&ep->fid, name, &nlen), 0);
	if (publish(dir, "mr", me, &mine, sizeof(mine)) != 0 ||
	    publish(dir, "addr", me, name, nlen) != 0)
		return 1;
	if (me == 1) {
		char pid[24];
		int n = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());

		/* the test kills us here (<dir>/pid); the bound ends a test
		 * gone wrong */
		if (publish(dir, "pid", -1, pid, (size_t)n) != 0)
			return 1;
		(void)await(dir, "never", -1, &c, 1);
		return 1;
	}
	for (int j = 0; j < 2; j++) {
		if (await(dir, "mr", j, &pub[j], sizeof(pub[j])) !=
		    (long)sizeof(pub[j]) ||
		    await(dir, "addr", j, a, sizeof(a)) <= 0)
			return 1;
		CHECK_RC(fi_av_insert(av, a, 1, &peer[j], 0, NULL), 1);
	}
	if (await(dir, "killed", -1, &c, 1) != 1)
		return 1;
	memset(out, 0x5C, sizeof(out));
	memset(in, 0x11, sizeof(in));
	rma_denied("fi_write to the dead client", me, &ctx,
		   RMA_POST(fi_write(ep, out, SLOT_DATA, NULL, peer[1],
				     pub[1].addr, pub[1].key, &ctx)));
	rma_denied("fi_read from the dead client", me, &ctx,
		   RMA_POST(fi_read(ep, in, SLOT_DATA, NULL, peer[1],
				    pub[1].addr, pub[1].key, &ctx)));
	for (size_t i = 0; i < SLOT_DATA; i++)
		CHECK(in[i] == 0x11);
	/* the service still serves: RMA on our own buffer */
	for (size_t i = 0; i < SLOT_DATA; i++)
		out[i] = pattern(0, 0, 1, i);
	CHECK_RC(RMA_POST(fi_write(ep, out, SLOT_DATA, NULL, peer[0],
				   pub[0].addr + offsetof(struct rma_buf,
							  slot[1].wr),
				   pub[0].key, &ctx)), 0);
	if (rma_done("fi_write to itself", me, 0, &ctx)) {
		bool ok = true;

		for (size_t i = 0; i < SLOT_DATA; i++)
			ok &= rbuf.slot[1].wr[i] == pattern(0, 0, 1, i);
		CHECK(ok);
		if (ok)
			printf("client 0: fi_write to itself after the "
			       "peer's death: checked\n");
	}
	CHECK_RC(fi_close(&mr->fid), 0);
	return 0;
}

static int
caps(void)
{
	printf("caps:%s%s%s max_msg_size %zu domain %s\n",
	       info->caps & FI_TAGGED ? " tagged" : "",
	       info->caps & FI_RMA ? " rma" : "",
	       info->caps & FI_ATOMIC ? " atomic" : "",
	       info->ep_attr->max_msg_size, info->domain_attr->name);
	return 0;
}

int
main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int rc;

	/* what a killed or timed-out client said still reaches its log */
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (strcmp(mode, "caps") == 0 &&
	    (argc == 2 || (argc == 3 && strcmp(argv[2], "rma") == 0))) {
		rc = setup(argc == 3 ? FI_MSG | FI_TAGGED | FI_RMA |
			   FI_ATOMIC : FI_MSG | FI_TAGGED);
		if (rc == 0)
			caps();
	} else if (strcmp(mode, "exchange") == 0 &&
		   (argc == 6 || (argc == 7 && strcmp(argv[6], "cross") == 0))) {
		cross = argc == 7;
		rc = setup(FI_MSG | FI_TAGGED);
		if (rc == 0)
			rc = exchange(argv[2], atoi(argv[3]), atoi(argv[4]),
				      (uint32_t)atoi(argv[5]));
	} else if (strcmp(mode, "kinds") == 0 && argc == 4) {
		rc = setup(FI_MSG | FI_TAGGED | FI_MULTI_RECV);
		if (rc == 0)
			rc = kinds(argv[2], atoi(argv[3]) != 0);
	} else if (strcmp(mode, "rma") == 0 &&
		   (argc == 5 || (argc == 6 && strcmp(argv[5], "iso") == 0))) {
		rc = setup(FI_MSG | FI_TAGGED | FI_RMA | FI_ATOMIC |
			   FI_READ | FI_WRITE | FI_REMOTE_READ |
			   FI_REMOTE_WRITE);
		if (rc == 0)
			rc = rma(argv[2], atoi(argv[3]), atoi(argv[4]),
				 argc == 6);
	} else if (strcmp(mode, "rma_dead") == 0 && argc == 4) {
		rc = setup(FI_MSG | FI_TAGGED | FI_RMA | FI_ATOMIC |
			   FI_READ | FI_WRITE | FI_REMOTE_READ |
			   FI_REMOTE_WRITE);
		if (rc == 0)
			rc = rma_dead(argv[2], atoi(argv[3]) != 0);
	} else if (strcmp(mode, "wait") == 0 && argc == 3) {
		rc = setup(FI_MSG | FI_TAGGED);
		if (rc == 0)
			rc = wait_lost(argv[2]);
	} else {
		fprintf(stderr, "usage: svc_clients exchange <dir> <index> "
			"<count> <messages> [cross] | kinds <dir> <0|1> | wait <dir> | "
			"rma <dir> <index> <count> [iso] | rma_dead <dir> <0|1> | "
			"caps [rma]\n");
		return 2;
	}
	teardown();
	if (rc != 0 || ofi_failures != 0) {
		fprintf(stderr, "svc_clients %s: FAILED (%d checks)\n", mode,
			ofi_failures);
		return 1;
	}
	return 0;
}
