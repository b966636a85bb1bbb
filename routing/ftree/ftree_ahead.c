/* ftree: work done ahead of, or beside, the router (ftree_route.c).
 * The next targets' setups (step 1) depend on the tree only, so they
 * are prepared ahead, in arrays of their own, while the current target's
 * LIDs are routed; when its target comes, a context's arrays are swapped
 * with the router's. Each array keeps its own epoch (swapped with it),
 * so stale marks never match. The detours of each LID are made where its
 * row is written, from a ring of per-target contexts (struct ft_dring,
 * ftree.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ftree.h"

static void next_free(struct ft_next *n)
{
	free(n->w.anc_mark);
	free(n->w.good_mark);
	free(n->w.ng_dist);
	free(n->w.ng_key);
	free(n->w.ng_nh);
	free(n->w.anc_list);
	free(n->w.queue);
	free(n->w.anc_pos);
	free(n->g.cand_off);
	free(n->g.cand);
	free(n->g.cand_lo);
	free(n->g.cand_up);
	free(n->g.cand_port);
	free(n->g.ng_list);
	free(n->g.dflt);
}

static int next_init(struct ft_next *n, const struct ftree *t)
{
	size_t k = t->nsw;
	memset(n, 0, sizeof(*n));
	n->w.t = t;
	n->w.anc_mark = calloc(k, sizeof(uint32_t));
	n->w.good_mark = calloc(k, sizeof(uint32_t));
	n->w.ng_dist = calloc(k, sizeof(uint32_t));
	n->w.ng_key = calloc(k + 1, sizeof(uint64_t));
	n->w.ng_nh = calloc(k, 1);
	n->w.anc_list = calloc(k, sizeof(uint32_t));
	n->w.queue = calloc(k + 1, sizeof(uint32_t));
	n->w.anc_pos = calloc(k, sizeof(uint32_t));
	n->g.cand_off = malloc((k + 2) * sizeof(uint32_t));
	n->g.ng_list = malloc((k ? k : 1) * sizeof(uint32_t));
	n->g.dflt = malloc(k ? k : 1);
	if (!n->w.anc_mark || !n->w.good_mark || !n->w.ng_dist || !n->w.ng_nh ||
	    !n->w.anc_list || !n->w.queue || !n->w.anc_pos || !n->g.cand_off ||
	    !n->g.ng_list ||
	    !n->g.dflt)
		return -ENOMEM;
	return 0;
}

static void next_run(void *arg)
{
	struct ft_next *n = arg;
	n->r = ft_group_setup(&n->w, &n->g, n->tg);
}

static void swap_u32p(uint32_t **a, uint32_t **b)
{
	uint32_t *x = *a;
	*a = *b;
	*b = x;
}

static void swap_u32(uint32_t *a, uint32_t *b)
{
	uint32_t x = *a;
	*a = *b;
	*b = x;
}

static void next_take(struct ft_work *w, struct ft_group *g, struct ft_next *n)
{
	swap_u32p(&w->anc_mark, &n->w.anc_mark);
	swap_u32p(&w->good_mark, &n->w.good_mark);
	swap_u32p(&w->ng_dist, &n->w.ng_dist);
	swap_u32p(&w->anc_list, &n->w.anc_list);
	swap_u32(&w->nanc, &n->w.nanc);
	swap_u32(&w->epoch_grp, &n->w.epoch_grp);
	uint8_t *nh = w->ng_nh;
	w->ng_nh = n->w.ng_nh;
	n->w.ng_nh = nh;
	struct ft_group x = *g;
	*g = n->g;
	n->g = x;
}


void ft_ahead_free(struct ft_ahead *a)
{
	for (uint32_t i = 0; i < a->depth; i++)
		next_free(&a->c[i]);
	a->depth = 0;
}

int ft_ahead_init(struct ft_ahead *a, const struct ftree *t,
		  const struct ft_work *w, uint32_t depth)
{
	memset(a, 0, sizeof(*a));
	depth = depth < 1 ? 1 : depth > FT_SIDE_MAX ? FT_SIDE_MAX : depth;
	for (; a->depth < depth; a->depth++) {
		int r = next_init(&a->c[a->depth], t);
		a->c[a->depth].w.up_rev = w->up_rev;    /* shared, read-only */
		a->c[a->depth].w.up_peer = w->up_peer;
		if (r) {
			a->depth++;
			return r;
		}
	}
	return 0;
}

