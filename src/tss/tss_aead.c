/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * AES-GCM-256 of one protected packet through OpenSSL's EVP interface,
 * for tools without an EAL (uet-dump --tss-key). The engine's data path
 * uses rte_cryptodev (pmd/core/tss_cdev.c); both are checked against the
 * same GCM known answers.
 */

#include <errno.h>
#include <limits.h>

#include <openssl/evp.h>

#include <uet/uet_tss.h>

static int
gcm_run(bool seal, const uint8_t key[UET_TSS_KEY_LEN],
	const uint8_t iv[UET_TSS_IV_LEN], const uint8_t *aad,
	size_t aad_len, const uint8_t *in, size_t len, uint8_t *out,
	uint8_t tag[UET_TSS_ICV_LEN])
{
	EVP_CIPHER_CTX *c;
	int n = 0, rc = -EIO;

	if (len > INT_MAX || aad_len > INT_MAX)
		return -EINVAL;
	c = EVP_CIPHER_CTX_new();
	if (c == NULL)
		return -ENOMEM;
	if (EVP_CipherInit_ex(c, EVP_aes_256_gcm(), NULL, key, iv,
			      seal ? 1 : 0) != 1 ||
	    (aad_len != 0 &&
	     EVP_CipherUpdate(c, NULL, &n, aad, (int)aad_len) != 1) ||
	    (len != 0 && EVP_CipherUpdate(c, out, &n, in, (int)len) != 1))
		goto out;
	if (!seal && EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_SET_TAG,
					 UET_TSS_ICV_LEN, tag) != 1)
		goto out;
	if (EVP_CipherFinal_ex(c, out + n, &n) != 1) {
		rc = seal ? -EIO : -EBADMSG;
		goto out;
	}
	rc = 0;
	if (seal && EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_GET_TAG,
					UET_TSS_ICV_LEN, tag) != 1)
		rc = -EIO;
out:
	EVP_CIPHER_CTX_free(c);
	return rc;
}

int
uet_tss_gcm_seal(const uint8_t key[UET_TSS_KEY_LEN],
		 const uint8_t iv[UET_TSS_IV_LEN], const uint8_t *aad,
		 size_t aad_len, const uint8_t *pt, size_t len, uint8_t *ct,
		 uint8_t tag[UET_TSS_ICV_LEN])
{
	return gcm_run(true, key, iv, aad, aad_len, pt, len, ct, tag);
}

int
uet_tss_gcm_open(const uint8_t key[UET_TSS_KEY_LEN],
		 const uint8_t iv[UET_TSS_IV_LEN], const uint8_t *aad,
		 size_t aad_len, const uint8_t *ct, size_t len, uint8_t *pt,
		 const uint8_t tag[UET_TSS_ICV_LEN])
{
	uint8_t t[UET_TSS_ICV_LEN];

	for (unsigned int i = 0; i < UET_TSS_ICV_LEN; i++)
		t[i] = tag[i];
	return gcm_run(false, key, iv, aad, aad_len, ct, len, pt, t);
}
