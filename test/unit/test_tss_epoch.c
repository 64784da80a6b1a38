/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of a secure domain's key generations (src/tss/tss_epoch.c):
 * the epoch number of a key, and a rotation's phases in virtual time
 * (new key accepted at once, sealed with after the delay, old key refused
 * after twice the delay), a second rotation refused while the first's old
 * key is accepted, the same key refused.
 */

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include <uet/uet_tss.h>

#define DELAY 1000u

/* The number is the KDF's: the same key, the same number on every host;
 * it matches the SP 800-108 output computed independently (label "EP",
 * empty context, L = 16) and differs between keys. */
static void
uet_tss_epoch_of_key__kdf(void **state)
{
	uint8_t k1[UET_TSS_KEY_LEN], k2[UET_TSS_KEY_LEN], fixed[8], out[2];
	uint16_t e1, e1b, e2;

	(void)state;
	for (unsigned int i = 0; i < UET_TSS_KEY_LEN; i++) {
		k1[i] = (uint8_t)i;
		k2[i] = (uint8_t)(i * 7 + 1);
	}
	assert_int_equal(uet_tss_epoch_of_key(k1, &e1), 0);
	assert_int_equal(uet_tss_epoch_of_key(k1, &e1b), 0);
	assert_int_equal(uet_tss_epoch_of_key(k2, &e2), 0);
	assert_int_equal(e1, e1b);
	assert_int_not_equal(e1, e2);
	/* "EP" || 0x00 || (no context) || [16]_32 */
	memcpy(fixed, "EP\0\0\0\0\x10", 7);
	assert_int_equal(uet_tss_kdf_fixed(k1, fixed, 7, out, 2), 0);
	assert_int_equal(e1, out[0] << 8 | out[1]);
}

static void
uet_tss_epochs_rotate__phases(void **state)
{
	struct uet_tss_epochs s;

	(void)state;
	uet_tss_epochs_init(&s, 100);
	assert_int_equal(uet_tss_epochs_tx(&s, 0), 0);
	assert_int_equal(uet_tss_epochs_rx(&s, 100, 0), 0);
	assert_int_equal(uet_tss_epochs_rx(&s, 101, 0), -ENOKEY);
	assert_int_equal(uet_tss_epochs_rotate(&s, 200, 5000, DELAY), 1);
	/* before the switch: both accepted, the old one sealed with */
	assert_int_equal(uet_tss_epochs_tx(&s, 5000 + DELAY - 1), 0);
	assert_int_equal(uet_tss_epochs_rx(&s, 200, 5000), 1);
	assert_int_equal(uet_tss_epochs_rx(&s, 100, 5000), 0);
	/* after it: the new one sealed with, the old still accepted */
	assert_int_equal(uet_tss_epochs_tx(&s, 5000 + DELAY), 1);
	assert_int_equal(uet_tss_epochs_rx(&s, 100, 5000 + 2 * DELAY - 1),
			 0);
	/* retired */
	assert_int_equal(uet_tss_epochs_rx(&s, 100, 5000 + 2 * DELAY),
			 -ENOKEY);
	assert_int_equal(uet_tss_epochs_rx(&s, 200, 5000 + 2 * DELAY), 1);
	assert_int_equal(uet_tss_epochs_tx(&s, 9999999), 1);
}

static void
uet_tss_epochs_rotate__refused(void **state)
{
	struct uet_tss_epochs s;

	(void)state;
	uet_tss_epochs_init(&s, 100);
	/* the same key (or a colliding number): nothing changes */
	assert_int_equal(uet_tss_epochs_rotate(&s, 100, 0, DELAY), -EEXIST);
	assert_int_equal(uet_tss_epochs_tx(&s, 0), 0);
	assert_int_equal(uet_tss_epochs_rotate(&s, 200, 0, DELAY), 1);
	/* a third key while the first is still accepted */
	assert_int_equal(uet_tss_epochs_rotate(&s, 300, 2 * DELAY - 1,
					       DELAY), -EBUSY);
	assert_int_equal(uet_tss_epochs_rx(&s, 100, 2 * DELAY - 1), 0);
	assert_int_equal(uet_tss_epochs_rx(&s, 300, 2 * DELAY - 1), -ENOKEY);
	/* once it is retired, the next rotation takes its slot */
	assert_int_equal(uet_tss_epochs_rotate(&s, 300, 2 * DELAY, DELAY), 0);
	assert_int_equal(uet_tss_epochs_rx(&s, 100, 2 * DELAY), -ENOKEY);
	assert_int_equal(uet_tss_epochs_rx(&s, 200, 2 * DELAY), 1);
	assert_int_equal(uet_tss_epochs_rx(&s, 300, 2 * DELAY), 0);
	assert_int_equal(uet_tss_epochs_tx(&s, 2 * DELAY), 1);
	assert_int_equal(uet_tss_epochs_tx(&s, 3 * DELAY), 0);
	/* back to the key before: a rotation like any other (the TSC runs
	 * on across epochs, so no IV repeats under it) */
	assert_int_equal(uet_tss_epochs_rotate(&s, 200, 4 * DELAY, DELAY), 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(uet_tss_epoch_of_key__kdf),
		cmocka_unit_test(uet_tss_epochs_rotate__phases),
		cmocka_unit_test(uet_tss_epochs_rotate__refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
