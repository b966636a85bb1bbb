/* ftree engine internals (the trees and the evaluator: ftree_eval.c):
 *  - the turn check: same verdicts as a plain search over the whole graph,
 *    and the kept order stays topological; threads 1 and 2 give the same
 *    tables, whatever number of targets' setups is prepared ahead; the
 *    second thread's side jobs each run once, taken in the order queued;
 *  - the spill passes' stop once every link is within the cap: the same
 *    tables as whole passes;
 *  - the closed form, the non-good search, wide updates and the 32-bit
 *    up-link fallback agree with the general passes. */
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

/* ---- the turn check and its order ---- */

/* The checked graph's successors of channel e, written out plainly. */
static uint32_t ref_successors(const struct ft_turns *tu, uint32_t e,
			       uint32_t *out)
{
	const struct ftree *t = tu->t;
	const struct fabric *f = t->fab;
	uint32_t a = f->nodes[f->ports[e].node].sw_index, b = t->peer_sw[e], n = 0;
	uint8_t in = f->ports[f->ports[e].peer].num;
	if (t->level[b] > t->level[a]) {
		for (uint32_t k = t->up_off[b]; k < t->up_off[b + 1]; k++)
			out[n++] = t->up[k].egress;
		for (uint32_t k = t->dn_off[b]; k < t->dn_off[b + 1]; k++)
			if (t->dn[k].peer != a)
				out[n++] = t->dn[k].egress;
		return n;
	}
	for (uint32_t k = t->dn_off[b]; k < t->dn_off[b + 1]; k++)
		out[n++] = t->dn[k].egress;
	for (uint32_t k = t->up_off[b]; k < t->up_off[b + 1]; k++)
		if (ft_turn_is_taken(tu, b, in, t->up[k].port))
			out[n++] = t->up[k].egress;
	return n;
}

static int ref_reaches(const struct ft_turns *tu, uint32_t from, uint32_t to,
		       uint8_t *mark, uint32_t *stack, uint32_t nports)
{
	uint32_t top = 0, succ[256];
	memset(mark, 0, nports + 1);
	mark[from] = 1;
	stack[top++] = from;
	while (top) {
		uint32_t e = stack[--top];
		if (e == to)
			return 1;
		uint32_t n = ref_successors(tu, e, succ);
		for (uint32_t i = 0; i < n; i++)
			if (!mark[succ[i]]) {
				mark[succ[i]] = 1;
				stack[top++] = succ[i];
			}
	}
	return 0;
}

/* Every edge of the checked graph goes forward in the kept order. */
static void assert_order_topological(const struct ft_turns *tu)
{
	const struct ftree *t = tu->t;
	uint32_t succ[256];
	for (uint32_t s = 0; s < t->nsw; s++)
		for (int dir = 0; dir < 2; dir++) {
			const struct ft_link *L = dir ? t->dn : t->up;
			const uint32_t *off = dir ? t->dn_off : t->up_off;
			for (uint32_t k = off[s]; k < off[s + 1]; k++) {
				uint32_t e = L[k].egress;
				uint32_t n = ref_successors(tu, e, succ);
				for (uint32_t i = 0; i < n; i++)
					assert_true(cdg_before(&tu->cdg, 0, e, succ[i]));
			}
		}
}

/* Random down->up turns offered one by one: each is taken exactly when a
 * plain search finds no path back, and the order stays topological. */
