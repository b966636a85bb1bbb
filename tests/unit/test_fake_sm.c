/* The SM's heavy sweep (sm_heavy_sweep, the daemon's entry) against the
 * fake fabric (tests/unit/fake_sma.h): what it programs is what routing
 * computed, a second sweep writes nothing, a lost MAD is sent again, a
 * dead switch is routed around. */
#define _XOPEN_SOURCE 700
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <infiniband/mad.h>

#include "core/log.h"
#include "sm/sm_state.h"
#include "topogen/topo_gen.h"
#include "formats/topo_read.h"
#include "fake_sma.h"
#include "support.h"

struct rig {
	struct fabric f;
	struct fake_sma *s;
	struct mad_transport *t;
	struct ibsm_config cfg;
	struct sm sm;
	char dir[64];
};

/* Every cache directory made, removed at the end even when a test failed
 * half-way (cmocka leaves it by longjmp, before rig_down). */
static char made_dirs[32][64];
static unsigned num_made;

/* The fabrics: a 2-level fat-tree, a 3x3 torus, or a degraded 3-level
 * tree with random GUIDs from an ibsim net file (612 nodes). */
enum shape { FATTREE, TORUS, NETFILE };

static void rig_up(struct rig *g, enum shape shape)
{
	char err[256];

	memset(g, 0, sizeof(*g));
	if (shape == NETFILE) {
		assert_int_equal(topo_read_ibsim_net(&g->f,
			"tests/data/ft3-r12-deg2-rguid-s1.net"), 0);
	} else if (shape == TORUS) {
		struct torus_params p = { .dims = 2, .size = { 3, 3 }, .wrap = 1,
					  .hcas_per_switch = 2 };

		assert_int_equal(gen_torus(&g->f, &p, err), 0);
	} else {
		struct fattree_params p = { .levels = 2, .radix = 8, .oversub = 1 };

		assert_int_equal(gen_fattree(&g->f, &p, err), 0);
	}
	g->s = fake_sma_new(&g->f, 0, 1);
	assert_non_null(g->s);
	assert_int_equal(fake_sma_open(g->s, NULL, &g->t), 0);
	snprintf(g->dir, sizeof(g->dir), "/tmp/test_fake_sm-XXXXXX");
	assert_non_null(mkdtemp(g->dir));
	if (num_made < 32)
		memcpy(made_dirs[num_made++], g->dir, sizeof(g->dir));
	config_defaults(&g->cfg);
	snprintf(g->cfg.cache_dir, sizeof(g->cfg.cache_dir), "%s", g->dir);
	assert_int_equal(sm_init(&g->sm, &g->cfg, g->t), 0);
}

/* A second SM on the same fabric, on port 1 of CA node. */
struct peer {
	struct mad_transport *t;
	struct ibsm_config cfg;
	struct sm sm;
	char dir[64];
};

static void peer_up(struct rig *g, struct peer *pr, uint32_t node,
		    unsigned priority)
{
	char v[16];

	memset(pr, 0, sizeof(*pr));
	assert_int_equal(fake_sma_open_at(g->s, node, 1, NULL, &pr->t), 0);
	snprintf(pr->dir, sizeof(pr->dir), "/tmp/test_fake_sm-XXXXXX");
	assert_non_null(mkdtemp(pr->dir));
	if (num_made < 32)
		memcpy(made_dirs[num_made++], pr->dir, sizeof(pr->dir));
	config_defaults(&pr->cfg);
	snprintf(pr->cfg.cache_dir, sizeof(pr->cfg.cache_dir), "%s", pr->dir);
	snprintf(v, sizeof(v), "%u", priority);
	assert_int_equal(config_set(&pr->cfg, "sm_priority", v, "test"), 0);
	assert_int_equal(config_set(&pr->cfg, "sminfo_polling_timeout", "10", "test"), 0);
	assert_int_equal(sm_init(&pr->sm, &pr->cfg, pr->t), 0);
}

static void rig_down(struct rig *g)
{
	sm_free(&g->sm);
	mt_close(g->t);
	fake_sma_free(g->s);
	config_free(&g->cfg);
	fab_free(&g->f);
	ut_rm_tree(g->dir);
}

/* Every switch of the routed fabric holds, in the fake, the table routing
 * computed for it (sm->held), up to the top LID. */
