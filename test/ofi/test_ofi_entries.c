/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Which fi_getinfo entries an application gets (public API, no EAL):
 *   layering   (FI_PROVIDER unset, so libfabric loads its utility
 *              providers) RDM asked from "uet", or from any provider,
 *              gives the provider's own RDM entries and no "uet;ofi_rxd";
 *              "uet;ofi_rxd" named explicitly is still there; Open MPI's
 *              mtl ofi hints find a uet entry with the top tag bit free
 *   defaults   no FI_UET_PROVIDER_PROFILES: only -hpc RDM entries (and
 *              the DGRAM ones), so that Open MPI, which spreads its ranks
 *              over entries that look alike, gives every rank one profile;
 *              an -ai_full entry named in the hints is still served
 *   profiles   FI_UET_PROVIDER_PROFILES=hpc,ai_base: those two, not AI Full
 *   badprofiles FI_UET_PROVIDER_PROFILES=hpc,x: no RDM entry at all
 *   local      one configuration file with per-process tokens (%r, %p,
 *              %{a,b}): the entries follow the local rank; bad tokens fail
 *
 * usage: test_ofi_entries layering|defaults|profiles|badprofiles|local
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>

#include <uet/uet_ofi.h>

#include "ofi_check.h"

#define V FI_VERSION(1, 17)

static struct fi_info *
rdm_hints(const char *prov)
{
	struct fi_info *h = fi_allocinfo();

	if (prov != NULL)
		h->fabric_attr->prov_name = strdup(prov);
	h->ep_attr->type = FI_EP_RDM;
	h->caps = FI_TAGGED;
	return h;
}

/* Entries whose provider name is exactly / contains @p name. */
static void
count_prov(struct fi_info *fi, const char *name, int *exact, int *layered)
{
	*exact = 0;
	*layered = 0;
	for (; fi != NULL; fi = fi->next) {
		const char *p = fi->fabric_attr->prov_name;

		if (strcmp(p, name) == 0)
			(*exact)++;
		else if (strncmp(p, name, strlen(name)) == 0 &&
			 p[strlen(name)] == ';')
			(*layered)++;
	}
}

static void
test_layering(void)
{
	struct fi_info *h, *fi = NULL, *i;
	int exact, layered;

	/* RDM from "uet": the provider's own entries only */
	h = rdm_hints("uet");
	CHECK_RC(fi_getinfo(V, NULL, NULL, 0, h, &fi), 0);
	count_prov(fi, "uet", &exact, &layered);
	CHECK(exact > 0 && layered == 0);
	fi_freeinfo(fi);
	fi = NULL;
	fi_freeinfo(h);

	/* RDM from any provider: no rxd over uet among them */
	h = rdm_hints(NULL);
	CHECK_RC(fi_getinfo(V, NULL, NULL, 0, h, &fi), 0);
	count_prov(fi, "uet", &exact, &layered);
	CHECK(exact > 0 && layered == 0);
	fi_freeinfo(fi);
	fi = NULL;
	fi_freeinfo(h);

	/* the pair named: libfabric layers it as asked */
	h = rdm_hints("uet;ofi_rxd");
	CHECK_RC(fi_getinfo(V, NULL, NULL, 0, h, &fi), 0);
	for (i = fi; i != NULL; i = i->next)
		CHECK(strcmp(i->fabric_attr->prov_name, "uet;ofi_rxd") == 0);
	CHECK(fi != NULL);
	fi_freeinfo(fi);
	fi = NULL;
	fi_freeinfo(h);

	/* Open MPI 4.1's mtl ofi: FI_CONTEXT, ordered tagged
	 * messages; it takes the first entry whose provider name starts
	 * with its include list and needs bit 63 of mem_tag_format */
	h = rdm_hints(NULL);
	h->mode = FI_CONTEXT;
	h->tx_attr->msg_order = FI_ORDER_SAS;
	h->rx_attr->msg_order = FI_ORDER_SAS;
	h->tx_attr->op_flags = FI_COMPLETION;
	h->rx_attr->op_flags = FI_COMPLETION;
	h->domain_attr->threading = FI_THREAD_DOMAIN;
	h->domain_attr->resource_mgmt = FI_RM_ENABLED;
	h->domain_attr->av_type = FI_AV_MAP;
	CHECK_RC(fi_getinfo(FI_VERSION(1, 5), NULL, NULL, 0, h, &fi), 0);
	for (i = fi; i != NULL; i = i->next)
		if (strncmp(i->fabric_attr->prov_name, "uet", 3) == 0)
			break;
	CHECK(i != NULL);
	if (i != NULL) {
		CHECK(strcmp(i->fabric_attr->prov_name, "uet") == 0);
		CHECK(i->ep_attr->mem_tag_format >> 63);
	}
	fi_freeinfo(fi);
	fi_freeinfo(h);
}

