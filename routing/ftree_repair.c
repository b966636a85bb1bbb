/* ftree minimal-change repair: after links or switches are lost, start
 * from the previous tables and change only the entries that must change.
 *
 *  1. The difference (ftree_repair_diff.c): lost links only, LIDs and
 *     levels unchanged; otherwise the engine routes in full (logged why).
 *  2. Copy the previous rows (matched by GUID; two threads), clear the
 *     columns of LIDs that left the fabric.
 *  3. Affected entries: scan the rows of the switches that lost a link for
 *     entries on the lost port. A LID with no such entry keeps every path
 *     (none crosses a lost link), so it is left alone.
 *  4. Per affected LID, the set R of switches whose path crossed a lost
 *     link: the broken entries, then every switch whose entry leads into R
 *     (a reverse search over the entries). Only R is re-decided, keeping
 *     an entry wherever it is still valid:
 *      a. lowest level first, ancestors: a down-link to a switch whose path
 *         goes only down to the destination (least load, then column order);
 *      b. highest level first, the rest that can: an up-link to a switch
 *         whose path is up*-then-down* (the least-loaded whole path, loads
 *         being the flows the repair moved, so displaced sources spread
 *         over the remaining down-links into the destination's leaf);
 *      c. the rest (no up-then-down path left) take detours, nearest the
 *         decided set first, searched as ftree_detour.c does, except that a
 *         down->up turn is allowed only if the previous tables already take
 *         it (two rows scanned once per entering port). The previous
 *         tables came from ftree, whose turn set kept the channel
 *         dependency graph acyclic on a superset of this fabric with the
 *         same levels, so a subset of that turn set keeps it acyclic too:
 *         no new cycle search is needed. If no such detour exists, the
 *         repair gives up and the engine routes in full.
 * Paths outside R are unchanged; CA paths through R stay up*-then-down*
 * wherever the tree allows; switch-LID routes and detours keep the
 * previous turn set. Balance is local: loads count only the flows the
 * repair moved (on an intact or evenly loaded tree the others are even). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../core/log.h"
#include "ftree_repair.h"

int ft_repair_enabled = 1;
int ft_repair_taken;

/* CPU seconds of the whole process (every thread): the log says what the
 * repair cost besides how long it took. */
static double cpu_seconds(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts))
		return 0;
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

enum { RS_OPEN, RS_DOWN, RS_UP, RS_DETOUR };
enum { W_BAD, W_DOWN, W_UPDOWN, W_OTHER };

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
	qsort(rp->hits, rp->nhits, sizeof(*rp->hits), cmp_hit);
	return 0;
}

/* ---- per LID ---- */

static uint8_t entry(const struct ft_repair *rp, uint32_t x, uint32_t lid)
{
	return lft_row(rp->lft, x)[lid];
}

static void set_entry(struct ft_repair *rp, uint32_t x, uint32_t lid, uint8_t p)
{
	lft_row(rp->lft, x)[lid] = p;
}

static int in_r(const struct ft_repair *rp, uint32_t x)
{
	return rp->in_r[x] == rp->stamp;
}

/* Settled for this LID: outside R (path unchanged) or decided. */
static int is_final(const struct ft_repair *rp, uint32_t x)
{
	return !in_r(rp, x) || rp->state[x] != RS_OPEN;
}

static void add_to_r(struct ft_repair *rp, uint32_t x, uint32_t lid)
{
	rp->in_r[x] = rp->stamp;
	rp->state[x] = RS_OPEN;
	rp->old[x] = entry(rp, x, lid);
	rp->inflow[x] = 0;
	rp->rl[rp->nr++] = x;
}

/* The shape of x's path to tg: only down, up then down, valid with a
 * turn, or broken (dead end, lost port, loop, undecided switch). */
