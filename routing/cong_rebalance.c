/* Congestion-aware rebalance (cong_rebalance.h). */
#include "cong_rebalance.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "route_graph.h"

struct hot_port {
	uint32_t sw;            /* switch ordinal */
	uint32_t adj;           /* index into g.adj */
	double load;
};

static int by_load_desc(const void *a, const void *b)
{
	double x = ((const struct hot_port *)a)->load;
	double y = ((const struct hot_port *)b)->load;

	return x < y ? 1 : x > y ? -1 : 0;
}

/* Hop counts from destination switch d to every switch, computed once. */
static const uint32_t *dist_from(const struct route_graph *g, uint32_t **cache,
				 uint32_t d, uint32_t *queue)
{
	if (!cache[d]) {
		cache[d] = malloc((size_t)g->nsw * sizeof(uint32_t));
		if (!cache[d])
			return NULL;
		rg_bfs(g, d, cache[d], queue);
	}
	return cache[d];
}

int cong_rebalance(const struct fabric *f, struct lft_set *t,
		   const double *load, const uint8_t *hot, unsigned max_moves,
		   struct cong_stats *st)
{
	struct route_graph g;
	uint32_t *dsw = NULL, *queue = NULL, **cache = NULL;
	struct hot_port *hp = NULL;
	double *est = NULL;
	uint32_t nhot = 0;
	int rc = -ENOMEM;

	memset(st, 0, sizeof(*st));
	if (rg_build(&g, f))
		return -ENOMEM;
	dsw = malloc(((size_t)t->max_lid + 1) * sizeof(*dsw));
	queue = malloc(((size_t)g.nsw + 1) * sizeof(*queue));
	cache = calloc((size_t)g.nsw + 1, sizeof(*cache));
	hp = malloc(((size_t)g.adj_off[g.nsw] + 1) * sizeof(*hp));
	est = malloc(((size_t)f->num_ports + 1) * sizeof(*est));
	if (!dsw || !queue || !cache || !hp || !est)
		goto out;
	/* The switch every LID hangs off (or is). */
	for (uint32_t l = 0; l <= t->max_lid; l++)
		dsw[l] = UINT32_MAX;
	for (uint32_t s = 0; s < g.nsw; s++)
		for (uint32_t i = g.ep_off[s]; i < g.ep_off[s + 1]; i++)
			for (uint32_t k = 0; k < g.ep[i].nlids; k++)
				if (g.ep[i].lid + k <= t->max_lid)
					dsw[g.ep[i].lid + k] = s;
	memcpy(est, load, (size_t)f->num_ports * sizeof(*est));
	for (uint32_t s = 0; s < g.nsw; s++)
		for (uint32_t i = g.adj_off[s]; i < g.adj_off[s + 1]; i++) {
			uint32_t gp = g.adj[i].gport;

			if (load[gp] > st->max_before)
				st->max_before = load[gp];
			if (hot[gp])
				hp[nhot++] = (struct hot_port){ s, i, load[gp] };
		}
	st->hot_ports = nhot;
	/* The hottest port first: the bound on moves goes where it helps
	 * most. */
	qsort(hp, nhot, sizeof(*hp), by_load_desc);
	for (uint32_t h = 0; h < nhot && st->moved < max_moves; h++) {
		uint32_t s = hp[h].sw;
		const struct rg_adj *ha = &g.adj[hp[h].adj];
		uint8_t *row = lft_row(t, s);
		uint32_t n = 0;
		double share;

		for (uint32_t l = 1; l <= t->max_lid; l++)
			if (row[l] == ha->port)
				n++;
		if (!n)
			continue;
		share = est[ha->gport] / n;
		for (uint32_t l = 1; l <= t->max_lid && st->moved < max_moves; l++) {
			const uint32_t *dist;
			uint32_t best = UINT32_MAX, want;

			if (row[l] != ha->port || dsw[l] == UINT32_MAX || dsw[l] == s)
				continue;
			dist = dist_from(&g, cache, dsw[l], queue);
			if (!dist)
				goto out;
			want = dist[ha->peer];
			for (uint32_t i = g.adj_off[s]; i < g.adj_off[s + 1]; i++) {
				const struct rg_adj *a = &g.adj[i];

				if (a->port == ha->port || dist[a->peer] != want)
					continue;
				/* Only where it lowers the hot port's load below
				 * what the other port would then carry. */
				if (est[a->gport] + share >= est[ha->gport])
					continue;
				if (best == UINT32_MAX || est[a->gport] < est[g.adj[best].gport])
					best = i;
			}
			if (best == UINT32_MAX)
				continue;
			lft_set_port(t, s, l, g.adj[best].port);
			est[g.adj[best].gport] += share;
			est[ha->gport] -= share;
			st->moved++;
		}
	}
	for (uint32_t s = 0; s < g.nsw; s++)
		for (uint32_t i = g.adj_off[s]; i < g.adj_off[s + 1]; i++)
			if (est[g.adj[i].gport] > st->max_after)
				st->max_after = est[g.adj[i].gport];
	rc = 0;
out:
	if (cache)
		for (uint32_t s = 0; s < g.nsw; s++)
			free(cache[s]);
	free(cache);
	free(dsw);
	free(queue);
	free(hp);
	free(est);
	rg_free(&g);
	return rc;
}
