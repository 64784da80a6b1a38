/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the TSS key derivation (src/tss/tss_kdf.c).
 *
 * Known answers: NIST CAVP SP 800-108 counter mode, PRF CMAC_AES256,
 * counter before the fixed data, 32-bit counter (COUNT 0 and 30); the
 * SP 800-38B CMAC-AES-256 examples check the PRF the construction test
 * recomputes with OpenSSL's EVP_MAC.
 */

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <openssl/core_names.h>
#include <openssl/evp.h>

#include <uet/uet_tss.h>

static size_t
unhex(const char *h, uint8_t *out, size_t cap)
{
	size_t n = strlen(h) / 2, i;
	unsigned int v;

	assert_true(n <= cap);
	for (i = 0; i < n; i++) {
		assert_int_equal(sscanf(h + 2 * i, "%2x", &v), 1);
		out[i] = (uint8_t)v;
	}
	return n;
}

struct kat {
	const char *key, *fixed, *out;
};

/* CounterMode.zip, [PRF=CMAC_AES256] [CTRLOCATION=BEFORE_FIXED]
 * [RLEN=32_BITS]. */
static const struct kat kats[] = {
	{ /* COUNT=0, L=128 */
	  "d0b1b3b70b2393c48ca05159e7e28cbeadea93f28a7cdae964e5136070c45d5c",
	  "dd2f151a3f173492a6fbbb602189d51ddf8ef79fc8e96b8fcbe6dabe73a35b48"
	  "104f9dff2d63d48786d2b3af177091d646a9efae005bdfacb61a1214",
	  "8c449fb474d1c1d4d2a33827103b656a" },
	{ /* COUNT=10, L=256 */
	  "d54b6fd94f7cf98fd955517f937e9927f9536caebe148fba1818c1ba46bba3a4",
	  "94c4a0c69526196c1377cebf0a2ae0fb4b57797c61bea8eeb0518ca08652d14a"
	  "5e1bd1b116b1794ac8a476acbdbbcd4f6142d7b8515bad09ec72f7af",
	  "2e1efed4aef3fdd324e098c0a07c0d97f8fd2c748a996ce29861ca042474daea" },
	{ /* COUNT=30, L=320 */
	  "dabde95d751ff1c132bd49f80f4ee347bf39218cf8bfec61bc3ad865d9aa1182",
	  "55da554307ed756764d4e97febb77ce85391b53225ee09417ad57def48ead090"
	  "e3d1e7c2ed04f02462a6324ea0163b18f86201c69db27fd50b4c42c5",
	  "5cc29221cfa6f3a4ded7afeef5a59c05bac787fc5e98a35ee0c96ba582b05c42"
	  "f758966566084f69" },
};

static void
uet_tss_kdf_fixed__nist_vectors(void **state)
{
	uint8_t key[32], fixed[64], want[64], got[64];
	size_t i, fl, ol;

	(void)state;
	for (i = 0; i < sizeof(kats) / sizeof(kats[0]); i++) {
		assert_int_equal(unhex(kats[i].key, key, sizeof(key)), 32);
		fl = unhex(kats[i].fixed, fixed, sizeof(fixed));
		ol = unhex(kats[i].out, want, sizeof(want));
		memset(got, 0, sizeof(got));
		assert_int_equal(uet_tss_kdf_fixed(key, fixed, fl, got, ol), 0);
		assert_memory_equal(got, want, ol);
	}
}

/* CMAC-AES-256 with OpenSSL's EVP_MAC, the PRF of the KDF. */
static void
cmac256(const uint8_t key[32], const uint8_t *m, size_t n, uint8_t out[16])
{
	char cipher[] = "AES-256-CBC";
	OSSL_PARAM p[] = {
		OSSL_PARAM_utf8_string(OSSL_MAC_PARAM_CIPHER, cipher, 0),
		OSSL_PARAM_END,
	};
	EVP_MAC *mac = EVP_MAC_fetch(NULL, "CMAC", NULL);
	EVP_MAC_CTX *ctx;
	size_t ol = 0;

	assert_non_null(mac);
	ctx = EVP_MAC_CTX_new(mac);
	assert_non_null(ctx);
	assert_int_equal(EVP_MAC_init(ctx, key, 32, p), 1);
	assert_int_equal(EVP_MAC_update(ctx, m, n), 1);
	assert_int_equal(EVP_MAC_final(ctx, out, &ol, 16), 1);
	assert_int_equal(ol, 16);
	EVP_MAC_CTX_free(ctx);
	EVP_MAC_free(mac);
}

/* SP 800-38B, appendix D.3 (CMAC-AES256), examples 1 and 2. */
static void
cmac256__sp800_38b_examples(void **state)
{
	uint8_t key[32], m[16], want[16], got[16];

	(void)state;
	unhex("603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4",
	      key, sizeof(key));
	unhex("028962f61b7bf89efc6b551f4667d983", want, sizeof(want));
	cmac256(key, m, 0, got);
	assert_memory_equal(got, want, 16);
	unhex("6bc1bee22e409f96e93d7e117393172a", m, sizeof(m));
	unhex("28a7023f452e8f82bd4bf28d8c37c35c", want, sizeof(want));
	cmac256(key, m, 16, got);
	assert_memory_equal(got, want, 16);
}

