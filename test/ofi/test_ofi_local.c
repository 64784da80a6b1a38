/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Local delivery through the provider: one process, one fabric, one
 * domain, two RDM endpoints (two processes of one engine context, two
 * PIDonFEPs) that address each other at the engine's own fabric address,
 * on a port that never brings a frame back (net_null without RX,
 * uet-local.conf): every byte that arrives was delivered locally by the
 * engine (docs/ENGINE.md "Frames to the engine's own addresses").
 *
 *   send / recv both ways (one packet, several packets, rendezvous),
 *   tagged, RMA write and read, atomic sum and fetch
 *
 * with every completion and byte checked. FI_UET_PROVIDER_PROGRESS picks
 * INLINE or AUTO (meson runs both). Loops are bounded.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/fabric.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_tagged.h>

#include <uet/uet_ofi.h>

#include "ofi_check.h"

#define POLL_MAX 200000
#define BIG (128 * 1024)

struct node {
	struct fid_av *av;
	struct fid_cq *cq;
	struct fid_ep *ep;
	struct uet_ofi_addr addr;
	fi_addr_t peer; /* the other endpoint in this one's AV */
};

static struct fi_info *info;
static struct fid_fabric *fab;
static struct fid_domain *dom;
static struct node n0, n1;
static uint8_t *sbuf, *rbuf, *lbuf;

/* Next completion of @p cq: 1 (entry), 0 (error entry), -1 (none). */
static int
cq_wait(struct fid_cq *cq, struct fi_cq_tagged_entry *e)
{
	struct fi_cq_err_entry err;

	for (int i = 0; i < POLL_MAX; i++) {
		ssize_t rc = fi_cq_read(cq, e, 1);

		if (rc == 1)
			return 1;
		if (rc == -FI_EAVAIL) {
			memset(&err, 0, sizeof(err));
			if (fi_cq_readerr(cq, &err, 0) == 1)
				fprintf(stderr, "error entry: err %d prov %d\n",
					err.err, err.prov_errno);
			return 0;
		}
		if (rc != -FI_EAGAIN)
			return -1;
	}
	fprintf(stderr, "no completion\n");
	return -1;
}

/* The next completion of @p cq is @p ctx with @p flags (and @p len when
 * not 0). */
static void
expect_ok(struct fid_cq *cq, void *ctx, uint64_t flags, size_t len)
{
	struct fi_cq_tagged_entry e;

	memset(&e, 0, sizeof(e));
	CHECK(cq_wait(cq, &e) == 1);
	CHECK(e.op_context == ctx);
	CHECK((e.flags & flags) == flags);
	if (len != 0)
		CHECK(e.len == len);
}

static void
fill(uint8_t *p, size_t n, unsigned int seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 5 + seed * 29 + (i >> 10));
}

static int
ep_open(struct node *n)
{
	struct fi_cq_attr cqa = { .format = FI_CQ_FORMAT_TAGGED, .size = 256 };
	struct fi_av_attr ava = { .type = FI_AV_TABLE };
	size_t len = sizeof(n->addr);

	if (fi_av_open(dom, &ava, &n->av, NULL) != 0 ||
	    fi_cq_open(dom, &cqa, &n->cq, NULL) != 0 ||
	    fi_endpoint(dom, info, &n->ep, NULL) != 0 ||
	    fi_ep_bind(n->ep, &n->av->fid, 0) != 0 ||
	    fi_ep_bind(n->ep, &n->cq->fid, FI_TRANSMIT | FI_RECV) != 0 ||
	    fi_enable(n->ep) != 0 ||
	    fi_getname(&n->ep->fid, &n->addr, &len) != 0)
		return -1;
	return 0;
}

static void
ep_close(struct node *n)
{
	if (n->ep != NULL)
		CHECK_RC(fi_close(&n->ep->fid), 0);
	if (n->cq != NULL)
		CHECK_RC(fi_close(&n->cq->fid), 0);
	if (n->av != NULL)
		CHECK_RC(fi_close(&n->av->fid), 0);
}

static int
setup(void)
{
	struct fi_info *hints = fi_allocinfo();
	int rc = -1;

	if (hints == NULL)
		return -1;
	hints->ep_attr->type = FI_EP_RDM;
	hints->caps = FI_MSG | FI_TAGGED | FI_RMA | FI_ATOMIC;
	hints->domain_attr->mr_mode = FI_MR_PROV_KEY | FI_MR_ALLOCATED |
				      FI_MR_VIRT_ADDR;
	hints->fabric_attr->prov_name = strdup("uet");
	if (fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, hints, &info) != 0 ||
	    fi_fabric(info->fabric_attr, &fab, NULL) != 0 ||
	    fi_domain(fab, info, &dom, NULL) != 0 ||
	    ep_open(&n0) != 0 || ep_open(&n1) != 0)
		goto out;
	/* one FA, two processes */
	CHECK(memcmp(n0.addr.fa, n1.addr.fa, sizeof(n0.addr.fa)) == 0);
	CHECK(n0.addr.pid_on_fep != n1.addr.pid_on_fep);
	if (fi_av_insert(n0.av, &n1.addr, 1, &n0.peer, 0, NULL) != 1 ||
	    fi_av_insert(n1.av, &n0.addr, 1, &n1.peer, 0, NULL) != 1)
		goto out;
	rc = 0;
