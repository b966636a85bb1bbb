/* Routing engines: registry, fallback lists, dlopen'ed engines, and the
 * properties minhop and updn promise, on hand-built and generated fabrics:
 * every LID routed from every switch and reached by following the tables,
 * minhop paths minimal and balanced, updn free of credit loops (the channel
 * dependency graph is checked here directly), LMC aliases spread. */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/fabric.h"
#include "core/lid_assign.h"
#include "core/log.h"
#include "routing/engine.h"
#include "routing/engine_internal.h"
#include "routing/lft.h"
#include "routing/verify.h"
#include "topogen/topo_gen.h"
#include "tests/unit/support.h"

/* ---- checking helpers ------------------------------------------------ */

struct lid_dest {
	uint32_t *sw;           /* per LID: switch ordinal it hangs off / is */
	uint32_t *port;         /* per LID: owning fabric port index */
	uint32_t max_lid;
};

static void lid_dest_build(const struct fabric *f, struct lid_dest *ld)
{
	ld->max_lid = fab_max_lid(f);
	ld->sw = malloc((ld->max_lid + 1) * sizeof(uint32_t));
	ld->port = malloc((ld->max_lid + 1) * sizeof(uint32_t));
	for (uint32_t l = 0; l <= ld->max_lid; l++)
		ld->sw[l] = ld->port[l] = FAB_NONE;
	uint32_t n = fab_endpoint_ports(f, NULL);
	uint32_t *ep = malloc((n + 1) * sizeof(uint32_t));
	fab_endpoint_ports(f, ep);
	for (uint32_t i = 0; i < n; i++) {
		const struct fab_port *p = &f->ports[ep[i]];
		uint32_t s = fab_is_switch(f, p->node) ? f->nodes[p->node].sw_index
			: (fab_is_switch(f, fab_peer_node(f, ep[i]))
			   ? f->nodes[fab_peer_node(f, ep[i])].sw_index : FAB_NONE);
		for (uint32_t l = p->lid; p->lid && l < p->lid + (1u << p->lmc); l++) {
			ld->sw[l] = s;
			ld->port[l] = ep[i];
		}
	}
	free(ep);
}

static void lid_dest_free(struct lid_dest *ld)
{
	free(ld->sw);
	free(ld->port);
}

/* Follow the tables from switch ordinal s towards lid. Returns switch hops
 * (>= 0) on arrival, -1 on a missing/bad entry, -2 on a loop. chans (may
 * be NULL) gets the switch-to-switch egress port indices in order. */
static int walk(const struct fabric *f, const struct lft_set *t,
		const struct lid_dest *ld, uint32_t s, uint32_t lid,
		uint32_t *chans)
{
	for (int hops = 0; hops <= (int)f->num_switches; hops++) {
		uint8_t p = lft_get(t, s, lid);
		uint32_t n = f->switches[s];
		if (p == LFT_NO_PATH || p > f->nodes[n].num_ports)
			return -1;
		uint32_t gp = fab_port_idx(f, n, p);
		if (p == 0)
			return ld->port[lid] == gp ? hops : -1;
		uint32_t q = f->ports[gp].peer;
		if (q == FAB_NONE)
			return -1;
		if (!fab_is_switch(f, f->ports[q].node))
			return ld->port[lid] == q ? hops : -1;
		if (chans)
			chans[hops] = gp;
		s = f->nodes[f->ports[q].node].sw_index;
	}
	return -2;
}

/* Every switch reaches every LID of its connected component. Returns the
 * number of (switch, LID) pairs that fail. dist (nsw x nsw, optional):
 * when given, also counts paths longer than the minimum into *long_paths. */
static uint32_t check_reach(const struct fabric *f, const struct lft_set *t,
			    const uint32_t *dist, uint32_t *long_paths)
{
	struct lid_dest ld;
	uint32_t bad = 0;
	lid_dest_build(f, &ld);
	if (long_paths)
		*long_paths = 0;
	for (uint32_t s = 0; s < f->num_switches; s++)
		for (uint32_t lid = 1; lid <= ld.max_lid; lid++) {
			if (ld.sw[lid] == FAB_NONE)
				continue;
			int h = walk(f, t, &ld, s, lid, NULL);
			if (h < 0) {
				if (bad++ < 3)
					fprintf(stderr, "switch %u -> LID %u: %s\n", s, lid,
						h == -2 ? "loop" : "no path");
				continue;
			}
			if (dist && (uint32_t)h != dist[(size_t)s * f->num_switches + ld.sw[lid]])
				(*long_paths)++;
		}
	lid_dest_free(&ld);
	return bad;
}

