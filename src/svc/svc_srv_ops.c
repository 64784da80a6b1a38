/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The uet-engine service's requests, one handler per op
 * (include/svc/uet/uet_svc.h). Each checks every field of its body first
 * (reserved fields zero, values in range: -EINVAL), then that the client
 * names only what is its own (PIDonFEPs the service gave it, jobs of its
 * grant: -EPERM; handles and keys it holds: -ENOENT, the service does not
 * tell another client's from a missing one), that its uid may use the
 * JobID (-EACCES) and has quota left (-EDQUOT, svc_policy.c), then acts
 * through the SES ULP control path of the engine context concerned.
 */

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <rte_common.h>

#include <uet/uet_clock.h>
#include <uet/uet_cma_worker.h>
#include <uet/uet_ses_mr.h>
#include <uet/uet_ses_ulp.h>

#include "svc_server_private.h"

/* A request the lcore has not started in 5 s is cancelled (-ETIMEDOUT:
 * not applied); one it started is answered late. -EINPROGRESS: started
 * and still unanswered after the long bound, applied or not. */
int
svc_ctl(struct uet_svc_server *s, unsigned int ctx, void *req)
{
	struct uet_ses_ulp_ctl *q = req;
	int rc = uet_ses_ulp_ctl(s->p.engine, ctx, q, NULL, NULL);

	if (rc == -EINPROGRESS)
		SVC_LOG(ERR, "context %u: control request %u unanswered, "
			"its outcome unknown", ctx, (unsigned int)q->op);
	return rc < 0 ? rc : q->rc;
}

/* Post @p q to context @p ctx and give the lcore SVC_CTL_QUICK_MS to
 * answer: the answer's rc, the post's error, or SVC_DEFERRED with the
 * request in c->wait.op (its reply waits, svc_wait_poll). */
static int
ctl_quick(struct uet_svc_server *s, struct svc_client *c, unsigned int ctx,
	  struct uet_ses_ulp_ctl *q)
{
	uint64_t end = uet_mono_ns() + SVC_CTL_QUICK_MS * 1000000ull;
	struct uet_ses_ulp_ctl_pending *op;
	int rc = uet_ses_ulp_ctl_post(s->p.engine, ctx, q, &op);

	/* not posted (the ring full, -EAGAIN; -ENOMEM): not applied, the
	 * error goes back (a synchronous try would wait behind the ring) */
	if (rc != 0)
		return rc;
	do {
		if (uet_ses_ulp_ctl_poll(op, q) == 0)
			return q->rc;
		usleep(20);
	} while (uet_mono_ns() < end);
	c->wait.op = op;
	c->wait.ctx = (uint16_t)ctx;
	return SVC_DEFERRED;
}

/* ---- PIDonFEPs ---- */

/* Client PIDonFEPs follow the contexts' own: pid_base + nb_ctx + k, the
 * k-th in the block of context k / UET_SVC_PIDS_PER_CTX. */
int
svc_pid_ctx(const struct uet_svc_server *s, uint16_t pid)
{
	unsigned int first = (unsigned int)s->p.pid_base + s->nb_ctx;

	if (pid < first || pid - first >= s->nb_client_pids)
		return -1;
	return (int)((pid - first) / UET_SVC_PIDS_PER_CTX);
}

static struct svc_pid *
own_pid(struct svc_client *c, uint16_t pid)
{
	for (unsigned int i = 0; i < c->nb_pids; i++)
		if (c->pids[i].pid == pid)
			return &c->pids[i];
	return NULL;
}

static bool
owns_ctx(const struct svc_client *c, unsigned int ctx)
{
	for (unsigned int i = 0; i < c->nb_pids; i++)
		if (c->pids[i].ctx == ctx)
			return true;
	return false;
}

/* Initiator id of a client PIDonFEP: low 20 bits of the FA, then the
 * PIDonFEP (the provider's rule for its own endpoints). */
static uint32_t
pid_initiator(const struct uet_svc_server *s, uint16_t pid)
{
	const uint8_t *fa = s->p.fa;
	uint32_t low = s->p.is_v6 ?
		((uint32_t)fa[13] << 16) | ((uint32_t)fa[14] << 8) | fa[15] :
		((uint32_t)fa[1] << 16) | ((uint32_t)fa[2] << 8) | fa[3];

	return ((low & 0xFFFFFu) << 12) | (pid & 0xFFFu);
}

static unsigned int
client_slot(const struct uet_svc_server *s, const struct svc_client *c)
{
	for (unsigned int i = 0; i < s->p.max_clients; i++)
		if (s->clients[i] == c)
			return i;
	return UINT32_MAX;
}

static bool
job_granted(const struct uet_svc_server *s, uint32_t job)
{
	const struct uet_chan_jobs *js = &s->p.jobs;

	for (uint32_t i = 0; i < js->nb; i++)
		if (job >= js->r[i].first && job <= js->r[i].last)
			return true;
	return false;
}

/* ---- HELLO ---- */

static int
region_make(struct uet_svc_server *s, struct svc_client *c)
{
	char name[32];
	struct uet_svc_region *h;
	int fd;

	snprintf(name, sizeof(name), "uet-svc-%d", (int)c->pid);
	fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t)s->region_size) != 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW |
				   F_SEAL_SEAL) != 0)
		goto fail;
	c->region = mmap(NULL, s->region_size, PROT_READ | PROT_WRITE,
			 MAP_SHARED, fd, 0);
	if (c->region == MAP_FAILED) {
		c->region = NULL;
		goto fail;
	}
	c->memfd = fd;
	c->region_size = s->region_size;
	h = (struct uet_svc_region *)c->region;
	h->magic = UET_SVC_REGION_MAGIC;
	h->version = UET_SVC_VERSION;
	h->size = s->region_size;
	h->window_off = s->window_off;
	h->window_len = s->p.window_size;
	h->rings_off = s->rings_off;
	h->ring_slot_size = s->slot_size;
	h->max_chans = s->p.max_chans;
	return 0;

fail:
	{
		int err = -errno;

		close(fd);
		return err;
	}
}

/* @p path has the shape of a procfs mem file: /proc/PID/mem or
 * /proc/PID/task/TID/mem. */
