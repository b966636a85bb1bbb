/* Admitted down->up turns for up*\/down* routings: see rg_turns.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../core/grow.h"
#include "rg_turns.h"

int rg_turns_init(struct rg_turns *t, const struct route_graph *g,
		  const uint32_t *pos)
{
	memset(t, 0, sizeof(*t));
	t->g = g;
	t->pos = pos;
	t->nch = g->adj_off[g->nsw];
	size_t n = (size_t)t->nch + 1;
	t->tail = malloc(n * sizeof(uint32_t));
	t->first = malloc(n * sizeof(uint32_t));
	t->seen = calloc(n, sizeof(uint32_t));
	t->stack = malloc(n * sizeof(uint32_t));
	if (!t->tail || !t->first || !t->seen || !t->stack) {
		rg_turns_free(t);
		return -ENOMEM;
	}
	for (uint32_t s = 0; s < g->nsw; s++)
		for (uint32_t i = g->adj_off[s]; i < g->adj_off[s + 1]; i++)
			t->tail[i] = s;
	rg_turns_reset(t);
	return 0;
}

void rg_turns_free(struct rg_turns *t)
{
	free(t->tail);
	free(t->first);
	free(t->next);
	free(t->to);
	free(t->from);
	free(t->seen);
	free(t->stack);
	memset(t, 0, sizeof(*t));
}

void rg_turns_reset(struct rg_turns *t)
{
	for (uint32_t c = 0; c < t->nch; c++)
		t->first[c] = UINT32_MAX;
	t->nturns = 0;
}

/* a -> b with b leaving a's head: allowed in G0 (never a U-turn). */
static int in_g0(const struct rg_turns *t, uint32_t a, uint32_t b)
{
	uint32_t x = t->tail[a], y = t->tail[b], z = t->g->adj[b].peer;
	if (z == x)
		return 0;
	return t->pos[y] < t->pos[x] || t->pos[z] > t->pos[y];
}

static int admitted(const struct rg_turns *t, uint32_t a, uint32_t b)
{
	for (uint32_t k = t->first[a]; k != UINT32_MAX; k = t->next[k])
		if (t->to[k] == b)
			return 1;
	return 0;
}

/* Is channel goal reachable from channel start in G0 plus the turns? */
static int reaches(struct rg_turns *t, uint32_t start, uint32_t goal)
{
	const struct route_graph *g = t->g;
	uint32_t sp = 0;

	if (++t->epoch == 0) {          /* wrapped: clear the marks */
		memset(t->seen, 0, ((size_t)t->nch + 1) * sizeof(uint32_t));
		t->epoch = 1;
	}
	t->searches++;
	t->seen[start] = t->epoch;
	t->stack[sp++] = start;
	while (sp) {
		uint32_t c = t->stack[--sp];
		if (c == goal)
			return 1;
		uint32_t y = g->adj[c].peer;
		for (uint32_t j = g->adj_off[y]; j < g->adj_off[y + 1]; j++)
			if (t->seen[j] != t->epoch && in_g0(t, c, j)) {
				t->seen[j] = t->epoch;
				t->stack[sp++] = j;
			}
		for (uint32_t k = t->first[c]; k != UINT32_MAX; k = t->next[k])
			if (t->seen[t->to[k]] != t->epoch) {
				t->seen[t->to[k]] = t->epoch;
				t->stack[sp++] = t->to[k];
			}
	}
	return 0;
}

int rg_turn_known(const struct rg_turns *t, uint32_t a, uint32_t b)
{
	return t->g->adj[b].peer != t->tail[a] &&
	       (in_g0(t, a, b) || admitted(t, a, b));
}

int rg_turn_ok(struct rg_turns *t, uint32_t a, uint32_t b)
{
	if (rg_turn_known(t, a, b))
		return 1;
	return t->g->adj[b].peer != t->tail[a] && !reaches(t, b, a);
}

int rg_turn_take(struct rg_turns *t, uint32_t a, uint32_t b)
{
	if (in_g0(t, a, b) || admitted(t, a, b))
		return 0;
	uint32_t c;
	if (grow_array_shared((void **)&t->next, t->cap, &c, t->nturns + 1,
			      sizeof(*t->next), 256) ||
	    grow_array_shared((void **)&t->to, t->cap, &c, t->nturns + 1,
			      sizeof(*t->to), 256) ||
	    grow_array_shared((void **)&t->from, t->cap, &c, t->nturns + 1,
			      sizeof(*t->from), 256))
		return -ENOMEM;
	t->cap = c;
	t->to[t->nturns] = b;
	t->from[t->nturns] = a;
	t->next[t->nturns] = t->first[a];
	t->first[a] = t->nturns++;
	return 0;
}

void rg_turns_rollback(struct rg_turns *t, uint32_t mark)
{
	/* Each list is newest first: undo newest first. */
	while (t->nturns > mark) {
		uint32_t k = --t->nturns;
		t->first[t->from[k]] = t->next[k];
	}
}