/* Give free contexts to the next targets of todo (queued on the second
 * thread where side). */
void ft_ahead_fill(struct ft_ahead *a, const struct ftree *t,
		   struct ft_writer *wr)
{
	while (a->given - a->taken < a->depth && a->pos < a->ntodo) {
		struct ft_next *n = &a->c[a->given++ % a->depth];
		const struct ft_dest *d = &t->dest[a->todo[a->pos]];
		n->tg = d->sw;
		n->side = a->side_all || d->weighted;
		while (a->pos < a->ntodo && t->dest[a->todo[a->pos]].sw == n->tg)
			a->pos++;
		/* (depth <= FT_SIDE_MAX: the queue has room) */
		if (n->side && ft_writer_side(wr, next_run, n))
			n->side = 0;    /* the router runs it when it comes */
	}
}

/* The next target's setup into w and g (run here if it was not queued
 * or not started); its context goes to a later target. */
int ft_ahead_take(struct ft_ahead *a, const struct ftree *t,
		  struct ft_writer *wr, struct ft_work *w, struct ft_group *g)
{
	struct ft_next *n = &a->c[a->taken++ % a->depth];
	if (n->side)
		ft_writer_side_wait(wr);
	else
		next_run(n);
	if (n->r)
		return n->r;
	next_take(w, g, n);
	ft_ahead_fill(a, t, wr);
	return 0;
}


void ft_dring_free(struct ft_dring *r)
{
	for (uint32_t i = 0; i < FT_DCTX; i++) {
		free(r->c[i].good);
		free(r->c[i].ng);
	}
	free(r->marks);
}

/* The context of the current target's LIDs (NULL: no detours), or
 * (void *)-1 without memory. */
void *ft_dring_take(struct ft_dring *r, const struct ft_work *w,
		    const struct ft_group *g)
{
	const struct ftree *t = r->t;
	if (!g->has_nongood || !g->nng)
		return NULL;
	struct ft_dctx *c = &r->c[r->next++ % FT_DCTX];
	if (!r->marks && !(r->marks = calloc(t->nsw, sizeof(uint32_t))))
		return (void *)-1;
	if (!c->good && !(c->good = malloc(t->nsw)))
		return (void *)-1;
	if (g->nng > c->ng_cap) {
		free(c->ng);
		c->ng_cap = g->nng;
		if (!(c->ng = malloc(g->nng * sizeof(uint32_t))))
			return (void *)-1;
	}
	for (uint32_t x = 0; x < t->nsw; x++)
		c->good[x] = w->good_mark[x] == w->epoch_grp;
	memcpy(c->ng, g->ng_list, g->nng * sizeof(uint32_t));
	c->nng = g->nng;
	c->serial = r->next;
	return c;
}

/* ft_writer's fix: the detours of one LID's row. */
void ft_dring_fix(void *arg, void *ctx, uint8_t *nh)
{
	struct ft_dring *r = arg;
	struct ft_dctx *c = ctx;
	const struct ftree *t = r->t;
	if (r->marks_of != c->serial) {
		for (uint32_t x = 0; x < t->nsw; x++)
			r->marks[x] = c->good[x];
		r->marks_of = c->serial;
	}
	struct ft_work w;
	memset(&w, 0, sizeof(w));
	w.t = t;
	w.good_mark = r->marks;
	w.epoch_grp = 1;
	w.nh = nh;
	/* Debug log: the detours' CPU time on the thread that makes them. */
	double c0 = r->dt->timed ? ft_thread_cpu() : 0;
	ft_detour_route(r->dt, &w, c->ng, c->nng);
	if (r->dt->timed)
		r->dt->cpu += ft_thread_cpu() - c0;
}