static bool
proc_mem_path(const char *path)
{
	const char *p;
	size_t d;

	if (strncmp(path, "/proc/", strlen("/proc/")) != 0)
		return false;
	p = path + strlen("/proc/");
	d = strspn(p, "0123456789");
	if (d == 0)
		return false;
	p += d;
	if (strncmp(p, "/task/", strlen("/task/")) == 0) {
		p += strlen("/task/");
		d = strspn(p, "0123456789");
		if (d == 0)
			return false;
		p += d;
	}
	return strcmp(p, "/mem") == 0;
}

/*
 * The descriptor of HELLO's UET_SVC_HELLO_F_MEM: a procfs "mem" file,
 * nothing else (a FIFO, a FUSE file or a socket would let a client block
 * or confuse the engine's accesses). Whose address space it names needs
 * no check: the client opened it with its own rights, so it reaches only
 * memory the client could read and write itself. The path is read first
 * (readlink asks no file system): fstatfs() of a FUSE file whose server
 * never answers held the control thread (the security review), so only a
 * path of procfs's shape gets that far.
 */
static int
as_take(struct uet_svc_server *s, struct svc_client *c)
{
	char link[64], path[64];
	struct statfs fs;
	ssize_t n;
	int fl;

	if (c->nb_rx_fd != 1)
		return -EINVAL;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", c->rx_fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n < 0)
		return -EINVAL;
	path[n] = '\0';
	if (!proc_mem_path(path))
		return -EINVAL;
	fl = fcntl(c->rx_fd, F_GETFL);
	if (fl < 0 || (fl & O_ACCMODE) == O_WRONLY ||
	    fstatfs(c->rx_fd, &fs) != 0 || fs.f_type != PROC_SUPER_MAGIC)
		return -EINVAL;
	c->as_fd = c->rx_fd;
	c->as_wr = (fl & O_ACCMODE) == O_RDWR;
	c->rx_fd = -1;
	/* the engine's bounded accessor takes it and names it by a handle
	 * (docs/SERVICE.md "Memory access") */
	if (s->p.cma != NULL) {
		c->as_fd = uet_cma_async_open(s->p.cma, c->as_fd, c->uid);
		if (c->as_fd < 0) {
			int rc = c->as_fd;

			c->as_fd = -1;
			return rc;
		}
	}
	return 0;
}

/* The client's address space is no longer named by any key. */
void
svc_as_close(struct uet_svc_server *s, struct svc_client *c)
{
	if (c->as_fd < 0)
		return;
	if (s->p.cma != NULL)
		uet_cma_async_close(s->p.cma, c->as_fd);
	else
		close(c->as_fd);
	c->as_fd = -1;
}

static int
op_hello(struct uet_svc_server *s, struct svc_client *c,
	 const struct uet_svc_hello_req *q, struct uet_svc_hello_rep *r,
	 uint32_t *rep_len, int *fds, unsigned int *nb_fds)
{
	int rc;

	if (q->version != UET_SVC_VERSION)
		return -EPROTO;
	if ((q->flags & ~UET_SVC_HELLO_F_MEM) || q->rsvd != 0 ||
	    c->nb_rx_fd != ((q->flags & UET_SVC_HELLO_F_MEM) ? 1u : 0u))
		return -EINVAL;
	if (c->hello)
		return -EALREADY;
	rc = svc_quota_take(s, c, SVC_Q_WINDOW, s->region_size);
	if (rc < 0)
		return rc;
	rc = (q->flags & UET_SVC_HELLO_F_MEM) ? as_take(s, c) : 0;
	if (rc < 0) {
		svc_quota_put(c, SVC_Q_WINDOW, s->region_size);
		return rc;
	}
	rc = region_make(s, c);
	if (rc < 0) {
		svc_quota_put(c, SVC_Q_WINDOW, s->region_size);
		svc_as_close(s, c);
		return rc;
	}
	c->hello = true;
	memset(r, 0, sizeof(*r));
	r->region_size = s->region_size;
	r->window_off = s->window_off;
	r->window_len = s->p.window_size;
	r->page_size = UET_SVC_PAGE;
	r->max_msg = s->p.window_size;
	r->max_chans = s->p.max_chans;
	r->max_pids = s->p.max_pids;
	r->nb_ctx = s->nb_ctx;
	/* remote access to client memory: through its /proc/self/mem */
	r->caps = UET_SVC_CAP_RMA | (s->wake ? UET_SVC_CAP_WAKE : 0);
	r->mtu = s->p.mtu;
	r->ring_max = UET_SVC_RING_MAX;
	r->inject_max = 0;
	memcpy(r->fa, s->p.fa, sizeof(r->fa));
	r->is_v6 = s->p.is_v6;
	r->start_ri = s->p.start_ri;
	r->nb_jobs = s->p.jobs.nb;
	for (unsigned int i = 0; i < s->p.jobs.nb; i++) {
		r->jobs[i].first = s->p.jobs.r[i].first;
		r->jobs[i].last = s->p.jobs.r[i].last;
	}
	*rep_len = sizeof(*r);
	fds[(*nb_fds)++] = c->memfd;
	fds[(*nb_fds)++] = s->page_ro;
	for (unsigned int i = 0; i < s->nb_ctx; i++)
		fds[(*nb_fds)++] = s->efd[i];
	return 0;
}

/* ---- PID_GET / PID_PUT ---- */

static int
pid_take(struct uet_svc_server *s, struct svc_client *c, uint16_t pid)
{
	unsigned int k = pid - ((unsigned int)s->p.pid_base + s->nb_ctx);
	struct svc_pid *p = &c->pids[c->nb_pids];

	s->pid_owner[k] = (uint16_t)(client_slot(s, c) + 1);
	p->pid = pid;
	p->ctx = (uint16_t)svc_pid_ctx(s, pid);
	p->initiator = pid_initiator(s, pid);
	c->nb_pids++;
	s->st.pids++;
	return 0;
}

/* A free client PIDonFEP: on @p ctx, or on the context with the fewest
 * taken (UET_SVC_CTX_ANY). 0 when none. */
