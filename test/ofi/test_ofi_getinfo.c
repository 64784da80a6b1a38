/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fi_getinfo of the uet provider through the public API (no EAL needed):
 * without hints, every hint honoured, -FI_ENODATA cases, bad nodes.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>

#include <uet/uet_ofi.h>

#include "ofi_check.h"

#define V FI_VERSION(1, 17)

static int
count(struct fi_info *fi)
{
	int n = 0;

	for (; fi; fi = fi->next)
		n++;
	return n;
}

static struct fi_info *
hints_new(void)
{
	struct fi_info *h = fi_allocinfo();

	h->fabric_attr->prov_name = strdup("uet");
	/* libfabric layers ofi_rxd over our DGRAM endpoints; asking for
	 * the UET protocol keeps those entries out */
	h->ep_attr->protocol = UET_OFI_ADDR_FORMAT;
	return h;
}

static void
test_nohints(void)
{
	struct fi_info *fi = NULL;
	bool hpc = false, base = false, full = false, dgram = false;

	CHECK_RC(fi_getinfo(V, NULL, NULL, 0, NULL, &fi), 0);
	for (struct fi_info *i = fi; i; i = i->next) {
		if (strstr(i->fabric_attr->prov_name, "ofi_rxd"))
			continue; /* libfabric layers rxd over our DGRAM */
		CHECK(strcmp(i->fabric_attr->name, "uet") == 0);
		CHECK(i->addr_format == UET_OFI_ADDR_FORMAT);
		CHECK(i->domain_attr->threading == FI_THREAD_SAFE);
		CHECK(i->domain_attr->resource_mgmt == FI_RM_ENABLED);
		if (i->ep_attr->type == FI_EP_DGRAM) {
			dgram = true;
			CHECK(i->ep_attr->mem_tag_format == 0);
			continue;
		}
		/* every tag bit is the application's (MPI reads its layout
		 * from this and refuses 0) */
		CHECK(i->caps & FI_TAGGED);
		CHECK(i->ep_attr->mem_tag_format == UET_OFI_MEM_TAG_FORMAT);
		if (strstr(i->domain_attr->name, "-hpc")) {
			hpc = true;
			CHECK(i->caps & FI_READ);
			CHECK(i->ep_attr->max_msg_size == 0xFFFFFFFFu);
			CHECK(i->domain_attr->mr_mode ==
			      (FI_MR_PROV_KEY | FI_MR_ALLOCATED |
			       FI_MR_VIRT_ADDR));
		} else if (strstr(i->domain_attr->name, "-ai_full")) {
			full = true;
			CHECK(i->caps & FI_READ);
		} else if (strstr(i->domain_attr->name, "-ai_base")) {
			base = true;
			CHECK(!(i->caps & FI_READ));
			CHECK(i->ep_attr->max_msg_size < 9000);
		}
	}
	CHECK(hpc && full && base && dgram);
	fi_freeinfo(fi);
}

