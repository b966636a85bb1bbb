/* ftree engine: generated fat-trees routed and judged by an evaluator kept
 * here (independent of the engine's own bookkeeping), and by the shared
 * verifier (routing/verify.h) where noted.
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
 *  - the turn check: same verdicts as a plain search over the whole graph,
 *    and the kept order stays topological; threads 1 and 2 give the same
 *    tables, whatever number of targets' setups is prepared ahead; the
 *    second thread's side jobs each run once, taken in the order queued;
 *  - the spill passes' stop once every link is within the cap: the same
 *    tables as whole passes;
 *  - tori, dragonflies and random graphs are refused with a reason. */
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
#include "tests/unit/support.h"

/* ---- fabrics ---- */

static void make_tree(struct fabric *f, unsigned levels, unsigned radix,
		      unsigned oversub, double remove, uint64_t seed, uint8_t lmc)
{
	struct fattree_params p = { levels, radix, oversub, remove, seed, 0 };
	ut_fattree(f, &p, lmc);
}

/* The engine's callbacks run directly (no route_run), tuned (tu NULL:
 * the defaults), the run's counters in *st (optional). */
static int route_ftree_tuned(const struct fabric *f, const struct route_options *opt,
			     const struct ftree_tuning *tu, struct ftree_stats *st,
			     struct lft_set *t, char *why)
{
	struct route_options none = { 0 };
	struct ftree_run_arg arg = { .tuning = tu, .stats = st };
	struct route_ctx ctx = { .fab = f, .opt = opt ? opt : &none, .arg = &arg };
	int r = lft_alloc(t, f->num_switches, fab_max_lid(f));
	if (r)
		return r;
	r = route_ftree.prepare(&ctx);
	if (!r)
		r = route_ftree.route(&ctx, t);
	route_ftree.release(&ctx);
	if (why)
		snprintf(why, 256, "%s", ctx.why);
	if (r)
		lft_free(t);
	return r;
}

static int route_ftree_on(const struct fabric *f, const struct route_options *opt,
			  struct lft_set *t, char *why)
{
	return route_ftree_tuned(f, opt, NULL, NULL, t, why);
}

/* ---- an independent evaluator ---- */

struct eval {
	uint32_t nca;           /* CA ports, node order */
	uint32_t *ca_port;      /* fabric port index of each CA port */
	uint32_t *lvl;          /* per node: switch level (BFS from leaves) */
	uint64_t *load;         /* per fabric port: routes leaving it */
	uint64_t bound;         /* max over leaves of ceil(w (N - w) / up) */
	uint64_t a2a_max;
	uint64_t shift_worst;
	uint32_t shifts_over;   /* shifts above shift_limit */
	uint64_t missing, loops, not_updown;
	uint64_t sw_not_updown; /* CA -> switch LID paths with a down-up turn */
	int credit_loop;        /* CDG of CA -> CA routes has a cycle */
	int credit_loop_sw;     /* ... once CA -> switch-LID routes are added */
	int credit_loop_swsrc;  /* ... and switch -> CA routes (every switch) */
	int credit_loop_full;   /* ... and switch -> switch LIDs: every entry */
	uint64_t *dep;          /* CDG edges (from << 32 | to), growing */
	size_t ndep, capdep;
};

static void eval_init(struct eval *e, const struct fabric *f)
{
	memset(e, 0, sizeof(*e));
	e->ca_port = malloc(f->num_ports * sizeof(uint32_t));
	e->lvl = malloc(f->num_nodes * sizeof(uint32_t));
	e->load = calloc(f->num_ports, sizeof(uint64_t));
	uint32_t *q = malloc(f->num_nodes * sizeof(uint32_t)), h = 0, tl = 0;
	for (uint32_t n = 0; n < f->num_nodes; n++)
		e->lvl[n] = UINT32_MAX;
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		const struct fab_node *nd = &f->nodes[n];
		if (nd->type != FAB_CA)
			continue;
		for (unsigned p = 1; p <= nd->num_ports; p++) {
			uint32_t pi = nd->first_port + p, o = fab_peer_node(f, pi);
			if (o == FAB_NONE)
				continue;
			e->ca_port[e->nca++] = pi;
			if (e->lvl[o] == UINT32_MAX) {
				e->lvl[o] = 0;
				q[tl++] = o;
			}
		}
	}
	uint64_t N = e->nca;
	while (h < tl) {
		uint32_t s = q[h++];
		const struct fab_node *nd = &f->nodes[s];
		uint64_t w = 0, up = 0;
		for (unsigned p = 1; p <= nd->num_ports; p++) {
			uint32_t o = fab_peer_node(f, nd->first_port + p);
			if (o == FAB_NONE)
				continue;
			if (!fab_is_switch(f, o)) {
				w++;
				continue;
			}
			if (e->lvl[o] == UINT32_MAX) {
				e->lvl[o] = e->lvl[s] + 1;
				q[tl++] = o;
			}
			up += e->lvl[o] == e->lvl[s] + 1;
		}
		if (e->lvl[s] == 0 && up) {
			uint64_t b = (w * (N - w) + up - 1) / up;
			if (b > e->bound)
				e->bound = b;
		}
	}
	free(q);
}

