/* The daemon's choice of tables (routing/route_select.h): the grade of
 * verified tables, the order among the passed-over ones, and the fallback
 * through an engine list with engines that refuse, loop, leave holes, have
 * a credit loop, or fail only from previous tables. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "core/fabric.h"
#include "core/lid_assign.h"
#include "core/log.h"
#include "routing/engine.h"
#include "routing/engine_internal.h"
#include "routing/lft.h"
#include "routing/path_sl.h"
#include "routing/route_select.h"
#include "routing/verify.h"
#include "tests/unit/support.h"

/* Switches in a ring, each with `hcas` CAs: minhop's shortest paths go
 * both ways round it, a credit loop on one VL; updn's do not. */
static void ring(struct fabric *f, unsigned n, unsigned hcas)
{
	struct lid_assign_opts o = { 0 };

	ut_ring(f, n, hcas, 1);
	assert_true(lid_assign(f, &o, NULL) >= 0);
}

/* updn's tables, then spoiled by `spoil`. */
static int spoiled_updn(struct route_ctx *ctx, struct lft_set *t,
			void (*spoil)(const struct fabric *, struct lft_set *))
{
	struct lft_set u = { 0 };
	struct route_options o = *ctx->opt;
	char why[256];

	o.memo_out = NULL;
	o.spare = NULL;
	if (route_run(&route_updn, ctx->fab, &o, &u, why) < 0)
		return -EIO;
	memcpy(t->port, u.port, (size_t)t->num_switches * t->stride);
	lft_free(&u);
	spoil(ctx->fab, t);
	return 0;
}

/* Switches 0 and 1 of the ring (linked by 0's port 1 and 1's port 2) send
 * every LID that is not on them to each other. */
static void make_loop(const struct fabric *f, struct lft_set *t)
{
	for (uint32_t lid = 1; lid <= t->max_lid; lid++) {
		if (lft_row(t, 0)[lid] == 0 || lft_row(t, 1)[lid] == 0 ||
		    lft_row(t, 0)[lid] >= 3 || lft_row(t, 1)[lid] >= 3)
			continue;
		lft_row(t, 0)[lid] = 1;
		lft_row(t, 1)[lid] = 2;
	}
	(void)f;
}

/* Switch 0 forgets every LID not on it. */
static void make_holes(const struct fabric *f, struct lft_set *t)
{
	for (uint32_t lid = 1; lid <= t->max_lid; lid++)
		if (lft_row(t, 0)[lid] == 1 || lft_row(t, 0)[lid] == 2)
			lft_row(t, 0)[lid] = LFT_NO_PATH;
	(void)f;
}

static int loop_route(struct route_ctx *ctx, struct lft_set *t)
{
	return spoiled_updn(ctx, t, make_loop);
}

static int holes_route(struct route_ctx *ctx, struct lft_set *t)
{
	return spoiled_updn(ctx, t, make_holes);
}

/* A repair that loops, and holes when routed in full. */
static int repair_route(struct route_ctx *ctx, struct lft_set *t)
{
	return spoiled_updn(ctx, t, ctx->opt->prev ? make_loop : make_holes);
}

static void nothing(const struct fabric *f, struct lft_set *t)
{
	(void)f;
	(void)t;
}

/* A repair that loops; routed in full (no previous tables) it is fine. */
static int repair_route_full_ok(struct route_ctx *ctx, struct lft_set *t)
{
	return spoiled_updn(ctx, t, ctx->opt->prev ? make_loop : nothing);
}

static int refuse_route(struct route_ctx *ctx, struct lft_set *t)
{
	(void)t;
	snprintf(ctx->why, sizeof(ctx->why), "not my kind of fabric");
	return -ENOTSUP;
}

static const struct route_engine e_loop = { .name = "t-loop", .route = loop_route,
					    .flags = ROUTE_ENGINE_DEADLOCK_FREE };
static const struct route_engine e_holes = { .name = "t-holes", .route = holes_route };
static const struct route_engine e_refuse = { .name = "t-refuse", .route = refuse_route };
static const struct route_engine e_repair = { .name = "t-repair", .route = repair_route_full_ok,
					      .flags = ROUTE_ENGINE_USES_PREV };
