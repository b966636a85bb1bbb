/* Whether a heavy sweep's view may be programmed (issue: a sweep that lost
 * answers, or saw only the SM's own HCA, used to reprogram the fabric from
 * what it saw, removing routes to live nodes).
 *
 *   verdict for a new view, against the last view that was programmed:
 *     own port unlinked, or no switch where there were switches -> HOLD_NO_FABRIC
 *     answers lost even after retries                         -> HOLD_INCOMPLETE
 *     fewer switches or CAs, no trap since, missing < grace   -> HOLD_SMALLER
 *     otherwise                                               -> PROGRAM
 *
 * Holding keeps the switches and LIDs as they are and sweeps again after a
 * backoff (0.2 s doubling to 5 s). A smaller view is taken on positive
 * evidence only: a trap that reports a port or GID change, or the same
 * part missing for `missing_grace` seconds of sweeps (time, not a count of
 * sweeps, which can come 0.2 s apart). OpenSM likewise never configures
 * from a sweep with discovery errors. */
#ifndef IBSM_SM_SWEEP_GUARD_H
#define IBSM_SM_SWEEP_GUARD_H

#include <stddef.h>
#include <stdint.h>
#include "../discovery/sweep.h"

enum sweep_verdict {
	SWEEP_PROGRAM = 0,
	SWEEP_HOLD_NO_FABRIC,
	SWEEP_HOLD_INCOMPLETE,
	SWEEP_HOLD_SMALLER,
};

struct sweep_guard {
	int have_good;
	uint32_t good_switches, good_cas;   /* the last programmed view */
	int trap_seen;              /* a topology trap since then */
	double missing_since;       /* first view smaller than it, 0 = none */
	double grace_s;             /* missing_grace */
	unsigned held;              /* sweeps held in a row */
};

void sweep_guard_init(struct sweep_guard *g, double grace_s);
/* Judge view r at time now; why (len bytes) says what was held and why. */
enum sweep_verdict sweep_guard_judge(struct sweep_guard *g,
				     const struct sweep_result *r, double now,
				     char *why, size_t len);
/* View r was programmed: it is the new reference. */
void sweep_guard_programmed(struct sweep_guard *g, const struct sweep_result *r);
/* A trap said a port or GID changed (128, 64, 65, 144). */
void sweep_guard_trap(struct sweep_guard *g);
/* Seconds to wait before the next heavy sweep after a hold. */
double sweep_guard_backoff(const struct sweep_guard *g);

#endif
