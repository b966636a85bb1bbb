/* Reader of OpenSM's qos-policy.conf (format: OpenSM's
 * doc/QoS_management_in_OpenSM.txt; summary and mapping in docs/qos.md).
 * Line oriented: '#' starts a comment, blanks are ignored, a section
 * keyword opens on a line of its own and has its end- keyword; fields are
 * "key: value", lists are comma separated, ranges "lo-hi". Names of
 * levels and port groups are case-insensitive, as OpenSM's. References
 * (qos-level-name, source, destination) are resolved after the whole
 * file is read, so sections may come in any order. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "qos_policy.h"

/* Service IDs of the ULP shorthands (OpenSM's, from the IBTA annexes:
 * SDP 0x1PPPP, RDS and iSER 0x106PPPP with their default ports). */
#define SID_SDP   0x10000ull
#define SID_RDS_ISER 0x1060000ull
#define RDS_PORT  0x48CA
#define ISER_PORT 0x0CBC
#define IPOIB_DEFAULT_PKEY 0x7FFF

enum section { S_TOP, S_GROUPS, S_GROUP, S_SETUP, S_LEVELS, S_LEVEL,
	       S_RULES, S_RULE, S_ULPS };

struct ref {                    /* a name to resolve at the end */
	char *name;
	unsigned line, rule;
	int kind;                   /* 0 level, 1 source, 2 destination */
};

struct parser {
	struct qos_policy *p;
	const char *file;
	unsigned line, open_line;
	enum section sec;
	struct ref *refs;
	unsigned num_refs;
	int ulp_default_sl;         /* -1: none */
	unsigned ulp_default_line;
	int have_level_name;        /* the open rule named its level */
	char *err;
	size_t errlen;
};

static int fail(struct parser *ps, const char *fmt, ...)
{
	va_list ap;
	int n = ps->line ? snprintf(ps->err, ps->errlen, "%s:%u: ", ps->file, ps->line) :
		snprintf(ps->err, ps->errlen, "%s: ", ps->file);

	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < ps->errlen)
		vsnprintf(ps->err + n, ps->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

/* Grow an array by one zeroed element; NULL when out of memory. */
static void *grow(void *arr, unsigned *n, size_t size)
{
	char *a = realloc(arr, (*n + 1) * size);

	if (!a)
		return NULL;
	memset(a + *n * size, 0, size);
	(*n)++;
	return a;
}

static int parse_u64(struct parser *ps, const char *s, uint64_t *v)
{
	char *end;
	int hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');

	if (!*s || !(hex ? isxdigit((unsigned char)s[2]) : isdigit((unsigned char)*s)))
		return fail(ps, "bad number '%s'", s);
	errno = 0;
	*v = strtoull(s, &end, hex ? 16 : 10);
	if (errno || *end)
		return fail(ps, "bad number '%s'", s);
	return 0;
}

static int parse_small(struct parser *ps, const char *key, char *s,
		       unsigned lo, unsigned hi, uint8_t *out)
{
	uint64_t v;

	if (parse_u64(ps, trim(s), &v) < 0)
		return -1;
	if (v < lo || v > hi)
		return fail(ps, "%s %llu out of range %u-%u", key,
			    (unsigned long long)v, lo, hi);
	*out = (uint8_t)v;
	return 0;
}

/* "a, b-c, ..." appended to r; max bounds every value. */
static int parse_ranges(struct parser *ps, const char *key, char *s,
			uint64_t max, struct qos_ranges *r)
{
	char *save = NULL, *tok;

	if (!*trim(s))
		return fail(ps, "%s: empty list", key);
	for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *dash, *a = trim(tok);
		uint64_t lo, hi;
		struct qos_range *nr;

		dash = strchr(a, '-');
		if (dash)
			*dash = 0;
		if (parse_u64(ps, trim(a), &lo) < 0 ||
		    parse_u64(ps, dash ? trim(dash + 1) : trim(a), &hi) < 0)
			return -1;
		if (lo > hi)
			return fail(ps, "%s: range 0x%llx-0x%llx: low end above high end",
				    key, (unsigned long long)lo, (unsigned long long)hi);
		if (hi > max)
			return fail(ps, "%s: 0x%llx above 0x%llx", key,
				    (unsigned long long)hi, (unsigned long long)max);
		if (!(nr = grow(r->r, &r->n, sizeof(*r->r))))
			return fail(ps, "out of memory");
		r->r = nr;
		nr[r->n - 1].lo = lo;
		nr[r->n - 1].hi = hi;
	}
	return 0;
}

