/* ftree, step 3b of ftree_route.c on degraded trees: split chains.
 *
 * One chain carries all of a destination's flow, but where the
 * destination's leaf has lost up-links (or a chain switch lost
 * down-links) its links cannot take it all within the cap: with u of a
 * leaf's 32 up-links left, 32 destinations share u down-links. So the
 * flow is admitted onto the chain in bulk, one switch below a chain
 * switch at a time (with everything below it: a source pod's column
 * switch and its leaves), while the chain's links below have room; what
 * does not fit, and the sources not below the chain at all (a leaf that
 * lost its link to the chain's column, a pod whose column switch lost
 * its link to the top), wait for the next chain: the widest path down
 * from a top switch, until everything is placed or no path has room.
 * The rest take their least-loaded up-link, and ft_spill moves what
 * still crosses the cap. Moving whole pods at once replaces most of the
 * spill rounds' one-leaf-at-a-time moves (65,536 CAs, 5% removed: 18.4 M
 * source leaves moved -> 0.42 M). Trees whose levels have even degrees
 * (intact ones, directors) keep the single chain: d-mod-k untouched. */
#include <errno.h>
#include <stdlib.h>

#include "ftree.h"

#define FT_SPLIT_CHAINS 16

struct ft_split {
	int on;                 /* admit by room (weighted, degraded, no prev) */
	uint32_t link[FT_MAX_LEVELS + 1];       /* chain[i] -> chain[i - 1] */
	int64_t rem[FT_MAX_LEVELS + 1];         /* room left on link[i] */
	uint32_t cidx[FT_MAX_LEVELS + 1];       /* link[i]'s candidate index
						 * (later chains), or UINT32_MAX */
	int crm_ok;             /* w->crm holds this destination's rooms */
	int extra;              /* not the destination's first chain */
	int more;               /* flow left out, or a chain link filled up */
	uint64_t admitted;      /* compute-node flow routed by the chains */
};

/* What this destination's chains admitted onto link e so far. */
static uint64_t split_extra(const struct ft_work *w, uint32_t e)
{
	return w->xtra_stamp[e] == w->epoch_dst ? w->xtra[e] : 0;
}

/* Room left on link e below the cap, after this destination's chains. */
static int64_t split_room(const struct ft_work *w, const uint64_t *L,
			  uint32_t e)
{
	return (int64_t)w->t->cap - (int64_t)(L[e] + split_extra(w, e));
}

static void split_book(struct ft_work *w, struct ft_split *sp, uint32_t i,
		       uint64_t f)
{
	for (uint32_t j = 1; j <= i; j++) {
		uint32_t e = sp->link[j];
		sp->rem[j] -= (int64_t)f;
		if (sp->cidx[j] != UINT32_MAX)
			w->crm[sp->cidx[j]] -= (int64_t)f;
		if (w->xtra_stamp[e] != w->epoch_dst) {
			w->xtra_stamp[e] = w->epoch_dst;
			w->xtra[e] = 0;
		}
		w->xtra[e] += f;
	}
}

static int64_t split_min(const struct ft_split *sp, uint32_t i)
{
	int64_t m = INT64_MAX;
	for (uint32_t j = 1; j <= i; j++)
		if (sp->rem[j] < m)
			m = sp->rem[j];
	return m;
}

/* Is load v no more than the least load on x's up-links to good switches?
 * A tight source (its flow fills its up-links to within a unit of the
 * cap: the leaf that sets the cap) joins a later chain only by an up-link
 * as good as any; it has no slack to spend on an uneven spread. */
static int least_up(const struct ft_work *w, uint32_t x, uint64_t v,
		    const uint64_t *L)
{
	const struct ftree *t = w->t;
	for (uint32_t k = t->up_off[x]; k < t->up_off[x + 1]; k++)
		if (L[t->up[k].egress] < v &&
		    w->good_mark[t->up[k].peer] == w->epoch_grp)
			return 0;
	return 1;
}

/* Does a leaf that waits for a later chain hang below x (a switch right
 * above the leaves)? Looked at once per destination, when a later chain
 * first reaches x (marking each waiting leaf's parents instead costs a
 * write per up-link, ~31 per leaf at 65,536 CAs). */
static int waits_below(struct ft_work *w, uint32_t x)
{
	const struct ftree *t = w->t;
	uint32_t dst = w->epoch_dst;
	if (w->pend_memo[x] != dst) {
		uint8_t h = 0;
		for (uint32_t k = t->dn_off[x]; !h && k < t->dn_off[x + 1]; k++)
			h = w->pend_stamp[w->dn_peer[k]] == dst;
		w->pend_memo[x] = dst;
		w->pend_has[x] = h;
	}
	return w->pend_has[x];
}

