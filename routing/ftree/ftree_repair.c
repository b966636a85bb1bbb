/* ftree minimal-change repair: after links or switches are lost, start
 * from the previous tables and change only the entries that must change.
 *
 *  1. The difference (ftree_repair_diff.c): lost links and switches only,
 *     LIDs and levels unchanged; otherwise the engine routes in full
 *     (logged why).
 *  2. Copy the previous rows (matched by GUID; two threads), clear the
 *     columns of LIDs that left the fabric.
 *  3. Affected entries: scan the rows of the switches that lost a link for
 *     entries on the lost port. A LID with no such entry keeps every path
 *     (none crosses a lost link), so it is left alone.
 *  4. Per affected LID (ftree_repair_lid.c), the set R of switches to
 *     re-decide: the broken entries and what leads into them; only R is
 *     re-decided, keeping an entry wherever it is still valid
 *     (ftree_repair_choose.c):
 *      a. lowest level first, ancestors: a down-link to a switch whose path
 *         goes only down to the destination (least load, then column order);
 *      b. highest level first, the rest that can: an up-link to a switch
 *         whose path is up*-then-down* (the least-loaded whole path, loads
 *         being the flows the repair moved, so displaced sources spread
 *         over the remaining down-links into the destination's leaf);
 *      c. the rest (no up-then-down path left) take detours searched as
 *         ftree_detour.c does, every down->up turn checked against the
 *         turns the previous tables take (ftree_repair_turns.c) and those
 *         added since, so the CDG of the whole table set stays acyclic.
 *         If a detour cannot be found the engine routes in full.
 * Paths outside R are unchanged; CA paths through R stay up*-then-down*
 * wherever the tree allows. Balance is local: loads count only the flows
 * the repair moved (on an intact or evenly loaded tree the others are
 * even). The engine's log line gives the counts, times and CPU. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../core/log.h"
#include "ftree_repair.h"

/* CPU seconds of the whole process (every thread): the log says what the
 * repair cost besides how long it took. */
static double cpu_seconds(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts))
		return 0;
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

#define REPAIR_THREAD_MIN_BYTES (32u << 20)
#define REPAIR_MAX_THREADS 8

/* ---- setup: copy, clear, find the broken entries ---- */

struct copy_job {
	const struct ft_repair *rp;
	uint32_t from, to;
};

static void *copy_rows(void *arg)
{
	const struct copy_job *j = arg;
	const struct ft_repair *rp = j->rp;
	uint32_t n = rp->lft->stride < rp->prev->stride ? rp->lft->stride :
		rp->prev->stride;
	for (uint32_t s = j->from; s < j->to; s++) {
		uint8_t *row = lft_row(rp->lft, s);
		memcpy(row, lft_row(rp->prev, rp->prev_sw[s]), n);
		if (n < rp->lft->stride)
			memset(row + n, LFT_NO_PATH, rp->lft->stride - n);
		/* entries past max_lid are never read, but keep them clean */
		for (uint32_t l = rp->lft->max_lid + 1; l < rp->lft->stride; l++)
			row[l] = LFT_NO_PATH;
	}
	return NULL;
}

static unsigned pick_threads(unsigned threads, uint64_t bytes)
{
	if (!threads && bytes < REPAIR_THREAD_MIN_BYTES)
		return 1;
	long n = threads ? (long)threads : sysconf(_SC_NPROCESSORS_ONLN);
	if (n < 1)
		n = 1;
	return n > REPAIR_MAX_THREADS ? REPAIR_MAX_THREADS : (unsigned)n;
}

static unsigned copy_tables(struct ft_repair *rp, unsigned threads)
{
	struct copy_job job[REPAIR_MAX_THREADS];
	pthread_t tid[REPAIR_MAX_THREADS];
	uint32_t nsw = rp->t->nsw;
	unsigned n = pick_threads(threads, (uint64_t)nsw * rp->lft->stride);
	unsigned started = 0;
	for (unsigned k = 0; k < n; k++)
		job[k] = (struct copy_job){ rp, (uint32_t)((uint64_t)nsw * k / n),
					    (uint32_t)((uint64_t)nsw * (k + 1) / n) };
	for (unsigned k = 1; k < n; k++) {
		if (pthread_create(&tid[k], NULL, copy_rows, &job[k]))
			break;
		started = k;
	}
	copy_rows(&job[0]);
	for (unsigned k = started + 1; k < n; k++)
		copy_rows(&job[k]);
	for (unsigned k = 1; k <= started; k++)
		pthread_join(tid[k], NULL);
	return n;
}