static void turns_case(unsigned levels, unsigned radix, double remove,
		       uint64_t seed, unsigned tries, unsigned gap_bits)
{
	struct fabric f;
	struct ftree t;
	struct ft_turns tu;
	char why[256];
	make_tree(&f, levels, radix, 1, remove, seed, 0);
	assert_int_equal(ft_build(&t, &f, NULL, why), 0);
	struct ftree_tuning tune = ftree_tuning_default;
	tune.order_gap_bits = gap_bits;
	t.tune = &tune;
	assert_int_equal(ft_turns_init(&tu, &t), 0);
	uint8_t *mark = malloc(f.num_ports + 1);
	uint32_t *stack = malloc((f.num_ports + 1) * sizeof(uint32_t));
	assert_non_null(mark);
	assert_non_null(stack);
	uint64_t x = seed * 0x9E3779B97F4A7C15ULL + 1, taken = 0;
	for (unsigned i = 0; i < tries; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		uint32_t y = (uint32_t)(x % t.nsw);
		uint32_t nup = t.up_off[y + 1] - t.up_off[y];
		if (nup < 2)
			continue;
		const struct ft_link *from = &t.up[t.up_off[y] + (x >> 20) % nup];
		const struct ft_link *to = &t.up[t.up_off[y] + (x >> 40) % nup];
		if (from == to)
			continue;
		uint32_t d = f.ports[t.fport[y] + from->port].peer;
		uint32_t u = t.fport[y] + to->port;
		int cycle = ref_reaches(&tu, u, d, mark, stack, f.num_ports);
		int was = ft_turn_is_taken(&tu, y, from->port, to->port);
		int ok = ft_turn_take(&tu, y, from->port, to->port);
		assert_int_equal(ok, was || !cycle);
		taken += ok && !was;
		if (i % 64 == 0)
			assert_order_topological(&tu);
	}
	assert_order_topological(&tu);
	fprintf(stderr, "  ft%u radix %u %.0f%% removed: %llu of %u turns taken, "
		"%llu refused (%llu by a short cycle through a taken turn), "
		"%llu searches\n", levels, radix, remove * 100,
		(unsigned long long)taken, tries, (unsigned long long)tu.refused,
		(unsigned long long)tu.wit.found, (unsigned long long)tu.cdg.searches);
	assert_true(taken > 0 && tu.refused > 0);
	/* 3-level trees: the witness index decides some refusals itself
	 * (and each one was checked against the plain search above). */
	if (levels == 3)
		assert_true(tu.wit.found > 0);
	free(mark);
	free(stack);
	ft_turns_free(&tu);
	ft_free(&t);
	fab_free(&f);
}

static void test_turn_order(void **state)
{
	(void)state;
	unsigned gap = ftree_tuning_default.order_gap_bits;
	turns_case(2, 8, 0, 0, 400, gap);
	turns_case(3, 8, 0, 0, 2000, gap);
	turns_case(3, 8, 0.10, 2, 2000, gap);
	turns_case(3, 12, 0.05, 1, 3000, gap);
	/* Labels two apart: nearly every reorder runs out of room and
	 * relabels the whole order. */
	turns_case(3, 8, 0.10, 2, 2000, 1);
	turns_case(3, 12, 0.05, 1, 3000, 1);
}

/* The witness index (ftree_witness.c) only spares searches: the tables
 * are the same bytes with the search deciding every turn alone. */
static void witness_case(unsigned levels, unsigned radix, double remove,
			 uint64_t seed)
{
	struct fabric f;
	struct lft_set a, b;
	make_tree(&f, levels, radix, 1, remove, seed, 0);
	struct ftree_tuning off = ftree_tuning_default;
	off.witness = 0;
	assert_int_equal(route_ftree_tuned(&f, NULL, &off, NULL, &a, NULL), 0);
	assert_int_equal(route_ftree_on(&f, NULL, &b, NULL), 0);
	assert_int_equal(a.stride, b.stride);
	assert_memory_equal(a.port, b.port, (size_t)a.stride * a.num_switches);
	lft_free(&a);
	lft_free(&b);
	fab_free(&f);
}

static void test_witness(void **state)
{
	(void)state;
	witness_case(3, 12, 0.05, 7);
	witness_case(3, 16, 0.05, 2);
	witness_case(3, 8, 0.10, 5);
	witness_case(2, 16, 0.10, 1);
}

/* ---- threads ---- */

static void threads_case(unsigned levels, unsigned radix, double remove,
			 uint64_t seed, uint8_t lmc)
{
	struct fabric f;
	struct lft_set a, b;
	make_tree(&f, levels, radix, 1, remove, seed, lmc);
	struct route_options o1 = { .lmc = lmc, .threads = 1 };
	struct route_options o2 = { .lmc = lmc, .threads = 2 };
	assert_int_equal(route_ftree_on(&f, &o1, &a, NULL), 0);
	assert_int_equal(route_ftree_on(&f, &o2, &b, NULL), 0);
	assert_int_equal(a.num_switches, b.num_switches);
	assert_int_equal(a.stride, b.stride);
	assert_memory_equal(a.port, b.port, (size_t)a.stride * a.num_switches);
	lft_free(&a);
	lft_free(&b);
	fab_free(&f);
}