static int walk(struct ft_repair *rp, uint32_t y, uint32_t tg, uint32_t lid)
{
	const struct ftree *t = rp->t;
	static const uint8_t of_state[] = { W_BAD, W_DOWN, W_UPDOWN, W_OTHER };
	if (y == tg)
		return W_DOWN;
	if (in_r(rp, y))
		return of_state[rp->state[y]];
	/* A memo stays good for the round unless it says broken: deciding a
	 * switch only ever turns a path through it from broken to valid. */
	if (rp->walk_at[y] == rp->wstamp ||
	    (rp->walk_at[y] >= rp->wround && rp->walk_res[y] != W_BAD))
		return rp->walk_res[y];
	uint32_t x = y;
	int up = 0, down = 0, turned = 0, res = W_BAD;
	for (unsigned hops = 0; hops < 4 * FT_MAX_LEVELS; hops++) {
		if (x == tg) {
			res = turned ? W_OTHER : up ? W_UPDOWN : W_DOWN;
			break;
		}
		if (in_r(rp, x)) {      /* only decided switches are reached */
			int r = of_state[rp->state[x]];
			res = r == W_BAD ? W_BAD : turned || r == W_OTHER ||
				(down && r == W_UPDOWN) ? W_OTHER :
				up || r == W_UPDOWN ? W_UPDOWN : W_DOWN;
			break;
		}
		uint32_t o = ft_far_sw(t, x, entry(rp, x, lid));
		if (o == FAB_NONE)
			break;
		if (t->level[o] > t->level[x]) {
			turned |= down;
			up = 1;
		} else {
			down = 1;
		}
		x = o;
	}
	rp->walk_at[y] = rp->wstamp;
	rp->walk_res[y] = (uint8_t)res;
	return res;
}

struct cost {
	uint64_t max, sum;
};

/* Loads (flows the repair moved) along x's path if it left by port p,
 * with f more units. */
static struct cost path_cost(struct ft_repair *rp, uint32_t x, uint8_t p,
			     uint32_t tg, uint32_t lid, uint64_t f)
{
	const struct ftree *t = rp->t;
	struct cost c = { 0, 0 };
	for (unsigned hops = 0; hops < 4 * FT_MAX_LEVELS && x != tg; hops++) {
		uint32_t e = t->fport[x] + p;
		uint64_t v = rp->load[e] + f;
		c.max = v > c.max ? v : c.max;
		c.sum += v;
		x = t->peer_sw[e];
		if (x == FAB_NONE)
			break;
		p = entry(rp, x, lid);
		if (ft_far_sw(t, x, p) == FAB_NONE)
			break;
	}
	return c;
}

/* Add (sign 1) or take back (-1) f units along x's path. */
static void commit_flow(struct ft_repair *rp, uint32_t x, uint32_t tg,
			uint32_t lid, uint64_t f, int sign)
{
	const struct ftree *t = rp->t;
	for (unsigned hops = 0; hops < 4 * FT_MAX_LEVELS && x != tg; hops++) {
		uint8_t p = entry(rp, x, lid);
		if (ft_far_sw(t, x, p) == FAB_NONE)
			break;
		uint64_t *l = &rp->load[t->fport[x] + p];
		*l = sign > 0 ? *l + f : *l > f ? *l - f : 0;
		x = t->peer_sw[t->fport[x] + p];
	}
}

/* Flow accounting of a compute-node LID, as R is decided from the top
 * down: a switch commits its flow (its own compute nodes and, by the old
 * entries, what reached it from below inside R) along its new path,
 * unless the switch above it that counted that flow still gets it; a
 * switch that moves away takes its flow back off that switch's path. So
 * the next choices see where the displaced traffic went already (without
 * this, every middle switch of every pod sent a lost top's traffic to the
 * same next top: 1.76x on a radix-8 tree instead of 1.3x). */
static void account(struct ft_repair *rp, uint32_t x, uint32_t tg,
		    uint32_t lid, uint64_t f)
{
	const struct ftree *t = rp->t;
	uint32_t y = ft_far_sw(t, x, rp->old[x]);
	int counted = y != FAB_NONE && in_r(rp, y) && rp->committed[y] == rp->stamp;
	rp->committed[x] = rp->stamp;
	if (!f)
		return;
	if (counted && entry(rp, x, lid) == rp->old[x])
		return;
	if (counted)
		commit_flow(rp, y, tg, lid, f, -1);
	commit_flow(rp, x, tg, lid, f, 1);
}

/* Mark the ancestors of tg (the switches that reach it going only down),
 * once per destination switch, and only when a switch of R could go down. */
static void mark_ancestors(struct ft_repair *rp, uint32_t tg)
{
	const struct ftree *t = rp->t;
	if (rp->anc_of == tg)
		return;
	rp->anc_of = tg;
	rp->anc_epoch++;
	uint32_t n = 0;
	rp->anc_list[n++] = tg;
	rp->anc_mark[tg] = rp->anc_epoch;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t s = rp->anc_list[i];
		for (uint32_t k = t->up_off[s]; k < t->up_off[s + 1]; k++) {
			uint32_t u = t->up[k].peer;
			if (rp->anc_mark[u] != rp->anc_epoch) {
				rp->anc_mark[u] = rp->anc_epoch;
				rp->anc_list[n++] = u;
			}
		}
	}
}

