/* OpenSM's subnet (osm_subn_t) -> ibsm's fabric graph.
 *
 * Nodes come from node_guid_tbl, links from each node's physical ports
 * (osm_physp_t.p_remote_physp: OpenSM links ports while it discovers them,
 * before they are ACTIVE, and routes them then, so link state is copied but
 * not used to drop links). LIDs and LMC come from the port objects
 * (port_guid_tbl): the same source OpenSM's own engines read through
 * osm_port_get_lid_range_ho.
 *
 * Node order: ascending node GUID. Engines break ties by ordinal, so the
 * order decides which of equal paths is taken; a fixed order makes the
 * plugin's tables reproducible offline (ibsm-route on ibnetdiscover output
 * sorted by GUID) and independent of OpenSM's map layout. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibsm_osm.h"

static int by_guid(const void *a, const void *b)
{
	const osm_node_t *x = *(osm_node_t *const *)a;
	const osm_node_t *y = *(osm_node_t *const *)b;
	uint64_t gx = cl_ntoh64(osm_node_get_node_guid(x));
	uint64_t gy = cl_ntoh64(osm_node_get_node_guid(y));
	return gx < gy ? -1 : gx > gy;
}

static int add_nodes(osm_subn_t *subn, struct ibsm_osm_fabric *of,
		     osm_node_t **nodes, uint32_t count, char *why)
{
	struct fabric *f = &of->fab;

	for (uint32_t i = 0; i < count; i++) {
		osm_node_t *nd = nodes[i];
		uint8_t type = osm_node_get_type(nd);
		unsigned nports = osm_node_get_num_physp(nd);
		char desc[FAB_DESC_LEN + 1];
		uint64_t guid = cl_ntoh64(osm_node_get_node_guid(nd));

		if (nports < 2 || type < FAB_CA || type > FAB_ROUTER) {
			snprintf(why, 256, "node 0x%016" PRIx64 " has type %u and "
				 "%u ports; not a switch, CA or router", guid,
				 type, nports ? nports - 1 : 0);
			return -EINVAL;
		}
		memcpy(desc, nd->node_desc.description, FAB_DESC_LEN);
		desc[FAB_DESC_LEN] = 0;
		uint32_t n = fab_add_node(f, (enum fab_node_type)type,
					  (uint8_t)(nports - 1), guid, desc);
		if (n == FAB_NONE) {
			snprintf(why, 256, "out of memory adding node 0x%016"
				 PRIx64, guid);
			return -ENOMEM;
		}
		struct fab_node *fn = &f->nodes[n];
		fn->sys_guid = cl_ntoh64(nd->node_info.sys_guid);
		fn->vendor_id = cl_ntoh32(ib_node_info_get_vendor_id(&nd->node_info));
		fn->device_id = cl_ntoh16(nd->node_info.device_id);
		if (type == FAB_SWITCH) {
			if (!nd->sw) {
				snprintf(why, 256, "switch 0x%016" PRIx64 " has no "
					 "switch object yet", guid);
				return -EAGAIN;
			}
			of->sw_of[fn->sw_index] = nd->sw;
			fn->enhanced_sp0 = ib_switch_info_is_enhanced_port0(
				&nd->sw->switch_info);
			/* Every port of a switch carries port 0's GUID. */
			osm_physp_t *p0 = osm_node_get_physp_ptr(nd, 0);
			if (p0 && osm_physp_is_valid(p0))
				for (unsigned pn = 0; pn < nports; pn++)
					fab_port(f, n, pn)->guid =
						cl_ntoh64(p0->port_guid);
		}
	}
	(void)subn;
	return 0;
}

/* Copy what a port knows about its link (IBA 14.2.5.6 encodings). */
static void copy_port_info(struct fab_port *fp, const osm_physp_t *p)
{
	const ib_port_info_t *pi = &p->port_info;

	fp->guid = cl_ntoh64(p->port_guid);
	fp->state = ib_port_info_get_port_state(pi);
	fp->phys_state = ib_port_info_get_port_phys_state(pi);
	fp->width = pi->link_width_active;
	fp->speed = ib_port_info_get_link_speed_active(pi);
	fp->mtu = ib_port_info_get_neighbor_mtu(pi);
	fp->vls = ib_port_info_get_op_vls(pi);
}

