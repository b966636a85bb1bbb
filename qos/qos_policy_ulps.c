/* The qos-ulps section of qos-policy.conf: OpenSM's simplified policy,
 * "ulp[, keyword values] : sl", each line a match rule with a level of
 * its own (qos_policy.c reads the rest of the file). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "qos_policy_parser.h"

/* Service IDs of the ULP shorthands (OpenSM's, from the IBTA annexes:
 * SDP 0x1PPPP, RDS and iSER 0x106PPPP with their default ports). */
#define SID_SDP   0x10000ull
#define SID_RDS_ISER 0x1060000ull
#define RDS_PORT  0x48CA
#define ISER_PORT 0x0CBC
#define IPOIB_DEFAULT_PKEY 0x7FFF

/* A level of its own for a qos-ulps rule: only an SL. */
int qp_ulp_level(struct parser *ps, uint8_t sl, unsigned *idx)
{
	struct qos_policy *p = ps->p;
	struct qos_level *l = qp_grow(p->levels, &p->num_levels, sizeof(*l));
	char name[48];

	if (!l)
		return qp_fail(ps, "out of memory");
	p->levels = l;
	l += p->num_levels - 1;
	snprintf(name, sizeof(name), "qos-ulps line %u", ps->line);
	l->sl = sl;
	l->sl_set = 1;
	l->line = ps->line;
	*idx = p->num_levels - 1;
	return qp_set_str(ps, &l->name, name);
}

/* One group of port GUIDs for "target-port-guid" and its kin. */
static int ulp_guid_group(struct parser *ps, char *v, unsigned *idx)
{
	struct qos_policy *p = ps->p;
	struct qos_port_group *g = qp_grow(p->groups, &p->num_groups, sizeof(*g));
	char name[48];

	if (!g)
		return qp_fail(ps, "out of memory");
	p->groups = g;
	g += p->num_groups - 1;
	*idx = p->num_groups - 1;
	snprintf(name, sizeof(name), "qos-ulps line %u", ps->line);
	if (qp_set_str(ps, &g->name, name) < 0)
		return -1;
	return qp_parse_ranges(ps, "port GUID", v, UINT64_MAX, &g->guids);
}

int qp_add_group_ref(struct parser *ps, struct qos_rule *r, int src,
		     unsigned g)
{
	unsigned **a = src ? &r->src : &r->dst, *n = src ? &r->num_src : &r->num_dst;
	unsigned *na = qp_grow(*a, n, sizeof(**a));

	if (!na)
		return qp_fail(ps, "out of memory");
	*a = na;
	na[*n - 1] = g;
	return 0;
}