/* A leaf a chain routes commits its flow at once (the load of its
 * up-link, and the flow it brings to its parent), while that link's load
 * is at hand, instead of in ft_spill's commit pass (ftree_degraded.c),
 * which skips it (cm_stamp). Nothing this destination's chains read
 * later depends on it: they test the up-links of leaves not yet routed,
 * and the links above the leaves. The loads end the same. */
static void early_commit(struct ft_work *w, uint32_t x,
			 const struct ft_link *l, uint32_t s, uint64_t *L)
{
	uint64_t f = w->t->weight[x];
	L[l->rev_egress] += f;
	w->early_over += L[l->rev_egress] > w->t->cap;
	if (!w->flow[s] && w->anc_mark[s] != w->epoch_grp)
		w->cq[w->ncq++] = s;
	w->flow[s] += f;
	w->cm_stamp[x] = w->epoch_dst;
}

/* Take x's early commit back (it is about to compare its up-links'
 * loads, and may change its entry): ft_spill's pass commits it. */
static void early_undo(struct ft_work *w, uint32_t x, uint64_t *L)
{
	const struct ftree *t = w->t;
	if (!w->cm_stamp || w->cm_stamp[x] != w->epoch_dst)
		return;         /* (no splitting on this tree, or not committed) */
	uint32_t e = t->fport[x] + w->nh[x];
	uint64_t f = t->weight[x];
	w->early_over -= L[e] > t->cap;
	L[e] -= f;
	w->flow[t->peer_sw[e]] -= f;    /* its queue entry may stay: empty */
	w->cm_stamp[x] = 0;
}

/* Breadth first down from each switch of chain[0..nchain), lowest first:
 * the switches reached go up toward it. Splitting, a compute-node switch
 * x below chain[i] joins only if its flow fits on the chain's links below
 * chain[i], on its own up-link and on the up-link of the switch right
 * below chain[i] it goes through (br_root, whose flow so far is
 * br_flow). */
static void below_chain(struct ft_work *w, struct ft_split *sp,
			const uint32_t *chain, uint32_t nchain, uint32_t lid,
			uint64_t *L)
{
	const struct ftree *t = w->t;
	uint32_t grp = w->epoch_grp, dst = w->epoch_dst;
	uint64_t cap = t->cap;
	for (uint32_t i = 0; i < nchain; i++) {
		uint32_t head = 0, tail = 0;
		int split = sp->on && i > 0;
		w->queue[tail++] = chain[i];
		while (head < tail) {
			uint32_t s = w->queue[head++], end = t->dn_off[s + 1];
			/* A later chain finds only the leaves still waiting
			 * (marked by mark_pending) below a switch right above
			 * the leaves; the rest were routed by an earlier
			 * chain. Same order, reading only their ordinals. */
			int waiting_only = sp->extra && w->all_weighted &&
				t->level[s] == 1;
			for (uint32_t k = t->dn_off[s]; k < end; k++) {
				if (waiting_only && w->pend_stamp[w->dn_peer[k]] != dst)
					continue;
				const struct ft_link *l = &t->dn[k];
				uint32_t x = l->peer;
				if (w->anc_mark[x] == grp)
					continue;
				if (w->assigned[x] == dst) {
					/* Another link up to this BFS level: a
					 * parallel one to the same parent, or (a
					 * leaf under several line ASICs of a
					 * director) one to a sibling parent.
					 * Take the less-loaded one. (Not in a
					 * later chain: x is on an earlier one.) */
					if (w->prev || sp->extra)
						continue;
					uint32_t cur = t->fport[x] + w->nh[x];
					/* compare the loads without x's own flow */
					early_undo(w, x, L);
					uint32_t cp = t->peer_sw[cur];
					if ((cp == s || (cp != FAB_NONE &&
							 w->anc_mark[cp] != grp &&
							 t->level[cp] == t->level[s])) &&
					    L[l->rev_egress] < L[cur])
						w->nh[x] = l->rport;
					continue;
				}
				if (split) {
					uint64_t f = t->weight[x];
					int64_t m = split_min(sp, i);
					uint32_t r = s == chain[i] ? x : w->br_root[s];
					if (s == chain[i]) {
						if (m <= 0) {
							sp->more = 1;
							break;  /* the chain is full */
						}
						/* A later chain takes a switch right
						 * above the leaves only if a leaf below
						 * it is still waiting (most are routed:
						 * the walk down would find nothing). */
						if (sp->extra && !f && t->level[x] == 1 &&
						    !waits_below(w, x))
							continue;
						w->br_flow[x] = 0;
					}
					uint64_t v = L[l->rev_egress];
					if (f &&
					    ((int64_t)f > m || v + f > cap ||
					     (r != x && L[w->br_up[r]] +
					      w->br_flow[r] + f > cap) ||
					     (sp->extra && w->tight[x] &&
					      !least_up(w, x, v, L)))) {
						sp->more = 1;
						continue;
					}
					w->br_root[x] = r;
					if (s == chain[i])
						w->br_up[x] = l->rev_egress;
					if (f) {
						split_book(w, sp, i, f);
						w->br_flow[r] += (uint32_t)f;
					}
				}
				sp->admitted += t->weight[x];
				w->assigned[x] = dst;
				w->nh[x] = l->rport;
				if (sp->on && !t->level[x] && t->weight[x])
					early_commit(w, x, l, s, L);
				if (w->prev) {
					uint8_t pp = ft_prev_port(w, x, lid);
					if (pp != l->rport && ft_good_up_port(w, x, pp))
						w->nh[x] = pp;
				}
				w->queue[tail++] = x;
			}
		}
	}
}

