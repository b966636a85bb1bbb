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
#include <string.h>

#include "ftree.h"
#include "ftree_split.h"

#define FT_SPLIT_CHAINS 16

/* Room left on link e below the cap, after this destination's chains. */
static int64_t split_room(const struct ft_work *w, const uint64_t *L,
			  uint32_t e)
{
	return (int64_t)w->t->cap - (int64_t)(ft_ldv(w, L, e) + split_extra(w, e));
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
	(void)L;        /* up-link loads: in ul (ft_ld) */
	for (uint32_t k = t->up_off[x]; k < t->up_off[x + 1]; k++)
		if (w->ul[w->up_rev[k]] < v &&
		    w->good_mark[w->up_peer[k]] == w->epoch_grp)
			return 0;
	return 1;
}

/* Does leaf x wait for a later chain? */
static inline int pend_bit(const struct ft_work *w, uint32_t x)
{
	return w->pend_bits[x >> 6] >> (x & 63) & 1;
}

/* The first chain routed leaf x: it waits no more. */
static inline void pend_clear(struct ft_work *w, uint32_t x)
{
	w->pend_bits[x >> 6] &= ~(1ull << (x & 63));
}

/* The waiting leaves among x's lower ends, as kid_mask bits. */
static uint64_t waiting_bits(const struct ft_work *w, uint32_t x)
{
	uint32_t b = w->kid_base[x], q = b >> 6, r = b & 63;
	uint64_t v = w->pend_bits[q] >> r;
	if (r)
		v |= w->pend_bits[q + 1] << (64 - r);
	return v & w->kid_mask[x];
}

/* Does a leaf that waits for a later chain hang below x (a switch right
 * above the leaves)? Looked at once per destination, when a later chain
 * first reaches x (marking each waiting leaf's parents instead costs a
 * write per up-link, ~31 per leaf at 65,536 CAs). */
