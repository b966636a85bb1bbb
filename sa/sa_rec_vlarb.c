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

struct vlarb_walk {
	struct sa_ctx *c;
	const struct sa_query *q;
	uint64_t mask;
	struct sa_answer *a;
	unsigned unread;
};

/* Offer the blocks of `port` (record LID lid) of cache node cn. */
static int offer_port(struct vlarb_walk *w, uint32_t cn, unsigned port, uint32_t lid)
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

static int walk_node(struct vlarb_walk *w, uint32_t fn, uint32_t only_port)
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
	struct vlarb_walk w = { .c = c, .q = q, .mask = q->comp_mask, .a = a };
	uint32_t port, lo, hi;
	int64_t n;

	if (!c->db.r)
		return 0;
	n = sa_query_lid_node(c, &sa_vlarb_rec, q, VLA_LID, &w.mask, &port);
	if (n == FAB_NONE)
		return 0;
	lo = n >= 0 ? (uint32_t)n : 0;
	hi = n >= 0 ? (uint32_t)n + 1 : sa_fab(c)->num_nodes;
	for (uint32_t fn = lo; fn < hi; fn++)
		if (walk_node(&w, fn, n >= 0 && !fab_is_switch(sa_fab(c), fn) ? port
									   : FAB_NONE) < 0)
			return SA_STATUS_NO_RESOURCES;
	return sa_tbl_unread(&c->vlarb, "VLArbitrationTableRecord", q, a, w.unread, n >= 0);
}

const struct sa_attr_ops sa_vlarbrecord_ops = {
	.attr_id = 0x0036,
	.name = "VLArbitrationTableRecord",
	.rec_len = 72,
	.query = vlarb_query,
};