/* A comma separated list of names (quotes allowed) appended to *v. */
static int parse_names(struct parser *ps, const char *key, char *s,
		       char ***v, unsigned *n)
{
	char *save = NULL, *tok;

	if (!*trim(s))
		return fail(ps, "%s: empty list", key);
	for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *a = trim(tok), **nv;
		size_t l = strlen(a);

		if (l >= 2 && a[0] == '"' && a[l - 1] == '"') {
			a[l - 1] = 0;
			a++;
		}
		if (!*a)
			return fail(ps, "%s: empty name in list", key);
		if (!(nv = grow(*v, n, sizeof(**v))) || !(nv[*n - 1] = strdup(a))) {
			if (nv)
				*v = nv;
			return fail(ps, "out of memory");
		}
		*v = nv;
	}
	return 0;
}

/* A name or description; double quotes around it are not part of it. */
static int set_str(struct parser *ps, char **dst, const char *v)
{
	size_t l = strlen(v);

	free(*dst);
	if (l >= 2 && v[0] == '"' && v[l - 1] == '"')
		*dst = strndup(v + 1, l - 2);
	else
		*dst = strdup(v);
	if (!*dst)
		return fail(ps, "out of memory");
	return 0;
}

static int add_ref(struct parser *ps, int kind, const char *name)
{
	struct ref *r = grow(ps->refs, &ps->num_refs, sizeof(*r));

	if (!r)
		return fail(ps, "out of memory");
	ps->refs = r;
	r += ps->num_refs - 1;
	r->kind = kind;
	r->line = ps->line;
	r->rule = ps->p->num_rules - 1;
	if (!(r->name = strdup(name)))
		return fail(ps, "out of memory");
	return 0;
}

static int group_field(struct parser *ps, const char *k, char *v)
{
	struct qos_port_group *g = &ps->p->groups[ps->p->num_groups - 1];

	if (!strcmp(k, "name"))
		return set_str(ps, &g->name, v);
	if (!strcmp(k, "use"))
		return set_str(ps, &g->use, v);
	if (!strcmp(k, "port-guid"))
		return parse_ranges(ps, k, v, UINT64_MAX, &g->guids);
	if (!strcmp(k, "pkey"))
		return parse_ranges(ps, k, v, 0xFFFF, &g->pkeys);
	if (!strcmp(k, "port-name"))
		return parse_names(ps, k, v, &g->port_names, &g->num_port_names);
	if (!strcmp(k, "partition"))
		return parse_names(ps, k, v, &g->partitions, &g->num_partitions);
	if (!strcmp(k, "node-type")) {
		char **t = NULL;
		unsigned n = 0;
		int rc = parse_names(ps, k, v, &t, &n);

		for (unsigned i = 0; i < n; i++) {
			static const struct { const char *n; unsigned bit; } nt[] = {
				{ "CA", QOS_NT_CA }, { "SWITCH", QOS_NT_SWITCH },
				{ "ROUTER", QOS_NT_ROUTER }, { "ALL", QOS_NT_ALL },
				{ "SELF", QOS_NT_SELF },
			};
			unsigned j;

			for (j = 0; j < sizeof(nt) / sizeof(nt[0]); j++)
				if (!strcasecmp(t[i], nt[j].n))
					break;
			if (rc == 0 && j == sizeof(nt) / sizeof(nt[0]))
				rc = fail(ps, "node-type '%s': not CA, SWITCH, ROUTER, ALL or SELF", t[i]);
			else if (j < sizeof(nt) / sizeof(nt[0]))
				g->node_types |= nt[j].bit;
			free(t[i]);
		}
		free(t);
		return rc;
	}
	return fail(ps, "unknown keyword '%s' in port-group", k);
}

/* Rates of IBA Table 213 that exist (2 = 2.5 Gb/s ... 22 = 1200 Gb/s):
 * 0, 1 and the gaps are reserved. */
static int rate_valid(unsigned r)
{
	return r >= 2 && r <= 22;
}

