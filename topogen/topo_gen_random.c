/* Random regular graphs of switches (the "Jellyfish" fabric: Singla, Hong,
 * Popa, Godfrey, NSDI 2012), each switch with p CAs.
 *
 * Method: start from a circulant d-regular graph (switch i linked to
 * i +- 1 .. i +- d/2, and to i + n/2 when d is odd), then apply 20 * edges
 * random degree-preserving double-edge swaps ({a,b},{c,d} -> {a,d},{c,b}),
 * refusing swaps that would make a self-link or a parallel link. This
 * always succeeds, unlike rejection sampling of perfect matchings, and the
 * swap chain mixes to near-uniform regular graphs (Cooper, Dyer, Greenhill
 * 2007). If the result is not connected we keep swapping (bounded).
 *
 * Node order: CAs first (CA c on switch c / p, port c % p + 1), then
 * switches "rr-<i>". Ports: 1..p CAs, then p+1..p+d switch links. Links are
 * cabled in order: for i ascending, for each neighbour j > i ascending,
 * the next free port of i to the next free port of j. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "topo_gen.h"
#include "topo_gen_util.h"

struct rr_graph {
	uint32_t n, d;
	uint32_t *adj;          /* n * d neighbour lists */
	uint32_t (*edge)[2];    /* n * d / 2 edges */
	uint32_t num_edges;
};

static int rr_has(const struct rr_graph *g, uint32_t u, uint32_t v)
{
	for (uint32_t i = 0; i < g->d; i++)
		if (g->adj[u * g->d + i] == v)
			return 1;
	return 0;
}

static void rr_replace(struct rr_graph *g, uint32_t u, uint32_t from,
		       uint32_t to)
{
	for (uint32_t i = 0; i < g->d; i++)
		if (g->adj[u * g->d + i] == from) {
			g->adj[u * g->d + i] = to;
			return;
		}
}

static int rr_circulant(struct rr_graph *g)
{
	uint32_t n = g->n;
	uint32_t *deg = calloc(n, sizeof(*deg));
	if (!deg)
		return -ENOMEM;
	g->num_edges = 0;
	for (uint32_t i = 0; i < n; i++) {
		for (uint32_t k = 1; k <= g->d / 2; k++) {
			uint32_t j = (i + k) % n;
			g->edge[g->num_edges][0] = i;
			g->edge[g->num_edges++][1] = j;
		}
		if (g->d % 2 && i < n / 2) {
			g->edge[g->num_edges][0] = i;
			g->edge[g->num_edges++][1] = i + n / 2;
		}
	}
	for (uint32_t e = 0; e < g->num_edges; e++) {
		uint32_t u = g->edge[e][0], v = g->edge[e][1];
		g->adj[u * g->d + deg[u]++] = v;
		g->adj[v * g->d + deg[v]++] = u;
	}
	free(deg);
	return 0;
}

static void rr_swaps(struct rr_graph *g, uint64_t *rng, uint64_t count)
{
	for (uint64_t t = 0; t < count; t++) {
		uint32_t e1 = (uint32_t)gen_rand_below(rng, g->num_edges);
		uint32_t e2 = (uint32_t)gen_rand_below(rng, g->num_edges);
		if (e1 == e2)
			continue;
		uint32_t a = g->edge[e1][0], b = g->edge[e1][1];
		uint32_t c = g->edge[e2][0], d = g->edge[e2][1];
		if (gen_rand(rng) & 1) {    /* either orientation of e2 */
			uint32_t x = c;
			c = d;
			d = x;
		}
		/* {a,b},{c,d} -> {a,d},{c,b} */
		if (a == d || c == b || rr_has(g, a, d) || rr_has(g, c, b))
			continue;
		rr_replace(g, a, b, d);
		rr_replace(g, b, a, c);
		rr_replace(g, c, d, b);
		rr_replace(g, d, c, a);
		g->edge[e1][0] = a;
		g->edge[e1][1] = d;
		g->edge[e2][0] = c;
		g->edge[e2][1] = b;
	}
}

static int rr_connected(const struct rr_graph *g, uint32_t *queue,
			uint8_t *seen)
{
	for (uint32_t i = 0; i < g->n; i++)
		seen[i] = 0;
	uint32_t head = 0, tail = 0;
	queue[tail++] = 0;
	seen[0] = 1;
	while (head < tail) {
		uint32_t u = queue[head++];
		for (uint32_t i = 0; i < g->d; i++) {
			uint32_t v = g->adj[u * g->d + i];
			if (!seen[v]) {
				seen[v] = 1;
				queue[tail++] = v;
			}
		}
	}
	return tail == g->n;
}

