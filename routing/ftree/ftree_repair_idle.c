/* ftree repair: idle up-link entries, in bulk.
 *
 * A switch without compute nodes that no switch sends a LID to carries no
 * flow for it; ftree points such an entry at its first up-link. When that
 * up-link is lost, every such LID is hit (a middle switch that lost its
 * first top link on the 65,536-CA tree: ~64,500 of its 68,703 affected
 * LIDs), and the per-LID repair reads, for each, the entry of every
 * neighbour (a cache miss each) to build R = {that switch}, then weighs
 * every up-link's whole path. Here the neighbours' rows are read once,
 * in order, to find the LIDs no neighbour sends to the switch; for those
 * (all hits of the LID idle) the switch takes its first up-link whose
 * path in the tables is up*-then-down* to the destination.
 *
 * The same holds for a switch LID (no compute-node flow is weighed for
 * it; the per-LID repair would give the switch its least-loaded up-link
 * with no flow of its own) that only switches below send up to the
 * switch: their paths go up into it and stay up*-then-down*.
 *
 * Why this keeps the guarantees: no switch above sends the LID down into
 * the switch, so no path enters it with a down->up turn and the paths
 * that lead into it keep their shape; the tables stay complete and
 * loop-free by the walk (it cannot come back down into the switch); no
 * compute-node flow moves (balance as before); and the new dependencies
 * (into the up-link from below, the up-link then an up or down step of a
 * path without a down->up turn) are of the kinds the checked channel
 * graph always holds (ftree_turns.c): no turn is added, the CDG stays
 * acyclic. The LIDs are
 * left out of the per-LID pass, so their columns change nowhere else; a
 * LID whose walk fails everywhere goes back to the per-LID repair. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ftree_repair.h"

/* Hits at one switch below ftree_tuning.repair_idle_min_hits (256): the
 * per-LID repair is as cheap (the unit test lowers it to run this path
 * on small trees). */
/* Switches handled so at most (each reads its neighbours' rows once). */
#define FT_IDLE_MAX_SW 16

/* From up-link u, does lid's path go up*-then-down* to tg? */
static int walk_updown(const struct ft_repair *rp, uint32_t u, uint32_t tg,
		       uint32_t lid)
{
	const struct ftree *t = rp->t;
	int down = 0;
	for (unsigned hops = 0; hops < 2 * FT_MAX_LEVELS; hops++) {
		if (u == tg)
			return 1;
		uint32_t y = ft_far_sw(t, u, rp_entry(rp, u, lid));
		if (y == FAB_NONE)
			return 0;
		if (t->level[y] > t->level[u]) {
			if (down)
				return 0;
		} else {
			down = 1;
		}
		u = y;
	}
	return 0;
}

/* Is port p of x one of x's up-links in the previous fabric (the tree's
 * levels did not change; the link itself is gone from t)? */
static int was_up(const struct ft_repair *rp, uint32_t x, uint8_t p)
{
	const struct fabric *pf = rp->pf;
	uint32_t px = rp->prev_sw[x];
	const struct fab_node *nd = &pf->nodes[pf->switches[px]];
	if (!p || p > nd->num_ports)
		return 0;
	uint32_t q = pf->ports[nd->first_port + p].peer;
	if (q == FAB_NONE || !fab_is_switch(pf, pf->ports[q].node))
		return 0;
	return rp->prev_level[pf->nodes[pf->ports[q].node].sw_index] > rp->prev_level[px];
}

