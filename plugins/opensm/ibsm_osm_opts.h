/* The OpenSM-free half of libibsm-opensm.so: plugin options, GUID files
 * and ibsm's own log. Kept apart from OpenSM's headers because syslog.h
 * (pulled in by osm_log.h) defines LOG_ERR/LOG_INFO/LOG_DEBUG as macros,
 * which clash with core/log.h. */
#ifndef IBSM_PLUGINS_OPENSM_IBSM_OSM_OPTS_H
#define IBSM_PLUGINS_OPENSM_IBSM_OSM_OPTS_H

#include <stddef.h>
#include <stdint.h>

#define IBSM_OSM_PATH_LEN 512

/* What event_plugin_options may say (docs/opensm-plugin.md). */
struct ibsm_osm_opts {
	char roots[IBSM_OSM_PATH_LEN];  /* root switch GUID file ("" = none) */
	char cn[IBSM_OSM_PATH_LEN];     /* compute-node GUID file */
	char cn_order[IBSM_OSM_PATH_LEN]; /* rank order file, "" = host names,
					   * "port" = port order (core/cn_rank.h) */
	char engines[256];              /* engines to register ("" = all) */
	char dump[IBSM_OSM_PATH_LEN];   /* write the routed graph here */
	unsigned threads;               /* route_options.threads */
	int reroute;                    /* pass the last tables as `prev` */
	int hops;                       /* fill OpenSM's hop tables */
	int log_level;                  /* ibsm's own log (stderr) */
	int perfmgr_log;                /* log OpenSM's PerfMgr sweep times */
	unsigned vls;                   /* layer budget for layered engines
					 * (dfsp), 0 = what the ports allow */
};

/* osm_options.c */
void ibsm_osm_opts_default(struct ibsm_osm_opts *o);
/* Parse "key=value" words separated by blanks or ';'. Returns 0, or
 * -EINVAL with the reason in err. */
int ibsm_osm_opts_parse(struct ibsm_osm_opts *o, const char *text,
			char *err, size_t errlen);
/* Read a GUID file (core/guid_list.c: one GUID per line, 0x-hex or
 * decimal as OpenSM reads its root_guid_file, '#' comments). Returns the
 * count (>= 0) with *out malloc'ed, or -errno with the reason in err. */
int ibsm_osm_guid_file_load(const char *path, uint64_t **out, char *err,
			    size_t errlen);
/* Is name in the comma-separated list (an empty list holds everything)? */
int ibsm_osm_name_in_list(const char *list, const char *name);

/* ibsm's log (stderr): program name and level. */
void ibsm_osm_log_init(int level);
/* Seconds on CLOCK_MONOTONIC (core/log.h now_seconds). */
double ibsm_osm_now(void);

#endif
