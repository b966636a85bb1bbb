/* `updn`: up*\/down* routing (Schroeder et al., "Autonet: a high-speed,
 * self-configuring local area network using point-to-point links", IEEE
 * JSAC 9(8), 1991), deadlock-free with one VL on any connected topology.
 *
 * Direction of links. Switches are ranked by BFS distance from the root
 * switches; the total order key(s) = (rank, GUID, ordinal) orients every
 * link: s->v is "up" when key(v) < key(s), else "down". Up links form a
 * DAG, so a path that never takes an up link after a down link cannot close
 * a cycle in the channel dependency graph (Dally & Seitz 1987).
 *
 * Roots. route_options.root_guids when given; otherwise the switches
 * farthest (in hops) from every switch with CAs attached: the spines of a
 * fat-tree. When every switch has CAs (tori, dragonflies, random graphs)
 * or none has, one root is taken instead: the middle of a longest BFS path
 * (double sweep), a cheap approximation of the graph centre.
 *
 * Routes. An LFT has one egress per (switch, LID), with no memory of how a
 * packet arrived, so the choice at a switch must be legal for every path
 * passing through it. Per destination switch d:
 *  1. D[s] = shortest down-only distance from s to d (BFS from d along
 *     reversed down links). A switch with finite D routes down, to a
 *     neighbour below it with D one less: that neighbour routes down too,
 *     so once a packet goes down it keeps going down.
 *  2. Every other switch must go up first: C[s] = 1 + min C[u] over its
 *     up-neighbours u (with C = D on the down set), computed in key order
 *     since up links point to smaller keys. It routes to an up-neighbour
 *     with C one less; whatever u does next is legal after an up hop.
 * Equal-cost choices are balanced by port load and LMC aliases spread as in
 * minhop (route_graph.c). A switch that can reach d going only down always
 * does, even when an up-then-down path would be shorter (irregular graphs
 * only; on fat-trees the two coincide).
 *
 * With several roots, a switch whose up-chains all end at roots that cannot
 * reach d going down has no legal path. For a destination with CAs that is
 * detected and routing restarts with a single root, for which the BFS tree
 * alone guarantees a legal path between any two switches. Otherwise, and
 * for destinations that are only a switch's own LID, a stuck switch with
 * CAs gets a detour: the cheapest path into the routed set whose down->up
 * turns close no credit loop (rg_turns.h; see updn_detour.c). If some
 * switch with CAs finds none, the destinations concerned are routed first
 * in up to UPDN_EARLY_ROUNDS more passes, then one root is taken. So
 * everything CAs send, to CA and switch LIDs alike, is credit-loop-free on
 * one VL; only what a switch without CAs originates itself takes plain
 * min-hop entries. Two spines of a fat-tree, for instance, are joined by
 * no up*\/down* path at all; neither is a leaf that lost its link to the
 * middle switch of one column and that switch.
 *
 * Order. Destinations are routed in GUID order (port loads and admitted
 * turns build up in it) and every tie is broken by GUID or port number,
 * so the tables depend on the fabric and its LIDs only, not on the order
 * the switches were listed (ibsm-route) or discovered (the daemon). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/log.h"
#include "engine.h"
#include "route_graph.h"

#include "updn_internal.h"

static void updn_free(struct updn *u)
{
	free(u->rank);
	free(u->pos);
	free(u->order);
	free(u->comp);
	free(u->by_guid);
	free(u->early);
	free(u->D);
	free(u->C);
	free(u->queue);
	free(u->load);
	free(u->cand);
	updn_detour_free(u);
	rg_turns_free(&u->turns);
	rg_free(&u->g);
	memset(u, 0, sizeof(*u));
}

static uint64_t sw_guid(const struct updn *u, uint32_t s)
{
	const struct fabric *f = u->g.fab;
	return f->nodes[f->switches[s]].guid;
}

/* Multi-source BFS into dist[] from the sources already at 0 in it. */
static void bfs_from_set(const struct route_graph *g, uint32_t *dist,
			 uint32_t *queue)
{
	uint32_t head = 0, tail = 0;
	for (uint32_t s = 0; s < g->nsw; s++)
		if (dist[s] == 0)
			queue[tail++] = s;
	while (head < tail) {
		uint32_t s = queue[head++];
		for (uint32_t i = g->adj_off[s]; i < g->adj_off[s + 1]; i++) {
			uint32_t v = g->adj[i].peer;
			if (dist[v] == INF) {
				dist[v] = dist[s] + 1;
				queue[tail++] = v;
			}
		}
	}
}

