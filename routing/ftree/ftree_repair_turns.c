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
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../core/log.h"
#include "ftree_repair.h"

#define FT_REPAIR_SAMPLE 32     /* LIDs checked for turns ftree would not take */

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

/* One thread's share of the scan: rows [from, to) (switches above the
 * leaves only: a turn needs an upper neighbour sending down). */
struct scan_job {
	const struct ft_repair *rp;
	const uint32_t *lids;
	uint32_t nl, from, to;
	struct ft_turn_seen { uint32_t y; uint8_t in, out; } *v;
	uint64_t n, cap;
	int nomem;
};

static void *scan_rows(void *arg)
{
	struct scan_job *j = arg;
	const struct ft_repair *rp = j->rp;
	const struct ftree *t = rp->t;
	const struct fabric *f = t->fab;
	for (uint32_t i = j->from; i < j->to && !j->nomem; i++) {
		uint32_t u = t->by_level[i];
		const uint8_t *pu = lft_row(rp->prev, rp->prev_sw[u]);
		for (uint32_t k = 0; k < j->nl; k++) {
			uint32_t l = j->lids[k];
			uint32_t y = ft_far_sw(t, u, pu[l]);
			if (y == FAB_NONE || t->level[y] >= t->level[u])
				continue;
			uint8_t q = lft_row(rp->prev, rp->prev_sw[y])[l];
			uint32_t z = ft_far_sw(t, y, q);
			if (z == FAB_NONE || t->level[z] <= t->level[y])
				continue;
			uint8_t in = f->ports[f->ports[t->fport[u] + pu[l]].peer].num;
			if (j->n && j->v[j->n - 1].y == y && j->v[j->n - 1].in == in &&
			    j->v[j->n - 1].out == q)
				continue;       /* the same turn again, as it often is */
			if (j->n == j->cap) {
				j->cap = j->cap ? 2 * j->cap : 4096;
				void *nv = realloc(j->v, j->cap * sizeof(*j->v));
				if (!nv) {
					j->nomem = 1;
					break;
				}
				j->v = nv;
			}
			j->v[j->n++] = (struct ft_turn_seen){ y, in, q };
		}
	}
	return NULL;
}

/* The previous turns from the memo of the route that built the previous
 * tables (ftree_memo.c): no scan, and no check for another engine's
 * tables (the memo is ftree's, of those tables). */
static int memo_turns(struct ft_repair *rp, char *why, size_t len)
{
	const struct route_memo *m = rp->memo;
	double t0 = now_seconds();
	if (ft_turns_init(&rp->tu, rp->t))
		return -ENOMEM;
	rp->have_turns = 1;
	rp->turns_from_memo = 1;
	double ti = now_seconds();
	for (uint32_t i = 0; i < m->n; i++) {
		uint32_t y;
		if (!ft_memo_turn(rp->t, m, rp->new_of_prev, i, &y) ||
		    ft_turn_is_taken(&rp->tu, y, m->in[i], m->out[i]))
			continue;
		if (!ft_turn_take(&rp->tu, y, m->in[i], m->out[i])) {
			snprintf(why, len, "the previous tables' down->up turns "
				 "close a cycle in ftree's checked channel graph");
			rp->turns_s = now_seconds() - t0;
			return 1;
		}
		rp->prev_turns++;
	}
	rp->turns_s = now_seconds() - t0;
	log_debug("ftree: repair: turn set set up in %.3f s, %u memo turns "
		  "taken in %.3f s (%llu cycle searches)", ti - t0, m->n,
		  now_seconds() - ti, (unsigned long long)rp->tu.cdg.searches);
	return 0;
}

int ft_repair_turns(struct ft_repair *rp, char *why, size_t len)
{
	if (rp->memo)
		return memo_turns(rp, why, len);
	const struct ftree *t = rp->t;
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
	/* ftree takes no turn toward the others, but tables from another
	 * engine may (given with --prev-lfts, or a daemon that fell back):
	 * a sample of those LIDs is checked, and a turn there means these are
	 * not ftree's tables, so the turns scanned would not be all of them. */
	uint32_t nsample = 0;
	for (uint32_t i = 0; i < t->ndest && !r; i += 1 + t->ndest / FT_REPAIR_SAMPLE) {
		const struct ft_dest *d = &t->dest[i];
		if (cnt[d->sw] != ntop || d->lid > rp->prev->max_lid)
			continue;
		nsample++;
		for (uint32_t k = t->lvl_off[1]; k < t->nsw; k++) {
			uint32_t u = t->by_level[k];
			uint8_t p = lft_row(rp->prev, rp->prev_sw[u])[d->lid];
			uint32_t y = ft_far_sw(t, u, p);
			if (y == FAB_NONE || t->level[y] >= t->level[u])
				continue;
			uint8_t q = lft_row(rp->prev, rp->prev_sw[y])[d->lid];
			uint32_t z = ft_far_sw(t, y, q);
			if (z != FAB_NONE && t->level[z] > t->level[y]) {
				snprintf(why, len, "the previous tables turn down->up "
					 "toward LID %u, which ftree never does there: "
					 "not ftree's tables", d->lid);
				r = 1;
				break;
			}
		}
	}
	(void)nsample;
	if (r) {
		free(cnt);
		free(lids);
		return r;
	}
	/* Rows split over the threads; the turns are taken afterwards, in
	 * row order, so the result does not depend on the threads. */
	struct scan_job job[2];
	pthread_t tid;
	uint32_t first = t->lvl_off[1], nsw = t->nsw;
	unsigned nj = rp->threads >= 2 && (uint64_t)(nsw - first) * nl >= (1u << 20) ? 2 : 1;
	for (unsigned k = 0; k < nj; k++)
		job[k] = (struct scan_job){ .rp = rp, .lids = lids, .nl = nl,
			.from = first + (uint32_t)((uint64_t)(nsw - first) * k / nj),
			.to = first + (uint32_t)((uint64_t)(nsw - first) * (k + 1) / nj) };
	int threaded = nj == 2 && !pthread_create(&tid, NULL, scan_rows, &job[1]);
	scan_rows(&job[0]);
	if (nj == 2 && !threaded)
		scan_rows(&job[1]);
	if (threaded)
		pthread_join(tid, NULL);
	for (unsigned k = 0; k < nj && !r; k++) {
		if (job[k].nomem) {
			r = -ENOMEM;
			break;
		}
		for (uint64_t i = 0; i < job[k].n; i++) {
			const struct ft_turn_seen *v = &job[k].v[i];
			if (ft_turn_is_taken(&rp->tu, v->y, v->in, v->out))
				continue;
			if (!ft_turn_take(&rp->tu, v->y, v->in, v->out)) {
				snprintf(why, len, "the previous tables' down->up "
					 "turns close a cycle in ftree's checked channel "
					 "graph (tables of another engine?)");
				r = 1;
				break;
			}
			rp->prev_turns++;
		}
	}
	for (unsigned k = 0; k < nj; k++)
		free(job[k].v);
	free(cnt);
	free(lids);
	rp->turns_s = now_seconds() - t0;
	return r;
}
