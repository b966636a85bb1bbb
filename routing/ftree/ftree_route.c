/* ftree: the per-destination assignment and the engine entry points.
 *
 * Destinations are routed one LID at a time in cabled order (leaf, then
 * port), CAs first, switches last. For a destination hanging off switch T:
 *  1. ancestors: switches that reach T going only down (per T, cached);
 *     "good" switches: ancestors, and switches with a good up-neighbour,
 *     i.e. those with an up-then-down path to T.
 *  2. the chain: from T upward, at each level the up-neighbour whose link
 *     down to the chain carries the least load (ties: column order). With
 *     destinations taken in cabled order this is d-mod-k (Zahavi 2010):
 *     CA i of a leaf goes down through the i-th spine, and so on upward,
 *     so on an intact tree every down-link carries one destination and
 *     every shift permutation is congestion-free.
 *  3. switches below a chain switch go up to the lowest chain switch they
 *     reach (breadth first down from the chain; on degraded trees only
 *     while the chain's links have room, further chains taking the rest:
 *     ftree_split.c); ancestors off the chain go down; other good
 *     switches that carry flow go up to the least-loaded good neighbour,
 *     those that carry none by their first one (a per-target default
 *     row, like the non-good switches' step toward the good set); the
 *     rest (no up-then-down path from there) get detours whose down->up
 *     turns keep the CDG acyclic (ftree_detour.c).
 *  4. the all-to-all flow of the destination (one unit per compute node)
 *     is added to per-link loads, which steer the next destinations; on
 *     degraded trees ft_spill moves source leaves off overloaded links.
 * Compute-node paths are up*-then-down* wherever the tree allows, and the
 * checked detours keep the whole table set deadlock-free on one VL. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../core/log.h"
#include "ftree.h"

static uint32_t first_port(const struct ftree *t, uint32_t s)
{
	return t->fport[s];
}


static uint32_t used_count(const struct ft_work *w, uint32_t s)
{
	uint32_t c = 0;
	for (uint32_t i = 0; i < w->nused; i++)
		c += w->used_sw[i] == s;
	return c;
}

static int key_less(const uint64_t *a, const uint64_t *b)
{
	for (int i = 0; i < 4; i++)
		if (a[i] != b[i])
			return a[i] < b[i];
	return 0;
}

/* Re-route: how much the previous tables used u as the chain switch above
 * cur: u led down to cur, and u's other down-neighbours came up to u. Lower
 * is better (0: clearly the previous chain). */
static uint64_t prev_chain_rank(const struct ft_work *w, const struct ft_link *l,
				uint32_t cur, uint32_t lid)
{
	const struct ftree *t = w->t;
	uint32_t u = l->peer;
	if (ft_prev_port(w, u, lid) != l->rport)
		return UINT32_MAX;
	uint32_t fed = 0;
	for (uint32_t k = t->dn_off[u]; k < t->dn_off[u + 1]; k++) {
		const struct ft_link *d = &t->dn[k];
		if (d->peer != cur && ft_prev_port(w, d->peer, lid) == d->rport)
			fed++;
	}
	return UINT32_MAX - 1 - fed;
}

/* Step 2: the chain from T to the top. */
static void build_chain(struct ft_work *w, uint32_t tg, uint32_t lid,
			const uint64_t *L)
{
	const struct ftree *t = w->t;
	uint32_t cur = tg, dst = w->epoch_dst;
	w->chain[0] = tg;
	w->nchain = 1;
	while (t->up_off[cur] < t->up_off[cur + 1] && w->nchain <= t->height) {
		uint32_t best = FAB_NONE;
		uint64_t bk[4] = { 0 };
		for (uint32_t k = t->up_off[cur]; k < t->up_off[cur + 1]; k++) {
			const struct ft_link *l = &t->up[k];
			/* prefer: the previous route, a switch no other LID of
			 * this CA uses (LMC), the least-loaded link, column order */
			uint64_t key[4] = {
				w->prev ? prev_chain_rank(w, l, cur, lid) : 0,
				w->nused ? used_count(w, l->peer) : 0,
				/* (the link down, seen from below: slot ndn + k) */
				w->up_dn ? w->ul[w->ndn + k] : L[l->rev_egress],
				t->order[l->peer],
			};
			if (best == FAB_NONE || key_less(key, bk)) {
				best = k;
				memcpy(bk, key, sizeof(bk));
			}
		}
		const struct ft_link *l = &t->up[best];
		w->chain[w->nchain] = l->peer;
		w->chain_port[w->nchain] = l->rport;
		w->nchain++;
		w->assigned[l->peer] = dst;
		w->nh[l->peer] = l->rport;
		cur = l->peer;
	}
}

