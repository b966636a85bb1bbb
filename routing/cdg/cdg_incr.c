/* The incremental credit-loop checker (cdg_incr.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cdg_incr.h"

void cdg_free(struct cdg_incr *c)
{
	free(c->lab);
	free(c->onext);
	free(c->oprev);
	free(c->ohead);
	free(c->rev);
	free(c->tail);
	free(c->dep_off);
	free(c->dep);
	free(c->bits);
	free(c->refused);
	free(c->log);
	free(c->seen);
	free(c->fq);
	free(c->bq);
	free(c->tmp);
	memset(c, 0, sizeof(*c));
}

int cdg_init(struct cdg_incr *c, uint32_t nch, uint32_t nlayers,
	     const struct cdg_ops *ops, void *ctx)
{
	memset(c, 0, sizeof(*c));
	c->nch = nch;
	c->nlayers = nlayers;
	c->gap_bits = 32;
	c->ops = ops;
	c->ctx = ctx;
	size_t n = (size_t)nch + 1, nl = (size_t)nch * nlayers + 1;
	c->lab = calloc(nl, sizeof(uint64_t));
	c->onext = malloc(nl * sizeof(uint32_t));
	c->oprev = malloc(nl * sizeof(uint32_t));
	c->ohead = malloc((nlayers + 1) * sizeof(uint32_t));
	c->seen = calloc(n, sizeof(uint32_t));
	c->fq = malloc(n * sizeof(uint32_t));
	c->bq = malloc(n * sizeof(uint32_t));
	c->tmp = malloc(n * sizeof(uint32_t));
	if (!c->lab || !c->onext || !c->oprev || !c->ohead || !c->seen ||
	    !c->fq || !c->bq || !c->tmp) {
		cdg_free(c);
		return -ENOMEM;
	}
	for (uint32_t l = 0; l < nlayers; l++)
		c->ohead[l] = CDG_NONE;
	return 0;
}

int cdg_init_graph(struct cdg_incr *c, const struct route_graph *g,
		   uint32_t nlayers, const struct cdg_ops *ops, void *ctx)
{
	uint32_t nch = g->adj_off[g->nsw];
	if (cdg_init(c, nch, nlayers, ops, ctx))
		return -ENOMEM;
	c->g = g;
	size_t n = (size_t)nch + 1;
	c->rev = malloc(n * sizeof(uint32_t));
	c->tail = malloc(n * sizeof(uint32_t));
	c->dep_off = malloc(n * sizeof(uint32_t));
	if (!c->rev || !c->tail || !c->dep_off)
		goto nomem;
	for (uint32_t s = 0; s < g->nsw; s++)
		for (uint32_t i = g->adj_off[s]; i < g->adj_off[s + 1]; i++) {
			c->tail[i] = s;
			c->dep_off[i] = (uint32_t)c->ndep;
			uint32_t p = g->adj[i].peer;
			c->ndep += g->adj_off[p + 1] - g->adj_off[p];
			/* The far end of this link: the port cabled to ours
			 * (parallel links each have their own). */
			uint32_t far = g->fab->ports[g->adj[i].gport].peer;
			c->rev[i] = CDG_NONE;
			for (uint32_t j = g->adj_off[p]; j < g->adj_off[p + 1]; j++)
				if (g->adj[j].gport == far)
					c->rev[i] = j;
			c->one_way |= c->rev[i] == CDG_NONE;
		}
	c->dep = calloc(c->ndep * nlayers + 1, sizeof(*c->dep));
	c->refused = calloc(c->ndep * nlayers + 1, 1);
	c->bits = calloc(c->ndep * nlayers / 64 + 2, sizeof(uint64_t));
	if (!c->dep || !c->refused || !c->bits)
		goto nomem;
	cdg_reset(c);
	return 0;
nomem:
	cdg_free(c);
	return -ENOMEM;
}

/* Labels 1, 2, ... times the spacing along layer l's list. */
static void relabel(struct cdg_incr *c, uint32_t l)
{
	uint64_t *lab = c->lab + (size_t)l * c->nch, v = 0;
	const uint32_t *next = c->onext + (size_t)l * c->nch;
	for (uint32_t e = c->ohead[l]; e != CDG_NONE; e = next[e])
		lab[e] = v += 1ULL << c->gap_bits;
}

