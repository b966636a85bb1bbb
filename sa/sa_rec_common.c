/* Shared record-handler helpers. */
#include "sa_rec.h"

int64_t sa_query_lid_node(const struct sa_ctx *c, const struct sa_layout *l,
			  const struct sa_query *q, unsigned lid_comp,
			  uint64_t *mask, uint32_t *port)
{
	uint32_t lid, p;

	*port = FAB_NONE;
	if (!(*mask >> lid_comp & 1))
		return -1;
	*mask &= ~(1ull << lid_comp);
	lid = (uint32_t)sa_get(l, q->record, lid_comp);
	p = sa_db_port_of_lid(&c->db, lid);
	if (p == FAB_NONE)
		return FAB_NONE;
	*port = p;
	return sa_fab(c)->ports[p].node;
}

int sa_query_nodes(const struct sa_ctx *c, const struct sa_layout *l,
		   const struct sa_query *q, unsigned lid_comp,
		   uint64_t *mask, struct sa_node_span *s)
{
	int64_t n = sa_query_lid_node(c, l, q, lid_comp, mask, &s->port);

	if (n == FAB_NONE)
		return 0;
	s->by_lid = n >= 0;
	s->lo = s->by_lid ? (uint32_t)n : 0;
	s->hi = s->by_lid ? (uint32_t)n + 1 : sa_fab(c)->num_nodes;
	return 1;
}

int sa_offer(const struct sa_layout *l, const struct sa_query *q,
	     uint64_t mask, const uint8_t *rec, struct sa_answer *a)
{
	if (!sa_comp_match(l, q->record, rec, mask))
		return 0;
	return sa_answer_add(a, rec);
}
