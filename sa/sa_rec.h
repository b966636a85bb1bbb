/* Helpers shared by the record handlers (sa_rec_*.c, sa_path.c). */
#ifndef IBSM_SA_SA_REC_H
#define IBSM_SA_SA_REC_H

#include <stdint.h>
#include "sa_ctx.h"
#include "sa_handler.h"
#include "sa_layout.h"

#define REC_MAX 256                     /* largest record we build */

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
 * base LID's records (IBA 15.2.5: records are keyed by base LID). */
int64_t sa_query_lid_node(const struct sa_ctx *c, const struct sa_layout *l,
			  const struct sa_query *q, unsigned lid_comp,
			  uint64_t *mask, uint32_t *port);

/* Append rec if it matches q under mask. */
int sa_offer(const struct sa_layout *l, const struct sa_query *q,
	     uint64_t mask, const uint8_t *rec, struct sa_answer *a);

#endif
