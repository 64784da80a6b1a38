/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_OFI_PRIV_H
#define UET_OFI_PRIV_H

/*
 * Private header of the libfabric provider "uet": one object per file
 * (uet_fabric.c, uet_domain.c, ...), objects found from their fid with
 * container_of. Lock order: fabric progress lock -> CQ/counter binding
 * lock -> endpoint lock -> CQ lock / counter. Nothing else nests.
 */

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <rdma/fabric.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_tagged.h>
#include <rdma/fi_trigger.h>
#include <rdma/providers/fi_log.h>
#include <rdma/providers/fi_prov.h>

#include <uet/uet_chan.h>
#include <uet/uet_engine.h>
#include <uet/uet_ses_ulp.h>
#include <uet/uet_ulp.h>
#include <uet/uet_config.h>
#include <uet/uet_clock.h>
#include <uet/uet_ofi.h>
#include <uet/uet_pow2.h>
#include <uet/uet_wire.h>

#define UET_OFI_NAME "uet"
#define UET_OFI_FABRIC_NAME "uet"
#define UET_OFI_PROV_VERSION FI_VERSION(0, 1)
#define UET_OFI_API_VERSION FI_VERSION(1, 17)

/* Limits advertised by fi_getinfo (docs/PROVIDER.md). */
#define UET_OFI_IOV_MAX 4
#define UET_OFI_INJECT_MAX 64
/* bounce buffers per endpoint for multi-entry iovs (IOV_BOUNCE_SIZE) */
#define UET_OFI_BOUNCE_COUNT 8
#define UET_OFI_TX_SIZE_DEF 1024
#define UET_OFI_RX_SIZE_DEF 1024
#define UET_OFI_QUEUE_MAX 16384
#define UET_OFI_CQ_SIZE_DEF 2048
#define UET_OFI_CQ_SIZE_MAX (1u << 20)
#define UET_OFI_EQ_SIZE_DEF 256
#define UET_OFI_CTX_MAX 16
#define UET_OFI_EP_MAX 1024
#define UET_OFI_CQ_MAX 1024
#define UET_OFI_CNTR_MAX 1024
#define UET_OFI_MR_MAX 65536
#define UET_OFI_MSG_MAX UINT64_C(0xFFFFFFFF)
#define UET_OFI_RI_DEF 4        /* resource indices per endpoint */
/* Bytes of headers below the payload in one packet (IPv4/UDP, PDS, SES) */
#define UET_OFI_PKT_OVERHEAD 128
#define UET_OFI_PORT_BASE 0xC000 /* FI_SOCKADDR_IN port = base | PIDonFEP */
#define UET_OFI_PID_MASK 0xFFFu
#define UET_OFI_JOB_MASK 0xFFFFFFu
#define UET_OFI_MKEY_VENDOR 0x55 /* vendor byte of provider keys ('U') */

#ifndef container_of
#define container_of(ptr, type, member) \
	((type *)(void *)((char *)(ptr) - offsetof(type, member)))
#endif

extern struct fi_provider uet_prov;

/*
 * A setup failure the user has to act on (configuration rejected, EAL or
 * port not coming up): logged at WARN when libfabric's log shows warnings,
 * otherwise as an error on the DPDK log (stderr by default), so that it is
 * seen without raising FI_LOG_LEVEL. No trailing newline in @p fmt.
 */
