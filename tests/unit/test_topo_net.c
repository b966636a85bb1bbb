/* The ibsim net writer: net files of generated fabrics that read back
 * (with ibsim's GUID rules) to the same graph, odd node names, and
 * realistic fabrics (the generators themselves are in test_topo_gen.c). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/fabric.h"
#include "core/log.h"
#include "formats/topo_read.h"
#include "topogen/topo_gen.h"
#include "tests/unit/support.h"
#include "tests/unit/topo_check.h"

static char tmpdir[64];

static int setup(void **state)
{
	(void)state;
	log_set_level(LOG_ERR);
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/ibsm-test-gen.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Written and read back with ibsim's GUID rules: the same graph, node by
 * node (the first node is a CA, so file order is node order). */
static void round_trip(const struct fabric *f)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/rt.net", tmpdir);
	assert_int_equal(topo_write_ibsim_net(f, path), 0);
	struct fabric g;
	assert_int_equal(topo_read_ibsim_net(&g, path), 0);
	assert_int_equal(g.num_nodes, f->num_nodes);
	assert_int_equal(g.num_cas, f->num_cas);
	assert_int_equal(g.num_switches, f->num_switches);
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		const struct fab_node *a = &f->nodes[n], *b = &g.nodes[n];
		assert_true(a->guid == b->guid);
		assert_string_equal(a->desc, b->desc);
		assert_int_equal(a->type, b->type);
		assert_int_equal(a->num_ports, b->num_ports);
		assert_int_equal(a->vendor_id, b->vendor_id);
		assert_int_equal(a->device_id, b->device_id);
		for (unsigned i = 1; i <= a->num_ports; i++) {
			const struct fab_port *p = fab_port(f, n, i), *q = fab_port(&g, n, i);
			assert_true(p->guid == q->guid);
			assert_int_equal(p->peer == FAB_NONE, q->peer == FAB_NONE);
			if (p->peer != FAB_NONE)
				assert_int_equal(p->peer, q->peer);
		}
	}
	fab_free(&g);
}

static void net_writer_round_trip(void **state)
{
	(void)state;
	struct fabric f;
	char err[256];
	struct fattree_params ft = { .levels = 3, .radix = 8, .oversub = 1,
		.remove_frac = 0.1, .seed = 5 };
	assert_int_equal(gen_fattree(&f, &ft, err), 0);
	round_trip(&f);
	fab_free(&f);
	struct torus_params tp = { .dims = 2, .size = { 3, 4 }, .wrap = 0,
		.hcas_per_switch = 2 };
	assert_int_equal(gen_torus(&f, &tp, err), 0);
	round_trip(&f);
	fab_free(&f);
	struct dragonfly_params dp = { .groups = 9, .switches_per_group = 4,
		.hcas_per_switch = 2, .global_per_switch = 2 };
	assert_int_equal(gen_dragonfly(&f, &dp, err), 0);
	round_trip(&f);
	fab_free(&f);
	struct random_params rp = { .switches = 16, .degree = 5, .hcas_per_switch = 2,
		.seed = 9 };
	assert_int_equal(gen_random(&f, &rp, err), 0);
	round_trip(&f);
	fab_free(&f);
}

/* Descriptions that cannot be ids (duplicates, spaces, quotes, ids of
 * ibnetdiscover's shape) get "S-/H-<guid>" ids but keep their text; the
 * first record is a CA even when node 0 is a switch. */
