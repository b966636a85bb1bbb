/* The routing callbacks OpenSM calls for an "ibsm-<engine>" engine.
 *
 * OpenSM's unicast manager (osm_ucast_mgr.c, ucast_mgr_route) calls
 * build_lid_matrices, then ucast_build_fwd_tables; a negative return from
 * either moves it to the next engine of `routing_engine` (and finally to
 * minhop), a positive one would make it run its own minhop code in our
 * place, so every failure here returns -1. Before routing it has sized and
 * cleared each switch's new_lft (osm_switch_prepare_path_rebuild); after a
 * success it sends the new_lft blocks that differ from the switch's lft.
 *
 * Hop tables: OpenSM's multicast manager picks spanning-tree ports from
 * osm_switch_get_least_hops() on switch LIDs. Like OpenSM's ftree we record,
 * for every switch and every switch LID, the hop count along our own route
 * through the port we chose, so multicast trees follow the unicast routes
 * (which a destination-based LFT makes a tree). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cn_rank.h"
#include "formats/topo_read.h"
#include "ibsm_osm.h"

#define HOP_UNKNOWN 0xFFFE
#define HOP_NONE 0xFFFF
#define HOP_BUSY 0xFFFD

/* Guid lists for route_options, read afresh on every routing (as OpenSM
 * re-reads its own root_guid_file). */
struct guid_lists {
	uint64_t *roots, *cn;
	int nroots, ncn;
};

static int load_lists(osm_opensm_t *osm, const struct ibsm_osm_opts *o,
		      struct guid_lists *g, char *why)
{
	const char *roots = o->roots[0] ? o->roots : osm->subn.opt.root_guid_file;
	const char *cn = o->cn[0] ? o->cn : osm->subn.opt.cn_guid_file;

	memset(g, 0, sizeof(*g));
	if (roots && *roots) {
		g->nroots = ibsm_osm_guid_file_load(roots, &g->roots, why, 256);
		if (g->nroots < 0)
			return g->nroots;
	}
	if (cn && *cn) {
		g->ncn = ibsm_osm_guid_file_load(cn, &g->cn, why, 256);
		if (g->ncn < 0) {
			free(g->roots);
			return g->ncn;
		}
	}
	return 0;
}

static void free_lists(struct guid_lists *g)
{
	free(g->roots);
	free(g->cn);
}

/* Every entry must name a port the switch has: OpenSM would program it. */
static int check_ports(const struct ibsm_osm_fabric *of,
		       const struct lft_set *t, char *why)
{
	for (uint32_t s = 0; s < of->fab.num_switches; s++) {
		const osm_switch_t *sw = of->sw_of[s];
		const uint8_t *row = lft_row(t, s);
		uint32_t top = t->max_lid;
		for (uint32_t lid = 1; lid <= top; lid++) {
			if (row[lid] == LFT_NO_PATH)
				continue;
			if (row[lid] >= sw->num_ports || lid > sw->max_lid_ho) {
				snprintf(why, 256, "engine routed LID %u to port %u "
					 "of switch 0x%016" PRIx64 " (%u ports, "
					 "LIDs up to %u)", lid, row[lid],
					 of->fab.nodes[of->fab.switches[s]].guid,
					 sw->num_ports - 1u, sw->max_lid_ho);
				return -ERANGE;
			}
		}
	}
	return 0;
}

/* 1 for LIDs (base or LMC alias) owned by a switch's port 0. */
static uint8_t *switch_lid_map(const struct fabric *f, uint32_t max_lid)
{
	uint8_t *is_sw = calloc((size_t)max_lid + 1, 1);
	if (!is_sw)
		return NULL;
	for (uint32_t s = 0; s < f->num_switches; s++) {
		const struct fab_port *p0 = fab_port(f, f->switches[s], 0);
		for (uint32_t l = p0->lid; p0->lid && l < p0->lid + (1u << p0->lmc)
		     && l <= max_lid; l++)
			is_sw[l] = 1;
	}
	return is_sw;
}

