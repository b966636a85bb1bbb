/* Reports to InformInfo subscribers (IBA 13.4.8, 14.2.5.1): every trap the
 * SM receives is forwarded to the subscriptions it matches, and after each
 * heavy sweep the SM issues its own notices, trap 64 for each port that
 * came into service and trap 65 for each that left (the subscriptions of
 * ports that left are dropped first), and traps 66/67 when a multicast
 * group is created or deleted. Reports go on the transport's low queue
 * (mt_submit_low: behind every SMP, a few slots of the window, their own
 * short timeout, report_timeout_ms and report_retries), so subscribers
 * that never answer cannot delay a sweep. A port that leaves
 * report_max_misses Reports in a row without a ReportResponse loses all
 * its subscriptions (logged, counted): OpenSM keeps them, and 4,096 of
 * them from one silent host once held a re-route back 27-80 s. */
#ifndef IBSM_SM_SM_REPORT_H
#define IBSM_SM_SM_REPORT_H

#include <stdint.h>

struct sm;

struct sm_report {
	uint64_t *guids;            /* ports in service at the last sweep, sorted */
	uint32_t n;
	int have;                   /* a sweep has filled guids */
	uint8_t (*groups)[16];      /* multicast MGIDs last seen, sorted */
	uint32_t ngroups, groups_gen;
	int have_groups;
	uint64_t sent, answered, failed;
	uint64_t dropped_ports;     /* subscribers dropped for silence */
	uint16_t *misses;           /* per LID: Reports unanswered in a row */
};

void sm_report_free(struct sm_report *r);
/* A trap received (smp_data: the trap SMP's 64 data bytes). */
void sm_report_trap(struct sm *sm, const uint8_t *smp_data);
/* After the SA database is rebuilt from a heavy sweep. */
void sm_report_sweep(struct sm *sm);
/* Traps 66/67 for multicast groups created or deleted since the last call
 * (cheap when the group database did not change: call it often). */
void sm_report_groups(struct sm *sm);
/* The multicast groups changed since sm_report_groups last looked. */
int sm_report_groups_due(const struct sm *sm);

#endif