static uint16_t
pid_pick(const struct uet_svc_server *s, unsigned int ctx)
{
	unsigned int first = (unsigned int)s->p.pid_base + s->nb_ctx;
	unsigned int best = UINT32_MAX, best_free = 0;

	for (unsigned int x = 0; x < s->nb_ctx; x++) {
		unsigned int nfree = 0;

		if (ctx != UET_SVC_CTX_ANY && x != ctx)
			continue;
		for (unsigned int j = 0; j < UET_SVC_PIDS_PER_CTX; j++)
			nfree += s->pid_owner[x * UET_SVC_PIDS_PER_CTX + j] == 0;
		if (nfree > best_free) {
			best = x;
			best_free = nfree;
		}
	}
	if (best == UINT32_MAX)
		return 0;
	for (unsigned int j = 0; j < UET_SVC_PIDS_PER_CTX; j++) {
		unsigned int k = best * UET_SVC_PIDS_PER_CTX + j;

		if (s->pid_owner[k] == 0)
			return (uint16_t)(first + k);
	}
	return 0;
}

static int
op_pid_get(struct uet_svc_server *s, struct svc_client *c,
	   const struct uet_svc_pid_get_req *q, struct uet_svc_pid_get_rep *r,
	   uint32_t *rep_len)
{
	uint16_t pid;
	int rc;

	if (q->rsvd != 0 ||
	    (q->ctx != UET_SVC_CTX_ANY && q->ctx >= s->nb_ctx))
		return -EINVAL;
	if (c->nb_pids >= s->p.max_pids)
		return -ENOSPC;
	if (q->want != 0) {
		int x = svc_pid_ctx(s, q->want);

		if (x < 0 || (q->ctx != UET_SVC_CTX_ANY && x != q->ctx))
			return -EINVAL;
		if (s->pid_owner[q->want - s->p.pid_base - s->nb_ctx] != 0)
			return -EADDRINUSE;
		pid = q->want;
	} else {
		pid = pid_pick(s, q->ctx);
		if (pid == 0)
			return -ENOSPC;
	}
	rc = svc_quota_take(s, c, SVC_Q_PIDS, 1);
	if (rc < 0)
		return rc;
	pid_take(s, c, pid);
	r->pid = pid;
	r->ctx = (uint16_t)svc_pid_ctx(s, pid);
	r->initiator = pid_initiator(s, pid);
	*rep_len = sizeof(*r);
	return 0;
}

void
svc_pid_drop(struct uet_svc_server *s, struct svc_client *c, struct svc_pid *p)
{
	s->pid_owner[p->pid - s->p.pid_base - s->nb_ctx] = 0;
	*p = c->pids[--c->nb_pids];
	s->st.pids--;
	svc_quota_put(c, SVC_Q_PIDS, 1);
}

static int
op_pid_put(struct uet_svc_server *s, struct svc_client *c,
	   const struct uet_svc_pid_put_req *q)
{
	struct svc_pid *p;

	if (q->rsvd0 != 0 || q->rsvd1 != 0)
		return -EINVAL;
	p = own_pid(c, q->pid);
	if (p == NULL)
		return -EPERM;
	for (unsigned int i = 0; i < s->p.max_chans; i++)
		if (c->chans[i].open && c->chans[i].pid == q->pid)
			return -EBUSY;
	for (unsigned int i = 0; i < c->nb_jobs; i++)
		if (c->jobs[i].pid == q->pid)
			return -EBUSY;
	svc_pid_drop(s, c, p);
	return 0;
}

/* ---- channels ---- */

/* Detaching needs the lcores stopped: a short pause of the engine. */
void
svc_chans_detach(struct uet_svc_server *s, struct svc_chan **v,
		 unsigned int n)
{
	bool running = uet_engine_running(s->p.engine);

	if (n == 0)
		return;
	if (running)
		(void)uet_engine_stop(s->p.engine);
	for (unsigned int i = 0; i < n; i++)
		(void)uet_engine_chan_detach(s->p.engine, &v[i]->ch);
	if (running && uet_engine_start(s->p.engine) < 0)
		SVC_LOG(ERR, "engine restart after a detach failed");
}

static void
region_slot_set(struct svc_client *c, unsigned int slot,
		const struct svc_chan *sc, const size_t off[3], size_t base)
{
	struct uet_svc_region *h = (struct uet_svc_region *)c->region;
	struct uet_svc_region_chan *rc = &h->chan[slot];

	memset(rc, 0, sizeof(*rc));
	if (sc == NULL)
		return;
	rc->state = UET_SVC_CHAN_OPEN;
	rc->ctx = sc->ctx;
	rc->pid = sc->pid;
	rc->sq_size = sc->ch.sq_mask + 1;
	rc->rq_size = sc->ch.rq_mask + 1;
	rc->cq_size = sc->ch.cq_mask + 1;
	rc->flags = sc->ch.flags & ~UET_CHAN_SHARED;
	rc->sq_off = base + off[0];
	rc->rq_off = base + off[1];
	rc->cq_off = base + off[2];
}

static bool
ring_size_ok(uint32_t n)
{
	return n >= 2 && n <= UET_SVC_RING_MAX && rte_is_power_of_2(n);
}

static int
chan_bind(struct uet_svc_server *s, struct svc_client *c,
	  struct svc_chan *sc, const struct uet_svc_chan_open_req *q,
	  const struct svc_pid *p)
{
	struct uet_ses_ulp_ctl r;
	int rc;

	/* room first: the EP_DEL undoing an EP_ADD whose attach failed
	 * could wait behind a departed client's withdrawn sends (the
	 * control thread is the only one attaching) */
	if (uet_engine_lcore_nb_chans(uet_engine_lcore_get(s->p.engine,
							   p->ctx)) >=
	    UET_ENGINE_CHANS_MAX)
		return -ENOSPC;
	memset(&r, 0, sizeof(r));
	r.op = UET_SES_ULP_EP_ADD;
	/* its descriptors name its client's peers only */
	r.owner_id = c->owner_id;
	r.chan = &sc->ch;
	r.pid = p->pid;
	r.initiator = p->initiator;
	r.remote_events = q->remote_events != 0;
	r.profile = (enum uet_wire_profile)q->profile;
	/* its operations in progress take at most this many of the
	 * context's op records: posted receives that never complete
	 * starve nobody else (quotas spare root and the service's uid) */
	r.ops_max = c->user != NULL && c->user->privileged ? 0 :
		    s->p.pid_ops;
	rc = svc_ctl(s, p->ctx, &r);
	if (rc < 0)
		return rc;
	rc = uet_engine_chan_attach(s->p.engine, p->ctx, &sc->ch);
	if (rc < 0) {
		memset(&r, 0, sizeof(r));
		r.op = UET_SES_ULP_EP_DEL;
		r.chan = &sc->ch;
		(void)svc_ctl(s, p->ctx, &r);
		return rc;
	}
	return 0;
}