/* The second thread only writes what the first decided: same bytes. */
static void test_threads(void **state)
{
	(void)state;
	threads_case(2, 16, 0, 0, 0);
	threads_case(3, 8, 0, 0, 1);
	threads_case(3, 12, 0.05, 2, 0);
	threads_case(3, 8, 0.10, 1, 0);
}

/* Switch LIDs between the compute-node targets (on degraded trees from
 * ftree_tuning.interleave_min table entries; lowered here): the same bytes with 1
 * and 2 threads, every entry of every table still credit-loop free on
 * one VL, and the compute-node routes as balanced as in the default
 * order (switch LIDs carry no load); only detour entries change. */
static void interleave_case(unsigned levels, unsigned radix, double remove,
			    uint64_t seed, uint8_t lmc)
{
	struct fabric f;
	struct lft_set def, a, b;
	struct eval e0, e;
	make_tree(&f, levels, radix, 1, remove, seed, lmc);
	struct route_options o1 = { .lmc = lmc, .threads = 1 };
	struct route_options o2 = { .lmc = lmc, .threads = 2 };
	assert_int_equal(route_ftree_on(&f, &o1, &def, NULL), 0);
	struct ftree_tuning ilv = ftree_tuning_default;
	ilv.interleave_min = 0;
	assert_int_equal(route_ftree_tuned(&f, &o1, &ilv, NULL, &a, NULL), 0);
	assert_int_equal(route_ftree_tuned(&f, &o2, &ilv, NULL, &b, NULL), 0);
	assert_int_equal(a.stride, b.stride);
	assert_memory_equal(a.port, b.port, (size_t)a.stride * a.num_switches);
	/* the order did change something (the detours) */
	assert_true(memcmp(a.port, def.port, (size_t)a.stride * a.num_switches));
	eval_init(&e0, &f);
	evaluate(&f, &def, &e0, 1, 0);
	eval_init(&e, &f);
	evaluate(&f, &a, &e, 1, 0);
	fprintf(stderr, "  ft%u radix %u %.0f%% removed seed %llu, switch LIDs "
		"interleaved, LMC %u: a2a %llu (default order %llu), whole tables %s\n",
		levels, radix, remove * 100, (unsigned long long)seed, lmc,
		(unsigned long long)e.a2a_max, (unsigned long long)e0.a2a_max,
		e.credit_loop_full ? "CYCLE" : "acyclic");
	assert_int_equal(e.missing, 0);
	assert_int_equal(e.loops, 0);
	assert_int_equal(e.a2a_max, e0.a2a_max);
	assert_int_equal(e.credit_loop, 0);
	assert_int_equal(e.credit_loop_full, 0);
	eval_free(&e0);
	eval_free(&e);
	lft_free(&def);
	lft_free(&a);
	lft_free(&b);
	fab_free(&f);
}

static void test_interleave(void **state)
{
	(void)state;
	interleave_case(3, 12, 0.05, 2, 0);
	interleave_case(3, 8, 0.10, 1, 0);
	interleave_case(2, 16, 0.05, 3, 0);
	interleave_case(3, 8, 0.05, 1, 1);
}

/* The targets' setups prepared ahead (a ring of setup_depth contexts,
 * queued on the second thread): the same bytes as one thread, whatever
 * the depth (0 and too large are clamped to 1 and FT_SIDE_MAX), with the
 * switch LIDs interleaved (every setup queued) and in the default order
 * (compute-node targets' setups only). */
static void setup_ahead_case(unsigned levels, unsigned radix, double remove,
			     uint64_t seed, uint8_t lmc, int ilv)
{
	static const unsigned depth[] = { 0, 1, 2, 3, 5, 8, FT_SIDE_MAX,
					  FT_SIDE_MAX + 3 };
	struct fabric f;
	struct lft_set a, b;
	make_tree(&f, levels, radix, 1, remove, seed, lmc);
	struct route_options o1 = { .lmc = lmc, .threads = 1 };
	struct route_options o2 = { .lmc = lmc, .threads = 2 };
	struct ftree_tuning tune = ftree_tuning_default;
	if (ilv)
		tune.interleave_min = 0;
	assert_int_equal(route_ftree_tuned(&f, &o1, &tune, NULL, &a, NULL), 0);
	for (size_t i = 0; i < sizeof(depth) / sizeof(depth[0]); i++) {
		tune.setup_depth = depth[i];
		assert_int_equal(route_ftree_tuned(&f, &o2, &tune, NULL, &b, NULL), 0);
		assert_int_equal(a.stride, b.stride);
		assert_memory_equal(a.port, b.port,
				    (size_t)a.stride * a.num_switches);
		lft_free(&b);
	}
	lft_free(&a);
	fab_free(&f);
}

