/* The QoS policy the SA follows (keys qos, qos_policy_file; docs/qos.md):
 * read at start, where a bad file is an error exit like any bad
 * configuration, and at SIGHUP, where a bad file leaves the policy in
 * force unchanged. */
#ifndef IBSM_SM_SM_QOS_H
#define IBSM_SM_SM_QOS_H

struct sm;

/* Load (or drop, with qos off) the policy of sm->cfg. Returns 0, or -1
 * after logging file:line and why; at_start says which case it is. */
int sm_qos_load(struct sm *sm, int at_start);
void sm_qos_free(struct sm *sm);

#endif
