/* The per-destination pass of the verifier. For one destination LID every
 * switch is stepped exactly once: a walk follows the LFT from a switch until
 * it reaches a switch already resolved for this LID (memoised hop count, or
 * dead end / loop), so a LID costs O(switches) and the whole pass
 * O(switches x LIDs) instead of O(CA pairs x hops).
 *
 * From the resolved switches it derives, per LID: completeness of every
 * entry, the fate of every (CA port, LID) pair (its switch's outcome times
 * the CAs on it), hops against the BFS minimum, the channel dependencies of
 * the routes actually used by CA traffic, and (base LIDs of CAs) the
 * all-to-all link loads by pushing source counts down the destination's
 * forwarding tree. Destination switches are split into contiguous ranges,
 * one per thread; results are integers merged in range order, so the
 * output does not depend on the thread count.
 *
 * The tables are row-major per switch, so one LID's walk touches one byte
 * in each of the switches' rows, a cache miss each (at 65,536 CAs, 5,120
 * misses per LID were 3/4 of a route-and-verify run). LIDs are therefore
 * read in batches of VX_BATCH, those of consecutive destination switches
 * (their own, their CAs', mostly consecutive numbers): one pass over the
 * rows copies their entries, and where each leads, into small LID-major
 * matrices, from which the walks run LID by LID in the order as before.
 *
 * The hop minimums come from verify_bfs.c, 64 destination switches at a
 * time, and the walks start from the switches nearest the destination
 * first, in ordinal order within a distance: what a switch resolves to
 * does not depend on where walks start, only which switch of a loop is
 * met first does, and so the messages' order. A LID whose walks met a dead
 * end or a loop, while messages are still kept, is therefore walked again
 * from the switches in breadth-first order from its destination switch
 * (vx_bfs, as before), this time only to say what they meet. Counts,
 * sums and messages are those of the one-LID-at-a-time pass. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "verify_internal.h"

#define HOPS_PENDING (-3)       /* on the current walk's stack */
#define HOPS_LOOP (-2)
#define HOPS_DEAD (-1)          /* missing entry, bad port, misdelivered */
#define VX_BATCH 128            /* LIDs read from the rows together */
#define TO_STEP (UINT32_MAX - 8) /* batch `to` entries past it: a vx_step */

struct worker {
	const struct vx *x;
	uint32_t d_lo, d_hi;    /* destination switch ordinals [lo, hi) */
	uint64_t *bits;         /* own CDG bitmap, or NULL */
	uint64_t *load;         /* own per-port loads, or NULL */
	uint64_t *reach;        /* per switch: CA destinations it reaches */
	uint8_t *self_ok;       /* per terminal (shared, each written once) */
	/* scratch, per switch */
	uint32_t d;             /* the destination switch being checked */
	const uint32_t *dist;   /* its row of grp.dist */
	struct vx_bfs_group grp;
	uint32_t bfs_d, bfs_n;  /* vx_bfs from bfs_d: bfs_dist, bfs_queue */
	uint32_t *bfs_dist, *bfs_queue;
	uint32_t *srcq, srcn;   /* the switches of queue with CAs on them */
	/* switches with a route to the LID in the order their hops were
	 * found: a switch after the one it forwards to */
	uint32_t *resolved, nres;
	uint32_t *queue, *stamp, *used, *nxt, *egr, *stack, *cnt;
	uint32_t *bucket;
	int32_t *hops;
	uint32_t iter;
	/* the batch: its LIDs, their terminals and LMC offsets, the entries
	 * ent[j * ent_row + s] switch s holds for LID j, and in
	 * to[j * to_row + s] where they lead: the next switch, or TO_STEP +
	 * the vx_step. Rows are an odd number of cache lines long: the
	 * gather writes one column, and rows a power of two of lines apart
	 * would all fall into a few cache sets. */
	uint32_t nb, b_lid[VX_BATCH], b_dt[VX_BATCH], b_k[VX_BATCH];
	uint32_t b_d[VX_BATCH]; /* destination switch, within w->grp */
	uint8_t *ent;
	uint32_t *to;
	size_t ent_row, to_row;
	/* statistics */
	uint64_t events;        /* dead ends and loops met by walks */
	uint64_t missing, bad, misdel, checked, unreach, looping, reached;
	uint64_t missing_sw;    /* of missing: the LID is a switch's */
	uint64_t loops, loops_sw; /* cycles met, of them for a switch's LID */
	uint64_t hop_sum, min_total;
	uint64_t *hop_by_min;   /* path hops summed per BFS minimum */
	uint32_t max_hops;
	double max_stretch;
	struct vx_errors errs;
	int rc;
};