void cdg_set_order(struct cdg_incr *c, uint32_t l, const uint32_t *chan,
		   uint32_t n)
{
	size_t base = (size_t)l * c->nch;
	uint64_t *lab = c->lab + base;
	uint32_t *next = c->onext + base, *prev = c->oprev + base;
	memset(lab, 0, (size_t)c->nch * sizeof(uint64_t));
	for (uint32_t e = 0; e < c->nch; e++)
		next[e] = prev[e] = CDG_NONE;
	c->ohead[l] = n ? chan[0] : CDG_NONE;
	for (uint32_t i = 0; i < n; i++) {
		prev[chan[i]] = i ? chan[i - 1] : CDG_NONE;
		next[chan[i]] = i + 1 < n ? chan[i + 1] : CDG_NONE;
	}
	relabel(c, l);
}

void cdg_set_gap_bits(struct cdg_incr *c, unsigned bits)
{
	c->gap_bits = bits;
	for (uint32_t l = 0; l < c->nlayers; l++)
		relabel(c, l);
}

void cdg_reset(struct cdg_incr *c)
{
	if (c->g) {
		size_t ns = c->ndep * c->nlayers;
		memset(c->dep, 0, ns * sizeof(*c->dep));
		memset(c->refused, 0, ns);
		memset(c->bits, 0, (ns / 64 + 2) * sizeof(uint64_t));
		for (uint32_t e = 0; e < c->nch; e++)
			c->tmp[e] = e;
		for (uint32_t l = 0; l < c->nlayers; l++)
			cdg_set_order(c, l, c->tmp, c->nch);
	}
	c->nlog = 0;
	c->reorders = 0;
}

static size_t slot(const struct cdg_incr *c, uint32_t l, uint32_t a, uint32_t b)
{
	const struct route_graph *g = c->g;
	return (size_t)l * c->ndep + c->dep_off[a] +
	       (b - g->adj_off[g->adj[a].peer]);
}

/* The explicit dependencies out of channel e, in the order of their
 * targets (a scan of the set bits). */
static void explicit_succ(struct cdg_incr *c, uint32_t e, uint32_t *top)
{
	const struct route_graph *g = c->g;
	uint32_t p = g->adj[e].peer;
	size_t s0 = (size_t)c->layer * c->ndep + c->dep_off[e];
	size_t s1 = s0 + (g->adj_off[p + 1] - g->adj_off[p]);
	for (size_t b = s0; b < s1; b++) {
		uint64_t w = c->bits[b >> 6] >> (b & 63);
		if (!w) {
			b |= 63;
			continue;
		}
		b += (size_t)__builtin_ctzll(w);
		if (b >= s1)
			break;
		cdg_push_fwd(c, top, g->adj_off[p] + (uint32_t)(b - s0));
	}
}

/* The explicit dependencies into channel e: from the channels into its
 * tail switch. */
static void explicit_pred(struct cdg_incr *c, uint32_t e, uint32_t *top)
{
	const struct route_graph *g = c->g;
	const uint32_t *dep = c->dep + (size_t)c->layer * c->ndep;
	uint32_t s = c->tail[e];
	for (uint32_t i = g->adj_off[s]; i < g->adj_off[s + 1]; i++) {
		uint32_t a = c->rev[i];
		if (a != CDG_NONE && dep[c->dep_off[a] + e - g->adj_off[s]])
			cdg_push_bwd(c, top, a);
	}
}

int cdg_reaches(struct cdg_incr *c, uint32_t l, uint32_t u, uint32_t d)
{
	uint32_t ftop = 0, btop = 0, fhead = 0, bhead = 0, n = 0;
	c->epoch += 2;
	c->searches++;
	c->layer = l;
	c->cur = c->lab + (size_t)l * c->nch;
	c->lb = c->cur[u];
	c->ub = c->cur[d];
	c->at_lb = u;
	c->at_ub = d;
	c->met = 0;
	c->seen[u] = c->epoch;
	c->fq[ftop++] = u;
	cdg_push_bwd(c, &btop, d);
	/* One way only, the forward side's end decides (bhead stays 0). */
	while (fhead < ftop && (c->one_way || bhead < btop) && !c->met) {
		uint32_t e = c->fq[fhead++];
		if (c->g)
			explicit_succ(c, e, &ftop);
		if (c->ops && !c->met)
			c->ops->succ(c, c->ctx, e, &ftop);
		n++;
		if (c->met || c->one_way)
			continue;
		e = c->bq[bhead++];
		if (c->g)
			explicit_pred(c, e, &btop);
		if (c->ops && !c->met)
			c->ops->pred(c, c->ctx, e, &btop);
		n++;
	}
	c->visited += n;
	c->whole_fwd = fhead == ftop;
	c->nf = ftop;
	c->nb = btop;
	return c->met;
}

