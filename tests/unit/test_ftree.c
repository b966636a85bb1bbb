/* ftree engine: generated fat-trees routed and judged by an evaluator kept
 * independent of the engine's own bookkeeping (ftree_eval.c), and by the
 * shared verifier (routing/verify.h) where noted.
 *  - intact 2- and 3-level trees, several radices, full and 3:1: complete,
 *    up-then-down, all-to-all max link load at the lower bound, every
 *    shift at the best possible load (1, or X on an X:1 tree);
 *  - degraded trees (5% and 10% of links removed, several seeds):
 *    complete, CA -> CA up-then-down (5%), every tree within 1.1x of the
 *    lower bound at 5% (1.15x at 10%), 1.05x on average; credit-loop free
 *    on one VL with every entry in the CDG: CA -> CA, CA -> switch LID,
 *    switch -> CA and switch -> switch;
 *  - LMC 1 and 2: the LIDs of a CA are reached over disjoint links;
 *  - re-route after one link loss: complete, and few 64-entry blocks move;
 *  - tori, dragonflies and random graphs are refused with a reason.
 * The evaluator is in ftree_eval.c; the turn check, threads and spill
 * passes in test_ftree_turns.c. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fabric.h"
#include "core/lid_assign.h"
#include "core/log.h"
#include "formats/topo_read.h"
#include "routing/engine.h"
#include "routing/ftree/ftree.h"
#include "routing/lft.h"
#include "routing/verify.h"
#include "topogen/topo_gen.h"
#include "tests/unit/ftree_eval.h"
#include "tests/unit/support.h"

/* ---- intact trees ---- */

static void intact_case(unsigned levels, unsigned radix, unsigned oversub)
{
	struct fabric f;
	struct lft_set t;
	struct eval e;
	make_tree(&f, levels, radix, oversub, 0, 0, 0);
	assert_int_equal(route_ftree_on(&f, NULL, &t, NULL), 0);
	eval_init(&e, &f);
	unsigned x = oversub ? oversub : 1;
	evaluate(&f, &t, &e, x, 1);
	fprintf(stderr, "  ft%u radix %u %u:1: %u CAs, a2a %llu bound %llu, "
		"worst shift %llu\n", levels, radix, x, e.nca,
		(unsigned long long)e.a2a_max, (unsigned long long)e.bound,
		(unsigned long long)e.shift_worst);
	assert_int_equal(e.missing, 0);
	assert_int_equal(e.loops, 0);
	assert_int_equal(e.not_updown, 0);
	assert_int_equal(e.sw_not_updown, 0);
	assert_int_equal(e.credit_loop, 0);
	assert_int_equal(e.credit_loop_sw, 0);
	assert_int_equal(e.credit_loop_swsrc, 0);
	assert_int_equal(e.credit_loop_full, 0);
	assert_int_equal(e.a2a_max, e.bound);
	assert_int_equal(e.shifts_over, 0);
	assert_int_equal(e.shift_worst, x);
	check_verifier(&f, &t, 1.0);
	eval_free(&e);
	lft_free(&t);
	fab_free(&f);
}

static void test_intact_2level(void **state)
{
	(void)state;
	intact_case(2, 4, 1);
	intact_case(2, 8, 1);
	intact_case(2, 16, 1);
	intact_case(2, 36, 1);
	intact_case(2, 16, 3);
}

static void test_intact_3level(void **state)
{
	(void)state;
	intact_case(3, 4, 1);
	intact_case(3, 8, 1);
	intact_case(3, 12, 1);
	intact_case(3, 8, 3);
	intact_case(3, 16, 1);
}

/* ---- degraded trees ---- */

static double degraded_case(unsigned levels, unsigned radix, double remove,
			    uint64_t seed, double max_ratio)
{
	return degraded_tuned(levels, radix, remove, seed, max_ratio, NULL);
}

/* Issue target: 1.25x. Measured: 1.05x at worst, 1.012x on average (were
 * 1.39x and 1.073x before spilling looked at every link and let switches
 * above the leaves move; docs/ftree.md). */
static void test_degraded(void **state)
{
	(void)state;
	double sum = 0;
	unsigned n = 0;
	for (uint64_t seed = 1; seed <= 5; seed++) {
		sum += degraded_case(2, 16, 0.05, seed, 1.1);
		sum += degraded_case(3, 12, 0.05, seed, 1.1);
		sum += degraded_case(3, 16, 0.05, seed, 1.1);
		n += 3;
	}
	fprintf(stderr, "  degraded mean %.3fx over %u trees\n", sum / n, n);
	assert_true(sum / n <= 1.05);
}

