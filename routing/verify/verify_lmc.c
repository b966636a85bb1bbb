/* Path diversity with LMC (IBA 7.11.1: a port answers 2^LMC LIDs, so an
 * engine can give one CA pair several routes). For a CA pair on different
 * switches, the 2^LMC routes to the destination's LIDs are compared on
 * their switch-to-switch links (the CA links are shared by all of them);
 * the count is a greedy set of pairwise link-disjoint routes taken in LID
 * order, a lower bound on the largest such set. Pairs are all ordered
 * pairs, or max_pairs (default 20,000) sampled with a fixed seed. */
#include <errno.h>
#include <stdlib.h>

#include "verify_internal.h"

#define MAX_PATH 64             /* longer routes are not compared */

static uint64_t splitmix64(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Switch-to-switch channels of route src -> lid; -1 if incomplete. */
static int trace(const struct vx *x, uint32_t src, uint32_t lid, uint32_t *path)
{
	uint32_t s = x->term_sw[src];
	int n = 0;
	for (;;) {
		uint32_t next, eg;
		enum vx_step st = vx_step(x, s, lid, &next, &eg);
		if (st == VX_DELIVER)
			return n;
		if (st != VX_NEXT || n == MAX_PATH)
			return -1;
		path[n++] = x->chan_of_port[eg];
		s = next;
	}
}

static int disjoint(const uint32_t *a, int na, const uint32_t *b, int nb)
{
	for (int i = 0; i < na; i++)
		for (int j = 0; j < nb; j++)
			if (a[i] == b[j])
				return 0;
	return 1;
}

/* Greedy count of pairwise disjoint routes from src to dst's LIDs. */
static int pair_diversity(const struct vx *x, uint32_t src, uint32_t dst,
			  uint32_t (*paths)[MAX_PATH], int *len)
{
	const struct fab_port *dp = &x->f->ports[x->term[dst]];
	uint32_t nlids = dp->lmc > 7 ? 128 : 1u << dp->lmc;
	int kept = 0;
	for (uint32_t k = 0; k < nlids; k++) {
		int n = trace(x, src, dp->lid + k, paths[kept]);
		if (n < 0)
			continue;
		int ok = 1;
		for (int i = 0; i < kept && ok; i++)
			ok = disjoint(paths[i], len[i], paths[kept], n);
		if (ok)
			len[kept++] = n;
	}
	return kept;
}

int vx_diversity(const struct vx *x, struct verify_result *res)
{
	uint32_t n = 0;
	uint32_t *term = malloc(((size_t)x->nterm + 1) * sizeof(uint32_t));
	uint32_t (*paths)[MAX_PATH] = malloc(128 * sizeof(*paths));
	int len[128];
	uint64_t sum = 0, pairs = 0;
	int min = -1;

	if (!term || !paths) {
		free(term);
		free(paths);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < x->nterm; i++)
		if (x->term_sw[i] != FAB_NONE && x->f->ports[x->term[i]].lid &&
		    x->f->ports[x->term[i]].lid != x->o->unchecked_lid)
			term[n++] = i;
	uint64_t total = n >= 2 ? (uint64_t)n * (n - 1) : 0;
	uint64_t limit = x->o->max_pairs ? x->o->max_pairs : 20000;
	uint64_t count = total < limit ? total : limit;
	for (uint64_t k = 0; k < count; k++) {
		uint32_t i, j;
		if (total <= limit) {
			i = (uint32_t)(k / (n - 1));
			j = (uint32_t)(k % (n - 1));
			j += j >= i;
		} else {
			i = (uint32_t)(k % n);
			j = (uint32_t)((i + 1 + splitmix64(k) % (n - 1)) % n);
		}
		if (x->term_sw[term[i]] == x->term_sw[term[j]])
			continue;
		int d = pair_diversity(x, term[i], term[j], paths, len);
		if (!d)
			continue;       /* incomplete: reported by the main pass */
		pairs++;
		sum += (uint64_t)d;
		if (min < 0 || d < min)
			min = d;
	}
	res->diversity_pairs = pairs;
	res->min_disjoint_paths = min < 0 ? 0 : min;
	res->avg_disjoint_paths = pairs ? (double)sum / pairs : 0;
	free(term);
	free(paths);
	return 0;
}
