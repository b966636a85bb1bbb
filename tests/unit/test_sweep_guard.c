/* sm/health/sweep_guard.c: which views may be programmed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sm/health/sweep_guard.h"

/* A view: nsw switches in a chain, the SM's CA on the first, ncas CAs. */
static void view(struct subnet *r, unsigned nsw, unsigned ncas,
		 int sm_linked)
{
	struct fabric *f = &r->fab;
	uint32_t sm, prev = FAB_NONE;

	subnet_init(r);
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
	struct subnet big, small, lone, lossy;
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
	subnet_free(&big);
	subnet_free(&small);
	subnet_free(&lone);
	subnet_free(&lossy);
}

/* A fabric that really has no switches (two HCAs back to back) is
 * programmed: there is nothing to hold on to. */
static void test_switchless_fabric(void **state)
{
	struct sweep_guard g;
	struct subnet r;
	char why[256];
	uint32_t a, b;

	(void)state;
	sweep_guard_init(&g, 10);
	subnet_init(&r);
	a = fab_add_node(&r.fab, FAB_CA, 1, 1, "a");
	b = fab_add_node(&r.fab, FAB_CA, 1, 2, "b");
	fab_link(&r.fab, fab_port_idx(&r.fab, a, 1), fab_port_idx(&r.fab, b, 1));
	r.sm_node = a;
	r.sm_port = fab_port_idx(&r.fab, a, 1);
	assert_int_equal(sweep_guard_judge(&g, &r, 0, why, sizeof(why)), SWEEP_PROGRAM);
	sweep_guard_programmed(&g, &r);
	assert_int_equal(sweep_guard_judge(&g, &r, 1, why, sizeof(why)), SWEEP_PROGRAM);
	subnet_free(&r);
}

/* r loses the requests keyed guid[0..n) (NodeInfo probes out of port 2). */
static void lose(struct subnet *r, const uint64_t *guid, unsigned n)
{
	free(r->lost);
	r->lost = calloc(n + 1, sizeof(*r->lost));
	assert_non_null(r->lost);
	for (unsigned i = 0; i < n; i++)
		r->lost[i] = (struct sweep_lost){ .guid = guid[i], .attr = 0x11, .port = 2 };
	r->num_lost = r->cap_lost = n;
	r->lost_probes = n;
	r->lost_attrs = 0;
}

/* A silent node (the same request lost in every sweep) is held for the
 * grace, then left out; a burst (other requests each sweep) is held for
 * as long as it lasts; a request answered once starts over. */
static void test_silent_node(void **state)
{
	struct sweep_guard g;
	struct subnet r;
	char why[256];
	const uint64_t one[] = { 0x100 }, other[] = { 0x101 };
	double t;

	(void)state;
	sweep_guard_init(&g, 10);
	view(&r, 4, 8, 1);
	/* Cold start: held until the same request has been lost for 10 s. */
	lose(&r, one, 1);
	for (t = 0; t < 10; t += 0.5)
		assert_int_equal(sweep_guard_judge(&g, &r, t, why, sizeof(why)),
				 SWEEP_HOLD_INCOMPLETE);
	assert_non_null(strstr(why, "0 of them lost in every sweep"));
	assert_int_equal(g.silent_again, 1);
	assert_int_equal(sweep_guard_judge(&g, &r, 10.0, why, sizeof(why)),
			 SWEEP_PROGRAM_UNREACHABLE);
	assert_non_null(strstr(why, "1 request lost in every sweep for 10 s"));
	assert_int_equal(sweep_guard_backoff(&g) <= 0.2 + 1e-9, 1);
	assert_non_null(sweep_guard_silent(&g, &r.lost[0]));
	assert_true(sweep_guard_silent(&g, &r.lost[0])->since == 0);
	sweep_guard_programmed(&g, &r);
	/* Still silent: programmed without it, sweep after sweep. */
	assert_int_equal(sweep_guard_judge(&g, &r, 11, why, sizeof(why)),
			 SWEEP_PROGRAM_UNREACHABLE);
	sweep_guard_programmed(&g, &r);
	/* A second request lost beside it: a new one, held. */
	{
		const uint64_t both[] = { 0x100, 0x101 };

		lose(&r, both, 2);
		assert_int_equal(sweep_guard_judge(&g, &r, 12, why, sizeof(why)),
				 SWEEP_HOLD_INCOMPLETE);
		assert_int_equal(g.silent_ripe, 1);
		assert_int_equal(g.silent_again, 1);
	}
	/* A burst: another request each sweep, never ripe. */
	for (t = 13; t < 40; t += 1) {
		const uint64_t k[] = { 0x100, 0x200 + (uint64_t)t };

		lose(&r, k, 2);
		assert_int_equal(sweep_guard_judge(&g, &r, t, why, sizeof(why)),
				 SWEEP_HOLD_INCOMPLETE);
	}
	/* The silent one answered once: it starts over. */
	lose(&r, other, 1);
	assert_int_equal(sweep_guard_judge(&g, &r, 40, why, sizeof(why)),
			 SWEEP_HOLD_INCOMPLETE);
	lose(&r, one, 1);
	assert_int_equal(sweep_guard_judge(&g, &r, 41, why, sizeof(why)),
			 SWEEP_HOLD_INCOMPLETE);
	assert_int_equal(sweep_guard_judge(&g, &r, 50.9, why, sizeof(why)),
			 SWEEP_HOLD_INCOMPLETE);
	assert_int_equal(sweep_guard_judge(&g, &r, 51, why, sizeof(why)),
			 SWEEP_PROGRAM_UNREACHABLE);
	/* Counts without the list (memory ran out): never taken as silence. */
	r.lost_attrs = 1;
	assert_int_equal(sweep_guard_judge(&g, &r, 100, why, sizeof(why)),
			 SWEEP_HOLD_INCOMPLETE);
	subnet_free(&r);
}

