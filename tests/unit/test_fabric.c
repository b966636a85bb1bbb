/* The fabric graph: adding nodes, links and their errors, GUID lookup,
 * endpoint ports, max LID and deep copies. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "core/fabric.h"
#include "core/grow.h"

static void add_rejects_bad_counts(void **state)
{
	(void)state;
	struct fabric f;
	fab_init(&f);
	assert_int_equal(fab_add_node(&f, FAB_SWITCH, 0, 1, "x"), FAB_NONE);
	assert_int_equal(fab_add_node(&f, FAB_SWITCH, 255, 1, "x"), FAB_NONE);
	assert_int_equal(fab_add_node(&f, 7, 4, 1, "x"), FAB_NONE);
	assert_int_equal(f.num_nodes, 0);
	assert_int_not_equal(fab_add_node(&f, FAB_SWITCH, FAB_MAX_PORTS, 1, "x"), FAB_NONE);
	fab_free(&f);
}

static void add_lays_out_ports(void **state)
{
	(void)state;
	struct fabric f;
	fab_init(&f);
	uint32_t s = fab_add_node(&f, FAB_SWITCH, 8, 0x100, "sw");
	uint32_t c = fab_add_node(&f, FAB_CA, 2, 0x200, "ca");
	uint32_t r = fab_add_node(&f, FAB_ROUTER, 1, 0x300, "rt");
	assert_int_equal(f.num_switches, 1);
	assert_int_equal(f.num_cas, 1);
	assert_int_equal(f.num_routers, 1);
	assert_int_equal(f.nodes[s].sw_index, 0);
	assert_int_equal(f.switches[0], s);
	assert_int_equal(f.nodes[c].sw_index, FAB_NONE);
	assert_int_equal(f.num_ports, 9 + 3 + 2);
	assert_int_equal(f.nodes[c].first_port, 9);
	for (unsigned i = 0; i <= 8; i++) {
		assert_int_equal(fab_port(&f, s, i)->num, i);
		assert_int_equal(fab_port(&f, s, i)->node, s);
		assert_int_equal(fab_port(&f, s, i)->guid, 0x100);
		assert_int_equal(fab_port(&f, s, i)->peer, FAB_NONE);
	}
	assert_int_equal(fab_port_idx(&f, c, 3), FAB_NONE);
	assert_int_equal(fab_port_idx(&f, c, 2), 11);
	assert_string_equal(f.nodes[r].desc, "rt");
	assert_string_equal(fab_type_str(f.nodes[r].type), "Router");
	fab_free(&f);
}

static void link_errors(void **state)
{
	(void)state;
	struct fabric f;
	fab_init(&f);
	uint32_t s = fab_add_node(&f, FAB_SWITCH, 4, 0x100, "sw");
	uint32_t c = fab_add_node(&f, FAB_CA, 2, 0x200, "ca");
	uint32_t s1 = fab_port_idx(&f, s, 1), c1 = fab_port_idx(&f, c, 1);
	assert_int_equal(fab_link(&f, fab_port_idx(&f, s, 0), c1), -EINVAL);
	assert_int_equal(fab_link(&f, s1, s1), -EINVAL);
	assert_int_equal(fab_link(&f, s1, f.num_ports), -EINVAL);
	assert_int_equal(fab_link(&f, s1, c1), 0);
	assert_int_equal(fab_link(&f, c1, s1), 0);     /* same pair: no-op */
	assert_int_equal(fab_link(&f, s1, fab_port_idx(&f, c, 2)), -EEXIST);
	assert_int_equal(fab_link(&f, fab_port_idx(&f, s, 2), c1), -EEXIST);
	assert_int_equal(fab_peer_node(&f, s1), c);
	assert_int_equal(fab_peer_node(&f, c1), s);
	fab_unlink(&f, c1);
	assert_int_equal(f.ports[s1].peer, FAB_NONE);
	assert_int_equal(f.ports[c1].peer, FAB_NONE);
	assert_int_equal(fab_peer_node(&f, s1), FAB_NONE);
	fab_free(&f);
}

