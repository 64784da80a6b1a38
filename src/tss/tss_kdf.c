/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TSS key derivation (UEC 1.0 section 3.7): NIST SP 800-108 counter mode
 * with CMAC-AES-256 as PRF, through OpenSSL's KBKDF. No hand-written CMAC:
 * the known-answer tests (test/unit/test_tss_kdf.c) pin it to NIST's
 * vectors.
 */

#include <errno.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/kdf.h>
#include <openssl/params.h>

#include <uet/uet_tss.h>

/* label(<=16) || 0x00 || context(<=26) || L(4) */
#define FIXED_MAX 64
#define LABEL_MAX 16

int
uet_tss_kdf_fixed(const uint8_t key[UET_TSS_KEY_LEN], const uint8_t *fixed,
		  size_t fixed_len, uint8_t *out, size_t out_len)
{
	int use_l = 0, use_sep = 0;
	OSSL_PARAM params[] = {
		OSSL_PARAM_utf8_string(OSSL_KDF_PARAM_MODE, "COUNTER", 0),
		OSSL_PARAM_utf8_string(OSSL_KDF_PARAM_MAC, "CMAC", 0),
		OSSL_PARAM_utf8_string(OSSL_KDF_PARAM_CIPHER, "AES-256-CBC", 0),
		OSSL_PARAM_octet_string(OSSL_KDF_PARAM_KEY, (void *)key,
					UET_TSS_KEY_LEN),
		/* The caller's fixed input is the whole "info": no label,
		 * separator or L added by OpenSSL. Its counter is 32 bits,
		 * as UEC's (OpenSSL 3.0 has no setting for it; the NIST
		 * vectors of the tests use a 32-bit one). */
		OSSL_PARAM_octet_string(OSSL_KDF_PARAM_INFO, (void *)fixed,
					fixed_len),
		OSSL_PARAM_int(OSSL_KDF_PARAM_KBKDF_USE_L, &use_l),
		OSSL_PARAM_int(OSSL_KDF_PARAM_KBKDF_USE_SEPARATOR, &use_sep),
		OSSL_PARAM_END,
	};
	EVP_KDF_CTX *ctx = NULL;
	EVP_KDF *kdf;
	int rc = -EIO;

	if (out_len == 0)
		return -EINVAL;
	kdf = EVP_KDF_fetch(NULL, "KBKDF", NULL);
	if (kdf == NULL)
		goto out;
	ctx = EVP_KDF_CTX_new(kdf);
	if (ctx == NULL)
		goto out;
	if (EVP_KDF_derive(ctx, out, out_len, params) == 1)
		rc = 0;
out:
	EVP_KDF_CTX_free(ctx);
	EVP_KDF_free(kdf);
	return rc;
}

int
uet_tss_kdf(const uint8_t key[UET_TSS_KEY_LEN], const char *label,
	    const uint8_t *ctx, size_t ctx_len, uint8_t *out, size_t out_len)
{
	size_t ll = strnlen(label, LABEL_MAX + 1), n = 0;
	uint8_t fixed[FIXED_MAX];
	uint32_t bits;
	int rc;

	if (ll > LABEL_MAX || ctx_len > UET_TSS_KDF_CTX_V6_LEN ||
	    out_len == 0 || out_len > UINT32_MAX / 8)
		return -EINVAL;
	memcpy(fixed, label, ll);
	n = ll;
	fixed[n++] = 0x00;
	memcpy(fixed + n, ctx, ctx_len);
	n += ctx_len;
	bits = (uint32_t)(out_len * 8);
	fixed[n++] = (uint8_t)(bits >> 24);
	fixed[n++] = (uint8_t)(bits >> 16);
	fixed[n++] = (uint8_t)(bits >> 8);
	fixed[n++] = (uint8_t)bits;
	rc = uet_tss_kdf_fixed(key, fixed, n, out, out_len);
	/* the fixed input carries addresses, not secrets; cleared anyway */
	memset(fixed, 0, sizeof(fixed));
	return rc;
}

int
uet_tss_kdf_ctx(uint16_t epoch, uint32_t rekey, const uint8_t *src,
		size_t src_len, uint8_t *out)
{
	size_t off;

	if (src_len != 4 && src_len != 16)
		return -EINVAL;
	off = src_len == 4 ? 0 : 4;
	memset(out, 0, off);
	out[off] = (uint8_t)(epoch >> 8);
	out[off + 1] = (uint8_t)epoch;
	out[off + 2] = (uint8_t)(rekey >> 24);
	out[off + 3] = (uint8_t)(rekey >> 16);
	out[off + 4] = (uint8_t)(rekey >> 8);
	out[off + 5] = (uint8_t)rekey;
	memcpy(out + off + 6, src, src_len);
	return (int)(off + 6 + src_len);
}
