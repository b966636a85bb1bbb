/* The route verifier on hand-made fabrics and tables: it must catch a
 * forwarding loop, a missing entry, a bad port, a misdelivery, duplicate
 * LIDs and a credit loop (a 4-switch ring routed clockwise), must pass a
 * correct tree, and must give exact link-load numbers on a tiny fat-tree
 * (counted by hand in the comments). Results must not depend on the thread
 * count. */
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
#include "routing/engine.h"
#include "routing/lft.h"
#include "routing/verify.h"
#include "topogen/topo_gen.h"
#include "tests/unit/support.h"

/* ---- building blocks ---- */

static uint32_t add_sw(struct fabric *f, uint8_t nports, const char *name,
		       uint32_t lid)
{
	static uint64_t guid = 0x1000;
	uint32_t n = fab_add_node(f, FAB_SWITCH, nports, ++guid, name);
	assert_int_not_equal(n, FAB_NONE);
	fab_port(f, n, 0)->lid = lid;
	return n;
}

static uint32_t add_ca(struct fabric *f, const char *name, uint32_t lid,
		       uint8_t lmc)
{
	static uint64_t guid = 0x9000;
	uint32_t n = fab_add_node(f, FAB_CA, 1, ++guid, name);
	assert_int_not_equal(n, FAB_NONE);
	fab_port(f, n, 1)->lid = lid;
	fab_port(f, n, 1)->lmc = lmc;
	fab_port(f, n, 1)->guid = guid;
	return n;
}

static uint32_t sw_of(const struct fabric *f, uint32_t n)
{
	return f->nodes[n].sw_index;
}

/* Shortest-path tables, lowest port number among the minimal ones: a
 * reference "minhop" kept here so these tests need no engine. */
static void route_min(const struct fabric *f, struct lft_set *t)
{
	uint32_t nsw = f->num_switches;
	uint32_t *dist = malloc(nsw * sizeof(uint32_t));
	uint32_t *q = malloc(nsw * sizeof(uint32_t));
	assert_int_equal(lft_alloc(t, nsw, fab_max_lid(f)), 0);
	lft_fill_local(f, t);
	for (uint32_t d = 0; d < nsw; d++) {
		uint32_t h = 0, tl = 0;
		for (uint32_t s = 0; s < nsw; s++)
			dist[s] = UINT32_MAX;
		dist[d] = 0;
		q[tl++] = d;
		while (h < tl) {
			uint32_t s = q[h++], n = f->switches[s];
			for (unsigned p = 1; p <= f->nodes[n].num_ports; p++) {
				uint32_t o = fab_peer_node(f, fab_port_idx(f, n, p));
				if (o == FAB_NONE || !fab_is_switch(f, o))
					continue;
				if (dist[sw_of(f, o)] == UINT32_MAX) {
					dist[sw_of(f, o)] = dist[s] + 1;
					q[tl++] = sw_of(f, o);
				}
			}
		}
		/* LIDs of switch d: its own and its CAs'. */
		uint32_t dn = f->switches[d];
		for (uint32_t s = 0; s < nsw; s++) {
			if (s == d || dist[s] == UINT32_MAX)
				continue;
			uint32_t n = f->switches[s];
			uint8_t best = 0;
			for (unsigned p = 1; p <= f->nodes[n].num_ports && !best; p++) {
				uint32_t o = fab_peer_node(f, fab_port_idx(f, n, p));
				if (o != FAB_NONE && fab_is_switch(f, o) &&
				    dist[sw_of(f, o)] + 1 == dist[s])
					best = (uint8_t)p;
			}
			for (unsigned p = 0; p <= f->nodes[dn].num_ports; p++) {
				uint32_t pi = fab_port_idx(f, dn, p);
				const struct fab_port *ep = &f->ports[pi];
				if (p) {
					if (ep->peer == FAB_NONE ||
					    fab_is_switch(f, f->ports[ep->peer].node))
						continue;
					ep = &f->ports[ep->peer];
				}
				for (uint32_t k = 0; k < (1u << ep->lmc); k++)
					lft_set_port(t, s, ep->lid + k, best);
			}
		}
	}
	free(dist);
	free(q);
}

static void verify(const struct fabric *f, const struct lft_set *t,
		   struct verify_result *r, unsigned threads)
{
	struct verify_opts o = { .check_credit_loops = 1, .link_load = 1,
				 .path_diversity = 1, .threads = threads };
	assert_int_equal(verify_routes(f, t, &o, r), 0);
}

