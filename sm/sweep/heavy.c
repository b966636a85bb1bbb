/* The heavy sweep: its table of phases (drawn in sweep.h), the function
 * that applies it, and the phases that make the view discovered the SM's:
 * discovery, LIDs, the verdict, and handing the view to the services. */
#include "sweep.h"
#include "../sm_service.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/log.h"
#include "../program/lid_manager.h"

static int phase_discover(struct sweep_ctx *c);
static int phase_lids(struct sweep_ctx *c);
static int phase_verdict(struct sweep_ctx *c);
static int phase_hold(struct sweep_ctx *c);
static int phase_commit(struct sweep_ctx *c);
static int phase_services(struct sweep_ctx *c);

/* In order; sweep.h says what each does and when it ends the sweep. */
static const struct sweep_phase heavy_phases[] = {
	{ "discover",  phase_discover },
	{ "guard",     sweep_phase_guard },
	{ "standby",   sweep_phase_standby },
	{ "lids",      phase_lids },
	{ "route",     sweep_phase_route },
	{ "portinfo",  sweep_phase_portinfo },
	{ "sa-tables", sweep_phase_sa_tables },
	{ "pkeys",     sweep_phase_pkeys },
	{ "vls",       sweep_phase_vls },
	{ "qos",       sweep_phase_qos },
	{ "lfts",      sweep_phase_lfts },
	{ "activate",  sweep_phase_activate },
	{ "verdict",   phase_verdict },
	{ "hold",      phase_hold },
	{ "commit",    phase_commit },
	{ "services",  phase_services },
};
#define NUM_HEAVY_PHASES (sizeof(heavy_phases) / sizeof(heavy_phases[0]))

const struct sweep_phase *sweep_heavy_phases(unsigned *n)
{
	*n = NUM_HEAVY_PHASES;
	return heavy_phases;
}

static int following(const struct sm *sm)
{
	return sm->state == SMP_SM_STANDBY || sm->state == SMP_SM_NOTACTIVE;
}

void sweep_run(struct sweep_ctx *c, const struct sweep_phase *phases, unsigned n)
{
	int led = !following(c->sm);

	for (unsigned i = 0; i < n; i++) {
		double t = now_seconds();
		int r = phases[i].run(c);

		log_debug("sweep %u: phase %s %.3f s", c->n, phases[i].name,
			  now_seconds() - t);
		if (r < 0)
			c->rc = r;
		if (r != SWEEP_NEXT)
			return;
		/* An SMInfo control taken from the transport while a phase
		 * waited for its MADs (the ACKNOWLEDGE of our HANDOVER, a
		 * DISABLE) made us STANDBY or NOTACTIVE: from here the other
		 * SM programs the subnet, so stop before the next phase
		 * (IBA 14.4.1: a master that handed over does no more). */
		if (led && following(c->sm) && i + 1 < n) {
			log_info("sweep %u: %s by an SMInfo control during phase %s: the sweep stops here",
				 c->n, smctl_state_str(c->sm->state), phases[i].name);
			c->rc = SM_SWEEP_STANDBY;
			return;
		}
	}
}

static uint32_t count_links(const struct fabric *f)
{
	uint32_t n = 0;

	for (uint32_t p = 0; p < f->num_ports; p++)
		if (f->ports[p].peer != FAB_NONE && f->ports[p].peer > p)
			n++;
	return n;
}

static int phase_discover(struct sweep_ctx *c)
{
	struct subnet *nr = &c->nr;
	/* The P_Key tables the SM may program are read in the discovery
	 * window (sm/program/pkey_prefetch.h). */
	struct sweep_hook hook;
	double now;
	int rc;

	pkeyprog_discovery_hook(&c->sm->pkeys, &hook);
	rc = sweep_discover_hooked(c->t, nr, &hook);
	if (rc < 0)
		return rc;
	now = now_seconds();
	log_info("sweep %u: discovered %u nodes (%u switches, %u CAs, %u routers), %u links in %.3f s%s",
		 c->n, nr->fab.num_nodes, nr->fab.num_switches, nr->fab.num_cas,
		 nr->fab.num_routers, count_links(&nr->fab), now - c->mark,
		 nr->lost_probes || nr->lost_attrs ? " (some nodes did not answer)" : "");
	c->mark = now;
	if (nr->redone)
		log_info("sweep %u: loss: %u request%s failed every try and %s asked again in %u round%s; %u still unanswered",
			 c->n, nr->redone, nr->redone == 1 ? "" : "s",
			 nr->redone == 1 ? "was" : "were",
			 nr->redo_rounds, nr->redo_rounds == 1 ? "" : "s",
			 nr->lost_probes + nr->lost_attrs);
	return SWEEP_NEXT;
}

static int phase_lids(struct sweep_ctx *c)
{
	struct sm *sm = c->sm;
	int save_failed = 0;
	int changed = lidmgr_assign(&c->nr.fab, c->cfg->lmc, sm->guid2lid,
				    &save_failed);
	double now;

	if (changed < 0)
		return changed;
	if (sm->guid2lid[0])
		sm_persist_note(sm, SM_PERSIST_GUID2LID, !save_failed);
	sm->lid = (uint16_t)c->nr.fab.ports[c->nr.sm_port].lid;
	now = now_seconds();
	log_info("sweep %u: LIDs: %d changed, top LID %u, SM LID %u (%.3f s)", c->n,
		 changed, fab_max_lid(&c->nr.fab), sm->lid, now - c->mark);
	c->mark = now;
	return SWEEP_NEXT;
}