/* The middle of a longest shortest path found by two BFS sweeps from
 * switch `start`: about the centre of its component. Ties go to the
 * lower GUID. */
static uint32_t centre_of(struct updn *u, uint32_t start)
{
	const struct route_graph *g = &u->g;
	uint32_t *dist = u->D;
	uint32_t a = start, b = start;
	rg_bfs(g, start, dist, u->queue);
	for (uint32_t k = 0; k < g->nsw; k++) {
		uint32_t s = u->by_guid[k];
		if (dist[s] != INF && dist[s] > dist[a])
			a = s;
	}
	rg_bfs(g, a, dist, u->queue);
	for (uint32_t k = 0; k < g->nsw; k++) {
		uint32_t s = u->by_guid[k];
		if (dist[s] != INF && dist[s] > dist[b])
			b = s;
	}
	uint32_t half = dist[b] / 2;
	while (dist[b] > half) {
		for (uint32_t i = g->adj_off[b]; i < g->adj_off[b + 1]; i++)
			if (dist[g->adj[i].peer] + 1 == dist[b]) {
				b = g->adj[i].peer;
				break;
			}
	}
	return b;
}

/* Mark roots with rank 0 in u->rank (others INF); returns how many. */
static uint32_t pick_roots(struct updn *u, const struct route_options *opt,
			   int single, const char **how)
{
	const struct route_graph *g = &u->g;
	struct fabric *f = (struct fabric *)g->fab; /* GUID index is a cache */
	uint32_t n = 0;

	for (uint32_t s = 0; s < g->nsw; s++)
		u->rank[s] = INF;
	if (!single && opt && opt->num_root_guids) {
		for (uint32_t k = 0; k < opt->num_root_guids; k++) {
			uint32_t node = fab_find_node_guid(f, opt->root_guids[k]);
			if (node == FAB_NONE || !fab_is_switch(f, node)) {
				log_warn("updn: root GUID 0x%016" PRIx64 " is not a "
					 "switch of this fabric", opt->root_guids[k]);
				continue;
			}
			n += u->rank[f->nodes[node].sw_index] != 0;
			u->rank[f->nodes[node].sw_index] = 0;
		}
		*how = "given";
		if (n)
			return n;
	}
	if (!single) {
		/* Distance of every switch from the nearest switch with CAs. */
		uint32_t *dist = u->D, far = 0;
		for (uint32_t s = 0; s < g->nsw; s++)
			dist[s] = g->cas[s] ? 0 : INF;
		bfs_from_set(g, dist, u->queue);
		for (uint32_t s = 0; s < g->nsw; s++)
			if (dist[s] != INF && dist[s] > far)
				far = dist[s];
		if (far > 0) {
			for (uint32_t s = 0; s < g->nsw; s++)
				if (dist[s] == far) {
					u->rank[s] = 0;
					n++;
				}
			*how = "farthest from the CAs";
			return n;
		}
	}
	/* One root: the given/detected root with the lowest GUID when
	 * falling back, else the centre. */
	uint32_t root = INF;
	if (single && opt && opt->num_root_guids) {
		for (uint32_t k = 0; k < opt->num_root_guids; k++) {
			uint32_t node = fab_find_node_guid(f, opt->root_guids[k]);
			if (node != FAB_NONE && fab_is_switch(f, node) &&
			    (root == INF || opt->root_guids[k] < sw_guid(u, root)))
				root = f->nodes[node].sw_index;
		}
	}
	if (root == INF)
		root = centre_of(u, u->by_guid[0]);
	for (uint32_t s = 0; s < g->nsw; s++)
		u->rank[s] = INF;
	u->rank[root] = 0;
	*how = single ? "single root (fallback)" : "graph centre";
	return 1;
}

