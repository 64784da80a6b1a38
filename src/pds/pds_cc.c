/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fixed-window congestion gate: the reference implementation of
 * struct uet_pds_cc_ops until NSCC and RCCC (UEC 1.0 NSCC, RCCC) plug in.
 * send while inflight + bytes <= cwnd; signals are ignored.
 */

#include "pds_private.h"

struct pds_cc_fixed {
	uint32_t cwnd;
};

_Static_assert(sizeof(struct pds_cc_fixed) <= UET_PDS_CC_PRIV_MAX,
	       "CC private state fits the PDC");

static void
pds_cc_fixed_init(void *priv, uint32_t mtu, uint32_t param)
{
	struct pds_cc_fixed *f = priv;

	f->cwnd = param > mtu ? param : mtu;
}

static bool
pds_cc_fixed_may_send(const void *priv, uint32_t bytes, uint32_t inflight)
{
	const struct pds_cc_fixed *f = priv;

	return (uint64_t)inflight + bytes <= f->cwnd;
}

static void
pds_cc_fixed_on_send(void *priv, uint32_t bytes, bool retx, uint64_t now)
{
	(void)priv;
	(void)bytes;
	(void)retx;
	(void)now;
}

static void
pds_cc_fixed_on_ack(void *priv, uint32_t bytes, uint64_t rtt_ns, bool ecn,
		    uint64_t now)
{
	(void)priv;
	(void)bytes;
	(void)rtt_ns;
	(void)ecn;
	(void)now;
}

static void
pds_cc_fixed_on_nack(void *priv, uint32_t bytes, uint8_t code, uint64_t now)
{
	(void)priv;
	(void)bytes;
	(void)code;
	(void)now;
}

static void
pds_cc_fixed_on_trim(void *priv, uint32_t bytes, bool lasthop, uint64_t now)
{
	(void)priv;
	(void)bytes;
	(void)lasthop;
	(void)now;
}

static void
pds_cc_fixed_on_rto(void *priv, uint64_t now)
{
	(void)priv;
	(void)now;
}

static uint32_t
pds_cc_fixed_cwnd(const void *priv)
{
	const struct pds_cc_fixed *f = priv;

	return f->cwnd;
}

const struct uet_pds_cc_ops uet_pds_cc_fixed = {
	.name = "fixed",
	.init = pds_cc_fixed_init,
	.may_send = pds_cc_fixed_may_send,
	.on_send = pds_cc_fixed_on_send,
	.on_ack = pds_cc_fixed_on_ack,
	.on_nack = pds_cc_fixed_on_nack,
	.on_trim = pds_cc_fixed_on_trim,
	.on_rto = pds_cc_fixed_on_rto,
	.cwnd = pds_cc_fixed_cwnd,
};
