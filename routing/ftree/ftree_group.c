/* ftree: a target switch's setup (step 1 of ftree_route.c): its
 * ancestors, their down candidates, the good switches, the non-good
 * switches' steps toward them, and the entries every LID of the target
 * starts from. Depends on the tree only (ftree_ahead.c prepares it
 * ahead). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ftree.h"

/* The entries every LID of a target starts from (the tree alone decides
 * them): non-good switches their step toward the good set, good switches
 * that carry no flow their first up-link to a good switch (any will do).
 * The LID's own pass then only visits the chain, what lies below it, and
 * the switches that carry flow outside it, not every switch. */
static void group_defaults(struct ft_work *w, struct ft_group *g)
{
	const struct ftree *t = w->t;
	uint32_t grp = w->epoch_grp;
	for (uint32_t x = 0; x < t->nsw; x++) {
		uint8_t p = LFT_NO_PATH;
		if (w->good_mark[x] != grp) {
			p = w->ng_nh[x];
		} else if (w->anc_mark[x] != grp) {
			for (uint32_t k = t->up_off[x]; k < t->up_off[x + 1]; k++)
				if (w->good_mark[w->up_peer[k]] == grp) {
					p = t->up[k].port;
					break;
				}
		}
		g->dflt[x] = p;
	}
}

/* Distances searched from the non-good side (nongood_search), then the
 * plain search goes on (ftree_tuning.ng_rounds, 4; 0: the plain search
 * from the good set only: the unit tests compare the two). */