static int
op_chan_open(struct uet_svc_server *s, struct svc_client *c,
	     const struct uet_svc_chan_open_req *q,
	     struct uet_svc_chan_open_rep *r, uint32_t *rep_len)
{
	const unsigned int ok = UET_CHAN_MP_SUBMIT | UET_CHAN_MC_COMPLETE;
	const struct svc_pid *p;
	struct svc_chan *sc = NULL;
	unsigned int slot;
	size_t off[3], base;
	char name[24];
	int rc;

	if (q->rsvd != 0 || q->remote_events > 1 ||
	    q->profile > UET_PROFILE_HPC || (q->flags & ~ok) ||
	    !ring_size_ok(q->sq_size) || !ring_size_ok(q->rq_size) ||
	    !ring_size_ok(q->cq_size))
		return -EINVAL;
	p = own_pid(c, q->pid);
	if (p == NULL)
		return -EPERM;
	for (slot = 0; slot < s->p.max_chans; slot++)
		if (!c->chans[slot].open)
			break;
	if (slot == s->p.max_chans)
		return -ENOSPC;
	sc = &c->chans[slot];
	base = s->rings_off + slot * s->slot_size;
	if (uet_chan_mem_size(q->sq_size, q->rq_size, q->cq_size, off) == 0)
		return -EINVAL;
	snprintf(name, sizeof(name), "s%d.%u", (int)(c->pid % 100000), slot);
	rc = uet_chan_init_mem(&sc->ch, name, c->region + base, s->slot_size,
			       q->sq_size, q->rq_size, q->cq_size,
			       q->flags | UET_CHAN_SHARED);
	if (rc < 0)
		return rc;
	sc->ch.win_base = c->region + s->window_off;
	sc->ch.win_len = s->p.window_size;
	sc->ctx = p->ctx;
	sc->pid = p->pid;
	rc = svc_chan_jobs(s, c, sc, false);
	if (rc < 0)
		return rc;
	rc = chan_bind(s, c, sc, q, p);
	if (rc < 0)
		return rc;
	sc->open = true;
	s->st.chans++;
	region_slot_set(c, slot, sc, off, base);
	r->slot = slot;
	r->ctx = sc->ctx;
	r->rsvd = 0;
	r->sq_off = base + off[0];
	r->rq_off = base + off[1];
	r->cq_off = base + off[2];
	*rep_len = sizeof(*r);
	return 0;
}

/* After the detach: EP_DEL answers once the SES let go of the channel's
 * buffers (the withdraw path of a closed endpoint), with @p rc. An
 * EP_DEL the lcore did not take (-ETIMEDOUT: a stalled lcore), did not
 * answer (-EINPROGRESS) or that was never posted (-EAGAIN: the
 * context's control ring full; -ENOMEM) leaves the SES holding the
 * channel, its rings in the client's region: the channel stays open
 * (its slot not reused, the region kept mapped, svc_client_unmap) and
 * the error goes back. */
static int
chan_unbound(struct uet_svc_server *s, struct svc_client *c,
	     struct svc_chan *sc, int rc)
{
	if (rc == -ETIMEDOUT || rc == -EINPROGRESS || rc == -EAGAIN ||
	    rc == -ENOMEM) {
		SVC_LOG(ERR, "client %d: EP_DEL of %s unanswered (%d): the "
			"channel is kept", (int)c->pid, sc->ch.name, rc);
		s->st.chan_held++;
		return rc;
	}
	if (rc < 0)
		SVC_LOG(WARNING, "client %d: EP_DEL of %s: %d", (int)c->pid,
			sc->ch.name, rc);
	sc->open = false;
	s->st.chans--;
	region_slot_set(c, (unsigned int)(sc - c->chans), NULL, NULL, 0);
	return 0;
}

static void
ep_del_make(struct uet_ses_ulp_ctl *r, struct svc_chan *sc)
{
	memset(r, 0, sizeof(*r));
	r->op = UET_SES_ULP_EP_DEL;
	r->chan = &sc->ch;
}

static int
chan_unbind(struct uet_svc_server *s, struct svc_client *c,
	    struct svc_chan *sc)
{
	struct uet_ses_ulp_ctl r;

	ep_del_make(&r, sc);
	return chan_unbound(s, c, sc, svc_ctl(s, sc->ctx, &r));
}

/* Answered at once when the lcore answers within SVC_CTL_QUICK_MS;
 * a channel with sends still on the wire is answered later, others'
 * requests served meanwhile. */
static int
op_chan_close(struct uet_svc_server *s, struct svc_client *c,
	      const struct uet_svc_chan_close_req *q)
{
	struct uet_ses_ulp_ctl r;
	struct svc_chan *sc;
	int rc;

	if (q->rsvd != 0)
		return -EINVAL;
	if (q->slot >= s->p.max_chans || !c->chans[q->slot].open)
		return -ENOENT;
	sc = &c->chans[q->slot];
	svc_chans_detach(s, &sc, 1);
	ep_del_make(&r, sc);
	rc = ctl_quick(s, c, sc->ctx, &r);
	if (rc != SVC_DEFERRED)
		return chan_unbound(s, c, sc, rc);
	c->wait.req = UET_SVC_OP_CHAN_CLOSE;
	c->wait.chan = sc;
	return rc;
}

/* ---- jobs ---- */

static struct svc_job *
job_find(struct svc_client *c, uint32_t job, uint16_t pid)
{
	for (unsigned int i = 0; i < c->nb_jobs; i++)
		if (c->jobs[i].job == job && c->jobs[i].pid == pid)
			return &c->jobs[i];
	return NULL;
}

static void
job_req_make(struct uet_ses_ulp_ctl *r, uint8_t op, uint32_t job,
	     const struct svc_pid *p)
{
	memset(r, 0, sizeof(*r));
	r->op = op;
	r->job = job;
	r->has_pid = true;
	r->pid = p->pid;
	/* a client's memory regions resolve through its own PIDonFEP only */
	r->own_rma = true;
}