static int lid_of_switch(const struct vx *x, uint32_t lid)
{
	return lid <= x->max_lid && x->owner[lid] != FAB_NONE &&
	       fab_is_switch(x->f, x->f->ports[x->owner[lid]].node);
}

static void count_step(struct worker *w, uint32_t lid, enum vx_step st)
{
	const struct vx *x = w->x;

	w->events += st != VX_DELIVER;
	switch (st) {
	case VX_MISSING:
		w->missing++;
		if (lid_of_switch(x, lid))
			w->missing_sw++;
		break;
	case VX_BAD_PORT:
		w->bad++;
		break;
	case VX_MISDELIVER:
		w->misdel++;
		break;
	default:
		break;
	}
}

static void say_step(struct worker *w, uint32_t s, uint32_t lid, uint8_t p,
		     enum vx_step st)
{
	const struct vx *x = w->x;
	char a[80], b[80];

	switch (st) {
	case VX_MISSING:
		vx_err_add(&w->errs, "switch %s has no entry for LID %u",
			   vx_sw_name(x, s, a, sizeof(a)), lid);
		break;
	case VX_BAD_PORT:
		vx_err_add(&w->errs, "switch %s sends LID %u to port %u, which %s",
			   vx_sw_name(x, s, a, sizeof(a)), lid, p,
			   p == 0 ? "is the switch itself" :
			   p > x->f->nodes[x->f->switches[s]].num_ports ?
			   "does not exist" : "is not linked");
		break;
	case VX_MISDELIVER: {
		uint32_t pi = fab_port_idx(x->f, x->f->switches[s], p);
		const struct fab_node *n =
			&x->f->nodes[fab_peer_node(x->f, pi)];
		snprintf(b, sizeof(b), "'%s'", n->desc);
		vx_err_add(&w->errs, "switch %s sends LID %u out of port %u to "
			   "%s, which does not own it",
			   vx_sw_name(x, s, a, sizeof(a)), lid, p, b);
		break;
	}
	default:
		break;
	}
}

static void note_loop(struct worker *w, uint32_t lid, uint32_t at,
		      uint32_t top)
{
	const struct vx *x = w->x;
	char msg[VERIFY_ERR_LEN], a[80];
	int len, shown = 0;
	uint32_t i = 0;

	if (w->errs.count >= w->errs.cap)
		return;
	while (i < top && w->stack[i] != at)
		i++;
	len = snprintf(msg, sizeof(msg), "LID %u: forwarding loop", lid);
	for (; i < top && len < (int)sizeof(msg); i++, shown++)
		len += snprintf(msg + len, sizeof(msg) - len, "%s%s",
				shown ? " -> " : " ", vx_sw_name(x, w->stack[i], a, sizeof(a)));
	if (len < (int)sizeof(msg))
		snprintf(msg + len, sizeof(msg) - len, " -> %s",
			 vx_sw_name(x, at, a, sizeof(a)));
	vx_err_add(&w->errs, "%s", msg);
}

/* Resolve switch s0 (and every switch its route passes) for `lid`, whose
 * entries are row `ent` (and `to`) of the batch. Dead ends and loops are
 * counted, or with `say` only put into messages. */
