/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Named (shared) address vectors through a uet-engine service
 * (FI_SHARED_AV), the sequence of fabtests' fi_rdm_shared_av:
 *
 *   svc_shared_av server <dir>
 *     Publishes its address as <dir>/addr, receives one message and
 *     checks it is the child's.
 *   svc_shared_av client <dir> <name>
 *     Forks before opening anything. The parent opens AV <name>
 *     read-write, inserts the server's address (fi_addr 0, also in
 *     av_attr.map_addr[0]) and lets the child go; the child opens <name>
 *     with FI_READ, takes the server's fi_addr from map_addr[0] (never
 *     inserted in its process: resolved into its own attachment on first
 *     use), checks fi_av_lookup gives the server's address back, that it
 *     cannot insert or remove (-FI_EACCES), and sends the message. The
 *     parent also checks a bad name (-FI_EINVAL) and FI_READ of a name
 *     nobody opened (-FI_ENOENT).
 *
 * Exit 0 when every check passed. Every wait is bounded.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>

#include "ofi_check.h"

#define WAIT_MS 50000
#define ADDR_MAX 64

static const char message[] = "hello from the child of the shared AV";

static struct fi_info *info;
static struct fid_fabric *fab;
static struct fid_domain *dom;
static struct fid_av *av;
static struct fid_cq *cq;
static struct fid_ep *ep;

/* fabric and domain; the AV is the caller's */
static int
open_domain(void)
{
	struct fi_info *hints = fi_allocinfo();
	int rc;

	hints->caps = FI_MSG | FI_SHARED_AV;
	hints->ep_attr->type = FI_EP_RDM;
	hints->fabric_attr->prov_name = strdup("uet");
	rc = fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, hints, &info);
	fi_freeinfo(hints);
	if (rc == 0)
		rc = fi_fabric(info->fabric_attr, &fab, NULL);
	if (rc == 0)
		rc = fi_domain(fab, info, &dom, NULL);
	if (rc != 0)
		fprintf(stderr, "open: %s\n", fi_strerror(-rc));
	return rc;
}

static int
open_ep(void)
{
	struct fi_cq_attr ca = { .format = FI_CQ_FORMAT_MSG, .size = 64 };
	int rc;

	if ((rc = fi_cq_open(dom, &ca, &cq, NULL)) != 0 ||
	    (rc = fi_endpoint(dom, info, &ep, NULL)) != 0 ||
	    (rc = fi_ep_bind(ep, &av->fid, 0)) != 0 ||
	    (rc = fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV)) != 0 ||
	    (rc = fi_enable(ep)) != 0)
		fprintf(stderr, "endpoint: %s\n", fi_strerror(-rc));
	return rc;
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

/* one completion, bounded */
static int
cq_wait(void)
{
	struct fi_cq_msg_entry e;
	uint64_t end = uet_mono_ms() + WAIT_MS;

	while (uet_mono_ms() < end) {
		ssize_t rc = fi_cq_read(cq, &e, 1);

		if (rc == 1)
			return 0;
		if (rc != -FI_EAGAIN) {
			fprintf(stderr, "cq: %s\n", fi_strerror((int)-rc));
			return -1;
		}
		usleep(1000);
	}
	fprintf(stderr, "cq: no completion in %d ms\n", WAIT_MS);
	return -1;
}