/* A line of three switches S1 - S2 - S3, one CA on each end switch:
 *   ca1 - S1[1]  S1[2] - S2[1]  S2[2] - S3[1]  S3[2] - ca3
 * LIDs: S1 1, S2 2, S3 3, ca1 10, ca3 11. */
struct line {
	struct fabric f;
	uint32_t s1, s2, s3, ca1, ca3;
};

static void make_line(struct line *l)
{
	fab_init(&l->f);
	l->ca1 = add_ca(&l->f, "ca1", 10, 0);
	l->s1 = add_sw(&l->f, 4, "S1", 1);
	l->s2 = add_sw(&l->f, 4, "S2", 2);
	l->s3 = add_sw(&l->f, 4, "S3", 3);
	l->ca3 = add_ca(&l->f, "ca3", 11, 0);
	ut_link(&l->f, l->ca1, 1, l->s1, 1);
	ut_link(&l->f, l->s1, 2, l->s2, 1);
	ut_link(&l->f, l->s2, 2, l->s3, 1);
	ut_link(&l->f, l->s3, 2, l->ca3, 1);
}

/* ---- the verdicts ---- */

static void correct_line_passes(void **state)
{
	(void)state;
	struct line l;
	struct lft_set t;
	struct verify_result r;
	make_line(&l);
	route_min(&l.f, &t);
	verify(&l.f, &t, &r, 1);
	if (!r.ok)
		fprintf(stderr, "%s\n", r.first_error);
	assert_true(r.ok);
	assert_int_equal(r.lids_total, 5);
	assert_int_equal(r.num_terminals, 2);
	/* 2 CAs x (5 LIDs - their own) */
	assert_int_equal(r.pairs_checked, 8);
	assert_int_equal(r.pairs_unreachable, 0);
	/* ca1 -> ca3: ca1-S1-S2-S3-ca3 = 4 links */
	assert_int_equal(r.max_hops, 4);
	assert_true(r.max_stretch == 1.0);
	assert_int_equal(r.credit_loop, 0);
	assert_string_equal(r.first_error, "");
	lft_free(&t);
	fab_free(&l.f);
}

static void loop_is_caught(void **state)
{
	(void)state;
	struct line l;
	struct lft_set t;
	struct verify_result r;
	make_line(&l);
	route_min(&l.f, &t);
	/* S2 sends ca3's LID back to S1, which sends it to S2. */
	lft_set_port(&t, sw_of(&l.f, l.s2), 11, 1);
	verify(&l.f, &t, &r, 1);
	assert_false(r.ok);
	/* ca1 loops; ca3 is delivered by S3 directly. */
	assert_int_equal(r.pairs_looping, 1);
	assert_int_equal(r.missing_entries, 0);
	assert_int_equal(r.bad_port_entries, 0);
	assert_non_null(strstr(r.first_error, "LID 11: forwarding loop"));
	assert_non_null(strstr(r.first_error, "'S1'"));
	assert_non_null(strstr(r.first_error, "'S2'"));
	lft_free(&t);
	fab_free(&l.f);
}

static void missing_entry_is_caught(void **state)
{
	(void)state;
	struct line l;
	struct lft_set t;
	struct verify_result r;
	make_line(&l);
	route_min(&l.f, &t);
	uint8_t to_s3 = lft_get(&t, sw_of(&l.f, l.s1), 3);
	/* S1 loses the entry for S3's LID (3). */
	lft_set_port(&t, sw_of(&l.f, l.s1), 3, LFT_NO_PATH);
	verify(&l.f, &t, &r, 1);
	assert_false(r.ok);
	assert_int_equal(r.missing_entries, 1);
	assert_int_equal(r.missing_to_switches, 1);    /* LID 3 is S3's */
	assert_int_equal(r.pairs_unreachable, 1);      /* ca1 -> LID 3 */
	assert_int_equal(r.pairs_looping, 0);
	assert_string_equal(r.first_error, "switch 'S1' has no entry for LID 3");
	/* A CA's LID missing is not a switch-to-switch hole. */
	lft_set_port(&t, sw_of(&l.f, l.s1), 3, to_s3);
	lft_set_port(&t, sw_of(&l.f, l.s1), 11, LFT_NO_PATH);
	verify(&l.f, &t, &r, 1);
	assert_int_equal(r.missing_entries, 1);
	assert_int_equal(r.missing_to_switches, 0);
	lft_free(&t);
	fab_free(&l.f);
}

