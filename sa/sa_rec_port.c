/* Per-port records: PortInfoRecord (IBA 15.2.5.3), GUIDInfoRecord
 * (15.2.5.18), P_KeyTableRecord (15.2.5.11). Switches have a record for
 * every port under the switch's LID; CA and router ports under their own.
 * P_Key tables are the ones the SM programmed (partition/part_table.h),
 * every block in use; a switch port the SM gives no table (no enforcement
 * there) shows block 0 with the default partition 0xFFFF, as ports come
 * up (IBA 10.9.1.2). */
#include <string.h>
#include <infiniband/mad.h>

#include "sa_partition.h"
#include "sa_rec.h"

/* Ports of node n that have a record: every port of a switch whose
 * PortInfo was read; linked CA/router ports with a LID. */
static inline int has_record(const struct sa_ctx *c, uint32_t n, unsigned i)
{
	const struct fabric *f = sa_fab(c);
	uint32_t p = fab_port_idx(f, n, i);

	if (fab_is_switch(f, n))
		return sa_db_portinfo(&c->db, p) != NULL;
	return i != 0 && f->ports[p].lid != 0;
}

/* The ports with a record among the nodes the LID component selects
 * (sa_query_nodes): a CA's LID names one (port_walk_one, inline, and no
 * walk after it), else the first from port_walk_start, the rest from
 * port_walk_next, until FAB_NONE. Each query calls its per-port code in
 * one place, inlined (a visitor behind a pointer, and the walk's general
 * case for one port, cost ~200 instructions a PortInfoRecord, issue 27). The
 * port number component (when selected) keeps one port of each node; a
 * switch shows port 0 only when sw_port0_only; a LID naming a CA port
 * keeps that port only. */
struct port_walk {
	const struct sa_ctx *c;
	struct sa_node_span s;
	uint32_t m;                 /* the node walked */
	unsigned i, last;           /* its port numbers left: i..last */
	int port_sel;               /* port number asked for, -1: any */
	int sw_port0_only;
};

/* The port numbers of node w->m to look at (none: i > last). */
static inline void port_walk_node(struct port_walk *w)
{
	const struct fabric *f = sa_fab(w->c);
	unsigned n = f->nodes[w->m].num_ports;

	w->i = 0;
	w->last = n;
	if (w->port_sel >= 0) {
		w->i = w->last = (unsigned)w->port_sel;
		if (w->i > n) {
			w->i = 1;
			w->last = 0;
			return;
		}
	}
	if (fab_is_switch(f, w->m) && w->sw_port0_only)
		w->i = w->last = 0;
}

/* The next port of node w->m with a record, FAB_NONE if none is left. */
static inline uint32_t port_walk_scan(struct port_walk *w)
{
	while (w->i <= w->last) {
		unsigned i = w->i++;

		if (has_record(w->c, w->m, i))
			return fab_port_idx(sa_fab(w->c), w->m, i);
	}
	return FAB_NONE;
}

/* The first port with a record in the nodes after w->m. */
static uint32_t port_walk_nodes(struct port_walk *w)
{
	uint32_t p;

	while (++w->m < w->s.hi) {
		port_walk_node(w);
		if ((p = port_walk_scan(w)) != FAB_NONE)
			return p;
	}
	return FAB_NONE;
}

/* The next port with a record, FAB_NONE after the last. Within a node
 * inline: a query by a switch's LID has one node. */
static inline uint32_t port_walk_next(struct port_walk *w)
{
	uint32_t p = port_walk_scan(w);

	if (p != FAB_NONE || w->m + 1 >= w->s.hi)
		return p;
	return port_walk_nodes(w);
}

/* Start a walk over the nodes of span s (sa_query_nodes: its LID
 * component has left mask): its first port, FAB_NONE if none. port_comp
 * < 0: the query has none. */