static int by_label(const void *a, const void *b, void *arg)
{
	const uint64_t *lab = arg;
	uint64_t x = lab[*(const uint32_t *)a], y = lab[*(const uint32_t *)b];
	return (x > y) - (x < y);
}

void cdg_reorder(struct cdg_incr *c)
{
	size_t base = (size_t)c->layer * c->nch;
	uint64_t *lab = c->lab + base;
	uint32_t *next = c->onext + base, *prev = c->oprev + base;
	/* The side that ran out holds the channels to move: those u
	 * reaches (u first in the window) or those reaching d (d last). */
	int fwd = c->whole_fwd;
	uint32_t n = fwd ? c->nf : c->nb;
	memcpy(c->tmp, fwd ? c->fq : c->bq, n * sizeof(uint32_t));
	qsort_r(c->tmp, n, sizeof(uint32_t), by_label, lab);
	uint32_t anchor = fwd ? c->at_ub : c->at_lb;    /* d or u */
	for (uint32_t i = 0; i < n; i++) {
		uint32_t e = c->tmp[i], p = prev[e], x = next[e];
		if (p != CDG_NONE)
			next[p] = x;
		else
			c->ohead[c->layer] = x;
		if (x != CDG_NONE)
			prev[x] = p;
	}
	/* Splice them in order after d (forward) or before u (backward). */
	uint32_t before = fwd ? anchor : prev[anchor];
	uint32_t after = fwd ? next[anchor] : anchor;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t e = c->tmp[i];
		prev[e] = i ? c->tmp[i - 1] : before;
		next[e] = i + 1 < n ? c->tmp[i + 1] : after;
	}
	if (n) {
		if (before != CDG_NONE)
			next[before] = c->tmp[0];
		else
			c->ohead[c->layer] = c->tmp[0];
		if (after != CDG_NONE)
			prev[after] = c->tmp[n - 1];
	}
	uint64_t lo = before != CDG_NONE ? lab[before] : 0;
	uint64_t hi = after != CDG_NONE ? lab[after] :
		      lo + (((uint64_t)n + 1) << c->gap_bits);
	uint64_t step = (hi - lo) / (n + 1);
	if (!step) {
		relabel(c, c->layer);
	} else {
		for (uint32_t i = 0; i < n; i++)
			lab[c->tmp[i]] = lo + (i + 1) * step;
	}
	c->moved += n;
}

int cdg_closes(struct cdg_incr *c, uint32_t l, uint32_t a, uint32_t b)
{
	return !cdg_before(c, l, a, b) && cdg_reaches(c, l, b, a);
}

int cdg_has(const struct cdg_incr *c, uint32_t l, uint32_t a, uint32_t b)
{
	return c->dep[slot(c, l, a, b)] != 0;
}

static void drop(struct cdg_incr *c, size_t s)
{
	if (c->dep[s] && !--c->dep[s])
		c->bits[s >> 6] &= ~(1ull << (s & 63));
}

void cdg_del(struct cdg_incr *c, uint32_t l, uint32_t a, uint32_t b)
{
	drop(c, slot(c, l, a, b));
}

int cdg_add(struct cdg_incr *c, uint32_t l, uint32_t a, uint32_t b)
{
	size_t s = slot(c, l, a, b);
	if (c->dep[s]) {
		c->dep[s]++;
		return 0;
	}
	if (a == b || c->refused[s])
		return -1;
	if (!cdg_before(c, l, a, b)) {
		/* b sits before a: admitted only if b does not reach a;
		 * then what the search found moves. */
		c->reorders++;
		if (cdg_reaches(c, l, b, a)) {
			c->refused[s] = (uint8_t)c->remember_refusals;
			return -1;
		}
		cdg_reorder(c);
	}
	if (c->logging) {
		if (c->nlog == c->log_cap) {
			uint32_t cap = c->log_cap ? 2 * c->log_cap : 256;
			size_t *v = realloc(c->log, cap * sizeof(*v));
			if (!v)
				return -ENOMEM;
			c->log = v;
			c->log_cap = cap;
		}
		c->log[c->nlog++] = s;
	}
	c->dep[s] = 1;
	c->bits[s >> 6] |= 1ull << (s & 63);
	return 1;
}

void cdg_rollback(struct cdg_incr *c, uint32_t mark)
{
	while (c->nlog > mark)
		drop(c, c->log[--c->nlog]);
}