static const struct route_engine e_repair_bad = { .name = "t-repair-bad", .route = repair_route,
						  .flags = ROUTE_ENGINE_USES_PREV };
/* minhop under another name that promises deadlock-free tables (a bug). */
static struct route_engine e_liar;

static int setup(void **state)
{
	(void)state;
	e_liar = route_minhop;
	e_liar.name = "t-liar";
	e_liar.flags = ROUTE_ENGINE_DEADLOCK_FREE;
	assert_int_equal(route_engine_register(&e_loop, NULL), 0);
	assert_int_equal(route_engine_register(&e_holes, NULL), 0);
	assert_int_equal(route_engine_register(&e_refuse, NULL), 0);
	assert_int_equal(route_engine_register(&e_repair, NULL), 0);
	assert_int_equal(route_engine_register(&e_repair_bad, NULL), 0);
	assert_int_equal(route_engine_register(&e_liar, NULL), 0);
	log_set_level(LOG_ERR);
	return 0;
}

static void flags_declared_not_named(void **state)
{
	(void)state;
	assert_int_equal(route_engine_find("updn")->flags, ROUTE_ENGINE_DEADLOCK_FREE);
	assert_int_equal(route_engine_find("ftree")->flags,
			 ROUTE_ENGINE_DEADLOCK_FREE | ROUTE_ENGINE_USES_PREV |
			 ROUTE_ENGINE_REPAIRS);
	assert_int_equal(route_engine_find("dfsp")->flags, ROUTE_ENGINE_LAYERED);
	assert_int_equal(route_engine_find("minhop")->flags, 0);
	assert_int_equal(route_engine_find("t-liar")->flags, ROUTE_ENGINE_DEADLOCK_FREE);
	/* the words for logs and listings */
	char buf[96];
	assert_string_equal(route_engine_flag_names(route_engine_find("ftree")->flags,
						    buf, sizeof(buf)),
			    "deadlock-free, uses-prev, repairs");
	assert_string_equal(route_engine_flag_names(0, buf, sizeof(buf)), "none");
	assert_string_equal(route_engine_flag_names(ROUTE_ENGINE_LAYERED, buf, 8),
			    "layered");
}

static void grades(void **state)
{
	(void)state;
	struct verify_result v = { 0 };

	assert_int_equal(route_grade_of(&v, 0, 0), ROUTE_GRADE_VERIFIED);
	v.credit_loop = 1;
	assert_int_equal(route_grade_of(&v, 0, 0), ROUTE_GRADE_CREDIT_LOOP);
	/* Layered: the one-VL verdict does not count, the layers' does. */
	assert_int_equal(route_grade_of(&v, 1, 0), ROUTE_GRADE_VERIFIED);
	assert_int_equal(route_grade_of(&v, 1, 1), ROUTE_GRADE_CREDIT_LOOP);
	v.pairs_unreachable = 3;
	assert_int_equal(route_grade_of(&v, 0, 0), ROUTE_GRADE_PARTIAL);
	v.forwarding_loops = 1;
	assert_int_equal(route_grade_of(&v, 0, 0), ROUTE_GRADE_UNUSABLE);
	memset(&v, 0, sizeof(v));
	v.bad_port_entries = 1;
	assert_int_equal(route_grade_of(&v, 0, 0), ROUTE_GRADE_UNUSABLE);
	assert_string_equal(route_pass_name(ROUTE_PASS_CREDIT_LOOP), "credit_loop");
	assert_string_equal(route_grade_name(ROUTE_GRADE_PARTIAL), "partial");
}

