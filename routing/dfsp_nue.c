/* dfsp within a fixed layer budget, down to one VL: routes grown on the
 * channel dependency graph, after Nue (J. Domke, T. Hoefler, S. Matsuoka,
 * "Routing on the Dependency Graph: A New Approach to Deadlock-Free
 * High-Performance Routing", HPDC 2016). Our own design on those ideas:
 *
 * 1. Destination switches are split into nlayers contiguous groups of
 *    about equal LID count (in breadth-first order from the escape root,
 *    so a layer holds a region); every LID of a group routes on its layer.
 * 2. Escape paths: a breadth-first spanning tree from a central switch.
 *    Every turn between tree channels except a U-turn (up-up, up-down,
 *    down-down) is put into every layer's dependency graph first; that
 *    set is acyclic, so any destination can always be routed on tree
 *    paths alone.
 * 3. Per destination LID, a Dijkstra search backwards from its switch:
 *    a switch s joins the sink tree through channel c = s -> n only if
 *    c -> out(n) keeps the layer's dependency graph acyclic (cdg_dag.h:
 *    an incremental topological order, so most checks cost nothing).
 *    Channel weight = a hop cost + the CA pairs routed over it so far, so
 *    later destinations avoid loaded channels and may take longer paths.
 * 4. Impasse (a switch of the component left unreached because every way
 *    in would close a cycle): the unreached switches and everything on
 *    their escape paths take escape hops; the rest keep their channels
 *    where the new dependencies stay acyclic (repair()).
 * A switch's own LID reuses the sink tree of the last CA routed to it
 * (same dependencies, none new). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../core/log.h"
#include "cdg_dag.h"
#include "dfsp_internal.h"

/* A heap entry: reach the tail of channel ch (toward the destination)
 * at cost; ties go to the lower tb. */
struct hent {
	uint64_t cost;
	uint32_t tb, ch;
};

struct nue {
	const struct route_graph *g;
	struct cdg_dag dag;
	uint32_t nsw, nch;
	uint32_t *pos;          /* per layer and switch: breadth-first position
				 * in that layer's escape tree */
	uint8_t *tree;          /* per layer and channel: on its escape tree */
	uint32_t *comp, *comp_size;
	uint32_t *layer_of_sw;
	uint64_t *load;         /* per channel: CA pairs routed over it */
	uint64_t *w;            /* per channel: hop + chan_cost, kept with load
				 * (a push then costs no division) */
	uint64_t *base_load;    /* ... by the routes this does not touch */
	const uint8_t *only;    /* per LID: route it (NULL: all) */
	uint32_t layer_base;    /* first layer this may use */
	uint64_t hop;           /* weight of a hop beside its load */
	/* one destination */
	uint32_t *out;          /* per switch: channel toward the destination */
	uint32_t *mark, epoch;
	uint32_t *order, norder;
	uint64_t *cnt;
	struct hent *heap;
	uint32_t nheap;
	uint64_t *qcost;        /* free paths: best queued (cost, tb) per switch */
	uint32_t *qtb, *qmark;
	uint32_t salt;          /* the LID being routed (ties) */
	uint64_t *added;
	uint32_t nadded;
	uint32_t impasses;
	int free_paths;         /* no dependency constraint (balanced paths) */
	uint32_t root_rank;     /* escape roots: the rank-th most central
				 * switch of each layer's region */
	uint64_t max_load;      /* highest channel load so far this pass */
	uint64_t give_up;       /* a pass stops once max_load passes this */
	uint64_t below;         /* nonzero: a pass less than half done stops
				 * once max_load reaches this (stopped set) */
	int stopped;
	int complete;           /* the last pass routed every destination */
	uint64_t give_up_early; /* a pass less than half done stops once
				 * max_load passes this (hopeless set) */
	int hopeless;
	uint64_t sq;            /* nonzero: a channel weighs load^2 / sq */
	/* weighted paths: each CA LID's last sink tree (its channels in
	 * settle order), to take its load off without walking the tables */
	uint32_t *tree_ch, *tree_n, *tree_at, *acc;
};

/* What a channel adds to a path's cost besides the hop. */
static inline uint64_t chan_cost(const struct nue *u, uint32_t c)
{
	uint64_t l = u->load[c];
	return u->sq ? l * l / u->sq : l;
}

static inline void reweigh(struct nue *u, uint32_t c)
{
	u->w[c] = u->hop + chan_cost(u, c);
}