static int cmp_hit(const void *a, const void *b)
{
	const struct ft_hit *x = a, *y = b;
	if (x->lid != y->lid)
		return x->lid < y->lid ? -1 : 1;
	return x->sw < y->sw ? -1 : x->sw > y->sw;
}

static int find_hits(struct ft_repair *rp)
{
	uint64_t cap = 0;
	for (uint32_t i = 0; i < rp->nlost; i++) {
		const uint8_t *row = lft_row(rp->lft, rp->lost[i].sw);
		uint8_t p = rp->lost[i].port;
		for (uint32_t l = 1; l <= rp->lft->max_lid; l++) {
			if (row[l] != p)
				continue;
			if (rp->nhits == cap) {
				cap = cap ? 2 * cap : 1024;
				struct ft_hit *v = realloc(rp->hits, cap * sizeof(*v));
				if (!v)
					return -ENOMEM;
				rp->hits = v;
			}
			rp->hits[rp->nhits++] = (struct ft_hit){ l, rp->lost[i].sw };
		}
	}
	if (rp->nhits)  /* hits is NULL then: qsort must not see it */
		qsort(rp->hits, rp->nhits, sizeof(*rp->hits), cmp_hit);
	return 0;
}

struct turns_job {
	struct ft_repair *rp;
	char why[160];
	int r;
};

static void *load_turns(void *arg)
{
	struct turns_job *j = arg;
	j->r = ft_repair_turns(j->rp, j->why, sizeof(j->why));
	return NULL;
}

/* ---- the per-LID pass ---- */

/* Entry (x, lid) changed: counted, and its 64-entry block once. */
static void count_change(struct ft_repair *rp, uint64_t *dirty, uint32_t x,
			 uint32_t lid)
{
	uint64_t b = (uint64_t)x * (rp->lft->stride / LFT_BLOCK) + lid / LFT_BLOCK;
	rp->changed++;
	if (!(dirty[b / 64] >> (b % 64) & 1)) {
		dirty[b / 64] |= 1ull << (b % 64);
		rp->blocks++;
	}
}

/* Repair the LIDs of hits[from, to) (only those with only[lid] set when
 * only is given). 0, 1 when some switch finds no path, -ENOMEM. */
static int repair_lids(struct ft_repair *rp, uint64_t from, uint64_t to,
		       const uint8_t *only, uint32_t *undecided, uint64_t *dirty)
{
	for (uint64_t i = from; i < to;) {
		uint64_t j = i;
		while (j < to && rp->hits[j].lid == rp->hits[i].lid)
			j++;
		uint32_t lid = rp->hits[i].lid;
		if (only && !only[lid]) {
			i = j;
			continue;
		}
		double t0 = now_seconds();
		int rc = rp_repair_lid(rp, lid, rp->hits + i, (uint32_t)(j - i),
				       undecided);
		if (rc)
			return rc == -1 ? 1 : rc;
		rp->nlids++;
		{
			uint32_t di = rp->dest_of[lid];
			int k = di != FAB_NONE && rp->t->dest[di].weighted;
			rp->by_kind[k].lids++;
			rp->by_kind[k].r += rp->nr;
			rp->by_kind[k].s += now_seconds() - t0;
		}
		for (uint32_t k = 0; k < rp->nr; k++) {
			uint32_t x = rp->rl[k];
			if (rp_entry(rp, x, lid) != rp->old[x])
				count_change(rp, dirty, x, lid);
		}
		i = j;
	}
	return 0;
}

/* ---- the whole repair ---- */

static void repair_free(struct ft_repair *rp)
{
	free(rp->lost);
	free(rp->gone);
	free(rp->hits);
	free(rp->dest_of);
	free(rp->in_r);
	free(rp->state);
	free(rp->old);
	free(rp->walk_at);
	free(rp->walk_res);
	free(rp->inflow);
	free(rp->committed);
	free(rp->free_at);
	free(rp->free_res);
	free(rp->rl);
	free(rp->seen);
	free(rp->pred);
	free(rp->queue);
	free(rp->in_port);
	free(rp->via);
	free(rp->old_ty);
	free(rp->prev_level);
	free(rp->anc_mark);
	free(rp->anc_list);
	if (rp->have_turns)
		ft_turns_free(&rp->tu);
	free(rp->load);
	free(rp->new_of_prev);
}