static void bad_ports_are_caught(void **state)
{
	(void)state;
	struct line l;
	struct lft_set t;
	struct verify_result r;
	make_line(&l);
	route_min(&l.f, &t);
	lft_set_port(&t, sw_of(&l.f, l.s1), 11, 3);     /* unlinked */
	lft_set_port(&t, sw_of(&l.f, l.s2), 10, 9);     /* beyond 4 ports */
	lft_set_port(&t, sw_of(&l.f, l.s3), 1, 0);      /* port 0, not its LID */
	verify(&l.f, &t, &r, 1);
	assert_false(r.ok);
	assert_int_equal(r.bad_port_entries, 3);
	assert_int_equal(r.missing_entries, 0);
	/* ca1 -> 11 dies at S1; ca3 -> 10 at S2 and ca3 -> 1 at S3. */
	assert_int_equal(r.pairs_unreachable, 3);
	assert_true(r.num_errors == 3);
	lft_free(&t);
	fab_free(&l.f);
}

static void misdelivery_and_duplicates_are_caught(void **state)
{
	(void)state;
	struct line l;
	struct lft_set t;
	struct verify_result r;
	make_line(&l);
	route_min(&l.f, &t);
	/* S1 hands S3's LID to ca1. */
	lft_set_port(&t, sw_of(&l.f, l.s1), 3, 1);
	verify(&l.f, &t, &r, 1);
	assert_false(r.ok);
	assert_int_equal(r.misdelivered_entries, 1);
	assert_int_equal(r.pairs_unreachable, 1);
	lft_free(&t);

	fab_port(&l.f, l.ca3, 1)->lid = 10;             /* same as ca1 */
	route_min(&l.f, &t);
	verify(&l.f, &t, &r, 1);
	assert_false(r.ok);
	assert_int_equal(r.duplicate_lids, 1);
	assert_non_null(strstr(r.first_error, "LID 10 is claimed by"));
	lft_free(&t);
	fab_free(&l.f);
}

/* Four switches in a ring R0 - R1 - R2 - R3 - R0 (port 1 clockwise, port 2
 * counter-clockwise), one CA on port 3 of each. Every LID is routed
 * clockwise: no forwarding loop, every route complete, but the four
 * clockwise channels wait on each other: a credit loop. */
static void credit_loop_is_caught(void **state)
{
	(void)state;
	struct fabric f;
	struct lft_set t;
	struct verify_result r;
	uint32_t sw[4], ca[4];
	char name[8];
	fab_init(&f);
	for (int i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "R%d", i);
		sw[i] = add_sw(&f, 4, name, 1 + i);
		snprintf(name, sizeof(name), "c%d", i);
		ca[i] = add_ca(&f, name, 10 + i, 0);
		ut_link(&f, ca[i], 1, sw[i], 3);
	}
	for (int i = 0; i < 4; i++)
		ut_link(&f, sw[i], 1, sw[(i + 1) % 4], 2);
	assert_int_equal(lft_alloc(&t, 4, fab_max_lid(&f)), 0);
	lft_fill_local(&f, &t);
	for (int s = 0; s < 4; s++)
		for (int d = 0; d < 4; d++)
			if (s != d) {
				lft_set_port(&t, s, 1 + d, 1);
				lft_set_port(&t, s, 10 + d, 1);
			}
	verify(&f, &t, &r, 1);
	assert_false(r.ok);
	assert_int_equal(r.credit_loop, 1);
	assert_int_equal(r.pairs_looping, 0);
	assert_int_equal(r.pairs_unreachable, 0);
	assert_int_equal(r.missing_entries, 0);
	assert_int_equal(r.cdg_channels, 8);
	/* R_i's clockwise channel waits on R_(i+1)'s, for every i. */
	assert_int_equal(r.cdg_edges, 4);
	assert_non_null(strstr(r.cdg_cycle, "'R0'[1]"));
	assert_non_null(strstr(r.cdg_cycle, "'R3'[1]"));
	assert_non_null(strstr(r.first_error, "credit loop"));
	assert_int_equal(r.max_hops, 5);        /* c1 -> c0: 3 ring hops + 2 */
	lft_free(&t);

	/* Shortest paths on a 4-ring with ties to port 1 still close a loop
	 * (R0->R1->R2 and R2->R3->R0 plus the 1-hop ones), so instead check
	 * that routes cut at R3-R0 (a line) are credit-loop free. */
	assert_int_equal(lft_alloc(&t, 4, fab_max_lid(&f)), 0);
	lft_fill_local(&f, &t);
	for (int s = 0; s < 4; s++)
		for (int d = 0; d < 4; d++)
			if (s != d) {
				uint8_t p = d > s ? 1 : 2;
				lft_set_port(&t, s, 1 + d, p);
				lft_set_port(&t, s, 10 + d, p);
			}
	verify(&f, &t, &r, 2);
	assert_true(r.ok);
	assert_int_equal(r.credit_loop, 0);
	lft_free(&t);
	fab_free(&f);
}