static int add_links(struct ibsm_osm_fabric *of, osm_node_t **nodes,
		     uint32_t count, char *why)
{
	struct fabric *f = &of->fab;

	for (uint32_t n = 0; n < count; n++) {
		osm_node_t *nd = nodes[n];
		unsigned nports = osm_node_get_num_physp(nd);
		for (unsigned pn = 1; pn < nports; pn++) {
			osm_physp_t *p = osm_node_get_physp_ptr(nd, pn);
			if (!p || !osm_physp_is_valid(p))
				continue;
			struct fab_port *fp = fab_port(f, n, pn);
			uint64_t sw_port_guid = fp->guid;
			copy_port_info(fp, p);
			if (f->nodes[n].type == FAB_SWITCH)
				fp->guid = sw_port_guid; /* port 0's (add_nodes) */
			osm_physp_t *r = osm_physp_get_remote(p);
			if (!r || !osm_physp_is_valid(r))
				continue;
			uint64_t rguid = cl_ntoh64(osm_node_get_node_guid(
				osm_physp_get_node_ptr(r)));
			uint32_t rn = fab_find_node_guid(f, rguid);
			uint8_t rpn = osm_physp_get_port_num(r);
			uint32_t rp = rn == FAB_NONE ? FAB_NONE :
				fab_port_idx(f, rn, rpn);
			if (rp == FAB_NONE || rp == f->nodes[rn].first_port) {
				snprintf(why, 256, "port %u of 0x%016" PRIx64 " links "
					 "to unknown port %u of 0x%016" PRIx64, pn,
					 f->nodes[n].guid, rpn, rguid);
				return -EINVAL;
			}
			int r2 = fab_link(f, fab_port_idx(f, n, pn), rp);
			if (r2) {
				snprintf(why, 256, "port %u of 0x%016" PRIx64 " and "
					 "port %u of 0x%016" PRIx64 " do not link "
					 "consistently", pn, f->nodes[n].guid, rpn,
					 rguid);
				return r2;
			}
		}
	}
	return 0;
}

static int add_lids(osm_subn_t *subn, struct ibsm_osm_fabric *of)
{
	struct fabric *f = &of->fab;
	cl_qmap_t *tbl = &subn->port_guid_tbl;

	for (cl_map_item_t *it = cl_qmap_head(tbl); it != cl_qmap_end(tbl);
	     it = cl_qmap_next(it)) {
		osm_port_t *port = (osm_port_t *)it;
		if (!port->p_node || !port->p_physp)
			continue;
		uint32_t n = fab_find_node_guid(f, cl_ntoh64(
			osm_node_get_node_guid(port->p_node)));
		uint8_t pn = osm_physp_get_port_num(port->p_physp);
		if (n == FAB_NONE || pn > f->nodes[n].num_ports)
			continue;
		struct fab_port *fp = fab_port(f, n, pn);
		fp->lid = cl_ntoh16(osm_port_get_base_lid(port));
		fp->lmc = osm_port_get_lmc(port);
		if (fp->lid > FAB_MAX_UCAST_LID)
			fp->lid = 0;
	}
	return 0;
}

int ibsm_osm_fabric_build(osm_subn_t *subn, struct ibsm_osm_fabric *of,
			  char *why)
{
	cl_qmap_t *tbl = &subn->node_guid_tbl;
	uint32_t count = (uint32_t)cl_qmap_count(tbl);
	uint32_t nsw = (uint32_t)cl_qmap_count(&subn->sw_guid_tbl);
	osm_node_t **nodes;
	uint32_t i = 0;
	int r;

	fab_init(&of->fab);
	of->sw_of = NULL;
	nodes = malloc((count ? count : 1) * sizeof(*nodes));
	of->sw_of = calloc(nsw ? nsw : 1, sizeof(*of->sw_of));
	if (!nodes || !of->sw_of) {
		snprintf(why, 256, "out of memory for %u nodes", count);
		free(nodes);
		ibsm_osm_fabric_free(of);
		return -ENOMEM;
	}
	for (cl_map_item_t *it = cl_qmap_head(tbl); it != cl_qmap_end(tbl);
	     it = cl_qmap_next(it))
		nodes[i++] = (osm_node_t *)it;
	qsort(nodes, count, sizeof(*nodes), by_guid);

	r = add_nodes(subn, of, nodes, count, why);
	if (!r && of->fab.num_switches != nsw) {
		snprintf(why, 256, "%u switch nodes but %u switch objects",
			 of->fab.num_switches, nsw);
		r = -EINVAL;
	}
	if (!r)
		r = add_links(of, nodes, count, why);
	if (!r)
		r = add_lids(subn, of);
	free(nodes);
	if (r)
		ibsm_osm_fabric_free(of);
	return r;
}

void ibsm_osm_fabric_free(struct ibsm_osm_fabric *of)
{
	fab_free(&of->fab);
	free(of->sw_of);
	of->sw_of = NULL;
}
