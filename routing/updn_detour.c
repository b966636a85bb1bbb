/* updn: routes for switches that have no up*\/down* path to a
 * destination switch d (see updn.c's header and docs/routing.md).
 *
 * A stuck switch s with CAs is joined to the routed set (switches with C
 * finite) by the cheapest path of channels s -> x1 -> ... -> v, v routed:
 * fewest new down->up turns first, then fewest hops to d (A* over
 * channels; see search()). Every dependency on it -- each hop into the next, and the
 * last hop into every candidate v already has towards d -- must be in G0,
 * an admitted turn, or a turn rg_turn_ok admits (rg_turns.h): then CA
 * traffic stays credit-loop-free. The switches of the path are placed on
 * it (one candidate each) and later stuck switches may join through them.
 *
 * Only the switches a stuck CA switch needs are placed: a turn admitted
 * for a switch nobody sends through would only forbid turns a later
 * destination needs (two opposite turns at two leaves of one pod close a
 * cycle). The search sees the whole graph, so a leaf whose own pod is
 * blocked by earlier turns goes round through another pod. A path whose
 * turns close a cycle together (each one alone admissible) is refused at
 * commit; its first failing dependency is banned and the search runs
 * again. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../core/grow.h"
#include "updn_internal.h"

#define NONE UINT32_MAX
#define TURN_COST (1u << 16)    /* one new turn outweighs any hop count */
#define MAX_RETRIES 16          /* banned dependencies per stuck switch */
#define MEMO_LEN 16             /* channels of a switch's last detour kept */
#define MEMO_SLACK 2            /* hops a replayed detour may add to the shortest */
#define SEARCH_SLACK 4          /* ... a detour may add in the first search */

/* Heap order: key, then complete paths first, then deeper ones (the
 * usual A* tie-break: among equally promising paths, the one closest to
 * its end), then push order -- a deterministic order that does not
 * depend on how switches are numbered. */
struct heap_ent {
	uint64_t order;         /* key << 32 | !end << 31 | (255 - hops) << 23 | push count */
	uint32_t node;
};

struct detour_search {
	uint32_t nch, maxdeg;
	uint32_t *key, *parent, *stamp, epoch;  /* per node: 2 x nch */
	struct heap_ent *heap;
	uint32_t nheap, cap, pushes;
	uint64_t *bad;          /* (a, b - first adj of b's switch) bits: closes a cycle */
	uint32_t *memo;         /* per switch: its last detour, MEMO_LEN channels */
	uint8_t *memo_len;
	uint32_t ban_a[MAX_RETRIES], ban_b[MAX_RETRIES], nban;
};

void updn_detour_free(struct updn *u)
{
	struct detour_search *ds = u->ds;

	if (!ds)
		return;
	free(ds->key);
	free(ds->parent);
	free(ds->stamp);
	free(ds->heap);
	free(ds->bad);
	free(ds->memo);
	free(ds->memo_len);
	free(ds);
	u->ds = NULL;
}

void updn_detour_reset(struct updn *u)
{
	struct detour_search *ds = u->ds;

	if (ds) {
		memset(ds->bad, 0, ((size_t)ds->nch * ds->maxdeg + 64) / 64 *
		       sizeof(uint64_t));
		memset(ds->memo_len, 0, (size_t)u->g.nsw + 1);
	}
}

static int ds_init(struct updn *u)
{
	struct detour_search *ds;
	size_t n = 2 * (size_t)u->turns.nch + 1;

	if (u->ds)
		return 0;
	ds = calloc(1, sizeof(*ds));
	if (!ds)
		return -ENOMEM;
	u->ds = ds;
	ds->nch = u->turns.nch;
	for (uint32_t s = 0; s < u->g.nsw; s++)
		if (u->g.adj_off[s + 1] - u->g.adj_off[s] > ds->maxdeg)
			ds->maxdeg = u->g.adj_off[s + 1] - u->g.adj_off[s];
	ds->key = malloc(n * sizeof(uint32_t));
	ds->parent = malloc(n * sizeof(uint32_t));
	ds->stamp = calloc(n, sizeof(uint32_t));
	ds->bad = calloc(((size_t)ds->nch * ds->maxdeg + 64) / 64, sizeof(uint64_t));
	ds->memo = malloc(((size_t)u->g.nsw + 1) * MEMO_LEN * sizeof(uint32_t));
	ds->memo_len = calloc((size_t)u->g.nsw + 1, 1);
	if (!ds->key || !ds->parent || !ds->stamp || !ds->bad || !ds->memo ||
	    !ds->memo_len) {
		updn_detour_free(u);
		return -ENOMEM;
	}
	return 0;
}

