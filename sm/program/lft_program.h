/* Programming linear forwarding tables (IBA 14.2.5.10): SwitchInfo
 * LinearFDBTop, then the 64-entry LinearForwardingTable blocks, sending
 * only the blocks that differ from what each switch holds. What a switch
 * holds is known from the last programming of this process (when the
 * switch still reports the LinearFDBTop we set), or else read back from the
 * switch up to its LinearFDBTop; blocks above it are unknown and written. */
#ifndef IBSM_SM_LFT_PROGRAM_H
#define IBSM_SM_LFT_PROGRAM_H

#include <stdint.h>
#include "../../core/subnet.h"
#include "../../routing/engine.h"
#include "../../routing/lft.h"
#include "../../mad/mad_transport.h"

/* What the SM believes the switches hold: tables and the fabric they were
 * programmed on (switches matched by GUID), and the memo of the route that
 * built them (engine.h; empty for tables read from the switches), which
 * the next route's repair of them takes instead of scanning them. */
struct lft_held {
	struct fabric fab;
	struct lft_set lft;
	struct route_memo memo;
	uint8_t *ok;                /* per switch ordinal of fab: all in */
	int valid;
};

struct lftprog_stats {
	uint64_t blocks_written;
	uint64_t blocks_unchanged;
	uint64_t blocks_read;
	uint32_t swinfo_sets;
	uint32_t life_time_sets;    /* of them, changing LifeTimeValue */
	uint32_t failed;            /* MADs refused or unanswered */
	uint32_t switches_failed;
};

void lft_held_init(struct lft_held *h);
void lft_held_free(struct lft_held *h);
/* Replace h with (a copy of) fabric f, tables t, their memo (may be NULL;
 * moved in, left empty) and per-switch ok flags. t's memory moves into h (t is left empty; no copy of hundreds of MB at
 * 65,536 CAs); the tables h held go to *spare when it is empty (NULL or
 * full: they are freed; a full spare loses its copy_of and any copy under
 * way, its tables being no longer held). 0 or -ENOMEM (h and t unchanged). */
int lft_held_take(struct lft_held *h, const struct fabric *f,
		  struct lft_set *t, struct route_memo *memo, const uint8_t *sw_ok,
		  struct lft_set *spare);

/* Program `want` (tables for r->fab) into the switches. sw_ok (one per
 * switch ordinal of r->fab) says which switches took everything.
 * life_time >= 0: SwitchInfo.LifeTimeValue too (packet_life_time), in the
 * same Set, only where the switch holds another value. */
int lftprog_program(struct mad_transport *t, const struct subnet *r,
		    const struct lft_set *want, struct lft_held *held,
		    uint8_t *sw_ok, int life_time, struct lftprog_stats *st);

/* Read the tables the switches hold now (every block up to each switch's
 * LinearFDBTop; unread entries stay LFT_NO_PATH) into out, allocated for
 * r->fab. For a takeover: keep what a previous master programmed when it
 * verifies. 0 or a negative errno. */
int lftprog_read(struct mad_transport *t, const struct subnet *r,
		 struct lft_set *out, struct lftprog_stats *st);

#endif