static int cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	return a < b ? -1 : a > b;
}

static int rr_make(struct rr_graph *g, uint64_t seed)
{
	uint32_t *queue = malloc(g->n * sizeof(*queue));
	uint8_t *seen = malloc(g->n);
	if (!queue || !seen) {
		free(queue);
		free(seen);
		return -ENOMEM;
	}
	uint64_t rng = seed;
	if (rr_circulant(g)) {
		free(queue);
		free(seen);
		return -ENOMEM;
	}
	rr_swaps(g, &rng, 20ull * g->num_edges);
	int ok = rr_connected(g, queue, seen);
	for (int tries = 0; !ok && tries < 100; tries++) {
		rr_swaps(g, &rng, g->num_edges);
		ok = rr_connected(g, queue, seen);
	}
	free(queue);
	free(seen);
	for (uint32_t u = 0; u < g->n; u++)
		qsort(&g->adj[u * g->d], g->d, sizeof(uint32_t), cmp_u32);
	return ok ? 0 : -EAGAIN;
}

static int rr_cable(struct fabric *f, const struct random_params *p,
		    const struct rr_graph *g)
{
	unsigned hp = p->hcas_per_switch;
	uint32_t sw = 0;
	if (gen_add_cas(f, g->n * hp))
		return -ENOMEM;
	uint32_t sw0 = f->num_nodes;
	if (gen_add_switch_row(f, &sw, g->n, hp + g->d, "rr-", ""))
		return -ENOMEM;
	for (uint32_t c = 0; c < g->n * hp; c++)
		if (gen_link(f, c, 1, sw0 + c / hp, c % hp + 1))
			return -EINVAL;
	uint8_t *next = malloc(g->n);
	if (!next)
		return -ENOMEM;
	for (uint32_t s = 0; s < g->n; s++)
		next[s] = (uint8_t)(hp + 1);
	int r = 0;
	for (uint32_t u = 0; u < g->n && !r; u++)
		for (uint32_t i = 0; i < g->d && !r; i++) {
			uint32_t v = g->adj[u * g->d + i];
			if (v < u)
				continue;
			r = gen_link(f, sw0 + u, next[u]++, sw0 + v, next[v]++);
		}
	free(next);
	return r ? -EINVAL : 0;
}

int gen_random(struct fabric *f, const struct random_params *p, char *err)
{
	fab_init(f);
	if (err)
		err[0] = '\0';
	uint32_t n = p->switches, d = p->degree;
	if (n < 2 || n > 100000)
		return gen_fail(err, "switches must be in 2..100000, not %u", n);
	if (d < 1 || d >= n)
		return gen_fail(err, "degree must be in 1..%u (switches - 1), not %u",
				n - 1, d);
	if (d == 1 && n != 2)
		return gen_fail(err, "degree 1 cannot connect %u switches", n);
	if ((uint64_t)n * d % 2)
		return gen_fail(err, "switches * degree must be even (%u * %u)", n, d);
	if (p->hcas_per_switch < 1 ||
	    p->hcas_per_switch + d > FAB_MAX_PORTS)
		return gen_fail(err, "hosts per switch must be in 1..%u, not %u",
				FAB_MAX_PORTS - d, p->hcas_per_switch);
	if ((uint64_t)n * (p->hcas_per_switch + 1) > GEN_MAX_NODES)
		return gen_fail(err, "random fabric too large (over %u nodes)",
				GEN_MAX_NODES);

	struct rr_graph g = { .n = n, .d = d };
	g.adj = malloc((size_t)n * d * sizeof(*g.adj));
	g.edge = malloc((size_t)n * d / 2 * sizeof(*g.edge));
	int r = g.adj && g.edge ? rr_make(&g, p->seed) : -ENOMEM;
	if (r == 0)
		r = rr_cable(f, p, &g);
	free(g.adj);
	free(g.edge);
	if (r) {
		gen_fail(err, "%s", r == -ENOMEM ? "out of memory" : r == -EAGAIN ?
			 "could not make a connected random regular graph; try "
			 "another seed or a higher degree" :
			 "internal error: cabling failed");
		fab_free(f);
		return r == -EAGAIN ? -EINVAL : r;
	}
	return 0;
}