/* The load of candidate c (a link down to an ancestor). */
static uint64_t cand_load(const struct ft_work *w, const struct ft_group *g,
			  uint32_t c, const uint64_t *L)
{
	if (w->up_dn)
		return w->ul[w->ndn + g->cand_up[c]];
	return L[w->t->dn[g->cand[c]].egress];
}

/* Step 3a: ancestors off the chain go down, least-loaded candidate. */
static void route_ancestors(struct ft_work *w, const struct ft_group *g,
			    uint32_t lid, const uint64_t *L)
{
	const struct ftree *t = w->t;
	for (uint32_t i = 1; i < w->nanc; i++) {
		uint32_t s = w->anc_list[i];
		if (w->assigned[s] == w->epoch_dst)
			continue;
		uint32_t a = g->cand_off[i], b = g->cand_off[i + 1];
		uint32_t best = a;
		/* One candidate (most top switches above a leaf target: one
		 * link down into its pod): no load to read, a cache miss
		 * each. */
		uint8_t pp = w->prev && b - a > 1 ? ft_prev_port(w, s, lid) :
			LFT_NO_PATH;
		uint64_t bv = 0;
		for (uint32_t c = a; b - a > 1 && c < b; c++) {
			if (g->cand_port[c] == pp) {
				best = c;
				break;
			}
			uint64_t lv = cand_load(w, g, c, L);
			if (c == a) {
				bv = lv;
				continue;
			}
			/* (the lower ends: t->dn[cand].peer, from anc_list) */
			uint32_t lo = w->anc_list[g->cand_lo[c]];
			uint32_t blo = w->anc_list[g->cand_lo[best]];
			if (lv < bv || (lv == bv && t->order[lo] < t->order[blo])) {
				best = c;
				bv = lv;
			}
		}
		w->nh[s] = g->cand_port[best];
		w->assigned[s] = w->epoch_dst;
	}
}

/* The load of x's up-link k (t->up): on split trees its slot in upl is
 * its t->dn index (up_rev; what ft_ldv finds through up_dn, without
 * reading that per-port array, a cache miss per link). */
static uint64_t up_load(const struct ft_work *w, const uint64_t *L, uint32_t k)
{
	return w->up_dn ? w->ul[w->up_rev[k]] : L[w->t->up[k].egress];
}

/* x's up-link to a good switch with the least load in L (ties: column
 * order), or the first one when first_will_do. x has one (it is good). */
static uint32_t least_up(const struct ft_work *w, uint32_t x,
			 const uint64_t *L, int first_will_do)
{
	const struct ftree *t = w->t;
	uint32_t grp = w->epoch_grp, best = FAB_NONE;
	uint64_t bv = 0;
	for (uint32_t k = t->up_off[x]; k < t->up_off[x + 1]; k++) {
		uint32_t u = w->up_peer[k];
		if (w->good_mark[u] != grp)
			continue;
		if (best == FAB_NONE) {
			best = k;
			if (first_will_do)
				break;
			bv = up_load(w, L, k);
			continue;
		}
		uint64_t lv = up_load(w, L, k);
		if (lv < bv || (lv == bv &&
				t->order[u] < t->order[w->up_peer[best]])) {
			best = k;
			bv = lv;
		}
	}
	return best;
}

/* Step 3c/3d: the remaining switches, bottom-up so flows are known. */
/* x (good, unassigned, carrying f > 0) goes up its least-loaded link to
 * a good switch (ties: column order), which collects the flow. */
