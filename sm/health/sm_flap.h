/* Flap hold-out: a switch port whose link goes down and up more than
 * flap_hold_count times in flap_hold_window seconds is held out of routing
 * (link_hold.h) until it has stayed up for flap_hold_quiet seconds.
 *
 * Where the state changes come from: a trap 128 (port state change) names
 * only the switch, so the SM reads that switch's PortInfo, every port, from
 * the idle loop (sm_flap_tick), and each heavy sweep adds the states it
 * read. Flap damping (sm_state.c) bounds the sweeps a storm costs; this
 * keeps the routes off the flapping link between them and after, so
 * traffic does not move back to a cable that is about to drop again. */
#ifndef IBSM_SM_SM_FLAP_H
#define IBSM_SM_SM_FLAP_H

#include <stdint.h>
#include "flap_track.h"

struct sm;
struct ibsm_config;

struct sm_flap {
	struct flap_track ft;
	uint64_t *pending;          /* switch GUIDs whose ports to read */
	uint32_t npend, cappend;
	int changed;                /* holds changed since the last tick */
	uint64_t polls;             /* PortInfo reads after traps */
};

void sm_flap_init(struct sm_flap *f, const struct ibsm_config *cfg);
void sm_flap_free(struct sm_flap *f);
/* A trap 128 from this LID: read the switch's ports at the next tick. */
void sm_flap_trap(struct sm *sm, uint16_t issuer_lid);
/* The port states a heavy sweep read (sm->cur). */
void sm_flap_sweep(struct sm *sm);
/* From the idle loop: send the pending port reads, give back ports that
 * calmed down. 1 when the held set changed (reroute), else 0. */
int sm_flap_tick(struct sm *sm, double now);
/* When sm_flap_tick next has work (SM_NEVER: none). */
double sm_flap_next_deadline(const struct sm *sm, double now);

#endif