/* Copy the tables into new_lft; returns the number of routed entries. */
static uint64_t write_new_lfts(osm_opensm_t *osm,
			       const struct ibsm_osm_fabric *of,
			       const struct lft_set *t, const uint8_t *is_sw)
{
	uint64_t routed = 0;
	int profile_sw = osm->subn.opt.port_profile_switch_nodes;

	for (uint32_t s = 0; s < of->fab.num_switches; s++) {
		osm_switch_t *sw = of->sw_of[s];
		const uint8_t *row = lft_row(t, s);
		uint32_t top = t->max_lid < sw->max_lid_ho ? t->max_lid :
			sw->max_lid_ho;
		memset(sw->new_lft, OSM_NO_PATH, sw->lft_size);
		for (uint32_t lid = 1; lid <= top; lid++) {
			if (row[lid] == LFT_NO_PATH)
				continue;
			sw->new_lft[lid] = row[lid];
			routed++;
			/* Port profiles, counted as OpenSM's file engine does. */
			if (!(profile_sw && is_sw[lid]))
				osm_switch_count_path(sw, row[lid]);
		}
	}
	return routed;
}

/* Switch ordinal at the far end of port `port` of switch s, or FAB_NONE. */
static uint32_t next_switch(const struct fabric *f, uint32_t s, uint8_t port)
{
	uint32_t n = f->switches[s];
	if (port == 0 || port > f->nodes[n].num_ports)
		return FAB_NONE;
	uint32_t q = f->ports[f->nodes[n].first_port + port].peer;
	if (q == FAB_NONE || !fab_is_switch(f, f->ports[q].node))
		return FAB_NONE;
	return f->nodes[f->ports[q].node].sw_index;
}

/* Hops from every switch to LID `lid` owned by switch d, along the routes in
 * t; a route that loops or dead-ends gets HOP_NONE. */
static void hops_to(const struct fabric *f, const struct lft_set *t,
		    uint32_t d, uint32_t lid, uint16_t *hop, uint32_t *stack)
{
	uint32_t nsw = f->num_switches;

	for (uint32_t s = 0; s < nsw; s++)
		hop[s] = HOP_UNKNOWN;
	hop[d] = 0;
	for (uint32_t s = 0; s < nsw; s++) {
		uint32_t depth = 0, cur = s;
		while (hop[cur] == HOP_UNKNOWN) {
			hop[cur] = HOP_BUSY;
			stack[depth++] = cur;
			uint32_t nx = next_switch(f, cur, lft_get(t, cur, lid));
			if (nx == FAB_NONE) {
				cur = FAB_NONE;
				break;
			}
			cur = nx;
		}
		uint16_t h = cur == FAB_NONE || hop[cur] >= HOP_BUSY ? HOP_NONE :
			hop[cur];
		while (depth) {
			uint32_t x = stack[--depth];
			h = h == HOP_NONE || h >= 254 ? HOP_NONE : (uint16_t)(h + 1);
			hop[x] = h;
		}
	}
}

static int set_switch_hops(const struct ibsm_osm_fabric *of,
			   const struct lft_set *t)
{
	const struct fabric *f = &of->fab;
	uint32_t nsw = f->num_switches;
	uint16_t *hop = malloc((nsw ? nsw : 1) * sizeof(*hop));
	uint32_t *stack = malloc((nsw ? nsw : 1) * sizeof(*stack));

	if (!hop || !stack) {
		free(hop);
		free(stack);
		return -ENOMEM;
	}
	for (uint32_t d = 0; d < nsw; d++) {
		const struct fab_port *p0 = fab_port(f, f->switches[d], 0);
		for (uint32_t lid = p0->lid; p0->lid &&
		     lid < p0->lid + (1u << p0->lmc) && lid <= t->max_lid; lid++) {
			hops_to(f, t, d, lid, hop, stack);
			for (uint32_t s = 0; s < nsw; s++) {
				if (hop[s] == HOP_NONE)
					continue;
				uint8_t port = s == d ? 0 : lft_get(t, s, lid);
				osm_switch_set_hops(of->sw_of[s], (uint16_t)lid, port,
						    (uint8_t)hop[s]);
			}
		}
	}
	free(hop);
	free(stack);
	return 0;
}