/* All-pairs switch hop counts by BFS. */
static uint32_t *switch_dists(const struct fabric *f)
{
	uint32_t n = f->num_switches;
	uint32_t *d = malloc((size_t)n * n * sizeof(uint32_t));
	uint32_t *q = malloc(n * sizeof(uint32_t));
	for (uint32_t src = 0; src < n; src++) {
		uint32_t *row = d + (size_t)src * n, head = 0, tail = 0;
		for (uint32_t i = 0; i < n; i++)
			row[i] = UINT32_MAX;
		row[src] = 0;
		q[tail++] = src;
		while (head < tail) {
			uint32_t s = q[head++], node = f->switches[s];
			for (unsigned i = 1; i <= f->nodes[node].num_ports; i++) {
				uint32_t pn = fab_peer_node(f, fab_port_idx(f, node, i));
				if (pn == FAB_NONE || !fab_is_switch(f, pn))
					continue;
				uint32_t v = f->nodes[pn].sw_index;
				if (row[v] == UINT32_MAX) {
					row[v] = row[s] + 1;
					q[tail++] = v;
				}
			}
		}
	}
	free(q);
	return d;
}

/* 1 if switch ordinal s has a CA or router cabled to it. */
static int has_cas(const struct fabric *f, uint32_t s)
{
	uint32_t n = f->switches[s];
	for (unsigned i = 1; i <= f->nodes[n].num_ports; i++) {
		uint32_t pn = fab_peer_node(f, fab_port_idx(f, n, i));
		if (pn != FAB_NONE && !fab_is_switch(f, pn))
			return 1;
	}
	return 0;
}

/* Channel dependency graph (Dally & Seitz) over switch-to-switch channels
 * of the routes from every CA (i.e. from every switch with CAs cabled to
 * it) to every LID, switch LIDs included: 1 if it has a cycle. Traffic a
 * switch originates itself (management) is not part of it. */
static int credit_loop(const struct fabric *f, const struct lft_set *t,
		       int ca_dests_only)
{
	struct lid_dest ld;
	lid_dest_build(f, &ld);
	size_t cap = 1 << 16, ne = 0;
	uint64_t *e = malloc(cap * sizeof(uint64_t));
	uint32_t *ch = malloc((f->num_switches + 2) * sizeof(uint32_t));
	for (uint32_t s = 0; s < f->num_switches; s++)
		for (uint32_t lid = 1; lid <= ld.max_lid && has_cas(f, s); lid++) {
			if (ld.sw[lid] == FAB_NONE)
				continue;
			if (ca_dests_only && fab_is_switch(f, f->ports[ld.port[lid]].node))
				continue;
			int h = walk(f, t, &ld, s, lid, ch);
			for (int i = 0; i + 1 < h; i++) {
				if (ne == cap)
					e = realloc(e, (cap *= 2) * sizeof(uint64_t));
				e[ne++] = (uint64_t)ch[i] << 32 | ch[i + 1];
			}
		}
	qsort(e, ne, sizeof(uint64_t), ut_cmp_u64);
	uint32_t np = f->num_ports;
	uint32_t *off = calloc(np + 2, sizeof(uint32_t));
	for (size_t i = 0; i < ne; i++)
		off[(e[i] >> 32) + 1]++;
	for (uint32_t i = 0; i < np; i++)
		off[i + 1] += off[i];
	/* Iterative DFS with colours: 0 new, 1 on stack, 2 done. */
	uint8_t *colour = calloc(np, 1);
	uint32_t *stack = malloc((np + 1) * sizeof(uint32_t));
	uint32_t *next = malloc((np + 1) * sizeof(uint32_t));
	int loop = 0;
	for (uint32_t r = 0; r < np && !loop; r++) {
		if (colour[r])
			continue;
		uint32_t sp = 0;
		stack[sp] = r;
		next[sp++] = off[r];
		colour[r] = 1;
		while (sp && !loop) {
			uint32_t v = stack[sp - 1];
			if (next[sp - 1] == off[v + 1]) {
				colour[v] = 2;
				sp--;
				continue;
			}
			uint32_t w = (uint32_t)e[next[sp - 1]++];
			if (colour[w] == 1)
				loop = 1;
			else if (!colour[w]) {
				colour[w] = 1;
				stack[sp] = w;
				next[sp++] = off[w];
			}
		}
	}
	free(colour);
	free(stack);
	free(next);
	free(off);
	free(e);
	free(ch);
	lid_dest_free(&ld);
	return loop;
}

