/* The `qos` section of the YAML file (sm/config/config_qos.h). */
#include "config_qos.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "../../core/log.h"
#include "../../qos/qos_policy.h"
#include "../../qos/qos_src.h"
#include "../../qos/qos_vl.h"

struct qload {
	const char *path;
	yaml_document_t *doc;
	struct qos_src *src;
	int errors;
};

static unsigned line_of(const yaml_node_t *n)
{
	return (unsigned)n->start_mark.line + 1;
}

#define BAD(ld, node, ...) do { \
		char msg_[300]; \
		snprintf(msg_, sizeof(msg_), __VA_ARGS__); \
		log_err("%s:%u: qos: %s", (ld)->path, line_of(node), msg_); \
		(ld)->errors++; \
	} while (0)

static yaml_node_t *node(struct qload *ld, int id)
{
	return yaml_document_get_node(ld->doc, id);
}

static const char *text(const yaml_node_t *n)
{
	return (const char *)n->data.scalar.value;
}

/* A value: a scalar, or a list of scalars joined with ", " (the file's
 * comma lists). */
static int value(struct qload *ld, const char *key, yaml_node_t *v, char *buf,
		 size_t len)
{
	size_t used = 0;

	if (v->type == YAML_SCALAR_NODE) {
		if (strchr(text(v), '\n') || strlen(text(v)) >= len) {
			BAD(ld, v, "%s: one line of at most %zu characters", key, len - 1);
			return -1;
		}
		snprintf(buf, len, "%s", text(v));
		return 0;
	}
	if (v->type != YAML_SEQUENCE_NODE) {
		BAD(ld, v, "%s: a value or a list of values, not a mapping", key);
		return -1;
	}
	buf[0] = 0;
	for (yaml_node_item_t *it = v->data.sequence.items.start;
	     it < v->data.sequence.items.top; it++) {
		yaml_node_t *e = node(ld, *it);
		int w;

		if (e->type != YAML_SCALAR_NODE) {
			BAD(ld, e, "%s: a list of plain values", key);
			return -1;
		}
		w = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", text(e));
		if (w < 0 || (size_t)w >= len - used) {
			BAD(ld, e, "%s: list too long", key);
			return -1;
		}
		used += (size_t)w;
	}
	return 0;
}

static void add(struct qload *ld, unsigned at, const char *fmt, const char *a,
		const char *b)
{
	if (qos_src_add(ld->src, at, fmt, a, b) < 0)
		ld->errors++;
}

/* port-groups, qos-levels, qos-match-rules: a list of mappings, each one
 * subsection of the file with its fields as they are. */
static void load_list(struct qload *ld, yaml_node_t *v, const char *section,
		      const char *item)
{
	char buf[4096];

	if (v->type != YAML_SEQUENCE_NODE) {
		BAD(ld, v, "%s: a list of mappings", section);
		return;
	}
	add(ld, line_of(v), "%s%s", section, "");
	for (yaml_node_item_t *it = v->data.sequence.items.start;
	     it < v->data.sequence.items.top; it++) {
		yaml_node_t *m = node(ld, *it);

		if (m->type != YAML_MAPPING_NODE) {
			BAD(ld, m, "%s: each entry a mapping (name: ..., ...)", section);
			continue;
		}
		add(ld, line_of(m), "%s%s", item, "");
		for (yaml_node_pair_t *p = m->data.mapping.pairs.start;
		     p < m->data.mapping.pairs.top; p++) {
			yaml_node_t *k = node(ld, p->key), *val = node(ld, p->value);

			if (k->type != YAML_SCALAR_NODE) {
				BAD(ld, k, "%s: keys are plain names", section);
				continue;
			}
			if (value(ld, text(k), val, buf, sizeof(buf)) == 0)
				add(ld, line_of(k), "%s: %s", text(k), buf);
		}
		add(ld, line_of(m), "end-%s%s", item, "");
	}
	add(ld, line_of(v), "end-%s%s", section, "");
}

