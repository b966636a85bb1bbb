/* sm/sweep_guard.c: which views may be programmed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sm/sweep_guard.h"

/* A view: nsw switches in a chain, the SM's CA on the first, ncas CAs. */
static void view(struct sweep_result *r, unsigned nsw, unsigned ncas,
		 int sm_linked)
{
	struct fabric *f = &r->fab;
	uint32_t sm, prev = FAB_NONE;

	sweep_result_init(r);
	sm = fab_add_node(f, FAB_CA, 1, 0x1, "sm");
	r->sm_node = sm;
	r->sm_port = fab_port_idx(f, sm, 1);
	for (unsigned i = 0; i < nsw; i++) {
		uint32_t s = fab_add_node(f, FAB_SWITCH, 8, 0x100 + i, "sw");

		if (prev != FAB_NONE)
			fab_link(f, fab_port_idx(f, prev, 2), fab_port_idx(f, s, 1));
		else if (sm_linked)
			fab_link(f, fab_port_idx(f, sm, 1), fab_port_idx(f, s, 3));
		prev = s;
	}
	for (unsigned i = 1; i < ncas; i++)
		fab_add_node(f, FAB_CA, 1, 0x1000 + i, "ca");
}

static void test_rules(void **state)
{
	struct sweep_guard g;
	struct sweep_result big, small, lone, lossy;
	char why[256];

	(void)state;
	sweep_guard_init(&g, 10);
	view(&big, 4, 8, 1);
	view(&small, 3, 8, 1);
	view(&lone, 0, 1, 0);
	view(&lossy, 4, 8, 1);
	lossy.lost_attrs = 3;

	assert_int_equal(sweep_guard_judge(&g, &big, 0, why, sizeof(why)), SWEEP_PROGRAM);
	sweep_guard_programmed(&g, &big);
	/* The SM's own link down: never programmed, whatever the time. */
	assert_int_equal(sweep_guard_judge(&g, &lone, 1, why, sizeof(why)), SWEEP_HOLD_NO_FABRIC);
	assert_int_equal(sweep_guard_judge(&g, &lone, 1000, why, sizeof(why)), SWEEP_HOLD_NO_FABRIC);
	/* Lost answers: held. */
	assert_int_equal(sweep_guard_judge(&g, &lossy, 2, why, sizeof(why)), SWEEP_HOLD_INCOMPLETE);
	assert_non_null(strstr(why, "3 other answers lost"));
	/* Smaller, no trap: held until the grace time has passed, counted
	 * from the first smaller view, not in sweeps. */
	for (int i = 0; i < 50; i++)
		assert_int_equal(sweep_guard_judge(&g, &small, 100 + i * 0.1, why, sizeof(why)),
				 SWEEP_HOLD_SMALLER);
	assert_int_equal(sweep_guard_judge(&g, &small, 110.5, why, sizeof(why)), SWEEP_PROGRAM);
	sweep_guard_programmed(&g, &small);
	/* Back to the big view, then smaller with a trap: at once. */
	assert_int_equal(sweep_guard_judge(&g, &big, 200, why, sizeof(why)), SWEEP_PROGRAM);
	sweep_guard_programmed(&g, &big);
	sweep_guard_trap(&g);
	assert_int_equal(sweep_guard_judge(&g, &small, 201, why, sizeof(why)), SWEEP_PROGRAM);
	/* Backoff grows with holds, capped. */
	assert_true(sweep_guard_backoff(&g) <= 0.2 + 1e-9);
	for (int i = 0; i < 10; i++)
		sweep_guard_judge(&g, &lone, 300, why, sizeof(why));
	assert_true(sweep_guard_backoff(&g) >= 4.9 && sweep_guard_backoff(&g) <= 5.0);
	sweep_result_free(&big);
	sweep_result_free(&small);
	sweep_result_free(&lone);
	sweep_result_free(&lossy);
}

/* A fabric that really has no switches (two HCAs back to back) is
 * programmed: there is nothing to hold on to. */
static void test_switchless_fabric(void **state)
{
	struct sweep_guard g;
	struct sweep_result r;
	char why[256];
	uint32_t a, b;

	(void)state;
	sweep_guard_init(&g, 10);
	sweep_result_init(&r);
	a = fab_add_node(&r.fab, FAB_CA, 1, 1, "a");
	b = fab_add_node(&r.fab, FAB_CA, 1, 2, "b");
	fab_link(&r.fab, fab_port_idx(&r.fab, a, 1), fab_port_idx(&r.fab, b, 1));
	r.sm_node = a;
	r.sm_port = fab_port_idx(&r.fab, a, 1);
	assert_int_equal(sweep_guard_judge(&g, &r, 0, why, sizeof(why)), SWEEP_PROGRAM);
	sweep_guard_programmed(&g, &r);
	assert_int_equal(sweep_guard_judge(&g, &r, 1, why, sizeof(why)), SWEEP_PROGRAM);
	sweep_result_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_switchless_fabric),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
