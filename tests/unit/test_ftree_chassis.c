/* ftree on fat-trees of director switches (topogen/topo_gen_director.c):
 *  - descriptions of chassis ASICs parse ("MF0;director-1:CS7500/L05/U1"),
 *    other shapes do not;
 *  - ft_build recognises every chassis from the graph alone (descriptions
 *    blanked), with the cabled positions inside it; a 2-level tree has
 *    none; a chassis with a few internal links down still counts;
 *  - routed, intact director fabrics are complete, CA routes (and CA ->
 *    switch LIDs) credit-loop free, all-to-all at the lower bound on
 *    switch-to-switch links and every shift congestion-free in rank order
 *    (verifier), also when the switches are numbered in another order. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fabric.h"
#include "core/lid_assign.h"
#include "core/log.h"
#include "routing/engine.h"
#include "routing/ftree/ftree.h"
#include "routing/lft.h"
#include "routing/verify.h"
#include "topogen/topo_gen.h"
#include "tests/unit/support.h"

static void make_director(struct fabric *f, unsigned d, unsigned r,
			  unsigned n, double remove)
{
	struct director_params p = { .directors = d, .radix = r,
		.line_asics = n, .remove_frac = remove, .seed = 1 };
	char err[256];
	assert_int_equal(gen_director(f, &p, err), 0);
	struct lid_assign_opts lo = { 0 };
	assert_true(lid_assign(f, &lo, NULL) >= 0);
}

static void test_desc(void **state)
{
	(void)state;
	char name[64], kind;
	unsigned card, unit;
	assert_int_equal(ft_chassis_desc("MF0;director-1:CS7500/L05/U1", name,
					 sizeof(name), &kind, &card, &unit), 1);
	assert_string_equal(name, "director-1");
	assert_int_equal(kind, 'L');
	assert_int_equal(card, 5);
	assert_int_equal(unit, 1);
	assert_int_equal(ft_chassis_desc("MF0;ib-core:SXX536/S18/U2", name,
					 sizeof(name), &kind, &card, &unit), 1);
	assert_string_equal(name, "ib-core");
	assert_int_equal(kind, 'S');
	assert_int_equal(card, 18);
	assert_int_equal(unit, 2);
	static const char *not_chassis[] = {
		"MF0;leaf-3:MSB7800/U1",        /* a 1U switch */
		"MF0;ys46ib1:SX60XX/U1/P26",
		"leaf-3", "node-17 HCA-1", "", "MF0;:CS7500/L05/U1",
		"MF0;x:CS7500/L05/U1/P3", "MF0;x:CS7500/Q05/U1",
		"MF0;x:CS7500/L05",
	};
	for (size_t i = 0; i < sizeof(not_chassis) / sizeof(not_chassis[0]); i++)
		assert_int_equal(ft_chassis_desc(not_chassis[i], name, sizeof(name),
						 &kind, &card, &unit), 0);
}

/* Chassis found from the graph only: descriptions blanked. */
static void chassis_case(unsigned d, unsigned r, unsigned n)
{
	struct fabric f;
	struct ftree t;
	char why[256];
	make_director(&f, d, r, n, 0);
	for (uint32_t i = 0; i < f.num_nodes; i++)
		f.nodes[i].desc[0] = '\0';
	assert_int_equal(ft_build(&t, &f, NULL, why), 0);
	assert_int_equal(t.height, 2);
	assert_int_equal(t.nchassis, d);
	uint32_t leaves = d * n, per = n + r / 2;
	/* switch ordinals: leaves, then per chassis its line ASICs, then its
	 * fabric ASICs (the generator's order) */
	for (uint32_t s = 0; s < t.nsw; s++) {
		if (s < leaves) {
			assert_int_equal(t.chassis[s], FAB_NONE);
			continue;
		}
		uint32_t c = (s - leaves) / per, i = (s - leaves) % per;
		assert_int_equal(t.chassis[s], c);
		if (i < n)      /* line ASIC i sits on port i+1 of fabric ASICs */
			assert_int_equal(t.chassis_pos[s], i + 1);
		else            /* fabric ASIC k on port r/2+1+k of line ASICs */
			assert_int_equal(t.chassis_pos[s], r / 2 + 1 + (i - n));
	}
	ft_free(&t);
	fab_free(&f);
}

static void test_recognise(void **state)
{
	(void)state;
	chassis_case(1, 8, 8);
	chassis_case(2, 8, 4);
	chassis_case(3, 12, 12);
	chassis_case(2, 36, 36);
	chassis_case(6, 36, 18);

	struct fabric f;
	struct ftree t;
	char why[256];
	/* 2-level tree: spines stand alone, no chassis */
	struct fattree_params p2 = { .levels = 2, .radix = 8, .oversub = 1 };
	assert_int_equal(gen_fattree(&f, &p2, why), 0);
	assert_int_equal(ft_build(&t, &f, NULL, why), 0);
	assert_int_equal(t.nchassis, 0);
	assert_null(t.chassis);
	ft_free(&t);
	fab_free(&f);
	/* A few internal links down (5% of all switch links): still found. */
	make_director(&f, 2, 12, 12, 0.05);
	assert_int_equal(ft_build(&t, &f, NULL, why), 0);
	assert_int_equal(t.nchassis, 2);
	ft_free(&t);
	fab_free(&f);
}

