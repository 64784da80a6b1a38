/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The service backend (docs/PROVIDER.md "Deployments"): fi_fabric attaches
 * to a uet-engine service (FI_UET_PROVIDER_SERVICE_PATH) instead of
 * starting an EAL and an engine. Control requests become messages on the
 * service's socket (src/svc/svc_client.c); each endpoint's channel is three
 * rings the service made in the region it shares with this process.
 *
 * Data: no pointer of this process travels to the service. Every buffer
 * of an operation is copied into a chunk of the data window when it is
 * posted (send payload, inject, atomic operands) and out of it when it
 * completes (received data, READ, fetched values); descriptors carry
 * window offsets and request slot indices. Bounded: a full window is
 * -FI_EAGAIN, a message larger than any chunk -FI_EMSGSIZE (max_msg_size
 * in fi_getinfo says so).
 *
 * The service's death: seen by any control request and by progress calls
 * (a poll of the socket at most once per millisecond); then every
 * operation in flight completes with -FI_EIO and prov_errno
 * UET_OFI_PROV_SERVICE_LOST ("service lost"), and new ones fail -FI_EIO.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <uet/uet_svc_client.h>

#include "uet_ofi_private.h"
#include "uet_win.h"

/* smallest window chunk: 2^8 bytes */
#define SVC_WIN_SHIFT 8
/* operands of one descriptor start on this boundary in a chunk */
#define SVC_ALIGN 16
/* liveness poll of the socket from progress calls, at most this often */
#define SVC_CHECK_NS 1000000

struct uet_ofi_svc {
	struct uet_svc_client *cl;
	const struct uet_svc_hello_rep *hello;
	pthread_mutex_t win_lock;
	struct uet_ofi_win *win;
	_Atomic uint64_t next_check_ns;
	bool lost_logged;
	atomic_uint next_ctx;
	/* each context's PIDonFEP of this process (the first domain on it
	 * takes it; 0 none): what MRs and JOB_ADD without a pid use */
	uint16_t ctx_pid[UET_SVC_CTX_MAX];
	uint32_t ctx_initiator[UET_SVC_CTX_MAX];
};

/* A service-backed channel: the rings in the region, and its slot. */
struct svc_chan {
	struct uet_chan c;
	uint32_t slot;
};

/*
 * The service's socket: FI_UET_PROVIDER_SERVICE_PATH, else the [service]
 * socket of the provider's configuration file when the file writes it
 * (its default is the service's, not a request to attach). Resolved
 * once: parameters and the file do not change while the process runs.
 */
static pthread_once_t path_once = PTHREAD_ONCE_INIT;

/* why an attach gives -EPERM: the client's check of the server */
#define UNTRUSTED " (the socket is served by a user other than root, this " \
	"process's and FI_UET_PROVIDER_SERVICE_UID: not attached)"
static char svc_path[sizeof(((struct uet_ofi_params *)0)->service_path)];

static void
path_resolve(void)
{
	const struct uet_ofi_params *p = uet_ofi_params();
	struct uet_config_error err;
	struct uet_config *cfg;
	bool set = false;

	if (p->service_path[0] != '\0') {
		snprintf(svc_path, sizeof(svc_path), "%s", p->service_path);
		return;
	}
	if (p->config_path[0] == '\0')
		return;
	cfg = malloc(sizeof(*cfg));
	if (cfg == NULL)
		return;
	if (uet_ofi_config_load(cfg, p->config_path, &err, &set) == 0 && set)
		snprintf(svc_path, sizeof(svc_path), "%s", cfg->service.socket);
	free(cfg);
}

static const char *
service_path(void)
{
	pthread_once(&path_once, path_resolve);
	return svc_path;
}

bool
uet_ofi_service_configured(void)
{
	return service_path()[0] != '\0';
}

static int
svc_errno(int rc)
{
	/* gone or speaking nonsense: an I/O error for the application */
	if (rc == -ENOTCONN || rc == -EPROTO)
		return -FI_EIO;
	return uet_ofi_errno(rc);
}

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static bool
svc_lost(const struct uet_ofi_svc *s)
{
	return uet_svc_client_lost(s->cl);
}

/* ---- what the service offers (fi_getinfo, fi_fabric) ---- */

/* A configuration with one port: the service's FA and MTU, named "svc"
 * (domains svc-hpc, svc-ai_full, svc-ai_base). */
