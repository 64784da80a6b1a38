/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Client/server mode's keys (UEC 1.0 section 3.7, docs/TSS.md): a client
 * holds keys derived for its SSI, never the domain key; a server holds
 * the domain key and derives a client's keys from the SSI a packet
 * carries. Client to server: KDF(domain key, "U2", epoch | rekey | SSI)
 * as the sources give; server to client: label "U3" (the sources are
 * silent; a key per direction, so that the two sides' TSCs never meet
 * under one key: docs/WIRE-DECISIONS.md, "Client/server mode").
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <uet/uet_parse.h>
#include <uet/uet_tss.h>

/* KDF(key, label, epoch | rekey | SSI), 44 bytes */
static int
cs_kdf(const uint8_t key[UET_TSS_KEY_LEN], const char *label, uint16_t epoch,
       uint32_t rekey, uint32_t ssi, uint8_t out[UET_TSS_KDF_OUT_LEN])
{
	uint8_t be[4] = {
		(uint8_t)(ssi >> 24), (uint8_t)(ssi >> 16),
		(uint8_t)(ssi >> 8), (uint8_t)ssi,
	};
	uint8_t ctx[UET_TSS_KDF_CTX_V4_LEN];
	int n;

	n = uet_tss_kdf_ctx(epoch, rekey, be, sizeof(be), ctx);
	if (n < 0)
		return n;
	return uet_tss_kdf(key, label, ctx, (size_t)n, out,
			   UET_TSS_KDF_OUT_LEN);
}

int
uet_tss_cs_derive(const uint8_t dkey[UET_TSS_KEY_LEN], const char *label,
		  uint16_t epoch, uint32_t ssi,
		  uint8_t out[UET_TSS_KDF_OUT_LEN])
{
	/* rekey 0: what a client holds; the keys of the rekey counters
	 * come from it (uet_tss_cs_rekey), since a client cannot derive
	 * anything from the domain key */
	return cs_kdf(dkey, label, epoch, 0, ssi, out);
}

int
uet_tss_cs_rekey(const uint8_t base[UET_TSS_KDF_OUT_LEN], const char *label,
		 uint16_t epoch, uint32_t rekey, uint32_t ssi,
		 uint8_t out[UET_TSS_KDF_OUT_LEN])
{
	uint8_t key[UET_TSS_KEY_LEN];
	int rc;

	memcpy(key, base, sizeof(key));
	rc = cs_kdf(key, label, epoch, rekey, ssi, out);
	explicit_bzero(key, sizeof(key));
	return rc;
}

int
uet_tss_client_key_derive(const uint8_t dkey[UET_TSS_KEY_LEN], uint32_t ssi,
			  struct uet_tss_client_key *ck)
{
	int rc;

	if (ssi == 0)
		return -EINVAL;
	memset(ck, 0, sizeof(*ck));
	ck->ssi = ssi;
	rc = uet_tss_epoch_of_key(dkey, &ck->epoch);
	if (rc == 0)
		rc = uet_tss_cs_derive(dkey, UET_TSS_LABEL_SERVER, ck->epoch,
				       ssi, ck->up);
	if (rc == 0)
		rc = uet_tss_cs_derive(dkey, UET_TSS_LABEL_DOWN, ck->epoch,
				       ssi, ck->down);
	if (rc < 0)
		explicit_bzero(ck, sizeof(*ck));
	return rc;
}

static void
blob_of(const struct uet_tss_client_key *ck, uint8_t b[UET_TSS_CLIENT_KEY_LEN])
{
	b[0] = (uint8_t)(ck->ssi >> 24);
	b[1] = (uint8_t)(ck->ssi >> 16);
	b[2] = (uint8_t)(ck->ssi >> 8);
	b[3] = (uint8_t)ck->ssi;
	b[4] = (uint8_t)(ck->epoch >> 8);
	b[5] = (uint8_t)ck->epoch;
	memcpy(b + 6, ck->up, UET_TSS_KDF_OUT_LEN);
	memcpy(b + 6 + UET_TSS_KDF_OUT_LEN, ck->down, UET_TSS_KDF_OUT_LEN);
}

int
uet_tss_client_key_read(const char *path, struct uet_tss_client_key *ck,
			char *why, size_t why_len)
{
	uint8_t b[UET_TSS_CLIENT_KEY_LEN];
	int rc = uet_parse_key_file(path, b, sizeof(b), why, why_len);

	memset(ck, 0, sizeof(*ck));
	if (rc == -EINVAL)
		snprintf(why, why_len, "expected a client key file: %u "
			 "hexadecimal digits (uet-tss-key derive)",
			 2 * UET_TSS_CLIENT_KEY_LEN);
	if (rc == 0) {
		ck->ssi = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
			  (uint32_t)b[2] << 8 | b[3];
		ck->epoch = (uint16_t)(b[4] << 8 | b[5]);
		memcpy(ck->up, b + 6, UET_TSS_KDF_OUT_LEN);
		memcpy(ck->down, b + 6 + UET_TSS_KDF_OUT_LEN,
		       UET_TSS_KDF_OUT_LEN);
		if (ck->ssi == 0) {
			snprintf(why, why_len, "SSI 0: not a client key "
				 "(uet-tss-key derive writes one)");
			rc = -EINVAL;
		}
	}
	explicit_bzero(b, sizeof(b));
	return rc;
}

int
uet_tss_client_key_write(const char *path, const struct uet_tss_client_key *ck)
{
	uint8_t b[UET_TSS_CLIENT_KEY_LEN];
	char text[2 * UET_TSS_CLIENT_KEY_LEN + 2];
	size_t n = 0;
	int fd, rc = 0;

	blob_of(ck, b);
	for (size_t i = 0; i < sizeof(b); i++, n += 2)
		snprintf(text + n, 3, "%02x", b[i]);
	text[n++] = '\n';
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
		  0600);
	if (fd < 0)
		rc = -errno;
	else if (write(fd, text, n) != (ssize_t)n)
		rc = -EIO;
	else if (fsync(fd) < 0)
		rc = -errno;
	if (fd >= 0 && close(fd) < 0 && rc == 0)
		rc = -errno;
	if (fd >= 0 && rc < 0)
		(void)unlink(path);
	explicit_bzero(b, sizeof(b));
	explicit_bzero(text, sizeof(text));
	return rc;
}
