/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fixture generator for uet-dump and the fuzzer:
 *   gen_pcap FILE.pcap        every fixture of wire_fixtures.h (Ethernet)
 *   gen_pcap --raw FILE.pcap  the raw-IP fixtures (DLT_RAW)
 *   gen_pcap --seeds DIR      one file per fixture, for a fuzz corpus
 *   gen_pcap --list           name, expected result, layer, error, framing
 *   gen_pcap --cut FILE.pcap  frames that end before their UET headers:
 *                             0 bytes, 10, 30, 40 of a UET frame, and one
 *                             whose capture (caplen) stops at 40
 *   gen_pcap --tss FILE.pcap  TSS-protected frames: UDP/IPv4 without SSI,
 *                             native IPv6 with SSI, one cut inside its ICV
 *                             and one with the reserved bit set
 *   gen_pcap --first-time FILE  the first packet's time as libpcap reads
 *                               it (pcap or pcapng): seconds.microseconds
 */

#include <stdio.h>
#include <string.h>

#include <pcap/pcap.h>

#include <uet/uet_wire.h>

#include "wire_fixtures.h"

#define TS_BASE_SEC 1700000000
#define DIM(a) (sizeof(a) / sizeof((a)[0]))

static int
write_pcap(const char *path, bool raw)
{
	pcap_t *pd = pcap_open_dead(raw ? DLT_RAW : DLT_EN10MB, 65535);
	uint8_t frame[WFX_FRAME_MAX];
	struct pcap_pkthdr h;
	struct uet_wire_pkt spec;
	pcap_dumper_t *dump;
	unsigned int n = 0;
	size_t i;
	int len;

	if (pd == NULL)
		return -1;
	dump = pcap_dump_open(pd, path);
	if (dump == NULL) {
		fprintf(stderr, "gen_pcap: %s: %s\n", path, pcap_geterr(pd));
		pcap_close(pd);
		return -1;
	}
	for (i = 0; i < WFX_COUNT; i++) {
		if (wfx_table[i].raw_ip != raw)
			continue;
		len = wfx_frame(&wfx_table[i], &spec, frame, sizeof(frame));
		if (len < 0) {
			fprintf(stderr, "gen_pcap: %s: build error %s\n",
				wfx_table[i].name, uet_wire_errname(len));
			break;
		}
		memset(&h, 0, sizeof(h));
		h.ts.tv_sec = TS_BASE_SEC;
		h.ts.tv_usec = (suseconds_t)(n++ * 123);
		h.caplen = (bpf_u_int32)len;
		h.len = (bpf_u_int32)len;
		pcap_dump((u_char *)dump, &h, frame);
	}
	pcap_dump_close(dump);
	pcap_close(pd);
	return i == WFX_COUNT ? 0 : -1;
}

/*
 * One TSS frame: outer headers, TSS header @p t, then @p body bytes
 * standing for the ciphertext and the 16-byte ICV (pattern bytes: uet-dump
 * cannot tell them from real ciphertext without the key). Returns the
 * frame length.
 */
static int
tss_frame(bool v6, const struct uet_wire_tss_hdr *t, size_t body, uint8_t *buf,
	  size_t cap)
{
	struct uet_wire_outer o = {
		.dst_mac = { 2, 0, 0, 0, 0, 2 }, .src_mac = { 2, 0, 0, 0, 0, 1 },
		.ttl = 64, .udp_sport = 0xC001, .udp_dport = UET_UDP_PORT,
		.entropy = 0xC001,
	};
	size_t th = uet_wire_tss_hdr_len(t->sp), i;
	int hl, n;

	o.ip_version = v6 ? 6 : 4;
	o.native = v6;
	o.ip_proto = v6 ? UET_NATIVE_IP_PROTO_DEFAULT : 17;
	o.src_addr[0] = o.dst_addr[0] = v6 ? 0x20 : 10;
	o.src_addr[v6 ? 15 : 3] = 1;
	o.dst_addr[v6 ? 15 : 3] = 2;
	o.inner_len = (uint16_t)(th + body);
	hl = uet_wire_outer_encode(&o, buf, cap);
	if (hl < 0 || (size_t)hl + o.inner_len > cap)
		return -1;
	n = uet_wire_tss_hdr_encode(t, buf + hl, cap - (size_t)hl);
	if (n < 0)
		return -1;
	for (i = 0; i < body; i++)
		buf[(size_t)hl + th + i] = (uint8_t)(0x5A ^ i);
	if (uet_wire_outer_udp_csum_fill(&o, buf, (size_t)hl + o.inner_len) < 0)
		return -1;
	return hl + (int)o.inner_len;
}

static int
write_tss(const char *path)
{
	const struct uet_wire_tss_hdr plain = {
		.an = 1, .sdi = 0x42, .epoch = 3, .tsc = 7,
	};
	const struct uet_wire_tss_hdr ssi = {
		.sp = true, .sdi = 0x123456, .ssi = 0x0A000001, .tsc = 1,
	};
	pcap_t *pd = pcap_open_dead(DLT_EN10MB, 65535);
	uint8_t frame[512];
	struct pcap_pkthdr h;
	pcap_dumper_t *dump;
	int len[4], i;

	if (pd == NULL)
		return -1;
	dump = pcap_dump_open(pd, path);
	if (dump == NULL) {
		fprintf(stderr, "gen_pcap: %s: %s\n", path, pcap_geterr(pd));
		pcap_close(pd);
		return -1;
	}
	for (i = 0; i < 4; i++) {
		/* frame 2 ends inside its ICV: not a protected packet */
		len[i] = tss_frame(i == 1, i == 1 ? &ssi : &plain,
				   i == 2 ? UET_TSS_ICV_LEN - 1 :
					    100 + UET_TSS_ICV_LEN,
				   frame, sizeof(frame));
		if (len[i] < 0)
			break;
		if (i == 3) /* reserved bit 25 of the TSS header */
			frame[42] |= 0x02;
		memset(&h, 0, sizeof(h));
		h.ts.tv_sec = TS_BASE_SEC;
		h.caplen = h.len = (bpf_u_int32)len[i];
		pcap_dump((u_char *)dump, &h, frame);
	}
	pcap_dump_close(dump);
	pcap_close(pd);
	return i == 4 ? 0 : -1;
}

