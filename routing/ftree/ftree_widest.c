/* ftree, split chains (ftree_split.c): each later chain of a destination
 * is the widest path down from a top ancestor, the path whose tightest
 * link has the most room left. The widths are kept per ancestor (wide,
 * wide_via), the best top per block of 64 ancestors (blk_top), and
 * updated after each chain where its bookings changed them. */
#include <stdlib.h>
#include <string.h>

#include "ftree.h"
#include "ftree_split.h"

/* wide[i] and wide_via[i] from i's candidates: the widest path down
 * through each (its own room, then the widest below its lower end); the
 * first of the widest. */
static inline void wide_one(struct ft_work *w, const uint32_t *cand_off,
			    const uint32_t *cand_lo, uint32_t i)
{
	uint32_t via = FAB_NONE;
	int64_t best = INT64_MIN;
	for (uint32_t c = cand_off[i]; c < cand_off[i + 1]; c++) {
		int64_t r = w->crm[c], v = w->wide[cand_lo[c]];
		if (v < r)
			r = v;
		if (via == FAB_NONE || r > best) {
			best = r;
			via = c;
		}
	}
	w->wide[i] = best;
	w->wide_via[i] = via;
}

/* The order of tops (a path with room each): as high as any, then the
 * widest, then column order. Does (level lv, width v, column order o)
 * come before (bl, bw, bo)? */
static inline int top_key_before(uint32_t lv, int64_t v, uint32_t o,
				 uint32_t bl, int64_t bw, uint32_t bo)
{
	return lv > bl || (lv == bl && (v > bw || (v == bw && o < bo)));
}

/* The best top among anc_list indices [a, b) (after computing their
 * widest paths when asked): the first in top_key_before's order, as one
 * pass over all ancestors in order finds. FAB_NONE if none has room. */
static inline uint32_t scan_tops(struct ft_work *w, uint32_t a, uint32_t b,
				 const uint32_t *cand_off,
				 const uint32_t *cand_lo, int compute)
{
	uint32_t top = FAB_NONE, bl = 0, bo = 0;
	int64_t bw = 0;
	for (uint32_t i = a; i < b; i++) {
		if (compute)
			wide_one(w, cand_off, cand_lo, i);
		int64_t v = w->wide[i];
		if (v <= 0 || w->wide_via[i] == FAB_NONE)
			continue;
		uint32_t lv = w->alvl[i];
		if (top != FAB_NONE && !top_key_before(lv, v, w->aord[i], bl, bw, bo))
			continue;
		top = i;
		bl = lv;
		bw = v;
		bo = w->aord[i];
	}
	return top;
}

/* The best top among anc_list indices [64 q, 64 q + 64) (index 0, the
 * destination's switch, is no top). */
static void block_top(struct ft_work *w, uint32_t q,
		      const uint32_t *cand_off, const uint32_t *cand_lo,
		      int compute)
{
	uint32_t a = q ? q << 6 : 1, b = (q << 6) + 64;
	if (b > w->nanc)
		b = w->nanc;
	w->blk_top[q] = scan_tops(w, a, b, cand_off, cand_lo, compute);
}

/* Is anc_list index a a better top than b (FAB_NONE: none yet), both
 * with room? As scan_tops. */
static int top_better(const struct ft_work *w, uint32_t a, uint32_t b)
{
	return b == FAB_NONE ||
		top_key_before(w->alvl[a], w->wide[a], w->aord[a],
			       w->alvl[b], w->wide[b], w->aord[b]);
}

/* Per ancestor, the candidates whose lower end it is (rc), and each
 * candidate's upper end (cown): what a chain's bookings reach above its
 * switches. The candidates are the same for every destination of a
 * target (its ancestors, breadth first up from it, and their links down
 * to each other: a function of the tree and the target's switch), so
 * they are collected once per target. */
static void wide_index(struct ft_work *w, const uint32_t *cand_off,
		       const uint32_t *cand_lo)
{
	uint32_t na = w->nanc, nc = cand_off[na];
	if (w->rc_tg == w->anc_list[0] + 1 && w->rc_na == na && w->rc_nc == nc)
		return;
	memset(w->rc_off, 0, (na + 1) * sizeof(uint32_t));
	for (uint32_t i = 0; i < na; i++)
		for (uint32_t c = cand_off[i]; c < cand_off[i + 1]; c++) {
			w->cown[c] = i;
			w->rc_off[cand_lo[c] + 1]++;
		}
	for (uint32_t i = 0; i < na; i++) {
		w->rc_off[i + 1] += w->rc_off[i];
		w->rc_cur[i] = w->rc_off[i];
	}
	for (uint32_t c = 0; c < nc; c++)
		w->rc[w->rc_cur[cand_lo[c]]++] = c;
	/* the ancestors' levels and column orders by anc_list index, read
	 * in sequence by scan_tops */
	for (uint32_t i = 0; i < na; i++) {
		w->alvl[i] = w->t->level[w->anc_list[i]];
		w->aord[i] = w->t->order[w->anc_list[i]];
	}
	w->rc_tg = w->anc_list[0] + 1;
	w->rc_na = na;
	w->rc_nc = nc;
}

/* The candidates' rooms, read once per destination (after the first
 * chain); later chains' bookings are taken off here as well. The loads
 * in their slots (in sequence per switch below); what this destination
 * admitted so far (xtra) is only on the first chain's links, taken off
 * those. Then every widest path, and the best top per 64 ancestors. */