/* qos-ulps: {ulp: NAME, [criterion: R], sl: N} -> "NAME[, criterion R] : N". */
static void load_ulps(struct qload *ld, yaml_node_t *v)
{
	static const char *const crit[] = {
		"service-id", "pkey", "port-num", "target-port-guid",
		"source-port-guid", "source-target-port-guid",
	};

	if (v->type != YAML_SEQUENCE_NODE) {
		BAD(ld, v, "qos-ulps: a list of mappings (ulp: ..., sl: ...)");
		return;
	}
	add(ld, line_of(v), "qos-ulps%s%s", "", "");
	for (yaml_node_item_t *it = v->data.sequence.items.start;
	     it < v->data.sequence.items.top; it++) {
		yaml_node_t *m = node(ld, *it);
		char ulp[512] = "", sl[512] = "", c[600] = "", buf[512];
		const char *cname = NULL;

		if (m->type != YAML_MAPPING_NODE) {
			BAD(ld, m, "qos-ulps: each entry a mapping (ulp: ..., sl: ...)");
			continue;
		}
		for (yaml_node_pair_t *p = m->data.mapping.pairs.start;
		     p < m->data.mapping.pairs.top; p++) {
			yaml_node_t *k = node(ld, p->key), *val = node(ld, p->value);
			const char *kn = k->type == YAML_SCALAR_NODE ? text(k) : "";
			size_t i;

			if (value(ld, kn, val, buf, sizeof(buf)))
				continue;
			if (!strcmp(kn, "ulp")) {
				snprintf(ulp, sizeof(ulp), "%s", buf);
				continue;
			}
			if (!strcmp(kn, "sl")) {
				snprintf(sl, sizeof(sl), "%s", buf);
				continue;
			}
			for (i = 0; i < sizeof(crit) / sizeof(crit[0]); i++)
				if (!strcmp(kn, crit[i]))
					break;
			if (i == sizeof(crit) / sizeof(crit[0])) {
				BAD(ld, k, "qos-ulps: unknown field '%s' (ulp, sl, service-id, pkey, port-num, target-port-guid, source-port-guid, source-target-port-guid)", kn);
				continue;
			}
			if (cname) {
				BAD(ld, k, "qos-ulps: '%s' and '%s': one criterion per entry", cname, kn);
				continue;
			}
			cname = crit[i];
			snprintf(c, sizeof(c), ", %s %s", kn, buf);
		}
		if (!ulp[0] || !sl[0]) {
			BAD(ld, m, "qos-ulps: an entry needs 'ulp' and 'sl'");
			continue;
		}
		if (!strcasecmp(ulp, "default") && cname) {
			BAD(ld, m, "qos-ulps: 'default' takes no %s", cname);
			continue;
		}
		if (qos_src_add(ld->src, line_of(m), "%s%s : %s", ulp, c, sl) < 0)
			ld->errors++;
	}
	add(ld, line_of(v), "end-qos-ulps%s%s", "", "");
}

static const char *const table_keys[] = {
	"max_vls", "high_limit", "vlarb_high", "vlarb_low", "sl2vl",
};

/* A table key of the section: qos_[type_]name. 1 if it was one. */
static int table_key(struct qload *ld, const char *type, yaml_node_t *k,
		     yaml_node_t *v, config_qos_set_fn set, void *arg)
{
	char key[64], buf[512];

	for (size_t i = 0; i < sizeof(table_keys) / sizeof(table_keys[0]); i++) {
		if (strcmp(text(k), table_keys[i]))
			continue;
		snprintf(key, sizeof(key), "qos%s%s_%s", type ? "_" : "", type ? type : "",
			 table_keys[i]);
		if (value(ld, key, v, buf, sizeof(buf)) == 0 &&
		    set(arg, key, buf, line_of(v)))
			ld->errors++;
		return 1;
	}
	return 0;
}

static void load_type(struct qload *ld, const char *type, yaml_node_t *v,
		      config_qos_set_fn set, void *arg)
{
	if (v->type != YAML_MAPPING_NODE) {
		BAD(ld, v, "%s: a mapping of sl2vl, vlarb_high, vlarb_low, high_limit, max_vls", type);
		return;
	}
	for (yaml_node_pair_t *p = v->data.mapping.pairs.start;
	     p < v->data.mapping.pairs.top; p++) {
		yaml_node_t *k = node(ld, p->key);

		if (k->type != YAML_SCALAR_NODE ||
		    !table_key(ld, type, k, node(ld, p->value), set, arg))
			BAD(ld, k, "%s: unknown key '%s' (sl2vl, vlarb_high, vlarb_low, high_limit, max_vls)",
			    type, k->type == YAML_SCALAR_NODE ? text(k) : "?");
	}
}