static void rest_up(struct ft_work *w, uint32_t x, uint64_t f,
		    const uint64_t *L, uint32_t *n)
{
	const struct ftree *t = w->t;
	uint32_t dst = w->epoch_dst, best = least_up(w, x, L, 0);
	w->nh[x] = t->up[best].port;
	uint32_t o = t->up[best].peer;
	if (w->assigned[o] != dst) {
		if (!w->flow[o])
			w->queue[(*n)++] = o;
		w->flow[o] += f;
	}
	w->flow[x] = 0;
	w->assigned[x] = dst;
}

/* Step 3c/3d without a previous table: the entries start from the
 * target's defaults (group_defaults), so only switches that carry flow
 * and are not yet routed choose: compute-node switches, then the
 * switches their flow reaches, level by level (a queue: each level is
 * queued while the one below is done). Same choices as route_rest. */
static void route_flow(struct ft_work *w, const uint64_t *L, int weighted)
{
	const struct ftree *t = w->t;
	uint32_t grp = w->epoch_grp, dst = w->epoch_dst, n = 0;
	if (!weighted)
		return;
	for (uint32_t i = 0; i < w->nweighted; i++) {
		uint32_t x = w->weighted[i];
		if (w->assigned[x] != dst && w->good_mark[x] == grp)
			rest_up(w, x, w->flow[x] + t->weight[x], L, &n);
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t x = w->queue[i];
		if (w->assigned[x] != dst)
			rest_up(w, x, w->flow[x], L, &n);
	}
}

static void route_rest(struct ft_work *w, const struct ft_group *g,
		       uint32_t lid, const uint64_t *L, int weighted)
{
	const struct ftree *t = w->t;
	uint32_t grp = w->epoch_grp, dst = w->epoch_dst;
	for (uint32_t i = 0; i < t->nsw; i++) {
		uint32_t x = t->by_level[i];
		if (w->assigned[x] == dst)
			continue;
		if (w->good_mark[x] != grp) {
			uint8_t pp = w->prev ? ft_prev_port(w, x, lid) : LFT_NO_PATH;
			uint32_t o = ft_far_sw(t, x, pp);
			w->nh[x] = o != FAB_NONE && w->ng_dist[o] < w->ng_dist[x] ?
				pp : w->ng_nh[x];
			w->flow[x] = 0;
			continue;
		}
		uint64_t f = weighted ? w->flow[x] + t->weight[x] : 0;
		uint8_t pp = w->prev ? ft_prev_port(w, x, lid) : LFT_NO_PATH;
		if (pp != LFT_NO_PATH && ft_good_up_port(w, x, pp)) {
			w->nh[x] = pp;
		} else {
			/* carrying nothing, any good up-link will do */
			w->nh[x] = t->up[least_up(w, x, L, !f)].port;
		}
		if (f) {
			uint32_t o = t->peer_sw[first_port(t, x) + w->nh[x]];
			if (w->assigned[o] != dst)
				w->flow[o] += f;
		}
		w->flow[x] = 0;
		w->assigned[x] = dst;
	}
	(void)g;
}

static void route_lid(struct ft_work *w, const struct ft_group *g,
		      const struct ft_dest *d,
		      uint32_t lid, uint32_t plane)
{
	const struct ftree *t = w->t;
	uint64_t *L = w->load + (size_t)plane * w->num_ports;
	if (w->upl)
		w->ul = w->upl + (size_t)plane * w->ul_stride;
	w->epoch_dst++;
	if (!w->prev && !w->upper_weighted)
		memcpy(w->nh, g->dflt, t->nsw);
	w->nh[d->sw] = d->port;
	w->assigned[d->sw] = w->epoch_dst;
	build_chain(w, d->sw, lid, L);
	route_ancestors(w, g, lid, L);
	ft_below_chains(w, g->cand_off, g->cand, g->cand_lo, g->cand_up,
			g->good_weight, lid, L,
			d->weighted);
	if (w->prev || w->upper_weighted)
		route_rest(w, g, lid, L, d->weighted);
	else
		route_flow(w, L, d->weighted);
	if (d->weighted)
		ft_spill(w, d->sw, plane);
	for (uint32_t i = 1; i < w->nchain; i++)
		if (d->nlids > 1)
			w->used_sw[w->nused++] = w->chain[i];
	(void)t;
}

