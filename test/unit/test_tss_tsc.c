/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the TSC reservation (src/tss/tss_tsc.c): a new key starts
 * at 1, a reopened one above every TSC it reserved (a crash between two
 * blocks included), a corrupt, foreign or loosely permitted file or
 * directory refuses, a second opener is kept out, and a key runs out at
 * its last TSC (a small injected limit) with a warning at 7/8 first.
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

#define BLOCK 16

static const uint8_t key1[UET_TSS_KEY_LEN] = { 1, 2, 3 };
static const uint8_t key2[UET_TSS_KEY_LEN] = { 4, 5, 6 };

struct fixture {
	char dir[64];
	char why[256];
};

static int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (f == NULL)
		return -1;
	snprintf(f->dir, sizeof(f->dir), "/tmp/uet-tss-tsc-XXXXXX");
	if (mkdtemp(f->dir) == NULL || chmod(f->dir, 0700) < 0) {
		free(f);
		return -1;
	}
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	if (system(cmd) != 0)
		return -1;
	free(f);
	return 0;
}

/* The path of the state file of @p s. */
static void
file_of(const struct fixture *f, const struct uet_tss_tsc_store *s,
	char *path, size_t len)
{
	snprintf(path, len, "%s/%s", f->dir, s->name);
}

static void
file_put(const char *path, const char *text, mode_t mode)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	assert_int_equal(fputs(text, fp) >= 0, 1);
	assert_int_equal(fclose(fp), 0);
	assert_int_equal(chmod(path, mode), 0);
}

/* @p pattern with its "FP" (if any) replaced by @p fp */
static void
subst(char *out, size_t len, const char *pattern, const char *fp)
{
	const char *at = strstr(pattern, "FP");

	if (at == NULL)
		snprintf(out, len, "%s", pattern);
	else
		snprintf(out, len, "%.*s%s%s", (int)(at - pattern), pattern,
			 fp, at + 2);
}

static int
open_key(struct fixture *f, struct uet_tss_tsc_store *s, const char *source,
	 const uint8_t *key, uint64_t max, uint64_t *first)
{
	f->why[0] = '\0';
	return uet_tss_tsc_open(s, f->dir, source, key, max, BLOCK, first,
				f->why, sizeof(f->why));
}

static void
uet_tss_tsc_open__new_key_starts_at_1(void **state)
{
	struct fixture *f = *state;
	struct uet_tss_tsc_store s, t;
	uint64_t first = 0, other = 0;
	char path[256], buf[128];
	struct stat st;
	FILE *fp;

	assert_int_equal(open_key(f, &s, "10.0.0.1", key1, UET_TSS_TSC_MAX, &first),
			 0);
	assert_int_equal(first, 1);
	assert_int_equal(s.limit, 1 + BLOCK);
	/* the name holds a fingerprint, the file no key byte */
	assert_non_null(strstr(s.name, "10.0.0.1."));
	file_of(f, &s, path, sizeof(path));
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	fp = fopen(path, "r");
	assert_non_null(fp);
	assert_non_null(fgets(buf, sizeof(buf), fp));
	fclose(fp);
	assert_non_null(strstr(buf, "uet-tss-tsc 1 "));
	assert_non_null(strstr(buf, " 17\n"));
	/* a second opener of the same source and key is refused */
	assert_int_equal(open_key(f, &t, "10.0.0.1", key1, UET_TSS_TSC_MAX, &other),
			 -EBUSY);
	assert_non_null(strstr(f->why, "in use"));
	/* another source or another key has its own file */
	assert_int_equal(open_key(f, &t, "10.0.0.2", key1, UET_TSS_TSC_MAX, &other),
			 0);
	assert_int_equal(other, 1);
	uet_tss_tsc_close(&t);
	assert_int_equal(open_key(f, &t, "10.0.0.1", key2, UET_TSS_TSC_MAX, &other),
			 0);
	assert_string_not_equal(t.fp, s.fp);
	uet_tss_tsc_close(&t);
	uet_tss_tsc_close(&s);
}

/* Sealed up to TSC 40 (three blocks), then killed: the next run starts
 * above every TSC reserved, so above every one used. */
