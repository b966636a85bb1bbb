/* Loading the QoS policy (sm/sm_qos.h). */
#include <string.h>

#include "../core/log.h"
#include "../partition/part_conf.h"
#include "../qos/qos_policy.h"
#include "../qos/qos_sl_space.h"
#include "../routing/path_sl.h"
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

/* routing_engine names dfsp (a layered engine) among its engines. */
static int routes_layered(const struct ibsm_config *cfg)
{
	const char *e = cfg->routing_engine;

	for (const char *h = strstr(e, "dfsp"); h; h = strstr(h + 1, "dfsp"))
		if ((h == e || h[-1] == ',' || h[-1] == ' ') &&
		    (!h[4] || h[4] == ',' || h[4] == ' '))
			return 1;
	return 0;
}

/* A policy whose classes cannot each have a VL of their own within the
 * configured budget (max_vls, else the 15 data VLs) is refused: at start
 * an error exit, at SIGHUP the policy in force stays. */
static int sm_qos_fits(const struct sm *sm, const struct qos_policy *p,
		       const char *when, const char *keep)
{
	const struct ibsm_config *cfg = sm->cfg;
	unsigned vls = cfg->max_vls ? cfg->max_vls : QOS_SL_DATA_VLS;
	struct qos_sl_space s;
	uint8_t sl[QOS_SL_NUM];
	unsigned n;

	if (!routes_layered(cfg))
		return 0;
	n = qos_sl_classes(p, sl);
	if (qos_sl_space_plan(sl, n, vls, vls, 0, &s) != QOS_SL_NOFIT)
		return 0;
	log_err("%sQoS policy %s with routing_engine %s%s: %s; give the policy at most %u distinct SLs%s, or route without dfsp%s",
		when, cfg->qos_policy_file, cfg->routing_engine,
		cfg->max_vls ? " and max_vls" : "", s.why, vls,
		cfg->max_vls ? ", raise max_vls" : "", keep);
	return -1;
}

int sm_qos_layered(const struct sm *sm)
{
	return sm->qos && routes_layered(sm->cfg);
}

unsigned sm_qos_layer_budget(struct sm *sm, unsigned vls)
{
	struct qos_sl_space s;
	uint8_t sl[QOS_SL_NUM];
	unsigned n = qos_sl_classes(sm->qos, sl);

	qos_sl_space_plan(sl, n, vls, vls, 1, &s);
	/* Said once: again only when what gave way changes. */
	if (strcmp(s.why, sm->qos_said)) {
		if (s.fit == QOS_SL_SHARED)
			log_err("QoS with dfsp layers: %s (the classes are not kept apart on the wire)", s.why);
		else if (s.why[0])
			log_warn("QoS with dfsp layers: %s", s.why);
		snprintf(sm->qos_said, sizeof(sm->qos_said), "%s", s.why);
	}
	return s.layers;
}

int sm_qos_layers_check(struct sm *sm, const struct fabric *f,
			const struct lft_set *t, const struct path_sl *sl,
			unsigned vls)
{
	struct qos_sl_space *s = &sm->qos_space_next;
	uint8_t cls[QOS_SL_NUM];
	unsigned n = qos_sl_classes(sm->qos, cls);
	struct path_sl_vls v;
	uint32_t used = 0;
	char why[200], plan[512];
	int rc;

	qos_sl_space_plan(cls, n, sl->vls_used, vls, 1, s);
	qos_sl_space_vl_masks(s, NULL, v.vl_mask, v.sls_of_vl);
	/* The same check ibsm-route --qos --check runs: every class's SL of
	 * a layer carries that layer's routes, on the VL it maps to. */
	rc = path_sl_check_vls(f, t, sl, &v, &used, why, sizeof(why));
	if (rc < 0)
		return rc;
	if (rc) {
		log_err("QoS with dfsp layers: after SL2VL, %s: not programmed", why);
		return 1;
	}
	if (memcmp(s, &sm->qos_space, sizeof(*s))) {
		qos_sl_space_describe(s, plan, sizeof(plan));
		log_info("QoS with dfsp layers: %u classes x %u layers on %u VLs, each VL credit-loop-free: %s",
			 s->num_classes, s->layers, s->vls, plan);
	}
	return 0;
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
	if (sm_qos_fits(sm, p, when, keep) < 0) {
		qos_policy_free(p);
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
