/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The provider's two address formats, FI_SOCKADDR_IN and
 * UET_OFI_ADDR_FORMAT (src/ofi/uet_addr.c), through the public libfabric
 * API: fi_av_insert and fi_setname take both whatever the domain's
 * addr_format, fi_av_lookup and fi_getname answer in the domain's, and
 * anything else is refused with a warning that names it. No data moves.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>

#include <uet/uet_ofi.h>

#include "ofi_check.h"
#include "ofi_info.h"

#define V FI_VERSION(1, 17)

/* Profile of the domain under test, as the address carries it (1 AI
 * Base, 3 HPC): a peer of another is refused. */
static uint8_t cur_profile = 3;

/* stderr in a file for one call: the provider's warnings */
struct log_capture {
	FILE *f;
	int saved;
};

static int
capture_begin(struct log_capture *c)
{
	fflush(stderr);
	c->f = tmpfile();
	c->saved = dup(STDERR_FILENO);
	if (c->f == NULL || c->saved < 0 ||
	    dup2(fileno(c->f), STDERR_FILENO) < 0) {
		if (c->f != NULL)
			fclose(c->f);
		if (c->saved >= 0)
			close(c->saved);
		return -1;
	}
	return 0;
}

/* Whether the output holds @p want (NULL: holds nothing). */
static bool
capture_end(struct log_capture *c, const char *want)
{
	char out[4096] = "";

	fflush(stderr);
	dup2(c->saved, STDERR_FILENO);
	close(c->saved);
	rewind(c->f);
	out[fread(out, 1, sizeof(out) - 1, c->f)] = '\0';
	fclose(c->f);
	fputs(out, stderr);
	return want != NULL ? strstr(out, want) != NULL : out[0] == '\0';
}

/* fi_av_insert of @p count addresses: its result, and in @p seen
 * whether its output holds @p want (NULL: holds nothing). */
static long
insert_logged(struct fid_av *av, const void *addr, size_t count,
	      fi_addr_t *fa, const char *want, bool *seen)
{
	struct log_capture c;
	long rc;

	if (capture_begin(&c) < 0) {
		*seen = false;
		return -1;
	}
	rc = fi_av_insert(av, addr, count, fa, 0, NULL);
	*seen = capture_end(&c, want);
	return rc;
}

/* fi_setname, as insert_logged */
static int
setname_logged(struct fid_ep *ep, void *addr, size_t len, const char *want,
	       bool *seen)
{
	struct log_capture c;
	int rc;

	if (capture_begin(&c) < 0) {
		*seen = false;
		return -1;
	}
	rc = fi_setname(&ep->fid, addr, len);
	*seen = capture_end(&c, want);
	return rc;
}

/*
 * An AV takes every address format the provider advertises, whatever
 * its own (fabtests given -s inserts a peer's fi_getname in the other
 * one): FI_SOCKADDR_IN and UET_OFI_ADDR_FORMAT addresses in AVs of both
 * formats, lookups answering in the AV's. An address in neither
 * (AF_INET6, a garbage header, a second format in one call) is refused
 * with a warning that names what came and what was expected.
 */