static void guid_lookup(void **state)
{
	(void)state;
	struct fabric f;
	fab_init(&f);
	assert_int_equal(fab_find_node_guid(&f, 1), FAB_NONE);
	for (uint32_t i = 0; i < 1000; i++)
		fab_add_node(&f, i % 3 ? FAB_CA : FAB_SWITCH, 2,
			     0x1000 + (uint64_t)i * 0x10001, NULL);
	for (uint32_t i = 0; i < 1000; i++)
		assert_int_equal(fab_find_node_guid(&f, 0x1000 + (uint64_t)i * 0x10001), i);
	assert_int_equal(fab_find_node_guid(&f, 0x999), FAB_NONE);
	/* The index must follow additions. */
	uint32_t n = fab_add_node(&f, FAB_CA, 1, 0xabc, NULL);
	assert_int_equal(fab_find_node_guid(&f, 0xabc), n);
	assert_int_equal(fab_find_node_guid(&f, 0x1000), 0);
	fab_free(&f);
}

static void endpoints_and_max_lid(void **state)
{
	(void)state;
	struct fabric f;
	fab_init(&f);
	uint32_t s = fab_add_node(&f, FAB_SWITCH, 4, 0x100, "sw");
	uint32_t c = fab_add_node(&f, FAB_CA, 2, 0x200, "ca");
	uint32_t lone = fab_add_node(&f, FAB_CA, 1, 0x300, "lone");
	assert_int_equal(fab_link(&f, fab_port_idx(&f, s, 1), fab_port_idx(&f, c, 2)), 0);
	uint32_t eps[8];
	assert_int_equal(fab_endpoint_ports(&f, NULL), 2);
	assert_int_equal(fab_endpoint_ports(&f, eps), 2);
	assert_int_equal(eps[0], fab_port_idx(&f, s, 0));
	assert_int_equal(eps[1], fab_port_idx(&f, c, 2));
	(void)lone;
	assert_int_equal(fab_max_lid(&f), 0);
	fab_port(&f, s, 0)->lid = 1;
	fab_port(&f, c, 2)->lid = 8;
	fab_port(&f, c, 2)->lmc = 2;
	assert_int_equal(fab_max_lid(&f), 11);
	fab_free(&f);
}

static void clone_is_deep(void **state)
{
	(void)state;
	struct fabric f, g;
	fab_init(&f);
	uint32_t s = fab_add_node(&f, FAB_SWITCH, 4, 0x100, "sw");
	uint32_t c = fab_add_node(&f, FAB_CA, 1, 0x200, "ca");
	assert_int_equal(fab_link(&f, fab_port_idx(&f, s, 3), fab_port_idx(&f, c, 1)), 0);
	assert_int_equal(fab_find_node_guid(&f, 0x200), c);
	assert_int_equal(fab_clone(&g, &f), 0);
	assert_int_equal(g.num_nodes, 2);
	assert_int_equal(g.num_switches, 1);
	assert_int_equal(g.num_cas, 1);
	assert_ptr_not_equal(g.ports, f.ports);
	assert_int_equal(fab_peer_node(&g, fab_port_idx(&g, s, 3)), c);
	assert_int_equal(fab_find_node_guid(&g, 0x200), c);
	fab_unlink(&g, fab_port_idx(&g, s, 3));
	strcpy(g.nodes[0].desc, "changed");
	assert_int_equal(fab_peer_node(&f, fab_port_idx(&f, s, 3)), c);
	assert_string_equal(f.nodes[0].desc, "sw");
	/* Adding to the clone must not disturb the original. */
	assert_int_not_equal(fab_add_node(&g, FAB_CA, 1, 0x400, "new"), FAB_NONE);
	assert_int_equal(f.num_nodes, 2);
	assert_int_equal(fab_find_node_guid(&f, 0x400), FAB_NONE);
	fab_free(&g);
	fab_free(&f);
	/* An empty fabric clones too. */
	fab_init(&f);
	assert_int_equal(fab_clone(&g, &f), 0);
	assert_int_equal(g.num_nodes, 0);
	fab_free(&g);
}

