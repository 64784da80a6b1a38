/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Host addresses: each host has one IPv4 and one IPv6 address, found from
 * a frame's destination through an open-addressing table (linear probing,
 * at most half full) keyed by the 16 address bytes.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_jhash.h>

#include "fabric_private.h"

/* An address is IPv4 when bytes 4..15 are zero (uet_pds_fa's layout). */
static unsigned int
fabric_addr_family(const uint8_t a[16])
{
	static const uint8_t zero[12];

	return memcmp(a + 4, zero, sizeof(zero)) == 0 ? 0 : 1;
}

static uint32_t
fabric_addr_slot(const struct uet_fabric *fab, const uint8_t a[16])
{
	uint32_t w[4]; /* rte_jhash reads 32-bit words: align the key */

	memcpy(w, a, sizeof(w));
	return rte_jhash_32b(w, 4, 0x6a09e667) & fab->addr_mask;
}

uint32_t
fabric_addr_lookup(const struct uet_fabric *fab, const uint8_t a[16])
{
	uint32_t s = fabric_addr_slot(fab, a), i, e;

	for (i = 0; i <= fab->addr_mask; i++) {
		e = fab->addr_tab[(s + i) & fab->addr_mask];
		if (e == 0)
			return FAB_NIL;
		if (memcmp(fab->addr[(e - 1) >> 1][(e - 1) & 1], a, 16) == 0)
			return (e - 1) >> 1;
	}
	return FAB_NIL;
}

static void
fabric_addr_rehash(struct uet_fabric *fab)
{
	uint32_t h, f, s;

	memset(fab->addr_tab, 0, (fab->addr_mask + 1) * sizeof(uint32_t));
	for (h = 0; h < fab->hosts; h++) {
		for (f = 0; f < 2; f++) {
			s = fabric_addr_slot(fab, fab->addr[h][f]);
			while (fab->addr_tab[s] != 0)
				s = (s + 1) & fab->addr_mask;
			fab->addr_tab[s] = h * 2 + f + 1;
		}
	}
}

int
fabric_addr_init(struct uet_fabric *fab)
{
	uint32_t n = rte_align32pow2(fab->hosts * 4), h, id;

	fab->addr = calloc(fab->hosts, sizeof(*fab->addr));
	fab->addr_tab = calloc(n, sizeof(uint32_t));
	if (fab->addr == NULL || fab->addr_tab == NULL)
		return -ENOMEM;
	fab->addr_mask = n - 1;
	for (h = 0; h < fab->hosts; h++) {
		id = h + 1;
		fab->addr[h][0][0] = 10;
		fab->addr[h][0][2] = (uint8_t)(id >> 8);
		fab->addr[h][0][3] = (uint8_t)id;
		fab->addr[h][1][0] = 0xfd;
		fab->addr[h][1][14] = (uint8_t)(id >> 8);
		fab->addr[h][1][15] = (uint8_t)id;
	}
	fabric_addr_rehash(fab);
	return 0;
}

int
uet_fabric_host_addr_set(struct uet_fabric *fab, uint32_t host,
			 const uint8_t addr[16])
{
	uint32_t other;

	if (fab == NULL || addr == NULL || host >= fab->hosts)
		return -EINVAL;
	other = fabric_addr_lookup(fab, addr);
	if (other != FAB_NIL && other != host)
		return -EEXIST;
	memcpy(fab->addr[host][fabric_addr_family(addr)], addr, 16);
	fabric_addr_rehash(fab);
	return 0;
}

int
uet_fabric_host_addr_get(const struct uet_fabric *fab, uint32_t host,
			 bool ipv6, uint8_t addr[16])
{
	if (fab == NULL || addr == NULL || host >= fab->hosts)
		return -EINVAL;
	memcpy(addr, fab->addr[host][ipv6 ? 1 : 0], 16);
	return 0;
}
