/* dfsp and the path-SL table: on a torus dfsp needs several layers, each
 * SL's dependency graph is acyclic (path_sl_check), the lookup the SA uses
 * answers the table's SL, and the check fails when every path is put back
 * on SL 0 (the same tables on one VL have a credit loop). Small budgets
 * (one layer, or a caller that cannot take SLs) are met by routing on the
 * dependency graph: still complete and credit-loop-free, and on a
 * dragonfly better balanced than updn. Budgets past 15 VLs are refused.
 * The incremental acyclic CDG (cdg/cdg_incr.h) agrees with a brute-force cycle
 * search on random dependency sequences. */
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
#include "routing/engine.h"
#include "routing/lft.h"
#include "routing/path_sl.h"
#include "routing/cdg/cdg_incr.h"
#include "routing/route_graph.h"
#include "routing/verify.h"
#include "topogen/topo_gen.h"

static void torus(struct fabric *f, unsigned x, unsigned y)
{
	char err[256];
	struct torus_params tp = { .dims = 2, .size = { x, y }, .wrap = 1,
				   .hcas_per_switch = 2 };
	fab_init(f);
	assert_int_equal(gen_torus(f, &tp, err), 0);
	struct lid_assign_opts o = { 0 };
	assert_true(lid_assign(f, &o, NULL) >= 0);
}

static void layers_acyclic_lookup_and_check_can_fail(void **state)
{
	(void)state;
	struct fabric f;
	struct lft_set t;
	struct path_sl p;
	char why[256];
	uint32_t vls;
	torus(&f, 4, 4);
	struct route_options o = { .max_vls = 8, .sl_out = &p };
	assert_int_equal(route_run(route_engine_find("dfsp"), &f, &o, &t, why), 0);
	assert_true(p.vls_used > 1 && p.vls_used <= 8);
	assert_int_equal(path_sl_check(&f, &t, &p, &vls, why, sizeof(why)), 0);
	assert_int_equal(vls, p.vls_used);
	/* The lookup answers the row of the source's switch. */
	uint32_t hits = 0;
	for (uint32_t s = 1; s <= p.max_lid; s++)
		for (uint32_t d = 1; d <= p.max_lid; d++) {
			if (p.sw_of_lid[s] == UINT32_MAX)
				continue;
			uint8_t sl = path_sl_lookup(&p, s, d);
			assert_int_equal(sl, p.sl[(size_t)p.sw_of_lid[s] * p.stride + d]);
			assert_int_equal(path_sl_hook(&p, (uint16_t)s, (uint16_t)d), sl);
			assert_true(sl < p.vls_used);
			hits += sl > 0;
		}
	assert_true(hits > 0);
	assert_int_equal(path_sl_lookup(&p, p.max_lid + 1, 1), 0);
	/* All on one SL: the checker must find the credit loop. */
	memset(p.sl, 0, (size_t)p.stride * p.num_switches);
	assert_int_equal(path_sl_check(&f, &t, &p, &vls, why, sizeof(why)), 1);
	assert_non_null(strstr(why, "SL 0"));
	path_sl_free(&p);
	lft_free(&t);
	fab_free(&f);
}

/* Every CA pair reaches its destination loop-free, and one SL-0 table
 * judged by the per-SL checker (independent of the engine) is acyclic. */
static void assert_one_layer_clean(struct fabric *f, struct lft_set *t)
{
	struct path_sl z;
	char why[256];
	uint32_t vls;
	assert_int_equal(path_sl_alloc(&z, f), 0);
	assert_int_equal(path_sl_check(f, t, &z, &vls, why, sizeof(why)), 0);
	assert_int_equal(vls, 1);
	path_sl_free(&z);
	struct verify_result rep;
	struct verify_opts vo = { .threads = 1, .check_credit_loops = 1,
				  .cdg_switch_lids = 1 };
	assert_int_equal(verify_routes(f, t, &vo, &rep), 0);
	assert_int_equal(rep.missing_entries, 0);
	assert_int_equal(rep.pairs_unreachable, 0);
	assert_int_equal(rep.pairs_looping, 0);
	assert_int_equal(rep.credit_loop, 0);
	assert_true(rep.ok);
}

