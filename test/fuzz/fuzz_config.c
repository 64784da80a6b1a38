/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target for the configuration (src/common, rte_cfgfile): any
 * bytes as an INI file, and the first line as a "section.key=value"
 * override. Nothing may crash or leak; a rejection must come with a
 * reason; what loads must dump to a file that loads again to the same
 * dump (so the dump of an accepted file never writes what the loader would
 * refuse). A mismatch aborts so the fuzzer keeps the input.
 */

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <uet/uet_config.h>

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);

static char path[64];
static struct uet_config config_a, config_b;
static char dump_a[1 << 17], dump_b[1 << 17];

static void
fail(const char *what, const char *detail)
{
	fprintf(stderr, "fuzz_config: %s%s%s\n", what, detail ? ": " : "",
		detail ? detail : "");
	abort();
}

static void
path_remove(void)
{
	(void)unlink(path);
}

static void
file_write(const void *d, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd < 0 || (n && write(fd, d, n) != (ssize_t)n))
		fail("cannot write the scratch file", path);
	close(fd);
}

/* An accepted configuration dumps to text that loads to the same dump. */
static void
round_trip(const struct uet_config *c)
{
	struct uet_config_error err;
	int la, lb;

	la = uet_config_dump(c, 0, dump_a, sizeof(dump_a));
	if (la < 0 || (size_t)la >= sizeof(dump_a))
		fail("dump failed or too long", NULL);
	file_write(dump_a, (size_t)la);
	if (uet_config_load(&config_b, path, &err) < 0)
		fail("the dump does not load again", err.msg);
	lb = uet_config_dump(&config_b, 0, dump_b, sizeof(dump_b));
	if (la != lb || memcmp(dump_a, dump_b, (size_t)la) != 0)
		fail("dump, load, dump differs", NULL);
}

static void
check_error(int rc, const struct uet_config_error *err)
{
	if (rc < 0 && (err->code != rc || err->msg[0] == '\0'))
		fail("rejected without a reason", NULL);
}

/* After a load or override that returned @p rc into config_a. */
static void
check_result(int rc, const struct uet_config_error *err)
{
	struct uet_config_error verr;

	check_error(rc, err);
	if (rc != 0)
		return;
	memset(&verr, 0, sizeof(verr));
	check_error(uet_config_validate(&config_a, &verr), &verr);
	round_trip(&config_a);
}

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	struct uet_config_error err;
	char line[512];
	size_t l = 0;

	if (path[0] == '\0') {
		snprintf(path, sizeof(path), "/tmp/fuzz_config.%ld.ini",
			 (long)getpid());
		atexit(path_remove);
	}
	/* the first line as an override of the defaults */
	while (l < n && l < sizeof(line) - 1 && d[l] != '\n') {
		line[l] = d[l] != '\0' ? (char)d[l] : ' ';
		l++;
	}
	line[l] = '\0';
	uet_config_init_defaults(&config_a);
	memset(&err, 0, sizeof(err));
	check_result(uet_config_override(&config_a, line, &err), &err);
	/* the whole input as a file */
	file_write(d, n);
	memset(&err, 0, sizeof(err));
	check_result(uet_config_load(&config_a, path, &err), &err);
	return 0;
}