static void walk_from(struct worker *w, uint32_t s0, uint32_t lid,
		      const uint8_t *ent, const uint32_t *to, int say)
{
	const struct vx *x = w->x;
	uint32_t top = 0, cur = s0;
	int32_t v;

	for (;;) {
		if (w->stamp[cur] == w->iter) {
			v = w->hops[cur];
			if (v == HOPS_PENDING) {
				if (say) {
					note_loop(w, lid, cur, top);
				} else {
					w->events++;
					w->loops++;
					w->loops_sw += lid_of_switch(x, lid);
				}
				v = HOPS_LOOP;
			}
			break;
		}
		w->stamp[cur] = w->iter;
		w->hops[cur] = HOPS_PENDING;
		w->stack[top++] = cur;
		enum vx_step st = to[cur] < TO_STEP ? VX_NEXT :
			(enum vx_step)(to[cur] - TO_STEP);
		/* as vx_step_port sets them */
		w->nxt[cur] = st == VX_NEXT ? to[cur] : FAB_NONE;
		w->egr[cur] = st == VX_NEXT || st == VX_MISDELIVER ||
			(st == VX_DELIVER && ent[cur] != 0) ?
			x->sw_first[cur] + ent[cur] : FAB_NONE;
		if (st == VX_NEXT) {
			cur = w->nxt[cur];
			continue;
		}
		if (say)
			say_step(w, cur, lid, ent[cur], st);
		else
			count_step(w, lid, st);
		v = st == VX_DELIVER ? 0 : HOPS_DEAD;
		w->hops[cur] = v;
		if (v == 0 && !say)
			w->resolved[w->nres++] = cur;
		top--;
		break;
	}
	while (top) {
		uint32_t u = w->stack[--top];
		if (v >= 0 && v != HOPS_LOOP)
			v++;
		w->hops[u] = v;
		if (v >= 0 && !say)
			w->resolved[w->nres++] = u;
	}
}

static uint32_t sources_on(const struct vx *x, uint32_t s, uint32_t dt)
{
	uint32_t n = x->sw_term_off[s + 1] - x->sw_term_off[s];
	if (dt != FAB_NONE && x->term_sw[dt] == s)
		n--;
	return n;
}

/* Pairs (CA port on s, lid) for every switch s of the component (those
 * with CAs on them: w->srcq). */
static void count_pairs(struct worker *w, uint32_t dt)
{
	const struct vx *x = w->x;
	uint32_t last = dt != FAB_NONE;

	for (uint32_t i = 0; i < w->srcn; i++) {
		uint32_t s = w->srcq[i], n = sources_on(x, s, dt);
		if (!n)
			continue;
		w->checked += n;
		int32_t v = w->hops[s];
		if (v == HOPS_LOOP) {
			w->looping += n;
			continue;
		}
		if (v < 0) {
			w->unreach += n;
			continue;
		}
		uint32_t hops = (uint32_t)v + 1 + last;
		uint32_t min = w->dist[s] + 1 + last;
		w->reached += n;
		w->hop_sum += (uint64_t)n * hops;
		w->hop_by_min[min] += (uint64_t)n * hops;
		if (hops > w->max_hops)
			w->max_hops = hops;
		double st = (double)hops / min;
		if (st > w->max_stretch)
			w->max_stretch = st;
	}
}

/* Dependencies of the routes CA traffic takes to this LID: mark the
 * switches on some CA's path, then each marked switch u forwarding to v
 * adds (channel u->v, channel v->next) when v forwards to a switch. */
static void add_dependencies(struct worker *w, uint32_t dt)
{
	const struct vx *x = w->x;

	for (uint32_t i = 0; i < w->srcn; i++) {
		uint32_t u = w->srcq[i];
		if (w->hops[u] < 0 || !sources_on(x, u, dt))
			continue;
		while (w->used[u] != w->iter) {
			w->used[u] = w->iter;
			if (w->hops[u] <= 0)
				break;
			uint32_t v = w->nxt[u];
			if (w->hops[v] > 0) {
				/* port numbers from the port map, not the
				 * fabric's scattered port structs */
				uint64_t np = x->sw_port_off[v + 1] - x->sw_port_off[v];
				uint32_t in = x->sw_port_back[x->sw_port_off[u] +
							      w->egr[u] - x->sw_first[u]];
				uint32_t out = w->egr[v] - x->sw_first[v];
				uint64_t bit = x->bit_off[v] + in * np + out;
				w->bits[bit / 64] |= 1ULL << (bit % 64);
			}
			u = v;
		}
	}
}

