/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SVC_SERVER_PRIV_H
#define SVC_SERVER_PRIV_H

/*
 * Server internals shared by svc_server.c (socket, epoll, lifecycle,
 * telemetry) and svc_srv_ops.c (one handler per op).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <rte_log.h>

#include <uet/uet_chan.h>
#include <uet/uet_engine.h>
#include <uet/uet_svc.h>
#include <uet/uet_svc_server.h>

extern int uet_svc_logtype;
#define SVC_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, uet_svc_logtype, "uet.svc: " fmt "\n", \
		##__VA_ARGS__)

struct svc_pid {
	uint16_t pid;
	uint16_t ctx;
	uint32_t initiator;
};

struct svc_job {
	uint32_t job;
	uint16_t pid;
	uint32_t ref;
};

struct svc_peer {
	uint64_t handle;
	uint16_t ctx;
};

struct svc_mr {
	uint64_t key;
	uint16_t ctx;
	uint16_t pid;  /* registered for */
	uint32_t job;
	bool local; /* local access only: nothing in the engine */
};

/*
 * What an engine control request touches, as the lcore orders its
 * requests (pmd/ses_ulp/ctl.c): one held (a JOB_DEL or EP_DEL waiting
 * for its process's sends to be withdrawn) holds the later ones of its
 * context that touch the same PIDonFEP, job or channel, and an EP_ADD or
 * JOB_ADD the context has no room for until it made some.
 */
struct svc_touch {
	int ctx;                     /* -1: nothing of the engine */
	int32_t pid;                 /* -1: none */
	int64_t job;                 /* -1: none */
	const struct uet_chan *chan; /* NULL: none; an EP_DEL's: one */
	bool job_del;                /* a JOB_DEL */
	bool all;                    /* unknown: everything of ctx */
};

struct svc_chan {
	bool open;
	uint16_t ctx;
	uint16_t pid;
	struct uet_chan ch; /* the engine's view (UET_CHAN_SHARED) */
	/* the JobIDs its SQEs may name (ch.jobs: one of the two, the other
	 * rewritten at the next change, svc_chan_jobs()) */
	struct uet_chan_jobs jobs[2];
	unsigned int cur;
};

/* What one uid holds, over all its connections (quotas). */
struct svc_user {
	uid_t uid;
	bool privileged; /* root or the service's uid: no quota */
	uint32_t clients, pids, jobs, mrs, peers;
	uint64_t window;
};

enum svc_res { SVC_Q_PIDS, SVC_Q_JOBS, SVC_Q_MRS, SVC_Q_PEERS, SVC_Q_WINDOW };

/* A JobID no policy entry covers, owned by the uid that took it first
 * for as long as that uid holds it (ref: its {job, PIDonFEP} entries). */
struct svc_jobown {
	uint32_t job;
	uid_t uid;
	uint32_t ref;
};

#define SVC_GROUPS_MAX 64

/* How long the control thread waits for the engine's answer to a
 * client's request before it serves others meanwhile (svc_ctl_quick),
 * and for a departing client's release (svc_server.c client_drop). */
#define SVC_CTL_QUICK_MS 10u

/* svc_op's answer for a request whose reply waits for the engine: a
 * CHAN_CLOSE for its EP_DEL, a JOB_DEL for the engine's, each answered
 * once the SES withdrew the operations still on the wire (up to 3 s),
 * an MR_DEREG once the READ responses of its region were acknowledged:
 * the request is in the client's svc_wait, the client's socket out of
 * the epoll set until the reply went (svc_server.c waiters_poll). */
#define SVC_DEFERRED 1

/*
 * What a client waits for, its socket out of the control thread's epoll
 * set (nothing more of it is read meanwhile; its requests are
 * synchronous): at most one of
 * - op: an engine request of its CHAN_CLOSE, JOB_DEL or MR_DEREG, posted
 *   and not answered within SVC_CTL_QUICK_MS (SVC_DEFERRED);
 * - msg: a request not run yet because the engine could hold it (it
 *   touches what an engine request of another client, posted and not
 *   answered, touches: svc_touch), or, a PID_GET, because the PIDonFEP
 *   it wants is a departed client's still being released
 *   (svc_op_waits).
 */
struct svc_wait {
	struct uet_ses_ulp_ctl_pending *op;
	uint16_t ctx;            /* op's context */
	unsigned int req;        /* the request: UET_SVC_OP_* */
	uint32_t seq;            /* its sequence number, for its reply */
	struct svc_chan *chan;   /* CHAN_CLOSE */
	uint32_t job;            /* JOB_DEL */
	uint16_t pid;
	unsigned int mr;         /* MR_DEREG: its index in the client's */
	void *msg;               /* the request's bytes (header first) */
	uint64_t ticket;         /* msg's order of arrival */
	bool out;                /* the socket out of the epoll set */
};