/* uet_tss_kdf() = CMAC([i]_32 || label || 0x00 || ctx || [L]_32) blocks,
 * recomputed block by block: 44 bytes need three blocks. */
static void
uet_tss_kdf__fixed_input_construction(void **state)
{
	static const uint8_t src[4] = { 10, 0, 0, 1 };
	uint8_t key[32], ctx[UET_TSS_KDF_CTX_V6_LEN], m[64], blk[48];
	uint8_t got[UET_TSS_KDF_OUT_LEN];
	size_t n, i;
	int cl;

	(void)state;
	for (i = 0; i < sizeof(key); i++)
		key[i] = (uint8_t)(0xA0 + i);
	cl = uet_tss_kdf_ctx(0x0102, 0x03040506, src, 4, ctx);
	assert_int_equal(cl, UET_TSS_KDF_CTX_V4_LEN);
	assert_int_equal(uet_tss_kdf(key, UET_TSS_LABEL_CLUSTER, ctx,
				     (size_t)cl, got, sizeof(got)), 0);
	for (i = 0; i < 3; i++) {
		n = 0;
		m[n++] = 0, m[n++] = 0, m[n++] = 0, m[n++] = (uint8_t)(i + 1);
		m[n++] = 'U', m[n++] = '1', m[n++] = 0x00;
		memcpy(m + n, ctx, (size_t)cl);
		n += (size_t)cl;
		/* L = 44 * 8 = 352 = 0x160 */
		m[n++] = 0, m[n++] = 0, m[n++] = 0x01, m[n++] = 0x60;
		cmac256(key, m, n, blk + 16 * i);
	}
	assert_memory_equal(got, blk, sizeof(got));
}

static void
uet_tss_kdf_ctx__layouts(void **state)
{
	static const uint8_t v4[4] = { 192, 168, 0, 1 };
	static const uint8_t want4[] = {
		0xAB, 0xCD, 0x11, 0x22, 0x33, 0x44, 192, 168, 0, 1,
	};
	uint8_t v6[16], out[UET_TSS_KDF_CTX_V6_LEN], want6[26];
	size_t i;

	(void)state;
	assert_int_equal(uet_tss_kdf_ctx(0xABCD, 0x11223344, v4, 4, out), 10);
	assert_memory_equal(out, want4, sizeof(want4));
	for (i = 0; i < 16; i++)
		v6[i] = (uint8_t)(0x20 + i);
	memset(want6, 0, 4);
	memcpy(want6 + 4, want4, 6);
	memcpy(want6 + 10, v6, 16);
	assert_int_equal(uet_tss_kdf_ctx(0xABCD, 0x11223344, v6, 16, out), 26);
	assert_memory_equal(out, want6, sizeof(want6));
	assert_int_equal(uet_tss_kdf_ctx(0, 0, v6, 8, out), -EINVAL);
}

static void
uet_tss_kdf__rejects_bad_arguments(void **state)
{
	uint8_t key[32] = { 0 }, ctx[40] = { 0 }, out[16];

	(void)state;
	assert_int_equal(uet_tss_kdf(key, "U1", ctx, 4, out, 0), -EINVAL);
	assert_int_equal(uet_tss_kdf(key, "U1", ctx, 27, out, 16), -EINVAL);
	assert_int_equal(uet_tss_kdf(key, "a label longer than 16", ctx, 4,
				     out, 16), -EINVAL);
	assert_int_equal(uet_tss_kdf_fixed(key, ctx, 4, out, 0), -EINVAL);
}

/* Labels and contexts separate keys: U1 and U2, two sources. */
static void
uet_tss_kdf__inputs_separate_keys(void **state)
{
	static const uint8_t s1[4] = { 10, 0, 0, 1 }, s2[4] = { 10, 0, 0, 2 };
	uint8_t key[32] = { 1 }, c1[10], c2[10];
	uint8_t a[UET_TSS_KDF_OUT_LEN], b[UET_TSS_KDF_OUT_LEN];

	(void)state;
	uet_tss_kdf_ctx(0, 0, s1, 4, c1);
	uet_tss_kdf_ctx(0, 0, s2, 4, c2);
	assert_int_equal(uet_tss_kdf(key, "U1", c1, 10, a, sizeof(a)), 0);
	assert_int_equal(uet_tss_kdf(key, "U2", c1, 10, b, sizeof(b)), 0);
	assert_memory_not_equal(a, b, sizeof(a));
	assert_int_equal(uet_tss_kdf(key, "U1", c2, 10, b, sizeof(b)), 0);
	assert_memory_not_equal(a, b, sizeof(a));
	assert_int_equal(uet_tss_kdf(key, "U1", c1, 10, b, sizeof(b)), 0);
	assert_memory_equal(a, b, sizeof(a));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(uet_tss_kdf_fixed__nist_vectors),
		cmocka_unit_test(cmac256__sp800_38b_examples),
		cmocka_unit_test(uet_tss_kdf__fixed_input_construction),
		cmocka_unit_test(uet_tss_kdf_ctx__layouts),
		cmocka_unit_test(uet_tss_kdf__rejects_bad_arguments),
		cmocka_unit_test(uet_tss_kdf__inputs_separate_keys),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