static int repair_alloc(struct ft_repair *rp)
{
	const struct ftree *t = rp->t;
	size_t n = t->nsw ? t->nsw : 1, np = (size_t)t->fab->num_ports + 1;
	rp->dest_of = malloc(((size_t)rp->lft->max_lid + 1) * sizeof(uint32_t));
	rp->in_r = calloc(n, sizeof(uint32_t));
	rp->state = calloc(n, 1);
	rp->old = calloc(n, 1);
	rp->walk_at = calloc(n, sizeof(uint32_t));
	rp->walk_res = calloc(n, 1);
	rp->inflow = calloc(n, sizeof(uint64_t));
	rp->committed = calloc(n, sizeof(uint32_t));
	rp->free_at = calloc(n, sizeof(uint32_t));
	rp->free_res = calloc(n, 1);
	rp->rl = calloc(n, sizeof(uint32_t));
	rp->seen = calloc(n, sizeof(uint32_t));
	rp->pred = calloc(n, sizeof(uint32_t));
	rp->queue = calloc(n, sizeof(uint32_t));
	rp->in_port = calloc(n, 1);
	rp->via = calloc(n, 1);
	rp->old_ty = calloc(n, 1);
	rp->anc_mark = calloc(n, sizeof(uint32_t));
	rp->anc_list = calloc(n, sizeof(uint32_t));
	rp->anc_of = FAB_NONE;
	rp->load = calloc(np, sizeof(uint64_t));
	if (!rp->dest_of || !rp->in_r || !rp->state || !rp->old ||
	    !rp->walk_at || !rp->walk_res || !rp->inflow || !rp->rl ||
	    !rp->committed || !rp->free_at || !rp->free_res ||
	    !rp->seen || !rp->pred || !rp->queue || !rp->in_port ||
	    !rp->via || !rp->load || !rp->anc_mark || !rp->anc_list || !rp->old_ty)
		return -ENOMEM;
	for (uint32_t l = 0; l <= rp->lft->max_lid; l++)
		rp->dest_of[l] = FAB_NONE;
	for (uint32_t i = 0; i < t->ndest; i++)
		for (uint32_t k = 0; k < t->dest[i].nlids; k++)
			if (t->dest[i].lid + k <= rp->lft->max_lid)
				rp->dest_of[t->dest[i].lid + k] = i;
	return 0;
}

/* Clear the columns of LIDs that left the fabric. */
static void clear_gone(struct ft_repair *rp)
{
	for (uint32_t i = 0; i < rp->ngone; i++)
		for (uint32_t s = 0; s < rp->t->nsw; s++) {
			uint8_t *e = lft_row(rp->lft, s) + rp->gone[i];
			rp->cleared += *e != LFT_NO_PATH;
			*e = LFT_NO_PATH;
		}
}

/* Before a route in full: the route writes every switch's entry for
 * every LID it routes (t->dest: the rows of each LID, in windows or in
 * closed form), so only the other LIDs -- 0, gaps, the last block's
 * tail -- need LFT_NO_PATH, then the local entries as route_run sets
 * them (the route overwrites those it routes, identically). That skips
 * filling the whole set first: 345 MB at 65,536 CAs, ~0.25 s on the
 * routing thread, most of it faulting fresh pages in, which the rows'
 * writers now do as they write (the second thread has the slack). When
 * the holes are many (sparse LIDs), the whole fill is the cheaper way. */
void ft_repair_reset(const struct ftree *t, struct lft_set *lft)
{
	uint32_t n = lft->stride, nhole = 0;
	uint8_t *routed = n ? calloc(n, 1) : NULL;
	uint32_t *hole = n ? malloc(n * sizeof(uint32_t)) : NULL;
	for (uint32_t i = 0; routed && i < t->ndest; i++)
		for (uint32_t j = 0; j < t->dest[i].nlids; j++)
			if (t->dest[i].lid + j < n)
				routed[t->dest[i].lid + j] = 1;
	for (uint32_t l = 0; routed && hole && l < n; l++)
		if (!routed[l])
			hole[nhole++] = l;
	if (!routed || !hole || (uint64_t)nhole * 16 > n) {
		memset(lft->port, LFT_NO_PATH, (size_t)n * lft->num_switches);
	} else {
		t->stats->reset_by_holes++;
		for (uint32_t s = 0; s < lft->num_switches; s++) {
			uint8_t *row = lft_row(lft, s);
			for (uint32_t k = 0; k < nhole; k++)
				row[hole[k]] = LFT_NO_PATH;
		}
	}
	free(routed);
	free(hole);
	lft_fill_local(t->fab, lft);
}