static int has_credit_loop(const struct fabric *f, const struct lft_set *t)
{
	return credit_loop(f, t, 0);
}

static void assign(struct fabric *f, uint8_t lmc)
{
	struct lid_assign_opts o = { .lmc = lmc };
	assert_true(lid_assign(f, &o, NULL) >= 0);
}

static void route_ok(const char *engine, const struct fabric *f,
		     struct lft_set *t, uint8_t lmc)
{
	char why[256];
	struct route_options o = { .lmc = lmc };
	const struct route_engine *e = route_engine_find(engine);
	assert_non_null(e);
	int r = route_run(e, f, &o, t, why);
	if (r)
		fprintf(stderr, "%s: %s\n", engine, why);
	assert_int_equal(r, 0);
	assert_int_equal(t->num_switches, f->num_switches);
	assert_true(t->max_lid >= fab_max_lid(f));
}

/* ---- tests ----------------------------------------------------------- */

static void registry_lists_and_finds(void **state)
{
	(void)state;
	const struct route_engine *const *b = route_builtin_engines();
	int have_minhop = 0, have_updn = 0;
	for (; *b; b++) {
		assert_non_null((*b)->route);
		assert_ptr_equal(route_engine_find((*b)->name), *b);
		have_minhop |= !strcmp((*b)->name, "minhop");
		have_updn |= !strcmp((*b)->name, "updn");
	}
	assert_true(have_minhop && have_updn);
	assert_null(route_engine_find("no-such-engine"));
	assert_null(route_engine_find(NULL));
}

static void minhop_ring_reaches_and_is_minimal(void **state)
{
	(void)state;
	struct fabric f;
	struct lft_set t;
	uint32_t longp;
	ut_ring(&f, 7, 2, 7);
	assign(&f, 0);
	route_ok("minhop", &f, &t, 0);
	uint32_t *d = switch_dists(&f);
	assert_int_equal(check_reach(&f, &t, d, &longp), 0);
	assert_int_equal(longp, 0);
	/* A ring routed by min-hop has a cyclic channel dependency: the
	 * checker must see it (and therefore can fail for updn). */
	assert_true(has_credit_loop(&f, &t));
	free(d);
	lft_free(&t);
	fab_free(&f);
}

static void updn_ring_torus_random_no_credit_loops(void **state)
{
	(void)state;
	struct fabric f;
	struct lft_set t;
	char err[256];

	ut_ring(&f, 7, 2, 7);
	assign(&f, 0);
	route_ok("updn", &f, &t, 0);
	assert_int_equal(check_reach(&f, &t, NULL, NULL), 0);
	assert_false(has_credit_loop(&f, &t));
	lft_free(&t);
	fab_free(&f);

	struct torus_params tp = { .dims = 2, .size = { 4, 5 }, .wrap = 1,
				   .hcas_per_switch = 2 };
	assert_int_equal(gen_torus(&f, &tp, err), 0);
	assign(&f, 0);
	route_ok("updn", &f, &t, 0);
	assert_int_equal(check_reach(&f, &t, NULL, NULL), 0);
	assert_false(has_credit_loop(&f, &t));
	lft_free(&t);
	route_ok("minhop", &f, &t, 0);  /* the same torus by minhop: loops */
	assert_int_equal(check_reach(&f, &t, NULL, NULL), 0);
	assert_true(has_credit_loop(&f, &t));
	lft_free(&t);
	fab_free(&f);

	struct torus_params t3 = { .dims = 3, .size = { 3, 3, 3 }, .wrap = 1,
				   .hcas_per_switch = 1 };
	assert_int_equal(gen_torus(&f, &t3, err), 0);
	assign(&f, 0);
	route_ok("updn", &f, &t, 0);
	assert_int_equal(check_reach(&f, &t, NULL, NULL), 0);
	assert_false(has_credit_loop(&f, &t));
	lft_free(&t);
	fab_free(&f);

	for (uint64_t seed = 1; seed <= 4; seed++) {
		struct random_params rp = { .switches = 40, .degree = 5,
					    .hcas_per_switch = 2, .seed = seed };
		assert_int_equal(gen_random(&f, &rp, err), 0);
		assign(&f, 0);
		route_ok("updn", &f, &t, 0);
		assert_int_equal(check_reach(&f, &t, NULL, NULL), 0);
		assert_false(has_credit_loop(&f, &t));
		lft_free(&t);
		fab_free(&f);
	}

	struct dragonfly_params dp = { .groups = 9, .switches_per_group = 4,
		.hcas_per_switch = 2, .global_per_switch = 2 };
	assert_int_equal(gen_dragonfly(&f, &dp, err), 0);
	assign(&f, 0);
	route_ok("updn", &f, &t, 0);
	assert_int_equal(check_reach(&f, &t, NULL, NULL), 0);
	assert_false(has_credit_loop(&f, &t));
	lft_free(&t);
	fab_free(&f);
}

