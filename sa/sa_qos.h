/* The QoS level of a PathRecord request (qos/qos_policy.h) between two
 * ports of the SA's database: the policy's view of a port (GUID, node
 * type, NodeDescription/Pnum, partitions, our own port as SELF) built
 * from what the SM discovered and programmed. */
#ifndef IBSM_SA_SA_QOS_H
#define IBSM_SA_SA_QOS_H

#include "../qos/qos_policy.h"
#include "sa_ctx.h"
#include "sa_handler.h"

/* NULL when QoS is off (c->qos NULL) or the policy has no level. q is a
 * PathRecord query (MultiPathRecord converted). */
const struct qos_level *sa_qos_level(const struct sa_ctx *c,
				     const struct sa_query *q,
				     uint32_t ps, uint32_t pd);

#endif
