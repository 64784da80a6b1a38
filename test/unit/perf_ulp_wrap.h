/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef PERF_ULP_WRAP_H
#define PERF_ULP_WRAP_H

/*
 * uet-perf's test ULP (apps/uet-perf/test_ulp.c) without an engine: the
 * engine calls it makes for every message, uet_ulp_max_len() and
 * uet_ulp_now(), and calloc() / realloc() are wrapped (the test links
 * with -Wl,--wrap=NAME for each), so that a test drives it by hand and
 * sees how much its records take.
 */

#include <stddef.h>

/* what uet_ulp_max_len() returns: a packet's payload */
#define PERF_WRAP_MAX_LEN 1500

/* the largest single calloc() / realloc() since a test set it to 0 */
extern size_t perf_wrap_alloc_max;

#endif /* PERF_ULP_WRAP_H */
