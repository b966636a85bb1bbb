/* Hop minimums for the verifier: switch-graph distances from destination
 * switches, VX_GROUP of them at once. Bit b of a switch's word says that
 * destination lo + b has reached it; one level ORs the neighbours' frontier
 * words, so a group costs (levels x links) word operations where one
 * breadth-first search per destination costs (destinations x links): at
 * 5,120 switches and 262,144 directed links, 80 groups of about 6 levels
 * instead of 5,120 searches. The plain search (vx_bfs) is kept for the
 * order it visits switches in, which the verifier's messages follow. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "verify_internal.h"

void vx_bfs(const struct vx *x, uint32_t src, uint32_t *dist,
	    uint32_t *queue, uint32_t *qn)
{
	uint32_t h = 0, tl = 0;
	for (uint32_t s = 0; s < x->nsw; s++)
		dist[s] = UINT32_MAX;
	dist[src] = 0;
	queue[tl++] = src;
	while (h < tl) {
		uint32_t s = queue[h++];
		for (uint32_t a = x->adj_off[s]; a < x->adj_off[s + 1]; a++) {
			uint32_t o = x->adj[a].peer;
			if (dist[o] == UINT32_MAX) {
				dist[o] = dist[s] + 1;
				queue[tl++] = o;
			}
		}
	}
	*qn = tl;
}

int vx_bfs_group_init(struct vx_bfs_group *g, uint32_t nsw)
{
	size_t n = (size_t)nsw + 1;
	memset(g, 0, sizeof(*g));
	g->nsw = nsw;
	g->vis = malloc(n * sizeof(uint64_t));
	g->front = malloc(n * sizeof(uint64_t));
	g->next = malloc(n * sizeof(uint64_t));
	g->dist = malloc(n * VX_GROUP * sizeof(uint32_t));
	return g->vis && g->front && g->next && g->dist ? 0 : -ENOMEM;
}

void vx_bfs_group_free(struct vx_bfs_group *g)
{
	free(g->vis);
	free(g->front);
	free(g->next);
	free(g->dist);
}

void vx_bfs_group_run(const struct vx *x, struct vx_bfs_group *g,
		      uint32_t lo, uint32_t n)
{
	uint32_t nsw = x->nsw;
	uint64_t full = n == 64 ? UINT64_MAX : (1ULL << n) - 1, any = 1;

	g->lo = lo;
	g->n = n;
	for (size_t i = 0; i < (size_t)n * nsw; i++)
		g->dist[i] = UINT32_MAX;
	memset(g->vis, 0, nsw * sizeof(uint64_t));
	memset(g->front, 0, nsw * sizeof(uint64_t));
	for (uint32_t b = 0; b < n; b++) {
		g->dist[(size_t)b * nsw + lo + b] = 0;
		g->vis[lo + b] = g->front[lo + b] = 1ULL << b;
	}
	for (uint32_t level = 1; any; level++) {
		any = 0;
		for (uint32_t s = 0; s < nsw; s++) {
			uint64_t acc = 0;
			if (g->vis[s] == full) {
				g->next[s] = 0;
				continue;
			}
			for (uint32_t a = x->adj_off[s]; a < x->adj_off[s + 1]; a++)
				acc |= g->front[x->adj[a].peer];
			acc &= ~g->vis[s];
			g->next[s] = acc;
			g->vis[s] |= acc;
			any |= acc;
			while (acc) {
				unsigned b = (unsigned)__builtin_ctzll(acc);
				g->dist[(size_t)b * nsw + s] = level;
				acc &= acc - 1;
			}
		}
		uint64_t *t = g->front;
		g->front = g->next;
		g->next = t;
	}
}
