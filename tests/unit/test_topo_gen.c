/* Topology generators: node/switch/CA/link counts for every benchmark
 * size, port degrees, the documented cabling, links removed without
 * disconnecting, determinism per seed, and rejection of bad parameters
 * (the ibsim net writer is in test_topo_net.c). */
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

struct counts {
	uint32_t cas, switches, sw_links, ca_links, unused_sw_ports;
};

static struct counts count(const struct fabric *f)
{
	struct counts c = { f->num_cas, f->num_switches, 0, 0, 0 };
	for (uint32_t n = 0; n < f->num_nodes; n++)
		for (unsigned i = 1; i <= f->nodes[n].num_ports; i++) {
			uint32_t m = fab_peer_node(f, f->nodes[n].first_port + i);
			if (m == FAB_NONE) {
				c.unused_sw_ports += fab_is_switch(f, n);
				continue;
			}
			if (m < n)
				continue;
			if (fab_is_switch(f, n) && fab_is_switch(f, m))
				c.sw_links++;
			else
				c.ca_links++;
		}
	return c;
}

static uint32_t find_desc(const struct fabric *f, const char *desc)
{
	for (uint32_t n = 0; n < f->num_nodes; n++)
		if (!strcmp(f->nodes[n].desc, desc))
			return n;
	return FAB_NONE;
}

static void fattree_sizes(void **state)
{
	(void)state;
	static const struct {
		unsigned levels, radix, oversub, hcas;
		uint32_t cas, switches, sw_links;
	} t[] = {
		{ 2, 36, 1, 0, 648, 54, 648 },
		{ 3, 20, 1, 0, 2000, 500, 4000 },
		{ 3, 36, 1, 0, 11664, 1620, 23328 },
		{ 3, 64, 1, 0, 65536, 5120, 131072 },
		{ 2, 8, 1, 0, 32, 12, 32 },
		{ 2, 36, 2, 0, 864, 48, 432 },    /* u = 12, d = 24, 36 leaves */
		{ 3, 20, 3, 0, 3000, 350, 2000 }, /* u = 5, d = 15 */
		{ 2, 8, 1, 10, 10, 12, 32 },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct fattree_params p = { .levels = t[i].levels, .radix = t[i].radix,
			.oversub = t[i].oversub, .hcas = t[i].hcas };
		struct fabric f;
		char err[256];
		assert_int_equal(gen_fattree(&f, &p, err), 0);
		struct counts c = count(&f);
		assert_int_equal(c.cas, t[i].cas);
		assert_int_equal(c.switches, t[i].switches);
		assert_int_equal(c.sw_links, t[i].sw_links);
		assert_int_equal(c.ca_links, t[i].cas);
		if (t[i].oversub == 1 && !t[i].hcas)
			assert_int_equal(c.unused_sw_ports, 0);
		for (uint32_t s = 0; s < f.num_switches; s++)
			assert_int_equal(f.nodes[f.switches[s]].num_ports, t[i].radix);
		check_invariants(&f);
		fab_free(&f);
	}
}

