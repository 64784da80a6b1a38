/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Per-source replay window over transmit security counters (UEC 1.0
 * section 3.7: the receiver drops a TSC it has seen or that is too old to
 * tell). A ring bitmap of `size` bits, bit `tsc % size` for the TSCs in
 * (top - size, top]; sliding forward clears the bits of the TSCs passed
 * over, a word at a time where it can.
 */

#include <errno.h>
#include <string.h>

#include <uet/uet_tss.h>

int
uet_tss_replay_init(struct uet_tss_replay *w, uint32_t size)
{
	if (size == 0 || size % 64 != 0 || size > UET_TSS_REPLAY_MAX)
		return -EINVAL;
	memset(w, 0, sizeof(*w));
	w->size = size;
	return 0;
}

static bool
replay_bit(const struct uet_tss_replay *w, uint64_t tsc)
{
	uint64_t b = tsc % w->size;

	return (w->bits[b / 64] >> (b % 64)) & 1;
}

int
uet_tss_replay_check(const struct uet_tss_replay *w, uint64_t tsc)
{
	if (!w->any || tsc > w->top)
		return 0;
	if (w->top - tsc >= w->size)
		return -ERANGE;
	return replay_bit(w, tsc) ? -EEXIST : 0;
}

/* Clear the bits of TSCs top+1 .. to (they are now in the window). */
static void
replay_slide(struct uet_tss_replay *w, uint64_t to)
{
	uint64_t t = w->top + 1, b;

	if (to - w->top >= w->size) {
		memset(w->bits, 0, sizeof(w->bits[0]) * (w->size / 64));
		return;
	}
	while (t <= to) {
		b = t % w->size;
		if (b % 64 == 0 && to - t >= 63) {
			w->bits[b / 64] = 0;
			t += 64;
		} else {
			w->bits[b / 64] &= ~(UINT64_C(1) << (b % 64));
			t++;
		}
	}
}

void
uet_tss_replay_update(struct uet_tss_replay *w, uint64_t tsc)
{
	uint64_t b;

	if (!w->any) {
		w->any = true;
		w->top = tsc;
		memset(w->bits, 0, sizeof(w->bits[0]) * (w->size / 64));
	} else if (tsc > w->top) {
		replay_slide(w, tsc);
		w->top = tsc;
	} else if (w->top - tsc >= w->size) {
		return; /* too old: check() refused it */
	}
	b = tsc % w->size;
	w->bits[b / 64] |= UINT64_C(1) << (b % 64);
}
