/* ftree on degraded trees: keep the all-to-all maximum link load near its
 * lower bound when links or switches are missing.
 *
 * The cap is a lower bound on the maximum link load of any routing: the
 * all-to-all traffic into (and out of) a leaf, w * (W - w) routes for w
 * compute nodes out of W, must cross that leaf's u up-links, so some link
 * carries at least ceil(w * (W - w) / u). On an intact tree d-mod-k meets
 * it exactly.
 *
 * Each destination's default assignment (on degraded trees already split
 * over several chains by room, ftree_split.c) is committed first: the
 * flow of every switch that carries any. If that pushes any link above
 * the cap (not only the chain's: on a degraded tree the spine-to-core
 * links overflow as well), the flows are moved, a few rounds or until
 * nothing moves:
 *  - source leaves, in cabled order: a leaf whose path crosses a link
 *    above the cap takes its flow off and puts it back on the good up-link
 *    whose path costs least (highest load, then sum of loads: the maximum
 *    alone lets moved flows pile onto a link until it is the bottleneck);
 *  - then switches above the leaves, bottom-up, the same way with all the
 *    flow that reaches them from below (their entry is shared, so it moves
 *    at once). Without this step spine-to-core links stay the bottleneck
 *    (ft3 radix 16, seeds 2 and 3: 1.10x and 1.21x instead of 1.004x).
 * An intact tree never exceeds the cap, so nothing moves there and
 * d-mod-k is untouched. Only up-links to good switches are chosen, so
 * compute-node paths stay up-then-down and deadlock freedom is unaffected;
 * detours are decided afterwards, on the final entries.
 *
 * Speed (65,536 CAs, 5% removed): with split chains 11,436 of 65,536
 * destinations still spill (50,489 with one chain), 0.42 M source leaves
 * move. The walks read per-switch copies of each entry's next switch and
 * load (nx, ld; filled only when a destination spills), the over-cap
 * answer is kept per switch until a load crosses the cap or an upper
 * switch moves, a candidate's walk stops once it cannot beat the best,
 * a round starts, and a pass goes on (leaves, then the switches above),
 * only while some entry's link is above the cap (nover: every path runs
 * along entries, so at 0 nothing would move; 10,063 of the 11,792
 * passes above the leaves were skipped so, and a round's leaves stop
 * after 74% on average); these shortcuts change no choice
 * (test_spill_stop compares with whole passes, ftree_tuning.spill_full). The
 * passes ask ahead for the scattered entries' ports and load slots. */
#include <stdint.h>

#include "ftree.h"

uint64_t ft_load_cap(const struct ftree *t)
{
	uint64_t cap = 0;
	for (uint32_t s = 0; s < t->nsw; s++) {
		uint64_t w = t->weight[s];
		uint32_t u = t->up_off[s + 1] - t->up_off[s];
		if (!w || !u)
			continue;
		uint64_t in = w * (t->total_weight - w);
		uint64_t c = (in + u - 1) / u;
		if (c > cap)
			cap = c;
	}
	return cap ? cap : UINT64_MAX;
}

static uint32_t fport(const struct ftree *t, uint32_t s)
{
	return t->fport[s];
}

/* Ask for fport e's load counter (ft_ld's slot) ahead. */
static inline void ld_prefetch(const struct ft_work *w, const uint64_t *L,
			       uint32_t e)
{
	uint32_t k = w->up_dn ? w->up_dn[e] : UINT32_MAX;
	if (k == UINT32_MAX)
		__builtin_prefetch(&L[e]);
	else
		__builtin_prefetch(&w->ul[k]);
}

/* Path cost: the highest load + f along the path, then the sum of the
 * loads + f, so that among paths with the same bottleneck the one that
 * adds least to the others wins (a plain maximum lets spilled sources pile
 * onto a link until it becomes the bottleneck itself). */
struct ft_cost {
	uint64_t max, sum;
};

/* Cost of the path leaving switch x by port p to tg with f more units. */
static struct ft_cost path_cost(const struct ft_work *w, uint32_t x, uint8_t p,
				uint32_t tg, uint64_t f, const uint64_t *L)
{
	const struct ftree *t = w->t;
	uint32_t e = fport(t, x) + p;
	uint64_t v = ft_ldv(w, L, e) + f;
	struct ft_cost c = { v, v };
	x = t->peer_sw[e];
	for (unsigned hops = 1; hops < 2 * FT_MAX_LEVELS + 2; hops++) {
		if (x == FAB_NONE || x == tg)
			break;
		v = w->ld[x] + f;
		if (v > c.max)
			c.max = v;
		c.sum += v;
		x = w->nx[x];
	}
	return c;
}

