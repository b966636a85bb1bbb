/* SM election rules (standby/sm_election.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "mad/smp.h"
#include "standby/sm_election.h"

static void test_better(void **state)
{
	(void)state;
	assert_true(sm_better(5, 0x20, 4, 0x10));       /* priority first */
	assert_false(sm_better(4, 0x10, 5, 0x20));
	assert_true(sm_better(3, 0x10, 3, 0x20));       /* then lower GUID */
	assert_false(sm_better(3, 0x20, 3, 0x10));
	assert_false(sm_better(3, 0x10, 3, 0x10));
}

static void test_elect(void **state)
{
	struct sm_peer p[3] = {
		{ .guid = 0x30, .priority = 0, .state = SMP_SM_STANDBY },
		{ .guid = 0x20, .priority = 1, .state = SMP_SM_MASTER },
		{ .guid = 0x05, .priority = 9, .state = SMP_SM_NOTACTIVE },
	};

	(void)state;
	/* Discovering: a master is followed even when we are better. */
	assert_int_equal(sm_elect(p, 3, 15, 0x01, 0), 1);
	/* Master: step down only to a better master. */
	assert_int_equal(sm_elect(p, 3, 15, 0x01, 1), -1);
	assert_int_equal(sm_elect(p, 3, 1, 0x21, 1), 1);    /* tie, lower GUID wins */
	assert_int_equal(sm_elect(p, 3, 1, 0x19, 1), -1);
	/* No master: the best of the rest; NOTACTIVE does not count. */
	p[1].state = SMP_SM_DISCOVERING;
	assert_int_equal(sm_elect(p, 3, 0, 0x40, 0), 1);
	assert_int_equal(sm_elect(p, 3, 2, 0x40, 0), -1);
	p[1].state = SMP_SM_NOTACTIVE;
	assert_int_equal(sm_elect(p, 3, 0, 0x40, 0), 0);    /* standby 0x30 beats 0x40 */
	assert_int_equal(sm_elect(p, 3, 0, 0x10, 0), -1);
	assert_int_equal(sm_elect(p, 0, 0, 0x10, 0), -1);   /* alone */
}

static void test_handover(void **state)
{
	struct sm_peer p[3] = {
		{ .guid = 0x30, .priority = 9, .state = SMP_SM_STANDBY },
		{ .guid = 0x20, .priority = 12, .state = SMP_SM_DISCOVERING },
		{ .guid = 0x10, .priority = 4, .state = SMP_SM_STANDBY },
	};

	(void)state;
	assert_int_equal(sm_handover_to(p, 3, 5, 0x40), 0);   /* 9 > 5 */
	assert_int_equal(sm_handover_to(p, 3, 9, 0x40), 0);   /* tie, lower GUID */
	assert_int_equal(sm_handover_to(p, 3, 9, 0x25), -1);  /* we win the tie */
	assert_int_equal(sm_handover_to(p, 3, 15, 0x01), -1);
	p[0].state = SMP_SM_NOTACTIVE;
	assert_int_equal(sm_handover_to(p, 3, 3, 0x40), 2);   /* only standbys */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_better),
		cmocka_unit_test(test_elect),
		cmocka_unit_test(test_handover),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
