/* Which QoS level a PathRecord/MultiPathRecord request gets (OpenSM's
 * rules, qos/qos_policy.h): rules in order, the first whose every
 * criterion holds wins, else the default level. */
#include <stdio.h>
#include <string.h>

#include "qos_policy.h"

int qos_ranges_has(const struct qos_ranges *r, uint64_t v)
{
	for (unsigned i = 0; i < r->n; i++)
		if (v >= r->r[i].lo && v <= r->r[i].hi)
			return 1;
	return 0;
}

/* "NodeDescription/Pnum", as OpenSM names a port in port-name. */
static int name_matches(const char *want, const struct qos_port *pt)
{
	char name[160];

	if (!pt->node_desc)
		return 0;
	snprintf(name, sizeof(name), "%s/P%u", pt->node_desc, pt->port_num);
	return !strcmp(want, name);
}

static int in_group(const struct qos_port_group *g, const struct qos_port *pt)
{
	if (g->node_types & pt->node_type)
		return 1;
	if (qos_ranges_has(&g->guids, pt->guid))
		return 1;
	for (unsigned i = 0; i < g->num_port_names; i++)
		if (name_matches(g->port_names[i], pt))
			return 1;
	/* A partition's member: the port holds its P_Key (either membership). */
	for (unsigned i = 0; i < g->pkeys.n && pt->has_pkey; i++)
		for (uint64_t k = g->pkeys.r[i].lo & 0x7FFF; k <= (g->pkeys.r[i].hi & 0x7FFF); k++)
			if (pt->has_pkey(pt->arg, (uint16_t)k))
				return 1;
	return 0;
}

static int in_any(const struct qos_policy *p, const unsigned *g, unsigned n,
		  const struct qos_port *pt)
{
	for (unsigned i = 0; i < n; i++)
		if (in_group(&p->groups[g[i]], pt))
			return 1;
	return 0;
}

static int rule_matches(const struct qos_policy *p, const struct qos_rule *r,
			const struct qos_request *q, const struct qos_port *src,
			const struct qos_port *dst)
{
	if (r->num_src && !in_any(p, r->src, r->num_src, src))
		return 0;
	if (r->num_dst && !in_any(p, r->dst, r->num_dst, dst))
		return 0;
	if (r->qos_classes.n && (!q->has_class || !qos_ranges_has(&r->qos_classes, q->qos_class)))
		return 0;
	if (r->service_ids.n && (!q->has_sid || !qos_ranges_has(&r->service_ids, q->service_id)))
		return 0;
	if (r->pkeys.n) {
		if (!q->has_pkey)
			return 0;
		/* OpenSM compares without the membership bit. */
		for (unsigned i = 0; i < r->pkeys.n; i++) {
			uint64_t k = q->pkey & 0x7FFF;

			if (k >= (r->pkeys.r[i].lo & 0x7FFF) && k <= (r->pkeys.r[i].hi & 0x7FFF))
				return 1;
		}
		return 0;
	}
	return 1;
}

const struct qos_level *qos_policy_level(const struct qos_policy *p,
					 const struct qos_request *q,
					 const struct qos_port *src,
					 const struct qos_port *dst)
{
	/* qos-match-rules first, then qos-ulps, each in file order. */
	for (int ulps = 0; ulps < 2; ulps++)
		for (unsigned i = 0; i < p->num_rules; i++)
			if (p->rules[i].from_ulps == ulps &&
			    rule_matches(p, &p->rules[i], q, src, dst))
				return &p->levels[p->rules[i].level];
	return p->default_level >= 0 ? &p->levels[p->default_level] : NULL;
}