static void
test_hints(void)
{
	struct fi_info *fi = NULL, *h = hints_new();

	/* ep_type */
	h->ep_attr->type = FI_EP_DGRAM;
	CHECK_RC(fi_getinfo(V, NULL, NULL, 0, h, &fi), 0);
	for (struct fi_info *i = fi; i; i = i->next)
		CHECK(i->ep_attr->type == FI_EP_DGRAM);
	fi_freeinfo(fi);
	fi = NULL;
	h->ep_attr->type = FI_EP_MSG;
	CHECK_RC(fi_getinfo(V, NULL, NULL, 0, h, &fi), -FI_ENODATA);
	h->ep_attr->type = FI_EP_RDM;

	/* caps: READ excludes AI Base */
	h->caps = FI_RMA | FI_READ;
	h->domain_attr->mr_mode = FI_MR_PROV_KEY | FI_MR_ALLOCATED |
				  FI_MR_VIRT_ADDR | FI_MR_ENDPOINT;
	CHECK_RC(fi_getinfo(V, NULL, NULL, 0, h, &fi), 0);
	CHECK(count(fi) == 2);
	for (struct fi_info *i = fi; i; i = i->next) {
		CHECK(!strstr(i->domain_attr->name, "ai_base"));
		CHECK(i->domain_attr->mr_mode & FI_MR_ENDPOINT);
	}
	fi_freeinfo(fi);
	fi = NULL;
	/* RMA without the MR modes it needs: no match */
	h->domain_attr->mr_mode = FI_MR_LOCAL;
	CHECK_RC(fi_getinfo(V, NULL, NULL, 0, h, &fi), -FI_ENODATA);
	/* no RMA asked: RMA dropped instead */
	h->caps = FI_MSG;
	CHECK_RC(fi_getinfo(V, NULL, NULL, 0, h, &fi), 0);
	for (struct fi_info *i = fi; i; i = i->next)
		CHECK(!(i->caps & FI_RMA));
	fi_freeinfo(fi);
	fi = NULL;
	h->caps = 0;
	h->domain_attr->mr_mode = 0;

	/* domain name / profile */
	h->domain_attr->name = strdup("net_ring0-ai_full");
	CHECK_RC(fi_getinfo(V, NULL, NULL, 0, h, &fi), 0);
	CHECK(count(fi) == 1);
	fi_freeinfo(fi);
	fi = NULL;
	free(h->domain_attr->name);
	h->domain_attr->name = strdup("nosuch-hpc");
	CHECK_RC(fi_getinfo(V, NULL, NULL, 0, h, &fi), -FI_ENODATA);
	free(h->domain_attr->name);
	h->domain_attr->name = NULL;

	/* threading, progress, av type */
	h->domain_attr->threading = FI_THREAD_DOMAIN;
	h->domain_attr->data_progress = FI_PROGRESS_MANUAL;
	h->domain_attr->av_type = FI_AV_TABLE;
	CHECK_RC(fi_getinfo(V, NULL, NULL, 0, h, &fi), 0);
	for (struct fi_info *i = fi; i; i = i->next) {
		CHECK(i->domain_attr->threading == FI_THREAD_DOMAIN);
		CHECK(i->domain_attr->data_progress == FI_PROGRESS_MANUAL);
		CHECK(i->domain_attr->av_type == FI_AV_TABLE);
	}
	fi_freeinfo(fi);
	fi = NULL;
	h->domain_attr->av_type = FI_AV_UNSPEC;

	/* FI_SHARED_AV: with a uet-engine service only */
	h->caps |= FI_SHARED_AV;
	CHECK_RC(fi_getinfo(V, NULL, NULL, 0, h, &fi), -FI_ENODATA);
	h->caps &= ~FI_SHARED_AV;

	/* sizes */
	h->tx_attr->inject_size = 4096;
	CHECK_RC(fi_getinfo(V, NULL, NULL, 0, h, &fi), -FI_ENODATA);
	h->tx_attr->inject_size = 0;
	h->tx_attr->size = 1u << 30;
	CHECK_RC(fi_getinfo(V, NULL, NULL, 0, h, &fi), -FI_ENODATA);
	h->tx_attr->size = 256;
	h->rx_attr->iov_limit = 64;
	CHECK_RC(fi_getinfo(V, NULL, NULL, 0, h, &fi), -FI_ENODATA);
	h->rx_attr->iov_limit = 0;
	h->ep_attr->max_msg_size = UINT64_C(1) << 40;
	CHECK_RC(fi_getinfo(V, NULL, NULL, 0, h, &fi), -FI_ENODATA);
	h->ep_attr->max_msg_size = 0;
	h->domain_attr->cq_data_size = 16;
	CHECK_RC(fi_getinfo(V, NULL, NULL, 0, h, &fi), -FI_ENODATA);
	h->domain_attr->cq_data_size = 0;
	h->ep_attr->tx_ctx_cnt = 64;
	CHECK_RC(fi_getinfo(V, NULL, NULL, 0, h, &fi), -FI_ENODATA);
	h->ep_attr->tx_ctx_cnt = 4;
	CHECK_RC(fi_getinfo(V, NULL, NULL, 0, h, &fi), 0);
	CHECK(fi != NULL && fi->tx_attr->size == 256 &&
	      fi->ep_attr->tx_ctx_cnt == 4);
	fi_freeinfo(fi);
	fi = NULL;
	h->ep_attr->tx_ctx_cnt = 0;

	/* addr_format */
	h->addr_format = FI_SOCKADDR_IN6;
	CHECK_RC(fi_getinfo(V, NULL, NULL, 0, h, &fi), -FI_ENODATA);
	h->addr_format = FI_SOCKADDR_IN;
	CHECK_RC(fi_getinfo(V, "10.0.0.7", "5", 0, h, &fi), 0);
	if (fi != NULL) {
		struct sockaddr_in *d = fi->dest_addr;

		CHECK(fi->addr_format == FI_SOCKADDR_IN);
		CHECK(d != NULL && d->sin_family == AF_INET &&
		      (ntohs(d->sin_port) & 0xFFF) == 5);
	}
	fi_freeinfo(fi);
	fi = NULL;
	/* FI_SOURCE: node must be a local FA (config default 10.0.0.1) */
	CHECK_RC(fi_getinfo(V, "10.0.0.1", "7", FI_SOURCE, h, &fi), 0);
	if (fi != NULL) {
		struct sockaddr_in *s = fi->src_addr;

		CHECK(s != NULL && (ntohs(s->sin_port) & 0xFFF) == 7);
	}
	fi_freeinfo(fi);
	fi = NULL;
	CHECK_RC(fi_getinfo(V, "10.9.9.9", "7", FI_SOURCE, h, &fi),
		 -FI_ENODATA);
	h->addr_format = UET_OFI_ADDR_FORMAT;
	CHECK_RC(fi_getinfo(V, "10.0.0.9", "12", 0, h, &fi), 0);
	if (fi != NULL) {
		const struct uet_ofi_addr *a = fi->dest_addr;

		CHECK(fi->dest_addrlen == sizeof(*a));
		CHECK(a->version == UET_OFI_ADDR_VERSION &&
		      ntohs(a->pid_on_fep) == 12 && a->fa[0] == 10 &&
		      a->fa[3] == 9);
	}
	fi_freeinfo(fi);
	fi = NULL;
	/* a node that does not resolve */
	CHECK_RC(fi_getinfo(V, "bad..node", "1", 0, h, &fi), -FI_ENODATA);
	CHECK_RC(fi_getinfo(V, "10.0.0.1.5", "1", 0, h, &fi), -FI_ENODATA);

	/* fabric name */
	h->addr_format = FI_FORMAT_UNSPEC;
	h->fabric_attr->name = strdup("other");
	CHECK_RC(fi_getinfo(V, NULL, NULL, 0, h, &fi), -FI_ENODATA);
	fi_freeinfo(h);
}

