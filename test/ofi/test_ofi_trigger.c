/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Triggered operations (FI_TRIGGER, fi_trigger(3)) and endpoint aliases
 * (fi_ep_alias): one RDM endpoint that talks to itself over the loopback
 * ring port of uet-test.conf, inline progress.
 *
 *   counter moved by the application: a triggered send waits below its
 *   threshold (fi_cntr_add), goes at it (fi_cntr_set)
 *   counter moved by completions: a write through an alias with
 *   FI_TRANSMIT | FI_TRIGGER waits for a plain write's completion
 *   (fabtests' fi_rdm_rma_trigger, fi_cntr_wait on a counter without a
 *   wait object included); a triggered tagged receive; a
 *   triggered fetching atomic whose threshold is already reached
 *   a triggered post that fails (too long): an error completion with the
 *   trigger's context, counted as an error
 *   refused: no FI_TRIGGER cap, not a threshold trigger, no counter,
 *   inject; a counter that triggers wait for cannot close, nor an
 *   endpoint with an alias
 *
 * Every completion and every byte is checked; loops are bounded.
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
#include <rdma/fi_trigger.h>

#include "ofi_check.h"

#define POLL_MAX 200000
#define BUF 8192

static struct fi_info *info;
static struct fid_fabric *fab;
static struct fid_domain *dom;
static struct fid_av *av;
static struct fid_cq *cq;
static struct fid_cntr *txc, *sc;
static struct fid_ep *ep;
static struct fid_mr *mr;
static fi_addr_t self;
static uint8_t sbuf[BUF], rbuf[BUF];

