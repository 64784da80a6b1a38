/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for src/common/config*.c: the default file, every load error
 * path (with file, line, section, key and range in the message), overrides,
 * cross-field validation and the dump round trip. Bad files are written to
 * mkstemp temporaries.
 */

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_config.h>

#include <uet/uet_config.h>

#define DUMP_LEN 32768

static char dump_a[DUMP_LEN];
static char dump_b[DUMP_LEN];

/* Write @text to a new temporary file; the path goes to @path. */
static void
write_tmp(char path[64], const char *text)
{
	FILE *f;
	int fd;

	strcpy(path, "/tmp/uet-cfg-test-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

/* Load @text from a temporary file; returns the load result. */
static int
load_text(const char *text, struct uet_config *cfg,
	  struct uet_config_error *err, char path[64])
{
	int rc;

	write_tmp(path, text);
	rc = uet_config_load(cfg, path, err);
	unlink(path);
	return rc;
}

/* Expect @text to fail with @code at @line in [@section] @key. */
static void
expect_error(const char *text, int code, unsigned int line,
	     const char *section, const char *key, const char *reason_part)
{
	struct uet_config cfg, before;
	struct uet_config_error err;
	char path[64], where[96];
	int rc;

	uet_config_init_defaults(&cfg);
	cfg.engine.burst = 7; /* must survive a failed load */
	before = cfg;
	rc = load_text(text, &cfg, &err, path);
	if (rc != code)
		print_error("text:\n%s\nrc %d msg '%s'\n", text, rc, err.msg);
	assert_int_equal(rc, code);
	assert_int_equal(err.code, code);
	assert_memory_equal(&cfg, &before, sizeof(cfg));
	assert_string_equal(err.file, path);
	assert_int_equal(err.line, line);
	assert_string_equal(err.section, section);
	assert_string_equal(err.key, key);
	if (strstr(err.reason, reason_part) == NULL)
		print_error("reason '%s' lacks '%s'\n", err.reason,
			    reason_part);
	assert_non_null(strstr(err.reason, reason_part));
	snprintf(where, sizeof(where), "%s:%u: ", path, line);
	assert_true(strncmp(err.msg, where, strlen(where)) == 0);
}

static const char *
default_file(char *buf, size_t len)
{
	const char *dir = getenv("UET_TEST_DATA");

	snprintf(buf, len, "%s/../../config/uet.conf", dir ? dir : "test/unit");
	return buf;
}

static void
defaults__validate(void **state)
{
	struct uet_config cfg;
	struct uet_config_error err;

	(void)state;
	uet_config_init_defaults(&cfg);
	assert_int_equal(uet_config_validate(&cfg, &err), 0);
	assert_int_equal(uet_config_nb_ports(&cfg), 1);
	assert_int_equal(cfg.timers.rto_init_ns, 1000000);
	assert_int_equal(cfg.timers.rto_max_retries, 24);
	assert_int_equal(cfg.timers.rto_max_ns, 100000000);
	assert_int_equal(cfg.timers.ack_coalesce_bytes, 16384);
	assert_int_equal(cfg.timers.ack_min_add, 1024);
	assert_int_equal(cfg.timers.close_req_idle_ns, 1000000000);
	assert_true(cfg.timers.syn_quiet);
	assert_int_equal(cfg.dscp.data, 0);
	assert_int_equal(cfg.dscp.control, 46);
	assert_int_equal(cfg.dscp.trimmed, 16);
	assert_int_equal(cfg.dscp.trimmed_lasthop, 18);
	assert_int_equal(cfg.dscp.trimmable_retx, 8);
	assert_int_equal(cfg.port[0].udp_port, 4793);
	assert_int_equal(cfg.port[0].ip_proto, 253);
	assert_int_equal(cfg.spray.reps_cache_size, 8);
}

static void
default_file__equals_defaults(void **state)
{
	struct uet_config def, cfg;
	struct uet_config_error err;
	char path[512];
	int rc;

	(void)state;
	uet_config_init_defaults(&def);
	memset(&cfg, 0xa5, sizeof(cfg));
	rc = uet_config_load(&cfg, default_file(path, sizeof(path)), &err);
	if (rc < 0)
		print_error("%s\n", err.msg);
	assert_int_equal(rc, 0);
	assert_memory_equal(&cfg, &def, sizeof(cfg));
	assert_int_equal(uet_config_dump(&cfg, 0, dump_a, DUMP_LEN) > 0, 1);
	assert_int_equal(uet_config_dump(&def, 0, dump_b, DUMP_LEN) > 0, 1);
	assert_string_equal(dump_a, dump_b);
}

static void
dump__round_trip(void **state)
{
	static const char *const overrides[] = {
		"eal.args=-l 0-3 --file-prefix=a --vdev=net_memif0,role=server",
		"port1.devargs=net_ring1", "port1.ipv6=fd00::5",
		"port1.mac=02:00:00:00:00:09", "port1.native_ip=yes",
		"port1.udp_checksum=no", "port0.udp_checksum=off",
		"port1.tx_zero_copy=false",
		"port0.mtu=4000", "engine.mbuf_size=9472",
		"engine.lcores=1-3,7", "port0.rx_queues=4",
		"spray.num_evs=512", "spray.ev_base=40000",
		"timers.rto_init=1500us",
		"neighbor.10.0.0.2=02:00:00:00:00:02",
		"neighbor.fd00::2=02:00:00:00:00:03",
		"fault.tx_data_trim_ppm=1000", "fault.seed=0xffffffffffffffff",
		"fabric.hosts=8", "fabric.ecn_min=0.25",
		"fabric.fail=leaf0-spine1 at 50us",
		"fabric.restore=spine1-leaf0@200us",
		"fabric.rate=leaf1-spine0 25000 at 1ms",
	};
	struct uet_config cfg, back;
	struct uet_config_error err;
	char path[64];
	size_t i;
	int n, rc;

	(void)state;
	uet_config_init_defaults(&cfg);
	for (i = 0; i < sizeof(overrides) / sizeof(overrides[0]); i++) {
		rc = uet_config_override(&cfg, overrides[i], &err);
		if (rc < 0)
			print_error("%s: %s\n", overrides[i], err.msg);
		assert_int_equal(rc, 0);
	}
	assert_int_equal(uet_config_validate(&cfg, &err), 0);
	n = uet_config_dump(&cfg, UET_CONFIG_DUMP_COMMENTS, dump_a, DUMP_LEN);
	assert_true(n > 0 && n < DUMP_LEN);
	memset(&back, 0, sizeof(back));
	rc = load_text(dump_a, &back, &err, path);
	if (rc < 0)
		print_error("%s\n", err.msg);
	assert_int_equal(rc, 0);
	assert_memory_equal(&back, &cfg, sizeof(cfg));
	assert_non_null(strstr(dump_a, "lcores = 1-3,7\n"));
	assert_non_null(strstr(dump_a, "rto_init = 1500us\n"));
	assert_non_null(strstr(dump_a, "num_evs = 512\n"));
	assert_non_null(strstr(dump_a, "fd00::2 = 02:00:00:00:00:03\n"));
	assert_non_null(strstr(dump_a, "[port1]\n"));
	assert_non_null(strstr(dump_a, "fail = leaf0-spine1 at 50000ns\n"));
	assert_non_null(strstr(dump_a, "restore = spine1-leaf0 at 200000ns\n"));
	assert_non_null(strstr(dump_a, "rate = leaf1-spine0 25000 at "
				       "1000000ns\n"));
}

/* [fabric]: schedule lines repeat, links must exist, keys of the other
 * topology are refused, thresholds ordered. */
static void
fabric__schedule_and_shape(void **state)
{
	static const char good[] =
		"[fabric]\nhosts = 8\nhosts_per_leaf = 2\nspines = 2\n"
		"fail = leaf0-spine1 at 50us\nfail = leaf1-spine0 at 60us\n"
		"restore = leaf0-spine1 at 200us\n"
		"rate = host3-leaf1 10000 at 1us\n";
	static const struct {
		const char *text;
		const char *key; /* named in the error */
		const char *why; /* part of the reason */
	} bad[] = {
		{ "[fabric]\nfail = leaf0-spine9 at 5us\n", "fail",
		  "spine9 does not exist" },
		{ "[fabric]\nfail = host0-leaf1 at 5us\n", "fail",
		  "no cable" },
		{ "[fabric]\nfail = leaf0-leaf1 at 5us\n", "fail",
		  "no cable" },
		{ "[fabric]\ntopology = fat_tree\nk = 4\n"
		  "fail = spine0-core2 at 5us\n", "fail", "no cable" },
		{ "[fabric]\ntopology = fat_tree\nk = 6\n", "hosts",
		  "54 hosts" },
		{ "[fabric]\ntopology = fat_tree\nspines = 2\n", "spines",
		  "leaf_spine only" },
		{ "[fabric]\nk = 8\n", "k", "fat_tree only" },
		{ "[fabric]\necn_min = 0.9\n", "ecn_min", "below ecn_max" },
		{ "[fabric]\ntrim_retx = 0.5\n", "trim_retx", "below trim" },
		{ "[fabric]\nhost_queue = 2K\n", "host_queue", "one frame" },
	};
	static const char *const syntax[] = {
		"fabric.fail=leaf0-spine1", "fabric.fail=leaf0 at 5us",
		"fabric.fail=leaf00-spine1 at 5us",
		"fabric.fail=leaf0-spine1 at 5 parsecs",
		"fabric.rate=leaf0-spine1 at 5us",
		"fabric.rate=leaf0-spine1 0 at 5us",
		"fabric.restore=leaf0-spine1 at 5us extra",
		"fabric.queue=1.5", "fabric.topology=torus",
	};
	struct uet_config cfg;
	struct uet_config_error err;
	char path[64];
	int rc;

	(void)state;
	rc = load_text(good, &cfg, &err, path);
	if (rc < 0)
		print_error("%s\n", err.msg);
	assert_int_equal(rc, 0);
	assert_int_equal(uet_config_validate(&cfg, &err), 0);
	assert_int_equal(cfg.fabric.nb_events, 4);
	assert_int_equal(cfg.fabric.event[1].action, UET_CONFIG_FABRIC_FAIL);
	assert_int_equal(cfg.fabric.event[1].tier[0], UET_CONFIG_FABRIC_LEAF);
	assert_int_equal(cfg.fabric.event[1].index[0], 1);
	assert_int_equal(cfg.fabric.event[1].at_ns, 60000);
	assert_int_equal(cfg.fabric.event[2].action,
			 UET_CONFIG_FABRIC_RESTORE);
	assert_int_equal(cfg.fabric.event[3].rate_mbps, 10000);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		rc = load_text(bad[i].text, &cfg, &err, path);
		if (rc == 0)
			rc = uet_config_validate(&cfg, &err);
		if (rc == 0 || strcmp(err.key, bad[i].key) != 0 ||
		    strstr(err.reason, bad[i].why) == NULL)
			print_error("case %zu: rc %d: %s\n", i, rc, err.msg);
		assert_int_equal(rc, -EINVAL);
		assert_string_equal(err.key, bad[i].key);
		assert_non_null(strstr(err.reason, bad[i].why));
	}
	for (size_t i = 0; i < sizeof(syntax) / sizeof(syntax[0]); i++) {
		struct uet_config before;

		uet_config_init_defaults(&cfg);
		before = cfg;
		rc = uet_config_override(&cfg, syntax[i], &err);
		if (rc == 0)
			print_error("accepted: %s\n", syntax[i]);
		assert_true(rc == -EINVAL || rc == -ERANGE);
		assert_memory_equal(&cfg, &before, sizeof(cfg));
	}
	/* at most 16 lines */
	uet_config_init_defaults(&cfg);
	for (int i = 0; i < UET_CONFIG_FABRIC_EVENTS_MAX; i++)
		assert_int_equal(uet_config_override(&cfg, "fabric.fail="
						     "leaf0-spine0 at 1us",
						     &err), 0);
	assert_int_equal(uet_config_override(&cfg, "fabric.fail=leaf0-spine0 "
					     "at 1us", &err), -ERANGE);
	assert_non_null(strstr(err.reason, "at most 16"));
}

/* A port defined without devargs loads (validation refuses it later):
 * its dump loads again to the same, the empty devargs a comment since
 * "devargs =" is refused (found by fuzz_config). */
static void
dump__port_without_devargs_round_trips(void **state)
{
	struct uet_config cfg, back;
	struct uet_config_error err;
	char path[64];
	int n;

	(void)state;
	uet_config_init_defaults(&cfg);
	assert_int_equal(load_text("[port0]\nmtu = 9000\n", &cfg, &err, path),
			 0);
	assert_string_equal(cfg.port[0].devargs, "");
	n = uet_config_dump(&cfg, 0, dump_a, DUMP_LEN);
	assert_true(n > 0 && n < DUMP_LEN);
	assert_non_null(strstr(dump_a, "# devargs = (empty: not set)\n"));
	assert_null(strstr(dump_a, "\ndevargs ="));
	memset(&back, 0, sizeof(back));
	assert_int_equal(load_text(dump_a, &back, &err, path), 0);
	assert_memory_equal(&back, &cfg, sizeof(cfg));
}

static void
dump__truncates_like_snprintf(void **state)
{
	struct uet_config cfg;
	char small[32];
	int full, n;

	(void)state;
	uet_config_init_defaults(&cfg);
	full = uet_config_dump(&cfg, 0, NULL, 0);
	assert_true(full > 100);
	n = uet_config_dump(&cfg, 0, small, sizeof(small));
	assert_int_equal(n, full);
	assert_int_equal(strlen(small), sizeof(small) - 1);
	assert_int_equal(uet_config_dump(NULL, 0, small, sizeof(small)),
			 -EINVAL);
	assert_int_equal(uet_config_dump(&cfg, 0x80, small, sizeof(small)),
			 -EINVAL);
}

static void
load__missing_file(void **state)
{
	struct uet_config cfg;
	struct uet_config_error err;

	(void)state;
	assert_int_equal(uet_config_load(&cfg, "/nonexistent/uet.conf", &err),
			 -ENOENT);
	assert_string_equal(err.file, "/nonexistent/uet.conf");
	assert_non_null(strstr(err.msg, "/nonexistent/uet.conf: cannot open"));
	assert_int_equal(uet_config_load(&cfg, NULL, &err), -EINVAL);
	assert_int_equal(uet_config_load(NULL, "/x", NULL), -EINVAL);
	assert_int_equal(uet_config_load(&cfg, "/", &err) < 0, 1);
}

static void
load__syntax_errors(void **state)
{
	char longline[400];

	(void)state;
	expect_error("[engine]\nburst 32\n", -EINVAL, 2, "engine", "",
		     "expected '[section]' or 'key = value'");
	expect_error("# c\n[engine\nburst = 3\n", -EINVAL, 2, "", "",
		     "missing ']'");
	expect_error("[engine] x\n", -EINVAL, 1, "", "", "text after ']'");
	expect_error("[ ]\n", -EINVAL, 1, "", "", "empty section name");
	expect_error("burst = 3\n[engine]\n", -EINVAL, 1, "", "",
		     "before the first section");
	expect_error("[engine]\n = 3\n", -EINVAL, 2, "engine", "",
		     "missing key");
	expect_error("[eal]\nargs = a\\#b\n", -EINVAL, 2, "eal", "",
		     "escaped comment");
	memset(longline, 'a', sizeof(longline) - 1);
	longline[sizeof(longline) - 1] = '\0';
	memcpy(longline, "args=", 5);
	{
		char text[512];

		snprintf(text, sizeof(text), "[eal]\n%s\n", longline);
		expect_error(text, -EINVAL, 2, "", "", "line longer");
		/* A value longer than rte_cfgfile keeps (255) is an error. */
		longline[5 + 260] = '\0';
		snprintf(text, sizeof(text), "[eal]\nargs = %s\n",
			 longline + 5);
		expect_error(text, -EINVAL, 2, "eal", "", "value too long");
		memset(longline, 'k', 70);
		longline[70] = '\0';
		snprintf(text, sizeof(text), "[eal]\n%s = 1\n", longline);
		expect_error(text, -EINVAL, 2, "eal", "", "key too long");
	}
}

static void
load__section_and_key_errors(void **state)
{
	(void)state;
	expect_error("[engine]\nburst = 8\n\n[engnie]\nburst = 8\n", -EINVAL,
		     4, "engnie", "", "unknown section");
	expect_error("[engine]\nbrust = 8\n", -EINVAL, 2, "engine", "brust",
		     "unknown key");
	expect_error("[engine]\nburst = 8\n[timers]\n[engine]\nburst = 9\n",
		     -EINVAL, 4, "engine", "", "duplicate section");
	expect_error("[port1]\ndevargs = a\n[port1]\n", -EINVAL, 3, "port1",
		     "", "duplicate section");
	expect_error("[engine]\nburst = 8\n# x\nburst = 9\n", -EINVAL, 4,
		     "engine", "burst", "duplicate key (first set on line 2)");
	expect_error("[port8]\n", -EINVAL, 1, "port8", "",
		     "port index out of range [0, 7]");
	expect_error("[port01]\n", -EINVAL, 1, "port01", "",
		     "unknown section");
	expect_error("[port]\n", -EINVAL, 1, "port", "", "unknown section");
	expect_error("[ENGINE]\n", -EINVAL, 1, "ENGINE", "",
		     "unknown section");
}

static void
load__value_errors(void **state)
{
	(void)state;
	expect_error("[port0]\ndevargs = net_ring0\nmtu = 70000\n", -ERANGE, 3,
		     "port0", "mtu", "value 70000 out of range [68, 9216]");
	expect_error("[port0]\nmtu = 67\n", -ERANGE, 2, "port0", "mtu",
		     "out of range [68, 9216]");
	expect_error("[port0]\nmtu = abc\n", -EINVAL, 2, "port0", "mtu",
		     "not a number (expected an unsigned integer in [68, 9216]");
	expect_error("[port0]\nmtu = -1500\n", -EINVAL, 2, "port0", "mtu",
		     "sign not allowed");
	expect_error("[port0]\nmtu =\n", -EINVAL, 2, "port0", "mtu",
		     "empty value");
	expect_error("[port0]\nnative_ip = maybe\n", -EINVAL, 2, "port0",
		     "native_ip", "true/false");
	expect_error("[port0]\nipv4 = 10.0.0\n", -EINVAL, 2, "port0", "ipv4",
		     "or 'none'");
	expect_error("[port0]\nmac = 01:00:5e:00:00:01\n", -EINVAL, 2, "port0",
		     "mac", "not a unicast");
	expect_error("[port0]\nmac = 00:00:00:00:00:00\n", -EINVAL, 2,
		     "port0", "mac", "not a unicast");
	expect_error("[cc]\nalgorithm = cubic\n", -EINVAL, 2, "cc",
		     "algorithm", "one of: fixed, nscc, rccc, nscc+rccc");
	expect_error("[cc]\ngamma = 1.5\n", -ERANGE, 2, "cc", "gamma",
		     "out of range [0.001, 1]");
	expect_error("[cc]\nmax_wnd = 0\n", -ERANGE, 2, "cc", "max_wnd",
		     "or 'auto'");
	expect_error("[timers]\nrto_init = 1000\n", -EINVAL, 2, "timers",
		     "rto_init", "missing unit");
	expect_error("[timers]\nrto_init = 2min\n", -EINVAL, 2, "timers",
		     "rto_init", "unknown or missing unit");
	expect_error("[timers]\nack_coalesce_bytes = 32M\n", -ERANGE, 2,
		     "timers", "ack_coalesce_bytes", "out of range");
	expect_error("[engine]\nburst = 65\n", -ERANGE, 2, "engine", "burst",
		     "[1, 64]");
	expect_error("[engine]\nlcores = 1,1\n", -EINVAL, 2, "engine",
		     "lcores", "twice");
	expect_error("[engine]\nlcores = 128\n", -ERANGE, 2, "engine",
		     "lcores", "[0, 127]");
	expect_error("[engine]\nprogress = polling\n", -EINVAL, 2, "engine",
		     "progress", "auto, inline");
	expect_error("[engine]\nidle_sleep_max = 0\n", -ERANGE, 2, "engine",
		     "idle_sleep_max", "out of range");
	expect_error("[engine]\nidle_sleep_max = 2s\n", -ERANGE, 2, "engine",
		     "idle_sleep_max", "out of range");
	expect_error("[engine]\nrx_intr = sometimes\n", -EINVAL, 2, "engine",
		     "rx_intr", "true/false");
	expect_error("[timers]\nsyn_quiet = later\n", -EINVAL, 2, "timers",
		     "syn_quiet", "true/false");
	expect_error("[dscp]\ncontrol = 64\n", -ERANGE, 2, "dscp", "control",
		     "[0, 63]");
	expect_error("[fault]\nrx_data_drop_ppm = 1000001\n", -ERANGE, 2,
		     "fault", "rx_data_drop_ppm", "[0, 1000000]");
	expect_error("[spray]\nmode = random\n", -EINVAL, 2, "spray", "mode",
		     "single, oblivious, reps");
	expect_error("[neighbor]\n10.0.0.2 = 02:00:00:00:00:02\n"
		     "10.0.0.3 = zz\n", -EINVAL, 3, "neighbor", "10.0.0.3",
		     "MAC address");
	expect_error("[neighbor]\nfd00::2 = 02:00:00:00:00:02\n"
		     "fd00:0::2 = 02:00:00:00:00:03\n", -EINVAL, 3, "neighbor",
		     "fd00:0::2", "duplicate entry");
	expect_error("[neighbor]\nrouter = 02:00:00:00:00:02\n", -EINVAL, 2,
		     "neighbor", "router", "IPv4");
}

/* "key =" sets nothing: refused with the key named, whatever its type;
 * engine.capture alone takes an empty value (no capture, its default). */
static void
load__empty_values_named(void **state)
{
	struct uet_config cfg;
	struct uet_config_error err;
	char path[64];

	(void)state;
	expect_error("[eal]\nargs =\n", -EINVAL, 2, "eal", "args",
		     "empty value");
	expect_error("[port0]\ndevargs =   \n", -EINVAL, 2, "port0", "devargs",
		     "empty value");
	expect_error("[service]\nsocket =\n", -EINVAL, 2, "service", "socket",
		     "empty value");
	expect_error("[service]\njobs =\n", -EINVAL, 2, "service", "jobs",
		     "empty value");
	expect_error("[engine]\nlcores =\n", -EINVAL, 2, "engine", "lcores",
		     "empty value");
	expect_error("[timers]\nrto_init =\n", -EINVAL, 2, "timers",
		     "rto_init", "empty value");
	expect_error("[neighbor]\n10.0.0.2 =\n", -EINVAL, 2, "neighbor",
		     "10.0.0.2", "empty value");
	expect_error("[fabric]\nfail =\n", -EINVAL, 2, "fabric", "fail",
		     "empty value");
	uet_config_init_defaults(&cfg);
	assert_int_equal(load_text("[timers]\nsyn_quiet = false\n", &cfg, &err,
				   path), 0);
	assert_false(cfg.timers.syn_quiet);
	uet_config_init_defaults(&cfg);
	snprintf(cfg.engine.capture, sizeof(cfg.engine.capture), "x.pcapng");
	assert_int_equal(load_text("[engine]\ncapture =\n", &cfg, &err, path),
			 0);
	assert_string_equal(cfg.engine.capture, "");
	/* the default file's empty socket_group: the service's group */
	snprintf(cfg.service.socket_group, sizeof(cfg.service.socket_group),
		 "x");
	assert_int_equal(load_text("[service]\nsocket_group =\n", &cfg, &err,
				   path), 0);
	assert_string_equal(cfg.service.socket_group, "");
	assert_int_equal(uet_config_override(&cfg, "eal.args=", &err), -EINVAL);
	assert_string_equal(err.section, "eal");
	assert_string_equal(err.key, "args");
	assert_non_null(strstr(err.msg, "empty value"));
	assert_int_equal(uet_config_override(&cfg, "port1.devargs=", &err),
			 -EINVAL);
	assert_false(cfg.port[1].defined);
	assert_int_equal(uet_config_override(&cfg, "engine.capture=", &err), 0);
}

static void
load__neighbor_limit(void **state)
{
	char text[8192];
	size_t used;
	int i;

	(void)state;
	used = (size_t)snprintf(text, sizeof(text), "[neighbor]\n");
	for (i = 0; i < UET_CONFIG_MAX_NEIGHBORS + 1; i++)
		used += (size_t)snprintf(text + used, sizeof(text) - used,
					 "10.0.1.%d = 02:00:00:00:01:%02x\n",
					 i, i);
	expect_error(text, -ERANGE, UET_CONFIG_MAX_NEIGHBORS + 2, "neighbor",
		     "10.0.1.64", "too many neighbor entries");
}

static void
load__binary_garbage_does_not_crash(void **state)
{
	struct uet_config cfg;
	struct uet_config_error err;
	unsigned int seed = 12345, i, round;
	char path[64];
	FILE *f;
	int fd;

	(void)state;
	for (round = 0; round < 64; round++) {
		strcpy(path, "/tmp/uet-cfg-test-XXXXXX");
		fd = mkstemp(path);
		assert_true(fd >= 0);
		f = fdopen(fd, "w");
		assert_non_null(f);
		fputs(round & 1 ? "[engine]\n" : "", f);
		for (i = 0; i < 64 + round * 16; i++) {
			seed = seed * 1103515245u + 12345u;
			/* Mostly structure characters, some NUL and high bytes. */
			fputc("[]=#\n ab0\x00\xff.:"[(seed >> 16) % 13], f);
		}
		assert_int_equal(fclose(f), 0);
		(void)uet_config_load(&cfg, path, &err);
		unlink(path);
	}
}

/* A NUL byte is named as such (it was "line longer than 321 characters"). */
static void
load__nul_byte_reported(void **state)
{
	static const char text[] = "[engine]\nburst = 1\0 6\n";
	struct uet_config cfg;
	struct uet_config_error err;
	char path[] = "/tmp/uet-cfg-test-XXXXXX";
	int fd, rc;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, sizeof(text) - 1),
			 (ssize_t)sizeof(text) - 1);
	assert_int_equal(close(fd), 0);
	uet_config_init_defaults(&cfg);
	rc = uet_config_load(&cfg, path, &err);
	unlink(path);
	assert_int_equal(rc, -EINVAL);
	assert_int_equal(err.line, 2);
	if (strstr(err.reason, "NUL byte at column 10") == NULL)
		print_error("reason '%s'\n", err.reason);
	assert_non_null(strstr(err.reason, "NUL byte at column 10"));
}

