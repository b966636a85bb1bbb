/* `dfsp`: deadlock-free balanced paths on any topology within a layer
 * budget, after DFSSSP (Domke, Hoefler, Nagel, IPDPS 2011), LASH (Skeie,
 * Lysne, Theiss, IPDPS 2002) and Nue (Domke, Hoefler, Matsuoka, HPDC
 * 2016); docs/dfsp.md has the whole algorithm and its measurements.
 *
 * 1. Paths, two sets: greedy min-hop (per destination switch every LID
 *    takes the least loaded shortest port, rg_route_dest) and weighted
 *    shortest paths (a Dijkstra per LID over hop cost + routed CA pairs,
 *    dfsp_nue.c).
 * 2. Layers: every route from every switch with CAs to every LID (switch
 *    LIDs included: a CA's management traffic to a switch shares the
 *    buffers) goes first-fit into the first layer whose channel
 *    dependency graph stays acyclic (cdg/cdg_incr.h); one layer = one SL on
 *    one VL (Dally and Seitz 1987). The set that fits the budget with the
 *    less loaded busiest channel stays.
 * 3. Neither fits: routes on the dependency graph (dfsp_nue.c) in all
 *    layers, or minimal routes in budget - 1 layers with the destinations
 *    that do not fit on the dependency graph in the last; the less loaded.
 * 4. They fit: the dependency-graph routes on as many layers still win
 *    when less loaded; updn's one-layer tables too.
 * The result is never refused for want of layers; a caller without path
 * SLs gets one layer. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/log.h"
#include "engine.h"
#include "cdg/cdg_incr.h"
#include "dfsp_internal.h"

/* Put the route chan[0..n) into the first of layers [0, nlayers) whose
 * dependency graph stays acyclic with it; returns the layer or -1. */