/* The tiny fat-tree: leaves A, B (ports 1-2 CAs, 3 to spine S0, 4 to S1),
 * spines S0, S1 (port 1 to A, 2 to B). CAs in node order a0 a1 b0 b1.
 * LIDs: A 1, B 2, S0 3, S1 4, CAs from 16 (aligned to the LMC). */
struct ftree {
	struct fabric f;
	uint32_t A, B, S0, S1, ca[4];
};

static void make_tiny_tree(struct ftree *x, uint8_t lmc)
{
	fab_init(&x->f);
	const char *names[4] = { "a0", "a1", "b0", "b1" };
	uint32_t step = lmc ? 2 : 1;
	for (int i = 0; i < 4; i++)
		x->ca[i] = add_ca(&x->f, names[i], 16 + step * i, lmc);
	x->A = add_sw(&x->f, 4, "A", 1);
	x->B = add_sw(&x->f, 4, "B", 2);
	x->S0 = add_sw(&x->f, 2, "S0", 3);
	x->S1 = add_sw(&x->f, 2, "S1", 4);
	ut_link(&x->f, x->ca[0], 1, x->A, 1);
	ut_link(&x->f, x->ca[1], 1, x->A, 2);
	ut_link(&x->f, x->ca[2], 1, x->B, 1);
	ut_link(&x->f, x->ca[3], 1, x->B, 2);
	ut_link(&x->f, x->A, 3, x->S0, 1);
	ut_link(&x->f, x->A, 4, x->S1, 1);
	ut_link(&x->f, x->B, 3, x->S0, 2);
	ut_link(&x->f, x->B, 4, x->S1, 2);
}

/* CA i's LID k goes up through spine (i + k) % 2 (or spine 0 for all if
 * `one_spine`); switch LIDs go through spine 0. */
static void route_tree(struct ftree *x, struct lft_set *t, int one_spine)
{
	const struct fabric *f = &x->f;
	uint32_t A = sw_of(f, x->A), B = sw_of(f, x->B);
	uint32_t S0 = sw_of(f, x->S0), S1 = sw_of(f, x->S1);
	assert_int_equal(lft_alloc(t, 4, fab_max_lid(f)), 0);
	lft_fill_local(f, t);
	for (int i = 0; i < 4; i++) {
		const struct fab_port *p = fab_port(f, x->ca[i], 1);
		int on_a = i < 2;
		for (uint32_t k = 0; k < (1u << p->lmc); k++) {
			uint32_t lid = p->lid + k;
			unsigned up = one_spine ? 3 : 3 + (i + k) % 2;
			lft_set_port(t, on_a ? B : A, lid, (uint8_t)up);
			lft_set_port(t, S0, lid, on_a ? 1 : 2);
			lft_set_port(t, S1, lid, on_a ? 1 : 2);
		}
	}
	lft_set_port(t, A, 2, 3);
	lft_set_port(t, B, 1, 3);
	lft_set_port(t, A, 3, 3);
	lft_set_port(t, B, 3, 3);
	lft_set_port(t, A, 4, 4);
	lft_set_port(t, B, 4, 4);
	lft_set_port(t, S0, 1, 1);
	lft_set_port(t, S0, 2, 2);
	lft_set_port(t, S0, 4, 1);      /* S0 -> A -> S1 */
	lft_set_port(t, S1, 1, 1);
	lft_set_port(t, S1, 2, 2);
	lft_set_port(t, S1, 3, 1);      /* S1 -> A -> S0 */
}