static void
load__ports_replace_defaults(void **state)
{
	struct uet_config cfg;
	struct uet_config_error err;
	char path[64];

	(void)state;
	assert_int_equal(load_text("[port0]\ndevargs = net_memif0\n"
				   "ipv6 = fd00::1\n"
				   "[port1]  # second port\n"
				   "devargs = net_memif1\nipv4 = 10.0.1.1\n"
				   "mac = 02:00:00:00:00:01\n",
				   &cfg, &err, path), 0);
	assert_int_equal(uet_config_nb_ports(&cfg), 2);
	assert_string_equal(cfg.port[0].devargs, "net_memif0");
	assert_false(cfg.port[0].has_ipv4); /* not inherited from defaults */
	assert_true(cfg.port[0].has_ipv6);
	assert_true(cfg.port[1].has_mac);
	assert_int_equal(cfg.port[1].mac[5], 1);
	assert_int_equal(uet_config_validate(&cfg, &err), 0);

	/* Only [port1]: the default port0 is gone, leaving a gap. */
	assert_int_equal(load_text("[port1]\ndevargs = x\nipv4 = 10.0.0.9\n",
				   &cfg, &err, path), 0);
	assert_int_equal(uet_config_validate(&cfg, &err), -EINVAL);
	assert_string_equal(err.section, "port1");
	assert_non_null(strstr(err.msg, "port0 missing"));
}

