/* Multicast (multicast/): group rules and spanning trees. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "multicast/mcast_db.h"
#include "multicast/mcast_tree.h"
#include "topogen/topo_gen.h"

static void test_groups(void **state)
{
	struct mcast_db db;
	uint8_t bc[16], zero[16] = { 0 };
	struct mcast_group *g, *h;
	uint16_t mlid;

	(void)state;
	mcast_db_init(&db);
	mcast_ipoib_broadcast_mgid(bc, 0xffff);
	assert_int_equal(bc[0], 0xff);
	assert_int_equal(bc[1], 0x12);
	assert_int_equal(bc[2], 0x40);
	assert_int_equal(bc[3], 0x1b);
	g = mcast_create(&db, bc, 0xffff, 0x0B1B, 4, 3, true);
	assert_non_null(g);
	assert_int_equal(g->mlid, MCAST_MLID_BASE);
	assert_null(mcast_create(&db, bc, 0xffff, 0x0B1B, 4, 3, false)); /* MGID taken */
	/* SM-assigned MGIDs differ and get the next MLIDs. */
	h = mcast_create(&db, zero, 0x8001, 0x1234, 4, 3, false);
	assert_non_null(h);
	assert_int_equal(h->mlid, MCAST_MLID_BASE + 1);
	assert_int_equal(h->mgid[0], 0xff);
	assert_memory_not_equal(h->mgid, zero, 16);
	mlid = h->mlid;
	/* Join states add up; a partial leave keeps the member. */
	assert_int_equal(mcast_join(&db, h, 0x10, MCAST_FULL), 0);
	assert_int_equal(mcast_join(&db, h, 0x10, MCAST_NON), 0);
	assert_int_equal(mcast_join(&db, h, 0x20, MCAST_SENDONLY), 0);
	assert_int_equal(mcast_member_find(h, 0x10)->join_state, MCAST_FULL | MCAST_NON);
	assert_int_equal(mcast_leave(&db, h, 0x10, MCAST_NON), MCAST_NON);
	assert_non_null(mcast_find_mlid(&db, mlid));
	/* The last full member leaves: the group goes, send-only too. */
	h = mcast_find_mlid(&db, mlid);
	assert_int_equal(mcast_leave(&db, h, 0x10, MCAST_FULL), MCAST_FULL);
	assert_null(mcast_find_mlid(&db, mlid));
	/* The predefined broadcast group stays empty. */
	g = mcast_find_mgid(&db, bc);
	assert_int_equal(mcast_join(&db, g, 0x30, MCAST_FULL), 0);
	assert_int_equal(mcast_leave(&db, g, 0x30, MCAST_FULL), MCAST_FULL);
	assert_non_null(mcast_find_mgid(&db, bc));
	/* A freed MLID is reused. */
	h = mcast_create(&db, zero, 0xffff, 1, 4, 3, false);
	assert_int_equal(h->mlid, mlid);
	mcast_db_free(&db);
}

/* The switches with a mask for mlid, and the links masked at both ends. */
static void tree_shape(const struct fabric *f, const struct mft_set *m,
		       uint16_t mlid, unsigned *nodes, unsigned *edges,
		       unsigned *half)
{
	*nodes = *edges = *half = 0;
	for (uint32_t s = 0; s < f->num_switches; s++) {
		uint32_t n = f->switches[s];
		const uint8_t *mk = mft_mask(m, s, mlid);
		int any = 0;

		for (unsigned i = 1; i <= f->nodes[n].num_ports; i++) {
			uint32_t p = fab_port_idx(f, n, i), q = f->ports[p].peer;

			if (!mft_has_port(mk, i))
				continue;
			any = 1;
			if (q == FAB_NONE || !fab_is_switch(f, f->ports[q].node))
				continue;
			{
				uint32_t t = f->nodes[f->ports[q].node].sw_index;

				if (!mft_has_port(mft_mask(m, t, mlid), f->ports[q].num))
					(*half)++;
				else if (s < t)
					(*edges)++;
			}
		}
		*nodes += any;
	}
}

static void test_trees_on_fattree(void **state)
{
	struct fabric f;
	struct fattree_params p = { .levels = 3, .radix = 8, .oversub = 1 };
	struct mcast_db db;
	struct mft_set m;
	char err[256];
	uint8_t mgid[16] = { 0xff, 0x12 };
	unsigned roots_top = 0;

	(void)state;
	assert_int_equal(gen_fattree(&f, &p, err), 0);
	mcast_db_init(&db);
	/* Eight groups with the same members on distant leaves. */
	for (int k = 0; k < 8; k++) {
		struct mcast_group *g;
		unsigned cas = 0;

		mgid[15] = (uint8_t)(k + 1);
		g = mcast_create(&db, mgid, 0xffff, 1, 4, 3, false);
		assert_non_null(g);
		for (uint32_t n = 0; n < f.num_nodes && cas < 6; n++) {
			if (fab_is_switch(&f, n))
				continue;
			if (n % 13 == 0) {
				assert_int_equal(mcast_join(&db, g, fab_port(&f, n, 1)->guid,
							    cas == 5 ? MCAST_SENDONLY : MCAST_FULL), 0);
				cas++;
			}
		}
	}
	assert_int_equal(mcast_compute_mfts(&f, &db, &m), 0);
	for (uint32_t i = 0; i < db.num_groups; i++) {
		const struct mcast_group *g = &db.groups[i];
		unsigned nodes, edges, half;

		tree_shape(&f, &m, g->mlid, &nodes, &edges, &half);
		assert_int_equal(half, 0);              /* every link both ways */
		assert_true(nodes > 1);
		assert_int_equal(edges, nodes - 1);     /* a tree */
		/* Receivers' ports masked; the send-only member's not. */
		unsigned checked = 0;

		for (uint32_t k = 0; k < g->num_members; k++) {
			uint32_t q = FAB_NONE;

			for (uint32_t pp = 0; pp < f.num_ports; pp++)
				if (f.ports[pp].guid == g->members[k].port_guid &&
				    !fab_is_switch(&f, f.ports[pp].node))
					q = f.ports[pp].peer;
			assert_int_not_equal(q, FAB_NONE);
			checked++;
			assert_int_equal(mft_has_port(mft_mask(&m, f.nodes[f.ports[q].node].sw_index, g->mlid),
						      f.ports[q].num),
					 g->members[k].join_state != MCAST_SENDONLY);
		}
		assert_int_equal(checked, 6);
	}
	/* The groups do not all share one root: count core switches used. */
	for (uint32_t s = 0; s < f.num_switches; s++) {
		int used = 0;

		if (strncmp(f.nodes[f.switches[s]].desc, "core", 4))
			continue;
		for (uint32_t i = 0; i < db.num_groups; i++) {
			const uint8_t *mk = mft_mask(&m, s, db.groups[i].mlid);

			for (unsigned b = 0; b < MFT_MASK_BYTES; b++)
				used |= mk[b];
		}
		roots_top += used != 0;
	}
	assert_true(roots_top > 1);
	mft_free(&m);
	mcast_db_free(&db);
	fab_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_groups),
		cmocka_unit_test(test_trees_on_fattree),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