static void wide_init(struct ft_work *w, const uint32_t *cand_off,
		      const uint32_t *cand_lo, const uint32_t *cand_up,
		      struct ft_split *sp)
{
	const struct ftree *t = w->t;
	uint32_t na = w->nanc, nc = cand_off[na];
	for (uint32_t c = 0; c < nc; c++)
		w->crm[c] = (int64_t)t->cap - (int64_t)w->ul[w->ndn + cand_up[c]];
	wide_index(w, cand_off, cand_lo);
	/* The first chain's links, bottom up: link j is the candidate
	 * below chain[j] whose lower end is chain[j - 1]. */
	uint32_t lo = 0;
	for (uint32_t j = 1; j < w->nchain; j++) {
		uint32_t e = sp->link[j], k = w->up_dn[e] - w->ndn, hit = FAB_NONE;
		for (uint32_t r = w->rc_off[lo]; r < w->rc_off[lo + 1]; r++)
			if (cand_up[w->rc[r]] == k)
				hit = w->rc[r];
		if (hit == FAB_NONE)
			break;  /* (not a chain of candidates: none left) */
		w->crm[hit] -= (int64_t)split_extra(w, e);
		lo = w->cown[hit];
	}
	w->wide[0] = INT64_MAX;
	for (uint32_t q = 0; q <= (na - 1) >> 6; q++)
		block_top(w, q, cand_off, cand_lo, 1);
	sp->crm_ok = 1;
	sp->nlast = 0;
}

/* After a chain: its links' rooms went down (bookings), so the widest
 * paths through its switches, and through the ancestors above them, are
 * computed again, lowest first (an ancestor's anc_list index is above
 * its candidates' lower ends': breadth first by level), with the best
 * top of each 64 indices touched. Returns 0 if the order does not hold
 * (then all is computed again). */
static int wide_update(struct ft_work *w, const uint32_t *cand_off,
		       const uint32_t *cand_lo, struct ft_split *sp)
{
	uint32_t na = w->nanc, nq = ((na - 1) >> 6) + 1;
	uint64_t *d = w->wdirty, *blk = d + nq;  /* blk: the blocks touched */
	memset(d, 0, 2 * nq * sizeof(uint64_t));
	for (uint32_t j = 1; j < sp->nlast; j++) {
		uint32_t i = w->cown[sp->lastc[j]];
		d[i >> 6] |= 1ull << (i & 63);
	}
	for (uint32_t q = 0; q < nq; q++) {
		while (d[q]) {
			uint64_t b = d[q] & -d[q];
			uint32_t i = (q << 6) + ones64(b - 1);
			d[q] &= ~b;
			int64_t ow = w->wide[i];
			uint32_t ov = w->wide_via[i];
			wide_one(w, cand_off, cand_lo, i);
			if (ow == w->wide[i] && ov == w->wide_via[i])
				continue;
			blk[q >> 6] |= 1ull << (q & 63);
			if (ow == w->wide[i])
				continue;       /* the ancestors above read wide */
			for (uint32_t r = w->rc_off[i]; r < w->rc_off[i + 1]; r++) {
				uint32_t p = w->cown[w->rc[r]];
				if (p <= i)
					return 0;
				d[p >> 6] |= 1ull << (p & 63);
			}
		}
	}
	for (uint32_t q = 0; q < nq; q++)
		if (blk[q >> 6] >> (q & 63) & 1)
			block_top(w, q, cand_off, cand_lo, 0);
	return 1;
}

/* ftree_tuning.split_ref 1: the reference for the tests: every widest
 * path computed again for each later chain, and the waiting leaves found
 * by looking at every compute-node leaf after the first chain
 * (mark_pending). 0: the widest paths updated (wide_update, counted in
 * ftree_stats.wide_updates) and the waiting leaves kept from the target's
 * good ones (pend_start). */

/* The next chain of a split destination: the path down from an ancestor
 * as high as any to the destination's switch whose tightest link has the
 * most room left (widest path, over the ancestors in level order; ties:
 * column order), so one chain takes as much as one can. 0 if every such
 * path has a full link. */
uint32_t ft_split_chain(struct ft_work *w, const uint32_t *cand_off,
			const uint32_t *cand, const uint32_t *cand_lo,
			const uint32_t *cand_up, struct ft_split *sp,
			uint32_t *chain)
{
	const struct ftree *t = w->t;
	if (!sp->crm_ok) {
		wide_init(w, cand_off, cand_lo, cand_up, sp);
	} else if (!t->tune->split_ref && wide_update(w, cand_off, cand_lo, sp)) {
		t->stats->wide_updates++;
	} else {
		for (uint32_t q = 0; q <= (w->nanc - 1) >> 6; q++)
			block_top(w, q, cand_off, cand_lo, 1);
	}
	uint32_t top = FAB_NONE;        /* anc_list index */
	for (uint32_t q = 0; q <= (w->nanc - 1) >> 6; q++)
		if (w->blk_top[q] != FAB_NONE && top_better(w, w->blk_top[q], top))
			top = w->blk_top[q];
	sp->nlast = 0;
	if (top == FAB_NONE)
		return 0;
	uint32_t x = top;
	uint32_t n = t->level[w->anc_list[top]] - t->level[w->anc_list[0]] + 1;
	for (uint32_t i = n - 1; i > 0; i--) {
		uint32_t c = w->wide_via[x], a = w->anc_list[x];
		const struct ft_link *l = &t->dn[cand[c]];
		chain[i] = a;
		sp->link[i] = l->egress;
		sp->cidx[i] = c;
		sp->lastc[i] = c;
		sp->rem[i] = w->crm[c];
		/* Its switches are ancestors: they now lead down along it. */
		w->nh[a] = l->port;
		w->assigned[a] = w->epoch_dst;
		x = cand_lo[c];
	}
	sp->nlast = n;
	chain[0] = w->anc_list[x];
	return n;
}