/* Every entry carries a src_addr: the port's FA, PIDonFEP 0 (any) when
 * no service was asked for (fabtests' fi_getinfo_test: "source addrlen
 * not set"); a node without FI_SOURCE still gives the local src_addr. */
static void
test_src_addr(void)
{
	struct fi_info *fi = NULL, *h = hints_new();

	CHECK_RC(fi_getinfo(V, NULL, NULL, 0, h, &fi), 0);
	for (struct fi_info *i = fi; i; i = i->next) {
		const struct uet_ofi_addr *a = i->src_addr;

		CHECK(a != NULL && i->src_addrlen == sizeof(*a));
		if (a == NULL)
			continue;
		CHECK(a->fa[0] == 10 && a->fa[3] == 1);
		CHECK(ntohs(a->pid_on_fep) == 0);
	}
	fi_freeinfo(fi);
	fi = NULL;
	CHECK_RC(fi_getinfo(V, "10.0.0.9", "12", 0, h, &fi), 0);
	CHECK(fi != NULL && fi->src_addr != NULL && fi->dest_addr != NULL);
	fi_freeinfo(fi);
	fi_freeinfo(h);
}

/* FI_SOCKADDR is accepted where FI_SOCKADDR_IN is (an AF_INET address) */
static void
test_sockaddr(void)
{
	struct fi_info *fi = NULL, *h = hints_new();
	struct sockaddr_in6 s6;

	h->addr_format = FI_SOCKADDR;
	CHECK_RC(fi_getinfo(V, "10.0.0.1", "9", FI_SOURCE, h, &fi), 0);
	if (fi != NULL) {
		const struct sockaddr_in *s = fi->src_addr;

		CHECK(fi->addr_format == FI_SOCKADDR);
		CHECK(fi->src_addrlen == sizeof(*s));
		CHECK(s != NULL && s->sin_family == AF_INET &&
		      (ntohs(s->sin_port) & 0xFFF) == 9);
	}
	fi_freeinfo(fi);
	fi = NULL;
	/* an FI_SOCKADDR hint that is not AF_INET: no entry */
	memset(&s6, 0, sizeof(s6));
	s6.sin6_family = AF_INET6;
	h->src_addr = malloc(sizeof(s6));
	memcpy(h->src_addr, &s6, sizeof(s6));
	h->src_addrlen = sizeof(s6);
	CHECK_RC(fi_getinfo(V, NULL, NULL, 0, h, &fi), -FI_ENODATA);
	fi_freeinfo(h);
}

/* tx_attr/rx_attr caps hold only their direction's bits, a subset of the
 * entry's (fi_getinfo(3)); FI_MR_BASIC hints get FI_MR_BASIC back */