static int level_field(struct parser *ps, const char *k, char *v)
{
	struct qos_level *l = &ps->p->levels[ps->p->num_levels - 1];

	if (!strcmp(k, "name"))
		return set_str(ps, &l->name, v);
	if (!strcmp(k, "use"))
		return set_str(ps, &l->use, v);
	if (!strcmp(k, "sl")) {
		l->sl_set = 1;
		return parse_small(ps, k, v, 0, 15, &l->sl);
	}
	if (!strcmp(k, "mtu-limit")) {
		l->mtu_set = 1;     /* IBA MTU codes: 1 = 256 ... 5 = 4096 */
		return parse_small(ps, k, v, 1, 5, &l->mtu_limit);
	}
	if (!strcmp(k, "rate-limit")) {
		l->rate_set = 1;
		if (parse_small(ps, k, v, 2, 22, &l->rate_limit) < 0)
			return -1;
		return rate_valid(l->rate_limit) ? 0 :
			fail(ps, "rate-limit %u is not an IBA rate code", l->rate_limit);
	}
	if (!strcmp(k, "packet-life")) {
		l->pkt_life_set = 1;
		return parse_small(ps, k, v, 0, 63, &l->pkt_life);
	}
	if (!strcmp(k, "pkey"))
		return parse_ranges(ps, k, v, 0xFFFF, &l->pkeys);
	return fail(ps, "unknown keyword '%s' in qos-level", k);
}

static int rule_field(struct parser *ps, const char *k, char *v)
{
	struct qos_rule *r = &ps->p->rules[ps->p->num_rules - 1];

	if (!strcmp(k, "use"))
		return set_str(ps, &r->use, v);
	if (!strcmp(k, "service-id"))
		return parse_ranges(ps, k, v, UINT64_MAX, &r->service_ids);
	if (!strcmp(k, "pkey"))
		return parse_ranges(ps, k, v, 0xFFFF, &r->pkeys);
	if (!strcmp(k, "qos-class"))
		return parse_ranges(ps, k, v, 0xFFF, &r->qos_classes);
	if (!strcmp(k, "qos-level-name")) {
		ps->have_level_name = 1;
		return add_ref(ps, 0, v);
	}
	if (!strcmp(k, "source") || !strcmp(k, "destination")) {
		char **names = NULL;
		unsigned n = 0;
		int rc = parse_names(ps, k, v, &names, &n);

		for (unsigned i = 0; i < n; i++) {
			if (rc == 0)
				rc = add_ref(ps, k[0] == 's' ? 1 : 2, names[i]);
			free(names[i]);
		}
		free(names);
		return rc;
	}
	return fail(ps, "unknown keyword '%s' in qos-match-rule", k);
}

/* A level of its own for a qos-ulps rule: only an SL. */
static int ulp_level(struct parser *ps, uint8_t sl, unsigned *idx)
{
	struct qos_policy *p = ps->p;
	struct qos_level *l = grow(p->levels, &p->num_levels, sizeof(*l));
	char name[48];

	if (!l)
		return fail(ps, "out of memory");
	p->levels = l;
	l += p->num_levels - 1;
	snprintf(name, sizeof(name), "qos-ulps line %u", ps->line);
	l->sl = sl;
	l->sl_set = 1;
	l->line = ps->line;
	*idx = p->num_levels - 1;
	return set_str(ps, &l->name, name);
}

/* One group of port GUIDs for "target-port-guid" and its kin. */
static int ulp_guid_group(struct parser *ps, char *v, unsigned *idx)
{
	struct qos_policy *p = ps->p;
	struct qos_port_group *g = grow(p->groups, &p->num_groups, sizeof(*g));
	char name[48];

	if (!g)
		return fail(ps, "out of memory");
	p->groups = g;
	g += p->num_groups - 1;
	*idx = p->num_groups - 1;
	snprintf(name, sizeof(name), "qos-ulps line %u", ps->line);
	if (set_str(ps, &g->name, name) < 0)
		return -1;
	return parse_ranges(ps, "port GUID", v, UINT64_MAX, &g->guids);
}

static int add_group_ref(struct parser *ps, struct qos_rule *r, int src, unsigned g)
{
	unsigned **a = src ? &r->src : &r->dst, *n = src ? &r->num_src : &r->num_dst;
	unsigned *na = grow(*a, n, sizeof(**a));

	if (!na)
		return fail(ps, "out of memory");
	*a = na;
	na[*n - 1] = g;
	return 0;
}