static void
uet_tss_tsc_open__resumes_after_crash(void **state)
{
	struct fixture *f = *state;
	struct uet_tss_tsc_store s;
	uint64_t first = 0, used = 0;

	assert_int_equal(open_key(f, &s, "10.0.0.1", key1, UET_TSS_TSC_MAX, &first),
			 0);
	for (uint64_t tsc = first; tsc <= 40; tsc++) {
		/* reserved on disk before it is used */
		assert_int_equal(uet_tss_tsc_reserve(&s, tsc), 0);
		assert_true(tsc < s.limit);
		used = tsc;
	}
	assert_int_equal(s.limit, 1 + 3 * BLOCK);
	uet_tss_tsc_close(&s); /* the crash: nothing written at the end */
	assert_int_equal(open_key(f, &s, "10.0.0.1", key1, UET_TSS_TSC_MAX, &first),
			 0);
	assert_true(first > used);
	assert_int_equal(first, 1 + 3 * BLOCK);
	assert_int_equal(s.limit, first + BLOCK);
	/* a jump reserves whole blocks past it */
	assert_int_equal(uet_tss_tsc_reserve(&s, first + 5 * BLOCK + 3), 0);
	assert_int_equal(s.limit, first + 6 * BLOCK);
	uet_tss_tsc_close(&s);
	/* a restart that never sealed still moves on by a block */
	assert_int_equal(open_key(f, &s, "10.0.0.1", key1, UET_TSS_TSC_MAX, &first),
			 0);
	assert_int_equal(first, 1 + 3 * BLOCK + 6 * BLOCK);
	uet_tss_tsc_close(&s);
}

static void
uet_tss_tsc_open__corrupt_file_refused(void **state)
{
	static const char *const bad[] = {
		"", "garbage\n", "uet-tss-tsc 1 \n",
		"uet-tss-tsc 2 FP 17\n",     /* another version */
		"uet-tss-tsc 1 FP 0\n",      /* no TSC */
		"uet-tss-tsc 1 FP 17",       /* cut before the newline */
		"uet-tss-tsc 1 FP 17\nx",    /* something after */
		"uet-tss-tsc 1 FP -1\n",
		"uet-tss-tsc 1 FP 99999999999999999999999\n",
		"uet-tss-tsc 1 FP 281474976710658\n", /* beyond 2^48 + 1 */
		"uet-tss-tsc 1 00000000000000000000000000000000 17\n",
	};
	struct fixture *f = *state;
	struct uet_tss_tsc_store s;
	char path[256], text[192], fp[33];
	uint64_t first;

	assert_int_equal(open_key(f, &s, "10.0.0.1", key1, UET_TSS_TSC_MAX, &first),
			 0);
	file_of(f, &s, path, sizeof(path));
	snprintf(fp, sizeof(fp), "%s", s.fp);
	uet_tss_tsc_close(&s);
	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		subst(text, sizeof(text), bad[i], fp);
		file_put(path, text, 0600);
		assert_int_equal(open_key(f, &s, "10.0.0.1", key1, UET_TSS_TSC_MAX,
					  &first), -EBADMSG);
		assert_non_null(strstr(f->why, "rotate the key"));
	}
	/* a file written by another key (renamed): its fingerprint differs */
	assert_int_equal(open_key(f, &s, "10.0.0.1", key2, UET_TSS_TSC_MAX, &first),
			 0);
	snprintf(text, sizeof(text), "uet-tss-tsc 1 %s 17\n", s.fp);
	uet_tss_tsc_close(&s);
	file_put(path, text, 0600);
	assert_int_equal(open_key(f, &s, "10.0.0.1", key1, UET_TSS_TSC_MAX, &first),
			 -EBADMSG);
	/* the good file again: accepted */
	snprintf(text, sizeof(text), "uet-tss-tsc 1 %s 17\n", fp);
	file_put(path, text, 0600);
	assert_int_equal(open_key(f, &s, "10.0.0.1", key1, UET_TSS_TSC_MAX, &first),
			 0);
	assert_int_equal(first, 17);
	uet_tss_tsc_close(&s);
}

