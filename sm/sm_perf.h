/* The SM's side of the PerfMgr (perfmgr/): options from the configuration,
 * the fabric to poll after each routed sweep, and the noisy-link policy's
 * actions on the SM: `avoid` holds the link out of routing (link_hold)
 * and asks for a reroute, which the next heavy sweep does with minimal
 * change (the previous tables guide the engine; only differing LFT blocks
 * are written); `disable` does the same and also takes the flagged port
 * down (PortState Down, PortPhysicalState Disabled) until it is restored,
 * unless that would split the fabric. */
#ifndef IBSM_SM_SM_PERF_H
#define IBSM_SM_SM_PERF_H

#include "config/config.h"
#include "health/link_hold.h"
#include "../perfmgr/perfmgr.h"
#include "../perfmgr/noisy.h"

struct sm_perf {
	struct perfmgr pm;
	struct noisy noisy;
	struct link_hold *hold;     /* the SM's held-out links */
	/* `disable`: ends the SM keeps DOWN (PortPhysicalState Disabled),
	 * and ends to wake (Polling) at the next sweep (port_config.h). */
	struct link_hold *down, *wake;
	const struct fabric *fab;   /* the fabric last programmed */
	/* congestion-aware multipath: hot = PortXmitWait rate at or above
	 * cong_rate for cong_persist samples in a row (switch-switch ports) */
	int cong_on;
	double cong_rate;
	unsigned cong_persist;
	uint32_t cong_hot;          /* ports hot now */
	int reroute;                /* the hold set changed */
	double first_flag_at;       /* for the "flagged -> rerouted" timing */
};

/* Returns 0, or negative (bad event log path: logged). */
int sm_perf_init(struct sm_perf *sp, const struct ibsm_config *cfg,
		 struct mad_transport *t, struct link_hold *hold,
		 struct link_hold *down, struct link_hold *wake);
/* Whether taking link end (guid, port) out of routing or down would cut
 * part of the fabric last programmed off, with every link held or down
 * out too (link_hold_would_split): 1, 0, -ENOMEM. */
int sm_perf_would_split(const struct sm_perf *sp, uint64_t guid, uint8_t port);
/* Take one link end down (restore = 0) or bring it back (1), as the
 * `disable` action and `ibsmctl disable` do. 1 changed, 0 nothing to do,
 * -EBUSY when taking it down would split the fabric, -ENOMEM. */
int sm_perf_disable(struct sm_perf *sp, uint64_t guid, uint8_t port,
		    int restore, const char *reason);
void sm_perf_free(struct sm_perf *sp);
/* The measured load (bytes/s sent) and hot flag of every port of f, by
 * fabric port index, for routing/cong_rebalance.h. Returns how many ports
 * are hot (0: nothing to do). */
uint32_t sm_perf_cong_inputs(struct sm_perf *sp, struct fabric *f,
			     double *load, uint8_t *hot);
/* After a heavy sweep that programmed tables for f. */
void sm_perf_fabric(struct sm_perf *sp, const struct fabric *f);
/* From the SM's idle loop. Returns 1 when routes must change. */
int sm_perf_tick(struct sm_perf *sp, double now);
/* When sm_perf_tick next has work (HUGE_VAL: none). */
double sm_perf_next_deadline(const struct sm_perf *sp, double now);

#endif