/* Step a: a down-link to a switch whose path only goes down. */
static void decide_down(struct ft_repair *rp, uint32_t x, uint32_t tg,
			uint32_t lid)
{
	const struct ftree *t = rp->t;
	uint32_t best = FAB_NONE;
	if (t->level[x] <= t->level[tg] || t->dn_off[x] == t->dn_off[x + 1])
		return;
	/* Right above tg only links to tg qualify; higher up, ancestors. */
	int next_to = t->level[x] == t->level[tg] + 1;
	if (!next_to) {
		mark_ancestors(rp, tg);
		if (rp->anc_mark[x] != rp->anc_epoch)
			return;
	}
	for (uint32_t k = t->dn_off[x]; k < t->dn_off[x + 1]; k++) {
		const struct ft_link *l = &t->dn[k];
		if (next_to ? l->peer != tg :
		    rp->anc_mark[l->peer] != rp->anc_epoch ||
		    walk(rp, l->peer, tg, lid) != W_DOWN)
			continue;
		if (l->port == rp->old[x]) {
			best = k;
			break;
		}
		if (best == FAB_NONE) {
			best = k;
			continue;
		}
		const struct ft_link *b = &t->dn[best];
		if (rp->load[l->egress] < rp->load[b->egress] ||
		    (rp->load[l->egress] == rp->load[b->egress] &&
		     t->order[l->peer] < t->order[b->peer]))
			best = k;
	}
	if (best == FAB_NONE)
		return;
	set_entry(rp, x, lid, t->dn[best].port);
	rp->state[x] = RS_DOWN;
}

/* Step b: an up-link to a switch with an up*-then-down* path. */
/* A switch outside R that no switch sends this LID to carries no flow
 * for it: its entry was an arbitrary choice (ftree takes the first
 * up-link), so when displaced flow comes its way it may choose again.
 * Returns its best up-link for f more units (and the cost), or 0 when it
 * is not such a switch. */
static uint8_t free_up(struct ft_repair *rp, uint32_t u, uint32_t tg,
		       uint32_t lid, uint64_t f, struct cost *out)
{
	const struct ftree *t = rp->t;
	if (in_r(rp, u) || t->up_off[u] == t->up_off[u + 1])
		return 0;
	if (rp->free_at[u] != rp->stamp) {
		int busy = 0;
		for (int pass = 0; pass < 2 && !busy; pass++) {
			const struct ft_link *L = pass ? t->dn : t->up;
			const uint32_t *off = pass ? t->dn_off : t->up_off;
			for (uint32_t k = off[u]; k < off[u + 1] && !busy; k++)
				busy = entry(rp, L[k].peer, lid) == L[k].rport;
		}
		rp->free_at[u] = rp->stamp;
		rp->free_res[u] = !busy;
	}
	if (!rp->free_res[u])
		return 0;
	uint8_t bp = 0;
	for (uint32_t k = t->up_off[u]; k < t->up_off[u + 1]; k++) {
		const struct ft_link *l = &t->up[k];
		int w = walk(rp, l->peer, tg, lid);
		if (w != W_DOWN && w != W_UPDOWN)
			continue;
		struct cost c = path_cost(rp, u, l->port, tg, lid, f);
		if (!bp || c.max < out->max ||
		    (c.max == out->max && c.sum < out->sum)) {
			bp = l->port;
			*out = c;
		}
	}
	return bp;
}

static void decide_up(struct ft_repair *rp, uint32_t x, uint32_t tg,
		      uint32_t lid, uint64_t f)
{
	const struct ftree *t = rp->t;
	uint32_t best = FAB_NONE;
	struct cost bc = { 0, 0 };
	for (uint32_t k = t->up_off[x]; k < t->up_off[x + 1]; k++) {
		const struct ft_link *l = &t->up[k];
		/* carrying nothing: the old link if valid, else any will do */
		if (!f && best != FAB_NONE && l->port != rp->old[x])
			continue;
		int w = walk(rp, l->peer, tg, lid);
		if (w != W_DOWN && w != W_UPDOWN)
			continue;
		if (l->port == rp->old[x]) {
			best = k;
			break;
		}
		struct cost c = path_cost(rp, x, l->port, tg, lid, f);
		if (best == FAB_NONE || c.max < bc.max ||
		    (c.max == bc.max && (c.sum < bc.sum ||
		     (c.sum == bc.sum && t->order[l->peer] < t->order[t->up[best].peer])))) {
			best = k;
			bc = c;
		}
	}
	if (best == FAB_NONE)
		return;
	uint32_t u = t->up[best].peer;
	struct cost cu;
	uint8_t pu = f && t->up[best].port != rp->old[x] ?
		free_up(rp, u, tg, lid, f, &cu) : 0;
	/* Only where moved flow piles up: the path as it is would carry more
	 * than an eighth of the load cap (a link's share on a balanced tree)
	 * of moved flow, and the other way carries less. Below that the
	 * entry stays (fewer changes; the balance is the same). */
	uint64_t cur = pu && pu != entry(rp, u, lid) ?
		path_cost(rp, u, entry(rp, u, lid), tg, lid, f).max : 0;
	if (pu && pu != entry(rp, u, lid) && cur > t->cap / 8 && cu.max < cur) {
		add_to_r(rp, u, lid);
		set_entry(rp, u, lid, pu);
		rp->state[u] = RS_UP;
	}
	set_entry(rp, x, lid, t->up[best].port);
	rp->state[x] = RS_UP;
}