/* The cabling the header of topo_gen_fattree.c promises. */
static void fattree_cabling(void **state)
{
	(void)state;
	struct fattree_params p = { .levels = 3, .radix = 8, .oversub = 1 };
	struct fabric f;
	char err[256], name[32];
	assert_int_equal(gen_fattree(&f, &p, err), 0);
	unsigned k = 8, half = 4;
	assert_int_equal(f.num_cas, 128);
	assert_int_equal(f.num_switches, 80);
	for (unsigned leaf = 0; leaf < k * half; leaf++) {
		snprintf(name, sizeof(name), "leaf-%u", leaf);
		uint32_t n = find_desc(&f, name);
		assert_true(n != FAB_NONE);
		unsigned pod = leaf / half, rp;
		for (unsigned j = 0; j < half; j++) {  /* down: CAs leaf-major */
			uint32_t m = tc_peer_of(&f, n, j + 1, &rp);
			snprintf(name, sizeof(name), "node-%u", leaf * half + j);
			assert_string_equal(f.nodes[m].desc, name);
		}
		for (unsigned j = 0; j < half; j++) {  /* up: spine j of the pod */
			uint32_t m = tc_peer_of(&f, n, half + 1 + j, &rp);
			snprintf(name, sizeof(name), "spine-%u", pod * half + j);
			assert_string_equal(f.nodes[m].desc, name);
			assert_int_equal(rp, leaf % half + 1);
		}
	}
	for (unsigned sp = 0; sp < k * half; sp++) {
		snprintf(name, sizeof(name), "spine-%u", sp);
		uint32_t n = find_desc(&f, name);
		unsigned pod = sp / half, j = sp % half, rp;
		for (unsigned i = 0; i < half; i++) {
			uint32_t m = tc_peer_of(&f, n, half + 1 + i, &rp);
			snprintf(name, sizeof(name), "core-%u", j * half + i);
			assert_string_equal(f.nodes[m].desc, name);
			assert_int_equal(rp, pod + 1);
		}
	}
	/* node order: CAs, leaves, spines, cores; GUIDs follow it */
	assert_string_equal(f.nodes[128].desc, "leaf-0");
	assert_string_equal(f.nodes[128 + 32].desc, "spine-0");
	assert_string_equal(f.nodes[128 + 64].desc, "core-0");
	assert_true(f.nodes[0].guid == 0x0002c90300000000ull);
	assert_true(f.nodes[5].guid == 0x0002c9030000000aull);
	assert_true(f.nodes[128].guid == 0x0002c90200000000ull);
	assert_true(f.nodes[128 + 79].guid == 0x0002c9020000004full);
	fab_free(&f);

	/* hcas cap: spread evenly, leaf-major */
	struct fattree_params q = { .levels = 2, .radix = 8, .oversub = 1, .hcas = 10 };
	assert_int_equal(gen_fattree(&f, &q, err), 0);
	unsigned rp;
	uint32_t l0 = find_desc(&f, "leaf-0"), l2 = find_desc(&f, "leaf-2");
	assert_string_equal(f.nodes[tc_peer_of(&f, l0, 2, &rp)].desc, "node-1");
	assert_true(fab_port(&f, l2, 2)->peer == FAB_NONE);
	assert_string_equal(f.nodes[tc_peer_of(&f, l2, 1, &rp)].desc, "node-4");
	fab_free(&f);
}

static void compare_graphs(const struct fabric *a, const struct fabric *b,
			   int want_equal)
{
	int same = a->num_nodes == b->num_nodes && a->num_ports == b->num_ports;
	for (uint32_t i = 0; same && i < a->num_ports; i++)
		same = a->ports[i].peer == b->ports[i].peer;
	for (uint32_t n = 0; same && n < a->num_nodes; n++)
		same = a->nodes[n].guid == b->nodes[n].guid &&
			!strcmp(a->nodes[n].desc, b->nodes[n].desc);
	assert_int_equal(same, want_equal);
}

static void fattree_removal(void **state)
{
	(void)state;
	char err[256];
	for (uint64_t seed = 1; seed <= 6; seed++) {
		struct fattree_params p = { .levels = 3, .radix = 20, .oversub = 1,
			.remove_frac = 0.05, .seed = seed };
		struct fabric f;
		assert_int_equal(gen_fattree(&f, &p, err), 0);
		struct counts c = count(&f);
		assert_int_equal(c.sw_links, 4000 - 200);
		assert_int_equal(c.cas, 2000);
		check_invariants(&f);
		/* same seed, same fabric; next seed, another one */
		struct fabric g, h;
		assert_int_equal(gen_fattree(&g, &p, err), 0);
		compare_graphs(&f, &g, 1);
		p.seed = seed + 100;
		assert_int_equal(gen_fattree(&h, &p, err), 0);
		compare_graphs(&f, &h, 0);
		fab_free(&f);
		fab_free(&g);
		fab_free(&h);
	}
	/* A small tree, most of its links gone: still connected. 8 leaves and
	 * 4 spines need 11 of the 32 links; 60% leaves 13. */
	for (uint64_t seed = 0; seed < 20; seed++) {
		struct fattree_params p = { .levels = 2, .radix = 8, .oversub = 1,
			.remove_frac = 0.6, .seed = seed };
		struct fabric f;
		assert_int_equal(gen_fattree(&f, &p, err), 0);
		assert_int_equal(count(&f).sw_links, 13);
		check_invariants(&f);
		fab_free(&f);
	}
	/* 90% would disconnect it: refused. */
	struct fattree_params p = { .levels = 2, .radix = 8, .oversub = 1,
		.remove_frac = 0.9, .seed = 3 };
	struct fabric f;
	assert_int_equal(gen_fattree(&f, &p, err), -EINVAL);
	assert_non_null(strstr(err, "disconnect"));
	assert_int_equal(f.num_nodes, 0);
	fab_free(&f);
}

