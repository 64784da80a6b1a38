/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A benchmark, not a test: the CPU time an idle engine costs. Opens the
 * provider's first RDM entry (fabric, domain, endpoint with a CQ and an
 * AV, enabled: the engine runs), waits one second, then measures the
 * process's CPU time (getrusage) over a period with nothing to do and
 * prints it as a share of one core. With AUTO progress that is the
 * engine lcore's idle cost (scripts/ofi-latency.sh, docs/PERFORMANCE.md).
 *
 * usage: ofi_idle_cpu [seconds]   (default 10; FI_PROVIDER_PATH,
 *                                  FI_UET_PROVIDER_CONFIG as usual)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>

static double
tv_s(const struct timeval *tv)
{
	return (double)tv->tv_sec + (double)tv->tv_usec / 1e6;
}

static double
mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
	int secs = argc > 1 ? atoi(argv[1]) : 10;
	struct fi_info *hints = fi_allocinfo(), *info = NULL;
	struct fid_fabric *fab = NULL;
	struct fid_domain *dom = NULL;
	struct fid_ep *ep = NULL;
	struct fid_cq *cq = NULL;
	struct fid_av *av = NULL;
	struct fi_cq_attr cqa = { .format = FI_CQ_FORMAT_TAGGED, .size = 64 };
	struct fi_av_attr ava = { .type = FI_AV_TABLE };
	struct rusage r0, r1;
	double t0, t1, cpu;
	int rc;

	if (hints == NULL || secs <= 0 || secs > 3600) {
		fprintf(stderr, "usage: ofi_idle_cpu [seconds (1..3600)]\n");
		return 2;
	}
	hints->ep_attr->type = FI_EP_RDM;
	hints->caps = FI_MSG | FI_TAGGED;
	hints->fabric_attr->prov_name = strdup("uet");
	rc = fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, hints, &info);
	if (rc == 0)
		rc = fi_fabric(info->fabric_attr, &fab, NULL);
	if (rc == 0)
		rc = fi_domain(fab, info, &dom, NULL);
	if (rc == 0)
		rc = fi_cq_open(dom, &cqa, &cq, NULL);
	if (rc == 0)
		rc = fi_av_open(dom, &ava, &av, NULL);
	if (rc == 0)
		rc = fi_endpoint(dom, info, &ep, NULL);
	if (rc == 0)
		rc = fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV);
	if (rc == 0)
		rc = fi_ep_bind(ep, &av->fid, 0);
	if (rc == 0)
		rc = fi_enable(ep);
	if (rc != 0) {
		fprintf(stderr, "provider setup: %s\n", fi_strerror(-rc));
		goto out;
	}
	sleep(1);
	getrusage(RUSAGE_SELF, &r0);
	t0 = mono_s();
	/* a signal (net_tap's SIGIO) may cut a sleep short */
	do {
		usleep(100000);
		t1 = mono_s();
	} while (t1 - t0 < (double)secs);
	getrusage(RUSAGE_SELF, &r1);
	cpu = tv_s(&r1.ru_utime) - tv_s(&r0.ru_utime) +
	      tv_s(&r1.ru_stime) - tv_s(&r0.ru_stime);
	printf("idle %.1f s: CPU %.3f s (user %.3f, sys %.3f) = %.2f %% of "
	       "a core\n", t1 - t0, cpu,
	       tv_s(&r1.ru_utime) - tv_s(&r0.ru_utime),
	       tv_s(&r1.ru_stime) - tv_s(&r0.ru_stime),
	       100.0 * cpu / (t1 - t0));
out:
	if (ep != NULL)
		fi_close(&ep->fid);
	if (av != NULL)
		fi_close(&av->fid);
	if (cq != NULL)
		fi_close(&cq->fid);
	if (dom != NULL)
		fi_close(&dom->fid);
	if (fab != NULL)
		fi_close(&fab->fid);
	fi_freeinfo(info);
	fi_freeinfo(hints);
	return rc != 0;
}
