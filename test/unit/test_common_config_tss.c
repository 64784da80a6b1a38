/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * [tss] (src/common/config_tss.c): domain lines, key files (owner, mode,
 * content), client/server mode's roles and client key files, the keys
 * that would do nothing refused by name, and
 * the dump round trip.
 */

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include <uet/uet_config.h>

#define KEY_HEX "000102030405060708090a0b0c0d0e0f" \
		"101112131415161718191a1b1c1d1e1f"

static char dir[64];
static char key_ok[128], key_open[128], key_short[128], key_client[128];

static void
file_put(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	assert_int_equal(fchmod(fd, mode), 0);
	close(fd);
}

static int
setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/uet_tss_cfg_XXXXXX");
	if (mkdtemp(dir) == NULL)
		return -1;
	snprintf(key_ok, sizeof(key_ok), "%s/ok.key", dir);
	snprintf(key_open, sizeof(key_open), "%s/open.key", dir);
	snprintf(key_short, sizeof(key_short), "%s/short.key", dir);
	file_put(key_ok, KEY_HEX "\n", 0600);
	file_put(key_open, KEY_HEX "\n", 0644);
	file_put(key_short, "0011\n", 0600);
	/* a client key file: SSI 5, epoch, up and down keys */
	snprintf(key_client, sizeof(key_client), "%s/client.key", dir);
	file_put(key_client, "00000005" "abcd" KEY_HEX "0102030405060708"
		 "090a0b0c" KEY_HEX "0102030405060708" "090a0b0c\n", 0600);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	unlink(key_ok);
	unlink(key_open);
	unlink(key_short);
	unlink(key_client);
	rmdir(dir);
	return 0;
}

/* Load @text (a [tss] section) and validate; the first error. */
static int
load_validate(const char *text, struct uet_config *cfg,
	      struct uet_config_error *err)
{
	static char with[70000];
	char path[128];
	int rc;

	snprintf(path, sizeof(path), "%s/uet.conf", dir);
	/* the test's directory (0700) holds the TSC reservations, unless
	 * the text names them */
	if (strncmp(text, "[tss]\n", 6) == 0 &&
	    strstr(text, "state_dir") == NULL) {
		snprintf(with, sizeof(with), "[tss]\nstate_dir = %s\n%s", dir,
			 text + 6);
		text = with;
	}
	file_put(path, text, 0600);
	rc = uet_config_load(cfg, path, err);
	unlink(path);
	if (rc == 0)
		rc = uet_config_validate(cfg, err);
	return rc;
}

static int
load_tss(const char *body, struct uet_config_error *err)
{
	static struct uet_config cfg;
	char text[1024];

	snprintf(text, sizeof(text), "[tss]\n%s", body);
	return load_validate(text, &cfg, err);
}

static void
key_read__accepts_hex_0600(void **state)
{
	uint8_t key[UET_CONFIG_TSS_KEY_LEN];
	char why[128];

	(void)state;
	assert_int_equal(uet_config_tss_key_read(key_ok, key, why,
						 sizeof(why)), 0);
	for (unsigned int i = 0; i < sizeof(key); i++)
		assert_int_equal(key[i], i);
}

static void
key_read__refuses_group_readable(void **state)
{
	uint8_t key[UET_CONFIG_TSS_KEY_LEN];
	char why[128];

	(void)state;
	assert_int_equal(uet_config_tss_key_read(key_open, key, why,
						 sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "mode 0644"));
	assert_int_equal(uet_config_tss_key_read(key_short, key, why,
						 sizeof(why)), -EINVAL);
	assert_null(strstr(why, "0011")); /* no key bytes in a message */
	assert_int_equal(uet_config_tss_key_read("/nonexistent/k", key, why,
						 sizeof(why)), -ENOENT);
}

static void
domain__parsed_and_looked_up(void **state)
{
	static struct uet_config cfg;
	struct uet_config_error err;
	char text[512];

	(void)state;
	snprintf(text, sizeof(text), "[tss]\nenabled = true\n"
		 "domain.7 = 1-100,200 %s\n", key_ok);
	assert_int_equal(load_validate(text, &cfg, &err), 0);
	assert_int_equal(cfg.tss.nb_domains, 1);
	assert_int_equal(cfg.tss.domain[0].sdi, 7);
	assert_int_equal(uet_config_tss_domain_of(&cfg.tss, 50), 0);
	assert_int_equal(uet_config_tss_domain_of(&cfg.tss, 200), 0);
	assert_int_equal(uet_config_tss_domain_of(&cfg.tss, 150), -1);
}