static void assert_lfts_held_by(struct rig *g, const struct sm *sm)
{
	const struct lft_held *h = &sm->held;
	struct fabric *ff = (struct fabric *)fake_sma_fabric(g->s);
	uint32_t top = fab_max_lid(&h->fab), routed = 0;

	assert_true(h->valid);
	for (uint32_t i = 0; i < h->fab.num_switches; i++) {
		uint32_t n = fab_find_node_guid(ff, h->fab.nodes[h->fab.switches[i]].guid);

		assert_int_not_equal(n, FAB_NONE);
		for (uint32_t lid = 1; lid <= top; lid++) {
			assert_int_equal(fake_sma_lft(g->s, n, lid),
					 lft_get(&h->lft, i, lid));
			routed += lft_get(&h->lft, i, lid) != LFT_NO_PATH;
		}
	}
	assert_true(routed > 0);
}

static void assert_lfts_held(struct rig *g)
{
	assert_lfts_held_by(g, &g->sm);
}

/* Every linked port of a live node ACTIVE, every end port with its own
 * LID, the SM's LID in every port's MasterSMLID. */
static void assert_up(struct rig *g, uint32_t dead)
{
	const struct fabric *f = fake_sma_fabric(g->s);
	uint8_t seen[0x10000] = { 0 };

	for (uint32_t p = 0; p < f->num_ports; p++) {
		const struct fab_port *port = &f->ports[p];
		const uint8_t *pi = fake_sma_portinfo(g->s, p);
		uint16_t lid;

		if (port->node == dead || port->num == 0 || port->peer == FAB_NONE ||
		    f->ports[port->peer].node == dead)
			continue;
		assert_int_equal(mad_get_field((void *)pi, 0, IB_PORT_STATE_F),
				 FAB_PORT_ACTIVE);
		if (f->nodes[port->node].type == FAB_SWITCH)
			continue;
		lid = fake_sma_lid(g->s, p);
		assert_true(lid > 0);
		assert_false(seen[lid]);
		seen[lid] = 1;
		assert_int_equal(mad_get_field((void *)pi, 0, IB_PORT_SMLID_F), g->sm.lid);
	}
}

static void test_fattree_programmed(void **state)
{
	struct rig g;

	(void)state;
	rig_up(&g, FATTREE);
	assert_int_equal(sm_heavy_sweep(&g.sm), 0);
	assert_int_equal(g.sm.state, SMP_SM_MASTER);
	assert_lfts_held(&g);
	assert_up(&g, FAB_NONE);
	assert_true(fake_sma_count(g.s, IB_MAD_METHOD_SET, IB_ATTR_LINEARFORWTBL) > 0);

	/* Diff-only: the second sweep finds everything as programmed and
	 * sets nothing at all. */
	fake_sma_reset_counts(g.s);
	assert_int_equal(sm_heavy_sweep(&g.sm), 0);
	assert_int_equal(fake_sma_count(g.s, IB_MAD_METHOD_SET, IB_ATTR_LINEARFORWTBL), 0);
	assert_int_equal(fake_sma_count(g.s, IB_MAD_METHOD_SET, IB_ATTR_PORT_INFO), 0);
	assert_int_equal(fake_sma_count(g.s, IB_MAD_METHOD_SET, 0), 0);
	assert_lfts_held(&g);
	rig_down(&g);
}

static void test_torus_programmed(void **state)
{
	struct rig g;

	(void)state;
	rig_up(&g, TORUS);
	assert_int_equal(sm_heavy_sweep(&g.sm), 0);
	assert_lfts_held(&g);
	assert_up(&g, FAB_NONE);
	rig_down(&g);
}

/* A fabric as cabled by people (degraded, random GUIDs), from an ibsim
 * net file: programmed as routed, a second sweep sets nothing. */
static void test_netfile_programmed(void **state)
{
	struct rig g;

	(void)state;
	rig_up(&g, NETFILE);
	assert_int_equal(sm_heavy_sweep(&g.sm), 0);
	assert_int_equal(g.sm.cur.fab.num_nodes, g.f.num_nodes);
	assert_lfts_held(&g);
	assert_up(&g, FAB_NONE);
	fake_sma_reset_counts(g.s);
	assert_int_equal(sm_heavy_sweep(&g.sm), 0);
	assert_int_equal(fake_sma_count(g.s, IB_MAD_METHOD_SET, 0), 0);
	rig_down(&g);
}

static int has_pkey(const struct fake_sma *s, uint32_t p, uint16_t key)
{
	for (unsigned i = 0; i < 32; i++)
		if (fake_sma_pkey(s, p, i) == key)
			return 1;
	return 0;
}