/* Debug aid (dump=PREFIX): the graph as routed and the tables. */
static void dump_run(osm_opensm_t *osm, const char *prefix,
		     const struct fabric *f, const struct lft_set *t,
		     const struct path_sl *sl)
{
	char path[IBSM_OSM_PATH_LEN + 16];

	snprintf(path, sizeof(path), "%s.topo", prefix);
	if (topo_write_ibnetdiscover(f, path))
		OSM_LOG(&osm->log, OSM_LOG_ERROR, "ibsm: cannot write %s\n", path);
	snprintf(path, sizeof(path), "%s.lfts", prefix);
	if (lft_write_dump_fts(f, t, path))
		OSM_LOG(&osm->log, OSM_LOG_ERROR, "ibsm: cannot write %s\n", path);
	if (sl && sl->vls_used > 1) {
		snprintf(path, sizeof(path), "%s.sl", prefix);
		/* With the CA-to-switch-LID paths: a per-SL check of the
		 * switches' tables needs them (they are in the CDGs). */
		if (path_sl_write(f, sl, path, 1))
			OSM_LOG(&osm->log, OSM_LOG_ERROR, "ibsm: cannot write "
				"%s\n", path);
	}
}

static void keep_prev(struct ibsm_osm_engine *e, struct fabric *fab,
		      struct lft_set *t)
{
	if (e->have_prev) {
		fab_free(&e->prev_fab);
		lft_free(&e->prev);
	}
	e->prev_fab = *fab;
	e->prev = *t;
	e->have_prev = 1;
	fab_init(fab);
	memset(t, 0, sizeof(*t));
}

/* Data VLs from an OperationalVLs / VLCap code (IBA 14.2.5.6). */
static unsigned vls_of_code(unsigned code)
{
	static const unsigned n[] = { 0, 1, 2, 4, 8, 15 };

	return code < sizeof(n) / sizeof(n[0]) ? n[code] : 0;
}

/* The layer budget: the data VLs every linked port can run (VLCap at
 * both ends, as the daemon's vlprog_fabric_vls), at most OpenSM's
 * max_op_vls, at most the vls option. */
static unsigned fabric_vls(osm_subn_t *subn, const struct ibsm_osm_opts *o)
{
	unsigned vls = vls_of_code(subn->opt.max_op_vls);

	if (!vls)
		vls = 15;
	for (cl_map_item_t *it = cl_qmap_head(&subn->node_guid_tbl);
	     it != cl_qmap_end(&subn->node_guid_tbl); it = cl_qmap_next(it)) {
		osm_node_t *nd = (osm_node_t *)it;
		unsigned np = osm_node_get_num_physp(nd);

		for (unsigned pn = 1; pn < np; pn++) {
			osm_physp_t *p = osm_node_get_physp_ptr(nd, pn);
			unsigned v;

			if (!p || !osm_physp_is_valid(p) || !osm_physp_get_remote(p))
				continue;
			v = vls_of_code(ib_port_info_get_vl_cap(&p->port_info));
			if (v && v < vls)
				vls = v;
		}
	}
	if (o->vls && o->vls < vls)
		vls = o->vls;
	return vls;
}

/* OpenSM's SA asks this for every PathRecord (and MultiPathRecord): the
 * SL our layered routes put the path on; OpenSM's own choice otherwise. */
static uint8_t ibsm_path_sl(void *context, uint8_t hint,
			    const ib_net16_t slid, const ib_net16_t dlid)
{
	struct ibsm_osm_engine *e = context;

	if (!e || e->sl.vls_used <= 1)
		return hint;
	return path_sl_lookup(&e->sl, cl_ntoh16(slid), cl_ntoh16(dlid));
}

/* With QoS on (OpenSM -Q), OpenSM asks this for every SL2VL table it
 * programs (each in/out port pair of a switch, each CA port), starting
 * from its QoS configuration: the SLs our routes use go to the VL of the
 * same number, so each layer keeps its own VL along the whole path; the
 * other SLs keep what QoS gave them. */
