/* opensm.conf + partitions.conf -> ibsm YAML (docs/opensm-users.md).
 *
 * opensm.conf is "KEY VALUE" per line, '#' comments (the format
 * `opensm -c FILE` writes). Each option is one of: mapped to an ibsm key
 * (written, with the OpenSM line it came from), without an ibsm key but at
 * OpenSM's default (nothing is lost: counted), or not honoured (named with
 * FILE:LINE and why). partitions.conf (OpenSM's grammar, "Name=PKey,flags :
 * members ;") becomes the `partitions` list; its member syntax is ibsm's
 * (docs/partitions.md). With qos TRUE, qos-policy.conf is read (an error
 * is named with its file:line) and carried as qos_policy_file (docs/qos.md);
 * with qos FALSE it stays a comment, as OpenSM does not apply it. */
#include "osm_import.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "../../core/input_file.h"
#include "../../partition/part_conf.h"
#include "../../qos/qos_policy.h"
#include "../../routing/engine.h"
#include "config.h"

struct osm_default {
	const char *key;
	const char *value;
};

static const struct osm_default osm_defaults[] = {
#include "osm_defaults.inc"
};

enum map_kind {
	M_SAME,         /* same value */
	M_BOOL,         /* TRUE/FALSE -> true/false */
	M_NOT_BOOL,     /* the negation (no_clients_rereg -> client_reregister) */
	M_PATH,         /* a path; "(null)" = not set */
	M_ENGINE,       /* engine list: names ibsm has */
	M_LOGFLAGS,     /* OpenSM's log_flags bits -> log_level */
	M_PARTFILE,     /* partition_config_file: converted */
	M_QOSFILE,      /* qos_policy_file: carried as a reference */
	M_PERF,         /* perfmgr / perfmgr_sweep_time_s: perf_interval */
	M_STR,          /* a text value, quoted; "(null)" = not set */
};

struct map {
	const char *osm;
	const char *ibsm;
	enum map_kind kind;
	int only_if_changed;    /* OpenSM's default is not written (ibsm's applies) */
};

/* only_if_changed: where OpenSM's default is a tuning of OpenSM's own
 * (4 SMPs on the wire, its log file) that ibsm's default replaces. */
static const struct map maps[] = {
	{ "guid", "port_guid", M_SAME, 1 },
	{ "m_key", "m_key", M_SAME, 1 },
	{ "m_key_lease_period", "m_key_lease_period", M_SAME, 1 },
	{ "m_key_protection_level", "m_key_protect_bits", M_SAME, 1 },
	{ "sm_key", "sm_key", M_SAME, 0 },
	{ "subnet_prefix", "subnet_prefix", M_SAME, 0 },
	{ "lmc", "lmc", M_SAME, 0 },
	{ "packet_life_time", "packet_life_time", M_SAME, 0 },
	{ "vl_stall_count", "vl_stall_count", M_SAME, 0 },
	{ "leaf_vl_stall_count", "leaf_vl_stall_count", M_SAME, 0 },
	{ "head_of_queue_lifetime", "head_of_queue_lifetime", M_SAME, 0 },
	{ "leaf_head_of_queue_lifetime", "leaf_head_of_queue_lifetime", M_SAME, 0 },
	{ "subnet_timeout", "subnet_timeout", M_SAME, 0 },
	{ "sweep_interval", "sweep_interval", M_SAME, 0 },
	{ "routing_engine", "routing_engine", M_ENGINE, 1 },
	{ "root_guid_file", "root_guid_file", M_PATH, 1 },
	{ "cn_guid_file", "cn_guid_file", M_PATH, 1 },
	{ "sm_priority", "sm_priority", M_SAME, 0 },
	{ "sminfo_polling_timeout", "sminfo_polling_timeout", M_SAME, 0 },
	{ "polling_retry_number", "polling_retry_number", M_SAME, 0 },
	{ "max_wire_smps", "mad_window", M_SAME, 1 },
	{ "transaction_timeout", "mad_timeout_ms", M_SAME, 1 },
	{ "transaction_retries", "mad_retries", M_SAME, 1 },
	{ "no_clients_rereg", "client_reregister", M_NOT_BOOL, 0 },
	{ "log_flags", "log_level", M_LOGFLAGS, 1 },
	{ "log_file", "log_file", M_PATH, 1 },
	{ "dump_files_dir", "dump_dir", M_PATH, 1 },
	{ "partition_config_file", "partitions", M_PARTFILE, 0 },
	{ "qos_policy_file", NULL, M_QOSFILE, 0 },
	{ "perfmgr", "perf_interval", M_PERF, 0 },
	{ "perfmgr_sweep_time_s", "perf_interval", M_PERF, 0 },
	/* The QoS tables (qos/qos_vl.h): OpenSM's "not set" values (0, -1,
	 * (null)) are its defaults, and ibsm's. */
#define QOS_TABLE_MAPS(pre) \
	{ pre "_max_vls", pre "_max_vls", M_SAME, 1 }, \
	{ pre "_high_limit", pre "_high_limit", M_SAME, 1 }, \
	{ pre "_vlarb_high", pre "_vlarb_high", M_STR, 1 }, \
	{ pre "_vlarb_low", pre "_vlarb_low", M_STR, 1 }, \
	{ pre "_sl2vl", pre "_sl2vl", M_STR, 1 }
	QOS_TABLE_MAPS("qos"), QOS_TABLE_MAPS("qos_ca"), QOS_TABLE_MAPS("qos_sw0"),
	QOS_TABLE_MAPS("qos_swe"), QOS_TABLE_MAPS("qos_rtr"),
#undef QOS_TABLE_MAPS
};

