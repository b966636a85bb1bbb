/* dfsp and the path-SL table: on a torus dfsp needs several layers, each
 * SL's dependency graph is acyclic (path_sl_check), the lookup the SA uses
 * answers the table's SL, and the check fails when every path is put back
 * on SL 0 (the same tables on one VL have a credit loop). Budgets it cannot
 * meet, budgets past 15 VLs and callers that cannot take SLs are refused
 * with a reason, never answered with wrong tables. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "core/fabric.h"
#include "core/lid_assign.h"
#include "routing/engine.h"
#include "routing/lft.h"
#include "routing/path_sl.h"
#include "sim/topo_gen.h"

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

static void refusals(void **state)
{
	(void)state;
	struct fabric f;
	struct lft_set t;
	struct path_sl p;
	char why[256];
	torus(&f, 4, 4);
	struct route_options o = { .max_vls = 1, .sl_out = &p };
	assert_int_equal(route_run(route_engine_find("dfsp"), &f, &o, &t, why),
			 -ENOTSUP);
	assert_non_null(strstr(why, "more than 1 virtual layers"));
	assert_null(p.sl); /* nothing half-filled left behind */
	o.max_vls = 16;
	assert_int_equal(route_run(route_engine_find("dfsp"), &f, &o, &t, why),
			 -EINVAL);
	o.max_vls = 8;
	o.sl_out = NULL;
	assert_int_equal(route_run(route_engine_find("dfsp"), &f, &o, &t, why),
			 -ENOTSUP);
	assert_non_null(strstr(why, "cannot program path SLs"));
	fab_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(layers_acyclic_lookup_and_check_can_fail),
		cmocka_unit_test(refusals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