static int waits_below(struct ft_work *w, uint32_t x)
{
	const struct ftree *t = w->t;
	uint32_t dst = w->epoch_dst;
	if (w->kid_mask[x])
		/* x's lower ends span fewer than 64 ordinals (a pod's
		 * leaves): one word of the waiting leaves' bitmap answers */
		return waiting_bits(w, x) != 0;
	if (w->pend_memo[x] != dst) {
		uint8_t h = 0;
		for (uint32_t k = t->dn_off[x]; !h && k < t->dn_off[x + 1]; k++)
			h = pend_bit(w, w->dn_peer[k]);
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
static void early_commit(struct ft_work *w, uint32_t x, uint32_t k,
			 uint32_t s)
{
	uint64_t f = w->t->weight[x];
	w->ul[k] += f;
	w->early_over += w->ul[k] > w->t->cap;
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
	w->early_over -= ft_ldv(w, L, e) > t->cap;
	ft_ld_add(w, L, e, f, 1);
	w->flow[t->peer_sw[e]] -= f;    /* its queue entry may stay: empty */
	w->cm_stamp[x] = 0;
}

/* The first chain reaching a switch s right above the leaves (not on
 * the chain: a pod's column switch, with room already checked) admits
 * its leaves one by one, in link order, each while its flow fits on its
 * own up-link, on s's up-link (room) and on the chain's links (m). When
 * all fit (the usual case: the loads are even), they are admitted in
 * bulk: the room tests taken as sums (each leaf's flow is positive, so
 * the last prefix is the tightest), the bookings once for the sum. The
 * same choices and loads as one by one, at a few operations per leaf
 * instead of the whole test: ~2,000 leaves per destination. Returns 0
 * (nothing done) when some leaf would not fit or is not a plain
 * compute-node leaf still to route. */
static int leaves_bulk(struct ft_work *w, struct ft_split *sp, uint32_t i,
		       uint32_t s, int64_t m)
{
	const struct ftree *t = w->t;
	uint32_t grp = w->epoch_grp, dst = w->epoch_dst;
	uint32_t a = t->dn_off[s], b = t->dn_off[s + 1], r = w->br_root[s];
	uint64_t cap = t->cap, sum = 0;
	int bad = 0;
	for (uint32_t k = a; k < b; k++) {
		uint32_t x = w->dn_peer[k];
		uint64_t f = t->weight[x];
		bad |= (w->anc_mark[x] == grp) | (w->assigned[x] == dst) |
			(w->ul[k] + f > cap) | !f;
		sum += f;
	}
	if (bad || a == b || (int64_t)sum > m ||
	    (uint64_t)w->ul[w->br_up[r]] + w->br_flow[r] + sum > cap)
		return 0;
	/* s's lower ends within 64 ordinals (kid_mask: all of them): their
	 * waiting bits cleared at once, not one by one */
	uint64_t km = w->kid_mask[s];
	if (km) {
		uint32_t b0 = w->kid_base[s], q = b0 >> 6, sh = b0 & 63;
		w->pend_bits[q] &= ~(km << sh);
		if (sh)
			w->pend_bits[q + 1] &= ~(km >> (64 - sh));
	}
	for (uint32_t k = a; k < b; k++) {
		uint32_t x = w->dn_peer[k];
		w->ul[k] += t->weight[x];      /* early commit: within cap */
		w->assigned[x] = dst;
		if (!km)
			pend_clear(w, x);
		w->cm_stamp[x] = dst;
		w->nh[x] = w->dn_rport[k];
	}
	/* (br_root of a leaf is never read: leaves are not queued) */
	split_book(w, sp, i, sum);
	w->br_flow[r] += (uint32_t)sum;
	sp->admitted += sum;
	if (!w->flow[s] && w->anc_mark[s] != grp)
		w->cq[w->ncq++] = s;
	w->flow[s] += sum;
	return 1;
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
		/* the least room on the chain's links below chain[i]: each
		 * booking takes the same flow off all of them, so it goes
		 * down by that flow (kept, not scanned again per switch) */
		int64_t mi = split ? split_min(sp, i) : 0;
		w->queue[tail++] = chain[i];
		while (head < tail) {
			uint32_t s = w->queue[head++], end = t->dn_off[s + 1];
			/* A later chain finds only the leaves still waiting
			 * (pend_bits) below a switch right above
			 * the leaves; the rest were routed by an earlier
			 * chain. Same order, reading only their ordinals. */
			int waiting_only = sp->extra && w->all_weighted &&
				t->level[s] == 1;
			if (split && !sp->extra && w->all_weighted &&
			    s != chain[i] && t->level[s] == 1 &&
			    leaves_bulk(w, sp, i, s, mi)) {
				mi = split_min(sp, i);
				continue;
			}
			/* Lower ends in ascending ordinals, once each: the
			 * waiting ones' bits give their links in order. */
			int by_bits = waiting_only && w->kid_seq[s];
			uint64_t wb = by_bits ? waiting_bits(w, s) : 0;
			/* dense: the lower ends are kid_base + 0, 1, ...: a
			 * bit's position is its link's offset too */
			uint64_t km = by_bits ? w->kid_mask[s] : 0;
			int dense = !(km & (km + 1));
			for (uint32_t k = t->dn_off[s]; k < end; k++) {
				uint32_t x;
				if (by_bits) {
					if (!wb)
						break;
					/* (the bit is x's ordinal - kid_base:
					 * no read of dn_peer) */
					uint32_t b = (uint32_t)__builtin_ctzll(wb);
					k = t->dn_off[s] + (dense ? b :
						ones64(km & ((wb & -wb) - 1)));
					x = w->kid_base[s] + b;
					wb &= wb - 1;
				} else {
					x = w->dn_peer[k];
					if (waiting_only && !pend_bit(w, x))
						continue;
				}
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
					const struct ft_link *l = &t->dn[k];
					uint32_t cur = t->fport[x] + w->nh[x];
					/* compare the loads without x's own flow */
					early_undo(w, x, L);
					uint32_t cp = t->peer_sw[cur];
					if ((cp == s || (cp != FAB_NONE &&
							 w->anc_mark[cp] != grp &&
							 t->level[cp] == t->level[s])) &&
					    ft_ldv(w, L, l->rev_egress) <
					    ft_ldv(w, L, cur))
						w->nh[x] = l->rport;
					continue;
				}
				if (split) {
					uint64_t f = t->weight[x];
					int64_t m = mi;
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
					/* x's up-link here: slot k of ul */
					uint64_t v = w->ul[k];
					if (f &&
					    ((int64_t)f > m || v + f > cap ||
					     (r != x && (uint64_t)w->ul[w->br_up[r]] +
					      w->br_flow[r] + f > cap) ||
					     (sp->extra && w->tight[x] &&
					      !least_up(w, x, v, L)))) {
						sp->more = 1;
						continue;
					}
					w->br_root[x] = r;
					if (s == chain[i])
						w->br_up[x] = k;
					if (f) {
						split_book(w, sp, i, f);
						mi -= (int64_t)f;
						w->br_flow[r] += (uint32_t)f;
					}
				}
				sp->admitted += t->weight[x];
				w->assigned[x] = dst;
				if (sp->on && !sp->extra)
					pend_clear(w, x);
				uint8_t rp = w->dn_rport[k];
				w->nh[x] = rp;
				if (sp->on && !t->level[x] && t->weight[x])
					early_commit(w, x, k, s);
				if (w->prev) {
					uint8_t pp = ft_prev_port(w, x, lid);
					if (pp != rp && ft_good_up_port(w, x, pp))
						w->nh[x] = pp;
				}
				/* (a leaf has nothing below it to visit) */
				if (t->level[x])
					w->queue[tail++] = x;
			}
		}
	}
}

