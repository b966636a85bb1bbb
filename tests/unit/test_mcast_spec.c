/* Predefined multicast group entries (multicast/mcast_spec.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "multicast/mcast_spec.h"

static void test_parse(void **state)
{
	struct mcast_spec s;
	char err[256];

	(void)state;
	assert_int_equal(mcast_spec_parse("ff12:601b:ffff::1", &s, err, sizeof(err)), 0);
	assert_int_equal(s.mgid[0], 0xff);
	assert_int_equal(s.mgid[15], 1);
	assert_int_equal(s.pkey, 0xFFFF);
	assert_int_equal(s.qkey, 0x0B1B);
	assert_int_equal(s.mtu, 4);
	assert_int_equal(s.rate, 3);
	assert_int_equal(mcast_spec_parse(" ff15::2 , pkey=0x0001, QKEY=0x1234 ,mtu=5, rate=16",
					  &s, err, sizeof(err)), 0);
	assert_int_equal(s.pkey, 0x8001);       /* full member bit */
	assert_int_equal(s.qkey, 0x1234);
	assert_int_equal(s.mtu, 5);
	assert_int_equal(s.rate, 16);
}

static void test_errors(void **state)
{
	static const struct { const char *in, *why; } bad[] = {
		{ "", "empty entry" },
		{ "fe80::1", "not a multicast GID" },
		{ "nonsense", "is not a GID" },
		{ "ff12::1, mtu=0", "mtu '0'" },
		{ "ff12::1, mtu=6", "mtu '6'" },
		{ "ff12::1, rate=1", "rate '1'" },
		{ "ff12::1, pkey=0x8000", "pkey '0x8000'" },
		{ "ff12::1, qkey=0x100000000", "qkey" },
		{ "ff12::1, sl=3", "unknown key 'sl'" },
		{ "ff12::1, mtu", "want key=value" },
	};
	struct mcast_spec s;
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(mcast_spec_parse(bad[i].in, &s, err, sizeof(err)), -22);
		if (!strstr(err, bad[i].why))
			fail_msg("'%s': got '%s', want '%s'", bad[i].in, err, bad[i].why);
	}
}

static int count_cb(void *ctx, const struct mcast_spec *s)
{
	(void)s;
	++*(int *)ctx;
	return 0;
}

static void test_list(void **state)
{
	char err[256];
	int n = 0;

	(void)state;
	assert_int_equal(mcast_spec_list("", count_cb, &n, err, sizeof(err)), 0);
	assert_int_equal(mcast_spec_list("ff12::1;ff12::2, qkey=5", count_cb, &n, err, sizeof(err)), 2);
	assert_int_equal(n, 2);
	assert_int_equal(mcast_spec_list("ff12::1;ff12::2, mtu=9", NULL, NULL, err, sizeof(err)), -22);
	assert_non_null(strstr(err, "entry 2: mtu '9'"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_list),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