/* All-to-all loads for CA destination dt: sources pushed down the tree,
 * each switch's count before the switch it forwards to (the reverse of
 * the order the walks resolved them in). */
static void add_loads(struct worker *w, uint32_t dt)
{
	const struct vx *x = w->x;

	for (uint32_t i = 0; i < w->srcn; i++) {
		uint32_t s = w->srcq[i];
		w->min_total += (uint64_t)sources_on(x, s, dt) * w->dist[s];
	}
	w->self_ok[dt] = w->hops[x->term_sw[dt]] >= 0;
	for (uint32_t i = 0; i < w->nres; i++) {
		uint32_t s = w->resolved[i];
		w->reach[s]++;
		w->cnt[s] = sources_on(x, s, dt);
	}
	for (uint32_t i = w->nres; i-- > 0;) {
		uint32_t s = w->resolved[i];
		if (!w->cnt[s])
			continue;
		if (w->egr[s] != FAB_NONE)
			w->load[w->egr[s]] += w->cnt[s];
		if (w->hops[s] > 0)
			w->cnt[w->nxt[s]] += w->cnt[s];
	}
}

/* Copy every switch's entries for the batch's LIDs into w->ent, and where
 * they lead into w->to: the switch's port map is then read in a burst
 * rather than once per step of the walks. Rows are read in switch order,
 * the batch's cache lines of the row GATHER_AHEAD rows on prefetched: each
 * row is a different page, and the loads would otherwise wait for memory
 * one row at a time. */
#define GATHER_AHEAD 16
#define GATHER_LINES 8          /* distinct lines prefetched, at most */
static void gather(struct worker *w)
{
	const struct vx *x = w->x;
	const struct lft_set *t = x->t;
	uint32_t nsw = x->nsw, nb = w->nb, nl = 0, line[GATHER_LINES];

	for (uint32_t j = 0; j < nb; j++) {
		uint32_t l = w->b_lid[j] / 64, i = 0;
		if (w->b_lid[j] > t->max_lid)
			continue;
		while (i < nl && line[i] != l)
			i++;
		if (i == nl && nl < GATHER_LINES)
			line[nl++] = l;
	}
	for (uint32_t s = 0; s < nsw; s++) {
		uint8_t *e = w->ent + s;
		uint32_t *to = w->to + s, nx, eg;
		if (s + GATHER_AHEAD < t->num_switches)
			for (uint32_t i = 0; i < nl; i++)
				__builtin_prefetch(lft_row(t, s + GATHER_AHEAD) +
						   (size_t)line[i] * 64);
		for (uint32_t j = 0; j < nb; j++) {
			uint32_t lid = w->b_lid[j];
			uint8_t p = s < t->num_switches ? lft_get(t, s, lid) :
				LFT_NO_PATH;
			enum vx_step st = vx_step_port(x, s, lid, p, &nx, &eg);
			e[j * w->ent_row] = p;
			to[j * w->to_row] = st == VX_NEXT ? nx : TO_STEP + st;
		}
	}
}

/* Walk `lid` again from the switches in the order vx_bfs visits them from
 * the destination switch, for the messages. */
static void say_again(struct worker *w, uint32_t lid, const uint8_t *ent,
		      const uint32_t *to)
{
	if (w->bfs_d != w->d) {
		vx_bfs(w->x, w->d, w->bfs_dist, w->bfs_queue, &w->bfs_n);
		w->bfs_d = w->d;
	}
	w->iter++;
	for (uint32_t i = 0; i < w->bfs_n; i++)
		if (w->stamp[w->bfs_queue[i]] != w->iter)
			walk_from(w, w->bfs_queue[i], lid, ent, to, 1);
}

/* The switches connected to w->d into w->queue, nearest first (then in
 * ordinal order), so that most walks end after one step on a switch
 * already resolved. Returns how many. */