static uint32_t port_walk_start(struct port_walk *w, const struct sa_ctx *c,
				const struct sa_node_span *s,
				const struct sa_layout *l,
				const struct sa_query *q, uint64_t mask,
				int port_comp, int sw_port0_only)
{
	const struct fabric *f = sa_fab(c);

	w->c = c;
	w->s = *s;
	w->port_sel = port_comp >= 0 && (mask >> port_comp & 1) ?
		(int)sa_get(l, q->record, (unsigned)port_comp) : -1;
	w->sw_port0_only = sw_port0_only;
	w->i = 1;
	w->last = 0;
	w->m = s->lo;
	/* A CA or router port's LID names that port alone (a port number
	 * past the node's ports: none), the walk ends after it. */
	if (s->by_lid && !fab_is_switch(f, s->lo)) {
		if (w->port_sel > (int)f->nodes[s->lo].num_ports ||
		    !has_record(c, s->lo, f->ports[s->port].num))
			return FAB_NONE;
		return s->port;
	}
	w->m = s->lo - 1;           /* port_walk_nodes starts at the next */
	return port_walk_nodes(w);
}

/* port_walk_start's answer when the query names a CA's LID and no port
 * number (the common query, osmtest's), small enough to inline and with
 * no walk after it: 1 and *p (FAB_NONE: no record), or 0 (walk). */
static inline int port_walk_one(const struct sa_ctx *c,
				const struct sa_node_span *s, uint64_t mask,
				int port_comp, uint32_t *p)
{
	const struct fabric *f = sa_fab(c);

	if (!s->by_lid || fab_is_switch(f, s->lo) ||
	    (port_comp >= 0 && (mask >> port_comp & 1)))
		return 0;
	*p = has_record(c, s->lo, f->ports[s->port].num) ? s->port : FAB_NONE;
	return 1;
}

/* Port p's record as q may see it: the one the database built (M_Key 0)
 * or, for a requester allowed the M_Key, a copy with the PortInfo as read
 * in it (own: room for it). M_Key is shown to trusted requesters only
 * (IBA 15.2.5.3), and the default SM_Key (1, which OpenSM also trusts)
 * makes anyone trusted: the M_Key is shown only when the operator set a
 * key of their own (issue 26). */
static const uint8_t *pir_of(const struct sa_ctx *c, uint32_t p,
			     const struct sa_query *q, uint8_t *own)
{
	const uint8_t *rec = sa_db_pir(&c->db, p), *pi;

	if (!q->trusted || c->sm.sm_key == 0 ||
	    c->sm.sm_key == SA_SM_KEY_WELL_KNOWN ||
	    !(pi = sa_db_portinfo(&c->db, p)))
		return rec;
	memcpy(own, rec, SA_DB_PIR_LEN);
	memcpy(own + sa_comp_offset(&sa_portinfo_rec, PIR_PORTINFO) / 8, pi, 64);
	return own;
}

/* PortInfoCapMaskMatch and PortInfoCapMask2Match (SA ClassPortInfo
 * CapabilityMask bit 13, CapabilityMask2 bit 10; IBA 15.2.5.3): a
 * CapabilityMask component matches every port that has at least the bits
 * asked for, not only an equal mask (saquery -s asks for IsSM). */
static int pir_capmask_keep(const struct sa_query *q, const uint8_t *rec)
{
	void *want = (void *)(uintptr_t)(q->record + 4);
	void *have = (void *)(uintptr_t)(rec + 4);
	uint32_t w;

	if (q->comp_mask >> PIR_CAPMASK & 1) {
		w = mad_get_field(want, 0, IB_PORT_CAPMASK_F);
		if ((mad_get_field(have, 0, IB_PORT_CAPMASK_F) & w) != w)
			return 0;
	}
	if (q->comp_mask >> PIR_CAPMASK2 & 1) {
		w = mad_get_field(want, 0, IB_PORT_CAPMASK2_F);
		if ((mad_get_field(have, 0, IB_PORT_CAPMASK2_F) & w) != w)
			return 0;
	}
	return 1;
}

static int pir_port(const struct sa_ctx *c, uint32_t p,
		    const struct sa_query *q, uint64_t mask,
		    struct sa_answer *a)
{
	uint8_t own[SA_DB_PIR_LEN];
	const uint8_t *rec = pir_of(c, p, q, own);

	if (!pir_capmask_keep(q, rec))
		return 0;
	return sa_offer(&sa_portinfo_rec, q, mask, rec, a) < 0 ? SA_STATUS_NO_RESOURCES : 0;
}

static int pir_query(struct sa_ctx *c, const struct sa_query *q,
		     struct sa_answer *a)
{
	const struct sa_layout *l = &sa_portinfo_rec;
	uint64_t mask = q->comp_mask & ~(1ull << PIR_CAPMASK | 1ull << PIR_CAPMASK2);
	struct sa_node_span s;
	struct port_walk w;
	uint32_t p;
	int one, rc;