static void
uet_tss_tsc_open__owner_and_mode_checked(void **state)
{
	struct fixture *f = *state;
	struct uet_tss_tsc_store s;
	char path[256], link[272], missing[128];
	uint64_t first;

	assert_int_equal(open_key(f, &s, "10.0.0.1", key1, UET_TSS_TSC_MAX, &first),
			 0);
	file_of(f, &s, path, sizeof(path));
	uet_tss_tsc_close(&s);
	/* the file: group or other access, another owner, a symlink */
	assert_int_equal(chmod(path, 0640), 0);
	assert_int_equal(open_key(f, &s, "10.0.0.1", key1, UET_TSS_TSC_MAX, &first),
			 -EPERM);
	assert_non_null(strstr(f->why, "0600"));
	assert_int_equal(chmod(path, 0600), 0);
	if (geteuid() == 0) {
		assert_int_equal(chown(path, 65534, 65534), 0);
		assert_int_equal(open_key(f, &s, "10.0.0.1", key1, UET_TSS_TSC_MAX,
					  &first), -EPERM);
		assert_non_null(strstr(f->why, "owner uid 65534"));
		assert_int_equal(chown(path, 0, 0), 0);
	}
	snprintf(link, sizeof(link), "%s.real", path);
	assert_int_equal(rename(path, link), 0);
	assert_int_equal(symlink(link, path), 0);
	assert_int_equal(open_key(f, &s, "10.0.0.1", key1, UET_TSS_TSC_MAX, &first),
			 -ELOOP);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rename(link, path), 0);
	/* the directory: group access, absent */
	assert_int_equal(chmod(f->dir, 0750), 0);
	assert_int_equal(open_key(f, &s, "10.0.0.1", key1, UET_TSS_TSC_MAX, &first),
			 -EPERM);
	assert_non_null(strstr(f->why, "state_dir"));
	assert_int_equal(chmod(f->dir, 0700), 0);
	snprintf(missing, sizeof(missing), "%s/none", f->dir);
	assert_int_equal(uet_tss_tsc_open(&s, missing, "10.0.0.1", key1,
					  UET_TSS_TSC_MAX, BLOCK, &first,
					  f->why, sizeof(f->why)), -ENOENT);
	/* and all is well again */
	assert_int_equal(open_key(f, &s, "10.0.0.1", key1, UET_TSS_TSC_MAX, &first),
			 0);
	assert_int_equal(first, 1 + BLOCK);
	uet_tss_tsc_close(&s);
}

/* A key of 100 TSCs: the reservation warns once past 7/8 (TSC 88), stops
 * at the last TSC, and a reopened store refuses the key. */
static void
uet_tss_tsc_reserve__exhausted_at_max(void **state)
{
	struct fixture *f = *state;
	struct uet_tss_tsc_store s;
	unsigned int warned = 0;
	uint64_t first, tsc;
	int rc = 0;

	assert_int_equal(open_key(f, &s, "10.0.0.1", key1, 100, &first), 0);
	for (tsc = first; tsc <= 100; tsc++) {
		rc = uet_tss_tsc_reserve(&s, tsc);
		assert_true(rc == 0 || rc == 1);
		if (rc == 1) {
			warned++;
			assert_true(s.limit - 1 >= 100 - 100 / 8);
		}
	}
	assert_int_equal(warned, 1);
	assert_int_equal(s.limit, 101);
	assert_int_equal(uet_tss_tsc_reserve(&s, 101), -ENOSPC);
	assert_int_equal(uet_tss_tsc_reserve(&s, UINT64_MAX), -ENOSPC);
	uet_tss_tsc_close(&s);
	assert_int_equal(open_key(f, &s, "10.0.0.1", key1, 100, &first), -ENOSPC);
	assert_non_null(strstr(f->why, "rotate"));
	/* another key has all its TSCs */
	assert_int_equal(open_key(f, &s, "10.0.0.1", key2, 100, &first), 0);
	assert_int_equal(first, 1);
	uet_tss_tsc_close(&s);
}

static void
uet_tss_tsc_open__bad_arguments(void **state)
{
	struct fixture *f = *state;
	struct uet_tss_tsc_store s;
	uint64_t first;

	assert_int_equal(open_key(f, &s, "", key1, 100, &first), -EINVAL);
	assert_int_equal(open_key(f, &s, "a/b", key1, 100, &first), -EINVAL);
	assert_int_equal(uet_tss_tsc_open(&s, f->dir, "10.0.0.1", key1, 100, 0,
					  &first, NULL, 0), -EINVAL);
	assert_int_equal(uet_tss_tsc_open(&s, f->dir, "10.0.0.1", key1, 10, 11,
					  &first, NULL, 0), -EINVAL);
	/* a closed store reserves nothing */
	assert_int_equal(open_key(f, &s, "10.0.0.1", key1, 100, &first), 0);
	uet_tss_tsc_close(&s);
	assert_int_equal(uet_tss_tsc_reserve(&s, 50), -EBADF);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			uet_tss_tsc_open__new_key_starts_at_1, setup, teardown),
		cmocka_unit_test_setup_teardown(
			uet_tss_tsc_open__resumes_after_crash, setup, teardown),
		cmocka_unit_test_setup_teardown(
			uet_tss_tsc_open__corrupt_file_refused, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			uet_tss_tsc_open__owner_and_mode_checked, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			uet_tss_tsc_reserve__exhausted_at_max, setup, teardown),
		cmocka_unit_test_setup_teardown(
			uet_tss_tsc_open__bad_arguments, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
