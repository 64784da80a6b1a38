/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of client/server mode's keys (src/tss/tss_client.c).
 *
 * Known answers computed outside the project, with the openssl command
 * line's CMAC (`openssl mac -cipher AES-256-CBC CMAC`) over the
 * SP 800-108 counter-mode blocks [i] || label || 0x00 || context || L,
 * i = 1..3, cut to 44 bytes (the same values as `openssl kdf KBKDF`):
 *
 *   K=000102...1f
 *   E=$(openssl mac ... -in <([1] "EP" 00 [16]) CMAC | cut -c1-4)  # F314
 *   openssl mac ... -in <([i] "U2" 00 F314 00000000 00000007 [352]) CMAC
 *
 * and a rotated key, with the first 32 bytes B of that output (U2) or of
 * the U3 one as the key:
 *
 *   openssl kdf -keylen 44 -kdfopt mac:CMAC -kdfopt cipher:AES-256-CBC \
 *       -kdfopt hexkey:B -kdfopt salt:U2 \
 *       -kdfopt hexinfo:F3140000000300000007 KBKDF
 */

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include <uet/uet_tss.h>

static const uint8_t dkey[UET_TSS_KEY_LEN] = {
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
	0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
	0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17,
	0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f,
};

static void
unhex(const char *h, uint8_t *out, size_t n)
{
	unsigned int v;

	assert_int_equal(strlen(h), 2 * n);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(sscanf(h + 2 * i, "%2x", &v), 1);
		out[i] = (uint8_t)v;
	}
}

static void
cs_derive__known_answers(void **state)
{
	uint8_t out[UET_TSS_KDF_OUT_LEN], want[UET_TSS_KDF_OUT_LEN];

	(void)state;
	/* epoch 0x1234, SSI 5 */
	assert_int_equal(uet_tss_cs_derive(dkey, UET_TSS_LABEL_SERVER, 0x1234,
					   5, out), 0);
	unhex("4cba818421390e1826de7ceb105f132e3d30948123068fd79b79d2e2"
	      "c67ff4fdf7cefbd92d62f2489abc6b5d", want, sizeof(want));
	assert_memory_equal(out, want, sizeof(want));
	assert_int_equal(uet_tss_cs_derive(dkey, UET_TSS_LABEL_DOWN, 0x1234,
					   5, out), 0);
	unhex("229b6640250fd29bcbf505625488818ac75ca0d30bee8d9692f33872"
	      "41fea0a0c0c8c4cf2ae9ea09c917b59b", want, sizeof(want));
	assert_memory_equal(out, want, sizeof(want));
}

static void
client_key_derive__known_answers(void **state)
{
	uint8_t up[UET_TSS_KDF_OUT_LEN], down[UET_TSS_KDF_OUT_LEN];
	struct uet_tss_client_key ck;

	(void)state;
	assert_int_equal(uet_tss_client_key_derive(dkey, 7, &ck), 0);
	assert_int_equal(ck.ssi, 7);
	assert_int_equal(ck.epoch, 0xF314);
	unhex("66b36dd8785416064438e90b008b7b2b7fa8958b0d5502e1adb0b3a8"
	      "c2e0f4742ec30da5f402490fd482a986", up, sizeof(up));
	unhex("6bdc3b79c8b18c4d469c5896d7a4e479193f486eef5524a07ad071e5"
	      "80dc709c5f1f4c8b030b7d021c626f98", down, sizeof(down));
	assert_memory_equal(ck.up, up, sizeof(up));
	assert_memory_equal(ck.down, down, sizeof(down));
	assert_int_equal(uet_tss_client_key_derive(dkey, 0, &ck), -EINVAL);
}

/* Rotation (docs/TSS.md): counter r's key is KDF(base key, label,
 * epoch | r | SSI), base the output a client's key file holds. */
