/* ftree repair, part 3: the down->up turns the previous tables take, so
 * that the detours the repair adds are checked against them as
 * ftree_detour.c checks its own (ftree_turns.c).
 *
 * A turn at y is a LID for which an upper neighbour u sends down to y and
 * y sends up. ftree writes such entries only on detours, i.e. for
 * destinations some switch has no up-then-down path to. That cannot
 * happen for a destination switch T that every top switch (one without
 * up-links) reaches going down: then every switch goes up to a top and
 * down to T. So only the LIDs of the other destination switches are
 * scanned (on a pod tree: the LIDs of switches above the leaves, and of
 * a leaf that lost a link), over every row. Having fewer links in this
 * fabric only makes more destinations fail that test, never fewer, so
 * every turn the previous tables take on surviving links is found. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "../core/log.h"
#include "ftree_repair.h"

/* cnt[x] = top switches that reach x going down. */
static uint32_t count_tops_above(const struct ftree *t, uint32_t *cnt)
{
	uint32_t *seen = calloc(t->nsw, sizeof(uint32_t));
	uint32_t *stack = malloc(t->nsw * sizeof(uint32_t));
	uint32_t ntop = 0;
	if (!seen || !stack) {
		free(seen);
		free(stack);
		return UINT32_MAX;
	}
	for (uint32_t z = 0; z < t->nsw; z++) {
		if (t->up_off[z] != t->up_off[z + 1])
			continue;
		ntop++;
		uint32_t top = 0;
		seen[z] = ntop;
		stack[top++] = z;
		while (top) {
			uint32_t x = stack[--top];
			cnt[x]++;
			for (uint32_t k = t->dn_off[x]; k < t->dn_off[x + 1]; k++) {
				uint32_t y = t->dn[k].peer;
				if (seen[y] != ntop) {
					seen[y] = ntop;
					stack[top++] = y;
				}
			}
		}
	}
	free(seen);
	free(stack);
	return ntop;
}

int ft_repair_turns(struct ft_repair *rp, char *why, size_t len)
{
	const struct ftree *t = rp->t;
	const struct fabric *f = t->fab;
	double t0 = now_seconds();
	uint32_t *cnt = calloc(t->nsw ? t->nsw : 1, sizeof(uint32_t));
	uint32_t *lids = malloc(((size_t)rp->lft->max_lid + 1) * sizeof(uint32_t));
	uint32_t nl = 0, ntop;
	int r = 0;
	if (!cnt || !lids || (ntop = count_tops_above(t, cnt)) == UINT32_MAX ||
	    ft_turns_init(&rp->tu, t)) {
		free(cnt);
		free(lids);
		return -ENOMEM;
	}
	rp->have_turns = 1;
	for (uint32_t i = 0; i < t->ndest; i++) {
		const struct ft_dest *d = &t->dest[i];
		if (cnt[d->sw] == ntop)
			continue;
		for (uint32_t k = 0; k < d->nlids; k++)
			if (d->lid + k <= rp->prev->max_lid)
				lids[nl++] = d->lid + k;
	}
	for (uint32_t u = 0; u < t->nsw && !r; u++) {
		const uint8_t *pu = lft_row(rp->prev, rp->prev_sw[u]);
		for (uint32_t i = 0; i < nl; i++) {
			uint32_t l = lids[i];
			uint32_t y = ft_far_sw(t, u, pu[l]);
			if (y == FAB_NONE || t->level[y] >= t->level[u])
				continue;
			uint8_t q = lft_row(rp->prev, rp->prev_sw[y])[l];
			uint32_t z = ft_far_sw(t, y, q);
			if (z == FAB_NONE || t->level[z] <= t->level[y])
				continue;
			uint8_t in = f->ports[f->ports[t->fport[u] + pu[l]].peer].num;
			if (ft_turn_is_taken(&rp->tu, y, in, q))
				continue;
			if (!ft_turn_take(&rp->tu, y, in, q)) {
				snprintf(why, len, "the previous tables' turns "
					 "close a credit loop on this tree (LID %u)", l);
				r = 1;
				break;
			}
			rp->prev_turns++;
		}
	}
	free(cnt);
	free(lids);
	rp->turns_s = now_seconds() - t0;
	return r;
}