/* Step c, as ftree_detour.c's search: breadth first from s through
 * undecided switches of R to a settled one, every down->up turn on the
 * way and at the join one already taken (allow_new 0) or one that closes
 * no cycle with them (allow_new 1). */
static uint32_t detour_search(struct ft_repair *rp, uint32_t s, uint32_t tg,
			      uint32_t lid, int allow_new)
{
	const struct ftree *t = rp->t;
	uint32_t head = 0, tail = 0;
	rp->search++;
	rp->seen[s] = rp->search;
	rp->in_port[s] = 0;
	rp->queue[tail++] = s;
	while (head < tail) {
		uint32_t x = rp->queue[head++];
		uint8_t cur = entry(rp, x, lid);
		for (int pass = 0; pass < 4; pass++) {
			const struct ft_link *L = pass & 1 ? t->dn : t->up;
			const uint32_t *off = pass & 1 ? t->dn_off : t->up_off;
			for (uint32_t k = off[x]; k < off[x + 1]; k++) {
				const struct ft_link *l = &L[k];
				uint32_t y = l->peer;
				if ((l->port == cur) != (pass < 2) ||
				    rp->seen[y] == rp->search ||
				    !ft_turn_ok(&rp->tu, x, rp->in_port[x], l->port,
						allow_new))
					continue;
				if (is_final(rp, y)) {
					/* settled, and not through s (a loop) */
					if (walk(rp, y, tg, lid) == W_BAD ||
					    !ft_turn_ok(&rp->tu, y, l->rport,
							entry(rp, y, lid), allow_new))
						continue;
					rp->pred[y] = x;
					rp->in_port[y] = l->rport;
					rp->via[y] = l->port;
					return y;
				}
				rp->seen[y] = rp->search;
				rp->pred[y] = x;
				rp->in_port[y] = l->rport;
				rp->via[y] = l->port;
				rp->queue[tail++] = y;
			}
		}
	}
	return FAB_NONE;
}

/* Record the path's turns; 0 if one is refused now that the earlier ones
 * of the same path are in the graph (the search then runs again). */
static int take_turns(struct ft_repair *rp, uint32_t s, uint32_t y, uint32_t lid)
{
	if (!ft_turn_take(&rp->tu, y, rp->in_port[y], entry(rp, y, lid)))
		return 0;
	for (uint32_t v = y; v != s; v = rp->pred[v]) {
		uint32_t u = rp->pred[v];
		if (u != s && !ft_turn_take(&rp->tu, u, rp->in_port[u], rp->via[v]))
			return 0;
	}
	return 1;
}

static int decide_detour(struct ft_repair *rp, uint32_t s, uint32_t tg,
			 uint32_t lid)
{
	const struct ftree *t = rp->t;
	const struct fabric *f = t->fab;
	uint8_t p = entry(rp, s, lid);
	uint32_t y = ft_far_sw(t, s, p);
	if (y != FAB_NONE && is_final(rp, y) && walk(rp, y, tg, lid) != W_BAD &&
	    ft_turn_ok(&rp->tu, y, f->ports[f->ports[t->fport[s] + p].peer].num,
		       entry(rp, y, lid), 0)) {
		rp->state[s] = RS_DETOUR;
		return 0;
	}
	/* Each refused take adds to the graph, so this ends; the bound only
	 * guards against a bug. */
	for (int tries = 0; tries < 64; tries++) {
		y = detour_search(rp, s, tg, lid, 0);
		if (y == FAB_NONE)
			y = detour_search(rp, s, tg, lid, 1);
		if (y == FAB_NONE)
			return -1;
		if (!take_turns(rp, s, y, lid))
			continue;
		for (uint32_t v = y; v != s; v = rp->pred[v]) {
			uint32_t u = rp->pred[v];
			set_entry(rp, u, lid, rp->via[v]);
			rp->state[u] = RS_DETOUR;
		}
		return 0;
	}
	return -1;
}