void uet_ofi_report(enum fi_log_subsys subsys, const char *func, int line,
		    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
#define UET_OFI_REPORT(subsys, ...) \
	uet_ofi_report(subsys, __func__, __LINE__, __VA_ARGS__)
/* @p rc (-errno) as a libfabric return code: the errno itself when
 * libfabric has it (FI_E* below FI_ERRNO_OFFSET are errno values). */
static inline int
uet_ofi_errno(int rc)
{
	return rc < 0 && -rc < FI_ERRNO_OFFSET ? rc : -FI_EOTHER;
}

/* Size of a channel ring for @p n entries: an rte_ring of size p holds
 * p - 1, so the power of two above @p n, at least 2, at most @p cap (a
 * power of two). */
static inline uint32_t
uet_ofi_ring_size(size_t n, uint32_t cap)
{
	if (n >= cap)
		return cap;
	return n < 2 ? 2 : uet_pow2_ceil((uint32_t)n + 1);
}

/* ------------------------------------------------------------------ */
/* Parameters (uet_params.c): read once at fi_prov_ini, then constant   */
/* ------------------------------------------------------------------ */

/* provider_poll_yield_spin's default, us: longer than a round trip of
 * the AUTO ping-pong (docs/PERFORMANCE.md "AUTO against INLINE") */
#define UET_OFI_POLL_YIELD_SPIN_US 50

struct uet_ofi_params {
	char service_path[256];
	unsigned int service_timeout_ms; /* bound of one service request */
	/* a service uid trusted besides root and ours (UINT32_MAX: none) */
	uint32_t service_uid;
	size_t msg_rdzv_size;
	size_t tagged_rdzv_size;
	size_t max_eager_size;
	int def_data_dc;          /* default delivery: 0 RUD, 1 ROD */
	bool fallback_job;        /* use fallback_job_id without auth_key */
	uint32_t fallback_job_id;
	bool has_initiator_id;
	uint32_t initiator_id;
	char eal_args[256];       /* "" -> the config file's [eal] args */
	bool inline_progress;     /* progress = inline */
	bool poll_yield;          /* AUTO: empty fi_cq_read yields the CPU */
	uint64_t poll_yield_spin_ns; /* ... once its thread found nothing
				      * for this long, while its yields
				      * run no other thread (0: at once) */
	size_t iov_bounce_size;   /* bytes of a multi-entry iov bounce */
	char config_path[256];    /* "" -> built-in defaults */
	/* RDM profiles fi_getinfo lists: bit (1 << enum uet_wire_profile); 0
	 * when PROFILES was malformed (then nothing is listed) */
	unsigned int rdm_profiles;
	bool has_local_rank;      /* LOCAL_RANK set */
	unsigned int local_rank;
};

void uet_ofi_params_init(void);

/* uet_config_tokens.c: per-process tokens (%r, %p, %{a,b}) of the
 * configuration file expanded, then uet_config_load() */
int uet_ofi_config_load(struct uet_config *cfg, const char *path,
			struct uet_config_error *err, bool *service_set);
/* The local rank (LOCAL_RANK, else the launcher's); -ENOENT if none. */
int uet_ofi_local_rank(long *rank);
const struct uet_ofi_params *uet_ofi_params(void);

/* ------------------------------------------------------------------ */
/* Locks: no-ops for FI_THREAD_DOMAIN objects                          */
/* ------------------------------------------------------------------ */

struct uet_ofi_lock {
	pthread_mutex_t m;
	bool on;
};

static inline void
uet_ofi_lock_init(struct uet_ofi_lock *l, bool on)
{
	pthread_mutex_init(&l->m, NULL);
	l->on = on;
}

static inline void
uet_ofi_lock_fini(struct uet_ofi_lock *l)
{
	pthread_mutex_destroy(&l->m);
}

static inline void
uet_ofi_lock(struct uet_ofi_lock *l)
{
	if (l->on)
		pthread_mutex_lock(&l->m);
}

static inline void
uet_ofi_unlock(struct uet_ofi_lock *l)
{
	if (l->on)
		pthread_mutex_unlock(&l->m);
}

/* ------------------------------------------------------------------ */
/* enosys stubs (uet_enosys.c)                                          */
/* ------------------------------------------------------------------ */

extern const struct fi_ops_cm uet_ofi_cm_enosys;
extern const struct fi_ops_msg uet_ofi_msg_enosys;
extern const struct fi_ops_tagged uet_ofi_tagged_enosys;
extern const struct fi_ops_rma uet_ofi_rma_enosys;
extern const struct fi_ops_atomic uet_ofi_atomic_enosys;
extern const struct fi_ops_collective uet_ofi_coll_enosys;

int uet_ofi_fid_bind_enosys(struct fid *fid, struct fid *bfid,
			    uint64_t flags);
int uet_ofi_fid_control_enosys(struct fid *fid, int command, void *arg);
int uet_ofi_fid_ops_open_enosys(struct fid *fid, const char *name,
				uint64_t flags, void **ops, void *context);
int uet_ofi_fid_tostr_enosys(const struct fid *fid, char *buf, size_t len);
int uet_ofi_fid_ops_set_enosys(struct fid *fid, const char *name,
			       uint64_t flags, void *ops, void *context);

/* ------------------------------------------------------------------ */
/* Addresses (uet_addr.c)                                              */
/* ------------------------------------------------------------------ */

struct uet_ofi_port_info {
	unsigned int index;    /* engine port index */
	bool has_ipv4, has_ipv6;
	uint8_t ipv4[4];
	uint8_t ipv6[16];
	uint16_t mtu;
};

size_t uet_ofi_addrlen(uint32_t addr_format);
/* FI_SOCKADDR_IN, or FI_SOCKADDR (read as an AF_INET sockaddr_in) */
bool uet_ofi_fmt_sin(uint32_t addr_format);
/* The format an address is in, from its first bytes: FI_SOCKADDR_IN,
 * FI_SOCKADDR_IN6, UET_OFI_ADDR_FORMAT or FI_FORMAT_UNSPEC (@p in holds
 * at least 2 bytes). */
uint32_t uet_ofi_addr_format_of(const void *in);
const char *uet_ofi_addr_format_name(uint32_t addr_format);
uint32_t uet_ofi_initiator_default(const struct uet_ofi_addr *a);
void uet_ofi_addr_make(struct uet_ofi_addr *a, const uint8_t *fa,
		       bool ipv6, uint16_t pid, enum uet_wire_profile profile,
		       uint16_t caps);
int uet_ofi_addr_from_sin(const void *sin, size_t len,
			  enum uet_wire_profile profile, uint16_t caps,
			  struct uet_ofi_addr *a);
int uet_ofi_addr_to_sin(const struct uet_ofi_addr *a, void *sin,
			size_t *len);
int uet_ofi_addr_check(const struct uet_ofi_addr *a);
/* Copy @a in @p format into @p out, honouring *len like fi_getname. */
int uet_ofi_addr_export(const struct uet_ofi_addr *a, uint32_t format,
			void *out, size_t *len);
/* Read one address of @p format at @p in. */
int uet_ofi_addr_import(const void *in, size_t len, uint32_t format,
			enum uet_wire_profile profile, uint16_t caps,
			struct uet_ofi_addr *a);
const char *uet_ofi_addr_str(const struct uet_ofi_addr *a, char *buf,
			     size_t *len);
uint16_t uet_ofi_addr_pid(const struct uet_ofi_addr *a);
/* The capability bits (UET_OFI_ADDR_C_*) an address of an endpoint with
 * @p caps, of @p type, in a @p prof domain advertises: fi_getinfo's
 * src_addr and the endpoint's fi_getname agree. */
uint16_t uet_ofi_addr_caps(uint64_t caps, enum fi_ep_type type,
			   enum uet_wire_profile prof);
/* Resolve node/service (numeric or names) to an IPv4 sockaddr. */
int uet_ofi_resolve(const char *node, const char *service, void *sin);

/* ------------------------------------------------------------------ */
/* getinfo (uet_getinfo.c)                                             */
/* ------------------------------------------------------------------ */

int uet_ofi_getinfo(uint32_t version, const char *node, const char *service,
		    uint64_t flags, const struct fi_info *hints,
		    struct fi_info **info);
/* Profile from a domain name suffix; 0 when none. */
enum uet_wire_profile uet_ofi_profile_of_name(const char *name);
const char *uet_ofi_profile_suffix(enum uet_wire_profile p);
uint64_t uet_ofi_profile_caps(enum uet_wire_profile p, enum fi_ep_type type);
/* The configuration getinfo and fabric use. */
int uet_ofi_config_get(struct uet_config *cfg);

/* ------------------------------------------------------------------ */
/* Fabric (uet_fabric.c; backends: uet_local.c, uet_service.c)         */
/* ------------------------------------------------------------------ */

struct uet_ofi_fabric;
struct uet_ofi_ep;
struct uet_ofi_svc;

/*
 * Where the engine runs (docs/PROVIDER.md "Deployments"), chosen once at
 * fi_fabric(): in this process (uet_local.c: EAL, engine, channels in
 * hugepage memory) or in a uet-engine service the provider attaches to
 * (uet_service.c: UNIX socket, channels and a data window in memory the
 * service shares). The uet_ofi_fabric_* functions below dispatch through
 * it; the rest of the provider does not know which one it talks to.
 */
struct uet_ofi_backend {
	const char *name;
	int (*start)(struct uet_ofi_fabric *fab);
	void (*stop)(struct uet_ofi_fabric *fab);
	unsigned int (*ctx_pick)(struct uet_ofi_fabric *fab);
	int (*identity)(struct uet_ofi_fabric *fab, unsigned int ctx,
			uint16_t *pid, uint32_t *initiator);
	int (*pid_get)(struct uet_ofi_fabric *fab, unsigned int ctx,
		       const void *owner, uint16_t want, uint16_t *pid,
		       uint32_t *initiator);
	void (*pid_put)(struct uet_ofi_fabric *fab, unsigned int ctx,
			const void *owner, uint16_t pid);
	int (*pid_block)(struct uet_ofi_fabric *fab, uint16_t want,
			 unsigned int n, uint16_t *pid, uint32_t *initiator);
	void (*pid_block_put)(struct uet_ofi_fabric *fab, uint16_t pid,
			      unsigned int n);
	int (*ctl)(struct uet_ofi_fabric *fab, unsigned int ctx,
		   struct uet_ses_ulp_ctl *req);
	/* the endpoint's channel, bound to its process (EP_ADD) and
	 * attached to its engine context */
	int (*chan_open)(struct uet_ofi_fabric *fab, struct uet_ofi_ep *ep,
			 struct uet_chan **chan);
	/* stop serving it (its receives are withdrawn) */
	void (*chan_detach)(struct uet_ofi_fabric *fab, struct uet_ofi_ep *ep);
	/* unbind (EP_DEL) and free it */
	void (*chan_free)(struct uet_ofi_fabric *fab, struct uet_ofi_ep *ep);
};

extern const struct uet_ofi_backend uet_ofi_backend_local;
extern const struct uet_ofi_backend uet_ofi_backend_service;

/* What a service offers less than an in-process engine (fi_getinfo and
 * endpoint caps): capabilities it cannot serve, the largest message the
 * data window holds. */
struct uet_ofi_svc_limits {
	uint64_t caps_off;
	uint64_t max_msg;
};

/* prov_errno of operations that the service's death ended (-FI_EIO);
 * fi_cq_strerror: "service lost" */
#define UET_OFI_PROV_SERVICE_LOST 0x10000

/* uet_service.c: a service is configured (FI_UET_PROVIDER_SERVICE_PATH,
 * else a [service] socket written in the provider's configuration file):
 * fi_fabric attaches to it instead of starting an engine */
bool uet_ofi_service_configured(void);
/* HELLO of the service: its port as a configuration, and its limits */
int uet_ofi_service_probe(struct uet_config *cfg,
			  struct uet_ofi_svc_limits *lim);
/* progress call on a service-backed fabric: liveness only */
void uet_ofi_service_progress(struct uet_ofi_fabric *fab);

/*
 * The process's engine (or its attachment to the service): one per
 * process, shared by every fi_fabric() of the process (Open MPI's mtl and
 * btl, a library beside the application), created by the first and
 * stopped when the last is closed. Two engines of one process would claim
 * the same port (EBUSY) and split the PIDonFEPs.
 */
struct uet_ofi_fabric {
	unsigned int opens;          /* handles on it (fabric.c's lock) */
	const struct uet_ofi_backend *be;
	struct uet_ofi_svc *svc;     /* service backend state; NULL local */
	struct uet_ofi_svc_limits svc_lim; /* service backend */
	struct uet_config cfg;
	struct uet_engine *engine;
	bool inline_progress;
	unsigned int id;
	unsigned int next_lcore;     /* round-robin domain placement */
	pthread_mutex_t ctl_lock;    /* engine control (attach, stop) */
	pthread_mutex_t progress_lock; /* inline uet_engine_poll */
	atomic_uint chan_seq;
	/* a DGRAM endpoint was opened: the close lingers longer (fabric.c) */
	atomic_bool dgram;
	struct uet_proto_params proto; /* hook argument: PDS + SES ULP */
	struct uet_ses_ulp_params sul;
	/* the endpoint (or scalable endpoint) that has each context's own
	 * PIDonFEP; further endpoints get one of the extra PIDonFEPs */
	const void *ctx_owner[UET_ENGINE_LCORES_MAX];
	/* PIDonFEPs held by endpoints that do not own a context's own */
	uint64_t pid_busy[(UET_OFI_PID_MASK + 1) / 64];
};

/* What one fi_fabric() returns: a handle on the process's engine, with
 * the application's context and API version. */
struct uet_ofi_fabric_hdl {
	struct fid_fabric fabric_fid;
	struct uet_ofi_fabric *fab;
	atomic_int ref;              /* domains and EQs opened on it */
};

int uet_ofi_fabric_open(struct fi_fabric_attr *attr,
			struct fid_fabric **fabric, void *context);
/* Progress from an application thread: INLINE runs the engine; AUTO runs
 * the contexts whose lcore sleeps (uet_engine_progress()). */
void uet_ofi_fabric_progress(struct uet_ofi_fabric *fab);
/* The same after a transmit post; INLINE: until its frames left, unless a
 * TX queue refused them (uet_engine_flush()). */
void uet_ofi_fabric_progress_post(struct uet_ofi_fabric *fab);
/* Engine context for a new domain (round robin). */
unsigned int uet_ofi_fabric_ctx_pick(struct uet_ofi_fabric *fab);
/* A PIDonFEP and initiator id for endpoint @p owner on context @p ctx.
 * @p want 0: the context's own when free, else an extra one (-FI_ENOSPC:
 * none); otherwise exactly PIDonFEP @p want (the service an application
 * bound with FI_SOURCE), -FI_EADDRINUSE when another endpoint or context
 * has it. */
int uet_ofi_fabric_pid_get(struct uet_ofi_fabric *fab, unsigned int ctx,
			   const void *owner, uint16_t want, uint16_t *pid,
			   uint32_t *initiator);
void uet_ofi_fabric_pid_put(struct uet_ofi_fabric *fab, unsigned int ctx,
			    const void *owner, uint16_t pid);
/* @p n consecutive extra PIDonFEPs (a scalable endpoint whose receive
 * contexts are named: context i is the first + i), from @p want or the
 * first free run; -FI_EADDRINUSE, -FI_ENOSPC. */
int uet_ofi_fabric_pid_block(struct uet_ofi_fabric *fab, uint16_t want,
			     unsigned int n, uint16_t *pid,
			     uint32_t *initiator);
void uet_ofi_fabric_pid_block_put(struct uet_ofi_fabric *fab, uint16_t pid,
				  unsigned int n);
/* Run a control request on engine context @p ctx (uet_ses_ulp_ctl);
 * returns its rc (0 or -errno) or -FI_EOTHER when unanswered. */
int uet_ofi_fabric_ctl(struct uet_ofi_fabric *fab, unsigned int ctx,
		       struct uet_ses_ulp_ctl *req);
/* PIDonFEP and initiator id of engine context @p ctx (a domain's
 * default identity). */
int uet_ofi_fabric_identity(struct uet_ofi_fabric *fab, unsigned int ctx,
			    uint16_t *pid, uint32_t *initiator);
int uet_ofi_fabric_chan_open(struct uet_ofi_fabric *fab,
			     struct uet_ofi_ep *ep);
void uet_ofi_fabric_chan_detach(struct uet_ofi_fabric *fab,
				struct uet_ofi_ep *ep);
void uet_ofi_fabric_chan_free(struct uet_ofi_fabric *fab,
			      struct uet_ofi_ep *ep);

/* ------------------------------------------------------------------ */
/* Domain (uet_domain.c)                                               */
/* ------------------------------------------------------------------ */

struct uet_ofi_domain {
	struct fid_domain dom_fid;
	struct uet_ofi_fabric_hdl *fabh; /* the fi_fabric() it was opened on */
	struct uet_ofi_fabric *fab;
	atomic_int ref;
	struct fi_info *info;        /* copy of what the domain was opened with */
	struct uet_ofi_port_info port;
	enum uet_wire_profile profile;
	enum fi_threading threading;
	uint64_t mr_mode;
	uint32_t addr_format;
	bool has_job;
	uint32_t job;
	atomic_uint mr_serial;
	atomic_uint ep_seq;
	uint32_t id;
	unsigned int ctx;            /* engine context of its endpoints/MRs */
	uint16_t pid;                /* PIDonFEP of that context */
	uint32_t initiator;          /* initiator id of that context */
	/* triggered operations waiting for their counters (uet_trigger.c) */
	pthread_mutex_t trig_lock;
	struct uet_ofi_trig *trig_head;
	atomic_uint trig_n;
};

int uet_ofi_domain_open(struct fid_fabric *fabric, struct fi_info *info,
			struct fid_domain **dom, void *context);
/* JobID from an auth_key (3 bytes, or 4 with the top byte zero), the
 * domain's, or the fallback. */
int uet_ofi_job_from_key(const struct uet_ofi_domain *d, const void *key,
			 size_t key_size, uint32_t *job);
bool uet_ofi_lockless(const struct uet_ofi_domain *d);

/* ------------------------------------------------------------------ */
/* Waitable objects (uet_waitable.c): what CQs, counters and EQs share */
/* ------------------------------------------------------------------ */

struct uet_ofi_waitable;
struct uet_ofi_waitset;

/* What tells one kind of waitable object from another (poll sets, wait
 * sets, fi_trywait); called after the object's progress. */
struct uet_ofi_waitable_ops {
	/* CQ, EQ: entries or events queued; NULL for a counter */
	bool (*pending)(struct uet_ofi_waitable *w);
	/* counter: value + errors, which moves with either; NULL else */
	uint64_t (*stamp)(struct uet_ofi_waitable *w);
};

/*
 * The part of a CQ, counter or EQ that applications wait on and bind
 * to: its wait object (an eventfd, FI_WAIT_FD, also for FI_WAIT_SET
 * members; none for FI_WAIT_NONE), the wait set it is in, the endpoints
 * bound to it, which reading it progresses, and the references that keep
 * it open (bound endpoints, MRs, AVs, poll sets).
 */
struct uet_ofi_waitable {
	struct fid *fid;
	const struct uet_ofi_waitable_ops *ops;
	struct uet_ofi_fabric *fab;    /* progressed on reads; NULL: none */
	atomic_int ref;
	enum fi_wait_obj wait_obj;     /* FI_WAIT_NONE, _FD or _SET */
	int efd;                       /* -1: FI_WAIT_NONE */
	struct uet_ofi_waitset *ws;    /* FI_WAIT_SET: its wait set */
	struct uet_ofi_lock bind_lock; /* eps[] */
	struct uet_ofi_ep **eps;
	size_t nb_eps, cap_eps;
};

/*
 * Set up @p w for @p fid with the attributes' *@p wait_obj (UNSPEC and
 * YIELD become FD) and @p wait_set: 0, -FI_EINVAL (not one of our wait
 * sets), -FI_ENOSYS (another wait object), -FI_EMFILE, -FI_ENOMEM.
 */
int uet_ofi_waitable_init(struct uet_ofi_waitable *w, struct fid *fid,
			  const struct uet_ofi_waitable_ops *ops,
			  struct uet_ofi_fabric *fab, bool locked,
			  enum fi_wait_obj *wait_obj,
			  struct fid_wait *wait_set);
/* Undo init; -FI_EBUSY (nothing done) while references remain. */
int uet_ofi_waitable_fini(struct uet_ofi_waitable *w);
/* The waitable part of a CQ, counter or EQ fid; NULL for other fids. */
struct uet_ofi_waitable *uet_ofi_waitable_of(struct fid *fid);
/* Bind an endpoint (once: a second bind is a no-op) / unbind it. */
int uet_ofi_waitable_ep_add(struct uet_ofi_waitable *w,
			    struct uet_ofi_ep *ep);
void uet_ofi_waitable_ep_del(struct uet_ofi_waitable *w,
			     struct uet_ofi_ep *ep);
/* Run the engine (inline progress) and the bound endpoints. */
void uet_ofi_waitable_progress(struct uet_ofi_waitable *w);
/* Wake whoever sleeps on the object. */
void uet_ofi_waitable_signal(struct uet_ofi_waitable *w);
/* The deadline (ms, uet_mono_ms()) of a @p timeout in ms, -1 none. */
uint64_t uet_ofi_deadline(int timeout);
/* Sleep on the object's wait object for at most @p slice_ms or until
 * @p deadline: completions land in channel rings without a wakeup, so
 * blocking reads poll in slices. false (no sleep) once the deadline
 * has passed. */
bool uet_ofi_waitable_sleep(struct uet_ofi_waitable *w, uint64_t deadline,
			    int slice_ms);
/* After progress: something to report (queued entries or events; a
 * counter that moved since *@p seen, which @p consume updates). */
bool uet_ofi_waitable_ready(struct uet_ofi_waitable *w, uint64_t *seen,
			    bool consume);
/* fi_control of a CQ, counter or EQ: FI_GETWAIT, FI_GETWAITOBJ. */
int uet_ofi_waitable_control(struct fid *fid, int command, void *arg);

/* eventfd wait objects */
int uet_ofi_efd_open(void);
void uet_ofi_efd_signal(int fd);
void uet_ofi_efd_drain(int fd);
/* Wait for fd readable up to ms (-1 forever). 1 readable, 0 timeout. */
int uet_ofi_efd_wait(int fd, int ms);

/* ------------------------------------------------------------------ */
/* Completion queue (uet_cq.c)                                         */
/* ------------------------------------------------------------------ */

struct uet_ofi_ep;

struct uet_ofi_cq_entry {
	void *op_context;
	uint64_t flags;
	size_t len;
	void *buf;
	uint64_t data;
	uint64_t tag;
	fi_addr_t src;
	int err;         /* positive FI_* error, 0 for success */
	int prov_errno;
	size_t olen;
};

struct uet_ofi_cq {
	struct fid_cq cq_fid;
	struct uet_ofi_waitable w;
	struct uet_ofi_domain *dom;
	struct fi_cq_attr attr;
	struct uet_ofi_lock lock;      /* entries, reservations */
	struct uet_ofi_cq_entry *ent;
	size_t size, head, count;
	size_t cap;                    /* entries: size, and size unsolicited */
	size_t reserved;               /* queued + in flight */
	atomic_bool signaled;
	uint64_t overruns;
	/* failed fi_inject* since the last read that reported them: no
	 * entry (no context), the next read that finds no entry returns
	 * -FI_EIO (uet_ofi_cq_lost) */
	uint64_t lost;
};

int uet_ofi_cq_open(struct fid_domain *domain, struct fi_cq_attr *attr,
		    struct fid_cq **cq, void *context);
int uet_ofi_cq_reserve(struct uet_ofi_cq *cq);
/* A slot for an entry no operation reserved (uet_cq.c). */
int uet_ofi_cq_reserve_unsolicited(struct uet_ofi_cq *cq);
void uet_ofi_cq_unreserve(struct uet_ofi_cq *cq);
/* Queue into a reserved slot. */
void uet_ofi_cq_push(struct uet_ofi_cq *cq, const struct uet_ofi_cq_entry *e);
/* An operation without a CQ entry (fi_inject*) failed. */
void uet_ofi_cq_lost(struct uet_ofi_cq *cq);

/* ------------------------------------------------------------------ */
/* Counter (uet_cntr.c)                                                */
/* ------------------------------------------------------------------ */

struct uet_ofi_cntr {
	struct fid_cntr cntr_fid;
	struct uet_ofi_waitable w;
	struct uet_ofi_domain *dom;
	struct fi_cntr_attr attr;
	_Atomic uint64_t val, err;
};

int uet_ofi_cntr_open(struct fid_domain *domain, struct fi_cntr_attr *attr,
		      struct fid_cntr **cntr, void *context);
void uet_ofi_cntr_inc(struct uet_ofi_cntr *c);
void uet_ofi_cntr_inc_err(struct uet_ofi_cntr *c);
/* The provider's counter behind @p fid, NULL if it is none of ours. */
struct uet_ofi_cntr *uet_ofi_cntr_of(struct fid_cntr *fid);

/* ------------------------------------------------------------------ */
/* Triggered operations (uet_trigger.c)                                */
/* ------------------------------------------------------------------ */

struct uet_ofi_ep;

/* A data transfer call with FI_TRIGGER, as the *msg call got it. */
struct uet_ofi_trig_call {
	enum fi_op_type kind;
	const void *msg;      /* fi_msg, fi_msg_tagged, _rma, _atomic */
	void *context;        /* its context: a fi_triggered_context */
	/* fetching and compare atomics */
	const struct fi_ioc *cmp, *res;
	void **cmp_desc, **res_desc;
	size_t nb_cmp, nb_res;
};

/* Hold the call until its counter reaches the threshold: 0, or
 * -FI_EINVAL (no threshold trigger, not our counter or another
 * domain's, too many entries), -FI_EOPNOTSUPP (no FI_TRIGGER cap). */
ssize_t uet_ofi_trig_defer(struct uet_ofi_ep *ep,
			   const struct uet_ofi_trig_call *c, uint64_t flags);
/* Post the held operations whose threshold is reached, in order; call
 * with no endpoint lock held. */
void uet_ofi_trig_run(struct uet_ofi_domain *d);
/* An endpoint closes: its held operations go, unposted. */
void uet_ofi_trig_drop_ep(struct uet_ofi_ep *ep);
/* Whether held operations wait for @p cntr (it cannot close). */
bool uet_ofi_trig_uses_cntr(struct uet_ofi_cntr *cntr);
void uet_ofi_trig_domain_fini(struct uet_ofi_domain *d);

/* ------------------------------------------------------------------ */
/* Poll and wait sets (uet_poll.c)                                     */
/* ------------------------------------------------------------------ */

int uet_ofi_poll_open(struct fid_domain *domain, struct fi_poll_attr *attr,
		      struct fid_poll **pollset);
int uet_ofi_wait_open(struct fid_fabric *fabric, struct fi_wait_attr *attr,
		      struct fid_wait **waitset);
/* The wait set behind @p w (an attr's wait_set), NULL if not ours. */
struct uet_ofi_waitset *uet_ofi_waitset_of(struct fid_wait *w);
/* A CQ, counter or EQ (@p fid) with eventfd @p efd joins / leaves. */
int uet_ofi_waitset_add(struct uet_ofi_waitset *ws, struct fid *fid, int efd);
void uet_ofi_waitset_del(struct uet_ofi_waitset *ws, struct fid *fid,
			 int efd);

/* ------------------------------------------------------------------ */
/* Event queue (uet_eq.c)                                              */
/* ------------------------------------------------------------------ */

struct uet_ofi_eq_event {
	struct uet_ofi_eq_event *next;
	uint32_t event;
	bool err;
	size_t len;
	uint8_t data[]; /* event payload, or a struct fi_eq_err_entry */
};

struct uet_ofi_eq {
	struct fid_eq eq_fid;
	struct uet_ofi_waitable w;     /* no endpoints, no progress */
	struct uet_ofi_fabric_hdl *fabh;
	struct fi_eq_attr attr;
	pthread_mutex_t lock;
	struct uet_ofi_eq_event *head, *tail;
	size_t count;
	void *err_data; /* owned copy given out by the last readerr */
};

int uet_ofi_eq_open(struct fid_fabric *fabric, struct fi_eq_attr *attr,
		    struct fid_eq **eq, void *context);
/* fi_cq_strerror / fi_eq_strerror text of @p prov_errno: a UET return
 * code (1..255, from the target) or a negative local errno. */
void uet_ofi_prov_strerror(int prov_errno, char *out, size_t n);
int uet_ofi_eq_post(struct uet_ofi_eq *eq, uint32_t event, const void *buf,
		    size_t len, bool err);

/* ------------------------------------------------------------------ */
/* Address vector (uet_av.c)                                           */
/* ------------------------------------------------------------------ */

#define UET_OFI_AV_CHUNK 1024

struct uet_ofi_av_entry {
	struct uet_ofi_addr addr;
	bool used;
	uint32_t next_free;
	/* the engine's peer handle of addr (what SQEs carry as dest) */
	uint64_t peer;
	/* rx_ctx_bits: the peer handle of receive context i (PIDonFEP + i),
	 * UET_OFI_CTX_MAX of them (0: peer); NULL otherwise */
	uint64_t *rx_peer;
};

struct uet_ofi_av {
	struct fid_av av_fid;
	struct uet_ofi_domain *dom;
	atomic_int ref;
	enum fi_av_type type;
	uint32_t addr_format;
	uint64_t flags;
	struct uet_ofi_eq *eq;
	pthread_rwlock_t lock;
	struct uet_ofi_av_entry **chunks; /* stable entry addresses */
	size_t nb_chunks, cap_chunks;
	size_t count;                     /* entries ever allocated */
	size_t used;
	uint32_t free_head;               /* MAP: reuse; UINT32_MAX none */
	/* initiator id -> index, open addressing */
	uint64_t *rev;                    /* (id << 32) | (idx + 1); 0 empty */
	size_t rev_cap;
	int rx_ctx_bits;                  /* fi_rx_addr() bits at the top */
	/* named AV (uet_av_shared.c): the addresses, shared; entries here
	 * hold this process's peer handles, filled on first use */
	struct uet_ofi_av_shm *shm;
	size_t shm_len;
	bool shm_ro;                      /* FI_READ */
	char shm_name[256];
};

int uet_ofi_av_open(struct fid_domain *domain, struct fi_av_attr *attr,
		    struct fid_av **av, void *context);
/* The engine's peer handle of fi_addr, or 0 (removed, out of range). */
uint64_t uet_ofi_av_peer(struct uet_ofi_av *av, fi_addr_t fi_addr);
fi_addr_t uet_ofi_av_reverse(struct uet_ofi_av *av, uint32_t initiator);
/* uet_av_lookup.c: entry @p idx (NULL past the end), the index of an
 * fi_addr (SIZE_MAX: none), the fi_addr of an index, an fi_addr without
 * its receive context bits; the reverse map (initiator id -> index) */
struct uet_ofi_av_entry *uet_ofi_av_entry_at(const struct uet_ofi_av *av,
					     size_t idx);
size_t uet_ofi_av_index_of(const struct uet_ofi_av *av, fi_addr_t a);
fi_addr_t uet_ofi_av_fi_addr_of(const struct uet_ofi_av *av, size_t idx);
fi_addr_t uet_ofi_av_rx_strip(const struct uet_ofi_av *av, fi_addr_t a);
int uet_ofi_av_rev_grow(struct uet_ofi_av *av);
void uet_ofi_av_rev_put(uint64_t *tab, size_t cap, uint32_t id, size_t idx);
void uet_ofi_av_rev_rebuild(struct uet_ofi_av *av);
/* uet_av.c: a named AV's slot @p idx, inserted by another opener, into
 * this process's engine (its first use here); 0 when the entry holds it */
int uet_ofi_av_shared_resolve(struct uet_ofi_av *av, size_t idx);
/* uet_av_shared.c: map the object of a named AV (attr->name; FI_READ:
 * read-only), return its fi_addr array in attr->map_addr */
int uet_ofi_av_shm_open(struct uet_ofi_av *av, struct fi_av_attr *attr);
void uet_ofi_av_shm_close(struct uet_ofi_av *av);
/* publish @p a in a free slot: *idx its index (its fi_addr everywhere) */
int uet_ofi_av_shm_add(struct uet_ofi_av *av, const struct uet_ofi_addr *a,
		       size_t *idx);
int uet_ofi_av_shm_remove(struct uet_ofi_av *av, size_t idx);
/* the address of slot @p idx; -FI_ENOENT when none is published there */
int uet_ofi_av_shm_get(const struct uet_ofi_av *av, size_t idx,
		       struct uet_ofi_addr *a);

/* ------------------------------------------------------------------ */
/* Memory regions (uet_mr.c)                                           */
/* ------------------------------------------------------------------ */

struct uet_ofi_mr {
	struct fid_mr mr_fid;
	struct uet_ofi_domain *dom;
	struct uet_ofi_ep *ep;   /* FI_MR_ENDPOINT binding */
	struct uet_ofi_cntr *cntr;
	uint64_t access;
	uint64_t flags;
	uint32_t job;
	bool enabled;
	bool registered;         /* known to the engine's MR table */
	size_t iov_count;
	struct iovec iov[UET_OFI_IOV_MAX];
};

extern const struct fi_ops_mr uet_ofi_mr_ops;

/* ------------------------------------------------------------------ */
/* Endpoints (uet_ep.c)                                                */
/* ------------------------------------------------------------------ */

enum uet_ofi_cntr_kind {
	UET_OFI_CNTR_SEND,
	UET_OFI_CNTR_RECV,
	UET_OFI_CNTR_READ,
	UET_OFI_CNTR_WRITE,
	UET_OFI_CNTR_REM_READ,
	UET_OFI_CNTR_REM_WRITE,
	UET_OFI_CNTR_KINDS,
};

/* One outstanding operation: the SQE/RQE context points at it. */
struct uet_ofi_req {
	void *user_ctx;
	uint64_t cq_flags;         /* FI_SEND | FI_MSG ... for the CQ entry */
	void *buf;                 /* for CQ data formats (receives) */
	uint32_t next_free;
	uint8_t rx;                /* 1: receive side */
	uint8_t want_cq;           /* a successful completion makes a CQ entry */
	/* fi_inject* (UET_OFI_NO_CQ): no CQ entry at all, not even an error
	 * one, which would carry no context for the application */
	uint8_t no_entry;
	uint8_t cntr;              /* enum uet_ofi_cntr_kind */
	uint8_t cq_reserved;
	uint8_t peek_claim;        /* FI_PEEK | FI_CLAIM receive */
	uint8_t claimed;           /* its message waits for the FI_CLAIM */
	uint8_t no_data;           /* FI_PEEK / FI_DISCARD: nothing lands */
	uint8_t scatter;           /* bounce: copy out to iov at completion */
	uint8_t nb_iov;            /* bounce: entries in iov */
	uint8_t bounce_heap;       /* bounce: malloc'ed (above the pool's size) */
	uint8_t busy;              /* taken from the pool (in flight) */
	/* fetching atomic: result entries in iov to scatter into, from
	 * the request's own bytes, at the completion (0: none) */
	uint8_t nb_res;
	uint8_t *bounce;           /* multi-entry iov: gathered / landed here */
	/* service backend: the operation's chunk of the data window
	 * (win_len 0: none) and where fetched values go; result_len: bytes
	 * of a fetching atomic's results (both backends) */
	uint64_t win_off, win_len;
	uint64_t result_off, result_len;
	void *result;
	struct uet_chan_iov iov[UET_OFI_IOV_MAX];
	/* the request's own bytes: an inject's payload (a fetching
	 * atomic's gathered operands), then a fetching atomic's results
	 * when they go to several entries (uet_atomic.c) */
	uint8_t inject[UET_OFI_INJECT_MAX];
};

struct uet_ofi_ep {
	struct fid_ep ep_fid;
	struct uet_ofi_domain *dom;
	atomic_int ref;
	unsigned int failures_logged; /* failed operations logged (ep.c) */
	struct fi_info *info;
	enum fi_ep_type type;
	uint64_t caps;
	uint64_t tx_op_flags, rx_op_flags;
	size_t tx_size, rx_size;
	struct uet_ofi_cq *tx_cq, *rx_cq;
	bool tx_selective, rx_selective;
	struct uet_ofi_cntr *cntr[UET_OFI_CNTR_KINDS];
	struct uet_ofi_av *av;
	struct uet_ofi_eq *eq;
	bool enabled;
	struct uet_chan *chan;
	/* service backend: buffers through its data window (NULL: the
	 * in-process engine reads them where they are) */
	struct uet_ofi_svc *svc;
	bool svc_failed;             /* in-flight requests failed: lost */
	struct uet_ofi_lock lock;
	struct uet_ofi_req *reqs;
	uint32_t nb_reqs;
	/* multi-entry iovs: UET_OFI_BOUNCE_COUNT buffers of bounce_size */
	uint8_t *bounce_mem;
	size_t bounce_size;
	uint32_t bounce_free;        /* bit i set: buffer i free */
	/* receives whose data a bounce buffer scatters at the completion
	 * (uet_ofi_req_buffers: later ones are scattered too, in order) */
	uint32_t rx_scatter_pending;
	uint32_t tx_free, rx_free;   /* free lists (index + 1; 0 empty) */
	size_t tx_inflight, rx_inflight;
	struct uet_ofi_addr addr;    /* local address */
	bool addr_set;
	uint32_t job;
	bool job_added;              /* JOB_ADD done on the engine */
	bool pid_held;               /* pid from uet_ofi_fabric_pid_get */
	uint16_t pid;                /* PIDonFEP (a SEP's contexts: the SEP's) */
	uint16_t want_pid;           /* from src_addr (fi_setname); 0: any */
	uint32_t initiator;          /* SES initiator id */
	uint8_t tx_mode;             /* UET_CHAN_MODE_* from msg_order */
	size_t min_multi_recv;
	/* scalable endpoints */
	struct uet_ofi_ep *sep;      /* parent of a tx/rx context */
	bool is_sep, tx_only, rx_only;
	int ctx_index;
	int nb_tx_ctx, nb_rx_ctx;
	unsigned int nb_pids;        /* SEP, named rx contexts: its block */
	struct uet_ofi_ep **tx_ctx, **rx_ctx;
	/* an alias (fi_ep_alias): its own op flags, the rest is this one's */
	struct uet_ofi_ep *alias_of;
};

/* The endpoint behind @p fid: itself, or the one an alias
 * (fi_ep_alias) was made of. */
static inline struct uet_ofi_ep *
uet_ofi_ep_of(struct fid_ep *fid)
{
	struct uet_ofi_ep *ep = container_of(fid, struct uet_ofi_ep, ep_fid);

	return ep->alias_of != NULL ? ep->alias_of : ep;
}

/* Default operation flags of @p fid, transmit and receive (an alias has
 * its own). */
static inline uint64_t
uet_ofi_tx_flags(struct fid_ep *fid)
{
	return container_of(fid, struct uet_ofi_ep, ep_fid)->tx_op_flags;
}

static inline uint64_t
uet_ofi_rx_flags(struct fid_ep *fid)
{
	return container_of(fid, struct uet_ofi_ep, ep_fid)->rx_op_flags;
}

/* What endpoints, scalable endpoints and their contexts share
 * (uet_ep.c): fields from @p info, the fid and its operations; the
 * process on the FEP (PIDonFEP, initiator id) it takes; fi_getopt and
 * fi_setopt. */
int uet_ofi_ep_common_init(struct uet_ofi_ep *ep, struct uet_ofi_domain *d,
			   const struct fi_info *info, void *context);
int uet_ofi_ep_pid_take(struct uet_ofi_ep *ep);
/* @p a names the domain's port (its FA; the unspecified IPv4 address
 * stands for any). */
bool uet_ofi_port_has_addr(const struct uet_ofi_port_info *p,
			   const struct uet_ofi_addr *a);
/* fi_setname (uet_ep_name.c) */
int uet_ofi_ep_setname(fid_t fid, void *addr, size_t addrlen);
int uet_ofi_ep_getopt(fid_t fid, int level, int optname, void *optval,
		      size_t *optlen);
int uet_ofi_ep_setopt(fid_t fid, int level, int optname, const void *optval,
		      size_t optlen);

/* fi_ep_alias (uet_ep_alias.c): FI_ALIAS of fi_control. */
int uet_ofi_ep_alias(struct uet_ofi_ep *ep, struct fi_alias *alias);

int uet_ofi_ep_open(struct fid_domain *domain, struct fi_info *info,
		    struct fid_ep **ep, void *context);
int uet_ofi_sep_open(struct fid_domain *domain, struct fi_info *info,
		     struct fid_ep **sep, void *context);
/* Move completions of the endpoint's channel into its CQs/counters. */
void uet_ofi_ep_progress(struct uet_ofi_ep *ep);

/* Internal op flag: no CQ entry on success (inject calls). */
#define UET_OFI_NO_CQ (1ULL << 61)

/* Data path helpers (uet_msg.c) shared by msg/tagged/rma/atomic. */
struct uet_ofi_req *uet_ofi_req_get(struct uet_ofi_ep *ep, bool rx);
void uet_ofi_req_put(struct uet_ofi_ep *ep, struct uet_ofi_req *r);
/* Fill the buffer part of a descriptor from @p iov (locked ep): flat,
 * inject copy, or a bounce buffer for several entries (gathered now, or
 * scattered at the completion when @p inbound). */
int uet_ofi_req_buffers(struct uet_ofi_ep *ep, struct uet_ofi_req *r,
			const struct iovec *iov, void **desc, size_t count,
			bool inject, bool inbound, uint64_t *addr,
			uint64_t *len, uint64_t *local_desc, uint32_t *flags);
/* Return a request's bounce buffer, scattering it first when it holds
 * received data (@p len bytes). */
void uet_ofi_req_bounce_done(struct uet_ofi_ep *ep, struct uet_ofi_req *r,
			     uint64_t len);
/*
 * The compare operand and the results of a fetching or compare atomic:
 * each an array of the operation's elements, which fi_atomic(3) lets the
 * application split across entries as it likes (like the operands).
 */
struct uet_ofi_amo_io {
	const struct fi_ioc *cmp;    /* NULL: not a compare atomic */
	size_t nb_cmp;
	const struct fi_ioc *res;
	size_t nb_res;
	size_t dt_size;              /* bytes of one element */
	size_t bytes;                /* of the operation's elements */
};
/* Point @p sqe at the compare operand and results of @p io: the entry
 * itself when one holds them all, else (results) the request's own
 * bytes, scattered at the completion. */
void uet_ofi_req_amo(struct uet_ofi_req *r, struct uet_chan_sqe *sqe,
		     const struct uet_ofi_amo_io *io);
/* A fetching atomic completed (@p ok: successfully): results to their
 * entries. */
void uet_ofi_req_amo_done(struct uet_ofi_req *r, bool ok);
/* Post an SQE: pool entry, CQ reservation, ring. ep must be enabled.
 * @p amo: a fetching or compare atomic's other buffers, else NULL. */
ssize_t uet_ofi_post_sqe(struct uet_ofi_ep *ep, struct uet_chan_sqe *sqe,
			 const struct iovec *iov, void **desc, size_t count,
			 uint64_t flags, void *context, uint64_t cq_flags,
			 enum uet_ofi_cntr_kind cntr,
			 const struct uet_ofi_amo_io *amo);
ssize_t uet_ofi_post_rqe(struct uet_ofi_ep *ep, struct uet_chan_rqe *rqe,
			 const struct iovec *iov, void **desc, size_t count,
			 uint64_t flags, void *context, uint64_t cq_flags);
/* Destination handle of fi_addr for this ep (0 when invalid). */
uint64_t uet_ofi_ep_dest(struct uet_ofi_ep *ep, fi_addr_t fi_addr);

/* SQE/RQE context of a request (its slot index + 1; 0 is a CQE with no
 * request) and back; NULL for a context that names no slot. */
static inline uint64_t
uet_ofi_req_ctx(const struct uet_ofi_ep *ep, const struct uet_ofi_req *r)
{
	return (uint64_t)(r - ep->reqs) + 1;
}

static inline struct uet_ofi_req *
uet_ofi_req_of(struct uet_ofi_ep *ep, uint64_t ctx)
{
	return ctx - 1 < ep->nb_reqs ? &ep->reqs[ctx - 1] : NULL;
}

/* Service backend data path (uet_service.c): buffers of an SQE / RQE
 * into a window chunk (copied in unless inbound; -FI_EAGAIN window full,
 * -FI_EMSGSIZE, -FI_EIO service lost), copies out at a completion
 * (@p final: the chunk goes back), the chunk back without copying. */
int uet_ofi_service_sqe(struct uet_ofi_ep *ep, struct uet_ofi_req *r,
			struct uet_chan_sqe *sqe, const struct iovec *iov,
			size_t count, uint64_t flags);
int uet_ofi_service_rqe(struct uet_ofi_ep *ep, struct uet_ofi_req *r,
			struct uet_chan_rqe *rqe, const struct iovec *iov,
			size_t count, uint64_t flags);
void uet_ofi_service_complete(struct uet_ofi_ep *ep, struct uet_ofi_req *r,
			      const struct uet_chan_cqe *c, bool final);
void uet_ofi_service_release(struct uet_ofi_ep *ep, struct uet_ofi_req *r);
bool uet_ofi_service_lost(const struct uet_ofi_ep *ep);
/* The service is gone: every request in flight completes with -FI_EIO
 * through @p deliver (once per endpoint). */
void uet_ofi_service_fail(struct uet_ofi_ep *ep,
			  bool (*deliver)(struct uet_ofi_ep *,
					  const struct uet_chan_cqe *));

extern const struct fi_ops_msg uet_ofi_msg_ops;
extern const struct fi_ops_tagged uet_ofi_tagged_ops;
extern const struct fi_ops_rma uet_ofi_rma_ops;
extern const struct fi_ops_atomic uet_ofi_atomic_ops;
int uet_ofi_query_atomic(struct fid_domain *domain, enum fi_datatype dt,
			 enum fi_op op, struct fi_atomic_attr *attr,
			 uint64_t flags);
/* libfabric op/datatype -> SES codes; -1 when there is none. */
int uet_ofi_amo_op(enum fi_op op);
int uet_ofi_amo_dt(enum fi_datatype dt);
size_t uet_ofi_dt_size(enum fi_datatype dt);

#endif /* UET_OFI_PRIV_H */