/* "ulp[, keyword values] : sl" (OpenSM's simplified policy). */
static int ulp_line(struct parser *ps, char *s)
{
	struct qos_policy *p = ps->p;
	char *colon = strrchr(s, ':'), *comma, *ulp, *kw = NULL, *vals = NULL;
	struct qos_rule *r;
	uint8_t sl;
	unsigned lvl, g;
	int rc = 0;

	if (!colon)
		return fail(ps, "qos-ulps entry '%s' has no ': SL'", s);
	*colon = 0;
	if (parse_small(ps, "sl", colon + 1, 0, 15, &sl) < 0)
		return -1;
	comma = strchr(s, ',');
	if (comma) {
		*comma = 0;
		kw = trim(comma + 1);
		vals = kw + strcspn(kw, " \t");
		if (*vals)
			*vals++ = 0;
		vals = trim(vals);
		if (!*vals)
			return fail(ps, "qos-ulps: '%s' without values", kw);
	}
	ulp = trim(s);
	if (!strcasecmp(ulp, "default")) {
		if (kw)
			return fail(ps, "qos-ulps: 'default' takes no keyword");
		if (ps->ulp_default_sl >= 0)
			return fail(ps, "qos-ulps: 'default' given twice (first at line %u)",
				    ps->ulp_default_line);
		ps->ulp_default_sl = sl;
		ps->ulp_default_line = ps->line;
		return 0;
	}
	if (!(r = grow(p->rules, &p->num_rules, sizeof(*r))))
		return fail(ps, "out of memory");
	p->rules = r;
	r += p->num_rules - 1;
	r->line = ps->line;
	r->from_ulps = 1;
	if (ulp_level(ps, sl, &lvl) < 0)
		return -1;
	r->level = lvl;
#define IS(a, b) ((a) && !strcasecmp((a), (b)))
	if (!strcasecmp(ulp, "any")) {
		if (IS(kw, "service-id"))
			rc = parse_ranges(ps, kw, vals, UINT64_MAX, &r->service_ids);
		else if (IS(kw, "pkey"))
			rc = parse_ranges(ps, kw, vals, 0xFFFF, &r->pkeys);
		else if (IS(kw, "target-port-guid") || IS(kw, "source-port-guid") ||
			 IS(kw, "source-target-port-guid")) {
			int src = kw[0] == 's', dst = !src || !strcasecmp(kw, "source-target-port-guid");

			rc = ulp_guid_group(ps, vals, &g);
			r = &p->rules[p->num_rules - 1];
			if (rc == 0 && src)
				rc = add_group_ref(ps, r, 1, g);
			if (rc == 0 && dst)
				rc = add_group_ref(ps, r, 0, g);
		} else
			rc = fail(ps, "qos-ulps: 'any' needs service-id, pkey, target-port-guid, source-port-guid or source-target-port-guid");
	} else if (!strcasecmp(ulp, "sdp") || !strcasecmp(ulp, "rds") ||
		   !strcasecmp(ulp, "iser")) {
		uint64_t base = ulp[0] == 's' || ulp[0] == 'S' ? SID_SDP : SID_RDS_ISER;

		if (!kw) {
			struct qos_range *nr = malloc(sizeof(*nr));

			if (!nr)
				return fail(ps, "out of memory");
			if (base == SID_SDP)
				*nr = (struct qos_range){ base, base + 0xFFFF };
			else {
				uint64_t port = ulp[0] == 'r' || ulp[0] == 'R' ? RDS_PORT : ISER_PORT;

				*nr = (struct qos_range){ base + port, base + port };
			}
			r->service_ids.r = nr;
			r->service_ids.n = 1;
		} else if (IS(kw, "port-num")) {
			rc = parse_ranges(ps, kw, vals, 0xFFFF, &r->service_ids);
			for (unsigned i = 0; rc == 0 && i < r->service_ids.n; i++) {
				r->service_ids.r[i].lo += base;
				r->service_ids.r[i].hi += base;
			}
		} else
			rc = fail(ps, "qos-ulps: '%s' takes only port-num", ulp);
	} else if (!strcasecmp(ulp, "ipoib")) {
		if (!kw) {
			struct qos_range *nr = malloc(sizeof(*nr));

			if (!nr)
				return fail(ps, "out of memory");
			*nr = (struct qos_range){ IPOIB_DEFAULT_PKEY, IPOIB_DEFAULT_PKEY };
			r->pkeys.r = nr;
			r->pkeys.n = 1;
		} else if (IS(kw, "pkey"))
			rc = parse_ranges(ps, kw, vals, 0xFFFF, &r->pkeys);
		else
			rc = fail(ps, "qos-ulps: 'ipoib' takes only pkey");
	} else if (!strcasecmp(ulp, "srp")) {
		if (!IS(kw, "target-port-guid"))
			return fail(ps, "qos-ulps: 'srp' needs target-port-guid");
		rc = ulp_guid_group(ps, vals, &g);
		if (rc == 0)
			rc = add_group_ref(ps, &p->rules[p->num_rules - 1], 0, g);
	} else
		rc = fail(ps, "qos-ulps: unknown ULP '%s' (default, any, sdp, rds, iser, ipoib, srp)", ulp);
#undef IS
	return rc;
}

