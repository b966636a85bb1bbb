/* Checks of generated fabrics that test_topo_gen.c and test_topo_net.c
 * share: see topo_check.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "core/fabric.h"
#include "tests/unit/support.h"
#include "tests/unit/topo_check.h"

static int connected(const struct fabric *f)
{
	uint32_t *q = malloc(f->num_nodes * sizeof(*q));
	uint8_t *seen = calloc(f->num_nodes, 1);
	uint32_t h = 0, t = 0;
	q[t++] = 0;
	seen[0] = 1;
	while (h < t) {
		uint32_t n = q[h++];
		for (unsigned i = 1; i <= f->nodes[n].num_ports; i++) {
			uint32_t m = fab_peer_node(f, f->nodes[n].first_port + i);
			if (m != FAB_NONE && !seen[m]) {
				seen[m] = 1;
				q[t++] = m;
			}
		}
	}
	free(q);
	free(seen);
	return t == f->num_nodes;
}

void check_invariants(const struct fabric *f)
{
	assert_true(f->num_nodes > 0);
	assert_int_equal(f->nodes[0].type, FAB_CA);
	assert_string_equal(f->nodes[0].desc, "node-0");
	uint64_t *g = malloc(f->num_nodes * sizeof(*g));
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		const struct fab_node *node = &f->nodes[n];
		assert_true(node->guid != 0);
		g[n] = node->guid;
		if (node->type == FAB_CA) {
			assert_int_equal(node->num_ports, 1);
			assert_true(fab_port(f, n, 1)->guid == node->guid + 1);
			assert_true(fab_port(f, n, 1)->peer != FAB_NONE);
			/* CAs hang off switches */
			assert_true(fab_is_switch(f, fab_peer_node(f, node->first_port + 1)));
		}
		for (unsigned i = 1; i <= node->num_ports; i++) {
			const struct fab_port *p = fab_port(f, n, i);
			if (p->peer == FAB_NONE)
				continue;
			assert_int_equal(f->ports[p->peer].peer, node->first_port + i);
			assert_true(f->ports[p->peer].node != n);   /* no self links */
		}
	}
	qsort(g, f->num_nodes, sizeof(*g), ut_cmp_u64);
	for (uint32_t n = 1; n < f->num_nodes; n++)
		assert_true(g[n] != g[n - 1]);
	free(g);
	assert_true(connected(f));
}

uint32_t tc_peer_of(const struct fabric *f, uint32_t n, unsigned num,
		 unsigned *rport)
{
	uint32_t q = fab_port(f, n, num)->peer;
	if (q == FAB_NONE)
		return FAB_NONE;
	*rport = f->ports[q].num;
	return f->ports[q].node;
}
