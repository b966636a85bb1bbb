/* ftree: the down->up turns taken by detour routes, kept so that the
 * channel dependency graph (CDG, Dally and Seitz 1987) stays acyclic on
 * one VL.
 *
 * Up-then-down routes alone cannot close a cycle: every dependency goes
 * up->up, up->down or down->down, which orders channels by (up before
 * down, then level). Only a down->up turn can close one. So the graph we
 * check is a superset of the real CDG: every up->up, up->down (no U-turn)
 * and down->down dependency the tree allows, used or not, plus the
 * down->up turns taken so far. A new turn (d -> u) at switch y is allowed
 * when d is not reachable from u in that graph; since the graph only
 * grows, the real CDG stays acyclic whatever routes come later, as long
 * as their turns pass the same check. Repeated turns are a bit test; a
 * new one is checked by the incremental checker (cdg/cdg_incr.h): against
 * a topological order of the graph, and only searched for when it goes
 * against that order, which keeps the verdicts exact at a fraction of a
 * whole-graph search; before the search, the short cycle most refused
 * turns close is looked up in an index of the turns taken
 * (ftree_witness.c). The checker's graph is implicit: the successors and
 * predecessors below enumerate the tree's dependencies and the taken
 * turns. Its order starts as the up*-down* dependencies' own: up
 * channels by level, then down channels from the top level down.
 *
 * Detour searches first try paths whose turns are all taken already, and
 * only then new turns: reusing turns keeps the graph small, which leaves
 * room for the turns later destinations need (in the unit tests this is
 * what lets every degraded tree come out acyclic). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ftree.h"

static const struct cdg_ops ft_ops;

/* The checker's starting order (see the top). */
static void initial_order(struct ft_turns *tu)
{
	const struct ftree *t = tu->t;
	uint32_t n = 0, *chan = tu->cdg.tmp;    /* free until a search */
	for (uint32_t i = 0; i < t->nsw; i++) {
		uint32_t s = t->by_level[i];
		for (uint32_t k = t->up_off[s]; k < t->up_off[s + 1]; k++)
			chan[n++] = t->up[k].egress;
	}
	for (uint32_t i = t->nsw; i-- > 0;) {
		uint32_t s = t->by_level[i];
		for (uint32_t k = t->dn_off[s]; k < t->dn_off[s + 1]; k++)
			chan[n++] = t->dn[k].egress;
	}
	cdg_set_order(&tu->cdg, 0, chan, n);
}

int ft_turns_init(struct ft_turns *tu, const struct ftree *t)
{
	const struct fabric *f = t->fab;
	memset(tu, 0, sizeof(*tu));
	tu->t = t;
	size_t np = (size_t)f->num_ports + 1, ns = t->nsw ? t->nsw : 1;
	tu->bit_off = malloc((t->nsw + 1) * sizeof(uint64_t));
	tu->out_of = calloc(np, 1);
	tu->into_of = calloc(np, 1);
	tu->port_flag = calloc(np, 1);
	tu->up_seen = calloc(ns, sizeof(uint32_t));
	tu->up_all = calloc(ns, sizeof(uint32_t));
	tu->up_from = calloc(ns, sizeof(uint32_t));
	tu->dn_seen = calloc(ns, sizeof(uint32_t));
	tu->bk_up_seen = calloc(ns, sizeof(uint32_t));
	tu->bk_dn_seen = calloc(ns, sizeof(uint32_t));
	tu->bk_dn_all = calloc(ns, sizeof(uint32_t));
	tu->bk_dn_from = calloc(ns, sizeof(uint32_t));
	if (cdg_init(&tu->cdg, (uint32_t)np, 1, &ft_ops, tu) ||
	    ft_witness_init(tu) || !tu->bit_off || !tu->out_of ||
	    !tu->into_of || !tu->port_flag || !tu->up_seen || !tu->up_all ||
	    !tu->up_from || !tu->dn_seen || !tu->bk_up_seen ||
	    !tu->bk_dn_seen || !tu->bk_dn_all || !tu->bk_dn_from)
		goto nomem;
	tu->cdg.gap_bits = t->tune->order_gap_bits;
	initial_order(tu);
	for (uint32_t p = 0; p < f->num_ports; p++)
		tu->port_flag[p] = t->port_up[p] ? FT_PORT_UP : 0;
	uint64_t n = 0;
	for (uint32_t s = 0; s < t->nsw; s++) {
		uint64_t sp = (uint64_t)f->nodes[f->switches[s]].num_ports + 1;
		tu->bit_off[s] = n;
		n += sp * sp;
	}
	tu->bit_off[t->nsw] = n;
	tu->bits = calloc(n / 64 + 1, sizeof(uint64_t));
	tu->refused_bits = calloc(n / 64 + 1, sizeof(uint64_t));
	if (!tu->bits || !tu->refused_bits)
		goto nomem;
	return 0;
nomem:
	ft_turns_free(tu);
	return -ENOMEM;
}