static void net_writer_odd_names(void **state)
{
	(void)state;
	struct fabric f;
	fab_init(&f);
	uint32_t s0 = fab_add_node(&f, FAB_SWITCH, 4, 0x10, "dup");
	uint32_t s1 = fab_add_node(&f, FAB_SWITCH, 4, 0x11, "dup");
	uint32_t c0 = fab_add_node(&f, FAB_CA, 2, 0x20, "my host \"a\" mlx5_0");
	uint32_t c1 = fab_add_node(&f, FAB_CA, 1, 0x30, "H-0000000000000099");
	uint32_t c2 = fab_add_node(&f, FAB_CA, 1, 0x40, "ok-name");
	fab_port(&f, c0, 1)->guid = 0x21;
	fab_port(&f, c0, 2)->guid = 0x22;
	fab_port(&f, c1, 1)->guid = 0x31;
	fab_port(&f, c2, 1)->guid = 0x41;
	ut_link(&f, s0, 1, s1, 1);
	ut_link(&f, s0, 2, c0, 1);
	ut_link(&f, s1, 2, c0, 2);
	ut_link(&f, s1, 3, c1, 1);
	ut_link(&f, s0, 4, c2, 1);
	f.nodes[s0].enhanced_sp0 = 1;

	char path[128];
	snprintf(path, sizeof(path), "%s/odd.net", tmpdir);
	assert_int_equal(topo_write_ibsim_net(&f, path), 0);
	char *text = ut_slurp(path);
	/* first record: the first CA */
	const char *rec = strstr(text, "\nCa\t");
	assert_non_null(rec);
	assert_true(strstr(text, "\nSwitch") > rec);
	assert_non_null(strstr(text, "Ca\t2 \"H-0000000000000020\"\t# \"my host 'a' mlx5_0\""));
	assert_non_null(strstr(text, "Switch\t4 \"S-0000000000000010\"\t# \"dup\" enhanced port 0"));
	assert_non_null(strstr(text, "Switch\t4 \"S-0000000000000011\"\t# \"dup\""));
	assert_non_null(strstr(text, "Ca\t1 \"H-0000000000000030\"\t# \"H-0000000000000099\""));
	assert_non_null(strstr(text, "Ca\t1 \"ok-name\"\t# \"ok-name\""));
	/* no line over ibsim's 255 bytes */
	for (const char *l = text; *l;) {
		const char *e = strchr(l, '\n');
		assert_non_null(e);
		assert_true(e - l < 255);
		l = e + 1;
	}
	free(text);

	struct fabric g;
	assert_int_equal(topo_read_ibsim_net(&g, path), 0);
	assert_int_equal(g.num_nodes, 5);
	for (uint32_t n = 0; n < f.num_nodes; n++) {
		uint32_t m = fab_find_node_guid(&g, f.nodes[n].guid);
		assert_true(m != FAB_NONE);
		assert_int_equal(g.nodes[m].type, f.nodes[n].type);
		if (n != c0)
			assert_string_equal(g.nodes[m].desc, f.nodes[n].desc);
		for (unsigned i = 1; i <= f.nodes[n].num_ports; i++) {
			uint32_t a = fab_peer_node(&f, f.nodes[n].first_port + i);
			uint32_t b = fab_peer_node(&g, g.nodes[m].first_port + i);
			assert_int_equal(a == FAB_NONE, b == FAB_NONE);
			if (a != FAB_NONE)
				assert_true(f.nodes[a].guid == g.nodes[b].guid);
		}
	}
	assert_string_equal(g.nodes[fab_find_node_guid(&g, 0x20)].desc,
			    "my host 'a' mlx5_0");
	assert_int_equal(g.nodes[fab_find_node_guid(&g, 0x10)].enhanced_sp0, 1);
	fab_free(&g);

	/* duplicate and zero GUIDs cannot be loaded by ibsim: refused */
	f.nodes[c2].guid = 0x30;
	assert_int_equal(topo_write_ibsim_net(&f, path), -EINVAL);
	f.nodes[c2].guid = 0;
	assert_int_equal(topo_write_ibsim_net(&f, path), -EINVAL);
	fab_free(&f);
}

/* One small fabric of every shape, for the realistic passes. */
static int gen_shape(struct fabric *f, unsigned shape, uint64_t seed)
{
	char err[256];
	switch (shape) {
	case 0: {
		struct fattree_params p = { .levels = 2, .radix = 8 };
		return gen_fattree(f, &p, err);
	}
	case 1: {
		struct fattree_params p = { .levels = 3, .radix = 8,
			.remove_frac = 0.05, .seed = seed };
		return gen_fattree(f, &p, err);
	}
	case 2: {
		struct director_params p = { .directors = 2, .radix = 8,
			.line_asics = 4, .seed = seed };
		return gen_director(f, &p, err);
	}
	case 3: {
		struct torus_params p = { .dims = 3, .size = { 3, 3, 2 },
			.wrap = 1, .hcas_per_switch = 2 };
		return gen_torus(f, &p, err);
	}
	case 4: {
		struct torus_params p = { .dims = 2, .size = { 4, 3 },
			.wrap = 0, .hcas_per_switch = 1 };
		return gen_torus(f, &p, err);
	}
	case 5: {
		struct dragonfly_params p = { .groups = 5, .switches_per_group = 4,
			.hcas_per_switch = 2, .global_per_switch = 1 };
		return gen_dragonfly(f, &p, err);
	}
	default: {
		struct random_params p = { .switches = 12, .degree = 4,
			.hcas_per_switch = 2, .seed = seed };
		return gen_random(f, &p, err);
	}
	}
}
#define NUM_SHAPES 7

static int realistic(struct fabric *f, unsigned shape, uint64_t seed)
{
	int r = gen_shape(f, shape, seed);
	if (!r)
		r = gen_shuffle_ports(f, seed);
	if (!r)
		r = gen_random_guids(f, seed);
	return r;
}

/* Sorted peer node indices of node n: the graph without port numbers. */
static void peers_sorted(const struct fabric *f, uint32_t n, uint64_t *out)
{
	for (unsigned i = 1; i <= f->nodes[n].num_ports; i++)
		out[i - 1] = fab_peer_node(f, f->nodes[n].first_port + i);
	qsort(out, f->nodes[n].num_ports, sizeof(*out), ut_cmp_u64);
}

