/* dfsp_nue's escape paths: components, layers as regions of the
 * breadth-first order, each layer's escape tree from a central switch
 * and the turns that seed its dependency graph (dfsp_nue.c, step 2). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dfsp_nue.h"

static int cmp_key(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Breadth-first order from roots[0..n) (one per component) into queue;
 * with tree and pos, also marks the tree's channels (both directions) and
 * each switch's position. Returns the switches ordered. */
static uint32_t bfs_order(struct nue *u, const uint32_t *roots, uint32_t n,
			  uint32_t *queue, uint32_t *dist, uint8_t *tree,
			  uint32_t *pos)
{
	const struct route_graph *g = u->g;
	uint32_t head = 0, tail = 0;
	for (uint32_t s = 0; s < u->nsw; s++)
		dist[s] = UINT32_MAX;
	for (uint32_t k = 0; k < n; k++) {
		dist[roots[k]] = 0;
		queue[tail++] = roots[k];
		while (head < tail) {
			uint32_t v = queue[head++];
			for (uint32_t i = g->adj_off[v]; i < g->adj_off[v + 1]; i++) {
				uint32_t w = g->adj[i].peer;
				if (dist[w] != UINT32_MAX || u->dag.rev[i] == UINT32_MAX)
					continue;
				dist[w] = dist[v] + 1;
				if (tree)
					tree[i] = tree[u->dag.rev[i]] = 1;
				queue[tail++] = w;
			}
		}
	}
	for (uint32_t k = 0; pos && k < tail; k++)
		pos[queue[k]] = k;
	return tail;
}

