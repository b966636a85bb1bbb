/* Nodes the SM left out because they never answer (issue 24): a CA whose
 * link is up but whose SMA hangs, so the NodeInfo probe out of the switch
 * port facing it, or its PortInfo, is lost in every sweep for
 * `missing_grace` s (sm/health/sweep_guard.h). The rest of the fabric is routed
 * and programmed; these are logged, exported (/metrics, ibsmctl status)
 * and swept for again, and their LIDs stay reserved in guid2lid
 * (core/lid_assign.c keeps the range of every port not seen).
 *
 * A node half discovered (NodeInfo answered, PortInfo of its port not)
 * cannot be given a LID or set ACTIVE: its link is cut from the view, so
 * it is not routed and the switch port facing it is left as it is, never
 * armed. OpenSM 3.3.23 does the same (measured under ibsim: its drop
 * manager removes the port, the switch port stays INIT; likewise for a
 * node that never answers NodeInfo); IBA 14.2.5.6 makes the SM set a
 * port's LID before it arms it. */
#ifndef IBSM_SM_UNREACHABLE_H
#define IBSM_SM_UNREACHABLE_H

#include <stdint.h>
#include "../../core/subnet.h"
#include "sweep_guard.h"

struct unreach_entry {
	/* where: the switch (or node) and port the request concerned */
	uint64_t at_guid;
	uint8_t at_port;
	uint16_t attr;              /* NodeInfo: nothing answers behind the port */
	struct smp_path path;
	char at_desc[65];
	/* what: the silent node, when known (it answered NodeInfo, or a
	 * programmed view had it at that port); 0 when never seen */
	uint64_t guid;
	char desc[65];
	double since;               /* lost in every sweep since */
};

struct unreach {
	struct unreach_entry *e;
	uint32_t n, cap;
};

void unreach_init(struct unreach *u);
void unreach_free(struct unreach *u);

/* A view the guard lets be programmed without its silent nodes (verdict
 * SWEEP_PROGRAM_UNREACHABLE): cut the links of ports whose PortInfo never
 * answered, name every silent node (prev: the last programmed view, for
 * nodes seen before), log the ones new since the last call. Returns the
 * number of entries (>= 0) or -ENOMEM. */
int unreach_update(struct unreach *u, struct subnet *r,
		   const struct subnet *prev, const struct sweep_guard *g);
/* A complete view r: log every entry that answers again (named as r
 * sees it now), forget them. */
void unreach_clear(struct unreach *u, const struct subnet *r);

#endif