int config_load_qos(const char *path, yaml_document_t *doc, yaml_node_t *v,
		    int *enabled, struct qos_src **src, config_qos_set_fn set,
		    void *arg)
{
	struct qload ld = { .path = path, .doc = doc };
	int policy = 0;

	*enabled = 1;
	*src = NULL;
	ld.src = qos_src_new(path);
	if (!ld.src)
		return -ENOMEM;
	for (yaml_node_pair_t *p = v->data.mapping.pairs.start;
	     p < v->data.mapping.pairs.top; p++) {
		yaml_node_t *k = node(&ld, p->key), *val = node(&ld, p->value);
		const char *kn = k->type == YAML_SCALAR_NODE ? text(k) : "";

		if (!strcmp(kn, "enabled")) {
			const char *s = val->type == YAML_SCALAR_NODE ? text(val) : "";

			if (!strcasecmp(s, "true") || !strcasecmp(s, "yes") || !strcmp(s, "1"))
				*enabled = 1;
			else if (!strcasecmp(s, "false") || !strcasecmp(s, "no") || !strcmp(s, "0"))
				*enabled = 0;
			else
				BAD(&ld, val, "enabled: true or false");
		} else if (!strcmp(kn, "port-groups")) {
			load_list(&ld, val, "port-groups", "port-group");
			policy = 1;
		} else if (!strcmp(kn, "qos-levels")) {
			load_list(&ld, val, "qos-levels", "qos-level");
			policy = 1;
		} else if (!strcmp(kn, "qos-match-rules")) {
			load_list(&ld, val, "qos-match-rules", "qos-match-rule");
			policy = 1;
		} else if (!strcmp(kn, "qos-ulps")) {
			load_ulps(&ld, val);
			policy = 1;
		} else if (!strcmp(kn, "ca") || !strcmp(kn, "swe") || !strcmp(kn, "sw0") ||
			   !strcmp(kn, "rtr")) {
			load_type(&ld, kn, val, set, arg);
		} else if (!*kn || !table_key(&ld, NULL, k, val, set, arg)) {
			BAD(&ld, k, "unknown key '%s' (enabled, port-groups, qos-levels, qos-match-rules, qos-ulps, sl2vl, vlarb_high, vlarb_low, high_limit, max_vls, ca, swe, sw0, rtr)", kn);
		}
	}
	if (!ld.errors && policy) {
		/* Check it now, as the daemon will read it: the file's line
		 * and the field in every error. */
		char err[600];
		struct qos_policy *p = qos_src_parse(ld.src, err, sizeof(err));

		if (!p) {
			log_err("%s (in the qos: section)", err);
			ld.errors++;
		}
		qos_policy_free(p);
	}
	if (ld.errors || !policy) {
		qos_src_free(ld.src);
		return ld.errors ? -EINVAL : 0;
	}
	*src = ld.src;
	return 0;
}

int config_qos_check_table(const char *key, const char *value, char *why,
			   size_t len)
{
	uint8_t sl2vl[16], vlarb[QOS_VLARB_ENTRIES][2];
	size_t n = strlen(key);

	if (n > 6 && !strcmp(key + n - 6, "_sl2vl"))
		return qos_vl_parse_sl2vl(value, sl2vl, why, len);
	if (strstr(key, "_vlarb_"))
		return qos_vl_parse_vlarb(value, vlarb, why, len);
	return 0;
}

void config_print_qos_src(const struct qos_src *s, FILE *out)
{
	const char *t = s->text ? s->text : "";

	fprintf(out, "\n# qos: the policy of the qos: section of %s, as qos-policy.conf:", s->origin);
	while (*t) {
		size_t n = strcspn(t, "\n");

		fprintf(out, "\n#   %.*s", (int)n, t);
		t += n + (t[n] == '\n');
	}
}
