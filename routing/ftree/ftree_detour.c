/* ftree detours: entries for switches with no up-then-down path to the
 * destination ("non-good" switches), chosen so the CDG stays acyclic.
 *
 * Such a switch must go down and turn up again somewhere, and a down->up
 * turn is what can close a credit loop. Every switch may source traffic
 * (it answers the SM and performance managers), so every non-good switch
 * gets a checked path, for CA and switch LIDs alike: the tables as a
 * whole, switch-to-switch entries included, keep an acyclic CDG.
 *
 * Sources are taken nearest to the good set first. Each keeps its entry,
 * or the port of its last one-hop detour, when that leads straight to a
 * final switch (good, or given a path earlier) through a turn already
 * taken; else it follows its steps toward the hub (ftree_hub.c), where
 * new turns are safe; else it searches breadth first for a final switch
 * such that every down->up turn on the way, and the one where the path
 * joins, keeps the CDG acyclic (ftree_turns.c): with turns already taken
 * only, then new ones at the hub, then any new one. The path's turns are
 * recorded and its switches get their entries. If no such path exists
 * the source keeps its shortest path; that is counted and logged, never
 * silent. */
#include <errno.h>
#include <stdlib.h>

#include "../../core/log.h"
#include "ftree.h"

int ft_detour_init(struct ft_detour *d, const struct ftree *t)
{
	size_t n = t->nsw;
	int r = ft_turns_init(&d->turns, t);
	d->done = calloc(n, sizeof(uint32_t));
	d->seen = calloc(n, sizeof(uint32_t));
	d->pred = calloc(n, sizeof(uint32_t));
	d->queue = calloc(n, sizeof(uint32_t));
	d->in_port = calloc(n, 1);
	d->via = calloc(n, 1);
	d->memo = calloc(n, 1);
	d->pcache = calloc(2 * n + 1, sizeof(*d->pcache));
	d->stamp = d->search = 0;
	d->paths = d->failed = 0;
	d->timed = log_get_level() >= LOG_DEBUG;
	d->cpu = 0;
	if (r || !d->done || !d->seen || !d->pred || !d->queue ||
	    !d->in_port || !d->via || !d->memo || !d->pcache) {
		ft_detour_free(d);
		return -ENOMEM;
	}
	return 0;
}

void ft_detour_free(struct ft_detour *d)
{
	ft_turns_free(&d->turns);
	free(d->done);
	free(d->seen);
	free(d->pred);
	free(d->queue);
	free(d->in_port);
	free(d->via);
	free(d->memo);
	free(d->pcache);
	d->pcache = NULL;
	d->in_port = d->via = d->memo = NULL;
	d->done = d->seen = d->pred = d->queue = NULL;
}

/* Is x's entry for this LID settled: good, or given a path already? */
static int is_final(const struct ft_detour *d, const struct ft_work *w,
		    uint32_t x)
{
	return w->good_mark[x] == w->epoch_grp || d->done[x] == d->stamp;
}

/* May this search take the new turn at y (in from above, out upward)?
 * allow_new 2: any turn the check passes; 1: hub turns only. */
static int new_ok(const struct ft_detour *d, const struct ftree *t,
		  uint32_t y, uint8_t in, uint8_t out)
{
	return d->allow_new == 2 ||
	       (d->allow_new == 1 && ft_hub_turn(t, y, in, out));
}

/* Try link l out of x during the search; returns 1 when it joins a final
 * switch through allowed turns (the path then ends at l->peer). Only a
 * down->up turn needs the check: at x when l goes up and x was entered
 * from above (from_above), at y when l goes down. */
static int try_link(struct ft_detour *d, struct ft_work *w, uint32_t x,
		    const struct ft_link *l, int down, int from_above,
		    uint32_t *tail)
{
	const struct ftree *t = w->t;
	uint32_t y = l->peer;
	if (d->seen[y] == d->search)
		return 0;
	if (!down && from_above &&
	    !ft_turn_ok(&d->turns, x, d->in_port[x], l->port,
			new_ok(d, t, x, d->in_port[x], l->port)))
		return 0;
	if (is_final(d, w, y)) {
		if (down &&
		    !ft_turn_ok(&d->turns, y, l->rport, w->nh[y],
				new_ok(d, t, y, l->rport, w->nh[y])))
			return 0;
		d->pred[y] = x;
		d->in_port[y] = l->rport;
		d->via[y] = l->port;
		return 1;
	}
	d->seen[y] = d->search;
	d->pred[y] = x;
	d->in_port[y] = l->rport;
	d->via[y] = l->port;
	d->queue[(*tail)++] = y;
	return 0;
}