static void
svc_config(const struct uet_svc_hello_rep *h, struct uet_config *cfg)
{
	struct uet_config_port *cp = &cfg->port[0];

	uet_config_init_defaults(cfg);
	for (unsigned int i = 0; i < UET_CONFIG_MAX_PORTS; i++)
		cfg->port[i].defined = false;
	cp->defined = true;
	snprintf(cp->devargs, sizeof(cp->devargs), "svc");
	cp->mtu = (uint16_t)RTE_MIN(h->mtu, (uint32_t)UINT16_MAX);
	cp->has_ipv4 = !h->is_v6;
	cp->has_ipv6 = h->is_v6;
	if (h->is_v6)
		memcpy(&cp->ipv6, h->fa, 16);
	else
		memcpy(&cp->ipv4, h->fa, 4);
	cfg->engine.progress = UET_CONFIG_PROGRESS_AUTO;
}

static void
svc_limits(const struct uet_svc_hello_rep *h, const struct uet_ofi_win *w,
	   struct uet_ofi_svc_limits *lim)
{
	/* the buddy allocator's largest block: a power of two at offset 0 */
	uint64_t wmax = (uint64_t)1 << (63 - __builtin_clzll(h->window_len));

	lim->caps_off = FI_NAMED_RX_CTX; /* no PIDonFEP blocks */
	if (!(h->caps & UET_SVC_CAP_RMA))
		lim->caps_off |= FI_RMA | FI_ATOMIC | FI_READ | FI_WRITE |
				 FI_REMOTE_READ | FI_REMOTE_WRITE |
				 FI_RMA_EVENT;
	/* the largest chunk the window allocator can give */
	lim->max_msg = w != NULL ? uet_ofi_win_max(w) : wmax;
	if (h->max_msg != 0 && h->max_msg < lim->max_msg)
		lim->max_msg = h->max_msg;
}

int
uet_ofi_service_probe(struct uet_config *cfg, struct uet_ofi_svc_limits *lim)
{
	struct uet_svc_client *cl;
	int rc;

	rc = uet_svc_client_attach_uid(service_path(),
				       uet_ofi_params()->service_timeout_ms,
				       uet_ofi_params()->service_uid, &cl);
	if (rc < 0) {
		UET_OFI_REPORT(FI_LOG_CORE, "service %s: %s%s",
			       service_path(), strerror(-rc),
			       rc == -EPERM ? UNTRUSTED : "");
		return svc_errno(rc);
	}
	svc_config(uet_svc_client_hello(cl), cfg);
	svc_limits(uet_svc_client_hello(cl), NULL, lim);
	uet_svc_client_detach(cl);
	return 0;
}

/* ---- backend ---- */

static int
svc_start(struct uet_ofi_fabric *fab)
{
	const char *path = service_path();
	struct uet_ofi_svc *s = calloc(1, sizeof(*s));
	int rc;

	if (s == NULL)
		return -FI_ENOMEM;
	pthread_mutex_init(&s->win_lock, NULL);
	rc = uet_svc_client_attach_uid(path,
				       uet_ofi_params()->service_timeout_ms,
				       uet_ofi_params()->service_uid, &s->cl);
	if (rc < 0) {
		UET_OFI_REPORT(FI_LOG_FABRIC, "service %s: attach failed: %s%s",
			       path, strerror(-rc),
			       rc == -EPERM ? UNTRUSTED : "");
		goto free;
	}
	s->hello = uet_svc_client_hello(s->cl);
	s->win = uet_ofi_win_create(uet_svc_client_window(s->cl),
				    s->hello->window_len, SVC_WIN_SHIFT);
	if (s->win == NULL) {
		UET_OFI_REPORT(FI_LOG_FABRIC, "service %s: window of %llu "
			       "bytes unusable", path,
			       (unsigned long long)s->hello->window_len);
		rc = -EPROTO;
		goto detach;
	}
	svc_config(s->hello, &fab->cfg);
	svc_limits(s->hello, s->win, &fab->svc_lim);
	fab->inline_progress = false;
	fab->svc = s;
	FI_INFO(&uet_prov, FI_LOG_FABRIC,
		"attached to service %s: %u context(s), window %llu bytes, "
		"caps %#x\n", path, s->hello->nb_ctx,
		(unsigned long long)s->hello->window_len, s->hello->caps);
	return 0;

detach:
	uet_svc_client_detach(s->cl);
free:
	pthread_mutex_destroy(&s->win_lock);
	free(s);
	return svc_errno(rc);
}

