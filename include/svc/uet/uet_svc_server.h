/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_SVC_SERVER_H
#define UET_SVC_SERVER_H

/**
 * @file
 * The server side of the uet-engine service (docs/SERVICE.md): a UNIX
 * SOCK_SEQPACKET listening socket, one epoll loop on the calling thread
 * for the listener and every client, and per client its shared region,
 * channels, PIDonFEPs, jobs, peers and memory keys, all released when the
 * client leaves or dies. The engine's lcores run the data path; this
 * thread only serves control requests (uet_svc.h).
 *
 * Order: create the engine (AUTO, the SES ULP hook, not started), then
 * uet_svc_server_create() (places the contexts' wakers in the service
 * page), then uet_engine_start(), then uet_svc_server_run() until done,
 * uet_svc_server_shutdown(), uet_engine_stop(), uet_svc_server_free(),
 * uet_engine_free().
 */

#include <stdbool.h>
#include <stdint.h>

#include <uet/uet_chan.h>
#include <uet/uet_engine.h>
#include <uet/uet_svc.h>

struct uet_cma_async;

#ifdef __cplusplus
extern "C" {
#endif

struct uet_svc_server;

/** PIDonFEPs a context hosts for clients (the SES ULP's 8 process slots
 * less the context's own). */
#define UET_SVC_PIDS_PER_CTX 7u
/** Peer handles one client may hold. */
#define UET_SVC_CLIENT_PEERS_MAX 65536u
/** Memory keys one client may hold. */
#define UET_SVC_CLIENT_MRS_MAX 4096u
/** {job, PIDonFEP} authorisations one client may hold. */
#define UET_SVC_CLIENT_JOBS_MAX 256u

/** Members of one JobID policy entry. */
#define UET_SVC_ACL_MEMBERS_MAX 16u
/** socket_gid: leave the socket's group as bind made it. */
#define UET_SVC_GID_KEEP UINT32_MAX

/** Who may use JobIDs first..last (docs/SERVICE.md "Security"). */
struct uet_svc_acl {
	uint32_t first, last;
	uint32_t nb;
	struct {
		uint32_t id;
		bool gid;  /**< a group, else a user */
	} m[UET_SVC_ACL_MEMBERS_MAX];
};

/** Per-uid limits, over all the connections of a uid (0: none). */
struct uet_svc_quota {
	uint32_t clients;  /**< connections */
	uint32_t pids;     /**< PIDonFEPs */
	uint32_t jobs;     /**< {JobID, PIDonFEP} authorisations */
	uint32_t mrs;      /**< memory keys */
	uint32_t peers;    /**< peer handles */
	uint64_t window;   /**< bytes of shared regions */
};

/** Creation parameters. */
struct uet_svc_server_params {
	/** AUTO engine running uet_proto_hook_ops with uet_ses_ulp_ops,
	 * created and not started */
	struct uet_engine *engine;
	const char *socket_path; /**< UNIX socket path (< 108 bytes) */
	uint16_t pid_base;       /**< the SES ULP's pid_base */
	uint16_t start_ri;       /**< the SES ULP's start_ri */
	uint8_t fa[16];          /**< port 0 FA; IPv4 in bytes 0..3 */
	bool is_v6;
	uint32_t mtu;            /**< port 0 MTU */
	uint64_t window_size;    /**< data window per client, page multiple */
	uint32_t max_clients;    /**< 1 .. 1024 */
	uint32_t max_chans;      /**< per client, 1 .. UET_SVC_CHANS_MAX */
	uint32_t max_pids;       /**< per client, >= 1 */
	/** JobIDs the service grants (at least one range) */
	struct uet_chan_jobs jobs;
	/** socket file permissions (0 .. 0777) */
	uint32_t socket_mode;
	/** socket file group, or UET_SVC_GID_KEEP */
	uint32_t socket_gid;
	/** who may use which granted JobIDs; a JobID no entry covers
	 * belongs to the first uid that authorises it, until that uid
	 * holds it no more. uid 0 and the service's own uid may use any. */
	const struct uet_svc_acl *acl;
	uint32_t nb_acl;
	struct uet_svc_quota quota;
	/** op records (sends and receives in progress) the channels of one
	 * client PIDonFEP may hold on its engine context (0: no limit);
	 * past it a receive completes -ENOSPC, sends wait */
	uint32_t pid_ops;
	uint32_t hello_timeout_ms; /**< connect to HELLO (0: none) */
	/** a connection holding no PIDonFEP and silent this long is
	 * closed (0: never) */
	uint32_t idle_timeout_ms;
	/** the accessor of the engine's lcores (uet_ses_ulp_params.mem_ops
	 * = uet_cma_async_mem_ops, mem_arg = this), not owned: clients'
	 * /proc/PID/mem descriptors are opened in it and MR_REG names their
	 * handles. NULL: MR_REG names the descriptors themselves
	 * (uet_cma_fd_mem_ops, accessed on the lcores, unbounded). */
	struct uet_cma_async *cma;
};

/**
 * Create the service: the service page (memfd, wakers of the engine's
 * contexts placed in it), the listening socket at @p p->socket_path (an
 * existing socket file that nobody serves is replaced; one in use gives
 * -EADDRINUSE, a file of another kind -EEXIST), with its mode and group,
 * in a directory that must belong to root or this process's uid and be
 * writable by nobody else (-EPERM; created 0755 when absent), the epoll
 * set, telemetry /uet/service.
 * @param err
 *   Out: 0 or -errno (-EINVAL parameters, -EADDRINUSE, -EPERM, -ENOMEM,
 *   ...).
 * @return The server, or NULL.
 */
struct uet_svc_server *uet_svc_server_create(
	const struct uet_svc_server_params *p, int *err);

/**
 * Serve: wait up to @p timeout_ms (-1: forever) for socket events and
 * handle them (accepts, requests, hang-ups).
 * @return Events handled (>= 0), or -errno of epoll_wait (-EINTR when a
 *   signal arrived).
 */
int uet_svc_server_run(struct uet_svc_server *s, int timeout_ms);

/** The epoll fd (readable when uet_svc_server_run() has work). */
int uet_svc_server_fd(const struct uet_svc_server *s);

/**
 * Stop: close and unlink the listening socket (no new clients), then
 * release every client as if it had died. Idempotent. The engine must
 * still be running (control requests are served by its lcores).
 */
void uet_svc_server_shutdown(struct uet_svc_server *s);

/** Shutdown if not done, then free everything. NULL: no-op. */
void uet_svc_server_free(struct uet_svc_server *s);

/** Counters (telemetry /uet/service). */
struct uet_svc_server_stats {
	/* now */
	uint32_t clients; /**< attached */
	uint32_t chans;   /**< open channels */
	uint32_t peers;   /**< peer handles held */
	uint32_t mrs;     /**< memory keys held */
	uint32_t jobs;    /**< {job, PIDonFEP} authorisations held */
	uint32_t pids;    /**< PIDonFEPs held */
	/** departed clients whose release runs (their PIDonFEPs, keys,
	 * jobs, peers and channels counted above until it ends) */
	uint32_t releasing;
	/* totals */
	uint64_t attaches;  /**< connections accepted (HELLO or not) */
	uint64_t detaches;  /**< connections gone (BYE, EOF, death) */
	/** clients gone without BYE whose resources the service released */
	uint64_t cleanups;
	/** connections refused: max_clients or the uid's quota */
	uint64_t refused;
	uint64_t requests;  /**< messages received */
	/** requests answered with an error (any -errno), of which: */
	uint64_t errors;
	uint64_t bad;       /**< malformed: -EINVAL / -EPROTO */
	uint64_t denied;    /**< isolation: -EPERM */
	uint64_t policy;    /**< JobID of another user or not theirs: -EACCES */
	/** over a uid's quota: -EDQUOT (connections refused included) */
	uint64_t quota;
	/** connections closed for no HELLO in time or idleness */
	uint64_t timeouts;
	/* clients' memory (uet_svc_server_params.cma; 0 without) */
	uint64_t mem_timeouts; /**< accesses not done in time: failed */
	uint64_t mem_refused;  /**< failed at once: the uid was slow */
	uint64_t mem_stuck;    /**< workers still in a timed-out access */
	/** descriptors clients passed that nothing took, closed by the
	 * reaper thread, not the control thread (uet_svc_server.c) */
	uint64_t fds_reaped;
	/** ... kept open instead: the reaper held up, its queue full */
	uint64_t fds_held;
	/** connections dropped for passing descriptors no request takes
	 * (any but HELLO's one) */
	uint64_t fds_refused;
	/** channels whose EP_DEL the engine did not take or answer in time:
	 * kept open, with their client's region and channel table, rather
	 * than be reused while the SES may still write them */
	uint64_t chan_held;
	/** accept() failures other than a connection gone before it was
	 * taken (the process out of descriptors or memory), and failures
	 * to put the listener back in the epoll set: each pauses the
	 * listener for UET_SVC_ACCEPT_PAUSE_MS */
	uint64_t accept_failed;
};

/** How long the listener is left unpolled after accept() failed for
 * want of descriptors or memory (the connection stays in the backlog;
 * polling on would spin the control thread). */
#define UET_SVC_ACCEPT_PAUSE_MS 100

/** Copy the counters. @return 0 or -EINVAL. */
int uet_svc_server_stats_get(const struct uet_svc_server *s,
			     struct uet_svc_server_stats *st);

#ifdef __cplusplus
}
#endif

#endif /* UET_SVC_SERVER_H */
