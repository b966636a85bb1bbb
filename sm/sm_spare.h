/* The spare route tables (sm->spare): allocated once the fabric is up and
 * pre-faulted by a sliced copy of the tables held, one slice per turn of
 * the loop, so a re-route writes warm memory (see sm_spare.c). */
#ifndef IBSM_SM_SPARE_H
#define IBSM_SM_SPARE_H

#include "sm_service.h"

struct sm;

/* One slice of the spare's work; 1 while bytes remain. */
int sm_spare_tick(struct sm *sm, double now);
/* now while the spare has work (the loop then does not sleep), else
 * SM_NEVER. */
double sm_spare_next_deadline(const struct sm *sm, double now);

#endif
