/* ftree: closed-form routes for the CA destinations of an intact tree.
 *
 * On a tree where every switch reaches each of its ancestors by exactly one
 * upward path, every top switch is above every leaf, and compute nodes hang
 * off leaves only, all alike, the load-aware assignment of ftree_route.c
 * decides nothing but the chain (the top-down path into the destination):
 *  - chain switches and the other ancestors of the destination's leaf go
 *    down by the one path there is;
 *  - every other switch goes up, by its one path, to the lowest chain
 *    switch above it (the breadth-first search down from the chain), or,
 *    when no chain switch is above it (it carries no flow), by its first
 *    up-link;
 *  - the all-to-all flow of a destination lands on its chain's down-links
 *    only, the same amount on every up-link choice of a chain switch, and
 *    never over the load cap, so the chain is d-mod-k in rank order (Zahavi
 *    2010) and nothing is ever spilled.
 * So the chains are computed first, one short step per level and LID, with
 * the keys the general assignment uses (load, then column order). Not
 * under LMC: there a CA's LIDs first avoid each other's switches, which
 * can overload links that the general assignment then spills from. After that every switch's
 * row is a pure function of the chains: the rows are written in parallel,
 * each thread a range of switches, each row in LID order (no transposing
 * window). The tables are the ones the general assignment writes (the
 * unit test compares them); switch LIDs still go through it, for their
 * detours. References: see ftree.h. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../core/log.h"
#include "ftree.h"

#define FT_CLOSED_MAX_THREADS 8

struct ft_closed {
	const struct ftree *t;
	struct lft_set *lft;
	uint32_t h;             /* height: chains have h + 1 switches */
	uint32_t *pos;          /* per switch: index within its level */
	uint64_t *row_off;      /* per switch: start of its row in upp */
	uint32_t *above_base;   /* [level * (h + 2) + L]: row index of level L */
	uint8_t *upp;           /* [row y][a]: y's up-port toward ancestor a, 0 none */
	uint8_t *dnt;           /* [upper a][leaf y]: a's down-port toward leaf
				 * y, 0 if a is not above y (upper = by_level
				 * position past the leaves) */
	uint32_t nleaf;
	/* per LID slot, in destination order */
	uint32_t nslot;
	uint32_t *slot_lid, *slot_tg;   /* LID; its leaf's position */
	uint8_t *slot_port;
	uint32_t *chain;        /* [slot * (h + 1) + l]: position of the chain
				 * switch within level l */
};

static uint32_t above_idx(const struct ft_closed *c, uint32_t y, uint32_t a)
{
	const struct ftree *t = c->t;
	return c->above_base[t->level[y] * (c->h + 2) + t->level[a]] + c->pos[a];
}

/* Why the tree is not intact (NULL if it is): the properties the header
 * comment relies on. */
static const char *check_shape(const struct ftree *t, const struct ft_work *w)
{
	if (w->prev)
		return "re-routing keeps previous entries";
	if (t->height == 0)
		return "a single level";
	uint32_t w0 = 0;
	for (uint32_t s = 0; s < t->nsw; s++) {
		if (t->level[s] < t->height && t->up_off[s] == t->up_off[s + 1])
			return "a switch below the top has no up-link";
		if (t->level[s] != 0 && t->weight[s])
			return "compute nodes above the leaves";
		if (t->level[s] == 0) {
			if (!w0)
				w0 = t->weight[s];
			if (t->weight[s] != w0)
				return "leaves with different numbers of compute nodes";
		}
	}
	/* Same up and down degree on each level: with the one-path rule
	 * below, the tree is symmetric and d-mod-k meets the load cap. */
	for (uint32_t l = 0; l <= t->height; l++) {
		uint32_t s0 = t->by_level[t->lvl_off[l]];
		for (uint32_t i = t->lvl_off[l]; i < t->lvl_off[l + 1]; i++) {
			uint32_t s = t->by_level[i];
			if (t->up_off[s + 1] - t->up_off[s] != t->up_off[s0 + 1] - t->up_off[s0] ||
			    t->dn_off[s + 1] - t->dn_off[s] != t->dn_off[s0 + 1] - t->dn_off[s0])
				return "switches of one level with different numbers of links";
		}
	}
	/* Under LMC the LIDs of one CA avoid each other's switches first,
	 * which can overload a link: the load-aware assignment then spills. */
	for (uint32_t i = 0; i < t->nca_dest; i++) {
		if (t->level[t->dest[i].sw] != 0)
			return "a CA above the leaves";
		if (t->dest[i].nlids != 1)
			return "LMC > 0";
	}
	return NULL;
}

