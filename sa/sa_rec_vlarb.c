/* VLArbitrationTableRecord (IBA 15.2.5.9, attribute 0x0036): LID,
 * OutputPortNum, BlockNum and one 32-entry block of a port's
 * VLArbitrationTable (IBA 14.2.5.9: blocks 1, 2 low priority, 3, 4 high),
 * from the VLArb cache (sa/sa_sl2vl.h, kind SA_TBL_VLARB). A switch's
 * records carry its LID and each port (0 included); a CA port's its own
 * LID and its port number: on a CA the OutputPortNum component is ignored
 * (the LID names the port), as OpenSM does and osmtest relies on (it asks
 * CA ports with port 0). Blocks not read yet are asked for and answered
 * Busy as SL2VLTableRecord's are (sa_tbl_unread). */
#include <string.h>

#include "sa_rec.h"
#include "sa_sl2vl.h"

/* Offer the blocks of `port` (record LID lid) of cache node cn. */
static int offer_port(struct sa_tbl_walk *w, uint32_t cn, unsigned port, uint32_t lid)
{
	struct sa_sl2vl_cache *t = &w->c->vlarb;
	const struct sa_sl2vl_node *n = &t->nodes[cn];

	for (unsigned b = 1; b <= SA_VLARB_BLOCKS; b++) {
		int idx = sa_vlarb_index(n, port, b);
		uint8_t rec[REC_MAX];

		if (idx < 0 || n->state[idx] == SL2VL_NONE)
			continue;
		memset(rec, 0, 72);
		sa_put(&sa_vlarb_rec, rec, VLA_LID, lid);
		sa_put(&sa_vlarb_rec, rec, VLA_PORT, port);
		sa_put(&sa_vlarb_rec, rec, VLA_BLOCK, b);
		if (n->state[idx] != SL2VL_READ && n->state[idx] != SL2VL_SET) {
			if (sa_comp_match(&sa_vlarb_rec, w->q->record, rec,
					  w->mask & ~(1ull << VLA_TABLE))) {
				w->unread++;
				sa_sl2vl_want(t, cn, (uint32_t)idx);
			}
			continue;
		}
		sa_put_bytes(&sa_vlarb_rec, rec, VLA_TABLE, sa_tbl_at(t, n, (unsigned)idx));
		if (sa_offer(&sa_vlarb_rec, w->q, w->mask, rec, w->a) < 0)
			return -1;
	}
	return 0;
}

static int walk_node(struct sa_tbl_walk *w, uint32_t fn, uint32_t only_port)
{
	const struct fabric *f = sa_fab(w->c);
	const struct fab_node *nd = &f->nodes[fn];
	uint32_t cn;
	const struct sa_sl2vl_node *n = sa_sl2vl_find(&w->c->vlarb, nd->guid, &cn);

	if (!n || n->num_ports != nd->num_ports)
		return 0;
	if (n->is_switch) {
		uint32_t lid = sa_lid_of_port(w->c, fab_port_idx(f, fn, 0));

		if (!lid)
			return 0;
		for (unsigned k = 0; k <= n->num_ports; k++)
			if (offer_port(w, cn, k, lid) < 0)
				return -1;
		return 0;
	}
	for (unsigned k = 1; k <= n->num_ports; k++) {
		uint32_t p = fab_port_idx(f, fn, k);
		uint32_t lid = sa_lid_of_port(w->c, p);
		uint64_t mask = w->mask;
		int rc;

		if ((only_port != FAB_NONE && p != only_port) || !lid)
			continue;
		/* The LID named the port: OutputPortNum does not narrow it. */
		if (only_port != FAB_NONE)
			w->mask &= ~(1ull << VLA_PORT);
		rc = offer_port(w, cn, k, lid);
		w->mask = mask;
		if (rc < 0)
			return -1;
	}
	return 0;
}

static int vlarb_query(struct sa_ctx *c, const struct sa_query *q,
		       struct sa_answer *a)
{
	return sa_tbl_query(c, q, a, &sa_vlarb_rec, VLA_LID, &c->vlarb,
			    "VLArbitrationTableRecord", walk_node);
}

const struct sa_attr_ops sa_vlarbrecord_ops = {
	.attr_id = 0x0036,
	.name = "VLArbitrationTableRecord",
	.rec_len = 72,
	.query = vlarb_query,
};