static void tiny_tree_exact_loads(void **state)
{
	(void)state;
	struct ftree x;
	struct lft_set t;
	struct verify_result r;
	make_tiny_tree(&x, 0);
	route_tree(&x, &t, 0);
	verify(&x.f, &t, &r, 1);
	if (!r.ok)
		fprintf(stderr, "%s\n", r.first_error);
	assert_true(r.ok);
	assert_int_equal(r.lids_total, 8);
	assert_int_equal(r.pairs_checked, 4 * 7);
	assert_int_equal(r.max_hops, 4);
	/* Each CA link carries N-1 = 3 routes each way. A->S0 carries the
	 * two routes from a0, a1 to b0; A->S1 the two to b1; likewise down. */
	assert_int_equal(r.a2a_max_link_load, 3);
	assert_int_equal(r.a2a_max_switch_link_load, 2);
	/* Bounds: terminal 3; cut at a leaf 2 x 2 / 2 = 2; average: 8 cross
	 * pairs x 2 switch links / 8 directed switch links = 2. */
	assert_true(r.a2a_lower_bound == 3.0);
	assert_true(r.a2a_switch_bound == 2.0);
	assert_true(r.a2a_ratio == 1.0);
	assert_true(r.a2a_switch_ratio == 1.0);
	/* Shifts 1..3 each put at most one route on a link. */
	assert_int_equal(r.shifts_checked, 3);
	assert_int_equal(r.shift_worst_load, 1);
	assert_int_equal(r.shifts_congested, 0);
	assert_int_equal(r.credit_loop, 0);
	/* CA traffic makes one dependency per leaf-spine-leaf turn: A->S0
	 * then S0->B, B->S0 then S0->A, and the same through S1 (routes to
	 * switch LIDs, such as S0 -> A -> S1, are left out by default). */
	assert_int_equal(r.cdg_channels, 8);
	assert_int_equal(r.cdg_edges, 4);
	lft_free(&t);

	/* Everything through spine 0: A->S0 carries all 4 routes from a0, a1
	 * to b0, b1. Shift 2 (a0->b0, a1->b1) puts 2 routes on it. */
	route_tree(&x, &t, 1);
	verify(&x.f, &t, &r, 1);
	assert_true(r.ok);
	assert_int_equal(r.a2a_max_link_load, 4);
	assert_int_equal(r.a2a_max_switch_link_load, 4);
	assert_true(r.a2a_ratio > 1.333 && r.a2a_ratio < 1.334);
	assert_true(r.a2a_switch_ratio == 2.0);
	assert_int_equal(r.shift_worst_load, 2);
	assert_int_equal(r.shift_worst, 2);
	assert_int_equal(r.shifts_congested, 1);
	lft_free(&t);
	fab_free(&x.f);
}

static void lmc_paths_are_disjoint(void **state)
{
	(void)state;
	struct ftree x;
	struct lft_set t;
	struct verify_result r;
	make_tiny_tree(&x, 1);
	route_tree(&x, &t, 0);
	verify(&x.f, &t, &r, 1);
	if (!r.ok)
		fprintf(stderr, "%s\n", r.first_error);
	assert_true(r.ok);
	assert_int_equal(r.lids_total, 12);
	/* 8 ordered pairs across leaves, each LID over its own spine. */
	assert_int_equal(r.diversity_pairs, 8);
	assert_true(r.min_disjoint_paths == 2.0);
	lft_free(&t);
	route_tree(&x, &t, 1);
	verify(&x.f, &t, &r, 1);
	assert_true(r.min_disjoint_paths == 1.0);
	lft_free(&t);
	fab_free(&x.f);
}

/* A generated 3-level fat-tree with the reference router: same verdict and
 * numbers with 1 and 2 threads. */
static void threads_do_not_change_results(void **state)
{
	(void)state;
	struct fabric f;
	struct lft_set t;
	struct verify_result r1, r2;
	struct fattree_params p = { .levels = 3, .radix = 8, .oversub = 1 };
	char err[256];
	assert_int_equal(gen_fattree(&f, &p, err), 0);
	struct lid_assign_opts lo = { .lmc = 1 };
	assert_true(lid_assign(&f, &lo, NULL) >= 0);
	route_min(&f, &t);
	verify(&f, &t, &r1, 1);
	verify(&f, &t, &r2, 2);
	assert_true(r1.ok);
	assert_int_equal(r1.pairs_checked, r2.pairs_checked);
	assert_int_equal(r1.cdg_edges, r2.cdg_edges);
	assert_int_equal(r1.a2a_max_link_load, r2.a2a_max_link_load);
	assert_true(r1.avg_stretch == r2.avg_stretch);
	assert_true(r1.avg_hops == r2.avg_hops);
	assert_int_equal(r1.shift_worst_load, r2.shift_worst_load);
	assert_int_equal(r1.shifts_congested, r2.shifts_congested);
	assert_int_equal(r2.threads, 2);
	/* Shortest paths: stretch 1 everywhere. */
	assert_true(r1.max_stretch == 1.0);
	/* Break one entry deep in the list: the first error is the same. */
	lft_set_port(&t, f.num_switches - 1, 5, LFT_NO_PATH);
	lft_set_port(&t, 0, f.ports[f.nodes[f.switches[f.num_switches - 1]].first_port].lid, 0);
	verify(&f, &t, &r1, 1);
	verify(&f, &t, &r2, 2);
	assert_false(r1.ok);
	assert_string_equal(r1.first_error, r2.first_error);
	assert_int_equal(r1.num_errors, r2.num_errors);
	for (uint32_t i = 0; i < r1.num_errors; i++)
		assert_string_equal(r1.errors[i], r2.errors[i]);
	lft_free(&t);
	fab_free(&f);
}

