/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Named address vectors (FI_SHARED_AV, fi_av(3) "name"): the addresses of
 * an AV opened by name live in a POSIX shared memory object that every
 * process opening that name maps; FI_READ maps it read-only.
 *
 * What is shared is the address (FA, PIDonFEP, initiator id ...), never
 * the engine's peer handle: a handle means something only in the engine
 * context that gave it. Each opener resolves an address into its own
 * engine context on first use (uet_av.c), so an fi_addr, the slot index,
 * is the same in every process. av_attr.map_addr returns the array of
 * those fi_addrs (slot i holds i), which a process that did not insert
 * them reads (fabtests fi_rdm_shared_av).
 *
 * Layout: a header, the fi_addr array, the slots. A writer reserves a
 * slot by compare-and-swap on the count, fills it, then publishes its
 * state with a release store; readers see only published slots. The
 * creator fills the header and publishes the magic last. The object is
 * unlinked when its last read-write opener closes it (read-only openers
 * cannot write the open count; their mapping outlives the name).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "uet_ofi_private.h"

#define SHM_MAGIC 0x55455441u /* "UETA" */
#define SHM_VERSION 1u
#define SHM_COUNT_DEF 1024u
#define SHM_COUNT_MAX (1u << 20)
/* an opener waits this long at most for its creator's header */
#define SHM_WAIT_MS 2000

enum { SLOT_EMPTY, SLOT_VALID, SLOT_REMOVED };

struct shm_slot {
	atomic_uint state;
	uint32_t rsvd;
	struct uet_ofi_addr addr;
};

struct uet_ofi_av_shm {
	atomic_uint magic; /* published last by the creator */
	uint32_t version;
	uint32_t addr_format;
	uint32_t capacity;
	atomic_uint count;   /* slots reserved */
	atomic_uint writers; /* read-write openers */
	/* fi_addr_t map[capacity]; struct shm_slot slot[capacity] */
};

static size_t
shm_size(uint32_t cap)
{
	return sizeof(struct uet_ofi_av_shm) + (size_t)cap * sizeof(fi_addr_t) +
	       (size_t)cap * sizeof(struct shm_slot);
}

static fi_addr_t *
shm_map(const struct uet_ofi_av_shm *s)
{
	return (fi_addr_t *)(uintptr_t)(s + 1);
}

static struct shm_slot *
shm_slot(const struct uet_ofi_av_shm *s, size_t idx)
{
	return (struct shm_slot *)(uintptr_t)(shm_map(s) + s->capacity) + idx;
}

/* fi_av(3) names are the application's: one path component of
 * printable characters (uid-qualified so users do not collide). */
static int
shm_path(const char *name, char *out, size_t n)
{
	size_t len = strlen(name);
	int w;

	if (len == 0 || len > 200)
		return -FI_EINVAL;
	for (size_t i = 0; i < len; i++)
		if (name[i] == '/' || name[i] <= ' ' || name[i] > '~')
			return -FI_EINVAL;
	w = snprintf(out, n, "/uet-av.%u.%s", (unsigned int)getuid(), name);
	return w > 0 && (size_t)w < n ? 0 : -FI_EINVAL;
}

static void
sleep_ms(unsigned int ms)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = (long)ms * 1000000L };

	nanosleep(&ts, NULL);
}

/* An existing object: wait (bounded) for its creator to size it and
 * publish the header, then map all of it. */
static int
shm_attach(int fd, bool ro, uint32_t fmt, struct uet_ofi_av_shm **out,
	   size_t *len)
{
	int prot = ro ? PROT_READ : PROT_READ | PROT_WRITE;
	struct uet_ofi_av_shm *s;
	struct stat st;
	uint32_t cap;

	for (int t = 0;; t++) {
		if (fstat(fd, &st) < 0)
			return -errno;
		if ((size_t)st.st_size >= sizeof(*s)) {
			s = mmap(NULL, sizeof(*s), PROT_READ, MAP_SHARED, fd, 0);
			if (s == MAP_FAILED)
				return -errno;
			if (atomic_load_explicit(&s->magic,
						 memory_order_acquire) ==
			    SHM_MAGIC)
				break;
			munmap(s, sizeof(*s));
		}
		if (t * 10 >= SHM_WAIT_MS)
			return -FI_ETIMEDOUT;
		sleep_ms(10);
	}
	cap = s->capacity;
	if (s->version != SHM_VERSION || s->addr_format != fmt ||
	    cap == 0 || cap > SHM_COUNT_MAX ||
	    (size_t)st.st_size < shm_size(cap)) {
		munmap(s, sizeof(*s));
		return -FI_EINVAL;
	}
	munmap(s, sizeof(*s));
	s = mmap(NULL, shm_size(cap), prot, MAP_SHARED, fd, 0);
	if (s == MAP_FAILED)
		return -errno;
	*out = s;
	*len = shm_size(cap);
	return 0;
}

