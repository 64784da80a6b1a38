/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Address vector, FI_AV_TABLE (fi_addr = index, append only) and FI_AV_MAP
 * (fi_addr = address of the entry, slots reused). Entries live in chunks
 * of UET_OFI_AV_CHUNK that never move. Each address is registered with the
 * engine context of the domain (PEER_ADD, by value) and the entry keeps
 * the handle it got: that handle, not a pointer, is what SQEs carry
 * (struct uet_chan_sqe.dest). fi_av_remove() and fi_av_close() remove the
 * peers again. No fixed size limit here (the engine's peer table has
 * one). uet_av_lookup.c maps an fi_addr to its entry and handle, and the
 * source of a received message back to its fi_addr.
 *
 * A named AV (FI_SHARED_AV, service only) is a table whose addresses live
 * in shared memory (uet_av_shared.c); its entries here hold this
 * process's handles, registered on the first send to an address another
 * opener inserted. Until then a message from that address has no
 * fi_addr here (FI_ADDR_NOTAVAIL as source).
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "uet_ofi_private.h"

#define NO_FREE UINT32_MAX
/* peer handles of one address: its own, then receive contexts 1.. */
#define PEERS_PER_ADDR UET_OFI_CTX_MAX


/* ---- the engine's peer table ---- */

/* Forget peer handles (0: none); errors are only logged. */
static void
peers_del(struct uet_ofi_av *av, const uint64_t *h, unsigned int n)
{
	struct uet_ses_ulp_ctl q = { .op = UET_SES_ULP_PEER_DEL };

	for (unsigned int i = 0; i < n; i++) {
		if (h[i] == 0)
			continue;
		q.handle = h[i];
		if (uet_ofi_fabric_ctl(av->dom->fab, av->dom->ctx, &q) != 0)
			FI_WARN(&uet_prov, FI_LOG_AV,
				"engine peer %#llx: remove failed\n",
				(unsigned long long)h[i]);
	}
}

/*
 * Register address @p a with the engine (and, with rx_ctx_bits, its
 * receive contexts 1.., PIDonFEP + i): h[0] its handle, h[i] receive
 * context i's. Called without the AV lock (the engine may need this
 * thread's progress to answer).
 */
static int
peers_add(struct uet_ofi_av *av, const struct uet_ofi_addr *a, uint64_t *h)
{
	unsigned int n = av->rx_ctx_bits != 0 ? PEERS_PER_ADDR : 1;
	struct uet_ses_ulp_ctl q = { .op = UET_SES_ULP_PEER_ADD };
	int rc = 0;

	memset(h, 0, PEERS_PER_ADDR * sizeof(*h));
	memcpy(q.peer.fa, a->fa, sizeof(q.peer.fa));
	q.peer.start_ri = ntohs(a->start_ri) & UET_OFI_PID_MASK;
	q.peer.initiator = ntohl(a->initiator_id);
	for (unsigned int i = 0; i < n && rc == 0; i++) {
		q.peer.pid_on_fep = (uint16_t)((uet_ofi_addr_pid(a) + i) &
					       UET_OFI_PID_MASK);
		rc = uet_ofi_fabric_ctl(av->dom->fab, av->dom->ctx, &q);
		h[i] = rc == 0 ? q.handle : 0;
	}
	if (rc != 0)
		peers_del(av, h, n);
	return rc;
}


/* ---- insert / remove ---- */

static int
slot_alloc(struct uet_ofi_av *av, size_t *idx)
{
	if (av->type == FI_AV_MAP && av->free_head != NO_FREE) {
		*idx = av->free_head;
		av->free_head = uet_ofi_av_entry_at(av, *idx)->next_free;
		return 0;
	}
	if (av->count == av->nb_chunks * UET_OFI_AV_CHUNK) {
		struct uet_ofi_av_entry *c;

		if (av->nb_chunks == av->cap_chunks) {
			size_t cap = av->cap_chunks ? av->cap_chunks * 2 : 4;
			struct uet_ofi_av_entry **n =
				realloc(av->chunks, cap * sizeof(*n));

			if (n == NULL)
				return -FI_ENOMEM;
			av->chunks = n;
			av->cap_chunks = cap;
		}
		c = calloc(UET_OFI_AV_CHUNK, sizeof(*c));
		if (c == NULL)
			return -FI_ENOMEM;
		av->chunks[av->nb_chunks++] = c;
	}
	if (av->count >= UINT32_MAX - 1)
		return -FI_ENOSPC;
	*idx = av->count++;
	return 0;
}