/* Breadth first from s through non-final switches; the current entry of
 * each switch is tried first (the shortest path, or the previous route).
 * Returns the final switch joined, or FAB_NONE. */
static uint32_t search(struct ft_detour *d, struct ft_work *w, uint32_t s)
{
	const struct ftree *t = w->t;
	uint32_t head = 0, tail = 0;
	d->search++;
	d->seen[s] = d->search;
	d->in_port[s] = 0;
	d->queue[tail++] = s;
	while (head < tail) {
		uint32_t x = d->queue[head++];
		/* Entered from above with no turn taken there: every up-link
		 * would be a new down->up turn, refused in this pass. */
		int from_above = x != s && t->level[d->pred[x]] > t->level[x];
		int up_ok = d->allow_new == 2 || !from_above ||
			    (d->allow_new == 1 && (t->hub_role[x] &
				(FT_HUB_LEAF | FT_HUB_UP | FT_HUB_RESCUE))) ||
			    (d->turns.port_flag[t->fport[x] + d->in_port[x]] &
			     FT_PORT_TURN_IN);
		for (int pass = up_ok ? 0 : 1; pass < 4; pass += up_ok ? 1 : 2) {
			const struct ft_link *L = pass & 1 ? t->dn : t->up;
			const uint32_t *off = pass & 1 ? t->dn_off : t->up_off;
			for (uint32_t k = off[x]; k < off[x + 1]; k++) {
				/* passes 0, 1: the current entry; 2, 3: the rest */
				if ((L[k].port == w->nh[x]) != (pass < 2))
					continue;
				if (try_link(d, w, x, &L[k], pass & 1, from_above,
					     &tail))
					return L[k].peer;
			}
		}
	}
	return FAB_NONE;
}

/* Record the turns of the path s .. y; 0 if one is refused now that the
 * earlier ones of the same path are in the graph. */
static int take_turns(struct ft_detour *d, struct ft_work *w, uint32_t s,
		      uint32_t y)
{
	if (!ft_turn_take(&d->turns, y, d->in_port[y], w->nh[y]))
		return 0;
	for (uint32_t v = y; v != s; v = d->pred[v]) {
		uint32_t u = d->pred[v];
		if (u != s && !ft_turn_take(&d->turns, u, d->in_port[u], d->via[v]))
			return 0;
	}
	return 1;
}

static void set_path(struct ft_detour *d, struct ft_work *w, uint32_t s,
		     uint32_t y)
{
	for (uint32_t v = y; v != s; v = d->pred[v]) {
		uint32_t u = d->pred[v];
		w->nh[u] = d->via[v];
		d->done[u] = d->stamp;
	}
}

/* No acyclic path: keep the shortest one (entries leading ever closer to
 * the good set) and settle it, so later paths cannot loop through it. */
static void keep_shortest(struct ft_detour *d, struct ft_work *w, uint32_t s)
{
	const struct ftree *t = w->t;
	uint32_t x = s;
	while (x != FAB_NONE && !is_final(d, w, x)) {
		uint8_t p = w->nh[x];
		d->done[x] = d->stamp;
		x = ft_far_sw(t, x, p);
	}
	d->failed++;
}

/* The common case: leaving s by port p leads straight to a final switch
 * through no new turn (what the search would find first for the current
 * entry). */