static int banned(const struct detour_search *ds, uint32_t a, uint32_t b)
{
	for (uint32_t k = 0; k < ds->nban; k++)
		if (ds->ban_a[k] == a && ds->ban_b[k] == b)
			return 1;
	return 0;
}

static int ds_push(struct detour_search *ds, uint32_t node, uint32_t key,
		   uint32_t hops, uint32_t parent)
{
	if (ds->stamp[node] == ds->epoch && ds->key[node] <= key)
		return 0;
	if (grow_array((void **)&ds->heap, &ds->cap, ds->nheap + 1,
		       sizeof(*ds->heap), 256))
		return -ENOMEM;
	ds->stamp[node] = ds->epoch;
	ds->key[node] = key;
	ds->parent[node] = parent;
	uint64_t deep = 255 - (hops < 255 ? hops : 255);
	struct heap_ent e = { (uint64_t)key << 32 | (uint64_t)(node < ds->nch) << 31 |
			      deep << 23 | (ds->pushes++ & 0x7fffff), node };
	uint32_t i = ds->nheap++;
	while (i && ds->heap[(i - 1) / 2].order > e.order) {
		ds->heap[i] = ds->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	ds->heap[i] = e;
	return 0;
}

static struct heap_ent ds_pop(struct detour_search *ds)
{
	struct heap_ent top = ds->heap[0], e = ds->heap[--ds->nheap];
	uint32_t i = 0;

	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= ds->nheap)
			break;
		if (c + 1 < ds->nheap && ds->heap[c + 1].order < ds->heap[c].order)
			c++;
		if (ds->heap[c].order >= e.order)
			break;
		ds->heap[i] = ds->heap[c];
		i = c;
	}
	if (ds->nheap)
		ds->heap[i] = e;
	return top;
}

/* A dependency that closes a cycle keeps closing one while turns are
 * only added: that verdict is remembered, one bit per (channel, next
 * channel), so later searches skip it without a cycle search. */
static size_t dep_bit(const struct updn *u, uint32_t a, uint32_t b)
{
	return (size_t)a * u->ds->maxdeg + (b - u->g.adj_off[u->g.adj[a].peer]);
}

static int dep_bad(const struct updn *u, uint32_t a, uint32_t b)
{
	size_t bit = dep_bit(u, a, b);
	return u->ds->bad[bit / 64] >> (bit % 64) & 1;
}

/* May a path use a -> b: known for free, or as a new turn (checked when
 * the path is taken) unless remembered or banned as closing a cycle. */
static int dep_usable(const struct updn *u, uint32_t a, uint32_t b,
		      int new_turns, uint32_t *cost)
{
	if (rg_turn_known(&u->turns, a, b))
		return 1;
	if (!new_turns || dep_bad(u, a, b) || banned(u->ds, a, b))
		return 0;
	*cost += TURN_COST;
	return 1;
}

/* Is switch w on the path that ends with channel c? */
static int on_path(const struct updn *u, uint32_t c, uint32_t w)
{
	const struct detour_search *ds = u->ds;

	for (; c != NONE; c = ds->parent[c])
		if (u->turns.tail[c] == w || u->g.adj[c].peer == w)
			return 1;
	return 0;
}

/* Cost of ending a path with channel c into its routed head v (every
 * candidate v has towards d must follow c), or NONE when it cannot. */
static uint32_t end_cost(const struct updn *u, uint32_t c, int new_turns)
{
	const struct route_graph *g = &u->g;
	uint32_t v = g->adj[c].peer, cost = 0;

	for (uint32_t j = g->adj_off[v]; j < g->adj_off[v + 1]; j++)
		if (u->cand[j] && (g->adj[j].peer == u->turns.tail[c] ||
				   !dep_usable(u, c, j, new_turns, &cost)))
			return NONE;
	return cost;
}

/* Cheapest path from stuck switch s to d through a routed switch (whose
 * route it then follows), at most `limit` hops long: A* over channels, the key of a channel into y being
 * new turns x TURN_COST + hops so far + dist[y] (hops from y to d, a
 * lower bound of what remains), so only channels that can lie on a path
 * as short as the best one are looked at. Returns its last channel, or
 * NONE when there is none or memory ran out (*err). */