struct svc_client {
	int fd;
	pid_t pid;  /* SO_PEERCRED */
	uid_t uid;
	gid_t gid;
	gid_t groups[SVC_GROUPS_MAX]; /* SO_PEERGROUPS (supplementary) */
	unsigned int nb_groups;
	struct svc_user *user;
	/* accepted, then the last request after HELLO (timeouts) */
	uint64_t since_ns;
	bool hello;
	int memfd;
	/* the client's /proc/self/mem (HELLO UET_SVC_HELLO_F_MEM), the
	 * owner handle of its remote-access keys; -1: none. Kept open while
	 * a key may live (a descriptor number reused for another client's
	 * would reach the other's memory). */
	int as_fd;
	bool as_wr;   /* opened read-write */
	bool as_pinned; /* an MR_REG's outcome unknown: never closed */
	uint32_t owner_id; /* its peers and channels in the engine */
	/* release in progress (svc_release.c): control requests left */
	struct svc_step *steps;
	unsigned int nb_steps, next_step;
	struct uet_ses_ulp_ctl_pending *inflight;
	bool release_failed; /* an MR_DEREG not answered 0 */
	struct svc_wait wait; /* a request whose reply waits (SVC_DEFERRED) */
	/* descriptors the request being served carried (HELLO only) */
	int rx_fd;
	unsigned int nb_rx_fd;
	uint8_t *region;
	size_t region_size;
	struct svc_chan *chans;      /* max_chans */
	struct svc_pid *pids;        /* max_pids */
	unsigned int nb_pids;
	struct svc_job *jobs;
	unsigned int nb_jobs;
	struct svc_peer *peers;
	unsigned int nb_peers, cap_peers;
	struct svc_mr *mrs;
	unsigned int nb_mrs, cap_mrs;
	uint64_t next_local_key;
};

struct uet_svc_server {
	struct uet_svc_server_params p;
	char path[108];
	int lfd;      /* listening socket, -1 after shutdown */
	int epfd;
	bool down;
	unsigned int nb_ctx;
	bool wake;    /* contexts sleep: UET_SVC_CAP_WAKE */
	int page_fd;  /* service page memfd */
	int page_ro;  /* read-only reopen of it, what clients get */
	/* per context: the engine's wake-up eventfd, or (contexts that
	 * never sleep) one of ours that nobody reads, so that HELLO always
	 * passes nb_ctx of them */
	int efd[UET_SVC_CTX_MAX];
	bool efd_own;
	struct uet_svc_page *page;
	/* region layout (same for every client) */
	size_t rings_off, slot_size, window_off, region_size;
	struct svc_client **clients; /* max_clients slots */
	/* owner (client slot + 1, 0: free) of each client PIDonFEP */
	uint16_t *pid_owner;
	unsigned int nb_client_pids; /* nb_ctx * UET_SVC_PIDS_PER_CTX */
	uid_t euid;                  /* ours: may use any JobID */
	struct uet_svc_acl *acl;     /* p.nb_acl, a copy */
	struct svc_user *users;      /* max_clients: one per uid attached */
	struct svc_jobown *owners;
	unsigned int nb_owners, cap_owners;
	int tfd;                     /* timerfd of the deadlines, or -1 */
	int reap_w;                  /* the reaper's pipe (fds_reap), or -1 */
	uint32_t owner_seq;          /* last client owner id given */
	/* departed clients being released (max_clients at most), and the
	 * timer that polls them */
	struct svc_client **zombies;
	unsigned int nb_zombies;
	int rtfd;
	unsigned int nb_waiting; /* clients that wait (svc_wait) */
	uint64_t tickets;        /* requests kept so far (svc_wait.ticket) */
	/* svc_held_touches(): one per client and departed client */
	struct svc_touch *touch;
	/* one-shot timer ending a pause of the listener (accept_pause) */
	int atfd;
	struct uet_svc_server_stats st;
};

/* svc_srv_ops.c */
/* Handle one request of @p c (header checked, body of the op's size);
 * fills @p rep (up to UET_SVC_MSG_MAX - header) and *rep_len, may add
 * fds to @p fds (*nb_fds). @return 0 or -errno (the reply's rc), or
 * SVC_DEFERRED (no body: the reply waits, c->wait). */
int svc_op(struct uet_svc_server *s, struct svc_client *c, unsigned int op,
	   const void *body, void *rep, uint32_t *rep_len, int *fds,
	   unsigned int *nb_fds);
/* Release everything @p c holds in the engine and the region. */
void svc_client_release(struct uet_svc_server *s, struct svc_client *c);
/* Whether the engine request @p c waits for (c->wait.op) was answered:
 * then it is applied, c->wait.op NULL and *rc the reply's rc (true);
 * false while the engine runs it. */
bool svc_wait_poll(struct uet_svc_server *s, struct svc_client *c, int *rc);
/* What the engine requests of clients, live or departed, posted and not
 * answered touch (svc_client_touch), in s->touch. @return how many. */