static void test_setup_ahead(void **state)
{
	(void)state;
	setup_ahead_case(3, 12, 0.05, 2, 0, 1);
	setup_ahead_case(3, 8, 0.10, 1, 1, 1);
	setup_ahead_case(2, 16, 0.05, 3, 0, 1);
	setup_ahead_case(3, 12, 0.05, 2, 0, 0);
}

/* The writer's side jobs: each runs once, and ft_writer_side_wait
 * returns once the oldest queued is done (the writer's or its own run),
 * in the order queued; the queue refills while older jobs wait. */
struct side_probe {
	int ran;                /* times run */
	unsigned spin;          /* work, so that some are still running */
	volatile unsigned sink;
};

static void side_probe_run(void *arg)
{
	struct side_probe *p = arg;
	for (unsigned i = 0; i < p->spin; i++)
		p->sink += i;
	__atomic_fetch_add(&p->ran, 1, __ATOMIC_RELEASE);
}

static void side_queue_case(unsigned threads)
{
	struct ftree t;
	struct lft_set l;
	struct ft_writer wr;
	enum { N = 200 };
	static struct side_probe p[N];
	memset(&t, 0, sizeof(t));
	memset(p, 0, sizeof(p));
	t.nsw = 2;
	assert_int_equal(lft_alloc(&l, 2, 64), 0);
	assert_int_equal(ft_writer_init(&wr, &t, &l, threads), 0);
	uint32_t queued = 0, taken = 0, ahead = 1;
	while (taken < N) {
		while (queued < N && queued - taken < ahead) {
			p[queued].spin = (queued * 7919u) % 5 * 20000u;
			assert_int_equal(ft_writer_side(&wr, side_probe_run,
							&p[queued++]), 0);
		}
		ft_writer_side_wait(&wr);
		assert_int_equal(__atomic_load_n(&p[taken].ran, __ATOMIC_ACQUIRE), 1);
		taken++;
		ahead = 1 + taken % FT_SIDE_MAX;        /* 1 .. FT_SIDE_MAX */
	}
	ft_writer_side_wait(&wr);               /* none left: returns */
	/* left queued at the end: finish runs or waits for them */
	for (uint32_t i = 0; i < FT_SIDE_MAX; i++) {
		p[i].ran = 0;
		assert_int_equal(ft_writer_side(&wr, side_probe_run, &p[i]), 0);
	}
	/* full: refused with two threads (nothing queued), run with one */
	struct side_probe extra = { 0 };
	assert_int_equal(ft_writer_side(&wr, side_probe_run, &extra),
			 wr.threaded ? -EBUSY : 0);
	assert_int_equal(extra.ran, wr.threaded ? 0 : 1);
	ft_writer_finish(&wr);
	for (uint32_t i = 0; i < FT_SIDE_MAX; i++)
		assert_int_equal(p[i].ran, 1);
	for (uint32_t i = FT_SIDE_MAX; i < N; i++)
		assert_int_equal(p[i].ran, 1);
	lft_free(&l);
}

static void test_side_queue(void **state)
{
	(void)state;
	side_queue_case(1);
	side_queue_case(2);
}

/* The non-good switches' search from their own side (ng_rounds
 * distances, then the plain search) gives the same distances, next hops
 * and order as the plain breadth-first search from the good set: the
 * same bytes, on degraded trees (switch LIDs interleaved too, where the
 * non-good sets are largest) and intact ones. */
static void nongood_case(unsigned levels, unsigned radix, double remove,
			 uint64_t seed, uint64_t ilv_min)
{
	struct fabric f;
	struct lft_set ref, a;
	make_tree(&f, levels, radix, 1, remove, seed, 0);
	struct route_options o = { .threads = 2 };
	struct ftree_tuning tune = ftree_tuning_default;
	tune.interleave_min = ilv_min;
	tune.ng_rounds = 0;
	assert_int_equal(route_ftree_tuned(&f, &o, &tune, NULL, &ref, NULL), 0);
	for (unsigned r = 1; r <= 4; r += 3) {
		tune.ng_rounds = r;
		assert_int_equal(route_ftree_tuned(&f, &o, &tune, NULL, &a, NULL), 0);
		assert_int_equal(a.stride, ref.stride);
		assert_memory_equal(a.port, ref.port,
				    (size_t)a.stride * a.num_switches);
		lft_free(&a);
	}
	lft_free(&ref);
	fab_free(&f);
}