/* Fill entry @p idx (allocated, by slot_alloc or entries_cover) with
 * address @p a and its peer handles @p h. The lock held. 1 when a named
 * AV's entry was filled meanwhile (by another thread's first use). */
static int
entry_set(struct uet_ofi_av *av, size_t idx, const struct uet_ofi_addr *a,
	  const uint64_t *h)
{
	struct uet_ofi_av_entry *e = uet_ofi_av_entry_at(av, idx);
	int rc;

	if (e->used)
		return 1;
	if ((av->used + 1) * 2 > av->rev_cap) {
		rc = uet_ofi_av_rev_grow(av);
		if (rc < 0)
			return rc;
	}
	if (av->rx_ctx_bits != 0) {
		/* a scalable peer's receive context i is PIDonFEP + i */
		if (e->rx_peer == NULL)
			e->rx_peer = calloc(PEERS_PER_ADDR,
					    sizeof(*e->rx_peer));
		if (e->rx_peer == NULL)
			return -FI_ENOMEM; /* the slot stays unused */
		memcpy(e->rx_peer, h, PEERS_PER_ADDR * sizeof(*h));
	}
	e->peer = h[0];
	e->addr = *a;
	e->used = true;
	av->used++;
	uet_ofi_av_rev_put(av->rev, av->rev_cap, ntohl(a->initiator_id), idx);
	return 0;
}

static int
insert_one(struct uet_ofi_av *av, const struct uet_ofi_addr *a,
	   const uint64_t *h, fi_addr_t *out)
{
	size_t idx;
	int rc;

	rc = slot_alloc(av, &idx);
	if (rc == 0)
		rc = entry_set(av, idx, a, h);
	if (rc == 0)
		*out = uet_ofi_av_fi_addr_of(av, idx);
	return rc;
}

/*
 * A peer of another profile: refused here, at startup, with both named,
 * rather than at the first operation the profiles disagree on (UEC 1.0
 * profiles do not interoperate: an HPC rendezvous send has no AI Full
 * target). DGRAM domains carry no profile.
 */
static int
av_profile_check(const struct uet_ofi_av *av, const struct uet_ofi_addr *a)
{
	char buf[160];
	size_t n = sizeof(buf);
	const struct fi_ep_attr *ea = av->dom->info->ep_attr;

	if ((ea != NULL && ea->type == FI_EP_DGRAM) ||
	    a->profile == av->dom->profile)
		return 0;
	UET_OFI_REPORT(FI_LOG_AV,
		       "%s: peer of profile %s in a domain of profile %s (%s): "
		       "every peer must use one profile "
		       "(FI_UET_PROVIDER_PROFILES, docs/PROVIDER.md)",
		       uet_ofi_addr_str(a, buf, &n),
		       uet_ofi_profile_suffix(a->profile) + 1,
		       uet_ofi_profile_suffix(av->dom->profile) + 1,
		       av->dom->info->domain_attr->name);
	return -FI_EINVAL;
}

/* ---- named AVs: the addresses shared (uet_av_shared.c), the handles
 * this process's ---- */

/* Local entries up to index @p idx (unused until resolved); the lock
 * held. A named AV is a table: its fi_addrs are the slot indices. */
