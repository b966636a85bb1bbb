/* dfsp_nue's sink trees: per destination LID, the Dijkstra search
 * backwards from its switch on the layer's dependency graph (steps 3 and
 * 4 of dfsp_nue.c), the rows it writes and the channel loads it adds;
 * for weighted paths, each tree kept to be taken off again. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dfsp_nue.h"

/* Free paths (weighted shortest paths): equal costs go by a hash of the
 * channel salted with the LID routed, so each destination breaks ties its
 * own way, the same in every round. A total order makes the heap's shape
 * irrelevant: a 4-ary heap with one queued entry per switch (a Dijkstra
 * without dependency constraints never needs a second). Over the 24
 * bench fabrics the weighted paths then balance about as well as with
 * the binary heap's implicit tie order (docs/dfsp.md).
 * Dependency-graph passes keep the binary heap on the cost alone, stale
 * entries included: a refused channel needs the next entry of its
 * switch, and its tie order measured better at one VL there (random
 * 2,048 CAs: 5.99x the bound against 8.85x with the hashed ties). */
static inline int hless(uint64_t c1, uint32_t t1, uint64_t c2, uint32_t t2)
{
	return c1 < c2 || (c1 == c2 && t1 < t2);
}

static inline uint32_t tie(const struct nue *u, uint32_t ch)
{
	return (ch + u->salt * 7919u) * 2654435761u;
}

/* A d-ary heap of entries ordered by hless; the binary heap's entries
 * carry tb 0, so it orders them by cost alone. Inlined with a constant d
 * (4 for free paths, 2 for dependency-graph passes). */
static inline void heap_push_d(struct nue *u, uint32_t d, struct hent e)
{
	uint32_t i = u->nheap++;
	while (i) {
		uint32_t p = (i - 1) / d;
		if (!hless(e.cost, e.tb, u->heap[p].cost, u->heap[p].tb))
			break;
		u->heap[i] = u->heap[p];
		i = p;
	}
	u->heap[i] = e;
}

static inline struct hent heap_pop_d(struct nue *u, uint32_t d)
{
	struct hent top = u->heap[0], last = u->heap[--u->nheap];
	uint32_t i = 0, n = u->nheap;
	for (;;) {
		uint32_t c = d * i + 1;
		if (c >= n)
			break;
		uint32_t e = c + d < n ? c + d : n;
		for (uint32_t k = c + 1; k < e; k++)
			if (hless(u->heap[k].cost, u->heap[k].tb, u->heap[c].cost, u->heap[c].tb))
				c = k;
		if (!hless(u->heap[c].cost, u->heap[c].tb, last.cost, last.tb))
			break;
		u->heap[i] = u->heap[c];
		i = c;
	}
	if (n)
		u->heap[i] = last;
	return top;
}

static void heap_push_free(struct nue *u, uint64_t cost, uint32_t ch)
{
	uint32_t tb = tie(u, ch), v = u->dag.tail[ch];
	if (u->qmark[v] == u->epoch && !hless(cost, tb, u->qcost[v], u->qtb[v]))
		return; /* no better than what v has queued */
	u->qmark[v] = u->epoch;
	u->qcost[v] = cost;
	u->qtb[v] = tb;
	heap_push_d(u, 4, (struct hent){ cost, tb, ch });
}

static inline void heap_push(struct nue *u, uint64_t cost, uint32_t ch)
{
	if (u->free_paths)
		heap_push_free(u, cost, ch);
	else
		heap_push_d(u, 2, (struct hent){ cost, 0, ch });
}

static inline struct hent heap_pop(struct nue *u)
{
	return u->free_paths ? heap_pop_d(u, 4) : heap_pop_d(u, 2);
}

/* A new destination: marks of the last one are stale. */
void nue_next_epoch(struct nue *u)
{
	if (++u->epoch == 0) {
		memset(u->mark, 0, (size_t)u->nsw * sizeof(uint32_t));
		memset(u->qmark, 0, (size_t)u->nsw * sizeof(uint32_t));
		u->epoch = 1;
	}
}

static void settle(struct nue *u, uint32_t s, uint32_t ch)
{
	u->mark[s] = u->epoch;
	u->out[s] = ch;
	u->cnt[s] = u->g->cas[s];
	u->order[u->norder++] = s;
}

/* The sink tree of destination switch d on layer l by the constrained
 * Dijkstra; returns 0 on an impasse (some switch left unreached). */