/* Trees the earlier spilling (leaves only, triggered by the chain's links)
 * left far from the bound: ft3 r12 5% seed 7 at 1.37x, ft3 r8 10% seed 5
 * at 1.76x. */
static void test_degraded_hard(void **state)
{
	(void)state;
	degraded_case(3, 12, 0.05, 7, 1.1);
	degraded_case(3, 8, 0.10, 5, 1.1);
}

/* 10% of links removed: many more detours and credit loops to avoid. */
static void test_degraded_10(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 3; seed++) {
		degraded_case(2, 8, 0.10, seed, 1.15);
		degraded_case(2, 16, 0.10, seed, 1.15);
		degraded_case(3, 8, 0.10, seed, 1.15);
		degraded_case(3, 12, 0.10, seed, 1.15);
	}
}

/* ---- GUIDs not in cabling order ---- */

static uint64_t mix64(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ULL;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
	return x ^ (x >> 31);
}

static uint64_t *sort_guids;

static int cmp_by_guid(const void *a, const void *b)
{
	uint64_t x = sort_guids[*(const uint32_t *)a];
	uint64_t y = sort_guids[*(const uint32_t *)b];
	return x < y ? -1 : x > y;
}

/* f renumbered as the daemon numbers a fabric it discovered (nodes in
 * GUID order, discovery/sweep.c), with new random GUIDs first when seed
 * is not 0 (generators number GUIDs in cabling order; real fabrics'
 * GUIDs are in no such order), then LIDs assigned in that order. */
static void guid_order(struct fabric *f, uint64_t seed)
{
	uint32_t n = f->num_nodes;
	uint64_t *guid = malloc(n * sizeof(uint64_t));
	uint32_t *ord = malloc(n * sizeof(uint32_t));
	uint32_t *new_of = malloc(n * sizeof(uint32_t));
	for (uint32_t i = 0; i < n; i++) {
		guid[i] = seed ? 0x0002c90000000000ULL |
			(mix64(seed * 1000003 + i) & 0xffffffffffULL) << 2 :
			f->nodes[i].guid;
		ord[i] = i;
	}
	sort_guids = guid;
	qsort(ord, n, sizeof(uint32_t), cmp_by_guid);
	struct fabric g;
	fab_init(&g);
	for (uint32_t k = 0; k < n; k++) {
		const struct fab_node *o = &f->nodes[ord[k]];
		if (k)
			assert_true(guid[ord[k]] != guid[ord[k - 1]]);
		new_of[ord[k]] = fab_add_node(&g, (enum fab_node_type)o->type,
					      o->num_ports, guid[ord[k]], o->desc);
		assert_true(new_of[ord[k]] != FAB_NONE);
		if (o->type != FAB_SWITCH)
			for (unsigned p = 1; p <= o->num_ports; p++)
				fab_port(&g, new_of[ord[k]], p)->guid = guid[ord[k]] + p;
	}
	for (uint32_t i = 0; i < n; i++)
		for (unsigned p = 1; p <= f->nodes[i].num_ports; p++) {
			uint32_t a = fab_port_idx(f, i, p), b = f->ports[a].peer;
			if (b == FAB_NONE || b < a)
				continue;
			uint32_t bn = f->ports[b].node;
			ut_link(&g, new_of[i], p, new_of[bn], f->ports[b].num);
		}
	free(guid);
	free(ord);
	free(new_of);
	fab_free(f);
	*f = g;
	struct lid_assign_opts lo = { 0 };
	assert_true(lid_assign(f, &lo, NULL) >= 0);
}

/* Issue 24: with random GUIDs (in the daemon's GUID order) the detours
 * of switch LIDs took their first turns wherever the search met a leaf;
 * on degraded trees later switches found no acyclic detour (66 on
 * tests/data/ft3-r12-deg2-rguid-s1.net) and the tables had a credit loop
 * through CA -> switch-LID routes. Turns are now taken at the hub first
 * (routing/ftree/ftree_hub.c): every table acyclic as a whole. */
