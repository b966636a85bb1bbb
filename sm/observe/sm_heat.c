/* Heat-map drawing of the fabric (sm/observe/sm_heat.h). */
#include "sm_heat.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/log.h"
#include "../../formats/topo_read.h"
#include "../../perfmgr/perfmgr.h"
#include "../../routing/verify.h"
#include "../sm_state.h"

static uint32_t port_of(struct fabric *f, uint64_t guid, unsigned num)
{
	uint32_t n = fab_find_node_guid(f, guid);

	return n == FAB_NONE ? FAB_NONE : fab_port_idx(f, n, num);
}

/* PortXmitData (4-octet words) per second of every polled port, in MB/s;
 * 0 when nothing moved (then the route load is the better picture). */
static int measured(struct sm *sm, struct fabric *f, double *load)
{
	const struct perfmgr *pm = &sm->perf.pm;
	int any = 0;

	if (!pm->o.interval_s)
		return 0;
	for (uint32_t i = 0; i < pm->num_ports; i++) {
		const struct pm_port *pp = &pm->ports[i];
		uint32_t p = port_of(f, pp->node_guid, pp->port);

		if (p == FAB_NONE || pp->rate[PM_XMIT_DATA] <= 0)
			continue;
		load[p] = pp->rate[PM_XMIT_DATA] * 4.0 / 1e6;
		any = 1;
	}
	return any;
}

int sm_write_heat_dot(struct sm *sm, const char *path)
{
	struct fabric *f = &sm->cur.fab;
	double *load = calloc((size_t)f->num_ports + 1, sizeof(*load));
	uint8_t *held = calloc((size_t)f->num_ports + 1, 1);
	uint64_t *a2a = NULL;
	struct dot_heat heat = { .load = load, .held = held };
	int rc;

	if (!load || !held) {
		rc = -ENOMEM;
		goto out;
	}
	for (uint32_t i = 0; i < sm->hold.n; i++) {
		uint32_t p = port_of(f, sm->hold.e[i].guid, sm->hold.e[i].port);

		if (p != FAB_NONE) {
			held[p] = 1;
			if (f->ports[p].peer != FAB_NONE)
				held[f->ports[p].peer] = 1;
		}
	}
	if (measured(sm, f, load)) {
		heat.unit = "MB/s measured";
	} else if (sm->held.valid && sm->held.fab.num_switches == f->num_switches &&
		   sm->held.fab.num_ports == f->num_ports) {
		struct verify_opts vo = { .link_load = 1, .max_shifts = 1 };
		struct verify_result *vr = calloc(1, sizeof(*vr));

		a2a = calloc((size_t)f->num_ports + 1, sizeof(*a2a));
		if (!vr || !a2a) {
			free(vr);
			rc = -ENOMEM;
			goto out;
		}
		vo.a2a_load_out = a2a;
		rc = verify_routes(f, &sm->held.lft, &vo, vr);
		free(vr);
		if (rc)
			goto out;
		for (uint32_t p = 0; p < f->num_ports; p++)
			load[p] = (double)a2a[p];
		heat.unit = "routes (all-to-all)";
	} else {
		heat.load = NULL;       /* no tables yet: the topology only */
	}
	rc = topo_write_dot_heat(f, path, &heat);
out:
	if (rc == -ENOMEM)
		log_err("%s: out of memory for the heat map", path);
	free(a2a);
	free(load);
	free(held);
	return rc;
}
