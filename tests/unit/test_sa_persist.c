/* The SA's client state file (sa/sa_persist.h): a round trip keeps MGIDs,
 * MLIDs, members, services (lease end) and subscriptions; a predefined
 * group made before the load keeps its parameters and takes its old MLID;
 * a bad line leaves everything as it was; leases that ended while stopped
 * are dropped; owners (a service's registering port, a group's creator)
 * come back, and files without them read as no owner. And the SIGHUP
 * reload's key diff (sm/config/config.h). */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "sa/sa_persist.h"
#include "sm/config/config.h"
#include "tests/unit/support.h"

struct state {
	struct mcast_db mc;
	struct sa_service_db sr;
	struct sa_inform_db ii;
	struct sa_persist_view v;
};

static void state_init(struct state *s)
{
	memset(s, 0, sizeof(*s));
	mcast_db_init(&s->mc);
	s->v.mcast = &s->mc;
	s->v.services = &s->sr;
	s->v.informs = &s->ii;
}

static void state_free(struct state *s)
{
	mcast_db_free(&s->mc);
	sa_service_db_free(&s->sr);
	sa_inform_db_free(&s->ii);
}

static void test_round_trip(void **unused)
{
	struct state a, b;
	struct sa_persist_stats st;
	uint8_t bc[16], g2[16] = { 0xff, 0x12, 0x60, 0x1b, 0xff, 0xff };
	struct mcast_group *g;
	char path[UT_PATH_MAX];

	(void)unused;
	ut_tmp_path(path, sizeof(path), "sa-persist");
	state_init(&a);
	mcast_ipoib_broadcast_mgid(bc, 0xffff);
	g = mcast_create(&a.mc, bc, 0xffff, 0x0B1B, 4, 3, true);
	assert_int_equal(mcast_join(&a.mc, g, 0x11, MCAST_FULL), 0);
	g2[15] = 7;
	g = mcast_create(&a.mc, g2, 0xffff, 0x1234, 5, 6, false);
	g->mlid = 0xC010;       /* as if groups in between had gone */
	g->sl = 3;
	g->creator = 0x22;
	assert_int_equal(mcast_join(&a.mc, g, 0x22, MCAST_FULL | MCAST_NON), 0);
	assert_int_equal(mcast_join(&a.mc, mcast_find_mgid(&a.mc, g2), 0x33, MCAST_SENDONLY), 0);
	a.sr.s = calloc(2, sizeof(*a.sr.s));
	a.sr.n = a.sr.cap = 2;
	memset(a.sr.s[0].rec, 0xab, SA_SERVICE_REC_LEN);
	a.sr.s[0].expires = 1000.0 + 600;       /* 600 s left at "now" 1000 */
	a.sr.s[0].owner = 0x22;
	memset(a.sr.s[1].rec, 0xcd, SA_SERVICE_REC_LEN);
	a.sr.s[1].expires = 0;                  /* never */
	a.ii.s = calloc(1, sizeof(*a.ii.s));
	a.ii.n = a.ii.cap = 1;
	memset(a.ii.s[0].iir, 0x5a, SA_IIR_LEN);
	a.ii.s[0].port_guid = 0x44;
	a.ii.s[0].lid = 9;
	a.ii.s[0].qpn = 1;
	a.ii.s[0].trusted = 1;
	assert_int_equal(sa_persist_save(path, &a.v, 1000.0), 0);

	/* A fresh SM: its broadcast group exists (configured) first. */
	state_init(&b);
	g = mcast_create(&b.mc, bc, 0xffff, 0x0B1B, 4, 3, true);
	assert_int_equal(sa_persist_load(path, &b.v, 50.0, &st), 0);
	assert_int_equal(st.groups, 2);
	assert_int_equal(st.members, 3);
	assert_int_equal(st.services, 2);
	assert_int_equal(st.informs, 1);
	assert_int_equal(st.mlids_moved, 0);
	assert_int_equal(b.mc.num_groups, 2);
	g = mcast_find_mgid(&b.mc, g2);
	assert_non_null(g);
	assert_int_equal(g->mlid, 0xC010);
	assert_int_equal(g->qkey, 0x1234);
	assert_int_equal(g->sl, 3);
	assert_false(g->predefined);
	assert_int_equal(g->num_members, 2);
	assert_int_equal(mcast_member_find(g, 0x22)->join_state, MCAST_FULL | MCAST_NON);
	assert_true(g->creator == 0x22);
	assert_true(mcast_find_mgid(&b.mc, bc)->creator == 0);
	assert_int_equal(mcast_find_mgid(&b.mc, bc)->mlid, MCAST_MLID_BASE);
	assert_memory_equal(b.sr.s[0].rec, a.sr.s[0].rec, SA_SERVICE_REC_LEN);
	/* 600 s left, on the new clock (within the second the file rounds to) */
	assert_true(b.sr.s[0].expires > 50.0 + 598 && b.sr.s[0].expires < 50.0 + 602);
	assert_true(b.sr.s[1].expires == 0);
	assert_true(b.sr.s[0].owner == 0x22);
	assert_true(b.sr.s[1].owner == 0);
	assert_memory_equal(b.ii.s[0].iir, a.ii.s[0].iir, SA_IIR_LEN);
	assert_true(b.ii.s[0].port_guid == 0x44);
	assert_int_equal(b.ii.s[0].trusted, 1);
	state_free(&b);
	state_free(&a);
	unlink(path);
}