static void ibsm_update_sl2vl(void *context, osm_physp_t *port,
			      uint8_t in_port, uint8_t out_port,
			      ib_slvl_table_t *t)
{
	struct ibsm_osm_engine *e = context;

	(void)port;
	(void)in_port;
	(void)out_port;
	if (!e || e->sl.vls_used <= 1)
		return;
	for (uint8_t sl = 0; sl < e->sl.vls_used && sl < 15; sl++)
		ib_slvl_table_set(t, sl, sl);
}

static int route_fabric(struct ibsm_osm_engine *e,
			const struct ibsm_osm_opts *o,
			struct ibsm_osm_fabric *of, struct lft_set *t, char *why)
{
	osm_opensm_t *osm = e->plugin->osm;
	struct guid_lists g;
	int r = load_lists(osm, o, &g, why);
	if (r)
		return r;
	struct route_options ro = {
		.lmc = osm->subn.opt.lmc,
		.root_guids = g.roots,
		.num_root_guids = (uint32_t)g.nroots,
		.cn_guids = g.cn,
		.num_cn_guids = (uint32_t)g.ncn,
		.threads = o->threads,
	};
	uint32_t *rank = NULL;
	/* Rank order for ftree (core/cn_rank.h), as the daemon's cn_order. */
	if (strcmp(o->cn_order, "port") &&
	    cn_rank_build(&of->fab, o->cn_order, &rank) < 0) {
		snprintf(why, 256, "cn_order %.200s cannot be used", o->cn_order);
		free_lists(&g);
		return -EINVAL;
	}
	ro.cn_rank = rank;
	/* Layered engines (dfsp) may use several SLs: OpenSM hands them out
	 * through path_sl and maps them through update_sl2vl. */
	path_sl_free(&e->sl);
	if (path_sl_alloc(&e->sl, &of->fab) < 0) {
		snprintf(why, 256, "out of memory for path SLs");
		free(rank);
		free_lists(&g);
		return -ENOMEM;
	}
	ro.sl_out = &e->sl;
	ro.max_vls = (uint8_t)fabric_vls(&osm->subn, o);
	if (!osm->subn.opt.qos && ro.max_vls > 1 &&
	    (e->engine->flags & ROUTE_ENGINE_LAYERED)) {
		/* Without QoS OpenSM never calls update_sl2vl: every SL would
		 * land on VL 0, so ask for one layer (dfsp then routes on the
		 * dependency graph, deadlock-free on one VL). */
		OSM_LOG(&osm->log, OSM_LOG_INFO, "ibsm: %s: OpenSM runs "
			"without QoS: routing on one layer\n", e->engine->name);
		ro.max_vls = 1;
	}
	if (o->reroute && e->have_prev) {
		ro.prev = &e->prev;
		ro.prev_fab = &e->prev_fab;
	}
	r = route_run(e->engine, &of->fab, &ro, t, why);
	free(rank);
	free_lists(&g);
	if (r)
		path_sl_free(&e->sl);
	else if (e->sl.vls_used > 1 && !osm->subn.opt.qos) {
		/* Without QoS OpenSM never calls update_sl2vl: the SLs would
		 * all land on VL 0 and the layers would deadlock. */
		snprintf(why, 256, "routes need %u SL layers, but OpenSM runs "
			 "without QoS (-Q, qos TRUE), so it would not map them "
			 "to VLs", e->sl.vls_used);
		path_sl_free(&e->sl);
		r = -ENOTSUP;
	} else if (e->sl.vls_used > 1) {
		uint32_t vls = 0;
		char cwhy[160];
		int loop = path_sl_check(&of->fab, t, &e->sl, &vls, cwhy,
					 sizeof(cwhy));

		if (loop) {
			snprintf(why, 256, "layered tables fail the per-SL "
				 "credit-loop check: %.180s", loop < 0 ?
				 strerror(-loop) : cwhy);
			path_sl_free(&e->sl);
			r = loop < 0 ? loop : -EDEADLK;
		}
	}
	return r;
}

