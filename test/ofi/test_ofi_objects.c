/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Provider objects through the public libfabric API: open/close orders,
 * bind rules, AV (both types, thousands of entries), CQ formats and
 * errors (through the provider's CQ extension), EQ, counters, MR keys,
 * atomic validity, -FI_ENOSYS calls and ring backpressure. The engine
 * runs with inline progress and a placeholder protocol hook, so posted
 * descriptors stay queued: no data moves.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdma/fabric.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_tagged.h>

#include <uet/uet_ofi.h>

#include "ofi_check.h"
#include "ofi_info.h"

#define V FI_VERSION(1, 17)

static struct fi_info *
info_get(const char *domain, enum fi_ep_type type)
{
	return info_get_fmt(domain, type, FI_FORMAT_UNSPEC);
}

/* Profile of the domain under test, as the address carries it (1 AI
 * Base, 2 AI Full, 3 HPC): the peers inserted in its AVs are of that
 * profile (a peer of another is refused). */
static uint8_t cur_profile = 3;

static void
test_av(struct fid_domain *dom, enum fi_av_type type)
{
	struct fi_av_attr attr = { .type = type };
	struct fid_av *av;
	const size_t n = 5000;
	struct uet_ofi_addr *addrs = calloc(n, sizeof(*addrs));
	fi_addr_t *fa = calloc(n, sizeof(*fa));
	struct uet_ofi_addr back;
	size_t len;
	char buf[200];

	CHECK_RC(fi_av_open(dom, &attr, &av, NULL), 0);
	for (size_t i = 0; i < n; i++) {
		addrs[i].version = UET_OFI_ADDR_VERSION;
		addrs[i].flags = UET_OFI_ADDR_F_IPV4;
		addrs[i].profile = cur_profile;
		addrs[i].pid_on_fep = htons((uint16_t)(i & 0xFFF));
		addrs[i].initiator_id = htonl((uint32_t)i + 1);
		addrs[i].fa[0] = 10;
		addrs[i].fa[2] = (uint8_t)(i >> 8);
		addrs[i].fa[3] = (uint8_t)i;
	}
	CHECK_RC(fi_av_insert(av, addrs, n, fa, 0, NULL), (long)n);
	if (type == FI_AV_TABLE)
		CHECK(fa[0] == 0 && fa[n - 1] == n - 1);
	len = sizeof(back);
	CHECK_RC(fi_av_lookup(av, fa[4321], &back, &len), 0);
	CHECK(len == sizeof(back) && memcmp(&back, &addrs[4321],
					    sizeof(back)) == 0);
	len = 4;
	CHECK_RC(fi_av_lookup(av, fa[1], &back, &len), -FI_ETOOSMALL);
	CHECK(len == sizeof(back));
	len = sizeof(buf);
	CHECK(fi_av_straddr(av, &addrs[7], buf, &len) != NULL);
	CHECK(strstr(buf, "fi_addr_uet://10.0.0.7/pid=7") != NULL);
	CHECK_RC(fi_av_remove(av, &fa[10], 100, 0), 0);
	len = sizeof(back);
	CHECK_RC(fi_av_lookup(av, fa[50], &back, &len), -FI_ENOENT);
	CHECK_RC(fi_av_remove(av, &fa[10], 1, 0), -FI_EINVAL);
	/* bad address version */
	addrs[0].version = 9;
	CHECK_RC(fi_av_insert(av, addrs, 1, fa, 0, NULL), 0);
	CHECK(fa[0] == FI_ADDR_NOTAVAIL);
	CHECK_RC(fi_av_insertsvc(av, "10.1.2.3", "9", &fa[0], 0, NULL), 1);
	len = sizeof(back);
	CHECK_RC(fi_av_lookup(av, fa[0], &back, &len), 0);
	CHECK(ntohs(back.pid_on_fep) == 9 && back.fa[3] == 3);
	CHECK_RC(fi_av_insertsym(av, "10.0.0.1", 1, "1", 1, fa, 0, NULL),
		 -FI_ENOSYS);
	CHECK_RC(fi_close(&av->fid), 0);
	free(addrs);
	free(fa);
}

static void
test_cq(struct fid_domain *dom)
{
	enum fi_cq_format fmts[] = { FI_CQ_FORMAT_CONTEXT, FI_CQ_FORMAT_MSG,
				     FI_CQ_FORMAT_DATA, FI_CQ_FORMAT_TAGGED };

	for (size_t f = 0; f < 4; f++) {
		struct fi_cq_attr attr = { .format = fmts[f], .size = 8,
					   .wait_obj = FI_WAIT_FD };
		struct fi_cq_tagged_entry e[4];
		struct fi_cq_err_entry err;
		struct uet_ofi_cq_ops *ops = NULL;
		struct fid_cq *cq;
		fi_addr_t src[4];
		int fd = -1, ctx;

		CHECK_RC(fi_cq_open(dom, &attr, &cq, NULL), 0);
		CHECK_RC(fi_control(&cq->fid, FI_GETWAIT, &fd), 0);
		CHECK(fd >= 0);
		CHECK_RC(fi_cq_read(cq, NULL, 0), 0); /* progress only */
		CHECK_RC(fi_cq_read(cq, e, 4), -FI_EAGAIN);
		CHECK_RC(fi_open_ops(&cq->fid, UET_OFI_CQ_OPS_NAME, 0,
				     (void **)&ops, NULL), 0);
		CHECK_RC(fi_open_ops(&cq->fid, "nope", 0, (void **)&ops,
				     NULL), -FI_ENOSYS);
		if (ops == NULL)
			continue;
		CHECK_RC(ops->write(cq, &ctx, FI_RECV | FI_TAGGED, 5, e, 7, 9,
				    3), 0);
		CHECK_RC(ops->writeerr(cq, &ctx, FI_SEND, FI_ETIMEDOUT, 0x1c,
				       0), 0);
		memset(e, 0, sizeof(e));
		CHECK_RC(fi_cq_readfrom(cq, e, 4, src), 1);
		CHECK(e[0].op_context == &ctx && src[0] == 3);
		if (fmts[f] == FI_CQ_FORMAT_TAGGED)
			CHECK(e[0].len == 5 && e[0].data == 7 && e[0].tag == 9);
		if (fmts[f] == FI_CQ_FORMAT_MSG) {
			struct fi_cq_msg_entry m;

			memcpy(&m, e, sizeof(m));
			CHECK(m.len == 5);
		}
		CHECK_RC(fi_cq_read(cq, e, 4), -FI_EAVAIL);
		memset(&err, 0, sizeof(err));
		CHECK_RC(fi_cq_readerr(cq, &err, 0), 1);
		CHECK(err.err == FI_ETIMEDOUT && err.prov_errno == 0x1c &&
		      err.op_context == &ctx);
		CHECK(strstr(fi_cq_strerror(cq, err.prov_errno, NULL, NULL, 0),
			     "BAD_MKEY") != NULL);
		CHECK_RC(fi_cq_readerr(cq, &err, 0), -FI_EAGAIN);
		/* the CQ holds `size` entries, then refuses */
		for (int i = 0; i < 8; i++)
			CHECK_RC(ops->write(cq, &ctx, 0, 0, NULL, 0, 0, 0), 0);
		CHECK_RC(ops->write(cq, &ctx, 0, 0, NULL, 0, 0, 0),
			 -FI_EAGAIN);
		CHECK_RC(fi_cq_sread(cq, e, 4, NULL, 10), 4);
		CHECK_RC(fi_cq_read(cq, e, 4), 4);
		/* sread times out, or returns on fi_cq_signal */
		CHECK_RC(fi_cq_sread(cq, e, 1, NULL, 5), -FI_EAGAIN);
		CHECK_RC(fi_cq_signal(cq), 0);
		CHECK_RC(fi_cq_sread(cq, e, 1, NULL, -1), -FI_EAGAIN);
		CHECK_RC(fi_close(&cq->fid), 0);
	}
}

/*
 * An insert with one good and one bad address (fi_av(3)): FI_SYNC_ERR
 * fills the context's int array (0, then an errno); with an EQ bound
 * (FI_EVENT), the bad one is an error event whose data is its index,
 * then the completion counts the good one.
 */
static void
test_av_errors(struct fid_fabric *fab, struct fid_domain *dom)
{
	struct fi_av_attr attr = { .type = FI_AV_TABLE };
	struct fi_eq_attr ea = { .size = 8, .wait_obj = FI_WAIT_UNSPEC };
	struct uet_ofi_addr a[2];
	struct fi_eq_err_entry err;
	struct fi_eq_entry ent;
	int sync_err[2] = { -1, 0 }, ctx;
	fi_addr_t fa[2] = { 0, 0 };
	struct fid_av *av;
	struct fid_eq *eq;
	uint32_t ev;

	memset(a, 0, sizeof(a));
	a[0].version = UET_OFI_ADDR_VERSION;
	a[0].flags = UET_OFI_ADDR_F_IPV4;
	a[0].profile = cur_profile;
	a[0].pid_on_fep = htons(5);
	a[0].fa[0] = 10;
	a[0].fa[3] = 5;
	a[1] = a[0];
	a[1].version = 9; /* bad */
	CHECK_RC(fi_av_open(dom, &attr, &av, NULL), 0);
	CHECK_RC(fi_av_insert(av, a, 2, NULL, FI_SYNC_ERR, sync_err), 1);
	CHECK(sync_err[0] == 0 && sync_err[1] == FI_EINVAL);
	CHECK_RC(fi_close(&av->fid), 0);

	attr.flags = FI_EVENT;
	CHECK_RC(fi_eq_open(fab, &ea, &eq, NULL), 0);
	CHECK_RC(fi_av_open(dom, &attr, &av, NULL), 0);
	CHECK_RC(fi_av_bind(av, &eq->fid, 0), 0);
	CHECK_RC(fi_av_insert(av, a, 2, fa, 0, &ctx), 0);
	CHECK_RC(fi_eq_read(eq, &ev, &ent, sizeof(ent), 0), -FI_EAVAIL);
	memset(&err, 0, sizeof(err));
	CHECK_RC(fi_eq_readerr(eq, &err, 0), (long)sizeof(err));
	CHECK(err.fid == &av->fid && err.context == &ctx && err.data == 1 &&
	      err.err == FI_EINVAL);
	CHECK_RC(fi_eq_read(eq, &ev, &ent, sizeof(ent), 0), (long)sizeof(ent));
	CHECK(ev == FI_AV_COMPLETE && ent.data == 1 && ent.context == &ctx);
	CHECK(fa[0] != FI_ADDR_NOTAVAIL && fa[1] == FI_ADDR_NOTAVAIL);
	CHECK_RC(fi_close(&av->fid), 0);
	CHECK_RC(fi_close(&eq->fid), 0);

	/* named AVs (FI_SHARED_AV) need a service; FI_READ needs a name */
	attr.flags = 0;
	attr.name = "uet-test-objects";
	CHECK_RC(fi_av_open(dom, &attr, &av, NULL), -FI_ENOSYS);
	attr.name = NULL;
	attr.flags = FI_READ;
	CHECK_RC(fi_av_open(dom, &attr, &av, NULL), -FI_EINVAL);
}

static void
test_eq_cntr(struct fid_fabric *fab, struct fid_domain *dom)
{
	struct fi_eq_attr ea = { .size = 4, .flags = FI_WRITE,
				 .wait_obj = FI_WAIT_FD };
	struct fi_eq_entry ent = { .data = 42 }, got;
	struct fi_eq_err_entry err = { .err = FI_EIO, .prov_errno = 5 }, gerr;
	struct fi_cntr_attr ca = { .events = FI_CNTR_EVENTS_COMP,
				   .wait_obj = FI_WAIT_UNSPEC };
	struct fid_cntr *cntr;
	struct fid_eq *eq;
	uint32_t ev;

	CHECK_RC(fi_eq_open(fab, &ea, &eq, NULL), 0);
	CHECK_RC(fi_eq_read(eq, &ev, &got, sizeof(got), 0), -FI_EAGAIN);
	CHECK_RC(fi_eq_write(eq, FI_NOTIFY, &ent, sizeof(ent), 0),
		 (long)sizeof(ent));
	CHECK_RC(fi_eq_read(eq, &ev, &got, sizeof(got), FI_PEEK),
		 (long)sizeof(got));
	CHECK_RC(fi_eq_sread(eq, &ev, &got, sizeof(got), 10, 0),
		 (long)sizeof(got));
	CHECK(ev == FI_NOTIFY && got.data == 42);
	CHECK_RC(fi_eq_write(eq, FI_NOTIFY, &err, sizeof(err),
			     UET_OFI_EQ_WRITE_ERR), (long)sizeof(err));
	CHECK_RC(fi_eq_read(eq, &ev, &got, sizeof(got), 0), -FI_EAVAIL);
	CHECK_RC(fi_eq_readerr(eq, &gerr, 0), (long)sizeof(gerr));
	CHECK(gerr.err == FI_EIO && gerr.prov_errno == 5);
	CHECK(fi_eq_strerror(eq, 0x1b, NULL, NULL, 0) != NULL);
	CHECK_RC(fi_eq_sread(eq, &ev, &got, sizeof(got), 5, 0), -FI_EAGAIN);
	for (int i = 0; i < 4; i++)
		CHECK_RC(fi_eq_write(eq, FI_NOTIFY, &ent, sizeof(ent), 0),
			 (long)sizeof(ent));
	CHECK_RC(fi_eq_write(eq, FI_NOTIFY, &ent, sizeof(ent), 0),
		 -FI_EAGAIN);
	CHECK_RC(fi_close(&eq->fid), 0);

	CHECK_RC(fi_cntr_open(dom, &ca, &cntr, NULL), 0);
	CHECK(fi_cntr_read(cntr) == 0);
	CHECK_RC(fi_cntr_add(cntr, 5), 0);
	CHECK_RC(fi_cntr_wait(cntr, 5, 10), 0);
	CHECK_RC(fi_cntr_wait(cntr, 6, 5), -FI_ETIMEDOUT);
	CHECK_RC(fi_cntr_set(cntr, 100), 0);
	CHECK(fi_cntr_read(cntr) == 100);
	CHECK_RC(fi_cntr_adderr(cntr, 2), 0);
	CHECK(fi_cntr_readerr(cntr) == 2);
	CHECK_RC(fi_cntr_seterr(cntr, 0), 0);
	CHECK(fi_cntr_readerr(cntr) == 0);
	CHECK_RC(fi_close(&cntr->fid), 0);
}

static void
test_atomic_valid(struct fid_ep *ep, struct fid_domain *dom, bool base)
{
	int ok = 0, bad = 0;

	for (int op = 0; op < FI_ATOMIC_OP_LAST; op++) {
		for (int dt = 0; dt <= FI_UINT128; dt++) {
			size_t cnt = 0;
			struct fi_atomic_attr aa;
			int w = fi_atomicvalid(ep, dt, op, &cnt);
			int f = fi_fetch_atomicvalid(ep, dt, op, &cnt);
			int c = fi_compare_atomicvalid(ep, dt, op, &cnt);

			CHECK(w == 0 || w == -FI_EOPNOTSUPP);
			CHECK(f == 0 || f == -FI_EOPNOTSUPP);
			CHECK(c == 0 || c == -FI_EOPNOTSUPP);
			if (base)
				CHECK(f != 0 && c != 0);
			if (op >= FI_CSWAP)
				CHECK(w != 0 && f != 0);
			if (op == FI_ATOMIC_READ)
				CHECK(w != 0);
			if (w == 0) {
				CHECK(cnt > 0);
				CHECK_RC(fi_query_atomic(dom, dt, op, &aa, 0),
					 0);
			}
			ok += (w == 0) + (f == 0) + (c == 0);
			bad += (w != 0) + (f != 0) + (c != 0);
		}
	}
	CHECK(ok > 100 && bad > 0);
	{
		size_t cnt = 0;

		/* one packet of operands (MTU 1500 less 128 header bytes),
		 * 32 fetched bytes, one CAS element of at most 16 bytes */
		CHECK_RC(fi_atomicvalid(ep, FI_UINT64, FI_SUM, &cnt), 0);
		CHECK(cnt == (1500 - 128) / 8);
		if (!base) {
			CHECK_RC(fi_fetch_atomicvalid(ep, FI_UINT32, FI_SUM,
						      &cnt), 0);
			CHECK(cnt == 32 / 4);
			CHECK_RC(fi_compare_atomicvalid(ep, FI_UINT64, FI_CSWAP,
							&cnt), 0);
			CHECK(cnt == 1);
			CHECK_RC(fi_compare_atomicvalid(ep,
							FI_LONG_DOUBLE_COMPLEX,
							FI_CSWAP, &cnt),
				 -FI_EOPNOTSUPP);
		}
		CHECK(fi_atomicvalid(ep, FI_DOUBLE, FI_BOR, &cnt) ==
		      -FI_EOPNOTSUPP);
	}
}

/* Full object life cycle on one profile. */
static void
test_objects(const char *domain)
{
	struct fi_info *fi = info_get(domain, FI_EP_RDM);
	struct fid_fabric *fab;
	struct fid_domain *dom;
	struct fid_ep *ep, *ep2;
	struct fid_av *av;
	struct fid_cq *cq;
	struct fid_cntr *cntr;
	struct fid_mr *mr, *mr2;
	struct fi_av_attr aa = { .type = FI_AV_MAP };
	struct fi_cq_attr cqa = { .format = FI_CQ_FORMAT_TAGGED, .size = 4096 };
	struct fi_cntr_attr ca = { .events = FI_CNTR_EVENTS_COMP };
	struct uet_ofi_addr me, peer;
	uint64_t key;
	static char buf[4096];
	fi_addr_t dest;
	size_t len, opt;
	int posted = 0;
	ssize_t rc;
	bool base = strstr(domain, "ai_base") != NULL;

	cur_profile = base ? 1 : strstr(domain, "ai_full") ? 2 : 3;
	CHECK(fi != NULL);
	if (fi == NULL)
		return;
	CHECK_RC(fi_fabric(fi->fabric_attr, &fab, NULL), 0);
	CHECK_RC(fi_domain(fab, fi, &dom, NULL), 0);
	CHECK_RC(fi_close(&fab->fid), -FI_EBUSY);

	test_av(dom, FI_AV_TABLE);
	test_av(dom, FI_AV_MAP);
	test_cq(dom);
	test_eq_cntr(fab, dom);
	test_av_errors(fab, dom);

	CHECK_RC(fi_av_open(dom, &aa, &av, NULL), 0);
	CHECK_RC(fi_cq_open(dom, &cqa, &cq, NULL), 0);
	CHECK_RC(fi_cntr_open(dom, &ca, &cntr, NULL), 0);
	CHECK_RC(fi_endpoint(dom, fi, &ep, NULL), 0);

	/* enable needs an AV */
	CHECK_RC(fi_enable(ep), -FI_ENOAV);
	CHECK_RC(fi_ep_bind(ep, &av->fid, 0), 0);
	CHECK_RC(fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV), 0);
	CHECK_RC(fi_ep_bind(ep, &cq->fid, FI_TRANSMIT), -FI_EINVAL);
	CHECK_RC(fi_ep_bind(ep, &cntr->fid, FI_SEND | FI_WRITE), 0);
	opt = 256;
	CHECK_RC(fi_setopt(&ep->fid, FI_OPT_ENDPOINT, FI_OPT_MIN_MULTI_RECV,
			   &opt, sizeof(opt)), 0);
	opt = 0;
	len = sizeof(opt);
	CHECK_RC(fi_getopt(&ep->fid, FI_OPT_ENDPOINT, FI_OPT_MIN_MULTI_RECV,
			   &opt, &len), 0);
	CHECK(opt == 256);
	CHECK_RC(fi_getopt(&ep->fid, FI_OPT_ENDPOINT, FI_OPT_CM_DATA_SIZE,
			   &opt, &len), -FI_ENOPROTOOPT);
	/* data ops before enable */
	CHECK_RC(fi_send(ep, buf, 8, NULL, 0, NULL), -FI_EOPBADSTATE);
	CHECK_RC(fi_enable(ep), 0);
	/* bind after enable */
	CHECK_RC(fi_ep_bind(ep, &cntr->fid, FI_RECV), -FI_EINVAL);
	opt = 32;
	CHECK_RC(fi_setopt(&ep->fid, FI_OPT_ENDPOINT, FI_OPT_TX_SIZE, &opt,
			   sizeof(opt)), -FI_EOPBADSTATE);
	/* bound objects cannot close */
	CHECK_RC(fi_close(&cq->fid), -FI_EBUSY);
	CHECK_RC(fi_close(&av->fid), -FI_EBUSY);
	CHECK_RC(fi_close(&cntr->fid), -FI_EBUSY);
	CHECK_RC(fi_close(&dom->fid), -FI_EBUSY);

	len = sizeof(me);
	CHECK_RC(fi_getname(&ep->fid, &me, &len), 0);
	CHECK(len == sizeof(me) && me.version == UET_OFI_ADDR_VERSION &&
	      me.fa[0] == 10 && me.fa[3] == 1 && me.profile >= 1);
	len = 2;
	CHECK_RC(fi_getname(&ep->fid, &me, &len), -FI_ETOOSMALL);
	peer = me;
	peer.pid_on_fep = htons(77);
	peer.initiator_id = htonl(0x1234);
	CHECK_RC(fi_av_insert(av, &peer, 1, &dest, 0, NULL), 1);

	/* unsupported calls */
	CHECK_RC(fi_connect(ep, &peer, NULL, 0), -FI_ENOSYS);
	CHECK_RC(fi_shutdown(ep, 0), -FI_ENOSYS);
	CHECK_RC(fi_getpeer(ep, &peer, &len), -FI_ENOSYS);
	CHECK_RC(fi_scalable_ep_bind(ep, &av->fid, 0), -FI_EINVAL);
	CHECK_RC(fi_stx_context(dom, NULL, NULL, NULL), -FI_ENOSYS);
	CHECK_RC(fi_srx_context(dom, NULL, NULL, NULL), -FI_ENOSYS);
	CHECK_RC(fi_passive_ep(fab, fi, NULL, NULL), -FI_ENOSYS);
	/* wait and poll sets: test_ofi_data poll_wait; bad arguments */
	CHECK_RC(fi_wait_open(fab, NULL, NULL), -FI_EINVAL);
	CHECK_RC(fi_poll_open(dom, NULL, NULL), -FI_EINVAL);
	CHECK_RC(fi_tx_context(ep, 0, NULL, NULL, NULL), -FI_ENOSYS);

	/* MRs: UET key format, FI_MR_ENDPOINT bind + enable */
	CHECK_RC(fi_mr_reg(dom, buf, sizeof(buf), FI_REMOTE_WRITE, 0, 99, 0,
			   &mr, NULL), 0);
	CHECK_RC(fi_mr_reg(dom, buf, 64, FI_REMOTE_READ, 0, 99, 0, &mr2,
			   NULL), 0);
	CHECK(fi_mr_key(mr) != fi_mr_key(mr2) && fi_mr_key(mr) != 99);
	/* UEC 1.0 memory key: I(1) O(1) rsvd(6) vendor(8) rkey(48) */
	key = fi_mr_key(mr);
	CHECK(((key >> 56) & 0x3F) == 0);            /* reserved */
	CHECK(((key >> 48) & 0xFF) == 0x55);         /* vendor */
	CHECK(((key >> 62) & 1) == 0);               /* O: not optimized */
	CHECK(((key >> 63) & 1) == (strstr(domain, "hpc") != NULL)); /* I */
	CHECK(fi_mr_desc(mr) != NULL);
	CHECK_RC(fi_mr_enable(mr), -FI_EINVAL);
	CHECK_RC(fi_mr_bind(mr, &ep->fid, 0), 0);
	CHECK_RC(fi_mr_enable(mr), 0);
	CHECK_RC(fi_mr_bind(mr, &cq->fid, 0), -FI_EINVAL);
	CHECK_RC(fi_close(&ep->fid), -FI_EBUSY); /* MR bound to it */

	test_atomic_valid(ep, dom, base);

	/* data entry points post descriptors until the ring is full */
	for (int i = 0; i < 200; i++) {
		rc = fi_tsend(ep, buf, 16, fi_mr_desc(mr), dest, 5, buf);
		if (rc == -FI_EAGAIN)
			break;
		CHECK_RC(rc, 0);
		posted++;
	}
	CHECK(posted == 64); /* tx_size 64: the request pool is the limit */
	CHECK_RC(fi_recv(ep, buf, 64, NULL, FI_ADDR_UNSPEC, buf), 0);
	CHECK_RC(fi_trecv(ep, buf, 64, NULL, FI_ADDR_UNSPEC, 1,
			  base ? 0 : 0xFF, &buf[1]), 0);
	CHECK_RC(fi_trecv(ep, buf, 64, NULL, FI_ADDR_UNSPEC, 1, 0xFF, NULL),
		 base ? -FI_EINVAL : 0);
	CHECK_RC(fi_cancel(&ep->fid, &buf[1]), 0);
	CHECK_RC(fi_cancel(&ep->fid, &buf[2]), -FI_ENOENT);
	CHECK_RC(fi_send(ep, buf, 8, NULL, FI_ADDR_NOTAVAIL, NULL),
		 -FI_EINVAL);
	CHECK_RC(fi_inject(ep, buf, 65, dest), -FI_EINVAL); /* > inject_size */
	if (base)
		CHECK_RC(fi_read(ep, buf, 8, NULL, dest, 0, fi_mr_key(mr),
				 NULL), -FI_EOPNOTSUPP);
	CHECK_RC(fi_cq_read(cq, NULL, 0), 0);

	/* a DGRAM-less second endpoint: everything closes in order */
	CHECK_RC(fi_endpoint(dom, fi, &ep2, NULL), 0);
	CHECK_RC(fi_close(&ep2->fid), 0);
	CHECK_RC(fi_close(&mr->fid), 0);
	CHECK_RC(fi_close(&mr2->fid), 0);
	CHECK_RC(fi_close(&ep->fid), 0);
	CHECK_RC(fi_close(&cntr->fid), 0);
	CHECK_RC(fi_close(&cq->fid), 0);
	CHECK_RC(fi_close(&av->fid), 0);
	CHECK_RC(fi_close(&dom->fid), 0);
	CHECK_RC(fi_close(&fab->fid), 0);
	fi_freeinfo(fi);
}

