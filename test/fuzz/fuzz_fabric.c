/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target for the fabric model: the input is one frame, which
 * three hosts of a small fabric send twenty times each towards whatever
 * its destination address is, over a fabric whose BDP is 500 bytes so
 * that marking, trimming and dropping all happen, with a link failure in
 * the middle. Checks: nothing crashes, every frame taken is delivered or
 * counted as a drop, no frame buffer leaks, and every delivered frame
 * still has a valid IP header (the rewrites fixed its checksum and
 * lengths). A violation aborts so the fuzzer keeps the input.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uet/uet_fabric.h>
#include <uet/uet_wire.h>

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);

#define MTU 4096

static void
fail(const char *what)
{
	fprintf(stderr, "fuzz_fabric: %s\n", what);
	abort();
}

static void
deliver(void *arg, uint32_t host, const uint8_t *frame, uint32_t len,
	uint64_t now)
{
	const bool *raw_ip = arg;
	struct uet_wire_outer o;
	int off = 0, rc;

	(void)host;
	(void)now;
	if (len == 0 || len > MTU)
		fail("delivered length out of range");
	memset(&o, 0, sizeof(o));
	if (!*raw_ip) {
		off = uet_wire_outer_eth_decode(frame, len, &o);
		if (off < 0)
			fail("delivered frame lost its Ethernet header");
	}
	rc = uet_wire_outer_ip_decode(frame + off, len - (size_t)off, 0, &o);
	if (rc < 0 && rc != -UET_WIRE_E_NOT_UET)
		fail("delivered frame has a broken IP header");
}

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	static const uint32_t senders[3] = { 0, 2, 3 };
	struct uet_fabric_config c;
	struct uet_fabric_stats st;
	struct uet_fabric *fab;
	uint64_t taken = 0, t;
	bool raw_ip;
	uint32_t i, k;
	int rc;

	if (n == 0 || n > MTU)
		return 0;
	raw_ip = (d[0] >> 4) == 4 || (d[0] >> 4) == 6;
	uet_fabric_config_default(&c);
	c.hosts = 4;
	c.hosts_per_leaf = 2;
	c.spines = 2;
	/* 1 Gb/s and a 4 us base RTT: a BDP of 500 bytes, so a few frames
	 * queued reach the marking, trimming and drop thresholds */
	c.link_rate_bps = 1000000000;
	c.base_rtt_ns = 4000;
	c.mtu = MTU;
	c.frame_pool = 48;
	c.trimming = (n & 1) == 0;
	c.raw_ip = raw_ip;
	c.failover = (n & 2) != 0;
	c.loss_ppm = 10000;
	c.deliver = deliver;
	c.deliver_arg = &raw_ip;
	fab = uet_fabric_create(&c, NULL);
	if (fab == NULL)
		fail("create");
	if (uet_fabric_link_schedule(fab, d[n - 1] % uet_fabric_links(fab),
				     500, UET_FABRIC_LINK_FAIL, 0) < 0 ||
	    uet_fabric_link_schedule(fab, d[n - 1] % uet_fabric_links(fab),
				     1500, UET_FABRIC_LINK_RESTORE, 0) < 0)
		fail("schedule");
	for (i = 0; i < 20; i++) {
		for (k = 0; k < 3; k++) {
			rc = uet_fabric_inject(fab, senders[k], d, (uint32_t)n,
					       i * 100);
			if (rc == 0)
				taken++;
			else if (rc != -ENOBUFS)
				fail("inject refused a valid call");
		}
		uet_fabric_advance(fab, i * 100);
	}
	while ((t = uet_fabric_next_event_time(fab)) != UINT64_MAX)
		uet_fabric_advance(fab, t);
	uet_fabric_stats_get(fab, &st);
	if (st.frames_in_use != 0)
		fail("frame buffers leaked");
	if (st.delivered + st.drops != taken)
		fail("a frame was neither delivered nor counted as dropped");
	uet_fabric_free(fab);
	return 0;
}