void ft_turns_free(struct ft_turns *tu)
{
	free(tu->bits);
	free(tu->refused_bits);
	free(tu->bit_off);
	free(tu->out_of);
	free(tu->into_of);
	free(tu->port_flag);
	free(tu->up_seen);
	free(tu->up_all);
	free(tu->up_from);
	free(tu->dn_seen);
	free(tu->bk_up_seen);
	free(tu->bk_dn_seen);
	free(tu->bk_dn_all);
	free(tu->bk_dn_from);
	cdg_free(&tu->cdg);
	ft_witness_free(tu);
	memset(tu, 0, sizeof(*tu));
}

static uint64_t turn_bit(const struct ft_turns *tu, uint32_t y, uint8_t in,
			 uint8_t out)
{
	uint64_t np = (uint64_t)tu->t->nports[y] + 1;
	return tu->bit_off[y] + in * np + out;
}

static int is_taken(const struct ft_turns *tu, uint64_t b)
{
	return tu->bits[b / 64] >> (b % 64) & 1;
}

int ft_turn_is_taken(const struct ft_turns *tu, uint32_t y, uint8_t in,
		     uint8_t out)
{
	return is_taken(tu, turn_bit(tu, y, in, out));
}

static int was_refused(const struct ft_turns *tu, uint64_t b)
{
	return tu->refused_bits[b / 64] >> (b % 64) & 1;
}

/* Push the channels that may follow channel e (egress fabric port index)
 * into switch b. What follows an up channel depends only on b and the
 * switch it came from (no U-turn), what follows a down channel only on b,
 * apart from taken turns; so each switch's links are pushed once per
 * kind of arrival (twice for up arrivals, to undo the U-turn exclusion
 * when a second neighbour arrives), not once per incoming channel. */
static void successors(struct cdg_incr *c, void *ctx, uint32_t e,
		       uint32_t *top)
{
	struct ft_turns *tu = ctx;
	const struct ftree *t = tu->t;
	const struct fabric *f = t->fab;
	uint32_t a = f->nodes[f->ports[e].node].sw_index, b = t->peer_sw[e];
	uint8_t in = f->ports[f->ports[e].peer].num;
	uint32_t ep = c->epoch;
	if (t->level[b] > t->level[a]) {
		if (tu->up_seen[b] != ep) {
			tu->up_seen[b] = ep;
			tu->up_from[b] = a;
			for (uint32_t k = t->up_off[b]; k < t->up_off[b + 1]; k++)
				cdg_push_fwd(c, top, t->up[k].egress);
		} else if (tu->up_all[b] != ep && tu->up_from[b] != a) {
			tu->up_all[b] = ep;
			a = FAB_NONE;   /* now the links back down are allowed too */
		} else {
			return;
		}
		for (uint32_t k = t->dn_off[b]; k < t->dn_off[b + 1]; k++)
			if (t->dn[k].peer != a)
				cdg_push_fwd(c, top, t->dn[k].egress);
		return;
	}
	if (tu->dn_seen[b] != ep) {
		tu->dn_seen[b] = ep;
		for (uint32_t k = t->dn_off[b]; k < t->dn_off[b + 1]; k++)
			cdg_push_fwd(c, top, t->dn[k].egress);
	}
	if (!tu->out_of[e])
		return;         /* no turn taken from this channel */
	for (uint32_t k = t->up_off[b]; k < t->up_off[b + 1]; k++)
		if (is_taken(tu, turn_bit(tu, b, in, t->up[k].port)))
			cdg_push_fwd(c, top, t->up[k].egress);
}

/* Push the channels that may precede channel e (a -> b): the mirror of
 * successors(). Up arrivals into a from below precede every channel out
 * of a except the U-turn; down arrivals precede a's down channels, and
 * its up channels only through taken turns. As forward, each switch's
 * links are pushed once per kind of departure. */