static const struct {
	const char *open, *close;
	enum section outer, inner;
} sections[] = {
	{ "port-groups", "end-port-groups", S_TOP, S_GROUPS },
	{ "port-group", "end-port-group", S_GROUPS, S_GROUP },
	{ "qos-setup", "end-qos-setup", S_TOP, S_SETUP },
	{ "qos-levels", "end-qos-levels", S_TOP, S_LEVELS },
	{ "qos-level", "end-qos-level", S_LEVELS, S_LEVEL },
	{ "qos-match-rules", "end-qos-match-rules", S_TOP, S_RULES },
	{ "qos-match-rule", "end-qos-match-rule", S_RULES, S_RULE },
	{ "qos-ulps", "end-qos-ulps", S_TOP, S_ULPS },
};
#define NUM_SECTIONS (sizeof(sections) / sizeof(sections[0]))

static const char *section_name(enum section s)
{
	for (unsigned i = 0; i < NUM_SECTIONS; i++)
		if (sections[i].inner == s)
			return sections[i].open;
	return "top level";
}

/* Opening a section: a new element for the single-item ones. */
static int open_section(struct parser *ps, enum section s)
{
	struct qos_policy *p = ps->p;
	void *n = (void *)1;

	if (s == S_GROUP && (n = grow(p->groups, &p->num_groups, sizeof(*p->groups))))
		p->groups = n;
	else if (s == S_LEVEL && (n = grow(p->levels, &p->num_levels, sizeof(*p->levels)))) {
		p->levels = n;
		p->levels[p->num_levels - 1].line = ps->line;
	} else if (s == S_RULE && (n = grow(p->rules, &p->num_rules, sizeof(*p->rules)))) {
		p->rules = n;
		p->rules[p->num_rules - 1].line = ps->line;
		p->num_match_rules++;
		ps->have_level_name = 0;
	}
	if (!n)
		return fail(ps, "out of memory");
	ps->sec = s;
	ps->open_line = ps->line;
	return 0;
}

static int close_section(struct parser *ps, enum section s)
{
	struct qos_policy *p = ps->p;

	if (s == S_GROUP && !p->groups[p->num_groups - 1].name)
		return fail(ps, "port-group (line %u) has no name", ps->open_line);
	if (s == S_LEVEL && !p->levels[p->num_levels - 1].name)
		return fail(ps, "qos-level (line %u) has no name", ps->open_line);
	if (s == S_RULE && !ps->have_level_name)
		return fail(ps, "qos-match-rule (line %u) has no qos-level-name", ps->open_line);
	return 0;
}