static uint32_t by_distance(struct worker *w)
{
	const struct vx *x = w->x;
	uint32_t maxd = 0, n;

	for (uint32_t s = 0; s < x->nsw; s++)
		if (w->dist[s] != UINT32_MAX && w->dist[s] > maxd)
			maxd = w->dist[s];
	memset(w->bucket, 0, ((size_t)maxd + 2) * sizeof(uint32_t));
	for (uint32_t s = 0; s < x->nsw; s++)
		if (w->dist[s] != UINT32_MAX)
			w->bucket[w->dist[s] + 1]++;
	for (uint32_t h = 0; h <= maxd; h++)
		w->bucket[h + 1] += w->bucket[h];
	n = w->bucket[maxd + 1];
	for (uint32_t s = 0; s < x->nsw; s++)
		if (w->dist[s] != UINT32_MAX)
			w->queue[w->bucket[w->dist[s]]++] = s;
	w->srcn = 0;
	for (uint32_t i = 0; i < n; i++)
		if (x->sw_term_off[w->queue[i] + 1] > x->sw_term_off[w->queue[i]])
			w->srcq[w->srcn++] = w->queue[i];
	return n;
}

/* The batch's LIDs, in the order they were queued. */
static void flush(struct worker *w)
{
	const struct vx *x = w->x;
	uint32_t qn = 0;
	/* nxt and egr are read only by the CDG and the loads */
	int trees = w->bits || w->load;

	if (!w->nb)
		return;
	gather(w);
	w->d = FAB_NONE;
	for (uint32_t j = 0; j < w->nb; j++) {
		if (w->b_d[j] != w->d) {
			w->d = w->b_d[j];
			w->dist = w->grp.dist + (size_t)(w->d - w->grp.lo) * x->nsw;
			qn = by_distance(w);
		}
		uint32_t lid = w->b_lid[j], dt = w->b_dt[j];
		const uint8_t *ent = w->ent + j * w->ent_row;
		const uint32_t *to = w->to + j * w->to_row;
		uint64_t events = w->events;
		w->iter++;
		w->nres = 0;
		for (uint32_t i = 0; i < qn; i++) {
			uint32_t u = w->queue[i], v = to[u];
			if (w->stamp[u] == w->iter)
				continue;
			/* Nearest first, most switches forward to one already
			 * resolved: walk_from's first step, inline. */
			if (v < TO_STEP && w->stamp[v] == w->iter) {
				int32_t h = w->hops[v];
				w->stamp[u] = w->iter;
				w->hops[u] = h >= 0 ? h + 1 : h;
				if (h >= 0)
					w->resolved[w->nres++] = u;
				if (trees) {
					w->nxt[u] = v;
					w->egr[u] = x->sw_first[u] + ent[u];
				}
				continue;
			}
			walk_from(w, u, lid, ent, to, 0);
		}
		if (w->events != events && w->errs.count < w->errs.cap)
			say_again(w, lid, ent, to);
		count_pairs(w, dt);
		if (w->bits && (dt != FAB_NONE || x->o->cdg_switch_lids))
			add_dependencies(w, dt);
		if (w->load && dt != FAB_NONE && w->b_k[j] == 0)
			add_loads(w, dt);
	}
	w->nb = 0;
}

/* Queue every LID of endpoint port ep, attached to destination switch d. */
static void check_endpoint(struct worker *w, uint32_t ep, uint32_t d)
{
	const struct vx *x = w->x;
	const struct fab_port *p = &x->f->ports[ep];
	uint32_t dt = x->term_of_port[ep];

	for (uint32_t k = 0; k < (1u << p->lmc); k++) {
		uint32_t lid = p->lid + k;
		if (!p->lid || lid > x->max_lid || x->owner[lid] != ep ||
		    (x->o->unchecked_lid && lid == x->o->unchecked_lid))
			continue;
		if (w->nb == VX_BATCH)
			flush(w);
		w->b_d[w->nb] = d;
		w->b_lid[w->nb] = lid;
		w->b_dt[w->nb] = dt;
		w->b_k[w->nb] = k;
		w->nb++;
	}
}

/* Destination switches in order; a batch holds the LIDs of several (the
 * CAs' LIDs of neighbouring leaves share cache lines) but never spans two
 * groups of distances. */
