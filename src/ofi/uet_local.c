/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The in-process backend (uet_ofi_backend_local, docs/PROVIDER.md
 * "Deployments"): the process's own engine. Starting it initialises the
 * EAL (or reuses the process's), loads the engine configuration, creates
 * the engine with the PDS hook and the SES ULP (pmd/ses_ulp/: one SES
 * per engine context, which consumes the endpoints' channels) and starts
 * it (AUTO progress launches its lcores; INLINE leaves progress to
 * fi_cq_read / fi_cntr_read). Endpoints get PIDonFEPs of the engine's
 * contexts, channels in hugepage memory, and reach the engine (jobs,
 * memory regions, endpoints) through the SES ULP's control ring.
 * Stopping it lingers until peers have their last ACKs.
 */
#include <arpa/inet.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_errno.h>
#include <rte_mbuf.h>

#include <uet/uet_engine.h>

#include "uet_ofi_private.h"

/*
 * Initiator id of engine context @p ctx hosting @p pid: the provider's
 * rule for endpoint addresses (FI_UET_PROVIDER_INITIATOR_ID, or derived
 * from the FA of port 0 and the PIDonFEP), so CQE sources map back to AV
 * entries.
 */
static uint32_t
local_initiator_of(void *arg, unsigned int ctx, uint16_t pid)
{
	const struct uet_ofi_fabric *fab = arg;
	const struct uet_config_port *cp = &fab->cfg.port[0];
	struct uet_ofi_addr a;
	uint8_t fa[16] = { 0 };
	bool v6 = !cp->has_ipv4;

	(void)ctx;
	if (uet_ofi_params()->has_initiator_id)
		return uet_ofi_params()->initiator_id;
	if (v6)
		memcpy(fa, &cp->ipv6, 16);
	else
		memcpy(fa, &cp->ipv4, 4);
	uet_ofi_addr_make(&a, fa, v6, pid, UET_PROFILE_HPC, 0);
	return uet_ofi_initiator_default(&a);
}

/* Initiator id of an extra PIDonFEP: always derived (FA, PIDonFEP), so
 * that each endpoint's differs even with INITIATOR_ID set. */
static uint32_t
local_initiator_derived(const struct uet_ofi_fabric *fab, uint16_t pid)
{
	const struct uet_config_port *cp = &fab->cfg.port[0];
	struct uet_ofi_addr a;
	uint8_t fa[16] = { 0 };
	bool v6 = !cp->has_ipv4;

	if (v6)
		memcpy(fa, &cp->ipv6, 16);
	else
		memcpy(fa, &cp->ipv4, 4);
	uet_ofi_addr_make(&a, fa, v6, pid, UET_PROFILE_HPC, 0);
	return uet_ofi_initiator_default(&a);
}

static unsigned int
local_ctx_pick(struct uet_ofi_fabric *fab)
{
	unsigned int n, idx;

	pthread_mutex_lock(&fab->ctl_lock);
	n = uet_engine_nb_lcores(fab->engine);
	idx = n ? fab->next_lcore++ % n : 0;
	pthread_mutex_unlock(&fab->ctl_lock);
	return idx;
}

/* Extra PIDonFEPs of this fabric: pid_base + nb_lcores + k (the 64-wide
 * window of the fabric, after its contexts' own). */
static unsigned int
local_pid_extra_max(const struct uet_ofi_fabric *fab)
{
	unsigned int n = uet_engine_nb_lcores(fab->engine);

	return n < 64 ? 64 - n : 0;
}

static bool
pid_busy(const struct uet_ofi_fabric *fab, uint16_t pid)
{
	return (fab->pid_busy[pid / 64] >> (pid % 64)) & 1;
}

static void
pid_busy_set(struct uet_ofi_fabric *fab, uint16_t pid, bool on)
{
	if (on)
		fab->pid_busy[pid / 64] |= UINT64_C(1) << (pid % 64);
	else
		fab->pid_busy[pid / 64] &= ~(UINT64_C(1) << (pid % 64));
}

/* The engine context whose own PIDonFEP is @p pid, or -1. */
static int
pid_ctx_of(const struct uet_ofi_fabric *fab, uint16_t pid)
{
	unsigned int n = uet_engine_nb_lcores(fab->engine);
	unsigned int k = (pid - fab->sul.pid_base) & UET_OFI_PID_MASK;

	return k < n ? (int)k : -1;
}

/* An extra PIDonFEP: @p want, or the first free one of the window. */
static int
pid_extra_take(struct uet_ofi_fabric *fab, uint16_t want, uint16_t *pid)
{
	unsigned int k, max = local_pid_extra_max(fab);
	uint16_t p;

	if (want != 0) {
		if (pid_busy(fab, want) || pid_ctx_of(fab, want) >= 0)
			return -FI_EADDRINUSE;
		*pid = want;
		pid_busy_set(fab, want, true);
		return 0;
	}
	for (k = 0; k < max; k++) {
		p = (uint16_t)((fab->sul.pid_base +
				uet_engine_nb_lcores(fab->engine) + k) &
			       UET_OFI_PID_MASK);
		if (p != 0 && !pid_busy(fab, p)) {
			*pid = p;
			pid_busy_set(fab, p, true);
			return 0;
		}
	}
	return -FI_ENOSPC;
}

static int
local_pid_get(struct uet_ofi_fabric *fab, unsigned int ctx,
	      const void *owner, uint16_t want, uint16_t *pid,
	      uint32_t *initiator)
{
	int rc;

	if (ctx >= UET_ENGINE_LCORES_MAX || want > UET_OFI_PID_MASK)
		return -FI_EINVAL;
	pthread_mutex_lock(&fab->ctl_lock);
	if (fab->ctx_owner[ctx] == NULL &&
	    (want == 0 || pid_ctx_of(fab, want) == (int)ctx)) {
		fab->ctx_owner[ctx] = owner;
		rc = uet_ses_ulp_identity(fab->engine, ctx, pid, initiator) ?
		     -FI_EOTHER : 0;
		if (rc < 0)
			fab->ctx_owner[ctx] = NULL;
	} else {
		rc = pid_extra_take(fab, want, pid);
		if (rc == 0)
			*initiator = local_initiator_derived(fab, *pid);
	}
	pthread_mutex_unlock(&fab->ctl_lock);
	if (rc == -FI_ENOSPC)
		FI_WARN(&uet_prov, FI_LOG_EP_CTRL,
			"no PIDonFEP left for another endpoint\n");
	else if (rc == -FI_EADDRINUSE)
		FI_WARN(&uet_prov, FI_LOG_EP_CTRL,
			"PIDonFEP %u (service %u) is already bound in this "
			"process\n", want, want);
	return rc;
}

static bool
pid_run_free(const struct uet_ofi_fabric *fab, uint16_t first, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		uint16_t p = (uint16_t)((first + i) & UET_OFI_PID_MASK);

		if (p == 0 || pid_busy(fab, p) || pid_ctx_of(fab, p) >= 0)
			return false;
	}
	return true;
}

static int
local_pid_block(struct uet_ofi_fabric *fab, uint16_t want, unsigned int n,
		uint16_t *pid, uint32_t *initiator)
{
	unsigned int k, max = local_pid_extra_max(fab);
	uint16_t base = (uint16_t)(fab->sul.pid_base +
				   uet_engine_nb_lcores(fab->engine));
	int rc = -FI_ENOSPC;

	if (n == 0 || n > 64 || want > UET_OFI_PID_MASK)
		return -FI_EINVAL;
	pthread_mutex_lock(&fab->ctl_lock);
	if (want != 0) {
		rc = pid_run_free(fab, want, n) ? 0 : -FI_EADDRINUSE;
		*pid = want;
	} else {
		for (k = 0; k + n <= max; k++) {
			*pid = (uint16_t)((base + k) & UET_OFI_PID_MASK);
			if (pid_run_free(fab, *pid, n)) {
				rc = 0;
				break;
			}
		}
	}
	if (rc == 0) {
		for (k = 0; k < n; k++)
			pid_busy_set(fab, (uint16_t)((*pid + k) &
						     UET_OFI_PID_MASK), true);
		*initiator = local_initiator_derived(fab, *pid);
	}
	pthread_mutex_unlock(&fab->ctl_lock);
	if (rc < 0)
		FI_WARN(&uet_prov, FI_LOG_EP_CTRL,
			"no run of %u free PIDonFEPs%s\n", n,
			want ? " at the bound service" : "");
	return rc;
}

static void
local_pid_block_put(struct uet_ofi_fabric *fab, uint16_t pid, unsigned int n)
{
	pthread_mutex_lock(&fab->ctl_lock);
	for (unsigned int k = 0; k < n; k++)
		pid_busy_set(fab, (uint16_t)((pid + k) & UET_OFI_PID_MASK),
			     false);
	pthread_mutex_unlock(&fab->ctl_lock);
}

static void
local_pid_put(struct uet_ofi_fabric *fab, unsigned int ctx,
	      const void *owner, uint16_t pid)
{
	if (ctx >= UET_ENGINE_LCORES_MAX)
		return;
	pthread_mutex_lock(&fab->ctl_lock);
	if (fab->ctx_owner[ctx] == owner)
		fab->ctx_owner[ctx] = NULL;
	else
		pid_busy_set(fab, pid & UET_OFI_PID_MASK, false);
	pthread_mutex_unlock(&fab->ctl_lock);
}

static void
local_ctl_progress(void *arg)
{
	uet_ofi_fabric_progress(arg);
}

static int
local_ctl(struct uet_ofi_fabric *fab, unsigned int ctx,
	  struct uet_ses_ulp_ctl *req)
{
	int rc = uet_ses_ulp_ctl(fab->engine, ctx, req, local_ctl_progress,
				 fab);

	if (rc < 0) {
		FI_WARN(&uet_prov, FI_LOG_DOMAIN,
			"engine control request %u on context %u: %d\n",
			req->op, ctx, rc);
		return -FI_EOTHER;
	}
	return req->rc;
}

static int
local_identity(struct uet_ofi_fabric *fab, unsigned int ctx, uint16_t *pid,
	       uint32_t *initiator)
{
	return uet_ses_ulp_identity(fab->engine, ctx, pid, initiator);
}

/* EP_ADD of the endpoint's channel (before attaching it). */
static int
local_ep_add(struct uet_ofi_fabric *fab, struct uet_ofi_ep *ep)
{
	struct uet_ses_ulp_ctl q = {
		.op = UET_SES_ULP_EP_ADD, .chan = ep->chan,
		.pid = ep->pid, .initiator = ep->initiator,
		/* FI_REMOTE_READ/WRITE counters count them */
		.remote_events = ep->cntr[UET_OFI_CNTR_REM_READ] != NULL ||
				 ep->cntr[UET_OFI_CNTR_REM_WRITE] != NULL,
		.profile = ep->dom->profile,
	};

	return local_ctl(fab, ep->dom->ctx, &q);
}

/*
 * The channel in hugepage memory of this process (rte_ring), bound to the
 * endpoint's process and attached to the domain's engine context. AUTO: a
 * post while the engine lcore sleeps runs the engine on the posting
 * thread (docs/PROVIDER.md "Progress").
 */
/* rte_ring's largest size (RTE_RING_SZ_MASK + 1) */
#define LOCAL_RING_MAX (1u << 30)

static int
local_chan_open(struct uet_ofi_fabric *fab, struct uet_ofi_ep *ep,
		struct uet_chan **chan)
{
	size_t sq = ep->rx_only ? 1 : ep->tx_size;
	size_t rq = ep->tx_only ? 1 : ep->rx_size;
	struct uet_chan *c;
	char name[24];
	int rc;

	snprintf(name, sizeof(name), "uf%x.%x.%x", fab->id & 0xFFF,
		 ep->dom->id & 0xFFF, atomic_fetch_add(&fab->chan_seq, 1));
	c = uet_chan_create(name, uet_ofi_ring_size(sq, LOCAL_RING_MAX),
			    uet_ofi_ring_size(rq, LOCAL_RING_MAX),
			    uet_ofi_ring_size(sq + rq, LOCAL_RING_MAX),
			    SOCKET_ID_ANY, UET_CHAN_POSTER_PROGRESS);
	if (c == NULL) {
		FI_WARN(&uet_prov, FI_LOG_EP_CTRL, "channel %s: %s\n", name,
			rte_strerror(rte_errno));
		return rte_errno == ENOMEM ? -FI_ENOMEM : -FI_EOTHER;
	}
	ep->chan = c;
	rc = local_ep_add(fab, ep);
	if (rc < 0)
		goto free_chan;
	pthread_mutex_lock(&fab->ctl_lock);
	rc = uet_engine_chan_attach(fab->engine, ep->dom->ctx, c);
	pthread_mutex_unlock(&fab->ctl_lock);
	if (rc < 0) {
		FI_WARN(&uet_prov, FI_LOG_EP_CTRL,
			"channel %s: attach failed (%d)\n", c->name, rc);
		rc = rc == -ENOSPC ? -FI_ENOSPC : rc;
		goto ep_del;
	}
	*chan = c;
	return 0;

ep_del:
	{
		struct uet_ses_ulp_ctl q = {
			.op = UET_SES_ULP_EP_DEL, .chan = c,
		};

		(void)local_ctl(fab, ep->dom->ctx, &q);
	}
free_chan:
	ep->chan = NULL;
	uet_chan_free(c);
	return rc;
}

static void
local_chan_detach(struct uet_ofi_fabric *fab, struct uet_ofi_ep *ep)
{
	bool running;

	pthread_mutex_lock(&fab->ctl_lock);
	pthread_mutex_lock(&fab->progress_lock);
	/* detaching needs a stopped engine: pause the lcores briefly */
	running = uet_engine_running(fab->engine);
	if (running)
		uet_engine_stop(fab->engine);
	(void)uet_engine_chan_detach(fab->engine, ep->chan);
	if (running && uet_engine_start(fab->engine) < 0)
		FI_WARN(&uet_prov, FI_LOG_FABRIC, "engine restart failed\n");
	pthread_mutex_unlock(&fab->progress_lock);
	pthread_mutex_unlock(&fab->ctl_lock);
}

/* EP_DEL of the (detached) channel, then the rings go. */
static void
local_chan_free(struct uet_ofi_fabric *fab, struct uet_ofi_ep *ep)
{
	struct uet_ses_ulp_ctl q = {
		.op = UET_SES_ULP_EP_DEL, .chan = ep->chan,
	};

	(void)local_ctl(fab, ep->dom->ctx, &q);
	uet_chan_free(ep->chan);
}

/* Whether every context's SES and PDS have nothing left in flight. */
static bool
local_quiet(struct uet_ofi_fabric *fab)
{
	unsigned int n = uet_engine_nb_lcores(fab->engine);

	for (unsigned int i = 0; i < n; i++) {
		struct uet_ulp_ctx *u = uet_ulp_ctx_get(fab->engine, i);
		const struct uet_ses *ses = NULL;
		struct uet_ses_pool_info si;
		struct uet_pds_pool_info pi;

		if (u == NULL ||
		    uet_ses_ulp_stats_get(fab->engine, i, NULL, &ses) != 0)
			continue;
		uet_ses_pool_info_get(ses, &si);
		uet_pds_pool_info_get(uet_ulp_ctx_pds(u), &pi);
		if (si.msgs_used || si.tgt_used || si.ret_used ||
		    pi.tx_blk_used || pi.events)
			return false;
	}
	return true;
}

/*
 * Before the engine goes away, let it answer what peers still wait for:
 * the (delayed) ACK of the last request it received and the completion of
 * its own last sends. At least LOCAL_LINGER_MIN_MS (many ACK delays),
 * then until quiet, at most LOCAL_LINGER_MAX_MS. Racy reads of the pool
 * counters in AUTO mode: a heuristic for how long to wait, nothing more.
 */
#define LOCAL_LINGER_MIN_MS 2
#define LOCAL_LINGER_MAX_MS 200
/*
 * With DGRAM endpoints, at least this long: a datagram is complete once
 * it is on the wire (UUD: no ACK says the peer has it), and over
 * net_memif our port going away takes with it what the peer has not
 * read from the ring yet (fi_dgram_pingpong lost its last datagram in
 * about 1 run of 3 while the peer, loaded, had not polled it yet). The
 * port stays up this long for the peer to read it; a peer descheduled
 * longer still loses it, as UUD allows.
 */
#define LOCAL_LINGER_DGRAM_MS 100

static void
local_linger(struct uet_ofi_fabric *fab)
{
	uint64_t start = uet_mono_ms(), now = start;
	uint64_t min = atomic_load(&fab->dgram) ? LOCAL_LINGER_DGRAM_MS :
						  LOCAL_LINGER_MIN_MS;

	while (now - start < LOCAL_LINGER_MAX_MS) {
		if (now - start >= min && local_quiet(fab))
			break;
		if (fab->inline_progress) {
			pthread_mutex_lock(&fab->progress_lock);
			(void)uet_engine_poll(fab->engine, 16);
			pthread_mutex_unlock(&fab->progress_lock);
		} else {
			usleep(100);
		}
		now = uet_mono_ms();
	}
}

static void
local_stop(struct uet_ofi_fabric *fab)
{
	/* net_memif: the peer's disconnect waits until our port is closed */
	if (uet_engine_ports_hold(fab->engine) < 0)
		FI_WARN(&uet_prov, FI_LOG_FABRIC,
			"port gate not held: closing anyway\n");
	local_linger(fab);
	uet_engine_free(fab->engine);
	fab->engine = NULL;
}

/* FI_INFO: what this fabric's engine runs on (one line per port). */
static void
local_summary(const struct uet_ofi_fabric *fab)
{
	const struct uet_config *cfg = &fab->cfg;
	char lc[64] = "", fa[INET6_ADDRSTRLEN];
	size_t n = 0;

	for (unsigned int i = 0; i < cfg->engine.nb_lcores && n < sizeof(lc);
	     i++)
		n += (size_t)snprintf(lc + n, sizeof(lc) - n, "%s%u",
				      i ? "," : "", cfg->engine.lcores[i]);
	FI_INFO(&uet_prov, FI_LOG_FABRIC,
		"engine %u started: %s progress, lcores %s, %u context(s), "
		"PIDonFEP base %u\n", fab->id,
		fab->inline_progress ? "inline" : "auto", lc[0] ? lc : "-",
		uet_engine_nb_lcores(fab->engine), fab->sul.pid_base);
	for (unsigned int i = 0; i < UET_CONFIG_MAX_PORTS; i++) {
		const struct uet_config_port *cp = &cfg->port[i];

		if (!cp->defined)
			continue;
		if (cp->has_ipv4)
			inet_ntop(AF_INET, &cp->ipv4, fa, sizeof(fa));
		else
			inet_ntop(AF_INET6, &cp->ipv6, fa, sizeof(fa));
		FI_INFO(&uet_prov, FI_LOG_FABRIC,
			"port %u: %s, FA %s, MTU %u\n", i, cp->devargs, fa,
			uet_config_port_mtu(cp));
	}
}

/*
 * A second engine of the process failed: DPDK 22.11's memif PMD never
 * closes the listening socket of a removed server port, so its default
 * abstract socket stays bound and the port cannot be probed again ("Address
 * already in use"); a socket file is unlinked at close and can. Name it.
 */
static void
local_memif_hint(const struct uet_config *cfg)
{
	for (unsigned int i = 0; i < UET_CONFIG_MAX_PORTS; i++) {
		const char *d = cfg->port[i].devargs;

		if (!cfg->port[i].defined || strncmp(d, "net_memif", 9) != 0 ||
		    strstr(d, "role=client") != NULL ||
		    strstr(d, "socket-abstract=no") != NULL)
			continue;
		UET_OFI_REPORT(FI_LOG_FABRIC,
			       "port %u (%s): a net_memif server on an abstract "
			       "socket cannot be created again in one process "
			       "(the memif PMD keeps the closed port's listener "
			       "bound): add socket-abstract=no to its devargs",
			       i, d);
	}
}

/* rte_eal_init() and the affinity it changes: one thread at a time */
static pthread_mutex_t eal_lock = PTHREAD_MUTEX_INITIALIZER;

static int
local_start(struct uet_ofi_fabric *fab)
{
	const struct uet_ofi_params *p = uet_ofi_params();
	struct uet_engine_params ep;
	struct uet_config_error err;
	char name[16];
	bool reused = false, have_cpus;
	cpu_set_t cpus;
	int rc;

	rc = uet_ofi_config_get(&fab->cfg);
	if (rc < 0)
		return rc;
	if (p->inline_progress)
		fab->cfg.engine.progress = UET_CONFIG_PROGRESS_INLINE;
	if (uet_config_validate(&fab->cfg, &err) < 0) {
		UET_OFI_REPORT(FI_LOG_FABRIC, "configuration rejected: %s",
			       err.msg);
		return -FI_EINVAL;
	}
	fab->inline_progress =
		fab->cfg.engine.progress == UET_CONFIG_PROGRESS_INLINE;

	pthread_mutex_lock(&eal_lock);
	have_cpus = pthread_getaffinity_np(pthread_self(), sizeof(cpus),
					   &cpus) == 0;
	rc = uet_engine_eal_init("libuet-fi",
				 p->eal_args[0] ? p->eal_args :
						  fab->cfg.eal.args,
				 &reused);
	/* rte_eal_init() pins the calling thread to the main lcore's CPU;
	 * that thread is the application's, not ours: give it back its
	 * CPU set, so that it is not tied to the CPU of an engine lcore of
	 * this or another process */
	if (rc == 0 && !reused && have_cpus &&
	    pthread_setaffinity_np(pthread_self(), sizeof(cpus), &cpus) != 0)
		FI_WARN(&uet_prov, FI_LOG_FABRIC,
			"cannot restore the thread's CPU affinity\n");
	pthread_mutex_unlock(&eal_lock);
	if (rc < 0) {
		UET_OFI_REPORT(FI_LOG_FABRIC, "EAL init failed: %s",
			       rte_strerror(-rc));
		return uet_ofi_errno(rc);
	}
	FI_INFO(&uet_prov, FI_LOG_FABRIC, "EAL %s\n",
		reused ? "reused" : "initialised");

	snprintf(name, sizeof(name), "uetfi%u", fab->id);
	memset(&ep, 0, sizeof(ep));
	ep.cfg = &fab->cfg;
	/* one SES per engine context, PIDonFEP (getpid() + context) */
	fab->sul.pid_base = (uint16_t)((getpid() + fab->id * 64) &
				       UET_OFI_PID_MASK);
	fab->sul.start_ri = 0;
	fab->sul.initiator_of = local_initiator_of;
	fab->sul.initiator_arg = fab;
	/* MAX_EAGER_SIZE; the SES caps it to a rendezvous's first packet */
	fab->sul.rdv_eager = (uint32_t)RTE_MIN(p->max_eager_size,
					       (size_t)UINT32_MAX);
	fab->proto.ulp = &uet_ses_ulp_ops;
	fab->proto.ulp_arg = &fab->sul;
	fab->proto.pds = NULL;
	ep.hook = &uet_proto_hook_ops;
	ep.hook_arg = &fab->proto;
	ep.name = name;
	fab->engine = uet_engine_create(&ep);
	if (fab->engine == NULL) {
		rc = rte_errno > 0 ? -rte_errno : -EIO;
		UET_OFI_REPORT(FI_LOG_FABRIC,
			       "engine create failed: %s (the lines above "
			       "name the port or resource)", rte_strerror(-rc));
		if (reused)
			local_memif_hint(&fab->cfg);
		return uet_ofi_errno(rc);
	}
	rc = uet_engine_start(fab->engine);
	if (rc < 0) {
		UET_OFI_REPORT(FI_LOG_FABRIC, "engine start failed: %s",
			       rte_strerror(-rc));
		uet_engine_free(fab->engine);
		fab->engine = NULL;
		return uet_ofi_errno(rc);
	}
	local_summary(fab);
	return 0;
}

const struct uet_ofi_backend uet_ofi_backend_local = {
	.name = "in-process",
	.start = local_start,
	.stop = local_stop,
	.ctx_pick = local_ctx_pick,
	.identity = local_identity,
	.pid_get = local_pid_get,
	.pid_put = local_pid_put,
	.pid_block = local_pid_block,
	.pid_block_put = local_pid_block_put,
	.ctl = local_ctl,
	.chan_open = local_chan_open,
	.chan_detach = local_chan_detach,
	.chan_free = local_chan_free,
};