/* Partitions (docs/partitions.md): the P_Key tables of CA ports and of
 * the switch ports facing them hold what the configuration says, the
 * switch ports enforce, and a second sweep writes nothing. */
static void test_partitions_programmed(void **state)
{
	struct rig g;
	const struct fabric *f;
	uint32_t ca[3], k = 0, a, b, c, sm_p, leaf_a;
	char path[128];
	FILE *y;

	(void)state;
	rig_up(&g, FATTREE);
	f = fake_sma_fabric(g.s);
	for (uint32_t n = f->num_nodes - 1; n > 0 && k < 3; n--)
		if (f->nodes[n].type == FAB_CA)
			ca[k++] = fab_port_idx(f, n, 1);
	assert_int_equal(k, 3);
	a = ca[0];
	b = ca[1];
	c = ca[2];
	sm_p = fab_port_idx(f, 0, 1);
	leaf_a = f->ports[a].peer;
	snprintf(path, sizeof(path), "%s/ibsm.yaml", g.dir);
	y = fopen(path, "w");
	assert_non_null(y);
	fprintf(y, "partitions:\n"
		"  - name: Default\n    pkey: 0x7fff\n    members: [ALL=limited, SELF=full]\n"
		"  - name: storage\n    pkey: 0x0001\n    defmember: full\n"
		"    members: [0x%016llx, 0x%016llx]\n",
		(unsigned long long)fake_sma_port_guid(g.s, a),
		(unsigned long long)fake_sma_port_guid(g.s, b));
	fclose(y);
	sm_free(&g.sm);
	assert_int_equal(config_load_yaml(&g.cfg, path), 0);
	assert_int_equal(sm_init(&g.sm, &g.cfg, g.t), 0);

	assert_int_equal(sm_heavy_sweep(&g.sm), 0);
	assert_true(has_pkey(g.s, sm_p, 0xFFFF));
	assert_true(has_pkey(g.s, a, 0x8001) && has_pkey(g.s, a, 0x7FFF));
	assert_true(has_pkey(g.s, b, 0x8001) && has_pkey(g.s, b, 0x7FFF));
	assert_true(has_pkey(g.s, c, 0x7FFF));
	assert_false(has_pkey(g.s, c, 0x8001) || has_pkey(g.s, c, 0x0001) ||
		     has_pkey(g.s, c, 0xFFFF));
	assert_true(has_pkey(g.s, leaf_a, 0x8001));
	assert_true(mad_get_field((void *)fake_sma_portinfo(g.s, leaf_a), 0,
				  IB_PORT_PART_EN_INB_F));
	assert_true(fake_sma_count(g.s, IB_MAD_METHOD_SET, IB_ATTR_PKEY_TBL) > 0);
	fake_sma_reset_counts(g.s);
	assert_int_equal(sm_heavy_sweep(&g.sm), 0);
	assert_int_equal(fake_sma_count(g.s, IB_MAD_METHOD_SET, 0), 0);
	rig_down(&g);
}

/* Layered routing (dfsp) on a torus: SL n on VL n in every switch's
 * SL2VL table between linked ports and on CA ports, before the tables
 * that use the layers; a second sweep sets nothing. */
static void test_layers_programmed(void **state)
{
	struct rig g;
	const struct fabric *f;
	unsigned layered = 0;

	(void)state;
	rig_up(&g, TORUS);
	sm_free(&g.sm);
	assert_int_equal(config_set(&g.cfg, "routing_engine", "dfsp", "test"), 0);
	assert_int_equal(config_set(&g.cfg, "max_vls", "4", "test"), 0);
	assert_int_equal(sm_init(&g.sm, &g.cfg, g.t), 0);
	assert_int_equal(sm_heavy_sweep(&g.sm), 0);
	assert_true(g.sm.sl.vls_used > 1);
	assert_lfts_held(&g);
	f = fake_sma_fabric(g.s);
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		const struct fab_node *nd = &f->nodes[n];

		for (unsigned in = 1; in <= nd->num_ports; in++) {
			unsigned out = nd->type == FAB_SWITCH ? (in % nd->num_ports) + 1 : 0;
			const uint8_t *t = fake_sma_sl2vl(g.s, n, in, out);

			if (f->ports[nd->first_port + in].peer == FAB_NONE ||
			    (out && f->ports[nd->first_port + out].peer == FAB_NONE))
				continue;
			/* SL1 -> VL1: the low nibble of byte 0 (IBA 14.2.5.8) */
			assert_int_equal(t[0] & 0xf, 1);
			layered++;
		}
	}
	assert_true(layered > 0);
	assert_true(fake_sma_count(g.s, IB_MAD_METHOD_SET, IB_ATTR_SLVL_TABLE) > 0);
	fake_sma_reset_counts(g.s);
	assert_int_equal(sm_heavy_sweep(&g.sm), 0);
	assert_int_equal(fake_sma_count(g.s, IB_MAD_METHOD_SET, 0), 0);
	rig_down(&g);
}