static void
test_av_formats(struct fid_fabric *fab, const char *domain)
{
	static const uint32_t fmts[] = { FI_SOCKADDR_IN, UET_OFI_ADDR_FORMAT };
	struct fi_av_attr attr = { .type = FI_AV_TABLE };
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons(0xC000 | 21) };
	struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6 };
	struct uet_ofi_addr u[2], back;
	uint8_t mixed[sizeof(sin) + sizeof(u[0])];
	fi_addr_t fa[2];
	struct sockaddr_in sback;
	bool seen;
	size_t len;

	memset(u, 0, sizeof(u));
	for (int i = 0; i < 2; i++) {
		u[i].version = UET_OFI_ADDR_VERSION;
		u[i].flags = UET_OFI_ADDR_F_IPV4;
		u[i].profile = cur_profile;
		u[i].pid_on_fep = htons((uint16_t)(30 + i));
		u[i].initiator_id = htonl(0x7000u + (uint32_t)i);
		u[i].fa[0] = 10;
		u[i].fa[3] = (uint8_t)(30 + i);
	}
	sin.sin_addr.s_addr = htonl(0x0A000015); /* 10.0.0.21 */
	memcpy(mixed, &sin, sizeof(sin));
	memcpy(mixed + sizeof(sin), &u[0], sizeof(u[0]));

	for (size_t f = 0; f < 2; f++) {
		struct fi_info *fi = info_get_fmt(domain, FI_EP_RDM, fmts[f]);
		struct fid_domain *dom;
		struct fid_av *av;

		CHECK(fi != NULL && fi->addr_format == fmts[f]);
		if (fi == NULL)
			continue;
		CHECK_RC(fi_domain(fab, fi, &dom, NULL), 0);
		CHECK_RC(fi_av_open(dom, &attr, &av, NULL), 0);
		CHECK_RC(insert_logged(av, &sin, 1, fa, NULL, &seen), 1);
		CHECK(seen); /* no warning */
		CHECK_RC(insert_logged(av, u, 2, fa, NULL, &seen), 2);
		CHECK(seen);
		/* lookups answer in the AV's format */
		if (fmts[f] == FI_SOCKADDR_IN) {
			len = sizeof(sback);
			CHECK_RC(fi_av_lookup(av, fa[1], &sback, &len), 0);
			CHECK(len == sizeof(sback) &&
			      sback.sin_family == AF_INET &&
			      ntohs(sback.sin_port) == (0xC000 | 31));
		} else {
			len = sizeof(back);
			CHECK_RC(fi_av_lookup(av, 0, &back, &len), 0);
			CHECK(len == sizeof(back) &&
			      ntohs(back.pid_on_fep) == 21 && back.fa[3] == 21);
		}
		CHECK_RC(insert_logged(av, &sin6, 1, fa,
				       "address 0 is FI_SOCKADDR_IN6", &seen), 0);
		CHECK(seen && fa[0] == FI_ADDR_NOTAVAIL);
		u[1].version = 9;
		CHECK_RC(insert_logged(av, &u[1], 1, fa, "is unknown (first "
				       "bytes 09 01)", &seen), 0);
		CHECK(seen);
		u[1].version = UET_OFI_ADDR_VERSION;
		u[1].profile = 7;
		CHECK_RC(insert_logged(av, &u[1], 1, fa, "not a valid "
				       "UET_OFI_ADDR_FORMAT address", &seen),
			 0);
		CHECK(seen);
		u[1].profile = cur_profile;
		/* one format per call: the first address sets it */
		CHECK_RC(insert_logged(av, mixed, 2, fa, "address 1 is "
				       "UET_OFI_ADDR_FORMAT", &seen), 1);
		CHECK(seen && fa[0] != FI_ADDR_NOTAVAIL &&
		      fa[1] == FI_ADDR_NOTAVAIL);
		CHECK_RC(fi_close(&av->fid), 0);
		CHECK_RC(fi_close(&dom->fid), 0);
		fi_freeinfo(fi);
	}
}

/* The name of an endpoint not yet enabled, in @p fmt: its PIDonFEP
 * (-1 when it is not a name of 10.0.0.1 in that format). */
static int
name_pid(struct fid_ep *ep, uint32_t fmt)
{
	union {
		struct sockaddr_in sin;
		struct uet_ofi_addr u;
	} n;
	size_t len = sizeof(n);

	memset(&n, 0, sizeof(n));
	if (fi_getname(&ep->fid, &n, &len) != 0)
		return -1;
	if (fmt == FI_SOCKADDR_IN)
		return len == sizeof(n.sin) && n.sin.sin_family == AF_INET &&
		       n.sin.sin_addr.s_addr == htonl(0x0A000001) ?
		       ntohs(n.sin.sin_port) & 0xFFF : -1;
	return len == sizeof(n.u) && n.u.version == UET_OFI_ADDR_VERSION &&
	       n.u.fa[0] == 10 && n.u.fa[3] == 1 ?
	       ntohs(n.u.pid_on_fep) : -1;
}

