/* The `partitions` key of the YAML file: a list of mappings, one per
 * partition (docs/partitions.md). Every bad line is reported as
 * "FILE:LINE: partitions: ..." and nothing is applied. */
#include "config_partitions.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../../core/log.h"

static unsigned line_of(const yaml_node_t *n)
{
	return (unsigned)n->start_mark.line + 1;
}

static int num(const char *s, unsigned long long lo, unsigned long long hi,
	       unsigned long long *out)
{
	char *end;

	if (!isdigit((unsigned char)s[0]))
		return -1;
	errno = 0;
	*out = strtoull(s, &end, 0);
	return errno || *end || *out < lo || *out > hi ? -1 : 0;
}

static int flag(const char *s)
{
	if (!strcasecmp(s, "true") || !strcasecmp(s, "yes") || !strcasecmp(s, "on") || !strcmp(s, "1"))
		return 1;
	if (!strcasecmp(s, "false") || !strcasecmp(s, "no") || !strcasecmp(s, "off") || !strcmp(s, "0"))
		return 0;
	return -1;
}

/* IBA rate codes (Table 224) that are rates. */
static int rate_ok(unsigned long long r)
{
	return r >= 2 && r <= 22;
}

struct pload {
	const char *path;
	yaml_document_t *doc;
	int errors;
};

#define BAD(ld, node, ...) do { \
		char msg_[300]; \
		snprintf(msg_, sizeof(msg_), __VA_ARGS__); \
		log_err("%s:%u: partitions: %s", (ld)->path, line_of(node), msg_); \
		(ld)->errors++; \
	} while (0)

/* Members after the rest of the entry: their default membership is the
 * entry's defmember, wherever that key stands. */
static void load_members(struct pload *ld, struct part_def *d, yaml_node_t *v)
{
	char why[256];
	struct part_member m;

	if (v->type == YAML_SCALAR_NODE) {
		const char *s = (const char *)v->data.scalar.value;

		if (!*s)
			return;         /* "members:" with nothing: no ports */
		if (part_member_parse(s, d->defmember_full, &m, why, sizeof(why)) < 0)
			BAD(ld, v, "%s", why);
		else if (part_def_add_member(d, &m) < 0)
			BAD(ld, v, "out of memory");
		return;
	}
	if (v->type != YAML_SEQUENCE_NODE) {
		BAD(ld, v, "'members' must be a list of port GUIDs or keywords");
		return;
	}
	for (yaml_node_item_t *it = v->data.sequence.items.start;
	     it < v->data.sequence.items.top; it++) {
		yaml_node_t *n = yaml_document_get_node(ld->doc, *it);

		if (n->type != YAML_SCALAR_NODE) {
			BAD(ld, n, "a member must be a plain value like 0x0002c90300001234=full");
			continue;
		}
		if (part_member_parse((const char *)n->data.scalar.value,
				      d->defmember_full, &m, why, sizeof(why)) < 0)
			BAD(ld, n, "%s", why);
		else if (part_def_add_member(d, &m) < 0)
			BAD(ld, n, "out of memory");
	}
}