/* The reference (ftree_tuning.split_ref): the compute-node leaves the first chain
 * did not route, looked up one by one. */
static void mark_pending(struct ft_work *w)
{
	const struct ftree *t = w->t;
	uint32_t grp = w->epoch_grp, dst = w->epoch_dst;
	memset(w->pend_bits, 0, ((t->nsw >> 6) + 2) * sizeof(uint64_t));
	for (uint32_t i = 0; i < w->nweighted; i++) {
		uint32_t x = w->weighted[i];
		if (!t->level[x] && w->assigned[x] != dst && w->good_mark[x] == grp)
			w->pend_bits[x >> 6] |= 1ull << (x & 63);
	}
}

/* The waiting leaves (pend_bits) start as the target's good
 * compute-node leaves but its own; the first chain clears those it
 * routes (pend_clear), so what is left after it waits for a later chain.
 * The good leaves are the same for every destination of a target (its
 * good set: the switches with an up-path to its ancestors), so they are
 * collected once per target, not looked up per destination (2,048
 * leaves at 65,536 CAs). */
static void pend_start(struct ft_work *w)
{
	const struct ftree *t = w->t;
	uint32_t grp = w->epoch_grp, tg = w->anc_list[0];
	size_t nw = (t->nsw >> 6) + 2;
	/* (keyed by the target alone: with the setups' ring each context
	 * counts its own epochs, so epoch_grp does not name a setup) */
	if (w->gl_tg != tg + 1) {
		memset(w->gl_bits, 0, nw * sizeof(uint64_t));
		for (uint32_t i = 0; i < w->nweighted; i++) {
			uint32_t x = w->weighted[i];
			if (!t->level[x] && w->good_mark[x] == grp)
				w->gl_bits[x >> 6] |= 1ull << (x & 63);
		}
		w->gl_tg = tg + 1;
	}
	memcpy(w->pend_bits, w->gl_bits, nw * sizeof(uint64_t));
	pend_clear(w, tg);
}

