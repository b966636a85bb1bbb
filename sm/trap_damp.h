/* Trap damping: how long the heavy sweep a topology trap (128, 144, 64,
 * 65) asks for waits after the last heavy sweep ended.
 *
 * A storm -- traps that keep coming within a second of each other, as
 * from a flapping cable -- spaces the sweeps: 0.2 s, doubling with every
 * trap of the storm up to flap_max_delay; a quiet second brings back
 * immediate sweeps. A storm of any length then costs a bounded number of
 * sweeps. Pure bookkeeping, no MADs, no clock: the caller passes `now`. */
#ifndef IBSM_SM_TRAP_DAMP_H
#define IBSM_SM_TRAP_DAMP_H

#include <stdint.h>

#define TRAP_DAMP_STORM 1.0         /* s: traps closer than this are a storm */
#define TRAP_DAMP_FIRST 0.2         /* s: the first spacing of a storm */

struct trap_damp {
	double last_trap;           /* monotonic s of the last trap, 0 none */
	double delay;               /* the storm's spacing now, s */
};

void trap_damp_init(struct trap_damp *d);
void trap_damp_free(struct trap_damp *d);
/* A trap from LID `issuer` at `now`: the delay (s) after the end of the
 * last heavy sweep at which the sweep it asks for should run, at most
 * max_delay. */
double trap_damp_trap(struct trap_damp *d, uint16_t issuer, double now,
		      double max_delay);

#endif