static void predecessors(struct cdg_incr *c, void *ctx, uint32_t e,
			 uint32_t *top)
{
	struct ft_turns *tu = ctx;
	const struct ftree *t = tu->t;
	const struct fabric *f = t->fab;
	uint32_t a = f->nodes[f->ports[e].node].sw_index, b = t->peer_sw[e];
	uint32_t ep = c->epoch, skip = FAB_NONE;
	if (t->level[b] < t->level[a]) {
		if (tu->bk_dn_seen[a] != ep) {
			tu->bk_dn_seen[a] = ep;
			tu->bk_dn_from[a] = b;
			skip = b;
			for (uint32_t k = t->up_off[a]; k < t->up_off[a + 1]; k++)
				cdg_push_bwd(c, top, t->up[k].rev_egress);
		} else if (tu->bk_dn_all[a] != ep && tu->bk_dn_from[a] != b) {
			tu->bk_dn_all[a] = ep;  /* now the arrivals from b too */
		} else {
			return;
		}
		for (uint32_t k = t->dn_off[a]; k < t->dn_off[a + 1]; k++)
			if (t->dn[k].peer != skip)
				cdg_push_bwd(c, top, t->dn[k].rev_egress);
		return;
	}
	if (tu->bk_up_seen[a] != ep) {
		tu->bk_up_seen[a] = ep;
		for (uint32_t k = t->dn_off[a]; k < t->dn_off[a + 1]; k++)
			cdg_push_bwd(c, top, t->dn[k].rev_egress);
	}
	if (!tu->into_of[e])
		return;         /* no turn taken onto this channel */
	uint8_t out = f->ports[e].num;
	for (uint32_t k = t->up_off[a]; k < t->up_off[a + 1]; k++)
		if (ft_turn_is_taken(tu, a, t->up[k].port, out))
			cdg_push_bwd(c, top, t->up[k].rev_egress);
}

static const struct cdg_ops ft_ops = { successors, predecessors };

/* Checked since the graph last grew: a path's first new turn was checked
 * by the search that found it; taking it needs no second search. */
static int known_ok(const struct ft_turns *tu, uint64_t b)
{
	for (uint32_t i = 0; i < tu->nok; i++)
		if (tu->ok[i] == b)
			return 1;
	return 0;
}

/* take: 1 record a new turn, 0 only check it, -1 refuse new turns. */
static int turn_check(struct ft_turns *tu, uint32_t y, uint8_t in, uint8_t out,
		      int take)
{
	const struct ftree *t = tu->t;
	/* Entering y from above and leaving upward? Both flags share a
	 * cache line mostly: one miss, where the far switches' levels and
	 * the turn bits were three. */
	uint32_t np = t->nports[y];
	if (in > np || out > np)
		return 1;
	const uint8_t *pf = tu->port_flag + t->fport[y];
	uint8_t fin = pf[in];
	if (!(fin & FT_PORT_UP) || !(pf[out] & FT_PORT_UP))
		return 1;
	if (!(fin & FT_PORT_TURN_IN) && take < 0)
		return 0;       /* no turn taken entering y there */
	uint64_t b = turn_bit(tu, y, in, out);
	if (is_taken(tu, b))
		return 1;
	if (take < 0 || was_refused(tu, b))
		return 0;       /* only turns already taken; or refused for good */
	uint32_t d = t->fab->ports[t->fport[y] + in].peer;     /* x -> y */
	uint32_t u = t->fport[y] + out;                         /* y -> z */
	/* With d before u in the order, u cannot reach d: no search. Taking a
	 * turn against the order needs the search again, to reorder. */
	int ordered = cdg_before(&tu->cdg, 0, d, u);
	if (!ordered && (take > 0 || !known_ok(tu, b))) {
		/* A short cycle through one taken turn, else the search. */
		if (ft_witness_find(tu, y, ft_far_sw(t, y, in),
				    ft_far_sw(t, y, out)) ||
		    cdg_reaches(&tu->cdg, 0, u, d)) {
			/* The graph only grows: refused now, refused forever. */
			tu->refused_bits[b / 64] |= 1ULL << (b % 64);
			tu->refused++;
			return 0;
		}
		if (tu->nok < FT_TURN_MEMO)
			tu->ok[tu->nok++] = b;
	}
	if (take) {
		if (!ordered)
			cdg_reorder(&tu->cdg);
		tu->bits[b / 64] |= 1ULL << (b % 64);
		ft_witness_add(tu, y, ft_far_sw(t, y, in), ft_far_sw(t, y, out));
		tu->out_of[d] = 1;
		tu->port_flag[t->fport[y] + in] |= FT_PORT_TURN_IN;
		tu->into_of[u] = 1;
		tu->taken++;
		tu->nok = 0;    /* the graph grew: forget what passed */
	}
	return 1;
}

int ft_turn_ok(struct ft_turns *tu, uint32_t y, uint8_t in, uint8_t out,
	       int allow_new)
{
	return turn_check(tu, y, in, out, allow_new ? 0 : -1);
}

int ft_turn_take(struct ft_turns *tu, uint32_t y, uint8_t in, uint8_t out)
{
	return turn_check(tu, y, in, out, 1);
}