/* Why an option without an ibsm key is not honoured, where there is more
 * to say than "no ibsm equivalent". */
static const struct {
	const char *prefix;
	const char *why;
} reasons[] = {
	{ "console", "no console: use ibsmctl over ctl_socket (ibsmctl(8))" },
	{ "event_plugin", "OpenSM event plugins do not load into ibsm (ibsm's engines load into OpenSM instead: docs/opensm-plugin.md)" },
	{ "daemon", "ibsm does not fork: run it under systemd (contrib/ibsm.service)" },
	{ "honor_guid2lid_file", "ibsm always keeps the LIDs of <cache_dir>/guid2lid" },
	{ "reassign_lids", "ibsm keeps LIDs across sweeps; remove <cache_dir>/guid2lid to renumber" },
	{ "disable_multicast", "ibsm always serves multicast" },
	{ "congestion_control", "Congestion Control (CC class) is not programmed; see congestion_aware" },
	{ "cc_", "Congestion Control (CC class) is not programmed; see congestion_aware" },
	{ "perfmgr_", "ibsm's PerfMgr has its own keys (perf_*, docs/telemetry.md)" },
	{ "ignore_other_sm", "ibsm always takes part in SM election (IBA 14.4)" },
	{ "lash", "no LASH engine" },
	{ "nue", "no Nue engine" },
	{ "torus_config", "no torus-2QoS engine" },
	{ "guid_routing_order", "routing order is the engine's" },
	{ "log_max_size", "use logrotate (contrib/ibsm.logrotate; SIGHUP reopens the log)" },
	{ "accum_log_file", "ibsm appends to log_file; use logrotate" },
	{ "max_op_vls", "VLs are not programmed by this option; see max_vls for layered engines" },
	{ "sa_db", "the SA's state is kept in <cache_dir>/sa-state" },
	{ "part_enforce", "enforcement follows each switch's capabilities (docs/partitions.md)" },
	{ "no_partition_enforcement", "enforcement follows each switch's capabilities (docs/partitions.md)" },
	{ "allow_both_pkeys", "one entry per partition per port ('both' is full)" },
};

struct opt {
	char key[64];
	char val[512];
	unsigned line;
};