static bool
has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), k = strlen(suf);

	return n > k && strcmp(s + n - k, suf) == 0;
}

/*
 * The RDM entries are those of the profiles in @p want ("-hpc,-ai_base"),
 * each of them at least once and no other; an entry the hints name is
 * served whatever PROFILES lists.
 */
static void
test_profiles(const char *want)
{
	static const char *const sufs[] = { "-hpc", "-ai_full", "-ai_base" };
	struct fi_info *h = rdm_hints("uet"), *fi = NULL;
	int seen[3] = { 0 };
	char name[64] = "";

	if (want == NULL) {
		CHECK_RC(fi_getinfo(V, NULL, NULL, 0, h, &fi), -FI_ENODATA);
		fi_freeinfo(h);
		return;
	}
	CHECK_RC(fi_getinfo(V, NULL, NULL, 0, h, &fi), 0);
	for (struct fi_info *i = fi; i != NULL; i = i->next) {
		const char *d = i->domain_attr->name;
		size_t k;

		for (k = 0; k < 3 && !has_suffix(d, sufs[k]); k++)
			;
		CHECK(k < 3);
		if (k < 3)
			seen[k]++;
		if (name[0] == '\0' && k == 0)
			snprintf(name, sizeof(name), "%.*s-ai_full",
				 (int)(strlen(d) - 4), d);
	}
	for (size_t k = 0; k < 3; k++)
		CHECK((seen[k] > 0) == (strstr(want, sufs[k]) != NULL));
	fi_freeinfo(fi);
	fi = NULL;
	/* named: served */
	CHECK(name[0] != '\0');
	h->domain_attr->name = strdup(name);
	CHECK_RC(fi_getinfo(V, NULL, NULL, 0, h, &fi), 0);
	CHECK(fi != NULL && fi->next == NULL &&
	      strcmp(fi->domain_attr->name, name) == 0);
	fi_freeinfo(fi);
	fi_freeinfo(h);
	/* the DGRAM entries stay */
	h = fi_allocinfo();
	h->fabric_attr->prov_name = strdup("uet");
	h->ep_attr->type = FI_EP_DGRAM;
	fi = NULL;
	CHECK_RC(fi_getinfo(V, NULL, NULL, 0, h, &fi), 0);
	CHECK(fi != NULL);
	fi_freeinfo(fi);
	fi_freeinfo(h);
}

static const char *conf_path;

static void
conf_write(const char *devargs, const char *extra)
{
	FILE *f = fopen(conf_path, "w");

	CHECK(f != NULL);
	if (f == NULL)
		return;
	fprintf(f, "# per-process tokens %%r %%{a,b} (comments are kept)\n"
		   "[eal]\nargs = -l 0 --no-huge --file-prefix=t%%p\n"
		   "[port0]\ndevargs = %s\nipv4 = 10.0.7.1\n%s", devargs,
		extra);
	fclose(f);
}