static void test_random_guids(void **state)
{
	(void)state;
	static const struct { unsigned radix; double remove; uint64_t seed; }
	trees[] = {
		{ 8, 0.05, 3 }, { 8, 0.10, 1 }, { 8, 0.10, 3 },
		{ 12, 0.00, 1 }, { 12, 0.02, 1 }, { 12, 0.02, 3 },
		{ 12, 0.05, 3 }, { 12, 0.10, 2 }, { 16, 0.02, 2 },
		{ 16, 0.05, 1 },
	};
	char name[128];
	for (size_t i = 0; i < sizeof(trees) / sizeof(trees[0]); i++) {
		struct fabric f;
		make_tree(&f, 3, trees[i].radix, 1, trees[i].remove,
			  trees[i].seed, 0);
		guid_order(&f, trees[i].seed);
		snprintf(name, sizeof(name), "ft3 radix %u %.0f%% removed seed "
			 "%llu, random GUIDs", trees[i].radix,
			 trees[i].remove * 100, (unsigned long long)trees[i].seed);
		judge_tree(&f, name, trees[i].remove <= 0.05,
			   trees[i].remove <= 0.05 ? 1.1 : 1.15, NULL);
	}
	/* Director fabrics: a chassis reaches another only through a leaf,
	 * so every switch-to-switch route between chassis turns there; with
	 * the turns at the hub and its one designated line ASIC per chassis
	 * the whole tables stay acyclic (before: 2-54 switches without an
	 * acyclic detour). */
	static const struct { unsigned d, r; double remove; } dirs[] = {
		{ 2, 12, 0 }, { 2, 12, 0.05 }, { 3, 12, 0.05 },
	};
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		struct fabric f;
		struct director_params p = { .directors = dirs[i].d,
			.radix = dirs[i].r, .remove_frac = dirs[i].remove,
			.seed = 1 };
		char err[256];
		assert_int_equal(gen_director(&f, &p, err), 0);
		guid_order(&f, 7 + i);
		snprintf(name, sizeof(name), "%u directors radix %u, %.0f%% "
			 "removed, random GUIDs", dirs[i].d, dirs[i].r,
			 dirs[i].remove * 100);
		judge_tree(&f, name, 1, 1.1, NULL);
	}
	/* The reproducers of issue 24 (ibsim net files, as the daemon would
	 * number their nodes). */
	static const char *files[] = {
		"tests/data/ft3-r12-deg2-rguid-s1.net",
		"tests/data/ft3-r12-deg5-rguid-s1.net",
	};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct fabric f;
		fab_init(&f);
		assert_int_equal(topo_read(&f, files[i], TOPO_IBSIM_NET), 0);
		guid_order(&f, 0);
		judge_tree(&f, files[i], 1, 1.1, NULL);
	}
}

/* A re-route keeps the hub of the previous tables: the hub loses an
 * up-link (another leaf becomes the hub), the link comes back, and the
 * route with the previous tables keeps that other leaf instead of going
 * back (every switch LID's detours would move). Found from the previous
 * tables alone: the same with and without their memo. */
static void test_hub_kept(void **state)
{
	(void)state;
	struct fabric a, b;
	struct ftree t;
	char why[256];
	make_tree(&a, 3, 12, 1, 0, 0, 0);
	guid_order(&a, 5);
	assert_int_equal(ft_build(&t, &a, NULL, why), 0);
	uint32_t h0 = t.hub, sw_h0 = a.switches[h0];
	uint8_t port = t.up[t.up_off[h0]].port;
	ft_free(&t);
	assert_int_equal(fab_clone(&b, &a), 0);
	fab_unlink(&b, fab_port_idx(&b, sw_h0, port));
	struct lft_set tb, ta;
	struct route_memo mb = { 0 };
	struct route_options ob = { .memo_out = &mb };
	assert_int_equal(route_ftree_on(&b, &ob, &tb, NULL), 0);
	assert_int_equal(ft_build(&t, &b, NULL, why), 0);
	uint32_t h1 = t.hub;
	ft_free(&t);
	assert_true(h1 != h0);          /* the hub moved off the lost link */
	const struct route_options with[2] = {
		{ .prev = &tb, .prev_fab = &b },
		{ .prev = &tb, .prev_fab = &b, .prev_memo = &mb },
	};
	for (int k = 0; k < 2; k++) {
		assert_int_equal(ft_build(&t, &a, &with[k], why), 0);
		assert_int_equal(t.hub, h1);
		ft_free(&t);
	}
	assert_int_equal(route_ftree_on(&a, &with[0], &ta, NULL), 0);
	struct verify_opts vo = { .check_credit_loops = 1, .cdg_switch_lids = 1 };
	struct verify_result res;
	assert_int_equal(verify_routes(&a, &ta, &vo, &res), 0);
	assert_true(res.ok);
	fprintf(stderr, "  hub leaf %u lost a link: hub %u, kept when the link "
		"came back\n", h0, h1);
	lft_free(&ta);
	lft_free(&tb);
	route_memo_free(&mb);
	fab_free(&a);
	fab_free(&b);
}