static int
job_ctl(struct uet_svc_server *s, uint8_t op, uint32_t job,
	const struct svc_pid *p)
{
	struct uet_ses_ulp_ctl r;

	job_req_make(&r, op, job, p);
	return svc_ctl(s, p->ctx, &r);
}

static void
job_forget(struct uet_svc_server *s, struct svc_client *c,
	   struct svc_job *j)
{
	svc_job_end(s, c, j->job);
	*j = c->jobs[--c->nb_jobs];
	s->st.jobs--;
}

/* The engine's answer @p rc to the JOB_DEL of the client's last
 * reference to {@p job, @p pid}. */
static int
job_deleted(struct uet_svc_server *s, struct svc_client *c, uint32_t job,
	    uint16_t pid, int rc)
{
	struct svc_job *j = job_find(c, job, pid);

	if (rc < 0)
		return rc;
	if (j != NULL) {
		j->ref = 0;
		job_forget(s, c, j);
	}
	svc_chans_jobs(s, c, pid);
	return 0;
}

static int
op_job(struct uet_svc_server *s, struct svc_client *c,
	const struct uet_svc_job_req *q, bool add)
{
	struct uet_ses_ulp_ctl r;
	const struct svc_pid *p;
	struct svc_job *j;
	int rc;

	if (q->rsvd != 0 || q->job > 0xFFFFFFu)
		return -EINVAL;
	p = own_pid(c, q->pid);
	if (p == NULL || !job_granted(s, q->job))
		return -EPERM;
	j = job_find(c, q->job, q->pid);
	/*
	 * The engine holds one reference per {job, PIDonFEP} of a client,
	 * the service counts the client's (an endpoint and a memory key
	 * each): a repeated JOB_ADD or JOB_DEL is counted here, and the
	 * client's going releases each pair in one engine request. The
	 * security review's 10^6 JOB_ADDs had cost a release step each at
	 * its BYE, stalling every client's control requests 8 s.
	 */
	if (!add) {
		if (j == NULL)
			return -ENOENT;
		if (j->ref > 1) {
			j->ref--;
			return 0;
		}
		job_req_make(&r, UET_SES_ULP_JOB_DEL, q->job, p);
		rc = ctl_quick(s, c, p->ctx, &r);
		if (rc != SVC_DEFERRED)
			return job_deleted(s, c, q->job, q->pid, rc);
		c->wait.req = UET_SVC_OP_JOB_DEL;
		c->wait.job = q->job;
		c->wait.pid = q->pid;
		return rc;
	}
	rc = svc_job_allowed(s, c, q->job);
	if (rc < 0)
		return rc;
	if (j != NULL) {
		/* an endpoint or a memory key each, at most */
		if (j->ref >= s->p.max_chans + UET_SVC_CLIENT_MRS_MAX)
			return -EDQUOT;
		j->ref++;
		return 0;
	}
	if (c->nb_jobs >= UET_SVC_CLIENT_JOBS_MAX)
		return -ENOSPC;
	rc = svc_chan_jobs_room(s, c, q->pid);
	if (rc == 0)
		rc = svc_job_begin(s, c, q->job);
	if (rc < 0)
		return rc;
	rc = job_ctl(s, UET_SES_ULP_JOB_ADD, q->job, p);
	if (rc < 0) {
		svc_job_end(s, c, q->job);
		return rc;
	}
	j = &c->jobs[c->nb_jobs++];
	j->job = q->job;
	j->pid = q->pid;
	j->ref = 1;
	s->st.jobs++;
	svc_chans_jobs(s, c, q->pid);
	return 0;
}

/* ---- peers ---- */

/* Grow a bookkeeping array of @p esz-byte entries up to @p max. */
static int
grow(void **arr, unsigned int *cap, unsigned int n, size_t esz,
     unsigned int max)
{
	unsigned int ncap;
	void *p;

	if (n < *cap)
		return 0;
	if (n >= max)
		return -ENOSPC;
	ncap = *cap ? RTE_MIN(*cap * 2, max) : 16;
	p = realloc(*arr, (size_t)ncap * esz);
	if (p == NULL)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

static int
op_peer_add(struct uet_svc_server *s, struct svc_client *c,
	    const struct uet_svc_peer_add_req *q,
	    struct uet_svc_peer_add_rep *r, uint32_t *rep_len)
{
	struct uet_ses_ulp_ctl x;
	int rc;

	if (q->rsvd0 != 0 || q->rsvd1 != 0 || q->ctx >= s->nb_ctx ||
	    q->peer.pid_on_fep > 0xFFF || q->peer.start_ri > 0xFFF)
		return -EINVAL;
	if (!owns_ctx(c, q->ctx))
		return -EPERM;
	rc = grow((void **)&c->peers, &c->cap_peers, c->nb_peers,
		  sizeof(*c->peers), UET_SVC_CLIENT_PEERS_MAX);
	if (rc == 0)
		rc = svc_quota_take(s, c, SVC_Q_PEERS, 1);
	if (rc < 0)
		return rc;
	memset(&x, 0, sizeof(x));
	x.op = UET_SES_ULP_PEER_ADD;
	x.owner_id = c->owner_id;
	x.peer = q->peer;
	rc = svc_ctl(s, q->ctx, &x);
	if (rc < 0) {
		svc_quota_put(c, SVC_Q_PEERS, 1);
		return rc;
	}
	c->peers[c->nb_peers].handle = x.handle;
	c->peers[c->nb_peers].ctx = q->ctx;
	c->nb_peers++;
	s->st.peers++;
	r->handle = x.handle;
	*rep_len = sizeof(*r);
	return 0;
}

static int
peer_del_at(struct uet_svc_server *s, struct svc_client *c, unsigned int i)
{
	struct uet_ses_ulp_ctl x;
	int rc;

	memset(&x, 0, sizeof(x));
	x.op = UET_SES_ULP_PEER_DEL;
	x.owner_id = c->owner_id;
	x.handle = c->peers[i].handle;
	rc = svc_ctl(s, c->peers[i].ctx, &x);
	c->peers[i] = c->peers[--c->nb_peers];
	s->st.peers--;
	svc_quota_put(c, SVC_Q_PEERS, 1);
	return rc;
}

static int
op_peer_del(struct uet_svc_server *s, struct svc_client *c,
	    const struct uet_svc_peer_del_req *q)
{
	if (q->rsvd0 != 0 || q->rsvd1 != 0 || q->ctx >= s->nb_ctx)
		return -EINVAL;
	for (unsigned int i = 0; i < c->nb_peers; i++)
		if (c->peers[i].handle == q->handle &&
		    c->peers[i].ctx == q->ctx)
			return peer_del_at(s, c, i);
	return -ENOENT;
}

/* ---- memory ---- */

#define SVC_MR_REMOTE (UET_SES_MR_REMOTE_READ | UET_SES_MR_REMOTE_WRITE | \
		       UET_SES_MR_REMOTE_ATOMIC)

