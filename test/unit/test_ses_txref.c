/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of zero-copy transmit in the SES (src/ses/ses_txref.c,
 * uet_ses_build_ref()): the header written, the payload named in the
 * application's buffer (the same bytes uet_ses_build() copies, also on a
 * rebuild for a retransmission), short payloads copied, and a message
 * whose buffer a frame still references completing only once released.
 */

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <errno.h>
#include <string.h>
#include <cmocka.h>

#include <uet/uet_ses.h>

#include "ses_fakewire.h"

#define RUN_NS 2000000000ull

static struct sfw w;
static uint8_t data[8192];
static uint8_t mem[1 << 14];
static bool busy;          /* what tx_busy answers */
static uint32_t busy_asks; /* ... and how often it was asked */

static bool
tx_busy(void *arg, uint32_t msg)
{
	(void)arg;
	(void)msg;
	busy_asks++;
	return busy;
}

static int
setup(void **state)
{
	*state = &w; /* for ses_fakewire_teardown() */
	busy = false;
	busy_asks = 0;
	ses_fakewire_tx_busy = tx_busy;
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 11 + 3);
	memset(mem, 0, sizeof(mem));
	return ses_fakewire_init(&w, UET_PROFILE_HPC, 1);
}

static int
teardown(void **state)
{
	(void)state;
	ses_fakewire_tx_busy = NULL;
	ses_fakewire_fini(&w);
	return 0;
}

/* Every fragment of a 3000-byte WRITE: header + reference equal to what
 * uet_ses_build() writes, twice (a retransmission rebuilds from the same
 * memory); with min_ref above the payload, built whole. */
static void
build_ref__header_and_payload_slice(void **state)
{
	uint8_t buf[SFW_MTU + 64], whole[SFW_MTU + 64];
	struct uet_pds_tx tx[16];
	struct uet_ses_wr wr;
	uint32_t rlen, msg, seen = 0;
	const void *ref;
	uint16_t n;
	int hl, len;

	(void)state;
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_WRITE, data, 3000);
	wr.rkey = 7;
	assert_int_equal(uet_ses_submit(w.n[0].ses, &wr, NULL), 0);
	uet_ses_progress(w.n[0].ses, w.now);
	n = uet_pds_tx_burst(w.n[0].pds, w.now, tx, 16);
	assert_true(n > 1);
	for (uint16_t i = 0; i < n; i++) {
		len = uet_ses_build(w.n[0].ses, tx[i].cookie, 0, whole,
				    sizeof(whole));
		assert_int_equal(len, tx[i].len);
		for (int again = 0; again < 2; again++) {
			rlen = 1;
			hl = uet_ses_build_ref(w.n[0].ses, tx[i].cookie, buf,
					       sizeof(buf), 1, &ref, &rlen,
					       &msg);
			assert_true(hl > 0 && rlen > 0);
			assert_int_equal(hl + (int)rlen, len);
			assert_memory_equal(buf, whole, (size_t)hl);
			assert_memory_equal(ref, whole + hl, rlen);
			assert_true((const uint8_t *)ref >= data &&
				    (const uint8_t *)ref + rlen <= data + 3000);
		}
		seen += rlen;
		/* below min_ref: copied, nothing referenced */
		hl = uet_ses_build_ref(w.n[0].ses, tx[i].cookie, buf,
				       sizeof(buf), rlen + 1, &ref, &rlen, &msg);
		assert_int_equal(hl, len);
		assert_int_equal(rlen, 0);
		assert_memory_equal(buf, whole, (size_t)len);
	}
	assert_int_equal(seen, 3000);
	assert_int_equal(uet_ses_build_ref(w.n[0].ses, 0xFFFFFFFFFFFFull, buf,
					   sizeof(buf), 1, &ref, &rlen, &msg),
			 -ENOENT);
}

/* Acknowledged while a frame still references its buffer: no completion
 * until tx_busy says it is released, then exactly one, data in place. */
static void
park__completes_once_released(void **state)
{
	uint64_t key = ses_fakewire_mr(&w, 1, mem, sizeof(mem),
				       UET_SES_MR_REMOTE_WRITE, false);
	struct uet_ses_wr wr;

	(void)state;
	assert_true(key != 0);
	busy = true;
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_WRITE, data, 5000);
	wr.rkey = key;
	wr.context = 42;
	assert_int_equal(uet_ses_submit(w.n[0].ses, &wr, NULL), 0);
	assert_false(ses_fakewire_run_cq(&w, 0, 1, 50000000ull));
	/* the target has it all: the initiator only waits for the port */
	assert_memory_equal(mem, data, 5000);
	assert_int_equal(uet_ses_stats_get(w.n[0].ses)->msg_tx_wait, 1);
	assert_int_equal(w.n[0].ncq, 0);
	assert_true(busy_asks > 1);
	assert_true(uet_ses_next_deadline(w.n[0].ses) <= w.now);
	busy = false;
	assert_true(ses_fakewire_run_cq(&w, 0, 1, RUN_NS));
	assert_int_equal(w.n[0].ncq, 1);
	assert_int_equal(w.n[0].cq[0].status, 0);
	assert_int_equal(w.n[0].cq[0].context, 42);
	assert_int_equal(uet_ses_stats_get(w.n[0].ses)->msg_ok, 1);
	/* the slot is free again: another message runs through */
	ses_fakewire_wr(&w, 0, &wr, UET_SES_WR_WRITE, data + 1, 3000);
	wr.rkey = key;
	assert_int_equal(uet_ses_submit(w.n[0].ses, &wr, NULL), 0);
	assert_true(ses_fakewire_run_cq(&w, 0, 2, RUN_NS));
	assert_int_equal(w.n[0].ncq, 2);
	assert_memory_equal(mem, data + 1, 3000);
	assert_int_equal(uet_ses_stats_get(w.n[0].ses)->msg_tx_wait, 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			build_ref__header_and_payload_slice, setup, teardown),
		cmocka_unit_test_setup_teardown(park__completes_once_released,
						setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