/*
 * fi_setname takes both formats fi_getinfo advertises, whatever the
 * domain's, and fi_getname gives the name back in the domain's. The
 * endpoint is at the name's PIDonFEP from then on (the one it had is
 * free for another, the named one busy for others) and once enabled.
 * Anything else is refused with a warning naming what came, the
 * endpoint left where it was.
 */
static void
setname_one(struct fid_domain *dom, struct fi_info *fi, struct fid_av *av,
	    struct fid_ep *ep)
{
	uint32_t fmt = fi->addr_format;
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6 };
	struct uet_ofi_addr u = { .version = UET_OFI_ADDR_VERSION,
				  .flags = UET_OFI_ADDR_F_IPV4,
				  .fa = { 10, 0, 0, 1 } };
	uint8_t name[sizeof(struct uet_ofi_addr)];
	struct fid_ep *ep2;
	int p0 = name_pid(ep, fmt);
	/* two PIDonFEPs far from the engine contexts' own */
	uint16_t pa = (uint16_t)(((p0 + 0x800) & 0xFFE) | 1);
	uint16_t pb = (uint16_t)((pa + 2) & 0xFFF);
	bool seen;
	size_t len;

	CHECK(p0 > 0);
	u.profile = cur_profile;
	u.pid_on_fep = htons(pb);
	sin.sin_addr.s_addr = htonl(0x0A000001); /* the port's FA */
	sin.sin_port = htons((uint16_t)(0xC000 | pa));
	CHECK_RC(setname_logged(ep, &sin, sizeof(sin), NULL, &seen), 0);
	CHECK(seen && name_pid(ep, fmt) == pa);
	CHECK_RC(setname_logged(ep, &u, sizeof(u), NULL, &seen), 0);
	CHECK(seen && name_pid(ep, fmt) == pb);
	/* round trip: its own name, as fi_getname gave it */
	len = sizeof(name);
	CHECK_RC(fi_getname(&ep->fid, name, &len), 0);
	CHECK_RC(fi_setname(&ep->fid, name, len), 0);
	CHECK(name_pid(ep, fmt) == pb);
	/* p0 is free again, pb is taken */
	CHECK_RC(fi_endpoint(dom, fi, &ep2, NULL), 0);
	CHECK(name_pid(ep2, fmt) == p0);
	CHECK_RC(setname_logged(ep2, &u, sizeof(u), "Address already in use",
				&seen), -FI_EADDRINUSE);
	CHECK(seen && name_pid(ep2, fmt) == p0);
	CHECK_RC(fi_close(&ep2->fid), 0);
	/* neither format, too short, another FA */
	CHECK_RC(setname_logged(ep, &sin6, sizeof(sin6),
				"address is FI_SOCKADDR_IN6", &seen),
		 -FI_EINVAL);
	CHECK(seen);
	u.version = 9;
	CHECK_RC(setname_logged(ep, &u, sizeof(u), "address is unknown "
				"(first bytes 09 01)", &seen), -FI_EINVAL);
	CHECK(seen);
	u.version = UET_OFI_ADDR_VERSION;
	CHECK_RC(setname_logged(ep, &u, 8, "UET_OFI_ADDR_FORMAT address of 8 "
				"bytes, not 32", &seen), -FI_EINVAL);
	CHECK(seen);
	CHECK_RC(setname_logged(ep, NULL, 0, "no address", &seen), -FI_EINVAL);
	CHECK(seen);
	sin.sin_addr.s_addr = htonl(0x0A000063);
	CHECK_RC(setname_logged(ep, &sin, sizeof(sin), "not the FA", &seen),
		 -FI_EADDRNOTAVAIL);
	CHECK(seen && name_pid(ep, fmt) == pb);
	/* enabled, the endpoint is where it was named */
	CHECK_RC(fi_ep_bind(ep, &av->fid, 0), 0);
	CHECK_RC(fi_enable(ep), 0);
	CHECK(name_pid(ep, fmt) == pb);
	CHECK_RC(fi_setname(&ep->fid, &u, sizeof(u)), -FI_EOPBADSTATE);
}