static int place(struct cdg_incr *y, uint32_t nlayers, const uint32_t *chan,
		 uint32_t n)
{
	for (uint32_t l = 0; l < nlayers; l++) {
		uint32_t j = 0;
		while (j + 1 < n && cdg_add(y, l, chan[j], chan[j + 1]) >= 0)
			j++;
		if (j + 1 >= n)
			return (int)l;
		while (j-- > 0)
			cdg_del(y, l, chan[j], chan[j + 1]);
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

/* Layers for the minimal routes in t: every route from a switch with CAs
 * to every LID goes first-fit into layers [0, nlayers). Without deferred,
 * a route that fits nowhere is a refusal (-ENOTSUP). With deferred (per
 * LID), the destination's routes placed so far are taken back and the
 * LID is marked for the dependency-graph layer instead. */
static int assign_layers(struct route_ctx *ctx, const struct route_graph *g,
			 const struct lft_set *t, struct path_sl *p,
			 uint32_t nlayers, uint8_t *deferred)
{
	struct cdg_incr y;
	int r = 0;
	uint32_t *chan = malloc(((size_t)g->nsw + 1) * sizeof(uint32_t));
	uint32_t *placed = malloc(((size_t)g->nsw + 1) * sizeof(uint32_t));
	if (!chan || !placed || cdg_init_graph(&y, g, nlayers, NULL, NULL)) {
		free(chan);
		free(placed);
		return -ENOMEM;
	}
	/* A dependency refused in a layer stays refused: layers only lose
	 * the tentative dependencies of the route being placed, so a stale
	 * refusal at worst sends a later route one layer up (measured: same
	 * layer counts, a third of the searches). */
	y.remember_refusals = 1;
	uint32_t used = 1, ndef = 0;
	for (uint32_t lid = 1; lid <= p->max_lid; lid++) {
		uint32_t d = p->sw_of_lid[lid], nplaced = 0;
		if (d == UINT32_MAX)
			continue;
		for (uint32_t s = 0; s < g->nsw; s++) {
			if (s == d || !g->cas[s])
				continue; /* CAs inject only at their switch */
			uint32_t n = path_sl_channels(g, t, s, lid, chan, g->nsw);
			if (n == UINT32_MAX)
				continue; /* unreachable: the verifier reports it */
			int l = n < 2 ? 0 : place(&y, nlayers, chan, n);
			if (l >= 0) {
				p->sl[(size_t)s * p->stride + lid] = (uint8_t)l;
				if (n >= 2)
					placed[nplaced++] = s;
				continue;
			}
			if (!deferred) {
				snprintf(ctx->why, sizeof(ctx->why), "shortest "
					 "paths need more than %u virtual layers",
					 nlayers);
				r = -ENOTSUP;
				goto out;
			}
			for (uint32_t k = 0; k < nplaced; k++) {
				uint32_t q = placed[k];
				uint32_t ql = p->sl[(size_t)q * p->stride + lid];
				uint32_t m = path_sl_channels(g, t, q, lid, chan, g->nsw);
				for (uint32_t j = 0; j + 1 < m; j++)
					cdg_del(&y, ql, chan[j], chan[j + 1]);
			}
			deferred[lid] = 1;
			ndef++;
			break;
		}
	}
	for (uint32_t s = 0; s < g->nsw; s++)
		for (uint32_t lid = 1; lid <= p->max_lid; lid++)
			if (!deferred || !deferred[lid])
				if (p->sl[(size_t)s * p->stride + lid] + 1u > used)
					used = p->sl[(size_t)s * p->stride + lid] + 1u;
	p->vls_used = (uint8_t)used;
	if (deferred)
		log_info("dfsp: %u LIDs do not fit %u minimal layers", ndef, nlayers);
out:
	cdg_free(&y);
	free(chan);
	free(placed);
	return r;
}

/* The highest all-to-all load on a switch-to-switch channel under t:
 * every CA pair's route walked (CA links carry the same load whatever
 * the tables, so this ranks candidate tables). */
static uint64_t max_channel_load(const struct route_graph *g,
				 const struct lft_set *t)
{
	uint32_t nch = g->adj_off[g->nsw];
	uint64_t *load = calloc((size_t)nch + 1, sizeof(uint64_t)), max = 0;
	uint32_t *chan = malloc(((size_t)g->nsw + 1) * sizeof(uint32_t));
	if (!load || !chan) {
		free(load);
		free(chan);
		return UINT64_MAX;
	}
	for (uint32_t d = 0; d < g->nsw; d++)
		for (uint32_t e = g->ep_off[d]; e < g->ep_off[d + 1]; e++) {
			if (!g->ep[e].weighted)
				continue;
			for (uint32_t s = 0; s < g->nsw; s++) {
				if (s == d || !g->cas[s])
					continue;
				uint32_t n = path_sl_channels(g, t, s, g->ep[e].lid, chan, g->nsw);
				for (uint32_t k = 0; n != UINT32_MAX && k < n; k++)
					load[chan[k]] += g->cas[s];
			}
		}
	for (uint32_t c = 0; c < nch; c++)
		if (load[c] > max)
			max = load[c];
	free(load);
	free(chan);
	return max;
}

/* updn's tables are deadlock-free on one layer too; on some graphs (a 2D
 * mesh) its orientation balances better than the dependency-graph
 * routes. Take them when their busiest channel is less loaded and the
 * per-SL check (independent of either engine) accepts them. */
static void try_updn(struct route_ctx *ctx, const struct route_graph *g,
		     struct lft_set *t, struct path_sl *p, uint64_t mine)
{
	struct lft_set u;
	struct route_options o = *ctx->opt;
	char why[256];
	o.sl_out = NULL;
	if (route_run(route_engine_find("updn"), ctx->fab, &o, &u, why))
		return;
	if (mine == UINT64_MAX)
		mine = max_channel_load(g, t);
	uint64_t theirs = max_channel_load(g, &u);
	if (theirs < mine && u.stride == t->stride &&
	    u.num_switches == t->num_switches) {
		struct path_sl zero = *p;
		uint32_t vls;
		zero.sl = calloc((size_t)p->stride * p->num_switches + 1, 1);
		if (zero.sl && path_sl_check(ctx->fab, &u, &zero, &vls, why,
					     sizeof(why)) == 0) {
			log_info("dfsp: updn's tables load the busiest channel "
				 "less (%llu vs %llu CA pairs): taking them, on one "
				 "layer", (unsigned long long)theirs,
				 (unsigned long long)mine);
			memcpy(t->port, u.port, (size_t)t->stride * t->num_switches);
			memcpy(p->sl, zero.sl, (size_t)p->stride * p->num_switches);
			p->vls_used = 1;
		}
		free(zero.sl);
	}
	lft_free(&u);
}

/* t, p hold minimal layered routes; route on the dependency graph too,
 * on as many layers, and keep that instead when its busiest channel
 * carries less. */
static int keep_better(struct route_ctx *ctx, const struct route_graph *g,
		       struct lft_set *t, struct path_sl *p, uint32_t budget,
		       const char **method, uint64_t *load)
{
	size_t tsize = (size_t)t->stride * t->num_switches;
	size_t psize = (size_t)p->stride * p->num_switches;
	uint8_t *min_t = malloc(tsize + 1), *min_p = malloc(psize + 1);
	uint8_t min_vls = p->vls_used;
	int r = 0;
	if (!min_t || !min_p) {
		r = -ENOMEM;
		goto out;
	}
	memcpy(min_t, t->port, tsize);
	memcpy(min_p, p->sl, psize);
	uint64_t mine = *load;
	/* No more layers than the minimal routes needed: the same VLs,
	 * just other routes (more layers would cost buffer space per VL
	 * for a few percent). */
	(void)budget;
	/* Only routes loading their busiest channel less than mine are
	 * kept: dfsp_nue can stop its passes there (on the bench fabrics
	 * none gets below: the dragonflies' passes stop a half to nine
	 * tenths early). */
	r = dfsp_nue(ctx, g, t, p, min_vls, NULL, 0, mine);
	if (r && r != -ERANGE)
		goto out;
	uint64_t nue = r ? UINT64_MAX : max_channel_load(g, t);
	r = 0;
	if (nue < mine) {
		log_info("dfsp: dependency-graph routes load the busiest channel "
			 "less than minimal ones (%llu vs %llu CA pairs)",
			 (unsigned long long)nue, (unsigned long long)mine);
		*method = "dependency graph";
		*load = nue;
	} else {
		memcpy(t->port, min_t, tsize);
		memcpy(p->sl, min_p, psize);
		p->vls_used = min_vls;
	}
out:
	free(min_t);
	free(min_p);
	return r;
}

/* Minimal routes in t do not fit budget layers. Candidates: (a) minimal
 * routes first-fit in budget - 1 layers, the destinations that do not
 * fit routed on the dependency graph in the last layer, around the load
 * of the others; (b) everything on the dependency graph in all layers.
 * Keep the one whose busiest channel carries less. */
static int hybrid_or_nue(struct route_ctx *ctx, const struct route_graph *g,
			 struct lft_set *t, struct path_sl *p, uint32_t budget,
			 const char **method)
{
	size_t tsize = (size_t)t->stride * t->num_switches;
	size_t psize = (size_t)p->stride * p->num_switches;
	uint8_t *deferred = calloc((size_t)p->stride + 1, 1);
	uint8_t *h_t = malloc(tsize + 1), *h_p = malloc(psize + 1);
	int r = -ENOMEM;
	if (!deferred || !h_t || !h_p)
		goto out;
	memset(p->sl, 0, psize);
	if ((r = assign_layers(ctx, g, t, p, budget - 1, deferred)) ||
	    (r = dfsp_nue(ctx, g, t, p, 1, deferred, budget - 1, 0)))
		goto out;
	uint8_t h_vls = p->vls_used;
	uint64_t hload = max_channel_load(g, t);
	memcpy(h_t, t->port, tsize);
	memcpy(h_p, p->sl, psize);
	memset(p->sl, 0, psize);
	if ((r = dfsp_nue(ctx, g, t, p, budget, NULL, 0, 0)))
		goto out;
	uint64_t nload = max_channel_load(g, t);
	log_info("dfsp: busiest channel %llu CA pairs with %u minimal layers "
		 "and one on the dependency graph, %llu with %u on the "
		 "dependency graph", (unsigned long long)hload, budget - 1,
		 (unsigned long long)nload, budget);
	if (hload <= nload) {
		memcpy(t->port, h_t, tsize);
		memcpy(p->sl, h_p, psize);
		p->vls_used = h_vls;
		*method = "minimal and dependency-graph";
	}
out:
	free(deferred);
	free(h_t);
	free(h_p);
	return r;
}

/* Two path sets: the greedy min-hop one in t (each switch the least
 * loaded shortest port) and weighted shortest paths (a Dijkstra per LID
 * over hop cost plus the CA pairs already routed, as DFSSSP; a detour of
 * a hop or two when it avoids a loaded channel). Neither balances better
 * everywhere (weighted: 3D torus 4x4x4 1.55 -> 1.33, mesh 16x16 2.00 ->
 * 1.45; greedy: 2D torus 16x16 1.29 vs 2.56, where the weighted paths do
 * not fit the layers). Each is layered first-fit; the one that fits the
 * budget with the less loaded busiest channel stays in t and p. Returns
 * -ENOTSUP, greedy paths in t, when neither fits. */
static int best_fitting_paths(struct route_ctx *ctx, const struct route_graph *g,
			      struct lft_set *t, struct path_sl *p,
			      uint32_t budget, const char **method, uint64_t *load)
{
	size_t tsize = (size_t)t->stride * t->num_switches;
	size_t psize = (size_t)p->stride * p->num_switches;
	uint8_t *a_t = malloc(tsize + 1), *b_t = NULL, *b_p = NULL;
	uint8_t b_vls = 0;
	/* Greedy paths are layered only when the weighted ones do not win
	 * outright (a layering costs about a third of a weighted pass):
	 * the weighted paths win when they fit and load their busiest
	 * channel less than the greedy ones, fitting or not. */
	uint64_t a_max = max_channel_load(g, t), a_load = UINT64_MAX;
	int r = -ENOMEM;
	if (!a_t)
		goto out;
	memcpy(a_t, t->port, tsize);
	if ((r = dfsp_weighted_paths(ctx, g, t, 2, 2)))
		goto out;
	r = assign_layers(ctx, g, t, p, budget, NULL);
	if (r && r != -ENOTSUP)
		goto out;
	uint64_t b_load = r ? UINT64_MAX : max_channel_load(g, t);
	if (!r && b_load < a_max) {
		*method = "weighted shortest paths";
		*load = b_load;
		log_info("dfsp: busiest channel on weighted shortest paths %llu "
			 "CA pairs, on greedy min-hop paths %llu", (unsigned long long)b_load,
			 (unsigned long long)a_max);
		goto out;
	}
	if (b_load != UINT64_MAX) {
		/* They fit but load more: kept if the greedy ones do not fit. */
		b_t = malloc(tsize + 1);
		b_p = malloc(psize + 1);
		if (!b_t || !b_p) {
			r = -ENOMEM;
			goto out;
		}
		memcpy(b_t, t->port, tsize);
		memcpy(b_p, p->sl, psize);
		b_vls = p->vls_used;
	}
	memcpy(t->port, a_t, tsize);
	memset(p->sl, 0, psize);
	ctx->why[0] = 0;
	r = assign_layers(ctx, g, t, p, budget, NULL);
	if (r && r != -ENOTSUP)
		goto out;
	if (!r)
		a_load = a_max;
	if (a_load != UINT64_MAX || b_load != UINT64_MAX)
		log_info("dfsp: busiest channel on greedy min-hop paths %lld, on "
			 "weighted shortest paths %lld CA pairs (-1: do not fit "
			 "%u layers)", a_load == UINT64_MAX ? -1LL : (long long)a_load,
			 b_load == UINT64_MAX ? -1LL : (long long)b_load, budget);
	*load = a_load;
	if (a_load == UINT64_MAX && b_load != UINT64_MAX) {
		*load = b_load;
		memcpy(t->port, b_t, tsize);
		memcpy(p->sl, b_p, psize);
		p->vls_used = b_vls;
		*method = "weighted shortest paths";
		ctx->why[0] = 0;
		r = 0;
	} else if (a_load == UINT64_MAX) {
		snprintf(ctx->why, sizeof(ctx->why), "shortest paths need "
			 "more than %u virtual layers", budget);
		r = -ENOTSUP;
	}
out:
	free(a_t);
	free(b_t);
	free(b_p);
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
	/* A caller that cannot program path SLs gets one layer: the tables
	 * alone must then be deadlock-free. */
	uint32_t budget = ctx->opt->max_vls ? ctx->opt->max_vls : 8;
	if (!p) {
		p = &own;
		budget = 1;
		log_info("dfsp: the caller takes no path SLs: routing on one layer");
	}
	if ((r = path_sl_alloc(p, ctx->fab)))
		goto out;
	if ((r = route_paths(ctx, &g, t)))
		goto out;
	double t1 = now_seconds();
	const char *method = "shortest paths";
	uint64_t load = UINT64_MAX; /* busiest channel's, when known */
	r = best_fitting_paths(ctx, &g, t, p, budget, &method, &load);
	if (r && r != -ENOTSUP)
		goto out;
	if (r == -ENOTSUP) {
		/* Minimal paths do not fit: route on the dependency graph
		 * within the budget, non-minimal where it must. */
		log_info("dfsp: %s; routing on the dependency graph within %u "
			 "layer%s", ctx->why, budget, budget > 1 ? "s" : "");
		ctx->why[0] = 0;
		method = "dependency graph";
		r = budget > 1 ? hybrid_or_nue(ctx, &g, t, p, budget, &method)
			       : dfsp_nue(ctx, &g, t, p, 1, NULL, 0, 0);
	} else {
		/* They fit; routes on the dependency graph may still load the
		 * busiest channel less (detours around a degraded tree's
		 * missing links): keep whichever does. */
		r = keep_better(ctx, &g, t, p, budget, &method, &load);
	}
	if (!r)
		try_updn(ctx, &g, t, p, load);
	if (r)
		goto out;
	log_info("dfsp: %u switches, %u endpoints; paths %.3f s, %s on %u "
		 "layers %.3f s", g.nsw, g.ep_off[g.nsw], t1 - t0, method,
		 p->vls_used, now_seconds() - t1);
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
	.summary = "balanced paths on any topology, deadlock-free on SL layers within a VL budget (down to one)",
	/* Its promise is per SL layer (path_sl_check), not on one VL. */
	.flags = ROUTE_ENGINE_LAYERED,
	.route = dfsp_route,
};
