/* Partition configuration: parsing of members and the checks across
 * entries (partition/part_conf.h). */
#include "part_conf.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../core/grow.h"

static const struct {
	const char *name;
	enum part_member_kind kind;
} keywords[] = {
	{ "ALL", PM_ALL },
	{ "ALL_CAS", PM_ALL_CAS },
	{ "ALL_SWITCHES", PM_ALL_SWITCHES },
	{ "ALL_ROUTERS", PM_ALL_ROUTERS },
	{ "SELF", PM_SELF },
};

int part_membership_parse(const char *text)
{
	if (!strcasecmp(text, "full") || !strcasecmp(text, "both"))
		return 1;
	if (!strcasecmp(text, "limited"))
		return 0;
	return -1;
}

static void trim(char *s)
{
	size_t n = strlen(s), i = 0;

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = 0;
	while (isspace((unsigned char)s[i]))
		i++;
	memmove(s, s + i, n - i + 1);
}

int part_member_parse(const char *text, int defmember_full,
		      struct part_member *out, char *why, size_t whylen)
{
	char buf[128], *eq;

	if (strlen(text) >= sizeof(buf)) {
		snprintf(why, whylen, "member '%.40s...' too long", text);
		return -EINVAL;
	}
	snprintf(buf, sizeof(buf), "%s", text);
	memset(out, 0, sizeof(*out));
	out->full = defmember_full ? 1 : 0;
	eq = strchr(buf, '=');
	if (eq) {
		int f;

		*eq++ = 0;
		trim(eq);
		f = part_membership_parse(eq);
		if (f < 0) {
			snprintf(why, whylen, "member '%s': membership '%s' (full, limited or both)",
				 text, eq);
			return -EINVAL;
		}
		out->full = (uint8_t)f;
	}
	trim(buf);
	for (size_t i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++)
		if (!strcmp(buf, keywords[i].name)) {
			out->kind = (uint8_t)keywords[i].kind;
			return 0;
		}
	/* A port GUID: 0x hex or decimal, as OpenSM's partitions.conf. */
	if (isdigit((unsigned char)buf[0])) {
		char *end;
		unsigned long long v;

		errno = 0;
		v = strtoull(buf, &end, 0);
		if (!errno && !*end && v) {
			out->kind = PM_GUID;
			out->guid = v;
			return 0;
		}
	}
	snprintf(why, whylen, "member '%s': not a port GUID (0x...) nor ALL, ALL_CAS, ALL_SWITCHES, ALL_ROUTERS, SELF",
		 text);
	return -EINVAL;
}

void part_member_format(const struct part_member *m, char *buf, size_t len)
{
	const char *mem = m->full ? "full" : "limited";

	if (m->kind == PM_GUID) {
		snprintf(buf, len, "0x%016" PRIx64 "=%s", m->guid, mem);
		return;
	}
	for (size_t i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++)
		if (keywords[i].kind == m->kind) {
			snprintf(buf, len, "%s=%s", keywords[i].name, mem);
			return;
		}
	snprintf(buf, len, "?");
}

struct part_def *part_conf_add(struct part_conf *c)
{
	struct part_def *d;

	if (grow_array((void **)&c->p, &c->cap, c->n + 1, sizeof(*c->p), 8))
		return NULL;
	d = &c->p[c->n++];
	memset(d, 0, sizeof(*d));
	/* OpenSM's defaults for a partition and its IPoIB group. */
	d->mtu = 4;
	d->rate = 3;
	d->qkey = 0x0B1B;
	return d;
}

int part_def_add_member(struct part_def *d, const struct part_member *m)
{
	if (grow_array((void **)&d->m, &d->cap, d->n + 1, sizeof(*d->m), 8))
		return -ENOMEM;
	d->m[d->n++] = *m;
	return 0;
}

int part_conf_check(const struct part_conf *c, char *why, size_t whylen)
{
	/* OpenSM merges entries with the same P_Key; in one YAML list that
	 * is more likely a typo, so it is refused. */
	for (uint32_t i = 0; c && i < c->n; i++)
		for (uint32_t j = 0; j < i; j++) {
			if (c->p[i].pkey == c->p[j].pkey) {
				snprintf(why, whylen, "%u: partition '%s': P_Key 0x%04x already used by '%s' (line %u)",
					 c->p[i].line, c->p[i].name, c->p[i].pkey,
					 c->p[j].name, c->p[j].line);
				return -EINVAL;
			}
			if (c->p[i].name[0] && !strcmp(c->p[i].name, c->p[j].name)) {
				snprintf(why, whylen, "%u: partition name '%s' already used (line %u)",
					 c->p[i].line, c->p[i].name, c->p[j].line);
				return -EINVAL;
			}
		}
	return 0;
}

const struct part_def *part_conf_default(const struct part_conf *c)
{
	for (uint32_t i = 0; c && i < c->n; i++)
		if (c->p[i].pkey == PART_DEFAULT_PKEY)
			return &c->p[i];
	return NULL;
}

void part_conf_free(struct part_conf *c)
{
	if (!c)
		return;
	for (uint32_t i = 0; i < c->n; i++)
		free(c->p[i].m);
	free(c->p);
	memset(c, 0, sizeof(*c));
}

struct part_conf *part_conf_dup(const struct part_conf *src)
{
	struct part_conf *c;

	if (!src)
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	for (uint32_t i = 0; i < src->n; i++) {
		struct part_def *d = part_conf_add(c);

		if (!d)
			goto fail;
		*d = src->p[i];
		d->m = NULL;
		d->n = d->cap = 0;
		for (uint32_t k = 0; k < src->p[i].n; k++)
			if (part_def_add_member(d, &src->p[i].m[k]) < 0)
				goto fail;
	}
	return c;
fail:
	part_conf_free(c);
	free(c);
	errno = ENOMEM;
	return NULL;
}