int nue_grow(struct nue *u, uint32_t d, uint32_t l)
{
	const struct route_graph *g = u->g;
	u->nheap = 0;
	u->nadded = 0;
	u->norder = 0;
	settle(u, d, UINT32_MAX);
	for (uint32_t i = g->adj_off[d]; i < g->adj_off[d + 1]; i++) {
		uint32_t c = u->dag.rev[i];
		if (c != UINT32_MAX)
			heap_push(u, u->w[c], c);
	}
	/* Once every switch of d's component is settled the rest of the
	 * heap is stale entries only: stop there (same tree, fewer pops). */
	uint32_t want = u->comp_size[u->comp[d]];
	while (u->nheap && u->norder < want) {
		struct hent h = heap_pop(u);
		uint32_t hsw = u->dag.tail[h.ch];
		if (u->mark[hsw] == u->epoch)
			continue;
		uint32_t n = g->adj[h.ch].peer;
		if (n != d && !u->free_paths) {
			int r = cdg_add(&u->dag, l, h.ch, u->out[n]);
			if (r < 0)
				continue;
			if (r > 0)
				u->added[u->nadded++] = (uint64_t)h.ch << 32 | u->out[n];
		}
		settle(u, hsw, h.ch);
		for (uint32_t i = g->adj_off[hsw]; i < g->adj_off[hsw + 1]; i++) {
			uint32_t v = g->adj[i].peer, c = u->dag.rev[i];
			if (u->mark[v] != u->epoch && c != UINT32_MAX)
				heap_push(u, h.cost + u->w[c], c);
		}
	}
	return u->norder == want;
}

/* Escape next hops toward d for every switch of its component (the
 * escape tree's path), into esc[]. */
static void escape_hops(struct nue *u, uint32_t d, uint32_t l, uint32_t *esc)
{
	const struct route_graph *g = u->g;
	const uint8_t *tree = u->tree + (size_t)l * u->nch;
	uint32_t n = 0;
	esc[d] = UINT32_MAX;
	u->order[n++] = d;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t v = u->order[k];
		for (uint32_t i = g->adj_off[v]; i < g->adj_off[v + 1]; i++) {
			uint32_t w = g->adj[i].peer;
			if (tree[i] && w != d && esc[w] == UINT32_MAX - 1) {
				esc[w] = u->dag.rev[i];
				u->order[n++] = w;
			}
		}
	}
}

/* Put s and the rest of its escape path on escape hops. */
static void to_escape(struct nue *u, uint32_t s, uint32_t d,
		      const uint32_t *esc, uint8_t *x)
{
	while (s != d && !x[s]) {
		x[s] = 1;
		u->out[s] = esc[s];
		s = u->g->adj[esc[s]].peer;
	}
}

/* After an impasse: the switches left unreached take escape paths, and so
 * does every switch on their way to d (their turns are in every layer).
 * A switch whose next hop went over to escape keeps its channel only if
 * the new dependency closes no cycle, else it goes over too; repeated
 * until nothing changes. Dependencies no route uses any more are taken
 * back. The sink tree is then listed again from d outwards. */
void nue_repair(struct nue *u, uint32_t d, uint32_t l, uint32_t *esc,
		uint8_t *x)
{
	const struct route_graph *g = u->g;
	uint32_t cd = u->comp[d];
	for (uint32_t s = 0; s < u->nsw; s++) {
		esc[s] = UINT32_MAX - 1;
		x[s] = 0;
	}
	escape_hops(u, d, l, esc);
	for (uint32_t s = 0; s < u->nsw; s++)
		if (s != d && u->comp[s] == cd && u->mark[s] != u->epoch)
			to_escape(u, s, d, esc, x);
	for (int changed = 1; changed;) {
		changed = 0;
		for (uint32_t s = 0; s < u->nsw; s++) {
			if (s == d || x[s] || u->comp[s] != cd)
				continue;
			uint32_t n = g->adj[u->out[s]].peer;
			if (n == d || !x[n])
				continue;
			int r = cdg_add(&u->dag, l, u->out[s], u->out[n]);
			if (r > 0)
				u->added[u->nadded++] = (uint64_t)u->out[s] << 32 | u->out[n];
			else if (r < 0) {
				to_escape(u, s, d, esc, x);
				changed = 1;
			}
		}
	}
	for (uint32_t k = 0; k < u->nadded; k++) {
		uint32_t a = (uint32_t)(u->added[k] >> 32), b = (uint32_t)u->added[k];
		uint32_t s = u->dag.tail[a], n = g->adj[a].peer;
		if (u->out[s] != a || u->out[n] != b)
			cdg_del(&u->dag, l, a, b);
	}
	/* List the tree from d outwards (parents before children). */
	u->norder = 0;
	u->order[u->norder++] = d;
	for (uint32_t k = 0; k < u->norder; k++) {
		uint32_t v = u->order[k];
		for (uint32_t i = g->adj_off[v]; i < g->adj_off[v + 1]; i++) {
			uint32_t w = g->adj[i].peer;
			if (w != d && u->out[w] == u->dag.rev[i])
				u->order[u->norder++] = w;
		}
	}
	for (uint32_t k = 0; k < u->norder; k++)
		u->cnt[u->order[k]] = g->cas[u->order[k]];
}

