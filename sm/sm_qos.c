/* Loading the QoS policy (sm/sm_qos.h). */
#include <string.h>

#include "../core/log.h"
#include "../partition/part_conf.h"
#include "../qos/qos_policy.h"
#include "../qos/qos_src.h"
#include "sm_qos.h"
#include "sm_state.h"

/* Port groups name partitions of the partitions key (as OpenSM's of its
 * partition_config_file). */
static int partition_pkey(void *arg, const char *name)
{
	const struct part_conf *pc = arg;

	for (uint32_t i = 0; pc && i < pc->n; i++)
		if (!strcmp(pc->p[i].name, name))
			return pc->p[i].pkey;
	/* OpenSM's name of the default partition. */
	return !strcmp(name, "Default") ? 0x7FFF : -1;
}

int sm_qos_load(struct sm *sm, int at_start)
{
	const struct ibsm_config *cfg = sm->cfg;
	const char *when = at_start ? "" : "SIGHUP: ";
	const char *keep = at_start ? "" : " (the QoS policy in force stays)";
	struct qos_policy *p;
	char err[512];

	if (!cfg->qos) {
		if (sm->qos)
			log_info("%sQoS off: PathRecord SLs as without a policy", when);
		sm_qos_free(sm);
		return 0;
	}
	if (cfg->qos_src && cfg->qos_policy_file[0]) {
		log_err("%sqos: a policy in the qos: section of %s and qos_policy_file %s: give one%s",
			when, cfg->qos_src->origin, cfg->qos_policy_file, keep);
		return -1;
	}
	if (!cfg->qos_src && !cfg->qos_policy_file[0]) {
		log_err("%sqos is on but qos_policy_file is not set (nor a policy in a qos: section)%s",
			when, keep);
		return -1;
	}
	/* The section's policy is the file's text (qos/qos_src.h). */
	if (cfg->qos_src)
		p = qos_src_parse(cfg->qos_src, err, sizeof(err));
	else
		p = qos_policy_read(cfg->qos_policy_file, err, sizeof(err));
	if (p && qos_policy_resolve_partitions(p, partition_pkey, cfg->partitions,
					       err, sizeof(err)) < 0) {
		qos_policy_free(p);
		p = NULL;
	}
	if (!p) {
		log_err("%s%s%s", when, err, keep);
		return -1;
	}
	sm_qos_free(sm);
	sm->qos = p;
	sm->sa.ctx.qos = p;
	log_info("%sQoS policy %s%s: %u port group%s, %u level%s, %u rule%s; default SL %u",
		 when, cfg->qos_src ? cfg->qos_src->origin : cfg->qos_policy_file,
		 cfg->qos_src ? " (qos: section)" : "", p->num_groups, p->num_groups == 1 ? "" : "s",
		 p->num_levels, p->num_levels == 1 ? "" : "s",
		 p->num_rules, p->num_rules == 1 ? "" : "s",
		 p->levels[p->default_level].sl);
	return 0;
}

void sm_qos_free(struct sm *sm)
{
	sm->sa.ctx.qos = NULL;
	qos_policy_free(sm->qos);
	sm->qos = NULL;
}