/* Three switches: D (ordinal 2) with ca on port 3, linked to B on its
 * port 1 and A on its port 2, A - B linked too. A and B send ca's LID to
 * each other. Walks go nearest first, A before B (ordinals); the message
 * follows a breadth-first search from D, which meets B first (port 1):
 * it names the loop from B, as it always did. The loop is counted though
 * no CA pair enters it. */
static void loop_message_follows_search_order(void **state)
{
	(void)state;
	struct fabric f;
	struct lft_set t;
	struct verify_result r;
	fab_init(&f);
	uint32_t a = add_sw(&f, 4, "A", 1), b = add_sw(&f, 4, "B", 2);
	uint32_t d = add_sw(&f, 4, "D", 3), ca = add_ca(&f, "ca", 10, 0);
	ut_link(&f, d, 1, b, 1);
	ut_link(&f, d, 2, a, 1);
	ut_link(&f, a, 2, b, 2);
	ut_link(&f, d, 3, ca, 1);
	route_min(&f, &t);
	lft_set_port(&t, sw_of(&f, a), 10, 2);
	lft_set_port(&t, sw_of(&f, b), 10, 2);
	verify(&f, &t, &r, 1);
	/* No CA is on A or B: no pair loops, but A's and B's own MADs to
	 * ca (traps, if ca is the SM) would circle: not usable. */
	assert_false(r.ok);
	assert_int_equal(r.pairs_looping, 0);
	assert_int_equal(r.forwarding_loops, 1);
	assert_int_equal(r.loops_to_switches, 0);
	assert_string_equal(r.first_error,
			    "LID 10: forwarding loop 'B' -> 'A' -> 'B'");
	assert_int_equal(r.num_errors, 1);
	lft_free(&t);
	/* The same loop for D's own LID (3): a switch's LID, counted apart
	 * (the daemon's takeover tolerates it, as missing switch entries). */
	route_min(&f, &t);
	lft_set_port(&t, sw_of(&f, a), 3, 2);
	lft_set_port(&t, sw_of(&f, b), 3, 2);
	verify(&f, &t, &r, 1);
	assert_false(r.ok);
	assert_int_equal(r.pairs_looping, 0);
	assert_int_equal(r.forwarding_loops, 1);
	assert_int_equal(r.loops_to_switches, 1);
	lft_free(&t);
	fab_free(&f);
}

/* What the verifier counts, the slow way: every (CA port, LID) pair
 * walked from the CA, every (switch, LID) entry judged on its own. */
struct brute {
	uint64_t checked, unreach, looping, reached, hop_sum;
	uint64_t missing, bad, misdel;
	uint32_t max_hops;
};

