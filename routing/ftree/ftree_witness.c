/* ftree: short witness cycles for refused turns, found from an index of
 * the turns taken, before any search.
 *
 * Why: on degraded trees most turns the detours ask about close a cycle
 * (61,639 of 92,686 on the 5% degraded 65k tree), and proving that with
 * the checker's two-way search (cdg/cdg_incr.h) expands thousands of
 * channels each, because every switch fans out to all of its links. But the cycles found
 * are nearly always the shortest kind: the new turn at y (down from x, up
 * to z) is closed by one taken turn at another switch v of y's level,
 * down from a and up to b, with
 *
 *   y -> z -> P -> a -> v -> b -> P' -> x -> y
 *
 * (P, P' one level above z and x; a 3-level tree: leaf, middle, top,
 * middle, leaf, middle, top, middle, leaf). Every step is an up*-down*
 * dependency of the checked graph except the turn at v, so the path
 * exists exactly when a shares an up-neighbour with z (a != z) and b one
 * with x (b != x); or a == z (z -> v directly, v != y), or b == x (v -> x
 * directly, v != y): a U-turn is the only dependency the graph leaves out.
 * Switches that share an up-neighbour lie in one connected piece of the
 * graph between their level and the next (a pod's leaves, a column's
 * middles, a chassis), so the taken turns are listed by the pieces of a
 * and b, and a query reads only the list for (piece of z, piece of x).
 *
 * Finding such a path proves the turn closes a cycle, the verdict the
 * search would give; when none is found the search runs as before. So the
 * verdicts, and the tables, do not change. The index itself (turns listed
 * by key) is the checker's, cdg/cdg_witness.h; the key and the cycle test
 * are the tree's, here. */
#include <errno.h>
#include <stdlib.h>

#include "ftree.h"


static uint32_t find(uint32_t *par, uint32_t i)
{
	while (par[i] != i) {
		par[i] = par[par[i]];
		i = par[i];
	}
	return i;
}

int ft_up_pieces(const struct ftree *t, uint32_t *piece)
{
	uint32_t n = t->nsw;
	/* Union-find over 2n nodes: switch s as a member of its level (s)
	 * and as the up-neighbour of the level below (n + s). */
	uint32_t *par = malloc(2 * (size_t)n * sizeof(uint32_t));

	if (!par)
		return -ENOMEM;
	for (uint32_t i = 0; i < 2 * n; i++)
		par[i] = i;
	for (uint32_t s = 0; s < n; s++)
		for (uint32_t k = t->up_off[s]; k < t->up_off[s + 1]; k++) {
			uint32_t a = find(par, s), b = find(par, n + t->up[k].peer);
			if (a != b)
				par[a] = b;
		}
	for (uint32_t s = 0; s < n; s++)
		piece[s] = find(par, s);
	free(par);
	return 0;
}

int ft_witness_init(struct ft_turns *tu)
{
	const struct ftree *t = tu->t;
	uint32_t n = t->nsw;

	tu->piece = malloc((n ? n : 1) * sizeof(uint32_t));
	tu->mark_z = calloc(n ? n : 1, sizeof(uint32_t));
	tu->mark_x = calloc(n ? n : 1, sizeof(uint32_t));
	tu->wstamp = 0;
	cdg_witness_init(&tu->wit);
	if (!tu->piece || !tu->mark_z || !tu->mark_x)
		return -ENOMEM;
	return ft_up_pieces(t, tu->piece);
}

void ft_witness_free(struct ft_turns *tu)
{
	free(tu->piece);
	free(tu->mark_z);
	free(tu->mark_x);
	cdg_witness_free(&tu->wit);
	tu->piece = tu->mark_z = tu->mark_x = NULL;
}

static uint64_t pair_key(const struct ft_turns *tu, uint32_t a, uint32_t b)
{
	return (uint64_t)tu->piece[a] << 32 | tu->piece[b];
}

/* Record the taken turn at v, down from a, up to b (the checker's
 * witness index; without memory it only misses it: queries then fall
 * back to the search). */
void ft_witness_add(struct ft_turns *tu, uint32_t v, uint32_t a, uint32_t b)
{
	cdg_witness_add(&tu->wit, pair_key(tu, a, b), v, a, b);
}

static void mark_ups(const struct ftree *t, uint32_t *mark, uint32_t s,
		     uint32_t stamp)
{
	for (uint32_t k = t->up_off[s]; k < t->up_off[s + 1]; k++)
		mark[t->up[k].peer] = stamp;
}

static int shares_up(const struct ftree *t, const uint32_t *mark,
		     uint32_t s, uint32_t stamp)
{
	for (uint32_t k = t->up_off[s]; k < t->up_off[s + 1]; k++)
		if (mark[t->up[k].peer] == stamp)
			return 1;
	return 0;
}

int ft_witness_find(struct ft_turns *tu, uint32_t y, uint32_t x, uint32_t z)
{
	const struct ftree *t = tu->t;
	if (!t->tune->witness)
		return 0;
	uint32_t j = cdg_witness_first(&tu->wit, pair_key(tu, z, x));
	if (j == CDG_WIT_END)
		return 0;
	uint32_t st = ++tu->wstamp;
	mark_ups(t, tu->mark_z, z, st);
	mark_ups(t, tu->mark_x, x, st);
	for (; j != CDG_WIT_END; j = tu->wit.rec[j].next) {
		const struct cdg_wit *w = &tu->wit.rec[j];
		int from_z = w->a == z ? w->v != y : shares_up(t, tu->mark_z, w->a, st);
		if (from_z && (w->b == x ? w->v != y :
			       shares_up(t, tu->mark_x, w->b, st))) {
			tu->wit.found++;
			return 1;
		}
	}
	return 0;
}