/* ---- LMC ---- */

static void lmc_case(unsigned levels, unsigned radix, uint8_t lmc)
{
	struct fabric f;
	struct lft_set t;
	struct eval e;
	make_tree(&f, levels, radix, 1, 0, 0, lmc);
	struct route_options o = { .lmc = lmc };
	assert_int_equal(route_ftree_on(&f, &o, &t, NULL), 0);
	eval_init(&e, &f);
	evaluate(&f, &t, &e, 1, 0);
	assert_int_equal(e.missing, 0);
	assert_int_equal(e.loops, 0);
	assert_int_equal(e.not_updown, 0);
	assert_int_equal(e.a2a_max, e.bound);   /* base LIDs stay optimal */
	/* For CAs on different leaves, the 2^lmc paths share no link. */
	uint32_t nl = 1u << lmc, shared = 0, pairs = 0;
	uint32_t *used = malloc(nl * 64 * sizeof(uint32_t));
	for (uint32_t i = 0; i < e.nca; i += 3)
		for (uint32_t j = 0; j < e.nca; j += 5) {
			uint32_t si = e.ca_port[i], dj = e.ca_port[j];
			if (fab_peer_node(&f, si) == fab_peer_node(&f, dj))
				continue;
			uint32_t n = 0, start[9];
			for (uint32_t k = 0; k < nl; k++) {
				int ud;
				start[k] = n;
				assert_int_equal(walk(&f, &t, &e, si, f.ports[dj].lid + k,
						      NULL, &ud, used, &n), 0);
			}
			start[nl] = n;
			pairs++;
			for (uint32_t a = 0; a < n; a++)
				for (uint32_t b = a + 1; b < n; b++) {
					uint32_t ka = 0, kb = 0;
					while (start[ka + 1] <= a)
						ka++;
					while (start[kb + 1] <= b)
						kb++;
					shared += ka != kb && used[a] == used[b];
				}
		}
	fprintf(stderr, "  ft%u radix %u LMC %u: %u pairs, %u shared links\n",
		levels, radix, lmc, pairs, shared);
	assert_int_equal(shared, 0);
	free(used);
	eval_free(&e);
	lft_free(&t);
	fab_free(&f);
}

static void test_lmc(void **state)
{
	(void)state;
	lmc_case(2, 8, 1);
	lmc_case(2, 8, 2);
	lmc_case(3, 8, 1);
	lmc_case(3, 8, 2);
}

/* ---- re-route ---- */

static void reroute_case(unsigned levels, unsigned radix)
{
	struct fabric f, g;
	struct lft_set t0, t1, t2;
	struct eval e;
	make_tree(&f, levels, radix, 1, 0, 0, 0);
	assert_int_equal(route_ftree_on(&f, NULL, &t0, NULL), 0);
	assert_int_equal(fab_clone(&g, &f), 0);
	/* Lose the first up-link of the second leaf. */
	uint32_t leaf = g.switches[1];
	uint32_t lost = FAB_NONE;
	for (unsigned p = 1; p <= g.nodes[leaf].num_ports && lost == FAB_NONE; p++) {
		uint32_t pi = fab_port_idx(&g, leaf, p), o = fab_peer_node(&g, pi);
		if (o != FAB_NONE && fab_is_switch(&g, o))
			lost = pi;
	}
	fab_unlink(&g, lost);
	struct route_options o = { .prev = &t0, .prev_fab = &f };
	assert_int_equal(route_ftree_on(&g, &o, &t1, NULL), 0);
	assert_int_equal(route_ftree_on(&g, NULL, &t2, NULL), 0);
	eval_init(&e, &g);
	evaluate(&g, &t1, &e, 1, 0);
	assert_int_equal(e.missing, 0);
	assert_int_equal(e.loops, 0);
	assert_int_equal(e.not_updown, 0);
	assert_int_equal(e.credit_loop, 0);
	uint64_t moved = 0, scratch = 0, total = 0;
	for (uint32_t s = 0; s < g.num_switches; s++) {
		moved += lft_blocks_differ(&t0, s, &t1, s);
		scratch += lft_blocks_differ(&t0, s, &t2, s);
		total += t1.stride / LFT_BLOCK;
	}
	double ratio = (double)e.a2a_max / (double)e.bound;
	fprintf(stderr, "  ft%u radix %u, one link lost: %llu of %llu blocks "
		"changed (from scratch %llu), a2a %.3fx bound\n", levels, radix,
		(unsigned long long)moved, (unsigned long long)total,
		(unsigned long long)scratch, ratio);
	/* One moved LID touches a block on every switch, so on tiny trees a
	 * good share of blocks moves; it must beat routing from scratch. */
	assert_true(moved * 2 <= scratch);
	assert_true(moved * 4 <= total);
	assert_true(ratio <= 1.25);
	check_verifier(&g, &t1, 1.25);
	eval_free(&e);
	lft_free(&t0);
	lft_free(&t1);
	lft_free(&t2);
	fab_free(&g);
	fab_free(&f);
}