static void closed_free(struct ft_closed *c)
{
	free(c->pos);
	free(c->row_off);
	free(c->above_base);
	free(c->upp);
	free(c->dnt);
	free(c->slot_lid);
	free(c->slot_tg);
	free(c->slot_port);
	free(c->chain);
}

/* Rows of ancestors: every switch's one path up to each switch above it.
 * Returns 0, 1 (some ancestor is reached twice, or a leaf misses a top
 * switch: not intact) or -ENOMEM. */
static int build_rows(struct ft_closed *c, uint32_t *list, uint32_t *mark)
{
	const struct ftree *t = c->t;
	uint32_t h = c->h, ntop = t->lvl_off[h + 1] - t->lvl_off[h];
	c->pos = malloc(t->nsw * sizeof(uint32_t));
	c->row_off = malloc((t->nsw + 1) * sizeof(uint64_t));
	c->above_base = calloc((size_t)(h + 1) * (h + 2), sizeof(uint32_t));
	if (!c->pos || !c->row_off || !c->above_base)
		return -ENOMEM;
	for (uint32_t l = 0; l <= h; l++)
		for (uint32_t i = t->lvl_off[l]; i < t->lvl_off[l + 1]; i++)
			c->pos[t->by_level[i]] = i - t->lvl_off[l];
	for (uint32_t ly = 0; ly <= h; ly++) {
		uint32_t base = 0;
		for (uint32_t l = ly + 1; l <= h; l++) {
			c->above_base[ly * (h + 2) + l] = base;
			base += t->lvl_off[l + 1] - t->lvl_off[l];
		}
		c->above_base[ly * (h + 2) + h + 1] = base;
	}
	uint64_t off = 0;
	for (uint32_t s = 0; s < t->nsw; s++) {
		c->row_off[s] = off;
		off += c->above_base[t->level[s] * (h + 2) + h + 1];
	}
	c->row_off[t->nsw] = off;
	c->upp = calloc(off + 1, 1);
	c->nleaf = t->lvl_off[1];
	c->dnt = calloc((size_t)(t->nsw - c->nleaf) * c->nleaf + 1, 1);
	if (!c->upp || !c->dnt)
		return -ENOMEM;
	for (uint32_t y = 0; y < t->nsw; y++) {
		uint8_t *up = c->upp + c->row_off[y];
		uint32_t n = 0, tops = 0;
		/* breadth first up from y; an ancestor seen twice has two paths */
		list[n++] = y;
		for (uint32_t i = 0; i < n; i++) {
			uint32_t b = list[i];
			for (uint32_t k = t->up_off[b]; k < t->up_off[b + 1]; k++) {
				const struct ft_link *l = &t->up[k];
				uint32_t a = l->peer, ix = above_idx(c, y, a);
				if (mark[a] == y + 1)
					return 1;
				mark[a] = y + 1;
				up[ix] = b == y ? l->port : up[above_idx(c, y, b)];
				if (t->level[y] == 0)
					c->dnt[(size_t)(t->lvl_off[t->level[a]] + c->pos[a] -
							c->nleaf) * c->nleaf + c->pos[y]] = l->rport;
				tops += t->level[a] == h;
				list[n++] = a;
			}
		}
		if (t->level[y] == 0 && tops != ntop)
			return 1;
	}
	return 0;
}

/* CA LIDs, and the LIDs of leaf switches: every switch has an up-then-down
 * path to a leaf, so no detour is needed (their flow is nil). Switches
 * above the leaves are routed by the general assignment, for their
 * detours. */
static int closed_dest(const struct ftree *t, uint32_t i)
{
	return i < t->nca_dest || t->level[t->dest[i].sw] == 0;
}

/* The chains, in destination order, with the keys of build_chain() in
 * ftree_route.c (no LMC, no previous tables: load, then column order);
 * each weighted LID's flow lands on its chain's down-links, which is what
 * steers the next ones. Returns 0, 1 if a chain link went over the load
 * cap (not on a symmetric tree; the general assignment would spill), or
 * -ENOMEM. */