	if (!c->db.r || !sa_query_nodes(c, l, q, PIR_LID, &mask, &s))
		return 0;
	if (!(one = port_walk_one(c, &s, mask, PIR_PORTNUM, &p)))
		p = port_walk_start(&w, c, &s, l, q, mask, PIR_PORTNUM, 0);
	for (; p != FAB_NONE; p = one ? FAB_NONE : port_walk_next(&w))
		if ((rc = pir_port(c, p, q, mask, a)))
			return rc;
	return 0;
}

const struct sa_attr_ops sa_portinforecord_ops = {
	.attr_id = 0x0012,
	.name = "PortInfoRecord",
	.rec_len = SA_DB_PIR_LEN,
	.query = pir_query,
	/* pir_query reads q->trusted, never the requester (the common
	 * query, osmtest's: no lookup of the SLID's port). */
	.no_requester = true,
};

/* GUIDInfo: one record per block of 8 of the port's GUIDCap entries
 * (PortInfo.GUIDCap, IBA 14.2.5.5), as OpenSM answers; block 0 holds the
 * port GUID (index 0), the rest are empty: we assign no alias GUIDs.
 * Switches: port 0 only (external ports have no GUID table). */
static void build_gir(const struct sa_ctx *c, uint32_t p, unsigned block,
		      const struct sa_query *q, uint8_t *rec)
{
	(void)q;
	memset(rec, 0, REC_MAX);
	sa_put(&sa_guidinfo_rec, rec, GIR_LID, sa_lid_of_port(c, p));
	sa_put(&sa_guidinfo_rec, rec, GIR_BLOCK, block);
	if (block == 0)
		sa_put(&sa_guidinfo_rec, rec, GIR_GUID0, sa_fab(c)->ports[p].guid);
}

static unsigned gir_blocks(const struct sa_ctx *c, uint32_t p)
{
	const uint8_t *pi = sa_db_portinfo(&c->db, p);
	unsigned cap = pi ? (unsigned)mad_get_field((void *)(uintptr_t)pi, 0,
						     IB_PORT_GUID_CAP_F) : 0;

	return cap > 8 ? (cap + 7) / 8 : 1;
}

static int gir_port(const struct sa_ctx *c, uint32_t p,
		    const struct sa_query *q, uint64_t mask,
		    struct sa_answer *a)
{
	uint8_t rec[REC_MAX];

	for (unsigned b = 0; b < gir_blocks(c, p); b++) {
		build_gir(c, p, b, q, rec);
		if (sa_offer(&sa_guidinfo_rec, q, mask, rec, a) < 0)
			return SA_STATUS_NO_RESOURCES;
	}
	return 0;
}

static int gir_query(struct sa_ctx *c, const struct sa_query *q,
		     struct sa_answer *a)
{
	const struct sa_layout *l = &sa_guidinfo_rec;
	uint64_t mask = q->comp_mask;
	struct sa_node_span s;
	struct port_walk w;
	uint32_t p;
	int one, rc;

	if (!c->db.r || !sa_query_nodes(c, l, q, GIR_LID, &mask, &s))
		return 0;
	if (!(one = port_walk_one(c, &s, mask, -1, &p)))
		p = port_walk_start(&w, c, &s, l, q, mask, -1, 1);
	for (; p != FAB_NONE; p = one ? FAB_NONE : port_walk_next(&w))
		if ((rc = gir_port(c, p, q, mask, a)))
			return rc;
	return 0;
}

const struct sa_attr_ops sa_guidinforecord_ops = {
	.attr_id = 0x0030,
	.name = "GUIDInfoRecord",
	.rec_len = 72,
	.query = gir_query,
};

/* Blocks port p has records for: every block of its P_Key table, as
 * OpenSM answers (issue 25): NodeInfo.PartitionCap entries on a CA port
 * or a switch's port 0, SwitchInfo.PartitionEnforcementCap on a switch's
 * external ports (IBA 14.2.5.3, 14.2.5.4); at least the blocks the
 * programmed table fills, or block 0 (the default partition as the port
 * came up). Blocks past the programmed keys are empty. */