static void test_reroute(void **state)
{
	(void)state;
	reroute_case(2, 36);
	reroute_case(3, 12);
	reroute_case(3, 16);
}

/* ---- refusals ---- */

static void expect_refused(struct fabric *f, const char *what)
{
	struct lid_assign_opts lo = { 0 };
	assert_true(lid_assign(f, &lo, NULL) >= 0);
	struct lft_set t;
	char why[256] = "";
	assert_int_equal(route_ftree_on(f, NULL, &t, why), -ENOTSUP);
	fprintf(stderr, "  %s refused: %s\n", what, why);
	assert_true(strlen(why) > 10);
	fab_free(f);
}

static void test_not_a_tree(void **state)
{
	(void)state;
	struct fabric f;
	char err[256];
	struct torus_params tp = { 2, { 4, 4, 1 }, 1, 2 };
	assert_int_equal(gen_torus(&f, &tp, err), 0);
	expect_refused(&f, "torus");
	struct dragonfly_params dp = { 5, 4, 2, 1 };
	assert_int_equal(gen_dragonfly(&f, &dp, err), 0);
	expect_refused(&f, "dragonfly");
	struct random_params rp = { 16, 3, 2, 7 };
	assert_int_equal(gen_random(&f, &rp, err), 0);
	expect_refused(&f, "random");
}

/* Root GUIDs: the tree seen from given roots routes the same as detected. */
static void test_roots(void **state)
{
	(void)state;
	struct fabric f;
	struct lft_set a, b;
	make_tree(&f, 3, 8, 1, 0, 0, 0);
	uint64_t roots[64];
	uint32_t n = 0;
	for (uint32_t s = 0; s < f.num_switches; s++)
		if (strncmp(f.nodes[f.switches[s]].desc, "core", 4) == 0)
			roots[n++] = f.nodes[f.switches[s]].guid;
	struct route_options o = { .root_guids = roots, .num_root_guids = n };
	assert_int_equal(route_ftree_on(&f, NULL, &a, NULL), 0);
	assert_int_equal(route_ftree_on(&f, &o, &b, NULL), 0);
	for (uint32_t s = 0; s < f.num_switches; s++)
		assert_int_equal(lft_blocks_differ(&a, s, &b, s), 0);
	lft_free(&b);
	/* A leaf named as root makes other leaves sit at different depths. */
	uint64_t bad = f.nodes[f.switches[0]].guid;
	struct route_options o2 = { .root_guids = &bad, .num_root_guids = 1 };
	char why[256];
	assert_int_equal(route_ftree_on(&f, &o2, &b, why), -ENOTSUP);
	lft_free(&a);
	fab_free(&f);
}

int main(void)
{
	log_set_level(getenv("FT_DEBUG") ? LOG_INFO : LOG_WARN);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_intact_2level),
		cmocka_unit_test(test_intact_3level),
		cmocka_unit_test(test_degraded),
		cmocka_unit_test(test_degraded_hard),
		cmocka_unit_test(test_degraded_10),
		cmocka_unit_test(test_random_guids),
		cmocka_unit_test(test_hub_kept),
		cmocka_unit_test(test_lmc),
		cmocka_unit_test(test_reroute),
		cmocka_unit_test(test_not_a_tree),
		cmocka_unit_test(test_roots),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
