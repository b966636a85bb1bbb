/* Switch-level graph and the shared balanced port chooser (route_graph.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "route_graph.h"

void rg_free(struct route_graph *g)
{
	free(g->adj_off);
	free(g->adj);
	free(g->ep_off);
	free(g->ep);
	free(g->cas);
	memset(g, 0, sizeof(*g));
}

/* A switch port leading to another switch, or FAB_NONE. */
static uint32_t peer_switch_node(const struct fabric *f, uint32_t p)
{
	uint32_t n = fab_peer_node(f, p);
	return n != FAB_NONE && fab_is_switch(f, n) ? n : FAB_NONE;
}

/* Count (fill == 0) or fill the adjacency and endpoint arrays. */
static void scan(struct route_graph *g, int fill)
{
	const struct fabric *f = g->fab;
	uint32_t na = 0, ne = 0;

	for (uint32_t s = 0; s < g->nsw; s++) {
		const struct fab_node *node = &f->nodes[f->switches[s]];
		const struct fab_port *p0 = &f->ports[node->first_port];
		if (fill) {
			g->adj_off[s] = na;
			g->ep_off[s] = ne;
			g->cas[s] = 0;
		}
		if (p0->lid) {
			if (fill)
				g->ep[ne] = (struct rg_ep){ p0->lid,
					(uint8_t)(1u << p0->lmc), 0, 0 };
			ne++;
		}
		for (unsigned i = 1; i <= node->num_ports; i++) {
			uint32_t p = node->first_port + i;
			uint32_t q = f->ports[p].peer;
			if (q == FAB_NONE)
				continue;
			uint32_t pn = peer_switch_node(f, p);
			if (pn != FAB_NONE) {
				if (fill)
					g->adj[na] = (struct rg_adj){
						f->nodes[pn].sw_index, p, pn,
						(uint8_t)i };
				na++;
			} else if (f->ports[q].lid) {
				if (fill) {
					g->ep[ne] = (struct rg_ep){
						f->ports[q].lid,
						(uint8_t)(1u << f->ports[q].lmc),
						(uint8_t)i, 1 };
					g->cas[s]++;
				}
				ne++;
			}
		}
	}
	if (fill) {
		g->adj_off[g->nsw] = na;
		g->ep_off[g->nsw] = ne;
	} else {
		g->adj_off[0] = na;
		g->ep_off[0] = ne;
	}
}

int rg_build(struct route_graph *g, const struct fabric *f)
{
	memset(g, 0, sizeof(*g));
	g->fab = f;
	g->nsw = f->num_switches;
	g->max_lid = fab_max_lid(f);
	g->adj_off = calloc((size_t)g->nsw + 1, sizeof(uint32_t));
	g->ep_off = calloc((size_t)g->nsw + 1, sizeof(uint32_t));
	g->cas = calloc((size_t)g->nsw + 1, sizeof(uint32_t));
	if (!g->adj_off || !g->ep_off || !g->cas)
		goto nomem;
	scan(g, 0);
	g->adj = calloc((size_t)g->adj_off[0] + 1, sizeof(*g->adj));
	g->ep = calloc((size_t)g->ep_off[0] + 1, sizeof(*g->ep));
	if (!g->adj || !g->ep)
		goto nomem;
	scan(g, 1);
	return 0;
nomem:
	rg_free(g);
	return -ENOMEM;
}

void rg_bfs(const struct route_graph *g, uint32_t src, uint32_t *dist,
	    uint32_t *queue)
{
	uint32_t head = 0, tail = 0;
	for (uint32_t s = 0; s < g->nsw; s++)
		dist[s] = UINT32_MAX;
	dist[src] = 0;
	queue[tail++] = src;
	while (head < tail) {
		uint32_t s = queue[head++];
		for (uint32_t i = g->adj_off[s]; i < g->adj_off[s + 1]; i++) {
			uint32_t v = g->adj[i].peer;
			if (dist[v] == UINT32_MAX) {
				dist[v] = dist[s] + 1;
				queue[tail++] = v;
			}
		}
	}
}

static int guid_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct fabric *f = ctx;
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	uint64_t ga = f->nodes[f->switches[a]].guid;
	uint64_t gb = f->nodes[f->switches[b]].guid;

	if (ga != gb)
		return ga < gb ? -1 : 1;
	return a < b ? -1 : a > b;
}