/* grow_array_shared: parallel arrays of one capacity grow to the same
 * size, the shared capacity left to the caller; a refusal leaves the
 * array alone. */
static void grow_array_shared_grows_alike(void **state)
{
	(void)state;
	uint8_t *a = NULL;
	uint64_t *b = NULL;
	uint32_t cap = 0, c = 0;
	assert_int_equal(grow_array_shared((void **)&a, cap, &c, 5, 1, 4), 0);
	assert_int_equal(c, 8);
	assert_int_equal(grow_array_shared((void **)&b, cap, &c, 5, sizeof(*b), 4), 0);
	assert_int_equal(c, 8);
	cap = c;
	memset(a, 1, 8);
	for (int i = 0; i < 8; i++)
		b[i] = (uint64_t)i << 40;
	/* fits: nothing moves, *got is cap */
	uint8_t *was = a;
	assert_int_equal(grow_array_shared((void **)&a, cap, &c, 8, 1, 4), 0);
	assert_ptr_equal(a, was);
	assert_int_equal(c, 8);
	assert_int_equal(grow_array_shared((void **)&a, cap, &c, 17, 1, 4), 0);
	assert_int_equal(grow_array_shared((void **)&b, cap, &c, 17, sizeof(*b), 4), 0);
	assert_int_equal(c, 32);
	for (int i = 0; i < 8; i++) {
		assert_int_equal(a[i], 1);
		assert_int_equal(b[i], (uint64_t)i << 40);
	}
	was = a;
	assert_int_equal(grow_array_shared((void **)&a, UINT32_MAX / 2 + 1, &c,
					   UINT32_MAX, 1, 4), -ENOMEM);
	assert_ptr_equal(a, was);
	free(a);
	free(b);
}

/* grow_array: doubles from `first`, keeps the contents, leaves a fitting
 * array alone and refuses a capacity past UINT32_MAX without touching it. */
static void grow_array_doubles(void **state)
{
	(void)state;
	uint16_t *v = NULL;
	uint32_t cap = 0;
	assert_int_equal(grow_array((void **)&v, &cap, 1, sizeof(*v), 8), 0);
	assert_int_equal(cap, 8);
	for (uint16_t i = 0; i < 8; i++)
		v[i] = i;
	assert_int_equal(grow_array((void **)&v, &cap, 8, sizeof(*v), 8), 0);
	assert_int_equal(cap, 8);
	assert_int_equal(grow_array((void **)&v, &cap, 9, sizeof(*v), 8), 0);
	assert_int_equal(cap, 16);
	assert_int_equal(grow_array((void **)&v, &cap, 100, sizeof(*v), 8), 0);
	assert_int_equal(cap, 128);
	for (uint16_t i = 0; i < 8; i++)
		assert_int_equal(v[i], i);
	uint16_t *was = v;
	cap = UINT32_MAX / 2 + 1;       /* pretend: doubling would overflow */
	assert_int_equal(grow_array((void **)&v, &cap, UINT32_MAX, sizeof(*v), 8),
			 -ENOMEM);
	assert_ptr_equal(v, was);
	assert_int_equal(cap, UINT32_MAX / 2 + 1);
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(add_rejects_bad_counts),
		cmocka_unit_test(add_lays_out_ports),
		cmocka_unit_test(link_errors),
		cmocka_unit_test(guid_lookup),
		cmocka_unit_test(endpoints_and_max_lid),
		cmocka_unit_test(clone_is_deep),
		cmocka_unit_test(grow_array_doubles),
		cmocka_unit_test(grow_array_shared_grows_alike),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
