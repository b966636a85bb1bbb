/* sm/sweep: the heavy sweep's table of phases and the function that
 * applies it (sweep.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <cmocka.h>

#include "sm/sweep/sweep.h"

/* Which phases ran, in order: one letter each. */
static char ran[16];

static void note(char ch)
{
	size_t n = strlen(ran);

	ran[n] = ch;
	ran[n + 1] = 0;
}

static int run_a(struct sweep_ctx *c) { (void)c; note('a'); return SWEEP_NEXT; }
static int run_b(struct sweep_ctx *c) { (void)c; note('b'); return SWEEP_NEXT; }
static int run_end(struct sweep_ctx *c) { note('e'); c->rc = SM_SWEEP_STANDBY; return SWEEP_END; }
static int run_fail(struct sweep_ctx *c) { (void)c; note('f'); return -EIO; }
static int run_up(struct sweep_ctx *c) { note('u'); c->rc = 0; return SWEEP_NEXT; }
/* An SMInfo control taken while the phase waited (the ACKNOWLEDGE of our
 * HANDOVER) made the SM STANDBY. */
static int run_acked(struct sweep_ctx *c) { note('k'); c->sm->state = SMP_SM_STANDBY; return SWEEP_NEXT; }

/* The SM the table runs for: master, as in a sweep that programs. */
static struct sm sm_led;

static struct sweep_ctx ctx(void)
{
	memset(&sm_led, 0, sizeof(sm_led));
	sm_led.state = SMP_SM_MASTER;
	return (struct sweep_ctx){ .sm = &sm_led, .rc = 1 };
}

static void test_every_phase_runs(void **state)
{
	const struct sweep_phase t[] = { { "a", run_a }, { "b", run_b }, { "up", run_up } };
	struct sweep_ctx c = ctx();

	(void)state;
	ran[0] = 0;
	sweep_run(&c, t, 3);
	assert_string_equal(ran, "abu");
	assert_int_equal(c.rc, 0);
}

/* A phase that ends the sweep (a hold, a better SM) stops the table and
 * its rc stands. */
static void test_end_stops(void **state)
{
	const struct sweep_phase t[] = { { "a", run_a }, { "end", run_end }, { "b", run_b } };
	struct sweep_ctx c = ctx();

	(void)state;
	ran[0] = 0;
	sweep_run(&c, t, 3);
	assert_string_equal(ran, "ae");
	assert_int_equal(c.rc, SM_SWEEP_STANDBY);
}

/* A failed phase fails the sweep with its errno, whatever an earlier
 * phase decided. */
static void test_error_fails(void **state)
{
	const struct sweep_phase t[] = { { "up", run_up }, { "fail", run_fail }, { "b", run_b } };
	struct sweep_ctx c = ctx();

	(void)state;
	ran[0] = 0;
	sweep_run(&c, t, 3);
	assert_string_equal(ran, "uf");
	assert_int_equal(c.rc, -EIO);
}

/* The table is the one sweep.h draws, in its order: the gates before
 * anything is assigned, P_Keys and VLs before the LFTs that need them,
 * the LFTs before activation, the view committed before the services
 * (SA, multicast, ...) are handed it. */
/* A master made STANDBY by a control during a phase stops after it: the
 * other SM programs the subnet from there (IBA 14.4.1). */
static void test_handed_over_stops(void **state)
{
	const struct sweep_phase t[] = { { "a", run_a }, { "acked", run_acked }, { "b", run_b } };
	struct sweep_ctx c = ctx();

	(void)state;
	ran[0] = 0;
	sweep_run(&c, t, 3);
	assert_string_equal(ran, "ak");
	assert_int_equal(c.rc, SM_SWEEP_STANDBY);
}

static void test_heavy_order(void **state)
{
	static const char *const want[] = {
		"discover", "guard", "standby", "lids", "route", "portinfo",
		"sa-tables", "pkeys", "vls", "qos", "lfts", "activate", "verdict",
		"hold", "commit", "services",
	};
	unsigned n;
	const struct sweep_phase *t = sweep_heavy_phases(&n);

	(void)state;
	assert_int_equal(n, sizeof(want) / sizeof(want[0]));
	for (unsigned i = 0; i < n; i++) {
		assert_string_equal(t[i].name, want[i]);
		assert_non_null(t[i].run);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_phase_runs),
		cmocka_unit_test(test_end_stops),
		cmocka_unit_test(test_error_fails),
		cmocka_unit_test(test_handed_over_stops),
		cmocka_unit_test(test_heavy_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