static void load_entry(struct pload *ld, struct part_conf *c, yaml_node_t *e)
{
	struct part_def *d;
	yaml_node_t *members = NULL;
	int have_pkey = 0;

	if (e->type != YAML_MAPPING_NODE) {
		BAD(ld, e, "each partition is a mapping (name, pkey, members, ...)");
		return;
	}
	d = part_conf_add(c);
	if (!d) {
		BAD(ld, e, "out of memory");
		return;
	}
	d->line = line_of(e);
	for (yaml_node_pair_t *p = e->data.mapping.pairs.start;
	     p < e->data.mapping.pairs.top; p++) {
		yaml_node_t *kn = yaml_document_get_node(ld->doc, p->key);
		yaml_node_t *vn = yaml_document_get_node(ld->doc, p->value);
		const char *k, *s;
		unsigned long long v;
		int b;

		if (kn->type != YAML_SCALAR_NODE) {
			BAD(ld, kn, "keys must be plain names");
			continue;
		}
		k = (const char *)kn->data.scalar.value;
		if (!strcmp(k, "members")) {
			members = vn;
			continue;
		}
		if (vn->type != YAML_SCALAR_NODE) {
			BAD(ld, vn, "'%s' must be a single value", k);
			continue;
		}
		s = (const char *)vn->data.scalar.value;
		if (!strcmp(k, "name")) {
			if (strlen(s) >= sizeof(d->name))
				BAD(ld, vn, "name '%s' longer than %zu characters", s,
				    sizeof(d->name) - 1);
			else if (strpbrk(s, "\"\\\n"))
				BAD(ld, vn, "name '%s': no quotes, backslashes or newlines", s);
			else
				snprintf(d->name, sizeof(d->name), "%s", s);
		} else if (!strcmp(k, "pkey")) {
			if (num(s, 1, 0xFFFF, &v) < 0)
				BAD(ld, vn, "bad pkey '%s' (0x0001..0x7fff)", s);
			else if (v > 0x7FFF)
				BAD(ld, vn, "pkey '%s': a partition number is 15 bits (0x0001..0x7fff); full or limited is set per member", s);
			else {
				d->pkey = (uint16_t)v;
				have_pkey = 1;
			}
		} else if (!strcmp(k, "defmember")) {
			b = part_membership_parse(s);
			if (b < 0)
				BAD(ld, vn, "bad defmember '%s' (full, limited or both)", s);
			else
				d->defmember_full = (uint8_t)b;
		} else if (!strcmp(k, "ipoib")) {
			b = flag(s);
			if (b < 0)
				BAD(ld, vn, "bad ipoib '%s' (true or false)", s);
			else
				d->ipoib = (uint8_t)b;
		} else if (!strcmp(k, "mtu")) {
			if (num(s, 1, 5, &v) < 0)
				BAD(ld, vn, "bad mtu '%s' (IBA code 1..5: 256..4096 bytes)", s);
			else
				d->mtu = (uint8_t)v;
		} else if (!strcmp(k, "rate")) {
			if (num(s, 2, 22, &v) < 0 || !rate_ok(v))
				BAD(ld, vn, "bad rate '%s' (IBA code 2..22, e.g. 3 = 10 Gb/s)", s);
			else
				d->rate = (uint8_t)v;
		} else if (!strcmp(k, "qkey")) {
			if (num(s, 0, 0xFFFFFFFFull, &v) < 0)
				BAD(ld, vn, "bad qkey '%s' (32-bit number)", s);
			else
				d->qkey = (uint32_t)v;
		} else {
			BAD(ld, kn, "unknown key '%s' (name, pkey, members, defmember, ipoib, mtu, rate, qkey)", k);
		}
	}
	if (!have_pkey)
		BAD(ld, e, "partition '%s' has no pkey", d->name);
	if (members)
		load_members(ld, d, members);
}

int config_load_partitions(const char *path, yaml_document_t *doc,
			   yaml_node_t *v, struct part_conf **out)
{
	struct pload ld = { .path = path, .doc = doc };
	struct part_conf *c;
	char why[300];

	*out = NULL;
	if (v->type == YAML_SCALAR_NODE) {
		const char *s = (const char *)v->data.scalar.value;

		if (!*s || !strcmp(s, "~") || !strcmp(s, "null"))
			return 0;       /* none: the default partition only */
		BAD(&ld, v, "must be a list of partitions (- name: ..., pkey: ..., members: [...])");
		return -EINVAL;
	}
	if (v->type != YAML_SEQUENCE_NODE) {
		BAD(&ld, v, "must be a list of partitions (- name: ..., pkey: ..., members: [...])");
		return -EINVAL;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		BAD(&ld, v, "out of memory");
		return -ENOMEM;
	}
	for (yaml_node_item_t *it = v->data.sequence.items.start;
	     it < v->data.sequence.items.top; it++)
		load_entry(&ld, c, yaml_document_get_node(doc, *it));
	if (!ld.errors && part_conf_check(c, why, sizeof(why)) < 0) {
		log_err("%s:%s", path, why);
		ld.errors++;
	}
	if (ld.errors || !c->n) {
		part_conf_free(c);
		free(c);
		return ld.errors ? -EINVAL : 0;
	}
	*out = c;
	return 0;
}

void config_print_partitions(const struct part_conf *c, FILE *out)
{
	if (!c || !c->n) {
		fputs("partitions: []\n", out);
		return;
	}
	fputs("partitions:\n", out);
	for (uint32_t i = 0; i < c->n; i++) {
		const struct part_def *d = &c->p[i];

		fprintf(out, "  - name: \"%s\"\n", d->name);
		fprintf(out, "    pkey: 0x%04x\n", d->pkey);
		fprintf(out, "    defmember: %s\n", d->defmember_full ? "full" : "limited");
		fprintf(out, "    ipoib: %s\n", d->ipoib ? "true" : "false");
		fprintf(out, "    mtu: %u\n    rate: %u\n    qkey: 0x%08x\n",
			d->mtu, d->rate, d->qkey);
		fputs("    members: [", out);
		for (uint32_t k = 0; k < d->n; k++) {
			char buf[64];

			part_member_format(&d->m[k], buf, sizeof(buf));
			fprintf(out, "%s%s", k ? ", " : "", buf);
		}
		fputs("]\n", out);
	}
}