void ft_below_chains(struct ft_work *w, const uint32_t *cand_off,
		     const uint32_t *cand, const uint32_t *cand_lo,
		     const uint32_t *cand_up, uint64_t good_weight, uint32_t lid,
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
	if (sp.on && !w->t->tune->split_ref)
		pend_start(w);
	below_chain(w, &sp, w->chain, w->nchain, lid, L);
	uint32_t chain[FT_MAX_LEVELS + 1];
	/* Another chain while flow was left out, or some sources were not
	 * below the chain at all (a leaf that lost its link to the chain's
	 * column, a pod whose column switch lost its link to the top). */
	for (unsigned c = 1; c < FT_SPLIT_CHAINS && sp.on &&
	     (sp.more || sp.admitted < good_weight); c++) {
		uint32_t n = ft_split_chain(w, cand_off, cand, cand_lo, cand_up, &sp,
					 chain);
		if (!n)
			break;
		uint64_t before = sp.admitted;
		sp.more = 0;
		if (!sp.extra && w->t->tune->split_ref)
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
	size_t n = t->nsw, ndn = t->dn_off[t->nsw];
	/* The pass below a chain reads each down-link's lower end and port
	 * there from these (not the 16-byte ft_link): on every tree. */
	w->dn_peer = malloc((ndn + 1) * sizeof(uint32_t));
	w->dn_rport = malloc(ndn + 1);
	if (!w->dn_peer || !w->dn_rport)
		return -ENOMEM;
	for (uint32_t k = 0; k < ndn; k++) {
		w->dn_peer[k] = t->dn[k].peer;
		w->dn_rport[k] = t->dn[k].rport;
	}
	/* (loads in 32 bits: see upl; never off for that with 16-bit LIDs) */
	w->split_on = t->cap != UINT64_MAX && !degrees_even(t) &&
		t->total_weight <= t->tune->ul32_max_weight;
	if (!w->split_on)
		return 0;
	w->ndn = (uint32_t)ndn;
	w->ul_stride = (uint32_t)ndn + t->up_off[t->nsw];
	w->upl = calloc((size_t)(w->planes ? w->planes : 1) * w->ul_stride + 1,
			sizeof(uint32_t));
	w->up_dn = malloc((w->num_ports + 1) * sizeof(uint32_t));
	if (!w->upl || !w->up_dn)
		return -ENOMEM;
	w->ul = w->upl;
	for (uint32_t e = 0; e <= w->num_ports; e++)
		w->up_dn[e] = UINT32_MAX;
	for (uint32_t k = 0; k < ndn; k++)
		w->up_dn[t->dn[k].rev_egress] = k;
	for (uint32_t k = 0; k < t->up_off[t->nsw]; k++)
		w->up_dn[t->up[k].rev_egress] = (uint32_t)ndn + k;
	w->br_root = calloc(n, sizeof(uint32_t));
	w->br_up = calloc(n, sizeof(uint32_t));
	w->br_flow = calloc(n, sizeof(uint32_t));
	w->wide = calloc(n, sizeof(int64_t));
	w->wide_via = calloc(n, sizeof(uint32_t));
	w->gl_bits = calloc((n >> 6) + 2, sizeof(uint64_t));
	w->gl_tg = 0;
	w->crm = calloc(t->dn_off[t->nsw] + 1, sizeof(int64_t));
	w->cown = calloc(t->dn_off[t->nsw] + 1, sizeof(uint32_t));
	w->rc = calloc(t->dn_off[t->nsw] + 1, sizeof(uint32_t));
	w->rc_off = calloc(n + 1, sizeof(uint32_t));
	w->rc_cur = calloc(n + 1, sizeof(uint32_t));
	w->blk_top = calloc((n >> 6) + 2, sizeof(uint32_t));
	w->alvl = calloc(n + 1, 1);
	w->aord = calloc(n + 1, sizeof(uint32_t));
	w->wdirty = calloc(2 * ((n >> 6) + 2), sizeof(uint64_t));
	if (!w->cown || !w->rc || !w->rc_off || !w->rc_cur || !w->blk_top ||
	    !w->wdirty || !w->alvl || !w->aord)
		return -ENOMEM;
	w->rc_tg = 0;
	w->tight = calloc(n, 1);
	w->xtra = calloc(w->num_ports + 1, sizeof(uint64_t));
	w->xtra_stamp = calloc(w->num_ports + 1, sizeof(uint32_t));
	if (!w->br_root || !w->br_up || !w->br_flow || !w->wide ||
	    !w->wide_via || !w->gl_bits || !w->crm || !w->tight ||
	    !w->xtra || !w->xtra_stamp)
		return -ENOMEM;
	/* Every leaf holds compute nodes: no leaf but the waiting ones is
	 * left for a later chain, which then visits those only. */
	w->all_weighted = 1;
	for (uint32_t i = t->lvl_off[0]; i < t->lvl_off[1]; i++)
		w->all_weighted &= t->weight[t->by_level[i]] != 0;
	w->pend_memo = calloc(n, sizeof(uint32_t));
	w->cm_stamp = calloc(n, sizeof(uint32_t));
	w->cq = calloc(n + 1, sizeof(uint32_t));
	w->pend_has = calloc(n, 1);
	w->pend_bits = calloc((n >> 6) + 2, sizeof(uint64_t));
	w->kid_base = calloc(n, sizeof(uint32_t));
	w->kid_mask = calloc(n, sizeof(uint64_t));
	w->kid_seq = calloc(n, 1);
	if (!w->pend_memo || !w->pend_has || !w->cm_stamp || !w->cq ||
	    !w->pend_bits || !w->kid_base || !w->kid_mask || !w->kid_seq)
		return -ENOMEM;
	for (uint32_t x = 0; x < t->nsw; x++) {
		uint32_t lo = UINT32_MAX, hi = 0;
		for (uint32_t k = t->dn_off[x]; k < t->dn_off[x + 1]; k++) {
			lo = w->dn_peer[k] < lo ? w->dn_peer[k] : lo;
			hi = w->dn_peer[k] > hi ? w->dn_peer[k] : hi;
		}
		if (lo == UINT32_MAX || hi - lo >= 64)
			continue;       /* (kid_mask 0: scan x's links) */
		w->kid_base[x] = lo;
		w->kid_seq[x] = 1;
		for (uint32_t k = t->dn_off[x]; k < t->dn_off[x + 1]; k++) {
			w->kid_mask[x] |= 1ull << (w->dn_peer[k] - lo);
			if (k > t->dn_off[x] && w->dn_peer[k] <= w->dn_peer[k - 1])
				w->kid_seq[x] = 0;
		}
	}
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
	free(w->gl_bits);
	w->gl_bits = NULL;
	free(w->crm);
	free(w->cown);
	free(w->rc);
	free(w->rc_off);
	free(w->rc_cur);
	free(w->blk_top);
	free(w->alvl);
	free(w->aord);
	w->alvl = NULL;
	w->aord = NULL;
	free(w->wdirty);
	w->cown = w->rc = w->rc_off = w->rc_cur = w->blk_top = NULL;
	w->wdirty = NULL;
	free(w->tight);
	free(w->xtra);
	free(w->xtra_stamp);
	free(w->cm_stamp);
	free(w->cq);
	w->cm_stamp = w->cq = NULL;
	free(w->dn_peer);
	free(w->dn_rport);
	free(w->upl);
	free(w->up_dn);
	w->upl = w->ul = NULL;
	w->up_dn = NULL;
	w->dn_rport = NULL;
	free(w->pend_memo);
	free(w->pend_has);
	free(w->pend_bits);
	free(w->kid_base);
	free(w->kid_mask);
	free(w->kid_seq);
	w->kid_seq = NULL;
	w->pend_bits = w->kid_mask = NULL;
	w->kid_base = NULL;
	w->dn_peer = w->pend_memo = NULL;
	w->pend_has = NULL;
	w->br_root = w->br_up = w->br_flow = w->wide_via = NULL;
	w->xtra_stamp = NULL;
	w->wide = w->crm = NULL;
	w->tight = NULL;
	w->xtra = NULL;
}
