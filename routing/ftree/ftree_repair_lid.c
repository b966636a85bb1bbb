/* ftree repair, part 3: one LID, given its entries on lost ports. R, the
 * switches to re-decide: for compute-node LIDs everything whose path ran
 * through a broken entry (their flows are weighed together); for switch
 * LIDs the broken ones first, growing only where a path changes shape or
 * a turn is refused (ftree_repair.c explains why). */
#include <stdint.h>
#include <string.h>

#include "../../core/log.h"
#include "ftree_repair.h"

/* The shape of s's path in the previous tables, on the previous fabric
 * (through the link now lost): what the switches leading into s relied on. */
static int prev_shape(const struct ft_repair *rp, uint32_t s, uint32_t tg,
		      uint32_t lid)
{
	const struct fabric *pf = rp->pf;
	uint32_t x = rp->prev_sw[s], end = rp->prev_sw[tg];
	int up = 0, down = 0, turned = 0;
	for (unsigned hops = 0; hops < 4 * FT_MAX_LEVELS; hops++) {
		if (x == end)
			return turned ? W_OTHER : up ? W_UPDOWN : W_DOWN;
		uint8_t p = lft_row(rp->prev, x)[lid];
		const struct fab_node *nd = &pf->nodes[pf->switches[x]];
		if (!p || p > nd->num_ports)
			return W_BAD;
		uint32_t q = pf->ports[nd->first_port + p].peer;
		if (q == FAB_NONE || !fab_is_switch(pf, pf->ports[q].node))
			return W_BAD;
		uint32_t o = pf->nodes[pf->ports[q].node].sw_index;
		if (rp->prev_level[o] > rp->prev_level[x]) {
			turned |= down;
			up = 1;
		} else {
			down = 1;
		}
		x = o;
	}
	return W_BAD;
}

/* The shape of u's path when it enters y (going up, or down) and y's path
 * has shape `y_shape`. */
static int shape_via(int down_into, int y_shape)
{
	if (y_shape == W_BAD)
		return W_BAD;
	if (!down_into)
		return y_shape == W_OTHER ? W_OTHER : W_UPDOWN;
	return y_shape == W_DOWN ? W_DOWN : W_OTHER;
}

static int is_good(int shape)
{
	return shape == W_DOWN || shape == W_UPDOWN;
}

static int need_turns(struct ft_repair *rp)
{
	char why[160];
	int r = rp->have_turns ? 0 : ft_repair_turns(rp, why, sizeof(why));
	if (r > 0)
		log_info("ftree: repair: %s", why);
	return r;
}

/* One switch added to R on its own (lazy mode): the same steps. */
static int decide_one(struct ft_repair *rp, uint32_t x, uint32_t tg,
		      uint32_t lid)
{
	rp->wstamp++;
	rp_decide_down(rp, x, tg, lid);
	if (rp->state[x] == RS_OPEN) {
		rp->wstamp++;
		rp_decide_up(rp, x, tg, lid, 0);
	}
	if (rp->state[x] == RS_OPEN) {
		int r = need_turns(rp);
		if (r)
			return r < 0 ? r : -1;
		rp->wstamp++;
		if (rp_decide_detour(rp, x, tg, lid))
			return -1;
	}
	rp->wstamp++;
	return 0;
}

/* Lazy mode, for LIDs that carry no compute-node flow (switch LIDs): R
 * starts as the broken entries only; a switch leading into R joins it only
 * when its path stops being up*-then-down* (it was) or the turn where it
 * enters R is not allowed. Paths that keep their shape keep their entries
 * and so do all switches behind them, without being visited: a detour of a
 * middle switch that crossed the lost link has 95 switches behind it on
 * the 65,536-CA tree, of which none changes. */
