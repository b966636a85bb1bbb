/* ftree minimal-change repair (routing/ftree/ftree_repair*.c): generated trees
 * routed, then a link or a switch lost, and routed again with the previous
 * tables. For each case:
 *  - the repair path is taken, the tables pass the shared verifier with
 *    CA -> switch-LID routes in the CDG, and the CDG of every entry (every
 *    switch a source, switch LIDs too) is acyclic (checked here);
 *  - every entry that pointed at a lost port changed, and every changed
 *    entry belongs to a switch whose previous path to that LID crossed a
 *    lost link, or that no switch sent that LID to (an idle entry the
 *    repair may re-choose for moved flow);
 *  - the entries that had to change (all but the idle ones re-chosen) are
 *    no more than with the repair off (the whole assignment keeping
 *    still-valid entries), and all of them far fewer than from scratch.
 * A fabric that gained a link is not repaired. (A lost switch needs a
 * fabric without its node: integration test 24 covers it.) */
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
#include "routing/engine.h"
#include "routing/ftree/ftree.h"
#include "routing/lft.h"
#include "routing/verify.h"
#include "topogen/topo_gen.h"
#include "tests/unit/support.h"

static void make_tree(struct fabric *f, unsigned levels, unsigned radix,
		      double remove, uint64_t seed, uint8_t lmc)
{
	struct fattree_params p = { levels, radix, 1, remove, seed, 0, 0 };
	ut_fattree(f, &p, lmc);
}

/* Route f with ftree, tuned (tu NULL: the defaults); 1 when the repair
 * made the tables (ftree_stats.repair_taken). */
static int route_tuned(const struct fabric *f, const struct route_options *opt,
		       const struct ftree_tuning *tu, struct lft_set *t)
{
	char why[256];
	struct ftree_stats st;
	assert_int_equal(ftree_run(f, opt, tu, &st, t, why), 0);
	return st.repair_taken;
}

static int route(const struct fabric *f, const struct route_options *opt,
		 struct lft_set *t)
{
	return route_tuned(f, opt, NULL, t);
}

/* Switch ordinal of the switch behind port p of switch s, or FAB_NONE. */
static uint32_t next_sw(const struct fabric *f, uint32_t s, uint8_t p)
{
	const struct fab_node *n = &f->nodes[f->switches[s]];
	if (!p || p > n->num_ports)
		return FAB_NONE;
	uint32_t o = fab_peer_node(f, n->first_port + p);
	return o == FAB_NONE || !fab_is_switch(f, o) ? FAB_NONE : f->nodes[o].sw_index;
}

/* Every entry's dependency (channel into a switch -> its next channel)
 * in one graph; 1 if it has a cycle (Kahn's algorithm). */
static int full_cdg_cycle(const struct fabric *f, const struct lft_set *t)
{
	uint32_t np = f->num_ports;
	uint32_t *indeg = calloc(np, sizeof(uint32_t));
	uint64_t *edge = NULL;
	size_t ne = 0, cap = 0;
	for (uint32_t lid = 1; lid <= t->max_lid; lid++)
		for (uint32_t s = 0; s < f->num_switches; s++) {
			uint8_t p = lft_get(t, s, lid);
			uint32_t z = next_sw(f, s, p);
			if (z == FAB_NONE)
				continue;
			uint8_t q = lft_get(t, z, lid);
			if (next_sw(f, z, q) == FAB_NONE)
				continue;
			if (ne == cap) {
				cap = cap ? 2 * cap : 4096;
				edge = realloc(edge, cap * sizeof(*edge));
				assert_non_null(edge);
			}
			uint32_t a = f->nodes[f->switches[s]].first_port + p;
			uint32_t b = f->nodes[f->switches[z]].first_port + q;
			edge[ne++] = (uint64_t)a << 32 | b;
		}
	/* dedupe, then count */
	qsort(edge, ne, sizeof(*edge), ut_cmp_u64);
	size_t n = 0;
	for (size_t i = 0; i < ne; i++)
		if (!n || edge[n - 1] != edge[i])
			edge[n++] = edge[i];
	uint32_t *off = calloc(np + 1, sizeof(uint32_t));
	for (size_t i = 0; i < n; i++) {
		off[(edge[i] >> 32) + 1]++;
		indeg[(uint32_t)edge[i]]++;
	}
	for (uint32_t i = 0; i < np; i++)
		off[i + 1] += off[i];
	uint32_t *queue = malloc(np * sizeof(uint32_t)), head = 0, tail = 0;
	for (uint32_t i = 0; i < np; i++)
		if (!indeg[i])
			queue[tail++] = i;
	while (head < tail) {
		uint32_t c = queue[head++];
		for (uint32_t k = off[c]; k < off[c + 1]; k++)
			if (!--indeg[(uint32_t)edge[k]])
				queue[tail++] = (uint32_t)edge[k];
	}
	free(queue);
	free(off);
	free(indeg);
	free(edge);
	return tail != np;
}

