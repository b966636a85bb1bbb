/* libibsm-opensm.so: ibsm's routing engines inside a stock OpenSM 3.3.23.
 *
 * OpenSM loads the object as an event plugin (event_plugin_name ibsm-opensm);
 * its create() registers every ibsm engine as an OpenSM external routing
 * engine named "ibsm-<engine>". When OpenSM routes with one of them, the
 * subnet is converted into ibsm's fabric graph, the engine runs, and its
 * tables are written into each switch's new_lft, from where OpenSM's unicast
 * manager programs the switches as it does for its own engines.
 *
 * Files: osm_plugin.c (entry point, registration), osm_options.c
 * (event_plugin_options, GUID files), osm_subnet_fabric.c (OpenSM subnet ->
 * struct fabric), osm_route.c (the routing callback, new_lft and hop
 * tables). docs/opensm-plugin.md is the user's side.
 *
 * core/log.h cannot be included next to OpenSM's headers (syslog.h's
 * LOG_ERR macros clash with its enum), so ibsm's log is reached through
 * ibsm_osm_opts.h. */
#ifndef IBSM_PLUGINS_OPENSM_IBSM_OSM_H
#define IBSM_PLUGINS_OPENSM_IBSM_OSM_H

#include <stddef.h>
#include <stdint.h>

#include <opensm/osm_config.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_switch.h>

#include "core/fabric.h"
#include "ibsm_osm_opts.h"
#include "routing/engine.h"
#include "routing/lft.h"
#include "routing/path_sl.h"

#define IBSM_OSM_PREFIX "ibsm-"
#define IBSM_OSM_MAX_ENGINES 16

/* One registered engine; the context OpenSM hands back to the callbacks. */
struct ibsm_osm_engine {
	struct ibsm_osm_plugin *plugin;
	const struct route_engine *engine;
	char osm_name[64];              /* "ibsm-updn" */
	/* The last fabric and tables this engine produced (reroute=1). */
	struct fabric prev_fab;
	struct lft_set prev;
	int have_prev;
	/* Path SLs of the last routing (layered engines: dfsp), answered
	 * through OpenSM's path_sl callback and mapped SL n -> VL n by
	 * update_sl2vl. vls_used 0 or 1: no layers, OpenSM's own SLs. */
	struct path_sl sl;
};

struct ibsm_osm_plugin {
	osm_opensm_t *osm;
	struct ibsm_osm_engine engine[IBSM_OSM_MAX_ENGINES];
	unsigned num_engines;
	/* perfmgr_log: OpenSM's PerfMgr reports one PORT_ERRORS event per
	 * PortCounters reading; a gap of 2 s between readings ends a sweep. */
	int perfmgr_log;
	double pm_first, pm_last;
	unsigned pm_count, pm_errs, pm_sweeps;
};

/* The OpenSM subnet as a fabric, with the way back to OpenSM's switches. */
struct ibsm_osm_fabric {
	struct fabric fab;
	osm_switch_t **sw_of;           /* per switch ordinal */
};

/* osm_subnet_fabric.c */
/* Build the fabric from OpenSM's subnet: nodes in ascending node-GUID order
 * (so ibnetdiscover output sorted by GUID gives the same graph), links from
 * the physical ports, LIDs and LMC from the port objects. Returns 0 or
 * -errno with the reason in why (256 bytes). */
int ibsm_osm_fabric_build(osm_subn_t *subn, struct ibsm_osm_fabric *of,
			  char *why);
void ibsm_osm_fabric_free(struct ibsm_osm_fabric *of);

/* osm_route.c */
/* osm_routing_engine setup callback (external_routing_engine_module_t). */
int ibsm_osm_engine_setup(struct osm_routing_engine *re,
			  struct osm_opensm *osm);

#endif
