/* The YAML configuration file: one document holding one mapping of
 * scalar keys (lists for list keys; the partitions: and qos: sections go
 * to config_partitions.c and config_qos.c), each key set through
 * config_set so it is checked as a command-line override is. The
 * document API parses the whole file first, so a syntax error is
 * reported alone, not after half-applied lines before it. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>

#include "../../core/log.h"
#include "../../qos/qos_src.h"
#include "config.h"
#include "config_keys.h"
#include "config_partitions.h"
#include "config_qos.h"

struct yaml_load {
	const char *path;
	yaml_document_t *doc;
	struct ibsm_config *c;
	unsigned *first_line;   /* per key: 0 = not seen yet */
};

static unsigned line_of(const yaml_node_t *n)
{
	return (unsigned)n->start_mark.line + 1;
}

/* A plain "~", "null" or empty scalar is YAML's null: an empty string. */
static const char *scalar_text(const yaml_node_t *n)
{
	const char *s = (const char *)n->data.scalar.value;
	if (n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	    (!strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") ||
	     !strcmp(s, "NULL")))
		return "";
	return s;
}

/* A list key given as a YAML sequence of scalars: join with k->sep.
 * Returns 0 or 1 after logging. */
static int join_list(struct yaml_load *ld, const struct key_desc *k,
		     const yaml_node_t *seq, unsigned line, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = 0;
	for (yaml_node_item_t *it = seq->data.sequence.items.start;
	     it < seq->data.sequence.items.top; it++) {
		const yaml_node_t *n = yaml_document_get_node(ld->doc, *it);
		if (n->type != YAML_SCALAR_NODE) {
			log_err("%s:%u: '%s' must be a list of plain values",
				ld->path, line_of(n), k->name);
			return 1;
		}
		char sep[2] = { used ? k->sep : 0, 0 };
		int w = snprintf(buf + used, len - used, "%s%s", sep,
				 scalar_text(n));
		if (w < 0 || (size_t)w >= len - used) {
			log_err("%s:%u: bad value for '%s': list too long (at "
				"most %zu characters)", ld->path, line, k->name,
				len - 1);
			return 1;
		}
		used += (size_t)w;
	}
	return 0;
}

/* A key set the first time at line: noted; set before: logged, 1. */
static int mark_key(struct yaml_load *ld, const struct key_desc *k,
		    const char *key, unsigned line)
{
	if (ld->first_line[k - config_keys]) {
		log_err("%s:%u: duplicate key '%s' (first set at line %u)",
			ld->path, line, key, ld->first_line[k - config_keys]);
		return 1;
	}
	ld->first_line[k - config_keys] = line;
	return 0;
}

/* A key a section sets (the qos: section's tables): as if it stood at
 * the top level at that line, so a key set twice is named. */
static int set_from_section(void *arg, const char *key, const char *value,
			    unsigned line)
{
	struct yaml_load *ld = arg;
	const struct key_desc *k = config_key_find(key);
	char origin[600];

	if (!k)
		return 1;
	if (mark_key(ld, k, key, line))
		return 1;
	snprintf(origin, sizeof(origin), "%s:%u", ld->path, line);
	return config_set(ld->c, key, value, origin) ? 1 : 0;
}

/* One "key: value" pair. Returns 0, or 1 if it was bad (logged). */
static int load_pair(struct yaml_load *ld, const yaml_node_pair_t *pair)
{
	const yaml_node_t *kn = yaml_document_get_node(ld->doc, pair->key);
	const yaml_node_t *vn = yaml_document_get_node(ld->doc, pair->value);
	unsigned line = line_of(kn);
	if (kn->type != YAML_SCALAR_NODE) {
		log_err("%s:%u: keys must be plain names", ld->path, line);
		return 1;
	}
	const char *key = (const char *)kn->data.scalar.value;
	const struct key_desc *k = config_key_find(key);
	if (!k) {
		log_err("%s:%u: unknown key '%s'", ld->path, line, key);
		return 1;
	}
	if (mark_key(ld, k, key, line))
		return 1;

	char origin[600];
	if (!strcmp(key, "qos") && vn->type == YAML_MAPPING_NODE) {
		struct qos_src *src;
		int enabled;

		if (config_load_qos(ld->path, ld->doc, (yaml_node_t *)(uintptr_t)vn,
				    &enabled, &src, set_from_section, ld) < 0)
			return 1;
		ld->c->qos = enabled;
		ld->c->qos_src = src;
		return 0;
	}
	if (k->kind == K_PARTITIONS) {
		struct part_conf *pc;

		if (config_load_partitions(ld->path, ld->doc, (yaml_node_t *)(uintptr_t)vn, &pc) < 0)
			return 1;
		ld->c->partitions = pc;
		return 0;
	}
	if (vn->type == YAML_SCALAR_NODE) {
		/* The value's own line: it may sit below its key. */
		snprintf(origin, sizeof(origin), "%s:%u", ld->path, line_of(vn));
		return config_set(ld->c, key, scalar_text(vn), origin) ? 1 : 0;
	}
	if (vn->type == YAML_SEQUENCE_NODE && k->kind == K_LIST) {
		char joined[sizeof(((struct ibsm_config *)0)->engine_paths)];
		size_t cap = k->size < sizeof(joined) ? k->size : sizeof(joined);
		if (join_list(ld, k, vn, line, joined, cap))
			return 1;
		snprintf(origin, sizeof(origin), "%s:%u", ld->path, line);
		return config_set(ld->c, key, joined, origin) ? 1 : 0;
	}
	log_err("%s:%u: value of '%s' must be a single value, not %s",
		ld->path, line, key,
		vn->type == YAML_MAPPING_NODE ? "a mapping" : "a list");
	return 1;
}