/* Did the previous path from switch s to lid cross a lost link (a port
 * linked in f0 and not in f)? Both fabrics have the same switch ordinals
 * (links only are lost here). */
static int crossed(const struct fabric *f0, const struct fabric *f,
		   const struct lft_set *t0, uint32_t s, uint32_t lid)
{
	for (unsigned hops = 0; hops < 64; hops++) {
		uint8_t p = lft_get(t0, s, lid);
		const struct fab_node *n = &f->nodes[f->switches[s]];
		if (!p || p == LFT_NO_PATH || p > n->num_ports)
			return 0;
		if (f->ports[n->first_port + p].peer == FAB_NONE &&
		    f0->ports[n->first_port + p].peer != FAB_NONE)
			return 1;
		s = next_sw(f0, s, p);
		if (s == FAB_NONE)
			return 0;
	}
	return 0;
}

/* Does any switch send lid to s in t0? */
static int busy(const struct fabric *f0, const struct lft_set *t0, uint32_t s,
		uint32_t lid)
{
	const struct fab_node *n = &f0->nodes[f0->switches[s]];
	for (unsigned p = 1; p <= n->num_ports; p++) {
		uint32_t u = next_sw(f0, s, (uint8_t)p);
		if (u == FAB_NONE)
			continue;
		uint8_t back = f0->ports[f0->ports[n->first_port + p].peer].num;
		if (lft_get(t0, u, lid) == back)
			return 1;
	}
	return 0;
}

static uint64_t count_changes(const struct lft_set *a, const struct lft_set *b)
{
	uint64_t n = 0;
	for (uint32_t s = 0; s < a->num_switches; s++)
		for (uint32_t l = 0; l <= a->max_lid; l++)
			n += lft_get(a, s, l) != lft_get(b, s, l);
	return n;
}

/* A second loss repaired from the first repair's tables and memo, as the
 * daemon chains them: the memo may hold turns the tables no longer take,
 * which can only refuse more, so the tables still verify, acyclic. */
static void repair_again(const char *name, const struct fabric *f1,
			 const struct lft_set *t1, const struct route_memo *m1)
{
	struct fabric f;
	struct lft_set t;
	assert_int_equal(fab_clone(&f, f1), 0);
	/* the last switch's first switch link: another part of the tree */
	const struct fab_node *n = &f.nodes[f.switches[f.num_switches - 1]];
	for (unsigned p = 1; p <= n->num_ports; p++)
		if (next_sw(&f, f.num_switches - 1, (uint8_t)p) != FAB_NONE) {
			fab_unlink(&f, n->first_port + p);
			break;
		}
	struct route_options o = { .prev = t1, .prev_fab = f1, .prev_memo = m1 };
	int repaired = route(&f, &o, &t);
	struct verify_opts vo = { .check_credit_loops = 1, .cdg_switch_lids = 1 };
	struct verify_result res;
	assert_int_equal(verify_routes(&f, &t, &vo, &res), 0);
	if (!res.ok)
		fprintf(stderr, "%s, then a second loss: %s\n", name, res.first_error);
	assert_true(res.ok);
	assert_int_equal(full_cdg_cycle(&f, &t), 0);
	fprintf(stderr, "  %s, then a second loss: %s\n", name,
		repaired ? "repaired" : "routed in full");
	lft_free(&t);
	fab_free(&f);
}