static void eval_free(struct eval *e)
{
	free(e->dep);
	free(e->ca_port);
	free(e->lvl);
	free(e->load);
}

/* Walk from switch node sw to LID lid; add 1 to each switch-egress load if
 * `load` is non-NULL. Returns 0 delivered, 1 missing, 2 loop. Sets
 * *updown to 0 if the path goes down then up. Records the links used. */
static int walk_sw(const struct fabric *f, const struct lft_set *t,
		   const struct eval *e, uint32_t sw, uint32_t lid,
		   uint64_t *load, int *updown, uint32_t *used, uint32_t *nused)
{
	int went_down = 0;
	*updown = 1;
	for (unsigned hops = 0; hops < 64; hops++) {
		uint8_t p = lft_get(t, f->nodes[sw].sw_index, lid);
		if (p == LFT_NO_PATH || p > f->nodes[sw].num_ports)
			return 1;
		if (p == 0)
			return f->ports[f->nodes[sw].first_port].lid == lid ? 0 : 1;
		uint32_t pi = fab_port_idx(f, sw, p);
		uint32_t o = fab_peer_node(f, pi);
		if (o == FAB_NONE)
			return 1;
		if (!fab_is_switch(f, o)) {
			const struct fab_port *cp = &f->ports[f->ports[pi].peer];
			return lid >= cp->lid && lid < cp->lid + (1u << cp->lmc) ? 0 : 1;
		}
		if (load)
			load[pi]++;
		if (used)
			used[(*nused)++] = pi;
		if (e->lvl[o] > e->lvl[sw]) {
			if (went_down)
				*updown = 0;
		} else {
			went_down = 1;
		}
		sw = o;
	}
	return 2;
}

static void add_dep(struct eval *e, uint32_t a, uint32_t b);

/* The same from CA port src. */
static int walk(const struct fabric *f, const struct lft_set *t,
		const struct eval *e, uint32_t src, uint32_t lid,
		uint64_t *load, int *updown, uint32_t *used, uint32_t *nused)
{
	return walk_sw(f, t, e, fab_peer_node(f, src), lid, load, updown,
		       used, nused);
}

/* Dependencies of the routes from every switch to the LIDs of endpoints
 * that are CAs (want_ca) or switches (!want_ca). */
static void add_switch_sources(const struct fabric *f, const struct lft_set *t,
			       struct eval *e, const uint32_t *eps, uint32_t nep,
			       int want_ca)
{
	uint32_t used[64];
	for (uint32_t j = 0; j < nep; j++) {
		const struct fab_port *dp = &f->ports[eps[j]];
		if (fab_is_switch(f, dp->node) == want_ca)
			continue;
		for (uint32_t k = 0; k < (1u << dp->lmc); k++)
			for (uint32_t s = 0; s < f->num_switches; s++) {
				int ud;
				uint32_t n = 0;
				if (walk_sw(f, t, e, f->switches[s], dp->lid + k, NULL,
					    &ud, used, &n) == 0)
					for (uint32_t h = 1; h < n; h++)
						add_dep(e, used[h - 1], used[h]);
			}
	}
}

static void add_dep(struct eval *e, uint32_t a, uint32_t b)
{
	if (e->ndep == e->capdep) {
		e->capdep = e->capdep ? 2 * e->capdep : 1 << 16;
		e->dep = realloc(e->dep, e->capdep * sizeof(uint64_t));
	}
	e->dep[e->ndep++] = (uint64_t)a << 32 | b;
}

