/* The fat-tree tests' fabrics, their independent evaluator and the
 * shared verifier's check (test_ftree.c, test_ftree_turns.c): see
 * ftree_eval.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fabric.h"
#include "routing/engine.h"
#include "routing/ftree/ftree.h"
#include "routing/lft.h"
#include "routing/verify.h"
#include "topogen/topo_gen.h"
#include "tests/unit/ftree_eval.h"
#include "tests/unit/support.h"

/* ---- fabrics ---- */

void make_tree(struct fabric *f, unsigned levels, unsigned radix,
	       unsigned oversub, double remove, uint64_t seed, uint8_t lmc)
{
	struct fattree_params p = { levels, radix, oversub, remove, seed, 0 };
	ut_fattree(f, &p, lmc);
}

int route_ftree_tuned(const struct fabric *f, const struct route_options *opt,
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

int route_ftree_on(const struct fabric *f, const struct route_options *opt,
		   struct lft_set *t, char *why)
{
	return route_ftree_tuned(f, opt, NULL, NULL, t, why);
}

/* ---- an independent evaluator ---- */

void eval_init(struct eval *e, const struct fabric *f)
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

void eval_free(struct eval *e)
{
	free(e->dep);
	free(e->ca_port);
	free(e->lvl);
	free(e->load);
}

int walk_sw(const struct fabric *f, const struct lft_set *t,
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

void evaluate(const struct fabric *f, const struct lft_set *t,
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

void check_verifier(const struct fabric *f, const struct lft_set *t,
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

double judge_tree(struct fabric *f, const char *name, int updown,
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

double degraded_tuned(unsigned levels, unsigned radix, double remove,
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