static int one_hop_fine(struct ft_detour *d, struct ft_work *w, uint32_t s,
			uint8_t p, int slot)
{
	const struct ftree *t = w->t;
	if (!p || p == LFT_NO_PATH || p > t->nports[s])
		return 0;
	/* The far end of port p, from a per-switch one-entry cache (one
	 * for the current entry, one for the remembered port): the
	 * fabric-wide port arrays are a cache miss per look. */
	struct ft_peer_cache *c = &d->pcache[2 * (size_t)s + slot];
	if (c->port != p) {
		uint32_t e = t->fport[s] + p;
		c->port = p;
		c->peer = t->peer_sw[e];
		c->rport = t->peer_num[e];
		c->down = c->peer != FAB_NONE && !t->port_up[e];
	}
	uint32_t y = c->peer;
	if (y == FAB_NONE || !is_final(d, w, y))
		return 0;
	if (c->down && !ft_turn_ok(&d->turns, y, c->rport, w->nh[y], 0))
		return 0;
	w->nh[s] = p;
	d->done[s] = d->stamp;
	return 1;
}

/* The path toward the hub (ftree_hub.c, hub_port): each step checked
 * as the search checks it, new turns only at the hub; returns the final
 * switch it joins, or FAB_NONE. Most sources take it with no search. */
static uint32_t hub_walk(struct ft_detour *d, struct ft_work *w, uint32_t s)
{
	const struct ftree *t = w->t;
	uint32_t x = s;
	d->search++;
	d->seen[s] = d->search;
	d->in_port[s] = 0;
	d->allow_new = 1;
	for (unsigned hops = 0; hops < 4 * FT_MAX_LEVELS; hops++) {
		uint8_t p = t->hub_port[x];
		uint32_t y = ft_far_sw(t, x, p);
		if (y == FAB_NONE || d->seen[y] == d->search)
			return FAB_NONE;
		int down = t->level[y] < t->level[x];
		if (!down && x != s && t->level[d->pred[x]] > t->level[x] &&
		    !ft_turn_ok(&d->turns, x, d->in_port[x], p,
				new_ok(d, t, x, d->in_port[x], p)))
			return FAB_NONE;
		d->pred[y] = x;
		d->in_port[y] = t->peer_num[t->fport[x] + p];
		d->via[y] = p;
		if (is_final(d, w, y))
			return !down || ft_turn_ok(&d->turns, y, d->in_port[y], w->nh[y],
					new_ok(d, t, y, d->in_port[y], w->nh[y])) ?
				y : FAB_NONE;
		d->seen[y] = d->search;
		x = y;
	}
	return FAB_NONE;
}

static void route_source(struct ft_detour *d, struct ft_work *w, uint32_t s)
{
	/* The current entry, else the port that last gave s a one-hop path
	 * (for an earlier LID): both through turns already taken only. The
	 * search would try every link of s for that, most of them in vain
	 * (a non-good switch's default is its first link toward the good
	 * set, whose turn there is often not taken). */
	if (one_hop_fine(d, w, s, w->nh[s], 0) ||
	    (d->memo[s] != w->nh[s] && one_hop_fine(d, w, s, d->memo[s], 1))) {
		d->paths++;
		return;
	}
	uint32_t y = hub_walk(d, w, s);
	if (y != FAB_NONE && take_turns(d, w, s, y)) {
		if (d->pred[y] == s)
			d->memo[s] = d->via[y];
		set_path(d, w, s, y);
		d->paths++;
		return;
	}
	/* Each refused take adds turns to the graph, so this ends; the
	 * bound only guards against a bug. */
	for (int tries = 0; tries < 64; tries++) {
		/* Turns already taken first, then new ones at the hub
		 * (ftree_hub.c), then anywhere, only if needed. */
		y = FAB_NONE;
		for (int pass = 0; y == FAB_NONE && pass <= 2; pass++) {
			d->allow_new = pass;
			y = search(d, w, s);
		}
		if (y == FAB_NONE)
			break;
		if (take_turns(d, w, s, y)) {
			if (d->pred[y] == s)
				d->memo[s] = d->via[y];
			set_path(d, w, s, y);
			d->paths++;
			return;
		}
	}
	keep_shortest(d, w, s);
}

void ft_detour_route(struct ft_detour *d, struct ft_work *w,
		     const uint32_t *ng, uint32_t nng)
{
	d->stamp++;
	for (uint32_t i = 0; i < nng; i++)
		if (!is_final(d, w, ng[i]))
			route_source(d, w, ng[i]);
}