static void fattree_both_engines_minimal_and_balanced(void **state)
{
	(void)state;
	struct fabric f;
	struct lft_set t;
	char err[256];
	uint32_t longp;
	struct fattree_params p = { .levels = 3, .radix = 8, .oversub = 1 };
	assert_int_equal(gen_fattree(&f, &p, err), 0);
	assign(&f, 0);
	uint32_t *d = switch_dists(&f);
	static const char *const engines[] = { "minhop", "updn" };
	for (int k = 0; k < 2; k++) {
		route_ok(engines[k], &f, &t, 0);
		assert_int_equal(check_reach(&f, &t, d, &longp), 0);
		assert_int_equal(longp, 0);   /* up/down is min-hop on fat-trees */
		if (k == 1)
			assert_false(has_credit_loop(&f, &t));
		/* At every switch, the CA LIDs routed over its ports towards
		 * switches differ by at most one between equal ports: check
		 * leaves, whose up-ports are all equal for remote LIDs. */
		for (uint32_t s = 0; s < f.num_switches; s++) {
			uint32_t n = f.switches[s], cnt[FAB_MAX_PORTS + 1] = { 0 };
			int leaf = 0;
			for (unsigned i = 1; i <= f.nodes[n].num_ports; i++) {
				uint32_t pn = fab_peer_node(&f, fab_port_idx(&f, n, i));
				leaf |= pn != FAB_NONE && !fab_is_switch(&f, pn);
			}
			if (!leaf)
				continue;
			for (uint32_t c = 0; c < f.num_nodes; c++) {
				if (f.nodes[c].type != FAB_CA)
					continue;
				const struct fab_port *cp = fab_port(&f, c, 1);
				uint8_t o = lft_get(&t, s, cp->lid);
				uint32_t pn = fab_peer_node(&f, fab_port_idx(&f, n, o));
				if (o && fab_is_switch(&f, pn))
					cnt[o]++;
			}
			uint32_t lo = UINT32_MAX, hi = 0;
			for (unsigned i = 1; i <= f.nodes[n].num_ports; i++) {
				uint32_t pn = fab_peer_node(&f, fab_port_idx(&f, n, i));
				if (pn == FAB_NONE || !fab_is_switch(&f, pn))
					continue;
				lo = cnt[i] < lo ? cnt[i] : lo;
				hi = cnt[i] > hi ? cnt[i] : hi;
			}
			assert_true(hi - lo <= 1);
		}
		lft_free(&t);
	}
	free(d);
	fab_free(&f);
}

/* A fat-tree with links removed: updn keeps its many roots (no fallback
 * to one root: balance), routes everything, and traffic to CA LIDs stays
 * free of credit loops. */
static void updn_degraded_fattree(void **state)
{
	(void)state;
	struct fabric f;
	struct lft_set t;
	char err[256];
	for (uint64_t seed = 1; seed <= 3; seed++) {
		struct fattree_params p = { .levels = 3, .radix = 8, .oversub = 1,
					    .remove_frac = 0.1, .seed = seed };
		assert_int_equal(gen_fattree(&f, &p, err), 0);
		assign(&f, 0);
		char *buf = NULL;
		size_t len = 0;
		FILE *log = open_memstream(&buf, &len);
		log_set_stream(log);
		route_ok("updn", &f, &t, 0);
		log_set_stream(NULL);
		fclose(log);
		assert_null(strstr(buf, "single root"));
		free(buf);
		assert_int_equal(check_reach(&f, &t, NULL, NULL), 0);
		assert_false(credit_loop(&f, &t, 1));
		lft_free(&t);
		fab_free(&f);
	}
}

/* Random node GUIDs, as on real fabrics (ibsm-topo numbers them in
 * cabling order): a switch's ports share its GUID, a CA port's is the
 * node's + port. */
static void random_guids(struct fabric *f, uint64_t seed)
{
	uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		f->nodes[n].guid = 0x0002c90000000000ull | (x & 0xfffffffffeull);
		for (unsigned i = 0; i <= f->nodes[n].num_ports; i++)
			f->ports[f->nodes[n].first_port + i].guid =
				f->nodes[n].guid + (fab_is_switch(f, n) ? 0 : i);
	}
}

