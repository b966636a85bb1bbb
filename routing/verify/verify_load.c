/* Link balance: the lower bound the all-to-all load is judged against, and
 * shift permutations.
 *
 * All-to-all: every CA port sends one route to every other CA port's base
 * LID (N ports, N(N-1) routes); the load of a directed link is the number
 * of those routes on it. Lower bounds on the maximum, each sound for any
 * topology whose routes are complete:
 *   - terminal: a CA port's one link carries its N-1 routes: N - 1;
 *   - cut: for a switch s with w CA ports and u switch-to-switch links,
 *     the w(N-w) routes from its CAs to all others leave over those u
 *     links: ceil(w(N-w) / u). On a fat-tree this is the leaf bound
 *     (max over leaves of CAs below x CAs outside / up-links);
 *   - average: every route crosses at least its BFS-minimum number of
 *     switch-to-switch links, so the max is at least the sum of those
 *     minima over all routes / the number of directed switch links.
 * a2a_switch_bound = max(cut, average) judges switch-to-switch links alone;
 * a2a_lower_bound = max(terminal, cut, average) judges every link.
 *
 * Shifts: CA port i sends to CA port (i + s) mod N (ports in node order,
 * or in the compute-node rank order when one is given, core/cn_rank.h),
 * for s = 1..N-1 or max_shifts values spread evenly over that range; the
 * load of a link is the number of the N routes on it. A shift is congested
 * when some link carries more than one route. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "verify_internal.h"

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
	return b ? (a + b - 1) / b : 0;
}

double vx_a2a_bound(const struct vx *x, uint64_t min_total, double *switch_bound)
{
	uint64_t n = 0, cut = 0;
	for (uint32_t i = 0; i < x->nterm; i++)
		n += x->term_sw[i] != FAB_NONE;
	for (uint32_t s = 0; s < x->nsw; s++) {
		uint64_t w = x->sw_term_off[s + 1] - x->sw_term_off[s];
		uint64_t u = x->adj_off[s + 1] - x->adj_off[s];
		uint64_t b = ceil_div(w * (n - w), u);
		if (b > cut)
			cut = b;
	}
	uint64_t avg = ceil_div(min_total, x->nchan);
	uint64_t sw = cut > avg ? cut : avg;
	*switch_bound = (double)sw;
	uint64_t term = n >= 2 ? n - 1 : 0;
	return (double)(term > sw ? term : sw);
}

struct shift_job {
	const struct vx *x;
	const uint32_t *src;    /* terminal indices taking part */
	uint32_t n;
	const uint32_t *shift;  /* shifts to evaluate */
	uint64_t *max_load;     /* per shift */
	uint32_t lo, hi;        /* this job's range of shift[] */
	uint32_t *load, *touched;
	int rc;
};

/* Add the routes src[g] -> lid[g] (g < n <= SHIFT_LANES) to the loads;
 * every link used is recorded once in touched[] so the loads can be
 * cleared cheaply. The routes advance a step each in turn, the table
 * entry each needs next prefetched first, so their cache misses overlap
 * instead of following one another (the loads are sums, the same in any
 * order). */
#define SHIFT_LANES 16
static void route_load_lanes(struct shift_job *j, const uint32_t *src,
			     const uint32_t *lid, uint32_t n, uint32_t *nt)
{
	const struct vx *x = j->x;
	const struct lft_set *t = x->t;
	uint32_t s[SHIFT_LANES], steps[SHIFT_LANES], live[SHIFT_LANES], nl = 0;

	for (uint32_t g = 0; g < n; g++) {
		uint32_t p = x->term[src[g]];
		if (!j->load[p]++)
			j->touched[(*nt)++] = p;
		s[g] = x->term_sw[src[g]];
		steps[g] = 0;
		live[nl++] = g;
	}
	while (nl) {
		for (uint32_t i = 0; i < nl; i++) {
			uint32_t g = live[i];
			if (s[g] < t->num_switches && lid[g] <= t->max_lid)
				__builtin_prefetch(lft_row(t, s[g]) + lid[g]);
		}
		uint32_t keep = 0;
		for (uint32_t i = 0; i < nl; i++) {
			uint32_t g = live[i], next, eg;
			if (steps[g]++ > x->nsw)
				continue;
			enum vx_step st = vx_step(x, s[g], lid[g], &next, &eg);
			if (st != VX_NEXT && st != VX_DELIVER)
				continue;
			if (eg != FAB_NONE && !j->load[eg]++)
				j->touched[(*nt)++] = eg;
			if (st == VX_DELIVER)
				continue;
			s[g] = next;
			live[keep++] = g;
		}
		nl = keep;
	}
}

