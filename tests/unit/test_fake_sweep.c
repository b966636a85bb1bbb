/* discovery/sweep.c against the fake fabric (tests/unit/fake_sma.h): the
 * live sweep finds every node, port and link of a generated fabric, asks
 * again what was lost, and leaves out what never answers. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <infiniband/mad.h>

#include "core/log.h"
#include "discovery/sweep.h"
#include "topogen/topo_gen.h"
#include "fake_sma.h"

static void fattree(struct fabric *f)
{
	struct fattree_params p = { .levels = 2, .radix = 8, .oversub = 1 };
	char err[256];

	assert_int_equal(gen_fattree(f, &p, err), 0);
}

static void torus(struct fabric *f)
{
	struct torus_params p = { .dims = 2, .size = { 4, 3 }, .wrap = 1,
				  .hcas_per_switch = 2 };
	char err[256];

	assert_int_equal(gen_torus(f, &p, err), 0);
}

/* What the sweep found is the fabric: every node by GUID with its type,
 * ports and description, every link between the same port numbers. */
static void assert_same(const struct fabric *want, struct fabric *got)
{
	assert_int_equal(got->num_nodes, want->num_nodes);
	assert_int_equal(got->num_switches, want->num_switches);
	for (uint32_t n = 0; n < want->num_nodes; n++) {
		const struct fab_node *wn = &want->nodes[n];
		uint32_t g = fab_find_node_guid(got, wn->guid);

		assert_int_not_equal(g, FAB_NONE);
		assert_int_equal(got->nodes[g].type, wn->type);
		assert_int_equal(got->nodes[g].num_ports, wn->num_ports);
		assert_string_equal(got->nodes[g].desc, wn->desc);
		for (unsigned k = 1; k <= wn->num_ports; k++) {
			uint32_t wp = wn->first_port + k, q = want->ports[wp].peer;
			uint32_t gp = fab_port_idx(got, g, k), gq = got->ports[gp].peer;

			if (q == FAB_NONE) {
				assert_int_equal(gq, FAB_NONE);
				continue;
			}
			assert_int_not_equal(gq, FAB_NONE);
			assert_true(got->nodes[got->ports[gq].node].guid ==
				    want->nodes[want->ports[q].node].guid);
			assert_int_equal(got->ports[gq].num, want->ports[q].num);
		}
	}
}

static void sweep_whole(void (*gen)(struct fabric *))
{
	struct fabric f;
	struct fake_sma *s;
	struct mad_transport *t;
	struct subnet r;

	gen(&f);
	s = fake_sma_new(&f, 0, 1);
	assert_non_null(s);
	assert_int_equal(fake_sma_open(s, NULL, &t), 0);
	subnet_init(&r);
	assert_int_equal(sweep_discover(t, &r), 0);
	assert_same(&f, &r.fab);
	assert_int_equal(r.lost_probes + r.lost_attrs, 0);
	assert_true(r.fab.nodes[r.sm_node].guid == f.nodes[0].guid);
	assert_int_equal(mt_get_stats(t)->timed_out, 0);
	subnet_free(&r);
	mt_close(t);
	fake_sma_free(s);
	fab_free(&f);
}

static void test_fattree_whole(void **state)
{
	(void)state;
	sweep_whole(fattree);
}

static void test_torus_whole(void **state)
{
	(void)state;
	sweep_whole(torus);
}

/* Lost MADs: a NodeInfo and a PortInfo lost once are sent again by the
 * transport; the view is whole and nothing counts as lost. */
static void test_dropped_retried(void **state)
{
	struct fabric f;
	struct fake_sma *s;
	struct mad_transport *t;
	struct subnet r;

	(void)state;
	fattree(&f);
	s = fake_sma_new(&f, 0, 1);
	assert_int_equal(fake_sma_open(s, NULL, &t), 0);
	subnet_init(&r);
	fake_sma_drop(s, IB_ATTR_NODE_INFO, 0, 3);
	assert_int_equal(sweep_discover(t, &r), 0);
	assert_int_equal(fake_sma_dropped(s), 3);
	assert_true(mt_get_stats(t)->retried >= 1);
	assert_int_equal(r.lost_probes + r.lost_attrs, 0);
	assert_same(&f, &r.fab);
	subnet_free(&r);

	/* 20% of everything lost: retries and rounds still find it all. */
	fake_sma_loss(s, 200, 7);
	subnet_init(&r);
	assert_int_equal(sweep_discover(t, &r), 0);
	assert_true(fake_sma_dropped(s) > 3);
	assert_same(&f, &r.fab);
	subnet_free(&r);
	mt_close(t);
	fake_sma_free(s);
	fab_free(&f);
}

/* A CA whose SMA never answers: left out, its probe counted lost; a dead
 * switch: gone with its links, everything behind it still found (the
 * fat-tree has other paths). */
static void test_silent_and_dead(void **state)
{
	struct fabric f;
	struct fake_sma *s;
	struct mad_transport *t;
	struct subnet r;
	uint32_t ca = FAB_NONE, spine = FAB_NONE;

	(void)state;
	fattree(&f);
	for (uint32_t n = 1; n < f.num_nodes; n++) {
		if (ca == FAB_NONE && f.nodes[n].type == FAB_CA)
			ca = n;
		if (f.nodes[n].type == FAB_SWITCH && !strncmp(f.nodes[n].desc, "spine", 5))
			spine = n;
	}
	assert_int_not_equal(ca, FAB_NONE);
	assert_int_not_equal(spine, FAB_NONE);
	s = fake_sma_new(&f, 0, 1);
	assert_int_equal(fake_sma_open(s, NULL, &t), 0);
	fake_sma_silence(s, ca, 1);
	fake_sma_kill(s, spine);
	subnet_init(&r);
	assert_int_equal(sweep_discover(t, &r), 0);
	assert_int_equal(r.fab.num_nodes, f.num_nodes - 2);
	assert_int_equal(fab_find_node_guid(&r.fab, f.nodes[ca].guid), FAB_NONE);
	assert_int_equal(fab_find_node_guid(&r.fab, f.nodes[spine].guid), FAB_NONE);
	assert_int_equal(r.lost_probes, 1);
	subnet_free(&r);
	mt_close(t);
	fake_sma_free(s);
	fab_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fattree_whole),
		cmocka_unit_test(test_torus_whole),
		cmocka_unit_test(test_dropped_retried),
		cmocka_unit_test(test_silent_and_dead),
	};

	log_set_level(LOG_ERR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
