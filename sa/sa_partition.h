/* Partition checks for the SA handlers (IBA 10.9, 15.4): which P_Keys a
 * port holds and which two ports share, from the tables the SM programmed
 * (partition/part_table.h). Without tables every port holds the default
 * partition 0xFFFF only. */
#ifndef IBSM_SA_SA_PARTITION_H
#define IBSM_SA_SA_PARTITION_H

#include "../partition/part_table.h"
#include "sa_ctx.h"
#include "sa_handler.h"

static inline const struct part_tables *sa_parts(const struct sa_ctx *c)
{
	static const struct part_tables none;

	return c->parts ? c->parts : &none;
}

/* The requester's port (FAB_NONE: a LID the last sweep did not see). */
static inline uint32_t sa_requester_port(const struct sa_ctx *c,
					 const struct sa_query *q)
{
	return q->requester_port_guid ?
		sa_db_port_of_guid(&c->db, q->requester_port_guid) :
		sa_db_port_of_lid(&c->db, q->slid);
}

/* Port p holds partition pkey (either membership). */
static inline int sa_port_has_pkey(const struct sa_ctx *c, uint32_t p, uint16_t pkey)
{
	return p != FAB_NONE && part_port_entry(sa_parts(c), p, pkey) != 0;
}

/* a and b may talk in some partition (an unknown port shares with all,
 * as OpenSM treats a port without a table). */
static inline int sa_ports_share(const struct sa_ctx *c, uint32_t a, uint32_t b)
{
	if (a == FAB_NONE || b == FAB_NONE || a == b)
		return 1;
	return part_common_pkey(sa_parts(c), a, b) != 0;
}

#endif
