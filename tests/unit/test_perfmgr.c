/* perfmgr/pm_counters.c, perfmgr/noisy.c and sm/health/link_hold.c: counter
 * arithmetic and MAD layouts, the noisy-link hysteresis, held links. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <infiniband/mad.h>

#include "perfmgr/pm_counters.h"
#include "perfmgr/noisy.h"
#include "sm/health/link_hold.h"
#include "mad/gmp.h"
#include "tests/unit/support.h"

static void test_delta(void **state)
{
	int reset = 0, sat = 0;

	(void)state;
	assert_int_equal(pm_delta(PM_SYMBOL_ERR, 10, 25, 0, &reset, &sat), 15);
	assert_int_equal(reset, 0);
	/* Someone else reset it: the new value is what counted since. */
	assert_int_equal(pm_delta(PM_SYMBOL_ERR, 100, 7, 0, &reset, &sat), 7);
	assert_int_equal(reset, 1);
	/* 4-bit counter at 15: saturated. */
	reset = 0;
	assert_int_equal(pm_delta(PM_LOCAL_LINK_INTEGRITY_ERR, 3, 15, 0, &reset, &sat), 12);
	assert_int_equal(sat, 1);
	/* A 64-bit traffic counter never saturates at 32 bits. */
	sat = 0;
	assert_true(pm_delta(PM_XMIT_DATA, 0, 0xffffffffull, 1, &reset, &sat) == 0xffffffffull);
	assert_int_equal(sat, 0);
}

static void test_clear_mask(void **state)
{
	struct pm_values v = { { 0 } };

	(void)state;
	v.v[PM_SYMBOL_ERR] = 32767;
	v.v[PM_LOCAL_LINK_INTEGRITY_ERR] = 8;
	v.v[PM_LINK_DOWNED] = 127;
	v.v[PM_XMIT_DATA] = 0x80000000u;
	v.v[PM_RCV_DATA] = 0x80000000u;
	v.wide_mask = 1u << PM_RCV_DATA;
	assert_int_equal(pm_clear_mask(&v),
			 (1u << PM_LOCAL_LINK_INTEGRITY_ERR) | (1u << PM_XMIT_DATA));
}

static void test_mad_layout(void **state)
{
	uint8_t mad[GMP_SIZE], resp[GMP_SIZE];
	struct pm_values v;

	(void)state;
	pm_build_get(mad, PM_ATTR_PORT_COUNTERS, 7);
	assert_int_equal(mad_get_field(mad, 0, IB_MAD_MGMTCLASS_F), GMP_CLASS_PERF);
	assert_int_equal(mad_get_field(mad, 0, IB_MAD_METHOD_F), IB_MAD_METHOD_GET);
	assert_int_equal(mad_get_field(mad, 0, IB_MAD_ATTRID_F), 0x12);
	assert_int_equal(pm_port_select(mad), 7);
	/* Clear SymbolErrorCounter (bit 0), VL15Dropped (11), XmitWait (2: bit 0). */
	pm_build_clear(mad, 3, (1u << PM_SYMBOL_ERR) | (1u << PM_VL15_DROPPED) |
		       (1u << PM_XMIT_WAIT));
	assert_int_equal(mad_get_field(mad, 0, IB_MAD_METHOD_F), IB_MAD_METHOD_SET);
	assert_int_equal(mad_get_field(mad, IB_PC_DATA_OFFS, IB_PC_COUNTER_SELECT_F),
			 (1u << 0) | (1u << 11));
	assert_int_equal(mad_get_field(mad, IB_PC_DATA_OFFS, IB_PC_COUNTER_SELECT2_F), 1);
	/* Decode what a PMA would answer. */
	memset(resp, 0, sizeof(resp));
	mad_set_field(resp, IB_PC_DATA_OFFS, IB_PC_ERR_SYM_F, 1234);
	mad_set_field(resp, IB_PC_DATA_OFFS, IB_PC_ERR_LOCALINTEG_F, 9);
	mad_set_field(resp, IB_PC_DATA_OFFS, IB_PC_XMT_BYTES_F, 0xfffffff0u);
	pm_decode_counters(resp, &v);
	assert_int_equal(v.v[PM_SYMBOL_ERR], 1234);
	assert_int_equal(v.v[PM_LOCAL_LINK_INTEGRITY_ERR], 9);
	assert_true(v.v[PM_XMIT_DATA] == 0xfffffff0u);
	memset(resp, 0, sizeof(resp));
	mad_set_field64(resp, IB_PC_DATA_OFFS, IB_PC_EXT_XMT_BYTES_F, 0x123456789aull);
	pm_decode_counters_ext(resp, &v);
	assert_true(v.v[PM_XMIT_DATA] == 0x123456789aull);
	assert_true(v.wide_mask & (1u << PM_XMIT_DATA));
	assert_int_equal(v.v[PM_SYMBOL_ERR], 1234);
	assert_int_equal(pm_counter_by_name("symbolerrorcounter"), PM_SYMBOL_ERR);
	assert_int_equal(pm_counter_by_name("nope"), -1);
}

