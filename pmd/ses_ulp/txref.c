/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Zero-copy transmit of the SES (port.tx_zero_copy): a large payload of an
 * initiator message goes to the port by reference (uet_ses_build_ref()),
 * attached to its frame by the hook (pmd/proto/proto_tx.c). One
 * rte_mbuf_ext_shared_info per SES message slot counts the frames that
 * reference the slot's buffer, plus one reference of our own so that the
 * count never reaches zero and the shared info is never handed to its
 * free callback: the count minus one is what the port still holds. The
 * SES asks it before completing a message (uet_ses_config.tx_busy): the
 * buffer goes back to the application only once no frame holds it.
 */

#include <inttypes.h>

#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "ses_ulp_private.h"

/* Never called: our own reference keeps every count above zero. */
static void
txref_free_cb(void *addr, void *opaque)
{
	(void)addr;
	(void)opaque;
}

int
ses_ulp_txref_init(struct ses_ulp_ctx *c, uint32_t msgs)
{
	c->txref = rte_zmalloc("ses_ulp_txref", msgs * sizeof(*c->txref),
			       RTE_CACHE_LINE_SIZE);
	if (c->txref == NULL)
		return -ENOMEM;
	c->nb_txref = msgs;
	for (uint32_t i = 0; i < msgs; i++) {
		c->txref[i].free_cb = txref_free_cb;
		c->txref[i].fcb_opaque = c;
		rte_mbuf_ext_refcnt_set(&c->txref[i], 1);
	}
	return 0;
}

/* Frames sent by reference that a port holds now (a scan: statistics
 * and close only). */
uint64_t
ses_ulp_txref_held(const struct ses_ulp_ctx *c)
{
	uint64_t held = 0;

	for (uint32_t i = 0; c->txref != NULL && i < c->nb_txref; i++)
		held += rte_mbuf_ext_refcnt_read(&c->txref[i]) - 1u;
	return held;
}

/* Frames of ours still held somewhere (a ring nobody reads any more)
 * point at the counts: those stay allocated rather than be written after
 * they are freed. */
void
ses_ulp_txref_fini(struct ses_ulp_ctx *c)
{
	uint64_t held = ses_ulp_txref_held(c);

	if (held != 0) {
		rte_log(RTE_LOG_WARNING, uet_engine_logtype, "uet.ses_ulp: "
			"%" PRIu64 " frames sent by reference are still held "
			"by a port at close: their counts stay allocated\n",
			held);
		return;
	}
	rte_free(c->txref);
}

bool
ses_ulp_tx_busy(void *arg, uint32_t msg)
{
	const struct ses_ulp_ctx *c = arg;

	if (msg >= c->nb_txref || rte_mbuf_ext_refcnt_read(&c->txref[msg]) > 1)
		return msg < c->nb_txref;
	/* the last reader (another lcore's ring receiver) let go with a
	 * release; its reads of the buffer happen before it is reused */
	rte_atomic_thread_fence(__ATOMIC_ACQUIRE);
	return false;
}

int
ses_ulp_build_ref(void *priv, uint64_t cookie, uint32_t psn, bool is_retx,
		  uint8_t *buf, size_t cap, uint32_t min_ref,
		  struct uet_ulp_ref *ref)
{
	struct ses_ulp_ctx *c = priv;
	uint32_t msg = 0;
	int n;

	(void)psn;
	(void)is_retx;
	n = uet_ses_build_ref(c->ses, cookie, buf, cap, min_ref, &ref->addr,
			      &ref->len, &msg);
	if (n >= 0 && ref->len != 0) {
		if (msg >= c->nb_txref)
			return -EINVAL;
		ref->shinfo = &c->txref[msg];
	}
	return n;
}