static void order_among_passed_over(void **state)
{
	(void)state;
	struct verify_result a = { 0 }, b = { 0 };

	/* Complete with a credit loop beats partial; ties keep the earlier. */
	assert_true(route_cand_better(ROUTE_GRADE_CREDIT_LOOP, &a, ROUTE_GRADE_PARTIAL, &b));
	assert_false(route_cand_better(ROUTE_GRADE_PARTIAL, &a, ROUTE_GRADE_CREDIT_LOOP, &b));
	assert_false(route_cand_better(ROUTE_GRADE_CREDIT_LOOP, &a, ROUTE_GRADE_CREDIT_LOOP, &b));
	/* Partial: credit-loop-free first, then fewer unreachable pairs. */
	a.pairs_unreachable = 10;
	b.pairs_unreachable = 2;
	b.credit_loop = 1;
	assert_true(route_cand_better(ROUTE_GRADE_PARTIAL, &a, ROUTE_GRADE_PARTIAL, &b));
	b.credit_loop = 0;
	assert_true(route_cand_better(ROUTE_GRADE_PARTIAL, &b, ROUTE_GRADE_PARTIAL, &a));
	assert_false(route_cand_better(ROUTE_GRADE_PARTIAL, &a, ROUTE_GRADE_PARTIAL, &b));
}

/* route_select on f with names; returns its result, c filled. */
static int pick(const struct fabric *f, const char *names, const struct lft_set *prev,
		struct lft_set *t, struct route_choice *c, struct path_sl *sl)
{
	struct verify_opts vo = { .cdg_switch_lids = 1 };
	struct route_options o = { .prev = prev, .prev_fab = prev ? f : NULL, .sl_out = sl };

	memset(t, 0, sizeof(*t));
	return route_select(names, f, &o, &vo, t, c);
}

static void falls_back_past_bad_tables(void **state)
{
	(void)state;
	struct fabric f;
	struct lft_set t;
	struct route_choice c;
	struct path_sl sl = { 0 };

	ring(&f, 6, 2);
	/* A forwarding loop, holes, a refusal: passed over, updn taken. */
	assert_int_equal(pick(&f, "t-loop,t-holes,t-refuse,updn", NULL, &t, &c, &sl), 1);
	assert_string_equal(c.engine->name, "updn");
	assert_int_equal(c.grade, ROUTE_GRADE_VERIFIED);
	assert_string_equal(c.preferred, "t-loop");
	assert_int_equal(c.reason, ROUTE_PASS_LOOP);
	assert_int_equal(c.passed[ROUTE_PASS_LOOP], 1);
	assert_int_equal(c.passed[ROUTE_PASS_INCOMPLETE], 1);
	assert_int_equal(c.passed[ROUTE_PASS_REFUSED], 1);
	assert_non_null(sl.sl);         /* the SLs of the tables taken */
	assert_true(sl.vls_used <= 1);
	lft_free(&t);
	/* An engine that promises deadlock-free tables and has a credit
	 * loop is passed over like any other. */
	assert_int_equal(pick(&f, "t-liar,updn", NULL, &t, &c, NULL), 1);
	assert_string_equal(c.engine->name, "updn");
	assert_int_equal(c.reason, ROUTE_PASS_CREDIT_LOOP);
	lft_free(&t);
	/* The first verified engine stops the list. */
	assert_int_equal(pick(&f, "updn,t-loop", NULL, &t, &c, NULL), 1);
	assert_string_equal(c.engine->name, "updn");
	assert_int_equal(c.reason, ROUTE_PASS_NONE);
	assert_int_equal(c.passed[ROUTE_PASS_LOOP], 0);
	lft_free(&t);
	path_sl_free(&sl);
	fab_free(&f);
}