static void
svc_stop(struct uet_ofi_fabric *fab)
{
	struct uet_ofi_svc *s = fab->svc;

	/* the service drops everything this process held with the socket */
	uet_svc_client_detach(s->cl);
	uet_ofi_win_free(s->win);
	pthread_mutex_destroy(&s->win_lock);
	free(s);
	fab->svc = NULL;
}

void
uet_ofi_service_progress(struct uet_ofi_fabric *fab)
{
	struct uet_ofi_svc *s = fab->svc;
	uint64_t now = now_ns();

	/* the service's lcores make progress; this only watches that it
	 * is still there, at most once per millisecond (one poll()) */
	if (now < atomic_load_explicit(&s->next_check_ns,
				       memory_order_relaxed))
		return;
	atomic_store_explicit(&s->next_check_ns, now + SVC_CHECK_NS,
			      memory_order_relaxed);
	if (uet_svc_client_check(s->cl) < 0 && !s->lost_logged) {
		s->lost_logged = true;
		FI_WARN(&uet_prov, FI_LOG_FABRIC,
			"service %s lost: operations in flight complete "
			"with -FI_EIO\n", service_path());
	}
}

static unsigned int
svc_ctx_pick(struct uet_ofi_fabric *fab)
{
	return atomic_fetch_add(&fab->svc->next_ctx, 1) %
	       fab->svc->hello->nb_ctx;
}

static int
svc_pid_request(struct uet_ofi_svc *s, unsigned int ctx, uint16_t want,
		uint16_t *pid, uint32_t *initiator)
{
	struct uet_svc_pid_get_req q = { .want = want, .ctx = (uint16_t)ctx };
	struct uet_svc_pid_get_rep r;
	int rc = uet_svc_client_request(s->cl, UET_SVC_OP_PID_GET, &q, &r);

	if (rc < 0)
		return svc_errno(rc);
	/* peer handles are per context: the pid must be on the domain's */
	if (r.ctx != ctx || r.pid == 0 || r.pid > UET_OFI_PID_MASK) {
		struct uet_svc_pid_put_req p = { .pid = r.pid };

		(void)uet_svc_client_request(s->cl, UET_SVC_OP_PID_PUT, &p,
					     NULL);
		return -FI_EOTHER;
	}
	*pid = r.pid;
	*initiator = r.initiator;
	return 0;
}

/* The domain's default identity: the context's PIDonFEP of this process
 * (taken from the service by the first domain on the context). */
static int
svc_identity(struct uet_ofi_fabric *fab, unsigned int ctx, uint16_t *pid,
	     uint32_t *initiator)
{
	struct uet_ofi_svc *s = fab->svc;
	int rc = 0;

	if (ctx >= s->hello->nb_ctx)
		return -FI_EINVAL;
	pthread_mutex_lock(&fab->ctl_lock);
	if (s->ctx_pid[ctx] == 0)
		rc = svc_pid_request(s, ctx, 0, &s->ctx_pid[ctx],
				     &s->ctx_initiator[ctx]);
	*pid = s->ctx_pid[ctx];
	*initiator = s->ctx_initiator[ctx];
	pthread_mutex_unlock(&fab->ctl_lock);
	return rc;
}

static int
svc_pid_get(struct uet_ofi_fabric *fab, unsigned int ctx, const void *owner,
	    uint16_t want, uint16_t *pid, uint32_t *initiator)
{
	struct uet_ofi_svc *s = fab->svc;
	int rc;

	if (ctx >= s->hello->nb_ctx || want > UET_OFI_PID_MASK)
		return -FI_EINVAL;
	pthread_mutex_lock(&fab->ctl_lock);
	if (fab->ctx_owner[ctx] == NULL && s->ctx_pid[ctx] != 0 &&
	    (want == 0 || want == s->ctx_pid[ctx])) {
		fab->ctx_owner[ctx] = owner;
		*pid = s->ctx_pid[ctx];
		*initiator = s->ctx_initiator[ctx];
		rc = 0;
	} else {
		rc = svc_pid_request(s, ctx, want, pid, initiator);
	}
	pthread_mutex_unlock(&fab->ctl_lock);
	if (rc == -EADDRINUSE || rc == -ENOSPC)
		FI_WARN(&uet_prov, FI_LOG_EP_CTRL, "service: PIDonFEP %u: %s\n",
			want, fi_strerror(-rc));
	else if (rc == -EINVAL && want != 0)
		/* a source port (FI_SOURCE service) is PIDonFEP port & 0xfff;
		 * the service hands out those of its clients' window only */
		UET_OFI_REPORT(FI_LOG_EP_CTRL,
			       "service: PIDonFEP %u (a source port's low 12 "
			       "bits) is not in the service's client window: "
			       "open the endpoint without a source port", want);
	return rc;
}