static int ibsm_fwd_tables(void *context)
{
	struct ibsm_osm_engine *e = context;
	osm_opensm_t *osm = e->plugin->osm;
	struct ibsm_osm_opts o;
	struct ibsm_osm_fabric of = { 0 };
	struct lft_set t = { 0 };
	char why[256] = "";
	double t0 = ibsm_osm_now(), t1, t2;
	uint8_t *is_sw = NULL;
	int r;

	r = ibsm_osm_opts_parse(&o, osm->subn.opt.event_plugin_options, why,
				sizeof(why));
	if (r)
		goto refuse;
	ibsm_osm_log_init(o.log_level);
	r = ibsm_osm_fabric_build(&osm->subn, &of, why);
	if (r)
		goto refuse;
	t1 = ibsm_osm_now();
	r = route_fabric(e, &o, &of, &t, why);
	if (r)
		goto refuse;
	t2 = ibsm_osm_now();
	r = check_ports(&of, &t, why);
	if (r)
		goto refuse;
	is_sw = switch_lid_map(&of.fab, t.max_lid);
	if (!is_sw) {
		snprintf(why, sizeof(why), "out of memory");
		r = -ENOMEM;
		goto refuse;
	}
	uint64_t routed = write_new_lfts(osm, &of, &t, is_sw);
	if (o.hops && set_switch_hops(&of, &t))
		OSM_LOG(&osm->log, OSM_LOG_ERROR, "ibsm: out of memory for hop "
			"tables; multicast routing may suffer\n");
	if (o.dump[0])
		dump_run(osm, o.dump, &of.fab, &t, &e->sl);
	OSM_LOG(&osm->log, OSM_LOG_INFO, "ibsm: %s routed %u switches, %u CAs, "
		"LIDs up to %u (LMC %u), %" PRIu64 " entries in %.3f s "
		"(graph %.3f s, engine %.3f s, tables %.3f s); %u SL layer%s\n",
		e->osm_name, of.fab.num_switches, of.fab.num_cas, t.max_lid,
		osm->subn.opt.lmc, routed, ibsm_osm_now() - t0, t1 - t0, t2 - t1,
		ibsm_osm_now() - t2, e->sl.vls_used > 1 ? e->sl.vls_used : 1,
		e->sl.vls_used > 1 ? "s, each credit-loop-free (SL n on VL n)" : "");
	free(is_sw);
	if (o.reroute)
		keep_prev(e, &of.fab, &t);
	lft_free(&t);
	ibsm_osm_fabric_free(&of);
	return 0;

refuse:
	/* The tables OpenSM prepared are untouched: the next engine starts
	 * from the same state as if we had not been listed. */
	OSM_LOG(&osm->log, OSM_LOG_INFO, "ibsm: %s refused the fabric after "
		"%.3f s: %s; OpenSM moves on to its next routing engine\n",
		e->osm_name, ibsm_osm_now() - t0, why[0] ? why : strerror(-r));
	free(is_sw);
	lft_free(&t);
	ibsm_osm_fabric_free(&of);
	return -1;
}

/* No LID matrices of OpenSM's kind are needed: ucast_build_fwd_tables
 * fills the hop tables from our own routes. Returning 0 (not > 0) keeps
 * OpenSM from running its min-hop matrix build for us. */
static int ibsm_lid_matrices(void *context)
{
	(void)context;
	return 0;
}

int ibsm_osm_engine_setup(struct osm_routing_engine *re,
			  struct osm_opensm *osm)
{
	struct ibsm_osm_engine *e = re->context;

	if (!e || !e->engine)
		return -1;
	OSM_LOG(&osm->log, OSM_LOG_VERBOSE, "ibsm: setting up %s (%s)\n",
		e->osm_name, e->engine->summary ? e->engine->summary : "");
	re->build_lid_matrices = ibsm_lid_matrices;
	re->ucast_build_fwd_tables = ibsm_fwd_tables;
	re->path_sl = ibsm_path_sl;
	re->update_sl2vl = ibsm_update_sl2vl;
	return 0;
}