static void
domain__bad_lines_refused(void **state)
{
	struct uet_config_error err;
	char body[512];

	(void)state;
	assert_int_equal(load_tss("domain.0 = 1 /k\n", &err), -EINVAL);
	assert_non_null(strstr(err.msg, "SDI 1.."));
	assert_int_equal(load_tss("domain.x = 1 /k\n", &err), -EINVAL);
	assert_int_equal(load_tss("domain.3 = 1\n", &err), -EINVAL);
	assert_non_null(strstr(err.msg, "JOBS KEYFILE"));
	assert_int_equal(load_tss("domain.3 = 1 relative.key\n", &err),
			 -EINVAL);
	assert_int_equal(load_tss("domain.3 = 9-1 /k\n", &err), -EINVAL);
	snprintf(body, sizeof(body), "domain.3 = 1-10 %s\n"
		 "domain.4 = 10 %s\n", key_ok, key_ok);
	assert_int_equal(load_tss(body, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "already in domain 3"));
	snprintf(body, sizeof(body), "domain.3 = 1 %s\ndomain.3 = 2 %s\n",
		 key_ok, key_ok);
	assert_int_equal(load_tss(body, &err), -EINVAL);
}

static void
validate__unbuilt_and_unsafe_refused(void **state)
{
	struct uet_config_error err;
	char body[512];

	(void)state;
	/* rotation derives keys: not in direct mode */
	snprintf(body, sizeof(body), "enabled = true\nrekey_interval = 65536\n"
		 "domain.3 = 1 %s\n", key_ok);
	assert_int_equal(load_tss(body, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "needs mode = cluster or "
				   "client_server"));
	snprintf(body, sizeof(body), "enabled = true\nmode = cluster\n"
		 "rekey_interval = 512\ndomain.3 = 1 %s\n", key_ok);
	assert_int_equal(load_tss(body, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "below replay_window"));
	snprintf(body, sizeof(body), "enabled = true\nmode = cluster\n"
		 "rekey_interval = 281474976710656\ndomain.3 = 1 %s\n",
		 key_ok);
	assert_int_equal(load_tss(body, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "never rotate"));
	assert_int_equal(load_tss("enabled = true\n", &err), -EINVAL);
	assert_non_null(strstr(err.msg, "no domain"));
	assert_int_equal(load_tss("replay_window = 100\n", &err), -EINVAL);
	assert_int_equal(load_tss("replay_window = 8192\n", &err), -ERANGE);
	assert_int_equal(load_tss("mode = tunnel\n", &err), -EINVAL);
	/* the delay of a domain key's rotation: 1 ms .. 1 h */
	assert_int_equal(load_tss("epoch_switch = 100us\n", &err), -ERANGE);
	assert_int_equal(load_tss("epoch_switch = 3601s\n", &err), -ERANGE);
	assert_int_equal(load_tss("epoch_switch = soon\n", &err), -EINVAL);
	/* Start_PSN establishment: random_1rtt and expected_0rtt establish
	 * secure PDCs only; no other method */
	assert_int_equal(load_tss("pdc_start = expected_0rtt\n", &err),
			 -EINVAL);
	assert_non_null(strstr(err.msg, "need enabled = true"));
	assert_int_equal(load_tss("pdc_start = random_1rtt\n", &err), -EINVAL);
	assert_non_null(strstr(err.msg, "need enabled = true"));
	assert_int_equal(load_tss("pdc_start = random_0rtt\n", &err), -EINVAL);
	assert_int_equal(load_tss("keyfile = /k\n", &err), -EINVAL);
	snprintf(body, sizeof(body), "enabled = true\ndomain.3 = 1 %s\n",
		 key_open);
	assert_int_equal(load_tss(body, &err), -EPERM);
	assert_non_null(strstr(err.msg, "chmod 600"));
	assert_null(strstr(err.msg, "0001020304"));
}

