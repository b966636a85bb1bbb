/* Trap damping: how long the heavy sweep a topology trap (128, 144, 64,
 * 65) asks for waits after the last heavy sweep ended.
 *
 * A trap 128 names only the switch that saw a port change (IBA 14.2.5.1,
 * the issuer LID), not the port, so the damping is per issuer:
 *
 *   trap from issuer I at t                         delay becomes
 *   no trap from anyone in the last STORM s         0 (sweep at once)
 *   I's last report began < BURST s ago             unchanged (same report)
 *   I reported within the last STORM s (a repeat)   0.2 s, doubling, <= max
 *   otherwise (I's first report of a while)         unchanged
 *
 * A flapping cable makes the switches at its ends report again and again:
 * a storm, whose sweeps are spaced up to flap_max_delay, so a storm of any
 * length costs a bounded number of sweeps. A lost switch is one event:
 * each neighbour reports once (one trap per port it lost, within the same
 * millisecond -- a BURST), and the re-route runs at once, as for a lost
 * link. BURST is far below a real link's retrain time (hundreds of ms), so
 * a port that goes down and up again is always a new report.
 *
 * Pure bookkeeping, no MADs, no clock: the caller passes `now`. Memory:
 * the issuers that reported in the last STORM s. */
#ifndef IBSM_SM_TRAP_DAMP_H
#define IBSM_SM_TRAP_DAMP_H

#include <stdint.h>

#define TRAP_DAMP_STORM 1.0         /* s: a report this soon after the last is a repeat */
#define TRAP_DAMP_BURST 0.01        /* s: one issuer's traps within this are one report */
#define TRAP_DAMP_FIRST 0.2         /* s: the first spacing of a storm */

struct trap_src {
	uint16_t lid;               /* issuer */
	double report;              /* when its last report began */
	double last;                /* its last trap */
};

struct trap_damp {
	struct trap_src *src;       /* issuers heard in the last STORM s */
	uint32_t n, cap;
	double last_trap;           /* monotonic s of the last trap, 0 none */
	double delay;               /* the storm's spacing now, s */
};

void trap_damp_init(struct trap_damp *d);
void trap_damp_free(struct trap_damp *d);
/* A trap from LID `issuer` at `now`: the delay (s) after the end of the
 * last heavy sweep at which the sweep it asks for should run, at most
 * max_delay. Out of memory, a new issuer is counted as a repeat (damped:
 * the safe side). */
double trap_damp_trap(struct trap_damp *d, uint16_t issuer, double now,
		      double max_delay);

#endif
