/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * AES-GCM-256 through OpenSSL (src/tss/tss_aead.c): the GCM
 * specification's AES-256 test cases 14 and 16 (the ones test_tss_cdev
 * runs through each crypto PMD), and every tampering refused.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <uet/uet_tss.h>

static size_t
unhex(const char *h, uint8_t *out)
{
	size_t n = strlen(h) / 2;
	unsigned int v;

	for (size_t i = 0; i < n; i++) {
		assert_int_equal(sscanf(h + 2 * i, "%2x", &v), 1);
		out[i] = (uint8_t)v;
	}
	return n;
}

struct kat {
	const char *key, *iv, *aad, *pt, *ct, *tag;
};

static const struct kat kats[] = {
	{ "00000000000000000000000000000000"
	  "00000000000000000000000000000000", "000000000000000000000000", "",
	  "00000000000000000000000000000000",
	  "cea7403d4d606b6e074ec5d3baf39d18",
	  "d0d1c8a799996bf0265b98b5d48ab919" },
	{ "feffe9928665731c6d6a8f9467308308"
	  "feffe9928665731c6d6a8f9467308308", "cafebabefacedbaddecaf888",
	  "feedfacedeadbeeffeedfacedeadbeefabaddad2",
	  "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
	  "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39",
	  "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa"
	  "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662",
	  "76fc6ece0f4e1768cddf8853bb2d551b" },
};

static void
gcm_seal__known_answers(void **state)
{
	uint8_t key[32], iv[12], aad[32], pt[64], ct[64], tag[16], out[64],
		t[16];

	(void)state;
	for (size_t k = 0; k < sizeof(kats) / sizeof(kats[0]); k++) {
		size_t al = unhex(kats[k].aad, aad), pl = unhex(kats[k].pt, pt);

		unhex(kats[k].key, key);
		unhex(kats[k].iv, iv);
		unhex(kats[k].ct, ct);
		unhex(kats[k].tag, tag);
		assert_int_equal(uet_tss_gcm_seal(key, iv, aad, al, pt, pl,
						  out, t), 0);
		assert_memory_equal(out, ct, pl);
		assert_memory_equal(t, tag, 16);
		assert_int_equal(uet_tss_gcm_open(key, iv, aad, al, ct, pl,
						  out, tag), 0);
		assert_memory_equal(out, pt, pl);
	}
}

static void
gcm_open__tampering_refused(void **state)
{
	const struct kat *k = &kats[1];
	uint8_t key[32], iv[12], aad[32], ct[64], tag[16], out[64];
	size_t al, cl;

	(void)state;
	unhex(k->key, key);
	unhex(k->iv, iv);
	al = unhex(k->aad, aad);
	cl = unhex(k->ct, ct);
	unhex(k->tag, tag);
	ct[3] ^= 1;
	assert_int_equal(uet_tss_gcm_open(key, iv, aad, al, ct, cl, out, tag),
			 -EBADMSG);
	ct[3] ^= 1;
	aad[0] ^= 1;
	assert_int_equal(uet_tss_gcm_open(key, iv, aad, al, ct, cl, out, tag),
			 -EBADMSG);
	aad[0] ^= 1;
	tag[15] ^= 1;
	assert_int_equal(uet_tss_gcm_open(key, iv, aad, al, ct, cl, out, tag),
			 -EBADMSG);
	tag[15] ^= 1;
	key[0] ^= 1;
	assert_int_equal(uet_tss_gcm_open(key, iv, aad, al, ct, cl, out, tag),
			 -EBADMSG);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(gcm_seal__known_answers),
		cmocka_unit_test(gcm_open__tampering_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