/* Does the path from switch y to tg cross a link above the cap? Most
 * sources share the rest of their path with many others (a spine's
 * leaves, a core's spines), so the answer is kept per switch for every
 * switch the walk passes (they all share it), valid until ov_epoch moves:
 * when a link's load crosses the cap either way, or a switch above the
 * leaves changes its entry (a leaf lies on no other switch's path). */
static int over_from(struct ft_work *w, uint32_t y, uint32_t tg)
{
	const struct ftree *t = w->t;
	uint32_t stk[2 * FT_MAX_LEVELS + 2], n = 0;
	int r = 0;
	while (y != FAB_NONE && y != tg) {
		if (w->ov_stamp[y] == w->ov_epoch) {
			r = w->ov[y];
			break;
		}
		if (n == 2 * FT_MAX_LEVELS + 2)
			break;          /* longer than any up-down path */
		stk[n++] = y;
		if (w->ld[y] > t->cap) {
			r = 1;
			break;
		}
		y = w->nx[y];
	}
	for (uint32_t i = 0; i < n; i++) {
		w->ov[stk[i]] = (uint8_t)r;
		w->ov_stamp[stk[i]] = w->ov_epoch;
	}
	return r;
}

/* Does x's path (its current entry) to tg cross a link above the cap?
 * (path_cost(..., 0, L).max > cap.) */
static int path_over(struct ft_work *w, uint32_t x, uint32_t tg)
{
	if (w->ld[x] > w->t->cap)
		return 1;
	return over_from(w, w->nx[x], tg);
}

/* Is path_cost(x, p, tg, f) cost_less than best? If so *c holds it. The
 * walk stops once the partial cost cannot win: the maximum and the sum
 * only grow with more links, so a partial maximum above best's, or equal
 * with a sum already at best's, is a loss whatever follows. Same verdict
 * as the whole walk; most candidates lose within a link or two. */
static int path_cost_less(const struct ft_work *w, uint32_t x, uint8_t p,
			  uint32_t tg, uint64_t f, const uint64_t *L,
			  struct ft_cost best, struct ft_cost *c)
{
	const struct ftree *t = w->t;
	uint32_t e = fport(t, x) + p;
	uint64_t v = ft_ldv(w, L, e) + f, max = v, sum = v;
	if (max > best.max || (max == best.max && sum >= best.sum))
		return 0;
	x = t->peer_sw[e];
	for (unsigned hops = 1; hops < 2 * FT_MAX_LEVELS + 2; hops++) {
		if (x == FAB_NONE || x == tg)
			break;
		v = w->ld[x] + f;
		if (v > max)
			max = v;
		sum += v;
		if (max > best.max || (max == best.max && sum >= best.sum))
			return 0;
		x = w->nx[x];
	}
	c->max = max;
	c->sum = sum;
	return 1;
}

/* Add (sub = 0) or remove (sub = 1) f units along the path; nonzero if
 * a link's load crossed the cap (either way). */
static int path_add(struct ft_work *w, uint32_t x, uint8_t p,
		    uint32_t tg, uint64_t f, uint64_t *L, int sub)
{
	const struct ftree *t = w->t;
	int crossed = 0;
	for (unsigned hops = 0; hops < 2 * FT_MAX_LEVELS + 2; hops++) {
		uint32_t e = fport(t, x) + p;
		int was = ft_ldv(w, L, e) > t->cap;
		uint64_t le = ft_ld_add(w, L, e, f, sub);
		crossed |= was != (le > t->cap);
		if (p == w->nh[x]) {
			w->nover += (le > t->cap) - (w->ld[x] > t->cap);
			w->ld[x] = le;
		}
		x = t->peer_sw[e];
		if (x == FAB_NONE || x == tg)
			break;
		p = w->nh[x];
	}
	return crossed;
}

static int is_up_target(const struct ft_work *w, uint32_t x)
{
	uint32_t grp = w->epoch_grp;
	return w->good_mark[x] == grp && w->anc_mark[x] != grp;
}

/* Switch x (good, not an ancestor of tg) sends f units up by its current
 * port, already counted in L. If that path crosses a link above the cap,
 * move them to the good up-link whose path costs least (the current one
 * on a tie). Returns 1 if it moved them. */