static unsigned pkr_blocks(const struct sa_ctx *c, uint32_t p)
{
	const struct fabric *f = sa_fab(c);
	uint32_t node = f->ports[p].node;
	unsigned n = part_blocks(sa_parts(c), p), cap;

	if (fab_is_switch(f, node) && f->ports[p].num)
		cap = (unsigned)mad_get_field((void *)(uintptr_t)c->db.r->sw_info[node],
					      0, IB_SW_PARTITION_ENFORCE_CAP_F);
	else
		cap = (unsigned)mad_get_field((void *)(uintptr_t)c->db.r->node_info[node],
					      0, IB_NODE_PARTITION_CAP_F);
	cap = (cap + 31) / 32;
	if (cap > n)
		n = cap;
	return n ? n : 1;
}

static void build_pkr(const struct sa_ctx *c, uint32_t p, unsigned block,
		      const struct sa_query *q, uint8_t *rec)
{
	uint16_t k[32];
	uint8_t *t;

	(void)q;
	memset(rec, 0, REC_MAX);
	sa_put(&sa_pkey_rec, rec, PKR_LID, sa_lid_of_port(c, p));
	sa_put(&sa_pkey_rec, rec, PKR_BLOCK, block);
	sa_put(&sa_pkey_rec, rec, PKR_PORT, sa_fab(c)->ports[p].num);
	part_block(sa_parts(c), p, block, k);
	if (!part_num_keys(sa_parts(c), p) && block == 0)
		k[0] = 0xffff;          /* full member of the default partition */
	/* 32 big-endian entries (IBA 14.2.5.7). */
	t = rec + sa_comp_offset(&sa_pkey_rec, PKR_TABLE) / 8;
	for (unsigned i = 0; i < 32; i++) {
		t[2 * i] = (uint8_t)(k[i] >> 8);
		t[2 * i + 1] = (uint8_t)k[i];
	}
}

/* Every block of port p (the BlockNum component, when given, selects
 * one), if the requester (its port rq) shares a partition with the port
 * (OpenSM). */
static int pkr_port(const struct sa_ctx *c, uint32_t p, const struct sa_query *q,
		    uint64_t mask, uint32_t rq, struct sa_answer *a)
{
	uint32_t port0 = fab_port_idx(sa_fab(c), sa_fab(c)->ports[p].node, 0);
	uint8_t rec[REC_MAX];
	unsigned nb = pkr_blocks(c, p);

	/* A switch's external ports count as the switch (port 0). */
	if (!sa_ports_share(c, rq, fab_is_switch(sa_fab(c), sa_fab(c)->ports[p].node) ? port0 : p))
		return 0;
	for (unsigned b = 0; b < nb; b++) {
		if ((mask >> PKR_BLOCK & 1) && sa_get(&sa_pkey_rec, q->record, PKR_BLOCK) != b)
			continue;
		build_pkr(c, p, b, q, rec);
		if (sa_offer(&sa_pkey_rec, q, mask, rec, a) < 0)
			return SA_STATUS_NO_RESOURCES;
	}
	return 0;
}

static int pkr_query(struct sa_ctx *c, const struct sa_query *q,
		     struct sa_answer *a)
{
	uint64_t mask = q->comp_mask;
	struct sa_node_span s;
	struct port_walk w;
	uint32_t rq, p;
	int one, rc;

	if (!c->db.r)
		return 0;
	/* IBA 15.2.5.11: P_KeyTableRecords only to trusted requesters (the
	 * SM_Key), as OpenSM answers. */
	if (!q->trusted)
		return SA_STATUS_REQ_INVALID;
	rq = sa_requester_port(c, q);
	if (!sa_query_nodes(c, &sa_pkey_rec, q, PKR_LID, &mask, &s))
		return 0;
	if (!(one = port_walk_one(c, &s, mask, PKR_PORT, &p)))
		p = port_walk_start(&w, c, &s, &sa_pkey_rec, q, mask, PKR_PORT, 0);
	for (; p != FAB_NONE; p = one ? FAB_NONE : port_walk_next(&w))
		if ((rc = pkr_port(c, p, q, mask, rq, a)))
			return rc;
	return 0;
}

const struct sa_attr_ops sa_pkeyrecord_ops = {
	.attr_id = 0x0033,
	.name = "P_KeyTableRecord",
	.rec_len = 72,
	.query = pkr_query,
};