/* A scalable endpoint's PIDonFEP is its src_addr's: a name elsewhere
 * is refused, its own taken. */
static void
setname_sep(struct fid_domain *dom, struct fi_info *fi)
{
	struct uet_ofi_addr u;
	struct fid_ep *sep;
	size_t len = sizeof(u);
	uint16_t other;
	bool seen;

	fi->ep_attr->tx_ctx_cnt = 2;
	fi->ep_attr->rx_ctx_cnt = 2;
	CHECK_RC(fi_scalable_ep(dom, fi, &sep, NULL), 0);
	CHECK_RC(fi_getname(&sep->fid, &u, &len), 0);
	CHECK_RC(fi_setname(&sep->fid, &u, len), 0);
	/* another PIDonFEP, never 0 (which leaves the choice to the
	 * provider: accepted, nothing moves); the sep's own follows
	 * getpid(), and was 0x800 in one CI run */
	other = (uint16_t)((ntohs(u.pid_on_fep) + 0x800) & 0xFFF);
	u.pid_on_fep = htons(other != 0 ? other : 1);
	CHECK_RC(setname_logged(sep, &u, len, "a scalable endpoint's PIDonFEP",
				&seen), -FI_EOPNOTSUPP);
	CHECK(seen);
	CHECK_RC(fi_close(&sep->fid), 0);
	fi->ep_attr->tx_ctx_cnt = 0;
	fi->ep_attr->rx_ctx_cnt = 0;
}

static void
test_setname_formats(struct fid_fabric *fab, const char *domain)
{
	static const uint32_t fmts[] = { FI_SOCKADDR_IN, UET_OFI_ADDR_FORMAT };
	struct fi_av_attr attr = { .type = FI_AV_TABLE };

	for (size_t f = 0; f < 2; f++) {
		struct fi_info *fi = info_get_fmt(domain, FI_EP_RDM, fmts[f]);
		struct fid_domain *dom;
		struct fid_av *av;
		struct fid_ep *ep;

		CHECK(fi != NULL);
		if (fi == NULL)
			continue;
		CHECK_RC(fi_domain(fab, fi, &dom, NULL), 0);
		CHECK_RC(fi_av_open(dom, &attr, &av, NULL), 0);
		CHECK_RC(fi_endpoint(dom, fi, &ep, NULL), 0);
		CHECK(fi->addr_format == fmts[f]);
		setname_one(dom, fi, av, ep);
		if (fmts[f] == UET_OFI_ADDR_FORMAT)
			setname_sep(dom, fi);
		CHECK_RC(fi_close(&ep->fid), 0);
		CHECK_RC(fi_close(&av->fid), 0);
		CHECK_RC(fi_close(&dom->fid), 0);
		fi_freeinfo(fi);
	}
}

static void
test_domain(const char *domain)
{
	struct fi_info *fi = info_get_fmt(domain, FI_EP_RDM, FI_FORMAT_UNSPEC);
	struct fid_fabric *fab;

	cur_profile = strstr(domain, "ai_base") != NULL ? 1 : 3;
	CHECK(fi != NULL);
	if (fi == NULL)
		return;
	CHECK_RC(fi_fabric(fi->fabric_attr, &fab, NULL), 0);
	test_av_formats(fab, domain);
	test_setname_formats(fab, domain);
	CHECK_RC(fi_close(&fab->fid), 0);
	fi_freeinfo(fi);
}

int
main(void)
{
	test_domain("net_ring0-hpc");
	test_domain("net_ring0-ai_base");
	printf("addr: %d failure(s)\n", ofi_failures);
	return ofi_failures != 0;
}