/* LFT Sets lost on the way: the transport sends them again, the tables
 * end up whole. */
static void test_lost_lft_sets(void **state)
{
	struct rig g;

	(void)state;
	rig_up(&g, FATTREE);
	fake_sma_drop(g.s, IB_ATTR_LINEARFORWTBL, IB_MAD_METHOD_SET, 3);
	assert_int_equal(sm_heavy_sweep(&g.sm), 0);
	assert_int_equal(fake_sma_dropped(g.s), 3);
	assert_true(mt_get_stats(g.t)->retried >= 3);
	assert_lfts_held(&g);
	rig_down(&g);
}

/* A spine dies after the fabric is up: its neighbours' trap 128 makes
 * the smaller view believable, the next sweep routes around it and
 * rewrites only what changed. */
static void test_dead_switch(void **state)
{
	struct rig g;
	const struct fabric *f;
	uint32_t spine = FAB_NONE, lft_sets;

	(void)state;
	rig_up(&g, FATTREE);
	f = fake_sma_fabric(g.s);
	for (uint32_t n = 0; n < f->num_nodes; n++)
		if (f->nodes[n].type == FAB_SWITCH && !strncmp(f->nodes[n].desc, "spine", 5))
			spine = n;
	assert_int_not_equal(spine, FAB_NONE);
	assert_int_equal(sm_heavy_sweep(&g.sm), 0);
	fake_sma_kill(g.s, spine);
	fake_sma_reset_counts(g.s);
	assert_int_equal(sm_heavy_sweep(&g.sm), 0);
	assert_int_equal(g.sm.cur.fab.num_nodes, f->num_nodes - 1);
	assert_int_equal(fab_find_node_guid(&g.sm.held.fab, f->nodes[spine].guid),
			 FAB_NONE);
	assert_lfts_held(&g);
	assert_up(&g, spine);
	lft_sets = fake_sma_count(g.s, IB_MAD_METHOD_SET, IB_ATTR_LINEARFORWTBL);
	assert_true(lft_sets > 0);
	/* No live switch forwards anything into the dead one. */
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		if (n == spine || f->nodes[n].type != FAB_SWITCH)
			continue;
		for (uint32_t lid = 1; lid <= fab_max_lid(&g.sm.held.fab); lid++) {
			uint8_t out = fake_sma_lft(g.s, n, lid);
			uint32_t p;

			if (out == LFT_NO_PATH || out == 0)
				continue;
			p = fab_port_idx(f, n, out);
			assert_int_not_equal(fab_peer_node(f, p), spine);
		}
	}
	rig_down(&g);
}

/* The light sweep sees a host power off through its leaf's
 * PortStateChange, and nothing when nothing changed. */
static void test_light_sweep(void **state)
{
	struct rig g;
	const struct fabric *f;
	uint32_t ca = FAB_NONE;
	int changed = -1;

	(void)state;
	rig_up(&g, FATTREE);
	f = fake_sma_fabric(g.s);
	for (uint32_t n = 1; n < f->num_nodes && ca == FAB_NONE; n++)
		if (f->nodes[n].type == FAB_CA)
			ca = n;
	assert_int_equal(sm_heavy_sweep(&g.sm), 0);
	assert_int_equal(sm_light_sweep(&g.sm, &changed), 0);
	assert_int_equal(changed, 0);
	fake_sma_kill(g.s, ca);
	assert_int_equal(sm_light_sweep(&g.sm, &changed), 0);
	assert_int_equal(changed, 1);
	rig_down(&g);
}

/* Another SM, master with a better priority, answers SMInfo: the heavy
 * sweep programs nothing and we are STANDBY (IBA 14.4.1). */
