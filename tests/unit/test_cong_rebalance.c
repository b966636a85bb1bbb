/* Congestion-aware rebalance (routing/cong_rebalance.h) on a 2-level fat-tree
 * routed by ftree: a hot leaf up-port loses at most max_moves entries, all
 * to other up-ports of that leaf (equally short), the tables stay complete,
 * loop-free and credit-loop-free, the estimate drops; nothing moves without
 * a hot port, with max_moves 0, or when every other port is already
 * busier. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/fabric.h"
#include "core/lid_assign.h"
#include "routing/cong_rebalance.h"
#include "routing/engine.h"
#include "routing/lft.h"
#include "routing/verify.h"
#include "topogen/topo_gen.h"
#include "tests/unit/support.h"

struct env {
	struct fabric f;
	struct lft_set t;
	double *load;
	uint8_t *hot;
	uint32_t leaf, hot_port_idx;
	uint8_t hot_port;
};

static void setup_env(struct env *e)
{
	struct fattree_params p = { .levels = 2, .radix = 8, .oversub = 1 };
	struct route_options ro = { 0 };
	char err[256];

	memset(e, 0, sizeof(*e));
	ut_fattree(&e->f, &p, 0);
	assert_int_equal(route_run(route_engine_find("ftree"), &e->f, &ro, &e->t, err), 0);
	e->load = calloc(e->f.num_ports, sizeof(*e->load));
	e->hot = calloc(e->f.num_ports, 1);
	assert_non_null(e->load);
	assert_non_null(e->hot);
	/* The first switch with a switch neighbour on its highest port: a
	 * leaf and one of its up-ports. */
	for (uint32_t s = 0; s < e->f.num_switches && !e->hot_port; s++) {
		uint32_t n = e->f.switches[s];

		for (unsigned k = e->f.nodes[n].num_ports; k >= 1; k--) {
			uint32_t q = fab_port_idx(&e->f, n, k);
			uint32_t peer = e->f.ports[q].peer;

			if (peer == FAB_NONE || !fab_is_switch(&e->f, e->f.ports[peer].node))
				break;
			e->leaf = s;
			e->hot_port = (uint8_t)k;
			e->hot_port_idx = q;
			break;
		}
	}
	assert_true(e->hot_port != 0);
	/* Every switch-to-switch port carries 10 MB/s, the hot one 100. */
	for (uint32_t q = 0; q < e->f.num_ports; q++)
		if (e->f.ports[q].peer != FAB_NONE && fab_is_switch(&e->f, e->f.ports[q].node))
			e->load[q] = 10e6;
	e->load[e->hot_port_idx] = 100e6;
}

static void free_env(struct env *e)
{
	lft_free(&e->t);
	fab_free(&e->f);
	free(e->load);
	free(e->hot);
}

static uint32_t entries_on(const struct lft_set *t, uint32_t sw, uint8_t port)
{
	uint32_t n = 0;

	for (uint32_t l = 1; l <= t->max_lid; l++)
		n += lft_get(t, sw, l) == port;
	return n;
}

static void hot_port_spreads_within_bound(void **state)
{
	struct env e;
	struct cong_stats st;
	struct verify_opts vo = { .check_credit_loops = 1, .cdg_switch_lids = 1 };
	struct verify_result vr;
	struct lft_set before = { 0 };

	(void)state;
	setup_env(&e);
	assert_int_equal(lft_alloc(&before, e.t.num_switches, e.t.max_lid), 0);
	memcpy(before.port, e.t.port, (size_t)e.t.num_switches * e.t.stride);
	uint32_t n0 = entries_on(&e.t, e.leaf, e.hot_port);
	assert_true(n0 > 4);
	e.hot[e.hot_port_idx] = 1;
	assert_int_equal(cong_rebalance(&e.f, &e.t, e.load, e.hot, 4, &st), 0);
	assert_int_equal(st.hot_ports, 1);
	assert_int_equal(st.moved, 4);
	assert_int_equal(entries_on(&e.t, e.leaf, e.hot_port), n0 - 4);
	assert_true(st.max_after < st.max_before);
	/* Only the hot leaf's row changed, and only away from the hot port. */
	for (uint32_t s = 0; s < e.t.num_switches; s++)
		for (uint32_t l = 1; l <= e.t.max_lid; l++) {
			uint8_t a = lft_get(&before, s, l), b = lft_get(&e.t, s, l);

			if (a == b)
				continue;
			assert_int_equal(s, e.leaf);
			assert_int_equal(a, e.hot_port);
		}
	assert_int_equal(verify_routes(&e.f, &e.t, &vo, &vr), 0);
	assert_true(vr.ok);
	assert_false(vr.credit_loop);
	lft_free(&before);
	free_env(&e);
}

static void nothing_to_do(void **state)
{
	struct env e;
	struct cong_stats st;

	(void)state;
	setup_env(&e);
	uint32_t n0 = entries_on(&e.t, e.leaf, e.hot_port);
	/* No hot port. */
	assert_int_equal(cong_rebalance(&e.f, &e.t, e.load, e.hot, 4, &st), 0);
	assert_int_equal(st.moved, 0);
	/* A bound of 0. */
	e.hot[e.hot_port_idx] = 1;
	assert_int_equal(cong_rebalance(&e.f, &e.t, e.load, e.hot, 0, &st), 0);
	assert_int_equal(st.moved, 0);
	/* Every other port already carries more than the hot one. */
	for (uint32_t q = 0; q < e.f.num_ports; q++)
		if (e.load[q] > 0)
			e.load[q] = 500e6;
	e.load[e.hot_port_idx] = 100e6;
	assert_int_equal(cong_rebalance(&e.f, &e.t, e.load, e.hot, 4, &st), 0);
	assert_int_equal(st.moved, 0);
	assert_int_equal(entries_on(&e.t, e.leaf, e.hot_port), n0);
	free_env(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(hot_port_spreads_within_bound),
		cmocka_unit_test(nothing_to_do),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