static void
test_attr_caps(void)
{
	const uint64_t tx_ok = FI_MSG | FI_TAGGED | FI_RMA | FI_ATOMIC |
			       FI_SEND | FI_READ | FI_WRITE | FI_NAMED_RX_CTX |
			       FI_TRIGGER;
	const uint64_t rx_ok = FI_MSG | FI_TAGGED | FI_RMA | FI_ATOMIC |
			       FI_RECV | FI_REMOTE_READ | FI_REMOTE_WRITE |
			       FI_SOURCE | FI_MULTI_RECV | FI_DIRECTED_RECV |
			       FI_RMA_EVENT | FI_TRIGGER;
	struct fi_info *fi = NULL, *h = hints_new();

	CHECK_RC(fi_getinfo(V, NULL, NULL, 0, h, &fi), 0);
	for (struct fi_info *i = fi; i; i = i->next) {
		CHECK((i->tx_attr->caps & ~tx_ok) == 0);
		CHECK((i->rx_attr->caps & ~rx_ok) == 0);
		CHECK((i->tx_attr->caps & ~i->caps) == 0);
		CHECK((i->rx_attr->caps & ~i->caps) == 0);
	}
	fi_freeinfo(fi);
	fi = NULL;
	/* direction bits restrict their own group: RMA write-only still
	 * sends and receives messages (fabtests fi_rma_bw) */
	h->caps = FI_MSG | FI_RMA | FI_WRITE | FI_REMOTE_WRITE;
	h->domain_attr->mr_mode = FI_MR_PROV_KEY | FI_MR_ALLOCATED |
				  FI_MR_VIRT_ADDR;
	CHECK_RC(fi_getinfo(V, NULL, NULL, 0, h, &fi), 0);
	for (struct fi_info *i = fi; i; i = i->next) {
		CHECK((i->caps & (FI_SEND | FI_RECV)) == (FI_SEND | FI_RECV));
		CHECK(!(i->caps & (FI_READ | FI_REMOTE_READ)));
	}
	fi_freeinfo(fi);
	fi = NULL;
	/* FI_NAMED_RX_CTX (fabtests fi_scalable_ep): the RDM entries */
	h->caps = FI_MSG | FI_NAMED_RX_CTX;
	CHECK_RC(fi_getinfo(V, NULL, NULL, 0, h, &fi), 0);
	CHECK(count(fi) == 3);
	for (struct fi_info *i = fi; i; i = i->next)
		CHECK((i->caps & FI_NAMED_RX_CTX) &&
		      (i->tx_attr->caps & FI_NAMED_RX_CTX));
	fi_freeinfo(fi);
	fi = NULL;
	/* FI_RMA_EVENT (fabtests fi_rdm_rma_event): the RDM entries */
	h->caps = FI_MSG | FI_RMA | FI_RMA_EVENT;
	h->domain_attr->mr_mode = FI_MR_PROV_KEY | FI_MR_ALLOCATED |
				  FI_MR_VIRT_ADDR;
	CHECK_RC(fi_getinfo(V, NULL, NULL, 0, h, &fi), 0);
	CHECK(count(fi) == 3);
	for (struct fi_info *i = fi; i; i = i->next) {
		CHECK(i->ep_attr->type == FI_EP_RDM);
		CHECK(i->caps & FI_RMA_EVENT);
		CHECK(i->rx_attr->caps & FI_RMA_EVENT);
	}
	fi_freeinfo(fi);
	fi = NULL;
	h->caps = FI_RMA;
	h->domain_attr->mr_mode = FI_MR_BASIC;
	CHECK_RC(fi_getinfo(V, NULL, NULL, 0, h, &fi), 0);
	for (struct fi_info *i = fi; i; i = i->next)
		CHECK(i->domain_attr->mr_mode == FI_MR_BASIC);
	fi_freeinfo(fi);
	fi_freeinfo(h);
}

int
main(void)
{
	/* every profile's RDM entry listed (the default lists only HPC,
	 * test_ofi_entries checks that): this test checks each one's
	 * attributes; the provider reads its parameters at the first
	 * fi_getinfo */
	setenv("FI_UET_PROVIDER_PROFILES", "hpc,ai_full,ai_base", 1);
	test_nohints();
	test_hints();
	test_src_addr();
	test_sockaddr();
	test_attr_caps();
	printf("getinfo: %d failure(s)\n", ofi_failures);
	return ofi_failures != 0;
}