/* R sorted by level, ascending (counting sort; keeps discovery order). */
static void sort_r(struct ft_repair *rp)
{
	const struct ftree *t = rp->t;
	uint32_t cnt[FT_MAX_LEVELS + 1] = { 0 };
	for (uint32_t i = 0; i < rp->nr; i++)
		cnt[t->level[rp->rl[i]] + 1]++;
	for (uint32_t l = 1; l <= FT_MAX_LEVELS; l++)
		cnt[l] += cnt[l - 1];
	for (uint32_t i = 0; i < rp->nr; i++)
		rp->queue[cnt[t->level[rp->rl[i]]]++] = rp->rl[i];
	memcpy(rp->rl, rp->queue, rp->nr * sizeof(uint32_t));
}

/* Undecided switches of R, nearest the settled ones first. */
static uint32_t detour_order(struct ft_repair *rp, uint32_t *out)
{
	const struct ftree *t = rp->t;
	uint32_t n = 0, head = 0;
	rp->search++;
	for (uint32_t i = 0; i < rp->nr; i++) {
		uint32_t x = rp->rl[i];
		if (rp->state[x] != RS_OPEN)
			continue;
		for (uint32_t k = t->nb_off[x]; k < t->nb_off[x + 1]; k++)
			if (is_final(rp, t->nb_peer[k])) {
				rp->seen[x] = rp->search;
				out[n++] = x;
				break;
			}
	}
	while (head < n) {
		uint32_t x = out[head++];
		for (uint32_t k = t->nb_off[x]; k < t->nb_off[x + 1]; k++) {
			uint32_t o = t->nb_peer[k];
			if (in_r(rp, o) && rp->state[o] == RS_OPEN &&
			    rp->seen[o] != rp->search) {
				rp->seen[o] = rp->search;
				out[n++] = o;
			}
		}
	}
	return n;
}

/* The shape of s's path in the previous tables, on the previous fabric
 * (through the link now lost): what the switches leading into s relied on. */
static int prev_shape(const struct ft_repair *rp, uint32_t s, uint32_t tg,
		      uint32_t lid)
{
	const struct fabric *pf = rp->pf;
	uint32_t x = rp->prev_sw[s], end = rp->prev_sw[tg];
	int up = 0, down = 0, turned = 0;
	for (unsigned hops = 0; hops < 4 * FT_MAX_LEVELS; hops++) {
		if (x == end)
			return turned ? W_OTHER : up ? W_UPDOWN : W_DOWN;
		uint8_t p = lft_row(rp->prev, x)[lid];
		const struct fab_node *nd = &pf->nodes[pf->switches[x]];
		if (!p || p > nd->num_ports)
			return W_BAD;
		uint32_t q = pf->ports[nd->first_port + p].peer;
		if (q == FAB_NONE || !fab_is_switch(pf, pf->ports[q].node))
			return W_BAD;
		uint32_t o = pf->nodes[pf->ports[q].node].sw_index;
		if (rp->prev_level[o] > rp->prev_level[x]) {
			turned |= down;
			up = 1;
		} else {
			down = 1;
		}
		x = o;
	}
	return W_BAD;
}

/* The shape of u's path when it enters y (going up, or down) and y's path
 * has shape `y_shape`. */
static int shape_via(int down_into, int y_shape)
{
	if (y_shape == W_BAD)
		return W_BAD;
	if (!down_into)
		return y_shape == W_OTHER ? W_OTHER : W_UPDOWN;
	return y_shape == W_DOWN ? W_DOWN : W_OTHER;
}

static int is_good(int shape)
{
	return shape == W_DOWN || shape == W_UPDOWN;
}

static int need_turns(struct ft_repair *rp)
{
	char why[160];
	int r = rp->have_turns ? 0 : ft_repair_turns(rp, why, sizeof(why));
	if (r > 0)
		log_info("ftree: repair: %s", why);
	return r;
}

/* One switch added to R on its own (lazy mode): the same steps. */
static int decide_one(struct ft_repair *rp, uint32_t x, uint32_t tg,
		      uint32_t lid)
{
	rp->wstamp++;
	decide_down(rp, x, tg, lid);
	if (rp->state[x] == RS_OPEN) {
		rp->wstamp++;
		decide_up(rp, x, tg, lid, 0);
	}
	if (rp->state[x] == RS_OPEN) {
		int r = need_turns(rp);
		if (r)
			return r < 0 ? r : -1;
		rp->wstamp++;
		if (decide_detour(rp, x, tg, lid))
			return -1;
	}
	rp->wstamp++;
	return 0;
}