static void work_free(struct ft_work *w)
{
	free(w->load);
	free(w->anc_mark);
	free(w->good_mark);
	free(w->assigned);
	free(w->ng_dist);
	free(w->ng_key);
	free(w->nh);
	free(w->ng_nh);
	free(w->flow);
	free(w->ov);
	free(w->ov_stamp);
	free(w->nx);
	free(w->ld);
	free(w->queue);
	free(w->anc_list);
	free(w->used_sw);
	free(w->weighted);
	free(w->anc_pos);
	free(w->up_rev);
	free(w->up_peer);
	ft_split_free(w);
	ft_reroute_free(w);
}

/* Each up-link's index in t->dn (the same link seen from above). */
static uint32_t *up_rev_build(const struct ftree *t)
{
	uint32_t *r = malloc((t->up_off[t->nsw] + 1) * sizeof(uint32_t));
	for (uint32_t y = 0; r && y < t->nsw; y++)
		for (uint32_t j = t->dn_off[y]; j < t->dn_off[y + 1]; j++) {
			uint32_t x = t->dn[j].peer;
			for (uint32_t k = t->up_off[x]; k < t->up_off[x + 1]; k++)
				if (t->up[k].peer == y && t->up[k].port == t->dn[j].rport)
					r[k] = j;
		}
	return r;
}

static int work_init(struct ft_work *w, const struct ftree *t, uint32_t planes)
{
	memset(w, 0, sizeof(*w));
	w->t = t;
	w->num_ports = t->fab->num_ports;
	w->planes = planes;
	size_t n = t->nsw;
	w->load = calloc((size_t)planes * w->num_ports + 1, sizeof(uint64_t));
	w->anc_mark = calloc(n, sizeof(uint32_t));
	w->good_mark = calloc(n, sizeof(uint32_t));
	w->assigned = calloc(n, sizeof(uint32_t));
	w->ng_dist = calloc(n, sizeof(uint32_t));
	w->ng_key = calloc(n + 1, sizeof(uint64_t));
	w->nh = calloc(n, 1);
	w->ng_nh = calloc(n, 1);
	w->flow = calloc(n, sizeof(uint64_t));
	w->ov = calloc(n, 1);
	w->ov_stamp = calloc(n, sizeof(uint32_t));
	w->nx = calloc(n, sizeof(uint32_t));
	w->ld = calloc(n, sizeof(uint64_t));
	w->queue = calloc(n, sizeof(uint32_t));
	w->anc_list = calloc(n, sizeof(uint32_t));
	w->used_sw = calloc((size_t)(FT_MAX_LEVELS + 1) * 256, sizeof(uint32_t));
	w->weighted = calloc(n, sizeof(uint32_t));
	w->anc_pos = calloc(n, sizeof(uint32_t));
	w->up_rev = up_rev_build(t);
	w->up_peer = malloc((t->up_off[t->nsw] + 1) * sizeof(uint32_t));
	for (uint32_t k = 0; w->up_peer && k < t->up_off[t->nsw]; k++)
		w->up_peer[k] = t->up[k].peer;
	w->nweighted = 0;
	for (uint32_t i = 0; w->weighted && i < t->nsw; i++)
		if (t->weight[t->by_level[i]]) {
			w->weighted[w->nweighted++] = t->by_level[i];
			w->upper_weighted |= t->level[t->by_level[i]] != 0;
		}
	if (ft_split_init(w) || !w->weighted || !w->load || !w->anc_mark ||
	    !w->good_mark || !w->assigned ||
	    !w->ng_dist || !w->nh || !w->ng_nh || !w->flow || !w->queue ||
	    !w->ov || !w->ov_stamp || !w->nx || !w->ld ||
	    !w->anc_list || !w->used_sw || !w->anc_pos || !w->up_rev ||
	    !w->up_peer) {
		work_free(w);
		return -ENOMEM;
	}
	return 0;
}


