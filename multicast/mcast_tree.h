/* Multicast forwarding (IBA 14.2.5.12, 18.2.4.3): one spanning tree per
 * group over the switches, and from it the port mask every switch gets for
 * the group's MLID. A switch replicates a packet to every port in the mask
 * but the one it arrived by, so a tree (no cycle) that touches every
 * member's switch delivers from any member to all the others, once.
 *
 *   root   the switch nearest to all member switches (smallest eccentricity
 *          over them), ties rotated by MLID so that groups spread over the
 *          spines and cores of a fat-tree;
 *   tree   shortest paths from the root to each member switch (BFS);
 *   masks  tree links at each tree switch, plus the CA ports of members
 *          that receive (full and non members; send-only members only
 *          send, IBA 15.4.3.2). */
#ifndef IBSM_MULTICAST_MCAST_TREE_H
#define IBSM_MULTICAST_MCAST_TREE_H

#include <stdint.h>
#include "../core/fabric.h"
#include "mcast_db.h"

#define MFT_MASK_BYTES 32               /* ports 0..255 */

/* mask(sw, mlid) for MLIDs MCAST_MLID_BASE .. + num_mlids - 1. */
struct mft_set {
	uint32_t num_switches, num_mlids;
	uint8_t (*mask)[MFT_MASK_BYTES];
};

static inline uint8_t *mft_mask(const struct mft_set *m, uint32_t sw,
				uint32_t mlid)
{
	return m->mask[(size_t)sw * m->num_mlids + (mlid - MCAST_MLID_BASE)];
}

static inline int mft_has_port(const uint8_t *mask, unsigned port)
{
	return mask[port / 8] >> (port % 8) & 1;
}

void mft_free(struct mft_set *m);
/* Masks for every group of db on fabric f (switch ordinals of f). Member
 * ports not in f, or not linked to a switch, are skipped. Returns 0 or
 * -ENOMEM. */
int mcast_compute_mfts(const struct fabric *f, const struct mcast_db *db,
		       struct mft_set *out);

#endif