static uint32_t search(struct updn *u, uint32_t s, const uint32_t *dist,
		       uint32_t limit, int *err)
{
	const struct route_graph *g = &u->g;
	struct detour_search *ds = u->ds;

	if (++ds->epoch == 0) {
		memset(ds->stamp, 0, (2 * (size_t)ds->nch + 1) * sizeof(uint32_t));
		ds->epoch = 1;
	}
	ds->nheap = 0;
	ds->pushes = 0;
	for (uint32_t i = g->adj_off[s]; i < g->adj_off[s + 1]; i++)
		if (1 + dist[g->adj[i].peer] <= limit &&
		    ds_push(ds, i, 1 + dist[g->adj[i].peer], 1, NONE))
			goto nomem;
	while (ds->nheap) {
		struct heap_ent e = ds_pop(ds);
		uint32_t node = e.node, key = (uint32_t)(e.order >> 32);
		if (ds->key[node] != key)
			continue;               /* stale entry */
		if (node >= ds->nch)
			return node - ds->nch;  /* cheapest complete path */
		uint32_t c = node, v = g->adj[c].peer, at = key - dist[v];
		uint32_t hops = 255 - (uint32_t)(e.order >> 23 & 255);
		if (u->C[v] != INF) {
			uint32_t cost = end_cost(u, c, 1);
			if (cost != NONE && ((at + u->C[v]) & (TURN_COST - 1)) <= limit &&
			    ds_push(ds, ds->nch + c, at + u->C[v] + cost, hops, c))
				goto nomem;
			continue;
		}
		for (uint32_t j = g->adj_off[v]; j < g->adj_off[v + 1]; j++) {
			uint32_t w = g->adj[j].peer, k = at + 1 + dist[w];
			if (w == u->turns.tail[c] || (k & (TURN_COST - 1)) > limit ||
			    on_path(u, c, w) || !dep_usable(u, c, j, 1, &k))
				continue;
			if (ds_push(ds, j, k, hops + 1, c))
				goto nomem;
		}
	}
	return NONE;
nomem:
	*err = -ENOMEM;
	return NONE;
}

static void ban(struct detour_search *ds, uint32_t a, uint32_t b)
{
	if (ds->nban < MAX_RETRIES) {
		ds->ban_a[ds->nban] = a;
		ds->ban_b[ds->nban++] = b;
	}
}

/* Admit the dependency a -> b for the path being committed since turn
 * `mark`: 1 when taken (or known), 0 when it would close a cycle, or
 * -ENOMEM. A cycle it closes alone is remembered for good; one it closes
 * with this path's earlier turns only bans it for this switch. */
static int take(struct updn *u, uint32_t a, uint32_t b, uint32_t mark)
{
	if (rg_turn_known(&u->turns, a, b))
		return 1;
	if (!rg_turn_ok(&u->turns, a, b)) {
		if (u->turns.nturns == mark) {
			size_t bit = dep_bit(u, a, b);
			u->ds->bad[bit / 64] |= 1ull << (bit % 64);
		} else {
			ban(u->ds, a, b);
		}
		return 0;
	}
	return rg_turn_take(&u->turns, a, b) ? -ENOMEM : 1;
}

/* Take every dependency of the path ending with channel last and place
 * its switches. 1 placed, 0 refused (turns given back, the dependency
 * at fault remembered or banned), -ENOMEM. */
static int commit(struct updn *u, uint32_t last)
{
	const struct route_graph *g = &u->g;
	struct detour_search *ds = u->ds;
	uint32_t mark = u->turns.nturns, v = g->adj[last].peer;
	int r = 1;

	/* The path runs backwards through parent[]: dependencies are
	 * parent[c] -> c, and last -> every candidate of v. */
	for (uint32_t j = g->adj_off[v]; r == 1 && j < g->adj_off[v + 1]; j++)
		if (u->cand[j])
			r = take(u, last, j, mark);
	for (uint32_t c = last; r == 1 && ds->parent[c] != NONE; c = ds->parent[c])
		r = take(u, ds->parent[c], c, mark);
	if (r != 1) {
		rg_turns_rollback(&u->turns, mark);
		return r;
	}
	uint32_t k = 0;
	for (uint32_t c = last; c != NONE; c = ds->parent[c]) {
		u->cand[c] = 1;
		u->C[u->turns.tail[c]] = u->C[v] + ++k;
	}
	if (k <= MEMO_LEN) {    /* kept for the next destination (memo_replay) */
		uint32_t s = u->turns.tail[last], *m;
		for (uint32_t c = last; c != NONE; c = ds->parent[c])
			s = u->turns.tail[c];
		m = ds->memo + (size_t)s * MEMO_LEN;
		ds->memo_len[s] = (uint8_t)k;
		for (uint32_t c = last; c != NONE; c = ds->parent[c])
			m[--k] = c;
	}
	return 1;
}