/* Without a trusted state directory a restarted engine could reuse
 * TSCs (IVs) under a key: refused at validation, with the key to set. */
/* client_server: a role required, a client's SSI and key file checked,
 * role and ssi refused outside the mode */
static void
validate__client_server_roles(void **state)
{
	struct uet_config_error err;
	char body[512];

	(void)state;
	snprintf(body, sizeof(body), "enabled = true\nmode = client_server\n"
		 "domain.3 = 1 %s\n", key_ok);
	assert_int_equal(load_tss(body, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "role"));
	/* a server: the domain key */
	snprintf(body, sizeof(body), "enabled = true\nmode = client_server\n"
		 "role = server\ndomain.3 = 1 %s\n", key_ok);
	assert_int_equal(load_tss(body, &err), 0);
	snprintf(body, sizeof(body), "enabled = true\nmode = client_server\n"
		 "role = server\ndomain.3 = 1 %s\n", key_client);
	assert_int_equal(load_tss(body, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "domain.3"));
	snprintf(body, sizeof(body), "enabled = true\nmode = client_server\n"
		 "role = server\nssi = 5\ndomain.3 = 1 %s\n", key_ok);
	assert_int_equal(load_tss(body, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "ssi"));
	/* a client: its SSI, and a key file derived for it */
	snprintf(body, sizeof(body), "enabled = true\nmode = client_server\n"
		 "role = client\nssi = 5\ndomain.3 = 1 %s\n", key_client);
	assert_int_equal(load_tss(body, &err), 0);
	/* rotation: both sides, at least the replay window */
	snprintf(body, sizeof(body), "enabled = true\nmode = client_server\n"
		 "role = client\nssi = 5\nreplay_window = 256\n"
		 "rekey_interval = 256\ndomain.3 = 1 %s\n", key_client);
	assert_int_equal(load_tss(body, &err), 0);
	snprintf(body, sizeof(body), "enabled = true\nmode = client_server\n"
		 "role = server\nreplay_window = 256\n"
		 "rekey_interval = 256\ndomain.3 = 1 %s\n", key_ok);
	assert_int_equal(load_tss(body, &err), 0);
	snprintf(body, sizeof(body), "enabled = true\nmode = client_server\n"
		 "role = server\nrekey_interval = 512\ndomain.3 = 1 %s\n",
		 key_ok);
	assert_int_equal(load_tss(body, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "below replay_window"));
	snprintf(body, sizeof(body), "enabled = true\nmode = client_server\n"
		 "role = client\ndomain.3 = 1 %s\n", key_client);
	assert_int_equal(load_tss(body, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "ssi"));
	snprintf(body, sizeof(body), "enabled = true\nmode = client_server\n"
		 "role = client\nssi = 6\ndomain.3 = 1 %s\n", key_client);
	assert_int_equal(load_tss(body, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "SSI 5"));
	snprintf(body, sizeof(body), "enabled = true\nmode = client_server\n"
		 "role = client\nssi = 5\ndomain.3 = 1 %s\n", key_ok);
	assert_int_equal(load_tss(body, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "client key file"));
	snprintf(body, sizeof(body), "enabled = true\nmode = client_server\n"
		 "role = client\nssi = 5\ndomain.3 = 1 %s/absent.key\n",
		 dir);
	assert_int_equal(load_tss(body, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "domain.3"));
	/* a setting that would do nothing */
	snprintf(body, sizeof(body), "enabled = true\nrole = server\n"
		 "domain.3 = 1 %s\n", key_ok);
	assert_int_equal(load_tss(body, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "role"));
	snprintf(body, sizeof(body), "enabled = true\nmode = cluster\n"
		 "ssi = 5\ndomain.3 = 1 %s\n", key_ok);
	assert_int_equal(load_tss(body, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "ssi"));
	snprintf(body, sizeof(body), "enabled = true\nmode = client_server\n"
		 "role = boss\ndomain.3 = 1 %s\n", key_ok);
	assert_int_equal(load_tss(body, &err), -EINVAL);
}