static void torus_shapes(void **state)
{
	(void)state;
	static const struct {
		unsigned dims, x, y, z, wrap, hp;
		uint32_t switches, sw_links, unused;
	} t[] = {
		{ 3, 4, 4, 4, 1, 2, 64, 192, 0 },
		{ 2, 4, 4, 0, 0, 2, 16, 24, 16 },
		{ 3, 3, 3, 3, 0, 1, 27, 54, 54 },
		{ 2, 2, 2, 0, 1, 1, 4, 8, 0 },     /* size 2: parallel links */
		{ 2, 5, 3, 0, 1, 3, 15, 30, 0 },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct torus_params p = { .dims = t[i].dims,
			.size = { t[i].x, t[i].y, t[i].z }, .wrap = (int)t[i].wrap,
			.hcas_per_switch = t[i].hp };
		struct fabric f;
		char err[256];
		assert_int_equal(gen_torus(&f, &p, err), 0);
		struct counts c = count(&f);
		assert_int_equal(c.switches, t[i].switches);
		assert_int_equal(c.cas, t[i].switches * t[i].hp);
		assert_int_equal(c.sw_links, t[i].sw_links);
		assert_int_equal(c.unused_sw_ports, t[i].unused);
		check_invariants(&f);
		fab_free(&f);
	}
	/* 4x4x4 torus: "+x" of (3,1,2) wraps to the "-x" port of (0,1,2). */
	struct torus_params p = { .dims = 3, .size = { 4, 4, 4 }, .wrap = 1,
		.hcas_per_switch = 2 };
	struct fabric f;
	char err[256];
	unsigned rp;
	assert_int_equal(gen_torus(&f, &p, err), 0);
	uint32_t n = find_desc(&f, "torus-3-1-2");
	assert_true(n != FAB_NONE);
	assert_string_equal(f.nodes[tc_peer_of(&f, n, 3, &rp)].desc, "torus-0-1-2");
	assert_int_equal(rp, 4);
	assert_string_equal(f.nodes[tc_peer_of(&f, n, 5, &rp)].desc, "torus-3-2-2");
	assert_int_equal(rp, 6);
	assert_string_equal(f.nodes[tc_peer_of(&f, n, 8, &rp)].desc, "torus-3-1-1");
	assert_int_equal(rp, 7);
	fab_free(&f);
}

/* Global links per pair of groups. */
static void check_dragonfly(unsigned g, unsigned a, unsigned h, unsigned hp,
			    unsigned min_per_pair, unsigned max_per_pair)
{
	struct dragonfly_params p = { .groups = g, .switches_per_group = a,
		.hcas_per_switch = hp, .global_per_switch = h };
	struct fabric f;
	char err[256];
	assert_int_equal(gen_dragonfly(&f, &p, err), 0);
	struct counts c = count(&f);
	assert_int_equal(c.switches, g * a);
	assert_int_equal(c.cas, g * a * hp);
	check_invariants(&f);
	unsigned *pair = calloc(g * g, sizeof(*pair));
	unsigned local = 0;
	for (uint32_t s = 0; s < f.num_switches; s++) {
		uint32_t n = f.switches[s];
		unsigned gs, ss;
		assert_int_equal(sscanf(f.nodes[n].desc, "df-g%u-s%u", &gs, &ss), 2);
		assert_int_equal(f.nodes[n].num_ports, hp + a - 1 + h);
		for (unsigned i = hp + 1; i <= f.nodes[n].num_ports; i++) {
			uint32_t m = fab_peer_node(&f, f.nodes[n].first_port + i);
			if (m == FAB_NONE) {
				assert_true(i >= hp + a);   /* only global ports idle */
				continue;
			}
			unsigned gm, sm;
			assert_int_equal(sscanf(f.nodes[m].desc, "df-g%u-s%u", &gm, &sm), 2);
			if (i < hp + a) {
				assert_int_equal(gm, gs);   /* local ports stay in the group */
				local++;
			} else {
				assert_true(gm != gs);
				pair[gs * g + gm]++;
			}
		}
	}
	assert_int_equal(local, g * a * (a - 1));
	for (unsigned x = 0; x < g; x++)
		for (unsigned y = 0; y < g; y++) {
			if (x == y)
				continue;
			assert_true(pair[x * g + y] >= min_per_pair);
			assert_true(pair[x * g + y] <= max_per_pair);
		}
	free(pair);
	fab_free(&f);
}