static void *work(void *arg)
{
	struct worker *w = arg;
	const struct vx *x = w->x;

	for (uint32_t d = w->d_lo; d < w->d_hi; d++) {
		if (d == w->d_lo || d - w->grp.lo >= w->grp.n) {
			flush(w);
			vx_bfs_group_run(x, &w->grp, d, w->d_hi - d < VX_GROUP ?
					 w->d_hi - d : VX_GROUP);
		}
		check_endpoint(w, x->f->nodes[x->f->switches[d]].first_port, d);
		for (uint32_t i = x->sw_term_off[d]; i < x->sw_term_off[d + 1]; i++)
			check_endpoint(w, x->term[x->sw_term[i]], d);
	}
	flush(w);
	return NULL;
}

static void worker_free(struct worker *w)
{
	vx_bfs_group_free(&w->grp);
	free(w->bfs_dist);
	free(w->bfs_queue);
	free(w->queue);
	free(w->srcq);
	free(w->resolved);
	free(w->stamp);
	free(w->used);
	free(w->nxt);
	free(w->egr);
	free(w->stack);
	free(w->cnt);
	free(w->bucket);
	free(w->hops);
	free(w->ent);
	free(w->to);
	free(w->hop_by_min);
	free(w->reach);
	free(w->errs.msg);
	free(w->bits);
	free(w->load);
}

static int worker_init(struct worker *w, const struct vx *x, int bits,
		       int load, uint8_t *self_ok, uint32_t cap)
{
	size_t n = (size_t)x->nsw + 2;
	memset(w, 0, sizeof(*w));
	w->x = x;
	w->self_ok = self_ok;
	w->bfs_d = FAB_NONE;
	w->bfs_dist = malloc(n * sizeof(uint32_t));
	w->bfs_queue = malloc(n * sizeof(uint32_t));
	w->queue = malloc(n * sizeof(uint32_t));
	w->srcq = malloc(n * sizeof(uint32_t));
	w->resolved = malloc(n * sizeof(uint32_t));
	w->stamp = calloc(n, sizeof(uint32_t));
	w->used = calloc(n, sizeof(uint32_t));
	w->nxt = malloc(n * sizeof(uint32_t));
	w->egr = malloc(n * sizeof(uint32_t));
	w->stack = malloc(n * sizeof(uint32_t));
	w->cnt = malloc(n * sizeof(uint32_t));
	w->bucket = malloc((n + 2) * sizeof(uint32_t));
	w->hops = malloc(n * sizeof(int32_t));
	w->ent_row = ((n + 63) / 64 | 1) * 64;
	w->to_row = ((n + 15) / 16 | 1) * 16;
	w->ent = aligned_alloc(64, w->ent_row * VX_BATCH);
	w->to = aligned_alloc(64, w->to_row * VX_BATCH * sizeof(uint32_t));
	w->hop_by_min = calloc(n + 2, sizeof(uint64_t));
	w->reach = calloc(n, sizeof(uint64_t));
	w->errs.cap = cap;
	w->errs.msg = calloc(cap ? cap : 1, VERIFY_ERR_LEN);
	if (bits)
		w->bits = calloc(x->bit_off[x->nsw] / 64 + 1, sizeof(uint64_t));
	if (load)
		w->load = calloc((size_t)x->f->num_ports + 1, sizeof(uint64_t));
	if (vx_bfs_group_init(&w->grp, x->nsw) || !w->bfs_dist ||
	    !w->bfs_queue || !w->queue || !w->srcq || !w->resolved ||
	    !w->stamp || !w->used || !w->nxt || !w->egr || !w->stack ||
	    !w->cnt || !w->bucket || !w->hops || !w->ent || !w->to ||
	    !w->hop_by_min || !w->reach || !w->errs.msg ||
	    (bits && !w->bits) || (load && !w->load))
		return -ENOMEM;
	return 0;
}

/* Contiguous destination ranges of about equal work (1 + CAs per switch). */
static void split(const struct vx *x, struct worker *w, unsigned n)
{
	uint64_t total = (uint64_t)x->nsw + x->nterm, acc = 0;
	uint32_t d = 0;
	for (unsigned k = 0; k < n; k++) {
		w[k].d_lo = d;
		uint64_t goal = total * (k + 1) / n;
		while (d < x->nsw && (k == n - 1 || acc < goal)) {
			acc += 1 + x->sw_term_off[d + 1] - x->sw_term_off[d];
			d++;
		}
		w[k].d_hi = d;
	}
}