static void
svc_pid_put(struct uet_ofi_fabric *fab, unsigned int ctx, const void *owner,
	    uint16_t pid)
{
	struct uet_ofi_svc *s = fab->svc;
	struct uet_svc_pid_put_req q = { .pid = pid };

	pthread_mutex_lock(&fab->ctl_lock);
	if (ctx < UET_ENGINE_LCORES_MAX && fab->ctx_owner[ctx] == owner)
		fab->ctx_owner[ctx] = NULL; /* the context's: kept */
	else
		(void)uet_svc_client_request(s->cl, UET_SVC_OP_PID_PUT, &q,
					     NULL);
	pthread_mutex_unlock(&fab->ctl_lock);
}

/* Named receive contexts need a block of PIDonFEPs: not offered by the
 * service (fi_getinfo leaves FI_NAMED_RX_CTX out). */
static int
svc_pid_block(struct uet_ofi_fabric *fab, uint16_t want, unsigned int n,
	      uint16_t *pid, uint32_t *initiator)
{
	(void)fab; (void)want; (void)n; (void)pid; (void)initiator;
	return -FI_EOPNOTSUPP;
}

static void
svc_pid_block_put(struct uet_ofi_fabric *fab, uint16_t pid, unsigned int n)
{
	(void)fab; (void)pid; (void)n;
}

/* A control request of the in-process engine, as a service message. */
static int
svc_ctl(struct uet_ofi_fabric *fab, unsigned int ctx,
	struct uet_ses_ulp_ctl *req)
{
	struct uet_ofi_svc *s = fab->svc;
	uint16_t own = ctx < UET_SVC_CTX_MAX ? s->ctx_pid[ctx] : 0;
	int rc;

	switch (req->op) {
	case UET_SES_ULP_JOB_ADD:
	case UET_SES_ULP_JOB_DEL: {
		struct uet_svc_job_req q = {
			.job = req->job, .pid = req->has_pid ? req->pid : own,
		};

		rc = uet_svc_client_request(s->cl, req->op ==
					    UET_SES_ULP_JOB_ADD ?
					    UET_SVC_OP_JOB_ADD :
					    UET_SVC_OP_JOB_DEL, &q, NULL);
		break;
	}
	case UET_SES_ULP_PEER_ADD: {
		struct uet_svc_peer_add_req q = { .ctx = (uint16_t)ctx,
						  .peer = req->peer };
		struct uet_svc_peer_add_rep r;

		rc = uet_svc_client_request(s->cl, UET_SVC_OP_PEER_ADD, &q, &r);
		if (rc == 0)
			req->handle = r.handle;
		break;
	}
	case UET_SES_ULP_PEER_DEL: {
		struct uet_svc_peer_del_req q = { .handle = req->handle,
						  .ctx = (uint16_t)ctx };

		rc = uet_svc_client_request(s->cl, UET_SVC_OP_PEER_DEL, &q,
					    NULL);
		break;
	}
	case UET_SES_ULP_MR_REG: {
		struct uet_svc_mr_reg_req q = {
			.addr = (uint64_t)req->base, .len = req->len,
			.access = req->access, .job = req->job, .pid = own,
			.idempotent = req->idempotent,
			.disabled = req->disabled,
		};
		struct uet_svc_mr_reg_rep r;

		rc = uet_svc_client_request(s->cl, UET_SVC_OP_MR_REG, &q, &r);
		if (rc == 0)
			req->key = r.key;
		break;
	}
	case UET_SES_ULP_MR_DEREG:
	case UET_SES_ULP_MR_ENABLE: {
		struct uet_svc_mr_key_req q = {
			.key = req->key, .pid = own,
			.disabled = req->op == UET_SES_ULP_MR_ENABLE &&
				    req->disabled,
		};

		rc = uet_svc_client_request(s->cl, req->op ==
					    UET_SES_ULP_MR_DEREG ?
					    UET_SVC_OP_MR_DEREG :
					    UET_SVC_OP_MR_ENABLE, &q, NULL);
		break;
	}
	default:
		/* EP_ADD / EP_DEL: CHAN_OPEN / CHAN_CLOSE do it */
		return -FI_ENOSYS;
	}
	/* what a dead service held went with it: releasing succeeds */
	if (rc == -ENOTCONN && (req->op == UET_SES_ULP_JOB_DEL ||
				req->op == UET_SES_ULP_PEER_DEL ||
				req->op == UET_SES_ULP_MR_DEREG))
		rc = 0;
	req->rc = rc;
	if (rc == -ENOTCONN && svc_lost(s))
		return -FI_EIO; /* said once, by the progress call or here */
	if (rc == -ENOTCONN || rc == -EPROTO || rc == -ETIMEDOUT) {
		FI_WARN(&uet_prov, FI_LOG_DOMAIN,
			"service request %u: %s\n", req->op, strerror(-rc));
		return svc_errno(rc);
	}
	return rc;
}