/* Returns 0, or -EINVAL after logging every bad line. */
static int load_document(struct yaml_load *ld)
{
	const yaml_node_t *root = yaml_document_get_root_node(ld->doc);
	if (!root)
		return 0;               /* empty or comment-only file */
	if (root->type == YAML_SCALAR_NODE && !root->data.scalar.value[0])
		return 0;               /* "---" with nothing under it */
	if (root->type != YAML_MAPPING_NODE) {
		log_err("%s:%u: expected 'key: value' lines", ld->path,
			line_of(root));
		return -EINVAL;
	}
	int errors = 0;
	for (yaml_node_pair_t *p = root->data.mapping.pairs.start;
	     p < root->data.mapping.pairs.top; p++)
		errors += load_pair(ld, p);
	return errors ? -EINVAL : 0;
}

static int syntax_error(const char *path, const yaml_parser_t *p)
{
	size_t line = (p->problem_mark.line ? p->problem_mark.line
		       : p->context_mark.line) + 1;
	log_err("%s:%zu: YAML syntax error: %s%s%s", path, line,
		p->problem ? p->problem : "unknown",
		p->context ? " " : "", p->context ? p->context : "");
	return -EINVAL;
}

/* Parse the whole stream: exactly zero or one document. */
static int load_stream(struct yaml_load *ld, yaml_parser_t *parser)
{
	yaml_document_t doc, extra;
	if (!yaml_parser_load(parser, &doc))
		return syntax_error(ld->path, parser);
	if (!yaml_parser_load(parser, &extra)) {
		yaml_document_delete(&doc);
		return syntax_error(ld->path, parser);
	}
	int rc = 0;
	const yaml_node_t *second = yaml_document_get_root_node(&extra);
	if (second) {
		log_err("%s:%zu: only one YAML document is allowed", ld->path,
			extra.start_mark.line + 1);
		rc = -EINVAL;
	}
	yaml_document_delete(&extra);
	if (rc == 0) {
		ld->doc = &doc;
		rc = load_document(ld);
	}
	yaml_document_delete(&doc);
	return rc;
}

int config_load_yaml(struct ibsm_config *c, const char *path)
{
	FILE *in = fopen(path, "r");
	if (!in) {
		int e = errno;
		/* A missing file is the caller's call (the default path may be
		 * absent); anything else is reported here. */
		if (e != ENOENT)
			log_err("%s: %s", path, strerror(e));
		return -e;
	}
	struct stat st;
	if (fstat(fileno(in), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(in);
		log_err("%s: %s", path, strerror(EISDIR));
		return -EISDIR;
	}
	yaml_parser_t parser;
	if (!yaml_parser_initialize(&parser)) {
		fclose(in);
		log_err("%s: cannot initialise the YAML parser", path);
		return -ENOMEM;
	}
	yaml_parser_set_input_file(&parser, in);
	/* Parse into a copy: a file with errors changes nothing. The copy
	 * shares c's partitions until the file names its own. */
	struct ibsm_config tmp = *c;
	struct yaml_load ld = { .path = path, .c = &tmp };
	int rc = -ENOMEM;
	ld.first_line = calloc(config_num_keys, sizeof(*ld.first_line));
	if (ld.first_line)
		rc = load_stream(&ld, &parser);
	else
		log_err("%s: %s", path, strerror(ENOMEM));
	free(ld.first_line);
	yaml_parser_delete(&parser);
	if (rc == 0 && ferror(in)) {
		log_err("%s: read error", path);
		rc = -EIO;
	}
	fclose(in);
	if (rc == 0) {
		if (c->partitions != tmp.partitions)
			config_free_partitions(c);
		if (c->qos_src != tmp.qos_src)
			qos_src_free(c->qos_src);
		*c = tmp;
	} else {
		if (tmp.partitions != c->partitions)
			config_free_partitions(&tmp);
		if (tmp.qos_src != c->qos_src)
			qos_src_free(tmp.qos_src);
	}
	return rc;
}