static void
load__comments_blank_lines_and_crlf(void **state)
{
	struct uet_config cfg;
	struct uet_config_error err;
	char path[64];

	(void)state;
	assert_int_equal(load_text("\n# only a comment\n   \n[engine]\r\n"
				   "  burst   =   16   # trailing comment\r\n"
				   "[timers]\nrto_init=2ms\n[neighbor]\n"
				   "[cc]\nmax_wnd = auto\nalpha = auto\n",
				   &cfg, &err, path), 0);
	assert_int_equal(cfg.engine.burst, 16);
	assert_int_equal(cfg.timers.rto_init_ns, 2000000);
	assert_true(cfg.cc.max_wnd == 0 && cfg.cc.alpha == 0);
	assert_int_equal(cfg.cc.max_wnd, 0);
	/* An empty file is the defaults. */
	assert_int_equal(load_text("", &cfg, &err, path), 0);
	assert_int_equal(cfg.engine.burst, 32);
}

/* [cc] is built (NSCC, RCCC): its keys are taken; delay_ewma_gain had
 * nothing behind it (the gain is NSCC's constant 1/80) and is gone, and
 * credit is carried in 256-byte units. */
static void
load__cc_keys(void **state)
{
	struct uet_config cfg;
	struct uet_config_error err;
	char path[64];

	(void)state;
	uet_config_init_defaults(&cfg);
	assert_int_equal(cfg.cc.algorithm, UET_CONFIG_CC_NONE);
	assert_int_equal(load_text("[cc]\nalgorithm = nscc+rccc\ngamma = 0.5\n"
				   "max_wnd = 300K\nrccc_quantum = 4352\n",
				   &cfg, &err, path), 0);
	assert_int_equal(cfg.cc.algorithm, UET_CONFIG_CC_BOTH);
	assert_true(cfg.cc.gamma == 0.5);
	assert_int_equal(cfg.cc.max_wnd, 300 * 1024);
	assert_int_equal(cfg.cc.rccc_quantum, 4352);
	assert_int_equal(uet_config_override(&cfg, "cc.algorithm=fixed", &err),
			 0);
	assert_int_equal(cfg.cc.algorithm, UET_CONFIG_CC_NONE);
	/* earlier spellings still load */
	assert_int_equal(uet_config_override(&cfg, "cc.algorithm=both", &err),
			 0);
	assert_int_equal(cfg.cc.algorithm, UET_CONFIG_CC_BOTH);
	expect_error("[cc]\ndelay_ewma_gain = 0.0125\n", -EINVAL, 2, "cc",
		     "delay_ewma_gain", "unknown key");
	cfg.cc.rccc_quantum = 300;
	assert_int_equal(uet_config_validate(&cfg, &err), -EINVAL);
	assert_string_equal(err.key, "rccc_quantum");
	assert_non_null(strstr(err.reason, "multiple of 256"));
}