/* Lazy mode, for LIDs that carry no compute-node flow (switch LIDs): R
 * starts as the broken entries only; a switch leading into R joins it only
 * when its path stops being up*-then-down* (it was) or the turn where it
 * enters R is not allowed. Paths that keep their shape keep their entries
 * and so do all switches behind them, without being visited: a detour of a
 * middle switch that crossed the lost link has 95 switches behind it on
 * the 65,536-CA tree, of which none changes. */
static int extend_lazily(struct ft_repair *rp, uint32_t tg, uint32_t lid)
{
	const struct ftree *t = rp->t;
	static const uint8_t of_state[] = { W_BAD, W_DOWN, W_UPDOWN, W_OTHER };
	for (uint32_t i = 0; i < rp->nr; i++) {
		uint32_t y = rp->rl[i];
		uint8_t out = entry(rp, y, lid);
		/* Same entry, same shape: what leads into y is as before. */
		if (out == rp->old[y] && of_state[rp->state[y]] == rp->old_ty[y])
			continue;
		uint32_t z = ft_far_sw(t, y, out);
		int y_up = z != FAB_NONE && t->level[z] > t->level[y];
		for (int pass = 0; pass < 2; pass++) {
			const struct ft_link *L = pass ? t->dn : t->up;
			const uint32_t *off = pass ? t->dn_off : t->up_off;
			for (uint32_t k = off[y]; k < off[y + 1]; k++) {
				const struct ft_link *l = &L[k];
				uint32_t u = l->peer;
				if (in_r(rp, u) || entry(rp, u, lid) != l->rport)
					continue;
				int down_into = !pass;  /* u above y sends down */
				int was = shape_via(down_into, rp->old_ty[y]);
				int now = shape_via(down_into, of_state[rp->state[y]]);
				int ok = now != W_BAD && (!is_good(was) || is_good(now));
				if (ok && down_into && y_up) {
					int r = need_turns(rp);
					if (r)
						return r < 0 ? r : -1;
					ok = ft_turn_ok(&rp->tu, y, l->port, out, 0) ||
					     ft_turn_take(&rp->tu, y, l->port, out);
				}
				if (ok)
					continue;
				add_to_r(rp, u, lid);
				rp->old_ty[u] = (uint8_t)was;
				/* paths through u are open again: forget them */
				rp->wround = ++rp->wstamp;
				int r = decide_one(rp, u, tg, lid);
				if (r)
					return r;
			}
		}
	}
	return 0;
}

/* Steps a-c over R as it stands. 0, or -1 with switches left open. */
static int decide_set(struct ft_repair *rp, const struct ft_dest *d,
		      uint32_t lid, uint32_t *undecided, int lazy)
{
	const struct ftree *t = rp->t;
	uint32_t tg = d->sw;
	/* Lazy mode decides detours in the order switches joined R: the
	 * broken ones first, so that a switch behind one keeps its entry when
	 * the broken one's new path suits it (a top that lost its link to a
	 * pod takes one middle below it as its detour; the other 62 middles
	 * that went up to it keep their entries). */
	uint32_t n = rp->nr;
	if (lazy)
		memcpy(undecided, rp->rl, n * sizeof(uint32_t));
	sort_r(rp);
	/* Flow each switch of R carried (old entries), for the costs. */
	if (d->weighted)
		for (uint32_t i = 0; i < rp->nr; i++) {
			uint32_t x = rp->rl[i];
			uint32_t o = ft_far_sw(t, x, rp->old[x]);
			if (o != FAB_NONE && in_r(rp, o) && t->level[o] > t->level[x])
				rp->inflow[o] += rp->inflow[x] + t->weight[x];
		}
	for (uint32_t i = 0; i < rp->nr; i++) {
		rp->wstamp += lazy;
		decide_down(rp, rp->rl[i], tg, lid);
	}
	/* ancestors first in the flow accounting: the flow reaches them last */
	for (uint32_t i = rp->nr; d->weighted && i-- > 0;)
		if (rp->state[rp->rl[i]] == RS_DOWN)
			account(rp, rp->rl[i], tg, lid,
				t->weight[rp->rl[i]] + rp->inflow[rp->rl[i]]);
	for (uint32_t i = rp->nr; i-- > 0;) {
		uint32_t x = rp->rl[i];
		if (rp->state[x] != RS_OPEN)
			continue;
		rp->wstamp += lazy;
		uint64_t f = d->weighted ? t->weight[x] + rp->inflow[x] : 0;
		decide_up(rp, x, tg, lid, f);
		if (d->weighted && rp->state[x] == RS_UP)
			account(rp, x, tg, lid, f);
	}
	if (!lazy)
		n = detour_order(rp, undecided);
	if (n) {
		int r = need_turns(rp);
		if (r)
			return r < 0 ? r : -1;
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t x = undecided[i];
		if (rp->state[x] != RS_OPEN)
			continue;
		rp->wstamp += lazy;
		if (decide_detour(rp, x, tg, lid)) {
			if (!lazy)
				log_info("ftree: repair: switch \"%.24s\" finds no "
					 "detour to LID %u that keeps the CDG acyclic",
					 t->fab->nodes[t->fab->switches[x]].desc, lid);
			return -1;
		}
	}
	for (uint32_t i = 0; i < rp->nr; i++)
		if (rp->state[rp->rl[i]] == RS_OPEN) {
			if (!lazy)
				log_info("ftree: repair: switch \"%.24s\" is cut off "
					 "from LID %u", t->fab->nodes[t->fab->switches[rp->rl[i]]].desc,
					 lid);
			return -1;
		}
	return 0;
}