/* Frames cut before uet-dump can tell whether they are UET. */
static int
write_cut(const char *path)
{
	static const unsigned int cut[] = { 0, 10, 30, 40, 40 };
	pcap_t *pd = pcap_open_dead(DLT_EN10MB, 65535);
	uint8_t frame[WFX_FRAME_MAX];
	struct pcap_pkthdr h;
	struct uet_wire_pkt spec;
	pcap_dumper_t *dump;
	int len = -1;

	if (pd == NULL)
		return -1;
	for (size_t i = 0; i < WFX_COUNT && len < 0; i++)
		if (!wfx_table[i].raw_ip && !wfx_table[i].not_uet &&
		    wfx_table[i].err == 0)
			len = wfx_frame(&wfx_table[i], &spec, frame,
					sizeof(frame));
	dump = len < 0 ? NULL : pcap_dump_open(pd, path);
	if (dump == NULL) {
		fprintf(stderr, "gen_pcap: %s: %s\n", path, pcap_geterr(pd));
		pcap_close(pd);
		return -1;
	}
	for (size_t i = 0; i < DIM(cut); i++) {
		memset(&h, 0, sizeof(h));
		h.ts.tv_sec = TS_BASE_SEC;
		h.caplen = cut[i];
		/* the last one: snap length, the wire frame was whole */
		h.len = i + 1 == DIM(cut) ? (bpf_u_int32)len : cut[i];
		pcap_dump((u_char *)dump, &h, frame);
	}
	pcap_dump_close(dump);
	pcap_close(pd);
	return 0;
}

static int
write_seeds(const char *dir)
{
	uint8_t frame[WFX_FRAME_MAX];
	struct uet_wire_pkt spec;
	char path[4096];
	size_t i;
	FILE *f;
	int len;

	for (i = 0; i < WFX_COUNT; i++) {
		len = wfx_frame(&wfx_table[i], &spec, frame, sizeof(frame));
		if (len < 0)
			return -1;
		snprintf(path, sizeof(path), "%s/%02zu_%s", dir, i,
			 wfx_table[i].name);
		f = fopen(path, "wb");
		if (f == NULL) {
			perror(path);
			return -1;
		}
		/* Raw-IP seeds lose nothing: the fuzzer parses both ways. */
		if (fwrite(frame, 1, (size_t)len, f) != (size_t)len) {
			fclose(f);
			return -1;
		}
		if (fclose(f) != 0)
			return -1;
	}
	return 0;
}

static void
list_fixtures(void)
{
	size_t i;

	for (i = 0; i < WFX_COUNT; i++) {
		const struct wfx *x = &wfx_table[i];

		printf("%s %s %s %s %s\n", x->name,
		       x->not_uet ? "not_uet" :
				    (x->err != 0 ? "malformed" : "ok"),
		       uet_wire_pkt_layer_name(x->layer),
		       x->err != 0 ? uet_wire_errname(x->err) : "-",
		       x->raw_ip ? "raw" : "eth");
	}
}

/* Read back with libpcap, as tcpdump and capinfos do. */
static int
first_time(const char *path)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *data;
	pcap_t *pd = pcap_open_offline(path, errbuf);
	int rc;

	if (pd == NULL) {
		fprintf(stderr, "gen_pcap: %s: %s\n", path, errbuf);
		return 1;
	}
	rc = pcap_next_ex(pd, &h, &data);
	if (rc == 1)
		printf("%lld.%06ld\n", (long long)h->ts.tv_sec,
		       (long)h->ts.tv_usec);
	else
		fprintf(stderr, "gen_pcap: %s: no first packet (%s)\n", path,
			rc == PCAP_ERROR ? pcap_geterr(pd) : "empty");
	pcap_close(pd);
	return rc == 1 ? 0 : 1;
}

int
main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "--list") == 0) {
		list_fixtures();
		return 0;
	}
	if (argc == 2 && argv[1][0] != '-')
		return write_pcap(argv[1], false) == 0 ? 0 : 1;
	if (argc == 3 && strcmp(argv[1], "--raw") == 0)
		return write_pcap(argv[2], true) == 0 ? 0 : 1;
	if (argc == 3 && strcmp(argv[1], "--seeds") == 0)
		return write_seeds(argv[2]) == 0 ? 0 : 1;
	if (argc == 3 && strcmp(argv[1], "--first-time") == 0)
		return first_time(argv[2]);
	if (argc == 3 && strcmp(argv[1], "--tss") == 0)
		return write_tss(argv[2]) == 0 ? 0 : 1;
	if (argc == 3 && strcmp(argv[1], "--cut") == 0)
		return write_cut(argv[2]) == 0 ? 0 : 1;
	fprintf(stderr, "usage: gen_pcap [--raw] FILE.pcap | --seeds DIR | "
		"--list | --first-time FILE | --cut FILE | --tss FILE\n");
	return 2;
}