static int
svc_chan_open(struct uet_ofi_fabric *fab, struct uet_ofi_ep *ep,
	      struct uet_chan **chan)
{
	struct uet_ofi_svc *s = fab->svc;
	size_t sq = ep->rx_only ? 1 : ep->tx_size;
	size_t rq = ep->tx_only ? 1 : ep->rx_size;
	struct uet_svc_chan_open_req q = {
		.pid = ep->pid,
		.remote_events = ep->cntr[UET_OFI_CNTR_REM_READ] != NULL ||
				 ep->cntr[UET_OFI_CNTR_REM_WRITE] != NULL,
		.profile = (uint8_t)ep->dom->profile,
		/* one poster and one poller at a time: the endpoint lock,
		 * as in-process (no UET_CHAN_MP_SUBMIT) */
		.flags = 0,
		.sq_size = uet_ofi_ring_size(sq, s->hello->ring_max),
		.rq_size = uet_ofi_ring_size(rq, s->hello->ring_max),
		.cq_size = uet_ofi_ring_size(sq + rq, s->hello->ring_max),
	};
	struct uet_svc_chan_open_rep r;
	struct svc_chan *sc;
	char name[24];
	int rc;

	sc = calloc(1, sizeof(*sc));
	if (sc == NULL)
		return -FI_ENOMEM;
	rc = uet_svc_client_request(s->cl, UET_SVC_OP_CHAN_OPEN, &q, &r);
	if (rc < 0) {
		FI_WARN(&uet_prov, FI_LOG_EP_CTRL,
			"service: channel open failed: %s\n", strerror(-rc));
		free(sc);
		return svc_errno(rc);
	}
	snprintf(name, sizeof(name), "sf%x.%x", ep->dom->id & 0xFFF,
		 r.slot & 0xFFF);
	rc = uet_svc_client_chan_map(s->cl, name, &q, &r, &sc->c);
	if (rc < 0 || r.ctx != ep->dom->ctx) {
		struct uet_svc_chan_close_req c = { .slot = r.slot };

		FI_WARN(&uet_prov, FI_LOG_EP_CTRL, "service: channel %u "
			"unusable (%s)\n", r.slot,
			rc < 0 ? strerror(-rc) : "not on the domain's context");
		(void)uet_svc_client_request(s->cl, UET_SVC_OP_CHAN_CLOSE, &c,
					     NULL);
		free(sc);
		return -FI_EOTHER;
	}
	sc->slot = r.slot;
	ep->svc = s;
	*chan = &sc->c;
	return 0;
}

/* CHAN_CLOSE: the service detaches the channel and withdraws what it
 * still holds of it; after the reply it touches none of its chunks. */
static void
svc_chan_detach(struct uet_ofi_fabric *fab, struct uet_ofi_ep *ep)
{
	struct svc_chan *sc = container_of(ep->chan, struct svc_chan, c);
	struct uet_svc_chan_close_req q = { .slot = sc->slot };

	(void)uet_svc_client_request(fab->svc->cl, UET_SVC_OP_CHAN_CLOSE, &q,
				     NULL);
}