static void reweigh_all(struct nue *u)
{
	for (uint32_t c = 0; c < u->nch; c++)
		reweigh(u, c);
}

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

static void heap_push_free(struct nue *u, uint64_t cost, uint32_t ch)
{
	uint32_t tb = tie(u, ch), v = u->dag.tail[ch];
	if (u->qmark[v] == u->epoch && !hless(cost, tb, u->qcost[v], u->qtb[v]))
		return; /* no better than what v has queued */
	u->qmark[v] = u->epoch;
	u->qcost[v] = cost;
	u->qtb[v] = tb;
	uint32_t i = u->nheap++;
	while (i) {
		uint32_t p = (i - 1) / 4;
		if (!hless(cost, tb, u->heap[p].cost, u->heap[p].tb))
			break;
		u->heap[i] = u->heap[p];
		i = p;
	}
	u->heap[i] = (struct hent){ cost, tb, ch };
}

static struct hent heap_pop_free(struct nue *u)
{
	struct hent top = u->heap[0], last = u->heap[--u->nheap];
	uint32_t i = 0, n = u->nheap;
	for (;;) {
		uint32_t c = 4 * i + 1;
		if (c >= n)
			break;
		uint32_t e = c + 4 < n ? c + 4 : n;
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

static void heap_push_bin(struct nue *u, uint64_t cost, uint32_t ch)
{
	uint32_t i = u->nheap++;
	while (i) {
		uint32_t p = (i - 1) / 2;
		if (u->heap[p].cost <= cost)
			break;
		u->heap[i] = u->heap[p];
		i = p;
	}
	u->heap[i] = (struct hent){ cost, 0, ch };
}

static struct hent heap_pop_bin(struct nue *u)
{
	struct hent top = u->heap[0], last = u->heap[--u->nheap];
	uint32_t i = 0, n = u->nheap;
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && u->heap[c + 1].cost < u->heap[c].cost)
			c++;
		if (u->heap[c].cost >= last.cost)
			break;
		u->heap[i] = u->heap[c];
		i = c;
	}
	if (n)
		u->heap[i] = last;
	return top;
}

static inline void heap_push(struct nue *u, uint64_t cost, uint32_t ch)
{
	if (u->free_paths)
		heap_push_free(u, cost, ch);
	else
		heap_push_bin(u, cost, ch);
}

static inline struct hent heap_pop(struct nue *u)
{
	return u->free_paths ? heap_pop_free(u) : heap_pop_bin(u);
}

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
static int escape_tree(struct nue *u, int seed_updown)
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
		cdg_set_layer_order(&u->dag, l, perm);
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

