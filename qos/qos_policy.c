/* Reader of OpenSM's qos-policy.conf (format: OpenSM's
 * doc/QoS_management_in_OpenSM.txt; summary and mapping in docs/qos.md).
 * Line oriented: '#' starts a comment, blanks are ignored, a section
 * keyword opens on a line of its own and has its end- keyword; fields are
 * "key: value", lists are comma separated, ranges "lo-hi". Names of
 * levels and port groups are case-insensitive, as OpenSM's. References
 * (qos-level-name, source, destination) are resolved after the whole
 * file is read, so sections may come in any order. This file: the
 * sections and their fields, the references; the values are read by
 * qos_policy_values.c, the qos-ulps lines by qos_policy_ulps.c. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "qos_policy.h"
#include "qos_policy_parser.h"

static int add_ref(struct parser *ps, int kind, const char *name)
{
	struct ref *r = qp_grow(ps->refs, &ps->num_refs, sizeof(*r));

	if (!r)
		return qp_fail(ps, "out of memory");
	ps->refs = r;
	r += ps->num_refs - 1;
	r->kind = kind;
	r->line = ps->line;
	r->rule = ps->p->num_rules - 1;
	if (!(r->name = strdup(name)))
		return qp_fail(ps, "out of memory");
	return 0;
}

static int group_field(struct parser *ps, const char *k, char *v)
{
	struct qos_port_group *g = &ps->p->groups[ps->p->num_groups - 1];

	if (!strcmp(k, "name"))
		return qp_set_str(ps, &g->name, v);
	if (!strcmp(k, "use"))
		return qp_set_str(ps, &g->use, v);
	if (!strcmp(k, "port-guid"))
		return qp_parse_ranges(ps, k, v, UINT64_MAX, &g->guids);
	if (!strcmp(k, "pkey"))
		return qp_parse_ranges(ps, k, v, 0xFFFF, &g->pkeys);
	if (!strcmp(k, "port-name"))
		return qp_parse_names(ps, k, v, &g->port_names, &g->num_port_names);
	if (!strcmp(k, "partition"))
		return qp_parse_names(ps, k, v, &g->partitions, &g->num_partitions);
	if (!strcmp(k, "node-type")) {
		char **t = NULL;
		unsigned n = 0;
		int rc = qp_parse_names(ps, k, v, &t, &n);

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
				rc = qp_fail(ps, "node-type '%s': not CA, SWITCH, ROUTER, ALL or SELF", t[i]);
			else if (j < sizeof(nt) / sizeof(nt[0]))
				g->node_types |= nt[j].bit;
			free(t[i]);
		}
		free(t);
		return rc;
	}
	return qp_fail(ps, "unknown keyword '%s' in port-group", k);
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
		return qp_set_str(ps, &l->name, v);
	if (!strcmp(k, "use"))
		return qp_set_str(ps, &l->use, v);
	if (!strcmp(k, "sl")) {
		l->sl_set = 1;
		return qp_parse_small(ps, k, v, 0, 15, &l->sl);
	}
	if (!strcmp(k, "mtu-limit")) {
		l->mtu_set = 1;     /* IBA MTU codes: 1 = 256 ... 5 = 4096 */
		return qp_parse_small(ps, k, v, 1, 5, &l->mtu_limit);
	}
	if (!strcmp(k, "rate-limit")) {
		l->rate_set = 1;
		if (qp_parse_small(ps, k, v, 2, 22, &l->rate_limit) < 0)
			return -1;
		return rate_valid(l->rate_limit) ? 0 :
			qp_fail(ps, "rate-limit %u is not an IBA rate code", l->rate_limit);
	}
	if (!strcmp(k, "packet-life")) {
		l->pkt_life_set = 1;
		return qp_parse_small(ps, k, v, 0, 63, &l->pkt_life);
	}
	if (!strcmp(k, "pkey"))
		return qp_parse_ranges(ps, k, v, 0xFFFF, &l->pkeys);
	return qp_fail(ps, "unknown keyword '%s' in qos-level", k);
}