static void
svc_chan_free(struct uet_ofi_fabric *fab, struct uet_ofi_ep *ep)
{
	(void)fab;
	free(container_of(ep->chan, struct svc_chan, c));
}

const struct uet_ofi_backend uet_ofi_backend_service = {
	.name = "service",
	.start = svc_start,
	.stop = svc_stop,
	.ctx_pick = svc_ctx_pick,
	.identity = svc_identity,
	.pid_get = svc_pid_get,
	.pid_put = svc_pid_put,
	.pid_block = svc_pid_block,
	.pid_block_put = svc_pid_block_put,
	.ctl = svc_ctl,
	.chan_open = svc_chan_open,
	.chan_detach = svc_chan_detach,
	.chan_free = svc_chan_free,
};

/* ---- data: copies through the window ---- */

static uint64_t
align_up(uint64_t n)
{
	return (n + SVC_ALIGN - 1) & ~(uint64_t)(SVC_ALIGN - 1);
}

static int
win_get(struct uet_ofi_svc *s, uint64_t len, uint64_t *off)
{
	int rc;

	pthread_mutex_lock(&s->win_lock);
	rc = uet_ofi_win_alloc(s->win, len, off);
	pthread_mutex_unlock(&s->win_lock);
	if (rc == -EMSGSIZE)
		return -FI_EMSGSIZE;
	return rc == -EAGAIN ? -FI_EAGAIN : rc;
}

static void
win_put(struct uet_ofi_svc *s, uint64_t off)
{
	pthread_mutex_lock(&s->win_lock);
	(void)uet_ofi_win_release(s->win, off);
	pthread_mutex_unlock(&s->win_lock);
}

static uint8_t *
win_ptr(const struct uet_ofi_svc *s, uint64_t off)
{
	return s->win->base + off;
}

/* Remember the application's entries: received bytes go there. */
static void
req_scatter_set(struct uet_ofi_req *r, const struct iovec *iov, size_t n)
{
	r->scatter = 1;
	r->nb_iov = (uint8_t)n;
	for (size_t i = 0; i < n; i++) {
		r->iov[i].addr = (uint64_t)(uintptr_t)iov[i].iov_base;
		r->iov[i].len = iov[i].iov_len;
	}
}

int
uet_ofi_service_sqe(struct uet_ofi_ep *ep, struct uet_ofi_req *r,
		    struct uet_chan_sqe *sqe, const struct iovec *iov,
		    size_t count, uint64_t flags)
{
	struct uet_ofi_svc *s = ep->svc;
	bool inbound = sqe->op == UET_CHAN_OP_READ;
	bool fetch = sqe->op == UET_CHAN_OP_FETCH_ATOMIC ||
		     sqe->op == UET_CHAN_OP_CSWAP;
	bool cmp = sqe->op == UET_CHAN_OP_CSWAP;
	uint64_t total = 0, need, off = 0;
	uint8_t *p;
	int rc;

	if (svc_lost(s))
		return -FI_EIO;
	if (count > UET_OFI_IOV_MAX || (count > 0 && iov == NULL))
		return -FI_EINVAL;
	for (size_t i = 0; i < count; i++)
		total += iov[i].iov_len;
	/* payload | compare operand | fetched values, each as long as the
	 * operands (fi_atomic(3): one count for all three) */
	need = align_up(total) * (1 + cmp + fetch);
	sqe->local_desc = 0;
	if (flags & FI_INJECT)
		sqe->flags |= UET_CHAN_F_INJECT;
	if (need == 0) {
		sqe->addr = 0;
		sqe->len = 0;
		return 0;
	}
	rc = win_get(s, need, &off);
	if (rc < 0)
		return rc;
	p = win_ptr(s, off);
	if (inbound) {
		req_scatter_set(r, iov, count);
	} else {
		for (size_t i = 0; i < count; i++) {
			memcpy(p, iov[i].iov_base, iov[i].iov_len);
			p += iov[i].iov_len;
		}
	}
	if (cmp) {
		memcpy(win_ptr(s, off + align_up(total)),
		       (const void *)(uintptr_t)sqe->compare, total);
		sqe->compare = off + align_up(total);
	}
	if (fetch) {
		r->result = (void *)(uintptr_t)sqe->result;
		r->result_off = align_up(total) * (1 + cmp);
		r->result_len = total;
		sqe->result = off + r->result_off;
	}
	r->win_off = off;
	r->win_len = need;
	sqe->addr = off;
	sqe->len = total;
	return 0;
}

