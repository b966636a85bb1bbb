/* Links held out of routing: a small set of (node GUID, port) ends, each
 * with why and since when. The route phase gives the engines a copy of
 * the fabric without these links (link_hold_apply), so tables route
 * around them while the links stay up (for diagnosis, or until a flapping
 * link calms down). Users: the noisy-link policy (perfmgr), flap damping.
 * A link is named by either of its ends; a held end that is not linked
 * (any more) holds nothing. */
#ifndef IBSM_SM_LINK_HOLD_H
#define IBSM_SM_LINK_HOLD_H

#include <stdint.h>
#include "../../core/fabric.h"

struct link_hold_entry {
	uint64_t guid;              /* node GUID of one end */
	uint8_t port;               /* its port number */
	char reason[128];
	double since;               /* monotonic seconds */
};

struct link_hold {
	struct link_hold_entry *e;
	uint32_t n, cap;
};

void link_hold_init(struct link_hold *h);
void link_hold_free(struct link_hold *h);
/* 1 added, 0 already held (reason kept), -ENOMEM. */
int link_hold_add(struct link_hold *h, uint64_t guid, uint8_t port,
		  const char *reason, double now);
/* 1 removed, 0 not held. */
int link_hold_remove(struct link_hold *h, uint64_t guid, uint8_t port);
/* The entry holding this end, NULL if none. */
const struct link_hold_entry *link_hold_contains(const struct link_hold *h,
						 uint64_t guid, uint8_t port);
/* Unlink every held link in f (a copy the engines route on), except a
 * link whose removal would split the fabric (a host's only cable, the
 * last link between two parts): that one is kept and logged. Returns how
 * many links were removed. */
uint32_t link_hold_apply(const struct link_hold *h, struct fabric *f);
/* Whether taking link end (guid, port) out of f would cut part of the
 * fabric off (a host, a leaf, the SM's own port) once every link of the
 * nsets sets (the held and the disabled ones) is out too: judged on the
 * fabric as it will be, not on f less the one link (issue 26: four
 * up-links of a leaf disabled one by one were each accepted). 1 it
 * would, 0 it would not (or the end is not linked), -ENOMEM. */
int link_hold_would_split(const struct fabric *f,
			  const struct link_hold *const *sets, unsigned nsets,
			  uint64_t guid, uint8_t port);

#endif