/* The i-th switch of the fabric numbered as perm[i]: a copy of f with the
 * switches created in another order (CAs first, links the same). */
static void renumber_switches(const struct fabric *f, struct fabric *g,
			      uint64_t seed)
{
	uint32_t *order = malloc(f->num_nodes * sizeof(uint32_t));
	uint32_t *newidx = malloc(f->num_nodes * sizeof(uint32_t));
	assert_non_null(order);
	assert_non_null(newidx);
	uint32_t n = 0, first_sw = f->num_cas;
	for (uint32_t i = 0; i < f->num_nodes; i++)
		order[n++] = i;
	/* CAs come first in generated fabrics; shuffle the switches only */
	for (uint32_t i = f->num_nodes - 1; i > first_sw; i--) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		uint32_t j = first_sw + (uint32_t)((seed >> 33) % (i - first_sw + 1));
		uint32_t x = order[i];
		order[i] = order[j];
		order[j] = x;
	}
	fab_init(g);
	for (uint32_t k = 0; k < f->num_nodes; k++) {
		const struct fab_node *nd = &f->nodes[order[k]];
		newidx[order[k]] = fab_add_node(g, nd->type, nd->num_ports, nd->guid,
						nd->desc);
		assert_int_not_equal(newidx[order[k]], FAB_NONE);
		g->nodes[newidx[order[k]]].sys_guid = nd->sys_guid;
		for (unsigned p = 0; p <= nd->num_ports; p++) {
			struct fab_port *q = fab_port(g, newidx[order[k]], p);
			const struct fab_port *o = &f->ports[nd->first_port + p];
			if (!q)
				continue;
			q->guid = o->guid;
			q->lid = o->lid;
			q->lmc = o->lmc;
		}
	}
	for (uint32_t a = 0; a < f->num_nodes; a++) {
		const struct fab_node *nd = &f->nodes[a];
		for (unsigned p = 1; p <= nd->num_ports; p++) {
			uint32_t q = f->ports[nd->first_port + p].peer;
			if (q == FAB_NONE || f->ports[q].node < a)
				continue;
			uint32_t b = f->ports[q].node;
			ut_link(g, newidx[a], p, newidx[b], f->ports[q].num);
		}
	}
	free(order);
	free(newidx);
}

static void route_case(const struct fabric *f, const char *what)
{
	struct route_options none = { 0 };
	struct route_ctx ctx = { .fab = f, .opt = &none };
	struct lft_set t;
	assert_int_equal(lft_alloc(&t, f->num_switches, fab_max_lid(f)), 0);
	assert_int_equal(route_ftree.prepare(&ctx), 0);
	assert_int_equal(route_ftree.route(&ctx, &t), 0);
	route_ftree.release(&ctx);
	struct verify_opts vo = { .check_credit_loops = 1, .link_load = 1,
				  .cdg_switch_lids = 1 };
	struct verify_result res;
	assert_int_equal(verify_routes(f, &t, &vo, &res), 0);
	fprintf(stderr, "  %s: a2a %.4fx, switch links %.4fx, %u of %u shifts "
		"congested\n", what, res.a2a_ratio, res.a2a_switch_ratio,
		res.shifts_congested, res.shifts_checked);
	assert_true(res.ok);
	assert_int_equal(res.credit_loop, 0);
	assert_int_equal(res.missing_entries, 0);
	assert_int_equal(res.pairs_unreachable, 0);
	assert_int_equal(res.pairs_looping, 0);
	assert_true(res.a2a_switch_ratio <= 1.0 + 1e-9);
	assert_true(res.shifts_checked > 0);
	assert_int_equal(res.shifts_congested, 0);
	lft_free(&t);
}

static void test_route(void **state)
{
	(void)state;
	static const unsigned c[][3] = { { 1, 8, 8 }, { 2, 8, 8 }, { 2, 12, 12 },
					 { 3, 12, 12 }, { 2, 36, 18 } };
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct fabric f, g;
		char what[64];
		make_director(&f, c[i][0], c[i][1], c[i][2], 0);
		snprintf(what, sizeof(what), "D=%u R=%u N=%u", c[i][0], c[i][1], c[i][2]);
		route_case(&f, what);
		renumber_switches(&f, &g, 7 + i);
		snprintf(what, sizeof(what), "D=%u R=%u N=%u renumbered", c[i][0],
			 c[i][1], c[i][2]);
		route_case(&g, what);
		fab_free(&g);
		fab_free(&f);
	}
}

int main(void)
{
	log_set_level(LOG_ERR);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_desc),
		cmocka_unit_test(test_recognise),
		cmocka_unit_test(test_route),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
