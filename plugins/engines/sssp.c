/* `sssp`: a loadable routing engine (build/lib/libibsm-engine-sssp.so) and
 * the reference example of the engine ABI (docs/routing.md).
 *
 * Load-aware single-source shortest paths, the first half of DFSSSP
 * (Domke, Hoefler, Nagel, "Deadlock-free oblivious routing for arbitrary
 * topologies", IPDPS 2011) without its virtual-lane assignment: per
 * destination switch, Dijkstra over the directed switch-to-switch channels,
 * then every channel on the resulting tree gets heavier by the number of
 * CA sources routed over it, so later destinations avoid loaded links.
 * Channels start at weight (number of CA LIDs + 1), so one extra hop costs
 * more than the load of any single destination: paths stay near minimal and
 * the load spreads across equal-length alternatives.
 *
 * NOT deadlock-free: without DFSSSP's VL layering the channel dependency
 * graph can have cycles on tori, dragonflies and random graphs. Use updn
 * (or ftree on fat-trees) where credit loops matter. All LMC aliases of an
 * endpoint share one path. Cost: O(switches x links x log links). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "routing/engine.h"
#include "routing/route_graph.h"

#define INF UINT64_MAX

struct heap_item {
	uint64_t key;
	uint32_t sw;
};

struct heap {
	struct heap_item *a;
	size_t n;
};

static void heap_push(struct heap *h, uint64_t key, uint32_t sw)
{
	size_t i = h->n++;
	while (i && h->a[(i - 1) / 2].key > key) {
		h->a[i] = h->a[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->a[i] = (struct heap_item){ key, sw };
}

static struct heap_item heap_pop(struct heap *h)
{
	struct heap_item top = h->a[0], last = h->a[--h->n];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && h->a[c + 1].key < h->a[c].key)
			c++;
		if (h->a[c].key >= last.key)
			break;
		h->a[i] = h->a[c];
		i = c;
	}
	if (h->n)
		h->a[i] = last;
	return top;
}

struct sssp {
	struct route_graph g;
	uint64_t *weight;       /* per fabric port index: channel weight */
	uint64_t *dist;         /* per switch */
	uint32_t *next;         /* per switch: egress fabric port index */
	uint32_t *settled;      /* switches in settling order */
	uint64_t *flow;         /* per switch: CA sources routed through */
	struct heap heap;
};

static void sssp_free(struct sssp *s)
{
	free(s->weight);
	free(s->dist);
	free(s->next);
	free(s->settled);
	free(s->flow);
	free(s->heap.a);
	rg_free(&s->g);
}

/* Dijkstra towards switch d over reversed channels; returns the number of
 * switches settled (in s->settled, nearest first). */
static uint32_t shortest_tree(struct sssp *s, uint32_t d)
{
	const struct route_graph *g = &s->g;
	const struct fabric *f = g->fab;
	uint32_t nset = 0;

	for (uint32_t v = 0; v < g->nsw; v++) {
		s->dist[v] = INF;
		s->next[v] = FAB_NONE;
	}
	s->dist[d] = 0;
	s->heap.n = 0;
	heap_push(&s->heap, 0, d);
	while (s->heap.n) {
		struct heap_item it = heap_pop(&s->heap);
		uint32_t v = it.sw;
		if (it.key != s->dist[v])
			continue; /* stale entry */
		s->settled[nset++] = v;
		for (uint32_t i = g->adj_off[v]; i < g->adj_off[v + 1]; i++) {
			uint32_t u = g->adj[i].peer;
			uint32_t q = f->ports[g->adj[i].gport].peer; /* u -> v */
			uint64_t nd = s->dist[v] + s->weight[q];
			if (nd < s->dist[u]) {
				s->dist[u] = nd;
				s->next[u] = q;
				heap_push(&s->heap, nd, u);
			}
		}
	}
	return nset;
}

static int sssp_route(struct route_ctx *ctx, struct lft_set *t)
{
	struct sssp s;
	const struct fabric *f = ctx->fab;
	double t0 = now_seconds();

	memset(&s, 0, sizeof(s));
	int r = rg_build(&s.g, f);
	if (r)
		goto nomem;
	if (t->num_switches != s.g.nsw || t->max_lid < s.g.max_lid) {
		snprintf(ctx->why, sizeof(ctx->why), "tables do not fit the fabric");
		sssp_free(&s);
		return -EINVAL;
	}
	size_t n = (size_t)s.g.nsw + 1;
	s.weight = malloc(((size_t)f->num_ports + 1) * sizeof(uint64_t));
	s.dist = malloc(n * sizeof(uint64_t));
	s.next = malloc(n * sizeof(uint32_t));
	s.settled = malloc(n * sizeof(uint32_t));
	s.flow = malloc(n * sizeof(uint64_t));
	s.heap.a = malloc(((size_t)s.g.adj_off[s.g.nsw] + n) * sizeof(*s.heap.a));
	if (!s.weight || !s.dist || !s.next || !s.settled || !s.flow || !s.heap.a)
		goto nomem;
	uint64_t ca_lids = 0;
	for (uint32_t k = 0; k < s.g.ep_off[s.g.nsw]; k++)
		ca_lids += s.g.ep[k].weighted;
	for (uint32_t p = 0; p < f->num_ports; p++)
		s.weight[p] = ca_lids + 1;

	lft_fill_local(f, t);
	for (uint32_t d = 0; d < s.g.nsw; d++) {
		const struct rg_ep *e0 = s.g.ep + s.g.ep_off[d];
		const struct rg_ep *e1 = s.g.ep + s.g.ep_off[d + 1];
		if (e0 == e1)
			continue;
		uint32_t nset = shortest_tree(&s, d);
		uint64_t dest_lids = 0;
		for (const struct rg_ep *e = e0; e < e1; e++)
			dest_lids += e->weighted;
		for (uint32_t k = 0; k < nset; k++)
			s.flow[s.settled[k]] = s.g.cas[s.settled[k]];
		/* Farthest first: a switch's flow is final before its parent's. */
		for (uint32_t k = nset; k-- > 1;) {
			uint32_t v = s.settled[k];
			uint32_t q = s.next[v];
			uint8_t *row = lft_row(t, v);
			for (const struct rg_ep *e = e0; e < e1; e++)
				for (uint32_t j = 0; j < e->nlids; j++)
					if (e->lid + j <= t->max_lid)
						row[e->lid + j] = f->ports[q].num;
			s.weight[q] += s.flow[v] * dest_lids;
			uint32_t parent = f->nodes[fab_peer_node(f, q)].sw_index;
			s.flow[parent] += s.flow[v];
		}
	}
	log_info("sssp: routed %u switches in %.3f s", s.g.nsw, now_seconds() - t0);
	sssp_free(&s);
	return 0;
nomem:
	sssp_free(&s);
	snprintf(ctx->why, sizeof(ctx->why), "out of memory");
	return -ENOMEM;
}

static const struct route_engine sssp_engine = {
	.name = "sssp",
	.summary = "load-aware shortest paths (DFSSSP without VLs; "
		   "NOT deadlock-free)",
	.flags = 0,     /* promises nothing: the daemon verifies its tables */
	.route = sssp_route,
};

/* The one symbol ibsm looks up (routing/engine.h). */
const struct route_engine *ibsm_engine_entry(uint32_t abi_version);

const struct route_engine *ibsm_engine_entry(uint32_t abi_version)
{
	return abi_version == ROUTE_ENGINE_ABI ? &sssp_engine : NULL;
}
