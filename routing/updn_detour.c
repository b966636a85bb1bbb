/* updn: routes for switches that have no up*\/down* path to a
 * destination switch d (see updn.c's header and docs/routing.md).
 *
 * A stuck switch s with CAs is joined to the routed set (switches with C
 * finite) by the cheapest path of channels s -> x1 -> ... -> v, v routed:
 * fewest new down->up turns first, then fewest hops (Dijkstra over
 * channels). Every dependency on it -- each hop into the next, and the
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
#include "../core/log.h"
#include "updn_internal.h"

#define NONE UINT32_MAX
#define TURN_COST (1u << 16)    /* one new turn outweighs any hop count */
#define MAX_RETRIES 16          /* banned dependencies per stuck switch */

struct heap_ent {
	uint64_t order;         /* (key << 32) | push count: FIFO among equal keys */
	uint32_t node;
};

struct detour_search {
	uint32_t nch, maxdeg;
	uint32_t *key, *parent, *stamp, epoch;  /* per node: 2 x nch */
	struct heap_ent *heap;
	uint32_t nheap, cap, pushes;
	uint64_t *bad;          /* (a, b - first adj of b's switch) bits: closes a cycle */
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
	free(ds);
	u->ds = NULL;
}

void updn_detour_reset(struct updn *u)
{
	struct detour_search *ds = u->ds;

	if (ds)
		memset(ds->bad, 0, ((size_t)ds->nch * ds->maxdeg + 64) / 64 *
		       sizeof(uint64_t));
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
	if (!ds->key || !ds->parent || !ds->stamp || !ds->bad) {
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
		   uint32_t parent)
{
	if (ds->stamp[node] == ds->epoch && ds->key[node] <= key)
		return 0;
	if (grow_array((void **)&ds->heap, &ds->cap, ds->nheap + 1,
		       sizeof(*ds->heap), 256))
		return -ENOMEM;
	ds->stamp[node] = ds->epoch;
	ds->key[node] = key;
	ds->parent[node] = parent;
	struct heap_ent e = { (uint64_t)key << 32 | ds->pushes++, node };
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

/* Cheapest path from stuck switch s to a routed switch, over known
 * dependencies only or (new_turns) with new turns too. Returns its last
 * channel, or NONE when there is none or memory ran out (*err). */
static uint32_t search(struct updn *u, uint32_t s, int new_turns, int *err)
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
		if (ds_push(ds, i, 1, NONE))
			goto nomem;
	while (ds->nheap) {
		struct heap_ent e = ds_pop(ds);
		uint32_t node = e.node, key = (uint32_t)(e.order >> 32);
		if (ds->key[node] != key)
			continue;               /* stale entry */
		if (node >= ds->nch)
			return node - ds->nch;  /* cheapest complete path */
		uint32_t c = node, v = g->adj[c].peer;
		if (u->C[v] != INF) {
			uint32_t cost = end_cost(u, c, new_turns);
			if (cost != NONE && ds_push(ds, ds->nch + c, key + cost, c))
				goto nomem;
			continue;
		}
		for (uint32_t j = g->adj_off[v]; j < g->adj_off[v + 1]; j++) {
			uint32_t w = g->adj[j].peer, k = key + 1;
			if (w == u->turns.tail[c] || on_path(u, c, w) ||
			    !dep_usable(u, c, j, new_turns, &k))
				continue;
			if (ds_push(ds, j, k, c))
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
	for (uint32_t c = last, k = 1; c != NONE; c = ds->parent[c], k++) {
		u->cand[c] = 1;
		u->C[u->turns.tail[c]] = u->C[v] + k;
	}
	return 1;
}

/* Join stuck switch s: 1 placed, 0 no loop-safe path, -ENOMEM. Every
 * refused path remembers or bans one more dependency, so this ends. */
static int detour_one(struct updn *u, uint32_t s)
{
	int err = 0, r;

	u->ds->nban = 0;
	/* Known dependencies first: most stuck switches join through
	 * turns admitted for an earlier one, with no cycle search. */
	uint32_t last = search(u, s, 0, &err);
	if (err)
		return err;
	if (last != NONE)
		return commit(u, last);
	do {
		uint32_t before = u->ds->nban;
		last = search(u, s, 1, &err);
		if (err)
			return err;
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
		int r = detour_one(u, s);
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