unsigned int svc_held_touches(struct uet_svc_server *s);
/* Whether request @p op of @p c (body checked for size) must wait before
 * it runs (svc_wait.msg): it touches what one of the first *nb_held of
 * s->touch does, or it is a PID_GET of a departed client's PIDonFEP
 * still being released. *nb_held UINT_MAX: s->touch is filled first
 * (svc_held_touches), only for a request that asks the engine. */
bool svc_op_waits(struct uet_svc_server *s, struct svc_client *c,
		  unsigned int op, const void *body, unsigned int *nb_held);
/* Engine context hosting client PIDonFEP @p pid, or -1 if not one. */
int svc_pid_ctx(const struct uet_svc_server *s, uint16_t pid);
/* Run a control request on @p ctx. @return req->rc or the call's -errno. */
int svc_ctl(struct uet_svc_server *s, unsigned int ctx, void *req);
/* Detach channels from the engine (a short pause of its lcores). */
void svc_chans_detach(struct uet_svc_server *s, struct svc_chan **v,
		      unsigned int n);
/* The last of a released client: its PIDonFEPs, region and memfd, and
 * its memory descriptor unless @p keep_as (a key may still name it). */
/* Give back the client's address-space descriptor (or handle). */
void svc_as_close(struct uet_svc_server *s, struct svc_client *c);
void svc_client_unmap(struct uet_svc_server *s, struct svc_client *c,
		      bool keep_as);
/* Give PIDonFEP @p p of @p c back. */
void svc_pid_drop(struct uet_svc_server *s, struct svc_client *c,
		  struct svc_pid *p);

/* svc_release.c */
struct svc_step;
/* Start releasing @p c without waiting (channels detached now). */
void svc_release_start(struct uet_svc_server *s, struct svc_client *c);
/* Advance it: true once everything is given back. */
bool svc_release_poll(struct uet_svc_server *s, struct svc_client *c);
/* What the engine request @p c, live or departed, posted and the engine
 * did not start yet touches (svc_touch): false if none. */
bool svc_client_touch(const struct svc_client *c, struct svc_touch *t);

/* svc_policy.c: who may use what, and how much of it */
/* Credentials of a new connection (SO_PEERCRED, SO_PEERGROUPS). */
int svc_peer_creds(struct svc_client *c);
/* Count a connection against its uid. @return 0 or -EDQUOT. */
int svc_user_attach(struct uet_svc_server *s, struct svc_client *c);
void svc_user_detach(struct uet_svc_server *s, struct svc_client *c);
/* Take @p n of resource @p r for @p c's uid. @return 0 or -EDQUOT. */
int svc_quota_take(struct uet_svc_server *s, struct svc_client *c,
		   enum svc_res r, uint64_t n);
void svc_quota_put(struct svc_client *c, enum svc_res r, uint64_t n);
/* May @p c use granted JobID @p job? @return 0 or -EACCES. */
int svc_job_allowed(const struct uet_svc_server *s,
		    const struct svc_client *c, uint32_t job);
/* A {job, PIDonFEP} entry of @p c begins / ends: ownership of a JobID
 * no policy entry covers. @return 0 or -ENOMEM. */
int svc_job_claim(struct uet_svc_server *s, const struct svc_client *c,
		  uint32_t job);
void svc_job_unclaim(struct uet_svc_server *s, const struct svc_client *c,
		     uint32_t job);
/* Both, and the uid's user_jobs quota. @return 0, -EDQUOT or -ENOMEM. */
int svc_job_begin(struct uet_svc_server *s, struct svc_client *c,
		  uint32_t job);
void svc_job_end(struct uet_svc_server *s, struct svc_client *c,
		 uint32_t job);
/* Point @p sc at the JobIDs its client authorised on its PIDonFEP (the
 * grant for root and the service's uid); @p live: attached, the lcore
 * may be reading the current table. @return 0 or -ENOSPC. */
int svc_chan_jobs(const struct uet_svc_server *s, const struct svc_client *c,
		  struct svc_chan *sc, bool live);
/* svc_chan_jobs() of @p c's open channels on PIDonFEP @p pid, after a
 * JOB_ADD or JOB_DEL its lcore answered. */
void svc_chans_jobs(const struct uet_svc_server *s,
		    const struct svc_client *c, uint16_t pid);
/* Room for one more JobID on PIDonFEP @p pid. @return 0 or -ENOSPC. */
int svc_chan_jobs_room(const struct uet_svc_server *s,
		       const struct svc_client *c, uint16_t pid);
/* The socket's directory: absent (made 0755), or ours and writable by
 * nobody else. @return 0 or -errno (-EPERM, logged). */
int svc_sock_dir_check(const char *path);
/* Mode and group of the bound socket file. @return 0 or -errno. */
int svc_sock_perms(const struct uet_svc_server *s);

#endif /* SVC_SERVER_PRIV_H */
