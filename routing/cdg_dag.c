/* Acyclic channel dependency graphs with a dynamic topological order
 * (cdg_dag.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cdg_dag.h"

void cdg_free(struct cdg_dag *d)
{
	free(d->rev);
	free(d->tail);
	free(d->dep_off);
	free(d->dep);
	free(d->bits);
	free(d->tmp);
	free(d->refused);
	free(d->ord);
	free(d->at);
	free(d->mark);
	free(d->stack);
	free(d->fwd);
	free(d->bwd);
	free(d->pos);
	memset(d, 0, sizeof(*d));
}

int cdg_init(struct cdg_dag *d, const struct route_graph *g, uint32_t nlayers)
{
	memset(d, 0, sizeof(*d));
	d->g = g;
	d->nlayers = nlayers;
	d->nch = g->adj_off[g->nsw];
	size_t n = (size_t)d->nch + 1;
	d->rev = malloc(n * sizeof(uint32_t));
	d->tail = malloc(n * sizeof(uint32_t));
	d->dep_off = malloc(n * sizeof(uint32_t));
	d->ord = malloc(n * nlayers * sizeof(uint32_t));
	d->at = malloc(n * nlayers * sizeof(uint32_t));
	d->mark = calloc(n, sizeof(uint32_t));
	d->stack = malloc(n * sizeof(uint32_t));
	d->fwd = malloc(n * sizeof(uint64_t));
	d->bwd = malloc(n * sizeof(uint64_t));
	d->tmp = malloc(n * sizeof(uint64_t));
	d->pos = malloc(2 * n * sizeof(uint32_t));
	if (!d->rev || !d->tail || !d->dep_off || !d->ord || !d->at ||
	    !d->mark || !d->stack || !d->fwd || !d->bwd || !d->pos || !d->tmp)
		goto nomem;
	for (uint32_t s = 0; s < g->nsw; s++)
		for (uint32_t i = g->adj_off[s]; i < g->adj_off[s + 1]; i++) {
			d->tail[i] = s;
			d->dep_off[i] = (uint32_t)d->ndep;
			uint32_t p = g->adj[i].peer;
			d->ndep += g->adj_off[p + 1] - g->adj_off[p];
			/* The far end of this link: the port cabled to ours
			 * (parallel links each have their own). */
			uint32_t far = g->fab->ports[g->adj[i].gport].peer;
			d->rev[i] = UINT32_MAX;
			for (uint32_t j = g->adj_off[p]; j < g->adj_off[p + 1]; j++)
				if (g->adj[j].gport == far)
					d->rev[i] = j;
		}
	d->dep = calloc(d->ndep * nlayers + 1, sizeof(*d->dep));
	d->refused = calloc(d->ndep * nlayers + 1, 1);
	d->bits = calloc(d->ndep * nlayers / 64 + 2, sizeof(uint64_t));
	if (!d->dep || !d->refused || !d->bits)
		goto nomem;
	cdg_reset(d);
	return 0;
nomem:
	cdg_free(d);
	return -ENOMEM;
}

void cdg_reset(struct cdg_dag *d)
{
	memset(d->dep, 0, d->ndep * d->nlayers * sizeof(*d->dep));
	memset(d->refused, 0, d->ndep * d->nlayers);
	memset(d->bits, 0, (d->ndep * d->nlayers / 64 + 2) * sizeof(uint64_t));
	for (uint32_t l = 0; l < d->nlayers; l++)
		for (uint32_t c = 0; c < d->nch; c++) {
			d->ord[(size_t)l * d->nch + c] = c;
			d->at[(size_t)l * d->nch + c] = c;
		}
	d->reorders = 0;
}

void cdg_set_layer_order(struct cdg_dag *d, uint32_t l,
			 const uint32_t *chan_in_order)
{
	for (uint32_t k = 0; k < d->nch; k++) {
		d->ord[(size_t)l * d->nch + chan_in_order[k]] = k;
		d->at[(size_t)l * d->nch + k] = chan_in_order[k];
	}
}

static size_t slot(const struct cdg_dag *d, uint32_t l, uint32_t a, uint32_t b)
{
	const struct route_graph *g = d->g;
	return (size_t)l * d->ndep + d->dep_off[a] +
	       (b - g->adj_off[g->adj[a].peer]);
}

int cdg_has(const struct cdg_dag *d, uint32_t l, uint32_t a, uint32_t b)
{
	return d->dep[slot(d, l, a, b)];
}

void cdg_del(struct cdg_dag *d, uint32_t l, uint32_t a, uint32_t b)
{
	size_t s = slot(d, l, a, b);
	if (d->dep[s] && !--d->dep[s])
		d->bits[s >> 6] &= ~(1ull << (s & 63));
}

static void next_epoch(struct cdg_dag *d)
{
	if (++d->epoch == 0) {
		memset(d->mark, 0, (size_t)d->nch * sizeof(uint32_t));
		d->epoch = 1;
	}
}

/* Channels reachable from y whose position is below ub, into d->fwd;
 * returns -1 as soon as x (at ub) is reached. */
