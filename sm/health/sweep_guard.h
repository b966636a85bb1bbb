/* Whether a heavy sweep's view may be programmed (issue: a sweep that lost
 * answers, or saw only the SM's own HCA, used to reprogram the fabric from
 * what it saw, removing routes to live nodes; issue 24: one CA whose SMA
 * never answers held every view, so nothing was ever programmed).
 *
 *   verdict for a new view, against the last view that was programmed:
 *     own port unlinked, or no switch where there were switches -> HOLD_NO_FABRIC
 *     answers lost even after retries, and one of them not lost
 *       in every sweep for `missing_grace` s (a loss burst)      -> HOLD_INCOMPLETE
 *     every lost answer lost in every sweep for the grace (silent
 *       nodes), more of them than the bound and a view programmed -> HOLD_INCOMPLETE
 *     fewer switches or CAs, no trap since, missing < grace      -> HOLD_SMALLER
 *     silent nodes within the bound (or nothing programmed yet)  -> PROGRAM_UNREACHABLE
 *     otherwise                                                  -> PROGRAM
 *
 * Holding keeps the switches and LIDs as they are and sweeps again after a
 * backoff (0.2 s doubling to 5 s). A smaller view is taken on positive
 * evidence only: a trap that reports a port or GID change, or the same
 * part missing for `missing_grace` seconds of sweeps (time, not a count of
 * sweeps, which can come 0.2 s apart). OpenSM likewise never configures
 * from a sweep with discovery errors.
 *
 * Loss and a broken node look alike in one sweep; over time they do not.
 * A burst loses different answers in each sweep (the sweep asks each
 * failed request again in rounds, so what stays lost is chance); a node
 * whose SMA hangs loses the same request every time: the NodeInfo probe
 * out of the switch port facing it, or the attribute it never answers.
 * Each lost request is kept by its key (node GUID, port, attribute); one
 * that was answered, or not asked, in a sweep starts over. Only when
 * every lost request has been lost in every sweep for `missing_grace` s
 * is the view programmed without those nodes (PROGRAM_UNREACHABLE); the
 * caller leaves them out, keeps their LIDs reserved and sweeps again now
 * and then to pick them up. A view smaller by no more nodes than there
 * are silent requests is not held a second grace for it (each was silent
 * the whole grace); a view smaller by more is held as any smaller view.
 * With a programmed view at stake, at most
 * max(SWEEP_SILENT_MIN, SWEEP_SILENT_SHARE of the nodes seen) silent
 * requests are left out: many nodes silent at once for the whole grace is
 * more likely the SM's own problem (an M_Key it no longer has, a broken
 * path near it) than many hung hosts, and the tables programmed still
 * route their traffic. At a cold start nothing is programmed, so there
 * is nothing to protect: the rest is programmed whatever their number. */
#ifndef IBSM_SM_SWEEP_GUARD_H
#define IBSM_SM_SWEEP_GUARD_H

#include <stddef.h>
#include <stdint.h>
#include "../../core/subnet.h"

enum sweep_verdict {
	SWEEP_PROGRAM = 0,
	SWEEP_HOLD_NO_FABRIC,
	SWEEP_HOLD_INCOMPLETE,
	SWEEP_HOLD_SMALLER,
	SWEEP_PROGRAM_UNREACHABLE,  /* program, leaving silent nodes out */
};

/* Silent requests tracked; more lost at once is loss, not silence. */
#define SWEEP_SILENT_TRACK 256
#define SWEEP_SILENT_MIN 4
#define SWEEP_SILENT_SHARE 0.02

struct sweep_silent {
	uint64_t guid;              /* sweep_lost's key */
	uint16_t attr;
	uint8_t port;
	double since;               /* lost in every sweep since */
};

struct sweep_guard {
	int have_good;
	uint32_t good_switches, good_cas;   /* the last programmed view */
	int trap_seen;              /* a topology trap since then */
	double missing_since;       /* first view smaller than it, 0 = none */
	double grace_s;             /* missing_grace */
	unsigned held;              /* sweeps held in a row */
	struct sweep_silent silent[SWEEP_SILENT_TRACK];
	uint32_t num_silent;        /* lost in the last sweep judged */
	uint32_t silent_ripe;       /* of them, lost for the whole grace */
	uint32_t silent_again;      /* of them, lost in the sweep before too */
};

void sweep_guard_init(struct sweep_guard *g, double grace_s);
/* Judge view r at time now; why (len bytes) says what was held and why. */
enum sweep_verdict sweep_guard_judge(struct sweep_guard *g,
				     const struct subnet *r, double now,
				     char *why, size_t len);
/* The entry for r's lost request l after sweep_guard_judge, or NULL. */
const struct sweep_silent *sweep_guard_silent(const struct sweep_guard *g,
					      const struct sweep_lost *l);
/* View r was programmed: it is the new reference. */
void sweep_guard_programmed(struct sweep_guard *g, const struct subnet *r);
/* A trap said a port or GID changed (128, 64, 65, 144). */
void sweep_guard_trap(struct sweep_guard *g);
/* Seconds to wait before the next heavy sweep after a hold. */
double sweep_guard_backoff(const struct sweep_guard *g);

#endif