/*
 * Remote access: the engine reaches the client's memory through the
 * /proc/self/mem descriptor of its HELLO (owner = that descriptor, never
 * a PID: once the client exits or execs, the descriptor reaches nothing),
 * in the RMA table of the client's own {job, PIDonFEP} (JOB_ADD with
 * own_rma): its key resolves for no other process. No descriptor, or a
 * read-only one for remote write or atomic access: -EPERM; an address
 * the client has not mapped: -EFAULT; the address space gone: -ESRCH.
 */
static int
mr_reg_remote(struct uet_svc_server *s, struct svc_client *c,
	      const struct svc_pid *p, const struct uet_svc_mr_reg_req *q,
	      uint64_t *key)
{
	struct uet_ses_ulp_ctl x;
	int rc;

	if (c->as_fd <= 0 || (!c->as_wr && (q->access &
	    (UET_SES_MR_REMOTE_WRITE | UET_SES_MR_REMOTE_ATOMIC))))
		return -EPERM;
	memset(&x, 0, sizeof(x));
	x.op = UET_SES_ULP_MR_REG;
	x.job = q->job;
	x.has_pid = true;
	x.pid = p->pid;
	x.base = (uintptr_t)q->addr;
	x.len = q->len;
	x.access = q->access;
	x.idempotent = q->idempotent != 0;
	x.disabled = q->disabled != 0;
	x.owner = c->as_fd;
	rc = svc_ctl(s, p->ctx, &x);
	if (rc == 0)
		*key = x.key;
	/* maybe registered, key unknown: the descriptor it names stays */
	if (rc == -EINPROGRESS)
		c->as_pinned = true;
	return rc;
}

static int
op_mr_reg(struct uet_svc_server *s, struct svc_client *c,
	  const struct uet_svc_mr_reg_req *q, struct uet_svc_mr_reg_rep *r,
	  uint32_t *rep_len)
{
	const struct svc_pid *p;
	int rc;

	if (q->rsvd != 0 || q->len == 0 || q->idempotent > 1 ||
	    q->disabled > 1 || (q->access & ~UET_SES_MR_ACCESS_MASK) ||
	    q->job > 0xFFFFFFu || q->addr + q->len < q->addr)
		return -EINVAL;
	p = own_pid(c, q->pid);
	if (p == NULL || !job_granted(s, q->job))
		return -EPERM;
	rc = svc_job_allowed(s, c, q->job);
	if (rc == 0)
		rc = grow((void **)&c->mrs, &c->cap_mrs, c->nb_mrs,
			  sizeof(*c->mrs), UET_SVC_CLIENT_MRS_MAX);
	if (rc == 0)
		rc = svc_quota_take(s, c, SVC_Q_MRS, 1);
	if (rc < 0)
		return rc;
	if (q->access & SVC_MR_REMOTE) {
		rc = mr_reg_remote(s, c, p, q, &c->mrs[c->nb_mrs].key);
		if (rc < 0) {
			svc_quota_put(c, SVC_Q_MRS, 1);
			return rc;
		}
		c->mrs[c->nb_mrs].local = false;
	} else {
		/* a local-only key means nothing to the engine: a number
		 * of the client's own, so that MR_DEREG/MR_ENABLE find it */
		c->mrs[c->nb_mrs].key = ++c->next_local_key;
		c->mrs[c->nb_mrs].local = true;
	}
	c->mrs[c->nb_mrs].ctx = p->ctx;
	c->mrs[c->nb_mrs].pid = p->pid;
	c->mrs[c->nb_mrs].job = q->job;
	r->key = c->mrs[c->nb_mrs].key;
	c->nb_mrs++;
	s->st.mrs++;
	*rep_len = sizeof(*r);
	return 0;
}

static int
mr_find(const struct uet_svc_server *s, const struct svc_client *c,
	const struct uet_svc_mr_key_req *q)
{
	int ctx = svc_pid_ctx(s, q->pid);

	if (ctx < 0)
		return -ENOENT;
	for (unsigned int i = 0; i < c->nb_mrs; i++)
		if (c->mrs[i].key == q->key && c->mrs[i].ctx == ctx)
			return (int)i;
	return -ENOENT;
}

/* The engine's answer @p rc to the MR_DEREG of the client's key @p i:
 * one not answered may live on, kept to try again (and the client's
 * /proc/self/mem open while it does). */
static int
mr_dereged(struct uet_svc_server *s, struct svc_client *c, unsigned int i,
	   int rc)
{
	if (rc < 0 && rc != -ENOENT)
		return rc;
	c->mrs[i] = c->mrs[--c->nb_mrs];
	s->st.mrs--;
	svc_quota_put(c, SVC_Q_MRS, 1);
	return 0;
}

static void
mr_dereg_make(struct uet_ses_ulp_ctl *x, const struct svc_mr *m)
{
	memset(x, 0, sizeof(*x));
	x->op = UET_SES_ULP_MR_DEREG;
	x->key = m->key;
}

static int
mr_dereg_at(struct uet_svc_server *s, struct svc_client *c, unsigned int i)
{
	struct uet_ses_ulp_ctl x;

	if (c->mrs[i].local)
		return mr_dereged(s, c, i, 0);
	mr_dereg_make(&x, &c->mrs[i]);
	return mr_dereged(s, c, i, svc_ctl(s, c->mrs[i].ctx, &x));
}

