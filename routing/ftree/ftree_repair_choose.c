/* ftree repair, part 2: the choices for one LID (the rules of the full
 * assignment, ftree_route.c, applied to the switches of R only): the
 * shape of a switch's path (walk), the loads the repair moved (costs,
 * accounting), and the three kinds of entry: down to an ancestor, up to a
 * switch with an up*-then-down* path, or a checked detour. ftree_repair.c
 * says how they fit together. */
#include <stdint.h>
#include <string.h>

#include "ftree_repair.h"

void rp_add_to_r(struct ft_repair *rp, uint32_t x, uint32_t lid)
{
	rp->in_r[x] = rp->stamp;
	rp->state[x] = RS_OPEN;
	rp->old[x] = rp_entry(rp, x, lid);
	rp->inflow[x] = 0;
	rp->rl[rp->nr++] = x;
}

/* The shape of x's path to tg: only down, up then down, valid with a
 * turn, or broken (dead end, lost port, loop, undecided switch). */
int rp_walk(struct ft_repair *rp, uint32_t y, uint32_t tg, uint32_t lid)
{
	const struct ftree *t = rp->t;
	if (y == tg)
		return W_DOWN;
	if (rp_in_r(rp, y))
		return rp_shape_of(rp, y);
	/* A memo stays good for the round unless it says broken: deciding a
	 * switch only ever turns a path through it from broken to valid. */
	if (rp->walk_at[y] == rp->wstamp ||
	    (rp->walk_at[y] >= rp->wround && rp->walk_res[y] != W_BAD))
		return rp->walk_res[y];
	uint32_t x = y;
	int up = 0, down = 0, turned = 0, res = W_BAD;
	for (unsigned hops = 0; hops < 4 * FT_MAX_LEVELS; hops++) {
		if (x == tg) {
			res = turned ? W_OTHER : up ? W_UPDOWN : W_DOWN;
			break;
		}
		if (rp_in_r(rp, x)) {      /* only decided switches are reached */
			int r = rp_shape_of(rp, x);
			res = r == W_BAD ? W_BAD : turned || r == W_OTHER ||
				(down && r == W_UPDOWN) ? W_OTHER :
				up || r == W_UPDOWN ? W_UPDOWN : W_DOWN;
			break;
		}
		uint32_t o = ft_far_sw(t, x, rp_entry(rp, x, lid));
		if (o == FAB_NONE)
			break;
		if (t->level[o] > t->level[x]) {
			turned |= down;
			up = 1;
		} else {
			down = 1;
		}
		x = o;
	}
	rp->walk_at[y] = rp->wstamp;
	rp->walk_res[y] = (uint8_t)res;
	return res;
}

struct cost {
	uint64_t max, sum;
};

/* Loads (flows the repair moved) along x's path if it left by port p,
 * with f more units. */
static struct cost path_cost(struct ft_repair *rp, uint32_t x, uint8_t p,
			     uint32_t tg, uint32_t lid, uint64_t f)
{
	const struct ftree *t = rp->t;
	struct cost c = { 0, 0 };
	for (unsigned hops = 0; hops < 4 * FT_MAX_LEVELS && x != tg; hops++) {
		uint32_t e = t->fport[x] + p;
		uint64_t v = rp->load[e] + f;
		c.max = v > c.max ? v : c.max;
		c.sum += v;
		x = t->peer_sw[e];
		if (x == FAB_NONE)
			break;
		p = rp_entry(rp, x, lid);
		if (ft_far_sw(t, x, p) == FAB_NONE)
			break;
	}
	return c;
}

/* Add (sign 1) or take back (-1) f units along x's path. */
static void rp_commit_flow(struct ft_repair *rp, uint32_t x, uint32_t tg,
			   uint32_t lid, uint64_t f, int sign)
{
	const struct ftree *t = rp->t;
	for (unsigned hops = 0; hops < 4 * FT_MAX_LEVELS && x != tg; hops++) {
		uint8_t p = rp_entry(rp, x, lid);
		if (ft_far_sw(t, x, p) == FAB_NONE)
			break;
		uint64_t *l = &rp->load[t->fport[x] + p];
		*l = sign > 0 ? *l + f : *l > f ? *l - f : 0;
		x = t->peer_sw[t->fport[x] + p];
	}
}

/* Flow accounting of a compute-node LID, as R is decided from the top
 * down: a switch commits its flow (its own compute nodes and, by the old
 * entries, what reached it from below inside R) along its new path,
 * unless the switch above it that counted that flow still gets it; a
 * switch that moves away takes its flow back off that switch's path. So
 * the next choices see where the displaced traffic went already (without
 * this, every middle switch of every pod sent a lost top's traffic to the
 * same next top: 1.76x on a radix-8 tree instead of 1.3x). */