static int search_fwd(struct cdg_dag *d, uint32_t l, uint32_t y, uint32_t x,
		      uint32_t ub, uint32_t *nf)
{
	const struct route_graph *g = d->g;
	const uint32_t *ord = d->ord + (size_t)l * d->nch;
	const uint64_t *bits = d->bits;
	uint32_t top = 0;
	*nf = 0;
	d->stack[top++] = y;
	d->mark[y] = d->epoch;
	while (top) {
		uint32_t c = d->stack[--top];
		d->fwd[(*nf)++] = (uint64_t)ord[c] << 32 | c;
		uint32_t p = g->adj[c].peer;
		/* The dependencies c -> k present, in the order of k. */
		size_t s0 = (size_t)l * d->ndep + d->dep_off[c];
		size_t s1 = s0 + (g->adj_off[p + 1] - g->adj_off[p]);
		for (size_t b = s0; b < s1; b++) {
			uint64_t w = bits[b >> 6] >> (b & 63);
			if (!w) {
				b |= 63;
				continue;
			}
			b += (size_t)__builtin_ctzll(w);
			if (b >= s1)
				break;
			uint32_t k = g->adj_off[p] + (uint32_t)(b - s0);
			if (k == x)
				return -1;
			if (d->mark[k] != d->epoch && ord[k] < ub) {
				d->mark[k] = d->epoch;
				d->stack[top++] = k;
			}
		}
	}
	return 0;
}

/* Channels that reach x whose position is above lb, into d->bwd. */
static void search_bwd(struct cdg_dag *d, uint32_t l, uint32_t x, uint32_t lb,
		       uint32_t *nb)
{
	const struct route_graph *g = d->g;
	const uint32_t *ord = d->ord + (size_t)l * d->nch;
	const uint32_t *dep = d->dep + (size_t)l * d->ndep;
	uint32_t top = 0;
	*nb = 0;
	d->stack[top++] = x;
	d->mark[x] = d->epoch;
	while (top) {
		uint32_t c = d->stack[--top];
		d->bwd[(*nb)++] = (uint64_t)ord[c] << 32 | c;
		uint32_t s = d->tail[c];
		for (uint32_t i = g->adj_off[s]; i < g->adj_off[s + 1]; i++) {
			uint32_t a = d->rev[i]; /* a channel into s */
			if (a == UINT32_MAX || d->mark[a] == d->epoch ||
			    ord[a] <= lb)
				continue;
			if (dep[d->dep_off[a] + c - g->adj_off[s]]) {
				d->mark[a] = d->epoch;
				d->stack[top++] = a;
			}
		}
	}
}

/* The sets a reorder finds are mostly a handful of channels: insertion
 * sort there; larger ones by a radix sort on the position (the high
 * half: positions are distinct, so any sort gives the same order). */
static void sort_u64(struct cdg_dag *d, uint64_t *v, uint32_t n)
{
	if (n > 32) {
		uint64_t *src = v, *dst = d->tmp;
		for (uint32_t shift = 32; shift < 64 && (d->nch >> (shift - 32)); shift += 8) {
			uint32_t cnt[257] = { 0 };
			for (uint32_t i = 0; i < n; i++)
				cnt[((src[i] >> shift) & 255) + 1]++;
			for (uint32_t k = 0; k < 256; k++)
				cnt[k + 1] += cnt[k];
			for (uint32_t i = 0; i < n; i++)
				dst[cnt[(src[i] >> shift) & 255]++] = src[i];
			uint64_t *sw = src;
			src = dst;
			dst = sw;
		}
		if (src != v)
			memcpy(v, src, (size_t)n * sizeof(uint64_t));
		return;
	}
	for (uint32_t i = 1; i < n; i++) {
		uint64_t x = v[i];
		uint32_t j = i;
		for (; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

int cdg_add(struct cdg_dag *d, uint32_t l, uint32_t a, uint32_t b)
{
	size_t s = slot(d, l, a, b);
	uint32_t *ord = d->ord + (size_t)l * d->nch;
	uint32_t *at = d->at + (size_t)l * d->nch;
	uint32_t nf, nb, np = 0;

	if (d->dep[s]) {
		d->dep[s]++;
		return 0;
	}
	if (a == b || d->refused[s])
		return -1;
	if (ord[a] < ord[b]) {
		d->dep[s] = 1;
		d->bits[s >> 6] |= 1ull << (s & 63);
		return 1;
	}
	/* b sits before a: everything b reaches up to a's position must
	 * move after everything reaching a down to b's position. */
	d->reorders++;
	next_epoch(d);
	if (search_fwd(d, l, b, a, ord[a], &nf)) {
		d->refused[s] = (uint8_t)d->remember_refusals;
		return -1;
	}
	search_bwd(d, l, a, ord[b], &nb);
	sort_u64(d, d->fwd, nf);
	sort_u64(d, d->bwd, nb);
	/* The positions both sets held, in order: a merge of the two
	 * sorted lists. */
	for (uint32_t i = 0, j = 0; i < nb || j < nf;)
		d->pos[np++] = j >= nf || (i < nb && d->bwd[i] < d->fwd[j])
			       ? (uint32_t)(d->bwd[i++] >> 32)
			       : (uint32_t)(d->fwd[j++] >> 32);
	np = 0;
	for (uint32_t i = 0; i < nb; i++) {
		uint32_t c = (uint32_t)d->bwd[i];
		ord[c] = d->pos[np];
		at[d->pos[np++]] = c;
	}
	for (uint32_t i = 0; i < nf; i++) {
		uint32_t c = (uint32_t)d->fwd[i];
		ord[c] = d->pos[np];
		at[d->pos[np++]] = c;
	}
	d->dep[s] = 1;
	d->bits[s >> 6] |= 1ull << (s & 63);
	return 1;
}