/* The routing order on degraded trees: the switch LIDs spread evenly
 * between the compute-node targets (after the j-th of n targets, the
 * first j/n of them) instead of all after. A compute-node target keeps
 * the router busy with loads while the second thread has little to do;
 * a switch LID is the other way round (a light assignment, heavy
 * detours: ~3,000 non-good switches each at 65,536 CAs). Interleaved,
 * the two threads overlap. Switch LIDs carry no load, so the
 * compute-node routes, and the balance, are the same in either order;
 * the switch LIDs' chains see the loads of the targets before them, and
 * the detours take their turns in the new order (each still checked).
 * Only on trees whose tables are large enough for a second thread to
 * pay (ftree_tuning.interleave_min, FT_THREAD_MIN_ENTRIES; the order
 * never depends on the threads):
 * smaller trees keep their tables. Returns the number of destinations
 * in todo. */
static uint32_t interleave(const struct ftree *t, uint32_t *todo)
{
	uint32_t ntg = 0, n = 0, sw = t->nca_dest, j = 0;
	uint64_t nsw = t->ndest - t->nca_dest;
	for (uint32_t i = 0; i < t->nca_dest; i++)
		ntg += !i || t->dest[i].sw != t->dest[i - 1].sw;
	for (uint32_t i = 0; i < t->nca_dest; i++) {
		todo[n++] = i;
		if (i + 1 < t->nca_dest && t->dest[i + 1].sw == t->dest[i].sw)
			continue;
		j++;
		while (sw < t->ndest && (uint64_t)(sw - t->nca_dest) * ntg < nsw * j)
			todo[n++] = sw++;
	}
	while (sw < t->ndest)
		todo[n++] = sw++;
	return n;
}

/* The destinations in cabled order: all of them, or, when the CA LIDs
 * were written in closed form (closed), the switch LIDs above the
 * leaves. Returns how many. */
static uint32_t route_order(const struct ftree *t, uint32_t *todo, int closed)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < t->ndest; i++)
		if (!closed || (i >= t->nca_dest && t->level[t->dest[i].sw] != 0))
			todo[n++] = i;
	return n;
}

/* Route the destinations of ah->todo one LID at a time and hand each
 * row to the writer (with its detours' context). */
static int route_targets(struct ft_work *w, struct ft_group *g,
			 struct ft_writer *wr, struct ft_ahead *ah,
			 struct ft_dring *dr)
{
	const struct ftree *t = w->t;
	uint32_t cur_grp = FAB_NONE;
	void *dctx = NULL;
	ft_ahead_fill(ah, t, wr);
	for (uint32_t i = 0; i < ah->ntodo; i++) {
		const struct ft_dest *d = &t->dest[ah->todo[i]];
		if (d->sw != cur_grp) {
			int r = ft_ahead_take(ah, t, wr, w, g);
			if (r)
				return r;
			cur_grp = d->sw;
			if ((dctx = ft_dring_take(dr, w, g)) == (void *)-1)
				return -ENOMEM;
		}
		w->nused = 0;
		for (uint32_t j = 0; j < d->nlids; j++) {
			route_lid(w, g, d, d->lid + j, d->weighted ? j : 0);
			if (!d->weighted || (g->has_nongood &&
			    ft_hub_needed(t, w->good_mark, w->epoch_grp)))
				ft_hub_entry(t, w->nh, w->good_mark, w->epoch_grp);
			ft_writer_add(wr, w->nh, d->lid + j, dctx);
		}
	}
	return 0;
}