/* Domain name of the first RDM entry, or "" when fi_getinfo fails. */
static void
first_domain(char *out, size_t n)
{
	struct fi_info *h = rdm_hints("uet"), *fi = NULL;

	out[0] = '\0';
	if (fi_getinfo(V, NULL, NULL, 0, h, &fi) == 0 && fi != NULL)
		snprintf(out, n, "%s", fi->domain_attr->name);
	fi_freeinfo(fi);
	fi_freeinfo(h);
}

static void
test_local(void)
{
	char dom[64];

	/* rank 1 of the launcher's: its item of each list */
	setenv("OMPI_COMM_WORLD_LOCAL_RANK", "1", 1);
	conf_write("net_ring%{4,5,6}", "");
	first_domain(dom, sizeof(dom));
	CHECK(strcmp(dom, "net_ring5-hpc") == 0);
	conf_write("net_ring%r", "");
	first_domain(dom, sizeof(dom));
	CHECK(strcmp(dom, "net_ring1-hpc") == 0);
	conf_write("net_%%ring%{a,b}", "");
	first_domain(dom, sizeof(dom));
	CHECK(strcmp(dom, "net_%ringb-hpc") == 0);
	/* MPICH's variable when Open MPI's is absent */
	unsetenv("OMPI_COMM_WORLD_LOCAL_RANK");
	setenv("MPI_LOCALRANKID", "2", 1);
	conf_write("net_ring%{4,5,6}", "");
	first_domain(dom, sizeof(dom));
	CHECK(strcmp(dom, "net_ring6-hpc") == 0);
	/* rejected: no item for the rank, unknown token, unclosed list */
	conf_write("net_ring%{4,5}", "");
	first_domain(dom, sizeof(dom));
	CHECK(dom[0] == '\0');
	conf_write("net_ring%q", "");
	first_domain(dom, sizeof(dom));
	CHECK(dom[0] == '\0');
	conf_write("net_ring%{4,5", "");
	first_domain(dom, sizeof(dom));
	CHECK(dom[0] == '\0');
	/* tokens in any value */
	conf_write("net_ring0", "mtu = 1%{400,500,600}\n");
	first_domain(dom, sizeof(dom));
	CHECK(strcmp(dom, "net_ring0-hpc") == 0);
	/* no rank known at all */
	unsetenv("MPI_LOCALRANKID");
	unsetenv("SLURM_LOCALID");
	conf_write("net_ring%r", "");
	first_domain(dom, sizeof(dom));
	CHECK(dom[0] == '\0');
	/* a file without rank tokens needs no rank */
	conf_write("net_ring3", "");
	first_domain(dom, sizeof(dom));
	CHECK(strcmp(dom, "net_ring3-hpc") == 0);
}

int
main(int argc, char **argv)
{
	char path[] = "/tmp/uet-entries-XXXXXX";
	const char *mode = argc > 1 ? argv[1] : "";
	int fd;

	if (strcmp(mode, "layering") == 0) {
		test_layering();
	} else if (strcmp(mode, "defaults") == 0) {
		test_profiles("-hpc");
	} else if (strcmp(mode, "profiles") == 0) {
		test_profiles("-hpc,-ai_base");
	} else if (strcmp(mode, "badprofiles") == 0) {
		test_profiles(NULL);
	} else if (strcmp(mode, "local") == 0) {
		/* the provider reads FI_UET_PROVIDER_CONFIG when libfabric
		 * loads it, at the first fi_getinfo(): set it before */
		fd = mkstemp(path);
		if (fd < 0)
			return 1;
		close(fd);
		conf_path = path;
		setenv("FI_UET_PROVIDER_CONFIG", path, 1);
		unsetenv("FI_UET_PROVIDER_LOCAL_RANK");
		test_local();
		unlink(path);
	} else {
		fprintf(stderr, "usage: %s layering|defaults|profiles|"
				"badprofiles|local\n", argv[0]);
		return 2;
	}
	printf("entries %s: %d failure(s)\n", mode, ofi_failures);
	return ofi_failures != 0;
}