/* lft already holds the previous tables row for row: a copy made
 * beforehand, same layout, switches in the same order. */
static int copy_made(const struct ft_repair *rp, int holds_prev)
{
	if (!holds_prev || !lft_same_layout(rp->lft, rp->prev))
		return 0;
	for (uint32_t s = 0; s < rp->t->nsw; s++)
		if (rp->prev_sw[s] != s)
			return 0;
	return 1;
}

/* With a usable memo of the previous tables' turns: it, and the new
 * switch ordinal of each previous one (new_of_prev) to read it with. */
static int memo_index(struct ft_repair *rp, const struct route_options *opt)
{
	const struct ftree *t = rp->t;
	if (ft_memo_usable(opt->prev_memo, rp->pf)) {
		rp->memo = opt->prev_memo;
		uint32_t n = rp->pf->num_switches;
		rp->new_of_prev = malloc((n ? n : 1) * sizeof(uint32_t));
		if (!rp->new_of_prev)
			return -ENOMEM;
		for (uint32_t i = 0; i < rp->pf->num_switches; i++)
			rp->new_of_prev[i] = FAB_NONE;
		for (uint32_t s = 0; s < t->nsw; s++)
			if (rp->prev_sw[s] != FAB_NONE)
				rp->new_of_prev[rp->prev_sw[s]] = s;
	}
	return 0;
}

/* Re-decide the entries that cross a lost link: LID by LID, then the
 * idle up-link entries in bulk. 0, or < 0 / > 0 as repair_lids. */
static int repair_entries(struct ft_repair *rp, double t1)
{
	const struct ftree *t = rp->t;
	struct lft_set *lft = rp->lft;
	int r = 0;
	uint32_t *undecided = malloc((t->nsw ? t->nsw : 1) * sizeof(uint32_t));
	uint64_t nblk = (uint64_t)t->nsw * (lft->stride / LFT_BLOCK);
	uint64_t *dirty = calloc(nblk / 64 + 1, sizeof(uint64_t));
	uint8_t *redo = calloc((size_t)lft->max_lid + 1, 1);
	if (!undecided || !dirty || !redo || (r = rp_idle_split(rp)) < 0) {
		free(undecided);
		free(dirty);
		free(redo);
		return r < 0 ? r : -ENOMEM;
	}
	/* LIDs whose every hit is an idle entry go last, in bulk; a LID none
	 * of whose up-links suits goes through the per-LID repair after all. */
	uint64_t nper = rp->nhits - rp->nidle;
	double ts = now_seconds();
	r = repair_lids(rp, 0, nper, NULL, undecided, dirty);
	double tl = now_seconds();
	if (!r && rp->nidle) {
		rp_idle_repoint(rp, nper, redo);
		for (uint64_t i = nper; i < rp->nhits; i++) {
			const struct ft_hit *h = &rp->hits[i];
			if (redo[h->lid])
				continue;
			rp->nlids++;
			rp->redecided++;
			count_change(rp, dirty, h->sw, h->lid);
		}
		r = repair_lids(rp, nper, rp->nhits, redo, undecided, dirty);
	}
	log_debug("ftree: repair: hits and idle split %.3f s, %llu LIDs one by "
		  "one %.3f s (previous turns included; switch LIDs %llu, R %llu, "
		  "%.3f s; CA LIDs %llu, R %llu, %.3f s), idle entries %.3f s",
		  ts - t1, (unsigned long long)(rp->nlids - rp->idle_moved), tl - ts,
		  (unsigned long long)rp->by_kind[0].lids, (unsigned long long)rp->by_kind[0].r,
		  rp->by_kind[0].s, (unsigned long long)rp->by_kind[1].lids,
		  (unsigned long long)rp->by_kind[1].r, rp->by_kind[1].s,
		  now_seconds() - tl);
	free(undecided);
	free(dirty);
	free(redo);
	return r;
}