static int
entries_cover(struct uet_ofi_av *av, size_t idx)
{
	size_t i;
	int rc;

	while (av->count <= idx) {
		rc = slot_alloc(av, &i);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Publish @p a (handles @p h in this process) in the named AV. */
static int
shared_insert(struct uet_ofi_av *av, const struct uet_ofi_addr *a,
	      const uint64_t *h, fi_addr_t *out)
{
	size_t idx;
	int rc;

	rc = uet_ofi_av_shm_add(av, a, &idx);
	if (rc < 0)
		return rc;
	pthread_rwlock_wrlock(&av->lock);
	rc = entries_cover(av, idx);
	if (rc == 0)
		rc = entry_set(av, idx, a, h);
	pthread_rwlock_unlock(&av->lock);
	if (rc < 0) {
		(void)uet_ofi_av_shm_remove(av, idx);
		return rc;
	}
	if (rc == 1) /* resolved meanwhile: those handles stay */
		peers_del(av, h, PEERS_PER_ADDR);
	*out = (fi_addr_t)idx;
	return 0;
}

/*
 * First use here of slot @p idx of a named AV, which another opener may
 * have filled: its address into this process's engine. 0 when the entry
 * holds it now. Without the AV lock (PEER_ADD may need this thread's
 * progress).
 */
int
uet_ofi_av_shared_resolve(struct uet_ofi_av *av, size_t idx)
{
	uint64_t h[PEERS_PER_ADDR];
	struct uet_ofi_addr a;
	int rc;

	rc = uet_ofi_av_shm_get(av, idx, &a);
	if (rc == 0)
		rc = av_profile_check(av, &a);
	if (rc == 0)
		rc = peers_add(av, &a, h);
	if (rc < 0)
		return rc;
	pthread_rwlock_wrlock(&av->lock);
	rc = entries_cover(av, idx);
	if (rc == 0)
		rc = entry_set(av, idx, &a, h);
	pthread_rwlock_unlock(&av->lock);
	if (rc != 0)
		peers_del(av, h, PEERS_PER_ADDR);
	return rc < 0 ? rc : 0;
}

static void
av_report(struct uet_ofi_av *av, size_t count, void *context)
{
	struct fi_eq_entry ev = {
		.fid = &av->av_fid.fid, .context = context, .data = count,
	};

	(void)uet_ofi_eq_post(av->eq, FI_AV_COMPLETE, &ev, sizeof(ev), false);
}

/* An address of an FI_EVENT insert that failed: an error event whose
 * data is its index in the vector (fi_av(3)), ahead of the completion. */
static void
av_report_err(struct uet_ofi_av *av, size_t index, int rc, void *context)
{
	struct fi_eq_err_entry ev = {
		.fid = &av->av_fid.fid, .context = context, .data = index,
		.err = -rc, .prov_errno = rc,
	};

	(void)uet_ofi_eq_post(av->eq, FI_AV_COMPLETE, &ev, sizeof(ev), true);
}

/*
 * The format of the addresses of one insert call. fi_av(3) has them in
 * the domain's addr_format, but an application can hold a peer's
 * address in the provider's other format (fabtests given -s: one side's
 * fi_getinfo resolved its source to FI_SOCKADDR_IN, the other's to
 * UET_OFI_ADDR_FORMAT, and each inserts what the other's fi_getname
 * gave). Both are told apart by their first bytes: the first address
 * sets the format (and the stride) of the call; one that is neither
 * keeps the AV's own.
 */
static uint32_t
av_call_format(const struct uet_ofi_av *av, const void *first)
{
	uint32_t fmt = uet_ofi_addr_format_of(first);

	if (fmt == FI_SOCKADDR_IN || fmt == UET_OFI_ADDR_FORMAT)
		return fmt;
	return uet_ofi_fmt_sin(av->addr_format) ? FI_SOCKADDR_IN :
						  av->addr_format;
}

/* Read address @p i of an insert call in format @p fmt into @p a; a
 * refusal says why (no silent -FI_EINVAL: fi_av_insert has no error
 * string of its own). */
static int
av_import(const struct uet_ofi_av *av, const uint8_t *p, size_t i,
	  uint32_t fmt, struct uet_ofi_addr *a)
{
	uint32_t got = uet_ofi_addr_format_of(p);
	int rc;

	if (got != fmt) {
		UET_OFI_REPORT(FI_LOG_AV,
			       "fi_av_insert: address %zu is %s (first bytes "
			       "%02x %02x), not %s%s; the AV (addr_format %s) "
			       "takes FI_SOCKADDR_IN (FI_SOCKADDR: AF_INET) "
			       "and UET_OFI_ADDR_FORMAT addresses, one format "
			       "per call",
			       i, uet_ofi_addr_format_name(got), p[0], p[1],
			       uet_ofi_addr_format_name(fmt),
			       i > 0 ? " as the call's first" : "",
			       uet_ofi_addr_format_name(av->addr_format));
		return -FI_EINVAL;
	}
	rc = uet_ofi_addr_import(p, uet_ofi_addrlen(fmt), fmt,
				 av->dom->profile,
				 UET_OFI_ADDR_C_MSG | UET_OFI_ADDR_C_TAGGED |
					 UET_OFI_ADDR_C_RMA |
					 UET_OFI_ADDR_C_ATOMIC,
				 a);
	if (rc < 0)
		UET_OFI_REPORT(FI_LOG_AV,
			       "fi_av_insert: address %zu: not a valid %s "
			       "address (version %u, flags %#x, profile %u)",
			       i, uet_ofi_addr_format_name(fmt), p[0], p[1],
			       p[2]);
	return rc;
}

static int
av_insert(struct fid_av *fid, const void *addr, size_t count,
	  fi_addr_t *fi_addr, uint64_t flags, void *context)
{
	struct uet_ofi_av *av = container_of(fid, struct uet_ofi_av, av_fid);
	uint32_t fmt;
	size_t len;
	/* FI_SYNC_ERR: the context is an array of count ints, 0 or an
	 * errno per address (synchronous inserts only) */
	int *sync_err = (flags & FI_SYNC_ERR) ? context : NULL;
	size_t ok = 0;

	if (addr == NULL && count > 0)
		return -FI_EINVAL;
	if (flags & ~(uint64_t)(FI_MORE | FI_SYNC_ERR))
		return -FI_EBADFLAGS;
	if (sync_err != NULL && (av->eq != NULL || count == 0))
		return -FI_EINVAL;
	if (av->shm_ro)
		return -FI_EACCES; /* a named AV opened FI_READ */
	fmt = count > 0 ? av_call_format(av, addr) : av->addr_format;
	len = uet_ofi_addrlen(fmt);
	for (size_t i = 0; i < count; i++) {
		const uint8_t *p = (const uint8_t *)addr + i * len;
		uint64_t h[PEERS_PER_ADDR];
		struct uet_ofi_addr a;
		fi_addr_t fa = FI_ADDR_NOTAVAIL;
		int rc;

		rc = av_import(av, p, i, fmt, &a);
		if (rc == 0)
			rc = av_profile_check(av, &a);
		/* the engine first, without the lock (PEER_ADD may need
		 * this thread's progress) */
		if (rc == 0)
			rc = peers_add(av, &a, h);
		if (rc == 0 && av->shm != NULL) {
			rc = shared_insert(av, &a, h, &fa);
			if (rc != 0)
				peers_del(av, h, PEERS_PER_ADDR);
		} else if (rc == 0) {
			pthread_rwlock_wrlock(&av->lock);
			rc = insert_one(av, &a, h, &fa);
			pthread_rwlock_unlock(&av->lock);
			if (rc != 0)
				peers_del(av, h, PEERS_PER_ADDR);
		}
		if (rc == 0)
			ok++;
		else if (av->eq != NULL)
			av_report_err(av, i, rc, context);
		if (sync_err != NULL)
			sync_err[i] = -rc;
		if (fi_addr != NULL)
			fi_addr[i] = fa;
	}
	if (av->eq != NULL) {
		av_report(av, ok, context);
		return 0;
	}
	return (int)ok;
}

static int
av_insertsvc(struct fid_av *fid, const char *node, const char *service,
	     fi_addr_t *fi_addr, uint64_t flags, void *context)
{
	struct sockaddr_in sin;
	int rc;

	if (node == NULL || service == NULL)
		return -FI_EINVAL;
	rc = uet_ofi_resolve(node, service, &sin);
	if (rc < 0)
		return -FI_EINVAL;
	return av_insert(fid, &sin, 1, fi_addr, flags, context);
}

static int
av_insertsym(struct fid_av *fid, const char *node, size_t nodecnt,
	     const char *service, size_t svccnt, fi_addr_t *fi_addr,
	     uint64_t flags, void *context)
{
	(void)fid; (void)node; (void)nodecnt; (void)service; (void)svccnt;
	(void)fi_addr; (void)flags; (void)context;
	return -FI_ENOSYS;
}

static int
av_remove(struct fid_av *fid, fi_addr_t *fi_addr, size_t count,
	  uint64_t flags)
{
	struct uet_ofi_av *av = container_of(fid, struct uet_ofi_av, av_fid);
	int rc = 0;

	if (flags != 0)
		return -FI_EBADFLAGS;
	if (fi_addr == NULL && count > 0)
		return -FI_EINVAL;
	if (av->shm_ro)
		return -FI_EACCES; /* a named AV opened FI_READ */
	for (size_t i = 0; i < count; i++) {
		uint64_t h[PEERS_PER_ADDR] = { 0 };
		struct uet_ofi_av_entry *e;
		size_t idx;

		/* named: gone for every opener; resolved here or not */
		if (av->shm != NULL &&
		    uet_ofi_av_shm_remove(av, (size_t)uet_ofi_av_rx_strip(av, fi_addr[i])) < 0) {
			rc = -FI_EINVAL;
			continue;
		}
		pthread_rwlock_wrlock(&av->lock);
		idx = uet_ofi_av_index_of(av, fi_addr[i]);
		e = idx == SIZE_MAX ? NULL : uet_ofi_av_entry_at(av, idx);
		if (e == NULL || !e->used) {
			pthread_rwlock_unlock(&av->lock);
			if (av->shm == NULL)
				rc = -FI_EINVAL;
			continue;
		}
		h[0] = e->peer;
		if (e->rx_peer != NULL)
			memcpy(&h[1], &e->rx_peer[1],
			       (PEERS_PER_ADDR - 1) * sizeof(h[0]));
		e->used = false;
		av->used--;
		if (av->type == FI_AV_MAP) {
			e->next_free = av->free_head;
			av->free_head = (uint32_t)idx;
		}
		pthread_rwlock_unlock(&av->lock);
		/* operations the engine has not taken yet that name this
		 * address complete with an error (an unknown peer) */
		peers_del(av, h, PEERS_PER_ADDR);
	}
	pthread_rwlock_wrlock(&av->lock);
	uet_ofi_av_rev_rebuild(av);
	pthread_rwlock_unlock(&av->lock);
	return rc;
}

static int
av_lookup(struct fid_av *fid, fi_addr_t fi_addr, void *addr, size_t *addrlen)
{
	struct uet_ofi_av *av = container_of(fid, struct uet_ofi_av, av_fid);
	struct uet_ofi_addr a;
	const struct uet_ofi_av_entry *e = NULL;
	size_t idx;

	if (addrlen == NULL)
		return -FI_EINVAL;
	pthread_rwlock_rdlock(&av->lock);
	idx = uet_ofi_av_index_of(av, fi_addr);
	if (idx != SIZE_MAX)
		e = uet_ofi_av_entry_at(av, idx);
	if (e != NULL && e->used)
		a = e->addr;
	pthread_rwlock_unlock(&av->lock);
	/* a named AV's address not used here yet */
	if ((e == NULL || !e->used) &&
	    (av->shm == NULL || fi_addr == FI_ADDR_NOTAVAIL ||
	     fi_addr == FI_ADDR_UNSPEC ||
	     uet_ofi_av_shm_get(av, (size_t)uet_ofi_av_rx_strip(av, fi_addr), &a) < 0))
		return -FI_ENOENT;
	return uet_ofi_addr_export(&a, av->addr_format, addr, addrlen);
}

static const char *
av_straddr(struct fid_av *fid, const void *addr, char *buf, size_t *len)
{
	struct uet_ofi_av *av = container_of(fid, struct uet_ofi_av, av_fid);
	struct uet_ofi_addr a;
	uint32_t fmt;

	if (addr == NULL || len == NULL)
		return NULL;
	fmt = av_call_format(av, addr);
	if (uet_ofi_addr_format_of(addr) != fmt ||
	    uet_ofi_addr_import(addr, uet_ofi_addrlen(fmt), fmt,
				av->dom->profile, 0, &a) < 0)
		return NULL;
	return uet_ofi_addr_str(&a, buf, len);
}

static int
av_set(struct fid_av *fid, struct fi_av_set_attr *attr,
       struct fid_av_set **set, void *context)
{
	(void)fid; (void)attr; (void)set; (void)context;
	return -FI_ENOSYS;
}

static struct fi_ops_av av_ops = {
	.size = sizeof(struct fi_ops_av),
	.insert = av_insert,
	.insertsvc = av_insertsvc,
	.insertsym = av_insertsym,
	.remove = av_remove,
	.lookup = av_lookup,
	.straddr = av_straddr,
	.av_set = av_set,
};

static int
av_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
	struct uet_ofi_av *av = container_of(fid, struct uet_ofi_av, av_fid.fid);

	if (flags != 0 || bfid == NULL)
		return -FI_EINVAL;
	if (bfid->fclass != FI_CLASS_EQ)
		return -FI_EINVAL;
	if (!(av->flags & FI_EVENT))
		return -FI_EINVAL;
	if (av->eq != NULL)
		return -FI_EBUSY;
	av->eq = container_of(bfid, struct uet_ofi_eq, eq_fid.fid);
	atomic_fetch_add(&av->eq->w.ref, 1);
	return 0;
}

static int
av_close(struct fid *fid)
{
	struct uet_ofi_av *av = container_of(fid, struct uet_ofi_av, av_fid.fid);

	if (atomic_load(&av->ref) > 0)
		return -FI_EBUSY;
	if (av->eq != NULL)
		atomic_fetch_sub(&av->eq->w.ref, 1);
	for (size_t i = 0; i < av->nb_chunks; i++) {
		for (size_t k = 0; k < UET_OFI_AV_CHUNK; k++) {
			struct uet_ofi_av_entry *e = &av->chunks[i][k];

			if (e->used) {
				peers_del(av, &e->peer, 1);
				if (e->rx_peer != NULL)
					peers_del(av, &e->rx_peer[1],
						  PEERS_PER_ADDR - 1);
			}
			free(e->rx_peer);
		}
		free(av->chunks[i]);
	}
	free(av->chunks);
	free(av->rev);
	uet_ofi_av_shm_close(av);
	pthread_rwlock_destroy(&av->lock);
	atomic_fetch_sub(&av->dom->ref, 1);
	free(av);
	return 0;
}

static struct fi_ops av_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = av_close,
	.bind = av_bind,
	.control = uet_ofi_fid_control_enosys,
	.ops_open = uet_ofi_fid_ops_open_enosys,
	.tostr = uet_ofi_fid_tostr_enosys,
	.ops_set = uet_ofi_fid_ops_set_enosys,
};

