/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Key files (the [tss] domain keys, uet-dump --tss-key): hexadecimal
 * text, a regular file of the calling user or root that neither group
 * nor others may access. The key bytes go to the caller's buffer only.
 */

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <uet/uet_parse.h>

static int
why_set(char *why, size_t why_len, int rc, const char *msg)
{
	if (why != NULL)
		snprintf(why, why_len, "%s", msg);
	return rc;
}

/* Owner and mode of an open key file: a key others can read is no
 * secret (as ssh refuses such a private key). */
static int
key_file_check(int fd, char *why, size_t why_len)
{
	char msg[80];
	struct stat st;

	if (fstat(fd, &st) < 0)
		return why_set(why, why_len, -errno, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return why_set(why, why_len, -EINVAL, "not a regular file");
	if (st.st_uid != geteuid() && st.st_uid != 0)
		return why_set(why, why_len, -EPERM, "owned by another user "
			       "(expected this user or root)");
	snprintf(msg, sizeof(msg), "mode %04o: group or others may access "
		 "it (chmod 600)", (unsigned int)(st.st_mode & 0777));
	if ((st.st_mode & 077) != 0)
		return why_set(why, why_len, -EPERM, msg);
	return 0;
}

static int
hex_nibble(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)tolower((unsigned char)c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static int
key_parse(const char *t, size_t n, uint8_t *key, size_t len)
{
	if (n == 2 * len + 1 && t[n - 1] == '\n')
		n--;
	if (n != 2 * len)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		int hi = hex_nibble(t[2 * i]), lo = hex_nibble(t[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -EINVAL;
		key[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

int
uet_parse_key_file(const char *path, uint8_t *key, size_t len, char *why,
		   size_t why_len)
{
	char text[2 * UET_PARSE_KEY_MAX + 2];
	ssize_t n;
	int fd, rc;

	if (len == 0 || len > UET_PARSE_KEY_MAX)
		return why_set(why, why_len, -EINVAL, "bad key length");

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return why_set(why, why_len, -errno, strerror(errno));
	rc = key_file_check(fd, why, why_len);
	if (rc == 0) {
		n = read(fd, text, sizeof(text));
		if (n < 0)
			rc = why_set(why, why_len, -errno,
				     strerror(errno));
		else if (key_parse(text, (size_t)n, key, len) < 0)
			rc = why_set(why, why_len, -EINVAL, "expected "
				     "2 hexadecimal digits per key byte "
				     "(openssl rand -hex 32)");
	}
	explicit_bzero(text, sizeof(text));
	close(fd);
	return rc;
}

