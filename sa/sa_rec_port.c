/* Per-port records: PortInfoRecord (IBA 15.2.5.3), GUIDInfoRecord
 * (15.2.5.18), P_KeyTableRecord (15.2.5.11). Switches have a record for
 * every port under the switch's LID; CA and router ports under their own.
 * The SM programs no partitions yet: every port holds the default
 * partition 0xFFFF in P_Key block 0, as the ports come up (IBA 10.9.1.2). */
#include <string.h>
#include <infiniband/mad.h>

#include "sa_rec.h"

typedef void (*build_fn)(const struct sa_ctx *c, uint32_t p, unsigned block,
			 const struct sa_query *q, uint8_t *rec);

/* Ports of node n that have a record: every port of a switch whose
 * PortInfo was read; linked CA/router ports with a LID. */
static int has_record(const struct sa_ctx *c, uint32_t n, unsigned i)
{
	const struct fabric *f = sa_fab(c);
	uint32_t p = fab_port_idx(f, n, i);

	if (fab_is_switch(f, n))
		return sa_db_portinfo(&c->db, p) != NULL;
	return i != 0 && f->ports[p].lid != 0;
}

static int per_port(const struct sa_ctx *c, const struct sa_layout *l,
		    const struct sa_query *q, unsigned lid_comp,
		    int port_comp, int switch_port0_only, build_fn build,
		    struct sa_answer *a)
{
	const struct fabric *f = sa_fab(c);
	uint64_t mask = q->comp_mask;
	uint32_t port, lo = 0, hi = f->num_nodes;
	uint8_t rec[REC_MAX];
	int64_t n = sa_query_lid_node(c, l, q, lid_comp, &mask, &port);

	if (n == FAB_NONE)
		return 0;
	if (n >= 0) {
		lo = (uint32_t)n;
		hi = lo + 1;
	}
	for (uint32_t m = lo; m < hi; m++) {
		unsigned first = 0, last = f->nodes[m].num_ports;

		if (port_comp >= 0 && (mask >> port_comp & 1)) {
			first = last = (unsigned)sa_get(l, q->record, (unsigned)port_comp);
			if (first > f->nodes[m].num_ports)
				continue;
		}
		if (fab_is_switch(f, m) && switch_port0_only)
			first = last = 0;
		if (n >= 0 && !fab_is_switch(f, m))
			first = last = f->ports[port].num;
		for (unsigned i = first; i <= last; i++) {
			if (!has_record(c, m, i))
				continue;
			build(c, fab_port_idx(f, m, i), 0, q, rec);
			if (sa_offer(l, q, mask, rec, a) < 0)
				return SA_STATUS_NO_RESOURCES;
		}
	}
	return 0;
}

static void build_pir(const struct sa_ctx *c, uint32_t p, unsigned block,
		      const struct sa_query *q, uint8_t *rec)
{
	const uint8_t *pi = sa_db_portinfo(&c->db, p);

	(void)block;
	memset(rec, 0, REC_MAX);
	sa_put(&sa_portinfo_rec, rec, PIR_LID, sa_lid_of_port(c, p));
	sa_put(&sa_portinfo_rec, rec, PIR_PORTNUM, sa_fab(c)->ports[p].num);
	if (pi) {
		uint8_t *d = rec + sa_comp_offset(&sa_portinfo_rec, PIR_PORTINFO) / 8;

		memcpy(d, pi, 64);
		/* M_Key is shown to trusted requesters only (IBA 15.2.5.3). */
		if (!q->trusted)
			mad_set_field64(d, 0, IB_PORT_MKEY_F, 0);
	}
}

static int pir_query(struct sa_ctx *c, const struct sa_query *q,
		     struct sa_answer *a)
{
	if (!c->db.r)
		return 0;
	return per_port(c, &sa_portinfo_rec, q, PIR_LID, PIR_PORTNUM, 0,
			build_pir, a);
}

const struct sa_attr_ops sa_portinforecord_ops = {
	.attr_id = 0x0012,
	.name = "PortInfoRecord",
	.rec_len = 68,
	.query = pir_query,
};

/* GUIDInfo block 0 holds the port GUID (index 0); we assign no alias
 * GUIDs. Switches: port 0 only (external ports have no GUID table). */
static void build_gir(const struct sa_ctx *c, uint32_t p, unsigned block,
		      const struct sa_query *q, uint8_t *rec)
{
	(void)block;
	(void)q;
	memset(rec, 0, REC_MAX);
	sa_put(&sa_guidinfo_rec, rec, GIR_LID, sa_lid_of_port(c, p));
	sa_put(&sa_guidinfo_rec, rec, GIR_BLOCK, 0);
	sa_put(&sa_guidinfo_rec, rec, GIR_GUID0, sa_fab(c)->ports[p].guid);
}

static int gir_query(struct sa_ctx *c, const struct sa_query *q,
		     struct sa_answer *a)
{
	if (!c->db.r)
		return 0;
	if ((q->comp_mask >> GIR_BLOCK & 1) &&
	    sa_get(&sa_guidinfo_rec, q->record, GIR_BLOCK) != 0)
		return 0;
	return per_port(c, &sa_guidinfo_rec, q, GIR_LID, -1, 1, build_gir, a);
}

const struct sa_attr_ops sa_guidinforecord_ops = {
	.attr_id = 0x0030,
	.name = "GUIDInfoRecord",
	.rec_len = 72,
	.query = gir_query,
};

static void build_pkr(const struct sa_ctx *c, uint32_t p, unsigned block,
		      const struct sa_query *q, uint8_t *rec)
{
	uint8_t *t;

	(void)block;
	(void)q;
	memset(rec, 0, REC_MAX);
	sa_put(&sa_pkey_rec, rec, PKR_LID, sa_lid_of_port(c, p));
	sa_put(&sa_pkey_rec, rec, PKR_BLOCK, 0);
	sa_put(&sa_pkey_rec, rec, PKR_PORT, sa_fab(c)->ports[p].num);
	t = rec + sa_comp_offset(&sa_pkey_rec, PKR_TABLE) / 8;
	t[0] = 0xff;                    /* full member of the default partition */
	t[1] = 0xff;
}

static int pkr_query(struct sa_ctx *c, const struct sa_query *q,
		     struct sa_answer *a)
{
	if (!c->db.r)
		return 0;
	if ((q->comp_mask >> PKR_BLOCK & 1) &&
	    sa_get(&sa_pkey_rec, q->record, PKR_BLOCK) != 0)
		return 0;
	return per_port(c, &sa_pkey_rec, q, PKR_LID, PKR_PORT, 0, build_pkr, a);
}

const struct sa_attr_ops sa_pkeyrecord_ops = {
	.attr_id = 0x0033,
	.name = "P_KeyTableRecord",
	.rec_len = 72,
	.query = pkr_query,
};
