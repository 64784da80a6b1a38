/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_OFI_WIN_H
#define UET_OFI_WIN_H

/*
 * Data window allocator of the service backend (uet_win.c): buddy blocks
 * of 2^shift .. 2^(shift + max_order) bytes over [base, base + len).
 * Not thread-safe: the caller serialises (the service backend's lock).
 */

#include <stdint.h>

#define UET_OFI_WIN_ORDERS 32

struct uet_ofi_win {
	uint8_t *base;        /* this process's mapping of the window */
	uint64_t len;         /* bytes managed (whole blocks) */
	uint64_t used;        /* bytes allocated, rounded to blocks */
	unsigned int shift;   /* log2 of the smallest block */
	unsigned int max_order;
	uint32_t nb_blocks;
	uint8_t *ord;         /* per block: free head | order, or order */
	uint32_t *next, *prev; /* free lists, block index + 1; 0 none */
	uint32_t head[UET_OFI_WIN_ORDERS];
};

/* NULL on a bad size (fewer than one block, min_shift outside 6..20) or
 * no memory. */
struct uet_ofi_win *uet_ofi_win_create(void *base, uint64_t len,
				       unsigned int min_shift);
void uet_ofi_win_free(struct uet_ofi_win *w);
/* The largest chunk one allocation can get (max_msg_size bound). */
uint64_t uet_ofi_win_max(const struct uet_ofi_win *w);
/* A chunk of at least @p len bytes at *off: 0, -EINVAL (len 0),
 * -EMSGSIZE (larger than any chunk), -EAGAIN (window full now). */
int uet_ofi_win_alloc(struct uet_ofi_win *w, uint64_t len, uint64_t *off);
/* 0, or -EINVAL when @p off is not an allocated chunk. */
int uet_ofi_win_release(struct uet_ofi_win *w, uint64_t off);

#endif /* UET_OFI_WIN_H */