static int build_chains(struct ft_closed *c, struct ft_work *w)
{
	const struct ftree *t = c->t;
	uint32_t h = c->h, n = 0;
	for (uint32_t i = 0; i < t->ndest; i++)
		if (closed_dest(t, i))
			n += t->dest[i].nlids;
	c->nslot = n;
	c->slot_lid = malloc((n + 1) * sizeof(uint32_t));
	c->slot_tg = malloc((n + 1) * sizeof(uint32_t));
	c->slot_port = malloc(n + 1);
	c->chain = malloc(((size_t)n * (h + 1) + 1) * sizeof(uint32_t));
	uint64_t *wdown = calloc(t->nsw, sizeof(uint64_t));
	if (!c->slot_lid || !c->slot_tg || !c->slot_port || !c->chain || !wdown) {
		free(wdown);
		return -ENOMEM;
	}
	/* compute nodes below each switch (its rows' ancestors) */
	for (uint32_t y = 0; y < t->nsw; y++) {
		if (!t->weight[y])
			continue;
		wdown[y] += t->weight[y];
		for (uint32_t l = 1; l <= h; l++)
			for (uint32_t i = t->lvl_off[l]; i < t->lvl_off[l + 1]; i++) {
				uint32_t a = t->by_level[i];
				if (c->upp[c->row_off[y] + above_idx(c, y, a)])
					wdown[a] += t->weight[y];
			}
	}
	uint32_t sl = 0;
	int over = 0;
	uint64_t *L = w->load;
	for (uint32_t i = 0; i < t->ndest; i++) {
		const struct ft_dest *d = &t->dest[i];
		if (!closed_dest(t, i))
			continue;
		for (uint32_t j = 0; j < d->nlids; j++, sl++) {
			uint32_t *ch = c->chain + (size_t)sl * (h + 1);
			c->slot_lid[sl] = d->lid + j;
			c->slot_tg[sl] = c->pos[d->sw];
			c->slot_port[sl] = d->port;
			ch[0] = c->pos[d->sw];
			uint32_t cur = d->sw;
			for (uint32_t l = 0; l < h; l++) {
				uint32_t best = FAB_NONE;
				uint64_t bl = 0, bo = 0;
				for (uint32_t k = t->up_off[cur]; k < t->up_off[cur + 1]; k++) {
					const struct ft_link *u = &t->up[k];
					uint64_t ld = L[u->rev_egress], o = t->order[u->peer];
					if (best == FAB_NONE || ld < bl || (ld == bl && o < bo)) {
						best = k;
						bl = ld;
						bo = o;
					}
				}
				const struct ft_link *u = &t->up[best];
				ch[l + 1] = c->pos[u->peer];
				if (d->weighted) {
					L[u->rev_egress] += t->total_weight - wdown[cur];
					if (L[u->rev_egress] > t->cap)
						over = 1;
				}
				cur = u->peer;
			}
		}
	}
	free(wdown);
	return over;
}

struct rows_job {
	const struct ft_closed *c;
	uint32_t from, to;      /* by_level positions */
};

/* One switch's row: its entry for every LID slot. A leaf is the slot's
 * own leaf or goes up; an upper switch goes down if it is above the
 * slot's leaf; otherwise up, by its one path, to the lowest chain switch
 * above it (chain[l] lies above x iff x's row has a port for it), or by
 * its first up-link when none is (it carries no flow). */
static void write_row(const struct ft_closed *c, uint32_t x)
{
	const struct ftree *t = c->t;
	uint32_t lx = t->level[x], h = c->h, px = c->pos[x], n = c->nslot;
	const uint32_t *ab = c->above_base + lx * (h + 2);
	const uint8_t *up = c->upp + c->row_off[x];
	const uint8_t *dn = lx ? c->dnt + (size_t)(t->lvl_off[lx] + px - c->nleaf) *
		c->nleaf : NULL;
	uint8_t first_up = lx < h ? t->up[t->up_off[x]].port : LFT_NO_PATH;
	uint8_t *row = lft_row(c->lft, x);
	const uint32_t *ch = c->chain;
	for (uint32_t s = 0; s < n; s++, ch += h + 1) {
		uint32_t tg = c->slot_tg[s];
		uint8_t p;
		if (dn) {
			p = dn[tg];
		} else if (tg == px) {
			row[c->slot_lid[s]] = c->slot_port[s];
			continue;
		} else {
			p = 0;
		}
		for (uint32_t l = lx + 1; !p && l <= h; l++)
			p = up[ab[l] + ch[l]];
		row[c->slot_lid[s]] = p ? p : first_up;
	}
}

