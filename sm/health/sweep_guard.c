/* The sweep guard: see sweep_guard.h for the rules. */
#include "sweep_guard.h"

#include <stdio.h>
#include <string.h>

void sweep_guard_init(struct sweep_guard *g, double grace_s)
{
	memset(g, 0, sizeof(*g));
	g->grace_s = grace_s;
}

static int own_port_linked(const struct subnet *r)
{
	return r->sm_port != FAB_NONE && r->sm_port < r->fab.num_ports &&
	       r->fab.ports[r->sm_port].peer != FAB_NONE;
}

static int same_key(const struct sweep_silent *s, const struct sweep_lost *l)
{
	return s->guid == l->guid && s->attr == l->attr && s->port == l->port;
}

const struct sweep_silent *sweep_guard_silent(const struct sweep_guard *g,
					      const struct sweep_lost *l)
{
	for (uint32_t i = 0; i < g->num_silent; i++)
		if (same_key(&g->silent[i], l))
			return &g->silent[i];
	return NULL;
}

/* The silent list becomes this sweep's lost requests, each keeping the
 * time it was first lost if it was lost in the sweep before too. Returns
 * 1 when every lost request is in the list (none untracked). */
static int track_silent(struct sweep_guard *g, const struct subnet *r,
			double now)
{
	struct sweep_silent next[SWEEP_SILENT_TRACK];
	uint32_t n = 0;
	int all = r->num_lost == r->lost_probes + r->lost_attrs &&
		  r->num_lost <= SWEEP_SILENT_TRACK;

	for (uint32_t i = 0; i < r->num_lost && n < SWEEP_SILENT_TRACK; i++) {
		const struct sweep_lost *l = &r->lost[i];
		const struct sweep_silent *old = sweep_guard_silent(g, l);
		int dup = 0;

		for (uint32_t j = 0; j < n && !dup; j++)
			dup = same_key(&next[j], l);
		if (dup)
			continue;
		next[n] = (struct sweep_silent){ l->guid, l->attr, l->port,
						 old ? old->since : now };
		n++;
	}
	memcpy(g->silent, next, n * sizeof(*next));
	g->num_silent = n;
	g->silent_ripe = g->silent_again = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (now - g->silent[i].since >= g->grace_s)
			g->silent_ripe++;
		if (g->silent[i].since < now)
			g->silent_again++;
	}
	return all;
}

enum sweep_verdict sweep_guard_judge(struct sweep_guard *g,
				     const struct subnet *r, double now,
				     char *why, size_t len)
{
	const struct fabric *f = &r->fab;
	enum sweep_verdict v = SWEEP_PROGRAM;
	int all = track_silent(g, r, now);

	why[0] = 0;
	if (!own_port_linked(r) ||
	    (g->have_good && g->good_switches && !f->num_switches)) {
		snprintf(why, len, "the SM's own port reaches no fabric (%u nodes seen%s)",
			 f->num_nodes, own_port_linked(r) ? "" : ", own port not linked");
		v = SWEEP_HOLD_NO_FABRIC;
		goto out;
	}
	if (r->lost_probes || r->lost_attrs) {
		uint32_t bound = (uint32_t)(f->num_nodes * SWEEP_SILENT_SHARE);

		if (bound < SWEEP_SILENT_MIN)
			bound = SWEEP_SILENT_MIN;
		if (!all || g->silent_ripe < g->num_silent) {
			snprintf(why, len, "discovery incomplete: %u NodeInfo and %u other answers lost after retries (%u of them lost in every sweep for %.0f s)",
				 r->lost_probes, r->lost_attrs, g->silent_ripe,
				 g->grace_s);
			v = SWEEP_HOLD_INCOMPLETE;
			goto out;
		}
		if (g->have_good && g->num_silent > bound) {
			snprintf(why, len, "discovery incomplete: %u requests lost in every sweep for %.0f s, more than the %u silent nodes left out of a programmed fabric (too many at once to be broken hosts)",
				 g->num_silent, g->grace_s, bound);
			v = SWEEP_HOLD_INCOMPLETE;
			goto out;
		}
		snprintf(why, len, "%u request%s lost in every sweep for %.0f s (silent nodes): programming without them",
			 g->num_silent, g->num_silent == 1 ? "" : "s", g->grace_s);
		v = SWEEP_PROGRAM_UNREACHABLE;
	}
	uint32_t deficit = (f->num_switches < g->good_switches ?
			    g->good_switches - f->num_switches : 0) +
			   (f->num_cas < g->good_cas ? g->good_cas - f->num_cas : 0);

	/* Silent nodes, each silent for the grace, account for as many
	 * missing nodes: not held a second grace for them. */
	if (v == SWEEP_PROGRAM_UNREACHABLE && deficit <= g->num_silent)
		deficit = 0;
	if (g->have_good && !g->trap_seen && deficit) {
		size_t k = strlen(why);

		if (!g->missing_since)
			g->missing_since = now;
		if (now - g->missing_since < g->grace_s) {
			snprintf(why, len, "%u switches and %u CAs where the programmed view has %u and %u, no trap says why, missing for %.1f of %.0f s",
				 f->num_switches, f->num_cas,
				 g->good_switches, g->good_cas,
				 now - g->missing_since, g->grace_s);
			v = SWEEP_HOLD_SMALLER;
		} else {
			snprintf(why + k, len - k, "%s%u switches and %u CAs (was %u and %u) for %.1f s: taking the smaller view",
				 k ? "; " : "", f->num_switches, f->num_cas,
				 g->good_switches, g->good_cas,
				 now - g->missing_since);
		}
	}
out:
	g->held = v == SWEEP_PROGRAM || v == SWEEP_PROGRAM_UNREACHABLE ?
		  0 : g->held + 1;
	return v;
}

void sweep_guard_programmed(struct sweep_guard *g, const struct subnet *r)
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
