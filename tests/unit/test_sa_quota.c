/* Per-port SA quotas and owners (sa/sa_quota.h, issue 26 finding 4): a
 * quota lets a port have up to its limit and refuses beyond, counting
 * every refusal and logging at most once a period; 0 is no limit.
 * ServiceRecords are counted and dropped by their owner; a group's
 * creator holds it against its quota only while it is a member. */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "multicast/mcast_db.h"
#include "sa/sa_quota.h"
#include "sa/sa_service.h"

static void test_allow(void **unused)
{
	struct sa_quota q;

	(void)unused;
	memset(&q, 0, sizeof(q));
	/* no limit */
	assert_true(sa_quota_allow(&q, SA_QUOTA_SERVICES, 100000, 0x5, 1.0));
	q.max[SA_QUOTA_SERVICES] = 3;
	assert_true(sa_quota_allow(&q, SA_QUOTA_SERVICES, 0, 0x5, 1.0));
	assert_true(sa_quota_allow(&q, SA_QUOTA_SERVICES, 2, 0x5, 1.0));
	assert_false(sa_quota_allow(&q, SA_QUOTA_SERVICES, 3, 0x5, 1.0));
	assert_int_equal(q.refused[SA_QUOTA_SERVICES], 1);
	assert_true(q.last_log[SA_QUOTA_SERVICES] == 1.0);   /* logged */
	assert_int_equal(q.unlogged[SA_QUOTA_SERVICES], 0);
	/* a flood: counted, not logged again within the period */
	for (int i = 0; i < 1000; i++)
		assert_false(sa_quota_allow(&q, SA_QUOTA_SERVICES, 3, 0x5, 2.0));
	assert_int_equal(q.refused[SA_QUOTA_SERVICES], 1001);
	assert_int_equal(q.unlogged[SA_QUOTA_SERVICES], 1000);
	assert_true(q.last_log[SA_QUOTA_SERVICES] == 1.0);
	/* after the period: one line, with the refusals held back */
	assert_false(sa_quota_allow(&q, SA_QUOTA_SERVICES, 3, 0x5, 1.0 + SA_QUOTA_LOG_S));
	assert_int_equal(q.unlogged[SA_QUOTA_SERVICES], 0);
	assert_true(q.last_log[SA_QUOTA_SERVICES] == 1.0 + SA_QUOTA_LOG_S);
	/* kinds are apart */
	assert_int_equal(q.refused[SA_QUOTA_MCAST_GROUPS], 0);
	assert_string_equal(sa_quota_name(SA_QUOTA_MCAST_JOINS), "mcast_joins");
}

static bool present_odd(void *arg, uint64_t guid)
{
	(void)arg;
	return guid & 1;
}

static bool present_odd_not3(void *arg, uint64_t guid)
{
	return guid != 0x3 && present_odd(arg, guid);
}

static void test_service_owners(void **unused)
{
	struct sa_service_db db;
	const uint64_t owner[] = { 0x3, 0x4, 0x3, 0, 0x4, 0x3 };
	uint32_t gen;

	(void)unused;
	memset(&db, 0, sizeof(db));
	db.s = calloc(6, sizeof(*db.s));
	db.n = db.cap = 6;
	for (uint32_t i = 0; i < 6; i++) {
		db.s[i].owner = owner[i];
		db.s[i].rec[0] = (uint8_t)i;
	}
	assert_int_equal(sa_service_count_owned(&db, 0x3), 3);
	assert_int_equal(sa_service_count_owned(&db, 0x4), 2);
	assert_int_equal(sa_service_count_owned(&db, 0x9), 0);
	/* 0x4 left: its two go; 0x3's stay; the one without owner stays */
	gen = db.generation;
	assert_int_equal(sa_service_drop_orphans(&db, present_odd, NULL), 2);
	assert_int_equal(db.n, 4);
	assert_true(db.generation != gen);
	assert_int_equal(sa_service_count_owned(&db, 0x4), 0);
	assert_int_equal(sa_service_count_owned(&db, 0x3), 3);
	assert_int_equal(sa_service_count_owned(&db, 0), 1);
	gen = db.generation;
	assert_int_equal(sa_service_drop_orphans(&db, present_odd, NULL), 0);
	assert_int_equal(db.generation, gen);
	sa_service_db_free(&db);
}

static void test_group_owners(void **unused)
{
	struct mcast_db db;
	uint8_t zero[16] = { 0 };
	struct mcast_group *g;
	uint16_t mlid[3];

	(void)unused;
	mcast_db_init(&db);
	/* port 0x3 creates three groups; 0x5 joins the first two */
	for (int i = 0; i < 3; i++) {
		g = mcast_create(&db, zero, 0xffff, 0x0B1B, 4, 3, false);
		assert_non_null(g);
		g->creator = 0x3;
		mlid[i] = g->mlid;
		assert_int_equal(mcast_join(&db, g, 0x3, MCAST_FULL), 0);
		if (i < 2)
			assert_int_equal(mcast_join(&db, mcast_find_mlid(&db, mlid[i]),
						    0x5, MCAST_FULL), 0);
	}
	assert_int_equal(mcast_count_created(&db, 0x3), 3);
	assert_int_equal(mcast_count_joined(&db, 0x3), 3);
	assert_int_equal(mcast_count_created(&db, 0x5), 0);
	assert_int_equal(mcast_count_joined(&db, 0x5), 2);
	/* the creator leaves group 0: the group stays (0x5 is a full
	 * member), no longer on 0x3's quota */
	assert_int_equal(mcast_leave(&db, mcast_find_mlid(&db, mlid[0]), 0x3, MCAST_FULL),
			 MCAST_FULL);
	g = mcast_find_mlid(&db, mlid[0]);
	assert_non_null(g);
	assert_true(g->creator == 0);
	assert_int_equal(mcast_count_created(&db, 0x3), 2);
	assert_int_equal(mcast_count_joined(&db, 0x3), 2);
	/* 0x3 leaves the fabric (prune keeps odd GUIDs: drop 0x3 by
	 * keeping only 0x5): group 2 had only 0x3 and goes; group 1 stays
	 * with 0x5, creator cleared */
	assert_int_equal(mcast_prune(&db, present_odd_not3, NULL), 2);
	assert_null(mcast_find_mlid(&db, mlid[2]));
	g = mcast_find_mlid(&db, mlid[1]);
	assert_non_null(g);
	assert_true(g->creator == 0);
	assert_int_equal(mcast_count_created(&db, 0x3), 0);
	assert_int_equal(mcast_count_joined(&db, 0x5), 2);
	mcast_db_free(&db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_allow),
		cmocka_unit_test(test_service_owners),
		cmocka_unit_test(test_group_owners),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
