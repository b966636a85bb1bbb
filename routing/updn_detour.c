/* updn: routes for switches that have no up*\/down* path to a
 * destination switch d (see updn.c's header and docs/routing.md).
 *
 * A stuck switch s joins the routed set through a neighbour v already in
 * it, if every dependency (s->v, v->next) is in G0 or an admissible
 * down->up turn (rg_turns.h): then CA traffic stays credit-loop-free.
 * Neighbours closest to d are tried first. Placed switches get C finite
 * (their hop count). */
#include <errno.h>

#include "updn_internal.h"

/* The neighbour of s to join through: closest to d, and first among
 * those needing no new turn (reusing turns leaves room for the turns
 * later destinations need). Returns its adjacency index or UINT32_MAX. */
static uint32_t detour_pick(struct updn *u, uint32_t s, int new_turns)
{
	const struct route_graph *g = &u->g;
	uint32_t best = UINT32_MAX;

	for (uint32_t i = g->adj_off[s]; i < g->adj_off[s + 1]; i++) {
		uint32_t v = g->adj[i].peer, ok = 1;
		if (u->C[v] == INF || (best != UINT32_MAX && u->C[v] >= u->C[g->adj[best].peer]))
			continue;
		for (uint32_t j = g->adj_off[v]; ok && j < g->adj_off[v + 1]; j++)
			ok = !u->cand[j] || (new_turns ? rg_turn_ok(&u->turns, i, j) :
					     rg_turn_known(&u->turns, i, j));
		if (ok)
			best = i;
	}
	return best;
}

static int detour_one(struct updn *u, uint32_t s, int new_turns)
{
	const struct route_graph *g = &u->g;
	uint32_t best = detour_pick(u, s, new_turns);

	if (best == UINT32_MAX)
		return 0;
	uint32_t v = g->adj[best].peer;
	for (uint32_t j = g->adj_off[v]; j < g->adj_off[v + 1]; j++)
		if (u->cand[j] && rg_turn_take(&u->turns, best, j))
			return -ENOMEM;
	u->cand[best] = 1;
	u->C[s] = u->C[v] + 1;
	return 1;
}

/* Detours are built outward from d in hop order (dist from rg_bfs), and
 * through switches without CAs too, since a leaf that lost its link to d
 * reaches it only over such switches. Done only for destinations where a
 * switch with CAs is stuck: on intact trees it costs nothing. */
static int detour_stuck_cas(struct updn *u, uint32_t d, const uint32_t *dist)
{
	const struct route_graph *g = &u->g;
	int progress = 1, n = 0, need = 0;

	for (uint32_t s = 0; s < g->nsw && !need; s++)
		need = s != d && u->C[s] == INF && g->cas[s] && dist[s] != INF;
	if (!need)
		return 0;
	/* queue holds the switches in BFS order (rg_bfs filled it). Known
	 * dependencies first, until nobody more joins; then one new turn
	 * at a time, going back to known ones after each. */
	while (progress) {
		progress = 0;
		for (int new_turns = 0; new_turns < 2 && !progress; new_turns++)
			for (uint32_t k = 0; k < g->nsw; k++) {
				uint32_t s = u->queue[k];
				if (dist[s] == INF)
					break;
				if (s == d || u->C[s] != INF)
					continue;
				int r = detour_one(u, s, new_turns);
				if (r < 0)
					return r;
				progress |= r;
				n += r && g->cas[s];
				if (r && new_turns)
					break;
			}
	}
	return n;
}

/* Switches that cannot reach d legally: those with CAs get loop-safe
 * detours (above) where they can; the rest take min-hop next hops
 * (OpenSM's updn leaves such entries empty unless connect_roots is set).
 * The top switches of a fat-tree, roots all, are local maxima of the
 * order, so no up*\/down* path joins two of them. Neither legal routes nor
 * detours pass through a switch left on min-hop entries, so only packets
 * such a switch originates itself (SMPs and traps, on VL15, which has no
 * credits to deadlock on) use them. Returns -ENOMEM or 0. */
int updn_connect_stuck(struct updn *u, uint32_t d)
{
	const struct route_graph *g = &u->g;
	uint32_t *dist = u->D; /* D is no longer needed for d */
	uint32_t s = 0;

	while (s < g->nsw && (s == d || u->C[s] != INF || u->comp[s] != u->comp[d]))
		s++;
	if (s == g->nsw)
		return 0;       /* the common case: nobody stuck, no BFS */
	u->C[d] = 0;
	rg_bfs(g, d, dist, u->queue);
	int r = detour_stuck_cas(u, d, dist);
	if (r < 0)
		return r;
	u->detoured += (uint64_t)r;
	u->connected += (uint64_t)r;
	for (s = 0; s < g->nsw; s++) {
		if (s == d || u->C[s] != INF || dist[s] == INF)
			continue;
		u->connected++;
		u->unsafe += g->cas[s] != 0;
		for (uint32_t i = g->adj_off[s]; i < g->adj_off[s + 1]; i++) {
			uint32_t w = g->adj[i].peer;
			u->cand[i] = dist[w] != INF && dist[w] + 1 == dist[s];
		}
	}
	return 0;
}