void rp_account(struct ft_repair *rp, uint32_t x, uint32_t tg,
		    uint32_t lid, uint64_t f)
{
	const struct ftree *t = rp->t;
	uint32_t y = ft_far_sw(t, x, rp->old[x]);
	int counted = y != FAB_NONE && rp_in_r(rp, y) && rp->committed[y] == rp->stamp;
	rp->committed[x] = rp->stamp;
	if (!f)
		return;
	if (counted && rp_entry(rp, x, lid) == rp->old[x])
		return;
	if (counted)
		rp_commit_flow(rp, y, tg, lid, f, -1);
	rp_commit_flow(rp, x, tg, lid, f, 1);
}

/* Mark the ancestors of tg (the switches that reach it going only down),
 * once per destination switch, and only when a switch of R could go down. */
static void mark_ancestors(struct ft_repair *rp, uint32_t tg)
{
	const struct ftree *t = rp->t;
	if (rp->anc_of == tg)
		return;
	rp->anc_of = tg;
	rp->anc_epoch++;
	uint32_t n = 0;
	rp->anc_list[n++] = tg;
	rp->anc_mark[tg] = rp->anc_epoch;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t s = rp->anc_list[i];
		for (uint32_t k = t->up_off[s]; k < t->up_off[s + 1]; k++) {
			uint32_t u = t->up[k].peer;
			if (rp->anc_mark[u] != rp->anc_epoch) {
				rp->anc_mark[u] = rp->anc_epoch;
				rp->anc_list[n++] = u;
			}
		}
	}
}

/* Step a: a down-link to a switch whose path only goes down. */
void rp_decide_down(struct ft_repair *rp, uint32_t x, uint32_t tg,
			uint32_t lid)
{
	const struct ftree *t = rp->t;
	uint32_t best = FAB_NONE;
	if (t->level[x] <= t->level[tg] || t->dn_off[x] == t->dn_off[x + 1])
		return;
	/* Right above tg only links to tg qualify; higher up, ancestors. */
	int next_to = t->level[x] == t->level[tg] + 1;
	if (!next_to) {
		mark_ancestors(rp, tg);
		if (rp->anc_mark[x] != rp->anc_epoch)
			return;
	}
	for (uint32_t k = t->dn_off[x]; k < t->dn_off[x + 1]; k++) {
		const struct ft_link *l = &t->dn[k];
		if (next_to ? l->peer != tg :
		    rp->anc_mark[l->peer] != rp->anc_epoch ||
		    rp_walk(rp, l->peer, tg, lid) != W_DOWN)
			continue;
		if (l->port == rp->old[x]) {
			best = k;
			break;
		}
		if (best == FAB_NONE) {
			best = k;
			continue;
		}
		const struct ft_link *b = &t->dn[best];
		if (rp->load[l->egress] < rp->load[b->egress] ||
		    (rp->load[l->egress] == rp->load[b->egress] &&
		     t->order[l->peer] < t->order[b->peer]))
			best = k;
	}
	if (best == FAB_NONE)
		return;
	rp_set_entry(rp, x, lid, t->dn[best].port);
	rp->state[x] = RS_DOWN;
}

/* Step b: an up-link to a switch with an up*-then-down* path. */
/* A switch outside R that no switch sends this LID to carries no flow
 * for it: its entry was an arbitrary choice (ftree takes the first
 * up-link), so when displaced flow comes its way it may choose again.
 * Returns its best up-link for f more units (and the cost), or 0 when it
 * is not such a switch. */
static uint8_t free_up(struct ft_repair *rp, uint32_t u, uint32_t tg,
		       uint32_t lid, uint64_t f, struct cost *out)
{
	const struct ftree *t = rp->t;
	if (rp_in_r(rp, u) || t->up_off[u] == t->up_off[u + 1])
		return 0;
	if (rp->free_at[u] != rp->stamp) {
		int busy = 0;
		for (int pass = 0; pass < 2 && !busy; pass++) {
			const struct ft_link *L = pass ? t->dn : t->up;
			const uint32_t *off = pass ? t->dn_off : t->up_off;
			for (uint32_t k = off[u]; k < off[u + 1] && !busy; k++)
				busy = rp_entry(rp, L[k].peer, lid) == L[k].rport;
		}
		rp->free_at[u] = rp->stamp;
		rp->free_res[u] = !busy;
	}
	if (!rp->free_res[u])
		return 0;
	uint8_t bp = 0;
	for (uint32_t k = t->up_off[u]; k < t->up_off[u + 1]; k++) {
		const struct ft_link *l = &t->up[k];
		int w = rp_walk(rp, l->peer, tg, lid);
		if (w != W_DOWN && w != W_UPDOWN)
			continue;
		struct cost c = path_cost(rp, u, l->port, tg, lid, f);
		if (!bp || c.max < out->max ||
		    (c.max == out->max && c.sum < out->sum)) {
			bp = l->port;
			*out = c;
		}
	}
	return bp;
}

