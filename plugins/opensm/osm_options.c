/* event_plugin_options for libibsm-opensm.so, and GUID files.
 *
 * OpenSM hands the rest of the `event_plugin_options` line over verbatim
 * (its config parser cuts comments at '#', so paths must not hold one).
 * The line is shared by every event plugin; words we do not know are an
 * error so that typos do not pass silently. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/guid_list.h"
#include "core/log.h"
#include "ibsm_osm_opts.h"

void ibsm_osm_opts_default(struct ibsm_osm_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->hops = 1;
	o->log_level = LOG_WARN;
}

static int parse_bool(const char *v, int *out)
{
	if (!strcmp(v, "1") || !strcmp(v, "yes") || !strcmp(v, "on") ||
	    !strcmp(v, "true"))
		*out = 1;
	else if (!strcmp(v, "0") || !strcmp(v, "no") || !strcmp(v, "off") ||
		 !strcmp(v, "false"))
		*out = 0;
	else
		return -EINVAL;
	return 0;
}

static int copy_path(char *dst, size_t len, const char *v)
{
	if (!*v || strlen(v) >= len)
		return -EINVAL;
	memcpy(dst, v, strlen(v) + 1);
	return 0;
}

static int opt_one(struct ibsm_osm_opts *o, const char *key, const char *v)
{
	if (!strcmp(key, "roots") || !strcmp(key, "root_guid_file"))
		return copy_path(o->roots, sizeof(o->roots), v);
	if (!strcmp(key, "cn") || !strcmp(key, "cn_guid_file"))
		return copy_path(o->cn, sizeof(o->cn), v);
	if (!strcmp(key, "cn_order"))
		return copy_path(o->cn_order, sizeof(o->cn_order), v);
	if (!strcmp(key, "engines"))
		return copy_path(o->engines, sizeof(o->engines), v);
	if (!strcmp(key, "dump"))
		return copy_path(o->dump, sizeof(o->dump), v);
	if (!strcmp(key, "reroute"))
		return parse_bool(v, &o->reroute);
	if (!strcmp(key, "perfmgr_log"))
		return parse_bool(v, &o->perfmgr_log);
	if (!strcmp(key, "hops"))
		return parse_bool(v, &o->hops);
	if (!strcmp(key, "threads")) {
		char *end;
		unsigned long n = strtoul(v, &end, 10);
		if (*end || end == v || n > 1024)
			return -EINVAL;
		o->threads = (unsigned)n;
		return 0;
	}
	if (!strcmp(key, "vls")) {
		char *end;
		unsigned long n = strtoul(v, &end, 10);
		if (*end || end == v || n < 1 || n > 15)
			return -EINVAL;
		o->vls = (unsigned)n;
		return 0;
	}
	if (!strcmp(key, "log")) {
		int l = log_level_parse(v);
		if (l < 0)
			return -EINVAL;
		o->log_level = l;
		return 0;
	}
	return -ENOENT;
}

int ibsm_osm_opts_parse(struct ibsm_osm_opts *o, const char *text,
			char *err, size_t errlen)
{
	char buf[2048], *save = NULL;

	ibsm_osm_opts_default(o);
	if (!text || !*text || !strcmp(text, "(null)"))
		return 0;
	if (snprintf(buf, sizeof(buf), "%s", text) >= (int)sizeof(buf)) {
		snprintf(err, errlen, "event_plugin_options longer than %zu "
			 "characters", sizeof(buf) - 1);
		return -EINVAL;
	}
	for (char *w = strtok_r(buf, " \t;", &save); w;
	     w = strtok_r(NULL, " \t;", &save)) {
		char *eq = strchr(w, '=');
		if (!eq) {
			snprintf(err, errlen, "option \"%s\" is not key=value", w);
			return -EINVAL;
		}
		*eq = 0;
		int r = opt_one(o, w, eq + 1);
		if (r == -ENOENT) {
			snprintf(err, errlen, "unknown option \"%s\" (known: roots, "
				 "cn, cn_order, engines, dump, reroute, hops, threads, vls, perfmgr_log, log)", w);
			return -EINVAL;
		}
		if (r) {
			snprintf(err, errlen, "bad value \"%s\" for option \"%s\"",
				 eq + 1, w);
			return -EINVAL;
		}
	}
	return 0;
}

int ibsm_osm_name_in_list(const char *list, const char *name)
{
	size_t n = strlen(name);

	if (!list || !*list)
		return 1;
	for (const char *p = list; *p;) {
		size_t len = strcspn(p, ",");
		if (len == n && !strncmp(p, name, n))
			return 1;
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}

int ibsm_osm_guid_file_load(const char *path, uint64_t **out, char *err,
			    size_t errlen)
{
	return guid_list_load(path, out, err, errlen);
}

void ibsm_osm_log_init(int level)
{
	log_set_prog("ibsm-opensm");
	log_set_level((enum log_level)level);
}

double ibsm_osm_now(void)
{
	return now_seconds();
}