/* Kahn's algorithm on the deduplicated channel dependency graph. */
static int cdg_has_cycle(struct eval *e, uint32_t nchan)
{
	qsort(e->dep, e->ndep, sizeof(uint64_t), ut_cmp_u64);
	size_t n = 0;
	for (size_t i = 0; i < e->ndep; i++)
		if (!n || e->dep[i] != e->dep[n - 1])
			e->dep[n++] = e->dep[i];
	e->ndep = n;
	uint32_t *indeg = calloc(nchan, sizeof(uint32_t));
	size_t *first = calloc(nchan + 1, sizeof(size_t));
	uint32_t *q = malloc(nchan * sizeof(uint32_t)), h = 0, tl = 0;
	for (size_t i = 0; i < n; i++) {
		indeg[(uint32_t)e->dep[i]]++;
		first[(e->dep[i] >> 32) + 1]++;
	}
	for (uint32_t c = 0; c < nchan; c++)
		first[c + 1] += first[c];
	for (uint32_t c = 0; c < nchan; c++)
		if (!indeg[c])
			q[tl++] = c;
	while (h < tl) {
		uint32_t c = q[h++];
		for (size_t i = first[c]; i < first[c + 1]; i++)
			if (!--indeg[(uint32_t)e->dep[i]])
				q[tl++] = (uint32_t)e->dep[i];
	}
	free(indeg);
	free(first);
	free(q);
	return tl != nchan;
}

static uint64_t max_load(const struct fabric *f, const uint64_t *load)
{
	uint64_t m = 0;
	for (uint32_t p = 0; p < f->num_ports; p++)
		if (load[p] > m)
			m = load[p];
	return m;
}

/* Every CA to every endpoint LID (switches too): complete, loop-free,
 * up-then-down; all-to-all CA base-LID loads; every shift. */
static void evaluate(const struct fabric *f, const struct lft_set *t,
		     struct eval *e, uint64_t shift_limit, int shifts)
{
	uint32_t nep = fab_endpoint_ports(f, NULL);
	uint32_t *eps = malloc(nep * sizeof(*eps));
	fab_endpoint_ports(f, eps);
	uint32_t used[64];
	for (uint32_t i = 0; i < e->nca; i++)
		for (uint32_t j = 0; j < nep; j++) {
			const struct fab_port *dp = &f->ports[eps[j]];
			if (eps[j] == e->ca_port[i])
				continue;
			for (uint32_t k = 0; k < (1u << dp->lmc); k++) {
				int ud, is_ca = !fab_is_switch(f, dp->node);
				uint32_t n = 0;
				int r = walk(f, t, e, e->ca_port[i], dp->lid + k,
					     is_ca && k == 0 ? e->load : NULL, &ud, used, &n);
				e->missing += r == 1;
				e->loops += r == 2;
				if (is_ca)
					e->not_updown += !ud;
				else
					e->sw_not_updown += !ud;
				for (uint32_t h = 1; is_ca && r == 0 && h < n; h++)
					add_dep(e, used[h - 1], used[h]);
			}
		}
	e->credit_loop = cdg_has_cycle(e, f->num_ports);
	/* Then with CA -> switch-LID traffic added (reported, see docs). */
	for (uint32_t i = 0; i < e->nca; i++)
		for (uint32_t j = 0; j < nep; j++) {
			const struct fab_port *dp = &f->ports[eps[j]];
			if (!fab_is_switch(f, dp->node))
				continue;
			int ud;
			uint32_t n = 0;
			if (walk(f, t, e, e->ca_port[i], dp->lid, NULL, &ud, used, &n) == 0)
				for (uint32_t h = 1; h < n; h++)
					add_dep(e, used[h - 1], used[h]);
		}
	e->credit_loop_sw = cdg_has_cycle(e, f->num_ports);
	/* Switches source traffic too (answers to the SM and PMs). */
	add_switch_sources(f, t, e, eps, nep, 1);
	e->credit_loop_swsrc = cdg_has_cycle(e, f->num_ports);
	/* And switch -> switch LIDs: then every entry of every table. */
	add_switch_sources(f, t, e, eps, nep, 0);
	e->credit_loop_full = cdg_has_cycle(e, f->num_ports);
	e->a2a_max = max_load(f, e->load);
	if (getenv("FT_DEBUG"))
		for (uint32_t p = 0; p < f->num_ports; p++)
			if (e->load[p] == e->a2a_max)
				fprintf(stderr, "  max load %llu at %s port %u -> %s\n",
					(unsigned long long)e->a2a_max,
					f->nodes[f->ports[p].node].desc, f->ports[p].num,
					f->nodes[fab_peer_node(f, p)].desc);
	uint64_t *sl = calloc(f->num_ports, sizeof(uint64_t));
	for (uint32_t s = 1; shifts && s < e->nca; s++) {
		memset(sl, 0, f->num_ports * sizeof(uint64_t));
		for (uint32_t i = 0; i < e->nca; i++) {
			int ud;
			uint32_t d = e->ca_port[(i + s) % e->nca];
			walk(f, t, e, e->ca_port[i], f->ports[d].lid, sl, &ud, NULL, NULL);
		}
		uint64_t m = max_load(f, sl);
		if (m > e->shift_worst)
			e->shift_worst = m;
		e->shifts_over += m > shift_limit;
	}
	free(sl);
	free(eps);
}

