/* The sweep guard: see sweep_guard.h for the rules. */
#include "sweep_guard.h"

#include <stdio.h>
#include <string.h>

void sweep_guard_init(struct sweep_guard *g, double grace_s)
{
	memset(g, 0, sizeof(*g));
	g->grace_s = grace_s;
}

static int own_port_linked(const struct sweep_result *r)
{
	return r->sm_port != FAB_NONE && r->sm_port < r->fab.num_ports &&
	       r->fab.ports[r->sm_port].peer != FAB_NONE;
}

enum sweep_verdict sweep_guard_judge(struct sweep_guard *g,
				     const struct sweep_result *r, double now,
				     char *why, size_t len)
{
	const struct fabric *f = &r->fab;
	enum sweep_verdict v = SWEEP_PROGRAM;

	why[0] = 0;
	if (!own_port_linked(r) ||
	    (g->have_good && g->good_switches && !f->num_switches)) {
		snprintf(why, len, "the SM's own port reaches no fabric (%u nodes seen%s)",
			 f->num_nodes, own_port_linked(r) ? "" : ", own port not linked");
		v = SWEEP_HOLD_NO_FABRIC;
	} else if (r->lost_probes || r->lost_attrs) {
		snprintf(why, len, "discovery incomplete: %u NodeInfo and %u other answers lost after retries",
			 r->lost_probes, r->lost_attrs);
		v = SWEEP_HOLD_INCOMPLETE;
	} else if (g->have_good && !g->trap_seen &&
		   (f->num_switches < g->good_switches || f->num_cas < g->good_cas)) {
		if (!g->missing_since)
			g->missing_since = now;
		if (now - g->missing_since < g->grace_s) {
			snprintf(why, len, "%u switches and %u CAs where the programmed view has %u and %u, no trap says why, missing for %.1f of %.0f s",
				 f->num_switches, f->num_cas, g->good_switches,
				 g->good_cas, now - g->missing_since, g->grace_s);
			v = SWEEP_HOLD_SMALLER;
		} else {
			snprintf(why, len, "%u switches and %u CAs (was %u and %u) for %.1f s: taking the smaller view",
				 f->num_switches, f->num_cas, g->good_switches,
				 g->good_cas, now - g->missing_since);
		}
	}
	g->held = v == SWEEP_PROGRAM ? 0 : g->held + 1;
	return v;
}

void sweep_guard_programmed(struct sweep_guard *g, const struct sweep_result *r)
{
	g->have_good = 1;
	g->good_switches = r->fab.num_switches;
	g->good_cas = r->fab.num_cas;
	g->trap_seen = 0;
	g->missing_since = 0;
	g->held = 0;
}

void sweep_guard_trap(struct sweep_guard *g)
{
	g->trap_seen = 1;
}

double sweep_guard_backoff(const struct sweep_guard *g)
{
	double d = 0.2;

	for (unsigned i = 1; i < g->held && d < 5.0; i++)
		d *= 2;
	return d > 5.0 ? 5.0 : d;
}