static void dragonfly_shapes(void **state)
{
	(void)state;
	check_dragonfly(9, 4, 2, 2, 1, 1);     /* balanced: g = a*h + 1 */
	check_dragonfly(5, 4, 2, 1, 2, 2);     /* 8 global ports, 4 peers */
	check_dragonfly(4, 2, 2, 3, 1, 2);     /* uneven: one port idle */
	check_dragonfly(2, 3, 1, 1, 3, 3);
	check_dragonfly(33, 8, 4, 4, 1, 1);    /* 264 switches */
	struct dragonfly_params p = { .groups = 9, .switches_per_group = 4,
		.hcas_per_switch = 2, .global_per_switch = 2 };
	struct fabric f;
	char err[256];
	assert_int_equal(gen_dragonfly(&f, &p, err), 0);
	assert_int_equal(count(&f).sw_links, 9 * 6 + 36);
	fab_free(&f);
}

static void random_regular(void **state)
{
	(void)state;
	char err[256];
	static const unsigned sizes[][3] = { { 64, 6, 4 }, { 10, 3, 1 },
		{ 200, 12, 2 }, { 8, 7, 1 }, { 30, 2, 1 } };
	for (size_t i = 0; i < 5; i++)
		for (uint64_t seed = 1; seed <= 3; seed++) {
			struct random_params p = { .switches = sizes[i][0],
				.degree = sizes[i][1], .hcas_per_switch = sizes[i][2],
				.seed = seed };
			struct fabric f, g;
			assert_int_equal(gen_random(&f, &p, err), 0);
			struct counts c = count(&f);
			assert_int_equal(c.switches, p.switches);
			assert_int_equal(c.cas, p.switches * p.hcas_per_switch);
			assert_int_equal(c.sw_links, p.switches * p.degree / 2);
			assert_int_equal(c.unused_sw_ports, 0);
			check_invariants(&f);
			/* simple graph: no two links between the same switches */
			for (uint32_t s = 0; s < f.num_switches; s++) {
				uint32_t n = f.switches[s];
				for (unsigned a = p.hcas_per_switch + 1; a <= f.nodes[n].num_ports; a++)
					for (unsigned b = a + 1; b <= f.nodes[n].num_ports; b++)
						assert_true(fab_peer_node(&f, f.nodes[n].first_port + a) !=
							    fab_peer_node(&f, f.nodes[n].first_port + b));
			}
			assert_int_equal(gen_random(&g, &p, err), 0);
			compare_graphs(&f, &g, 1);
			fab_free(&g);
			if (p.degree < p.switches - 1) {   /* not the complete graph */
				p.seed += 1000;
				assert_int_equal(gen_random(&g, &p, err), 0);
				compare_graphs(&f, &g, 0);
				fab_free(&g);
			}
			fab_free(&f);
		}
}

static void expect_bad(int r, struct fabric *f, const char *err,
		       const char *word)
{
	assert_int_equal(r, -EINVAL);
	assert_int_equal(f->num_nodes, 0);
	assert_true(err[0] != '\0');
	if (word && !strstr(err, word))
		fail_msg("error \"%s\" does not mention \"%s\"", err, word);
	fab_free(f);
}

/* Director fabrics: counts, the documented cabling (leaf l's j-th link
 * into chassis d at line ASIC (l*u/D + j) mod N), chassis names and one
 * SystemImageGUID per chassis. */
