/* Helpers shared by the record handlers (sa_rec_*.c, sa_path.c). */
#ifndef IBSM_SA_SA_REC_H
#define IBSM_SA_SA_REC_H

#include <stdint.h>
#include "sa_ctx.h"
#include "sa_handler.h"
#include "sa_layout.h"

#define REC_MAX 256                     /* largest record we build */

/* SA ClassPortInfo.CapabilityMask bits (IBA 15.2.1.1 Table 184) this SA
 * honours, and CapabilityMask2 bits (Table 185). Not claimed: traps and
 * Notice Get/Set (bits 0, 1), OptionalRecords (8: VLArbitrationTableRecord
 * is served, Trace and ServiceAssociation records are not), Reinit (11), QoS,
 * reverse-path P_Key, MCastTop, hierarchy, alias GUIDs, full PortInfo
 * records, multicast ServiceRecords, SendOnlyFullMember. */
#define SA_CAP_UD_MCAST (1u << 9)               /* MCMemberRecord joins */
#define SA_CAP_MULTIPATH (1u << 10)             /* MultiPathRecord */
#define SA_CAP_PI_CAPMASK_MATCH (1u << 13)      /* PortInfoRecord bitwise */
#define SA_CAP_SERVED (SA_CAP_UD_MCAST | SA_CAP_MULTIPATH | SA_CAP_PI_CAPMASK_MATCH)
#define SA_CAP2_EXT_SPEEDS (1u << 7)            /* PortInfo as read, ext. speeds */
#define SA_CAP2_PI_CAPMASK2_MATCH (1u << 10)    /* CapabilityMask2 bitwise */
#define SA_CAP2_WIDTH_2X (1u << 13)             /* 2x rates in PathRecords */
#define SA_CAP2_SPEED_HDR (1u << 15)            /* HDR rates in PathRecords */
#define SA_CAP2_SERVED (SA_CAP2_EXT_SPEEDS | SA_CAP2_PI_CAPMASK2_MATCH | \
			SA_CAP2_WIDTH_2X | SA_CAP2_SPEED_HDR)

static inline const struct fabric *sa_fab(const struct sa_ctx *c)
{
	return &c->db.r->fab;
}

/* The LID that addresses port p (a switch's ports: its port 0's). */
static inline uint32_t sa_lid_of_port(const struct sa_ctx *c, uint32_t p)
{
	return fab_port_lid(sa_fab(c), p);
}

/* When the query names a LID (component `lid_comp` selected), the one
 * node whose LIDs cover it (FAB_NONE: none); else -1 = every node. The
 * LID component is then dropped from *mask, since an LMC alias matches its
 * base LID's records (IBA 15.2.5: records are keyed by base LID). Inline
 * as the rest of a query by LID (issue 27). */
static inline int64_t sa_query_lid_node(const struct sa_ctx *c,
					const struct sa_layout *l,
					const struct sa_query *q,
					unsigned lid_comp, uint64_t *mask,
					uint32_t *port)
{
	uint32_t p;

	*port = FAB_NONE;
	if (!(*mask >> lid_comp & 1))
		return -1;
	*mask &= ~(1ull << lid_comp);
	p = sa_db_port_of_lid(&c->db, (uint32_t)sa_get(l, q->record, lid_comp));
	if (p == FAB_NONE)
		return FAB_NONE;
	*port = p;
	return sa_fab(c)->ports[p].node;
}

/* The nodes a query's LID component selects, as a range to walk: the one
 * node whose LIDs cover it ([lo, lo + 1), port = the port the LID names,
 * by_lid = 1), or every node ([0, num_nodes), port = FAB_NONE, by_lid =
 * 0). Returns 0 when the LID names no port (no records), else 1; drops the
 * LID component from *mask as sa_query_lid_node does. */
struct sa_node_span {
	uint32_t lo, hi, port;
	int by_lid;
};

static inline int sa_query_nodes(const struct sa_ctx *c,
				 const struct sa_layout *l,
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

/* A SL2VL or VLArb table query under way: what a record type's node
 * walk offers into, and how many matching tables were not read yet. */
struct sa_tbl_walk {
	struct sa_ctx *c;
	const struct sa_query *q;
	uint64_t mask;
	struct sa_answer *a;
	unsigned unread;
};

/* A SL2VL/VLArb table query (sa_rec_sl2vl.c): walk(w, node,
 * only_port) over the node the LID component `lid_comp` names (only_port:
 * the CA port it names, else FAB_NONE) or over every node, from cache t;
 * then what sa_tbl_unread says. An SA status. */
int sa_tbl_query(struct sa_ctx *c, const struct sa_query *q,
		 struct sa_answer *a, const struct sa_layout *rec,
		 unsigned lid_comp, struct sa_sl2vl_cache *t,
		 const char *rec_name,
		 int (*walk)(struct sa_tbl_walk *w, uint32_t fn,
			     uint32_t only_port));

/* The end of a SL2VL/VLArb table query that met `unread` matching tables
 * not read yet (sa_rec_sl2vl.c): logs once a generation and returns Busy
 * when the query named a LID (one_node) or a Get found nothing, else 0. */
int sa_tbl_unread(struct sa_sl2vl_cache *t, const char *rec_name,
		  const struct sa_query *q, const struct sa_answer *a,
		  unsigned unread, int one_node);

/* Append rec if it matches q under mask (no mask: it does). */
static inline int sa_offer(const struct sa_layout *l, const struct sa_query *q,
			   uint64_t mask, const uint8_t *rec, struct sa_answer *a)
{
	if (mask && !sa_comp_match(l, q->record, rec, mask))
		return 0;
	return sa_answer_add(a, rec);
}

#endif