static int rule_field(struct parser *ps, const char *k, char *v)
{
	struct qos_rule *r = &ps->p->rules[ps->p->num_rules - 1];

	if (!strcmp(k, "use"))
		return qp_set_str(ps, &r->use, v);
	if (!strcmp(k, "service-id"))
		return qp_parse_ranges(ps, k, v, UINT64_MAX, &r->service_ids);
	if (!strcmp(k, "pkey"))
		return qp_parse_ranges(ps, k, v, 0xFFFF, &r->pkeys);
	if (!strcmp(k, "qos-class"))
		return qp_parse_ranges(ps, k, v, 0xFFF, &r->qos_classes);
	if (!strcmp(k, "qos-level-name")) {
		ps->have_level_name = 1;
		return add_ref(ps, 0, v);
	}
	if (!strcmp(k, "source") || !strcmp(k, "destination")) {
		char **names = NULL;
		unsigned n = 0;
		int rc = qp_parse_names(ps, k, v, &names, &n);

		for (unsigned i = 0; i < n; i++) {
			if (rc == 0)
				rc = add_ref(ps, k[0] == 's' ? 1 : 2, names[i]);
			free(names[i]);
		}
		free(names);
		return rc;
	}
	return qp_fail(ps, "unknown keyword '%s' in qos-match-rule", k);
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

	if (s == S_GROUP && (n = qp_grow(p->groups, &p->num_groups, sizeof(*p->groups))))
		p->groups = n;
	else if (s == S_LEVEL && (n = qp_grow(p->levels, &p->num_levels, sizeof(*p->levels)))) {
		p->levels = n;
		p->levels[p->num_levels - 1].line = ps->line;
	} else if (s == S_RULE && (n = qp_grow(p->rules, &p->num_rules, sizeof(*p->rules)))) {
		p->rules = n;
		p->rules[p->num_rules - 1].line = ps->line;
		p->num_match_rules++;
		ps->have_level_name = 0;
	}
	if (!n)
		return qp_fail(ps, "out of memory");
	ps->sec = s;
	ps->open_line = ps->line;
	return 0;
}

static int close_section(struct parser *ps, enum section s)
{
	struct qos_policy *p = ps->p;

	if (s == S_GROUP && !p->groups[p->num_groups - 1].name)
		return qp_fail(ps, "port-group (line %u) has no name", ps->open_line);
	if (s == S_LEVEL && !p->levels[p->num_levels - 1].name)
		return qp_fail(ps, "qos-level (line %u) has no name", ps->open_line);
	if (s == S_RULE && !ps->have_level_name)
		return qp_fail(ps, "qos-match-rule (line %u) has no qos-level-name", ps->open_line);
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
				return qp_fail(ps, "'%s' inside %s", s, section_name(ps->sec));
			return open_section(ps, sections[i].inner);
		}
		if (!strcmp(s, sections[i].close)) {
			if (ps->sec == S_SETUP && sections[i].inner != S_SETUP)
				return 0;
			if (ps->sec != sections[i].inner)
				return qp_fail(ps, "'%s' without '%s'", s, sections[i].open);
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
		return qp_ulp_line(ps, s);
	colon = strchr(s, ':');
	if (ps->sec == S_TOP || ps->sec == S_GROUPS || ps->sec == S_LEVELS ||
	    ps->sec == S_RULES || !colon) {
		if (colon)
			*colon = 0;
		return qp_fail(ps, "unknown keyword '%s' in %s", input_trim(s), section_name(ps->sec));
	}
	*colon = 0;
	s = input_trim(s);
	{
		char *v = input_trim(colon + 1);

		if (!*v)
			return qp_fail(ps, "%s: no value", s);
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
			return qp_fail(ps, "qos-level '%s' defined twice", p->levels[i].name);
		}
	for (unsigned i = 0; i < p->num_groups; i++)
		if (find_group(p, p->groups[i].name) != (int)i) {
			ps->line = 0;
			return qp_fail(ps, "port-group '%s' defined twice", p->groups[i].name);
		}
	for (unsigned i = 0; i < ps->num_refs; i++) {
		struct ref *r = &ps->refs[i];
		struct qos_rule *rule = &p->rules[r->rule];
		int x;

		ps->line = r->line;
		if (r->kind == 0) {
			if ((x = find_level(p, r->name)) < 0)
				return qp_fail(ps, "qos-level-name '%s': no such qos-level", r->name);
			rule->level = (unsigned)x;
		} else {
			if ((x = find_group(p, r->name)) < 0)
				return qp_fail(ps, "%s '%s': no such port-group",
					    r->kind == 1 ? "source" : "destination", r->name);
			if (qp_add_group_ref(ps, rule, r->kind == 1, (unsigned)x) < 0)
				return -1;
		}
	}
	p->default_level = find_level(p, "DEFAULT");
	if (p->default_level < 0 && ps->ulp_default_sl >= 0) {
		ps->line = ps->ulp_default_line;
		if (qp_ulp_level(ps, (uint8_t)ps->ulp_default_sl, &(unsigned){ 0 }) < 0)
			return -1;
		p->default_level = (int)p->num_levels - 1;
	}
	if (p->default_level < 0) {
		ps->line = 0;
		return qp_fail(ps, "no qos-level named DEFAULT and no 'default' in qos-ulps");
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
		s = input_trim(line);
		if (*s)
			rc = parse_line(&ps, s);
	}
	if (rc == 0 && ps.sec != S_TOP) {
		rc = qp_fail(&ps, "'%s' opened at line %u has no end", section_name(ps.sec),
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
			if (!(nr = qp_grow(g->pkeys.r, &g->pkeys.n, sizeof(*nr)))) {
				snprintf(err, errlen, "%s: out of memory", p->file);
				return -1;
			}
			g->pkeys.r = nr;
			nr[g->pkeys.n - 1].lo = nr[g->pkeys.n - 1].hi = (uint64_t)pk & 0x7FFF;
		}
	}
	return 0;
}