struct importer {
	struct ibsm_config scratch;     /* each carried value is tried here */
	const struct osm_import_opts *o;
	FILE *out, *warn;
	struct osm_import_result *res;
	struct opt *opts;
	size_t nopts;
	int errors;
};

static int is_null(const char *v)
{
	return !*v || !strcmp(v, "(null)");
}

/* Same option value: as text, or as numbers (0x00 and 0). */
static int same_value(const char *a, const char *b)
{
	char *ea, *eb;
	unsigned long long x, y;

	if (!strcasecmp(a, b))
		return 1;
	errno = 0;
	x = strtoull(a, &ea, 0);
	y = strtoull(b, &eb, 0);
	return !errno && ea != a && eb != b && !*ea && !*eb && x == y;
}

static const char *osm_default(const char *key)
{
	for (size_t i = 0; i < sizeof(osm_defaults) / sizeof(osm_defaults[0]); i++)
		if (!strcmp(osm_defaults[i].key, key))
			return osm_defaults[i].value;
	return NULL;
}

static const struct map *map_of(const char *key)
{
	for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); i++)
		if (!strcmp(maps[i].osm, key))
			return &maps[i];
	return NULL;
}

static const struct opt *find(const struct importer *im, const char *key)
{
	const struct opt *hit = NULL;

	for (size_t i = 0; i < im->nopts; i++)
		if (!strcmp(im->opts[i].key, key))
			hit = &im->opts[i];     /* the last one wins, as in OpenSM */
	return hit;
}

static void not_honoured(struct importer *im, const char *file, unsigned line,
			 const char *what, const char *why)
{
	fprintf(im->warn, "%s:%u: %s: not honoured: %s\n", file, line, what, why);
	im->res->not_honoured++;
}

static const char *reason(const char *key)
{
	for (size_t i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++)
		if (!strncmp(key, reasons[i].prefix, strlen(reasons[i].prefix)))
			return reasons[i].why;
	return "no ibsm equivalent";
}

/* ibsm must take the value: tried with config_set, so a value out of
 * ibsm's range is named by the OpenSM line it came from. */
static int try_key(struct importer *im, const char *key, const char *value,
		   const char *file, unsigned line, const char *osm_key)
{
	char origin[600];

	snprintf(origin, sizeof(origin), "%s:%u: %s", file, line, osm_key);
	if (config_set(&im->scratch, key, value, origin) == 0)
		return 0;
	im->errors++;           /* config_set named it, with the origin */
	return -1;
}

static int read_conf(struct importer *im)
{
	FILE *in = fopen(im->o->conf, "r");
	char buf[1024];
	unsigned line = 0;
	size_t cap = 0;

	if (!in) {
		fprintf(im->warn, "%s: %s\n", im->o->conf, strerror(errno));
		return -1;
	}
	while (fgets(buf, sizeof(buf), in)) {
		char *s, *v;
		struct opt *op;

		line++;
		if (!strchr(buf, '\n') && !feof(in)) {
			fprintf(im->warn, "%s:%u: line too long\n", im->o->conf, line);
			im->errors++;
			int c;
			while ((c = fgetc(in)) != EOF && c != '\n')
				;
			continue;
		}
		s = input_trim(buf);
		if (!*s || *s == '#')
			continue;
		for (v = s; *v && !isspace((unsigned char)*v); v++)
			;
		if (*v)
			*v++ = 0;
		v = input_trim(v);
		if (strlen(s) >= sizeof(op->key) || strlen(v) >= sizeof(op->val)) {
			fprintf(im->warn, "%s:%u: option or value too long\n", im->o->conf, line);
			im->errors++;
			continue;
		}
		if (im->nopts == cap) {
			struct opt *n = realloc(im->opts, (cap ? cap * 2 : 64) * sizeof(*n));
			if (!n) {
				fclose(in);
				return -1;
			}
			im->opts = n;
			cap = cap ? cap * 2 : 64;
		}
		op = &im->opts[im->nopts++];
		snprintf(op->key, sizeof(op->key), "%s", s);
		snprintf(op->val, sizeof(op->val), "%s", v);
		op->line = line;
		im->res->options++;
	}
	fclose(in);
	return im->errors ? -1 : 0;
}