/* What the repair did, and in how long. */
static void repair_report(const struct ft_repair *rp, double t0, double t1,
			  double c0, unsigned nthr, int made)
{
	log_info("ftree: repair: %u ports lost their link, %u LIDs gone; %u LIDs affected, "
		 "%llu entries changed (+%llu cleared) in %llu 64-entry LFT "
		 "blocks: %llu re-decided (%llu idle up-link entries in bulk), "
		 "%llu on detours, %llu LIDs whole; "
		 "copy %.3f s (%u "
		 "threads%s), repair %.3f s (previous turns %llu %s in %.3f s, %llu "
		 "new); CPU %.3f s", rp->nlost, rp->ngone, rp->nlids,
		 (unsigned long long)rp->changed, (unsigned long long)rp->cleared,
		 (unsigned long long)rp->blocks, (unsigned long long)rp->redecided,
		 (unsigned long long)rp->idle_moved,
		 (unsigned long long)rp->detours,
		 (unsigned long long)rp->lazy_fallbacks, t1 - t0, nthr,
		 made ? ": the tables held a copy made beforehand" : "",
		 now_seconds() - t1,
		 (unsigned long long)rp->prev_turns,
		 !rp->have_turns ? "not needed" : rp->turns_overlap ?
		 "from the memo alongside the copy" : rp->turns_from_memo ?
		 "from the memo" : "scanned", rp->turns_s,
		 (unsigned long long)(rp->have_turns ? rp->tu.taken - rp->prev_turns : 0),
		 cpu_seconds() - c0);
}

int ft_repair(struct ft_work *w, const struct route_options *opt,
	      struct lft_set *lft, unsigned threads, int holds_prev)
{
	const struct ftree *t = w->t;
	struct ft_repair rp = { .t = t, .prev = w->prev, .prev_sw = w->prev_sw,
				.lft = lft, .pf = opt ? opt->prev_fab : NULL };
	char why[200] = "";
	double t0 = now_seconds(), c0 = cpu_seconds();
	int r;

	if (!t->tune->repair || !w->prev || !rp.pf)
		return 0;
	r = ft_repair_diff(&rp, opt, why, sizeof(why));
	if (r) {
		if (r > 0)
			log_info("ftree: previous tables not repairable (%s): "
				 "routing in full", why);
		repair_free(&rp);
		return r < 0 ? r : 0;
	}
	if ((r = repair_alloc(&rp)) < 0) {
		repair_free(&rp);
		return r;
	}
	if ((r = memo_index(&rp, opt)) < 0)
		goto fail;
	/* With the previous turns in a memo, a second thread takes them
	 * while this one copies: the copy is bound by memory bandwidth (one
	 * thread copies 345 MB about as fast as two), taking 32,000 turns by
	 * memory latency. The turns are the same as taken on first need. */
	struct turns_job tj = { .rp = &rp };
	pthread_t tt;
	int made = copy_made(&rp, holds_prev);
	int overlap = !made && rp.memo &&
		pick_threads(threads, (uint64_t)t->nsw * lft->stride) >= 2 &&
		!pthread_create(&tt, NULL, load_turns, &tj);
	/* A copy made beforehand (the daemon makes it in its idle loop) is
	 * used as it is: 345 MB less to copy at 65,536 CAs. */
	unsigned nthr = made ? 0 : copy_tables(&rp, overlap ? 1 : threads);
	rp.threads = nthr;
	if (overlap) {
		pthread_join(tt, NULL);
		rp.turns_overlap = 1;
		if (tj.r) {
			if (tj.r > 0)
				log_info("ftree: repair: %s", tj.why);
			r = tj.r;
			goto fail;
		}
	}
	double t1 = now_seconds();
	clear_gone(&rp);
	if ((r = find_hits(&rp)) < 0)
		goto fail;
	uint64_t entries = (uint64_t)t->nsw * (lft->max_lid + 1);
	if (rp.nhits > entries / 20) {
		log_info("ftree: previous tables not repairable (%llu of %llu "
			 "entries cross a lost link: a large change): routing "
			 "in full", (unsigned long long)rp.nhits,
			 (unsigned long long)entries);
		r = 1;
		goto fail;
	}
	if ((r = repair_entries(&rp, t1)))
		goto fail;
	/* The memo of the repaired tables: every turn checked here, or, when
	 * no detour needed them, the previous memo's turns still linked. */
	if (opt->memo_out && rp.have_turns)
		r = ft_memo_put(&rp.tu, opt->memo_out);
	else if (opt->memo_out && rp.memo)
		r = ft_memo_carry(t, rp.memo, rp.new_of_prev, opt->memo_out);
	if (r)
		goto fail;
	repair_report(&rp, t0, t1, c0, nthr, made);
	repair_free(&rp);
	t->stats->repair_taken = 1;
	return 1;
fail:
	/* (lft may hold part of a repair: ft_route resets it, as it does
	 * before every route in full) */
	if (r > 0)
		log_info("ftree: repair abandoned: routing in full");
	repair_free(&rp);
	return r < 0 ? r : 0;
}