void rg_guid_order(const struct route_graph *g, uint32_t *order)
{
	for (uint32_t s = 0; s < g->nsw; s++)
		order[s] = s;
	qsort_r(order, g->nsw, sizeof(uint32_t), guid_cmp, (void *)g->fab);
}

/* Index (into cidx) of the least loaded candidate; ties go to the first
 * one at or after `start` (cyclically). */
static uint32_t least_loaded(const uint32_t *cload, uint32_t n, uint32_t start)
{
	uint32_t best = start;
	for (uint32_t k = start + 1; k < n; k++)
		if (cload[k] < cload[best])
			best = k;
	for (uint32_t k = 0; k < start; k++)
		if (cload[k] < cload[best])
			best = k;
	return best;
}

/* Index (into cidx) for LID j > 0 of an endpoint whose earlier LIDs left
 * through chosen[0..j-1] (indices into cidx): a neighbour switch not yet
 * used, then a port not yet used, then the least loaded. */
static uint32_t pick_spread(const struct route_graph *g, const uint32_t *cidx,
			    const uint32_t *cload, uint32_t n,
			    const uint32_t *chosen, uint32_t j)
{
	uint32_t best = 0;
	uint64_t best_key = UINT64_MAX;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t peer = g->adj[cidx[k]].peer;
		uint64_t same_peer = 0, same_port = 0;
		for (uint32_t i = 0; i < j; i++) {
			same_peer |= g->adj[cidx[chosen[i]]].peer == peer;
			same_port |= chosen[i] == k;
		}
		uint64_t key = (same_peer << 62) | (same_port << 61) | cload[k];
		if (key < best_key) {
			best_key = key;
			best = k;
		}
	}
	return best;
}

void rg_route_dest(const struct route_graph *g, uint32_t d,
		   const uint8_t *cand, uint32_t *load, struct lft_set *t)
{
	uint32_t cidx[FAB_MAX_PORTS + 1], cload[FAB_MAX_PORTS + 1];
	uint8_t cport[FAB_MAX_PORTS + 1];
	uint32_t chosen[128];
	const struct rg_ep *ep0 = g->ep + g->ep_off[d];
	const struct rg_ep *ep1 = g->ep + g->ep_off[d + 1];

	/* The choice at s only reads and writes the load of s's own ports,
	 * so switches are independent: copy their loads into a small local
	 * array, route every LID of d there, write the loads back. */
	for (uint32_t s = 0; s < g->nsw; s++) {
		if (s == d)
			continue;
		uint32_t n = 0;
		for (uint32_t i = g->adj_off[s]; i < g->adj_off[s + 1]; i++)
			if (cand[i] && n <= FAB_MAX_PORTS) {
				cidx[n] = i;
				cload[n] = load[g->adj[i].gport];
				cport[n] = g->adj[i].port;
				n++;
			}
		if (!n)
			continue;
		uint8_t *row = lft_row(t, s);
		for (const struct rg_ep *e = ep0; e < ep1; e++) {
			for (uint32_t j = 0; j < e->nlids; j++) {
				uint32_t lid = e->lid + j;
				if (lid > t->max_lid)
					break;
				uint32_t k = j ? pick_spread(g, cidx, cload, n, chosen, j)
					       : least_loaded(cload, n, lid % n);
				chosen[j] = k;
				row[lid] = cport[k];
				cload[k] += e->weighted;
			}
		}
		for (uint32_t k = 0; k < n; k++)
			load[g->adj[cidx[k]].gport] = cload[k];
	}
}

uint32_t rg_count_unrouted(const struct route_graph *g, uint32_t d,
			   const uint8_t *cand)
{
	uint32_t lids = 0, miss = 0;
	for (uint32_t k = g->ep_off[d]; k < g->ep_off[d + 1]; k++)
		lids += g->ep[k].nlids;
	for (uint32_t s = 0; s < g->nsw; s++) {
		if (s == d)
			continue;
		uint32_t i = g->adj_off[s];
		while (i < g->adj_off[s + 1] && !cand[i])
			i++;
		if (i == g->adj_off[s + 1])
			miss += lids;
	}
	return miss;
}