/* Up: routed tables programmed, every port ACTIVE, every node seen (or
 * its silence accepted, unreachable.h), no duplicate GUID. */
static int phase_verdict(struct sweep_ctx *c)
{
	const struct subnet *nr = &c->nr;

	c->up = c->routed && !c->ps.failed && !c->ps.not_active &&
		!c->ls.switches_failed &&
		(!nr->lost_probes || c->sm->unreach.n) && !nr->dup_guids;
	c->sm->dup_guids = nr->dup_guids;
	if (nr->dup_guids)
		log_err("sweep %u: %u duplicate GUID%s (named above): the second node of each is left out of routing; the fabric is not up until they are fixed",
			c->n, nr->dup_guids, nr->dup_guids == 1 ? "" : "s");
	c->rc = c->up ? 0 : 1;
	return SWEEP_NEXT;
}

/* The tables programmed are held with the fabric they were routed on
 * (the next route's previous tables), and the view is the guard's new
 * reference. */
static int phase_hold(struct sweep_ctx *c)
{
	struct sm *sm = c->sm;
	int rc;

	if (!c->routed)
		return SWEEP_NEXT;
	rc = lft_held_take(&sm->held, c->rf, &c->nl, &sm->memo_next, c->sw_ok,
			   &sm->spare);
	if (rc < 0)
		return rc;
	sweep_guard_programmed(&sm->guard, &c->nr);
	return SWEEP_NEXT;
}

/* The view becomes the SM's: sm->cur and its P_Key tables. */
static int phase_commit(struct sweep_ctx *c)
{
	struct sm *sm = c->sm;

	subnet_free(&sm->cur);
	sm->cur = c->nr;
	subnet_init(&c->nr);
	part_tables_free(&sm->parts);
	sm->parts = c->npt;
	part_tables_init(&c->npt);
	sm_flap_sweep(sm);
	sm->fabric_up = c->up;
	sm_set_state(sm, SMEV_SWEPT, NULL);   /* STANDBY, NOTACTIVE: ignored */
	return SWEEP_NEXT;
}

/* The services follow the new view (sm_service.h: the SA's database, the
 * sweep's Reports, multicast trees, PerfMgr's port list, in that order). */
static int phase_services(struct sweep_ctx *c)
{
	sm_services_on_subnet(c->sm, c->n, c->routed);
	return SWEEP_NEXT;
}

static void sweep_begin(struct sweep_ctx *c, struct sm *sm)
{
	memset(c, 0, sizeof(*c));
	c->sm = sm;
	c->cfg = sm->cfg;
	c->t = sm->t;
	c->s0 = *mt_get_stats(c->t);
	c->t0 = c->mark = now_seconds();
	c->n = ++sm->sweeps;
	sm->heavy_wanted = 0;
	sm->act_count++;
	sm->sweep_mads0 = c->s0.sent;
	if (sm->state != SMP_SM_MASTER) {
		sm->rereg_done = 0;     /* not master now: rereg when we become it */
		sm->rereg_tries = 0;
	}
	subnet_init(&c->nr);
	part_tables_init(&c->npt);
}

static void sweep_end(struct sweep_ctx *c)
{
	struct sm *sm = c->sm;
	struct mt_stats ds;
	int rc = c->rc;

	mt_stats_diff(&ds, &c->s0, mt_get_stats(c->t));
	if (rc < 0)
		log_err("sweep %u failed: %s", c->n, strerror(-rc));
	log_info("sweep %u: heavy sweep %.3f s, fabric %s%s; MADs sent %llu, received %llu, timed out %llu, retried %llu, failed %llu",
		 c->n, now_seconds() - c->t0, rc == 0 ? "UP" :
		 rc == SM_SWEEP_STANDBY ? "left to the master SM" : "NOT up",
		 rc == 0 && sm->unreach.n ?
		 " without its silent nodes (unreachable, see above)" : "",
		 (unsigned long long)ds.sent, (unsigned long long)ds.received,
		 (unsigned long long)ds.timed_out, (unsigned long long)ds.retried,
		 (unsigned long long)ds.failed);
	free(c->sw_ok);
	lft_free(&c->nl);
	if (c->have_heldout)
		fab_free(&c->heldout);
	part_tables_free(&c->npt);
	subnet_free(&c->nr);
	sm->last_heavy_end = now_seconds();
	sm->last_heavy_s = sm->last_heavy_end - c->t0;
	sm->heavy_s_total += sm->last_heavy_s;
}

int sm_heavy_sweep(struct sm *sm)
{
	struct sweep_ctx c;

	sweep_begin(&c, sm);
	sweep_run(&c, heavy_phases, NUM_HEAVY_PHASES);
	sweep_end(&c);
	return c.rc;
}
