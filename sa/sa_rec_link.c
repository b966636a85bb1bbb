/* LinkRecord (IBA 15.2.5.13): one per direction of every link, from the
 * LID and port at one end to the port and LID at the other. */
#include <string.h>

#include "sa_rec.h"

static int lr_query(struct sa_ctx *c, const struct sa_query *q,
		    struct sa_answer *a)
{
	const struct fabric *f;
	uint64_t mask = q->comp_mask;
	struct sa_node_span s;
	uint8_t rec[REC_MAX];

	if (!c->db.r || !sa_query_nodes(c, &sa_link_rec, q, LR_FROMLID, &mask, &s))
		return 0;
	f = sa_fab(c);
	for (uint32_t m = s.lo; m < s.hi; m++) {
		for (unsigned i = 1; i <= f->nodes[m].num_ports; i++) {
			uint32_t p = fab_port_idx(f, m, i), r = f->ports[p].peer;

			if (r == FAB_NONE)
				continue;
			if (s.by_lid && !fab_is_switch(f, m) && p != s.port)
				continue;
			memset(rec, 0, REC_MAX);
			sa_put(&sa_link_rec, rec, LR_FROMLID, sa_lid_of_port(c, p));
			sa_put(&sa_link_rec, rec, LR_FROMPORT, i);
			sa_put(&sa_link_rec, rec, LR_TOPORT, f->ports[r].num);
			sa_put(&sa_link_rec, rec, LR_TOLID, sa_lid_of_port(c, r));
			if (sa_offer(&sa_link_rec, q, mask, rec, a) < 0)
				return SA_STATUS_NO_RESOURCES;
		}
	}
	return 0;
}

const struct sa_attr_ops sa_linkrecord_ops = {
	.attr_id = 0x0020,
	.name = "LinkRecord",
	.rec_len = 6,
	.query = lr_query,
};
