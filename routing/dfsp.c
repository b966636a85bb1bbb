/* `dfsp`: deadlock-free shortest paths on any topology, after DFSSSP
 * (Domke, Hoefler, Nagel, "Deadlock-free oblivious routing for arbitrary
 * topologies", IPDPS 2011) and LASH (Skeie, Lysne, Theiss 2002).
 *
 * 1. Paths: per destination switch, the min-hop egress candidates (BFS);
 *    every LID takes the least loaded candidate port, load being the
 *    CA/router LIDs already routed out of that port over all destinations
 *    (rg_route_dest), so later destinations avoid links earlier ones filled.
 * 2. Layers: every route from every switch with CAs to every LID (switch
 *    LIDs included, since a CA's management traffic to a switch shares the
 *    buffers) is a chain of switch-to-switch channels. Routes are placed
 *    first-fit into layers: a route joins layer L unless its channel
 *    dependencies would close a cycle in L's dependency graph (checked by
 *    a search from the head of each new dependency back to its tail).
 *    Each layer is one SL mapped to one VL, so each VL's CDG is acyclic
 *    (Dally and Seitz 1987). More layers than opt->max_vls: refuse.
 *
 * Cost: BFS per switch, plus per route its length in dependency checks;
 * a new dependency costs a search over that layer's dependency graph. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/log.h"
#include "engine.h"
#include "path_sl.h"
#include "route_graph.h"

struct layers {
	const struct route_graph *g;
	uint32_t nlayers;
	uint32_t *dep_off;      /* per channel: its successors' slot base */
	size_t ndep;            /* slots per layer */
	uint8_t *dep;           /* dep[layer * ndep + slot] */
	uint32_t *stamp, now;   /* visited marks for the searches */
	uint32_t *stack;
	uint32_t *added;        /* slots set tentatively */
};

static size_t slot(const struct layers *y, uint32_t a, uint32_t b)
{
	return y->dep_off[a] + (b - y->g->adj_off[y->g->adj[a].peer]);
}

/* Is channel target reachable from channel from in layer l? */
static int reaches(struct layers *y, const uint8_t *dep, uint32_t from,
		   uint32_t target)
{
	const struct route_graph *g = y->g;
	uint32_t top = 0;
	if (++y->now == 0) {
		memset(y->stamp, 0, g->adj_off[g->nsw] * sizeof(uint32_t));
		y->now = 1;
	}
	y->stack[top++] = from;
	y->stamp[from] = y->now;
	while (top) {
		uint32_t c = y->stack[--top];
		if (c == target)
			return 1;
		uint32_t p = g->adj[c].peer;
		for (uint32_t k = g->adj_off[p]; k < g->adj_off[p + 1]; k++)
			if (dep[y->dep_off[c] + k - g->adj_off[p]] &&
			    y->stamp[k] != y->now) {
				y->stamp[k] = y->now;
				y->stack[top++] = k;
			}
	}
	return 0;
}

/* Put the route chan[0..n) into the first layer that stays acyclic;
 * returns the layer or -1. */
static int place(struct layers *y, const uint32_t *chan, uint32_t n)
{
	for (uint32_t l = 0; l < y->nlayers; l++) {
		uint8_t *dep = y->dep + (size_t)l * y->ndep;
		uint32_t nadd = 0;
		for (uint32_t j = 0; j + 1 < n; j++) {
			size_t s = slot(y, chan[j], chan[j + 1]);
			if (!dep[s]) {
				dep[s] = 1;
				y->added[nadd++] = j;
			}
		}
		int cyc = 0;
		for (uint32_t a = 0; a < nadd && !cyc; a++) {
			uint32_t j = y->added[a];
			cyc = reaches(y, dep, chan[j + 1], chan[j]);
		}
		if (!cyc)
			return (int)l;
		for (uint32_t a = 0; a < nadd; a++) {
			uint32_t j = y->added[a];
			dep[slot(y, chan[j], chan[j + 1])] = 0;
		}
	}
	return -1;
}

static int route_paths(struct route_ctx *ctx, const struct route_graph *g,
		       struct lft_set *t)
{
	uint32_t *dist = malloc(((size_t)g->nsw + 1) * sizeof(uint32_t));
	uint32_t *queue = malloc(((size_t)g->nsw + 1) * sizeof(uint32_t));
	uint32_t *load = calloc((size_t)ctx->fab->num_ports + 1, sizeof(uint32_t));
	uint8_t *cand = malloc((size_t)g->adj_off[g->nsw] + 1);
	int r = 0;
	if (!dist || !queue || !load || !cand) {
		r = -ENOMEM;
		goto out;
	}
	for (uint32_t d = 0; d < g->nsw; d++) {
		if (g->ep_off[d] == g->ep_off[d + 1])
			continue;
		rg_bfs(g, d, dist, queue);
		for (uint32_t s = 0; s < g->nsw; s++)
			for (uint32_t i = g->adj_off[s]; i < g->adj_off[s + 1]; i++)
				cand[i] = dist[s] != UINT32_MAX &&
					  dist[g->adj[i].peer] != UINT32_MAX &&
					  dist[g->adj[i].peer] + 1 == dist[s];
		rg_route_dest(g, d, cand, load, t);
	}
out:
	free(dist);
	free(queue);
	free(load);
	free(cand);
	return r;
}

