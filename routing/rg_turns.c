/* Admitted down->up turns for up*\/down* routings: see rg_turns.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rg_turns.h"

/* a -> b with b leaving a's head: allowed in G0 (never a U-turn). */
static int in_g0(const struct rg_turns *t, uint32_t a, uint32_t b)
{
	uint32_t x = t->tail[a], y = t->tail[b], z = t->g->adj[b].peer;
	if (z == x)
		return 0;
	return t->pos[y] < t->pos[x] || t->pos[z] > t->pos[y];
}

/* G0's dependencies out of channel e, for the checker's search. */
static void g0_succ(struct cdg_incr *c, void *ctx, uint32_t e, uint32_t *top)
{
	const struct rg_turns *t = ctx;
	const struct route_graph *g = t->g;
	uint32_t y = g->adj[e].peer;
	for (uint32_t j = g->adj_off[y]; j < g->adj_off[y + 1]; j++)
		if (in_g0(t, e, j))
			cdg_push_fwd(c, top, j);
}

/* ... and into it: from the channels into its tail. */
static void g0_pred(struct cdg_incr *c, void *ctx, uint32_t e, uint32_t *top)
{
	const struct rg_turns *t = ctx;
	const struct route_graph *g = t->g;
	uint32_t y = t->tail[e];
	for (uint32_t i = g->adj_off[y]; i < g->adj_off[y + 1]; i++) {
		uint32_t a = c->rev[i];
		if (a != CDG_NONE && in_g0(t, a, e))
			cdg_push_bwd(c, top, a);
	}
}

static const struct cdg_ops g0_ops = { g0_succ, g0_pred };

int rg_turns_init(struct rg_turns *t, const struct route_graph *g,
		  const uint32_t *pos)
{
	memset(t, 0, sizeof(*t));
	t->g = g;
	t->pos = pos;
	t->nch = g->adj_off[g->nsw];
	t->key = malloc(((size_t)t->nch + 1) * sizeof(uint64_t));
	if (!t->key || cdg_init_graph(&t->cdg, g, 1, &g0_ops, t)) {
		free(t->key);
		t->key = NULL;
		return -ENOMEM;
	}
	t->cdg.logging = 1;
	t->tail = t->cdg.tail;
	rg_turns_reset(t);
	return 0;
}

void rg_turns_free(struct rg_turns *t)
{
	cdg_free(&t->cdg);
	free(t->key);
	memset(t, 0, sizeof(*t));
}

static int by_key(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* G0's order: up channels by their tail from the bottom (an up channel
 * leads on from a lower tail), then down channels by their tail from the
 * top; a link back to its own switch counts as down, ahead of its
 * switch's other down channels (it may precede them, never follow). */
void rg_turns_reset(struct rg_turns *t)
{
	const struct route_graph *g = t->g;
	uint32_t n = t->nch;
	cdg_reset(&t->cdg);
	for (uint32_t a = 0; a < n; a++) {
		uint64_t px = t->pos[t->tail[a]], py = t->pos[g->adj[a].peer];
		uint64_t rank = py < px ? g->nsw - px :
				g->nsw + 1 + 2 * px + (py != px);
		t->key[a] = rank << 32 | a;
	}
	qsort(t->key, n, sizeof(uint64_t), by_key);
	uint32_t *perm = t->cdg.tmp;    /* free until the first search */
	for (uint32_t a = 0; a < n; a++)
		perm[a] = (uint32_t)t->key[a];
	cdg_set_order(&t->cdg, 0, perm, n);
	t->nturns = 0;
}

int rg_turn_known(const struct rg_turns *t, uint32_t a, uint32_t b)
{
	return t->g->adj[b].peer != t->tail[a] &&
	       (in_g0(t, a, b) || cdg_has(&t->cdg, 0, a, b));
}

int rg_turn_ok(struct rg_turns *t, uint32_t a, uint32_t b)
{
	if (rg_turn_known(t, a, b))
		return 1;
	return t->g->adj[b].peer != t->tail[a] && !cdg_closes(&t->cdg, 0, a, b);
}

int rg_turn_take(struct rg_turns *t, uint32_t a, uint32_t b)
{
	if (in_g0(t, a, b) || cdg_has(&t->cdg, 0, a, b))
		return 0;
	int r = cdg_add(&t->cdg, 0, a, b);
	t->nturns = cdg_mark(&t->cdg);
	return r == -ENOMEM ? -ENOMEM : 0;
}

void rg_turns_rollback(struct rg_turns *t, uint32_t mark)
{
	cdg_rollback(&t->cdg, mark);
	t->nturns = cdg_mark(&t->cdg);
}