/* Renumber the switches (switch ordinals) in a seeded random order, as
 * another discovery order would: the daemon numbers switches as it finds
 * them, ibsm-route as its file lists them. */
static void shuffle_switches(struct fabric *f, uint64_t seed)
{
	uint64_t x = seed * 0xbf58476d1ce4e5b9ull + 7;
	for (uint32_t i = f->num_switches; i > 1; i--) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		uint32_t j = (uint32_t)(x % i), tmp = f->switches[i - 1];
		f->switches[i - 1] = f->switches[j];
		f->switches[j] = tmp;
	}
	for (uint32_t i = 0; i < f->num_switches; i++)
		f->nodes[f->switches[i]].sw_index = i;
}

/* Issue 24: degraded 3-level trees with random GUIDs. updn's greedy
 * detours depended on the switch numbering: in some orders they left
 * leaves on min-hop entries towards spines and cores that closed a credit
 * loop (the daemon refused its own tables), and the daemon and ibsm-route
 * made different tables for one fabric. Now every route CAs send, to
 * switch LIDs too, is free of credit loops and every LID reached, in any
 * numbering; and updn and minhop give every switch the same table row
 * whatever the numbering. */
static void updn_random_guids_any_order(void **state)
{
	(void)state;
	struct fabric f;
	struct lft_set t, t2;
	char err[256];
	for (uint64_t seed = 1; seed <= 6; seed++) {
		struct fattree_params p = { .levels = 3, .radix = 12, .oversub = 1,
					    .remove_frac = seed <= 3 ? 0.05 : 0.1,
					    .seed = seed };
		assert_int_equal(gen_fattree(&f, &p, err), 0);
		random_guids(&f, seed);
		assign(&f, 0);
		static const char *const engines[] = { "updn", "minhop" };
		for (int k = 0; k < 2; k++) {
			route_ok(engines[k], &f, &t, 0);
			for (uint64_t order = 1; order <= 2; order++) {
				uint32_t *was = malloc(f.num_nodes * sizeof(uint32_t));
				for (uint32_t n = 0; n < f.num_nodes; n++)
					was[n] = f.nodes[n].sw_index;
				shuffle_switches(&f, seed * 10 + order);
				route_ok(engines[k], &f, &t2, 0);
				if (k == 0) {
					assert_int_equal(check_reach(&f, &t2, NULL, NULL), 0);
					assert_false(credit_loop(&f, &t2, 0));
				}
				/* Every switch has the same row in both
				 * numberings. */
				assert_int_equal(t.max_lid, t2.max_lid);
				for (uint32_t n = 0; n < f.num_nodes; n++)
					if (fab_is_switch(&f, n))
						assert_memory_equal(lft_row(&t, was[n]),
								    lft_row(&t2, f.nodes[n].sw_index),
								    t.max_lid + 1);
				free(was);
				lft_free(&t);
				t = t2;
			}
			lft_free(&t);
		}
		fab_free(&f);
	}
}

static void lmc_aliases_take_different_ports(void **state)
{
	(void)state;
	struct fabric f;
	struct lft_set t;
	char err[256];
	struct fattree_params p = { .levels = 2, .radix = 8, .oversub = 1 };
	assert_int_equal(gen_fattree(&f, &p, err), 0);
	assign(&f, 2);
	static const char *const engines[] = { "minhop", "updn" };
	for (int k = 0; k < 2; k++) {
		route_ok(engines[k], &f, &t, 2);
		assert_int_equal(check_reach(&f, &t, NULL, NULL), 0);
		uint32_t spread = 0, total = 0;
		for (uint32_t s = 0; s < f.num_switches; s++)
			for (uint32_t c = 0; c < f.num_nodes; c++) {
				if (f.nodes[c].type != FAB_CA)
					continue;
				const struct fab_port *cp = fab_port(&f, c, 1);
				assert_int_equal(cp->lmc, 2);
				uint8_t o[4];
				for (int j = 0; j < 4; j++)
					o[j] = lft_get(&t, s, cp->lid + j);
				uint32_t pn = fab_peer_node(&f, fab_port_idx(&f, f.switches[s], o[0]));
				if (!o[0] || !fab_is_switch(&f, pn))
					continue;   /* local delivery */
				total++;
				int distinct = 1;
				for (int a = 0; a < 4; a++)
					for (int b = a + 1; b < 4; b++)
						distinct &= o[a] != o[b];
				spread += distinct;
			}
		/* Leaves have 4 up-ports: all 4 aliases leave through different
		 * ones. Spines have one down-port per leaf: nothing to spread. */
		assert_true(total > 0);
		uint32_t leaves_x_remote = 0;
		for (uint32_t s = 0; s < f.num_switches; s++) {
			uint32_t n = f.switches[s];
			uint32_t pn = fab_peer_node(&f, fab_port_idx(&f, n, 1));
			if (pn != FAB_NONE && !fab_is_switch(&f, pn))
				leaves_x_remote++;
		}
		assert_true(spread >= leaves_x_remote * (f.num_cas - 4));
		lft_free(&t);
	}
	fab_free(&f);
}