static void small_budgets_route_on_the_dependency_graph(void **state)
{
	(void)state;
	struct fabric f;
	struct lft_set t;
	struct path_sl p;
	char why[256];
	uint32_t vls;
	torus(&f, 4, 4);
	struct route_options o = { .max_vls = 1, .sl_out = &p };
	assert_int_equal(route_run(route_engine_find("dfsp"), &f, &o, &t, why), 0);
	assert_int_equal(p.vls_used, 1);
	assert_int_equal(path_sl_check(&f, &t, &p, &vls, why, sizeof(why)), 0);
	assert_one_layer_clean(&f, &t);
	path_sl_free(&p);
	lft_free(&t);
	/* A caller without path SLs gets one layer, not a refusal. */
	o.max_vls = 8;
	o.sl_out = NULL;
	assert_int_equal(route_run(route_engine_find("dfsp"), &f, &o, &t, why), 0);
	assert_one_layer_clean(&f, &t);
	lft_free(&t);
	o.max_vls = 16;
	assert_int_equal(route_run(route_engine_find("dfsp"), &f, &o, &t, why),
			 -EINVAL);
	assert_non_null(strstr(why, "max_vls 16"));
	fab_free(&f);
}

static uint64_t busiest(struct fabric *f, struct lft_set *t)
{
	struct verify_result rep;
	struct verify_opts vo = { .threads = 1, .link_load = 1, .max_shifts = 1 };
	assert_int_equal(verify_routes(f, t, &vo, &rep), 0);
	return rep.a2a_max_link_load;
}

static void one_layer_dragonfly_beats_updn(void **state)
{
	(void)state;
	struct fabric f;
	struct lft_set t, u;
	char err[256];
	struct dragonfly_params dp = { .groups = 9, .switches_per_group = 8,
				       .hcas_per_switch = 4,
				       .global_per_switch = 2 };
	fab_init(&f);
	assert_int_equal(gen_dragonfly(&f, &dp, err), 0);
	struct lid_assign_opts lo = { 0 };
	assert_true(lid_assign(&f, &lo, NULL) >= 0);
	struct route_options o = { .max_vls = 1 };
	assert_int_equal(route_run(route_engine_find("dfsp"), &f, &o, &t, err), 0);
	assert_one_layer_clean(&f, &t);
	assert_int_equal(route_run(route_engine_find("updn"), &f, &o, &u, err), 0);
	/* Measured 3.84x vs 8.16x the all-to-all bound. */
	assert_true(busiest(&f, &t) * 3 / 2 < busiest(&f, &u));
	lft_free(&t);
	lft_free(&u);
	fab_free(&f);
}

/* Brute force: does channel b reach channel a over the dependencies? */
static int reaches(const struct cdg_incr *d, uint32_t l, uint32_t from,
		   uint32_t to, uint8_t *seen)
{
	if (from == to)
		return 1;
	if (seen[from])
		return 0;
	seen[from] = 1;
	const struct route_graph *g = d->g;
	uint32_t p = g->adj[from].peer;
	for (uint32_t k = g->adj_off[p]; k < g->adj_off[p + 1]; k++)
		if (cdg_has(d, l, from, k) && reaches(d, l, k, to, seen))
			return 1;
	return 0;
}

static void cdg_layers_match_brute_force(void **state)
{
	(void)state;
	struct fabric f;
	struct route_graph g;
	struct cdg_incr d;
	torus(&f, 4, 4);
	assert_int_equal(rg_build(&g, &f), 0);
	assert_int_equal(cdg_init_graph(&d, &g, 2, NULL, NULL), 0);
	uint32_t nch = g.adj_off[g.nsw], seed = 12345, added = 0, refused = 0;
	uint8_t *seen = malloc(nch);
	assert_non_null(seen);
	for (int i = 0; i < 4000; i++) {
		seed = seed * 1103515245u + 12345u;
		uint32_t a = (seed >> 8) % nch, l = (seed >> 4) & 1;
		uint32_t p = g.adj[a].peer;
		seed = seed * 1103515245u + 12345u;
		uint32_t b = g.adj_off[p] + (seed >> 8) % (g.adj_off[p + 1] - g.adj_off[p]);
		int had = cdg_has(&d, l, a, b);
		memset(seen, 0, nch);
		int cyc = !had && reaches(&d, l, b, a, seen);
		int r = cdg_add(&d, l, a, b);
		assert_int_equal(r, had ? 0 : cyc ? -1 : 1);
		added += r > 0;
		refused += r < 0;
		if ((seed >> 20) % 7 == 0 && r >= 0)
			cdg_del(&d, l, a, b); /* take one use back now and then */
	}
	assert_true(added > 50 && refused > 50);
	free(seen);
	cdg_free(&d);
	rg_free(&g);
	fab_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(layers_acyclic_lookup_and_check_can_fail),
		cmocka_unit_test(small_budgets_route_on_the_dependency_graph),
		cmocka_unit_test(one_layer_dragonfly_beats_updn),
		cmocka_unit_test(cdg_layers_match_brute_force),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
