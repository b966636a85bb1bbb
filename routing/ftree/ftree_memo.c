/* ftree: the memo of a route (engine.h, struct route_memo): the down->up
 * turns its tables take, as the checked turn set (ftree_turns.c) holds
 * them at the end of the route or repair that built the tables. A later
 * repair of those tables takes its previous turns from here instead of
 * scanning the tables for them (ftree_repair_turns.c; 0.06-0.12 s of
 * 0.2-0.3 s at 65,536 CAs).
 *
 * The set may hold more turns than the tables take (a repair that moved
 * an entry off a detour keeps its turn): checking new turns against a
 * superset can only refuse more, never accept a cycle. Turns are named by
 * switch ordinal and port numbers of the fabric the tables were built on;
 * ft_memo_turn maps one onto a fabric of the repair (switches by GUID,
 * through the caller's prev -> new ordinal map) and drops it where a
 * link is gone. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ftree.h"

static int memo_alloc(struct route_memo *m, uint32_t cap)
{
	m->sw = malloc((cap ? cap : 1) * sizeof(uint32_t));
	m->in = malloc(cap ? cap : 1);
	m->out = malloc(cap ? cap : 1);
	if (!m->sw || !m->in || !m->out) {
		route_memo_free(m);
		return -ENOMEM;
	}
	return 0;
}

int ft_memo_put(const struct ft_turns *tu, struct route_memo *m)
{
	const struct ftree *t = tu->t;
	const struct fabric *f = t->fab;
	route_memo_free(m);
	if (memo_alloc(m, (uint32_t)tu->taken))
		return -ENOMEM;
	for (uint32_t s = 0; s < t->nsw; s++) {
		uint64_t np = (uint64_t)f->nodes[f->switches[s]].num_ports + 1;
		uint64_t b = tu->bit_off[s], end = tu->bit_off[s + 1];
		while (b < end) {
			uint64_t w = tu->bits[b / 64] >> (b % 64);
			if (!w) {               /* the rest of this word is clear */
				b = (b / 64 + 1) * 64;
				continue;
			}
			b += (uint64_t)__builtin_ctzll(w);
			if (b >= end)
				break;
			if (m->n == tu->taken)  /* cannot happen: taken counts them */
				break;
			uint64_t k = b - tu->bit_off[s];
			m->sw[m->n] = s;
			m->in[m->n] = (uint8_t)(k / np);
			m->out[m->n] = (uint8_t)(k % np);
			m->n++;
			b++;
		}
	}
	snprintf(m->engine, sizeof(m->engine), "ftree");
	m->num_switches = t->nsw;
	return 0;
}

int ft_memo_turn(const struct ftree *t, const struct route_memo *m,
		 const uint32_t *new_of_prev, uint32_t i, uint32_t *y)
{
	uint32_t s = new_of_prev[m->sw[i]];
	if (s == FAB_NONE)
		return 0;
	uint32_t u = ft_far_sw(t, s, m->in[i]), z = ft_far_sw(t, s, m->out[i]);
	if (u == FAB_NONE || z == FAB_NONE || t->level[u] <= t->level[s] ||
	    t->level[z] <= t->level[s])
		return 0;
	*y = s;
	return 1;
}

int ft_memo_carry(const struct ftree *t, const struct route_memo *prev,
		  const uint32_t *new_of_prev, struct route_memo *m)
{
	route_memo_free(m);
	if (memo_alloc(m, prev->n))
		return -ENOMEM;
	for (uint32_t i = 0; i < prev->n; i++) {
		uint32_t y;
		if (!ft_memo_turn(t, prev, new_of_prev, i, &y))
			continue;
		m->sw[m->n] = y;
		m->in[m->n] = prev->in[i];
		m->out[m->n] = prev->out[i];
		m->n++;
	}
	snprintf(m->engine, sizeof(m->engine), "ftree");
	m->num_switches = t->nsw;
	return 0;
}

int ft_memo_usable(const struct route_memo *m, const struct fabric *prev_fab)
{
	return m && prev_fab && !strcmp(m->engine, "ftree") &&
	       m->num_switches == prev_fab->num_switches;
}