static void expect_invalid(const char *a, const char *b, const char *section,
			   const char *key, const char *part);

/* [fault] from/until: a window of the engine's time; until after from. */
static void
load__fault_window(void **state)
{
	struct uet_config cfg;
	struct uet_config_error err;
	char path[64];

	(void)state;
	uet_config_init_defaults(&cfg);
	assert_int_equal(load_text("[fault]\nfrom = 1s\nuntil = 2s\n", &cfg,
				   &err, path), 0);
	assert_int_equal(cfg.fault.from_ns, 1000000000);
	assert_int_equal(cfg.fault.until_ns, 2000000000);
	assert_int_equal(uet_config_validate(&cfg, &err), 0);
	cfg.fault.until_ns = cfg.fault.from_ns;
	assert_int_equal(uet_config_validate(&cfg, &err), -EINVAL);
	assert_string_equal(err.key, "until");
	assert_non_null(strstr(err.reason, "not after from"));
	expect_error("[fault]\nuntil = 2h\n", -EINVAL, 2, "fault", "until",
		     "");
}

/* [spray] maps onto the load balancer: every key is accepted in its
 * range, and each bad value is refused naming the key. */
static void
load__spray_keys(void **state)
{
	struct uet_config cfg;
	struct uet_config_error err;
	char path[64];

	(void)state;
	uet_config_init_defaults(&cfg);
	assert_int_equal(load_text("[spray]\nmode = reps\nnum_evs = 1024\n"
				   "ev_base = 1024\nsingle_hold_rtts = 20\n"
				   "reps_cache_size = 4\n"
				   "reps_freeze_duration = 200us\n",
				   &cfg, &err, path), 0);
	assert_int_equal(cfg.spray.mode, UET_CONFIG_SPRAY_REPS);
	assert_int_equal(cfg.spray.num_evs, 1024);
	assert_int_equal(cfg.spray.ev_base, 1024);
	assert_int_equal(cfg.spray.single_hold_rtts, 20);
	assert_int_equal(cfg.spray.reps_cache_size, 4);
	assert_int_equal(cfg.spray.reps_freeze_duration_ns, 200000);
	assert_int_equal(uet_config_validate(&cfg, &err), 0);
	assert_int_equal(uet_config_override(&cfg, "spray.mode=oblivious",
					     &err), 0);
	assert_int_equal(cfg.spray.mode, UET_CONFIG_SPRAY_OBLIVIOUS);
	/* REPS keeps at most 8 EVs (UEC 1.0 3.6.16). */
	expect_error("[spray]\nreps_cache_size = 9\n", -ERANGE, 2, "spray",
		     "reps_cache_size", "out of range [1, 8]");
	expect_error("[spray]\nreps_cache_size = 0\n", -ERANGE, 2, "spray",
		     "reps_cache_size", "out of range [1, 8]");
	expect_error("[spray]\nsingle_hold_rtts = 9\n", -ERANGE, 2, "spray",
		     "single_hold_rtts", "out of range [10, 1000000]");
	expect_error("[spray]\nnum_evs = 65536\n", -ERANGE, 2, "spray",
		     "num_evs", "out of range [1, 65535]");
	expect_error("[spray]\nreps_freeze_duration = 0\n", -ERANGE, 2,
		     "spray", "reps_freeze_duration", "out of range");
	/* The keys that no longer exist: the freeze follows a loss, the
	 * hold applies to every single-path PDC. */
	expect_error("[spray]\nreps_freeze_timeout = 1ms\n", -EINVAL, 2,
		     "spray", "reps_freeze_timeout", "unknown key");
	expect_error("[spray]\nrod_ev_hold_rtts = 10\n", -EINVAL, 2,
		     "spray", "rod_ev_hold_rtts", "unknown key");
	/* Spraying needs 256 EVs at least; single path does not. */
	expect_invalid("spray.mode=oblivious", "spray.num_evs=255", "spray",
		       "num_evs", "mode oblivious needs at least 256");
	expect_invalid("spray.mode=reps", "spray.num_evs=16", "spray",
		       "num_evs", "mode reps needs at least 256");
	uet_config_init_defaults(&cfg);
	assert_int_equal(uet_config_override(&cfg, "spray.num_evs=1", &err),
			 0);
	assert_int_equal(uet_config_validate(&cfg, &err), 0);
}

