/* The incremental credit-loop checker (routing/cdg/): its verdicts are
 * those of a plain cycle search, its order stays topological, and
 * rollback gives back exactly what was added, for explicit dependencies
 * (dfsp's use: counted, several layers, tiny label gaps so relabelling
 * runs), for an implicit graph plus explicit turns (updn's use through
 * rg_turns: up*-down* of a random orientation), and the witness index
 * lists what it was given by key. ftree's use is checked in test_ftree
 * (turns_case). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/fabric.h"
#include "core/lid_assign.h"
#include "routing/cdg/cdg_incr.h"
#include "routing/cdg/cdg_witness.h"
#include "routing/rg_turns.h"
#include "routing/route_graph.h"
#include "topogen/topo_gen.h"

static void torus(struct fabric *f, unsigned x, unsigned y)
{
	char err[256];
	struct torus_params tp = { .dims = 2, .size = { x, y }, .wrap = 1,
				   .hcas_per_switch = 1 };
	fab_init(f);
	assert_int_equal(gen_torus(f, &tp, err), 0);
	struct lid_assign_opts o = { 0 };
	assert_true(lid_assign(f, &o, NULL) >= 0);
}

static uint32_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return (uint32_t)(*x >> 16);
}

/* A dependency a -> b of the brute-force graph? */
typedef int (*dep_fn)(const void *ctx, uint32_t a, uint32_t b);

static int reaches(const struct route_graph *g, dep_fn dep, const void *ctx,
		   uint32_t from, uint32_t to, uint8_t *seen, uint32_t *stack)
{
	uint32_t top = 0, nch = g->adj_off[g->nsw];
	memset(seen, 0, nch);
	seen[from] = 1;
	stack[top++] = from;
	while (top) {
		uint32_t c = stack[--top], p = g->adj[c].peer;
		if (c == to)
			return 1;
		for (uint32_t k = g->adj_off[p]; k < g->adj_off[p + 1]; k++)
			if (!seen[k] && dep(ctx, c, k)) {
				seen[k] = 1;
				stack[top++] = k;
			}
	}
	return 0;
}

struct layer_ctx { const struct cdg_incr *c; uint32_t l; };

static int explicit_dep(const void *ctx, uint32_t a, uint32_t b)
{
	const struct layer_ctx *x = ctx;
	return cdg_has(x->c, x->l, a, b);
}

/* Every dependency goes forward in the layer's order. */
static void assert_topological(const struct cdg_incr *c, uint32_t l,
			       dep_fn dep, const void *ctx)
{
	const struct route_graph *g = c->g;
	for (uint32_t a = 0; a < c->nch; a++) {
		uint32_t p = g->adj[a].peer;
		for (uint32_t b = g->adj_off[p]; b < g->adj_off[p + 1]; b++)
			if (dep(ctx, a, b))
				assert_true(cdg_before(c, l, a, b));
	}
}

static void explicit_case(unsigned gap_bits)
{
	struct fabric f;
	struct route_graph g;
	struct cdg_incr c;
	torus(&f, 4, 4);
	assert_int_equal(rg_build(&g, &f), 0);
	assert_int_equal(cdg_init_graph(&c, &g, 2, NULL, NULL), 0);
	cdg_set_gap_bits(&c, gap_bits);
	c.logging = 1;
	uint32_t nch = g.adj_off[g.nsw], added = 0, refused = 0, rolled = 0;
	uint8_t *seen = malloc(nch);
	uint32_t *stack = malloc(nch * sizeof(uint32_t));
	assert_non_null(seen);
	assert_non_null(stack);
	uint64_t x = 88172645463325252ULL;
	for (int i = 0; i < 3000; i++) {
		uint32_t a = rnd(&x) % nch, l = rnd(&x) & 1, p = g.adj[a].peer;
		uint32_t b = g.adj_off[p] + rnd(&x) % (g.adj_off[p + 1] - g.adj_off[p]);
		struct layer_ctx lc = { &c, l };
		int had = cdg_has(&c, l, a, b);
		int cyc = !had && reaches(&g, explicit_dep, &lc, b, a, seen, stack);
		assert_int_equal(cdg_closes(&c, l, a, b), !had && cyc);
		uint32_t mark = cdg_mark(&c);
		int r = cdg_add(&c, l, a, b);
		assert_int_equal(r, had ? 0 : cyc ? -1 : 1);
		added += r > 0;
		refused += r < 0;
		if (r == 0) {           /* a second use, given back: still there */
			cdg_del(&c, l, a, b);
			assert_true(cdg_has(&c, l, a, b));
		}
		if (r > 0 && rnd(&x) % 5 == 0) {
			cdg_rollback(&c, mark);         /* gone again */
			assert_false(cdg_has(&c, l, a, b));
			rolled++;
		}
		if (i % 50 == 0) {
			struct layer_ctx l0 = { &c, 0 }, l1 = { &c, 1 };
			assert_topological(&c, 0, explicit_dep, &l0);
			assert_topological(&c, 1, explicit_dep, &l1);
		}
	}
	assert_true(added > 50 && refused > 50 && rolled > 5);
	/* Every dependency left has one use, logged: rolling back to the
	 * start empties both layers. */
	cdg_rollback(&c, 0);
	for (uint32_t a = 0; a < nch; a++) {
		uint32_t p = g.adj[a].peer;
		for (uint32_t b = g.adj_off[p]; b < g.adj_off[p + 1]; b++)
			assert_false(cdg_has(&c, 0, a, b) || cdg_has(&c, 1, a, b));
	}
	free(seen);
	free(stack);
	cdg_free(&c);
	rg_free(&g);
	fab_free(&f);
}

