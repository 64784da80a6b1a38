/* SPDX-License-Identifier: BSD-3-Clause */
/* A cmocka check shared by the outer-header tests: two decoded outer
 * headers agree in every field an encode/decode round trip keeps. */
#ifndef WIRE_OUTER_ASSERT_H
#define WIRE_OUTER_ASSERT_H

#include <uet/uet_wire.h>

static inline void
assert_outer_equal(const struct uet_wire_outer *a,
		   const struct uet_wire_outer *b)
{
	assert_int_equal(a->raw_ip, b->raw_ip);
	assert_memory_equal(a->dst_mac, b->dst_mac, UET_ETH_ALEN);
	assert_memory_equal(a->src_mac, b->src_mac, UET_ETH_ALEN);
	assert_int_equal(a->has_vlan, b->has_vlan);
	assert_int_equal(a->vlan_tci, b->vlan_tci);
	assert_int_equal(a->ethertype, b->ethertype);
	assert_int_equal(a->ip_version, b->ip_version);
	assert_int_equal(a->dscp, b->dscp);
	assert_int_equal(a->ecn, b->ecn);
	assert_int_equal(a->ttl, b->ttl);
	assert_int_equal(a->ipv4_id, b->ipv4_id);
	assert_int_equal(a->ipv4_df, b->ipv4_df);
	assert_int_equal(a->ipv6_flow, b->ipv6_flow);
	assert_int_equal(a->ip_proto, b->ip_proto);
	assert_memory_equal(a->src_addr, b->src_addr, 16);
	assert_memory_equal(a->dst_addr, b->dst_addr, 16);
	assert_int_equal(a->native, b->native);
	assert_int_equal(a->udp_sport, b->udp_sport);
	assert_int_equal(a->udp_dport, b->udp_dport);
	assert_int_equal(a->entropy, b->entropy);
	assert_int_equal(a->inner_len, b->inner_len);
}

#endif
