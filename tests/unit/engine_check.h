/* Checks of routing engines' tables (reachability, minimality, credit
 * loops) and fabric set-up, shared by test_engines.c and
 * test_engine_props.c; linked into every unit test (tests/unit/X.c that
 * are not test_*.c are). */
#ifndef IBSM_TESTS_UNIT_ENGINE_CHECK_H
#define IBSM_TESTS_UNIT_ENGINE_CHECK_H

#include <stdint.h>

#include "core/fabric.h"
#include "routing/lft.h"

struct lid_dest {
	uint32_t *sw;           /* per LID: switch ordinal it hangs off / is */
	uint32_t *port;         /* per LID: owning fabric port index */
	uint32_t max_lid;
};

/* Per LID of F: the switch it is on or hangs off, and its port; freed by
 * lid_dest_free. */
void lid_dest_build(const struct fabric *f, struct lid_dest *ld);
void lid_dest_free(struct lid_dest *ld);

/* Follow the tables from switch ordinal s towards lid. Returns switch hops
 * (>= 0) on arrival, -1 on a missing/bad entry, -2 on a loop. chans (may
 * be NULL) gets the switch-to-switch egress port indices in order. */
int ec_walk(const struct fabric *f, const struct lft_set *t,
	 const struct lid_dest *ld, uint32_t s, uint32_t lid,
	 uint32_t *chans);

/* Every switch reaches every LID of its connected component. Returns the
 * number of (switch, LID) pairs that fail. dist (nsw x nsw, optional):
 * when given, also counts paths longer than the minimum into *long_paths. */
uint32_t ec_check_reach(const struct fabric *f, const struct lft_set *t,
		     const uint32_t *dist, uint32_t *long_paths);

/* All-pairs switch hop counts by BFS. */
uint32_t *ec_switch_dists(const struct fabric *f);

/* Channel dependency graph (Dally & Seitz) over switch-to-switch channels
 * of the routes from every CA (i.e. from every switch with CAs cabled to
 * it) to every LID, switch LIDs included: 1 if it has a cycle. Traffic a
 * switch originates itself (management) is not part of it. */
int ec_credit_loop(const struct fabric *f, const struct lft_set *t,
		int ca_dests_only);

/* ec_credit_loop over the routes to every LID. */
int ec_has_credit_loop(const struct fabric *f, const struct lft_set *t);

/* LIDs for F with LMC (lid_assign), asserted. */
void ec_assign(struct fabric *f, uint8_t lmc);

/* ENGINE (by name) routes F into T with LMC, asserted: tables for every
 * switch, covering every LID. */
void ec_route_ok(const char *engine, const struct fabric *f,
	      struct lft_set *t, uint8_t lmc);

#endif
