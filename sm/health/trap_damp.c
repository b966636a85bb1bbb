/* Trap damping (sm/health/trap_damp.h). */
#include "trap_damp.h"

#include <stdlib.h>
#include <string.h>

#include "../../core/grow.h"

void trap_damp_init(struct trap_damp *d)
{
	memset(d, 0, sizeof(*d));
}

void trap_damp_free(struct trap_damp *d)
{
	free(d->src);
	memset(d, 0, sizeof(*d));
}

/* Drop the issuers not heard from in the last STORM s. */
static void forget_quiet(struct trap_damp *d, double now)
{
	uint32_t k = 0;

	for (uint32_t i = 0; i < d->n; i++)
		if (now - d->src[i].last < TRAP_DAMP_STORM)
			d->src[k++] = d->src[i];
	d->n = k;
}

static void deepen(struct trap_damp *d, double max_delay)
{
	d->delay = d->delay ? d->delay * 2 : TRAP_DAMP_FIRST;
	if (d->delay > max_delay)
		d->delay = max_delay;
}

double trap_damp_trap(struct trap_damp *d, uint16_t issuer, double now,
		      double max_delay)
{
	struct trap_src *s = NULL;

	if (!d->last_trap || now - d->last_trap >= TRAP_DAMP_STORM)
		d->delay = 0;
	d->last_trap = now;
	forget_quiet(d, now);
	for (uint32_t i = 0; i < d->n && !s; i++)
		if (d->src[i].lid == issuer)
			s = &d->src[i];
	if (s) {
		if (now - s->report >= TRAP_DAMP_BURST) {
			s->report = now;
			deepen(d, max_delay);
		}
		s->last = now;
	} else if (grow_array((void **)&d->src, &d->cap, d->n + 1,
			      sizeof(*d->src), 16)) {
		deepen(d, max_delay);
	} else {
		d->src[d->n++] = (struct trap_src){ issuer, now, now };
	}
	/* A lowered flap_max_delay (SIGHUP) applies at once. */
	if (d->delay > max_delay)
		d->delay = max_delay;
	return d->delay;
}