static void test_nongood_search(void **state)
{
	(void)state;
	nongood_case(3, 12, 0.05, 2, 0);
	nongood_case(3, 12, 0.05, 7, ftree_tuning_default.interleave_min);
	nongood_case(3, 8, 0.10, 1, 0);
	nongood_case(3, 8, 0.10, 2, ftree_tuning_default.interleave_min);
	nongood_case(2, 16, 0.05, 3, 0);
	nongood_case(3, 16, 0.05, 1, 0);
	nongood_case(3, 16, 0.05, 2, ftree_tuning_default.interleave_min);
	nongood_case(3, 8, 0, 0, 0);
}

/* Later split chains update only the widest paths their bookings
 * changed, and the waiting leaves come from the target's good leaves
 * less those the first chain routed (ftree_split.c): the same chains, so
 * the same bytes, as computing every widest path again for each chain
 * and looking at every leaf after the first (ftree_tuning.split_ref); and the
 * updates did happen (these trees need later chains). */
static void wide_case(unsigned levels, unsigned radix, double remove,
		      uint64_t seed, uint8_t lmc)
{
	struct fabric f;
	struct lft_set ref, a;
	make_tree(&f, levels, radix, 1, remove, seed, lmc);
	struct route_options o = { .lmc = lmc, .threads = 2 };
	struct ftree_tuning reft = ftree_tuning_default;
	reft.split_ref = 1;
	struct ftree_stats st = { .wide_updates = 1 };  /* zeroed by the run */
	assert_int_equal(route_ftree_tuned(&f, &o, &reft, &st, &ref, NULL), 0);
	assert_true(st.wide_updates == 0);
	assert_int_equal(route_ftree_tuned(&f, &o, NULL, &st, &a, NULL), 0);
	fprintf(stderr, "  ft%u radix %u %.0f%% removed seed %llu: %llu widest-path "
		"updates\n", levels, radix, remove * 100, (unsigned long long)seed,
		(unsigned long long)st.wide_updates);
	assert_true(st.wide_updates > 0);
	assert_int_equal(a.stride, ref.stride);
	assert_memory_equal(a.port, ref.port, (size_t)a.stride * a.num_switches);
	lft_free(&ref);
	lft_free(&a);
	fab_free(&f);
}

static void test_wide_update(void **state)
{
	(void)state;
	wide_case(3, 12, 0.05, 7, 0);
	wide_case(3, 16, 0.05, 2, 0);
	wide_case(3, 8, 0.10, 2, 0);
	wide_case(2, 16, 0.05, 5, 0);
	wide_case(3, 12, 0.05, 1, 1);
	/* Heavily degraded: the targets' good leaves and candidates differ
	 * from one target to the next, so the per-target caches (gl_bits,
	 * rc/cown; keyed by the target's switch) must be rebuilt for each;
	 * kept from another target, these trees route otherwise. */
	wide_case(3, 6, 0.15, 2, 0);
	wide_case(3, 6, 0.15, 3, 0);
	wide_case(3, 8, 0.35, 1, 0);
}

/* Split trees keep link loads in 32 bits, in range up to
 * FT_UL32_MAX_WEIGHT compute nodes (ftree.h); a bigger tree does not
 * split. Lowered below this tree's weight, the fallback routes it
 * without split chains: other tables (so it was taken), still complete,
 * loop- and credit-loop-free and within the balance bound; set back, the
 * split tables again. */