static void merge(const struct vx *x, struct worker *w, unsigned n,
		  uint64_t *cdg_bits, uint64_t *a2a_load, uint64_t *min_total,
		  struct vx_errors *errs, struct verify_result *res)
{
	uint64_t reached = 0, hop_sum = 0;
	double stretch_sum = 0;
	size_t nwords = x->bit_off[x->nsw] / 64 + 1;

	for (unsigned k = 0; k < n; k++) {
		res->missing_entries += w[k].missing;
		res->missing_to_switches += w[k].missing_sw;
		res->forwarding_loops += w[k].loops;
		res->loops_to_switches += w[k].loops_sw;
		res->bad_port_entries += w[k].bad;
		res->misdelivered_entries += w[k].misdel;
		res->pairs_checked += w[k].checked;
		res->pairs_unreachable += w[k].unreach;
		res->pairs_looping += w[k].looping;
		reached += w[k].reached;
		hop_sum += w[k].hop_sum;
		*min_total += w[k].min_total;
		if (w[k].max_hops > res->max_hops)
			res->max_hops = w[k].max_hops;
		if (w[k].max_stretch > res->max_stretch)
			res->max_stretch = w[k].max_stretch;
		for (uint32_t i = 0; i < w[k].errs.count; i++)
			vx_err_add(errs, "%s", w[k].errs.msg[i]);
		if (cdg_bits)
			for (size_t i = 0; i < nwords; i++)
				cdg_bits[i] |= w[k].bits[i];
		if (a2a_load)
			for (uint32_t p = 0; p < x->f->num_ports; p++)
				a2a_load[p] += w[k].load[p];
		if (k)
			for (uint32_t s = 0; s < x->nsw; s++)
				w[0].reach[s] += w[k].reach[s];
	}
	/* Exact per-minimum sums keep the stretch independent of threads. */
	for (uint32_t m = 1; m < x->nsw + 4; m++) {
		uint64_t sum = 0;
		for (unsigned k = 0; k < n; k++)
			sum += w[k].hop_by_min[m];
		stretch_sum += (double)sum / m;
	}
	if (reached) {
		res->avg_hops = (double)hop_sum / reached;
		res->avg_stretch = stretch_sum / reached;
	}
}

int vx_dest_pass(const struct vx *x, unsigned threads, uint64_t *cdg_bits,
		 uint64_t *a2a_load, uint64_t *min_total,
		 struct vx_errors *errs, struct verify_result *res)
{
	struct worker *w = calloc(threads, sizeof(*w));
	uint8_t *self_ok = calloc((size_t)x->nterm + 1, 1);
	pthread_t *tid = calloc(threads, sizeof(*tid));
	unsigned started = 0;
	int rc = 0;

	if (!w || !self_ok || !tid) {
		rc = -ENOMEM;
		goto out;
	}
	for (unsigned k = 0; k < threads && !rc; k++)
		rc = worker_init(&w[k], x, cdg_bits != NULL, a2a_load != NULL,
				 self_ok, errs->cap);
	if (rc)
		goto out;
	split(x, w, threads);
	for (unsigned k = 1; k < threads; k++) {
		if (pthread_create(&tid[k], NULL, work, &w[k]))
			break;
		started = k;
	}
	work(&w[0]);
	for (unsigned k = 1; k <= started; k++)
		pthread_join(tid[k], NULL);
	/* Ranges whose thread could not start run here. */
	for (unsigned k = started + 1; k < threads; k++)
		work(&w[k]);
	merge(x, w, threads, cdg_bits, a2a_load, min_total, errs, res);
	if (a2a_load)
		for (uint32_t i = 0; i < x->nterm; i++)
			if (x->term_sw[i] != FAB_NONE)
				a2a_load[x->term[i]] += w[0].reach[x->term_sw[i]] -
							self_ok[i];
out:
	for (unsigned k = 0; w && k < threads; k++)
		worker_free(&w[k]);
	free(w);
	free(tid);
	free(self_ok);
	return rc;
}
