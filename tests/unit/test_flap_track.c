/* sm/flap_track.c: when a port counts as flapping, and when it is given
 * back. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sm/flap_track.h"

/* n down/up cycles of port i, one change per `step` s from t. */
static int cycles(struct flap_track *ft, int i, int n, double t, double step)
{
	int held = 0;

	for (int k = 0; k < n; k++) {
		held |= flap_track_observe(ft, (uint32_t)i, 0, t + 2 * k * step);
		held |= flap_track_observe(ft, (uint32_t)i, 1, t + (2 * k + 1) * step);
	}
	return held;
}

static void test_threshold(void **state)
{
	struct flap_track ft;
	int a, b;

	(void)state;
	flap_track_init(&ft, 6, 60, 10);
	a = flap_track_port(&ft, 0x1, 5);
	b = flap_track_port(&ft, 0x1, 6);
	assert_true(a >= 0 && b >= 0 && a != b);
	assert_int_equal(flap_track_port(&ft, 0x1, 5), a);
	/* The first observation is the baseline, not a change. */
	assert_int_equal(flap_track_observe(&ft, a, 1, 0), 0);
	assert_int_equal(flap_track_observe(&ft, a, 1, 0.5), 0);
	/* 3 cycles = 6 changes: not more than 6. */
	assert_int_equal(cycles(&ft, a, 3, 1, 1), 0);
	assert_int_equal(flap_track_recent(&ft, a, 7), 6);
	/* The 7th change holds it, once. */
	assert_int_equal(flap_track_observe(&ft, a, 0, 8), 1);
	assert_int_equal(ft.held, 1);
	assert_int_equal(flap_track_observe(&ft, a, 1, 9), 0);
	/* Port b: the same number of changes spread over more than the
	 * window is not flapping. */
	flap_track_observe(&ft, b, 1, 0);
	assert_int_equal(cycles(&ft, b, 5, 1, 20), 0);
	flap_track_free(&ft);
}

static void test_release(void **state)
{
	struct flap_track ft;
	uint32_t from = 0;
	int a;

	(void)state;
	flap_track_init(&ft, 2, 60, 10);
	a = flap_track_port(&ft, 0x2, 1);
	flap_track_observe(&ft, a, 1, 0);
	assert_int_equal(cycles(&ft, a, 2, 1, 1), 1);  /* changes at 1..4 */
	/* Up, but not quiet long enough. */
	assert_int_equal(flap_track_next_release(&ft, 10, &from), -1);
	/* Down when the quiet period is over: still held. */
	from = 0;
	flap_track_observe(&ft, a, 0, 20);
	assert_int_equal(flap_track_next_release(&ft, 40, &from), -1);
	/* Up and quiet for 10 s: given back. */
	flap_track_observe(&ft, a, 1, 41);
	from = 0;
	assert_int_equal(flap_track_next_release(&ft, 50, &from), -1);
	from = 0;
	assert_int_equal(flap_track_next_release(&ft, 51, &from), a);
	assert_int_equal(ft.held, 0);
	from = 0;
	assert_int_equal(flap_track_next_release(&ft, 60, &from), -1);
	flap_track_free(&ft);
}

static void test_off_and_many_ports(void **state)
{
	struct flap_track ft;

	(void)state;
	flap_track_init(&ft, 0, 60, 10);
	int a = flap_track_port(&ft, 0x3, 1);

	flap_track_observe(&ft, a, 1, 0);
	assert_int_equal(cycles(&ft, a, 40, 1, 0.01), 0);   /* count 0: off */
	assert_int_equal(ft.p[a].total, 80);
	/* The index keeps thousands of ports apart. */
	for (uint32_t g = 0; g < 2000; g++)
		for (uint8_t p = 1; p <= 4; p++)
			assert_true(flap_track_port(&ft, 0x1000 + g, p) >= 0);
	assert_int_equal(ft.n, 8001);
	assert_int_equal(flap_track_port(&ft, 0x1000 + 1999, 4), 8000);
	flap_track_free(&ft);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_threshold),
		cmocka_unit_test(test_release),
		cmocka_unit_test(test_off_and_many_ports),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