static void test_ul32_fallback(void **state)
{
	(void)state;
	struct fabric f;
	struct lft_set split, off, again;
	make_tree(&f, 3, 12, 1, 0.05, 7, 0);
	assert_int_equal(route_ftree_on(&f, NULL, &split, NULL), 0);
	assert_int_equal(ftree_tuning_default.ul32_max_weight, FT_UL32_MAX_WEIGHT);
	struct ftree_tuning low = ftree_tuning_default;
	low.ul32_max_weight = 1;
	assert_int_equal(route_ftree_tuned(&f, NULL, &low, NULL, &off, NULL), 0);
	degraded_tuned(3, 12, 0.05, 7, 1.1, &low);
	assert_int_equal(route_ftree_on(&f, NULL, &again, NULL), 0);
	assert_int_equal(off.stride, split.stride);
	assert_true(memcmp(off.port, split.port,
			   (size_t)split.stride * split.num_switches) != 0);
	assert_memory_equal(again.port, split.port,
			    (size_t)split.stride * split.num_switches);
	lft_free(&split);
	lft_free(&off);
	lft_free(&again);
	fab_free(&f);
}

/* The spill passes stop once no entry's link is above the cap
 * (ftree_degraded.c): the same bytes as whole passes, on degraded trees
 * where the stop is taken (3 levels: the pass above the leaves too). */
static void spill_stop_case(unsigned levels, unsigned radix, double remove,
			    uint64_t seed, unsigned threads)
{
	struct fabric f;
	struct lft_set ref, a;
	make_tree(&f, levels, radix, 1, remove, seed, 0);
	struct route_options o = { .threads = threads };
	struct ftree_tuning full = ftree_tuning_default;
	full.spill_full = 1;
	struct ftree_stats st;
	assert_int_equal(route_ftree_tuned(&f, &o, &full, &st, &ref, NULL), 0);
	assert_true(st.spill_cut == 0);
	assert_int_equal(route_ftree_tuned(&f, &o, NULL, &st, &a, NULL), 0);
	fprintf(stderr, "  ft%u radix %u %.0f%% removed seed %llu: %llu spill "
		"passes cut short\n", levels, radix, remove * 100,
		(unsigned long long)seed, (unsigned long long)st.spill_cut);
	assert_true(st.spill_cut > 0);
	assert_int_equal(a.stride, ref.stride);
	assert_int_equal(a.num_switches, ref.num_switches);
	assert_memory_equal(a.port, ref.port,
			    (size_t)a.stride * a.num_switches);
	lft_free(&a);
	lft_free(&ref);
	fab_free(&f);
}

static void test_spill_stop(void **state)
{
	(void)state;
	spill_stop_case(3, 12, 0.05, 1, 1);
	spill_stop_case(3, 12, 0.05, 2, 2);
	spill_stop_case(3, 16, 0.05, 1, 1);
	spill_stop_case(3, 16, 0.05, 2, 2);
	spill_stop_case(3, 12, 0.05, 7, 1);
	spill_stop_case(3, 8, 0.10, 5, 1);
}

/* Closed form (ftree_closed.c) against the load-aware assignment: on an
 * intact tree the same bytes, whatever the thread count; elsewhere it
 * stands aside. */
/* ftree takes its tables as they come (route_ctx.tables_any): it writes
 * every entry of the LIDs it routes and resets the rest (ft_repair_reset),
 * so a spare full of garbage gives the same bytes as tables filled with
 * LFT_NO_PATH and the local entries first (what route_run did before).
 * The trees have LIDs ftree does not route: 0, the last block's tail,
 * and with LMC the gaps its alignment leaves after switch LIDs. */
static void tables_any_case(unsigned levels, unsigned radix, double remove,
			    uint8_t lmc, int by_holes)
{
	struct fabric f;
	make_tree(&f, levels, radix, 1, remove, 3, lmc);
	struct lft_set ref, spare, out;
	struct route_options o = { .lmc = lmc, .threads = 2 };
	assert_int_equal(lft_alloc(&ref, f.num_switches, fab_max_lid(&f)), 0);
	lft_fill_local(&f, &ref);
	struct route_ctx ctx = { .fab = &f, .opt = &o };
	assert_int_equal(route_ftree.prepare(&ctx), 0);
	assert_true(ctx.tables_any);
	assert_int_equal(route_ftree.route(&ctx, &ref), 0);
	route_ftree.release(&ctx);
	/* LIDs no entry of any row leads anywhere: ftree routed none of them */
	uint32_t unrouted = 0;
	for (uint32_t l = 0; l < ref.stride; l++) {
		int any = 0;
		for (uint32_t s = 0; !any && s < ref.num_switches; s++)
			any = lft_row(&ref, s)[l] != LFT_NO_PATH;
		unrouted += !any;
	}
	assert_true(unrouted > (lmc ? 8u : 1u));
	assert_int_equal(lft_alloc(&spare, f.num_switches, fab_max_lid(&f)), 0);
	memset(spare.port, 0x5a, (size_t)spare.stride * spare.num_switches);
	spare.clean = 0;
	o.spare = &spare;
	char why[256];
	struct ftree_stats st;
	assert_int_equal(ftree_run(&f, &o, NULL, &st, &out, why), 0);
	/* few unrouted LIDs: those alone are written (else the whole fill) */
	assert_int_equal(st.reset_by_holes, (unsigned)by_holes);
	assert_null(spare.port);        /* taken */
	assert_int_equal(out.stride, ref.stride);
	assert_memory_equal(out.port, ref.port, (size_t)ref.stride * ref.num_switches);
	fprintf(stderr, "  ft%u radix %u %.0f%% removed LMC %u: %u LIDs unrouted, "
		"same bytes from a garbage spare\n", levels, radix, remove * 100,
		lmc, unrouted);
	lft_free(&out);
	lft_free(&ref);
	fab_free(&f);
}