/* The detour s took to an earlier destination, followed again: it serves
 * d too when it meets a routed switch over known dependencies only, at
 * most MEMO_SLACK hops longer than the shortest path (a leaf that lost
 * its link to one column goes round the same way to every switch of that
 * column; searching again would look at every equally short path first).
 * Returns its last channel with parent[] set, or NONE. */
static uint32_t memo_replay(struct updn *u, uint32_t s, const uint32_t *dist)
{
	const struct route_graph *g = &u->g;
	struct detour_search *ds = u->ds;
	const uint32_t *m = ds->memo + (size_t)s * MEMO_LEN;
	uint32_t prev = NONE;

	for (uint32_t k = 0; k < ds->memo_len[s]; k++) {
		uint32_t c = m[k], v = g->adj[c].peer;
		if (prev != NONE && !rg_turn_known(&u->turns, prev, c))
			return NONE;
		ds->parent[c] = prev;
		if (u->C[v] != INF)
			return end_cost(u, c, 0) == 0 &&
			       k + 1 + u->C[v] <= dist[s] + MEMO_SLACK ? c : NONE;
		prev = c;
	}
	return NONE;
}

/* Join stuck switch s: 1 placed, 0 no loop-safe path, -ENOMEM. Every
 * refused path remembers or bans one more dependency, so this ends. */
static int detour_one(struct updn *u, uint32_t s, const uint32_t *dist)
{
	const struct route_graph *g = &u->g;
	int err = 0, r;

	u->ds->nban = 0;
	/* A routed neighbour joined over known dependencies only: most
	 * stuck switches join next to an earlier detour like this, and a
	 * search would first look at every equally short path. */
	uint32_t last = NONE;
	for (uint32_t i = g->adj_off[s]; i < g->adj_off[s + 1]; i++) {
		uint32_t v = g->adj[i].peer;
		if (u->C[v] != INF && end_cost(u, i, 0) == 0 &&
		    (last == NONE || u->C[v] < u->C[g->adj[last].peer]))
			last = i;
	}
	if (last != NONE) {
		u->ds->parent[last] = NONE;
		return commit(u, last);
	}
	last = memo_replay(u, s, dist);
	if (last != NONE)
		return commit(u, last);
	/* Paths at most SEARCH_SLACK hops longer than the shortest first:
	 * otherwise a path that needs a new turn is found only after every
	 * path that needs none, of any length, was looked at. */
	uint32_t limit = dist[s] + SEARCH_SLACK;
	do {
		uint32_t before = u->ds->nban;
		last = search(u, s, dist, limit, &err);
		if (err)
			return err;
		if (last == NONE && limit != INF) {
			limit = INF;
			continue;
		}
		if (last == NONE)
			return 0;
		r = commit(u, last);
		if (!r && u->ds->nban == before && before == MAX_RETRIES)
			return 0;       /* out of bans: give up on s */
	} while (!r);
	return r;
}

/* Switches that cannot reach d legally: those with CAs get loop-safe
 * detours (above) where they can, nearest to d first; the rest take
 * min-hop next hops (OpenSM's updn leaves such entries empty unless
 * connect_roots is set). The top switches of a fat-tree, roots all, are
 * local maxima of the order, so no up*\/down* path joins two of them.
 * Neither legal routes nor detours pass through a switch left on min-hop
 * entries, so only packets such a switch originates itself (SMPs and
 * traps, on VL15, which has no credits to deadlock on) use them. Returns
 * -ENOMEM or 0. */
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
	/* queue holds the switches in BFS order from d (port order at
	 * each switch: independent of the order switches are listed). */
	for (uint32_t k = 0; k < g->nsw; k++) {
		s = u->queue[k];
		if (dist[s] == INF)
			break;
		if (s == d || u->C[s] != INF || !g->cas[s])
			continue;
		if (ds_init(u))
			return -ENOMEM;
		int r = detour_one(u, s, dist);
		if (r < 0)
			return r;
		u->detoured += (uint64_t)r;
		u->connected += (uint64_t)r;
	}
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