struct acts {
	int avoid, restore;
};

static int record(void *ctx, const struct pm_port *p, enum noisy_action a,
		  int restore, const char *reason)
{
	struct acts *x = ctx;

	(void)p;
	(void)reason;
	assert_int_equal(a, NOISY_AVOID);
	if (restore)
		x->restore++;
	else
		x->avoid++;
	return 0;
}

static void sample(struct noisy *n, struct pm_port *p, double at, double sym)
{
	p->rate[PM_SYMBOL_ERR] = sym;
	p->delta[PM_SYMBOL_ERR] = (uint64_t)sym;
	noisy_sample(n, p, at);
}

static void test_noisy_hysteresis(void **state)
{
	struct noisy_opts o = { .action = NOISY_AVOID, .quiet_s = 10,
				.restore_fraction = 0.5, .max_avoided = 1 };
	struct pm_port p = { .node_guid = 1, .port = 2, .is_switch = 1,
			     .peer_is_switch = 1 };
	struct pm_port host = { .node_guid = 3, .port = 1, .is_switch = 1,
				.peer_is_switch = 0 };
	struct pm_port other = p;
	struct acts x = { 0 };
	struct noisy n;
	char path[UT_PATH_MAX];
	char line[4096];
	FILE *f;
	int lines = 0;

	(void)state;
	ut_temp_file(path, sizeof(path), "noisy", NULL);
	o.threshold[PM_SYMBOL_ERR] = 4;
	assert_int_equal(noisy_init(&n, &o, path, record, &x), 0);
	sample(&n, &p, 0, 3);           /* below */
	assert_int_equal(x.avoid, 0);
	sample(&n, &p, 1, 4);           /* at the threshold: avoid */
	assert_int_equal(x.avoid, 1);
	assert_int_equal(p.flagged, NOISY_AVOID);
	sample(&n, &p, 2, 3);           /* below, not below half: not quiet */
	sample(&n, &p, 20, 3);
	assert_int_equal(x.restore, 0);
	sample(&n, &p, 21, 1);          /* quiet from 21 */
	sample(&n, &p, 25, 0);
	sample(&n, &p, 30, 3);          /* noisy again: quiet starts over */
	sample(&n, &p, 31, 0);
	sample(&n, &p, 40, 0);
	assert_int_equal(x.restore, 0);
	sample(&n, &p, 41, 0);          /* 10 s quiet */
	assert_int_equal(x.restore, 1);
	assert_int_equal(p.flagged, NOISY_NONE);
	/* A host link is only reported; the cap turns avoid into report. */
	sample(&n, &host, 50, 100);
	assert_int_equal(host.flagged, NOISY_REPORT);
	other.port = 3;
	sample(&n, &p, 51, 100);
	sample(&n, &other, 51, 100);
	assert_int_equal(x.avoid, 2);
	assert_int_equal(other.flagged, NOISY_REPORT);
	noisy_free(&n);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		assert_true(line[0] == '{' && strstr(line, "}}\n"));
		assert_non_null(strstr(line, "\"SymbolErrorCounter\""));
		lines++;
	}
	fclose(f);
	unlink(path);
	assert_int_equal(lines, 5);     /* avoid, restore, report, avoid, report */
}

/* Two switches joined by two cables, a CA on each. */
static void two_switches(struct fabric *f)
{
	uint32_t a, b, h1, h2;

	fab_init(f);
	a = fab_add_node(f, FAB_SWITCH, 4, 0xa, "A");
	b = fab_add_node(f, FAB_SWITCH, 4, 0xb, "B");
	h1 = fab_add_node(f, FAB_CA, 1, 0x1, "h1");
	h2 = fab_add_node(f, FAB_CA, 1, 0x2, "h2");
	fab_link(f, fab_port_idx(f, a, 1), fab_port_idx(f, b, 1));
	fab_link(f, fab_port_idx(f, a, 2), fab_port_idx(f, b, 2));
	fab_link(f, fab_port_idx(f, a, 3), fab_port_idx(f, h1, 1));
	fab_link(f, fab_port_idx(f, b, 3), fab_port_idx(f, h2, 1));
}