int
uet_ofi_service_rqe(struct uet_ofi_ep *ep, struct uet_ofi_req *r,
		    struct uet_chan_rqe *rqe, const struct iovec *iov,
		    size_t count, uint64_t flags)
{
	struct uet_ofi_svc *s = ep->svc;
	uint64_t total = 0, off;
	int rc;

	if (svc_lost(s))
		return -FI_EIO;
	if (count > UET_OFI_IOV_MAX || (count > 0 && iov == NULL))
		return -FI_EINVAL;
	/* a claim reuses the request of its peek: its chunk goes first */
	uet_ofi_service_release(ep, r);
	for (size_t i = 0; i < count; i++)
		total += iov[i].iov_len;
	rqe->local_desc = 0;
	rqe->addr = 0;
	rqe->len = total;
	/* a peek lands nothing (the claim that follows gets a chunk) */
	if (total == 0 || (flags & FI_PEEK))
		return 0;
	rc = win_get(s, total, &off);
	if (rc < 0)
		return rc;
	req_scatter_set(r, iov, count);
	r->win_off = off;
	r->win_len = total;
	rqe->addr = off;
	return 0;
}

bool
uet_ofi_service_lost(const struct uet_ofi_ep *ep)
{
	return svc_lost(ep->svc);
}

void
uet_ofi_service_release(struct uet_ofi_ep *ep, struct uet_ofi_req *r)
{
	if (r->win_len == 0)
		return;
	win_put(ep->svc, r->win_off);
	r->win_len = 0;
	r->result = NULL;
	r->scatter = 0;
	r->nb_iov = 0;
}

/* @p len bytes at @p at in the chunk, over the application's entries
 * from byte @p at on. */
static void
scatter_out(struct uet_ofi_svc *s, const struct uet_ofi_req *r, uint64_t at,
	    uint64_t len)
{
	const uint8_t *src = win_ptr(s, r->win_off + at);
	uint64_t pos = 0;

	if (at > r->win_len || len > r->win_len - at)
		return; /* a length the service made up: nothing copied */
	for (unsigned int i = 0; i < r->nb_iov && len > 0; i++) {
		uint64_t e = r->iov[i].len, skip, n;

		if (at >= pos + e) {
			pos += e;
			continue;
		}
		skip = at > pos ? at - pos : 0;
		n = RTE_MIN(e - skip, len);
		memcpy((uint8_t *)(uintptr_t)r->iov[i].addr + skip, src, n);
		src += n;
		at += n;
		len -= n;
		pos += e;
	}
}

void
uet_ofi_service_complete(struct uet_ofi_ep *ep, struct uet_ofi_req *r,
			 const struct uet_chan_cqe *c, bool final)
{
	struct uet_ofi_svc *s = ep->svc;
	bool landed = c->status == 0 || (c->flags & UET_CHAN_CQ_TRUNC);

	if (r->win_len == 0)
		return;
	/* received data (a multi-receive buffer's message starts at its
	 * offset, c->tag) and READ results */
	if (r->scatter && landed)
		scatter_out(s, r, r->cq_reserved == 2 ? c->tag : 0, c->len);
	if (r->result != NULL && c->status == 0)
		memcpy(r->result, win_ptr(s, r->win_off + r->result_off),
		       r->result_len);
	if (final)
		uet_ofi_service_release(ep, r);
}

/*
 * The service is gone: what it held will never complete. Every request
 * in flight completes now with -FI_EIO (prov_errno "service lost"), once.
 */
void
uet_ofi_service_fail(struct uet_ofi_ep *ep,
		     bool (*deliver)(struct uet_ofi_ep *,
				     const struct uet_chan_cqe *))
{
	if (ep->svc_failed)
		return;
	ep->svc_failed = true;
	for (uint32_t i = 0; i < ep->nb_reqs; i++) {
		struct uet_ofi_req *r = &ep->reqs[i];
		struct uet_chan_cqe c = {
			.context = i + 1, .status = -EIO,
			.prov_errno = UET_OFI_PROV_SERVICE_LOST,
			.flags = r->rx ? UET_CHAN_CQ_RECV : UET_CHAN_CQ_SEND,
		};

		if (r->busy && !r->claimed)
			(void)deliver(ep, &c);
	}
}