/* What the route did: spills, detours, turns. */
static void route_report(const struct ftree *t, const struct ft_work *w,
			 const struct ft_detour *dt, double t0)
{
	log_info("ftree: routed %u destinations in %.3f s (%llu spilled, "
		 "%llu source leaves moved)", t->ndest, now_seconds() - t0,
		 (unsigned long long)w->spilled_dests,
		 (unsigned long long)w->spilled_sources);
	log_info("ftree: %llu detour paths, %llu down-up turns taken, %llu "
		 "refused (%llu cycle searches, %llu short cycles found from "
		 "the taken turns)", (unsigned long long)dt->paths,
		 (unsigned long long)dt->turns.taken,
		 (unsigned long long)dt->turns.refused,
		 (unsigned long long)dt->turns.cdg.searches,
		 (unsigned long long)dt->turns.wit.found);
	log_debug("ftree: cycle searches visited %llu channels, reordering "
		  "moved %llu; detours took %.3f s CPU",
		  (unsigned long long)dt->turns.cdg.visited,
		  (unsigned long long)dt->turns.cdg.moved, dt->cpu);
	if (dt->failed)
		log_warn("ftree: %llu switches found no detour that keeps the "
			 "channel dependency graph acyclic; they keep a shortest "
			 "path, which may close a credit loop",
			 (unsigned long long)dt->failed);
}

static int ft_prepare(struct route_ctx *ctx)
{
	struct ftree *t = calloc(1, sizeof(*t));
	if (!t) {
		snprintf(ctx->why, sizeof(ctx->why), "out of memory");
		return -ENOMEM;
	}
	double t0 = now_seconds();
	int r = ft_build(t, ctx->fab, ctx->opt, ctx->why);
	if (r) {
		free(t);
		return r;
	}
	const struct ftree_run_arg *arg = ctx->arg;
	if (arg && arg->tuning)
		t->tune = arg->tuning;
	if (arg && arg->stats) {
		t->stats = arg->stats;
		memset(t->stats, 0, sizeof(*t->stats));
	}
	ctx->priv = t;
	/* With previous tables the repair copies them over every entry;
	 * otherwise the route below writes every entry of the LIDs it routes
	 * and ft_repair_reset the rest: whatever the memory holds. */
	ctx->tables_any = 1;
	log_info("ftree: %u levels, %u switches, %u CA LIDs + %u switch LIDs, "
		 "load cap %llu, shape in %.3f s", t->height + 1, t->nsw,
		 t->nca_dest, t->ndest - t->nca_dest,
		 (unsigned long long)t->cap, now_seconds() - t0);
	return 0;
}