static void
override__applies_and_validates(void **state)
{
	struct uet_config cfg, before;
	struct uet_config_error err;

	(void)state;
	uet_config_init_defaults(&cfg);
	assert_int_equal(uet_config_override(&cfg, "port0.mtu=9000", &err), 0);
	assert_int_equal(cfg.port[0].mtu, 9000);
	assert_int_equal(uet_config_override(&cfg, "eal.args=-l 0 --a=b",
					     &err), 0);
	assert_string_equal(cfg.eal.args, "-l 0 --a=b");
	assert_int_equal(uet_config_override(&cfg, "eal.args=", &err),
			 -EINVAL);
	assert_string_equal(cfg.eal.args, "-l 0 --a=b");
	assert_int_equal(uet_config_override(&cfg, "port0.ipv4=none", &err),
			 0);
	assert_false(cfg.port[0].has_ipv4);
	assert_int_equal(uet_config_override(&cfg, "cc.target_qdelay=auto",
					     &err), 0);
	assert_int_equal(uet_config_override(&cfg, "neighbor.10.0.0.7="
					     "02:00:00:00:00:07", &err), 0);
	assert_int_equal(uet_config_override(&cfg, "neighbor.10.0.0.7="
					     "02:00:00:00:00:08", &err), 0);
	assert_int_equal(cfg.nb_neighbors, 1);
	assert_int_equal(cfg.neighbor[0].mac[5], 8);
	/* A key of an undefined port defines it with the port defaults. */
	assert_false(cfg.port[3].defined);
	assert_int_equal(uet_config_override(&cfg, "port3.devargs=net_null0",
					     &err), 0);
	assert_true(cfg.port[3].defined);
	assert_int_equal(cfg.port[3].mtu, 0);
	assert_int_equal(uet_config_port_mtu(&cfg.port[3]), 1500);

	before = cfg;
	assert_int_equal(uet_config_override(&cfg, "port0.mtu=70000", &err),
			 -ERANGE);
	assert_string_equal(err.msg, "<override>: [port0] mtu: value 70000 "
			    "out of range [68, 9216]; or 'auto'");
	assert_int_equal(uet_config_override(&cfg, "port5.mtu=x", &err),
			 -EINVAL);
	assert_false(cfg.port[5].defined);
	assert_int_equal(uet_config_override(&cfg, "port5.mtux=1", &err),
			 -EINVAL);
	assert_string_equal(err.key, "mtux");
	assert_int_equal(uet_config_override(&cfg, "engin.burst=1", &err),
			 -EINVAL);
	assert_non_null(strstr(err.msg, "unknown section"));
	assert_int_equal(uet_config_override(&cfg, "engine.bogus=1", &err),
			 -EINVAL);
	assert_non_null(strstr(err.msg, "[engine] bogus: unknown key"));
	assert_int_equal(uet_config_override(&cfg, "engine.burst= 8", &err),
			 -EINVAL);
	assert_int_equal(uet_config_override(&cfg, "eal.args= x", &err),
			 -EINVAL);
	assert_int_equal(uet_config_override(&cfg, "eal.args=a#b", &err),
			 -EINVAL);
	assert_int_equal(uet_config_override(&cfg, "port9.mtu=1500", &err),
			 -EINVAL);
	assert_int_equal(uet_config_override(&cfg, "neighbor.10.0.0.8=x",
					     &err), -EINVAL);
	assert_memory_equal(&cfg, &before, sizeof(cfg));
}

static void
override__syntax(void **state)
{
	static const char *const bad[] = {
		"", "burst=1", "engine.burst", ".burst=1", "engine.=1",
		"engine=burst.1", "=.",
	};
	struct uet_config cfg;
	struct uet_config_error err;
	char big[400];
	size_t i;

	(void)state;
	uet_config_init_defaults(&cfg);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(uet_config_override(&cfg, bad[i], &err),
				 -EINVAL);
		assert_string_equal(err.file, "<override>");
	}
	assert_int_equal(uet_config_override(&cfg, NULL, &err), -EINVAL);
	assert_int_equal(uet_config_override(NULL, "a.b=c", NULL), -EINVAL);
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	memcpy(big, "eal.args=", 9);
	assert_int_equal(uet_config_override(&cfg, big, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "too long"));
}

/* Apply @a then validate; expect failure naming [@section] @key. */
static void
expect_invalid(const char *a, const char *b, const char *section,
	       const char *key, const char *part)
{
	struct uet_config cfg;
	struct uet_config_error err;

	uet_config_init_defaults(&cfg);
	assert_int_equal(uet_config_override(&cfg, a, &err), 0);
	if (b != NULL)
		assert_int_equal(uet_config_override(&cfg, b, &err), 0);
	assert_int_equal(uet_config_validate(&cfg, &err), -EINVAL);
	assert_string_equal(err.section, section);
	assert_string_equal(err.key, key);
	if (strstr(err.reason, part) == NULL)
		print_error("reason '%s' lacks '%s'\n", err.reason, part);
	assert_non_null(strstr(err.reason, part));
}

/* engine.mbuf_size auto (the default) follows the largest port MTU. */
static void
uet_config_mbuf_size__auto(void **state)
{
	struct uet_config cfg;
	struct uet_config_error err;

	(void)state;
	uet_config_init_defaults(&cfg);
	assert_int_equal(cfg.engine.mbuf_size, 0);
	/* net_ring0 at mtu auto (9000): 9000 + 80 rounded up to 128, +
	 * headroom */
	assert_int_equal(uet_config_mbuf_size(&cfg),
			 9088 + RTE_PKTMBUF_HEADROOM);
	assert_int_equal(uet_config_override(&cfg, "port0.mtu=1500", &err), 0);
	assert_int_equal(uet_config_mbuf_size(&cfg),
			 2048 + RTE_PKTMBUF_HEADROOM);
	assert_int_equal(uet_config_override(&cfg, "port0.mtu=9000", &err), 0);
	assert_int_equal(uet_config_validate(&cfg, &err), 0);
	assert_int_equal(uet_config_mbuf_size(&cfg),
			 9088 + RTE_PKTMBUF_HEADROOM);
	assert_int_equal(uet_config_override(&cfg, "port1.devargs=net_ring1",
					     &err), 0);
	assert_int_equal(uet_config_override(&cfg, "port1.ipv4=10.0.0.9",
					     &err), 0);
	assert_int_equal(uet_config_override(&cfg, "port1.mtu=9216", &err), 0);
	assert_int_equal(uet_config_mbuf_size(&cfg),
			 9344 + RTE_PKTMBUF_HEADROOM);
	/* explicit sizes stand, and are checked against the MTU */
	assert_int_equal(uet_config_override(&cfg, "engine.mbuf_size=4096",
					     &err), 0);
	assert_int_equal(uet_config_mbuf_size(&cfg), 4096);
	assert_int_equal(uet_config_validate(&cfg, &err), -EINVAL);
	assert_string_equal(err.key, "mtu");
	assert_int_equal(uet_config_override(&cfg, "engine.mbuf_size=auto",
					     &err), 0);
	assert_int_equal(cfg.engine.mbuf_size, 0);
	assert_int_equal(uet_config_validate(&cfg, &err), 0);
}