int
uet_ofi_av_open(struct fid_domain *domain, struct fi_av_attr *attr,
		struct fid_av **av_fid, void *context)
{
	struct uet_ofi_domain *d =
		container_of(domain, struct uet_ofi_domain, dom_fid);
	struct uet_ofi_av *av;
	int rc;

	if (attr == NULL)
		return -FI_EINVAL;
	if (attr->type != FI_AV_UNSPEC && attr->type != FI_AV_MAP &&
	    attr->type != FI_AV_TABLE)
		return -FI_EINVAL;
	if (attr->rx_ctx_bits < 0 || attr->rx_ctx_bits > 16)
		return -FI_EINVAL;
	if (attr->flags & ~(uint64_t)(FI_EVENT | FI_SYMMETRIC | FI_READ))
		return -FI_EINVAL;
	if ((attr->flags & FI_READ) && attr->name == NULL)
		return -FI_EINVAL; /* FI_READ opens a named AV read-only */
	if (attr->name != NULL && d->fab->svc == NULL) {
		/* FI_SHARED_AV is offered with a service only: the processes
		 * sharing an AV need an engine each, and those of one host
		 * reach the fabric through one port only through the
		 * service (docs/PROVIDER.md) */
		UET_OFI_REPORT(FI_LOG_AV,
			       "AV '%s': named (shared) AVs need a uet-engine "
			       "service (FI_UET_PROVIDER_SERVICE_PATH)",
			       attr->name);
		return -FI_ENOSYS;
	}
	av = calloc(1, sizeof(*av));
	if (av == NULL)
		return -FI_ENOMEM;
	av->dom = d;
	av->type = attr->type == FI_AV_UNSPEC ? FI_AV_MAP : attr->type;
	av->addr_format = d->addr_format;
	av->flags = attr->flags;
	av->free_head = NO_FREE;
	av->rx_ctx_bits = attr->rx_ctx_bits;
	pthread_rwlock_init(&av->lock, NULL);
	if (uet_ofi_av_rev_grow(av) < 0) {
		free(av);
		return -FI_ENOMEM;
	}
	if (attr->name != NULL) {
		/* fi_addrs are slot indices, the same in every opener */
		av->type = FI_AV_TABLE;
		rc = uet_ofi_av_shm_open(av, attr);
		if (rc < 0) {
			free(av->rev);
			pthread_rwlock_destroy(&av->lock);
			free(av);
			return rc;
		}
	}
	av->av_fid.fid.fclass = FI_CLASS_AV;
	av->av_fid.fid.context = context;
	av->av_fid.fid.ops = &av_fi_ops;
	av->av_fid.ops = &av_ops;
	attr->type = av->type;
	atomic_fetch_add(&d->ref, 1);
	*av_fid = &av->av_fid;
	return 0;
}
