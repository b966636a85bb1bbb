/* Trap damping (sm/trap_damp.h). */
#include "trap_damp.h"

#include <string.h>

void trap_damp_init(struct trap_damp *d)
{
	memset(d, 0, sizeof(*d));
}

void trap_damp_free(struct trap_damp *d)
{
	memset(d, 0, sizeof(*d));
}

double trap_damp_trap(struct trap_damp *d, uint16_t issuer, double now,
		      double max_delay)
{
	(void)issuer;
	if (d->last_trap && now - d->last_trap < TRAP_DAMP_STORM) {
		d->delay = d->delay ? d->delay * 2 : TRAP_DAMP_FIRST;
		if (d->delay > max_delay)
			d->delay = max_delay;
	} else {
		d->delay = 0;
	}
	d->last_trap = now;
	return d->delay;
}