/* A new destination: marks of the last one are stale. */
static void next_epoch(struct nue *u)
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
static int grow(struct nue *u, uint32_t d, uint32_t l)
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
static void repair(struct nue *u, uint32_t d, uint32_t l, uint32_t *esc,
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

static void write_rows(struct nue *u, uint32_t lid, uint32_t l,
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
static void add_load(struct nue *u)
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
static int keep_trees(struct nue *u, const struct lft_set *t)
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
static void keep_tree(struct nue *u, uint32_t lid)
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
static void drop_tree(struct nue *u, uint32_t d, uint32_t lid)
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

static int alloc_nue(struct nue *u, const struct route_graph *g, uint32_t nl)
{
	memset(u, 0, sizeof(*u));
	u->g = g;
	u->give_up = u->give_up_early = UINT64_MAX;
	u->nsw = g->nsw;
	u->nch = g->adj_off[g->nsw];
	if (cdg_init(&u->dag, g, nl))
		return -ENOMEM;
	/* Within one pass dependencies are only taken back right after
	 * they were added for the same destination: a refusal stands (a
	 * cheap, conservative cache that bounds the searches). */
	u->dag.remember_refusals = 1;
	size_t ns = (size_t)u->nsw + 1, nc = (size_t)u->nch + 1;
	u->pos = malloc(ns * nl * sizeof(uint32_t));
	u->tree = malloc(nc * nl);
	u->comp = malloc(ns * sizeof(uint32_t));
	u->comp_size = malloc(ns * sizeof(uint32_t));
	u->layer_of_sw = calloc(ns, sizeof(uint32_t));
	u->load = calloc(nc, sizeof(uint64_t));
	u->w = calloc(nc, sizeof(uint64_t));
	u->base_load = calloc(nc, sizeof(uint64_t));
	u->out = malloc(ns * sizeof(uint32_t));
	u->mark = calloc(ns, sizeof(uint32_t));
	u->order = malloc(ns * sizeof(uint32_t));
	u->cnt = malloc(ns * sizeof(uint64_t));
	u->heap = malloc((nc + ns) * sizeof(struct hent));
	u->qcost = malloc(ns * sizeof(uint64_t));
	u->qtb = malloc(ns * sizeof(uint32_t));
	u->qmark = calloc(ns, sizeof(uint32_t));
	u->added = malloc(ns * sizeof(uint64_t));
	if (!u->pos || !u->tree || !u->comp || !u->comp_size || !u->layer_of_sw ||
	    !u->load || !u->base_load || !u->out || !u->mark || !u->order || !u->cnt ||
	    !u->heap || !u->added || !u->w || !u->qcost || !u->qtb || !u->qmark)
		return -ENOMEM;
	return 0;
}

static void free_nue(struct nue *u)
{
	cdg_free(&u->dag);
	free(u->pos);
	free(u->tree);
	free(u->comp);
	free(u->comp_size);
	free(u->layer_of_sw);
	free(u->load);
	free(u->w);
	free(u->tree_ch);
	free(u->tree_n);
	free(u->tree_at);
	free(u->acc);
	free(u->base_load);
	free(u->out);
	free(u->mark);
	free(u->order);
	free(u->cnt);
	free(u->heap);
	free(u->qcost);
	free(u->qtb);
	free(u->qmark);
	free(u->added);
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t r = a % b;
		a = b;
		b = r;
	}
	return a;
}

static uint64_t spread_stride(uint32_t n)
{
	uint64_t s = (uint64_t)n * 618 / 1000;
	if (s < 1)
		s = 1;
	while (gcd(s, n) != 1)
		s++;
	return s;
}

/* One routing of every LID; returns the highest channel load. */
static uint64_t nue_pass(struct nue *u, int seed_updown, uint32_t root_rank,
			 struct lft_set *t,
			 struct path_sl *p, uint32_t *esc, uint8_t *x, int *r)
{
	const struct route_graph *g = u->g;
	cdg_reset(&u->dag);
	memcpy(u->load, u->base_load, (size_t)u->nch * sizeof(uint64_t));
	reweigh_all(u);
	u->max_load = 0;
	u->impasses = 0;
	u->root_rank = root_rank;
	u->stopped = 0;
	u->complete = 0;
	u->hopeless = 0;
	if ((*r = escape_tree(u, seed_updown)))
		return UINT64_MAX;
	/* Destinations in a spread order (a stride coprime to the switch
	 * count, near the golden ratio of it): neighbouring destinations
	 * routed one after the other claim the same dependencies and leave
	 * later ones impasses; spread out they share the graph. Measured:
	 * 2D torus 8x8 4.50 -> 2.70, dragonfly 288 CAs 7.25 -> 3.9 (1 VL). */
	uint64_t stride = spread_stride(g->nsw);
	for (uint32_t dd = 0; dd < g->nsw; dd++) {
		uint32_t d = (uint32_t)(dd * stride % g->nsw);
		uint32_t l = u->layer_of_sw[d];
		int have = 0;
		/* Loads only grow: a pass already past give_up would be
		 * dropped whole, so its remaining destinations are not
		 * worth routing (t and p are then incomplete: unused). */
		if (u->max_load > u->give_up)
			return u->max_load;
		if (u->max_load > u->give_up_early && 2 * dd < g->nsw) {
			u->hopeless = 1;
			return u->max_load;
		}
		if (u->below && u->max_load >= u->below && 2 * dd < g->nsw) {
			u->stopped = 1;
			return u->max_load;
		}
		/* CA LIDs first; the switch's own LID then reuses a CA's tree. */
		for (int pass = 1; pass >= 0; pass--)
			for (uint32_t e = g->ep_off[d]; e < g->ep_off[d + 1]; e++) {
				if (g->ep[e].weighted != pass)
					continue;
				for (uint32_t j = 0; j < g->ep[e].nlids; j++) {
					uint32_t lid = g->ep[e].lid + j;
					if (lid > t->max_lid)
						break;
					if (u->only && !u->only[lid])
						continue;
					if (!(have && !pass)) {
						next_epoch(u);
						u->salt = lid;
						if (!grow(u, d, l)) {
							u->impasses++;
							repair(u, d, l, esc, x);
						}
						have = 1;
						if (pass) {
							add_load(u);
							keep_tree(u, lid);
						}
					}
					write_rows(u, lid, u->layer_base + l, t, p);
				}
			}
	}
	uint64_t max = 0;
	for (uint32_t c = 0; c < u->nch; c++)
		if (u->load[c] > max)
			max = u->load[c];
	u->complete = 1;
	return max;
}

/* The load the routes of LIDs not in only put on each channel. */
static void base_load(struct nue *u, const struct lft_set *t, const uint8_t *only)
{
	const struct route_graph *g = u->g;
	for (uint32_t d = 0; d < g->nsw; d++)
		for (uint32_t e = g->ep_off[d]; e < g->ep_off[d + 1]; e++) {
			uint32_t lid = g->ep[e].lid;
			if (!g->ep[e].weighted || lid > t->max_lid || only[lid])
				continue;
			for (uint32_t s = 0; s < g->nsw; s++) {
				if (s == d || !g->cas[s])
					continue;
				uint32_t n = path_sl_channels(g, t, s, lid, u->order, g->nsw);
				for (uint32_t k = 0; n != UINT32_MAX && k < n; k++)
					u->base_load[u->order[k]] += g->cas[s];
			}
		}
}

int dfsp_nue(struct route_ctx *ctx, const struct route_graph *g,
	     struct lft_set *t, struct path_sl *p, uint32_t nlayers,
	     const uint8_t *only, uint32_t layer_base, uint64_t below)
{
	struct nue u;
	size_t tsize = (size_t)t->num_switches * t->stride;
	size_t psize = (size_t)p->num_switches * p->stride;
	uint32_t *esc = malloc(((size_t)g->nsw + 1) * sizeof(uint32_t));
	uint8_t *x = malloc((size_t)g->nsw + 1);
	uint8_t *best_t = malloc(tsize + 1), *best_p = malloc(psize + 1);
	uint8_t *win_t = malloc(tsize + 1), *win_p = malloc(psize + 1);
	uint64_t best = UINT64_MAX;
	int r = alloc_nue(&u, g, nlayers), best_mode = 0, best_tables = 0;
	if (!r && (!esc || !x || !best_t || !best_p || !win_t || !win_p))
		r = -ENOMEM;
	if (r)
		goto out;
	u.only = only;
	u.layer_base = layer_base;
	if (only)
		base_load(&u, t, only);
	/* A hop costs about what the average channel carries at the end
	 * (CA pairs x a few hops / channels): detours are taken when they
	 * avoid a channel loaded well past the average. */
	uint64_t cas = 0;
	for (uint32_t s = 0; s < g->nsw; s++)
		cas += g->cas[s];
	u.hop = u.nch ? cas * cas / u.nch : 1;
	if (!u.hop)
		u.hop = 1;
	/* Two escape seeds: the tree's turns only (most freedom, Nue's
	 * choice) and the whole up*\/down* turn set (the routes updn could
	 * take, balanced and with detours). Neither wins everywhere; keep
	 * the pass with the lower highest channel load. */
	/* Where the escape trees grow from matters as much as the seed
	 * (random 2,048 CAs on one VL: 4.5x to 9.4x the bound over the
	 * four most central roots): the tree seed is tried from up to four
	 * roots, fewer on big graphs (a pass costs about LIDs x channels
	 * heap operations; at most about 2e7 of those in all). */
	uint64_t lids = 0;
	for (uint32_t e = 0; e < g->ep_off[g->nsw]; e++)
		lids += g->ep[e].nlids;
	uint64_t work = lids * u.nch + 1, tries = 20000000ull / work;
	if (tries < 1)
		tries = 1;
	if (tries > 4)
		tries = 4;
	/* A pass's load (u.load, CA pairs per sink tree) is what
	 * max_channel_load measures on its tables when every CA has one
	 * LID; with LMC aliases each alias adds its own tree, so no probe. */
	int probe = below && !only;
	for (uint32_t e = 0; probe && e < g->ep_off[g->nsw]; e++)
		if (g->ep[e].weighted && g->ep[e].nlids != 1)
			probe = 0;
	/* The probe runs the passes below (a superset: they may break off
	 * early) but gives each up as soon as it cannot be kept: loads only
	 * grow, so once its busiest channel reaches below. Passes do not
	 * depend on each other. Only a pass less than half done stops
	 * there; one further on finishes, and its exact load bounds the
	 * best pass (lowest) from above: a later tree pass past half again
	 * that bound is where the loop below breaks for sure, so the probe
	 * may stop there too (a degraded fat-tree: its up*\/down* pass
	 * reaches below late, its first tree pass breaks). */
	uint64_t bound = UINT64_MAX;
	/* What the probe learnt, so the loop below does not route a pass
	 * twice: a pass the probe finished has that load; the one that got
	 * below keeps its tables (win_k). Any other finished one is at or
	 * past below, so its tables are never kept: keep_better drops a
	 * result whose busiest channel is not below. */
	uint64_t known[5] = { UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX,
			      UINT64_MAX };
	uint32_t win_k = UINT32_MAX;
	for (uint32_t k = 0; probe && k <= tries; k++) {
		u.below = bound == UINT64_MAX ? below : 0;
		u.give_up = k == 0 || bound == UINT64_MAX ? UINT64_MAX
							  : bound + bound / 2;
		uint64_t m = nue_pass(&u, k == 0, k == 0 ? 0 : k - 1, t, p, esc,
				      x, &r);
		if (r)
			goto out;
		if (u.complete)
			known[k] = m;
		if (u.stopped)
			continue;
		if (m < below) {
			probe = 0; /* one gets below: route as without it */
			win_k = k;
			memcpy(win_t, t->port, tsize);
			memcpy(win_p, p->sl, psize);
		}
		else if (k > 0 && bound != UINT64_MAX && m > bound + bound / 2)
			break;
		else if (m < bound)
			bound = m;
	}
	u.below = 0;
	if (probe) {
		log_info("dfsp: no dependency-graph pass loads its busiest channel "
			 "less than %llu CA pairs", (unsigned long long)below);
		r = -ERANGE;
		goto out;
	}
	for (uint32_t k = 0; k <= tries; k++) {
		/* The up*\/down* seed first, once; then the tree seed from
		 * each root, given up when a tree pass loads its busiest
		 * channel half again as much as the best so far (trees:
		 * up*\/down* fits them, three times less loaded). */
		int mode = k == 0;
		uint32_t rank = mode ? 0 : k - 1;
		/* A tree pass is given up past best + best / 2 (below): stop
		 * it as soon as it gets there, the result is the same. With
		 * below, a tree pass that cannot beat the best (loads only
		 * grow) while less than half done is hopeless: it stops and
		 * ends the loop as if it were past best + best / 2 (degraded
		 * fat-trees: the tree passes end at 1.7-3x the up*\/down*
		 * pass and reach it a fifth of the way in). */
		u.give_up = mode || best == UINT64_MAX ? UINT64_MAX : best + best / 2;
		u.give_up_early = below && !mode && best != UINT64_MAX ? best - 1
								       : UINT64_MAX;
		uint64_t m = known[k];
		if (m == UINT64_MAX) {
			m = nue_pass(&u, mode, rank, t, p, esc, x, &r);
			if (r)
				goto out;
			log_info("dfsp: dependency-graph pass %s, root rank %u: "
				 "highest channel load %llu, %u LIDs on escape paths "
				 "after an impasse, %llu reorders", mode ?
				 "up*/down* seed" : "tree seed", rank,
				 (unsigned long long)m, u.impasses,
				 (unsigned long long)u.dag.reorders);
			if (u.hopeless)
				m = UINT64_MAX; /* break below */
		} else if (k == win_k) {
			memcpy(t->port, win_t, tsize);
			memcpy(p->sl, win_p, psize);
		}
		if (m < best) {
			best = m;
			best_mode = mode;
			best_tables = known[k] == UINT64_MAX || k == win_k;
			if (best_tables) {
				memcpy(best_t, t->port, tsize);
				memcpy(best_p, p->sl, psize);
			}
		} else if (!mode && (m > best + best / 2 || m == UINT64_MAX)) {
			break;
		}
	}
	if (!best_tables) {
		r = -ERANGE; /* best is a probe's pass past below: dropped */
		goto out;
	}
	memcpy(t->port, best_t, tsize);
	memcpy(p->sl, best_p, psize);
	if (!only)
		p->vls_used = 1;
	for (uint32_t s = 0; s < g->nsw; s++)
		if (g->ep_off[s] < g->ep_off[s + 1] &&
		    layer_base + u.layer_of_sw[s] + 1 > p->vls_used)
			p->vls_used = (uint8_t)(layer_base + u.layer_of_sw[s] + 1);
	log_info("dfsp: routed on the dependency graph in %u layers (%s seed)",
		 p->vls_used, best_mode ? "up*/down*" : "tree");
out:
	if (r == -EINVAL)
		snprintf(ctx->why, sizeof(ctx->why), "escape turns form a cycle");
	free_nue(&u);
	free(esc);
	free(x);
	free(best_t);
	free(best_p);
	free(win_t);
	free(win_p);
	return r;
}

/* Rip up and reroute: every CA LID's sink tree is taken off the loads
 * and grown again over the loads of all the others (the first pass saw
 * only the destinations before it, as DFSSSP's single pass does). */
static void reroute_round(struct nue *u, struct lft_set *t, struct path_sl *p)
{
	const struct route_graph *g = u->g;
	uint64_t stride = spread_stride(g->nsw);
	for (uint32_t dd = 0; dd < g->nsw; dd++) {
		uint32_t d = (uint32_t)(dd * stride % g->nsw);
		for (uint32_t e = g->ep_off[d]; e < g->ep_off[d + 1]; e++) {
			if (!g->ep[e].weighted)
				continue;
			for (uint32_t j = 0; j < g->ep[e].nlids; j++) {
				uint32_t lid = g->ep[e].lid + j;
				if (lid > t->max_lid)
					break;
				drop_tree(u, d, lid);
				next_epoch(u);
				u->salt = lid;
				grow(u, d, 0);
				add_load(u);
				keep_tree(u, lid);
				write_rows(u, lid, 0, t, p);
			}
		}
	}
}

/* One pass without the dependency check and its seeds: plain weighted
 * shortest paths (impasses cannot happen), then rounds of rerouting. */
int dfsp_weighted_paths(struct route_ctx *ctx, const struct route_graph *g,
			struct lft_set *t, uint64_t hop_scale, uint32_t rounds)
{
	struct nue u;
	struct path_sl p = { 0 };
	uint32_t *esc = malloc(((size_t)g->nsw + 1) * sizeof(uint32_t));
	uint8_t *x = malloc((size_t)g->nsw + 1);
	int r = alloc_nue(&u, g, 1);
	(void)ctx;
	if (!r && (!esc || !x))
		r = -ENOMEM;
	if (!r)
		r = path_sl_alloc(&p, g->fab);
	if (r)
		goto out;
	uint64_t cas = 0;
	for (uint32_t s = 0; s < g->nsw; s++)
		cas += g->cas[s];
	u.hop = u.nch ? cas * cas / u.nch * hop_scale : 1;
	if (!u.hop)
		u.hop = 1;
	u.free_paths = 1;
	u.give_up = UINT64_MAX;
	if (rounds && (r = keep_trees(&u, t)))
		goto out;
	uint64_t best = nue_pass(&u, 0, 0, t, &p, esc, x, &r);
	/* Rerouting lowers the sum of the loads each path sees, not
	 * always the highest: the round with the least loaded busiest
	 * channel stays. */
	size_t tsize = (size_t)t->num_switches * t->stride;
	uint8_t *best_t = rounds ? malloc(tsize + 1) : NULL;
	if (!r && rounds && !best_t)
		r = -ENOMEM;
	if (!r && rounds)
		memcpy(best_t, t->port, tsize);
	uint64_t sum = 0;
	for (uint32_t c = 0; c < u.nch; c++)
		sum += u.load[c];
	/* Rerouted paths weigh a channel by load^2 / (a quarter of the
	 * average load): the sum of linear loads a path sees trades one
	 * busy channel for two quiet ones, the square does not (measured,
	 * 2 rounds, 4 VLs: dragonfly 288 CAs 1.87 -> 1.75x the bound,
	 * random 128 CAs 1.52 -> 1.41, degraded fat-tree 32 CAs 1.26 ->
	 * 1.16). */
	u.sq = (u.nch ? sum / u.nch / 4 : 0) + 1;     /* no channels: one switch */
	reweigh_all(&u);
	for (uint32_t k = 0; !r && k < rounds; k++) {
		reroute_round(&u, t, &p);
		uint64_t m = 0;
		for (uint32_t c = 0; c < u.nch; c++)
			if (u.load[c] > m)
				m = u.load[c];
		if (m < best) {
			best = m;
			memcpy(best_t, t->port, tsize);
		}
	}
	if (!r && rounds)
		memcpy(t->port, best_t, tsize);
	free(best_t);
out:
	free_nue(&u);
	path_sl_free(&p);
	free(esc);
	free(x);
	return r;
}