static void
cs_rekey__known_answers(void **state)
{
	uint8_t out[UET_TSS_KDF_OUT_LEN], want[UET_TSS_KDF_OUT_LEN];
	uint8_t r0[UET_TSS_KDF_OUT_LEN];
	struct uet_tss_client_key ck;

	(void)state;
	assert_int_equal(uet_tss_client_key_derive(dkey, 7, &ck), 0);
	assert_int_equal(uet_tss_cs_rekey(ck.up, UET_TSS_LABEL_SERVER,
					  ck.epoch, 3, 7, out), 0);
	unhex("d3f66b0247765bc51a5078fd355bbc840995d1f1c891c30aff57d6b3"
	      "579b7d1c144a68261cca6dd2c535f29a", want, sizeof(want));
	assert_memory_equal(out, want, sizeof(want));
	assert_int_equal(uet_tss_cs_rekey(ck.down, UET_TSS_LABEL_DOWN,
					  ck.epoch, 0, 7, r0), 0);
	unhex("4a373dc1dd8208f9ea4e51d0dcb42495374f3f51ad2d5800a766f1cc"
	      "c57341439512d54bafa61112ebcfd214", want, sizeof(want));
	assert_memory_equal(r0, want, sizeof(want));
	/* counter 0's key is not the base key: the base seals nothing */
	assert_memory_not_equal(r0, ck.down, UET_TSS_KEY_LEN);
	/* in place */
	memcpy(out, ck.up, sizeof(out));
	assert_int_equal(uet_tss_cs_rekey(out, UET_TSS_LABEL_SERVER, ck.epoch,
					  3, 7, out), 0);
	unhex("d3f66b0247765bc51a5078fd355bbc840995d1f1c891c30aff57d6b3"
	      "579b7d1c144a68261cca6dd2c535f29a", want, sizeof(want));
	assert_memory_equal(out, want, sizeof(want));
	explicit_bzero(&ck, sizeof(ck));
}

/* Two clients never share a key, and no client's up key is a down key
 * (the directions are apart: docs/WIRE-DECISIONS.md). */
static void
client_key_derive__clients_and_directions_apart(void **state)
{
	struct uet_tss_client_key a, b;

	(void)state;
	assert_int_equal(uet_tss_client_key_derive(dkey, 1, &a), 0);
	assert_int_equal(uet_tss_client_key_derive(dkey, 2, &b), 0);
	assert_memory_not_equal(a.up, b.up, UET_TSS_KEY_LEN);
	assert_memory_not_equal(a.down, b.down, UET_TSS_KEY_LEN);
	assert_memory_not_equal(a.up, a.down, UET_TSS_KEY_LEN);
	assert_memory_not_equal(a.up, b.down, UET_TSS_KEY_LEN);
	assert_int_equal(a.epoch, b.epoch);
}

static void
client_key_file__round_trip_and_refusals(void **state)
{
	char dir[64], path[128], why[160];
	struct uet_tss_client_key ck, rd;
	int fd;

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/uet_tss_ck_XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/c7.key", dir);
	assert_int_equal(uet_tss_client_key_derive(dkey, 7, &ck), 0);
	assert_int_equal(uet_tss_client_key_write(path, &ck), 0);
	assert_int_equal(uet_tss_client_key_read(path, &rd, why, sizeof(why)),
			 0);
	assert_memory_equal(&ck, &rd, sizeof(ck));
	/* never replaced */
	assert_int_equal(uet_tss_client_key_write(path, &ck), -EEXIST);
	/* others may read it: refused */
	assert_int_equal(chmod(path, 0644), 0);
	assert_int_equal(uet_tss_client_key_read(path, &rd, why, sizeof(why)),
			 -EPERM);
	unlink(path);
	/* a domain key is not a client's */
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "00", 2), 2);
	close(fd);
	assert_int_equal(uet_tss_client_key_read(path, &rd, why, sizeof(why)),
			 -EINVAL);
	unlink(path);
	rmdir(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cs_derive__known_answers),
		cmocka_unit_test(client_key_derive__known_answers),
		cmocka_unit_test(cs_rekey__known_answers),
		cmocka_unit_test(client_key_derive__clients_and_directions_apart),
		cmocka_unit_test(client_key_file__round_trip_and_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