static void last_resorts(void **state)
{
	(void)state;
	struct fabric f;
	struct lft_set t;
	struct route_choice c;

	ring(&f, 6, 2);
	/* minhop alone on a ring: a credit loop, programmed as the last
	 * resort, and the reason still says so. */
	assert_int_equal(pick(&f, "minhop", NULL, &t, &c, NULL), 1);
	assert_string_equal(c.engine->name, "minhop");
	assert_int_equal(c.grade, ROUTE_GRADE_CREDIT_LOOP);
	assert_int_equal(c.reason, ROUTE_PASS_CREDIT_LOOP);
	lft_free(&t);
	/* Holes beat a loop; the credit loop beats holes. */
	assert_int_equal(pick(&f, "t-loop,t-holes", NULL, &t, &c, NULL), 1);
	assert_string_equal(c.engine->name, "t-holes");
	assert_int_equal(c.grade, ROUTE_GRADE_PARTIAL);
	assert_true(c.vr.pairs_unreachable > 0);
	lft_free(&t);
	assert_int_equal(pick(&f, "t-holes,minhop", NULL, &t, &c, NULL), 1);
	assert_string_equal(c.engine->name, "minhop");
	assert_int_equal(c.reason, ROUTE_PASS_INCOMPLETE);
	lft_free(&t);
	/* Nothing that may be programmed: 0, no tables. */
	assert_int_equal(pick(&f, "t-refuse,t-loop", NULL, &t, &c, NULL), 0);
	assert_null(c.engine);
	assert_null(t.port);
	assert_int_equal(c.passed[ROUTE_PASS_REFUSED] + c.passed[ROUTE_PASS_LOOP], 2);
	assert_int_equal(pick(&f, "nosuch", NULL, &t, &c, NULL), 0);
	fab_free(&f);
}

static void failed_repair_routes_in_full(void **state)
{
	(void)state;
	struct fabric f;
	struct lft_set t, prev;
	struct route_choice c;

	ring(&f, 6, 2);
	assert_int_equal(pick(&f, "updn", NULL, &prev, &c, NULL), 1);
	/* From the previous tables it loops; without them it is fine: the
	 * engine is kept, not passed over. */
	assert_int_equal(pick(&f, "t-repair,minhop", &prev, &t, &c, NULL), 1);
	assert_string_equal(c.engine->name, "t-repair");
	assert_int_equal(c.grade, ROUTE_GRADE_VERIFIED);
	assert_int_equal(c.repairs_redone, 1);
	assert_int_equal(c.reason, ROUTE_PASS_NONE);
	lft_free(&t);
	/* Without the flag nothing is retried (updn ignores prev). */
	assert_int_equal(pick(&f, "updn", &prev, &t, &c, NULL), 1);
	assert_int_equal(c.repairs_redone, 0);
	lft_free(&t);
	/* Bad both ways: passed over once, for what the better run had. */
	assert_int_equal(pick(&f, "t-repair-bad,updn", &prev, &t, &c, NULL), 1);
	assert_string_equal(c.engine->name, "updn");
	assert_int_equal(c.repairs_redone, 1);
	assert_int_equal(c.passed[ROUTE_PASS_INCOMPLETE] + c.passed[ROUTE_PASS_LOOP], 1);
	lft_free(&t);
	lft_free(&prev);
	fab_free(&f);
}

/* A layered engine: its SL layers are judged (not the one-VL graph) and
 * its path SLs come back with its tables. */
static void layered_tables_judged_per_layer(void **state)
{
	(void)state;
	struct fabric f;
	struct lft_set t;
	struct route_choice c;
	struct path_sl sl = { 0 };

	ring(&f, 6, 2);
	assert_int_equal(pick(&f, "dfsp", NULL, &t, &c, &sl), 1);
	assert_string_equal(c.engine->name, "dfsp");
	assert_int_equal(c.grade, ROUTE_GRADE_VERIFIED);
	assert_true(c.sl_layers > 1);
	assert_int_equal(sl.vls_used, c.sl_layers);
	lft_free(&t);
	/* The next choice, not layered, leaves no stale SLs behind. */
	assert_int_equal(pick(&f, "t-loop,updn", NULL, &t, &c, &sl), 1);
	assert_true(sl.vls_used <= 1);
	lft_free(&t);
	path_sl_free(&sl);
	fab_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(flags_declared_not_named),
		cmocka_unit_test(grades),
		cmocka_unit_test(order_among_passed_over),
		cmocka_unit_test(falls_back_past_bad_tables),
		cmocka_unit_test(last_resorts),
		cmocka_unit_test(failed_repair_routes_in_full),
		cmocka_unit_test(layered_tables_judged_per_layer),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
