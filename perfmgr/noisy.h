/* The noisy-link policy: after every PerfMgr sample of a port, compare its
 * error rates (per second) with the thresholds; a port at or above one is
 * flagged and the configured action taken through a hook (report: log and
 * event only; avoid: route around the link; disable: take the port down).
 * Hysteresis: a flagged port is restored only after every rate stayed
 * below threshold x restore_fraction for quiet_s seconds. Every action is
 * one JSON line in the event log, with the reason and the counters. */
#ifndef IBSM_PERFMGR_NOISY_H
#define IBSM_PERFMGR_NOISY_H

#include <stdio.h>
#include "perfmgr.h"

enum noisy_action { NOISY_NONE = 0, NOISY_REPORT, NOISY_AVOID, NOISY_DISABLE };

struct noisy_opts {
	double threshold[PM_NUM_COUNTERS];  /* 0 = not checked */
	enum noisy_action action;
	unsigned quiet_s;
	double restore_fraction;
	unsigned max_avoided;               /* avoid + disable at once */
};

/* Take (restore = 0) or undo (restore = 1) action a on port p's link.
 * Returns 0, or negative when it could not (the port is then reported). */
typedef int (*noisy_act_fn)(void *ctx, const struct pm_port *p,
			    enum noisy_action a, int restore,
			    const char *reason);

struct noisy {
	struct noisy_opts o;
	FILE *events;
	noisy_act_fn act;
	void *ctx;
	uint32_t num_acting;                /* avoided or disabled now */
	uint64_t flagged_total, restored_total;
};

const char *noisy_action_name(enum noisy_action a);
/* "report", "avoid", "disable" -> action, NOISY_NONE if none. */
enum noisy_action noisy_action_parse(const char *s);

/* Opens the event log (append) when path is set. -errno if it cannot. */
int noisy_init(struct noisy *n, const struct noisy_opts *o,
	       const char *event_log, noisy_act_fn act, void *ctx);
void noisy_free(struct noisy *n);
/* The policy for one new sample. */
void noisy_sample(struct noisy *n, struct pm_port *p, double now);
/* One JSON line: event, the port and its peer, reason, counters. */
void noisy_event(struct noisy *n, const char *event, const struct pm_port *p,
		 const char *reason);

#endif
