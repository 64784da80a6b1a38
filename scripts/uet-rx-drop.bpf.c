/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tc ingress filter (cls_bpf, direct action) for an interface whose UET
 * traffic an af_packet socket takes: drops IPv4 UDP to port 4793 (UET,
 * include/wire/uet/uet_wire.h UET_UDP_PORT), passes everything else.
 *
 * Packet sockets (the ptype_all taps of __netif_receive_skb_core()) get
 * their copy of a frame before tc ingress runs, so net_af_packet still
 * receives every UET frame; what the filter saves is the rest of the
 * frame's way up the kernel: ip_rcv(), the route lookup for an address
 * the kernel does not own (the engine's FA), and the drop. On a veth
 * that work runs in the sender's softirq, on the sending CPU.
 *
 * The engine does not need it: without it the kernel drops the frames
 * itself, later. Build and attach (scripts/bench-kernel-ifaces.sh does):
 *   clang -O2 -target bpf -I/usr/include/$(gcc -print-multiarch) \
 *         -c scripts/uet-rx-drop.bpf.c -o uet-rx-drop.bpf.o
 *   tc qdisc add dev IFACE clsact
 *   tc filter add dev IFACE ingress bpf da obj uet-rx-drop.bpf.o sec tc
 */

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/pkt_cls.h>
#include <linux/udp.h>

#define UET_UDP_PORT_BE __builtin_bswap16(4793)
#define ETH_P_IP_BE __builtin_bswap16(ETH_P_IP)

/* the kernel helper (linux/bpf.h, enum bpf_func_id), declared as libbpf's
 * bpf_helper_defs.h does, without libbpf */
static long (*const skb_load_bytes)(const void *skb, __u32 off, void *to,
				    __u32 len) = (void *)BPF_FUNC_skb_load_bytes;

struct uet_rx_hdrs {
	struct ethhdr eth;
	struct iphdr ip;
	struct udphdr udp;
} __attribute__((packed));

__attribute__((section("tc"), used)) int
uet_rx_drop(struct __sk_buff *skb)
{
	struct uet_rx_hdrs h;

	/* copied, not read in place: a frame sent through a packet socket's
	 * TX ring arrives with only its Ethernet header in the linear part
	 * (tpacket_fill_skb() attaches the rest as page fragments), out of
	 * reach of direct packet access */
	if (skb_load_bytes(skb, 0, &h, sizeof(h)) < 0)
		return TC_ACT_OK;
	/* IPv4 without options: what the engine sends (uet_wire_outer.h) */
	if (h.eth.h_proto != ETH_P_IP_BE || h.ip.ihl != 5 ||
	    h.ip.protocol != IPPROTO_UDP)
		return TC_ACT_OK;
	return h.udp.dest == UET_UDP_PORT_BE ? TC_ACT_SHOT : TC_ACT_OK;
}

char uet_rx_drop_license[] __attribute__((section("license"), used)) = "Dual BSD/GPL";