static int
op_mr_key(struct uet_svc_server *s, struct svc_client *c,
	  const struct uet_svc_mr_key_req *q, bool dereg)
{
	int i;

	if (q->rsvd0 != 0 || q->rsvd1 != 0 || q->disabled > 1 ||
	    (dereg && q->disabled != 0))
		return -EINVAL;
	i = mr_find(s, c, q);
	if (i < 0)
		return i;
	if (dereg && !c->mrs[i].local) {
		struct uet_ses_ulp_ctl x;
		int rc;

		/* answered once the READ responses of its region in flight
		 * were acknowledged: may take a while */
		mr_dereg_make(&x, &c->mrs[i]);
		rc = ctl_quick(s, c, c->mrs[i].ctx, &x);
		if (rc != SVC_DEFERRED)
			return mr_dereged(s, c, (unsigned int)i, rc);
		c->wait.req = UET_SVC_OP_MR_DEREG;
		c->wait.mr = (unsigned int)i;
		return rc;
	}
	if (dereg)
		return mr_dereged(s, c, (unsigned int)i, 0);
	if (!c->mrs[i].local) {
		struct uet_ses_ulp_ctl x;

		memset(&x, 0, sizeof(x));
		x.op = UET_SES_ULP_MR_ENABLE;
		x.key = q->key;
		x.disabled = q->disabled != 0;
		return svc_ctl(s, c->mrs[i].ctx, &x);
	}
	return 0;
}

/* ---- requests whose reply waits ---- */

bool
svc_wait_poll(struct uet_svc_server *s, struct svc_client *c, int *rc)
{
	struct uet_ses_ulp_ctl q;

	if (c->wait.op == NULL || uet_ses_ulp_ctl_poll(c->wait.op, &q) != 0)
		return false;
	c->wait.op = NULL;
	if (c->wait.req == UET_SVC_OP_CHAN_CLOSE)
		*rc = chan_unbound(s, c, c->wait.chan, q.rc);
	else if (c->wait.req == UET_SVC_OP_JOB_DEL)
		*rc = job_deleted(s, c, c->wait.job, c->wait.pid, q.rc);
	else
		*rc = mr_dereged(s, c, c->wait.mr, q.rc);
	c->wait.chan = NULL;
	return true;
}

/* What the engine request that request @p op of @p c would send touches
 * (t->ctx -1: none, or one its handler refuses before any). */
static void
op_touch(const struct uet_svc_server *s, struct svc_client *c,
	 unsigned int op, const void *body, struct svc_touch *t)
{
	const struct svc_pid *p = NULL;
	int i;

	*t = (struct svc_touch){ .ctx = -1, .pid = -1, .job = -1 };
	switch (op) {
	case UET_SVC_OP_CHAN_OPEN:
		p = own_pid(c, ((const struct uet_svc_chan_open_req *)body)->pid);
		break;
	case UET_SVC_OP_CHAN_CLOSE: {
		const struct uet_svc_chan_close_req *q = body;

		if (q->slot < s->p.max_chans && c->chans[q->slot].open) {
			t->ctx = c->chans[q->slot].ctx;
			t->pid = c->chans[q->slot].pid;
			t->chan = &c->chans[q->slot].ch;
		}
		return;
	}
	case UET_SVC_OP_JOB_ADD:
	case UET_SVC_OP_JOB_DEL: {
		const struct uet_svc_job_req *q = body;
		const struct svc_job *j = job_find(c, q->job, q->pid);

		/* another reference of a job it has, or one of several
		 * dropped: counted here, nothing asked of the engine */
		if (j != NULL && (op == UET_SVC_OP_JOB_ADD || j->ref > 1))
			return;
		p = own_pid(c, q->pid);
		t->job = q->job;
		break;
	}
	case UET_SVC_OP_MR_REG:
		p = own_pid(c, ((const struct uet_svc_mr_reg_req *)body)->pid);
		t->job = ((const struct uet_svc_mr_reg_req *)body)->job;
		break;
	case UET_SVC_OP_MR_DEREG:
	case UET_SVC_OP_MR_ENABLE:
		i = mr_find(s, c, body);
		if (i >= 0 && !c->mrs[i].local) {
			t->ctx = c->mrs[i].ctx;
			t->pid = c->mrs[i].pid;
			t->job = c->mrs[i].job;
		}
		return;
	default:
		/* PEER_ADD, PEER_DEL: the lcore holds none of them */
		return;
	}
	if (p != NULL) {
		t->ctx = p->ctx;
		t->pid = p->pid;
	}
}

unsigned int
svc_held_touches(struct uet_svc_server *s)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < s->p.max_clients; i++)
		if (s->clients[i] != NULL &&
		    svc_client_touch(s->clients[i], &s->touch[n]))
			n++;
	for (unsigned int i = 0; i < s->nb_zombies; i++)
		if (svc_client_touch(s->zombies[i], &s->touch[n]))
			n++;
	return n;
}

/* Whether the lcore would hold @p b behind @p a (pmd/ses_ulp/ctl.c). */
static bool
touch_conflict(const struct svc_touch *a, const struct svc_touch *b)
{
	if (a->ctx < 0 || a->ctx != b->ctx)
		return false;
	return a->all || b->all || (a->pid >= 0 && a->pid == b->pid) ||
	       (a->job >= 0 && a->job == b->job) ||
	       (a->chan != NULL && a->chan == b->chan);
}

bool
svc_op_waits(struct uet_svc_server *s, struct svc_client *c, unsigned int op,
	     const void *body, unsigned int *nb_held)
{
	unsigned int closing = 0;
	struct svc_touch t;

	if (op == UET_SVC_OP_PID_GET) {
		uint16_t want = ((const struct uet_svc_pid_get_req *)body)->want;

		/* a departed client's, free once its release ends: the
		 * same program's next run asks for it again */
		for (unsigned int i = 0; want != 0 && i < s->nb_zombies; i++)
			for (unsigned int k = 0; k < s->zombies[i]->nb_pids; k++)
				if (s->zombies[i]->pids[k].pid == want)
					return true;
		return false;
	}
	op_touch(s, c, op, body, &t);
	if (t.ctx < 0)
		return false;
	if (*nb_held == UINT_MAX)
		*nb_held = svc_held_touches(s);
	for (unsigned int i = 0; i < *nb_held; i++) {
		const struct svc_touch *h = &s->touch[i];

		if (touch_conflict(h, &t))
			return true;
		if (h->ctx != t.ctx)
			continue;
		if (h->chan != NULL)
			closing++;
		/* the engine's job table may be full: a JOB_ADD goes after
		 * a held JOB_DEL (ses_ulp_job_room, unknown here) */
		if (h->job_del && op == UET_SVC_OP_JOB_ADD)
			return true;
	}
	/* a CHAN_OPEN's EP_ADD goes after a held EP_DEL when the
	 * context's bindings are full: its channels attached, those
	 * closing and those kept (chan_held, all contexts) */
	return op == UET_SVC_OP_CHAN_OPEN && closing != 0 &&
	       uet_engine_lcore_nb_chans(uet_engine_lcore_get(s->p.engine,
							     t.ctx)) +
	       closing + s->st.chan_held >= UET_ENGINE_CHANS_MAX;
}