static void switch_lids_routed_and_disconnected_tolerated(void **state)
{
	(void)state;
	struct fabric f;
	struct lft_set t;
	/* Two rings with no link between them. */
	fab_init(&f);
	uint32_t s[4];
	for (int i = 0; i < 4; i++)
		s[i] = fab_add_node(&f, FAB_SWITCH, 4, 0x50 + i, "sw");
	ut_link(&f, s[0], 1, s[1], 1);
	ut_link(&f, s[2], 1, s[3], 1);
	for (int i = 0; i < 4; i++) {
		uint32_t c = fab_add_node(&f, FAB_CA, 1, 0x90 + i, "ca");
		ut_link(&f, s[i], 4, c, 1);
	}
	assign(&f, 0);
	static const char *const engines[] = { "minhop", "updn" };
	log_set_level(LOG_ERR);
	for (int k = 0; k < 2; k++) {
		route_ok(engines[k], &f, &t, 0);
		/* Within a component everything is routed, switch LIDs too. */
		uint32_t l1 = fab_port(&f, s[1], 0)->lid;
		assert_int_equal(lft_get(&t, 0, l1), 1);
		assert_int_equal(lft_get(&t, 1, l1), 0);
		uint32_t c1 = f.ports[fab_port(&f, s[1], 4)->peer].lid;
		assert_int_equal(lft_get(&t, 0, c1), 1);
		/* Across components: no entry. */
		uint32_t l3 = fab_port(&f, s[3], 0)->lid;
		assert_int_equal(lft_get(&t, 0, l3), LFT_NO_PATH);
		lft_free(&t);
	}
	log_set_level(LOG_INFO);
	fab_free(&f);
}

static void updn_honours_root_guids(void **state)
{
	(void)state;
	struct fabric f;
	struct lft_set t;
	char why[256];
	ut_ring(&f, 6, 1, 7);
	assign(&f, 0);
	/* Root = a switch of the ring: with one root every other switch
	 * reaches it over the BFS tree, so paths to the root's LID are
	 * minimal and the channel graph is acyclic. */
	uint64_t root = f.nodes[f.switches[3]].guid;
	struct route_options o = { .root_guids = &root, .num_root_guids = 1 };
	assert_int_equal(route_run(route_engine_find("updn"), &f, &o, &t, why), 0);
	assert_int_equal(check_reach(&f, &t, NULL, NULL), 0);
	assert_false(has_credit_loop(&f, &t));
	/* The one ring link not used from either side is adjacent to the
	 * switch farthest from the root: never towards the root. */
	uint32_t rl = fab_port(&f, f.switches[3], 0)->lid;
	uint32_t *d = switch_dists(&f);
	struct lid_dest ld;
	lid_dest_build(&f, &ld);
	for (uint32_t s = 0; s < f.num_switches; s++)
		assert_int_equal(walk(&f, &t, &ld, s, rl, NULL), (int)d[s * f.num_switches + 3]);
	lid_dest_free(&ld);
	free(d);
	lft_free(&t);
	/* Unknown root GUIDs are reported and auto-detection takes over. */
	uint64_t bogus = 0xdeadbeef;
	o.root_guids = &bogus;
	log_set_level(LOG_ERR);
	assert_int_equal(route_run(route_engine_find("updn"), &f, &o, &t, why), 0);
	log_set_level(LOG_INFO);
	assert_false(has_credit_loop(&f, &t));
	lft_free(&t);
	fab_free(&f);
}

static int refuse_route(struct route_ctx *ctx, struct lft_set *t)
{
	(void)t;
	snprintf(ctx->why, sizeof(ctx->why), "not my kind of fabric");
	return -ENOTSUP;
}