static int extend_lazily(struct ft_repair *rp, uint32_t tg, uint32_t lid)
{
	const struct ftree *t = rp->t;
	for (uint32_t i = 0; i < rp->nr; i++) {
		uint32_t y = rp->rl[i];
		uint8_t out = rp_entry(rp, y, lid);
		/* Same entry, same shape: what leads into y is as before. */
		if (out == rp->old[y] && rp_shape_of(rp, y) == rp->old_ty[y])
			continue;
		uint32_t z = ft_far_sw(t, y, out);
		int y_up = z != FAB_NONE && t->level[z] > t->level[y];
		for (int pass = 0; pass < 2; pass++) {
			const struct ft_link *L = pass ? t->dn : t->up;
			const uint32_t *off = pass ? t->dn_off : t->up_off;
			for (uint32_t k = off[y]; k < off[y + 1]; k++) {
				const struct ft_link *l = &L[k];
				uint32_t u = l->peer;
				if (rp_in_r(rp, u) || rp_entry(rp, u, lid) != l->rport)
					continue;
				int down_into = !pass;  /* u above y sends down */
				int was = shape_via(down_into, rp->old_ty[y]);
				int now = shape_via(down_into, rp_shape_of(rp, y));
				int ok = now != W_BAD && (!is_good(was) || is_good(now));
				if (ok && down_into && y_up) {
					int r = need_turns(rp);
					if (r)
						return r < 0 ? r : -1;
					ok = ft_turn_ok(&rp->tu, y, l->port, out, 0) ||
					     ft_turn_take(&rp->tu, y, l->port, out);
				}
				if (ok)
					continue;
				rp_add_to_r(rp, u, lid);
				rp->old_ty[u] = (uint8_t)was;
				/* paths through u are open again: forget them */
				rp->wround = ++rp->wstamp;
				int r = decide_one(rp, u, tg, lid);
				if (r)
					return r;
			}
		}
	}
	return 0;
}

/* Steps a-c over R as it stands. 0, or -1 with switches left open. */
static int decide_set(struct ft_repair *rp, const struct ft_dest *d,
		      uint32_t lid, uint32_t *undecided, int lazy)
{
	const struct ftree *t = rp->t;
	uint32_t tg = d->sw;
	/* Lazy mode decides detours in the order switches joined R: the
	 * broken ones first, so that a switch behind one keeps its entry when
	 * the broken one's new path suits it (a top that lost its link to a
	 * pod takes one middle below it as its detour; the other 62 middles
	 * that went up to it keep their entries). */
	uint32_t n = rp->nr;
	if (lazy)
		memcpy(undecided, rp->rl, n * sizeof(uint32_t));
	rp_sort_r(rp);
	/* Flow each switch of R carried (old entries), for the costs. */
	if (d->weighted)
		for (uint32_t i = 0; i < rp->nr; i++) {
			uint32_t x = rp->rl[i];
			uint32_t o = ft_far_sw(t, x, rp->old[x]);
			if (o != FAB_NONE && rp_in_r(rp, o) && t->level[o] > t->level[x])
				rp->inflow[o] += rp->inflow[x] + t->weight[x];
		}
	for (uint32_t i = 0; i < rp->nr; i++) {
		rp->wstamp += lazy;
		rp_decide_down(rp, rp->rl[i], tg, lid);
	}
	/* ancestors first in the flow accounting: the flow reaches them last */
	for (uint32_t i = rp->nr; d->weighted && i-- > 0;)
		if (rp->state[rp->rl[i]] == RS_DOWN)
			rp_account(rp, rp->rl[i], tg, lid,
				t->weight[rp->rl[i]] + rp->inflow[rp->rl[i]]);
	for (uint32_t i = rp->nr; i-- > 0;) {
		uint32_t x = rp->rl[i];
		if (rp->state[x] != RS_OPEN)
			continue;
		rp->wstamp += lazy;
		uint64_t f = d->weighted ? t->weight[x] + rp->inflow[x] : 0;
		rp_decide_up(rp, x, tg, lid, f);
		if (d->weighted && rp->state[x] == RS_UP)
			rp_account(rp, x, tg, lid, f);
	}
	if (!lazy)
		n = rp_detour_order(rp, undecided);
	if (n) {
		int r = need_turns(rp);
		if (r)
			return r < 0 ? r : -1;
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t x = undecided[i];
		if (rp->state[x] != RS_OPEN)
			continue;
		rp->wstamp += lazy;
		if (rp_decide_detour(rp, x, tg, lid)) {
			if (!lazy)
				log_info("ftree: repair: switch \"%.24s\" finds no "
					 "detour to LID %u that keeps the CDG acyclic",
					 t->fab->nodes[t->fab->switches[x]].desc, lid);
			return -1;
		}
	}
	for (uint32_t i = 0; i < rp->nr; i++)
		if (rp->state[rp->rl[i]] == RS_OPEN) {
			if (!lazy)
				log_info("ftree: repair: switch \"%.24s\" is cut off "
					 "from LID %u", t->fab->nodes[t->fab->switches[rp->rl[i]]].desc,
					 lid);
			return -1;
		}
	return 0;
}