/*
 * engine.mbuf_pool_size auto (the default): 16383 mbufs of 2 KiB, at most
 * 64 MiB of larger ones (jumbo frames: nine engines in one process must
 * fit a 1 GiB EAL), never fewer than the rings and caches need.
 */
static void
uet_config_mbuf_pool_size__auto(void **state)
{
	struct uet_config cfg;
	struct uet_config_error err;
	unsigned int jumbo = 9088 + RTE_PKTMBUF_HEADROOM;

	(void)state;
	uet_config_init_defaults(&cfg);
	assert_int_equal(cfg.engine.mbuf_pool_size, 0);
	assert_int_equal(uet_config_mbuf_pool_size(&cfg), (64u << 20) / jumbo);
	assert_int_equal(uet_config_validate(&cfg, &err), 0);
	assert_int_equal(uet_config_override(&cfg, "port0.mtu=1500", &err), 0);
	assert_int_equal(uet_config_mbuf_pool_size(&cfg), 16383);
	/* rings larger than the byte bound allows: the rings win */
	assert_int_equal(uet_config_override(&cfg, "port0.mtu=9000", &err), 0);
	assert_int_equal(uet_config_override(&cfg, "port0.rx_desc=8192",
					     &err), 0);
	assert_true(uet_config_mbuf_need(&cfg) > (64u << 20) / jumbo);
	assert_int_equal(uet_config_mbuf_pool_size(&cfg),
			 uet_config_mbuf_need(&cfg));
	assert_int_equal(uet_config_validate(&cfg, &err), 0);
	/* an explicit size stands, and is checked against the rings */
	assert_int_equal(uet_config_override(&cfg, "engine.mbuf_pool_size=2047",
					     &err), 0);
	assert_int_equal(uet_config_mbuf_pool_size(&cfg), 2047);
	assert_int_equal(uet_config_validate(&cfg, &err), -EINVAL);
	assert_string_equal(err.key, "mbuf_pool_size");
	assert_int_equal(uet_config_override(&cfg, "engine.mbuf_pool_size=auto",
					     &err), 0);
	assert_int_equal(cfg.engine.mbuf_pool_size, 0);
	assert_int_equal(uet_config_validate(&cfg, &err), 0);
}

/* The UDP checksum on IPv4 of @p devargs after @p a and @p b (NULL: none). */
static bool
udp_csum_of(const char *devargs, const char *a, const char *b)
{
	struct uet_config cfg;
	struct uet_config_error err;
	char o[128];

	uet_config_init_defaults(&cfg);
	snprintf(o, sizeof(o), "port0.devargs=%s", devargs);
	assert_int_equal(uet_config_override(&cfg, o, &err), 0);
	if (a != NULL)
		assert_int_equal(uet_config_override(&cfg, a, &err), 0);
	if (b != NULL)
		assert_int_equal(uet_config_override(&cfg, b, &err), 0);
	assert_int_equal(uet_config_validate(&cfg, &err), 0);
	return uet_config_port_udp_csum(&cfg, &cfg.port[0]);
}

/* tx_zero_copy: auto by default; true refused where the payload must be
 * copied anyway (summed in software while copied). */
static void
validate__tx_zero_copy(void **state)
{
	struct uet_config cfg;
	struct uet_config_error err;

	(void)state;
	uet_config_init_defaults(&cfg);
	assert_int_equal(cfg.port[0].tx_zero_copy, UET_CONFIG_TX_ZC_AUTO);
	assert_int_equal(uet_config_override(&cfg, "port0.tx_zero_copy=on",
					     &err), 0);
	assert_int_equal(cfg.port[0].tx_zero_copy, UET_CONFIG_TX_ZC_ON);
	assert_int_equal(uet_config_validate(&cfg, &err), 0);
	assert_int_equal(uet_config_override(&cfg, "port0.udp_checksum=true",
					     &err), 0);
	assert_true(uet_config_validate(&cfg, &err) < 0);
	assert_string_equal(err.key, "tx_zero_copy");
	assert_int_equal(uet_config_override(&cfg, "port0.tx_zero_copy=0",
					     &err), 0);
	assert_int_equal(uet_config_validate(&cfg, &err), 0);
	assert_true(uet_config_override(&cfg, "port0.tx_zero_copy=maybe",
					&err) < 0);
}

static void
port_udp_csum__auto_by_port_type(void **state)
{
	struct uet_config cfg;
	struct uet_config_error err;

	(void)state;
	uet_config_init_defaults(&cfg);
	assert_int_equal(cfg.port[0].udp_checksum, UET_CONFIG_UDP_CSUM_AUTO);
	/* auto: shared memory and native IP go without, any link sums */
	assert_false(udp_csum_of("net_ring0", NULL, NULL));
	assert_false(udp_csum_of("net_memif0,role=client,id=0", NULL, NULL));
	assert_false(udp_csum_of("net_tap0", "port0.native_ip=1", NULL));
	assert_true(udp_csum_of("net_tap0,iface=uettap9", NULL, NULL));
	assert_true(udp_csum_of("0000:03:00.0", NULL, NULL));
	assert_true(udp_csum_of("net_af_packet0,iface=veth0", NULL, NULL));
	/* an explicit value wins over the port type, in every spelling */
	assert_true(udp_csum_of("net_ring0", "port0.udp_checksum=true", NULL));
	assert_true(udp_csum_of("net_memif0", "port0.udp_checksum=on", NULL));
	assert_false(udp_csum_of("net_tap0", "port0.udp_checksum=no", NULL));
	assert_false(udp_csum_of("net_tap0", "port0.udp_checksum=0", NULL));
	assert_true(udp_csum_of("net_tap0", "port0.udp_checksum=auto",
				"port0.ipv6=fd00::1"));
	/* auto on an IPv6-only ring port: valid (IPv6 sums anyway) */
	assert_false(udp_csum_of("net_ring0", "port0.ipv6=fd00::1",
				 "port0.ipv4=none"));
	/* auto on shared memory sums while the fault injector corrupts
	 * (either direction); not for its other faults, not when disabled,
	 * and an explicit false stays false (the negative control) */
	assert_true(udp_csum_of("net_ring0", "fault.enabled=true",
				"fault.tx_data_corrupt_ppm=2000"));
	assert_true(udp_csum_of("net_memif0", "fault.enabled=true",
				"fault.rx_control_corrupt_ppm=1"));
	assert_false(udp_csum_of("net_ring0", "fault.enabled=true",
				 "fault.tx_data_drop_ppm=2000"));
	assert_false(udp_csum_of("net_ring0", "fault.enabled=false",
				 "fault.tx_data_corrupt_ppm=2000"));
	/* a value that is none of them is refused, naming the key */
	assert_int_equal(uet_config_override(&cfg, "port0.udp_checksum=maybe",
					     &err), -EINVAL);
	assert_string_equal(err.key, "udp_checksum");
}

/* mtu auto (the default): jumbo on shared-memory ports, Ethernet's on
 * others; an explicit value stands; bad values are refused by name. */