int rp_idle_split(struct ft_repair *rp)
{
	const struct ftree *t = rp->t;
	uint32_t nl = rp->lft->max_lid + 1, nbulk = 0, bulk_sw[FT_IDLE_MAX_SW];
	rp->nidle = 0;
	if (!rp->nhits)
		return 0;
	/* per LID: 1 = every hit so far idle, 2 = some hit is not */
	uint8_t *st = calloc(nl, 1);
	uint8_t *sent = malloc(nl);
	uint32_t *cnt = calloc(t->nsw ? t->nsw : 1, sizeof(uint32_t));
	struct ft_hit *keep = malloc(rp->nhits * sizeof(*keep));
	int r = -ENOMEM;
	if (!st || !sent || !cnt || !keep)
		goto out;
	for (uint64_t k = 0; k < rp->nhits; k++)
		cnt[rp->hits[k].sw]++;
	for (uint32_t i = 0; i < rp->nlost; i++) {
		uint32_t x = rp->lost[i].sw;
		uint8_t p = rp->lost[i].port;
		/* one lost port at x (bit 30: seen before), hits enough to pay
		 * for the row reads, an up-link, no compute nodes; a few such
		 * switches at most */
		int once = !(cnt[x] & (1u << 30));
		cnt[x] |= 1u << 30;
		if (!once || (cnt[x] & 0x3fffffff) < t->tune->repair_idle_min_hits ||
		    t->weight[x] || !was_up(rp, x, p) || nbulk == FT_IDLE_MAX_SW)
			continue;
		uint32_t again = 0;
		for (uint32_t j = i + 1; j < rp->nlost; j++)
			again += rp->lost[j].sw == x;
		if (again)
			continue;
		bulk_sw[nbulk++] = x;
		/* LIDs a neighbour sends to x (rows read in order): bit 0
		 * from above, bit 1 from below (nb lists up-links first) */
		memset(sent, 0, nl);
		uint32_t nup = t->up_off[x + 1] - t->up_off[x];
		for (uint32_t k = t->nb_off[x]; k < t->nb_off[x + 1]; k++) {
			const uint8_t *row = lft_row(rp->lft, t->nb_peer[k]);
			uint8_t into = t->nb_rport[k];
			uint8_t bit = k - t->nb_off[x] < nup ? 1 : 2;
			for (uint32_t l = 0; l < nl; l++)
				sent[l] |= row[l] == into ? bit : 0;
		}
		for (uint64_t k = 0; k < rp->nhits; k++) {
			const struct ft_hit *h = &rp->hits[k];
			if (h->sw != x)
				continue;
			uint32_t di = rp->dest_of[h->lid];
			/* idle; or a switch LID (no flow is weighed for it)
			 * that only switches below send up to x: their paths
			 * stay up*-then-down*, no turn enters x */
			int ok = di != FAB_NONE && t->dest[di].sw != x &&
				(!sent[h->lid] ||
				 (!t->dest[di].weighted && !(sent[h->lid] & 1)));
			st[h->lid] = ok && !st[h->lid] ? 1 : 2;
		}
	}
	/* A LID also hit at another switch takes the per-LID repair. */
	for (uint64_t k = 0; k < rp->nhits; k++) {
		uint32_t x = rp->hits[k].sw, b = 0;
		while (b < nbulk && bulk_sw[b] != x)
			b++;
		if (b == nbulk)
			st[rp->hits[k].lid] = 2;
	}
	/* Stable split: idle LIDs' hits to the tail, in LID order. */
	uint64_t nk = 0, ni = 0;
	for (uint64_t k = 0; k < rp->nhits; k++)
		if (st[rp->hits[k].lid] != 1)
			keep[nk++] = rp->hits[k];
	for (uint64_t k = 0; k < rp->nhits; k++)
		if (st[rp->hits[k].lid] == 1)
			keep[nk + ni++] = rp->hits[k];
	memcpy(rp->hits, keep, rp->nhits * sizeof(*keep));
	rp->nidle = ni;
	r = 0;
out:
	free(keep);
	free(cnt);
	free(st);
	free(sent);
	return r;
}

int rp_idle_repoint(struct ft_repair *rp, uint64_t from, uint8_t *redo)
{
	const struct ftree *t = rp->t;
	for (uint64_t k = from; k < rp->nhits; k++) {
		const struct ft_hit *h = &rp->hits[k];
		uint32_t x = h->sw, tg = t->dest[rp->dest_of[h->lid]].sw;
		int done = 0;
		for (uint32_t j = t->up_off[x]; j < t->up_off[x + 1] && !done; j++)
			if (walk_updown(rp, t->up[j].peer, tg, h->lid)) {
				rp_set_entry(rp, x, h->lid, t->up[j].port);
				done = 1;
			}
		if (!done)
			redo[h->lid] = 1;
		else
			rp->idle_moved++;
	}
	return 0;
}
