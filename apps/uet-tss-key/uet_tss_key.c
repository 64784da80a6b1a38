/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * uet-tss-key: the operator's tool of TSS client/server mode (UEC 1.0
 * section 3.7, docs/TSS.md). A client holds keys derived for its SSI,
 * never the domain key:
 *
 *   uet-tss-key derive --domain-key FILE --client SSI --out FILE
 *
 * reads the domain key file (64 hex digits, mode 0600) and writes a new
 * client key file (mode 0600, never over an existing file) for the
 * client's [tss] domain.SDI line. No key byte is printed.
 */

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uet/uet_parse.h>
#include <uet/uet_tss.h>

static void
usage(FILE *f)
{
	fprintf(f, "usage: uet-tss-key derive --domain-key FILE --client SSI "
		"--out FILE\n"
		"  writes the keys of client SSI (1..4294967295) of the "
		"domain whose key\n  is in --domain-key into a new file "
		"--out (mode 0600), for the client's\n  [tss] domain.SDI "
		"line (mode = client_server, role = client, ssi = SSI)\n");
}

static int
derive(const char *dk_path, const char *ssi_s, const char *out)
{
	uint8_t dk[UET_TSS_KEY_LEN];
	struct uet_tss_client_key ck;
	char why[160];
	uint32_t ssi;
	int rc;

	if (uet_parse_u32(ssi_s, 1, UINT32_MAX, &ssi, NULL) < 0) {
		fprintf(stderr, "uet-tss-key: --client '%s': expected an SSI, "
			"1..4294967295\n", ssi_s);
		return 2;
	}
	rc = uet_parse_key_file(dk_path, dk, sizeof(dk), why, sizeof(why));
	if (rc < 0) {
		fprintf(stderr, "uet-tss-key: --domain-key %s: %s\n", dk_path,
			why);
		return 1;
	}
	rc = uet_tss_client_key_derive(dk, ssi, &ck);
	explicit_bzero(dk, sizeof(dk));
	if (rc == 0)
		rc = uet_tss_client_key_write(out, &ck);
	if (rc == 0)
		printf("client %u: epoch %u, keys in %s\n", ck.ssi, ck.epoch,
		       out);
	explicit_bzero(&ck, sizeof(ck));
	if (rc < 0) {
		fprintf(stderr, "uet-tss-key: --out %s: %s\n", out,
			rc == -EEXIST ? "exists (a key file is never "
			"replaced: remove it first)" : strerror(-rc));
		return 1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "domain-key", required_argument, NULL, 'k' },
		{ "client", required_argument, NULL, 'c' },
		{ "out", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dk = NULL, *ssi = NULL, *out = NULL;
	int c;

	if (argc < 2 || strcmp(argv[1], "derive") != 0) {
		if (argc >= 2 && (strcmp(argv[1], "--help") == 0 ||
				  strcmp(argv[1], "-h") == 0)) {
			usage(stdout);
			return 0;
		}
		usage(stderr);
		return 2;
	}
	optind = 2;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'k':
			dk = optarg;
			break;
		case 'c':
			ssi = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (dk == NULL || ssi == NULL || out == NULL || optind != argc) {
		fprintf(stderr, "uet-tss-key derive: --domain-key, --client "
			"and --out are required, nothing else\n");
		usage(stderr);
		return 2;
	}
	return derive(dk, ssi, out);
}
