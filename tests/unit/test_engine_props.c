/* The properties minhop and updn promise, on hand-built and generated
 * fabrics: every LID routed from every switch and reached by following
 * the tables, minhop paths minimal and balanced, updn free of credit loops
 * (the channel dependency graph is checked directly, engine_check.c), LMC
 * aliases spread. (Registry, fallback lists, dlopen: test_engines.c.) */
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
#include "tests/unit/engine_check.h"
#include "tests/unit/support.h"

static void minhop_ring_reaches_and_is_minimal(void **state)
{
	(void)state;
	struct fabric f;
	struct lft_set t;
	uint32_t longp;
	ut_ring(&f, 7, 2, 7);
	ec_assign(&f, 0);
	ec_route_ok("minhop", &f, &t, 0);
	uint32_t *d = ec_switch_dists(&f);
	assert_int_equal(ec_check_reach(&f, &t, d, &longp), 0);
	assert_int_equal(longp, 0);
	/* A ring routed by min-hop has a cyclic channel dependency: the
	 * checker must see it (and therefore can fail for updn). */
	assert_true(ec_has_credit_loop(&f, &t));
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
	ec_assign(&f, 0);
	ec_route_ok("updn", &f, &t, 0);
	assert_int_equal(ec_check_reach(&f, &t, NULL, NULL), 0);
	assert_false(ec_has_credit_loop(&f, &t));
	lft_free(&t);
	fab_free(&f);

	struct torus_params tp = { .dims = 2, .size = { 4, 5 }, .wrap = 1,
				   .hcas_per_switch = 2 };
	assert_int_equal(gen_torus(&f, &tp, err), 0);
	ec_assign(&f, 0);
	ec_route_ok("updn", &f, &t, 0);
	assert_int_equal(ec_check_reach(&f, &t, NULL, NULL), 0);
	assert_false(ec_has_credit_loop(&f, &t));
	lft_free(&t);
	ec_route_ok("minhop", &f, &t, 0);  /* the same torus by minhop: loops */
	assert_int_equal(ec_check_reach(&f, &t, NULL, NULL), 0);
	assert_true(ec_has_credit_loop(&f, &t));
	lft_free(&t);
	fab_free(&f);

	struct torus_params t3 = { .dims = 3, .size = { 3, 3, 3 }, .wrap = 1,
				   .hcas_per_switch = 1 };
	assert_int_equal(gen_torus(&f, &t3, err), 0);
	ec_assign(&f, 0);
	ec_route_ok("updn", &f, &t, 0);
	assert_int_equal(ec_check_reach(&f, &t, NULL, NULL), 0);
	assert_false(ec_has_credit_loop(&f, &t));
	lft_free(&t);
	fab_free(&f);

	for (uint64_t seed = 1; seed <= 4; seed++) {
		struct random_params rp = { .switches = 40, .degree = 5,
					    .hcas_per_switch = 2, .seed = seed };
		assert_int_equal(gen_random(&f, &rp, err), 0);
		ec_assign(&f, 0);
		ec_route_ok("updn", &f, &t, 0);
		assert_int_equal(ec_check_reach(&f, &t, NULL, NULL), 0);
		assert_false(ec_has_credit_loop(&f, &t));
		lft_free(&t);
		fab_free(&f);
	}

	struct dragonfly_params dp = { .groups = 9, .switches_per_group = 4,
		.hcas_per_switch = 2, .global_per_switch = 2 };
	assert_int_equal(gen_dragonfly(&f, &dp, err), 0);
	ec_assign(&f, 0);
	ec_route_ok("updn", &f, &t, 0);
	assert_int_equal(ec_check_reach(&f, &t, NULL, NULL), 0);
	assert_false(ec_has_credit_loop(&f, &t));
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
	ec_assign(&f, 0);
	uint32_t *d = ec_switch_dists(&f);
	static const char *const engines[] = { "minhop", "updn" };
	for (int k = 0; k < 2; k++) {
		ec_route_ok(engines[k], &f, &t, 0);
		assert_int_equal(ec_check_reach(&f, &t, d, &longp), 0);
		assert_int_equal(longp, 0);   /* up/down is min-hop on fat-trees */
		if (k == 1)
			assert_false(ec_has_credit_loop(&f, &t));
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
		ec_assign(&f, 0);
		char *buf = NULL;
		size_t len = 0;
		FILE *log = open_memstream(&buf, &len);
		log_set_stream(log);
		ec_route_ok("updn", &f, &t, 0);
		log_set_stream(NULL);
		fclose(log);
		assert_null(strstr(buf, "single root"));
		free(buf);
		assert_int_equal(ec_check_reach(&f, &t, NULL, NULL), 0);
		assert_false(ec_credit_loop(&f, &t, 1));
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
		ec_assign(&f, 0);
		static const char *const engines[] = { "updn", "minhop" };
		for (int k = 0; k < 2; k++) {
			ec_route_ok(engines[k], &f, &t, 0);
			for (uint64_t order = 1; order <= 2; order++) {
				uint32_t *was = malloc(f.num_nodes * sizeof(uint32_t));
				for (uint32_t n = 0; n < f.num_nodes; n++)
					was[n] = f.nodes[n].sw_index;
				shuffle_switches(&f, seed * 10 + order);
				ec_route_ok(engines[k], &f, &t2, 0);
				if (k == 0) {
					assert_int_equal(ec_check_reach(&f, &t2, NULL, NULL), 0);
					assert_false(ec_credit_loop(&f, &t2, 0));
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
	ec_assign(&f, 2);
	static const char *const engines[] = { "minhop", "updn" };
	for (int k = 0; k < 2; k++) {
		ec_route_ok(engines[k], &f, &t, 2);
		assert_int_equal(ec_check_reach(&f, &t, NULL, NULL), 0);
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
	ec_assign(&f, 0);
	static const char *const engines[] = { "minhop", "updn" };
	log_set_level(LOG_ERR);
	for (int k = 0; k < 2; k++) {
		ec_route_ok(engines[k], &f, &t, 0);
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
	ec_assign(&f, 0);
	/* Root = a switch of the ring: with one root every other switch
	 * reaches it over the BFS tree, so paths to the root's LID are
	 * minimal and the channel graph is acyclic. */
	uint64_t root = f.nodes[f.switches[3]].guid;
	struct route_options o = { .root_guids = &root, .num_root_guids = 1 };
	assert_int_equal(route_run(route_engine_find("updn"), &f, &o, &t, why), 0);
	assert_int_equal(ec_check_reach(&f, &t, NULL, NULL), 0);
	assert_false(ec_has_credit_loop(&f, &t));
	/* The one ring link not used from either side is adjacent to the
	 * switch farthest from the root: never towards the root. */
	uint32_t rl = fab_port(&f, f.switches[3], 0)->lid;
	uint32_t *d = ec_switch_dists(&f);
	struct lid_dest ld;
	lid_dest_build(&f, &ld);
	for (uint32_t s = 0; s < f.num_switches; s++)
		assert_int_equal(ec_walk(&f, &t, &ld, s, rl, NULL), (int)d[s * f.num_switches + 3]);
	lid_dest_free(&ld);
	free(d);
	lft_free(&t);
	/* Unknown root GUIDs are reported and auto-detection takes over. */
	uint64_t bogus = 0xdeadbeef;
	o.root_guids = &bogus;
	log_set_level(LOG_ERR);
	assert_int_equal(route_run(route_engine_find("updn"), &f, &o, &t, why), 0);
	log_set_level(LOG_INFO);
	assert_false(ec_has_credit_loop(&f, &t));
	lft_free(&t);
	fab_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(minhop_ring_reaches_and_is_minimal),
		cmocka_unit_test(updn_ring_torus_random_no_credit_loops),
		cmocka_unit_test(fattree_both_engines_minimal_and_balanced),
		cmocka_unit_test(updn_degraded_fattree),
		cmocka_unit_test(updn_random_guids_any_order),
		cmocka_unit_test(lmc_aliases_take_different_ports),
		cmocka_unit_test(switch_lids_routed_and_disconnected_tolerated),
		cmocka_unit_test(updn_honours_root_guids),
	};
	log_set_level(LOG_WARN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
