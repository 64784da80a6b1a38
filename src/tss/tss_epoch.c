/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Generations of a secure domain's key (UEC 1.0 section 3.7: the TSS
 * header's epoch field selects the key; docs/TSS.md, "Rotating a domain
 * key"). Two slots per domain, the newest key and the one before it.
 * A rotation makes the new key acceptable on RX at once and the key TX
 * seals with only after a delay, so that every host of the domain, each
 * reloading its key file within that delay, accepts the new epoch before
 * anyone sends it; the old key is refused one more delay later, when
 * nothing sealed under it can still be in flight. Sans-I/O: the caller
 * gives the time.
 */

#include <errno.h>
#include <string.h>

#include <uet/uet_tss.h>

int
uet_tss_epoch_of_key(const uint8_t key[UET_TSS_KEY_LEN], uint16_t *epoch)
{
	static const uint8_t none[1]; /* an empty context, not NULL */
	uint8_t out[2];
	int rc = uet_tss_kdf(key, UET_TSS_LABEL_EPOCH, none, 0, out,
			     sizeof(out));

	if (rc < 0)
		return rc;
	*epoch = (uint16_t)(out[0] << 8 | out[1]);
	return 0;
}

void
uet_tss_epochs_init(struct uet_tss_epochs *s, uint16_t epoch)
{
	memset(s, 0, sizeof(*s));
	s->epoch[0] = epoch;
	s->valid[0] = true;
}

int
uet_tss_epochs_rotate(struct uet_tss_epochs *s, uint16_t epoch,
		      uint64_t now, uint64_t delay_ns)
{
	unsigned int slot = s->cur ^ 1u;

	if (epoch == s->epoch[s->cur])
		return -EEXIST;
	/* the slot still holds an accepted key: its rotation is not over */
	if (s->valid[slot] && now < s->retire_ns)
		return -EBUSY;
	s->epoch[slot] = epoch;
	s->valid[slot] = true;
	s->cur = (uint8_t)slot;
	s->switch_ns = now + delay_ns;
	s->retire_ns = now + 2 * delay_ns;
	return (int)slot;
}

unsigned int
uet_tss_epochs_tx(const struct uet_tss_epochs *s, uint64_t now)
{
	unsigned int old = s->cur ^ 1u;

	return now < s->switch_ns && s->valid[old] ? old : s->cur;
}

int
uet_tss_epochs_rx(const struct uet_tss_epochs *s, uint16_t epoch,
		  uint64_t now)
{
	unsigned int old = s->cur ^ 1u;

	if (epoch == s->epoch[s->cur])
		return s->cur;
	if (s->valid[old] && epoch == s->epoch[old] && now < s->retire_ns)
		return (int)old;
	return -ENOKEY;
}