/* A client released synchronously (the service stopping) with a request
 * waiting: its answer first, within the bound of a synchronous one. */
static void
wait_end(struct uet_svc_server *s, struct svc_client *c)
{
	int rc;

	for (unsigned int ms = 0; c->wait.op != NULL && ms < 65000; ms++) {
		if (svc_wait_poll(s, c, &rc))
			return;
		usleep(1000);
	}
	/* past it: what it was for is released below as if never asked
	 * (a second EP_DEL, JOB_DEL or MR_DEREG queued behind it); the
	 * lcore may still answer into the first: left allocated */
	c->wait.op = NULL;
	c->wait.chan = NULL;
}

/* ---- release ---- */

void
svc_client_release(struct uet_svc_server *s, struct svc_client *c)
{
	struct svc_chan *open[UET_SVC_CHANS_MAX];
	unsigned int n = 0;
	bool keep_as;

	wait_end(s, c);
	for (unsigned int i = 0; c->chans != NULL && i < s->p.max_chans; i++)
		if (c->chans[i].open)
			open[n++] = &c->chans[i];
	/* the engine stops reading the rings, then the SES lets go of the
	 * window (JOB_DEL / EP_DEL wait for it), then the region goes */
	svc_chans_detach(s, open, n);
	/* regions before jobs: a job's RMA table goes only once empty */
	for (unsigned int i = c->nb_mrs; i-- > 0;)
		(void)mr_dereg_at(s, c, i);
	while (c->nb_jobs > 0) {
		struct svc_job *j = &c->jobs[c->nb_jobs - 1];
		const struct svc_pid *p = own_pid(c, j->pid);

		if (p != NULL && j->ref > 0)
			(void)job_ctl(s, UET_SES_ULP_JOB_DEL, j->job, p);
		j->ref = 0;
		job_forget(s, c, j);
	}
	for (unsigned int i = 0; i < n; i++)
		(void)chan_unbind(s, c, open[i]);
	while (c->nb_peers > 0)
		(void)peer_del_at(s, c, c->nb_peers - 1);
	/* a key the engine did not let go of may still name the client's
	 * address space: its descriptor stays open (reaching a dead address
	 * space) rather than be reused for another client's */
	keep_as = c->nb_mrs != 0 || c->as_pinned;
	if (keep_as) {
		SVC_LOG(ERR, "client pid %d: %u key(s) not released, its "
			"memory descriptor kept", (int)c->pid, c->nb_mrs);
		/* the uid's quota back, as the background release gives it
		 * (svc_release.c): the keys are the engine's to drop now */
		svc_quota_put(c, SVC_Q_MRS, c->nb_mrs);
		s->st.mrs -= c->nb_mrs;
		c->nb_mrs = 0;
	}
	svc_client_unmap(s, c, keep_as);
}

void
svc_client_unmap(struct uet_svc_server *s, struct svc_client *c,
		 bool keep_as)
{
	bool held = false;

	for (unsigned int i = 0; c->chans != NULL && i < s->p.max_chans; i++)
		held |= c->chans[i].open;
	while (c->nb_pids > 0)
		svc_pid_drop(s, c, &c->pids[c->nb_pids - 1]);
	/* a channel the SES did not let go of (chan_unbind) may still
	 * write its rings: the region stays mapped rather than be reused */
	if (c->region != NULL && held)
		SVC_LOG(ERR, "client pid %d: a channel not released, its "
			"region kept mapped", (int)c->pid);
	else if (c->region != NULL)
		(void)munmap(c->region, c->region_size);
	if (c->region != NULL)
		svc_quota_put(c, SVC_Q_WINDOW, c->region_size);
	c->region = NULL;
	if (c->memfd >= 0)
		close(c->memfd);
	c->memfd = -1;
	if (!keep_as)
		svc_as_close(s, c);
	c->as_fd = -1;
	c->hello = false;
}

/* ---- dispatch ---- */

int
svc_op(struct uet_svc_server *s, struct svc_client *c, unsigned int op,
       const void *body, void *rep, uint32_t *rep_len, int *fds,
       unsigned int *nb_fds)
{
	*rep_len = 0;
	*nb_fds = 0;
	if (op == UET_SVC_OP_HELLO)
		return op_hello(s, c, body, rep, rep_len, fds, nb_fds);
	if (c->nb_rx_fd != 0)
		return -EINVAL; /* no other request carries descriptors */
	if (!c->hello)
		return -EPROTO;
	switch (op) {
	case UET_SVC_OP_PID_GET:
		return op_pid_get(s, c, body, rep, rep_len);
	case UET_SVC_OP_PID_PUT:
		return op_pid_put(s, c, body);
	case UET_SVC_OP_CHAN_OPEN:
		return op_chan_open(s, c, body, rep, rep_len);
	case UET_SVC_OP_CHAN_CLOSE:
		return op_chan_close(s, c, body);
	case UET_SVC_OP_JOB_ADD:
		return op_job(s, c, body, true);
	case UET_SVC_OP_JOB_DEL:
		return op_job(s, c, body, false);
	case UET_SVC_OP_PEER_ADD:
		return op_peer_add(s, c, body, rep, rep_len);
	case UET_SVC_OP_PEER_DEL:
		return op_peer_del(s, c, body);
	case UET_SVC_OP_MR_REG:
		return op_mr_reg(s, c, body, rep, rep_len);
	case UET_SVC_OP_MR_DEREG:
		return op_mr_key(s, c, body, true);
	case UET_SVC_OP_MR_ENABLE:
		return op_mr_key(s, c, body, false);
	case UET_SVC_OP_BYE:
		return 0;
	default:
		return -EINVAL;
	}
}