static const struct route_engine refuser = {
	.name = "test-refuser",
	.route = refuse_route,
};

static void fallback_list_logs_each_refusal(void **state)
{
	(void)state;
	struct fabric f;
	struct lft_set t;
	ut_ring(&f, 4, 1, 7);
	assign(&f, 0);
	assert_int_equal(route_engine_register(&refuser, NULL), 0);
	assert_int_equal(route_engine_register(&refuser, NULL), 0); /* same */
	static const struct route_engine other = { .name = "minhop" };
	assert_int_equal(route_engine_register(&other, NULL), -EEXIST);

	char *buf = NULL;
	size_t len = 0;
	FILE *log = open_memstream(&buf, &len);
	log_set_stream(log);
	const struct route_engine *used = NULL;
	int r = route_run_list("nosuch, test-refuser,minhop", &f, NULL, &t, &used);
	log_set_stream(NULL);
	fclose(log);
	assert_int_equal(r, 0);
	assert_non_null(used);
	assert_string_equal(used->name, "minhop");
	assert_non_null(strstr(buf, "'nosuch' is not known"));
	assert_non_null(strstr(buf, "'test-refuser' refused the fabric: not my kind of fabric"));
	assert_non_null(strstr(buf, "falling back to routing engine 'minhop'"));
	free(buf);
	lft_free(&t);

	/* Every engine refuses: error, tables not allocated. */
	log_set_level(LOG_ERR + 0);
	buf = NULL;
	log = open_memstream(&buf, &len);
	log_set_stream(log);
	r = route_run_list("test-refuser", &f, NULL, &t, &used);
	log_set_stream(NULL);
	fclose(log);
	log_set_level(LOG_INFO);
	assert_int_equal(r, -ENOTSUP);
	assert_null(used);
	assert_null(t.port);
	assert_non_null(strstr(buf, "every routing engine"));
	free(buf);
	fab_free(&f);
}

/* rel from BUILD/tests, where this test runs from: "../lib/libibsm-
 * engine-sssp.so" (installed engines), "libibsm-engine-abi1.so" (test
 * engines). */
static void engine_so_path(char *buf, size_t n, const char *rel)
{
	char exe[PATH_MAX];
	ssize_t k = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(k > 0);
	exe[k] = 0;
	snprintf(buf, n, "%s/%s", dirname(exe), rel);
}

static void dlopen_engine_loads_routes_and_checks_abi(void **state)
{
	(void)state;
	char so[PATH_MAX + 64];
	engine_so_path(so, sizeof(so), "../lib/libibsm-engine-sssp.so");
	if (access(so, R_OK)) {
		fprintf(stderr, "%s not built\n", so);
		fail();
	}
	log_set_level(LOG_ERR + 0);
	/* Wrong ABI: the object refuses and so does the loader, which says
	 * which ABI the object was built for. */
	char *msg = NULL;
	size_t msg_len = 0;
	FILE *ms = open_memstream(&msg, &msg_len);
	assert_non_null(ms);
	log_set_stream(ms);
	assert_null(route_engine_load_abi(so, ROUTE_ENGINE_ABI + 1));
	assert_null(route_engine_find("sssp"));
	/* An object built for ABI 1 (its flags were a symbol of their own):
	 * refused, naming the file and both ABIs. */
	char old[PATH_MAX + 64];
	engine_so_path(old, sizeof(old), "libibsm-engine-abi1.so");
	assert_int_equal(access(old, R_OK), 0);
	assert_null(route_engine_load(old));
	assert_null(route_engine_find("abi1"));
	log_set_stream(NULL);
	fclose(ms);
	char want[PATH_MAX + 128];
	snprintf(want, sizeof(want), "routing engine %s: built for engine ABI %u, "
		 "this ibsm needs ABI %u", so, ROUTE_ENGINE_ABI, ROUTE_ENGINE_ABI + 1);
	assert_non_null(strstr(msg, want));
	snprintf(want, sizeof(want), "routing engine %s: built for engine ABI 1, "
		 "this ibsm needs ABI %u", old, ROUTE_ENGINE_ABI);
	assert_non_null(strstr(msg, want));
	free(msg);
	/* Not an engine / not there. */
	assert_null(route_engine_load("libm.so.6"));
	assert_null(route_engine_load("/nonexistent/libibsm-engine-x.so"));
	log_set_level(LOG_INFO);

	const struct route_engine *e = route_engine_load(so);
	assert_non_null(e);
	assert_string_equal(e->name, "sssp");
	assert_ptr_equal(route_engine_find("sssp"), e);
	assert_ptr_equal(route_engine_load(so), e);   /* idempotent */

	struct fabric f;
	struct lft_set t;
	char err[256];
	struct fattree_params p = { .levels = 2, .radix = 8, .oversub = 1 };
	assert_int_equal(gen_fattree(&f, &p, err), 0);
	assign(&f, 0);
	route_ok("sssp", &f, &t, 0);
	uint32_t longp;
	uint32_t *d = switch_dists(&f);
	assert_int_equal(check_reach(&f, &t, d, &longp), 0);
	assert_int_equal(longp, 0);
	free(d);
	lft_free(&t);
	fab_free(&f);

	struct random_params rp = { .switches = 30, .degree = 4,
				    .hcas_per_switch = 2, .seed = 5 };
	assert_int_equal(gen_random(&f, &rp, err), 0);
	assign(&f, 0);
	const struct route_engine *used = NULL;
	assert_int_equal(route_run_list("sssp", &f, NULL, &t, &used), 0);
	assert_ptr_equal(used, e);
	assert_int_equal(check_reach(&f, &t, NULL, NULL), 0);
	lft_free(&t);
	fab_free(&f);
}