static void test_tables_any(void **state)
{
	(void)state;
	tables_any_case(2, 8, 0, 0, 0);
	tables_any_case(3, 8, 0.05, 0, 0);
	tables_any_case(3, 16, 0, 0, 1);
	tables_any_case(3, 16, 0.05, 0, 1);
	tables_any_case(3, 16, 0.05, 1, 1);
	tables_any_case(2, 16, 0, 2, 0);
}

static void closed_case(unsigned levels, unsigned radix, unsigned oversub,
			unsigned hcas, int shuffle, double remove, uint8_t lmc,
			int expect_taken)
{
	struct fabric f;
	struct fattree_params p = { levels, radix, oversub, remove, 7, hcas, shuffle };
	ut_fattree(&f, &p, lmc);
	struct lft_set ref, fast;
	struct route_options o1 = { .lmc = lmc, .threads = 1 };
	struct ftree_tuning off = ftree_tuning_default;
	off.closed = 0;
	struct ftree_stats st;
	assert_int_equal(route_ftree_tuned(&f, &o1, &off, &st, &ref, NULL), 0);
	assert_false(st.closed_taken);
	for (unsigned th = 1; th <= 3; th++) {
		struct route_options o = { .lmc = lmc, .threads = th };
		assert_int_equal(route_ftree_tuned(&f, &o, NULL, &st, &fast, NULL), 0);
		assert_int_equal(st.closed_taken, expect_taken);
		assert_int_equal(fast.stride, ref.stride);
		assert_memory_equal(fast.port, ref.port, (size_t)ref.stride * ref.num_switches);
		lft_free(&fast);
	}
	lft_free(&ref);
	fab_free(&f);
}

static void test_closed_form(void **state)
{
	(void)state;
	closed_case(2, 4, 1, 0, 0, 0, 0, 1);
	closed_case(2, 16, 1, 0, 1, 0, 0, 1);
	closed_case(2, 16, 3, 0, 0, 0, 0, 1);
	closed_case(2, 36, 1, 0, 0, 0, 0, 1);
	closed_case(3, 8, 1, 0, 0, 0, 0, 1);
	closed_case(3, 12, 1, 0, 1, 0, 0, 1);
	closed_case(3, 8, 3, 0, 1, 0, 0, 1);
	closed_case(3, 16, 1, 0, 0, 0, 0, 1);
	/* not intact: degraded, partly populated leaves, LMC */
	closed_case(3, 8, 1, 0, 0, 0.05, 0, 0);
	closed_case(3, 8, 1, 100, 0, 0, 0, 0);
	closed_case(3, 8, 1, 0, 0, 0, 1, 0);
	closed_case(2, 8, 1, 0, 0, 0, 2, 0);
}

int main(void)
{
	log_set_level(getenv("FT_DEBUG") ? LOG_INFO : LOG_WARN);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_turn_order),
		cmocka_unit_test(test_witness),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_interleave),
		cmocka_unit_test(test_setup_ahead),
		cmocka_unit_test(test_side_queue),
		cmocka_unit_test(test_nongood_search),
		cmocka_unit_test(test_wide_update),
		cmocka_unit_test(test_closed_form),
		cmocka_unit_test(test_spill_stop),
		cmocka_unit_test(test_ul32_fallback),
		cmocka_unit_test(test_tables_any),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