static void *rows_main(void *arg)
{
	const struct rows_job *j = arg;
	for (uint32_t i = j->from; i < j->to; i++)
		write_row(j->c, j->c->t->by_level[i]);
	return NULL;
}

/* Below this many entries a second thread costs more than it saves
 * (as for ftree_write.c's writer); "engine decides" then means one. */
#define FT_CLOSED_THREAD_MIN_ENTRIES (4ull << 20)

static unsigned pick_threads(unsigned threads, uint64_t entries)
{
	if (!threads && entries < FT_CLOSED_THREAD_MIN_ENTRIES)
		return 1;
	long n = threads ? (long)threads : sysconf(_SC_NPROCESSORS_ONLN);
	if (n < 1)
		n = 1;
	return n > FT_CLOSED_MAX_THREADS ? FT_CLOSED_MAX_THREADS : (unsigned)n;
}

static void write_rows(const struct ft_closed *c, unsigned threads)
{
	struct rows_job job[FT_CLOSED_MAX_THREADS];
	pthread_t tid[FT_CLOSED_MAX_THREADS];
	unsigned n = pick_threads(threads, (uint64_t)c->t->nsw * c->nslot), started = 0;
	uint32_t nsw = c->t->nsw;
	for (unsigned k = 0; k < n; k++)
		job[k] = (struct rows_job){ c, (uint32_t)((uint64_t)nsw * k / n),
					    (uint32_t)((uint64_t)nsw * (k + 1) / n) };
	for (unsigned k = 1; k < n; k++) {
		if (pthread_create(&tid[k], NULL, rows_main, &job[k]))
			break;
		started = k;
	}
	rows_main(&job[0]);
	for (unsigned k = started + 1; k < n; k++)
		rows_main(&job[k]);     /* threads that did not start */
	for (unsigned k = 1; k <= started; k++)
		pthread_join(tid[k], NULL);
}

int ft_closed_route(struct ft_work *w, struct lft_set *lft, unsigned threads)
{
	const struct ftree *t = w->t;
	if (!t->tune->closed || !t->nca_dest)
		return 0;
	const char *why = check_shape(t, w);
	if (why) {
		log_debug("ftree: load-aware assignment for every LID: %s", why);
		return 0;
	}
	double t0 = now_seconds();
	struct ft_closed c = { .t = t, .lft = lft, .h = t->height };
	uint32_t *list = malloc(t->nsw * sizeof(uint32_t));
	uint32_t *mark = calloc(t->nsw, sizeof(uint32_t));
	int r = list && mark ? build_rows(&c, list, mark) : -ENOMEM;
	free(list);
	free(mark);
	if (r == 1) {
		log_debug("ftree: load-aware assignment for every LID: some "
			  "switch reaches an upper switch by two paths, or a "
			  "leaf misses a top switch");
		r = 0;
		goto out;
	}
	if (r || (r = build_chains(&c, w)) < 0)
		goto out;
	if (r) {        /* never on a symmetric tree; the general path spills */
		log_debug("ftree: load-aware assignment for every LID: a chain "
			  "link went over the load cap");
		memset(w->load, 0, (size_t)w->num_ports * sizeof(uint64_t));
		r = 0;
		goto out;
	}
	double t1 = now_seconds();
	write_rows(&c, threads);
	log_info("ftree: intact tree: closed-form d-mod-k for %u CA and leaf LIDs "
		 "(chains %.3f s, rows %.3f s, %u threads)", c.nslot, t1 - t0,
		 now_seconds() - t1, pick_threads(threads, (uint64_t)t->nsw * c.nslot));
	r = 1;
	t->stats->closed_taken = 1;
out:
	closed_free(&c);
	return r;
}