/* Idle up-link entries re-pointed in bulk (ftree_repair_idle.c; on the
 * 65k tree from 256 hits at a switch, here from 1): complete, loop-free,
 * acyclic with every switch a source, and every entry on a lost port
 * changed. */
static void bulk_case(const char *name, const struct fabric *f,
		      const struct fabric *f0, const struct lft_set *t0)
{
	struct lft_set t;
	struct route_options o = { .prev = t0, .prev_fab = f0 };
	struct ftree_tuning bulk = ftree_tuning_default;
	bulk.repair_idle_min_hits = 1;
	assert_true(route_tuned(f, &o, &bulk, &t));
	struct verify_opts vo = { .check_credit_loops = 1, .cdg_switch_lids = 1 };
	struct verify_result res;
	assert_int_equal(verify_routes(f, &t, &vo, &res), 0);
	if (!res.ok)
		fprintf(stderr, "%s, idle entries in bulk: %s\n", name, res.first_error);
	assert_true(res.ok);
	assert_int_equal(full_cdg_cycle(f, &t), 0);
	for (uint32_t s = 0; s < f->num_switches; s++)
		for (uint32_t l = 1; l <= t.max_lid; l++) {
			uint8_t was = lft_get(t0, s, l);
			const struct fab_node *n = &f->nodes[f->switches[s]];
			if (was && was <= n->num_ports &&
			    f->ports[n->first_port + was].peer == FAB_NONE &&
			    f0->ports[n->first_port + was].peer != FAB_NONE)
				assert_int_not_equal(was, lft_get(&t, s, l));
		}
	lft_free(&t);
}

/* The spare the tables are built in (route_options.spare): a copy of the
 * previous tables made beforehand (lft_set.copy_of, as the daemon makes
 * it) is used as it is; one holding anything else, untagged, is not
 * trusted (ftree takes its tables as they come), nor is a copy still under
 * way; with the repair off the full route starts from empty tables. Same
 * tables every time. */
static void spare_cases(const struct fabric *f, const struct fabric *f0,
			const struct lft_set *t0, const struct route_memo *m0,
			const struct lft_set *t1, const struct lft_set *t2)
{
	size_t bytes = (size_t)t1->stride * t1->num_switches;
	for (int k = 0; k < 4; k++) {
		struct lft_set sp, t;
		assert_int_equal(lft_alloc(&sp, f->num_switches, fab_max_lid(f)), 0);
		if (k == 0) {
			assert_int_equal(sp.stride, t0->stride);
			assert_int_equal(sp.num_switches, t0->num_switches);
			memcpy(sp.port, t0->port, bytes);
			sp.copy_of = t0->port;
		} else {
			memset(sp.port, 0x55, bytes);
		}
		/* A copy the daemon's idle loop has not finished (slices,
		 * lft_copy_step): the rest is not t0's, so not a start. */
		if (k == 3) {
			assert_int_equal(lft_copy_step(&sp, t0, bytes - bytes / 4), 0);
			assert_ptr_equal(sp.copying, t0->port);
		}
		struct route_options o = { .prev = t0, .prev_fab = f0,
					   .prev_memo = m0, .spare = &sp };
		struct ftree_tuning tu = ftree_tuning_default;
		tu.repair = k != 2;
		route_tuned(f, &o, &tu, &t);
		assert_null(sp.port);           /* taken */
		assert_memory_equal(k != 2 ? t1->port : t2->port, t.port, bytes);
		lft_free(&t);
	}
}

/* Route f0, lose what `lose` takes away (in a clone), route again with
 * and without the repair and from scratch; judge. */