/* Lazy mode got stuck: back to the old entries, and the switches leading
 * into a switch left open join R (their own way out may be what the stuck
 * one needs). 0 if R grew. */
static int grow(struct ft_repair *rp, uint32_t lid)
{
	const struct ftree *t = rp->t;
	uint32_t n0 = rp->nr;
	for (uint32_t i = 0; i < n0; i++)
		set_entry(rp, rp->rl[i], lid, rp->old[rp->rl[i]]);
	for (uint32_t i = 0; i < n0; i++) {
		uint32_t y = rp->rl[i];
		int stuck = rp->state[y] == RS_OPEN;
		rp->state[y] = RS_OPEN;
		rp->inflow[y] = 0;
		if (!stuck)
			continue;
		for (int pass = 0; pass < 2; pass++) {
			const struct ft_link *L = pass ? t->dn : t->up;
			const uint32_t *off = pass ? t->dn_off : t->up_off;
			for (uint32_t k = off[y]; k < off[y + 1]; k++) {
				uint32_t u = L[k].peer;
				if (in_r(rp, u) || entry(rp, u, lid) != L[k].rport)
					continue;
				add_to_r(rp, u, lid);
				rp->old_ty[u] = (uint8_t)shape_via(!pass, rp->old_ty[y]);
			}
		}
	}
	rp->wround = ++rp->wstamp;
	return rp->nr > n0 ? 0 : -1;
}

#define FT_REPAIR_GROW_ROUNDS 6

/* Repair one LID given its broken entries h[0..nh). Compute-node LIDs
 * take the whole R at once (their flows are weighed together); switch
 * LIDs go lazily, growing R a few times where that gets stuck, then
 * take the whole R. 0, or -1 if some switch finds no path (the engine
 * then routes in full). */
