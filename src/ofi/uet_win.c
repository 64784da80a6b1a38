/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The data window allocator of the service backend (docs/PROVIDER.md
 * "Service deployment"): a binary buddy allocator over the window a
 * uet-engine service shares with this process. Payload is copied into a
 * chunk of it when an operation is posted and out of it when it
 * completes; descriptors carry chunk offsets. Its bookkeeping lives in
 * this process's private memory only, so nothing the service writes into
 * the window can corrupt it. Bounded: no allocation after creation, a
 * full window is -EAGAIN (the caller returns -FI_EAGAIN), never a wait.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "uet_win.h"

#define WIN_FREE 0x80u   /* ord[]: head of a free block of this order */
#define WIN_NONE 0xFFu   /* ord[]: inside a block, not its head */

static unsigned int
order_of(uint64_t blocks)
{
	unsigned int k = 0;

	while ((UINT64_C(1) << k) < blocks)
		k++;
	return k;
}

static void
list_push(struct uet_ofi_win *w, uint32_t b, unsigned int k)
{
	w->ord[b] = (uint8_t)(WIN_FREE | k);
	w->prev[b] = 0;
	w->next[b] = w->head[k];
	if (w->head[k] != 0)
		w->prev[w->head[k] - 1] = b + 1;
	w->head[k] = b + 1;
}

static void
list_del(struct uet_ofi_win *w, uint32_t b, unsigned int k)
{
	if (w->prev[b] != 0)
		w->next[w->prev[b] - 1] = w->next[b];
	else
		w->head[k] = w->next[b];
	if (w->next[b] != 0)
		w->prev[w->next[b] - 1] = w->prev[b];
	w->ord[b] = WIN_NONE;
}

struct uet_ofi_win *
uet_ofi_win_create(void *base, uint64_t len, unsigned int min_shift)
{
	struct uet_ofi_win *w;
	uint64_t nb;
	uint32_t b = 0;

	if (min_shift < 6 || min_shift > 20)
		return NULL;
	nb = len >> min_shift;
	if (nb == 0 || nb > UINT32_MAX / 2)
		return NULL;
	w = calloc(1, sizeof(*w));
	if (w == NULL)
		return NULL;
	w->ord = malloc(nb);
	w->next = calloc(nb, sizeof(*w->next));
	w->prev = calloc(nb, sizeof(*w->prev));
	if (w->ord == NULL || w->next == NULL || w->prev == NULL) {
		uet_ofi_win_free(w);
		return NULL;
	}
	memset(w->ord, WIN_NONE, nb);
	w->base = base;
	w->len = nb << min_shift;
	w->shift = min_shift;
	w->nb_blocks = (uint32_t)nb;
	/* the largest aligned blocks that fit, left to right */
	while (b < nb) {
		unsigned int k = 0;

		while (k + 1 < UET_OFI_WIN_ORDERS &&
		       (b & ((UINT32_C(1) << (k + 1)) - 1)) == 0 &&
		       (uint64_t)b + (UINT64_C(1) << (k + 1)) <= nb)
			k++;
		list_push(w, b, k);
		if (k > w->max_order)
			w->max_order = k;
		b += UINT32_C(1) << k;
	}
	return w;
}

void
uet_ofi_win_free(struct uet_ofi_win *w)
{
	if (w == NULL)
		return;
	free(w->ord);
	free(w->next);
	free(w->prev);
	free(w);
}

uint64_t
uet_ofi_win_max(const struct uet_ofi_win *w)
{
	return (uint64_t)1 << (w->max_order + w->shift);
}

int
uet_ofi_win_alloc(struct uet_ofi_win *w, uint64_t len, uint64_t *off)
{
	uint64_t blocks;
	unsigned int k, j;
	uint32_t b;

	if (len == 0)
		return -EINVAL;
	if (len > uet_ofi_win_max(w))
		return -EMSGSIZE;
	blocks = (len + (UINT64_C(1) << w->shift) - 1) >> w->shift;
	k = order_of(blocks);
	for (j = k; j <= w->max_order && w->head[j] == 0; j++)
		;
	if (j > w->max_order)
		return -EAGAIN;
	b = w->head[j] - 1;
	list_del(w, b, j);
	/* split: the upper halves go back to the free lists */
	while (j > k) {
		j--;
		list_push(w, b + (UINT32_C(1) << j), j);
	}
	w->ord[b] = (uint8_t)k;
	w->used += UINT64_C(1) << (k + w->shift);
	*off = (uint64_t)b << w->shift;
	return 0;
}

int
uet_ofi_win_release(struct uet_ofi_win *w, uint64_t off)
{
	uint32_t b, buddy;
	unsigned int k;

	if (off >= w->len || (off & ((UINT64_C(1) << w->shift) - 1)))
		return -EINVAL;
	b = (uint32_t)(off >> w->shift);
	if (w->ord[b] & WIN_FREE || w->ord[b] > w->max_order)
		return -EINVAL; /* not the head of an allocated chunk */
	k = w->ord[b];
	w->used -= UINT64_C(1) << (k + w->shift);
	/* merge with the buddy while it is free and of the same order */
	while (k < w->max_order) {
		buddy = b ^ (UINT32_C(1) << k);
		if (buddy >= w->nb_blocks || w->ord[buddy] != (WIN_FREE | k))
			break;
		list_del(w, buddy, k);
		b = b < buddy ? b : buddy;
		k++;
	}
	list_push(w, b, k);
	return 0;
}
