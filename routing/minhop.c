/* `minhop`: balanced minimum-hop routing, OpenSM's default behaviour.
 *
 * Per destination switch d, one BFS gives every switch's hop count to d;
 * the min-hop egress ports of switch s are those towards a neighbour one hop
 * closer. Every LID attached to d (d's own, its CAs/routers with their LMC
 * aliases) then takes, at every switch, the least loaded of those ports,
 * where a port's load is the number of CA/router LIDs routed out of it so
 * far (switch LIDs carry management traffic only and do not count, as in
 * OpenSM's default). The 2^lmc LIDs of one endpoint leave each switch
 * through different neighbours when there are enough of them.
 *
 * Cost: O(switches x links) for the BFSs plus O(LIDs x sum of min-hop
 * candidates) for the choices; memory is the tables plus O(ports).
 * Not deadlock-free in general (no turn restrictions): use updn or ftree
 * when credit loops matter. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "../core/log.h"
#include "engine.h"
#include "route_graph.h"

static int minhop_route(struct route_ctx *ctx, struct lft_set *t)
{
	struct route_graph g;
	double t0 = now_seconds();
	int r = rg_build(&g, ctx->fab);
	if (r) {
		snprintf(ctx->why, sizeof(ctx->why), "out of memory");
		return r;
	}
	if (t->num_switches != g.nsw || t->max_lid < g.max_lid) {
		snprintf(ctx->why, sizeof(ctx->why), "tables cover LIDs up to %u "
			 "for %u switches; fabric needs %u and %u", t->max_lid,
			 t->num_switches, g.max_lid, g.nsw);
		rg_free(&g);
		return -EINVAL;
	}
	uint32_t *dist = malloc(((size_t)g.nsw + 1) * sizeof(uint32_t));
	uint32_t *queue = malloc(((size_t)g.nsw + 1) * sizeof(uint32_t));
	uint32_t *load = calloc((size_t)ctx->fab->num_ports + 1, sizeof(uint32_t));
	uint8_t *cand = malloc((size_t)g.adj_off[g.nsw] + 1);
	uint32_t *by_guid = malloc(((size_t)g.nsw + 1) * sizeof(uint32_t));
	if (!dist || !queue || !load || !cand || !by_guid) {
		snprintf(ctx->why, sizeof(ctx->why), "out of memory");
		r = -ENOMEM;
		goto out;
	}
	lft_fill_local(ctx->fab, t);
	uint64_t unreachable = 0;
	/* Destinations in GUID order: loads build up in it, and it does not
	 * depend on the order switches were listed or discovered in. */
	rg_guid_order(&g, by_guid);
	for (uint32_t k = 0; k < g.nsw; k++) {
		uint32_t d = by_guid[k];
		if (g.ep_off[d] == g.ep_off[d + 1])
			continue; /* no LID here (switch without a LID yet) */
		rg_bfs(&g, d, dist, queue);
		for (uint32_t s = 0; s < g.nsw; s++) {
			unreachable += dist[s] == UINT32_MAX;
			for (uint32_t i = g.adj_off[s]; i < g.adj_off[s + 1]; i++)
				cand[i] = dist[s] != UINT32_MAX &&
					  dist[g.adj[i].peer] != UINT32_MAX &&
					  dist[g.adj[i].peer] + 1 == dist[s];
		}
		rg_route_dest(&g, d, cand, load, t);
	}
	if (unreachable)
		log_warn("minhop: %llu switch pairs are not connected; their "
			 "entries stay empty", (unsigned long long)unreachable);
	log_info("minhop: routed %u switches, %u endpoints in %.3f s", g.nsw,
		 g.ep_off[g.nsw], now_seconds() - t0);
out:
	free(dist);
	free(queue);
	free(load);
	free(cand);
	free(by_guid);
	rg_free(&g);
	return r;
}

const struct route_engine route_minhop = {
	.name = "minhop",
	.summary = "balanced minimum-hop paths, any topology (not deadlock-free)",
	.flags = 0,     /* promises nothing: its tables are verified */
	.route = minhop_route,
};