static int key_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct updn *u = ctx;
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	if (u->rank[a] != u->rank[b])
		return u->rank[a] < u->rank[b] ? -1 : 1;
	uint64_t ga = sw_guid(u, a), gb = sw_guid(u, b);
	if (ga != gb)
		return ga < gb ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* Ranks from the roots; switches in components without a root are ranked
 * from their first switch (no route can cross components anyway). */
static void rank_switches(struct updn *u)
{
	const struct route_graph *g = &u->g;
	bfs_from_set(g, u->rank, u->queue);
	for (uint32_t k = 0; k < g->nsw; k++) {
		uint32_t s = u->by_guid[k];
		if (u->rank[s] != INF)
			continue;
		/* Only the new root is at 0 among unranked: BFS from it. */
		uint32_t *tmp = u->D;
		rg_bfs(g, s, tmp, u->queue);
		for (uint32_t v = 0; v < g->nsw; v++)
			if (tmp[v] != INF && u->rank[v] == INF)
				u->rank[v] = tmp[v];
	}
	for (uint32_t s = 0; s < g->nsw; s++)
		u->order[s] = s;
	qsort_r(u->order, g->nsw, sizeof(uint32_t), key_cmp, u);
	for (uint32_t k = 0; k < g->nsw; k++)
		u->pos[u->order[k]] = k;
}

static void components(struct updn *u)
{
	const struct route_graph *g = &u->g;
	for (uint32_t s = 0; s < g->nsw; s++)
		u->comp[s] = INF;
	for (uint32_t s = 0; s < g->nsw; s++) {
		if (u->comp[s] != INF)
			continue;
		uint32_t head = 0, tail = 0;
		u->comp[s] = s;
		u->queue[tail++] = s;
		while (head < tail) {
			uint32_t x = u->queue[head++];
			for (uint32_t i = g->adj_off[x]; i < g->adj_off[x + 1]; i++)
				if (u->comp[g->adj[i].peer] == INF) {
					u->comp[g->adj[i].peer] = s;
					u->queue[tail++] = g->adj[i].peer;
				}
		}
	}
}

/* Candidates towards switch d (see the header comment). Returns the number
 * of switches with CAs in d's component left without a legal path. */
static uint32_t dest_candidates(struct updn *u, uint32_t d)
{
	const struct route_graph *g = &u->g;
	uint32_t *D = u->D, *C = u->C, head = 0, tail = 0, stuck = 0;

	for (uint32_t s = 0; s < g->nsw; s++)
		D[s] = INF;
	D[d] = 0;
	u->queue[tail++] = d;
	while (head < tail) {   /* reversed down links = up links from v */
		uint32_t v = u->queue[head++];
		for (uint32_t i = g->adj_off[v]; i < g->adj_off[v + 1]; i++) {
			uint32_t w = g->adj[i].peer;
			if (u->pos[w] < u->pos[v] && D[w] == INF) {
				D[w] = D[v] + 1;
				u->queue[tail++] = w;
			}
		}
	}
	for (uint32_t k = 0; k < g->nsw; k++) {
		uint32_t s = u->order[k];
		C[s] = D[s];
		if (D[s] != INF)
			continue;
		for (uint32_t i = g->adj_off[s]; i < g->adj_off[s + 1]; i++) {
			uint32_t w = g->adj[i].peer;
			if (u->pos[w] < u->pos[s] && C[w] != INF && C[w] + 1 < C[s])
				C[s] = C[w] + 1;
		}
		/* Only a switch with CAs sources CA traffic; one without
		 * is patched by connect_stuck. */
		stuck += C[s] == INF && u->comp[s] == u->comp[d] && g->cas[s];
	}
	for (uint32_t s = 0; s < g->nsw; s++) {
		for (uint32_t i = g->adj_off[s]; i < g->adj_off[s + 1]; i++) {
			uint32_t w = g->adj[i].peer;
			if (D[s] != INF)
				u->cand[i] = u->pos[w] > u->pos[s] &&
					     D[w] != INF && D[w] + 1 == D[s];
			else
				u->cand[i] = C[s] != INF && C[w] != INF &&
					     u->pos[w] < u->pos[s] && C[w] + 1 == C[s];
		}
	}
	return stuck;
}