out:
	fi_freeinfo(hints);
	return rc;
}

/* @p from sends @p len bytes to @p to: received whole and intact. */
static void
msg(struct node *from, struct node *to, size_t len, unsigned int seed)
{
	char cs, cr;

	fill(sbuf, len, seed);
	memset(lbuf, 0, len);
	CHECK_RC(fi_recv(to->ep, lbuf, len, NULL, FI_ADDR_UNSPEC, &cr), 0);
	CHECK_RC(fi_send(from->ep, sbuf, len, NULL, from->peer, &cs), 0);
	expect_ok(from->cq, &cs, FI_SEND, 0);
	expect_ok(to->cq, &cr, FI_RECV, len);
	CHECK(memcmp(lbuf, sbuf, len) == 0);
}

static void
test_msg(void)
{
	char cs, cr;

	msg(&n0, &n1, 64, 1);
	msg(&n1, &n0, 64, 2);
	msg(&n0, &n1, 6000, 3);   /* several packets, rendezvous (4 KiB) */
	msg(&n1, &n0, 60000, 4);
	msg(&n0, &n1, 3000, 5);
	/* tagged: the other tag stays posted until cancelled */
	fill(sbuf, 2000, 6);
	memset(lbuf, 0, 4096);
	CHECK_RC(fi_trecv(n1.ep, lbuf, 4096, NULL, FI_ADDR_UNSPEC, 0x77, 0,
			  &cr), 0);
	CHECK_RC(fi_tsend(n0.ep, sbuf, 2000, NULL, n0.peer, 0x77, &cs), 0);
	expect_ok(n0.cq, &cs, FI_SEND | FI_TAGGED, 0);
	expect_ok(n1.cq, &cr, FI_RECV | FI_TAGGED, 2000);
	CHECK(memcmp(lbuf, sbuf, 2000) == 0);
}

static void
test_rma(void)
{
	struct fid_mr *mr = NULL;
	uint64_t v = 5, res = 0, key;
	char c;

	CHECK_RC(fi_mr_reg(dom, rbuf, BIG, FI_REMOTE_WRITE | FI_REMOTE_READ,
			   0, 0, 0, &mr, NULL), 0);
	if (mr == NULL)
		return;
	key = fi_mr_key(mr);
	fill(sbuf, 9000, 7);
	memset(rbuf, 0, BIG);
	CHECK_RC(fi_write(n0.ep, sbuf, 9000, NULL, n0.peer,
			  (uint64_t)(uintptr_t)rbuf + 64, key, &c), 0);
	expect_ok(n0.cq, &c, FI_WRITE, 0);
	CHECK(memcmp(rbuf + 64, sbuf, 9000) == 0);
	CHECK(rbuf[63] == 0 && rbuf[9064] == 0);
	fill(rbuf + 16384, 12000, 8);
	memset(lbuf, 0, 12000);
	CHECK_RC(fi_read(n1.ep, lbuf, 12000, NULL, n1.peer,
			 (uint64_t)(uintptr_t)rbuf + 16384, key, &c), 0);
	expect_ok(n1.cq, &c, FI_READ, 0);
	CHECK(memcmp(lbuf, rbuf + 16384, 12000) == 0);
	memset(rbuf, 0, 8);
	CHECK_RC(fi_atomic(n0.ep, &v, 1, NULL, n0.peer,
			   (uint64_t)(uintptr_t)rbuf, key, FI_UINT64, FI_SUM,
			   &c), 0);
	expect_ok(n0.cq, &c, FI_ATOMIC, 0);
	memcpy(&res, rbuf, 8);
	CHECK(res == 5);
	v = 7;
	res = 0;
	CHECK_RC(fi_fetch_atomic(n1.ep, &v, 1, NULL, &res, NULL, n1.peer,
				 (uint64_t)(uintptr_t)rbuf, key, FI_UINT64,
				 FI_SUM, &c), 0);
	expect_ok(n1.cq, &c, FI_ATOMIC, 0);
	CHECK(res == 5);
	memcpy(&v, rbuf, 8);
	CHECK(v == 12);
	CHECK_RC(fi_close(&mr->fid), 0);
}

int
main(void)
{
	sbuf = calloc(1, BIG);
	rbuf = calloc(1, BIG);
	lbuf = calloc(1, BIG);
	if (sbuf == NULL || rbuf == NULL || lbuf == NULL)
		return 1;
	if (setup() != 0) {
		fprintf(stderr, "setup failed\n");
		return 1;
	}
	test_msg();
	test_rma();
	ep_close(&n0);
	ep_close(&n1);
	CHECK_RC(fi_close(&dom->fid), 0);
	CHECK_RC(fi_close(&fab->fid), 0);
	fi_freeinfo(info);
	free(sbuf);
	free(rbuf);
	free(lbuf);
	printf("local (%s): %d failure(s)\n",
	       getenv("FI_UET_PROVIDER_PROGRESS") != NULL ?
	       getenv("FI_UET_PROVIDER_PROGRESS") : "default", ofi_failures);
	return ofi_failures != 0;
}