/* --guids random and --shuffle-ports, every shape, three seeds: GUIDs
 * unique (node, CA port, chassis system GUIDs), under a vendor OUI,
 * deterministic per seed and different across seeds; the graph is the
 * same as the sequential one, CA cabling untouched, switch cabling on
 * other port numbers; the result still round-trips through an ibsim net
 * file and through ibnetdiscover text. */
static void realistic_fabrics(void **state)
{
	(void)state;
	for (unsigned shape = 0; shape < NUM_SHAPES; shape++)
		for (uint64_t seed = 1; seed <= 3; seed++) {
			struct fabric a, b, c, d;
			assert_int_equal(gen_shape(&a, shape, seed), 0);
			assert_int_equal(realistic(&b, shape, seed), 0);
			assert_int_equal(realistic(&c, shape, seed), 0);
			assert_int_equal(realistic(&d, shape, seed + 100), 0);
			check_invariants(&b);
			assert_int_equal(b.num_nodes, a.num_nodes);

			/* unique: every node and port GUID, and system GUIDs
			 * other than a node's own */
			uint64_t *all = malloc((b.num_ports + 2 * b.num_nodes) *
					       sizeof(*all));
			uint32_t cnt = 0, moved = 0, same_guid = 0;
			uint64_t pa[FAB_MAX_PORTS], pb[FAB_MAX_PORTS];
			for (uint32_t n = 0; n < b.num_nodes; n++) {
				const struct fab_node *x = &b.nodes[n];
				all[cnt++] = x->guid;
				assert_true(x->guid >> 40 != 0);        /* an OUI */
				if (x->type == FAB_CA)
					all[cnt++] = fab_port(&b, n, 1)->guid;
				else
					assert_true(fab_port(&b, n, 0)->guid == x->guid);
				/* same graph, CA cabling where it was */
				assert_string_equal(x->desc, a.nodes[n].desc);
				peers_sorted(&a, n, pa);
				peers_sorted(&b, n, pb);
				assert_memory_equal(pa, pb, x->num_ports * sizeof(*pa));
				for (unsigned i = 1; i <= x->num_ports; i++) {
					unsigned ra = 0, rb = 0;
					uint32_t ma = tc_peer_of(&a, n, i, &ra);
					uint32_t mb = tc_peer_of(&b, n, i, &rb);
					if (ma != FAB_NONE && !fab_is_switch(&a, ma))
						assert_true(mb == ma && rb == ra);
					moved += fab_is_switch(&b, n) &&
						 (ma != mb || ra != rb);
				}
				/* chassis: nodes sharing a system GUID still do,
				 * others do not */
				for (uint32_t m = 0; m < n; m++)
					assert_int_equal(a.nodes[m].sys_guid == a.nodes[n].sys_guid,
							 b.nodes[m].sys_guid == x->sys_guid);
				if (x->sys_guid != x->guid && x->sys_guid) {
					uint32_t k = 0;
					while (k < n && b.nodes[k].sys_guid != x->sys_guid)
						k++;
					if (k == n)     /* first holder: count it once */
						all[cnt++] = x->sys_guid;
				}
				/* deterministic per seed, different across seeds */
				assert_true(c.nodes[n].guid == x->guid);
				for (unsigned i = 1; i <= x->num_ports; i++)
					assert_int_equal(fab_port(&c, n, i)->peer,
							 fab_port(&b, n, i)->peer);
				same_guid += d.nodes[n].guid == x->guid;
			}
			qsort(all, cnt, sizeof(*all), ut_cmp_u64);
			for (uint32_t i = 1; i < cnt; i++)
				assert_true(all[i] != all[i - 1]);
			free(all);
			assert_true(moved > 0);
			assert_int_equal(same_guid, 0);

			round_trip(&b);
			char path[128];
			snprintf(path, sizeof(path), "%s/rt.ibnd", tmpdir);
			assert_int_equal(topo_write_ibnetdiscover(&b, path), 0);
			struct fabric e;
			assert_int_equal(topo_read_ibnetdiscover(&e, path), 0);
			assert_int_equal(e.num_nodes, b.num_nodes);
			for (uint32_t n = 0; n < b.num_nodes; n++) {
				uint32_t m = fab_find_node_guid(&e, b.nodes[n].guid);
				assert_true(m != FAB_NONE);
				for (unsigned i = 1; i <= b.nodes[n].num_ports; i++) {
					uint32_t x = fab_peer_node(&b, b.nodes[n].first_port + i);
					uint32_t y = fab_peer_node(&e, e.nodes[m].first_port + i);
					assert_int_equal(x == FAB_NONE, y == FAB_NONE);
					if (x != FAB_NONE)
						assert_true(b.nodes[x].guid == e.nodes[y].guid);
				}
			}
			fab_free(&e);
			fab_free(&a);
			fab_free(&b);
			fab_free(&c);
			fab_free(&d);
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(net_writer_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(net_writer_odd_names, setup, teardown),
		cmocka_unit_test_setup_teardown(realistic_fabrics, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
