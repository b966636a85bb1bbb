/* sm/health/trap_damp.c: which traps space the heavy sweeps (a storm) and which
 * do not (one event, however many switches report it). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "sm/health/trap_damp.h"

#define MAX 5.0                     /* flap_max_delay's default */

/* A flapping switch-to-switch link: each change is a trap from both ends,
 * one change per `step` s, n changes from t. The largest delay seen. */
static double flap(struct trap_damp *d, uint16_t a, uint16_t b, int n,
		   double t, double step)
{
	double worst = 0, v;

	for (int k = 0; k < n; k++) {
		v = trap_damp_trap(d, a, t + k * step, MAX);
		worst = v > worst ? v : worst;
		v = trap_damp_trap(d, b, t + k * step + 0.0001, MAX);
		worst = v > worst ? v : worst;
	}
	return worst;
}

/* Test 38's storm: 120 changes 50 ms apart reach flap_max_delay, and
 * stay there while the storm lasts. */
static void test_storm_damped(void **state)
{
	struct trap_damp d;

	(void)state;
	trap_damp_init(&d);
	assert_true(flap(&d, 7, 9, 120, 100, 0.05) == MAX);
	assert_true(trap_damp_trap(&d, 7, 106.05, MAX) == MAX);
	/* A quiet second: the next trap sweeps at once. */
	assert_true(trap_damp_trap(&d, 7, 108, MAX) == 0);
	trap_damp_free(&d);
}

/* Test 83's cadence: one link down and up every 0.3 s is a storm too,
 * from its second change on. */
static void test_slow_flap_damped(void **state)
{
	struct trap_damp d;

	(void)state;
	trap_damp_init(&d);
	assert_true(trap_damp_trap(&d, 7, 10, MAX) == 0);
	assert_true(trap_damp_trap(&d, 7, 10.3, MAX) > 0);
	assert_true(flap(&d, 7, 9, 6, 10.6, 0.3) >= 0.8);
	trap_damp_free(&d);
}

/* A lost switch (measured under ibsim: a radix-6 3-level tree, one core
 * switch unlinked): 10 traps in the same millisecond from its 7
 * neighbours, one of them 4 times (4 parallel links). One event: no
 * wait. Before per-issuer damping this gave 5 s (0.2 doubled 9 times,
 * capped). */
static void test_switch_loss_not_damped(void **state)
{
	static const uint16_t issuers[] = { 13, 66, 13, 36, 13, 14, 13, 76, 1, 62 };
	struct trap_damp d;

	(void)state;
	trap_damp_init(&d);
	for (unsigned k = 0; k < sizeof(issuers) / sizeof(issuers[0]); k++)
		assert_true(trap_damp_trap(&d, issuers[k], 50 + k * 0.00005,
					   MAX) == 0);
	/* A second switch lost 0.5 s later: other neighbours, still no wait. */
	for (uint16_t k = 0; k < 40; k++)
		assert_true(trap_damp_trap(&d, (uint16_t)(100 + k),
					   50.5 + k * 0.0001, MAX) == 0);
	/* A link lost: both ends report once. */
	assert_true(trap_damp_trap(&d, 200, 60, MAX) == 0);
	assert_true(trap_damp_trap(&d, 201, 60.0001, MAX) == 0);
	trap_damp_free(&d);
}

/* A switch that keeps reporting is a storm even while others report once
 * each: their single reports neither deepen nor end it. */
static void test_mixed(void **state)
{
	struct trap_damp d;

	(void)state;
	trap_damp_init(&d);
	/* One link down: both ends report, one event. */
	assert_true(trap_damp_trap(&d, 7, 0, MAX) == 0);
	assert_true(trap_damp_trap(&d, 9, 0.0001, MAX) == 0);
	/* It comes back, goes down again: repeats from both ends. */
	assert_true(trap_damp_trap(&d, 7, 0.1, MAX) == 0.2);
	assert_true(trap_damp_trap(&d, 9, 0.1001, MAX) == 0.4);
	assert_true(trap_damp_trap(&d, 7, 0.2, MAX) == 0.8);
	/* Other switches, once each: the storm's spacing stays. */
	assert_true(trap_damp_trap(&d, 300, 0.3, MAX) == 0.8);
	assert_true(trap_damp_trap(&d, 301, 0.4, MAX) == 0.8);
	assert_true(trap_damp_trap(&d, 7, 0.5, MAX) == 1.6);
	/* The cap follows flap_max_delay (a SIGHUP may change it). */
	assert_true(flap(&d, 7, 9, 40, 0.6, 0.05) == MAX);
	assert_true(trap_damp_trap(&d, 7, 3, MAX - 4) == MAX - 4);
	trap_damp_free(&d);
}

/* Many issuers, each a storm of its own for a while, then quiet: the
 * bookkeeping forgets them (bounded memory). */
static void test_forget(void **state)
{
	struct trap_damp d;

	(void)state;
	trap_damp_init(&d);
	for (uint16_t k = 1; k <= 2000; k++)
		trap_damp_trap(&d, k, k * 0.001, MAX);
	assert_true(trap_damp_trap(&d, 5000, 100, MAX) == 0);
	assert_true(trap_damp_trap(&d, 1, 100.2, MAX) == 0);
	trap_damp_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_storm_damped),
		cmocka_unit_test(test_slow_flap_damped),
		cmocka_unit_test(test_switch_loss_not_damped),
		cmocka_unit_test(test_mixed),
		cmocka_unit_test(test_forget),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