static int reassign(struct ft_work *w, uint32_t x, uint32_t tg, uint64_t f,
		    uint64_t *L)
{
	const struct ftree *t = w->t;
	uint8_t p0 = w->nh[x], p = p0;
	if (!path_over(w, x, tg))
		return 0;
	/* Each candidate's first load is a miss of its own (a leaf's
	 * up-links' slots lie in its parents' ranges): ask for them all
	 * while the current path is taken off. */
	if (w->up_dn)
		for (uint32_t k = t->up_off[x]; k < t->up_off[x + 1]; k++)
			__builtin_prefetch(&w->ul[w->up_rev[k]]);
	int crossed = path_add(w, x, p0, tg, f, L, 1);
	struct ft_cost best = path_cost(w, x, p0, tg, f, L);
	for (uint32_t k = t->up_off[x]; k < t->up_off[x + 1]; k++) {
		const struct ft_link *l = &t->up[k];
		if (l->port == p0 || w->good_mark[l->peer] != w->epoch_grp)
			continue;
		struct ft_cost c;
		if (path_cost_less(w, x, l->port, tg, f, L, best, &c)) {
			best = c;
			p = l->port;
		}
	}
	w->nh[x] = p;
	w->nx[x] = t->peer_sw[fport(t, x) + p];
	crossed |= path_add(w, x, p, tg, f, L, 0);
	/* Put back on the same port, the loads are as they were. */
	if (p != p0 && (crossed || t->level[x]))
		w->ov_epoch++;
	return p != p0;
}

/* Go on with a spill pass? Once no entry's link is above the cap no path
 * crosses one (paths run along entries), reassign moves nothing and the
 * rest of the pass would only pass flow on. ftree_tuning.spill_full runs
 * every pass whole (the unit test compares); ftree_stats.spill_cut counts
 * the passes stopped or skipped so. */
static int spill_go(struct ft_work *w)
{
	if (w->nover || w->t->tune->spill_full)
		return 1;
	w->t->stats->spill_cut++;
	return 0;
}

/* One pass over the switches above the leaves, bottom-up: each carries
 * the flow of everything below it that goes up through it, and may move
 * all of it at once (its entry is shared). Returns the moves made. */
static uint32_t spill_upper(struct ft_work *w, uint32_t tg, uint64_t *L)
{
	const struct ftree *t = w->t;
	uint32_t moved = 0, i;
	/* flow[] is all zero between passes: each switch's is cleared once
	 * read, and the rest (the top level's, never read here, and those
	 * after a stop) at the end. Once no entry's link is above the cap
	 * (nover), no path crosses one and the switches left would only
	 * pass their flow on: stop there. */
	for (i = 0; i < t->lvl_off[t->height] && spill_go(w); i++) {
		uint32_t x = t->by_level[i];
		if (!is_up_target(w, x))
			continue;
		uint64_t f = w->flow[x] + t->weight[x];
		w->flow[x] = 0;
		if (!f)
			continue;
		if (t->level[x])
			moved += reassign(w, x, tg, f, L);
		uint32_t o = w->nx[x];
		if (o != FAB_NONE && is_up_target(w, o))
			w->flow[o] += f;
	}
	for (; i < t->nsw; i++)
		w->flow[t->by_level[i]] = 0;
	return moved;
}

/* x (good, its flow complete) sends its flow and its compute nodes' up
 * its entry's link (own: with its own compute nodes' flow); the switch
 * there collects it (queued if it is no
 * ancestor: ancestors are done last, top-down, as their flow comes from
 * all sides). Nonzero if the link went over the cap. */
static int commit_flow(struct ft_work *w, uint32_t x, uint64_t *L, uint32_t *n,
		       int own)
{
	const struct ftree *t = w->t;
	uint64_t f = w->flow[x] + (own ? t->weight[x] : 0);
	w->flow[x] = 0;
	if (!f)
		return 0;
	uint32_t e = fport(t, x) + w->nh[x], o = t->peer_sw[e];
	uint64_t le = ft_ld_add(w, L, e, f, 0);
	if (o == FAB_NONE)
		return le > t->cap;
	if (!w->flow[o] && w->anc_mark[o] != w->epoch_grp &&
	    w->good_mark[o] == w->epoch_grp)
		w->queue[(*n)++] = o;
	w->flow[o] += f;
	return le > t->cap;
}

/* Add the default assignment's flows to L (what everything below a
 * switch sends through it); nonzero if a link went over the cap. Only
 * switches that carry flow are visited: compute-node switches, then the
 * switches their flow reaches, level by level (a queue: each level's are
 * queued while the level below is done), then the ancestors top-down. */