static int
server(const char *dir)
{
	struct fi_av_attr aa = { .type = FI_AV_TABLE };
	char buf[sizeof(message)] = { 0 }, name[ADDR_MAX], p[512], tmp[520];
	size_t len = sizeof(name);
	FILE *f;

	if (open_domain() != 0 || fi_av_open(dom, &aa, &av, NULL) != 0 ||
	    open_ep() != 0)
		return 1;
	CHECK_RC(fi_recv(ep, buf, sizeof(buf), NULL, FI_ADDR_UNSPEC, NULL), 0);
	CHECK_RC(fi_getname(&ep->fid, name, &len), 0);
	snprintf(p, sizeof(p), "%s/addr", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", p);
	f = fopen(tmp, "wb");
	CHECK(f != NULL && fwrite(name, 1, len, f) == len && fclose(f) == 0 &&
	      rename(tmp, p) == 0);
	CHECK(cq_wait() == 0);
	CHECK(memcmp(buf, message, sizeof(message)) == 0);
	if (ofi_failures == 0)
		printf("server: '%s', checked\n", buf);
	teardown();
	return ofi_failures ? 1 : 0;
}

static size_t
server_addr(const char *dir, char *name)
{
	char p[512];
	uint64_t end = uet_mono_ms() + WAIT_MS;

	snprintf(p, sizeof(p), "%s/addr", dir);
	while (uet_mono_ms() < end) {
		FILE *f = fopen(p, "rb");

		if (f != NULL) {
			size_t n = fread(name, 1, ADDR_MAX, f);

			fclose(f);
			return n;
		}
		usleep(2000);
	}
	return 0;
}

static int
child(const char *dir, const char *avname, int go)
{
	struct fi_av_attr aa = { .type = FI_AV_TABLE, .name = (char *)avname,
				 .flags = FI_READ };
	char srv[ADDR_MAX], got[ADDR_MAX];
	size_t n = server_addr(dir, srv), len = sizeof(got);
	fi_addr_t peer, other = FI_ADDR_NOTAVAIL;
	char c;

	CHECK(read(go, &c, 1) == 1);
	if (open_domain() != 0)
		return 1;
	CHECK_RC(fi_av_open(dom, &aa, &av, NULL), 0);
	if (av == NULL || aa.map_addr == NULL || open_ep() != 0)
		return 1;
	peer = ((const fi_addr_t *)aa.map_addr)[0];
	CHECK(peer == 0);
	CHECK_RC(fi_av_lookup(av, peer, got, &len), 0);
	CHECK(len == n && memcmp(got, srv, n) == 0);
	CHECK_RC(fi_av_insert(av, srv, 1, &other, 0, NULL), -FI_EACCES);
	CHECK_RC(fi_av_remove(av, &peer, 1, 0), -FI_EACCES);
	CHECK_RC(fi_send(ep, message, sizeof(message), NULL, peer, NULL), 0);
	CHECK(cq_wait() == 0);
	teardown();
	return ofi_failures ? 1 : 0;
}

static int
parent(const char *dir, const char *avname, int go, pid_t pid)
{
	struct fi_av_attr aa = { .type = FI_AV_TABLE, .name = (char *)avname };
	struct fi_av_attr bad = { .type = FI_AV_TABLE, .name = "a/b" };
	struct fi_av_attr none = { .type = FI_AV_TABLE,
				   .name = "uet-test-no-such-av",
				   .flags = FI_READ };
	struct fid_av *x = NULL;
	char srv[ADDR_MAX];
	size_t n = server_addr(dir, srv);
	fi_addr_t fa = FI_ADDR_NOTAVAIL;
	int st = 0;

	CHECK(n > 0);
	if (open_domain() != 0)
		return 1;
	CHECK_RC(fi_av_open(dom, &bad, &x, NULL), -FI_EINVAL);
	CHECK_RC(fi_av_open(dom, &none, &x, NULL), -FI_ENOENT);
	CHECK_RC(fi_av_open(dom, &aa, &av, NULL), 0);
	if (av == NULL)
		return 1;
	CHECK_RC(fi_av_insert(av, srv, 1, &fa, 0, NULL), 1);
	CHECK(fa == 0 && aa.map_addr != NULL &&
	      ((const fi_addr_t *)aa.map_addr)[0] == fa);
	CHECK(write(go, "g", 1) == 1);
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	      WEXITSTATUS(st) == 0);
	teardown();
	return ofi_failures ? 1 : 0;
}

static int
client(const char *dir, const char *avname)
{
	int go[2];
	pid_t pid;

	/* like fi_rdm_shared_av: fork before the provider is loaded */
	if (pipe(go) != 0)
		return 1;
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		close(go[1]);
		exit(child(dir, avname, go[0]));
	}
	close(go[0]);
	return parent(dir, avname, go[1], pid);
}

int
main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "server") == 0)
		return server(argv[2]);
	if (argc == 4 && strcmp(argv[1], "client") == 0)
		return client(argv[2], argv[3]);
	fprintf(stderr, "usage: %s server DIR | client DIR AVNAME\n", argv[0]);
	return 2;
}