static int parse_line(struct parser *ps, char *s)
{
	char *colon;

	for (unsigned i = 0; i < NUM_SECTIONS; i++) {
		if (!strcmp(s, sections[i].open)) {
			if (ps->sec == S_SETUP)
				return 0;
			if (ps->sec != sections[i].outer)
				return fail(ps, "'%s' inside %s", s, section_name(ps->sec));
			return open_section(ps, sections[i].inner);
		}
		if (!strcmp(s, sections[i].close)) {
			if (ps->sec == S_SETUP && sections[i].inner != S_SETUP)
				return 0;
			if (ps->sec != sections[i].inner)
				return fail(ps, "'%s' without '%s'", s, sections[i].open);
			if (close_section(ps, ps->sec) < 0)
				return -1;
			ps->sec = sections[i].outer;
			return 0;
		}
	}
	/* qos-setup (SL2VL and VLArb tables) is skipped, as OpenSM skips it:
	 * those come from the qos_* keys. */
	if (ps->sec == S_SETUP)
		return 0;
	if (ps->sec == S_ULPS)
		return ulp_line(ps, s);
	colon = strchr(s, ':');
	if (ps->sec == S_TOP || ps->sec == S_GROUPS || ps->sec == S_LEVELS ||
	    ps->sec == S_RULES || !colon) {
		if (colon)
			*colon = 0;
		return fail(ps, "unknown keyword '%s' in %s", trim(s), section_name(ps->sec));
	}
	*colon = 0;
	s = trim(s);
	{
		char *v = trim(colon + 1);

		if (!*v)
			return fail(ps, "%s: no value", s);
		if (ps->sec == S_GROUP)
			return group_field(ps, s, v);
		if (ps->sec == S_LEVEL)
			return level_field(ps, s, v);
		return rule_field(ps, s, v);
	}
}

static int find_level(const struct qos_policy *p, const char *name)
{
	for (unsigned i = 0; i < p->num_levels; i++)
		if (!strcasecmp(p->levels[i].name, name))
			return (int)i;
	return -1;
}

static int find_group(const struct qos_policy *p, const char *name)
{
	for (unsigned i = 0; i < p->num_groups; i++)
		if (!strcasecmp(p->groups[i].name, name))
			return (int)i;
	return -1;
}

/* Names unique, references resolved, a default level. */
static int finish(struct parser *ps)
{
	struct qos_policy *p = ps->p;

	for (unsigned i = 0; i < p->num_levels; i++)
		if (find_level(p, p->levels[i].name) != (int)i) {
			ps->line = p->levels[i].line;
			return fail(ps, "qos-level '%s' defined twice", p->levels[i].name);
		}
	for (unsigned i = 0; i < p->num_groups; i++)
		if (find_group(p, p->groups[i].name) != (int)i) {
			ps->line = 0;
			return fail(ps, "port-group '%s' defined twice", p->groups[i].name);
		}
	for (unsigned i = 0; i < ps->num_refs; i++) {
		struct ref *r = &ps->refs[i];
		struct qos_rule *rule = &p->rules[r->rule];
		int x;

		ps->line = r->line;
		if (r->kind == 0) {
			if ((x = find_level(p, r->name)) < 0)
				return fail(ps, "qos-level-name '%s': no such qos-level", r->name);
			rule->level = (unsigned)x;
		} else {
			if ((x = find_group(p, r->name)) < 0)
				return fail(ps, "%s '%s': no such port-group",
					    r->kind == 1 ? "source" : "destination", r->name);
			if (add_group_ref(ps, rule, r->kind == 1, (unsigned)x) < 0)
				return -1;
		}
	}
	p->default_level = find_level(p, "DEFAULT");
	if (p->default_level < 0 && ps->ulp_default_sl >= 0) {
		ps->line = ps->ulp_default_line;
		if (ulp_level(ps, (uint8_t)ps->ulp_default_sl, &(unsigned){ 0 }) < 0)
			return -1;
		p->default_level = (int)p->num_levels - 1;
	}
	if (p->default_level < 0) {
		ps->line = 0;
		return fail(ps, "no qos-level named DEFAULT and no 'default' in qos-ulps");
	}
	return 0;
}

