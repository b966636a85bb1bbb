/* SL2VLTableRecord (IBA 15.2.5.4, attribute 0x0013): LID, InputPortNum,
 * OutputPortNum and the 16 SL -> VL entries of a port pair, from the
 * SL2VL cache (sa/sa_sl2vl.h). Switch records carry the switch's LID and
 * the port pair; a CA port's record its own LID with both ports 0, as
 * OpenSM answers them. A query that meets tables not read yet asks for
 * them (they go to the front of the read queue, and their node is read on
 * demand) and is answered Busy (MAD status bit 0, IBA 13.4.7: try again)
 * when it names a LID (a Get, or a GetTable of one node): the client's
 * retry gets the whole answer. A GetTable of the whole fabric is answered
 * from what is known (logged once per sweep), since reading every table
 * takes ports^2 Gets a switch. */
#include <string.h>

#include "../core/log.h"
#include "sa_rec.h"
#include "sa_sl2vl.h"

/* Offer table idx of cache node cn as the record (lid, in, out). */
static int offer(struct sa_tbl_walk *w, uint32_t cn, unsigned idx, uint32_t lid,
		 unsigned in, unsigned out)
{
	const struct sa_sl2vl_node *n = &w->c->sl2vl.nodes[cn];
	uint8_t rec[REC_MAX];

	if (n->state[idx] == SL2VL_NONE)
		return 0;
	memset(rec, 0, 16);
	sa_put(&sa_sl2vl_rec, rec, SL2VL_LID, lid);
	sa_put(&sa_sl2vl_rec, rec, SL2VL_INPORT, in);
	sa_put(&sa_sl2vl_rec, rec, SL2VL_OUTPORT, out);
	if (n->state[idx] != SL2VL_READ && n->state[idx] != SL2VL_SET) {
		/* Unknown yet: would it match on the components we know? */
		if (sa_comp_match(&sa_sl2vl_rec, w->q->record, rec,
				  w->mask & ~(1ull << SL2VL_TABLE))) {
			w->unread++;
			sa_sl2vl_want(&w->c->sl2vl, cn, idx);
		}
		return 0;
	}
	sa_put_bytes(&sa_sl2vl_rec, rec, SL2VL_TABLE, sa_tbl_at(&w->c->sl2vl, n, idx));
	return sa_offer(&sa_sl2vl_rec, w->q, w->mask, rec, w->a) < 0 ? -1 : 0;
}

static int walk_node(struct sa_tbl_walk *w, uint32_t fn, uint32_t only_port)
{
	const struct fabric *f = sa_fab(w->c);
	const struct fab_node *nd = &f->nodes[fn];
	uint32_t cn;
	const struct sa_sl2vl_node *n = sa_sl2vl_find(&w->c->sl2vl, nd->guid, &cn);

	if (!n || n->num_ports != nd->num_ports)
		return 0;
	if (n->is_switch) {
		uint32_t lid = sa_lid_of_port(w->c, fab_port_idx(f, fn, 0));
		unsigned o0 = 0, o1 = n->num_ports, i0 = 0, i1 = n->num_ports;

		if (w->mask >> SL2VL_OUTPORT & 1)
			o0 = o1 = (unsigned)sa_get(&sa_sl2vl_rec, w->q->record, SL2VL_OUTPORT);
		if (w->mask >> SL2VL_INPORT & 1)
			i0 = i1 = (unsigned)sa_get(&sa_sl2vl_rec, w->q->record, SL2VL_INPORT);
		if (!lid || o1 > n->num_ports || i1 > n->num_ports)
			return 0;
		for (unsigned out = o0; out <= o1; out++)
			for (unsigned in = i0; in <= i1; in++)
				if (offer(w, cn, (unsigned)sa_sl2vl_index(n, in, out),
					  lid, in, out) < 0)
					return -1;
		return 0;
	}
	for (unsigned k = 1; k <= n->num_ports; k++) {
		uint32_t p = fab_port_idx(f, fn, k);
		uint32_t lid = sa_lid_of_port(w->c, p);

		if ((only_port != FAB_NONE && p != only_port) || !lid)
			continue;
		if (offer(w, cn, k, lid, 0, 0) < 0)
			return -1;
	}
	return 0;
}

static int sl2vl_query(struct sa_ctx *c, const struct sa_query *q,
		       struct sa_answer *a)
{
	return sa_tbl_query(c, q, a, &sa_sl2vl_rec, SL2VL_LID, &c->sl2vl,
			    "SL2VLTableRecord", walk_node);
}

int sa_tbl_query(struct sa_ctx *c, const struct sa_query *q,
		 struct sa_answer *a, const struct sa_layout *rec,
		 unsigned lid_comp, struct sa_sl2vl_cache *t,
		 const char *rec_name,
		 int (*walk)(struct sa_tbl_walk *w, uint32_t fn,
			     uint32_t only_port))
{
	struct sa_tbl_walk w = { .c = c, .q = q, .mask = q->comp_mask, .a = a };
	struct sa_node_span s;

	if (!c->db.r || !sa_query_nodes(c, rec, q, lid_comp, &w.mask, &s))
		return 0;
	for (uint32_t fn = s.lo; fn < s.hi; fn++)
		if (walk(&w, fn, s.by_lid && !fab_is_switch(sa_fab(c), fn) ? s.port
									   : FAB_NONE) < 0)
			return SA_STATUS_NO_RESOURCES;
	return sa_tbl_unread(t, rec_name, q, a, w.unread, s.by_lid);
}

int sa_tbl_unread(struct sa_sl2vl_cache *t, const char *rec_name,
		  const struct sa_query *q, const struct sa_answer *a,
		  unsigned unread, int one_node)
{
	if (!unread)
		return 0;
	if (!t->partial_logged) {
		t->partial_logged = 1;
		log_info("SA: %s query from LID %u: %u matching table%s not read yet (%llu of %llu known; reading them): %s",
			 rec_name, q->slid, unread, unread == 1 ? "" : "s",
			 (unsigned long long)t->known,
			 (unsigned long long)(t->known + t->wanted),
			 one_node ? "Busy until read" : "answered from what is known");
	}
	if ((q->method == SA_METHOD_GET && sa_answer_count(a) == 0) || one_node)
		return SA_STATUS_BUSY;
	return 0;
}

const struct sa_attr_ops sa_sl2vlrecord_ops = {
	.attr_id = 0x0013,
	.name = "SL2VLTableRecord",
	.rec_len = 16,
	.query = sl2vl_query,
};