/* Lazy mode got stuck: back to the old entries, and the switches leading
 * into a switch left open join R (their own way out may be what the stuck
 * one needs). 0 if R grew. */
static int grow(struct ft_repair *rp, uint32_t lid)
{
	const struct ftree *t = rp->t;
	uint32_t n0 = rp->nr;
	for (uint32_t i = 0; i < n0; i++)
		rp_set_entry(rp, rp->rl[i], lid, rp->old[rp->rl[i]]);
	for (uint32_t i = 0; i < n0; i++) {
		uint32_t y = rp->rl[i];
		int stuck = rp->state[y] == RS_OPEN;
		rp->state[y] = RS_OPEN;
		rp->inflow[y] = 0;
		if (!stuck)
			continue;
		for (int pass = 0; pass < 2; pass++) {
			const struct ft_link *L = pass ? t->dn : t->up;
			const uint32_t *off = pass ? t->dn_off : t->up_off;
			for (uint32_t k = off[y]; k < off[y + 1]; k++) {
				uint32_t u = L[k].peer;
				if (rp_in_r(rp, u) || rp_entry(rp, u, lid) != L[k].rport)
					continue;
				rp_add_to_r(rp, u, lid);
				rp->old_ty[u] = (uint8_t)shape_via(!pass, rp->old_ty[y]);
			}
		}
	}
	rp->wround = ++rp->wstamp;
	return rp->nr > n0 ? 0 : -1;
}

#define FT_REPAIR_GROW_ROUNDS 6

/* Repair one LID given its broken entries h[0..nh). Compute-node LIDs
 * take the whole R at once (their flows are weighed together); switch
 * LIDs go lazily, growing R a few times where that gets stuck, then
 * take the whole R. 0, or -1 if some switch finds no path (the engine
 * then routes in full). */
/* R starts again as the switches whose entry for lid broke (new stamps,
 * so marks of an earlier try do not count). */
static void start_r(struct ft_repair *rp, const struct ft_hit *h, uint32_t nh,
		    uint32_t lid)
{
	rp->stamp++;
	rp->wround = ++rp->wstamp;
	rp->nr = 0;
	for (uint32_t i = 0; i < nh; i++)
		if (!rp_in_r(rp, h[i].sw))
			rp_add_to_r(rp, h[i].sw, lid);
}

int rp_repair_lid(struct ft_repair *rp, uint32_t lid, const struct ft_hit *h,
		  uint32_t nh, uint32_t *undecided)
{
	const struct ftree *t = rp->t;
	uint32_t di = rp->dest_of[lid];
	start_r(rp, h, nh, lid);
	if (di == FAB_NONE) {           /* no destination here any more */
		for (uint32_t i = 0; i < rp->nr; i++)
			rp_set_entry(rp, rp->rl[i], lid, LFT_NO_PATH);
		return 0;
	}
	const struct ft_dest *d = &t->dest[di];
	int r = -1;
	if (!d->weighted) {
		for (uint32_t i = 0; i < rp->nr; i++)
			rp->old_ty[rp->rl[i]] =
				(uint8_t)prev_shape(rp, rp->rl[i], d->sw, lid);
		for (int round = 0; round < FT_REPAIR_GROW_ROUNDS; round++) {
			r = decide_set(rp, d, lid, undecided, 1);
			if (!r)
				r = extend_lazily(rp, d->sw, lid);
			if (r != -1 || grow(rp, lid))
				break;
		}
		if (r < -1)
			return r;
		if (r) {                /* the whole R after all */
			rp->lazy_fallbacks++;
			for (uint32_t i = 0; i < rp->nr; i++)
				rp_set_entry(rp, rp->rl[i], lid, rp->old[rp->rl[i]]);
			start_r(rp, h, nh, lid);
		}
	}
	if (r) {
		/* Everything whose entry leads into R. */
		for (uint32_t i = 0; i < rp->nr; i++) {
			uint32_t y = rp->rl[i];
			for (uint32_t k = t->nb_off[y]; k < t->nb_off[y + 1]; k++) {
				uint32_t u = t->nb_peer[k];
				if (!rp_in_r(rp, u) && rp_entry(rp, u, lid) == t->nb_rport[k])
					rp_add_to_r(rp, u, lid);
			}
		}
		if ((r = decide_set(rp, d, lid, undecided, 0)))
			return r;
	}
	for (uint32_t i = 0; i < rp->nr; i++) {
		rp->redecided++;
		rp->detours += rp->state[rp->rl[i]] == RS_DETOUR;
	}
	return 0;
}
