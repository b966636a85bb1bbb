/* The SA's client state kept across restarts (sa/sa_persist.h): loaded
 * once at start from <cache_dir>/sa-state, written again (atomically)
 * within a second of any change to groups, members, services or
 * subscriptions, and when the daemon stops. */
#ifndef IBSM_SM_SM_SA_STATE_H
#define IBSM_SM_SM_SA_STATE_H

struct sm;

/* At start, after the predefined groups exist. Never fatal: a missing
 * file is a first start, a bad one is logged and ignored. */
void sm_sa_state_load(struct sm *sm);
/* In the daemon loop (force: now, whatever changed, e.g. at stop).
 * Returns 0, or a negative errno when the state could not be written. */
int sm_sa_state_tick(struct sm *sm, int force);
/* When sm_sa_state_tick has a write to make (SM_NEVER: none). */
double sm_sa_state_next_deadline(const struct sm *sm, double now);

#endif