static int ft_route(struct route_ctx *ctx, struct lft_set *lft)
{
	struct ftree *t = ctx->priv;
	if (!t) {
		int r = ft_prepare(ctx);
		if (r)
			return r;
		t = ctx->priv;
	}
	if (lft->max_lid < t->max_lid || lft->num_switches != t->nsw) {
		snprintf(ctx->why, sizeof(ctx->why), "tables cover LIDs up to %u "
			 "for %u switches; fabric needs %u and %u", lft->max_lid,
			 lft->num_switches, t->max_lid, t->nsw);
		return -EINVAL;
	}
	double t0 = now_seconds(), c0 = ft_thread_cpu();
	uint32_t planes = 1;
	for (uint32_t i = 0; i < t->nca_dest; i++)
		if (t->dest[i].weighted && t->dest[i].nlids > planes)
			planes = t->dest[i].nlids;
	struct ft_work w;
	struct ft_group g = { 0 };
	struct ft_writer wr;
	struct ft_detour dt = { 0 };
	struct ft_ahead ah;
	struct ft_dring dr;
	memset(&dr, 0, sizeof(dr));
	memset(&ah, 0, sizeof(ah));
	int r = work_init(&w, t, planes);
	if (r)
		goto nomem;
	if ((r = ft_writer_init(&wr, t, lft,
				 ctx->opt ? ctx->opt->threads : 0))) {
		work_free(&w);
		goto nomem;
	}
	g.cand_off = malloc((t->nsw + 2) * sizeof(uint32_t));
	g.ng_list = malloc(t->nsw * sizeof(uint32_t));
	g.dflt = malloc(t->nsw);
	r = ft_ahead_init(&ah, t, &w, wr.threaded ? t->tune->setup_depth : 1);
	if (r || !g.cand_off || !g.ng_list || !g.dflt ||
	    (r = ft_detour_init(&dt, t)) ||
	    (r = ft_reroute_init(&w, ctx->opt, ctx->fab))) {
		r = r ? r : -ENOMEM;
		goto out;
	}
	/* Previous tables and only links lost: change what must change. */
	if ((r = ft_repair(&w, ctx->opt, lft, ctx->opt ? ctx->opt->threads : 0,
			   ctx->tables_prev))) {
		r = r < 0 ? r : 0;
		goto out;
	}
	/* Not repaired (no previous tables, or the repair gave up part way):
	 * route in full over whatever lft holds. */
	ft_repair_reset(t, lft);
	/* The destinations the general assignment routes: all of them, or,
	 * on an intact tree, the switch LIDs above the leaves (the rest are
	 * written in closed form by ftree_closed.c). */
	uint32_t *todo = malloc((t->ndest + 1) * sizeof(uint32_t)), ntodo = 0;
	if (!todo) {
		r = -ENOMEM;
		goto out;
	}
	if ((r = ft_closed_route(&w, lft, ctx->opt ? ctx->opt->threads : 0)) < 0) {
		free(todo);
		goto out;
	}
	int ilv = !r && w.split_on && !w.prev &&
		(uint64_t)t->nsw * (t->max_lid + 1) >= t->tune->interleave_min;
	if (ilv)
		ntodo = interleave(t, todo);
	else
		ntodo = route_order(t, todo, r);
	ah.side_all = ilv;
	ah.todo = todo;
	ah.ntodo = ntodo;
	dr.t = t;
	dr.dt = &dt;
	wr.fix = ft_dring_fix;
	wr.fix_arg = &dr;
	r = route_targets(&w, &g, &wr, &ah, &dr);
	free(todo);
	if (r)
		goto out;
	double c1 = ft_thread_cpu();
	ft_writer_finish(&wr);
	if (wr.cpu >= 0)
		log_info("ftree: CPU: routing thread %.2f s, second thread %.2f s "
			 "(detours, table writes, setup)", c1 - c0, wr.cpu);
	if (w.prev)
		ft_reroute_report(&w, ctx->fab, lft);
	route_report(t, &w, &dt, t0);
	/* The memo of these tables for a later repair: the turns they take
	 * are all in dt.turns unless a source kept a shortest path, or
	 * previous entries were kept (their turns were not checked here). */
	if (ctx->opt && ctx->opt->memo_out && !dt.failed && !w.prev)
		r = ft_memo_put(&dt.turns, ctx->opt->memo_out);
out:
	ft_writer_finish(&wr);
	ft_dring_free(&dr);
	ft_ahead_free(&ah);
	work_free(&w);
	free(g.cand_off);
	free(g.ng_list);
	free(g.dflt);
	ft_detour_free(&dt);
	free(g.cand);
	free(g.cand_lo);
	free(g.cand_up);
	free(g.cand_port);
	if (r == -ENOMEM)
		goto nomem;
	return r;
nomem:
	snprintf(ctx->why, sizeof(ctx->why), "out of memory");
	return -ENOMEM;
}

static void ft_release(struct route_ctx *ctx)
{
	struct ftree *t = ctx->priv;
	if (t) {
		ft_free(t);
		free(t);
	}
	ctx->priv = NULL;
}

const struct route_engine route_ftree = {
	.name = "ftree",
	.summary = "fat-tree: d-mod-k balanced, degraded-tree rebalancing, "
		   "LMC multipath, minimal-change re-route (1 VL)",
	/* Up-then-down paths, and detours whose turns are checked against
	 * the channel dependency graph (ftree_turns.c); previous entries
	 * kept where still valid (ftree_reroute.c), lost links repaired
	 * (ftree_repair.c). */
	.flags = ROUTE_ENGINE_DEADLOCK_FREE | ROUTE_ENGINE_USES_PREV |
		 ROUTE_ENGINE_REPAIRS,
	.prepare = ft_prepare,
	.route = ft_route,
	.release = ft_release,
};