static int updn_alloc(struct updn *u, const struct fabric *f)
{
	memset(u, 0, sizeof(*u));
	int r = rg_build(&u->g, f);
	if (r)
		return r;
	size_t n = (size_t)u->g.nsw + 1;
	u->rank = malloc(n * sizeof(uint32_t));
	u->pos = malloc(n * sizeof(uint32_t));
	u->order = malloc(n * sizeof(uint32_t));
	u->comp = malloc(n * sizeof(uint32_t));
	u->by_guid = malloc(n * sizeof(uint32_t));
	u->early = calloc(n, 1);
	u->D = malloc(n * sizeof(uint32_t));
	u->C = malloc(n * sizeof(uint32_t));
	u->queue = malloc(n * sizeof(uint32_t));
	u->load = malloc(((size_t)f->num_ports + 1) * sizeof(uint32_t));
	u->cand = malloc((size_t)u->g.adj_off[u->g.nsw] + 1);
	if (!u->rank || !u->pos || !u->order || !u->comp || !u->by_guid || !u->early ||
	    !u->D || !u->C ||
	    !u->queue || !u->load || !u->cand ||
	    rg_turns_init(&u->turns, &u->g, u->pos)) {
		updn_free(u);
		return -ENOMEM;
	}
	rg_guid_order(&u->g, u->by_guid);
	return 0;
}

/* One full routing pass. Returns 0, or -EAGAIN when some switch had no
 * legal path (multiple roots that do not all reach every switch). */
static int updn_pass(struct updn *u, const struct route_options *opt,
		     int single, struct lft_set *t)
{
	const char *how = "";
	u->nroots = pick_roots(u, opt, single, &how);
	rank_switches(u);
	log_info("updn: %u root%s (%s), max rank %u", u->nroots,
		 u->nroots == 1 ? "" : "s", how,
		 u->g.nsw ? u->rank[u->order[u->g.nsw - 1]] : 0);
	memset(u->load, 0, ((size_t)u->g.fab->num_ports + 1) * sizeof(uint32_t));
	u->connected = u->detoured = u->unsafe = 0;
	rg_turns_reset(&u->turns);
	updn_detour_reset(u);
	/* Destinations in GUID order, those marked early first: port loads
	 * and admitted turns build up in this order, so the tables depend
	 * on the fabric, not on the order its switches were listed (a file)
	 * or discovered (the daemon). */
	for (uint32_t k = 0; k < 2 * u->g.nsw; k++) {
		uint32_t d = u->by_guid[k % u->g.nsw];
		uint64_t unsafe = u->unsafe;
		if (u->early[d] != (k < u->g.nsw) ||
		    u->g.ep_off[d] == u->g.ep_off[d + 1])
			continue;
		uint32_t stuck = dest_candidates(u, d);
		if (!stuck || !u->g.cas[d]) {
			if (updn_connect_stuck(u, d))
				return -ENOMEM;
			stuck = 0;
		}
		if (stuck) {
			log_warn("updn: with %u roots, %u switches have no "
				 "up*/down* path to switch 0x%016" PRIx64,
				 u->nroots, stuck, sw_guid(u, d));
			return -EAGAIN;
		}
		rg_route_dest(&u->g, d, u->cand, u->load, t);
		if (u->unsafe != unsafe)
			u->early[d] = 1;
	}
	return 0;
}