static void
validate__state_dir_required(void **state)
{
	struct uet_config_error err;
	char body[512], sub[128];

	(void)state;
	snprintf(body, sizeof(body), "enabled = true\nstate_dir = \n"
		 "domain.3 = 1 %s\n", key_ok);
	assert_int_equal(load_tss(body, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "state_dir"));
	assert_non_null(strstr(err.msg, "not set"));
	snprintf(body, sizeof(body), "enabled = true\nstate_dir = tss\n"
		 "domain.3 = 1 %s\n", key_ok);
	assert_int_equal(load_tss(body, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "absolute"));
	snprintf(body, sizeof(body), "enabled = true\nstate_dir = %s/none\n"
		 "domain.3 = 1 %s\n", dir, key_ok);
	assert_int_equal(load_tss(body, &err), -ENOENT);
	snprintf(body, sizeof(body), "enabled = true\nstate_dir = %s\n"
		 "domain.3 = 1 %s\n", key_ok, key_ok);
	assert_int_equal(load_tss(body, &err), -ENOTDIR);
	snprintf(sub, sizeof(sub), "%s/open", dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	assert_int_equal(chmod(sub, 0755), 0);
	snprintf(body, sizeof(body), "enabled = true\nstate_dir = %s\n"
		 "domain.3 = 1 %s\n", sub, key_ok);
	assert_int_equal(load_tss(body, &err), -EPERM);
	assert_non_null(strstr(err.msg, "mode 0700"));
	assert_int_equal(chmod(sub, 0700), 0);
	assert_int_equal(load_tss(body, &err), 0);
	assert_int_equal(rmdir(sub), 0);
	/* not needed while [tss] is off */
	assert_int_equal(load_tss("state_dir = \n", &err), 0);
}

static void
validate__cluster_and_rotation_accepted(void **state)
{
	struct uet_config_error err;
	char body[512];

	(void)state;
	snprintf(body, sizeof(body), "enabled = true\nmode = cluster\n"
		 "domain.3 = 1 %s\n", key_ok);
	assert_int_equal(load_tss(body, &err), 0);
	snprintf(body, sizeof(body), "enabled = true\nmode = cluster\n"
		 "replay_window = 256\nrekey_interval = 256\n"
		 "domain.3 = 1 %s\n", key_ok);
	assert_int_equal(load_tss(body, &err), 0);
	snprintf(body, sizeof(body), "enabled = true\nepoch_switch = 5s\n"
		 "domain.3 = 1 %s\n", key_ok);
	assert_int_equal(load_tss(body, &err), 0);
	snprintf(body, sizeof(body), "enabled = true\npdc_start = random_1rtt\n"
		 "domain.3 = 1 %s\n", key_ok);
	assert_int_equal(load_tss(body, &err), 0);
}

static void
dump__domains_round_trip(void **state)
{
	static struct uet_config cfg, back;
	static char dump[65536];
	struct uet_config_error err;
	char text[512];
	int n;

	(void)state;
	snprintf(text, sizeof(text), "[tss]\nenabled = true\n"
		 "pmd = crypto_openssl\nreplay_window = 256\n"
		 "domain.7 = 1-100,200 %s\ndomain.9 = 300 %s\n", key_ok,
		 key_ok);
	assert_int_equal(load_validate(text, &cfg, &err), 0);
	n = uet_config_dump(&cfg, 0, dump, sizeof(dump));
	assert_true(n > 0 && n < (int)sizeof(dump));
	assert_non_null(strstr(dump, "domain.7 = 1-100,200 "));
	assert_null(strstr(dump, "0001020304"));
	memset(&back, 0, sizeof(back));
	assert_int_equal(load_validate(dump, &back, &err), 0);
	assert_memory_equal(&back.tss, &cfg.tss, sizeof(cfg.tss));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(key_read__accepts_hex_0600),
		cmocka_unit_test(key_read__refuses_group_readable),
		cmocka_unit_test(domain__parsed_and_looked_up),
		cmocka_unit_test(domain__bad_lines_refused),
		cmocka_unit_test(validate__unbuilt_and_unsafe_refused),
		cmocka_unit_test(validate__client_server_roles),
		cmocka_unit_test(validate__state_dir_required),
		cmocka_unit_test(validate__cluster_and_rotation_accepted),
		cmocka_unit_test(dump__domains_round_trip),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
