/* NodeRecord (IBA 15.2.5.2): one per endpoint port, keyed by its LID:
 * a switch's port 0, each linked CA or router port. NodeInfo is the one
 * the node answered in the sweep, with PortGUID and LocalPortNum of the
 * port the record stands for. */
#include <string.h>
#include <infiniband/mad.h>

#include "sa_rec.h"

static void build(const struct sa_ctx *c, uint32_t p, uint8_t *rec)
{
	const struct fabric *f = sa_fab(c);
	const struct fab_port *port = &f->ports[p];
	const struct fab_node *node = &f->nodes[port->node];
	uint8_t ni[64], desc[64];

	memset(rec, 0, REC_MAX);
	memcpy(ni, c->db.r->node_info[port->node], 64);
	mad_set_field64(ni, 0, IB_NODE_PORT_GUID_F, port->guid);
	mad_set_field(ni, 0, IB_NODE_LOCAL_PORT_F, port->num);
	sa_put(&sa_node_rec, rec, NR_LID, sa_lid_of_port(c, p));
	memcpy(rec + sa_comp_offset(&sa_node_rec, NR_NODEINFO) / 8, ni, 40);
	memset(desc, 0, sizeof(desc));
	memcpy(desc, node->desc, strnlen(node->desc, 64));
	sa_put_bytes(&sa_node_rec, rec, NR_NODEDESC, desc);
}

/* Endpoint ports of node n: port 0 of a switch, linked ports with a LID
 * of a CA or router. */
static int node_query(const struct sa_ctx *c, uint32_t n, uint64_t mask,
		      const struct sa_query *q, struct sa_answer *a)
{
	const struct fabric *f = sa_fab(c);
	uint8_t rec[REC_MAX];
	int rc = 0;

	for (unsigned i = 0; i <= f->nodes[n].num_ports && !rc; i++) {
		uint32_t p = fab_port_idx(f, n, i);

		if (fab_is_switch(f, n) ? i != 0 :
		    (i == 0 || !f->ports[p].lid))
			continue;
		build(c, p, rec);
		rc = sa_offer(&sa_node_rec, q, mask, rec, a);
	}
	return rc;
}

static int nr_query(struct sa_ctx *c, const struct sa_query *q,
		    struct sa_answer *a)
{
	uint64_t mask = q->comp_mask;
	uint32_t port;
	int64_t n;

	if (!c->db.r)
		return 0;
	n = sa_query_lid_node(c, &sa_node_rec, q, NR_LID, &mask, &port);
	if (n == FAB_NONE)
		return 0;
	if (n >= 0) {
		uint8_t rec[REC_MAX];

		build(c, port, rec);
		return sa_offer(&sa_node_rec, q, mask, rec, a) < 0 ? SA_STATUS_NO_RESOURCES : 0;
	}
	if (mask >> NR_PORTGUID & 1) {
		uint32_t p = sa_db_port_of_guid(&c->db,
			sa_get(&sa_node_rec, q->record, NR_PORTGUID));
		uint8_t rec[REC_MAX];

		if (p == FAB_NONE)
			return 0;
		build(c, p, rec);
		return sa_offer(&sa_node_rec, q, mask, rec, a) < 0 ? SA_STATUS_NO_RESOURCES : 0;
	}
	if (mask >> NR_NODEGUID & 1) {
		uint32_t m = fab_find_node_guid((struct fabric *)sa_fab(c),
			sa_get(&sa_node_rec, q->record, NR_NODEGUID));

		if (m == FAB_NONE)
			return 0;
		return node_query(c, m, mask, q, a) < 0 ? SA_STATUS_NO_RESOURCES : 0;
	}
	for (uint32_t m = 0; m < sa_fab(c)->num_nodes; m++)
		if (node_query(c, m, mask, q, a) < 0)
			return SA_STATUS_NO_RESOURCES;
	return 0;
}

const struct sa_attr_ops sa_noderecord_ops = {
	.attr_id = 0x0011,
	.name = "NodeRecord",
	.rec_len = 108,
	.query = nr_query,
};