static int updn_route(struct route_ctx *ctx, struct lft_set *t)
{
	struct updn u;
	double t0 = now_seconds();
	int r = updn_alloc(&u, ctx->fab);
	if (r) {
		snprintf(ctx->why, sizeof(ctx->why), "out of memory");
		return r;
	}
	if (t->num_switches != u.g.nsw || t->max_lid < u.g.max_lid) {
		snprintf(ctx->why, sizeof(ctx->why), "tables cover LIDs up to %u "
			 "for %u switches; fabric needs %u and %u", t->max_lid,
			 t->num_switches, u.g.max_lid, u.g.nsw);
		updn_free(&u);
		return -EINVAL;
	}
	if (u.g.nsw == 0) {             /* nothing to route through */
		updn_free(&u);
		return 0;
	}
	components(&u);
	lft_fill_local(ctx->fab, t);
	r = updn_pass(&u, ctx->opt, 0, t);
	/* Turns admitted for earlier destinations can leave a later one's
	 * stuck switch without a loop-safe detour: route those destinations
	 * first and try again, then take one root (always a legal path). */
	for (int round = 0; r == 0 && u.unsafe && u.nroots > 1 &&
			    round < UPDN_EARLY_ROUNDS; round++) {
		log_info("updn: %llu (switch with CAs, destination) pairs found "
			 "no loop-safe detour: routing those destinations first",
			 (unsigned long long)u.unsafe);
		memset(t->port, LFT_NO_PATH, (size_t)t->num_switches * t->stride);
		lft_fill_local(ctx->fab, t);
		r = updn_pass(&u, ctx->opt, 0, t);
	}
	if (r == 0 && u.unsafe && u.nroots > 1)
		r = -EAGAIN;
	if (r == -EAGAIN && u.nroots > 1) {
		log_warn("updn: falling back to a single root");
		memset(t->port, LFT_NO_PATH, (size_t)t->num_switches * t->stride);
		lft_fill_local(ctx->fab, t);
		r = updn_pass(&u, ctx->opt, 1, t);
	}
	if (r == -ENOMEM) {
		snprintf(ctx->why, sizeof(ctx->why), "out of memory");
	} else if (r) {
		/* Cannot happen with one root on a connected component. */
		snprintf(ctx->why, sizeof(ctx->why), "no up*/down* path between "
			 "some connected switches");
		r = -EINVAL;
	} else {
		if (u.connected)
			log_info("updn: %llu (switch, destination) pairs have "
				 "no up*/down* path (e.g. root to root): %llu "
				 "switches with CAs took loop-safe detours (%u "
				 "down-up turns, %llu cycle searches); the rest "
				 "route min-hop, used only by what those switches "
				 "originate", (unsigned long long)u.connected,
				 (unsigned long long)u.detoured, u.turns.nturns,
				 (unsigned long long)u.turns.cdg.searches);
		if (u.unsafe)
			log_warn("updn: %llu (switch with CAs, destination) pairs "
				 "found no loop-safe detour and route min-hop: "
				 "CA traffic to those LIDs may close a credit loop",
				 (unsigned long long)u.unsafe);
		log_info("updn: routed %u switches, %u endpoints in %.3f s",
			 u.g.nsw, u.g.ep_off[u.g.nsw], now_seconds() - t0);
	}
	updn_free(&u);
	return r;
}

const struct route_engine route_updn = {
	.name = "updn",
	.summary = "up*/down* from auto-detected or given roots, any "
		   "topology, deadlock-free (1 VL)",
	/* up-down turns only, switch LIDs included (Autonet, 1991) */
	.flags = ROUTE_ENGINE_DEADLOCK_FREE,
	.route = updn_route,
};