static int repair_lid(struct ft_repair *rp, uint32_t lid, const struct ft_hit *h,
		      uint32_t nh, uint32_t *undecided)
{
	const struct ftree *t = rp->t;
	uint32_t di = rp->dest_of[lid];
	rp->stamp++;
	rp->wround = ++rp->wstamp;
	rp->nr = 0;
	for (uint32_t i = 0; i < nh; i++)
		if (!in_r(rp, h[i].sw))
			add_to_r(rp, h[i].sw, lid);
	if (di == FAB_NONE) {           /* no destination here any more */
		for (uint32_t i = 0; i < rp->nr; i++)
			set_entry(rp, rp->rl[i], lid, LFT_NO_PATH);
		return 0;
	}
	const struct ft_dest *d = &t->dest[di];
	int r = -1;
	if (!d->weighted) {
		for (uint32_t i = 0; i < rp->nr; i++)
			rp->old_ty[rp->rl[i]] =
				(uint8_t)prev_shape(rp, rp->rl[i], d->sw, lid);
		for (int round = 0; round < FT_REPAIR_GROW_ROUNDS; round++) {
			r = decide_set(rp, d, lid, undecided, 1);
			if (!r)
				r = extend_lazily(rp, d->sw, lid);
			if (r != -1 || grow(rp, lid))
				break;
		}
		if (r < -1)
			return r;
		if (r) {                /* the whole R after all */
			rp->lazy_fallbacks++;
			for (uint32_t i = 0; i < rp->nr; i++)
				set_entry(rp, rp->rl[i], lid, rp->old[rp->rl[i]]);
			rp->stamp++;
			rp->wround = ++rp->wstamp;
			rp->nr = 0;
			for (uint32_t i = 0; i < nh; i++)
				if (!in_r(rp, h[i].sw))
					add_to_r(rp, h[i].sw, lid);
		}
	}
	if (r) {
		/* Everything whose entry leads into R. */
		for (uint32_t i = 0; i < rp->nr; i++) {
			uint32_t y = rp->rl[i];
			for (uint32_t k = t->nb_off[y]; k < t->nb_off[y + 1]; k++) {
				uint32_t u = t->nb_peer[k];
				if (!in_r(rp, u) && entry(rp, u, lid) == t->nb_rport[k])
					add_to_r(rp, u, lid);
			}
		}
		if ((r = decide_set(rp, d, lid, undecided, 0)))
			return r;
	}
	for (uint32_t i = 0; i < rp->nr; i++) {
		rp->redecided++;
		rp->detours += rp->state[rp->rl[i]] == RS_DETOUR;
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

int ft_repair(struct ft_work *w, const struct route_options *opt,
	      struct lft_set *lft, unsigned threads)
{
	const struct ftree *t = w->t;
	struct ft_repair rp = { .t = t, .prev = w->prev, .prev_sw = w->prev_sw,
				.lft = lft, .pf = opt ? opt->prev_fab : NULL };
	char why[200] = "";
	double t0 = now_seconds(), c0 = cpu_seconds();
	int r;

	ft_repair_taken = 0;
	if (!ft_repair_enabled || !w->prev || !rp.pf)
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
	unsigned nthr = copy_tables(&rp, threads);
	rp.threads = nthr;
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
	uint32_t *undecided = malloc((t->nsw ? t->nsw : 1) * sizeof(uint32_t));
	if (!undecided) {
		r = -ENOMEM;
		goto fail;
	}
	uint64_t blocks = 0;
	uint32_t *last_blk = calloc(t->nsw ? t->nsw : 1, sizeof(uint32_t));
	if (!last_blk) {
		free(undecided);
		r = -ENOMEM;
		goto fail;
	}
	for (uint64_t i = 0; i < rp.nhits;) {
		uint64_t j = i;
		while (j < rp.nhits && rp.hits[j].lid == rp.hits[i].lid)
			j++;
		uint32_t lid = rp.hits[i].lid;
		int rc = repair_lid(&rp, lid, rp.hits + i, (uint32_t)(j - i),
				    undecided);
		if (rc) {
			r = rc == -1 ? 1 : rc;
			break;
		}
		rp.nlids++;
		for (uint32_t k = 0; k < rp.nr; k++) {
			uint32_t x = rp.rl[k];
			if (entry(&rp, x, lid) == rp.old[x])
				continue;
			rp.changed++;
			/* LIDs come in ascending order: a block counts once */
			if (last_blk[x] != lid / LFT_BLOCK + 1) {
				last_blk[x] = lid / LFT_BLOCK + 1;
				blocks++;
			}
		}
		i = j;
	}
	free(undecided);
	free(last_blk);
	if (r)
		goto fail;
	log_info("ftree: repair: %u ports lost their link, %u LIDs gone; %u LIDs affected, "
		 "%llu entries changed (+%llu cleared) in %llu 64-entry LFT "
		 "blocks: %llu re-decided, %llu on detours, %llu LIDs whole; "
		 "copy %.3f s (%u "
		 "threads), repair %.3f s (previous turns %llu in %.3f s, %llu "
		 "new); CPU %.3f s", rp.nlost, rp.ngone, rp.nlids,
		 (unsigned long long)rp.changed, (unsigned long long)rp.cleared,
		 (unsigned long long)blocks, (unsigned long long)rp.redecided,
		 (unsigned long long)rp.detours,
		 (unsigned long long)rp.lazy_fallbacks, t1 - t0, nthr, now_seconds() - t1,
		 (unsigned long long)rp.prev_turns, rp.turns_s,
		 (unsigned long long)(rp.have_turns ? rp.tu.taken - rp.prev_turns : 0),
		 cpu_seconds() - c0);
	repair_free(&rp);
	ft_repair_taken = 1;
	return 1;
fail:
	/* Back to freshly allocated tables for the full route. */
	memset(lft->port, LFT_NO_PATH, (size_t)lft->stride * lft->num_switches);
	lft_fill_local(t->fab, lft);
	if (r > 0)
		log_info("ftree: repair abandoned: routing in full");
	repair_free(&rp);
	return r < 0 ? r : 0;
}
