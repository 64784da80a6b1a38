/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The service backend's data window allocator (src/ofi/uet_win.c).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <uet/uet_rand.h>

#include "uet_win.h"

#define KIB 1024u
#define MIB (1024u * 1024u)

static void
win_create__rejects_bad_sizes(void **state)
{
	(void)state;
	assert_null(uet_ofi_win_create(NULL, 100, 8));   /* < one block */
	assert_null(uet_ofi_win_create(NULL, 1 * MIB, 5));
	assert_null(uet_ofi_win_create(NULL, 1 * MIB, 21));
}

static void
win_alloc__rounds_to_blocks_and_merges_back(void **state)
{
	struct uet_ofi_win *w = uet_ofi_win_create(NULL, 64 * KIB, 8);
	uint64_t a, b, c;

	(void)state;
	assert_non_null(w);
	assert_int_equal(uet_ofi_win_max(w), 64 * KIB);
	assert_int_equal(uet_ofi_win_alloc(w, 1, &a), 0);
	assert_int_equal(w->used, 256);
	assert_int_equal(uet_ofi_win_alloc(w, 257, &b), 0);
	assert_int_equal(w->used, 256 + 512);
	assert_int_equal(b % 512, 0);
	assert_int_equal(uet_ofi_win_alloc(w, 300, &c), 0);
	assert_true(c != b);
	assert_int_equal(uet_ofi_win_release(w, a), 0);
	assert_int_equal(uet_ofi_win_release(w, b), 0);
	assert_int_equal(uet_ofi_win_release(w, c), 0);
	assert_int_equal(w->used, 0);
	/* everything merged: the whole window is one chunk again */
	assert_int_equal(uet_ofi_win_alloc(w, 64 * KIB, &a), 0);
	assert_int_equal(a, 0);
	uet_ofi_win_free(w);
}

static void
win_alloc__full_is_eagain_too_large_is_emsgsize(void **state)
{
	struct uet_ofi_win *w = uet_ofi_win_create(NULL, 16 * KIB, 10);
	uint64_t off[16], x;

	(void)state;
	assert_non_null(w);
	assert_int_equal(uet_ofi_win_alloc(w, 16 * KIB + 1, &x), -EMSGSIZE);
	assert_int_equal(uet_ofi_win_alloc(w, 0, &x), -EINVAL);
	for (int i = 0; i < 16; i++)
		assert_int_equal(uet_ofi_win_alloc(w, 1 * KIB, &off[i]), 0);
	assert_int_equal(uet_ofi_win_alloc(w, 1, &x), -EAGAIN);
	assert_int_equal(uet_ofi_win_release(w, off[7]), 0);
	assert_int_equal(uet_ofi_win_alloc(w, 1, &x), 0);
	assert_int_equal(x, off[7]);
	uet_ofi_win_free(w);
}

static void
win_release__rejects_what_was_not_allocated(void **state)
{
	struct uet_ofi_win *w = uet_ofi_win_create(NULL, 16 * KIB, 8);
	uint64_t a;

	(void)state;
	assert_int_equal(uet_ofi_win_alloc(w, 1 * KIB, &a), 0);
	assert_int_equal(uet_ofi_win_release(w, a + 256), -EINVAL);
	assert_int_equal(uet_ofi_win_release(w, a + 1), -EINVAL);
	assert_int_equal(uet_ofi_win_release(w, 16 * KIB), -EINVAL);
	assert_int_equal(uet_ofi_win_release(w, a), 0);
	assert_int_equal(uet_ofi_win_release(w, a), -EINVAL); /* twice */
	uet_ofi_win_free(w);
}

/* A window that is not a power of two: 24 KiB = 16 + 8, both usable. */
static void
win_create__uneven_length_uses_all_of_it(void **state)
{
	struct uet_ofi_win *w = uet_ofi_win_create(NULL, 24 * KIB + 100, 10);
	uint64_t a, b, x;

	(void)state;
	assert_non_null(w);
	assert_int_equal(w->len, 24 * KIB);
	assert_int_equal(uet_ofi_win_max(w), 16 * KIB);
	assert_int_equal(uet_ofi_win_alloc(w, 16 * KIB, &a), 0);
	assert_int_equal(uet_ofi_win_alloc(w, 8 * KIB, &b), 0);
	assert_int_equal(uet_ofi_win_alloc(w, 1, &x), -EAGAIN);
	assert_int_equal(a, 0);
	assert_int_equal(b, 16 * KIB);
	uet_ofi_win_free(w);
}

/* Random allocations and releases: chunks never overlap or leave the
 * window, the used count matches, and all of it comes back. */
static void
win_alloc__random_never_overlaps(void **state)
{
	enum { N = 64, ROUNDS = 20000 };
	const uint64_t len = 1 * MIB;
	struct uet_ofi_win *w = uet_ofi_win_create(NULL, len, 8);
	uint64_t off[N], sz[N], x;
	bool live[N] = { false };
	uint8_t *owner = calloc(len / 256, 1);
	struct uet_rand rng = { .s = 12345 };

	(void)state;
	assert_non_null(w);
	assert_non_null(owner);
	for (int r = 0; r < ROUNDS; r++) {
		int i = (int)uet_rand_below(&rng, N);

		if (live[i]) {
			for (uint64_t b = off[i] / 256;
			     b < (off[i] + sz[i] + 255) / 256; b++) {
				assert_int_equal(owner[b], i + 1);
				owner[b] = 0;
			}
			assert_int_equal(uet_ofi_win_release(w, off[i]), 0);
			live[i] = false;
			continue;
		}
		sz[i] = 1 + (uint64_t)uet_rand_below(&rng, 64 * 1024);
		if (uet_ofi_win_alloc(w, sz[i], &off[i]) != 0)
			continue;
		assert_true(off[i] + sz[i] <= len);
		for (uint64_t b = off[i] / 256; b < (off[i] + sz[i] + 255) / 256;
		     b++) {
			assert_int_equal(owner[b], 0);
			owner[b] = (uint8_t)(i + 1);
		}
		live[i] = true;
	}
	for (int i = 0; i < N; i++)
		if (live[i])
			assert_int_equal(uet_ofi_win_release(w, off[i]), 0);
	assert_int_equal(w->used, 0);
	assert_int_equal(uet_ofi_win_alloc(w, len, &x), 0);
	free(owner);
	uet_ofi_win_free(w);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(win_create__rejects_bad_sizes),
		cmocka_unit_test(win_alloc__rounds_to_blocks_and_merges_back),
		cmocka_unit_test(win_alloc__full_is_eagain_too_large_is_emsgsize),
		cmocka_unit_test(win_release__rejects_what_was_not_allocated),
		cmocka_unit_test(win_create__uneven_length_uses_all_of_it),
		cmocka_unit_test(win_alloc__random_never_overlaps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