static int assign_layers(struct route_ctx *ctx, const struct route_graph *g,
			 const struct lft_set *t, struct path_sl *p)
{
	struct layers y = { .g = g };
	uint32_t nchan = g->adj_off[g->nsw];
	int r = 0;
	y.nlayers = ctx->opt->max_vls ? ctx->opt->max_vls : 8;
	y.dep_off = malloc(((size_t)nchan + 1) * sizeof(uint32_t));
	y.stamp = calloc((size_t)nchan + 1, sizeof(uint32_t));
	y.stack = malloc(((size_t)nchan + 1) * sizeof(uint32_t));
	y.added = malloc(((size_t)g->nsw + 1) * sizeof(uint32_t));
	uint32_t *chan = malloc(((size_t)g->nsw + 1) * sizeof(uint32_t));
	if (!y.dep_off || !y.stamp || !y.stack || !y.added || !chan) {
		r = -ENOMEM;
		goto out;
	}
	for (uint32_t c = 0; c < nchan; c++) {
		y.dep_off[c] = (uint32_t)y.ndep;
		uint32_t pe = g->adj[c].peer;
		y.ndep += g->adj_off[pe + 1] - g->adj_off[pe];
	}
	y.dep = calloc(y.ndep * y.nlayers + 1, 1);
	if (!y.dep) {
		r = -ENOMEM;
		goto out;
	}
	uint32_t used = 1;
	for (uint32_t lid = 1; lid <= p->max_lid; lid++) {
		uint32_t d = p->sw_of_lid[lid];
		if (d == UINT32_MAX)
			continue;
		for (uint32_t s = 0; s < g->nsw; s++) {
			if (s == d || !g->cas[s])
				continue; /* CAs inject only at their switch */
			uint32_t n = path_sl_channels(g, t, s, lid, chan, g->nsw);
			if (n == UINT32_MAX)
				continue; /* unreachable: the verifier reports it */
			int l = n < 2 ? 0 : place(&y, chan, n);
			if (l < 0) {
				snprintf(ctx->why, sizeof(ctx->why), "routes need "
					 "more than %u virtual layers (max_vls); "
					 "raise --vls or use updn", y.nlayers);
				r = -ENOTSUP;
				goto out;
			}
			p->sl[(size_t)s * p->stride + lid] = (uint8_t)l;
			if ((uint32_t)l + 1 > used)
				used = (uint32_t)l + 1;
		}
	}
	p->vls_used = (uint8_t)used;
out:
	free(y.dep_off);
	free(y.stamp);
	free(y.stack);
	free(y.added);
	free(y.dep);
	free(chan);
	return r;
}

static int dfsp_route(struct route_ctx *ctx, struct lft_set *t)
{
	struct route_graph g;
	struct path_sl own = { 0 };
	struct path_sl *p = ctx->opt->sl_out;
	double t0 = now_seconds();
	int r;

	if (ctx->opt->max_vls > PATH_SL_MAX_VLS) {
		snprintf(ctx->why, sizeof(ctx->why), "max_vls %u is past the %u "
			 "data VLs IBA allows", ctx->opt->max_vls, PATH_SL_MAX_VLS);
		return -EINVAL;
	}
	if ((r = rg_build(&g, ctx->fab))) {
		snprintf(ctx->why, sizeof(ctx->why), "out of memory");
		return r;
	}
	if (!p) {
		p = &own;
		log_info("dfsp: the caller takes no path SLs: only one layer "
			 "is acceptable");
	}
	if ((r = path_sl_alloc(p, ctx->fab)))
		goto out;
	if ((r = route_paths(ctx, &g, t)))
		goto out;
	double t1 = now_seconds();
	if ((r = assign_layers(ctx, &g, t, p)))
		goto out;
	if (p == &own && p->vls_used > 1) {
		/* Tables that are only deadlock-free with SLs nobody will
		 * program are wrong tables: refuse so a fallback runs. */
		snprintf(ctx->why, sizeof(ctx->why), "routes need %u SL layers "
			 "but this caller cannot program path SLs",
			 p->vls_used);
		r = -ENOTSUP;
		goto out;
	}
	log_info("dfsp: %u switches, %u endpoints; paths %.3f s, %u layers "
		 "%.3f s", g.nsw, g.ep_off[g.nsw], t1 - t0, p->vls_used,
		 now_seconds() - t1);
out:
	if (r && !ctx->why[0])
		snprintf(ctx->why, sizeof(ctx->why), "out of memory");
	if (r && p != &own)
		path_sl_free(p);
	path_sl_free(&own);
	rg_free(&g);
	return r;
}

const struct route_engine route_dfsp = {
	.name = "dfsp",
	.summary = "balanced shortest paths, deadlock-free by SL layers (needs SL2VL)",
	.route = dfsp_route,
};