static void test_better_master(void **state)
{
	struct rig g;
	const struct fabric *f;
	uint32_t ca = FAB_NONE;

	(void)state;
	rig_up(&g, FATTREE);
	f = fake_sma_fabric(g.s);
	for (uint32_t n = f->num_nodes - 1; n > 0 && ca == FAB_NONE; n--)
		if (f->nodes[n].type == FAB_CA)
			ca = n;
	assert_int_equal(fake_sma_add_sm(g.s, ca, 1, f->nodes[ca].guid + 1,
					 g.cfg.sm_key, 9, SMP_SM_MASTER), 0);
	assert_int_equal(sm_heavy_sweep(&g.sm), SM_SWEEP_STANDBY);
	assert_int_equal(g.sm.state, SMP_SM_STANDBY);
	assert_int_equal(fake_sma_count(g.s, IB_MAD_METHOD_SET, 0), 0);
	assert_true(fake_sma_count(g.s, IB_MAD_METHOD_GET, IB_ATTR_SMINFO) >= 1);
	rig_down(&g);
}

/* A CA whose SMA hangs (silent from the start): with no grace to wait,
 * the rest is programmed and the fabric is up without it (unreachable.h). */
static void test_silent_ca(void **state)
{
	struct rig g;
	const struct fabric *f;
	uint32_t ca = FAB_NONE;

	(void)state;
	rig_up(&g, FATTREE);
	g.cfg.missing_grace_s = 0;
	sm_free(&g.sm);
	assert_int_equal(sm_init(&g.sm, &g.cfg, g.t), 0);
	f = fake_sma_fabric(g.s);
	for (uint32_t n = f->num_nodes - 1; n > 0 && ca == FAB_NONE; n--)
		if (f->nodes[n].type == FAB_CA)
			ca = n;
	fake_sma_silence(g.s, ca, 1);
	assert_int_equal(sm_heavy_sweep(&g.sm), 0);
	assert_int_equal(g.sm.unreach.n, 1);
	assert_int_equal(fab_find_node_guid(&g.sm.cur.fab, f->nodes[ca].guid), FAB_NONE);
	assert_lfts_held(&g);
	/* It wakes up: the next sweep takes it in. */
	fake_sma_silence(g.s, ca, 0);
	assert_int_equal(sm_heavy_sweep(&g.sm), 0);
	assert_int_equal(g.sm.unreach.n, 0);
	assert_int_not_equal(fab_find_node_guid(&g.sm.cur.fab, f->nodes[ca].guid),
			     FAB_NONE);
	assert_lfts_held(&g);
	assert_up(&g, FAB_NONE);
	rig_down(&g);
}

/* 10% of all MADs lost: the fabric comes up within a few sweeps (the SM
 * raises its retries after a lossy discovery), tables as routed. */
static void test_lossy_converges(void **state)
{
	struct rig g;
	int rc = 1;

	(void)state;
	rig_up(&g, FATTREE);
	fake_sma_loss(g.s, 100, 42);
	for (int i = 0; i < 5 && rc != 0; i++)
		rc = sm_heavy_sweep(&g.sm);
	assert_int_equal(rc, 0);
	assert_true(fake_sma_dropped(g.s) > 0);
	fake_sma_loss(g.s, 0, 1);
	assert_lfts_held(&g);
	assert_up(&g, FAB_NONE);
	rig_down(&g);
}

static void peer_down(struct peer *pr)
{
	sm_free(&pr->sm);
	mt_close(pr->t);
	config_free(&pr->cfg);
}

/* Two SMs (IBA 14.4): the second finds the first MASTER and stays
 * STANDBY, programming nothing; it polls the master (LID-routed SMInfo
 * through the tables the master wrote), and when the master's host dies
 * it takes over and brings the fabric up itself. */