/* Next CQ entry: 1, 0 (error entry in *err), -1 (none in time). */
static int
cq_next(struct fi_cq_tagged_entry *e, struct fi_cq_err_entry *err)
{
	for (int i = 0; i < POLL_MAX; i++) {
		ssize_t rc = fi_cq_read(cq, e, 1);

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

/* Both completions, in either order: @p a's and @p b's contexts. */
static void
expect_two(void *a, void *b)
{
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	bool seen_a = false, seen_b = false;

	for (int k = 0; k < 2; k++) {
		memset(&e, 0, sizeof(e));
		CHECK(cq_next(&e, &err) == 1);
		seen_a |= e.op_context == a;
		seen_b |= e.op_context == b;
	}
	CHECK(seen_a && seen_b);
}

/* No completion within @p polls reads (each runs progress). */
static bool
cq_quiet(int polls)
{
	struct fi_cq_tagged_entry e;

	for (int i = 0; i < polls; i++)
		if (fi_cq_read(cq, &e, 1) != -FI_EAGAIN)
			return false;
	return true;
}

static void
trig_init(struct fi_triggered_context *t, struct fid_cntr *c, size_t th)
{
	memset(t, 0, sizeof(*t));
	t->event_type = FI_TRIGGER_THRESHOLD;
	t->trigger.threshold.cntr = c;
	t->trigger.threshold.threshold = th;
}

static void
test_cntr_moves(void)
{
	struct fi_triggered_context t;
	struct iovec iov = { .iov_base = sbuf, .iov_len = 100 };
	struct fi_msg m = { .msg_iov = &iov, .iov_count = 1, .addr = self,
			    .context = &t };
	char rc;

	memset(sbuf, 0x5A, 100);
	memset(rbuf, 0, 100);
	trig_init(&t, sc, fi_cntr_read(sc) + 2);
	CHECK_RC(fi_recv(ep, rbuf, BUF, NULL, FI_ADDR_UNSPEC, &rc), 0);
	CHECK_RC(fi_sendmsg(ep, &m, FI_TRIGGER | FI_COMPLETION), 0);
	/* the caller's message and entries may go: the call was copied */
	memset(&m, 0, sizeof(m));
	memset(&iov, 0, sizeof(iov));
	CHECK(cq_quiet(200));
	CHECK_RC(fi_cntr_add(sc, 1), 0);
	CHECK(cq_quiet(200));
	CHECK_RC(fi_cntr_set(sc, fi_cntr_read(sc) + 1), 0);
	expect_two(&t, &rc);
	CHECK(rbuf[0] == 0x5A && rbuf[99] == 0x5A);
}

/* fabtests' fi_rdm_rma_trigger: the alias's write waits for the
 * plain write's completion on the transmit counter */
static void
test_alias_write(void)
{
	struct fi_triggered_context t;
	struct fid_ep *alias = NULL;
	uint64_t key = fi_mr_key(mr), start = fi_cntr_read(txc), flags = 0;
	uint64_t base = (uint64_t)(uintptr_t)rbuf;
	char c;

	CHECK_RC(fi_ep_alias(ep, &alias, FI_TRANSMIT | FI_TRIGGER), 0);
	if (alias == NULL)
		return;
	flags = FI_TRANSMIT;
	CHECK_RC(fi_control(&alias->fid, FI_GETOPSFLAG, &flags), 0);
	CHECK(flags & FI_TRIGGER);
	memcpy(sbuf, "Hello1 from Client!Hello2 from Client!", 38);
	memset(rbuf, 0, 64);
	trig_init(&t, txc, start + 1);
	CHECK_RC(fi_write(alias, sbuf + 19, 19, NULL, self, base + 19, key,
			  &t), 0);
	CHECK(cq_quiet(200));
	CHECK(rbuf[19] == 0);
	/* the endpoint cannot close before its alias */
	CHECK_RC(fi_close(&ep->fid), -FI_EBUSY);
	CHECK_RC(fi_write(ep, sbuf, 19, NULL, self, base, key, &c), 0);
	/* as fi_rdm_rma_trigger waits: on a counter without a wait object
	 * (polled) */
	CHECK_RC(fi_cntr_wait(txc, start + 2, 10000), 0);
	CHECK_RC(fi_cntr_wait(txc, start + 3, 20), -FI_ETIMEDOUT);
	expect_two(&t, &c);
	CHECK(fi_cntr_read(txc) == start + 2);
	CHECK(memcmp(rbuf, sbuf, 38) == 0);
	CHECK_RC(fi_close(&alias->fid), 0);
}

/* a triggered tagged receive; a triggered fetching atomic whose
 * threshold is reached when it is posted */
static void
test_tagged_atomic(void)
{
	struct fi_triggered_context tr, ta;
	struct iovec iov = { .iov_base = rbuf, .iov_len = 64 };
	struct fi_msg_tagged m = { .msg_iov = &iov, .iov_count = 1,
				   .addr = FI_ADDR_UNSPEC, .tag = 0x77,
				   .context = &tr };
	uint64_t one = 5, old = 0, *target = (uint64_t *)(rbuf + 1024);
	struct fi_ioc op = { .addr = &one, .count = 1 };
	struct fi_ioc res = { .addr = &old, .count = 1 };
	struct fi_rma_ioc rio = { .addr = (uint64_t)(uintptr_t)target,
				  .count = 1, .key = fi_mr_key(mr) };
	struct fi_msg_atomic am = { .msg_iov = &op, .iov_count = 1,
				    .addr = self, .rma_iov = &rio,
				    .rma_iov_count = 1, .datatype = FI_UINT64,
				    .op = FI_SUM, .context = &ta };
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	char cs;

	memset(rbuf, 0, 64);
	memset(sbuf, 0x33, 64);
	trig_init(&tr, sc, fi_cntr_read(sc) + 1);
	CHECK_RC(fi_trecvmsg(ep, &m, FI_TRIGGER | FI_COMPLETION), 0);
	/* unexpected until the receive goes */
	CHECK_RC(fi_tsend(ep, sbuf, 64, NULL, self, 0x77, &cs), 0);
	memset(&e, 0, sizeof(e));
	CHECK(cq_next(&e, &err) == 1 && e.op_context == &cs);
	CHECK(cq_quiet(50) && rbuf[0] == 0);
	CHECK_RC(fi_cntr_add(sc, 1), 0);
	memset(&m, 0, sizeof(m));
	memset(&e, 0, sizeof(e));
	CHECK(cq_next(&e, &err) == 1);
	CHECK(e.op_context == &tr && e.tag == 0x77 && e.len == 64);
	CHECK(rbuf[0] == 0x33 && rbuf[63] == 0x33);
	*target = 10;
	trig_init(&ta, sc, 0);
	CHECK_RC(fi_fetch_atomicmsg(ep, &am, &res, NULL, 1,
				    FI_TRIGGER | FI_COMPLETION), 0);
	memset(&e, 0, sizeof(e));
	CHECK(cq_next(&e, &err) == 1 && e.op_context == &ta);
	CHECK(old == 10 && *target == 15);
}

/* a triggered send too long for the endpoint fails when it is posted:
 * an error completion with its context, an error on the counter */
static void
test_post_fails(void)
{
	struct fi_triggered_context t;
	struct iovec iov = { .iov_base = sbuf,
			     .iov_len = info->ep_attr->max_msg_size + 1 };
	struct fi_msg m = { .msg_iov = &iov, .iov_count = 1, .addr = self,
			    .context = &t };
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	uint64_t errs = fi_cntr_readerr(txc);

	trig_init(&t, sc, fi_cntr_read(sc) + 1);
	CHECK_RC(fi_sendmsg(ep, &m, FI_TRIGGER | FI_COMPLETION), 0);
	CHECK_RC(fi_cntr_add(sc, 1), 0);
	CHECK(cq_next(&e, &err) == 0);
	CHECK(err.op_context == &t && err.err == FI_EMSGSIZE);
	CHECK(fi_cntr_readerr(txc) == errs + 1);
}

static void
test_refused(void)
{
	struct fi_triggered_context t;
	struct iovec iov = { .iov_base = sbuf, .iov_len = 8 };
	struct fi_msg m = { .msg_iov = &iov, .iov_count = 1, .addr = self,
			    .context = &t };

	trig_init(&t, sc, 1);
	t.event_type = FI_TRIGGER_XPU;
	CHECK_RC(fi_sendmsg(ep, &m, FI_TRIGGER), -FI_EINVAL);
	trig_init(&t, NULL, 1);
	CHECK_RC(fi_sendmsg(ep, &m, FI_TRIGGER), -FI_EINVAL);
	trig_init(&t, sc, 1);
	CHECK_RC(fi_sendmsg(ep, &m, FI_TRIGGER | FI_INJECT), -FI_EINVAL);
	m.context = NULL;
	CHECK_RC(fi_sendmsg(ep, &m, FI_TRIGGER), -FI_EINVAL);
	CHECK(cq_quiet(50));
}

/* An endpoint without FI_TRIGGER refuses it; one closed with an
 * operation still held drops it, and the counter can close then. */
static void
test_close(void)
{
	struct fi_info *plain = fi_dupinfo(info);
	struct fi_triggered_context t;
	struct iovec iov = { .iov_base = sbuf, .iov_len = 8 };
	struct fi_msg m = { .msg_iov = &iov, .iov_count = 1, .addr = self,
			    .context = &t };
	struct fid_ep *e2 = NULL;

	if (plain == NULL)
		return;
	plain->caps &= ~FI_TRIGGER;
	plain->tx_attr->caps &= ~FI_TRIGGER;
	plain->rx_attr->caps &= ~FI_TRIGGER;
	CHECK(fi_endpoint(dom, plain, &e2, NULL) == 0 &&
	      fi_ep_bind(e2, &av->fid, 0) == 0 &&
	      fi_ep_bind(e2, &cq->fid, FI_TRANSMIT | FI_RECV) == 0 &&
	      fi_enable(e2) == 0);
	fi_freeinfo(plain);
	trig_init(&t, sc, 1);
	if (e2 != NULL) {
		CHECK_RC(fi_sendmsg(e2, &m, FI_TRIGGER), -FI_EOPNOTSUPP);
		CHECK_RC(fi_close(&e2->fid), 0);
	}
	trig_init(&t, sc, fi_cntr_read(sc) + 1000);
	CHECK_RC(fi_sendmsg(ep, &m, FI_TRIGGER), 0);
	CHECK_RC(fi_close(&sc->fid), -FI_EBUSY);
	CHECK_RC(fi_close(&ep->fid), 0);
	ep = NULL;
	CHECK_RC(fi_close(&sc->fid), 0);
	sc = NULL;
}

static int
setup(void)
{
	struct fi_info *hints = fi_allocinfo();
	struct fi_cq_attr cqa = { .format = FI_CQ_FORMAT_TAGGED, .size = 64 };
	struct fi_av_attr ava = { .type = FI_AV_TABLE };
	struct fi_cntr_attr ca = { .events = FI_CNTR_EVENTS_COMP,
				   .wait_obj = FI_WAIT_NONE };
	char name[64];
	size_t len = sizeof(name);
	int rc;

	if (hints == NULL)
		return -1;
	hints->ep_attr->type = FI_EP_RDM;
	hints->caps = FI_MSG | FI_TAGGED | FI_RMA | FI_ATOMIC | FI_TRIGGER;
	hints->domain_attr->mr_mode = FI_MR_PROV_KEY | FI_MR_ALLOCATED |
				      FI_MR_VIRT_ADDR;
	hints->domain_attr->name = strdup("net_ring0-hpc");
	hints->fabric_attr->prov_name = strdup("uet");
	rc = fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, hints, &info);
	fi_freeinfo(hints);
	if (rc != 0)
		return -1;
	CHECK((info->caps & FI_TRIGGER) && (info->tx_attr->caps & FI_TRIGGER));
	if (fi_fabric(info->fabric_attr, &fab, NULL) != 0 ||
	    fi_domain(fab, info, &dom, NULL) != 0 ||
	    fi_av_open(dom, &ava, &av, NULL) != 0 ||
	    fi_cq_open(dom, &cqa, &cq, NULL) != 0 ||
	    fi_cntr_open(dom, &ca, &txc, NULL) != 0 ||
	    fi_cntr_open(dom, &ca, &sc, NULL) != 0 ||
	    fi_endpoint(dom, info, &ep, NULL) != 0 ||
	    fi_ep_bind(ep, &av->fid, 0) != 0 ||
	    fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV) != 0 ||
	    fi_ep_bind(ep, &txc->fid, FI_SEND | FI_WRITE | FI_READ) != 0 ||
	    fi_enable(ep) != 0 ||
	    fi_getname(&ep->fid, name, &len) != 0 ||
	    fi_av_insert(av, name, 1, &self, 0, NULL) != 1 ||
	    fi_mr_reg(dom, rbuf, BUF, FI_REMOTE_WRITE | FI_REMOTE_READ, 0, 0,
		      0, &mr, NULL) != 0)
		return -1;
	return 0;
}

int
main(void)
{
	if (setup() != 0) {
		fprintf(stderr, "setup failed\n");
		return 1;
	}
	test_cntr_moves();
	test_alias_write();
	test_tagged_atomic();
	test_post_fails();
	test_refused();
	test_close();
	CHECK_RC(fi_close(&mr->fid), 0);
	if (ep != NULL)
		CHECK_RC(fi_close(&ep->fid), 0);
	if (sc != NULL)
		CHECK_RC(fi_close(&sc->fid), 0);
	CHECK_RC(fi_close(&txc->fid), 0);
	CHECK_RC(fi_close(&cq->fid), 0);
	CHECK_RC(fi_close(&av->fid), 0);
	CHECK_RC(fi_close(&dom->fid), 0);
	CHECK_RC(fi_close(&fab->fid), 0);
	fi_freeinfo(info);
	printf("trigger: %d failure(s)\n", ofi_failures);
	return ofi_failures != 0;
}
