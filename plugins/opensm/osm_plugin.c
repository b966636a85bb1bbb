/* Entry point of libibsm-opensm.so: OpenSM's event-plugin interface
 * (osm_event_plugin.h). OpenSM dlopens "lib<event_plugin_name>.so", looks
 * up the symbol `osm_event_plugin`, requires osm_version to equal its own
 * OSM_VERSION string, and calls create() while initialising, before it
 * sets up the engines named by `routing_engine` (osm_opensm_init_finish).
 * That is the moment to register ours. OpenSM destroys its routing engines
 * before its plugins, so the contexts we hand out live long enough. */
#include <errno.h>
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

/* Events are not needed: routing happens through the engine callbacks. */
static void ibsm_report(void *data, osm_epi_event_id_t id, void *event)
{
	(void)data;
	(void)id;
	(void)event;
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
