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

/* QoS and layered routing (dfsp in routing_engine) both on: the policy's
 * classes share the SL space with the layers (qos/qos_sl_space.h,
 * docs/qos.md "QoS with dfsp layers"). */
int sm_qos_layered(const struct sm *sm);
/* Layers per class a layered engine may use with `vls` data VLs (the
 * fabric's, at most max_vls); what had to give way is logged once. */
unsigned sm_qos_layer_budget(struct sm *sm, unsigned vls);
struct fabric;
struct lft_set;
struct path_sl;
/* The tables t came out on sl's layers: plan sm->qos_space_next for them
 * and check deadlock freedom per VL through its SL2VL map (two SLs on one
 * VL share the VL's dependency graph). 0 fine, 1 a VL has a cycle
 * (logged), negative errno. */
int sm_qos_layers_check(struct sm *sm, const struct fabric *f,
			const struct lft_set *t, const struct path_sl *sl,
			unsigned vls);

#endif