static void repair_case(const char *name, struct fabric *f0,
			void (*lose)(struct fabric *, uint32_t), uint32_t arg)
{
	struct fabric f;
	struct lft_set t0, t1, t2, t3, t4;
	struct route_memo m0 = { 0 }, m1 = { 0 };
	struct route_options o0 = { .memo_out = &m0 };
	route(f0, &o0, &t0);
	assert_string_equal(m0.engine, "ftree");
	assert_int_equal(m0.num_switches, f0->num_switches);
	assert_int_equal(fab_clone(&f, f0), 0);
	lose(&f, arg);
	struct route_options o = { .prev = &t0, .prev_fab = f0 };
	assert_true(route(&f, &o, &t1));
	/* The previous turns from the memo instead of the scan: the same
	 * turns, so the same tables. */
	struct route_options om = { .prev = &t0, .prev_fab = f0,
				    .prev_memo = &m0, .memo_out = &m1 };
	assert_true(route(&f, &om, &t4));
	assert_memory_equal(t1.port, t4.port, (size_t)t1.stride * t1.num_switches);
	assert_string_equal(m1.engine, "ftree");
	assert_true(m1.n > 0 || m0.n == 0);
	/* two threads: the memo's turns are taken alongside the copy */
	struct lft_set t5;
	struct route_options om2 = { .prev = &t0, .prev_fab = f0,
				     .prev_memo = &m0, .threads = 2 };
	assert_true(route(&f, &om2, &t5));
	assert_memory_equal(t1.port, t5.port, (size_t)t1.stride * t1.num_switches);
	lft_free(&t5);
	repair_again(name, &f, &t4, &m1);
	bulk_case(name, &f, f0, &t0);
	struct ftree_tuning no_repair = ftree_tuning_default;
	no_repair.repair = 0;
	route_tuned(&f, &o, &no_repair, &t2);
	route(&f, NULL, &t3);
	spare_cases(&f, f0, &t0, &m0, &t1, &t2);

	struct verify_opts vo = { .check_credit_loops = 1, .link_load = 1,
				  .cdg_switch_lids = 1 };
	struct verify_result res;
	assert_int_equal(verify_routes(&f, &t1, &vo, &res), 0);
	if (!res.ok)
		fprintf(stderr, "%s: %s\n", name, res.first_error);
	assert_true(res.ok);
	assert_int_equal(res.credit_loop, 0);
	assert_int_equal(full_cdg_cycle(&f, &t1), 0);

	uint64_t changed = 0, broken = 0, idle = 0;
	for (uint32_t s = 0; s < f.num_switches; s++)
		for (uint32_t l = 1; l <= t1.max_lid; l++) {
			uint8_t was = lft_get(&t0, s, l), now = lft_get(&t1, s, l);
			const struct fab_node *n = &f.nodes[f.switches[s]];
			int lost = was && was <= n->num_ports && was != LFT_NO_PATH &&
				f.ports[n->first_port + was].peer == FAB_NONE &&
				f0->ports[n->first_port + was].peer != FAB_NONE;
			broken += lost;
			if (lost)
				assert_int_not_equal(was, now);
			if (was == now)
				continue;
			changed++;
			if (crossed(f0, &f, &t0, s, l))
				continue;
			/* a LID whose port left the fabric is cleared */
			if (now == LFT_NO_PATH)
				continue;
			assert_false(busy(f0, &t0, s, l));
			idle++;
		}
	uint64_t off = count_changes(&t0, &t2), scratch = count_changes(&t0, &t3);
	fprintf(stderr, "  %s: %llu entries changed (%llu on a lost port, %llu "
		"idle); repair off %llu, from scratch %llu; a2a %.3fx\n", name,
		(unsigned long long)changed, (unsigned long long)broken,
		(unsigned long long)idle, (unsigned long long)off,
		(unsigned long long)scratch, res.a2a_ratio);
	assert_true(changed >= broken);
	/* what had to change, at most what the repair-off route changes;
	 * idle entries re-chosen for moved flow come on top */
	assert_true(changed - idle <= off);
	assert_true(changed * 3 <= scratch);
	lft_free(&t0);
	lft_free(&t1);
	lft_free(&t2);
	lft_free(&t3);
	lft_free(&t4);
	route_memo_free(&m0);
	route_memo_free(&m1);
	fab_free(&f);
}