struct qos_policy *qos_policy_parse(const char *name, const char *text,
				    char *err, size_t errlen)
{
	struct parser ps = { .file = name, .err = err, .errlen = errlen,
			     .ulp_default_sl = -1 };
	char *buf = strdup(text), *line, *save = NULL;
	int rc = 0;

	ps.p = calloc(1, sizeof(*ps.p));
	if (!buf || !ps.p || !(ps.p->file = strdup(name))) {
		snprintf(err, errlen, "%s: out of memory", name);
		free(buf);
		qos_policy_free(ps.p);
		return NULL;
	}
	/* strtok_r would skip empty lines and lose the count: walk by hand. */
	for (line = buf; line && rc == 0; line = save) {
		char *nl = strchr(line, '\n'), *hash, *s;
		int quoted = 0;

		save = nl && nl[1] ? nl + 1 : NULL;
		if (nl)
			*nl = 0;
		ps.line++;
		for (hash = line; *hash; hash++) {
			if (*hash == '"')
				quoted = !quoted;
			else if (*hash == '#' && !quoted)
				break;
		}
		*hash = 0;
		s = trim(line);
		if (*s)
			rc = parse_line(&ps, s);
	}
	if (rc == 0 && ps.sec != S_TOP) {
		rc = fail(&ps, "'%s' opened at line %u has no end", section_name(ps.sec),
			  ps.open_line);
	}
	if (rc == 0)
		rc = finish(&ps);
	for (unsigned i = 0; i < ps.num_refs; i++)
		free(ps.refs[i].name);
	free(ps.refs);
	free(buf);
	if (rc < 0) {
		qos_policy_free(ps.p);
		return NULL;
	}
	return ps.p;
}

struct qos_policy *qos_policy_read(const char *file, char *err, size_t errlen)
{
	FILE *fp = fopen(file, "r");
	char *text = NULL;
	size_t len = 0;
	struct qos_policy *p;

	if (!fp) {
		snprintf(err, errlen, "%s: %s", file, strerror(errno));
		return NULL;
	}
	{
		FILE *mem = open_memstream(&text, &len);
		char chunk[4096];
		size_t n;

		if (!mem) {
			fclose(fp);
			snprintf(err, errlen, "%s: out of memory", file);
			return NULL;
		}
		while ((n = fread(chunk, 1, sizeof(chunk), fp)) > 0)
			fwrite(chunk, 1, n, mem);
		fclose(mem);
	}
	if (ferror(fp)) {
		snprintf(err, errlen, "%s: read error", file);
		fclose(fp);
		free(text);
		return NULL;
	}
	fclose(fp);
	p = qos_policy_parse(file, text ? text : "", err, errlen);
	free(text);
	return p;
}

void qos_policy_free(struct qos_policy *p)
{
	if (!p)
		return;
	for (unsigned i = 0; i < p->num_groups; i++) {
		struct qos_port_group *g = &p->groups[i];

		free(g->name);
		free(g->use);
		free(g->guids.r);
		free(g->pkeys.r);
		for (unsigned j = 0; j < g->num_port_names; j++)
			free(g->port_names[j]);
		free(g->port_names);
		for (unsigned j = 0; j < g->num_partitions; j++)
			free(g->partitions[j]);
		free(g->partitions);
	}
	for (unsigned i = 0; i < p->num_levels; i++) {
		free(p->levels[i].name);
		free(p->levels[i].use);
		free(p->levels[i].pkeys.r);
	}
	for (unsigned i = 0; i < p->num_rules; i++) {
		struct qos_rule *r = &p->rules[i];

		free(r->use);
		free(r->src);
		free(r->dst);
		free(r->service_ids.r);
		free(r->pkeys.r);
		free(r->qos_classes.r);
	}
	free(p->groups);
	free(p->levels);
	free(p->rules);
	free(p->file);
	free(p);
}

int qos_policy_resolve_partitions(struct qos_policy *p,
				  int (*lookup)(void *arg, const char *name),
				  void *arg, char *err, size_t errlen)
{
	for (unsigned i = 0; i < p->num_groups; i++) {
		struct qos_port_group *g = &p->groups[i];

		for (unsigned j = 0; j < g->num_partitions; j++) {
			int pk = lookup ? lookup(arg, g->partitions[j]) : -1;
			struct qos_range *nr;

			if (pk < 0) {
				snprintf(err, errlen, "%s: port-group '%s': unknown partition '%s'",
					 p->file, g->name, g->partitions[j]);
				return -1;
			}
			if (!(nr = grow(g->pkeys.r, &g->pkeys.n, sizeof(*nr)))) {
				snprintf(err, errlen, "%s: out of memory", p->file);
				return -1;
			}
			g->pkeys.r = nr;
			nr[g->pkeys.n - 1].lo = nr[g->pkeys.n - 1].hi = (uint64_t)pk & 0x7FFF;
		}
	}
	return 0;
}
