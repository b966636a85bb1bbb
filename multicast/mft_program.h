/* Programming multicast forwarding tables (IBA 14.2.5.12): SubnSet
 * (MulticastForwardingTable), one MAD per 32 MLIDs x 16 ports, sending only
 * the blocks that differ from what the SM last programmed into that switch
 * (held by switch GUID, so it survives re-sweeps). */
#ifndef IBSM_MULTICAST_MFT_PROGRAM_H
#define IBSM_MULTICAST_MFT_PROGRAM_H

#include <stdint.h>
#include "../core/subnet.h"
#include "../mad/mad_transport.h"
#include "mcast_tree.h"

/* What the switches hold, as far as the SM knows: masks by switch GUID. */
struct mft_held {
	uint64_t *guid;                 /* switch GUIDs, in row order */
	uint8_t (*mask)[MFT_MASK_BYTES];
	uint32_t num_switches, num_mlids;
};

struct mftprog_stats {
	uint64_t blocks_written;
	uint64_t blocks_unchanged;
	uint32_t failed;                /* MADs refused or unanswered */
};

void mft_held_init(struct mft_held *h);
void mft_held_free(struct mft_held *h);
/* Program want (switch ordinals of r->fab). Switches whose every block
 * was taken become held; a switch with a failure is forgotten (all its
 * blocks are written next time). Returns 0 or a negative errno. */
int mftprog_program(struct mad_transport *t, const struct subnet *r,
		    const struct mft_set *want, struct mft_held *held,
		    struct mftprog_stats *st);

#endif