static void director_shapes(void **state)
{
	(void)state;
	static const struct {
		unsigned d, r, n, leaves;
		uint32_t cas, switches, sw_links, unused;
	} t[] = {
		{ 2, 36, 0, 0, 1296, 180, 2592, 0 },    /* 2 x 648 ports */
		{ 1, 36, 18, 0, 324, 54, 648, 324 },    /* 324-port, half the
							 * fabric ports dark */
		{ 2, 8, 4, 0, 32, 24, 64, 32 },
		{ 3, 12, 0, 20, 120, 74, 336, 96 },     /* 32 of 72 ext. ports dark
							 * per chassis */
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct director_params p = { .directors = t[i].d, .radix = t[i].r,
			.line_asics = t[i].n, .leaves = t[i].leaves };
		struct fabric f;
		char err[256];
		assert_int_equal(gen_director(&f, &p, err), 0);
		struct counts c = count(&f);
		assert_int_equal(c.cas, t[i].cas);
		assert_int_equal(c.switches, t[i].switches);
		assert_int_equal(c.sw_links, t[i].sw_links);
		assert_int_equal(c.unused_sw_ports, t[i].unused);
		check_invariants(&f);
		fab_free(&f);
	}
	/* D=2, R=8, N=4: leaf l port 5+d*2+j -> chassis d line ASIC
	 * (2l+j) mod 4, external port (2l+j)/4 + 1. */
	struct director_params p = { .directors = 2, .radix = 8, .line_asics = 4 };
	struct fabric f;
	char err[256];
	assert_int_equal(gen_director(&f, &p, err), 0);
	uint32_t leaf0 = f.num_cas, dir0 = leaf0 + 8;
	for (uint32_t l = 0; l < 8; l++)
		for (unsigned d = 0; d < 2; d++)
			for (unsigned j = 0; j < 2; j++) {
				unsigned rp;
				uint32_t m = tc_peer_of(&f, leaf0 + l, 5 + d * 2 + j, &rp);
				uint32_t g = 2 * l + j;
				assert_int_equal(m, dir0 + d * 8 + g % 4);
				assert_int_equal(rp, g / 4 + 1);
			}
	/* line ASIC i port 5+k -> fabric ASIC k port i+1 */
	for (unsigned d = 0; d < 2; d++)
		for (uint32_t i = 0; i < 4; i++)
			for (unsigned k = 0; k < 4; k++) {
				unsigned rp;
				uint32_t m = tc_peer_of(&f, dir0 + d * 8 + i, 5 + k, &rp);
				assert_int_equal(m, dir0 + d * 8 + 4 + k);
				assert_int_equal(rp, i + 1);
			}
	assert_string_equal(f.nodes[leaf0].desc, "MF0;leaf-0:MSB7800/U1");
	assert_string_equal(f.nodes[dir0 + 2].desc, "MF0;director-1:DIR16/L02/U1");
	assert_string_equal(f.nodes[dir0 + 8 + 7].desc, "MF0;director-2:DIR16/S02/U2");
	assert_true(f.nodes[dir0].sys_guid == f.nodes[dir0 + 7].sys_guid);
	assert_true(f.nodes[dir0].sys_guid != f.nodes[dir0 + 8].sys_guid);
	assert_true(f.nodes[dir0].sys_guid != f.nodes[dir0].guid);
	fab_free(&f);
	struct director_params q = { .directors = 2, .radix = 36 };
	assert_int_equal(gen_director(&f, &q, err), 0);
	assert_string_equal(f.nodes[f.num_cas + 72 + 35].desc,
			    "MF0;director-1:CS7500/L18/U2");
	assert_string_equal(f.nodes[f.num_cas + 72 + 36].desc,
			    "MF0;director-1:CS7500/S01/U1");
	fab_free(&f);
}