static int engine_known(const char *name)
{
	for (const struct route_engine *const *e = route_builtin_engines(); e && *e; e++)
		if (!strcmp((*e)->name, name))
			return 1;
	return 0;
}

static void put_engines(struct importer *im, const struct opt *op)
{
	char list[512], kept[512] = "", what[600];
	char *save = NULL, *name;

	snprintf(list, sizeof(list), "%s", op->val);
	for (name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		name = input_trim(name);
		if (engine_known(name)) {
			if (strlen(kept) + strlen(name) + 2 < sizeof(kept)) {
				if (*kept)
					strcat(kept, ",");
				strcat(kept, name);
			}
			continue;
		}
		snprintf(what, sizeof(what), "routing_engine %s", name);
		not_honoured(im, im->o->conf, op->line, what,
			     !strcmp(name, "file") ? "ibsm computes its tables (ibsm-route reads OpenSM's lfts dumps offline)" :
			     "ibsm has no engine of that name (see ibsm --help)");
	}
	if (!*kept) {
		fprintf(im->out, "# routing_engine: none of \"%s\" exists in ibsm; ibsm's default list applies\n", op->val);
		return;
	}
	if (try_key(im, "routing_engine", kept, im->o->conf, op->line, op->key) < 0)
		return;
	fprintf(im->out, "routing_engine: \"%s\"   # %s:%u\n", kept, im->o->conf, op->line);
	im->res->carried++;
}

/* OpenSM's log_flags: 0x01 ERROR, 0x02 INFO, 0x04 VERBOSE, 0x08 DEBUG, ... */
static const char *log_level_of(const char *v)
{
	unsigned long f = strtoul(v, NULL, 0);

	if (f & 0x0c)
		return "debug";
	if (f & 0x02)
		return "info";
	return "error";
}

static void yaml_str(FILE *out, const char *s);

static void put_simple(struct importer *im, const struct map *m, const struct opt *op)
{
	const char *v = op->val;

	switch (m->kind) {
	case M_BOOL:
	case M_NOT_BOOL: {
		int t = !strcasecmp(v, "true") || !strcmp(v, "1");
		int f = !strcasecmp(v, "false") || !strcmp(v, "0");

		if (!t && !f) {
			fprintf(im->warn, "%s:%u: %s: bad boolean '%s' (TRUE or FALSE)\n",
				im->o->conf, op->line, op->key, v);
			im->errors++;
			return;
		}
		if (m->kind == M_NOT_BOOL)
			t = !t;
		if (try_key(im, m->ibsm, t ? "true" : "false", im->o->conf, op->line, op->key) < 0)
			return;
		fprintf(im->out, "%s: %s   # %s:%u %s %s\n", m->ibsm, t ? "true" : "false",
			im->o->conf, op->line, op->key, v);
		break;
	}
	case M_STR:
		if (is_null(v))
			return;
		if (try_key(im, m->ibsm, v, im->o->conf, op->line, op->key) < 0)
			return;
		fprintf(im->out, "%s: ", m->ibsm);
		yaml_str(im->out, v);
		fprintf(im->out, "   # %s:%u\n", im->o->conf, op->line);
		break;
	case M_PATH:
		if (is_null(v))
			return;
		if (try_key(im, m->ibsm, v, im->o->conf, op->line, op->key) < 0)
			return;
		fprintf(im->out, "%s: \"%s\"   # %s:%u\n", m->ibsm, v, im->o->conf, op->line);
		break;
	case M_LOGFLAGS:
		if (try_key(im, m->ibsm, log_level_of(v), im->o->conf, op->line, op->key) < 0)
			return;
		fprintf(im->out, "%s: %s   # %s:%u log_flags %s\n", m->ibsm, log_level_of(v),
			im->o->conf, op->line, v);
		break;
	default:
		if (is_null(v)) {
			not_honoured(im, im->o->conf, op->line, op->key, "no value");
			return;
		}
		if (try_key(im, m->ibsm, v, im->o->conf, op->line, op->key) < 0)
			return;
		fprintf(im->out, "%s: %s   # %s:%u %s\n", m->ibsm, v, im->o->conf, op->line, op->key);
		break;
	}
	im->res->carried++;
}