static void
uet_config_port_mtu__auto(void **state)
{
	struct uet_config cfg;
	struct uet_config_error err;

	(void)state;
	uet_config_init_defaults(&cfg);
	assert_int_equal(cfg.port[0].mtu, 0);
	assert_int_equal(uet_config_port_mtu(&cfg.port[0]), 9000);
	assert_int_equal(uet_config_override(&cfg, "port0.devargs=net_memif0,"
					     "role=client", &err), 0);
	assert_int_equal(uet_config_port_mtu(&cfg.port[0]), 9000);
	assert_int_equal(uet_config_override(&cfg, "port0.devargs="
					     "0000:01:00.0", &err), 0);
	assert_int_equal(uet_config_port_mtu(&cfg.port[0]), 1500);
	assert_int_equal(uet_config_override(&cfg, "port0.devargs=net_af_"
					     "packet0,iface=eth0", &err), 0);
	assert_int_equal(uet_config_port_mtu(&cfg.port[0]), 1500);
	assert_int_equal(uet_config_override(&cfg, "port0.mtu=4000", &err), 0);
	assert_int_equal(uet_config_port_mtu(&cfg.port[0]), 4000);
	assert_int_equal(uet_config_override(&cfg, "port0.devargs=net_ring0",
					     &err), 0);
	assert_int_equal(uet_config_port_mtu(&cfg.port[0]), 4000);
	assert_int_equal(uet_config_override(&cfg, "port0.mtu=auto", &err), 0);
	assert_int_equal(cfg.port[0].mtu, 0);
	assert_int_equal(uet_config_port_mtu(&cfg.port[0]), 9000);
	assert_int_equal(uet_config_validate(&cfg, &err), 0);
	assert_int_equal(uet_config_override(&cfg, "port0.mtu=0", &err),
			 -ERANGE);
	assert_string_equal(err.key, "mtu");
	assert_non_null(strstr(err.msg, "out of range [68, 9216]; or 'auto'"));
	assert_int_equal(uet_config_override(&cfg, "port0.mtu=Auto", &err),
			 -EINVAL);
	assert_int_equal(uet_config_override(&cfg, "port0.mtu=9217", &err),
			 -ERANGE);
	assert_int_equal(cfg.port[0].mtu, 0);
	/* auto at a fixed mbuf_size: the message says where 9000 came from */
	assert_int_equal(uet_config_override(&cfg, "engine.mbuf_size=2176",
					     &err), 0);
	assert_int_equal(uet_config_validate(&cfg, &err), -EINVAL);
	assert_string_equal(err.key, "mtu");
	assert_non_null(strstr(err.msg, "mtu 9000 (auto) needs 9018-byte"));
}

static void
validate__cross_field(void **state)
{
	struct uet_config cfg;
	struct uet_config_error err;

	(void)state;
	expect_invalid("port0.mtu=9000", "engine.mbuf_size=2176", "port0",
		       "mtu", "engine.mbuf_size 2176 leaves 2048");
	expect_invalid("port0.ipv4=none", NULL, "port0", "ipv4",
		       "needs an ipv4 or ipv6");
	expect_invalid("port1.mtu=9000", NULL, "port1", "devargs", "required");
	expect_invalid("port1.devargs=net_ring0", "port1.ipv4=10.0.0.2",
		       "port1", "devargs", "same device as port0");
	expect_invalid("port1.devargs=net_ring1", "port1.ipv4=10.0.0.1",
		       "port1", "ipv4", "same address as port0");
	expect_invalid("port0.native_ip=1", "port0.ip_proto=17", "port0",
		       "ip_proto", "UDP");
	expect_invalid("port0.native_ip=1", "port0.udp_checksum=true", "port0",
		       "udp_checksum", "no UDP header");
	/* udp_checksum=false on an IPv6-only port would change nothing */
	uet_config_init_defaults(&cfg);
	assert_int_equal(uet_config_override(&cfg, "port0.ipv6=fd00::1", &err),
			 0);
	assert_int_equal(uet_config_override(&cfg, "port0.ipv4=none", &err), 0);
	assert_int_equal(uet_config_validate(&cfg, &err), 0);
	assert_int_equal(uet_config_override(&cfg, "port0.udp_checksum=off",
					     &err), 0);
	assert_int_equal(uet_config_validate(&cfg, &err), -EINVAL);
	assert_string_equal(err.key, "udp_checksum");
	assert_non_null(strstr(err.reason, "IPv6 always"));
	expect_invalid("engine.mbuf_pool_size=2000", NULL, "engine",
		       "mbuf_pool_size", "need at least 2336");
	expect_invalid("engine.lcores=1-2", NULL, "engine", "lcores",
		       "2 lcores but the ports have 1 RX queues");
	expect_invalid("engine.pdc_pool_general=65535", NULL, "engine",
		       "pdc_pool_reserved", "16-bit");
	expect_invalid("engine.idle_sleep=500us", "engine.idle_sleep_max=100us",
		       "engine", "idle_sleep_max", "shorter than idle_sleep");
	expect_invalid("timers.tick=2ms", NULL, "timers", "tick", "rto_init");
	expect_invalid("timers.tlp_timeout=1ms", NULL, "timers", "tlp_timeout",
		       "[tick, rto_init)");
	expect_invalid("timers.close_idle=10us", NULL, "timers", "close_idle",
		       "at least rto_init");
	expect_invalid("timers.close_req_idle=10us", NULL, "timers",
		       "close_req_idle", "at least rto_init");
	expect_invalid("timers.ack_min_add=32K", NULL, "timers", "ack_min_add",
		       "ack_coalesce_bytes");
	expect_invalid("spray.ev_base=65500", NULL, "spray", "num_evs",
		       "16-bit");
	expect_invalid("dscp.trimmed=0", NULL, "dscp", "trimmed", "differ");
	expect_invalid("dscp.trimmed_lasthop=16", NULL, "dscp",
		       "trimmed_lasthop", "differ");
	expect_invalid("dscp.control=0", NULL, "dscp", "control", "differ");
	expect_invalid("fault.delay=0", "fault.tx_control_delay_ppm=5",
		       "fault", "delay", "delay is 0");

	/* No port at all. */
	uet_config_init_defaults(&cfg);
	cfg.port[0].defined = false;
	assert_int_equal(uet_config_validate(&cfg, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "[port0] at least one port"));
	cfg.port[0].defined = true;
	/* Below the key range, reachable only through the struct. */
	cfg.engine.mbuf_pool_size = 300;
	assert_int_equal(uet_config_validate(&cfg, &err), -EINVAL);
	assert_string_equal(err.key, "mbuf_cache");
	uet_config_init_defaults(&cfg);
	cfg.engine.nb_lcores = 0;
	assert_int_equal(uet_config_validate(&cfg, &err), -EINVAL);
	assert_int_equal(uet_config_validate(NULL, NULL), -EINVAL);
	/* Inline progress does not need an RX queue per lcore. */
	uet_config_init_defaults(&cfg);
	assert_int_equal(uet_config_override(&cfg, "engine.lcores=1-2", &err),
			 0);
	assert_int_equal(uet_config_override(&cfg, "engine.progress=inline",
					     &err), 0);
	assert_int_equal(uet_config_validate(&cfg, &err), 0);
}

static void
examples__load_and_validate(void **state)
{
	static const char *const files[] = {
		"ring-2port.conf", "memif-server.conf", "memif-client.conf",
		"perf-memif-server.conf", "perf-memif-client.conf",
		"perf-afpacket-a.conf", "perf-afpacket-b.conf",
		"perf-afxdp-a.conf", "perf-afxdp-b.conf",
		"perf-tap-a.conf", "perf-tap-b.conf", "perf-pci-server.conf",
		"perf-pdcs.conf",
	};
	const char *dir = getenv("UET_TEST_DATA");
	struct uet_config cfg;
	struct uet_config_error err;
	char path[512];
	size_t i;
	int rc;

	(void)state;
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/../../config/examples/%s",
			 dir ? dir : "test/unit", files[i]);
		rc = uet_config_load(&cfg, path, &err);
		if (rc == 0)
			rc = uet_config_validate(&cfg, &err);
		if (rc < 0)
			print_error("%s\n", err.msg);
		assert_int_equal(rc, 0);
	}
}

static void
uet_config_jobs_parse__ranges(void **state)
{
	uint32_t a[4], b[4];
	unsigned int n;

	(void)state;
	assert_int_equal(uet_config_jobs_parse("1-100,200,16777215", a, b, 4,
					       &n, NULL, 0), 0);
	assert_int_equal(n, 3);
	assert_int_equal(a[0], 1);
	assert_int_equal(b[0], 100);
	assert_int_equal(a[1], 200);
	assert_int_equal(b[1], 200);
	assert_int_equal(a[2], 16777215);
	assert_int_equal(uet_config_jobs_parse("0", a, b, 4, &n, NULL, 0), 0);
	assert_int_equal(n, 1);
}

static void
uet_config_jobs_parse__bad(void **state)
{
	static const char *const bad[] = {
		"", "x", "1-", "-1", "5-3", "1,,2", "1,", "16777216",
		"1 2", "1-2-3", "0x10", "1,2,3,4,5",
	};
	uint32_t a[4], b[4];
	unsigned int n;
	char why[128];

	(void)state;
	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = '\0';
		assert_int_equal(uet_config_jobs_parse(bad[i], a, b, 4, &n,
						       why, sizeof(why)),
				 -EINVAL);
		assert_true(why[0] != '\0');
	}
}