static void test_link_hold(void **state)
{
	struct link_hold h;
	struct fabric f;

	(void)state;
	link_hold_init(&h);
	assert_int_equal(link_hold_add(&h, 0xa, 1, "noisy", 1.0), 1);
	assert_int_equal(link_hold_add(&h, 0xa, 1, "again", 2.0), 0);
	assert_string_equal(link_hold_contains(&h, 0xa, 1)->reason, "noisy");
	assert_null(link_hold_contains(&h, 0xa, 2));
	/* Named by its far end too (B port 2 = A port 2); together they
	 * would split A from B, so the second is kept. */
	assert_int_equal(link_hold_add(&h, 0xb, 2, "noisy too", 3.0), 1);
	assert_int_equal(link_hold_add(&h, 0xa, 3, "host link", 3.0), 1);
	two_switches(&f);
	assert_int_equal(link_hold_apply(&h, &f), 1);
	assert_int_equal(f.ports[fab_port_idx(&f, 0, 1)].peer, FAB_NONE);
	assert_true(f.ports[fab_port_idx(&f, 0, 2)].peer != FAB_NONE);
	assert_true(f.ports[fab_port_idx(&f, 0, 3)].peer != FAB_NONE);
	fab_free(&f);
	assert_int_equal(link_hold_remove(&h, 0xa, 1), 1);
	assert_int_equal(link_hold_remove(&h, 0xa, 1), 0);
	two_switches(&f);
	assert_int_equal(link_hold_apply(&h, &f), 1);   /* now B2 goes */
	assert_int_equal(f.ports[fab_port_idx(&f, 1, 2)].peer, FAB_NONE);
	fab_free(&f);
	link_hold_free(&h);
}

/* Issue 26: the split check takes every held and disabled link out
 * first. A and B joined by two links, a host on each. */
static void test_link_hold_would_split(void **state)
{
	struct link_hold held, down;
	const struct link_hold *sets[] = { &down, &held };
	struct fabric f;

	(void)state;
	link_hold_init(&held);
	link_hold_init(&down);
	two_switches(&f);
	/* alone, either A-B link may go; a host's only link may not */
	assert_int_equal(link_hold_would_split(&f, sets, 2, 0xa, 1), 0);
	assert_int_equal(link_hold_would_split(&f, sets, 2, 0xb, 2), 0);
	assert_int_equal(link_hold_would_split(&f, sets, 2, 0xa, 3), 1);
	/* one down: the other is the last (whichever end names it) */
	assert_int_equal(link_hold_add(&down, 0xa, 1, "operator", 1.0), 1);
	assert_int_equal(link_hold_would_split(&f, sets, 2, 0xa, 2), 1);
	assert_int_equal(link_hold_would_split(&f, sets, 2, 0xb, 2), 1);
	/* held (avoided) counts as out too */
	link_hold_remove(&down, 0xa, 1);
	assert_int_equal(link_hold_add(&held, 0xb, 1, "noisy", 1.0), 1);
	assert_int_equal(link_hold_would_split(&f, sets, 2, 0xa, 2), 1);
	/* the link itself held already (avoided, now disabled): judged as
	 * the only one out */
	assert_int_equal(link_hold_would_split(&f, sets, 2, 0xa, 1), 0);
	/* not linked, or no such node: nothing to split */
	assert_int_equal(link_hold_would_split(&f, sets, 2, 0xa, 4), 0);
	assert_int_equal(link_hold_would_split(&f, sets, 2, 0xdead, 1), 0);
	assert_int_equal(link_hold_would_split(NULL, sets, 2, 0xa, 1), 0);
	fab_free(&f);
	link_hold_free(&held);
	link_hold_free(&down);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_delta),
		cmocka_unit_test(test_clear_mask),
		cmocka_unit_test(test_mad_layout),
		cmocka_unit_test(test_noisy_hysteresis),
		cmocka_unit_test(test_link_hold),
		cmocka_unit_test(test_link_hold_would_split),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