void rp_decide_up(struct ft_repair *rp, uint32_t x, uint32_t tg,
		      uint32_t lid, uint64_t f)
{
	const struct ftree *t = rp->t;
	uint32_t best = FAB_NONE;
	struct cost bc = { 0, 0 };
	for (uint32_t k = t->up_off[x]; k < t->up_off[x + 1]; k++) {
		const struct ft_link *l = &t->up[k];
		/* carrying nothing: the old link if valid, else any will do */
		if (!f && best != FAB_NONE && l->port != rp->old[x])
			continue;
		int w = rp_walk(rp, l->peer, tg, lid);
		if (w != W_DOWN && w != W_UPDOWN)
			continue;
		if (l->port == rp->old[x]) {
			best = k;
			break;
		}
		struct cost c = path_cost(rp, x, l->port, tg, lid, f);
		if (best == FAB_NONE || c.max < bc.max ||
		    (c.max == bc.max && (c.sum < bc.sum ||
		     (c.sum == bc.sum && t->order[l->peer] < t->order[t->up[best].peer])))) {
			best = k;
			bc = c;
		}
	}
	if (best == FAB_NONE)
		return;
	uint32_t u = t->up[best].peer;
	struct cost cu;
	uint8_t pu = f && t->up[best].port != rp->old[x] ?
		free_up(rp, u, tg, lid, f, &cu) : 0;
	/* Only where moved flow piles up: the path as it is would carry more
	 * than an eighth of the load cap (a link's share on a balanced tree)
	 * of moved flow, and the other way carries less. Below that the
	 * entry stays (fewer changes; the balance is the same). */
	uint64_t cur = pu && pu != rp_entry(rp, u, lid) ?
		path_cost(rp, u, rp_entry(rp, u, lid), tg, lid, f).max : 0;
	if (pu && pu != rp_entry(rp, u, lid) && cur > t->cap / 8 && cu.max < cur) {
		rp_add_to_r(rp, u, lid);
		rp_set_entry(rp, u, lid, pu);
		rp->state[u] = RS_UP;
	}
	rp_set_entry(rp, x, lid, t->up[best].port);
	rp->state[x] = RS_UP;
}

/* May the search take the new turn at y (in from above, out upward)?
 * allow_new 2: any the check passes; 1: hub turns only (ftree_hub.c). */
static int new_ok(const struct ftree *t, int allow_new, uint32_t y,
		  uint8_t in, uint8_t out)
{
	return allow_new == 2 || (allow_new == 1 && ft_hub_turn(t, y, in, out));
}

/* Step c, as ftree_detour.c's search: breadth first from s through
 * undecided switches of R to a settled one, every down->up turn on the
 * way and at the join one already taken (allow_new 0), a new one at the
 * hub (1) or any new one that closes no cycle with them (2). */
static uint32_t detour_search(struct ft_repair *rp, uint32_t s, uint32_t tg,
			      uint32_t lid, int allow_new)
{
	const struct ftree *t = rp->t;
	uint32_t head = 0, tail = 0;
	rp->search++;
	rp->seen[s] = rp->search;
	rp->in_port[s] = 0;
	rp->queue[tail++] = s;
	while (head < tail) {
		uint32_t x = rp->queue[head++];
		uint8_t cur = rp_entry(rp, x, lid);
		for (int pass = 0; pass < 4; pass++) {
			const struct ft_link *L = pass & 1 ? t->dn : t->up;
			const uint32_t *off = pass & 1 ? t->dn_off : t->up_off;
			for (uint32_t k = off[x]; k < off[x + 1]; k++) {
				const struct ft_link *l = &L[k];
				uint32_t y = l->peer;
				if ((l->port == cur) != (pass < 2) ||
				    rp->seen[y] == rp->search ||
				    !ft_turn_ok(&rp->tu, x, rp->in_port[x], l->port,
						new_ok(t, allow_new, x,
						       rp->in_port[x], l->port)))
					continue;
				if (rp_is_final(rp, y)) {
					/* settled, and not through s (a loop) */
					if (rp_walk(rp, y, tg, lid) == W_BAD ||
					    !ft_turn_ok(&rp->tu, y, l->rport,
							rp_entry(rp, y, lid),
							new_ok(t, allow_new, y, l->rport,
							       rp_entry(rp, y, lid))))
						continue;
					rp->pred[y] = x;
					rp->in_port[y] = l->rport;
					rp->via[y] = l->port;
					return y;
				}
				rp->seen[y] = rp->search;
				rp->pred[y] = x;
				rp->in_port[y] = l->rport;
				rp->via[y] = l->port;
				rp->queue[tail++] = y;
			}
		}
	}
	return FAB_NONE;
}