/* [service]: cross-field checks (ranges are the key table's) */
static void
validate__service(void **state)
{
	static const char *const bad[] = {
		"service.window_size=65537",
		"service.socket=",
		"service.jobs=3-1",
	};
	struct uet_config cfg;
	struct uet_config_error err;

	(void)state;
	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uet_config_init_defaults(&cfg);
		if (uet_config_override(&cfg, bad[i], &err) < 0)
			continue; /* refused by the key itself: fine too */
		assert_int_equal(uet_config_validate(&cfg, &err), -EINVAL);
		assert_string_equal(err.section, "service");
	}
	uet_config_init_defaults(&cfg);
	assert_int_equal(uet_config_override(&cfg, "service.max_chans=65",
					     &err), -ERANGE);
	assert_int_equal(uet_config_override(&cfg, "service.jobs=7,9-12",
					     &err), 0);
	assert_int_equal(uet_config_validate(&cfg, &err), 0);
}

/* [service] socket_mode: "0" and up to three octal digits, nothing
 * else (no setuid, setgid or sticky bit on a socket). */
static void
validate__service_socket_mode(void **state)
{
	static const char *const bad[] = {
		"service.socket_mode=660", "service.socket_mode=0999",
		"service.socket_mode=01777", "service.socket_mode=0x1ff",
		"service.socket_mode=", "service.socket_mode=0660 ",
	};
	struct uet_config cfg;
	struct uet_config_error err;

	(void)state;
	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uet_config_init_defaults(&cfg);
		if (uet_config_override(&cfg, bad[i], &err) < 0)
			continue;
		assert_int_equal(uet_config_validate(&cfg, &err), -EINVAL);
		assert_string_equal(err.key, "socket_mode");
	}
	assert_int_equal(uet_config_socket_mode("0660"), 0660);
	assert_int_equal(uet_config_socket_mode("0"), 0);
	assert_int_equal(uet_config_socket_mode("0777"), 0777);
}

/* [timers] alive_dir: auto, off or an absolute path; anything else is
 * refused (a relative one would depend on the working directory). */
static void
validate__alive_dir(void **state)
{
	static const char *const bad[] = {
		"timers.alive_dir=run/uet", "timers.alive_dir=Auto",
		"timers.alive_dir=./x", "timers.alive_dir=",
	};
	static const char *const good[] = {
		"timers.alive_dir=auto", "timers.alive_dir=off",
		"timers.alive_dir=/var/tmp/x",
	};
	struct uet_config cfg;
	struct uet_config_error err;

	(void)state;
	uet_config_init_defaults(&cfg);
	assert_string_equal(cfg.timers.alive_dir, "auto");
	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uet_config_init_defaults(&cfg);
		if (uet_config_override(&cfg, bad[i], &err) < 0)
			continue;
		assert_int_equal(uet_config_validate(&cfg, &err), -EINVAL);
		assert_string_equal(err.key, "alive_dir");
	}
	for (unsigned int i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		uet_config_init_defaults(&cfg);
		assert_int_equal(uet_config_override(&cfg, good[i], &err), 0);
		assert_int_equal(uet_config_validate(&cfg, &err), 0);
	}
}

/* job.N lines: JobIDs or a range, uid:/gid: members by number or name
 * (resolved at load), written back as numbers, and read back the same. */
static void
load__service_job_lines(void **state)
{
	struct uet_config cfg, back;
	struct uet_config_error err;
	char path[64];
	int rc;

	(void)state;
	uet_config_init_defaults(&cfg);
	rc = load_text("[service]\njobs = 1-100\n"
		       "job.5 = uid:root, gid:0\n"
		       "job.10-19 = uid:1234 , gid:root,uid:7\n", &cfg, &err,
		       path);
	if (rc < 0)
		print_error("%s\n", err.msg);
	assert_int_equal(rc, 0);
	assert_int_equal(cfg.service.nb_acl, 2);
	assert_int_equal(cfg.service.acl[0].first, 5);
	assert_int_equal(cfg.service.acl[0].last, 5);
	assert_int_equal(cfg.service.acl[0].nb, 2);
	assert_false(cfg.service.acl[0].m[0].gid);
	assert_int_equal(cfg.service.acl[0].m[0].id, 0);
	assert_true(cfg.service.acl[0].m[1].gid);
	assert_int_equal(cfg.service.acl[1].first, 10);
	assert_int_equal(cfg.service.acl[1].last, 19);
	assert_int_equal(cfg.service.acl[1].nb, 3);
	assert_int_equal(cfg.service.acl[1].m[0].id, 1234);
	assert_int_equal(cfg.service.acl[1].m[2].id, 7);
	assert_int_equal(uet_config_validate(&cfg, &err), 0);
	assert_true(uet_config_dump(&cfg, 0, dump_a, DUMP_LEN) > 0);
	assert_non_null(strstr(dump_a, "job.5 = uid:0, gid:0\n"));
	assert_non_null(strstr(dump_a, "job.10-19 = uid:1234, gid:0, "
			       "uid:7\n"));
	memset(&back, 0, sizeof(back));
	assert_int_equal(load_text(dump_a, &back, &err, path), 0);
	assert_memory_equal(&back, &cfg, sizeof(cfg));
}

static void
load__service_job_lines_bad(void **state)
{
	(void)state;
	expect_error("[service]\njob.x = uid:0\n", -EINVAL, 2, "service",
		     "job.x", "expected job.N or job.N-M");
	expect_error("[service]\njob.9-3 = uid:0\n", -EINVAL, 2, "service",
		     "job.9-3", "N <= M");
	expect_error("[service]\njob.16777216 = uid:0\n", -EINVAL, 2,
		     "service", "job.16777216", "16777215");
	expect_error("[service]\njob.5 = user:0\n", -EINVAL, 2, "service",
		     "job.5", "expected uid:USER or gid:GROUP");
	expect_error("[service]\njob.5 = uid:no-such-user-uet\n", -EINVAL,
		     2, "service", "job.5", "no such user");
	expect_error("[service]\njob.5 = gid:no-such-group-uet\n", -EINVAL,
		     2, "service", "job.5", "no such group");
	expect_error("[service]\njob.5 = ,\n", -EINVAL, 2, "service",
		     "job.5", "no members");
	expect_error("[service]\njob.5-9 = uid:0\njob.9 = uid:1\n",
		     -EINVAL, 3, "service", "job.9", "already have a job line");
	expect_error("[service]\njob.5 = uid:0,uid:1,uid:2,uid:3,uid:4,"
		     "uid:5,uid:6,uid:7,uid:8,uid:9,uid:10,uid:11,uid:12,"
		     "uid:13,uid:14,uid:15,uid:16\n", -E2BIG, 2, "service",
		     "job.5", "more than 16 members");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(defaults__validate),
		cmocka_unit_test(default_file__equals_defaults),
		cmocka_unit_test(dump__round_trip),
		cmocka_unit_test(dump__port_without_devargs_round_trips),
		cmocka_unit_test(dump__truncates_like_snprintf),
		cmocka_unit_test(fabric__schedule_and_shape),
		cmocka_unit_test(load__missing_file),
		cmocka_unit_test(load__syntax_errors),
		cmocka_unit_test(load__section_and_key_errors),
		cmocka_unit_test(load__value_errors),
		cmocka_unit_test(load__empty_values_named),
		cmocka_unit_test(load__neighbor_limit),
		cmocka_unit_test(load__binary_garbage_does_not_crash),
		cmocka_unit_test(load__nul_byte_reported),
		cmocka_unit_test(load__ports_replace_defaults),
		cmocka_unit_test(load__comments_blank_lines_and_crlf),
		cmocka_unit_test(load__cc_keys),
		cmocka_unit_test(load__spray_keys),
		cmocka_unit_test(load__fault_window),
		cmocka_unit_test(override__applies_and_validates),
		cmocka_unit_test(override__syntax),
		cmocka_unit_test(validate__cross_field),
		cmocka_unit_test(port_udp_csum__auto_by_port_type),
		cmocka_unit_test(validate__tx_zero_copy),
		cmocka_unit_test(examples__load_and_validate),
		cmocka_unit_test(uet_config_jobs_parse__ranges),
		cmocka_unit_test(uet_config_jobs_parse__bad),
		cmocka_unit_test(validate__service),
		cmocka_unit_test(validate__alive_dir),
		cmocka_unit_test(uet_config_mbuf_size__auto),
		cmocka_unit_test(uet_config_mbuf_pool_size__auto),
		cmocka_unit_test(uet_config_port_mtu__auto),
		cmocka_unit_test(validate__service_socket_mode),
		cmocka_unit_test(load__service_job_lines),
		cmocka_unit_test(load__service_job_lines_bad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
