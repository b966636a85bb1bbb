/* Entry point of libibsm-opensm.so: OpenSM's event-plugin interface
 * (osm_event_plugin.h). OpenSM dlopens "lib<event_plugin_name>.so", looks
 * up the symbol `osm_event_plugin`, requires osm_version to equal its own
 * OSM_VERSION string, and calls create() while initialising, before it
 * sets up the engines named by `routing_engine` (osm_opensm_init_finish).
 * That is the moment to register ours. OpenSM destroys its routing engines
 * before its plugins, so the contexts we hand out live long enough. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <opensm/osm_event_plugin.h>
#include <opensm/osm_version.h>

#include "ibsm_osm.h"

static void register_engine(struct ibsm_osm_plugin *pl,
			    const struct route_engine *eng)
{
	osm_opensm_t *osm = pl->osm;
	struct ibsm_osm_engine *e;

	if (pl->num_engines == IBSM_OSM_MAX_ENGINES) {
		OSM_LOG(&osm->log, OSM_LOG_ERROR, "ibsm: more than %u engines; "
			"%s not registered\n", IBSM_OSM_MAX_ENGINES, eng->name);
		return;
	}
	e = &pl->engine[pl->num_engines];
	memset(e, 0, sizeof(*e));
	e->plugin = pl;
	e->engine = eng;
	fab_init(&e->prev_fab);
	if (snprintf(e->osm_name, sizeof(e->osm_name), IBSM_OSM_PREFIX "%s",
		     eng->name) >= (int)sizeof(e->osm_name)) {
		OSM_LOG(&osm->log, OSM_LOG_ERROR, "ibsm: engine name \"%s\" too "
			"long\n", eng->name);
		return;
	}
	external_routing_engine_module_t m = {
		.name = e->osm_name,
		.setup = ibsm_osm_engine_setup,
	};
	cl_status_t st = osm_register_external_routing_engine(osm, &m, e);
	if (st != CL_SUCCESS) {
		OSM_LOG(&osm->log, OSM_LOG_ERROR, "ibsm: OpenSM refused routing "
			"engine %s (%s)\n", e->osm_name, CL_STATUS_MSG(st));
		return;
	}
	pl->num_engines++;
	OSM_LOG(&osm->log, OSM_LOG_INFO, "ibsm: registered routing engine "
		"%s: %s\n", e->osm_name, eng->summary ? eng->summary : "");
}

static void *ibsm_create(struct osm_opensm *osm)
{
	struct ibsm_osm_plugin *pl;
	struct ibsm_osm_opts o;
	char err[256] = "";
	const struct route_engine *const *eng = route_builtin_engines();

	if (ibsm_osm_opts_parse(&o, osm->subn.opt.event_plugin_options, err,
				sizeof(err))) {
		/* Not fatal here: routing refuses (and says so) each time,
		 * so OpenSM's next engine runs. */
		OSM_LOG(&osm->log, OSM_LOG_ERROR, "ibsm: event_plugin_options: "
			"%s; every ibsm engine will refuse until it is fixed\n",
			err);
		ibsm_osm_opts_default(&o);
	}
	ibsm_osm_log_init(o.log_level);
	pl = calloc(1, sizeof(*pl));
	if (!pl) {
		OSM_LOG(&osm->log, OSM_LOG_ERROR, "ibsm: out of memory\n");
		return NULL;
	}
	pl->osm = osm;
	pl->perfmgr_log = o.perfmgr_log;
	for (unsigned i = 0; eng[i]; i++)
		if (ibsm_osm_name_in_list(o.engines, eng[i]->name))
			register_engine(pl, eng[i]);
	if (!pl->num_engines)
		OSM_LOG(&osm->log, OSM_LOG_ERROR, "ibsm: no routing engine "
			"registered (engines=%s)\n", o.engines);
	return pl;
}

static void ibsm_delete(void *data)
{
	struct ibsm_osm_plugin *pl = data;

	if (!pl)
		return;
	for (unsigned i = 0; i < pl->num_engines; i++) {
		struct ibsm_osm_engine *e = &pl->engine[i];
		if (e->have_prev) {
			fab_free(&e->prev_fab);
			lft_free(&e->prev);
		}
		path_sl_free(&e->sl);
	}
	free(pl);
}

/* Routing happens through the engine callbacks. The only events used are
 * OpenSM's PerfMgr readings of a port (perfmgr_log=1: PortCounters give
 * an error event, PortCountersExtended a data event): the time from the
 * first to the last reading of a sweep, logged when the next sweep starts, is
 * how long OpenSM's PerfMgr takes over the fabric (bench/perfmgr_bench.sh;
 * Debian's OpenSM is built without its own PerfMgr profiling). Readings
 * may be processed on more than one of OpenSM's threads: a lock. */
static pthread_mutex_t pm_lock = PTHREAD_MUTEX_INITIALIZER;

static void ibsm_report(void *data, osm_epi_event_id_t id, void *event)
{
	struct ibsm_osm_plugin *pl = data;
	double now;

	(void)event;
	if (!pl || !pl->perfmgr_log || (id != OSM_EVENT_ID_PORT_ERRORS &&
					 id != OSM_EVENT_ID_PORT_DATA_COUNTERS))
		return;
	pthread_mutex_lock(&pm_lock);
	now = ibsm_osm_now();
	if (pl->pm_count && now - pl->pm_last > 2.0) {
		pl->pm_sweeps++;
		OSM_LOG(&pl->osm->log, OSM_LOG_INFO, "ibsm: OpenSM perfmgr sweep "
			"%u: %u port readings in %.3f s (first to last; %u error "
			"and %u data counter readings)\n", pl->pm_sweeps,
			pl->pm_errs, pl->pm_last - pl->pm_first, pl->pm_errs,
			pl->pm_count - pl->pm_errs);
		pl->pm_count = 0;
		pl->pm_errs = 0;
	}
	if (!pl->pm_count)
		pl->pm_first = now;
	pl->pm_last = now;
	pl->pm_count++;
	if (id == OSM_EVENT_ID_PORT_ERRORS)
		pl->pm_errs++;
	pthread_mutex_unlock(&pm_lock);
}

/* The symbol OpenSM looks up (OSM_EVENT_PLUGIN_IMPL_NAME). Exported, so it
 * needs a declaration for -Wmissing-prototypes; no header is wanted. */
extern osm_event_plugin_t osm_event_plugin;
osm_event_plugin_t osm_event_plugin = {
	.osm_version = OSM_VERSION,
	.create = ibsm_create,
	.delete = ibsm_delete,
	.report = ibsm_report,
};