/* Record the path's turns; 0 if one is refused now that the earlier ones
 * of the same path are in the graph (the search then runs again). */
static int take_turns(struct ft_repair *rp, uint32_t s, uint32_t y, uint32_t lid)
{
	if (!ft_turn_take(&rp->tu, y, rp->in_port[y], rp_entry(rp, y, lid)))
		return 0;
	for (uint32_t v = y; v != s; v = rp->pred[v]) {
		uint32_t u = rp->pred[v];
		if (u != s && !ft_turn_take(&rp->tu, u, rp->in_port[u], rp->via[v]))
			return 0;
	}
	return 1;
}

int rp_decide_detour(struct ft_repair *rp, uint32_t s, uint32_t tg,
			 uint32_t lid)
{
	const struct ftree *t = rp->t;
	const struct fabric *f = t->fab;
	uint8_t p = rp_entry(rp, s, lid);
	uint32_t y = ft_far_sw(t, s, p);
	if (y != FAB_NONE && rp_is_final(rp, y) && rp_walk(rp, y, tg, lid) != W_BAD &&
	    ft_turn_ok(&rp->tu, y, f->ports[f->ports[t->fport[s] + p].peer].num,
		       rp_entry(rp, y, lid), 0)) {
		rp->state[s] = RS_DETOUR;
		return 0;
	}
	/* Each refused take adds to the graph, so this ends; the bound only
	 * guards against a bug. */
	for (int tries = 0; tries < 64; tries++) {
		/* taken turns, then new ones at the hub, then any */
		y = FAB_NONE;
		for (int pass = 0; y == FAB_NONE && pass <= 2; pass++)
			y = detour_search(rp, s, tg, lid, pass);
		if (y == FAB_NONE)
			return -1;
		if (!take_turns(rp, s, y, lid))
			continue;
		for (uint32_t v = y; v != s; v = rp->pred[v]) {
			uint32_t u = rp->pred[v];
			rp_set_entry(rp, u, lid, rp->via[v]);
			rp->state[u] = RS_DETOUR;
		}
		return 0;
	}
	return -1;
}

/* R sorted by level, ascending (counting sort; keeps discovery order). */
void rp_sort_r(struct ft_repair *rp)
{
	const struct ftree *t = rp->t;
	uint32_t cnt[FT_MAX_LEVELS + 1] = { 0 };
	for (uint32_t i = 0; i < rp->nr; i++)
		cnt[t->level[rp->rl[i]] + 1]++;
	for (uint32_t l = 1; l <= FT_MAX_LEVELS; l++)
		cnt[l] += cnt[l - 1];
	for (uint32_t i = 0; i < rp->nr; i++)
		rp->queue[cnt[t->level[rp->rl[i]]]++] = rp->rl[i];
	memcpy(rp->rl, rp->queue, rp->nr * sizeof(uint32_t));
}

/* Undecided switches of R, nearest the settled ones first. */
uint32_t rp_detour_order(struct ft_repair *rp, uint32_t *out)
{
	const struct ftree *t = rp->t;
	uint32_t n = 0, head = 0;
	rp->search++;
	for (uint32_t i = 0; i < rp->nr; i++) {
		uint32_t x = rp->rl[i];
		if (rp->state[x] != RS_OPEN)
			continue;
		for (uint32_t k = t->nb_off[x]; k < t->nb_off[x + 1]; k++)
			if (rp_is_final(rp, t->nb_peer[k])) {
				rp->seen[x] = rp->search;
				out[n++] = x;
				break;
			}
	}
	while (head < n) {
		uint32_t x = out[head++];
		for (uint32_t k = t->nb_off[x]; k < t->nb_off[x + 1]; k++) {
			uint32_t o = t->nb_peer[k];
			if (rp_in_r(rp, o) && rp->state[o] == RS_OPEN &&
			    rp->seen[o] != rp->search) {
				rp->seen[o] = rp->search;
				out[n++] = o;
			}
		}
	}
	return n;
}
