/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_CLOCK_H
#define UET_CLOCK_H

/**
 * @file
 * CLOCK_MONOTONIC, for what bounds a wait or dates an event in wall time
 * outside the engine (whose clock is its TSC or a virtual one): the
 * provider's waits, the service's timers, uet-perf's control connection,
 * the tests' deadlines.
 */

#include <stdint.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

/** CLOCK_MONOTONIC in nanoseconds. */
static inline uint64_t
uet_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/** CLOCK_MONOTONIC in milliseconds. */
static inline uint64_t
uet_mono_ms(void)
{
	return uet_mono_ns() / 1000000u;
}

#ifdef __cplusplus
}
#endif

#endif /* UET_CLOCK_H */