/* Mark the compute-node leaves the first chain did not route
 * (pend_stamp): they wait for a later chain. */
static void mark_pending(struct ft_work *w)
{
	const struct ftree *t = w->t;
	uint32_t grp = w->epoch_grp, dst = w->epoch_dst;
	for (uint32_t i = 0; i < w->nweighted; i++) {
		uint32_t x = w->weighted[i];
		if (t->level[x] || w->assigned[x] == dst || w->good_mark[x] != grp)
			continue;
		w->pend_stamp[x] = dst;
	}
}

/* The next chain of a split destination: the path down from an ancestor
 * as high as any to the destination's switch whose tightest link has the
 * most room left (widest path, over the ancestors in level order; ties:
 * column order), so one chain takes as much as one can. 0 if every such
 * path has a full link. */
static uint32_t split_chain(struct ft_work *w, const uint32_t *cand_off,
			    const uint32_t *cand, const uint32_t *cand_lo,
			    struct ft_split *sp, const uint64_t *L,
			    uint32_t *chain)
{
	const struct ftree *t = w->t;
	uint32_t top = FAB_NONE;        /* anc_list index */
	/* The candidates' rooms, read once per destination (after the first
	 * chain); later chains' bookings are taken off here as well. */
	if (!sp->crm_ok) {
		for (uint32_t c = 0; c < cand_off[w->nanc]; c++)
			w->crm[c] = split_room(w, L, t->dn[cand[c]].egress);
		sp->crm_ok = 1;
	}
	/* wide and wide_via by anc_list index here: the candidates' lower
	 * ends are read in sequence, not looked up per switch. */
	int64_t *wide = w->wide;
	wide[0] = INT64_MAX;
	for (uint32_t i = 1; i < w->nanc; i++) {
		uint32_t via = FAB_NONE;
		int64_t best = INT64_MIN;
		for (uint32_t c = cand_off[i]; c < cand_off[i + 1]; c++) {
			int64_t r = w->crm[c], v = wide[cand_lo[c]];
			if (v < r)
				r = v;
			if (via == FAB_NONE || r > best) {
				best = r;
				via = c;
			}
		}
		wide[i] = best;
		w->wide_via[i] = via;
		if (via == FAB_NONE || best <= 0)
			continue;
		uint32_t a = w->anc_list[i], b = top == FAB_NONE ? 0 : w->anc_list[top];
		if (top == FAB_NONE || t->level[a] > t->level[b] ||
		    (t->level[a] == t->level[b] &&
		     (best > wide[top] || (best == wide[top] &&
					   t->order[a] < t->order[b]))))
			top = i;
	}
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
		sp->rem[i] = w->crm[c];
		/* Its switches are ancestors: they now lead down along it. */
		w->nh[a] = l->port;
		w->assigned[a] = w->epoch_dst;
		x = cand_lo[c];
	}
	chain[0] = w->anc_list[x];
	return n;
}

void ft_below_chains(struct ft_work *w, const uint32_t *cand_off,
		     const uint32_t *cand, const uint32_t *cand_lo,
		     uint64_t good_weight, uint32_t lid,
		     uint64_t *L, int weighted)
{
	const struct ftree *t = w->t;
	struct ft_split sp;
	sp.on = weighted && w->split_on && !w->prev;
	sp.more = 0;
	sp.extra = 0;
	sp.admitted = 0;
	sp.crm_ok = 0;
	w->ncq = 0;
	w->early_over = 0;
	for (uint32_t i = 1; sp.on && i < w->nchain; i++) {
		sp.cidx[i] = UINT32_MAX;
		sp.link[i] = t->fport[w->chain[i]] + w->chain_port[i];
		sp.rem[i] = split_room(w, L, sp.link[i]);
	}
	below_chain(w, &sp, w->chain, w->nchain, lid, L);
	uint32_t chain[FT_MAX_LEVELS + 1];
	/* Another chain while flow was left out, or some sources were not
	 * below the chain at all (a leaf that lost its link to the chain's
	 * column, a pod whose column switch lost its link to the top). */
	for (unsigned c = 1; c < FT_SPLIT_CHAINS && sp.on &&
	     (sp.more || sp.admitted < good_weight); c++) {
		uint32_t n = split_chain(w, cand_off, cand, cand_lo, &sp, L, chain);
		if (!n)
			break;
		uint64_t before = sp.admitted;
		sp.more = 0;
		if (!sp.extra)
			mark_pending(w);
		sp.extra = 1;
		below_chain(w, &sp, chain, n, lid, L);
		if (sp.admitted == before)
			break;
	}
}

