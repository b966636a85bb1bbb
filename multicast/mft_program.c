/* MFT programming, diff-only. */
#include "mft_program.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/mad.h>

#include "../core/log.h"

#define MFT_BLOCK 32                    /* MLIDs per MulticastForwardingTable block */
#define MFT_POS_PORTS 16                /* ports per position */

void mft_held_init(struct mft_held *h)
{
	memset(h, 0, sizeof(*h));
}

void mft_held_free(struct mft_held *h)
{
	free(h->guid);
	free(h->mask);
	memset(h, 0, sizeof(*h));
}

/* The 16-bit port mask of MLID (base + i) at position pos in a set. */
static uint16_t mask16(const uint8_t *mask, unsigned pos)
{
	return (uint16_t)(mask[pos * 2] | mask[pos * 2 + 1] << 8);
}

struct mp_ctx {
	const struct subnet *r;
	uint8_t *sw_failed;
	struct mftprog_stats *st;
};

static void on_set(void *ctx, uint64_t cookie, const uint8_t *req,
		   const uint8_t *resp)
{
	struct mp_ctx *c = ctx;
	uint32_t sw = (uint32_t)cookie;

	(void)req;
	if (!resp || smp_status(resp)) {
		const struct fab_node *n = &c->r->fab.nodes[c->r->fab.switches[sw]];

		if (!c->sw_failed[sw])
			log_warn("switch 0x%016llx \"%s\": MulticastForwardingTable Set %s",
				 (unsigned long long)n->guid, n->desc,
				 resp ? "refused" : "not answered");
		c->sw_failed[sw] = 1;
		c->st->failed++;
		return;
	}
	c->st->blocks_written++;
}

/* Row of held for a switch GUID, UINT32_MAX if none. */
static uint32_t held_row(const struct mft_held *h, uint64_t guid)
{
	for (uint32_t i = 0; i < h->num_switches; i++)
		if (h->guid[i] == guid)
			return i;
	return UINT32_MAX;
}

static const uint8_t *held_mask(const struct mft_held *h, uint32_t row,
				uint32_t mlid_off)
{
	static const uint8_t zero[MFT_MASK_BYTES];

	if (row == UINT32_MAX || mlid_off >= h->num_mlids)
		return zero;
	return h->mask[(size_t)row * h->num_mlids + mlid_off];
}

int mftprog_program(struct mad_transport *t, const struct subnet *r,
		    const struct mft_set *want, struct mft_held *held,
		    struct mftprog_stats *st)
{
	const struct fabric *f = &r->fab;
	uint32_t nm = want->num_mlids > held->num_mlids ? want->num_mlids : held->num_mlids;
	uint32_t nblocks = (nm + MFT_BLOCK - 1) / MFT_BLOCK;
	struct mp_ctx c = { .r = r, .st = st };
	struct mft_held next;
	size_t limit = (size_t)mt_window(t) * 8;
	int rc = 0;

	mft_held_init(&next);
	c.sw_failed = calloc(f->num_switches + 1, 1);
	next.guid = malloc((f->num_switches + 1) * sizeof(uint64_t));
	next.mask = calloc((size_t)f->num_switches * (nm ? nm : 1), MFT_MASK_BYTES);
	if (!c.sw_failed || !next.guid || !next.mask) {
		rc = -ENOMEM;
		goto out;
	}
	next.num_switches = f->num_switches;
	next.num_mlids = nm;
	for (uint32_t sw = 0; sw < f->num_switches && !rc; sw++) {
		uint32_t n = f->switches[sw];
		uint32_t row = held_row(held, f->nodes[n].guid);
		unsigned npos = (f->nodes[n].num_ports + 1 + MFT_POS_PORTS - 1) / MFT_POS_PORTS;

		next.guid[sw] = f->nodes[n].guid;
		for (uint32_t m = 0; m < want->num_mlids; m++)
			memcpy(next.mask[(size_t)sw * nm + m], mft_mask(want, sw, MCAST_MLID_BASE + m),
			       MFT_MASK_BYTES);
		for (uint32_t b = 0; b < nblocks && !rc; b++) {
			for (unsigned pos = 0; pos < npos && !rc; pos++) {
				uint8_t data[64] = { 0 };
				int differ = 0;

				for (unsigned i = 0; i < MFT_BLOCK; i++) {
					uint32_t off = b * MFT_BLOCK + i;
					uint16_t w = 0, h;

					if (off < nm) {
						w = mask16(next.mask[(size_t)sw * nm + off], pos);
						h = mask16(held_mask(held, row, off), pos);
						/* Unknown to us (never programmed by
						 * this SM): write what is wanted. */
						differ |= row == UINT32_MAX ? w != 0 || off < want->num_mlids : w != h;
					}
					data[i * 2] = (uint8_t)(w >> 8);
					data[i * 2 + 1] = (uint8_t)w;
				}
				if (!differ) {
					st->blocks_unchanged++;
					continue;
				}
				rc = mt_submit_dr(t, &r->node_path[n], IB_MAD_METHOD_SET,
						  IB_ATTR_MULTICASTFORWTBL,
						  (uint32_t)pos << 28 | b, data,
						  on_set, &c, sw);
				if (!rc)
					rc = mt_throttle(t, limit);
			}
		}
	}
	if (!rc)
		rc = mt_drain(t);
	/* Forget switches that did not take everything: next time every
	 * block of theirs is written. */
	for (uint32_t sw = 0; sw < f->num_switches; sw++)
		if (c.sw_failed[sw])
			next.guid[sw] = 0;
	if (!rc) {
		mft_held_free(held);
		*held = next;
		mft_held_init(&next);
	}
out:
	mft_held_free(&next);
	free(c.sw_failed);
	return rc;
}
