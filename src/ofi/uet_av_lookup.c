/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Address vector lookups (uet_av.c keeps the entries): an fi_addr to its
 * entry and the entry's engine peer handle, which every send resolves
 * (FI_AV_MAP fi_addrs are entry pointers, FI_AV_TABLE ones indices; with
 * rx_ctx_bits the top bits name a receive context, fi_rx_addr()), and
 * the reverse map, a hash of initiator ids that maps the source of a
 * received message back to its fi_addr.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "uet_ofi_private.h"

struct uet_ofi_av_entry *
uet_ofi_av_entry_at(const struct uet_ofi_av *av, size_t idx)
{
	if (idx >= av->count)
		return NULL;
	return &av->chunks[idx / UET_OFI_AV_CHUNK][idx % UET_OFI_AV_CHUNK];
}

/* Index of an FI_AV_MAP fi_addr (an entry pointer); SIZE_MAX if none. */
static size_t
map_index(const struct uet_ofi_av *av, fi_addr_t a)
{
	uintptr_t p = (uintptr_t)a;

	for (size_t c = 0; c < av->nb_chunks; c++) {
		uintptr_t base = (uintptr_t)av->chunks[c];
		uintptr_t end = base + UET_OFI_AV_CHUNK *
					       sizeof(struct uet_ofi_av_entry);

		if (p >= base && p < end &&
		    (p - base) % sizeof(struct uet_ofi_av_entry) == 0) {
			size_t idx = c * UET_OFI_AV_CHUNK +
				     (p - base) / sizeof(struct uet_ofi_av_entry);

			return idx < av->count ? idx : SIZE_MAX;
		}
	}
	return SIZE_MAX;
}

/* fi_rx_addr(): the receive context index in the top rx_ctx_bits */
static unsigned int
rx_index_of(const struct uet_ofi_av *av, fi_addr_t a)
{
	if (av->rx_ctx_bits == 0 || a == FI_ADDR_NOTAVAIL ||
	    a == FI_ADDR_UNSPEC)
		return 0;
	return (unsigned int)(a >> (64 - av->rx_ctx_bits));
}

fi_addr_t
uet_ofi_av_rx_strip(const struct uet_ofi_av *av, fi_addr_t a)
{
	if (av->rx_ctx_bits == 0 || a == FI_ADDR_NOTAVAIL ||
	    a == FI_ADDR_UNSPEC)
		return a;
	return a & (UINT64_MAX >> av->rx_ctx_bits);
}

size_t
uet_ofi_av_index_of(const struct uet_ofi_av *av, fi_addr_t a)
{
	if (a == FI_ADDR_NOTAVAIL || a == FI_ADDR_UNSPEC)
		return SIZE_MAX;
	a = uet_ofi_av_rx_strip(av, a);
	if (av->type == FI_AV_MAP)
		return map_index(av, a);
	return a < av->count ? (size_t)a : SIZE_MAX;
}

fi_addr_t
uet_ofi_av_fi_addr_of(const struct uet_ofi_av *av, size_t idx)
{
	if (av->type == FI_AV_MAP)
		return (fi_addr_t)(uintptr_t)uet_ofi_av_entry_at(av, idx);
	return (fi_addr_t)idx;
}

/* The peer handle of entry @p e for receive context @p rx (0: the
 * entry's), 0 if none */
static uint64_t
entry_peer(const struct uet_ofi_av_entry *e, unsigned int rx)
{
	if (e == NULL || !e->used)
		return 0;
	if (rx == 0)
		return e->peer;
	return rx < UET_OFI_CTX_MAX && e->rx_peer != NULL ? e->rx_peer[rx] : 0;
}

static uint64_t
table_peer(struct uet_ofi_av *av, fi_addr_t a, unsigned int rx)
{
	const struct uet_ofi_av_entry *e = NULL;
	size_t idx;
	uint64_t h;

	pthread_rwlock_rdlock(&av->lock);
	idx = uet_ofi_av_index_of(av, a);
	if (idx != SIZE_MAX)
		e = uet_ofi_av_entry_at(av, idx);
	h = entry_peer(e, rx);
	pthread_rwlock_unlock(&av->lock);
	return h;
}

uint64_t
uet_ofi_av_peer(struct uet_ofi_av *av, fi_addr_t a)
{
	unsigned int rx = rx_index_of(av, a);
	uint64_t h;

	/* MAP fi_addrs are entry pointers: no lookup on the data path */
	if (av->type == FI_AV_MAP) {
		a = uet_ofi_av_rx_strip(av, a);
		if (a == FI_ADDR_NOTAVAIL || a == FI_ADDR_UNSPEC || a == 0)
			return 0;
		return entry_peer((const struct uet_ofi_av_entry *)(uintptr_t)a,
				  rx);
	}
	h = table_peer(av, a, rx);
	/* a named AV's address another process inserted: first use here */
	if (h == 0 && av->shm != NULL && a != FI_ADDR_NOTAVAIL &&
	    a != FI_ADDR_UNSPEC &&
	    uet_ofi_av_shared_resolve(av, (size_t)uet_ofi_av_rx_strip(av, a)) == 0)
		h = table_peer(av, a, rx);
	return h;
}

/* ---- reverse map: initiator id -> index ---- */

static size_t
rev_slot(uint32_t id, size_t cap)
{
	return (size_t)((id * UINT64_C(0x9E3779B97F4A7C15)) >> 17) & (cap - 1);
}

void
uet_ofi_av_rev_put(uint64_t *tab, size_t cap, uint32_t id, size_t idx)
{
	size_t s = rev_slot(id, cap);

	while (tab[s] != 0 && (uint32_t)(tab[s] >> 32) != id)
		s = (s + 1) & (cap - 1);
	tab[s] = ((uint64_t)id << 32) | (uint32_t)(idx + 1);
}

int
uet_ofi_av_rev_grow(struct uet_ofi_av *av)
{
	size_t cap = av->rev_cap ? av->rev_cap * 2 : 1024;
	uint64_t *n = calloc(cap, sizeof(*n));

	if (n == NULL)
		return -FI_ENOMEM;
	for (size_t i = 0; i < av->rev_cap; i++)
		if (av->rev[i] != 0)
			uet_ofi_av_rev_put(n, cap, (uint32_t)(av->rev[i] >> 32),
				(uint32_t)av->rev[i] - 1);
	free(av->rev);
	av->rev = n;
	av->rev_cap = cap;
	return 0;
}

void
uet_ofi_av_rev_rebuild(struct uet_ofi_av *av)
{
	memset(av->rev, 0, av->rev_cap * sizeof(*av->rev));
	for (size_t i = 0; i < av->count; i++) {
		const struct uet_ofi_av_entry *e = uet_ofi_av_entry_at(av, i);

		if (e->used)
			uet_ofi_av_rev_put(av->rev, av->rev_cap,
				ntohl(e->addr.initiator_id), i);
	}
}

fi_addr_t
uet_ofi_av_reverse(struct uet_ofi_av *av, uint32_t id)
{
	fi_addr_t r = FI_ADDR_NOTAVAIL;

	pthread_rwlock_rdlock(&av->lock);
	if (av->rev_cap > 0) {
		size_t s = rev_slot(id, av->rev_cap);

		while (av->rev[s] != 0) {
			if ((uint32_t)(av->rev[s] >> 32) == id) {
				r = uet_ofi_av_fi_addr_of(av, (uint32_t)av->rev[s] - 1);
				break;
			}
			s = (s + 1) & (av->rev_cap - 1);
		}
	}
	pthread_rwlock_unlock(&av->lock);
	return r;
}