void nue_write_rows(struct nue *u, uint32_t lid, uint32_t l,
		    struct lft_set *t, struct path_sl *p)
{
	const struct route_graph *g = u->g;
	for (uint32_t k = 1; k < u->norder; k++) {
		uint32_t s = u->order[k];
		lft_set_port(t, s, lid, g->adj[u->out[s]].port);
	}
	for (uint32_t k = 0; k < u->norder; k++)
		p->sl[(size_t)u->order[k] * p->stride + lid] = (uint8_t)l;
}

/* Add the CA pairs of this sink tree to the channel loads. */
void nue_add_load(struct nue *u)
{
	for (uint32_t k = u->norder; k-- > 1;) {
		uint32_t s = u->order[k], c = u->out[s];
		u->cnt[u->g->adj[c].peer] += u->cnt[s];
		u->load[c] += u->cnt[s];
		reweigh(u, c);
		if (u->load[c] > u->max_load)
			u->max_load = u->load[c];
	}
}

/* Room for every CA LID's sink tree (rerouting takes them back). */
int nue_keep_trees(struct nue *u, const struct lft_set *t)
{
	const struct route_graph *g = u->g;
	uint32_t n = 0;
	u->tree_at = calloc((size_t)t->max_lid + 1, sizeof(uint32_t));
	u->tree_n = calloc((size_t)t->max_lid + 1, sizeof(uint32_t));
	u->acc = malloc(((size_t)u->nsw + 1) * sizeof(uint32_t));
	if (!u->tree_at || !u->tree_n || !u->acc)
		return -ENOMEM;
	for (uint32_t e = 0; e < g->ep_off[g->nsw]; e++)
		for (uint32_t j = 0; g->ep[e].weighted && j < g->ep[e].nlids; j++)
			if (g->ep[e].lid + j <= t->max_lid)
				u->tree_at[g->ep[e].lid + j] = n++;
	u->tree_ch = malloc(((size_t)n * u->nsw + 1) * sizeof(uint32_t));
	return u->tree_ch ? 0 : -ENOMEM;
}

/* Weighted paths: remember lid's sink tree (channels in settle order). */
void nue_keep_tree(struct nue *u, uint32_t lid)
{
	if (!u->tree_ch)
		return;
	uint32_t *ch = u->tree_ch + (size_t)u->tree_at[lid] * u->nsw;
	for (uint32_t k = 1; k < u->norder; k++)
		ch[k - 1] = u->out[u->order[k]];
	u->tree_n[lid] = u->norder - 1;
}

/* Take lid's remembered tree off the loads: the CA pairs add_load put
 * on each channel, recounted from the leaves (the same sums as walking
 * every CA switch's route in the tables). */
void nue_drop_tree(struct nue *u, uint32_t d, uint32_t lid)
{
	const struct route_graph *g = u->g;
	const uint32_t *ch = u->tree_ch + (size_t)u->tree_at[lid] * u->nsw;
	uint32_t n = u->tree_n[lid];
	u->acc[d] = g->cas[d];
	for (uint32_t k = 0; k < n; k++)
		u->acc[u->dag.tail[ch[k]]] = g->cas[u->dag.tail[ch[k]]];
	for (uint32_t k = n; k-- > 0;) {
		uint32_t c = ch[k], s = u->dag.tail[c];
		u->acc[g->adj[c].peer] += u->acc[s];
		u->load[c] -= u->acc[s];
		reweigh(u, c);
	}
}