static void test_standby_takeover(void **state)
{
	struct rig g;
	struct peer pr;
	const struct fabric *f;
	uint32_t other = FAB_NONE;
	int took = 0;
	double t0;

	(void)state;
	rig_up(&g, FATTREE);
	f = fake_sma_fabric(g.s);
	for (uint32_t n = f->num_nodes - 1; n > 0 && other == FAB_NONE; n--)
		if (f->nodes[n].type == FAB_CA)
			other = n;
	peer_up(&g, &pr, other, 0);       /* a tie: the lower GUID leads */
	assert_int_equal(sm_heavy_sweep(&g.sm), 0);
	assert_int_equal(g.sm.state, SMP_SM_MASTER);
	fake_sma_reset_counts(g.s);
	assert_int_equal(sm_heavy_sweep(&pr.sm), SM_SWEEP_STANDBY);
	assert_int_equal(pr.sm.state, SMP_SM_STANDBY);
	assert_int_equal(fake_sma_count(g.s, IB_MAD_METHOD_SET, 0), 0);

	/* Polls answered: still STANDBY. */
	t0 = now_seconds();
	while (now_seconds() < t0 + 0.1) {
		assert_int_equal(sm_standby_tick(&pr.sm, now_seconds()), 0);
		assert_int_equal(mt_poll(pr.t, 5), 0);
	}
	assert_int_equal(pr.sm.state, SMP_SM_STANDBY);
	assert_int_equal(pr.sm.standby.poll.misses, 0);

	fake_sma_kill(g.s, 0);
	t0 = now_seconds();
	while (!took && now_seconds() < t0 + 2) {
		took = sm_standby_tick(&pr.sm, now_seconds());
		assert_int_equal(mt_poll(pr.t, 5), 0);
	}
	assert_true(took);
	assert_int_equal(sm_heavy_sweep(&pr.sm), 0);
	assert_int_equal(pr.sm.state, SMP_SM_MASTER);
	assert_int_equal(fab_find_node_guid(&pr.sm.held.fab, f->nodes[0].guid),
			 FAB_NONE);
	peer_down(&pr);
	rig_down(&g);
}

/* A better SM joins (IBA 14.4.1.2, honor_priority): it stays STANDBY
 * under the running master, whose next sweep hands the subnet over
 * (SMInfo HANDOVER, answered by ACKNOWLEDGE); the master steps down
 * without programming, the newcomer sweeps as MASTER. */
static void test_handover(void **state)
{
	struct rig g;
	struct peer pr;
	const struct fabric *f;
	uint32_t other = FAB_NONE;
	int rc;

	(void)state;
	rig_up(&g, FATTREE);
	f = fake_sma_fabric(g.s);
	for (uint32_t n = f->num_nodes - 1; n > 0 && other == FAB_NONE; n--)
		if (f->nodes[n].type == FAB_CA)
			other = n;
	assert_int_equal(sm_heavy_sweep(&g.sm), 0);
	peer_up(&g, &pr, other, 5);
	assert_int_equal(sm_heavy_sweep(&pr.sm), SM_SWEEP_STANDBY);
	assert_int_equal(pr.sm.state, SMP_SM_STANDBY);
	/* The HANDOVER goes out and the sweep goes on; the ACKNOWLEDGE is
	 * taken from the transport while a later phase waits for its MADs,
	 * and the sweep stops after that phase: it ends as one that left
	 * the subnet to the other SM, not as one that programmed it. */
	rc = sm_heavy_sweep(&g.sm);
	assert_int_equal(rc, SM_SWEEP_STANDBY);
	assert_int_equal(g.sm.state, SMP_SM_STANDBY);
	/* The newcomer handles what reached it, then sweeps as master. */
	assert_int_equal(mt_poll(pr.t, 0), 0);
	assert_int_equal(sm_heavy_sweep(&pr.sm), 0);
	assert_int_equal(pr.sm.state, SMP_SM_MASTER);
	assert_lfts_held_by(&g, &pr.sm);
	/* The old master, STANDBY now, sweeps and programs nothing. */
	fake_sma_reset_counts(g.s);
	assert_int_equal(sm_heavy_sweep(&g.sm), SM_SWEEP_STANDBY);
	assert_int_equal(fake_sma_count(g.s, IB_MAD_METHOD_SET, 0), 0);
	peer_down(&pr);
	rig_down(&g);
}

static int remove_dirs(void **state)
{
	(void)state;
	for (unsigned i = 0; i < num_made; i++)
		ut_rm_tree(made_dirs[i]);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fattree_programmed),
		cmocka_unit_test(test_torus_programmed),
		cmocka_unit_test(test_netfile_programmed),
		cmocka_unit_test(test_partitions_programmed),
		cmocka_unit_test(test_layers_programmed),
		cmocka_unit_test(test_lost_lft_sets),
		cmocka_unit_test(test_dead_switch),
		cmocka_unit_test(test_light_sweep),
		cmocka_unit_test(test_better_master),
		cmocka_unit_test(test_standby_takeover),
		cmocka_unit_test(test_handover),
		cmocka_unit_test(test_silent_ca),
		cmocka_unit_test(test_lossy_converges),
	};

	log_set_level(getenv("FAKE_SM_LOG") ? LOG_DEBUG : LOG_ERR);
	return cmocka_run_group_tests(tests, NULL, remove_dirs);
}