static void
test_dgram_and_sep(void)
{
	struct fi_info *fi = info_get(NULL, FI_EP_DGRAM);
	struct fi_info *ri = info_get("net_ring0-hpc", FI_EP_RDM);
	struct fid_fabric *fab;
	struct fid_domain *dom, *rdom;
	struct fid_ep *ep, *sep, *tx, *rx;
	struct fid_av *av, *rav;
	struct fi_av_attr aa = { .type = FI_AV_TABLE };
	struct fi_cq_attr cqa = { .format = FI_CQ_FORMAT_CONTEXT };
	struct fid_cq *cq;
	char buf[64];

	CHECK(fi != NULL && ri != NULL);
	if (fi == NULL || ri == NULL)
		return;
	CHECK_RC(fi_fabric(fi->fabric_attr, &fab, NULL), 0);
	CHECK_RC(fi_domain(fab, fi, &dom, NULL), 0);
	CHECK_RC(fi_av_open(dom, &aa, &av, NULL), 0);
	CHECK_RC(fi_endpoint(dom, fi, &ep, NULL), 0);
	CHECK_RC(fi_ep_bind(ep, &av->fid, 0), 0);
	CHECK_RC(fi_enable(ep), 0);
	CHECK_RC(fi_tsend(ep, buf, 8, NULL, 0, 1, NULL), -FI_ENOSYS);
	CHECK_RC(fi_write(ep, buf, 8, NULL, 0, 0, 0, NULL), -FI_ENOSYS);
	CHECK_RC(fi_atomic(ep, buf, 1, NULL, 0, 0, 0, FI_UINT64, FI_SUM,
			   NULL), -FI_ENOSYS);
	CHECK_RC(fi_close(&ep->fid), 0);
	CHECK_RC(fi_close(&av->fid), 0);

	/* scalable endpoint with 2 tx / 2 rx contexts */
	ri->ep_attr->tx_ctx_cnt = 2;
	ri->ep_attr->rx_ctx_cnt = 2;
	CHECK_RC(fi_domain(fab, ri, &rdom, NULL), 0);
	CHECK_RC(fi_av_open(rdom, &aa, &rav, NULL), 0);
	CHECK_RC(fi_cq_open(rdom, &cqa, &cq, NULL), 0);
	CHECK_RC(fi_scalable_ep(rdom, ri, &sep, NULL), 0);
	CHECK_RC(fi_scalable_ep_bind(sep, &rav->fid, 0), 0);
	CHECK_RC(fi_tx_context(sep, 0, NULL, &tx, NULL), 0);
	CHECK_RC(fi_tx_context(sep, 2, NULL, &tx, NULL), -FI_EINVAL);
	CHECK_RC(fi_rx_context(sep, 1, NULL, &rx, NULL), 0);
	CHECK_RC(fi_ep_bind(tx, &cq->fid, FI_TRANSMIT), 0);
	CHECK_RC(fi_ep_bind(rx, &cq->fid, FI_RECV), 0);
	CHECK_RC(fi_ep_bind(tx, &cq->fid, FI_RECV), -FI_EINVAL);
	CHECK_RC(fi_enable(sep), 0);
	CHECK_RC(fi_enable(tx), 0);
	CHECK_RC(fi_enable(rx), 0);
	CHECK_RC(fi_send(sep, buf, 8, NULL, 0, NULL), -FI_ENOSYS);
	CHECK_RC(fi_recv(rx, buf, 8, NULL, FI_ADDR_UNSPEC, NULL), 0);
	CHECK_RC(fi_recv(tx, buf, 8, NULL, FI_ADDR_UNSPEC, NULL),
		 -FI_EOPNOTSUPP);
	CHECK_RC(fi_close(&sep->fid), -FI_EBUSY);
	CHECK_RC(fi_close(&tx->fid), 0);
	CHECK_RC(fi_close(&rx->fid), 0);
	CHECK_RC(fi_close(&sep->fid), 0);
	CHECK_RC(fi_close(&cq->fid), 0);
	CHECK_RC(fi_close(&rav->fid), 0);
	CHECK_RC(fi_close(&rdom->fid), 0);
	CHECK_RC(fi_close(&dom->fid), 0);
	CHECK_RC(fi_close(&fab->fid), 0);
	fi_freeinfo(fi);
	fi_freeinfo(ri);
}

int
main(void)
{
	test_objects("net_ring0-hpc");
	test_objects("net_ring0-ai_base");
	test_dgram_and_sep();
	printf("objects: %d failure(s)\n", ofi_failures);
	return ofi_failures != 0;
}