/* Do all switches of each level have as many up-links, and as many
 * down-links, as each other? Then the tree is intact (or evenly built)
 * and the single chain per destination stays: splitting is for trees
 * that lost links or switches. */
static int degrees_even(const struct ftree *t)
{
	for (uint32_t l = 0; l <= t->height; l++) {
		uint32_t a = t->lvl_off[l], b = t->lvl_off[l + 1];
		for (uint32_t i = a + 1; i < b; i++) {
			uint32_t x = t->by_level[i], y = t->by_level[a];
			if (t->up_off[x + 1] - t->up_off[x] != t->up_off[y + 1] - t->up_off[y] ||
			    t->dn_off[x + 1] - t->dn_off[x] != t->dn_off[y + 1] - t->dn_off[y])
				return 0;
		}
	}
	return 1;
}

int ft_split_init(struct ft_work *w)
{
	const struct ftree *t = w->t;
	size_t n = t->nsw;
	w->split_on = t->cap != UINT64_MAX && !degrees_even(t);
	if (!w->split_on)
		return 0;
	w->br_root = calloc(n, sizeof(uint32_t));
	w->br_up = calloc(n, sizeof(uint32_t));
	w->br_flow = calloc(n, sizeof(uint32_t));
	w->wide = calloc(n, sizeof(int64_t));
	w->wide_via = calloc(n, sizeof(uint32_t));
	w->pend_stamp = calloc(n, sizeof(uint32_t));
	w->crm = calloc(t->dn_off[t->nsw] + 1, sizeof(int64_t));
	w->tight = calloc(n, 1);
	w->xtra = calloc(w->num_ports + 1, sizeof(uint64_t));
	w->xtra_stamp = calloc(w->num_ports + 1, sizeof(uint32_t));
	if (!w->br_root || !w->br_up || !w->br_flow || !w->wide ||
	    !w->wide_via || !w->pend_stamp || !w->crm || !w->tight ||
	    !w->xtra || !w->xtra_stamp)
		return -ENOMEM;
	/* Every leaf holds compute nodes: no leaf but the waiting ones is
	 * left for a later chain, which then visits those only. */
	w->all_weighted = 1;
	for (uint32_t i = t->lvl_off[0]; i < t->lvl_off[1]; i++)
		w->all_weighted &= t->weight[t->by_level[i]] != 0;
	w->dn_peer = malloc((t->dn_off[t->nsw] + 1) * sizeof(uint32_t));
	w->pend_memo = calloc(n, sizeof(uint32_t));
	w->cm_stamp = calloc(n, sizeof(uint32_t));
	w->cq = calloc(n + 1, sizeof(uint32_t));
	w->pend_has = calloc(n, 1);
	if (!w->dn_peer || !w->pend_memo || !w->pend_has || !w->cm_stamp ||
	    !w->cq)
		return -ENOMEM;
	for (uint32_t k = 0; k < t->dn_off[t->nsw]; k++)
		w->dn_peer[k] = t->dn[k].peer;
	for (uint32_t x = 0; x < t->nsw; x++) {
		uint64_t u = t->up_off[x + 1] - t->up_off[x], f = t->weight[x];
		uint64_t need = f * (t->total_weight - f);
		w->tight[x] = f && u && u * t->cap < need + u * f;
	}
	return 0;
}

void ft_split_free(struct ft_work *w)
{
	free(w->br_root);
	free(w->br_up);
	free(w->br_flow);
	free(w->wide);
	free(w->wide_via);
	free(w->pend_stamp);
	free(w->crm);
	free(w->tight);
	free(w->xtra);
	free(w->xtra_stamp);
	free(w->cm_stamp);
	free(w->cq);
	w->cm_stamp = w->cq = NULL;
	free(w->dn_peer);
	free(w->pend_memo);
	free(w->pend_has);
	w->dn_peer = w->pend_memo = NULL;
	w->pend_has = NULL;
	w->br_root = w->br_up = w->br_flow = w->wide_via = NULL;
	w->pend_stamp = w->xtra_stamp = NULL;
	w->wide = w->crm = NULL;
	w->tight = NULL;
	w->xtra = NULL;
}
