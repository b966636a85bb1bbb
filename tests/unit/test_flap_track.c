/* sm/health/flap_track.c: when a port counts as flapping, and when it is given
 * back. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "sm/health/flap_track.h"

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

/* One pass as sm_flap_tick makes it: every port released at `now`, as a
 * bit set over the first 64 port indexes' owners (idx -> bit k). */
static unsigned release_pass(struct flap_track *ft, double now,
			     const int *idx, unsigned nidx)
{
	uint32_t from = 0;
	unsigned got = 0;
	int i;

	while ((i = flap_track_next_release(ft, now, &from)) >= 0)
		for (unsigned k = 0; k < nidx; k++)
			if (idx[k] == i)
				got |= 1u << k;
	return got;
}

/* Several held ports among thousands: one pass gives back exactly those
 * up and quiet, in any order; the rest stay held until they are. */
static void test_release_many(void **state)
{
	static const uint8_t ports[] = { 5, 100, 200, 250, 31 };
	struct flap_track ft;
	int idx[5];

	(void)state;
	flap_track_init(&ft, 2, 60, 10);
	for (uint32_t g = 0; g < 1000; g++)
		for (uint8_t p = 1; p <= 3; p++)
			flap_track_observe(&ft, (uint32_t)flap_track_port(&ft, g, p),
					   1, 0);
	for (unsigned k = 0; k < 5; k++) {
		idx[k] = flap_track_port(&ft, 0x77, ports[k]);
		flap_track_observe(&ft, idx[k], 1, 0);
		assert_int_equal(cycles(&ft, idx[k], 2, 1, 1), 1);
	}
	assert_int_equal(ft.held, 5);
	/* Port 2 goes down, port 4 flaps again later. */
	flap_track_observe(&ft, idx[2], 0, 6);
	flap_track_observe(&ft, idx[4], 0, 8);
	flap_track_observe(&ft, idx[4], 1, 9);
	assert_int_equal(release_pass(&ft, 13.9, idx, 5), 0x0);
	assert_int_equal(release_pass(&ft, 14, idx, 5), 0x1 | 0x2 | 0x8);
	assert_int_equal(ft.held, 2);
	assert_int_equal(release_pass(&ft, 18.9, idx, 5), 0x0);
	assert_int_equal(release_pass(&ft, 19, idx, 5), 0x10);
	/* Port 2 back up at 20: quiet at 30. */
	flap_track_observe(&ft, idx[2], 1, 20);
	assert_int_equal(release_pass(&ft, 29, idx, 5), 0x0);
	assert_int_equal(release_pass(&ft, 30, idx, 5), 0x4);
	assert_int_equal(ft.held, 0);
	for (unsigned k = 0; k < 5; k++)
		assert_int_equal(ft.p[idx[k]].held, 0);
	/* Held again: once per hold. */
	assert_int_equal(cycles(&ft, idx[0], 2, 40, 1), 1);
	assert_int_equal(ft.held, 1);
	assert_int_equal(release_pass(&ft, 60, idx, 5), 0x1);
	flap_track_free(&ft);
}

/* The idle loop asks every wakeup (issue 27): with 100,000 tracked ports
 * and none held, 200,000 asks cost next to nothing: 0.7 ms here, where a
 * scan of every port (0.5 ms an ask, 54 MB of port records) went over
 * the 0.5 s bound by its 1,001st ask. The bound leaves room for a loaded,
 * sanitized build. */
static void test_idle_cost(void **state)
{
	struct flap_track ft;
	struct timespec t0, t1;
	uint32_t from;
	double s;

	(void)state;
	flap_track_init(&ft, 10, 60, 10);
	for (uint32_t g = 0; g < 25000; g++)
		for (uint8_t p = 1; p <= 4; p++)
			flap_track_observe(&ft, (uint32_t)flap_track_port(&ft, g, p),
					   1, 0);
	assert_int_equal(ft.n, 100000);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (unsigned k = 0; k < 200000; k++) {
		from = 0;
		assert_int_equal(flap_track_next_release(&ft, 100 + k, &from), -1);
		if (k % 1000)
			continue;
		/* Give up early when over the bound (a scan: 200 s). */
		clock_gettime(CLOCK_MONOTONIC, &t1);
		s = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
		if (s >= 0.5)
			fail_msg("%u asks over 100000 ports took %.2f s", k + 1, s);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	s = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
	print_message("200000 asks over 100000 ports: %.4f s\n", s);
	assert_true(s < 0.5);
	flap_track_free(&ft);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_threshold),
		cmocka_unit_test(test_release),
		cmocka_unit_test(test_off_and_many_ports),
		cmocka_unit_test(test_release_many),
		cmocka_unit_test(test_idle_cost),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