/* The highest-numbered switch-switch link of switch s (an up-link on the
 * generated trees). */
static void lose_up_link(struct fabric *f, uint32_t s)
{
	const struct fab_node *n = &f->nodes[f->switches[s]];
	for (unsigned p = n->num_ports; p >= 1; p--)
		if (next_sw(f, s, (uint8_t)p) != FAB_NONE) {
			fab_unlink(f, n->first_port + p);
			return;
		}
}

static void lose_first_switch_link(struct fabric *f, uint32_t s)
{
	const struct fab_node *n = &f->nodes[f->switches[s]];
	for (unsigned p = 1; p <= n->num_ports; p++)
		if (next_sw(f, s, (uint8_t)p) != FAB_NONE) {
			fab_unlink(f, n->first_port + p);
			return;
		}
}

/* A switch ordinal at level 1 (a middle switch): the first switch linked
 * to leaf 0 above it. */
static uint32_t a_middle(const struct fabric *f)
{
	for (unsigned p = 1; p <= f->nodes[f->switches[0]].num_ports; p++) {
		uint32_t m = next_sw(f, 0, (uint8_t)p);
		if (m != FAB_NONE)
			return m;
	}
	return FAB_NONE;
}

static void tree_cases(const char *what, unsigned levels, unsigned radix,
		       double remove, uint64_t seed)
{
	struct fabric f0;
	char name[96];
	make_tree(&f0, levels, radix, remove, seed, 0);
	snprintf(name, sizeof(name), "%s, leaf up-link", what);
	repair_case(name, &f0, lose_up_link, 1);
	if (levels == 3) {
		uint32_t m = a_middle(&f0);
		snprintf(name, sizeof(name), "%s, middle up-link", what);
		repair_case(name, &f0, lose_up_link, m);
		snprintf(name, sizeof(name), "%s, middle down-link", what);
		repair_case(name, &f0, lose_first_switch_link, m);
	}
	fab_free(&f0);
}

static void test_intact(void **state)
{
	(void)state;
	tree_cases("ft2 r16", 2, 16, 0, 0);
	tree_cases("ft3 r8", 3, 8, 0, 0);
	tree_cases("ft3 r12", 3, 12, 0, 0);
}

static void test_degraded(void **state)
{
	(void)state;
	tree_cases("ft3 r12 5% seed 3", 3, 12, 0.05, 3);
	tree_cases("ft3 r8 10% seed 2", 3, 8, 0.10, 2);
}

/* Not repairable: the new fabric has a link the previous one lacked. */
static void test_gained_link(void **state)
{
	(void)state;
	struct fabric f0, f;
	struct lft_set t0, t1;
	make_tree(&f, 3, 8, 0, 0, 0);
	assert_int_equal(fab_clone(&f0, &f), 0);
	lose_up_link(&f0, 1);
	route(&f0, NULL, &t0);
	struct route_options o = { .prev = &t0, .prev_fab = &f0 };
	assert_false(route(&f, &o, &t1));
	struct verify_opts vo = { .check_credit_loops = 1 };
	struct verify_result res;
	assert_int_equal(verify_routes(&f, &t1, &vo, &res), 0);
	assert_true(res.ok);
	lft_free(&t0);
	lft_free(&t1);
	fab_free(&f0);
	fab_free(&f);
}

/* LMC 1: the second LID of every CA is repaired as well. */
static void test_lmc(void **state)
{
	(void)state;
	struct fabric f0;
	make_tree(&f0, 3, 8, 0, 0, 1);
	repair_case("ft3 r8 LMC 1, leaf up-link", &f0, lose_up_link, 1);
	fab_free(&f0);
}

int main(void)
{
	log_set_level(LOG_WARN);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_intact),
		cmocka_unit_test(test_degraded),
		cmocka_unit_test(test_gained_link),
		cmocka_unit_test(test_lmc),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