static int
shm_create(int fd, uint32_t cap, uint32_t fmt, struct uet_ofi_av_shm **out,
	   size_t *len)
{
	struct uet_ofi_av_shm *s;

	if (ftruncate(fd, (off_t)shm_size(cap)) < 0)
		return -errno;
	s = mmap(NULL, shm_size(cap), PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 0);
	if (s == MAP_FAILED)
		return -errno;
	s->version = SHM_VERSION;
	s->addr_format = fmt;
	s->capacity = cap;
	atomic_init(&s->count, 0);
	atomic_init(&s->writers, 0);
	atomic_store_explicit(&s->magic, SHM_MAGIC, memory_order_release);
	*out = s;
	*len = shm_size(cap);
	return 0;
}

int
uet_ofi_av_shm_open(struct uet_ofi_av *av, struct fi_av_attr *attr)
{
	bool ro = (attr->flags & FI_READ) != 0;
	uint32_t cap = attr->count != 0 ? (uint32_t)attr->count : SHM_COUNT_DEF;
	int fd, rc;

	if (attr->count > SHM_COUNT_MAX)
		return -FI_EINVAL;
	rc = shm_path(attr->name, av->shm_name, sizeof(av->shm_name));
	if (rc < 0) {
		UET_OFI_REPORT(FI_LOG_AV,
			       "AV name '%s': 1 to 200 printable characters "
			       "without '/'", attr->name);
		return rc;
	}
	fd = shm_open(av->shm_name, ro ? O_RDONLY : O_RDWR | O_CREAT | O_EXCL,
		      0600);
	if (fd >= 0 && !ro) {
		rc = shm_create(fd, cap, av->addr_format, &av->shm,
				&av->shm_len);
		if (rc < 0)
			shm_unlink(av->shm_name); /* ours, half made */
	} else if (fd < 0 && !ro && errno == EEXIST) {
		fd = shm_open(av->shm_name, O_RDWR, 0600);
		rc = fd < 0 ? -errno :
			      shm_attach(fd, false, av->addr_format, &av->shm,
					 &av->shm_len);
	} else {
		rc = fd < 0 ? -errno :
			      shm_attach(fd, true, av->addr_format, &av->shm,
					 &av->shm_len);
	}
	if (fd >= 0)
		close(fd);
	if (rc < 0) {
		UET_OFI_REPORT(FI_LOG_AV, "AV '%s' (%s%s): %s", attr->name,
			       av->shm_name, ro ? ", FI_READ" : "",
			       fi_strerror(-rc));
		av->shm = NULL;
		return rc == -ENOENT ? -FI_ENOENT : rc;
	}
	av->shm_ro = ro;
	if (!ro)
		atomic_fetch_add(&av->shm->writers, 1);
	attr->map_addr = shm_map(av->shm);
	return 0;
}

void
uet_ofi_av_shm_close(struct uet_ofi_av *av)
{
	if (av->shm == NULL)
		return;
	if (!av->shm_ro && atomic_fetch_sub(&av->shm->writers, 1) == 1)
		shm_unlink(av->shm_name);
	munmap(av->shm, av->shm_len);
	av->shm = NULL;
}

int
uet_ofi_av_shm_add(struct uet_ofi_av *av, const struct uet_ofi_addr *a,
		   size_t *idx)
{
	struct uet_ofi_av_shm *s = av->shm;
	unsigned int n = atomic_load(&s->count);
	struct shm_slot *slot;

	if (av->shm_ro)
		return -FI_EACCES;
	do {
		if (n >= s->capacity)
			return -FI_ENOSPC;
	} while (!atomic_compare_exchange_weak(&s->count, &n, n + 1));
	slot = shm_slot(s, n);
	slot->addr = *a;
	shm_map(s)[n] = (fi_addr_t)n;
	atomic_store_explicit(&slot->state, SLOT_VALID, memory_order_release);
	*idx = n;
	return 0;
}

int
uet_ofi_av_shm_remove(struct uet_ofi_av *av, size_t idx)
{
	if (av->shm_ro)
		return -FI_EACCES;
	if (idx >= atomic_load(&av->shm->count))
		return -FI_EINVAL;
	atomic_store_explicit(&shm_slot(av->shm, idx)->state, SLOT_REMOVED,
			      memory_order_release);
	return 0;
}

int
uet_ofi_av_shm_get(const struct uet_ofi_av *av, size_t idx,
		   struct uet_ofi_addr *a)
{
	const struct shm_slot *slot;

	if (idx >= atomic_load(&av->shm->count))
		return -FI_ENOENT;
	slot = shm_slot(av->shm, idx);
	if (atomic_load_explicit((atomic_uint *)&slot->state,
				 memory_order_acquire) != SLOT_VALID)
		return -FI_ENOENT;
	*a = slot->addr;
	return 0;
}