static void bad_params(void **state)
{
	(void)state;
	struct fabric f;
	char err[256];
	struct fattree_params ft[] = {
		{ .levels = 1, .radix = 8 }, { .levels = 4, .radix = 8 },
		{ .levels = 2, .radix = 7 }, { .levels = 2, .radix = 2 },
		{ .levels = 2, .radix = 256 }, { .levels = 2, .radix = 8, .oversub = 8 },
		{ .levels = 2, .radix = 8, .remove_frac = 1.0 },
		{ .levels = 2, .radix = 8, .remove_frac = -0.1 },
		{ .levels = 2, .radix = 8, .hcas = 33 },
	};
	static const char *const ft_words[] = { "levels", "levels", "radix",
		"radix", "radix", "oversub", "remove", "remove", "hcas" };
	for (size_t i = 0; i < sizeof(ft) / sizeof(ft[0]); i++)
		expect_bad(gen_fattree(&f, &ft[i], err), &f, err, ft_words[i]);

	struct director_params dp0[] = {
		{ .directors = 2, .radix = 7 }, { .directors = 4, .radix = 12 },
		{ .directors = 0, .radix = 8 }, { .directors = 2, .radix = 8,
		.line_asics = 9 }, { .directors = 2, .radix = 8, .leaves = 17 },
		{ .directors = 2, .radix = 8, .remove_frac = 1.0 },
	};
	static const char *const dp0_words[] = { "radix", "directors",
		"directors", "line ASICs", "leaves", "remove" };
	for (size_t i = 0; i < sizeof(dp0) / sizeof(dp0[0]); i++)
		expect_bad(gen_director(&f, &dp0[i], err), &f, err, dp0_words[i]);

	struct torus_params tp[] = {
		{ .dims = 1, .size = { 4 }, .hcas_per_switch = 1 },
		{ .dims = 4, .size = { 4, 4, 4 }, .hcas_per_switch = 1 },
		{ .dims = 2, .size = { 1, 4 }, .hcas_per_switch = 1 },
		{ .dims = 2, .size = { 4, 4 }, .hcas_per_switch = 0 },
		{ .dims = 3, .size = { 4, 4, 4 }, .hcas_per_switch = 250 },
	};
	static const char *const tp_words[] = { "dims", "dims", "size", "hcas",
		"hcas" };
	for (size_t i = 0; i < sizeof(tp) / sizeof(tp[0]); i++)
		expect_bad(gen_torus(&f, &tp[i], err), &f, err, tp_words[i]);

	struct dragonfly_params dp[] = {
		{ .groups = 10, .switches_per_group = 4, .hcas_per_switch = 2,
		  .global_per_switch = 2 },    /* > a*h + 1 */
		{ .groups = 1, .switches_per_group = 4, .hcas_per_switch = 2,
		  .global_per_switch = 2 },
		{ .groups = 3, .switches_per_group = 0, .hcas_per_switch = 2,
		  .global_per_switch = 2 },
		{ .groups = 3, .switches_per_group = 2, .hcas_per_switch = 0,
		  .global_per_switch = 2 },
		{ .groups = 3, .switches_per_group = 2, .hcas_per_switch = 2,
		  .global_per_switch = 0 },
		{ .groups = 3, .switches_per_group = 100, .hcas_per_switch = 100,
		  .global_per_switch = 100 },
	};
	static const char *const dp_words[] = { "groups", "groups", "switches",
		"hosts", "global", "ports" };
	for (size_t i = 0; i < sizeof(dp) / sizeof(dp[0]); i++)
		expect_bad(gen_dragonfly(&f, &dp[i], err), &f, err, dp_words[i]);

	struct random_params rp[] = {
		{ .switches = 1, .degree = 1, .hcas_per_switch = 1 },
		{ .switches = 5, .degree = 5, .hcas_per_switch = 1 },
		{ .switches = 5, .degree = 3, .hcas_per_switch = 1 },   /* odd sum */
		{ .switches = 6, .degree = 0, .hcas_per_switch = 1 },
		{ .switches = 6, .degree = 3, .hcas_per_switch = 0 },
		{ .switches = 6, .degree = 1, .hcas_per_switch = 1 },
	};
	static const char *const rp_words[] = { "switches", "degree", "even",
		"degree", "hosts", "degree" };
	for (size_t i = 0; i < sizeof(rp) / sizeof(rp[0]); i++)
		expect_bad(gen_random(&f, &rp[i], err), &f, err, rp_words[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fattree_sizes),
		cmocka_unit_test(fattree_cabling),
		cmocka_unit_test(fattree_removal),
		cmocka_unit_test(director_shapes),
		cmocka_unit_test(torus_shapes),
		cmocka_unit_test(dragonfly_shapes),
		cmocka_unit_test(random_regular),
		cmocka_unit_test(bad_params),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