/* "ulp[, keyword values] : sl" (OpenSM's simplified policy). */
int qp_ulp_line(struct parser *ps, char *s)
{
	struct qos_policy *p = ps->p;
	char *colon = strrchr(s, ':'), *comma, *ulp, *kw = NULL, *vals = NULL;
	struct qos_rule *r;
	uint8_t sl;
	unsigned lvl, g;
	int rc = 0;

	if (!colon)
		return qp_fail(ps, "qos-ulps entry '%s' has no ': SL'", s);
	*colon = 0;
	if (qp_parse_small(ps, "sl", colon + 1, 0, 15, &sl) < 0)
		return -1;
	comma = strchr(s, ',');
	if (comma) {
		*comma = 0;
		kw = input_trim(comma + 1);
		vals = kw + strcspn(kw, " \t");
		if (*vals)
			*vals++ = 0;
		vals = input_trim(vals);
		if (!*vals)
			return qp_fail(ps, "qos-ulps: '%s' without values", kw);
	}
	ulp = input_trim(s);
	if (!strcasecmp(ulp, "default")) {
		if (kw)
			return qp_fail(ps, "qos-ulps: 'default' takes no keyword");
		if (ps->ulp_default_sl >= 0)
			return qp_fail(ps, "qos-ulps: 'default' given twice (first at line %u)",
				    ps->ulp_default_line);
		ps->ulp_default_sl = sl;
		ps->ulp_default_line = ps->line;
		return 0;
	}
	if (!(r = qp_grow(p->rules, &p->num_rules, sizeof(*r))))
		return qp_fail(ps, "out of memory");
	p->rules = r;
	r += p->num_rules - 1;
	r->line = ps->line;
	r->from_ulps = 1;
	if (qp_ulp_level(ps, sl, &lvl) < 0)
		return -1;
	r->level = lvl;
#define IS(a, b) ((a) && !strcasecmp((a), (b)))
	if (!strcasecmp(ulp, "any")) {
		if (IS(kw, "service-id"))
			rc = qp_parse_ranges(ps, kw, vals, UINT64_MAX, &r->service_ids);
		else if (IS(kw, "pkey"))
			rc = qp_parse_ranges(ps, kw, vals, 0xFFFF, &r->pkeys);
		else if (IS(kw, "target-port-guid") || IS(kw, "source-port-guid") ||
			 IS(kw, "source-target-port-guid")) {
			int src = kw[0] == 's', dst = !src || !strcasecmp(kw, "source-target-port-guid");

			rc = ulp_guid_group(ps, vals, &g);
			r = &p->rules[p->num_rules - 1];
			if (rc == 0 && src)
				rc = qp_add_group_ref(ps, r, 1, g);
			if (rc == 0 && dst)
				rc = qp_add_group_ref(ps, r, 0, g);
		} else
			rc = qp_fail(ps, "qos-ulps: 'any' needs service-id, pkey, target-port-guid, source-port-guid or source-target-port-guid");
	} else if (!strcasecmp(ulp, "sdp") || !strcasecmp(ulp, "rds") ||
		   !strcasecmp(ulp, "iser")) {
		uint64_t base = ulp[0] == 's' || ulp[0] == 'S' ? SID_SDP : SID_RDS_ISER;

		if (!kw) {
			struct qos_range *nr = malloc(sizeof(*nr));

			if (!nr)
				return qp_fail(ps, "out of memory");
			if (base == SID_SDP)
				*nr = (struct qos_range){ base, base + 0xFFFF };
			else {
				uint64_t port = ulp[0] == 'r' || ulp[0] == 'R' ? RDS_PORT : ISER_PORT;

				*nr = (struct qos_range){ base + port, base + port };
			}
			r->service_ids.r = nr;
			r->service_ids.n = 1;
		} else if (IS(kw, "port-num")) {
			rc = qp_parse_ranges(ps, kw, vals, 0xFFFF, &r->service_ids);
			for (unsigned i = 0; rc == 0 && i < r->service_ids.n; i++) {
				r->service_ids.r[i].lo += base;
				r->service_ids.r[i].hi += base;
			}
		} else
			rc = qp_fail(ps, "qos-ulps: '%s' takes only port-num", ulp);
	} else if (!strcasecmp(ulp, "ipoib")) {
		if (!kw) {
			struct qos_range *nr = malloc(sizeof(*nr));

			if (!nr)
				return qp_fail(ps, "out of memory");
			*nr = (struct qos_range){ IPOIB_DEFAULT_PKEY, IPOIB_DEFAULT_PKEY };
			r->pkeys.r = nr;
			r->pkeys.n = 1;
		} else if (IS(kw, "pkey"))
			rc = qp_parse_ranges(ps, kw, vals, 0xFFFF, &r->pkeys);
		else
			rc = qp_fail(ps, "qos-ulps: 'ipoib' takes only pkey");
	} else if (!strcasecmp(ulp, "srp")) {
		if (!IS(kw, "target-port-guid"))
			return qp_fail(ps, "qos-ulps: 'srp' needs target-port-guid");
		rc = ulp_guid_group(ps, vals, &g);
		if (rc == 0)
			rc = qp_add_group_ref(ps, &p->rules[p->num_rules - 1], 0, g);
	} else
		rc = qp_fail(ps, "qos-ulps: unknown ULP '%s' (default, any, sdp, rds, iser, ipoib, srp)", ulp);
#undef IS
	return rc;
}