/* The shared verifier, with CA -> switch-LID routes in its CDG. */
static void check_verifier(const struct fabric *f, const struct lft_set *t,
			   double max_ratio)
{
	struct verify_opts vo = { .check_credit_loops = 1, .link_load = 1,
				  .cdg_switch_lids = 1 };
	struct verify_result res;
	assert_int_equal(verify_routes(f, t, &vo, &res), 0);
	if (!res.ok)
		fprintf(stderr, "verifier: %s\n", res.first_error);
	assert_true(res.ok);
	assert_int_equal(res.credit_loop, 0);
	assert_int_equal(res.missing_entries, 0);
	assert_int_equal(res.pairs_unreachable, 0);
	assert_int_equal(res.pairs_looping, 0);
	fprintf(stderr, "  verifier: a2a %llu / bound %.1f = %.3fx\n",
		(unsigned long long)res.a2a_max_link_load, res.a2a_lower_bound,
		res.a2a_ratio);
	assert_true(res.a2a_ratio <= max_ratio + 1e-9);
}

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

/* Routes from CAs to every LID, switch LIDs included, and from every
 * switch to every LID must be credit-loop free on one VL. f (with LIDs)
 * is routed, judged and freed; updown: every CA -> CA path must be
 * up*-then-down*. */
static double judge_tree(struct fabric *f, const char *name, int updown,
			 double max_ratio, const struct ftree_tuning *tu)
{
	struct lft_set t;
	struct eval e;
	assert_int_equal(route_ftree_tuned(f, NULL, tu, NULL, &t, NULL), 0);
	eval_init(&e, f);
	evaluate(f, &t, &e, 1, 0);
	double ratio = (double)e.a2a_max / (double)e.bound;
	fprintf(stderr, "  %s: a2a %llu bound %llu = %.3fx; %llu CA-to-switch-LID "
		"paths turn down-up; CDG with switch LIDs %s, with switch sources "
		"%s, whole tables %s\n", name,
		(unsigned long long)e.a2a_max, (unsigned long long)e.bound, ratio,
		(unsigned long long)e.sw_not_updown,
		e.credit_loop_sw ? "CYCLE" : "acyclic",
		e.credit_loop_swsrc ? "CYCLE" : "acyclic",
		e.credit_loop_full ? "CYCLE" : "acyclic");
	assert_int_equal(e.missing, 0);
	assert_int_equal(e.loops, 0);
	/* At 10% some leaf pairs share no ancestor: those CA -> CA routes
	 * are detours too, checked like the others. */
	if (e.not_updown)
		fprintf(stderr, "  (%llu CA-to-CA paths turn down-up)\n",
			(unsigned long long)e.not_updown);
	if (updown)
		assert_int_equal(e.not_updown, 0);
	assert_int_equal(e.credit_loop, 0);
	assert_int_equal(e.credit_loop_sw, 0);
	assert_int_equal(e.credit_loop_swsrc, 0);
	assert_int_equal(e.credit_loop_full, 0);
	assert_true(ratio <= max_ratio);
	check_verifier(f, &t, max_ratio);
	eval_free(&e);
	lft_free(&t);
	fab_free(f);
	return ratio;
}

static double degraded_tuned(unsigned levels, unsigned radix, double remove,
			     uint64_t seed, double max_ratio,
			     const struct ftree_tuning *tu)
{
	struct fabric f;
	char name[96];
	make_tree(&f, levels, radix, 1, remove, seed, 0);
	snprintf(name, sizeof(name), "ft%u radix %u %.0f%% removed seed %llu",
		 levels, radix, remove * 100, (unsigned long long)seed);
	return judge_tree(&f, name, remove <= 0.05, max_ratio, tu);
}

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