/* Degenerate fabrics (issue: a lone CA used to overflow updn's BFS):
 * every built-in engine either routes them or refuses cleanly, and the
 * verifier judges what they produce, all under ASan. */
static void degenerate(struct fabric *f, int kind)
{
	uint32_t a, b, s1, s2;

	fab_init(f);
	switch (kind) {
	case 0:                         /* one CA, no link */
		fab_add_node(f, FAB_CA, 1, 0x10, "lone");
		break;
	case 1:                         /* two CAs back to back */
		a = fab_add_node(f, FAB_CA, 1, 0x10, "a");
		b = fab_add_node(f, FAB_CA, 1, 0x20, "b");
		ut_link(f, a, 1, b, 1);
		break;
	case 2:                         /* one switch, nothing on it */
		fab_add_node(f, FAB_SWITCH, 8, 0x30, "sw");
		break;
	case 3:                         /* two islands: switch + CA each */
		s1 = fab_add_node(f, FAB_SWITCH, 8, 0x30, "sw1");
		s2 = fab_add_node(f, FAB_SWITCH, 8, 0x40, "sw2");
		a = fab_add_node(f, FAB_CA, 1, 0x10, "a");
		b = fab_add_node(f, FAB_CA, 1, 0x20, "b");
		ut_link(f, s1, 1, a, 1);
		ut_link(f, s2, 1, b, 1);
		break;
	}
}

static void degenerate_fabrics_every_engine(void **state)
{
	(void)state;
	for (int kind = 0; kind < 4; kind++) {
		for (const struct route_engine *const *e = route_builtin_engines(); *e; e++) {
			struct fabric f;
			struct lft_set t = { 0 };
			struct route_options o = { 0 };
			struct verify_opts vo = { .check_credit_loops = 1, .cdg_switch_lids = 1 };
			struct verify_result vr;
			char why[256];
			int r;

			degenerate(&f, kind);
			assign(&f, 0);
			r = route_run(*e, &f, &o, &t, why);
			/* No switches: no tables, nothing to refuse. */
			if (f.num_switches == 0) {
				assert_int_equal(r, 0);
				assert_int_equal(t.num_switches, 0);
			}
			if (r == 0) {
				assert_true(verify_routes(&f, &t, &vo, &vr) >= 0);
				if (kind != 3)
					assert_int_equal(vr.pairs_unreachable, 0);
				assert_int_equal(vr.pairs_looping, 0);
				lft_free(&t);
			}
			fab_free(&f);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(registry_lists_and_finds),
		cmocka_unit_test(minhop_ring_reaches_and_is_minimal),
		cmocka_unit_test(updn_ring_torus_random_no_credit_loops),
		cmocka_unit_test(fattree_both_engines_minimal_and_balanced),
		cmocka_unit_test(updn_degraded_fattree),
		cmocka_unit_test(updn_random_guids_any_order),
		cmocka_unit_test(lmc_aliases_take_different_ports),
		cmocka_unit_test(switch_lids_routed_and_disconnected_tolerated),
		cmocka_unit_test(updn_honours_root_guids),
		cmocka_unit_test(fallback_list_logs_each_refusal),
		cmocka_unit_test(dlopen_engine_loads_routes_and_checks_abi),
		cmocka_unit_test(degenerate_fabrics_every_engine),
	};
	log_set_level(LOG_WARN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
