/* The light sweep (sm_state.h): SwitchInfo of every known switch, to see
 * the PortStateChange bit (IBA 14.2.5.4); a switch that no longer answers
 * is a change too. */
#include "sweep.h"

#include <infiniband/mad.h>

#include "../../core/log.h"

struct light_ctx {
	int changed;
	const struct subnet *r;
};

static void on_light(void *ctx, uint64_t cookie, const uint8_t *req,
		     const uint8_t *resp)
{
	struct light_ctx *c = ctx;
	const struct fab_node *node = &c->r->fab.nodes[(uint32_t)cookie];
	struct smp_switchinfo si;

	(void)req;
	if (!resp || smp_status(resp)) {
		log_info("light sweep: switch 0x%016llx \"%s\" does not answer",
			 (unsigned long long)node->guid, node->desc);
		c->changed = 1;
		return;
	}
	smp_get_switchinfo(resp + 64, &si);
	if (si.port_state_change) {
		log_info("light sweep: port state change on switch 0x%016llx \"%s\"",
			 (unsigned long long)node->guid, node->desc);
		c->changed = 1;
	}
}

int sm_light_sweep(struct sm *sm, int *changed)
{
	struct light_ctx c = { .r = &sm->cur };
	const struct fabric *f = &sm->cur.fab;
	int rc;

	sm->act_count++;
	sm->light_sweeps++;
	for (uint32_t sw = 0; sw < f->num_switches; sw++) {
		uint32_t n = f->switches[sw];

		rc = mt_submit_dr(sm->t, &sm->cur.node_path[n], IB_MAD_METHOD_GET,
				  IB_ATTR_SWITCH_INFO, 0, NULL, on_light, &c, n);
		if (rc < 0)
			return rc;
	}
	rc = mt_drain(sm->t);
	/* Silent nodes left out are swept for again, once a light-sweep
	 * interval, to pick them up when they answer (unreachable.h). */
	*changed = c.changed || !sm->fabric_up || sm->unreach.n;
	return rc;
}
