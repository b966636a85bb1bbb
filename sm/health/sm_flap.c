/* Flap hold-out (sm/health/sm_flap.h). */
#include "sm_flap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <infiniband/mad.h>

#include "../../core/log.h"
#include "../../core/grow.h"
#include "../config/config.h"
#include "../sm_state.h"

void sm_flap_init(struct sm_flap *f, const struct ibsm_config *cfg)
{
	flap_track_init(&f->ft, cfg->flap_hold_count, cfg->flap_hold_window_s,
			cfg->flap_hold_quiet_s);
	f->pending = NULL;
	f->npend = f->cappend = 0;
	f->changed = 0;
	f->polls = 0;
}

void sm_flap_free(struct sm_flap *f)
{
	flap_track_free(&f->ft);
	free(f->pending);
	f->pending = NULL;
	f->npend = f->cappend = 0;
}

/* Count one observation; hold the link when the port starts flapping. */
static void observe(struct sm *sm, uint64_t guid, uint8_t port, int up,
		    const char *desc, double now)
{
	struct sm_flap *f = &sm->flap;
	int i = flap_track_port(&f->ft, guid, port);
	char reason[128];
	unsigned k;

	if (i < 0)
		return;
	if (!flap_track_observe(&f->ft, (uint32_t)i, up, now))
		return;
	k = flap_track_recent(&f->ft, (uint32_t)i, now);
	snprintf(reason, sizeof(reason), "flapping: %u state changes in %.0f s",
		 k, f->ft.window);
	if (link_hold_add(&sm->hold, guid, port, reason, now) > 0)
		f->changed = 1;
	log_warn("port flapping: switch 0x%016llx \"%s\" port %u: %u state changes in %.0f s; its link is held out of routing until it stays up for %.0f s",
		 (unsigned long long)guid, desc, port, k, f->ft.window,
		 f->ft.quiet);
}

void sm_flap_trap(struct sm *sm, uint16_t issuer_lid)
{
	struct sm_flap *f = &sm->flap;
	const struct fabric *fab = &sm->cur.fab;

	if (!sm->cfg->flap_hold_count || !issuer_lid)
		return;
	for (uint32_t s = 0; s < fab->num_switches; s++) {
		uint32_t n = fab->switches[s];
		uint64_t g = fab->nodes[n].guid;

		if (fab->ports[fab->nodes[n].first_port].lid != issuer_lid)
			continue;
		for (uint32_t j = 0; j < f->npend; j++)
			if (f->pending[j] == g)
				return;
		if (grow_array((void **)&f->pending, &f->cappend, f->npend + 1,
			       sizeof(*f->pending), 16))
			return;
		f->pending[f->npend++] = g;
		return;
	}
}

void sm_flap_sweep(struct sm *sm)
{
	const struct fabric *fab = &sm->cur.fab;
	double now = now_seconds();

	if (!sm->cfg->flap_hold_count)
		return;
	for (uint32_t s = 0; s < fab->num_switches; s++) {
		const struct fab_node *nd = &fab->nodes[fab->switches[s]];

		for (uint8_t p = 1; p <= nd->num_ports; p++) {
			const struct fab_port *fp = &fab->ports[nd->first_port + p];

			if (!fp->state)
				continue;
			observe(sm, nd->guid, p, fp->state >= FAB_PORT_INIT,
				nd->desc, now);
		}
	}
}

/* cookie: the switch's node index in sm->cur << 8 | port. The reads are
 * drained by the next heavy sweep at the latest, before sm->cur changes. */
static void on_portinfo(void *ctx, uint64_t cookie, const uint8_t *req,
			const uint8_t *resp)
{
	struct sm *sm = ctx;
	uint32_t n = (uint32_t)(cookie >> 8);
	uint8_t port = (uint8_t)cookie;
	struct smp_portinfo pi;

	(void)req;
	if (!resp || smp_status(resp) || n >= sm->cur.fab.num_nodes)
		return;
	smp_get_portinfo(resp + 64, &pi);
	observe(sm, sm->cur.fab.nodes[n].guid, port, pi.state >= FAB_PORT_INIT,
		sm->cur.fab.nodes[n].desc, now_seconds());
}

double sm_flap_next_deadline(const struct sm *sm, double now)
{
	const struct sm_flap *f = &sm->flap;

	if (f->npend || f->changed)
		return now;
	return flap_track_next_deadline(&f->ft);
}

int sm_flap_tick(struct sm *sm, double now)
{
	struct sm_flap *f = &sm->flap;
	struct fabric *fab = &sm->cur.fab;
	uint32_t from = 0;
	int i, changed;

	for (uint32_t j = 0; j < f->npend; j++) {
		uint32_t n = fab_find_node_guid(fab, f->pending[j]);

		if (n == FAB_NONE)
			continue;
		for (uint8_t p = 1; p <= fab->nodes[n].num_ports; p++) {
			if (mt_submit_dr(sm->t, &sm->cur.node_path[n],
					 IB_MAD_METHOD_GET, IB_ATTR_PORT_INFO, p,
					 NULL, on_portinfo, sm,
					 (uint64_t)n << 8 | p) < 0)
				break;
			f->polls++;
		}
	}
	f->npend = 0;
	while ((i = flap_track_next_release(&f->ft, now, &from)) >= 0) {
		const struct flap_port *fp = &f->ft.p[i];

		if (link_hold_remove(&sm->hold, fp->guid, fp->port) > 0)
			f->changed = 1;
		log_info("port flapping over: switch 0x%016llx port %u up and quiet for %.0f s (%u state changes in all): back in routing",
			 (unsigned long long)fp->guid, fp->port, now - fp->last_ev,
			 fp->total);
	}
	changed = f->changed;
	f->changed = 0;
	return changed;
}