static void explicit_layers_match_brute_force(void **state)
{
	(void)state;
	explicit_case(32);
	explicit_case(1);       /* labels two apart: relabelling */
}

/* updn's graph: G0 of the orientation (written out again here) plus the
 * admitted turns. */
static int g0_or_turn(const void *ctx, uint32_t a, uint32_t b)
{
	const struct rg_turns *t = ctx;
	uint32_t x = t->tail[a], y = t->tail[b], z = t->g->adj[b].peer;
	if (z == x)
		return 0;
	return t->pos[y] < t->pos[x] || t->pos[z] > t->pos[y] ||
	       cdg_has(&t->cdg, 0, a, b);
}

static void implicit_turns_match_brute_force(void **state)
{
	(void)state;
	struct fabric f;
	struct route_graph g;
	struct rg_turns t;
	torus(&f, 5, 4);
	assert_int_equal(rg_build(&g, &f), 0);
	uint32_t *pos = malloc(g.nsw * sizeof(uint32_t));
	uint32_t nch = g.adj_off[g.nsw], taken = 0, refused = 0;
	uint8_t *seen = malloc(nch);
	uint32_t *stack = malloc(nch * sizeof(uint32_t));
	assert_non_null(pos);
	assert_non_null(seen);
	assert_non_null(stack);
	for (uint32_t s = 0; s < g.nsw; s++)
		pos[s] = s;
	uint64_t x = 0x2545F4914F6CDD1DULL;
	assert_int_equal(rg_turns_init(&t, &g, pos), 0);
	for (int round = 0; round < 3; round++) {
		/* A new orientation: a random permutation. */
		for (uint32_t s = g.nsw; s > 1; s--) {
			uint32_t k = rnd(&x) % s, v = pos[s - 1];
			pos[s - 1] = pos[k];
			pos[k] = v;
		}
		rg_turns_reset(&t);
		assert_topological(&t.cdg, 0, g0_or_turn, &t);
		for (int i = 0; i < 800; i++) {
			uint32_t a = rnd(&x) % nch, p = g.adj[a].peer;
			uint32_t b = g.adj_off[p] +
				     rnd(&x) % (g.adj_off[p + 1] - g.adj_off[p]);
			int known = g0_or_turn(&t, a, b);
			assert_int_equal(rg_turn_known(&t, a, b), known);
			int ok = known || (g.adj[b].peer != t.tail[a] &&
					   !reaches(&g, g0_or_turn, &t, b, a, seen, stack));
			assert_int_equal(rg_turn_ok(&t, a, b), ok);
			if (!ok) {
				refused++;
				continue;
			}
			uint32_t mark = t.nturns;
			assert_int_equal(rg_turn_take(&t, a, b), 0);
			assert_true(rg_turn_known(&t, a, b));
			taken += t.nturns > mark;
			if (t.nturns > mark && rnd(&x) % 4 == 0) {
				rg_turns_rollback(&t, mark);
				assert_int_equal(rg_turn_known(&t, a, b),
						 g0_or_turn(&t, a, b));
			}
			if (i % 40 == 0)
				assert_topological(&t.cdg, 0, g0_or_turn, &t);
		}
	}
	assert_true(taken > 20 && refused > 20);
	rg_turns_free(&t);
	free(pos);
	free(seen);
	free(stack);
	rg_free(&g);
	fab_free(&f);
}

static void witness_lists_by_key(void **state)
{
	(void)state;
	struct cdg_witness w;
	cdg_witness_init(&w);
	assert_int_equal(cdg_witness_first(&w, 7), CDG_WIT_END);
	for (uint32_t i = 0; i < 5000; i++)       /* grows the table */
		cdg_witness_add(&w, (uint64_t)(i % 700) << 32 | (i % 3), i, i + 1, i + 2);
	for (uint64_t k = 0; k < 700; k++)
		for (uint32_t m = 0; m < 3; m++) {
			uint32_t n = 0;
			for (uint32_t j = cdg_witness_first(&w, k << 32 | m);
			     j != CDG_WIT_END; j = w.rec[j].next) {
				const struct cdg_wit *r = &w.rec[j];
				assert_int_equal(r->v % 700, k);
				assert_int_equal(r->v % 3, m);
				assert_int_equal(r->a, r->v + 1);
				n++;
			}
			/* i with i = k (mod 700), i = m (mod 3), i < 5000 */
			uint32_t want = 0;
			for (uint32_t i = (uint32_t)k; i < 5000; i += 700)
				want += i % 3 == m;
			assert_int_equal(n, want);
		}
	cdg_witness_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(explicit_layers_match_brute_force),
		cmocka_unit_test(implicit_turns_match_brute_force),
		cmocka_unit_test(witness_lists_by_key),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
