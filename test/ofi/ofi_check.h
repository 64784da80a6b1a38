/* SPDX-License-Identifier: BSD-3-Clause */
/* Tiny check helpers shared by the provider tests (public libfabric API). */
#ifndef OFI_CHECK_H
#define OFI_CHECK_H

#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <uet/uet_clock.h>

static int ofi_failures;

#define CHECK(c)                                                          \
	do {                                                              \
		if (!(c)) {                                               \
			fprintf(stderr, "%s:%d: CHECK(%s) failed\n",      \
				__FILE__, __LINE__, #c);                  \
			ofi_failures++;                                   \
		}                                                         \
	} while (0)

#define CHECK_RC(expr, want)                                              \
	do {                                                              \
		long rc_ = (long)(expr);                                  \
		if (rc_ != (long)(want)) {                                \
			fprintf(stderr, "%s:%d: %s = %ld, want %ld\n",    \
				__FILE__, __LINE__, #expr, rc_,           \
				(long)(want));                            \
			ofi_failures++;                                   \
		}                                                         \
	} while (0)

#endif