static void brute_count(const struct fabric *f, const struct lft_set *t,
			struct brute *b)
{
	uint32_t max = fab_max_lid(f), nep = fab_endpoint_ports(f, NULL);
	uint32_t *eps = malloc(nep * sizeof(uint32_t));
	uint32_t *owner = malloc((max + 1) * sizeof(uint32_t));
	memset(b, 0, sizeof(*b));
	fab_endpoint_ports(f, eps);
	for (uint32_t l = 0; l <= max; l++)
		owner[l] = FAB_NONE;
	for (uint32_t i = 0; i < nep; i++)
		for (uint32_t k = 0; k < (1u << f->ports[eps[i]].lmc); k++)
			owner[f->ports[eps[i]].lid + k] = eps[i];
	for (uint32_t l = 1; l <= max; l++) {
		if (owner[l] == FAB_NONE)
			continue;
		int to_ca = !fab_is_switch(f, f->ports[owner[l]].node);
		/* entries */
		for (uint32_t s = 0; s < f->num_switches; s++) {
			uint32_t n = f->switches[s];
			uint8_t p = lft_get(t, s, l);
			uint32_t pi = fab_port_idx(f, n, p);
			if (p == LFT_NO_PATH)
				b->missing++;
			else if (p > f->nodes[n].num_ports ||
				 (p == 0 && owner[l] != pi) ||
				 (p && f->ports[pi].peer == FAB_NONE))
				b->bad++;
			else if (p && !fab_is_switch(f, fab_peer_node(f, pi)) &&
				 f->ports[pi].peer != owner[l])
				b->misdel++;
		}
		/* pairs */
		for (uint32_t i = 0; i < nep; i++) {
			uint32_t src = eps[i], n = f->ports[src].node;
			if (fab_is_switch(f, n) || src == owner[l])
				continue;
			uint32_t cur = fab_peer_node(f, src), hops = 1, fate = 0;
			b->checked++;
			for (uint32_t step = 0; !fate; step++) {
				uint8_t p = lft_get(t, sw_of(f, cur), l);
				uint32_t pi = fab_port_idx(f, cur, p);
				if (step > f->num_switches)
					fate = 3;       /* loops */
				else if (p == LFT_NO_PATH || pi == FAB_NONE ||
					 (p && f->ports[pi].peer == FAB_NONE))
					fate = 2;
				else if (p == 0)
					fate = owner[l] == pi ? 1 : 2;
				else if (!fab_is_switch(f, fab_peer_node(f, pi)))
					fate = f->ports[pi].peer == owner[l] ? 1 : 2;
				else {
					cur = fab_peer_node(f, pi);
					hops++;
				}
			}
			if (fate == 1) {
				hops += to_ca;
				b->reached++;
				b->hop_sum += hops;
				if (hops > b->max_hops)
					b->max_hops = hops;
			}
			b->unreach += fate == 2;
			b->looping += fate == 3;
		}
	}
	free(eps);
	free(owner);
}

static void assert_brute(const struct fabric *f, const struct lft_set *t,
			 const struct verify_result *r)
{
	struct brute b;
	brute_count(f, t, &b);
	assert_int_equal(r->pairs_checked, b.checked);
	assert_int_equal(r->pairs_unreachable, b.unreach);
	assert_int_equal(r->pairs_looping, b.looping);
	assert_int_equal(r->missing_entries, b.missing);
	assert_int_equal(r->bad_port_entries, b.bad);
	assert_int_equal(r->misdelivered_entries, b.misdel);
	assert_int_equal(r->max_hops, b.max_hops);
	assert_true(r->avg_hops == (double)b.hop_sum / b.reached);
}

/* The n-th LID the per-destination pass checks: destination switches in
 * ordinal order, each switch's own LIDs, then its CAs' in node order. */
static uint32_t lid_in_check_order(const struct fabric *f, uint32_t n)
{
	for (uint32_t s = 0; s < f->num_switches; s++) {
		uint32_t sn = f->switches[s];
		for (uint32_t pass = 0; pass < 2; pass++)
			for (uint32_t m = 0; m < f->num_nodes; m++) {
				uint32_t ep = FAB_NONE;
				if (pass == 0 && m == sn)
					ep = f->nodes[m].first_port;
				if (pass == 1 && !fab_is_switch(f, m) &&
				    fab_peer_node(f, f->nodes[m].first_port + 1) == sn)
					ep = f->nodes[m].first_port + 1;
				if (ep == FAB_NONE)
					continue;
				uint32_t k = 1u << f->ports[ep].lmc;
				if (n < k)
					return f->ports[ep].lid + n;
				n -= k;
			}
	}
	return 0;
}

/* The pass reads the LIDs of neighbouring destination switches in
 * batches of 128 and takes hop minimums 64 destination switches at a
 * time: a 3-level radix-8 tree (80 switches) at LMC 3 has 33 LIDs per
 * leaf, so batches end inside a leaf's LIDs and groups inside a thread's
 * range. Broken entries on both sides of a batch end: the counts match a
 * walk from every CA, and 1, 2 and 3 threads give the same errors. */