static int cmp_u64k(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The root_rank-th switch of component c on layer l by (eccentricity,
 * ordinal), wrapping around; 0 if the layer has no switch there. */
static int pick_root(const struct nue *u, uint32_t c, uint32_t l,
		     const uint32_t *ecc, uint32_t *scratch, uint32_t *root)
{
	uint64_t *key = malloc(((size_t)u->nsw + 1) * sizeof(uint64_t));
	uint32_t n = 0;
	(void)scratch;
	if (!key)
		return 0;
	for (uint32_t s = 0; s < u->nsw; s++)
		if (u->comp[s] == c && u->layer_of_sw[s] == l)
			key[n++] = (uint64_t)ecc[s] << 32 | s;
	if (n) {
		qsort(key, n, sizeof(uint64_t), cmp_u64k);
		*root = (uint32_t)key[u->root_rank % n];
	}
	free(key);
	return n > 0;
}

/* Components, a central root per component (least eccentricity), the
 * breadth-first escape tree from it, and its turns in every layer. */
int nue_escape_tree(struct nue *u, int seed_updown)
{
	const struct route_graph *g = u->g;
	uint32_t *dist = malloc(((size_t)u->nsw + 1) * sizeof(uint32_t));
	uint32_t *queue = malloc(((size_t)u->nsw + 1) * sizeof(uint32_t));
	uint32_t *best = malloc(((size_t)u->nsw + 1) * sizeof(uint32_t));
	uint32_t *root = malloc(((size_t)u->nsw + 1) * sizeof(uint32_t));
	uint32_t *ecc = malloc(((size_t)u->nsw + 1) * sizeof(uint32_t));
	int r = 0;
	if (!dist || !queue || !best || !root || !ecc) {
		r = -ENOMEM;
		goto out;
	}
	for (uint32_t s = 0; s < u->nsw; s++)
		u->comp[s] = UINT32_MAX;
	uint32_t ncomp = 0;
	for (uint32_t s = 0; s < u->nsw; s++) {
		rg_bfs(g, s, dist, queue);
		uint32_t e = 0, n = 0;
		for (uint32_t v = 0; v < u->nsw; v++)
			if (dist[v] != UINT32_MAX) {
				n++;
				if (dist[v] > e)
					e = dist[v];
			}
		ecc[s] = e;
		if (u->comp[s] == UINT32_MAX) {
			for (uint32_t v = 0; v < u->nsw; v++)
				if (dist[v] != UINT32_MAX)
					u->comp[v] = ncomp;
			u->comp_size[ncomp] = n;
			best[ncomp++] = s;
		} else if (e < ecc[best[u->comp[s]]]) {
			best[u->comp[s]] = s;
		}
	}
	/* Layers: contiguous runs of the breadth-first order from each
	 * component's centre, of about equal LID count. */
	for (uint32_t c = 0; c < ncomp; c++) {
		uint32_t tail = bfs_order(u, &best[c], 1, queue, dist, NULL, NULL);
		uint64_t lids = 0, sofar = 0;
		for (uint32_t k = 0; k < tail; k++)
			for (uint32_t e = g->ep_off[queue[k]]; e < g->ep_off[queue[k] + 1]; e++)
				lids += g->ep[e].nlids;
		for (uint32_t k = 0; k < tail; k++) {
			uint32_t l = lids ? (uint32_t)(sofar * u->dag.nlayers / lids) : 0;
			u->layer_of_sw[queue[k]] = l < u->dag.nlayers ? l : u->dag.nlayers - 1;
			for (uint32_t e = g->ep_off[queue[k]]; e < g->ep_off[queue[k] + 1]; e++)
				sofar += g->ep[e].nlids;
		}
	}
	/* Each layer's escape tree grows from the most central switch of its
	 * own region (per component): the layers' seeds differ, so what one
	 * layer's turns forbid another may allow (Nue also varies its
	 * spanning trees per layer). */
	for (uint32_t l = 0; l < u->dag.nlayers; l++) {
		uint8_t *tree = u->tree + (size_t)l * u->nch;
		uint32_t *pos = u->pos + (size_t)l * u->nsw;
		for (uint32_t c = 0; c < ncomp; c++)
			root[c] = best[c];
		for (uint32_t c = 0; c < ncomp; c++)
			if (!pick_root(u, c, l, ecc, queue, &root[c]))
				root[c] = best[c];
		memset(tree, 0, u->nch);
		bfs_order(u, root, ncomp, queue, dist, tree, pos);
	}
	if (u->free_paths)
		goto out; /* no dependency constraint, no seeds */
	uint64_t *key = malloc(((size_t)u->nch + 1) * sizeof(uint64_t));
	uint32_t *perm = malloc(((size_t)u->nch + 1) * sizeof(uint32_t));
	if (!key || !perm) {
		free(key);
		free(perm);
		r = -ENOMEM;
		goto out;
	}
	for (uint32_t l = 0; l < u->dag.nlayers && !r; l++) {
		const uint8_t *tree = u->tree + (size_t)l * u->nch;
		const uint32_t *pos = u->pos + (size_t)l * u->nsw;
		/* A topological order of every seed below: up channels first,
		 * by their tail's position from the last, then down channels
		 * by their tail's position (up-up, up-down and down-down all
		 * go forward). */
		for (uint32_t a = 0; a < u->nch; a++) {
			uint32_t pt = pos[u->dag.tail[a]];
			int up = pos[g->adj[a].peer] < pt;
			uint64_t rank = up ? (uint64_t)(u->nsw - pt) : (uint64_t)u->nsw + 1 + pt;
			key[a] = rank << 32 | a;
		}
		qsort(key, u->nch, sizeof(uint64_t), cmp_key);
		for (uint32_t a = 0; a < u->nch; a++)
			perm[a] = (uint32_t)key[a];
		cdg_set_order(&u->dag, l, perm, u->nch);
		/* Seed the layer with the escape turns: every non-U turn
		 * between tree channels (acyclic: a cycle would need a
		 * down-up turn, and the only one is the U-turn), or with
		 * seed_updown every turn of the up*\/down* orientation by
		 * breadth-first position that is not down-up (acyclic for the
		 * same reason; tree paths are among them). */
		for (uint32_t a = 0; a < u->nch && !r; a++) {
			if (!tree[a] && !seed_updown)
				continue;
			uint32_t v = g->adj[a].peer;
			int a_down = pos[u->dag.tail[a]] < pos[v];
			for (uint32_t b = g->adj_off[v]; b < g->adj_off[v + 1]; b++) {
				if (b == u->dag.rev[a])
					continue;
				if (seed_updown ? a_down && pos[g->adj[b].peer] < pos[v]
						: !tree[b])
					continue;
				if (cdg_add(&u->dag, l, a, b) < 0)
					r = -EINVAL; /* cannot happen */
			}
		}
	}
	free(key);
	free(perm);
out:
	free(dist);
	free(queue);
	free(best);
	free(root);
	free(ecc);
	return r;
}