/* ---- partitions.conf ---------------------------------------------------- */

static void yaml_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++)
		if (*s != '"' && *s != '\\')
			fputc(*s, out);
	fputc('"', out);
}

/* One "header : members" entry starting at line `line`. */
static void put_partition(struct importer *im, const char *file, unsigned line,
			  char *entry)
{
	char *colon = strchr(entry, ':'), *hdr, *tok, *save = NULL, *eq;
	char name[128];
	unsigned long pkey;
	int first = 1;

	if (!colon) {
		fprintf(im->warn, "%s:%u: partition without ':' before its members\n", file, line);
		im->errors++;
		return;
	}
	*colon = 0;
	hdr = input_trim(entry);
	if (!strncasecmp(hdr, "mgid", 4)) {
		not_honoured(im, file, line, "mgid", "multicast groups are the mcast_groups key");
		return;
	}
	tok = strtok_r(hdr, ",", &save);
	tok = tok ? input_trim(tok) : hdr;
	eq = strchr(tok, '=');
	if (!eq) {
		not_honoured(im, file, line, tok, "a partition without a P_Key (OpenSM picks one; ibsm needs it given)");
		return;
	}
	*eq = 0;
	snprintf(name, sizeof(name), "%s", input_trim(tok));
	{
		char *end;
		errno = 0;
		pkey = strtoul(input_trim(eq + 1), &end, 0);
		if (errno || *end || (pkey & 0x7fff) == 0 || pkey > 0xffff) {
			fprintf(im->warn, "%s:%u: %s: bad P_Key '%s'\n", file, line, name, input_trim(eq + 1));
			im->errors++;
			return;
		}
	}
	fprintf(im->out, "  - name: ");
	yaml_str(im->out, name);
	fprintf(im->out, "   # %s:%u\n    pkey: 0x%04lx\n", file, line, pkey & 0x7fff);
	while ((tok = strtok_r(NULL, ",", &save))) {
		char *k = input_trim(tok), *val = strchr(k, '=');

		if (val)
			*val++ = 0;
		val = val ? input_trim(val) : NULL;
		k = input_trim(k);
		if (!strcasecmp(k, "ipoib") && !val)
			fprintf(im->out, "    ipoib: true\n");
		else if (!strcasecmp(k, "mtu") && val)
			fprintf(im->out, "    mtu: %s\n", val);
		else if (!strcasecmp(k, "rate") && val)
			fprintf(im->out, "    rate: %s\n", val);
		else if ((!strcasecmp(k, "qkey") || !strcasecmp(k, "Q_Key")) && val)
			fprintf(im->out, "    qkey: %s\n", val);
		else if (!strcasecmp(k, "defmember") && val)
			fprintf(im->out, "    defmember: %s\n", val);
		else {
			char what[200];
			snprintf(what, sizeof(what), "%s flag '%s%s%s'", name, k, val ? "=" : "", val ? val : "");
			not_honoured(im, file, line, what,
				     "ibsm's partitions take ipoib, mtu, rate, qkey, defmember (docs/partitions.md)");
		}
	}
	fprintf(im->out, "    members: [");
	save = NULL;
	for (tok = strtok_r(colon + 1, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *m = input_trim(tok);

		if (!*m)
			continue;
		if (!strncasecmp(m, "mgid", 4)) {
			not_honoured(im, file, line, "mgid", "multicast groups are the mcast_groups key");
			continue;
		}
		{
			struct part_member pm;
			char why[256];

			if (part_member_parse(m, 0, &pm, why, sizeof(why)) < 0) {
				fprintf(im->warn, "%s:%u: %s: %s\n", file, line, name, why);
				im->errors++;
				continue;
			}
		}
		if (!first)
			fputs(", ", im->out);
		yaml_str(im->out, m);
		first = 0;
	}
	fprintf(im->out, "]\n");
	im->res->partitions++;
}

static int read_partitions(struct importer *im, const char *file, unsigned from_line)
{
	FILE *in = fopen(file, "r");
	char *text = NULL, *entry;
	size_t len = 0, cap = 0;
	unsigned line = 1, start = 0;
	int c, in_comment = 0;

	if (!in) {
		fprintf(im->warn, "%s:%u: partition_config_file %s: %s\n", im->o->conf,
			from_line, file, strerror(errno));
		return -1;
	}
	fprintf(im->out, "partitions:   # from %s\n", file);
	/* Collect characters up to each ';' without comments; the entry's
	 * line is where its first non-blank character stands. */
	for (;;) {
		c = fgetc(in);
		if (c == EOF || c == ';') {
			if (len) {
				text[len] = 0;
				entry = input_trim(text);
				if (*entry)
					put_partition(im, file, start, entry);
			} else if (c == EOF) {
				break;
			}
			len = 0;
			start = 0;
			if (c == EOF)
				break;
			continue;
		}
		if (c == '\n') {
			line++;
			in_comment = 0;
		}
		if (c == '#')
			in_comment = 1;
		if (in_comment)
			continue;
		if (!start && !isspace(c))
			start = line;
		if (len + 2 > cap) {
			char *n = realloc(text, cap ? cap * 2 : 256);
			if (!n) {
				free(text);
				fclose(in);
				return -1;
			}
			text = n;
			cap = cap ? cap * 2 : 256;
		}
		text[len++] = c == '\n' ? ' ' : (char)c;
	}
	free(text);
	fclose(in);
	if (!im->res->partitions)
		fprintf(im->out, "  []\n");
	return 0;
}

/* ------------------------------------------------------------------------ */

static void put_perf(struct importer *im)
{
	const struct opt *on = find(im, "perfmgr"), *t = find(im, "perfmgr_sweep_time_s");

	if (!on && !t)
		return;
	if (on && (!strcasecmp(on->val, "true") || !strcmp(on->val, "1"))) {
		fprintf(im->out, "perf_interval: %s   # %s:%u perfmgr TRUE, perfmgr_sweep_time_s %s\n",
			t ? t->val : "180", im->o->conf, on->line, t ? t->val : "180");
	} else {
		fprintf(im->out, "perf_interval: 0   # %s:%u perfmgr FALSE\n", im->o->conf,
			on ? on->line : t->line);
	}
	im->res->carried++;
}

int osm_import(const struct osm_import_opts *o, FILE *out, FILE *warn,
	       struct osm_import_result *res)
{
	struct importer im = { .o = o, .out = out, .warn = warn, .res = res };
	const struct opt *part = NULL, *qos = NULL;
	int rc = 0;

	memset(res, 0, sizeof(*res));
	config_defaults(&im.scratch);
	if (read_conf(&im) < 0) {
		free(im.opts);
		config_free(&im.scratch);
		return -1;
	}
	fprintf(out, "# ibsm configuration imported from the OpenSM configuration %s\n"
		"# by `ibsm-config import` (docs/opensm-users.md). Each key names the\n"
		"# OpenSM line it comes from; options ibsm cannot honour were listed on\n"
		"# standard error; every other key has ibsm's default (ibsm --dump-config).\n",
		o->conf);
	for (size_t i = 0; i < im.nopts; i++) {
		const struct opt *op = &im.opts[i];
		const struct map *m = map_of(op->key);
		const char *def = osm_default(op->key);

		if (find(&im, op->key) != op)
			continue;       /* a later line sets it again */
		if (!strcmp(op->key, "qos") &&
		    (!strcasecmp(op->val, "true") || !strcmp(op->val, "1")))
			continue;       /* with the policy file, below */
		if (m) {
			if (m->kind == M_PARTFILE) {
				part = op;
				continue;
			}
			if (m->kind == M_QOSFILE) {
				qos = op;
				continue;
			}
			if (m->kind == M_PERF)
				continue;
			if (m->only_if_changed && def && same_value(op->val, def)) {
				res->at_default++;
				continue;
			}
			if (m->kind == M_ENGINE) {
				if (!is_null(op->val))
					put_engines(&im, op);
				continue;
			}
			put_simple(&im, m, op);
			continue;
		}
		if (!def) {
			char what[600];
			snprintf(what, sizeof(what), "%s %s", op->key, op->val);
			not_honoured(&im, o->conf, op->line, what, "not an OpenSM 3.3.23 option");
			continue;
		}
		if (same_value(op->val, def) || (is_null(op->val) && is_null(def))) {
			res->at_default++;
			continue;
		}
		{
			char what[600];
			snprintf(what, sizeof(what), "%s %s (OpenSM's default %s)", op->key, op->val, def);
			not_honoured(&im, o->conf, op->line, what, reason(op->key));
		}
	}
	put_perf(&im);

	/* qos TRUE: the policy file is read as ibsm will read it and carried
	 * over; qos FALSE: OpenSM does not apply it, a comment keeps it. */
	{
		const char *qf = o->qos_policy ? o->qos_policy : qos ? qos->val : NULL;
		const struct opt *qon = find(&im, "qos");
		int on = qon && (!strcasecmp(qon->val, "true") || !strcmp(qon->val, "1"));

		if (qf && is_null(qf))
			qf = NULL;
		if (on && !qf) {
			not_honoured(&im, o->conf, qon->line, "qos TRUE",
				     "no qos_policy_file: give one (-Q FILE)");
		} else if (on) {
			char err[600];
			struct qos_policy *p = qos_policy_read(qf, err, sizeof(err));

			if (!p && access(qf, F_OK) < 0) {
				not_honoured(&im, o->conf, qon->line, "qos TRUE", err);
			} else if (!p) {
				fprintf(warn, "%s\n", err);
				im.errors++;
			} else {
				qos_policy_free(p);
				if (try_key(&im, "qos", "true", o->conf, qon->line, "qos") == 0 &&
				    try_key(&im, "qos_policy_file", qf, o->conf,
					    qos ? qos->line : qon->line, "qos_policy_file") == 0) {
					fprintf(out, "qos: true   # %s:%u qos TRUE\n", o->conf, qon->line);
					fprintf(out, "qos_policy_file: \"%s\"   # %s (OpenSM's format, read as it is)\n",
						qf, o->qos_policy ? "-Q" : "qos_policy_file");
					res->carried += 2;
				}
			}
		} else if (qf) {
			fprintf(out, "# qos_policy_file: %s   (OpenSM QoS policy, not applied: qos is\n"
				"#   FALSE in the OpenSM configuration; qos: true applies it, docs/qos.md)\n", qf);
			if (o->qos_policy)
				not_honoured(&im, o->qos_policy, 1, "qos-policy.conf",
					     "qos is FALSE in the OpenSM configuration: kept as a comment");
		}
	}

	/* partitions.conf: the one given, or the conf's if it exists (OpenSM
	 * reads it only when it exists, too). */
	{
		const char *pf = o->partitions;
		unsigned line = 0;

		if (!pf && part && !is_null(part->val)) {
			FILE *t = fopen(part->val, "r");
			if (t) {
				fclose(t);
				pf = part->val;
				line = part->line;
			} else if (errno != ENOENT) {
				fprintf(warn, "%s:%u: partition_config_file %s: %s\n", o->conf,
					part->line, part->val, strerror(errno));
				rc = -1;
			} else {
				fprintf(out, "# partition_config_file %s does not exist: no partitions (as OpenSM)\n",
					part->val);
			}
		}
		if (pf && read_partitions(&im, pf, line) < 0)
			rc = -1;
	}
	free(im.opts);
	config_free(&im.scratch);
	return rc || im.errors ? -1 : 0;
}