static void *shift_work(void *arg)
{
	struct shift_job *j = arg;
	const struct vx *x = j->x;
	for (uint32_t k = j->lo; k < j->hi; k++) {
		uint32_t nt = 0, src[SHIFT_LANES], lid[SHIFT_LANES];
		uint64_t m = 0;
		for (uint32_t i = 0; i < j->n; i += SHIFT_LANES) {
			uint32_t n = j->n - i < SHIFT_LANES ? j->n - i : SHIFT_LANES;
			for (uint32_t g = 0; g < n; g++) {
				uint32_t d = j->src[(i + g + j->shift[k]) % j->n];
				src[g] = j->src[i + g];
				lid[g] = x->f->ports[x->term[d]].lid;
			}
			route_load_lanes(j, src, lid, n, &nt);
		}
		for (uint32_t i = 0; i < nt; i++) {
			if (j->load[j->touched[i]] > m)
				m = j->load[j->touched[i]];
			j->load[j->touched[i]] = 0;
		}
		j->max_load[k] = m;
	}
	return NULL;
}

/* Terminals in the compute-node rank order (ranked first, by rank; the
 * rest after, in port order): a total order, so the sort is stable. */
static int cmp_term_rank(const void *a, const void *b, void *arg)
{
	const struct vx *x = arg;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	uint32_t ri = x->o->cn_rank[x->term[i]];
	uint32_t rj = x->o->cn_rank[x->term[j]];

	if (ri != rj)
		return ri < rj ? -1 : 1;
	return i < j ? -1 : i > j;
}

static void rank_sort(const struct vx *x, uint32_t *src, uint32_t n)
{
	qsort_r(src, n, sizeof(*src), cmp_term_rank, (void *)x);
}

int vx_shifts(const struct vx *x, unsigned threads, struct verify_result *res)
{
	uint32_t n = 0, m;
	uint32_t *src = malloc(((size_t)x->nterm + 1) * sizeof(uint32_t));
	uint32_t *shift = NULL;
	uint64_t *max_load = NULL;
	struct shift_job *job = NULL;
	pthread_t *tid = NULL;
	int rc = -ENOMEM;

	if (!src)
		return -ENOMEM;
	for (uint32_t i = 0; i < x->nterm; i++)
		if (x->term_sw[i] != FAB_NONE && x->f->ports[x->term[i]].lid &&
		    x->f->ports[x->term[i]].lid != x->o->unchecked_lid)
			src[n++] = i;
	if (n < 2) {
		free(src);
		return 0;
	}
	if (x->o->cn_rank)
		rank_sort(x, src, n);
	m = x->o->max_shifts && x->o->max_shifts < n - 1 ? x->o->max_shifts : n - 1;
	if (threads > m)
		threads = m;
	shift = malloc(m * sizeof(uint32_t));
	max_load = calloc(m, sizeof(uint64_t));
	job = calloc(threads, sizeof(*job));
	tid = calloc(threads, sizeof(*tid));
	if (!shift || !max_load || !job || !tid)
		goto out;
	for (uint32_t k = 0; k < m; k++)
		shift[k] = 1 + (uint32_t)((uint64_t)k * (n - 1) / m);
	for (unsigned k = 0; k < threads; k++) {
		job[k] = (struct shift_job){ .x = x, .src = src, .n = n,
			.shift = shift, .max_load = max_load,
			.lo = (uint32_t)((uint64_t)m * k / threads),
			.hi = (uint32_t)((uint64_t)m * (k + 1) / threads) };
		job[k].load = calloc(x->f->num_ports + 1, sizeof(uint32_t));
		job[k].touched = malloc(((size_t)x->f->num_ports + 1) * sizeof(uint32_t));
		if (!job[k].load || !job[k].touched)
			goto out;
	}
	unsigned started = 0;
	for (unsigned k = 1; k < threads; k++) {
		if (pthread_create(&tid[k], NULL, shift_work, &job[k]))
			break;
		started = k;
	}
	shift_work(&job[0]);
	for (unsigned k = 1; k <= started; k++)
		pthread_join(tid[k], NULL);
	for (unsigned k = started + 1; k < threads; k++)
		shift_work(&job[k]);
	for (uint32_t k = 0; k < m; k++) {
		if (max_load[k] > res->shift_worst_load) {
			res->shift_worst_load = max_load[k];
			res->shift_worst = shift[k];
		}
		res->shifts_congested += max_load[k] > 1;
	}
	res->shifts_checked = m;
	rc = 0;
out:
	for (unsigned k = 0; job && k < threads; k++) {
		free(job[k].load);
		free(job[k].touched);
	}
	free(job);
	free(tid);
	free(shift);
	free(max_load);
	free(src);
	return rc;
}