/* With a programmed view at stake, at most max(4, 2% of the nodes) silent
 * requests are left out; at a cold start any number. A silent node that
 * also makes the view smaller is not held a second grace. */
static void test_silent_bound(void **state)
{
	struct sweep_guard g;
	struct subnet big, r;
	char why[256];
	uint64_t k[8];

	(void)state;
	for (unsigned i = 0; i < 8; i++)
		k[i] = 0x100 + i;
	/* Cold start: 8 silent of 13 nodes, programmed after the grace. */
	sweep_guard_init(&g, 10);
	view(&r, 4, 8, 1);
	lose(&r, k, 8);
	assert_int_equal(sweep_guard_judge(&g, &r, 0, why, sizeof(why)), SWEEP_HOLD_INCOMPLETE);
	assert_int_equal(sweep_guard_judge(&g, &r, 10, why, sizeof(why)),
			 SWEEP_PROGRAM_UNREACHABLE);
	/* Programmed fabric: 5 silent at once is more than the bound of 4. */
	sweep_guard_init(&g, 10);
	view(&big, 4, 8, 1);
	assert_int_equal(sweep_guard_judge(&g, &big, 0, why, sizeof(why)), SWEEP_PROGRAM);
	sweep_guard_programmed(&g, &big);
	lose(&r, k, 5);
	assert_int_equal(sweep_guard_judge(&g, &r, 1, why, sizeof(why)), SWEEP_HOLD_INCOMPLETE);
	assert_int_equal(sweep_guard_judge(&g, &r, 100, why, sizeof(why)), SWEEP_HOLD_INCOMPLETE);
	assert_non_null(strstr(why, "more than the 4 silent nodes"));
	/* 4 are within it. CAs gone silent make the view smaller too: not
	 * held a second grace for as many missing nodes as are silent. */
	subnet_free(&r);
	view(&r, 4, 5, 1);
	lose(&r, k + 4, 4);
	assert_int_equal(sweep_guard_judge(&g, &r, 200, why, sizeof(why)), SWEEP_HOLD_INCOMPLETE);
	assert_int_equal(sweep_guard_judge(&g, &r, 205, why, sizeof(why)), SWEEP_HOLD_INCOMPLETE);
	assert_int_equal(sweep_guard_judge(&g, &r, 210, why, sizeof(why)),
			 SWEEP_PROGRAM_UNREACHABLE);
	assert_null(strstr(why, "smaller"));
	/* Smaller by more than the silent ones: held as any smaller view. */
	subnet_free(&r);
	view(&r, 3, 5, 1);
	lose(&r, k + 4, 3);
	assert_int_equal(sweep_guard_judge(&g, &r, 211, why, sizeof(why)), SWEEP_HOLD_SMALLER);
	assert_int_equal(sweep_guard_judge(&g, &r, 220.9, why, sizeof(why)), SWEEP_HOLD_SMALLER);
	assert_int_equal(sweep_guard_judge(&g, &r, 221, why, sizeof(why)),
			 SWEEP_PROGRAM_UNREACHABLE);
	assert_non_null(strstr(why, "taking the smaller view"));
	subnet_free(&r);
	subnet_free(&big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_switchless_fabric),
		cmocka_unit_test(test_silent_node),
		cmocka_unit_test(test_silent_bound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