static int commit_default(struct ft_work *w, uint64_t *L)
{
	uint32_t grp = w->epoch_grp, n = 0;
	int over = 0;
	/* flow[] is all zero here (route_rest clears what it uses); each
	 * switch's is cleared once committed, and the flows all end at the
	 * target, which is not: clear it at the end. */
	/* Leaves a split chain routed committed already (ftree_split.c):
	 * their parents are queued in cq. */
	int early = w->split_on && w->cm_stamp;
	if (early) {
		for (uint32_t i = 0; i < w->ncq; i++)
			w->queue[n++] = w->cq[i];
		over = w->early_over != 0;
	}
	for (uint32_t i = 0; i < w->nweighted; i++) {
		uint32_t x = w->weighted[i];
		if (early && w->cm_stamp[x] == w->epoch_dst)
			continue;
		if (w->anc_mark[x] != grp && w->good_mark[x] == grp)
			over |= commit_flow(w, x, L, &n, 1);
	}
	/* (A compute-node switch above the leaves may be queued after its
	 * own turn, for flow that reached it later: that flow alone.) */
	for (uint32_t i = 0; i < n; i++) {
		/* the queued switches' entry links are scattered: ask for
		 * their ports ahead, then for their loads (the queue grows
		 * as it is read: ahead only what is there) */
		if (i + 8 < n) {
			uint32_t y = w->queue[i + 8];
			uint32_t ea = fport(w->t, y) + w->nh[y];
			__builtin_prefetch(&w->t->peer_sw[ea]);
			if (w->up_dn)
				__builtin_prefetch(&w->up_dn[ea]);
		}
		if (i + 4 < n) {
			uint32_t y = w->queue[i + 4];
			ld_prefetch(w, L, fport(w->t, y) + w->nh[y]);
		}
		over |= commit_flow(w, w->queue[i], L, &n, 0);
	}
	/* Few ancestors carry flow (65,536 CAs: ~15 of ~955 per
	 * destination): the others are passed over here, without the call
	 * (commit_flow would only clear their zero flow). */
	for (uint32_t i = w->nanc; i-- > 1;) {
		uint32_t x = w->anc_list[i];
		if (w->flow[x] | w->t->weight[x])
			over |= commit_flow(w, x, L, &n, 1);
	}
	w->flow[w->anc_list[0]] = 0;
	return over;
}

/* Before spilling: each good switch's next switch and its entry link's
 * load (nx, ld), and how many of those links are above the cap. */
static void spill_setup(struct ft_work *w, const uint64_t *L)
{
	const struct ftree *t = w->t;
	uint32_t grp = w->epoch_grp;
	w->nover = 0;
	for (uint32_t x = 0; x < t->nsw; x++) {
		/* the entries' ports are scattered: ask for them ahead, and
		 * for their loads' slots once those arrived (a second miss
		 * that depends on the first) */
		if (x + 16 < t->nsw) {
			uint32_t ea = fport(t, x + 16) + w->nh[x + 16];
			__builtin_prefetch(&t->peer_sw[ea]);
			if (w->up_dn)
				__builtin_prefetch(&w->up_dn[ea]);
		}
		if (w->up_dn && x + 8 < t->nsw)
			ld_prefetch(w, L, fport(t, x + 8) + w->nh[x + 8]);
		if (w->good_mark[x] != grp || x == w->anc_list[0])
			continue;
		uint32_t e = fport(t, x) + w->nh[x];
		w->nx[x] = t->peer_sw[e];
		w->ld[x] = ft_ldv(w, L, e);
		w->nover += w->ld[x] > t->cap;
	}
}

#define FT_SPILL_ROUNDS 4

void ft_spill(struct ft_work *w, uint32_t tg, uint32_t plane)
{
	const struct ftree *t = w->t;
	uint64_t *L = w->load + (size_t)plane * w->num_ports;
	if (!commit_default(w, L))
		return;
	spill_setup(w, L);
	w->ov_epoch++;
	w->spilled_dests++;
	for (unsigned r = 0; r < FT_SPILL_ROUNDS; r++) {
		/* No entry's link above the cap: every path is within it, the
		 * round would move nothing (the last round usually). */
		if (!w->nover)
			break;
		uint32_t moved = 0;
		/* (the same test per leaf: the leaves after the last link
		 * back within the cap would move nothing) */
		for (uint32_t i = t->lvl_off[0]; i < t->lvl_off[1] && spill_go(w);
		     i++) {
			uint32_t x = t->by_level[i];
			uint64_t f = t->weight[x];
			if (f && is_up_target(w, x))
				moved += reassign(w, x, tg, f, L);
		}
		w->spilled_sources += moved;
		/* Most often the leaves' moves bring every link back within
		 * the cap (65,536 CAs, 5% removed: 10,063 of 11,792 passes
		 * above the leaves would start with nover 0). */
		if (t->height > 1 && spill_go(w))
			moved += spill_upper(w, tg, L);
		if (!moved)
			break;
	}
}