static void batches_and_groups_count_as_walks(void **state)
{
	(void)state;
	struct fabric f;
	struct lft_set t;
	struct verify_result r1, r2, r3;
	struct fattree_params p = { .levels = 3, .radix = 8, .oversub = 1 };
	char err[256];
	assert_int_equal(gen_fattree(&f, &p, err), 0);
	struct lid_assign_opts lo = { .lmc = 3 };
	assert_true(lid_assign(&f, &lo, NULL) >= 0);
	route_min(&f, &t);
	verify(&f, &t, &r1, 1);
	assert_true(r1.ok);
	assert_brute(&f, &t, &r1);

	/* Break the LIDs around the end of the first batch, and one of a
	 * switch in the second group: a missing entry, a loop between two
	 * switches, a bad port, a misdelivery, another missing entry. */
	uint32_t l127 = lid_in_check_order(&f, 127);
	uint32_t l128 = lid_in_check_order(&f, 128);
	uint32_t l129 = lid_in_check_order(&f, 129);
	uint32_t l130 = lid_in_check_order(&f, 130);
	uint32_t sw70 = f.ports[f.nodes[f.switches[70]].first_port].lid;
	assert_true(l127 && l128 && l129 && l130 && sw70);
	lft_set_port(&t, 5, l127, LFT_NO_PATH);
	lft_set_port(&t, 6, l129, 0);
	lft_set_port(&t, 6, l130, 1);          /* a leaf's CA on port 1 */
	lft_set_port(&t, 7, sw70, LFT_NO_PATH);
	/* switch 0 sends l128 up a port; the switch there sends it back */
	uint8_t up = lft_get(&t, 0, l128);
	uint32_t upi = fab_port_idx(&f, f.switches[0], up);
	uint32_t spine = fab_peer_node(&f, upi);
	assert_true(fab_is_switch(&f, spine));
	lft_set_port(&t, sw_of(&f, spine), l128,
		     (uint8_t)f.ports[f.ports[upi].peer].num);
	verify(&f, &t, &r1, 1);
	verify(&f, &t, &r2, 2);
	verify(&f, &t, &r3, 3);
	assert_false(r1.ok);
	assert_brute(&f, &t, &r1);
	assert_true(r1.pairs_looping > 0);
	assert_true(r1.pairs_unreachable > 0);
	assert_int_equal(r1.missing_entries, 2);
	assert_int_equal(r1.num_errors, 5);
	assert_int_equal(r3.threads, 3);
	assert_int_equal(r1.num_errors, r2.num_errors);
	assert_int_equal(r1.num_errors, r3.num_errors);
	for (uint32_t i = 0; i < r1.num_errors; i++) {
		assert_string_equal(r1.errors[i], r2.errors[i]);
		assert_string_equal(r1.errors[i], r3.errors[i]);
	}
	assert_true(r1.avg_stretch == r3.avg_stretch);
	assert_int_equal(r1.cdg_edges, r3.cdg_edges);
	assert_int_equal(r1.a2a_max_link_load, r3.a2a_max_link_load);
	lft_free(&t);
	fab_free(&f);
}

static void json_has_stable_keys(void **state)
{
	(void)state;
	struct line l;
	struct lft_set t;
	struct verify_result r;
	char buf[8192];
	make_line(&l);
	route_min(&l.f, &t);
	lft_set_port(&t, sw_of(&l.f, l.s1), 3, LFT_NO_PATH);
	verify(&l.f, &t, &r, 1);
	FILE *m = fmemopen(buf, sizeof(buf), "w");
	assert_non_null(m);
	verify_print_json(m, &r);
	fclose(m);
	assert_true(!strncmp(buf, "{\n  \"ok\": false,\n", 17));
	assert_non_null(strstr(buf, "\"missing_entries\": 1,\n"));
	assert_non_null(strstr(buf, "\"a2a_ratio\": "));
	assert_non_null(strstr(buf, "\"first_error\": \"switch 'S1' has no entry for LID 3\""));
	assert_string_equal(buf + strlen(buf) - 2, "}\n");
	lft_free(&t);
	fab_free(&l.f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(correct_line_passes),
		cmocka_unit_test(loop_is_caught),
		cmocka_unit_test(missing_entry_is_caught),
		cmocka_unit_test(bad_ports_are_caught),
		cmocka_unit_test(misdelivery_and_duplicates_are_caught),
		cmocka_unit_test(credit_loop_is_caught),
		cmocka_unit_test(tiny_tree_exact_loads),
		cmocka_unit_test(lmc_paths_are_disjoint),
		cmocka_unit_test(threads_do_not_change_results),
		cmocka_unit_test(loop_message_follows_search_order),
		cmocka_unit_test(batches_and_groups_count_as_walks),
		cmocka_unit_test(json_has_stable_keys),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