static void test_bad_files(void **unused)
{
	struct state s;
	struct sa_persist_stats st;
	char path[UT_PATH_MAX];
	static const char *const bad[] = {
		"not a state file\n",
		"ibsm-sa-state 1\ngroup ff12 0xc000\n",
		"ibsm-sa-state 1\nmember 0x11 1\n",
		"ibsm-sa-state 1\ngroup ff12401bffff000000000000ffffffff 0x0001 0xffff 0x0 4 3 0 0 0 0x0 0\n",
		"ibsm-sa-state 1\nservice abcd 0\n",
		"ibsm-sa-state 1\nwhat 1\n",
		"",
	};

	(void)unused;
	ut_tmp_path(path, sizeof(path), "sa-persist");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		state_init(&s);
		ut_write_file(path, bad[i], strlen(bad[i]));
		assert_int_equal(sa_persist_load(path, &s.v, 0, &st), -EINVAL);
		assert_int_equal(s.mc.num_groups, 0);
		state_free(&s);
	}
	unlink(path);
	state_init(&s);
	assert_int_equal(sa_persist_load(path, &s.v, 0, &st), -ENOENT);
	/* a lease that ended while the SM was stopped is not restored */
	{
		char text[600];
		int n = snprintf(text, sizeof(text), "ibsm-sa-state 1\nservice ");

		for (int i = 0; i < SA_SERVICE_REC_LEN; i++)
			n += snprintf(text + n, sizeof(text) - (size_t)n, "00");
		snprintf(text + n, sizeof(text) - (size_t)n, " 5\n");
		ut_write_file(path, text, strlen(text));
	}
	assert_int_equal(sa_persist_load(path, &s.v, 0, &st), 0);
	assert_int_equal(st.services, 0);
	assert_int_equal(st.services_expired, 1);
	state_free(&s);
	/* a file from before owners: no CREATOR, no OWNER, read as 0 */
	state_init(&s);
	{
		char text[700];
		int n = snprintf(text, sizeof(text), "ibsm-sa-state 1\n"
				 "group ff12601bffff00000000000000000001 0xc005 0xffff 0x1 4 3 0 0 0 0x0 0\n"
				 "member 0x33 1\nservice ");

		for (int i = 0; i < SA_SERVICE_REC_LEN; i++)
			n += snprintf(text + n, sizeof(text) - (size_t)n, "00");
		snprintf(text + n, sizeof(text) - (size_t)n, " 0\n");
		ut_write_file(path, text, strlen(text));
	}
	assert_int_equal(sa_persist_load(path, &s.v, 0, &st), 0);
	assert_int_equal(st.groups, 1);
	assert_int_equal(st.services, 1);
	assert_true(s.mc.groups[0].creator == 0);
	assert_true(s.sr.s[0].owner == 0);
	state_free(&s);
	unlink(path);
}

struct seen {
	char keys[8][40];
	int live[8];
	int n;
};

static void on_changed(void *ctx, const char *key, int live)
{
	struct seen *s = ctx;

	if (s->n < 8) {
		snprintf(s->keys[s->n], sizeof(s->keys[0]), "%s", key);
		s->live[s->n++] = live;
	}
}

static void test_reload_diff(void **unused)
{
	struct ibsm_config cur, next;
	struct seen s = { .n = 0 };

	(void)unused;
	config_defaults(&cur);
	config_defaults(&next);
	assert_int_equal(config_set(&next, "head_of_queue_lifetime", "0x11", "t"), 0);
	assert_int_equal(config_set(&next, "mad_window", "16", "t"), 0);
	assert_int_equal(config_set(&next, "log_file", "/x", "t"), 0);
	assert_int_equal(config_reload(&cur, &next, on_changed, &s), 3);
	assert_int_equal(s.n, 3);
	for (int i = 0; i < s.n; i++)
		assert_int_equal(s.live[i], strcmp(s.keys[i], "mad_window") != 0);
	assert_int_equal(cur.hoq_life, 0x11);   /* live: applied */
	assert_int_equal(cur.mad_window, 32);   /* restart: kept */
	assert_string_equal(cur.log_file, "/x");
	s.n = 0;
	assert_int_equal(config_reload(&cur, &cur, on_changed, &s), 0);
	assert_true(config_key_live("sweep_interval"));
	assert_false(config_key_live("cache_dir"));
	assert_true(config_key_live("sa_max_services_per_port"));
	assert_true(config_key_live("mcast_max_groups_per_port"));
	assert_true(config_key_live("mcast_max_joins_per_port"));
	config_free(&cur);
	config_free(&next);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_reload_diff),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