static int key_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The least (queue position, index at the far end) over o's links to
 * good switches (queued by ordinal, so the far ends' order is the
 * queue's: the first good one in it), or UINT64_MAX. */
static uint64_t good_key(const struct ft_work *w, uint32_t o)
{
	const struct ftree *t = w->t;
	for (uint32_t k = t->nb_off[o]; k < t->nb_off[o + 1]; k++)
		if (!w->ng_dist[t->nb_srt_peer[k]])
			return (uint64_t)t->nb_srt_peer[k] << 32 | t->nb_srt_rev[k];
	return UINT64_MAX;
}

/* The same over o's links to switches at distance d - 1 (anc_pos:
 * their queue positions). */
static uint64_t near_key(const struct ft_work *w, uint32_t o, uint32_t d)
{
	const struct ftree *t = w->t;
	uint64_t best = UINT64_MAX;
	for (uint32_t k = t->nb_off[o]; k < t->nb_off[o + 1]; k++) {
		uint32_t p = t->nb_peer[k];
		/* (no branch: nearer and farther neighbours mix) */
		uint64_t key = ((uint64_t)w->anc_pos[p] << 32 | t->nb_rev[k]) |
			-(uint64_t)(w->ng_dist[p] != d - 1);
		best = key < best ? key : best;
	}
	return best;
}

/* The non-good switches' default entries and order (ng_dist, ng_nh,
 * ng_list) as the breadth-first search from the whole good set in
 * ordinal order finds them, searched from the non-good side, one
 * distance at a time. The search from the good side scans the links of
 * every switch of a distance before the farthest one is found (a leaf
 * target's good set is nearly the whole tree: ~2,000 leaves of 32 links
 * before the ~50 tops that are not good, at 65,536 CAs; a middle
 * switch's non-good leaves are found only by the middle switches of
 * their pod, late in the order), while most non-good switches have
 * a neighbour one step closer and few links. The search from the good
 * side reaches switch o at distance d first from the neighbour p at
 * d - 1 that comes first in its queue (the good set: by ordinal),
 * by p's first link to o. So each switch not yet reached takes the
 * least (p's queue position, the link's index at p) over its links to
 * switches at d - 1 (nb_rev gives the index at the far end), those
 * found are queued in that order, and the rest wait for d + 1: the
 * same distances, next hops and order. Past a few distances the plain
 * search goes on from the queue (each round reads every waiting
 * switch's links). anc_pos (only the candidates' scratch) holds the
 * queue positions. */
static int nongood_search(struct ft_work *w, struct ft_group *g, uint32_t grp)
{
	const struct ftree *t = w->t;
	uint32_t m = 0, *wait = g->ng_list, *qpos = w->anc_pos;
	for (uint32_t s = 0; s < t->nsw; s++) {
		if (w->good_mark[s] == grp) {
			w->ng_dist[s] = 0;
			qpos[s] = s;    /* the good set is queued by ordinal */
		} else {
			w->ng_dist[s] = UINT32_MAX;
			w->ng_nh[s] = LFT_NO_PATH;
			wait[m++] = s;
		}
	}
	uint32_t head = 0, tail = 0;
	for (uint32_t d = 1; m; d++) {
		/* d > 1: the plain search from the last distance's switches
		 * first (it finds all at once on intact trees), while it
		 * has read no more links than the waiting switches have; the
		 * rest from their side, among the switches it did not scan
		 * (the ones it scanned reach none of them). */
		uint32_t ft = tail, found = 0;
		uint64_t budget = 0;
		for (uint32_t i = 0; d > 1 && i < m; i++)
			budget += t->nb_off[wait[i] + 1] - t->nb_off[wait[i]];
		if (d > t->tune->ng_rounds)
			budget = UINT64_MAX;
		while (d > 1 && head < ft && found < m && budget) {
			uint32_t x = w->queue[head++];
			uint64_t deg = t->nb_off[x + 1] - t->nb_off[x];
			budget = budget > deg ? budget - deg : 0;
			for (uint32_t k = t->nb_off[x]; k < t->nb_off[x + 1]; k++) {
				uint32_t o = t->nb_peer[k];
				if (w->ng_dist[o] != UINT32_MAX)
					continue;
				w->ng_dist[o] = d;
				w->ng_nh[o] = t->nb_rport[k];
				qpos[o] = tail;
				w->queue[tail++] = o;
				found++;
			}
		}
		uint32_t n = 0, left = 0;
		int back = d == 1 || (found < m && head < ft);
		for (uint32_t i = 0; i < m; i++) {
			uint32_t o = wait[i];
			if (w->ng_dist[o] != UINT32_MAX)
				continue;       /* (found above) */
			uint64_t best = !back ? UINT64_MAX :
				d == 1 ? good_key(w, o) : near_key(w, o, d);
			if (best != UINT64_MAX)
				w->ng_key[n++] = best;
			else
				wait[left++] = o;
		}
		m = left;
		if (!n && tail == ft)
			break;          /* the rest cannot be reached */
		/* Keys are distinct (one link each); the link's index at p
		 * names o and o's port (nb_peer, nb_rport there). */
		qsort(w->ng_key, n, sizeof(uint64_t), key_cmp);
		for (uint32_t i = 0; i < n; i++) {
			uint32_t k = (uint32_t)w->ng_key[i], o = t->nb_peer[k];
			w->ng_dist[o] = d;
			w->ng_nh[o] = t->nb_rport[k];
			qpos[o] = tail;
			w->queue[tail++] = o;
		}
		head = ft;
	}
	g->nng = tail;
	memcpy(g->ng_list, w->queue, tail * sizeof(uint32_t));
	return 0;
}

/* Ancestors: breadth first up from T, so anc_list is by level. */
static void group_ancestors(struct ft_work *w, uint32_t tg, uint32_t grp)
{
	const struct ftree *t = w->t;
	w->anc_list[0] = tg;
	w->anc_mark[tg] = grp;
	w->nanc = 1;
	for (uint32_t i = 0; i < w->nanc; i++) {
		uint32_t s = w->anc_list[i];
		for (uint32_t k = t->up_off[s]; k < t->up_off[s + 1]; k++) {
			uint32_t u = t->up[k].peer;
			if (w->anc_mark[u] != grp) {
				w->anc_mark[u] = grp;
				w->anc_list[w->nanc++] = u;
			}
		}
	}
}

/* Down candidates of each ancestor: its links down to ancestors (or
 * T), in the order of t->dn. Each is the up-link of an ancestor
 * below it, so they are collected from the ancestors' up-links
 * (a top switch has far more links down than candidates), counted
 * per ancestor first, then each ancestor's put in t->dn order. */
static int group_candidates(struct ft_work *w, struct ft_group *g)
{
	const struct ftree *t = w->t;
	uint32_t need = 0;
	for (uint32_t i = 0; i < w->nanc; i++) {
		uint32_t s = w->anc_list[i];
		w->anc_pos[s] = i;
		need += t->up_off[s + 1] - t->up_off[s];
	}
	if (need > g->ncand_cap) {
		free(g->cand);
		free(g->cand_lo);
		free(g->cand_up);
		free(g->cand_port);
		g->cand = malloc((need ? need : 1) * sizeof(uint32_t));
		g->cand_lo = malloc((need ? need : 1) * sizeof(uint32_t));
		g->cand_up = malloc((need ? need : 1) * sizeof(uint32_t));
		g->cand_port = malloc(need ? need : 1);
		if (!g->cand || !g->cand_lo || !g->cand_up || !g->cand_port) {
			g->ncand_cap = 0;
			return -ENOMEM;
		}
		g->ncand_cap = need;
	}
	memset(g->cand_off, 0, (w->nanc + 1) * sizeof(uint32_t));
	for (uint32_t i = 0; i < w->nanc; i++) {
		uint32_t s = w->anc_list[i];
		for (uint32_t k = t->up_off[s]; k < t->up_off[s + 1]; k++)
			g->cand_off[w->anc_pos[t->up[k].peer] + 1]++;
	}
	for (uint32_t i = 1; i <= w->nanc; i++) {
		g->cand_off[i] += g->cand_off[i - 1];
		w->queue[i - 1] = g->cand_off[i - 1];  /* fill cursor */
	}
	for (uint32_t i = 0; i < w->nanc; i++) {
		uint32_t s = w->anc_list[i];
		for (uint32_t k = t->up_off[s]; k < t->up_off[s + 1]; k++) {
			uint32_t c = w->queue[w->anc_pos[t->up[k].peer]]++;
			g->cand[c] = w->up_rev[k];
			g->cand_lo[c] = i;
			g->cand_up[c] = k;
		}
	}
	for (uint32_t i = 1; i < w->nanc; i++) {
		/* t->dn order (insertion sort: a few candidates each) */
		uint32_t *c = g->cand, *lo = g->cand_lo, *up = g->cand_up;
		for (uint32_t a = g->cand_off[i] + 1; a < g->cand_off[i + 1]; a++) {
			uint32_t v = c[a], vl = lo[a], vu = up[a], b = a;
			for (; b > g->cand_off[i] && c[b - 1] > v; b--) {
				c[b] = c[b - 1];
				lo[b] = lo[b - 1];
				up[b] = up[b - 1];
			}
			c[b] = v;
			lo[b] = vl;
			up[b] = vu;
		}
	}
	for (uint32_t c = 0; c < g->cand_off[w->nanc]; c++)
		g->cand_port[c] = t->dn[g->cand[c]].port;
	return 0;
}

/* Marks the good switches (good_mark) and sums good_weight; returns
 * how many are good. */
static uint32_t group_good(struct ft_work *w, struct ft_group *g,
			   uint32_t tg, uint32_t grp)
{
	const struct ftree *t = w->t;
	/* Good switches: those with an up-path to an ancestor. Below a
	 * leaf's ancestors nearly every switch is good: top-down, a switch
	 * is good if it is an ancestor or has a good up-neighbour (the first
	 * one found will do), instead of following every ancestor's
	 * down-links (a top switch has 64). Below a higher target most
	 * switches are not good, each would test all its up-links: there
	 * the search down from the ancestors follows fewer links. */
	g->nng = 0;
	uint32_t ngood = 0;
	g->good_weight = 0;
	if (t->level[tg] == 0) {
		for (uint32_t i = t->nsw; i-- > 0;) {
			uint32_t s = t->by_level[i];
			int good = w->anc_mark[s] == grp;
			for (uint32_t k = t->up_off[s]; !good && k < t->up_off[s + 1]; k++)
				good = w->good_mark[w->up_peer[k]] == grp;
			if (!good)
				continue;
			if (w->anc_mark[s] != grp)
				g->good_weight += t->weight[s];
			w->good_mark[s] = grp;
			ngood++;
		}
	} else {
		for (uint32_t i = 0; i < w->nanc; i++) {
			w->good_mark[w->anc_list[i]] = grp;
			w->queue[ngood++] = w->anc_list[i];
		}
		for (uint32_t i = 0; i < ngood; i++) {
			uint32_t s = w->queue[i];
			for (uint32_t k = t->dn_off[s]; k < t->dn_off[s + 1]; k++) {
				uint32_t o = t->dn[k].peer;
				if (w->good_mark[o] != grp) {
					w->good_mark[o] = grp;
					w->queue[ngood++] = o;
					g->good_weight += t->weight[o];
				}
			}
		}
	}
	return ngood;
}

/* The non-good switches' default entries and order (ng_dist, ng_nh,
 * ng_list). */
static int group_nongood(struct ft_work *w, struct ft_group *g, uint32_t grp)
{
	const struct ftree *t = w->t;
	/* Others: breadth first from the good set over all switch links; the
	 * next hop is a neighbour one step closer. That is the default entry;
	 * ft_detour_route keeps it only where its turns close no cycle. The
	 * BFS order (nearest first) is the order detours are decided in. */
	if (t->tune->ng_rounds && t->nb_rev && w->ng_key)
		return nongood_search(w, g, grp);
	uint32_t head = 0, tail = 0, ngood;
	for (uint32_t s = 0; s < t->nsw; s++) {
		if (w->good_mark[s] == grp) {
			w->ng_dist[s] = 0;
			w->queue[tail++] = s;
		} else {
			w->ng_dist[s] = UINT32_MAX;
			w->ng_nh[s] = LFT_NO_PATH;
		}
	}
	ngood = tail;
	/* Stop once every switch is reached: the rest of the scans would only
	 * find switches already seen (the outer ring's links, typically a
	 * quarter of the work for a top-level target). */
	while (head < tail && tail < t->nsw) {
		uint32_t s = w->queue[head++], d = w->ng_dist[s] + 1;
		for (uint32_t k = t->nb_off[s]; k < t->nb_off[s + 1]; k++) {
			uint32_t o = t->nb_peer[k];
			if (w->ng_dist[o] != UINT32_MAX)
				continue;
			w->ng_dist[o] = d;
			w->ng_nh[o] = t->nb_rport[k];
			w->queue[tail++] = o;
		}
	}
	g->nng = tail - ngood;
	memcpy(g->ng_list, w->queue + ngood, g->nng * sizeof(uint32_t));
	return 0;
}

static int group_marks(struct ft_work *w, struct ft_group *g, uint32_t tg)
{
	uint32_t grp = ++w->epoch_grp;
	group_ancestors(w, tg, grp);
	int r = group_candidates(w, g);
	if (r)
		return r;
	g->has_nongood = group_good(w, g, tg, grp) < w->t->nsw;
	if (!g->has_nongood)
		return 0;
	return group_nongood(w, g, grp);
}

int ft_group_setup(struct ft_work *w, struct ft_group *g, uint32_t tg)
{
	int r = group_marks(w, g, tg);
	if (!r)
		group_defaults(w, g);
	return r;
}
